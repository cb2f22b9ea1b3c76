/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-sim unfair: PFC shares a congested port by ingress port, not by flow
 * (rk_sim_dcqcn.h, lone). N - 1 RC QPs behind one uplink and one alone on
 * its own port of the receiver's switch; the same network runs with PFC
 * alone and with DCQCN. A table of each flow's rate and Jain's fairness
 * index, traces every 100 us as CSV and JSON, and a PNG plot.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_plot.h"
#include "rk_sim_dcqcn.h"
#include "rk_cli.h"
#include "sim_cli.h"

#define SAMPLE_NS 100000ull
#define RUNS 2                  /* PFC alone, PFC and DCQCN */
#define MAX_SENDERS 7           /* 1 + 2 x 7 plot columns */
#define CMD "unfair"

static const char *const run_name[RUNS] = { "pfc", "pfc+dcqcn" };

static void usage(FILE *f)
{
	fprintf(f, "usage: rk-sim unfair [--senders N] [--dcqcn=PROFILE] [--duration MS]\n"
		   "                     [--csv FILE] [--json FILE] [--png FILE]\n"
		   "  N RC QPs (64 KB WRITEs, 40 Gb/s links) into one receiver: N - 1 behind\n"
		   "  one uplink into the receiver's switch, the last alone on its own port\n"
		   "  of it; every priority lossless (XOFF 50000 B, XON 40000 B). Run with\n"
		   "  PFC alone, then with DCQCN (RED 5000..40000 B, Pmax 0.2).\n"
		   "  Defaults: 4 senders (2..7), paper, 30 ms.\n");
}

struct totals {
	double gbps[MAX_SENDERS];       /* over the second half */
	double jain;
	uint64_t pfc, paused_ns, marked, dropped;
};

/* Jain's fairness index of @p n rates: (sum x)^2 / (n sum x^2). */
static double jain(const double *x, unsigned int n)
{
	double s = 0, s2 = 0;

	for (unsigned int i = 0; i < n; i++) {
		s += x[i];
		s2 += x[i] * x[i];
	}
	return s2 > 0 ? s * s / (n * s2) : 0;
}

static int run_one(const struct rk_sdq_cfg *c, unsigned int run, uint64_t steps, double *rows,
		   unsigned int cols, FILE *cf, json_t *jt, struct totals *tot)
{
	struct rk_sdq *s = rk_sdq_create(c);
	unsigned int n = c->senders;
	uint64_t prev[MAX_SENDERS] = { 0 }, half[MAX_SENDERS] = { 0 };
	struct rk_sdq_flow f;

	if (!s) {
		fprintf(stderr, "rk-sim: unfair: %s\n", strerror(errno));
		return 1;
	}
	for (uint64_t k = 1; k <= steps; k++) {
		uint64_t t = k * SAMPLE_NS;
		double *r = &rows[(k - 1) * cols];
		json_t *rates = jt ? json_array() : NULL;

		if (rk_sdq_run(s, t)) {
			fprintf(stderr, "rk-sim: unfair: an engine stalled at %llu ns\n",
				(unsigned long long)t);
			json_decref(rates);
			rk_sdq_destroy(s);
			return 1;
		}
		r[0] = (double)t / 1e6;
		if (cf)
			fprintf(cf, "%llu,%s", (unsigned long long)t, run_name[run]);
		for (unsigned int i = 0; i < n; i++) {
			rk_sdq_flow(s, i, &f);
			double g = (double)(f.rx_bytes - prev[i]) * 8 / (double)SAMPLE_NS;

			prev[i] = f.rx_bytes;
			if (k == steps / 2)
				half[i] = f.rx_bytes;
			r[1 + run * n + i] = g;
			if (cf)
				fprintf(cf, ",%.3f", g);
			if (rates)
				json_array_append_new(rates, json_real(g));
		}
		if (cf)
			fputc('\n', cf);
		if (jt)
			json_array_append_new(jt, json_pack("{s:I,s:s,s:o}", "t_ns", (json_int_t)t,
							    "run", run_name[run], "gbps", rates));
	}
	double span = (double)(steps - steps / 2) * SAMPLE_NS;

	for (unsigned int i = 0; i < n; i++)
		tot->gbps[i] = (double)(prev[i] - half[i]) * 8 / span;
	tot->jain = jain(tot->gbps, n);
	rk_sdq_switch_counts(s, &tot->marked, &tot->dropped, NULL);
	rk_sdq_pfc_counts(s, &tot->pfc, &tot->paused_ns);
	rk_sdq_destroy(s);
	return 0;
}

static int plot(const char *png, unsigned int n, uint64_t steps, const double *rows,
		unsigned int cols)
{
	char names_buf[1 + 2 * MAX_SENDERS][32];
	const char *names[1 + 2 * MAX_SENDERS];
	struct rk_plot_panel pn[RUNS] = {
		{ .ylabel = "pfc: Gb/s per flow", .n_cols = n },
		{ .ylabel = "pfc+dcqcn: Gb/s per flow", .n_cols = n },
	};

	names[0] = "t";
	for (unsigned int r = 0; r < RUNS; r++)
		for (unsigned int i = 0; i < n; i++) {
			unsigned int c = 1 + r * n + i;

			snprintf(names_buf[c], sizeof(names_buf[c]), i + 1 == n ? "alone" :
				 "uplink %u", i);
			names[c] = names_buf[c];
			pn[r].cols[i] = c;
		}
	struct rk_plot p = { .title = "rk-sim unfair", .xlabel = "time (ms)", .n_cols = cols,
			     .names = names, .n_rows = steps, .rows = rows, .n_panels = RUNS,
			     .panels = pn };

	return rk_sim_cli_png(CMD, png, &p);
}

int rk_sim_run_unfair(int argc, char **argv);

int rk_sim_run_unfair(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "senders", 1, NULL, 'n' }, RK_SIM_CLI_DCQCN_LONGOPTS, RK_SIM_CLI_LONGOPTS,
	};
	struct rk_sim_cli_common cc = { .ms = 30, .ms_lo = 2, .ms_hi = 1000, .profile = "paper",
					.usage = usage };
	unsigned long n = 4;
	struct totals tot[RUNS];
	FILE *cf = NULL;
	int o, rc = 0;

	optind = 1;
	opterr = 0;
	while ((o = rk_cli_getopt(argc, argv, ":n:" RK_SIM_CLI_SHORTOPTS, lo, NULL)) != -1) {
		rc = o == 'n' ? rk_sim_cli_num(CMD, "senders", optarg, 2, MAX_SENDERS, "", &n) :
		     o == ':' || o == '?' ? rk_sim_cli_refused(CMD, o, argc, argv, usage) :
		     rk_sim_cli_opt(CMD, o, optarg, &cc);
		if (rc)
			return rc < 0 ? 0 : rc;
	}
	if (rk_sim_cli_no_args(CMD, optind, argc, argv))
		return 2;
	const char *profile = cc.profile, *csv = cc.csv, *json = cc.json, *png = cc.png;
	unsigned long ms = cc.ms;
	struct rk_sdq_cfg c = {
		.senders = (unsigned int)n, .link_bps = 40000000000ull, .prop_ns = 500,
		.msg_bytes = 65536, .window = 512, .kmin_bytes = 5000, .kmax_bytes = 40000,
		.pmax = 0.2, .seed = 0xdc9c, .pfc = true, .lone = true,
	};

	rk_dcqcn_profile(profile, &c.params);     /* checked by rk_sim_cli_opt() */
	if (rk_sim_cli_outputs(CMD, csv, json, png, &cf))
		return 2;
	if (cf) {
		fprintf(cf, "t_ns,run");
		for (unsigned int i = 0; i < n; i++)
			fprintf(cf, ",flow%u_gbps", i);
		fputc('\n', cf);
	}
	uint64_t steps = ms * 1000000ull / SAMPLE_NS;
	unsigned int cols = 1 + RUNS * (unsigned int)n;
	double *rows = calloc(steps * cols, sizeof(double));
	json_t *jt = json ? json_array() : NULL;

	if (!rows) {
		fprintf(stderr, "rk-sim: unfair: out of memory\n");
		rc = 1;
	}
	for (unsigned int r = 0; !rc && r < RUNS; r++) {
		c.dcqcn = r == 1;
		rc = run_one(&c, r, steps, rows, cols, cf, jt, &tot[r]);
	}
	if (cf)
		fclose(cf);
	if (!rc) {
		printf("unfair %lu:1, %lu behind one uplink and 1 alone, 40 Gb/s, %lu ms, profile %s; "
		       "rates over the second half\n", n, n - 1, ms, profile);
		printf("%-10s", "run");
		for (unsigned int i = 0; i + 1 < n; i++)
			printf(" %9s%u", "uplink ", i);
		printf(" %10s %6s %11s %9s %8s\n", "alone", "Jain", "PFC frames", "CE marks",
		       "dropped");
		for (unsigned int r = 0; r < RUNS; r++) {
			printf("%-10s", run_name[r]);
			for (unsigned int i = 0; i < n; i++)
				printf(" %10.2f", tot[r].gbps[i]);
			printf(" %6.3f %11llu %9llu %8llu\n", tot[r].jain,
			       (unsigned long long)tot[r].pfc, (unsigned long long)tot[r].marked,
			       (unsigned long long)tot[r].dropped);
		}
	}
	if (json && !rc) {
		json_t *runs = json_array();

		for (unsigned int r = 0; r < RUNS; r++) {
			json_t *g = json_array();

			for (unsigned int i = 0; i < n; i++)
				json_array_append_new(g, json_real(tot[r].gbps[i]));
			json_array_append_new(runs, json_pack("{s:s,s:o,s:f,s:I,s:I,s:I}",
				"run", run_name[r], "gbps", g, "jain", tot[r].jain,
				"pfc_frames", (json_int_t)tot[r].pfc,
				"ce_marks", (json_int_t)tot[r].marked,
				"dropped", (json_int_t)tot[r].dropped));
		}
		json_t *root = json_pack("{s:s,s:i,s:i,s:o,s:o}", "profile", profile,
					 "senders", (int)n, "duration_ms", (int)ms, "runs", runs,
					 "trace", jt);

		jt = NULL;
		rc = rk_sim_cli_write_json(CMD, root, json);
	}
	json_decref(jt);
	if (png && !rc)
		rc = plot(png, (unsigned int)n, steps, rows, cols);
	free(rows);
	return rc;
}
