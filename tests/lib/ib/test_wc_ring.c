/* SPDX-License-Identifier: BSD-3-Clause */
/* The completion ring both engines' CQs use. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rk_wc_ring.h"

/* Completions come out in order across many trips round a ring of 3. */
static void
test_order_across_wraps(void **state)
{
	struct rk_wc_ring r;
	struct rk_wc wc = { 0 }, out[4];
	uint64_t next_in = 0, next_out = 0;

	(void)state;
	assert_int_equal(rk_wc_ring_init(&r, 3), 0);
	for (int round = 0; round < 1000; round++) {
		int push = 1 + round % 3, n;

		for (int i = 0; i < push; i++) {
			wc.wr_id = next_in++;
			assert_true(rk_wc_ring_push(&r, &wc));
		}
		assert_int_equal(rk_wc_ring_count(&r), (uint32_t)push);
		n = rk_wc_ring_poll(&r, 4, out);
		assert_int_equal(n, push);
		for (int i = 0; i < n; i++)
			assert_int_equal(out[i].wr_id, next_out++);
	}
	assert_int_equal(rk_wc_ring_poll(&r, 4, out), 0);
	rk_wc_ring_fini(&r);
}

/* A full ring loses the new completion and every later poll fails. */
static void
test_overrun_is_sticky(void **state)
{
	struct rk_wc_ring r;
	struct rk_wc wc = { .wr_id = 7 }, out[4];

	(void)state;
	assert_int_equal(rk_wc_ring_init(&r, 2), 0);
	assert_true(rk_wc_ring_push(&r, &wc));
	assert_true(rk_wc_ring_push(&r, &wc));
	assert_false(rk_wc_ring_push(&r, &wc));
	assert_int_equal(rk_wc_ring_count(&r), 2);
	assert_int_equal(rk_wc_ring_poll(&r, 4, out), -EOVERFLOW);
	assert_int_equal(rk_wc_ring_poll(&r, 0, out), -EOVERFLOW);
	rk_wc_ring_fini(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_across_wraps),
		cmocka_unit_test(test_overrun_is_sticky),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
