/* SPDX-License-Identifier: BSD-3-Clause */
/* RDMAP (RFC 5040, RFC 7306): field tables, opcode table, Terminate codes,
 * and the stateless DDP segment parser with its findings. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rk_ddp.h"
#include "rk_field.h"
#include "rk_finding.h"
#include "rk_rdmap.h"

#include "rk_field_table.h"

static uint64_t g_rv(const uint8_t *h) { return rk_rdmap_rv(h); }
static void s_rv(uint8_t *h, uint64_t v) { rk_rdmap_set_rv(h, (uint8_t)v); }
static uint64_t g_crsvd(const uint8_t *h) { return rk_rdmap_rsvd(h); }
static void s_crsvd(uint8_t *h, uint64_t v) { rk_rdmap_set_rsvd(h, (uint8_t)v); }
static uint64_t g_op(const uint8_t *h) { return rk_rdmap_opcode(h); }
static void s_op(uint8_t *h, uint64_t v) { rk_rdmap_set_opcode(h, (uint8_t)v); }
static uint64_t g_inv(const uint8_t *h) { return rk_rdmap_inval_stag(h); }
static void s_inv(uint8_t *h, uint64_t v) { rk_rdmap_set_inval_stag(h, (uint32_t)v); }

static uint64_t g_sink_stag(const uint8_t *h) { return rk_rdmap_sink_stag(h); }
static void s_sink_stag(uint8_t *h, uint64_t v) { rk_rdmap_set_sink_stag(h, (uint32_t)v); }
static uint64_t g_sink_to(const uint8_t *h) { return rk_rdmap_sink_to(h); }
static void s_sink_to(uint8_t *h, uint64_t v) { rk_rdmap_set_sink_to(h, v); }
static uint64_t g_rd_sz(const uint8_t *h) { return rk_rdmap_rdma_rd_sz(h); }
static void s_rd_sz(uint8_t *h, uint64_t v) { rk_rdmap_set_rdma_rd_sz(h, (uint32_t)v); }
static uint64_t g_src_stag(const uint8_t *h) { return rk_rdmap_src_stag(h); }
static void s_src_stag(uint8_t *h, uint64_t v) { rk_rdmap_set_src_stag(h, (uint32_t)v); }
static uint64_t g_src_to(const uint8_t *h) { return rk_rdmap_src_to(h); }
static void s_src_to(uint8_t *h, uint64_t v) { rk_rdmap_set_src_to(h, v); }

static uint64_t g_layer(const uint8_t *h) { return rk_rdmap_term_layer(h); }
static void s_layer(uint8_t *h, uint64_t v) { rk_rdmap_term_set_layer(h, (uint8_t)v); }
static uint64_t g_etype(const uint8_t *h) { return rk_rdmap_term_etype(h); }
static void s_etype(uint8_t *h, uint64_t v) { rk_rdmap_term_set_etype(h, (uint8_t)v); }
static uint64_t g_ecode(const uint8_t *h) { return rk_rdmap_term_err_code(h); }
static void s_ecode(uint8_t *h, uint64_t v) { rk_rdmap_term_set_err_code(h, (uint8_t)v); }
static uint64_t g_m(const uint8_t *h) { return rk_rdmap_term_m(h); }
static void s_m(uint8_t *h, uint64_t v) { rk_rdmap_term_set_m(h, (uint8_t)v); }
static uint64_t g_d(const uint8_t *h) { return rk_rdmap_term_d(h); }
static void s_d(uint8_t *h, uint64_t v) { rk_rdmap_term_set_d(h, (uint8_t)v); }
static uint64_t g_r(const uint8_t *h) { return rk_rdmap_term_r(h); }
static void s_r(uint8_t *h, uint64_t v) { rk_rdmap_term_set_r(h, (uint8_t)v); }
static uint64_t g_trsvd(const uint8_t *h) { return rk_rdmap_term_rsvd(h); }
static void s_trsvd(uint8_t *h, uint64_t v) { rk_rdmap_term_set_rsvd(h, (uint16_t)v); }

static uint64_t g_arsvd(const uint8_t *h) { return rk_rdmap_atomic_rsvd(h); }
static void s_arsvd(uint8_t *h, uint64_t v) { rk_rdmap_atomic_set_rsvd(h, (uint32_t)v); }
static uint64_t g_aop(const uint8_t *h) { return rk_rdmap_atomic_aopcode(h); }
static void s_aop(uint8_t *h, uint64_t v) { rk_rdmap_atomic_set_aopcode(h, (uint8_t)v); }
static uint64_t g_reqid(const uint8_t *h) { return rk_rdmap_atomic_req_id(h); }
static void s_reqid(uint8_t *h, uint64_t v) { rk_rdmap_atomic_set_req_id(h, (uint32_t)v); }
static uint64_t g_rstag(const uint8_t *h) { return rk_rdmap_atomic_remote_stag(h); }
static void s_rstag(uint8_t *h, uint64_t v) { rk_rdmap_atomic_set_remote_stag(h, (uint32_t)v); }
static uint64_t g_rto(const uint8_t *h) { return rk_rdmap_atomic_remote_to(h); }
static void s_rto(uint8_t *h, uint64_t v) { rk_rdmap_atomic_set_remote_to(h, v); }
static uint64_t g_sa(const uint8_t *h) { return rk_rdmap_atomic_swap_add(h); }
static void s_sa(uint8_t *h, uint64_t v) { rk_rdmap_atomic_set_swap_add(h, v); }
static uint64_t g_sam(const uint8_t *h) { return rk_rdmap_atomic_swap_add_mask(h); }
static void s_sam(uint8_t *h, uint64_t v) { rk_rdmap_atomic_set_swap_add_mask(h, v); }
static uint64_t g_cmp(const uint8_t *h) { return rk_rdmap_atomic_compare(h); }
static void s_cmp(uint8_t *h, uint64_t v) { rk_rdmap_atomic_set_compare(h, v); }
static uint64_t g_cmpm(const uint8_t *h) { return rk_rdmap_atomic_compare_mask(h); }
static void s_cmpm(uint8_t *h, uint64_t v) { rk_rdmap_atomic_set_compare_mask(h, v); }
static uint64_t g_rreqid(const uint8_t *h) { return rk_rdmap_atomic_resp_req_id(h); }
static void s_rreqid(uint8_t *h, uint64_t v) { rk_rdmap_atomic_resp_set_req_id(h, (uint32_t)v); }
static uint64_t g_orig(const uint8_t *h) { return rk_rdmap_atomic_resp_orig_value(h); }
static void s_orig(uint8_t *h, uint64_t v) { rk_rdmap_atomic_resp_set_orig_value(h, v); }
static uint64_t g_imm(const uint8_t *h) { return rk_rdmap_immdt(h); }
static void s_imm(uint8_t *h, uint64_t v) { rk_rdmap_set_immdt(h, v); }

#define NACC(a) (sizeof(a) / sizeof((a)[0]))

static void
test_ctrl_table(void **state)
{
	static const struct acc acc[] = {
		{ "RV", g_rv, s_rv }, { "Rsvd", g_crsvd, s_crsvd },
		{ "OpCode", g_op, s_op },
	};
	static const struct acc inv[] = {
		{ "Invalidate STag", g_inv, s_inv },
	};

	(void)state;
	table_test(&rk_rdmap_ctrl_desc);
	coverage_test(&rk_rdmap_ctrl_desc, false);
	accessor_test(&rk_rdmap_ctrl_desc, acc, NACC(acc));
	table_test(&rk_rdmap_inval_desc);
	accessor_test(&rk_rdmap_inval_desc, inv, NACC(inv));
}

static void
test_read_req_table(void **state)
{
	static const struct acc acc[] = {
		{ "sink_stag", g_sink_stag, s_sink_stag },
		{ "sink_to", g_sink_to, s_sink_to },
		{ "rdma_rd_sz", g_rd_sz, s_rd_sz },
		{ "src_stag", g_src_stag, s_src_stag },
		{ "src_to", g_src_to, s_src_to },
	};
	uint8_t a[28], b[28];

	(void)state;
	assert_int_equal(rk_rdmap_read_req_desc.len, 28);
	table_test(&rk_rdmap_read_req_desc);
	coverage_test(&rk_rdmap_read_req_desc, true);
	accessor_test(&rk_rdmap_read_req_desc, acc, NACC(acc));
	for (int it = 0; it < 500; it++) {
		struct rk_rdmap_read_req_fields f;

		rk_test_fill(a, sizeof(a));
		rk_rdmap_read_req_unpack(a, &f);
		memset(b, 0, sizeof(b));
		rk_rdmap_read_req_pack(b, &f);
		assert_memory_equal(a, b, sizeof(a));
	}
}

static void
test_term_table(void **state)
{
	static const struct acc acc[] = {
		{ "layer", g_layer, s_layer }, { "etype", g_etype, s_etype },
		{ "err_code", g_ecode, s_ecode }, { "hdrct_m", g_m, s_m },
		{ "hdrct_d", g_d, s_d }, { "hdrct_r", g_r, s_r },
		{ "rsvd", g_trsvd, s_trsvd },
	};
	uint8_t a[4], b[4];

	(void)state;
	table_test(&rk_rdmap_term_desc);
	coverage_test(&rk_rdmap_term_desc, true);
	accessor_test(&rk_rdmap_term_desc, acc, NACC(acc));
	for (int it = 0; it < 500; it++) {
		struct rk_rdmap_term_fields f;

		rk_test_fill(a, sizeof(a));
		rk_rdmap_term_unpack(a, &f);
		memset(b, 0, sizeof(b));
		rk_rdmap_term_pack(b, &f);
		assert_memory_equal(a, b, sizeof(a));
	}
}

static void
test_rfc7306_tables(void **state)
{
	static const struct acc areq[] = {
		{ "rsvd", g_arsvd, s_arsvd }, { "aopcode", g_aop, s_aop },
		{ "req_id", g_reqid, s_reqid }, { "remote_stag", g_rstag, s_rstag },
		{ "remote_to", g_rto, s_rto }, { "swap_add", g_sa, s_sa },
		{ "swap_add_mask", g_sam, s_sam }, { "compare", g_cmp, s_cmp },
		{ "compare_mask", g_cmpm, s_cmpm },
	};
	static const struct acc aresp[] = {
		{ "req_id", g_rreqid, s_rreqid }, { "orig_value", g_orig, s_orig },
	};
	static const struct acc imm[] = { { "immdt", g_imm, s_imm } };
	uint8_t a[52], b[52];

	(void)state;
	assert_int_equal(rk_rdmap_atomic_req_desc.len, 52);
	assert_int_equal(rk_rdmap_atomic_resp_desc.len, 12);
	assert_int_equal(rk_rdmap_immdt_desc.len, 8);
	table_test(&rk_rdmap_atomic_req_desc);
	coverage_test(&rk_rdmap_atomic_req_desc, true);
	accessor_test(&rk_rdmap_atomic_req_desc, areq, NACC(areq));
	table_test(&rk_rdmap_atomic_resp_desc);
	coverage_test(&rk_rdmap_atomic_resp_desc, true);
	accessor_test(&rk_rdmap_atomic_resp_desc, aresp, NACC(aresp));
	table_test(&rk_rdmap_immdt_desc);
	coverage_test(&rk_rdmap_immdt_desc, true);
	accessor_test(&rk_rdmap_immdt_desc, imm, NACC(imm));
	for (int it = 0; it < 500; it++) {
		struct rk_rdmap_atomic_req_fields q;
		struct rk_rdmap_atomic_resp_fields r;

		rk_test_fill(a, sizeof(a));
		rk_rdmap_atomic_req_unpack(a, &q);
		memset(b, 0, sizeof(b));
		rk_rdmap_atomic_req_pack(b, &q);
		assert_memory_equal(a, b, 52);
		rk_rdmap_atomic_resp_unpack(a, &r);
		memset(b, 0, sizeof(b));
		rk_rdmap_atomic_resp_pack(b, &r);
		assert_memory_equal(a, b, 12);
	}
}

static void
test_opcode_table(void **state)
{
	static const struct {
		uint8_t op;
		bool tagged;
		uint8_t qn;
		const char *name;
	} want[] = {
		{ 0, true, 0, "RDMA Write" },
		{ 1, false, 1, "RDMA Read Request" },
		{ 2, true, 0, "RDMA Read Response" },
		{ 3, false, 0, "Send" },
		{ 4, false, 0, "Send with Invalidate" },
		{ 5, false, 0, "Send with SE" },
		{ 6, false, 0, "Send with SE and Invalidate" },
		{ 7, false, 2, "Terminate" },
		{ 8, false, 0, "Immediate Data" },
		{ 9, false, 0, "Immediate Data with SE" },
		{ 10, false, 3, "Atomic Request" },
		{ 11, false, 4, "Atomic Response" },
	};

	(void)state;
	for (size_t i = 0; i < NACC(want); i++) {
		const struct rk_rdmap_opcode_info *oi = rk_rdmap_opcode_info(want[i].op);

		assert_string_equal(oi->name, want[i].name);
		assert_int_equal(oi->tagged, want[i].tagged);
		if (!want[i].tagged)
			assert_int_equal(oi->qn, want[i].qn);
	}
	assert_int_equal(rk_rdmap_opcode_info(1)->hdr_len, 28);
	assert_true(rk_rdmap_opcode_info(1)->single_segment);
	assert_true(rk_rdmap_opcode_info(7)->single_segment);
	assert_false(rk_rdmap_opcode_info(3)->single_segment);
	for (uint8_t op = 12; op < 16; op++) {
		assert_null(rk_rdmap_opcode_info(op)->name);
		assert_string_equal(rk_rdmap_opcode_name(op), "reserved");
	}
}

/* Every row of spec-rules T5, and triples outside it. */
static void
test_term_text(void **state)
{
	static const struct {
		uint8_t l, e, c;
		const char *text;
	} rows[] = {
		{ 0, 0, 0x00, "local catastrophic error" },
		{ 0, 0, 0x42, "local catastrophic error" },
		{ 0, 1, 0x00, "invalid STag" },
		{ 0, 1, 0x01, "base or bounds violation" },
		{ 0, 1, 0x02, "access rights violation" },
		{ 0, 1, 0x03, "STag not associated with RDMAP stream" },
		{ 0, 1, 0x04, "TO wrap" },
		{ 0, 1, 0x09, "STag cannot be invalidated" },
		{ 0, 1, 0xff, "unspecified error" },
		{ 0, 2, 0x05, "invalid RDMAP version" },
		{ 0, 2, 0x06, "unexpected opcode" },
		{ 0, 2, 0x07, "catastrophic error, localized to RDMAP stream" },
		{ 0, 2, 0x08, "catastrophic error, global" },
		{ 0, 2, 0x09, "STag cannot be invalidated" },
		{ 0, 2, 0xff, "unspecified error" },
		{ 1, 0, 0x00, "local catastrophic error" },
		{ 1, 1, 0x00, "invalid STag" },
		{ 1, 1, 0x01, "base or bounds violation" },
		{ 1, 1, 0x02, "STag not associated with DDP stream" },
		{ 1, 1, 0x03, "TO wrap" },
		{ 1, 1, 0x04, "invalid DDP version" },
		{ 1, 2, 0x01, "invalid QN" },
		{ 1, 2, 0x02, "invalid MSN - no buffer available" },
		{ 1, 2, 0x03, "invalid MSN - MSN range is not valid" },
		{ 1, 2, 0x04, "invalid MO" },
		{ 1, 2, 0x05, "DDP message too long for available buffer" },
		{ 1, 2, 0x06, "invalid DDP version" },
		{ 1, 3, 0x00, "reserved for the LLP" },
		{ 2, 0, 0x01, "TCP connection closed, terminated or lost" },
		{ 2, 0, 0x02, "MPA CRC error" },
		{ 2, 0, 0x03, "MPA marker or FPDU start error" },
		{ 2, 0, 0x04, "invalid or unexpected MPA Request or Reply" },
		{ 2, 0, 0x05, "local catastrophic error (RFC 6581)" },
		{ 2, 0, 0x06, "insufficient IRD resources (RFC 6581)" },
		{ 2, 0, 0x07, "no matching RTR option (RFC 6581)" },
	};
	static const uint8_t unknown[][3] = {
		{ 0, 1, 0x05 }, { 0, 1, 0x0a }, { 0, 2, 0x00 }, { 0, 2, 0x04 },
		{ 0, 3, 0x00 }, { 1, 0, 0x01 }, { 1, 1, 0x05 }, { 1, 2, 0x00 },
		{ 1, 2, 0x07 }, { 1, 4, 0x00 }, { 2, 0, 0x00 }, { 2, 0, 0x08 },
		{ 2, 1, 0x01 }, { 3, 0, 0x00 }, { 15, 15, 0xff },
	};

	(void)state;
	for (size_t i = 0; i < NACC(rows); i++) {
		const char *t = rk_rdmap_term_text(rows[i].l, rows[i].e, rows[i].c);

		assert_non_null(t);
		assert_string_equal(t, rows[i].text);
	}
	for (size_t i = 0; i < NACC(unknown); i++)
		assert_null(rk_rdmap_term_text(unknown[i][0], unknown[i][1], unknown[i][2]));
	assert_string_equal(rk_rdmap_term_layer_name(1), "DDP");
	assert_string_equal(rk_rdmap_term_etype_name(1, 2), "untagged buffer");
	assert_null(rk_rdmap_term_layer_name(3));
	assert_null(rk_rdmap_term_etype_name(2, 1));
}

/* Segment builders (valid by default). */

static size_t
untagged(uint8_t *b, uint8_t opcode, uint32_t qn, uint32_t msn, uint32_t mo, uint8_t last)
{
	struct rk_ddp_untagged_fields u = {
		.t = 0, .l = last, .dv = 1,
		.rsvd_ulp = (uint64_t)(0x40 | opcode) << 32,
		.qn = qn, .msn = msn, .mo = mo,
	};

	rk_ddp_untagged_pack(b, &u);
	return RK_DDP_UNTAGGED_LEN;
}

static size_t
tagged(uint8_t *b, uint8_t opcode, uint32_t stag, uint64_t to, uint8_t last)
{
	struct rk_ddp_tagged_fields t = {
		.t = 1, .l = last, .dv = 1, .rsvd_ulp = (uint8_t)(0x40 | opcode),
		.stag = stag, .to = to,
	};

	rk_ddp_tagged_pack(b, &t);
	return RK_DDP_TAGGED_LEN;
}

static size_t
read_req(uint8_t *b, uint32_t msn)
{
	struct rk_rdmap_read_req_fields r = {
		.sink_stag = 0x1111, .sink_to = 0x2222333344445555ull,
		.rdma_rd_sz = 65536, .src_stag = 0x6666, .src_to = 0x77778888ull,
	};
	size_t n = untagged(b, RK_RDMAP_READ_REQ, 1, msn, 0, 1);

	rk_rdmap_read_req_pack(b + n, &r);
	return n + RK_RDMAP_READ_REQ_LEN;
}

static void
parse_ok(const uint8_t *b, size_t len, struct rk_rdmap_msg *m)
{
	struct rk_findings f;

	memset(&f, 0, sizeof(f));
	assert_int_equal(rk_rdmap_parse(b, len, m, &f), 0);
	if (f.count != 0)
		fail_msg("unexpected finding %s", rk_finding_info(f.list[0].id)->id);
}

static void
test_parse_valid(void **state)
{
	uint8_t b[256];
	struct rk_rdmap_msg m;
	size_t n;

	(void)state;
	/* Send, 100 bytes of payload, MSN 1, not last. */
	n = untagged(b, RK_RDMAP_SEND, 0, 1, 0, 0);
	memset(b + n, 0xab, 100);
	parse_ok(b, n + 100, &m);
	assert_true(m.ddp_ok && m.rdmap_hdr_ok);
	assert_int_equal(m.opcode, RK_RDMAP_SEND);
	assert_int_equal(m.l, 0);
	assert_int_equal(m.msn, 1);
	assert_int_equal(m.hdr_len, 18);
	assert_ptr_equal(m.payload, b + 18);
	assert_int_equal(m.payload_len, 100);

	/* Send with SE and Invalidate carries the STag in RsvdULP. */
	n = untagged(b, RK_RDMAP_SEND_SE_INV, 0, 9, 0, 1);
	rk_rdmap_set_inval_stag(b, 0xcafe0001);
	parse_ok(b, n, &m);
	assert_int_equal(m.rsvdulp32, 0xcafe0001);
	assert_int_equal(m.payload_len, 0);

	/* RDMA Write and Read Response are tagged. */
	n = tagged(b, RK_RDMAP_WRITE, 0xdead, 0x1000, 1);
	parse_ok(b, n + 10, &m);
	assert_int_equal(m.t, 1);
	assert_int_equal(m.stag, 0xdead);
	assert_int_equal(m.to, 0x1000);
	assert_int_equal(m.payload_len, 10);
	n = tagged(b, RK_RDMAP_READ_RESP, 0x1111, 0x2222333344445555ull, 1);
	parse_ok(b, n + 4, &m);
	assert_int_equal(m.opcode, RK_RDMAP_READ_RESP);

	/* Read Request: exactly 18 + 28 bytes. */
	n = read_req(b, 5);
	assert_int_equal(n, 46);
	parse_ok(b, n, &m);
	assert_int_equal(m.qn, 1);
	assert_int_equal(m.msn, 5);
	assert_int_equal(m.u.read_req.sink_stag, 0x1111);
	assert_int_equal(m.u.read_req.sink_to, 0x2222333344445555ull);
	assert_int_equal(m.u.read_req.rdma_rd_sz, 65536);
	assert_int_equal(m.u.read_req.src_stag, 0x6666);
	assert_int_equal(m.u.read_req.src_to, 0x77778888ull);
	assert_int_equal(m.hdr_len, 46);
	assert_int_equal(m.payload_len, 0);

	/* Immediate Data, Atomic Request and Response (RFC 7306). */
	n = untagged(b, RK_RDMAP_IMMDT_SE, 0, 3, 0, 1);
	rk_rdmap_set_immdt(b + n, 0x0123456789abcdefull);
	parse_ok(b, n + 8, &m);
	assert_int_equal(m.u.immdt, 0x0123456789abcdefull);
	n = untagged(b, RK_RDMAP_ATOMIC_REQ, 3, 1, 0, 1);
	memset(b + n, 0, 52);
	rk_rdmap_atomic_set_aopcode(b + n, RK_RDMAP_AOP_CMP_SWAP);
	rk_rdmap_atomic_set_compare(b + n, 42);
	parse_ok(b, n + 52, &m);
	assert_int_equal(m.u.atomic_req.aopcode, RK_RDMAP_AOP_CMP_SWAP);
	assert_int_equal(m.u.atomic_req.compare, 42);
	n = untagged(b, RK_RDMAP_ATOMIC_RESP, 4, 1, 0, 1);
	rk_rdmap_atomic_resp_set_orig_value(b + n, 7);
	parse_ok(b, n + 12, &m);
	assert_int_equal(m.u.atomic_resp.orig_value, 7);
}

/* Terminate as Linux siw sends it after a bad Read Request. */
static void
test_parse_terminate(void **state)
{
	uint8_t b[256], rr[64];
	struct rk_rdmap_term_fields t = { .layer = 0, .etype = 1, .err_code = 0,
					  .m = 1, .d = 1, .r = 1 };
	struct rk_rdmap_msg m;
	size_t n, rn;

	(void)state;
	rn = read_req(rr, 1);
	n = untagged(b, RK_RDMAP_TERMINATE, 2, 1, 0, 1);
	rk_rdmap_term_pack(b + n, &t);
	rk_rdmap_term_set_ddp_seg_len(b + n, (uint16_t)rn);
	memcpy(b + n + 6, rr, rn);
	parse_ok(b, n + 6 + rn, &m);
	assert_int_equal(m.opcode, RK_RDMAP_TERMINATE);
	assert_int_equal(m.u.term.ctrl.layer, 0);
	assert_int_equal(m.u.term.ctrl.etype, 1);
	assert_int_equal(m.u.term.ctrl.err_code, 0);
	assert_true(m.u.term.ctrl.m && m.u.term.ctrl.d && m.u.term.ctrl.r);
	assert_int_equal(m.u.term.ddp_seg_len, 46);
	assert_ptr_equal(m.u.term.ddp_hdr, b + n + 6);
	assert_int_equal(m.u.term.ddp_hdr_len, 18);
	assert_ptr_equal(m.u.term.rdmap_hdr, b + n + 6 + 18);
	assert_string_equal(m.u.term.text, "invalid STag");
	assert_int_equal(m.hdr_len, 18 + 4 + 2 + 18 + 28);

	/* D only, copying a tagged header: 14 bytes. */
	t.r = 0;
	t.layer = 1;
	t.etype = 1;
	t.err_code = 1;
	n = untagged(b, RK_RDMAP_TERMINATE, 2, 2, 0, 1);
	rk_rdmap_term_pack(b + n, &t);
	tagged(b + n + 6, RK_RDMAP_WRITE, 5, 6, 1);
	parse_ok(b, n + 6 + 14, &m);
	assert_int_equal(m.u.term.ddp_hdr_len, 14);
	assert_null(m.u.term.rdmap_hdr);
	assert_string_equal(m.u.term.text, "base or bounds violation");
}

/* Parse @p b and assert exactly one finding, @p id. */
static void
one_finding(const uint8_t *b, size_t len, enum rk_finding_id id)
{
	struct rk_findings f;
	struct rk_rdmap_msg m;

	memset(&f, 0, sizeof(f));
	rk_rdmap_parse(b, len, &m, &f);
	if (f.count != 1 || f.list[0].id != id)
		fail_msg("want only %s, got %u findings (first %s)",
			 rk_finding_info(id)->id, f.count,
			 f.count ? rk_finding_info(f.list[0].id)->id : "-");
}

static void
test_parse_findings(void **state)
{
	uint8_t b[256] = { 0 };
	struct rk_rdmap_msg m;
	struct rk_findings f;
	size_t n;

	(void)state;
	/* Too short for the DDP header. */
	memset(&f, 0, sizeof(f));
	assert_int_equal(rk_rdmap_parse(b, 0, &m, &f), -EBADMSG);
	assert_true(rk_findings_has(&f, RK_F_MPA_ULPDU_TOO_SHORT));
	n = tagged(b, RK_RDMAP_WRITE, 1, 2, 1);
	one_finding(b, 13, RK_F_MPA_ULPDU_TOO_SHORT);
	n = untagged(b, RK_RDMAP_SEND, 0, 1, 0, 1);
	one_finding(b, 17, RK_F_MPA_ULPDU_TOO_SHORT);
	assert_int_equal(rk_rdmap_parse(b, 17, &m, NULL), -EBADMSG);
	assert_false(m.ddp_ok);

	/* DDP control field. */
	n = untagged(b, RK_RDMAP_SEND, 0, 1, 0, 1);
	rk_ddp_set_dv(b, 2);
	one_finding(b, n, RK_F_DDP_DV_BAD);
	rk_ddp_set_dv(b, 1);
	rk_ddp_set_rsvd(b, 0x8);
	one_finding(b, n, RK_F_DDP_RESERVED);
	rk_ddp_set_rsvd(b, 0);

	/* RDMAP control field. */
	rk_rdmap_set_rv(b, 2);
	one_finding(b, n, RK_F_RDMAP_RV_BAD);
	rk_rdmap_set_rv(b, 1);
	rk_rdmap_set_rsvd(b, 1);
	one_finding(b, n, RK_F_RDMAP_RESERVED);
	rk_rdmap_set_rsvd(b, 0);
	rk_rdmap_set_inval_stag(b, 5);   /* not a Send with Invalidate */
	one_finding(b, n, RK_F_RDMAP_RESERVED);
	rk_rdmap_set_inval_stag(b, 0);
	rk_rdmap_set_opcode(b, 12);
	one_finding(b, n, RK_F_RDMAP_OPCODE_RESERVED);

	/* Tagged/untagged and queue numbers. */
	n = tagged(b, RK_RDMAP_SEND, 1, 2, 1);
	one_finding(b, n, RK_F_DDP_TAGGED_MISMATCH);
	n = untagged(b, RK_RDMAP_WRITE, 0, 1, 0, 1);
	one_finding(b, n, RK_F_DDP_TAGGED_MISMATCH);
	n = untagged(b, RK_RDMAP_SEND, 1, 1, 0, 1);
	one_finding(b, n, RK_F_DDP_QN_INVALID);
	n = read_req(b, 1);
	rk_ddp_set_qn(b, 0);
	one_finding(b, n, RK_F_DDP_QN_INVALID);

	/* Read Request: single segment, exact length. */
	n = read_req(b, 1);
	rk_ddp_set_mo(b, 4);
	one_finding(b, n, RK_F_DDP_MO_SINGLE);
	n = read_req(b, 1);
	rk_ddp_set_l(b, 0);
	one_finding(b, n, RK_F_DDP_L_SINGLE);
	n = read_req(b, 1);
	one_finding(b, n + 4, RK_F_RDMAP_READ_REQ_LENGTH);
	one_finding(b, n - 1, RK_F_RDMAP_READ_REQ_LENGTH);
	rk_rdmap_parse(b, n - 1, &m, NULL);
	assert_false(m.rdmap_hdr_ok);

	/* Terminate: truncated, unknown code, wrong queue. */
	n = untagged(b, RK_RDMAP_TERMINATE, 2, 1, 0, 1);
	memset(b + n, 0, 32);
	one_finding(b, n + 2, RK_F_RDMAP_HDR_TRUNCATED);
	rk_rdmap_term_set_d(b + n, 1);
	one_finding(b, n + 4 + 2 + 10, RK_F_RDMAP_HDR_TRUNCATED);
	rk_rdmap_term_set_d(b + n, 0);
	rk_rdmap_term_set_etype(b + n, 1);
	rk_rdmap_term_set_err_code(b + n, 0x05);
	one_finding(b, n + 4, RK_F_RDMAP_TERM_CODE_UNKNOWN);
	rk_rdmap_term_set_err_code(b + n, 0x04);
	rk_ddp_set_qn(b, 0);
	one_finding(b, n + 4, RK_F_DDP_QN_INVALID);
	rk_ddp_set_qn(b, 2);
	rk_ddp_set_mo(b, 8);
	one_finding(b, n + 4, RK_F_DDP_MO_SINGLE);

	/* RFC 7306 headers shorter than their opcode needs. */
	n = untagged(b, RK_RDMAP_ATOMIC_REQ, 3, 1, 0, 1);
	one_finding(b, n + 51, RK_F_RDMAP_HDR_TRUNCATED);
	n = untagged(b, RK_RDMAP_IMMDT, 0, 1, 0, 1);
	one_finding(b, n + 7, RK_F_RDMAP_HDR_TRUNCATED);
	n = untagged(b, RK_RDMAP_ATOMIC_RESP, 3, 1, 0, 1);
	one_finding(b, n + 12, RK_F_DDP_QN_INVALID);

	/* Finding offsets point at the field. */
	n = untagged(b, RK_RDMAP_SEND, 7, 1, 0, 1);
	memset(&f, 0, sizeof(f));
	rk_rdmap_parse(b, n, &m, &f);
	assert_int_equal(f.count, 1);
	assert_int_equal(f.list[0].offset, 6);
}

/* Random segments: never out of bounds (run under ASan), fields consistent. */
static void
test_parse_random(void **state)
{
	uint8_t b[128];

	(void)state;
	for (int it = 0; it < 20000; it++) {
		size_t len = (size_t)(rk_test_rand() % sizeof(b));
		uint8_t *seg = malloc(len ? len : 1);
		struct rk_findings f;
		struct rk_rdmap_msg m;

		rk_test_fill(seg, len);
		memset(&f, 0, sizeof(f));
		rk_rdmap_parse(seg, len, &m, &f);
		if (m.ddp_ok) {
			assert_true(m.hdr_len <= len);
			assert_int_equal(m.ddp_hdr_len, seg[0] & 0x80 ? 14 : 18);
		}
		if (m.payload != NULL)
			assert_true(m.payload + m.payload_len == seg + len);
		free(seg);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ctrl_table),
		cmocka_unit_test(test_read_req_table),
		cmocka_unit_test(test_term_table),
		cmocka_unit_test(test_rfc7306_tables),
		cmocka_unit_test(test_opcode_table),
		cmocka_unit_test(test_term_text),
		cmocka_unit_test(test_parse_valid),
		cmocka_unit_test(test_parse_terminate),
		cmocka_unit_test(test_parse_findings),
		cmocka_unit_test(test_parse_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
