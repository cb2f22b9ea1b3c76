/* SPDX-License-Identifier: BSD-3-Clause */
#include "rk_gen_stream.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rk_bth.h"
#include "rk_build.h"
#include "rk_eth.h"
#include "rk_gen_icrc.h"
#include "rk_gen_stream_priv.h"
#include "rk_ipv4.h"
#include "rk_ipv6.h"
#include "rk_opcode.h"
#include "rk_pkt.h"
#include "rk_rand.h"
#include "rk_udp.h"
#include "rk_xeth.h"

/* ------------------------------------------------------------ headers */

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

/* ------------------------------------------------------------ templates */

static int
fail(struct rk_gen_err *err, uint32_t line, const char *field, int rc, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int
fail(struct rk_gen_err *err, uint32_t line, const char *field, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL) {
		err->line = line;
		snprintf(err->field, sizeof(err->field), "%s", field);
		va_start(ap, fmt);
		vsnprintf(err->reason, sizeof(err->reason), fmt, ap);
		va_end(ap);
	}
	return rc;
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

/* Resolve ref in template t: container offset, size and mask; false if absent. */
static bool
ref_place(const struct rk_gen_stream *s, const struct tmpl *t, const struct rk_gen_ref *ref,
	  uint32_t *off, uint8_t *n, uint64_t *mask)
{
	int64_t base;

	if (ref->hdr == RK_GEN_H_ANY) {
		for (int h = RK_GEN_H_BTH; h <= RK_GEN_H_IETH; h++) {
			const struct rk_field *f = rk_header_field(hdrs[h].desc, ref->name);
			struct rk_gen_ref r = { .hdr = (uint8_t)h, .f = f };

			if (f != NULL && hdr_off(s, t, h) >= 0)
				return ref_place(s, t, &r, off, n, mask);
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

/* Whether ref is in any template of s. */
static bool
any_place(const struct rk_gen_stream *s, const struct rk_gen_ref *ref)
{
	uint32_t off;
	uint8_t n;
	uint64_t mask;

	for (uint32_t ti = 0; ti < s->ntmpl; ti++)
		if (ref_place(s, &s->t[ti], ref, &off, &n, &mask))
			return true;
	return false;
}

static void
ref_name(const struct rk_gen_ref *ref, char *buf, size_t cap)
{
	if (ref->hdr == RK_GEN_H_ANY)
		snprintf(buf, cap, "%s", ref->name);
	else if (ref->hdr == RK_GEN_H_PAYLOAD)
		snprintf(buf, cap, "payload");
	else
		snprintf(buf, cap, "%s.%s", hdrs[ref->hdr].key, ref->f->key);
}

static void
fill_payload(const struct rk_gen_cfg *c, uint8_t *p, uint32_t len, uint64_t base)
{
	uint64_t st = c->seed;

	for (uint32_t k = 0; k < len; k++) {
		switch (c->pattern) {
		case RK_GEN_PAT_INC:
			p[k] = (uint8_t)(base + k);
			break;
		case RK_GEN_PAT_BYTE:
			p[k] = c->pattern_byte;
			break;
		case RK_GEN_PAT_RANDOM:
			if ((k & 7) == 0)
				st = c->seed ^ ((base + k) * 0x9e3779b97f4a7c15ull);
			p[k] = (uint8_t)(rk_splitmix64(&st) >> 56);
			break;
		default:
			p[k] = 0;
		}
	}
}

static int
build_roce(struct rk_gen_stream *s, struct tmpl *t, uint8_t opcode, uint32_t payload_len,
	   uint64_t pattern_base, uint32_t msg_len)
{
	const struct rk_gen_cfg *c = &s->cfg;
	struct rk_roce_addr a = {
		.dst_mac = { 0x02, 0, 0, 0, 0, 0x02 },
		.src_mac = { 0x02, 0, 0, 0, 0, 0x01 },
		.vlan = c->vlan,
		.ip_version = c->ip_version,
		.ttl = 64,
		.src_port = 0xc000,
		.df = true,
	};
	struct rk_bth_fields b = { .opcode = opcode, .p_key = 0xffff, .dest_qp = 0x11 };
	struct rk_xeth_fields x = { 0 };
	const struct rk_opcode_info *oi = rk_opcode_info(opcode);
	uint8_t *payload;
	int n;

	if (c->ip_version == 4) {
		memcpy(a.src_ip + 10, "\xff\xff\xc6\x12\x00\x01", 6);
		memcpy(a.dst_ip + 10, "\xff\xff\xc6\x12\x00\x02", 6);
	} else {
		/* 2001:2::/48, the IPv6 benchmarking range (RFC 5180) */
		memcpy(a.src_ip, "\x20\x01\x00\x02", 4);
		memcpy(a.dst_ip, "\x20\x01\x00\x02", 4);
		a.src_ip[15] = 1;
		a.dst_ip[15] = 2;
	}
	if (oi->flags & (RK_OPF_WRITE | RK_OPF_READ_REQ))
		x.reth_dma_len = msg_len;
	if (oi->flags & RK_OPF_ACK)
		x.aeth_syndrome = 0x1f; /* ACK, credits not tracked */
	payload = calloc(1, payload_len ? payload_len : 1);
	if (payload == NULL)
		return -ENOMEM;
	fill_payload(c, payload, payload_len, pattern_base);
	n = rk_build_rocev2(t->frame, sizeof(t->frame), &a, &b, &x, payload, payload_len);
	free(payload);
	if (n < 0)
		return n == -ENOSPC ? -EMSGSIZE : n;
	t->roce = true;
	t->opcode = opcode;
	t->len = (uint32_t)n;
	t->l3 = RK_ETH_HLEN + (c->vlan ? RK_VLAN_HLEN : 0);
	t->l4 = t->l3 + (c->ip_version == 4 ? RK_IPV4_HLEN : RK_IPV6_HLEN);
	t->bth = t->l4 + RK_UDP_HLEN;
	t->payload_off = t->bth + ((oi->flags & RK_OPF_VALID) ? oi->hdr_len : RK_BTH_LEN);
	t->payload_len = payload_len;
	t->icrc_off = t->len - RK_ICRC_LEN;
	return 0;
}

static int
build_mac_control(struct rk_gen_stream *s, struct tmpl *t)
{
	const struct rk_gen_cfg *c = &s->cfg;
	static const uint8_t src[6] = { 0x02, 0, 0, 0, 0, 0x01 };
	uint8_t ce = c->pfc_class_enable;
	int n;

	if (c->kind == RK_GEN_PAUSE) {
		n = rk_build_pause(t->frame, sizeof(t->frame), src, c->pause_quanta);
	} else {
		if (!c->pfc_class_enable_set)
			for (int p = 0; p < 8; p++)
				ce |= (uint8_t)(c->pfc_quanta[p] ? 1u << p : 0);
		n = rk_build_pfc(t->frame, sizeof(t->frame), src, ce, c->pfc_quanta);
	}
	if (n < 0)
		return n;
	t->len = (uint32_t)n;
	t->roce = false;
	return 0;
}

static uint32_t
full_icrc(const struct tmpl *t)
{
	return rk_rocev2_icrc(t->frame + t->l3, t->icrc_off - t->l3);
}

static void
write_field(uint8_t *p, uint8_t n, uint64_t mask, uint8_t shift, uint64_t v)
{
	uint64_t cont = rk_field_load_be(p, n);

	rk_field_store_be(p, n, (cont & ~mask) | ((v << shift) & mask));
}

static bool
is_field(const struct rk_gen_ref *r, int h, const struct rk_field *f)
{
	return r->hdr == h && r->f == f;
}

/* Overrides, checksum, ICRC, the varied fields' tables. */
static int
finish_tmpl(struct rk_gen_stream *s, struct tmpl *t, struct rk_gen_err *err)
{
	const struct rk_gen_cfg *c = &s->cfg;
	const struct rk_field *csum_f = rk_header_field(&rk_ipv4_desc, "hdr_csum");
	bool csum_pinned = false;
	char nm[64];
	uint32_t off;
	uint8_t n;
	uint64_t mask;

	for (uint32_t k = 0; k < c->noverrides; k++) {
		const struct rk_gen_override *o = &c->overrides[k];

		if (!ref_place(s, t, &o->ref, &off, &n, &mask)) {
			/* a train's RETH, AETH: only in the packets that carry one */
			if (s->ntmpl > 1 && t != &s->t[s->ntmpl - 1])
				continue;
			if (s->ntmpl > 1 && any_place(s, &o->ref))
				continue;
			ref_name(&o->ref, nm, sizeof(nm));
			return fail(err, o->line, nm, -EINVAL, "the frame has no such field (%s)",
				    t->roce ? rk_opcode_info(t->opcode)->name
						      ? rk_opcode_info(t->opcode)->name
						      : "reserved opcode"
					    : c->kind == RK_GEN_PAUSE ? "PAUSE" : "PFC");
		}
		write_field(t->frame + off, n, mask, (uint8_t)__builtin_ctzll(mask), o->value);
		if (is_field(&o->ref, RK_GEN_H_IPV4, csum_f))
			csum_pinned = true;
	}
	for (uint32_t k = 0; k < s->nvar; k++)
		if (is_field(&s->var[k].ref, RK_GEN_H_IPV4, csum_f))
			csum_pinned = true;
	t->out_len = c->truncate && c->truncate < t->len ? c->truncate : t->len;
	if (!t->roce)
		goto vars;
	t->csum_live = c->ip_version == 4 && !csum_pinned;
	if (t->csum_live)
		rk_ipv4_fill_csum(t->frame + t->l3);
	t->icrc = full_icrc(t);
	t->lay_ok = rk_gen_icrc_layout_init(&t->lay, t->frame + t->l3, t->icrc_off - t->l3) == 0;
	/* Varying the IP version or IHL moves the masked bytes: recompute instead. */
	for (uint32_t k = 0; k < s->nvar; k++) {
		const struct rk_gen_ref *r = &s->var[k].ref;

		if ((r->hdr == RK_GEN_H_IPV4 && r->f->byte_off == 0) ||
		    (r->hdr == RK_GEN_H_IPV6 && (r->f->mask & RK_IPV6_VERSION_MASK)))
			t->lay_ok = false;
	}
vars:
	for (uint32_t k = 0; k < s->nvar; k++) {
		struct tvar *tv = &t->v[k];

		tv->present = ref_place(s, t, &s->var[k].ref, &tv->off, &tv->n, &tv->mask);
		if (!tv->present)
			continue;
		tv->shift = (uint8_t)__builtin_ctzll(tv->mask);
		tv->csum = t->csum_live && tv->off < t->l3 + RK_IPV4_HLEN &&
			   tv->off + tv->n > t->l3;
		if (t->roce && t->lay_ok && tv->off >= t->l3 &&
		    rk_gen_icrc_field_init(&tv->icf, &t->lay, tv->off - t->l3, tv->n) < 0)
			return fail(err, 0, "vary", -ENOMEM, "out of memory");
	}
	if (c->seq && t->roce) {
		if ((uint64_t)c->seq_off + RK_GEN_SEQ_LEN > t->payload_len)
			return fail(err, c->line, "payload.seq", -EMSGSIZE,
				    "slot at %u needs %u payload bytes, the frame has %u", c->seq_off,
				    c->seq_off + RK_GEN_SEQ_LEN, t->payload_len);
		t->seq.present = true;
		t->seq.off = t->payload_off + c->seq_off;
		rk_put_be32(t->frame + t->seq.off, c->stream_id);
		memset(t->frame + t->seq.off + 4, 0, 12);
		t->icrc = full_icrc(t);
		t->seq.n = 4;
		t->seq.mask = 0xffffffffu;
		t->seq.off += 4;
		t->ts = t->seq;
		t->ts.off += 4;
		t->ts.n = 8;
		t->ts.mask = ~0ull;
		if (t->lay_ok &&
		    (rk_gen_icrc_field_init(&t->seq.icf, &t->lay, t->seq.off - t->l3, 4) < 0 ||
		     rk_gen_icrc_field_init(&t->ts.icf, &t->lay, t->ts.off - t->l3, 8) < 0))
			return fail(err, 0, "payload.seq", -ENOMEM, "out of memory");
	}
	return 0;
}

/* The opcodes of a train: First, Middle, Last, Only. */
static void
train_ops(uint8_t train, uint8_t ops[4])
{
	static const uint8_t tab[][4] = {
		[RK_GEN_TRAIN_WRITE] = { RK_OP_RDMA_WRITE_FIRST, RK_OP_RDMA_WRITE_MIDDLE,
					 RK_OP_RDMA_WRITE_LAST, RK_OP_RDMA_WRITE_ONLY },
		[RK_GEN_TRAIN_SEND] = { RK_OP_SEND_FIRST, RK_OP_SEND_MIDDLE, RK_OP_SEND_LAST,
					RK_OP_SEND_ONLY },
		[RK_GEN_TRAIN_READ_RESP] = { RK_OP_RDMA_READ_RESPONSE_FIRST,
					     RK_OP_RDMA_READ_RESPONSE_MIDDLE,
					     RK_OP_RDMA_READ_RESPONSE_LAST,
					     RK_OP_RDMA_READ_RESPONSE_ONLY },
		[RK_GEN_TRAIN_READ] = { 0, 0, 0, RK_OP_RDMA_READ_REQUEST },
		[RK_GEN_TRAIN_ACK] = { 0, 0, 0, RK_OP_ACKNOWLEDGE },
	};

	memcpy(ops, tab[train], 4);
}

/* Vary field @p name of header @p h by +@p step per frame, unless the
 * stream varies it itself (a train's own variation). */
static void
auto_vary(struct rk_gen_stream *s, enum rk_gen_hdr h, const char *name, uint64_t step)
{
	const struct rk_field *f = rk_header_field(rk_gen_hdr_desc(h), name);
	struct rk_gen_vary *v;

	for (uint32_t k = 0; k < s->nvar; k++)
		if (is_field(&s->var[k].ref, (int)h, f))
			return;
	if (s->nvar >= VARS_MAX)
		return;
	v = &s->var[s->nvar++];
	memset(v, 0, sizeof(*v));
	v->ref.hdr = (uint8_t)h;
	v->ref.f = f;
	v->op = RK_GEN_VARY_INC;
	v->step = step;
}

static int
check_vary(const struct rk_gen_vary *v, uint64_t fmax, struct rk_gen_err *err)
{
	char nm[64];
	uint64_t max = v->max ? v->max : fmax;

	ref_name(&v->ref, nm, sizeof(nm));
	if (v->min > max || max > fmax)
		return fail(err, v->line, nm, -EINVAL, "range [%llu, %llu] outside the field's 0..%llu",
			    (unsigned long long)v->min, (unsigned long long)max,
			    (unsigned long long)fmax);
	if (v->op == RK_GEN_VARY_LIST && v->nvalues == 0)
		return fail(err, v->line, nm, -EINVAL, "a list needs values");
	for (uint32_t k = 0; v->op == RK_GEN_VARY_LIST && k < v->nvalues; k++)
		if (v->values[k] > fmax)
			return fail(err, v->line, nm, -EINVAL, "value %llu wider than the field",
				    (unsigned long long)v->values[k]);
	return 0;
}

/* Add [off, off + n) to t's changing bytes, clipped to what is sent and
 * merged with a range it touches. */
static void
dirty_add(struct tmpl *t, uint32_t off, uint32_t n)
{
	uint32_t end = off + n > t->out_len ? t->out_len : off + n;

	if (off >= end)
		return;
	for (uint32_t i = 0; i < t->ndirty; i++) {
		struct rk_gen_range *r = &t->dirty[i];
		uint32_t rend = (uint32_t)r->off + r->len;

		if (off <= rend && end >= r->off) {
			uint32_t lo = off < r->off ? off : r->off, hi = end > rend ? end : rend;

			r->off = (uint16_t)lo;
			r->len = (uint16_t)(hi - lo);
			return;
		}
	}
	t->dirty[t->ndirty++] = (struct rk_gen_range){ (uint16_t)off, (uint16_t)(end - off) };
}

/* t's dirty ranges as whole words, as rk_gen_frame_copy() copies them. */
static void
words_build(struct tmpl *t)
{
	uint32_t len = t->out_len;

	t->nwords = 0;
	if (len < 8)
		return;
	for (uint32_t i = 0; i < t->ndirty; i++)
		for (uint32_t b = t->dirty[i].off; b < (uint32_t)t->dirty[i].off + t->dirty[i].len;
		     b += 8) {
			uint32_t w = b + 8 <= len ? b : len - 8, j;

			for (j = 0; j < t->nwords && t->words[j] != w; j++)
				;
			if (j < t->nwords)
				continue;
			if (t->nwords == WORDS_MAX) {
				t->nwords = 0;
				return;
			}
			t->words[t->nwords++] = (uint16_t)w;
		}
}

static void
dirty_build(const struct rk_gen_stream *s, struct tmpl *t)
{
	t->ndirty = 0;
	for (uint32_t k = 0; k < s->nvar; k++)
		if (t->v[k].present)
			dirty_add(t, t->v[k].off, t->v[k].n);
	if (t->seq.present) {
		dirty_add(t, t->seq.off, t->seq.n);
		dirty_add(t, t->ts.off, t->ts.n);
	}
	if (t->roce && s->cfg.ip_version == 4)
		dirty_add(t, t->l3 + 10, 2); /* the header checksum, when it follows */
	if (t->roce)
		dirty_add(t, t->icrc_off, RK_ICRC_LEN);
	words_build(t);
}

int
rk_gen_stream_compile(const struct rk_gen_cfg *c, struct rk_gen_stream **out,
		      struct rk_gen_err *err)
{
	struct rk_gen_stream *s;
	uint32_t plen;
	int rc = 0;

	*out = NULL;
	if (c->kind > RK_GEN_PFC || (c->ip_version != 4 && c->ip_version != 6) ||
	    c->noverrides > RK_GEN_OVERRIDES_MAX || c->nvary > RK_GEN_VARY_MAX ||
	    c->train > RK_GEN_TRAIN_ACK)
		return fail(err, c->line, "stream", -EINVAL, "bad configuration");
	if (c->on_us == 0 && c->off_us != 0)
		return fail(err, c->line, "on_off.on_us", -EINVAL,
			    "0 with off_us set: the stream would never send");
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return fail(err, c->line, "stream", -ENOMEM, "out of memory");
	s->cfg = *c;
	s->nvar = c->nvary;
	memcpy(s->var, c->vary, sizeof(c->vary[0]) * c->nvary);
	s->train_n = 1;
	s->ntmpl = 1;
	plen = c->payload_len;
	if (plen == RK_GEN_PAYLOAD_DEFAULT)
		plen = c->kind == RK_GEN_ROCEV2 &&
				       (rk_opcode_info(c->opcode)->flags & RK_OPF_PAYLOAD) ? 64 : 0;
	if (c->kind != RK_GEN_ROCEV2) {
		rc = build_mac_control(s, &s->t[0]);
	} else if (c->train == RK_GEN_TRAIN_NONE) {
		rc = build_roce(s, &s->t[0], c->opcode, plen, 0, plen);
	} else {
		uint8_t ops[4];
		uint64_t psn_step = 1;

		if (c->pmtu < 256 || c->pmtu > 4096 || (c->pmtu & (c->pmtu - 1)))
			rc = fail(err, c->line, "train.pmtu", -EINVAL,
				  "%u is not an IB MTU (256, 512, 1024, 2048, 4096)", c->pmtu);
		if (rc == 0 && plen > 0x80000000u)
			rc = fail(err, c->line, "train.message", -EINVAL, "above 2^31 bytes");
		if (rc < 0)
			goto out;
		train_ops(c->train, ops);
		s->train_n = plen <= c->pmtu ? 1 : (plen + c->pmtu - 1) / c->pmtu;
		if (c->train >= RK_GEN_TRAIN_READ) {
			/* One frame per message, without payload. */
			uint32_t span = s->train_n ? s->train_n : 1;

			s->train_n = 1;
			rc = build_roce(s, &s->t[0], ops[3], 0, 0, plen);
			if (rc == 0 && c->train == RK_GEN_TRAIN_READ)
				auto_vary(s, RK_GEN_H_RETH, "VA", plen ? plen : 1);
			if (rc == 0 && c->train == RK_GEN_TRAIN_ACK) {
				/* An ACK carries the PSN of the message's last packet
				 * and the MSN of the messages completed (AETH after
				 * the BTH). */
				rk_put_be24(s->t[0].frame + s->t[0].bth + 9, span - 1);
				rk_put_be24(s->t[0].frame + s->t[0].bth + RK_BTH_LEN + 1, 1);
				auto_vary(s, RK_GEN_H_AETH, "MSN", 1);
			}
			psn_step = span;
		} else if (s->train_n == 1) {
			rc = build_roce(s, &s->t[0], ops[3], plen, 0, plen);
		} else {
			s->ntmpl = 3;
			rc = build_roce(s, &s->t[0], ops[0], c->pmtu, 0, plen);
			if (rc == 0)
				rc = build_roce(s, &s->t[1], ops[1], c->pmtu, c->pmtu, plen);
			if (rc == 0)
				rc = build_roce(s, &s->t[2], ops[2], plen - (s->train_n - 1) * c->pmtu,
						(uint64_t)(s->train_n - 1) * c->pmtu, plen);
		}
		/* A train's packets take consecutive PSNs; READ requests and
		 * ACKs step over the PSNs of each message. */
		if (rc == 0)
			auto_vary(s, RK_GEN_H_BTH, "PSN", psn_step);
	}
	if (rc < 0) {
		if (err != NULL && err->reason[0] == '\0')
			fail(err, c->line, "payload.len", rc, "frame larger than %u bytes",
			     RK_GEN_FRAME_MAX);
		goto out;
	}
	for (uint32_t k = 0; k < s->nvar; k++) {
		struct rk_gen_vary *v = &s->var[k];
		bool anywhere = false;

		for (uint32_t ti = 0; ti < s->ntmpl; ti++) {
			uint32_t off;
			uint8_t n;
			uint64_t mask;

			if (!ref_place(s, &s->t[ti], &v->ref, &off, &n, &mask))
				continue;
			if (!anywhere) {
				s->var_max[k] = mask >> __builtin_ctzll(mask);
				s->var_tmpl_value[k] = (rk_field_load_be(s->t[ti].frame + off, n) &
							mask) >> __builtin_ctzll(mask);
			}
			anywhere = true;
		}
		if (!anywhere) {
			char nm[64];

			ref_name(&v->ref, nm, sizeof(nm));
			rc = fail(err, v->line, nm, -EINVAL, "the frame has no such field to vary");
			goto out;
		}
		if ((rc = check_vary(v, s->var_max[k], err)) < 0)
			goto out;
	}
	for (uint32_t ti = 0; ti < s->ntmpl; ti++)
		if ((rc = finish_tmpl(s, &s->t[ti], err)) < 0)
			goto out;
	/* Values the overrides left are where variations start. */
	for (uint32_t k = 0; k < s->nvar; k++)
		for (uint32_t ti = 0; ti < s->ntmpl; ti++) {
			const struct tvar *tv = &s->t[ti].v[k];

			if (tv->present) {
				s->var_tmpl_value[k] =
					(rk_field_load_be(s->t[ti].frame + tv->off, tv->n) & tv->mask) >>
					tv->shift;
				break;
			}
		}
	for (uint32_t k = 0; k < s->nvar; k++) {
		struct rk_gen_vary *v = &s->var[k];
		uint64_t max = v->max ? v->max : s->var_max[k];

		s->cur[k].span = max - v->min + 1;
		s->cur[k].step_mod = s->cur[k].span ? (v->step ? v->step : 1) % s->cur[k].span : 0;
		s->cur[k].every = v->every ? v->every : 1;
	}
	for (uint32_t ti = 0; ti < s->ntmpl; ti++)
		dirty_build(s, &s->t[ti]);
	s->count = c->count_set ? c->count : s->train_n;
	*out = s;
	return 0;
out:
	rk_gen_stream_free(s);
	return rc;
}

void
rk_gen_stream_free(struct rk_gen_stream *s)
{
	if (s == NULL)
		return;
	for (uint32_t ti = 0; ti < 3; ti++) {
		for (uint32_t k = 0; k < VARS_MAX; k++)
			rk_gen_icrc_field_fini(&s->t[ti].v[k].icf);
		rk_gen_icrc_field_fini(&s->t[ti].seq.icf);
		rk_gen_icrc_field_fini(&s->t[ti].ts.icf);
	}
	free(s);
}

uint64_t
rk_gen_vary_value(const struct rk_gen_vary *v, uint64_t fmax, uint64_t tmpl, uint64_t i)
{
	uint64_t max = v->max ? v->max : fmax;
	uint64_t span = max - v->min + 1; /* 0: all 2^64 values */
	uint64_t step = v->step ? v->step : 1;
	uint64_t idx = i / (v->every ? v->every : 1);
	uint64_t start = v->has_start ? v->start : tmpl;
	uint64_t k, d, st;

	if (start < v->min || start > max)
		start = v->op == RK_GEN_VARY_DEC ? max : v->min;
	k = start - v->min;
	d = idx * step;
	switch (v->op) {
	case RK_GEN_VARY_INC:
		if (span == 0)
			return start + d;
		/* n * step modulo the span, exactly; k + d may not fit: wrap by hand */
		d = (uint64_t)((unsigned __int128)idx * step % span);
		return v->min + (k >= span - d ? k - (span - d) : k + d);
	case RK_GEN_VARY_DEC:
		if (span == 0)
			return start - d;
		d = (uint64_t)((unsigned __int128)idx * step % span);
		return v->min + (k >= d ? k - d : k + (span - d));
	case RK_GEN_VARY_RANDOM:
		st = v->seed ^ (idx * 0xd1b54a32d192ed03ull);
		d = rk_splitmix64(&st);
		return span ? v->min + d % span : d;
	default:
		return v->nvalues ? v->values[idx % v->nvalues] : tmpl;
	}
}

/*
 * The value of variation k for frame s->i: from its cursor for inc and dec
 * (frames come in order from 0, see rk_gen_stream_next), else computed.
 */
static uint64_t
vary_next(struct rk_gen_stream *s, uint32_t k)
{
	const struct rk_gen_vary *v = &s->var[k];
	struct cursor *c = &s->cur[k];
	uint64_t off, d = c->step_mod;

	if (v->op > RK_GEN_VARY_DEC || c->span == 0 || s->i == 0) {
		c->value = rk_gen_vary_value(v, s->var_max[k], s->var_tmpl_value[k], s->i);
		c->hold = 0;
		return c->value;
	}
	if (++c->hold < c->every)
		return c->value;
	c->hold = 0;
	off = c->value - v->min;
	if (v->op == RK_GEN_VARY_INC)
		off = off >= c->span - d ? off - (c->span - d) : off + d;
	else
		off = off >= d ? off - d : off + (c->span - d);
	c->value = v->min + off;
	return c->value;
}

/* The IPv4 checksum after field tv of t changed from @p cont to @p now
 * (RFC 1624 over the 16-bit words it touches inside the header). */
static void
apply_csum(struct tmpl *t, const struct tvar *tv, uint64_t cont)
{
	uint32_t lo = tv->off & ~1u, hi = (tv->off + tv->n + 1) & ~1u;
	uint8_t before[RK_GEN_ICRC_FIELD_MAX + 2];
	uint8_t *ip = t->frame + t->l3;
	uint32_t wlo = lo < t->l3 ? t->l3 : lo;
	uint32_t whi = hi > t->l3 + RK_IPV4_HLEN ? t->l3 + RK_IPV4_HLEN : hi;

	for (uint32_t i = 0; i < hi - lo; i++)
		before[i] = t->frame[lo + i];
	rk_field_store_be(before + (tv->off - lo), tv->n, cont);
	rk_ipv4_set_hdr_csum(ip, rk_gen_csum_replace(rk_ipv4_hdr_csum(ip), before + (wlo - lo),
						     t->frame + wlo, whi - wlo));
}

/* Write v into field tv of t, keeping ICRC (incremental) and checksum
 * right. Per frame: the ICRC changes by the XOR of the field's old and new
 * bytes (CRC is linear), one table per byte. */
static inline __attribute__((always_inline)) uint64_t
apply(struct tmpl *t, const struct tvar *tv, uint64_t v, bool incremental)
{
	uint8_t *p = t->frame + tv->off;
	uint64_t cont = rk_field_load_be(p, tv->n);
	uint64_t now = (cont & ~tv->mask) | ((v << tv->shift) & tv->mask);
	uint64_t diff = cont ^ now;

	if (diff == 0)
		return now;
	rk_field_store_be(p, tv->n, now);
	if (!incremental)
		return now;
	if (tv->icf.tab != NULL)
		for (uint32_t i = tv->n; diff != 0; diff >>= 8)
			t->icrc ^= tv->icf.tab[--i][diff & 0xff];
	if (tv->csum)
		apply_csum(t, tv, cont);
	return now;
}

int
rk_gen_stream_next(struct rk_gen_stream *s, uint8_t *buf, uint32_t cap)
{
	return rk_gen_stream_next_at(s, buf, cap, 0);
}

/* The template of the stream's next frame, or NULL when it is done. */
static struct tmpl *
next_tmpl(struct rk_gen_stream *s)
{
	uint32_t j;

	if (s->count && s->i >= s->count)
		return NULL;
	if (s->ntmpl == 1)
		return &s->t[0];
	j = (uint32_t)(s->i % s->train_n);
	return &s->t[j == 0 ? 0 : j == s->train_n - 1 ? 2 : 1];
}

/* Make template @p t the stream's next frame, at TX time @p tx_ns. */
static void
advance(struct rk_gen_stream *s, struct tmpl *t, uint64_t tx_ns)
{
	uint32_t icrc;
	bool incr = s->cfg.icrc != RK_GEN_ICRC_FULL && t->lay_ok;

	for (uint32_t k = 0; k < s->nvar; k++) {
		uint64_t v = vary_next(s, k); /* every frame: the cursors run on */

		if (t->v[k].present)
			apply(t, &t->v[k], v, incr);
	}
	if (t->seq.present) {
		apply(t, &t->seq, (uint32_t)s->i, incr);
		apply(t, &t->ts, tx_ns, incr);
	}
	if (t->roce) {
		if (!incr) {
			if (t->csum_live)
				rk_ipv4_fill_csum(t->frame + t->l3);
			t->icrc = full_icrc(t);
		}
		icrc = s->cfg.icrc == RK_GEN_ICRC_BAD ? ~t->icrc : t->icrc;
		rk_put_le32(t->frame + t->icrc_off, icrc);
	}
	s->i++;
}

/*
 * advance() of a stream without the slot, template @p t not truncated,
 * and its changing bytes written into @p dst (which holds an earlier
 * frame of t) from the values in hand: the bytes the dirty ranges would
 * copy. Reading them back from t would wait on the narrower stores just
 * made (no store forwarding into a wider load).
 */
static inline __attribute__((always_inline)) void
advance_out(struct rk_gen_stream *s, struct tmpl *t, uint8_t *dst)
{
	uint32_t icrc;
	bool incr = s->cfg.icrc != RK_GEN_ICRC_FULL && t->lay_ok;

	for (uint32_t k = 0; k < s->nvar; k++) {
		uint64_t v = vary_next(s, k);
		const struct tvar *tv = &t->v[k];

		/* always written: dst may hold a frame with another value */
		if (tv->present)
			rk_field_store_be(dst + tv->off, tv->n, apply(t, tv, v, incr));
	}
	if (t->roce) {
		if (!incr) {
			if (t->csum_live)
				rk_ipv4_fill_csum(t->frame + t->l3);
			t->icrc = full_icrc(t);
		}
		icrc = s->cfg.icrc == RK_GEN_ICRC_BAD ? ~t->icrc : t->icrc;
		rk_put_le32(t->frame + t->icrc_off, icrc);
		rk_put_le32(dst + t->icrc_off, icrc);
		if (s->cfg.ip_version == 4)
			memcpy(dst + t->l3 + 10, t->frame + t->l3 + 10, 2);
	}
	s->i++;
}

int
rk_gen_stream_next_at(struct rk_gen_stream *s, uint8_t *buf, uint32_t cap, uint64_t tx_ns)
{
	struct tmpl *t = next_tmpl(s);

	if (t == NULL)
		return 0;
	if (cap < t->out_len)
		return -ENOSPC;
	advance(s, t, tx_ns);
	memcpy(buf, t->frame, t->out_len);
	return (int)t->out_len;
}

const uint8_t *
rk_gen_stream_next_ref(struct rk_gen_stream *s, uint64_t tx_ns, struct rk_gen_ref_frame *f)
{
	struct tmpl *t = next_tmpl(s);

	if (t == NULL)
		return NULL;
	advance(s, t, tx_ns);
	f->len = t->out_len;
	f->tmpl = (uint32_t)(t - s->t);
	f->dirty = t->dirty;
	f->ndirty = t->ndirty;
	return t->frame;
}

/* Bytes of template t into dst, which holds an earlier frame of it
 * when held is its length: then the dirty words only. */
static inline void
copy_out(const struct tmpl *t, uint8_t *dst, uint32_t held)
{
	if (held != t->out_len || t->nwords == 0) {
		memcpy(dst, t->frame, t->out_len);
		return;
	}
	for (uint32_t j = 0; j < t->nwords; j++) {
		uint64_t w;

		memcpy(&w, t->frame + t->words[j], 8);
		memcpy(dst + t->words[j], &w, 8);
	}
}

uint32_t
rk_gen_stream_copy_next(struct rk_gen_stream *s, uint8_t *const *bufs, const uint32_t *held,
			uint32_t n, struct rk_gen_ref_frame *f, const uint8_t **data)
{
	struct tmpl *t = &s->t[f->tmpl < s->ntmpl ? f->tmpl : 0], *nt;
	bool whole = t->out_len == t->len; /* every changing byte is sent */

	if (n == 0 || f->len == 0 || s->i == 0 || s->cfg.seq || f->len != t->out_len)
		return 0;
	copy_out(t, bufs[0], held[0]);  /* the frame made already */
	for (uint32_t k = 1;; k++) {
		nt = next_tmpl(s);
		if (nt == NULL) {
			f->len = 0;
			return k;
		}
		if (k == n || nt != t) { /* the next one made, left pending */
			advance(s, nt, 0);
			f->len = nt->out_len;
			f->tmpl = (uint32_t)(nt - s->t);
			f->dirty = nt->dirty;
			f->ndirty = nt->ndirty;
			*data = nt->frame;
			return k;
		}
		if (whole && held[k] == t->out_len) {
			uint32_t m = rk_gen_stream_run1(s, t, bufs + k, held + k, n - k);

			if (m != 0) {
				k += m - 1;
				continue;
			}
			advance_out(s, t, bufs[k]);
		} else {
			advance(s, t, 0);
			copy_out(t, bufs[k], held[k]);
		}
	}
}

uint32_t
rk_gen_stream_tmpl_len(const struct rk_gen_stream *s, uint32_t tmpl)
{
	if (tmpl >= s->ntmpl || (s->ntmpl > 1 && tmpl == 1 && s->train_n <= 2))
		return 0;
	return s->t[tmpl].out_len;
}

void
rk_gen_stream_reset(struct rk_gen_stream *s)
{
	s->i = 0;
}

uint64_t
rk_gen_stream_index(const struct rk_gen_stream *s)
{
	return s->i;
}

const struct rk_gen_cfg *
rk_gen_stream_cfg(const struct rk_gen_stream *s)
{
	return &s->cfg;
}

uint32_t
rk_gen_stream_train_len(const struct rk_gen_stream *s)
{
	return s->train_n;
}

int
rk_gen_stream_stamp(const struct rk_gen_stream *s, uint8_t *buf, uint32_t len, uint64_t tx_ns)
{
	struct rk_pkt pkt;
	struct rk_gen_icrc_layout lay;
	uint8_t old[8];
	uint32_t at, icrc;

	if (!s->cfg.seq || s->cfg.kind != RK_GEN_ROCEV2 ||
	    rk_pkt_parse(&pkt, buf, len, len, RK_LINK_ETHERNET,
			 &(struct rk_parse_opts){ .check_icrc = false }) != 0 ||
	    !rk_pkt_has_bth(&pkt) || pkt.icrc_off == 0 || pkt.icrc_off + RK_ICRC_LEN > len)
		return -EINVAL;
	at = pkt.payload_off + s->cfg.seq_off + 8;
	if (at + 8 > pkt.icrc_off ||
	    rk_gen_icrc_layout_init(&lay, buf + pkt.l3_off, pkt.icrc_off - pkt.l3_off) < 0)
		return -EINVAL;
	memcpy(old, buf + at, 8);
	rk_put_be64(buf + at, tx_ns);
	icrc = rk_gen_icrc_patch(&lay, rk_get_le32(buf + pkt.icrc_off), at - pkt.l3_off, old,
				 buf + at, 8);
	rk_put_le32(buf + pkt.icrc_off, icrc);
	return 0;
}

int
rk_gen_stream_stamp_last(const struct rk_gen_stream *s, uint8_t *buf, uint32_t len,
			 uint64_t tx_ns)
{
	const struct tmpl *t;
	uint8_t old[8];
	uint32_t j;

	if (s->i == 0)
		return -EINVAL;
	j = (uint32_t)((s->i - 1) % s->train_n);
	t = &s->t[s->ntmpl == 1 ? 0 : j == 0 ? 0 : j == s->train_n - 1 ? 2 : 1];
	if (!t->seq.present || !t->roce || len != t->out_len || t->ts.off + 8 > len ||
	    t->icrc_off + RK_ICRC_LEN > len)
		return -EINVAL;
	if (!t->lay_ok) /* no prepared tables: the parsing way */
		return rk_gen_stream_stamp(s, buf, len, tx_ns);
	memcpy(old, buf + t->ts.off, 8);
	rk_put_be64(buf + t->ts.off, tx_ns);
	/* the update is an XOR: a bad (complemented) ICRC stays bad */
	rk_put_le32(buf + t->icrc_off,
		    rk_gen_icrc_field_update(&t->ts.icf, rk_get_le32(buf + t->icrc_off), old,
					     buf + t->ts.off));
	return 0;
}
