/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The iWARP QP's receive side: FPDUs in, DDP placement, RDMAP operations
 * (RFC 5040, RFC 5041).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rk_iw_internal.h"

/* --------------------------------------------------------------- receive */

void
rk_iw_term_acc(struct rk_iw_qp *qp, int acc, bool rdmap_layer, const struct rk_rdmap_msg *m,
	       const uint8_t *seg, uint16_t len)
{
	/* Tagged placement errors are DDP's, Data Source / Atomic target RDMAP's. */
	static const enum rk_iw_reason ddp[] = {
		[ACC_STAG] = RK_IW_R_DDP_STAG, [ACC_PD] = RK_IW_R_DDP_STAG_STREAM,
		[ACC_WRAP] = RK_IW_R_DDP_TO_WRAP, [ACC_BOUNDS] = RK_IW_R_DDP_BOUNDS,
	};
	static const enum rk_iw_reason rdmap[] = {
		[ACC_STAG] = RK_IW_R_RDMAP_STAG, [ACC_PD] = RK_IW_R_RDMAP_STAG_STREAM,
		[ACC_RIGHTS] = RK_IW_R_RDMAP_RIGHTS, [ACC_WRAP] = RK_IW_R_RDMAP_TO_WRAP,
		[ACC_BOUNDS] = RK_IW_R_RDMAP_BOUNDS,
	};

	if (acc <= ACC_OK || acc > ACC_BOUNDS)
		return;
	rk_iw_queue_term(qp, acc == ACC_RIGHTS || rdmap_layer ? rdmap[acc] : ddp[acc], m, seg, len);
}

struct iw_out *
rk_iw_out_head(struct rk_iw_qp *qp)
{
	return qp->out_count > 0 ? &qp->out[qp->out_head] : NULL;
}

static void
out_pop(struct rk_iw_qp *qp)
{
	qp->out_head = rk_iw_ring_slot(qp->out_head, 1);
	qp->out_count--;
}

static void
rx_write(struct rk_iw_qp *qp, const struct rk_rdmap_msg *m, const uint8_t *seg, uint16_t len)
{
	struct rk_iw_mr *mr = NULL;
	int acc;

	/* A zero-length tagged segment names no buffer: nothing to check. */
	if (m->payload_len == 0)
		return;
	acc = rk_iw_remote_check(qp, m->stag, m->to, m->payload_len, RK_ACCESS_REMOTE_WRITE, &mr);
	if (acc != ACC_OK) {
		rk_iw_term_acc(qp, acc, false, m, seg, len);
		return;
	}
	memcpy(mr->res.addr + (m->to - mr->res.va), m->payload, m->payload_len);
	qp->dev->stats.placed_bytes += m->payload_len;
}

static void
rx_read_resp(struct rk_iw_qp *qp, const struct rk_rdmap_msg *m, const uint8_t *seg,
	     uint16_t len)
{
	struct iw_out *o = rk_iw_out_head(qp);
	struct iw_swqe *w;

	/* RFC 5040 5: a Read Response answers the oldest Read. */
	if (o == NULL || o->kind == OUT_ATOMIC) {
		rk_iw_queue_term(qp, RK_IW_R_READ_RESP_UNEXPECTED, m, seg, len);
		return;
	}
	if (m->stag != o->sink_stag) {
		rk_iw_queue_term(qp, RK_IW_R_READ_RESP_STAG, m, seg, len);
		return;
	}
	if (m->to != o->sink_to + o->rcvd || m->payload_len > o->size - o->rcvd ||
	    (m->l && o->rcvd + m->payload_len != o->size)) {
		rk_iw_queue_term(qp, RK_IW_R_READ_RESP_BOUNDS, m, seg, len);
		return;
	}
	w = o->kind == OUT_READ ? rk_iw_sq_at(qp, o->sq_idx) : NULL;
	if (m->payload_len > 0) {
		if (w == NULL || rk_iw_sge_copy(qp, w->sge, w->num_sge, o->rcvd, (uint8_t *)m->payload,
					  m->payload_len, true) != 0) {
			/* Our own sink went away: a local error. */
			if (w != NULL) {
				w->done = true;
				w->status = RK_WC_LOC_PROT_ERR;
			}
			rk_iw_queue_term(qp, RK_IW_R_LOCAL_SINK, m, seg, len);
			return;
		}
		qp->dev->stats.placed_bytes += m->payload_len;
	}
	o->rcvd += m->payload_len;
	if (m->l) {
		if (w != NULL) {
			w->done = true;
			w->status = RK_WC_SUCCESS;
		}
		out_pop(qp);
		rk_iw_sq_complete(qp);
	}
}

/* Untagged QN 0: Send family and Immediate Data. */
static void
rx_send(struct rk_iw_qp *qp, const struct rk_rdmap_msg *m, const uint8_t *seg, uint16_t len)
{
	uint8_t op = m->opcode;
	bool imm = op == RK_RDMAP_IMMDT || op == RK_RDMAP_IMMDT_SE;
	struct iw_rwqe *r;
	unsigned int flags = 0;
	uint32_t inv = 0;

	if (qp->rq_head == qp->rq_tail) {
		/* iWARP has no RNR: no buffer is fatal (DDP-MSN-02). */
		rk_iw_queue_term(qp, RK_IW_R_DDP_NO_BUFFER, m, seg, len);
		return;
	}
	r = rk_iw_rq_at(qp, qp->rq_head);
	if (imm && (m->payload_len != 0 || m->mo != 0 || !m->l)) {
		rk_iw_queue_term(qp, RK_IW_R_RDMAP_IMMDT, m, seg, len);
		return;
	}
	if ((uint64_t)m->mo + m->payload_len > r->len) {
		rk_iw_rq_complete_head(qp, RK_WC_LOC_LEN_ERR, 0, RK_WC_RECV, 0, 0);
		rk_iw_queue_term(qp, RK_IW_R_DDP_TOO_LONG, m, seg, len);
		return;
	}
	if (m->payload_len > 0) {
		if (rk_iw_sge_copy(qp, r->sge, r->num_sge, m->mo, (uint8_t *)m->payload,
			     m->payload_len, true) != 0) {
			rk_iw_rq_complete_head(qp, RK_WC_LOC_PROT_ERR, 0, RK_WC_RECV, 0, 0);
			rk_iw_queue_term(qp, RK_IW_R_LOCAL_SINK, m, seg, len);
			return;
		}
		qp->dev->stats.placed_bytes += m->payload_len;
	}
	if (!m->l)
		return;
	if (op == RK_RDMAP_SEND_INV || op == RK_RDMAP_SEND_SE_INV) {
		struct rk_iw_mr *mr = rk_iw_stag_lookup(qp->dev, m->rsvdulp32);

		if (mr == NULL || mr->pd != qp->pd ||
		    !(mr->res.access & RK_ACCESS_REMOTE_INVALIDATE)) {
			rk_iw_rq_complete_head(qp, RK_WC_REM_INV_REQ_ERR, 0, RK_WC_RECV, 0, 0);
			rk_iw_queue_term(qp, RK_IW_R_RDMAP_INVALIDATE, m, seg, len);
			return;
		}
		mr->invalidated = true;
		flags = RK_WC_WITH_INV;
		inv = m->rsvdulp32;
	}
	if (imm)
		rk_iw_rq_complete_head(qp, RK_WC_SUCCESS, 0, RK_WC_RECV_RDMA_WITH_IMM,
				 RK_WC_WITH_IMM, (uint32_t)m->u.immdt);
	else
		rk_iw_rq_complete_head(qp, RK_WC_SUCCESS, m->mo + m->payload_len, RK_WC_RECV, flags, inv);
}

/* A new entry at the end of the IRD ring: responses leave in request order. */
static struct iw_irq *
irq_push(struct rk_iw_qp *qp)
{
	return rk_iw_ring_push(qp->irq, sizeof(qp->irq[0]), qp->irq_head, &qp->irq_count);
}

static void
rx_read_req(struct rk_iw_qp *qp, const struct rk_rdmap_msg *m, const uint8_t *seg,
	    uint16_t len)
{
	const struct rk_rdmap_read_req_fields *rr = &m->u.read_req;
	struct rk_iw_mr *mr = NULL;

	if (m->payload_len != 0) {
		rk_iw_queue_term(qp, RK_IW_R_READ_REQ_PAYLOAD, m, seg, len);
		return;
	}
	if (qp->irq_count >= qp->neg.ird) {
		/* More Reads than our IRD (RDMAP-RR-02). */
		rk_iw_queue_term(qp, RK_IW_R_READ_REQ_IRD, m, seg, len);
		return;
	}
	if (rr->rdma_rd_sz > 0) {
		int acc = rk_iw_remote_check(qp, rr->src_stag, rr->src_to, rr->rdma_rd_sz,
				       RK_ACCESS_REMOTE_READ, &mr);

		if (acc != ACC_OK) {
			rk_iw_term_acc(qp, acc, true, m, seg, len);
			return;
		}
	}
	*irq_push(qp) = (struct iw_irq){
		.kind = IRQ_READ, .sink_stag = rr->sink_stag, .sink_to = rr->sink_to,
		.size = rr->rdma_rd_sz, .src_stag = rr->src_stag, .src_to = rr->src_to,
	};
}

/* RFC 7306 masked Fetch and Add: no carry out of a bit set in the mask. */
static uint64_t
masked_add(uint64_t a, uint64_t b, uint64_t mask)
{
	uint64_t r = 0, carry = 0;

	if (mask == 0)
		return a + b;
	for (int i = 0; i < 64; i++) {
		uint64_t s = ((a >> i) & 1) + ((b >> i) & 1) + carry;

		r |= (s & 1) << i;
		carry = (mask >> i) & 1 ? 0 : s >> 1;
	}
	return r;
}

static void
rx_atomic_req(struct rk_iw_qp *qp, const struct rk_rdmap_msg *m, const uint8_t *seg,
	      uint16_t len)
{
	const struct rk_rdmap_atomic_req_fields *a = &m->u.atomic_req;
	struct rk_iw_mr *mr = NULL;
	uint64_t orig, v;
	uint8_t *p;
	int acc;

	if (m->payload_len != 0 || m->mo != 0 || !m->l || a->aopcode > RK_RDMAP_AOP_CMP_SWAP) {
		rk_iw_queue_term(qp, RK_IW_R_ATOMIC_REQ_FORM, m, seg, len);
		return;
	}
	if (qp->irq_count >= qp->neg.ird) {
		rk_iw_queue_term(qp, RK_IW_R_ATOMIC_REQ_IRD, m, seg, len);
		return;
	}
	acc = rk_iw_remote_check(qp, a->remote_stag, a->remote_to, 8, RK_ACCESS_REMOTE_ATOMIC, &mr);
	if (acc == ACC_OK && (a->remote_to & 7) != 0)
		acc = ACC_BOUNDS;
	if (acc != ACC_OK) {
		rk_iw_term_acc(qp, acc, true, m, seg, len);
		return;
	}
	p = mr->res.addr + (a->remote_to - mr->res.va);
	memcpy(&orig, p, 8);
	switch (a->aopcode) {
	case RK_RDMAP_AOP_FETCH_ADD:
		v = masked_add(orig, a->swap_add, a->swap_add_mask);
		break;
	case RK_RDMAP_AOP_SWAP:
		v = (orig & ~a->swap_add_mask) | (a->swap_add & a->swap_add_mask);
		break;
	default:
		v = ((orig ^ a->compare) & a->compare_mask) == 0 ?
		    (orig & ~a->swap_add_mask) | (a->swap_add & a->swap_add_mask) : orig;
		break;
	}
	memcpy(p, &v, 8);
	*irq_push(qp) = (struct iw_irq){ .kind = IRQ_ATOMIC, .req_id = a->req_id, .orig = orig };
}

static void
rx_atomic_resp(struct rk_iw_qp *qp, const struct rk_rdmap_msg *m, const uint8_t *seg,
	       uint16_t len)
{
	struct iw_out *o = rk_iw_out_head(qp);
	struct iw_swqe *w;
	uint64_t v = m->u.atomic_resp.orig_value;

	if (o == NULL || o->kind != OUT_ATOMIC || o->req_id != m->u.atomic_resp.req_id ||
	    m->payload_len != 0 || m->mo != 0 || !m->l) {
		rk_iw_queue_term(qp, RK_IW_R_ATOMIC_RESP_UNEXPECTED, m, seg, len);
		return;
	}
	w = rk_iw_sq_at(qp, o->sq_idx);
	if (rk_iw_sge_copy(qp, w->sge, w->num_sge, 0, (uint8_t *)&v, 8, true) != 0) {
		w->done = true;
		w->status = RK_WC_LOC_PROT_ERR;
		rk_iw_queue_term(qp, RK_IW_R_LOCAL_SINK, m, seg, len);
		return;
	}
	w->done = true;
	w->status = RK_WC_SUCCESS;
	out_pop(qp);
	rk_iw_sq_complete(qp);
}

static enum rk_wc_status
status_of_term(uint8_t layer, uint8_t etype)
{
	if ((layer == L_RDMAP && etype == ET_RDMAP_PROT) ||
	    (layer == L_DDP && etype == ET_DDP_TAGGED))
		return RK_WC_REM_ACCESS_ERR;
	if (layer == L_DDP && etype == ET_DDP_UNTAGGED)
		return RK_WC_REM_INV_REQ_ERR;
	return RK_WC_REM_OP_ERR;
}

static void
rx_terminate(struct rk_iw_qp *qp, const struct rk_rdmap_msg *m)
{
	/* Never answered; the stream is done (RDMAP-TERM-01). */
	qp->dev->stats.term_rcvd++;
	qp->err.reason = RK_IW_CLOSE_TERM_RCVD;
	if (m->rdmap_hdr_ok) {
		qp->err.layer = m->u.term.ctrl.layer;
		qp->err.etype = m->u.term.ctrl.etype;
		qp->err.code = m->u.term.ctrl.err_code;
	}
	qp->rx_stop = true;
	qp->state = RK_IW_CLOSED;
	qp->closed = true;
	qp->term_pending = false;
	rk_iw_flush_all(qp, status_of_term(qp->err.layer, qp->err.etype));
}

/* RFC 6581: the Responder's first FPDU must be the negotiated RTR. */
static bool
is_rtr(const struct rk_iw_qp *qp, const struct rk_rdmap_msg *m)
{
	switch (qp->neg.rtr) {
	case RK_IW_RTR_SEND:
		return m->opcode == RK_RDMAP_SEND && m->payload_len == 0 && m->l && m->mo == 0;
	case RK_IW_RTR_WRITE:
		return m->opcode == RK_RDMAP_WRITE && m->payload_len == 0 && m->l;
	default:
		return m->opcode == RK_RDMAP_READ_REQ && m->u.read_req.rdma_rd_sz == 0;
	}
}

static void
rx_fpdu(struct rk_iw_qp *qp, const struct rk_mpa_fpdu *fp)
{
	const struct rk_rdmap_msg *m = &fp->msg;
	const struct rk_rdmap_opcode_info *info;
	const uint8_t *seg = fp->ulpdu;
	uint16_t len = fp->ulpdu_len;
	uint32_t q;

	qp->dev->stats.rx_fpdus++;
	/* LLP first: a bad CRC or marker means no header can be trusted. */
	if (fp->crc_checked && !fp->crc_ok) {
		rk_iw_queue_term(qp, RK_IW_R_MPA_CRC, NULL, NULL, 0);
		return;
	}
	if (!fp->markers_ok) {
		rk_iw_queue_term(qp, RK_IW_R_MPA_MARKER, NULL, NULL, 0);
		return;
	}
	if (!m->ddp_ok) {
		/* Shorter than a DDP header: nothing to interpret. */
		rk_iw_queue_term(qp, RK_IW_R_RDMAP_SHORT, NULL, NULL, 0);
		return;
	}
	if (m->dv != RK_DDP_VERSION) {
		rk_iw_queue_term(qp, m->t ? RK_IW_R_DDP_VERSION_T : RK_IW_R_DDP_VERSION_U, m, seg,
				 len);
		return;
	}
	if (m->rv != RK_RDMAP_VERSION) {
		rk_iw_queue_term(qp, RK_IW_R_RDMAP_VERSION, m, seg, len);
		return;
	}
	info = rk_rdmap_opcode_info(m->opcode);
	if (info->name == NULL || info->tagged != (m->t != 0) ||
	    (m->opcode >= RK_RDMAP_IMMDT && !qp->ext_ops)) {
		rk_iw_queue_term(qp, RK_IW_R_RDMAP_OPCODE, m, seg, len);
		return;
	}
	if (!m->t && m->qn != info->qn) {
		rk_iw_queue_term(qp, RK_IW_R_DDP_QN, m, seg, len);
		return;
	}
	if (m->opcode == RK_RDMAP_TERMINATE) {
		/* Whatever its MSN or MO: a Terminate is never answered. */
		rx_terminate(qp, m);
		return;
	}
	if (!m->rdmap_hdr_ok) {
		rk_iw_queue_term(qp, RK_IW_R_RDMAP_SHORT, m, seg, len);
		return;
	}
	if (!m->t) {
		q = m->qn;
		if (m->msn != qp->msn_rx[q]) {
			rk_iw_queue_term(qp, RK_IW_R_DDP_MSN, m, seg, len);
			return;
		}
		if (m->mo != qp->mo_rx[q] || (info->single_segment && m->mo != 0)) {
			rk_iw_queue_term(qp, RK_IW_R_DDP_MO, m, seg, len);
			return;
		}
		if (info->single_segment && !m->l) {
			rk_iw_queue_term(qp, RK_IW_R_RDMAP_SINGLE_SEG, m, seg, len);
			return;
		}
	}
	if (qp->state == RK_IW_RTR_WAIT) {
		if (qp->neg.p2p) {
			if (!is_rtr(qp, m)) {
				rk_iw_queue_term(qp, RK_IW_R_MPA_RTR, m, seg, len);
				return;
			}
			qp->state = RK_IW_RTS;
			if (qp->neg.rtr == RK_IW_RTR_SEND) {
				/* Consumed by the provider: no receive WQE (RFC 6581). */
				qp->msn_rx[0]++;
				return;
			}
		} else {
			qp->state = RK_IW_RTS;
		}
	}

	switch (m->opcode) {
	case RK_RDMAP_WRITE:
		rx_write(qp, m, seg, len);
		break;
	case RK_RDMAP_READ_RESP:
		rx_read_resp(qp, m, seg, len);
		break;
	case RK_RDMAP_READ_REQ:
		rx_read_req(qp, m, seg, len);
		break;
	case RK_RDMAP_ATOMIC_REQ:
		rx_atomic_req(qp, m, seg, len);
		break;
	case RK_RDMAP_ATOMIC_RESP:
		rx_atomic_resp(qp, m, seg, len);
		break;
	default:
		rx_send(qp, m, seg, len);
		break;
	}
	if (qp->rx_stop || m->t)
		return;
	q = m->qn;
	qp->mo_rx[q] += m->payload_len;
	if (m->l) {
		qp->msn_rx[q]++;
		qp->mo_rx[q] = 0;
	}
}

static void
on_event(const struct rk_mpa_event *ev, void *ctx)
{
	struct rk_iw_qp *qp = ctx;

	if (qp->rx_stop)
		return;
	if (ev->kind == RK_MPA_EV_FPDU)
		rx_fpdu(qp, &ev->fpdu);
	else if (ev->kind == RK_MPA_EV_LOST_SYNC)
		rk_iw_queue_term(qp, RK_IW_R_MPA_SYNC, NULL, NULL, 0);
}

int
rk_iw_rx(struct rk_iw_qp *qp, const uint8_t *data, size_t len, uint64_t now_ns)
{
	if (qp == NULL || (data == NULL && len > 0))
		return -EINVAL;
	if (qp->state == RK_IW_CLOSED)
		return -EPIPE;
	rk_iw_timers(qp, now_ns);
	qp->dev->stats.rx_bytes += len;
	while (len > 0 && !qp->rx_stop) {
		size_t n;

		if (qp->state == RK_IW_MPA_WAIT) {
			n = rk_iw_mpa_rx(qp, data, len);
		} else {
			rk_mpa_stream_feed(qp->rxs, qp->rx_seq, data, len, on_event, qp);
			n = len;
			qp->rx_seq += (uint32_t)n;
		}
		data += n;
		len -= n;
	}
	return 0;
}

