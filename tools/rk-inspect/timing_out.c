/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-inspect's timing output: per flow duration, goodput, wire rate, ACK
 * RTT and READ latency percentiles (lib/analysis/rk_insp_timing.c), and
 * the --interval series as CSV, JSON and a gnuplot PNG.
 */
#include "output.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rk_cm.h"
#include "rk_insp_timing.h"
#include "rk_plot.h"

int
rk_insp_parse_interval(const char *s, uint64_t *ns)
{
	char *end;
	double v;

	if (s == NULL || *s == '\0')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (*end != '\0' || end == s || errno != 0 || !isfinite(v) || v <= 0)
		return -EINVAL;
	/* 1 ns up to a day: anything else is a typo, or a series of nothing. */
	if (v < 1e-9 || v > 86400.0)
		return -ERANGE;
	*ns = (uint64_t)(v * 1e9 + 0.5);
	return 0;
}

void
rk_insp_timing_cm(struct rk_insp_timing *t, const struct rk_pkt *pkt)
{
	struct rk_cm_msg msg;

	if (pkt->payload_off + pkt->payload_len > pkt->caplen ||
	    rk_cm_decode(pkt->frame + pkt->payload_off, pkt->payload_len, &msg) != 0)
		return;
	/* Out of memory only loses the pairing. */
	if (msg.hdr.attr_id == RK_CM_REQ)
		(void)rk_insp_cm_req(&t->cm, pkt->src_ip, pkt->dst_ip, msg.req.local_comm_id,
				     msg.req.local_qpn);
	else if (msg.hdr.attr_id == RK_CM_REP)
		(void)rk_insp_cm_rep(&t->cm, msg.rep.remote_comm_id, msg.rep.local_qpn,
				     (uint8_t)pkt->kind);
}

/* Gb/s of @p bytes over @p ns (> 0). */
static double
gbps(uint64_t bytes, uint64_t ns)
{
	return (double)bytes * 8.0 / (double)ns;
}

/*
 * @p bytes over @p ns (> 0) as text, in the unit that keeps three digits
 * in sight: "0.000 Gb/s" would hide a slow flow's rate ("12.480 kb/s").
 */
static const char *
rate_text(char *buf, size_t len, uint64_t bytes, uint64_t ns)
{
	double bps = (double)bytes * 8.0 * 1e9 / (double)ns;

	if (bps >= 1e9)
		snprintf(buf, len, "%.3f Gb/s", bps / 1e9);
	else if (bps >= 1e6)
		snprintf(buf, len, "%.3f Mb/s", bps / 1e6);
	else if (bps >= 1e3)
		snprintf(buf, len, "%.3f kb/s", bps / 1e3);
	else
		snprintf(buf, len, "%.0f b/s", bps);
	return buf;
}

static uint64_t
goodput_bytes(const struct rk_insp_flow *f)
{
	return f->payload_bytes > f->dup_payload_bytes ? f->payload_bytes - f->dup_payload_bytes
						       : 0;
}

static void
print_pctl(FILE *out, const char *what, const struct rk_insp_lat *h)
{
	struct rk_insp_pctl p = rk_insp_pctl_of(h);

	if (p.count == 0)
		return;
	fprintf(out, "; %s p50/p99/max %.3f/%.3f/%.3f us (%" PRIu64 ")", what,
		(double)p.p50 / 1e3, (double)p.p99 / 1e3, (double)p.max / 1e3, p.count);
}

void
rk_insp_print_flow_timing(FILE *out, const struct rk_insp_flow *f)
{
	uint64_t d = f->last_ts_ns - f->first_ts_ns;
	char g[32], w[32];

	fprintf(out, "    time %.6f s", (double)d / 1e9);
	if (d != 0)
		fprintf(out, ", goodput %s, wire %s", rate_text(g, sizeof(g), goodput_bytes(f), d),
			rate_text(w, sizeof(w), f->bytes, d));
	if (f->timing != NULL) {
		print_pctl(out, "ACK RTT", f->timing->rtt);
		print_pctl(out, "READ latency", f->timing->read);
	}
	fputc('\n', out);
}

static json_t *
pctl_json(const struct rk_insp_lat *h)
{
	struct rk_insp_pctl p = rk_insp_pctl_of(h);

	if (p.count == 0)
		return json_null();
	return json_pack("{s:I, s:I, s:I, s:I}", "count", (json_int_t)p.count,
			 "p50", (json_int_t)p.p50, "p99", (json_int_t)p.p99,
			 "max", (json_int_t)p.max);
}

json_t *
rk_insp_flow_timing_json(const struct rk_insp_flow *f)
{
	uint64_t d = f->last_ts_ns - f->first_ts_ns;
	json_t *o = json_object();

	json_object_set_new(o, "duration_ns", json_integer((json_int_t)d));
	json_object_set_new(o, "goodput_bytes", json_integer((json_int_t)goodput_bytes(f)));
	json_object_set_new(o, "goodput_gbps", d ? json_real(gbps(goodput_bytes(f), d))
						: json_null());
	json_object_set_new(o, "wire_gbps", d ? json_real(gbps(f->bytes, d)) : json_null());
	json_object_set_new(o, "ack_rtt_ns", pctl_json(f->timing ? f->timing->rtt : NULL));
	json_object_set_new(o, "read_latency_ns", pctl_json(f->timing ? f->timing->read : NULL));
	return o;
}

void
rk_insp_print_iw_timing(FILE *out, const struct rk_insp_iw_dir *x)
{
	uint64_t d = x->last_fpdu_ns - x->first_fpdu_ns;
	char g[32], w[32];

	if (x->fpdus == 0)
		return;
	fprintf(out, "      time %.6f s", (double)d / 1e9);
	if (d != 0)
		fprintf(out, ", goodput %s, wire %s", rate_text(g, sizeof(g), x->data_bytes, d),
			rate_text(w, sizeof(w), x->bytes, d));
	print_pctl(out, "READ latency", x->read_lat);
	fputc('\n', out);
}

json_t *
rk_insp_iw_timing_json(const struct rk_insp_iw_dir *x)
{
	uint64_t d = x->fpdus ? x->last_fpdu_ns - x->first_fpdu_ns : 0;

	return json_pack("{s:I, s:I, s:o, s:o, s:o}", "duration_ns", (json_int_t)d,
			 "goodput_bytes", (json_int_t)x->data_bytes,
			 "goodput_gbps", d ? json_real(gbps(x->data_bytes, d)) : json_null(),
			 "wire_gbps", d ? json_real(gbps(x->bytes, d)) : json_null(),
			 "read_latency_ns", pctl_json(x->read_lat));
}

json_t *
rk_insp_timing_json(const struct rk_insp_timing *t)
{
	return json_pack("{s:I, s:I, s:I}", "flows_timed", (json_int_t)t->nflows,
			 "untimed_flows", (json_int_t)t->untimed_flows,
			 "unpaired_responses", (json_int_t)t->unpaired);
}

/* Start of interval @p i in seconds. */
static double
row_start(const struct rk_insp_series *s, uint64_t i)
{
	return (double)(i * s->interval_ns) / 1e9;
}

static void
csv_rows(FILE *out, const struct rk_insp_series *s)
{
	for (uint64_t i = 0; i < s->n; i++) {
		const struct rk_insp_series_row *r = &s->row[i];

		fprintf(out, "%.9g,%" PRIu64 ",%.6f,%.6f,%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 "\n", row_start(s, i), r->frames,
			rk_insp_series_gbps(s, r->bytes), rk_insp_series_gbps(s, r->payload_bytes),
			r->rtx_frames, r->ce, r->cnps, r->pause_frames);
	}
}

#define CSV_HEADER "start_s,frames,wire_gbps,goodput_gbps,rtx_frames,ce,cnps,pause_frames\n"

void
rk_insp_series_csv(FILE *out, const struct rk_insp_series *s)
{
	fputs(CSV_HEADER, out);
	csv_rows(out, s);
}

json_t *
rk_insp_series_json(const struct rk_insp_series *s)
{
	json_t *a = json_array();

	for (uint64_t i = 0; i < s->n; i++) {
		const struct rk_insp_series_row *r = &s->row[i];

		json_array_append_new(a, json_pack(
			"{s:f, s:I, s:I, s:f, s:f, s:I, s:I, s:I, s:I}",
			"start_s", row_start(s, i), "frames", (json_int_t)r->frames,
			"bytes", (json_int_t)r->bytes,
			"wire_gbps", rk_insp_series_gbps(s, r->bytes),
			"goodput_gbps", rk_insp_series_gbps(s, r->payload_bytes),
			"rtx_frames", (json_int_t)r->rtx_frames, "ce", (json_int_t)r->ce,
			"cnps", (json_int_t)r->cnps, "pause_frames", (json_int_t)r->pause_frames));
	}
	return a;
}

int
rk_insp_series_write(const struct rk_insp_series *s, FILE *out, const char *csv,
		     const char *plot, const char *title, char *err, size_t elen)
{
	FILE *f;

	if (s->overflow) {
		snprintf(err, elen, "--interval: more than %u intervals (or out of memory): "
			 "take a longer interval", RK_INSP_SERIES_MAX);
		return -1;
	}
	if (csv != NULL && strcmp(csv, "-") == 0) {
		if (out != NULL)
			rk_insp_series_csv(out, s);
	} else if (csv != NULL) {
		f = fopen(csv, "w");
		if (f == NULL) {
			snprintf(err, elen, "--csv %s: %s", csv, strerror(errno));
			return -1;
		}
		rk_insp_series_csv(f, s);
		if (fclose(f) != 0) {
			snprintf(err, elen, "--csv %s: %s", csv, strerror(errno));
			return -1;
		}
	}
	if (plot != NULL)
		return rk_insp_series_plot(plot, s, title, err, elen);
	return 0;
}

int
rk_insp_gnuplot_check(char *err, size_t elen)
{
	return rk_plot_check(err, elen);
}

int
rk_insp_series_plot(const char *png, const struct rk_insp_series *s, const char *title,
		    char *err, size_t elen)
{
	static const char *const names[] = {
		"time", "wire", "goodput", "retransmitted", "CE", "CNP", "PAUSE/PFC",
	};
	const struct rk_plot_panel panels[] = {
		{ .ylabel = "Gb/s", .n_cols = 2, .cols = { 1, 2 } },
		{ .ylabel = "frames per interval", .n_cols = 4, .cols = { 3, 4, 5, 6 } },
	};
	enum { COLS = sizeof(names) / sizeof(names[0]) };
	char xlabel[96];
	double *rows = calloc(s->n ? s->n : 1, COLS * sizeof(double));
	int rc;

	if (rows == NULL) {
		snprintf(err, elen, "--plot: out of memory");
		return -1;
	}
	for (uint64_t i = 0; i < s->n; i++) {
		const struct rk_insp_series_row *r = &s->row[i];
		double *v = &rows[i * COLS];

		v[0] = row_start(s, i);
		v[1] = rk_insp_series_gbps(s, r->bytes);
		v[2] = rk_insp_series_gbps(s, r->payload_bytes);
		v[3] = (double)r->rtx_frames;
		v[4] = (double)r->ce;
		v[5] = (double)r->cnps;
		v[6] = (double)r->pause_frames;
	}
	snprintf(xlabel, sizeof(xlabel), "time (s), intervals of %.9g s",
		 (double)s->interval_ns / 1e9);
	rc = rk_plot_png(png, &(struct rk_plot){
		.title = title, .xlabel = xlabel, .n_cols = COLS, .names = names,
		.n_rows = s->n, .rows = rows, .steps = true, .x_end = row_start(s, s->n),
		.n_panels = 2, .panels = panels }, err, elen);
	free(rows);
	return rc;
}
