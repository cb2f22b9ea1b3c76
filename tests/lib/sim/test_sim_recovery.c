/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Selective repeat (rk_ib_qp_set_recovery "sr", lib/ib/rk_lr.c) over the
 * simulated link: every opcode under loss, reordering and duplication
 * with every byte checked; WRITEs resend only the missing PSNs, far fewer
 * packets than go-back-N on the same seed and loss; and the SIGCOMM 2018
 * comparison (rk_sim_recovery.h): go-back-N's goodput falls as loss rises,
 * selective repeat keeps clearly more of it; with few packets in flight
 * its RTO_low finds the losses no NAK reports.
 */
#include "rk_test.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rk_sim_recovery.h"
#include "rk_sim_wl.h"

static void
run_mix(uint32_t opmask, struct rk_sim_impair imp, uint64_t seed)
{
	struct rk_sim_wl_cfg cfg = {
		.seed = seed,
		.ops = 300,
		.max_size = 64 * 1024,
		.opmask = opmask,
		.mtu = RK_MTU_1024,
		.depth = 16,
		.impair = imp,
		.timeout = 10,
		.window = 256,
		.recovery = "sr",
	};
	static struct rk_sim_wl_result r;
	int rc = rk_sim_wl_run(&cfg, &r);

	printf("# sr mask %#x seed %" PRIu64 " ops %" PRIu64 " verified %" PRIu64
	       " retx %" PRIu64 "/%" PRIu64 " timeouts %" PRIu64 " nakseq %" PRIu64 " %s\n",
	       opmask, seed, r.completed, r.bytes_verified, r.stats[0].req_retx_pkts,
	       r.stats[0].req_pkts, r.stats[0].req_retransmit_timeouts, r.stats[1].resp_nak_seq,
	       rc == 0 ? "ok" : r.first_error);
	assert_int_equal(rc, 0);
	assert_int_equal(r.errors, 0);
	assert_int_equal(r.completed, cfg.ops);
	assert_true(r.bytes_verified > 0);
	/* The impairment did its part: there was something to recover. */
	if (imp.loss > 0)
		assert_true(r.stats[0].req_retx_pkts > 0);
}

#define NO_ATOMICS (1u << RK_SIM_SEND | 1u << RK_SIM_SEND_IMM | 1u << RK_SIM_WRITE | \
		    1u << RK_SIM_WRITE_IMM | 1u << RK_SIM_READ)

static const struct rk_sim_impair lossy = { .loss = 0.02, .delay_ns = 2000 };
static const struct rk_sim_impair shuffled = {
	.loss = 0.01, .reorder = 0.05, .reorder_ns = 20000, .dup = 0.03,
	.delay_ns = 2000, .jitter_ns = 3000,
};

/* WRITEs only: the path selective repeat places out of order. */
static void
test_sr_write_integrity(void **state)
{
	(void)state;
	for (uint64_t s = 1; s <= 3; s++) {
		run_mix(1u << RK_SIM_WRITE, lossy, s);
		run_mix(1u << RK_SIM_WRITE, shuffled, s);
	}
}

/*
 * SEND, WRITE_IMM and READ fall back to going back N. ATOMICs are left
 * out: a later WRITE placed ahead may change the bytes an ATOMIC still in
 * a gap will read (rk_lr.c: not handled yet).
 */
static void
test_sr_all_ops_integrity(void **state)
{
	(void)state;
	for (uint64_t s = 1; s <= 3; s++) {
		run_mix(NO_ATOMICS, lossy, s);
		run_mix(NO_ATOMICS, shuffled, s);
	}
}

/* Same seed, same loss: selective repeat resends the lost PSNs, not the window. */
static void
test_sr_resends_only_missing(void **state)
{
	struct rk_sim_recovery_point g, s;

	(void)state;
	assert_int_equal(rk_sim_recovery_run("gbn", 0.01, 5, 200, &g), 0);
	assert_int_equal(rk_sim_recovery_run("sr", 0.01, 5, 200, &s), 0);
	printf("# 1%% loss: gbn resent %" PRIu64 " of %" PRIu64 ", sr resent %" PRIu64
	       " of %" PRIu64 "\n", g.retx_pkts, g.req_pkts, s.retx_pkts, s.req_pkts);
	assert_true(s.retx_pkts > 0);
	/* Each loss costs go-back-N a window; selective repeat about one packet. */
	assert_true(s.retx_pkts * 5 < g.retx_pkts);
	/* Lost requests ~1% of those sent, plus ACK losses and timeouts: under 4%. */
	assert_true(s.retx_pkts * 100 < s.req_pkts * 4);
}

/* SIGCOMM 2018 section 4: without PFC, go-back-N's goodput falls with loss. */
static void
test_sr_goodput(void **state)
{
	static const double loss[] = { 0, 0.001, 0.01, 0.02 };
	struct rk_sim_recovery_point g[4], s[4];

	(void)state;
	for (int i = 0; i < 4; i++) {
		assert_int_equal(rk_sim_recovery_run("gbn", loss[i], 11, 200, &g[i]), 0);
		assert_int_equal(rk_sim_recovery_run("sr", loss[i], 11, 200, &s[i]), 0);
		printf("# loss %.3f goodput gbn %.3f sr %.3f Gb/s timeouts %" PRIu64 "/%" PRIu64
		       " (RTO_low %" PRIu64 ") nak %" PRIu64 "/%" PRIu64 "\n", loss[i],
		       g[i].goodput_gbps, s[i].goodput_gbps, g[i].timeouts, s[i].timeouts,
		       s[i].rto_low_timeouts, g[i].nak_seq, s[i].nak_seq);
	}
	/* Same frames without loss: the choice costs nothing. */
	assert_true(s[0].goodput_gbps > g[0].goodput_gbps * 0.99);
	for (int i = 1; i < 4; i++)
		assert_true(g[i].goodput_gbps < g[i - 1].goodput_gbps);
	/*
	 * At 1% and 2% loss selective repeat keeps more (1.23x and 1.19x
	 * measured, doc/congestion.md); both lose most to local ACK timeouts.
	 */
	assert_true(s[2].goodput_gbps > g[2].goodput_gbps * 1.15);
	assert_true(s[3].goodput_gbps > g[3].goodput_gbps * 1.1);
}

/*
 * Few packets in flight (1 KiB WRITEs, 2 outstanding): no later packet
 * reveals a loss, so every loss waits for a timer. With RTO_low (100 us)
 * selective repeat waits that, not the 4.2 ms local ACK timeout.
 */
static void
test_sr_rto_low_few(void **state)
{
	static const double loss[] = { 0, 0.01, 0.02 };
	struct rk_sim_recovery_point g, off, on;

	(void)state;
	for (int i = 0; i < 3; i++) {
		assert_int_equal(rk_sim_recovery_run_few("gbn", true, loss[i], 11, 5000, &g), 0);
		assert_int_equal(rk_sim_recovery_run_few("sr", false, loss[i], 11, 5000, &off), 0);
		assert_int_equal(rk_sim_recovery_run_few("sr", true, loss[i], 11, 5000, &on), 0);
		printf("# few, loss %.3f goodput gbn %.3f sr %.3f sr+RTO_low %.3f Gb/s timeouts %"
		       PRIu64 "/%" PRIu64 "/%" PRIu64 " (RTO_low %" PRIu64 ") resent %" PRIu64
		       "/%" PRIu64 "/%" PRIu64 "\n", loss[i], g.goodput_gbps, off.goodput_gbps,
		       on.goodput_gbps, g.timeouts, off.timeouts, on.timeouts, on.rto_low_timeouts,
		       g.retx_pkts, off.retx_pkts, on.retx_pkts);
		assert_int_equal(off.rto_low_timeouts, 0);
		if (loss[i] == 0) {
			/* nothing lost: the short timer never fires */
			assert_int_equal(on.timeouts, 0);
			assert_true(on.goodput_gbps == off.goodput_gbps);
			continue;
		}
		/* 1.29x and 2.24x measured (doc/congestion.md) */
		assert_true(on.rto_low_timeouts > 0);
		assert_true(on.goodput_gbps > off.goodput_gbps * (loss[i] < 0.015 ? 1.2 : 2.0));
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sr_write_integrity),
		cmocka_unit_test(test_sr_all_ops_integrity),
		cmocka_unit_test(test_sr_resends_only_missing),
		cmocka_unit_test(test_sr_goodput),
		cmocka_unit_test(test_sr_rto_low_few),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
