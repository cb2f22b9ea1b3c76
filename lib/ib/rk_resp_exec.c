/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The responder executes a checked request (IBTA Vol1 ch. 9): SEND into
 * the receive WQE, WRITE into the region, and READ or ATOMIC into a
 * responder resource (the atomic done here, its result kept for replay).
 */
#include <string.h>

#include "rk_resp_priv.h"

#define UD_GRH_LEN 40

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
		return rk_resp_reject(qp, c, RK_AETH_NAK_INVALID_REQUEST, RK_IB_R_RESP_RECV_LEN);
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
			return rk_resp_reject(qp, c, RK_AETH_NAK_REMOTE_OP_ERR,
					      RK_IB_R_RESP_RECV_PROT);
		}
	}
	if (!scatter(qp, base + r->off, c->payload, c->len)) {
		c->rwc_status = RK_WC_LOC_PROT_ERR;
		return rk_resp_reject(qp, c, RK_AETH_NAK_REMOTE_OP_ERR, RK_IB_R_RESP_RECV_PROT);
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
				return rk_resp_reject(qp, c, RK_AETH_NAK_INVALID_REQUEST,
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

enum rk_resp_state
rk_resp_execute(struct rk_ib_qp *qp, struct resp_ctx *c)
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
