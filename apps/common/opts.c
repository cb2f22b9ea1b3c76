/* SPDX-License-Identifier: BSD-3-Clause */
/* Option values of the apps (rk_app.h): numbers and size lists. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_app.h"
#include "rk_cc_dcqcn.h"

int
rk_app_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	/* strtoull would take a sign or leading space: a number starts with a digit. */
	if (!isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int
rk_app_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t v;

	if (rk_app_parse_u64(s, min, max, &v) != 0)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

const struct rk_app_word rk_app_words_transport[] = {
	{ "roce", 0 }, { "rocev2", 0 }, { "iwarp", 1 }, { NULL, 0 }
};
const struct rk_app_word rk_app_words_atomic[] = {
	{ "CMP_AND_SWAP", 1 }, { "FETCH_AND_ADD", 0 }, { NULL, 0 }
};

int
rk_app_parse_word(const char *s, const struct rk_app_word *words)
{
	for (; words->word != NULL; words++)
		if (strcmp(s, words->word) == 0)
			return words->value;
	return -1;
}

int
rk_app_parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !(v >= min && v <= max))
		return -1;
	*out = v;
	return 0;
}

int
rk_app_parse_sizes(const char *s, uint32_t min, uint32_t max, uint32_t *sizes, uint32_t nmax,
		   char *err, size_t errlen)
{
	uint32_t n = 0;

	if (*s == '\0') {
		snprintf(err, errlen, "empty list");
		return -1;
	}
	for (const char *tok = s;; tok++) {
		size_t len = strcspn(tok, ",");
		char num[24];
		uint64_t v;

		if (len == 0) {
			snprintf(err, errlen, "empty entry in '%s' (entry %u)", s, n + 1);
			return -1;
		}
		if (n == nmax) {
			snprintf(err, errlen, "'%s' has more than %u sizes", s, nmax);
			return -1;
		}
		snprintf(num, sizeof(num), "%.*s", (int)len, tok);
		if (len >= sizeof(num) || rk_app_parse_u64(num, min, max, &v) != 0) {
			snprintf(err, errlen, "entry %u, '%.*s': expected a size of %u..%u bytes",
				 n + 1, (int)(len > 40 ? 40 : len), tok, min, max);
			return -1;
		}
		sizes[n++] = (uint32_t)v;
		tok += len;
		if (*tok == '\0')
			return (int)n;
	}
}

int
rk_app_dcqcn_param(struct rk_dcqcn_params *p, const char *spec, char *why, size_t wlen)
{
	char name[64];
	const char *eq = strchr(spec, '=');
	int rc;

	if (eq == NULL || eq == spec || (size_t)(eq - spec) >= sizeof(name)) {
		snprintf(why, wlen, "--dcqcn-param: expected name=value, got '%s'", spec);
		return -1;
	}
	memcpy(name, spec, (size_t)(eq - spec));
	name[eq - spec] = '\0';
	rc = rk_dcqcn_param_set(p, name, eq + 1);
	if (rc == -ENOENT)
		snprintf(why, wlen, "--dcqcn-param: no DCQCN parameter '%s' (NVIDIA names, such as "
			 "rpg_ai_rate; see doc/congestion.md)", name);
	else if (rc != 0) {
		uint64_t lo = 0, hi = 0;

		rk_dcqcn_param_range(name, &lo, &hi);
		if (rc == -ERANGE)
			snprintf(why, wlen, "--dcqcn-param %s: value '%s' out of range %" PRIu64
				 "..%" PRIu64, name, eq + 1, lo, hi);
		else
			snprintf(why, wlen, "--dcqcn-param %s: value '%s' is not a number (an "
				 "integer %" PRIu64 "..%" PRIu64 ")", name, eq + 1, lo, hi);
	}
	return rc == 0 ? 0 : -1;
}
