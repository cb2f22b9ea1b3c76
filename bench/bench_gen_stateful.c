/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory of rk-gen's stateful mode beyond the port's pools: each end's QP
 * set (apps/rk-gen/stateful_qps.c) built and connected on a backend that
 * moves nothing: N RC QPs with send queues of DEPTH at the client and
 * receive queues of a window's WRITEs and SENDs + DEPTH / 4 + 1 at the
 * responder (receives posted), CQs, one region and MR per QP (the
 * client's source besides), the messages of SIZE bytes. Each end is
 * measured as bench_qpmem does: the growth of the resident set and of the
 * heap in use, the larger held against the target (64 MiB), with the
 * data buffers' share given apart.
 *
 *   bench_gen_stateful [N [DEPTH [SIZE]]]   (default 4096 128 64)
 *   prints "gen_stateful: END N QPs depth D size S mib M buffers_mib B
 *           target_mib 64 ratio R" for the client and the responder, then
 *   for both as END_noverify (--no-verify: one buffer shared by all QPs)
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_mem.h"
#include "stateful.h"

#define TARGET_MIB 64.0

static uint64_t
no_clock(void)
{
	return 0;
}

/* Build one end's set, connected, with everything it posts at the start; print its growth. */
static int
one_end(const struct rk_gen_hello *cfg, bool responder, double *ratio)
{
	struct rk_device_attr da = { .mac = { 2, 0, 0, 0, 0, 1 }, .ip_version = 4, .key_seed = 1 };
	static const uint8_t dmac[6] = { 2, 0, 0, 0, 0, 2 };
	uint8_t dip[16] = { [10] = 0xff, [11] = 0xff, [12] = 198, [13] = 18, [15] = 2 };
	struct rk_gen_hello_qp *local = calloc(cfg->count, sizeof(*local));
	struct rk_sf_layout l;
	struct rk_context *ctx;
	struct rk_sf s;
	size_t rss0, heap0, grow, rss1, heap1;
	double mib, buf_mib;

	if (local == NULL)
		return -1;
	da.ip[10] = da.ip[11] = 0xff;
	memcpy(da.ip + 12, "\xc6\x12\x00\x01", 4);
	da.max_qp = cfg->count + 2;
	da.max_mr = cfg->count + 16;
	da.max_inflight_pkts = 1024;
	rss0 = bench_rss_bytes();
	heap0 = bench_heap_bytes();
	ctx = rk_open_device(&bench_null_ops, NULL, &da);
	/* the client measures latency, as rk-gen's does (its per-QP rows come
	 * with traffic, which this bench does not send) */
	if (ctx == NULL || rk_sf_create(&s, ctx, cfg, responder, local) != 0 ||
	    (!responder && rk_sf_latency_on(&s, no_clock) != 0) ||
	    rk_sf_connect(&s, local, dmac, dip, 14, 7) != 0) {
		fprintf(stderr, "bench_gen_stateful: %s\n", ctx == NULL ? strerror(errno) : s.err);
		return -1;
	}
	/* the buffers are written once: the client's data, the responder's READ areas */
	rk_sf_layout(cfg, responder, &l);
	for (uint32_t i = 0; i < s.n; i++)
		memset(s.q[i].buf, 0, l.len);
	rss1 = bench_rss_bytes();
	heap1 = bench_heap_bytes();
	grow = rss1 - rss0 > heap1 - heap0 ? rss1 - rss0 : heap1 - heap0;
	rk_sf_layout(cfg, responder, &l);
	mib = (double)grow / 1048576.0;
	buf_mib = ((double)l.len * (cfg->verify ? cfg->count : 1) +
		   (s.src != NULL ? (double)rk_sf_src_len(cfg) : 0)) / 1048576.0;
	*ratio = mib / TARGET_MIB;
	printf("gen_stateful: %s%s %u QPs depth %u size %u mib %.1f buffers_mib %.1f "
	       "target_mib %.0f ratio %.2f\n", responder ? "responder" : "client",
	       cfg->verify ? "" : "_noverify", cfg->count, cfg->depth, cfg->size_max, mib,
	       buf_mib, TARGET_MIB, *ratio);
	rk_sf_destroy(&s);
	rk_close_device(ctx);
	free(local);
	return 0;
}

int
main(int argc, char **argv)
{
	struct rk_gen_hello cfg = {
		.role = RK_GEN_HELLO_CLIENT, .ops = RK_GEN_OP_WRITE | RK_GEN_OP_READ | RK_GEN_OP_SEND,
		.weight = { 1, 1, 1 }, .verify = 1, .ip_version = 4, .mtu = 1024,
	};
	double rc_ratio, rr_ratio;

	cfg.count = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 4096;
	cfg.depth = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 0) : 128;
	cfg.size_min = cfg.size_max = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 0) : 64;
	if (cfg.count == 0 || cfg.count > 65536 || cfg.depth == 0 || cfg.size_max == 0)
		return 2;
	if (one_end(&cfg, false, &rc_ratio) != 0 || one_end(&cfg, true, &rr_ratio) != 0)
		return 1;
	/* --no-verify: one buffer for all QPs, the engine's queues remain */
	cfg.verify = 0;
	if (one_end(&cfg, false, &rc_ratio) != 0 || one_end(&cfg, true, &rr_ratio) != 0)
		return 1;
	return 0;
}
