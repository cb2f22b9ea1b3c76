/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A pause storm (rk_sim_dcqcn.h, storm_ns; rk-sim storm): one RC QP
 * writes to a receiver behind a second switch, an innocent QP on the same
 * first switch and uplink writes to a healthy receiver, both at 40 Gb/s
 * with every priority lossless. At 10 ms the first receiver stops
 * draining and sends an XOFF every 400 us, as a NIC whose host stopped
 * does (Guo et al., SIGCOMM 2016, section 4.3).
 *
 * Without a PFC watchdog the pause spreads hop by hop (the receiver's
 * port, T0's uplink, every sender) and the innocent flow stops with the
 * other. With every port's watchdog at W the receiver's port is found
 * stormed W after the storm began, drops what goes to that receiver
 * instead of obeying its pauses, and the innocent flow runs again within
 * 2 W at its rate before the storm; the drops are the stormed port's.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "rk_sim_dcqcn.h"

#define MS 1000000ull
#define STORM_MS 10
#define RUN_MS 30
#define STEP_NS 100000ull       /* samples of 100 us */
#define STEPS (RUN_MS * MS / STEP_NS)
#define INNOCENT 1              /* flow index: the victim of rk_sdq */

struct outcome {
	uint64_t innocent[STEPS], stormed[STEPS];      /* bytes received per sample */
	bool port_paused, uplink_paused, senders_paused;
	uint64_t pfc_rx_innocent, paused_ns_innocent;
	uint64_t dropped, wd_storms, wd_drops, port_wd_storms, port_wd_drops;
};

static void run(uint64_t wd_ns, struct outcome *o)
{
	struct rk_sdq_cfg c = {
		.senders = 1, .link_bps = 40000000000ull, .prop_ns = 500, .msg_bytes = 65536,
		.window = 512, .kmin_bytes = 5000, .kmax_bytes = 40000, .pmax = 0.2,
		.seed = 0xdc9c, .pfc = true, .victim = true, .storm_ns = STORM_MS * MS,
		.pfcwd_ns = wd_ns, .timeout = 10,
	};
	uint64_t pi = 0, ps = 0;
	struct rk_sdq_pause p;
	struct rk_sdq_flow f, g;
	struct rk_sdq *s;

	assert_non_null(s = rk_sdq_create(&c));
	for (uint64_t k = 0; k < STEPS; k++) {
		assert_int_equal(rk_sdq_run(s, (k + 1) * STEP_NS), 0);
		assert_int_equal(rk_sdq_flow(s, INNOCENT, &f), 0);
		assert_int_equal(rk_sdq_flow(s, 0, &g), 0);
		o->innocent[k] = f.rx_bytes - pi;
		o->stormed[k] = g.rx_bytes - ps;
		pi = f.rx_bytes;
		ps = g.rx_bytes;
	}
	rk_sdq_pause_state(s, &p);
	o->port_paused = p.bott_paused;
	o->uplink_paused = p.uplink_paused;
	o->senders_paused = f.paused && g.paused;
	o->pfc_rx_innocent = f.pfc_rx;
	o->paused_ns_innocent = f.paused_ns;
	o->port_wd_storms = p.bott_wd_storms;
	o->port_wd_drops = p.bott_wd_drops;
	rk_sdq_switch_counts(s, NULL, &o->dropped, NULL);
	rk_sdq_pfcwd_counts(s, &o->wd_storms, &o->wd_drops);
	rk_sdq_destroy(s);
}

/* Gb/s of @p b over samples [from, to). */
static double gbps(const uint64_t *b, uint64_t from, uint64_t to)
{
	uint64_t sum = 0;

	for (uint64_t k = from; k < to; k++)
		sum += b[k];
	return (double)sum * 8 / (double)((to - from) * STEP_NS);
}

#define AT(ms) ((uint64_t)((ms) * MS / STEP_NS))

static void test_storm_spreads(void **state)
{
	static struct outcome o;
	double before, after;

	(void)state;
	run(0, &o);
	before = gbps(o.innocent, AT(5), AT(STORM_MS));
	after = gbps(o.innocent, AT(STORM_MS + 1), STEPS);
	print_message("# no watchdog: innocent %.2f Gb/s before, %.4f after; paused %.2f ms\n",
		      before, after, o.paused_ns_innocent / 1e6);
	assert_true(before > 35);
	assert_true(after < 0.05 * before);
	assert_true(gbps(o.stormed, AT(STORM_MS + 1), STEPS) < 0.01);
	/* every hop towards the stormed receiver is paused, to the end */
	assert_true(o.port_paused && o.uplink_paused && o.senders_paused);
	assert_true(o.pfc_rx_innocent > 0);
	assert_true(o.paused_ns_innocent > (RUN_MS - STORM_MS - 1) * MS);
	/* lossless: a storm without a watchdog loses nothing, it stops */
	assert_int_equal(o.dropped, 0);
	assert_int_equal(o.wd_drops, 0);
}

/* The innocent flow with a watchdog of @p wd_ms: back within 2 W, drops at the port. */
static void watchdog(unsigned int wd_ms)
{
	static struct outcome o;
	double before, ref;
	long back = -1;

	run(wd_ms * MS, &o);
	before = gbps(o.innocent, AT(5), AT(STORM_MS));
	ref = before * STEP_NS / 8;     /* bytes per sample before the storm */
	for (uint64_t k = AT(STORM_MS); k < STEPS; k++)
		if ((double)o.innocent[k] >= 0.8 * ref) {
			back = (long)((k - AT(STORM_MS)) * STEP_NS / 1000);
			break;
		}
	double after = gbps(o.innocent, AT(STORM_MS + 2 * wd_ms), STEPS);

	print_message("# watchdog %u ms: innocent %.2f Gb/s before, %.2f from 2 W on, back at "
		      "80 %% %ld us after the storm; %llu storms, %llu drops at the port\n", wd_ms,
		      before, after, back, (unsigned long long)o.port_wd_storms,
		      (unsigned long long)o.port_wd_drops);
	assert_true(before > 35);
	/* it did stop, and came back after W (the detection) and within 2 W */
	assert_true(gbps(o.innocent, AT(STORM_MS + 0.2), AT(STORM_MS + 0.9 * wd_ms)) < 0.05 * before);
	assert_true(back >= (long)(wd_ms * 1000) && back <= (long)(2 * wd_ms * 1000));
	for (uint64_t k = AT(STORM_MS + 2 * wd_ms); k < STEPS; k++)
		assert_true((double)o.innocent[k] >= 0.8 * ref);
	assert_true(after > 0.8 * before);
	/* the stormed receiver gets nothing; what went to it was dropped at its port */
	assert_true(gbps(o.stormed, AT(STORM_MS + 1), STEPS) < 0.01);
	assert_true(o.port_wd_storms >= 1);
	assert_true(o.port_wd_drops > 1000);
	assert_int_equal(o.wd_drops, o.port_wd_drops);
	assert_int_equal(o.dropped, 0);
}

static void test_watchdog_1ms(void **state)
{
	(void)state;
	watchdog(1);
}

static void test_watchdog_3ms(void **state)
{
	(void)state;
	watchdog(3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_storm_spreads),
		cmocka_unit_test(test_watchdog_1ms),
		cmocka_unit_test(test_watchdog_3ms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
