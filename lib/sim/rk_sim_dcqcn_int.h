/* SPDX-License-Identifier: BSD-3-Clause */
/* rk_sim_dcqcn's state, shared by its files (not installed). */
#ifndef RK_SIM_DCQCN_INT_H
#define RK_SIM_DCQCN_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "rk_ib.h"
#include "rk_sim_dcqcn.h"
#include "rk_sim_switch.h"

struct rxf {
	struct rxf *next;
	uint64_t t;
	uint32_t len;
	uint8_t data[];
};

struct host {
	struct rk_sdq *s;
	struct rk_sw *sw;               /* the switch its link goes to */
	unsigned int port;              /* switch port; flow index for senders */
	struct host *peer;              /* senders: the receiver written to */
	struct rk_ib_dev *dev;
	struct rk_ib_pd *pd;
	struct rk_ib_cq *cq;
	struct rk_ib_qp *qp[RK_SDQ_MAX_SENDERS];
	uint8_t *mem;
	struct rk_ib_mr *mr;
	uint8_t mac[6], ip[16];
	struct rxf *rx_head, *rx_tail;
	uint64_t link_free;             /* the host link's transmitter is busy until */
	uint64_t now;                   /* the time of the emit in progress */
	unsigned int posted;
	uint64_t paused_until;          /* PFC: priority 0 (data) stopped until */
	uint64_t paused_from;           /* PFC: since the last frame that named priority 0 */
	uint64_t paused_ns, pfc_rx;     /* PFC: time paused before paused_from, frames taken */
	uint64_t storm_next;            /* storming receiver: its next XOFF, 0: not storming */
	unsigned int flow;              /* senders: index in rx_bytes */
	uint64_t start_ns;              /* senders: the first WRITE is posted then */
	uint64_t goodput_bytes, wc_errors;  /* senders: WRITEs completed, failed */
};

struct rk_sdq {
	struct rk_sdq_cfg cfg;
	struct rk_sw_net *net;
	struct rk_sw *sw;               /* the senders' switch (T0) */
	struct rk_sw *t1;               /* victim: the receivers' switch */
	struct rk_sw *bott_sw;          /* the bottleneck: port bott_port of bott_sw */
	unsigned int bott_port;
	unsigned int nsnd;              /* senders, and the victim */
	unsigned int uplink_port;       /* two tiers: T0's port to T1 */
	unsigned int t0_ports;
	struct host recv, vrecv, snd[RK_SDQ_MAX_SENDERS + 1];
	uint64_t rx_bytes[RK_SDQ_MAX_SENDERS + 1];
	uint64_t q_bytes, q_t;
	double q_area;
	int err;
};

#endif
