/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of lib/analysis/rk_insp_pool.c: block sizes, zeroed blocks new and
 * reused, classes kept apart, chunks past the first, and fini.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rk_insp_pool.h"

static bool
all_zero(const void *b, size_t n)
{
	const unsigned char *p = b;

	for (size_t i = 0; i < n; i++)
		if (p[i] != 0)
			return false;
	return true;
}

static void
test_sizes(void **state)
{
	struct rk_insp_pool p = { 0 };
	const size_t bad[] = { 0, 1, 8, 24, 48, 1000, (size_t)RK_INSP_POOL_MIN << RK_INSP_POOL_CLASSES };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_null(rk_insp_pool_alloc(&p, bad[i]));
	assert_int_equal(p.bytes, 0);
	for (unsigned int c = 0; c < RK_INSP_POOL_CLASSES; c++) {
		size_t n = (size_t)RK_INSP_POOL_MIN << c;
		unsigned char *b = rk_insp_pool_alloc(&p, n);

		assert_non_null(b);
		assert_true(all_zero(b, n));
		assert_int_equal((uintptr_t)b % RK_INSP_POOL_MIN, 0);
		memset(b, 0xa5, n);
	}
	rk_insp_pool_fini(&p);
	assert_int_equal(p.bytes, 0);
	assert_null(p.chunks);
}

/* A freed block comes back zeroed for its own size only. */
static void
test_reuse(void **state)
{
	struct rk_insp_pool p = { 0 };
	unsigned char *a, *b, *c;

	(void)state;
	a = rk_insp_pool_alloc(&p, 256);
	assert_non_null(a);
	memset(a, 0xff, 256);
	rk_insp_pool_free(&p, a, 256);
	b = rk_insp_pool_alloc(&p, 512);
	assert_ptr_not_equal(b, a);
	c = rk_insp_pool_alloc(&p, 256);
	assert_ptr_equal(c, a);
	assert_true(all_zero(c, 256));
	rk_insp_pool_free(&p, NULL, 256); /* nothing */
	rk_insp_pool_free(&p, c, 100);    /* no such size: kept out of the lists */
	assert_ptr_not_equal(rk_insp_pool_alloc(&p, 256), c);
	rk_insp_pool_fini(&p);
}

/* Blocks past the first chunk come from new ones, all distinct and writable. */
static void
test_chunks(void **state)
{
	struct rk_insp_pool p = { 0 };
	const size_t n = (size_t)RK_INSP_POOL_MIN << (RK_INSP_POOL_CLASSES - 1);
	const unsigned int count = 3 * RK_INSP_POOL_CHUNK / n;
	unsigned char **b = calloc(count, sizeof(*b));

	(void)state;
	assert_non_null(b);
	for (unsigned int i = 0; i < count; i++) {
		b[i] = rk_insp_pool_alloc(&p, n);
		assert_non_null(b[i]);
		assert_true(all_zero(b[i], n));
		memset(b[i], (int)(i + 1), n);
	}
	assert_true(p.bytes >= 3 * (size_t)RK_INSP_POOL_CHUNK);
	for (unsigned int i = 0; i < count; i++) {
		assert_int_equal(b[i][0], (unsigned char)(i + 1));
		assert_int_equal(b[i][n - 1], (unsigned char)(i + 1));
	}
	rk_insp_pool_fini(&p);
	assert_int_equal(p.bytes, 0);
	free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_reuse),
		cmocka_unit_test(test_chunks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
