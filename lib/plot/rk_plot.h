/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_plot.h
 * Time series to a PNG through gnuplot (Debian: gnuplot-nox), for every
 * tool that draws one: rk-inspect's --interval series, rk-gen's receive
 * series, the simulator's congestion traces. The data goes to gnuplot on
 * a pipe as an inline data block, so no temporary file is written; the
 * panels share the x axis and are stacked top to bottom.
 */
#ifndef RK_PLOT_H
#define RK_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Most columns of a table, and of one panel. */
#define RK_PLOT_COLS_MAX 16

/** One panel: a y axis and the columns drawn on it. */
struct rk_plot_panel {
	const char *ylabel;                  /**< with its unit, e.g. "Gb/s" */
	unsigned int n_cols;                 /**< 1..RK_PLOT_COLS_MAX */
	unsigned int cols[RK_PLOT_COLS_MAX]; /**< indices into the table, 1..n_cols-1 */
	bool log_y;                          /**< a logarithmic y axis (values > 0 drawn) */
};

/** A table of rows and what to draw of it. */
struct rk_plot {
	const char *title;        /**< above the panels (a file name, a scenario) */
	const char *xlabel;       /**< the x axis, with its unit */
	unsigned int n_cols;      /**< columns: 2..RK_PLOT_COLS_MAX; column 0 is x */
	const char *const *names; /**< n_cols names: the legend of each column */
	uint64_t n_rows;
	const double *rows;       /**< n_rows x n_cols values, row after row */
	bool steps;               /**< each row holds until the next (interval series) */
	double x_end;             /**< steps: where the last row ends; <= its x: none */
	unsigned int n_panels;    /**< 1..8 */
	const struct rk_plot_panel *panels;
};

/**
 * Whether gnuplot can be run (found on the PATH), so a tool refuses --plot
 * before its work rather than after it.
 * @return 0, or -1 with one line in @p err (@p elen bytes)
 */
int rk_plot_check(char *err, size_t elen);

/**
 * Draw @p p into PNG file @p png (1024 x 300 per panel): gnuplot runs as a
 * child with the table on its standard input; its messages go to standard
 * error. Each panel's y range is explicit (from 3 % of the top under 0,
 * so a curve at 0 stays visible, to 1.1 x its largest value, or 0..1 when
 * all are 0), since gnuplot warns of an empty range. A panel's first curve
 * is drawn wider than the rest (5 against 1.5), so it shows around them
 * where they coincide.
 * @return 0, or -1 with one line in @p err: -EINVAL-like misuse (no rows
 *         is not misuse: the panels are drawn empty), no gnuplot, a file
 *         name with a newline, gnuplot failed (its exit status).
 */
int rk_plot_png(const char *png, const struct rk_plot *p, char *err, size_t elen);

#endif
