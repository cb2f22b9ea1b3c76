/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_cli.h
 * Command-line helpers shared by the tools (rk-sim, rk-inspect) and the apps.
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

/**
 * Print why getopt_long() refused an option, as "PROG: option --x needs
 * an argument" (@p c is ':', with an optstring starting with ':'),
 * "PROG: option --x takes no argument" (a flag given "=value") or
 * "PROG: unknown option --x", on stderr. Call it right after getopt_long()
 * returned ':' or '?'.
 */
static inline void
rk_cli_bad_option(const char *prog, int c, int argc, char **argv)
{
	char name[64];
	const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";

	rk_cli_opt_name(argc, argv, name, sizeof(name));
	if (c == ':')
		fprintf(stderr, "%s: option %s needs an argument\n", prog, name);
	else if (strncmp(arg, "--", 2) == 0 && strchr(arg, '=') != NULL)
		fprintf(stderr, "%s: option %s takes no argument\n", prog, name);
	else
		fprintf(stderr, "%s: unknown option %s\n", prog, name);
}

/**
 * getopt_long() that also refuses an argument that is the next word and
 * starts with "--": the value was forgotten and the next option taken in
 * its place ("--json --list" would write a file named "--list"). It then
 * returns ':', as for a missing argument, with optind back on the option,
 * so rk_cli_refused() names it. "--json=--list" and "-o--x" still pass a
 * value that starts with "--"; optional arguments are never the next word.
 * Takes and returns what getopt_long() does.
 */
static inline int
rk_cli_getopt(int argc, char **argv, const char *shorts, const struct option *longs, int *idx)
{
	int c = getopt_long(argc, argv, shorts, longs, idx);

	if (c != -1 && c != '?' && c != ':' && optarg != NULL && optind >= 2 &&
	    optind <= argc && optarg == argv[optind - 1] &&
	    strncmp(optarg, "--", 2) == 0 && optarg[2] != '\0') {
		optind--;
		optopt = c > 0 && c < 128 ? c : 0;
		return ':';
	}
	return c;
}

/** The one line after a refused option: where to read more. */
static inline void
rk_cli_hint(const char *prog)
{
	fprintf(stderr, "%s: --help for usage\n", prog);
}

/**
 * rk_cli_bad_option()'s line, then rk_cli_hint()'s, except after a
 * missing argument (@p c ':'): "option --x needs an argument" says what
 * to do, one line as a bad value's.
 */
static inline void
rk_cli_refused(const char *prog, int c, int argc, char **argv)
{
	rk_cli_bad_option(prog, c, argc, argv);
	if (c != ':')
		rk_cli_hint(prog);
}

#ifdef RK_VERSION
/** --version: "PROG VERSION (rdmakit)" on stdout. */
static inline void
rk_cli_version(const char *prog)
{
	printf("%s %s (rdmakit)\n", prog, RK_VERSION);
}
#endif

#endif /* RK_CLI_H */
