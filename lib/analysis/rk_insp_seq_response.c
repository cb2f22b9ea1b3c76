/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The response PSN sequence of a flow: AETH counts, READ responses and
 * their message state, replays told from late packets, and the verdict
 * on a pending chain of READ responses.
 */
#include "rk_insp_flow_int.h"

#include <string.h>

#include "rk_psn.h"
#include "rk_xeth.h"

static void
count_aeth(struct rk_insp_flow *flow, const struct rk_insp_roce *r)
{
	uint8_t s = r->syndrome;

	switch (rk_aeth_kind(s)) {
	case RK_AETH_ACK:
		if (r->opflags & RK_OPF_ACK)
			flow->acks++;
		break;
	case RK_AETH_RNR_NAK:
		flow->rnr_naks++;
		flow->rnr_timer[s & RK_AETH_VALUE_MASK]++;
		break;
	case RK_AETH_NAK:
		flow->naks_total++;
		flow->naks[s & RK_AETH_VALUE_MASK]++;
		break;
	case RK_AETH_RESERVED:
		flow->aeth_reserved++;
		break;
	}
}

/*
 * Whether READ response @p r, after a packet that went back at no hole
 * (tr->x->back), says that packet was late: it is where the open response
 * stood, or, once the flow has shown reordering, anything but a FIRST
 * that does not go on from that packet (see read_response()).
 */
static bool
resp_back(const struct rk_insp_psn_track *tr, const struct rk_insp_msg_state *m,
	  const struct rk_insp_roce *r)
{
	if (r->psn == m->next_psn)
		return false;
	return r->psn == tr->x->back.next_psn ||
	       (tr->reordered > 0 && !(r->opflags & RK_OPF_FIRST));
}

/*
 * The gap just counted on READ responses: remember how many READ requests
 * had come when its response (or replay) began, @p serial, so that a
 * copy of one of its PSNs can be matched to the READs issued after the
 * one being answered (a READ re-issued while the response is under way
 * may be answered after it).
 */
static void
gap_mark_reads(struct rk_insp_psn_track *tr, uint32_t serial)
{
	struct rk_insp_seqx *x = tr->x;

	if (x == NULL)
		return;
	for (unsigned int i = 0; i < x->nevs; i++)
		if (x->evs[i].id == x->gap_id) {
			x->evs[i].rd_serial = serial;
			x->evs[i].replayed = 0;
		}
}

/*
 * Whether READ response @p psn, at the hole of gap @p h, may be a replay: a
 * responder replays READ responses only for a READ request it received
 * (a duplicate READ, IBTA Vol1 ch. 9), one copy of each PSN per request. A
 * replay needs a READ copy sent after the one the gap was in, holding
 * @p psn, whose copy of it has not been seen yet; without one, this is the
 * late packet of the hole. Counted generously: every copy of a READ but
 * its first when that came before, any when a READ may be forgotten or its
 * span is unknown.
 */
static bool
replay_possible(const struct rk_insp_flows *t, const struct rk_insp_flow *flow,
		const struct rk_insp_path *path, int rdir, const struct rk_insp_psn_track *tr,
		int h, uint32_t psn)
{
	const struct gap_ev *e = &tr->x->evs[h];
	uint32_t holding = 0, used = 0;
	unsigned int filled = (unsigned int)(e->replayed >> rk_psn_diff(psn, e->psn) & 1);

	if (path == NULL || e->rd_serial == 0)
		return true;
	for (unsigned int i = 0; i < READ_RING; i++) {
		const struct pending_read *pr = &path->reads[rdir][i];
		int32_t off = rk_psn_diff(psn, pr->psn);
		bool unknown;

		if (!pr->used)
			continue;
		used++;
		/* Forgotten READs may have been issued since: any may. */
		if ((int32_t)(pr->first_serial - e->rd_serial) <= 0)
			used = READ_RING + 1;
		if ((int32_t)(pr->serial - e->rd_serial) <= 0 || off < 0 ||
		    (uint32_t)off >= rk_insp_read_span(t, flow, path, pr->dma_len, &unknown))
			continue;
		if (unknown)
			return true;
		/* Its copies since, all but the first when that came before. */
		holding += (int32_t)(pr->first_serial - e->rd_serial) > 0 ? pr->copies :
			   pr->copies - 1u;
	}
	if (used == READ_RING)
		return true;
	return holding > filled;
}

/* The READ response sequence and message state, for one READ response. */
static void
read_response(const struct rk_insp_flows *t, struct rk_insp_flow *flow,
	      struct rk_insp_path *path, int dir, const struct rk_insp_roce *r,
	      struct rk_findings *found, struct rk_insp_seq_result *res)
{
	struct rk_insp_psn_track *tr = &flow->resp;
	struct rk_insp_msg_state *m = &flow->resp_msg;
	struct rk_insp_msg_state before;
	uint32_t fl = r->opflags;
	uint32_t psn = r->psn;

	/*
	 * The packet before this one went back at no hole, or began a
	 * response with a MIDDLE or LAST behind the responses seen: a replay
	 * of a re-issued READ, or a late copy. A replay goes on from it; when
	 * this one does not (it is where the response stood, further on, or
	 * elsewhere), that one was the late copy (a duplicate, as its line
	 * says) and the response goes on where it stood: the replay would
	 * have lost more packets than the late copy explains (none).
	 */
	if (tr->x != NULL && tr->x->back_valid) {
		tr->x->back_valid = false;
		if (resp_back(tr, m, r))
			*m = tr->x->back;
	}
	/* The packet before skipped PSNs of the open response, and this one
	 * is where the response stood: that one came on its own (a late copy
	 * or a replay's), the response lost nothing and goes on. */
	if (tr->x != NULL && tr->x->fwd_valid) {
		tr->x->fwd_valid = false;
		if (psn == tr->x->fwd_next && !(fl & RK_OPF_FIRST)) {
			rk_insp_seq_fwd_undo(tr, false);
			*m = tr->x->fwd_msg;
		}
	}
	before = *m;
	/* A READ response starting at or before the previous READ response
	 * packet replays an earlier READ (duplicate READ request). ACKs and
	 * NAKs may carry the same PSN as a later READ response, so only READ
	 * responses are compared with each other. */
	if ((fl & RK_OPF_FIRST) && m->rr_seen && rk_psn_diff(psn, m->next_psn) < 0) {
		tr->duplicates++;
		res->note = RK_INSP_SEQ_DUP;
	}
	if (fl & RK_OPF_FIRST) {
		/* A new response while the last one is open, with no PSN
		 * missing in between: its LAST was never sent. */
		if (m->state == MSG_INSIDE && psn == m->next_psn)
			rk_findings_add(found, RK_F_MSG_OPCODE_SEQUENCE, 0);
		m->state = MSG_INSIDE;
		m->kind = RK_OPF_READ_RESP;
		m->got_len = r->payload_len;
		m->tainted = r->truncated;
		m->len_known = false;
		m->next_psn = rk_psn_add(psn, 1);
		m->rr_seen = true;
		m->read_serial = rk_insp_read_answered(t, flow, path, !dir, psn);
		if (path != NULL) {
			/* The request came from this packet's destination. */
			const struct pending_read *pr = rk_insp_read_find(path, !dir, psn);

			if (pr != NULL) {
				m->len_known = true;
				m->expected_len = pr->dma_len;
			}
		}
	} else {
		int32_t d;

		if (m->state != MSG_INSIDE) {
			/* MIDDLE/LAST right after the LAST of the previous READ
			 * response. A replay of a re-issued READ may start with
			 * a MIDDLE anywhere else (rxe does so too). */
			if (m->state == MSG_IDLE && m->rr_seen && psn == m->next_psn)
				rk_findings_add(found, RK_F_MSG_OPCODE_SEQUENCE, 0);
			m->state = MSG_INSIDE;
			m->kind = RK_OPF_READ_RESP;
			m->len_known = false;
			m->got_len = 0;
			m->next_psn = psn;
			m->rr_seen = true;
			m->read_serial = rk_insp_read_answered(t, flow, path, !dir, psn);
		} else if (rk_psn_diff(psn, m->next_psn) > 0) {
			uint32_t cur, start;

			/* A response to another READ than the open one (whose
			 * tail may come late): its own PSNs before this one are
			 * missing, not those of the READs in between. */
			if (rk_insp_read_start(t, flow, path, !dir, psn, &start) &&
			    (!rk_insp_read_start(t, flow, path, !dir,
					 rk_psn_add(m->next_psn, RK_PSN_MASK), &cur) ||
			     cur != start)) {
				m->len_known = false;
				m->got_len = 0;
				m->tainted = true;
				m->next_psn = start;
			}
		}
		d = rk_psn_diff(psn, m->next_psn);
		if (d > 0) {
			tr->gaps++;
			tr->missing += (uint32_t)d;
			res->note = RK_INSP_SEQ_GAP;
			res->missing = (uint32_t)d;
			m->tainted = true;
			rk_insp_seq_gap_add(tr, rk_psn_add(tr->last, 1), m->next_psn, (uint32_t)d, false, false);
			gap_mark_reads(tr, m->read_serial);
			if (tr->x != NULL)
				rk_insp_seq_fwd_note(tr, m->next_psn, (uint32_t)d, tr->x->gap_id);
			if (tr->x != NULL)
				tr->x->fwd_msg = before;
		} else if (d < 0) {
			tr->duplicates++;
			res->note = RK_INSP_SEQ_DUP;
			m->tainted = true;
			/* A replay begins. */
			m->read_serial = rk_insp_read_answered(t, flow, path, !dir, psn);
		}
		m->got_len += r->payload_len;
		if (r->truncated)
			m->tainted = true;
		m->next_psn = rk_psn_add(psn, 1);
	}
	if (fl & RK_OPF_LAST) {
		if (m->len_known && !m->tainted && m->got_len != m->expected_len)
			rk_findings_add(found, RK_F_MSG_LEN_MISMATCH, 0);
		if (res->note != RK_INSP_SEQ_DUP)
			flow->read_resp_messages++;
		m->state = MSG_IDLE;
	}
	if (((res->note == RK_INSP_SEQ_DUP && before.state == MSG_INSIDE) ||
	     (before.state != MSG_INSIDE && !(fl & RK_OPF_FIRST) && before.rr_seen &&
	      rk_psn_diff(psn, before.next_psn) < 0)) &&
	    rk_insp_seqx_get(tr) != NULL) {
		tr->x->back = before;
		tr->x->back_valid = true;
	}
}

/*
 * The sequence note read_response() gives @p r after state @p m, which it
 * advances the same way (counters aside).
 */
static enum rk_insp_seq_note
resp_note(struct rk_insp_msg_state *m, const struct rk_insp_roce *r, uint32_t *missing)
{
	enum rk_insp_seq_note note = RK_INSP_SEQ_IN_ORDER;
	uint32_t psn = r->psn;

	*missing = 0;
	if (r->opflags & RK_OPF_FIRST) {
		if (m->rr_seen && rk_psn_diff(psn, m->next_psn) < 0)
			note = RK_INSP_SEQ_DUP;
		m->state = MSG_INSIDE;
	} else {
		int32_t d;

		if (m->state != MSG_INSIDE) {
			m->state = MSG_INSIDE;
			m->next_psn = psn;
		}
		d = rk_psn_diff(psn, m->next_psn);
		if (d > 0) {
			note = RK_INSP_SEQ_GAP;
			*missing = (uint32_t)d;
		} else if (d < 0) {
			note = RK_INSP_SEQ_DUP;
		}
	}
	m->next_psn = rk_psn_add(psn, 1);
	m->rr_seen = true;
	if (r->opflags & RK_OPF_LAST)
		m->state = MSG_IDLE;
	return note;
}

/* The verdict on the pending chain of READ responses is known: count it. */
void
rk_insp_resp_settle(const struct rk_insp_flows *t, struct rk_insp_flow *flow, enum rk_insp_verdict v)
{
	struct rk_insp_psn_track *tr = &flow->resp;
	struct rk_insp_seqx *x = tr->x;
	struct rk_insp_path *path;
	int dir = 0;

	if (x == NULL || x->n == 0)
		return;
	if (v == RK_INSP_VERDICT_LATE) {
		/* The response stays where it stood; a late LAST still ends
		 * its message. */
		rk_insp_seq_chain_late(tr);
		for (unsigned int i = 0; i < x->n; i++)
			if (x->pkt[i].r.opflags & RK_OPF_LAST)
				flow->read_resp_messages++;
		x->n = 0;
		x->n_rtx = 0;
		x->late_only = false;
		return;
	}
	/* A replay: counted as it would have been at once. Findings can no
	 * longer go to their frames and are not raised. Its copies of the
	 * holes' PSNs are the ones the READs re-issued since have sent. */
	for (unsigned int i = 0; i < x->nevs; i++)
		x->evs[i].replayed |= x->evs[i].pend;
	rk_insp_seq_chain_unclaim(x);
	path = rk_insp_path_lookup(t, &flow->key, &dir);
	for (unsigned int i = 0; i < x->n; i++) {
		struct rk_insp_seq_result scratch_res = { .note = RK_INSP_SEQ_IN_ORDER };
		struct rk_findings scratch;

		memset(&scratch, 0, sizeof(scratch));
		read_response(t, flow, path, dir, &x->pkt[i].r, &scratch, &scratch_res);
	}
	x->n = 0;
	x->n_rtx = 0;
	x->late_only = false;
}

/*
 * What READ response @p psn (at a hole when @p at_hole) says of the
 * pending chain of READ responses: a replay when it goes on from the
 * chain's last packet (NONE while at a hole too: the chain grows); LATE
 * when the response goes on where it stood, jumps back, or is new. A
 * chain that goes on from the open response is settled as its replay when
 * a packet skips ahead of it to a hole, once the flow has shown reordering
 * (that packet, late rather than a loss in the replay, starts a chain).
 */
static enum rk_insp_verdict
resp_verdict(const struct rk_insp_flows *t, const struct rk_insp_flow *flow,
	     const struct rk_insp_path *path, int dir, uint32_t psn, bool at_hole)
{
	const struct rk_insp_seqx *x = flow->resp.x;
	const struct rk_insp_msg_state *m = &flow->resp_msg;
	int32_t d = rk_insp_seq_chain_skip(x, psn);
	/* The chain goes on from the open response: it is that response
	 * (a replay), unless the response's own next packet follows. */
	bool run = m->state == MSG_INSIDE && x->pkt[0].r.psn == m->next_psn;

	if (x->late_only)
		return d == 0 && at_hole && x->n < CHAIN_MAX ? RK_INSP_VERDICT_NONE :
		       RK_INSP_VERDICT_LATE;
	if (d == 0)
		return at_hole && x->n < CHAIN_MAX ? RK_INSP_VERDICT_NONE : RK_INSP_VERDICT_GO_BACK;
	if (psn == m->next_psn)
		return RK_INSP_VERDICT_LATE;
	if (d < 0 || rk_psn_diff(psn, flow->resp.last) > 0)
		return run ? RK_INSP_VERDICT_GO_BACK : RK_INSP_VERDICT_LATE;
	if (at_hole && d > 0 && run && flow->resp.reordered > 0)
		return RK_INSP_VERDICT_GO_BACK;
	/* A replay runs to its LAST: the response of another READ after a
	 * chain that stopped short of its LAST says the chain came late
	 * (at a hole or not: that response does not go on from the chain). */
	if (!run && !(x->pkt[x->n - 1].r.opflags & RK_OPF_LAST)) {
		uint32_t mine, theirs;

		if (rk_insp_read_start(t, flow, path, !dir, x->pkt[x->n - 1].r.psn, &mine) &&
		    rk_insp_read_start(t, flow, path, !dir, psn, &theirs) && mine != theirs)
			return RK_INSP_VERDICT_LATE;
	}
	if (at_hole && x->n < CHAIN_MAX)
		return RK_INSP_VERDICT_NONE;
	return RK_INSP_VERDICT_GO_BACK;
}

/* Responses: ACK, atomic ACK and READ responses of this side's responder. */
void
rk_insp_response(struct rk_insp_flows *t, struct rk_insp_flow *flow,
	 struct rk_insp_path *path, int dir, const struct rk_insp_roce *r,
	 struct rk_findings *found, struct rk_insp_seq_result *res)
{
	struct rk_insp_psn_track *tr = &flow->resp;
	struct rk_insp_msg_state *m = &flow->resp_msg;
	uint32_t fl = r->opflags;
	uint32_t psn = r->psn;
	int h = -1;

	if (r->has_aeth)
		count_aeth(flow, r);
	if (fl & RK_OPF_ATOMIC_ACK)
		flow->atomic_acks++;
	/* A READ response at a PSN counted missing: a replay, or late (see
	 * "Holes and verdicts" in rk_insp_flow_int.h); the next READ
	 * response tells. */
	if ((fl & RK_OPF_READ_RESP) && m->rr_seen && rk_psn_diff(psn, tr->last) <= 0)
		h = rk_insp_seq_hole_at(tr, psn);
	if ((fl & RK_OPF_READ_RESP) && tr->x != NULL && tr->x->n != 0) {
		enum rk_insp_verdict v = resp_verdict(t, flow, path, dir, psn, h >= 0);

		if (v != RK_INSP_VERDICT_NONE) {
			rk_insp_resp_settle(t, flow, v);
			res->resolved = v;
			res->chain = tr;
			h = m->rr_seen && rk_psn_diff(psn, tr->last) <= 0 ?
			    rk_insp_seq_hole_at(tr, psn) : -1;
		}
	}

	/* The highest response PSN; coalesced ACKs jump ahead by design. */
	if (!tr->valid) {
		tr->valid = true;
		tr->first = psn;
		tr->last = psn;
		res->note = RK_INSP_SEQ_FIRST;
	} else {
		if (rk_psn_diff(psn, tr->last) > 0)
			tr->last = psn;
		res->note = RK_INSP_SEQ_IN_ORDER;
	}
	if (!(fl & RK_OPF_READ_RESP))
		return;
	if (h >= 0) {
		struct rk_insp_seqx *x = tr->x;
		struct rk_insp_msg_state vm = x->n != 0 ? x->vm : *m;

		/* As read_response() will take it when the verdict replays
		 * the chain: the packet before may have been late. */
		if (x->n == 0 && x->back_valid && resp_back(tr, m, r))
			vm = x->back;
		uint32_t missing;
		/* The replay verdict as read_response() will count it; LATE is
		 * the other. */
		enum rk_insp_seq_note note = resp_note(&vm, r, &missing);

		bool replay = replay_possible(t, flow, path, !dir, tr, h, psn);

		if (rk_insp_seq_chain_add(tr, h, r, 1)) {
			x->late_only |= !replay;
			x->vm = vm;
			res->note = note;
			res->missing = missing;
			res->pending = true;
			res->chain = tr;
			return;
		}
	}
	read_response(t, flow, path, dir, r, found, res);
}
