/* SPDX-License-Identifier: BSD-3-Clause */
/* MPA (RFC 5044, RFC 6581): CRC32c vectors, Request/Reply codec, field
 * tables, FPDU builder with markers. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rk_byteorder.h"
#include "rk_crc.h"
#include "rk_field.h"
#include "rk_finding.h"
#include "rk_mpa.h"

#include "rk_field_table.h"

/* Bitwise CRC32c (reflected 0x82f63b78): an implementation independent of ISA-L. */
static uint32_t
ref_crc32c(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;

	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1u)));
	}
	return ~c;
}

/* RFC 3720 B.4 CRC examples (bytes on the wire are least significant first). */
static void
test_crc32c_vectors(void **state)
{
	uint8_t b[32], wire[4];

	(void)state;
	memset(b, 0, sizeof(b));
	assert_int_equal(rk_crc32c(b, 32), 0x8a9136aa);
	rk_put_le32(wire, rk_crc32c(b, 32));
	assert_int_equal(wire[0], 0xaa);
	assert_int_equal(wire[3], 0x8a);
	memset(b, 0xff, sizeof(b));
	assert_int_equal(rk_crc32c(b, 32), 0x62a8ab43);
	for (int i = 0; i < 32; i++)
		b[i] = (uint8_t)i;
	assert_int_equal(rk_crc32c(b, 32), 0x46dd794e);
	for (int i = 0; i < 32; i++)
		b[i] = (uint8_t)(31 - i);
	assert_int_equal(rk_crc32c(b, 32), 0x113fdb5c);
	assert_int_equal(rk_crc32c("123456789", 9), 0xe3069283);
	assert_int_equal(ref_crc32c((const uint8_t *)"123456789", 9), 0xe3069283);

	/* Chained pieces equal one shot, and ISA-L equals the bitwise form. */
	for (int it = 0; it < 200; it++) {
		uint8_t r[700];
		size_t n = (size_t)(rk_test_rand() % sizeof(r)), cut = n ? (size_t)(rk_test_rand() % n) : 0;
		rk_crc32c_state s = rk_crc32c_init();

		rk_test_fill(r, n);
		s = rk_crc32c_update(s, r, cut);
		s = rk_crc32c_update(s, r + cut, n - cut);
		assert_int_equal(rk_crc32c_final(s), rk_crc32c(r, n));
		assert_int_equal(rk_crc32c(r, n), ref_crc32c(r, n));
	}
}

static uint64_t g_m(const uint8_t *h) { return rk_mpa_rr_m(h); }
static void s_m(uint8_t *h, uint64_t v) { rk_mpa_rr_set_m(h, (uint8_t)v); }
static uint64_t g_c(const uint8_t *h) { return rk_mpa_rr_c(h); }
static void s_c(uint8_t *h, uint64_t v) { rk_mpa_rr_set_c(h, (uint8_t)v); }
static uint64_t g_r(const uint8_t *h) { return rk_mpa_rr_r(h); }
static void s_r(uint8_t *h, uint64_t v) { rk_mpa_rr_set_r(h, (uint8_t)v); }
static uint64_t g_e(const uint8_t *h) { return rk_mpa_rr_enhanced(h); }
static void s_e(uint8_t *h, uint64_t v) { rk_mpa_rr_set_enhanced(h, (uint8_t)v); }
static uint64_t g_res(const uint8_t *h) { return rk_mpa_rr_res(h); }
static void s_res(uint8_t *h, uint64_t v) { rk_mpa_rr_set_res(h, (uint8_t)v); }
static uint64_t g_rev(const uint8_t *h) { return rk_mpa_rr_rev(h); }
static void s_rev(uint8_t *h, uint64_t v) { rk_mpa_rr_set_rev(h, (uint8_t)v); }
static uint64_t g_pdl(const uint8_t *h) { return rk_mpa_rr_pd_len(h); }
static void s_pdl(uint8_t *h, uint64_t v) { rk_mpa_rr_set_pd_len(h, (uint16_t)v); }
static uint64_t g_ulen(const uint8_t *h) { return rk_mpa_ulpdu_len(h); }
static void s_ulen(uint8_t *h, uint64_t v) { rk_mpa_set_ulpdu_len(h, (uint16_t)v); }
static uint64_t g_mrsvd(const uint8_t *h) { return rk_mpa_marker_rsvd(h); }
static void s_mrsvd(uint8_t *h, uint64_t v) { rk_mpa_marker_set_rsvd(h, (uint16_t)v); }
static uint64_t g_ptr(const uint8_t *h) { return rk_mpa_marker_fpduptr(h); }
static void s_ptr(uint8_t *h, uint64_t v) { rk_mpa_marker_set_fpduptr(h, (uint16_t)v); }

#define NACC(a) (sizeof(a) / sizeof((a)[0]))

static void
test_mpa_tables(void **state)
{
	static const struct acc rr[] = {
		{ "M", g_m, s_m }, { "C", g_c, s_c }, { "R", g_r, s_r },
		{ "Enhanced", g_e, s_e }, { "Res", g_res, s_res },
		{ "Rev", g_rev, s_rev }, { "PD_Length", g_pdl, s_pdl },
	};
	static const struct acc hdr[] = { { "ULPDU_Length", g_ulen, s_ulen } };
	static const struct acc mk[] = {
		{ "Reserved", g_mrsvd, s_mrsvd }, { "FPDUPTR", g_ptr, s_ptr },
	};
	static const struct {
		const char *name;
		uint8_t (*get)(const uint8_t *);
	} io8[] = {
		{ "A", rk_mpa_p2p }, { "B", rk_mpa_rtr_send },
		{ "C", rk_mpa_rtr_write }, { "D", rk_mpa_rtr_read },
	};
	uint8_t b[20];

	(void)state;
	assert_int_equal(rk_mpa_rr_desc.len, 20);
	table_test(&rk_mpa_rr_desc);
	coverage_test(&rk_mpa_rr_desc, false);
	accessor_test(&rk_mpa_rr_desc, rr, NACC(rr));
	table_test(&rk_mpa_fpdu_hdr_desc);
	accessor_test(&rk_mpa_fpdu_hdr_desc, hdr, NACC(hdr));
	table_test(&rk_mpa_marker_desc);
	coverage_test(&rk_mpa_marker_desc, true);
	accessor_test(&rk_mpa_marker_desc, mk, NACC(mk));
	table_test(&rk_mpa_crc_desc);
	table_test(&rk_mpa_ird_ord_desc);
	coverage_test(&rk_mpa_ird_ord_desc, true);

	/* Getters without setters: check against the table. */
	for (int it = 0; it < 300; it++) {
		rk_test_fill(b, sizeof(b));
		for (size_t i = 0; i < NACC(io8); i++)
			assert_int_equal(io8[i].get(b),
					 rk_field_get(rk_header_field(&rk_mpa_ird_ord_desc,
								      io8[i].name), b));
		assert_int_equal(rk_mpa_ird(b),
				 rk_field_get(rk_header_field(&rk_mpa_ird_ord_desc, "IRD"), b));
		assert_int_equal(rk_mpa_ord(b),
				 rk_field_get(rk_header_field(&rk_mpa_ird_ord_desc, "ORD"), b));
		/* The CRC field is little-endian. */
		assert_int_equal(rk_field_get(&rk_mpa_crc_desc.fields[0], b), rk_get_le32(b));
	}
}

static void
test_rr_request_bytes(void **state)
{
	static const uint8_t want[] = {
		'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R', 'e', 'q', ' ', 'F', 'r', 'a', 'm', 'e',
		0x40, 0x01, 0x00, 0x05, 'h', 'e', 'l', 'l', 'o',
	};
	struct rk_mpa_rr rr = { .c = 1, .rev = 1, .ulp_pd = (const uint8_t *)"hello",
				.ulp_pd_len = 5 };
	struct rk_mpa_rr out;
	struct rk_findings f;
	uint8_t b[64];

	(void)state;
	assert_int_equal(rk_mpa_rr_build(b, sizeof(b), &rr), 25);
	assert_memory_equal(b, want, sizeof(want));
	memset(&f, 0, sizeof(f));
	assert_int_equal(rk_mpa_rr_parse(b, 25, &out, &f), 25);
	assert_int_equal(f.count, 0);
	assert_false(out.reply);
	assert_int_equal(out.m, 0);
	assert_int_equal(out.c, 1);
	assert_int_equal(out.r, 0);
	assert_int_equal(out.rev, 1);
	assert_int_equal(out.pd_len, 5);
	assert_false(out.has_ird_ord);
	assert_int_equal(out.ulp_pd_len, 5);
	assert_memory_equal(out.ulp_pd, "hello", 5);
	assert_int_equal(rk_mpa_rr_build(b, 24, &rr), -ENOSPC);
	assert_int_equal(rk_mpa_rr_build(NULL, 24, &rr), -EINVAL);
}

/* RFC 6581: Rev 2, Enhanced, IRD/ORD words with P2P and a Read RTR. */
static void
test_rr_enhanced(void **state)
{
	struct rk_mpa_rr rr = {
		.reply = true, .m = 1, .c = 1, .enhanced = 1, .rev = 2,
		.has_ird_ord = true,
		.ird_ord = { .ird = 16, .ord = 8, .p2p = 1, .rtr_read = 1 },
		.ulp_pd = (const uint8_t *)"xyz", .ulp_pd_len = 3,
	};
	struct rk_mpa_rr out;
	struct rk_findings f;
	uint8_t b[600];
	int n;

	(void)state;
	n = rk_mpa_rr_build(b, sizeof(b), &rr);
	assert_int_equal(n, 27);
	assert_memory_equal(b, "MPA ID Rep Frame", 16);
	assert_int_equal(b[16], 0xd0);
	assert_int_equal(b[17], 2);
	assert_int_equal(rk_get_be16(b + 18), 7);
	assert_int_equal(b[20], 0x80);
	assert_int_equal(b[21], 0x10);
	assert_int_equal(b[22], 0x40);
	assert_int_equal(b[23], 0x08);
	memset(&f, 0, sizeof(f));
	assert_int_equal(rk_mpa_rr_parse(b, (size_t)n, &out, &f), 27);
	assert_int_equal(f.count, 0);
	assert_true(out.reply);
	assert_true(out.has_ird_ord);
	assert_int_equal(out.ird_ord.ird, 16);
	assert_int_equal(out.ird_ord.ord, 8);
	assert_int_equal(out.ird_ord.p2p, 1);
	assert_int_equal(out.ird_ord.rtr_send, 0);
	assert_int_equal(out.ird_ord.rtr_write, 0);
	assert_int_equal(out.ird_ord.rtr_read, 1);
	assert_int_equal(out.ulp_pd_len, 3);
	assert_memory_equal(out.ulp_pd, "xyz", 3);

	/* Random round trips. */
	for (int it = 0; it < 2000; it++) {
		uint8_t pd[508];
		struct rk_mpa_rr a = {
			.reply = rk_test_rand() & 1, .m = rk_test_rand() & 1, .c = rk_test_rand() & 1,
			.rev = (rk_test_rand() & 1) ? 2 : 1,
			.ulp_pd = pd, .ulp_pd_len = (uint16_t)(rk_test_rand() % 509),
		};

		a.r = a.reply ? rk_test_rand() & 1 : 0;
		if (a.rev == 2 && (rk_test_rand() & 1)) {
			a.enhanced = 1;
			a.has_ird_ord = true;
			a.ird_ord.ird = (uint16_t)(rk_test_rand() & 0x3fff);
			a.ird_ord.ord = (uint16_t)(rk_test_rand() & 0x3fff);
			a.ird_ord.p2p = rk_test_rand() & 1;
			a.ird_ord.rtr_send = rk_test_rand() & 1;
			a.ird_ord.rtr_write = rk_test_rand() & 1;
			a.ird_ord.rtr_read = rk_test_rand() & 1;
		}
		rk_test_fill(pd, a.ulp_pd_len);
		n = rk_mpa_rr_build(b, sizeof(b), &a);
		assert_true(n > 0);
		memset(&f, 0, sizeof(f));
		assert_int_equal(rk_mpa_rr_parse(b, (size_t)n, &out, &f), n);
		assert_int_equal(f.count, 0);
		assert_int_equal(out.reply, a.reply);
		assert_int_equal(out.m, a.m);
		assert_int_equal(out.c, a.c);
		assert_int_equal(out.r, a.r);
		assert_int_equal(out.rev, a.rev);
		assert_int_equal(out.has_ird_ord, a.has_ird_ord);
		assert_memory_equal(&out.ird_ord, &a.ird_ord, sizeof(a.ird_ord));
		assert_int_equal(out.ulp_pd_len, a.ulp_pd_len);
		assert_memory_equal(out.ulp_pd, pd, a.ulp_pd_len);
	}
}

static void
rr_one_finding(const uint8_t *b, size_t len, int want_ret, int id)
{
	struct rk_mpa_rr out;
	struct rk_findings f;

	memset(&f, 0, sizeof(f));
	assert_int_equal(rk_mpa_rr_parse(b, len, &out, &f), want_ret);
	if (id < 0) {
		assert_int_equal(f.count, 0);
	} else if (f.count != 1 || f.list[0].id != id) {
		fail_msg("want only %s, got %u", rk_finding_info(id)->id, f.count);
	}
}

static void
test_rr_findings(void **state)
{
	struct rk_mpa_rr rr = { .rev = 1 };
	struct rk_mpa_rr out;
	uint8_t b[600];

	(void)state;
	memset(b, 0, sizeof(b));
	assert_int_equal(rk_mpa_rr_build(b, sizeof(b), &rr), 20);
	rr_one_finding(b, 20, 20, -1);
	/* Not all there yet. */
	assert_int_equal(rk_mpa_rr_parse(b, 10, &out, NULL), -EAGAIN);
	assert_int_equal(rk_mpa_rr_parse(b, 19, &out, NULL), -EAGAIN);
	rk_mpa_rr_set_pd_len(b, 4);
	rr_one_finding(b, 23, -EAGAIN, -1);
	rk_mpa_rr_set_pd_len(b, 0);

	b[9] = 'x';   /* "MPA ID Rxq Frame" */
	rr_one_finding(b, 20, -EPROTO, RK_F_MPA_KEY_BAD);
	b[9] = 'q';
	rk_mpa_rr_set_rev(b, 3);
	rr_one_finding(b, 20, 20, RK_F_MPA_REV_UNKNOWN);
	rk_mpa_rr_set_rev(b, 0);
	rr_one_finding(b, 20, 20, RK_F_MPA_REV_UNKNOWN);
	rk_mpa_rr_set_rev(b, 1);
	rk_mpa_rr_set_r(b, 1);
	rr_one_finding(b, 20, 20, RK_F_MPA_REQUEST_R_SET);
	memcpy(b, RK_MPA_KEY_REP, 16);  /* a Reply may reject */
	rr_one_finding(b, 20, 20, -1);
	rk_mpa_rr_set_r(b, 0);
	rk_mpa_rr_set_pd_len(b, 513);
	rr_one_finding(b, 533, 533, RK_F_MPA_PD_LENGTH_OVER);
	rk_mpa_rr_set_pd_len(b, 512);
	rr_one_finding(b, 532, 532, -1);
	rk_mpa_rr_set_pd_len(b, 0);
	/* Res: bit 4 is Res in Rev 1, the Enhanced flag in Rev 2. */
	rk_mpa_rr_set_enhanced(b, 1);
	rr_one_finding(b, 20, 20, RK_F_MPA_RESERVED);
	rk_mpa_rr_set_rev(b, 2);
	rr_one_finding(b, 20, 20, RK_F_MPA_ENHANCED_PD_SHORT);
	rk_mpa_rr_set_pd_len(b, 4);
	rr_one_finding(b, 24, 24, -1);
	rk_mpa_rr_set_res(b, 0x1);
	rr_one_finding(b, 24, 24, RK_F_MPA_RESERVED);
}

static void
test_rtr_check(void **state)
{
	struct rk_mpa_rr req = { .rev = 2, .enhanced = 1, .has_ird_ord = true,
				 .ird_ord = { .p2p = 1, .rtr_write = 1, .rtr_read = 1 } };
	struct rk_mpa_rr rep = { .reply = true, .rev = 2, .enhanced = 1, .has_ird_ord = true,
				 .ird_ord = { .p2p = 1, .rtr_read = 1 } };
	struct rk_findings f;

	(void)state;
	memset(&f, 0, sizeof(f));
	assert_int_equal(rk_mpa_rtr_check(&req, &rep, &f), 0);
	rep.ird_ord.rtr_read = 0;
	assert_int_equal(rk_mpa_rtr_check(&req, &rep, &f), 1);
	rep.ird_ord.rtr_read = 1;
	rep.ird_ord.rtr_write = 1;
	assert_int_equal(rk_mpa_rtr_check(&req, &rep, &f), 1);
	rep.ird_ord.rtr_read = 0;
	rep.ird_ord.rtr_write = 0;
	rep.ird_ord.rtr_send = 1;   /* not offered */
	assert_int_equal(rk_mpa_rtr_check(&req, &rep, &f), 1);
	rep.ird_ord.p2p = 0;        /* no P2P: nothing to check */
	assert_int_equal(rk_mpa_rtr_check(&req, &rep, &f), 0);
	assert_int_equal(f.count, 3);
	assert_int_equal(f.list[0].id, RK_F_MPA_RTR_MISMATCH);
}

static void
test_pad_len(void **state)
{
	(void)state;
	assert_int_equal(rk_mpa_pad_len(14), 0);
	assert_int_equal(rk_mpa_pad_len(15), 3);
	assert_int_equal(rk_mpa_pad_len(16), 2);
	assert_int_equal(rk_mpa_pad_len(17), 1);
	assert_int_equal(rk_mpa_pad_len(18), 0);
	assert_int_equal(rk_mpa_pad_len(65535), 3);
	assert_int_equal(rk_mpa_fpdu_len(14), 20);
	assert_int_equal(rk_mpa_fpdu_len(23), 32);
	assert_int_equal(rk_mpa_fpdu_len(65535), RK_MPA_FPDU_MAX);
	for (uint32_t l = 0; l < 70000; l += 7)
		assert_int_equal(rk_mpa_fpdu_len((uint16_t)l) % 4, 0);
}

static void
test_fpdu_build_plain(void **state)
{
	uint8_t ulpdu[23], b[64];
	struct rk_mpa_tx tx = { .crc = true, .seq = 12345 };
	uint32_t crc;

	(void)state;
	rk_test_fill(ulpdu, sizeof(ulpdu));
	assert_int_equal(rk_mpa_fpdu_wire_len(23, &tx), 32);
	memset(b, 0xee, sizeof(b));
	assert_int_equal(rk_mpa_fpdu_build(b, sizeof(b), ulpdu, 23, &tx), 32);
	assert_int_equal(b[0], 0);
	assert_int_equal(b[1], 23);
	assert_memory_equal(b + 2, ulpdu, 23);
	assert_int_equal(b[25], 0);
	assert_int_equal(b[26], 0);
	assert_int_equal(b[27], 0);
	crc = ref_crc32c(b, 28);
	assert_int_equal(rk_get_le32(b + 28), crc);
	assert_int_equal(b[32], 0xee);

	/* Known answer: a 14-byte all-zero ULPDU -> CRC32c of 00 0e + 14 zeros. */
	memset(ulpdu, 0, sizeof(ulpdu));
	assert_int_equal(rk_mpa_fpdu_build(b, sizeof(b), ulpdu, 14, &tx), 20);
	assert_int_equal(rk_get_le32(b + 16), ref_crc32c(b, 16));
	assert_int_equal(rk_get_le32(b + 16), rk_crc32c(b, 16));

	/* CRC off: the field is still there, as zeros. */
	tx.crc = false;
	assert_int_equal(rk_mpa_fpdu_build(b, sizeof(b), ulpdu, 14, &tx), 20);
	assert_int_equal(rk_get_le32(b + 16), 0);

	assert_int_equal(rk_mpa_fpdu_build(b, 19, ulpdu, 14, &tx), -ENOSPC);
	assert_int_equal(rk_mpa_fpdu_build(b, 64, NULL, 14, &tx), -EINVAL);
	assert_int_equal(rk_mpa_fpdu_build(b, 64, ulpdu, 14, NULL), -EINVAL);
}

/* Independent reading of a marked FPDU: strip markers by grid position. */
static uint32_t
strip(const uint8_t *w, uint32_t wl, uint32_t seq, uint32_t seq0, uint8_t *out,
      uint16_t *ptrs, uint32_t *nptr)
{
	uint32_t o = 0, i = 0;

	*nptr = 0;
	while (i < wl) {
		if (((seq + i - seq0) % 512) == 0) {
			assert_int_equal(rk_get_be16(w + i), 0);
			ptrs[(*nptr)++] = rk_get_be16(w + i + 2);
			i += 4;
			continue;
		}
		out[o++] = w[i++];
	}
	return o;
}

static void
test_fpdu_build_markers(void **state)
{
	static uint8_t ulpdu[3000], w[4000], plain[4000];
	uint16_t ptrs[16];
	uint32_t np, n;
	struct rk_mpa_tx tx = { .markers = true, .crc = true, .seq = 1000, .marker_seq0 = 1000 };
	int wl;

	(void)state;
	rk_test_fill(ulpdu, sizeof(ulpdu));
	/* First FPDU at SeqStart: 1008 marker-free bytes, markers at 0 and 512. */
	wl = rk_mpa_fpdu_build(w, sizeof(w), ulpdu, 1000, &tx);
	assert_int_equal(wl, 1016);
	assert_int_equal(rk_mpa_fpdu_wire_len(1000, &tx), 1016);
	assert_int_equal(rk_get_be32(w), 0);             /* leading marker */
	assert_int_equal(rk_get_be16(w + 4), 1000);      /* ULPDU_Length */
	assert_int_equal(rk_get_be16(w + 512), 0);
	assert_int_equal(rk_get_be16(w + 514), 508);     /* 512 - 4 back to the header */
	n = strip(w, (uint32_t)wl, 1000, 1000, plain, ptrs, &np);
	assert_int_equal(n, 1008);
	assert_int_equal(np, 2);
	assert_memory_equal(plain + 2, ulpdu, 1000);
	/* CRC covers both markers: everything before the CRC field. */
	assert_int_equal(rk_get_le32(w + 1012), ref_crc32c(w, 1012));

	/* Next FPDUs: every marker points back to its FPDU's header. */
	for (int it = 0; it < 300; it++) {
		uint16_t l = (uint16_t)(rk_test_rand() % 3000);
		uint32_t seq;

		tx.seq += (uint32_t)wl;
		seq = tx.seq;
		wl = rk_mpa_fpdu_build(w, sizeof(w), ulpdu, l, &tx);
		assert_int_equal(wl, rk_mpa_fpdu_wire_len(l, &tx));
		n = strip(w, (uint32_t)wl, seq, tx.marker_seq0, plain, ptrs, &np);
		assert_int_equal(n, rk_mpa_fpdu_len(l));
		assert_int_equal(rk_get_be16(plain), l);
		assert_memory_equal(plain + 2, ulpdu, l);
		for (uint32_t k = 0, i = 0; i < (uint32_t)wl; i++) {
			if (((seq + i - tx.marker_seq0) % 512) != 0)
				continue;
			/* 0 when the marker leads, else its distance to the header. */
			assert_int_equal(ptrs[k], i == 0 ? 0 : (uint16_t)(i - (((seq - tx.marker_seq0) % 512) == 0 ? 4 : 0)));
			k++;
			i += 3;
		}
		/* Right after the FPDU comes the next one, never a trailing marker. */
		assert_int_equal(((seq - tx.marker_seq0) % 4), 0);
	}
}

/* A grid that wraps past 2^32. */
static void
test_fpdu_build_wrap(void **state)
{
	static uint8_t ulpdu[2000], w[3000], plain[3000];
	uint16_t ptrs[16];
	uint32_t np;
	struct rk_mpa_tx tx = { .markers = true, .crc = true, .seq = 0xffffff00u,
				.marker_seq0 = 0xfffffe00u };
	int wl;

	(void)state;
	rk_test_fill(ulpdu, sizeof(ulpdu));
	wl = rk_mpa_fpdu_build(w, sizeof(w), ulpdu, 2000, &tx);
	/* 256 bytes to the first marker at 0, then every 512. */
	assert_int_equal(rk_get_be16(w + 256 + 2), 256);
	assert_int_equal(rk_get_be16(w + 768 + 2), 768);
	assert_int_equal(strip(w, (uint32_t)wl, tx.seq, tx.marker_seq0, plain, ptrs, &np),
			 rk_mpa_fpdu_len(2000));
	assert_int_equal(np, 4);
	assert_memory_equal(plain + 2, ulpdu, 2000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32c_vectors),
		cmocka_unit_test(test_mpa_tables),
		cmocka_unit_test(test_rr_request_bytes),
		cmocka_unit_test(test_rr_enhanced),
		cmocka_unit_test(test_rr_findings),
		cmocka_unit_test(test_rtr_check),
		cmocka_unit_test(test_pad_len),
		cmocka_unit_test(test_fpdu_build_plain),
		cmocka_unit_test(test_fpdu_build_markers),
		cmocka_unit_test(test_fpdu_build_wrap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
