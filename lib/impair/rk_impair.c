/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The impairment stage: rules, their generators and counters, and the
 * time-ordered queue of held frames.
 */
#include "rk_impair.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rk_byteorder.h"
#include "rk_rand.h"

#define ETH_HLEN 14
#define VLAN_HLEN 4
#define ROCEV2_PORT 4791
#define BTH_LEN 12

struct impair_rule {
	struct rk_impair_rule r;
	struct rk_impair_rule_stats st;
	uint64_t rng;
	uint32_t burst_left;
};

struct rk_impair {
	unsigned int n;
	struct rk_impair_filter filter;
	struct impair_rule rules[];
};

struct rk_impair_qframe {
	uint64_t t;
	uint64_t seq;
	uint32_t len;
	uint8_t *data;
};

static uint64_t
rnd(struct impair_rule *ir)
{
	if (ir->r.rng == RK_IMPAIR_RNG_SPLITMIX64)
		return rk_splitmix64(&ir->rng);
	return rk_xorshift64s(&ir->rng);
}

/* True with probability p; draws nothing when p is 0. */
static bool
chance(struct impair_rule *ir, double p)
{
	if (p <= 0)
		return false;
	return (double)(rnd(ir) >> 11) * 0x1p-53 < p;
}

static bool
prob_ok(double p)
{
	return p >= 0.0 && p <= 1.0;
}

struct rk_impair *
rk_impair_create(const struct rk_impair_rule *rules, unsigned int n_rules)
{
	struct rk_impair *st;

	if (rules == NULL && n_rules > 0) {
		errno = EINVAL;
		return NULL;
	}
	for (unsigned int i = 0; i < n_rules; i++) {
		const struct rk_impair_rule *r = &rules[i];

		if (!prob_ok(r->loss) || !prob_ok(r->burst) || !prob_ok(r->dup) ||
		    !prob_ok(r->reorder) || !prob_ok(r->corrupt) || !prob_ok(r->ecn_ce) ||
		    (r->rng != RK_IMPAIR_RNG_XORSHIFT64S && r->rng != RK_IMPAIR_RNG_SPLITMIX64)) {
			errno = EINVAL;
			return NULL;
		}
	}
	st = calloc(1, sizeof(*st) + n_rules * sizeof(st->rules[0]));
	if (st == NULL)
		return NULL;
	st->n = n_rules;
	rk_impair_filter_init(&st->filter, rules, n_rules);
	for (unsigned int i = 0; i < n_rules; i++) {
		st->rules[i].r = rules[i];
		st->rules[i].rng = rules[i].seed;
		if (rules[i].rng == RK_IMPAIR_RNG_XORSHIFT64S && rules[i].seed == 0)
			st->rules[i].rng = 1;
	}
	return st;
}

void
rk_impair_destroy(struct rk_impair *st)
{
	free(st);
}

/* Offset of the IP header and the EtherType, or 0 when the frame carries no IP. */
static uint32_t
ip_offset(const uint8_t *frame, uint32_t len, uint16_t *type)
{
	uint32_t off = ETH_HLEN;

	if (len < ETH_HLEN)
		return 0;
	*type = rk_get_be16(frame + 12);
	if (*type == 0x8100) {
		if (len < ETH_HLEN + VLAN_HLEN)
			return 0;
		*type = rk_get_be16(frame + 16);
		off += VLAN_HLEN;
	}
	if (*type == 0x0800 && len >= off + 20)
		return off;
	if (*type == 0x86dd && len >= off + 40)
		return off;
	return 0;
}

const uint8_t *
rk_impair_bth(const uint8_t *frame, uint32_t len, uint8_t *proto)
{
	uint16_t type = 0;
	uint32_t ip = ip_offset(frame, len, &type), udp;

	*proto = 0;
	if (ip == 0)
		return NULL;
	if (type == 0x0800) {
		*proto = frame[ip + 9];
		udp = ip + 4u * (frame[ip] & 0x0f);
	} else {
		*proto = frame[ip + 6];
		udp = ip + 40;
	}
	if (*proto != 17 || len < udp + 8 + BTH_LEN || rk_get_be16(frame + udp + 2) != ROCEV2_PORT)
		return NULL;
	return frame + udp + 8;
}

static bool
in_range(uint32_t v, uint32_t lo, uint32_t hi)
{
	return lo <= hi ? v >= lo && v <= hi : v >= lo || v <= hi;
}

/* rk_impair_match_frame() on a frame's IP protocol and BTH (NULL: none), found once. */
static bool
match_parsed(const struct rk_impair_match *m, uint8_t proto, const uint8_t *bth)
{
	if (m->ip_proto == 0 && !m->by_qp && !m->by_opcode && !m->by_psn)
		return true;
	if (m->ip_proto != 0 && proto != m->ip_proto)
		return false;
	if (!m->by_qp && !m->by_opcode && !m->by_psn)
		return true;
	if (bth == NULL)
		return false;
	if (m->by_opcode && (bth[0] < m->opcode_min || bth[0] > m->opcode_max))
		return false;
	if (m->by_qp && !(m->qp_min <= m->qp_max &&
			  in_range(rk_get_be32(bth + 4) & 0xffffff, m->qp_min, m->qp_max)))
		return false;
	return !m->by_psn || in_range(rk_get_be32(bth + 8) & 0xffffff, m->psn_min, m->psn_max);
}

bool
rk_impair_match_frame(const struct rk_impair_match *m, const uint8_t *frame, uint32_t len)
{
	uint8_t proto;
	const uint8_t *bth = rk_impair_bth(frame, len, &proto);

	return match_parsed(m, proto, bth);
}

const struct rk_impair_filter *
rk_impair_filter_of(const struct rk_impair *st)
{
	static const struct rk_impair_filter none;

	return st != NULL ? &st->filter : &none;
}

void
rk_impair_decide(struct rk_impair *st, const uint8_t *frame, uint32_t len,
		 struct rk_impair_verdict *v)
{
	const uint8_t *bth = NULL;
	uint8_t proto = 0;

	/* the headers once for all the rules */
	if (st != NULL && st->n > 0)
		bth = rk_impair_bth(frame, len, &proto);
	rk_impair_decide_parsed(st, len, proto, bth, v);
}

void
rk_impair_decide_parsed(struct rk_impair *st, uint32_t len, uint8_t proto, const uint8_t *bth,
			struct rk_impair_verdict *v)
{
	struct impair_rule *ir = NULL;
	const struct rk_impair_rule *r;

	v->rule = -1;
	v->copies = 1;
	v->drop = RK_IMPAIR_PASS;
	v->forge = RK_IMPAIR_FORGE_NONE;
	if (st == NULL || st->n == 0 || !rk_impair_filter_may(&st->filter, proto, bth))
		return;
	for (unsigned int i = 0; i < st->n; i++)
		if ((st->rules[i].r.count == 0 || st->rules[i].st.matched < st->rules[i].r.count) &&
		    match_parsed(&st->rules[i].r.match, proto, bth)) {
			ir = &st->rules[i];
			v->rule = (int)i;
			break;
		}
	if (ir == NULL)
		return;
	r = &ir->r;
	ir->st.matched++;
	if (r->forge != RK_IMPAIR_FORGE_NONE) {
		ir->st.forged++;
		v->forge = r->forge;
		if (r->forge != RK_IMPAIR_FORGE_CNP) {
			v->copies = 0;
			v->drop = RK_IMPAIR_DROP_FORGED;
			return;
		}
	}
	v->copies = 0;
	if (r->mtu != 0 && len > ETH_HLEN && len - ETH_HLEN > r->mtu) {
		ir->st.mtu_drops++;
		v->drop = RK_IMPAIR_DROP_MTU;
		return;
	}
	/* Counts every frame matched, as a switch's policer would. */
	if (r->drop_every != 0 && ir->st.matched % r->drop_every == 0) {
		ir->st.lost++;
		ir->st.periodic_drops++;
		v->drop = RK_IMPAIR_DROP_PERIODIC;
		return;
	}
	if (ir->burst_left > 0) {
		ir->burst_left--;
		ir->st.lost++;
		ir->st.burst_drops++;
		v->drop = RK_IMPAIR_DROP_BURST;
		return;
	}
	if (chance(ir, r->loss)) {
		if (r->burst_len > 1 && chance(ir, r->burst))
			ir->burst_left = r->burst_len - 1;
		ir->st.lost++;
		v->drop = RK_IMPAIR_DROP_LOSS;
		return;
	}
	v->copies = 1;
	if (chance(ir, r->dup)) {
		v->copies = 2;
		ir->st.dup++;
	}
}

void
rk_impair_unforge(struct rk_impair *st, const struct rk_impair_verdict *v)
{
	struct rk_impair_rule_stats *rs;

	if (st == NULL || v->rule < 0 || (unsigned int)v->rule >= st->n ||
	    v->forge == RK_IMPAIR_FORGE_NONE)
		return;
	rs = &st->rules[v->rule].st;
	if (rs->forged > 0)
		rs->forged--;
	if (v->drop == RK_IMPAIR_DROP_FORGED && rs->matched > 0)
		rs->matched--;
	rs->unforged++;
}

void
rk_impair_next_copy(struct rk_impair *st, const struct rk_impair_verdict *v,
		    struct rk_impair_copy *c)
{
	struct impair_rule *ir;

	memset(c, 0, sizeof(*c));
	if (st == NULL || v->rule < 0 || (unsigned int)v->rule >= st->n)
		return;
	ir = &st->rules[v->rule];
	c->delay_ns = ir->r.delay_ns;
	if (ir->r.jitter_ns != 0)
		c->delay_ns += rnd(ir) % (ir->r.jitter_ns + 1);
	if (chance(ir, ir->r.reorder)) {
		c->delay_ns += ir->r.reorder_ns;
		c->reordered = true;
		ir->st.reordered++;
	}
	c->corrupt = chance(ir, ir->r.corrupt);
	c->ce = chance(ir, ir->r.ecn_ce);
}

/* Set CE (RFC 3168 5) in an ECN-capable IP header; false when not ECN-capable. */
static bool
mark_ce(uint8_t *frame, uint32_t len)
{
	uint16_t type = 0;
	uint32_t ip = ip_offset(frame, len, &type);

	if (ip == 0)
		return false;
	if (type == 0x0800) {
		uint16_t old = rk_get_be16(frame + ip), now;
		uint32_t sum;

		if ((old & 0x3) == 0 || (old & 0x3) == 0x3)
			return false;
		now = old | 0x3;
		frame[ip + 1] |= 0x3;
		/* RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m') */
		sum = (uint16_t)~rk_get_be16(frame + ip + 10) + (uint16_t)~old + now;
		sum = (sum & 0xffff) + (sum >> 16);
		sum = (sum & 0xffff) + (sum >> 16);
		rk_put_be16(frame + ip + 10, (uint16_t)~sum);
		return true;
	}
	/* IPv6: traffic class bits 4..11 of the first word; ECN its low two. */
	if (((frame[ip + 1] >> 4) & 0x3) == 0 || ((frame[ip + 1] >> 4) & 0x3) == 0x3)
		return false;
	frame[ip + 1] |= 0x30;
	return true;
}

void
rk_impair_apply(struct rk_impair *st, const struct rk_impair_verdict *v,
		const struct rk_impair_copy *c, uint8_t *frame, uint32_t len)
{
	struct impair_rule *ir;

	if (st == NULL || v->rule < 0 || (unsigned int)v->rule >= st->n)
		return;
	ir = &st->rules[v->rule];
	if (c->ce && mark_ce(frame, len))
		ir->st.ce_marked++;
	if (c->corrupt && len > ETH_HLEN) {
		uint32_t at = ETH_HLEN + (uint32_t)(rnd(ir) % (len - ETH_HLEN));

		frame[at] ^= (uint8_t)(1u << (rnd(ir) % 8));
		ir->st.corrupted++;
	}
}

const struct rk_impair_rule_stats *
rk_impair_stats(const struct rk_impair *st, unsigned int rule)
{
	return st != NULL && rule < st->n ? &st->rules[rule].st : NULL;
}

unsigned int
rk_impair_rules(const struct rk_impair *st)
{
	return st != NULL ? st->n : 0;
}

/* ------------------------------------------------------------ the queue */

static bool
before(const struct rk_impair_qframe *a, const struct rk_impair_qframe *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

int
rk_impair_queue_push(struct rk_impair_queue *q, uint64_t t_ns, const uint8_t *frame,
		     uint32_t len, uint8_t **copy)
{
	struct rk_impair_qframe x;
	uint32_t i;

	if (q->n == q->cap) {
		uint32_t cap = q->cap ? q->cap * 2 : 256;
		struct rk_impair_qframe *h = realloc(q->heap, cap * sizeof(*h));

		if (h == NULL)
			return -ENOMEM;
		q->heap = h;
		q->cap = cap;
	}
	x.t = t_ns;
	x.seq = q->seq++;
	x.len = len;
	x.data = malloc(len ? len : 1);
	if (x.data == NULL)
		return -ENOMEM;
	if (len > 0)
		memcpy(x.data, frame, len);
	if (copy != NULL)
		*copy = x.data;
	for (i = q->n++; i > 0; i = (i - 1) / 2) {
		struct rk_impair_qframe *p = &q->heap[(i - 1) / 2];

		if (!before(&x, p))
			break;
		q->heap[i] = *p;
	}
	q->heap[i] = x;
	return 0;
}

int
rk_impair_queue_pop(struct rk_impair_queue *q, uint64_t now_ns, uint8_t *buf, uint32_t cap)
{
	struct rk_impair_qframe top, last;
	uint32_t i = 0;
	int rc;

	if (q->n == 0 || q->heap[0].t > now_ns)
		return 0;
	top = q->heap[0];
	last = q->heap[--q->n];
	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= q->n)
			break;
		if (c + 1 < q->n && before(&q->heap[c + 1], &q->heap[c]))
			c++;
		if (!before(&q->heap[c], &last))
			break;
		q->heap[i] = q->heap[c];
		i = c;
	}
	if (q->n > 0)
		q->heap[i] = last;
	if (top.len > cap) {
		rc = -ENOSPC;
	} else {
		if (top.len > 0)
			memcpy(buf, top.data, top.len);
		rc = (int)top.len;
	}
	free(top.data);
	return rc;
}

uint64_t
rk_impair_queue_next_ns(const struct rk_impair_queue *q)
{
	return q->n == 0 ? UINT64_MAX : q->heap[0].t;
}

void
rk_impair_queue_clear(struct rk_impair_queue *q)
{
	for (uint32_t k = 0; k < q->n; k++)
		free(q->heap[k].data);
	free(q->heap);
	memset(q, 0, sizeof(*q));
}
