/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-interval counts of a capture (rk_insp_series.h). */
#include "rk_insp_series.h"

#include <stdlib.h>
#include <string.h>

void
rk_insp_series_init(struct rk_insp_series *s, uint64_t interval_ns)
{
	memset(s, 0, sizeof(*s));
	s->interval_ns = interval_ns ? interval_ns : 1;
}

void
rk_insp_series_fini(struct rk_insp_series *s)
{
	free(s->row);
	s->row = NULL;
	s->n = s->cap = 0;
}

struct rk_insp_series_row *
rk_insp_series_at(struct rk_insp_series *s, uint64_t ts_ns)
{
	uint64_t i = ts_ns / s->interval_ns;

	if (i >= RK_INSP_SERIES_MAX) {
		s->overflow = true;
		return NULL;
	}
	if (i >= s->cap) {
		uint64_t cap = s->cap ? s->cap : 64;
		struct rk_insp_series_row *r;

		while (cap <= i)
			cap *= 2;
		r = realloc(s->row, cap * sizeof(*r));
		if (r == NULL) {
			s->overflow = true;
			return NULL;
		}
		memset(r + s->cap, 0, (cap - s->cap) * sizeof(*r));
		s->row = r;
		s->cap = cap;
	}
	if (i >= s->n)
		s->n = i + 1;
	return &s->row[i];
}

double
rk_insp_series_gbps(const struct rk_insp_series *s, uint64_t bytes)
{
	return (double)bytes * 8.0 / (double)s->interval_ns;
}
