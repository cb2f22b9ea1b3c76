/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RoCE transport of the verbs API: handles joined to lib/ib objects,
 * and the progress loop joining the engine to an I/O backend (struct
 * rk_io_ops).
 */
#include "rk_verbs_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define RX_BUDGET 256
#define TX_BUDGET 256

struct roce_ctx {
	struct rk_vctx v;
	const struct rk_io_ops *ops;
	void *io;
	struct rk_ib_dev *dev;
	uint64_t rx_frames, tx_frames, tx_errors;
	uint8_t *tx_lent;               /* buffer lent by tx_frame() for the frame being built */
	bool quiet;                     /* the last full progress pass sent nothing */
	bool tx_blocked;                /* the last transmit pass found the device ring full */
	uint32_t quiet_polls;           /* empty polls while quiet (every 4th is full) */
	uint32_t nqp;                   /* QPs of the context: the timer scan's cost */
	uint64_t timers_next_ns;        /* many QPs: the next timer scan */
	uint8_t rxbuf[RK_IB_MAX_FRAME + 256];
};

/* Many QPs: how many, and the interval per QP between two timer scans. */
#define TIMER_SCAN_QPS 64
#define TIMER_SCAN_NS 50

struct roce_qp {
	struct rk_vqp v;
	struct rk_ib_qp *ib;
};

/* rk_verbs_open() allocates the context and rk_close_device() frees it by v. */
_Static_assert(offsetof(struct roce_ctx, v) == 0, "struct rk_vctx first");

static struct roce_ctx *
roce_ctx(const struct rk_context *ctx)
{
	return rk_container_of(rk_vctx(ctx), struct roce_ctx, v);
}

static struct roce_qp *
roce_qp(const struct rk_vqp *qp)
{
	return rk_container_of(qp, struct roce_qp, v);
}

struct rk_context *
rk_open_device(const struct rk_io_ops *ops, void *io, const struct rk_device_attr *attr)
{
	struct rk_vctx *v;
	struct roce_ctx *ctx;

	if (ops == NULL || ops->tx == NULL || ops->rx == NULL || ops->now_ns == NULL ||
	    attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	v = rk_verbs_open(&rk_roce_transport_ops, sizeof(*ctx), attr);
	if (v == NULL)
		return NULL;
	ctx = rk_container_of(v, struct roce_ctx, v);
	ctx->ops = ops;
	ctx->io = io;
	return &v->pub;
}

static int
roce_open_device(struct rk_vctx *v, const struct rk_device_attr *attr, uint64_t key_seed)
{
	struct rk_ib_dev_attr da = {
		.ip_version = attr->ip_version,
		.max_qp = attr->max_qp,
		.max_mr = attr->max_mr,
		.max_inflight_pkts = attr->max_inflight_pkts,
		.active_mtu = attr->active_mtu,
		.ack_delay_ns = attr->ack_delay_ns,
		.key_seed = key_seed,
	};
	struct roce_ctx *ctx = rk_container_of(v, struct roce_ctx, v);

	memcpy(da.mac, attr->mac, 6);
	memcpy(da.ip, attr->ip, 16);
	ctx->dev = rk_ib_dev_create(&da);
	return rk_verbs_created(ctx->dev);
}

/* roce_close_device, roce_alloc_pd, roce_dealloc_pd, roce_create_cq, roce_destroy_cq */
RK_VERBS_ENGINE_OPS(roce, rk_ib, struct roce_ctx, dev, ib)

static int
roce_reg_mr(struct rk_vpd *pd, struct rk_vmr *mr, unsigned int access)
{
	mr->ib = rk_ib_mr_reg(pd->ib, mr->pub.addr, mr->pub.length, access);
	if (mr->ib == NULL)
		return rk_verbs_created(NULL);
	mr->pub.lkey = rk_ib_mr_lkey(mr->ib);
	mr->pub.rkey = rk_ib_mr_rkey(mr->ib);
	return 0;
}

static int
roce_dereg_mr(struct rk_vmr *mr)
{
	return rk_ib_mr_dereg(mr->ib);
}

static int roce_progress(struct rk_vctx *v);

static int
roce_poll_cq(struct rk_vcq *cq, int num, struct rk_wc *wc)
{
	/* Enough waiting already: hand them over now, progress on the next call. */
	if (num <= 0 || rk_ib_cq_count(cq->ib) < (uint32_t)num)
		roce_progress(rk_vctx(cq->pub.context));
	return rk_ib_cq_poll(cq->ib, num, wc);
}

static int
roce_create_srq(struct rk_vpd *pd, struct rk_vsrq *srq, const struct rk_srq_init_attr *attr)
{
	srq->ib = rk_ib_srq_create(pd->ib, attr->attr.max_wr, attr->attr.max_sge);
	return rk_verbs_created(srq->ib);
}

static int
roce_destroy_srq(struct rk_vsrq *srq)
{
	return rk_ib_srq_destroy(srq->ib);
}

static int
roce_post_srq_recv(struct rk_vsrq *srq, struct rk_recv_wr *wr, const struct rk_recv_wr **bad)
{
	roce_ctx(srq->pub.context)->quiet = false;
	return rk_ib_srq_post_recv(srq->ib, wr, bad);
}

/* A live object: its PD cannot be freed, nor the device closed (ibv_dealloc_pd). */
static int
roce_create_ah(struct rk_vpd *pd, struct rk_ah *ah)
{
	(void)ah;
	rk_ib_pd_hold(pd->ib);
	return 0;
}

static void
roce_destroy_ah(struct rk_vpd *pd, struct rk_ah *ah)
{
	(void)ah;
	rk_ib_pd_release(pd->ib);
}

static struct rk_vqp *
roce_create_qp(struct rk_vpd *pd, const struct rk_qp_init_attr *attr)
{
	struct rk_ib_qp_init_attr ia = {
		.send_cq = rk_vcq(attr->send_cq)->ib,
		.recv_cq = rk_vcq(attr->recv_cq)->ib,
		.srq = attr->srq != NULL ? rk_vsrq(attr->srq)->ib : NULL,
		.cap = attr->cap,
		.qp_type = attr->qp_type,
		.sq_sig_all = attr->sq_sig_all,
		.qp_context = attr->qp_context,
	};
	struct roce_qp *qp = calloc(1, sizeof(*qp));

	if (qp == NULL)
		return NULL;
	qp->ib = rk_ib_qp_create(pd->ib, &ia);
	if (qp->ib == NULL) {
		int e = errno;

		free(qp);
		errno = e;
		return NULL;
	}
	qp->v.pub.qp_num = rk_ib_qp_num(qp->ib);
	roce_ctx(pd->pub.context)->nqp++;
	return &qp->v;
}


/* The largest path MTU the link carries; RK_MTU_4096 when it is not known. */
static enum rk_mtu
link_mtu(const struct roce_ctx *ctx)
{
	uint32_t ip_mtu = ctx->ops->mtu != NULL ? ctx->ops->mtu(ctx->io) : 0;
	enum rk_mtu m = RK_MTU_4096;

	if (ip_mtu == 0)
		return RK_MTU_4096;
	while (m > RK_MTU_256 && ip_mtu < (128u << m) + RK_ROCE_HDR_RESERVE)
		m--;
	return m;
}

static int
roce_modify_qp(struct rk_vqp *v, struct rk_qp_attr *attr, int attr_mask)
{
	struct roce_qp *qp = roce_qp(v);
	int rc;

	/* A path MTU larger than the port carries is refused (rxe: -EINVAL). */
	if (attr != NULL && (attr_mask & RK_QP_PATH_MTU) && attr->path_mtu >= RK_MTU_256 &&
	    attr->path_mtu <= RK_MTU_4096 && attr->path_mtu > link_mtu(roce_ctx(v->pub.context)))
		return -EINVAL;
	roce_ctx(v->pub.context)->quiet = false;
	rc = rk_ib_qp_modify(qp->ib, attr, attr_mask);
	v->pub.state = rk_ib_qp_state(qp->ib);
	return rc;
}

static int
roce_query_qp(struct rk_vqp *v, struct rk_qp_attr *attr, int attr_mask,
	      struct rk_qp_init_attr *init_attr)
{
	int rc = rk_ib_qp_query(roce_qp(v)->ib, attr, attr_mask);

	if (init_attr != NULL) {
		init_attr->cap = attr->cap;
		init_attr->sq_sig_all = 0;
	}
	return rc;
}

static void
roce_destroy_qp(struct rk_vqp *v)
{
	struct roce_qp *qp = roce_qp(v);

	roce_ctx(v->pub.context)->quiet = false;
	roce_ctx(v->pub.context)->nqp--;
	rk_ib_qp_destroy(qp->ib);
	free(qp);
}

static void
emit_tx(void *arg, const uint8_t *frame, uint32_t len)
{
	struct roce_ctx *ctx = arg;

	if (ctx->ops->tx(ctx->io, frame, len) < 0)
		ctx->tx_errors++;
	else
		ctx->tx_frames++;
}

static uint8_t *
frame_tx(void *arg)
{
	struct roce_ctx *ctx = arg;

	ctx->tx_lent = ctx->ops->tx_frame(ctx->io);
	return ctx->tx_lent;
}

/* Frames built in the backend's buffers (tx_frame) are committed, not copied. */
static void
emit_commit(void *arg, const uint8_t *frame, uint32_t len)
{
	struct roce_ctx *ctx = arg;
	int rc;

	/* The backend lent no buffer: the engine built it in its own. */
	if (ctx->tx_lent == NULL || frame != ctx->tx_lent)
		rc = ctx->ops->tx(ctx->io, frame, len);
	else
		rc = ctx->ops->tx_commit(ctx->io, ctx->tx_lent, len);
	ctx->tx_lent = NULL;
	if (rc < 0)
		ctx->tx_errors++;
	else
		ctx->tx_frames++;
}

/* A frame whose payload stays in registered memory (rk_ib_poll_tx_sg). */
static void
emit_commit_sg(void *arg, const uint8_t *frame, uint32_t hdr_len, const uint8_t *payload,
	       uint32_t plen, const uint8_t *trailer, uint32_t tlen)
{
	struct roce_ctx *ctx = arg;
	int rc;

	if (ctx->tx_lent != NULL && frame == ctx->tx_lent) {
		rc = ctx->ops->tx_commit_sg(ctx->io, ctx->tx_lent, hdr_len, payload, plen, trailer,
					    tlen);
	} else if ((size_t)hdr_len + plen + tlen <= sizeof(ctx->rxbuf)) {
		/* No lent buffer: put the pieces together (rxbuf is idle while sending). */
		memcpy(ctx->rxbuf, frame, hdr_len);
		memcpy(ctx->rxbuf + hdr_len, payload, plen);
		memcpy(ctx->rxbuf + hdr_len + plen, trailer, tlen);
		rc = ctx->ops->tx(ctx->io, ctx->rxbuf, hdr_len + plen + tlen);
	} else {
		rc = -EMSGSIZE;
	}
	ctx->tx_lent = NULL;
	if (rc < 0)
		ctx->tx_errors++;
	else
		ctx->tx_frames++;
}

static unsigned int
transmit(struct roce_ctx *ctx, uint64_t now)
{
	unsigned int budget = TX_BUDGET, n;

	/* A full device ring: leave the frames in the engine, not on the floor. */
	ctx->tx_blocked = false;
	if (ctx->ops->tx_room != NULL) {
		unsigned int room = ctx->ops->tx_room(ctx->io);

		if (room < budget)
			budget = room;
		if (budget == 0) {
			ctx->tx_blocked = true;
			return 0;
		}
	}
	if (ctx->ops->tx_frame != NULL && ctx->ops->tx_commit != NULL)
		n = rk_ib_poll_tx_sg(ctx->dev, now, frame_tx, emit_commit,
				     ctx->ops->tx_commit_sg != NULL ? emit_commit_sg : NULL, ctx,
				     budget);
	else
		n = rk_ib_poll_tx(ctx->dev, now, emit_tx, ctx, budget);

	/* Burst backends hold tx() frames until the batch ends. */
	if (n > 0 && ctx->ops->flush != NULL)
		ctx->ops->flush(ctx->io);
	return n;
}

static int
roce_post_send(struct rk_vqp *v, struct rk_send_wr *wr, const struct rk_send_wr **bad)
{
	struct roce_ctx *ctx = roce_ctx(v->pub.context);
	int rc;

	ctx->quiet = false;
	rc = rk_ib_post_send(roce_qp(v)->ib, wr, bad);
	/*
	 * The doorbell: send what the window allows now. A transmit pass
	 * visits every QP, so beyond TIMER_SCAN_QPS of them the next
	 * progress pass sends instead (one visit for many posts).
	 */
	if (ctx->nqp <= TIMER_SCAN_QPS)
		transmit(ctx, ctx->ops->now_ns(ctx->io));
	return rc;
}

static int
roce_post_recv(struct rk_vqp *v, struct rk_recv_wr *wr, const struct rk_recv_wr **bad)
{
	roce_ctx(v->pub.context)->quiet = false;
	return rk_ib_post_recv(roce_qp(v)->ib, wr, bad);
}

static int
roce_progress(struct rk_vctx *v)
{
	struct roce_ctx *ctx = rk_container_of(v, struct roce_ctx, v);
	uint64_t now = 0;
	int n = 0, len;
	unsigned int k;

	if (ctx->ops->rx_view != NULL && ctx->ops->rx_done != NULL) {
		const uint8_t *f;

		/* Parsed where the backend received it: no copy. */
		while (n < RX_BUDGET && (len = ctx->ops->rx_view(ctx->io, &f)) > 0) {
			struct rk_pkt pkt;

			if (now == 0)
				now = ctx->ops->now_ns(ctx->io);
			ctx->rx_frames++;
			if (rk_pkt_parse(&pkt, f, (uint32_t)len, (uint32_t)len,
					 RK_LINK_ETHERNET, NULL) == 0)
				rk_ib_rx(ctx->dev, &pkt, now);
			ctx->ops->rx_done(ctx->io);
			n++;
		}
	} else {
		while (n < RX_BUDGET &&
		       (len = ctx->ops->rx(ctx->io, ctx->rxbuf, sizeof(ctx->rxbuf))) > 0) {
			struct rk_pkt pkt;

			if (now == 0)
				now = ctx->ops->now_ns(ctx->io);
			ctx->rx_frames++;
			if (rk_pkt_parse(&pkt, ctx->rxbuf, (uint32_t)len, (uint32_t)len,
					 RK_LINK_ETHERNET, NULL) == 0)
				rk_ib_rx(ctx->dev, &pkt, now);
			n++;
		}
	}
	/*
	 * Nothing came in and the last pass had nothing to send: three empty
	 * polls in four skip the clock (an rdtsc costs as much as the rest of
	 * an empty poll here), the timers and the transmit pass. A timer is
	 * then seen at most three polls late, never early; the verbs calls
	 * that make work (post, modify) end the quiet at once.
	 */
	if (n == 0 && ctx->quiet && (++ctx->quiet_polls & 3) != 0)
		return 0;
	if (now == 0)
		now = ctx->ops->now_ns(ctx->io);
	/*
	 * The timer scan visits every QP: beyond TIMER_SCAN_QPS of them it
	 * runs once per nqp * TIMER_SCAN_NS (4096 QPs: every 205 us), so a
	 * timer fires up to that late (never early) and the scan stays a
	 * small part of a pass that moves frames.
	 */
	if (ctx->nqp <= TIMER_SCAN_QPS || now >= ctx->timers_next_ns) {
		rk_ib_timers(ctx->dev, now);
		ctx->timers_next_ns = now + (uint64_t)ctx->nqp * TIMER_SCAN_NS;
	}
	k = transmit(ctx, now);
	ctx->quiet = k == 0 && !ctx->tx_blocked;
	return n + (int)k;
}

static uint64_t
roce_next_event_ns(struct rk_vctx *v)
{
	struct roce_ctx *ctx = rk_container_of(v, struct roce_ctx, v);
	uint64_t now;

	/* Asked when to poll next: that poll must be a full one. */
	ctx->quiet = false;
	now = ctx->ops->now_ns(ctx->io);
	if (rk_ib_tx_pending(ctx->dev, now))
		return now;
	return rk_ib_next_timer(ctx->dev);
}

static const struct rk_ib_stats *
roce_stats(const struct rk_vctx *v)
{
	return rk_ib_dev_stats(rk_container_of(v, struct roce_ctx, v)->dev);
}

static int
roce_qp_counters(const struct rk_vqp *v, struct rk_counter *out, unsigned int max)
{
	return (int)rk_counters_from_stats(rk_ib_qp_stats(roce_qp(v)->ib), out, max);
}

static uint64_t
roce_qp_progress(const struct rk_vqp *v)
{
	const struct rk_ib_stats *s = rk_ib_qp_stats(roce_qp(v)->ib);

	return s->comp_acked_pkts + s->resp_send_reqs + s->resp_write_reqs + s->resp_read_reqs +
	       s->resp_atomic_reqs;
}

struct rk_ib_dev *
rk_context_ib(const struct rk_context *ctx)
{
	if (ctx == NULL || rk_vctx(ctx)->ops != &rk_roce_transport_ops)
		return NULL;
	return roce_ctx(ctx)->dev;
}

struct rk_ib_qp *
rk_qp_ib(const struct rk_qp *qp)
{
	if (qp == NULL || rk_vctx(qp->context)->ops != &rk_roce_transport_ops)
		return NULL;
	return roce_qp(rk_vqp(qp))->ib;
}

const struct rk_transport_ops rk_roce_transport_ops = {
	.name = "roce",
	.type = RK_TRANSPORT_TYPE_IB,
	.open_device = roce_open_device,
	.close_device = roce_close_device,
	.alloc_pd = roce_alloc_pd,
	.dealloc_pd = roce_dealloc_pd,
	.reg_mr = roce_reg_mr,
	.dereg_mr = roce_dereg_mr,
	.create_cq = roce_create_cq,
	.destroy_cq = roce_destroy_cq,
	.poll_cq = roce_poll_cq,
	.create_srq = roce_create_srq,
	.destroy_srq = roce_destroy_srq,
	.post_srq_recv = roce_post_srq_recv,
	.create_ah = roce_create_ah,
	.destroy_ah = roce_destroy_ah,
	.create_qp = roce_create_qp,
	.modify_qp = roce_modify_qp,
	.query_qp = roce_query_qp,
	.destroy_qp = roce_destroy_qp,
	.post_send = roce_post_send,
	.post_recv = roce_post_recv,
	.progress = roce_progress,
	.next_event_ns = roce_next_event_ns,
	.stats = roce_stats,
	.qp_counters = roce_qp_counters,
	.qp_progress = roce_qp_progress,
};
