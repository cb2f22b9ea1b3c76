/* SPDX-License-Identifier: BSD-3-Clause */
/* A connected QP's way from INIT to RTS (rk_app_qp.h). */
#include <string.h>

#include "rk_app_qp.h"

int
rk_app_qp_connect(struct rk_qp *qp, const struct rk_app_qp_path *p, const char **state)
{
	struct rk_qp_attr a = { .qp_state = RK_QPS_RTR };
	int rc;

	a.path_mtu = p->mtu;
	a.dest_qp_num = p->dest_qpn;
	a.rq_psn = p->rq_psn;
	a.max_dest_rd_atomic = p->max_dest_rd_atomic;
	a.min_rnr_timer = p->min_rnr_timer;
	a.ah_attr.dscp = p->dscp;
	a.ah_attr.hop_limit = p->hop_limit;
	memcpy(a.ah_attr.dmac, p->dmac, 6);
	memcpy(a.ah_attr.dip, p->dgid, 16);
	if (p->sgid != NULL)
		memcpy(a.ah_attr.sip, p->sgid, 16);
	rc = rk_modify_qp(qp, &a, RK_QP_STATE | RK_QP_AV | RK_QP_PATH_MTU | RK_QP_DEST_QPN |
			  RK_QP_RQ_PSN | (p->uc ? 0 : RK_QP_MAX_DEST_RD_ATOMIC |
					  RK_QP_MIN_RNR_TIMER));
	if (rc != 0) {
		if (state != NULL)
			*state = "RTR";
		return rc;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = RK_QPS_RTS;
	a.sq_psn = p->sq_psn;
	a.timeout = p->timeout;
	a.retry_cnt = p->retry_cnt;
	a.rnr_retry = p->rnr_retry;
	a.max_rd_atomic = p->max_rd_atomic;
	rc = rk_modify_qp(qp, &a, RK_QP_STATE | RK_QP_SQ_PSN |
			  (p->uc ? 0 : RK_QP_TIMEOUT | RK_QP_RETRY_CNT | RK_QP_RNR_RETRY |
				       RK_QP_MAX_QP_RD_ATOMIC));
	if (rc != 0 && state != NULL)
		*state = "RTS";
	return rc;
}
