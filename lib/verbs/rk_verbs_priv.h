/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Verbs internals: the transport operations behind the public calls (one
 * const table per transport, as rdma-core's verbs_context_ops) and the
 * private objects the public handles are embedded in.
 *
 * rk_verbs.c checks arguments, keeps the bookkeeping every transport
 * shares (live objects of a context, users of a PD or CQ, the public
 * fields) and dispatches; a transport (rk_verbs_roce.c, rk_verbs_iwarp.c)
 * only joins the handles to its engine.
 */
#ifndef RK_VERBS_PRIV_H
#define RK_VERBS_PRIV_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "rk_verbs.h"

#define rk_container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

struct rk_transport_ops;

struct rk_vctx {
	struct rk_context pub;
	const struct rk_transport_ops *ops;
	uint32_t live;                  /* PDs, MRs, CQs, SRQs, AHs, QPs not destroyed */
};

struct rk_vpd {
	struct rk_pd pub;
	union {
		struct rk_ib_pd *ib;
		struct rk_iw_pd *iw;
	};
	uint32_t users;                 /* QPs using it (the engine counts MRs) */
};

struct rk_vmr {
	struct rk_mr pub;
	struct rk_ib_mr *ib;            /* RoCE (pub.iw on iWARP) */
};

struct rk_vcq {
	struct rk_cq pub;
	union {
		struct rk_ib_cq *ib;
		struct rk_iw_cq *iw;
	};
	uint32_t users;                 /* QPs using it */
};

struct rk_vsrq {
	struct rk_srq pub;
	struct rk_ib_srq *ib;
};

/* A transport's QP embeds this (its size differs per transport). */
struct rk_vqp {
	struct rk_qp pub;
};

/* rk_vctx(ctx), rk_vpd(pd), ...: the private object of a public handle (its pub). */
#define RK_VERBS_PRIV(name, pub_type) \
	static inline struct name *name(const struct pub_type *h) \
	{ \
		return rk_container_of(h, struct name, pub); \
	}
RK_VERBS_PRIV(rk_vctx, rk_context)
RK_VERBS_PRIV(rk_vpd, rk_pd)
RK_VERBS_PRIV(rk_vmr, rk_mr)
RK_VERBS_PRIV(rk_vcq, rk_cq)
RK_VERBS_PRIV(rk_vsrq, rk_srq)
RK_VERBS_PRIV(rk_vqp, rk_qp)

/*
 * One transport. Arguments arrive checked (non-NULL handles of this
 * transport's context); errors are negative errno values, creators return
 * them too and rk_verbs.c sets errno. An operation left NULL is not
 * supported: rk_verbs.c answers EOPNOTSUPP (or the documented default).
 */
struct rk_transport_ops {
	const char *name;
	enum rk_transport_type type;
	/**
	 * Give @p ctx (zeroed but for pub.transport and ops) its engine
	 * device, made from @p attr and the key secret @p key_seed.
	 */
	int (*open_device)(struct rk_vctx *ctx, const struct rk_device_attr *attr,
			   uint64_t key_seed);
	/** Release the context's engine (nothing is live); rk_verbs.c frees the context. */
	void (*close_device)(struct rk_vctx *ctx);
	/** Give @p pd its engine PD. */
	int (*alloc_pd)(struct rk_vctx *ctx, struct rk_vpd *pd);
	/** 0 or -EBUSY while the engine still has objects on it. */
	int (*dealloc_pd)(struct rk_vpd *pd);
	/** Register pub.addr/pub.length; set the keys. */
	int (*reg_mr)(struct rk_vpd *pd, struct rk_vmr *mr, unsigned int access);
	int (*dereg_mr)(struct rk_vmr *mr);
	int (*create_cq)(struct rk_vctx *ctx, struct rk_vcq *cq);
	int (*destroy_cq)(struct rk_vcq *cq);
	/** Poll, running progress when fewer than @p num wait. */
	int (*poll_cq)(struct rk_vcq *cq, int num, struct rk_wc *wc);
	int (*create_srq)(struct rk_vpd *pd, struct rk_vsrq *srq,
			  const struct rk_srq_init_attr *attr);
	int (*destroy_srq)(struct rk_vsrq *srq);
	/** Posts: on failure, *bad names the WR the post stopped at. */
	int (*post_srq_recv)(struct rk_vsrq *srq, struct rk_recv_wr *wr,
			     const struct rk_recv_wr **bad);
	/** Hold what an address handle needs of @p pd. */
	int (*create_ah)(struct rk_vpd *pd, struct rk_ah *ah);
	void (*destroy_ah)(struct rk_vpd *pd, struct rk_ah *ah);
	/** A QP in RESET with its public fields set; NULL with errno. */
	struct rk_vqp *(*create_qp)(struct rk_vpd *pd, const struct rk_qp_init_attr *attr);
	int (*modify_qp)(struct rk_vqp *qp, struct rk_qp_attr *attr, int attr_mask);
	int (*query_qp)(struct rk_vqp *qp, struct rk_qp_attr *attr, int attr_mask,
			struct rk_qp_init_attr *init_attr);
	void (*destroy_qp)(struct rk_vqp *qp);
	int (*post_send)(struct rk_vqp *qp, struct rk_send_wr *wr, const struct rk_send_wr **bad);
	int (*post_recv)(struct rk_vqp *qp, struct rk_recv_wr *wr, const struct rk_recv_wr **bad);
	/** Attach a byte stream (iWARP); NULL: -EINVAL. */
	int (*connect_stream)(struct rk_vqp *qp, void *stream, const struct rk_iw_conn_attr *conn);
	/** The engine QP of a stream transport; NULL: none. */
	struct rk_iw_qp *(*qp_iw)(const struct rk_vqp *qp);
	int (*progress)(struct rk_vctx *ctx);
	uint64_t (*next_event_ns)(struct rk_vctx *ctx);
	/** RoCE engine counters; NULL: all zero. */
	const struct rk_ib_stats *(*stats)(const struct rk_vctx *ctx);
	/** iWARP engine counters; NULL: none. */
	const struct rk_iw_stats *(*iw_stats)(const struct rk_vctx *ctx);
	/** Per-QP counters; NULL: -EOPNOTSUPP. */
	int (*qp_counters)(const struct rk_vqp *qp, struct rk_counter *out, unsigned int max);
	uint64_t (*qp_progress)(const struct rk_vqp *qp);
};

/**
 * A zeroed context of @p size bytes (a transport's, struct rk_vctx at its
 * start) for the transport @p ops, its engine opened by ops->open_device
 * with attr->key_seed, or one drawn from getrandom() when that is 0.
 * @return the context, or NULL with errno EIO (no random bytes), ENOMEM
 *         or the engine's error.
 */
struct rk_vctx *rk_verbs_open(const struct rk_transport_ops *ops, size_t size,
			      const struct rk_device_attr *attr);

/** An engine creator's result as 0 or -errno (ENOMEM when errno is unset). */
static inline int
rk_verbs_created(const void *created)
{
	return created != NULL ? 0 : (errno != 0 ? -errno : -ENOMEM);
}

/**
 * Define a transport's close_device, alloc_pd, dealloc_pd, create_cq and
 * destroy_cq ops (named t_close_device, ...), which only pass the device,
 * PD or CQ to the engine of prefix @p eng (rk_ib, rk_iw: both give the
 * calls of RK_RES_CALLS and eng_dev_destroy); the transport's context type
 * @p ctx_t holds the engine device in @p dev, the verbs PD and CQ hold the
 * engine's in their member @p m.
 */
#define RK_VERBS_ENGINE_OPS(t, eng, ctx_t, dev, m) \
	static void t##_close_device(struct rk_vctx *v) \
	{ \
		eng##_dev_destroy(rk_container_of(v, ctx_t, v)->dev); \
	} \
	static int t##_alloc_pd(struct rk_vctx *v, struct rk_vpd *pd) \
	{ \
		pd->m = eng##_pd_alloc(rk_container_of(v, ctx_t, v)->dev); \
		return rk_verbs_created(pd->m); \
	} \
	static int t##_dealloc_pd(struct rk_vpd *pd) \
	{ \
		return eng##_pd_free(pd->m); \
	} \
	static int t##_create_cq(struct rk_vctx *v, struct rk_vcq *cq) \
	{ \
		cq->m = eng##_cq_create(rk_container_of(v, ctx_t, v)->dev, (uint32_t)cq->pub.cqe); \
		return rk_verbs_created(cq->m); \
	} \
	static int t##_destroy_cq(struct rk_vcq *cq) \
	{ \
		return eng##_cq_destroy(cq->m); \
	}

extern const struct rk_transport_ops rk_roce_transport_ops;
extern const struct rk_transport_ops rk_iwarp_transport_ops;

#endif /* RK_VERBS_PRIV_H */
