/* SPDX-License-Identifier: BSD-3-Clause */
/* What rk-sim's scenario commands (incast --dcqcn, victim) share on their command line. */
#ifndef RK_SIM_CLI_H
#define RK_SIM_CLI_H

#include <jansson.h>
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

/** The end of the options: an argument left is refused (2), else 0. */
int rk_sim_cli_no_args(const char *cmd, int optind_now, int argc, char **argv);

#endif
