/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-QP analysis: the flow table and host pairs, per-packet accounting
 * (opcodes, ICRC, ECN, PMTU inference, ACKs and NAKs seen) and the entry
 * point that hands requests and responses to the PSN sequences
 * (rk_insp_seq_request.c, rk_insp_seq_response.c) and the message state
 * (rk_insp_msg.c).
 */
#include "rk_insp_flow_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rk_bth.h"
#include "rk_psn.h"
#include "rk_xeth.h"

static uint64_t
key_hash(const struct rk_insp_flow_key *k)
{
	uint64_t h = 0x243f6a8885a308d3ull;

	h = rk_insp_hash_addr(h, k->src);
	h = rk_insp_hash_addr(h, k->dst);
	return rk_insp_hash_mix(h, (uint64_t)k->dest_qp << 16 | (uint64_t)k->kind << 8 | k->lid);
}

static bool
key_eq(const struct rk_insp_flow_key *a, const struct rk_insp_flow_key *b)
{
	return a->dest_qp == b->dest_qp && a->kind == b->kind &&
	       a->lid == b->lid && memcmp(a->src, b->src, 16) == 0 &&
	       memcmp(a->dst, b->dst, 16) == 0;
}

int
rk_insp_flows_init(struct rk_insp_flows *t, const struct rk_insp_flow_opts *opts)
{
	memset(t, 0, sizeof(*t));
	if (opts != NULL)
		t->opts = *opts;
	if (t->opts.max_flows == 0)
		t->opts.max_flows = RK_INSP_MAX_FLOWS_DEFAULT;
	if (rk_insp_htab_init(&t->hash, 256, 1u << 26) != 0 ||
	    rk_insp_htab_init(&t->phash, 64, 1u << 24) != 0) {
		rk_insp_htab_fini(&t->hash);
		return -ENOMEM;
	}
	return 0;
}

void
rk_insp_flows_fini(struct rk_insp_flows *t)
{
	struct rk_insp_flow *f = t->head;
	struct rk_insp_path *p = t->phead;

	while (f != NULL) {
		struct rk_insp_flow *n = f->next;

		free(f->lost);
		rk_insp_flow_qos_fini(&f->qos);
		rk_insp_seqx_free(f->req.x);
		rk_insp_seqx_free(f->resp.x);
		free(f->copies.win);
		free(f);
		f = n;
	}
	while (p != NULL) {
		struct rk_insp_path *n = p->next;

		free(p);
		p = n;
	}
	rk_insp_htab_fini(&t->hash);
	rk_insp_htab_fini(&t->phash);
	free(t->untracked_bits);
	memset(t, 0, sizeof(*t));
}

struct rk_insp_flow *
rk_insp_flow_find(const struct rk_insp_flows *t, const struct rk_insp_flow_key *key)
{
	uint64_t h = key_hash(key);

	for (struct rk_insp_hlink *l = rk_insp_htab_chain(&t->hash, h); l != NULL; l = l->next) {
		struct rk_insp_flow *f = rk_insp_hlink_elem(l, struct rk_insp_flow, hl);

		if (l->hash == h && key_eq(&f->key, key))
			return f;
	}
	return NULL;
}

/* Lookup with a one-entry cache: packets of a flow come in bursts. */
static struct rk_insp_flow *
find_cached(struct rk_insp_flows *t, const struct rk_insp_flow_key *key)
{
	struct rk_insp_flow *f = t->last;

	if (f != NULL && key_eq(&f->key, key))
		return f;
	f = rk_insp_flow_find(t, key);
	if (f != NULL)
		t->last = f;
	return f;
}

/*
 * A packet of a flow the full table does not track. Distinct flows are
 * counted by the bits their key hashes set in a fixed bitmap: bounded
 * memory whatever the capture holds, at the price of hash collisions (an
 * undercount of about n / 2^24 relative: 5% at a million flows).
 */
static void
untracked(struct rk_insp_flows *t, const struct rk_insp_flow_key *key)
{
	uint64_t h;
	uint8_t bit;

	t->untracked_packets++;
	if (t->untracked_bits == NULL) {
		t->untracked_bits = calloc(UNTRACKED_BITS / 8, 1);
		if (t->untracked_bits == NULL)
			return;
	}
	h = key_hash(key) & (UNTRACKED_BITS - 1);
	bit = (uint8_t)(1u << (h & 7));
	if (!(t->untracked_bits[h >> 3] & bit)) {
		t->untracked_bits[h >> 3] |= bit;
		t->untracked_flows++;
	}
}

static struct rk_insp_flow *
flow_get(struct rk_insp_flows *t, const struct rk_insp_flow_key *key)
{
	struct rk_insp_flow *f = find_cached(t, key);

	if (f != NULL)
		return f;
	if (t->nflows >= t->opts.max_flows) {
		untracked(t, key);
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (f == NULL)
		return NULL;
	f->key = *key;
	rk_insp_htab_add(&t->hash, &f->hl, key_hash(key));
	if (t->tail != NULL)
		t->tail->next = f;
	else
		t->head = f;
	t->tail = f;
	t->nflows++;
	t->last = f;
	return f;
}

static uint64_t
path_hash(const uint8_t *a, const uint8_t *b, uint8_t lid)
{
	return rk_insp_hash_mix(rk_insp_hash_addr(rk_insp_hash_addr(0x13198a2e03707344ull, a), b), lid);
}

struct rk_insp_path *
rk_insp_path_lookup(const struct rk_insp_flows *t, const struct rk_insp_flow_key *k,
	    int *dir)
{
	const uint8_t *a = k->src, *b = k->dst;
	struct rk_insp_path *p;
	uint64_t h;

	*dir = 0;
	if (memcmp(a, b, 16) > 0) {
		a = k->dst;
		b = k->src;
		*dir = 1;
	}
	h = path_hash(a, b, k->lid);
	for (struct rk_insp_hlink *l = rk_insp_htab_chain(&t->phash, h); l != NULL; l = l->next) {
		p = rk_insp_hlink_elem(l, struct rk_insp_path, hl);
		if (l->hash == h && p->lid == k->lid && memcmp(p->a, a, 16) == 0 &&
		    memcmp(p->b, b, 16) == 0)
			return p;
	}
	return NULL;
}

/* The host pair of a flow; @p dir is 0 when the flow's source is side a. */
static struct rk_insp_path *
path_get(struct rk_insp_flows *t, const struct rk_insp_flow_key *k, int *dir)
{
	struct rk_insp_path *p = rk_insp_path_lookup(t, k, dir);

	if (p != NULL)
		return p;
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return NULL;
	memcpy(p->a, *dir ? k->dst : k->src, 16);
	memcpy(p->b, *dir ? k->src : k->dst, 16);
	p->lid = k->lid;
	rk_insp_htab_add(&t->phash, &p->hl, path_hash(p->a, p->b, p->lid));
	p->next = t->phead;
	t->phead = p;
	t->npaths++;
	return p;
}

uint32_t
rk_insp_flow_pmtu(const struct rk_insp_flows *t, const struct rk_insp_flow *flow)
{
	struct rk_insp_path *p;
	int dir;

	if (t->opts.pmtu != 0)
		return t->opts.pmtu;
	if (flow->pmtu_seen != 0)
		return flow->pmtu_seen;
	p = rk_insp_path_lookup(t, &flow->key, &dir);
	return p != NULL ? p->pmtu : 0;
}

static void
count_opcode(struct rk_insp_flow *f, uint8_t op)
{
	for (unsigned int i = 0; i < f->nops; i++) {
		if (f->ops[i].opcode == op) {
			f->ops[i].count++;
			return;
		}
	}
	if (f->nops < RK_INSP_OPHIST) {
		f->ops[f->nops].opcode = op;
		f->ops[f->nops].count = 1;
		f->nops++;
		return;
	}
	f->ops_other++;
}

uint64_t
rk_insp_flow_opcount(const struct rk_insp_flow *flow, uint8_t op)
{
	for (unsigned int i = 0; i < flow->nops; i++)
		if (flow->ops[i].opcode == op)
			return flow->ops[i].count;
	return 0;
}

void
rk_insp_flow_count_findings(struct rk_insp_flow *flow, const struct rk_findings *f)
{
	for (unsigned int i = 0; i < f->count; i++)
		if (f->list[i].id < RK_F_COUNT)
			flow->findings[f->list[i].id]++;
}

static bool
is_pmtu_value(uint32_t v)
{
	return v == 256 || v == 512 || v == 1024 || v == 2048 || v == 4096;
}

/*
 * The request after a READ of unknown span shows the span: when exactly
 * one IBA PMTU gives ceil(DMALen / PMTU) == span, that is the PMTU (the
 * usual case with pipelined READs before any response is seen).
 */
static void
learn_pmtu_from_read(struct rk_insp_flows *t, struct rk_insp_flow *flow,
		     struct rk_insp_path **path, int *dir, uint32_t psn)
{
	int32_t span = rk_psn_diff(psn, flow->req.resync_psn);
	uint32_t found = 0;
	int n = 0;

	if (span <= 0)
		return;
	for (uint32_t pmtu = MIN_PMTU; pmtu <= 4096; pmtu *= 2) {
		if (((uint64_t)flow->req.resync_len + pmtu - 1) / pmtu == (uint64_t)span) {
			found = pmtu;
			n++;
		}
	}
	if (n != 1)
		return;
	flow->pmtu_seen = found;
	if (*path == NULL)
		*path = path_get(t, &flow->key, dir);
	if (*path != NULL && (*path)->pmtu == 0)
		(*path)->pmtu = found;
}

/* The PSNs an ACK or NAK of this side's responder acknowledges. */
static void
note_acked(struct rk_insp_flows *t, const struct rk_insp_roce *r, struct rk_insp_path **path,
	   int *dir)
{
	enum rk_aeth_kind k = rk_aeth_kind(r->syndrome);
	uint32_t psn = r->psn;

	if (k == RK_AETH_RESERVED)
		return;
	/* A NAK names the PSN expected next: those before it arrived. */
	if (k != RK_AETH_ACK)
		psn = rk_psn_add(psn, RK_PSN_MASK);
	if (*path == NULL)
		*path = path_get(t, &r->key, dir);
	if (*path == NULL)
		return;
	if (!(*path)->acked_valid[*dir] || rk_psn_diff(psn, (*path)->acked[*dir]) > 0) {
		(*path)->acked[*dir] = psn;
		(*path)->acked_valid[*dir] = true;
	}
}

struct rk_insp_flow *
rk_insp_flow_packet(struct rk_insp_flows *t, const struct rk_insp_roce *r,
		    struct rk_findings *found, struct rk_insp_seq_result *res)
{
	struct rk_insp_flow *flow;
	struct rk_insp_path *path;
	uint32_t fl = r->opflags;
	int dir = 0;

	memset(res, 0, sizeof(*res));
	flow = flow_get(t, &r->key);
	if (flow == NULL)
		return NULL;
	/* What the views will touch; a prefetch of NULL is harmless. */
	__builtin_prefetch(flow->hint, 1);
	__builtin_prefetch(flow->timing, 1);
	__builtin_prefetch(flow->qos.pair_sd, 1);
	if (flow->packets == 0) {
		flow->first_frame = r->frame;
		flow->first_ts_ns = r->ts_ns;
		flow->transport = r->transport;
	}
	flow->last_frame = r->frame;
	flow->last_ts_ns = r->ts_ns;
	flow->packets++;
	flow->bytes += r->wirelen;
	flow->payload_bytes += r->payload_len;
	count_opcode(flow, r->opcode);
	if (r->truncated)
		flow->truncated++;
	else if (r->icrc == RK_ICRC_BAD)
		flow->icrc_bad++;
	else if (r->icrc == RK_ICRC_GOOD)
		flow->icrc_good++;
	rk_insp_flow_qos_add(&flow->qos, &r->qos);
	flow->fecn += r->fecn;
	flow->becn += r->becn;
	flow->ack_req += r->ack_req;

	/* The receiver drops a packet with a bad ICRC, and none of its
	 * header can be trusted: count it, keep it out of the sequence. */
	if (r->icrc == RK_ICRC_BAD)
		return flow;
	if (fl & RK_OPF_CNP) {
		flow->cnps++;
		return flow;
	}
	if (!(fl & RK_OPF_VALID))
		return flow;

	/* The host pair is needed only to match READs with their responses
	 * and to share a newly inferred PMTU. */
	path = NULL;
	if (fl & (RK_OPF_READ_REQ | RK_OPF_READ_RESP))
		path = path_get(t, &r->key, &dir);

	/* A FIRST or MIDDLE packet carries exactly one PMTU of payload. */
	if ((fl & RK_OPF_MIDDLE || is_first_only(fl)) && !r->truncated &&
	    is_pmtu_value(r->payload_len) && flow->pmtu_seen != r->payload_len) {
		flow->pmtu_seen = r->payload_len;
		if (path == NULL)
			path = path_get(t, &r->key, &dir);
		if (path != NULL)
			path->pmtu = r->payload_len;
	}

	/* UD carries no reliable sequence; PSNs of several senders mix. */
	if (r->transport == RK_TR_UD) {
		flow->messages++;
		return flow;
	}

	if (fl & RK_OPF_REQ) {
		bool unknown = false;
		uint32_t span = 1;
		bool checkable, taint;

		/* Learn the PMTU first: this packet may be a READ too. */
		if (flow->req.valid && flow->req.resync &&
		    rk_psn_diff(r->psn, flow->req.hw) > 0)
			learn_pmtu_from_read(t, flow, &path, &dir, r->psn);
		if (fl & RK_OPF_READ_REQ) {
			span = rk_insp_read_span(t, flow, path, r->dma_len, &unknown);
			if (path != NULL)
				rk_insp_read_remember(path, dir, r->psn, r->dma_len);
		}
		rk_insp_copies_request(flow, path, dir, r, span, unknown);
		rk_insp_track_request(t, flow, r, span, unknown, res);
		if (unknown) {
			flow->req.resync_psn = r->psn;
			flow->req.resync_len = r->dma_len;
		}
		checkable = res->note == RK_INSP_SEQ_IN_ORDER ||
			    (res->note == RK_INSP_SEQ_DUP && !res->rtx_start &&
			     res->missing == 0 && !res->skip);
		taint = res->note == RK_INSP_SEQ_GAP ||
			res->note == RK_INSP_SEQ_RESYNC || res->rtx_start ||
			res->missing != 0 || res->skip;
		if (res->pending) {
			/* No message state until the verdict (chain_settle);
			 * an ONLY is judged on its own. */
			if (is_only(fl) && (fl & RK_OPF_WRITE) && r->has_reth &&
			    !r->truncated && r->payload_len != r->dma_len)
				rk_findings_add(found, RK_F_MSG_LEN_MISMATCH, 0);
		} else if (res->note == RK_INSP_SEQ_DUP) {
			if (res->rtx_start)
				flow->rtx_msg.state = MSG_UNKNOWN;
			rk_insp_request_message(&flow->rtx_msg, r, checkable, taint, found, 0);
		} else {
			rk_insp_request_message(&flow->req_msg, r, checkable, taint, found, 0);
		}
		if (res->note == RK_INSP_SEQ_GAP)
			rk_insp_lost_add(flow, res->expected, res->missing);
		/* A message counts once, by its LAST/ONLY (or READ) PSN: on its
		 * first transmission, or on the retransmission of a lost one. */
		if ((fl & RK_OPF_LAST) || (fl & MSG_KINDS) == 0) {
			if (res->note != RK_INSP_SEQ_DUP || rk_insp_lost_take(flow, r->psn)) {
				if (fl & RK_OPF_READ_REQ)
					flow->read_requests++;
				flow->messages++;
			}
		}
	} else if (fl & RK_OPF_RESP) {
		if (r->has_aeth && !(fl & RK_OPF_READ_RESP))
			note_acked(t, r, &path, &dir);
		if (r->has_aeth && (rk_aeth_kind(r->syndrome) == RK_AETH_RNR_NAK ||
				    (rk_aeth_kind(r->syndrome) == RK_AETH_NAK &&
				     (r->syndrome & RK_AETH_VALUE_MASK) == RK_AETH_NAK_PSN_SEQ_ERR))) {
			if (path == NULL)
				path = path_get(t, &r->key, &dir);
			if (path != NULL) {
				path->naks[dir][path->nak_pos[dir]] = r->psn;
				path->nak_pos[dir] = (path->nak_pos[dir] + 1) % NAK_RING;
				if (path->nak_n[dir] < NAK_RING)
					path->nak_n[dir]++;
			}
		}
		if ((fl & RK_OPF_READ_RESP) && path != NULL)
			rk_insp_copies_response(path, dir, flow, r->psn);
		rk_insp_response(t, flow, path, dir, r, found, res);
		if (res->note == RK_INSP_SEQ_GAP && (fl & RK_OPF_READ_RESP) && path != NULL)
			rk_insp_copies_gap(path, dir, r->psn, res->missing);
	}
	return flow;
}

const uint8_t *
rk_insp_xeth(const struct rk_pkt *pkt, enum rk_hdr h, uint32_t len)
{
	const uint8_t *x = rk_pkt_xeth(pkt, h);

	/* A frame cut by the snap length may end inside the header. */
	if (x == NULL || x < pkt->frame ||
	    (uint64_t)(x - pkt->frame) + len > pkt->caplen)
		return NULL;
	return x;
}

void
rk_insp_roce_from_pkt(struct rk_insp_roce *r, const struct rk_pkt *pkt,
		      uint64_t frame)
{
	const uint8_t *bth = rk_pkt_bth(pkt);
	const uint8_t *x;

	memset(r, 0, sizeof(*r));
	r->frame = frame;
	r->key.kind = (uint8_t)pkt->kind;
	if (pkt->layers & (RK_L_IPV4 | RK_L_IPV6 | RK_L_GRH)) {
		memcpy(r->key.src, pkt->src_ip, 16);
		memcpy(r->key.dst, pkt->dst_ip, 16);
	} else {
		/* Native IB without GRH: LIDs name the ports. */
		r->key.lid = 1;
		r->key.src[14] = (uint8_t)(pkt->src_lid >> 8);
		r->key.src[15] = (uint8_t)pkt->src_lid;
		r->key.dst[14] = (uint8_t)(pkt->dst_lid >> 8);
		r->key.dst[15] = (uint8_t)pkt->dst_lid;
	}
	r->key.dest_qp = rk_bth_dest_qp(bth);
	r->opcode = pkt->opcode;
	r->opflags = pkt->op != NULL ? pkt->op->flags : 0;
	r->transport = pkt->op != NULL ? pkt->op->transport : (uint8_t)(pkt->opcode >> 5);
	r->psn = rk_bth_psn(bth);
	r->ack_req = rk_bth_ack_req(bth);
	r->fecn = rk_bth_fecn(bth);
	r->becn = rk_bth_becn(bth);
	x = rk_insp_xeth(pkt, RK_HDR_RETH, RK_RETH_LEN);
	if (x != NULL) {
		r->has_reth = true;
		r->dma_len = rk_reth_dma_len(x);
	}
	x = rk_insp_xeth(pkt, RK_HDR_AETH, RK_AETH_LEN);
	if (x != NULL) {
		r->has_aeth = true;
		r->syndrome = rk_aeth_syndrome(x);
		r->msn = rk_aeth_msn(x);
	}
	r->payload_len = pkt->payload_len;
	r->wirelen = pkt->wirelen;
	r->truncated = pkt->truncated;
	r->icrc = pkt->icrc_status;
	rk_insp_qos_marks_of(&r->qos, pkt);
}
