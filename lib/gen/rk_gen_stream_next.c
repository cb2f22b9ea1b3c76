/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A compiled stream's frames, one after another: the variations stepped,
 * the ICRC and IPv4 checksum kept right, the bytes that change copied,
 * the TX time stamped.
 */
#include "rk_gen_stream.h"

#include <errno.h>
#include <string.h>

#include "rk_byteorder.h"
#include "rk_gen_icrc.h"
#include "rk_gen_stream_priv.h"
#include "rk_ipv4.h"
#include "rk_pkt.h"
#include "rk_rand.h"
#include "rk_xeth.h"

/* Add [off, off + n) to t's changing bytes, clipped to what is sent and
 * merged with a range it touches. */
static void
dirty_add(struct tmpl *t, uint32_t off, uint32_t n)
{
	uint32_t end = off + n > t->out_len ? t->out_len : off + n;

	if (off >= end)
		return;
	for (uint32_t i = 0; i < t->ndirty; i++) {
		struct rk_gen_range *r = &t->dirty[i];
		uint32_t rend = (uint32_t)r->off + r->len;

		if (off <= rend && end >= r->off) {
			uint32_t lo = off < r->off ? off : r->off, hi = end > rend ? end : rend;

			r->off = (uint16_t)lo;
			r->len = (uint16_t)(hi - lo);
			return;
		}
	}
	t->dirty[t->ndirty++] = (struct rk_gen_range){ (uint16_t)off, (uint16_t)(end - off) };
}

/* t's dirty ranges as whole words, as rk_gen_frame_copy() copies them. */
static void
words_build(struct tmpl *t)
{
	uint32_t len = t->out_len;

	t->nwords = 0;
	if (len < 8)
		return;
	for (uint32_t i = 0; i < t->ndirty; i++)
		for (uint32_t b = t->dirty[i].off; b < (uint32_t)t->dirty[i].off + t->dirty[i].len;
		     b += 8) {
			uint32_t w = b + 8 <= len ? b : len - 8, j;

			for (j = 0; j < t->nwords && t->words[j] != w; j++)
				;
			if (j < t->nwords)
				continue;
			if (t->nwords == WORDS_MAX) {
				t->nwords = 0;
				return;
			}
			t->words[t->nwords++] = (uint16_t)w;
		}
}

void
rk_gen_tmpl_dirty_build(const struct rk_gen_stream *s, struct tmpl *t)
{
	t->ndirty = 0;
	for (uint32_t k = 0; k < s->nvar; k++)
		if (t->v[k].present)
			dirty_add(t, t->v[k].off, t->v[k].n);
	if (t->seq.present) {
		dirty_add(t, t->seq.off, t->seq.n);
		dirty_add(t, t->ts.off, t->ts.n);
	}
	if (t->roce && s->cfg.ip_version == 4)
		dirty_add(t, t->l3 + 10, 2); /* the header checksum, when it follows */
	if (t->roce)
		dirty_add(t, t->icrc_off, RK_ICRC_LEN);
	words_build(t);
}

uint64_t
rk_gen_vary_value(const struct rk_gen_vary *v, uint64_t fmax, uint64_t tmpl, uint64_t i)
{
	uint64_t max = v->max ? v->max : fmax;
	uint64_t span = max - v->min + 1; /* 0: all 2^64 values */
	uint64_t step = v->step ? v->step : 1;
	uint64_t idx = i / (v->every ? v->every : 1);
	uint64_t start = v->has_start ? v->start : tmpl;
	uint64_t k, d, st;

	if (start < v->min || start > max)
		start = v->op == RK_GEN_VARY_DEC ? max : v->min;
	k = start - v->min;
	d = idx * step;
	switch (v->op) {
	case RK_GEN_VARY_INC:
		if (span == 0)
			return start + d;
		/* n * step modulo the span, exactly; k + d may not fit: wrap by hand */
		d = (uint64_t)((unsigned __int128)idx * step % span);
		return v->min + (k >= span - d ? k - (span - d) : k + d);
	case RK_GEN_VARY_DEC:
		if (span == 0)
			return start - d;
		d = (uint64_t)((unsigned __int128)idx * step % span);
		return v->min + (k >= d ? k - d : k + (span - d));
	case RK_GEN_VARY_RANDOM:
		st = v->seed ^ (idx * 0xd1b54a32d192ed03ull);
		d = rk_splitmix64(&st);
		return span ? v->min + d % span : d;
	default:
		return v->nvalues ? v->values[idx % v->nvalues] : tmpl;
	}
}

/*
 * The value of variation k for frame s->i: from its cursor for inc and dec
 * (frames come in order from 0, see rk_gen_stream_next), else computed.
 */
static uint64_t
vary_next(struct rk_gen_stream *s, uint32_t k)
{
	const struct rk_gen_vary *v = &s->var[k];
	struct cursor *c = &s->cur[k];
	uint64_t off, d = c->step_mod;

	if (v->op > RK_GEN_VARY_DEC || c->span == 0 || s->i == 0) {
		c->value = rk_gen_vary_value(v, s->var_max[k], s->var_tmpl_value[k], s->i);
		c->hold = 0;
		return c->value;
	}
	if (++c->hold < c->every)
		return c->value;
	c->hold = 0;
	off = c->value - v->min;
	if (v->op == RK_GEN_VARY_INC)
		off = off >= c->span - d ? off - (c->span - d) : off + d;
	else
		off = off >= d ? off - d : off + (c->span - d);
	c->value = v->min + off;
	return c->value;
}

/* The IPv4 checksum after field tv of t changed from @p cont to @p now
 * (RFC 1624 over the 16-bit words it touches inside the header). */
static void
apply_csum(struct tmpl *t, const struct tvar *tv, uint64_t cont)
{
	uint32_t lo = tv->off & ~1u, hi = (tv->off + tv->n + 1) & ~1u;
	uint8_t before[RK_GEN_ICRC_FIELD_MAX + 2];
	uint8_t *ip = t->frame + t->l3;
	uint32_t wlo = lo < t->l3 ? t->l3 : lo;
	uint32_t whi = hi > t->l3 + RK_IPV4_HLEN ? t->l3 + RK_IPV4_HLEN : hi;

	for (uint32_t i = 0; i < hi - lo; i++)
		before[i] = t->frame[lo + i];
	rk_field_store_be(before + (tv->off - lo), tv->n, cont);
	rk_ipv4_set_hdr_csum(ip, rk_gen_csum_replace(rk_ipv4_hdr_csum(ip), before + (wlo - lo),
						     t->frame + wlo, whi - wlo));
}

/* Write v into field tv of t, keeping ICRC (incremental) and checksum
 * right. Per frame: the ICRC changes by the XOR of the field's old and new
 * bytes (CRC is linear), one table per byte. */
static inline __attribute__((always_inline)) uint64_t
apply(struct tmpl *t, const struct tvar *tv, uint64_t v, bool incremental)
{
	uint8_t *p = t->frame + tv->off;
	uint64_t cont = rk_field_load_be(p, tv->n);
	uint64_t now = (cont & ~tv->mask) | ((v << tv->shift) & tv->mask);
	uint64_t diff = cont ^ now;

	if (diff == 0)
		return now;
	rk_field_store_be(p, tv->n, now);
	if (!incremental)
		return now;
	if (tv->icf.tab != NULL)
		for (uint32_t i = tv->n; diff != 0; diff >>= 8)
			t->icrc ^= tv->icf.tab[--i][diff & 0xff];
	if (tv->csum)
		apply_csum(t, tv, cont);
	return now;
}

int
rk_gen_stream_next(struct rk_gen_stream *s, uint8_t *buf, uint32_t cap)
{
	return rk_gen_stream_next_at(s, buf, cap, 0);
}

/* The template of the stream's next frame, or NULL when it is done. */
static struct tmpl *
next_tmpl(struct rk_gen_stream *s)
{
	uint32_t j;

	if (s->count && s->i >= s->count)
		return NULL;
	if (s->ntmpl == 1)
		return &s->t[0];
	j = (uint32_t)(s->i % s->train_n);
	return &s->t[j == 0 ? 0 : j == s->train_n - 1 ? 2 : 1];
}

/*
 * The ICRC of RoCE template @p t's new frame, written into it (inverted
 * for --icrc bad): folded in by apply() when @p incr, else computed in
 * full, after the IPv4 checksum it covers. @return the value written
 */
static inline __attribute__((always_inline)) uint32_t
put_icrc(const struct rk_gen_stream *s, struct tmpl *t, bool incr)
{
	uint32_t icrc;

	if (!incr) {
		if (t->csum_live)
			rk_ipv4_fill_csum(t->frame + t->l3);
		t->icrc = full_icrc(t);
	}
	icrc = s->cfg.icrc == RK_GEN_ICRC_BAD ? ~t->icrc : t->icrc;
	rk_put_le32(t->frame + t->icrc_off, icrc);
	return icrc;
}

/* Make template @p t the stream's next frame, at TX time @p tx_ns. */
static void
advance(struct rk_gen_stream *s, struct tmpl *t, uint64_t tx_ns)
{
	bool incr = s->cfg.icrc != RK_GEN_ICRC_FULL && t->lay_ok;

	for (uint32_t k = 0; k < s->nvar; k++) {
		uint64_t v = vary_next(s, k); /* every frame: the cursors run on */

		if (t->v[k].present)
			apply(t, &t->v[k], v, incr);
	}
	if (t->seq.present) {
		apply(t, &t->seq, (uint32_t)s->i, incr);
		apply(t, &t->ts, tx_ns, incr);
	}
	if (t->roce)
		put_icrc(s, t, incr);
	s->i++;
}

/*
 * advance() of a stream without the slot, template @p t not truncated,
 * and its changing bytes written into @p dst (which holds an earlier
 * frame of t) from the values in hand: the bytes the dirty ranges would
 * copy. Reading them back from t would wait on the narrower stores just
 * made (no store forwarding into a wider load).
 */
static inline __attribute__((always_inline)) void
advance_out(struct rk_gen_stream *s, struct tmpl *t, uint8_t *dst)
{
	uint32_t icrc;
	bool incr = s->cfg.icrc != RK_GEN_ICRC_FULL && t->lay_ok;

	for (uint32_t k = 0; k < s->nvar; k++) {
		uint64_t v = vary_next(s, k);
		const struct tvar *tv = &t->v[k];

		/* always written: dst may hold a frame with another value */
		if (tv->present)
			rk_field_store_be(dst + tv->off, tv->n, apply(t, tv, v, incr));
	}
	if (t->roce) {
		icrc = put_icrc(s, t, incr);
		rk_put_le32(dst + t->icrc_off, icrc);
		if (s->cfg.ip_version == 4)
			memcpy(dst + t->l3 + 10, t->frame + t->l3 + 10, 2);
	}
	s->i++;
}

int
rk_gen_stream_next_at(struct rk_gen_stream *s, uint8_t *buf, uint32_t cap, uint64_t tx_ns)
{
	struct tmpl *t = next_tmpl(s);

	if (t == NULL)
		return 0;
	if (cap < t->out_len)
		return -ENOSPC;
	advance(s, t, tx_ns);
	memcpy(buf, t->frame, t->out_len);
	return (int)t->out_len;
}

const uint8_t *
rk_gen_stream_next_ref(struct rk_gen_stream *s, uint64_t tx_ns, struct rk_gen_ref_frame *f)
{
	struct tmpl *t = next_tmpl(s);

	if (t == NULL)
		return NULL;
	advance(s, t, tx_ns);
	f->len = t->out_len;
	f->tmpl = (uint32_t)(t - s->t);
	f->dirty = t->dirty;
	f->ndirty = t->ndirty;
	return t->frame;
}

/* Bytes of template t into dst, which holds an earlier frame of it
 * when held is its length: then the dirty words only. */
static inline void
copy_out(const struct tmpl *t, uint8_t *dst, uint32_t held)
{
	if (held != t->out_len || t->nwords == 0) {
		memcpy(dst, t->frame, t->out_len);
		return;
	}
	for (uint32_t j = 0; j < t->nwords; j++) {
		uint64_t w;

		memcpy(&w, t->frame + t->words[j], 8);
		memcpy(dst + t->words[j], &w, 8);
	}
}

uint32_t
rk_gen_stream_copy_next(struct rk_gen_stream *s, uint8_t *const *bufs, const uint32_t *held,
			uint32_t n, struct rk_gen_ref_frame *f, const uint8_t **data)
{
	struct tmpl *t = &s->t[f->tmpl < s->ntmpl ? f->tmpl : 0], *nt;
	bool whole = t->out_len == t->len; /* every changing byte is sent */

	if (n == 0 || f->len == 0 || s->i == 0 || s->cfg.seq || f->len != t->out_len)
		return 0;
	copy_out(t, bufs[0], held[0]);  /* the frame made already */
	for (uint32_t k = 1;; k++) {
		nt = next_tmpl(s);
		if (nt == NULL) {
			f->len = 0;
			return k;
		}
		if (k == n || nt != t) { /* the next one made, left pending */
			advance(s, nt, 0);
			f->len = nt->out_len;
			f->tmpl = (uint32_t)(nt - s->t);
			f->dirty = nt->dirty;
			f->ndirty = nt->ndirty;
			*data = nt->frame;
			return k;
		}
		if (whole && held[k] == t->out_len) {
			uint32_t m = rk_gen_stream_run1(s, t, bufs + k, held + k, n - k);

			if (m != 0) {
				k += m - 1;
				continue;
			}
			advance_out(s, t, bufs[k]);
		} else {
			advance(s, t, 0);
			copy_out(t, bufs[k], held[k]);
		}
	}
}

uint32_t
rk_gen_stream_tmpl_len(const struct rk_gen_stream *s, uint32_t tmpl)
{
	if (tmpl >= s->ntmpl || (s->ntmpl > 1 && tmpl == 1 && s->train_n <= 2))
		return 0;
	return s->t[tmpl].out_len;
}

void
rk_gen_stream_reset(struct rk_gen_stream *s)
{
	s->i = 0;
}

uint64_t
rk_gen_stream_index(const struct rk_gen_stream *s)
{
	return s->i;
}

const struct rk_gen_cfg *
rk_gen_stream_cfg(const struct rk_gen_stream *s)
{
	return &s->cfg;
}

uint32_t
rk_gen_stream_train_len(const struct rk_gen_stream *s)
{
	return s->train_n;
}

int
rk_gen_stream_stamp(const struct rk_gen_stream *s, uint8_t *buf, uint32_t len, uint64_t tx_ns)
{
	struct rk_pkt pkt;
	struct rk_gen_icrc_layout lay;
	uint8_t old[8];
	uint32_t at, icrc;

	if (!s->cfg.seq || s->cfg.kind != RK_GEN_ROCEV2 ||
	    rk_pkt_parse(&pkt, buf, len, len, RK_LINK_ETHERNET,
			 &(struct rk_parse_opts){ .check_icrc = false }) != 0 ||
	    !rk_pkt_has_bth(&pkt) || pkt.icrc_off == 0 || pkt.icrc_off + RK_ICRC_LEN > len)
		return -EINVAL;
	at = pkt.payload_off + s->cfg.seq_off + 8;
	if (at + 8 > pkt.icrc_off ||
	    rk_gen_icrc_layout_init(&lay, buf + pkt.l3_off, pkt.icrc_off - pkt.l3_off) < 0)
		return -EINVAL;
	memcpy(old, buf + at, 8);
	rk_put_be64(buf + at, tx_ns);
	icrc = rk_gen_icrc_patch(&lay, rk_get_le32(buf + pkt.icrc_off), at - pkt.l3_off, old,
				 buf + at, 8);
	rk_put_le32(buf + pkt.icrc_off, icrc);
	return 0;
}

int
rk_gen_stream_stamp_last(const struct rk_gen_stream *s, uint8_t *buf, uint32_t len,
			 uint64_t tx_ns)
{
	const struct tmpl *t;
	uint8_t old[8];
	uint32_t j;

	if (s->i == 0)
		return -EINVAL;
	j = (uint32_t)((s->i - 1) % s->train_n);
	t = &s->t[s->ntmpl == 1 ? 0 : j == 0 ? 0 : j == s->train_n - 1 ? 2 : 1];
	if (!t->seq.present || !t->roce || len != t->out_len || t->ts.off + 8 > len ||
	    t->icrc_off + RK_ICRC_LEN > len)
		return -EINVAL;
	if (!t->lay_ok) /* no prepared tables: the parsing way */
		return rk_gen_stream_stamp(s, buf, len, tx_ns);
	memcpy(old, buf + t->ts.off, 8);
	rk_put_be64(buf + t->ts.off, tx_ns);
	/* the update is an XOR: a bad (complemented) ICRC stays bad */
	rk_put_le32(buf + t->icrc_off,
		    rk_gen_icrc_field_update(&t->ts.icf, rk_get_le32(buf + t->icrc_off), old,
					     buf + t->ts.off));
	return 0;
}
