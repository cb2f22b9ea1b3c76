/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The iWARP QP's transmit side: FPDUs out of the SQ, Read and Atomic
 * responses, Terminates (RFC 5040, RFC 5041).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rk_iw_internal.h"

/* -------------------------------------------------------------- transmit */

/* Frame the ULPDU in qp->ulpdu into the transmit buffer. */
static void
frame_ulpdu(struct rk_iw_qp *qp, uint16_t ulen, uint8_t txm, uint32_t idx)
{
	struct rk_mpa_tx tx;
	int w;

	tx.markers = qp->neg.markers_tx;
	tx.crc = qp->neg.crc;
	tx.seq = qp->tx_seq;
	tx.marker_seq0 = qp->tx_seq0;
	w = rk_mpa_fpdu_build(qp->txbuf, qp->txcap, qp->ulpdu, ulen, &tx);
	if (w < 0)
		w = 0;  /* cannot happen: mulpdu keeps FPDUs within txcap */
	qp->txlen = (uint32_t)w;
	qp->txoff = 0;
	qp->txm = txm;
	qp->txm_idx = idx;
	qp->tx_seq += (uint32_t)w;
	qp->dev->stats.tx_fpdus++;
}

static void
put_tagged(uint8_t *u, uint8_t op, bool last, uint32_t stag, uint64_t to)
{
	struct rk_ddp_tagged_fields d;

	memset(&d, 0, sizeof(d));
	d.t = 1;
	d.l = last;
	d.dv = RK_DDP_VERSION;
	d.rsvd_ulp = (uint8_t)(RK_RDMAP_VERSION << RK_RDMAP_RV_SHIFT | op);
	d.stag = stag;
	d.to = to;
	rk_ddp_tagged_pack(u, &d);
}

static void
put_untagged(uint8_t *u, uint8_t op, bool last, uint32_t inv, uint32_t qn, uint32_t msn,
	     uint32_t mo)
{
	struct rk_ddp_untagged_fields d;

	memset(&d, 0, sizeof(d));
	d.l = last;
	d.dv = RK_DDP_VERSION;
	d.rsvd_ulp = (uint64_t)(RK_RDMAP_VERSION << RK_RDMAP_RV_SHIFT | op) << 32 | inv;
	d.qn = qn;
	d.msn = msn;
	d.mo = mo;
	rk_ddp_untagged_pack(u, &d);
}

static struct iw_out *
out_push(struct rk_iw_qp *qp)
{
	return rk_iw_ring_push(qp->out, sizeof(qp->out[0]), qp->out_head, &qp->out_count);
}

/* The ORD (negotiated, RFC 6581) is used up: no Read or Atomic Request until a response. */
static bool
ord_full(const struct rk_iw_qp *qp)
{
	return qp->out_count >= qp->neg.ord || qp->out_count >= RK_IW_MAX_IRD_ORD;
}

/*
 * A Read or Atomic Request's untagged header on queue @p qn at @p u and
 * its ORD slot; the caller packs the RDMAP header and fills the slot.
 */
static struct iw_out *
request_start(struct rk_iw_qp *qp, uint8_t *u, uint8_t op, uint32_t qn, uint8_t kind,
	      uint32_t idx)
{
	struct iw_out *o = out_push(qp);

	put_untagged(u, op, true, 0, qn, qp->msn_tx[qn]++, 0);
	o->kind = kind;
	o->sq_idx = idx;
	return o;
}

static bool
build_rtr(struct rk_iw_qp *qp)
{
	uint8_t *u = qp->ulpdu;

	qp->rtr_pending = false;
	switch (qp->neg.rtr) {
	case RK_IW_RTR_WRITE:
		put_tagged(u, RK_RDMAP_WRITE, true, 0, 0);
		frame_ulpdu(qp, RK_DDP_TAGGED_LEN, TXM_NONE, 0);
		break;
	case RK_IW_RTR_SEND:
		put_untagged(u, RK_RDMAP_SEND, true, 0, RK_RDMAP_QN_SEND,
			     qp->msn_tx[RK_RDMAP_QN_SEND]++, 0);
		frame_ulpdu(qp, RK_DDP_UNTAGGED_LEN, TXM_NONE, 0);
		break;
	default: {
		struct rk_rdmap_read_req_fields rr;

		memset(&rr, 0, sizeof(rr));
		put_untagged(u, RK_RDMAP_READ_REQ, true, 0, RK_RDMAP_QN_READ_REQ,
			     qp->msn_tx[RK_RDMAP_QN_READ_REQ]++, 0);
		rk_rdmap_read_req_pack(u + RK_DDP_UNTAGGED_LEN, &rr);
		out_push(qp)->kind = OUT_RTR_READ;
		frame_ulpdu(qp, RK_DDP_UNTAGGED_LEN + RK_RDMAP_READ_REQ_LEN, TXM_NONE, 0);
		break;
	}
	}
	return true;
}

/* The next Read Response segment or Atomic Response owed to the peer. */
static bool
build_response(struct rk_iw_qp *qp)
{
	struct iw_irq *e = &qp->irq[qp->irq_head];
	uint8_t *u = qp->ulpdu;
	uint32_t n;
	bool last;

	if (e->kind == IRQ_ATOMIC) {
		struct rk_rdmap_atomic_resp_fields a = { e->req_id, e->orig };

		put_untagged(u, RK_RDMAP_ATOMIC_RESP, true, 0, RK_RDMAP_QN_ATOMIC_RESP,
			     qp->msn_tx[RK_RDMAP_QN_ATOMIC_RESP]++, 0);
		rk_rdmap_atomic_resp_pack(u + RK_DDP_UNTAGGED_LEN, &a);
		frame_ulpdu(qp, RK_DDP_UNTAGGED_LEN + RK_RDMAP_ATOMIC_RESP_LEN, TXM_NONE, 0);
		qp->irq_head = rk_iw_ring_slot(qp->irq_head, 1);
		qp->irq_count--;
		return true;
	}
	n = qp->neg.mulpdu - RK_DDP_TAGGED_LEN;
	if (n > e->size - e->sent)
		n = e->size - e->sent;
	last = e->sent + n == e->size;
	if (n > 0) {
		struct rk_iw_mr *mr = NULL;
		int acc = rk_iw_remote_check(qp, e->src_stag, e->src_to + e->sent, n,
				       RK_ACCESS_REMOTE_READ, &mr);

		/* Deregistered since the Request: the Data Source fails now. */
		if (acc != ACC_OK) {
			rk_iw_term_acc(qp, acc, true, NULL, NULL, 0);
			return false;
		}
		memcpy(u + RK_DDP_TAGGED_LEN, mr->res.addr + (e->src_to + e->sent - mr->res.va), n);
	}
	put_tagged(u, RK_RDMAP_READ_RESP, last, e->sink_stag, e->sink_to + e->sent);
	frame_ulpdu(qp, (uint16_t)(RK_DDP_TAGGED_LEN + n), TXM_NONE, 0);
	e->sent += n;
	if (last) {
		qp->irq_head = rk_iw_ring_slot(qp->irq_head, 1);
		qp->irq_count--;
	}
	return true;
}

static void
local_fail(struct rk_iw_qp *qp, struct iw_swqe *w)
{
	w->done = true;
	w->status = RK_WC_LOC_PROT_ERR;
	rk_iw_queue_term(qp, RK_IW_R_LOCAL_SINK, NULL, NULL, 0);
}

/*
 * Copy the WQE's next piece, as much as the MULPDU leaves after a @p hdr
 * byte header, to @p u + @p hdr. @return its length, or -1 when an SGE
 * failed (the WQE then completes in error).
 */
static int64_t
next_piece(struct rk_iw_qp *qp, struct iw_swqe *w, uint8_t *u, uint32_t hdr)
{
	uint32_t room = qp->neg.mulpdu - hdr;
	uint32_t n = w->len - w->off > room ? room : (uint32_t)(w->len - w->off);

	if (rk_iw_sge_copy(qp, w->sge, w->num_sge, w->off, u + hdr, n, false) != 0) {
		local_fail(qp, w);
		return -1;
	}
	return n;
}

/* The next FPDU of the SQ; false when the SQ has nothing to send now. */
static bool
build_sq(struct rk_iw_qp *qp)
{
	struct iw_swqe *w;
	uint8_t *u = qp->ulpdu;
	uint32_t idx, n;
	int64_t piece;
	bool last;

	while (qp->sq_next != qp->sq_tail && rk_iw_sq_at(qp, qp->sq_next)->framed)
		qp->sq_next++;
	if (qp->sq_next == qp->sq_tail)
		return false;
	idx = qp->sq_next;
	w = rk_iw_sq_at(qp, idx);
	switch (w->opcode) {
	case RK_WR_RDMA_WRITE:
	case RK_WR_RDMA_WRITE_WITH_IMM:
		if (w->phase == 1) {
			uint8_t op = (w->flags & RK_SEND_SOLICITED) ? RK_RDMAP_IMMDT_SE : RK_RDMAP_IMMDT;

			put_untagged(u, op, true, 0, RK_RDMAP_QN_SEND, qp->msn_tx[RK_RDMAP_QN_SEND]++, 0);
			rk_rdmap_set_immdt(u + RK_DDP_UNTAGGED_LEN, w->imm_inv);
			w->framed = true;
			frame_ulpdu(qp, RK_DDP_UNTAGGED_LEN + RK_RDMAP_IMMDT_LEN, TXM_WQE_LAST, idx);
			return true;
		}
		if ((piece = next_piece(qp, w, u, RK_DDP_TAGGED_LEN)) < 0)
			return false;
		n = (uint32_t)piece;
		last = w->off + n == w->len;
		put_tagged(u, RK_RDMAP_WRITE, last, w->rkey, w->remote_addr + w->off);
		w->off += n;
		if (last && w->opcode == RK_WR_RDMA_WRITE_WITH_IMM) {
			w->phase = 1;
			frame_ulpdu(qp, (uint16_t)(RK_DDP_TAGGED_LEN + n), TXM_NONE, idx);
		} else {
			w->framed = last;
			frame_ulpdu(qp, (uint16_t)(RK_DDP_TAGGED_LEN + n),
				    last ? TXM_WQE_LAST : TXM_NONE, idx);
		}
		return true;
	case RK_WR_SEND:
	case RK_WR_SEND_WITH_INV: {
		bool inv = w->opcode == RK_WR_SEND_WITH_INV;
		bool se = (w->flags & RK_SEND_SOLICITED) != 0;
		uint8_t op = inv ? (se ? RK_RDMAP_SEND_SE_INV : RK_RDMAP_SEND_INV) :
				   (se ? RK_RDMAP_SEND_SE : RK_RDMAP_SEND);

		if ((piece = next_piece(qp, w, u, RK_DDP_UNTAGGED_LEN)) < 0)
			return false;
		n = (uint32_t)piece;
		last = w->off + n == w->len;
		put_untagged(u, op, last, inv ? w->imm_inv : 0, RK_RDMAP_QN_SEND,
			     qp->msn_tx[RK_RDMAP_QN_SEND], (uint32_t)w->off);
		if (last)
			qp->msn_tx[RK_RDMAP_QN_SEND]++;
		w->off += n;
		w->framed = last;
		frame_ulpdu(qp, (uint16_t)(RK_DDP_UNTAGGED_LEN + n), last ? TXM_WQE_LAST : TXM_NONE,
			    idx);
		return true;
	}
	case RK_WR_RDMA_READ: {
		struct rk_rdmap_read_req_fields rr;
		struct iw_out *o;

		if (ord_full(qp))
			return false;   /* wait for a response */
		memset(&rr, 0, sizeof(rr));
		rr.sink_stag = w->num_sge > 0 ? w->sge[0].lkey : 0;
		rr.sink_to = w->num_sge > 0 ? w->sge[0].addr : 0;
		rr.rdma_rd_sz = (uint32_t)w->len;
		rr.src_stag = w->rkey;
		rr.src_to = w->remote_addr;
		rk_rdmap_read_req_pack(u + RK_DDP_UNTAGGED_LEN, &rr);
		o = request_start(qp, u, RK_RDMAP_READ_REQ, RK_RDMAP_QN_READ_REQ, OUT_READ, idx);
		o->sink_stag = rr.sink_stag;
		o->sink_to = rr.sink_to;
		o->size = rr.rdma_rd_sz;
		w->framed = true;
		frame_ulpdu(qp, RK_DDP_UNTAGGED_LEN + RK_RDMAP_READ_REQ_LEN, TXM_NONE, idx);
		return true;
	}
	default: {
		struct rk_rdmap_atomic_req_fields a;
		struct iw_out *o;

		if (ord_full(qp))
			return false;
		memset(&a, 0, sizeof(a));
		a.req_id = ++qp->next_req_id;
		a.remote_stag = w->rkey;
		a.remote_to = w->remote_addr;
		if (w->opcode == RK_WR_ATOMIC_FETCH_AND_ADD) {
			a.aopcode = RK_RDMAP_AOP_FETCH_ADD;
			a.swap_add = w->compare_add;
		} else {
			a.aopcode = RK_RDMAP_AOP_CMP_SWAP;
			a.swap_add = w->swap;
			a.swap_add_mask = ~0ull;
			a.compare = w->compare_add;
			a.compare_mask = ~0ull;
		}
		rk_rdmap_atomic_req_pack(u + RK_DDP_UNTAGGED_LEN, &a);
		o = request_start(qp, u, RK_RDMAP_ATOMIC_REQ, RK_RDMAP_QN_ATOMIC_REQ, OUT_ATOMIC,
				  idx);
		o->req_id = a.req_id;
		w->framed = true;
		frame_ulpdu(qp, RK_DDP_UNTAGGED_LEN + RK_RDMAP_ATOMIC_REQ_LEN, TXM_NONE, idx);
		return true;
	}
	}
}

/* Fill the (empty) transmit buffer with the next thing due. */
static bool
build_next(struct rk_iw_qp *qp)
{
	if (qp->closed)
		return false;
	if (qp->term_pending) {
		memcpy(qp->ulpdu, qp->term_ulpdu, qp->term_len);
		qp->term_pending = false;
		frame_ulpdu(qp, qp->term_len, TXM_TERM, 0);
		qp->closed = true;
		return true;
	}
	if (qp->state != RK_IW_RTS)
		return false;
	if (qp->rtr_pending)
		return build_rtr(qp);
	/* Responses first; a failure to build one or a WQE queues a Terminate. */
	if (qp->irq_count > 0 && build_response(qp))
		return true;
	if (qp->state == RK_IW_RTS && build_sq(qp))
		return true;
	return qp->term_pending && build_next(qp);
}

/* The FPDU or frame in the buffer went out completely. */
static void
tx_done(struct rk_iw_qp *qp)
{
	switch (qp->txm) {
	case TXM_WQE_LAST: {
		struct iw_swqe *w = rk_iw_sq_at(qp, qp->txm_idx);

		if (!w->done) {
			w->done = true;
			w->status = RK_WC_SUCCESS;
		}
		rk_iw_sq_complete(qp);
		break;
	}
	case TXM_TERM:
	case TXM_REJECT:
		qp->state = RK_IW_CLOSED;
		qp->closed = true;
		break;
	default:
		break;
	}
	qp->txm = TXM_NONE;
	qp->txlen = qp->txoff = 0;
}

size_t
rk_iw_tx(struct rk_iw_qp *qp, uint8_t *buf, size_t cap, uint64_t now_ns)
{
	size_t out = 0;

	if (qp == NULL || buf == NULL)
		return 0;
	rk_iw_timers(qp, now_ns);
	while (out < cap) {
		size_t n;

		if (qp->txoff == qp->txlen && !build_next(qp))
			break;
		n = qp->txlen - qp->txoff;
		if (n > cap - out)
			n = cap - out;
		memcpy(buf + out, qp->txbuf + qp->txoff, n);
		qp->txoff += (uint32_t)n;
		out += n;
		if (qp->txoff == qp->txlen)
			tx_done(qp);
	}
	qp->dev->stats.tx_bytes += out;
	return out;
}

bool
rk_iw_tx_pending(struct rk_iw_qp *qp)
{
	if (qp->txoff < qp->txlen || qp->term_pending)
		return true;
	if (qp->closed || qp->state != RK_IW_RTS)
		return false;
	if (qp->rtr_pending || qp->irq_count > 0)
		return true;
	for (uint32_t c = qp->sq_next; c != qp->sq_tail; c++) {
		struct iw_swqe *w = rk_iw_sq_at(qp, c);

		if (w->framed)
			continue;
		if ((w->opcode == RK_WR_RDMA_READ || w->opcode == RK_WR_ATOMIC_CMP_AND_SWP ||
		     w->opcode == RK_WR_ATOMIC_FETCH_AND_ADD) &&
		    (qp->out_count >= qp->neg.ord || qp->out_count >= RK_IW_MAX_IRD_ORD))
			return false;
		return true;
	}
	return false;
}

void
rk_iw_llp_closed(struct rk_iw_qp *qp)
{
	if (qp == NULL || qp->state == RK_IW_CLOSED)
		return;
	rk_iw_close_now(qp, RK_IW_CLOSE_LLP);
}

void
rk_iw_timers(struct rk_iw_qp *qp, uint64_t now_ns)
{
	if (qp != NULL && qp->state == RK_IW_MPA_WAIT && now_ns >= qp->deadline)
		rk_iw_close_now(qp, RK_IW_CLOSE_MPA_TIMEOUT);
}

int
rk_iw_qp_terminate(struct rk_iw_qp *qp, uint8_t layer, uint8_t etype, uint8_t code)
{
	if (qp == NULL || (qp->state != RK_IW_RTS && qp->state != RK_IW_RTR_WAIT))
		return -EINVAL;
	rk_iw_queue_term_asked(qp, layer, etype, code);
	return 0;
}
