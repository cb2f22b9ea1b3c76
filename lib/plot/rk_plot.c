/* SPDX-License-Identifier: BSD-3-Clause */
/* Time series to a PNG through gnuplot (rk_plot.h). */
#include "rk_plot.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NO_GNUPLOT "--plot needs gnuplot, not found on the PATH (Debian: apt-get install gnuplot-nox)"

/* gnuplot on the PATH, into @p buf; false when there is none. */
static bool
find_gnuplot(char *buf, size_t len)
{
	const char *path = getenv("PATH");

	while (path != NULL && *path != '\0') {
		const char *c = strchr(path, ':');
		size_t n = c != NULL ? (size_t)(c - path) : strlen(path);

		if (n != 0 && (size_t)snprintf(buf, len, "%.*s/gnuplot", (int)n, path) < len &&
		    access(buf, X_OK) == 0)
			return true;
		path = c != NULL ? c + 1 : NULL;
	}
	return false;
}

int
rk_plot_check(char *err, size_t elen)
{
	char gp[4096];

	if (find_gnuplot(gp, sizeof(gp)))
		return 0;
	snprintf(err, elen, "%s", NO_GNUPLOT);
	return -1;
}

/* @p s as a gnuplot string: single quotes, a quote doubled, no newline. */
static void
gp_string(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; s != NULL && *s != '\0'; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s == '\n' ? ' ' : *s, f);
	}
	fputc('\'', f);
}

static void
write_row(FILE *f, const double *v, unsigned int n)
{
	for (unsigned int c = 0; c < n; c++)
		fprintf(f, "%s%.9g", c ? "," : "", isfinite(v[c]) ? v[c] : 0.0);
	fputc('\n', f);
}

static void
write_panel(FILE *f, const struct rk_plot *p, const struct rk_plot_panel *pn)
{
	double ymax = 0;

	for (uint64_t r = 0; r < p->n_rows; r++)
		for (unsigned int i = 0; i < pn->n_cols; i++) {
			double v = p->rows[r * p->n_cols + pn->cols[i]];

			if (isfinite(v) && v > ymax)
				ymax = v;
		}
	fputs("set ylabel ", f);
	gp_string(f, pn->ylabel);
	if (pn->log_y)
		fprintf(f, "\nset logscale y\nset yrange [*:%.9g]\n", ymax > 0 ? ymax * 2 : 10.0);
	else    /* from a little under 0: a curve at 0 stays off the axis line */
		fprintf(f, "\nunset logscale y\nset yrange [%.9g:%.9g]\n",
			ymax > 0 ? -0.03 * ymax * 1.1 : -0.03, ymax > 0 ? ymax * 1.1 : 1.0);
	fputs("plot ", f);
	/* the first curve wider: where later ones lie on it, it still shows */
	for (unsigned int i = 0; i < pn->n_cols; i++) {
		fprintf(f, "%s using 1:%u with %s lw %s title ", i ? ", ''" : "$d", pn->cols[i] + 1,
			p->steps ? "steps" : "lines", i == 0 && pn->n_cols > 1 ? "5" : "1.5");
		gp_string(f, p->names[pn->cols[i]]);
	}
	fputc('\n', f);
}

static int
check_plot(const struct rk_plot *p, char *err, size_t elen)
{
	if (p->n_cols < 2 || p->n_cols > RK_PLOT_COLS_MAX || p->names == NULL ||
	    p->n_panels == 0 || p->n_panels > 8 || p->panels == NULL ||
	    (p->n_rows != 0 && p->rows == NULL)) {
		snprintf(err, elen, "--plot: nothing to draw (internal error)");
		return -1;
	}
	for (unsigned int i = 0; i < p->n_panels; i++) {
		const struct rk_plot_panel *pn = &p->panels[i];

		if (pn->n_cols == 0 || pn->n_cols > RK_PLOT_COLS_MAX) {
			snprintf(err, elen, "--plot: an empty panel (internal error)");
			return -1;
		}
		for (unsigned int c = 0; c < pn->n_cols; c++)
			if (pn->cols[c] == 0 || pn->cols[c] >= p->n_cols) {
				snprintf(err, elen, "--plot: no column %u (internal error)",
					 pn->cols[c]);
				return -1;
			}
	}
	return 0;
}

/* The whole gnuplot script, data included, onto @p f. */
static void
write_script(FILE *f, const char *png, const struct rk_plot *p)
{
	double x0 = 0, x1 = 1;

	if (p->n_rows != 0) {
		x0 = p->rows[0];
		x1 = p->rows[(p->n_rows - 1) * p->n_cols];
		if (p->steps && p->x_end > x1)
			x1 = p->x_end;
	}
	if (!(x1 > x0))
		x1 = x0 + 1;
	fprintf(f, "set terminal png noenhanced size 1024,%u\nset output ",
		p->n_panels < 2 ? 600u : 300u * p->n_panels);
	gp_string(f, png);
	fputs("\nset datafile separator ','\n$d << EOD\n", f);
	for (uint64_t r = 0; r < p->n_rows; r++)
		write_row(f, &p->rows[r * p->n_cols], p->n_cols);
	/* Steps run from a row to the next: the last one needs an end. */
	if (p->steps && p->n_rows != 0 && p->x_end > p->rows[(p->n_rows - 1) * p->n_cols]) {
		double last[RK_PLOT_COLS_MAX];

		memcpy(last, &p->rows[(p->n_rows - 1) * p->n_cols], p->n_cols * sizeof(double));
		last[0] = p->x_end;
		write_row(f, last, p->n_cols);
	}
	fprintf(f, "EOD\nset multiplot layout %u,1 title ", p->n_panels);
	gp_string(f, p->title);
	fprintf(f, "\nset key outside right\nset grid\n"
		"set lmargin at screen 0.1\nset rmargin at screen 0.75\n"
		"set xrange [%.9g:%.9g]\nset xlabel ", x0, x1);
	gp_string(f, p->xlabel);
	fputc('\n', f);
	for (unsigned int i = 0; i < p->n_panels; i++)
		write_panel(f, p, &p->panels[i]);
	fputs("unset multiplot\nset output\n", f);
}

int
rk_plot_png(const char *png, const struct rk_plot *p, char *err, size_t elen)
{
	char gp[4096];
	int fds[2], status;
	void (*old_pipe)(int);
	pid_t pid;
	FILE *f;

	if (check_plot(p, err, elen) != 0)
		return -1;
	if (!find_gnuplot(gp, sizeof(gp))) {
		snprintf(err, elen, "%s", NO_GNUPLOT);
		return -1;
	}
	if (strchr(png, '\n') != NULL) {
		snprintf(err, elen, "--plot: a file name with a newline cannot be given to gnuplot");
		return -1;
	}
	if (pipe(fds) != 0) {
		snprintf(err, elen, "--plot: pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(err, elen, "--plot: fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(fds[0], STDIN_FILENO);
		close(fds[0]);
		close(fds[1]);
		/* gnuplot's chatter is not the tool's output. */
		dup2(STDERR_FILENO, STDOUT_FILENO);
		execl(gp, "gnuplot", (char *)NULL);
		_exit(127);
	}
	close(fds[0]);
	/* A gnuplot that quits early must not kill the tool by SIGPIPE. */
	old_pipe = signal(SIGPIPE, SIG_IGN);
	f = fdopen(fds[1], "w");
	if (f == NULL) {
		close(fds[1]);
	} else {
		write_script(f, png, p);
		fclose(f);
	}
	signal(SIGPIPE, old_pipe);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			snprintf(err, elen, "--plot: waitpid: %s", strerror(errno));
			return -1;
		}
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(err, elen, "--plot %s: gnuplot failed (%s %d)", png,
			 WIFEXITED(status) ? "exit" : "signal",
			 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		return -1;
	}
	return 0;
}
