/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Go-back-N against selective repeat in a 4:1 incast of rdmakit RC QPs
 * through the simulated switch (rk_sim_recovery_incast_run), 40 Gb/s
 * links, 20 ms: "Revisiting Network Support for RDMA" (Mittal et al.,
 * SIGCOMM 2018) without PFC and without DCQCN. The receiver's port drops
 * what passes its 200 KB limit; go-back-N resends every packet after each
 * hole and loses a fifth of the link, selective repeat resends the holes
 * and keeps nearly all of it. With PFC nothing is lost and the two are
 * the same run.
 *
 * Measured (seed 1): PFC 37.775 Gb/s both, no drop, nothing resent;
 * without PFC go-back-N 29.491 Gb/s, 33823 packets resent, 13612 drops,
 * selective repeat 37.539 Gb/s, 1972 resent, 1426 drops.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "rk_sim_recovery.h"

#define SENDERS 4
#define RUN_NS 20000000ull      /* 20 ms */

static struct rk_sim_recovery_incast run(const char *algo, bool pfc)
{
	struct rk_sim_recovery_incast_cfg c = {
		.senders = SENDERS, .algo = algo, .pfc = pfc, .duration_ns = RUN_NS, .seed = 1,
	};
	struct rk_sim_recovery_incast o;

	assert_int_equal(rk_sim_recovery_incast_run(&c, &o), 0);
	printf("# %s pfc %s: %.3f Gb/s, resent %" PRIu64 " of %" PRIu64 ", timeouts %" PRIu64
	       ", drops %" PRIu64 ", PFC frames %" PRIu64 "\n", algo, pfc ? "on" : "off",
	       o.goodput_gbps, o.retx_pkts, o.req_pkts, o.timeouts, o.drops, o.pfc_frames);
	assert_int_equal(o.wc_errors, 0);
	return o;
}

/* With PFC: lossless, near the payload's share of 40 Gb/s, and the same for both. */
static void test_pfc_equal(void **state)
{
	struct rk_sim_recovery_incast g = run("gbn", true), s = run("sr", true);

	(void)state;
	assert_int_equal(g.drops, 0);
	assert_int_equal(s.drops, 0);
	assert_int_equal(g.retx_pkts, 0);
	assert_int_equal(s.retx_pkts, 0);
	assert_true(g.pfc_frames > 0);
	assert_true(g.goodput_gbps > 36.0);
	assert_true(fabs(g.goodput_gbps - s.goodput_gbps) < 0.01 * g.goodput_gbps);
}

/*
 * Without PFC: loss, go-back-N well under the lossless rate, selective
 * repeat clearly over go-back-N with far fewer packets resent.
 */
static void test_lossy_incast(void **state)
{
	struct rk_sim_recovery_incast ref = run("gbn", true);
	struct rk_sim_recovery_incast g = run("gbn", false), s = run("sr", false);

	(void)state;
	assert_true(g.drops > 1000);
	assert_true(s.drops > 0);
	assert_true(g.retx_pkts > 10000);
	/* measured 0.78 of the lossless rate */
	assert_true(g.goodput_gbps < 0.85 * ref.goodput_gbps);
	/* measured 8.0 Gb/s more, 0.99 of the lossless rate */
	assert_true(s.goodput_gbps > g.goodput_gbps + 4.0);
	assert_true(s.goodput_gbps > 0.93 * ref.goodput_gbps);
	/* measured 17 times fewer */
	assert_true(s.retx_pkts * 5 < g.retx_pkts);
	assert_true(s.drops < g.drops);
}

/* Same configuration and seed: the same run. */
static void test_deterministic(void **state)
{
	struct rk_sim_recovery_incast a = run("sr", false), b = run("sr", false);

	(void)state;
	assert_true(a.goodput_gbps == b.goodput_gbps);
	assert_int_equal(a.retx_pkts, b.retx_pkts);
	assert_int_equal(a.drops, b.drops);
	assert_int_equal(a.timeouts, b.timeouts);
}

static void test_bad_cfg(void **state)
{
	struct rk_sim_recovery_incast_cfg c = { .senders = 1, .algo = "sr", .duration_ns = 1000 };
	struct rk_sim_recovery_incast o;

	(void)state;
	assert_int_equal(rk_sim_recovery_incast_run(&c, &o), -EINVAL);
	c.senders = RK_SIM_RECOVERY_MAX_SENDERS + 1;
	assert_int_equal(rk_sim_recovery_incast_run(&c, &o), -EINVAL);
	c.senders = 4;
	c.algo = "irn";
	assert_int_equal(rk_sim_recovery_incast_run(&c, &o), -EINVAL);
	c.algo = "gbn";
	c.duration_ns = 0;
	assert_int_equal(rk_sim_recovery_incast_run(&c, &o), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_cfg),
		cmocka_unit_test(test_pfc_equal),
		cmocka_unit_test(test_lossy_incast),
		cmocka_unit_test(test_deterministic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
