/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RC engine with no I/O against its floor, interleaved: RC WRITE of
 * 64 KiB messages (MTU 4096) from a requester QP to a responder QP of two
 * lib/ib devices, frames handed over in memory (parse with ICRC check,
 * rk_ib_rx), against the floor of the same packets: one memcpy of the
 * payload and two ISA-L CRC passes over the frame (build and check).
 *
 * Both are timed by the thread's CPU time (time spent descheduled by
 * other work does not count) in ROUNDS alternating slices of about
 * SLICE_MS each; each round gives a ratio floor_time / engine_time per
 * byte, and the median of the rounds is the result. Every completion
 * must succeed and the last message's bytes must have been placed.
 *
 *   bench_engine [ROUNDS [SLICE_MS]]      (default 7 rounds of 200 ms)
 *   prints one line per round, then
 *   "engine: write64k_vs_floor R rounds R1,R2,... engine_mbps E floor_mbps F"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "rk_crc.h"
#include "rk_ib.h"
#include "rk_pkt.h"

#define MSG 65536u
#define MTU 4096u
#define HDR (14 + 20 + 8 + 12 + 16)    /* Ethernet, IPv4, UDP, BTH, RETH */
#define DEPTH 32

struct side {
	struct rk_ib_dev *dev;
	struct rk_ib_pd *pd;
	struct rk_ib_cq *cq;
	struct rk_ib_qp *qp;
	struct rk_ib_mr *mr;
	uint8_t *mem;
};

static struct side s[2];
static uint64_t rx_bad;

static void
deliver(void *ctx, const uint8_t *frame, uint32_t len)
{
	struct rk_pkt pkt;

	if (rk_pkt_parse(&pkt, frame, len, len, RK_LINK_ETHERNET, NULL) != 0 ||
	    rk_ib_rx(((struct side *)ctx)->dev, &pkt, 1) != 0)
		rx_bad++;
}

static int
setup(void)
{
	for (int i = 0; i < 2; i++) {
		struct rk_ib_dev_attr da = { .ip_version = 4, .key_seed = 3 + (uint64_t)i };
		struct rk_ib_qp_init_attr qa = {
			.qp_type = RK_QPT_RC,
			.cap = { .max_send_wr = 64, .max_recv_wr = 4, .max_send_sge = 1,
				 .max_recv_sge = 1 },
		};

		da.mac[5] = (uint8_t)(i + 1);
		da.ip[10] = da.ip[11] = 0xff;
		da.ip[12] = 198;
		da.ip[13] = 18;
		da.ip[15] = (uint8_t)(i + 1);
		s[i].dev = rk_ib_dev_create(&da);
		if (s[i].dev == NULL)
			return -1;
		s[i].pd = rk_ib_pd_alloc(s[i].dev);
		s[i].cq = rk_ib_cq_create(s[i].dev, 1024);
		qa.send_cq = qa.recv_cq = s[i].cq;
		s[i].qp = rk_ib_qp_create(s[i].pd, &qa);
		s[i].mem = calloc(1, 2 * MSG);
		if (s[i].qp == NULL || s[i].mem == NULL)
			return -1;
		s[i].mr = rk_ib_mr_reg(s[i].pd, s[i].mem, 2 * MSG,
				       RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE);
		if (s[i].mr == NULL)
			return -1;
	}
	for (int i = 0; i < 2; i++) {
		struct rk_qp_attr a = { .qp_state = RK_QPS_INIT,
					.qp_access_flags = RK_ACCESS_REMOTE_WRITE };

		if (rk_ib_qp_modify(s[i].qp, &a, RK_QP_STATE | RK_QP_PKEY_INDEX | RK_QP_PORT |
				    RK_QP_ACCESS_FLAGS) != 0)
			return -1;
		memset(&a, 0, sizeof(a));
		a.qp_state = RK_QPS_RTR;
		a.path_mtu = RK_MTU_4096;
		a.dest_qp_num = rk_ib_qp_num(s[i ^ 1].qp);
		a.max_dest_rd_atomic = 1;
		a.ah_attr.dmac[5] = (uint8_t)(2 - i);
		a.ah_attr.dip[10] = a.ah_attr.dip[11] = 0xff;
		a.ah_attr.dip[12] = 198;
		a.ah_attr.dip[13] = 18;
		a.ah_attr.dip[15] = (uint8_t)(2 - i);
		if (rk_ib_qp_modify(s[i].qp, &a, RK_QP_STATE | RK_QP_AV | RK_QP_PATH_MTU |
				    RK_QP_DEST_QPN | RK_QP_RQ_PSN | RK_QP_MAX_DEST_RD_ATOMIC |
				    RK_QP_MIN_RNR_TIMER) != 0)
			return -1;
		memset(&a, 0, sizeof(a));
		a.qp_state = RK_QPS_RTS;
		a.timeout = 14;
		a.retry_cnt = 7;
		a.max_rd_atomic = 1;
		if (rk_ib_qp_modify(s[i].qp, &a, RK_QP_STATE | RK_QP_SQ_PSN | RK_QP_TIMEOUT |
				    RK_QP_RETRY_CNT | RK_QP_RNR_RETRY | RK_QP_MAX_QP_RD_ATOMIC) != 0)
			return -1;
	}
	for (uint32_t k = 0; k < 2 * MSG; k++)
		s[0].mem[k] = (uint8_t)(k * 31 + 7);
	return 0;
}

/* RC WRITEs of MSG bytes for about @p slice CPU seconds; returns messages done. */
static uint64_t
engine_slice(double slice, double *used)
{
	static uint64_t posted, done;
	uint64_t start_done = done;
	double t0 = bench_cpu_s(), t;
	struct rk_wc wc[64];

	do {
		for (int round = 0; round < 16; round++) {
			int k;

			while (posted - done < DEPTH) {
				struct rk_sge sge = { (uint64_t)(uintptr_t)s[0].mem,
						      MSG, rk_ib_mr_lkey(s[0].mr) };
				struct rk_send_wr wr = { .wr_id = posted, .sg_list = &sge,
							 .num_sge = 1, .opcode = RK_WR_RDMA_WRITE,
							 .send_flags = RK_SEND_SIGNALED };
				const struct rk_send_wr *bad;

				wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)s[1].mem;
				wr.wr.rdma.rkey = rk_ib_mr_rkey(s[1].mr);
				if (rk_ib_post_send(s[0].qp, &wr, &bad) != 0)
					break;
				posted++;
			}
			rk_ib_poll_tx(s[0].dev, 1, deliver, &s[1], 1024);
			rk_ib_poll_tx(s[1].dev, 1, deliver, &s[0], 1024);
			while ((k = rk_ib_cq_poll(s[0].cq, 64, wc)) > 0)
				for (int i = 0; i < k; i++) {
					if (wc[i].status != RK_WC_SUCCESS) {
						fprintf(stderr, "bench_engine: completion %d\n",
							wc[i].status);
						exit(1);
					}
					done++;
				}
		}
		t = bench_cpu_s();
	} while (t - t0 < slice);
	*used = t - t0;
	return done - start_done;
}

/* The floor for @p pkts packets: memcpy of the payload, two CRC passes. */
static double
floor_pkts(uint64_t pkts)
{
	static uint8_t pkt[HDR + MTU + 4];
	static volatile uint32_t mtu = MTU;     /* a length known at run time, as the engine's */
	volatile uint32_t sink = 0;
	double t0 = bench_cpu_s();

	for (uint64_t i = 0; i < pkts; i++) {
		/* glibc's memcpy, as the engine uses, not an inlined rep movs. */
		memcpy(pkt + HDR, s[0].mem + (i & 15) * MTU, mtu);
		sink ^= rk_crc32(pkt + 14, HDR - 14 + MTU);
		sink ^= rk_crc32(pkt + 14, HDR - 14 + MTU);
	}
	(void)sink;
	return bench_cpu_s() - t0;
}

int
main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 7;
	double slice = (argc > 2 ? atof(argv[2]) : 200) / 1000.0;
	double r[64], sorted[64], e_best = 0, f_best = 0;
	double used;

	if (rounds < 1 || rounds > 64 || slice <= 0) {
		fprintf(stderr, "usage: bench_engine [ROUNDS [SLICE_MS]]\n");
		return 2;
	}
	if (setup() != 0) {
		fprintf(stderr, "bench_engine: setup failed\n");
		return 1;
	}
	(void)engine_slice(0.05, &used);        /* warm up */
	for (int i = 0; i < rounds; i++) {
		uint64_t msgs = engine_slice(slice, &used);
		double tf = floor_pkts(msgs * (MSG / MTU));
		double e = (double)msgs * MSG / used / 1e6, f = (double)msgs * MSG / tf / 1e6;

		r[i] = tf / used;
		e_best = e > e_best ? e : e_best;
		f_best = f > f_best ? f : f_best;
		printf("round %d: engine %.0f MB/s, floor %.0f MB/s, ratio %.3f\n", i + 1, e, f, r[i]);
	}
	if (rx_bad != 0 || memcmp(s[1].mem, s[0].mem, MSG) != 0) {
		fprintf(stderr, "bench_engine: %llu frames refused, or data not placed\n",
			(unsigned long long)rx_bad);
		return 1;
	}
	memcpy(sorted, r, sizeof(r[0]) * (size_t)rounds);
	qsort(sorted, (size_t)rounds, sizeof(sorted[0]), bench_cmp_double);
	printf("engine: write64k_vs_floor %.3f rounds ", sorted[rounds / 2]);
	for (int i = 0; i < rounds; i++)
		printf("%s%.2f", i ? "," : "", r[i]);
	printf(" engine_mbps %.0f floor_mbps %.0f\n", e_best, f_best);
	for (int i = 0; i < 2; i++) {
		rk_ib_dev_destroy(s[i].dev);
		free(s[i].mem);
	}
	return 0;
}
