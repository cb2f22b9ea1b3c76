/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The raw DPDK references for bench_dpdk.sh: what a port moves with no
 * RDMA stack on top, measured over the same memif link in the same run.
 *
 *   memif_raw [EAL options] -- tx SIZE SECONDS   send SIZE-byte frames, as rk_io does:
 *                                                each one copied into a fresh mbuf
 *   memif_raw [EAL options] -- rx                count frames until the stream stops;
 *                                                prints "raw_rx: F frames B bytes S s R Gb/s"
 *   memif_raw [EAL options] -- pong              echo every frame back (MAC swap), copied
 *                                                out and into a fresh mbuf as rk_io does
 *   memif_raw [EAL options] -- ping SIZE N       N one-frame ping-pongs; prints the median
 *                                                half round trip: "raw_pingpong: SIZE B T us"
 *
 * With --icrc before the mode, every frame also carries a RoCEv2 ICRC
 * (Annex A17.3.3): made with rk_rocev2_icrc() over the frame in its mbuf
 * before tx_burst, checked on every frame received (rx, pong, ping; a bad
 * one fails the run). The busier core then makes three passes over each
 * frame (the sender's copy into the mbuf, the ICRC, memif's copy), as
 * many as a RoCE receiver cannot avoid (memif's copy, the ICRC check, the
 * copy into registered memory): the ceiling of a software-ICRC stack here.
 *
 * Everything busy-polls (each process needs a core of its own); every
 * mode gives up after 10 s without traffic. Uses port 0.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_pause.h>

#include "rk_byteorder.h"
#include "rk_pkt.h"

#define BURST 32
#define IDLE_NS 10000000000ull
#define END_NS 300000000ull     /* rx: the stream ended after this much silence */
/*
 * The sender's last frame carries this EtherType (IEEE local experimental):
 * the receiver stops at once instead of polling a link whose peer is gone
 * (22.11's memif server can fault reading the rings of a departed client).
 */
#define ETHERTYPE_END 0x88b5

static bool with_icrc;          /* --icrc */
static uint64_t icrc_bad;

static uint64_t
now_ns(void)
{
	return (uint64_t)((double)rte_get_tsc_cycles() * 1e9 / (double)rte_get_tsc_hz());
}

static struct rte_mempool *
port_init(uint16_t port)
{
	struct rte_eth_conf conf = { 0 };
	struct rte_mempool *mp;
	struct rte_eth_link link;
	uint64_t t0;

	mp = rte_pktmbuf_pool_create("raw", 8191, 256, 0, RTE_PKTMBUF_HEADROOM + 9216,
				     (int)rte_socket_id());
	if (mp == NULL || rte_eth_dev_configure(port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(port, 0, 1024, rte_eth_dev_socket_id(port), NULL, mp) != 0 ||
	    rte_eth_tx_queue_setup(port, 0, 1024, rte_eth_dev_socket_id(port), NULL) != 0)
		return NULL;
	/* A memif client cannot start before its server listens: retry. */
	for (t0 = now_ns(); rte_eth_dev_start(port) != 0;) {
		if (now_ns() - t0 > IDLE_NS)
			return NULL;
		rte_delay_us_sleep(100000);
	}
	rte_eth_promiscuous_enable(port);
	for (uint64_t restart = (t0 = now_ns()) + 1000000000ull;;) {
		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(port, &link) == 0 && link.link_status)
			return mp;
		if (now_ns() - t0 > IDLE_NS)
			return NULL;
		/* A client that connected while its server configured stays down. */
		if (now_ns() >= restart) {
			rte_eth_dev_stop(port);
			rte_eth_dev_start(port);
			restart = now_ns() + 1000000000ull;
		}
		rte_delay_us_sleep(10000);
	}
}

/* An IPv4/UDP frame of @p len bytes to port 4791 in 198.18.0.0/15. */
static void
build_frame(uint8_t *f, uint32_t len)
{
	memset(f, 0, len);
	memcpy(f, "\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00\x00\x02\x08\x00", 14);
	f[14] = 0x45;
	f[16] = (uint8_t)((len - 14) >> 8);
	f[17] = (uint8_t)(len - 14);
	f[22] = 64;
	f[23] = 17;
	memcpy(f + 26, "\xc6\x12\x00\x02\xc6\x12\x00\x01", 8);
	f[36] = 4791 >> 8;
	f[37] = 4791 & 0xff;
	f[38] = (uint8_t)((len - 34) >> 8);
	f[39] = (uint8_t)(len - 34);
	for (uint32_t i = 42; i < len; i++)
		f[i] = (uint8_t)i;
}

static struct rte_mbuf *
copy_frame(struct rte_mempool *mp, const uint8_t *f, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	char *p;

	if (m == NULL)
		return NULL;
	p = rte_pktmbuf_append(m, (uint16_t)len);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memcpy(p, f, len);
	return m;
}

/* The ICRC over IP header .. payload, in the frame's last 4 bytes (as rk_pkt). */
static uint32_t
frame_icrc(const uint8_t *f, uint32_t len)
{
	return len >= 14 + 40 + 4 ? rk_rocev2_icrc(f + 14, len - 14 - 4) : 0;
}

static void
icrc_make(uint8_t *f, uint32_t len)
{
	if (with_icrc && len >= 14 + 40 + 4)
		rk_put_le32(f + len - 4, frame_icrc(f, len));
}

static void
icrc_check(const uint8_t *f, uint32_t len)
{
	if (with_icrc && (len < 14 + 40 + 4 || frame_icrc(f, len) != rk_get_le32(f + len - 4)))
		icrc_bad++;
}

/* copy_frame(), then the ICRC made over the copy when --icrc. */
static struct rte_mbuf *
send_frame(struct rte_mempool *mp, const uint8_t *f, uint32_t len)
{
	struct rte_mbuf *m = copy_frame(mp, f, len);

	if (m != NULL)
		icrc_make(rte_pktmbuf_mtod(m, uint8_t *), len);
	return m;
}

static bool
is_end(struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);

	return rte_pktmbuf_data_len(m) >= 14 && p[12] == (ETHERTYPE_END >> 8) &&
	       p[13] == (ETHERTYPE_END & 0xff);
}

/* Tell the peer the stream is over (retried while the ring is full). */
static void
send_end(struct rte_mempool *mp)
{
	uint8_t f[60];
	struct rte_mbuf *m;
	uint64_t t0 = now_ns();

	build_frame(f, sizeof(f));
	f[12] = ETHERTYPE_END >> 8;
	f[13] = ETHERTYPE_END & 0xff;
	m = copy_frame(mp, f, sizeof(f));
	if (m == NULL)
		return;
	while (rte_eth_tx_burst(0, 0, &m, 1) == 0) {
		if (now_ns() - t0 > 1000000000ull) {
			rte_pktmbuf_free(m);
			return;
		}
		rte_pause();
	}
	/* Let the receiver stop polling before this end goes away. */
	rte_delay_us_sleep(100000);
}

static int
run_tx(struct rte_mempool *mp, uint32_t len, double seconds)
{
	static uint8_t f[9216];
	struct rte_mbuf *q[BURST];
	uint64_t t_end, sent = 0;
	uint16_t n = 0;

	build_frame(f, len);
	t_end = now_ns() + (uint64_t)(seconds * 1e9);
	while (now_ns() < t_end) {
		while (n < BURST) {
			q[n] = send_frame(mp, f, len);
			if (q[n] == NULL)
				break;
			n++;
		}
		/* Like rk_io: what the ring does not take is retried, not dropped. */
		uint16_t k = rte_eth_tx_burst(0, 0, q, n);

		sent += k;
		memmove(q, q + k, (size_t)(n - k) * sizeof(q[0]));
		n = (uint16_t)(n - k);
	}
	rte_pktmbuf_free_bulk(q, n);
	send_end(mp);
	printf("raw_tx: %" PRIu64 " frames of %u B\n", sent, len);
	return 0;
}

static int
run_rx(void)
{
	static uint8_t f[9216];
	struct rte_mbuf *b[BURST];
	uint64_t frames = 0, bytes = 0, first = 0, last = 0, start = now_ns();

	for (bool end = false; !end;) {
		uint16_t n = rte_eth_rx_burst(0, 0, b, BURST);
		uint64_t now = now_ns();

		if (n > 0) {
			for (uint16_t i = 0; i < n; i++) {
				if (is_end(b[i])) {
					end = true;
					continue;
				}
				if (first == 0)
					first = now;
				last = now;
				frames++;
				bytes += rte_pktmbuf_pkt_len(b[i]);
				if (with_icrc) {
					uint32_t len = rte_pktmbuf_pkt_len(b[i]);

					if (len > sizeof(f))
						icrc_bad++;
					else
						icrc_check(rte_pktmbuf_read(b[i], 0, len, f), len);
				}
			}
			rte_pktmbuf_free_bulk(b, n);
			continue;
		}
		if (first != 0 && now - last > END_NS)
			break;
		if (first == 0 && now - start > IDLE_NS)
			break;
	}
	double s = (double)(last - first) * 1e-9;

	printf("raw_rx: %" PRIu64 " frames %" PRIu64 " bytes %.3f s %.3f Gb/s\n", frames, bytes,
	       s, s > 0 ? (double)bytes * 8 / s / 1e9 : 0);
	if (icrc_bad > 0)
		fprintf(stderr, "memif_raw: %" PRIu64 " frames with a bad ICRC\n", icrc_bad);
	return frames > 0 && icrc_bad == 0 ? 0 : 1;
}

/*
 * Echo every frame with the I/O discipline of lib/io: copy it out of the
 * mbuf, swap the MACs in the copy, send a fresh mbuf holding a copy.
 */
static int
run_pong(struct rte_mempool *mp)
{
	static uint8_t f[9216];
	struct rte_mbuf *b[BURST];
	uint64_t last = now_ns();

	while (now_ns() - last < IDLE_NS) {
		uint16_t n = rte_eth_rx_burst(0, 0, b, BURST), k = 0;

		if (n == 0)
			continue;
		if (is_end(b[n - 1])) {
			rte_pktmbuf_free_bulk(b, n);
			return 0;
		}
		for (uint16_t i = 0; i < n; i++) {
			uint32_t len = rte_pktmbuf_pkt_len(b[i]) < sizeof(f) ? rte_pktmbuf_pkt_len(b[i])
									     : (uint32_t)sizeof(f);
			const uint8_t *p = rte_pktmbuf_read(b[i], 0, len, f);
			uint8_t t[6];

			if (p != f)
				memcpy(f, p, len);
			rte_pktmbuf_free(b[i]);
			icrc_check(f, len);
			memcpy(t, f, 6);
			memcpy(f, f + 6, 6);
			memcpy(f + 6, t, 6);
			b[i] = send_frame(mp, f, len);
			if (b[i] == NULL)
				return 1;
		}
		while (k < n)
			k = (uint16_t)(k + rte_eth_tx_burst(0, 0, b + k, (uint16_t)(n - k)));
		last = now_ns();
		if (icrc_bad > 0) {
			fprintf(stderr, "memif_raw: pong got a frame with a bad ICRC\n");
			return 1;
		}
	}
	return 0;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int
run_ping(struct rte_mempool *mp, uint32_t len, uint32_t iters)
{
	static uint8_t f[9216];
	uint64_t *rtt = calloc(iters, sizeof(*rtt));
	struct rte_mbuf *b[BURST];

	if (rtt == NULL)
		return 1;
	build_frame(f, len);
	for (uint32_t it = 0; it < iters; it++) {
		struct rte_mbuf *m = send_frame(mp, f, len);
		uint64_t t0 = now_ns(), got = 0;

		if (m == NULL)
			return 1;
		while (rte_eth_tx_burst(0, 0, &m, 1) == 0)
			rte_pause();
		/* The copy out mirrors what rk_io does with a received frame. */
		while (got == 0) {
			uint16_t n = rte_eth_rx_burst(0, 0, b, BURST);

			for (uint16_t i = 0; i < n; i++) {
				uint32_t l = rte_pktmbuf_pkt_len(b[i]) < sizeof(f)
						     ? rte_pktmbuf_pkt_len(b[i]) : (uint32_t)sizeof(f);
				const uint8_t *p = rte_pktmbuf_read(b[i], 0, l, f);

				if (p != f)
					memcpy(f, p, l);
				icrc_check(f, l);
				got++;
			}
			rte_pktmbuf_free_bulk(b, n);
			if (got == 0 && now_ns() - t0 > IDLE_NS) {
				fprintf(stderr, "memif_raw: ping %u lost\n", it);
				return 1;
			}
		}
		rtt[it] = now_ns() - t0;
		if (icrc_bad > 0) {
			fprintf(stderr, "memif_raw: ping %u came back with a bad ICRC\n", it);
			return 1;
		}
		build_frame(f, len);
	}
	send_end(mp);
	qsort(rtt, iters, sizeof(*rtt), cmp_u64);
	printf("raw_pingpong: %u B %.3f us\n", len, (double)rtt[iters / 2] / 2e3);
	free(rtt);
	return 0;
}

int
main(int argc, char **argv)
{
	struct rte_mempool *mp;
	int n = rte_eal_init(argc, argv), rc = 2;
	const char *mode;

	if (n >= 0 && argc - n >= 3 && strcmp(argv[n + 1], "--icrc") == 0) {
		with_icrc = true;
		n++;
	}
	if (n < 0 || argc - n < 2) {
		fprintf(stderr, "usage: memif_raw [EAL options] -- [--icrc] tx SIZE SECONDS | rx | "
			"pong | ping SIZE N\n");
		return 2;
	}
	argv += n + 1;
	argc -= n + 1;
	mode = argv[0];
	mp = port_init(0);
	if (mp == NULL) {
		fprintf(stderr, "memif_raw: port 0 did not come up\n");
		return 1;
	}
	if (strcmp(mode, "tx") == 0 && argc == 3)
		rc = run_tx(mp, (uint32_t)atoi(argv[1]), atof(argv[2]));
	else if (strcmp(mode, "rx") == 0)
		rc = run_rx();
	else if (strcmp(mode, "pong") == 0)
		rc = run_pong(mp);
	else if (strcmp(mode, "ping") == 0 && argc == 3)
		rc = run_ping(mp, (uint32_t)atoi(argv[1]), (uint32_t)atoi(argv[2]));
	/* Stop sending before the peer goes (memif servers dislike the reverse). */
	rte_eth_dev_stop(0);
	rte_eth_dev_close(0);
	return rc;
}
