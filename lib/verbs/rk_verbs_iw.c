/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Verbs over lib/iwarp: the public handles wrap rk_iw_* objects, and the
 * progress loop moves bytes between each QP and its stream (one QP, one
 * MPA/TCP connection, RFC 5044).
 */
#include "rk_verbs_iw.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

/* Bytes read from one stream per progress pass, so one busy QP cannot starve the rest. */
#define IW_RX_BUDGET (1u << 20)
#define IW_RXBUF (64u * 1024)
#define IW_STAGE (64u * 1024)

struct rk_iw_vqp {
	struct rk_qp *vqp;
	struct rk_iw_vqp *next;         /* ctx->iw_qps, once connected */
	struct rk_iw_qp *eng;           /* NULL until rk_qp_connect_stream() */
	void *stream;
	bool stream_open;
	enum rk_qp_state state;         /* before connecting: RESET, INIT or ERR */
	uint8_t ird, ord;               /* 0: engine default */
	unsigned int access;
	struct rk_qp_cap cap;
	int sq_sig_all;
	uint32_t off, len;              /* bytes of stage not yet taken by the stream */
	uint64_t moved;                 /* bytes the stream took and gave: rk_qp_progress() */
	uint8_t stage[IW_STAGE];
};

struct rk_context *
rk_open_device_iwarp(const struct rk_stream_ops *ops, void *env, const struct rk_device_attr *attr)
{
	struct rk_iw_dev_attr da = { 0 };
	struct rk_context *ctx;

	if (ops == NULL || ops->send == NULL || ops->recv == NULL || ops->close == NULL ||
	    ops->now_ns == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	da.max_mr = attr->max_mr;
	da.key_seed = attr->key_seed;
	if (da.key_seed == 0 && getrandom(&da.key_seed, sizeof(da.key_seed), 0) !=
				(ssize_t)sizeof(da.key_seed)) {
		errno = EIO;
		return NULL;
	}
	ctx = calloc(1, sizeof(*ctx));
	if (ctx == NULL)
		return NULL;
	ctx->iw_rxbuf = malloc(IW_RXBUF);
	if (ctx->iw_rxbuf == NULL) {
		free(ctx);
		errno = ENOMEM;
		return NULL;
	}
	ctx->iw = rk_iw_dev_create(&da);
	if (ctx->iw == NULL) {
		int e = errno;

		free(ctx->iw_rxbuf);
		free(ctx);
		errno = e;
		return NULL;
	}
	ctx->transport = RK_TRANSPORT_TYPE_IWARP;
	ctx->sops = ops;
	ctx->env = env;
	return ctx;
}

int
rk_vi_close_device(struct rk_context *ctx)
{
	if (ctx->live != 0)
		return -EBUSY;
	rk_iw_dev_destroy(ctx->iw);
	free(ctx->iw_rxbuf);
	free(ctx);
	return 0;
}

struct rk_pd *
rk_vi_alloc_pd(struct rk_context *ctx)
{
	struct rk_pd *pd = calloc(1, sizeof(*pd));

	if (pd == NULL)
		return NULL;
	pd->iw = rk_iw_pd_alloc(ctx->iw);
	if (pd->iw == NULL) {
		free(pd);
		errno = ENOMEM;
		return NULL;
	}
	pd->context = ctx;
	ctx->live++;
	return pd;
}

int
rk_vi_dealloc_pd(struct rk_pd *pd)
{
	int rc;

	if (pd->iw_users != 0)
		return -EBUSY;
	rc = rk_iw_pd_free(pd->iw);
	if (rc == 0) {
		pd->context->live--;
		free(pd);
	}
	return rc;
}

struct rk_mr *
rk_vi_reg_mr(struct rk_pd *pd, void *addr, size_t length, int access)
{
	struct rk_mr *mr = calloc(1, sizeof(*mr));

	if (mr == NULL)
		return NULL;
	mr->iw = rk_iw_mr_reg(pd->iw, addr, length, (unsigned int)access);
	if (mr->iw == NULL) {
		int e = errno;

		free(mr);
		errno = e;
		return NULL;
	}
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	/* One STag names the region locally and remotely (RFC 5040 2.x, siw). */
	mr->lkey = mr->rkey = rk_iw_mr_stag(mr->iw);
	mr->context->live++;
	return mr;
}

int
rk_vi_dereg_mr(struct rk_mr *mr)
{
	int rc = rk_iw_mr_dereg(mr->iw);

	if (rc != 0)
		return rc;
	mr->context->live--;
	free(mr);
	return 0;
}

struct rk_cq *
rk_vi_create_cq(struct rk_context *ctx, int cqe, void *cq_context)
{
	struct rk_cq *cq = calloc(1, sizeof(*cq));

	if (cq == NULL)
		return NULL;
	cq->iw = rk_iw_cq_create(ctx->iw, (uint32_t)cqe);
	if (cq->iw == NULL) {
		int e = errno;

		free(cq);
		errno = e;
		return NULL;
	}
	cq->context = ctx;
	cq->cq_context = cq_context;
	cq->cqe = cqe;
	ctx->live++;
	return cq;
}

int
rk_vi_destroy_cq(struct rk_cq *cq)
{
	int rc;

	if (cq->iw_users != 0)
		return -EBUSY;
	rc = rk_iw_cq_destroy(cq->iw);
	if (rc == 0) {
		cq->context->live--;
		free(cq);
	}
	return rc;
}

int
rk_vi_poll_cq(struct rk_cq *cq, int num, struct rk_wc *wc)
{
	int n, m;

	if (num <= 0) {
		rk_vi_progress(cq->context);
		return 0;
	}
	n = rk_iw_cq_poll(cq->iw, num, wc);
	if (n < 0 || n == num)
		return n;
	rk_vi_progress(cq->context);
	m = rk_iw_cq_poll(cq->iw, num - n, wc + n);
	return m < 0 ? m : n + m;
}

struct rk_qp *
rk_vi_create_qp(struct rk_pd *pd, struct rk_qp_init_attr *attr)
{
	struct rk_iw_vqp *v;
	struct rk_qp *qp;

	if (attr->qp_type != RK_QPT_RC || attr->srq != NULL) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->send_cq->context != pd->context || attr->recv_cq->context != pd->context ||
	    attr->cap.max_send_wr == 0 || attr->cap.max_send_wr > 65536 ||
	    attr->cap.max_recv_wr == 0 || attr->cap.max_recv_wr > 65536 ||
	    attr->cap.max_send_sge > RK_IW_MAX_SGE || attr->cap.max_recv_sge > RK_IW_MAX_SGE) {
		errno = EINVAL;
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	v = calloc(1, sizeof(*v));
	if (qp == NULL || v == NULL) {
		free(qp);
		free(v);
		errno = ENOMEM;
		return NULL;
	}
	v->vqp = qp;
	v->state = RK_QPS_RESET;
	v->cap = attr->cap;
	v->sq_sig_all = attr->sq_sig_all;
	qp->iw = v;
	qp->context = pd->context;
	qp->qp_context = attr->qp_context;
	qp->pd = pd;
	qp->send_cq = attr->send_cq;
	qp->recv_cq = attr->recv_cq;
	qp->qp_num = ++pd->context->iw_next_qpn & 0xffffff;
	qp->state = RK_QPS_RESET;
	qp->qp_type = RK_QPT_RC;
	pd->iw_users++;
	attr->send_cq->iw_users++;
	attr->recv_cq->iw_users++;
	qp->context->live++;
	return qp;
}

static enum rk_qp_state
vi_state(const struct rk_iw_vqp *v)
{
	if (v->eng == NULL)
		return v->state;
	switch (rk_iw_qp_state(v->eng)) {
	case RK_IW_MPA_WAIT:
	case RK_IW_RTR_WAIT:
		return RK_QPS_RTR;
	case RK_IW_RTS:
		return RK_QPS_RTS;
	default:
		return RK_QPS_ERR;
	}
}

static void
stream_close(struct rk_context *ctx, struct rk_iw_vqp *v)
{
	if (!v->stream_open)
		return;
	ctx->sops->close(v->stream);
	v->stream_open = false;
	v->off = v->len = 0;
}

/* The LLP ended or was ended by us: the engine flushes what is outstanding. */
static void
stream_end(struct rk_context *ctx, struct rk_iw_vqp *v)
{
	stream_close(ctx, v);
	rk_iw_llp_closed(v->eng);
}

int
rk_qp_connect_stream(struct rk_qp *qp, void *stream, const struct rk_iw_conn_attr *conn)
{
	struct rk_iw_qp_init_attr ia;
	struct rk_context *ctx;
	struct rk_iw_vqp *v;

	if (qp == NULL || conn == NULL || qp->iw == NULL)
		return -EINVAL;
	v = qp->iw;
	ctx = qp->context;
	if (v->eng != NULL || v->state == RK_QPS_ERR)
		return -EINVAL;
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = qp->send_cq->iw;
	ia.recv_cq = qp->recv_cq->iw;
	ia.cap = v->cap;
	ia.sq_sig_all = v->sq_sig_all;
	ia.conn = *conn;
	/* RFC 6581 IRD/ORD: the QP's responder resources and initiator depth. */
	ia.conn.ird = v->ird;
	ia.conn.ord = v->ord;
	ia.qp_context = qp->qp_context;
	ia.qp_num = qp->qp_num;
	v->eng = rk_iw_qp_create(qp->pd->iw, &ia, ctx->sops->now_ns(ctx->env));
	if (v->eng == NULL)
		return errno == ENOMEM ? -ENOMEM : -EINVAL;
	v->stream = stream;
	v->stream_open = true;
	v->next = ctx->iw_qps;
	ctx->iw_qps = v;
	qp->state = vi_state(v);
	return 0;
}

struct rk_iw_qp *
rk_qp_iw(const struct rk_qp *qp)
{
	return qp != NULL && qp->iw != NULL ? qp->iw->eng : NULL;
}

int
rk_vi_modify_qp(struct rk_qp *qp, struct rk_qp_attr *attr, int attr_mask)
{
	const int ignored = RK_QP_ACCESS_FLAGS | RK_QP_PKEY_INDEX | RK_QP_PORT;
	const int rd = RK_QP_MAX_QP_RD_ATOMIC | RK_QP_MAX_DEST_RD_ATOMIC;
	struct rk_iw_vqp *v = qp->iw;

	if (attr == NULL || (attr_mask & ~(RK_QP_STATE | ignored | rd)) != 0)
		return -EINVAL;
	if ((attr_mask & RK_QP_STATE) && attr->qp_state == RK_QPS_ERR) {
		if (v->eng != NULL && v->stream_open)
			stream_end(qp->context, v);
		v->state = RK_QPS_ERR;
		qp->state = RK_QPS_ERR;
		return 0;
	}
	/* The connection, not modify, takes the QP to RTR/RTS (rdma_cm's way). */
	if (v->eng != NULL)
		return -EINVAL;
	if ((attr_mask & RK_QP_STATE) &&
	    (attr->qp_state != RK_QPS_INIT || (v->state != RK_QPS_RESET && v->state != RK_QPS_INIT)))
		return -EINVAL;
	if (((attr_mask & RK_QP_MAX_QP_RD_ATOMIC) && attr->max_rd_atomic > RK_IW_MAX_IRD_ORD) ||
	    ((attr_mask & RK_QP_MAX_DEST_RD_ATOMIC) &&
	     attr->max_dest_rd_atomic > RK_IW_MAX_IRD_ORD))
		return -EINVAL;
	if (attr_mask & RK_QP_MAX_QP_RD_ATOMIC)
		v->ord = attr->max_rd_atomic;
	if (attr_mask & RK_QP_MAX_DEST_RD_ATOMIC)
		v->ird = attr->max_dest_rd_atomic;
	if (attr_mask & RK_QP_ACCESS_FLAGS)
		v->access = attr->qp_access_flags;
	if (attr_mask & RK_QP_STATE)
		v->state = RK_QPS_INIT;
	qp->state = v->state;
	return 0;
}

int
rk_vi_query_qp(struct rk_qp *qp, struct rk_qp_attr *attr, struct rk_qp_init_attr *init_attr)
{
	struct rk_iw_vqp *v = qp->iw;
	const struct rk_iw_negotiated *neg = v->eng != NULL ? rk_iw_qp_negotiated(v->eng) : NULL;

	memset(attr, 0, sizeof(*attr));
	attr->qp_state = attr->cur_qp_state = vi_state(v);
	attr->qp_access_flags = v->access;
	attr->cap = v->cap;
	attr->max_rd_atomic = neg != NULL ? (uint8_t)neg->ord : v->ord;
	attr->max_dest_rd_atomic = neg != NULL ? (uint8_t)neg->ird : v->ird;
	qp->state = attr->qp_state;
	if (init_attr != NULL) {
		memset(init_attr, 0, sizeof(*init_attr));
		init_attr->qp_context = qp->qp_context;
		init_attr->send_cq = qp->send_cq;
		init_attr->recv_cq = qp->recv_cq;
		init_attr->cap = v->cap;
		init_attr->qp_type = RK_QPT_RC;
		init_attr->sq_sig_all = v->sq_sig_all;
	}
	return 0;
}

int
rk_vi_destroy_qp(struct rk_qp *qp)
{
	struct rk_context *ctx = qp->context;
	struct rk_iw_vqp *v = qp->iw, **pp;

	if (v->eng != NULL) {
		for (pp = &ctx->iw_qps; *pp != NULL; pp = &(*pp)->next) {
			if (*pp == v) {
				*pp = v->next;
				break;
			}
		}
		stream_close(ctx, v);
		rk_iw_qp_destroy(v->eng);
	}
	qp->pd->iw_users--;
	qp->send_cq->iw_users--;
	qp->recv_cq->iw_users--;
	ctx->live--;
	free(v);
	free(qp);
	return 0;
}

/* Hand the engine's bytes to the stream; what it does not take waits in the stage. */
static long
pump_tx(struct rk_context *ctx, struct rk_iw_vqp *v, uint64_t now)
{
	long moved = 0, n;

	if (!v->stream_open)
		return 0;
	for (;;) {
		if (v->off == v->len) {
			v->off = v->len = 0;
			v->len = (uint32_t)rk_iw_tx(v->eng, v->stage, sizeof(v->stage), now);
			if (v->len == 0)
				break;
		}
		n = ctx->sops->send(v->stream, v->stage + v->off, v->len - v->off);
		if (n < 0) {
			stream_end(ctx, v);
			return moved;
		}
		if (n == 0)
			break;
		v->off += (uint32_t)n;
		v->moved += (uint64_t)n;
		moved += n;
	}
	/* After a Terminate or MPA reject went out in full (RFC 5040 5). */
	if (v->off == v->len && rk_iw_want_close(v->eng))
		stream_end(ctx, v);
	return moved;
}

static long
pump(struct rk_context *ctx, struct rk_iw_vqp *v, uint64_t now)
{
	long moved = 0, n = 0;

	if (!v->stream_open) {
		rk_iw_timers(v->eng, now);
		return 0;
	}
	while (moved < (long)IW_RX_BUDGET) {
		n = ctx->sops->recv(v->stream, ctx->iw_rxbuf, IW_RXBUF);
		if (n <= 0)
			break;
		moved += n;
		v->moved += (uint64_t)n;
		if (rk_iw_rx(v->eng, ctx->iw_rxbuf, (size_t)n, now) == -EPIPE)
			break;
	}
	if (n < 0) {
		stream_end(ctx, v);
		return moved;
	}
	rk_iw_timers(v->eng, now);
	return moved + pump_tx(ctx, v, now);
}

int
rk_vi_progress(struct rk_context *ctx)
{
	uint64_t now = ctx->sops->now_ns(ctx->env);
	long moved = 0;

	for (struct rk_iw_vqp *v = ctx->iw_qps; v != NULL; v = v->next) {
		moved += pump(ctx, v, now);
		v->vqp->state = vi_state(v);
	}
	return moved > INT_MAX ? INT_MAX : (int)moved;
}

uint64_t
rk_vi_next_event_ns(struct rk_context *ctx)
{
	uint64_t now = ctx->sops->now_ns(ctx->env);

	for (struct rk_iw_vqp *v = ctx->iw_qps; v != NULL; v = v->next) {
		if (!v->stream_open)
			continue;
		if (v->off < v->len || rk_iw_tx_pending(v->eng) || rk_iw_want_close(v->eng))
			return now;
	}
	return UINT64_MAX;
}

int
rk_vi_post_send(struct rk_qp *qp, struct rk_send_wr *wr, struct rk_send_wr **bad_wr)
{
	const struct rk_send_wr *bad = NULL;
	struct rk_iw_vqp *v = qp->iw;
	int rc;

	if (v->eng == NULL) {
		if (bad_wr != NULL)
			*bad_wr = wr;
		return -EINVAL;
	}
	rc = rk_iw_post_send(v->eng, wr, &bad);
	if (rc != 0 && bad_wr != NULL)
		*bad_wr = (struct rk_send_wr *)(uintptr_t)bad;
	/* The doorbell: hand out what the stream takes now. */
	pump_tx(qp->context, v, qp->context->sops->now_ns(qp->context->env));
	qp->state = vi_state(v);
	return rc;
}

int
rk_vi_post_recv(struct rk_qp *qp, struct rk_recv_wr *wr, struct rk_recv_wr **bad_wr)
{
	const struct rk_recv_wr *bad = NULL;
	struct rk_iw_vqp *v = qp->iw;
	int rc;

	if (v->eng == NULL) {
		if (bad_wr != NULL)
			*bad_wr = wr;
		return -EINVAL;
	}
	rc = rk_iw_post_recv(v->eng, wr, &bad);
	if (rc != 0 && bad_wr != NULL)
		*bad_wr = (struct rk_recv_wr *)(uintptr_t)bad;
	return rc;
}

uint64_t
rk_vi_qp_progress(const struct rk_qp *qp)
{
	return qp->iw->moved;
}

const struct rk_iw_stats *
rk_context_iw_stats(const struct rk_context *ctx)
{
	if (ctx == NULL || ctx->transport != RK_TRANSPORT_TYPE_IWARP)
		return NULL;
	return rk_iw_dev_stats(ctx->iw);
}
