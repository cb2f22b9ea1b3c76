/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A burst of one template with one inc or dec variation (a PSN stepping,
 * say): advance_out() per frame reloads the template's fields after each
 * byte store (a byte store may alias them); here they stay in registers.
 */
#include "rk_gen_stream_priv.h"

#include <string.h>

#include "rk_byteorder.h"

/*
 * The loop, stepping every frame or not (a constant after inlining). The
 * field is handled as the low bytes of the 8-byte big-endian word ending
 * with it: one store; its other bytes are the template's, unchanged by
 * the loop (no other field varies; the ICRC follows the field, and an
 * IPv4 header field, with the checksum, is not taken here). The ICRC kept
 * is the one written (a bad one complemented): the updates are XORs.
 * Up to *mp frames, fewer at the first buffer not holding one of t.
 */
static inline __attribute__((always_inline)) void
run_loop(uint8_t *const *bufs, const uint32_t *held, uint32_t len, uint32_t *mp, bool each,
	 uint32_t n, uint32_t woff, uint64_t *wp, uint64_t mask, unsigned int shift,
	 const uint32_t (*tab)[256], uint32_t *icrcp, uint32_t icrc_off, uint32_t csum_off,
	 uint16_t csum, uint64_t *offp, uint64_t min, uint64_t span, uint64_t d, uint32_t every,
	 uint32_t *holdp)
{
	uint64_t w = *wp, off = *offp, span_d = span - d;
	uint32_t icrc = *icrcp, hold = *holdp, m = *mp;

	for (uint32_t j = 0; j < m; j++) {
		uint8_t *dst = bufs[j];
		uint64_t now, diff;

		if (held[j] != len) {           /* not an earlier frame of t: stop */
			m = j;
			break;
		}
		if (each || ++hold >= every) {
			hold = 0;
			off = off >= span_d ? off - span_d : off + d;
		}
		now = (w & ~mask) | (((min + off) << shift) & mask);
		diff = w ^ now;
		for (const uint32_t(*b)[256] = tab + n - 1; diff != 0; diff >>= 8, b--)
			icrc ^= (*b)[diff & 0xff];
		w = now;
		/* first: the word may cover these two bytes (IPv6) */
		memcpy(dst + csum_off, &csum, 2);
		rk_put_be64(dst + woff, w);
		rk_put_le32(dst + icrc_off, icrc);
	}
	*wp = w;
	*offp = off;
	*icrcp = icrc;
	*holdp = hold;
	*mp = m;
}

uint32_t
rk_gen_stream_run1(struct rk_gen_stream *s, struct tmpl *t, uint8_t *const *bufs,
		   const uint32_t *held, uint32_t n)
{
	const struct tvar *tv = &t->v[0];
	const struct rk_gen_vary *v = &s->var[0];
	struct cursor *c = &s->cur[0];
	uint32_t m = n, icrc = t->icrc, hold = c->hold;
	uint64_t w, off, d = c->step_mod;
	uint32_t woff = tv->off + tv->n - 8;
	uint16_t csum;

	if (s->nvar != 1 || s->ntmpl != 1 || s->i == 0 || !tv->present || tv->csum ||
	    tv->icf.tab == NULL || !t->roce || !t->lay_ok || s->cfg.icrc == RK_GEN_ICRC_FULL ||
	    v->op > RK_GEN_VARY_DEC || c->span == 0 || t->out_len != t->len ||
	    tv->off + tv->n < 8 || tv->off + tv->n > t->icrc_off)
		return 0;
	if (s->count && s->count - s->i < m)
		m = (uint32_t)(s->count - s->i);
	if (m == 0 || held[0] != t->out_len)
		return 0;
	/* down by d is up by span - d (d < span) */
	if (v->op == RK_GEN_VARY_DEC)
		d = c->span - d;
	/* IPv4's Header Checksum, constant here; IPv6: the template's bytes */
	memcpy(&csum, t->frame + t->l3 + 10, 2);
	w = rk_get_be64(t->frame + woff);
	off = c->value - v->min;
	if (s->cfg.icrc == RK_GEN_ICRC_BAD)
		icrc = ~icrc;
#define RUN(each)                                                                                \
	run_loop(bufs, held, t->out_len, &m, each, tv->n, woff, &w, tv->mask, tv->shift,          \
		 tv->icf.tab, &icrc, t->icrc_off, t->l3 + 10, csum, &off, v->min, c->span, d,     \
		 c->every, &hold)
	if (c->every > 1)
		RUN(false);
	else
		RUN(true);
#undef RUN
	rk_put_le32(t->frame + t->icrc_off, icrc);
	if (s->cfg.icrc == RK_GEN_ICRC_BAD)
		icrc = ~icrc;
	rk_put_be64(t->frame + woff, w);
	t->icrc = icrc;
	c->value = v->min + off;
	c->hold = hold;
	s->i += m;
	return m;
}
