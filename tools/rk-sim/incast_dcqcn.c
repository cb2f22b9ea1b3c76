/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-sim incast --dcqcn[=profile]: N rdmakit RC QPs with DCQCN through
 * the simulated switch into one 40 Gb/s port (rk_sim_dcqcn.h). Per-flow
 * traces every 10 us (received rate, R_C, alpha, queue, CNPs) as CSV and
 * JSON, and a PNG plot (lib/plot, gnuplot).
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

#define SAMPLE_NS 10000ull

static void usage(FILE *f)
{
	fprintf(f, "usage: rk-sim incast --dcqcn[=paper|nvidia-default] [--senders N]\n"
		   "                     [--stagger MS] [--duration MS] [--csv FILE] [--json FILE]\n"
		   "                     [--png FILE]\n"
		   "  N RC QPs (rdmakit engines, 64 KB WRITEs) at 40 Gb/s into one port,\n"
		   "  RED 5..200 KB, Pmax 1 %%, marking at dequeue (defaults: paper, 2, 20).\n"
		   "  --stagger MS: sender i starts at i x MS; a line says from when each flow\n"
		   "  stays within 10 %% of its share of the link (1 ms windows).\n");
}

/*
 * The first whole 1 ms window, at or after @p from_ms, from which every
 * window to the end has each of the @p n flows within 10 % of its share of
 * the link, @p share bytes a window (@p win: bytes, window-major); -1 when
 * none.
 */
static long fair_from(const uint64_t *win, unsigned long n, unsigned long ms,
		      unsigned long from_ms, double share)
{
	long first = -1;

	for (unsigned long w = ms; w-- > from_ms;) {
		bool fair = true;

		for (unsigned long i = 0; i < n; i++)
			fair &= (double)win[w * n + i] >= 0.9 * share &&
				(double)win[w * n + i] <= 1.1 * share;
		if (!fair)
			break;
		first = (long)w;
	}
	return first;
}

int rk_sim_run_incast_dcqcn(int argc, char **argv);

int rk_sim_run_incast_dcqcn(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "dcqcn", 2, NULL, 'q' }, { "senders", 1, NULL, 'n' }, { "stagger", 1, NULL, 's' },
		{ "duration", 1, NULL, 'd' }, { "csv", 1, NULL, 'c' }, { "json", 1, NULL, 'j' },
		{ "png", 1, NULL, 'g' }, { "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	const char *profile = "paper", *csv = NULL, *json = NULL, *png = NULL;
	unsigned long n = 2, ms = 20, stagger = 0;
	int o;

	optind = 1;
	opterr = 0;
	while ((o = rk_cli_getopt(argc, argv, ":n:s:d:c:j:g:h", lo, NULL)) != -1) {
		switch (o) {
		case 'q': if (optarg) profile = optarg; break;
		case 's':
			if (rk_sim_cli_num("incast", "stagger", optarg, 1, 1000, "ms", &stagger))
				return 2;
			break;
		case 'n':
			if (rk_sim_cli_num("incast", "senders", optarg, 1, RK_SDQ_MAX_SENDERS, "", &n))
				return 2;
			break;
		case 'd':
			if (rk_sim_cli_num("incast", "duration", optarg, 1, 10000, "ms", &ms))
				return 2;
			break;
		case 'c': csv = optarg; break;
		case 'j': json = optarg; break;
		case 'g': png = optarg; break;
		case 'h': usage(stdout); return 0;
		case ':': case '?': return rk_sim_cli_refused("incast", o, argc, argv, usage);
		default: usage(stderr); return 2;
		}
	}
	if (rk_sim_cli_no_args("incast", optind, argc, argv))
		return 2;
	if (stagger && (n < 2 || stagger * (n - 1) + 2 > ms)) {
		fprintf(stderr, "rk-sim: incast: --stagger needs 2 senders or more and the last "
			"to start at least 2 ms before the end of --duration\n");
		return 2;
	}
	struct rk_sdq_cfg c = {
		.senders = (unsigned int)n, .link_bps = 40000000000ull, .prop_ns = 500,
		.msg_bytes = 65536, .window = 512, .kmin_bytes = 5000, .kmax_bytes = 200000,
		.pmax = 0.01, .limit_bytes = 4u << 20, .seed = 0xdc9c, .dcqcn = true,
		.stagger_ns = stagger * 1000000ull,
	};
	if (rk_dcqcn_profile(profile, &c.params)) {
		fprintf(stderr, "rk-sim: incast: unknown --dcqcn profile '%s' (paper, nvidia-default)\n",
			profile);
		return 2;
	}
	if (png && 2 + 2 * n > RK_PLOT_COLS_MAX) {
		fprintf(stderr, "rk-sim: incast: --png draws at most 7 senders\n");
		return 2;
	}
	FILE *cf;

	if (rk_sim_cli_outputs("incast", csv, json, png, &cf))
		return 2;
	struct rk_sdq *s = rk_sdq_create(&c);

	if (!s) {
		fprintf(stderr, "rk-sim: incast: %s\n", strerror(errno));
		if (cf)
			fclose(cf);
		return 1;
	}
	if (cf)
		fprintf(cf, "t_ns,flow,rate_gbps,rc_gbps,alpha,queue_bytes,cnps\n");
	uint64_t steps = ms * 1000000ull / SAMPLE_NS, prev[RK_SDQ_MAX_SENDERS] = { 0 };
	unsigned int ncol = 2 + 2 * (unsigned int)n;   /* t, queue, rate_i, alpha_i */
	double *rows = calloc(steps * ncol, sizeof(double));
	json_t *jt = json_array();
	/* bytes per flow per 1 ms window, for the convergence time */
	uint64_t *win = calloc(ms * n, sizeof(uint64_t));
	double area = 0;
	int rc = 0;

	for (uint64_t k = 1; rows && k <= steps; k++) {
		uint64_t t = k * SAMPLE_NS;

		if (rk_sdq_run(s, t)) {
			fprintf(stderr, "rk-sim: incast: an engine stalled at %llu ns\n",
				(unsigned long long)t);
			rc = 1;
			break;
		}
		uint64_t q = rk_sdq_queue(s, &area);
		double *r = &rows[(k - 1) * ncol];

		r[0] = (double)t / 1e6;
		r[1] = (double)q / 1000;
		for (unsigned int i = 0; i < n; i++) {
			struct rk_sdq_flow f;

			rk_sdq_flow(s, i, &f);
			double gbps = (double)(f.rx_bytes - prev[i]) * 8 / (double)SAMPLE_NS;

			if (win)
				win[((t - 1) / 1000000ull) * n + i] += f.rx_bytes - prev[i];
			prev[i] = f.rx_bytes;
			r[2 + i] = gbps;
			r[2 + n + i] = f.alpha / 1024.0;
			if (cf)
				fprintf(cf, "%llu,%u,%.3f,%.3f,%.4f,%llu,%llu\n", (unsigned long long)t,
					i, gbps, f.rc_kbps / 1e6, f.alpha / 1024.0,
					(unsigned long long)q, (unsigned long long)f.cnp_handled);
			if (json && k % 10 == 0)
				json_array_append_new(jt, json_pack("{s:I,s:i,s:f,s:f,s:f,s:I,s:I}",
					"t_ns", (json_int_t)t, "flow", (int)i, "rate_gbps", gbps,
					"rc_gbps", f.rc_kbps / 1e6, "alpha", f.alpha / 1024.0,
					"queue_bytes", (json_int_t)q, "cnps", (json_int_t)f.cnp_handled));
		}
	}
	if (cf)
		fclose(cf);
	uint64_t marked, dropped, peak;

	rk_sdq_switch_counts(s, &marked, &dropped, &peak);
	double qavg = area / ((double)ms * 1e6);

	printf("incast %lu:1 dcqcn %s %lu ms: queue avg %.1f KB, peak %llu B, marked %llu, "
	       "dropped %llu\n", n, profile, ms, qavg / 1000, (unsigned long long)peak,
	       (unsigned long long)marked, (unsigned long long)dropped);
	long fair_ms = -1;

	if (stagger && win) {
		fair_ms = fair_from(win, n, ms, stagger * (n - 1),
				    (double)c.link_bps / 8 / 1000 / (double)n);
		if (fair_ms >= 0)
			printf("  staggered by %lu ms, last start at %lu ms: each flow within 10 %% of "
			       "its share of the link from %ld ms on (%ld ms after the last start)\n",
			       stagger,
			       stagger * (n - 1), fair_ms, fair_ms - (long)(stagger * (n - 1)));
		else
			printf("  staggered by %lu ms, last start at %lu ms: not every flow within "
			       "10 %% of its share of the link by the end\n", stagger,
			       stagger * (n - 1));
	}
	for (unsigned int i = 0; i < n; i++) {
		struct rk_sdq_flow f;

		rk_sdq_flow(s, i, &f);
		printf("  flow %u: %.2f Gb/s, R_C %.2f Gb/s, alpha %.3f, CNPs handled %llu, ignored %llu"
		       "\n", i, (double)f.rx_bytes * 8 / ((double)ms * 1e6),
		       f.rc_kbps / 1e6, f.alpha / 1024.0, (unsigned long long)f.cnp_handled,
		       (unsigned long long)f.cnp_ignored);
	}
	if (json) {
		json_t *root = json_pack("{s:s,s:i,s:i,s:i,s:i,s:f,s:I,s:I,s:I,s:o}", "profile",
					 profile, "senders", (int)n, "duration_ms", (int)ms,
					 "stagger_ms", (int)stagger, "fair_from_ms", (int)fair_ms,
					 "queue_avg_bytes", qavg, "queue_peak_bytes", (json_int_t)peak,
					 "marked", (json_int_t)marked, "dropped", (json_int_t)dropped,
					 "trace", jt);

		jt = NULL;
		if (rk_sim_cli_write_json("incast", root, json))
			rc = 1;
	}
	json_decref(jt);
	if (png && rows && !rc) {
		const char *names[RK_PLOT_COLS_MAX] = { "t", "queue" };
		char nb[RK_PLOT_COLS_MAX][24];
		struct rk_plot_panel pn[3] = {
			{ .ylabel = "queue (KB)", .n_cols = 1, .cols = { 1 } },
			{ .ylabel = "received rate (Gb/s)" }, { .ylabel = "alpha" },
		};

		for (unsigned int i = 0; i < n && 2 + n + i < RK_PLOT_COLS_MAX; i++) {
			snprintf(nb[2 + i], sizeof(nb[0]), "flow %u", i);
			snprintf(nb[2 + n + i], sizeof(nb[0]), "alpha %u", i);
			names[2 + i] = nb[2 + i];
			names[2 + n + i] = nb[2 + n + i];
			pn[1].cols[pn[1].n_cols++] = 2 + i;
			pn[2].cols[pn[2].n_cols++] = 2 + n + i;
		}
		struct rk_plot p = { .title = "rk-sim incast --dcqcn", .xlabel = "time (ms)",
				     .n_cols = ncol, .names = names, .n_rows = steps,
				     .rows = rows, .n_panels = 3, .panels = pn };

		rc = rk_sim_cli_png("incast", png, &p);
	}
	free(rows);
	free(win);
	rk_sdq_destroy(s);
	return rc;
}
