/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DPDK I/O backend: the TSC clock, EAL set-up and argument split, port
 * set-up with its drivers' quirks (memif, af_packet), frame limits, open
 * and close.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_malloc.h>

#include "rk_eth.h"
#include "rk_io_internal.h"

/*
 * net_af_packet: its slots of framesz bytes (2048 by default) hold a sent
 * frame after a 32-byte header (DPDK frees larger ones), a received one
 * after 66 bytes (TPACKET_ALIGN(TPACKET2_HDRLEN + 16) less the Ethernet
 * header; the kernel cuts larger ones; a received 802.1Q tag goes to the
 * slot's header). So frames of framesz - 66 bytes pass both ways.
 */
#define AFP_FRAME_HDR 66
#define AFP_FRAMESZ 2048

/* ----------------------------------------------------------------- clock */

static uint64_t tsc_mult_q32;   /* ns per cycle, 32.32 fixed point */
static uint64_t tsc_base;

uint64_t
rk_io_dpdk_now_ns(void)
{
	if (tsc_mult_q32 == 0) {
		uint64_t hz = rte_get_tsc_hz();

		if (hz == 0) {
			struct timespec ts;

			clock_gettime(CLOCK_MONOTONIC, &ts);
			return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
		}
		tsc_mult_q32 = (uint64_t)(((__uint128_t)1000000000u << 32) / hz);
		tsc_base = rte_get_tsc_cycles();
	}
	/* Start above 0: the engine treats 0 as "never". */
	return (uint64_t)(((__uint128_t)(rte_get_tsc_cycles() - tsc_base) * tsc_mult_q32) >> 32) +
	       1000000000ull;
}

/* ------------------------------------------------------------------- EAL */

int
rk_io_dpdk_eal_init(int argc, char **argv)
{
	int rc = rte_eal_init(argc, argv);

	if (rc < 0)
		return rte_errno > 0 ? -rte_errno : -EINVAL;
	return rc;
}

bool
rk_io_dpdk_eal_usage_error(int err)
{
	return err == -EINVAL || err == -ENODEV;
}

const char *
rk_io_dpdk_eal_strerror(int err)
{
	switch (-err) {
	case EINVAL:
		return "the EAL options (before --) are not valid, see its message above";
	case ENODEV:
		return "a --vdev or -a device is not valid or has no driver (see above)";
	case EACCES:
		/* rte_eal_init() sets EACCES when it finds no usable hugepages. */
		return "no usable hugepages (none reserved?): reserve some, or give "
		       "--no-huge -m 512 before --";
	default:
		return strerror(-err);
	}
}

void
rk_io_dpdk_eal_cleanup(void)
{
	rte_eal_cleanup();
}

const char *
rk_io_dpdk_open_strerror(int err)
{
	switch (err) {
	case ETIMEDOUT:
		return "link still down (is the peer running?)";
	case ENOTCONN:
		return "link down: the port did not start (is the peer running?)";
	case ENODEV:
		return "no such DPDK port (check the EAL's --vdev or -a and the port name)";
	case EINTR:
		return "interrupted while the port waited for its peer (is the peer running?)";
	default:
		return strerror(err);
	}
}

static long
free_hugepages(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	long n = 0;

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "HugePages_Free: %ld", &n) == 1)
			break;
	fclose(f);
	return n;
}

void
rk_io_dpdk_split_args(int argc, char **argv, const char *prog, struct rk_io_dpdk_args *out)
{
	static char *defaults[8];
	int sep = -1, n = 0;

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			sep = i;
			break;
		}
	if (sep > 0) {
		out->eal_argc = sep;
		out->eal_argv = argv;
		out->app_argv = argv + sep;
		out->app_argc = argc - sep;
		out->app_argv[0] = argv[0];
		return;
	}
	defaults[n++] = (char *)prog;
	defaults[n++] = "--in-memory";
	defaults[n++] = "--no-pci";
	defaults[n++] = "--log-level=*:warning";
	if (free_hugepages() < 64) {
		/* No hugepages set up: anonymous memory, no shared config. */
		defaults[1] = "--no-huge";
		defaults[n++] = "-m512";
		defaults[n++] = "--no-shconf";
	}
	defaults[n] = NULL;
	out->eal_argc = n;
	out->eal_argv = defaults;
	out->app_argc = argc;
	out->app_argv = argv;
}

void
rk_io_dpdk_mac(const struct rk_io_dpdk *io, uint8_t mac[6])
{
	memcpy(mac, io->mac, 6);
}

uint16_t
rk_io_dpdk_port(const struct rk_io_dpdk *io)
{
	return io->port;
}


int
rk_io_dpdk_ip4(const struct rk_io_dpdk *io, uint8_t ip[4])
{
	if (!io->has_ip4)
		return -ENOENT;
	memcpy(ip, io->cfg.ip, 4);
	return 0;
}

/* ------------------------------------------------------------ open/close */

/*
 * Whether the port's driver copies every frame out of its mbufs inside
 * tx_burst and frees them before returning (so an mbuf may point at the
 * engine caller's memory for the length of one call): net_memif in copy
 * mode, net_af_packet, net_pcap, net_tap, net_null. Not net_ring (it
 * passes the mbufs on), net_af_xdp (its copy mode takes one segment) or a
 * NIC (it reads them later, by DMA).
 */
static bool
tx_copies_out(const struct rte_eth_dev_info *info)
{
	static const char *const copying[] = { "net_memif", "net_af_packet", "net_pcap",
					       "net_tap", "net_null" };
	const struct rte_devargs *da;
	bool known = false;

	if (info->driver_name == NULL)
		return false;
	for (size_t i = 0; i < sizeof(copying) / sizeof(copying[0]); i++)
		known = known || strcmp(info->driver_name, copying[i]) == 0;
	if (!known)
		return false;
	/* memif zero-copy hands the client's mbufs to the peer. */
	da = rte_dev_devargs(info->device);
	return strcmp(info->driver_name, "net_memif") != 0 || da == NULL || da->args == NULL ||
	       strstr(da->args, "zero-copy=yes") == NULL;
}

/*
 * Whether a port is a memif client: the only kind restarted while its link
 * stays down. A memif client that connected while its server was still
 * configuring stays down until it reconnects; restarting a server (or
 * restarting a client too eagerly) makes the peer see its partner leave
 * mid-handshake, which DPDK 22.11's memif can answer with a fault in its
 * interrupt thread.
 */
static bool
memif_client(const struct rte_eth_dev_info *info)
{
	const struct rte_devargs *da;

	if (info->driver_name == NULL || strcmp(info->driver_name, "net_memif") != 0)
		return false;
	da = rte_dev_devargs(info->device);
	return da == NULL || da->args == NULL || strstr(da->args, "role=server") == NULL;
}

/*
 * memif logs each failed connect of a client (the start's retries, the link
 * wait's restarts): muted while we retry, the caller says it once. Returns
 * the level to restore, or -1 (not memif).
 */
static int
memif_mute(const struct rte_eth_dev_info *info)
{
	int type, level;

	if (info->driver_name == NULL || strcmp(info->driver_name, "net_memif") != 0)
		return -1;
	type = rte_log_register("pmd.net.memif");       /* its id: registered at probe */
	if (type < 0 || (level = rte_log_get_level((uint32_t)type)) < 0)
		return -1;
	if (level > (int)RTE_LOG_CRIT)
		rte_log_set_level((uint32_t)type, RTE_LOG_CRIT);
	return level;
}

static void
memif_unmute(int level)
{
	int type;

	if (level >= 0 && (type = rte_log_register("pmd.net.memif")) >= 0)
		rte_log_set_level((uint32_t)type, (uint32_t)level);
}

/* Until @p deadline (ns): the port start's retries spent part of the same link timeout. */
static int
wait_link(uint16_t port, uint64_t deadline, bool restart_when_down,
	  const volatile sig_atomic_t *cancel)
{
	struct rte_eth_link link;
	uint64_t now = rk_io_dpdk_now_ns();
	/*
	 * A memif client still down is restarted: a slow server (a loaded
	 * machine) gets time to answer, and a short timeout its retries too
	 * (a quarter of what is left, 0.5 to 3 s apart).
	 */
	uint64_t period = deadline > now ? (deadline - now) / 4 : 0;
	uint64_t restart;

	period = period < 500000000ull ? 500000000ull : period > 3000000000ull ? 3000000000ull : period;
	restart = now + period;

	for (;;) {
		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(port, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_UP)
			return 0;
		if (rk_io_cancelled(cancel))
			return -EINTR;
		now = rk_io_dpdk_now_ns();
		if (now >= deadline)
			return -ETIMEDOUT;
		if (restart_when_down && now >= restart) {
			rte_eth_dev_stop(port);
			rte_eth_dev_start(port);
			restart = now + period;
		}
		rte_delay_us_sleep(10000);
	}
}

/*
 * DPDK 22.11's memif TX miscounts the free slots of a frame spread over
 * several descriptors: when the ring is almost full it writes past the
 * receiver's tail and splits or merges frames (NAKs, retransmissions).
 * Frames that fit one buffer (bsize=) never take that path, so say so
 * when the port's buffers are smaller than our largest frame.
 */
static void
memif_check(uint16_t port, const struct rte_eth_dev_info *info)
{
	const struct rte_devargs *da;
	const char *b;
	unsigned long bsize = 2048;     /* the PMD's default */

	if (info->driver_name == NULL || strcmp(info->driver_name, "net_memif") != 0)
		return;
	da = rte_dev_devargs(info->device);
	if (da != NULL && da->args != NULL && (b = strstr(da->args, "bsize=")) != NULL)
		bsize = strtoul(b + 6, NULL, 0);
	if (bsize < RK_IO_MEMIF_BSIZE)
		RTE_LOG(WARNING, USER1,
			"rk_io: port %u: memif bsize=%lu splits frames over %lu bytes; "
			"DPDK's memif can corrupt them when its ring fills: add bsize=%u\n",
			port, bsize, bsize, RK_IO_MEMIF_BSIZE);
}

/* A numeric devarg "key=N" of @p args, or @p dflt. */
static unsigned long
devarg_ul(const char *args, const char *key, unsigned long dflt)
{
	size_t kl = strlen(key);

	for (const char *a = args; a != NULL && *a != '\0'; a = strchr(a, ',')) {
		a += *a == ',';
		if (strncmp(a, key, kl) == 0 && a[kl] == '=')
			return strtoul(a + kl + 1, NULL, 0);
	}
	return dflt;
}

/*
 * Note what bounds the port's frames: net_af_packet's slots (framesz;
 * 22.11 frees larger frames and counts them in oerrors only, the
 * receiving end's kernel cuts them) and the MTU of its kernel interface
 * (the kernel drops larger frames without a trace, PACKET_LOSS); else the
 * driver's max_mtu.
 */
static void
frame_limits(struct rk_io_dpdk *io, const struct rte_eth_dev_info *info)
{
	const struct rte_devargs *da = rte_dev_devargs(info->device);
	const char *args = da != NULL ? da->args : NULL;
	struct ifreq ifr;
	int fd;

	if (rte_eth_dev_get_name_by_port(io->port, io->name) != 0)
		snprintf(io->name, sizeof(io->name), "port %u", io->port);
	io->max_mtu = info->max_mtu;
	io->oerrors_refused = info->driver_name != NULL &&
			      strcmp(info->driver_name, "net_memif") == 0;
	if (info->driver_name == NULL || strcmp(info->driver_name, "net_af_packet") != 0)
		return;
	io->afp_framesz = (uint32_t)devarg_ul(args, "framesz", AFP_FRAMESZ);
	io->afp_blocksz = (uint32_t)devarg_ul(args, "blocksz", (unsigned long)getpagesize());
	if (info->if_index == 0 || if_indextoname(info->if_index, io->ifname) == NULL)
		return;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", io->ifname);
	if (ioctl(fd, SIOCGIFMTU, &ifr) == 0 && ifr.ifr_mtu > 0)
		io->if_mtu = (uint32_t)ifr.ifr_mtu;
	close(fd);
}

int
rk_io_dpdk_check_frame(const struct rk_io_dpdk *io, uint32_t frame_len, char *why, size_t len)
{
	uint32_t tag = io->cfg.vlan_id != 0 ? RK_VLAN_HLEN : 0, want;
	uint32_t slot = io->afp_framesz > AFP_FRAME_HDR ? io->afp_framesz - AFP_FRAME_HDR : 0;

	if (why != NULL && len > 0)
		why[0] = '\0';
	if (io->afp_framesz != 0 && frame_len > slot) {
		/* A power of two, as the slots must tile the blocks. */
		want = rte_align32pow2(frame_len + AFP_FRAME_HDR);
		if (why != NULL)
			snprintf(why, len, "%s takes frames of at most %u bytes: give "
				 "framesz=%u,blocksz=%u in --vdev", io->name, slot, want,
				 want > io->afp_blocksz ? want : io->afp_blocksz);
		return -EMSGSIZE;
	}
	/* The kernel allows mtu + 14 bytes, plus 4 for an 802.1Q tag. */
	if (io->if_mtu != 0 && frame_len > io->if_mtu + RK_ETH_HLEN) {
		if (why != NULL)
			snprintf(why, len, "interface %s of %s has MTU %u: give it %u (ip link "
				 "set %s mtu %u)", io->ifname, io->name, io->if_mtu,
				 frame_len - RK_ETH_HLEN, io->ifname, frame_len - RK_ETH_HLEN);
		return -EMSGSIZE;
	}
	if (io->max_mtu != 0 && io->max_mtu != UINT16_MAX &&
	    frame_len > (uint32_t)io->max_mtu + RK_ETH_HLEN) {
		if (why != NULL)
			snprintf(why, len, "%s takes an MTU of at most %u (frames of %u bytes)",
				 io->name, io->max_mtu, io->max_mtu + RK_ETH_HLEN + tag);
		return -EMSGSIZE;
	}
	return 0;
}

uint32_t
rk_io_dpdk_ip_mtu(const struct rk_io_dpdk *io)
{
	uint32_t l2 = RK_ETH_HLEN + (io->cfg.vlan_id != 0 ? RK_VLAN_HLEN : 0), mtu = 0;

	if (io->afp_framesz > AFP_FRAME_HDR + l2)
		mtu = io->afp_framesz - AFP_FRAME_HDR - l2;
	if (io->if_mtu != 0 && (mtu == 0 || io->if_mtu < mtu))
		mtu = io->if_mtu;
	if (io->max_mtu != 0 && io->max_mtu != UINT16_MAX && (mtu == 0 || io->max_mtu < mtu))
		mtu = io->max_mtu;
	return mtu;
}

/* Close the (stopped) port when it was set up, free what open() made. */
static void
port_free(struct rk_io_dpdk *io)
{
	if (io->pool != NULL) {
		rte_eth_dev_close(io->port);
		rte_mempool_free(io->pool);
	}
	rte_mempool_free(io->ext_pool);
	for (uint32_t i = 0; i < io->kept_pools_n; i++)
		rte_mempool_free(io->kept_pools[i]);
	free(io->kept_pools);
	rk_impair_destroy(io->tx_drop);
	rte_free(io->txq);
	rte_free(io);
}

struct rk_io_dpdk *
rk_io_dpdk_open(const struct rk_io_dpdk_cfg *cfg)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	struct rte_ether_addr ea;
	struct rk_io_dpdk *io;
	char pool_name[RTE_MEMPOOL_NAMESIZE];
	uint16_t nb_desc, nrx, ntx;
	uint64_t link_deadline;
	int log_level = -1, rc;

	if (cfg == NULL || cfg->vlan_id > 4094 || cfg->vlan_pcp > 7 || cfg->tx_drop_rate < 0 ||
	    cfg->tx_drop_rate >= 1 || cfg->ip4_count > 256 ||
	    (cfg->ip4_count > 1 && cfg->ip[3] + cfg->ip4_count - 1 > 255)) {
		errno = EINVAL;
		return NULL;
	}
	io = rte_zmalloc("rk_io_dpdk", sizeof(*io), RTE_CACHE_LINE_SIZE);
	if (io == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	io->cfg = *cfg;
	if (io->cfg.nb_mbufs == 0)
		io->cfg.nb_mbufs = 4095;
	if (io->cfg.spin_us == 0)
		io->cfg.spin_us = 100;
	if (io->cfg.sleep_us == 0)
		io->cfg.sleep_us = 50;
	if (io->cfg.link_timeout_ms == 0)
		io->cfg.link_timeout_ms = 10000;
	if (cfg->tx_queue > TXQ_MAX) {
		rte_free(io);
		errno = EINVAL;
		return NULL;
	}
	io->txq_size = TXQ_DEFAULT;
	if (cfg->tx_queue != 0)
		io->txq_size = rte_align32pow2(cfg->tx_queue < 2 ? 2 : cfg->tx_queue);
	io->txq = rte_zmalloc("rk_io_txq", io->txq_size * sizeof(io->txq[0]), RTE_CACHE_LINE_SIZE);
	if (io->txq == NULL) {
		rte_free(io);
		errno = ENOMEM;
		return NULL;
	}
	io->idle = cfg->idle;
	/* The TX drop options: one rule of the impairment stage. */
	if (cfg->tx_drop_every != 0 || cfg->tx_drop_rate > 0) {
		struct rk_impair_rule r = {
			.drop_every = cfg->tx_drop_every, .loss = cfg->tx_drop_rate,
			.rng = RK_IMPAIR_RNG_SPLITMIX64,
			.seed = cfg->tx_drop_seed != 0 ? cfg->tx_drop_seed : 1,
		};

		io->tx_drop = rk_impair_create(&r, 1);
		if (io->tx_drop == NULL) {
			int err = errno;

			port_free(io);
			errno = err;
			return NULL;
		}
	}
	nb_desc = cfg->nb_desc != 0 ? cfg->nb_desc : 1024;

	if (cfg->port_name != NULL) {
		if (rte_eth_dev_get_port_by_name(cfg->port_name, &io->port) != 0) {
			rc = -ENODEV;
			goto fail;
		}
	} else {
		io->port = cfg->port_id;
	}
	if (!rte_eth_dev_is_valid_port(io->port)) {
		rc = -ENODEV;
		goto fail;
	}
	rc = rte_eth_dev_info_get(io->port, &info);
	if (rc != 0)
		goto fail;
	snprintf(pool_name, sizeof(pool_name), "rk_io_%u", io->port);
	/*
	 * Room for a 9 KB jumbo frame: the engine's largest frame fits in one
	 * segment, and so does whatever net_af_packet's frames (framesz) hold.
	 */
	io->pool = rte_pktmbuf_pool_create(pool_name, io->cfg.nb_mbufs, 256, 0,
					   RTE_PKTMBUF_HEADROOM + 9216,
					   (int)rte_eth_dev_socket_id(io->port) < 0 ?
					   (int)SOCKET_ID_ANY : rte_eth_dev_socket_id(io->port));
	if (io->pool == NULL) {
		rc = -(rte_errno > 0 ? rte_errno : ENOMEM);
		goto fail;
	}
	memset(&conf, 0, sizeof(conf));
	rc = rte_eth_dev_configure(io->port, 1, 1, &conf);
	if (rc != 0)
		goto fail;
	nrx = ntx = nb_desc;
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(io->port, &nrx, &ntx);
	if (rc != 0)
		goto fail;
	rc = rte_eth_rx_queue_setup(io->port, 0, nrx, rte_eth_dev_socket_id(io->port), NULL,
				    io->pool);
	if (rc != 0)
		goto fail;
	rc = rte_eth_tx_queue_setup(io->port, 0, ntx, rte_eth_dev_socket_id(io->port), NULL);
	if (rc != 0)
		goto fail;
	/*
	 * A memif client cannot start before its server listens: retry. One
	 * deadline for the start and the link wait: link_timeout_ms in all.
	 */
	link_deadline = rk_io_dpdk_now_ns() + (uint64_t)io->cfg.link_timeout_ms * 1000000ull;
	log_level = memif_mute(&info);
	for (;;) {
		rc = rte_eth_dev_start(io->port);
		if (rc == 0 || rk_io_dpdk_now_ns() >= link_deadline)
			break;
		if (rk_io_cancelled(cfg->cancel)) {
			rc = -EINTR;
			goto fail;
		}
		rte_delay_us_sleep(100000);
	}
	if (rc != 0) {
		rc = -ENOTCONN;         /* typically a memif client without a server */
		goto fail;
	}
	/* Multicast ARP and peers that do not know our MAC yet. */
	rte_eth_promiscuous_enable(io->port);
	rc = rte_eth_macaddr_get(io->port, &ea);
	if (rc != 0)
		goto fail_stop;
	memcpy(io->mac, ea.addr_bytes, 6);
	if (memcmp(cfg->mac, (const uint8_t[6]){ 0 }, 6) != 0) {
		memcpy(ea.addr_bytes, cfg->mac, 6);
		rc = rte_eth_dev_default_mac_addr_set(io->port, &ea);
		/*
		 * A port that cannot change its MAC (net_pcap, net_ring) is
		 * promiscuous anyway: the endpoint answers to cfg->mac in software.
		 */
		if (rc != 0 && rc != -ENOTSUP)
			goto fail_stop;
		memcpy(io->mac, cfg->mac, 6);
	}
	memif_check(io->port, &info);
	frame_limits(io, &info);
	if (!cfg->tx_copy && tx_copies_out(&info)) {
		snprintf(pool_name, sizeof(pool_name), "rk_io_x%u", io->port);
		/* Two mbufs (payload, trailer) for every frame the queue can hold. */
		io->ext_pool = rte_pktmbuf_pool_create(pool_name, 2 * io->txq_size + 2 * TX_BATCH + 63,
						       64, 0, RTE_PKTMBUF_HEADROOM + 64,
						       (int)SOCKET_ID_ANY);
		io->ext_shinfo.free_cb = rk_io_ext_free;
		rte_mbuf_ext_refcnt_set(&io->ext_shinfo, 1);
		io->tx_sg = io->ext_pool != NULL;
	}
	io->has_ip4 = (cfg->ip[0] | cfg->ip[1] | cfg->ip[2] | cfg->ip[3]) != 0;
	for (int i = 0; i < 16; i++)
		io->has_ip6 |= cfg->ip6[i] != 0;
	io->any_dst = !io->has_ip4 && !io->has_ip6;
	rc = wait_link(io->port, link_deadline, memif_client(&info), cfg->cancel);
	memif_unmute(log_level);
	log_level = -1;
	if (rc != 0)
		goto fail_stop;
	{
		struct rte_eth_stats es;

		if (rte_eth_stats_get(io->port, &es) == 0)
			io->oerrors_base = es.oerrors;
	}
	if (cfg->pcapng_path != NULL) {
		struct timespec rt;
		char ifname[64];

		clock_gettime(CLOCK_REALTIME, &rt);
		io->wall_off_ns = (int64_t)((uint64_t)rt.tv_sec * 1000000000ull +
					    (uint64_t)rt.tv_nsec) - (int64_t)rk_io_dpdk_now_ns();
		if (rte_eth_dev_get_name_by_port(io->port, ifname) != 0)
			snprintf(ifname, sizeof(ifname), "port%u", io->port);
		/* Written by the writer's own thread: the datapath only copies. */
		rc = rk_pcapng_open_background(&io->pcap, cfg->pcapng_path, ifname,
					       cfg->snaplen == RK_IO_SNAP_HEADERS ? 0 : cfg->snaplen, 0);
		if (rc != 0)
			goto fail_stop;
		io->recording = true;
	}
	rk_io_pause_init(io);
	return io;

fail_stop:
	rte_eth_dev_stop(io->port);
fail:
	port_free(io);
	memif_unmute(log_level);
	errno = rc < 0 ? -rc : rc;
	return NULL;
}

int
rk_io_dpdk_close(struct rk_io_dpdk *io)
{
	int rc = 0;

	if (io == NULL)
		return -EINVAL;
	/* Give queued frames 10 ms, then drop them (never recorded). */
	for (int i = 0; i < 100 && io->txq_n > 0; i++) {
		rk_io_tx_once(io);
		if (io->txq_n > 0)
			rte_delay_us_sleep(100);
	}
	io->st.tx_dropped_full += io->txq_n;
	for (; io->txq_n > 0; io->txq_n--, io->txq_head++)
		rte_pktmbuf_free(io->txq[io->txq_head & (io->txq_size - 1)]);
	for (uint16_t i = io->rx_i; i < io->rx_n; i++)
		rte_pktmbuf_free(io->rx[i]);
	rte_pktmbuf_free(io->tx_lent);
	rte_pktmbuf_free(io->rx_cur);
	rte_pktmbuf_free_bulk(io->rx_free, io->rx_free_n);
	if (io->recording)
		rc = rk_pcapng_close(&io->pcap);
	rte_eth_dev_stop(io->port);
	port_free(io);
	return rc;
}
