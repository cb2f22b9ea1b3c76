/* SPDX-License-Identifier: BSD-3-Clause */
/* Log-linear histogram of durations (rk_hist.h). */
#include "rk_hist.h"

#include <string.h>

#define SUB (1u << RK_HIST_SUB_BITS)        /* exact buckets */
#define HALF (1u << (RK_HIST_SUB_BITS - 1)) /* buckets per power of two above */

void
rk_hist_init(struct rk_hist *h)
{
	memset(h, 0, sizeof(*h));
}

static uint32_t
bucket_of(uint64_t v)
{
	unsigned int e;

	if (v < SUB)
		return (uint32_t)v;
	e = 63u - (unsigned int)__builtin_clzll(v); /* v in [2^e, 2^(e+1)) */
	if (e >= RK_HIST_MAX_BITS)
		return RK_HIST_BUCKETS - 1;
	/* the top RK_HIST_SUB_BITS bits of v, leading one included */
	return SUB + (e - RK_HIST_SUB_BITS) * HALF +
	       (uint32_t)(v >> (e - RK_HIST_SUB_BITS + 1)) - HALF;
}

/* The highest value bucket b holds. */
static uint64_t
bucket_top(uint32_t b)
{
	uint32_t k, shift;
	uint64_t m;

	if (b < SUB)
		return b;
	if (b == RK_HIST_BUCKETS - 1)
		return UINT64_MAX;
	k = b - SUB;
	shift = k / HALF + 1;
	m = HALF + k % HALF;
	return ((m + 1) << shift) - 1;
}

void
rk_hist_add(struct rk_hist *h, uint64_t ns)
{
	if (h->count == 0 || ns < h->min_ns)
		h->min_ns = ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
	h->sum_ns = h->sum_ns + ns < h->sum_ns ? UINT64_MAX : h->sum_ns + ns;
	h->count++;
	h->bucket[bucket_of(ns)]++;
}

uint64_t
rk_hist_quantile(const struct rk_hist *h, uint32_t per_100k)
{
	uint64_t rank, seen = 0;

	if (h->count == 0 || per_100k > 100000)
		return 0;
	if (per_100k == 100000)
		return h->max_ns;
	/* ceil(count * q) without overflow for any count below 2^64 / 100000 */
	rank = h->count / 100000 * per_100k +
	       (h->count % 100000 * per_100k + 99999) / 100000;
	if (rank == 0)
		rank = 1;
	for (uint32_t b = 0; b < RK_HIST_BUCKETS; b++) {
		seen += h->bucket[b];
		if (seen >= rank) {
			uint64_t v = bucket_top(b);

			return v < h->min_ns ? h->min_ns : v > h->max_ns ? h->max_ns : v;
		}
	}
	return h->max_ns;
}
