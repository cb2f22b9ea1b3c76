/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verdicts file of rk-conform (see expect.h).
 */
#include "expect.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_LEN 512
#define EXPECT_MAX 1024

struct expected {
	char id[96];
	char verdict[8];
	bool seen;
};

int
rk_cf_verdicts_write(const char *path, const char *dut, const struct rk_cf_outcome *out,
		     unsigned int n)
{
	FILE *f = fopen(path, "w");

	if (f == NULL) {
		fprintf(stderr, "rk-conform: --verdicts %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(f, "# rk-conform verdicts, DUT %s: ID VERDICT (pass, FAIL, n/a)\n", dut);
	for (unsigned int i = 0; i < n; i++)
		fprintf(f, "%s %s\n", out[i].c->id, rk_conform_verdict_name(out[i].res.verdict));
	if (fclose(f) != 0) {
		fprintf(stderr, "rk-conform: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static bool
verdict_known(const char *v)
{
	return strcmp(v, "pass") == 0 || strcmp(v, "FAIL") == 0 || strcmp(v, "n/a") == 0;
}

/* The file's entries into @p e; count, or -1 with a message. */
static int
load(const char *path, struct expected *e, unsigned int cap)
{
	FILE *f = fopen(path, "r");
	char line[LINE_MAX_LEN];
	unsigned int n = 0, lineno = 0;

	if (f == NULL) {
		fprintf(stderr, "rk-conform: --expect %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		char extra[2];
		char *s = line + strspn(line, " \t");

		lineno++;
		/* fgets stops at a newline, never at a NUL: a shorter string is one. */
		if (strlen(line) + 1 < sizeof(line) && strchr(line, '\n') == NULL && !feof(f)) {
			fprintf(stderr, "rk-conform: %s:%u: a NUL byte: not a text file\n", path,
				lineno);
			goto bad;
		}
		if (strchr(line, '\n') == NULL && !feof(f)) {
			fprintf(stderr, "rk-conform: %s:%u: line too long\n", path, lineno);
			goto bad;
		}
		if (*s == '#' || *s == '\n' || *s == 0)
			continue;
		if (n == cap) {
			fprintf(stderr, "rk-conform: %s: more than %u cases\n", path, cap);
			goto bad;
		}
		if (sscanf(s, "%95s %7s %1s", e[n].id, e[n].verdict, extra) != 2 ||
		    !verdict_known(e[n].verdict)) {
			s[strcspn(s, "\r\n")] = 0;
			fprintf(stderr, "rk-conform: %s:%u: \"%.60s\": expected \"ID pass|FAIL|n/a\"\n",
				path, lineno, s);
			goto bad;
		}
		for (unsigned int k = 0; k < n; k++)
			if (strcmp(e[k].id, e[n].id) == 0) {
				fprintf(stderr, "rk-conform: %s:%u: %s listed twice\n", path, lineno,
					e[n].id);
				goto bad;
			}
		e[n++].seen = false;
	}
	if (ferror(f)) {        /* a directory reads as EISDIR */
		fprintf(stderr, "rk-conform: --expect %s: %s\n", path, strerror(errno));
		goto bad;
	}
	fclose(f);
	return (int)n;
bad:
	fclose(f);
	return -1;
}

int
rk_cf_expect_load_check(const char *path)
{
	struct expected *e = calloc(EXPECT_MAX, sizeof(*e));
	int n = e != NULL ? load(path, e, EXPECT_MAX) : -1;

	free(e);
	return n < 0 ? -1 : 0;
}

/* "DIFF id: expected X, got Y (why)", the reason only when there is one. */
static void
say(FILE *report, const char *tag, const char *id, const char *what,
    const struct rk_cf_outcome *o)
{
	fprintf(report, "%s %s: %s%s%s%s\n", tag, id, what, o->res.reason[0] ? " (" : "",
		o->res.reason, o->res.reason[0] ? ")" : "");
}

int
rk_cf_expect_check(const char *path, const struct rk_cf_outcome *out, unsigned int n,
		   const char *glob, FILE *report)
{
	struct expected *e = calloc(EXPECT_MAX, sizeof(*e));
	int ne, diffs = 0;

	if (e == NULL || (ne = load(path, e, EXPECT_MAX)) < 0) {
		free(e);
		return -1;
	}
	for (unsigned int i = 0; i < n; i++) {
		const char *got = rk_conform_verdict_name(out[i].res.verdict);
		char what[48];
		int k;

		for (k = 0; k < ne && strcmp(e[k].id, out[i].c->id) != 0; k++)
			;
		if (k == ne) {
			say(report, "NEW ", out[i].c->id, got, &out[i]);
			diffs++;
			continue;
		}
		e[k].seen = true;
		if (strcmp(e[k].verdict, got) != 0) {
			snprintf(what, sizeof(what), "expected %s, got %s", e[k].verdict, got);
			say(report, "DIFF", out[i].c->id, what, &out[i]);
			diffs++;
		}
	}
	for (int k = 0; k < ne; k++)
		if (!e[k].seen && rk_conform_id_match(glob, e[k].id)) {
			fprintf(report, "GONE %s: expected %s, the case did not run\n", e[k].id,
				e[k].verdict);
			diffs++;
		}
	free(e);
	return diffs;
}
