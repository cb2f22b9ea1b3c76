/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rkw_analysis.h
 * Capture analysis behind the Wireshark plugin: every frame is parsed with
 * rk_pkt_parse() and run through lib/analysis, rk-inspect's analysis: the
 * per-QP analysis (rk_insp_flow.h), the iWARP connection follower
 * (rk_insp_iwarp.h) and the request/response view (rk_insp_qp.h: ACK
 * coverage, request/response times, QP pairing from CM REQ/REP MADs or the
 * traffic), so the plugin and rk-inspect count the same things. This
 * module keeps what a packet view needs: a record per frame (sequence
 * verdict, ACK coverage, times, message lengths and payloads, the FPDUs
 * touching the frame) and a flow index for the statistics tap.
 *
 * Frames must be fed once each, in capture order (Wireshark's first pass);
 * the records are then read any number of times, in any order. The record
 * of a packet that fills PSNs reported lost changes when a later packet
 * tells whether it was a retransmission or came late (out of order); the
 * missing less not_lost of a sequence's records always sum to what
 * rk-inspect counts missing on it.
 * Uses GLib containers; no Wireshark API, so it is testable alone.
 */
#ifndef RKW_ANALYSIS_H
#define RKW_ANALYSIS_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include "rk_finding.h"
#include "rk_insp_qp.h"
#include "rk_pkt.h"
#include "rk_rdmap.h"

/** Sequence verdict of a RoCE packet (rk-inspect's rk_insp_seq_note). */
enum rkw_seq {
	RKW_SEQ_NONE = 0,
	RKW_SEQ_IN_ORDER,
	RKW_SEQ_FIRST,
	RKW_SEQ_GAP,        /**< ahead of the expected PSN: PSNs lost */
	RKW_SEQ_DUP,        /**< behind it: retransmission (or duplicate) */
	RKW_SEQ_RESYNC,
	RKW_SEQ_LATE,       /**< seen after later PSNs: neither lost nor resent */
};

/** Per-frame result for a packet with a BTH. */
struct rkw_roce {
	uint32_t flow;           /**< flow index (1-based), 0 if untracked */
	uint32_t peer_qp;        /**< the sender's own QP number, when known */
	uint8_t peer_src;        /**< enum rk_insp_peer_src */
	uint8_t seq;             /**< enum rkw_seq */
	bool seq_is_resp;        /**< sequence is the responder's (ACK/READ resp) */
	bool rtx_start;          /**< first packet of a go-back-N episode */
	bool out_of_order;       /**< came after later PSNs (RKW_SEQ_LATE, or DUP for a
				      late copy in a go-back-N run) */
	uint32_t expected;       /**< PSN expected before this packet */
	uint32_t missing;        /**< PSNs skipped (with what a replayed chain it
				      ends counted beyond its frames) */
	uint32_t not_lost;       /**< PSNs reported lost before that its verdict
				      took back (came late, a skip out of the run) */
	/* Until a later packet of the sequence decides (rk-inspect's verdict,
	 * flow.h), a record holds the retransmission verdict; these say what
	 * the other would change. */
	bool pending_rtx, pending_last;

	bool ack_range;          /**< ACK: the requests it covers */
	uint32_t ack_first, ack_last, ack_count;
	uint32_t req_flow;       /**< response: flow index of the requests it answers */
	uint32_t ack_req_frame;  /**< frame of the request carrying ack_last */
	uint64_t ack_rtt_ns;     /**< request to ACK time (valid with ack_req_frame) */
	uint32_t read_req_frame; /**< READ response: frame of its READ request */
	uint64_t read_rt_ns;     /**< READ request to first response */

	bool msg_end;            /**< LAST / ONLY of a message */
	uint64_t msg_len;        /**< bytes of the message (sum of payloads) */
	uint32_t msg_first_frame;
	uint32_t msg_packets;
	bool msg_incomplete;     /**< a PSN of the message was missing */
	GBytes *msg_data;        /**< the payload bytes, when kept (keep_payload) */

	bool nak, rnr;
	uint8_t nak_code, rnr_timer;

	struct rk_findings *found; /**< stateful findings (msg.*) of the flow analysis, or NULL */
};

/** One MPA frame or FPDU as seen from one TCP segment. */
struct rkw_fpdu {
	uint8_t kind;            /**< enum rk_insp_iw_ev_kind */
	bool complete_here;      /**< the unit's last byte is in this frame */
	bool starts_here;        /**< its first byte is in this frame */
	uint32_t frame_off;      /**< first byte of the unit in this frame */
	uint32_t frame_len;      /**< its bytes in this frame (0: none) */
	uint32_t unit_off;       /**< offset in the unit of this frame's first byte of it */
	uint32_t start_frame, end_frame;
	uint32_t tcp_seq, stream_len;
	const char *lost_reason;

	uint8_t rev;             /**< MPA Request/Reply */
	bool m, c, r, enhanced;
	uint16_t pd_len, ird, ord;

	uint16_t ulpdu_len;      /**< FPDU */
	uint8_t pad;
	uint16_t markers;
	uint8_t crc;             /**< enum rk_insp_crc */
	uint32_t crc_value;

	bool ddp_ok, rdmap_ok;   /**< DDP/RDMAP decode (rk_rdmap_parse) */
	uint8_t t, l, dv, rv, opcode;
	uint32_t stag, qn, msn, mo;
	uint64_t to;
	uint32_t payload_len;
	struct rk_rdmap_read_req_fields read_req;
	struct rk_rdmap_term_fields term;
	const char *term_text;

	bool msg_end;            /**< DDP L=1: the message is complete */
	uint64_t msg_len;        /**< untagged: MO + len; tagged: bytes since the first segment */
	uint32_t msg_segments;
	uint32_t msg_first_frame;
	bool msg_mo_gap;         /**< a DDP segment of the message was missing */
	GBytes *msg_data;        /**< the message's ULP payload, when kept (a reference) */

	uint32_t conn;           /**< flow index of this direction */
	struct rk_findings findings; /**< offsets relative to the unit's first stream byte */
};

/** Per-frame record. */
struct rkw_frame {
	bool is_roce;
	bool is_iwarp;           /**< a TCP frame of an iWARP connection */
	uint32_t iw_flow;        /**< iWARP direction index */
	/* Units the stream follower delivered while reading this frame (a
	 * retransmission filling a hole delivers those queued behind it). */
	uint32_t iw_fpdus, iw_msgs, iw_crc_bad, iw_terms;
	uint64_t iw_msg_bytes;
	struct rkw_roce roce;
	uint32_t nfpdu;
	struct rkw_fpdu *fpdu;
};

/** A flow: one direction of a QP, or one direction of an iWARP connection. */
struct rkw_flow_info {
	char label[160];         /**< "198.18.0.1 > 198.18.0.2 DestQP 0x000011" */
	bool iwarp;
};

struct rkw_state;

/** Options. */
struct rkw_opts {
	bool check_icrc;         /**< verify RoCE ICRCs */
	uint32_t pmtu;           /**< 0: infer */
	bool keep_payload;       /**< keep a copy of each message's payload (msg_data) */
};

/** Longest message whose payload is kept (longer ones get no msg_data). */
#define RKW_MSG_DATA_MAX (64u << 20)

/** New analysis state; never NULL (aborts on out of memory like GLib). */
struct rkw_state *rkw_new(const struct rkw_opts *opts);

/** Free everything, including the records. */
void rkw_free(struct rkw_state *s);

/**
 * Feed frame @p num (1-based, increasing) of @p caplen captured bytes
 * (@p wirelen on the wire) at time @p ts_ns. The parse result is left in
 * @p pkt for the caller. @return the frame record (also kept in @p s), or
 * NULL when the frame is nothing this plugin decodes.
 */
struct rkw_frame *rkw_feed(struct rkw_state *s, uint32_t num, const uint8_t *frame,
			   uint32_t caplen, uint32_t wirelen, enum rk_linktype link,
			   uint64_t ts_ns, struct rk_pkt *pkt);

/**
 * End of the RoCE analysis (once; later calls do nothing): open verdicts
 * are decided as rk-inspect decides them at the end of a capture, the READ
 * response copy count bounds the missing READ response PSNs
 * (rk_insp_flows_end()), and the PSNs the frames show lost are made to
 * agree with the flows' counts (on each sequence's last frame).
 */
void rkw_end_roce(struct rkw_state *s);

/** rkw_end_roce(), then flush the iWARP streams (end of capture): late
 *  FPDUs go to their frames. */
void rkw_finish(struct rkw_state *s);

/** The record of frame @p num, or NULL. */
struct rkw_frame *rkw_lookup(struct rkw_state *s, uint32_t num);

/** Number of flows (indices are 1..n). */
uint32_t rkw_nflows(const struct rkw_state *s);

/** Description of flow @p idx (1-based), or NULL. */
const struct rkw_flow_info *rkw_flow(const struct rkw_state *s, uint32_t idx);

/** Parse options in use. */
const struct rk_parse_opts *rkw_parse_opts(const struct rkw_state *s);

#endif /* RKW_ANALYSIS_H */
