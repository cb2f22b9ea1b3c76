/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file gen.h
 * rk-gen's parts: the scheduler that merges the sources (crafted streams,
 * captures replayed) by their frames' times (sched.c, replay.c), and the
 * DPDK sender (port.c).
 */
#ifndef RK_GEN_APP_H
#define RK_GEN_APP_H

#include <stdbool.h>
#include <stdint.h>

#include "rk_gen_rewrite.h"
#include "rk_gen_stream.h"

/** No template: a frame to copy whole. */
#define RK_GEN_TMPL_NONE UINT32_MAX

/** A source's pending frame. */
struct rk_gen_frame {
	const uint8_t *data;     /**< valid until the source's next call */
	int len;                 /**< bytes; 0 when the source is done */
	uint32_t tmpl;           /**< its template (rk_gen_stream_next_ref), or RK_GEN_TMPL_NONE */
	const struct rk_gen_range *dirty; /**< with a template: the bytes that change */
	uint32_t ndirty;
};

/**
 * Where a stream's frames come from: a crafted stream (lib/gen) or a
 * capture replayed (replay.c). next() makes the frame after @p f (whose
 * len is 0 before the first) at @p *t_ns (0 for the first), sets
 * @p *t_ns to its time, fills @p f, and returns its length, 0 when the
 * source is done, or -1 after saying why on stderr.
 */
struct rk_gen_source_ops {
	int (*next)(void *src, struct rk_gen_frame *f, double *t_ns);
	void (*free)(void *src);
};

/** One stream being sent: its next frame and that frame's time. */
struct rk_gen_live {
	const struct rk_gen_source_ops *ops;
	void *src;
	const char *name;
	struct rk_gen_frame f; /**< the pending frame; f.len 0 when the stream is done */
	double t_ns;           /**< its time from the start, ns */
};

/** The streams of one run, merged in time order. */
struct rk_gen_sched {
	struct rk_gen_live *lv;
	uint32_t n;
	double line_rate_bps;   /**< for rates in % */
	bool failed;            /**< a source said it could not go on */
};

/**
 * ns between the starts of two frames, the first of @p len bytes, at
 * @p rate of @p unit (enum rk_gen_rate_unit; % of @p line_rate_bps): a
 * frame takes len + 24 bytes of wire time (FCS, preamble, gap).
 */
double rk_gen_gap_ns(int unit, double rate, uint32_t len, double line_rate_bps);

/**
 * Compile the @p n streams of @p cfgs and build each one's first frame (at
 * time 0). Says why on stderr when a stream cannot be built.
 * @return 0, or -1
 */
int rk_gen_sched_init(struct rk_gen_sched *s, const struct rk_gen_cfg *cfgs, uint32_t n,
		      double line_rate_bps);

/**
 * Add a source of frames other than a crafted stream (a replay), named
 * @p name in messages; it is freed with the scheduler, or at once when
 * adding fails. Builds its first frame.
 * @return 0, or -1 (said on stderr)
 */
int rk_gen_sched_add(struct rk_gen_sched *s, const struct rk_gen_source_ops *ops, void *src,
		     const char *name);

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

/** What a replay did (rk_gen_replay_add). */
struct rk_gen_replay_stats {
	uint64_t read;          /**< frames read from the capture, all loops */
	uint64_t cut;           /**< of them, captured shorter than they were on the wire */
	struct rk_gen_rewrite_stats rw;
};

/** A capture to replay (--replay). */
struct rk_gen_replay_opts {
	const char *file;       /**< pcap or pcapng, Ethernet */
	double speed;           /**< the capture's gaps divided by this (> 0) */
	uint8_t rate_unit;      /**< enum rk_gen_rate_unit: a fixed rate instead; NONE: the capture's timing */
	double rate;
	uint64_t loops;         /**< times through the capture; 0: endless */
	struct rk_gen_rewrite rw;
	struct rk_gen_replay_stats *stats; /**< filled when the replay is freed, or NULL */
};

/**
 * Add the replay of capture @p o->file to @p s (@p o must outlive it):
 * frames as captured (caplen bytes), rewritten by @p o->rw, at the
 * capture's times divided by @p o->speed (a loop starting one frame time
 * after the last one's) or at @p o->rate. Says why on stderr when the
 * capture cannot be opened, is not Ethernet or holds no frames.
 * @return 0, or -1
 */
int rk_gen_replay_add(struct rk_gen_sched *s, const struct rk_gen_replay_opts *o);

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
