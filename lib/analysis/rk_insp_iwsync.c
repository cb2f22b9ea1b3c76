/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * FPDU boundary search for iWARP streams joined mid-connection
 * (RFC 5044 4.1, 4.3): marker grid first, then FPDU chains; each
 * candidate is vouched for by the deframer itself.
 */
#include "rk_insp_iwsync.h"

#include <string.h>

#include "rk_byteorder.h"
#include "rk_ddp.h"

/* What the deframer made of the bytes after a candidate start. */
struct verdict {
	uint32_t fpdus;
	uint32_t crc_good;
	uint32_t end;       /* sequence number after the last FPDU */
	bool bad;
	bool hit;           /* an FPDU started at target */
	uint32_t target;
};

/*
 * Stream bytes the FPDUs must span before a non-final verdict: past one
 * marker interval, a marker the candidate's options leave out (or put in)
 * would have broken the framing.
 */
#define SPAN_MIN (RK_MPA_MARKER_SPACING + RK_MPA_MARKER_LEN)

/* Bytes the deframer is fed at a time while a candidate is checked. */
#define VERIFY_STEP 2048u

/* Any finding, a warning too (a marker read as pad, say), rejects a candidate. */
static bool
has_error(const struct rk_findings *f)
{
	return f->count != 0 || f->dropped != 0;
}

static void
on_event(const struct rk_mpa_event *ev, void *ctx)
{
	struct verdict *v = ctx;

	if (ev->kind != RK_MPA_EV_FPDU) {
		v->bad = true;
		return;
	}
	if (!ev->fpdu.msg.ddp_ok || !ev->fpdu.msg.rdmap_hdr_ok || has_error(&ev->findings))
		v->bad = true;
	v->fpdus++;
	v->end = ev->seq + ev->wire_len;
	if (ev->seq == v->target || ev->fpdu.hdr_seq == v->target)
		v->hit = true;
	if (ev->fpdu.crc_checked && ev->fpdu.crc_ok)
		v->crc_good++;
}

/*
 * Frame buf[start, n) as FPDUs; @return FPDUs framed without an error, -1
 * on one, or when @p target is not NULL and no FPDU starts at sequence
 * number *target; @p span: the bytes they take.
 */
static int
verify_to(struct rk_mpa_stream *s, const uint8_t *buf, uint32_t n, uint32_t seq0,
	  uint32_t start, bool markers, bool crc, uint32_t marker_seq0, uint32_t *span,
	  const uint32_t *target)
{
	struct rk_mpa_params p = { .rev = 0, .markers = markers, .crc = crc };
	struct verdict v = { 0, 0, seq0 + start, false, false, target ? *target : 0 };

	rk_mpa_stream_init_fpdu(s, &p, seq0 + start, marker_seq0);
	/* In pieces, to stop at the first error (or, with a target, once it
	 * is reached): wrong candidates cost little. */
	for (uint32_t off = start; off < n && !v.bad && !(target != NULL && v.hit);) {
		uint32_t step = n - off < VERIFY_STEP ? n - off : VERIFY_STEP;

		(void)rk_mpa_stream_feed(s, seq0 + off, buf + off, step, on_event, &v);
		off += step;
	}
	if (v.bad || (target != NULL && !v.hit))
		return -1;
	*span = v.end - (seq0 + start);
	return (int)v.fpdus;
}

static int
verify(struct rk_mpa_stream *s, const uint8_t *buf, uint32_t n, uint32_t seq0,
       uint32_t start, bool markers, bool crc, uint32_t marker_seq0, uint32_t *span)
{
	return verify_to(s, buf, n, seq0, start, markers, crc, marker_seq0, span, NULL);
}

/*
 * Try CRC on (every CRC must check), then off (more FPDUs wanted: nothing
 * but their headers vouches for them). @return 1 and @p out, or 0.
 */
static int
settle(struct rk_mpa_stream *s, const uint8_t *buf, uint32_t n, uint32_t seq0,
       uint32_t start, bool markers, uint32_t marker_seq0, bool final, bool need_crc,
       struct rk_insp_iwsync *out)
{
	uint32_t span = 0;
	int k = verify(s, buf, n, seq0, start, markers, true, marker_seq0, &span);
	bool crc = true;

	if ((k >= 2 && span >= SPAN_MIN) || (k >= 1 && final)) {
		/* every CRC checked */
	} else {
		if (need_crc)
			return 0;
		k = verify(s, buf, n, seq0, start, markers, false, marker_seq0, &span);
		crc = false;
		if (!((k >= 3 && span >= 2 * SPAN_MIN) || (k >= 2 && final)))
			return 0;
	}
	out->seq = seq0 + start;
	out->marker_seq0 = marker_seq0;
	out->params.rev = 0;
	out->params.markers = markers;
	out->params.crc = crc;
	out->fpdus = (uint32_t)k;
	out->span = span;
	return 1;
}

/*
 * The FPDUs before the first one a marker vouches for (at @p out->seq): the
 * earliest offset whose FPDUs, framed with the same grid and CRC setting,
 * run cleanly into it. A candidate on the grid is an FPDU behind its leading
 * marker.
 */
static void
extend_back(const uint8_t *buf, uint32_t n, uint32_t seq0, struct rk_mpa_stream *s,
	    struct rk_insp_iwsync *out)
{
	uint32_t t = out->seq - seq0;

	for (uint32_t o = 0; o < t; o++) {
		bool lead = ((seq0 + o - out->marker_seq0) % RK_MPA_MARKER_SPACING) == 0;
		uint32_t h = o + (lead ? RK_MPA_MARKER_LEN : 0);
		uint32_t span = 0;
		int k;

		/* DV 1 and RV 1 (RFC 5041 5.1, RFC 5040 4.3) before any framing. */
		if (h + RK_MPA_HDR_LEN + 2 > n || rk_get_be16(buf + h) < RK_DDP_TAGGED_LEN ||
		    (buf[h + 2] & 0x03) != 1 || (buf[h + 3] >> 6) != 1)
			continue;
		k = verify_to(s, buf, n, seq0, o, true, out->params.crc, out->marker_seq0, &span,
			      &out->seq);
		if (k > 0) {
			/* Checked up to the boundary; the rest was already. */
			out->seq = seq0 + o;
			out->fpdus += (uint32_t)k - 1;
			out->span += t - o;
			return;
		}
	}
}

/* Markers: the grid phase whose markers all look like markers, and the first
 * one that points at an FPDU start inside the bytes. */
static int
find_markers(const uint8_t *buf, uint32_t n, uint32_t seq0, bool final,
	     struct rk_mpa_stream *s, struct rk_insp_iwsync *out)
{
	for (uint32_t p = 0; p < RK_MPA_MARKER_SPACING && p + RK_MPA_MARKER_LEN <= n; p++) {
		uint32_t count = 0, start = UINT32_MAX;
		bool ok = true;

		for (uint32_t m = p; m + RK_MPA_MARKER_LEN <= n; m += RK_MPA_MARKER_SPACING) {
			uint16_t fptr = rk_get_be16(buf + m + 2);

			if (rk_get_be16(buf + m) != 0 || (fptr & 3) != 0) {
				ok = false;
				break;
			}
			count++;
			if (start == UINT32_MAX && fptr <= m)
				start = m - fptr;
		}
		/* One marker alone is weak evidence (the zeros of a DDP header
		 * look like one): only at the stream's end, with CRCs to agree. */
		if (!ok || start == UINT32_MAX || (count < 2 && !final))
			continue;
		if (settle(s, buf, n, seq0, start, true, seq0 + p, final, count < 2, out) == 1) {
			extend_back(buf, n, seq0, s, out);
			return 1;
		}
	}
	return 0;
}

/* Whether an FPDU at @p o frames a clean DDP/RDMAP header; @p next its end. */
static int
fpdu_at(const uint8_t *buf, uint32_t n, uint32_t o, uint32_t *next)
{
	struct rk_rdmap_msg msg;
	struct rk_findings f;
	uint16_t len;

	if (o + RK_MPA_HDR_LEN > n)
		return 0;
	len = rk_get_be16(buf + o);
	if (o + RK_MPA_HDR_LEN + len > n)
		return 0;
	memset(&f, 0, sizeof(f));
	if (rk_rdmap_parse(buf + o + RK_MPA_HDR_LEN, len, &msg, &f) != 0 || !msg.ddp_ok ||
	    !msg.rdmap_hdr_ok || has_error(&f))
		return -1;
	*next = o + rk_mpa_fpdu_len(len);
	return 1;
}

static int
find_chain(const uint8_t *buf, uint32_t n, uint32_t seq0, bool final,
	   struct rk_mpa_stream *s, struct rk_insp_iwsync *out)
{
	for (uint32_t o = 0; o + RK_MPA_HDR_LEN <= n; o++) {
		uint32_t next = 0, after = 0;

		if (fpdu_at(buf, n, o, &next) != 1)
			continue;
		/* The next FPDU must look right too, unless the bytes end first. */
		if (fpdu_at(buf, n, next, &after) < 0)
			continue;
		if (settle(s, buf, n, seq0, o, false, 0, final, false, out) == 1)
			return 1;
	}
	return 0;
}

int
rk_insp_iwsync_find(const uint8_t *buf, uint32_t n, uint32_t seq0, bool final,
		    struct rk_mpa_stream *scratch, struct rk_insp_iwsync *out)
{
	if (buf == NULL || scratch == NULL || out == NULL)
		return -1;
	struct rk_insp_iwsync m, c;
	bool have_m, have_c;

	have_m = find_markers(buf, n, seq0, final, scratch, &m) == 1;
	have_c = find_chain(buf, n, seq0, final, scratch, &c) == 1;
	/* Both framings fit (few bytes, a stream's end): a CRC-checked one
	 * first, then the one that explains more of the bytes. */
	if (have_m && have_c) {
		if (m.params.crc != c.params.crc)
			have_c = c.params.crc;
		else
			have_c = c.span > m.span;
		have_m = !have_c;
	}
	if (have_m || have_c) {
		*out = have_m ? m : c;
		return 1;
	}
	return final || n >= RK_INSP_IWSYNC_MAX ? -1 : 0;
}
