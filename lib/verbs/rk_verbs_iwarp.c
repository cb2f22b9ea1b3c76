/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The iWARP transport of the verbs API: the handles joined to rk_iw_*
 * objects, and the progress loop moving bytes between each QP and its
 * stream (one QP, one MPA/TCP connection, RFC 5044).
 */
#include "rk_verbs_priv.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Bytes read from one stream per progress pass, so one busy QP cannot starve the rest. */
#define IW_RX_BUDGET (1u << 20)

struct iwarp_ctx {
	struct rk_vctx v;
	const struct rk_stream_ops *sops;
	void *env;
	struct rk_iw_dev *iw;
	struct iwarp_qp *qps;           /* QPs with a stream attached */
	uint32_t next_qpn;
};

struct iwarp_qp {
	struct rk_vqp v;
	struct iwarp_qp *next;          /* ctx->qps, once connected */
	struct rk_iw_qp *eng;           /* NULL until rk_qp_connect_stream() */
	enum rk_qp_state state;         /* before connecting: RESET, INIT or ERR */
	uint8_t ird, ord;               /* 0: engine default */
	unsigned int access;
	struct rk_qp_cap cap;
	int sq_sig_all;
	struct rk_iw_link link;         /* the stream, once connected */
};

/* rk_verbs_open() allocates the context and rk_close_device() frees it by v. */
_Static_assert(offsetof(struct iwarp_ctx, v) == 0, "struct rk_vctx first");

static struct iwarp_ctx *
iwarp_ctx(const struct rk_context *ctx)
{
	return rk_container_of(rk_vctx(ctx), struct iwarp_ctx, v);
}

static struct iwarp_qp *
iwarp_qp(const struct rk_vqp *qp)
{
	return rk_container_of(qp, struct iwarp_qp, v);
}

struct rk_context *
rk_open_device_iwarp(const struct rk_stream_ops *ops, void *env, const struct rk_device_attr *attr)
{
	struct rk_vctx *v;
	struct iwarp_ctx *ctx;

	if (ops == NULL || ops->send == NULL || ops->recv == NULL || ops->close == NULL ||
	    ops->now_ns == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	v = rk_verbs_open(&rk_iwarp_transport_ops, sizeof(*ctx), attr);
	if (v == NULL)
		return NULL;
	ctx = rk_container_of(v, struct iwarp_ctx, v);
	ctx->sops = ops;
	ctx->env = env;
	return &v->pub;
}

static int
iwarp_open_device(struct rk_vctx *v, const struct rk_device_attr *attr, uint64_t key_seed)
{
	struct rk_iw_dev_attr da = { .max_mr = attr->max_mr, .key_seed = key_seed };
	struct iwarp_ctx *ctx = rk_container_of(v, struct iwarp_ctx, v);

	ctx->iw = rk_iw_dev_create(&da);
	return rk_verbs_created(ctx->iw);
}

/* iwarp_close_device, iwarp_alloc_pd, iwarp_dealloc_pd, iwarp_create_cq, iwarp_destroy_cq */
RK_VERBS_ENGINE_OPS(iwarp, rk_iw, struct iwarp_ctx, iw, iw)

static int
iwarp_reg_mr(struct rk_vpd *pd, struct rk_vmr *mr, unsigned int access)
{
	mr->pub.iw = rk_iw_mr_reg(pd->iw, mr->pub.addr, mr->pub.length, access);
	if (mr->pub.iw == NULL)
		return rk_verbs_created(NULL);
	/* One STag names the region locally and remotely (RFC 5040 2.x, siw). */
	mr->pub.lkey = mr->pub.rkey = rk_iw_mr_stag(mr->pub.iw);
	return 0;
}

static int
iwarp_dereg_mr(struct rk_vmr *mr)
{
	return rk_iw_mr_dereg(mr->pub.iw);
}

static int iwarp_progress(struct rk_vctx *v);

static int
iwarp_poll_cq(struct rk_vcq *cq, int num, struct rk_wc *wc)
{
	int n, m;

	if (num <= 0) {
		iwarp_progress(rk_vctx(cq->pub.context));
		return 0;
	}
	n = rk_iw_cq_poll(cq->iw, num, wc);
	if (n < 0 || n == num)
		return n;
	iwarp_progress(rk_vctx(cq->pub.context));
	m = rk_iw_cq_poll(cq->iw, num - n, wc + n);
	return m < 0 ? m : n + m;
}

static struct rk_vqp *
iwarp_create_qp(struct rk_vpd *pd, const struct rk_qp_init_attr *attr)
{
	struct iwarp_ctx *ctx = iwarp_ctx(pd->pub.context);
	struct iwarp_qp *v;

	if (attr->qp_type != RK_QPT_RC || attr->srq != NULL) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->send_cq->context != pd->pub.context ||
	    attr->recv_cq->context != pd->pub.context ||
	    attr->cap.max_send_wr == 0 || attr->cap.max_send_wr > 65536 ||
	    attr->cap.max_recv_wr == 0 || attr->cap.max_recv_wr > 65536 ||
	    attr->cap.max_send_sge > RK_IW_MAX_SGE || attr->cap.max_recv_sge > RK_IW_MAX_SGE) {
		errno = EINVAL;
		return NULL;
	}
	v = calloc(1, sizeof(*v));
	if (v == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	v->state = RK_QPS_RESET;
	v->cap = attr->cap;
	v->sq_sig_all = attr->sq_sig_all;
	v->v.pub.qp_num = ++ctx->next_qpn & 0xffffff;
	return &v->v;
}

static enum rk_qp_state
vi_state(const struct iwarp_qp *v)
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

static int
iwarp_connect_stream(struct rk_vqp *vq, void *stream, const struct rk_iw_conn_attr *conn)
{
	struct iwarp_ctx *ctx = iwarp_ctx(vq->pub.context);
	struct iwarp_qp *v = iwarp_qp(vq);
	struct rk_qp *qp = &vq->pub;
	struct rk_iw_qp_init_attr ia;

	if (v->eng != NULL || v->state == RK_QPS_ERR)
		return -EINVAL;
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = rk_vcq(qp->send_cq)->iw;
	ia.recv_cq = rk_vcq(qp->recv_cq)->iw;
	ia.cap = v->cap;
	ia.sq_sig_all = v->sq_sig_all;
	ia.conn = *conn;
	/* RFC 6581 IRD/ORD: the QP's responder resources and initiator depth. */
	ia.conn.ird = v->ird;
	ia.conn.ord = v->ord;
	ia.qp_context = qp->qp_context;
	ia.qp_num = qp->qp_num;
	v->eng = rk_iw_qp_create(rk_vpd(qp->pd)->iw, &ia, ctx->sops->now_ns(ctx->env));
	if (v->eng == NULL)
		return errno == ENOMEM ? -ENOMEM : -EINVAL;
	rk_iw_link_init(&v->link, v->eng, ctx->sops, stream);
	v->next = ctx->qps;
	ctx->qps = v;
	qp->state = vi_state(v);
	return 0;
}

static struct rk_iw_qp *
iwarp_qp_iw(const struct rk_vqp *qp)
{
	return iwarp_qp(qp)->eng;
}

static int
iwarp_modify_qp(struct rk_vqp *vq, struct rk_qp_attr *attr, int attr_mask)
{
	const int ignored = RK_QP_ACCESS_FLAGS | RK_QP_PKEY_INDEX | RK_QP_PORT;
	const int rd = RK_QP_MAX_QP_RD_ATOMIC | RK_QP_MAX_DEST_RD_ATOMIC;
	struct iwarp_qp *v = iwarp_qp(vq);

	if (attr == NULL || (attr_mask & ~(RK_QP_STATE | ignored | rd)) != 0)
		return -EINVAL;
	if ((attr_mask & RK_QP_STATE) && attr->qp_state == RK_QPS_ERR) {
		if (v->eng != NULL && !v->link.closed)
			rk_iw_link_end(&v->link);
		v->state = RK_QPS_ERR;
		vq->pub.state = RK_QPS_ERR;
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
	vq->pub.state = v->state;
	return 0;
}

static int
iwarp_query_qp(struct rk_vqp *vq, struct rk_qp_attr *attr, int attr_mask,
	       struct rk_qp_init_attr *init_attr)
{
	struct iwarp_qp *v = iwarp_qp(vq);
	const struct rk_iw_negotiated *neg = v->eng != NULL ? rk_iw_qp_negotiated(v->eng) : NULL;

	(void)attr_mask;
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = attr->cur_qp_state = vi_state(v);
	attr->qp_access_flags = v->access;
	attr->cap = v->cap;
	attr->max_rd_atomic = neg != NULL ? (uint8_t)neg->ord : v->ord;
	attr->max_dest_rd_atomic = neg != NULL ? (uint8_t)neg->ird : v->ird;
	if (init_attr != NULL) {
		memset(init_attr, 0, sizeof(*init_attr));
		init_attr->cap = v->cap;
		init_attr->sq_sig_all = v->sq_sig_all;
	}
	return 0;
}

static void
iwarp_destroy_qp(struct rk_vqp *vq)
{
	struct iwarp_ctx *ctx = iwarp_ctx(vq->pub.context);
	struct iwarp_qp *v = iwarp_qp(vq), **pp;

	if (v->eng != NULL) {
		for (pp = &ctx->qps; *pp != NULL; pp = &(*pp)->next) {
			if (*pp == v) {
				*pp = v->next;
				break;
			}
		}
		rk_iw_link_close(&v->link);
		rk_iw_qp_destroy(v->eng);
	}
	free(v);
}

/* One QP's round; a closed stream still runs the MPA set-up timer. */
static long
pump(struct iwarp_qp *v, uint64_t now)
{
	long n;

	if (v->link.closed) {
		rk_iw_timers(v->eng, now);
		return 0;
	}
	n = rk_iw_link_pump(&v->link, IW_RX_BUDGET, now);
	return n > 0 ? n : 0;
}

static int
iwarp_progress(struct rk_vctx *vc)
{
	struct iwarp_ctx *ctx = rk_container_of(vc, struct iwarp_ctx, v);
	uint64_t now = ctx->sops->now_ns(ctx->env);
	long moved = 0;

	for (struct iwarp_qp *v = ctx->qps; v != NULL; v = v->next) {
		moved += pump(v, now);
		v->v.pub.state = vi_state(v);
	}
	return moved > INT_MAX ? INT_MAX : (int)moved;
}

static uint64_t
iwarp_next_event_ns(struct rk_vctx *vc)
{
	struct iwarp_ctx *ctx = rk_container_of(vc, struct iwarp_ctx, v);
	uint64_t now = ctx->sops->now_ns(ctx->env);

	for (struct iwarp_qp *v = ctx->qps; v != NULL; v = v->next) {
		if (rk_iw_link_busy(&v->link))
			return now;
	}
	return UINT64_MAX;
}

/* Posting before rk_qp_connect_stream(): the first WR is refused. */
static int
iwarp_post_send(struct rk_vqp *vq, struct rk_send_wr *wr, const struct rk_send_wr **bad)
{
	struct iwarp_ctx *ctx = iwarp_ctx(vq->pub.context);
	struct iwarp_qp *v = iwarp_qp(vq);
	int rc;

	if (v->eng == NULL) {
		*bad = wr;
		return -EINVAL;
	}
	rc = rk_iw_post_send(v->eng, wr, bad);
	/* The doorbell: hand out what the stream takes now. */
	rk_iw_link_tx(&v->link, ctx->sops->now_ns(ctx->env));
	vq->pub.state = vi_state(v);
	return rc;
}

static int
iwarp_post_recv(struct rk_vqp *vq, struct rk_recv_wr *wr, const struct rk_recv_wr **bad)
{
	struct rk_iw_qp *eng = iwarp_qp(vq)->eng;

	if (eng == NULL) {
		*bad = wr;
		return -EINVAL;
	}
	return rk_iw_post_recv(eng, wr, bad);
}

static uint64_t
iwarp_qp_progress(const struct rk_vqp *vq)
{
	const struct iwarp_qp *v = iwarp_qp(vq);

	return v->eng != NULL ? v->link.rx_bytes + v->link.tx_bytes : 0;
}

static const struct rk_iw_stats *
iwarp_stats(const struct rk_vctx *v)
{
	return rk_iw_dev_stats(rk_container_of(v, struct iwarp_ctx, v)->iw);
}

/* No SRQs, AHs or per-QP counters (RFC 5040 has no such objects here). */
const struct rk_transport_ops rk_iwarp_transport_ops = {
	.name = "iwarp",
	.type = RK_TRANSPORT_TYPE_IWARP,
	.open_device = iwarp_open_device,
	.close_device = iwarp_close_device,
	.alloc_pd = iwarp_alloc_pd,
	.dealloc_pd = iwarp_dealloc_pd,
	.reg_mr = iwarp_reg_mr,
	.dereg_mr = iwarp_dereg_mr,
	.create_cq = iwarp_create_cq,
	.destroy_cq = iwarp_destroy_cq,
	.poll_cq = iwarp_poll_cq,
	.create_qp = iwarp_create_qp,
	.modify_qp = iwarp_modify_qp,
	.query_qp = iwarp_query_qp,
	.destroy_qp = iwarp_destroy_qp,
	.post_send = iwarp_post_send,
	.post_recv = iwarp_post_recv,
	.connect_stream = iwarp_connect_stream,
	.qp_iw = iwarp_qp_iw,
	.progress = iwarp_progress,
	.next_event_ns = iwarp_next_event_ns,
	.iw_stats = iwarp_stats,
	.qp_progress = iwarp_qp_progress,
};
