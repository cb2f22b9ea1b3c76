/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-gen stateful's series (--interval with --csv, --plot, --json): per
 * interval of the run, messages per second, goodput, errors, retransmitted
 * packets, the messages outstanding at its end and (client) the p50 and
 * p99 latency of the messages completed in it. A responder of several
 * clients keeps one per client and one of their sums, written together.
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
	"latency_p50_us", "latency_p99_us", "interval_s",
};
enum { COLS = sizeof(col_names) / sizeof(col_names[0]) };

void
rk_sf_series_row(struct rk_sf_run *r, uint64_t now_ns)
{
	struct rk_sf_series *s = &r->series;
	const struct rk_sf_totals *t = &r->s.t;
	uint64_t err = t->data_err + t->seq_err + t->wc_err;
	uint64_t retx = 0;
	double dt;
	double *d;
	/*
	 * The run's final interval, when shorter than half the period, joins
	 * the row before it: a rate over a sliver of time spikes (or dips).
	 */
	bool fold = s->n > 0 && now_ns - s->last_ns < r->o->interval_ns / 2;

	/* the context's counters are every client's: a client's own are its QPs' */
	if (!r->part)
		retx = rk_context_stats(r->ctx)->req_retx_pkts;
	for (uint32_t i = 0; r->part && i < r->s.n; i++)
		retx += rk_ib_qp_stats(rk_qp_ib(r->s.q[i].qp))->req_retx_pkts;
	if (fold) {
		s->n--;
		s->last_ns = s->row_ns;
		s->msgs = s->row_msgs;
		s->bytes = s->row_bytes;
		s->errors = s->row_errors;
		s->retx = s->row_retx;
		if (r->s.lat != NULL && s->row_lat != NULL)
			rk_hist_merge(&r->s.lat->interval, s->row_lat);
	} else if (s->n == s->cap) {
		uint64_t cap = s->cap ? s->cap * 2 : 64;
		void *p = s->n < SF_ROWS_MAX ? realloc(s->v, cap * COLS * sizeof(double)) : NULL;

		if (p == NULL) {
			s->overflow = true;
			return;
		}
		s->v = p;
		s->cap = cap;
	}
	dt = (double)(now_ns - s->last_ns) / 1e9;
	d = &s->v[s->n++ * COLS];
	d[0] = (double)(s->last_ns - s->t0_ns) / 1e9;
	d[1] = dt > 0 ? (double)(t->msgs - s->msgs) / dt : 0;
	d[2] = dt > 0 ? (double)(t->bytes - s->bytes) * 8 / dt / 1e9 : 0;
	d[3] = (double)(err - s->errors);
	d[4] = (double)(retx - s->retx);
	d[5] = (double)rk_sf_outstanding(&r->s);
	d[6] = r->s.lat ? (double)rk_hist_quantile(&r->s.lat->interval, 50000) / 1e3 : 0;
	d[7] = r->s.lat ? (double)rk_hist_quantile(&r->s.lat->interval, 99000) / 1e3 : 0;
	d[8] = dt;
	if (r->s.lat != NULL) {
		if (s->row_lat == NULL)
			s->row_lat = malloc(sizeof(*s->row_lat));
		if (s->row_lat != NULL)
			*s->row_lat = r->s.lat->interval;
		rk_hist_init(&r->s.lat->interval);
	}
	s->row_ns = s->last_ns;
	s->row_msgs = s->msgs;
	s->row_bytes = s->bytes;
	s->row_errors = s->errors;
	s->row_retx = s->retx;
	s->last_ns = now_ns;
	s->msgs = t->msgs;
	s->bytes = t->bytes;
	s->errors = err;
	s->retx = retx;
}

static void
csv(const struct rk_sf_run *r, FILE *f)
{
	const struct rk_sf_series *s = &r->series;

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
	snprintf(title, sizeof(title), "rk-gen %s, %u QP%s",
		 r->s.responder ? "responder" : "client", r->s.n, r->s.n == 1 ? "" : "s");
	return rk_plot_png(png, &(struct rk_plot){
		.title = title, .xlabel = xlabel, .n_cols = COLS, .names = col_names,
		.n_rows = s->n, .rows = s->v, .steps = true,
		.x_end = s->n ? (double)(s->last_ns - s->t0_ns) / 1e9 : 0,
		.n_panels = r->s.lat ? 3 : 2, .panels = panels }, err, elen);
}

/* --csv written by @p fn. @return 0, or -1 after saying why */
static int
write_csv(const struct rk_sf_run *r, void (*fn)(const struct rk_sf_run *, FILE *))
{
	const char *path = r->o->csv;
	bool out = strcmp(path, "-") == 0;
	FILE *f = out ? stdout : fopen(path, "w");

	if (f == NULL) {
		fprintf(stderr, "rk-gen: --csv %s: %s\n", path, strerror(errno));
		return -1;
	}
	fn(r, f);
	if (out ? fflush(f) != 0 : fclose(f) != 0) {
		fprintf(stderr, "rk-gen: --csv %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

int
rk_sf_series_write(const struct rk_sf_run *r)
{
	const struct rk_sf_opts *o = r->o;
	char err[256];

	if (r->series.overflow)
		fprintf(stderr, "rk-gen: --interval: more than %u intervals (or out of memory): the "
			"series ends there\n", SF_ROWS_MAX);
	if (o->csv != NULL && write_csv(r, csv) != 0)
		return -1;
	if (o->plot != NULL && plot(r, o->plot, err, sizeof(err)) != 0) {
		fprintf(stderr, "rk-gen: %s\n", err);
		return -1;
	}
	return 0;
}

/* Row @p i of the sum's times in client p's series, or NULL (not connected yet). */
static const double *
peer_row(const struct rk_sf_run *r, const struct rk_sf_run *p, uint64_t i)
{
	/* a client's rows are the sum's from its connection on */
	uint64_t off = r->series.n - p->series.n;

	return p->series.n <= r->series.n && i >= off ? &p->series.v[(i - off) * COLS] : NULL;
}

static void
put_row(FILE *f, const double *d, const char *client)
{
	fprintf(f, "%.9g,%s", d[0], client);
	for (int c = 1; c < COLS; c++)
		fprintf(f, ",%.9g", d[c]);
	fputc('\n', f);
}

static void
csv_many(const struct rk_sf_run *r, FILE *f)
{
	fprintf(f, "%s,client", col_names[0]);
	for (int c = 1; c < COLS; c++)
		fprintf(f, ",%s", col_names[c]);
	fputc('\n', f);
	for (uint64_t i = 0; i < r->series.n; i++) {
		for (uint32_t k = 0; k < r->npeers; k++) {
			const double *d = peer_row(r, &r->peers[k], i);
			char name[16];

			snprintf(name, sizeof(name), "%u", k + 1);
			if (d != NULL)
				put_row(f, d, name);
		}
		put_row(f, &r->series.v[i * COLS], "all");
	}
}

/* Gb/s of all and of the first clients, then errors and retransmitted of all. */
#define MANY_CLIENTS_DRAWN (RK_PLOT_COLS_MAX - 4)

static int
plot_many(const struct rk_sf_run *r, const char *png, char *err, size_t elen)
{
	uint32_t nk = r->npeers < MANY_CLIENTS_DRAWN ? r->npeers : MANY_CLIENTS_DRAWN;
	unsigned int nc = 4 + nk;
	char names[RK_PLOT_COLS_MAX][16], xlabel[96], title[96];
	const char *np[RK_PLOT_COLS_MAX];
	struct rk_plot_panel panels[2] = {
		{ .ylabel = "Gb/s", .n_cols = 1 + nk },
		{ .ylabel = "per interval, all", .n_cols = 2, .cols = { nc - 2, nc - 1 } },
	};
	const struct rk_sf_series *s = &r->series;
	double *rows = calloc(s->n ? s->n : 1, nc * sizeof(double));
	int rc;

	if (rows == NULL) {
		snprintf(err, elen, "--plot: out of memory");
		return -1;
	}
	np[0] = "time";
	np[1] = "all";
	for (uint32_t k = 0; k < nk; k++) {
		snprintf(names[k], sizeof(names[k]), "client %u", k + 1);
		np[2 + k] = names[k];
	}
	np[nc - 2] = col_names[3];
	np[nc - 1] = col_names[4];
	for (unsigned int c = 0; c < 1 + nk; c++)
		panels[0].cols[c] = 1 + c;
	for (uint64_t i = 0; i < s->n; i++) {
		double *d = &rows[i * nc];
		const double *a = &s->v[i * COLS];

		d[0] = a[0];
		d[1] = a[2];
		for (uint32_t k = 0; k < nk; k++) {
			const double *p = peer_row(r, &r->peers[k], i);

			d[2 + k] = p != NULL ? p[2] : 0;
		}
		d[nc - 2] = a[3];
		d[nc - 1] = a[4];
	}
	snprintf(xlabel, sizeof(xlabel), "time (s), intervals of %.9g s",
		 (double)r->o->interval_ns / 1e9);
	snprintf(title, sizeof(title), "rk-gen responder, %u clients", r->npeers);
	rc = rk_plot_png(png, &(struct rk_plot){
		.title = title, .xlabel = xlabel, .n_cols = nc, .names = np,
		.n_rows = s->n, .rows = rows, .steps = true,
		.x_end = s->n ? (double)(s->last_ns - s->t0_ns) / 1e9 : 0,
		.n_panels = 2, .panels = panels }, err, elen);
	free(rows);
	return rc;
}

int
rk_sf_series_write_many(const struct rk_sf_run *r)
{
	const struct rk_sf_opts *o = r->o;
	char err[256];
	bool over = r->series.overflow;

	for (uint32_t k = 0; k < r->npeers; k++)
		over |= r->peers[k].series.overflow;
	if (over)
		fprintf(stderr, "rk-gen: --interval: more than %u intervals (or out of memory): the "
			"series ends there\n", SF_ROWS_MAX);
	if (o->csv != NULL && write_csv(r, csv_many) != 0)
		return -1;
	if (o->plot != NULL && plot_many(r, o->plot, err, sizeof(err)) != 0) {
		fprintf(stderr, "rk-gen: %s\n", err);
		return -1;
	}
	return 0;
}
