/* SPDX-License-Identifier: BSD-3-Clause */
/* CRC-32 (ICRC) and CRC32c (MPA) known answers and chaining. */
#include "rk_test.h"

#include "rk_crc.h"

static void
test_crc32_check_value(void **state)
{
	(void)state;
	assert_int_equal(rk_crc32("123456789", 9), 0xcbf43926u);
	assert_int_equal(rk_crc32("", 0), 0);
}

static void
test_crc32c_check_value(void **state)
{
	static const uint8_t zeros[32];
	uint8_t ones[32], inc[32];

	(void)state;
	assert_int_equal(rk_crc32c("123456789", 9), 0xe3069283u);
	/* RFC 3720 B.4 test vectors. */
	memset(ones, 0xff, sizeof(ones));
	for (int i = 0; i < 32; i++)
		inc[i] = (uint8_t)i;
	assert_int_equal(rk_crc32c(zeros, 32), 0x8a9136aau);
	assert_int_equal(rk_crc32c(ones, 32), 0x62a8ab43u);
	assert_int_equal(rk_crc32c(inc, 32), 0x46dd794eu);
}

static void
test_chaining_equals_one_shot(void **state)
{
	uint8_t buf[4096];

	(void)state;
	rk_test_fill(buf, sizeof(buf));
	for (int i = 0; i < 200; i++) {
		size_t a = rk_test_rand() % sizeof(buf);
		size_t b = a + rk_test_rand() % (sizeof(buf) - a + 1);
		rk_crc32_state s = rk_crc32_init();
		rk_crc32c_state c = rk_crc32c_init();

		s = rk_crc32_update(s, buf, a);
		s = rk_crc32_update(s, buf + a, b - a);
		s = rk_crc32_update(s, buf + b, sizeof(buf) - b);
		c = rk_crc32c_update(c, buf, a);
		c = rk_crc32c_update(c, buf + a, b - a);
		c = rk_crc32c_update(c, buf + b, sizeof(buf) - b);
		assert_int_equal(rk_crc32_final(s), rk_crc32(buf, sizeof(buf)));
		assert_int_equal(rk_crc32c_final(c), rk_crc32c(buf, sizeof(buf)));
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32_check_value),
		cmocka_unit_test(test_crc32c_check_value),
		cmocka_unit_test(test_chaining_equals_one_shot),
	};

	rk_test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
