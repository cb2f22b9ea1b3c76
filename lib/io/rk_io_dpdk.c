/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DPDK backend: one RX/TX queue pair of an ethdev port behind
 * struct rk_io_ops. Frames are copied between mbufs and the engine's
 * flat buffers (the engine parses and builds contiguous frames); the copy
 * is the price of keeping lib/ib free of DPDK types.
 */
#include "rk_io_dpdk.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
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
#define NEIGH_MAX 16
#define ETH_HLEN 14
#define VLAN_HLEN 4
#define ROCE_PORT 4791
#define ARP_LEN 28
#define FRAME_MIN 60            /* Ethernet minimum without FCS */
#define SCRATCH (RK_IB_MAX_FRAME + 256)

struct neigh {
	uint8_t ip[4];
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
	/* TX queue: a ring of mbufs not yet taken by the device. */
	struct rte_mbuf **txq;
	uint32_t txq_size;              /* power of two */
	uint32_t txq_head, txq_n;
	struct neigh neigh[NEIGH_MAX];
	unsigned int neigh_next;
	bool any_dst;                   /* ip 0.0.0.0: take every RoCEv2 frame */
	bool recording;
	struct rk_pcapng pcap;
	int64_t wall_off_ns;            /* realtime - monotonic, for the recording */
	enum rk_io_idle idle;
	uint64_t idle_since_ns;         /* first empty poll of this idle period; 0: busy */
	uint64_t drop_count, rng;
	struct rk_io_dpdk_stats st;
	uint8_t scratch[SCRATCH];
};

enum kind { K_ROCE, K_ARP, K_OTHER };

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

/* ------------------------------------------------------------------- EAL */

int
rk_io_dpdk_eal_init(int argc, char **argv)
{
	int rc = rte_eal_init(argc, argv);

	if (rc < 0)
		return rte_errno > 0 ? -rte_errno : -EINVAL;
	return rc;
}

void
rk_io_dpdk_eal_cleanup(void)
{
	rte_eal_cleanup();
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
		if (io->recording)
			for (uint16_t i = 0; i < want; i++)
				rte_mbuf_refcnt_update(q[i], 1);
		n = rte_eth_tx_burst(io->port, 0, q, want);
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

/* Queue one frame (VLAN tag inserted when configured). */
static int
queue_frame(struct rk_io_dpdk *io, const uint8_t *frame, uint32_t len)
{
	uint32_t tag = io->cfg.vlan_id != 0 ? VLAN_HLEN : 0;
	struct rte_mbuf *m;
	uint8_t *p;

	if (len < ETH_HLEN)
		return -EINVAL;
	/* Full: wait briefly for the ring before this becomes a real drop. */
	if (io->txq_n == io->txq_size)
		flush_tx(io, io->txq_size - 1, TX_SPIN_NS);
	if (io->txq_n == io->txq_size) {
		io->st.tx_dropped_full++;
		return -ENOBUFS;
	}
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

static int
ops_tx(void *arg, const uint8_t *frame, uint32_t len)
{
	struct rk_io_dpdk *io = arg;

	/* Fault injection: the frame is lost on the wire, not refused. */
	if (io->cfg.tx_drop_every != 0 && ++io->drop_count % io->cfg.tx_drop_every == 0) {
		io->st.tx_dropped_injected++;
		return 0;
	}
	if (io->cfg.tx_drop_rate > 0 &&
	    (double)(next_rand(&io->rng) >> 11) * 0x1p-53 < io->cfg.tx_drop_rate) {
		io->st.tx_dropped_injected++;
		return 0;
	}
	return queue_frame(io, frame, len);
}

static void
ops_flush(void *arg)
{
	struct rk_io_dpdk *io = arg;

	/* Over half full: spin a little so the next batch finds room. */
	flush_tx(io, io->txq_size / 2, TX_SPIN_NS);
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

static struct neigh *
neigh_find(struct rk_io_dpdk *io, const uint8_t ip[4])
{
	for (unsigned int i = 0; i < NEIGH_MAX; i++)
		if (io->neigh[i].valid && memcmp(io->neigh[i].ip, ip, 4) == 0)
			return &io->neigh[i];
	return NULL;
}

static void
neigh_learn(struct rk_io_dpdk *io, const uint8_t ip[4], const uint8_t mac[6])
{
	struct neigh *n = neigh_find(io, ip);

	if (n == NULL) {
		n = &io->neigh[io->neigh_next++ % NEIGH_MAX];
		memcpy(n->ip, ip, 4);
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

	if (rk_get_be16(a) != 1 || rk_get_be16(a + 2) != 0x0800 || a[4] != 6 || a[5] != 4)
		return;
	if (memcmp(a + 24, io->cfg.ip, 4) != 0)
		return;                 /* not for us: no gratuitous learning */
	neigh_learn(io, a + 14, a + 8);
	if (oper == 1) {
		send_arp(io, 2, a + 8, a + 8, a + 14);
		tx_once(io);
	}
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
	if (type == 0x0806 && len >= l3 + ARP_LEN) {
		handle_arp(io, h + l3);
		return K_ARP;
	}
	/* IPv4, UDP, destination port 4791, destination address ours. */
	if (type == 0x0800 && len >= l3 + 28 && (h[l3] >> 4) == 4) {
		uint32_t ihl = (uint32_t)(h[l3] & 0x0f) * 4;
		uint8_t dport[2];
		const uint8_t *d;

		if (h[l3 + 9] != 17 || ihl < 20 || len < l3 + ihl + 8)
			return K_OTHER;
		if (memcmp(h + l3 + 16, io->cfg.ip, 4) != 0 && !io->any_dst)
			return K_OTHER;
		d = rte_pktmbuf_read(m, l3 + ihl + 2, 2, dport);
		if (d != NULL && rk_get_be16(d) == ROCE_PORT)
			return K_ROCE;
	}
	return K_OTHER;
}

static bool
refill(struct rk_io_dpdk *io)
{
	if (io->rx_i < io->rx_n)
		return true;
	io->rx_i = 0;
	io->rx_n = rte_eth_rx_burst(io->port, 0, io->rx, RX_BURST);
	if (io->rx_n == 0)
		return false;
	io->idle_since_ns = 0;          /* traffic: back to spinning */
	return true;
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
	if (k == K_ARP)
		io->st.rx_arp++;
	else
		io->st.rx_other++;
	if (io->recording)
		record_mbuf(io, m, RK_PCAPNG_IN);
	rte_pktmbuf_free(m);
	return false;
}

static int
ops_rx(void *arg, uint8_t *buf, uint32_t cap)
{
	struct rk_io_dpdk *io = arg;

	/* Frames gathered so far go out before we look for answers. */
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
		if (k == K_ARP)
			io->st.rx_arp++;
		else
			io->st.rx_other++;
		if (io->recording)
			record_mbuf(io, m, RK_PCAPNG_IN);
		rte_pktmbuf_free(m);
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

const struct rk_io_ops rk_io_dpdk_ops = {
	.name = "dpdk",
	.tx = ops_tx,
	.rx = ops_rx,
	.now_ns = ops_now,
	.flush = ops_flush,
	.tx_room = ops_tx_room,
};

/* ------------------------------------------------------------ idle, misc */

void
rk_io_dpdk_idle(struct rk_io_dpdk *io, int work)
{
	uint64_t now;

	if (work > 0) {
		io->idle_since_ns = 0;
		return;
	}
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
	now = rk_io_dpdk_now_ns();
	if (io->idle_since_ns == 0)
		io->idle_since_ns = now;
	if (now - io->idle_since_ns < (uint64_t)io->cfg.spin_us * 1000) {
		rte_pause();
		return;
	}
	/* Idle for a while: give the core away (two-core machines). */
	struct timespec ts = { 0, (long)io->cfg.sleep_us * 1000 };

	nanosleep(&ts, NULL);
	io->st.idle_sleeps++;
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
rk_io_dpdk_resolve(struct rk_io_dpdk *io, const uint8_t ip[4], uint8_t mac[6],
		   uint32_t timeout_ms)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t zero[6];
	uint64_t start = rk_io_dpdk_now_ns(), last = 0, now;
	struct neigh *n;

	for (;;) {
		n = neigh_find(io, ip);
		if (n != NULL) {
			memcpy(mac, n->mac, 6);
			return 0;
		}
		now = rk_io_dpdk_now_ns();
		if (now - start >= (uint64_t)timeout_ms * 1000000ull)
			return -ETIMEDOUT;
		if (last == 0 || now - last >= 200000000ull) {
			if (send_arp(io, 1, bcast, zero, ip) != 0)
				return -EIO;
			last = now;
		}
		rk_io_dpdk_idle(io, rk_io_dpdk_service(io));
	}
}

unsigned int
rk_io_hw_counters(const struct rk_io_dpdk *io, const struct rk_ib_stats *ib,
		  struct rk_io_counter *out, unsigned int max)
{
	struct rk_io_counter c[] = {
		/* rdma statistic / mlx5 hw_counters / rxe hw_counters names */
		{ "out_of_sequence", ib->resp_nak_seq },
		{ "packet_seq_err", ib->req_nak_seq_retries },
		{ "local_ack_timeout_err", ib->req_retransmit_timeouts },
		{ "rnr_nak_retry_err", ib->req_rnr_retries },
		{ "duplicate_request", ib->resp_dup },
		{ "implied_nak_seq_err", ib->req_read_retries },
		{ "out_of_buffer", ib->resp_rnr_nak },
		{ "rx_icrc_encapsulated", ib->rx_drop_icrc },
		{ "resp_remote_access_errors", ib->resp_nak_fatal },
		{ "req_cqe_error", 0 },
		{ "sent_pkts", ib->tx_frames },
		{ "rcvd_pkts", ib->rx_frames },
		{ "retransmitted_pkts", ib->req_retx_pkts },
		{ "rx_dropped_unknown_qp", ib->rx_drop_qp },
		{ "rx_dropped_malformed", ib->rx_drop_malformed },
	};
	unsigned int n = 0;

	for (unsigned int i = 0; i < sizeof(c) / sizeof(c[0]) && n < max; i++) {
		if (strcmp(c[i].name, "req_cqe_error") == 0)
			continue;       /* completion errors are counted by the app */
		out[n++] = c[i];
	}
	if (io != NULL) {
		struct rk_io_counter p[] = {
			{ "port_xmit_packets", io->st.tx_frames },
			{ "port_rcv_packets", io->st.rx_frames },
			{ "port_xmit_data", io->st.tx_bytes },
			{ "port_rcv_data", io->st.rx_bytes },
			{ "port_xmit_discards", io->st.tx_dropped_full },
			{ "port_xmit_wait", io->st.tx_ring_full },
			{ "port_rcv_errors", io->st.rx_too_long },
			{ "tx_injected_drops", io->st.tx_dropped_injected },
			{ "rx_non_roce", io->st.rx_other },
			{ "rx_arp", io->st.rx_arp },
		};

		for (unsigned int i = 0; i < sizeof(p) / sizeof(p[0]) && n < max; i++)
			out[n++] = p[i];
	}
	return n;
}

/* ------------------------------------------------------------ open/close */

static int
wait_link(uint16_t port, uint32_t timeout_ms)
{
	uint64_t start = rk_io_dpdk_now_ns();
	struct rte_eth_link link;

	uint64_t restart = start + 1000000000ull;

	for (;;) {
		uint64_t now;

		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(port, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_UP)
			return 0;
		now = rk_io_dpdk_now_ns();
		if (now - start >= (uint64_t)timeout_ms * 1000000ull)
			return -ETIMEDOUT;
		/*
		 * A memif client that connected while its server was still
		 * configuring stays down: restart the port to reconnect.
		 */
		if (now >= restart) {
			rte_eth_dev_stop(port);
			rte_eth_dev_start(port);
			restart = now + 1000000000ull;
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
	io->any_dst = (cfg->ip[0] | cfg->ip[1] | cfg->ip[2] | cfg->ip[3]) == 0;
	rc = wait_link(io->port, io->cfg.link_timeout_ms);
	if (rc != 0)
		goto fail_stop;
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
	if (io->recording)
		rc = rk_pcapng_close(&io->pcap);
	rte_eth_dev_stop(io->port);
	rte_eth_dev_close(io->port);
	rte_mempool_free(io->pool);
	rte_free(io->txq);
	rte_free(io);
	return rc;
}
