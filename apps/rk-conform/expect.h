/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file expect.h
 * rk-conform's verdicts file, one case per line, "ID VERDICT" (pass,
 * FAIL, n/a), '#' starting a comment: written by --verdicts, compared
 * with a run by --expect, so a committed file of a DUT's expected
 * verdicts turns a change in its behaviour into a diff.
 */
#ifndef RK_CONFORM_EXPECT_H
#define RK_CONFORM_EXPECT_H

#include <stdio.h>

#include "rk_conform.h"

/** One case's outcome in a run. */
struct rk_cf_outcome {
	const struct rk_conform_case *c;
	struct rk_conform_result res;
	char pcap[512];                 /**< its pcap, or "" */
};

/**
 * Write the verdicts of @p n outcomes to @p path, with @p dut named in a
 * comment. @return 0, or -1 with a message on stderr.
 */
int rk_cf_verdicts_write(const char *path, const char *dut, const struct rk_cf_outcome *out,
			 unsigned int n);

/**
 * Read and check the file @p path as rk_cf_expect_check() would, before a
 * run. @return 0, or -1 with the reason on stderr (unreadable, a
 * directory, a malformed line, an ID listed twice).
 */
int rk_cf_expect_load_check(const char *path);

/**
 * Compare the run's verdicts with the file @p path: a line on @p report
 * for each case whose verdict differs ("DIFF"), each case run that the
 * file lacks ("NEW") and each case of the file matching @p glob (NULL:
 * all) that did not run ("GONE").
 * @return differences found (0: the run matches), or -1 when the file
 *         cannot be read, holds a malformed line or an ID twice (said on
 *         stderr).
 */
int rk_cf_expect_check(const char *path, const struct rk_cf_outcome *out, unsigned int n,
		       const char *glob, FILE *report);

#endif /* RK_CONFORM_EXPECT_H */
