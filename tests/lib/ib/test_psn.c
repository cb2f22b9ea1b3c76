/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/wire/rk_psn.h: 24-bit modular PSN arithmetic. */
#include "rk_test.h"

#include "rk_psn.h"

static void
test_diff_basic(void **state)
{
	(void)state;
	assert_int_equal(rk_psn_diff(5, 3), 2);
	assert_int_equal(rk_psn_diff(3, 5), -2);
	assert_int_equal(rk_psn_diff(7, 7), 0);
}

static void
test_diff_wrap(void **state)
{
	(void)state;
	/* 0 is one after 0xFFFFFF (PSN-WRAP-01). */
	assert_int_equal(rk_psn_diff(0, 0xffffff), 1);
	assert_int_equal(rk_psn_diff(0xffffff, 0), -1);
	assert_int_equal(rk_psn_diff(1, 0xfffffe), 3);
	assert_int_equal(rk_psn_cmp(0, 0xffffff), 1);
	assert_int_equal(rk_psn_cmp(0xffffff, 1), -1);
}

static void
test_half_window(void **state)
{
	(void)state;
	/* PSN-HALF-01: 2^23 - 1 ahead is after; 2^23 away is before. */
	assert_int_equal(rk_psn_diff(0x7fffff, 0), 0x7fffff);
	assert_int_equal(rk_psn_diff(0x800000, 0), -0x800000);
	assert_int_equal(rk_psn_cmp(0x100 + 0x7fffff, 0x100), 1);
	assert_int_equal(rk_psn_cmp(0x100 + 0x800000, 0x100), -1);
	/* The high byte of a 32-bit input is ignored. */
	assert_int_equal(rk_psn_diff(0xff000005, 3), 2);
}

static void
test_add_sub(void **state)
{
	(void)state;
	assert_int_equal(rk_psn_add(0xffffff, 1), 0);
	assert_int_equal(rk_psn_add(0xfffffe, 5), 3);
	assert_int_equal(rk_psn_sub(0, 1), 0xffffff);
	assert_int_equal(rk_psn_sub(2, 5), 0xfffffd);
	for (uint32_t i = 0; i < 1000; i++) {
		uint32_t a = (uint32_t)rk_test_rand() & RK_PSN_MASK;
		uint32_t n = (uint32_t)rk_test_rand() % 0x7fffff;

		assert_int_equal(rk_psn_diff(rk_psn_add(a, n), a), (int32_t)n);
		assert_int_equal(rk_psn_diff(rk_psn_sub(a, n), a), -(int32_t)n);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diff_basic),
		cmocka_unit_test(test_diff_wrap),
		cmocka_unit_test(test_half_window),
		cmocka_unit_test(test_add_sub),
	};

	rk_test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
