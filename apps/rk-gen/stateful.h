/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file stateful.h
 * rk-gen's stateful mode: real RC connections through lib/verbs. The QP
 * set (stateful_qps.c: verbs only, no I/O of its own) holds N RC QPs on
 * one context, the buffers and regions both ends lay out alike from the
 * client's hello, the client's round-robin of WRITE with Immediate, READ
 * and SEND with Immediate keeping each QP's window full, and the checks
 * of the data; stateful.c runs it on a DPDK port with the out-of-band
 * exchange and reports.
 *
 * Data: message m of QP i (m counted from 0 per QP) is a pattern seeded
 * by (i, m): 32-bit words (j + w) * 0x9e3779b1, host order, cut to the
 * message's length, j = rk_sf_seed(i, m), one of RK_SF_SEEDS. Every
 * pattern is thus a window of one source (j = 0, rk_sf_src_fill()) that
 * the client sends from. The responder's READ area holds, in slot s, the
 * pattern of message 0x80000000 + s. The Immediate of a WRITE or SEND is
 * m's low 32 bits.
 *
 * Atomics (IBTA Vol1 9.4.5; AtomicETH: IBTA Vol1 9.3.4) work on two 8-byte words
 * of each QP's responder region, host order, executed one at a time in
 * PSN order on the RC QP, a duplicate answered from the saved result:
 * FETCH_ADDs add 1 to the first word (from 0: the k-th returns k); the
 * k-th CMP_SWAP of QP i compares the second word with
 * rk_sf_cas_value(i, k) and swaps in rk_sf_cas_value(i, k + 1), so it
 * must return rk_sf_cas_value(i, k). Each several in flight on a QP
 * compares what the ones before it leave. A CMP_SWAP executed twice (a
 * duplicate executed again) returns value k + 1 to the client, and a word
 * moved one ahead makes the next one fail its compare and return a value
 * not expected (the chain goes on after it); one lost, or compare values
 * ahead of the word, leave it behind: every later CMP_SWAP of the QP
 * fails and is counted.
 */
#ifndef RK_GEN_STATEFUL_H
#define RK_GEN_STATEFUL_H

#include <stdbool.h>
#include <stdint.h>

#include "rk_gen_hello.h"
#include "rk_hist.h"
#include "rk_verbs.h"

/** One QP of the set. */
struct rk_sf_qp {
	struct rk_qp *qp;
	struct rk_mr *mr;
	uint8_t *buf;
	uint32_t psn;           /**< the first PSN it sends */
	uint32_t outstanding;   /**< client: messages posted, not complete */
	uint64_t posted;        /**< client: messages posted; responder: the next one's index */
	uint64_t done;          /**< client: completed; responder: received (WRITE, SEND) */
	uint64_t bytes;         /**< of those messages */
	uint64_t bad;           /**< data or sequence errors */
	uint64_t atomics;       /**< client: FETCH_ADDs completed (the next one returns this) */
	uint64_t cas_posted;    /**< client: CMP_SWAPs posted (k of the next one) */
	uint64_t cas_done;      /**< client: CMP_SWAPs completed (k of the next one to return) */
	uint64_t first;         /**< client of a foreign responder: the first FETCH_ADD's result */
	bool ref_set;           /**< client of a foreign responder: ref holds the first READ's bytes */
};

/** Opcodes counted apart: write, read, send, atomic (FETCH_ADD), cmp_swap. */
#define RK_SF_NOPS RK_GEN_HELLO_NOPS

/** Totals of a run. */
struct rk_sf_totals {
	uint64_t msgs, bytes;
	uint64_t msgs_op[RK_SF_NOPS]; /**< client: write, read, send, atomic, cmp_swap completed */
	uint64_t data_err;      /**< data not the pattern */
	uint64_t seq_err;       /**< an Immediate not the message expected, a length not its */
	uint64_t overwritten;   /**< responder: a WRITE slot rewritten before it was checked */
	uint64_t wc_err;        /**< completions in error */
};

/** DSCP values --dscp takes at most. */
#define RK_SF_DSCP_MAX 16

/** The client's latency, post to completion, ns (rk_sf_latency_on()). */
struct rk_sf_lat {
	uint64_t (*now_ns)(void);       /**< the clock */
	struct rk_hist op[RK_SF_NOPS];  /**< per opcode: write, read, send, atomic, cmp_swap */
	struct rk_hist interval;        /**< since the series' last row */
	struct rk_hist_sparse *qp;      /**< per QP, n */
};

/** Seeds of the patterns: the client's source holds them all (4 bytes each, then size_max). */
#define RK_SF_SEEDS (1u << 16)

/** Layout of one QP's region, from the client's parameters (both ends compute it). */
struct rk_sf_layout {
	uint32_t write_slots;           /**< the most WRITEs among depth messages, + 2 */
	uint32_t read_slots;
	uint32_t recv_slots;            /**< receives posted */
	uint32_t send_slots;            /**< the most SENDs among recv_slots receives */
	uint32_t land_slots;            /**< client: the most READs and atomics among depth messages */
	uint32_t land_size;             /**< client: bytes of each (size_max with READs, else 8) */
	uint64_t write_off, read_off, recv_off, len;
	uint64_t atomic_off;            /**< the 8-byte word FETCH_ADDs add to (8-aligned) */
	uint64_t cas_off;               /**< the 8-byte word CMP_SWAPs swap (8-aligned) */
};

/** The set of QPs of one end. */
struct rk_sf {
	struct rk_context *ctx;
	struct rk_pd *pd;
	struct rk_cq *scq, *rcq;        /**< one CQ: rcq == scq */
	struct rk_gen_hello cfg;        /**< the client's parameters (both ends) */
	bool responder;
	uint32_t n;
	struct rk_sf_qp *q;
	uint8_t *shared;                /**< without verify: the one region all QPs use */
	uint8_t *src;                   /**< client, verify: the patterns WRITEs and SENDs carry */
	struct rk_mr *src_mr;
	struct rk_sf_layout rl;         /**< the responder's layout (both ends) */
	struct rk_sf_layout cl;         /**< the client's layout (both ends) */
	struct rk_gen_hello_qp *remote; /**< the peer's entries */
	uint64_t iters;                 /**< client: messages per QP; 0: until stopped */
	bool stopping;                  /**< client: post no more */
	uint32_t rr;                    /**< client: the next QP of the round-robin */
	bool rescan;                    /**< client: a window got room since the last scan */
	uint64_t outstanding;           /**< client: messages outstanding on all QPs */
	uint32_t qps_done;              /**< client: QPs that completed their iterations */
	struct rk_sf_totals t;
	struct rk_sf_lat *lat;          /**< client: latencies measured; NULL: not */
	bool foreign;                   /**< client: the responder is not rk-gen (rk_sf_foreign()) */
	uint8_t *ref;                   /**< foreign: each QP's first READ (size_max bytes a QP) */
	uint8_t max_rd_atomic;          /**< READs and atomics in flight a QP; 0: 16 */
	const uint8_t *dscp;            /**< QP i sends with dscp[i % ndscp]; NULL: 0 */
	uint32_t ndscp;
	uint8_t sip[16];                /**< this end's first address (IPv4-mapped), with nsip */
	uint32_t nsip;                  /**< QP i sends from sip + (i mod nsip); 0: the device's */
	uint32_t ndip;                  /**< QP i's peer is dip + (i mod ndip); 0 or 1: dip */
	char err[256];
};

/** Index of an op (enum rk_gen_hello_op bit) in msgs_op[] and the latency's op[]. */
static inline unsigned int
rk_sf_op_index(uint8_t op)
{
	return op == RK_GEN_OP_WRITE ? 0 : op == RK_GEN_OP_READ ? 1 : op == RK_GEN_OP_SEND ? 2 :
	       op == RK_GEN_OP_ATOMIC ? 3 : 4;
}

/**
 * The value QP @p i's CMP_SWAP word holds after @p k CMP_SWAPs (the
 * responder starts it at k = 0): a per-QP start, far from 0 and from the
 * FETCH_ADD word's counts, plus k. The k-th CMP_SWAP compares
 * rk_sf_cas_value(i, k) and swaps in rk_sf_cas_value(i, k + 1).
 */
static inline uint64_t
rk_sf_cas_value(uint32_t i, uint64_t k)
{
	return 0x5ca5000000000000ull + ((uint64_t)i << 32) + k;
}

/**
 * Address @p i mod @p count after @p base (16 bytes, IPv4-mapped: the last
 * byte counted up, the caller keeps it in one /24) into @p out.
 */
static inline void
rk_sf_addr(const uint8_t base[16], uint32_t count, uint32_t i, uint8_t out[16])
{
	for (int b = 0; b < 16; b++)
		out[b] = base[b];
	if (count > 1)
		out[15] = (uint8_t)(out[15] + i % count);
}

/**
 * The region of one QP: the client's (land_slots of land_size) or the
 * responder's (write, read, SEND receive areas, the atomic words).
 */
void rk_sf_layout(const struct rk_gen_hello *cfg, bool responder, struct rk_sf_layout *l);

/**
 * Messages of QP @p i before message @p m whose op is in @p mask (enum
 * rk_gen_hello_op bits): the k-th WRITE takes write slot k mod
 * write_slots, the k-th READ or atomic the client's land slot k mod land_slots.
 */
uint64_t rk_sf_ord(const struct rk_gen_hello *cfg, uint32_t i, uint64_t m, uint8_t mask);

/** The message number of QP @p i's @p k-th WRITE (from 0; WRITE in the mix). */
uint64_t rk_sf_nth_write(const struct rk_gen_hello *cfg, uint32_t i, uint64_t k);

/**
 * QP @p i's @p k-th receive (from 0; taken by WRITEs and SENDs in order):
 * -1 when a WRITE takes it, else the number of SENDs before it (its send
 * slot modulo send_slots).
 */
int64_t rk_sf_recv_send(const struct rk_gen_hello *cfg, uint32_t i, uint64_t k);

/** The 64-bit mix the seeds, sizes and PSNs come from. */
uint64_t rk_sf_mix64(uint64_t x);

/** The pattern seed index of message @p m of QP @p i: 0..RK_SF_SEEDS - 1. */
uint32_t rk_sf_seed(uint32_t i, uint64_t m);

/** Bytes of the client's source: every pattern starts at 4 * rk_sf_seed() in it. */
uint64_t rk_sf_src_len(const struct rk_gen_hello *cfg);

/** Fill the source (rk_sf_src_len() bytes). */
void rk_sf_src_fill(uint8_t *src, const struct rk_gen_hello *cfg);

/** The operation (enum rk_gen_hello_op) of message @p m of QP @p i under the mix of @p cfg. */
uint8_t rk_sf_op(const struct rk_gen_hello *cfg, uint32_t i, uint64_t m);

/** The length of message @p m of QP @p i: within [size_min, size_max], the same at both ends. */
uint32_t rk_sf_size(const struct rk_gen_hello *cfg, uint32_t i, uint64_t m);

/** Fill @p buf with @p len bytes of message @p m of QP @p i. */
void rk_sf_pattern(uint8_t *buf, uint32_t len, uint32_t i, uint64_t m);

/** Whether @p buf holds @p len bytes of message @p m of QP @p i. */
bool rk_sf_pattern_ok(const uint8_t *buf, uint32_t len, uint32_t i, uint64_t m);

/**
 * Create the set on @p ctx: a PD, one CQ, @p cfg->count RC QPs with
 * send queues of depth and receive queues of the responder's recv slots,
 * a region each (one MR per QP: its own R_Key; without verify all regions
 * are one buffer), the responder's READ areas filled. Fills @p local's entries (room for count).
 * @return 0, or -1 with s->err set
 */
int rk_sf_create(struct rk_sf *s, struct rk_context *ctx, const struct rk_gen_hello *cfg,
		 bool responder, struct rk_gen_hello_qp *local);

/**
 * Client: the responder is another program (a perftest bw server) whose
 * regions hold bytes this end does not know and take no Immediate. Each
 * QP's messages go to offset 0 of the peer's region, WRITEs without
 * Immediate; a READ must return what the QP's first READ returned (the
 * region is static), the k-th FETCH_ADD the first one's result plus k.
 * After rk_sf_create(), before the connection; the mix holds no SEND or
 * CMP_SWAP, one message size.
 * @return 0, or -1 with s->err set (no memory for the READs' reference)
 */
int rk_sf_foreign(struct rk_sf *s);

/**
 * Connect every QP to the peer's entry (RESET, INIT, RTR, RTS; IBTA Vol1
 * 10.3.1) at @p dmac / @p dip (IPv4-mapped or IPv6; QP i at its
 * (i mod s->ndip)-th address, from this end's (i mod s->nsip)-th: set
 * them first, as s->dscp); the responder posts its receives. @p remote must outlive the set.
 * @return 0, or -1 with s->err set
 */
int rk_sf_connect(struct rk_sf *s, struct rk_gen_hello_qp *remote, const uint8_t dmac[6],
		  const uint8_t dip[16], uint8_t timeout, uint8_t retry_cnt);

/**
 * One pass: the client posts into every window with room (round-robin,
 * at most @p budget messages), both ends poll their CQs and check data.
 * @return events (messages posted plus completions), or -1 with s->err set
 *         (a completion in error, a post refused)
 */
int rk_sf_step(struct rk_sf *s, int budget);

/** Client: messages outstanding on all QPs. */
uint64_t rk_sf_outstanding(const struct rk_sf *s);

/** Client: whether every QP has completed its iterations (iters > 0). */
bool rk_sf_all_done(const struct rk_sf *s);

/** Destroy everything of the set (not the context). */
void rk_sf_destroy(struct rk_sf *s);

/**
 * Client: measure each message's latency, post to completion, with
 * @p now_ns (ns; its low 32 bits kept in each WR's id), into s->lat's
 * histograms. After rk_sf_create(); freed by rk_sf_destroy().
 * @return 0 or -ENOMEM
 */
int rk_sf_latency_on(struct rk_sf *s, uint64_t (*now_ns)(void));

/** A message is posted now (s->lat set): its post time, to keep until it completes. */
uint32_t rk_sf_lat_post(struct rk_sf *s);

/** A message of QP @p i posted at @p posted, of opcode index @p op (rk_sf_op_index()), completed now. */
void rk_sf_lat_done(struct rk_sf *s, uint32_t i, uint32_t posted, unsigned int op);

/** Free s->lat (NULL is fine). */
void rk_sf_latency_off(struct rk_sf *s);

#endif /* RK_GEN_STATEFUL_H */
