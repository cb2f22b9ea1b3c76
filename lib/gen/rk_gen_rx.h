/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_gen_rx.h
 * rk-gen's receive side: per-stream accounting of the frames that carry a
 * sequence slot (rk_gen_stream.h), with a latency histogram
 * (lib/common/rk_hist.h). Pure
 * computation: frames go in with their RX time, counters come out; the
 * caller reads the port or the capture and supplies the clock.
 *
 * Definitions, per stream id (sequence numbers as rk_gen_stream writes
 * them: frame i of a stream carries i, from 0; the 32-bit number is
 * extended to 64 bits by taking the value nearest the next expected one,
 * RFC 1982 style, so a long stream wraps unseen; while NextExp is 0 the
 * number is taken as it is):
 *
 *   - NextExp: one more than the highest sequence number seen (0 before
 *     any frame), as in RFC 4737 3.3.
 *   - duplicate: a sequence number seen before. Memory is bounded: the
 *     last RK_GEN_RX_WINDOW numbers below NextExp are remembered, one bit
 *     each.
 *   - stale: a frame more than RK_GEN_RX_WINDOW below NextExp (or below
 *     0): whether it is a duplicate cannot be told, so it counts as
 *     neither unique nor duplicate, nor in the latency.
 *   - reordered: a unique frame whose number is below NextExp (RFC 4737
 *     3.3 "reordered singleton"); its extent is NextExp - 1 - number, the
 *     largest kept in reorder_extent_max.
 *   - unique: first arrivals (in order or reordered).
 *   - lost: expected - unique, never below 0, where expected is the count
 *     the sender sent when the caller knows it, else NextExp (frames lost
 *     after the last one received are then not seen). A stale first
 *     arrival therefore reads as a loss.
 *
 * One-way latency, of unique frames: RX time - the slot's TX time, ns,
 * both from the caller's clocks. A negative difference (clocks apart) is
 * counted in lat_negative and kept out of the histogram.
 *
 * libc only: no clock, no I/O.
 */
#ifndef RK_GEN_RX_H
#define RK_GEN_RX_H

#include <stdbool.h>
#include <stdint.h>

#include "rk_hist.h"

/** The slot of one frame, as read from its payload. */
struct rk_gen_slot {
	uint32_t stream_id;
	uint32_t seq;       /**< sequence number (frame index) */
	uint64_t tx_ns;     /**< TX time, ns, the sender's clock */
};

/**
 * Read the sequence slot from RoCEv2 frame @p frame (@p caplen bytes from
 * the Ethernet header; no FCS): 16 bytes at @p seq_off in the payload,
 * after the BTH and the opcode's extended headers (IBTA Vol1 9.3; A17.3
 * for the RoCEv2 stack), big-endian as rk_gen_stream.h lays them out.
 * The ICRC is not checked.
 * @return 0 with @p out filled; -EPROTO when the frame is not RoCEv2 with
 *         a BTH (or does not parse: a frame shorter than its IP Total
 *         Length says, as a capture cut by its snap length, is one);
 *         -EMSGSIZE when its payload is shorter than @p seq_off + 16 bytes.
 */
int rk_gen_slot_read(const uint8_t *frame, uint32_t caplen, uint32_t seq_off,
		     struct rk_gen_slot *out);

/** Sequence numbers below NextExp remembered for duplicates, per stream. */
#define RK_GEN_RX_WINDOW 4096
/** Streams one receiver tells apart; frames of more count in other_frames. */
#define RK_GEN_RX_STREAMS_MAX 256

/** One stream's counters (see the file comment for the definitions). */
struct rk_gen_rx_stream {
	uint32_t stream_id;
	uint64_t frames;            /**< every frame with this stream id */
	uint64_t unique;
	uint64_t duplicates;
	uint64_t reordered;
	uint64_t reorder_extent_max;
	uint64_t stale;
	uint64_t next_exp;          /**< NextExp, 64-bit */
	uint64_t first_rx_ns, last_rx_ns; /**< RX times of the first and last frame */
	uint64_t seen[RK_GEN_RX_WINDOW / 64]; /**< bit n % WINDOW: number n seen */
	struct rk_hist lat;         /**< latency of unique frames (rk_hist.h) */
	uint64_t lat_negative;      /**< latencies refused: RX before TX */
};

/** What rk_gen_rx_add() made of a frame. */
enum rk_gen_rx_verdict {
	RK_GEN_RX_IN_ORDER = 0, /**< unique, at or above NextExp */
	RK_GEN_RX_REORDERED,    /**< unique, below NextExp */
	RK_GEN_RX_DUPLICATE,
	RK_GEN_RX_STALE,
};

/** A receiver: the streams seen so far, in order of first arrival. */
struct rk_gen_rx {
	uint32_t n;
	struct rk_gen_rx_stream *st[RK_GEN_RX_STREAMS_MAX];
	uint64_t other_frames;      /**< frames of streams past RK_GEN_RX_STREAMS_MAX */
	uint32_t last;              /**< index of the last stream found (a cache) */
};

/** Start empty. */
void rk_gen_rx_init(struct rk_gen_rx *rx);

/** Free the streams; @p rx is empty again. */
void rk_gen_rx_fini(struct rk_gen_rx *rx);

/**
 * Account one frame with slot @p s received at @p rx_ns (ns, the clock of
 * the slot's TX times).
 * @return enum rk_gen_rx_verdict; -ENOSPC when the stream is new and
 *         RK_GEN_RX_STREAMS_MAX are known (counted in other_frames);
 *         -ENOMEM.
 */
int rk_gen_rx_add(struct rk_gen_rx *rx, const struct rk_gen_slot *s, uint64_t rx_ns);

/** Stream @p stream_id, or NULL when no frame of it came. */
const struct rk_gen_rx_stream *rk_gen_rx_find(const struct rk_gen_rx *rx, uint32_t stream_id);

/**
 * Frames lost: expected - unique, never below 0.
 * @param sent  frames the sender sent on this stream; 0: unknown, then
 *              NextExp is expected
 */
uint64_t rk_gen_rx_lost(const struct rk_gen_rx_stream *st, uint64_t sent);

#endif /* RK_GEN_RX_H */
