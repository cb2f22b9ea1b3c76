/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the responder answers (IBTA Vol1 ch. 9): the one coalesced ACK
 * with its credits, duplicates (C9-105) re-ACKed or replayed from the
 * responder resources, NAK-SEQ once per gap, RNR NAK, class C NAK.
 */
#include "rk_ib_mutant.h"
#include "rk_resp_priv.h"

static uint8_t
ack_syndrome(struct rk_ib_qp *qp)
{
	uint32_t free_rwqe;

	/* End-to-end credits: free receive WQEs, or "not tracked" with an SRQ. */
	if (qp->srq != NULL)
		return RK_AETH_CREDIT_INVALID;
	free_rwqe = qp->rq.prod - qp->rq.cons;
	/* rk_aeth_credit_code() walks its 31 codes: keep the last answer. */
	if (!qp->resp.cc_valid || qp->resp.cc_free != free_rwqe) {
		qp->resp.cc_free = free_rwqe;
		qp->resp.cc_code = rk_aeth_credit_code(free_rwqe);
		qp->resp.cc_valid = true;
	}
	return RK_AETH_TYPE_ACK | qp->resp.cc_code;
}

static void
set_ack(struct rk_ib_qp *qp, uint8_t syndrome, uint32_t psn, uint64_t now)
{
	struct resp_state *r = &qp->resp;

	if (!r->ack_pending)
		r->ack_due_ns = now + qp->dev->attr.ack_delay_ns;
	r->ack_pending = true;
	r->ack_syndrome = syndrome;
	r->ack_psn = psn;
	r->ack_msn = r->msn;
}

/*
 * A duplicate's ACK says less than a queued NAK-SEQ or RNR NAK (which
 * acknowledges everything before its PSN too): never replace one, or the
 * requester never learns of the gap (PSN-GAP-01/02).
 */
static void
set_dup_ack(struct rk_ib_qp *qp, uint64_t now)
{
	const struct resp_state *r = &qp->resp;

	if (r->ack_pending && rk_aeth_kind(r->ack_syndrome) != RK_AETH_ACK)
		return;
	set_ack(qp, ack_syndrome(qp), rk_psn_sub(r->epsn, 1), now);
}

void
rk_resp_set_ack(struct rk_ib_qp *qp, uint8_t syndrome, uint32_t psn, uint64_t now)
{
	set_ack(qp, syndrome, psn, now);
}

uint8_t
rk_resp_ack_syndrome(struct rk_ib_qp *qp)
{
	return ack_syndrome(qp);
}

static struct resp_res *
res_find(struct rk_ib_qp *qp, uint8_t type, uint32_t psn)
{
	for (uint32_t i = 0; i < qp->nres; i++) {
		struct resp_res *r = &qp->res[i];

		if (r->type == type && rk_psn_diff(psn, r->first_psn) >= 0 &&
		    rk_psn_diff(psn, r->last_psn) <= 0)
			return r;
	}
	return NULL;
}

enum rk_resp_state
rk_resp_acknowledge(struct rk_ib_qp *qp, struct resp_ctx *c)
{
	if (is_rc(qp) && !(c->flags & (RK_OPF_READ_REQ | RK_OPF_ATOMIC)) &&
	    rk_bth_ack_req(c->bth))
		set_ack(qp, ack_syndrome(qp), c->psn, c->now);
	if (qp->lr->resp_advanced != NULL)
		qp->lr->resp_advanced(qp, c->now);
	return RK_RESP_ST_DONE;
}

/* Duplicates (C9-105): re-ACK; READ replays the range; ATOMIC resends its result. */
enum rk_resp_state
rk_resp_duplicate(struct rk_ib_qp *qp, struct resp_ctx *c)
{
	struct resp_res *res;
	const uint8_t *h;

	RK_QP_COUNT(qp, resp_dup);
	if (c->flags & RK_OPF_READ_REQ) {
		struct rk_ib_mr *mr;
		uint64_t off;

		res = res_find(qp, RES_READ, c->psn);
		h = rk_pkt_xeth(c->pkt, RK_HDR_RETH);
		if (res == NULL || h == NULL)           /* READ-DUP-03: no longer held */
			return drop(c, RK_IB_R_RESP_DUP_READ_GONE);
		off = (uint64_t)(uint32_t)rk_psn_diff(c->psn, res->first_psn) * qp->pmtu;
		if (rk_reth_r_key(h) != res->r_key || rk_reth_va(h) != res->va + off ||
		    (uint64_t)rk_reth_dma_len(h) + off != res->length)
			return drop(c, RK_IB_R_RESP_DUP_READ_RANGE);
		if (res->length > 0) {
			/* The MR may have gone since: check it again. */
			mr = rk_ib_mr_by_rkey(qp->dev, res->r_key);
			if (mr == NULL || !mr->rkey_valid || mr->pd != qp->pd ||
			    !(mr->res.access & RK_ACCESS_REMOTE_READ) ||
			    mr_range(mr, res->va, res->length) == NULL)
				return drop(c, RK_IB_R_RESP_DUP_READ_MR);
		}
		res->next_psn = c->psn;
		rk_resp_res_pending(qp, res, true);
		return RK_RESP_ST_DONE;
	}
	if (c->flags & RK_OPF_ATOMIC) {
		res = res_find(qp, RES_ATOMIC, c->psn);
		if (res == NULL || res->first_psn != c->psn)
			return drop(c, RK_IB_R_RESP_DUP_ATOMIC_GONE);
		res->next_psn = c->psn;
		rk_resp_res_pending(qp, res, true);
		return RK_RESP_ST_DONE;
	}
	if (!rk_resp_op_supported(qp, c->flags, c->opcode))
		return drop(c, RK_IB_R_RESP_DUP_OPCODE);
	/*
	 * READ-NEXT-01: no request ever had a PSN inside a READ's response
	 * range, so one there is out of sequence, not a duplicate.
	 */
	res = res_find(qp, RES_READ, c->psn);
	if (res != NULL && res->first_psn != c->psn)
		return RK_RESP_ST_NAK_SEQ;
	/* PSN-DUP-01/02: ACK the last executed PSN, whatever AckReq says. */
	if (RK_IB_MUTANT(RK_IB_MUT_NO_DUP_ACK))
		return drop(c, RK_IB_R_RESP_DUP_OPCODE);
	set_dup_ack(qp, c->now);
	return RK_RESP_ST_DONE;
}

enum rk_resp_state
rk_resp_nak_seq(struct rk_ib_qp *qp, struct resp_ctx *c)
{
	if (qp->resp.nak_sent)
		return drop(c, RK_IB_R_RESP_PSN_GAP_AGAIN);     /* one NAK per gap */
	qp->resp.nak_sent = true;
	RK_QP_COUNT(qp, resp_nak_seq);
	rk_ib_reason_count(qp, RK_IB_R_RESP_PSN_GAP);
	set_ack(qp, RK_AETH_TYPE_NAK | RK_AETH_NAK_PSN_SEQ_ERR,
		RK_IB_MUTANT(RK_IB_MUT_NAK_SEQ_PSN) ? c->psn : qp->resp.epsn, c->now);
	return RK_RESP_ST_DONE;
}

enum rk_resp_state
rk_resp_rnr_nak(struct rk_ib_qp *qp, struct resp_ctx *c)
{
	/* RNR-GEN-04: later packets of this window are dropped, not NAKed. */
	qp->resp.nak_sent = true;
	RK_QP_COUNT(qp, resp_rnr_nak);
	rk_ib_reason_count(qp, RK_IB_R_RESP_RNR);
	set_ack(qp, RK_AETH_TYPE_RNR_NAK |
		(RK_IB_MUTANT(RK_IB_MUT_RNR_TIMER_0) ? 0 : qp->attr.min_rnr_timer & RK_AETH_VALUE_MASK),
		c->psn, c->now);
	return RK_RESP_ST_DONE;
}

enum rk_resp_state
rk_resp_nak_fatal(struct rk_ib_qp *qp, struct resp_ctx *c)
{
	struct resp_state *r = &qp->resp;

	RK_QP_COUNT(qp, resp_nak_fatal);
	set_ack(qp, RK_AETH_TYPE_NAK | c->nak_code, c->psn, c->now);
	r->ack_due_ns = c->now;
	r->final_nak = true;
	if (r->have_rwqe && c->rwc_status != RK_WC_SUCCESS) {
		struct rk_wc wc = {
			.wr_id = r->rwqe.wr_id,
			.status = c->rwc_status,
			.opcode = RK_WC_RECV,
			.qp_num = qp->qpn,
		};

		rk_ib_cq_push(qp->rcq, &wc);
		r->have_rwqe = false;
	}
	rk_ib_qp_to_error(qp);
	return RK_RESP_ST_DONE;
}
