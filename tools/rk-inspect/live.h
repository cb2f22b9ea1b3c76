/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file live.h
 * rk-inspect's live input: capturing on an interface through libpcap
 * (as tcpdump -i does), and the running summary printed while a live
 * capture (an interface, or a capture written into a pipe) goes on.
 */
#ifndef RK_INSP_LIVE_H
#define RK_INSP_LIVE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <pcap/pcap.h>

#include "inspect.h"

/**
 * Open interface @p ifname for capture: whole frames (snap length
 * 262144), promiscuous, immediate delivery (each frame as it comes, not
 * when a kernel buffer fills) and a 100 ms read timeout, so the caller
 * sees time pass while the link is quiet; nanosecond timestamps where
 * the interface has them, microseconds otherwise.
 * @return the handle, or NULL with a one-line reason in @p why: no such
 *         interface, no permission (capturing needs CAP_NET_RAW), the
 *         interface is down, or libpcap's own message.
 */
pcap_t *rk_insp_live_open(const char *ifname, char *why, size_t len);

/** State of the running summary. */
struct rk_insp_progress {
	uint64_t every_ns;     /**< interval; 0: off */
	uint64_t start_ns;     /**< wall clock at the start (CLOCK_MONOTONIC) */
	uint64_t next_ns;      /**< when the next line is due */
	uint64_t last_frames;  /**< frames at the last line */
	uint64_t last_bytes;   /**< wire bytes at the last line */
	uint64_t lines;        /**< lines printed */
};

/** Start the running summary, one line every @p every_ns ns (0: never). */
void rk_insp_progress_start(struct rk_insp_progress *p, uint64_t every_ns);

/**
 * When a line is due (or @p force), print to @p f one line of the totals
 * so far: seconds since the start, frames and RDMA frames, findings of
 * severity error, frames and Gb/s (wire bytes) since the last line:
 *   "rk-inspect: 3.0 s: 1200 frames (1100 RDMA), 0 errors; last 1.0 s:
 *    400 frames, 0.026 Gb/s"
 * @return 1 when a line was printed, else 0.
 */
int rk_insp_progress_tick(struct rk_insp_progress *p, FILE *f,
			  const struct rk_insp_totals *tot, int force);

#endif /* RK_INSP_LIVE_H */
