/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Verbs over the engine: thin wrappers that own the public handles, plus
 * the progress loop joining the engine to an I/O backend.
 */
#include "rk_verbs.h"
#include "rk_verbs_iw.h"
#include "rk_ib_xstats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define RX_BUDGET 256
#define TX_BUDGET 256

struct rk_context *
rk_open_device(const struct rk_io_ops *ops, void *io, const struct rk_device_attr *attr)
{
	struct rk_ib_dev_attr da = { 0 };
	struct rk_context *ctx;

	if (ops == NULL || ops->tx == NULL || ops->rx == NULL || ops->now_ns == NULL ||
	    attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	memcpy(da.mac, attr->mac, 6);
	memcpy(da.ip, attr->ip, 16);
	da.ip_version = attr->ip_version;
	da.max_qp = attr->max_qp;
	da.max_mr = attr->max_mr;
	da.max_inflight_pkts = attr->max_inflight_pkts;
	da.ack_delay_ns = attr->ack_delay_ns;
	da.key_seed = attr->key_seed;
	if (da.key_seed == 0 && getrandom(&da.key_seed, sizeof(da.key_seed), 0) !=
				(ssize_t)sizeof(da.key_seed)) {
		errno = EIO;
		return NULL;
	}
	ctx = calloc(1, sizeof(*ctx));
	if (ctx == NULL)
		return NULL;
	ctx->dev = rk_ib_dev_create(&da);
	if (ctx->dev == NULL) {
		int e = errno;

		free(ctx);
		errno = e;
		return NULL;
	}
	ctx->ops = ops;
	ctx->io = io;
	return ctx;
}

int
rk_close_device(struct rk_context *ctx)
{
	if (ctx == NULL)
		return -EINVAL;
	if (rk_vi_is(ctx))
		return rk_vi_close_device(ctx);
	if (ctx->live != 0)
		return -EBUSY;
	rk_ib_dev_destroy(ctx->dev);
	free(ctx);
	return 0;
}

struct rk_pd *
rk_alloc_pd(struct rk_context *ctx)
{
	struct rk_pd *pd;

	if (ctx == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (rk_vi_is(ctx))
		return rk_vi_alloc_pd(ctx);
	pd = calloc(1, sizeof(*pd));
	if (pd == NULL)
		return NULL;
	pd->ib = rk_ib_pd_alloc(ctx->dev);
	if (pd->ib == NULL) {
		free(pd);
		return NULL;
	}
	pd->context = ctx;
	ctx->live++;
	return pd;
}

int
rk_dealloc_pd(struct rk_pd *pd)
{
	int rc;

	if (pd == NULL)
		return -EINVAL;
	if (rk_vi_is(pd->context))
		return rk_vi_dealloc_pd(pd);
	rc = rk_ib_pd_free(pd->ib);
	if (rc == 0) {
		pd->context->live--;
		free(pd);
	}
	return rc;
}

struct rk_mr *
rk_reg_mr(struct rk_pd *pd, void *addr, size_t length, int access)
{
	struct rk_mr *mr;

	if (pd == NULL || access < 0) {
		errno = EINVAL;
		return NULL;
	}
	if (rk_vi_is(pd->context))
		return rk_vi_reg_mr(pd, addr, length, access);
	mr = calloc(1, sizeof(*mr));
	if (mr == NULL)
		return NULL;
	mr->ib = rk_ib_mr_reg(pd->ib, addr, length, (unsigned int)access);
	if (mr->ib == NULL) {
		int e = errno;

		free(mr);
		errno = e;
		return NULL;
	}
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	mr->lkey = rk_ib_mr_lkey(mr->ib);
	mr->rkey = rk_ib_mr_rkey(mr->ib);
	mr->context->live++;
	return mr;
}

int
rk_dereg_mr(struct rk_mr *mr)
{
	if (mr == NULL)
		return -EINVAL;
	if (rk_vi_is(mr->context))
		return rk_vi_dereg_mr(mr);
	rk_ib_mr_dereg(mr->ib);
	mr->context->live--;
	free(mr);
	return 0;
}

struct rk_cq *
rk_create_cq(struct rk_context *ctx, int cqe, void *cq_context)
{
	struct rk_cq *cq;

	if (ctx == NULL || cqe <= 0) {
		errno = EINVAL;
		return NULL;
	}
	if (rk_vi_is(ctx))
		return rk_vi_create_cq(ctx, cqe, cq_context);
	cq = calloc(1, sizeof(*cq));
	if (cq == NULL)
		return NULL;
	cq->ib = rk_ib_cq_create(ctx->dev, (uint32_t)cqe);
	if (cq->ib == NULL) {
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
rk_destroy_cq(struct rk_cq *cq)
{
	int rc;

	if (cq == NULL)
		return -EINVAL;
	if (rk_vi_is(cq->context))
		return rk_vi_destroy_cq(cq);
	rc = rk_ib_cq_destroy(cq->ib);
	if (rc == 0) {
		cq->context->live--;
		free(cq);
	}
	return rc;
}

int
rk_poll_cq(struct rk_cq *cq, int num, struct rk_wc *wc)
{
	if (cq == NULL)
		return -EINVAL;
	if (rk_vi_is(cq->context))
		return rk_vi_poll_cq(cq, num, wc);
	/* Enough waiting already: hand them over now, progress on the next call. */
	if (num <= 0 || rk_ib_cq_count(cq->ib) < (uint32_t)num)
		rk_progress(cq->context);
	return rk_ib_cq_poll(cq->ib, num, wc);
}

struct rk_srq *
rk_create_srq(struct rk_pd *pd, const struct rk_srq_init_attr *attr)
{
	struct rk_srq *srq;

	if (pd == NULL || attr == NULL || attr->attr.srq_limit != 0) {
		errno = EINVAL;
		return NULL;
	}
	if (rk_vi_is(pd->context)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	srq = calloc(1, sizeof(*srq));
	if (srq == NULL)
		return NULL;
	srq->ib = rk_ib_srq_create(pd->ib, attr->attr.max_wr, attr->attr.max_sge);
	if (srq->ib == NULL) {
		int e = errno;

		free(srq);
		errno = e;
		return NULL;
	}
	srq->context = pd->context;
	srq->srq_context = attr->srq_context;
	srq->pd = pd;
	srq->context->live++;
	return srq;
}

int
rk_destroy_srq(struct rk_srq *srq)
{
	int rc;

	if (srq == NULL)
		return -EINVAL;
	rc = rk_ib_srq_destroy(srq->ib);
	if (rc == 0) {
		srq->context->live--;
		free(srq);
	}
	return rc;
}

int
rk_post_srq_recv(struct rk_srq *srq, struct rk_recv_wr *wr, struct rk_recv_wr **bad_wr)
{
	const struct rk_recv_wr *bad = NULL;
	int rc;

	if (srq == NULL)
		return -EINVAL;
	srq->context->quiet = false;
	rc = rk_ib_srq_post_recv(srq->ib, wr, &bad);
	if (rc != 0 && bad_wr != NULL)
		*bad_wr = (struct rk_recv_wr *)(uintptr_t)bad;
	return rc;
}

struct rk_ah *
rk_create_ah(struct rk_pd *pd, const struct rk_ah_attr *attr)
{
	struct rk_ah *ah;

	if (pd == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (rk_vi_is(pd->context)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	ah = calloc(1, sizeof(*ah));
	if (ah == NULL)
		return NULL;
	ah->attr = *attr;
	ah->context = pd;
	/* A live object: its PD cannot be freed, nor the device closed (ibv_dealloc_pd). */
	rk_ib_pd_hold(pd->ib);
	pd->context->live++;
	return ah;
}

int
rk_destroy_ah(struct rk_ah *ah)
{
	struct rk_pd *pd;

	if (ah == NULL)
		return -EINVAL;
	pd = ah->context;
	rk_ib_pd_release(pd->ib);
	pd->context->live--;
	free(ah);
	return 0;
}

struct rk_qp *
rk_create_qp(struct rk_pd *pd, struct rk_qp_init_attr *attr)
{
	struct rk_ib_qp_init_attr ia;
	struct rk_qp *qp;

	if (pd == NULL || attr == NULL || attr->send_cq == NULL || attr->recv_cq == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (rk_vi_is(pd->context))
		return rk_vi_create_qp(pd, attr);
	ia = (struct rk_ib_qp_init_attr){
		.send_cq = attr->send_cq->ib,
		.recv_cq = attr->recv_cq->ib,
		.srq = attr->srq != NULL ? attr->srq->ib : NULL,
		.cap = attr->cap,
		.qp_type = attr->qp_type,
		.sq_sig_all = attr->sq_sig_all,
		.qp_context = attr->qp_context,
	};
	qp = calloc(1, sizeof(*qp));
	if (qp == NULL)
		return NULL;
	qp->ib = rk_ib_qp_create(pd->ib, &ia);
	if (qp->ib == NULL) {
		int e = errno;

		free(qp);
		errno = e;
		return NULL;
	}
	qp->context = pd->context;
	qp->qp_context = attr->qp_context;
	qp->pd = pd;
	qp->send_cq = attr->send_cq;
	qp->recv_cq = attr->recv_cq;
	qp->srq = attr->srq;
	qp->qp_num = rk_ib_qp_num(qp->ib);
	qp->state = RK_QPS_RESET;
	qp->qp_type = attr->qp_type;
	qp->context->live++;
	return qp;
}

int
rk_modify_qp(struct rk_qp *qp, struct rk_qp_attr *attr, int attr_mask)
{
	int rc;

	if (qp == NULL)
		return -EINVAL;
	if (rk_vi_is(qp->context))
		return rk_vi_modify_qp(qp, attr, attr_mask);
	qp->context->quiet = false;
	rc = rk_ib_qp_modify(qp->ib, attr, attr_mask);
	qp->state = rk_ib_qp_state(qp->ib);
	return rc;
}

int
rk_query_qp(struct rk_qp *qp, struct rk_qp_attr *attr, int attr_mask,
	    struct rk_qp_init_attr *init_attr)
{
	int rc;

	if (qp == NULL || attr == NULL)
		return -EINVAL;
	if (rk_vi_is(qp->context))
		return rk_vi_query_qp(qp, attr, init_attr);
	rc = rk_ib_qp_query(qp->ib, attr, attr_mask);
	qp->state = attr->qp_state;
	if (init_attr != NULL) {
		init_attr->qp_context = qp->qp_context;
		init_attr->send_cq = qp->send_cq;
		init_attr->recv_cq = qp->recv_cq;
		init_attr->srq = qp->srq;
		init_attr->cap = attr->cap;
		init_attr->qp_type = qp->qp_type;
		init_attr->sq_sig_all = 0;
	}
	return rc;
}

int
rk_destroy_qp(struct rk_qp *qp)
{
	if (qp == NULL)
		return -EINVAL;
	if (rk_vi_is(qp->context))
		return rk_vi_destroy_qp(qp);
	qp->context->quiet = false;
	rk_ib_qp_destroy(qp->ib);
	qp->context->live--;
	free(qp);
	return 0;
}

static void
emit_tx(void *arg, const uint8_t *frame, uint32_t len)
{
	struct rk_context *ctx = arg;

	if (ctx->ops->tx(ctx->io, frame, len) < 0)
		ctx->tx_errors++;
	else
		ctx->tx_frames++;
}

static uint8_t *
frame_tx(void *arg)
{
	struct rk_context *ctx = arg;

	ctx->tx_lent = ctx->ops->tx_frame(ctx->io);
	return ctx->tx_lent;
}

/* Frames built in the backend's buffers (tx_frame) are committed, not copied. */
static void
emit_commit(void *arg, const uint8_t *frame, uint32_t len)
{
	struct rk_context *ctx = arg;
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
	struct rk_context *ctx = arg;
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
transmit(struct rk_context *ctx, uint64_t now)
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

int
rk_post_send(struct rk_qp *qp, struct rk_send_wr *wr, struct rk_send_wr **bad_wr)
{
	const struct rk_send_wr *bad = NULL;
	int rc;

	if (qp == NULL)
		return -EINVAL;
	if (rk_vi_is(qp->context))
		return rk_vi_post_send(qp, wr, bad_wr);
	qp->context->quiet = false;
	rc = rk_ib_post_send(qp->ib, wr, &bad);
	if (rc != 0 && bad_wr != NULL)
		*bad_wr = (struct rk_send_wr *)(uintptr_t)bad;
	/* The doorbell: send what the window allows now. */
	transmit(qp->context, qp->context->ops->now_ns(qp->context->io));
	return rc;
}

int
rk_post_recv(struct rk_qp *qp, struct rk_recv_wr *wr, struct rk_recv_wr **bad_wr)
{
	const struct rk_recv_wr *bad = NULL;
	int rc;

	if (qp == NULL)
		return -EINVAL;
	if (rk_vi_is(qp->context))
		return rk_vi_post_recv(qp, wr, bad_wr);
	qp->context->quiet = false;
	rc = rk_ib_post_recv(qp->ib, wr, &bad);
	if (rc != 0 && bad_wr != NULL)
		*bad_wr = (struct rk_recv_wr *)(uintptr_t)bad;
	return rc;
}

int
rk_progress(struct rk_context *ctx)
{
	uint64_t now = 0;
	int n = 0, len;
	unsigned int k;

	if (ctx == NULL)
		return -EINVAL;
	if (rk_vi_is(ctx))
		return rk_vi_progress(ctx);
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
	rk_ib_timers(ctx->dev, now);
	k = transmit(ctx, now);
	ctx->quiet = k == 0 && !ctx->tx_blocked;
	return n + (int)k;
}

uint64_t
rk_next_event_ns(struct rk_context *ctx)
{
	uint64_t now;

	if (rk_vi_is(ctx))
		return rk_vi_next_event_ns(ctx);
	/* Asked when to poll next: that poll must be a full one. */
	ctx->quiet = false;
	now = ctx->ops->now_ns(ctx->io);
	if (rk_ib_tx_pending(ctx->dev, now))
		return now;
	return rk_ib_next_timer(ctx->dev);
}

const struct rk_ib_stats *
rk_context_stats(const struct rk_context *ctx)
{
	static const struct rk_ib_stats none;

	if (rk_vi_is(ctx))
		return &none;
	return rk_ib_dev_stats(ctx->dev);
}

unsigned int
rk_counters_from_stats(const struct rk_ib_stats *s, struct rk_counter *out, unsigned int max)
{
	if (s == NULL || out == NULL)
		return 0;

	unsigned int n = 0;

	for (; n < rk_ib_xstats.n && n < max; n++)
		out[n] = (struct rk_counter){ rk_ib_xstats.desc[n].name,
					      rk_xstat_value(&rk_ib_xstats, n, s) };
	return n;
}

int
rk_query_qp_counters(const struct rk_qp *qp, struct rk_counter *out, unsigned int max)
{
	if (qp == NULL || out == NULL)
		return -EINVAL;
	if (rk_vi_is(qp->context))
		return -EOPNOTSUPP;
	return (int)rk_counters_from_stats(rk_ib_qp_stats(qp->ib), out, max);
}

uint64_t
rk_qp_progress(const struct rk_qp *qp)
{
	const struct rk_ib_stats *s;

	if (qp == NULL)
		return 0;
	if (rk_vi_is(qp->context))
		return rk_vi_qp_progress(qp);
	s = rk_ib_qp_stats(qp->ib);
	return s->comp_acked_pkts + s->resp_send_reqs + s->resp_write_reqs + s->resp_read_reqs +
	       s->resp_atomic_reqs;
}

const char *
rk_wc_status_str(enum rk_wc_status status)
{
	static const char *const names[] = {
		[RK_WC_SUCCESS] = "success",
		[RK_WC_LOC_LEN_ERR] = "local length error",
		[RK_WC_LOC_QP_OP_ERR] = "local QP operation error",
		[RK_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
		[RK_WC_LOC_PROT_ERR] = "local protection error",
		[RK_WC_WR_FLUSH_ERR] = "Work Request Flushed Error",
		[RK_WC_MW_BIND_ERR] = "memory management operation error",
		[RK_WC_BAD_RESP_ERR] = "bad response error",
		[RK_WC_LOC_ACCESS_ERR] = "local access error",
		[RK_WC_REM_INV_REQ_ERR] = "remote invalid request error",
		[RK_WC_REM_ACCESS_ERR] = "remote access error",
		[RK_WC_REM_OP_ERR] = "remote operation error",
		[RK_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
		[RK_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
		[RK_WC_LOC_RDD_VIOL_ERR] = "local RDD violation error",
		[RK_WC_REM_INV_RD_REQ_ERR] = "remote invalid RD request",
		[RK_WC_REM_ABORT_ERR] = "aborted error",
		[RK_WC_INV_EECN_ERR] = "invalid EE context number",
		[RK_WC_INV_EEC_STATE_ERR] = "invalid EE context state",
		[RK_WC_FATAL_ERR] = "fatal error",
		[RK_WC_RESP_TIMEOUT_ERR] = "response timeout error",
		[RK_WC_GENERAL_ERR] = "general error",
	};

	if ((unsigned int)status < sizeof(names) / sizeof(names[0]) && names[status] != NULL)
		return names[status];
	return "unknown";
}
