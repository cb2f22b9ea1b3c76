/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_gen_sched.h
 * The scheduler of rk-gen's stateless engine: the frames of several
 * sources (crafted streams, lib/gen; captures replayed, rk-gen's replay)
 * merged in the order of the times their rates give. Times are ns from
 * the start of the run, computed, not measured: the sender paces them
 * against its own clock (rk-gen's port sender, rk-testpmd's gen engine) or
 * writes them as timestamps (rk-gen's pcap output). libc only.
 */
#ifndef RK_GEN_SCHED_H
#define RK_GEN_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
 * capture replayed. next() makes the frame after @p f (whose len is 0
 * before the first) at @p *t_ns (0 for the first), sets @p *t_ns to its
 * time, fills @p f, and returns its length, 0 when the source is done, or
 * -1 after saying why on stderr.
 */
struct rk_gen_source_ops {
	int (*next)(void *src, struct rk_gen_frame *f, double *t_ns);
	void (*free)(void *src);
	/** Write wall-clock TX time @p ns into a copy @p buf (@p len bytes) of
	 * the pending frame, its ICRC kept; NULL: the source has no slot. */
	void (*stamp)(void *src, uint8_t *buf, uint32_t len, uint64_t ns);
	/** Bytes of the frames of template @p tmpl (0..2), 0 for none; NULL:
	 * the source has no templates. A sender prepares for them ahead. */
	uint32_t (*tmpl_len)(void *src, uint32_t tmpl);
	/** Write the pending frame @p f and those after it, up to @p n in
	 * all and while they are of @p f's template, into @p bufs[k] (each
	 * holding a frame of @p held[k] bytes of that template from before,
	 * as rk_gen_frame_copy() takes), as next() would one at a time: the
	 * frame after the last one written is left pending in @p f and
	 * @p *t_ns. Returns the frames written; a source that cannot go on
	 * after them says why and sets f->len to -1. NULL: frame by frame only
	 * (a source with a slot to stamp, a capture replayed). */
	int (*burst)(void *src, struct rk_gen_frame *f, double *t_ns, uint8_t *const *bufs,
		     const uint32_t *held, uint32_t n);
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
	struct rk_gen_cfg *own; /**< the streams' copies rk_gen_sched_init_port() made */
};

/**
 * ns between the starts of two frames, the first of @p len bytes, at
 * @p rate of @p unit (enum rk_gen_rate_unit; % of @p line_rate_bps, bit/s):
 * a frame takes len + 24 bytes of wire time (FCS 4, preamble 8, gap 12).
 * Without a rate (RK_GEN_RATE_NONE): 1000 ns (1 Mpps).
 */
double rk_gen_gap_ns(int unit, double rate, uint32_t len, double line_rate_bps);

/**
 * Compile the @p n streams of @p cfgs (kept: they must outlive @p s, their
 * names name the streams) and build each one's first frame, at time 0.
 * A stream's frames come at its rate, in bursts (burst_frames followed by
 * burst_gap_us) and on/off periods (on_us of sending, off_us of silence)
 * when it has them; its sequence slot, if any, gets the stamp op.
 * On failure @p s holds the streams built so far: free it with
 * rk_gen_sched_fini().
 * @param err  receives one line without newline: "stream 'NAME': field
 *             'F': reason" (the stream cannot be compiled) or "out of memory"
 * @return 0, -EINVAL (a stream cannot be compiled), -ENOMEM, or -EIO (a
 *         stream could not build its first frame)
 */
int rk_gen_sched_init(struct rk_gen_sched *s, const struct rk_gen_cfg *cfgs, uint32_t n,
		      double line_rate_bps, char *err, size_t errlen);

/**
 * rk_gen_sched_init() for port @p port of a run: only the streams whose
 * `ports` is 0 or has bit @p port set (a port above 7 gets those with 0),
 * copied (the copies are freed by rk_gen_sched_fini(); @p cfgs need not
 * outlive @p s). A port no stream goes to gets an empty schedule
 * (rk_gen_sched_peek() gives NULL).
 * @return as rk_gen_sched_init()
 */
int rk_gen_sched_init_port(struct rk_gen_sched *s, const struct rk_gen_cfg *cfgs, uint32_t n,
			   uint32_t port, double line_rate_bps, char *err, size_t errlen);

/**
 * Add a source of frames other than a crafted stream (a replay), named
 * @p name (kept) in messages; it is freed with the scheduler, or at once
 * when adding fails. Builds its first frame.
 * @return 0, -ENOMEM (nothing said), or -EIO (the source's first frame
 *         failed: the source said why, s->failed is set)
 */
int rk_gen_sched_add(struct rk_gen_sched *s, const struct rk_gen_source_ops *ops, void *src,
		     const char *name);

/** The stream whose pending frame comes first, or NULL when all are done. */
struct rk_gen_live *rk_gen_sched_peek(struct rk_gen_sched *s);

/**
 * @p m's frame went out: build its next one, at the time its rate puts it
 * (a frame of len bytes takes len + 24 bytes of wire time: FCS, preamble,
 * gap), the sequence slot's TX time set to that time. A source that fails
 * ends (f.len 0) and sets s->failed.
 */
void rk_gen_sched_advance(struct rk_gen_sched *s, struct rk_gen_live *m);

/**
 * rk_gen_sched_advance() for up to @p n frames at once, for a sender that
 * ignores the times (top speed): when @p m is the only stream not done
 * and its source makes bursts, its pending frame and those after it (of
 * the same template, up to @p n) are written into @p bufs[k], which hold
 * frames of @p held[k] bytes of that template from before (0: none), as
 * rk_gen_frame_copy() would write them one at a time; the frame after the
 * last is left pending. The bytes are those frame-by-frame sending gives.
 * A source that fails ends (f.len 0) and sets s->failed.
 * @return frames written (all @p m->f.len bytes long); 0 when @p m cannot
 *         make bursts here (another stream still sends, a source without
 *         the op): send its pending frame the usual way.
 */
uint32_t rk_gen_sched_burst(struct rk_gen_sched *s, struct rk_gen_live *m, uint8_t *const *bufs,
			    const uint32_t *held, uint32_t n);

/**
 * Write @p f's frame into @p dst, which holds a frame of @p held bytes of
 * the same template from before (0: none): then only the bytes that change
 * are written, else all of it.
 */
void rk_gen_frame_copy(uint8_t *dst, uint32_t held, const struct rk_gen_frame *f);

/** Free the streams (@p s itself is the caller's; a zeroed one is fine). */
void rk_gen_sched_fini(struct rk_gen_sched *s);

#endif /* RK_GEN_SCHED_H */
