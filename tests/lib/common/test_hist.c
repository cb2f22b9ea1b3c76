/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of lib/common/rk_hist.c: the quantiles of the log-linear
 * histogram, its sparse form giving the same answers from rows
 * allocated only where values fell, and two merged answering as one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rk_hist.h"

static const uint32_t quantiles[] = { 0, 1, 25000, 50000, 90000, 99000, 99900, 99999, 100000 };

static unsigned int
rows_held(const struct rk_hist_sparse *h)
{
	unsigned int n = 0;

	for (unsigned int r = 0; r < RK_HIST_ROWS; r++)
		n += h->row[r] != NULL;
	return n;
}

/* Exact below 256 ns; above, the top of a bucket under 1/128 wide. */
static void
test_quantiles(void **state)
{
	struct rk_hist h;

	(void)state;
	rk_hist_init(&h);
	assert_int_equal(rk_hist_quantile(&h, 50000), 0);
	for (uint64_t v = 1; v <= 100; v++)
		rk_hist_add(&h, v);
	assert_int_equal(rk_hist_quantile(&h, 50000), 50);
	assert_int_equal(rk_hist_quantile(&h, 99000), 99);
	assert_int_equal(rk_hist_quantile(&h, 100000), 100);
	assert_int_equal(rk_hist_quantile(&h, 100001), 0);
	rk_hist_init(&h);
	rk_hist_add(&h, 20000);
	rk_hist_add(&h, 20001);
	rk_hist_add(&h, 40000);
	/* 20000 and 20001 share the bucket [19968, 20095]: its top, clamped to max. */
	assert_int_equal(rk_hist_quantile(&h, 50000), 20095);
	assert_int_equal(rk_hist_quantile(&h, 100000), 40000);
	assert_int_equal(h.min_ns, 20000);
	assert_int_equal(h.sum_ns, 80001);
}

/* The sparse form answers as the dense one, over values of every magnitude. */
static void
test_sparse_matches_dense(void **state)
{
	struct rk_hist *d = calloc(1, sizeof(*d));
	struct rk_hist_sparse s = { 0 };
	uint64_t x = 0x9e3779b97f4a7c15ull;

	(void)state;
	assert_non_null(d);
	for (unsigned int round = 0; round < 3; round++) {
		for (unsigned int i = 0; i < 20000; i++) {
			uint64_t v;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* A magnitude from 0 to 2^45 ns (past the last row), then a mantissa. */
			v = (x >> 20) & ((1ull << (x % 46)) - 1);
			rk_hist_add(d, v);
			assert_int_equal(rk_hist_sparse_add(&s, v), 0);
		}
		assert_int_equal(s.count, d->count);
		assert_int_equal(s.min_ns, d->min_ns);
		assert_int_equal(s.max_ns, d->max_ns);
		assert_int_equal(s.sum_ns, d->sum_ns);
		for (size_t q = 0; q < sizeof(quantiles) / sizeof(quantiles[0]); q++)
			assert_int_equal(rk_hist_sparse_quantile(&s, quantiles[q]),
					 rk_hist_quantile(d, quantiles[q]));
	}
	rk_hist_sparse_fini(&s);
	assert_int_equal(s.count, 0);
	assert_int_equal(rows_held(&s), 0);
	free(d);
}

/* Values in one power of two take one row; an empty histogram none. */
static void
test_sparse_rows_follow_values(void **state)
{
	struct rk_hist_sparse s = { 0 };

	(void)state;
	assert_int_equal(rk_hist_sparse_quantile(&s, 50000), 0);
	for (uint64_t v = 4096; v < 8192; v += 3)
		assert_int_equal(rk_hist_sparse_add(&s, v), 0);
	assert_int_equal(rows_held(&s), 1);
	assert_int_equal(rk_hist_sparse_quantile(&s, 100000), 8191);
	/* An RTT of microseconds and an outlier of seconds: two rows more. */
	assert_int_equal(rk_hist_sparse_add(&s, 3000), 0);
	assert_int_equal(rk_hist_sparse_add(&s, 2000000000ull), 0);
	assert_int_equal(rows_held(&s), 3);
	assert_int_equal(rk_hist_sparse_quantile(&s, 100000), 2000000000ull);
	/* 3000 lies in the 16-ns bucket [2992, 3007]: its top. */
	assert_int_equal(rk_hist_sparse_quantile(&s, 1), 3007);
	rk_hist_sparse_fini(&s);
}

/* Two histograms merged answer as one that took both's values. */
static void
test_merge(void **state)
{
	struct rk_hist a, b, both;

	(void)state;
	rk_hist_init(&a);
	rk_hist_init(&b);
	rk_hist_init(&both);
	rk_hist_merge(&a, &b);                  /* empty into empty */
	assert_int_equal(a.count, 0);
	assert_int_equal(a.min_ns, 0);
	for (uint64_t v = 500; v <= 900; v += 4) {
		rk_hist_add(&a, v);
		rk_hist_add(&both, v);
	}
	for (uint64_t v = 7; v <= 20000; v += 333) {
		rk_hist_add(&b, v);
		rk_hist_add(&both, v);
	}
	rk_hist_merge(&a, &b);
	assert_int_equal(a.count, both.count);
	assert_int_equal(a.min_ns, 7);
	assert_int_equal(a.max_ns, both.max_ns);
	assert_int_equal(a.sum_ns, both.sum_ns);
	for (size_t i = 0; i < sizeof(quantiles) / sizeof(quantiles[0]); i++)
		assert_int_equal(rk_hist_quantile(&a, quantiles[i]),
				 rk_hist_quantile(&both, quantiles[i]));
	rk_hist_init(&b);
	rk_hist_merge(&b, &a);                  /* into empty: its minimum taken */
	assert_int_equal(b.min_ns, 7);
	assert_int_equal(b.count, both.count);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quantiles),
		cmocka_unit_test(test_sparse_matches_dense),
		cmocka_unit_test(test_sparse_rows_follow_values),
		cmocka_unit_test(test_merge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
