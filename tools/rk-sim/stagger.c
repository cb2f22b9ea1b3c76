/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-sim stagger: a staggered start (rk_sim_dcqcn.h, stagger_ns). Flow A
 * runs alone at line rate; flow B starts later, at line rate too, into
 * the same 40 Gb/s port, both with DCQCN. It reports the queue spike B
 * makes, the cut each flow takes, when each is within 10 % of C/2 for
 * good, and Jain's index over 1 ms windows from then on; per-flow
 * traces as CSV and JSON, and a PNG plot.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flows.h"
#include "rk_plot.h"
#include "rk_cli.h"
#include "sim_cli.h"

#define SAMPLE_NS 10000ull
#define MS (1000000ull / SAMPLE_NS)     /* samples per ms */
#define FLOWS 2
#define COLS (2 + 2 * FLOWS)            /* t, queue, rate of each, alpha of each */
#define CMD "stagger"

static void usage(FILE *f)
{
	fprintf(f, "usage: rk-sim stagger [--dcqcn=PROFILE] [--stagger MS] [--duration MS]\n"
		   "                      [--csv FILE] [--json FILE] [--png FILE]\n"
		   "  Flow A (an RC QP, 64 KB WRITEs) runs alone at 40 Gb/s into one port; flow B\n"
		   "  starts --stagger MS later at line rate. DCQCN on both (--dcqcn=PROFILE or\n"
		   "  --profile PROFILE: paper, nvidia-default), RED 5..200 KB, Pmax 1 %%, no PFC.\n"
		   "  Reports the queue peak before and after B starts, each flow's cut, when each\n"
		   "  stays within 10 %% of C/2 (1 ms windows) and Jain's index from then on.\n"
		   "  --stagger 1..995 ms, --duration (--stagger + 5)..1000 ms (15..1000 with\n"
		   "  the default --stagger).\n"
		   "  Defaults: paper, stagger 10 ms, 60 ms.\n");
}

struct result {
	double q_before, q_after;               /* sampled queue peaks, bytes */
	double first_ms_gbps[FLOWS];            /* in B's first millisecond */
	double rc_min_gbps[FLOWS];              /* lowest R_C in the 5 ms after B started */
	long within_ms[FLOWS];                  /* ms after B's start; -1: never */
	double after_gbps[FLOWS];               /* from convergence to the end */
	double jain_min, jain_mean;
	uint64_t marked, dropped, cnps[FLOWS];
};

static void print_result(const char *profile, unsigned long st, unsigned long ms,
			 const struct result *r)
{
	printf("stagger: flow B starts %lu ms after flow A, 40 Gb/s, DCQCN %s, %lu ms\n", st,
	       profile, ms);
	printf("queue peak (sampled every 10 us): %.1f KB before B, %.1f KB in the 5 ms after\n",
	       r->q_before / 1000, r->q_after / 1000);
	printf("%-4s %17s %17s %20s %12s %6s\n", "flow", "first ms of B Gb/s", "lowest R_C Gb/s",
	       "within 10% of C/2 ms", "then Gb/s", "CNPs");
	for (unsigned int i = 0; i < FLOWS; i++) {
		char w[24], then[24];

		snprintf(w, sizeof(w), r->within_ms[i] < 0 ? "never" : "%ld after B",
			 r->within_ms[i]);
		/* no rate "from then on" unless both flows settled */
		snprintf(then, sizeof(then), r->jain_min < 0 ? "-" : "%.2f", r->after_gbps[i]);
		printf("%-4c %17.2f %17.2f %20s %12s %6llu\n", 'A' + i, r->first_ms_gbps[i],
		       r->rc_min_gbps[i], w, then, (unsigned long long)r->cnps[i]);
	}
	if (r->within_ms[0] >= 0 && r->within_ms[1] >= 0)
		printf("Jain over 1 ms windows from then on: min %.4f, mean %.4f\n", r->jain_min,
		       r->jain_mean);
	else
		printf("Jain over 1 ms windows: the flows never both settle within 10 %% of C/2\n");
	printf("CE marks %llu, dropped %llu\n", (unsigned long long)r->marked,
	       (unsigned long long)r->dropped);
}

int rk_sim_run_stagger(int argc, char **argv);

int rk_sim_run_stagger(int argc, char **argv)
{
	static const struct option lo[] = { { "stagger", 1, NULL, 's' }, RK_SIM_CLI_DCQCN_LONGOPTS, RK_SIM_CLI_LONGOPTS };
	struct rk_sim_cli_common cc = { .ms = 60, .ms_lo = 0, .ms_hi = 1000, .profile = "paper",
					.usage = usage };
	unsigned long st = 10;
	struct result r;
	FILE *cf;
	int o, rc = 0;

	optind = 1;
	opterr = 0;
	while ((o = rk_cli_getopt(argc, argv, ":s:" RK_SIM_CLI_SHORTOPTS, lo, NULL)) != -1) {
		rc = o == 's' ? rk_sim_cli_num(CMD, "stagger", optarg, 1, 995, "ms", &st) :
		     o == ':' || o == '?' ? rk_sim_cli_refused(CMD, o, argc, argv, usage) :
		     rk_sim_cli_opt(CMD, o, optarg, &cc);
		if (rc)
			return rc < 0 ? 0 : rc;
	}
	if (rk_sim_cli_no_args(CMD, optind, argc, argv))
		return 2;
	char with[32];

	/* 5 ms after B's start: its first millisecond and the 5 ms of queue peak */
	snprintf(with, sizeof(with), "--stagger %lu", st);
	if (rk_sim_cli_duration(CMD, &cc, st + 5, with))
		return 2;
	struct rk_sdq_cfg c = {
		.senders = FLOWS, .link_bps = 40000000000ull, .prop_ns = 500,
		.msg_bytes = 65536, .window = 512, .kmin_bytes = 5000, .kmax_bytes = 200000,
		.pmax = 0.01, .limit_bytes = 4u << 20, .seed = 0xdc9c, .dcqcn = true,
		.stagger_ns = st * 1000000ull,
	};
	rk_dcqcn_profile(cc.profile, &c.params);
	if (rk_sim_cli_outputs(CMD, cc.csv, cc.json, cc.png, &cf))
		return 2;
	struct rk_sdq *s = rk_sdq_create(&c);
	uint64_t steps = cc.ms * MS, t0 = st * MS;
	struct rk_sim_flows tr = { .cf = cf, .jt = cc.json ? json_array() : NULL, .run = CMD,
				   .n = FLOWS, .sample_ns = SAMPLE_NS, .n_win = cc.ms };
	double *rows = calloc(steps, COLS * sizeof(double));

	tr.win = calloc(cc.ms * FLOWS, sizeof(uint64_t));
	memset(&r, 0, sizeof(r));
	if (!s || !rows || !tr.win) {
		fprintf(stderr, "rk-sim: stagger: %s\n", strerror(s ? ENOMEM : errno));
		rc = 1;
	}
	if (cf)
		rk_sim_flows_header(cf);
	for (unsigned int i = 0; i < FLOWS; i++)
		r.rc_min_gbps[i] = 1e9;
	for (uint64_t k = 0; !rc && k < steps; k++) {
		uint64_t t = (k + 1) * SAMPLE_NS;
		double *row = &rows[k * COLS];

		if (rk_sdq_run(s, t)) {
			fprintf(stderr, "rk-sim: stagger: an engine stalled at %llu ns\n",
				(unsigned long long)t);
			rc = 1;
			break;
		}
		rk_sim_flows_sample(&tr, s, t);
		row[0] = (double)t / 1e6;
		row[1] = (double)tr.queue / 1000;
		if (k >= t0 / 2 && k < t0 && tr.queue > r.q_before)
			r.q_before = (double)tr.queue;
		if (k >= t0 && k < t0 + 5 * MS && tr.queue > r.q_after)
			r.q_after = (double)tr.queue;
		for (unsigned int i = 0; i < FLOWS; i++) {
			row[2 + i] = tr.gbps[i];
			row[2 + FLOWS + i] = tr.f[i].alpha / 1024.0;
			if (k >= t0 && k < t0 + MS)
				r.first_ms_gbps[i] += tr.gbps[i] / MS;
			if (k >= t0 && k < t0 + 5 * MS && tr.f[i].rc_kbps / 1e6 < r.rc_min_gbps[i])
				r.rc_min_gbps[i] = tr.f[i].rc_kbps / 1e6;
		}
	}
	if (cf)
		fclose(cf);
	if (!rc) {
		long from = 0;

		for (unsigned int i = 0; i < FLOWS; i++) {
			long w = rk_sim_flows_within(&tr, i, st, (double)c.link_bps / 8 / 1000 / FLOWS);

			r.within_ms[i] = w < 0 ? -1 : w - (long)st;
			r.cnps[i] = tr.f[i].cnp_handled;
			from = w < 0 || from < 0 ? -1 : (w > from ? w : from);
		}
		r.jain_min = r.jain_mean = -1;  /* never both settled */
		if (from >= 0)
			r.jain_min = rk_sim_flows_jain_min(&tr, (unsigned long)from, &r.jain_mean);
		for (unsigned int i = 0; from >= 0 && i < FLOWS; i++) {
			uint64_t b = 0;

			for (unsigned long w = (unsigned long)from; w < cc.ms; w++)
				b += tr.win[w * FLOWS + i];
			r.after_gbps[i] = (double)b * 8 / ((double)(cc.ms - (unsigned long)from) * 1e6);
		}
		rk_sdq_switch_counts(s, &r.marked, &r.dropped, NULL);
		print_result(cc.profile, st, cc.ms, &r);
	}
	json_t *root = NULL;

	if (cc.json && !rc) {
		json_t *fl = json_array();

		for (unsigned int i = 0; i < FLOWS; i++)
			json_array_append_new(fl, json_pack("{s:s,s:i,s:f,s:f,s:i,s:f,s:I}",
				"flow", i ? "B" : "A", "start_ms", (int)(i * st),
				"first_ms_of_b_gbps", r.first_ms_gbps[i],
				"lowest_rc_gbps", r.rc_min_gbps[i], "within_10pct_ms", (int)r.within_ms[i],
				"then_gbps", r.after_gbps[i], "cnps", (json_int_t)r.cnps[i]));
		root = json_pack("{s:s,s:i,s:i,s:f,s:f,s:f,s:f,s:I,s:I,s:o,s:o}", "profile",
				 cc.profile, "stagger_ms", (int)st, "duration_ms", (int)cc.ms,
				 "queue_peak_before_bytes", r.q_before,
				 "queue_peak_after_bytes", r.q_after, "jain_min", r.jain_min,
				 "jain_mean", r.jain_mean, "marked", (json_int_t)r.marked,
				 "dropped", (json_int_t)r.dropped, "flows", fl, "trace", tr.jt);
		tr.jt = NULL;
	}
	json_decref(tr.jt);
	static const char *const names[COLS] = { "t", "queue", "flow A", "flow B", "alpha A",
						 "alpha B" };
	struct rk_plot_panel pn[3] = {
		{ .ylabel = "queue (KB)", .n_cols = 1, .cols = { 1 } },
		{ .ylabel = "received rate (Gb/s)", .n_cols = 2, .cols = { 2, 3 } },
		{ .ylabel = "alpha", .n_cols = 2, .cols = { 4, 5 } },
	};
	struct rk_plot p = { .title = "rk-sim stagger", .xlabel = "time (ms)", .n_cols = COLS,
			     .names = names, .n_rows = steps, .rows = rows, .n_panels = 3,
			     .panels = pn };

	rc = rk_sim_cli_finish(CMD, rc, cc.json, root, cc.png, &p);
	free(rows);
	free(tr.win);
	rk_sdq_destroy(s);
	return rc;
}
