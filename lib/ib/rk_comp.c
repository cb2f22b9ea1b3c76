/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completer (IBTA Vol1 ch. 9; rxe_comp.c role): ACK,
 * NAK, RNR NAK, READ response and ATOMIC acknowledge processing, in-order
 * work completions, coalesced ACKs retiring several WQEs, implicit ACKs
 * from READ responses, transport retry (local ACK timeout, NAK-SEQ,
 * missing READ responses) and RNR retry with separate counters and timers.
 */
#include <string.h>

#include "rk_enum.h"
#include "rk_ib_internal.h"

#define COMP_STATES(X, P) \
	X(P, CHK_PSN) X(P, CHK_ACK) X(P, READ) X(P, ATOMIC) X(P, ACK) X(P, NAK_SEQ) \
	X(P, RNR) X(P, NAK_FATAL) X(P, RETRY) X(P, BAD_RESP) X(P, LOC_PROT) X(P, DROP) \
	X(P, DONE)

enum rk_comp_state { COMP_STATES(RK_ENUM_MEMBER, RK_COMP_ST_) RK_COMP_ST_COUNT };

const char *const rk_comp_state_name[RK_COMP_ST_COUNT] = {
	COMP_STATES(RK_ENUM_NAME, RK_COMP_ST_)
};

struct comp_ctx {
	const struct rk_pkt *pkt;
	uint32_t psn;
	uint8_t opcode;
	uint8_t syndrome;
	uint32_t flags;
	uint64_t now;
	bool progress;
};

bool
rk_comp_outstanding(const struct rk_ib_qp *qp)
{
	return qp->req.sent_any && rk_psn_diff(qp->req.max_sent_psn, qp->comp.psn) >= 0;
}

static void
advance_psn(struct rk_ib_qp *qp, struct comp_ctx *c, uint32_t psn)
{
	int32_t d = rk_psn_diff(psn, qp->comp.psn);

	if (d > 0) {
		RK_QP_ADD(qp, comp_acked_pkts, (uint64_t)d);
		qp->comp.psn = psn;
		c->progress = true;
	}
}

static struct sq_wqe *
head_wqe(const struct rk_ib_qp *qp)
{
	struct sq_wqe *w;

	if (qp->comp.wqe_idx == qp->sq_prod)
		return NULL;
	w = sq_slot(qp, qp->comp.wqe_idx);
	return w->state == WQE_POSTED ? NULL : w;
}

static void
retire_head(struct rk_ib_qp *qp, struct sq_wqe *w, enum rk_wc_status st)
{
	if (wr_is_rd_atomic(w->wr.opcode) && qp->req.rd_atomic > 0)
		qp->req.rd_atomic--;
	rk_comp_wqe_done(qp, w, st);
	qp->comp.wqe_idx++;
}

/*
 * Retire the WQEs a response for psn acknowledges: those whose last PSN is
 * before psn (or at it when inclusive). A READ or ATOMIC among them whose
 * response never came means responses were lost: return false, with
 * comp.psn at its first missing PSN, so the caller re-issues it.
 */
static bool
retire(struct rk_ib_qp *qp, struct comp_ctx *c, uint32_t psn, bool inclusive)
{
	struct sq_wqe *w;

	while ((w = head_wqe(qp)) != NULL) {
		int32_t d = rk_psn_diff(w->last_psn, psn);

		if (inclusive ? d > 0 : d >= 0)
			break;
		if (wr_is_rd_atomic(w->wr.opcode)) {
			advance_psn(qp, c, w->first_psn);
			return false;
		}
		retire_head(qp, w, RK_WC_SUCCESS);
		advance_psn(qp, c, rk_psn_add(w->last_psn, 1));
	}
	return true;
}

static void
comp_error(struct rk_ib_qp *qp, enum rk_wc_status st)
{
	struct sq_wqe *w = head_wqe(qp);

	if (w != NULL)
		retire_head(qp, w, st);
	rk_ib_qp_to_error(qp);
}

/* Forward progress: fresh retry budgets, restart the ACK timer (IBTA Vol1 ch. 9). */
static void
on_progress(struct rk_ib_qp *qp, uint64_t now)
{
	qp->comp.retry_left = qp->attr.retry_cnt;
	qp->comp.rnr_left = qp->attr.rnr_retry;
	qp->comp.retry_psn_valid = false;
	qp->comp.retry_rewound = false;
	qp->comp.rto_low_spent = false;
	if (rk_comp_outstanding(qp) && qp->timeout_ns != 0)
		rk_comp_arm_timer(qp, now);
	else
		qp->comp.timer_ns = 0;
	/* Never resend what is already acknowledged. */
	if (rk_psn_diff(qp->comp.psn, qp->req.psn) > 0)
		rk_req_seek(qp, qp->comp.psn);
}

/*
 * The RTO_low the QP's loss recovery wants now, 0 for none. Once per
 * progress: a path that stays silent falls back to the QP's own timeout
 * and spends its retries at that pace, not one per RTO_low.
 */
static uint64_t
rto_low(const struct rk_ib_qp *qp)
{
	if (qp->lr->req_rto_low == NULL || qp->comp.rto_low_spent)
		return 0;
	return qp->lr->req_rto_low(qp);
}

void
rk_comp_arm_timer(struct rk_ib_qp *qp, uint64_t now)
{
	uint64_t low = rto_low(qp);

	qp->comp.timer_start_ns = now;
	qp->comp.timer_low = low != 0;
	qp->comp.timer_ns = now + (low != 0 ? low : qp->timeout_ns);
}

void
rk_comp_sent(struct rk_ib_qp *qp, uint64_t now)
{
	if (qp->type != RK_QPT_RC || qp->timeout_ns == 0)
		return;
	if (qp->comp.timer_ns == 0) {
		rk_comp_arm_timer(qp, now);
	} else if (qp->comp.timer_low && rto_low(qp) == 0) {
		/* Enough now outstanding for NAKs to find a loss: the long
		 * timeout, counted from the same start. */
		qp->comp.timer_low = false;
		qp->comp.timer_ns = qp->comp.timer_start_ns + qp->timeout_ns;
	}
}

/* Go back to comp.psn, remembering it so one gap costs one retry. */
void
rk_comp_go_back(struct rk_ib_qp *qp)
{
	qp->comp.retry_psn = qp->comp.psn;
	qp->comp.retry_psn_valid = true;
	qp->comp.retry_resent = false;
	qp->comp.retry_hi_valid = false;
	rk_req_seek(qp, qp->comp.psn);
}

/*
 * One transport retry (NAK-SEQ, READ re-issue or timeout): @p again (go
 * back, or what the QP's loss recovery owes for a NAK-SEQ), or,
 * after retry_cnt of them, complete the WQE with retry exceeded
 * (RETRY-CNT-01, IBTA Vol1 ch. 9).
 */
static void
retry_or_fail(struct rk_ib_qp *qp, void (*again)(struct rk_ib_qp *qp))
{
	if (qp->comp.retry_left == 0) {
		RK_QP_COUNT(qp, req_retry_exceeded);
		rk_ib_reason_count(qp, RK_IB_R_COMP_RETRY_EXCEEDED);
		comp_error(qp, RK_WC_RETRY_EXC_ERR);
		return;
	}
	qp->comp.retry_left--;
	again(qp);
}

/*
 * A READ response beyond comp.psn while a re-issue from comp.psn is out.
 * Responses sent before the re-issue keep rising; once the PSN falls back
 * the responder has restarted from comp.psn (READ-DUP-02) and the head of
 * the restarted stream was lost as well. Re-issue at once, but only once
 * until progress; after that the local ACK timeout re-issues. The two
 * come at different distances from the lost head (a round trip, or the
 * whole remaining response), so a strictly periodic loss cannot hit the
 * head every time unless its period divides both.
 */
static bool
read_stream_restarted(struct rk_ib_qp *qp, uint32_t psn)
{
	struct comp_state *cs = &qp->comp;

	if (!cs->retry_hi_valid || rk_psn_diff(psn, cs->retry_hi) > 0) {
		cs->retry_hi = psn;
		cs->retry_hi_valid = true;
		return false;
	}
	/* An equal PSN is a link duplicate, not a restart. */
	if (cs->retry_rewound || rk_psn_diff(psn, cs->retry_hi) == 0)
		return false;
	cs->retry_rewound = true;
	return true;
}

/* ------------------------------------------------------------ the states */

static enum rk_comp_state
chk_psn(struct rk_ib_qp *qp, struct comp_ctx *c)
{
	if (qp->state != RK_QPS_RTS && qp->state != RK_QPS_SQD) {
		rk_ib_reason_count(qp, RK_IB_R_COMP_QP_STATE);
		return RK_COMP_ST_DROP;
	}
	/* A response for a PSN never sent is a ghost: ignore it (RETRY-GHOST-01). */
	if (!qp->req.sent_any || rk_psn_diff(c->psn, qp->req.max_sent_psn) > 0) {
		RK_QP_COUNT(qp, comp_ghost_acks);
		rk_ib_reason_count(qp, RK_IB_R_COMP_GHOST);
		return RK_COMP_ST_DROP;
	}
	if (rk_psn_diff(c->psn, qp->comp.psn) < 0) {
		RK_QP_COUNT(qp, comp_dup_resp);
		rk_ib_reason_count(qp, RK_IB_R_COMP_DUP);
		return RK_COMP_ST_DROP;
	}
	return RK_COMP_ST_CHK_ACK;
}

static enum rk_comp_state
chk_ack(struct rk_ib_qp *qp, struct comp_ctx *c)
{
	if (c->flags & RK_OPF_READ_RESP)
		return RK_COMP_ST_READ;
	if (c->flags & RK_OPF_ATOMIC_ACK)
		return RK_COMP_ST_ATOMIC;
	switch (rk_aeth_kind(c->syndrome)) {
	case RK_AETH_ACK:
		return RK_COMP_ST_ACK;
	case RK_AETH_RNR_NAK:
		return RK_COMP_ST_RNR;
	case RK_AETH_NAK:
		switch (c->syndrome & RK_AETH_VALUE_MASK) {
		case RK_AETH_NAK_PSN_SEQ_ERR:
			return RK_COMP_ST_NAK_SEQ;
		case RK_AETH_NAK_INVALID_REQUEST:
		case RK_AETH_NAK_REMOTE_ACCESS_ERR:
		case RK_AETH_NAK_REMOTE_OP_ERR:
			return RK_COMP_ST_NAK_FATAL;
		default:
			/* T4: code 4 (invalid RD request) is RD only; 4..31 are reserved on RC. */
			rk_ib_reason_count(qp, RK_IB_R_COMP_AETH_RESERVED);
			return RK_COMP_ST_DROP;
		}
	default:
		rk_ib_reason_count(qp, RK_IB_R_COMP_AETH_RESERVED);
		return RK_COMP_ST_DROP;
	}
}

/* READ response (IBTA Vol1 ch. 9): in order, implicit ACK of earlier WQEs. */
static enum rk_comp_state
do_read(struct rk_ib_qp *qp, struct comp_ctx *c)
{
	struct sq_wqe *w;
	uint32_t idx, off, want, plen = c->pkt->payload_len;
	uint8_t expect;
	const uint8_t *src;

	if (!retire(qp, c, c->psn, false))
		return RK_COMP_ST_RETRY;
	w = head_wqe(qp);
	if (w == NULL || w->wr.opcode != RK_WR_RDMA_READ ||
	    rk_psn_diff(c->psn, w->first_psn) < 0 || rk_psn_diff(c->psn, w->last_psn) > 0)
		return RK_COMP_ST_DROP;
	if (rk_psn_diff(qp->comp.psn, w->first_psn) < 0)
		advance_psn(qp, c, w->first_psn);
	if (rk_psn_diff(c->psn, qp->comp.psn) < 0)
		return RK_COMP_ST_DROP;
	if (c->psn != qp->comp.psn) {
		/* A gap: re-issued once (do_retry), again if the re-issue lost its head. */
		if (qp->comp.retry_psn_valid && qp->comp.retry_psn == qp->comp.psn &&
		    read_stream_restarted(qp, c->psn))
			qp->comp.retry_psn_valid = false;
		return RK_COMP_ST_RETRY;
	}
	idx = (uint32_t)rk_psn_diff(c->psn, w->first_psn);
	if (sq_wqe_npkts(w) == 1)
		expect = RK_OP_RDMA_READ_RESPONSE_ONLY;
	else if (idx == 0)
		expect = RK_OP_RDMA_READ_RESPONSE_FIRST;
	else if (idx + 1 == sq_wqe_npkts(w))
		expect = RK_OP_RDMA_READ_RESPONSE_LAST;
	else
		expect = RK_OP_RDMA_READ_RESPONSE_MIDDLE;
	off = idx * qp->pmtu;
	want = w->length - off < qp->pmtu ? w->length - off : qp->pmtu;
	if (c->opcode != expect || plen != want)
		return RK_COMP_ST_BAD_RESP;
	/* FIRST, LAST and ONLY carry an AETH: a NAK there is no data. */
	if (rk_pkt_xeth(c->pkt, RK_HDR_AETH) != NULL && rk_aeth_kind(c->syndrome) != RK_AETH_ACK)
		return RK_COMP_ST_BAD_RESP;
	/* Scatter into the SGEs, looked up again: the MR may be gone. */
	src = c->pkt->frame + c->pkt->payload_off;
	if (!rk_ib_sge_scatter(qp, w->sge, (uint32_t)w->wr.num_sge, off, src, plen))
		return RK_COMP_ST_LOC_PROT;
	advance_psn(qp, c, rk_psn_add(c->psn, 1));
	if (idx + 1 == sq_wqe_npkts(w))
		retire_head(qp, w, RK_WC_SUCCESS);
	return RK_COMP_ST_DONE;
}

static enum rk_comp_state
do_atomic(struct rk_ib_qp *qp, struct comp_ctx *c)
{
	const uint8_t *h = rk_pkt_xeth(c->pkt, RK_HDR_ATMACK);
	struct sq_wqe *w;
	uint64_t orig;
	uint8_t *dst;

	if (!retire(qp, c, c->psn, false))
		return RK_COMP_ST_RETRY;
	w = head_wqe(qp);
	if (w == NULL || !wr_is_atomic(w->wr.opcode) || w->first_psn != c->psn || h == NULL)
		return RK_COMP_ST_DROP;
	if (rk_aeth_kind(c->syndrome) != RK_AETH_ACK)
		return RK_COMP_ST_BAD_RESP;
	dst = rk_req_sge_ptr(qp, w, 0, 0, sizeof(orig), RK_ACCESS_LOCAL_WRITE);
	if (dst == NULL)
		return RK_COMP_ST_LOC_PROT;
	orig = rk_atmack_orig_rem_dt(h);
	memcpy(dst, &orig, sizeof(orig));
	advance_psn(qp, c, rk_psn_add(c->psn, 1));
	retire_head(qp, w, RK_WC_SUCCESS);
	return RK_COMP_ST_DONE;
}

/* ACK: one coalesced ACK retires every WQE up to its PSN. */
static enum rk_comp_state
do_ack(struct rk_ib_qp *qp, struct comp_ctx *c)
{
	struct sq_wqe *w;

	if (!retire(qp, c, c->psn, true))
		return RK_COMP_ST_RETRY;
	w = head_wqe(qp);
	if (w != NULL && !wr_is_rd_atomic(w->wr.opcode) &&
	    rk_psn_diff(c->psn, w->first_psn) >= 0)
		advance_psn(qp, c, rk_psn_add(c->psn, 1));     /* part of a long message */
	else if (w != NULL && wr_is_rd_atomic(w->wr.opcode) &&
		 rk_psn_diff(c->psn, w->first_psn) >= 0)
		return RK_COMP_ST_RETRY;        /* ACK past a READ/ATOMIC: its response is lost */
	return RK_COMP_ST_DONE;
}

static bool
retire_before_nak(struct rk_ib_qp *qp, struct comp_ctx *c)
{
	struct sq_wqe *w;

	if (!retire(qp, c, c->psn, false))
		return false;
	w = head_wqe(qp);
	if (w != NULL && !wr_is_rd_atomic(w->wr.opcode))
		advance_psn(qp, c, c->psn);
	return true;
}

/* NAK-SEQ: go back to its PSN; each one costs a transport retry (RETRY-NAKSEQ-01). */
static enum rk_comp_state
do_nak_seq(struct rk_ib_qp *qp, struct comp_ctx *c)
{
	if (!retire_before_nak(qp, c))
		return RK_COMP_ST_RETRY;
	if (c->progress)
		on_progress(qp, c->now);
	else if (qp->comp.retry_psn_valid && qp->comp.retry_psn == qp->comp.psn &&
		 !qp->comp.retry_resent)
		return RK_COMP_ST_DROP;         /* a duplicate of the NAK already obeyed */
	c->progress = false;
	RK_QP_COUNT(qp, req_nak_seq_retries);
	retry_or_fail(qp, qp->lr->req_nak_seq);
	return RK_COMP_ST_DONE;
}

/* RNR NAK: wait the peer's timer, then resend; its own counter, 7 = infinite. */
static enum rk_comp_state
do_rnr(struct rk_ib_qp *qp, struct comp_ctx *c)
{
	if (!retire_before_nak(qp, c))
		return RK_COMP_ST_RETRY;
	if (c->progress) {
		on_progress(qp, c->now);
		c->progress = false;
	}
	RK_QP_COUNT(qp, req_rnr_retries);
	if (qp->comp.rnr_left == 0) {
		RK_QP_COUNT(qp, req_rnr_retry_exceeded);
		rk_ib_reason_count(qp, RK_IB_R_COMP_RNR_RETRY_EXCEEDED);
		comp_error(qp, RK_WC_RNR_RETRY_EXC_ERR);
		return RK_COMP_ST_DONE;
	}
	if (qp->attr.rnr_retry != 7)
		qp->comp.rnr_left--;
	qp->req.rnr_wait = true;
	qp->req.rnr_until_ns = c->now + rk_rnr_timer_ns(c->syndrome & RK_AETH_VALUE_MASK);
	qp->comp.timer_ns = 0;          /* the transport timer does not run meanwhile */
	rk_req_seek(qp, qp->comp.psn);
	return RK_COMP_ST_DONE;
}

/*
 * Class C NAK (RETRY-FATAL-01): the error belongs to the WQE owning the
 * NAK's PSN. WQEs before it were executed: SEND/WRITE are acknowledged by
 * the NAK; a READ/ATOMIC whose response did not arrive first can no longer
 * be answered (the responder is in ERR), so it is flushed, not blamed.
 */
static enum rk_comp_state
do_nak_fatal(struct rk_ib_qp *qp, struct comp_ctx *c)
{
	static const enum rk_wc_status st[] = {
		[RK_AETH_NAK_INVALID_REQUEST] = RK_WC_REM_INV_REQ_ERR,
		[RK_AETH_NAK_REMOTE_ACCESS_ERR] = RK_WC_REM_ACCESS_ERR,
		[RK_AETH_NAK_REMOTE_OP_ERR] = RK_WC_REM_OP_ERR,
	};
	static const enum rk_ib_reason why[] = {
		[RK_AETH_NAK_INVALID_REQUEST] = RK_IB_R_COMP_NAK_INV,
		[RK_AETH_NAK_REMOTE_ACCESS_ERR] = RK_IB_R_COMP_NAK_RACC,
		[RK_AETH_NAK_REMOTE_OP_ERR] = RK_IB_R_COMP_NAK_ROP,
	};
	struct sq_wqe *w;

	rk_ib_reason_count(qp, why[c->syndrome & RK_AETH_VALUE_MASK]);

	while ((w = head_wqe(qp)) != NULL && rk_psn_diff(w->last_psn, c->psn) < 0)
		retire_head(qp, w, wr_is_rd_atomic(w->wr.opcode) ? RK_WC_WR_FLUSH_ERR :
								   RK_WC_SUCCESS);
	comp_error(qp, st[c->syndrome & RK_AETH_VALUE_MASK]);
	c->progress = false;
	return RK_COMP_ST_DONE;
}

/* Missing response(s): re-issue from the first missing PSN, once per gap. */
static enum rk_comp_state
do_retry(struct rk_ib_qp *qp, struct comp_ctx *c)
{
	if (c->progress) {
		on_progress(qp, c->now);
		c->progress = false;
	}
	if (qp->comp.retry_psn_valid && qp->comp.retry_psn == qp->comp.psn)
		return RK_COMP_ST_DONE;
	RK_QP_COUNT(qp, req_read_retries);
	retry_or_fail(qp, rk_comp_go_back);
	return RK_COMP_ST_DONE;
}

void
rk_comp_rx(struct rk_ib_qp *qp, const struct rk_pkt *pkt, uint64_t now_ns)
{
	const uint8_t *aeth = rk_pkt_xeth(pkt, RK_HDR_AETH);
	struct comp_ctx c = {
		.pkt = pkt,
		.psn = rk_bth_psn(rk_pkt_bth(pkt)),
		.opcode = pkt->opcode,
		.syndrome = aeth != NULL ? rk_aeth_syndrome(aeth) : 0,
		.flags = pkt->op->flags,
		.now = now_ns,
	};
	enum rk_comp_state st = RK_COMP_ST_CHK_PSN, next;

	while (st != RK_COMP_ST_DONE) {
		switch (st) {
		case RK_COMP_ST_CHK_PSN:
			next = chk_psn(qp, &c);
			break;
		case RK_COMP_ST_CHK_ACK:
			next = chk_ack(qp, &c);
			break;
		case RK_COMP_ST_READ:
			next = do_read(qp, &c);
			break;
		case RK_COMP_ST_ATOMIC:
			next = do_atomic(qp, &c);
			break;
		case RK_COMP_ST_ACK:
			next = do_ack(qp, &c);
			break;
		case RK_COMP_ST_NAK_SEQ:
			next = do_nak_seq(qp, &c);
			break;
		case RK_COMP_ST_RNR:
			next = do_rnr(qp, &c);
			break;
		case RK_COMP_ST_NAK_FATAL:
			next = do_nak_fatal(qp, &c);
			break;
		case RK_COMP_ST_RETRY:
			next = do_retry(qp, &c);
			break;
		case RK_COMP_ST_BAD_RESP:
			comp_error(qp, RK_WC_BAD_RESP_ERR);
			c.progress = false;
			next = RK_COMP_ST_DONE;
			break;
		case RK_COMP_ST_LOC_PROT:
			/* The response's target MR was deregistered: nothing written. */
			comp_error(qp, RK_WC_LOC_PROT_ERR);
			c.progress = false;
			next = RK_COMP_ST_DONE;
			break;
		default:
			next = RK_COMP_ST_DONE;
			break;
		}
		if (qp->dev->attr.trace != NULL)
			rk_ib_trace(qp, "comp", rk_comp_state_name[st], rk_comp_state_name[next]);
		st = next;
	}
	if (c.progress && qp->state != RK_QPS_ERR)
		on_progress(qp, now_ns);
}

/*
 * Local ACK timeout: go back to the oldest unacknowledged PSN; an RTO_low
 * one does what the QP's loss recovery says instead.
 */
void
rk_comp_timer(struct rk_ib_qp *qp, uint64_t now_ns)
{
	bool low = qp->comp.timer_low;

	(void)now_ns;
	qp->comp.timer_ns = 0;
	qp->comp.timer_low = false;
	if (!rk_comp_outstanding(qp))
		return;
	RK_QP_COUNT(qp, req_retransmit_timeouts);
	if (low) {
		RK_QP_COUNT(qp, req_rto_low_timeouts);
		qp->comp.rto_low_spent = true;
	}
	retry_or_fail(qp, low ? qp->lr->req_rto_low_expired : rk_comp_go_back);
}
