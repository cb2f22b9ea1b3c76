/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory for many RC QPs on one port: open a device through lib/verbs on
 * a backend that moves nothing, create N RC QPs (send and receive queues
 * of DEPTH, one SGE each, one PD, one CQ, as an application would on one
 * port), bring each to RTS as rk-perf does (16 responder resources), then
 * print what the process grew by: resident set (VmRSS) and heap in use
 * (mallinfo2), each minus the same reading taken before the device was
 * opened. Memory the engine allocates but never touches shows in the heap
 * figure only, so the larger of the two is the one to hold to a budget.
 *
 *   bench_qpmem [N [DEPTH]]        (default 10000 128)
 *   prints "qpmem: N QPs depth D rss_mib R heap_mib H per_qp_bytes B"
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_mem.h"
#include "rk_verbs.h"

/* INIT -> RTR -> RTS with the attributes rk-perf uses (peer QPN i, MTU 4096). */
static int
to_rts(struct rk_qp *qp, uint32_t i)
{
	struct rk_qp_attr a = { 0 };
	int rc;

	a.qp_state = RK_QPS_INIT;
	a.qp_access_flags = RK_ACCESS_REMOTE_WRITE | RK_ACCESS_REMOTE_READ |
			    RK_ACCESS_REMOTE_ATOMIC;
	rc = rk_modify_qp(qp, &a, RK_QP_STATE | RK_QP_PKEY_INDEX | RK_QP_PORT |
			  RK_QP_ACCESS_FLAGS);
	memset(&a, 0, sizeof(a));
	a.qp_state = RK_QPS_RTR;
	a.path_mtu = RK_MTU_4096;
	a.dest_qp_num = 0x100 + i;
	a.rq_psn = i;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = 1;
	memcpy(a.ah_attr.dmac, "\x02\x00\x00\x00\x00\x02", 6);
	a.ah_attr.dip[10] = a.ah_attr.dip[11] = 0xff;
	memcpy(a.ah_attr.dip + 12, "\xc6\x12\x00\x02", 4);
	if (rc == 0)
		rc = rk_modify_qp(qp, &a, RK_QP_STATE | RK_QP_AV | RK_QP_PATH_MTU |
				  RK_QP_DEST_QPN | RK_QP_RQ_PSN | RK_QP_MAX_DEST_RD_ATOMIC |
				  RK_QP_MIN_RNR_TIMER);
	memset(&a, 0, sizeof(a));
	a.qp_state = RK_QPS_RTS;
	a.sq_psn = i;
	a.timeout = 13;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 16;
	if (rc == 0)
		rc = rk_modify_qp(qp, &a, RK_QP_STATE | RK_QP_SQ_PSN | RK_QP_TIMEOUT |
				  RK_QP_RETRY_CNT | RK_QP_RNR_RETRY | RK_QP_MAX_QP_RD_ATOMIC);
	return rc;
}

int
main(int argc, char **argv)
{
	uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 10000;
	uint32_t depth = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 0) : 128;
	struct rk_device_attr da = { .mac = { 2, 0, 0, 0, 0, 1 }, .ip_version = 4, .key_seed = 1 };
	struct rk_qp **qps = calloc(n, sizeof(*qps));
	size_t rss0, heap0, rss1, heap1;
	struct rk_context *ctx;
	struct rk_pd *pd;
	struct rk_cq *cq;

	if (qps == NULL || n == 0 || n > 65000 || depth == 0)
		return 2;
	da.ip[10] = da.ip[11] = 0xff;
	da.ip[12] = 198;
	da.ip[13] = 18;
	da.ip[15] = 1;
	da.max_qp = n;
	rss0 = bench_rss_bytes();
	heap0 = bench_heap_bytes();
	ctx = rk_open_device(&bench_null_ops, NULL, &da);
	pd = ctx != NULL ? rk_alloc_pd(ctx) : NULL;
	cq = ctx != NULL ? rk_create_cq(ctx, 1024, NULL) : NULL;
	if (pd == NULL || cq == NULL) {
		fprintf(stderr, "bench_qpmem: cannot open the device: %s\n", strerror(errno));
		return 1;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct rk_qp_init_attr ia = {
			.send_cq = cq, .recv_cq = cq, .qp_type = RK_QPT_RC,
			.cap = { .max_send_wr = depth, .max_recv_wr = depth,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};

		qps[i] = rk_create_qp(pd, &ia);
		if (qps[i] == NULL) {
			fprintf(stderr, "bench_qpmem: QP %u: %s\n", i, strerror(errno));
			return 1;
		}
		/* Connected as rk-perf does: responder resources are allocated on the way. */
		if (to_rts(qps[i], i) != 0) {
			fprintf(stderr, "bench_qpmem: QP %u: cannot bring it to RTS\n", i);
			return 1;
		}
	}
	rss1 = bench_rss_bytes();
	heap1 = bench_heap_bytes();
	printf("qpmem: %u QPs depth %u rss_mib %.1f heap_mib %.1f per_qp_bytes %zu\n", n, depth,
	       (double)(rss1 - rss0) / 1048576.0, (double)(heap1 - heap0) / 1048576.0,
	       ((rss1 - rss0) > (heap1 - heap0) ? rss1 - rss0 : heap1 - heap0) / n);
	for (uint32_t i = 0; i < n; i++)
		rk_destroy_qp(qps[i]);
	rk_destroy_cq(cq);
	rk_dealloc_pd(pd);
	rk_close_device(ctx);
	free(qps);
	return 0;
}
