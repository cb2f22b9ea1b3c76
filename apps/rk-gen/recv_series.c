/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-gen's receive series: rate, loss, reordering and latency per
 * interval of RX time (--interval), as CSV, in the JSON report, and as a
 * PNG (lib/plot). The intervals run from the first frame's RX time; the
 * loss of an interval is the growth of the streams' loss over it, so a
 * gap filled late by a reordered frame shows as a negative loss there.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "rk_plot.h"

/* Rows kept: a day of 1 s intervals and more; past it the series ends. */
#define SERIES_ROWS_MAX (1u << 20)

struct rk_gen_series *
rk_gen_series_new(uint64_t interval_ns)
{
	struct rk_gen_series *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	s->interval_ns = interval_ns;
	s->lat = &s->lat_buf[0];
	s->row_lat = &s->lat_buf[1];
	return s;
}

void
rk_gen_series_free(struct rk_gen_series *s)
{
	if (s != NULL)
		free(s->row);
	free(s);
}

/* Close the current interval, @p len_ns long: a row with the totals' growth since the last. */
static void
close_row(struct rk_gen_series *s, const struct rk_gen_recv *r, uint64_t len_ns)
{
	struct rk_gen_recv_totals t;
	struct rk_gen_series_row *row;
	struct rk_hist *h;

	if (s->n == s->cap) {
		uint64_t cap = s->cap ? s->cap * 2 : 64;
		void *p = s->n < SERIES_ROWS_MAX ? realloc(s->row, cap * sizeof(*s->row)) : NULL;

		if (p == NULL) {
			s->overflow = true;
			return;
		}
		s->row = p;
		s->cap = cap;
	}
	rk_gen_recv_totals(r, &t);
	row = &s->row[s->n++];
	row->frames = s->frames;
	row->bytes = s->bytes;
	row->lost = (int64_t)(t.lost - s->last.lost);
	row->reordered = t.reordered - s->last.reordered;
	row->duplicates = t.duplicates - s->last.duplicates;
	row->lat_count = s->lat->count;
	row->lat_p50_ns = rk_hist_quantile(s->lat, 50000);
	row->lat_p99_ns = rk_hist_quantile(s->lat, 99000);
	row->lat_max_ns = s->lat->max_ns;
	row->len_ns = len_ns;
	s->row_last = s->last;
	s->last = t;
	s->frames = s->bytes = 0;
	/* the row's latencies kept (swapped, not copied: intervals may be 1 us) */
	h = s->row_lat;
	s->row_lat = s->lat;
	s->lat = h;
	rk_hist_init(s->lat);
}

/*
 * The run's final, partial interval shorter than half the period joins the
 * row before it (a rate over a sliver spikes or dips): that row is opened
 * again, its length, counts and latencies growing by the sliver's.
 */
static void
fold_row(struct rk_gen_series *s, const struct rk_gen_recv *r, uint64_t len_ns)
{
	struct rk_gen_series_row *row = &s->row[--s->n];

	s->frames += row->frames;
	s->bytes += row->bytes;
	rk_hist_merge(s->lat, s->row_lat);
	s->last = s->row_last;
	close_row(s, r, s->interval_ns + len_ns);
}

void
rk_gen_series_advance(struct rk_gen_series *s, const struct rk_gen_recv *r, uint64_t now_ns)
{
	if (!s->started)
		return;
	/* A clock that went back (another capture's timestamps) stays in this row. */
	while (!s->overflow && now_ns >= s->t0_ns + (s->n + 1) * s->interval_ns)
		close_row(s, r, s->interval_ns);
}

void
rk_gen_series_before(struct rk_gen_series *s, const struct rk_gen_recv *r, uint64_t rx_ns)
{
	if (!s->started) {
		s->started = true;
		s->t0_ns = rx_ns;
	}
	if (rx_ns > s->last_rx_ns)
		s->last_rx_ns = rx_ns;
	rk_gen_series_advance(s, r, rx_ns);
}

void
rk_gen_series_frame(struct rk_gen_series *s, uint32_t len, const uint64_t *lat_ns)
{
	if (s->overflow)
		return;
	s->frames++;
	s->bytes += len;
	if (lat_ns != NULL)
		rk_hist_add(s->lat, *lat_ns);
}

void
rk_gen_series_finish(struct rk_gen_series *s, const struct rk_gen_recv *r)
{
	/*
	 * The last, partial interval ends with the last frame: a row of that
	 * length, or folded into the row before when shorter than half the
	 * period. A run's only row spans the whole period (its rate reads low).
	 */
	if (s->started && !s->overflow && (s->frames != 0 || s->n == 0)) {
		uint64_t start = s->t0_ns + s->n * s->interval_ns;
		uint64_t len = s->last_rx_ns > start ? s->last_rx_ns - start : 0;

		if (s->n == 0)
			close_row(s, r, s->interval_ns);
		else if (len < s->interval_ns / 2)
			fold_row(s, r, len);
		else
			close_row(s, r, len);
	}
	/* A live run's wait after the last frame (--idle) is no part of it:
	 * the series ends with the last interval that had a frame. */
	while (s->n > 1 && s->row[s->n - 1].frames == 0)
		s->n--;
}

static double
row_gbps(const struct rk_gen_series *s, const struct rk_gen_series_row *row)
{
	(void)s;
	return row->len_ns ? (double)row->bytes * 8.0 / (double)row->len_ns : 0;
}

#define CSV_HEADER "start_s,frames,gbps,lost,reordered,duplicates,lat_count," \
		   "lat_p50_ns,lat_p99_ns,lat_max_ns,interval_s\n"

void
rk_gen_series_csv(const struct rk_gen_series *s, FILE *f)
{
	fputs(CSV_HEADER, f);
	for (uint64_t i = 0; i < s->n; i++) {
		const struct rk_gen_series_row *row = &s->row[i];

		fprintf(f, "%.9g,%" PRIu64 ",%.6f,%" PRId64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.9g\n",
			(double)(i * s->interval_ns) / 1e9, row->frames, row_gbps(s, row),
			row->lost, row->reordered, row->duplicates, row->lat_count,
			row->lat_p50_ns, row->lat_p99_ns, row->lat_max_ns, (double)row->len_ns / 1e9);
	}
}

json_t *
rk_gen_series_json(const struct rk_gen_series *s)
{
	json_t *a = json_array();

	for (uint64_t i = 0; i < s->n; i++) {
		const struct rk_gen_series_row *row = &s->row[i];

		json_array_append_new(a, json_pack(
			"{s:f, s:I, s:I, s:f, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f}",
			"start_s", (double)(i * s->interval_ns) / 1e9,
			"frames", (json_int_t)row->frames, "bytes", (json_int_t)row->bytes,
			"gbps", row_gbps(s, row), "lost", (json_int_t)row->lost,
			"reordered", (json_int_t)row->reordered,
			"duplicates", (json_int_t)row->duplicates,
			"lat_count", (json_int_t)row->lat_count,
			"lat_p50_ns", (json_int_t)row->lat_p50_ns,
			"lat_p99_ns", (json_int_t)row->lat_p99_ns,
			"lat_max_ns", (json_int_t)row->lat_max_ns,
			"interval_s", (double)row->len_ns / 1e9));
	}
	return a;
}

static int
plot(const struct rk_gen_series *s, const char *png, const char *title, char *err,
     size_t elen)
{
	static const char *const names[] = {
		"time", "received", "lost", "reordered", "duplicates", "p50", "p99", "max",
	};
	static const struct rk_plot_panel panels[] = {
		{ .ylabel = "Gb/s", .n_cols = 1, .cols = { 1 } },
		{ .ylabel = "frames per interval", .n_cols = 3, .cols = { 2, 3, 4 } },
		{ .ylabel = "one-way latency (us)", .n_cols = 3, .cols = { 5, 6, 7 } },
	};
	enum { COLS = sizeof(names) / sizeof(names[0]) };
	double *v = calloc(s->n ? s->n : 1, COLS * sizeof(double));
	char xlabel[96];
	int rc;

	if (v == NULL) {
		snprintf(err, elen, "--plot: out of memory");
		return -1;
	}
	for (uint64_t i = 0; i < s->n; i++) {
		const struct rk_gen_series_row *row = &s->row[i];
		double *d = &v[i * COLS];

		d[0] = (double)(i * s->interval_ns) / 1e9;
		d[1] = row_gbps(s, row);
		d[2] = (double)row->lost;
		d[3] = (double)row->reordered;
		d[4] = (double)row->duplicates;
		d[5] = (double)row->lat_p50_ns / 1e3;
		d[6] = (double)row->lat_p99_ns / 1e3;
		d[7] = (double)row->lat_max_ns / 1e3;
	}
	snprintf(xlabel, sizeof(xlabel), "RX time (s), intervals of %.9g s",
		 (double)s->interval_ns / 1e9);
	rc = rk_plot_png(png, &(struct rk_plot){
		.title = title, .xlabel = xlabel, .n_cols = COLS, .names = names,
		.n_rows = s->n, .rows = v, .steps = true,
		.x_end = s->n ? (double)((s->n - 1) * s->interval_ns + s->row[s->n - 1].len_ns) / 1e9
			      : 0, .n_panels = 3,
		.panels = panels }, err, elen);
	free(v);
	return rc;
}

int
rk_gen_series_write(const struct rk_gen_series *s, const struct rk_gen_recv_opts *o,
		    const char *title)
{
	char err[256];
	FILE *f;

	if (s->overflow) {
		fprintf(stderr, "rk-gen: --interval: more than %u intervals (or out of memory): "
			"the series ends there; take a longer interval\n", SERIES_ROWS_MAX);
	}
	if (o->csv != NULL && strcmp(o->csv, "-") == 0) {
		rk_gen_series_csv(s, stdout);
	} else if (o->csv != NULL) {
		f = fopen(o->csv, "w");
		if (f == NULL) {
			fprintf(stderr, "rk-gen: --csv %s: %s\n", o->csv, strerror(errno));
			return -1;
		}
		rk_gen_series_csv(s, f);
		if (fclose(f) != 0) {
			fprintf(stderr, "rk-gen: --csv %s: %s\n", o->csv, strerror(errno));
			return -1;
		}
	}
	if (o->plot != NULL && plot(s, o->plot, title, err, sizeof(err)) != 0) {
		fprintf(stderr, "rk-gen: %s\n", err);
		return -1;
	}
	return 0;
}
