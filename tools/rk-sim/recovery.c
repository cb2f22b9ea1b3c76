/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-sim recovery: go-back-N against selective repeat in an N:1 incast of
 * rdmakit RC QPs through the simulated switch (rk_sim_recovery.h). The
 * same network runs twice, every QP on "gbn", then on "sr"; a table of
 * goodput per flow and in all, packets resent, timeouts (of them RTO_low)
 * and drops, traces
 * every 100 us as CSV and JSON, and a PNG plot.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_plot.h"
#include "rk_sim_recovery.h"
#include "rk_cli.h"
#include "sim_cli.h"

#define SAMPLE_NS 100000ull
#define RUNS 2
#define CMD "recovery"
#define COLS (1 + 2 * RUNS)     /* t, goodput of each run, queue of each run */

static const char *const run_name[RUNS] = { "gbn", "sr" };

static void usage(FILE *f)
{
	fprintf(f, "usage: rk-sim recovery [--senders N] [--pfc on|off] [--dcqcn] [--duration MS]\n"
		   "                       [--seed N] [--window PKTS] [--timeout EXP] [--limit BYTES]\n"
		   "                       [--rto-low US] [--csv FILE] [--json FILE] [--png|--plot FILE]\n"
		   "  N RC QPs (64 KB WRITEs, 40 Gb/s links) into one receiver port, run with\n"
		   "  go-back-N, then with selective repeat on every QP. Without PFC the port\n"
		   "  drops what passes its queue limit; with PFC every priority is lossless.\n"
		   "  --dcqcn: DCQCN (paper profile, RED 5000..40000 B, Pmax 0.2) on every QP.\n"
		   "  Defaults: 4 senders (2..16), pfc off, 20 ms, seed 1, window 64 packets,\n"
		   "  timeout 7 (4.096 us x 2^7), limit 200000 B, rto-low 100 us (selective\n"
		   "  repeat's short timeout with at most 3 packets in flight, IRN's; 0: off).\n");
}

struct trace {
	FILE *cf;
	json_t *jt;
	double *rows;
	unsigned int run;
	uint64_t prev[RK_SIM_RECOVERY_MAX_SENDERS];
	uint64_t k;
};

/* Each row's rates: the payload placed in the interval (not the WRITEs
 * completed in it, which come 64 KiB at a time). */
static void on_sample(void *ctx, uint64_t t, const uint64_t *bytes, unsigned int n, uint64_t q,
		      uint64_t drops)
{
	struct trace *tr = ctx;
	json_t *rates = tr->jt ? json_array() : NULL;
	double *r = &tr->rows[tr->k++ * COLS], sum = 0;

	if (tr->cf)
		fprintf(tr->cf, "%llu,%s", (unsigned long long)t, run_name[tr->run]);
	for (unsigned int i = 0; i < n; i++) {
		double g = (double)(bytes[i] - tr->prev[i]) * 8 / (double)SAMPLE_NS;

		tr->prev[i] = bytes[i];
		sum += g;
		if (tr->cf)
			fprintf(tr->cf, ",%.3f", g);
		if (rates)
			json_array_append_new(rates, json_real(g));
	}
	if (tr->cf)
		fprintf(tr->cf, ",%.3f,%llu,%llu\n", sum, (unsigned long long)q,
			(unsigned long long)drops);
	if (tr->jt)
		json_array_append_new(tr->jt, json_pack("{s:I,s:s,s:o,s:f,s:I,s:I}", "t_ns",
			(json_int_t)t, "run", run_name[tr->run], "gbps", rates, "total_gbps", sum,
			"queue_bytes", (json_int_t)q, "drops", (json_int_t)drops));
	r[0] = (double)t / 1e6;
	r[1 + tr->run] = sum;
	r[1 + RUNS + tr->run] = (double)q / 1000;
}

/* RTO_low of the sr run, us; 0: off. */
static unsigned int rto_low_us(const struct rk_sim_recovery_incast_cfg *c)
{
	return c->rto_low_off ? 0 : c->rto_low_us ? c->rto_low_us : RK_IB_RTO_LOW_NS / 1000;
}

static void print_table(const struct rk_sim_recovery_incast_cfg *c, unsigned long ms,
			const struct rk_sim_recovery_incast *o)
{
	unsigned int n = c->senders;

	char limit[32] = "";

	/* the queue limit drops only without PFC; with it the port is lossless */
	if (!c->pfc)
		snprintf(limit, sizeof(limit), ", limit %u B", c->limit_bytes);
	printf("recovery %u:1, 40 Gb/s, %lu ms, pfc %s, %s%s, window %u, timeout %u, rto-low %u us, "
	       "seed %llu\n", n, ms, c->pfc ? "on" : "off", c->dcqcn ? "dcqcn paper" : "no dcqcn",
	       limit, c->window, c->timeout, rto_low_us(c), (unsigned long long)c->seed);
	printf("%-4s %7s", "run", "Gb/s");
	for (unsigned int i = 0; i < n; i++)
		printf(" %5s%u", "f", i);
	printf(" %8s %8s %8s %7s %8s %7s %6s\n", "sent", "resent", "timeouts", "rto_low", "drops",
	       "PFC", "failed");
	for (unsigned int r = 0; r < RUNS; r++) {
		printf("%-4s %7.2f", run_name[r], o[r].goodput_gbps);
		for (unsigned int i = 0; i < n; i++)
			printf(" %*.2f", i < 10 ? 6 : 7, o[r].flow_gbps[i]);
		printf(" %8llu %8llu %8llu %7llu %8llu %7llu %6llu\n",
		       (unsigned long long)o[r].req_pkts, (unsigned long long)o[r].retx_pkts,
		       (unsigned long long)o[r].timeouts, (unsigned long long)o[r].rto_low_timeouts,
		       (unsigned long long)o[r].drops,
		       (unsigned long long)o[r].pfc_frames, (unsigned long long)o[r].wc_errors);
	}
}

static json_t *run_json(unsigned int n, const struct rk_sim_recovery_incast *o, unsigned int r)
{
	json_t *g = json_array(), *rx = json_array();

	for (unsigned int i = 0; i < n; i++) {
		json_array_append_new(g, json_real(o->flow_gbps[i]));
		json_array_append_new(rx, json_integer((json_int_t)o->flow_retx[i]));
	}
	return json_pack("{s:s,s:f,s:o,s:o,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "recovery",
			 run_name[r], "goodput_gbps", o->goodput_gbps, "flow_gbps", g,
			 "flow_resent", rx, "sent", (json_int_t)o->req_pkts,
			 "resent", (json_int_t)o->retx_pkts, "timeouts", (json_int_t)o->timeouts,
			 "rto_low_timeouts", (json_int_t)o->rto_low_timeouts,
			 "nak_seq", (json_int_t)o->nak_seq, "drops", (json_int_t)o->drops,
			 "pfc_frames", (json_int_t)o->pfc_frames, "ce_marks", (json_int_t)o->marked,
			 "failed", (json_int_t)o->wc_errors);
}

int rk_sim_run_recovery(int argc, char **argv);

int rk_sim_run_recovery(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "senders", 1, NULL, 'n' }, { "pfc", 1, NULL, 'p' }, { "dcqcn", 0, NULL, 'q' },
		{ "duration", 1, NULL, 'd' }, { "seed", 1, NULL, 's' }, { "window", 1, NULL, 'w' },
		{ "timeout", 1, NULL, 't' }, { "limit", 1, NULL, 'l' }, { "csv", 1, NULL, 'c' },
		{ "rto-low", 1, NULL, 'r' },
		{ "json", 1, NULL, 'j' }, { "png", 1, NULL, 'g' }, { "plot", 1, NULL, 'g' },
		{ "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	struct rk_sim_recovery_incast_cfg c = {
		.senders = 4, .seed = 1, .window = RK_SIM_RECOVERY_WINDOW,
		.timeout = RK_SIM_RECOVERY_TIMEOUT, .limit_bytes = RK_SIM_RECOVERY_LIMIT,
		.sample_ns = SAMPLE_NS, .sample = on_sample,
	};
	const char *csv = NULL, *json = NULL, *png = NULL;
	unsigned long n = 4, ms = 20, v;
	struct rk_sim_recovery_incast out[RUNS];
	int o, rc = 0;

	optind = 1;
	opterr = 0;
	while ((o = rk_cli_getopt(argc, argv, ":n:d:c:j:g:h", lo, NULL)) != -1) {
		int bad = 0;

		switch (o) {
		case 'n': bad = rk_sim_cli_num(CMD, "senders", optarg, 2,
					       RK_SIM_RECOVERY_MAX_SENDERS, "", &n);
			break;
		case 'p':
			if (strcmp(optarg, "on") && strcmp(optarg, "off")) {
				fprintf(stderr, "rk-sim: recovery: --pfc takes on or off\n");
				return 2;
			}
			c.pfc = strcmp(optarg, "on") == 0;
			break;
		case 'q': c.dcqcn = true; break;
		case 'd': bad = rk_sim_cli_num(CMD, "duration", optarg, 2, 1000, "ms", &ms); break;
		case 's':
			bad = rk_sim_cli_num(CMD, "seed", optarg, 0, 0xffffffffUL, "", &v);
			c.seed = v;
			break;
		case 'w':
			bad = rk_sim_cli_num(CMD, "window", optarg, 8, 1024, "packets", &v);
			c.window = (uint32_t)v;
			break;
		case 't':
			bad = rk_sim_cli_num(CMD, "timeout", optarg, 4, 16, "(4.096 us x 2^N)", &v);
			c.timeout = (uint8_t)v;
			break;
		case 'l':
			bad = rk_sim_cli_num(CMD, "limit", optarg, 20000, 16000000, "bytes", &v);
			c.limit_bytes = (uint32_t)v;
			break;
		case 'r':
			bad = rk_sim_cli_num(CMD, "rto-low", optarg, 0, 100000, "us", &v);
			c.rto_low_us = (uint32_t)v;
			c.rto_low_off = v == 0;
			break;
		case 'c': csv = optarg; break;
		case 'j': json = optarg; break;
		case 'g': png = optarg; break;
		case 'h': usage(stdout); return 0;
		case ':': case '?': return rk_sim_cli_refused(CMD, o, argc, argv, usage);
		default: usage(stderr); return 2;
		}
		if (bad)
			return bad;
	}
	if (rk_sim_cli_no_args(CMD, optind, argc, argv))
		return 2;
	c.senders = (unsigned int)n;
	c.duration_ns = ms * 1000000ull;

	FILE *cf = NULL;

	if (rk_sim_cli_outputs(CMD, csv, json, png, &cf))
		return 2;
	if (cf) {
		fprintf(cf, "t_ns,run");
		for (unsigned int i = 0; i < n; i++)
			fprintf(cf, ",flow%u_gbps", i);
		fprintf(cf, ",total_gbps,queue_bytes,drops\n");
	}
	uint64_t steps = c.duration_ns / SAMPLE_NS;
	struct trace tr = { .cf = cf, .jt = json ? json_array() : NULL,
			    .rows = calloc(steps * COLS, sizeof(double)) };

	c.sample_ctx = &tr;
	if (!tr.rows) {
		fprintf(stderr, "rk-sim: recovery: out of memory\n");
		rc = 1;
	}
	for (unsigned int r = 0; !rc && r < RUNS; r++) {
		int err;

		c.algo = run_name[r];
		tr.run = r;
		tr.k = 0;
		memset(tr.prev, 0, sizeof(tr.prev));
		if ((err = rk_sim_recovery_incast_run(&c, &out[r]))) {
			fprintf(stderr, "rk-sim: recovery: %s run: %s\n", run_name[r],
				err == -EIO ? "an engine stalled" : strerror(-err));
			rc = 1;
		}
	}
	if (cf)
		fclose(cf);
	if (!rc)
		print_table(&c, ms, out);
	json_t *root = NULL;

	if (json && !rc) {
		json_t *runs = json_array();

		for (unsigned int r = 0; r < RUNS; r++)
			json_array_append_new(runs, run_json(c.senders, &out[r], r));
		root = json_pack("{s:i,s:b,s:b,s:i,s:I,s:i,s:i,s:i,s:i,s:o,s:o}",
			"senders", (int)n, "pfc", c.pfc, "dcqcn", c.dcqcn, "duration_ms", (int)ms,
			"seed", (json_int_t)c.seed, "window", (int)c.window, "timeout", (int)c.timeout,
			"rto_low_us", (int)rto_low_us(&c), "limit_bytes", (int)c.limit_bytes,
			"runs", runs, "trace", tr.jt);
		tr.jt = NULL;
	}
	json_decref(tr.jt);
	static const char *const names[COLS] = { "t", "gbn", "sr", "gbn queue", "sr queue" };
	struct rk_plot_panel pn[2] = {
		{ .ylabel = "payload placed, all flows (Gb/s)", .n_cols = RUNS, .cols = { 1, 2 } },
		{ .ylabel = "receiver port queue (KB)", .n_cols = RUNS, .cols = { 3, 4 } },
	};
	struct rk_plot p = { .title = "rk-sim recovery: go-back-N and selective repeat",
			     .xlabel = "time (ms)", .n_cols = COLS, .names = names,
			     .n_rows = steps, .rows = tr.rows, .n_panels = 2, .panels = pn };

	rc = rk_sim_cli_finish(CMD, rc, json, root, png, &p);
	free(tr.rows);
	return rc;
}
