/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RoCE frames of the plugin's analysis: the per-QP records over the flow
 * analysis (sequence verdicts, messages, ACK coverage, QP pairing) and the
 * end of the RoCE analysis.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "rkw_analysis_int.h"
#include "rk_bth.h"
#include "rk_cm.h"
#include "rk_psn.h"
#include "rk_xeth.h"

/* The plugin's record of the flow whose analysis is @p an. */
static struct rkw_qp *
qp_from_an(struct rk_insp_qp *an)
{
	return an == NULL ? NULL : (struct rkw_qp *)((char *)an - offsetof(struct rkw_qp, an));
}

static void
key_from_insp(struct rkw_key *k, const struct rk_insp_flow_key *ik)
{
	memset(k, 0, sizeof(*k));
	memcpy(k->src, ik->src, 16);
	memcpy(k->dst, ik->dst, 16);
	k->qp = ik->dest_qp;
	k->kind = (uint32_t)ik->kind << 8 | ik->lid;
}

static struct rkw_qp *
qp_of(struct rkw_state *s, const struct rk_insp_flow *flow, const struct rk_insp_roce *r)
{
	struct rkw_qp *q = g_hash_table_lookup(s->qps, flow);
	char a[64], b[64], label[160];
	uint8_t pair[32];
	GPtrArray *list;

	if (q != NULL)
		return q;
	q = g_malloc0(sizeof(*q));
	key_from_insp(&q->key, &r->key);
	q->ikey = r->key;
	if (r->key.lid) {
		snprintf(a, sizeof(a), "LID %u", r->key.src[14] << 8 | r->key.src[15]);
		snprintf(b, sizeof(b), "LID %u", r->key.dst[14] << 8 | r->key.dst[15]);
	} else {
		rkw_addr_str(r->key.src, a, sizeof(a));
		rkw_addr_str(r->key.dst, b, sizeof(b));
	}
	snprintf(label, sizeof(label), "%s > %s DestQP 0x%06x", a, b, r->key.dest_qp);
	q->idx = rkw_new_flow(s, label, false);
	g_hash_table_insert(s->qps, (gpointer)flow, q);
	memcpy(pair, q->key.src, 16);
	memcpy(pair + 16, q->key.dst, 16);
	list = g_hash_table_lookup(s->hostpairs, pair);
	if (list == NULL) {
		list = g_ptr_array_new();
		g_hash_table_insert(s->hostpairs, g_memdup2(pair, 32), list);
	}
	g_ptr_array_add(list, q);
	return q;
}

/* The request flow answered by response flow @p r (same QP, other way). */
static struct rkw_qp *
request_flow(struct rkw_state *s, struct rkw_qp *r, uint32_t psn)
{
	uint8_t pair[32];
	GPtrArray *list;
	struct rk_insp_qp_cand *cand;
	struct rkw_qp *best = NULL;
	unsigned int n = 0;
	uint32_t cm_qpn;
	int i;

	if (r->an.peer != NULL)
		return qp_from_an(r->an.peer);
	memcpy(pair, r->key.dst, 16);
	memcpy(pair + 16, r->key.src, 16);
	list = g_hash_table_lookup(s->hostpairs, pair);
	if (list == NULL)
		return NULL;
	cand = g_new(struct rk_insp_qp_cand, list->len);
	for (unsigned int k = 0; k < list->len; k++) {
		struct rkw_qp *q = g_ptr_array_index(list, k);

		if (q->key.kind == r->key.kind)
			cand[n++] = (struct rk_insp_qp_cand){ .qp = &q->an, .dest_qp = q->key.qp };
	}
	i = rk_insp_qp_match(&r->an, cand, n, psn,
			     rk_insp_cm_peer(&s->cm, &r->ikey, &cm_qpn) ? &cm_qpn : NULL);
	if (i >= 0)
		best = qp_from_an(cand[i].qp);
	g_free(cand);
	return best;
}

/* CM REQ / REP over the GSI (QP1) name both QPs of a connection. */
static void
cm_mad(struct rkw_state *s, const struct rk_pkt *pkt, uint32_t dest_qp)
{
	struct rk_cm_msg msg;

	if (dest_qp != 1 || pkt->payload_off + pkt->payload_len > pkt->caplen ||
	    rk_cm_decode(pkt->frame + pkt->payload_off, pkt->payload_len, &msg) != 0)
		return;
	/* Out of memory only loses the pairing. */
	if (msg.hdr.attr_id == RK_CM_REQ)
		(void)rk_insp_cm_req(&s->cm, pkt->src_ip, pkt->dst_ip, msg.req.local_comm_id,
				     msg.req.local_qpn);
	else if (msg.hdr.attr_id == RK_CM_REP)
		(void)rk_insp_cm_rep(&s->cm, msg.rep.remote_comm_id, msg.rep.local_qpn,
				     (uint8_t)pkt->kind);
}

/*
 * Message lengths: first transmissions and the current go-back-N run are
 * summed apart (a run may restart mid-message); whether a LAST ends a
 * message is rk-inspect's decision (the flow analysis's message counters).
 */
static void
msg_account(struct rkw_msg m[2], struct rkw_roce *o, uint32_t opflags, const uint8_t *payload,
	    uint32_t len, bool keep, uint32_t num)
{
	struct rkw_msg *a = &m[o->seq == RKW_SEQ_DUP];

	if (opflags & RK_OPF_FIRST || !a->open) {
		a->open = true;
		a->incomplete = !(opflags & RK_OPF_FIRST);
		a->len = 0;
		a->packets = 0;
		a->first_frame = num;
		rkw_data_reset(&a->data, keep);
	}
	if (o->missing != 0)
		a->incomplete = true;
	a->len += len;
	a->packets++;
	if (payload == NULL)
		rkw_data_drop(&a->data);
	else if (len != 0)
		rkw_data_add(&a->data, payload, len);
	if (opflags & RK_OPF_LAST) {
		o->msg_len = a->len;
		o->msg_first_frame = a->first_frame;
		o->msg_packets = a->packets;
		o->msg_incomplete = a->incomplete;
		if (o->msg_end && !a->incomplete)
			o->msg_data = rkw_data_take(&a->data);
		a->open = false;
	}
}

/* Missing PSNs the flow analysis counts on sequence @p c (0 requests, 1 responses). */
static uint64_t
seq_missing(const struct rk_insp_flow *flow, int c)
{
	if (flow == NULL)
		return 0;
	return c ? flow->resp.missing : flow->req.missing + flow->req.rtx_missing;
}

/*
 * The verdict on the frames of sequence @p c waiting in @p q: their records
 * become what it says, and the PSNs they show lost count as shown.
 * @return the READ response messages the verdict ended in them.
 */
static unsigned int
pend_settle(struct rkw_state *s, struct rkw_qp *q, int c, enum rk_insp_verdict v)
{
	unsigned int msgs = 0;

	for (unsigned int i = 0; i < q->npend[c]; i++) {
		struct rkw_frame *f = rkw_lookup(s, q->pend[c][i]);
		struct rkw_roce *o;

		if (f == NULL)
			continue;
		o = &f->roce;
		if (v == RK_INSP_VERDICT_LATE) {
			o->seq = o->pending_rtx ? RKW_SEQ_DUP : RKW_SEQ_LATE;
			o->out_of_order = true;
			o->rtx_start = false;
			o->missing = 0;
		}
		q->shown[c] += o->missing;
		/* rk-inspect counts a READ response message on a late LAST, and
		 * on a replayed one unless it went back. */
		if (c == 1 && o->pending_last &&
		    (v == RK_INSP_VERDICT_LATE || o->seq != RKW_SEQ_DUP)) {
			o->msg_end = true;
			msgs++;
		}
	}
	q->npend[c] = 0;
	return msgs;
}

/*
 * Make the PSNs the frames of sequence @p c show lost agree with the flow
 * analysis's count: a verdict, a late copy or a skip found out of the run
 * may take back PSNs counted before (not_lost), and a replayed chain may
 * count other PSNs than its frames showed while pending. The difference
 * goes to frame @p num (0: none yet; it waits for the next one).
 */
static void
shown_reconcile(struct rkw_state *s, struct rkw_qp *q, const struct rk_insp_flow *flow, int c,
		uint32_t num)
{
	uint64_t counted = seq_missing(flow, c);
	struct rkw_frame *f = num != 0 ? rkw_lookup(s, num) : NULL;
	uint64_t d;

	if (f == NULL || counted == q->shown[c])
		return;
	if (counted < q->shown[c]) {
		d = q->shown[c] - counted;
		if (d > UINT32_MAX - f->roce.not_lost)
			d = UINT32_MAX - f->roce.not_lost;
		f->roce.not_lost += (uint32_t)d;
		q->shown[c] -= d;
	} else {
		d = counted - q->shown[c];
		if (d > UINT32_MAX - f->roce.missing)
			d = UINT32_MAX - f->roce.missing;
		f->roce.missing += (uint32_t)d;
		q->shown[c] += d;
	}
}

void
rkw_roce_frame(struct rkw_state *s, struct rkw_frame *rec, const struct rk_pkt *pkt,
	       uint32_t num)
{
	struct rk_insp_roce r;
	struct rk_insp_seq_result seq;
	struct rk_findings found;
	struct rk_insp_flow *flow;
	struct rkw_roce *o = &rec->roce;
	struct rkw_qp *q, *f;
	uint64_t msgs_before;
	unsigned int settled_msgs = 0;
	uint32_t settled_at = 0;
	int c;
	/* The payload, when every byte of it was captured. */
	const uint8_t *payload = pkt->payload_off + (uint64_t)pkt->payload_len <= pkt->caplen ?
				 pkt->frame + pkt->payload_off : NULL;

	rec->is_roce = true;
	rk_insp_roce_from_pkt(&r, pkt, num);
	if (r.opcode == 0x64 && r.transport == 3) /* UD SEND Only: maybe a MAD */
		cm_mad(s, pkt, r.key.dest_qp);
	memset(&found, 0, sizeof(found));
	flow = rk_insp_flow_find(&s->flows, &r.key);
	c = (r.opflags & RK_OPF_RESP) != 0;
	msgs_before = flow != NULL ? flow->messages + flow->read_resp_messages : 0;
	flow = rk_insp_flow_packet(&s->flows, &r, &found, &seq);
	if (flow == NULL)
		return;
	q = qp_of(s, flow, &r);
	if (seq.resolved != RK_INSP_VERDICT_NONE) {
		/* LATE takes back PSNs counted before its chain; a replay
		 * corrects what its frames showed, after them. */
		if (q->npend[c] != 0)
			settled_at = q->pend[c][seq.resolved == RK_INSP_VERDICT_LATE ?
						   0 : q->npend[c] - 1];
		settled_msgs = pend_settle(s, q, c, seq.resolved);
	}
	/* Counted by rk-inspect as a message here (READ requests included). */
	o->msg_end = flow->messages + flow->read_resp_messages > msgs_before + settled_msgs;
	if (found.count != 0) {
		o->found = g_memdup2(&found, sizeof(found));
		rk_insp_flow_count_findings(flow, &found);
	}
	o->flow = q->idx;
	o->seq = (uint8_t)seq.note;
	o->seq_is_resp = (r.opflags & RK_OPF_RESP) != 0;
	o->missing = seq.missing;
	o->rtx_start = seq.rtx_start;
	o->expected = seq.expected;
	if (seq.pending) {
		o->pending_rtx = seq.pending_rtx;
		o->pending_last = (r.opflags & RK_OPF_LAST) != 0;
		if (q->npend[c] < RKW_PEND_MAX)
			q->pend[c][q->npend[c]++] = num;
	} else {
		q->shown[c] += o->missing;
		q->last_frame[c] = num;
	}
	/* What the counts changed by beyond what the frames show: on a
	 * frame a verdict settled (see above), else
	 * on this one, or the last one with a verdict while this one waits. */
	shown_reconcile(s, q, flow, c, settled_at != 0 ? settled_at :
			!seq.pending ? num : q->last_frame[c]);

	if (r.opflags & RK_OPF_REQ) {
		rk_insp_qp_request(&q->an, r.psn, num, s->cur_ts,
				   (r.opflags & RK_OPF_READ_REQ) != 0);
		if (r.opflags & (RK_OPF_SEND | RK_OPF_WRITE))
			msg_account(q->msg[0], o, r.opflags, payload, r.payload_len,
				    s->opts.keep_payload, num);
		else if (o->msg_end) {
			/* READ, atomic: one packet; a READ's length is its DMALen. */
			o->msg_first_frame = num;
			o->msg_packets = 1;
			o->msg_len = r.has_reth ? r.dma_len : 0;
		}
	}
	if (r.opflags & RK_OPF_READ_RESP)
		msg_account(q->msg[1], o, r.opflags, payload, r.payload_len,
			    s->opts.keep_payload, num);

	if (r.has_aeth) {
		uint8_t kind = (uint8_t)rk_aeth_kind(r.syndrome);

		if (kind == RK_AETH_NAK) {
			o->nak = true;
			o->nak_code = r.syndrome & RK_AETH_VALUE_MASK;
		} else if (kind == RK_AETH_RNR_NAK) {
			o->rnr = true;
			o->rnr_timer = r.syndrome & RK_AETH_VALUE_MASK;
		}
	}

	if (!(r.opflags & RK_OPF_RESP))
		goto peer;
	f = request_flow(s, q, r.psn);
	if (f == NULL)
		goto peer;
	o->req_flow = f->idx;
	if (r.opflags & (RK_OPF_ACK | RK_OPF_ATOMIC_ACK) && !o->rnr) {
		struct rk_insp_qp_ack ack;

		rk_insp_qp_ack(&f->an, r.psn, o->nak, s->cur_ts, &ack);
		o->ack_range = true;
		o->ack_first = ack.first;
		o->ack_last = ack.last;
		o->ack_count = ack.count;
		o->ack_req_frame = ack.req_frame;
		o->ack_rtt_ns = ack.rtt_ns;
	}
	if (r.opflags & RK_OPF_READ_RESP && r.opflags & RK_OPF_FIRST)
		(void)rk_insp_qp_read_response(&f->an, r.psn, s->cur_ts, &o->read_req_frame,
					       &o->read_rt_ns);
peer:
	if (r.transport == RK_TR_UD) {
		const uint8_t *d = rk_insp_xeth(pkt, RK_HDR_DETH, RK_DETH_LEN);

		if (d != NULL) {
			o->peer_qp = rk_deth_src_qp(d);
			o->peer_src = RK_INSP_PEER_DETH;
		}
	} else if (q->an.peer == NULL) {
		uint32_t qpn;

		if (rk_insp_cm_peer(&s->cm, &q->ikey, &qpn)) {
			o->peer_qp = qpn;
			o->peer_src = RK_INSP_PEER_CM;
		}
	} else {
		o->peer_qp = qp_from_an(q->an.peer)->key.qp;
		o->peer_src = q->an.peer_src;
	}
}

/* A verdict still open at the end: retransmissions, as rk-inspect says. */
static void
settled(void *ctx, struct rk_insp_flow *flow, const void *chain, enum rk_insp_verdict v)
{
	struct rkw_state *s = ctx;
	struct rkw_qp *q = g_hash_table_lookup(s->qps, flow);
	int c = chain == &flow->resp;
	uint32_t first;

	if (q == NULL)
		return;
	first = q->npend[c] == 0 ? q->last_frame[c] :
		q->pend[c][v == RK_INSP_VERDICT_LATE ? 0 : q->npend[c] - 1];
	pend_settle(s, q, c, v);
	shown_reconcile(s, q, flow, c, first);
}

void
rkw_end_roce(struct rkw_state *s)
{
	GHashTableIter it;
	gpointer flow, q;

	if (s->roce_ended)
		return;
	s->roce_ended = true;
	rk_insp_flows_end(&s->flows, settled, s);
	/* A difference still waiting for a frame (the flow's frames all
	 * waited for a verdict when it came). */
	g_hash_table_iter_init(&it, s->qps);
	while (g_hash_table_iter_next(&it, &flow, &q))
		for (int c = 0; c < 2; c++)
			shown_reconcile(s, q, flow, c, ((struct rkw_qp *)q)->last_frame[c]);
}
