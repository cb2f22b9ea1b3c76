/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/plot/rk_plot.h: the script handed to gnuplot. A stand-in "gnuplot"
 * first on the PATH keeps its standard input, so the test reads what the
 * real one would draw: each panel's y range starts under 0 (a curve at 0
 * stays off the axis line) and a panel's first curve is the wider (the
 * ones drawn over it leave it visible where they coincide).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "rk_plot.h"

static char dir[64], script[128];

static int
setup(void **state)
{
	char path[4160], fake[128];
	FILE *f;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/rk-plot-test.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(script, sizeof(script), "%s/script.gp", dir);
	snprintf(fake, sizeof(fake), "%s/gnuplot", dir);
	if ((f = fopen(fake, "w")) == NULL)
		return -1;
	fprintf(f, "#!/bin/sh\ncat > '%s'\n", script);
	fclose(f);
	chmod(fake, 0755);
	snprintf(path, sizeof(path), "%s:%s", dir, getenv("PATH") ? getenv("PATH") : "");
	return setenv("PATH", path, 1);
}

static int
teardown(void **state)
{
	char fake[128];

	(void)state;
	snprintf(fake, sizeof(fake), "%s/gnuplot", dir);
	unlink(fake);
	unlink(script);
	rmdir(dir);
	return 0;
}

/* Two curves equal and at 0 after the first row: what rk-sim storm draws. */
static void
test_zero_and_coinciding_curves(void **state)
{
	static const char *const names[3] = { "t", "a", "b" };
	static const double rows[] = { 0, 40, 40, 1, 0, 0, 2, 0, 0 };
	struct rk_plot_panel pn = { .ylabel = "Gb/s", .n_cols = 2, .cols = { 1, 2 } };
	struct rk_plot p = { .title = "t", .xlabel = "ms", .n_cols = 3, .names = names,
			     .n_rows = 3, .rows = rows, .n_panels = 1, .panels = &pn };
	char err[256], buf[8192], *yr;
	FILE *f;
	size_t n;

	(void)state;
	assert_int_equal(rk_plot_png("/dev/null", &p, err, sizeof(err)), 0);
	assert_non_null(f = fopen(script, "r"));
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* the top 1.1 x 40 = 44; the bottom 3 % of it under 0 */
	assert_non_null(yr = strstr(buf, "set yrange ["));
	assert_true(strncmp(yr, "set yrange [-1.32:44]", 21) == 0);
	assert_non_null(strstr(buf, "using 1:2 with lines lw 5 title 'a'"));
	assert_non_null(strstr(buf, "using 1:3 with lines lw 1.5 title 'b'"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zero_and_coinciding_curves),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
