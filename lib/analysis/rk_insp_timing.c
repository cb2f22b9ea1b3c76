/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-flow ACK RTT and READ latency percentiles (rk_insp_timing.h). */
#include "rk_insp_timing.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rk_opcode.h"
#include "rk_xeth.h"

int
rk_insp_timing_init(struct rk_insp_timing *t)
{
	memset(t, 0, sizeof(*t));
	rk_insp_cm_init(&t->cm);
	return rk_insp_htab_init(&t->hash, 256, 1u << 16);
}

void
rk_insp_timing_fini(struct rk_insp_timing *t)
{
	struct rk_insp_timing_flow *f = t->head;

	while (f != NULL) {
		struct rk_insp_timing_flow *n = f->next;

		rk_insp_lat_free(f->rtt);
		rk_insp_lat_free(f->read);
		rk_insp_qp_fini(&f->qp);
		free(f);
		f = n;
	}
	rk_insp_pool_fini(&t->pool);
	rk_insp_htab_fini(&t->hash);
	free(t->cand);
	rk_insp_cm_fini(&t->cm);
	memset(t, 0, sizeof(*t));
}

/* Hash of the flows from @p src to @p dst of kind @p kind. */
static uint64_t
dir_hash(const uint8_t *src, const uint8_t *dst, uint8_t kind, uint8_t lid)
{
	return rk_insp_hash_mix(rk_insp_hash_addr(rk_insp_hash_addr(0x243f6a8885a308d3ull, src),
						  dst), (uint64_t)kind << 8 | lid);
}

/* The timing record of @p flow, made when new; NULL past the cap. */
static struct rk_insp_timing_flow *
timing_get(struct rk_insp_timing *t, struct rk_insp_flow *flow)
{
	struct rk_insp_timing_flow *tf;
	const struct rk_insp_flow_key *k = &flow->key;

	if (flow->timing != NULL || flow->untimed)
		return flow->timing;
	if (t->nflows >= RK_INSP_TIMING_FLOWS_MAX || (tf = calloc(1, sizeof(*tf))) == NULL) {
		t->untimed_flows++;
		flow->untimed = true;
		return NULL;
	}
	tf->flow = flow;
	tf->qp.pool = &t->pool;
	tf->qp.no_frames = true;
	rk_insp_htab_add(&t->hash, &tf->hl, dir_hash(k->src, k->dst, k->kind, k->lid));
	tf->next = t->head;
	t->head = tf;
	t->nflows++;
	flow->timing = tf;
	return tf;
}

/* The record whose rk_insp_qp is @p q. */
static struct rk_insp_timing_flow *
of_qp(struct rk_insp_qp *q)
{
	return (struct rk_insp_timing_flow *)(void *)((char *)q -
						      offsetof(struct rk_insp_timing_flow, qp));
}

/*
 * The request flow answered by response flow @p r: its peer, else one of
 * the timed flows between the same hosts the other way, chosen as the
 * Wireshark plugin does (rk_insp_qp_match()).
 */
static struct rk_insp_timing_flow *
request_flow(struct rk_insp_timing *t, struct rk_insp_timing_flow *r, uint32_t psn)
{
	const struct rk_insp_flow_key *k = &r->flow->key;
	uint64_t h = dir_hash(k->dst, k->src, k->kind, k->lid);
	unsigned int n = 0;
	uint32_t cm_qpn;
	int i;

	if (r->qp.peer != NULL)
		return of_qp(r->qp.peer);
	for (struct rk_insp_hlink *l = rk_insp_htab_chain(&t->hash, h); l != NULL; l = l->next) {
		struct rk_insp_timing_flow *q = rk_insp_hlink_elem(l, struct rk_insp_timing_flow, hl);
		const struct rk_insp_flow_key *qk = &q->flow->key;

		if (l->hash != h || qk->kind != k->kind || qk->lid != k->lid ||
		    memcmp(qk->src, k->dst, 16) != 0 || memcmp(qk->dst, k->src, 16) != 0)
			continue;
		if (n == t->cand_cap) {
			unsigned int cap = t->cand_cap ? t->cand_cap * 2 : 16;
			struct rk_insp_qp_cand *c = realloc(t->cand, cap * sizeof(*c));

			if (c == NULL)
				break;
			t->cand = c;
			t->cand_cap = cap;
		}
		t->cand[n++] = (struct rk_insp_qp_cand){ .qp = &q->qp, .dest_qp = qk->dest_qp };
	}
	i = rk_insp_qp_match(&r->qp, t->cand, n, psn,
			     rk_insp_cm_peer(&t->cm, k, &cm_qpn) ? &cm_qpn : NULL);
	return i >= 0 ? of_qp(t->cand[i].qp) : NULL;
}

void
rk_insp_lat_free(struct rk_insp_lat *l)
{
	if (l != NULL && l->h != NULL) {
		rk_hist_sparse_fini(l->h);
		free(l->h);
	}
	free(l);
}

void
rk_insp_lat_add(struct rk_insp_lat **lp, uint64_t ns)
{
	struct rk_insp_lat *l = *lp;

	if (l == NULL && (l = *lp = calloc(1, sizeof(*l))) == NULL)
		return;
	if (l->h == NULL && l->n < RK_INSP_LAT_EXACT) {
		l->v[l->n++] = ns;
		return;
	}
	if (l->h == NULL) {
		if ((l->h = calloc(1, sizeof(*l->h))) == NULL)
			return;
		for (uint32_t i = 0; i < l->n; i++)
			(void)rk_hist_sparse_add(l->h, l->v[i]);
	}
	(void)rk_hist_sparse_add(l->h, ns);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void
rk_insp_timing_packet(struct rk_insp_timing *t, struct rk_insp_flow *flow,
		      const struct rk_insp_roce *r, const struct rk_insp_seq_result *seq)
{
	uint32_t fl = r->opflags;
	struct rk_insp_timing_flow *tf, *q;

	if (seq->note == RK_INSP_SEQ_DUP && !seq->pending)
		flow->dup_payload_bytes += r->payload_len;
	if (r->icrc == RK_ICRC_BAD || !(fl & RK_OPF_VALID) || (fl & RK_OPF_CNP))
		return;
	if (fl & RK_OPF_REQ) {
		if (r->transport != RK_TR_RC && r->transport != RK_TR_XRC)
			return;
		if ((tf = timing_get(t, flow)) != NULL) {
			rk_insp_qp_request(&tf->qp, r->psn, (uint32_t)r->frame, r->ts_ns,
					   (fl & RK_OPF_READ_REQ) != 0);
			/* The next request of the flow likely takes the next entry. */
			if (tf->qp.req != NULL)
				flow->hint = &tf->qp.req[(r->psn + 1) & (tf->qp.req_size - 1)];
		}
		return;
	}
	if (!(fl & RK_OPF_RESP) || (tf = timing_get(t, flow)) == NULL)
		return;
	q = request_flow(t, tf, r->psn);
	if (q == NULL) {
		t->unpaired++;
		return;
	}
	if (fl & (RK_OPF_ACK | RK_OPF_ATOMIC_ACK) && r->has_aeth) {
		enum rk_aeth_kind kind = rk_aeth_kind(r->syndrome);
		struct rk_insp_qp_ack ack;

		if (kind == RK_AETH_RNR_NAK)
			return;
		rk_insp_qp_ack(&q->qp, r->psn, kind == RK_AETH_NAK, r->ts_ns, &ack);
		if (ack.timed)
			rk_insp_lat_add(&q->rtt, ack.rtt_ns);
	}
	if (fl & RK_OPF_READ_RESP && fl & RK_OPF_FIRST) {
		uint32_t frame;
		uint64_t rt;

		if (rk_insp_qp_read_response(&q->qp, r->psn, r->ts_ns, &frame, &rt))
			rk_insp_lat_add(&q->read, rt);
	}
}

struct rk_insp_pctl
rk_insp_pctl_of(const struct rk_insp_lat *l)
{
	struct rk_insp_pctl p = { 0, 0, 0, 0 };
	const struct rk_hist_sparse *h = l != NULL ? l->h : NULL;

	if (l != NULL && h == NULL && l->n != 0) {
		uint64_t s[RK_INSP_LAT_EXACT];

		memcpy(s, l->v, l->n * sizeof(s[0]));
		qsort(s, l->n, sizeof(s[0]), cmp_u64);
		p.count = l->n;
		/* rank ceil(n x q): n <= 16, no overflow */
		p.p50 = s[(l->n * 50 + 99) / 100 - 1];
		p.p99 = s[(l->n * 99 + 99) / 100 - 1];
		p.max = s[l->n - 1];
		return p;
	}
	if (h == NULL || h->count == 0)
		return p;
	p.count = h->count;
	p.p50 = rk_hist_sparse_quantile(h, 50000);
	p.p99 = rk_hist_sparse_quantile(h, 99000);
	p.max = rk_hist_sparse_quantile(h, 100000);
	return p;
}
