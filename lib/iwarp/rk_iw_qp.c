/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The iWARP QP: creation, posting, completions and local memory checks;
 * MPA set-up, receive and transmit are in rk_iw_mpa.c, rk_iw_rx.c and
 * rk_iw_tx.c. See rk_iw.h for the contract.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rk_iw_internal.h"
#include "rk_iw_mutant.h"

const char *const rk_iw_state_name[RK_IW_STATE_COUNT] = {
	RK_IW_STATES(RK_ENUM_NAME, RK_IW_)
};

/* Completions leave the SQ in posting order. */
void
rk_iw_sq_complete(struct rk_iw_qp *qp)
{
	while (qp->sq_head != qp->sq_tail) {
		struct iw_swqe *w = rk_iw_sq_at(qp, qp->sq_head);
		struct rk_wc wc;

		if (!w->done)
			break;
		if (qp->sig_all || (w->flags & RK_SEND_SIGNALED) || w->status != RK_WC_SUCCESS) {
			memset(&wc, 0, sizeof(wc));
			wc.wr_id = w->wr_id;
			wc.status = w->status;
			wc.opcode = rk_wc_opcode_of(w->opcode);
			wc.byte_len = w->opcode == RK_WR_RDMA_READ ? (uint32_t)w->len : 0;
			wc.qp_num = qp->qp_num;
			rk_iw_cq_push(qp->scq, &wc);
		}
		qp->sq_head++;
		if ((int32_t)(qp->sq_next - qp->sq_head) < 0)
			qp->sq_next = qp->sq_head;
	}
}

void
rk_iw_rq_complete_head(struct rk_iw_qp *qp, enum rk_wc_status st, uint32_t byte_len,
		       enum rk_wc_opcode op, unsigned int flags, uint32_t imm_inv)
{
	struct iw_rwqe *r = rk_iw_rq_at(qp, qp->rq_head);
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
void
rk_iw_flush_all(struct rk_iw_qp *qp, enum rk_wc_status first)
{
	bool used_first = false;

	for (uint32_t c = qp->sq_head; c != qp->sq_tail; c++) {
		struct iw_swqe *w = rk_iw_sq_at(qp, c);

		if (w->done)
			continue;
		w->done = true;
		w->status = used_first ? RK_WC_WR_FLUSH_ERR : first;
		used_first = true;
	}
	rk_iw_sq_complete(qp);
	while (qp->rq_head != qp->rq_tail)
		rk_iw_rq_complete_head(qp, RK_WC_WR_FLUSH_ERR, 0, RK_WC_RECV, 0, 0);
	qp->out_count = 0;
	qp->irq_count = 0;
}

void
rk_iw_close_now(struct rk_iw_qp *qp, enum rk_iw_close_reason why)
{
	if (qp->err.reason == RK_IW_CLOSE_NONE)
		qp->err.reason = why;
	qp->state = RK_IW_CLOSED;
	qp->rx_stop = true;
	qp->closed = true;
	qp->term_pending = false;
	qp->txlen = qp->txoff = 0;
	rk_iw_flush_all(qp, RK_WC_WR_FLUSH_ERR);
}

/*
 * Queue a Terminate (RFC 5040 4.8) with the given codes for @p why, an
 * error in the peer's FPDU @p seg (NULL when no header is to be echoed,
 * as for CRC and marker errors whose headers cannot be trusted), count
 * the reason, then stop receiving.
 */
static void
queue_term(struct rk_iw_qp *qp, enum rk_iw_reason why, uint8_t layer, uint8_t etype,
	   uint8_t code, const struct rk_rdmap_msg *m, const uint8_t *seg, uint16_t seg_len)
{
	struct rk_ddp_untagged_fields d;
	struct rk_rdmap_term_fields t;
	uint8_t *u = qp->term_ulpdu;
	uint16_t n;

	if (qp->rx_stop || qp->closed)
		return;
	qp->reasons.count[why]++;
	qp->last_reason = why;
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
	t.err_code = RK_IW_MUTANT(RK_IW_MUT_TERM_CODE) ? (uint8_t)(code ^ 1) : code;
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
	qp->term_pending = !RK_IW_MUTANT(RK_IW_MUT_NO_TERM);
	qp->rx_stop = true;
	qp->state = RK_IW_TERMINATE;
	qp->err.reason = RK_IW_CLOSE_TERM_SENT;
	qp->err.layer = layer;
	qp->err.etype = etype;
	qp->err.code = code;
	qp->dev->stats.term_sent++;
	rk_iw_flush_all(qp, RK_WC_WR_FLUSH_ERR);
}

void
rk_iw_queue_term(struct rk_iw_qp *qp, enum rk_iw_reason why, const struct rk_rdmap_msg *m,
		 const uint8_t *seg, uint16_t seg_len)
{
	const struct rk_iw_reason_info *r = rk_iw_reason_info(why);

	if (why != RK_IW_R_NONE && r != NULL)
		queue_term(qp, why, r->layer, r->etype, r->code, m, seg, seg_len);
}

/* The consumer's own Terminate, with its codes (rk_iw_qp_terminate). */
void
rk_iw_queue_term_asked(struct rk_iw_qp *qp, uint8_t layer, uint8_t etype, uint8_t code)
{
	queue_term(qp, RK_IW_R_LOCAL_ASKED, layer, etype, code, NULL, NULL, 0);
}

/* ------------------------------------------------------------ creation */

static uint16_t
ird_ord_or_default(uint16_t v)
{
	return v == 0 ? DEFAULT_IRD_ORD : v;
}

static void
qp_free(struct rk_iw_qp *qp)
{
	free(qp->rxs);
	free(qp->sq);
	free(qp->rq);
	free(qp->txbuf);
	free(qp->ulpdu);
	free(qp);
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
		qp_free(qp);
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
	pd->res.obj.refs++;
	qp->scq->res.obj.refs++;
	qp->rcq->res.obj.refs++;
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
	qp->pd->res.obj.refs--;
	qp->scq->res.obj.refs--;
	qp->rcq->res.obj.refs--;
	qp_free(qp);
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

/* A work request the QP can take: alive, a list of at most its SGEs. */
static bool
wr_ok(const struct rk_iw_qp *qp, int num_sge, const struct rk_sge *sg_list, bool send)
{
	if (qp == NULL || !qp_alive(qp) || num_sge < 0)
		return false;
	return (uint32_t)num_sge <= (send ? qp->max_send_sge : qp->max_recv_sge) &&
	       (num_sge == 0 || sg_list != NULL);
}

/* Copy a WR's SGE list (checked by wr_ok()) into its WQE; its total length. */
static uint64_t
take_sges(struct rk_sge *dst, const struct rk_sge *src, int n)
{
	uint64_t len = 0;

	for (int i = 0; i < n; i++)
		len += src[i].length;
	if (n > 0)
		memcpy(dst, src, (size_t)n * sizeof(*dst));
	return len;
}

int
rk_iw_post_send(struct rk_iw_qp *qp, const struct rk_send_wr *wr,
		const struct rk_send_wr **bad_wr)
{
	for (; wr != NULL; wr = wr->next) {
		struct iw_swqe *w;
		bool ok;

		if (bad_wr != NULL)
			*bad_wr = wr;
		/* The SGE list is checked before any opcode rule reads it. */
		if (!wr_ok(qp, wr->num_sge, wr->sg_list, true))
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
		if (!ok)
			return -EINVAL;
		if (qp->sq_tail - qp->sq_head == qp->sq_size)
			return -ENOMEM;
		w = rk_iw_sq_at(qp, qp->sq_tail);
		memset(w, 0, sizeof(*w));
		w->len = take_sges(w->sge, wr->sg_list, wr->num_sge);
		/* Read Request size and one untagged message: 32 bits (RFC 5040 4.4, MO). */
		if (w->len > UINT32_MAX)
			return -EINVAL;
		w->wr_id = wr->wr_id;
		w->opcode = wr->opcode;
		w->flags = wr->send_flags;
		w->imm_inv = wr->imm_data;
		w->num_sge = wr->num_sge;
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
		struct iw_rwqe *r = rk_iw_rq_at(qp, qp->rq_tail);

		if (bad_wr != NULL)
			*bad_wr = wr;
		if (!wr_ok(qp, wr->num_sge, wr->sg_list, false))
			return -EINVAL;
		if (qp->rq_tail - qp->rq_head == qp->rq_size)
			return -ENOMEM;
		r->wr_id = wr->wr_id;
		r->num_sge = wr->num_sge;
		r->len = take_sges(r->sge, wr->sg_list, wr->num_sge);
		qp->rq_tail++;
	}
	if (bad_wr != NULL)
		*bad_wr = NULL;
	return 0;
}

/* ------------------------------------------------------- local memory */

/* Copy @p n bytes at message offset @p off between the SGEs and @p buf. */
int
rk_iw_sge_copy(struct rk_iw_qp *qp, const struct rk_sge *sge, int nsge, uint64_t off,
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
		    (to_sge && !(mr->res.access & RK_ACCESS_LOCAL_WRITE)) ||
		    sge[i].addr < mr->res.va || sge[i].addr + sge[i].length < sge[i].addr ||
		    sge[i].addr + sge[i].length > mr->res.va + mr->res.length)
			return -1;
		if (to_sge)
			memcpy(mr->res.addr + (sge[i].addr - mr->res.va) + off, buf, take);
		else
			memcpy(buf, mr->res.addr + (sge[i].addr - mr->res.va) + off, take);
		buf += take;
		n -= (uint32_t)take;
		off = 0;
	}
	return n == 0 ? 0 : -1;
}

/* Remote access check of a region (tagged placement, Read source, Atomic target). */

int
rk_iw_remote_check(struct rk_iw_qp *qp, uint32_t stag, uint64_t to, uint64_t n,
		   unsigned int need, struct rk_iw_mr **out)
{
	struct rk_iw_mr *mr = rk_iw_stag_lookup(qp->dev, stag);

	if (mr == NULL)
		return ACC_STAG;
	if (mr->pd != qp->pd)
		return ACC_PD;
	if (!(mr->res.access & need))
		return ACC_RIGHTS;
	if (to + n < to)
		return ACC_WRAP;
	if (to < mr->res.va || to + n > mr->res.va + mr->res.length)
		return ACC_BOUNDS;
	*out = mr;
	return ACC_OK;
}

