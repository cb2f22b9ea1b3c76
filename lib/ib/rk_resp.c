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
 */
#include <string.h>

#include "rk_enum.h"
#include "rk_ib_internal.h"
#include "rk_ipv4.h"
#include "rk_ib_mutant.h"

#define UD_GRH_LEN 40
#define ETH_HLEN 14

#define RESP_STATES(X, P) \
	X(P, CHK_PSN) X(P, CHK_OP_SEQ) X(P, CHK_OP_VALID) X(P, CHK_RESOURCE) \
	X(P, CHK_LENGTH) X(P, CHK_RKEY) X(P, EXECUTE) X(P, COMPLETE) X(P, ACKNOWLEDGE) \
	X(P, DUPLICATE) X(P, NAK_SEQ) X(P, RNR) X(P, NAK_FATAL) X(P, DROP) X(P, DONE)

enum rk_resp_state { RESP_STATES(RK_ENUM_MEMBER, RK_RESP_ST_) RK_RESP_ST_COUNT };

const char *const rk_resp_state_name[RK_RESP_ST_COUNT] = {
	RESP_STATES(RK_ENUM_NAME, RK_RESP_ST_)
};

struct resp_ctx {
	const struct rk_pkt *pkt;
	const uint8_t *bth;
	uint32_t psn;
	uint8_t opcode;
	uint32_t flags;                 /* opcode row flags; 0 when undefined */
	const uint8_t *payload;
	uint32_t len;                   /* payload bytes, without pad */
	uint64_t now;
	uint8_t nak_code;               /* for NAK_FATAL */
	enum rk_ib_reason reason;       /* why NAK_FATAL or DROP (rk_ib_reason.h) */
	enum rk_wc_status rwc_status;   /* receive WQE status on NAK_FATAL */
	uint8_t *target;                /* resolved RETH/AtomicETH address */
	uint32_t dma_len;
	uint32_t nres;                  /* READ: response packets */
};

static bool
is_rc(const struct rk_ib_qp *qp)
{
	return qp->type == RK_QPT_RC;
}

/* A silent drop, and why. */
static enum rk_resp_state
drop(struct resp_ctx *c, enum rk_ib_reason why)
{
	c->reason = why;
	return RK_RESP_ST_DROP;
}

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

static uint64_t
rwqe_capacity(const struct rq_wqe *w)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < w->num_sge; i++)
		n += w->sge[i].length;
	return n;
}

/* Scatter into the receive WQE (its room checked by the caller). */
static bool
scatter(struct rk_ib_qp *qp, uint32_t off, const uint8_t *src, uint32_t len)
{
	const struct rq_wqe *w = &qp->resp.rwqe;

	return rk_ib_sge_scatter(qp, w->sge, w->num_sge, off, src, len);
}

static void
recv_done(struct rk_ib_qp *qp, struct resp_ctx *c, enum rk_wc_opcode op, uint32_t byte_len)
{
	struct rk_wc wc = {
		.wr_id = qp->resp.rwqe.wr_id,
		.status = RK_WC_SUCCESS,
		.opcode = op,
		.byte_len = byte_len,
		.qp_num = qp->qpn,
		.src_qp = qp->attr.dest_qp_num,
	};
	const uint8_t *h;

	if (c->flags & RK_OPF_IMM) {
		wc.wc_flags |= RK_WC_WITH_IMM;
		wc.imm_data = rk_immdt_imm(rk_pkt_xeth(c->pkt, RK_HDR_IMMDT));
	} else if ((h = rk_pkt_xeth(c->pkt, RK_HDR_IETH)) != NULL) {
		wc.wc_flags |= RK_WC_WITH_INV;
		wc.invalidated_rkey = rk_ieth_r_key(h);
	}
	if (qp->type == RK_QPT_UD) {
		wc.wc_flags |= RK_WC_GRH;
		wc.src_qp = rk_deth_src_qp(rk_pkt_xeth(c->pkt, RK_HDR_DETH));
	}
	rk_ib_cq_push(qp->rcq, &wc);
	qp->resp.have_rwqe = false;
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

static bool
supported(const struct rk_ib_qp *qp, uint32_t flags, uint8_t opcode)
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

static enum rk_resp_state
fail(struct rk_ib_qp *qp, struct resp_ctx *c, uint8_t code, enum rk_ib_reason why)
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

	if (!supported(qp, c->flags, c->opcode))
		return fail(qp, c, RK_AETH_NAK_INVALID_REQUEST, RK_IB_R_RESP_OPCODE);
	switch (r->msg) {
	case MSG_SEND:
		if (!(c->flags & RK_OPF_SEND) || msg_start(c->flags))
			return fail(qp, c, RK_AETH_NAK_INVALID_REQUEST, RK_IB_R_RESP_OPSEQ_LAST);
		break;
	case MSG_WRITE:
		if (!(c->flags & RK_OPF_WRITE) || msg_start(c->flags))
			return fail(qp, c, RK_AETH_NAK_INVALID_REQUEST, RK_IB_R_RESP_OPSEQ_LAST);
		break;
	default:
		if (!msg_start(c->flags) && !(c->flags & RK_OPF_ATOMIC))
			return fail(qp, c, RK_AETH_NAK_INVALID_REQUEST, RK_IB_R_RESP_OPSEQ_FIRST);
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
		return fail(qp, c, RK_AETH_NAK_INVALID_REQUEST, RK_IB_R_RESP_QP_ACCESS);
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
			return fail(qp, c, 0, RK_IB_R_RESP_RWQE_NONE);
		}
		if (st != RK_WC_SUCCESS) {
			c->rwc_status = st;
			return fail(qp, c, RK_AETH_NAK_REMOTE_OP_ERR, RK_IB_R_RESP_RWQE_BAD);
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
			return fail(qp, c, RK_AETH_NAK_INVALID_REQUEST, RK_IB_R_RESP_RD_ATOMIC_NONE);
		old = &qp->res[r->res_head % qp->nres];
		if (old->pending && !old->answered)
			return fail(qp, c, RK_AETH_NAK_INVALID_REQUEST,
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
		return fail(qp, c, RK_AETH_NAK_INVALID_REQUEST, RK_IB_R_RESP_LEN_PAD);
	len = with_pad - pad;
	c->len = len;
	c->payload = pkt->frame + pkt->payload_off;
	if (f & (RK_OPF_READ_REQ | RK_OPF_ATOMIC)) {
		if (with_pad != 0)
			return fail(qp, c, RK_AETH_NAK_INVALID_REQUEST, RK_IB_R_RESP_LEN_RD_ATOMIC);
	} else if ((f & RK_OPF_LAST) == 0) {
		if (len != pmtu || pad != 0)            /* FIRST, MIDDLE: exactly PMTU */
			return fail(qp, c, RK_AETH_NAK_INVALID_REQUEST, RK_IB_R_RESP_LEN_NOT_PMTU);
	} else if ((f & RK_OPF_FIRST) == 0) {
		if (len == 0 || len > pmtu)             /* LAST: 1..PMTU */
			return fail(qp, c, RK_AETH_NAK_INVALID_REQUEST, RK_IB_R_RESP_LEN_LAST);
	} else if (len > pmtu) {                        /* ONLY: 0..PMTU */
		return fail(qp, c, RK_AETH_NAK_INVALID_REQUEST, RK_IB_R_RESP_LEN_OVER_PMTU);
	}
	if ((h = rk_pkt_xeth(pkt, RK_HDR_RETH)) != NULL)
		c->dma_len = rk_reth_dma_len(h);
	if (f & RK_OPF_READ_REQ) {
		if (c->dma_len > 0x80000000u)
			return fail(qp, c, RK_AETH_NAK_INVALID_REQUEST, RK_IB_R_RESP_DMALEN);
		c->nres = c->dma_len == 0 ? 1 : (c->dma_len + pmtu - 1) / pmtu;
	} else if (f & RK_OPF_ATOMIC) {
		if (rk_atmeth_va(rk_pkt_xeth(pkt, RK_HDR_ATMETH)) & 7)
			return fail(qp, c, RK_AETH_NAK_INVALID_REQUEST, RK_IB_R_RESP_ATOMIC_ALIGN);
	} else if (f & RK_OPF_WRITE) {
		/* DMALen must match the bytes that arrive (LEN-WR-01). */
		uint64_t left = (f & RK_OPF_FIRST) ? c->dma_len : qp->resp.wr_left;

		if ((f & RK_OPF_LAST) ? left != len : left <= len)
			return fail(qp, c, RK_AETH_NAK_INVALID_REQUEST, RK_IB_R_RESP_WRITE_LEN);
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
		return fail(qp, c, RACC_CODE, RK_IB_R_RESP_RKEY);
	if (mr->pd != qp->pd)
		return fail(qp, c, RACC_CODE, RK_IB_R_RESP_RKEY_PD);
	if ((mr->res.access & need) != need && !RK_IB_MUTANT(RK_IB_MUT_ANY_ACCESS))
		return fail(qp, c, RACC_CODE, RK_IB_R_RESP_RKEY_ACCESS);
	if (va + len < va || (c->target = mr_range(mr, va, len)) == NULL)
		return fail(qp, c, RACC_CODE, RK_IB_R_RESP_RKEY_BOUNDS);
	return RK_RESP_ST_EXECUTE;
}

static enum rk_resp_state
exec_send(struct rk_ib_qp *qp, struct resp_ctx *c)
{
	struct resp_state *r = &qp->resp;
	uint32_t base = qp->type == RK_QPT_UD ? UD_GRH_LEN : 0;
	const uint8_t *h;

	if (c->flags & RK_OPF_FIRST) {
		r->msg = MSG_SEND;
		r->off = 0;
	}
	if ((uint64_t)base + r->off + c->len > rwqe_capacity(&r->rwqe)) {
		c->rwc_status = RK_WC_LOC_LEN_ERR;      /* LEN-RQ-01 */
		return fail(qp, c, RK_AETH_NAK_INVALID_REQUEST, RK_IB_R_RESP_RECV_LEN);
	}
	if (base != 0) {
		uint8_t grh[UD_GRH_LEN] = { 0 };
		const struct rk_pkt *p = c->pkt;

		/* ibverbs UD receive: 40 bytes of GRH; IPv4 header in the last 20. */
		if (p->ip_version == 4)
			memcpy(grh + 20, p->frame + p->l3_off, 20);
		else
			memcpy(grh, p->frame + p->l3_off, UD_GRH_LEN);
		if (!scatter(qp, 0, grh, UD_GRH_LEN)) {
			c->rwc_status = RK_WC_LOC_PROT_ERR;
			return fail(qp, c, RK_AETH_NAK_REMOTE_OP_ERR, RK_IB_R_RESP_RECV_PROT);
		}
	}
	if (!scatter(qp, base + r->off, c->payload, c->len)) {
		c->rwc_status = RK_WC_LOC_PROT_ERR;
		return fail(qp, c, RK_AETH_NAK_REMOTE_OP_ERR, RK_IB_R_RESP_RECV_PROT);
	}
	r->off += c->len;
	if (c->flags & RK_OPF_LAST) {
		if ((h = rk_pkt_xeth(c->pkt, RK_HDR_IETH)) != NULL) {
			/*
			 * SEND with Invalidate (MEM-INV-01): the R_Key must name a
			 * valid MR of this PD registered as invalidatable.
			 */
			struct rk_ib_mr *mr = rk_ib_mr_by_rkey(qp->dev, rk_ieth_r_key(h));

			if (mr == NULL || mr->pd != qp->pd || !mr->rkey_valid ||
			    !(mr->res.access & RK_ACCESS_REMOTE_INVALIDATE)) {
				c->rwc_status = RK_WC_REM_INV_REQ_ERR;
				return fail(qp, c, RK_AETH_NAK_INVALID_REQUEST,
					    RK_IB_R_RESP_INVALIDATE);
			}
			mr->rkey_valid = false;
		}
		recv_done(qp, c, RK_WC_RECV, base + r->off);
		r->msg = MSG_NONE;
	}
	return RK_RESP_ST_COMPLETE;
}

static enum rk_resp_state
exec_write(struct rk_ib_qp *qp, struct resp_ctx *c)
{
	struct resp_state *r = &qp->resp;

	if (c->flags & RK_OPF_FIRST) {
		const uint8_t *h = rk_pkt_xeth(c->pkt, RK_HDR_RETH);

		r->msg = MSG_WRITE;
		r->off = 0;
		r->wr_va = rk_reth_va(h);
		r->wr_rkey = rk_reth_r_key(h);
		r->wr_left = c->dma_len;
	}
	if (c->len > 0 && qp->lr->resp_write != NULL)
		qp->lr->resp_write(qp, c->target, r->wr_va, c->payload, c->len);
	else if (c->len > 0)
		memcpy(c->target, c->payload, c->len);
	r->wr_va += c->len;
	r->wr_left -= c->len;
	r->off += c->len;
	if (c->flags & RK_OPF_LAST) {
		if (c->flags & RK_OPF_IMM)
			recv_done(qp, c, RK_WC_RECV_RDMA_WITH_IMM, r->off);
		r->msg = MSG_NONE;
	}
	return RK_RESP_ST_COMPLETE;
}

static enum rk_resp_state
exec_rd_atomic(struct rk_ib_qp *qp, struct resp_ctx *c)
{
	struct resp_state *r = &qp->resp;
	struct resp_res *res = &qp->res[r->res_head % qp->nres];
	const uint8_t *h;

	rk_resp_res_pending(qp, res, false);
	memset(res, 0, sizeof(*res));
	res->first_psn = c->psn;
	res->next_psn = c->psn;
	res->msn = rk_psn_add(r->msn, 1);       /* C9-148: counted at receipt */
	rk_resp_res_pending(qp, res, true);
	if (c->flags & RK_OPF_READ_REQ) {
		h = rk_pkt_xeth(c->pkt, RK_HDR_RETH);
		res->type = RES_READ;
		res->va = rk_reth_va(h);
		res->r_key = rk_reth_r_key(h);
		res->length = c->dma_len;
		res->last_psn = rk_psn_add(c->psn, c->nres - 1);
	} else {
		uint64_t v, orig;

		h = rk_pkt_xeth(c->pkt, RK_HDR_ATMETH);
		res->type = RES_ATOMIC;
		res->va = rk_atmeth_va(h);
		res->r_key = rk_atmeth_r_key(h);
		res->length = 8;
		res->last_psn = c->psn;
		memcpy(&orig, c->target, 8);
		if ((c->opcode & 0x1f) == RK_OP_COMPARE_SWAP)
			v = orig == rk_atmeth_compare(h) ? rk_atmeth_swap_add(h) : orig;
		else
			v = orig + rk_atmeth_swap_add(h);
		memcpy(c->target, &v, 8);
		res->orig = orig;
	}
	r->res_head++;
	return RK_RESP_ST_COMPLETE;
}

static enum rk_resp_state
execute(struct rk_ib_qp *qp, struct resp_ctx *c)
{
	/* rx_*_requests of NIC counters: new requests, duplicates not included. */
	if (c->flags & RK_OPF_SEND) {
		RK_QP_COUNT(qp, resp_send_reqs);
		return exec_send(qp, c);
	}
	if (c->flags & RK_OPF_WRITE) {
		RK_QP_COUNT(qp, resp_write_reqs);
		return exec_write(qp, c);
	}
	if (c->flags & RK_OPF_ATOMIC)
		RK_QP_COUNT(qp, resp_atomic_reqs);
	else
		RK_QP_COUNT(qp, resp_read_reqs);
	return exec_rd_atomic(qp, c);
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

static enum rk_resp_state
acknowledge(struct rk_ib_qp *qp, struct resp_ctx *c)
{
	if (is_rc(qp) && !(c->flags & (RK_OPF_READ_REQ | RK_OPF_ATOMIC)) &&
	    rk_bth_ack_req(c->bth))
		set_ack(qp, ack_syndrome(qp), c->psn, c->now);
	if (qp->lr->resp_advanced != NULL)
		qp->lr->resp_advanced(qp, c->now);
	return RK_RESP_ST_DONE;
}

/* Duplicates (C9-105): re-ACK; READ replays the range; ATOMIC resends its result. */
static enum rk_resp_state
duplicate(struct rk_ib_qp *qp, struct resp_ctx *c)
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
	if (!supported(qp, c->flags, c->opcode))
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

static enum rk_resp_state
nak_seq(struct rk_ib_qp *qp, struct resp_ctx *c)
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

static enum rk_resp_state
rnr(struct rk_ib_qp *qp, struct resp_ctx *c)
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

static enum rk_resp_state
nak_fatal(struct rk_ib_qp *qp, struct resp_ctx *c)
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
			next = execute(qp, &c);
			break;
		case RK_RESP_ST_COMPLETE:
			next = complete(qp, &c);
			break;
		case RK_RESP_ST_ACKNOWLEDGE:
			next = acknowledge(qp, &c);
			break;
		case RK_RESP_ST_DUPLICATE:
			next = duplicate(qp, &c);
			break;
		case RK_RESP_ST_NAK_SEQ:
			next = nak_seq(qp, &c);
			break;
		case RK_RESP_ST_RNR:
			next = rnr(qp, &c);
			break;
		case RK_RESP_ST_NAK_FATAL:
			rk_ib_reason_count(qp, c.reason);
			next = nak_fatal(qp, &c);
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

/* ------------------------------------------------------------- transmit */

static int
build_resp(struct rk_ib_qp *qp, uint8_t *f, uint8_t opcode, uint32_t psn, uint8_t syndrome,
	   uint32_t msn, uint64_t orig, const uint8_t *payload, uint32_t plen)
{
	struct rk_bth_fields bth = {
		.opcode = opcode,
		.p_key = qp->p_key,
		.dest_qp = qp->attr.dest_qp_num,
		.psn = psn,
	};
	struct rk_xeth_fields x = {
		.aeth_syndrome = syndrome,
		.aeth_msn = msn,
		.atmack_orig_rem_dt = orig,
	};
	const struct rk_opcode_info *op = rk_opcode_info(opcode);
	uint32_t hdr = op->hdr_len, bth_off;
	uint8_t *b;

	bth.pad_cnt = (uint8_t)((4 - (plen & 3)) & 3);
	/* READ responses carry data: ECN-capable under congestion control, as
	 * requests; ACKs, NAKs and atomic ACKs Not-ECT. */
	b = rk_ib_frame_begin(qp, &qp->attr.ah_attr, f, hdr + plen + bth.pad_cnt + RK_ICRC_LEN,
			      qp->cc != NULL && (op->flags & RK_OPF_READ_RESP) ? RK_ECN_ECT0 :
			      RK_ECN_NOT_ECT);
	bth_off = (uint32_t)(b - f);
	rk_build_ib_headers(b, hdr, &bth, &x);
	if (qp->dev->sg_allowed && plen >= RK_IB_SG_MIN)
		return (int)rk_ib_frame_finish_sg(qp->dev, f, bth_off, bth_off + hdr, payload, plen);
	if (plen >= RK_IB_CRC_AT_SOURCE_MIN) {
		/* The READ data's CRC from the region, then the copy. */
		rk_crc32_state crc = rk_rocev2_icrc_begin(f + ETH_HLEN, bth_off - ETH_HLEN + hdr);

		crc = rk_crc32_update(crc, payload, plen);
		memcpy(b + hdr, payload, plen);
		return (int)rk_ib_frame_finish(f, bth_off, bth_off + hdr + plen, crc);
	}
	if (plen > 0)
		memcpy(b + hdr, payload, plen);
	return (int)rk_ib_frame_end(qp, f, bth_off, bth_off + hdr + plen);
}

/* Bytes [off, off + len) of a READ's data, through its R_Key now; NULL if gone. */
static const uint8_t *
read_src(struct rk_ib_qp *qp, const struct resp_res *res, uint32_t off, uint32_t len)
{
	struct rk_ib_mr *mr;

	if (len == 0)
		return NULL;
	mr = rk_ib_mr_by_rkey(qp->dev, res->r_key);
	if (mr == NULL || !mr->rkey_valid || mr->pd != qp->pd ||
	    !(mr->res.access & RK_ACCESS_REMOTE_READ))
		return NULL;
	return mr_range(mr, res->va + off, len);
}

/*
 * The MR of a READ went (deregistered or invalidated) before all its
 * responses were sent: no more data; NAK-RACC at the first unsent PSN,
 * which also replaces a later request's class C NAK, and the QP errors.
 */
static void
res_lost(struct rk_ib_qp *qp, struct resp_res *res)
{
	struct resp_state *r = &qp->resp;

	RK_QP_COUNT(qp, resp_nak_fatal);
	rk_ib_reason_count(qp, RK_IB_R_RESP_READ_MR_GONE);
	r->ack_pending = true;
	r->ack_syndrome = RK_AETH_TYPE_NAK | RK_AETH_NAK_REMOTE_ACCESS_ERR;
	r->ack_psn = res->next_psn;
	r->ack_msn = r->msn;
	r->ack_due_ns = 0;
	r->final_nak = true;
	rk_resp_res_clear_all(qp);
	rk_ib_qp_to_error(qp);
}

/* One READ response or ATOMIC acknowledge packet of resource res; 0 if its MR is gone. */
static int
emit_res(struct rk_ib_qp *qp, struct resp_res *res, uint8_t *f)
{
	uint32_t n = (uint32_t)rk_psn_diff(res->last_psn, res->first_psn) + 1;
	uint32_t idx = (uint32_t)rk_psn_diff(res->next_psn, res->first_psn);
	uint32_t off = idx * qp->pmtu, plen;
	const uint8_t *src = NULL;
	uint8_t opcode;
	int len;

	if (res->type == RES_ATOMIC) {
		len = build_resp(qp, f, RK_OP_ATOMIC_ACKNOWLEDGE, res->first_psn, ack_syndrome(qp),
				 res->msn, res->orig, NULL, 0);
		rk_resp_res_pending(qp, res, false);
		res->answered = true;
		return len;
	}
	if (n == 1)
		opcode = RK_OP_RDMA_READ_RESPONSE_ONLY;
	else if (idx == 0)
		opcode = RK_OP_RDMA_READ_RESPONSE_FIRST;
	else if (idx + 1 == n)
		opcode = RK_OP_RDMA_READ_RESPONSE_LAST;
	else
		opcode = RK_OP_RDMA_READ_RESPONSE_MIDDLE;
	plen = res->length - off < qp->pmtu ? res->length - off : qp->pmtu;
	if (plen > 0 && (src = read_src(qp, res, off, plen)) == NULL) {
		res_lost(qp, res);
		return 0;
	}
	len = build_resp(qp, f, opcode, res->next_psn, ack_syndrome(qp), res->msn, 0, src, plen);
	res->next_psn = rk_psn_add(res->next_psn, 1);
	if (idx + 1 == n) {
		rk_resp_res_pending(qp, res, false);
		res->answered = true;
	}
	return len;
}

void
rk_resp_res_pending(struct rk_ib_qp *qp, struct resp_res *res, bool on)
{
	if (res->pending == on)
		return;
	res->pending = on;
	if (on)
		qp->resp.res_pending++;
	else
		qp->resp.res_pending--;
}

void
rk_resp_res_clear_all(struct rk_ib_qp *qp)
{
	for (uint32_t i = 0; i < qp->nres; i++)
		qp->res[i].pending = false;
	qp->resp.res_pending = 0;
}

static struct resp_res *
next_res(const struct rk_ib_qp *qp)
{
	uint32_t i;

	/* Polled on every progress: most of the time nothing is owed. */
	if (qp->resp.res_pending == 0)
		return NULL;
	/* Oldest first: res_head is the next slot to use, so the oldest one. */
	i = qp->resp.res_head % qp->nres;
	for (uint32_t k = 0; k < qp->nres; k++) {
		struct resp_res *res = &qp->res[i];

		if (res->pending)
			return res;
		if (++i == qp->nres)
			i = 0;
	}
	return NULL;
}

bool
rk_resp_ready(const struct rk_ib_qp *qp, uint64_t now_ns)
{
	const struct resp_state *r = &qp->resp;

	if (qp->type != RK_QPT_RC)
		return false;
	/* After a class C NAK: the responses owed to earlier requests, then the NAK. */
	if (qp->state == RK_QPS_ERR)
		return r->final_nak && (next_res(qp) != NULL || r->ack_pending);
	if (qp->state == RK_QPS_RESET || qp->state == RK_QPS_INIT)
		return false;
	/* READ and atomic responses go first (in PSN order) and carry the
	 * data: the congestion control's pacer holds them, as it holds requests. */
	if (next_res(qp) != NULL)
		return qp->cc == NULL || now_ns >= qp->cc->next_send_ns(qp);
	return r->ack_pending && now_ns >= r->ack_due_ns;
}

int
rk_resp_emit(struct rk_ib_qp *qp, uint64_t now_ns, uint8_t *f)
{
	return rk_resp_ready(qp, now_ns) ? rk_resp_emit_owed(qp, now_ns, f) : 0;
}

int
rk_resp_emit_owed(struct rk_ib_qp *qp, uint64_t now_ns, uint8_t *f)
{
	struct resp_state *r = &qp->resp;
	struct resp_res *res;
	int len;

	/* READ-RESP-01: in PSN order, before a class C NAK of a later request. */
	if ((res = next_res(qp)) != NULL && (len = emit_res(qp, res, f)) > 0) {
		if (qp->cc != NULL)
			qp->cc->on_send(qp, (uint32_t)len, now_ns);
		return len;
	}
	len = build_resp(qp, f, RK_OP_ACKNOWLEDGE, r->ack_psn, r->ack_syndrome, r->ack_msn, 0,
			 NULL, 0);
	r->ack_pending = false;
	r->final_nak = false;
	return len;
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
