/* SPDX-License-Identifier: BSD-3-Clause */
/* The stateless engine's scheduler: the sources' frames merged by the
 * times their rates (or a capture's timestamps) give. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_gen_sched.h"

double
rk_gen_gap_ns(int unit, double rate, uint32_t len, double line_rate_bps)
{
	/* On the wire a frame also takes FCS 4, preamble 8 and the gap 12 bytes. */
	double bits = (len + 24.0) * 8;

	switch (unit) {
	case RK_GEN_RATE_PPS:
		return 1e9 / rate;
	case RK_GEN_RATE_BPS:
		return bits * 1e9 / rate;
	case RK_GEN_RATE_PERCENT:
		return bits * 1e9 / (line_rate_bps * rate / 100);
	default:
		return 1000; /* 1 Mpps */
	}
}

/* A crafted stream as a source: frames at its rate, in bursts and on/off
 * periods when it has them. */
struct stream_src {
	struct rk_gen_stream *s;
	const struct rk_gen_cfg *c;     /* its configuration, read every frame */
	double line_rate_bps;
	double active_ns;       /* its time counting on periods only */
	uint64_t sent;          /* frames before this one */
	double gap_fixed_ns, gap_byte_ns; /* the gap after a frame of L bytes: fixed + byte * L */
};

/* When a frame at @p active_ns of sending time goes out: each on period
 * of @p c is followed by an off one. */
static double
on_off_time(const struct rk_gen_cfg *c, double active_ns)
{
	double on = c->on_us * 1e3;

	if (c->on_us == 0 || c->off_us == 0)
		return active_ns;
	return active_ns + (double)(uint64_t)(active_ns / on) * c->off_us * 1e3;
}

static int
stream_next(void *src, struct rk_gen_frame *f, double *t_ns)
{
	struct stream_src *ss = src;
	const struct rk_gen_cfg *c = ss->c;
	struct rk_gen_ref_frame rf;

	if (f->len > 0) {
		ss->active_ns += ss->gap_fixed_ns + ss->gap_byte_ns * f->len;
		if (c->burst_frames != 0 && ++ss->sent % c->burst_frames == 0)
			ss->active_ns += c->burst_gap_us * 1e3;
	}
	*t_ns = on_off_time(c, ss->active_ns);
	f->data = rk_gen_stream_next_ref(ss->s, (uint64_t)*t_ns, &rf);
	if (f->data == NULL)
		return f->len = 0;
	f->len = (int)rf.len;
	f->tmpl = rf.tmpl;
	f->dirty = rf.dirty;
	f->ndirty = rf.ndirty;
	return f->len;
}

/* Frames of the pending one's template into bufs, each made as
 * stream_next() makes it: no scheduler call or indirect call per frame. */
static int
stream_burst(void *src, struct rk_gen_frame *f, double *t_ns, uint8_t *const *bufs,
	     const uint32_t *held, uint32_t n)
{
	struct stream_src *ss = src;
	const struct rk_gen_cfg *c = ss->c;
	struct rk_gen_ref_frame rf = { .len = (uint32_t)f->len, .tmpl = f->tmpl };
	const uint8_t *data = f->data;
	uint32_t k = f->len > 0 ? rk_gen_stream_copy_next(ss->s, bufs, held, n, &rf, &data) : 0;

	if (k == 0)
		return 0;
	/* The times stream_next() would have stepped through, in its order. */
	for (uint32_t i = 0; i < k; i++) {
		ss->active_ns += ss->gap_fixed_ns + ss->gap_byte_ns * f->len;
		if (c->burst_frames != 0 && ++ss->sent % c->burst_frames == 0)
			ss->active_ns += c->burst_gap_us * 1e3;
	}
	*t_ns = on_off_time(c, ss->active_ns);
	f->len = (int)rf.len;
	if (rf.len > 0) {
		f->data = data;
		f->tmpl = rf.tmpl;
		f->dirty = rf.dirty;
		f->ndirty = rf.ndirty;
	}
	return (int)k;
}

static void
stream_free(void *src)
{
	struct stream_src *ss = src;

	rk_gen_stream_free(ss->s);
	free(ss);
}

static void
stream_stamp(void *src, uint8_t *buf, uint32_t len, uint64_t ns)
{
	struct stream_src *ss = src;

	rk_gen_stream_stamp_last(ss->s, buf, len, ns);
}

static uint32_t
stream_tmpl_len(void *src, uint32_t tmpl)
{
	return rk_gen_stream_tmpl_len(((struct stream_src *)src)->s, tmpl);
}

static const struct rk_gen_source_ops stream_ops = {
	.next = stream_next,
	.free = stream_free,
	.stamp = stream_stamp,
	.tmpl_len = stream_tmpl_len,
};
/* Streams without the sequence slot: nothing to stamp, so frames can go
 * in bursts (a stamped frame needs the wall clock as it is queued). */
static const struct rk_gen_source_ops stream_ops_noslot = {
	.next = stream_next,
	.free = stream_free,
	.tmpl_len = stream_tmpl_len,
	.burst = stream_burst,
};

int
rk_gen_sched_add(struct rk_gen_sched *s, const struct rk_gen_source_ops *ops, void *src,
		 const char *name)
{
	struct rk_gen_live *lv = realloc(s->lv, (s->n + 1) * sizeof(*lv)), *l;

	if (lv == NULL) {
		ops->free(src);
		return -ENOMEM;
	}
	s->lv = lv;
	l = &lv[s->n++];
	*l = (struct rk_gen_live){ .ops = ops, .src = src, .name = name };
	if (ops->next(src, &l->f, &l->t_ns) < 0) {
		l->f.len = 0;
		s->failed = true;
		return -EIO;
	}
	return 0;
}

int
rk_gen_sched_init(struct rk_gen_sched *s, const struct rk_gen_cfg *cfgs, uint32_t n,
		  double line_rate_bps, char *err, size_t errlen)
{
	*s = (struct rk_gen_sched){ .line_rate_bps = line_rate_bps };
	for (uint32_t i = 0; i < n; i++) {
		struct rk_gen_err e = { 0 };
		struct stream_src *ss = calloc(1, sizeof(*ss));
		int rc;

		if (ss == NULL) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		ss->line_rate_bps = line_rate_bps;
		/* The gap is affine in the frame's length: no division per frame. */
		ss->gap_fixed_ns = rk_gen_gap_ns(cfgs[i].rate_unit, cfgs[i].rate, 0, line_rate_bps);
		ss->gap_byte_ns = rk_gen_gap_ns(cfgs[i].rate_unit, cfgs[i].rate, 1, line_rate_bps) -
				  ss->gap_fixed_ns;
		if (rk_gen_stream_compile(&cfgs[i], &ss->s, &e) < 0) {
			snprintf(err, errlen, "stream '%s': field '%s': %s", cfgs[i].name,
				 e.field, e.reason);
			free(ss);
			return -EINVAL;
		}
		ss->c = rk_gen_stream_cfg(ss->s);
		rc = rk_gen_sched_add(s, cfgs[i].seq ? &stream_ops : &stream_ops_noslot, ss,
				      cfgs[i].name);
		if (rc < 0) {
			snprintf(err, errlen, rc == -ENOMEM ? "out of memory"
							    : "stream '%s': its first frame failed",
				 cfgs[i].name);
			return rc;
		}
	}
	return 0;
}

int
rk_gen_sched_init_port(struct rk_gen_sched *s, const struct rk_gen_cfg *cfgs, uint32_t n,
		       uint32_t port, double line_rate_bps, char *err, size_t errlen)
{
	struct rk_gen_cfg *own;
	uint32_t m = 0;
	int rc;

	*s = (struct rk_gen_sched){ .line_rate_bps = line_rate_bps };
	own = calloc(n ? n : 1, sizeof(*own));
	if (own == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++)
		if (cfgs[i].ports == 0 || (port < RK_GEN_PORT_BITS && (cfgs[i].ports >> port) & 1))
			own[m++] = cfgs[i];
	rc = rk_gen_sched_init(s, own, m, line_rate_bps, err, errlen);
	s->own = own;
	return rc;
}

struct rk_gen_live *
rk_gen_sched_peek(struct rk_gen_sched *s)
{
	struct rk_gen_live *m = NULL;

	for (uint32_t i = 0; i < s->n; i++)
		if (s->lv[i].f.len > 0 && (m == NULL || s->lv[i].t_ns < m->t_ns))
			m = &s->lv[i];
	return m;
}

void
rk_gen_sched_advance(struct rk_gen_sched *s, struct rk_gen_live *m)
{
	if (m->ops->next(m->src, &m->f, &m->t_ns) < 0) {
		m->f.len = 0;
		s->failed = true;
	}
}

uint32_t
rk_gen_sched_burst(struct rk_gen_sched *s, struct rk_gen_live *m, uint8_t *const *bufs,
		   const uint32_t *held, uint32_t n)
{
	int k;

	if (m->ops->burst == NULL || m->f.len <= 0 || n == 0)
		return 0;
	/* Another stream's frames would interleave by time: frame by frame. */
	for (uint32_t i = 0; i < s->n; i++)
		if (&s->lv[i] != m && s->lv[i].f.len > 0)
			return 0;
	k = m->ops->burst(m->src, &m->f, &m->t_ns, bufs, held, n);
	if (m->f.len < 0) {
		m->f.len = 0;
		s->failed = true;
	}
	return k > 0 ? (uint32_t)k : 0;
}

void
rk_gen_frame_copy(uint8_t *dst, uint32_t held, const struct rk_gen_frame *f)
{
	const struct rk_gen_range *r = f->dirty;
	const uint8_t *src = f->data;
	uint32_t len = (uint32_t)f->len, nd = f->ndirty;

	if (held != len || len < 8) {
		memcpy(dst, src, len);
		return;
	}
	/* Bytes outside the ranges are the same in both: copy whole 8-byte
	 * words over each range, the last one ending at len. The ranges are
	 * read into locals: a store to dst would otherwise reload them. */
	for (uint32_t i = 0; i < nd; i++) {
		uint32_t off = r[i].off, end = off + r[i].len;

		for (uint32_t b = off; b < end; b += 8) {
			uint32_t w = b + 8 <= len ? b : len - 8;
			uint64_t word;

			memcpy(&word, src + w, 8);
			memcpy(dst + w, &word, 8);
		}
	}
}

void
rk_gen_sched_fini(struct rk_gen_sched *s)
{
	for (uint32_t i = 0; s->lv != NULL && i < s->n; i++)
		s->lv[i].ops->free(s->lv[i].src);
	free(s->lv);
	s->lv = NULL;
	free(s->own);
	s->own = NULL;
}
