/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What responder_cm.c (a perftest -R client's thread) shares with
 * responder_cm_route.c (QP1's MADs to the threads they belong to).
 */
#ifndef RK_TP_RESPONDER_CM_H
#define RK_TP_RESPONDER_CM_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "responder.h"
#include "rk_app_cm.h"
#include "rk_verbs.h"

#define RK_TP_RESP_CM_RECVS 8u  /* exchange receives posted: perftest keeps one message in flight */
#define RK_TP_RESP_CM_MSG 64u   /* the longest exchange message: keys, 56 bytes */

/* A client's exchange QP and connections. */
struct rk_tp_resp_cm {
	struct rk_cq *cq;
	struct rk_qp *qp;
	struct rk_mr *mr;
	uint8_t buf[RK_TP_RESP_CM_RECVS + 1][RK_TP_RESP_CM_MSG];    /* receive slots, then the send's */
	uint32_t done[RK_TP_RESP_CM_RECVS], len[RK_TP_RESP_CM_RECVS];   /* completed receive slots, in order */
	unsigned int head, tail;
	bool send_done, closed;
	bool broken;                    /* a MAD for it could not be answered (under rk_tp_resp_cm_mu) */
	/*
	 * Under rk_tp_resp_cm_mu: REQs from the client's address are its own
	 * from its data REQ's wait until its next exchange message (window);
	 * those beyond the data connection's (perftest -q N) rejected (extra).
	 */
	bool window;
	unsigned int extra;
	bool more;                      /* the thread's copy of extra > 0 */
	struct rk_app_cm_conn comm, data;
	struct rk_app_cm_conn *listen;  /* takes a REQ while IDLE, whatever the wait */
	struct rk_app_cm_port port;
};

/*
 * The exchange QP of @p x on @p port's device: its CQ, region, RC QP in
 * INIT and RK_TP_RESP_CM_RECVS receives posted. Takes rk_tp_rdma_lock.
 * @return 0 or negative errno (what is made is kept for rk_tp_cm_comm_free())
 */
int rk_tp_cm_comm_create(struct rk_tp_resp_cm *x, uint16_t port);

/** Repost receive slot @p slot of @p x. Takes rk_tp_rdma_lock. @return 0 or negative errno */
int rk_tp_cm_comm_post_recv(struct rk_tp_resp_cm *x, uint32_t slot);

/**
 * Send @p len bytes (at most RK_TP_RESP_CM_MSG) of @p msg on @p x's QP;
 * x->send_done is set once it completes. Takes rk_tp_rdma_lock.
 * @return 0 or negative errno
 */
int rk_tp_cm_comm_send(struct rk_tp_resp_cm *x, const void *msg, size_t len);

/**
 * Poll @p x's CQ once: completed receives queued in order (done/len,
 * head), the send's noted. Takes rk_tp_rdma_lock.
 * @return 0; -EIO on a failed completion (its status in *@p st); negative errno
 */
int rk_tp_cm_comm_poll(struct rk_tp_resp_cm *x, enum rk_wc_status *st);

/** Destroy what rk_tp_cm_comm_create() made of @p x. Takes rk_tp_rdma_lock. */
void rk_tp_cm_comm_free(struct rk_tp_resp_cm *x);

/** One MAD from @p port's QP1 to @p mac / @p ip. Takes rk_tp_rdma_lock. @return 0, -errno */
int rk_tp_qp1_tx(uint16_t port, const uint8_t mac[6], const uint8_t ip[4],
		 const uint8_t mad[RK_MAD_LEN]);

/*
 * Every client thread's connections, listen and broken, and the routing
 * state; taken before rk_tp_rdma_lock, never after.
 */
extern pthread_mutex_t rk_tp_resp_cm_mu;

/** rk_app_cm_port's send: one MAD from the device's QP1 (fails @p ctx, a client). */
int rk_tp_resp_qp1_send(void *ctx, const uint8_t mac[6], const uint8_t ip[4],
			const uint8_t mad[RK_MAD_LEN]);

/** rk_app_cm_port's resolve: ARP for @p ip (fails @p ctx, a client). */
int rk_tp_resp_qp1_resolve(void *ctx, const uint8_t ip[4], uint8_t mac[6]);

/** Route MADs to @p c's connections from now on; under rk_tp_resp_cm_mu. */
void rk_tp_resp_cm_register(struct rk_tp_resp_client *c);

/** No more MADs to @p c; under rk_tp_resp_cm_mu. */
void rk_tp_resp_cm_unregister(const struct rk_tp_resp_client *c);

/**
 * The MADs the forwarding loop queued, and those held, each to the
 * thread whose connection (or wait for a REQ) it is; a REQ nobody can
 * take is rejected. Under rk_tp_resp_cm_mu; @p now_ns the monotonic clock.
 */
void rk_tp_resp_cm_route(uint64_t now_ns);

#endif /* RK_TP_RESPONDER_CM_H */
