/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QP objects and the QP state machine: RESET, INIT, RTR, RTS, SQD, SQE, ERR
 * (IBTA Vol1 ch. 10 and 11.2.5); the attribute table has the
 * shape of the kernel's ib_modify_qp_is_ok(). Posting and flushing.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "rk_ib_internal.h"

const char *const rk_qp_state_name[RK_QPS_COUNT] = { RK_QP_STATES(RK_ENUM_NAME, RK_QPS_) };

uint32_t
rk_ib_mtu_bytes(enum rk_mtu mtu)
{
	return mtu >= RK_MTU_256 && mtu <= RK_MTU_4096 ? 128u << mtu : 0;
}

/* ----------------------------------------------------- transition table */

enum { T_RC, T_UC, T_UD, T_N };

struct qp_trans {
	bool valid;
	int req[T_N];
	int opt[T_N];
};

#define M(x) RK_QP_##x
#define RTS_OPT_RC (M(CUR_STATE) | M(ACCESS_FLAGS) | M(ALT_PATH) | M(PATH_MIG_STATE) | \
		    M(MIN_RNR_TIMER))
#define RTS_OPT_UC (M(CUR_STATE) | M(ACCESS_FLAGS) | M(ALT_PATH) | M(PATH_MIG_STATE))
#define RTS_OPT_UD (M(CUR_STATE) | M(QKEY))
/* RTS to RTS and SQD to RTS change the same attributes. */
#define TO_RTS { .valid = true, \
		 .opt = { [T_RC] = RTS_OPT_RC, [T_UC] = RTS_OPT_UC, [T_UD] = RTS_OPT_UD } }

/* What RESET to INIT requires, INIT to INIT may change. */
#define INIT_ATTRS { \
	[T_RC] = M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS), \
	[T_UC] = M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS), \
	[T_UD] = M(PKEY_INDEX) | M(PORT) | M(QKEY), \
}

static const struct qp_trans qp_table[RK_QPS_COUNT][RK_QPS_COUNT] = {
	[RK_QPS_RESET] = {
		[RK_QPS_RESET] = { .valid = true },
		[RK_QPS_INIT] = { .valid = true, .req = INIT_ATTRS },
	},
	[RK_QPS_INIT] = {
		[RK_QPS_INIT] = { .valid = true, .opt = INIT_ATTRS },
		[RK_QPS_RTR] = {
			.valid = true,
			.req = {
				[T_RC] = M(AV) | M(PATH_MTU) | M(DEST_QPN) | M(RQ_PSN) |
					 M(MAX_DEST_RD_ATOMIC) | M(MIN_RNR_TIMER),
				[T_UC] = M(AV) | M(PATH_MTU) | M(DEST_QPN) | M(RQ_PSN),
			},
			.opt = {
				[T_RC] = M(ALT_PATH) | M(ACCESS_FLAGS) | M(PKEY_INDEX),
				[T_UC] = M(ALT_PATH) | M(ACCESS_FLAGS) | M(PKEY_INDEX),
				[T_UD] = M(PKEY_INDEX) | M(QKEY),
			},
		},
	},
	[RK_QPS_RTR] = {
		[RK_QPS_RTS] = {
			.valid = true,
			.req = {
				[T_RC] = M(SQ_PSN) | M(TIMEOUT) | M(RETRY_CNT) | M(RNR_RETRY) |
					 M(MAX_QP_RD_ATOMIC),
				[T_UC] = M(SQ_PSN),
				[T_UD] = M(SQ_PSN),
			},
			.opt = {
				[T_RC] = M(CUR_STATE) | M(ALT_PATH) | M(ACCESS_FLAGS) |
					 M(MIN_RNR_TIMER) | M(PATH_MIG_STATE),
				[T_UC] = M(CUR_STATE) | M(ALT_PATH) | M(ACCESS_FLAGS) |
					 M(PATH_MIG_STATE),
				[T_UD] = M(CUR_STATE) | M(QKEY),
			},
		},
	},
	[RK_QPS_RTS] = {
		[RK_QPS_RTS] = TO_RTS,
		[RK_QPS_SQD] = {
			.valid = true,
			.opt = { [T_RC] = M(EN_SQD_ASYNC_NOTIFY), [T_UC] = M(EN_SQD_ASYNC_NOTIFY),
				 [T_UD] = M(EN_SQD_ASYNC_NOTIFY) },
		},
	},
	[RK_QPS_SQD] = {
		[RK_QPS_RTS] = TO_RTS,
		[RK_QPS_SQD] = {
			.valid = true,
			.opt = {
				[T_RC] = M(AV) | M(ALT_PATH) | M(ACCESS_FLAGS) | M(PKEY_INDEX) |
					 M(MIN_RNR_TIMER) | M(PATH_MIG_STATE) | M(TIMEOUT) |
					 M(RETRY_CNT) | M(RNR_RETRY) | M(MAX_QP_RD_ATOMIC) |
					 M(MAX_DEST_RD_ATOMIC),
				[T_UC] = M(AV) | M(ALT_PATH) | M(ACCESS_FLAGS) | M(PKEY_INDEX) |
					 M(PATH_MIG_STATE),
				[T_UD] = M(PKEY_INDEX) | M(QKEY),
			},
		},
	},
	[RK_QPS_SQE] = {
		[RK_QPS_RTS] = {
			.valid = true,
			.opt = {
				[T_UC] = M(CUR_STATE) | M(ACCESS_FLAGS),
				[T_UD] = M(CUR_STATE) | M(QKEY),
			},
		},
	},
};

/* The attributes a modify copies as they are: mask bit, member of struct rk_qp_attr. */
#define ATTR(bit, m) { RK_QP_##bit, offsetof(struct rk_qp_attr, m), \
		       sizeof(((struct rk_qp_attr *)0)->m) }
static const struct {
	int bit;
	uint16_t off, len;
} attr_fields[] = {
	ATTR(ACCESS_FLAGS, qp_access_flags), ATTR(PKEY_INDEX, pkey_index),
	ATTR(PORT, port_num), ATTR(QKEY, qkey), ATTR(AV, ah_attr), ATTR(PATH_MTU, path_mtu),
	ATTR(DEST_QPN, dest_qp_num), ATTR(RQ_PSN, rq_psn), ATTR(MIN_RNR_TIMER, min_rnr_timer),
	ATTR(MAX_DEST_RD_ATOMIC, max_dest_rd_atomic), ATTR(TIMEOUT, timeout),
	ATTR(RETRY_CNT, retry_cnt), ATTR(RNR_RETRY, rnr_retry),
	ATTR(MAX_QP_RD_ATOMIC, max_rd_atomic), ATTR(SQ_PSN, sq_psn),
	ATTR(EN_SQD_ASYNC_NOTIFY, en_sqd_async_notify),
};
#undef ATTR

static int
type_index(enum rk_qp_type t)
{
	return t == RK_QPT_RC ? T_RC : t == RK_QPT_UC ? T_UC : T_UD;
}

/* Any state may go to RESET or ERR with no other attribute. */
static const struct qp_trans to_reset_or_err = { .valid = true };

static const struct qp_trans *
qp_trans(const struct rk_ib_qp *qp, enum rk_qp_state cur, enum rk_qp_state next)
{
	if (next == RK_QPS_RESET || next == RK_QPS_ERR)
		return &to_reset_or_err;
	if (cur == RK_QPS_SQE && qp->type == RK_QPT_RC)
		return NULL;
	return qp_table[cur][next].valid ? &qp_table[cur][next] : NULL;
}

/* -------------------------------------------------------------- objects */

struct rk_ib_qp *
rk_ib_qp_create(struct rk_ib_pd *pd, const struct rk_ib_qp_init_attr *init)
{
	struct rk_ib_dev *dev;
	struct rk_ib_qp *qp;
	uint32_t slot = 0, n;

	if (pd == NULL || init == NULL || init->send_cq == NULL || init->recv_cq == NULL ||
	    (init->qp_type != RK_QPT_RC && init->qp_type != RK_QPT_UC &&
	     init->qp_type != RK_QPT_UD) ||
	    init->cap.max_send_wr == 0 || init->cap.max_send_wr > (1u << 16) ||
	    init->cap.max_recv_wr > (1u << 16) ||
	    init->cap.max_send_sge > RK_IB_MAX_SGE || init->cap.max_recv_sge > RK_IB_MAX_SGE ||
	    init->cap.max_inline_data > 4096 ||
	    (init->srq == NULL && init->cap.max_recv_wr == 0)) {
		errno = EINVAL;
		return NULL;
	}
	dev = pd->dev;
	/*
	 * Round-robin from the slot after the last one handed out, so a
	 * destroyed QP's number is reused as late as possible and stray frames
	 * of an old connection do not reach its successor (rxe does the same).
	 */
	for (n = 0; n < dev->max_qp; n++) {
		slot = (dev->qp_next + n) % dev->max_qp;
		if (dev->qp[slot] == NULL)
			break;
	}
	if (n == dev->max_qp) {
		errno = ENOMEM;
		return NULL;
	}
	dev->qp_next = (slot + 1) % dev->max_qp;
	qp = calloc(1, sizeof(*qp));
	if (qp == NULL)
		return NULL;
	qp->sq_depth = init->cap.max_send_wr;
	/* Slots sized by the caps asked for (sq_slot_size): 10,000 QPs stay small. */
	qp->sq_stride = sq_slot_size(init->cap.max_send_sge ? init->cap.max_send_sge : 1,
				     init->qp_type == RK_QPT_UD);
	qp->sq = calloc(qp->sq_depth, qp->sq_stride);
	if (init->srq == NULL) {
		qp->rq.depth = init->cap.max_recv_wr;
		qp->rq.max_sge = init->cap.max_recv_sge ? init->cap.max_recv_sge : 1;
		qp->rq.stride = rq_slot_size(qp->rq.max_sge);
		qp->rq.ring = calloc(qp->rq.depth, qp->rq.stride);
	}
	if (init->cap.max_inline_data > 0)
		qp->inline_buf = malloc((size_t)qp->sq_depth * init->cap.max_inline_data);
	if (qp->sq == NULL || (init->srq == NULL && qp->rq.ring == NULL) ||
	    (init->cap.max_inline_data > 0 && qp->inline_buf == NULL)) {
		free(qp->sq);
		free(qp->rq.ring);
		free(qp->inline_buf);
		free(qp);
		errno = ENOMEM;
		return NULL;
	}
	qp->dev = dev;
	qp->pd = pd;
	qp->scq = init->send_cq;
	qp->rcq = init->recv_cq;
	qp->srq = init->srq;
	qp->context = init->qp_context;
	qp->type = init->qp_type;
	qp->lr = &rk_lr_gbn_ops;
	qp->state = RK_QPS_RESET;
	qp->qpn = RK_IB_QPN_BASE + slot;
	qp->sq_sig_all = init->sq_sig_all != 0;
	qp->attr.cap = init->cap;
	if (qp->attr.cap.max_send_sge == 0)
		qp->attr.cap.max_send_sge = 1;
	qp->attr.cap.max_recv_sge = qp->rq.max_sge;
	/* UD has no path: its messages are bounded by the port's active MTU. */
	qp->attr.path_mtu = pd->dev->attr.active_mtu;
	qp->pmtu = rk_ib_mtu_bytes(qp->attr.path_mtu);
	qp->p_key = 0xffff;
	/* IBTA Annex A17 A17.9.4: the UDP source port is per-QP entropy, constant. */
	qp->sport = (uint16_t)(0xc000 | ((qp->qpn * 0x9e37u) & 0x3fff));
	pd->res.obj.refs++;
	qp->scq->res.obj.refs++;
	qp->rcq->res.obj.refs++;
	if (qp->srq != NULL)
		qp->srq->refs++;
	dev->qp[slot] = qp;
	qp->live_idx = dev->nlive;
	dev->live[dev->nlive++] = qp;
	return qp;
}

int
rk_ib_qp_destroy(struct rk_ib_qp *qp)
{
	struct rk_ib_dev *dev;

	if (qp == NULL)
		return -EINVAL;
	dev = qp->dev;
	dev->qp[qp->qpn - RK_IB_QPN_BASE] = NULL;
	/* Keep dev->live dense: the last QP takes this one's place. */
	dev->live[qp->live_idx] = dev->live[--dev->nlive];
	dev->live[qp->live_idx]->live_idx = qp->live_idx;
	qp->pd->res.obj.refs--;
	qp->scq->res.obj.refs--;
	qp->rcq->res.obj.refs--;
	if (qp->srq != NULL)
		qp->srq->refs--;
	if (qp->cc != NULL)
		qp->cc->fini(qp);
	if (qp->lr->fini != NULL)
		qp->lr->fini(qp);
	free(qp->sq);
	free(qp->rq.ring);
	free(qp->inline_buf);
	free(qp->res);
	free(qp);
	return 0;
}

uint32_t
rk_ib_qp_num(const struct rk_ib_qp *qp)
{
	return qp->qpn;
}

enum rk_qp_state
rk_ib_qp_state(const struct rk_ib_qp *qp)
{
	return qp->state;
}

void *
rk_ib_qp_context(const struct rk_ib_qp *qp)
{
	return qp->context;
}

size_t
rk_ib_qp_state_size(const struct rk_ib_qp *qp)
{
	return sizeof(*qp) + (size_t)qp->nres * sizeof(*qp->res);
}

size_t
rk_ib_qp_mem_size(const struct rk_ib_qp *qp)
{
	return rk_ib_qp_state_size(qp) + (size_t)qp->sq_depth * qp->sq_stride +
	       (size_t)qp->rq.depth * qp->rq.stride +
	       (qp->inline_buf != NULL ? (size_t)qp->sq_depth * qp->attr.cap.max_inline_data : 0);
}

/* ------------------------------------------------------------ transitions */

void
rk_comp_wqe_done(struct rk_ib_qp *qp, struct sq_wqe *w, enum rk_wc_status st)
{
	if (st != RK_WC_SUCCESS || qp->sq_sig_all || (w->wr.send_flags & RK_SEND_SIGNALED)) {
		struct rk_wc wc = {
			.wr_id = w->wr.wr_id,
			.status = st,
			.opcode = rk_wc_opcode_of(w->wr.opcode),
			.byte_len = w->length,
			.qp_num = qp->qpn,
		};

		rk_ib_cq_push(qp->scq, &wc);
	}
	w->state = WQE_DONE;
}

static void
flush_rwqe(struct rk_ib_qp *qp, uint64_t wr_id, enum rk_wc_status st)
{
	struct rk_wc wc = {
		.wr_id = wr_id,
		.status = st,
		.opcode = RK_WC_RECV,
		.qp_num = qp->qpn,
	};

	rk_ib_cq_push(qp->rcq, &wc);
}

/* Flush the send queue, oldest first. */
void
rk_ib_sq_flush(struct rk_ib_qp *qp)
{
	while (qp->comp.wqe_idx != qp->sq_prod) {
		struct sq_wqe *w = sq_slot(qp, qp->comp.wqe_idx);

		if (w->state != WQE_DONE)
			rk_comp_wqe_done(qp, w, w->err_status ? (enum rk_wc_status)w->err_status :
								RK_WC_WR_FLUSH_ERR);
		qp->comp.wqe_idx++;
	}
	qp->req.wqe_idx = qp->sq_prod;
	qp->req.rd_atomic = 0;
}

/* Flush every outstanding WQE, oldest first (IBTA Vol1 ch. 10 error state). */
void
rk_ib_qp_flush(struct rk_ib_qp *qp)
{
	rk_ib_sq_flush(qp);
	if (qp->resp.have_rwqe) {
		flush_rwqe(qp, qp->resp.rwqe.wr_id, RK_WC_WR_FLUSH_ERR);
		qp->resp.have_rwqe = false;
	}
	if (qp->srq == NULL) {
		while (qp->rq.cons != qp->rq.prod) {
			flush_rwqe(qp, rq_slot(&qp->rq, qp->rq.cons)->wr_id, RK_WC_WR_FLUSH_ERR);
			qp->rq.cons++;
		}
	}
}

void
rk_ib_qp_to_error(struct rk_ib_qp *qp)
{
	if (qp->state != RK_QPS_ERR)
		rk_ib_trace(qp, "qp", rk_qp_state_name[qp->state], "ERR");
	qp->state = RK_QPS_ERR;
	qp->comp.timer_ns = 0;
	qp->req.rnr_wait = false;
	/* A class C NAK still owes the responses of the requests before it. */
	if (!qp->resp.final_nak)
		rk_resp_res_clear_all(qp);
	rk_ib_qp_flush(qp);
}

static void
qp_reset(struct rk_ib_qp *qp)
{
	memset(&qp->req, 0, sizeof(qp->req));
	memset(&qp->comp, 0, sizeof(qp->comp));
	rk_resp_reset(qp);
	memset(qp->sq, 0, (size_t)qp->sq_depth * qp->sq_stride);
	qp->sq_prod = 0;
	qp->rq.prod = qp->rq.cons = 0;
}

static int
check_values(const struct rk_ib_qp *qp, const struct rk_qp_attr *a, int mask)
{
	/* A path MTU above the port's active MTU is refused, as rxe refuses it. */
	if ((mask & RK_QP_PATH_MTU) && (rk_ib_mtu_bytes(a->path_mtu) == 0 ||
					a->path_mtu > qp->dev->attr.active_mtu))
		return -EINVAL;
	if ((mask & RK_QP_TIMEOUT) && a->timeout > 31)
		return -EINVAL;
	if ((mask & RK_QP_RETRY_CNT) && a->retry_cnt > 7)
		return -EINVAL;
	if ((mask & RK_QP_RNR_RETRY) && a->rnr_retry > 7)
		return -EINVAL;
	if ((mask & RK_QP_MIN_RNR_TIMER) && a->min_rnr_timer > 31)
		return -EINVAL;
	if ((mask & RK_QP_MAX_QP_RD_ATOMIC) && a->max_rd_atomic > RK_IB_MAX_RD_ATOMIC)
		return -EINVAL;
	if ((mask & RK_QP_MAX_DEST_RD_ATOMIC) && a->max_dest_rd_atomic > RK_IB_MAX_RD_ATOMIC)
		return -EINVAL;
	if ((mask & RK_QP_RQ_PSN) && a->rq_psn > RK_PSN_MASK)
		return -EINVAL;
	if ((mask & RK_QP_SQ_PSN) && a->sq_psn > RK_PSN_MASK)
		return -EINVAL;
	if ((mask & RK_QP_DEST_QPN) && a->dest_qp_num > RK_QPN_MASK)
		return -EINVAL;
	if ((mask & RK_QP_ACCESS_FLAGS) &&
	    (a->qp_access_flags & ~(unsigned int)(RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE |
						  RK_ACCESS_REMOTE_READ | RK_ACCESS_REMOTE_ATOMIC)))
		return -EINVAL;
	if ((mask & RK_QP_PKEY_INDEX) && a->pkey_index != 0)
		return -EINVAL;
	return 0;
}

int
rk_ib_qp_modify(struct rk_ib_qp *qp, const struct rk_qp_attr *a, int mask)
{
	enum rk_qp_state cur, next;
	const struct qp_trans *t;
	int ti, rc;

	if (qp == NULL || a == NULL)
		return -EINVAL;
	cur = qp->state;
	if ((mask & RK_QP_CUR_STATE) && a->cur_qp_state != cur)
		return -EINVAL;
	next = (mask & RK_QP_STATE) ? a->qp_state : cur;
	if ((unsigned int)next >= RK_QPS_COUNT)
		return -EINVAL;
	t = qp_trans(qp, cur, next);
	if (t == NULL)
		return -EINVAL;
	ti = type_index(qp->type);
	mask &= ~RK_QP_STATE;
	if ((mask & t->req[ti]) != t->req[ti] || (mask & ~(t->req[ti] | t->opt[ti])))
		return -EINVAL;
	rc = check_values(qp, a, mask);
	if (rc != 0)
		return rc;
	if ((mask & RK_QP_MAX_DEST_RD_ATOMIC) && a->max_dest_rd_atomic != qp->nres) {
		struct resp_res *res = NULL;

		if (a->max_dest_rd_atomic > 0) {
			res = calloc(a->max_dest_rd_atomic, sizeof(*res));
			if (res == NULL)
				return -ENOMEM;
		}
		free(qp->res);
		qp->res = res;
		qp->nres = a->max_dest_rd_atomic;
		qp->resp.res_head = 0;
		qp->resp.res_pending = 0;
	}

	/* Apply attributes, then what the engine keeps beside them. */
	for (size_t i = 0; i < sizeof(attr_fields) / sizeof(attr_fields[0]); i++)
		if (mask & attr_fields[i].bit)
			memcpy((uint8_t *)&qp->attr + attr_fields[i].off,
			       (const uint8_t *)a + attr_fields[i].off, attr_fields[i].len);
	if (mask & RK_QP_PATH_MTU)
		qp->pmtu = rk_ib_mtu_bytes(a->path_mtu);
	if (mask & RK_QP_RQ_PSN)
		qp->resp.epsn = a->rq_psn;
	if (mask & RK_QP_TIMEOUT)
		qp->timeout_ns = rk_local_ack_timeout_ns(a->timeout);
	if (mask & RK_QP_RETRY_CNT)
		qp->comp.retry_left = a->retry_cnt;
	if (mask & RK_QP_RNR_RETRY)
		qp->comp.rnr_left = a->rnr_retry;
	if (mask & RK_QP_SQ_PSN) {
		qp->req.psn = a->sq_psn;
		qp->comp.psn = a->sq_psn;
		qp->req.max_sent_psn = rk_psn_sub(a->sq_psn, 1);
		qp->req.sent_any = false;
	}

	if (next != cur)
		rk_ib_trace(qp, "qp", rk_qp_state_name[cur], rk_qp_state_name[next]);
	switch (next) {
	case RK_QPS_RESET:
		qp_reset(qp);
		qp->state = RK_QPS_RESET;
		break;
	case RK_QPS_ERR:
		rk_ib_qp_to_error(qp);
		break;
	default:
		qp->state = next;
		break;
	}
	return 0;
}

int
rk_ib_qp_query(const struct rk_ib_qp *qp, struct rk_qp_attr *attr, int mask)
{
	(void)mask;
	if (qp == NULL || attr == NULL)
		return -EINVAL;
	*attr = qp->attr;
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->sq_psn = qp->req.psn;
	attr->rq_psn = qp->resp.epsn;
	attr->sq_draining = qp->state == RK_QPS_SQD && qp->comp.wqe_idx != qp->req.wqe_idx;
	return 0;
}

/* ---------------------------------------------------------------- posting */

static bool
wr_allowed(enum rk_qp_type t, enum rk_wr_opcode op)
{
	switch (op) {
	case RK_WR_SEND:
	case RK_WR_SEND_WITH_IMM:
		return true;
	case RK_WR_RDMA_WRITE:
	case RK_WR_RDMA_WRITE_WITH_IMM:
		return t != RK_QPT_UD;
	case RK_WR_RDMA_READ:
	case RK_WR_ATOMIC_CMP_AND_SWP:
	case RK_WR_ATOMIC_FETCH_AND_ADD:
	case RK_WR_SEND_WITH_INV:
		return t == RK_QPT_RC;
	default:
		return false;
	}
}

/* What the engine keeps of @p wr (checked: num_sge fits). */
static void
sq_wr_keep(struct sq_wr *k, const struct rk_send_wr *wr)
{
	k->wr_id = wr->wr_id;
	k->imm_data = wr->imm_data;
	k->opcode = (uint8_t)wr->opcode;
	k->num_sge = (uint8_t)wr->num_sge;
	k->send_flags = (uint16_t)wr->send_flags;
	if (wr_is_atomic(wr->opcode)) {
		k->wr.atomic.remote_addr = wr->wr.atomic.remote_addr;
		k->wr.atomic.compare_add = wr->wr.atomic.compare_add;
		k->wr.atomic.swap = wr->wr.atomic.swap;
		k->wr.atomic.rkey = wr->wr.atomic.rkey;
	} else if (wr->opcode == RK_WR_SEND || wr->opcode == RK_WR_SEND_WITH_IMM ||
		   wr->opcode == RK_WR_SEND_WITH_INV) {
		/* UD's destination QP; RC and UC ignore it */
		k->wr.ud.remote_qpn = wr->wr.ud.remote_qpn;
		k->wr.ud.remote_qkey = wr->wr.ud.remote_qkey;
	} else {
		k->wr.rdma.remote_addr = wr->wr.rdma.remote_addr;
		k->wr.rdma.rkey = wr->wr.rdma.rkey;
	}
}

static int
post_one_send(struct rk_ib_qp *qp, const struct rk_send_wr *wr)
{
	struct sq_wqe *w;
	uint64_t total = 0;
	uint32_t slot;

	if (!wr_allowed(qp->type, wr->opcode) || wr->num_sge < 0 ||
	    (uint32_t)wr->num_sge > qp->attr.cap.max_send_sge ||
	    (wr->num_sge > 0 && wr->sg_list == NULL))
		return -EINVAL;
	for (int i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	if (total > 0x80000000u)
		return -EINVAL;
	if (wr_is_atomic(wr->opcode) && (wr->num_sge != 1 || total != 8))
		return -EINVAL;
	/* A READ needs all its response PSNs outstanding at once (RK_IB_MAX_OUTSTANDING_PSNS). */
	if (wr->opcode == RK_WR_RDMA_READ && qp->pmtu != 0 &&
	    (total + qp->pmtu - 1) / qp->pmtu > RK_IB_MAX_OUTSTANDING_PSNS)
		return -EINVAL;
	if (qp->type == RK_QPT_UD && wr->wr.ud.ah == NULL)
		return -EINVAL;
	if ((wr->send_flags & RK_SEND_INLINE) &&
	    (total > qp->attr.cap.max_inline_data || wr_is_rd_atomic(wr->opcode)))
		return -EINVAL;
	if (qp->sq_prod - qp->comp.wqe_idx >= qp->sq_depth)
		return -ENOMEM;
	slot = qp->sq_prod % qp->sq_depth;
	w = sq_slot(qp, qp->sq_prod);
	memset(w, 0, sizeof(*w));
	sq_wr_keep(&w->wr, wr);
	w->length = (uint32_t)total;
	if (qp->type == RK_QPT_UD)
		*sq_ah(qp, w) = wr->wr.ud.ah->attr;
	if (wr->send_flags & RK_SEND_INLINE) {
		uint8_t *dst = qp->inline_buf + (size_t)slot * qp->attr.cap.max_inline_data;
		uint32_t off = 0;

		for (int i = 0; i < wr->num_sge; i++) {
			memcpy(dst + off, (const void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			off += wr->sg_list[i].length;
		}
		w->inline_data = true;
		w->wr.num_sge = 1;
		w->sge[0] = (struct rk_sge){ (uint64_t)(uintptr_t)dst, (uint32_t)total, 0 };
	} else {
		for (int i = 0; i < wr->num_sge; i++)
			w->sge[i] = wr->sg_list[i];
	}
	w->state = WQE_POSTED;
	qp->sq_prod++;
	if (qp->state == RK_QPS_ERR || qp->state == RK_QPS_SQE)
		rk_ib_sq_flush(qp);
	return 0;
}

int
rk_ib_post_send(struct rk_ib_qp *qp, const struct rk_send_wr *wr,
		const struct rk_send_wr **bad_wr)
{
	int rc = 0;

	if (qp == NULL || wr == NULL) {
		if (bad_wr != NULL)
			*bad_wr = wr;
		return -EINVAL;
	}
	for (; wr != NULL; wr = wr->next) {
		if (qp->state == RK_QPS_RESET || qp->state == RK_QPS_INIT ||
		    qp->state == RK_QPS_RTR)
			rc = -EINVAL;
		else
			rc = post_one_send(qp, wr);
		if (rc != 0) {
			if (bad_wr != NULL)
				*bad_wr = wr;
			return rc;
		}
	}
	return 0;
}

static int
rq_post(struct rk_ib_rq *rq, uint32_t cons, const struct rk_recv_wr *wr)
{
	struct rq_slot *r;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > rq->max_sge ||
	    (wr->num_sge > 0 && wr->sg_list == NULL))
		return -EINVAL;
	if (rq->prod - cons >= rq->depth)
		return -ENOMEM;
	r = rq_slot(rq, rq->prod);
	r->wr_id = wr->wr_id;
	r->num_sge = (uint32_t)wr->num_sge;
	for (int i = 0; i < wr->num_sge; i++)
		r->sge[i] = wr->sg_list[i];
	rq->prod++;
	return 0;
}

/*
 * Post a list of receive WRs to @p rq; *bad_wr names the one refused. A
 * QP already in ERR (@p qp, NULL for an SRQ) flushes each one at once.
 */
static int
rq_post_list(struct rk_ib_rq *rq, struct rk_ib_qp *qp, const struct rk_recv_wr *wr,
	     const struct rk_recv_wr **bad_wr)
{
	for (; wr != NULL; wr = wr->next) {
		int rc = rq_post(rq, rq->cons, wr);

		if (rc != 0) {
			if (bad_wr != NULL)
				*bad_wr = wr;
			return rc;
		}
		if (qp != NULL && qp->state == RK_QPS_ERR)
			rk_ib_qp_flush(qp);
	}
	return 0;
}

int
rk_ib_post_recv(struct rk_ib_qp *qp, const struct rk_recv_wr *wr,
		const struct rk_recv_wr **bad_wr)
{
	if (qp == NULL || wr == NULL || qp->srq != NULL || qp->state == RK_QPS_RESET) {
		if (bad_wr != NULL)
			*bad_wr = wr;
		return -EINVAL;
	}
	return rq_post_list(&qp->rq, qp, wr, bad_wr);
}

int
rk_ib_srq_post_recv(struct rk_ib_srq *srq, const struct rk_recv_wr *wr,
		    const struct rk_recv_wr **bad_wr)
{
	if (srq == NULL || wr == NULL) {
		if (bad_wr != NULL)
			*bad_wr = wr;
		return -EINVAL;
	}
	return rq_post_list(&srq->rq, NULL, wr, bad_wr);
}

/* UC/UD send queue error: the SQ flushes, the RQ keeps working (IBTA Vol1 ch. 10). */
void
rk_ib_qp_to_sqe(struct rk_ib_qp *qp)
{
	rk_ib_trace(qp, "qp", rk_qp_state_name[qp->state], "SQE");
	qp->state = RK_QPS_SQE;
	rk_ib_sq_flush(qp);
}
