/* SPDX-License-Identifier: BSD-3-Clause */
/* What rk-sim's scenario commands share: options, outputs, per-flow traces. */
#ifndef RK_SIM_CLI_H
#define RK_SIM_CLI_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/**
 * Parse @p arg as a whole number in lo..hi into @p v. Otherwise print
 * "rk-sim: CMD: --OPT LO..HI UNIT" and return 2 (the exit status of bad
 * usage); 0 when taken.
 */
int rk_sim_cli_num(const char *cmd, const char *opt, const char *arg, unsigned long lo,
		   unsigned long hi, const char *unit, unsigned long *v);

/**
 * Before a run, the outputs asked for: gnuplot for @p png, @p json
 * writable (created empty), @p csv opened into @p *cf ("-": standard
 * output, and what the command prints there goes to standard error).
 * Each may be NULL.
 * @return 0, or 2 with one line on stderr (nothing left open).
 */
int rk_sim_cli_outputs(const char *cmd, const char *csv, const char *json, const char *png,
		       FILE **cf);

struct rk_plot;

/** Draw @p p into @p png (gnuplot). @return 0, or 1 with one line on stderr. */
int rk_sim_cli_png(const char *cmd, const char *png, const struct rk_plot *p);

/** Write @p root (taken, freed) to @p path. @return 0, or 1 with one line on stderr. */
int rk_sim_cli_write_json(const char *cmd, json_t *root, const char *path);

/**
 * An option getopt_long() refused (@p o ':' or '?': the command's short
 * options start with ':', opterr is 0): "rk-sim: CMD: option --x needs an
 * argument", one line; an unknown one its line, then @p usage on stderr.
 * @return 2
 */
int rk_sim_cli_refused(const char *cmd, int o, int argc, char **argv, void (*usage)(FILE *f));

/** The end of the options: an argument left is refused (2), else 0. */
int rk_sim_cli_no_args(const char *cmd, int optind_now, int argc, char **argv);

/**
 * The options every scenario command built on these helpers takes:
 * --duration MS, --csv, --json, --png (--plot the same) and --help; and
 * those that run DCQCN --dcqcn[=PROFILE] (--profile PROFILE the same). A
 * command puts RK_SIM_CLI_DCQCN_LONGOPTS (if it runs DCQCN) and then
 * RK_SIM_CLI_LONGOPTS at the end of its own struct option table and
 * RK_SIM_CLI_SHORTOPTS in its short options (which start with ':', with
 * opterr 0), hands ':' and '?' to rk_sim_cli_refused() and what else its
 * switch does not know to rk_sim_cli_opt().
 */
struct rk_sim_cli_common {
	unsigned long ms;               /**< --duration, preset to the default */
	unsigned long ms_lo, ms_hi;     /**< its range; ms_lo 0: rk_sim_cli_duration() checks it */
	const char *ms_arg;             /**< --duration as given (ms_lo 0), else NULL */
	const char *profile;            /**< --dcqcn's profile; preset (NULL: DCQCN off) */
	bool dcqcn_given;               /**< --dcqcn or --profile was on the line */
	const char *csv, *json, *png;
	void (*usage)(FILE *f);
};

#define RK_SIM_CLI_DCQCN_LONGOPTS \
	{ "dcqcn", 2, NULL, 'Q' }, { "profile", 1, NULL, 'Q' }
#define RK_SIM_CLI_LONGOPTS \
	{ "duration", 1, NULL, 'd' }, { "csv", 1, NULL, 'c' }, { "json", 1, NULL, 'j' }, \
	{ "png", 1, NULL, 'g' }, { "plot", 1, NULL, 'g' }, { "help", 0, NULL, 'h' }, \
	{ NULL, 0, NULL, 0 }
#define RK_SIM_CLI_SHORTOPTS "d:c:j:g:h"

/**
 * Take option @p o (getopt_long's return) with @p arg into @p c.
 * @return 0 taken; 2 refused or unknown (one line or the usage on
 *         stderr); -1 for --help (the usage printed on stdout: exit 0).
 */
int rk_sim_cli_opt(const char *cmd, int o, const char *arg, struct rk_sim_cli_common *c);

/**
 * For a command whose least --duration depends on its other options
 * (ms_lo 0): take --duration (or keep the default) when in @p lo..ms_hi.
 * Otherwise print "rk-sim: CMD: --duration MS: with WITH, LO..HI ms"
 * (@p with names those options and their values) and return 2; 0 when
 * taken.
 */
int rk_sim_cli_duration(const char *cmd, struct rk_sim_cli_common *c, unsigned long lo,
			const char *with);

/**
 * DCQCN parameters of the profile @p name ("paper", "nvidia-default")
 * into @p params. @return 0, or 2 with one line on stderr.
 */
struct rk_dcqcn_params;
int rk_sim_cli_profile(const char *cmd, const char *name, struct rk_dcqcn_params *params);

/**
 * The end of a command's run: when @p rc is 0, @p root (taken, freed in
 * any case) is written to @p json and @p plot drawn into @p png, each if
 * asked for. @return the exit status: @p rc, or 1 when an output failed.
 */
int rk_sim_cli_finish(const char *cmd, int rc, const char *json, json_t *root, const char *png,
		      const struct rk_plot *plot);

/**
 * Jain's fairness index of @p x[0..n-1]: (sum x)^2 / (n sum x^2), 1 when
 * all are equal, 1/n when one has all; 1 for n 0 or all zero.
 */
double rk_sim_cli_jain(const double *x, unsigned int n);

#endif
