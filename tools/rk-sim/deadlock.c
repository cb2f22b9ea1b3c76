/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-sim deadlock: the cyclic buffer dependency of a PFC ring
 * (rk_sim_ring.h). The ring runs twice, with a flow on every switch (the
 * pauses form a cycle) and without the flows of the last two switches (the
 * acyclic control); the sources stop after --send MS. A table says which
 * deadlocked (frames held, no delivery since) and which drained; traces
 * every 100 us as CSV and JSON, and a PNG plot (lib/plot, gnuplot).
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_plot.h"
#include "rk_sim_ring.h"
#include "rk_cli.h"
#include "sim_cli.h"

#define SAMPLE_NS 100000ull
#define RUNS 2                  /* cyclic, acyclic */
#define COLS (1 + 3 * RUNS)     /* t; delivered, held, paused links per run */
#define CMD "deadlock"

static const char *const run_name[RUNS] = { "cyclic", "acyclic" };

static void usage(FILE *f)
{
	fprintf(f, "usage: rk-sim deadlock [--switches N] [--send MS] [--pfcwd MS] [--duration MS]\n"
		   "                       [--csv FILE] [--json FILE] [--png FILE]\n"
		   "  N switches in a ring of 100 Gb/s links (1 us each), priority 3 lossless\n"
		   "  (XOFF 20000 B, XON 2000 B per ingress port); on each, a host sends 1000-byte\n"
		   "  frames at line rate to the host two switches on, so each ring link\n"
		   "  carries two flows. Run with a flow on every switch (the pauses form a\n"
		   "  cycle), then without the last two switches' flows (no cycle).\n"
		   "  --send MS: the sources stop then. --pfcwd MS: every port's PFC watchdog.\n"
		   "  Defaults: 4 switches, send 1 ms, 10 ms.\n");
}

struct result {
	struct rk_sring_counts end;
	uint64_t last_delivery_ns;      /* the last sample that delivered */
	uint64_t drained_ns;            /* 0: never */
};

/* Frames neither delivered nor dropped. */
static uint64_t held(const struct rk_sring_counts *k)
{
	uint64_t gone = k->delivered + k->drops + k->pfcwd_drops;

	return k->sent > gone ? k->sent - gone : 0;
}

/* One run: its samples into columns of @p rows (and the CSV, JSON). */
static int run_one(struct rk_sring_cfg *c, unsigned int run, uint64_t steps, double *rows,
		   FILE *cf, json_t *jt, struct result *res)
{
	struct rk_sring *r = rk_sring_create(c);
	struct rk_sring_counts k, prev;

	if (r == NULL) {
		fprintf(stderr, "rk-sim: deadlock: %s\n", strerror(errno));
		return 1;
	}
	memset(res, 0, sizeof(*res));
	memset(&prev, 0, sizeof(prev));
	for (uint64_t s = 1; s <= steps; s++) {
		uint64_t t = s * SAMPLE_NS;
		double *row = &rows[(s - 1) * COLS];

		rk_sring_run(r, t);
		rk_sring_counts(r, &k);
		double links = k.ring_paused;
		double gbps = (double)(k.delivered - prev.delivered) * c->frame_bytes * 8 /
			      (double)SAMPLE_NS;

		if (k.delivered != prev.delivered)
			res->last_delivery_ns = t;
		if (res->drained_ns == 0 && t >= c->stop_ns && held(&k) == 0)
			res->drained_ns = t;
		row[0] = (double)t / 1e6;
		row[1 + run] = gbps;
		row[1 + RUNS + run] = (double)k.buffered_bytes / 1000;
		row[1 + 2 * RUNS + run] = links;
		if (cf)
			fprintf(cf, "%llu,%s,%.3f,%llu,%llu,%u\n", (unsigned long long)t,
				run_name[run], gbps, (unsigned long long)k.buffered_bytes,
				(unsigned long long)held(&k), k.ring_paused);
		if (jt)
			json_array_append_new(jt, json_pack("{s:I,s:s,s:f,s:I,s:I,s:i}",
				"t_ns", (json_int_t)t, "run", run_name[run], "delivered_gbps", gbps,
				"buffered_bytes", (json_int_t)k.buffered_bytes,
				"held_frames", (json_int_t)held(&k), "ring_links_paused",
				(int)k.ring_paused));
		prev = k;
	}
	res->end = k;
	rk_sring_destroy(r);
	return 0;
}

static int plot(const char *png, uint64_t steps, const double *rows)
{
	static const char *const names[COLS] = {
		"t", "cyclic", "acyclic", "buffered, cyclic", "buffered, acyclic",
		"paused, cyclic", "paused, acyclic",
	};
	struct rk_plot_panel pn[3] = {
		{ .ylabel = "delivered (Gb/s)", .n_cols = 2, .cols = { 1, 2 } },
		{ .ylabel = "buffered (KB)", .n_cols = 2, .cols = { 3, 4 } },
		{ .ylabel = "ring links paused now", .n_cols = 2, .cols = { 5, 6 } },
	};
	struct rk_plot p = { .title = "rk-sim deadlock", .xlabel = "time (ms)", .n_cols = COLS,
			     .names = names, .n_rows = steps, .rows = rows, .n_panels = 3,
			     .panels = pn };
	return rk_sim_cli_png(CMD, png, &p);
}

/* The run's verdict, in words. */
static void verdict(const struct result *r, char *buf, size_t len)
{
	if (r->drained_ns && r->end.pfcwd_drops)
		snprintf(buf, len, "drained at %.1f ms: the watchdog dropped %llu frames",
			 (double)r->drained_ns / 1e6, (unsigned long long)r->end.pfcwd_drops);
	else if (r->drained_ns)
		snprintf(buf, len, "drained at %.1f ms", (double)r->drained_ns / 1e6);
	else
		snprintf(buf, len, "deadlocked: nothing delivered after %.1f ms",
			 (double)r->last_delivery_ns / 1e6);
}

int rk_sim_run_deadlock(int argc, char **argv);

int rk_sim_run_deadlock(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "switches", 1, NULL, 'n' }, { "send", 1, NULL, 's' }, { "pfcwd", 1, NULL, 'w' },
		RK_SIM_CLI_LONGOPTS,
	};
	struct rk_sim_cli_common cc = { .ms = 10, .ms_lo = 2, .ms_hi = 200, .usage = usage };
	unsigned long n = 4, send = 1, pfcwd = 0;
	struct result res[RUNS];
	FILE *cf = NULL;
	int o, rc = 0;

	optind = 1;
	opterr = 0;
	while ((o = rk_cli_getopt(argc, argv, ":n:s:w:" RK_SIM_CLI_SHORTOPTS, lo, NULL)) != -1) {
		switch (o) {
		case 'n': rc = rk_sim_cli_num(CMD, "switches", optarg, RK_SRING_MIN, RK_SRING_MAX,
					      "", &n); break;
		case 's': rc = rk_sim_cli_num(CMD, "send", optarg, 1, 100, "ms", &send); break;
		case 'w': rc = rk_sim_cli_num(CMD, "pfcwd", optarg, 1, 100, "ms", &pfcwd); break;
		case ':': case '?': return rk_sim_cli_refused(CMD, o, argc, argv, usage);
		default: rc = rk_sim_cli_opt(CMD, o, optarg, &cc); break;
		}
		if (rc)
			return rc < 0 ? 0 : rc;
	}
	if (rk_sim_cli_no_args(CMD, optind, argc, argv))
		return 2;
	const char *csv = cc.csv, *json = cc.json, *png = cc.png;
	unsigned long ms = cc.ms;

	if (send >= ms) {
		fprintf(stderr, "rk-sim: deadlock: --send must end before --duration\n");
		return 2;
	}
	struct rk_sring_cfg c = {
		.switches = (unsigned int)n, .link_bps = 100000000000ull, .prop_ns = 1000,
		.frame_bytes = 1000, .stop_ns = send * 1000000ull, .xoff_bytes = 20000,
		.xon_bytes = 2000, .headroom_bytes = 100000, .pfcwd_ns = pfcwd * 1000000ull,
	};

	if (rk_sim_cli_outputs(CMD, csv, json, png, &cf))
		return 2;
	if (cf)
		fprintf(cf, "t_ns,run,delivered_gbps,buffered_bytes,held_frames,ring_links_paused\n");
	uint64_t steps = ms * 1000000ull / SAMPLE_NS;
	double *rows = calloc(steps * COLS, sizeof(double));
	json_t *jt = json ? json_array() : NULL;

	if (!rows) {
		fprintf(stderr, "rk-sim: deadlock: out of memory\n");
		rc = 1;
	}
	for (unsigned int r = 0; !rc && r < RUNS; r++) {
		c.flows = r == 0 ? c.switches : c.switches - 2;
		rc = run_one(&c, r, steps, rows, cf, jt, &res[r]);
	}
	if (cf)
		fclose(cf);
	if (!rc) {
		printf("deadlock: ring of %lu switches, 100 Gb/s, sources stop at %lu ms, %lu ms%s\n",
		       n, send, ms, pfcwd ? ", PFC watchdog" : "");
		printf("%-8s %5s %9s %9s %6s %9s %11s %9s  %s\n", "run", "flows", "sent",
		       "delivered", "held", "held KB", "PFC frames", "wd drops", "verdict");
		for (unsigned int r = 0; r < RUNS; r++) {
			const struct rk_sring_counts *k = &res[r].end;
			char v[80];

			verdict(&res[r], v, sizeof(v));
			printf("%-8s %5lu %9llu %9llu %6llu %9.1f %11llu %9llu  %s\n", run_name[r],
			       r == 0 ? n : n - 2, (unsigned long long)k->sent,
			       (unsigned long long)k->delivered, (unsigned long long)held(k),
			       k->buffered_bytes / 1000.0, (unsigned long long)k->pfc_frames,
			       (unsigned long long)k->pfcwd_drops, v);
		}
	}
	if (json && !rc) {
		json_t *runs = json_array();

		for (unsigned int r = 0; r < RUNS; r++) {
			const struct rk_sring_counts *k = &res[r].end;

			json_array_append_new(runs, json_pack(
				"{s:s,s:i,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:b,s:I,s:I}",
				"run", run_name[r], "flows", (int)(r == 0 ? n : n - 2),
				"sent", (json_int_t)k->sent, "delivered", (json_int_t)k->delivered,
				"held_frames", (json_int_t)held(k),
				"buffered_bytes", (json_int_t)k->buffered_bytes,
				"pfc_frames", (json_int_t)k->pfc_frames,
				"headroom_drops", (json_int_t)k->drops,
				"pfcwd_drops", (json_int_t)k->pfcwd_drops,
				"deadlocked", res[r].drained_ns == 0,
				"last_delivery_ns", (json_int_t)res[r].last_delivery_ns,
				"drained_ns", (json_int_t)res[r].drained_ns));
		}
		json_t *root = json_pack("{s:i,s:i,s:i,s:i,s:o,s:o}", "switches", (int)n,
					 "send_ms", (int)send, "pfcwd_ms", (int)pfcwd,
					 "duration_ms", (int)ms, "runs", runs, "trace", jt);

		jt = NULL;
		rc = rk_sim_cli_write_json(CMD, root, json);
	}
	json_decref(jt);
	if (png && !rc)
		rc = plot(png, steps, rows);
	free(rows);
	return rc;
}
