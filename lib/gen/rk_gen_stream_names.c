/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The names of a stream file: headers, fields, opcodes and trains, parsed
 * into references, and where a reference sits in a template.
 */
#include "rk_gen_stream.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rk_bth.h"
#include "rk_eth.h"
#include "rk_gen_stream_priv.h"
#include "rk_ipv4.h"
#include "rk_ipv6.h"
#include "rk_opcode.h"
#include "rk_udp.h"
#include "rk_xeth.h"

static const struct {
	const char *key;
	const struct rk_header_desc *desc;
	int xeth; /* enum rk_hdr of an extended header, -1 otherwise */
} hdrs[RK_GEN_H_COUNT] = {
	[RK_GEN_H_ETH] = { "eth", &rk_eth_desc, -1 },
	[RK_GEN_H_VLAN] = { "vlan", &rk_vlan_desc, -1 },
	[RK_GEN_H_IPV4] = { "ipv4", &rk_ipv4_desc, -1 },
	[RK_GEN_H_IPV6] = { "ipv6", &rk_ipv6_desc, -1 },
	[RK_GEN_H_UDP] = { "udp", &rk_udp_desc, -1 },
	[RK_GEN_H_BTH] = { "bth", &rk_bth_desc, -1 },
	[RK_GEN_H_RDETH] = { "rdeth", &rk_rdeth_desc, RK_HDR_RDETH },
	[RK_GEN_H_DETH] = { "deth", &rk_deth_desc, RK_HDR_DETH },
	[RK_GEN_H_XRCETH] = { "xrceth", &rk_xrceth_desc, RK_HDR_XRCETH },
	[RK_GEN_H_FETH] = { "feth", &rk_feth_desc, RK_HDR_FETH },
	[RK_GEN_H_RETH] = { "reth", &rk_reth_desc, RK_HDR_RETH },
	[RK_GEN_H_ATMETH] = { "atomiceth", &rk_atmeth_desc, RK_HDR_ATMETH },
	[RK_GEN_H_AETH] = { "aeth", &rk_aeth_desc, RK_HDR_AETH },
	[RK_GEN_H_ATMACK] = { "atomicacketh", &rk_atmack_desc, RK_HDR_ATMACK },
	[RK_GEN_H_IMMDT] = { "immdt", &rk_immdt_desc, RK_HDR_IMMDT },
	[RK_GEN_H_IETH] = { "ieth", &rk_ieth_desc, RK_HDR_IETH },
	[RK_GEN_H_PAYLOAD] = { "payload", NULL, -1 },
	[RK_GEN_H_ANY] = { "?", NULL, -1 },
};

int
rk_gen_hdr_find(const char *name)
{
	for (int h = 0; h < RK_GEN_H_PAYLOAD; h++)
		if (strcasecmp(name, hdrs[h].key) == 0 || strcasecmp(name, hdrs[h].desc->name) == 0)
			return h;
	return -1;
}

const char *
rk_gen_hdr_key(enum rk_gen_hdr h)
{
	return (unsigned int)h < RK_GEN_H_COUNT ? hdrs[h].key : "?";
}

const struct rk_header_desc *
rk_gen_hdr_desc(enum rk_gen_hdr h)
{
	return (unsigned int)h < RK_GEN_H_COUNT ? hdrs[h].desc : NULL;
}

/* Headers an unqualified name is looked up in, in wire order. */
static bool
unqualified_home(int h)
{
	return h == RK_GEN_H_UDP || (h >= RK_GEN_H_BTH && h <= RK_GEN_H_IETH);
}

int
rk_gen_ref_parse(struct rk_gen_ref *ref, const char *name, const char **why)
{
	const char *dot = strchr(name, '.');
	char hname[24];
	int h, found = 0;

	memset(ref, 0, sizeof(*ref));
	if (strcmp(name, "payload") == 0) {
		ref->hdr = RK_GEN_H_PAYLOAD;
		ref->size = 4;
		return 0;
	}
	if (dot != NULL) {
		if ((size_t)(dot - name) >= sizeof(hname) ||
		    (h = (snprintf(hname, sizeof(hname), "%.*s", (int)(dot - name), name),
			  rk_gen_hdr_find(hname))) < 0) {
			*why = "unknown header";
			return -ENOENT;
		}
		ref->hdr = (uint8_t)h;
		ref->f = rk_header_field(hdrs[h].desc, dot + 1);
		if (ref->f == NULL) {
			*why = "unknown field";
			return -ENOENT;
		}
		return 0;
	}
	for (h = 0; h < RK_GEN_H_PAYLOAD; h++) {
		const struct rk_field *f = rk_header_field(hdrs[h].desc, name);

		if (f == NULL)
			continue;
		if (!unqualified_home(h)) {
			*why = "give its header, as in ipv4.src or eth.dst";
			return -ENOENT;
		}
		if (found++ == 0) {
			ref->hdr = (uint8_t)h;
			ref->f = f;
		}
	}
	if (found == 0) {
		*why = "unknown field";
		return -ENOENT;
	}
	if (found > 1) { /* R_Key, VA: resolved in each frame */
		ref->hdr = RK_GEN_H_ANY;
		snprintf(ref->name, sizeof(ref->name), "%s", name);
	}
	return 0;
}

uint64_t
rk_gen_ref_max(const struct rk_gen_ref *ref)
{
	if (ref->hdr == RK_GEN_H_PAYLOAD)
		return RK_FIELD_ONES(ref->size);
	if (ref->f == NULL)
		return 0;
	return ref->f->mask >> __builtin_ctzll(ref->f->mask);
}

/* Upper case, separators as one '_', "RDMA_" dropped. */
static void
opcode_norm(const char *s, char *out, size_t cap)
{
	size_t n = 0;

	for (; *s != '\0' && n + 1 < cap; s++) {
		char c = (char)toupper((unsigned char)*s);

		if (c == ' ' || c == '-')
			c = '_';
		if (c == '_' && (n == 0 || out[n - 1] == '_'))
			continue;
		out[n++] = c;
		if (n >= 5 && memcmp(out + n - 5, "RDMA_", 5) == 0 &&
		    (n == 5 || out[n - 6] == '_'))
			n -= 5;
	}
	out[n] = '\0';
}

int
rk_gen_train_parse(const char *s)
{
	static const char *const names[] = {
		[RK_GEN_TRAIN_WRITE] = "WRITE", [RK_GEN_TRAIN_SEND] = "SEND",
		[RK_GEN_TRAIN_READ_RESP] = "READ_RESPONSE", [RK_GEN_TRAIN_READ] = "READ",
		[RK_GEN_TRAIN_ACK] = "ACK",
	};

	for (unsigned int i = RK_GEN_TRAIN_WRITE; s != NULL && i <= RK_GEN_TRAIN_ACK; i++)
		if (strcasecmp(s, names[i]) == 0)
			return (int)i;
	return -EINVAL;
}

int
rk_gen_opcode_parse(const char *s, uint8_t *opcode)
{
	char want[64], rc_want[68], name[64];
	char *end;
	unsigned long v;

	if (s == NULL || *s == '\0')
		return -EINVAL;
	if (isdigit((unsigned char)s[0])) {
		v = strtoul(s, &end, 0);
		if (*end != '\0' || v > 0xff)
			return -EINVAL;
		*opcode = (uint8_t)v;
		return 0;
	}
	opcode_norm(s, want, sizeof(want));
	snprintf(rc_want, sizeof(rc_want), "RC_%s", want);
	for (unsigned int op = 0; op < 256; op++) {
		const struct rk_opcode_info *oi = rk_opcode_info((uint8_t)op);

		if (oi->name == NULL)
			continue;
		opcode_norm(oi->name, name, sizeof(name));
		if (strcmp(name, want) == 0 || strcmp(name, rc_want) == 0) {
			*opcode = (uint8_t)op;
			return 0;
		}
	}
	return -EINVAL;
}

void
rk_gen_cfg_init(struct rk_gen_cfg *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "stream");
	c->kind = RK_GEN_ROCEV2;
	c->ip_version = 4;
	c->opcode = RK_OP_SEND_ONLY;
	c->payload_len = RK_GEN_PAYLOAD_DEFAULT;
	c->icrc = RK_GEN_ICRC_INCREMENTAL;
	c->pmtu = 1024;
}

/* Offset of header h in template t, or -1 when the frame has none. */
static int64_t
hdr_off(const struct rk_gen_stream *s, const struct tmpl *t, int h)
{
	const struct rk_opcode_info *oi;
	uint32_t l2 = RK_ETH_HLEN + (s->cfg.vlan ? RK_VLAN_HLEN : 0);

	switch (h) {
	case RK_GEN_H_ETH:
		return 0;
	case RK_GEN_H_VLAN:
		return t->roce && s->cfg.vlan ? (int64_t)RK_ETH_HLEN : -1;
	case RK_GEN_H_IPV4:
		return t->roce && s->cfg.ip_version == 4 ? (int64_t)l2 : -1;
	case RK_GEN_H_IPV6:
		return t->roce && s->cfg.ip_version == 6 ? (int64_t)l2 : -1;
	case RK_GEN_H_UDP:
		return t->roce ? (int64_t)t->l4 : -1;
	case RK_GEN_H_BTH:
		return t->roce ? (int64_t)t->bth : -1;
	case RK_GEN_H_PAYLOAD:
		return t->roce ? (int64_t)t->payload_off : -1;
	default:
		if (!t->roce || hdrs[h].xeth < 0)
			return -1;
		oi = rk_opcode_info(t->opcode);
		if (!(oi->flags & RK_OPF_VALID) || !(oi->hdrs & (1u << hdrs[h].xeth)))
			return -1;
		return t->bth + oi->off[hdrs[h].xeth];
	}
}

bool
rk_gen_ref_place(const struct rk_gen_stream *s, const struct tmpl *t, const struct rk_gen_ref *ref,
		 uint32_t *off, uint8_t *n, uint64_t *mask)
{
	int64_t base;

	if (ref->hdr == RK_GEN_H_ANY) {
		for (int h = RK_GEN_H_BTH; h <= RK_GEN_H_IETH; h++) {
			const struct rk_field *f = rk_header_field(hdrs[h].desc, ref->name);
			struct rk_gen_ref r = { .hdr = (uint8_t)h, .f = f };

			if (f != NULL && hdr_off(s, t, h) >= 0)
				return rk_gen_ref_place(s, t, &r, off, n, mask);
		}
		return false;
	}
	base = hdr_off(s, t, ref->hdr);
	if (base < 0)
		return false;
	if (ref->hdr == RK_GEN_H_PAYLOAD) {
		if ((uint64_t)ref->off + ref->size > t->payload_len)
			return false;
		*off = (uint32_t)base + ref->off;
		*n = ref->size;
		*mask = RK_FIELD_ONES(ref->size);
		return true;
	}
	*off = (uint32_t)base + ref->f->byte_off;
	*n = ref->f->nbytes;
	*mask = ref->f->mask;
	return true;
}

void
rk_gen_ref_name(const struct rk_gen_ref *ref, char *buf, size_t cap)
{
	if (ref->hdr == RK_GEN_H_ANY)
		snprintf(buf, cap, "%s", ref->name);
	else if (ref->hdr == RK_GEN_H_PAYLOAD)
		snprintf(buf, cap, "payload");
	else
		snprintf(buf, cap, "%s.%s", hdrs[ref->hdr].key, ref->f->key);
}
