/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Responder (IBTA Vol1 ch. 9; rxe_resp.c
 * role). One state function per check, in rxe's order: PSN, opcode
 * sequence, QP access, resources (receive WQE, responder resources),
 * length (C9-92, C9-94), R_Key (C9-88), execute, complete, acknowledge;
 * and the outcomes: duplicate, NAK-SEQ once per gap, RNR NAK, class C NAK
 * followed by the error state. UC drops what RC would NAK (class D), UD
 * checks the Q_Key and drops.
 *
 * READ data is fetched when its response packets are built, not when the
 * request arrives; the requester orders a later WRITE over the same bytes
 * with RK_SEND_FENCE (IBTA Vol1 ch. 10 ordering rules).
 *
 * No host address outlives a packet: R_Keys (WRITE continuation packets,
 * every READ response) and receive SGE L_Keys are looked up again each
 * time, so a region deregistered mid-message is never touched: the
 * request gets NAK-RACC (NAK-ROP for a receive buffer), the QP errors.
 *
 * This file holds the receive state machine and its checks; executing
 * requests is in rk_resp_exec.c, the ACKs and NAKs in rk_resp_ack.c, the
 * READ responses and atomic acknowledges sent in rk_resp_tx.c.
 */
#include <string.h>

#include "rk_ib_mutant.h"
#include "rk_resp_priv.h"

const char *const rk_resp_state_name[RK_RESP_ST_COUNT] = {
	RESP_STATES(RK_ENUM_NAME, RK_RESP_ST_)
};

/* Take a receive WQE and check its SGEs against their L_Keys. */
static enum rk_wc_status
fetch_rwqe(struct rk_ib_qp *qp, bool *empty)
{
	struct rk_ib_rq *rq = qp->srq != NULL ? &qp->srq->rq : &qp->rq;
	struct resp_state *r = &qp->resp;
	const struct rq_slot *slot;

	*empty = rq->cons == rq->prod;
	if (*empty)
		return RK_WC_SUCCESS;
	slot = rq_slot(rq, rq->cons);
	r->rwqe.wr_id = slot->wr_id;
	r->rwqe.num_sge = slot->num_sge;
	memcpy(r->rwqe.sge, slot->sge, (size_t)slot->num_sge * sizeof(slot->sge[0]));
	rq->cons++;
	r->have_rwqe = true;
	for (uint32_t i = 0; i < r->rwqe.num_sge; i++) {
		/* A piece of no bytes needs no address (a zero-length MR may sit at NULL). */
		if (r->rwqe.sge[i].length != 0 &&
		    rk_ib_sge_ptr(qp, &r->rwqe.sge[i], 0, r->rwqe.sge[i].length,
				  RK_ACCESS_LOCAL_WRITE) == NULL)
			return RK_WC_LOC_PROT_ERR;
	}
	return RK_WC_SUCCESS;
}

/* --------------------------------------------------------------- states */

static bool
msg_start(uint32_t flags)
{
	return (flags & (RK_OPF_FIRST | RK_OPF_READ_REQ)) != 0;
}

/* PSN classification: expected, duplicate or invalid (IBTA Vol1 ch. 9; C9-105). */
static enum rk_resp_state
chk_psn(struct rk_ib_qp *qp, struct resp_ctx *c)
{
	struct resp_state *r = &qp->resp;
	int32_t d;

	if (qp->type == RK_QPT_UD)
		return RK_RESP_ST_CHK_OP_SEQ;
	d = rk_psn_diff(c->psn, r->epsn);
	if (is_rc(qp)) {
		if (d > 0 && RK_IB_MUTANT(RK_IB_MUT_NO_PSN_AHEAD)) {
			r->epsn = c->psn;
		} else if (d > 0) {
			/* Selective repeat places it; the gap is NAKed once either way. */
			if (qp->lr->resp_ahead != NULL && qp->lr->resp_ahead(qp, c->pkt, c->psn) &&
			    r->nak_sent)
				return RK_RESP_ST_DONE;
			return RK_RESP_ST_NAK_SEQ;
		}
		if (d < 0)
			return RK_RESP_ST_DUPLICATE;
		r->nak_sent = false;
		return RK_RESP_ST_CHK_OP_SEQ;
	}
	/* UC: a lost packet loses its message; resynchronise on the next start. */
	if (d != 0 || r->drop_msg) {
		if (!msg_start(c->flags)) {
			r->drop_msg = true;
			r->msg = MSG_NONE;
			r->epsn = rk_psn_add(c->psn, 1);
			return drop(c, RK_IB_R_RESP_UC_MSG_LOST);
		}
		r->drop_msg = false;
		r->msg = MSG_NONE;
		r->epsn = c->psn;
	}
	return RK_RESP_ST_CHK_OP_SEQ;
}

bool
rk_resp_op_supported(const struct rk_ib_qp *qp, uint32_t flags, uint8_t opcode)
{
	uint8_t op = opcode & 0x1f;

	if (!(flags & RK_OPF_VALID) || !(flags & RK_OPF_REQ))
		return false;
	if (qp->type == RK_QPT_UD)
		return op == RK_OP_SEND_ONLY || op == RK_OP_SEND_ONLY_IMM;
	if (flags & (RK_OPF_SEND | RK_OPF_WRITE))
		return qp->type == RK_QPT_RC || !(flags & RK_OPF_INV);
	return qp->type == RK_QPT_RC && (flags & (RK_OPF_READ_REQ | RK_OPF_ATOMIC));
}

enum rk_resp_state
rk_resp_reject(struct rk_ib_qp *qp, struct resp_ctx *c, uint8_t code, enum rk_ib_reason why)
{
	c->reason = why;
	if (!is_rc(qp) && c->rwc_status == RK_WC_LOC_PROT_ERR) {
		/* A receive WQE whose memory is gone: a local error, not class D. */
		c->nak_code = code;
		return RK_RESP_ST_NAK_FATAL;
	}
	if (!is_rc(qp)) {
		qp->resp.drop_msg = qp->type == RK_QPT_UC;
		qp->resp.msg = MSG_NONE;
		return RK_RESP_ST_DROP;
	}
	c->nak_code = code;
	return RK_RESP_ST_NAK_FATAL;
}

/* Opcode sequence (IBTA Vol1 ch. 9, OPSEQ-01/02, BTH-OPC-02). */
static enum rk_resp_state
chk_op_seq(struct rk_ib_qp *qp, struct resp_ctx *c)
{
	struct resp_state *r = &qp->resp;

	if (!rk_resp_op_supported(qp, c->flags, c->opcode))
		return rk_resp_reject(qp, c, RK_AETH_NAK_INVALID_REQUEST, RK_IB_R_RESP_OPCODE);
	switch (r->msg) {
	case MSG_SEND:
		if (!(c->flags & RK_OPF_SEND) || msg_start(c->flags))
			return rk_resp_reject(qp, c, RK_AETH_NAK_INVALID_REQUEST,
					      RK_IB_R_RESP_OPSEQ_LAST);
		break;
	case MSG_WRITE:
		if (!(c->flags & RK_OPF_WRITE) || msg_start(c->flags))
			return rk_resp_reject(qp, c, RK_AETH_NAK_INVALID_REQUEST,
					      RK_IB_R_RESP_OPSEQ_LAST);
		break;
	default:
		if (!msg_start(c->flags) && !(c->flags & RK_OPF_ATOMIC))
			return rk_resp_reject(qp, c, RK_AETH_NAK_INVALID_REQUEST,
					      RK_IB_R_RESP_OPSEQ_FIRST);
		break;
	}
	return RK_RESP_ST_CHK_OP_VALID;
}

/* QP access flags (ATOM-QPACC-01: QP-level denial is an invalid request). */
static enum rk_resp_state
chk_op_valid(struct rk_ib_qp *qp, struct resp_ctx *c)
{
	unsigned int acc = qp->attr.qp_access_flags;

	if (((c->flags & RK_OPF_WRITE) && !(acc & RK_ACCESS_REMOTE_WRITE)) ||
	    ((c->flags & RK_OPF_READ_REQ) && !(acc & RK_ACCESS_REMOTE_READ)) ||
	    ((c->flags & RK_OPF_ATOMIC) && !(acc & RK_ACCESS_REMOTE_ATOMIC)))
		return rk_resp_reject(qp, c, RK_AETH_NAK_INVALID_REQUEST, RK_IB_R_RESP_QP_ACCESS);
	return RK_RESP_ST_CHK_RESOURCE;
}

/* The NAK code of remote access errors (a mutant reports them as invalid requests). */
#define RACC_CODE (RK_IB_MUTANT(RK_IB_MUT_RACC_AS_INV) ? RK_AETH_NAK_INVALID_REQUEST : \
		   RK_AETH_NAK_REMOTE_ACCESS_ERR)

/* Receive WQE (RNR NAK when none, IBTA Vol1 ch. 9) and responder resources. */
static enum rk_resp_state
chk_resource(struct rk_ib_qp *qp, struct resp_ctx *c)
{
	struct resp_state *r = &qp->resp;

	if ((c->flags & RK_OPF_RWQE) && !r->have_rwqe &&
	    ((c->flags & RK_OPF_SEND) ? (c->flags & RK_OPF_FIRST) != 0 : true)) {
		bool empty;
		enum rk_wc_status st = fetch_rwqe(qp, &empty);

		if (empty) {
			if (RK_IB_MUTANT(RK_IB_MUT_NO_RNR))
				return drop(c, RK_IB_R_RESP_RNR);
			if (is_rc(qp))
				return RK_RESP_ST_RNR;
			return rk_resp_reject(qp, c, 0, RK_IB_R_RESP_RWQE_NONE);
		}
		if (st != RK_WC_SUCCESS) {
			c->rwc_status = st;
			return rk_resp_reject(qp, c, RK_AETH_NAK_REMOTE_OP_ERR,
					      RK_IB_R_RESP_RWQE_BAD);
		}
	}
	if (c->flags & (RK_OPF_READ_REQ | RK_OPF_ATOMIC)) {
		const struct resp_res *old;

		/*
		 * ATOM-RES-01: more than max_dest_rd_atomic in flight is invalid.
		 * A slot only replaying a duplicate is not in flight: the
		 * requester, which keeps to max_rd_atomic, completed it already.
		 */
		if (qp->nres == 0)
			return rk_resp_reject(qp, c, RK_AETH_NAK_INVALID_REQUEST,
					      RK_IB_R_RESP_RD_ATOMIC_NONE);
		old = &qp->res[r->res_head % qp->nres];
		if (old->pending && !old->answered)
			return rk_resp_reject(qp, c, RK_AETH_NAK_INVALID_REQUEST,
					      RK_IB_R_RESP_RD_ATOMIC_EXCEEDED);
	}
	return RK_RESP_ST_CHK_LENGTH;
}

/* Lengths: C9-92 (payload vs PMTU and position), C9-94 (READ DMALen), RETH totals. */
static enum rk_resp_state
chk_length(struct rk_ib_qp *qp, struct resp_ctx *c)
{
	const struct rk_pkt *pkt = c->pkt;
	uint32_t with_pad = pkt->icrc_off - pkt->payload_off;
	uint32_t pad = pkt->pad_cnt, len, pmtu = qp->pmtu;
	uint32_t f = c->flags;
	const uint8_t *h;

	if ((with_pad & 3) != 0 || pad > with_pad)
		return rk_resp_reject(qp, c, RK_AETH_NAK_INVALID_REQUEST, RK_IB_R_RESP_LEN_PAD);
	len = with_pad - pad;
	c->len = len;
	c->payload = pkt->frame + pkt->payload_off;
	if (f & (RK_OPF_READ_REQ | RK_OPF_ATOMIC)) {
		if (with_pad != 0)
			return rk_resp_reject(qp, c, RK_AETH_NAK_INVALID_REQUEST,
					      RK_IB_R_RESP_LEN_RD_ATOMIC);
	} else if ((f & RK_OPF_LAST) == 0) {
		if (len != pmtu || pad != 0)            /* FIRST, MIDDLE: exactly PMTU */
			return rk_resp_reject(qp, c, RK_AETH_NAK_INVALID_REQUEST,
					      RK_IB_R_RESP_LEN_NOT_PMTU);
	} else if ((f & RK_OPF_FIRST) == 0) {
		if (len == 0 || len > pmtu)             /* LAST: 1..PMTU */
			return rk_resp_reject(qp, c, RK_AETH_NAK_INVALID_REQUEST,
					      RK_IB_R_RESP_LEN_LAST);
	} else if (len > pmtu) {                        /* ONLY: 0..PMTU */
		return rk_resp_reject(qp, c, RK_AETH_NAK_INVALID_REQUEST,
				      RK_IB_R_RESP_LEN_OVER_PMTU);
	}
	if ((h = rk_pkt_xeth(pkt, RK_HDR_RETH)) != NULL)
		c->dma_len = rk_reth_dma_len(h);
	if (f & RK_OPF_READ_REQ) {
		if (c->dma_len > 0x80000000u)
			return rk_resp_reject(qp, c, RK_AETH_NAK_INVALID_REQUEST,
					      RK_IB_R_RESP_DMALEN);
		c->nres = c->dma_len == 0 ? 1 : (c->dma_len + pmtu - 1) / pmtu;
	} else if (f & RK_OPF_ATOMIC) {
		if (rk_atmeth_va(rk_pkt_xeth(pkt, RK_HDR_ATMETH)) & 7)
			return rk_resp_reject(qp, c, RK_AETH_NAK_INVALID_REQUEST,
					      RK_IB_R_RESP_ATOMIC_ALIGN);
	} else if (f & RK_OPF_WRITE) {
		/* DMALen must match the bytes that arrive (LEN-WR-01). */
		uint64_t left = (f & RK_OPF_FIRST) ? c->dma_len : qp->resp.wr_left;

		if ((f & RK_OPF_LAST) ? left != len : left <= len)
			return rk_resp_reject(qp, c, RK_AETH_NAK_INVALID_REQUEST,
					      RK_IB_R_RESP_WRITE_LEN);
	}
	return RK_RESP_ST_CHK_RKEY;
}

/*
 * R_Key, PD, access and bounds, VA + length wrap included (MEM-*; zero
 * length needs no key, C9-88). Remote access errors are class C.
 */
static enum rk_resp_state
chk_rkey(struct rk_ib_qp *qp, struct resp_ctx *c)
{
	const uint8_t *h;
	struct rk_ib_mr *mr;
	uint64_t va, len;
	uint32_t rkey;
	unsigned int need;

	if ((h = rk_pkt_xeth(c->pkt, RK_HDR_ATMETH)) != NULL) {
		va = rk_atmeth_va(h);
		rkey = rk_atmeth_r_key(h);
		len = 8;
		need = RK_ACCESS_REMOTE_ATOMIC;
	} else if ((h = rk_pkt_xeth(c->pkt, RK_HDR_RETH)) != NULL) {
		va = rk_reth_va(h);
		rkey = rk_reth_r_key(h);
		len = c->dma_len;
		need = (c->flags & RK_OPF_READ_REQ) ? RK_ACCESS_REMOTE_READ : RK_ACCESS_REMOTE_WRITE;
		if (len == 0 && !RK_IB_MUTANT(RK_IB_MUT_ZERO_LEN_KEYED)) {
			c->target = NULL;
			return RK_RESP_ST_EXECUTE;
		}
	} else if (qp->resp.msg == MSG_WRITE && (c->flags & RK_OPF_WRITE) && c->len > 0) {
		/* WRITE MIDDLE/LAST: the R_Key again, in case the MR went meanwhile. */
		va = qp->resp.wr_va;
		rkey = qp->resp.wr_rkey;
		len = c->len;
		need = RK_ACCESS_REMOTE_WRITE;
	} else {
		return RK_RESP_ST_EXECUTE;
	}
	mr = rk_ib_mr_by_rkey(qp->dev, rkey);
	if (mr == NULL || !mr->rkey_valid)
		return rk_resp_reject(qp, c, RACC_CODE, RK_IB_R_RESP_RKEY);
	if (mr->pd != qp->pd)
		return rk_resp_reject(qp, c, RACC_CODE, RK_IB_R_RESP_RKEY_PD);
	if ((mr->res.access & need) != need && !RK_IB_MUTANT(RK_IB_MUT_ANY_ACCESS))
		return rk_resp_reject(qp, c, RACC_CODE, RK_IB_R_RESP_RKEY_ACCESS);
	if (va + len < va || (c->target = mr_range(mr, va, len)) == NULL)
		return rk_resp_reject(qp, c, RACC_CODE, RK_IB_R_RESP_RKEY_BOUNDS);
	return RK_RESP_ST_EXECUTE;
}

static enum rk_resp_state
complete(struct rk_ib_qp *qp, struct resp_ctx *c)
{
	struct resp_state *r = &qp->resp;

	if (c->flags & RK_OPF_READ_REQ)
		r->epsn = rk_psn_add(c->psn, c->nres);  /* READ-NEXT-01 */
	else
		r->epsn = rk_psn_add(c->psn, 1);
	/* MSN counts whole messages (ACK-MSN-01). */
	if (c->flags & (RK_OPF_LAST | RK_OPF_READ_REQ | RK_OPF_ATOMIC))
		r->msn = rk_psn_add(r->msn, 1);
	return RK_RESP_ST_ACKNOWLEDGE;
}

void
rk_resp_rx(struct rk_ib_qp *qp, const struct rk_pkt *pkt, uint64_t now_ns)
{
	struct resp_ctx c = {
		.pkt = pkt,
		.bth = rk_pkt_bth(pkt),
		.opcode = pkt->opcode,
		.flags = pkt->op->flags,
		.now = now_ns,
		.rwc_status = RK_WC_SUCCESS,
	};
	enum rk_resp_state st = RK_RESP_ST_CHK_PSN, next;

	c.psn = rk_bth_psn(c.bth);
	if (qp->type == RK_QPT_UD) {
		const uint8_t *d = rk_pkt_xeth(pkt, RK_HDR_DETH);

		/* UD-QKEY-01: a Q_Key mismatch is dropped and counted. */
		if (d == NULL || (rk_deth_q_key(d) != qp->attr.qkey &&
				  !RK_IB_MUTANT(RK_IB_MUT_ANY_QKEY))) {
			RK_QP_COUNT(qp, rx_drop_qkey);
			rk_ib_reason_count(qp, RK_IB_R_RESP_UD_QKEY);
			return;
		}
	}
	while (st != RK_RESP_ST_DONE) {
		switch (st) {
		case RK_RESP_ST_CHK_PSN:
			next = chk_psn(qp, &c);
			break;
		case RK_RESP_ST_CHK_OP_SEQ:
			next = chk_op_seq(qp, &c);
			break;
		case RK_RESP_ST_CHK_OP_VALID:
			next = chk_op_valid(qp, &c);
			break;
		case RK_RESP_ST_CHK_RESOURCE:
			next = chk_resource(qp, &c);
			break;
		case RK_RESP_ST_CHK_LENGTH:
			next = chk_length(qp, &c);
			break;
		case RK_RESP_ST_CHK_RKEY:
			next = chk_rkey(qp, &c);
			break;
		case RK_RESP_ST_EXECUTE:
			next = rk_resp_execute(qp, &c);
			break;
		case RK_RESP_ST_COMPLETE:
			next = complete(qp, &c);
			break;
		case RK_RESP_ST_ACKNOWLEDGE:
			next = rk_resp_acknowledge(qp, &c);
			break;
		case RK_RESP_ST_DUPLICATE:
			next = rk_resp_duplicate(qp, &c);
			break;
		case RK_RESP_ST_NAK_SEQ:
			next = rk_resp_nak_seq(qp, &c);
			break;
		case RK_RESP_ST_RNR:
			next = rk_resp_rnr_nak(qp, &c);
			break;
		case RK_RESP_ST_NAK_FATAL:
			rk_ib_reason_count(qp, c.reason);
			next = rk_resp_nak_fatal(qp, &c);
			break;
		case RK_RESP_ST_DROP:
		default:
			rk_ib_reason_count(qp, c.reason);
			RK_QP_COUNT(qp, resp_drop);
			next = RK_RESP_ST_DONE;
			break;
		}
		if (qp->dev->attr.trace != NULL)
			rk_ib_trace(qp, "resp", rk_resp_state_name[st], rk_resp_state_name[next]);
		st = next;
	}
}

void
rk_resp_reset(struct rk_ib_qp *qp)
{
	uint32_t epsn = qp->resp.epsn;

	memset(&qp->resp, 0, sizeof(qp->resp));
	qp->resp.epsn = epsn;
	if (qp->res != NULL)
		memset(qp->res, 0, (size_t)qp->nres * sizeof(*qp->res));
	if (qp->lr->reset != NULL)
		qp->lr->reset(qp);
}
