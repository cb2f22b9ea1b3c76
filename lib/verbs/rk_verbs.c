/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verbs entry points: argument checks and the bookkeeping every
 * transport shares (live objects, users of a PD or CQ, the public fields),
 * then one call through the context's struct rk_transport_ops.
 */
#include "rk_verbs_priv.h"
#include "rk_ib_xstats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

static const struct rk_transport_ops *
tops(const struct rk_context *ctx)
{
	return rk_vctx(ctx)->ops;
}

/* A creator's failure: NULL with errno set from the transport's -errno. */
static void *
fail_null(void *obj, int rc)
{
	free(obj);
	errno = -rc;
	return NULL;
}

/* A create op's result @p rc for private object @p v: @p pub, now live, or NULL. */
static void *
made(struct rk_context *ctx, void *v, void *pub, int rc)
{
	if (rc != 0)
		return fail_null(v, rc);
	rk_vctx(ctx)->live++;
	return pub;
}

/* A destroy op's result @p rc for private object @p v: when 0, no longer live, freed. */
static int
gone(struct rk_context *ctx, void *v, int rc)
{
	if (rc == 0) {
		rk_vctx(ctx)->live--;
		free(v);
	}
	return rc;
}

/* The device key secret: @p given, or drawn from getrandom() when 0; 0 or -EIO. */
static int
key_seed(uint64_t given, uint64_t *seed)
{
	*seed = given;
	if (given == 0 && getrandom(seed, sizeof(*seed), 0) != (ssize_t)sizeof(*seed))
		return -EIO;
	return 0;
}

struct rk_vctx *
rk_verbs_open(const struct rk_transport_ops *ops, size_t size, const struct rk_device_attr *attr)
{
	struct rk_vctx *ctx;
	uint64_t seed;
	int rc;

	if (key_seed(attr->key_seed, &seed) != 0) {
		errno = EIO;
		return NULL;
	}
	ctx = calloc(1, size);
	if (ctx == NULL)
		return NULL;
	ctx->pub.transport = ops->type;
	ctx->ops = ops;
	rc = ops->open_device(ctx, attr, seed);
	if (rc != 0)
		return fail_null(ctx, rc);
	return ctx;
}

int
rk_close_device(struct rk_context *ctx)
{
	struct rk_vctx *v;

	if (ctx == NULL)
		return -EINVAL;
	v = rk_vctx(ctx);
	if (v->live != 0)
		return -EBUSY;
	v->ops->close_device(v);
	free(v);
	return 0;
}

struct rk_pd *
rk_alloc_pd(struct rk_context *ctx)
{
	struct rk_vpd *pd;

	if (ctx == NULL) {
		errno = EINVAL;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (pd == NULL)
		return NULL;
	pd->pub.context = ctx;
	return made(ctx, pd, &pd->pub, tops(ctx)->alloc_pd(rk_vctx(ctx), pd));
}

int
rk_dealloc_pd(struct rk_pd *pd)
{
	struct rk_vpd *v;

	if (pd == NULL)
		return -EINVAL;
	v = rk_vpd(pd);
	if (v->users != 0)
		return -EBUSY;
	return gone(pd->context, v, tops(pd->context)->dealloc_pd(v));
}

struct rk_mr *
rk_reg_mr(struct rk_pd *pd, void *addr, size_t length, int access)
{
	struct rk_vmr *mr;

	if (pd == NULL || access < 0) {
		errno = EINVAL;
		return NULL;
	}
	mr = calloc(1, sizeof(*mr));
	if (mr == NULL)
		return NULL;
	mr->pub.context = pd->context;
	mr->pub.pd = pd;
	mr->pub.addr = addr;
	mr->pub.length = length;
	return made(pd->context, mr, &mr->pub,
		    tops(pd->context)->reg_mr(rk_vpd(pd), mr, (unsigned int)access));
}

int
rk_dereg_mr(struct rk_mr *mr)
{
	if (mr == NULL)
		return -EINVAL;
	return gone(mr->context, rk_vmr(mr), tops(mr->context)->dereg_mr(rk_vmr(mr)));
}

struct rk_cq *
rk_create_cq(struct rk_context *ctx, int cqe, void *cq_context)
{
	struct rk_vcq *cq;

	if (ctx == NULL || cqe <= 0) {
		errno = EINVAL;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (cq == NULL)
		return NULL;
	cq->pub.context = ctx;
	cq->pub.cq_context = cq_context;
	cq->pub.cqe = cqe;
	return made(ctx, cq, &cq->pub, tops(ctx)->create_cq(rk_vctx(ctx), cq));
}

int
rk_destroy_cq(struct rk_cq *cq)
{
	struct rk_vcq *v;

	if (cq == NULL)
		return -EINVAL;
	v = rk_vcq(cq);
	if (v->users != 0)
		return -EBUSY;
	return gone(cq->context, v, tops(cq->context)->destroy_cq(v));
}

int
rk_poll_cq(struct rk_cq *cq, int num, struct rk_wc *wc)
{
	if (cq == NULL)
		return -EINVAL;
	return tops(cq->context)->poll_cq(rk_vcq(cq), num, wc);
}

struct rk_srq *
rk_create_srq(struct rk_pd *pd, const struct rk_srq_init_attr *attr)
{
	struct rk_vsrq *srq;

	if (pd == NULL || attr == NULL || attr->attr.srq_limit != 0) {
		errno = EINVAL;
		return NULL;
	}
	if (tops(pd->context)->create_srq == NULL) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	srq = calloc(1, sizeof(*srq));
	if (srq == NULL)
		return NULL;
	srq->pub.context = pd->context;
	srq->pub.srq_context = attr->srq_context;
	srq->pub.pd = pd;
	return made(pd->context, srq, &srq->pub,
		    tops(pd->context)->create_srq(rk_vpd(pd), srq, attr));
}

int
rk_destroy_srq(struct rk_srq *srq)
{
	if (srq == NULL)
		return -EINVAL;
	return gone(srq->context, rk_vsrq(srq), tops(srq->context)->destroy_srq(rk_vsrq(srq)));
}

/*
 * Post through the transport. The engines name the WR a post stopped at
 * by a const pointer (they never write WRs); the caller gets its own back.
 */
#define POST(wr_type, op, obj, wr, bad_wr) do { \
		const wr_type *bad_ = NULL; \
		int rc_ = (op)(obj, wr, &bad_); \
		\
		if (rc_ != 0 && (bad_wr) != NULL) \
			*(bad_wr) = (wr_type *)(uintptr_t)bad_; \
		return rc_; \
	} while (0)

int
rk_post_srq_recv(struct rk_srq *srq, struct rk_recv_wr *wr, struct rk_recv_wr **bad_wr)
{
	if (srq == NULL)
		return -EINVAL;
	POST(struct rk_recv_wr, tops(srq->context)->post_srq_recv, rk_vsrq(srq), wr, bad_wr);
}

struct rk_ah *
rk_create_ah(struct rk_pd *pd, const struct rk_ah_attr *attr)
{
	struct rk_ah *ah;

	if (pd == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (tops(pd->context)->create_ah == NULL) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	ah = calloc(1, sizeof(*ah));
	if (ah == NULL)
		return NULL;
	ah->attr = *attr;
	ah->context = pd;
	return made(pd->context, ah, ah, tops(pd->context)->create_ah(rk_vpd(pd), ah));
}

int
rk_destroy_ah(struct rk_ah *ah)
{
	struct rk_pd *pd;

	if (ah == NULL)
		return -EINVAL;
	pd = ah->context;
	tops(pd->context)->destroy_ah(rk_vpd(pd), ah);
	rk_vctx(pd->context)->live--;
	free(ah);
	return 0;
}

struct rk_qp *
rk_create_qp(struct rk_pd *pd, struct rk_qp_init_attr *attr)
{
	struct rk_vqp *qp;

	if (pd == NULL || attr == NULL || attr->send_cq == NULL || attr->recv_cq == NULL) {
		errno = EINVAL;
		return NULL;
	}
	qp = tops(pd->context)->create_qp(rk_vpd(pd), attr);
	if (qp == NULL)
		return NULL;
	qp->pub.context = pd->context;
	qp->pub.qp_context = attr->qp_context;
	qp->pub.pd = pd;
	qp->pub.send_cq = attr->send_cq;
	qp->pub.recv_cq = attr->recv_cq;
	qp->pub.srq = attr->srq;
	qp->pub.state = RK_QPS_RESET;
	qp->pub.qp_type = attr->qp_type;
	rk_vpd(pd)->users++;
	rk_vcq(attr->send_cq)->users++;
	rk_vcq(attr->recv_cq)->users++;
	rk_vctx(pd->context)->live++;
	return &qp->pub;
}

int
rk_qp_connect_stream(struct rk_qp *qp, void *stream, const struct rk_iw_conn_attr *conn)
{
	if (qp == NULL || conn == NULL || tops(qp->context)->connect_stream == NULL)
		return -EINVAL;
	return tops(qp->context)->connect_stream(rk_vqp(qp), stream, conn);
}

struct rk_iw_qp *
rk_qp_iw(const struct rk_qp *qp)
{
	if (qp == NULL || tops(qp->context)->qp_iw == NULL)
		return NULL;
	return tops(qp->context)->qp_iw(rk_vqp(qp));
}

int
rk_modify_qp(struct rk_qp *qp, struct rk_qp_attr *attr, int attr_mask)
{
	if (qp == NULL)
		return -EINVAL;
	return tops(qp->context)->modify_qp(rk_vqp(qp), attr, attr_mask);
}

int
rk_query_qp(struct rk_qp *qp, struct rk_qp_attr *attr, int attr_mask,
	    struct rk_qp_init_attr *init_attr)
{
	int rc;

	if (qp == NULL || attr == NULL)
		return -EINVAL;
	rc = tops(qp->context)->query_qp(rk_vqp(qp), attr, attr_mask, init_attr);
	qp->state = attr->qp_state;
	if (init_attr != NULL) {
		init_attr->qp_context = qp->qp_context;
		init_attr->send_cq = qp->send_cq;
		init_attr->recv_cq = qp->recv_cq;
		init_attr->srq = qp->srq;
		init_attr->qp_type = qp->qp_type;
	}
	return rc;
}

int
rk_destroy_qp(struct rk_qp *qp)
{
	struct rk_context *ctx;

	if (qp == NULL)
		return -EINVAL;
	ctx = qp->context;
	rk_vpd(qp->pd)->users--;
	rk_vcq(qp->send_cq)->users--;
	rk_vcq(qp->recv_cq)->users--;
	rk_vctx(ctx)->live--;
	tops(ctx)->destroy_qp(rk_vqp(qp));
	return 0;
}

int
rk_post_send(struct rk_qp *qp, struct rk_send_wr *wr, struct rk_send_wr **bad_wr)
{
	if (qp == NULL)
		return -EINVAL;
	POST(struct rk_send_wr, tops(qp->context)->post_send, rk_vqp(qp), wr, bad_wr);
}

int
rk_post_recv(struct rk_qp *qp, struct rk_recv_wr *wr, struct rk_recv_wr **bad_wr)
{
	if (qp == NULL)
		return -EINVAL;
	POST(struct rk_recv_wr, tops(qp->context)->post_recv, rk_vqp(qp), wr, bad_wr);
}

int
rk_progress(struct rk_context *ctx)
{
	if (ctx == NULL)
		return -EINVAL;
	return tops(ctx)->progress(rk_vctx(ctx));
}

uint64_t
rk_next_event_ns(struct rk_context *ctx)
{
	return tops(ctx)->next_event_ns(rk_vctx(ctx));
}

const struct rk_ib_stats *
rk_context_stats(const struct rk_context *ctx)
{
	static const struct rk_ib_stats none;

	if (tops(ctx)->stats == NULL)
		return &none;
	return tops(ctx)->stats(rk_vctx(ctx));
}

const struct rk_iw_stats *
rk_context_iw_stats(const struct rk_context *ctx)
{
	if (ctx == NULL || tops(ctx)->iw_stats == NULL)
		return NULL;
	return tops(ctx)->iw_stats(rk_vctx(ctx));
}

int
rk_query_qp_counters(const struct rk_qp *qp, struct rk_counter *out, unsigned int max)
{
	if (qp == NULL || out == NULL)
		return -EINVAL;
	if (tops(qp->context)->qp_counters == NULL)
		return -EOPNOTSUPP;
	return tops(qp->context)->qp_counters(rk_vqp(qp), out, max);
}

uint64_t
rk_qp_progress(const struct rk_qp *qp)
{
	if (qp == NULL)
		return 0;
	return tops(qp->context)->qp_progress(rk_vqp(qp));
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

const char *
rk_wc_status_str(enum rk_wc_status status)
{
#define NAME(n, v, text) [RK_WC_##n] = text,
	static const char *const names[] = { RK_WC_STATUSES(NAME) };
#undef NAME

	if ((unsigned int)status < sizeof(names) / sizeof(names[0]) && names[status] != NULL)
		return names[status];
	return "unknown";
}
