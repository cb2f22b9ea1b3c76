/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/gen's scheduler: the gap a rate gives, two streams merged in time
 * order with their frame counts, bursts and on/off periods at the times
 * they ask for, a stream that cannot be compiled named in one line, a
 * frame written over its template's earlier one, and the streams a port
 * gets.
 */
#include "rk_test.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rk_gen_sched.h"
#include "rk_gen_stream.h"

static void
cfg(struct rk_gen_cfg *c, const char *name, uint64_t count, double pps)
{
	rk_gen_cfg_init(c);
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->count = count;
	c->count_set = true;
	c->rate_unit = RK_GEN_RATE_PPS;
	c->rate = pps;
}

static void
test_gap(void **state)
{
	(void)state;
	assert_float_equal(rk_gen_gap_ns(RK_GEN_RATE_PPS, 1e6, 100, 100e9), 1000.0, 1e-9);
	/* 100 bytes + 24 of FCS, preamble and gap: 992 bits, at 1 Gbit/s */
	assert_float_equal(rk_gen_gap_ns(RK_GEN_RATE_BPS, 1e9, 100, 100e9), 992.0, 1e-9);
	/* 10% of 10 Gbit/s is 1 Gbit/s */
	assert_float_equal(rk_gen_gap_ns(RK_GEN_RATE_PERCENT, 10, 100, 10e9), 992.0, 1e-9);
	assert_float_equal(rk_gen_gap_ns(RK_GEN_RATE_NONE, 0, 100, 10e9), 1000.0, 1e-9);
}

static void
test_merge(void **state)
{
	struct rk_gen_cfg c[2];
	struct rk_gen_sched s;
	struct rk_gen_live *m;
	char err[256];
	/* A: 5 frames at 1 kpps (0..4 ms), B: 3 at 500 pps (0, 2, 4 ms); a tie goes to A */
	static const char want_who[] = "ABAABAAB";
	static const double want_t[] = { 0, 0, 1e6, 2e6, 2e6, 3e6, 4e6, 4e6 };
	unsigned int n = 0;

	(void)state;
	cfg(&c[0], "A", 5, 1000);
	cfg(&c[1], "B", 3, 500);
	assert_int_equal(rk_gen_sched_init(&s, c, 2, 100e9, err, sizeof(err)), 0);
	assert_int_equal(s.n, 2);
	while ((m = rk_gen_sched_peek(&s)) != NULL) {
		assert_true(n < 8);
		assert_int_equal(m->name[0], want_who[n]);
		assert_float_equal(m->t_ns, want_t[n], 1e-3);
		assert_true(m->f.len > 0);
		n++;
		rk_gen_sched_advance(&s, m);
	}
	assert_int_equal(n, 8);
	assert_false(s.failed);
	rk_gen_sched_fini(&s);
}

static void
test_burst_and_on_off(void **state)
{
	struct rk_gen_cfg c;
	struct rk_gen_sched s;
	struct rk_gen_live *m;
	char err[256];
	/* 1 Mpps in bursts of 2 frames, 10 us between bursts */
	static const double burst_t[] = { 0, 1000, 12000, 13000, 24000, 25000 };
	/* 1 Mpps, on 3 us, off 5 us: 3 frames per 8 us */
	static const double on_off_t[] = { 0, 1000, 2000, 8000, 9000, 10000, 16000 };
	unsigned int n = 0;

	(void)state;
	cfg(&c, "burst", 6, 1e6);
	c.burst_frames = 2;
	c.burst_gap_us = 10;
	assert_int_equal(rk_gen_sched_init(&s, &c, 1, 100e9, err, sizeof(err)), 0);
	while ((m = rk_gen_sched_peek(&s)) != NULL) {
		assert_true(n < 6);
		assert_float_equal(m->t_ns, burst_t[n], 1e-3);
		n++;
		rk_gen_sched_advance(&s, m);
	}
	assert_int_equal(n, 6);
	rk_gen_sched_fini(&s);

	cfg(&c, "on-off", 7, 1e6);
	c.on_us = 3;
	c.off_us = 5;
	n = 0;
	assert_int_equal(rk_gen_sched_init(&s, &c, 1, 100e9, err, sizeof(err)), 0);
	while ((m = rk_gen_sched_peek(&s)) != NULL) {
		assert_true(n < 7);
		assert_float_equal(m->t_ns, on_off_t[n], 1e-3);
		n++;
		rk_gen_sched_advance(&s, m);
	}
	assert_int_equal(n, 7);
	rk_gen_sched_fini(&s);
}

static void
test_bad_stream(void **state)
{
	struct rk_gen_cfg c[2];
	struct rk_gen_sched s;
	char err[256] = "";

	(void)state;
	cfg(&c[0], "good", 1, 1000);
	cfg(&c[1], "short", 1, 1000);
	c[1].seq = true;        /* the slot needs 16 payload bytes */
	c[1].payload_len = 4;
	assert_int_equal(rk_gen_sched_init(&s, c, 2, 100e9, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "stream 'short': field '"));
	assert_null(strchr(err, '\n'));
	assert_int_equal(s.n, 1); /* the good one, freed here */
	rk_gen_sched_fini(&s);
}

/* Only the changing bytes written, in words that stay within the frame;
 * another length (or none) held: the whole frame. */
static void
test_frame_copy(void **state)
{
	static const struct rk_gen_range dirty[] = { { .off = 3, .len = 2 }, { .off = 12, .len = 12 },
						     { .off = 37, .len = 3 } };
	uint8_t now[40], dst[48];
	struct rk_gen_frame f = { .data = now, .len = 40, .tmpl = 0, .dirty = dirty, .ndirty = 3 };

	(void)state;
	for (int i = 0; i < 40; i++)
		now[i] = (uint8_t)i;
	memcpy(dst, now, 40);
	memset(dst + 40, 0xee, 8);                  /* past the frame: never written */
	dst[3] = dst[4] = dst[12] = dst[23] = dst[37] = dst[39] = 0xaa; /* the earlier frame's changing bytes */
	rk_gen_frame_copy(dst, 40, &f);
	assert_memory_equal(dst, now, 40);
	for (int i = 40; i < 48; i++)
		assert_int_equal(dst[i], 0xee);
	/* held another length: everything is written */
	memset(dst, 0, 40);
	rk_gen_frame_copy(dst, 58, &f);
	assert_memory_equal(dst, now, 40);
	assert_int_equal(dst[40], 0xee);
}

/* Each port gets the streams named for it and those named for none. */
static void
test_init_port(void **state)
{
	struct rk_gen_cfg c[3];
	struct rk_gen_sched s;
	char err[256];
	static const struct {
		uint32_t port, n;
		const char *names;
	} want[] = { { 0, 2, "AC" }, { 1, 2, "BC" }, { 2, 2, "BC" }, { 5, 1, "C" }, { 9, 1, "C" } };

	(void)state;
	cfg(&c[0], "A", 5, 1000);
	cfg(&c[1], "B", 5, 1000);
	cfg(&c[2], "C", 5, 1000);
	c[0].ports = 1u << 0;
	c[1].ports = (1u << 1) | (1u << 2);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char got[4] = "";

		assert_int_equal(rk_gen_sched_init_port(&s, c, 3, want[i].port, 100e9, err,
							sizeof(err)), 0);
		assert_int_equal(s.n, want[i].n);
		for (uint32_t k = 0; k < s.n; k++)
			got[k] = s.lv[k].name[0];
		assert_string_equal(got, want[i].names);
		rk_gen_sched_fini(&s);
	}
	/* the copies are the schedule's: the caller's may go */
	c[1].ports = 1u << 6;
	assert_int_equal(rk_gen_sched_init_port(&s, c, 3, 6, 100e9, err, sizeof(err)), 0);
	memset(c, 0, sizeof(c));
	assert_string_equal(s.lv[0].name, "B");
	assert_non_null(rk_gen_sched_peek(&s));
	rk_gen_sched_fini(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gap),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_burst_and_on_off),
		cmocka_unit_test(test_bad_stream),
		cmocka_unit_test(test_frame_copy),
		cmocka_unit_test(test_init_port),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
