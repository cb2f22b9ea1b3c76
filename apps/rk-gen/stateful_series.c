/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-gen stateful's series (--interval with --csv, --plot, --json): per
 * interval of the run, messages per second, goodput, errors, retransmitted
 * packets, the messages outstanding at its end and (client) the p50 and
 * p99 latency of the messages completed in it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_plot.h"
#include "stateful_run.h"

/* Rows kept: past it the series ends (said once). */
#define SF_ROWS_MAX (1u << 20)

static const char *const col_names[] = {
	"time", "messages_per_s", "gbit_s", "errors", "retransmitted", "outstanding",
	"latency_p50_us", "latency_p99_us",
};
enum { COLS = sizeof(col_names) / sizeof(col_names[0]) };

void
rk_sf_series_row(struct rk_sf_run *r, uint64_t now_ns)
{
	struct rk_sf_series *s = &r->series;
	const struct rk_sf_totals *t = &r->s.t;
	uint64_t err = t->data_err + t->seq_err + t->wc_err;
	uint64_t retx = rk_context_stats(r->ctx)->req_retx_pkts;
	double dt = (double)(now_ns - s->last_ns) / 1e9;
	double *d;

	if (s->n == s->cap) {
		uint64_t cap = s->cap ? s->cap * 2 : 64;
		void *p = s->n < SF_ROWS_MAX ? realloc(s->v, cap * COLS * sizeof(double)) : NULL;

		if (p == NULL) {
			s->overflow = true;
			return;
		}
		s->v = p;
		s->cap = cap;
	}
	d = &s->v[s->n++ * COLS];
	d[0] = (double)(s->last_ns - r->t0_ns) / 1e9;
	d[1] = dt > 0 ? (double)(t->msgs - s->msgs) / dt : 0;
	d[2] = dt > 0 ? (double)(t->bytes - s->bytes) * 8 / dt / 1e9 : 0;
	d[3] = (double)(err - s->errors);
	d[4] = (double)(retx - s->retx);
	d[5] = (double)rk_sf_outstanding(&r->s);
	d[6] = r->s.lat ? (double)rk_hist_quantile(&r->s.lat->interval, 50000) / 1e3 : 0;
	d[7] = r->s.lat ? (double)rk_hist_quantile(&r->s.lat->interval, 99000) / 1e3 : 0;
	if (r->s.lat != NULL)
		rk_hist_init(&r->s.lat->interval);
	s->last_ns = now_ns;
	s->msgs = t->msgs;
	s->bytes = t->bytes;
	s->errors = err;
	s->retx = retx;
}

static void
csv(const struct rk_sf_series *s, FILE *f)
{
	for (int c = 0; c < COLS; c++)
		fprintf(f, "%s%s", c ? "," : "", col_names[c]);
	fputc('\n', f);
	for (uint64_t i = 0; i < s->n; i++)
		for (int c = 0; c < COLS; c++)
			fprintf(f, "%.9g%c", s->v[i * COLS + c], c + 1 < COLS ? ',' : '\n');
}

json_t *
rk_sf_series_json(const struct rk_sf_series *s)
{
	json_t *a = json_array();

	for (uint64_t i = 0; i < s->n; i++) {
		json_t *row = json_object();

		for (int c = 0; c < COLS; c++)
			json_object_set_new(row, c ? col_names[c] : "time_s",
					    json_real(s->v[i * COLS + c]));
		json_array_append_new(a, row);
	}
	return a;
}

static int
plot(const struct rk_sf_run *r, const char *png, char *err, size_t elen)
{
	static const struct rk_plot_panel panels[] = {
		{ .ylabel = "Gb/s", .n_cols = 1, .cols = { 2 } },
		{ .ylabel = "per interval", .n_cols = 2, .cols = { 3, 4 } },
		{ .ylabel = "latency (us)", .n_cols = 2, .cols = { 6, 7 }, .log_y = true },
	};
	const struct rk_sf_series *s = &r->series;
	char xlabel[96], title[96];

	snprintf(xlabel, sizeof(xlabel), "time (s), intervals of %.9g s",
		 (double)r->o->interval_ns / 1e9);
	snprintf(title, sizeof(title), "rk-gen %s, %u QPs", r->s.responder ? "responder" : "client",
		 r->s.n);
	return rk_plot_png(png, &(struct rk_plot){
		.title = title, .xlabel = xlabel, .n_cols = COLS, .names = col_names,
		.n_rows = s->n, .rows = s->v, .steps = true,
		.x_end = s->n ? (double)(s->last_ns - r->t0_ns) / 1e9 : 0,
		.n_panels = r->s.lat ? 3 : 2, .panels = panels }, err, elen);
}

int
rk_sf_series_write(const struct rk_sf_run *r)
{
	const struct rk_sf_opts *o = r->o;
	char err[256];
	FILE *f;

	if (r->series.overflow)
		fprintf(stderr, "rk-gen: --interval: more than %u intervals (or out of memory): the "
			"series ends there\n", SF_ROWS_MAX);
	if (o->csv != NULL) {
		f = fopen(o->csv, "w");
		if (f == NULL) {
			fprintf(stderr, "rk-gen: --csv %s: %s\n", o->csv, strerror(errno));
			return -1;
		}
		csv(&r->series, f);
		if (fclose(f) != 0) {
			fprintf(stderr, "rk-gen: --csv %s: %s\n", o->csv, strerror(errno));
			return -1;
		}
	}
	if (o->plot != NULL && plot(r, o->plot, err, sizeof(err)) != 0) {
		fprintf(stderr, "rk-gen: %s\n", err);
		return -1;
	}
	return 0;
}
