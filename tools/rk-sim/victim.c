/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-sim victim: congestion spreading to a victim flow behind a paused
 * uplink, and DCQCN taking it back (rk_sim_dcqcn.h, victim). The same
 * two-tier network runs twice, PFC alone and PFC with DCQCN; a table of
 * the victim's rate, the uplink's pause time and the PFC frames, traces
 * every 100 us as CSV and JSON, and a PNG plot (lib/plot, gnuplot).
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
#define COLS (1 + 2 * RUNS)     /* t, victim rate per run, queue per run */
#define CMD "victim"

static const char *const run_name[RUNS] = { "pfc", "pfc+dcqcn" };

static void usage(FILE *f)
{
	fprintf(f, "usage: rk-sim victim [--senders N] [--dcqcn=PROFILE] [--kmax BYTES] [--pmax P]\n"
		   "                     [--storm MS [--pfcwd MS]] [--duration MS] [--csv FILE]\n"
		   "                     [--json FILE] [--png FILE]\n"
		   "  N RC QPs (64 KB WRITEs, 40 Gb/s links) into one receiver behind a second\n"
		   "  switch, and a victim on the senders' switch writing to an idle receiver\n"
		   "  on the second; every priority lossless (XOFF 50000 B, XON 40000 B).\n"
		   "  Run with PFC alone, then with DCQCN (RED from 5000 B to Kmax, Pmax at Kmax).\n"
		   "  --storm MS: from then on the receiver stops draining and pauses its port.\n"
		   "  --pfcwd MS: every switch port's PFC watchdog (detection and restoration).\n"
		   "  Defaults: 8 senders, paper, Kmax 40000 B (below XOFF), Pmax 0.2, 30 ms.\n");
}

struct totals {
	double victim_gbps, incast_gbps;        /* from sample @p from on */
	uint64_t pfc, paused_ns, dropped, marked, wd_storms, wd_drops;
};

/* Sum of the incast flows' received bytes, and the victim's. */
static void rx_bytes(const struct rk_sdq *s, unsigned int n, uint64_t *incast, uint64_t *victim)
{
	struct rk_sdq_flow f;

	*incast = 0;
	for (unsigned int i = 0; i < n; i++) {
		rk_sdq_flow(s, i, &f);
		*incast += f.rx_bytes;
	}
	rk_sdq_flow(s, n, &f);
	*victim = f.rx_bytes;
}

/* One run: its samples into column @p run of @p rows (and the CSV, JSON). */
static int run_one(const struct rk_sdq_cfg *c, unsigned int run, uint64_t steps, uint64_t from,
		   double *rows, FILE *cf, json_t *jt, struct totals *tot)
{
	struct rk_sdq *s = rk_sdq_create(c);
	uint64_t pi = 0, pv = 0, half_i = 0, half_v = 0, inc = 0, vic = 0;

	if (!s) {
		fprintf(stderr, "rk-sim: victim: %s\n", strerror(errno));
		return 1;
	}
	for (uint64_t k = 1; k <= steps; k++) {
		uint64_t t = k * SAMPLE_NS, q, paused;
		double *r = &rows[(k - 1) * COLS];

		if (rk_sdq_run(s, t)) {
			fprintf(stderr, "rk-sim: victim: an engine stalled at %llu ns\n",
				(unsigned long long)t);
			rk_sdq_destroy(s);
			return 1;
		}
		rx_bytes(s, c->senders, &inc, &vic);
		q = rk_sdq_queue(s, NULL);
		rk_sdq_pfc_counts(s, NULL, &paused);
		double vg = (double)(vic - pv) * 8 / (double)SAMPLE_NS;
		double ig = (double)(inc - pi) * 8 / (double)SAMPLE_NS;

		pv = vic;
		pi = inc;
		if (k == from) {
			half_v = vic;
			half_i = inc;
		}
		r[0] = (double)t / 1e6;
		r[1 + run] = vg;
		r[1 + RUNS + run] = (double)q / 1000;
		if (cf)
			fprintf(cf, "%llu,%s,%.3f,%.3f,%llu,%llu\n", (unsigned long long)t,
				run_name[run], vg, ig, (unsigned long long)q,
				(unsigned long long)paused);
		if (jt)
			json_array_append_new(jt, json_pack("{s:I,s:s,s:f,s:f,s:I,s:I}",
				"t_ns", (json_int_t)t, "run", run_name[run], "victim_gbps", vg,
				"incast_gbps", ig, "queue_bytes", (json_int_t)q,
				"uplink_paused_ns", (json_int_t)paused));
	}
	double span = (double)(steps - from) * SAMPLE_NS;

	tot->victim_gbps = (double)(vic - half_v) * 8 / span;
	tot->incast_gbps = (double)(inc - half_i) * 8 / span;
	rk_sdq_switch_counts(s, &tot->marked, &tot->dropped, NULL);
	rk_sdq_pfc_counts(s, &tot->pfc, &tot->paused_ns);
	rk_sdq_pfcwd_counts(s, &tot->wd_storms, &tot->wd_drops);
	rk_sdq_destroy(s);
	return 0;
}

static int plot(const char *png, uint64_t steps, const double *rows)
{
	static const char *const names[COLS] = {
		"t", "victim, pfc", "victim, pfc+dcqcn", "queue, pfc", "queue, pfc+dcqcn",
	};
	struct rk_plot_panel pn[2] = {
		{ .ylabel = "victim rate (Gb/s)", .n_cols = 2, .cols = { 1, 2 } },
		{ .ylabel = "bottleneck queue (KB)", .n_cols = 2, .cols = { 3, 4 } },
	};
	struct rk_plot p = { .title = "rk-sim victim", .xlabel = "time (ms)", .n_cols = COLS,
			     .names = names, .n_rows = steps, .rows = rows, .n_panels = 2,
			     .panels = pn };
	return rk_sim_cli_png(CMD, png, &p);
}

/* Bad option values: one line, exit 2. */
static int bad(const char *what)
{
	fprintf(stderr, "rk-sim: victim: %s\n", what);
	return 2;
}

int rk_sim_run_victim(int argc, char **argv);

int rk_sim_run_victim(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "senders", 1, NULL, 'n' }, { "kmax", 1, NULL, 'k' }, { "pmax", 1, NULL, 'p' },
		{ "storm", 1, NULL, 's' }, { "pfcwd", 1, NULL, 'w' }, RK_SIM_CLI_DCQCN_LONGOPTS,
		RK_SIM_CLI_LONGOPTS,
	};
	struct rk_sim_cli_common cc = { .ms = 30, .ms_lo = 2, .ms_hi = 1000, .profile = "paper",
					.usage = usage };
	unsigned long n = 8, kmax = 40000, storm = 0, pfcwd = 0;
	double pmax = 0.2;
	struct totals tot[RUNS];
	char *end;
	FILE *cf = NULL;
	int o, rc = 0;

	optind = 1;
	opterr = 0;
	while ((o = rk_cli_getopt(argc, argv, ":n:k:p:s:w:" RK_SIM_CLI_SHORTOPTS, lo, NULL)) != -1) {
		switch (o) {
		case 'n': rc = rk_sim_cli_num(CMD, "senders", optarg, 1, RK_SDQ_MAX_SENDERS, "", &n);
			break;
		case 'k': rc = rk_sim_cli_num(CMD, "kmax", optarg, 5000, 4000000, "bytes", &kmax);
			break;
		case 's': rc = rk_sim_cli_num(CMD, "storm", optarg, 1, 999, "ms", &storm); break;
		case 'w': rc = rk_sim_cli_num(CMD, "pfcwd", optarg, 1, 999, "ms", &pfcwd); break;
		case 'p':
			pmax = strtod(optarg, &end);
			if (*end || end == optarg || !(pmax > 0 && pmax <= 1))
				return bad("--pmax: a probability above 0, at most 1");
			break;
		case ':': case '?': return rk_sim_cli_refused(CMD, o, argc, argv, usage);
		default: rc = rk_sim_cli_opt(CMD, o, optarg, &cc); break;
		}
		if (rc)
			return rc < 0 ? 0 : rc;
	}
	if (rk_sim_cli_no_args(CMD, optind, argc, argv))
		return 2;
	const char *profile = cc.profile, *csv = cc.csv, *json = cc.json, *png = cc.png;
	unsigned long ms = cc.ms;

	if (storm && storm >= ms)
		return bad("--storm must start before the end of --duration");
	struct rk_sdq_cfg c = {
		.senders = (unsigned int)n, .link_bps = 40000000000ull, .prop_ns = 500,
		.msg_bytes = 65536, .window = 512, .kmin_bytes = 5000,
		.kmax_bytes = (uint32_t)kmax, .pmax = pmax, .seed = 0xdc9c,
		.pfc = true, .victim = true, .storm_ns = storm * 1000000ull,
		.pfcwd_ns = pfcwd * 1000000ull,
		.timeout = 10,  /* 4.2 ms: frames a watchdog dropped are resent within the run */
	};

	rk_dcqcn_profile(profile, &c.params);     /* checked by rk_sim_cli_opt() */
	if (rk_sim_cli_outputs(CMD, csv, json, png, &cf))
		return 2;
	if (cf)
		fprintf(cf, "t_ns,run,victim_gbps,incast_gbps,queue_bytes,uplink_paused_ns\n");
	uint64_t steps = ms * 1000000ull / SAMPLE_NS;
	/* rates from the storm on, else over the second half */
	uint64_t from = storm ? storm * 1000000ull / SAMPLE_NS : steps / 2;
	double *rows = calloc(steps * COLS, sizeof(double));
	json_t *jt = json ? json_array() : NULL;

	if (!rows) {
		fprintf(stderr, "rk-sim: victim: out of memory\n");
		rc = 1;
	}
	for (unsigned int r = 0; !rc && r < RUNS; r++) {
		c.dcqcn = r == 1;
		rc = run_one(&c, r, steps, from, rows, cf, jt, &tot[r]);
	}
	if (cf)
		fclose(cf);
	if (!rc) {
		char when[48] = "over the second half";

		if (storm)
			snprintf(when, sizeof(when), "from the storm at %lu ms on", storm);
		printf("victim %lu:1 and 1 victim, 40 Gb/s, %lu ms, Kmax %lu B, Pmax %g (XOFF "
		       "50000 B), profile %s; rates %s\n", n, ms, kmax, pmax, profile, when);
		printf("%-10s %12s %12s %17s %11s %9s %8s%s\n", "run", "victim Gb/s",
		       "incast Gb/s", "uplink paused ms", "PFC frames", "CE marks", "dropped",
		       pfcwd ? "  watchdog storms  drops" : "");
		for (unsigned int r = 0; r < RUNS; r++) {
			printf("%-10s %12.2f %12.2f %17.2f %11llu %9llu %8llu", run_name[r],
			       tot[r].victim_gbps, tot[r].incast_gbps, tot[r].paused_ns / 1e6,
			       (unsigned long long)tot[r].pfc, (unsigned long long)tot[r].marked,
			       (unsigned long long)tot[r].dropped);
			if (pfcwd)
				printf(" %17llu %6llu", (unsigned long long)tot[r].wd_storms,
				       (unsigned long long)tot[r].wd_drops);
			putchar('\n');
		}
	}
	if (json && !rc) {
		json_t *runs = json_array();

		for (unsigned int r = 0; r < RUNS; r++)
			json_array_append_new(runs, json_pack("{s:s,s:f,s:f,s:I,s:I,s:I,s:I,s:I,s:I}",
				"run", run_name[r], "victim_gbps", tot[r].victim_gbps,
				"incast_gbps", tot[r].incast_gbps,
				"uplink_paused_ns", (json_int_t)tot[r].paused_ns,
				"pfc_frames", (json_int_t)tot[r].pfc,
				"ce_marks", (json_int_t)tot[r].marked,
				"dropped", (json_int_t)tot[r].dropped,
				"pfcwd_storms", (json_int_t)tot[r].wd_storms,
				"pfcwd_drops", (json_int_t)tot[r].wd_drops));
		json_t *root = json_pack("{s:s,s:i,s:i,s:i,s:f,s:i,s:i,s:o,s:o}", "profile",
					 profile, "senders", (int)n, "duration_ms", (int)ms,
					 "kmax_bytes", (int)kmax, "pmax", pmax, "storm_ms", (int)storm,
					 "pfcwd_ms", (int)pfcwd, "runs", runs, "trace", jt);

		jt = NULL;
		rc = rk_sim_cli_write_json(CMD, root, json);
	}
	json_decref(jt);
	if (png && !rc)
		rc = plot(png, steps, rows);
	free(rows);
	return rc;
}
