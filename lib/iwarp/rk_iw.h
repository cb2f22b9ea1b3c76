/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_iw.h
 * The iWARP endpoint engine: MPA connection set-up (RFC 5044, RFC 6581),
 * FPDU framing over a byte stream, DDP placement (RFC 5041) and RDMAP
 * (RFC 5040, RFC 7306), pure: no sockets, no clock, no threads.
 *
 * One QP is one MPA/TCP connection. The caller owns the TCP (lib/tcp, or a
 * test pipe) and moves bytes:
 *   - rk_iw_rx() with every run of received stream bytes, in order, in any
 *     segmentation (one byte at a time works);
 *   - rk_iw_tx() to take bytes to send into a caller buffer of any size:
 *     the engine keeps what does not fit (backpressure is simply a small
 *     or zero @c cap);
 *   - rk_iw_llp_closed() when the TCP connection ends;
 *   - rk_iw_want_close() tells when the engine wants the TCP closed (after
 *     a Terminate or a rejected MPA set-up has been handed out in full).
 * Time enters as now_ns only for the MPA set-up timeout.
 *
 * Work requests, completions, SGEs and access flags are lib/ib's
 * (rk_rdma_types.h), so the verbs layer can put a QP on either engine. An
 * STag is both the L_Key and the R_Key of a region (as in Linux siw):
 * 24-bit index and 8-bit key, resolved again on every use (a deregistered
 * region is never touched again).
 *
 * Terminate (RFC 5040 4.8 and 5; codes as the RFC 6580 registry and the
 * IANA registry): the engine sends one Terminate for the first error it
 * sees in the peer's stream, with the layer that detected it (LLP/MPA for
 * CRC and marker errors, DDP for tagged/untagged buffer errors, RDMAP for
 * version, opcode and Data Source errors), places nothing from the
 * offending FPDU, processes nothing after it, then asks for the stream to
 * be closed. A Terminate received is not answered.
 *
 * Terminates sent (Layer/EType/Code), checked in this order per FPDU:
 *   CRC32c wrong                                   2/0/0x02  no header echoed
 *   marker FPDUPTR or Reserved wrong               2/0/0x03  no header echoed
 *   ULPDU shorter than its DDP header              0/2/0xFF
 *   DV != 1                             tagged 1/1/0x04, untagged 1/2/0x06
 *   RV != 1                                        0/2/0x05
 *   opcode reserved, T bit wrong for the opcode, RFC 7306 opcode without
 *   ext_ops, unsolicited Read/Atomic Response      0/2/0x06
 *   untagged QN not the opcode's queue             1/2/0x01
 *   RDMAP header truncated, Read Request with payload, single-segment
 *   message with L = 0, Immediate Data with payload 0/2/0xFF
 *   MSN not the next on its queue                  1/2/0x03
 *   MO not the bytes received so far               1/2/0x04
 *   Send/Immediate with no receive posted          1/2/0x02 (no RNR in iWARP)
 *   Send longer than the receive buffer            1/2/0x05
 *   Write / Read Response: STag unknown 1/1/0x00, other PD 1/1/0x02,
 *   TO + length wraps 1/1/0x03, outside the region 1/1/0x01, region
 *   without REMOTE_WRITE 0/1/0x02; Read Response not the expected sink
 *   STag 1/1/0x00 or TO/length 1/1/0x01
 *   Read Request / Atomic Data Source: STag unknown 0/1/0x00, other PD
 *   0/1/0x03, no REMOTE_READ/ATOMIC 0/1/0x02, wrap 0/1/0x04, bounds
 *   0/1/0x01; more Reads/Atomics than our IRD      0/2/0x07
 *   Send with Invalidate of an STag that may not be invalidated 0/1/0x09
 *   first FPDU not the negotiated RTR (RFC 6581)   2/0/0x07
 *   Reply's IRD below our ORD with strict_ird      2/0/0x06
 *   our own SGE unusable (local protection)        0/0/0x00
 * For DDP and RDMAP errors the Terminate carries the offending DDP header
 * (HdrCt D and M, with its segment length) and, for a Read Request, its
 * RDMAP header (R). Zero-length tagged segments name no buffer and are
 * not checked.
 *
 * Known limits:
 *   - the RDMA Read sink is one SGE (one STag), as in iWARP;
 *   - SEND_WITH_IMM is refused; WRITE_WITH_IMM is a Write followed by an
 *     RFC 7306 Immediate Data message, atomics are RFC 7306 Atomic
 *     Requests: both only when the QP was created with ext_ops (RFC 7306
 *     has no MPA negotiation: the ULP agrees on it, e.g. in private data);
 *   - there is no Shared Receive Queue and nothing can be bound or
 *     fast-registered: a Send with Invalidate may name only regions
 *     registered with RK_ACCESS_REMOTE_INVALIDATE.
 */
#ifndef RK_IW_H
#define RK_IW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rk_rdma_types.h"
#include "rk_mpa.h"

struct rk_iw_dev;
struct rk_iw_pd;
struct rk_iw_mr;
struct rk_iw_cq;
struct rk_iw_qp;

/** Most scatter/gather elements per work request. */
#define RK_IW_MAX_SGE 8
/** Largest IRD / ORD (14-bit fields of RFC 6581, capped by the engine). */
#define RK_IW_MAX_IRD_ORD 64
/** Default MPA set-up timeout (RFC 5044 suggests a ULP-chosen timer). */
#define RK_IW_MPA_TIMEOUT_NS 5000000000ull

/** Device attributes. */
struct rk_iw_dev_attr {
	uint32_t max_mr;        /**< 0 means 1024 (at most 2^24) */
	uint64_t key_seed;      /**< first 8-bit STag keys are derived from it */
};

/** Device counters (monotonic). */
struct rk_iw_stats {
	uint64_t rx_bytes, tx_bytes;
	uint64_t rx_fpdus, tx_fpdus;
	uint64_t term_sent, term_rcvd;
	uint64_t placed_bytes;          /**< tagged and untagged bytes placed */
};

/**
 * Create a device: the STag table, PDs and CQs.
 * @return the device, or NULL with errno EINVAL or ENOMEM.
 */
struct rk_iw_dev *rk_iw_dev_create(const struct rk_iw_dev_attr *attr);

/** Destroy a device and every object still in it. */
void rk_iw_dev_destroy(struct rk_iw_dev *dev);

/** The device's counters. */
const struct rk_iw_stats *rk_iw_dev_stats(const struct rk_iw_dev *dev);

/** Allocate a protection domain; NULL with errno ENOMEM. */
struct rk_iw_pd *rk_iw_pd_alloc(struct rk_iw_dev *dev);

/** Free a PD. @return 0, or -EBUSY while regions or QPs use it. */
int rk_iw_pd_free(struct rk_iw_pd *pd);

/**
 * Register @p len bytes at @p addr with @p access (enum rk_access_flags).
 * The TO of byte i is (uint64_t)(uintptr_t)addr + i (VA-based STags, as
 * Linux siw and libibverbs do). REMOTE_WRITE and REMOTE_ATOMIC need
 * LOCAL_WRITE.
 * @return the region, or NULL with errno EINVAL or ENOMEM (table full).
 */
struct rk_iw_mr *rk_iw_mr_reg(struct rk_iw_pd *pd, void *addr, size_t len,
			      unsigned int access);

/** Deregister: the STag stops resolving at once. @return 0 or -EINVAL. */
int rk_iw_mr_dereg(struct rk_iw_mr *mr);

/** STag of @p mr: index (31:8) and key (7:0); L_Key and R_Key at once. */
uint32_t rk_iw_mr_stag(const struct rk_iw_mr *mr);

/** Whether @p mr was invalidated by a peer's Send with Invalidate. */
bool rk_iw_mr_invalidated(const struct rk_iw_mr *mr);

/** Create a CQ of @p cqe entries (1..2^20); NULL with errno EINVAL/ENOMEM. */
struct rk_iw_cq *rk_iw_cq_create(struct rk_iw_dev *dev, uint32_t cqe);

/** Destroy a CQ. @return 0, or -EBUSY while a QP uses it. */
int rk_iw_cq_destroy(struct rk_iw_cq *cq);

/**
 * Take up to @p n completions, oldest first.
 * @return completions written (0..n), or -EOVERFLOW once the CQ overran.
 */
int rk_iw_cq_poll(struct rk_iw_cq *cq, int n, struct rk_wc *wc);

/** MPA role of the endpoint (RFC 5044 7.1). */
enum rk_iw_role {
	RK_IW_INITIATOR,        /**< sends the MPA Request (the TCP client) */
	RK_IW_RESPONDER,        /**< answers with the MPA Reply */
};

/** RFC 6581 ready-to-receive message types (bit set). */
enum rk_iw_rtr {
	RK_IW_RTR_SEND = 1,     /**< zero-length Send (B) */
	RK_IW_RTR_WRITE = 2,    /**< zero-length RDMA Write (C) */
	RK_IW_RTR_READ = 4,     /**< zero-length RDMA Read (D) */
};

/** MPA parameters of one endpoint. */
struct rk_iw_conn_attr {
	enum rk_iw_role role;
	uint8_t rev;            /**< 1 (RFC 5044) or 2 (RFC 6581); 0 means 2 */
	bool enhanced;          /**< Rev 2: IRD/ORD words in the private data */
	bool p2p;               /**< enhanced: ask for (initiator) or accept
				 *   (responder) peer-to-peer RTR negotiation */
	uint8_t rtr_types;      /**< enum rk_iw_rtr: types offered (initiator)
				 *   or acceptable (responder); 0 means all */
	bool markers_rx;        /**< M: ask the peer to put markers in what it sends */
	bool crc;               /**< C: want CRC (on when either side sets C) */
	bool strict_ird;        /**< peer IRD below our ORD: an Initiator sends
				 *   Terminate 2/0/0x06, a Responder rejects
				 *   (R = 1), instead of lowering ORD */
	uint16_t ird, ord;      /**< 0 means 8; at most RK_IW_MAX_IRD_ORD */
	const uint8_t *pd;      /**< private data to send (copied) */
	uint16_t pd_len;        /**< at most 512, less 4 with IRD/ORD */
	uint32_t tx_isn;        /**< TCP sequence number of our first stream byte */
	uint32_t rx_isn;        /**< ... and of the peer's */
	uint16_t emss;          /**< TCP effective MSS: FPDUs fit in it; 0 means 1460 */
	uint64_t mpa_timeout_ns;/**< 0 means RK_IW_MPA_TIMEOUT_NS */
};

/** QP creation attributes. */
struct rk_iw_qp_init_attr {
	struct rk_iw_cq *send_cq;
	struct rk_iw_cq *recv_cq;
	struct rk_qp_cap cap;   /**< max_send_wr, max_recv_wr, max_send_sge, max_recv_sge */
	int sq_sig_all;
	bool ext_ops;           /**< RFC 7306 Immediate Data and atomics */
	struct rk_iw_conn_attr conn;
	void *qp_context;
	uint32_t qp_num;        /**< copied into each completion's qp_num */
};

/*
 * Connection / QP state: MPA_WAIT, the MPA frame exchange in progress;
 * RTR_WAIT, waiting for the peer's RTR (RFC 6581) or, as a Rev 1
 * responder, for the first FPDU; RTS, full operation; TERMINATE, a
 * Terminate (or MPA reject) being sent; CLOSED, done: the TCP should be
 * (or was) closed.
 */
#define RK_IW_STATES(X, P) X(P, MPA_WAIT) X(P, RTR_WAIT) X(P, RTS) X(P, TERMINATE) X(P, CLOSED)
enum rk_iw_state { RK_IW_STATES(RK_ENUM_MEMBER, RK_IW_) RK_IW_STATE_COUNT };

/** Name of a state: "MPA_WAIT", "RTR_WAIT", "RTS", "TERMINATE", "CLOSED". */
extern const char *const rk_iw_state_name[RK_IW_STATE_COUNT];

/** Why a QP left RTS (rk_iw_qp_error). */
enum rk_iw_close_reason {
	RK_IW_CLOSE_NONE = 0,
	RK_IW_CLOSE_TERM_SENT,      /**< we sent a Terminate (see term) */
	RK_IW_CLOSE_TERM_RCVD,      /**< the peer sent one (see term) */
	RK_IW_CLOSE_MPA_REJECTED,   /**< a Reply with R = 1 was sent or received */
	RK_IW_CLOSE_MPA_BAD,        /**< not an MPA peer (key, Rev, R): closed */
	RK_IW_CLOSE_MPA_TIMEOUT,    /**< no Request/Reply in time */
	RK_IW_CLOSE_LLP,            /**< the TCP connection ended */
	RK_IW_CLOSE_LOCAL,          /**< rk_iw_qp_close */
};

/** Error record of a QP (after it left RTS). */
struct rk_iw_error {
	enum rk_iw_close_reason reason;
	uint8_t layer, etype, code; /**< the Terminate sent or received */
};

/** What was negotiated (valid from RTR_WAIT / RTS on). */
struct rk_iw_negotiated {
	uint8_t rev;
	bool enhanced, p2p;
	uint8_t rtr;            /**< the one RTR type chosen (p2p), else 0 */
	bool crc;
	bool markers_tx;        /**< we put markers in what we send */
	bool markers_rx;        /**< the peer puts markers in what it sends */
	uint16_t ird, ord;      /**< ours, after negotiation */
	uint16_t peer_ird, peer_ord;
	uint16_t mulpdu;        /**< largest ULPDU we send */
};

/**
 * Create a QP (one MPA connection) in MPA_WAIT. An initiator's MPA Request
 * is ready in rk_iw_tx() at once; the set-up timer starts at @p now_ns.
 * @return the QP, or NULL with errno EINVAL (bad caps or MPA attributes)
 *         or ENOMEM.
 */
struct rk_iw_qp *rk_iw_qp_create(struct rk_iw_pd *pd, const struct rk_iw_qp_init_attr *init,
				 uint64_t now_ns);

/** Destroy a QP (no completions are generated). @return 0. */
int rk_iw_qp_destroy(struct rk_iw_qp *qp);

/** Current state. */
enum rk_iw_state rk_iw_qp_state(const struct rk_iw_qp *qp);

/** Error record (reason RK_IW_CLOSE_NONE while healthy). */
const struct rk_iw_error *rk_iw_qp_error(const struct rk_iw_qp *qp);

/** Negotiated options; NULL before the MPA exchange completed. */
const struct rk_iw_negotiated *rk_iw_qp_negotiated(const struct rk_iw_qp *qp);

/**
 * The peer's ULP private data (after the RFC 6581 words), valid once its
 * Request/Reply arrived. @return bytes at *pd (0 when none).
 */
uint16_t rk_iw_qp_peer_pd(const struct rk_iw_qp *qp, const uint8_t **pd);

/** The qp_context given at creation. */
void *rk_iw_qp_context(const struct rk_iw_qp *qp);

/**
 * Queue send work requests (a chain through ->next). Opcodes: RDMA_WRITE,
 * SEND, SEND_WITH_INV (send_flags SOLICITED selects the SE variants),
 * RDMA_READ (one sink SGE), and with ext_ops RDMA_WRITE_WITH_IMM,
 * ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD (one 8-byte SGE). Each WR is
 * copied (SGE list included). A Write or Send completes when its last byte
 * was handed out by rk_iw_tx() (RFC 5040: no end-to-end acknowledgement),
 * a Read or Atomic when its response arrived; completions keep SQ order.
 * Allowed in MPA_WAIT, RTR_WAIT and RTS (they go out once in RTS).
 * @return 0; -EINVAL (opcode, SGE count, or QP past RTS), -ENOMEM (SQ
 *         full); *bad_wr is the first WR not queued.
 */
int rk_iw_post_send(struct rk_iw_qp *qp, const struct rk_send_wr *wr,
		    const struct rk_send_wr **bad_wr);

/** Queue receive work requests; -EINVAL past RTS, -ENOMEM when full. */
int rk_iw_post_recv(struct rk_iw_qp *qp, const struct rk_recv_wr *wr,
		    const struct rk_recv_wr **bad_wr);

/**
 * Process @p len received stream bytes (the next ones in sequence).
 * Bytes after a Terminate (sent or received) are discarded unread.
 * @return 0; -EINVAL on NULL arguments; -EPIPE once CLOSED.
 */
int rk_iw_rx(struct rk_iw_qp *qp, const uint8_t *data, size_t len, uint64_t now_ns);

/**
 * Take up to @p cap stream bytes to send (MPA frames, FPDUs; a Terminate
 * goes out before anything queued after it). Bytes handed out are the
 * caller's to deliver in order.
 * @return bytes written to @p buf (0 when nothing is due or @p cap is 0).
 */
size_t rk_iw_tx(struct rk_iw_qp *qp, uint8_t *buf, size_t cap, uint64_t now_ns);

/** Whether rk_iw_tx() would return bytes now. */
bool rk_iw_tx_pending(struct rk_iw_qp *qp);

/**
 * Whether the engine is done with the stream: everything it will ever send
 * (a Terminate, a reject Reply) was handed out; close the TCP.
 */
bool rk_iw_want_close(const struct rk_iw_qp *qp);

/**
 * The TCP connection ended (FIN, RST, or closed by us). Outstanding work
 * completes with RK_WC_WR_FLUSH_ERR (a Read or Atomic in flight with
 * RK_WC_FATAL_ERR when the close was not ours).
 */
void rk_iw_llp_closed(struct rk_iw_qp *qp);

/**
 * Run the MPA set-up timer: a QP still in MPA_WAIT at @p now_ns past its
 * deadline gives up (RK_IW_CLOSE_MPA_TIMEOUT).
 */
void rk_iw_timers(struct rk_iw_qp *qp, uint64_t now_ns);

/**
 * Send a Terminate with @p layer / @p etype / @p code (a local decision,
 * e.g. 0/0/0 local catastrophic) and tear the stream down.
 * @return 0, or -EINVAL past RTS.
 */
int rk_iw_qp_terminate(struct rk_iw_qp *qp, uint8_t layer, uint8_t etype, uint8_t code);

#include "rk_iw_stream.h"

#endif /* RK_IW_H */
