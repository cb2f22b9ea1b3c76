/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_insp_qp.h
 * What a response says of the requests it answers, per flow of a capture:
 * the requests an ACK covers (ACK coverage), the time from a request to
 * the ACK naming its PSN (RTT) and from a READ request to its first
 * response (READ latency), and which flows are the two directions of one
 * connection (QP pairing, from CM REQ/REP or from the traffic).
 *
 * A struct rk_insp_qp belongs to one flow (struct rk_insp_flow, one
 * direction of a QP); the caller keeps one per flow, embedded in its own
 * record, and hands the request flow to the calls about responses.
 * Times are the caller's (capture timestamps, ns); frames are its numbers.
 * The CM table pairs QPs from the REQ/REP MADs the caller decoded (lib/cm
 * stays out of this library). libc only. The request tables are
 * allocated at a flow's first request and grow with its requests in
 * flight, so the many flows of a large capture each cost a few hundred
 * bytes, not the largest window's share (rk_insp_qp_fini() frees them).
 */
#ifndef RK_INSP_QP_H
#define RK_INSP_QP_H

#include <stdbool.h>
#include <stdint.h>

#include "rk_insp_flow.h"
#include "rk_insp_pool.h"

/**
 * Most requests remembered per flow for ACK coverage and request-to-ACK
 * times: a table indexed by PSN, from RK_INSP_QP_REQ_MIN entries up to
 * this, doubled when a new request would push out one not yet acknowledged.
 */
#define RK_INSP_QP_REQ_RING 1024
#define RK_INSP_QP_REQ_MIN 16
/** READ requests remembered per flow (the newest). */
#define RK_INSP_QP_READ_RING 128

/** Where the peer of a flow came from (order: the stronger source wins). */
enum rk_insp_peer_src {
	RK_INSP_PEER_NONE = 0,
	RK_INSP_PEER_TRAFFIC,   /**< responses seen on the reverse flow */
	RK_INSP_PEER_CM,        /**< CM REQ/REP MADs (IBTA Vol1 12.6) */
	RK_INSP_PEER_DETH,      /**< UD: the DETH SrcQP of the packet */
};

/** One READ request remembered: its PSN, frame and time. */
struct rk_insp_qp_req {
	uint32_t psn, frame;
	uint64_t ts_ns;
};

/** Time span a request table holds, ns (2^39 ns, about 9 minutes). */
#define RK_INSP_QP_REQ_SPAN_NS (1ull << 39)

/** Request history and pairing of one flow. Zero-initialise; rk_insp_qp_fini(). */
struct rk_insp_qp {
	/* Requests by PSN: req_size entries, PSN p at p % req_size, each
	 * 8 bytes: the PSN (bits 0-23), held (bit 24), and the ns from
	 * req_base_ns to the request (bits 25-63). NULL until a request. */
	uint64_t *req;
	uint32_t *req_frames;       /* the requests' frames, beside req; NULL when no_frames */
	uint64_t req_base_ns;
	unsigned int req_size;
	unsigned int req_n;         /**< requests held */
	uint32_t req_first;         /**< PSN of the flow's first request */
	struct rk_insp_qp_req *rd;  /* ring of RK_INSP_QP_READ_RING; NULL until a READ */
	unsigned int rd_head, rd_n;
	bool acked_valid;
	uint32_t acked;             /**< last PSN a response covered */
	struct rk_insp_qp *peer;    /**< the other direction, once paired */
	uint8_t peer_src;           /**< enum rk_insp_peer_src */
	/** Keep no frame numbers of requests (rk_insp_qp_ack() leaves req_frame 0):
	 *  two thirds of the memory. Set before the first request. */
	bool no_frames;
	/** Where the tables come from (rk_insp_pool.h); NULL: malloc. Set
	 *  before the first request, kept until rk_insp_qp_fini(). */
	struct rk_insp_pool *pool;
};

/** What an ACK, NAK or atomic ACK covers, and the request it names. */
struct rk_insp_qp_ack {
	uint32_t first, last;       /**< PSNs [first, last] it acknowledges */
	uint32_t count;             /**< last - first + 1, 0 when it goes back */
	bool timed;                 /**< the request with PSN last was found: rtt_ns holds */
	uint32_t req_frame;         /**< its frame; 0 if not found or no_frames */
	uint64_t rtt_ns;            /**< that request to this response; 0 when the
					 response is stamped before the request */
};

/** Free the request tables of @p q (zeroed or used; again: nothing). */
void rk_insp_qp_fini(struct rk_insp_qp *q);

/**
 * Remember request @p psn (frame @p frame at @p ts_ns) of flow @p q;
 * @p read: a READ request (its responses' latency is measured). Out of
 * memory: not remembered (its RTT is not measured). A table holds the
 * requests of RK_INSP_QP_REQ_SPAN_NS: one sent that long before the
 * newest, or after it, is forgotten (RC retransmits long before).
 */
void rk_insp_qp_request(struct rk_insp_qp *q, uint32_t psn, uint32_t frame, uint64_t ts_ns,
			bool read);

/** Whether flow @p q sent a request with PSN @p psn lately (pairing by traffic). */
bool rk_insp_qp_sent(const struct rk_insp_qp *q, uint32_t psn);

/**
 * An ACK (@p nak false) or NAK with PSN @p psn at @p ts_ns answers the
 * requests of flow @p req. A NAK's PSN is the one expected next: it covers
 * those before (IBTA Vol1 9.7.5.1.1, coalesced ACKs 9.7.5.1.2). Fills
 * @p out; the request naming the ACK's PSN gives the RTT (not for a NAK).
 */
void rk_insp_qp_ack(struct rk_insp_qp *req, uint32_t psn, bool nak, uint64_t ts_ns,
		    struct rk_insp_qp_ack *out);

/**
 * A READ response FIRST or ONLY with PSN @p psn at @p ts_ns answers the
 * READ request of flow @p req with that PSN: @p req_frame and @p rt_ns
 * (request to first response; 0 when the response is stamped before the
 * request) are set when it is remembered. It also
 * acknowledges the requests before the READ (IBTA Vol1 9.7.5.1.2).
 * @return whether the READ request was found.
 */
bool rk_insp_qp_read_response(struct rk_insp_qp *req, uint32_t psn, uint64_t ts_ns,
			      uint32_t *req_frame, uint64_t *rt_ns);

/**
 * Pair flows @p a and @p b as the two directions of one connection, unless
 * @p a is already paired from a source at least as strong as @p src.
 */
void rk_insp_qp_pair(struct rk_insp_qp *a, struct rk_insp_qp *b, enum rk_insp_peer_src src);

/** A flow that may be the request flow of a response: its record and DestQP. */
struct rk_insp_qp_cand {
	struct rk_insp_qp *qp;
	uint32_t dest_qp;           /**< DestQP of its packets */
};

/**
 * Which of the @p n flows @p cand a response with PSN @p psn on the
 * unpaired flow @p resp answers. @p cand are the flows of the same kind
 * from the response's destination to its source; those paired with
 * another flow are passed over. In order: the one whose DestQP a CM REP
 * named (@p cm_qpn, NULL when none), else the first that sent @p psn,
 * else the only candidate when it sent any request. The two are paired
 * (rk_insp_qp_pair(), from the CM or the traffic).
 * @return the index in @p cand, or -1 when none fits.
 */
int rk_insp_qp_match(struct rk_insp_qp *resp, const struct rk_insp_qp_cand *cand, unsigned int n,
		     uint32_t psn, const uint32_t *cm_qpn);

/** CM REQs awaiting their REP, and the QPNs the REPs named. */
struct rk_insp_cm {
	struct rk_insp_cm_req *req;
	unsigned int nreq, req_cap;
	struct rk_insp_cm_peer *peer;
	unsigned int npeer, peer_cap;
};

/** Most REQs remembered; past it the oldest is forgotten. */
#define RK_INSP_CM_MAX 4096

/** Initialise @p cm (nothing allocated yet). */
void rk_insp_cm_init(struct rk_insp_cm *cm);

/** Free what @p cm holds. */
void rk_insp_cm_fini(struct rk_insp_cm *cm);

/**
 * A CM REQ (IBTA Vol1 12.6.5) from @p src to @p dst (16-byte addresses,
 * as in struct rk_insp_flow_key) with LocalCommID @p comm_id and Local QPN
 * @p qpn. A REQ with the same LocalCommID replaces the earlier one.
 * @return 0, or -ENOMEM.
 */
int rk_insp_cm_req(struct rk_insp_cm *cm, const uint8_t src[16], const uint8_t dst[16],
		   uint32_t comm_id, uint32_t qpn);

/**
 * A CM REP (IBTA Vol1 12.6.8) answering the REQ with LocalCommID
 * @p remote_comm_id, with Local QPN @p qpn, carried in packets of kind
 * @p kind (enum rk_pkt_kind): the flows requester -> responder (DestQP
 * @p qpn) and back (DestQP the REQ's QPN) are a pair.
 * @return 0, -ENOENT when the REQ is not known, or -ENOMEM.
 */
int rk_insp_cm_rep(struct rk_insp_cm *cm, uint32_t remote_comm_id, uint32_t qpn, uint8_t kind);

/**
 * The sender's own QPN of flow @p key, when a CM REP named it.
 * @return whether it is known.
 */
bool rk_insp_cm_peer(const struct rk_insp_cm *cm, const struct rk_insp_flow_key *key,
		     uint32_t *qpn);

#endif /* RK_INSP_QP_H */
