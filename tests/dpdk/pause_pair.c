/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PAUSE and PFC on lib/io ports, in one process: ports A and B on an
 * in-process net_ring pair (a wire), at a link rate of 1 Gb/s for the
 * quanta (one quantum, 512 bit times, is 512 ns):
 *   1. B sends PFC for priority 0, 20000 quanta (10.24 ms): A, whose frames
 *      are priority 0, holds what it sends until then, and no longer;
 *   2. PFC for priority 3 only does not hold A;
 *   3. an 802.3x PAUSE holds A, and a PAUSE of 0 quanta (XON) 2 ms later
 *      lets it go at once;
 *   4. the counters: frames per kind and priority, paused time per
 *      priority, PAUSE and PFC sent by B.
 *
 * usage: pause_pair [EAL options]
 * Exit 0 when every check passed, 1 otherwise, 77 when the ring pair
 * cannot be made.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eth_ring.h>
#include <rte_ring.h>

#include "rk_io_dpdk.h"

#define MS 1000000ull
#define QUANTA 20000u
#define PAUSE_NS (QUANTA * 512ull)      /* at 1 Gb/s */

static struct rk_io_dpdk *io[2];
static int failed;

static void check(bool ok, const char *what, ...) __attribute__((format(printf, 2, 3)));

static void
check(bool ok, const char *what, ...)
{
	printf("%s ", ok ? "ok  " : "FAIL");
	{
		va_list ap;

		va_start(ap, what);
		vprintf(what, ap);
		va_end(ap);
	}
	putchar('\n');
	failed |= !ok;
}

/* Let both ports work until @p until_ns: A hands its queue over, B takes what comes. */
static void
run_until(uint64_t until_ns, uint64_t *first_rx_ns, uint64_t rx0)
{
	uint8_t buf[2048];

	while (rk_io_dpdk_now_ns() < until_ns) {
		rk_io_dpdk_ops.flush(io[0]);
		for (int i = 0; i < 2; i++)
			while (rk_io_dpdk_ops.rx(io[i], buf, sizeof(buf)) > 0)
				;
		if (first_rx_ns != NULL && *first_rx_ns == 0 &&
		    rk_io_dpdk_stats(io[1])->rx_frames > rx0)
			*first_rx_ns = rk_io_dpdk_now_ns();
	}
}

/* A sends @p n frames (not RoCE: B counts them in rx_frames); @return when. */
static uint64_t
a_sends(unsigned int n)
{
	uint8_t f[64] = { 2, 0, 0, 0, 7, 2, 2, 0, 0, 0, 7, 1, 0x88, 0xb5 };

	for (unsigned int i = 0; i < n; i++)
		rk_io_dpdk_tx_raw(io[0], f, sizeof(f));
	rk_io_dpdk_ops.flush(io[0]);
	return rk_io_dpdk_now_ns();
}

/* B pauses A's priorities, A reads it: @return when A took it. */
static uint64_t
b_pauses(bool pfc, uint8_t enable, uint16_t quanta)
{
	uint16_t q[8];
	uint64_t rx_pause = rk_io_dpdk_stats(io[0])->rx_pause + rk_io_dpdk_stats(io[0])->rx_pfc;

	for (int i = 0; i < 8; i++)
		q[i] = quanta;
	if ((pfc ? rk_io_dpdk_send_pfc(io[1], enable, q) : rk_io_dpdk_send_pause(io[1], quanta)) != 0)
		check(false, "B sends the %s frame", pfc ? "PFC" : "PAUSE");
	while (rk_io_dpdk_stats(io[0])->rx_pause + rk_io_dpdk_stats(io[0])->rx_pfc == rx_pause)
		run_until(rk_io_dpdk_now_ns() + 1000, NULL, 0);
	return rk_io_dpdk_now_ns();
}

static int
open_port(int i, uint16_t port)
{
	struct rk_io_dpdk_cfg cfg = { .port_id = port, .link_timeout_ms = 2000, .link_mbps = 1000 };

	memcpy(cfg.mac, "\x02\x00\x00\x00\x07", 5);
	cfg.mac[5] = (uint8_t)(i + 1);
	io[i] = rk_io_dpdk_open(&cfg);
	if (io[i] == NULL) {
		fprintf(stderr, "pause_pair: port %u: %s\n", port, strerror(errno));
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	const struct rk_io_dpdk_stats *sa, *sb;
	struct rte_ring *r[2];
	uint64_t t0, t1, sent, first, rx0, held, want, holds;
	int n;

	n = rk_io_dpdk_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "usage: pause_pair [EAL options]\n");
		return 2;
	}
	r[0] = rte_ring_create("rkp_ab", 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	r[1] = rte_ring_create("rkp_ba", 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (r[0] == NULL || r[1] == NULL) {
		printf("SKIP: cannot create rings\n");
		return 77;
	}
	for (int i = 0; i < 2; i++) {
		n = rte_eth_from_rings(i == 0 ? "rkpa" : "rkpb", &r[1 - i], 1, &r[i], 1, 0);
		if (n < 0) {
			printf("SKIP: net_ring pair: %d\n", n);
			return 77;
		}
		if (open_port(i, (uint16_t)n) != 0)
			return 1;
	}
	sa = rk_io_dpdk_stats(io[0]);
	sb = rk_io_dpdk_stats(io[1]);

	/* 1. PFC for priority 0: A's frames wait 10.24 ms, then go. */
	t0 = b_pauses(true, 0x01, QUANTA);
	t1 = rk_io_dpdk_paused_until(io[0], 0);
	check(t1 > t0 && t1 - t0 <= PAUSE_NS && t1 - t0 > PAUSE_NS - MS,
	      "PFC prio 0, %u quanta: A paused %.3f ms more (10.24 from the frame)", QUANTA,
	      (double)(t1 - t0) / MS);
	rx0 = sb->rx_frames;
	first = 0;
	sent = a_sends(5);
	run_until(t1, &first, rx0);
	/* the last pass may end just past t1 and let them go */
	check((first == 0 || first >= t1) && sa->tx_paused_holds > 0,
	      "nothing arrives while paused (A held its queue %" PRIu64 " times)",
	      sa->tx_paused_holds);
	/*
	 * "And no longer": past the pause A never holds again. Not a time
	 * bound: a loaded machine may stop the process for milliseconds.
	 */
	holds = sa->tx_paused_holds;
	run_until(t1 + 20 * MS, &first, rx0);
	check(first >= t1 && sb->rx_frames - rx0 == 5 && sa->tx_paused_holds == holds,
	      "A's 5 frames sent %.3f ms before the pause ends arrive %.3f ms after it, "
	      "with no hold past its end", (double)(t1 - sent) / MS,
	      (double)(int64_t)(first - t1) / MS);

	/* 2. PFC for priority 3 only: A's priority-0 frames go at once. */
	b_pauses(true, 0x08, QUANTA);
	rx0 = sb->rx_frames;
	first = 0;
	holds = sa->tx_paused_holds;
	sent = a_sends(5);
	run_until(sent + 20 * MS, &first, rx0);
	check(first != 0 && sb->rx_frames - rx0 == 5 && sa->tx_paused_holds == holds,
	      "PFC prio 3: A's frames arrive %.3f ms after they were sent, never held",
	      first ? (double)(first - sent) / MS : -1.0);

	/* 3. 802.3x PAUSE, then XON 2 ms later: the frames go with the XON. */
	t0 = b_pauses(false, 0, QUANTA);
	rx0 = sb->rx_frames;
	first = 0;
	a_sends(5);
	run_until(t0 + 2 * MS, &first, rx0);
	check(first == 0, "PAUSE: nothing arrives for 2 ms");
	t1 = b_pauses(false, 0, 0);
	held = t1 - t0;         /* the PAUSE's time until the XON came */
	holds = sa->tx_paused_holds;
	run_until(t1 + 20 * MS, &first, rx0);
	check(first != 0 && sb->rx_frames - rx0 == 5 && sa->tx_paused_holds == holds,
	      "XON: the 5 frames arrive %.3f ms after it, with no hold past it (the PAUSE "
	      "had %.3f ms left)", first ? (double)(int64_t)(first - t1) / MS : -1.0,
	      (double)(PAUSE_NS - held) / MS);

	/* 4. The counters. */
	check(sa->rx_pfc == 2 && sa->rx_pause == 2 && sa->rx_prio_pause[0] == 3 &&
	      sa->rx_prio_pause[3] == 3 && sa->rx_prio_pause[1] == 2,
	      "A counted PFC %" PRIu64 ", PAUSE %" PRIu64 ", prio 0/1/3: %" PRIu64 "/%" PRIu64
	      "/%" PRIu64, sa->rx_pfc, sa->rx_pause, sa->rx_prio_pause[0], sa->rx_prio_pause[1],
	      sa->rx_prio_pause[3]);
	/* prio 0: 10.24 ms, then the part of the PAUSE before the XON cut it
	 * short (both as A read them: within the time of a poll) */
	want = PAUSE_NS + held;
	check(sa->rx_prio_pause_ns[0] + MS / 10 > want && sa->rx_prio_pause_ns[0] < want + MS / 10,
	      "A's priority 0 paused %.3f ms in all (10.24 + %.3f before the XON)",
	      (double)sa->rx_prio_pause_ns[0] / MS, (double)held / MS);
	check(sb->tx_pfc == 2 && sb->tx_pause == 2, "B sent PFC %" PRIu64 ", PAUSE %" PRIu64,
	      sb->tx_pfc, sb->tx_pause);
	for (int i = 0; i < 2; i++)
		rk_io_dpdk_close(io[i]);
	return failed ? 1 : 0;
}
