/* SPDX-License-Identifier: BSD-3-Clause */
/* rk-gen's scheduler: the streams' frames merged by the times their rates give. */
#include <stdio.h>
#include <stdlib.h>

#include "gen.h"

/* Time between two frames of a stream, in ns, after a frame of len bytes. */
static double
gap_ns(const struct rk_gen_cfg *c, uint32_t len, double line_rate_bps)
{
	/* On the wire a frame also takes FCS 4, preamble 8 and the gap 12 bytes. */
	double bits = (len + 24.0) * 8;

	switch (c->rate_unit) {
	case RK_GEN_RATE_PPS:
		return 1e9 / c->rate;
	case RK_GEN_RATE_BPS:
		return bits * 1e9 / c->rate;
	case RK_GEN_RATE_PERCENT:
		return bits * 1e9 / (line_rate_bps * c->rate / 100);
	default:
		return 1000; /* 1 Mpps */
	}
}

int
rk_gen_sched_init(struct rk_gen_sched *s, const struct rk_gen_cfg *cfgs, uint32_t n,
		  double line_rate_bps)
{
	s->n = n;
	s->line_rate_bps = line_rate_bps;
	s->lv = calloc(n, sizeof(*s->lv));
	if (s->lv == NULL) {
		fprintf(stderr, "rk-gen: out of memory\n");
		return -1;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct rk_gen_err e = { 0 };
		struct rk_gen_live *l = &s->lv[i];

		if (rk_gen_stream_compile(&cfgs[i], &l->s, &e) < 0) {
			fprintf(stderr, "rk-gen: stream '%s': field '%s': %s\n", cfgs[i].name,
				e.field, e.reason);
			return -1;
		}
		l->len = rk_gen_stream_next_at(l->s, l->frame, sizeof(l->frame), 0);
	}
	return 0;
}

struct rk_gen_live *
rk_gen_sched_peek(struct rk_gen_sched *s)
{
	struct rk_gen_live *m = NULL;

	for (uint32_t i = 0; i < s->n; i++)
		if (s->lv[i].len > 0 && (m == NULL || s->lv[i].t_ns < m->t_ns))
			m = &s->lv[i];
	return m;
}

void
rk_gen_sched_advance(struct rk_gen_sched *s, struct rk_gen_live *m)
{
	m->t_ns += gap_ns(rk_gen_stream_cfg(m->s), (uint32_t)m->len, s->line_rate_bps);
	m->len = rk_gen_stream_next_at(m->s, m->frame, sizeof(m->frame), (uint64_t)m->t_ns);
}

void
rk_gen_sched_fini(struct rk_gen_sched *s)
{
	for (uint32_t i = 0; s->lv != NULL && i < s->n; i++)
		rk_gen_stream_free(s->lv[i].s);
	free(s->lv);
	s->lv = NULL;
}
