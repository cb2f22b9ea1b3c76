/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port-based PFC unfairness (rk_sim_dcqcn.h, lone): three rdmakit RC QPs
 * reach the receiver's switch through one uplink, a fourth alone through
 * its own port; every link 40 Gb/s, every priority lossless.
 *
 * PFC pauses an ingress port, not a flow: the receiver's port is shared
 * between the two ingress ports, so the lone sender gets about half of it
 * and the three behind the uplink a sixth each (Zhu et al., SIGCOMM 2015,
 * section 2: "PFC unfairness"). DCQCN gives each flow its share, a
 * quarter, and the pauses stop.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "rk_sim_dcqcn.h"

#define SENDERS 4
#define RUN_NS 20000000ull      /* 20 ms */
#define STEADY_NS 10000000ull   /* measured over the last 10 ms */

struct outcome {
	double gbps[SENDERS], jain;
	uint64_t pfc, dropped;
};

static struct outcome run(bool dcqcn)
{
	struct rk_sdq_cfg c = {
		.senders = SENDERS, .link_bps = 40000000000ull, .prop_ns = 500,
		.msg_bytes = 65536, .window = 512, .kmin_bytes = 5000, .kmax_bytes = 40000,
		.pmax = 0.2, .seed = 0xdc9c, .dcqcn = dcqcn, .pfc = true, .lone = true,
	};
	struct outcome o = { 0 };
	uint64_t b0[SENDERS];
	struct rk_sdq_flow f;
	struct rk_sdq *s;
	double sum = 0, sum2 = 0;

	assert_int_equal(rk_dcqcn_profile("paper", &c.params), 0);
	assert_non_null(s = rk_sdq_create(&c));
	assert_int_equal(rk_sdq_run(s, RUN_NS - STEADY_NS), 0);
	for (unsigned int i = 0; i < SENDERS; i++) {
		assert_int_equal(rk_sdq_flow(s, i, &f), 0);
		b0[i] = f.rx_bytes;
	}
	assert_int_equal(rk_sdq_run(s, RUN_NS), 0);
	for (unsigned int i = 0; i < SENDERS; i++) {
		assert_int_equal(rk_sdq_flow(s, i, &f), 0);
		o.gbps[i] = (double)(f.rx_bytes - b0[i]) * 8 / (double)STEADY_NS;
		sum += o.gbps[i];
		sum2 += o.gbps[i] * o.gbps[i];
	}
	o.jain = sum * sum / (SENDERS * sum2);
	rk_sdq_switch_counts(s, NULL, &o.dropped, NULL);
	rk_sdq_pfc_counts(s, &o.pfc, NULL);
	rk_sdq_destroy(s);
	print_message("# %s: %.2f %.2f %.2f alone %.2f Gb/s, Jain %.3f, PFC frames %llu\n",
		      dcqcn ? "pfc+dcqcn" : "pfc", o.gbps[0], o.gbps[1], o.gbps[2], o.gbps[3],
		      o.jain, (unsigned long long)o.pfc);
	return o;
}

static void test_port_unfairness(void **state)
{
	struct outcome p = run(false), q = run(true);
	double total = 0;

	(void)state;
	/* PFC alone: half the port to the lone sender, a sixth to each other. */
	assert_true(p.gbps[3] > 18 && p.gbps[3] < 22);
	for (unsigned int i = 0; i < 3; i++) {
		assert_true(p.gbps[i] > 5 && p.gbps[i] < 8);
		total += p.gbps[i];
	}
	assert_true(total + p.gbps[3] > 38);    /* the port stays busy */
	assert_true(p.jain < 0.8);
	assert_true(p.pfc > 1000);
	/* DCQCN: a quarter each, and the pauses stop. */
	for (unsigned int i = 0; i < SENDERS; i++)
		assert_true(q.gbps[i] > 7 && q.gbps[i] < 13);
	assert_true(q.jain >= 0.97);
	assert_true(q.pfc < 100);
	assert_int_equal(p.dropped, 0);
	assert_int_equal(q.dropped, 0);
}

/* One sender cannot be alone and behind the uplink; not with a victim. */
static void test_lone_cfg(void **state)
{
	struct rk_sdq_cfg c = { .senders = 1, .link_bps = 40000000000ull, .msg_bytes = 4096,
				.window = 64, .pfc = true, .lone = true };
	struct rk_sdq *s;

	(void)state;
	assert_null(rk_sdq_create(&c));
	c.senders = 2;
	c.victim = true;
	assert_null(rk_sdq_create(&c));
	c.victim = false;
	assert_non_null(s = rk_sdq_create(&c));
	rk_sdq_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_port_unfairness),
		cmocka_unit_test(test_lone_cfg),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
