/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_verbs.h
 * A verbs API shaped like libibverbs (verbs.h) over the rdmakit transport
 * engine (lib/ib): open a device on an I/O backend, allocate PDs, register
 * memory, create CQs, SRQs, AHs and QPs, modify them through the IBTA state
 * machine, post work and poll completions. Types and enum values are those
 * of rk_ib_types.h, numbered as IBV_*.
 *
 * Differences from libibverbs:
 *   - calls return 0 or a negative errno (not a positive errno); creators
 *     return NULL and set errno;
 *   - rk_post_send/rk_post_recv keep the bad_wr contract (the first WR not
 *     queued) but return -errno;
 *   - imm_data and invalidate R_Keys are host order;
 *   - the transport runs in software on the caller's thread: rk_poll_cq()
 *     and rk_progress() receive frames from the backend, run timers and
 *     transmit; rk_post_send() transmits what it can at once.
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
#include "rk_ib_types.h"

/**
 * An I/O backend: moves whole Ethernet frames (no FCS) and tells the time.
 * Pluggable: the simulator's link, a pcap file, DPDK, a raw socket.
 */
struct rk_io_ops {
	const char *name;
	/** Transmit one frame; 0, or a negative errno (the frame counts as lost). */
	int (*tx)(void *io, const uint8_t *frame, uint32_t len);
	/** Receive one frame into buf; its length, 0 when none waits, or -errno. */
	int (*rx)(void *io, uint8_t *buf, uint32_t cap);
	/** Current time in ns (virtual or monotonic). */
	uint64_t (*now_ns)(void *io);
	/**
	 * Optional (NULL: none): hand frames queued by tx() to the device.
	 * Called after each batch of transmissions, so a backend may gather
	 * tx() frames into bursts.
	 */
	void (*flush)(void *io);
	/**
	 * Optional (NULL: unlimited): how many frames tx() can take now
	 * without dropping any. The engine keeps the rest of its frames
	 * (they are not lost, only later) until the backend has room again:
	 * backpressure from a full device TX ring.
	 */
	unsigned int (*tx_room)(void *io);
	/**
	 * Optional pair (NULL: tx() copies): tx_frame() lends a writable
	 * buffer of at least RK_IB_MAX_FRAME bytes for the next frame, or NULL
	 * (then tx() is used); the engine builds the frame in it and passes
	 * it to tx_commit() with its length, which queues it like tx() (0 or
	 * a negative errno). A lent buffer not committed is lent again next.
	 */
	uint8_t *(*tx_frame)(void *io);
	int (*tx_commit)(void *io, uint8_t *frame, uint32_t len);
	/**
	 * Optional pair (NULL: rx() copies): rx_view() points @p frame at the
	 * next received frame in the backend's own buffer and returns its
	 * length (0 when none waits, or -errno); the frame stays valid until
	 * rx_done(), called once the engine is done with it.
	 */
	int (*rx_view)(void *io, const uint8_t **frame);
	void (*rx_done)(void *io);
};

/** Device attributes given to rk_open_device(). */
struct rk_device_attr {
	uint8_t mac[6];
	uint8_t ip[16];                 /**< IPv6, or IPv4 in the last 4 bytes */
	uint8_t ip_version;             /**< 4 or 6; 0 means 4 */
	uint64_t key_seed;              /**< key secret; 0: drawn from getrandom() */
	uint32_t max_qp;                /**< 0: 64 */
	uint32_t max_mr;                /**< 0: 1024 */
	uint32_t max_inflight_pkts;     /**< requester window, PSNs; 0: 256 */
	uint64_t ack_delay_ns;          /**< responder ACK coalescing delay */
};

struct rk_context {
	const struct rk_io_ops *ops;
	void *io;
	struct rk_ib_dev *dev;
	uint64_t rx_frames, tx_frames, tx_errors;
	uint32_t live;                  /* PDs, MRs, CQs, SRQs, QPs not destroyed */
	uint8_t *tx_lent;               /* buffer lent by tx_frame() for the frame being built */
	uint8_t rxbuf[RK_IB_MAX_FRAME + 256];
};

struct rk_pd {
	struct rk_context *context;
	struct rk_ib_pd *ib;
};

struct rk_mr {
	struct rk_context *context;
	struct rk_pd *pd;
	void *addr;
	size_t length;
	uint32_t lkey;
	uint32_t rkey;
	struct rk_ib_mr *ib;
};

struct rk_cq {
	struct rk_context *context;
	void *cq_context;
	int cqe;
	struct rk_ib_cq *ib;
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
	struct rk_ib_srq *ib;
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
	struct rk_ib_qp *ib;
};

/**
 * Open a device on an I/O backend.
 * @return the context, or NULL with errno EINVAL (NULL ops, bad attribute)
 *         or ENOMEM.
 */
struct rk_context *rk_open_device(const struct rk_io_ops *ops, void *io,
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
 * remote write or atomic needs local write (IBTA 10.6.3 (verify §)).
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

/** Create a QP in RESET; NULL with errno EINVAL or ENOMEM. */
struct rk_qp *rk_create_qp(struct rk_pd *pd, struct rk_qp_init_attr *attr);

/**
 * Modify a QP (ibv_modify_qp): the attribute mask rules of
 * rk_ib_qp_modify() (IBTA 11.2.4.2 (verify §)).
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
 * tx_room() says its device queue is full).
 * @return frames received plus frames transmitted, or -EINVAL.
 */
int rk_progress(struct rk_context *ctx);

/**
 * When rk_progress() next has work without new frames: the backend's now
 * when frames wait to be sent, the earliest timer otherwise, UINT64_MAX
 * when idle.
 */
uint64_t rk_next_event_ns(struct rk_context *ctx);

/** Transport counters of the context. */
const struct rk_ib_stats *rk_context_stats(const struct rk_context *ctx);

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
 * @return entries written, or -EINVAL.
 */
int rk_query_qp_counters(const struct rk_qp *qp, struct rk_counter *out, unsigned int max);

/** Name of a completion status, as ibv_wc_status_str(): "success", ... */
const char *rk_wc_status_str(enum rk_wc_status status);

#endif /* RK_VERBS_H */
