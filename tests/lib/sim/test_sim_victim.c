/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Congestion spreading to a victim flow (rk_sim_dcqcn.h, victim): 8
 * rdmakit RC QPs write into one 40 Gb/s receiver behind a second switch
 * tier; a ninth sender on the same first-tier switch, the victim, writes
 * to an idle receiver on the second tier. Every priority is lossless.
 *
 * With PFC alone the receiver's port backs up, the second tier pauses the
 * uplink, and the victim, which congests nothing, waits behind the
 * incast: it gets a ninth of the uplink's turns, 5 of its 40 Gb/s (Guo et
 * al., SIGCOMM 2016, section 4). With DCQCN marking below the XOFF
 * threshold (Kmax 40 KB, XOFF 50 KB) the senders slow to their share
 * before the queue reaches XOFF: the pauses stop and the victim gets most
 * of its link back (Zhu et al., SIGCOMM 2015, section 2; its rate, cut by
 * the few marks of the first bursts, recovers at the paper's pace). With
 * RED from 5 to 200 KB at Pmax 1 % the marking below XOFF is too weak
 * (under 0.25 % at 50 KB): PFC acts first and DCQCN cannot help, as the
 * paper warns (ECN must act before PFC). Nothing is lost in any run.
 *
 * A pause storm (storm_ns): the incast's receiver stops draining and
 * keeps pausing its switch port. The pauses spread up the tree: the
 * uplink, then every sender on T0, the victim included, stop, though the
 * victim's receiver is fine (Guo et al., section 4.3). With every port's
 * PFC watchdog (1 ms) the stormed queues are found and dropped instead of
 * obeyed, and the victim runs again (after its QP's retransmission
 * timeout when a watchdog upstream dropped its frames too).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "rk_sim_dcqcn.h"

#define SENDERS 8
#define RUN_NS 30000000ull     /* 30 ms */
#define STEADY_NS 5000000ull   /* measured over the last 5 ms */

struct outcome {
	double victim_gbps, incast_gbps;
	uint64_t pfc, paused_ns, dropped;
};

static struct outcome run(bool dcqcn, uint32_t kmax, double pmax)
{
	struct rk_sdq_cfg c = {
		.senders = SENDERS, .link_bps = 40000000000ull, .prop_ns = 500,
		.msg_bytes = 65536, .window = 512,
		.kmin_bytes = 5000, .kmax_bytes = kmax, .pmax = pmax,
		.seed = 0xdc9c, .dcqcn = dcqcn, .pfc = true, .victim = true,
	};
	struct outcome o = { 0 };
	uint64_t v0, in0 = 0, in1 = 0;
	struct rk_sdq_flow f;
	struct rk_sdq *s;

	assert_int_equal(rk_dcqcn_profile("paper", &c.params), 0);
	assert_non_null(s = rk_sdq_create(&c));
	assert_int_equal(rk_sdq_run(s, RUN_NS - STEADY_NS), 0);
	assert_int_equal(rk_sdq_flow(s, SENDERS, &f), 0);
	v0 = f.rx_bytes;
	for (unsigned int i = 0; i < SENDERS; i++) {
		assert_int_equal(rk_sdq_flow(s, i, &f), 0);
		in0 += f.rx_bytes;
	}
	assert_int_equal(rk_sdq_run(s, RUN_NS), 0);
	assert_int_equal(rk_sdq_flow(s, SENDERS, &f), 0);
	o.victim_gbps = (double)(f.rx_bytes - v0) * 8 / (double)STEADY_NS;
	for (unsigned int i = 0; i < SENDERS; i++) {
		assert_int_equal(rk_sdq_flow(s, i, &f), 0);
		in1 += f.rx_bytes;
	}
	o.incast_gbps = (double)(in1 - in0) * 8 / (double)STEADY_NS;
	rk_sdq_switch_counts(s, NULL, &o.dropped, NULL);
	rk_sdq_pfc_counts(s, &o.pfc, &o.paused_ns);
	assert_int_equal(rk_sdq_flow(s, SENDERS + 1, &f), -EINVAL);
	rk_sdq_destroy(s);
	printf("# %s, Kmax %u B: victim %.2f Gb/s, incast %.2f Gb/s, PFC frames %llu, uplink "
	       "paused %.2f ms, dropped %llu\n", dcqcn ? "PFC and DCQCN" : "PFC only", kmax,
	       o.victim_gbps,
	       o.incast_gbps, (unsigned long long)o.pfc, o.paused_ns / 1e6,
	       (unsigned long long)o.dropped);
	return o;
}

static void test_victim(void **state)
{
	struct outcome pfc, both, late;

	(void)state;
	pfc = run(false, 40000, 0.2);
	both = run(true, 40000, 0.2);
	late = run(true, 200000, 0.01);
	/* every run keeps the bottleneck busy and loses nothing */
	assert_true(pfc.incast_gbps > 38 && both.incast_gbps > 38 && late.incast_gbps > 38);
	assert_int_equal(pfc.dropped + both.dropped + late.dropped, 0);
	/* PFC alone: the uplink is paused most of the run and the victim starves */
	assert_true(pfc.paused_ns > RUN_NS / 2);
	assert_true(pfc.victim_gbps < 8);
	/* DCQCN marking before XOFF: pauses only at the start, the victim back */
	assert_true(both.paused_ns < 1000000);
	assert_true(both.victim_gbps > 20);
	assert_true(both.victim_gbps > 4 * pfc.victim_gbps);
	/* marking above XOFF: still paused, the victim still starved */
	assert_true(late.paused_ns > RUN_NS / 4);
	assert_true(late.victim_gbps < 12);
}

/* Bytes the victim's receiver and the incast's took by virtual time @p t. */
static void run_to(struct rk_sdq *s, uint64_t t, uint64_t *victim, uint64_t *incast)
{
	struct rk_sdq_flow f;

	assert_int_equal(rk_sdq_run(s, t), 0);
	assert_int_equal(rk_sdq_flow(s, SENDERS, &f), 0);
	*victim = f.rx_bytes;
	*incast = 0;
	for (unsigned int i = 0; i < SENDERS; i++) {
		assert_int_equal(rk_sdq_flow(s, i, &f), 0);
		*incast += f.rx_bytes;
	}
}

static void test_pause_storm(void **state)
{
	struct rk_sdq_cfg c = {
		.senders = SENDERS, .link_bps = 40000000000ull, .prop_ns = 500,
		.msg_bytes = 65536, .window = 512, .kmin_bytes = 5000, .kmax_bytes = 40000,
		.pmax = 0.2, .seed = 0xdc9c, .dcqcn = true, .pfc = true, .victim = true,
		.storm_ns = 20000000,
	};
	uint64_t v[4], in[4], p0, p1, dropped;
	struct rk_sdq *s;

	(void)state;
	assert_int_equal(rk_dcqcn_profile("paper", &c.params), 0);
	assert_non_null(s = rk_sdq_create(&c));
	run_to(s, 15000000, &v[0], &in[0]);
	run_to(s, 20000000, &v[1], &in[1]);
	rk_sdq_pfc_counts(s, NULL, &p0);
	run_to(s, 25000000, &v[2], &in[2]);
	run_to(s, 30000000, &v[3], &in[3]);
	rk_sdq_pfc_counts(s, NULL, &p1);
	rk_sdq_switch_counts(s, NULL, &dropped, NULL);
	rk_sdq_destroy(s);
	printf("# storm at 20 ms: victim %.2f Gb/s before, %.2f after; incast %.2f before, "
	       "%.2f after; uplink paused %.2f of the last 10 ms; dropped %llu\n",
	       (double)(v[1] - v[0]) * 8 / 5e6, (double)(v[3] - v[2]) * 8 / 5e6,
	       (double)(in[1] - in[0]) * 8 / 5e6, (double)(in[3] - in[2]) * 8 / 5e6,
	       (double)(p1 - p0) / 1e6, (unsigned long long)dropped);
	/* before: DCQCN's steady state; from 5 ms after: nothing moves */
	assert_true((v[1] - v[0]) * 8 / 5e6 > 15);
	assert_true((in[1] - in[0]) * 8 / 5e6 > 38);
	assert_true(v[3] - v[2] < 20000);
	assert_true(in[3] - in[2] < 20000);
	assert_true(p1 - p0 > 9000000);
	assert_int_equal(dropped, 0);
}

static void test_pause_storm_watchdog(void **state)
{
	struct rk_sdq_cfg c = {
		.senders = SENDERS, .link_bps = 40000000000ull, .prop_ns = 500,
		.msg_bytes = 65536, .window = 512, .kmin_bytes = 5000, .kmax_bytes = 40000,
		.pmax = 0.2, .seed = 0xdc9c, .pfc = true, .victim = true,
		.storm_ns = 10000000, .pfcwd_ns = 1000000, .timeout = 10,
	};
	uint64_t v[2], in[2], storms, drops, dropped;
	struct rk_sdq *s;

	(void)state;
	assert_int_equal(rk_dcqcn_profile("paper", &c.params), 0);
	assert_non_null(s = rk_sdq_create(&c));
	run_to(s, 20000000, &v[0], &in[0]);
	run_to(s, 30000000, &v[1], &in[1]);
	rk_sdq_pfcwd_counts(s, &storms, &drops);
	rk_sdq_switch_counts(s, NULL, &dropped, NULL);
	rk_sdq_destroy(s);
	printf("# storm at 10 ms, watchdog 1 ms: victim %.2f Gb/s from 20 ms, incast %.2f; "
	       "storms %llu, watchdog drops %llu\n", (double)(v[1] - v[0]) * 8 / 10e6,
	       (double)(in[1] - in[0]) * 8 / 10e6, (unsigned long long)storms,
	       (unsigned long long)drops);
	assert_true((v[1] - v[0]) * 8 / 10e6 > 35);     /* the victim at its link's rate */
	assert_true(in[1] - in[0] < 20000);             /* the stormed receiver takes nothing */
	assert_true(storms >= 1 && drops > 0);
	assert_int_equal(dropped, 0);                   /* none beyond the watchdog's */
}

/* A victim needs PFC: refused without it. */
static void test_victim_needs_pfc(void **state)
{
	struct rk_sdq_cfg c = { .senders = 2, .link_bps = 40000000000ull, .msg_bytes = 4096,
				.window = 64, .victim = true };

	(void)state;
	assert_null(rk_sdq_create(&c));
	c.victim = false;
	c.storm_ns = 1000;
	assert_null(rk_sdq_create(&c));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_victim),
		cmocka_unit_test(test_pause_storm),
		cmocka_unit_test(test_pause_storm_watchdog),
		cmocka_unit_test(test_victim_needs_pfc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
