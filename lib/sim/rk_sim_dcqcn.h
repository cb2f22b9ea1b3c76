/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_sim_dcqcn.h
 * N:1 incast of rdmakit RC QPs through one simulated switch
 * (rk_sim_switch.h) on a virtual clock: each sender is an lib/ib device
 * with one RC QP writing to the receiver without pause; the receiver is one
 * device with one QP per sender. With DCQCN on, the switch marks CE by RED
 * on the bottleneck queue (the port towards the receiver), the receiver's
 * NP answers with CNPs (IBTA Vol1 Annex A17.9) and each sender's RP paces
 * its QP at R_C (Zhu et al., SIGCOMM 2015).
 *
 * Links: every host has one link of link_bps to its switch port, with
 * prop_ns of propagation each way; a host's frames are serialised on it
 * back to back, each handed to the link only once the last has left it,
 * so a PFC pause holds every frame not yet on the wire. The data priority is lossy with a large limit (no PFC),
 * as the DCQCN fluid model assumes, unless pfc is set: then every
 * priority is lossless (IEEE 802.1Qbb; per ingress port XOFF above 50 000
 * bytes, XON under 40 000, 100 000 bytes of headroom, pauses of 65 535
 * quanta).
 *
 * With victim set (and pfc), a second tier: the senders and one more
 * host, the victim, sit on switch T0, whose uplink of (senders + 1) x
 * link_bps goes to switch T1 with the receiver and the victim's own
 * receiver. The bottleneck is T1's port to the receiver; when its
 * backlog pauses the uplink (a pause stops a whole priority of a port),
 * the victim's WRITEs to an idle receiver wait behind the incast's:
 * congestion spreading, "RDMA over Commodity Ethernet at Scale" (Guo et
 * al., SIGCOMM 2016) section 4; DCQCN keeps the queue under the XOFF
 * threshold and gives the victim its rate back (Zhu et al., SIGCOMM 2015,
 * section 2).
 * With storm_ns (and pfc), a pause storm: from that time on the incast's
 * receiver takes no more frames and sends its switch a PFC XOFF for
 * priority 0, the data's (65 535 quanta), every 400 us, as a NIC whose
 * host stopped draining its receive queue does (Guo et al., section 4.3):
 * the pauses spread upstream to every sender, the victim's included.
 *
 * Same configuration and seed: same run, event for event. Not thread-safe.
 */
#ifndef RK_SIM_DCQCN_H
#define RK_SIM_DCQCN_H

#include <stdbool.h>
#include <stdint.h>

#include "rk_cc_dcqcn.h"

#define RK_SDQ_MAX_SENDERS 32

struct rk_sdq_cfg {
	unsigned int senders;           /**< 1..RK_SDQ_MAX_SENDERS */
	uint64_t link_bps;              /**< every link's rate */
	uint64_t prop_ns;               /**< every link's propagation delay */
	uint32_t msg_bytes;             /**< size of each RDMA WRITE (PMTU 1024) */
	uint32_t window;                /**< requester window, packets (max_inflight_pkts) */
	uint32_t kmin_bytes, kmax_bytes; /**< RED on the bottleneck queue */
	double pmax;
	bool mark_at_enqueue;           /**< default: at dequeue */
	uint32_t limit_bytes;           /**< bottleneck queue limit (drops above) */
	uint64_t seed;                  /**< RED's generator */
	bool dcqcn;                     /**< false: no congestion control at all */
	bool pfc;                       /**< every priority lossless (see above) */
	bool victim;                    /**< two tiers and a victim flow (needs pfc) */
	bool lone;                      /**< two tiers: the last sender alone on an
					     ingress port of the receiver's switch, the
					     others behind one uplink (senders >= 2; not
					     with victim) */
	uint64_t storm_ns;              /**< a pause storm from then on (needs pfc); 0: none */
	uint64_t stagger_ns;            /**< sender i starts at i x stagger_ns (the
					     victim at 0); 0: all at once */
	uint8_t timeout;                /**< RC local ACK timeout exponent (IBTA Vol1 9.7.6.1.3:
					     4.096 us x 2^timeout); 0: 14 (67 ms) */
	uint64_t pfcwd_ns;              /**< every switch port's PFC watchdog: detection and
					     restoration time (rk_sw_port_cfg); 0: off */
	struct rk_dcqcn_params params;  /**< RP and NP parameters (dcqcn only) */
	/** Loss recovery of every QP (rk_ib_qp_set_recovery): "gbn", "sr"; NULL: gbn. */
	const char *recovery;
	/** With "sr": rk_ib_qp_set_rto_low(rto_low_ns, RK_IB_RTO_LOW_N); else IRN's. */
	bool set_rto_low;
	uint64_t rto_low_ns;
};

/** One flow now. Rates in kb/s, alpha in 1/1024. */
struct rk_sdq_flow {
	uint64_t rx_bytes;              /**< frame bytes of this flow the receiver took */
	uint64_t rc_kbps, rt_kbps;      /**< 0 without DCQCN */
	uint32_t alpha;
	uint64_t cnp_sent;              /**< by the receiver's NP for this flow */
	uint64_t cnp_handled, cnp_ignored;
	uint64_t ce_received;           /**< CE-marked requests at the receiver */
	uint64_t goodput_bytes;         /**< payload of the WRITEs completed successfully */
	uint64_t req_pkts, retx_pkts;   /**< request packets sent, of which resent */
	uint64_t timeouts;              /**< local ACK timeouts of the sender's QP */
	uint64_t rto_low_timeouts;      /**< of them, RTO_low ones ("sr") */
	uint64_t nak_seq;               /**< NAK-SEQs the receiver's QP sent */
	uint64_t wc_errors;             /**< completions in error (retries exceeded: the flow stops) */
	/**
	 * Payload bytes the receiver placed in order so far: its RDMA WRITE
	 * packets placed x 1024 (the PMTU; every packet of a WRITE of
	 * msg_bytes a multiple of 1024 is full). Counted when each packet
	 * lands, unlike goodput_bytes, which moves in whole WRITEs at their
	 * completion.
	 */
	uint64_t placed_bytes;
	uint64_t pfc_rx;                /**< PFC frames naming the data priority the sender took */
	uint64_t paused_ns;             /**< time the sender's data priority was paused so far */
	bool paused;                    /**< the sender is paused now */
};

/** Where a pause stands now, all on priority 0 (the data's). */
struct rk_sdq_pause {
	bool bott_paused;               /**< the bottleneck port (towards the receiver) */
	bool uplink_paused;             /**< two tiers: T0's uplink towards T1; else false */
	uint64_t bott_wd_storms;        /**< storms the bottleneck port's watchdog found */
	uint64_t bott_wd_drops;         /**< frames it dropped for them */
};

struct rk_sdq;

/** Build the network and the QPs; NULL with errno EINVAL or ENOMEM. */
struct rk_sdq *rk_sdq_create(const struct rk_sdq_cfg *cfg);
void rk_sdq_destroy(struct rk_sdq *s);
/** Run until virtual time @p until_ns. @return 0, -EIO when an engine stalled. */
int rk_sdq_run(struct rk_sdq *s, uint64_t until_ns);
/** Flow @p i's counters (i < senders; i == senders: the victim, when
 * there is one); -EINVAL otherwise. */
int rk_sdq_flow(const struct rk_sdq *s, unsigned int i, struct rk_sdq_flow *out);
/**
 * The bottleneck queue: bytes now, and the integral of its bytes over
 * time since the start (byte * ns), for time averages between two reads.
 */
uint64_t rk_sdq_queue(const struct rk_sdq *s, double *area_byte_ns);
/** Bottleneck counters: frames marked, dropped (all ports), peak bytes. */
void rk_sdq_switch_counts(const struct rk_sdq *s, uint64_t *marked, uint64_t *dropped,
			  uint64_t *peak);
/**
 * PFC frames the switches sent (XOFF and XON, all priorities), and with a
 * victim the time T0's uplink egress spent paused on priority 0, the
 * data's (ns; 0 without a victim).
 */
void rk_sdq_pfc_counts(const struct rk_sdq *s, uint64_t *pfc_sent, uint64_t *uplink_paused_ns);
/** The pause state of the path towards the receiver now, into @p out. */
void rk_sdq_pause_state(const struct rk_sdq *s, struct rk_sdq_pause *out);
/** PFC watchdog: storms found and frames dropped, all switches and ports. */
void rk_sdq_pfcwd_counts(const struct rk_sdq *s, uint64_t *storms, uint64_t *drops);
/** Bytes on the wire of one data frame (the unit of the fluid model's packets). */
uint32_t rk_sdq_frame_bytes(void);

#endif
