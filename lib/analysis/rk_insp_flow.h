/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_insp_flow.h
 * Per-QP analysis of RoCEv1/v2 and native IB packets in a capture.
 *
 * A flow is one direction of a QP: (source address, destination address,
 * DestQP). It carries two PSN sequences: the requests of the sender's
 * requester, and the responses (ACK, READ response, atomic ACK) of the
 * sender's responder to the peer's requests. The table keeps one record
 * per flow and one per host pair (PMTU inference, outstanding READs);
 * nothing else grows with the capture.
 */
#ifndef RK_INSP_FLOW_H
#define RK_INSP_FLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "rk_finding.h"
#include "rk_insp_hash.h"
#include "rk_insp_qos.h"
#include "rk_pkt.h"

/** Flow key: addresses as 16 bytes (IPv4 mapped, GIDs, or LIDs), DestQP. */
struct rk_insp_flow_key {
	uint8_t src[16];
	uint8_t dst[16];
	uint32_t dest_qp;
	uint8_t kind;          /**< enum rk_pkt_kind */
	uint8_t lid;           /**< addresses are LIDs (native IB without GRH) */
};

/** What the analysis of one packet needs, extracted once from rk_pkt. */
struct rk_insp_roce {
	struct rk_insp_flow_key key;
	uint64_t frame;
	uint64_t ts_ns;        /**< capture time, ns (the caller's; 0 if none) */
	uint8_t opcode;
	uint32_t opflags;      /**< enum rk_opflag of the opcode */
	uint8_t transport;     /**< enum rk_transport */
	uint32_t psn;
	bool ack_req, fecn, becn;
	bool has_reth;
	uint32_t dma_len;
	bool has_aeth;
	uint8_t syndrome;
	uint32_t msn;
	uint32_t payload_len;
	uint32_t wirelen;
	bool truncated;
	enum rk_icrc_status icrc;
	struct rk_insp_qos_marks qos;  /**< VLAN, PCP, DSCP, ECN */
};

/** Per-packet verdict of the sequence analysis, for the packet line. */
enum rk_insp_seq_note {
	RK_INSP_SEQ_NONE = 0,
	RK_INSP_SEQ_IN_ORDER,
	RK_INSP_SEQ_FIRST,     /**< first packet of the sequence */
	RK_INSP_SEQ_GAP,       /**< ahead of the expected PSN */
	RK_INSP_SEQ_DUP,       /**< behind the expected PSN (retransmission) */
	RK_INSP_SEQ_RESYNC,    /**< accepted after a READ of unknown length in PSNs */
	RK_INSP_SEQ_LATE,      /**< out of order: seen after later PSNs, it fills
				    PSNs counted missing (a reorder, not a loss) */
};

/**
 * Verdict on a request that fills PSNs counted missing: the first packet
 * of a go-back-N run that resends them, or the packet itself arriving
 * late. The flow's next request tells (rk_insp_flow_packet()).
 */
enum rk_insp_verdict {
	RK_INSP_VERDICT_NONE = 0,
	RK_INSP_VERDICT_GO_BACK,  /**< a retransmission: the PSNs stay missing */
	RK_INSP_VERDICT_LATE,     /**< reordered: the PSNs were not lost */
};

/**
 * Result of rk_insp_flow_packet for one packet.
 *
 * When @c pending is set, the packet fills PSNs counted missing and its
 * verdict waits for the next packet of its sequence (requests, or READ
 * responses, of the flow): @c note, @c missing and @c rtx_start hold the
 * retransmission verdict (RK_INSP_VERDICT_GO_BACK); the other is
 * RK_INSP_SEQ_LATE with @c rtx = @c pending_rtx. @c chain names the
 * sequence. When @c resolved is set, this packet decided the verdict on
 * every packet of sequence @c chain pending until now (before its own).
 */
struct rk_insp_seq_result {
	enum rk_insp_seq_note note;
	uint32_t missing;      /**< PSNs skipped (GAP, or DUP inside a go-back-N run) */
	bool rtx_start;        /**< first packet of a go-back-N episode */
	bool skip;             /**< DUP: the run skipped PSNs an ACK had covered (no
				    loss, but their bytes are not in this run) */
	uint32_t expected;     /**< the PSN expected before this packet */
	bool rtx;              /**< LATE: a retransmitted copy, late in its go-back-N run */
	bool pending;          /**< verdict decided by a later packet */
	bool pending_rtx;      /**< @c rtx of the LATE verdict */
	enum rk_insp_verdict resolved; /**< verdict on the earlier pending packets */
	const void *chain;     /**< the sequence @c pending or @c resolved is about */
};

struct rk_insp_seqx;

/** One PSN sequence (requests or responses) of a flow. */
struct rk_insp_psn_track {
	bool valid;            /**< a packet has been seen */
	bool resync;           /**< next request PSN unknown: take it as is */
	uint32_t first;        /**< first PSN seen */
	uint32_t last;         /**< highest PSN seen (modular) */
	uint32_t hw;           /**< next new PSN: one past the highest reserved */
	uint32_t next;         /**< next PSN of the current run (retransmissions) */
	uint64_t gaps;         /**< gap events among first transmissions */
	uint64_t missing;      /**< PSNs skipped in those gaps */
	uint64_t rtx_gaps;     /**< gap events inside go-back-N runs (requests) */
	uint64_t rtx_missing;  /**< PSNs skipped in those: lost while retransmitted */
	uint64_t duplicates;   /**< packets behind the expected PSN */
	uint64_t rtx_episodes; /**< times the sequence went back (go-back-N) */
	uint64_t resyncs;      /**< times a READ of unknown span forced a resync */
	uint64_t reordered;    /**< packets seen late (LATE): not lost, not resent */
	uint32_t resync_psn;   /**< PSN of the READ that caused the resync */
	uint32_t resync_len;   /**< its DMALen */
	/* PSNs counted missing and not seen since, and the packets waiting
	 * for a verdict: allocated at the first gap, NULL until then. */
	struct rk_insp_seqx *x;
};

/**
 * The READ response copy count of a flow (rk_insp_flows_end()). A
 * responder answers a READ request it accepts, new at its expected PSN or
 * a duplicate below it, with one response packet per PSN of the request's
 * span, and drops a request past its expected PSN (IBTA Vol1 ch. 9,
 * responder: PSN sequence errors, and duplicates, C9-105). So the
 * response packets lost before the capture point are at most those the
 * accepted READ copies ask for less those seen, whatever order they came
 * in. As a request flow: @c epsn replays the responder's expected PSN in
 * capture order and @c owed counts the response packets asked for; as a
 * response flow: @c seen counts the READ response packets inside
 * [first, epsn) of its request flow. The same count per PSN, kept for the
 * last 16384 PSNs once the responses show a gap, settles each hole left at
 * the end: every copy of its PSN asked for was seen, so none was lost.
 */
struct rk_insp_copy_win;

struct rk_insp_read_copies {
	/* Request flow: counts per PSN for the holes' check, from the first
	 * gap of its READ responses on (NULL before, or out of memory). */
	struct rk_insp_copy_win *win;
	bool started;
	bool unknown;          /**< a READ's span was unknown: no count */
	bool dup_read;         /**< a duplicate READ was taken */
	uint32_t first;        /**< first request PSN (requests before: not counted) */
	uint32_t epsn;         /**< the responder's expected PSN, as replayed */
	uint64_t owed;         /**< READ response packets the accepted READs ask for */
	uint64_t seen;         /**< READ response packets seen (response flow) */
	uint64_t taken_back;   /**< response PSNs counted missing that the count
				    shows arrived (late): no longer missing */
};

/** Message state of one sequence (opcode sequence and length checks). */
struct rk_insp_msg_state {
	uint8_t state;         /**< 0 unknown, 1 idle, 2 inside a message */
	uint32_t kind;         /**< RK_OPF_SEND / WRITE / READ_RESP of the open message */
	bool len_known;        /**< an expected total exists (RETH or READ request) */
	bool tainted;          /**< gap, truncation or retransmission inside: no length verdict */
	uint32_t expected_len;
	uint64_t got_len;
	uint32_t next_psn;     /**< next PSN inside a READ response */
	bool rr_seen;          /**< a READ response has been seen */
	uint32_t read_serial;  /**< READ responses: READ requests seen (copies
				    included) when this response or replay began */
};

#define RK_INSP_OPHIST 32

/**
 * Most PSN ranges of lost first transmissions remembered per flow. Gaps
 * open at once are bounded by the requester's window, far below this; past
 * it the oldest range is forgotten.
 */
#define RK_INSP_LOST_RANGES 65536

/** PSNs [psn, psn + len) never seen as first transmissions. */
struct rk_insp_psn_range {
	uint32_t psn;
	uint32_t len;
};

/** One opcode counter of a flow. */
struct rk_insp_opcount {
	uint8_t opcode;
	uint64_t count;
};

struct rk_insp_timing_flow;

/** Per-flow record (one direction of a QP). */
struct rk_insp_flow {
	struct rk_insp_flow_key key;
	struct rk_insp_hlink hl;      /* in the table's hash */
	struct rk_insp_flow *next;    /* creation order */
	uint64_t first_frame, last_frame;
	uint64_t first_ts_ns, last_ts_ns; /**< ts_ns of the first and last packet */
	uint8_t transport;            /**< transport of the first packet */
	/* Request/response times (rk_insp_timing.h), owned by the timing
	 * table; NULL when not timed. */
	struct rk_insp_timing_flow *timing;
	bool untimed;                 /**< past the timing table's cap */
	/* An address the flow's next packet will likely touch (its next
	 * request table entry, set by rk_insp_timing_packet()): prefetched
	 * as the packet's flow is found, so the miss overlaps the PSN
	 * tracking. Any address: a prefetch never faults. */
	const void *hint;

	uint64_t packets, bytes, payload_bytes;
	uint64_t dup_payload_bytes;   /**< payload of duplicates (rk_insp_timing_packet()) */
	struct rk_insp_opcount ops[RK_INSP_OPHIST];
	unsigned int nops;
	uint64_t ops_other;           /**< packets of opcodes past the histogram */

	uint64_t messages;            /**< request messages (LAST, ONLY, READ request) */
	uint64_t read_requests;
	uint64_t read_resp_messages;
	struct rk_insp_psn_track req, resp;
	struct rk_insp_msg_state req_msg, resp_msg;
	struct rk_insp_read_copies copies;
	/* Message state of the current retransmission run: kept apart from
	 * req_msg, which follows first transmissions, because a go-back-N run
	 * may stop mid-message once the rest is known to have arrived. */
	struct rk_insp_msg_state rtx_msg;
	/* Request PSNs whose first copy was lost: a retransmitted LAST, ONLY
	 * or READ there is the message's first appearance and counts once. */
	struct rk_insp_psn_range *lost;  /* grows on demand */
	unsigned int nlost, lost_cap;

	uint64_t acks, atomic_acks, rnr_naks, naks_total;
	uint64_t naks[32];            /**< by NAK code (syndrome & 0x1f) */
	uint64_t rnr_timer[32];       /**< RNR NAKs by timer code */
	uint64_t aeth_reserved;
	uint64_t cnps, fecn, becn, ack_req;
	uint64_t icrc_bad, icrc_good, truncated;
	uint32_t pmtu_seen;           /**< PMTU inferred from this flow, 0 if none */
	struct rk_insp_flow_qos qos;  /**< VLAN, PCP, DSCP of the first packet; ECN counts */

	uint32_t findings[RK_F_COUNT];
};

/** Default cap on tracked flows (--max-flows). */
#define RK_INSP_MAX_FLOWS_DEFAULT 262144u

/** Options of the analysis. */
struct rk_insp_flow_opts {
	uint32_t pmtu;                /**< --pmtu; 0 = infer */
	uint64_t max_flows;           /**< --max-flows; 0 = RK_INSP_MAX_FLOWS_DEFAULT */
};

struct rk_insp_path;

/** The table of flows and host pairs. */
struct rk_insp_flows {
	struct rk_insp_flow_opts opts;
	struct rk_insp_htab hash;
	uint64_t nflows;
	struct rk_insp_flow *head, *tail;
	struct rk_insp_flow *last;    /* lookup cache */

	/* Past max_flows new flows are not tracked: their packets are
	 * counted, and their keys set bits of a hash bitmap to count them. */
	uint64_t untracked_packets;   /**< packets of flows not tracked */
	uint64_t untracked_flows;     /**< distinct flows not tracked (see doc) */
	uint8_t *untracked_bits;

	struct rk_insp_htab phash;
	uint64_t npaths;
	struct rk_insp_path *phead;
};

/** Initialise @p t; @return 0 or -ENOMEM. */
int rk_insp_flows_init(struct rk_insp_flows *t, const struct rk_insp_flow_opts *opts);

/** Free everything @p t holds. */
void rk_insp_flows_fini(struct rk_insp_flows *t);

/**
 * Account one packet to its flow and run the sequence and message
 * analysis. Stateful findings (msg.length.mismatch, msg.opcode.sequence)
 * are appended to @p found; the caller counts them with
 * rk_insp_flow_count_findings() together with the stateless ones.
 * @return the flow, or NULL when out of memory or when the flow is new and
 *         the table already holds max_flows flows (counted as untracked).
 */
struct rk_insp_flow *rk_insp_flow_packet(struct rk_insp_flows *t,
					 const struct rk_insp_roce *r,
					 struct rk_findings *found,
					 struct rk_insp_seq_result *res);

/** Told the verdict on the pending packets of sequence @p chain of @p flow. */
typedef void rk_insp_settled_fn(void *ctx, struct rk_insp_flow *flow, const void *chain,
				enum rk_insp_verdict v);

/**
 * Decide the pending verdicts of @p flow without the packets that would
 * (end of capture, output held too long): retransmissions, as when the
 * next packet continued them. @p cb, when not NULL, is told each one.
 */
void rk_insp_flow_settle(struct rk_insp_flows *t, struct rk_insp_flow *flow,
			 rk_insp_settled_fn *cb, void *ctx);

/** rk_insp_flow_settle() on every flow (output held too long). */
void rk_insp_flows_settle(struct rk_insp_flows *t, rk_insp_settled_fn *cb, void *ctx);

/**
 * End of capture: rk_insp_flows_settle(), then the READ response copy
 * count (struct rk_insp_read_copies) bounds each flow's missing READ
 * response PSNs: a hole whose PSN came in as many copies as the accepted
 * READs asked for is taken back, then so is what the total count shows
 * arrived; both go from resp.missing into copies.taken_back, and
 * resp.gaps is at most what stays missing. The count is kept only when
 * one request flow and one response flow carry the READs of a host
 * pair's direction, and every READ's span was known; otherwise the
 * heuristic's counts stand.
 */
void rk_insp_flows_end(struct rk_insp_flows *t, rk_insp_settled_fn *cb, void *ctx);

/** Add the findings of @p f to the counters of @p flow. */
void rk_insp_flow_count_findings(struct rk_insp_flow *flow,
				 const struct rk_findings *f);

/** Find the flow of @p key, or NULL. */
struct rk_insp_flow *rk_insp_flow_find(const struct rk_insp_flows *t,
				       const struct rk_insp_flow_key *key);

/** PMTU known for the flow's host pair (option, then inference), 0 if none. */
uint32_t rk_insp_flow_pmtu(const struct rk_insp_flows *t,
			   const struct rk_insp_flow *flow);

/** Fill @p r from a parsed packet that has a BTH. */
void rk_insp_roce_from_pkt(struct rk_insp_roce *r, const struct rk_pkt *pkt,
			   uint64_t frame);

/**
 * Extended header @p h of @p pkt when the opcode has it and all @p len
 * bytes were captured; NULL otherwise.
 */
const uint8_t *rk_insp_xeth(const struct rk_pkt *pkt, enum rk_hdr h, uint32_t len);

/** Count of opcode @p op in @p flow. */
uint64_t rk_insp_flow_opcount(const struct rk_insp_flow *flow, uint8_t op);

#endif /* RK_INSP_FLOW_H */
