/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A ring of switches with PFC, the cyclic buffer dependency that
 * deadlocks a lossless network ("RDMA over Commodity Ethernet at Scale",
 * SIGCOMM 2016, section 4: a loop of pauses that never ends once the
 * senders stop), and its acyclic control, on lib/sim's switch model
 * (rk_sim_switch.h).
 *
 * Switch i has a host source on port 0, its ring egress on port 1 (to
 * switch i + 1's port 2) and a sink on port 3. Flow i goes two hops
 * clockwise, from switch i's source to switch i + 2's sink, so each ring
 * link it crosses carries two flows at twice its rate. With a flow on
 * every switch the pauses form a cycle; with the flows of switches
 * 0 .. N - 3 the last ring link carries nothing and there is none.
 */
#ifndef RK_SIM_RING_H
#define RK_SIM_RING_H

#include <stdint.h>

#define RK_SRING_MIN 3u
#define RK_SRING_MAX 8u

struct rk_sring_cfg {
	unsigned int switches;  /**< RK_SRING_MIN .. RK_SRING_MAX */
	unsigned int flows;     /**< 1 .. switches: the sources of switches 0 .. flows - 1 */
	uint64_t link_bps;      /**< every link's rate (> 0) */
	uint64_t prop_ns;       /**< propagation delay of each ring link */
	uint32_t frame_bytes;   /**< 64 .. 9000: every flow's frame, PFC priority 3 */
	uint64_t stop_ns;       /**< the sources stop sending then (> 0) */
	uint32_t xoff_bytes, xon_bytes, headroom_bytes; /**< per ingress port (xon < xoff) */
	uint64_t pfcwd_ns;      /**< 0, or the PFC watchdog's detection and restore time */
};

/** Counts over the whole ring at the current time. */
struct rk_sring_counts {
	uint64_t sent;          /**< frames the sources sent */
	uint64_t delivered;     /**< frames the sinks received */
	uint64_t buffered_bytes; /**< held in the switches' egress queues now */
	uint64_t ring_paused_ns; /**< summed over the ring egress ports (priority 3),
				      each pause counted to its end when it is set */
	unsigned int ring_paused; /**< ring egress ports paused now */
	uint64_t pfc_frames;    /**< PFC frames the switches sent */
	uint64_t drops;         /**< frames dropped past the headroom */
	uint64_t pfcwd_storms, pfcwd_drops;
};

struct rk_sring;

/** Build the ring. @return NULL with errno EINVAL (a value out of range) or ENOMEM. */
struct rk_sring *rk_sring_create(const struct rk_sring_cfg *c);

void rk_sring_destroy(struct rk_sring *r);

/** Run the ring's events up to @p until_ns of virtual time. */
void rk_sring_run(struct rk_sring *r, uint64_t until_ns);

/** The counts now. */
void rk_sring_counts(const struct rk_sring *r, struct rk_sring_counts *out);

#endif
