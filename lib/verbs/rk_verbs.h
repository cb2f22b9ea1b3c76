/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_verbs.h
 * A verbs API shaped like libibverbs (verbs.h) over the rdmakit transport
 * engine (lib/ib): open a device on an I/O backend, allocate PDs, register
 * memory, create CQs, SRQs, AHs and QPs, modify them through the IBTA state
 * machine, post work and poll completions. Types and enum values are those
 * of rk_rdma_types.h, numbered as IBV_*.
 *
 * Differences from libibverbs:
 *   - calls return 0 or a negative errno (not a positive errno); creators
 *     return NULL and set errno;
 *   - rk_post_send/rk_post_recv keep the bad_wr contract (the first WR not
 *     queued) but return -errno;
 *   - imm_data and invalidate R_Keys are host order;
 *   - the transport runs in software on the caller's thread: rk_poll_cq()
 *     and rk_progress() receive frames from the backend, run timers and
 *     transmit; rk_post_send() transmits what it can at once (on a RoCE
 *     context of more than 64 QPs, at the next rk_progress(): a transmit
 *     pass visits every QP).
 *
 * iWARP (rk_open_device_iwarp): the same calls run RC QPs of lib/iwarp,
 * one per byte stream (rk_qp_connect_stream()). Work requests, SGEs,
 * completions and their IBV-style opcodes/statuses are the same types;
 * what differs is RFC 5040's: a Write or Send completes successfully once
 * its last byte was handed to the stream (no end-to-end acknowledgement),
 * a Read when its response was placed; SEND_WITH_INV invalidates the
 * peer's STag (the region must allow RK_ACCESS_REMOTE_INVALIDATE); a
 * remote error arrives as a Terminate (RFC 5040 4.8): the
 * first work request not yet complete gets RK_WC_REM_ACCESS_ERR (tagged
 * buffer or RDMAP protection), RK_WC_REM_INV_REQ_ERR (untagged buffer) or
 * RK_WC_REM_OP_ERR (others), the rest RK_WC_WR_FLUSH_ERR, and the QP is
 * in ERR. No RNR: a Send without a posted receive is a Terminate.
 * SEND_WITH_IMM, WRITE_WITH_IMM and atomics are refused (-EINVAL).
 *
 * Concurrency: a context and everything created from it (PDs, MRs, CQs,
 * SRQs, AHs, QPs) form one unit that is NOT thread-safe. Calls on one
 * context must be serialised by the caller (one thread per context, or a
 * lock around every call). Different contexts share no state and may be
 * used from different threads at the same time. rk_wc_status_str() is
 * always safe.
 */
#ifndef RK_VERBS_H
#define RK_VERBS_H

#include <stddef.h>
#include <stdint.h>

#include "rk_ib.h"
#include "rk_rdma_types.h"
#include "rk_io.h"
#include "rk_iw.h"

/** Transport of a context (ibv_transport_type). */
enum rk_transport_type {
	RK_TRANSPORT_TYPE_IB = 0,       /**< RoCEv2 frames over rk_io_ops (lib/ib) */
	RK_TRANSPORT_TYPE_IWARP = 1,    /**< MPA/DDP/RDMAP over byte streams (lib/iwarp) */
};

/* struct rk_stream_ops, the byte streams of iWARP contexts: rk_iw_stream.h. */

/** Device attributes given to rk_open_device(). */
struct rk_device_attr {
	uint8_t mac[6];
	uint8_t ip[16];                 /**< IPv6, or IPv4 in the last 4 bytes */
	uint8_t ip_version;             /**< 4 or 6; 0 means 4 */
	uint64_t key_seed;              /**< key secret; 0: drawn from getrandom() */
	uint32_t max_qp;                /**< 0: 64 */
	uint32_t max_mr;                /**< 0: 1024 */
	uint32_t max_inflight_pkts;     /**< requester window, PSNs; 0: 256 */
	/**
	 * RoCE: the port's active MTU (a UD message's limit, the largest path
	 * MTU a QP takes); 0: 4096. rk_roce_active_mtu() derives it from the port's MTU.
	 */
	enum rk_mtu active_mtu;
	uint64_t ack_delay_ns;          /**< responder ACK coalescing delay */
};

/*
 * Public handles: each is embedded in a private object of lib/verbs
 * (rk_verbs_priv.h); the fields below are the caller's to read.
 */
struct rk_context {
	enum rk_transport_type transport;
};

struct rk_pd {
	struct rk_context *context;
};

struct rk_mr {
	struct rk_context *context;
	struct rk_pd *pd;
	void *addr;
	size_t length;
	uint32_t lkey;
	uint32_t rkey;
	struct rk_iw_mr *iw;             /**< iWARP contexts: the engine's region (else NULL) */
};

struct rk_cq {
	struct rk_context *context;
	void *cq_context;
	int cqe;
};

struct rk_srq_init_attr {
	void *srq_context;
	struct {
		uint32_t max_wr;
		uint32_t max_sge;
		uint32_t srq_limit;     /**< not implemented: must be 0 */
	} attr;
};

struct rk_srq {
	struct rk_context *context;
	void *srq_context;
	struct rk_pd *pd;
};

struct rk_qp_init_attr {
	void *qp_context;
	struct rk_cq *send_cq;
	struct rk_cq *recv_cq;
	struct rk_srq *srq;
	struct rk_qp_cap cap;
	enum rk_qp_type qp_type;
	int sq_sig_all;
};

struct rk_qp {
	struct rk_context *context;
	void *qp_context;
	struct rk_pd *pd;
	struct rk_cq *send_cq;
	struct rk_cq *recv_cq;
	struct rk_srq *srq;
	uint32_t qp_num;
	enum rk_qp_state state;         /**< as of the last modify/query */
	enum rk_qp_type qp_type;
};

/**
 * Open a device on an I/O backend.
 * @return the context, or NULL with errno EINVAL (NULL ops, bad attribute)
 *         or ENOMEM.
 */
struct rk_context *rk_open_device(const struct rk_io_ops *ops, void *io,
				  const struct rk_device_attr *attr);

/**
 * Open an iWARP device (RFC 5040 RDMAP, RFC 5041 DDP, RFC 5044/6581 MPA):
 * PDs, MRs, CQs and RC QPs of lib/iwarp, each QP on one byte stream of
 * @p ops attached with rk_qp_connect_stream(). Of @p attr only key_seed
 * (0: drawn from getrandom()) and max_mr (0: 1024) are used; addresses
 * belong to the streams. An MR's lkey and rkey are both its STag (24-bit
 * index, 8-bit key), as in Linux siw. Not available: SRQs, AHs, UC/UD QPs
 * (EOPNOTSUPP), per-QP counters.
 * @return the context (transport RK_TRANSPORT_TYPE_IWARP), or NULL with errno
 *         EINVAL (NULL or incomplete ops, NULL attr), EIO or ENOMEM.
 */
struct rk_context *rk_open_device_iwarp(const struct rk_stream_ops *ops, void *env,
					const struct rk_device_attr *attr);

/**
 * Close a device (ibv_close_device).
 * @return 0; -EBUSY while PDs, MRs, CQs, SRQs or QPs created from it
 *         remain (destroy them first); -EINVAL.
 */
int rk_close_device(struct rk_context *ctx);

/** Allocate a protection domain; NULL with errno. */
struct rk_pd *rk_alloc_pd(struct rk_context *ctx);

/** Free a PD. @return 0, -EBUSY while objects use it, -EINVAL. */
int rk_dealloc_pd(struct rk_pd *pd);

/**
 * Register memory (ibv_reg_mr). @p access is enum rk_access_flags;
 * remote write or atomic needs local write (IBTA Vol1 ch. 10).
 * L_Key and R_Key differ and are not predictable from earlier keys.
 * @return the MR, or NULL with errno EINVAL or ENOMEM.
 */
struct rk_mr *rk_reg_mr(struct rk_pd *pd, void *addr, size_t length, int access);

/** Deregister an MR. @return 0 or -EINVAL. */
int rk_dereg_mr(struct rk_mr *mr);

/** Create a CQ of at least @p cqe entries; NULL with errno. */
struct rk_cq *rk_create_cq(struct rk_context *ctx, int cqe, void *cq_context);

/** Destroy a CQ. @return 0, -EBUSY while a QP uses it, -EINVAL. */
int rk_destroy_cq(struct rk_cq *cq);

/**
 * Poll up to @p num completions (ibv_poll_cq), after running rk_progress()
 * on the CQ's context unless @p num completions are already waiting (a
 * ping-pong sees its completion without one more pass over the port).
 * @return completions written (0..num), -EOVERFLOW after a CQ overrun,
 *         -EINVAL.
 */
int rk_poll_cq(struct rk_cq *cq, int num, struct rk_wc *wc);

/** Create an SRQ; NULL with errno EINVAL (srq_limit != 0, sizes) or ENOMEM. */
struct rk_srq *rk_create_srq(struct rk_pd *pd, const struct rk_srq_init_attr *attr);

/** Destroy an SRQ. @return 0, -EBUSY while a QP uses it, -EINVAL. */
int rk_destroy_srq(struct rk_srq *srq);

/** Post receive WRs to an SRQ; as rk_post_recv(). */
int rk_post_srq_recv(struct rk_srq *srq, struct rk_recv_wr *wr, struct rk_recv_wr **bad_wr);

/** Create an address handle for UD sends; NULL with errno. */
struct rk_ah *rk_create_ah(struct rk_pd *pd, const struct rk_ah_attr *attr);

/** Destroy an address handle (no WR may still use it). @return 0 or -EINVAL. */
int rk_destroy_ah(struct rk_ah *ah);

/**
 * Create a QP in RESET; NULL with errno EINVAL or ENOMEM (EOPNOTSUPP: not
 * RC, or an SRQ, on an iWARP context). An iWARP QP gets its connection
 * from rk_qp_connect_stream(); cap.max_send_sge/max_recv_sge are at most
 * RK_IW_MAX_SGE there.
 */
struct rk_qp *rk_create_qp(struct rk_pd *pd, struct rk_qp_init_attr *attr);

/**
 * Attach a connected byte stream to an iWARP QP and start the MPA set-up
 * (RFC 5044 7.1, RFC 6581): an Initiator's MPA Request goes out on the
 * next rk_progress(), a Responder waits for it. @p conn chooses the role,
 * Rev (0: 2), enhanced/p2p RTR negotiation, CRC (on when either side asks,
 * RFC 5044 7.1.1), markers wanted from the peer, private data (at most 512
 * bytes, 508 with enhanced), TCP ISNs (for the marker grid, RFC 5044 4.3)
 * and EMSS (FPDUs fit in it; 0: 1460). Its ird/ord are ignored: IRD is the
 * QP's max_dest_rd_atomic and ORD its max_rd_atomic as last set with
 * rk_modify_qp() (0: 8, at most RK_IW_MAX_IRD_ORD), carried in the RFC
 * 6581 IRD/ORD words.
 *
 * The QP owns @p stream from here on: the stream ops' close() runs when
 * the engine is done with it (after a Terminate or an MPA reject went
 * out), when it ended (recv() < 0), on rk_modify_qp() to ERR and on
 * rk_destroy_qp(). Receives may be posted at once (nothing is received
 * before the next rk_progress() or rk_poll_cq()); sends posted before RTS
 * go out once the set-up is done. rk_query_qp() reports RTR during the
 * set-up, RTS once RDMAP runs, ERR after a Terminate, an LLP close, an MPA
 * reject or timeout (rk_qp_iw() gives the engine's error record).
 * @return 0; -EINVAL (not an iWARP QP, already connected, QP in ERR, bad
 *         @p conn) or -ENOMEM; on error @p stream stays the caller's.
 */
int rk_qp_connect_stream(struct rk_qp *qp, void *stream, const struct rk_iw_conn_attr *conn);

/**
 * The engine QP of an iWARP QP (for rk_iw_qp_error(), rk_iw_qp_negotiated(),
 * rk_iw_qp_peer_pd()), or NULL before rk_qp_connect_stream() and for
 * RoCE QPs.
 */
struct rk_iw_qp *rk_qp_iw(const struct rk_qp *qp);

/**
 * The engine device of a RoCE context (for rk_ib_dev_set_tx_rate() and
 * other lib/ib calls), or NULL for NULL and iWARP contexts.
 */
struct rk_ib_dev *rk_context_ib(const struct rk_context *ctx);

/** The engine QP of a RoCE QP (rk_ib_qp_*()), or NULL for NULL and iWARP QPs. */
struct rk_ib_qp *rk_qp_ib(const struct rk_qp *qp);

/**
 * Modify a QP (ibv_modify_qp): the attribute mask rules of
 * rk_ib_qp_modify() (IBTA Vol1 11.2.5).
 *
 * iWARP QPs (the connection comes from rk_qp_connect_stream()) take only:
 * RK_QP_MAX_QP_RD_ATOMIC (ORD) and RK_QP_MAX_DEST_RD_ATOMIC (IRD), before
 * connecting; RK_QP_STATE to INIT (from RESET or INIT, with ACCESS_FLAGS,
 * PKEY_INDEX and PORT accepted and ignored: remote access is per region
 * in iWARP) or to ERR at any time (the stream is closed, outstanding work
 * completes with RK_WC_WR_FLUSH_ERR). Other states and attributes: -EINVAL.
 *
 * RoCE: a path MTU whose packets (up to 80 bytes of headers around the
 * payload) exceed the backend's MTU (struct rk_io_ops mtu) is refused
 * with -EINVAL, as rxe refuses one above the port's active MTU.
 * @return 0 or -EINVAL.
 */
int rk_modify_qp(struct rk_qp *qp, struct rk_qp_attr *attr, int attr_mask);

/** Query a QP: fills @p attr, and @p init_attr when not NULL. @return 0 or -EINVAL. */
int rk_query_qp(struct rk_qp *qp, struct rk_qp_attr *attr, int attr_mask,
		struct rk_qp_init_attr *init_attr);

/** Destroy a QP (outstanding WRs are dropped without completions). @return 0 or -EINVAL. */
int rk_destroy_qp(struct rk_qp *qp);

/**
 * Post send WRs (ibv_post_send).
 * @return 0; -EINVAL (opcode not allowed for the QP type, too many SGEs,
 *         QP not ready to send) or -ENOMEM (send queue full), with
 *         *bad_wr the first WR not queued.
 */
int rk_post_send(struct rk_qp *qp, struct rk_send_wr *wr, struct rk_send_wr **bad_wr);

/** Post receive WRs (ibv_post_recv); errors as rk_post_send(). */
int rk_post_recv(struct rk_qp *qp, struct rk_recv_wr *wr, struct rk_recv_wr **bad_wr);

/**
 * Run the transport once: receive up to 256 frames from the backend, run
 * expired timers, transmit up to 256 frames (fewer when the backend's
 * tx_room() says its device queue is full). When nothing arrives and the
 * previous pass had nothing to send, three calls in four return after the
 * receive check alone (no clock read): timers fire up to three calls
 * late, never early. A RoCE context of more than 64 QPs scans its timers
 * at most once per 50 ns per QP (4096 QPs: 205 us), so they fire up to
 * that late too: the scan visits every QP. rk_post_send, rk_post_recv, rk_modify_qp and
 * rk_next_event_ns make the next call a full one.
 * iWARP contexts: for every connected QP, read what its stream has
 * (up to 1 MiB), run the MPA set-up timer, write what the stream takes;
 * close streams the engine is done with.
 * @return frames received plus frames transmitted (iWARP: stream bytes
 *         moved), or -EINVAL.
 */
int rk_progress(struct rk_context *ctx);

/**
 * When rk_progress() next has work without new frames: the backend's now
 * when frames wait to be sent, the earliest timer otherwise, UINT64_MAX
 * when idle. iWARP: now when a stream has bytes to take, UINT64_MAX
 * otherwise (received bytes are the caller's to watch, e.g. with poll()).
 */
uint64_t rk_next_event_ns(struct rk_context *ctx);

/** Transport counters of the context (all zero on an iWARP context). */
const struct rk_ib_stats *rk_context_stats(const struct rk_context *ctx);

/** Counters of an iWARP context (bytes, FPDUs, Terminates), or NULL. */
const struct rk_iw_stats *rk_context_iw_stats(const struct rk_context *ctx);

/** One counter, named as NIC hardware counters are. */
struct rk_counter {
	const char *name;
	uint64_t value;
};

/**
 * Name the engine counters @p s as `rdma statistic` shows mlx5 and rxe
 * hardware counters: out_of_sequence (NAK-sequence sent by the
 * responder), packet_seq_err (NAK-sequence received), implied_nak_seq_err
 * (READ re-issued after a skipped response), local_ack_timeout_err,
 * rnr_nak_retry_err (RNR NAKs received), out_of_buffer (RNR NAKs sent),
 * duplicate_request, rx_write_requests, rx_read_requests,
 * rx_atomic_requests, rx_send_requests, retry_exceeded_err and
 * retry_rnr_exceeded_err (rxe: retries given up), rx_icrc_encapsulated,
 * resp_remote_access_errors (class C NAKs sent), sent_pkts, rcvd_pkts,
 * retransmitted_pkts, rx_dropped_unknown_qp, rx_dropped_malformed,
 * rx_dropped_state, rx_dropped_addr. Values are monotonic.
 * @return entries written to @p out (at most @p max).
 */
unsigned int rk_counters_from_stats(const struct rk_ib_stats *s, struct rk_counter *out,
				    unsigned int max);

/**
 * The counters of one QP (rdma statistic's per-QP mode): the names of
 * rk_counters_from_stats() counted for this QP only.
 * @return entries written, -EINVAL, or -EOPNOTSUPP on an iWARP QP.
 */
int rk_query_qp_counters(const struct rk_qp *qp, struct rk_counter *out, unsigned int max);

/**
 * How far @p qp has got, for a watchdog that must tell a slow transfer
 * from a dead peer: a count that grows only with forward movement, also
 * inside one long message that has not completed yet. RoCE: request
 * packets acknowledged (ACKs, READ responses, ATOMIC acknowledges) plus
 * new requests executed as responder; retransmissions, duplicates and
 * NAKs do not count. iWARP: bytes its stream took from the QP and gave
 * to it (a TCP send buffer takes more only as the peer acknowledges).
 * Compare two readings; the value itself means nothing.
 * @return the count; 0 for NULL.
 */
uint64_t rk_qp_progress(const struct rk_qp *qp);

/** Name of a completion status, as ibv_wc_status_str(): "success", ... */
const char *rk_wc_status_str(enum rk_wc_status status);

#endif /* RK_VERBS_H */
