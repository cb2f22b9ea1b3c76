/* SPDX-License-Identifier: BSD-3-Clause */
/* DDP headers (RFC 5041): field tables, accessors, pack/unpack. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rk_ddp.h"
#include "rk_field.h"

#include "rk_field_table.h"

static uint64_t g_t(const uint8_t *h) { return rk_ddp_t(h); }
static void s_t(uint8_t *h, uint64_t v) { rk_ddp_set_t(h, (uint8_t)v); }
static uint64_t g_l(const uint8_t *h) { return rk_ddp_l(h); }
static void s_l(uint8_t *h, uint64_t v) { rk_ddp_set_l(h, (uint8_t)v); }
static uint64_t g_rsvd(const uint8_t *h) { return rk_ddp_rsvd(h); }
static void s_rsvd(uint8_t *h, uint64_t v) { rk_ddp_set_rsvd(h, (uint8_t)v); }
static uint64_t g_dv(const uint8_t *h) { return rk_ddp_dv(h); }
static void s_dv(uint8_t *h, uint64_t v) { rk_ddp_set_dv(h, (uint8_t)v); }
static uint64_t g_ulp8(const uint8_t *h) { return rk_ddp_rsvdulp8(h); }
static void s_ulp8(uint8_t *h, uint64_t v) { rk_ddp_set_rsvdulp8(h, (uint8_t)v); }
static uint64_t g_stag(const uint8_t *h) { return rk_ddp_stag(h); }
static void s_stag(uint8_t *h, uint64_t v) { rk_ddp_set_stag(h, (uint32_t)v); }
static uint64_t g_to(const uint8_t *h) { return rk_ddp_to(h); }
static void s_to(uint8_t *h, uint64_t v) { rk_ddp_set_to(h, v); }
static uint64_t g_qn(const uint8_t *h) { return rk_ddp_qn(h); }
static void s_qn(uint8_t *h, uint64_t v) { rk_ddp_set_qn(h, (uint32_t)v); }
static uint64_t g_msn(const uint8_t *h) { return rk_ddp_msn(h); }
static void s_msn(uint8_t *h, uint64_t v) { rk_ddp_set_msn(h, (uint32_t)v); }
static uint64_t g_mo(const uint8_t *h) { return rk_ddp_mo(h); }
static void s_mo(uint8_t *h, uint64_t v) { rk_ddp_set_mo(h, (uint32_t)v); }
static uint64_t g_ulp40(const uint8_t *h) { return (uint64_t)rk_ddp_rsvdulp8(h) << 32 | rk_ddp_rsvdulp32(h); }
static void
s_ulp40(uint8_t *h, uint64_t v)
{
	rk_ddp_set_rsvdulp8(h, (uint8_t)(v >> 32));
	rk_ddp_set_rsvdulp32(h, (uint32_t)v);
}

static void
test_tagged_table(void **state)
{
	static const struct acc acc[] = {
		{ "T", g_t, s_t }, { "L", g_l, s_l },
		{ "Rsvd", g_rsvd, s_rsvd }, { "DV", g_dv, s_dv },
		{ "RsvdULP", g_ulp8, s_ulp8 }, { "STag", g_stag, s_stag },
		{ "TO", g_to, s_to },
	};

	(void)state;
	assert_int_equal(rk_ddp_tagged_desc.len, 14);
	table_test(&rk_ddp_tagged_desc);
	coverage_test(&rk_ddp_tagged_desc, true);
	accessor_test(&rk_ddp_tagged_desc, acc, sizeof(acc) / sizeof(acc[0]));
}

static void
test_untagged_table(void **state)
{
	static const struct acc acc[] = {
		{ "T", g_t, s_t }, { "L", g_l, s_l },
		{ "Rsvd", g_rsvd, s_rsvd }, { "DV", g_dv, s_dv },
		{ "RsvdULP", g_ulp40, s_ulp40 }, { "QN", g_qn, s_qn },
		{ "MSN", g_msn, s_msn }, { "MO", g_mo, s_mo },
	};

	(void)state;
	assert_int_equal(rk_ddp_untagged_desc.len, 18);
	table_test(&rk_ddp_untagged_desc);
	coverage_test(&rk_ddp_untagged_desc, true);
	accessor_test(&rk_ddp_untagged_desc, acc, sizeof(acc) / sizeof(acc[0]));
}

static void
test_pack_round_trip(void **state)
{
	uint8_t a[18], b[18];

	(void)state;
	for (int it = 0; it < 1000; it++) {
		struct rk_ddp_tagged_fields t;
		struct rk_ddp_untagged_fields u;

		rk_test_fill(a, sizeof(a));
		memset(b, 0x5a, sizeof(b));
		rk_ddp_tagged_unpack(a, &t);
		rk_ddp_tagged_pack(b, &t);
		assert_memory_equal(a, b, RK_DDP_TAGGED_LEN);
		assert_int_equal(b[14], 0x5a);

		rk_test_fill(a, sizeof(a));
		rk_ddp_untagged_unpack(a, &u);
		rk_ddp_untagged_pack(b, &u);
		assert_memory_equal(a, b, RK_DDP_UNTAGGED_LEN);
	}
}

/* Known bytes: a Linux siw-style Send and RDMA Write header. */
static void
test_known_bytes(void **state)
{
	static const uint8_t send[18] = {
		0x41, 0x43, 0, 0, 0, 0,      /* T=0 L=1 DV=1; RV=1 op=3; RsvdULP */
		0, 0, 0, 0,                  /* QN 0 */
		0, 0, 0, 7,                  /* MSN 7 */
		0, 0, 0x10, 0,               /* MO 4096 */
	};
	static const uint8_t write[14] = {
		0x81, 0x40,                  /* T=1 L=0 DV=1; RV=1 op=0 */
		0xde, 0xad, 0xbe, 0xef,      /* STag */
		0x00, 0x00, 0x7f, 0x12, 0x34, 0x56, 0x78, 0x9a, /* TO */
	};
	struct rk_ddp_untagged_fields u;
	struct rk_ddp_tagged_fields t;
	uint8_t b[18];

	(void)state;
	rk_ddp_untagged_unpack(send, &u);
	assert_int_equal(u.t, 0);
	assert_int_equal(u.l, 1);
	assert_int_equal(u.rsvd, 0);
	assert_int_equal(u.dv, 1);
	assert_int_equal(u.rsvd_ulp, 0x4300000000ull);
	assert_int_equal(u.qn, 0);
	assert_int_equal(u.msn, 7);
	assert_int_equal(u.mo, 4096);
	assert_int_equal(rk_ddp_hdr_len(send), 18);

	rk_ddp_tagged_unpack(write, &t);
	assert_int_equal(t.t, 1);
	assert_int_equal(t.l, 0);
	assert_int_equal(t.dv, 1);
	assert_int_equal(t.rsvd_ulp, 0x40);
	assert_int_equal(t.stag, 0xdeadbeef);
	assert_int_equal(t.to, 0x00007f123456789aull);
	assert_int_equal(rk_ddp_hdr_len(write), 14);

	/* Building the same header field by field gives the same bytes. */
	memset(b, 0xff, sizeof(b));
	rk_ddp_set_t(b, 1);
	rk_ddp_set_l(b, 0);
	rk_ddp_set_rsvd(b, 0);
	rk_ddp_set_dv(b, 1);
	rk_ddp_set_rsvdulp8(b, 0x40);
	rk_ddp_set_stag(b, 0xdeadbeef);
	rk_ddp_set_to(b, 0x00007f123456789aull);
	assert_memory_equal(b, write, sizeof(write));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tagged_table),
		cmocka_unit_test(test_untagged_table),
		cmocka_unit_test(test_pack_round_trip),
		cmocka_unit_test(test_known_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
