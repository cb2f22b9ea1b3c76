/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_insp_series.h
 * A time series of a capture (rk-inspect --interval): per interval of
 * fixed length from the first frame, the frames, their wire bytes, the
 * RDMA payload bytes that are not duplicates (goodput), the duplicates
 * the PSN analysis found (retransmitted frames), CE marks (RFC 3168 5),
 * CNPs (IBTA Annex A17.9.3) and PAUSE / PFC frames (IEEE 802.3 Annex 31B,
 * 802.1Qbb). Intervals without frames are rows of zeros.
 * libc only; memory: one row per interval, at most RK_INSP_SERIES_MAX.
 */
#ifndef RK_INSP_SERIES_H
#define RK_INSP_SERIES_H

#include <stdbool.h>
#include <stdint.h>

/** Most intervals in a series (past it rk_insp_series_at() fails). */
#define RK_INSP_SERIES_MAX (1u << 20)

/** One interval's counts. */
struct rk_insp_series_row {
	uint64_t frames;
	uint64_t bytes;          /**< wire bytes of every frame */
	uint64_t payload_bytes;  /**< RDMA payload of packets not duplicates */
	uint64_t rtx_frames;     /**< duplicates: behind the expected PSN */
	uint64_t ce;             /**< RDMA packets marked CE */
	uint64_t cnps;
	uint64_t pause_frames;   /**< PAUSE and PFC frames */
};

/** The series. */
struct rk_insp_series {
	uint64_t interval_ns;    /**< length of an interval, ns (> 0) */
	struct rk_insp_series_row *row;
	uint64_t n, cap;         /**< rows in use: every interval up to the last frame's */
	bool overflow;           /**< a frame fell past RK_INSP_SERIES_MAX intervals, or no memory */
};

/** Start an empty series of intervals of @p interval_ns ns (above 0). */
void rk_insp_series_init(struct rk_insp_series *s, uint64_t interval_ns);

/** Free the rows. */
void rk_insp_series_fini(struct rk_insp_series *s);

/**
 * The row of the interval holding time @p ts_ns (since the first frame),
 * the rows before it made. @return the row, or NULL (overflow set) past
 * RK_INSP_SERIES_MAX intervals or out of memory.
 */
struct rk_insp_series_row *rk_insp_series_at(struct rk_insp_series *s, uint64_t ts_ns);

/** Bits per second of @p bytes over one interval of @p s, in Gb/s. */
double rk_insp_series_gbps(const struct rk_insp_series *s, uint64_t bytes);

#endif /* RK_INSP_SERIES_H */
