/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers shared by the in-process benchmarks (bench_engine, bench_hop,
 * bench_icrc, bench_gen_icrc): the thread's CPU time, which
 * time spent descheduled by other work does not count, the monotonic
 * clock, and the median of a set of round results.
 */
#ifndef RK_BENCH_UTIL_H
#define RK_BENCH_UTIL_H

#include <stdlib.h>
#include <time.h>

#include <stdint.h>

/* The monotonic clock, ns. */
static inline uint64_t
bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CPU time of the calling thread, seconds. */
static inline double
bench_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline int
bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of @p n values (n >= 1); sorts @p v in place. */
static inline double
bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif /* RK_BENCH_UTIL_H */
