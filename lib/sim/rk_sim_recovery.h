/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_sim_recovery.h
 * Go-back-N against selective repeat (rk_ib_qp_set_recovery), the
 * comparison of "Revisiting Network Support for RDMA" (Mittal et al.,
 * SIGCOMM 2018) without PFC and without congestion control, in two
 * settings:
 *
 * - a lossy link: the checked workload (rk_sim_wl.h) of 64 KiB RDMA
 *   WRITEs, 16 outstanding, MTU 1024, a 10 Gb/s link paced at both ends,
 *   5 us each way, the same random loss in both directions, local ACK
 *   timeout 10 (4.2 ms);
 * - an N:1 incast through the simulated switch (rk_sim_dcqcn.h): N rdmakit
 *   RC QPs keep 16 WRITEs of 64 KiB posted to one receiver, every link
 *   40 Gb/s with 500 ns each way. Without PFC the receiver's port drops
 *   what does not fit its queue limit, so the loss comes from the
 *   congestion itself; with PFC every priority is lossless and nothing is
 *   dropped. DCQCN (the paper profile, RED 5..40 KB, Pmax 0.2) is optional.
 */
#ifndef RK_SIM_RECOVERY_H
#define RK_SIM_RECOVERY_H

#include <stdbool.h>
#include <stdint.h>

#include "rk_sim_wl.h"

/** One run of the comparison. */
struct rk_sim_recovery_point {
	double loss;                    /**< per frame, each direction */
	double goodput_gbps;            /**< payload bytes completed per virtual second */
	uint64_t req_pkts, retx_pkts;   /**< request packets sent, of which resent */
	uint64_t timeouts, nak_seq;     /**< local ACK timeouts, NAK-SEQs sent */
	uint64_t rto_low_timeouts;      /**< of the timeouts, RTO_low ones ("sr") */
	uint64_t virtual_ns;
};

/**
 * Run @p ops WRITEs with loss recovery @p algo ("gbn" or "sr") at frame
 * loss @p loss (0..1) and seed @p seed; every byte is checked.
 * @return 0, or the rk_sim_wl_run() error (-EIO: a check failed).
 */
int rk_sim_recovery_run(const char *algo, double loss, uint64_t seed, uint32_t ops,
			struct rk_sim_recovery_point *p);

/**
 * rk_sim_recovery_run with few packets in flight, where IRN's RTO_low
 * works: @p ops WRITEs of 1 KiB (one packet each), 2 outstanding, on the
 * same link; @p rto_low false turns selective repeat's RTO_low off.
 */
int rk_sim_recovery_run_few(const char *algo, bool rto_low, double loss, uint64_t seed,
			    uint32_t ops, struct rk_sim_recovery_point *p);

#define RK_SIM_RECOVERY_MAX_SENDERS 16

/**
 * Called every sample_ns of an incast run: the virtual time, the payload
 * bytes the receiver placed in order for each of the @p n flows so far
 * (rk_sdq_flow's placed_bytes: counted as each packet lands, so the
 * difference between two samples is the payload delivered between them,
 * at most the link's payload rate; completions move in whole 64 KiB
 * WRITEs and would show bursts above it), the receiver port's queue
 * (bytes now) and the frames the switch dropped so far.
 */
typedef void (*rk_sim_recovery_sample_fn)(void *ctx, uint64_t t_ns, const uint64_t *placed_bytes,
					  unsigned int n, uint64_t queue_bytes, uint64_t drops);

/** An incast run of the comparison. */
struct rk_sim_recovery_incast_cfg {
	unsigned int senders;           /**< 2..RK_SIM_RECOVERY_MAX_SENDERS */
	const char *algo;               /**< "gbn" or "sr", on every QP */
	bool pfc;                       /**< every priority lossless; else drops at the limit */
	bool dcqcn;                     /**< DCQCN (paper profile) on every QP */
	uint64_t duration_ns;           /**< virtual time of the run (> 0) */
	uint64_t seed;                  /**< the switch's RED generator */
	uint32_t limit_bytes;           /**< receiver port's queue limit without PFC; 0: default */
	uint8_t timeout;                /**< local ACK timeout exponent; 0: default */
	uint32_t window;                /**< requester window, packets per QP; 0: default */
	bool rto_low_off;               /**< "sr" without RTO_low (rk_ib_qp_set_rto_low) */
	uint32_t rto_low_us;            /**< "sr": RTO_low, us; 0: IRN's 100 */
	uint64_t sample_ns;             /**< 0: no samples */
	rk_sim_recovery_sample_fn sample;
	void *sample_ctx;
};

/** What an incast run did, per flow and in all. Gb/s are of payload. */
struct rk_sim_recovery_incast {
	double flow_gbps[RK_SIM_RECOVERY_MAX_SENDERS];
	uint64_t flow_retx[RK_SIM_RECOVERY_MAX_SENDERS];
	double goodput_gbps;            /**< all flows: payload of completed WRITEs / duration */
	uint64_t req_pkts, retx_pkts;   /**< request packets sent, of which resent */
	uint64_t timeouts;              /**< local ACK timeouts */
	uint64_t rto_low_timeouts;      /**< of them, RTO_low ones ("sr") */
	uint64_t nak_seq;               /**< NAK-SEQs the receiver sent */
	uint64_t wc_errors;             /**< WRITEs completed in error (retries exceeded) */
	uint64_t drops;                 /**< frames the switch dropped */
	uint64_t pfc_frames;            /**< PFC frames the switch sent */
	uint64_t marked;                /**< frames it marked CE */
	uint64_t queue_peak;            /**< receiver port, bytes */
};

/**
 * The defaults the incast run uses for 0: queue limit (bytes), local ACK
 * timeout exponent, requester window. Selective repeat here resends one
 * hole per NAK, and its short timeout for a resend lost again (IRN's
 * RTO_low) runs only with at most 3 packets in flight, never with a full
 * window; with windows of hundreds of packets its losses come in
 * bursts that end in timeouts and it can fall below go-back-N. IRN bounds
 * the packets in flight to about a BDP (BDP-FC); 64 is in that spirit.
 */
#define RK_SIM_RECOVERY_LIMIT 200000u
#define RK_SIM_RECOVERY_TIMEOUT 7       /* 4.096 us x 2^7 = 524 us */
#define RK_SIM_RECOVERY_WINDOW 64u      /* packets: one 64 KiB WRITE, a few BDPs */

/**
 * Run one incast of @p cfg into @p out. Same configuration, same run.
 * @return 0; -EINVAL (senders out of range, unknown algo, duration 0),
 *         -ENOMEM, -EIO (an engine stalled).
 */
int rk_sim_recovery_incast_run(const struct rk_sim_recovery_incast_cfg *cfg,
			       struct rk_sim_recovery_incast *out);

#endif /* RK_SIM_RECOVERY_H */
