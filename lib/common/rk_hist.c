/* SPDX-License-Identifier: BSD-3-Clause */
/* Log-linear histogram of durations (rk_hist.h). */
#include "rk_hist.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SUB (1u << RK_HIST_SUB_BITS)        /* exact buckets */
#define HALF (1u << (RK_HIST_SUB_BITS - 1)) /* buckets per power of two above */

_Static_assert(RK_HIST_ROWS * RK_HIST_ROW == RK_HIST_BUCKETS, "rows hold every bucket");

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

/* The exact count, extremes and sum of a histogram take @p ns. */
static void
stats_add(uint64_t *count, uint64_t *min_ns, uint64_t *max_ns, uint64_t *sum_ns, uint64_t ns)
{
	if (*count == 0 || ns < *min_ns)
		*min_ns = ns;
	if (ns > *max_ns)
		*max_ns = ns;
	*sum_ns = *sum_ns + ns < *sum_ns ? UINT64_MAX : *sum_ns + ns;
	(*count)++;
}

void
rk_hist_add(struct rk_hist *h, uint64_t ns)
{
	stats_add(&h->count, &h->min_ns, &h->max_ns, &h->sum_ns, ns);
	h->bucket[bucket_of(ns)]++;
}

void
rk_hist_merge(struct rk_hist *dst, const struct rk_hist *src)
{
	if (src->count == 0)
		return;
	if (dst->count == 0 || src->min_ns < dst->min_ns)
		dst->min_ns = src->min_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
	dst->sum_ns = dst->sum_ns + src->sum_ns < dst->sum_ns ? UINT64_MAX
							      : dst->sum_ns + src->sum_ns;
	dst->count += src->count;
	for (uint32_t b = 0; b < RK_HIST_BUCKETS; b++)
		dst->bucket[b] += src->bucket[b];
}

/*
 * The quantile of a histogram of @p count values in [min_ns, max_ns]
 * whose buckets are held in rows of RK_HIST_ROW (a NULL row is empty).
 */
static uint64_t
quantile(uint64_t count, uint64_t min_ns, uint64_t max_ns, const uint64_t *const *rows,
	 uint32_t per_100k)
{
	uint64_t rank, seen = 0;

	if (count == 0 || per_100k > 100000)
		return 0;
	if (per_100k == 100000)
		return max_ns;
	/* ceil(count * q) without overflow for any count below 2^64 / 100000 */
	rank = count / 100000 * per_100k + (count % 100000 * per_100k + 99999) / 100000;
	if (rank == 0)
		rank = 1;
	for (uint32_t r = 0; r < RK_HIST_ROWS; r++) {
		if (rows[r] == NULL)
			continue;
		for (uint32_t i = 0; i < RK_HIST_ROW; i++) {
			seen += rows[r][i];
			if (seen >= rank) {
				uint64_t v = bucket_top(r * RK_HIST_ROW + i);

				return v < min_ns ? min_ns : v > max_ns ? max_ns : v;
			}
		}
	}
	return max_ns;
}

uint64_t
rk_hist_quantile(const struct rk_hist *h, uint32_t per_100k)
{
	const uint64_t *rows[RK_HIST_ROWS];

	for (uint32_t r = 0; r < RK_HIST_ROWS; r++)
		rows[r] = &h->bucket[r * RK_HIST_ROW];
	return quantile(h->count, h->min_ns, h->max_ns, rows, per_100k);
}

int
rk_hist_sparse_add(struct rk_hist_sparse *h, uint64_t ns)
{
	uint32_t b = bucket_of(ns);
	uint64_t **row = &h->row[b / RK_HIST_ROW];

	if (*row == NULL && (*row = calloc(RK_HIST_ROW, sizeof(**row))) == NULL)
		return -ENOMEM;
	stats_add(&h->count, &h->min_ns, &h->max_ns, &h->sum_ns, ns);
	(*row)[b % RK_HIST_ROW]++;
	return 0;
}

uint64_t
rk_hist_sparse_quantile(const struct rk_hist_sparse *h, uint32_t per_100k)
{
	return quantile(h->count, h->min_ns, h->max_ns, (const uint64_t *const *)h->row, per_100k);
}

void
rk_hist_sparse_fini(struct rk_hist_sparse *h)
{
	for (uint32_t r = 0; r < RK_HIST_ROWS; r++)
		free(h->row[r]);
	memset(h, 0, sizeof(*h));
}
