/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The conformance catalog against rdmakit's own engine, in process on a
 * virtual clock: every case passes (the in-process DUT offers all that
 * the RoCEv2 cases need, so none may be not-applicable), each case has a
 * unique ID and a rule, every wait is bounded (a DUT that never answers,
 * frames or stream,
 * one that sends garbage without end and one whose link fails all get
 * verdicts), and the Markdown catalog lists every case.
 */
#include "rk_test.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>

#include "rk_conform.h"
#include "rk_conform_self.h"

static void
test_catalog_well_formed(void **state)
{
	unsigned int n;
	const struct rk_conform_case *c = rk_conform_cases(&n);

	(void)state;
	assert_true(n >= 60);
	for (unsigned int i = 0; i < n; i++) {
		assert_non_null(c[i].id);
		assert_non_null(c[i].run);
		assert_true(strlen(c[i].rule) > 4);
		assert_true(strlen(c[i].must) > 10);
		for (unsigned int j = 0; j < i; j++)
			assert_string_not_equal(c[i].id, c[j].id);
	}
}

static void
test_all_pass_against_self(void **state)
{
	struct rk_conform_env env;
	struct rk_conform_self *s = rk_conform_self_create(&env);
	unsigned int n, failed = 0;
	const struct rk_conform_case *c = rk_conform_cases(&n);
	const char *only = getenv("CONFORM_ONLY");

	(void)state;
	assert_non_null(s);
	for (unsigned int i = 0; i < n; i++) {
		struct rk_conform_result res;

		if (only != NULL && fnmatch(only, c[i].id, 0) != 0)
			continue;
		assert_int_equal(rk_conform_run_case(&env, &c[i], &res), 0);
		if (res.verdict != RK_CONFORM_PASS) {
			printf("# %-30s %-4s %s\n", c[i].id, rk_conform_verdict_name(res.verdict),
			       res.reason);
			failed++;
		}
		/* Bounded: a handful of 50 ms waits at most. */
		assert_true(res.elapsed_ns < 2000000000ull);
		assert_true(res.frames_tx >= 1);
	}
	rk_conform_self_destroy(s);
	assert_int_equal(failed, 0);
}

/* The iw.* cases with a pause after each MPA Reply (a live DUT's
 * iw_settle_ns): what comes in it is read, and every case still passes. */
static void
test_iw_settle_against_self(void **state)
{
	struct rk_conform_env env;
	struct rk_conform_self *s = rk_conform_self_create(&env);
	unsigned int n, ran = 0;
	const struct rk_conform_case *c = rk_conform_cases(&n);

	(void)state;
	assert_non_null(s);
	env.iw_settle_ns = 20000000ull;
	for (unsigned int i = 0; i < n; i++) {
		struct rk_conform_result res;

		if (c[i].transport != RK_CONFORM_IWARP)
			continue;
		assert_int_equal(rk_conform_run_case(&env, &c[i], &res), 0);
		if (res.verdict != RK_CONFORM_PASS)
			printf("# %-30s %-4s %s\n", c[i].id, rk_conform_verdict_name(res.verdict),
			       res.reason);
		assert_int_equal(res.verdict, RK_CONFORM_PASS);
		ran++;
	}
	rk_conform_self_destroy(s);
	assert_true(ran >= 28);
}

/* --cases: shell globs separated by commas. */
static void
test_id_match(void **state)
{
	(void)state;
	assert_true(rk_conform_id_match(NULL, "rc.psn.ahead"));
	assert_true(rk_conform_id_match("iw.ddp.*,iw.rdmap.*", "iw.ddp.qn_wrong"));
	assert_true(rk_conform_id_match("iw.ddp.*,iw.rdmap.*", "iw.rdmap.version"));
	assert_false(rk_conform_id_match("iw.ddp.*,iw.rdmap.*", "iw.mpa.key_bad"));
	assert_true(rk_conform_id_match("iw.mpa.[!r]*", "iw.mpa.key_bad"));
	assert_false(rk_conform_id_match("iw.mpa.[!r]*", "iw.mpa.rtr_wrong"));
	assert_true(rk_conform_id_match(",,rc.bth.pkey,", "rc.bth.pkey"));
	assert_false(rk_conform_id_match("", "rc.bth.pkey"));
	assert_false(rk_conform_id_match(",", "rc.bth.pkey"));
}

/* A DUT that never answers: every case ends, none passes by silence alone
 * unless it expects silence and then a working QP (which it cannot get). */
static uint64_t mute_now;

static int
mute_tx(void *io, const uint8_t *f, uint32_t len)
{
	(void)io; (void)f; (void)len;
	return 0;
}

static int
mute_rx(void *io, uint8_t *buf, uint32_t cap)
{
	(void)io; (void)buf; (void)cap;
	mute_now += 1000000;
	return 0;
}

static uint64_t
mute_clock(void *io)
{
	(void)io;
	return mute_now;
}

static const struct rk_io_ops mute_ops = {
	.name = "mute", .tx = mute_tx, .rx = mute_rx, .now_ns = mute_clock,
};

static int
mute_setup(void *ctx, const struct rk_conform_need *need, struct rk_conform_dut *dut,
	   char *why, size_t why_len)
{
	(void)ctx; (void)need; (void)why; (void)why_len;
	*dut = (struct rk_conform_dut){ .qpn = 0x12, .epsn = 100, .pmtu = 1024, .va = 0x10000,
					.r_key = 0x1234, .len = 65536, .ro_va = 0x40000,
					.ro_r_key = 0x77, .ro_len = 4096, .recv_len = 256,
					.q_key = 1, .min_rnr_timer = 0xff, .access = RK_CONFORM_ACC_ALL | RK_CONFORM_ACC_NO_RECV };
	return 0;
}

static void
test_silent_dut_bounded(void **state)
{
	struct rk_conform_env env = { .ops = &mute_ops, .setup = mute_setup,
				      .timeout_ns = 20000000 };
	unsigned int n, passed = 0, silent_ok = 0;
	const struct rk_conform_case *c = rk_conform_cases(&n);

	(void)state;
	for (unsigned int i = 0; i < n; i++) {
		struct rk_conform_result res;

		assert_int_equal(rk_conform_run_case(&env, &c[i], &res), 0);
		assert_true(res.elapsed_ns <= 64ull * 21000000ull);
		if (res.verdict == RK_CONFORM_PASS) {
			passed++;
			/* Only cases that expect nothing at all on the wire may pass. */
			if (strncmp(c[i].id, "uc.", 3) == 0 || strncmp(c[i].id, "ud.", 3) == 0 ||
			    strstr(c[i].id, "later_dropped") != NULL)
				silent_ok++;
		}
	}
	assert_int_equal(passed, silent_ok);
	assert_true(passed < 10);
}

/* A DUT that answers garbage without end: still a verdict per case. */
static int
babble_rx(void *io, uint8_t *buf, uint32_t cap)
{
	(void)io;
	mute_now += 10000;
	memset(buf, 0xa5, cap < 60 ? cap : 60);
	return cap < 60 ? (int)cap : 60;
}

static const struct rk_io_ops babble_ops = {
	.name = "babble", .tx = mute_tx, .rx = babble_rx, .now_ns = mute_clock,
};

/* A DUT whose link went: every read fails. */
static int
reset_rx(void *io, uint8_t *buf, uint32_t cap)
{
	(void)io; (void)buf; (void)cap;
	mute_now += 1000;
	return -ECONNRESET;
}

static const struct rk_io_ops reset_ops = {
	.name = "reset", .tx = mute_tx, .rx = reset_rx, .now_ns = mute_clock,
};

static void
test_babbling_and_reset_dut_bounded(void **state)
{
	struct rk_conform_env env = { .ops = &babble_ops, .setup = mute_setup,
				      .timeout_ns = 20000000 };
	unsigned int n, passed = 0;
	const struct rk_conform_case *c = rk_conform_cases(&n);

	(void)state;
	for (unsigned int i = 0; i < n; i++) {
		struct rk_conform_result res;

		assert_int_equal(rk_conform_run_case(&env, &c[i], &res), 0);
		assert_true(res.elapsed_ns <= 64ull * 21000000ull);
		assert_true(res.frames_rx > 0 || res.verdict == RK_CONFORM_NA);
		passed += res.verdict == RK_CONFORM_PASS;
	}
	assert_true(passed < 10);
	env.ops = &reset_ops;
	for (unsigned int i = 0; i < n; i++) {
		struct rk_conform_result res;

		assert_int_equal(rk_conform_run_case(&env, &c[i], &res), 0);
		if (res.verdict == RK_CONFORM_FAIL)
			assert_non_null(strstr(res.reason, "receive failed"));
		else
			assert_int_equal(res.verdict, RK_CONFORM_NA);
	}
}

/* An iWARP DUT whose stream takes everything and never answers: every
 * iw.* case ends in bounded time and none passes (no MPA Reply, no close). */
static int
mute_write(void *ctx, const uint8_t *b, size_t n)
{
	(void)ctx; (void)b; (void)n;
	return 0;
}

static int
mute_read(void *ctx, uint8_t *b, size_t cap)
{
	(void)ctx; (void)b; (void)cap;
	mute_now += 1000000;
	return 0;
}

static const struct rk_conform_stream_ops mute_stream = { .write = mute_write,
							  .read = mute_read };

static void
test_silent_stream_bounded(void **state)
{
	struct rk_conform_env env = { .ops = &mute_ops, .setup = mute_setup,
				      .stream = &mute_stream, .timeout_ns = 20000000 };
	unsigned int n, ran = 0;
	const struct rk_conform_case *c = rk_conform_cases(&n);

	(void)state;
	for (unsigned int i = 0; i < n; i++) {
		struct rk_conform_result res;

		if (c[i].transport != RK_CONFORM_IWARP)
			continue;
		assert_int_equal(rk_conform_run_case(&env, &c[i], &res), 0);
		assert_true(res.elapsed_ns <= 64ull * 21000000ull);
		/* n/a only where the DUT lacks what the case needs (peer-to-peer RTR). */
		assert_int_not_equal(res.verdict, RK_CONFORM_PASS);
		ran += res.verdict == RK_CONFORM_FAIL;
	}
	assert_true(ran >= 15);
}

static void
test_markdown_lists_all(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	unsigned int n;
	const struct rk_conform_case *c = rk_conform_cases(&n);

	(void)state;
	assert_int_equal(rk_conform_markdown(f, NULL), (int)n);
	fclose(f);
	for (unsigned int i = 0; i < n; i++)
		assert_non_null(strstr(buf, c[i].id));
	free(buf);
	f = open_memstream(&buf, &len);
	assert_true(rk_conform_markdown(f, "rc.psn.*") >= 5);
	fclose(f);
	assert_null(strstr(buf, "ud.qkey"));
	free(buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_catalog_well_formed),
		cmocka_unit_test(test_all_pass_against_self),
		cmocka_unit_test(test_iw_settle_against_self),
		cmocka_unit_test(test_id_match),
		cmocka_unit_test(test_silent_dut_bounded),
		cmocka_unit_test(test_babbling_and_reset_dut_bounded),
		cmocka_unit_test(test_silent_stream_bounded),
		cmocka_unit_test(test_markdown_lists_all),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
