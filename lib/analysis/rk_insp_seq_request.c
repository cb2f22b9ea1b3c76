/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The request PSN sequence of a flow: gaps, duplicates, go-back-N runs
 * and what they skip, and the verdict on a pending chain of requests.
 */
#include "rk_insp_flow_int.h"

#include <string.h>

#include "rk_psn.h"

static uint32_t run_skip(const struct rk_insp_flows *t, struct rk_insp_flow *flow, uint32_t n);

/* The verdict on the pending chain of requests is known: count it. */
void
rk_insp_chain_settle(const struct rk_insp_flows *t, struct rk_insp_flow *flow, enum rk_insp_verdict v)
{
	struct rk_insp_psn_track *tr = &flow->req;
	struct rk_insp_seqx *x = tr->x;

	if (x == NULL || x->n == 0)
		return;
	if (v == RK_INSP_VERDICT_LATE) {
		/* Late copies of retransmitted packets are still retransmissions;
		 * the run goes on where it stood. */
		rk_insp_seq_chain_late(tr);
		tr->duplicates += x->n_rtx;
		x->n = 0;
		x->n_rtx = 0;
		return;
	}
	rk_insp_seq_chain_unclaim(x);
	/* Count them as retransmissions, as at once: the first starts an
	 * episode when it goes back, a skip between two is a loss in the
	 * run. The run's message state follows; their opcode order is not
	 * judged, since findings can no longer go to their frames. */
	for (unsigned int i = 0; i < x->n; i++) {
		const struct pend_pkt *pp = &x->pkt[i];
		int32_t dr = rk_psn_diff(pp->r.psn, tr->next);
		struct rk_findings scratch;

		tr->duplicates++;
		if (dr < 0) {
			tr->rtx_episodes++;
			flow->rtx_msg.state = MSG_UNKNOWN;
		} else if (dr > 0) {
			run_skip(t, flow, (uint32_t)dr);
		}
		tr->next = rk_psn_add(pp->r.psn, pp->span);
		if (rk_psn_diff(tr->next, tr->hw) > 0)
			tr->hw = tr->next;
		memset(&scratch, 0, sizeof(scratch));
		rk_insp_request_message(&flow->rtx_msg, &pp->r, false, dr != 0, &scratch, 0);
	}
	x->n = 0;
	x->n_rtx = 0;
}

/* Whether the peer of @p flow's requester NAKed @p psn lately. */
static bool
nak_names(const struct rk_insp_flows *t, const struct rk_insp_flow *flow, uint32_t psn)
{
	int dir;
	const struct rk_insp_path *p = rk_insp_path_lookup(t, &flow->key, &dir);

	if (p == NULL)
		return false;
	/* The responder is the flow's destination: the other side. */
	for (unsigned int i = 0; i < p->nak_n[!dir]; i++)
		if (p->naks[!dir][i] == psn)
			return true;
	return false;
}

/*
 * How many of the @p len PSNs from @p from the responder of @p flow's
 * requests has acknowledged (a prefix: ACKs are cumulative). A requester
 * that skips them in a go-back-N run lost nothing: it resends only what
 * is not acknowledged (IBTA Vol1 9.7.5.1.1).
 */
static uint32_t
acked_count(const struct rk_insp_flows *t, const struct rk_insp_flow *flow, uint32_t from,
	    uint32_t len)
{
	int dir;
	const struct rk_insp_path *p = rk_insp_path_lookup(t, &flow->key, &dir);
	int32_t n;

	if (p == NULL || !p->acked_valid[!dir])
		return 0;
	n = rk_psn_diff(rk_psn_add(p->acked[!dir], 1), from);
	if (n <= 0)
		return 0;
	return (uint32_t)n < len ? (uint32_t)n : len;
}

/*
 * A go-back-N run skips the @p n PSNs from tr->next: those an ACK covered
 * are no loss (a late copy may still come), the rest were lost in the run.
 * @return the PSNs counted missing.
 */
static uint32_t
run_skip(const struct rk_insp_flows *t, struct rk_insp_flow *flow, uint32_t n)
{
	struct rk_insp_psn_track *tr = &flow->req;
	uint32_t acked = acked_count(t, flow, tr->next, n);

	rk_insp_seq_gap_add(tr, tr->hw, tr->next, acked, true, true);
	if (acked == n)
		return 0;
	tr->rtx_gaps++;
	tr->rtx_missing += n - acked;
	rk_insp_seq_gap_add(tr, tr->hw, rk_psn_add(tr->next, acked), n - acked, true, false);
	return n - acked;
}

/*
 * What request @p psn (at a hole when @p at_hole) says of the pending
 * chain. NONE: it joins the chain (a hole right after the chain's last
 * packet, or further on inside what was sent). GO_BACK: a retransmission
 * goes on from the chain's last packet, right after it or further on (a
 * loss in the run) unless the responder NAKed that PSN (the requester
 * resends from there: the chain came late). LATE: anything else the
 * chain does not explain: new PSNs, a jump back, the next PSN of the run
 * the chain interrupted. A chain that starts at the next PSN of the
 * current run is that run, unless the run's own copy of the chain's first
 * packet follows; on a flow that has not shown reordering yet, so is a
 * chain further on in the run (the run lost the packets in between). On a flow that has already shown
 * reordering, a run that would have lost more packets than the chain
 * holds is taken as late packets too, and so is a chain that went back
 * into the current run when a packet goes on past where the run stood;
 * a chain that is the run's is settled as such when a packet skips ahead
 * of it to a hole (that one starts a chain of its own).
 */
static enum rk_insp_verdict
chain_verdict(const struct rk_insp_flows *t, const struct rk_insp_flow *flow, uint32_t psn,
	      bool at_hole)
{
	const struct rk_insp_psn_track *tr = &flow->req;
	const struct rk_insp_seqx *x = tr->x;
	int32_t d = rk_insp_seq_chain_skip(x, psn);
	bool run = x->pkt[0].r.psn == tr->next && tr->next != tr->hw;
	/* Or it goes on from a run further on, past PSNs lost in the run. */
	bool after_loss = tr->next != tr->hw && rk_psn_diff(x->pkt[0].r.psn, tr->next) > 0;

	run = run || (after_loss && tr->reordered == 0);
	if (rk_psn_diff(psn, tr->hw) >= 0)
		return run ? RK_INSP_VERDICT_GO_BACK : RK_INSP_VERDICT_LATE;
	if (d < 0)
		return run && psn != x->pkt[0].r.psn ? RK_INSP_VERDICT_GO_BACK :
		       RK_INSP_VERDICT_LATE;
	if (d > 0 && psn == tr->next)
		return RK_INSP_VERDICT_LATE;
	/* A chain that went back into the run, then a packet past the
	 * run's next PSN (a late copy, then the run skipping what an ACK
	 * covered or losing some): on a flow that reorders, the run goes
	 * on where it stood, as it does when this is the run's next PSN. */
	if (d > 0 && tr->reordered > 0 && tr->next != tr->hw &&
	    rk_psn_diff(x->pkt[0].r.psn, tr->next) < 0 && rk_psn_diff(psn, tr->next) > 0)
		return RK_INSP_VERDICT_LATE;
	/* The chain is the run's, and this packet skips ahead of it to a
	 * hole: on a flow that reorders, a late packet rather than a loss
	 * in the run. Settle the chain as the run now, so that the packets
	 * after it go on from the run, not from this one. */
	if (at_hole && d > 0 && run && tr->reordered > 0)
		return RK_INSP_VERDICT_GO_BACK;
	if (at_hole && x->n < CHAIN_MAX)
		return RK_INSP_VERDICT_NONE;
	if (d > 0 && !run && nak_names(t, flow, psn))
		return RK_INSP_VERDICT_LATE;
	if (!run && tr->reordered > 0) {
		uint32_t lost = (uint32_t)d;

		for (unsigned int i = 1; i < x->n; i++) {
			const struct pend_pkt *a = &x->pkt[i - 1];
			int32_t k = rk_psn_diff(x->pkt[i].r.psn,
						     rk_psn_add(a->r.psn, a->span));

			if (k > 0)
				lost += (uint32_t)k;
		}
		if (lost > x->n)
			return RK_INSP_VERDICT_LATE;
	}
	return RK_INSP_VERDICT_GO_BACK;
}

/*
 * Whether request @p psn, right after a packet that skipped forward inside
 * the run, says that packet was out of the run: it is the run's next PSN
 * as it stood, or, on a flow that reorders, one of the PSNs skipped (the
 * run goes on from where it stood, and what it skips now is counted
 * from there).
 */
static bool
fwd_back_into(const struct rk_insp_psn_track *tr, uint32_t psn)
{
	const struct rk_insp_seqx *x = tr->x;

	return psn == x->fwd_next ||
	       (tr->reordered > 0 && rk_psn_diff(psn, x->fwd_next) > 0 &&
		rk_psn_diff(psn, x->fwd_psn) < 0);
}

/*
 * Whether request @p psn, at a hole and going on from the packet that
 * skipped forward (or from the pending chain after it), leaves the
 * question open on a flow that reorders: held copies come in a row, and
 * the packet after them tells for all.
 */
static bool
fwd_waits(const struct rk_insp_psn_track *tr, uint32_t psn)
{
	const struct rk_insp_seqx *x = tr->x;
	uint32_t end = x->n != 0 ? rk_insp_seq_chain_end(x) : tr->next;

	return tr->reordered > 0 && psn == end && rk_psn_diff(psn, tr->hw) < 0 &&
	       rk_insp_seq_hole_at(tr, psn) >= 0 && x->n < CHAIN_MAX;
}

/*
 * Advance a request sequence by one packet reserving @p span PSNs.
 *
 * A packet at or below the highest PSN seen is a retransmission. It starts
 * a go-back-N episode when it goes back from where the current run (or the
 * first transmissions) would continue; otherwise it continues the run, and
 * a forward skip inside the run is a loss of retransmitted packets, not a
 * new episode. A packet at a hole waits for a verdict (see "Holes and
 * verdicts" in rk_insp_flow_int.h).
 */
void
rk_insp_track_request(struct rk_insp_flows *t, struct rk_insp_flow *flow, const struct rk_insp_roce *r,
	      uint32_t span, bool span_unknown, struct rk_insp_seq_result *res)
{
	struct rk_insp_psn_track *tr = &flow->req;
	struct rk_insp_seqx *x;
	uint32_t psn = r->psn;
	int32_t d, dr;
	int h;

	if (!tr->valid) {
		tr->valid = true;
		tr->first = psn;
		tr->last = psn;
		tr->hw = rk_psn_add(psn, span);
		tr->next = tr->hw;
		tr->resync = span_unknown;
		res->note = RK_INSP_SEQ_FIRST;
		res->expected = psn;
		return;
	}
	/*
	 * The packet before went back at no hole: a go-back, or a late copy
	 * of a packet already seen. When this one goes on where the run
	 * stood or further on (fewer PSNs lost than the go-back would have
	 * lost), jumps back before it, or is itself at a hole (late too,
	 * perhaps), it did not go on from it as a go-back-N run would: it
	 * was the late copy, and the run goes on where it stood. (Its line
	 * and counts stay those of a retransmission: they are out already.)
	 */
	if (tr->x != NULL && tr->x->back_next_valid) {
		tr->x->back_next_valid = false;
		if (psn != tr->next &&
		    (psn == tr->x->back_next ||
		     (tr->reordered > 0 &&
		      (rk_psn_diff(psn, tr->x->back_next) > 0 ||
		       rk_psn_diff(psn, tr->x->back_psn) < 0 ||
		       (rk_psn_diff(psn, tr->hw) < 0 && rk_insp_seq_hole_at(tr, psn) >= 0))))) {
			tr->next = tr->x->back_next;
			/* The run's message too: judged against the late
			 * copy, its next packet would be a false finding. */
			flow->rtx_msg = tr->x->back;
		}
	}
	if (tr->x != NULL && tr->x->fwd_valid) {
		tr->x->fwd_valid = false;
		if (fwd_back_into(tr, psn)) {
			/* The skipping packet was out of the run: so is its
			 * effect on the run's message (an opcode order judged
			 * against it would be a false finding). */
			rk_insp_seq_fwd_undo(tr, true);
			flow->rtx_msg = tr->x->fwd_msg;
		} else if (fwd_waits(tr, psn)) {
			tr->x->fwd_valid = true;
		}
	}
	d = rk_psn_diff(psn, tr->hw);
	h = d < 0 ? rk_insp_seq_hole_at(tr, psn) : -1;
	if (tr->x != NULL && tr->x->n != 0) {
		enum rk_insp_verdict v = chain_verdict(t, flow, psn, h >= 0);

		if (v != RK_INSP_VERDICT_NONE) {
			rk_insp_chain_settle(t, flow, v);
			res->resolved = v;
			res->chain = tr;
			d = rk_psn_diff(psn, tr->hw);
			h = d < 0 ? rk_insp_seq_hole_at(tr, psn) : -1;
		}
	}
	if (d >= 0) {
		res->expected = tr->hw;
		if (d > 0 && tr->resync) {
			res->note = RK_INSP_SEQ_RESYNC;
			tr->resyncs++;
		} else if (d > 0) {
			res->note = RK_INSP_SEQ_GAP;
			res->missing = (uint32_t)d;
			tr->gaps++;
			tr->missing += (uint32_t)d;
			rk_insp_seq_gap_add(tr, tr->hw, tr->hw, (uint32_t)d, false, false);
		} else {
			res->note = RK_INSP_SEQ_IN_ORDER;
		}
		/* A run that stops short of the highest PSN is not a loss: an
		 * ACK may have covered the rest. */
		tr->hw = rk_psn_add(psn, span);
		tr->next = tr->hw;
		tr->last = psn;
		tr->resync = span_unknown;
		return;
	}
	res->note = RK_INSP_SEQ_DUP;
	res->expected = tr->next;
	dr = rk_psn_diff(psn, tr->next);
	x = tr->x;
	if (h >= 0) {
		bool rtx = x->evs[h].rtx;

		/* The go-back-N verdict as it stands; LATE is the other. */
		if (x->n == 0) {
			res->rtx_start = dr < 0;
			d = dr;
		} else {
			d = rk_insp_seq_chain_skip(x, psn);
		}
		if (d > 0) {
			uint32_t from = x->n == 0 ? tr->next : rk_insp_seq_chain_end(x);
			uint32_t acked = acked_count(t, flow, from, (uint32_t)d);

			res->skip = acked != 0;
			res->missing = (uint32_t)d - acked;
		}
		if (rk_insp_seq_chain_add(tr, h, r, span)) {
			res->pending = true;
			res->pending_rtx = rtx;
			res->chain = tr;
			return;
		}
		res->rtx_start = false;
		res->missing = 0;
		res->skip = false;
	}
	tr->duplicates++;
	/* Outside a run next equals hw, so any retransmission goes back. */
	if (dr < 0) {
		res->rtx_start = true;
		tr->rtx_episodes++;
		if (rk_insp_seqx_get(tr) != NULL) {
			tr->x->back_next = tr->next;
			tr->x->back_psn = psn;
			tr->x->back_next_valid = true;
			tr->x->back = flow->rtx_msg;
		}
	} else if (dr > 0) {
		uint32_t id0 = rk_insp_seqx_get(tr) != NULL ? tr->x->gap_id + 1 : 0;

		res->missing = run_skip(t, flow, (uint32_t)dr);
		res->skip = res->missing != (uint32_t)dr;
		rk_insp_seq_fwd_note(tr, tr->next, res->missing, id0);
		if (tr->x != NULL) {
			tr->x->fwd_msg = flow->rtx_msg;
			tr->x->fwd_psn = psn;
		}
	}
	tr->next = rk_psn_add(psn, span);
	/* A retransmitted READ whose span is now known may reserve more than
	 * the first copy did when the PMTU was unknown. */
	if (rk_psn_diff(tr->next, tr->hw) > 0)
		tr->hw = tr->next;
}
