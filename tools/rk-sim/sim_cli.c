/* SPDX-License-Identifier: BSD-3-Clause */
/* rk-sim's scenario commands: number options and outputs (sim_cli.h). */
#include "sim_cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rk_cc_dcqcn.h"
#include "rk_cli.h"
#include "rk_plot.h"

int rk_sim_cli_num(const char *cmd, const char *opt, const char *arg, unsigned long lo,
		   unsigned long hi, const char *unit, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || *v < lo || *v > hi) {
		fprintf(stderr, "rk-sim: %s: --%s %lu..%lu%s%s\n", cmd, opt, lo, hi,
			*unit ? " " : "", unit);
		return 2;
	}
	return 0;
}

/*
 * Open @p csv into @p *cf; "-" is standard output, and then what the
 * command prints there (its table) goes to standard error instead.
 */
static int csv_open(const char *cmd, const char *csv, FILE **cf)
{
	int fd;

	if (strcmp(csv, "-") != 0) {
		if (!(*cf = fopen(csv, "w"))) {
			fprintf(stderr, "rk-sim: %s: --csv %s: %s\n", cmd, csv, strerror(errno));
			return 2;
		}
		return 0;
	}
	/* The CSV takes standard output; the table, printed there, moves to
	 * standard error so the two never mix. */
	fflush(stdout);
	if ((fd = dup(STDOUT_FILENO)) < 0 || !(*cf = fdopen(fd, "w")) ||
	    dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		fprintf(stderr, "rk-sim: %s: --csv -: %s\n", cmd, strerror(errno));
		if (fd >= 0 && !*cf)
			close(fd);
		return 2;
	}
	return 0;
}

int rk_sim_cli_outputs(const char *cmd, const char *csv, const char *json, const char *png,
		       FILE **cf)
{
	char err[256];

	*cf = NULL;
	if (png && rk_plot_check(err, sizeof(err))) {
		fprintf(stderr, "rk-sim: %s: --png: %s\n", cmd, err);
		return 2;
	}
	/* Outputs that cannot be written are refused before the run, not after it. */
	for (int i = 0; i < 2; i++) {
		const char *path = i == 0 ? json : png;
		FILE *f;

		if (path == NULL)
			continue;
		/* Standard output carries the table or --csv -: no file named "-". */
		if (strcmp(path, "-") == 0) {
			fprintf(stderr, "rk-sim: %s: %s -: a file name is needed (only --csv - "
				"writes to standard output)\n", cmd, i == 0 ? "--json" : "--png");
			return 2;
		}
		if ((f = fopen(path, "w")) == NULL) {
			fprintf(stderr, "rk-sim: %s: %s %s: %s\n", cmd, i == 0 ? "--json" : "--png",
				path, strerror(errno));
			return 2;
		}
		fclose(f);
	}
	return csv ? csv_open(cmd, csv, cf) : 0;
}


int rk_sim_cli_write_json(const char *cmd, json_t *root, const char *path)
{
	int rc = 0;

	if (!root || json_dump_file(root, path, JSON_INDENT(1))) {
		fprintf(stderr, "rk-sim: %s: cannot write %s\n", cmd, path);
		rc = 1;
	}
	json_decref(root);
	return rc;
}

int rk_sim_cli_no_args(const char *cmd, int optind_now, int argc, char **argv)
{
	if (optind_now < argc) {
		fprintf(stderr, "rk-sim: %s: unexpected argument '%s'\n", cmd, argv[optind_now]);
		return 2;
	}
	return 0;
}

int rk_sim_cli_png(const char *cmd, const char *png, const struct rk_plot *p)
{
	char err[256];

	if (rk_plot_png(png, p, err, sizeof(err))) {
		fprintf(stderr, "rk-sim: %s: --png: %s\n", cmd, err);
		return 1;
	}
	return 0;
}

int rk_sim_cli_opt(const char *cmd, int o, const char *arg, struct rk_sim_cli_common *c)
{
	struct rk_dcqcn_params p;

	switch (o) {
	case 'd':
		/* its least may depend on options still to come: checked after them */
		if (c->ms_lo == 0) {
			c->ms_arg = arg;
			return 0;
		}
		return rk_sim_cli_num(cmd, "duration", arg, c->ms_lo, c->ms_hi, "ms", &c->ms);
	case 'Q':
		c->dcqcn_given = true;
		if (arg)
			c->profile = arg;
		else if (!c->profile)
			c->profile = "paper";
		return rk_sim_cli_profile(cmd, c->profile, &p);
	case 'c': c->csv = arg; return 0;
	case 'j': c->json = arg; return 0;
	case 'g': c->png = arg; return 0;
	case 'h': c->usage(stdout); return -1;
	default: c->usage(stderr); return 2;
	}
}

int rk_sim_cli_refused(const char *cmd, int o, int argc, char **argv, void (*usage)(FILE *f))
{
	char prog[64];

	snprintf(prog, sizeof(prog), "rk-sim: %s", cmd);
	rk_cli_bad_option(prog, o, argc, argv);
	/* a missing argument is said in full; an unknown option, the usage as before */
	if (o != ':')
		usage(stderr);
	return 2;
}

int rk_sim_cli_duration(const char *cmd, struct rk_sim_cli_common *c, unsigned long lo,
			const char *with)
{
	unsigned long v = c->ms;
	char *end = NULL;

	if (c->ms_arg != NULL) {
		errno = 0;
		v = strtoul(c->ms_arg, &end, 10);
	}
	if (c->ms_arg == NULL ? v >= lo && v <= c->ms_hi :
	    !errno && end != c->ms_arg && !*end && c->ms_arg[0] != '-' && v >= lo && v <= c->ms_hi) {
		c->ms = v;
		return 0;
	}
	if (c->ms_arg == NULL)
		fprintf(stderr, "rk-sim: %s: --duration %lu (the default): with %s, %lu..%lu ms\n",
			cmd, c->ms, with, lo, c->ms_hi);
	else
		fprintf(stderr, "rk-sim: %s: --duration %s: with %s, %lu..%lu ms\n", cmd, c->ms_arg,
			with, lo, c->ms_hi);
	return 2;
}

int rk_sim_cli_profile(const char *cmd, const char *name, struct rk_dcqcn_params *params)
{
	if (rk_dcqcn_profile(name, params)) {
		fprintf(stderr, "rk-sim: %s: unknown --dcqcn profile '%s' (paper, nvidia-default)\n",
			cmd, name);
		return 2;
	}
	return 0;
}

int rk_sim_cli_finish(const char *cmd, int rc, const char *json, json_t *root, const char *png,
		      const struct rk_plot *plot)
{
	if (json && !rc)
		rc = rk_sim_cli_write_json(cmd, root, json);
	else
		json_decref(root);
	if (png && plot && !rc)
		rc = rk_sim_cli_png(cmd, png, plot);
	return rc;
}

double rk_sim_cli_jain(const double *x, unsigned int n)
{
	double s = 0, s2 = 0;

	for (unsigned int i = 0; i < n; i++) {
		s += x[i];
		s2 += x[i] * x[i];
	}
	return s2 > 0 ? s * s / ((double)n * s2) : 1;
}
