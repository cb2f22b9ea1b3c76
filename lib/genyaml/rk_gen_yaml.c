/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stream file: libyaml loads the document (marks give the lines),
 * then each stream's mapping is walked into a struct rk_gen_cfg and the
 * stream compiled once, so every error names its line and field.
 */
#include "rk_gen_yaml.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "rk_byteorder.h"
#include "rk_eth.h"
#include "rk_ipv6.h"
#include "rk_opcode.h"

struct ctx {
	yaml_document_t *doc;
	const char *fname;
	char *err;
	size_t errlen;
};

static int
bad(struct ctx *x, uint32_t line, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int
bad(struct ctx *x, uint32_t line, const char *field, const char *fmt, ...)
{
	char reason[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	snprintf(x->err, x->errlen, "%s:%u: field '%s': %s", x->fname, line, field, reason);
	/* one line, whatever bytes the file's keys and values held */
	for (char *p = x->err; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return -EINVAL;
}

static uint32_t
line_of(const yaml_node_t *n)
{
	return (uint32_t)n->start_mark.line + 1;
}

static const char *
scalar(const yaml_node_t *n)
{
	return n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static yaml_node_t *
node(struct ctx *x, int id)
{
	return yaml_document_get_node(x->doc, id);
}

/* A non-negative integer: decimal, 0x hex, 0 octal, or true/false. */
static int
parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (s == NULL || *s == '\0')
		return -EINVAL;
	if (strcasecmp(s, "true") == 0 || strcasecmp(s, "yes") == 0) {
		*v = 1;
		return 0;
	}
	if (strcasecmp(s, "false") == 0 || strcasecmp(s, "no") == 0) {
		*v = 0;
		return 0;
	}
	if (s[0] < '0' || s[0] > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return *end != '\0' || errno != 0 ? -EINVAL : 0;
}

/* The value of field @p f of header @p h written as text: numbers, MACs, IPv4 addresses. */
static int
field_value(int h, const struct rk_field *f, const char *s, uint64_t *v, const char **why)
{
	uint64_t max = f->mask >> __builtin_ctzll(f->mask);
	unsigned int m[6];
	uint8_t a4[4];
	char tail;

	if (f->nbytes == RK_ETH_ALEN && f->mask == RK_MAC48_MASK &&
	    sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5],
		   &tail) == 6) {
		*v = 0;
		for (int i = 0; i < 6; i++)
			*v = *v << 8 | m[i];
		return 0;
	}
	if (h == RK_GEN_H_IPV4 && f->nbytes == 4 && strchr(s, '.') != NULL) {
		if (inet_pton(AF_INET, s, a4) != 1) {
			*why = "not an IPv4 address";
			return -EINVAL;
		}
		*v = rk_get_be32(a4);
		return 0;
	}
	if (f->nbytes == RK_ETH_ALEN && f->mask == RK_MAC48_MASK && strchr(s, ':') != NULL) {
		*why = "not a MAC address (six hex bytes, 02:00:00:00:00:01)";
		return -EINVAL;
	}
	if (parse_u64(s, v) < 0) {
		*why = "not a number";
		return -EINVAL;
	}
	if (*v > max) {
		static _Thread_local char msg[80];

		snprintf(msg, sizeof(msg), "value %s out of range for a %u-bit field", s,
			 __builtin_popcountll(f->mask));
		*why = msg;
		return -EINVAL;
	}
	return 0;
}

static int
add_override(struct rk_gen_cfg *c, int h, const struct rk_field *f, uint64_t v, uint32_t line,
	     const char **why)
{
	struct rk_gen_override *o;

	if (c->noverrides >= RK_GEN_OVERRIDES_MAX) {
		*why = "too many fields set in one stream";
		return -EINVAL;
	}
	o = &c->overrides[c->noverrides++];
	memset(o, 0, sizeof(*o));
	o->ref.hdr = (uint8_t)h;
	o->ref.f = f;
	o->value = v;
	o->line = line;
	return 0;
}

int
rk_gen_cfg_set(struct rk_gen_cfg *c, const char *field, const char *value, uint32_t line,
	       const char **why)
{
	struct rk_gen_ref ref;
	uint64_t v;
	int rc;

	if (value == NULL) {
		*why = "needs a value";
		return -EINVAL;
	}
	if (strncasecmp(field, "ipv6.", 5) == 0 &&
	    (strcasecmp(field + 5, "src") == 0 || strcasecmp(field + 5, "dst") == 0)) {
		uint8_t a6[16];
		const char *half = field[5] == 's' || field[5] == 'S' ? "src_" : "dst_";
		char nm[16];

		if (inet_pton(AF_INET6, value, a6) != 1) {
			*why = "not an IPv6 address";
			return -EINVAL;
		}
		c->ip_version = 6;
		snprintf(nm, sizeof(nm), "%shi", half);
		rc = add_override(c, RK_GEN_H_IPV6, rk_header_field(&rk_ipv6_desc, nm),
				  rk_get_be64(a6), line, why);
		snprintf(nm, sizeof(nm), "%slo", half);
		return rc ? rc : add_override(c, RK_GEN_H_IPV6, rk_header_field(&rk_ipv6_desc, nm),
					      rk_get_be64(a6 + 8), line, why);
	}
	if (rk_gen_ref_parse(&ref, field, why) < 0)
		return -EINVAL;
	if (ref.hdr == RK_GEN_H_PAYLOAD || ref.hdr == RK_GEN_H_ANY) {
		*why = "give its header, as in reth.r_key";
		return -EINVAL;
	}
	if (ref.hdr == RK_GEN_H_BTH && strcmp(ref.f->key, "opcode") == 0) {
		if (rk_gen_opcode_parse(value, &c->opcode) < 0) {
			*why = isdigit((unsigned char)value[0]) ? "an opcode number is 0..255"
								 : "unknown opcode name";
			return -EINVAL;
		}
		return 0;
	}
	if (field_value(ref.hdr, ref.f, value, &v, why) < 0)
		return -EINVAL;
	if (ref.hdr == RK_GEN_H_VLAN)
		c->vlan = true;
	if (ref.hdr == RK_GEN_H_IPV6)
		c->ip_version = 6;
	return add_override(c, ref.hdr, ref.f, v, line, why);
}

static const char *const vary_ops[] = { "inc", "dec", "random", "list" };

static int
vary_op(const char *s)
{
	for (int i = 0; i < 4; i++)
		if (s != NULL && strcasecmp(s, vary_ops[i]) == 0)
			return i;
	return -1;
}

/* A value for ref's field (any number for payload and unqualified names). */
static int
ref_value(const struct rk_gen_ref *ref, const char *s, uint64_t *v, const char **why)
{
	if (ref->f != NULL && ref->hdr != RK_GEN_H_ANY)
		return field_value(ref->hdr, ref->f, s, v, why);
	if (parse_u64(s, v) < 0) {
		*why = "not a number";
		return -EINVAL;
	}
	if (*v > rk_gen_ref_max(ref) && ref->hdr == RK_GEN_H_PAYLOAD) {
		*why = "value wider than the payload bytes varied";
		return -EINVAL;
	}
	return 0;
}

int
rk_gen_cfg_vary(struct rk_gen_cfg *c, const char *spec, const char **why)
{
	char buf[128], *parts[7], *save = NULL;
	int n = 0, op;
	uint64_t u = 0;
	struct rk_gen_vary *v;

	snprintf(buf, sizeof(buf), "%s", spec);
	for (char *p = strtok_r(buf, ":", &save); p != NULL && n < 7; p = strtok_r(NULL, ":", &save))
		parts[n++] = p;
	if (n != 2 && n != 4 && n != 5 && n != 6) {
		*why = "write FIELD:OP or FIELD:OP:MIN:MAX[:STEP[:EVERY]]";
		return -EINVAL;
	}
	if (c->nvary >= RK_GEN_VARY_MAX) {
		*why = "too many variations";
		return -EINVAL;
	}
	v = &c->vary[c->nvary];
	memset(v, 0, sizeof(*v));
	if (rk_gen_ref_parse(&v->ref, parts[0], why) < 0)
		return -EINVAL;
	op = vary_op(parts[1]);
	if (op < 0 || op == RK_GEN_VARY_LIST) {
		*why = "op is inc, dec or random";
		return -EINVAL;
	}
	v->op = (uint8_t)op;
	if (n >= 4 && (ref_value(&v->ref, parts[2], &v->min, why) < 0 ||
		       ref_value(&v->ref, parts[3], &v->max, why) < 0))
		return -EINVAL;
	if (n >= 4 && v->min > v->max) {
		*why = "min above max";
		return -EINVAL;
	}
	/* As the stream file: a step and an every given are at least 1. */
	if (n >= 5 && (parse_u64(parts[4], &v->step) < 0 || v->step == 0)) {
		*why = "step is a number, at least 1";
		return -EINVAL;
	}
	if (n == 6 && (parse_u64(parts[5], &u) < 0 || u == 0 || u > UINT32_MAX)) {
		*why = "every is a frame count, at least 1";
		return -EINVAL;
	}
	v->every = n == 6 ? (uint32_t)u : 0;
	c->nvary++;
	return 0;
}

/* ------------------------------------------------------------ walking */

#define FOR_PAIRS(x, map, kn, vn)                                                       \
	for (yaml_node_pair_t *pr_ = (map)->data.mapping.pairs.start;                   \
	     pr_ < (map)->data.mapping.pairs.top &&                                      \
	     ((kn) = node(x, pr_->key)) != NULL && ((vn) = node(x, pr_->value)) != NULL; \
	     pr_++)

static int
want_map(struct ctx *x, yaml_node_t *n, const char *field)
{
	yaml_node_pair_t *p0, *top;

	if (n->type != YAML_MAPPING_NODE)
		return bad(x, line_of(n), field, "expected a mapping of fields");
	/* YAML keys are unique; libyaml keeps both, and the last would win unseen. */
	p0 = n->data.mapping.pairs.start;
	top = n->data.mapping.pairs.top;
	if (top - p0 > 64)
		return bad(x, line_of(n), field, "more than 64 keys");
	for (yaml_node_pair_t *a = p0; a < top; a++)
		for (yaml_node_pair_t *b = p0; b < a; b++) {
			yaml_node_t *ka = node(x, a->key), *kb = node(x, b->key);

			if (ka != NULL && kb != NULL && scalar(ka) != NULL && scalar(kb) != NULL &&
			    strcmp(scalar(ka), scalar(kb)) == 0)
				return bad(x, line_of(ka), field, "'%s' given twice (first on line %u)",
					   scalar(ka), line_of(kb));
		}
	return 0;
}

static int
get_u64(struct ctx *x, yaml_node_t *n, const char *field, uint64_t max, uint64_t *v)
{
	if (parse_u64(scalar(n), v) < 0 && max == UINT64_MAX)
		return bad(x, line_of(n), field, "'%s' is not a number (0 or more)",
			   scalar(n) != NULL ? scalar(n) : "");
	if (parse_u64(scalar(n), v) < 0)
		return bad(x, line_of(n), field, "'%s' is not a number from 0 to %llu",
			   scalar(n) != NULL ? scalar(n) : "", (unsigned long long)max);
	if (*v > max)
		return bad(x, line_of(n), field, "value %s out of range (0..%llu)", scalar(n),
			   (unsigned long long)max);
	return 0;
}

static int
parse_header(struct ctx *x, struct rk_gen_cfg *c, int h, yaml_node_t *map, const char *hkey)
{
	yaml_node_t *k, *v;
	char field[64];
	const char *why = NULL;

	if (h == RK_GEN_H_VLAN)
		c->vlan = true;
	if (h == RK_GEN_H_IPV6)
		c->ip_version = 6;
	if (map->type == YAML_SCALAR_NODE && scalar(map)[0] == '\0')
		return 0; /* "vlan:" alone: the tag with zeros */
	if (want_map(x, map, hkey) < 0)
		return -EINVAL;
	FOR_PAIRS(x, map, k, v) {
		snprintf(field, sizeof(field), "%s.%s", rk_gen_hdr_key(h), scalar(k) ? scalar(k) : "?");
		if (scalar(v) == NULL)
			return bad(x, line_of(v), field, "expected a value");
		if (rk_gen_cfg_set(c, field, scalar(v), line_of(k), &why) < 0)
			return bad(x, strstr(why, "unknown field") || strstr(why, "unknown header")
					      ? line_of(k) : line_of(v),
				   field, "%s", why);
		if (h == RK_GEN_H_BTH && strcasecmp(scalar(k), "opcode") == 0 && c->train)
			return bad(x, line_of(k), field, "a train sets the opcodes");
	}
	return 0;
}

/* One key of a section map: its name, "section.key" for errors, the nodes. */
struct section_key {
	const char *key;
	const char *s;          /* the value's text; NULL when it is not a scalar */
	char field[48];
	yaml_node_t *k, *v;
};

/* Run @p one over each key of @p map, the section @p section. */
static int
each_key(struct ctx *x, struct rk_gen_cfg *c, yaml_node_t *map, const char *section,
	 int (*one)(struct ctx *, struct rk_gen_cfg *, struct section_key *))
{
	yaml_node_t *k, *v;

	if (want_map(x, map, section) < 0)
		return -EINVAL;
	FOR_PAIRS(x, map, k, v) {
		struct section_key e = { .key = scalar(k) ? scalar(k) : "?", .s = scalar(v),
					 .k = k, .v = v };
		int rc;

		snprintf(e.field, sizeof(e.field), "%s.%s", section, e.key);
		if ((rc = one(x, c, &e)) < 0)
			return rc;
	}
	return 0;
}

/* The sections' plain numbers: "section.key", the largest value, the member. */
#define NUMBER(f, max, m) { f, max, offsetof(struct rk_gen_cfg, m), \
			    sizeof(((struct rk_gen_cfg *)0)->m) }
static const struct {
	const char *field;
	uint64_t max;
	uint16_t off, size;
} numbers[] = {
	NUMBER("payload.len", RK_GEN_FRAME_MAX, payload_len),
	NUMBER("payload.seq_offset", RK_GEN_FRAME_MAX, seq_off),
	NUMBER("payload.stream_id", UINT32_MAX, stream_id),
	NUMBER("train.message", 0x80000000u, payload_len), NUMBER("train.pmtu", 4096, pmtu),
	NUMBER("pause.quanta", 0xffff, pause_quanta),
	NUMBER("pfc.class_enable", 0xff, pfc_class_enable),
	NUMBER("burst.frames", UINT32_MAX, burst_frames),
	NUMBER("burst.gap_us", UINT32_MAX, burst_gap_us),
	NUMBER("on_off.on_us", UINT32_MAX, on_us), NUMBER("on_off.off_us", UINT32_MAX, off_us),
};
#undef NUMBER

/* The words a key takes (any case) and their values; lists end with NULL. */
struct word {
	const char *text;
	int value;
};
static const struct word patterns[] = {
	{ "zero", RK_GEN_PAT_ZERO }, { "inc", RK_GEN_PAT_INC }, { "random", RK_GEN_PAT_RANDOM },
	{ NULL, 0 }
};

/* The value of word @p s in @p w, or -1. */
static int
word(const char *s, const struct word *w)
{
	for (; s != NULL && w->text != NULL; w++)
		if (strcasecmp(s, w->text) == 0)
			return w->value;
	return -1;
}

/* A key of a payload:, train:, pause:, pfc:, burst: or on_off: section. */
static int
section_key(struct ctx *x, struct rk_gen_cfg *c, struct section_key *e)
{
	uint64_t u;

	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
		uint8_t *m = (uint8_t *)c + numbers[i].off;

		if (strcmp(e->field, numbers[i].field) != 0)
			continue;
		if (get_u64(x, e->v, e->field, numbers[i].max, &u) < 0)
			return -EINVAL;
		if (numbers[i].size == 1)
			*m = (uint8_t)u;
		else if (numbers[i].size == 2)
			memcpy(m, &(uint16_t){ (uint16_t)u }, 2);
		else
			memcpy(m, &(uint32_t){ (uint32_t)u }, 4);
		/* What a number implies besides its value. */
		if (strcmp(e->field, "payload.seq_offset") == 0)
			c->seq = true;
		if (strcmp(e->field, "pfc.class_enable") == 0)
			c->pfc_class_enable_set = true;
		if (strcmp(e->field, "train.pmtu") == 0 && u != 256 && u != 512 && u != 1024 &&
		    u != 2048 && u != 4096)
			return bad(x, line_of(e->v), e->field, "256, 512, 1024, 2048 or 4096");
		return 0;
	}
	if (strcmp(e->field, "payload.pattern") == 0) {
		int w = word(e->s, patterns);

		if (w >= 0)
			c->pattern = (uint8_t)w;
		else if (parse_u64(e->s, &u) == 0 && u <= 0xff) {
			c->pattern = RK_GEN_PAT_BYTE;
			c->pattern_byte = (uint8_t)u;
		} else {
			return bad(x, line_of(e->v), e->field,
				   "zero, inc, random or a byte value 0..255");
		}
	} else if (strcmp(e->field, "payload.seq") == 0) {
		if (get_u64(x, e->v, e->field, 1, &u) < 0)
			return -EINVAL;
		c->seq = u != 0;
	} else if (strcmp(e->field, "train.op") == 0) {
		int w = rk_gen_train_parse(e->s);

		if (w < 0)
			return bad(x, line_of(e->v), e->field, RK_GEN_TRAIN_NAMES);
		c->train = (uint8_t)w;
	} else if (strcmp(e->field, "pfc.quanta") == 0) {
		int n = 0;

		if (e->v->type != YAML_SEQUENCE_NODE)
			return bad(x, line_of(e->v), e->field, "a list of 8 pause times");
		for (yaml_node_item_t *it = e->v->data.sequence.items.start;
		     it < e->v->data.sequence.items.top; it++, n++) {
			if (n >= 8)
				return bad(x, line_of(e->v), e->field, "more than 8 priorities");
			if (get_u64(x, node(x, *it), e->field, 0xffff, &u) < 0)
				return -EINVAL;
			c->pfc_quanta[n] = (uint16_t)u;
		}
	} else {
		return bad(x, line_of(e->k), e->field, "unknown field");
	}
	return 0;
}

static int
parse_one_vary(struct ctx *x, struct rk_gen_cfg *c, yaml_node_t *map, int idx)
{
	struct rk_gen_vary *vr;
	yaml_node_t *k, *v, *fnode = NULL;
	char field[64];
	const char *why = NULL;
	uint64_t u;
	int op;

	snprintf(field, sizeof(field), "vary[%d]", idx);
	if (want_map(x, map, field) < 0)
		return -EINVAL;
	if (c->nvary >= RK_GEN_VARY_MAX)
		return bad(x, line_of(map), field, "more than %d variations", RK_GEN_VARY_MAX);
	vr = &c->vary[c->nvary];
	memset(vr, 0, sizeof(*vr));
	vr->line = line_of(map);
	FOR_PAIRS(x, map, k, v)
		if (scalar(k) != NULL && strcmp(scalar(k), "field") == 0)
			fnode = v;
	if (fnode == NULL)
		return bad(x, line_of(map), field, "needs field: the field to vary");
	if (scalar(fnode) == NULL || rk_gen_ref_parse(&vr->ref, scalar(fnode), &why) < 0)
		return bad(x, line_of(fnode), field, "field %s: %s",
			   scalar(fnode) ? scalar(fnode) : "?", why ? why : "not a name");
	vr->op = 0xff;
	FOR_PAIRS(x, map, k, v) {
		const char *key = scalar(k) ? scalar(k) : "?", *s = scalar(v);

		snprintf(field, sizeof(field), "vary[%d].%s", idx, key);
		if (strcmp(key, "field") == 0)
			continue;
		if (strcmp(key, "op") == 0) {
			if ((op = vary_op(s)) < 0)
				return bad(x, line_of(v), field, "inc, dec, random or list");
			vr->op = (uint8_t)op;
		} else if (strcmp(key, "min") == 0 || strcmp(key, "max") == 0 ||
			   strcmp(key, "start") == 0) {
			uint64_t *dst = key[1] == 'i' ? &vr->min : key[1] == 'a' ? &vr->max : &vr->start;

			if (s == NULL || ref_value(&vr->ref, s, dst, &why) < 0)
				return bad(x, line_of(v), field, "%s", s ? why : "expected a value");
			vr->has_start |= key[1] == 't';
		} else if (strcmp(key, "step") == 0 || strcmp(key, "every") == 0 ||
			   strcmp(key, "seed") == 0) {
			if (get_u64(x, v, field, key[1] == 'v' ? UINT32_MAX : UINT64_MAX, &u) < 0)
				return -EINVAL;
			if (key[1] != 'e' && u == 0)
				return bad(x, line_of(v), field, "at least 1");
			if (key[1] == 't')
				vr->step = u;
			else if (key[1] == 'v')
				vr->every = (uint32_t)u;
			else
				vr->seed = u;
		} else if (strcmp(key, "offset") == 0 || strcmp(key, "size") == 0) {
			if (vr->ref.hdr != RK_GEN_H_PAYLOAD)
				return bad(x, line_of(k), field, "only for field: payload");
			if (get_u64(x, v, field, key[0] == 'o' ? RK_GEN_FRAME_MAX : 8, &u) < 0)
				return -EINVAL;
			if (key[0] == 's' && u == 0)
				return bad(x, line_of(v), field, "1 to 8 bytes");
			if (key[0] == 'o')
				vr->ref.off = (uint32_t)u;
			else
				vr->ref.size = (uint8_t)u;
		} else if (strcmp(key, "values") == 0) {
			if (v->type != YAML_SEQUENCE_NODE)
				return bad(x, line_of(v), field, "a list of values");
			for (yaml_node_item_t *it = v->data.sequence.items.start;
			     it < v->data.sequence.items.top; it++) {
				yaml_node_t *e = node(x, *it);

				if (vr->nvalues >= RK_GEN_LIST_MAX)
					return bad(x, line_of(e), field, "more than %d values",
						   RK_GEN_LIST_MAX);
				if (scalar(e) == NULL ||
				    ref_value(&vr->ref, scalar(e), &vr->values[vr->nvalues], &why) < 0)
					return bad(x, line_of(e), field, "%s",
						   scalar(e) ? why : "expected a value");
				vr->nvalues++;
			}
		} else {
			return bad(x, line_of(k), field, "unknown field");
		}
	}
	snprintf(field, sizeof(field), "vary[%d].op", idx);
	if (vr->op == 0xff)
		return bad(x, line_of(map), field, "missing: inc, dec, random or list");
	if ((vr->op == RK_GEN_VARY_LIST) != (vr->nvalues > 0))
		return bad(x, line_of(map), field, vr->nvalues ? "values go with op: list"
								: "op: list needs values");
	snprintf(field, sizeof(field), "vary[%d].min", idx);
	if (vr->max != 0 && vr->min > vr->max)
		return bad(x, line_of(map), field, "min above max");
	c->nvary++;
	return 0;
}

/* ports: an index (0..7) or a list of them: the ports the stream goes to. */
static int
parse_ports(struct ctx *x, struct rk_gen_cfg *c, yaml_node_t *v)
{
	uint64_t u;

	if (v->type == YAML_SCALAR_NODE) {
		if (get_u64(x, v, "ports", RK_GEN_PORT_BITS - 1, &u) < 0)
			return -EINVAL;
		c->ports = (uint8_t)(1u << u);
		return 0;
	}
	if (v->type != YAML_SEQUENCE_NODE || v->data.sequence.items.start == v->data.sequence.items.top)
		return bad(x, line_of(v), "ports", "a port index (0 to %d) or a list of them",
			   RK_GEN_PORT_BITS - 1);
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	     it++) {
		yaml_node_t *n = node(x, *it);

		if (n == NULL || n->type != YAML_SCALAR_NODE)
			return bad(x, line_of(v), "ports", "a list of port indexes");
		if (get_u64(x, n, "ports", RK_GEN_PORT_BITS - 1, &u) < 0)
			return -EINVAL;
		c->ports |= (uint8_t)(1u << u);
	}
	return 0;
}

static int
parse_rate(struct ctx *x, struct rk_gen_cfg *c, yaml_node_t *v)
{
	static const struct { const char *sfx; double mul; uint8_t unit; } units[] = {
		{ "Mpps", 1e6, RK_GEN_RATE_PPS }, { "kpps", 1e3, RK_GEN_RATE_PPS },
		{ "pps", 1, RK_GEN_RATE_PPS },    { "Gbps", 1e9, RK_GEN_RATE_BPS },
		{ "Mbps", 1e6, RK_GEN_RATE_BPS }, { "kbps", 1e3, RK_GEN_RATE_BPS },
		{ "bps", 1, RK_GEN_RATE_BPS },    { "%", 1, RK_GEN_RATE_PERCENT },
		{ "", 1, RK_GEN_RATE_PPS },
	};
	const char *s = scalar(v);
	char *end;
	double r;

	if (s == NULL)
		return bad(x, line_of(v), "rate", "expected a rate");
	r = strtod(s, &end);
	for (size_t i = 0; end != s && i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(end, units[i].sfx) == 0 && r > 0 && r < 1e13 &&
		    (units[i].unit != RK_GEN_RATE_PERCENT || r <= 100)) {
			c->rate = r * units[i].mul;
			c->rate_unit = units[i].unit;
			return 0;
		}
	return bad(x, line_of(v), "rate", "'%s' is not a rate (1Mpps, 10Gbps, 50%%)", s);
}

static int
parse_stream(struct ctx *x, struct rk_gen_cfg *c, yaml_node_t *map, uint32_t idx)
{
	yaml_node_t *k, *v;
	uint64_t u;
	bool v4 = false, v6 = false;
	int h, rc;

	rk_gen_cfg_init(c);
	c->line = line_of(map);
	c->stream_id = idx;
	snprintf(c->name, sizeof(c->name), "stream%u", idx);
	if (want_map(x, map, "streams") < 0)
		return -EINVAL;
	/* train first: it decides whether bth.opcode may be given */
	FOR_PAIRS(x, map, k, v)
		if (scalar(k) != NULL && strcmp(scalar(k), "train") == 0) {
			c->train = RK_GEN_TRAIN_WRITE;
			if ((rc = each_key(x, c, v, "train", section_key)) < 0)
				return rc;
		}
	FOR_PAIRS(x, map, k, v) {
		const char *key = scalar(k) ? scalar(k) : "?", *s = scalar(v);

		rc = 0;
		if (strcmp(key, "train") == 0) {
			continue;
		} else if (strcmp(key, "name") == 0) {
			if (s == NULL)
				return bad(x, line_of(v), key, "expected text");
			snprintf(c->name, sizeof(c->name), "%s", s);
		} else if (strcmp(key, "count") == 0) {
			rc = get_u64(x, v, key, UINT64_MAX, &c->count);
			c->count_set = true;
		} else if (strcmp(key, "seed") == 0) {
			rc = get_u64(x, v, key, UINT64_MAX, &c->seed);
		} else if (strcmp(key, "truncate") == 0) {
			rc = get_u64(x, v, key, RK_GEN_FRAME_MAX, &u);
			if (rc == 0 && u < RK_ETH_HLEN)
				return bad(x, line_of(v), key, "at least the 14-byte Ethernet header");
			c->truncate = (uint32_t)u;
		} else if (strcmp(key, "icrc") == 0) {
			if (s != NULL && strcmp(s, "full") == 0)
				c->icrc = RK_GEN_ICRC_FULL;
			else if (s != NULL && strcmp(s, "incremental") == 0)
				c->icrc = RK_GEN_ICRC_INCREMENTAL;
			else if (s != NULL && strcmp(s, "bad") == 0)
				c->icrc = RK_GEN_ICRC_BAD;
			else
				return bad(x, line_of(v), key, "full, incremental or bad");
		} else if (strcmp(key, "rate") == 0) {
			rc = parse_rate(x, c, v);
		} else if (strcmp(key, "ports") == 0) {
			rc = parse_ports(x, c, v);
		} else if (strcmp(key, "payload") == 0 || strcmp(key, "burst") == 0 ||
			   strcmp(key, "on_off") == 0) {
			rc = each_key(x, c, v, key, section_key);
		} else if (strcmp(key, "pause") == 0 || strcmp(key, "pfc") == 0) {
			if (c->kind == RK_GEN_PFC || c->kind == RK_GEN_PAUSE)
				return bad(x, line_of(k), key, "pause: and pfc: exclude each other");
			c->kind = key[1] == 'f' ? RK_GEN_PFC : RK_GEN_PAUSE;
			rc = each_key(x, c, v, key, section_key);
		} else if (strcmp(key, "vary") == 0) {
			int n = 0;

			if (v->type != YAML_SEQUENCE_NODE)
				return bad(x, line_of(v), key, "a list of variations");
			for (yaml_node_item_t *it = v->data.sequence.items.start;
			     rc == 0 && it < v->data.sequence.items.top; it++)
				rc = parse_one_vary(x, c, node(x, *it), n++);
		} else if ((h = rk_gen_hdr_find(key)) >= 0) {
			v4 |= h == RK_GEN_H_IPV4;
			v6 |= h == RK_GEN_H_IPV6;
			if (v4 && v6)
				return bad(x, line_of(k), key, "a stream is IPv4 or IPv6, not both");
			rc = parse_header(x, c, h, v, key);
		} else {
			return bad(x, line_of(k), key, "unknown field");
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* One document per file: a second one (after ---) would be ignored unseen. */
static int
no_second_document(struct ctx *x, yaml_parser_t *parser)
{
	yaml_document_t next;
	yaml_node_t *r;
	int rc = 0;

	if (!yaml_parser_load(parser, &next))
		return bad(x, (uint32_t)parser->problem_mark.line + 1, "(document)", "YAML: %s",
			   parser->problem ? parser->problem : "error");
	r = yaml_document_get_root_node(&next);
	if (r != NULL)
		rc = bad(x, line_of(r), "(document)", "a second YAML document: one per file");
	yaml_document_delete(&next);
	return rc;
}

int
rk_gen_yaml_parse(const char *buf, size_t len, const char *fname, struct rk_gen_file **out,
		  char *err, size_t errlen)
{
	struct ctx x = { .fname = fname, .err = err, .errlen = errlen };
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root, *k, *v, *streams = NULL;
	struct rk_gen_file *f;
	int rc = 0;

	*out = NULL;
	if (errlen)
		err[0] = '\0';
	f = calloc(1, sizeof(*f));
	if (f == NULL || !yaml_parser_initialize(&parser)) {
		free(f);
		snprintf(err, errlen, "%s:0: field 'streams': out of memory", fname);
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&parser, &doc)) {
		snprintf(err, errlen, "%s:%zu: field '(document)': YAML: %s", fname,
			 parser.problem_mark.line + 1, parser.problem ? parser.problem : "error");
		yaml_parser_delete(&parser);
		free(f);
		return -EINVAL;
	}
	x.doc = &doc;
	root = yaml_document_get_root_node(&doc);
	if (root == NULL || root->type != YAML_MAPPING_NODE) {
		rc = bad(&x, root ? line_of(root) : 1, "streams",
			 "expected a mapping with a streams: list");
		goto out;
	}
	if ((rc = no_second_document(&x, &parser)) < 0)
		goto out;
	FOR_PAIRS(&x, root, k, v) {
		if (scalar(k) != NULL && strcmp(scalar(k), "streams") == 0) {
			streams = v;
			continue;
		}
		rc = bad(&x, line_of(k), scalar(k) ? scalar(k) : "?", "unknown field");
		goto out;
	}
	if (streams == NULL || streams->type != YAML_SEQUENCE_NODE ||
	    streams->data.sequence.items.start == streams->data.sequence.items.top) {
		rc = bad(&x, streams ? line_of(streams) : line_of(root), "streams",
			 "a list of one or more streams");
		goto out;
	}
	for (yaml_node_item_t *it = streams->data.sequence.items.start;
	     it < streams->data.sequence.items.top; it++) {
		struct rk_gen_cfg *c = &f->streams[f->nstreams];
		struct rk_gen_stream *s;
		struct rk_gen_err e = { 0 };

		if (f->nstreams >= RK_GEN_FILE_STREAMS_MAX) {
			rc = bad(&x, line_of(node(&x, *it)), "streams", "more than %d streams",
				 RK_GEN_FILE_STREAMS_MAX);
			goto out;
		}
		if ((rc = parse_stream(&x, c, node(&x, *it), f->nstreams)) < 0)
			goto out;
		if (rk_gen_stream_compile(c, &s, &e) < 0) {
			rc = bad(&x, e.line ? e.line : c->line, e.field, "%s", e.reason);
			goto out;
		}
		rk_gen_stream_free(s);
		f->nstreams++;
	}
out:
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	if (rc < 0) {
		free(f);
		return rc;
	}
	*out = f;
	return 0;
}

void
rk_gen_file_free(struct rk_gen_file *f)
{
	free(f);
}
