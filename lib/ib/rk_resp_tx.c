/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the responder sends (IBTA Vol1 ch. 9): READ responses, their data
 * fetched through the R_Key as each packet is built, atomic acknowledges
 * from the responder resources, then the coalesced ACK or NAK.
 */
#include <string.h>

#include "rk_ipv4.h"
#include "rk_resp_priv.h"

#define ETH_HLEN 14

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
		len = build_resp(qp, f, RK_OP_ATOMIC_ACKNOWLEDGE, res->first_psn,
				 rk_resp_ack_syndrome(qp), res->msn, res->orig, NULL, 0);
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
	len = build_resp(qp, f, opcode, res->next_psn, rk_resp_ack_syndrome(qp), res->msn, 0,
			 src, plen);
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

