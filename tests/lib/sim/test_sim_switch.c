/* SPDX-License-Identifier: BSD-3-Clause */
/* The simulated switch: RED marking, PFC thresholds, pause timing, two tiers, incast. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <cmocka.h>

#include "rk_build.h"
#include "rk_ipv4.h"
#include "rk_sim_ring.h"
#include "rk_sim_switch.h"
#include "rk_sim_xstats.h"

#define PRIO 3

/* A RoCEv2-looking UDP/IPv4 frame of @p len bytes to MAC ..:dst, DSCP 26 (prio 3), ECT(0). */
static void mk_frame(uint8_t *f, uint32_t len, uint8_t dst)
{
	memset(f, 0, len);
	f[0] = 0x02; f[5] = dst;
	f[6] = 0x02; f[11] = 0xee;
	f[12] = 0x08; f[13] = 0x00;
	uint8_t *ip = f + 14;

	ip[0] = 0x45;
	ip[1] = (uint8_t)(26 << 2 | 2);
	ip[2] = (uint8_t)((len - 14) >> 8); ip[3] = (uint8_t)(len - 14);
	ip[8] = 64; ip[9] = 17;
	ip[12] = 198; ip[13] = 18; ip[15] = 1;
	ip[16] = 198; ip[17] = 18; ip[19] = 2;
	uint16_t c = rk_ipv4_csum(ip);

	ip[10] = (uint8_t)(c >> 8); ip[11] = (uint8_t)c;
	ip[22] = 0x12; ip[23] = 0xb7;   /* UDP 4791 */
}

static struct rk_sw_cfg base_cfg(unsigned int nports, uint8_t lossless)
{
	struct rk_sw_cfg c = { .nports = nports, .lossless_mask = lossless, .deterministic = true,
			       .seed = 1 };

	c.port.rate_bps = 100000000000ull;
	c.port.prop_ns = 0;
	c.port.xoff_bytes = 10000;
	c.port.xon_bytes = 5000;
	c.port.headroom_bytes = 100000;
	c.port.pause_quanta = 0xffff;
	c.port.limit_bytes = 0;
	return c;
}

static void test_set_ce(void **state)
{
	uint8_t f[100];

	(void)state;
	mk_frame(f, sizeof(f), 1);
	assert_int_equal(rk_sw_set_ce(f, sizeof(f)), 1);
	assert_int_equal(f[15] & 3, 3);
	uint16_t stored = (uint16_t)(f[24] << 8 | f[25]);

	assert_int_equal(rk_ipv4_csum(f + 14), stored);
	assert_int_equal(rk_sw_set_ce(f, sizeof(f)), 0);        /* already CE */
	f[15] &= (uint8_t)~3;
	assert_int_equal(rk_sw_set_ce(f, sizeof(f)), 0);        /* Not-ECT */
	assert_int_equal(rk_sw_frame_prio(f, sizeof(f)), 3);
	/* IHL 15 (60 bytes) in a frame ending 20 bytes into the header: short,
	 * not a read past the frame (the checksum covers IHL * 4 bytes) */
	f[15] |= 1;
	f[14] = 0x4f;
	assert_int_equal(rk_sw_set_ce(f, 14 + 20), -EINVAL);
	assert_int_equal(rk_sw_set_ce(f, 14 + 60), 1);
}

/* 30 frames of 1000 bytes into a port draining at 1 Mb/s, marking at enqueue: ECN marks. */
static uint64_t run_red(uint32_t kmin, uint32_t kmax, double pmax)
{
	struct rk_sw_net *n = rk_sw_net_create();
	struct rk_sw_cfg c = base_cfg(2, 0);
	uint8_t f[1000];

	c.mark_at_enqueue = true;
	c.port.kmin_bytes[PRIO] = kmin;
	c.port.kmax_bytes[PRIO] = kmax;
	c.port.pmax[PRIO] = pmax;
	struct rk_sw *sw = rk_sw_add(n, &c);

	assert_non_null(sw);
	struct rk_sw_port_cfg slow = c.port;

	slow.rate_bps = 1000000;
	assert_int_equal(rk_sw_set_port_cfg(sw, 1, &slow), 0);
	assert_int_equal(rk_sw_route(sw, 9, 1), 0);
	mk_frame(f, sizeof(f), 9);
	/* 1000 bytes at 100 Gb/s: 80 ns each; frames at 0, 80, ..., 2320 */
	assert_int_equal(rk_sw_add_source(sw, 0, 100000000000ull, 0, f, sizeof(f), 0, 2400), 0);
	rk_sw_net_run(n, 10000);
	assert_int_equal(rk_sw_source_sent(n, 0, NULL), 30);
	assert_int_equal(rk_sw_stats(sw, 1, PRIO)->queue_peak, 29000);
	uint64_t marks = rk_sw_stats(sw, 1, PRIO)->ecn_marked;

	rk_sw_net_destroy(n);
	return marks;
}

/*
 * The first frame leaves at once; frame k (k >= 2) is enqueued at depth
 * (k - 1) * 1000, so the depths are j * 1000, j = 1..29.
 * Kmin 10000, Kmax 20000, Pmax 0.5: j = 11..20 give p = 0.05..0.5 (running
 * sum reaches 1 at j = 16 and 19: 2 marks), j = 21..29 give p = 1 (9): 11.
 * Kmin 10000, Kmax 40000, Pmax 0.9: p = 0.03 * (j - 10) for j = 11..29,
 * sum 0.03 * 190 = 5.7, never an integer on the way: 5 marks (a counter
 * reset to 0 on a mark instead of keeping the remainder gives 4).
 */
static void test_red_deterministic(void **state)
{
	(void)state;
	assert_int_equal(run_red(10000, 20000, 0.5), 11);
	assert_int_equal(run_red(10000, 40000, 0.9), 5);
	assert_true(rk_sw_red_p(15000, 10000, 20000, 0.5) == 0.25);
	assert_true(rk_sw_red_p(20001, 10000, 20000, 0.5) == 1.0);
	assert_true(rk_sw_red_p(10000, 10000, 20000, 0.5) == 0.0);
}

struct pfc_rec {
	struct rk_sw *sw;
	unsigned int n;
	uint64_t t[64];
	uint16_t quanta[64];
	uint64_t ing[64];
	unsigned int dir[64];
	/* dequeue times at one port */
	unsigned int qport, nd;
	uint64_t last_bytes;
	uint64_t deq[4096];
};

static void pfc_cb(void *ctx, struct rk_sw *sw, unsigned int port, uint64_t t, unsigned int prio,
		   uint16_t quanta, unsigned int dir)
{
	struct pfc_rec *r = ctx;

	(void)prio;
	if (r->n < 64) {
		r->t[r->n] = t;
		r->quanta[r->n] = quanta;
		r->dir[r->n] = dir;
		r->ing[r->n] = rk_sw_ingress_bytes(sw, port, PRIO);
		r->n++;
	}
}

static void q_cb(void *ctx, struct rk_sw *sw, unsigned int port, unsigned int prio, uint64_t t,
		 uint64_t bytes, bool marked, bool paused)
{
	struct pfc_rec *r = ctx;

	(void)sw; (void)prio; (void)marked; (void)paused;
	if (port != r->qport)
		return;
	if (bytes < r->last_bytes && r->nd < 4096)
		r->deq[r->nd++] = t;
	r->last_bytes = bytes;
}

/* XOFF when the PG's ingress bytes first exceed 10000 (11000), XON when under 5000 (4000). */
static void test_xoff_xon_thresholds(void **state)
{
	struct rk_sw_net *n = rk_sw_net_create();
	struct rk_sw_cfg c = base_cfg(2, 1u << PRIO);
	struct pfc_rec r = { .qport = 99 };
	uint8_t f[1000];

	(void)state;
	struct rk_sw *sw = rk_sw_add(n, &c);
	struct rk_sw_port_cfg slow = c.port;

	slow.rate_bps = 10000000000ull;
	rk_sw_set_port_cfg(sw, 1, &slow);
	rk_sw_route(sw, 9, 1);
	rk_sw_net_set_trace(n, pfc_cb, NULL, &r);
	mk_frame(f, sizeof(f), 9);
	/* 20 frames at 100 Gb/s into a 10 Gb/s port */
	rk_sw_add_source(sw, 0, 100000000000ull, 0, f, sizeof(f), 0, 1600);
	rk_sw_net_run(n, 1000000);
	assert_int_equal(r.n, 2);       /* one XOFF, one XON (sources are not traced) */
	assert_int_equal(r.dir[0], 0);
	assert_int_equal(r.quanta[0], 0xffff);
	assert_int_equal(r.ing[0], 11000);
	assert_int_equal(r.dir[1], 0);
	assert_int_equal(r.quanta[1], 0);
	assert_int_equal(r.ing[1], 4000);
	assert_int_equal(rk_sw_stats(sw, 0, PRIO)->tx_pause, 2);
	assert_int_equal(rk_sw_stats(sw, 0, PRIO)->drops, 0);
	/* the source stops at 1600 ns, still paused then: all it sent leaves, none lost */
	assert_int_equal(rk_sw_stats(sw, 1, PRIO)->tx_frames, rk_sw_source_sent(n, 0, NULL));
	assert_int_equal(rk_sw_source_sent(n, 0, NULL), 14);
	rk_sw_net_destroy(n);
}

/*
 * Port 1 (10 Gb/s) drains a queue fed at 20 Gb/s; a PFC frame (quanta 1000)
 * reaches port 1 at t_p. Port 1 sends nothing from its next frame boundary
 * until t_p + 1000 * 512 / 10e9 s = t_p + 51200 ns; a second frame 1000 ns
 * later moves the end to t_p + 52200 ns.
 */
static void run_pause(unsigned int nframes, uint64_t *gap_end, uint64_t *pause_ns, uint64_t *tp)
{
	struct rk_sw_net *n = rk_sw_net_create();
	struct rk_sw_cfg c = base_cfg(2, 0);
	struct pfc_rec *r = calloc(1, sizeof(*r));
	uint8_t f[1000], pfc[60];
	uint16_t qv[8] = { 0 };

	c.port.rate_bps = 10000000000ull;
	struct rk_sw *sw = rk_sw_add(n, &c);

	r->qport = 1;
	rk_sw_route(sw, 9, 1);
	rk_sw_net_set_trace(n, NULL, q_cb, r);
	mk_frame(f, sizeof(f), 9);
	assert_int_equal(rk_sw_add_source(sw, 0, 20000000000ull, 0, f, sizeof(f), 0, 200000), 0);
	/* PFC from the far end of port 1: 60 bytes at 480 Mb/s = 1000 ns each */
	qv[PRIO] = 1000;
	static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 0x77 };


	assert_int_equal(rk_build_pfc(pfc, sizeof(pfc), mac, 1u << PRIO, qv), 60);
	uint64_t start = 10000;

	assert_int_equal(rk_sw_add_source(sw, 1, 480000000ull, 0, pfc, 60, start,
					  start + 1000 * (nframes - 1) + 1), 0);
	rk_sw_net_run(n, 150000);
	*tp = start + 1000;     /* the first PFC frame's last bit */
	*pause_ns = rk_sw_stats(sw, 1, PRIO)->pause_ns;
	*gap_end = 0;
	for (unsigned int i = 1; i < r->nd; i++)
		if (r->deq[i] - r->deq[i - 1] > 10000)
			*gap_end = r->deq[i];
	assert_int_equal(rk_sw_stats(sw, 1, PRIO)->rx_pause, nframes);
	free(r);
	rk_sw_net_destroy(n);
}

static void test_pause_duration_and_refresh(void **state)
{
	uint64_t end, paused, tp;

	(void)state;
	run_pause(1, &end, &paused, &tp);
	assert_int_equal(paused, 51200);
	assert_int_equal(end, tp + 51200);
	run_pause(2, &end, &paused, &tp);
	assert_int_equal(paused, 52200);
	assert_int_equal(end, tp + 52200);
}

static unsigned long host_frames;

static void host_cb(void *ctx, struct rk_sw *sw, unsigned int port, uint64_t t,
		    const uint8_t *frame, uint32_t len)
{
	(void)ctx; (void)sw; (void)port; (void)t; (void)frame; (void)len;
	host_frames++;
}

/* Data frames a host took, per millisecond of virtual time (first 10 ms). */
static unsigned long host_ms[10];

static void host_ms_cb(void *ctx, struct rk_sw *sw, unsigned int port, uint64_t t,
		       const uint8_t *frame, uint32_t len)
{
	(void)ctx; (void)sw; (void)port;
	if (len > 60 && t < 10000000)
		host_ms[t / 1000000]++;
	(void)frame;
}

/*
 * A pause storm from a host (an XOFF every 200 us from 0.1 ms to 5 ms) on
 * a port fed by a source at line rate. Without the watchdog the storm
 * spreads: the source is paused all along. With a 1 ms watchdog the
 * queue is found stormed once, its frames are dropped instead of the
 * source being paused, and 1 ms after the last XOFF it is restored.
 */
static uint64_t run_storm(uint64_t wd_ns, uint64_t *storms, uint64_t *drops)
{
	struct rk_sw_net *n = rk_sw_net_create();
	struct rk_sw_cfg c = base_cfg(2, 1u << PRIO);
	uint16_t qv[RK_SW_PRIOS] = { 0 };
	uint8_t f[1000], pfc[60];
	uint64_t paused = 0;

	qv[PRIO] = 0xffff;
	c.port.pfcwd_detect_ns = c.port.pfcwd_restore_ns = wd_ns;
	struct rk_sw *a = rk_sw_add(n, &c);

	memset(host_ms, 0, sizeof(host_ms));
	rk_sw_route(a, 9, 1);
	assert_int_equal(rk_sw_attach_host(a, 1, host_ms_cb, NULL), 0);
	mk_frame(f, sizeof(f), 9);
	assert_int_equal(rk_sw_add_source(a, 0, 100000000000ull, 0, f, sizeof(f), 0, 10000000), 0);
	assert_int_equal(rk_build_pfc(pfc, sizeof(pfc), (const uint8_t *)"\2\0\0\0\0\x09",
				      (uint8_t)(1u << PRIO), qv), 60);
	for (uint64_t t = 100000; t < 5000000; t += 200000)
		assert_int_equal(rk_sw_host_send(a, 1, t, pfc, sizeof(pfc)), 0);
	rk_sw_net_run(n, 10000000);
	rk_sw_source_sent(n, 0, &paused);
	*storms = rk_sw_stats(a, 1, PRIO)->pfcwd_storms;
	*drops = rk_sw_stats(a, 1, PRIO)->pfcwd_drops;
	assert_int_equal(rk_sw_stats(a, 0, PRIO)->drops, 0);
	rk_sw_net_destroy(n);
	return paused;
}

static void test_pfc_watchdog(void **state)
{
	uint64_t storms, drops, paused;

	(void)state;
	paused = run_storm(0, &storms, &drops);
	assert_int_equal(storms, 0);
	assert_int_equal(drops, 0);
	assert_true(paused > 4500000);          /* the storm reached the source */
	assert_int_equal(host_ms[2] + host_ms[3] + host_ms[4], 0);
	assert_true(host_ms[7] > 0);            /* after the storm, flowing again */

	paused = run_storm(1000000, &storms, &drops);
	assert_int_equal(storms, 1);
	assert_true(drops > 1000);
	assert_true(paused < 1500000);          /* paused until the watchdog acted */
	assert_int_equal(host_ms[2] + host_ms[3] + host_ms[4], 0);
	/* restored 1 ms after the last XOFF (4.9 ms): line rate from 5.9 ms */
	assert_true(host_ms[5] > 1000 && host_ms[5] < 1300);
	assert_int_equal(host_ms[7], 12500);
}

/* Source -> A -> B -> host at 10 Gb/s: B pauses A, A fills and pauses the source; no loss. */
static void test_two_tier_propagation(void **state)
{
	struct rk_sw_net *n = rk_sw_net_create();
	struct rk_sw_cfg c = base_cfg(2, 1u << PRIO);
	uint8_t f[1000];

	(void)state;
	c.port.prop_ns = 500;
	struct rk_sw *a = rk_sw_add(n, &c), *b = rk_sw_add(n, &c);
	struct rk_sw_port_cfg slow = c.port;

	slow.rate_bps = 10000000000ull;
	rk_sw_set_port_cfg(b, 1, &slow);
	assert_int_equal(rk_sw_connect(a, 1, b, 0), 0);
	rk_sw_route(a, 9, 1);
	rk_sw_route(b, 9, 1);
	host_frames = 0;
	rk_sw_attach_host(b, 1, host_cb, NULL);
	mk_frame(f, sizeof(f), 9);
	rk_sw_add_source(a, 0, 100000000000ull, 500, f, sizeof(f), 0, 100000);
	rk_sw_net_run(n, 100000);
	assert_true(rk_sw_stats(b, 0, PRIO)->tx_pause > 0);
	assert_int_equal(rk_sw_stats(a, 1, PRIO)->rx_pause, rk_sw_stats(b, 0, PRIO)->tx_pause);
	/* the same counters through the registry table */
	int ix = rk_xstats_find(&rk_sim_switch_xstats, "rx-pause");

	assert_true(ix >= 0);
	assert_int_equal(rk_xstat_value(&rk_sim_switch_xstats, (unsigned int)ix, rk_sw_stats(a, 1, PRIO)),
			 rk_sw_stats(a, 1, PRIO)->rx_pause);
	assert_int_equal(rk_sim_switch_xstats.n, 10);
	assert_true(rk_sw_stats(a, 0, PRIO)->tx_pause > 0);
	uint64_t src_paused;
	uint64_t sent = rk_sw_source_sent(n, 0, &src_paused);

	assert_true(src_paused > 0);
	/* 100 us at ~10 Gb/s of 1000-byte frames: far below the 1250 of line rate */
	assert_true(sent < 300);
	rk_sw_net_run(n, 10000000);
	assert_int_equal(host_frames, sent);
	assert_int_equal(rk_sw_stats(a, 0, PRIO)->drops + rk_sw_stats(b, 0, PRIO)->drops, 0);
	rk_sw_net_destroy(n);
}

static uint64_t host_last_t;

static void host_time_cb(void *ctx, struct rk_sw *sw, unsigned int port, uint64_t t,
			 const uint8_t *frame, uint32_t len)
{
	(void)ctx; (void)sw; (void)port; (void)frame; (void)len;
	host_frames++;
	host_last_t = t;
}

/*
 * A host's frame handed in with rk_sw_host_send: it reaches the other host
 * 1000 * 8 / 100 Gb/s = 80 ns of serialisation and 500 ns of propagation
 * after it arrived; the next event is reported; bad arguments refused.
 */
static void test_host_send(void **state)
{
	struct rk_sw_net *n = rk_sw_net_create();
	struct rk_sw_cfg c = base_cfg(2, 0);
	uint8_t f[1000];

	(void)state;
	c.port.prop_ns = 500;
	struct rk_sw *sw = rk_sw_add(n, &c);

	rk_sw_route(sw, 9, 1);
	host_frames = 0;
	assert_int_equal(rk_sw_attach_host(sw, 1, host_time_cb, NULL), 0);
	mk_frame(f, sizeof(f), 9);
	assert_int_equal(rk_sw_net_next_ns(n), UINT64_MAX);
	assert_int_equal(rk_sw_host_send(sw, 0, 1000, f, sizeof(f)), 0);
	assert_int_equal(rk_sw_net_next_ns(n), 1000);
	assert_int_equal(rk_sw_host_send(sw, 2, 1000, f, sizeof(f)), -EINVAL);
	assert_int_equal(rk_sw_host_send(sw, 0, 1000, f, 0), -EINVAL);
	rk_sw_net_run(n, 2000);
	assert_int_equal(host_frames, 1);
	assert_int_equal(host_last_t, 1000 + 80 + 500);
	assert_int_equal(rk_sw_host_send(sw, 0, 1500, f, sizeof(f)), -EINVAL);  /* past */
	rk_sw_net_destroy(n);
}

/* 16 sources at 100 Gb/s into one 100 Gb/s port for 100 ms, PFC on. */
static void test_incast_16_1(void **state)
{
	struct rk_sw_net *n = rk_sw_net_create();
	struct rk_sw_cfg c = base_cfg(17, 1u << PRIO);
	uint8_t f[1078];
	struct timespec t0, t1;
	struct rusage ru;

	(void)state;
	c.port.kmin_bytes[PRIO] = 5000;
	c.port.kmax_bytes[PRIO] = 200000;
	c.port.pmax[PRIO] = 0.01;
	c.port.prop_ns = 1000;
	c.port.xoff_bytes = 50000;
	c.port.xon_bytes = 40000;
	c.port.headroom_bytes = 30000;
	struct rk_sw *sw = rk_sw_add(n, &c);

	rk_sw_route(sw, 9, 16);
	host_frames = 0;
	rk_sw_attach_host(sw, 16, host_cb, NULL);
	mk_frame(f, sizeof(f), 9);
	for (unsigned int i = 0; i < 16; i++)
		assert_int_equal(rk_sw_add_source(sw, i, 100000000000ull, 1000, f, sizeof(f), 0,
						  100000000), 0);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	rk_sw_net_run(n, 100000000);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	getrusage(RUSAGE_SELF, &ru);
	double cpu = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;

	print_message("# incast 16:1 100 ms: %lu frames out, cpu %.2f s, max RSS %ld KiB\n",
		      host_frames, cpu, ru.ru_maxrss);
	/*
	 * The egress runs at line rate: 100 ms / (1078 * 8 / 100e9 s) = 1159554
	 * frames; the host callback runs as a frame starts out of the switch,
	 * the first at 86.24 + 1000 ns: 1 + (1e8 - 1086.24) / 86.24 = 1159542.4
	 * (+-1 for whole-ns start times).
	 */
	assert_true(host_frames >= 1159541 && host_frames <= 1159544);
	uint64_t drops = 0;

	for (unsigned int i = 0; i < 16; i++)
		drops += rk_sw_stats(sw, i, PRIO)->drops;
	assert_int_equal(drops, 0);
	assert_true(rk_sw_stats(sw, 16, PRIO)->ecn_marked > 0);
	assert_true(cpu < 60.0);
	assert_true(ru.ru_maxrss < 512 * 1024);
	rk_sw_net_destroy(n);
}

/*
 * The ring of rk_sim_ring.h, 4 switches at 100 Gb/s, sources stopping at
 * 200 us: @return frames neither delivered nor dropped after 15 ms;
 * *moved: frames the sinks got in its last 10 ms.
 */
static uint64_t run_ring(unsigned int nflows, uint64_t pfcwd_ns, unsigned long *moved,
			 struct rk_sring_counts *k)
{
	struct rk_sring_cfg c = {
		.switches = 4, .flows = nflows, .link_bps = 100000000000ull, .prop_ns = 1000,
		.frame_bytes = 1000, .stop_ns = 200000, .xoff_bytes = 20000, .xon_bytes = 2000,
		.headroom_bytes = 100000, .pfcwd_ns = pfcwd_ns,
	};
	struct rk_sring *r = rk_sring_create(&c);

	assert_non_null(r);
	rk_sring_run(r, 5000000);
	rk_sring_counts(r, k);
	uint64_t before = k->delivered;

	rk_sring_run(r, 15000000);
	rk_sring_counts(r, k);
	*moved = (unsigned long)(k->delivered - before);
	rk_sring_destroy(r);
	assert_int_equal(k->drops, 0);          /* lossless: the headroom held */
	return k->sent - k->delivered - k->pfcwd_drops;
}

static void test_cyclic_deadlock(void **state)
{
	struct rk_sring_counts k;
	unsigned long moved;
	uint64_t stuck;

	(void)state;
	stuck = run_ring(4, 0, &moved, &k);
	print_message("# ring of 4: %lu frames stuck\n", (unsigned long)stuck);
	assert_true(stuck > 0);
	assert_int_equal(moved, 0);
	assert_int_equal(k.buffered_bytes, stuck * 1000);
	/* The acyclic control drains. */
	stuck = run_ring(2, 0, &moved, &k);
	assert_int_equal(stuck, 0);
	assert_int_equal(k.buffered_bytes, 0);
	assert_true(k.delivered > 1000);
	/* The PFC watchdog breaks the cycle by dropping what it held. */
	stuck = run_ring(4, 1000000, &moved, &k);
	assert_int_equal(stuck, 0);
	assert_true(k.pfcwd_drops > 0);
	assert_true(k.pfcwd_storms > 0);
	assert_int_equal(k.buffered_bytes, 0);
}

static void test_ring_cfg(void **state)
{
	struct rk_sring_cfg c = {
		.switches = 2, .flows = 2, .link_bps = 1000000000, .frame_bytes = 1000,
		.stop_ns = 1000, .xoff_bytes = 20000, .xon_bytes = 2000,
	};

	(void)state;
	assert_null(rk_sring_create(&c));       /* too few switches */
	c.switches = 4;
	c.flows = 5;
	assert_null(rk_sring_create(&c));       /* more flows than switches */
	c.flows = 4;
	c.xon_bytes = 20000;
	assert_null(rk_sring_create(&c));       /* XON not below XOFF */
	c.xon_bytes = 2000;
	c.frame_bytes = 10;
	assert_null(rk_sring_create(&c));
	c.frame_bytes = 1000;
	struct rk_sring *r = rk_sring_create(&c);

	assert_non_null(r);
	rk_sring_destroy(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_ce),
		cmocka_unit_test(test_red_deterministic),
		cmocka_unit_test(test_xoff_xon_thresholds),
		cmocka_unit_test(test_pause_duration_and_refresh),
		cmocka_unit_test(test_two_tier_propagation),
		cmocka_unit_test(test_pfc_watchdog),
		cmocka_unit_test(test_cyclic_deadlock),
		cmocka_unit_test(test_ring_cfg),
		cmocka_unit_test(test_incast_16_1),
		cmocka_unit_test(test_host_send),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
