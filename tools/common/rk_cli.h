/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_cli.h
 * Command-line helpers shared by the tools (rk-sim, rk-inspect).
 */
#ifndef RK_CLI_H
#define RK_CLI_H

#include <getopt.h>
#include <stdio.h>
#include <string.h>

/**
 * The option getopt_long() just refused, for the error message: the long
 * form as typed without its "=value", or the short letter as "-x".
 * Call it right after getopt_long() returned '?'.
 * @return @p buf, holding at most @p len - 1 characters
 */
static inline const char *
rk_cli_opt_name(int argc, char **argv, char *buf, size_t len)
{
	const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";

	if (strncmp(arg, "--", 2) == 0)
		snprintf(buf, len, "%.*s", (int)strcspn(arg, "="), arg);
	else if (optopt > 0 && optopt < 128)
		snprintf(buf, len, "-%c", optopt);
	else
		snprintf(buf, len, "%s", arg);
	return buf;
}

#endif /* RK_CLI_H */
