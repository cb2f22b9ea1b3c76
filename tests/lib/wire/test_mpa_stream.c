/* SPDX-License-Identifier: BSD-3-Clause */
/* The MPA stream deframer: framing, markers, CRC, splits, wrap, gaps. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rk_byteorder.h"
#include "rk_crc.h"
#include "rk_ddp.h"
#include "rk_finding.h"
#include "rk_mpa.h"
#include "rk_rdmap.h"
#include "rk_test.h"

/* What one event looked like (copied out of the callback). */
struct rec {
	int kind;
	uint32_t seq;
	uint64_t off;
	uint32_t wire_len;
	uint16_t ulpdu_len;
	uint32_t ulpdu_hash;
	uint8_t opcode;
	bool crc_checked, crc_ok;
	uint16_t nmarkers;
	bool markers_ok;
	int lost;
	bool resync_possible;
	bool p_markers, p_crc, p_inferred;
	uint16_t nfind;
	uint16_t find[8];
	uint32_t find_off[8];
	uint32_t marker_at[8];
	uint32_t crc_start;
};

#define MAXEV 512

struct log {
	struct rec r[MAXEV];
	size_t n;
	size_t overflow;
};

static void
record(const struct rk_mpa_event *ev, void *ctx)
{
	struct log *lg = ctx;
	struct rec *r;

	if (lg->n >= MAXEV) {
		lg->overflow++;
		return;
	}
	r = &lg->r[lg->n++];
	memset(r, 0, sizeof(*r));
	r->kind = ev->kind;
	r->seq = ev->seq;
	r->off = ev->stream_off;
	r->wire_len = ev->wire_len;
	r->lost = ev->lost;
	r->resync_possible = ev->resync_possible;
	r->p_markers = ev->params.markers;
	r->p_crc = ev->params.crc;
	r->p_inferred = ev->params_inferred;
	r->nfind = ev->findings.count;
	for (unsigned int i = 0; i < ev->findings.count && i < 8; i++) {
		r->find[i] = ev->findings.list[i].id;
		r->find_off[i] = ev->findings.list[i].offset;
	}
	if (ev->kind == RK_MPA_EV_FPDU) {
		const struct rk_mpa_fpdu *f = &ev->fpdu;

		r->ulpdu_len = f->ulpdu_len;
		r->ulpdu_hash = rk_crc32(f->ulpdu, f->ulpdu_len);
		r->opcode = f->msg.ddp_ok ? f->msg.opcode : 0xff;
		r->crc_checked = f->crc_checked;
		r->crc_ok = f->crc_ok;
		r->nmarkers = f->nmarkers;
		r->markers_ok = f->markers_ok;
		r->crc_start = 2u + f->ulpdu_len + f->pad_len;
		for (unsigned int i = 0; i < f->nmarkers && i < 8; i++)
			r->marker_at[i] = f->markers[i].at;
		/* The event's own pointers stay inside what it says. */
		assert_int_equal(f->pad_len, rk_mpa_pad_len(f->ulpdu_len));
		assert_true(ev->wire_len == rk_mpa_fpdu_len(f->ulpdu_len) + 4u * f->nmarkers);
	}
}

static size_t
count_finding(const struct log *lg, enum rk_finding_id id)
{
	size_t n = 0;

	for (size_t i = 0; i < lg->n; i++)
		for (unsigned int k = 0; k < lg->r[i].nfind && k < 8; k++)
			n += lg->r[i].find[k] == id;
	return n;
}

static size_t
count_all_findings(const struct log *lg)
{
	size_t n = 0;

	for (size_t i = 0; i < lg->n; i++)
		n += lg->r[i].nfind;
	return n;
}

/* A sender: MPA frame then FPDUs, with what the deframer should report. */
struct exp {
	int kind;
	uint32_t seq;
	uint32_t wire_len;
	uint16_t ulpdu_len;
	uint32_t ulpdu_hash;
	uint8_t opcode;
	uint16_t nmarkers;
};

#define GEN_CAP (1u << 20)

struct gen {
	uint8_t *buf;
	size_t len;
	uint32_t seq0;          /* TCP sequence number of buf[0] */
	struct rk_mpa_tx tx;
	struct exp e[MAXEV];
	size_t ne;
	uint32_t msn[3];
};

static struct gen *
gen_new(uint32_t seq0, bool markers, bool crc)
{
	struct gen *g = calloc(1, sizeof(*g));

	assert_non_null(g);
	g->buf = malloc(GEN_CAP);
	assert_non_null(g->buf);
	g->seq0 = seq0;
	g->tx.markers = markers;
	g->tx.crc = crc;
	g->tx.seq = seq0;
	g->tx.marker_seq0 = seq0;
	g->msn[0] = g->msn[1] = g->msn[2] = 1;
	return g;
}

static void
gen_free(struct gen *g)
{
	free(g->buf);
	free(g);
}

static void
gen_frame(struct gen *g, const struct rk_mpa_rr *rr)
{
	int n = rk_mpa_rr_build(g->buf + g->len, GEN_CAP - g->len, rr);

	assert_true(n > 0);
	g->e[g->ne++] = (struct exp){
		.kind = rr->reply ? RK_MPA_EV_REPLY : RK_MPA_EV_REQUEST,
		.seq = g->seq0 + (uint32_t)g->len, .wire_len = (uint32_t)n,
	};
	g->len += (size_t)n;
	/* RFC 5044 4.3: markers start right after the frame. */
	g->tx.seq = g->seq0 + (uint32_t)g->len;
	g->tx.marker_seq0 = g->tx.seq;
}

static uint16_t
grid_count(uint32_t seq, uint32_t wl, uint32_t seq0)
{
	uint16_t n = 0;

	for (uint32_t i = 0; i < wl; i++)
		if (((seq + i - seq0) & 511) == 0)
			n++;
	return n;
}

static void
gen_fpdu(struct gen *g, const uint8_t *ulpdu, uint16_t l)
{
	int n = rk_mpa_fpdu_build(g->buf + g->len, GEN_CAP - g->len, ulpdu, l, &g->tx);

	assert_true(n > 0);
	assert_true(g->ne < MAXEV);
	g->e[g->ne++] = (struct exp){
		.kind = RK_MPA_EV_FPDU, .seq = g->tx.seq, .wire_len = (uint32_t)n,
		.ulpdu_len = l, .ulpdu_hash = rk_crc32(ulpdu, l),
		.opcode = l >= 14 ? ulpdu[1] & 0x0f : 0xff,
		.nmarkers = g->tx.markers ? grid_count(g->tx.seq, (uint32_t)n,
						       g->tx.marker_seq0) : 0,
	};
	g->len += (size_t)n;
	g->tx.seq += (uint32_t)n;
}

static size_t
ddp_untagged(uint8_t *b, uint8_t opcode, uint32_t qn, uint32_t msn, uint32_t mo, uint8_t last)
{
	struct rk_ddp_untagged_fields u = {
		.l = last, .dv = 1, .rsvd_ulp = (uint64_t)(0x40 | opcode) << 32,
		.qn = qn, .msn = msn, .mo = mo,
	};

	rk_ddp_untagged_pack(b, &u);
	return RK_DDP_UNTAGGED_LEN;
}

static size_t
ddp_tagged(uint8_t *b, uint8_t opcode, uint32_t stag, uint64_t to, uint8_t last)
{
	struct rk_ddp_tagged_fields t = {
		.t = 1, .l = last, .dv = 1, .rsvd_ulp = (uint8_t)(0x40 | opcode),
		.stag = stag, .to = to,
	};

	rk_ddp_tagged_pack(b, &t);
	return RK_DDP_TAGGED_LEN;
}

/* One valid DDP segment of a random kind, as a conforming peer sends them. */
static uint16_t
gen_segment(struct gen *g, uint8_t *b, uint32_t max_payload)
{
	uint32_t pl = max_payload ? (uint32_t)(rk_test_rand() % (max_payload + 1)) : 0;
	size_t n;

	switch (rk_test_rand() % 6) {
	case 0: {
		struct rk_rdmap_read_req_fields r = {
			.sink_stag = (uint32_t)rk_test_rand(), .sink_to = rk_test_rand(),
			.rdma_rd_sz = (uint32_t)rk_test_rand(), .src_stag = (uint32_t)rk_test_rand(),
			.src_to = rk_test_rand(),
		};

		n = ddp_untagged(b, RK_RDMAP_READ_REQ, 1, g->msn[1]++, 0, 1);
		rk_rdmap_read_req_pack(b + n, &r);
		return (uint16_t)(n + RK_RDMAP_READ_REQ_LEN);
	}
	case 1: {
		struct rk_rdmap_term_fields t = { .layer = 1, .etype = 2, .err_code = 3,
						  .m = 1, .d = 1 };

		n = ddp_untagged(b, RK_RDMAP_TERMINATE, 2, g->msn[2]++, 0, 1);
		rk_rdmap_term_pack(b + n, &t);
		rk_rdmap_term_set_ddp_seg_len(b + n, 100);
		ddp_untagged(b + n + 6, RK_RDMAP_SEND, 0, 77, 0, 1);
		return (uint16_t)(n + 6 + 18);
	}
	case 2:
		n = ddp_tagged(b, RK_RDMAP_WRITE, (uint32_t)rk_test_rand(), rk_test_rand(), rk_test_rand() & 1);
		break;
	case 3:
		n = ddp_tagged(b, RK_RDMAP_READ_RESP, (uint32_t)rk_test_rand(), rk_test_rand(), rk_test_rand() & 1);
		break;
	case 4:
		n = ddp_untagged(b, RK_RDMAP_SEND_INV, 0, g->msn[0]++, 0, 1);
		rk_rdmap_set_inval_stag(b, (uint32_t)rk_test_rand());
		break;
	default:
		n = ddp_untagged(b, RK_RDMAP_SEND_SE, 0, g->msn[0]++, (uint32_t)rk_test_rand() & 0xffff,
				 rk_test_rand() & 1);
		break;
	}
	rk_test_fill(b + n, pl);
	return (uint16_t)(n + pl);
}

static void
gen_mixed(struct gen *g, int count, uint32_t max_payload)
{
	static uint8_t seg[70000];

	for (int i = 0; i < count; i++)
		gen_fpdu(g, seg, gen_segment(g, seg, max_payload));
}

/* A direction that starts with an MPA Request (M = C = 0 of its own). */
static struct gen *
gen_stream(uint32_t seq0, bool markers, bool crc, int count, uint32_t max_payload)
{
	struct gen *g = gen_new(seq0, markers, crc);
	struct rk_mpa_rr rr = { .rev = 1 };

	gen_frame(g, &rr);
	gen_mixed(g, count, max_payload);
	return g;
}

/* The receiver's frame that puts markers/CRC on this direction. */
static void
apply(struct rk_mpa_stream *s, const struct gen *g)
{
	struct rk_mpa_rr peer = { .reply = true, .rev = 1, .m = g->tx.markers,
				  .c = g->tx.crc };

	rk_mpa_stream_apply_peer(s, &peer);
}

static struct rk_mpa_stream *
stream_new(const struct gen *g)
{
	struct rk_mpa_stream *s = malloc(sizeof(*s));

	assert_non_null(s);
	rk_mpa_stream_init(s);
	apply(s, g);
	return s;
}

static void
feed(struct rk_mpa_stream *s, const struct gen *g, size_t from, size_t to, struct log *lg)
{
	int n = rk_mpa_stream_feed(s, g->seq0 + (uint32_t)from, g->buf + from, to - from,
				   record, lg);

	assert_true(n >= 0);
}

/* The log holds exactly the generator's events, with no findings. */
static void
assert_matches(const struct log *lg, const struct gen *g)
{
	assert_int_equal(lg->overflow, 0);
	assert_int_equal(lg->n, g->ne);
	for (size_t i = 0; i < g->ne; i++) {
		const struct rec *r = &lg->r[i];
		const struct exp *e = &g->e[i];

		if (r->nfind != 0)
			fail_msg("event %zu: finding %s", i, rk_finding_info(r->find[0])->id);
		assert_int_equal(r->kind, e->kind);
		assert_int_equal(r->seq, e->seq);
		assert_int_equal(r->off, (uint32_t)(e->seq - g->seq0));
		assert_int_equal(r->wire_len, e->wire_len);
		if (e->kind != RK_MPA_EV_FPDU)
			continue;
		assert_int_equal(r->ulpdu_len, e->ulpdu_len);
		assert_int_equal(r->ulpdu_hash, e->ulpdu_hash);
		assert_int_equal(r->opcode, e->opcode);
		assert_int_equal(r->nmarkers, e->nmarkers);
		assert_int_equal(r->p_markers, g->tx.markers);
		assert_int_equal(r->p_crc, g->tx.crc);
		assert_int_equal(r->crc_checked, g->tx.crc);
		assert_int_equal(r->crc_ok, g->tx.crc);
		assert_true(r->markers_ok);
	}
}

static void
assert_same_log(const struct log *a, const struct log *b)
{
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++)
		assert_memory_equal(&a->r[i], &b->r[i], sizeof(a->r[i]));
}

static struct log *
log_new(void)
{
	struct log *lg = calloc(1, sizeof(*lg));

	assert_non_null(lg);
	return lg;
}

static const bool cfg[4][2] = {
	{ false, false }, { false, true }, { true, false }, { true, true },
};

static void
test_one_fpdu_per_feed(void **state)
{
	(void)state;
	for (int c = 0; c < 4; c++) {
		struct gen *g = gen_stream(1000, cfg[c][0], cfg[c][1], 40, 1500);
		struct rk_mpa_stream *s = stream_new(g);
		struct log *lg = log_new();
		size_t at = 0;

		/* Each unit (frame, then each FPDU) in its own feed. */
		for (size_t i = 0; i < g->ne; i++) {
			feed(s, g, at, at + g->e[i].wire_len, lg);
			assert_int_equal(lg->n, i + 1);
			at += g->e[i].wire_len;
		}
		assert_int_equal(at, g->len);
		assert_matches(lg, g);
		assert_int_equal(rk_mpa_stream_finish(s, record, lg), 0);
		free(lg);
		free(s);
		gen_free(g);
	}
}

static void
test_many_fpdus_per_feed(void **state)
{
	(void)state;
	for (int c = 0; c < 4; c++) {
		struct gen *g = gen_stream(77, cfg[c][0], cfg[c][1], 200, 3000);
		struct rk_mpa_stream *s = stream_new(g);
		struct log *lg = log_new();

		feed(s, g, 0, g->len, lg);
		assert_matches(lg, g);
		free(lg);
		free(s);
		gen_free(g);
	}
}

static void
test_byte_by_byte(void **state)
{
	(void)state;
	for (int c = 0; c < 4; c++) {
		struct gen *g = gen_stream(0x7fffff00u, cfg[c][0], cfg[c][1], 30, 1200);
		struct rk_mpa_stream *s = stream_new(g);
		struct log *lg = log_new();

		for (size_t i = 0; i < g->len; i++)
			feed(s, g, i, i + 1, lg);
		assert_matches(lg, g);
		free(lg);
		free(s);
		gen_free(g);
	}
}

/* Every split offset, and random chunkings, give the same events. */
static void
test_every_split(void **state)
{
	(void)state;
	for (int c = 0; c < 4; c++) {
		struct gen *g = gen_stream(5000, cfg[c][0], cfg[c][1], 12, 700);
		struct rk_mpa_stream *s = malloc(sizeof(*s));
		struct log *ref = log_new(), *lg = log_new();

		assert_non_null(s);
		rk_mpa_stream_init(s);
		apply(s, g);
		feed(s, g, 0, g->len, ref);
		assert_matches(ref, g);
		for (size_t k = 0; k <= g->len; k++) {
			rk_mpa_stream_init(s);
			apply(s, g);
			lg->n = 0;
			feed(s, g, 0, k, lg);
			feed(s, g, k, g->len, lg);
			assert_same_log(ref, lg);
		}
		for (int it = 0; it < 300; it++) {
			size_t at = 0;

			rk_mpa_stream_init(s);
			apply(s, g);
			lg->n = 0;
			while (at < g->len) {
				size_t n = 1 + (size_t)(rk_test_rand() % 600);

				if (n > g->len - at)
					n = g->len - at;
				feed(s, g, at, at + n, lg);
				at += n;
			}
			assert_same_log(ref, lg);
		}
		free(ref);
		free(lg);
		free(s);
		gen_free(g);
	}
}

/* Markers across a TCP sequence wrap, with every split near the wrap. */
static void
test_markers_seq_wrap(void **state)
{
	struct gen *g = gen_stream(0xffffff00u, true, true, 20, 900);
	struct rk_mpa_stream *s = stream_new(g);
	struct log *ref = log_new(), *lg = log_new();
	bool crossed = false;

	(void)state;
	feed(s, g, 0, g->len, ref);
	assert_matches(ref, g);
	for (size_t i = 1; i < g->ne; i++)
		if (g->e[i].seq < g->e[i - 1].seq)
			crossed = true;
	assert_true(crossed);
	assert_true(g->seq0 + (uint32_t)g->len < g->seq0);
	for (size_t k = 200; k < 300 && k <= g->len; k++) {
		rk_mpa_stream_init(s);
		apply(s, g);
		lg->n = 0;
		feed(s, g, 0, k, lg);
		feed(s, g, k, g->len, lg);
		assert_same_log(ref, lg);
	}
	free(ref);
	free(lg);
	free(s);
	gen_free(g);
}

/* A grid not 4-aligned to the FPDUs puts markers inside ULPDU_Length and CRC. */
static void
test_markers_split_fields(void **state)
{
	static uint8_t seg[4000];
	bool in_hdr = false, in_crc = false;

	(void)state;
	for (uint32_t shift = 1; shift < 4; shift++) {
		struct gen *g = gen_new(9000, true, true);
		struct rk_mpa_stream *s = malloc(sizeof(*s));
		struct rk_mpa_params p = { .rev = 1, .markers = true, .crc = true };
		struct log *lg = log_new(), *lg1 = log_new();

		assert_non_null(s);
		g->tx.marker_seq0 = g->seq0 - shift;
		for (int i = 0; i < 300; i++)
			gen_fpdu(g, seg, gen_segment(g, seg, 1 + (uint32_t)(rk_test_rand() % 1500)));
		rk_mpa_stream_init_fpdu(s, &p, g->seq0, g->tx.marker_seq0);
		feed(s, g, 0, g->len, lg);
		assert_matches(lg, g);
		for (size_t i = 0; i < lg->n; i++)
			for (unsigned int k = 0; k < lg->r[i].nmarkers && k < 8; k++) {
				uint32_t at = lg->r[i].marker_at[k];

				in_hdr |= at == 1;
				in_crc |= at > lg->r[i].crc_start &&
					  at < lg->r[i].crc_start + 4;
			}
		/* Byte by byte gives the same. */
		rk_mpa_stream_init_fpdu(s, &p, g->seq0, g->tx.marker_seq0);
		for (size_t i = 0; i < g->len; i++)
			feed(s, g, i, i + 1, lg1);
		assert_same_log(lg, lg1);
		free(lg);
		free(lg1);
		free(s);
		gen_free(g);
	}
	assert_true(in_hdr);
	assert_true(in_crc);
}

static void
test_crc_bad_once(void **state)
{
	(void)state;
	for (int markers = 0; markers < 2; markers++) {
		struct gen *g = gen_stream(300, markers, true, 10, 2000);
		struct rk_mpa_stream *s = stream_new(g);
		struct log *lg = log_new();
		const struct exp *e = &g->e[4];

		uint32_t flip = e->wire_len / 2;

		/* Flip a bit in the ULPDU of the 4th FPDU (event 4), not in a marker. */
		while (markers && ((e->seq + flip - g->tx.marker_seq0) & 511) < 4)
			flip++;
		g->buf[(e->seq - g->seq0) + flip] ^= 0x10;
		for (size_t i = 0; i < g->len; i += 97)
			feed(s, g, i, i + 97 < g->len ? i + 97 : g->len, lg);
		assert_int_equal(lg->n, g->ne);
		assert_int_equal(count_finding(lg, RK_F_MPA_CRC_BAD), 1);
		assert_int_equal(count_all_findings(lg), 1);
		assert_false(lg->r[4].crc_ok);
		assert_int_equal(lg->r[4].find[0], RK_F_MPA_CRC_BAD);
		/* It points at the CRC field: the FPDU's last 4 bytes here. */
		assert_int_equal(lg->r[4].find_off[0], e->wire_len - 4);
		for (size_t i = 1; i < g->ne; i++)
			if (i != 4)
				assert_true(lg->r[i].crc_ok);
		free(lg);
		free(s);
		gen_free(g);
	}
}

/* Index in buf of a marker inside FPDU @p k (not its leading one). */
static size_t
inner_marker(const struct gen *g, size_t k)
{
	const struct exp *e = &g->e[k];

	for (uint32_t i = 4; i < e->wire_len; i++)
		if (((e->seq + i - g->tx.marker_seq0) & 511) == 0)
			return (size_t)(e->seq - g->seq0) + i;
	fail_msg("no inner marker");
	return 0;
}

static void
test_marker_bad_once(void **state)
{
	(void)state;
	for (int crc = 0; crc < 2; crc++) {
		struct gen *g = gen_new(40, true, crc);
		struct rk_mpa_rr rr = { .rev = 1 };
		struct rk_mpa_stream *s;
		struct log *lg = log_new();
		static uint8_t seg[3000];
		size_t at;

		gen_frame(g, &rr);
		for (int i = 0; i < 8; i++) {
			uint16_t l = (uint16_t)ddp_tagged(seg, RK_RDMAP_WRITE, 1, 2, 1);

			rk_test_fill(seg + l, 2000);
			gen_fpdu(g, seg, (uint16_t)(l + 2000));
		}
		s = stream_new(g);
		at = inner_marker(g, 3);
		g->buf[at + 3] ^= 0x04;           /* FPDUPTR off by 4 */
		g->buf[inner_marker(g, 6)] = 0x80; /* Reserved half not 0 */
		feed(s, g, 0, g->len, lg);
		assert_int_equal(lg->n, g->ne);
		assert_int_equal(count_finding(lg, RK_F_MPA_MARKER_FPDUPTR), 1);
		assert_int_equal(count_finding(lg, RK_F_MPA_MARKER_RESERVED), 1);
		assert_false(lg->r[3].markers_ok);
		assert_int_equal(lg->r[3].find[0], RK_F_MPA_MARKER_FPDUPTR);
		assert_int_equal(lg->r[3].find_off[0], at - (g->e[3].seq - g->seq0));
		/* Markers are inside the CRC: with CRC on, those FPDUs fail it too. */
		assert_int_equal(count_finding(lg, RK_F_MPA_CRC_BAD), crc ? 2 : 0);
		assert_int_equal(count_all_findings(lg), crc ? 4 : 2);
		/* Framing is kept: every payload is right. */
		for (size_t i = 1; i < g->ne; i++)
			assert_int_equal(lg->r[i].ulpdu_hash, g->e[i].ulpdu_hash);
		free(lg);
		free(s);
		gen_free(g);
	}
}

static void
test_truncated(void **state)
{
	struct gen *g = gen_stream(1, true, true, 6, 1000);
	struct rk_mpa_stream *s = stream_new(g);
	struct log *lg = log_new();
	const struct exp *last = &g->e[g->ne - 1];

	(void)state;
	feed(s, g, 0, g->len - 7, lg);
	assert_int_equal(lg->n, g->ne - 1);
	assert_int_equal(rk_mpa_stream_finish(s, record, lg), 1);
	assert_int_equal(lg->r[g->ne - 1].kind, RK_MPA_EV_LOST_SYNC);
	assert_int_equal(lg->r[g->ne - 1].lost, RK_MPA_LOST_TRUNCATED);
	assert_int_equal(lg->r[g->ne - 1].seq, last->seq);
	assert_int_equal(lg->r[g->ne - 1].wire_len, last->wire_len - 7);
	for (size_t i = 1; i < g->ne - 1; i++)
		assert_int_equal(lg->r[i].ulpdu_hash, g->e[i].ulpdu_hash);
	/* Nothing more after the end. */
	feed(s, g, g->len - 7, g->len, lg);
	assert_int_equal(lg->n, g->ne);

	/* Truncated inside the MPA frame. */
	rk_mpa_stream_init(s);
	lg->n = 0;
	feed(s, g, 0, 10, lg);
	assert_int_equal(lg->n, 0);
	assert_int_equal(rk_mpa_stream_finish(s, record, lg), 1);
	assert_int_equal(lg->r[0].lost, RK_MPA_LOST_TRUNCATED);
	free(lg);
	free(s);
	gen_free(g);
}

static void
test_gap_without_markers(void **state)
{
	struct gen *g = gen_stream(100, false, true, 10, 1000);
	struct rk_mpa_stream *s = stream_new(g);
	struct log *lg = log_new();
	size_t hole = (size_t)(g->e[3].seq - g->seq0) + 5;

	(void)state;
	feed(s, g, 0, hole, lg);
	assert_int_equal(lg->n, 3);
	/* 20 bytes lost, then the rest arrives. */
	feed(s, g, hole + 20, g->len, lg);
	assert_int_equal(lg->n, 4);
	assert_int_equal(lg->r[3].kind, RK_MPA_EV_LOST_SYNC);
	assert_int_equal(lg->r[3].lost, RK_MPA_LOST_GAP);
	assert_false(lg->r[3].resync_possible);
	assert_int_equal(lg->r[3].seq, g->e[3].seq);
	assert_int_equal(count_finding(lg, RK_F_MPA_SYNC_LOST), 1);
	assert_false(rk_mpa_stream_in_sync(s));
	free(lg);
	free(s);
	gen_free(g);
}

/* After a hole, markers give the next FPDU boundary; later FPDUs are intact. */
static void
test_gap_with_markers(void **state)
{
	(void)state;
	for (int it = 0; it < 60; it++) {
		struct gen *g = gen_stream(0xfffff000u, true, it & 1, 40, 2500);
		struct rk_mpa_stream *s = stream_new(g);
		struct log *lg = log_new();
		size_t k = 2 + (size_t)(rk_test_rand() % 20);
		size_t hole = (size_t)(g->e[k].seq - g->seq0) + (size_t)(rk_test_rand() % g->e[k].wire_len);
		size_t hole_len = 1 + (size_t)(rk_test_rand() % 3000);
		size_t j, i, r;

		feed(s, g, 0, hole, lg);
		assert_int_equal(lg->n, k);
		if (it & 2) {
			assert_int_equal(rk_mpa_stream_gap(s, g->seq0 + (uint32_t)(hole + hole_len),
							   record, lg), 1);
			for (i = hole + hole_len; i < g->len; i += 333)
				feed(s, g, i, i + 333 < g->len ? i + 333 : g->len, lg);
		} else {
			feed(s, g, hole + hole_len, g->len, lg);
		}
		assert_int_equal(lg->r[k].kind, RK_MPA_EV_LOST_SYNC);
		assert_true(lg->r[k].resync_possible);
		assert_int_equal(lg->r[k].find[0], RK_F_MPA_SYNC_LOST);
		/* Then one RESYNC at an FPDU boundary after the hole. */
		assert_true(lg->n > k + 1);
		assert_int_equal(lg->r[k + 1].kind, RK_MPA_EV_RESYNC);
		for (j = k + 1; j < g->ne; j++)
			if (g->e[j].seq == lg->r[k + 1].seq)
				break;
		assert_true(j < g->ne);
		assert_true((size_t)(g->e[j].seq - g->seq0) >= hole + hole_len);
		/* Every FPDU from that boundary on is delivered. */
		assert_int_equal(lg->n - (k + 2), g->ne - j);
		for (i = j, r = k + 2; i < g->ne; i++, r++) {
			assert_int_equal(lg->r[r].kind, RK_MPA_EV_FPDU);
			assert_int_equal(lg->r[r].seq, g->e[i].seq);
			assert_int_equal(lg->r[r].ulpdu_hash, g->e[i].ulpdu_hash);
			assert_int_equal(lg->r[r].nfind, 0);
		}
		free(lg);
		free(s);
		gen_free(g);
	}
}

/* FPDUs of exactly 512 stream bytes: every marker leads an FPDU (FPDUPTR 0),
 * so after a hole framing restarts at the very next marker. */
static void
test_gap_resync_at_leading_marker(void **state)
{
	static uint8_t seg[502];
	struct gen *g = gen_new(0xfffffc00u, true, true);
	struct rk_mpa_rr rr = { .rev = 1 };
	struct rk_mpa_stream *s;
	struct log *lg = log_new();
	size_t hole;

	(void)state;
	gen_frame(g, &rr);
	for (int i = 0; i < 8; i++) {
		ddp_tagged(seg, RK_RDMAP_WRITE, 1, (uint64_t)i, 1);
		rk_test_fill(seg + 14, sizeof(seg) - 14);
		gen_fpdu(g, seg, sizeof(seg));
		assert_int_equal(g->e[g->ne - 1].wire_len, 512);
		assert_int_equal(g->e[g->ne - 1].nmarkers, 1);
	}
	s = stream_new(g);
	hole = (size_t)(g->e[2].seq - g->seq0) + 100;
	feed(s, g, 0, hole, lg);
	feed(s, g, hole + 10, g->len, lg);
	assert_int_equal(lg->n, 2 + 1 + 1 + 6);
	assert_int_equal(lg->r[2].kind, RK_MPA_EV_LOST_SYNC);
	assert_int_equal(lg->r[3].kind, RK_MPA_EV_RESYNC);
	assert_int_equal(lg->r[3].seq, g->e[3].seq);
	for (size_t i = 3; i < g->ne; i++) {
		assert_int_equal(lg->r[i + 1].seq, g->e[i].seq);
		assert_int_equal(lg->r[i + 1].ulpdu_hash, g->e[i].ulpdu_hash);
		assert_true(lg->r[i + 1].crc_ok);
		assert_int_equal(lg->r[i + 1].nfind, 0);
	}
	free(lg);
	free(s);
	gen_free(g);
}

/* The peer's frame arrives in the middle of the second FPDU, after the
 * first FPDU (with a broken CRC) made the deframer infer CRC off. */
static void
test_apply_peer_late(void **state)
{
	struct gen *g = gen_stream(42, false, true, 6, 300);
	struct rk_mpa_stream *s = malloc(sizeof(*s));
	struct log *lg = log_new();
	size_t mid = (size_t)(g->e[2].seq - g->seq0) + 9;

	(void)state;
	assert_non_null(s);
	g->buf[(g->e[1].seq - g->seq0) + g->e[1].wire_len - 1] ^= 1;
	rk_mpa_stream_init(s);
	feed(s, g, 0, mid, lg);
	assert_int_equal(lg->n, 2);
	assert_false(lg->r[1].crc_checked);
	assert_false(lg->r[1].p_crc);
	apply(s, g);
	feed(s, g, mid, g->len, lg);
	assert_int_equal(lg->n, g->ne);
	/* The FPDU in progress missed its CRC start: not checked; later ones are. */
	assert_false(lg->r[2].crc_checked);
	for (size_t i = 3; i < g->ne; i++)
		assert_true(lg->r[i].crc_checked && lg->r[i].crc_ok);
	assert_int_equal(count_all_findings(lg), 0);
	free(lg);
	free(s);
	gen_free(g);
}

static void
test_pad_nonzero(void **state)
{
	static uint8_t seg[64];
	struct gen *g = gen_stream(8, false, false, 0, 0);
	struct rk_mpa_stream *s;
	struct log *lg = log_new();

	(void)state;
	ddp_tagged(seg, RK_RDMAP_WRITE, 1, 2, 1);
	gen_fpdu(g, seg, 15);   /* 3 pad bytes */
	gen_fpdu(g, seg, 15);
	g->buf[g->len - 5] = 0x01;   /* last pad byte of the second FPDU */
	s = stream_new(g);
	feed(s, g, 0, g->len, lg);
	assert_int_equal(lg->n, 3);
	assert_int_equal(lg->r[1].nfind, 0);
	assert_int_equal(lg->r[2].nfind, 1);
	assert_int_equal(lg->r[2].find[0], RK_F_MPA_PAD_NONZERO);
	assert_int_equal(lg->r[2].find_off[0], 2 + 15);
	free(lg);
	free(s);
	gen_free(g);
}

static void
test_not_mpa(void **state)
{
	struct rk_mpa_stream s;
	struct log *lg = log_new();
	uint8_t b[64];

	(void)state;
	memset(b, 'G', sizeof(b));   /* "GET / HTTP..." or anything else */
	rk_mpa_stream_init(&s);
	assert_int_equal(rk_mpa_stream_feed(&s, 7, b, sizeof(b), record, lg), 1);
	assert_int_equal(lg->r[0].kind, RK_MPA_EV_LOST_SYNC);
	assert_int_equal(lg->r[0].lost, RK_MPA_LOST_NOT_MPA);
	assert_int_equal(lg->r[0].find[0], RK_F_MPA_STREAM_UNKNOWN);
	assert_int_equal(rk_mpa_stream_feed(&s, 7 + 64, b, sizeof(b), record, lg), 0);

	memcpy(b, "MPA ID Rsp Frame", 16);
	rk_mpa_stream_init(&s);
	lg->n = 0;
	for (size_t i = 0; i < 20; i++)
		rk_mpa_stream_feed(&s, (uint32_t)i, b + i, 1, record, lg);
	assert_int_equal(lg->n, 1);
	assert_int_equal(lg->r[0].lost, RK_MPA_LOST_KEY_BAD);
	assert_int_equal(lg->r[0].find[0], RK_F_MPA_KEY_BAD);
	assert_int_equal(lg->r[0].wire_len, 16);

	assert_int_equal(rk_mpa_stream_feed(NULL, 0, b, 1, NULL, NULL), -EINVAL);
	assert_int_equal(rk_mpa_stream_feed(&s, 0, NULL, 1, NULL, NULL), -EINVAL);
	free(lg);
}

/* Both directions: M in one frame decides markers in the other direction. */
static void
test_two_directions(void **state)
{
	static uint8_t seg[3000];
	struct rk_mpa_rr req = { .rev = 1, .m = 1, .c = 1 };
	struct rk_mpa_rr rep = { .reply = true, .rev = 1, .m = 0, .c = 0 };
	/* Initiator -> responder: Reply.M = 0, so no markers; CRC from Request.C. */
	struct gen *gi = gen_new(1000, false, true);
	/* Responder -> initiator: Request.M = 1, so markers. */
	struct gen *gr = gen_new(555555, true, true);
	struct rk_mpa_stream *si = malloc(sizeof(*si)), *sr = malloc(sizeof(*sr));
	struct log *li = log_new(), *lr = log_new();

	(void)state;
	gen_frame(gi, &req);
	gen_frame(gr, &rep);
	for (int i = 0; i < 20; i++) {
		gen_fpdu(gi, seg, gen_segment(gi, seg, 2000));
		gen_fpdu(gr, seg, gen_segment(gr, seg, 2000));
	}
	rk_mpa_stream_init(si);
	rk_mpa_stream_init(sr);
	/* Capture order: Request, Reply, then data both ways. */
	feed(si, gi, 0, gi->e[0].wire_len, li);
	assert_int_equal(li->r[0].kind, RK_MPA_EV_REQUEST);
	rk_mpa_stream_apply_peer(sr, &req);
	feed(sr, gr, 0, gr->e[0].wire_len, lr);
	assert_int_equal(lr->r[0].kind, RK_MPA_EV_REPLY);
	rk_mpa_stream_apply_peer(si, &rep);
	feed(si, gi, gi->e[0].wire_len, gi->len, li);
	feed(sr, gr, gr->e[0].wire_len, gr->len, lr);
	assert_matches(li, gi);
	assert_matches(lr, gr);
	assert_false(rk_mpa_stream_params(si)->markers);
	assert_true(rk_mpa_stream_params(sr)->markers);
	assert_true(rk_mpa_stream_params(si)->crc && rk_mpa_stream_params(sr)->crc);
	assert_false(li->r[1].p_inferred);
	free(li);
	free(lr);
	free(si);
	free(sr);
	gen_free(gi);
	gen_free(gr);
}

/* Without the peer's frame the options are inferred from the bytes. */
static void
test_inferred_params(void **state)
{
	(void)state;
	for (int c = 0; c < 4; c++) {
		struct gen *g = gen_stream(3, cfg[c][0], cfg[c][1], 20, 1500);
		struct rk_mpa_stream *s = malloc(sizeof(*s));
		struct log *lg = log_new();

		assert_non_null(s);
		rk_mpa_stream_init(s);
		for (size_t i = 0; i < g->len; i += 61)
			feed(s, g, i, i + 61 < g->len ? i + 61 : g->len, lg);
		assert_matches(lg, g);
		assert_true(lg->r[1].p_inferred);
		/* The peer's frame arriving late confirms the inference. */
		apply(s, g);
		assert_int_equal(rk_mpa_stream_params(s)->markers, cfg[c][0]);
		assert_int_equal(rk_mpa_stream_params(s)->crc, cfg[c][1]);
		free(lg);
		free(s);
		gen_free(g);
	}
}

/* The largest FPDU, with markers: bounds of the buffers and marker table. */
static void
test_max_fpdu(void **state)
{
	static uint8_t seg[65535];
	struct gen *g = gen_new(0xffff0000u, true, true);
	struct rk_mpa_rr rr = { .rev = 1 };
	struct rk_mpa_stream *s;
	struct log *lg = log_new();

	(void)state;
	gen_frame(g, &rr);
	ddp_tagged(seg, RK_RDMAP_WRITE, 9, 0, 1);
	rk_test_fill(seg + 14, sizeof(seg) - 14);
	gen_fpdu(g, seg, 65535);
	gen_fpdu(g, seg, 14);
	s = stream_new(g);
	feed(s, g, 0, g->len, lg);
	assert_matches(lg, g);
	assert_true(lg->r[1].nmarkers >= 128);
	free(lg);
	free(s);
	gen_free(g);
}

static void
test_short_ulpdu(void **state)
{
	static const uint8_t seg[14] = { 0x81, 0x40 };
	struct gen *g = gen_stream(50, false, true, 0, 0);
	struct rk_mpa_stream *s;
	struct log *lg = log_new();

	(void)state;
	gen_fpdu(g, seg, 0);
	gen_fpdu(g, seg, 13);
	gen_fpdu(g, seg, 14);
	s = stream_new(g);
	feed(s, g, 0, g->len, lg);
	assert_int_equal(lg->n, 4);
	assert_int_equal(lg->r[1].nfind, 1);
	assert_int_equal(lg->r[1].find[0], RK_F_MPA_ULPDU_TOO_SHORT);
	assert_int_equal(lg->r[2].find[0], RK_F_MPA_ULPDU_TOO_SHORT);
	assert_int_equal(lg->r[3].nfind, 0);
	free(lg);
	free(s);
	gen_free(g);
}

/* Retransmitted (overlapping) bytes are skipped. */
static void
test_retransmission(void **state)
{
	struct gen *g = gen_stream(0xfffffff0u, true, true, 10, 800);
	struct rk_mpa_stream *s = stream_new(g);
	struct log *lg = log_new();
	size_t at = 0;

	(void)state;
	while (at < g->len) {
		size_t n = 1 + (size_t)(rk_test_rand() % 300), back = (size_t)(rk_test_rand() % 100);
		size_t from = at > back ? at - back : 0;

		if (at + n > g->len)
			n = g->len - at;
		feed(s, g, from, at + n, lg);
		at += n;
	}
	assert_matches(lg, g);
	free(lg);
	free(s);
	gen_free(g);
}

/* Random input never crashes (run under ASan/UBSan) and events stay sane. */
static void
test_random_garbage(void **state)
{
	static uint8_t b[8192];
	struct rk_mpa_stream *s = malloc(sizeof(*s));
	struct log *lg = log_new();

	(void)state;
	assert_non_null(s);
	for (int it = 0; it < 1500; it++) {
		size_t len = (size_t)(rk_test_rand() % sizeof(b)), at = 0;
		uint32_t seq = (uint32_t)rk_test_rand();
		int mode = (int)(rk_test_rand() % 4);

		rk_test_fill(b, len);
		if (mode == 0 && len >= 20) {
			/* A valid frame, then garbage as FPDUs. */
			struct rk_mpa_rr rr = { .rev = 1 };

			rk_mpa_rr_build(b, len, &rr);
			b[16] = (uint8_t)rk_test_rand();
			rk_put_be16(b + 18, (uint16_t)(rk_test_rand() % 600));
			rk_mpa_stream_init(s);
		} else if (mode == 1) {
			struct rk_mpa_params p = { .rev = 1, .markers = rk_test_rand() & 1,
						   .crc = rk_test_rand() & 1 };

			rk_mpa_stream_init_fpdu(s, &p, seq, (uint32_t)rk_test_rand());
		} else if (mode == 2) {
			/* Mostly zeros: markers inferred, tiny FPDUs. */
			for (size_t i = 0; i < len; i++)
				b[i] = (rk_test_rand() % 8) ? 0 : b[i];
			memcpy(b, "MPA ID Req Frame\x00\x01\x00\x00", len < 20 ? len : 20);
			rk_mpa_stream_init(s);
		} else {
			rk_mpa_stream_init(s);
		}
		lg->n = 0;
		lg->overflow = 0;
		while (at < len) {
			size_t n = 1 + (size_t)(rk_test_rand() % 900);

			if (n > len - at)
				n = len - at;
			if (rk_test_rand() % 16 == 0) {
				/* A hole, sometimes reported, sometimes a jump. */
				uint32_t skip = (uint32_t)(rk_test_rand() % 2000);

				if (rk_test_rand() & 1)
					rk_mpa_stream_gap(s, seq + (uint32_t)at + skip, record, lg);
				at += skip < len - at ? skip : len - at;
				continue;
			}
			if (rk_test_rand() % 16 == 0 && at > 0) {
				size_t back = (size_t)(rk_test_rand() % at);

				rk_mpa_stream_feed(s, seq + (uint32_t)(at - back), b + at - back,
						   back + n, record, lg);
			} else {
				rk_mpa_stream_feed(s, seq + (uint32_t)at, b + at, n, record, lg);
			}
			at += n;
		}
		rk_mpa_stream_finish(s, record, lg);
		for (size_t i = 0; i < lg->n; i++)
			assert_true(lg->r[i].kind >= RK_MPA_EV_REQUEST &&
				    lg->r[i].kind <= RK_MPA_EV_RESYNC);
	}
	free(lg);
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_fpdu_per_feed),
		cmocka_unit_test(test_many_fpdus_per_feed),
		cmocka_unit_test(test_byte_by_byte),
		cmocka_unit_test(test_every_split),
		cmocka_unit_test(test_markers_seq_wrap),
		cmocka_unit_test(test_markers_split_fields),
		cmocka_unit_test(test_crc_bad_once),
		cmocka_unit_test(test_marker_bad_once),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_gap_without_markers),
		cmocka_unit_test(test_gap_with_markers),
		cmocka_unit_test(test_gap_resync_at_leading_marker),
		cmocka_unit_test(test_apply_peer_late),
		cmocka_unit_test(test_pad_nonzero),
		cmocka_unit_test(test_not_mpa),
		cmocka_unit_test(test_two_directions),
		cmocka_unit_test(test_inferred_params),
		cmocka_unit_test(test_max_fpdu),
		cmocka_unit_test(test_short_ulpdu),
		cmocka_unit_test(test_retransmission),
		cmocka_unit_test(test_random_garbage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
