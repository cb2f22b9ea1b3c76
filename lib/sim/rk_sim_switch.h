/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_sim_switch.h
 * Output-queued Ethernet switches and fixed-rate sources on one virtual
 * clock, for congestion experiments (PFC and ECN) without hardware.
 *
 * Model: each switch port has 8 egress queues (one per 802.1p priority)
 * and one shared packet buffer. Ingress accounting per (port, priority
 * group) drives PFC (IEEE 802.1Qbb): above xoff_bytes the switch sends an
 * XOFF (real PFC frame, pause_quanta) to the upstream port, refreshed while
 * over, and an XON (quanta 0) once under xon_bytes; headroom_bytes above
 * xoff absorbs what is in flight, beyond it a lossless frame is dropped
 * (counted). Egress accounting drives ECN as RED on the instantaneous
 * queue bytes (Kmin, Kmax, Pmax; DCQCN paper, Zhu et al., SIGCOMM 2015,
 * section 3.1 "CP"): only ECT frames are marked, CE is written into the
 * real IPv4/IPv6 header (IPv4 checksum fixed); in a lossy priority a
 * frame is dropped when the queue holds limit_bytes.
 *
 * A port receiving PFC stops that priority at the next frame boundary for
 * quanta * 512 bit times at its own rate; a new frame refreshes the pause,
 * quanta 0 (XON) ends it (802.1Qbb clause 36). Links are store-and-forward:
 * a frame of n bytes leaves after n * 8 / rate and arrives prop_ns later.
 * Pauses propagate across switch tiers; cyclic buffer dependencies can
 * deadlock, as "RDMA over Commodity Ethernet at Scale" (Guo et al.,
 * SIGCOMM 2016) describes.
 *
 * Deterministic: events at the same time run in the order they were
 * scheduled; random marking uses a per-port seeded generator.
 * Not thread-safe.
 */
#ifndef RK_SIM_SWITCH_H
#define RK_SIM_SWITCH_H

#include <stdbool.h>
#include <stdint.h>

#define RK_SW_PRIOS 8

/** Per-port configuration. Bytes are frame bytes without FCS. */
struct rk_sw_port_cfg {
	uint64_t rate_bps;              /**< link rate of this egress port (> 0) */
	uint64_t prop_ns;               /**< propagation delay to the peer */
	uint32_t reserve_bytes;         /**< per priority group, before xoff counting */
	uint32_t xoff_bytes;            /**< ingress bytes of a PG above which XOFF is sent */
	uint32_t xon_bytes;             /**< XON when the PG falls under this */
	uint32_t headroom_bytes;        /**< above xoff; beyond it a lossless frame is dropped */
	uint16_t pause_quanta;          /**< quanta of XOFF frames (512 bit times each) */
	uint32_t kmin_bytes[RK_SW_PRIOS];  /**< RED: no marking at or below */
	uint32_t kmax_bytes[RK_SW_PRIOS];  /**< RED: always marking above */
	double pmax[RK_SW_PRIOS];       /**< RED: probability at kmax */
	uint32_t limit_bytes;           /**< lossy queue limit (egress bytes per queue) */
	/**
	 * PFC watchdog of each egress queue (0: off): paused without a break
	 * for pfcwd_detect_ns while holding frames is a pause storm; the
	 * queue then ignores PFC and drops its frames, queued and arriving,
	 * until no PFC frame has named its priority for pfcwd_restore_ns
	 * (the drop action of SONiC's and switch vendors' PFC watchdogs).
	 */
	uint64_t pfcwd_detect_ns, pfcwd_restore_ns;
};

/** Switch configuration. */
struct rk_sw_cfg {
	unsigned int nports;
	uint8_t lossless_mask;          /**< bit n: priority n is PFC-protected */
	bool mark_at_enqueue;           /**< ECN decision at enqueue (default: dequeue) */
	bool deterministic;             /**< mark when the summed probability reaches 1 */
	uint64_t seed;                  /**< per-port generators derive from it */
	uint32_t buffer_bytes;          /**< shared buffer; 0 = unlimited */
	struct rk_sw_port_cfg port;     /**< applied to every port */
};

/** Counters of one (port, priority). */
struct rk_sw_prio_stats {
	uint64_t tx_frames, rx_frames;
	uint64_t tx_pause, rx_pause;    /**< PFC frames naming this priority (XOFF and XON) */
	uint64_t pause_ns;              /**< time this egress priority spent paused */
	uint64_t ecn_marked;
	uint64_t drops;
	uint64_t queue_peak;            /**< egress bytes, highest seen */
	uint64_t pfcwd_storms;          /**< pause storms the watchdog found */
	uint64_t pfcwd_drops;           /**< frames it dropped while one lasted */
};

struct rk_sw_net;
struct rk_sw;

/**
 * A frame leaving the network to a host (port @p port of switch @p sw),
 * called when the switch starts sending it; @p t_ns is when its last bit
 * reaches the host (serialisation + propagation later).
 */
typedef void (*rk_sw_host_fn)(void *ctx, struct rk_sw *sw, unsigned int port,
			      uint64_t t_ns, const uint8_t *frame, uint32_t len);
/** A PFC frame sent (dir 0) or received (dir 1) by (sw, port). */
typedef void (*rk_sw_pfc_trace_fn)(void *ctx, struct rk_sw *sw, unsigned int port,
				   uint64_t t_ns, unsigned int prio, uint16_t quanta,
				   unsigned int dir);
/** An egress queue changed: bytes now, whether this frame was marked, paused. */
typedef void (*rk_sw_queue_trace_fn)(void *ctx, struct rk_sw *sw, unsigned int port,
				     unsigned int prio, uint64_t t_ns, uint64_t bytes,
				     bool marked, bool paused);

/** New empty network at virtual time 0; NULL on ENOMEM. */
struct rk_sw_net *rk_sw_net_create(void);
/** Free the network, its switches, sources and frames in flight. */
void rk_sw_net_destroy(struct rk_sw_net *n);
/** Current virtual time (ns). */
uint64_t rk_sw_net_now(const struct rk_sw_net *n);
/** Run events up to and including @p until_ns; the clock ends there. @return events run. */
uint64_t rk_sw_net_run(struct rk_sw_net *n, uint64_t until_ns);
/** Trace callbacks (NULL: none). */
void rk_sw_net_set_trace(struct rk_sw_net *n, rk_sw_pfc_trace_fn pfc, rk_sw_queue_trace_fn q,
			 void *ctx);

/** Add a switch; NULL with errno EINVAL (nports 0 or > 64, rate 0) or ENOMEM. */
struct rk_sw *rk_sw_add(struct rk_sw_net *n, const struct rk_sw_cfg *cfg);
/** Connect (a, pa) to (b, pb), both directions. @return 0, -EINVAL (bad or used port). */
int rk_sw_connect(struct rk_sw *a, unsigned int pa, struct rk_sw *b, unsigned int pb);
/** Frames leaving (sw, port) go to @p fn (a host); PFC frames too. @return 0, -EINVAL. */
int rk_sw_attach_host(struct rk_sw *sw, unsigned int port, rk_sw_host_fn fn, void *ctx);
/**
 * A host on (sw, port) sends @p frame: its last bit reaches the switch at
 * @p arrive_ns (the host models its own link: serialisation and
 * propagation). Frames of one port must be given in order of arrival.
 * @return 0, -EINVAL (bad port, a switch or source on it, @p arrive_ns
 *         in the past), -ENOMEM.
 */
int rk_sw_host_send(struct rk_sw *sw, unsigned int port, uint64_t arrive_ns,
		    const uint8_t *frame, uint32_t len);
/** Time of the next pending event (ns), UINT64_MAX when there is none. */
uint64_t rk_sw_net_next_ns(const struct rk_sw_net *n);
/** Egress routing: frames whose destination MAC's last byte is @p mac_lsb leave by @p port. */
int rk_sw_route(struct rk_sw *sw, uint8_t mac_lsb, unsigned int port);
/** Override one port's configuration. @return 0, -EINVAL. */
int rk_sw_set_port_cfg(struct rk_sw *sw, unsigned int port, const struct rk_sw_port_cfg *pc);

/**
 * A fixed-rate source on a host link into (sw, port): from @p start_ns to
 * @p stop_ns it sends @p frame back to back at @p rate_bps (serialisation
 * n * 8 / rate, then prop_ns to the switch), honouring PFC frames the
 * switch sends back (paused priority = the frame's). @return 0, -EINVAL, -ENOMEM.
 */
int rk_sw_add_source(struct rk_sw *sw, unsigned int port, uint64_t rate_bps, uint64_t prop_ns,
		     const uint8_t *frame, uint32_t len, uint64_t start_ns, uint64_t stop_ns);
/** Frames sent so far by source @p idx (in order of adding) and its paused time (ns). */
uint64_t rk_sw_source_sent(const struct rk_sw_net *n, unsigned int idx, uint64_t *paused_ns);

/** Counters of (sw, port, prio); NULL when out of range. */
const struct rk_sw_prio_stats *rk_sw_stats(const struct rk_sw *sw, unsigned int port,
					   unsigned int prio);
/** Ingress bytes now accounted to (port, priority group). */
uint64_t rk_sw_ingress_bytes(const struct rk_sw *sw, unsigned int port, unsigned int pg);
/** Egress bytes now queued at (port, prio). */
uint64_t rk_sw_queue_bytes(const struct rk_sw *sw, unsigned int port, unsigned int prio);
/** Whether the peer's PFC/PAUSE holds egress (port, prio) now. */
bool rk_sw_paused(const struct rk_sw *sw, unsigned int port, unsigned int prio);

/**
 * RED marking probability for @p bytes queued (DCQCN paper, 3.1):
 * 0 at or below kmin, pmax * (q - kmin) / (kmax - kmin) up to kmax, 1 above.
 */
double rk_sw_red_p(uint64_t bytes, uint32_t kmin, uint32_t kmax, double pmax);

/**
 * Parse an 802.1Qbb PFC frame (untagged, 01:80:C2:00:00:01, 0x8808,
 * opcode 0x0101). @return 0 with the class-enable vector and 8 quanta,
 * -EINVAL when it is not one (too short, other type or opcode).
 */
int rk_sw_pfc_parse(const uint8_t *frame, uint32_t len, uint8_t *class_enable,
		    uint16_t quanta[RK_SW_PRIOS]);

/**
 * Set CE in the IP header of an Ethernet frame (optionally one 802.1Q tag)
 * if it is ECT(0) or ECT(1) (RFC 3168 5); fixes the IPv4 checksum.
 * @return 1 marked, 0 not ECT or already CE, -EINVAL not IPv4/IPv6 or short.
 */
int rk_sw_set_ce(uint8_t *frame, uint32_t len);

/** 802.1p priority of a frame: the tag's PCP, else DSCP >> 3, else 0. */
unsigned int rk_sw_frame_prio(const uint8_t *frame, uint32_t len);

#endif /* RK_SIM_SWITCH_H */
