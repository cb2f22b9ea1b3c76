/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file gen.h
 * rk-gen's parts: the scheduler that merges the streams by their frames'
 * times (sched.c), and the DPDK sender (port.c).
 */
#ifndef RK_GEN_APP_H
#define RK_GEN_APP_H

#include <stdbool.h>
#include <stdint.h>

#include "rk_gen_stream.h"

/** One stream being sent: its next frame and that frame's time. */
struct rk_gen_live {
	struct rk_gen_stream *s;
	uint8_t frame[RK_GEN_FRAME_MAX];
	int len;     /**< bytes of the pending frame; 0 when the stream is done */
	double t_ns; /**< its time from the start, ns */
};

/** The streams of one run, merged in time order. */
struct rk_gen_sched {
	struct rk_gen_live *lv;
	uint32_t n;
	double line_rate_bps;   /**< for rates in % */
};

/**
 * Compile the @p n streams of @p cfgs and build each one's first frame (at
 * time 0). Says why on stderr when a stream cannot be built.
 * @return 0, or -1
 */
int rk_gen_sched_init(struct rk_gen_sched *s, const struct rk_gen_cfg *cfgs, uint32_t n,
		      double line_rate_bps);

/** The stream whose pending frame comes first, or NULL when all are done. */
struct rk_gen_live *rk_gen_sched_peek(struct rk_gen_sched *s);

/**
 * @p m's frame went out: build its next one, at the time its rate puts it
 * (a frame of len bytes takes len + 24 bytes of wire time: FCS, preamble,
 * gap), the sequence slot's TX time set to that time.
 */
void rk_gen_sched_advance(struct rk_gen_sched *s, struct rk_gen_live *m);

/** Free the streams. */
void rk_gen_sched_fini(struct rk_gen_sched *s);

/** What the DPDK sender needs from the command line. */
struct rk_gen_port_opts {
	const char *port;        /**< ethdev name ("net_null0") or port number */
	const char *record;      /**< pcapng of every frame sent, or NULL */
	bool top_speed;          /**< ignore the rates: send as fast as the port takes */
	uint64_t limit;          /**< frames in all */
	uint64_t duration_ns;    /**< stop after this long; 0: when the streams end */
};

/**
 * Send the streams on a DPDK port (the EAL is up): frames in time order,
 * paced by the streams' rates against the TSC unless top_speed; SIGINT or
 * SIGTERM ends the run. Prints a summary line on stderr.
 * @return the exit status: 0, or 1 (port, send or recording error)
 */
int rk_gen_port_run(struct rk_gen_sched *s, const struct rk_gen_port_opts *o);

#endif /* RK_GEN_APP_H */
