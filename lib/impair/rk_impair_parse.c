/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Impairment rules as text ("qp=0x11 psn=100-199 drop-every=10"): the
 * syntax of rk-testpmd's "impair add" and of any tool that loads rules.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_impair.h"

#define WORD_MAX 64

static int
fail(char *err, unsigned int errlen, const char *what, const char *word)
{
	if (err != NULL && errlen > 0)
		snprintf(err, errlen, "%s: \"%s\"", what, word);
	return -EINVAL;
}

/* A number, decimal or 0x hex, whole string, <= max. */
static bool
num(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s == '\0' || *s == '-' || *s == '+')
		return false;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno != 0 || *end != '\0' || v > max)
		return false;
	*out = v;
	return true;
}

/* N or N-M, N <= M <= max. */
static bool
range(const char *s, uint64_t max, uint32_t *lo, uint32_t *hi)
{
	char a[WORD_MAX];
	const char *dash = strchr(s, '-');
	uint64_t x, y;

	if (dash == NULL) {
		if (!num(s, max, &x))
			return false;
		*lo = *hi = (uint32_t)x;
		return true;
	}
	if ((size_t)(dash - s) >= sizeof(a))
		return false;
	memcpy(a, s, (size_t)(dash - s));
	a[dash - s] = '\0';
	if (!num(a, max, &x) || !num(dash + 1, max, &y) || x > y)
		return false;
	*lo = (uint32_t)x;
	*hi = (uint32_t)y;
	return true;
}

static bool
prob(const char *s, double *out)
{
	char *end;
	double v;

	if (*s == '\0')
		return false;
	v = strtod(s, &end);
	if (*end != '\0' || !(v >= 0.0 && v <= 1.0))
		return false;
	*out = v;
	return true;
}

static const char *const forge_names[] = {
	[RK_IMPAIR_FORGE_NAK_SEQ] = "nak-seq", [RK_IMPAIR_FORGE_NAK_INV] = "nak-inv",
	[RK_IMPAIR_FORGE_NAK_RAE] = "nak-rae", [RK_IMPAIR_FORGE_NAK_ROP] = "nak-rop",
	[RK_IMPAIR_FORGE_RNR] = "rnr", [RK_IMPAIR_FORGE_CNP] = "cnp",
};

/* The RNR timer code an RNR NAK carries by default: 1.28 ms (IBTA Vol1 Table 45). */
#define FORGE_RNR_DEFAULT 14

static int
forge_parse(const char *v, struct rk_impair_rule *r)
{
	uint64_t t;

	if (strncmp(v, "rnr", 3) == 0 && (v[3] == '\0' || v[3] == ':')) {
		if (v[3] == ':' && !num(v + 4, 31, &t))
			return -1;
		r->forge = RK_IMPAIR_FORGE_RNR;
		r->forge_arg = v[3] == ':' ? (uint8_t)t : FORGE_RNR_DEFAULT;
		return 0;
	}
	for (unsigned int i = 1; i < sizeof(forge_names) / sizeof(forge_names[0]); i++)
		if (i != RK_IMPAIR_FORGE_RNR && strcmp(v, forge_names[i]) == 0) {
			r->forge = (enum rk_impair_forge)i;
			return 0;
		}
	return -1;
}

static int
word(const char *w, struct rk_impair_rule *r, char *err, unsigned int errlen)
{
	char key[WORD_MAX];
	const char *eq = strchr(w, '=');
	const char *v;
	uint32_t lo, hi;
	uint64_t x;

	if (eq == NULL || eq == w || (size_t)(eq - w) >= sizeof(key))
		return fail(err, errlen, "expected key=value", w);
	memcpy(key, w, (size_t)(eq - w));
	key[eq - w] = '\0';
	v = eq + 1;

	if (strcmp(key, "qp") == 0) {
		if (!range(v, 0xffffff, &lo, &hi))
			return fail(err, errlen, "qp wants N or N-M below 2^24", w);
		r->match.by_qp = true;
		r->match.qp_min = lo;
		r->match.qp_max = hi;
	} else if (strcmp(key, "opcode") == 0) {
		if (!range(v, 0xff, &lo, &hi))
			return fail(err, errlen, "opcode wants N or N-M up to 255", w);
		r->match.by_opcode = true;
		r->match.opcode_min = (uint8_t)lo;
		r->match.opcode_max = (uint8_t)hi;
	} else if (strcmp(key, "psn") == 0) {
		if (!range(v, 0xffffff, &lo, &hi))
			return fail(err, errlen, "psn wants N or N-M below 2^24", w);
		r->match.by_psn = true;
		r->match.psn_min = lo;
		r->match.psn_max = hi;
	} else if (strcmp(key, "proto") == 0) {
		if (!num(v, 255, &x) || x == 0)
			return fail(err, errlen, "proto wants 1..255", w);
		r->match.ip_proto = (uint8_t)x;
	} else if (strcmp(key, "drop-every") == 0) {
		if (!num(v, UINT32_MAX, &x) || x == 0)
			return fail(err, errlen, "drop-every wants 1..2^32-1", w);
		r->drop_every = (uint32_t)x;
	} else if (strcmp(key, "loss") == 0) {
		if (!prob(v, &r->loss))
			return fail(err, errlen, "loss wants 0..1", w);
	} else if (strcmp(key, "dup") == 0) {
		if (!prob(v, &r->dup))
			return fail(err, errlen, "dup wants 0..1", w);
	} else if (strcmp(key, "corrupt") == 0) {
		if (!prob(v, &r->corrupt))
			return fail(err, errlen, "corrupt wants 0..1", w);
	} else if (strcmp(key, "ecn-ce") == 0) {
		if (!prob(v, &r->ecn_ce))
			return fail(err, errlen, "ecn-ce wants 0..1", w);
	} else if (strcmp(key, "delay") == 0) {
		if (!num(v, UINT64_MAX / 4, &r->delay_ns))
			return fail(err, errlen, "delay wants ns", w);
	} else if (strcmp(key, "jitter") == 0) {
		if (!num(v, UINT64_MAX / 4, &r->jitter_ns))
			return fail(err, errlen, "jitter wants ns", w);
	} else if (strcmp(key, "reorder") == 0) {
		char p[WORD_MAX];
		const char *colon = strchr(v, ':');

		if (colon == NULL || (size_t)(colon - v) >= sizeof(p))
			return fail(err, errlen, "reorder wants P:NS", w);
		memcpy(p, v, (size_t)(colon - v));
		p[colon - v] = '\0';
		if (!prob(p, &r->reorder) || !num(colon + 1, UINT64_MAX / 4, &r->reorder_ns))
			return fail(err, errlen, "reorder wants P:NS", w);
	} else if (strcmp(key, "mtu") == 0) {
		if (!num(v, 65535, &x) || x == 0)
			return fail(err, errlen, "mtu wants 1..65535", w);
		r->mtu = (uint32_t)x;
	} else if (strcmp(key, "count") == 0) {
		if (!num(v, UINT64_MAX, &r->count) || r->count == 0)
			return fail(err, errlen, "count wants 1..2^64-1", w);
	} else if (strcmp(key, "forge") == 0) {
		if (forge_parse(v, r) != 0)
			return fail(err, errlen,
				    "forge wants nak-seq, nak-inv, nak-rae, nak-rop, rnr[:0..31] or cnp", w);
	} else if (strcmp(key, "seed") == 0) {
		if (!num(v, UINT64_MAX, &r->seed))
			return fail(err, errlen, "seed wants a number", w);
	} else {
		return fail(err, errlen, "unknown key", key);
	}
	return 0;
}

int
rk_impair_rule_parse(const char *text, struct rk_impair_rule *r, char *err,
		     unsigned int errlen)
{
	char w[WORD_MAX];
	const char *p = text;
	unsigned int n = 0;
	int rc;

	memset(r, 0, sizeof(*r));
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (text == NULL)
		return fail(err, errlen, "empty rule", "");
	for (;;) {
		size_t len;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0' || *p == '\n' || *p == '#')
			break;
		len = strcspn(p, " \t\n");
		if (len >= sizeof(w)) {
			memcpy(w, p, sizeof(w) - 1);
			w[sizeof(w) - 1] = '\0';
			return fail(err, errlen, "word too long", w);
		}
		memcpy(w, p, len);
		w[len] = '\0';
		p += len;
		if ((rc = word(w, r, err, errlen)) != 0)
			return rc;
		n++;
	}
	if (n == 0)
		return fail(err, errlen, "empty rule", text);
	if ((r->match.by_qp || r->match.by_opcode || r->match.by_psn) && r->match.ip_proto == 0)
		r->match.ip_proto = 17;
	/* "delay=0" and the like: no match and no action, nothing to write back */
	rk_impair_rule_format(r, w, sizeof(w));
	if (strcmp(w, "(any)") == 0)
		return fail(err, errlen, "the rule matches nothing and does nothing", text);
	return 0;
}

int
rk_impair_rule_format(const struct rk_impair_rule *r, char *buf, unsigned int len)
{
	char tmp[512];
	int n = 0;
	const struct rk_impair_match *m = &r->match;

#define PUT(...) n += snprintf(tmp + n, sizeof(tmp) - (size_t)n, __VA_ARGS__)
	if (m->by_qp)
		PUT(" qp=0x%x-0x%x", m->qp_min, m->qp_max);
	if (m->by_opcode)
		PUT(" opcode=%u-%u", m->opcode_min, m->opcode_max);
	if (m->by_psn)
		PUT(" psn=%u-%u", m->psn_min, m->psn_max);
	if (m->ip_proto != 0)
		PUT(" proto=%u", m->ip_proto);
	if (r->drop_every != 0)
		PUT(" drop-every=%u", r->drop_every);
	if (r->loss > 0)
		PUT(" loss=%g", r->loss);
	if (r->dup > 0)
		PUT(" dup=%g", r->dup);
	if (r->corrupt > 0)
		PUT(" corrupt=%g", r->corrupt);
	if (r->ecn_ce > 0)
		PUT(" ecn-ce=%g", r->ecn_ce);
	if (r->delay_ns != 0)
		PUT(" delay=%" PRIu64, r->delay_ns);
	if (r->jitter_ns != 0)
		PUT(" jitter=%" PRIu64, r->jitter_ns);
	if (r->reorder > 0)
		PUT(" reorder=%g:%" PRIu64, r->reorder, r->reorder_ns);
	if (r->mtu != 0)
		PUT(" mtu=%u", r->mtu);
	if (r->seed != 0)
		PUT(" seed=%" PRIu64, r->seed);
	if (r->count != 0)
		PUT(" count=%" PRIu64, r->count);
	if (r->forge == RK_IMPAIR_FORGE_RNR)
		PUT(" forge=rnr:%u", r->forge_arg);
	else if (r->forge > RK_IMPAIR_FORGE_NONE && r->forge <= RK_IMPAIR_FORGE_CNP)
		PUT(" forge=%s", forge_names[r->forge]);
#undef PUT
	if (n == 0)
		n = snprintf(tmp, sizeof(tmp), " (any)");
	snprintf(buf, len, "%s", tmp + 1);
	return n - 1;
}
