/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_impair.h
 * The impairment stage: seeded, deterministic fault injection on Ethernet
 * frames, the one implementation behind the simulator's link (lib/sim),
 * the TX drops of an I/O backend and a fault-injecting forwarder.
 *
 * A stage holds an ordered list of rules. Each frame is offered to the
 * rules in order; the first whose predicate matches decides its fate
 * (MTU drop, periodic drop, random or burst loss, duplication) and, per
 * copy, its extra delay (delay, jitter, reordering), a flipped byte and an
 * ECN CE mark. A frame no rule matches passes untouched. Every rule has
 * its own generator and counters, so one rule's draws never shift
 * another's: same seeds, same rules, same frames, same decisions, bit for
 * bit.
 *
 * rk_impair_io wraps any rk_io_ops backend with a stage on TX and one on
 * RX, holding delayed frames in a time-ordered queue (rk_impair_queue).
 *
 * libc only. Not thread-safe: one stage per thread of frames.
 */
#ifndef RK_IMPAIR_H
#define RK_IMPAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rk_byteorder.h"
#include "rk_io.h"

/** Pseudo-random generator of a rule (its state is rk_impair_rule.seed). */
enum rk_impair_rng {
	/** xorshift64* (Vigna 2016); a zero state is made 1. The simulator's. */
	RK_IMPAIR_RNG_XORSHIFT64S = 0,
	/** splitmix64 (Steele et al. 2014); any state. lib/io's TX drops. */
	RK_IMPAIR_RNG_SPLITMIX64,
};

/**
 * Which frames a rule takes. All conditions set must hold; none set:
 * every frame. A range condition (by_qp, by_opcode, by_psn) holds only for
 * RoCEv2 frames (Ethernet, optional 802.1Q tag, IPv4 without options or
 * IPv6 without extension headers, UDP destination port 4791, a BTH:
 * IBTA Vol1 9.2), comparing the BTH's DestQP (24 bits), OpCode and PSN
 * (24 bits) with inclusive bounds. A PSN range with psn_min > psn_max
 * wraps through 0 (IBTA Vol1 9.7.1: PSNs are modulo 2^24).
 */
struct rk_impair_match {
	uint8_t ip_proto;       /**< IPv4 protocol / IPv6 next header (6 TCP, 17 UDP); 0: any frame */
	bool by_qp;
	uint32_t qp_min, qp_max;
	bool by_opcode;
	uint8_t opcode_min, opcode_max;
	bool by_psn;
	uint32_t psn_min, psn_max;
};

/**
 * An answer a forwarder forges toward the requester in place of (or, for
 * a CNP, besides) a request a rule takes. Only a forwarder that sees both
 * directions can forge (it learns the requester's QP from the responder's
 * answers): rk_impair_io_create() refuses such rules.
 */
enum rk_impair_forge {
	RK_IMPAIR_FORGE_NONE = 0,
	RK_IMPAIR_FORGE_NAK_SEQ,        /**< NAK PSN sequence error, PSN of the request (IBTA Vol1 9.7.5.2.4) */
	RK_IMPAIR_FORGE_NAK_INV,        /**< NAK invalid request (9.7.5.2.4, syndrome 0x61) */
	RK_IMPAIR_FORGE_NAK_RAE,        /**< NAK remote access error (0x62) */
	RK_IMPAIR_FORGE_NAK_ROP,        /**< NAK remote operational error (0x63) */
	RK_IMPAIR_FORGE_RNR,            /**< RNR NAK with the encoded timer forge_arg (9.7.5.2.8) */
	RK_IMPAIR_FORGE_CNP,            /**< a CNP (Annex A17 A17.9.3); the request passes */
};

/**
 * One rule: a predicate and the impairments it applies. Probabilities are
 * per frame, 0..1; 0 draws nothing from the generator. The decisions are
 * taken in this order, each on the frames the previous ones left:
 * mtu, drop_every, an open burst, loss (and burst), dup; then per copy
 * jitter, reorder, corrupt, ecn_ce.
 */
struct rk_impair_rule {
	struct rk_impair_match match;
	uint32_t mtu;           /**< frames with more bytes after the 14-byte Ethernet header are dropped; 0: none */
	uint32_t drop_every;    /**< the k-th, 2k-th, ... frame matched is lost; 0: off */
	double loss;            /**< a frame is lost */
	double burst;           /**< a loss opens a burst ... */
	uint32_t burst_len;     /**< ... of this many frames in all (0, 1: single losses) */
	double dup;             /**< a frame is delivered twice */
	uint64_t delay_ns;      /**< every copy is held this long */
	uint64_t jitter_ns;     /**< and a uniform 0..jitter_ns more */
	double reorder;         /**< a copy is held reorder_ns more */
	uint64_t reorder_ns;
	double corrupt;         /**< one bit after the Ethernet header is flipped */
	/**
	 * An ECN-capable IP frame (ECT(0) or ECT(1)) is marked CE, RFC 3168 5
	 * (the IPv4 header checksum is updated, RFC 1624); not-ECT frames are
	 * left alone. RoCEv2's ICRC masks the field (IBTA Annex A17 A17.3.3).
	 */
	double ecn_ce;
	enum rk_impair_rng rng;
	uint64_t seed;          /**< the generator's initial state */
	/** The rule takes at most this many frames, then matches no more
	 * (so a PSN dropped once is let through when resent); 0: no limit. */
	uint64_t count;
	enum rk_impair_forge forge;     /**< answer forged for each frame taken */
	uint8_t forge_arg;              /**< RK_IMPAIR_FORGE_RNR: the 5-bit timer code */
};

/** Counters of one rule. Every matched frame ends in one of the drops or is passed. */
struct rk_impair_rule_stats {
	uint64_t matched;
	uint64_t mtu_drops;
	uint64_t lost;          /**< random, burst and periodic losses */
	uint64_t periodic_drops; /**< of lost: by drop_every */
	uint64_t burst_drops;   /**< of lost: inside an open burst */
	uint64_t dup;           /**< extra copies made */
	uint64_t reordered;     /**< copies held reorder_ns */
	uint64_t corrupted;     /**< copies with a flipped bit */
	uint64_t ce_marked;     /**< copies marked CE */
	uint64_t forged;        /**< frames answered by a forged NAK, RNR NAK or CNP */
	uint64_t unforged;      /**< answers the caller could not forge (rk_impair_unforge()) */
};

/** Why rk_impair_decide() dropped a frame. */
enum rk_impair_drop {
	RK_IMPAIR_PASS = 0,
	RK_IMPAIR_DROP_MTU,
	RK_IMPAIR_DROP_PERIODIC,
	RK_IMPAIR_DROP_BURST,
	RK_IMPAIR_DROP_LOSS,
	RK_IMPAIR_DROP_FORGED,  /**< answered by a forged NAK or RNR NAK instead */
};

/** The fate of one frame. */
struct rk_impair_verdict {
	int rule;               /**< index of the rule that matched, -1: none (passed untouched) */
	unsigned int copies;    /**< 0 (dropped), 1 or 2 (duplicated) */
	enum rk_impair_drop drop;
	enum rk_impair_forge forge; /**< the answer the caller must forge, or NONE */
};

/** What happens to one copy of a frame. */
struct rk_impair_copy {
	uint64_t delay_ns;      /**< delay + jitter (+ reorder_ns when reordered) */
	bool reordered;
	bool corrupt;           /**< rk_impair_apply() flips a bit */
	bool ce;                /**< rk_impair_apply() marks CE */
};

struct rk_impair;

/**
 * Create a stage of @p n_rules rules (copied; 0 rules: everything passes).
 * NULL with errno EINVAL (rules NULL with n_rules > 0, a probability out
 * of 0..1) or ENOMEM.
 */
struct rk_impair *rk_impair_create(const struct rk_impair_rule *rules, unsigned int n_rules);

void rk_impair_destroy(struct rk_impair *st);

/**
 * Decide the fate of a frame of @p len bytes: the first matching rule's
 * MTU, periodic, burst and random loss and duplication. Counts it.
 * Then call rk_impair_next_copy() once per copy, in order.
 */
void rk_impair_decide(struct rk_impair *st, const uint8_t *frame, uint32_t len,
		      struct rk_impair_verdict *v);

/**
 * The caller could not forge the answer @p v asked for (its requester not
 * known yet, or a NAK that must wait). A NAK or RNR NAK rule's frame then
 * passes untouched and was not taken: the rule's matched and forged
 * counts go back, so a rule of count N still answers N requests. A CNP
 * rule's frame was taken as usual: only its forged count goes back. Both
 * count unforged. No effect when @p v forged nothing.
 */
void rk_impair_unforge(struct rk_impair *st, const struct rk_impair_verdict *v);

/**
 * The delay, reordering, corruption and CE mark of the next copy of a
 * frame @p v passed (copies > 0). Counts reordered copies; corruption
 * and marks are counted when applied.
 */
void rk_impair_next_copy(struct rk_impair *st, const struct rk_impair_verdict *v,
			 struct rk_impair_copy *c);

/**
 * Apply @p c to the copy @p frame of @p len bytes: the CE mark (when the
 * frame is ECN-capable IP), then the flipped bit (a random byte after the
 * Ethernet header, when @p len > 14). Counts what it did.
 */
void rk_impair_apply(struct rk_impair *st, const struct rk_impair_verdict *v,
		     const struct rk_impair_copy *c, uint8_t *frame, uint32_t len);

/**
 * The BTH of a RoCEv2 frame (Ethernet, an optional 802.1Q tag, IPv4 or
 * IPv6, UDP to port 4791, IBTA Annex A17.2), NULL when @p frame is none
 * or too short for a BTH; *@p proto gets the IP protocol (0: no IP).
 */
const uint8_t *rk_impair_bth(const uint8_t *frame, uint32_t len, uint8_t *proto);

/** Whether @p frame matches @p m (see struct rk_impair_match). */
bool rk_impair_match_frame(const struct rk_impair_match *m, const uint8_t *frame, uint32_t len);

/**
 * rk_impair_decide() on a frame of @p len bytes whose rk_impair_bth() the
 * caller already has: @p proto its IP protocol (0: no IP), @p bth its BTH
 * (NULL: none), so the headers are read once per frame.
 */
void rk_impair_decide_parsed(struct rk_impair *st, uint32_t len, uint8_t proto,
			     const uint8_t *bth, struct rk_impair_verdict *v);

/* ------------------------------------------------------ the pre-filter */

/**
 * What the rules of a stage can match, summed up so that a frame no rule
 * can take passes after a few compares. It never turns away a frame a rule
 * matches; it may let through frames no rule matches (the rules then
 * decide). PSN ranges and count limits are left out of it.
 */
struct rk_impair_filter {
	bool every;             /**< a rule without conditions: every frame */
	bool roce;              /**< a rule on BTH fields (DestQP, OpCode, PSN) */
	uint32_t qp_min, qp_max; /**< the DestQPs (24 bits) those rules can take lie in this range */
	uint32_t protos[8];     /**< bit p (of word p / 32): a rule on IP protocol p alone */
	uint32_t opcodes[8];    /**< bit o: a BTH rule can take OpCode o */
};

/**
 * Sum up @p n_rules @p rules (NULL when 0) into @p f. A rule that can
 * match no frame (qp_min > qp_max, opcode_min > opcode_max) is left out.
 */
void rk_impair_filter_init(struct rk_impair_filter *f, const struct rk_impair_rule *rules,
			   unsigned int n_rules);

/** The filter of stage @p st; with no stage, or no rule, one that takes nothing. */
const struct rk_impair_filter *rk_impair_filter_of(const struct rk_impair *st);

/**
 * Whether a rule summed up in @p f may take a frame of IP protocol
 * @p proto (0: no IP) and BTH @p bth (NULL: no RoCEv2 frame), as
 * rk_impair_bth() gives them. false: no rule matches it; it passes.
 */
static inline bool
rk_impair_filter_may(const struct rk_impair_filter *f, uint8_t proto, const uint8_t *bth)
{
	uint32_t qp;

	if (f->every || (f->protos[proto >> 5] >> (proto & 31) & 1))
		return true;
	if (bth == NULL || !f->roce)
		return false;
	qp = rk_get_be24(bth + 5);
	return qp >= f->qp_min && qp <= f->qp_max && (f->opcodes[bth[0] >> 5] >> (bth[0] & 31) & 1);
}

/** Counters of rule @p rule, NULL when there is no such rule. */
const struct rk_impair_rule_stats *rk_impair_stats(const struct rk_impair *st, unsigned int rule);

/** Number of rules. */
unsigned int rk_impair_rules(const struct rk_impair *st);

/* ------------------------------------------------------------ the queue */

/**
 * Frames held until a time: a min-heap keyed by (time, insertion order),
 * so frames due at one time leave in the order they came. Each frame is
 * a private copy.
 */
struct rk_impair_queue {
	struct rk_impair_qframe *heap;
	uint32_t n, cap;
	uint64_t seq;
};

/**
 * Queue a copy of @p frame due at @p t_ns; *@p copy (when not NULL) points
 * at the stored copy, writable until it is popped.
 * @return 0, -ENOMEM (nothing queued).
 */
int rk_impair_queue_push(struct rk_impair_queue *q, uint64_t t_ns, const uint8_t *frame,
			 uint32_t len, uint8_t **copy);

/**
 * Take the earliest frame due at or before @p now_ns into @p buf.
 * @return its length, 0 when none is due, -ENOSPC when @p cap is too small
 *         (the frame is taken and dropped).
 */
int rk_impair_queue_pop(struct rk_impair_queue *q, uint64_t now_ns, uint8_t *buf, uint32_t cap);

/** When the earliest frame is due, UINT64_MAX when empty. */
uint64_t rk_impair_queue_next_ns(const struct rk_impair_queue *q);

/** Free every frame held. */
void rk_impair_queue_clear(struct rk_impair_queue *q);

/* ------------------------------------------------- the rk_io_ops wrapper */

struct rk_impair_io_cfg {
	const struct rk_io_ops *inner;  /**< the backend wrapped (tx, rx, now_ns required) */
	void *inner_io;
	const struct rk_impair_rule *tx_rules;  /**< applied to frames sent */
	unsigned int n_tx_rules;
	const struct rk_impair_rule *rx_rules;  /**< applied to frames received */
	unsigned int n_rx_rules;
	uint32_t max_queue;     /**< delayed frames held per direction; more are lost; 0: 65536 */
};

/** Counters of the wrapper beyond its rules'. */
struct rk_impair_io_stats {
	uint64_t tx_overflow, rx_overflow;      /**< delayed frames lost to a full queue */
	uint64_t tx_held, rx_held;              /**< delayed frames held now */
};

struct rk_impair_io;

/**
 * Wrap @p cfg->inner. NULL with errno EINVAL (no inner backend, a rule
 * refused by rk_impair_create, or a rule that forges: one endpoint's
 * stage cannot) or ENOMEM.
 */
struct rk_impair_io *rk_impair_io_create(const struct rk_impair_io_cfg *cfg);

/** Free the wrapper and the frames it holds (not the inner backend). */
void rk_impair_io_destroy(struct rk_impair_io *io);

/** The TX (@p rx false) or RX stage, for its counters. */
const struct rk_impair *rk_impair_io_stage(const struct rk_impair_io *io, bool rx);

const struct rk_impair_io_stats *rk_impair_io_stats(const struct rk_impair_io *io);

/**
 * rk_io_ops over a struct rk_impair_io: tx() impairs and passes on (or
 * holds until due, released by later tx/rx/flush calls at the inner
 * backend's time); rx() takes the inner backend's frames, impairs them
 * and returns those due. flush and tx_room are passed on. tx_frame
 * lends the inner backend's buffer (NULL when it lends none); tx_commit
 * and tx_commit_sg commit a frame that passes untouched now to the inner
 * backend as it is (the payload by reference), never commit a dropped
 * one (the buffer is lent again) and send other fates by copy, as tx().
 */
extern const struct rk_io_ops rk_impair_io_ops;

/* ------------------------------------------------------------ rule text */

/**
 * Parse one rule from words "key=value" separated by blanks, e.g.
 * "qp=0x11-0x12 opcode=4 psn=100-199 drop-every=10".
 * Match keys (a value is N or N-M, decimal or 0x hex): qp (DestQP, 24
 * bits), opcode (BTH OpCode, 8 bits), psn (24 bits), proto (IP protocol).
 * Action keys: drop-every=K (the k-th matched frame is lost), loss=P,
 * dup=P, corrupt=P, ecn-ce=P (probabilities 0..1), delay=NS, jitter=NS,
 * reorder=P:NS, mtu=BYTES, seed=N, count=N (the rule takes N frames
 * at most), forge=nak-seq|nak-inv|nak-rae|nak-rop|rnr[:T]|cnp (T the RNR
 * timer code 0..31, default 14: 1.28 ms). A match key on BTH fields implies
 * proto=17 (RoCEv2, IBTA Vol1 Annex A17). Unset fields are zero.
 * @return 0; -EINVAL with a one-line reason in @p err (NUL-terminated,
 *         cut to @p errlen) on an unknown key, a value out of range or an
 *         empty rule.
 */
int rk_impair_rule_parse(const char *text, struct rk_impair_rule *r, char *err,
			 unsigned int errlen);

/**
 * Write @p r back as rk_impair_rule_parse() reads it (only the fields
 * set), NUL-terminated, cut to @p len. @return the length it needed.
 */
int rk_impair_rule_format(const struct rk_impair_rule *r, char *buf, unsigned int len);

#endif /* RK_IMPAIR_H */
