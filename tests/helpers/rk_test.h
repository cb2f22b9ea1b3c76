/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared test helpers: cmocka includes and a seeded PRNG. */
#ifndef RK_TEST_H
#define RK_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

/* xorshift64*: reproducible values for table tests; seed from RK_TEST_SEED. */
static uint64_t rk_test_rng_state = 0x9e3779b97f4a7c15ull;

static inline void
rk_test_seed(void)
{
	const char *s = getenv("RK_TEST_SEED");

	if (s != NULL)
		rk_test_rng_state = strtoull(s, NULL, 0) | 1;
}

static inline uint64_t
rk_test_rand(void)
{
	uint64_t x = rk_test_rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rk_test_rng_state = x;
	return x * 0x2545f4914f6cdd1dull;
}

static inline void
rk_test_fill(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)rk_test_rand();
}

#endif /* RK_TEST_H */
