/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verbs API over iWARP on kernel TCP (lib/tcp sockets, 127.0.0.1):
 * WRITE, SEND and READ of 1 MiB with data checked through verbs calls,
 * and a throughput figure for 64 KiB Writes (printed, not asserted).
 */
#include "rk_test.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "rk_tcp.h"
#include "rk_verbs.h"

static uint64_t
mono_ns(void *env)
{
	struct timespec ts;

	(void)env;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* lib/tcp connections as verbs streams: the same contract, a different handle type. */
static long
t_send(void *s, const uint8_t *b, size_t n)
{
	struct rk_tcp *t = s;

	return t->ops->send(t, b, n);
}

static long
t_recv(void *s, uint8_t *b, size_t cap)
{
	struct rk_tcp *t = s;

	return t->ops->recv(t, b, cap);
}

static int fds[2] = { -1, -1 };
static int closes;

static void
t_close(void *s)
{
	struct rk_tcp *t = s;

	for (int i = 0; i < 2; i++)
		if (fds[i] == rk_tcp_sock_fd(t))
			fds[i] = -1;
	closes++;
	t->ops->close(t);
}

static const struct rk_stream_ops tcp_ops = {
	.name = "tcp-sock", .send = t_send, .recv = t_recv, .close = t_close, .now_ns = mono_ns,
};

#define N (1u << 20)

struct node {
	struct rk_context *ctx;
	struct rk_pd *pd;
	struct rk_cq *cq;
	struct rk_qp *qp;
	struct rk_mr *mr;
	uint8_t *mem;           /* 4 N: source, write target, send target, read target */
};

static struct node n[2];

static void
open_node(struct node *x)
{
	struct rk_device_attr da = { 0 };       /* key_seed from getrandom() */
	struct rk_qp_init_attr qa = { .qp_type = RK_QPT_RC, .sq_sig_all = 1,
				      .cap = { 64, 64, 1, 1, 0 } };
	struct rk_qp_attr a = { .qp_state = RK_QPS_INIT, .max_rd_atomic = 8,
				.max_dest_rd_atomic = 8 };

	x->ctx = rk_open_device_iwarp(&tcp_ops, NULL, &da);
	assert_non_null(x->ctx);
	x->pd = rk_alloc_pd(x->ctx);
	x->cq = rk_create_cq(x->ctx, 256, NULL);
	assert_non_null(x->pd);
	assert_non_null(x->cq);
	qa.send_cq = qa.recv_cq = x->cq;
	x->qp = rk_create_qp(x->pd, &qa);
	assert_non_null(x->qp);
	assert_int_equal(rk_modify_qp(x->qp, &a, RK_QP_STATE | RK_QP_MAX_QP_RD_ATOMIC |
				      RK_QP_MAX_DEST_RD_ATOMIC), 0);
	x->mem = calloc(4, N);
	assert_non_null(x->mem);
	x->mr = rk_reg_mr(x->pd, x->mem, 4 * N, RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE |
			  RK_ACCESS_REMOTE_READ);
	assert_non_null(x->mr);
}

static void
close_node(struct node *x)
{
	assert_int_equal(rk_dereg_mr(x->mr), 0);
	assert_int_equal(rk_destroy_qp(x->qp), 0);
	assert_int_equal(rk_destroy_cq(x->cq), 0);
	assert_int_equal(rk_dealloc_pd(x->pd), 0);
	assert_int_equal(rk_close_device(x->ctx), 0);
	free(x->mem);
}

/* Progress both until @p want completions arrived on each CQ (20 s at most). */
static void
collect(struct rk_wc wc[2][8], const int want[2])
{
	uint64_t until = mono_ns(NULL) + 20000000000ull;
	int got[2] = { 0, 0 };

	while (got[0] < want[0] || got[1] < want[1]) {
		assert_true(mono_ns(NULL) < until);
		for (int i = 0; i < 2; i++) {
			int r = rk_poll_cq(n[i].cq, 8 - got[i], wc[i] + got[i]);

			assert_true(r >= 0);
			got[i] += r;
		}
		if (rk_next_event_ns(n[0].ctx) == UINT64_MAX &&
		    rk_next_event_ns(n[1].ctx) == UINT64_MAX) {
			struct pollfd pf[2] = { { fds[0], POLLIN, 0 }, { fds[1], POLLIN, 0 } };

			poll(pf, 2, 1);
		}
	}
	assert_int_equal(got[0], want[0]);
	assert_int_equal(got[1], want[1]);
}

/* Two nodes on a loopback TCP connection; false when no listener can be made. */
static bool
conn_up(int *lfd)
{
	struct rk_tcp *t[2] = { NULL, NULL };
	uint64_t until;
	int port;

	closes = 0;
	*lfd = rk_tcp_sock_listen("127.0.0.1", 0);
	if (*lfd < 0) {
		print_message("# no loopback TCP listener (%d): skipped\n", *lfd);
		return false;
	}
	port = rk_tcp_sock_port(*lfd);
	assert_true(port > 0);
	t[0] = rk_tcp_sock_connect("127.0.0.1", (uint16_t)port);
	assert_non_null(t[0]);
	until = mono_ns(NULL) + 5000000000ull;
	while (t[1] == NULL && mono_ns(NULL) < until) {
		struct pollfd pf = { *lfd, POLLIN, 0 };

		poll(&pf, 1, 10);
		t[1] = rk_tcp_sock_accept(*lfd);
	}
	assert_non_null(t[1]);
	for (int i = 0; i < 2; i++) {
		struct rk_iw_conn_attr c = { .role = i == 0 ? RK_IW_INITIATOR : RK_IW_RESPONDER,
					     .rev = 2, .enhanced = true, .p2p = true, .crc = true };

		open_node(&n[i]);
		fds[i] = rk_tcp_sock_fd(t[i]);
		assert_int_equal(rk_qp_connect_stream(n[i].qp, t[i], &c), 0);
	}
	return true;
}

static void
conn_down(int lfd)
{
	/* Destroying the QPs closes both connections. */
	close_node(&n[0]);
	close_node(&n[1]);
	assert_int_equal(closes, 2);
	close(lfd);
}

static void
test_ops_over_kernel_tcp(void **state)
{
	uint64_t t0, t1;
	struct rk_wc wc[2][8];
	int lfd;

	(void)state;
	if (!conn_up(&lfd))
		skip();
	rk_test_fill(n[0].mem, N);
	rk_test_fill(n[1].mem, N);
	{
		struct rk_sge rs = { (uint64_t)(uintptr_t)(n[1].mem + 2 * N), N, n[1].mr->lkey };
		struct rk_recv_wr rw = { .wr_id = 7, .sg_list = &rs, .num_sge = 1 };
		struct rk_sge sg[3] = {
			{ (uint64_t)(uintptr_t)n[0].mem, N, n[0].mr->lkey },
			{ (uint64_t)(uintptr_t)n[0].mem, N, n[0].mr->lkey },
			{ (uint64_t)(uintptr_t)(n[0].mem + 3 * N), N, n[0].mr->lkey },
		};
		struct rk_send_wr wr[3] = {
			{ .wr_id = 1, .next = &wr[1], .sg_list = &sg[0], .num_sge = 1,
			  .opcode = RK_WR_RDMA_WRITE },
			{ .wr_id = 2, .next = &wr[2], .sg_list = &sg[1], .num_sge = 1,
			  .opcode = RK_WR_SEND },
			{ .wr_id = 3, .sg_list = &sg[2], .num_sge = 1, .opcode = RK_WR_RDMA_READ },
		};
		struct rk_send_wr *bad = NULL;
		struct rk_recv_wr *rbad = NULL;
		const int want[2] = { 3, 1 };

		wr[0].wr.rdma.remote_addr = (uint64_t)(uintptr_t)(n[1].mem + N);
		wr[0].wr.rdma.rkey = n[1].mr->rkey;
		wr[2].wr.rdma.remote_addr = (uint64_t)(uintptr_t)n[1].mem;
		wr[2].wr.rdma.rkey = n[1].mr->rkey;
		assert_int_equal(rk_post_recv(n[1].qp, &rw, &rbad), 0);
		t0 = mono_ns(NULL);
		assert_int_equal(rk_post_send(n[0].qp, wr, &bad), 0);
		collect(wc, want);
		t1 = mono_ns(NULL);
	}
	for (int k = 0; k < 3; k++) {
		assert_int_equal(wc[0][k].wr_id, (uint64_t)k + 1);
		assert_int_equal(wc[0][k].status, RK_WC_SUCCESS);
		assert_int_equal(wc[0][k].qp_num, n[0].qp->qp_num);
	}
	assert_int_equal(wc[0][0].opcode, RK_WC_RDMA_WRITE);
	assert_int_equal(wc[0][1].opcode, RK_WC_SEND);
	assert_int_equal(wc[0][2].opcode, RK_WC_RDMA_READ);
	assert_int_equal(wc[0][2].byte_len, N);
	assert_int_equal(wc[1][0].wr_id, 7);
	assert_int_equal(wc[1][0].status, RK_WC_SUCCESS);
	assert_int_equal(wc[1][0].opcode, RK_WC_RECV);
	assert_int_equal(wc[1][0].byte_len, N);
	assert_memory_equal(n[1].mem + N, n[0].mem, N);
	assert_memory_equal(n[1].mem + 2 * N, n[0].mem, N);
	assert_memory_equal(n[0].mem + 3 * N, n[1].mem, N);
	assert_int_equal(rk_query_qp(n[1].qp, &(struct rk_qp_attr){ 0 }, RK_QP_STATE, NULL), 0);
	assert_int_equal(n[1].qp->state, RK_QPS_RTS);
	print_message("# MPA set-up + Write, Send, Read of 1 MiB over loopback TCP: %.3f ms\n",
		      (double)(t1 - t0) / 1e6);
	conn_down(lfd);
}

/* 64 KiB Writes, 16 outstanding, through the verbs calls: a figure, not asserted. */
static void
test_write_throughput(void **state)
{
	enum { MSG = 65536, DEPTH = 16, TOTAL = 256 << 20 };
	uint64_t posted = 0, done = 0, t0, t1, until;
	int lfd;

	(void)state;
	if (!conn_up(&lfd))
		skip();
	until = mono_ns(NULL) + 10000000000ull;
	while (n[0].qp->state != RK_QPS_RTS || n[1].qp->state != RK_QPS_RTS) {
		assert_true(mono_ns(NULL) < until);
		rk_progress(n[0].ctx);
		rk_progress(n[1].ctx);
	}
	rk_test_fill(n[0].mem, N);
	t0 = mono_ns(NULL);
	until = t0 + 30000000000ull;
	while (done < TOTAL / MSG) {
		struct rk_wc wc[DEPTH];
		int r;

		assert_true(mono_ns(NULL) < until);
		while (posted - done < DEPTH && posted < TOTAL / MSG) {
			uint32_t off = (uint32_t)(posted % (N / MSG)) * MSG;
			struct rk_sge sg = { (uint64_t)(uintptr_t)(n[0].mem + off), MSG,
					     n[0].mr->lkey };
			struct rk_send_wr wr = { .wr_id = posted, .sg_list = &sg, .num_sge = 1,
						 .opcode = RK_WR_RDMA_WRITE };
			struct rk_send_wr *bad = NULL;

			wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(n[1].mem + N + off);
			wr.wr.rdma.rkey = n[1].mr->rkey;
			assert_int_equal(rk_post_send(n[0].qp, &wr, &bad), 0);
			posted++;
		}
		r = rk_poll_cq(n[0].cq, DEPTH, wc);
		assert_true(r >= 0);
		for (int k = 0; k < r; k++)
			assert_int_equal(wc[k].status, RK_WC_SUCCESS);
		done += (uint64_t)r;
		rk_progress(n[1].ctx);
	}
	/* The last bytes handed out may still be in flight: drain them. */
	while (rk_context_iw_stats(n[1].ctx)->placed_bytes < (uint64_t)TOTAL) {
		assert_true(mono_ns(NULL) < until);
		rk_progress(n[1].ctx);
	}
	t1 = mono_ns(NULL);
	assert_memory_equal(n[1].mem + N, n[0].mem, N);
	print_message("# verbs over kernel TCP loopback, 64 KiB Writes, CRC on: %.2f Gbit/s "
		      "(256 MiB in %.3f s)\n", (double)TOTAL * 8 / (double)(t1 - t0),
		      (double)(t1 - t0) / 1e9);
	conn_down(lfd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ops_over_kernel_tcp),
		cmocka_unit_test(test_write_throughput),
	};

	rk_test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
