/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_insp_tcp.h
 * In-order byte stream of one TCP direction, rebuilt from captured
 * segments (RFC 9293 3.4, 3.10.7): out-of-order segments are buffered up
 * to a bounded size, retransmitted and overlapping bytes are dropped
 * (first copy wins) after they are compared with the first copy (the
 * last RK_INSP_TCP_HISTORY_DEFAULT delivered bytes are kept for that, and
 * queued bytes), 32-bit sequence wrap is handled by modular
 * arithmetic, SYN and FIN consume one sequence number each, and a hole
 * that can never fill is reported as a gap so the consumer can resync.
 *
 * A hole is declared unfillable when the reorder buffer overflows (in bytes
 * or in queued ranges), when
 * the peer has acknowledged bytes past the hole while the sender has
 * already moved on (the receiver had them; the capture lost them), or at
 * the end of the capture / on RST.
 */
#ifndef RK_INSP_TCPFOLLOW_H
#define RK_INSP_TCPFOLLOW_H

#include <stdbool.h>
#include <stdint.h>

/**
 * Signed distance from TCP sequence number @p b to @p a (RFC 9293 3.4):
 * positive when @p a is ahead. Never compare sequence numbers with < or >.
 */
static inline int32_t
rk_insp_seq_diff(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b);
}

#define RK_INSP_TCP_FIN 0x01
#define RK_INSP_TCP_SYN 0x02
#define RK_INSP_TCP_RST 0x04
#define RK_INSP_TCP_ACK 0x10

/** Default reorder buffer per direction, bytes. */
#define RK_INSP_TCP_MAX_OOO_DEFAULT (1u << 20)

/**
 * Delivered bytes kept per direction to compare retransmissions with,
 * bytes (a power of two). The buffer grows with the stream up to this.
 */
#define RK_INSP_TCP_HISTORY_DEFAULT (256u << 10)

/**
 * Default cap on queued byte ranges per direction: past it the oldest hole
 * is declared a gap, so insertion stays cheap whatever the input order.
 */
#define RK_INSP_TCP_MAX_SEGS_DEFAULT 4096u

/** Consumer of one direction's stream. All hooks are optional. */
struct rk_insp_tcp_ops {
	/** In-order bytes: @p len bytes starting at sequence number @p seq. */
	void (*data)(void *ctx, uint32_t seq, const uint8_t *p, uint32_t len);
	/** Bytes [@p seq, @p seq + @p len) will never be seen. */
	void (*gap)(void *ctx, uint32_t seq, uint32_t len);
	/** The stream ended: FIN reached in order, or RST. */
	void (*end)(void *ctx, bool rst);
	/**
	 * A segment carried bytes already seen (delivered or queued) with
	 * other values: @p ndiff of its bytes differ, the first at sequence
	 * number @p seq. Called at most once per segment; the first copy
	 * stays the stream's.
	 */
	void (*conflict)(void *ctx, uint32_t seq, uint32_t ndiff);
};

struct rk_insp_tcp_seg;

enum rk_insp_tcp_state {
	RK_INSP_TCP_NONE = 0,   /**< nothing seen yet */
	RK_INSP_TCP_OPEN,       /**< next is valid */
	RK_INSP_TCP_CLOSED,     /**< FIN delivered or RST seen */
};

/** One direction of a TCP connection. */
struct rk_insp_tcp_dir {
	enum rk_insp_tcp_state state;
	bool syn_seen;          /**< stream start known (ISN) */
	bool fin_seen;
	bool peer_ack_valid;
	uint32_t isn;
	uint32_t next;          /**< next sequence number to deliver */
	uint32_t fin_seq;       /**< sequence number the FIN occupies */
	uint32_t peer_ack;      /**< highest ACK the other side sent */
	uint32_t max_ooo;       /**< reorder buffer limit, bytes */

	/* Queued byte ranges, sorted, disjoint and never adjacent (adjacent
	 * bytes share one buffer); NULL when nothing is queued. */
	struct rk_insp_tcp_seg **ooo;
	uint32_t nooo;          /**< ranges queued */
	uint32_t ooo_slots;     /* entries allocated in ooo */
	uint32_t max_segs;      /**< cap on nooo */
	uint32_t ooo_bytes;     /**< bytes held (buffers plus bookkeeping) */

	/* The last hist_len delivered bytes: byte at sequence number s sits
	 * at hist[s & (hist_cap - 1)]; NULL until the first delivery. */
	uint8_t *hist;
	uint32_t hist_cap;      /**< bytes of hist, a power of two */
	uint32_t hist_len;      /**< valid bytes, ending at hist_end */
	uint32_t hist_end;      /**< sequence number after the last kept byte
	                             (next, or next - 1 after the FIN) */
	uint32_t hist_max;      /**< cap on hist_cap */
	/* Differences found while one segment is handled, reported at its end. */
	uint32_t diff_seq;
	uint32_t diff_n;

	/* statistics */
	uint64_t segments;      /**< segments seen (any flags) */
	uint64_t delivered;     /**< bytes handed to data() */
	uint64_t rtx_bytes;     /**< bytes seen again (retransmission/overlap) */
	uint64_t rtx_segments;  /**< segments wholly behind next */
	uint64_t rtx_checked;   /**< bytes seen again and compared with the first copy */
	uint64_t rtx_conflicts; /**< segments whose repeated bytes differ from the first copy */
	uint64_t rtx_conflict_bytes; /**< bytes of those that differ */
	uint64_t ooo_segments;  /**< segments that arrived ahead of next */
	uint64_t ooo_data;      /**< bytes of those segments (new bytes only) */
	uint64_t gaps;          /**< holes declared */
	uint64_t gap_bytes;     /**< bytes in declared holes */
	uint64_t ignored;       /**< segments outside any sane window or after close */
};

/** Start an empty direction with a reorder buffer of @p max_ooo bytes (0: default). */
void rk_insp_tcp_init(struct rk_insp_tcp_dir *d, uint32_t max_ooo);

/**
 * Feed one captured segment.
 * @param seq    TCP sequence number of the segment
 * @param flags  TCP flags (RK_INSP_TCP_*)
 * @param data   payload (may be NULL when @p len is 0)
 * @param len    payload bytes present
 */
void rk_insp_tcp_segment(struct rk_insp_tcp_dir *d, uint32_t seq, uint8_t flags,
			 const uint8_t *data, uint32_t len,
			 const struct rk_insp_tcp_ops *ops, void *ctx);

/** Record an acknowledgment number sent by the other side (ACK flag set). */
void rk_insp_tcp_peer_ack(struct rk_insp_tcp_dir *d, uint32_t ack);

/**
 * Bytes [@p seq, @p seq + @p len) were on the wire but not captured (snap
 * length). When they are the next bytes due, they become a gap at once;
 * otherwise nothing changes (a retransmission may still bring them).
 */
void rk_insp_tcp_lost(struct rk_insp_tcp_dir *d, uint32_t seq, uint32_t len,
		      const struct rk_insp_tcp_ops *ops, void *ctx);

/**
 * End of input (capture end or RST): deliver every queued byte, reporting
 * the holes before them as gaps.
 */
void rk_insp_tcp_flush(struct rk_insp_tcp_dir *d, const struct rk_insp_tcp_ops *ops,
		       void *ctx);

/** Free the reorder buffer. */
void rk_insp_tcp_fini(struct rk_insp_tcp_dir *d);

#endif /* RK_INSP_TCPFOLLOW_H */
