/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_hist.h
 * A log-linear histogram of durations in ns (like HdrHistogram): exact
 * below 256 ns, then 128 buckets per power of two up to 2^40 ns, so a
 * bucket spans under 1/128 (0.8 %) of its values. Bounded memory (34 KiB),
 * constant time per value. Used for rk-gen's one-way latency. The sparse
 * form (struct rk_hist_sparse) has the same buckets in rows allocated as
 * values reach them, for the many small histograms of rk-inspect's ACK
 * round-trip and READ latency per flow.
 * libc only.
 */
#ifndef RK_HIST_H
#define RK_HIST_H

#include <stdint.h>

/** Exact buckets below 2^RK_HIST_SUB_BITS ns. */
#define RK_HIST_SUB_BITS 8
/** Values from 2^RK_HIST_MAX_BITS ns (about 18 minutes) share the last bucket. */
#define RK_HIST_MAX_BITS 40
/** Buckets: 256 of 1 ns, then 128 per power of two up to 2^40 ns. */
#define RK_HIST_BUCKETS \
	((1u << RK_HIST_SUB_BITS) + \
	 (RK_HIST_MAX_BITS - RK_HIST_SUB_BITS) * (1u << (RK_HIST_SUB_BITS - 1)))

/** Buckets per row: one power of two above 256 ns (the exact ones make two rows). */
#define RK_HIST_ROW (1u << (RK_HIST_SUB_BITS - 1))
/** Rows of buckets. */
#define RK_HIST_ROWS (RK_HIST_BUCKETS / RK_HIST_ROW)

/** The histogram. Zeroed (or rk_hist_init()) is empty. */
struct rk_hist {
	uint64_t count;          /**< values in the histogram */
	uint64_t min_ns, max_ns; /**< exact; 0 when empty */
	uint64_t sum_ns;         /**< for the mean; saturates at UINT64_MAX */
	uint64_t bucket[RK_HIST_BUCKETS];
};

/** Empty @p h. */
void rk_hist_init(struct rk_hist *h);

/** Add one value of @p ns nanoseconds. */
void rk_hist_add(struct rk_hist *h, uint64_t ns);

/** Add every value of @p src to @p dst. */
void rk_hist_merge(struct rk_hist *dst, const struct rk_hist *src);

/**
 * The quantile @p per_100k / 100000 (50000 = p50, 99000 = p99, 99900 =
 * p99.9, 100000 = max), ns: the smallest bucket holding at least
 * ceil(count * q) values, reported as its highest value clamped to
 * [min_ns, max_ns] (so a constant value reads exactly). Error: under
 * 1/128 of the value above 256 ns, none below.
 * @return ns; 0 when the histogram is empty or @p per_100k is above 100000.
 */
uint64_t rk_hist_quantile(const struct rk_hist *h, uint32_t per_100k);

/**
 * The buckets of struct rk_hist, held as RK_HIST_ROWS rows of RK_HIST_ROW
 * counters (1 KiB), each allocated at its first value: the values of one
 * flow fall in a few powers of two, so a few KiB rather than 34, and no
 * page is touched that no value reached. Zeroed is empty; free it with
 * rk_hist_sparse_fini().
 */
struct rk_hist_sparse {
	uint64_t count;          /**< values in the histogram */
	uint64_t min_ns, max_ns; /**< exact; 0 when empty */
	uint64_t sum_ns;         /**< for the mean; saturates at UINT64_MAX */
	uint64_t *row[RK_HIST_ROWS];
};

/**
 * Add one value of @p ns nanoseconds.
 * @return 0, or -ENOMEM when its row could not be allocated (the value is
 * left out of every field, count included).
 */
int rk_hist_sparse_add(struct rk_hist_sparse *h, uint64_t ns);

/** rk_hist_quantile() of the sparse form: the same buckets, the same answer. */
uint64_t rk_hist_sparse_quantile(const struct rk_hist_sparse *h, uint32_t per_100k);

/** Free the rows of @p h and empty it. */
void rk_hist_sparse_fini(struct rk_hist_sparse *h);

#endif /* RK_HIST_H */
