/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_app_qp.h
 * Connecting a reliable or unreliable connected QP, as every app does it
 * (rk-perf, rk-interop, rk-gen's stateful mode): from INIT through RTR to
 * RTS in one call, with the attributes each state needs (IBTA Vol1
 * 11.2.5.2, the modify-QP attribute table: RTR takes the path, the
 * destination QPN, the receive PSN and, for RC, the responder resources
 * and RNR timer; RTS the send PSN and, for RC, the ACK timeout, retry
 * counts and initiator depth). No DPDK: the verbs of lib/verbs only.
 */
#ifndef RK_APP_QP_H
#define RK_APP_QP_H

#include <stdbool.h>
#include <stdint.h>

#include "rk_verbs.h"

/** The peer and the transport attributes of one connection. */
struct rk_app_qp_path {
	enum rk_mtu mtu;                /**< path MTU */
	uint32_t dest_qpn;              /**< the peer's QPN (24 bits) */
	uint32_t rq_psn;                /**< first PSN expected from the peer */
	uint32_t sq_psn;                /**< first PSN this end sends */
	const uint8_t *dmac;            /**< 6 bytes: the peer's MAC */
	const uint8_t *dgid;            /**< 16 bytes: the peer's GID (IPv4-mapped for IPv4) */
	const uint8_t *sgid;            /**< 16 bytes: this end's source GID; NULL: the device's */
	uint8_t dscp;                   /**< DSCP of the frames sent (ECN stays the engine's) */
	uint8_t hop_limit;              /**< IP TTL / hop limit; 0: the engine's default */
	bool uc;                        /**< a UC QP: only the path, PSNs and MTU apply */
	/* RC only */
	uint8_t max_dest_rd_atomic;     /**< READs/atomics the peer may have in flight here */
	uint8_t max_rd_atomic;          /**< READs/atomics this end keeps in flight */
	uint8_t min_rnr_timer;          /**< RNR NAK timer code (IBTA table 45) */
	uint8_t timeout;                /**< local ACK timeout, 4.096 us * 2^timeout */
	uint8_t retry_cnt;              /**< transport retries, 0..7 */
	uint8_t rnr_retry;              /**< RNR retries, 0..7 (7: without end) */
};

/**
 * @p qp, in INIT, to RTR then RTS on @p p.
 * @return 0; or the negative errno of the transition that failed, with
 *         *@p state (when not NULL) "RTR" or "RTS".
 */
int rk_app_qp_connect(struct rk_qp *qp, const struct rk_app_qp_path *p, const char **state);

#endif /* RK_APP_QP_H */
