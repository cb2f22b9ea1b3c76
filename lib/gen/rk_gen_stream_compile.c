/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A stream compiled from its configuration: the templates built (one, or
 * a train's First, Middle and Last), overrides written, variations checked.
 */
#include "rk_gen_stream.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_bth.h"
#include "rk_build.h"
#include "rk_byteorder.h"
#include "rk_eth.h"
#include "rk_gen_icrc.h"
#include "rk_gen_stream_priv.h"
#include "rk_ipv4.h"
#include "rk_ipv6.h"
#include "rk_opcode.h"
#include "rk_rand.h"
#include "rk_udp.h"
#include "rk_xeth.h"

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

/* Whether ref is in any template of s. */
static bool
any_place(const struct rk_gen_stream *s, const struct rk_gen_ref *ref)
{
	uint32_t off;
	uint8_t n;
	uint64_t mask;

	for (uint32_t ti = 0; ti < s->ntmpl; ti++)
		if (rk_gen_ref_place(s, &s->t[ti], ref, &off, &n, &mask))
			return true;
	return false;
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

		if (!rk_gen_ref_place(s, t, &o->ref, &off, &n, &mask)) {
			/* a train's RETH, AETH: only in the packets that carry one */
			if (s->ntmpl > 1 && t != &s->t[s->ntmpl - 1])
				continue;
			if (s->ntmpl > 1 && any_place(s, &o->ref))
				continue;
			rk_gen_ref_name(&o->ref, nm, sizeof(nm));
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

		tv->present = rk_gen_ref_place(s, t, &s->var[k].ref, &tv->off, &tv->n, &tv->mask);
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

	rk_gen_ref_name(&v->ref, nm, sizeof(nm));
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

			if (!rk_gen_ref_place(s, &s->t[ti], &v->ref, &off, &n, &mask))
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

			rk_gen_ref_name(&v->ref, nm, sizeof(nm));
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
		rk_gen_tmpl_dirty_build(s, &s->t[ti]);
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
