/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_conform_self_cm.h
 * The passive side of rdmakit's CM (lib/cm) as the in-process DUT answers
 * MADs to QP1 with it: one listener on one ServiceID, one connection per
 * case, dispatched as the apps' RDMA-CM support does (apps/common/cm.c):
 * a REQ for another ServiceID draws REJ reason 8, a REQ the CM cannot
 * serve REJ reason 28, a MAD that matches no connection and is not a REQ
 * is dropped.
 */
#ifndef RK_CONFORM_SELF_CM_H
#define RK_CONFORM_SELF_CM_H

#include <stdint.h>

#include "rk_cm.h"

struct rk_conform_self_cm {
	uint64_t service_id;            /**< the listener's; 0: the CM is off */
	struct rk_cm_params local;      /**< the DUT's QP: QPN, the PSN it expects */
	struct rk_cm_conn conn;         /**< the case's connection (IDLE: none yet) */
	uint32_t next_comm_id;          /**< Local Comm ID of the next connection */
};

/**
 * Take the MAD of a UD SEND to QP1 (@p len bytes).
 * @return enum rk_cm_action bits: RK_CM_SEND with the answer in @p out;
 *         RK_CM_EV_ESTABLISHED when the QP is to be moved to RTR and RTS
 *         with conn's values; 0 when the MAD is dropped.
 */
int rk_conform_self_cm_rx(struct rk_conform_self_cm *cm, const uint8_t *mad, uint32_t len,
			  uint64_t now_ns, uint8_t out[RK_MAD_LEN]);

/** Run the connection's timer (REP resent). @return action bits as above. */
int rk_conform_self_cm_timer(struct rk_conform_self_cm *cm, uint64_t now_ns,
			     uint8_t out[RK_MAD_LEN]);

#endif /* RK_CONFORM_SELF_CM_H */
