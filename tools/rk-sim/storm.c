/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-sim storm: a pause storm (rk_sim_dcqcn.h, storm_ns). N flows write
 * to a receiver that stops draining at a given time and keeps asserting
 * PFC XOFF; one innocent flow shares their switch and uplink on its way
 * to a healthy receiver. The same two-tier network runs twice: without
 * a PFC watchdog (the pause spreads hop by hop until the innocent flow
 * stops too) and with one on every switch port (the stormed queue stops
 * honouring PFC and drops, and the innocent flow runs again). A table,
 * per-flow traces as CSV and JSON, and a PNG plot.
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

#define SAMPLE_NS 10000ull      /* pauses reach the next hop within microseconds */
#define PLOT_EVERY 10           /* samples per plot row: 100 us */
#define RUNS 2
#define COLS (1 + 3 * RUNS)     /* t; innocent, stormed flows, paused hops of each run */
#define CMD "storm"

static const char *const run_name[RUNS] = { "pfc", "pfc+wd" };

static void usage(FILE *f)
{
	fprintf(f, "usage: rk-sim storm [--senders N] [--at MS] [--watchdog-ms W] [--dcqcn[=PROFILE]]\n"
		   "                    [--duration MS] [--csv FILE] [--json FILE] [--png FILE]\n"
		   "  N RC QPs (64 KB WRITEs, 40 Gb/s links) write to a receiver behind a second\n"
		   "  switch; one innocent flow on the same switch and uplink writes to a healthy\n"
		   "  receiver. Every priority lossless (XOFF 50000 B, XON 40000 B). At --at the\n"
		   "  receiver stops draining and sends an XOFF every 400 us. Run without a PFC\n"
		   "  watchdog, then with one of W ms on every switch port (a queue paused and\n"
		   "  holding frames for W ms ignores PFC and drops until no XOFF named it for W).\n"
		   "  --dcqcn[=PROFILE] (or --profile): DCQCN on every QP (default: off).\n"
		   "  --at 2..997 ms, --watchdog-ms 1..498, --duration (--at + 2 x --watchdog-ms\n"
		   "  + 1)..1000 ms (13..1000 with the default --at and --watchdog-ms).\n"
		   "  Defaults: 1 sender (1..8), at 10 ms, watchdog 1 ms, 30 ms.\n");
}

struct result {
	double before_gbps, after_gbps, bad_after_gbps;
	long stopped_us, recovered_us;                  /* after the storm; -1: never */
	long hop_us[3];                                 /* port, uplink, every sender paused */
	uint64_t pfc, dropped, wd_storms, wd_drops, bad_wd_drops, timeouts;
};

/* Bytes of flow @p i in samples [a, b) of @p per (sample-major, @p n flows). */
static uint64_t span(const uint64_t *per, unsigned int n, unsigned int i, uint64_t a, uint64_t b)
{
	uint64_t s = 0;

	for (uint64_t k = a; k < b; k++)
		s += per[k * n + i];
	return s;
}

/*
 * When the innocent flow (index @p v) stopped after sample @p t0 (its
 * 100 us rate under 5 % of @p ref bytes per sample) and from when it ran
 * again (80 % or more of it over the next 100 us and the next 1 ms), in
 * us after t0; -1 when not.
 */
static void stop_and_recovery(const uint64_t *per, unsigned int n, unsigned int v, uint64_t t0,
			      uint64_t steps, double ref, struct result *r)
{
	r->stopped_us = r->recovered_us = -1;
	for (uint64_t k = t0; k + PLOT_EVERY <= steps; k++) {
		if (r->stopped_us < 0) {
			if ((double)span(per, n, v, k, k + PLOT_EVERY) < 0.05 * ref * PLOT_EVERY)
				r->stopped_us = (long)((k - t0) * SAMPLE_NS / 1000);
			continue;
		}
		/* at 80 % within 100 us of now, and over the next 1 ms */
		if (k + 100 <= steps &&
		    (double)span(per, n, v, k, k + PLOT_EVERY) >= 0.8 * ref * PLOT_EVERY &&
		    (double)span(per, n, v, k, k + 100) >= 0.8 * ref * 100) {
			r->recovered_us = (long)((k - t0) * SAMPLE_NS / 1000);
			break;
		}
	}
}

struct run_ctx {
	struct rk_sdq_cfg c;
	uint64_t steps, t0;             /* samples; the storm's */
	uint64_t after;                 /* the sample from which "after" rates count */
	double *rows;
	FILE *cf;
	json_t *jt;
};

static int run_one(struct run_ctx *x, unsigned int run, struct result *r)
{
	unsigned int n = x->c.senders + 1, v = x->c.senders;
	uint64_t *per = calloc(x->steps * n, sizeof(uint64_t));
	struct rk_sim_flows tr = { .cf = x->cf, .jt = x->jt, .run = run_name[run], .n = n,
				   .sample_ns = SAMPLE_NS };
	struct rk_sdq *s = per ? rk_sdq_create(&x->c) : NULL;

	if (!s) {
		fprintf(stderr, "rk-sim: storm: %s\n", strerror(per ? errno : ENOMEM));
		free(per);
		return 1;
	}
	for (int h = 0; h < 3; h++)
		r->hop_us[h] = -1;
	for (uint64_t k = 0; k < x->steps; k++) {
		uint64_t t = (k + 1) * SAMPLE_NS;
		struct rk_sdq_pause ps;
		unsigned int senders_paused = 0;

		if (rk_sdq_run(s, t)) {
			fprintf(stderr, "rk-sim: storm: an engine stalled at %llu ns\n",
				(unsigned long long)t);
			rk_sdq_destroy(s);
			free(per);
			return 1;
		}
		rk_sim_flows_sample(&tr, s, t);
		rk_sdq_pause_state(s, &ps);
		for (unsigned int i = 0; i < n; i++) {
			per[k * n + i] = (uint64_t)(tr.gbps[i] * SAMPLE_NS / 8 + 0.5);
			senders_paused += tr.f[i].paused;
		}
		bool hop[3] = { ps.bott_paused, ps.uplink_paused, senders_paused == n };
		unsigned int hops = 0;

		for (int h = 0; h < 3; h++) {
			hops += hop[h];
			if (k >= x->t0 && hop[h] && r->hop_us[h] < 0)
				r->hop_us[h] = (long)((t - x->t0 * SAMPLE_NS) / 1000);
		}
		double *row = &x->rows[(k / PLOT_EVERY) * COLS];

		row[0] = (double)((k / PLOT_EVERY + 1) * PLOT_EVERY * SAMPLE_NS) / 1e6;
		row[1 + run] += tr.gbps[v] / PLOT_EVERY;
		for (unsigned int i = 0; i < v; i++)
			row[1 + RUNS + run] += tr.gbps[i] / PLOT_EVERY;
		row[1 + 2 * RUNS + run] = hops;
	}
	double before = (double)span(per, n, v, x->t0 / 2, x->t0) / (double)(x->t0 - x->t0 / 2);
	double after_ns = (double)(x->steps - x->after) * SAMPLE_NS;

	r->before_gbps = before * 8 / SAMPLE_NS;
	r->after_gbps = (double)span(per, n, v, x->after, x->steps) * 8 / after_ns;
	r->bad_after_gbps = 0;
	for (unsigned int i = 0; i < v; i++)
		r->bad_after_gbps += (double)span(per, n, i, x->after, x->steps) * 8 / after_ns;
	stop_and_recovery(per, n, v, x->t0, x->steps, before, r);

	struct rk_sdq_pause ps;

	rk_sdq_pause_state(s, &ps);
	r->bad_wd_drops = ps.bott_wd_drops;
	r->timeouts = tr.f[v].timeouts;
	rk_sdq_switch_counts(s, NULL, &r->dropped, NULL);
	rk_sdq_pfc_counts(s, &r->pfc, NULL);
	rk_sdq_pfcwd_counts(s, &r->wd_storms, &r->wd_drops);
	rk_sdq_destroy(s);
	free(per);
	return 0;
}

static void print_table(const struct run_ctx *x, unsigned long at, unsigned long wd,
			const char *profile, const struct result *r)
{
	printf("storm: %u flow%s to a receiver that stops draining at %lu ms, 1 innocent flow "
	       "beside them, 40 Gb/s, %llu ms, %s; watchdog %lu ms; after = from %llu ms\n",
	       x->c.senders, x->c.senders > 1 ? "s" : "", at,
	       (unsigned long long)(x->steps * SAMPLE_NS / 1000000), profile ? profile : "no dcqcn",
	       wd, (unsigned long long)(x->after * SAMPLE_NS / 1000000));
	/* units in the header, numbers (or "never") in the cells */
	printf("%-7s %20s %10s %12s %8s %12s %15s %9s %11s %9s %9s\n", "run",
	       "innocent before Gb/s", "after Gb/s", "stormed Gb/s", "stop us", "run again us",
	       "paused at us", "PFC", "wd storms", "wd drops", "at port");
	for (unsigned int i = 0; i < RUNS; i++) {
		char rec[16], hops[32];

		snprintf(rec, sizeof(rec), r[i].recovered_us < 0 ? "never" : "%ld",
			 r[i].recovered_us);
		snprintf(hops, sizeof(hops), "%ld/%ld/%ld", r[i].hop_us[0], r[i].hop_us[1],
			 r[i].hop_us[2]);
		printf("%-7s %20.2f %10.2f %12.2f %8ld %12s %15s %9llu %11llu %9llu %9llu\n",
		       run_name[i], r[i].before_gbps, r[i].after_gbps, r[i].bad_after_gbps,
		       r[i].stopped_us, rec, hops, (unsigned long long)r[i].pfc,
		       (unsigned long long)r[i].wd_storms, (unsigned long long)r[i].wd_drops,
		       (unsigned long long)r[i].bad_wd_drops);
	}
	printf("(rates received; paused at: the receiver's port, the uplink, every sender, us after "
	       "the storm, -1 never)\n");
}

static json_t *run_json(unsigned int i, const struct result *r)
{
	return json_pack("{s:s,s:f,s:f,s:f,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}",
		"run", run_name[i], "innocent_before_gbps", r->before_gbps,
		"innocent_after_gbps", r->after_gbps, "stormed_after_gbps", r->bad_after_gbps,
		"innocent_stopped_us", (json_int_t)r->stopped_us,
		"innocent_recovered_us", (json_int_t)r->recovered_us,
		"port_paused_us", (json_int_t)r->hop_us[0],
		"uplink_paused_us", (json_int_t)r->hop_us[1],
		"senders_paused_us", (json_int_t)r->hop_us[2], "pfc_frames", (json_int_t)r->pfc,
		"dropped", (json_int_t)r->dropped, "pfcwd_storms", (json_int_t)r->wd_storms,
		"pfcwd_drops", (json_int_t)r->wd_drops,
		"pfcwd_drops_at_port", (json_int_t)r->bad_wd_drops,
		"innocent_timeouts", (json_int_t)r->timeouts);
}

int rk_sim_run_storm(int argc, char **argv);

int rk_sim_run_storm(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "senders", 1, NULL, 'n' }, { "at", 1, NULL, 'a' }, { "watchdog-ms", 1, NULL, 'w' },
		RK_SIM_CLI_DCQCN_LONGOPTS, RK_SIM_CLI_LONGOPTS,
	};
	/* the least --duration depends on --at and --watchdog-ms: checked after them */
	struct rk_sim_cli_common cc = { .ms = 30, .ms_lo = 0, .ms_hi = 1000, .usage = usage };
	unsigned long n = 1, at = 10, wd = 1;
	struct result res[RUNS];
	struct run_ctx x;
	int o, rc = 0;

	optind = 1;
	opterr = 0;
	while ((o = rk_cli_getopt(argc, argv, ":n:" RK_SIM_CLI_SHORTOPTS, lo, NULL)) != -1) {
		switch (o) {
		case 'n': rc = rk_sim_cli_num(CMD, "senders", optarg, 1, 8, "", &n); break;
		case 'a': rc = rk_sim_cli_num(CMD, "at", optarg, 2, 997, "ms", &at); break;
		case 'w': rc = rk_sim_cli_num(CMD, "watchdog-ms", optarg, 1, 498, "ms", &wd); break;
		case ':': case '?': return rk_sim_cli_refused(CMD, o, argc, argv, usage);
		default: rc = rk_sim_cli_opt(CMD, o, optarg, &cc); break;
		}
		if (rc)
			return rc < 0 ? 0 : rc;
	}
	if (rk_sim_cli_no_args(CMD, optind, argc, argv))
		return 2;
	if (at + 2 * wd + 1 > 1000) {
		fprintf(stderr, "rk-sim: storm: --at %lu and --watchdog-ms %lu need a --duration of "
			"%lu ms, over 1000: with this watchdog --at is at most %lu\n", at, wd,
			at + 2 * wd + 1, 1000 - 2 * wd - 1);
		return 2;
	}
	char with[64];

	/* 2 x --watchdog-ms and 1 ms after --at: the watchdog's trip and the "after" rates */
	snprintf(with, sizeof(with), "--at %lu and --watchdog-ms %lu", at, wd);
	if (rk_sim_cli_duration(CMD, &cc, at + 2 * wd + 1, with))
		return 2;
	memset(&x, 0, sizeof(x));
	x.c = (struct rk_sdq_cfg){
		.senders = (unsigned int)n, .link_bps = 40000000000ull, .prop_ns = 500,
		.msg_bytes = 65536, .window = 512, .kmin_bytes = 5000, .kmax_bytes = 40000,
		.pmax = 0.2, .seed = 0xdc9c, .pfc = true, .victim = true,
		.storm_ns = at * 1000000ull, .dcqcn = cc.profile != NULL,
		.timeout = 10,  /* 4.2 ms: frames a watchdog dropped are resent within the run */
	};
	if (cc.profile)
		rk_dcqcn_profile(cc.profile, &x.c.params);
	if (rk_sim_cli_outputs(CMD, cc.csv, cc.json, cc.png, &x.cf))
		return 2;
	if (x.cf)
		rk_sim_flows_header(x.cf);
	x.steps = cc.ms * 1000000ull / SAMPLE_NS;
	x.t0 = at * 1000000ull / SAMPLE_NS;
	x.after = (at + 2 * wd) * 1000000ull / SAMPLE_NS;
	x.rows = calloc(x.steps / PLOT_EVERY + 1, COLS * sizeof(double));
	x.jt = cc.json ? json_array() : NULL;
	if (!x.rows) {
		fprintf(stderr, "rk-sim: storm: out of memory\n");
		rc = 1;
	}
	for (unsigned int r = 0; !rc && r < RUNS; r++) {
		x.c.pfcwd_ns = r == 1 ? wd * 1000000ull : 0;
		rc = run_one(&x, r, &res[r]);
	}
	if (x.cf)
		fclose(x.cf);
	if (!rc)
		print_table(&x, at, wd, cc.profile, res);
	json_t *root = NULL;

	if (cc.json && !rc) {
		json_t *runs = json_array();

		for (unsigned int r = 0; r < RUNS; r++)
			json_array_append_new(runs, run_json(r, &res[r]));
		root = json_pack("{s:i,s:i,s:i,s:i,s:s?,s:o,s:o}", "senders", (int)n,
				 "storm_ms", (int)at, "watchdog_ms", (int)wd, "duration_ms",
				 (int)cc.ms, "dcqcn", cc.profile, "runs", runs, "trace", x.jt);
		x.jt = NULL;
	}
	json_decref(x.jt);
	static const char *const names[COLS] = {
		"t", "innocent, pfc", "innocent, pfc+wd", "stormed, pfc", "stormed, pfc+wd",
		"paused hops, pfc", "paused hops, pfc+wd",
	};
	struct rk_plot_panel pn[3] = {
		{ .ylabel = "innocent flow (Gb/s)", .n_cols = 2, .cols = { 1, 2 } },
		{ .ylabel = "flows to the stormed receiver (Gb/s)", .n_cols = 2, .cols = { 3, 4 } },
		{ .ylabel = "hops paused (port, uplink, senders)", .n_cols = 2, .cols = { 5, 6 } },
	};
	struct rk_plot p = { .title = "rk-sim storm", .xlabel = "time (ms)", .n_cols = COLS,
			     .names = names, .n_rows = x.steps / PLOT_EVERY, .rows = x.rows,
			     .n_panels = 3, .panels = pn };

	rc = rk_sim_cli_finish(CMD, rc, cc.json, root, cc.png, &p);
	free(x.rows);
	return rc;
}
