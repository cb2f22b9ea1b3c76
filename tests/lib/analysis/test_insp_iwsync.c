/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of lib/analysis/rk_insp_iwsync.c (FPDU boundary of a stream joined
 * mid-connection) and rk_insp_cmconn.c (CM connections): streams built by
 * rk_mpa_fpdu_build() with and without markers and CRC, cut at every
 * offset of their first FPDUs; bytes that are no MPA stream; CM messages
 * matched to their connection by Communication ID.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rk_ddp.h"
#include "rk_insp_cmconn.h"
#include "rk_insp_iwsync.h"
#include "rk_mad.h"
#include "rk_rdmap.h"

#define NFPDU 40
#define SEQ0 0xfffffe00u        /* the stream wraps through 2^32 */

struct stream {
	uint8_t buf[64 << 10];
	uint32_t len;
	uint32_t start[NFPDU];   /* offset of each FPDU's first byte (a leading marker's) */
	uint32_t hdr[NFPDU];     /* offset of each ULPDU_Length */
};

/* SENDs and WRITEs of varied sizes from SEQ0 (SeqStart) on. */
static void
build(struct stream *s, bool markers, bool crc)
{
	struct rk_mpa_tx tx = { .markers = markers, .crc = crc, .seq = SEQ0,
				.marker_seq0 = SEQ0 };
	uint8_t ul[4096];

	s->len = 0;
	for (uint32_t i = 0; i < NFPDU; i++) {
		bool tagged = i % 3 == 1;
		uint32_t h = tagged ? RK_DDP_TAGGED_LEN : RK_DDP_UNTAGGED_LEN;
		uint32_t pay = (i * 211) % 1500 + 1;
		int n;

		memset(ul, 0, h);
		rk_ddp_set_t(ul, tagged);
		rk_ddp_set_l(ul, 1);
		rk_ddp_set_dv(ul, 1);
		rk_rdmap_set_rv(ul, 1);
		rk_rdmap_set_opcode(ul, tagged ? RK_RDMAP_WRITE : RK_RDMAP_SEND);
		if (tagged) {
			rk_ddp_set_stag(ul, 0x100 + i);
			rk_ddp_set_to(ul, 0x10000ull * i);
		} else {
			rk_ddp_set_msn(ul, i + 1);
		}
		for (uint32_t k = 0; k < pay; k++)
			ul[h + k] = (uint8_t)(k * 7 + i);
		s->start[i] = s->len;
		n = rk_mpa_fpdu_build(s->buf + s->len, sizeof(s->buf) - s->len, ul,
				      (uint16_t)(h + pay), &tx);
		assert_true(n > 0);
		s->hdr[i] = s->len + (markers && ((tx.seq - SEQ0) % RK_MPA_MARKER_SPACING) == 0 ?
				      RK_MPA_MARKER_LEN : 0);
		tx.seq += (uint32_t)n;
		s->len += (uint32_t)n;
	}
}

/* The first FPDU starting at or after offset @p cut. */
static uint32_t
first_after(const struct stream *s, uint32_t cut)
{
	for (uint32_t i = 0; i < NFPDU; i++)
		if (s->start[i] >= cut)
			return i;
	return NFPDU;
}

static void
test_no_markers(void **state, bool crc)
{
	static struct stream s;
	static struct rk_mpa_stream scratch;
	struct rk_insp_iwsync out;

	(void)state;
	build(&s, false, crc);
	/* Every cut inside the first three FPDUs: the next FPDU start. */
	for (uint32_t cut = 0; cut < s.start[3]; cut += 3) {
		uint32_t i = first_after(&s, cut);
		int rc = rk_insp_iwsync_find(s.buf + cut, s.len - cut, SEQ0 + cut, false,
					     &scratch, &out);

		assert_int_equal(rc, 1);
		assert_int_equal(out.seq, SEQ0 + s.start[i]);
		assert_false(out.params.markers);
		assert_int_equal(out.params.crc, crc);
	}
}

static void
test_no_markers_crc(void **state)
{
	test_no_markers(state, true);
}

static void
test_no_markers_no_crc(void **state)
{
	test_no_markers(state, false);
}

/*
 * With markers: the grid from the markers, and the FPDUs from the first one
 * after the cut (those before the one a marker points at framed back from
 * it); without CRC, a cut inside a leading marker leaves its FPDU's
 * ULPDU_Length to start from.
 */
static void
test_markers(void **state)
{
	static struct stream s;
	static struct rk_mpa_stream scratch;
	struct rk_insp_iwsync out;

	(void)state;
	build(&s, true, true);
	for (uint32_t cut = 1; cut < 3000; cut += 7) {
		uint32_t want = UINT32_MAX;
		int rc;

		/* A cut inside a leading marker: that FPDU's CRC covered the
		 * marker, so it cannot be checked; the next one. */
		for (uint32_t i = 0; i < NFPDU && want == UINT32_MAX; i++)
			if (s.start[i] >= cut)
				want = s.start[i];
		rc = rk_insp_iwsync_find(s.buf + cut, s.len - cut, SEQ0 + cut, false, &scratch,
					 &out);
		assert_int_equal(rc, 1);
		assert_int_equal(out.seq, SEQ0 + want);
		assert_true(out.params.markers);
		assert_true(out.params.crc);
		assert_int_equal((out.marker_seq0 - SEQ0) % RK_MPA_MARKER_SPACING, 0);
	}
	/* Without CRC too: the headers and the marker grid vouch. */
	build(&s, true, false);
	for (uint32_t cut = 1; cut < 3000; cut += 13) {
		uint32_t want = UINT32_MAX;

		for (uint32_t i = 0; i < NFPDU && want == UINT32_MAX; i++) {
			if (s.start[i] >= cut)
				want = s.start[i];
			else if (s.hdr[i] >= cut)
				want = s.hdr[i];
		}
		assert_int_equal(rk_insp_iwsync_find(s.buf + cut, s.len - cut, SEQ0 + cut, false,
						     &scratch, &out), 1);
		assert_int_equal(out.seq, SEQ0 + want);
		assert_true(out.params.markers);
		assert_false(out.params.crc);
	}
}

/* Bytes that are no MPA stream: more wanted, then refused. */
static void
test_not_mpa(void **state)
{
	static uint8_t buf[RK_INSP_IWSYNC_MAX];
	static struct rk_mpa_stream scratch;
	struct rk_insp_iwsync out;
	uint32_t x = 12345;

	(void)state;
	for (uint32_t i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
	assert_int_equal(rk_insp_iwsync_find(buf, 4096, 1, false, &scratch, &out), 0);
	assert_int_equal(rk_insp_iwsync_find(buf, 4096, 1, true, &scratch, &out), -1);
	assert_int_equal(rk_insp_iwsync_find(buf, sizeof(buf), 1, false, &scratch, &out), -1);
	/* All zeros: marker-like everywhere, but ULPDU_Length 0 frames nothing. */
	memset(buf, 0, sizeof(buf));
	assert_int_equal(rk_insp_iwsync_find(buf, sizeof(buf), 1, false, &scratch, &out), -1);
	assert_int_equal(rk_insp_iwsync_find(NULL, 0, 1, true, &scratch, &out), -1);
}

/* A few FPDUs at the stream's end: one with a good CRC is enough then. */
static void
test_final(void **state)
{
	static struct stream s;
	static struct rk_mpa_stream scratch;
	struct rk_insp_iwsync out;
	uint32_t cut;

	(void)state;
	build(&s, false, true);
	cut = s.start[1] + 5;
	/* Two FPDUs after the cut are there: 2 and the start of 3 */
	assert_int_equal(rk_insp_iwsync_find(s.buf + cut, s.start[3] - cut, SEQ0 + cut, false,
					     &scratch, &out), 0);
	assert_int_equal(rk_insp_iwsync_find(s.buf + cut, s.start[3] - cut, SEQ0 + cut, true,
					     &scratch, &out), 1);
	assert_int_equal(out.seq, SEQ0 + s.start[2]);
	assert_true(out.params.crc);
}

/* FPDUs near the largest (markers and all under 64 KiB, so that FPDUPTR
 * reaches every marker): two of them still fit in the bytes kept. */
static void
test_big_fpdus(void **state)
{
	static uint8_t ul[65535], buf[4 * 65600];
	static struct rk_mpa_stream scratch;
	struct rk_mpa_tx tx = { .markers = true, .crc = true, .seq = 7, .marker_seq0 = 7 };
	struct rk_insp_iwsync out;
	uint32_t len = 0, second = 0;

	(void)state;
	memset(ul, 0x5a, sizeof(ul));
	memset(ul, 0, RK_DDP_TAGGED_LEN);
	rk_ddp_set_t(ul, 1);
	rk_ddp_set_l(ul, 1);
	rk_ddp_set_dv(ul, 1);
	rk_rdmap_set_rv(ul, 1);
	rk_rdmap_set_opcode(ul, RK_RDMAP_WRITE);
	for (int i = 0; i < 4; i++) {
		int n = rk_mpa_fpdu_build(buf + len, sizeof(buf) - len, ul, 65000, &tx);

		assert_true(n > 65000);
		if (i == 1)
			second = len;
		tx.seq += (uint32_t)n;
		len += (uint32_t)n;
	}
	assert_true(len - 1000 > 3 * 65000);
	/* Cut in the first FPDU: its markers point back before the cut, the
	 * second FPDU's lead marker (or an inner one) gives the boundary. */
	assert_int_equal(rk_insp_iwsync_find(buf + 1000, len - 1000, 7 + 1000, false,
					     &scratch, &out), 1);
	assert_true(out.params.markers && out.params.crc);
	assert_true(out.seq - 7 >= second && out.seq - 7 <= second + RK_MPA_MARKER_LEN);
}

static void
cm_mad(struct rk_mad *m, uint16_t attr, uint32_t local, uint32_t remote, uint32_t qpn)
{
	memset(m, 0, sizeof(*m));
	m->base_version = 1;
	m->mgmt_class = RK_MAD_CLASS_COMM;
	m->class_version = 2;
	m->method = 3;
	m->attr_id = attr;
	m->cm.fields = RK_MAD_CM_F_LOCAL_ID | RK_MAD_CM_F_REMOTE_ID;
	m->cm.local_comm_id = local;
	m->cm.remote_comm_id = remote;
	if (qpn != 0) {
		m->cm.fields |= RK_MAD_CM_F_QPN | RK_MAD_CM_F_PSN;
		m->cm.qpn = qpn;
		m->cm.starting_psn = qpn + 1000;
	}
}

static void
test_cmconn(void **state)
{
	static const uint8_t a[16] = { [10] = 0xff, [11] = 0xff, 198, 18, 0, 1 };
	static const uint8_t b[16] = { [10] = 0xff, [11] = 0xff, 198, 18, 0, 2 };
	struct rk_insp_cmconns t;
	const struct rk_insp_cmconn *c;
	struct rk_mad m;
	int side = -1;

	(void)state;
	assert_int_equal(rk_insp_cmconn_init(&t), 0);
	cm_mad(&m, RK_MAD_CM_REQ, 0x10, 0, 0x55);
	m.cm.fields &= ~RK_MAD_CM_F_REMOTE_ID;
	c = rk_insp_cmconn_mad(&t, a, b, false, &m, 1);
	assert_non_null(c);
	/* Resent REQ: the same connection. */
	assert_ptr_equal(rk_insp_cmconn_mad(&t, a, b, false, &m, 2), c);
	/* Not paired before the REP. */
	assert_null(rk_insp_cmconn_of_flow(&t, a, b, 0x66, &side));
	cm_mad(&m, RK_MAD_CM_REP, 0x20, 0x10, 0x66);
	assert_ptr_equal(rk_insp_cmconn_mad(&t, b, a, false, &m, 3), c);
	cm_mad(&m, RK_MAD_CM_RTU, 0x10, 0x20, 0);
	assert_ptr_equal(rk_insp_cmconn_mad(&t, a, b, false, &m, 4), c);
	cm_mad(&m, RK_MAD_CM_DREQ, 0x20, 0x10, 0);
	assert_ptr_equal(rk_insp_cmconn_mad(&t, b, a, false, &m, 5), c);
	assert_true(c->rep_seen);
	assert_int_equal(c->comm_id[1], 0x20);
	assert_int_equal(c->qpn[0], 0x55);
	assert_int_equal(c->qpn[1], 0x66);
	assert_int_equal(c->psn[1], 0x66 + 1000);
	assert_int_equal(c->seen, rk_insp_cmconn_bit(RK_MAD_CM_REQ) |
			 rk_insp_cmconn_bit(RK_MAD_CM_REP) | rk_insp_cmconn_bit(RK_MAD_CM_RTU) |
			 rk_insp_cmconn_bit(RK_MAD_CM_DREQ));
	assert_int_equal(c->mads, 5);
	/* Each direction's flow goes to the other side's QPN. */
	assert_ptr_equal(rk_insp_cmconn_of_flow(&t, a, b, 0x66, &side), c);
	assert_int_equal(side, 0);
	assert_ptr_equal(rk_insp_cmconn_of_flow(&t, b, a, 0x55, &side), c);
	assert_int_equal(side, 1);
	assert_null(rk_insp_cmconn_of_flow(&t, b, a, 0x66, &side));
	/* A DREP naming an unknown ID, and SIDR, are not matched. */
	cm_mad(&m, RK_MAD_CM_DREP, 0x99, 0x98, 0);
	assert_null(rk_insp_cmconn_mad(&t, a, b, false, &m, 6));
	assert_int_equal(t.unmatched, 1);
	cm_mad(&m, RK_MAD_CM_SIDR_REQ, 0x10, 0, 0);
	assert_null(rk_insp_cmconn_mad(&t, a, b, false, &m, 7));
	/* REJ of a second REQ by the passive side (its LocalCommID 0). */
	cm_mad(&m, RK_MAD_CM_REQ, 0x11, 0, 0x77);
	c = rk_insp_cmconn_mad(&t, a, b, false, &m, 8);
	cm_mad(&m, RK_MAD_CM_REJ, 0, 0x11, 0);
	m.cm.fields |= RK_MAD_CM_F_REASON;
	m.cm.reason = 28;
	assert_ptr_equal(rk_insp_cmconn_mad(&t, b, a, false, &m, 9), c);
	assert_int_equal(c->rej_reason, 28);
	assert_false(c->rep_seen);
	assert_int_equal(t.n, 2);
	rk_insp_cmconn_fini(&t);
}

/* The tables: names by class, common rows as fallback, R bit included. */
static void
test_mad_tables(void **state)
{
	uint8_t mad[RK_MAD_BYTES] = { 1, RK_MAD_CLASS_COMM, 2, 3 };
	struct rk_findings f;
	struct rk_mad m;

	(void)state;
	assert_string_equal(rk_mad_class_info(RK_MAD_CLASS_SUBN_ADM)->name, "SA");
	assert_string_equal(rk_mad_method_info(RK_MAD_CLASS_SUBN_ADM, 0x92)->name,
			    "SubnAdmGetTableResp");
	assert_string_equal(rk_mad_method_info(RK_MAD_CLASS_SUBN_DR, 0x81)->name, "SubnGetResp");
	assert_string_equal(rk_mad_method_info(0x0a, 0x81)->name, "GetResp");
	assert_null(rk_mad_method_info(RK_MAD_CLASS_COMM, 0x7f));
	assert_string_equal(rk_mad_attr_info(RK_MAD_CLASS_SUBN_ADM, 0x35)->name, "PathRecord");
	assert_string_equal(rk_mad_attr_info(RK_MAD_CLASS_SUBN_LID, 0x11)->name, "NodeInfo");
	assert_string_equal(rk_mad_attr_info(RK_MAD_CLASS_COMM, 0x11)->name, "MRA");
	assert_string_equal(rk_mad_attr_info(RK_MAD_CLASS_PERF, 0x01)->name, "ClassPortInfo");
	assert_string_equal(rk_mad_attr_info(RK_MAD_CLASS_COMM, 0x1a)->spec, "IBTA Vol1 12.6");
	assert_string_equal(rk_mad_cm_rej_reason_name(28), "consumer reject");
	assert_null(rk_mad_cm_rej_reason_name(0));
	/* REP fields; a short MAD keeps the ones it holds. */
	mad[17] = RK_MAD_CM_REP;
	mad[24 + 3] = 0x42;             /* LocalCommID */
	mad[24 + 14] = 0x07;            /* Local QPN */
	mad[24 + 22] = 0x09;            /* Starting PSN */
	memset(&f, 0, sizeof(f));
	assert_int_equal(rk_mad_parse(mad, sizeof(mad), sizeof(mad), &m, &f, 0), 0);
	assert_int_equal(f.count, 0);
	assert_int_equal(m.cm.local_comm_id, 0x42);
	assert_int_equal(m.cm.qpn, 7);
	assert_int_equal(m.cm.starting_psn, 9);
	assert_int_equal(rk_mad_parse(mad, 40, 40, &m, &f, 100), 0);
	assert_int_equal(f.count, 1);
	assert_int_equal(f.list[0].id, RK_F_MAD_LENGTH);
	assert_int_equal(f.list[0].offset, 100);
	assert_true(m.cm.fields & RK_MAD_CM_F_QPN);
	assert_false(m.cm.fields & RK_MAD_CM_F_PSN);
	/* Snap-length cut: no finding, fields past it unset. */
	memset(&f, 0, sizeof(f));
	assert_int_equal(rk_mad_parse(mad, 30, 256, &m, &f, 0), 0);
	assert_int_equal(f.count, 0);
	assert_true(m.cm.fields & RK_MAD_CM_F_LOCAL_ID);
	assert_false(m.cm.fields & RK_MAD_CM_F_QPN);
	assert_int_equal(rk_mad_parse(mad, 10, 256, &m, &f, 0), -EAGAIN);
	assert_int_equal(rk_mad_parse(mad, 10, 10, &m, &f, 0), -EBADMSG);
	assert_int_equal(f.list[0].id, RK_F_MAD_TRUNCATED);
	assert_int_equal(rk_mad_parse(NULL, 10, 10, &m, &f, 0), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_markers_crc),
		cmocka_unit_test(test_no_markers_no_crc),
		cmocka_unit_test(test_markers),
		cmocka_unit_test(test_not_mpa),
		cmocka_unit_test(test_final),
		cmocka_unit_test(test_big_fpdus),
		cmocka_unit_test(test_cmconn),
		cmocka_unit_test(test_mad_tables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
