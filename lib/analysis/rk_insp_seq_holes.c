/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The holes of a flow's PSN sequences: gaps remembered with the PSNs they
 * counted missing, the pending chain of packets at holes, its LATE
 * verdict, and the verdicts left at the end of the capture (see "Holes
 * and verdicts" in rk_insp_flow_int.h).
 */
#include "rk_insp_flow_int.h"

#include <stdlib.h>
#include <string.h>

#include "rk_psn.h"

/* Gaps remembered per flow, and how far behind the highest PSN; gaps of
 * more PSNs than a mask holds are not remembered. A packet at a forgotten
 * hole is taken as a retransmission. */
#define GAPS_MAX 256u
#define GAP_AGE_MAX (1 << 14)
#define GAP_PSNS_MAX 64u

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
struct rk_insp_seqx *
rk_insp_seqx_get(struct rk_insp_psn_track *tr)
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

void
rk_insp_seq_gap_add(struct rk_insp_psn_track *tr, uint32_t top, uint32_t psn, uint32_t len,
		    bool rtx, bool uncounted)
{
	if (len == 0 || rk_insp_seqx_get(tr) == NULL)
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

	if (len == 0 || len > GAP_PSNS_MAX || (x = rk_insp_seqx_get(tr)) == NULL)
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
int
rk_insp_seq_hole_at(const struct rk_insp_psn_track *tr, uint32_t psn)
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
void
rk_insp_seq_chain_late(struct rk_insp_psn_track *tr)
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
void
rk_insp_seq_chain_unclaim(struct rk_insp_seqx *x)
{
	for (unsigned int i = 0; i < x->nevs; i++)
		x->evs[i].pend = 0;
}

/*
 * Add @p r (reserving @p span PSNs) to the pending chain of @p tr, at the
 * hole of gap @p h. @return false when out of memory (then it is not
 * pending).
 */
bool
rk_insp_seq_chain_add(struct rk_insp_psn_track *tr, int h, const struct rk_insp_roce *r,
		      uint32_t span)
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
uint32_t
rk_insp_seq_chain_end(const struct rk_insp_seqx *x)
{
	const struct pend_pkt *last = &x->pkt[x->n - 1];

	return rk_psn_add(last->r.psn, last->span);
}

/* PSNs from the end of the chain's last packet to @p psn. */
int32_t
rk_insp_seq_chain_skip(const struct rk_insp_seqx *x, uint32_t psn)
{
	return rk_psn_diff(psn, rk_insp_seq_chain_end(x));
}

/*
 * The packet before skipped forward inside the run, and this one is the
 * run's next PSN as it stood: that packet was sent out of the run (a late
 * copy, or one resent on its own), nothing was lost. Take back its gap.
 */
void
rk_insp_seq_fwd_undo(struct rk_insp_psn_track *tr, bool rtx)
{
	struct rk_insp_seqx *x = tr->x;
	uint64_t *missing = rtx ? &tr->rtx_missing : &tr->missing;
	uint64_t *gaps = rtx ? &tr->rtx_gaps : &tr->gaps;
	uint64_t back = 0, held = 0;

	/* Its holes, as rk_insp_seq_gap_add() remembered them (in pieces of
	 * at most GAP_PSNS_MAX), and only those: an older gap over the same PSNs
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
 * @p id0 on, @p missing PSNs counted), for rk_insp_seq_fwd_undo() when the next
 * packet is @p from. */
void
rk_insp_seq_fwd_note(struct rk_insp_psn_track *tr, uint32_t from, uint32_t missing, uint32_t id0)
{
	if (rk_insp_seqx_get(tr) == NULL)
		return;
	tr->x->fwd_next = from;
	tr->x->fwd_missing = missing;
	tr->x->fwd_id0 = id0;
	tr->x->fwd_id = tr->x->gap_id;
	tr->x->fwd_valid = true;
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
	rk_insp_seq_chain_late(tr);
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
