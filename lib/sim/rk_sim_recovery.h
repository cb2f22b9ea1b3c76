/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_sim_recovery.h
 * Go-back-N against selective repeat (rk_ib_qp_set_recovery) on a lossy
 * link, the comparison of "Revisiting Network Support for RDMA" (SIGCOMM
 * 2018) without PFC and without congestion control: the checked workload
 * (rk_sim_wl.h) of 64 KiB RDMA WRITEs, 16 outstanding, MTU 1024, a
 * 10 Gb/s link paced at both ends, 5 us each way, the same random loss in
 * both directions, local ACK timeout 10 (4.2 ms).
 */
#ifndef RK_SIM_RECOVERY_H
#define RK_SIM_RECOVERY_H

#include <stdint.h>

#include "rk_sim_wl.h"

/** One run of the comparison. */
struct rk_sim_recovery_point {
	double loss;                    /**< per frame, each direction */
	double goodput_gbps;            /**< payload bytes completed per virtual second */
	uint64_t req_pkts, retx_pkts;   /**< request packets sent, of which resent */
	uint64_t timeouts, nak_seq;     /**< local ACK timeouts, NAK-SEQs sent */
	uint64_t virtual_ns;
};

/**
 * Run @p ops WRITEs with loss recovery @p algo ("gbn" or "sr") at frame
 * loss @p loss (0..1) and seed @p seed; every byte is checked.
 * @return 0, or the rk_sim_wl_run() error (-EIO: a check failed).
 */
int rk_sim_recovery_run(const char *algo, double loss, uint64_t seed, uint32_t ops,
			struct rk_sim_recovery_point *p);

#endif /* RK_SIM_RECOVERY_H */
