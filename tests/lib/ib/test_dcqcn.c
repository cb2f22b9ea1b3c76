/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/ib/rk_cc_dcqcn.h: DCQCN RP golden values per profile (E2), NP CNP
 * spacing per QP (E1, state machine level), pacer spacing, parameters.
 * Golden values are derived by hand from the equations in rk_cc_dcqcn.h
 * (all divisions truncate); rates in kb/s, alpha in 1/2^20 (the state's
 * unit: 1024 * the /1024 value, 10 bits finer), times in ns.
 */
#include <errno.h>

#include "rk_test.h"

#include "rk_cc_dcqcn.h"

#define RC(rp, v) assert_int_equal((rp)->rc_kbps, (v))
#define RT(rp, v) assert_int_equal((rp)->rt_kbps, (v))
#define AL(rp, v) assert_int_equal((rp)->alpha, (v))
#define K 1024u /* alpha: the parameters' 1/1024 in the state's 1/2^20 */

/* "paper": 40 Gb/s, g = 1020/1024, K = timer = 55 us, decreases 50 us apart, F = 5. */
static void
test_rp_paper(void **state)
{
	struct rk_dcqcn_params p;
	struct rk_dcqcn_rp rp;

	(void)state;
	assert_int_equal(rk_dcqcn_profile("paper", &p), 0);
	rk_dcqcn_rp_init(&rp, &p, 40000);
	RC(&rp, 40000000); RT(&rp, 40000000); AL(&rp, 1024 * K);

	/* CNP at 0: first, alpha 1024/1024; clamp R_T = R_C = 40e6;
	 * red = 40e6 * 2^20 >> 21 = 20e6 (cap 50 % = 20e6) -> R_C 20e6. */
	assert_true(rk_dcqcn_rp_cnp(&rp, 0));
	RC(&rp, 20000000); RT(&rp, 40000000); AL(&rp, 1024 * K);
	/* CNP at 10 us: inside the 50 us monitor period -> ignored, nothing moves. */
	assert_false(rk_dcqcn_rp_cnp(&rp, 10000));
	RC(&rp, 20000000); RT(&rp, 40000000); AL(&rp, 1024 * K);
	assert_int_equal(rp.cnp_handled, 1);
	assert_int_equal(rp.cnp_ignored, 1);
	/* 55 us: alpha (CNP in period) = 1020 * 2^20 / 1024 + 4 K = 2^20; then the
	 * timer: T = BC = 0 < F, fast recovery R_C = (20e6 + 40e6) / 2 = 30e6. */
	rk_dcqcn_rp_timer(&rp, 55000);
	RC(&rp, 30000000); RT(&rp, 40000000); AL(&rp, 1024 * K);
	assert_int_equal(rp.t, 1);
	/* CNP at 60 us (allowed from 50): clamp R_T = 30e6, red = 15e6 -> R_C 15e6;
	 * increase timer re-armed at 115 us. */
	assert_true(rk_dcqcn_rp_cnp(&rp, 60000));
	RC(&rp, 15000000); RT(&rp, 30000000); AL(&rp, 1024 * K);
	assert_int_equal(rp.t, 0);
	/* 110 us alpha (CNP seen) stays 2^20; 115 us FR: (15e6 + 30e6) / 2 = 22.5e6. */
	rk_dcqcn_rp_timer(&rp, 115000);
	RC(&rp, 22500000); RT(&rp, 30000000); AL(&rp, 1024 * K);
	/* 165 us alpha, no CNP: 1020 * 2^20 / 1024 = 1 044 480; 170 us FR -> 26 250 000. */
	rk_dcqcn_rp_timer(&rp, 170000);
	RC(&rp, 26250000); AL(&rp, 1044480);
	/* 220: alpha 1044480*1020/1024 = 1 040 400; 225 FR 28 125 000 (T 3);
	 * 275: 1040400*1020/1024 = 1 036 335; 280 FR 29 062 500 (T 4);
	 * 330: 1036335*1020/1024 = 1 032 286; 335 FR 29 531 250 (T 5).
	 * (A 10-bit alpha would be 1016, 1012, 1008: 1 032 192 here.) */
	rk_dcqcn_rp_timer(&rp, 335000);
	RC(&rp, 29531250); RT(&rp, 30000000); AL(&rp, 1032286);
	assert_int_equal(rp.t, 5);
	/* 385: alpha 1032286*1020/1024 = 1 028 253; 390: max(T, BC) = 5 >= F, min 0:
	 * additive, R_T = 30e6 + 40 000 = 30 040 000, R_C = (29 531 250 + 30 040 000)/2. */
	rk_dcqcn_rp_timer(&rp, 390000);
	RC(&rp, 29785625); RT(&rp, 30040000); AL(&rp, 1028253);
	/* CNP at 400 us: clamp R_T = 29 785 625; red = 29 785 625 * 1 028 253 >> 21
	 * = 14 604 167 (< cap 14 892 812) -> R_C 15 181 458. */
	assert_true(rk_dcqcn_rp_cnp(&rp, 400000));
	RC(&rp, 15181458); RT(&rp, 29785625); AL(&rp, 1028253);
	assert_int_equal(rp.cnp_handled, 3);
}

/*
 * Without CNPs alpha decays by dce_tcp_g / 1024 a period, also when small:
 * after 600 periods of the paper's 55 us, 1020^600 / 1024^600 = 0.0955 of
 * 1.0 (100 168 in 1/2^20; truncation each step leaves 100 052). A 10-bit
 * alpha, truncated each step, loses at least 1/1024 a period and is 0.
 */
static void
test_alpha_decay(void **state)
{
	struct rk_dcqcn_params p;
	struct rk_dcqcn_rp rp;

	(void)state;
	assert_int_equal(rk_dcqcn_profile("paper", &p), 0);
	p.rpg_min_rate = 40000; /* the rate stays; only alpha moves */
	rk_dcqcn_rp_init(&rp, &p, 40000);
	assert_true(rk_dcqcn_rp_cnp(&rp, 0));
	/* the first period saw the CNP: alpha stays 1.0, then 600 without */
	rk_dcqcn_rp_timer(&rp, 601 * 55000ull);
	AL(&rp, 100052);
}

/* "nvidia-default": 100 Gb/s, g 1019, alpha every 1 us, decreases 4 us apart, F = 1. */
static void
test_rp_nvidia(void **state)
{
	struct rk_dcqcn_params p;
	struct rk_dcqcn_rp rp;

	(void)state;
	assert_int_equal(rk_dcqcn_profile("nvidia-default", &p), 0);
	rk_dcqcn_rp_init(&rp, &p, 100000);
	/* CNP at 0: alpha 1023 K; no clamp (T = BC = 0, clamp_tgt_rate 0): R_T 1e8;
	 * red = 1e8 * 1023 K >> 21 = 49 951 171 -> R_C 50 048 829. */
	assert_true(rk_dcqcn_rp_cnp(&rp, 0));
	RC(&rp, 50048829); RT(&rp, 100000000); AL(&rp, 1023 * K);
	/* 1 us: 1019*1047552/1024 + 5 K = 1 042 437 + 5120 = 1 047 557;
	 * 2 us: no CNP, 1 042 441. CNP at 2 us: inside 4 us -> ignored. */
	assert_false(rk_dcqcn_rp_cnp(&rp, 2000));
	RC(&rp, 50048829); AL(&rp, 1042441);
	/* 3 us: CNP seen: 1019*1042441/1024 + 5 K = 1 042 470. */
	rk_dcqcn_rp_timer(&rp, 3000);
	AL(&rp, 1042470);
	/* 4 us: alpha 1019*1042470/1024 = 1 037 379, then the CNP is allowed:
	 * red = 50 048 829 * 1 037 379 >> 21 = 24 757 196 -> R_C 25 291 633, R_T 1e8. */
	assert_true(rk_dcqcn_rp_cnp(&rp, 4000));
	RC(&rp, 25291633); RT(&rp, 100000000); AL(&rp, 1037379);
	/* Byte counter (32767 * 64 bytes): BC 0 -> fast recovery
	 * (25 291 633 + 1e8) / 2 = 62 645 816; BC 1 -> additive, R_T 1e8 + 5000
	 * capped at line rate 1e8, R_C = (62 645 816 + 1e8) / 2 = 81 322 908. */
	rk_dcqcn_rp_sent(&rp, 32767u * 64, 4500);
	RC(&rp, 62645816); RT(&rp, 100000000);
	assert_int_equal(rp.bc, 1);
	rk_dcqcn_rp_sent(&rp, 32767u * 64, 4600);
	RC(&rp, 81322908); RT(&rp, 100000000);
	/* Alpha 5..10 us: 1 037 433 (CNP at 4 us), 1 032 367, 1 027 326,
	 * 1 022 309, 1 017 317, 1 012 349 (10 bits: 1013 ... 988).
	 * CNP at 10 us: BC 2 > 0 clamps R_T = 81 322 908;
	 * red = 81 322 908 * 1 012 349 >> 21 = 39 256 651 -> R_C 42 066 257. */
	assert_true(rk_dcqcn_rp_cnp(&rp, 10000));
	RC(&rp, 42066257); RT(&rp, 81322908); AL(&rp, 1012349);
	assert_int_equal(rp.bc, 0);
	/* Stages (F = 1), counted after each event; R_T stays under line rate now.
	 * 20 us bytes, BC 0: FR (42 066 257 + 81 322 908) / 2 = 61 694 582.
	 * 21 us bytes, BC 1 >= F: AI R_T 81 327 908, R_C 71 511 245.
	 * 310 us timer, T 0, BC 2: AI R_T 81 332 908, R_C 76 422 076.
	 * 610 us timer, T 1, BC 2: min 1 not > F, AI R_T 81 337 908, R_C 78 879 992.
	 * 610.001 us bytes, T 2, BC 2: min 2 > F, hyper R_T 81 387 908, R_C 80 133 950. */
	rk_dcqcn_rp_sent(&rp, 32767u * 64, 20000);
	RC(&rp, 61694582); RT(&rp, 81322908);
	rk_dcqcn_rp_sent(&rp, 32767u * 64, 21000);
	RC(&rp, 71511245); RT(&rp, 81327908);
	rk_dcqcn_rp_timer(&rp, 310000);
	RC(&rp, 76422076); RT(&rp, 81332908);
	rk_dcqcn_rp_timer(&rp, 610000);
	RC(&rp, 78879992); RT(&rp, 81337908);
	assert_int_equal(rp.t, 2);
	rk_dcqcn_rp_sent(&rp, 32767u * 64, 610001);
	RC(&rp, 80133950); RT(&rp, 81387908);
	/* Floor: a CNP every 4 us for 4 ms holds R_C at rpg_min_rate, here 40 Gb/s. */
	p.rpg_min_rate = 40000;
	for (uint64_t t = 700000; t < 4700000; t += 4000)
		assert_true(rk_dcqcn_rp_cnp(&rp, t));
	RC(&rp, 40000000);
}

/* NP: CE on packets every 1 us for 10 us; one CNP per interval per QP. */
static void
np_run(uint32_t interval_us, unsigned int expect)
{
	struct rk_dcqcn_params p;
	struct rk_dcqcn_np a = { 0 }, b = { 0 };
	unsigned int sent_a = 0, sent_b = 0;

	assert_int_equal(rk_dcqcn_profile("nvidia-default", &p), 0);
	p.min_time_between_cnps = interval_us;
	/* Unmarked, ECT(0), ECT(1), Not-ECT: never a CNP. */
	for (uint8_t ecn = 0; ecn < 3; ecn++)
		assert_false(rk_dcqcn_np_rx(&a, &p, ecn, 500));
	for (uint64_t t = 1000; t <= 10000; t += 1000) {
		sent_a += rk_dcqcn_np_rx(&a, &p, 3, t);
		sent_b += rk_dcqcn_np_rx(&b, &p, 3, t + 1);
	}
	assert_int_equal(sent_a, expect);
	assert_int_equal(sent_b, expect);   /* per QP: a's CNPs do not hold back b's */
	assert_int_equal(a.ecn_marked, 10);
	assert_int_equal(a.cnp_sent, expect);
}

static void
test_np_interval(void **state)
{
	(void)state;
	np_run(4, 3);   /* at 1, 5, 9 us */
	np_run(50, 1);  /* at 1 us only */
	np_run(0, 10);  /* no suppression */
}

/* The pacer spaces sends at R_C: 1000-byte frames at 40 Gb/s are 200 ns apart. */
static void
test_pacer(void **state)
{
	struct rk_dcqcn_params p;
	struct rk_dcqcn_rp rp;
	uint64_t t = 0, prev = 0;

	(void)state;
	assert_int_equal(rk_dcqcn_profile("paper", &p), 0);
	rk_dcqcn_rp_init(&rp, &p, 40000);
	for (int i = 0; i < 10; i++) {
		rk_dcqcn_rp_sent(&rp, 1000, t);
		if (i > 0)
			assert_int_equal(t - prev, 200);
		prev = t;
		t = rp.next_send_ns;
	}
	/* Halved by a CNP: 400 ns. */
	rk_dcqcn_rp_cnp(&rp, t);
	rk_dcqcn_rp_sent(&rp, 1000, t);
	assert_int_equal(rp.next_send_ns - t, 400);
}

static void
test_params(void **state)
{
	struct rk_dcqcn_params p;

	(void)state;
	assert_int_equal(rk_dcqcn_profile("nope", &p), -ENOENT);
	assert_int_equal(rk_dcqcn_profile("paper", &p), 0);
	assert_int_equal(rk_dcqcn_param_set(&p, "rpg_ai_rate", "77"), 0);
	assert_int_equal(p.rpg_ai_rate, 77);
	assert_int_equal(rk_dcqcn_param_set(&p, "rpg_byte_reset", "123456789012"), 0);
	assert_int_equal(p.rpg_byte_reset, 123456789012ull);
	assert_int_equal(rk_dcqcn_param_set(&p, "cnp_dscp", "26"), 0);
	assert_int_equal(p.cnp_dscp, 26);
	assert_int_equal(rk_dcqcn_param_set(&p, "clamp_tgt_rate", "0"), 0);
	assert_false(p.clamp_tgt_rate);
	/* a number out of range and a value that is no number differ */
	assert_int_equal(rk_dcqcn_param_set(&p, "cnp_dscp", "64"), -ERANGE);
	assert_int_equal(rk_dcqcn_param_set(&p, "dce_tcp_g", "1025"), -ERANGE);
	assert_int_equal(rk_dcqcn_param_set(&p, "dce_tcp_g", "-1"), -ERANGE);
	assert_int_equal(rk_dcqcn_param_set(&p, "rpg_byte_reset", "99999999999999999999"), -ERANGE);
	assert_int_equal(rk_dcqcn_param_set(&p, "dce_tcp_g", "12x"), -EINVAL);
	assert_int_equal(rk_dcqcn_param_set(&p, "dce_tcp_g", "abc"), -EINVAL);
	assert_int_equal(rk_dcqcn_param_set(&p, "dce_tcp_g", ""), -EINVAL);
	assert_int_equal(rk_dcqcn_param_set(&p, "dce_tcp_g", "-"), -EINVAL);
	assert_int_equal(p.dce_tcp_g, 1020);     /* untouched by the refusals */
	assert_int_equal(rk_dcqcn_param_set(&p, "no_such", "1"), -ENOENT);
	{
		uint64_t lo = 9, hi = 9;

		assert_int_equal(rk_dcqcn_param_range("cnp_dscp", &lo, &hi), 0);
		assert_int_equal(lo, 0);
		assert_int_equal(hi, 63);
		assert_int_equal(rk_dcqcn_param_range("no_such", &lo, &hi), -ENOENT);
	}
}

struct trace_log {
	unsigned int n;
	uint64_t t[16], rc[16], rt[16];
	uint32_t alpha[16];
	enum rk_dcqcn_event ev[16];
};

static void
trace_cb(void *ctx, const struct rk_dcqcn_rp *rp, uint64_t now_ns, enum rk_dcqcn_event ev)
{
	struct trace_log *l = ctx;

	assert_true(l->n < 16);
	l->t[l->n] = now_ns;
	l->rc[l->n] = rp->rc_kbps;
	l->rt[l->n] = rp->rt_kbps;
	l->alpha[l->n] = RK_DCQCN_ALPHA_1024(rp->alpha);
	l->ev[l->n++] = ev;
}

/* The trace hook sees every event, in time order, with the state after it. */
static void
test_trace(void **state)
{
	struct trace_log l = { 0 };
	struct rk_dcqcn_params p;
	struct rk_dcqcn_rp rp;

	(void)state;
	assert_int_equal(rk_dcqcn_profile("paper", &p), 0);
	rk_dcqcn_rp_init(&rp, &p, 40000);
	rp.trace = trace_cb;
	rp.trace_ctx = &l;
	rk_dcqcn_rp_cnp(&rp, 0);
	rk_dcqcn_rp_cnp(&rp, 10000);
	rk_dcqcn_rp_timer(&rp, 55000);  /* alpha, then the increase timer (a tie) */
	assert_int_equal(l.n, 4);
	assert_int_equal(l.ev[0], RK_DCQCN_EV_CNP);
	assert_int_equal(l.rc[0], 20000000);
	assert_int_equal(l.ev[1], RK_DCQCN_EV_CNP_IGNORED);
	assert_int_equal(l.t[1], 10000);
	assert_int_equal(l.ev[2], RK_DCQCN_EV_ALPHA);
	assert_int_equal(l.alpha[2], 1024);
	assert_int_equal(l.ev[3], RK_DCQCN_EV_TIMER);
	assert_int_equal(l.t[3], 55000);
	assert_int_equal(l.rc[3], 30000000);
	assert_int_equal(l.rt[3], 40000000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rp_paper),
		cmocka_unit_test(test_rp_nvidia),
		cmocka_unit_test(test_alpha_decay),
		cmocka_unit_test(test_np_interval),
		cmocka_unit_test(test_pacer),
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_trace),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
