/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the memory benchmarks (bench_qpmem, bench_gen_stateful): an
 * I/O ops table that sends nothing and receives nothing, so objects can be
 * built without a port, and the process's resident and heap bytes.
 */
#ifndef RK_BENCH_MEM_H
#define RK_BENCH_MEM_H

#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "rk_io.h"

static inline int
bench_null_tx(void *io, const uint8_t *frame, uint32_t len)
{
	(void)io;
	(void)frame;
	(void)len;
	return 0;
}

static inline int
bench_null_rx(void *io, uint8_t *buf, uint32_t cap)
{
	(void)io;
	(void)buf;
	(void)cap;
	return 0;
}

static inline uint64_t
bench_null_now(void *io)
{
	struct timespec ts;

	(void)io;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* No frame leaves or arrives; time is the monotonic clock. */
static const struct rk_io_ops bench_null_ops = {
	.name = "null", .tx = bench_null_tx, .rx = bench_null_rx, .now_ns = bench_null_now,
};

/* VmRSS of this process, bytes (0 when /proc cannot tell). */
static inline size_t
bench_rss_bytes(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	size_t kib = 0;

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "VmRSS: %zu kB", &kib) == 1)
			break;
	fclose(f);
	return kib * 1024;
}

/* Bytes malloc has handed out (mallinfo2: in use plus mmapped blocks). */
static inline size_t
bench_heap_bytes(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

#endif /* RK_BENCH_MEM_H */
