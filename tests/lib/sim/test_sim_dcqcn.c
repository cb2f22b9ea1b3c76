/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DCQCN end to end on the simulated switch (rk_sim_dcqcn.h): N rdmakit RC
 * QPs with DCQCN into one 40 Gb/s port, RED marking at dequeue, against
 * the fluid model's fixed point (dcqcn_fluid.c) with the same parameters:
 * the time-averaged queue at steady state within +-50 % of q*, and the
 * flows at fair share (Jain index over 1 ms windows after convergence:
 * 0.99 on average at 2 and 4 flows, not in every window, see check_n).
 * The same run with congestion control off must miss the
 * queue band: the test can fail.
 *
 * Matching the model's assumptions: the model has one period tau' for the
 * CNP interval and the alpha update, so dce_tcp_rtt is set to
 * min_time_between_cnps (50 us; the paper profile has 55); marking is a
 * Bernoulli draw on the instantaneous queue (random RED, not the
 * deterministic accumulator); no PFC (a lossy queue with a 4 MB limit).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <cmocka.h>

#include "dcqcn_fluid.h"
#include "rk_sim_dcqcn.h"

#define STEP_NS 100000ull       /* 100 us samples */
#define WIN_STEPS 10            /* Jain windows of 1 ms */

struct result {
	double q_avg;           /* bytes, over the steady part */
	double q_model;         /* bytes, fluid q* */
	double jain_min;        /* over 1 ms windows of the steady part */
	double jain_mean;       /* the same windows' mean */
	double jain_below;      /* share of those windows under 0.99 */
	double share_ac1;       /* lag-1 autocorrelation of each flow's share
				   deviation (its bytes over the window's mean,
				   less 1) between consecutive windows */
	double util;            /* received / capacity over the steady part */
	uint64_t cnps, marked, dropped;
	double cpu_s;
};

static struct rk_sdq_cfg config(unsigned int n, bool dcqcn)
{
	struct rk_sdq_cfg c = {
		.senders = n, .link_bps = 40000000000ull, .prop_ns = 500,
		.msg_bytes = 65536, .window = 512,
		.kmin_bytes = 5000, .kmax_bytes = 200000, .pmax = 0.01,
		.limit_bytes = 4u << 20, .seed = 0xdc9c, .dcqcn = dcqcn,
	};

	assert_int_equal(rk_dcqcn_profile("paper", &c.params), 0);
	c.params.dce_tcp_rtt = c.params.min_time_between_cnps;
	return c;
}

static double fluid_q_bytes(const struct rk_sdq_cfg *c)
{
	double fb = rk_sdq_frame_bytes();
	struct dcqcn_fluid_params pp = {
		.C = (double)c->link_bps / (fb * 8), .N = c->senders,
		.tau_p = c->params.min_time_between_cnps * 1e-6,
		.T = c->params.rpg_time_reset * 1e-6,
		.B = (double)c->params.rpg_byte_reset / fb,
		.R_AI = c->params.rpg_ai_rate * 1e6 / (fb * 8),
		.kmin = c->kmin_bytes / fb, .kmax = c->kmax_bytes / fb, .pmax = c->pmax,
	};
	struct dcqcn_fluid_fp fp;

	assert_int_equal(dcqcn_fluid_fixed_point(&pp, &fp), 0);
	return fp.q * fb;
}

/* Run @p ms of virtual time; the steady part is from @p steady_ms on. */
static void run(unsigned int n, bool dcqcn, unsigned int ms, unsigned int steady_ms,
		struct result *r)
{
	struct rk_sdq_cfg c = config(n, dcqcn);
	struct rk_sdq *s = rk_sdq_create(&c);
	uint64_t prev[RK_SDQ_MAX_SENDERS] = { 0 }, win[RK_SDQ_MAX_SENDERS] = { 0 };
	uint64_t start_bytes = 0, end_bytes = 0;
	double area0 = 0, area1 = 0, dev_prev[RK_SDQ_MAX_SENDERS] = { 0 }, ac_num = 0, ac_den = 0;
	unsigned int nwin = 0;
	clock_t c0 = clock();

	assert_non_null(s);
	r->jain_min = 1;
	r->q_model = fluid_q_bytes(&c);
	for (unsigned int k = 1; k <= ms * 1000000ull / STEP_NS; k++) {
		uint64_t t = k * STEP_NS;
		bool steady = t > steady_ms * 1000000ull;

		assert_int_equal(rk_sdq_run(s, t), 0);
		if (t == steady_ms * 1000000ull)
			rk_sdq_queue(s, &area0);
		for (unsigned int i = 0; i < n; i++) {
			struct rk_sdq_flow f;

			assert_int_equal(rk_sdq_flow(s, i, &f), 0);
			if (steady)
				win[i] += f.rx_bytes - prev[i];
			if (t == steady_ms * 1000000ull)
				start_bytes += f.rx_bytes;
			if (k == ms * 1000000ull / STEP_NS) {
				end_bytes += f.rx_bytes;
				r->cnps += f.cnp_sent;
			}
			prev[i] = f.rx_bytes;
		}
		if (steady && k % WIN_STEPS == 0) {
			double sum = 0, sq = 0;

			for (unsigned int i = 0; i < n; i++) {
				sum += (double)win[i];
				sq += (double)win[i] * (double)win[i];
			}
			double j = sq > 0 ? sum * sum / (n * sq) : 0;

			for (unsigned int i = 0; sum > 0 && i < n; i++) {
				double dev = (double)win[i] * n / sum - 1;

				if (nwin > 0) {
					ac_num += dev * dev_prev[i];
					ac_den += dev_prev[i] * dev_prev[i];
				}
				dev_prev[i] = dev;
			}
			for (unsigned int i = 0; i < n; i++)
				win[i] = 0;
			if (j < r->jain_min)
				r->jain_min = j;
			r->jain_mean += j;
			r->jain_below += j < 0.99;
			nwin++;
		}
	}
	r->jain_mean /= nwin;
	r->jain_below /= nwin;
	r->share_ac1 = ac_den > 0 ? ac_num / ac_den : 0;
	rk_sdq_queue(s, &area1);
	double span = (double)(ms - steady_ms) * 1e6;

	r->q_avg = (area1 - area0) / span;
	r->util = (double)(end_bytes - start_bytes) * 8 / (span * 1e-9) / (double)c.link_bps;
	rk_sdq_switch_counts(s, &r->marked, &r->dropped, NULL);
	r->cpu_s = (double)(clock() - c0) / CLOCKS_PER_SEC;
	rk_sdq_destroy(s);
}

static void report(unsigned int n, bool dcqcn, const struct result *r)
{
	print_message("# N=%u dcqcn %s: queue avg %.1f KB, fluid q* %.1f KB (ratio %.2f), "
		      "Jain min %.4f mean %.4f, windows under 0.99 %.1f %%, "
		      "share autocorrelation 1 ms apart %.2f, utilisation %.3f, CNPs %llu, marked %llu, dropped %llu, "
		      "CPU %.2f s\n", n, dcqcn ? "on" : "off", r->q_avg / 1000, r->q_model / 1000,
		      r->q_avg / r->q_model, r->jain_min, r->jain_mean, 100 * r->jain_below,
		      r->share_ac1, r->util, (unsigned long long)r->cnps,
		      (unsigned long long)r->marked, (unsigned long long)r->dropped, r->cpu_s);
}

/*
 * The target: q_avg within 0.5..1.5 q* and Jain >= 0.99 over 1 ms windows.
 * Measured (200 ms, steady from 50 ms, seed 0xdc9c): N=2 26.6 KB against
 * q* 25.2 (1.06), N=4 57.0 against 56.1 (1.02), N=8 119.7 against 133.9
 * (0.89). Jain's index over 1 ms windows, mean (min): 0.9976 (0.9817),
 * 0.9938 (0.9792), 0.9883 (0.9649). The flows do not hold 0.99 in every
 * window, and not for want of averaging: a flow's share wanders slowly
 * (its deviation from the mean is correlated 0.94, 0.91, 0.89 between
 * consecutive windows; about 0.55 at 5 ms, 0 at 50 ms at N=8), so a 1 ms
 * window sees the spread of the RPs' rates at that moment. The wander is
 * DCQCN's own, in R_T: each CNP sets R_T to R_C (SIGCOMM 2015 3.1), and
 * R_C is still part-way through fast recovery when the CNP comes soon
 * after the last, so R_T loses anywhere from nothing to alpha/2 of the
 * rate (at N=8, 87 Mb/s on average with a standard deviation of 86, 3 CNPs
 * a flow a ms), which the additive increase gives back evenly, while only
 * the marks, in proportion to each flow's rate, pull the flows together
 * (a relaxation time near 8 ms). RED's Kmin, Kmax and Pmax move the queue,
 * not this; a smaller rpg_ai_rate narrows it but does not reach 0.99 in
 * every window at N=8 either (doc/congestion.md has the measurements).
 * @p jain_mean_lo and @p jain_min_lo hold that as measured, so a change
 * that makes sharing worse fails.
 */
static void check_n(unsigned int n, double jain_mean_lo, double jain_min_lo)
{
	struct result r = { 0 };

	run(n, true, 200, 50, &r);
	report(n, true, &r);
	assert_true(r.q_avg >= 0.5 * r.q_model && r.q_avg <= 1.5 * r.q_model);
	assert_true(r.jain_mean >= jain_mean_lo);
	assert_true(r.jain_min >= jain_min_lo);
	assert_true(r.util >= 0.9);
	assert_true(r.cnps > 0);
	assert_int_equal(r.dropped, 0);
}

static void test_n2(void **state) { (void)state; check_n(2, 0.99, 0.98); }
static void test_n4(void **state) { (void)state; check_n(4, 0.99, 0.975); }
static void test_n8(void **state) { (void)state; check_n(8, 0.98, 0.96); }

/* Congestion control off: the queue stands far above the model's band. */
static void test_off_misses(void **state)
{
	struct result r = { 0 };

	(void)state;
	run(2, false, 10, 5, &r);
	report(2, false, &r);
	assert_true(r.q_avg > 1.5 * r.q_model);
	assert_int_equal(r.cnps, 0);
}

/* Same seed, same run: the counters agree exactly. */
static void test_deterministic(void **state)
{
	struct result a = { 0 }, b = { 0 };

	(void)state;
	run(2, true, 3, 1, &a);
	run(2, true, 3, 1, &b);
	assert_true(a.q_avg == b.q_avg);
	assert_int_equal(a.cnps, b.cnps);
	assert_int_equal(a.marked, b.marked);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_n2),
		cmocka_unit_test(test_n4),
		cmocka_unit_test(test_n8),
		cmocka_unit_test(test_off_misses),
		cmocka_unit_test(test_deterministic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
