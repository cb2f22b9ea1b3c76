/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_iw_stream.h
 * The one byte-stream interface iWARP runs on (struct rk_stream_ops: kernel
 * sockets, lwIP, test pipes) and the one pump moving bytes between a
 * stream and an iWARP QP (struct rk_iw_link), used by the verbs layer and
 * by lib/tcp's callers alike. Pure: the stream's calls are the only I/O.
 */
#ifndef RK_IW_STREAM_H
#define RK_IW_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rk_iw_qp;

/**
 * A byte-stream backend: one stream is one connected TCP connection (or a
 * test pipe), opened by the caller (connect/accept are the caller's, as
 * rdma_cm's are) and handed to one QP (rk_qp_connect_stream() or
 * rk_iw_link_init()). All calls are nonblocking.
 */
struct rk_stream_ops {
	const char *name;
	/**
	 * Queue up to @p len bytes of @p stream. @return bytes taken (0 when
	 * the send buffer is full or the connection is not yet established),
	 * or a negative errno once the connection is gone.
	 */
	long (*send)(void *stream, const uint8_t *buf, size_t len);
	/**
	 * Take up to @p cap received bytes, in order. @return bytes (0 when
	 * none wait), or a negative errno after the peer's FIN (-EPIPE) or a
	 * failure: the stream has ended.
	 */
	long (*recv)(void *stream, uint8_t *buf, size_t cap);
	/** Close (FIN) and release @p stream; called once per attached stream. */
	void (*close)(void *stream);
	/**
	 * Current time in ns (monotonic or virtual), for the MPA set-up timer;
	 * required by rk_open_device_iwarp(), may be NULL elsewhere.
	 */
	uint64_t (*now_ns)(void *env);
};

/** Bytes a link stages (engine to stream) and reads at once (stream to engine). */
#define RK_IW_LINK_BUF (64u * 1024)

/** One QP joined to one stream. */
struct rk_iw_link {
	struct rk_iw_qp *qp;
	const struct rk_stream_ops *ops;
	void *stream;
	bool closed;                /* the stream is closed (by either side) */
	uint32_t off, len;          /* bytes of stage not yet taken by the stream */
	uint64_t rx_bytes, tx_bytes;
	uint8_t stage[RK_IW_LINK_BUF];  /* taken from rk_iw_tx(), not yet sent */
	uint8_t rbuf[RK_IW_LINK_BUF];
};

/** Join @p qp and @p stream (the link closes the stream, never frees @p qp). */
void rk_iw_link_init(struct rk_iw_link *l, struct rk_iw_qp *qp,
		     const struct rk_stream_ops *ops, void *stream);

/**
 * One round: up to @p rx_budget received bytes into the QP (in reads of
 * RK_IW_LINK_BUF), the QP's timers, then the QP's bytes into the stream
 * (what the stream does not take waits in the link). When the stream ends
 * (recv() or send() < 0) it is closed and the QP told (rk_iw_llp_closed());
 * when the QP wants the stream closed (a Terminate or MPA reject went out
 * in full, RFC 5040 5.3) the same happens once the stage is empty.
 * @return bytes moved in both directions (0: idle), or -EPIPE when the link
 *         is closed and nothing moved.
 */
long rk_iw_link_pump(struct rk_iw_link *l, size_t rx_budget, uint64_t now_ns);

/** The transmit half of rk_iw_link_pump() alone (a doorbell). @return bytes. */
long rk_iw_link_tx(struct rk_iw_link *l, uint64_t now_ns);

/** Close the stream without telling the QP (it is being destroyed). */
void rk_iw_link_close(struct rk_iw_link *l);

/** Close the stream and tell the QP its LLP is gone (outstanding work flushes). */
void rk_iw_link_end(struct rk_iw_link *l);

/** True while bytes wait in the stage or the QP has bytes or a close to hand out. */
bool rk_iw_link_busy(const struct rk_iw_link *l);

#endif /* RK_IW_STREAM_H */
