/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_ib.h
 * The IBTA transport engine (RC, UC, UD over RoCEv2), pure: no I/O, no
 * clock, no globals. Time is passed in as now_ns; frames come in already
 * parsed (struct rk_pkt) and go out through an emit callback, built with
 * lib/wire (Ethernet / IPv4 or IPv6 / UDP 4791 / BTH / extended headers /
 * payload / pad / ICRC).
 *
 * A device holds the PD, MR, CQ, SRQ and QP tables. Objects are allocated
 * when created; the per-packet paths (rk_ib_rx, rk_ib_poll_tx, rk_ib_timers,
 * post and poll) allocate nothing.
 *
 * Driving a device:
 *   - rk_ib_post_send / rk_ib_post_recv queue work;
 *   - rk_ib_rx for every received frame;
 *   - rk_ib_poll_tx to take the frames to transmit;
 *   - rk_ib_timers when rk_ib_next_timer() has passed;
 *   - rk_ib_cq_poll to take completions.
 * Nothing here is thread-safe: the caller serialises all calls on one device.
 *
 * Errors are negative errno values; protocol outcomes (AETH syndromes, work
 * completion statuses) are data, never C errors.
 *
 * Memory and deregistration: the engine keeps no host address of
 * registered memory between packets. Every use (a WRITE or SEND packet's
 * payload, each READ response, each requester (re)transmission, each READ
 * response or ATOMIC result landing locally) looks the L_Key or R_Key up
 * again, and rk_ib_mr_dereg clears the key at once. So after
 * rk_ib_mr_dereg returns the engine never touches the region
 * (ibv_dereg_mr semantics), and the transfers that needed it fail:
 *   - a WRITE continuing into it: NAK-RACC, responder QP to ERR;
 *   - a SEND into a receive WQE in it: the WQE completes LOC_PROT_ERR,
 *     NAK-ROP, QP to ERR;
 *   - READ responses still owed from it: not sent; NAK-RACC at the first
 *     unsent PSN, QP to ERR;
 *   - a local WQE whose SGE is in it, when a packet must be (re)built or
 *     a response lands: LOC_PROT_ERR, QP to ERR (SQE for UC/UD).
 *
 * Connected QPs (RC, UC) accept frames only from their peer: source IP =
 * the AV's destination, destination IP = the device's (rx_drop_addr);
 * MACs are not compared (a routed peer arrives with a router's MAC).
 *
 * Known limits:
 *   - ACK credits (ACK-CRED-02, a "should"): the responder advertises
 *     real credits, but the requester ignores them and sends anyway, as
 *     rxe does; an RNR NAK is the only back-pressure.
 *   - Keys are (table slot, 16-bit random tag) under a keyed permutation:
 *     a stale key of a deregistered MR names a later MR registered in the
 *     same slot with probability 2^-16 per registration. Only MRs
 *     registered with REMOTE access are reachable that way.
 *   - A READ needs all its response PSNs outstanding at once, and fewer
 *     than 2^23 PSNs may be (IBTA Vol1 ch. 9): a READ of 2^23 PSNs or
 *     more (over 2^31 - 256 bytes at PMTU 256) is refused by
 *     rk_ib_post_send (-EINVAL) rather than split, and a READ that would
 *     cross the limit waits for completions.
 *   - Nothing can be bound or fast-registered: only MRs registered with
 *     RK_ACCESS_REMOTE_INVALIDATE may be named by a SEND with Invalidate.
 */
#ifndef RK_IB_H
#define RK_IB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rk_rdma_types.h"
#include "rk_pkt.h"
#include "rk_psn.h"

struct rk_ib_dev;
struct rk_ib_pd;
struct rk_ib_mr;
struct rk_ib_cq;
struct rk_ib_srq;
struct rk_ib_qp;

/** Largest frame the engine emits, bytes (PMTU 4096 + all headers). */
#define RK_IB_MAX_FRAME 4352
/** Most scatter/gather elements per work request. */
#define RK_IB_MAX_SGE 8
/** Most outstanding READ/ATOMIC per direction (max_rd_atomic, max_dest_rd_atomic). */
#define RK_IB_MAX_RD_ATOMIC 16
/** First QPN handed out (QP0 and QP1 are reserved, CA17-33). */
#define RK_IB_QPN_BASE 0x11

/** Trace of one state machine transition (optional, for tests and tools). */
typedef void (*rk_ib_trace_fn)(void *ctx, const struct rk_ib_qp *qp,
			       const char *machine, const char *from, const char *to);

/** Device attributes: addressing, table sizes, policy knobs. */
struct rk_ib_dev_attr {
	uint8_t mac[6];
	uint8_t ip[16];                 /**< IPv6, or IPv4 in the last 4 bytes */
	uint8_t ip_version;             /**< 4 or 6; 0 means 4 */
	uint32_t max_qp;                /**< 0 means 64 */
	uint32_t max_mr;                /**< 0 means 1024 */
	uint64_t key_seed;              /**< secret mixed into L_Keys and R_Keys */
	uint64_t ack_delay_ns;          /**< responder ACK coalescing delay (0: next poll_tx) */
	uint32_t max_inflight_pkts;     /**< requester window in PSNs; 0 means 256 */
	/**
	 * The port's active MTU (IBTA Vol1 ch. 14, PortInfo ActiveMTU): a UD
	 * message's limit and the largest path MTU a QP takes; 0 means 4096.
	 * A RoCE port's is the largest one whose packets, with the 80 bytes
	 * of headers rxe reserves, fit its Ethernet MTU.
	 */
	enum rk_mtu active_mtu;
	uint32_t ackreq_every;          /**< AckReq on every n-th packet of a message; 0 means 16 */
	bool accept_unchecked_icrc;     /**< accept frames parsed with ICRC checking off */
	uint64_t tx_rate_bps;           /**< pace rk_ib_poll_tx to this wire rate; 0: no pacing */
	rk_ib_trace_fn trace;
	void *trace_ctx;
};

/** Device counters (monotonic). */
struct rk_ib_stats {
	uint64_t rx_frames, tx_frames;
	uint64_t rx_drop_malformed;     /**< not RoCEv2, truncated, no usable BTH */
	uint64_t rx_drop_icrc;
	uint64_t rx_drop_qp;            /**< unknown DestQP, bad P_Key, wrong transport */
	uint64_t rx_drop_state;         /**< QP state does not accept the packet */
	uint64_t rx_drop_qkey;
	uint64_t rx_drop_addr;          /**< RC/UC frame not from the QP's peer (IP addresses) */
	uint64_t resp_dup;              /**< duplicate requests seen */
	uint64_t resp_nak_seq, resp_rnr_nak, resp_nak_fatal;
	uint64_t resp_drop;             /**< requests dropped by the responder */
	uint64_t req_retransmit_timeouts;
	uint64_t req_nak_seq_retries;
	uint64_t req_rnr_retries;
	uint64_t req_read_retries;      /**< READ re-issued from a missing response PSN */
	uint64_t req_pkts, req_retx_pkts;
	uint64_t comp_ghost_acks;       /**< responses for PSNs never sent: ignored */
	uint64_t comp_dup_resp;
	/* Appended: requests executed by the responder, retries given up. */
	uint64_t resp_send_reqs;        /**< SEND packets placed */
	uint64_t resp_write_reqs;       /**< RDMA WRITE packets placed */
	uint64_t resp_read_reqs;        /**< RDMA READ requests accepted (new, not duplicates) */
	uint64_t resp_atomic_reqs;      /**< ATOMIC requests executed */
	uint64_t req_retry_exceeded;    /**< transport retries exhausted (RETRY_EXC_ERR) */
	uint64_t req_rnr_retry_exceeded;/**< RNR retries exhausted (RNR_RETRY_EXC_ERR) */
	/**
	 * Request packets acknowledged: how far the completer's oldest
	 * unacknowledged PSN moved (ACKs, READ responses, ATOMIC
	 * acknowledges), also inside a long message that has not completed.
	 */
	uint64_t comp_acked_pkts;
	/* Appended: congestion control (DCQCN, rk_cc_dcqcn.h); 0 without it. */
	uint64_t np_cnp_sent;           /**< CNPs sent by the NP (Annex A17.9.3) */
	uint64_t np_ecn_marked_roce_packets; /**< CE-marked requests received */
	uint64_t rp_cnp_handled;        /**< CNPs that decreased the rate */
	uint64_t rp_cnp_ignored;        /**< CNPs inside rate_reduce_monitor_period */
	/* Appended: loss recovery. */
	uint64_t req_rto_low_timeouts;  /**< of req_retransmit_timeouts: RTO_low ones ("sr") */
};

/* ------------------------------------------------------------------ device */

/**
 * Create a device.
 * @return the device, or NULL with errno EINVAL (bad attribute) or ENOMEM.
 */
struct rk_ib_dev *rk_ib_dev_create(const struct rk_ib_dev_attr *attr);

/** Destroy a device and every object still in it. */
void rk_ib_dev_destroy(struct rk_ib_dev *dev);

/** The device's counters. */
const struct rk_ib_stats *rk_ib_dev_stats(const struct rk_ib_dev *dev);

/**
 * One QP's share of the device counters (the same fields, counted for
 * frames and events of this QP only; device-wide drops before the QP is
 * known, such as rx_drop_malformed or rx_drop_icrc, stay 0 here).
 */
const struct rk_ib_stats *rk_ib_qp_stats(const struct rk_ib_qp *qp);

/**
 * Pace transmission to @p bps (0: off), as an HCA's port does: frames go
 * out no faster than the wire drains, so a READ restarted by a duplicate
 * request (READ-DUP-02) is not queued behind the rest of the old response
 * stream in a deep transmit queue. rk_ib_next_timer() reports when the
 * next paced frame is due.
 */
void rk_ib_dev_set_tx_rate(struct rk_ib_dev *dev, uint64_t bps);

/* ---------------------------------------------------------------- PD, MR */

/** Allocate a protection domain; NULL with errno ENOMEM. */
struct rk_ib_pd *rk_ib_pd_alloc(struct rk_ib_dev *dev);

/** Free a PD. @return 0, or -EBUSY while MRs, QPs, SRQs or holds use it. */
int rk_ib_pd_free(struct rk_ib_pd *pd);

/**
 * Count an object kept outside the engine (a verbs address handle) as a
 * user of @p pd, so rk_ib_pd_free returns -EBUSY until rk_ib_pd_release.
 */
void rk_ib_pd_hold(struct rk_ib_pd *pd);

/** Drop a hold taken with rk_ib_pd_hold. */
void rk_ib_pd_release(struct rk_ib_pd *pd);

/**
 * Register @p len bytes at @p addr with @p access (enum rk_access_flags).
 * The VA of byte i is (uint64_t)(uintptr_t)addr + i, as in libibverbs.
 * L_Key and R_Key are distinct, and a keyed permutation of the table slot
 * and a per-registration random tag: a key says nothing about the next one.
 * REMOTE_WRITE or REMOTE_ATOMIC require LOCAL_WRITE (IBTA Vol1 ch. 10).
 * @return the MR, or NULL with errno EINVAL or ENOMEM (table full).
 */
struct rk_ib_mr *rk_ib_mr_reg(struct rk_ib_pd *pd, void *addr, size_t len,
			      unsigned int access);

/**
 * Deregister an MR: its keys stop resolving at once and the engine never
 * touches the region again; transfers still using it fail (see the file
 * comment). @return 0 or -EINVAL.
 */
int rk_ib_mr_dereg(struct rk_ib_mr *mr);

/** L_Key of @p mr. */
uint32_t rk_ib_mr_lkey(const struct rk_ib_mr *mr);

/**
 * R_Key of @p mr (valid until invalidated by a SEND with Invalidate, which
 * only an MR registered with RK_ACCESS_REMOTE_INVALIDATE allows: MEM-INV-01).
 */
uint32_t rk_ib_mr_rkey(const struct rk_ib_mr *mr);

/* -------------------------------------------------------------------- CQ */

/** Create a CQ of @p cqe entries (1..2^20); NULL with errno EINVAL/ENOMEM. */
struct rk_ib_cq *rk_ib_cq_create(struct rk_ib_dev *dev, uint32_t cqe);

/** Destroy a CQ. @return 0, or -EBUSY while a QP uses it. */
int rk_ib_cq_destroy(struct rk_ib_cq *cq);

/**
 * Take up to @p n completions, oldest first.
 * @return completions written to @p wc (0..n), or -EOVERFLOW once the CQ
 *         overran (completions were lost; the CQ is unusable, as in IBTA
 *         Vol1 ch. 11).
 */
int rk_ib_cq_poll(struct rk_ib_cq *cq, int n, struct rk_wc *wc);

/** Completions waiting in the CQ (0 for NULL). */
uint32_t rk_ib_cq_count(const struct rk_ib_cq *cq);

/* ------------------------------------------------------------------- SRQ */

/** Create an SRQ of @p max_wr WQEs with @p max_sge SGEs each; NULL with errno. */
struct rk_ib_srq *rk_ib_srq_create(struct rk_ib_pd *pd, uint32_t max_wr, uint32_t max_sge);

/** Destroy an SRQ. @return 0, or -EBUSY while a QP uses it. */
int rk_ib_srq_destroy(struct rk_ib_srq *srq);

/** Post receive WQEs to an SRQ; same contract as rk_ib_post_recv. */
int rk_ib_srq_post_recv(struct rk_ib_srq *srq, const struct rk_recv_wr *wr,
			const struct rk_recv_wr **bad_wr);

/* -------------------------------------------------------------------- QP */

/** QP creation attributes (ibv_qp_init_attr over engine objects). */
struct rk_ib_qp_init_attr {
	struct rk_ib_cq *send_cq;
	struct rk_ib_cq *recv_cq;
	struct rk_ib_srq *srq;          /**< NULL: the QP has its own RQ */
	struct rk_qp_cap cap;
	enum rk_qp_type qp_type;
	int sq_sig_all;
	void *qp_context;
};

/**
 * Create a QP in RESET.
 * @return the QP, or NULL with errno EINVAL (bad type, caps above the
 *         limits, missing CQ) or ENOMEM (no QPN left).
 */
struct rk_ib_qp *rk_ib_qp_create(struct rk_ib_pd *pd, const struct rk_ib_qp_init_attr *init);

/**
 * Destroy a QP (no completions are generated). @return 0.
 * QPNs are handed out round-robin over the table, so the number is not
 * reused until every other slot has been used.
 */
int rk_ib_qp_destroy(struct rk_ib_qp *qp);

/** The QP number (24 bits). */
uint32_t rk_ib_qp_num(const struct rk_ib_qp *qp);

/** The QP's current state. */
enum rk_qp_state rk_ib_qp_state(const struct rk_ib_qp *qp);

/** The qp_context given at creation. */
void *rk_ib_qp_context(const struct rk_ib_qp *qp);

/** Name of a QP state: "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR". */
extern const char *const rk_qp_state_name[RK_QPS_COUNT];

/**
 * Modify a QP (IBTA Vol1 ch. 10 and 11.2.5; libibverbs
 * ibv_modify_qp): @p mask (enum rk_qp_attr_mask) selects the attributes of
 * @p attr to apply. Each transition has required and optional attributes
 * (RESET->INIT: PKEY_INDEX, PORT and ACCESS_FLAGS for RC/UC, QKEY for UD;
 * INIT->RTR on RC: AV, PATH_MTU, DEST_QPN, RQ_PSN, MAX_DEST_RD_ATOMIC,
 * MIN_RNR_TIMER; RTR->RTS on RC: SQ_PSN, TIMEOUT, RETRY_CNT, RNR_RETRY,
 * MAX_QP_RD_ATOMIC; ...). Moving to ERR flushes every outstanding WQE with
 * RK_WC_WR_FLUSH_ERR; moving to RESET empties the queues silently.
 * @return 0; -EINVAL for a transition or attribute set the table does not
 *         allow, or a value out of range (path MTU, retry counts above 7,
 *         rd_atomic above RK_IB_MAX_RD_ATOMIC).
 */
struct rk_dcqcn_params;
/**
 * Choose the QP's congestion control: @p algo "none" (the default: no
 * pacing, no CNPs) or "dcqcn" with parameters @p params (copied; NULL =
 * profile "nvidia-default") and line rate @p line_mbps (Mb/s, > 0), the
 * RP's starting rate. A DCQCN QP paces its requests at R_C, answers
 * CE-marked requests with CNPs (DestQP = the peer's QPN, DSCP cnp_dscp) at
 * most once per min_time_between_cnps, and reacts to CNPs for it.
 * Zhu et al. SIGCOMM 2015; IBTA Vol1 Annex A17.9.
 * @return 0, -EINVAL (NULL qp, line_mbps 0), -ENOENT (unknown algo),
 *         -EOPNOTSUPP (DCQCN on a UD QP), -ENOMEM.
 */
int rk_ib_qp_set_cc(struct rk_ib_qp *qp, const char *algo, const struct rk_dcqcn_params *params,
		    uint32_t line_mbps);

struct rk_dcqcn_rp;
/** The QP's DCQCN reaction point (R_C, R_T, alpha, trace hook), or NULL unless it runs DCQCN. */
struct rk_dcqcn_rp *rk_ib_qp_dcqcn_rp(struct rk_ib_qp *qp);

/**
 * Choose the QP's loss recovery: @p algo "gbn" (go-back-N, IBTA Vol1
 * ch. 9: the default) or "sr", IRN-style selective repeat (Mittal et al.,
 * SIGCOMM 2018): the responder places RDMA WRITE packets (without
 * immediate) that arrive past a PSN gap, keeps a bitmap of them, NAKs the
 * gap's first PSN once (NAK-SEQ: the missing PSN, which acknowledges all
 * before it); the requester then resends that PSN alone when it is a WRITE
 * packet, and goes back N otherwise and on the local ACK timeout; with few
 * packets outstanding a shorter timeout resends the oldest one alone
 * (rk_ib_qp_set_rto_low). SEND,
 * WRITE with immediate, READ and ATOMIC past a gap are dropped and sent
 * again, as with go-back-N. The frames are those of go-back-N; what
 * differs is what each end does with them, so both ends must choose "sr":
 * nothing negotiates it, and a peer that does not do it (any other RoCE
 * implementation) must stay on "gbn". A WRITE placed past a gap can land
 * before an earlier READ or ATOMIC still missing in that gap executes: an
 * application that needs their order posts the WRITE with RK_SEND_FENCE
 * (IBTA Vol1 ch. 10 work request ordering), which holds it back until the
 * READ or ATOMIC completed. Details in rk_lr.c.
 * @return 0; -EINVAL (NULL), -ENOENT (unknown algo), -EOPNOTSUPP ("sr" on
 *         a UC or UD QP), -EBUSY (the QP is past INIT), -ENOMEM.
 */
int rk_ib_qp_set_recovery(struct rk_ib_qp *qp, const char *algo);

/** The QP's loss recovery: "gbn" or "sr". */
const char *rk_ib_qp_recovery(const struct rk_ib_qp *qp);

/** IRN's RTO_low, in ns: 100 us (Mittal et al., SIGCOMM 2018, section 3.1). */
#define RK_IB_RTO_LOW_NS 100000u
/** IRN's N: RTO_low runs while at most this many PSNs are outstanding (the paper's 3). */
#define RK_IB_RTO_LOW_N 3u

/**
 * Selective repeat's short local ACK timeout, IRN's RTO_low (Mittal et
 * al., "Revisiting Network Support for RDMA", SIGCOMM 2018, section 3.1):
 * while at most @p n PSNs are outstanding (sent and not acknowledged) the
 * local ACK timer runs @p rto_low_ns (nanoseconds) instead of the QP's
 * timeout (which plays IRN's RTO_high), since so few packets bring too
 * few NAKs to reveal a loss, and a resend lost again is found only by the
 * timer. When it expires the oldest unacknowledged PSN alone is sent
 * again if it is a WRITE packet (else the QP goes back N, as on the long
 * timeout); each expiry costs a transport retry, as any timeout does.
 * RTO_low expires at most once between two acknowledgements that advance:
 * after that the QP's own timeout runs, so a silent path spends its
 * retries at the long pace, not one each RTO_low. A timer armed short is lengthened to the QP's timeout, from when it was
 * armed, once more than @p n PSNs are outstanding.
 * rk_ib_qp_set_recovery("sr") sets the paper's values, RK_IB_RTO_LOW_NS
 * and RK_IB_RTO_LOW_N; @p rto_low_ns or @p n 0 turns RTO_low off, and an
 * RTO_low not below the QP's timeout is not used. Go-back-N has none.
 * @return 0; -EINVAL (NULL qp), -EOPNOTSUPP (the QP's recovery is not "sr").
 */
int rk_ib_qp_set_rto_low(struct rk_ib_qp *qp, uint64_t rto_low_ns, uint32_t n);

/** The QP's RTO_low (ns) and N; both 0 unless its recovery is "sr". */
void rk_ib_qp_rto_low(const struct rk_ib_qp *qp, uint64_t *rto_low_ns, uint32_t *n);

int rk_ib_qp_modify(struct rk_ib_qp *qp, const struct rk_qp_attr *attr, int mask);

/** Read the QP's attributes (all of them, whatever @p mask says). @return 0. */
int rk_ib_qp_query(const struct rk_ib_qp *qp, struct rk_qp_attr *attr, int mask);

/**
 * Queue send work requests (a chain through ->next). Each WR is checked and
 * copied (SGE list included), so the caller may reuse it at once; with
 * RK_SEND_INLINE the data is copied too.
 * @return 0; otherwise -EINVAL (bad opcode for the QP type, too many SGEs,
 *         a READ spanning 2^23 PSNs or more at the path MTU,
 *         QP not in RTS/SQD/SQE/ERR), -ENOMEM (SQ full), and *bad_wr is
 *         the first WR not queued (those before it were). In ERR, WRs are
 *         accepted and completed at once with RK_WC_WR_FLUSH_ERR.
 */
int rk_ib_post_send(struct rk_ib_qp *qp, const struct rk_send_wr *wr,
		    const struct rk_send_wr **bad_wr);

/** Queue receive work requests; like rk_ib_post_send (RESET refuses, ERR flushes). */
int rk_ib_post_recv(struct rk_ib_qp *qp, const struct rk_recv_wr *wr,
		    const struct rk_recv_wr **bad_wr);

/* -------------------------------------------------------------- datapath */

/** Called by rk_ib_poll_tx once per frame; @p frame is valid during the call only. */
typedef void (*rk_ib_emit_fn)(void *ctx, const uint8_t *frame, uint32_t len);

/**
 * Process one received frame at time @p now_ns. Frames that are not
 * RoCEv2 with a usable BTH (truncated, too short for the opcode's headers,
 * unknown DestQP, bad ICRC, wrong P_Key or transport) are dropped and
 * counted before any length arithmetic. Requests go to the QP's responder
 * (IBTA Vol1 ch. 9), responses to its completer.
 * @return 0 when the frame was consumed (even if it was dropped by the
 *         protocol), -EINVAL for NULL arguments.
 */
int rk_ib_rx(struct rk_ib_dev *dev, const struct rk_pkt *pkt, uint64_t now_ns);

/**
 * Emit up to @p budget frames due at @p now_ns (responses and ACKs first,
 * then requests), round-robin over QPs.
 * @return frames emitted.
 */
unsigned int rk_ib_poll_tx(struct rk_ib_dev *dev, uint64_t now_ns, rk_ib_emit_fn emit,
			   void *ctx, unsigned int budget);

/**
 * Where rk_ib_poll_tx_into builds the next frame: a writable buffer of at
 * least RK_IB_MAX_FRAME bytes owned by the caller (e.g. an mbuf's data
 * room), or NULL to build in the device's own buffer. Asked for only when
 * a QP has a frame due, so an idle poll borrows nothing; a buffer handed
 * out but not passed to emit (the frame could not be built) is asked for
 * again next time.
 */
typedef uint8_t *(*rk_ib_frame_fn)(void *ctx);

/**
 * rk_ib_poll_tx building each frame straight into the buffer @p frame
 * returns, so a backend that owns transmit buffers does not copy frames:
 * emit() then receives that same buffer.
 * @return frames emitted.
 */
unsigned int rk_ib_poll_tx_into(struct rk_ib_dev *dev, uint64_t now_ns, rk_ib_frame_fn frame,
				rk_ib_emit_fn emit, void *ctx, unsigned int budget);

/**
 * A frame whose payload was not copied: @p hdr_len bytes of headers at
 * @p frame (the buffer rk_ib_frame_fn lent, or the device's own), then
 * @p payload_len bytes of payload at @p payload (registered memory of the
 * sender's SGE or of a READ's region), then @p trailer_len bytes at
 * @p trailer (the pad, 0-3 zero bytes, and the 4-byte ICRC, already
 * computed over all of it). Every pointer is valid until
 * rk_ib_poll_tx_sg() returns, no longer: by then the callee must have
 * handed the bytes to a device that copies them, or copied them.
 */
typedef void (*rk_ib_emit_sg_fn)(void *ctx, const uint8_t *frame, uint32_t hdr_len,
				 const uint8_t *payload, uint32_t payload_len,
				 const uint8_t *trailer, uint32_t trailer_len);

/** Payloads from this many bytes up go to emit_sg() in rk_ib_poll_tx_sg(). */
#define RK_IB_SG_MIN 512u

/**
 * rk_ib_poll_tx_into, with the payload of each frame that carries at least
 * RK_IB_SG_MIN bytes from one contiguous piece of registered memory (one
 * SGE, or a READ's region) passed to @p emit_sg by reference instead of
 * being copied into the frame: a backend whose device copies frames out
 * anyway (a virtual port) saves a copy of every large payload. Other
 * frames go to @p emit as before. @p emit_sg NULL: rk_ib_poll_tx_into.
 * @return frames emitted.
 */
unsigned int rk_ib_poll_tx_sg(struct rk_ib_dev *dev, uint64_t now_ns, rk_ib_frame_fn frame,
			      rk_ib_emit_fn emit, rk_ib_emit_sg_fn emit_sg, void *ctx,
			      unsigned int budget);

/**
 * Earliest time a timer of the device expires (retransmission, RNR wait,
 * ACK coalescing), in ns; UINT64_MAX when none is armed. Frames waiting in
 * rk_ib_poll_tx are not timers: check rk_ib_tx_pending().
 */
uint64_t rk_ib_next_timer(const struct rk_ib_dev *dev);

/** Whether rk_ib_poll_tx would emit a frame at @p now_ns. */
bool rk_ib_tx_pending(const struct rk_ib_dev *dev, uint64_t now_ns);

/** Run the timers that expired at @p now_ns. */
void rk_ib_timers(struct rk_ib_dev *dev, uint64_t now_ns);

/**
 * Bytes of one QP's own state (struct size plus its responder resources),
 * apart from its work queues and registered memory.
 */
size_t rk_ib_qp_state_size(const struct rk_ib_qp *qp);

/**
 * Bytes the engine allocated for one QP: its state (rk_ib_qp_state_size)
 * plus its send queue, receive queue and inline buffers. Work queue slots
 * are sized by the caps given at creation (max_send_sge, max_recv_sge,
 * max_inline_data; UD address vectors only in UD QPs).
 */
size_t rk_ib_qp_mem_size(const struct rk_ib_qp *qp);

#endif /* RK_IB_H */
