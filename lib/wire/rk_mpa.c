/* SPDX-License-Identifier: BSD-3-Clause */
#include "rk_mpa.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

/* Field tables. */

RK_HEADER_DESC(rk_mpa_rr_desc, "MPA Request/Reply", RK_MPA_RR_HDR_LEN, RK_MPA_RR_FIELDS,
	       "RFC 5044 7.1.1");
RK_HEADER_DESC(rk_mpa_ird_ord_desc, "MPA IRD/ORD", RK_MPA_IRD_ORD_LEN, RK_MPA_IRD_ORD_FIELDS,
	       "RFC 6581");
RK_HEADER_DESC(rk_mpa_fpdu_hdr_desc, "MPA FPDU", RK_MPA_HDR_LEN, RK_MPA_FPDU_HDR_FIELDS,
	       "RFC 5044 4.1");
RK_HEADER_DESC(rk_mpa_marker_desc, "MPA marker", RK_MPA_MARKER_LEN, RK_MPA_MARKER_FIELDS,
	       "RFC 5044 4.3");

/* The CRC is the one little-endian field (RFC 5044 4.4): no list, no accessors. */
static const struct rk_field mpa_crc_fields[] = {
	{ "CRC", "crc", 0, 4, 1, 0xffffffffull, "RFC 5044 4.4" },
};

const struct rk_header_desc rk_mpa_crc_desc = {
	"MPA CRC", RK_MPA_CRC_LEN, mpa_crc_fields, 1, "RFC 5044 4.4",
};

/* Request / Reply frames. */

static void
add(struct rk_findings *f, enum rk_finding_id id, uint32_t off)
{
	if (f != NULL)
		rk_findings_add(f, id, off);
}

static size_t
min_sz(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* The header's fields, from its field list (struct members named as its accessors). */
static void
rr_unpack(const uint8_t *h, struct rk_mpa_rr *f)
{
	RK_MPA_RR_FIELDS(RK_FIELD_UNPACK, RK_FIELD_NONE)
}

/* Decode the 20-byte header and @p pd_avail bytes of private data. */
static void
rr_decode(const uint8_t *buf, size_t pd_avail, struct rk_mpa_rr *rr,
	  struct rk_findings *f)
{
	const uint8_t *pd = buf + RK_MPA_RR_HDR_LEN;
	uint8_t res_mask;

	memset(rr, 0, sizeof(*rr));
	rr->reply = memcmp(buf, RK_MPA_KEY_REP, RK_MPA_KEY_LEN) == 0;
	rr_unpack(buf, rr);
	pd_avail = min_sz(pd_avail, rr->pd_len);

	/* RFC 5044 7.1.1: only a Reply may reject. */
	if (!rr->reply && rr->r)
		add(f, RK_F_MPA_REQUEST_R_SET, RK_MPA_FLAGS_OFF);
	if (rr->rev != RK_MPA_REV_1 && rr->rev != RK_MPA_REV_2)
		add(f, RK_F_MPA_REV_UNKNOWN, RK_MPA_REV_OFF);
	if (rr->pd_len > RK_MPA_PD_MAX)
		add(f, RK_F_MPA_PD_LENGTH_OVER, RK_MPA_PD_LEN_OFF);
	/* The Enhanced bit is Res in a Rev 1 frame. */
	res_mask = rr->rev == RK_MPA_REV_2 ? RK_MPA_FLAG_RES_MASK :
		   (RK_MPA_FLAG_RES_MASK | RK_MPA_FLAG_ENHANCED);
	if (buf[RK_MPA_FLAGS_OFF] & res_mask)
		add(f, RK_F_MPA_RESERVED, RK_MPA_FLAGS_OFF);

	if (rr->rev == RK_MPA_REV_2 && rr->enhanced) {
		if (rr->pd_len < RK_MPA_IRD_ORD_LEN) {
			add(f, RK_F_MPA_ENHANCED_PD_SHORT, RK_MPA_PD_LEN_OFF);
		} else if (pd_avail >= RK_MPA_IRD_ORD_LEN) {
			rr->has_ird_ord = true;
			rr->ird_ord.p2p = rk_mpa_p2p(pd);
			rr->ird_ord.rtr_send = rk_mpa_rtr_send(pd);
			rr->ird_ord.ird = rk_mpa_ird(pd);
			rr->ird_ord.rtr_write = rk_mpa_rtr_write(pd);
			rr->ird_ord.rtr_read = rk_mpa_rtr_read(pd);
			rr->ird_ord.ord = rk_mpa_ord(pd);
			pd += RK_MPA_IRD_ORD_LEN;
			pd_avail -= RK_MPA_IRD_ORD_LEN;
		}
	}
	rr->ulp_pd = pd;
	rr->ulp_pd_len = (uint16_t)pd_avail;
}

static bool
is_key(const uint8_t *buf)
{
	return memcmp(buf, RK_MPA_KEY_REQ, RK_MPA_KEY_LEN) == 0 ||
	       memcmp(buf, RK_MPA_KEY_REP, RK_MPA_KEY_LEN) == 0;
}

int
rk_mpa_rr_parse(const uint8_t *buf, size_t len, struct rk_mpa_rr *rr,
		struct rk_findings *f)
{
	size_t total;

	if (buf == NULL || rr == NULL)
		return -EINVAL;
	memset(rr, 0, sizeof(*rr));
	if (len < RK_MPA_KEY_LEN)
		return -EAGAIN;
	if (!is_key(buf)) {
		add(f, RK_F_MPA_KEY_BAD, 0);
		return -EPROTO;
	}
	if (len < RK_MPA_RR_HDR_LEN) {
		rr->reply = memcmp(buf, RK_MPA_KEY_REP, RK_MPA_KEY_LEN) == 0;
		return -EAGAIN;
	}
	total = RK_MPA_RR_HDR_LEN + (size_t)rk_mpa_rr_pd_len(buf);
	/* Findings only once the whole frame is there, so retries do not repeat them. */
	rr_decode(buf, len - RK_MPA_RR_HDR_LEN, rr, len >= total ? f : NULL);
	return len >= total ? (int)total : -EAGAIN;
}

int
rk_mpa_rr_build(uint8_t *buf, size_t cap, const struct rk_mpa_rr *rr)
{
	size_t pd_len, total;
	uint8_t *p;

	if (buf == NULL || rr == NULL || (rr->ulp_pd == NULL && rr->ulp_pd_len > 0))
		return -EINVAL;
	pd_len = (rr->has_ird_ord ? RK_MPA_IRD_ORD_LEN : 0) + (size_t)rr->ulp_pd_len;
	if (pd_len > 0xffff)
		return -EINVAL;
	total = RK_MPA_RR_HDR_LEN + pd_len;
	if (cap < total)
		return -ENOSPC;
	memcpy(buf, rr->reply ? RK_MPA_KEY_REP : RK_MPA_KEY_REQ, RK_MPA_KEY_LEN);
	buf[RK_MPA_FLAGS_OFF] = (uint8_t)((rr->m ? RK_MPA_FLAG_M : 0) |
					  (rr->c ? RK_MPA_FLAG_C : 0) |
					  (rr->r ? RK_MPA_FLAG_R : 0) |
					  (rr->enhanced ? RK_MPA_FLAG_ENHANCED : 0) |
					  (rr->res & RK_MPA_FLAG_RES_MASK));
	buf[RK_MPA_REV_OFF] = rr->rev;
	rk_mpa_rr_set_pd_len(buf, (uint16_t)pd_len);
	p = buf + RK_MPA_RR_HDR_LEN;
	if (rr->has_ird_ord) {
		const struct rk_mpa_ird_ord *io = &rr->ird_ord;

		rk_put_be16(p, (uint16_t)((io->p2p ? RK_MPA_IRD_P2P : 0) |
					  (io->rtr_send ? RK_MPA_IRD_RTR_SEND : 0) |
					  (io->ird & RK_MPA_IRD_ORD_MASK)));
		rk_put_be16(p + 2, (uint16_t)((io->rtr_write ? RK_MPA_ORD_RTR_WRITE : 0) |
					      (io->rtr_read ? RK_MPA_ORD_RTR_READ : 0) |
					      (io->ord & RK_MPA_IRD_ORD_MASK)));
		p += RK_MPA_IRD_ORD_LEN;
	}
	if (rr->ulp_pd_len > 0)
		memcpy(p, rr->ulp_pd, rr->ulp_pd_len);
	return (int)total;
}

int
rk_mpa_rtr_check(const struct rk_mpa_rr *req, const struct rk_mpa_rr *rep,
		 struct rk_findings *f)
{
	const struct rk_mpa_ird_ord *q, *p;
	unsigned int n;

	if (req == NULL || rep == NULL || !req->has_ird_ord || !rep->has_ird_ord)
		return 0;
	q = &req->ird_ord;
	p = &rep->ird_ord;
	if (!p->p2p)
		return 0;
	n = (unsigned int)p->rtr_send + p->rtr_write + p->rtr_read;
	if (n == 1 && (!p->rtr_send || q->rtr_send) &&
	    (!p->rtr_write || q->rtr_write) && (!p->rtr_read || q->rtr_read))
		return 0;
	add(f, RK_F_MPA_RTR_MISMATCH, RK_MPA_RR_HDR_LEN);
	return 1;
}

/* Marker grid. */

static bool
grid_point(uint32_t seq, uint32_t seq0)
{
	return ((seq - seq0) & (RK_MPA_MARKER_SPACING - 1)) == 0;
}

/* Octets from @p seq to the next grid point (1..512). */
static uint32_t
grid_dist(uint32_t seq, uint32_t seq0)
{
	return RK_MPA_MARKER_SPACING - ((seq - seq0) & (RK_MPA_MARKER_SPACING - 1));
}

/*
 * Stream position after @p mf marker-free octets starting at @p pos,
 * skipping the markers in between (not one at the final position).
 */
static uint32_t
grid_walk(uint32_t pos, uint32_t mf, uint32_t seq0)
{
	while (mf > 0) {
		uint32_t step;

		if (grid_point(pos, seq0)) {
			pos += RK_MPA_MARKER_LEN;
			continue;
		}
		step = grid_dist(pos, seq0);
		if (step > mf)
			step = mf;
		pos += step;
		mf -= step;
	}
	return pos;
}

uint32_t
rk_mpa_fpdu_wire_len(uint16_t ulpdu_len, const struct rk_mpa_tx *tx)
{
	uint32_t mf = rk_mpa_fpdu_len(ulpdu_len);

	if (tx == NULL || !tx->markers)
		return mf;
	return grid_walk(tx->seq, mf, tx->marker_seq0) - tx->seq;
}

int
rk_mpa_fpdu_build(uint8_t *buf, size_t cap, const uint8_t *ulpdu,
		  uint16_t ulpdu_len, const struct rk_mpa_tx *tx)
{
	uint32_t mf, wl, crc_start, i = 0, w = 0, pos, hdr_seq;
	uint32_t crc_w[RK_MPA_CRC_LEN];
	uint8_t hdr[RK_MPA_HDR_LEN];

	if (buf == NULL || tx == NULL || (ulpdu == NULL && ulpdu_len > 0))
		return -EINVAL;
	mf = rk_mpa_fpdu_len(ulpdu_len);
	wl = rk_mpa_fpdu_wire_len(ulpdu_len, tx);
	if (cap < wl)
		return -ENOSPC;
	crc_start = RK_MPA_HDR_LEN + (uint32_t)ulpdu_len + rk_mpa_pad_len(ulpdu_len);
	rk_put_be16(hdr, ulpdu_len);
	pos = tx->seq;
	hdr_seq = tx->seq;

	while (i < mf) {
		uint32_t n, j;

		if (tx->markers && grid_point(pos, tx->marker_seq0)) {
			/* FPDUPTR: back to ULPDU_Length; 0 when it leads the FPDU. */
			rk_mpa_marker_set_rsvd(buf + w, 0);
			rk_mpa_marker_set_fpduptr(buf + w, i == 0 ? 0 : (uint16_t)(pos - hdr_seq));
			w += RK_MPA_MARKER_LEN;
			pos += RK_MPA_MARKER_LEN;
			continue;
		}
		if (i == 0)
			hdr_seq = pos;
		/* One region at a time: header, ULPDU, pad, CRC. */
		if (i < RK_MPA_HDR_LEN)
			n = RK_MPA_HDR_LEN - i;
		else if (i < RK_MPA_HDR_LEN + (uint32_t)ulpdu_len)
			n = RK_MPA_HDR_LEN + ulpdu_len - i;
		else if (i < crc_start)
			n = crc_start - i;
		else
			n = mf - i;
		if (tx->markers && n > grid_dist(pos, tx->marker_seq0))
			n = grid_dist(pos, tx->marker_seq0);
		if (i < RK_MPA_HDR_LEN) {
			memcpy(buf + w, hdr + i, n);
		} else if (i < RK_MPA_HDR_LEN + (uint32_t)ulpdu_len) {
			memcpy(buf + w, ulpdu + (i - RK_MPA_HDR_LEN), n);
		} else if (i < crc_start) {
			memset(buf + w, 0, n);
		} else {
			for (j = 0; j < n; j++)
				crc_w[i - crc_start + j] = w + j;
			memset(buf + w, 0, n);
		}
		i += n;
		w += n;
		pos += n;
	}
	if (tx->crc) {
		/* Covers everything before the first CRC octet (RFC 5044 4.4). */
		uint32_t crc = rk_crc32c(buf, crc_w[0]);

		for (i = 0; i < RK_MPA_CRC_LEN; i++)
			buf[crc_w[i]] = (uint8_t)(crc >> (8 * i));
	}
	return (int)w;
}

/* Deframer. */

enum {
	ST_FRAME = 0,   /* reading the MPA Request/Reply */
	ST_FPDU,        /* in sync, reading FPDUs */
	ST_LOST,        /* out of sync, watching markers */
	ST_SKIP,        /* out of sync, next FPDU boundary known */
	ST_DEAD,        /* out of sync for good */
};

/* CRC_ON_NEXT: on, but the FPDU in progress missed its start; checked from the next. */
enum { CRC_OFF = 0, CRC_ON = 1, CRC_INFER = 2, CRC_ON_NEXT = 3 };

#define HIST_MASK 0xffffu   /* buf doubles as a 64 KiB history when lost */

_Static_assert(sizeof(((struct rk_mpa_stream *)0)->buf) > HIST_MASK,
	       "history must hold 64 KiB");

void
rk_mpa_stream_init(struct rk_mpa_stream *s)
{
	memset(s, 0, offsetof(struct rk_mpa_stream, buf));
	s->state = ST_FRAME;
}

void
rk_mpa_stream_init_fpdu(struct rk_mpa_stream *s, const struct rk_mpa_params *p,
			uint32_t seq, uint32_t marker_seq0)
{
	rk_mpa_stream_init(s);
	s->state = ST_FPDU;
	s->params = *p;
	s->params_known = true;
	s->probed = true;
	s->own_seen = true;
	s->crc_mode = p->crc ? CRC_ON : CRC_OFF;
	s->grid_valid = true;
	s->marker_seq0 = marker_seq0;
	s->seq_valid = true;
	s->next_seq = seq;
}

static void
set_crc(struct rk_mpa_stream *s, bool on)
{
	uint8_t mode = on ? CRC_ON : CRC_OFF;

	/* Turned on in the middle of an FPDU: its running CRC is not usable. */
	if (mode == CRC_ON && s->crc_mode == CRC_OFF && s->in_unit)
		s->crc_mode = CRC_ON_NEXT;
	else
		s->crc_mode = mode;
	s->params.crc = on;
}

/* Options for the first FPDU, once both frames (or only ours) are known. */
static void
settle_params(struct rk_mpa_stream *s)
{
	if (s->peer_applied) {
		s->params_known = true;
		s->params_inferred = false;
		s->probed = true;
		s->params.markers = s->peer_m;
		set_crc(s, s->peer_c || s->own_c);
	} else {
		s->params_known = false;
		s->params.markers = false;
		s->params.crc = s->own_c;
		s->crc_mode = s->own_c ? CRC_ON : CRC_INFER;
	}
}

void
rk_mpa_stream_apply_peer(struct rk_mpa_stream *s, const struct rk_mpa_rr *peer)
{
	if (s == NULL || peer == NULL)
		return;
	/* Explicit options from rk_mpa_stream_init_fpdu() win. */
	if (s->own_seen && s->params_known && !s->params_inferred && !s->peer_applied)
		return;
	s->peer_applied = true;
	s->peer_m = peer->m;
	s->peer_c = peer->c;
	if (!s->own_seen)
		return;  /* applied when this direction's frame completes */
	if (!s->probed && s->state == ST_FPDU && !s->in_unit) {
		settle_params(s);
		return;
	}
	/* FPDUs already framed on inferred markers: only CRC can still change. */
	set_crc(s, s->peer_c || s->own_c);
	if (s->params.markers == s->peer_m)
		s->params_inferred = false;
}

const struct rk_mpa_params *
rk_mpa_stream_params(const struct rk_mpa_stream *s)
{
	return &s->params;
}

bool
rk_mpa_stream_in_sync(const struct rk_mpa_stream *s)
{
	return s->state == ST_FRAME || s->state == ST_FPDU;
}

static void
advance(struct rk_mpa_stream *s, size_t n)
{
	s->next_seq += (uint32_t)n;
	s->off += n;
}

static void
emit(struct rk_mpa_stream *s, rk_mpa_event_cb cb, void *ctx, int *n_ev)
{
	s->ev.params = s->params;
	s->ev.params_inferred = s->params_inferred;
	if (cb != NULL)
		cb(&s->ev, ctx);
	(*n_ev)++;
}

static void
start_unit(struct rk_mpa_stream *s)
{
	memset(&s->ev, 0, sizeof(s->ev));
	s->in_unit = true;
	s->unit_seq = s->next_seq;
	s->unit_off = s->off;
	s->have = 0;
	s->len_known = false;
	s->nmarkers = 0;
	s->mk_have = 0;
	s->probe_have = 0;
	s->crc = rk_crc32c_init();
	if (s->crc_mode == CRC_ON_NEXT)
		s->crc_mode = CRC_ON;
}

static void
emit_lost(struct rk_mpa_stream *s, rk_mpa_event_cb cb, void *ctx, int *n_ev,
	  enum rk_mpa_lost_reason why, uint32_t seq, uint64_t off, uint32_t wire_len,
	  int finding, bool resync)
{
	memset(&s->ev, 0, sizeof(s->ev));
	s->ev.kind = RK_MPA_EV_LOST_SYNC;
	s->ev.lost = why;
	s->ev.seq = seq;
	s->ev.stream_off = off;
	s->ev.wire_len = wire_len;
	s->ev.resync_possible = resync;
	if (finding >= 0)
		rk_findings_add(&s->ev.findings, (enum rk_finding_id)finding, 0);
	emit(s, cb, ctx, n_ev);
}

static void
emit_resync(struct rk_mpa_stream *s, rk_mpa_event_cb cb, void *ctx, int *n_ev,
	    uint32_t seq, uint64_t off)
{
	memset(&s->ev, 0, sizeof(s->ev));
	s->ev.kind = RK_MPA_EV_RESYNC;
	s->ev.seq = seq;
	s->ev.stream_off = off;
	emit(s, cb, ctx, n_ev);
}

/* The Request/Reply frame is complete. */
static void
frame_done(struct rk_mpa_stream *s, rk_mpa_event_cb cb, void *ctx, int *n_ev)
{
	struct rk_mpa_event *ev = &s->ev;
	size_t stored = min_sz(s->rr_need, sizeof(s->rr_buf)) - RK_MPA_RR_HDR_LEN;

	rr_decode(s->rr_buf, stored, &ev->rr, &ev->findings);
	ev->kind = ev->rr.reply ? RK_MPA_EV_REPLY : RK_MPA_EV_REQUEST;
	ev->seq = s->unit_seq;
	ev->stream_off = s->unit_off;
	ev->wire_len = s->rr_need;

	s->own_seen = true;
	s->own_c = ev->rr.c;
	s->params.rev = ev->rr.rev;
	s->in_unit = false;
	/* RFC 5044 4.3: the first marker precedes the first FPDU. */
	s->grid_valid = true;
	s->marker_seq0 = s->next_seq;
	s->state = ST_FPDU;
	settle_params(s);
	emit(s, cb, ctx, n_ev);
}

static size_t
frame_step(struct rk_mpa_stream *s, const uint8_t *p, size_t len,
	   rk_mpa_event_cb cb, void *ctx, int *n_ev)
{
	size_t n;

	if (!s->in_unit)
		start_unit(s);
	if (s->rr_have < RK_MPA_RR_HDR_LEN) {
		uint32_t before = s->rr_have;

		n = min_sz(len, RK_MPA_RR_HDR_LEN - s->rr_have);
		memcpy(s->rr_buf + s->rr_have, p, n);
		s->rr_have += (uint32_t)n;
		advance(s, n);
		if (before < RK_MPA_KEY_LEN && s->rr_have >= RK_MPA_KEY_LEN &&
		    !is_key(s->rr_buf)) {
			bool mpa = memcmp(s->rr_buf, RK_MPA_KEY_REQ, 7) == 0;

			s->in_unit = false;
			s->state = ST_DEAD;
			emit_lost(s, cb, ctx, n_ev,
				  mpa ? RK_MPA_LOST_KEY_BAD : RK_MPA_LOST_NOT_MPA,
				  s->unit_seq, s->unit_off, s->rr_have,
				  mpa ? RK_F_MPA_KEY_BAD : RK_F_MPA_STREAM_UNKNOWN, false);
			return n;
		}
		if (s->rr_have == RK_MPA_RR_HDR_LEN) {
			s->rr_need = RK_MPA_RR_HDR_LEN + rk_mpa_rr_pd_len(s->rr_buf);
			if (s->rr_need == RK_MPA_RR_HDR_LEN)
				frame_done(s, cb, ctx, n_ev);
		}
		return n;
	}
	/* Private data: keep the first 512 bytes, skip any excess. */
	n = min_sz(len, s->rr_need - s->rr_have);
	if (s->rr_have < sizeof(s->rr_buf))
		memcpy(s->rr_buf + s->rr_have, p,
		       min_sz(n, sizeof(s->rr_buf) - s->rr_have));
	s->rr_have += (uint32_t)n;
	advance(s, n);
	if (s->rr_have == s->rr_need)
		frame_done(s, cb, ctx, n_ev);
	return n;
}

static bool
at_marker(const struct rk_mpa_stream *s, uint32_t seq)
{
	return s->params.markers && s->grid_valid && grid_point(seq, s->marker_seq0);
}

/* Offset in the event (markers included) of marker-free FPDU offset @p mf. */
static uint32_t
wire_off(const struct rk_mpa_stream *s, uint32_t mf)
{
	uint32_t w = mf;

	for (unsigned int i = 0; i < s->nmarkers; i++)
		if (s->markers[i].at <= mf)
			w += RK_MPA_MARKER_LEN;
	return w;
}

static void
header_done(struct rk_mpa_stream *s)
{
	uint16_t l = rk_mpa_ulpdu_len(s->buf);

	s->len_known = true;
	s->need = rk_mpa_fpdu_len(l);
	s->crc_start = RK_MPA_HDR_LEN + (uint32_t)l + rk_mpa_pad_len(l);
}

static void
marker_done(struct rk_mpa_stream *s)
{
	struct rk_mpa_marker_info mi;

	mi.seq = s->mk_seq;
	mi.at = s->mk_at;
	mi.rsvd = rk_mpa_marker_rsvd(s->mk);
	mi.fpduptr = rk_mpa_marker_fpduptr(s->mk);
	/* RFC 5044 4.3: back to ULPDU_Length, 0 when it leads the FPDU. */
	mi.expected = s->mk_at == 0 ? 0 : (uint16_t)(s->mk_seq - s->hdr_seq);
	mi.covered = s->mk_covered;
	if (s->nmarkers < RK_MPA_FPDU_MARKERS_MAX)
		s->markers[s->nmarkers++] = mi;
	if (mi.rsvd != 0)
		rk_findings_add(&s->ev.findings, RK_F_MPA_MARKER_RESERVED,
				s->mk_seq - s->unit_seq);
	if (mi.fpduptr != mi.expected)
		rk_findings_add(&s->ev.findings, RK_F_MPA_MARKER_FPDUPTR,
				s->mk_seq - s->unit_seq);
}

static void
fpdu_done(struct rk_mpa_stream *s, rk_mpa_event_cb cb, void *ctx, int *n_ev)
{
	struct rk_mpa_event *ev = &s->ev;
	struct rk_mpa_fpdu *fp = &ev->fpdu;
	struct rk_findings df;
	uint16_t l = rk_mpa_ulpdu_len(s->buf);

	ev->kind = RK_MPA_EV_FPDU;
	ev->seq = s->unit_seq;
	ev->stream_off = s->unit_off;
	ev->wire_len = s->next_seq - s->unit_seq;
	fp->hdr_seq = s->hdr_seq;
	fp->ulpdu_len = l;
	fp->ulpdu = s->buf + RK_MPA_HDR_LEN;
	fp->pad_len = rk_mpa_pad_len(l);
	fp->pad = s->buf + RK_MPA_HDR_LEN + l;
	fp->crc_carried = rk_get_le32(s->buf + s->crc_start);
	if (s->crc_mode != CRC_OFF)
		fp->crc_computed = rk_crc32c_final(s->crc);
	if (s->crc_mode == CRC_INFER) {
		/* Not negotiated as far as we know: a matching CRC says it is on. */
		s->crc_mode = fp->crc_computed == fp->crc_carried ? CRC_ON : CRC_OFF;
		s->params.crc = s->crc_mode == CRC_ON;
		s->params_inferred = true;
	}
	if (s->crc_mode == CRC_ON) {
		fp->crc_checked = true;
		fp->crc_ok = fp->crc_computed == fp->crc_carried;
		if (!fp->crc_ok)
			rk_findings_add(&ev->findings, RK_F_MPA_CRC_BAD,
					wire_off(s, s->crc_start));
	}
	for (unsigned int i = 0; i < fp->pad_len; i++) {
		if (fp->pad[i] != 0) {
			rk_findings_add(&ev->findings, RK_F_MPA_PAD_NONZERO,
					wire_off(s, RK_MPA_HDR_LEN + l));
			break;
		}
	}
	fp->nmarkers = s->nmarkers;
	fp->markers = s->markers;
	fp->markers_ok = true;
	for (unsigned int i = 0; i < s->nmarkers; i++)
		if (s->markers[i].rsvd != 0 ||
		    s->markers[i].fpduptr != s->markers[i].expected)
			fp->markers_ok = false;

	memset(&df, 0, sizeof(df));
	rk_rdmap_parse(fp->ulpdu, l, &fp->msg, &df);
	for (unsigned int i = 0; i < df.count; i++)
		rk_findings_add(&ev->findings, (enum rk_finding_id)df.list[i].id,
				wire_off(s, RK_MPA_HDR_LEN + df.list[i].offset));
	if (df.dropped > 0 && ev->findings.dropped < UINT16_MAX - df.dropped)
		ev->findings.dropped = (uint16_t)(ev->findings.dropped + df.dropped);

	s->in_unit = false;
	s->fpdus++;
	emit(s, cb, ctx, n_ev);
}

static size_t
fpdu_step(struct rk_mpa_stream *s, const uint8_t *p, size_t len,
	  rk_mpa_event_cb cb, void *ctx, int *n_ev)
{
	uint32_t seq = s->next_seq;
	size_t n, lim;

	if (!s->in_unit)
		start_unit(s);
	if (!s->probed) {
		/* Markers unknown: two zero bytes can only be a leading marker. */
		n = min_sz(len, 2u - s->probe_have);
		memcpy(s->mk + s->probe_have, p, n);
		if (s->crc_mode != CRC_OFF)
			s->crc = rk_crc32c_update(s->crc, p, n);
		s->probe_have = (uint8_t)(s->probe_have + n);
		advance(s, n);
		if (s->probe_have == 2) {
			s->probed = true;
			s->params_known = true;
			s->params_inferred = true;
			s->params.markers = s->mk[0] == 0 && s->mk[1] == 0;
			if (s->params.markers) {
				s->mk_have = 2;
				s->mk_seq = s->unit_seq;
				s->mk_at = 0;
				s->mk_covered = true;
			} else {
				memcpy(s->buf, s->mk, 2);
				s->have = 2;
				s->hdr_seq = s->unit_seq;
				header_done(s);
			}
		}
		return n;
	}
	if (s->mk_have > 0 || at_marker(s, seq)) {
		if (s->mk_have == 0) {
			s->mk_seq = seq;
			s->mk_at = s->have;
			/* Covered when it comes before the first CRC octet. */
			s->mk_covered = !s->len_known || s->have <= s->crc_start;
		}
		n = min_sz(len, RK_MPA_MARKER_LEN - s->mk_have);
		memcpy(s->mk + s->mk_have, p, n);
		if (s->mk_covered && s->crc_mode != CRC_OFF)
			s->crc = rk_crc32c_update(s->crc, p, n);
		s->mk_have = (uint8_t)(s->mk_have + n);
		advance(s, n);
		if (s->mk_have == RK_MPA_MARKER_LEN) {
			marker_done(s);
			s->mk_have = 0;
		}
		return n;
	}
	if (s->have == 0)
		s->hdr_seq = seq;
	lim = s->len_known ? s->need - s->have : RK_MPA_HDR_LEN - s->have;
	if (s->params.markers && s->grid_valid)
		lim = min_sz(lim, grid_dist(seq, s->marker_seq0));
	n = min_sz(len, lim);
	if (s->crc_mode != CRC_OFF) {
		size_t c = n;

		if (s->len_known)
			c = s->have < s->crc_start ? min_sz(n, s->crc_start - s->have) : 0;
		if (c > 0)
			s->crc = rk_crc32c_update(s->crc, p, c);
	}
	memcpy(s->buf + s->have, p, n);
	s->have += (uint32_t)n;
	advance(s, n);
	if (!s->len_known && s->have == RK_MPA_HDR_LEN)
		header_done(s);
	if (s->len_known && s->have == s->need)
		fpdu_done(s, cb, ctx, n_ev);
	return n;
}

/* A whole marker was read while lost: does it give an FPDU boundary? */
static void
try_resync(struct rk_mpa_stream *s, rk_mpa_event_cb cb, void *ctx, int *n_ev)
{
	uint16_t ptr = rk_mpa_marker_fpduptr(s->mk);
	uint32_t h, h1, end, mf;
	uint16_t l;

	if (ptr == 0) {
		/* The marker leads an FPDU: framing restarts at the marker. */
		emit_resync(s, cb, ctx, n_ev, s->mk_seq, s->off - RK_MPA_MARKER_LEN);
		s->state = ST_FPDU;
		start_unit(s);
		s->unit_seq = s->mk_seq;
		s->unit_off = s->off - RK_MPA_MARKER_LEN;
		s->mk_at = 0;
		s->mk_covered = true;
		if (s->crc_mode != CRC_OFF)
			s->crc = rk_crc32c_update(s->crc, s->mk, RK_MPA_MARKER_LEN);
		marker_done(s);
		return;
	}
	/* Its FPDU's header must lie in the bytes kept since the hole. */
	h = s->mk_seq - ptr;
	if ((int32_t)(h - s->lost_from) < 0 || ptr < RK_MPA_HDR_LEN ||
	    grid_point(h, s->marker_seq0))
		return;
	h1 = h + 1;
	if (grid_point(h1, s->marker_seq0))
		h1 += RK_MPA_MARKER_LEN;
	if ((int32_t)(s->mk_seq - h1) <= 0)
		return;
	l = (uint16_t)(s->buf[h & HIST_MASK] << 8 | s->buf[h1 & HIST_MASK]);
	mf = rk_mpa_fpdu_len(l);
	end = grid_walk(h, mf, s->marker_seq0);
	/* The FPDU must contain this marker, else the pointer was bogus. */
	if ((int32_t)(end - (s->mk_seq + RK_MPA_MARKER_LEN)) <= 0)
		return;
	s->skip_to = end;
	s->state = ST_SKIP;
}

static size_t
lost_step(struct rk_mpa_stream *s, const uint8_t *p, size_t len,
	  rk_mpa_event_cb cb, void *ctx, int *n_ev)
{
	uint32_t seq = s->next_seq;
	size_t n, i;

	if (s->mk_have > 0 || at_marker(s, seq)) {
		if (s->mk_have == 0)
			s->mk_seq = seq;
		n = min_sz(len, RK_MPA_MARKER_LEN - s->mk_have);
		memcpy(s->mk + s->mk_have, p, n);
		s->mk_have = (uint8_t)(s->mk_have + n);
	} else {
		n = min_sz(len, grid_dist(seq, s->marker_seq0));
	}
	for (i = 0; i < n; i++)
		s->buf[(seq + i) & HIST_MASK] = p[i];
	advance(s, n);
	s->skipped += n;
	if (s->mk_have == RK_MPA_MARKER_LEN) {
		s->mk_have = 0;
		try_resync(s, cb, ctx, n_ev);
	}
	return n;
}

static size_t
skip_step(struct rk_mpa_stream *s, size_t len, rk_mpa_event_cb cb, void *ctx,
	  int *n_ev)
{
	size_t n = 0;

	if ((int32_t)(s->skip_to - s->next_seq) > 0)
		n = min_sz(len, s->skip_to - s->next_seq);
	advance(s, n);
	s->skipped += n;
	if ((int32_t)(s->skip_to - s->next_seq) <= 0) {
		s->state = ST_FPDU;
		s->in_unit = false;
		emit_resync(s, cb, ctx, n_ev, s->next_seq, s->off);
	}
	return n;
}

static int
process(struct rk_mpa_stream *s, const uint8_t *p, size_t len,
	rk_mpa_event_cb cb, void *ctx)
{
	int n_ev = 0;

	while (len > 0) {
		size_t n;

		switch (s->state) {
		case ST_FRAME:
			n = frame_step(s, p, len, cb, ctx, &n_ev);
			break;
		case ST_FPDU:
			n = fpdu_step(s, p, len, cb, ctx, &n_ev);
			break;
		case ST_LOST:
			n = lost_step(s, p, len, cb, ctx, &n_ev);
			break;
		case ST_SKIP:
			n = skip_step(s, len, cb, ctx, &n_ev);
			break;
		default:
			n = len;
			advance(s, n);
			s->skipped += n;
			break;
		}
		p += n;
		len -= n;
	}
	return n_ev;
}

int
rk_mpa_stream_gap(struct rk_mpa_stream *s, uint32_t next_seq,
		  rk_mpa_event_cb cb, void *ctx)
{
	uint32_t d, from;
	uint64_t from_off;
	int n_ev = 0;
	bool resync;

	if (s == NULL)
		return -EINVAL;
	if (!s->seq_valid) {
		s->seq_valid = true;
		s->next_seq = next_seq;
		return 0;
	}
	if ((int32_t)(next_seq - s->next_seq) <= 0)
		return 0;
	d = next_seq - s->next_seq;

	switch (s->state) {
	case ST_FRAME:
		if (!s->in_unit) {
			/* Nothing of the stream seen yet: the origin moves. */
			s->next_seq = next_seq;
			return 0;
		}
		emit_lost(s, cb, ctx, &n_ev, RK_MPA_LOST_GAP, s->unit_seq, s->unit_off,
			  next_seq - s->unit_seq, RK_F_MPA_SYNC_LOST, false);
		s->in_unit = false;
		s->state = ST_DEAD;
		break;
	case ST_FPDU:
		from = s->in_unit ? s->unit_seq : s->next_seq;
		from_off = s->in_unit ? s->unit_off : s->off;
		resync = s->probed && s->params.markers && s->grid_valid;
		emit_lost(s, cb, ctx, &n_ev, RK_MPA_LOST_GAP, from, from_off,
			  next_seq - from, RK_F_MPA_SYNC_LOST, resync);
		s->in_unit = false;
		s->mk_have = 0;
		s->lost_from = next_seq;
		s->state = resync ? ST_LOST : ST_DEAD;
		break;
	case ST_SKIP:
		/* A hole before the known boundary does not matter. */
		if ((int32_t)(s->skip_to - next_seq) >= 0)
			break;
		s->state = ST_LOST;
		s->mk_have = 0;
		s->lost_from = next_seq;
		break;
	case ST_LOST:
		s->mk_have = 0;
		s->lost_from = next_seq;
		break;
	default:
		break;
	}
	s->skipped += d;
	s->next_seq = next_seq;
	s->off += d;
	return n_ev;
}

int
rk_mpa_stream_feed(struct rk_mpa_stream *s, uint32_t seq, const uint8_t *data,
		   size_t len, rk_mpa_event_cb cb, void *ctx)
{
	int32_t d;
	int n_ev = 0;

	if (s == NULL || (data == NULL && len > 0))
		return -EINVAL;
	if (len == 0)
		return 0;
	if (!s->seq_valid) {
		s->seq_valid = true;
		s->next_seq = seq;
	}
	d = (int32_t)(seq - s->next_seq);
	if (d > 0) {
		n_ev += rk_mpa_stream_gap(s, seq, cb, ctx);
	} else if (d < 0) {
		/* Already seen (retransmission): keep only what is new. */
		uint64_t old = (uint64_t)(-(int64_t)d);

		if (old >= len)
			return 0;
		data += old;
		len -= (size_t)old;
	}
	return n_ev + process(s, data, len, cb, ctx);
}

int
rk_mpa_stream_finish(struct rk_mpa_stream *s, rk_mpa_event_cb cb, void *ctx)
{
	int n_ev = 0;

	if (s == NULL)
		return -EINVAL;
	if ((s->state == ST_FRAME || s->state == ST_FPDU) && s->in_unit)
		emit_lost(s, cb, ctx, &n_ev, RK_MPA_LOST_TRUNCATED, s->unit_seq,
			  s->unit_off, s->next_seq - s->unit_seq, -1, false);
	s->in_unit = false;
	s->state = ST_DEAD;
	return n_ev;
}
