/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The analysis library's chained hash table (QP flows, host pairs, iWARP
 * connections). Elements embed a struct rk_insp_hlink; the link keeps its
 * element's hash, so lookups compare hashes before keys and the table
 * grows (doubling past two elements per bucket, up to a cap) without
 * calling back into its user.
 */
#ifndef RK_INSP_HASH_H
#define RK_INSP_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/** The element of the struct whose member @p m the link @p l is. */
#define rk_insp_hlink_elem(l, type, m) ((type *)(void *)((char *)(l) - offsetof(type, m)))

struct rk_insp_hlink {
	struct rk_insp_hlink *next;   /* chain */
	uint64_t hash;
};

struct rk_insp_htab {
	struct rk_insp_hlink **b;
	uint32_t n;                   /* buckets, a power of two */
	uint32_t max;                 /* no growth past this many buckets */
	uint64_t count;
};

/**
 * Start with @p n buckets, growing up to @p max (powers of two).
 * @return 0, or -ENOMEM.
 */
int rk_insp_htab_init(struct rk_insp_htab *h, uint32_t n, uint32_t max);
/** Free the buckets (the elements are the user's). */
void rk_insp_htab_fini(struct rk_insp_htab *h);
/** Link @p l under @p hash. Failing to grow only costs lookup speed. */
void rk_insp_htab_add(struct rk_insp_htab *h, struct rk_insp_hlink *l, uint64_t hash);
/** Unlink @p l (nothing when it is not in the table). */
void rk_insp_htab_del(struct rk_insp_htab *h, struct rk_insp_hlink *l);

/** First link of @p hash's chain; follow ->next, comparing ->hash first. */
static inline struct rk_insp_hlink *
rk_insp_htab_chain(const struct rk_insp_htab *h, uint64_t hash)
{
	return h->b[hash & (h->n - 1)];
}

/**
 * Fold the 64-bit word @p v into @p h: xorshift-multiply-xorshift (the
 * finaliser of MurmurHash3), so every bit of @p v reaches the low bits
 * the tables index by. An IPv4 address in its mapped form differs in the
 * top bytes of its second word only: a multiply alone carries no bit
 * downwards, and all the pairs of a subnet's hosts shared one chain.
 */
static inline uint64_t
rk_insp_hash_mix(uint64_t h, uint64_t v)
{
	/* One multiply per word: the per-packet lookup is on the hot path. */
	h ^= v;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 33);
}

/** Fold the 16-byte address @p a into @p h. */
static inline uint64_t
rk_insp_hash_addr(uint64_t h, const uint8_t *a)
{
	uint64_t w[2];

	memcpy(w, a, sizeof(w));
	return rk_insp_hash_mix(rk_insp_hash_mix(h, w[0]), w[1]);
}

#endif
