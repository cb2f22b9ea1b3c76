/* SPDX-License-Identifier: BSD-3-Clause */
/* rdmakit's passive CM for the in-process DUT: see rk_conform_self_cm.h. */
#include "rk_conform_self_cm.h"

#include <errno.h>
#include <string.h>

int
rk_conform_self_cm_rx(struct rk_conform_self_cm *cm, const uint8_t *mad, uint32_t len,
		      uint64_t now_ns, uint8_t out[RK_MAD_LEN])
{
	struct rk_cm_msg m;
	int act;

	if (cm->service_id == 0 || rk_cm_decode(mad, len, &m) != 0)
		return 0;       /* not a CM MAD of version 2: dropped */
	if (rk_cm_conn_match(&cm->conn, &m)) {
		act = rk_cm_rx(&cm->conn, &m, now_ns, out);
		return act > 0 ? act & (RK_CM_SEND | RK_CM_EV_ESTABLISHED) : 0;
	}
	if (m.hdr.attr_id != RK_CM_REQ)
		return 0;
	if (m.req.service_id != cm->service_id)
		return rk_cm_reject_req(&m, RK_CM_REJ_INVALID_SERVICE_ID, cm->next_comm_id++,
					now_ns, out);
	if (cm->conn.state != RK_CM_IDLE)
		return 0;       /* one connection per case */
	if (rk_cm_listen_req(&cm->conn, &m, cm->next_comm_id++, now_ns) < 0)
		return rk_cm_reject(&cm->conn, RK_CM_REJ_CONSUMER_REJECT, out) > 0 ? RK_CM_SEND : 0;
	act = rk_cm_accept(&cm->conn, &cm->local, now_ns, out);
	if (act == -EMSGSIZE)
		return RK_CM_SEND;      /* the REJ of an MTU we do not carry */
	return act > 0 ? RK_CM_SEND : 0;
}

int
rk_conform_self_cm_timer(struct rk_conform_self_cm *cm, uint64_t now_ns,
			 uint8_t out[RK_MAD_LEN])
{
	int act;

	if (cm->service_id == 0)
		return 0;
	act = rk_cm_timer(&cm->conn, now_ns, out);
	return act > 0 ? act & RK_CM_SEND : 0;
}
