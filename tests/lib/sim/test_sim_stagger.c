/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A staggered start (rk_sim_dcqcn.h, stagger_ns; rk-sim stagger): flow A
 * runs alone at 40 Gb/s into one port; flow B starts 10 ms later at line
 * rate. Both run DCQCN (RED 5..200 KB, Pmax 1 %, no PFC).
 *
 * B's arrival raises the queue from a frame or so to past Kmax; the marks
 * cut both flows (B from line rate to well under C/2); both then climb
 * to C/2 and stay within 10 % of it in every 1 ms window, with Jain's
 * index near 1, while the queue stays short. Measured with each profile:
 * paper (within 10 % 35 ms after B starts, Jain >= 0.995: alpha, 1.0
 * after the spike, decays with g = 1/256 every 55 us, a time constant of
 * 14 ms, and while it is large each cut moves the rates apart again) and
 * nvidia-default (1 ms, 0.994). Without DCQCN the flows share the port as
 * well (a FIFO of two window-limited flows), but the queue stands at
 * their windows' worth and nothing is cut: the test fails.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "rk_sim_dcqcn.h"

#define MS 1000000ull
#define START_B 10              /* ms */
#define RUN_MS 60
#define SAMPLE_NS 10000ull      /* queue sampled every 10 us */
#define SHARE_BYTES 2500000.0   /* C/2 over 1 ms: 20 Gb/s */

struct outcome {
	uint64_t win[RUN_MS][2];        /* bytes received per 1 ms window */
	uint64_t q_before, q_after;     /* sampled queue peaks */
	double q_avg_settled;           /* bytes, time average from convergence on */
	double rc_min[2];               /* lowest R_C in B's first 5 ms, Gb/s */
	uint64_t cnps[2];
	long within[2];                 /* ms after B starts; -1: never */
	double jain_min;
};

static double jain(double a, double b)
{
	return a + b > 0 ? (a + b) * (a + b) / (2 * (a * a + b * b)) : 1;
}

static void run(const char *profile, bool dcqcn, struct outcome *o)
{
	struct rk_sdq_cfg c = {
		.senders = 2, .link_bps = 40000000000ull, .prop_ns = 500, .msg_bytes = 65536,
		.window = 512, .kmin_bytes = 5000, .kmax_bytes = 200000, .pmax = 0.01,
		.limit_bytes = 4u << 20, .seed = 0xdc9c, .dcqcn = dcqcn,
		.stagger_ns = START_B * MS,
	};
	uint64_t prev[2] = { 0 };
	double area0 = 0, area1 = 0;
	struct rk_sdq *s;

	memset(o, 0, sizeof(*o));
	o->rc_min[0] = o->rc_min[1] = 1e9;
	assert_int_equal(rk_dcqcn_profile(profile, &c.params), 0);
	assert_non_null(s = rk_sdq_create(&c));
	for (uint64_t k = 0; k < RUN_MS * MS / SAMPLE_NS; k++) {
		uint64_t t = (k + 1) * SAMPLE_NS, q;
		struct rk_sdq_flow f;

		assert_int_equal(rk_sdq_run(s, t), 0);
		q = rk_sdq_queue(s, NULL);
		if (t > START_B * MS / 2 && t <= START_B * MS && q > o->q_before)
			o->q_before = q;
		if (t > START_B * MS && t <= (START_B + 5) * MS && q > o->q_after)
			o->q_after = q;
		for (unsigned int i = 0; i < 2; i++) {
			assert_int_equal(rk_sdq_flow(s, i, &f), 0);
			o->win[(t - 1) / MS][i] += f.rx_bytes - prev[i];
			prev[i] = f.rx_bytes;
			if (t > START_B * MS && t <= (START_B + 5) * MS && f.rc_kbps / 1e6 < o->rc_min[i])
				o->rc_min[i] = f.rc_kbps / 1e6;
			o->cnps[i] = f.cnp_handled;
		}
		if (t == 30 * MS)
			rk_sdq_queue(s, &area0);
	}
	rk_sdq_queue(s, &area1);
	o->q_avg_settled = (area1 - area0) / (double)((RUN_MS - 30) * MS);
	rk_sdq_destroy(s);
	/* the first window from which each flow stays within 10 % of C/2 */
	long from = START_B;

	for (unsigned int i = 0; i < 2; i++) {
		o->within[i] = -1;
		for (long w = RUN_MS - 1; w >= START_B; w--) {
			if (o->win[w][i] < 0.9 * SHARE_BYTES || o->win[w][i] > 1.1 * SHARE_BYTES)
				break;
			o->within[i] = w - START_B;
		}
		if (o->within[i] + START_B > from)
			from = o->within[i] + START_B;
	}
	o->jain_min = 1;
	for (long w = from; w < RUN_MS; w++) {
		double j = jain((double)o->win[w][0], (double)o->win[w][1]);

		if (j < o->jain_min)
			o->jain_min = j;
	}
}

static void check(const char *profile, long within_max)
{
	static struct outcome o;

	run(profile, true, &o);
	print_message("# %s: queue peak %llu B before B, %llu B after; lowest R_C %.2f / %.2f "
		      "Gb/s; within 10 %% of C/2 %ld / %ld ms after B; Jain min %.4f; queue avg "
		      "%.1f KB from 30 ms\n", profile, (unsigned long long)o.q_before,
		      (unsigned long long)o.q_after, o.rc_min[0], o.rc_min[1], o.within[0],
		      o.within[1], o.jain_min, o.q_avg_settled / 1000);
	for (unsigned int w = 2; w < START_B; w++) {    /* A alone at line rate, B idle */
		assert_true(o.win[w][0] * 8 / 1e6 > 38);
		assert_int_equal(o.win[w][1], 0);
	}
	/* B's arrival: the queue past Kmax, from next to nothing */
	assert_true(o.q_after > 200000);
	assert_true(o.q_after > 20 * o.q_before);
	/* both cut (B from line rate) to under C/2 by CNPs */
	for (unsigned int i = 0; i < 2; i++) {
		assert_true(o.rc_min[i] > 0 && o.rc_min[i] < 15);
		assert_true(o.cnps[i] > 10);
	}
	/* both within 10 % of C/2, from at most within_max ms after B to the end */
	for (unsigned int i = 0; i < 2; i++)
		assert_true(o.within[i] >= 1 && o.within[i] <= within_max);
	assert_true(o.jain_min >= 0.99);
	/* and the queue short once settled */
	assert_true(o.q_avg_settled < 250000);
}

static void test_paper(void **state)
{
	(void)state;
	check("paper", 45);
}

static void test_nvidia_default(void **state)
{
	(void)state;
	check("nvidia-default", 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paper),
		cmocka_unit_test(test_nvidia_default),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
