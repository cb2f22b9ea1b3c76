/* SPDX-License-Identifier: BSD-3-Clause */
/* Extended header accessors, AETH syndrome decoding, credit and timer tables. */
#include "rk_test.h"

#include "rk_xeth.h"

struct acc {
	const struct rk_header_desc *desc;
	const char *key;
	uint64_t (*get)(const uint8_t *);
	void (*set)(uint8_t *, uint64_t);
};

#define ACC(h, k) \
	static uint64_t get_##h##_##k(const uint8_t *p) { return rk_##h##_##k(p); } \
	static void set_##h##_##k(uint8_t *p, uint64_t v) \
	{ rk_##h##_set_##k(p, (typeof(rk_##h##_##k(p)))v); }
ACC(reth, va) ACC(reth, r_key) ACC(reth, dma_len)
ACC(atmeth, va) ACC(atmeth, r_key) ACC(atmeth, swap_add) ACC(atmeth, compare)
ACC(aeth, syndrome) ACC(aeth, msn) ACC(atmack, orig_rem_dt) ACC(immdt, imm)
ACC(ieth, r_key) ACC(deth, q_key) ACC(deth, src_qp)
#undef ACC
#define E(h, k) { &rk_##h##_desc, #k, get_##h##_##k, set_##h##_##k }
static const struct acc accs[] = {
	E(reth, va), E(reth, r_key), E(reth, dma_len), E(atmeth, va), E(atmeth, r_key),
	E(atmeth, swap_add), E(atmeth, compare), E(aeth, syndrome), E(aeth, msn),
	E(atmack, orig_rem_dt), E(immdt, imm), E(ieth, r_key), E(deth, q_key),
	E(deth, src_qp),
};
#undef E

static void
test_accessors_match_tables(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(accs) / sizeof(accs[0]); i++) {
		const struct rk_header_desc *d = accs[i].desc;
		const struct rk_field *f = rk_header_field(d, accs[i].key);

		assert_non_null(f);
		for (int r = 0; r < 200; r++) {
			uint8_t h[32], ref[32];
			unsigned int w = rk_field_width(f);
			uint64_t v = rk_test_rand() & (w == 64 ? ~0ull : (1ull << w) - 1);

			rk_test_fill(h, d->len);
			memcpy(ref, h, d->len);
			assert_true(accs[i].get(h) == rk_field_get(f, h));
			accs[i].set(h, v);
			rk_field_set(f, ref, v);
			assert_memory_equal(h, ref, d->len);
			assert_true(accs[i].get(h) == v);
		}
	}
}

static void
test_unaligned_atomic_eth(void **state)
{
	/* AtomicETH sits 12 bytes after the BTH: 64-bit fields at 4-byte offsets. */
	uint8_t buf[64] = { 0 };
	uint8_t *h = buf + 13;

	(void)state;
	rk_atmeth_set_swap_add(h, 0x0102030405060708ull);
	assert_int_equal(h[12], 0x01);
	assert_int_equal(h[19], 0x08);
	assert_true(rk_atmeth_swap_add(h) == 0x0102030405060708ull);
	assert_int_equal(buf[13 + 11], 0);
	assert_int_equal(buf[13 + 20], 0);
}

static void
test_aeth_kinds(void **state)
{
	(void)state;
	assert_int_equal(rk_aeth_kind(0x00), RK_AETH_ACK);
	assert_int_equal(rk_aeth_kind(0x1f), RK_AETH_ACK);
	assert_int_equal(rk_aeth_kind(0x20), RK_AETH_RNR_NAK);
	assert_int_equal(rk_aeth_kind(0x3f), RK_AETH_RNR_NAK);
	assert_int_equal(rk_aeth_kind(0x40), RK_AETH_RESERVED);
	assert_int_equal(rk_aeth_kind(0x5f), RK_AETH_RESERVED);
	assert_int_equal(rk_aeth_kind(0x60), RK_AETH_NAK);
	assert_int_equal(rk_aeth_kind(0x7f), RK_AETH_NAK);
	assert_int_equal(rk_aeth_kind(0x80), RK_AETH_RESERVED);
	assert_string_equal(rk_aeth_nak_name(0x60), "PSN sequence error");
	assert_string_equal(rk_aeth_nak_name(0x62), "remote access error");
	assert_string_equal(rk_aeth_nak_name(0x65), "reserved");
}

static void
test_credit_table(void **state)
{
	static const int32_t want[31] = {
		0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384,
		512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384,
		24576, 32768,
	};

	(void)state;
	for (uint8_t c = 0; c < 31; c++) {
		assert_int_equal(rk_aeth_credits(c), want[c]);
		assert_int_equal(rk_aeth_credit_code((uint32_t)want[c]), c);
	}
	assert_int_equal(rk_aeth_credits(0x1f), -1);
	assert_int_equal(rk_aeth_credit_code(5), 4);
	assert_int_equal(rk_aeth_credit_code(100000), 30);
}

/*
 * Every free-RWQE count 0..2^16 (and a few past it) against the table:
 * the code is the largest one whose credits do not exceed the count.
 */
static void
test_credit_code_every_count(void **state)
{
	static const int32_t want[31] = {
		0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384,
		512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384,
		24576, 32768,
	};
	static const uint32_t big[] = { 65537, 100000, 1u << 20, 0x7fffffffu, UINT32_MAX };
	uint8_t code = 0;

	(void)state;
	for (uint32_t n = 0; n <= 65536; n++) {
		while (code < 30 && (uint32_t)want[code + 1] <= n)
			code++;
		if (rk_aeth_credit_code(n) != code)
			fail_msg("credits %u: code %u, want %u", n, rk_aeth_credit_code(n), code);
	}
	for (unsigned int i = 0; i < sizeof(big) / sizeof(big[0]); i++)
		assert_int_equal(rk_aeth_credit_code(big[i]), 30);
}

static void
test_rnr_timer_table(void **state)
{
	(void)state;
	assert_true(rk_rnr_timer_ns(0) == 655360000ull);
	assert_true(rk_rnr_timer_ns(1) == 10000ull);
	assert_true(rk_rnr_timer_ns(14) == 1280000ull);
	/* 61.44 ms (the spec), not rxe's 61.41 ms. */
	assert_true(rk_rnr_timer_ns(25) == 61440000ull);
	assert_true(rk_rnr_timer_ns(31) == 491520000ull);
	assert_true(rk_local_ack_timeout_ns(0) == 0);
	assert_true(rk_local_ack_timeout_ns(14) == 67108864ull);
	assert_true(rk_local_ack_timeout_ns(1) == 8192ull);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accessors_match_tables),
		cmocka_unit_test(test_unaligned_atomic_eth),
		cmocka_unit_test(test_aeth_kinds),
		cmocka_unit_test(test_credit_table),
		cmocka_unit_test(test_credit_code_every_count),
		cmocka_unit_test(test_rnr_timer_table),
	};

	rk_test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
