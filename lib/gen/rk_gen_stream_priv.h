/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_gen_stream_priv.h
 * @brief A stream's templates and cursors, shared by the rk_gen_stream_*.c
 * files (not installed): names, compile, next and run.
 */
#ifndef RK_GEN_STREAM_PRIV_H
#define RK_GEN_STREAM_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rk_gen_icrc.h"
#include "rk_gen_stream.h"
#include "rk_pkt.h"

/* One varied field in one template. */
struct tvar {
	bool present;
	uint32_t off;              /* container, from the frame start */
	uint8_t n;
	uint64_t mask;
	uint8_t shift;
	bool csum;                 /* inside the IPv4 header: fold into its checksum */
	struct rk_gen_icrc_field icf;
};

/* The stream's variations and those a train adds (PSN; VA or MSN). */
#define VARS_MAX (RK_GEN_VARY_MAX + 2)
#define WORDS_MAX 48

struct tmpl {
	uint8_t frame[RK_GEN_FRAME_MAX];
	uint32_t len, out_len;
	uint8_t opcode;
	bool roce;
	uint32_t l3, l4, bth, payload_off, payload_len, icrc_off;
	bool lay_ok;               /* the ICRC layout could be described */
	struct rk_gen_icrc_layout lay;
	bool csum_live;            /* keep the IPv4 Header Checksum right */
	uint32_t icrc;             /* valid ICRC of frame as it is now */
	struct tvar v[VARS_MAX];
	struct tvar seq, ts;        /* the slot's sequence number and TX time */
	/* The bytes that may change from frame to frame (fields varied, the
	 * slot, the IPv4 checksum, the ICRC), within out_len. */
	struct rk_gen_range dirty[VARS_MAX + 4];
	uint32_t ndirty;
	/* The same bytes as the 8-byte words that cover them (the last one
	 * ending at out_len), each once: a burst's copy; nwords 0: too many. */
	uint16_t words[WORDS_MAX];
	uint32_t nwords;
};

/* Where an inc or dec variation is: next() steps it without a division. */
struct cursor {
	uint64_t value;
	uint64_t span;             /* max - min + 1; 0: all 2^64 values (not stepped) */
	uint64_t step_mod;         /* step modulo span */
	uint32_t every, hold;
};

struct rk_gen_stream {
	struct rk_gen_cfg cfg;
	struct cursor cur[VARS_MAX];
	uint32_t nvar;             /* cfg.vary plus an implicit PSN one */
	struct rk_gen_vary var[VARS_MAX];
	uint64_t var_tmpl_value[VARS_MAX];
	uint64_t var_max[VARS_MAX];
	uint32_t train_n;
	uint32_t ntmpl;            /* 1, 2 (First, Last) or 3 (First, Middle, Last) */
	uint64_t count;
	uint64_t i;
	struct tmpl t[3];
};

/** The ICRC of template @p t computed over the whole frame. */
static inline uint32_t
full_icrc(const struct tmpl *t)
{
	return rk_rocev2_icrc(t->frame + t->l3, t->icrc_off - t->l3);
}

/** Resolve @p ref in template @p t: container offset, size and mask; false if absent. */
bool rk_gen_ref_place(const struct rk_gen_stream *s, const struct tmpl *t,
		      const struct rk_gen_ref *ref, uint32_t *off, uint8_t *n, uint64_t *mask);

/** The name of @p ref for an error message (header.field, payload, or as given). */
void rk_gen_ref_name(const struct rk_gen_ref *ref, char *buf, size_t cap);

/**
 * t->dirty and t->words from the fields that change from frame to frame
 * (at compile, after the template is finished).
 */
void rk_gen_tmpl_dirty_build(const struct rk_gen_stream *s, struct tmpl *t);

/**
 * Frames of template @p t into @p bufs, up to @p n of them, as long as
 * held[j] == t->out_len (the buffer holds an earlier frame of t): the
 * bytes advance_out() writes, for a stream of one template and one inc
 * or dec variation with the incremental (or bad) ICRC, its fields kept
 * in registers.
 * @return frames made (s->i moved on by as many); 0: not that case
 */
uint32_t rk_gen_stream_run1(struct rk_gen_stream *s, struct tmpl *t, uint8_t *const *bufs,
			    const uint32_t *held, uint32_t n);

#endif /* RK_GEN_STREAM_PRIV_H */
