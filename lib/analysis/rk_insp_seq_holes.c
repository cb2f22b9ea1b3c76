/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PSN sequences of a flow: gaps, duplicates, go-back-N episodes, READ PSN
 * reservation, READ responses, and late packets told from retransmissions
 * (see "Holes and verdicts" below).
 */
#include "rk_insp_flow_int.h"

#include <stdlib.h>
#include <string.h>

#include "rk_psn.h"
#include "rk_xeth.h"

/*
 * Holes and verdicts.
 *
 * A gap counts PSNs missing the moment a later PSN shows up: their packets
 * were lost before the capture point, or they come later (reordered on the
 * way). Each gap is remembered with the PSNs it counted (its holes) until
 * their own packets show up; a retransmitted copy does not close a hole,
 * since the late packet may still follow it. A packet at a hole is either
 * a retransmission (in a go-back-N run, or a replayed READ response) or
 * the hole's own packet, late. The packet alone cannot tell; the packets
 * of its sequence after it can: a retransmission goes on from it through
 * the following PSNs (perhaps losing some: the next one is then further
 * on), while after a late packet the sequence goes on where it stood (new
 * PSNs, the next PSN of the current run, another late packet elsewhere,
 * or the requester's own go-back to the late packet's PSN, NAKed before
 * it came). Until then the packet is pending and counts nothing; several
 * in a row make a chain with one verdict. A late packet's PSNs are no
 * longer missing, and a gap whose PSNs all came late was no gap.
 */

/* Gaps remembered per flow, and how far behind the highest PSN; gaps of
 * more PSNs than a mask holds are not remembered. A packet at a forgotten
 * hole is taken as a retransmission. */
#define GAPS_MAX 256u
#define GAP_AGE_MAX (1 << 14)
#define GAP_PSNS_MAX 64u
/* Packets in one pending chain; a longer one is a go-back-N run. */
#define CHAIN_MAX 64u

/* A gap of PSNs [psn, psn + len) while some of them are holes. */
struct gap_ev {
	uint32_t psn, len;
	uint64_t late;         /* PSNs (bit i: psn + i) whose packet came late */
	uint64_t pend;         /* PSNs claimed by the pending chain */
	bool rtx;              /* a gap inside a go-back-N run */
	bool uncounted;        /* PSNs a run skipped as acknowledged: not missing */
	uint32_t id;           /* the gap this piece is of (a long gap is several) */
	/* READ responses: the path's READ request count at the first copy
	 * of the READ being answered when the gap was counted (0: unknown),
	 * and the PSNs a replay has filled since (a copy each). */
	uint32_t rd_serial;
	uint64_t replayed;
};

/* A packet of the pending chain, and the PSNs it reserves. */
struct pend_pkt {
	struct rk_insp_roce r;
	uint32_t span;
};

struct rk_insp_seqx {
	struct gap_ev *evs;    /* oldest first */
	unsigned int nevs, evs_cap;
	unsigned int n, n_rtx; /* chain packets, those at holes of go-back-N runs */
	struct pend_pkt *pkt;  /* CHAIN_MAX, allocated with the first chain */
	struct rk_insp_msg_state vm; /* READ responses: the state a replay would leave */
	/* The message state before a packet that went back at no hole,
	 * while the next packet has not told whether it came late (READ
	 * responses: the response's; requests: the run's, flow->rtx_msg). */
	struct rk_insp_msg_state back;
	bool back_valid;
	/* Requests: where the run stood before such a packet. */
	uint32_t back_next, back_psn;
	bool back_next_valid;
	/* Requests: a packet that skipped forward inside the run (counted
	 * fwd_missing PSNs from fwd_next, remembered as gaps fwd_id0 to
	 * fwd_id), while the next one has not told whether the run goes on
	 * where it stood (the packet was then a copy sent out of the run,
	 * not a loss in it). */
	uint32_t fwd_next, fwd_missing, fwd_id0, fwd_id;
	uint32_t fwd_psn;      /* requests: the skipping packet's PSN */
	bool fwd_valid;
	/* The message state before such a packet (READ responses; for
	 * requests the go-back-N run's, flow->rtx_msg). */
	struct rk_insp_msg_state fwd_msg;
	uint32_t gap_id;       /* of the last gap remembered */
	/* READ responses: a packet of the pending chain cannot be a replay
	 * (no READ issued after the one its gap was in has a copy of its PSN
	 * left): the chain came late. */
	bool late_only;
};

static uint32_t run_skip(const struct rk_insp_flows *t, struct rk_insp_flow *flow, uint32_t n);

void
rk_insp_seqx_free(struct rk_insp_seqx *x)
{
	if (x == NULL)
		return;
	free(x->evs);
	free(x->pkt);
	free(x);
}

static uint64_t
psn_mask(uint32_t len)
{
	return len >= 64 ? ~0ull : (1ull << len) - 1;
}

static void
gap_drop(struct rk_insp_seqx *x, unsigned int i)
{
	memmove(&x->evs[i], &x->evs[i + 1], (x->nevs - i - 1) * sizeof(x->evs[0]));
	x->nevs--;
}

/* The track's extension, allocated on first use; NULL when out of memory. */
static struct rk_insp_seqx *
seqx_get(struct rk_insp_psn_track *tr)
{
	if (tr->x == NULL)
		tr->x = calloc(1, sizeof(*tr->x));
	return tr->x;
}

/*
 * Remember the gap of PSNs [psn, psn + len) just counted missing (@p rtx:
 * skipped inside a go-back-N run), forgetting the ones too far behind
 * @p top, the sequence's next new PSN, first.
 */
static void gap_add_one(struct rk_insp_psn_track *tr, uint32_t top, uint32_t psn, uint32_t len,
			bool rtx, bool uncounted);

static void
gap_add(struct rk_insp_psn_track *tr, uint32_t top, uint32_t psn, uint32_t len, bool rtx,
	bool uncounted)
{
	if (len == 0 || seqx_get(tr) == NULL)
		return;
	tr->x->gap_id++;
	/* A long gap in pieces a mask holds, as far as GAPS_MAX allows. */
	for (uint32_t done = 0; done < len && done < GAPS_MAX / 2 * GAP_PSNS_MAX;
	     done += GAP_PSNS_MAX)
		gap_add_one(tr, top, rk_psn_add(psn, done),
			    len - done < GAP_PSNS_MAX ? len - done : GAP_PSNS_MAX, rtx, uncounted);
}

static void
gap_add_one(struct rk_insp_psn_track *tr, uint32_t top, uint32_t psn, uint32_t len, bool rtx,
	    bool uncounted)
{
	struct rk_insp_seqx *x = tr->x;
	unsigned int old = 0;

	if (len == 0 || len > GAP_PSNS_MAX || (x = seqx_get(tr)) == NULL)
		return;
	while (old < x->nevs && rk_psn_diff(top, x->evs[old].psn) > GAP_AGE_MAX)
		old++;
	if (old != 0) {
		memmove(x->evs, x->evs + old, (x->nevs - old) * sizeof(x->evs[0]));
		x->nevs -= old;
	}
	if (x->nevs == x->evs_cap) {
		unsigned int cap = x->evs_cap ? x->evs_cap * 2 : 8;
		struct gap_ev *n;

		if (x->evs_cap >= GAPS_MAX) {
			gap_drop(x, 0);
		} else {
			n = realloc(x->evs, cap * sizeof(*n));
			if (n == NULL)
				return;
			x->evs = n;
			x->evs_cap = cap;
		}
	}
	x->evs[x->nevs++] = (struct gap_ev){ .psn = psn, .len = len, .rtx = rtx,
					     .uncounted = uncounted, .id = x->gap_id };
}

/* The oldest gap with @p psn still a hole (neither late nor claimed), or -1. */
static int
hole_at(const struct rk_insp_psn_track *tr, uint32_t psn)
{
	const struct rk_insp_seqx *x = tr->x;

	if (x == NULL)
		return -1;
	for (unsigned int i = 0; i < x->nevs; i++) {
		const struct gap_ev *e = &x->evs[i];
		int32_t off = rk_psn_diff(psn, e->psn);

		if (off >= 0 && (uint32_t)off < e->len &&
		    !((e->late | e->pend) >> off & 1))
			return (int)i;
	}
	return -1;
}

/*
 * A LATE verdict on the chain of @p tr: its PSNs were not lost, and the
 * gaps whose PSNs all came late were no gaps.
 */
static void
chain_late(struct rk_insp_psn_track *tr)
{
	struct rk_insp_seqx *x = tr->x;

	for (unsigned int i = 0; i < x->nevs;) {
		struct gap_ev *e = &x->evs[i];
		uint64_t *missing = e->rtx ? &tr->rtx_missing : &tr->missing;
		uint64_t *gaps = e->rtx ? &tr->rtx_gaps : &tr->gaps;
		uint64_t n = (uint64_t)__builtin_popcountll(e->pend);

		if (n == 0) {
			i++;
			continue;
		}
		if (!e->uncounted)
			*missing -= n < *missing ? n : *missing;
		e->late |= e->pend;
		e->pend = 0;
		if (e->late == psn_mask(e->len)) {
			uint32_t id = e->id;
			bool last_piece = true, uncounted = e->uncounted;

			gap_drop(x, i);
			for (unsigned int j = 0; j < x->nevs; j++)
				last_piece &= x->evs[j].id != id;
			if (*gaps > 0 && !uncounted && last_piece)
				(*gaps)--;
			continue;
		}
		i++;
	}
	tr->reordered += x->n;
}

/* The chain's claims on the holes end: they stay holes. */
static void
chain_unclaim(struct rk_insp_seqx *x)
{
	for (unsigned int i = 0; i < x->nevs; i++)
		x->evs[i].pend = 0;
}

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
		chain_late(tr);
		tr->duplicates += x->n_rtx;
		x->n = 0;
		x->n_rtx = 0;
		return;
	}
	chain_unclaim(x);
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

/*
 * Add @p r (reserving @p span PSNs) to the pending chain of @p tr, at the
 * hole of gap @p h. @return false when out of memory (then it is not
 * pending).
 */
static bool
chain_add(struct rk_insp_psn_track *tr, int h, const struct rk_insp_roce *r, uint32_t span)
{
	struct rk_insp_seqx *x = tr->x;
	struct gap_ev *e = &x->evs[h];
	uint32_t off = (uint32_t)rk_psn_diff(r->psn, e->psn);

	if (x->pkt == NULL && (x->pkt = calloc(CHAIN_MAX, sizeof(*x->pkt))) == NULL)
		return false;
	/* Its PSNs in the gap are its own if it came late. */
	e->pend |= (span >= 64 ? ~0ull : ((1ull << span) - 1)) << off & psn_mask(e->len) & ~e->late;
	x->n_rtx += e->rtx;
	x->pkt[x->n].r = *r;
	x->pkt[x->n].span = span;
	x->n++;
	return true;
}

/* The PSN after the chain's last packet. */
static uint32_t
chain_end(const struct rk_insp_seqx *x)
{
	const struct pend_pkt *last = &x->pkt[x->n - 1];

	return rk_psn_add(last->r.psn, last->span);
}

/* PSNs from the end of the chain's last packet to @p psn. */
static int32_t
chain_skip(const struct rk_insp_seqx *x, uint32_t psn)
{
	return rk_psn_diff(psn, chain_end(x));
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

	gap_add(tr, tr->hw, tr->next, acked, true, true);
	if (acked == n)
		return 0;
	tr->rtx_gaps++;
	tr->rtx_missing += n - acked;
	gap_add(tr, tr->hw, rk_psn_add(tr->next, acked), n - acked, true, false);
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
	int32_t d = chain_skip(x, psn);
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
 * The packet before skipped forward inside the run, and this one is the
 * run's next PSN as it stood: that packet was sent out of the run (a late
 * copy, or one resent on its own), nothing was lost. Take back its gap.
 */
static void
fwd_undo(struct rk_insp_psn_track *tr, bool rtx)
{
	struct rk_insp_seqx *x = tr->x;
	uint64_t *missing = rtx ? &tr->rtx_missing : &tr->missing;
	uint64_t *gaps = rtx ? &tr->rtx_gaps : &tr->gaps;
	uint64_t back = 0, held = 0;

	/* Its holes, as gap_add() remembered them (in pieces of at most
	 * GAP_PSNS_MAX), and only those: an older gap over the same PSNs
	 * keeps its own. PSNs a late packet filled were taken back then;
	 * those a pending chain claims are its verdict's to take back. */
	for (unsigned int i = x->nevs; i-- > 0;) {
		struct gap_ev *e = &x->evs[i];
		uint64_t holes = ~(e->late | e->pend) & psn_mask(e->len);

		if (e->id - x->fwd_id0 > x->fwd_id - x->fwd_id0)
			continue;
		if (e->uncounted) {
			/* Skipped as acknowledged: no count, but no holes. */
			if (e->pend == 0)
				gap_drop(x, i);
			else
				e->late |= holes;
			continue;
		}
		held += e->len;
		back += (uint64_t)__builtin_popcountll(holes);
		if (e->pend == 0)
			gap_drop(x, i);
		else
			e->late |= holes;
	}
	/* A gap too long to be remembered whole: the rest. */
	if (held < x->fwd_missing)
		back += x->fwd_missing - held;
	*missing -= back < *missing ? back : *missing;
	if (*gaps > 0 && x->fwd_missing > 0)
		(*gaps)--;
	if (rtx)
		tr->next = x->fwd_next;
}

/* Remember that the packet just skipped the PSNs from @p from (gaps
 * @p id0 on, @p missing PSNs counted), for fwd_undo() when the next
 * packet is @p from. */
static void
fwd_note(struct rk_insp_psn_track *tr, uint32_t from, uint32_t missing, uint32_t id0)
{
	if (seqx_get(tr) == NULL)
		return;
	tr->x->fwd_next = from;
	tr->x->fwd_missing = missing;
	tr->x->fwd_id0 = id0;
	tr->x->fwd_id = tr->x->gap_id;
	tr->x->fwd_valid = true;
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
	uint32_t end = x->n != 0 ? chain_end(x) : tr->next;

	return tr->reordered > 0 && psn == end && rk_psn_diff(psn, tr->hw) < 0 &&
	       hole_at(tr, psn) >= 0 && x->n < CHAIN_MAX;
}

/*
 * Advance a request sequence by one packet reserving @p span PSNs.
 *
 * A packet at or below the highest PSN seen is a retransmission. It starts
 * a go-back-N episode when it goes back from where the current run (or the
 * first transmissions) would continue; otherwise it continues the run, and
 * a forward skip inside the run is a loss of retransmitted packets, not a
 * new episode. A packet at a hole waits for a verdict (see "Holes and
 * verdicts").
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
		       (rk_psn_diff(psn, tr->hw) < 0 && hole_at(tr, psn) >= 0))))) {
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
			fwd_undo(tr, true);
			flow->rtx_msg = tr->x->fwd_msg;
		} else if (fwd_waits(tr, psn)) {
			tr->x->fwd_valid = true;
		}
	}
	d = rk_psn_diff(psn, tr->hw);
	h = d < 0 ? hole_at(tr, psn) : -1;
	if (tr->x != NULL && tr->x->n != 0) {
		enum rk_insp_verdict v = chain_verdict(t, flow, psn, h >= 0);

		if (v != RK_INSP_VERDICT_NONE) {
			rk_insp_chain_settle(t, flow, v);
			res->resolved = v;
			res->chain = tr;
			d = rk_psn_diff(psn, tr->hw);
			h = d < 0 ? hole_at(tr, psn) : -1;
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
			gap_add(tr, tr->hw, tr->hw, (uint32_t)d, false, false);
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
			d = chain_skip(x, psn);
		}
		if (d > 0) {
			uint32_t from = x->n == 0 ? tr->next : chain_end(x);
			uint32_t acked = acked_count(t, flow, from, (uint32_t)d);

			res->skip = acked != 0;
			res->missing = (uint32_t)d - acked;
		}
		if (chain_add(tr, h, r, span)) {
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
		if (seqx_get(tr) != NULL) {
			tr->x->back_next = tr->next;
			tr->x->back_psn = psn;
			tr->x->back_next_valid = true;
			tr->x->back = flow->rtx_msg;
		}
	} else if (dr > 0) {
		uint32_t id0 = seqx_get(tr) != NULL ? tr->x->gap_id + 1 : 0;

		res->missing = run_skip(t, flow, (uint32_t)dr);
		res->skip = res->missing != (uint32_t)dr;
		fwd_note(tr, tr->next, res->missing, id0);
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
			fwd_undo(tr, false);
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
			gap_add(tr, rk_psn_add(tr->last, 1), m->next_psn, (uint32_t)d, false, false);
			gap_mark_reads(tr, m->read_serial);
			if (tr->x != NULL)
				fwd_note(tr, m->next_psn, (uint32_t)d, tr->x->gap_id);
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
	    seqx_get(tr) != NULL) {
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
		chain_late(tr);
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
	chain_unclaim(x);
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
	int32_t d = chain_skip(x, psn);
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
	 * "Holes and verdicts"); the next READ response tells. */
	if ((fl & RK_OPF_READ_RESP) && m->rr_seen && rk_psn_diff(psn, tr->last) <= 0)
		h = hole_at(tr, psn);
	if ((fl & RK_OPF_READ_RESP) && tr->x != NULL && tr->x->n != 0) {
		enum rk_insp_verdict v = resp_verdict(t, flow, path, dir, psn, h >= 0);

		if (v != RK_INSP_VERDICT_NONE) {
			rk_insp_resp_settle(t, flow, v);
			res->resolved = v;
			res->chain = tr;
			h = m->rr_seen && rk_psn_diff(psn, tr->last) <= 0 ?
			    hole_at(tr, psn) : -1;
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

		if (chain_add(tr, h, r, 1)) {
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

uint64_t
rk_insp_resp_take_back(struct rk_insp_flow *flow,
		       bool (*arrived)(const void *ctx, uint32_t psn), const void *ctx)
{
	struct rk_insp_psn_track *tr = &flow->resp;
	struct rk_insp_seqx *x = tr->x;
	uint64_t before = tr->missing;
	uint64_t reordered = tr->reordered;

	if (x == NULL || x->n != 0)
		return 0;
	for (unsigned int i = 0; i < x->nevs; i++) {
		struct gap_ev *e = &x->evs[i];

		for (uint32_t b = 0; b < e->len; b++)
			if (!(e->late >> b & 1) && arrived(ctx, rk_psn_add(e->psn, b)))
				e->pend |= 1ull << b;
	}
	/* As a late verdict on those PSNs, but no packet is counted late. */
	chain_late(tr);
	tr->reordered = reordered;
	return before - tr->missing;
}

void
rk_insp_flow_settle(struct rk_insp_flows *t, struct rk_insp_flow *flow,
		    rk_insp_settled_fn *cb, void *ctx)
{
	if (flow->req.x != NULL && flow->req.x->n != 0) {
		rk_insp_chain_settle(t, flow, RK_INSP_VERDICT_GO_BACK);
		if (cb != NULL)
			cb(ctx, flow, &flow->req, RK_INSP_VERDICT_GO_BACK);
	}
	if (flow->resp.x != NULL && flow->resp.x->n != 0) {
		const struct rk_insp_seqx *x = flow->resp.x;
		/* A replay runs to the LAST of its response: a chain that ends
		 * short of one when the capture ends held late packets. */
		enum rk_insp_verdict v = x->pkt[x->n - 1].r.opflags & RK_OPF_LAST && !x->late_only ?
					 RK_INSP_VERDICT_GO_BACK : RK_INSP_VERDICT_LATE;

		rk_insp_resp_settle(t, flow, v);
		if (cb != NULL)
			cb(ctx, flow, &flow->resp, v);
	}
}

void
rk_insp_flows_settle(struct rk_insp_flows *t, rk_insp_settled_fn *cb, void *ctx)
{
	for (struct rk_insp_flow *f = t->head; f != NULL; f = f->next)
		rk_insp_flow_settle(t, f, cb, ctx);
}
