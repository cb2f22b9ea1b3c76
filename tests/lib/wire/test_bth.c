/* SPDX-License-Identifier: BSD-3-Clause */
/* BTH accessors agree with the field table, keep neighbours, and round-trip. */
#include "rk_test.h"

#include "rk_bth.h"

struct bth_acc {
	const char *key;
	uint64_t (*get)(const uint8_t *);
	void (*set)(uint8_t *, uint64_t);
};

#define ACC(k) \
	static uint64_t get_##k(const uint8_t *b) { return rk_bth_##k(b); } \
	static void set_##k(uint8_t *b, uint64_t v) { rk_bth_set_##k(b, (typeof(rk_bth_##k(b)))v); }
ACC(opcode) ACC(se) ACC(mig_req) ACC(pad_cnt) ACC(tver) ACC(p_key) ACC(fecn) ACC(becn)
ACC(resv6a) ACC(dest_qp) ACC(ack_req) ACC(resv7) ACC(psn)
#undef ACC
#define E(k) { #k, get_##k, set_##k }
static const struct bth_acc accs[] = {
	E(opcode), E(se), E(mig_req), E(pad_cnt), E(tver), E(p_key), E(fecn), E(becn),
	E(resv6a), E(dest_qp), E(ack_req), E(resv7), E(psn),
};
#undef E

static void
test_accessors_match_table(void **state)
{
	(void)state;
	assert_int_equal(sizeof(accs) / sizeof(accs[0]), rk_bth_desc.nfields);
	for (size_t i = 0; i < sizeof(accs) / sizeof(accs[0]); i++) {
		const struct rk_field *f = rk_header_field(&rk_bth_desc, accs[i].key);

		assert_non_null(f);
		for (int r = 0; r < 200; r++) {
			uint8_t b[RK_BTH_LEN], before[RK_BTH_LEN], ref[RK_BTH_LEN];
			uint64_t v = rk_test_rand() & ((1ull << rk_field_width(f)) - 1);

			rk_test_fill(b, sizeof(b));
			memcpy(before, b, sizeof(b));
			memcpy(ref, b, sizeof(b));
			/* Reading agrees with the descriptor on random bytes. */
			assert_true(accs[i].get(b) == rk_field_get(f, b));
			/* Setting through the accessor equals setting through the table. */
			accs[i].set(b, v);
			rk_field_set(f, ref, v);
			assert_memory_equal(b, ref, sizeof(b));
			assert_true(accs[i].get(b) == v);
			/* All other fields unchanged. */
			for (size_t j = 0; j < rk_bth_desc.nfields; j++)
				if (&rk_bth_desc.fields[j] != f)
					assert_true(rk_field_get(&rk_bth_desc.fields[j], b) ==
						    rk_field_get(&rk_bth_desc.fields[j], before));
		}
	}
}

static void
test_pack_unpack_round_trip(void **state)
{
	(void)state;
	for (int r = 0; r < 500; r++) {
		uint8_t b[RK_BTH_LEN], b2[RK_BTH_LEN];
		struct rk_bth_fields f;

		rk_test_fill(b, sizeof(b));
		rk_bth_unpack(b, &f);
		rk_bth_pack(b2, &f);
		assert_memory_equal(b, b2, sizeof(b));
	}
}

static void
test_known_bytes(void **state)
{
	/* RC SEND Only, SE, PadCnt 2, P_Key 0xffff, DestQP 0x000011, AckReq, PSN 0xabcdef */
	const uint8_t b[RK_BTH_LEN] = { 0x04, 0xa0, 0xff, 0xff, 0x80, 0x00, 0x00, 0x11,
					0x80, 0xab, 0xcd, 0xef };
	struct rk_bth_fields f;

	(void)state;
	rk_bth_unpack(b, &f);
	assert_int_equal(f.opcode, 0x04);
	assert_int_equal(f.se, 1);
	assert_int_equal(f.mig_req, 0);
	assert_int_equal(f.pad_cnt, 2);
	assert_int_equal(f.tver, 0);
	assert_int_equal(f.p_key, 0xffff);
	assert_int_equal(f.fecn, 1);
	assert_int_equal(f.becn, 0);
	assert_int_equal(f.dest_qp, 0x11);
	assert_int_equal(f.ack_req, 1);
	assert_int_equal(f.psn, 0xabcdef);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accessors_match_table),
		cmocka_unit_test(test_pack_unpack_round_trip),
		cmocka_unit_test(test_known_bytes),
	};

	rk_test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
