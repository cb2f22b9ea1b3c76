/* SPDX-License-Identifier: BSD-3-Clause */
/* Verbs over lib/iwarp: what rk_verbs.c dispatches to for iWARP contexts. */
#ifndef RK_VERBS_IW_H
#define RK_VERBS_IW_H

#include "rk_verbs.h"

static inline int
rk_vi_is(const struct rk_context *ctx)
{
	return ctx->transport == RK_TRANSPORT_TYPE_IWARP;
}

int rk_vi_close_device(struct rk_context *ctx);
struct rk_pd *rk_vi_alloc_pd(struct rk_context *ctx);
int rk_vi_dealloc_pd(struct rk_pd *pd);
struct rk_mr *rk_vi_reg_mr(struct rk_pd *pd, void *addr, size_t length, int access);
int rk_vi_dereg_mr(struct rk_mr *mr);
struct rk_cq *rk_vi_create_cq(struct rk_context *ctx, int cqe, void *cq_context);
int rk_vi_destroy_cq(struct rk_cq *cq);
int rk_vi_poll_cq(struct rk_cq *cq, int num, struct rk_wc *wc);
struct rk_qp *rk_vi_create_qp(struct rk_pd *pd, struct rk_qp_init_attr *attr);
int rk_vi_modify_qp(struct rk_qp *qp, struct rk_qp_attr *attr, int attr_mask);
int rk_vi_query_qp(struct rk_qp *qp, struct rk_qp_attr *attr, struct rk_qp_init_attr *init_attr);
int rk_vi_destroy_qp(struct rk_qp *qp);
int rk_vi_post_send(struct rk_qp *qp, struct rk_send_wr *wr, struct rk_send_wr **bad_wr);
int rk_vi_post_recv(struct rk_qp *qp, struct rk_recv_wr *wr, struct rk_recv_wr **bad_wr);
int rk_vi_progress(struct rk_context *ctx);
uint64_t rk_vi_next_event_ns(struct rk_context *ctx);
uint64_t rk_vi_qp_progress(const struct rk_qp *qp);

#endif /* RK_VERBS_IW_H */
