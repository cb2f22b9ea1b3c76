/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_insp_qos.h
 * QoS and congestion view of a capture: VLAN priority (PCP), DSCP and ECN
 * of RDMA packets per class, CE marks answered by CNPs per host pair, and
 * IEEE 802.3x PAUSE / 802.1Qbb PFC time per priority with storms.
 *
 * Everything here is counted from what the capture shows; times are the
 * capture's timestamps in ns. Memory grows with the host pairs seen and
 * with the CE-to-CNP delays measured (one uint64_t each).
 */
#ifndef RK_INSP_QOS_H
#define RK_INSP_QOS_H

#include <stdbool.h>
#include <stdint.h>

#include "rk_insp_hash.h"
#include "rk_pkt.h"

/** Default link rate for pause times in µs (--link-rate), Gb/s. */
#define RK_INSP_QOS_LINK_GBPS_DEFAULT 100u
/** Default storm threshold (--storm-ms), ms. */
#define RK_INSP_QOS_STORM_MS_DEFAULT 100u
/** Index of IEEE 802.3x PAUSE (whole link) in rk_insp_qos::pause. */
#define RK_INSP_QOS_LINK_PAUSE 8
/** Index of untagged packets in rk_insp_qos::pcp. */
#define RK_INSP_QOS_UNTAGGED 8

/** ECN codepoints (RFC 3168 5): the IP header's two ECN bits. */
enum rk_insp_ecn {
	RK_INSP_ECN_NOT_ECT = 0,
	RK_INSP_ECN_ECT1 = 1,
	RK_INSP_ECN_ECT0 = 2,
	RK_INSP_ECN_CE = 3,
};

/** What an RDMA packet is for the per-class table. */
enum rk_insp_qos_role {
	RK_INSP_QOS_DATA = 0,   /**< requests, READ responses: everything else */
	RK_INSP_QOS_ACK,        /**< Acknowledge and Atomic Acknowledge (ACK, NAK, RNR NAK) */
	RK_INSP_QOS_CNP,        /**< CNP, BTH opcode 0x81 (IBTA Annex A17.9.3) */
};

/** The QoS marks of one packet, taken once from rk_pkt. */
struct rk_insp_qos_marks {
	bool tagged;            /**< an IEEE 802.1Q tag (the outer one when two) */
	uint16_t vid;           /**< its VLAN ID */
	uint8_t pcp;            /**< its priority code point, 0..7 */
	bool has_ip;            /**< IPv4, IPv6 or GRH: dscp and ecn are valid */
	uint8_t dscp;           /**< upper six bits of TOS / traffic class */
	uint8_t ecn;            /**< enum rk_insp_ecn */
};

/**
 * Marks of @p pkt: the outer VLAN tag's PCP and VID (IEEE 802.1Q 9.6), the
 * DSCP and ECN of its IPv4/IPv6 header or GRH (RFC 2474, RFC 3168 5).
 */
void rk_insp_qos_marks_of(struct rk_insp_qos_marks *m, const struct rk_pkt *pkt);

/** Role of BTH opcode @p opflags (enum rk_opflag) in the per-class table. */
enum rk_insp_qos_role rk_insp_qos_role_of(uint32_t opflags);

/** One delay sample list (ns). */
struct rk_insp_delays {
	uint64_t *v;
	uint64_t n, cap;
};

/**
 * Marks of one QP flow (one direction): the first seen, and counts; and
 * its CE marks answered by CNPs, once the CNPs' QP is tied to this flow.
 */
struct rk_insp_cong;

struct rk_insp_flow_qos {
	bool seen;
	struct rk_insp_qos_marks first; /**< marks of the flow's first packet */
	uint64_t ecn[4];        /**< packets per ECN codepoint (enum rk_insp_ecn) */
	/* The host-pair records of this flow's addresses, src -> dst and
	 * dst -> src, once found: a flow's addresses never change, so its
	 * packets skip the pair table's lookup. Next to the counters every
	 * packet updates, in the same cache line. */
	struct rk_insp_cong *pair_sd, *pair_ds;
	uint64_t changed;       /**< packets whose VLAN, PCP or DSCP differ from the first */
	/* As the data flow: CNPs paired with it, and its marks' delays. */
	uint64_t cnps;          /**< CNPs of the paired flow (see rk_insp_qos_flow()) */
	uint64_t cnps_unprompted; /**< of which with no CE mark of this flow pending */
	bool ce_pending;
	uint64_t ce_pending_ns;
	struct rk_insp_delays delay; /**< CE-to-CNP delays of this flow's marks */
	/* As the flow of ACKs and CNPs: the data flow they answer, or NULL. */
	struct rk_insp_flow_qos *peer;
	uint64_t cnps_unpaired; /**< CNPs on this flow before it was tied to a data flow */
};

/** Count the marks @p m of one packet of a flow. */
void rk_insp_flow_qos_add(struct rk_insp_flow_qos *q, const struct rk_insp_qos_marks *m);

/** Free what @p q holds (its delays). */
void rk_insp_flow_qos_fini(struct rk_insp_flow_qos *q);

/** Counters of one traffic class (a PCP or a DSCP value). */
struct rk_insp_qos_class {
	uint64_t data, acks, cnps;  /**< RDMA packets by enum rk_insp_qos_role */
	uint64_t bytes;             /**< their wire bytes */
	uint64_t ect, ce;           /**< ECT(0)/ECT(1) packets, CE-marked packets */
};

/** PAUSE or PFC of one priority (or of the whole link). */
struct rk_insp_pause_prio {
	uint64_t frames;        /**< frames that name this priority (class enabled) */
	uint64_t xon;           /**< of which with 0 quanta (resume) */
	uint64_t quanta;        /**< quanta asked for, summed */
	uint64_t paused_ns;     /**< time paused: the union of the asked intervals */
	uint64_t storms;        /**< runs of continuous pause longer than the threshold */
	uint64_t longest_ns;    /**< longest continuous run */
	uint64_t storm_start_ns; /**< start of the first storm (capture time) */
	/* the run under way */
	bool paused;
	uint64_t run_start, until;
};

/**
 * Congestion of one host pair: RoCE packets from @c src to @c dst and the
 * CNPs from @c dst back to @c src (IBTA Annex A17.9: the notification
 * point answers CE-marked packets with CNPs to their sender).
 */
struct rk_insp_cong {
	/* What a data packet of the pair touches, in the first 64 bytes
	 * (the record is allocated on a cache line). */
	uint64_t packets, bytes;      /**< RoCE packets src -> dst, not CNPs */
	uint64_t ect, ce;             /**< of which ECN-capable, CE-marked */
	uint64_t last_ns;             /**< time of the last of them */
	uint64_t bytes_before;        /**< wire bytes src -> dst before the first CNP */
	/* The data flow src -> dst seen last and its PSN: an ACK dst -> src
	 * naming a PSN it sent lately ties the ACK's QP to it. */
	struct rk_insp_flow_qos *last_flow;
	uint32_t last_psn;
	bool ce_pending;              /**< a CE mark not yet answered */
	bool cnp_seen;                /**< cnps != 0 */
	/* The rest. */
	uint64_t first_ns;            /**< time of the first packet */
	uint64_t cnps;                /**< CNPs dst -> src */
	uint64_t cnps_unprompted;     /**< CNPs with no CE mark pending */
	uint64_t ce_pending_ns;       /**< time of the first mark pending */
	struct rk_insp_delays delay;  /**< CE-to-CNP delays, in order */
	/* The sender's reaction: its rate before the first CNP and after. */
	uint64_t first_cnp_ns;
	uint64_t bytes_after;         /**< wire bytes src -> dst from the first CNP on */
	uint64_t after_first_ns;      /**< first packet from the first CNP on */
	struct rk_insp_hlink hl;
	struct rk_insp_cong *next;    /* creation order */
	uint8_t src[16], dst[16];     /**< as rk_insp_flow_key */
};

/** An ACK ties its flow to a data flow that sent its PSN at most this many PSNs ago. */
#define RK_INSP_QOS_PAIR_WINDOW 1024u

/** Options. */
struct rk_insp_qos_opts {
	uint64_t link_bps;      /**< link rate, bit/s; 0 = 100 Gb/s */
	uint64_t storm_ns;      /**< storm threshold, ns; 0 = 100 ms */
};

/** The whole view. */
struct rk_insp_qos {
	struct rk_insp_qos_opts opts;
	struct rk_insp_qos_class pcp[9];   /**< PCP 0..7, [8] untagged */
	struct rk_insp_qos_class dscp[64]; /**< DSCP 0..63 (packets with an IP header or GRH) */
	struct rk_insp_pause_prio pause[9]; /**< PFC priorities 0..7, [8] 802.3x PAUSE */
	uint64_t ecn[4];                    /**< RDMA packets per ECN codepoint */
	uint64_t cnps, ce;                  /**< all CNPs, all CE-marked packets */
	uint64_t tagged;                    /**< RDMA packets with a VLAN tag */
	uint64_t last_ns;                   /**< latest timestamp seen */
	struct rk_insp_htab hash;
	struct rk_insp_cong *head, *tail;
	struct rk_insp_cong *last, *prev;   /* lookup cache: the two pairs found last
					       (data one way, ACKs the other) */
	uint64_t npairs;
	bool nomem;                         /**< a pair or delay was not kept (out of memory) */
};

/** Initialise @p q. @return 0, or -ENOMEM. */
int rk_insp_qos_init(struct rk_insp_qos *q, const struct rk_insp_qos_opts *opts);

/** Free everything @p q holds. */
void rk_insp_qos_fini(struct rk_insp_qos *q);

/**
 * Account one RDMA packet (with a BTH) sent at @p ts_ns from @p src to
 * @p dst (16-byte addresses as rk_insp_flow_key): its class counters, and,
 * for RoCEv2 with an IP header, the CE-to-CNP pairing of its host pair. A
 * CNP answers the CE marks of the opposite direction: the delay runs from
 * the first CE mark not yet answered (RFC 3168 5, IBTA Annex A17.9.3).
 * @p fq is the QoS record of the packet's flow, where it keeps its host
 * pairs for the next packet, or NULL (a packet with no flow).
 */
void rk_insp_qos_packet(struct rk_insp_qos *q, struct rk_insp_flow_qos *fq, const uint8_t *src,
			const uint8_t *dst, const struct rk_insp_qos_marks *m,
			enum rk_insp_qos_role role, uint32_t wirelen, uint64_t ts_ns);

/**
 * The per-flow side of one RDMA packet, after rk_insp_qos_packet() for the
 * same packet: @p fq is the QoS record of its flow (src, dst, DestQP).
 * Data packets from A to B keep their flow as the host pair's last one
 * with their PSN. An ACK or NAK from B to A whose PSN is at most
 * RK_INSP_QOS_PAIR_WINDOW behind that PSN ties its flow (B, A, A's QP) to
 * that data flow: the CNPs on it (they name A's QP too, IBTA Annex
 * A17.9.3) then answer that flow's CE marks, per flow as per host pair.
 * CNPs on a flow not yet tied are counted in its cnps_unpaired.
 */
void rk_insp_qos_flow(struct rk_insp_qos *q, struct rk_insp_flow_qos *fq, const uint8_t *src,
		      const uint8_t *dst, const struct rk_insp_qos_marks *m,
		      enum rk_insp_qos_role role, uint32_t psn, uint64_t ts_ns);

/**
 * Account one MAC Control frame at @p ts_ns: IEEE 802.3x PAUSE (@p pfc
 * false, 802.3 Annex 31B: quanta[0] for the whole link) or IEEE 802.1Qbb
 * PFC (class-enable vector @p class_enable, quanta[i] for priority i).
 * A frame with 0 quanta resumes the priority at once; one that arrives
 * while the priority is paused extends the run (a refresh). One quantum is
 * 512 bit times at the link rate of the options.
 */
void rk_insp_qos_pause(struct rk_insp_qos *q, bool pfc, uint8_t class_enable,
		       const uint16_t quanta[8], uint64_t ts_ns);

/**
 * End of capture: a pause still running counts to its expiry, the time its
 * last frame asked for (the capture may end first; the link does not).
 */
void rk_insp_qos_finish(struct rk_insp_qos *q);

/** Duration of @p quanta pause quanta at @p link_bps bit/s, ns (512 bit times each). */
uint64_t rk_insp_pause_ns(uint64_t quanta, uint64_t link_bps);

/**
 * Nearest-rank percentile @p pct (1..100) of @p d, ns; 0 when empty.
 * Sorts a copy; @return 0 too when out of memory.
 */
uint64_t rk_insp_delays_pct(const struct rk_insp_delays *d, unsigned int pct);

/** Largest of @p d, ns; 0 when empty. */
uint64_t rk_insp_delays_max(const struct rk_insp_delays *d);

/**
 * The sender's reaction on @p c: its rate, bit/s of wire bytes, before its
 * first CNP (from its first packet to the CNP) in @p before_bps and from
 * the CNP on (to its last packet) in @p after_bps.
 * @return false when there was no CNP or a window is empty (then both 0).
 */
bool rk_insp_cong_rates(const struct rk_insp_cong *c, uint64_t *before_bps,
			uint64_t *after_bps);

/** True when the capture showed anything the QoS view reports beyond plain traffic. */
bool rk_insp_qos_any(const struct rk_insp_qos *q);

#endif /* RK_INSP_QOS_H */
