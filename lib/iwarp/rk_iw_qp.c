/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The iWARP QP: MPA set-up, FPDU transmit and receive, DDP placement and
 * RDMAP operations. See rk_iw.h for the contract.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rk_iw_internal.h"

const char *const rk_iw_state_name[RK_IW_STATE_COUNT] = {
	[RK_IW_MPA_WAIT] = "MPA_WAIT",
	[RK_IW_RTR_WAIT] = "RTR_WAIT",
	[RK_IW_RTS] = "RTS",
	[RK_IW_TERMINATE] = "TERMINATE",
	[RK_IW_CLOSED] = "CLOSED",
};

/* Terminate codes used here (T5; RFC 5040 7, RFC 5041 7.2, RFC 5044 8). */
enum {
	L_RDMAP = RK_TERM_LAYER_RDMAP, L_DDP = RK_TERM_LAYER_DDP, L_LLP = RK_TERM_LAYER_LLP,
};
#define ET_RDMAP_LOCAL 0
#define ET_RDMAP_PROT 1
#define ET_RDMAP_OP 2
#define ET_DDP_TAGGED 1
#define ET_DDP_UNTAGGED 2
#define ET_LLP_MPA 0

#define DEFAULT_IRD_ORD 8

static struct iw_swqe *
sq_at(struct rk_iw_qp *qp, uint32_t c)
{
	return &qp->sq[c % qp->sq_size];
}

static struct iw_rwqe *
rq_at(struct rk_iw_qp *qp, uint32_t c)
{
	return &qp->rq[c % qp->rq_size];
}

static enum rk_wc_opcode
wc_opcode(enum rk_wr_opcode op)
{
	switch (op) {
	case RK_WR_RDMA_WRITE:
	case RK_WR_RDMA_WRITE_WITH_IMM:
		return RK_WC_RDMA_WRITE;
	case RK_WR_RDMA_READ:
		return RK_WC_RDMA_READ;
	case RK_WR_ATOMIC_CMP_AND_SWP:
		return RK_WC_COMP_SWAP;
	case RK_WR_ATOMIC_FETCH_AND_ADD:
		return RK_WC_FETCH_ADD;
	default:
		return RK_WC_SEND;
	}
}

/* Completions leave the SQ in posting order. */
static void
sq_complete(struct rk_iw_qp *qp)
{
	while (qp->sq_head != qp->sq_tail) {
		struct iw_swqe *w = sq_at(qp, qp->sq_head);
		struct rk_wc wc;

		if (!w->done)
			break;
		if (qp->sig_all || (w->flags & RK_SEND_SIGNALED) || w->status != RK_WC_SUCCESS) {
			memset(&wc, 0, sizeof(wc));
			wc.wr_id = w->wr_id;
			wc.status = w->status;
			wc.opcode = wc_opcode(w->opcode);
			wc.byte_len = w->opcode == RK_WR_RDMA_READ ? (uint32_t)w->len : 0;
			wc.qp_num = qp->qp_num;
			rk_iw_cq_push(qp->scq, &wc);
		}
		qp->sq_head++;
		if ((int32_t)(qp->sq_next - qp->sq_head) < 0)
			qp->sq_next = qp->sq_head;
	}
}

static void
rq_complete_head(struct rk_iw_qp *qp, enum rk_wc_status st, uint32_t byte_len,
		 enum rk_wc_opcode op, unsigned int flags, uint32_t imm_inv)
{
	struct iw_rwqe *r = rq_at(qp, qp->rq_head);
	struct rk_wc wc;

	memset(&wc, 0, sizeof(wc));
	wc.wr_id = r->wr_id;
	wc.status = st;
	wc.opcode = op;
	wc.byte_len = byte_len;
	wc.wc_flags = flags;
	wc.imm_data = imm_inv;
	wc.qp_num = qp->qp_num;
	rk_iw_cq_push(qp->rcq, &wc);
	qp->rq_head++;
}

/* The QP leaves RTS: every WQE still queued completes, the first with @p first. */
static void
flush_all(struct rk_iw_qp *qp, enum rk_wc_status first)
{
	bool used_first = false;

	for (uint32_t c = qp->sq_head; c != qp->sq_tail; c++) {
		struct iw_swqe *w = sq_at(qp, c);

		if (w->done)
			continue;
		w->done = true;
		w->status = used_first ? RK_WC_WR_FLUSH_ERR : first;
		used_first = true;
	}
	sq_complete(qp);
	while (qp->rq_head != qp->rq_tail)
		rq_complete_head(qp, RK_WC_WR_FLUSH_ERR, 0, RK_WC_RECV, 0, 0);
	qp->out_count = 0;
	qp->irq_count = 0;
}

static void
close_now(struct rk_iw_qp *qp, enum rk_iw_close_reason why)
{
	if (qp->err.reason == RK_IW_CLOSE_NONE)
		qp->err.reason = why;
	qp->state = RK_IW_CLOSED;
	qp->rx_stop = true;
	qp->closed = true;
	qp->term_pending = false;
	qp->txlen = qp->txoff = 0;
	flush_all(qp, RK_WC_WR_FLUSH_ERR);
}

/*
 * Queue a Terminate (RFC 5040 4.8) for an error in the peer's
 * FPDU @p seg (NULL when no header is to be echoed, as for CRC and marker
 * errors whose headers cannot be trusted), then stop receiving.
 */
static void
queue_term(struct rk_iw_qp *qp, uint8_t layer, uint8_t etype, uint8_t code,
	   const struct rk_rdmap_msg *m, const uint8_t *seg, uint16_t seg_len)
{
	struct rk_ddp_untagged_fields d;
	struct rk_rdmap_term_fields t;
	uint8_t *u = qp->term_ulpdu;
	uint16_t n;

	if (qp->rx_stop || qp->closed)
		return;
	memset(&d, 0, sizeof(d));
	d.l = 1;
	d.dv = RK_DDP_VERSION;
	d.rsvd_ulp = (uint64_t)(RK_RDMAP_VERSION << RK_RDMAP_RV_SHIFT | RK_RDMAP_TERMINATE) << 32;
	d.qn = RK_RDMAP_QN_TERMINATE;
	d.msn = qp->msn_tx[RK_RDMAP_QN_TERMINATE]++;
	d.mo = 0;
	rk_ddp_untagged_pack(u, &d);
	n = RK_DDP_UNTAGGED_LEN;
	memset(&t, 0, sizeof(t));
	t.layer = layer;
	t.etype = etype;
	t.err_code = code;
	if (m != NULL && seg != NULL && m->ddp_ok && layer != L_LLP) {
		t.m = 1;
		t.d = 1;
		t.r = m->opcode == RK_RDMAP_READ_REQ && !m->t && m->rdmap_hdr_ok;
	}
	rk_rdmap_term_pack(u + n, &t);
	n += RK_RDMAP_TERM_CTRL_LEN;
	if (t.d && seg != NULL) {       /* seg != NULL also tells GCC */
		rk_put_be16(u + n, seg_len);
		n += RK_RDMAP_TERM_SEGLEN_LEN;
		memcpy(u + n, seg, m->ddp_hdr_len);
		n += m->ddp_hdr_len;
	}
	if (t.r && seg != NULL) {
		memcpy(u + n, seg + m->ddp_hdr_len, RK_RDMAP_READ_REQ_LEN);
		n += RK_RDMAP_READ_REQ_LEN;
	}
	qp->term_len = n;
	qp->term_pending = true;
	qp->rx_stop = true;
	qp->state = RK_IW_TERMINATE;
	qp->err.reason = RK_IW_CLOSE_TERM_SENT;
	qp->err.layer = layer;
	qp->err.etype = etype;
	qp->err.code = code;
	qp->dev->stats.term_sent++;
	flush_all(qp, RK_WC_WR_FLUSH_ERR);
}

/* ------------------------------------------------------------ creation */

static uint16_t
ird_ord_or_default(uint16_t v)
{
	return v == 0 ? DEFAULT_IRD_ORD : v;
}

struct rk_iw_qp *
rk_iw_qp_create(struct rk_iw_pd *pd, const struct rk_iw_qp_init_attr *init, uint64_t now_ns)
{
	const struct rk_iw_conn_attr *c;
	struct rk_iw_qp *qp;
	uint32_t emss;

	if (pd == NULL || init == NULL || init->send_cq == NULL || init->recv_cq == NULL)
		goto inval;
	c = &init->conn;
	emss = c->emss == 0 ? 1460 : c->emss;
	if (init->cap.max_send_wr == 0 || init->cap.max_send_wr > 65536 ||
	    init->cap.max_recv_wr == 0 || init->cap.max_recv_wr > 65536 ||
	    init->cap.max_send_sge > RK_IW_MAX_SGE || init->cap.max_recv_sge > RK_IW_MAX_SGE ||
	    (c->role != RK_IW_INITIATOR && c->role != RK_IW_RESPONDER) ||
	    c->rev > 2 || (c->rev == 1 && c->enhanced) || c->ird > RK_IW_MAX_IRD_ORD ||
	    c->ord > RK_IW_MAX_IRD_ORD || emss < 128 ||
	    c->pd_len > RK_MPA_PD_MAX - (c->enhanced ? RK_MPA_IRD_ORD_LEN : 0) ||
	    (c->pd == NULL && c->pd_len > 0) || (c->rtr_types & ~7u) != 0)
		goto inval;
	qp = calloc(1, sizeof(*qp));
	if (qp == NULL)
		return NULL;
	qp->rxs = malloc(sizeof(*qp->rxs));
	qp->sq = calloc(init->cap.max_send_wr, sizeof(qp->sq[0]));
	qp->rq = calloc(init->cap.max_recv_wr, sizeof(qp->rq[0]));
	qp->txcap = (emss > 600 ? emss : 600) + 64;
	qp->txbuf = malloc(qp->txcap);
	qp->ulpdu = malloc(emss);
	if (qp->rxs == NULL || qp->sq == NULL || qp->rq == NULL || qp->txbuf == NULL ||
	    qp->ulpdu == NULL) {
		free(qp->rxs);
		free(qp->sq);
		free(qp->rq);
		free(qp->txbuf);
		free(qp->ulpdu);
		free(qp);
		errno = ENOMEM;
		return NULL;
	}
	qp->dev = pd->dev;
	qp->pd = pd;
	qp->scq = init->send_cq;
	qp->rcq = init->recv_cq;
	qp->context = init->qp_context;
	qp->qp_num = init->qp_num;
	qp->sig_all = init->sq_sig_all != 0;
	qp->ext_ops = init->ext_ops;
	qp->conn = *c;
	qp->conn.rev = c->rev == 0 ? 2 : c->rev;
	qp->conn.emss = (uint16_t)emss;
	qp->conn.ird = ird_ord_or_default(c->ird);
	qp->conn.ord = ird_ord_or_default(c->ord);
	qp->conn.rtr_types = c->rtr_types == 0 ? 7 : c->rtr_types;
	qp->conn.mpa_timeout_ns = c->mpa_timeout_ns == 0 ? RK_IW_MPA_TIMEOUT_NS : c->mpa_timeout_ns;
	if (c->pd_len > 0)
		memcpy(qp->my_pd, c->pd, c->pd_len);
	qp->conn.pd = qp->my_pd;
	qp->sq_size = init->cap.max_send_wr;
	qp->rq_size = init->cap.max_recv_wr;
	qp->max_send_sge = init->cap.max_send_sge == 0 ? 1 : init->cap.max_send_sge;
	qp->max_recv_sge = init->cap.max_recv_sge == 0 ? 1 : init->cap.max_recv_sge;
	for (int q = 0; q < IW_NQ; q++) {
		qp->msn_rx[q] = 1;   /* RFC 5041 4.3: the first MSN is 1 */
		qp->msn_tx[q] = 1;
	}
	qp->rx_seq = c->rx_isn;
	qp->tx_seq = c->tx_isn;
	qp->state = RK_IW_MPA_WAIT;
	qp->deadline = now_ns + qp->conn.mpa_timeout_ns;
	if (qp->deadline < now_ns)
		qp->deadline = UINT64_MAX;
	pd->users++;
	qp->scq->users++;
	qp->rcq->users++;
	qp->next = qp->dev->qps;
	qp->dev->qps = qp;

	if (c->role == RK_IW_INITIATOR) {
		struct rk_mpa_rr *rr = &qp->req_sent;
		int w;

		memset(rr, 0, sizeof(*rr));
		rr->m = qp->conn.markers_rx;
		rr->c = qp->conn.crc;
		rr->rev = qp->conn.rev;
		rr->enhanced = qp->conn.enhanced;
		rr->has_ird_ord = qp->conn.enhanced;
		rr->ird_ord.ird = qp->conn.ird;
		rr->ird_ord.ord = qp->conn.ord;
		if (qp->conn.enhanced && qp->conn.p2p) {
			rr->ird_ord.p2p = 1;
			rr->ird_ord.rtr_send = !!(qp->conn.rtr_types & RK_IW_RTR_SEND);
			rr->ird_ord.rtr_write = !!(qp->conn.rtr_types & RK_IW_RTR_WRITE);
			rr->ird_ord.rtr_read = !!(qp->conn.rtr_types & RK_IW_RTR_READ);
		}
		rr->ulp_pd = qp->my_pd;
		rr->ulp_pd_len = qp->conn.pd_len;
		w = rk_mpa_rr_build(qp->txbuf, qp->txcap, rr);
		qp->txlen = (uint32_t)w;
		qp->txm = TXM_MPA;
		qp->tx_seq += (uint32_t)w;
		qp->tx_seq0 = qp->tx_seq;
	}
	return qp;
inval:
	errno = EINVAL;
	return NULL;
}

int
rk_iw_qp_destroy(struct rk_iw_qp *qp)
{
	struct rk_iw_qp **pp;

	if (qp == NULL)
		return -EINVAL;
	for (pp = &qp->dev->qps; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == qp) {
			*pp = qp->next;
			break;
		}
	}
	qp->pd->users--;
	qp->scq->users--;
	qp->rcq->users--;
	free(qp->rxs);
	free(qp->sq);
	free(qp->rq);
	free(qp->txbuf);
	free(qp->ulpdu);
	free(qp);
	return 0;
}

enum rk_iw_state
rk_iw_qp_state(const struct rk_iw_qp *qp)
{
	return qp->state;
}

const struct rk_iw_error *
rk_iw_qp_error(const struct rk_iw_qp *qp)
{
	return &qp->err;
}

const struct rk_iw_negotiated *
rk_iw_qp_negotiated(const struct rk_iw_qp *qp)
{
	return qp->neg_valid ? &qp->neg : NULL;
}

uint16_t
rk_iw_qp_peer_pd(const struct rk_iw_qp *qp, const uint8_t **pd)
{
	if (pd != NULL)
		*pd = qp->peer_pd;
	return qp->peer_pd_len;
}

void *
rk_iw_qp_context(const struct rk_iw_qp *qp)
{
	return qp->context;
}

bool
rk_iw_want_close(const struct rk_iw_qp *qp)
{
	return qp->closed && qp->txoff == qp->txlen && !qp->term_pending;
}

/* ---------------------------------------------------------------- posting */

static bool
qp_alive(const struct rk_iw_qp *qp)
{
	return qp->state == RK_IW_MPA_WAIT || qp->state == RK_IW_RTR_WAIT ||
	       qp->state == RK_IW_RTS;
}

int
rk_iw_post_send(struct rk_iw_qp *qp, const struct rk_send_wr *wr,
		const struct rk_send_wr **bad_wr)
{
	for (; wr != NULL; wr = wr->next) {
		struct iw_swqe *w;
		uint64_t len = 0;
		bool ok;

		if (bad_wr != NULL)
			*bad_wr = wr;
		if (qp == NULL || !qp_alive(qp))
			return -EINVAL;
		switch (wr->opcode) {
		case RK_WR_RDMA_WRITE:
		case RK_WR_SEND:
		case RK_WR_SEND_WITH_INV:
			ok = true;
			break;
		case RK_WR_RDMA_WRITE_WITH_IMM:
			ok = qp->ext_ops;
			break;
		case RK_WR_RDMA_READ:
			ok = wr->num_sge <= 1;
			break;
		case RK_WR_ATOMIC_CMP_AND_SWP:
		case RK_WR_ATOMIC_FETCH_AND_ADD:
			ok = qp->ext_ops && wr->num_sge == 1 && wr->sg_list[0].length == 8;
			break;
		default:
			ok = false;
			break;
		}
		if (!ok || wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->max_send_sge ||
		    (wr->num_sge > 0 && wr->sg_list == NULL))
			return -EINVAL;
		for (int i = 0; i < wr->num_sge; i++)
			len += wr->sg_list[i].length;
		/* Read Request size and one untagged message: 32 bits (RFC 5040 4.4, MO). */
		if (len > UINT32_MAX)
			return -EINVAL;
		if (qp->sq_tail - qp->sq_head == qp->sq_size)
			return -ENOMEM;
		w = sq_at(qp, qp->sq_tail);
		memset(w, 0, sizeof(*w));
		w->wr_id = wr->wr_id;
		w->opcode = wr->opcode;
		w->flags = wr->send_flags;
		w->imm_inv = wr->imm_data;
		w->num_sge = wr->num_sge;
		if (wr->num_sge > 0)
			memcpy(w->sge, wr->sg_list, (size_t)wr->num_sge * sizeof(w->sge[0]));
		w->len = len;
		if (wr->opcode == RK_WR_ATOMIC_CMP_AND_SWP ||
		    wr->opcode == RK_WR_ATOMIC_FETCH_AND_ADD) {
			w->remote_addr = wr->wr.atomic.remote_addr;
			w->rkey = wr->wr.atomic.rkey;
			w->compare_add = wr->wr.atomic.compare_add;
			w->swap = wr->wr.atomic.swap;
		} else {
			w->remote_addr = wr->wr.rdma.remote_addr;
			w->rkey = wr->wr.rdma.rkey;
		}
		qp->sq_tail++;
	}
	if (bad_wr != NULL)
		*bad_wr = NULL;
	return 0;
}

int
rk_iw_post_recv(struct rk_iw_qp *qp, const struct rk_recv_wr *wr,
		const struct rk_recv_wr **bad_wr)
{
	for (; wr != NULL; wr = wr->next) {
		struct iw_rwqe *r;
		uint64_t len = 0;

		if (bad_wr != NULL)
			*bad_wr = wr;
		if (qp == NULL || !qp_alive(qp) || wr->num_sge < 0 ||
		    (uint32_t)wr->num_sge > qp->max_recv_sge ||
		    (wr->num_sge > 0 && wr->sg_list == NULL))
			return -EINVAL;
		if (qp->rq_tail - qp->rq_head == qp->rq_size)
			return -ENOMEM;
		for (int i = 0; i < wr->num_sge; i++)
			len += wr->sg_list[i].length;
		r = rq_at(qp, qp->rq_tail);
		r->wr_id = wr->wr_id;
		r->num_sge = wr->num_sge;
		if (wr->num_sge > 0)
			memcpy(r->sge, wr->sg_list, (size_t)wr->num_sge * sizeof(r->sge[0]));
		r->len = len;
		qp->rq_tail++;
	}
	if (bad_wr != NULL)
		*bad_wr = NULL;
	return 0;
}

/* ------------------------------------------------------- local memory */

/* Copy @p n bytes at message offset @p off between the SGEs and @p buf. */
static int
sge_copy(struct rk_iw_qp *qp, const struct rk_sge *sge, int nsge, uint64_t off,
	 uint8_t *buf, uint32_t n, bool to_sge)
{
	for (int i = 0; i < nsge && n > 0; i++) {
		struct rk_iw_mr *mr;
		uint64_t take;

		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		take = sge[i].length - off;
		if (take > n)
			take = n;
		mr = rk_iw_stag_lookup(qp->dev, sge[i].lkey);
		if (mr == NULL || mr->pd != qp->pd ||
		    (to_sge && !(mr->access & RK_ACCESS_LOCAL_WRITE)) ||
		    sge[i].addr < mr->va || sge[i].addr + sge[i].length < sge[i].addr ||
		    sge[i].addr + sge[i].length > mr->va + mr->len)
			return -1;
		if (to_sge)
			memcpy(mr->addr + (sge[i].addr - mr->va) + off, buf, take);
		else
			memcpy(buf, mr->addr + (sge[i].addr - mr->va) + off, take);
		buf += take;
		n -= (uint32_t)take;
		off = 0;
	}
	return n == 0 ? 0 : -1;
}

/* Remote access check of a region (tagged placement, Read source, Atomic target). */
enum { ACC_OK, ACC_STAG, ACC_PD, ACC_RIGHTS, ACC_WRAP, ACC_BOUNDS };

static int
remote_check(struct rk_iw_qp *qp, uint32_t stag, uint64_t to, uint64_t n,
	     unsigned int need, struct rk_iw_mr **out)
{
	struct rk_iw_mr *mr = rk_iw_stag_lookup(qp->dev, stag);

	if (mr == NULL)
		return ACC_STAG;
	if (mr->pd != qp->pd)
		return ACC_PD;
	if (!(mr->access & need))
		return ACC_RIGHTS;
	if (to + n < to)
		return ACC_WRAP;
	if (to < mr->va || to + n > mr->va + mr->len)
		return ACC_BOUNDS;
	*out = mr;
	return ACC_OK;
}

/* --------------------------------------------------------------- MPA */

static void
negotiated_mulpdu(struct rk_iw_qp *qp)
{
	uint32_t emss = qp->conn.emss, ml = emss - RK_MPA_HDR_LEN - RK_MPA_CRC_LEN;

	/* Room for every marker the FPDU can meet, so it fits one segment. */
	if (qp->neg.markers_tx)
		ml -= RK_MPA_MARKER_LEN * (emss / (RK_MPA_MARKER_SPACING - RK_MPA_MARKER_LEN) + 2);
	ml -= (ml + RK_MPA_HDR_LEN) & 3;
	if (ml > 65535 - 3)
		ml = 65535 - 3;
	qp->neg.mulpdu = (uint16_t)ml;
}

static void
start_fpdus(struct rk_iw_qp *qp)
{
	struct rk_mpa_params p;

	p.rev = qp->neg.rev;
	p.markers = qp->neg.markers_rx;
	p.crc = qp->neg.crc;
	rk_mpa_stream_init_fpdu(qp->rxs, &p, qp->rx_seq, qp->rx_seq);
	negotiated_mulpdu(qp);
	qp->neg_valid = true;
}

static void
save_peer_pd(struct rk_iw_qp *qp, const struct rk_mpa_rr *rr)
{
	uint16_t n = rr->ulp_pd_len;

	if (rr->ulp_pd == NULL)
		n = 0;
	if (n > RK_MPA_PD_MAX)
		n = RK_MPA_PD_MAX;
	if (n > 0)
		memcpy(qp->peer_pd, rr->ulp_pd, n);
	qp->peer_pd_len = n;
}

static void
frame_out(struct rk_iw_qp *qp, const struct rk_mpa_rr *rr, uint8_t txm)
{
	int w = rk_mpa_rr_build(qp->txbuf, qp->txcap, rr);

	qp->txlen = w > 0 ? (uint32_t)w : 0;
	qp->txoff = 0;
	qp->txm = txm;
	qp->tx_seq += qp->txlen;
	qp->tx_seq0 = qp->tx_seq;
}

/* Responder: answer the Request in rr_buf (RFC 5044 7.1.2, RFC 6581). */
static void
mpa_request(struct rk_iw_qp *qp)
{
	struct rk_mpa_rr req, rep;
	struct rk_findings f;
	bool reject, enh;
	uint8_t chosen = 0;

	memset(&f, 0, sizeof(f));
	rk_mpa_rr_parse(qp->rr_buf, qp->rr_have, &req, &f);
	if (req.reply) {
		close_now(qp, RK_IW_CLOSE_MPA_BAD);
		return;
	}
	save_peer_pd(qp, &req);
	reject = req.rev == 0 || req.rev > 2 || req.r ||
		 rk_findings_has(&f, RK_F_MPA_ENHANCED_PD_SHORT);
	memset(&qp->neg, 0, sizeof(qp->neg));
	qp->neg.rev = req.rev < qp->conn.rev ? req.rev : qp->conn.rev;
	if (qp->neg.rev == 0)
		qp->neg.rev = qp->conn.rev;
	enh = qp->neg.rev == 2 && req.has_ird_ord && qp->conn.enhanced;
	qp->neg.enhanced = enh;
	/* C: CRC in both directions when either side asks (RFC 5044 7.1). */
	qp->neg.crc = req.c || qp->conn.crc;
	qp->neg.markers_tx = req.m;
	qp->neg.markers_rx = qp->conn.markers_rx;
	qp->neg.ird = qp->conn.ird;
	qp->neg.ord = qp->conn.ord;
	if (enh) {
		qp->neg.peer_ird = req.ird_ord.ird;
		qp->neg.peer_ord = req.ird_ord.ord;
		/* RFC 6581: never more Reads outstanding than the peer's IRD. */
		if (qp->neg.peer_ird < qp->neg.ord) {
			if (qp->conn.strict_ird)
				reject = true;
			qp->neg.ord = qp->neg.peer_ird;
		}
		if (req.ird_ord.p2p && qp->conn.p2p) {
			uint8_t offered = (uint8_t)((req.ird_ord.rtr_send ? RK_IW_RTR_SEND : 0) |
						    (req.ird_ord.rtr_write ? RK_IW_RTR_WRITE : 0) |
						    (req.ird_ord.rtr_read ? RK_IW_RTR_READ : 0));
			uint8_t both = offered & qp->conn.rtr_types;

			/* Preference: Write (no buffer, no response), Send, Read. */
			if (both & RK_IW_RTR_WRITE)
				chosen = RK_IW_RTR_WRITE;
			else if (both & RK_IW_RTR_SEND)
				chosen = RK_IW_RTR_SEND;
			else if (both & RK_IW_RTR_READ)
				chosen = RK_IW_RTR_READ;
		}
	}
	qp->neg.p2p = chosen != 0;
	qp->neg.rtr = chosen;

	memset(&rep, 0, sizeof(rep));
	rep.reply = true;
	rep.m = qp->neg.markers_rx;
	rep.c = qp->neg.crc;
	rep.r = reject;
	rep.rev = qp->neg.rev;
	rep.enhanced = enh;
	rep.has_ird_ord = enh;
	rep.ird_ord.ird = qp->neg.ird;
	rep.ird_ord.ord = qp->neg.ord;
	rep.ird_ord.p2p = chosen != 0;
	rep.ird_ord.rtr_send = chosen == RK_IW_RTR_SEND;
	rep.ird_ord.rtr_write = chosen == RK_IW_RTR_WRITE;
	rep.ird_ord.rtr_read = chosen == RK_IW_RTR_READ;
	rep.ulp_pd = qp->my_pd;
	rep.ulp_pd_len = qp->conn.pd_len;
	if (reject) {
		frame_out(qp, &rep, TXM_REJECT);
		qp->state = RK_IW_TERMINATE;
		qp->rx_stop = true;
		qp->err.reason = RK_IW_CLOSE_MPA_REJECTED;
		flush_all(qp, RK_WC_WR_FLUSH_ERR);
		return;
	}
	frame_out(qp, &rep, TXM_MPA);
	start_fpdus(qp);
	/* RFC 5044 7.1.2 / RFC 6581: the Responder sends no FPDU before the
	 * Initiator's first one (its RTR when peer-to-peer). */
	qp->state = RK_IW_RTR_WAIT;
}

/* Initiator: the Reply in rr_buf. */
static void
mpa_reply(struct rk_iw_qp *qp)
{
	struct rk_mpa_rr rep;
	struct rk_findings f;
	bool enh;

	memset(&f, 0, sizeof(f));
	rk_mpa_rr_parse(qp->rr_buf, qp->rr_have, &rep, &f);
	if (!rep.reply || rep.rev == 0 || rep.rev > qp->conn.rev) {
		close_now(qp, RK_IW_CLOSE_MPA_BAD);
		return;
	}
	save_peer_pd(qp, &rep);
	if (rep.r) {
		close_now(qp, RK_IW_CLOSE_MPA_REJECTED);
		return;
	}
	memset(&qp->neg, 0, sizeof(qp->neg));
	qp->neg.rev = rep.rev;
	enh = rep.rev == 2 && qp->conn.enhanced && rep.has_ird_ord;
	qp->neg.enhanced = enh;
	qp->neg.crc = rep.c || qp->conn.crc;
	qp->neg.markers_tx = rep.m;
	qp->neg.markers_rx = qp->conn.markers_rx;
	qp->neg.ird = qp->conn.ird;
	qp->neg.ord = qp->conn.ord;
	start_fpdus(qp);
	qp->state = RK_IW_RTS;
	if (!enh)
		return;
	qp->neg.peer_ird = rep.ird_ord.ird;
	qp->neg.peer_ord = rep.ird_ord.ord;
	if (qp->req_sent.ird_ord.p2p && rep.ird_ord.p2p) {
		if (rk_mpa_rtr_check(&qp->req_sent, &rep, &f) != 0) {
			queue_term(qp, L_LLP, ET_LLP_MPA, 0x07, NULL, NULL, 0);
			return;
		}
		qp->neg.p2p = true;
		qp->neg.rtr = rep.ird_ord.rtr_write ? RK_IW_RTR_WRITE :
			      rep.ird_ord.rtr_send ? RK_IW_RTR_SEND : RK_IW_RTR_READ;
		qp->rtr_pending = true;
	}
	if (qp->neg.peer_ird < qp->neg.ord) {
		if (qp->conn.strict_ird) {
			queue_term(qp, L_LLP, ET_LLP_MPA, 0x06, NULL, NULL, 0);
			return;
		}
		qp->neg.ord = qp->neg.peer_ird;
	}
}

/* Bytes of the peer's MPA frame; returns how many were used. */
static size_t
mpa_rx(struct rk_iw_qp *qp, const uint8_t *p, size_t len)
{
	size_t n;

	if (qp->rr_have < RK_MPA_RR_HDR_LEN) {
		struct rk_mpa_rr rr;

		n = RK_MPA_RR_HDR_LEN - qp->rr_have;
		if (n > len)
			n = len;
		memcpy(qp->rr_buf + qp->rr_have, p, n);
		qp->rr_have += (uint32_t)n;
		qp->rx_seq += (uint32_t)n;
		if (qp->rr_have < RK_MPA_RR_HDR_LEN)
			return n;
		/* The key decides at once: a stranger gets no answer (MPA-KEY-01). */
		if (rk_mpa_rr_parse(qp->rr_buf, qp->rr_have, &rr, NULL) == -EPROTO ||
		    rr.reply != (qp->conn.role == RK_IW_INITIATOR) ||
		    rk_mpa_rr_pd_len(qp->rr_buf) > RK_MPA_PD_MAX) {
			close_now(qp, RK_IW_CLOSE_MPA_BAD);
			return len;
		}
		qp->rr_need = RK_MPA_RR_HDR_LEN + rk_mpa_rr_pd_len(qp->rr_buf);
	} else {
		n = qp->rr_need - qp->rr_have;
		if (n > len)
			n = len;
		memcpy(qp->rr_buf + qp->rr_have, p, n);
		qp->rr_have += (uint32_t)n;
		qp->rx_seq += (uint32_t)n;
	}
	if (qp->rr_have == qp->rr_need) {
		if (qp->conn.role == RK_IW_RESPONDER)
			mpa_request(qp);
		else
			mpa_reply(qp);
	}
	return n;
}

/* --------------------------------------------------------------- receive */

static void
term_acc(struct rk_iw_qp *qp, int acc, bool rdmap_layer, const struct rk_rdmap_msg *m,
	 const uint8_t *seg, uint16_t len)
{
	/* Tagged placement errors are DDP's, Data Source / Atomic target RDMAP's. */
	static const uint8_t ddp_code[] = { 0, 0x00, 0x02, 0, 0x03, 0x01 };
	static const uint8_t rdmap_code[] = { 0, 0x00, 0x03, 0x02, 0x04, 0x01 };

	if (acc == ACC_RIGHTS || rdmap_layer)
		queue_term(qp, L_RDMAP, ET_RDMAP_PROT, rdmap_code[acc], m, seg, len);
	else
		queue_term(qp, L_DDP, ET_DDP_TAGGED, ddp_code[acc], m, seg, len);
}

static struct iw_out *
out_head(struct rk_iw_qp *qp)
{
	return qp->out_count > 0 ? &qp->out[qp->out_head] : NULL;
}

static void
out_pop(struct rk_iw_qp *qp)
{
	qp->out_head = (qp->out_head + 1) % (RK_IW_MAX_IRD_ORD + 1);
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
	acc = remote_check(qp, m->stag, m->to, m->payload_len, RK_ACCESS_REMOTE_WRITE, &mr);
	if (acc != ACC_OK) {
		term_acc(qp, acc, false, m, seg, len);
		return;
	}
	memcpy(mr->addr + (m->to - mr->va), m->payload, m->payload_len);
	qp->dev->stats.placed_bytes += m->payload_len;
}

static void
rx_read_resp(struct rk_iw_qp *qp, const struct rk_rdmap_msg *m, const uint8_t *seg,
	     uint16_t len)
{
	struct iw_out *o = out_head(qp);
	struct iw_swqe *w;

	/* RFC 5040 5: a Read Response answers the oldest Read. */
	if (o == NULL || o->kind == OUT_ATOMIC) {
		queue_term(qp, L_RDMAP, ET_RDMAP_OP, 0x06, m, seg, len);
		return;
	}
	if (m->stag != o->sink_stag) {
		queue_term(qp, L_DDP, ET_DDP_TAGGED, 0x00, m, seg, len);
		return;
	}
	if (m->to != o->sink_to + o->rcvd || m->payload_len > o->size - o->rcvd ||
	    (m->l && o->rcvd + m->payload_len != o->size)) {
		queue_term(qp, L_DDP, ET_DDP_TAGGED, 0x01, m, seg, len);
		return;
	}
	w = o->kind == OUT_READ ? sq_at(qp, o->sq_idx) : NULL;
	if (m->payload_len > 0) {
		if (w == NULL || sge_copy(qp, w->sge, w->num_sge, o->rcvd, (uint8_t *)m->payload,
					  m->payload_len, true) != 0) {
			/* Our own sink went away: a local error. */
			if (w != NULL) {
				w->done = true;
				w->status = RK_WC_LOC_PROT_ERR;
			}
			queue_term(qp, L_RDMAP, ET_RDMAP_LOCAL, 0x00, m, seg, len);
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
		sq_complete(qp);
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
		queue_term(qp, L_DDP, ET_DDP_UNTAGGED, 0x02, m, seg, len);
		return;
	}
	r = rq_at(qp, qp->rq_head);
	if (imm && (m->payload_len != 0 || m->mo != 0 || !m->l)) {
		queue_term(qp, L_RDMAP, ET_RDMAP_OP, 0xff, m, seg, len);
		return;
	}
	if ((uint64_t)m->mo + m->payload_len > r->len) {
		rq_complete_head(qp, RK_WC_LOC_LEN_ERR, 0, RK_WC_RECV, 0, 0);
		queue_term(qp, L_DDP, ET_DDP_UNTAGGED, 0x05, m, seg, len);
		return;
	}
	if (m->payload_len > 0) {
		if (sge_copy(qp, r->sge, r->num_sge, m->mo, (uint8_t *)m->payload,
			     m->payload_len, true) != 0) {
			rq_complete_head(qp, RK_WC_LOC_PROT_ERR, 0, RK_WC_RECV, 0, 0);
			queue_term(qp, L_RDMAP, ET_RDMAP_LOCAL, 0x00, m, seg, len);
			return;
		}
		qp->dev->stats.placed_bytes += m->payload_len;
	}
	if (!m->l)
		return;
	if (op == RK_RDMAP_SEND_INV || op == RK_RDMAP_SEND_SE_INV) {
		struct rk_iw_mr *mr = rk_iw_stag_lookup(qp->dev, m->rsvdulp32);

		if (mr == NULL || mr->pd != qp->pd ||
		    !(mr->access & RK_ACCESS_REMOTE_INVALIDATE)) {
			rq_complete_head(qp, RK_WC_REM_INV_REQ_ERR, 0, RK_WC_RECV, 0, 0);
			queue_term(qp, L_RDMAP, ET_RDMAP_PROT, 0x09, m, seg, len);
			return;
		}
		mr->invalidated = true;
		flags = RK_WC_WITH_INV;
		inv = m->rsvdulp32;
	}
	if (imm)
		rq_complete_head(qp, RK_WC_SUCCESS, 0, RK_WC_RECV_RDMA_WITH_IMM,
				 RK_WC_WITH_IMM, (uint32_t)m->u.immdt);
	else
		rq_complete_head(qp, RK_WC_SUCCESS, m->mo + m->payload_len, RK_WC_RECV, flags, inv);
}

static struct iw_irq *
irq_push(struct rk_iw_qp *qp)
{
	struct iw_irq *e = &qp->irq[(qp->irq_head + qp->irq_count) % (RK_IW_MAX_IRD_ORD + 1)];

	memset(e, 0, sizeof(*e));
	qp->irq_count++;
	return e;
}

static void
rx_read_req(struct rk_iw_qp *qp, const struct rk_rdmap_msg *m, const uint8_t *seg,
	    uint16_t len)
{
	const struct rk_rdmap_read_req_fields *rr = &m->u.read_req;
	struct rk_iw_mr *mr = NULL;
	struct iw_irq *e;

	if (m->payload_len != 0) {
		queue_term(qp, L_RDMAP, ET_RDMAP_OP, 0xff, m, seg, len);
		return;
	}
	if (qp->irq_count >= qp->neg.ird) {
		/* More Reads than our IRD (RDMAP-RR-02). */
		queue_term(qp, L_RDMAP, ET_RDMAP_OP, 0x07, m, seg, len);
		return;
	}
	if (rr->rdma_rd_sz > 0) {
		int acc = remote_check(qp, rr->src_stag, rr->src_to, rr->rdma_rd_sz,
				       RK_ACCESS_REMOTE_READ, &mr);

		if (acc != ACC_OK) {
			term_acc(qp, acc, true, m, seg, len);
			return;
		}
	}
	e = irq_push(qp);
	e->kind = IRQ_READ;
	e->sink_stag = rr->sink_stag;
	e->sink_to = rr->sink_to;
	e->size = rr->rdma_rd_sz;
	e->src_stag = rr->src_stag;
	e->src_to = rr->src_to;
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
	struct iw_irq *e;
	uint64_t orig, v;
	uint8_t *p;
	int acc;

	if (m->payload_len != 0 || m->mo != 0 || !m->l || a->aopcode > RK_RDMAP_AOP_CMP_SWAP) {
		queue_term(qp, L_RDMAP, ET_RDMAP_OP, 0xff, m, seg, len);
		return;
	}
	if (qp->irq_count >= qp->neg.ird) {
		queue_term(qp, L_RDMAP, ET_RDMAP_OP, 0x07, m, seg, len);
		return;
	}
	acc = remote_check(qp, a->remote_stag, a->remote_to, 8, RK_ACCESS_REMOTE_ATOMIC, &mr);
	if (acc == ACC_OK && (a->remote_to & 7) != 0)
		acc = ACC_BOUNDS;
	if (acc != ACC_OK) {
		term_acc(qp, acc, true, m, seg, len);
		return;
	}
	p = mr->addr + (a->remote_to - mr->va);
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
	e = irq_push(qp);
	e->kind = IRQ_ATOMIC;
	e->req_id = a->req_id;
	e->orig = orig;
}

static void
rx_atomic_resp(struct rk_iw_qp *qp, const struct rk_rdmap_msg *m, const uint8_t *seg,
	       uint16_t len)
{
	struct iw_out *o = out_head(qp);
	struct iw_swqe *w;
	uint64_t v = m->u.atomic_resp.orig_value;

	if (o == NULL || o->kind != OUT_ATOMIC || o->req_id != m->u.atomic_resp.req_id ||
	    m->payload_len != 0 || m->mo != 0 || !m->l) {
		queue_term(qp, L_RDMAP, ET_RDMAP_OP, 0x06, m, seg, len);
		return;
	}
	w = sq_at(qp, o->sq_idx);
	if (sge_copy(qp, w->sge, w->num_sge, 0, (uint8_t *)&v, 8, true) != 0) {
		w->done = true;
		w->status = RK_WC_LOC_PROT_ERR;
		queue_term(qp, L_RDMAP, ET_RDMAP_LOCAL, 0x00, m, seg, len);
		return;
	}
	w->done = true;
	w->status = RK_WC_SUCCESS;
	out_pop(qp);
	sq_complete(qp);
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
	flush_all(qp, status_of_term(qp->err.layer, qp->err.etype));
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
		queue_term(qp, L_LLP, ET_LLP_MPA, 0x02, NULL, NULL, 0);
		return;
	}
	if (!fp->markers_ok) {
		queue_term(qp, L_LLP, ET_LLP_MPA, 0x03, NULL, NULL, 0);
		return;
	}
	if (!m->ddp_ok) {
		/* Shorter than a DDP header: nothing to interpret. */
		queue_term(qp, L_RDMAP, ET_RDMAP_OP, 0xff, NULL, NULL, 0);
		return;
	}
	if (m->dv != RK_DDP_VERSION) {
		queue_term(qp, L_DDP, m->t ? ET_DDP_TAGGED : ET_DDP_UNTAGGED,
			   m->t ? 0x04 : 0x06, m, seg, len);
		return;
	}
	if (m->rv != RK_RDMAP_VERSION) {
		queue_term(qp, L_RDMAP, ET_RDMAP_OP, 0x05, m, seg, len);
		return;
	}
	info = rk_rdmap_opcode_info(m->opcode);
	if (info->name == NULL || info->tagged != (m->t != 0) ||
	    (m->opcode >= RK_RDMAP_IMMDT && !qp->ext_ops)) {
		queue_term(qp, L_RDMAP, ET_RDMAP_OP, 0x06, m, seg, len);
		return;
	}
	if (!m->t && m->qn != info->qn) {
		queue_term(qp, L_DDP, ET_DDP_UNTAGGED, 0x01, m, seg, len);
		return;
	}
	if (m->opcode == RK_RDMAP_TERMINATE) {
		/* Whatever its MSN or MO: a Terminate is never answered. */
		rx_terminate(qp, m);
		return;
	}
	if (!m->rdmap_hdr_ok) {
		queue_term(qp, L_RDMAP, ET_RDMAP_OP, 0xff, m, seg, len);
		return;
	}
	if (!m->t) {
		q = m->qn;
		if (m->msn != qp->msn_rx[q]) {
			queue_term(qp, L_DDP, ET_DDP_UNTAGGED, 0x03, m, seg, len);
			return;
		}
		if (m->mo != qp->mo_rx[q] || (info->single_segment && m->mo != 0)) {
			queue_term(qp, L_DDP, ET_DDP_UNTAGGED, 0x04, m, seg, len);
			return;
		}
		if (info->single_segment && !m->l) {
			queue_term(qp, L_RDMAP, ET_RDMAP_OP, 0xff, m, seg, len);
			return;
		}
	}
	if (qp->state == RK_IW_RTR_WAIT) {
		if (qp->neg.p2p) {
			if (!is_rtr(qp, m)) {
				queue_term(qp, L_LLP, ET_LLP_MPA, 0x07, m, seg, len);
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
		queue_term(qp, L_LLP, ET_LLP_MPA, 0x03, NULL, NULL, 0);
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
			n = mpa_rx(qp, data, len);
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
	struct iw_out *o = &qp->out[(qp->out_head + qp->out_count) % (RK_IW_MAX_IRD_ORD + 1)];

	memset(o, 0, sizeof(*o));
	qp->out_count++;
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
		qp->irq_head = (qp->irq_head + 1) % (RK_IW_MAX_IRD_ORD + 1);
		qp->irq_count--;
		return true;
	}
	n = qp->neg.mulpdu - RK_DDP_TAGGED_LEN;
	if (n > e->size - e->sent)
		n = e->size - e->sent;
	last = e->sent + n == e->size;
	if (n > 0) {
		struct rk_iw_mr *mr = NULL;
		int acc = remote_check(qp, e->src_stag, e->src_to + e->sent, n,
				       RK_ACCESS_REMOTE_READ, &mr);

		/* Deregistered since the Request: the Data Source fails now. */
		if (acc != ACC_OK) {
			term_acc(qp, acc, true, NULL, NULL, 0);
			return false;
		}
		memcpy(u + RK_DDP_TAGGED_LEN, mr->addr + (e->src_to + e->sent - mr->va), n);
	}
	put_tagged(u, RK_RDMAP_READ_RESP, last, e->sink_stag, e->sink_to + e->sent);
	frame_ulpdu(qp, (uint16_t)(RK_DDP_TAGGED_LEN + n), TXM_NONE, 0);
	e->sent += n;
	if (last) {
		qp->irq_head = (qp->irq_head + 1) % (RK_IW_MAX_IRD_ORD + 1);
		qp->irq_count--;
	}
	return true;
}

static void
local_fail(struct rk_iw_qp *qp, struct iw_swqe *w)
{
	w->done = true;
	w->status = RK_WC_LOC_PROT_ERR;
	queue_term(qp, L_RDMAP, ET_RDMAP_LOCAL, 0x00, NULL, NULL, 0);
}

/* The next FPDU of the SQ; false when the SQ has nothing to send now. */
static bool
build_sq(struct rk_iw_qp *qp)
{
	struct iw_swqe *w;
	uint8_t *u = qp->ulpdu;
	uint32_t idx, room, n;
	bool last;

	while (qp->sq_next != qp->sq_tail && sq_at(qp, qp->sq_next)->framed)
		qp->sq_next++;
	if (qp->sq_next == qp->sq_tail)
		return false;
	idx = qp->sq_next;
	w = sq_at(qp, idx);
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
		room = qp->neg.mulpdu - RK_DDP_TAGGED_LEN;
		n = w->len - w->off > room ? room : (uint32_t)(w->len - w->off);
		last = w->off + n == w->len;
		if (sge_copy(qp, w->sge, w->num_sge, w->off, u + RK_DDP_TAGGED_LEN, n, false) != 0) {
			local_fail(qp, w);
			return false;
		}
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

		room = qp->neg.mulpdu - RK_DDP_UNTAGGED_LEN;
		n = w->len - w->off > room ? room : (uint32_t)(w->len - w->off);
		last = w->off + n == w->len;
		if (sge_copy(qp, w->sge, w->num_sge, w->off, u + RK_DDP_UNTAGGED_LEN, n, false) != 0) {
			local_fail(qp, w);
			return false;
		}
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

		if (qp->out_count >= qp->neg.ord || qp->out_count >= RK_IW_MAX_IRD_ORD)
			return false;   /* ORD reached: wait for a response */
		memset(&rr, 0, sizeof(rr));
		rr.sink_stag = w->num_sge > 0 ? w->sge[0].lkey : 0;
		rr.sink_to = w->num_sge > 0 ? w->sge[0].addr : 0;
		rr.rdma_rd_sz = (uint32_t)w->len;
		rr.src_stag = w->rkey;
		rr.src_to = w->remote_addr;
		put_untagged(u, RK_RDMAP_READ_REQ, true, 0, RK_RDMAP_QN_READ_REQ,
			     qp->msn_tx[RK_RDMAP_QN_READ_REQ]++, 0);
		rk_rdmap_read_req_pack(u + RK_DDP_UNTAGGED_LEN, &rr);
		o = out_push(qp);
		o->kind = OUT_READ;
		o->sq_idx = idx;
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

		if (qp->out_count >= qp->neg.ord || qp->out_count >= RK_IW_MAX_IRD_ORD)
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
		put_untagged(u, RK_RDMAP_ATOMIC_REQ, true, 0, RK_RDMAP_QN_ATOMIC_REQ,
			     qp->msn_tx[RK_RDMAP_QN_ATOMIC_REQ]++, 0);
		rk_rdmap_atomic_req_pack(u + RK_DDP_UNTAGGED_LEN, &a);
		o = out_push(qp);
		o->kind = OUT_ATOMIC;
		o->sq_idx = idx;
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
		struct iw_swqe *w = sq_at(qp, qp->txm_idx);

		if (!w->done) {
			w->done = true;
			w->status = RK_WC_SUCCESS;
		}
		sq_complete(qp);
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
		struct iw_swqe *w = sq_at(qp, c);

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
	close_now(qp, RK_IW_CLOSE_LLP);
}

void
rk_iw_timers(struct rk_iw_qp *qp, uint64_t now_ns)
{
	if (qp != NULL && qp->state == RK_IW_MPA_WAIT && now_ns >= qp->deadline)
		close_now(qp, RK_IW_CLOSE_MPA_TIMEOUT);
}

int
rk_iw_qp_terminate(struct rk_iw_qp *qp, uint8_t layer, uint8_t etype, uint8_t code)
{
	if (qp == NULL || (qp->state != RK_IW_RTS && qp->state != RK_IW_RTR_WAIT))
		return -EINVAL;
	queue_term(qp, layer, etype, code, NULL, NULL, 0);
	return 0;
}
