/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QoS and congestion view: classes (PCP, DSCP), ECN (RFC 3168), CE marks
 * answered by CNPs (IBTA Annex A17.9.3), PAUSE (IEEE 802.3 Annex 31B) and
 * PFC (IEEE 802.1Qbb) per priority with storms.
 */
#include "rk_insp_qos.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "rk_eth.h"
#include "rk_opcode.h"

void
rk_insp_qos_marks_of(struct rk_insp_qos_marks *m, const struct rk_pkt *pkt)
{
	memset(m, 0, sizeof(*m));
	if (pkt->n_vlan != 0) {
		m->tagged = true;
		m->pcp = (uint8_t)((pkt->vlan_tci[0] & RK_VLAN_PCP_MASK) >> RK_VLAN_PCP_SHIFT);
		m->vid = pkt->vlan_tci[0] & RK_VLAN_VID_MASK;
	}
	if (pkt->layers & (RK_L_IPV4 | RK_L_IPV6 | RK_L_GRH)) {
		m->has_ip = true;
		m->dscp = pkt->dscp & 0x3f;
		m->ecn = pkt->ecn & 3;
	}
}

enum rk_insp_qos_role
rk_insp_qos_role_of(uint32_t opflags)
{
	if (opflags & RK_OPF_CNP)
		return RK_INSP_QOS_CNP;
	if (opflags & (RK_OPF_ACK | RK_OPF_ATOMIC_ACK))
		return RK_INSP_QOS_ACK;
	return RK_INSP_QOS_DATA;
}

static bool
same_class(const struct rk_insp_qos_marks *a, const struct rk_insp_qos_marks *b)
{
	return a->tagged == b->tagged && a->vid == b->vid && a->pcp == b->pcp &&
	       a->has_ip == b->has_ip && a->dscp == b->dscp;
}

void
rk_insp_flow_qos_add(struct rk_insp_flow_qos *q, const struct rk_insp_qos_marks *m)
{
	if (!q->seen) {
		q->seen = true;
		q->first = *m;
	} else if (!same_class(&q->first, m)) {
		q->changed++;
	}
	if (m->has_ip)
		q->ecn[m->ecn & 3]++;
}

void
rk_insp_flow_qos_fini(struct rk_insp_flow_qos *q)
{
	free(q->delay.v);
	q->delay.v = NULL;
	q->delay.n = q->delay.cap = 0;
}

int
rk_insp_qos_init(struct rk_insp_qos *q, const struct rk_insp_qos_opts *opts)
{
	memset(q, 0, sizeof(*q));
	if (opts != NULL)
		q->opts = *opts;
	if (q->opts.link_bps == 0)
		q->opts.link_bps = RK_INSP_QOS_LINK_GBPS_DEFAULT * 1000000000ull;
	if (q->opts.storm_ns == 0)
		q->opts.storm_ns = RK_INSP_QOS_STORM_MS_DEFAULT * 1000000ull;
	return rk_insp_htab_init(&q->hash, 64, 1u << 20) != 0 ? -ENOMEM : 0;
}

void
rk_insp_qos_fini(struct rk_insp_qos *q)
{
	struct rk_insp_cong *c = q->head, *n;

	for (; c != NULL; c = n) {
		n = c->next;
		free(c->delay.v);
		free(c);
	}
	rk_insp_htab_fini(&q->hash);
	memset(q, 0, sizeof(*q));
}

_Static_assert(offsetof(struct rk_insp_cong, first_ns) <= 64,
	       "a data packet's fields fit one cache line");

/* Two 16-byte addresses equal: two word compares, no call. */
static inline bool
pair_eq(const struct rk_insp_cong *c, const uint8_t *src, const uint8_t *dst)
{
	uint64_t a[4], b[4];

	memcpy(a, c->src, 16);
	memcpy(a + 2, c->dst, 16);
	memcpy(b, src, 16);
	memcpy(b + 2, dst, 16);
	return ((a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2]) | (a[3] ^ b[3])) == 0;
}

static uint64_t
pair_hash(const uint8_t *src, const uint8_t *dst)
{
	return rk_insp_hash_addr(rk_insp_hash_addr(0x452821e638d01377ull, src), dst);
}

/* The record of data from @p src to @p dst; created when @p add. */
static struct rk_insp_cong *
pair_get(struct rk_insp_qos *q, const uint8_t *src, const uint8_t *dst, bool add)
{
	uint64_t h;
	struct rk_insp_cong *c = q->last;

	/* Runs of packets of one direction, or data and its ACKs, are the common case. */
	if (c != NULL && pair_eq(c, src, dst))
		return c;
	if ((c = q->prev) != NULL && pair_eq(c, src, dst)) {
		q->prev = q->last;
		q->last = c;
		return c;
	}
	h = pair_hash(src, dst);
	for (struct rk_insp_hlink *l = rk_insp_htab_chain(&q->hash, h); l != NULL; l = l->next) {
		c = rk_insp_hlink_elem(l, struct rk_insp_cong, hl);
		if (l->hash == h && pair_eq(c, src, dst)) {
			q->prev = q->last;
			q->last = c;
			return c;
		}
	}
	if (!add)
		return NULL;
	/* One cache line holds what each data packet touches. */
	c = aligned_alloc(64, (sizeof(*c) + 63) / 64 * 64);
	if (c == NULL) {
		q->nomem = true;
		return NULL;
	}
	memset(c, 0, sizeof(*c));
	memcpy(c->src, src, 16);
	memcpy(c->dst, dst, 16);
	rk_insp_htab_add(&q->hash, &c->hl, h);
	if (q->tail != NULL)
		q->tail->next = c;
	else
		q->head = c;
	q->tail = c;
	q->npairs++;
	q->prev = q->last;
	q->last = c;
	return c;
}

/* pair_get() through the flow's own record of the pair in @p slot (may be NULL). */
static inline struct rk_insp_cong *
pair_of(struct rk_insp_qos *q, struct rk_insp_cong **slot, const uint8_t *src,
	const uint8_t *dst, bool add)
{
	struct rk_insp_cong *c;

	if (slot != NULL && *slot != NULL)
		return *slot;
	c = pair_get(q, src, dst, add);
	if (slot != NULL)
		*slot = c;
	return c;
}

static void
delay_push(struct rk_insp_qos *q, struct rk_insp_delays *d, uint64_t ns)
{
	if (d->n == d->cap) {
		uint64_t cap = d->cap ? d->cap * 2 : 16;
		uint64_t *v = realloc(d->v, cap * sizeof(*v));

		if (v == NULL) {
			q->nomem = true;
			return;
		}
		d->v = v;
		d->cap = cap;
	}
	d->v[d->n++] = ns;
}

static void
data_packet(struct rk_insp_qos *q, struct rk_insp_cong *c, const struct rk_insp_qos_marks *m,
	    uint32_t wirelen, uint64_t ts_ns)
{
	(void)q;
	if (c->packets == 0)
		c->first_ns = ts_ns;
	c->last_ns = ts_ns;
	c->packets++;
	c->bytes += wirelen;
	if (m->ecn == RK_INSP_ECN_ECT0 || m->ecn == RK_INSP_ECN_ECT1)
		c->ect++;
	if (m->ecn == RK_INSP_ECN_CE) {
		c->ce++;
		if (!c->ce_pending) {
			c->ce_pending = true;
			c->ce_pending_ns = ts_ns;
		}
	}
	if (!c->cnp_seen) {
		c->bytes_before += wirelen;
	} else {
		if (c->bytes_after == 0)
			c->after_first_ns = ts_ns;
		c->bytes_after += wirelen;
	}
}

/* A CNP at @p ts_ns answers the first mark pending, if any. */
static void
answer(struct rk_insp_qos *q, bool *pending, uint64_t pending_ns, struct rk_insp_delays *d,
       uint64_t *unprompted, uint64_t ts_ns)
{
	if (!*pending) {
		(*unprompted)++;
		return;
	}
	/* Out-of-order timestamps give 0 rather than a wrapped delay. */
	delay_push(q, d, ts_ns >= pending_ns ? ts_ns - pending_ns : 0);
	*pending = false;
}

static void
cnp_packet(struct rk_insp_qos *q, struct rk_insp_cong *c, uint64_t ts_ns)
{
	if (c->cnps++ == 0)
		c->first_cnp_ns = ts_ns;
	c->cnp_seen = true;
	answer(q, &c->ce_pending, c->ce_pending_ns, &c->delay, &c->cnps_unprompted, ts_ns);
}

void
rk_insp_qos_flow(struct rk_insp_qos *q, struct rk_insp_flow_qos *fq, const uint8_t *src,
		 const uint8_t *dst, const struct rk_insp_qos_marks *m,
		 enum rk_insp_qos_role role, uint32_t psn, uint64_t ts_ns)
{
	struct rk_insp_cong *c;

	if (!m->has_ip)
		return;
	switch (role) {
	case RK_INSP_QOS_DATA:
		if ((c = pair_of(q, &fq->pair_sd, src, dst, false)) != NULL) {
			c->last_flow = fq;
			c->last_psn = psn;
		}
		if (m->ecn == RK_INSP_ECN_CE && !fq->ce_pending) {
			fq->ce_pending = true;
			fq->ce_pending_ns = ts_ns;
		}
		break;
	case RK_INSP_QOS_ACK:
		if (fq->peer != NULL)
			break;
		/* The ACK goes B -> A: the data it answers went A -> B. */
		c = pair_of(q, &fq->pair_ds, dst, src, false);
		if (c != NULL && c->last_flow != NULL &&
		    ((c->last_psn - psn) & 0xffffffu) <= RK_INSP_QOS_PAIR_WINDOW)
			fq->peer = c->last_flow;
		break;
	case RK_INSP_QOS_CNP:
		if (fq->peer == NULL) {
			fq->cnps_unpaired++;
			break;
		}
		fq->peer->cnps++;
		answer(q, &fq->peer->ce_pending, fq->peer->ce_pending_ns, &fq->peer->delay,
		       &fq->peer->cnps_unprompted, ts_ns);
		break;
	}
}

void
rk_insp_qos_packet(struct rk_insp_qos *q, struct rk_insp_flow_qos *fq, const uint8_t *src,
		   const uint8_t *dst, const struct rk_insp_qos_marks *m,
		   enum rk_insp_qos_role role, uint32_t wirelen, uint64_t ts_ns)
{
	struct rk_insp_qos_class *cls[2] = {
		&q->pcp[m->tagged ? m->pcp & 7 : RK_INSP_QOS_UNTAGGED],
		m->has_ip ? &q->dscp[m->dscp & 0x3f] : NULL,
	};

	if (ts_ns > q->last_ns)
		q->last_ns = ts_ns;
	q->tagged += m->tagged;
	if (m->has_ip)
		q->ecn[m->ecn & 3]++;
	q->ce += m->has_ip && m->ecn == RK_INSP_ECN_CE;
	q->cnps += role == RK_INSP_QOS_CNP;
	for (int i = 0; i < 2; i++) {
		struct rk_insp_qos_class *k = cls[i];

		if (k == NULL)
			continue;
		k->bytes += wirelen;
		k->data += role == RK_INSP_QOS_DATA;
		k->acks += role == RK_INSP_QOS_ACK;
		k->cnps += role == RK_INSP_QOS_CNP;
		if (m->has_ip) {
			k->ect += m->ecn == RK_INSP_ECN_ECT0 || m->ecn == RK_INSP_ECN_ECT1;
			k->ce += m->ecn == RK_INSP_ECN_CE;
		}
	}
	if (!m->has_ip)
		return;
	if (role == RK_INSP_QOS_CNP) {
		/* A CNP from B to A answers the marks on A's packets to B. */
		struct rk_insp_cong *c = pair_of(q, fq != NULL ? &fq->pair_ds : NULL, dst, src, true);

		if (c != NULL)
			cnp_packet(q, c, ts_ns);
	} else {
		struct rk_insp_cong *c = pair_of(q, fq != NULL ? &fq->pair_sd : NULL, src, dst, true);

		if (c != NULL)
			data_packet(q, c, m, wirelen, ts_ns);
	}
}

uint64_t
rk_insp_pause_ns(uint64_t quanta, uint64_t link_bps)
{
	if (link_bps == 0)
		return 0;
	/* quanta <= 65535: quanta * 512 * 1e9 stays far below 2^64. */
	return quanta * 512u * 1000000000ull / link_bps;
}

/* The run of @p p ends at @p end_ns. */
static void
run_close(struct rk_insp_qos *q, struct rk_insp_pause_prio *p, uint64_t end_ns)
{
	uint64_t len = end_ns > p->run_start ? end_ns - p->run_start : 0;

	p->paused = false;
	p->paused_ns += len;
	if (len > p->longest_ns)
		p->longest_ns = len;
	if (len > q->opts.storm_ns) {
		if (p->storms++ == 0)
			p->storm_start_ns = p->run_start;
	}
}

static void
pause_prio(struct rk_insp_qos *q, struct rk_insp_pause_prio *p, uint16_t quanta,
	   uint64_t ts_ns)
{
	uint64_t dur = rk_insp_pause_ns(quanta, q->opts.link_bps);

	p->frames++;
	p->quanta += quanta;
	if (quanta == 0)
		p->xon++;
	if (p->paused && ts_ns >= p->until)
		run_close(q, p, p->until);   /* expired before this frame */
	if (p->paused) {
		/* A frame while paused restarts the timer (a refresh), or
		 * with 0 quanta ends the pause now. */
		if (quanta == 0)
			run_close(q, p, ts_ns);
		else
			p->until = ts_ns + dur;
		return;
	}
	if (quanta != 0) {
		p->paused = true;
		p->run_start = ts_ns;
		p->until = ts_ns + dur;
	}
}

void
rk_insp_qos_pause(struct rk_insp_qos *q, bool pfc, uint8_t class_enable,
		  const uint16_t quanta[8], uint64_t ts_ns)
{
	if (ts_ns > q->last_ns)
		q->last_ns = ts_ns;
	if (!pfc) {
		pause_prio(q, &q->pause[RK_INSP_QOS_LINK_PAUSE], quanta[0], ts_ns);
		return;
	}
	/* A priority whose class-enable bit is clear is not acted on
	 * (IEEE 802.1Qbb): its time field is ignored. */
	for (int i = 0; i < 8; i++)
		if (class_enable & (1u << i))
			pause_prio(q, &q->pause[i], quanta[i], ts_ns);
}

void
rk_insp_qos_finish(struct rk_insp_qos *q)
{
	for (int i = 0; i < 9; i++) {
		struct rk_insp_pause_prio *p = &q->pause[i];

		if (p->paused)
			run_close(q, p, p->until);
	}
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t
rk_insp_delays_pct(const struct rk_insp_delays *d, unsigned int pct)
{
	uint64_t *v, r, rank;

	if (d->n == 0 || pct == 0 || pct > 100)
		return 0;
	v = malloc(d->n * sizeof(*v));
	if (v == NULL)
		return 0;
	memcpy(v, d->v, d->n * sizeof(*v));
	qsort(v, d->n, sizeof(*v), cmp_u64);
	/* Nearest rank: the smallest value with pct % of the samples at or below it. */
	rank = (d->n * pct + 99) / 100;
	r = v[rank - 1];
	free(v);
	return r;
}

uint64_t
rk_insp_delays_max(const struct rk_insp_delays *d)
{
	uint64_t m = 0;

	for (uint64_t i = 0; i < d->n; i++)
		if (d->v[i] > m)
			m = d->v[i];
	return m;
}

static uint64_t
bps(uint64_t bytes, uint64_t ns)
{
	/* bytes * 8e9 overflows past 2.3 TB: divide first then. */
	if (bytes < UINT64_MAX / 8000000000ull)
		return bytes * 8000000000ull / ns;
	return bytes / ns * 8000000000ull;
}

bool
rk_insp_cong_rates(const struct rk_insp_cong *c, uint64_t *before_bps, uint64_t *after_bps)
{
	*before_bps = *after_bps = 0;
	if (c->cnps == 0 || c->first_cnp_ns <= c->first_ns || c->last_ns <= c->first_cnp_ns ||
	    c->bytes_before == 0 || c->bytes_after == 0)
		return false;
	*before_bps = bps(c->bytes_before, c->first_cnp_ns - c->first_ns);
	*after_bps = bps(c->bytes_after, c->last_ns - c->first_cnp_ns);
	return true;
}

bool
rk_insp_qos_any(const struct rk_insp_qos *q)
{
	if (q->tagged || q->cnps || q->ecn[1] || q->ecn[2] || q->ecn[3])
		return true;
	for (int i = 0; i < 9; i++)
		if (q->pause[i].frames)
			return true;
	for (int i = 1; i < 64; i++)
		if (q->dscp[i].data + q->dscp[i].acks + q->dscp[i].cnps != 0)
			return true;
	return false;
}
