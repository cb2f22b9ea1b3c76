/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DPDK backend: one RX/TX queue pair of an ethdev port behind
 * struct rk_io_ops. Frames are copied between mbufs and the engine's
 * flat buffers (the engine parses and builds contiguous frames); the copy
 * is the price of keeping lib/ib free of DPDK types.
 */
#include "rk_io_dpdk.h"
#include "rk_io_xstats.h"

#include <errno.h>
#include <net/if.h>
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
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_pause.h>

#include "rk_byteorder.h"
#include "rk_pcapng.h"

#define RX_BURST 32
#define TXQ_DEFAULT 512         /* frames held while the device ring is full */
#define TXQ_MAX 32768
#define TXQ_RESERVE 8           /* kept free of engine frames for ARP answers */
#define TX_SPIN_NS 20000        /* a full queue waits this long for the ring */
#define TX_BATCH 32             /* queued frames handed to the device without waiting for flush */
#define NEIGH_MAX 16
#define IP6_HLEN 40
#define ICMP6 58
#define ND_NS 135                /* RFC 4861 Neighbor Solicitation */
#define ND_NA 136                /* ... Advertisement */
#define ND_MSG_LEN 32            /* type..target (24) + one link-layer address option (8) */
#define ETH_HLEN 14
#define VLAN_HLEN 4
#define ROCE_PORT 4791
#define ARP_LEN 28
#define FRAME_MIN 60            /* Ethernet minimum without FCS */
#define SCRATCH (RK_IB_MAX_FRAME + 256)
/*
 * net_af_packet: its slots of framesz bytes (2048 by default) hold a sent
 * frame after a 32-byte header (DPDK frees larger ones), a received one
 * after 66 bytes (TPACKET_ALIGN(TPACKET2_HDRLEN + 16) less the Ethernet
 * header; the kernel cuts larger ones; a received 802.1Q tag goes to the
 * slot's header). So frames of framesz - 66 bytes pass both ways.
 */
#define AFP_FRAME_HDR 66
#define AFP_FRAMESZ 2048

/* A neighbour: IPv6 address, or IPv4 as ::ffff:a.b.c.d. */
struct neigh {
	uint8_t ip[16];
	uint8_t mac[6];
	bool valid;
};

struct rk_io_dpdk {
	struct rk_io_dpdk_cfg cfg;
	uint16_t port;
	struct rte_mempool *pool;
	uint8_t mac[6];
	struct rte_mbuf *rx[RX_BURST];
	uint16_t rx_n, rx_i;
	bool rx_short;                  /* the last burst did not fill rx[] */
	/* TX queue: a ring of mbufs not yet taken by the device. */
	struct rte_mbuf **txq;
	uint32_t txq_size;              /* power of two */
	uint32_t txq_head, txq_n;
	struct neigh neigh[NEIGH_MAX];
	unsigned int neigh_next;
	bool any_dst;                   /* no address: take every RoCEv2 frame */
	bool has_ip4, has_ip6;
	bool recording;
	struct rk_pcapng pcap;
	int64_t wall_off_ns;            /* realtime - monotonic, for the recording */
	enum rk_io_idle idle;
	uint64_t idle_since_ns;         /* first empty poll of this idle period; 0: busy */
	uint64_t drop_count, rng;
	struct rk_io_dpdk_stats st;
	struct rte_mbuf *tx_lent;       /* lent to the engine by tx_frame() */
	struct rte_mbuf *rx_cur;        /* frame shown by rx_view() until rx_done() */
	struct rte_mbuf *rx_free[RX_BURST];     /* done with, freed in bulk when idle or full */
	uint16_t rx_free_n;
	/*
	 * By-reference payloads (ops_tx_commit_sg): the driver copies frames
	 * out inside tx_burst, so an mbuf may point at registered memory for
	 * the length of one engine call; ext_pool holds the mbufs that do
	 * (and the trailers'), ext_shinfo is their shared buffer information.
	 */
	bool tx_sg;
	struct rte_mempool *ext_pool;
	struct rte_mbuf_ext_shared_info ext_shinfo;
	rk_io_frame_fn hook;            /* IPv4 frames for us and ARP replies (lwIP) */
	void *hook_ctx;
	/* What bounds the frames the port sends (rk_io_dpdk_check_frame()). */
	char name[RTE_ETH_NAME_MAX_LEN];
	uint32_t afp_framesz, afp_blocksz;      /* net_af_packet's devargs; 0: not one */
	char ifname[IF_NAMESIZE];       /* its kernel interface ... */
	uint32_t if_mtu;                /* ... and that one's MTU; 0: unknown */
	uint16_t max_mtu;               /* dev_info; UINT16_MAX: none given */
	bool oerrors_refused;           /* the driver counts frames it hands back as oerrors */
	uint64_t oerrors_base;          /* the driver's oerrors when the port started */
	uint8_t scratch[SCRATCH];
	uint8_t hook_buf[SCRATCH];
};

/* K_IP4: IPv4 to our address, not RoCEv2 (TCP, ICMP ...). */
enum kind { K_ROCE, K_ARP, K_ND, K_OTHER, K_IP4 };

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

static uint64_t
wall_ns(const struct rk_io_dpdk *io)
{
	return (uint64_t)((int64_t)rk_io_dpdk_now_ns() + io->wall_off_ns);
}

/* Whether the caller's cancel flag (cfg.cancel) is set. */
static bool
cancelled(const volatile sig_atomic_t *flag)
{
	return flag != NULL && *flag != 0;
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
		return "the port did not start (is the peer running?)";
	case ENODEV:
		return "no such DPDK port (check --vdev and -d)";
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

/* -------------------------------------------------------------------- TX */

static void
record_mbuf(struct rk_io_dpdk *io, struct rte_mbuf *m, enum rk_pcapng_dir dir)
{
	uint32_t len = rte_pktmbuf_pkt_len(m);
	uint32_t cap = len < SCRATCH ? len : SCRATCH;
	const uint8_t *p = rte_pktmbuf_read(m, 0, cap, io->scratch);

	if (p != NULL)
		rk_pcapng_write(&io->pcap, wall_ns(io), dir, p, len);
}

/*
 * The device took @p n of the @p offered frames at @p q: count them and,
 * when recording, write them out. Recording holds an extra reference on
 * every offered mbuf, so the data is still readable here whatever the
 * driver did with the mbufs it took; the pcapng therefore holds exactly
 * the frames handed to the device, at the time they were handed over.
 */
static void
tx_handed(struct rk_io_dpdk *io, struct rte_mbuf **q, uint16_t offered, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++) {
		io->st.tx_frames++;
		io->st.tx_bytes += rte_pktmbuf_pkt_len(q[i]);
	}
	if (!io->recording)
		return;
	for (uint16_t i = 0; i < n; i++)
		record_mbuf(io, q[i], RK_PCAPNG_OUT);
	for (uint16_t i = 0; i < offered; i++)
		rte_pktmbuf_free(q[i]);         /* our reference only */
}

/*
 * One pass of tx_burst over the queue (in up to two runs, as the ring
 * wraps). Frames the device does not take stay queued, in order.
 * @return frames taken.
 */
static uint32_t
tx_once(struct rk_io_dpdk *io)
{
	uint32_t total = 0;

	while (io->txq_n > 0) {
		uint32_t head = io->txq_head & (io->txq_size - 1);
		uint32_t run = io->txq_size - head;
		struct rte_mbuf **q = io->txq + head;
		uint16_t want, n;

		if (run > io->txq_n)
			run = io->txq_n;
		want = run > UINT16_MAX ? UINT16_MAX : (uint16_t)run;
		/* Every segment: the driver frees a chain segment by segment. */
		if (io->recording)
			for (uint16_t i = 0; i < want; i++)
				for (struct rte_mbuf *g = q[i]; g != NULL; g = g->next)
					rte_mbuf_refcnt_update(g, 1);
		n = rte_eth_tx_burst(io->port, 0, q, want);
		io->st.tx_refused += want - n;
		tx_handed(io, q, want, n);
		io->txq_head += n;
		io->txq_n -= n;
		total += n;
		if (n < want) {
			io->st.tx_ring_full++;
			break;
		}
	}
	return total;
}

/*
 * Hand queued frames to the device; while more than @p keep stay queued,
 * retry for up to @p spin_ns (the peer or the NIC drains the ring).
 */
static void
flush_tx(struct rk_io_dpdk *io, uint32_t keep, uint64_t spin_ns)
{
	uint64_t until = 0;

	tx_once(io);
	while (io->txq_n > keep && spin_ns > 0) {
		uint64_t now = rk_io_dpdk_now_ns();

		if (until == 0)
			until = now + spin_ns;
		else if (now >= until)
			break;
		rte_pause();
		tx_once(io);
	}
}

/* Room for one more frame in the TX queue, or -ENOBUFS (counted). */
static int
txq_reserve(struct rk_io_dpdk *io)
{
	/* Full: wait briefly for the ring before this becomes a real drop. */
	if (io->txq_n == io->txq_size)
		flush_tx(io, io->txq_size - 1, TX_SPIN_NS);
	if (io->txq_n == io->txq_size) {
		io->st.tx_dropped_full++;
		return -ENOBUFS;
	}
	return 0;
}

/* Queue one frame (VLAN tag inserted when configured). */
static int
queue_frame(struct rk_io_dpdk *io, const uint8_t *frame, uint32_t len)
{
	uint32_t tag = io->cfg.vlan_id != 0 ? VLAN_HLEN : 0;
	struct rte_mbuf *m;
	uint8_t *p;

	if (len < ETH_HLEN)
		return -EINVAL;
	if (txq_reserve(io) != 0)
		return -ENOBUFS;
	m = rte_pktmbuf_alloc(io->pool);
	if (m == NULL) {
		io->st.tx_dropped_full++;
		return -ENOBUFS;
	}
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(len + tag));
	if (p == NULL) {
		rte_pktmbuf_free(m);
		io->st.tx_dropped_full++;
		return -EMSGSIZE;
	}
	if (tag != 0) {
		/* 802.1Q: TPID 0x8100, PCP 0, VID, then the original EtherType. */
		memcpy(p, frame, 12);
		rk_put_be16(p + 12, 0x8100);
		rk_put_be16(p + 14, io->cfg.vlan_id & 0x0fff);
		memcpy(p + 16, frame + 12, len - 12);
	} else {
		memcpy(p, frame, len);
	}
	io->txq[(io->txq_head + io->txq_n++) & (io->txq_size - 1)] = m;
	return 0;
}

static uint64_t
next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Fault injection: whether to lose the next frame on the wire (counted). */
static bool
drop_injected(struct rk_io_dpdk *io)
{
	if (io->cfg.tx_drop_every != 0 && ++io->drop_count % io->cfg.tx_drop_every == 0) {
		io->st.tx_dropped_injected++;
		return true;
	}
	if (io->cfg.tx_drop_rate > 0 &&
	    (double)(next_rand(&io->rng) >> 11) * 0x1p-53 < io->cfg.tx_drop_rate) {
		io->st.tx_dropped_injected++;
		return true;
	}
	return false;
}

static int
ops_tx(void *arg, const uint8_t *frame, uint32_t len)
{
	struct rk_io_dpdk *io = arg;

	/* The frame is lost on the wire, not refused. */
	if (drop_injected(io))
		return 0;
	return queue_frame(io, frame, len);
}

/*
 * Lend the engine an mbuf to build its next frame in (no copy). The data
 * starts VLAN_HLEN bytes in when tagging, so the tag goes in at commit by
 * moving only the two MAC addresses.
 */
static uint8_t *
ops_tx_frame(void *arg)
{
	struct rk_io_dpdk *io = arg;
	uint32_t tag = io->cfg.vlan_id != 0 ? VLAN_HLEN : 0;

	if (io->tx_lent == NULL) {
		io->tx_lent = rte_pktmbuf_alloc(io->pool);
		if (io->tx_lent == NULL)
			return NULL;            /* the engine builds it itself, tx() copies */
	}
	if (rte_pktmbuf_tailroom(io->tx_lent) < RK_IB_MAX_FRAME + tag)
		return NULL;
	return rte_pktmbuf_mtod(io->tx_lent, uint8_t *) + tag;
}

/*
 * Queue the lent mbuf, its first segment holding @p seg_len bytes of the
 * frame built at @p frame (@p pkt_len in all, with any chained segments).
 */
static void
queue_lent(struct rk_io_dpdk *io, uint8_t *frame, uint32_t seg_len, uint32_t pkt_len)
{
	uint32_t tag = io->cfg.vlan_id != 0 ? VLAN_HLEN : 0;
	struct rte_mbuf *m = io->tx_lent;
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);

	if (tag != 0) {
		/* 802.1Q: the MACs move up 4 bytes; TPID 0x8100, PCP 0, VID. */
		memmove(p, frame, 12);
		rk_put_be16(p + 12, 0x8100);
		rk_put_be16(p + 14, io->cfg.vlan_id & 0x0fff);
	}
	m->data_len = (uint16_t)(seg_len + tag);
	m->pkt_len = pkt_len + tag;
	io->tx_lent = NULL;
	io->txq[(io->txq_head + io->txq_n++) & (io->txq_size - 1)] = m;
	/* A burst's worth: the peer starts on it while the engine builds the rest. */
	if (io->txq_n >= TX_BATCH)
		tx_once(io);
}

static int
ops_tx_commit(void *arg, uint8_t *frame, uint32_t len)
{
	struct rk_io_dpdk *io = arg;
	uint32_t tag = io->cfg.vlan_id != 0 ? VLAN_HLEN : 0;
	struct rte_mbuf *m = io->tx_lent;

	if (m == NULL || frame != rte_pktmbuf_mtod(m, uint8_t *) + tag || len < ETH_HLEN ||
	    len > RK_IB_MAX_FRAME)
		return -EINVAL;
	/* Lost on the wire: the mbuf stays lent for the next frame. */
	if (drop_injected(io))
		return 0;
	if (txq_reserve(io) != 0)
		return -ENOBUFS;
	queue_lent(io, frame, len, len);
	return 0;
}

/* The external buffer belongs to the engine's caller: nothing to free. */
static void
ext_free(void *addr, void *opaque)
{
	(void)addr;
	(void)opaque;
}

/*
 * Headers in the lent mbuf, the payload in an external-buffer mbuf over
 * the registered memory, pad and ICRC in a third: the driver copies the
 * three into its ring in tx_burst. Where the port would keep the mbufs
 * (not tx_sg), or an mbuf is short, the pieces are copied together.
 */
static int
ops_tx_commit_sg(void *arg, uint8_t *frame, uint32_t hdr_len, const uint8_t *payload,
		 uint32_t plen, const uint8_t *trailer, uint32_t tlen)
{
	struct rk_io_dpdk *io = arg;
	uint32_t tag = io->cfg.vlan_id != 0 ? VLAN_HLEN : 0;
	struct rte_mbuf *m = io->tx_lent, *x[2];

	if (m == NULL || frame != rte_pktmbuf_mtod(m, uint8_t *) + tag || hdr_len < ETH_HLEN ||
	    (uint64_t)hdr_len + plen + tlen > RK_IB_MAX_FRAME || tlen > 64)
		return -EINVAL;
	if (!io->tx_sg || rte_pktmbuf_alloc_bulk(io->ext_pool, x, 2) != 0) {
		/* One frame, copied together: exactly what tx_commit queues. */
		memcpy(frame + hdr_len, payload, plen);
		memcpy(frame + hdr_len + plen, trailer, tlen);
		return ops_tx_commit(arg, frame, hdr_len + plen + tlen);
	}
	/* Lost on the wire: the mbuf stays lent for the next frame. */
	if (drop_injected(io)) {
		rte_pktmbuf_free_bulk(x, 2);
		return 0;
	}
	if (txq_reserve(io) != 0) {
		rte_pktmbuf_free_bulk(x, 2);
		return -ENOBUFS;
	}
	rte_mbuf_ext_refcnt_update(&io->ext_shinfo, 1);
	rte_pktmbuf_attach_extbuf(x[0], (void *)(uintptr_t)payload, RTE_BAD_IOVA, (uint16_t)plen,
				  &io->ext_shinfo);
	x[0]->data_len = (uint16_t)plen;
	memcpy(rte_pktmbuf_mtod(x[1], uint8_t *), trailer, tlen);
	x[1]->data_len = (uint16_t)tlen;
	m->next = x[0];
	x[0]->next = x[1];
	m->nb_segs = 3;
	io->st.tx_by_ref++;
	queue_lent(io, frame, hdr_len, hdr_len + plen + tlen);
	return 0;
}

/*
 * Frames still queued that point at the caller's memory get a copy of it:
 * the memory is the caller's again once the engine call returns.
 */
static void
own_queued(struct rk_io_dpdk *io)
{
	uint32_t kept = 0, n = io->txq_n;

	for (uint32_t k = 0; k < n; k++) {
		struct rte_mbuf *m = io->txq[(io->txq_head + k) & (io->txq_size - 1)], *c;
		uint32_t len = rte_pktmbuf_pkt_len(m);
		const uint8_t *r;

		if (m->nb_segs > 1 && RTE_MBUF_HAS_EXTBUF(m->next)) {
			c = rte_pktmbuf_alloc(io->pool);
			if (c != NULL && rte_pktmbuf_append(c, (uint16_t)len) != NULL &&
			    (r = rte_pktmbuf_read(m, 0, len, rte_pktmbuf_mtod(c, uint8_t *))) != NULL) {
				if (r != rte_pktmbuf_mtod(c, uint8_t *))
					memcpy(rte_pktmbuf_mtod(c, uint8_t *), r, len);
				io->st.tx_by_ref_copied++;
			} else {
				/* No mbuf to copy into: lost, as from a full queue. */
				rte_pktmbuf_free(c);
				c = NULL;
				io->st.tx_dropped_full++;
			}
			rte_pktmbuf_free(m);
			m = c;
		}
		if (m != NULL)
			io->txq[(io->txq_head + kept++) & (io->txq_size - 1)] = m;
	}
	io->txq_n = kept;
}

static void
ops_flush(void *arg)
{
	struct rk_io_dpdk *io = arg;

	/* Over half full: spin a little so the next batch finds room. */
	flush_tx(io, io->txq_size / 2, TX_SPIN_NS);
	if (io->tx_sg && io->txq_n > 0)
		own_queued(io);
}

static unsigned int
ops_tx_room(void *arg)
{
	struct rk_io_dpdk *io = arg;
	uint32_t used;

	if (io->txq_n > 0)
		tx_once(io);
	used = io->txq_n + TXQ_RESERVE;
	return used >= io->txq_size ? 0 : io->txq_size - used;
}

/* ------------------------------------------------------------------- ARP */

static void
mapped4(const uint8_t ip4[4], uint8_t ip[16])
{
	memset(ip, 0, 10);
	ip[10] = ip[11] = 0xff;
	memcpy(ip + 12, ip4, 4);
}

static bool
is_mapped4(const uint8_t ip[16])
{
	static const uint8_t pre[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return memcmp(ip, pre, 12) == 0;
}

static struct neigh *
neigh_find(struct rk_io_dpdk *io, const uint8_t ip[16])
{
	for (unsigned int i = 0; i < NEIGH_MAX; i++)
		if (io->neigh[i].valid && memcmp(io->neigh[i].ip, ip, 16) == 0)
			return &io->neigh[i];
	return NULL;
}

static void
neigh_learn(struct rk_io_dpdk *io, const uint8_t ip[16], const uint8_t mac[6])
{
	struct neigh *n = neigh_find(io, ip);

	if (n == NULL) {
		n = &io->neigh[io->neigh_next++ % NEIGH_MAX];
		memcpy(n->ip, ip, 16);
		n->valid = true;
	}
	memcpy(n->mac, mac, 6);
}

/* RFC 826 frame: Ethernet/IPv4 hardware and protocol types. */
static int
send_arp(struct rk_io_dpdk *io, uint16_t oper, const uint8_t dmac[6], const uint8_t tha[6],
	 const uint8_t tpa[4])
{
	uint8_t f[FRAME_MIN] = { 0 };
	uint8_t *a = f + ETH_HLEN;

	memcpy(f, dmac, 6);
	memcpy(f + 6, io->mac, 6);
	rk_put_be16(f + 12, 0x0806);
	rk_put_be16(a, 1);
	rk_put_be16(a + 2, 0x0800);
	a[4] = 6;
	a[5] = 4;
	rk_put_be16(a + 6, oper);
	memcpy(a + 8, io->mac, 6);
	memcpy(a + 14, io->cfg.ip, 4);
	memcpy(a + 18, tha, 6);
	memcpy(a + 24, tpa, 4);
	io->st.tx_arp++;
	return queue_frame(io, f, sizeof(f));
}

static void
handle_arp(struct rk_io_dpdk *io, const uint8_t *a)
{
	uint16_t oper = rk_get_be16(a + 6);
	uint8_t spa[16];

	if (rk_get_be16(a) != 1 || rk_get_be16(a + 2) != 0x0800 || a[4] != 6 || a[5] != 4)
		return;
	if (!io->has_ip4 || memcmp(a + 24, io->cfg.ip, 4) != 0)
		return;                 /* not for us: no gratuitous learning */
	mapped4(a + 14, spa);
	neigh_learn(io, spa, a + 8);
	if (oper == 1) {
		send_arp(io, 2, a + 8, a + 8, a + 14);
		tx_once(io);
	}
}

/* ------------------------------------------------------------ IPv6 ND */

/* ff02::1:ffXX:XXXX, the solicited-node multicast address of @p ip (RFC 4291 2.7.1). */
static void
solicited_node(const uint8_t ip[16], uint8_t out[16])
{
	static const uint8_t pre[13] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff };

	memcpy(out, pre, 13);
	memcpy(out + 13, ip + 13, 3);
}

/*
 * An RFC 4861 NS or NA from our address: hop limit 255, one link-layer
 * address option (source for NS, target for NA) carrying our MAC.
 */
static int
send_nd(struct rk_io_dpdk *io, uint8_t type, const uint8_t dmac[6], const uint8_t dip[16],
	const uint8_t target[16], bool solicited)
{
	uint8_t f[ETH_HLEN + IP6_HLEN + ND_MSG_LEN] = { 0 };
	uint8_t *ip = f + ETH_HLEN, *icmp = ip + IP6_HLEN;

	memcpy(f, dmac, 6);
	memcpy(f + 6, io->mac, 6);
	rk_put_be16(f + 12, 0x86dd);
	ip[0] = 0x60;
	rk_put_be16(ip + 4, ND_MSG_LEN);
	ip[6] = ICMP6;
	ip[7] = 255;
	memcpy(ip + 8, io->cfg.ip6, 16);
	memcpy(ip + 24, dip, 16);
	icmp[0] = type;
	/* NA flags: Solicited when answering, Override always (RFC 4861 7.2.4). */
	if (type == ND_NA)
		icmp[4] = (uint8_t)((solicited ? 0x40 : 0) | 0x20);
	memcpy(icmp + 8, target, 16);
	icmp[24] = type == ND_NS ? 1 : 2;
	icmp[25] = 1;                   /* 8 bytes */
	memcpy(icmp + 26, io->mac, 6);
	{
		/* Already in network order, as the header field holds it. */
		uint16_t ck = rte_ipv6_udptcp_cksum((const struct rte_ipv6_hdr *)(void *)ip, icmp);

		memcpy(icmp + 2, &ck, 2);
	}
	io->st.tx_nd++;
	return queue_frame(io, f, sizeof(f));
}

/*
 * An ICMPv6 frame at @p l3 of @p m: answer NS for our address, learn from
 * NS and NA (their link-layer address options). Anything malformed, with
 * a bad checksum or a hop limit other than 255 is ignored (RFC 4861 7.1).
 */
static void
handle_nd(struct rk_io_dpdk *io, struct rte_mbuf *m, uint32_t l3)
{
	uint8_t b[IP6_HLEN + 128];
	uint32_t len = rte_pktmbuf_pkt_len(m) - l3, plen, n;
	const uint8_t *ip, *icmp;
	const uint8_t *lladdr = NULL;
	static const uint8_t unspec[16];

	if (len < IP6_HLEN + 24)
		return;
	n = len < sizeof(b) ? len : sizeof(b);
	ip = rte_pktmbuf_read(m, l3, n, b);
	if (ip == NULL)
		return;
	plen = rk_get_be16(ip + 4);
	if (plen < 24 || IP6_HLEN + plen > n || ip[7] != 255)
		return;
	icmp = ip + IP6_HLEN;
	if ((icmp[0] != ND_NS && icmp[0] != ND_NA) || icmp[1] != 0 ||
	    __rte_ipv6_udptcp_cksum((const struct rte_ipv6_hdr *)(const void *)ip, icmp) != 0xffff)
		return;
	io->st.rx_nd++;
	/* Options after the 24-byte message: type, length in 8-byte units. */
	for (uint32_t o = 24; o + 8 <= plen;) {
		uint32_t ol = (uint32_t)icmp[o + 1] * 8;

		if (ol == 0 || o + ol > plen)
			return;
		if ((icmp[0] == ND_NS && icmp[o] == 1) || (icmp[0] == ND_NA && icmp[o] == 2))
			lladdr = icmp + o + 2;
		o += ol;
	}
	if (icmp[0] == ND_NA) {
		if (lladdr != NULL)
			neigh_learn(io, icmp + 8, lladdr);
		return;
	}
	if (!io->has_ip6 || memcmp(icmp + 8, io->cfg.ip6, 16) != 0)
		return;
	/* From :: (address resolution during DAD): answer all-nodes, learn nothing. */
	if (memcmp(ip + 8, unspec, 16) == 0) {
		static const uint8_t all_nodes[16] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0,
						       0, 0, 0, 0, 0, 0, 0, 1 };
		static const uint8_t mac_all[6] = { 0x33, 0x33, 0, 0, 0, 1 };

		send_nd(io, ND_NA, mac_all, all_nodes, io->cfg.ip6, false);
	} else if (lladdr != NULL) {
		neigh_learn(io, ip + 8, lladdr);
		send_nd(io, ND_NA, lladdr, ip + 8, io->cfg.ip6, true);
	} else {
		return;                 /* unicast NS without SLLA: no MAC to answer to */
	}
	tx_once(io);
}

/* -------------------------------------------------------------------- RX */

/*
 * Classify a received frame from its first bytes (copied to hdr when the
 * first segment is short). ARP is handled here.
 */
static enum kind
classify(struct rk_io_dpdk *io, struct rte_mbuf *m)
{
	uint8_t hdr[64];
	const uint8_t *h;
	uint32_t len = rte_pktmbuf_pkt_len(m), l3;
	uint16_t type;

	h = rte_pktmbuf_read(m, 0, len < sizeof(hdr) ? len : sizeof(hdr), hdr);
	if (h == NULL || len < ETH_HLEN + ARP_LEN)
		return K_OTHER;
	type = rk_get_be16(h + 12);
	l3 = ETH_HLEN;
	if (type == 0x8100) {
		type = rk_get_be16(h + 16);
		l3 += VLAN_HLEN;
	}
	if (!(h[0] & 1) && memcmp(h, io->mac, 6) != 0 && !io->any_dst)
		return K_OTHER;         /* unicast to someone else (promiscuous port) */
	/*
	 * Only our VLAN, as a NIC's VLAN filter: untagged (or priority-tagged,
	 * VID 0) without --vlan, that VID with it.
	 */
	if ((l3 != ETH_HLEN ? (rk_get_be16(h + 14) & 0x0fff) : 0) != io->cfg.vlan_id) {
		io->st.rx_vlan_mismatch++;
		return K_OTHER;
	}
	/* ARP and ND are recorded here, before the answer they may cause. */
	if (type == 0x0806 && len >= l3 + ARP_LEN) {
		if (io->recording)
			record_mbuf(io, m, RK_PCAPNG_IN);
		handle_arp(io, h + l3);
		return K_ARP;
	}
	if (type == 0x86dd && len >= l3 + IP6_HLEN + 8 && (h[l3] >> 4) == 6) {
		if (h[l3 + 6] == ICMP6) {
			if (io->recording)
				record_mbuf(io, m, RK_PCAPNG_IN);
			handle_nd(io, m, l3);
			return K_ND;
		}
		/* UDP right after the header (no extension headers), port 4791, ours. */
		if (h[l3 + 6] != 17 || (memcmp(h + l3 + 24, io->cfg.ip6, 16) != 0 && !io->any_dst))
			return K_OTHER;
		if (rk_get_be16(h + l3 + IP6_HLEN + 2) == ROCE_PORT)
			return K_ROCE;
		return K_OTHER;
	}
	/* IPv4, UDP, destination port 4791, destination address ours. */
	if (type == 0x0800 && len >= l3 + 28 && (h[l3] >> 4) == 4) {
		uint32_t ihl = (uint32_t)(h[l3] & 0x0f) * 4;
		bool mine = io->has_ip4 && memcmp(h + l3 + 16, io->cfg.ip, 4) == 0;
		uint8_t dport[2];
		const uint8_t *d;

		if (h[l3 + 9] != 17 || ihl < 20 || len < l3 + ihl + 8)
			return mine ? K_IP4 : K_OTHER;
		if (!mine && !io->any_dst)
			return K_OTHER;
		d = rte_pktmbuf_read(m, l3 + ihl + 2, 2, dport);
		if (d != NULL && rk_get_be16(d) == ROCE_PORT)
			return K_ROCE;
		return mine ? K_IP4 : K_OTHER;
	}
	return K_OTHER;
}

static bool
refill(struct rk_io_dpdk *io)
{
	if (io->rx_i < io->rx_n)
		return true;
	/*
	 * A short burst emptied the ring: say "nothing" once, ending the
	 * caller's receive loop, rather than poll the ring again at once (a
	 * ping-pong's reply would wait behind that empty poll).
	 */
	if (io->rx_short) {
		io->rx_short = false;
		return false;
	}
	io->rx_i = 0;
	io->rx_n = rte_eth_rx_burst(io->port, 0, io->rx, RX_BURST);
	if (io->rx_n == 0)
		return false;
	io->rx_short = io->rx_n < RX_BURST;
	io->idle_since_ns = 0;          /* traffic: back to spinning */
	return true;
}

/*
 * Give a frame to the frame hook when it is one of its kinds: IPv4 for us,
 * or an ARP reply to our address (already learnt from by handle_arp). The
 * 802.1Q tag, if any, is removed. @return true when handed over.
 */
static bool
hook_frame(struct rk_io_dpdk *io, struct rte_mbuf *m, enum kind k)
{
	uint32_t len = rte_pktmbuf_pkt_len(m), tag;
	const uint8_t *p;
	uint8_t *b = io->hook_buf;

	if (io->hook == NULL || (k != K_IP4 && k != K_ARP) || len > sizeof(io->hook_buf))
		return false;
	p = rte_pktmbuf_read(m, 0, len, b);
	if (p == NULL)
		return false;
	tag = rk_get_be16(p + 12) == 0x8100 ? VLAN_HLEN : 0;
	if (k == K_ARP && (len < ETH_HLEN + tag + ARP_LEN ||
			   rk_get_be16(p + ETH_HLEN + tag + 6) != 2 ||
			   memcmp(p + ETH_HLEN + tag + 24, io->cfg.ip, 4) != 0))
		return false;           /* requests are answered here, never passed on */
	if (p != b)
		memcpy(b, p, len);
	if (tag != 0) {
		memmove(b + VLAN_HLEN, b, 12);
		b += VLAN_HLEN;
		len -= VLAN_HLEN;
	}
	if (k == K_IP4 && io->recording)
		record_mbuf(io, m, RK_PCAPNG_IN);
	io->st.rx_hooked++;
	io->hook(io->hook_ctx, b, len);
	return true;
}

/* A frame the engine does not take: counted, recorded, hooked or dropped; freed. */
static void
consume_other(struct rk_io_dpdk *io, struct rte_mbuf *m, enum kind k)
{
	if (k == K_ARP)
		io->st.rx_arp++;
	if (hook_frame(io, m, k)) {
		rte_pktmbuf_free(m);
		return;
	}
	if (k == K_OTHER || k == K_IP4)
		io->st.rx_other++;
	if (io->recording && (k == K_OTHER || k == K_IP4))
		record_mbuf(io, m, RK_PCAPNG_IN);
	rte_pktmbuf_free(m);
}

/* Count a frame and consume it unless it is RoCE (returns true for RoCE). */
static bool
take(struct rk_io_dpdk *io, struct rte_mbuf *m)
{
	enum kind k;

	io->st.rx_frames++;
	io->st.rx_bytes += rte_pktmbuf_pkt_len(m);
	if (m->nb_segs > 1)
		io->st.rx_multiseg++;
	k = classify(io, m);
	if (k == K_ROCE)
		return true;
	consume_other(io, m, k);
	return false;
}

static int
ops_rx(void *arg, uint8_t *buf, uint32_t cap)
{
	struct rk_io_dpdk *io = arg;

	/* Frames gathered so far go out before we look for answers. */
	if (io->txq_n > 0)
		tx_once(io);
	/* Bounded: a port that floods non-RoCE frames must not hold us here. */
	for (int budget = 4 * RX_BURST; budget > 0; budget--) {
		struct rte_mbuf *m;
		const uint8_t *p;
		uint32_t len;

		if (!refill(io))
			return 0;
		m = io->rx[io->rx_i++];
		if (!take(io, m))
			continue;
		len = rte_pktmbuf_pkt_len(m);
		if (len > cap) {
			io->st.rx_too_long++;
			rte_pktmbuf_free(m);
			continue;
		}
		p = rte_pktmbuf_read(m, 0, len, buf);
		if (p != buf)
			memcpy(buf, p, len);
		if (io->recording)
			rk_pcapng_write(&io->pcap, wall_ns(io), RK_PCAPNG_IN, buf, len);
		io->st.rx_roce++;
		rte_pktmbuf_free(m);
		return (int)len;
	}
	return 0;
}

/*
 * The next RoCE frame where it lies: in its mbuf when it is one segment,
 * else gathered into the scratch buffer. Freed by ops_rx_done().
 */
static int
ops_rx_view(void *arg, const uint8_t **frame)
{
	struct rk_io_dpdk *io = arg;

	if (io->rx_cur != NULL)
		return -EBUSY;          /* rx_done() first */
	if (io->txq_n > 0)
		tx_once(io);
	for (int budget = 4 * RX_BURST; budget > 0; budget--) {
		struct rte_mbuf *m;
		const uint8_t *p;
		uint32_t len;

		if (!refill(io))
			return 0;
		m = io->rx[io->rx_i++];
		if (!take(io, m))
			continue;
		len = rte_pktmbuf_pkt_len(m);
		if (len > RK_IB_MAX_FRAME + 256) {
			io->st.rx_too_long++;
			rte_pktmbuf_free(m);
			continue;
		}
		p = rte_pktmbuf_read(m, 0, len, io->scratch);
		if (p == NULL) {
			rte_pktmbuf_free(m);
			continue;
		}
		if (io->recording)
			rk_pcapng_write(&io->pcap, wall_ns(io), RK_PCAPNG_IN, p, len);
		io->st.rx_roce++;
		io->rx_cur = m;
		*frame = p;
		return (int)len;
	}
	return 0;
}

static void
ops_rx_done(void *arg)
{
	struct rk_io_dpdk *io = arg;

	/* Freed later in bulk (idle, or a full batch): off the reply's path. */
	io->rx_free[io->rx_free_n++] = io->rx_cur;
	io->rx_cur = NULL;
	if (io->rx_free_n == RX_BURST) {
		rte_pktmbuf_free_bulk(io->rx_free, io->rx_free_n);
		io->rx_free_n = 0;
	}
}

int
rk_io_dpdk_service(struct rk_io_dpdk *io)
{
	int n = 0;

	tx_once(io);
	/* Take new frames only when the local array is drained by rx(). */
	if (io->rx_i < io->rx_n || !refill(io))
		return 0;
	uint16_t keep = 0;

	for (uint16_t i = io->rx_i; i < io->rx_n; i++) {
		struct rte_mbuf *m = io->rx[i];
		enum kind k;

		n++;
		k = classify(io, m);
		if (k == K_ROCE) {
			io->rx[keep++] = m;     /* left for rx(), which counts it */
			continue;
		}
		io->st.rx_frames++;
		io->st.rx_bytes += rte_pktmbuf_pkt_len(m);
		consume_other(io, m, k);
	}
	io->rx_i = 0;
	io->rx_n = keep;
	tx_once(io);
	return n;
}

static uint64_t
ops_now(void *arg)
{
	(void)arg;
	return rk_io_dpdk_now_ns();
}

void
rk_io_dpdk_set_frame_hook(struct rk_io_dpdk *io, rk_io_frame_fn fn, void *ctx)
{
	io->hook = fn;
	io->hook_ctx = ctx;
}

int
rk_io_dpdk_tx_raw(struct rk_io_dpdk *io, const uint8_t *frame, uint32_t len)
{
	uint32_t tag = io->cfg.vlan_id != 0 ? VLAN_HLEN : 0;
	int rc;

	if (frame == NULL || len < ETH_HLEN || len + tag > RK_IB_MAX_FRAME)
		return -EINVAL;
	/* The drop options apply to TCP segments (the TCP must recover). */
	if (len >= ETH_HLEN + 20 && rk_get_be16(frame + 12) == 0x0800 &&
	    frame[ETH_HLEN + 9] == 6 && drop_injected(io))
		return 0;
	rc = queue_frame(io, frame, len);
	if (rc == 0)
		io->st.tx_raw++;
	return rc;
}

int
rk_io_dpdk_ip4(const struct rk_io_dpdk *io, uint8_t ip[4])
{
	if (!io->has_ip4)
		return -ENOENT;
	memcpy(ip, io->cfg.ip, 4);
	return 0;
}

const struct rk_io_ops rk_io_dpdk_ops = {
	.name = "dpdk",
	.tx = ops_tx,
	.rx = ops_rx,
	.now_ns = ops_now,
	.flush = ops_flush,
	.tx_room = ops_tx_room,
	.tx_frame = ops_tx_frame,
	.tx_commit = ops_tx_commit,
	.rx_view = ops_rx_view,
	.rx_done = ops_rx_done,
	.tx_commit_sg = ops_tx_commit_sg,
};

/* ------------------------------------------------------------ idle, misc */

void
rk_io_dpdk_idle(struct rk_io_dpdk *io, int work)
{
	if (work > 0) {
		io->idle_since_ns = 0;
		return;
	}
	/* Nothing to do: free received frames, ready the next TX buffer. */
	if (io->rx_free_n > 0) {
		rte_pktmbuf_free_bulk(io->rx_free, io->rx_free_n);
		io->rx_free_n = 0;
	}
	if (io->tx_lent == NULL)
		io->tx_lent = rte_pktmbuf_alloc(io->pool);
	/* Frames wait for the ring: retry them instead of sleeping. */
	if (io->txq_n > 0) {
		tx_once(io);
		io->idle_since_ns = 0;
		return;
	}
	if (io->idle == RK_IO_IDLE_SPIN) {
		rte_pause();
		return;
	}
	if (rk_io_idle_adaptive(&io->idle_since_ns, 0, io->cfg.spin_us, io->cfg.sleep_us))
		io->st.idle_sleeps++;
}

bool
rk_io_idle_adaptive(uint64_t *idle_since_ns, int work, uint32_t spin_us, uint32_t sleep_us)
{
	uint64_t now;

	if (work > 0) {
		*idle_since_ns = 0;
		return false;
	}
	now = rk_io_dpdk_now_ns();
	if (*idle_since_ns == 0)
		*idle_since_ns = now;
	if (now - *idle_since_ns < (uint64_t)(spin_us != 0 ? spin_us : 100) * 1000) {
		rte_pause();
		return false;
	}
	/* Idle for a while: give the core away (two-core machines). */
	struct timespec ts = { 0, (long)(sleep_us != 0 ? sleep_us : 50) * 1000 };

	nanosleep(&ts, NULL);
	return true;
}

void
rk_io_dpdk_set_idle(struct rk_io_dpdk *io, enum rk_io_idle idle)
{
	io->idle = idle;
	io->idle_since_ns = 0;
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

const struct rk_io_dpdk_stats *
rk_io_dpdk_stats(const struct rk_io_dpdk *io)
{
	return &io->st;
}

int
rk_io_dpdk_neigh_lookup(struct rk_io_dpdk *io, const uint8_t ip[16], uint8_t mac[6])
{
	struct neigh *n = neigh_find(io, ip);

	if (n == NULL)
		return -ENOENT;
	memcpy(mac, n->mac, 6);
	return 0;
}

int
rk_io_dpdk_solicit(struct rk_io_dpdk *io, const uint8_t ip[16])
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t zero[6];
	int rc;

	if (is_mapped4(ip)) {
		if (!io->has_ip4)
			return -EADDRNOTAVAIL;
		rc = send_arp(io, 1, bcast, zero, ip + 12);
	} else {
		uint8_t sn[16], dmac[6] = { 0x33, 0x33 };

		if (!io->has_ip6)
			return -EADDRNOTAVAIL;
		solicited_node(ip, sn);
		memcpy(dmac + 2, sn + 12, 4);
		rc = send_nd(io, ND_NS, dmac, sn, ip, false);
	}
	if (rc != 0)
		return -EIO;
	tx_once(io);
	return 0;
}

int
rk_io_dpdk_resolve_addr(struct rk_io_dpdk *io, const uint8_t ip[16], uint8_t mac[6],
			uint32_t timeout_ms)
{
	uint64_t start = rk_io_dpdk_now_ns(), last = 0, now;
	int rc;

	for (;;) {
		if (rk_io_dpdk_neigh_lookup(io, ip, mac) == 0)
			return 0;
		if (cancelled(io->cfg.cancel))
			return -EINTR;
		now = rk_io_dpdk_now_ns();
		if (now - start >= (uint64_t)timeout_ms * 1000000ull)
			return -ETIMEDOUT;
		if (last == 0 || now - last >= 200000000ull) {
			rc = rk_io_dpdk_solicit(io, ip);
			if (rc != 0)
				return rc == -EADDRNOTAVAIL ? rc : -EIO;
			last = now;
		}
		rk_io_dpdk_idle(io, rk_io_dpdk_service(io));
	}
}

int
rk_io_dpdk_resolve(struct rk_io_dpdk *io, const uint8_t ip[4], uint8_t mac[6],
		   uint32_t timeout_ms)
{
	uint8_t a[16];

	mapped4(ip, a);
	return rk_io_dpdk_resolve_addr(io, a, mac, timeout_ms);
}

int
rk_io_dpdk_gid(const struct rk_io_dpdk *io, unsigned int index, uint8_t gid[16])
{
	/* RoCEv2 GIDs: the IPv4 address as ::ffff:a.b.c.d, then the IPv6 one. */
	if (io->has_ip4 && index == 0) {
		mapped4(io->cfg.ip, gid);
		return 0;
	}
	if (io->has_ip6 && index == (io->has_ip4 ? 1u : 0u)) {
		memcpy(gid, io->cfg.ip6, 16);
		return 0;
	}
	return -ENOENT;
}

/*
 * Frames the driver took and then dropped: its oerrors since the port
 * started (net_af_packet: frames over its frame slot). 22.11's memif also
 * counts the frames it hands back when its ring is full, which wait in
 * our queue and go out later: those are not errors.
 */
static uint64_t
driver_tx_errors(const struct rk_io_dpdk *io)
{
	struct rte_eth_stats es;
	uint64_t e;

	if (rte_eth_stats_get(io->port, &es) != 0 || es.oerrors < io->oerrors_base)
		return 0;
	e = es.oerrors - io->oerrors_base;
	if (io->oerrors_refused)
		e = e > io->st.tx_refused ? e - io->st.tx_refused : 0;
	return e;
}

unsigned int
rk_io_hw_counters(const struct rk_io_dpdk *io, const struct rk_ib_stats *ib,
		  struct rk_io_counter *out, unsigned int max)
{
	struct rk_counter c[64];
	unsigned int n = 0, k = ib != NULL ? rk_counters_from_stats(ib, c, 64) : 0;

	for (unsigned int i = 0; i < k && n < max; i++)
		out[n++] = (struct rk_io_counter){ c[i].name, c[i].value };
	if (io != NULL) {
		struct rk_io_port_xstats x = { io->st, driver_tx_errors(io) };

		for (unsigned int i = 0; i < rk_io_port_xstats.n && n < max; i++)
			out[n++] = (struct rk_io_counter){ rk_io_port_xstats.desc[i].name,
							   rk_xstat_value(&rk_io_port_xstats, i, &x) };
	}
	return n;
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

static int
wait_link(uint16_t port, uint32_t timeout_ms, bool restart_when_down,
	  const volatile sig_atomic_t *cancel)
{
	uint64_t start = rk_io_dpdk_now_ns();
	struct rte_eth_link link;
	uint64_t restart = start + 3000000000ull;

	for (;;) {
		uint64_t now;

		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(port, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_UP)
			return 0;
		if (cancelled(cancel))
			return -EINTR;
		now = rk_io_dpdk_now_ns();
		if (now - start >= (uint64_t)timeout_ms * 1000000ull)
			return -ETIMEDOUT;
		/* Every 3 s: a slow server (a loaded machine) gets time to answer. */
		if (restart_when_down && now >= restart) {
			rte_eth_dev_stop(port);
			rte_eth_dev_start(port);
			restart = now + 3000000000ull;
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
	uint32_t tag = io->cfg.vlan_id != 0 ? VLAN_HLEN : 0, want;
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
	if (io->if_mtu != 0 && frame_len > io->if_mtu + ETH_HLEN) {
		if (why != NULL)
			snprintf(why, len, "interface %s of %s has MTU %u: give it %u (ip link "
				 "set %s mtu %u)", io->ifname, io->name, io->if_mtu,
				 frame_len - ETH_HLEN, io->ifname, frame_len - ETH_HLEN);
		return -EMSGSIZE;
	}
	if (io->max_mtu != 0 && io->max_mtu != UINT16_MAX &&
	    frame_len > (uint32_t)io->max_mtu + ETH_HLEN) {
		if (why != NULL)
			snprintf(why, len, "%s takes an MTU of at most %u (frames of %u bytes)",
				 io->name, io->max_mtu, io->max_mtu + ETH_HLEN + tag);
		return -EMSGSIZE;
	}
	return 0;
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
	int rc;

	if (cfg == NULL || cfg->vlan_id > 4094 || cfg->tx_drop_rate < 0 ||
	    cfg->tx_drop_rate >= 1) {
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
	io->rng = cfg->tx_drop_seed != 0 ? cfg->tx_drop_seed : 1;
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
	/* A memif client cannot start before its server listens: retry. */
	for (uint64_t t0 = rk_io_dpdk_now_ns();;) {
		rc = rte_eth_dev_start(io->port);
		if (rc == 0 || rk_io_dpdk_now_ns() - t0 >=
			       (uint64_t)io->cfg.link_timeout_ms * 1000000ull)
			break;
		if (cancelled(cfg->cancel)) {
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
		io->ext_shinfo.free_cb = ext_free;
		rte_mbuf_ext_refcnt_set(&io->ext_shinfo, 1);
		io->tx_sg = io->ext_pool != NULL;
	}
	io->has_ip4 = (cfg->ip[0] | cfg->ip[1] | cfg->ip[2] | cfg->ip[3]) != 0;
	for (int i = 0; i < 16; i++)
		io->has_ip6 |= cfg->ip6[i] != 0;
	io->any_dst = !io->has_ip4 && !io->has_ip6;
	rc = wait_link(io->port, io->cfg.link_timeout_ms, memif_client(&info), cfg->cancel);
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
		rc = rk_pcapng_open(&io->pcap, cfg->pcapng_path, ifname, 0);
		if (rc != 0)
			goto fail_stop;
		io->recording = true;
	}
	return io;

fail_stop:
	rte_eth_dev_stop(io->port);
fail:
	if (io->pool != NULL) {
		rte_eth_dev_close(io->port);
		rte_mempool_free(io->pool);
	}
	rte_mempool_free(io->ext_pool);
	rte_free(io->txq);
	rte_free(io);
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
		tx_once(io);
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
	rte_eth_dev_close(io->port);
	rte_mempool_free(io->pool);
	rte_mempool_free(io->ext_pool);
	rte_free(io->txq);
	rte_free(io);
	return rc;
}
