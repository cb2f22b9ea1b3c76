/* SPDX-License-Identifier: BSD-3-Clause */
/* The verbs API (lib/verbs/rk_verbs.c) over the simulated link. */
#include "rk_test.h"

#include <errno.h>
#include <string.h>

#include "rk_sim.h"
#include "rk_verbs.h"

struct node {
	struct rk_sim_port port;
	struct rk_context *ctx;
	struct rk_pd *pd;
	struct rk_cq *cq;
	struct rk_qp *qp;
	struct rk_mr *mr;
	uint8_t mem[65536];
};

static struct rk_sim_clock clk;
static struct rk_sim_link *link_;
static struct node n[2];
static uint32_t inflight;       /* requester window of the next open_nodes(); 0: default */
static const struct rk_io_ops *node_ops = &rk_sim_io_ops;     /* of the next open_nodes() */
static unsigned int clock_reads;

/* The simulator's backend, counting the clock reads. */
static uint64_t
counted_now(void *io)
{
	clock_reads++;
	return rk_sim_io_ops.now_ns(io);
}

static void
open_nodes(void)
{
	struct rk_sim_link_cfg lc = { .seed = 1, .dir = { { .delay_ns = 1000 },
							  { .delay_ns = 1000 } } };

	link_ = rk_sim_link_create(&lc);
	for (int i = 0; i < 2; i++) {
		struct rk_device_attr da = { .ip_version = 4, .max_inflight_pkts = inflight };
		struct rk_qp_init_attr qa = { .qp_type = RK_QPT_RC, .sq_sig_all = 1,
					      .cap = { 16, 16, 1, 1, 0 } };

		da.mac[5] = (uint8_t)(i + 1);
		da.ip[10] = da.ip[11] = 0xff;
		da.ip[15] = (uint8_t)(i + 1);
		n[i].port = (struct rk_sim_port){ link_, (unsigned int)i, &clk };
		n[i].ctx = rk_open_device(node_ops, &n[i].port, &da);
		assert_non_null(n[i].ctx);
		n[i].pd = rk_alloc_pd(n[i].ctx);
		n[i].cq = rk_create_cq(n[i].ctx, 64, NULL);
		qa.send_cq = qa.recv_cq = n[i].cq;
		n[i].qp = rk_create_qp(n[i].pd, &qa);
		assert_non_null(n[i].qp);
		n[i].mr = rk_reg_mr(n[i].pd, n[i].mem, sizeof(n[i].mem),
				    RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE |
				    RK_ACCESS_REMOTE_READ);
		assert_non_null(n[i].mr);
	}
	for (int i = 0; i < 2; i++) {
		struct rk_qp_attr a = { .qp_state = RK_QPS_INIT,
					.qp_access_flags = RK_ACCESS_REMOTE_WRITE |
							   RK_ACCESS_REMOTE_READ };

		assert_int_equal(rk_modify_qp(n[i].qp, &a, RK_QP_STATE | RK_QP_PKEY_INDEX |
					      RK_QP_PORT | RK_QP_ACCESS_FLAGS), 0);
		a = (struct rk_qp_attr){ .qp_state = RK_QPS_RTR, .path_mtu = RK_MTU_1024,
					 .dest_qp_num = n[i ^ 1].qp->qp_num, .rq_psn = 5,
					 .max_dest_rd_atomic = 2 };
		a.ah_attr.dmac[5] = (uint8_t)(2 - i);
		a.ah_attr.dip[10] = a.ah_attr.dip[11] = 0xff;
		a.ah_attr.dip[15] = (uint8_t)(2 - i);
		assert_int_equal(rk_modify_qp(n[i].qp, &a, RK_QP_STATE | RK_QP_AV | RK_QP_PATH_MTU |
					      RK_QP_DEST_QPN | RK_QP_RQ_PSN |
					      RK_QP_MAX_DEST_RD_ATOMIC | RK_QP_MIN_RNR_TIMER), 0);
		a = (struct rk_qp_attr){ .qp_state = RK_QPS_RTS, .sq_psn = 5, .timeout = 10,
					 .retry_cnt = 3, .rnr_retry = 3, .max_rd_atomic = 2 };
		assert_int_equal(rk_modify_qp(n[i].qp, &a, RK_QP_STATE | RK_QP_SQ_PSN |
					      RK_QP_TIMEOUT | RK_QP_RETRY_CNT | RK_QP_RNR_RETRY |
					      RK_QP_MAX_QP_RD_ATOMIC), 0);
		assert_int_equal(n[i].qp->state, RK_QPS_RTS);
	}
}

static void
close_nodes(void)
{
	for (int i = 0; i < 2; i++) {
		/* A device with live objects cannot be closed. */
		assert_int_equal(rk_close_device(n[i].ctx), -EBUSY);
		assert_int_equal(rk_destroy_cq(n[i].cq), -EBUSY);
		assert_int_equal(rk_destroy_qp(n[i].qp), 0);
		assert_int_equal(rk_destroy_cq(n[i].cq), 0);
		assert_int_equal(rk_dereg_mr(n[i].mr), 0);
		assert_int_equal(rk_dealloc_pd(n[i].pd), 0);
		assert_int_equal(rk_close_device(n[i].ctx), 0);
	}
	rk_sim_link_destroy(link_);
}

/* One step of both nodes (node 1 only when @p peer_runs); false when nothing is due. */
static bool
step(bool peer_runs)
{
	uint64_t t = UINT64_MAX;

	rk_progress(n[0].ctx);
	if (peer_runs)
		rk_progress(n[1].ctx);
	/* A silent peer sends nothing, and what it is sent waits in the link. */
	for (int d = 0; d < (peer_runs ? 2 : 1); d++) {
		uint64_t x = peer_runs ? rk_sim_link_next_ns(link_, (unsigned int)d) : UINT64_MAX;

		t = x < t ? x : t;
		x = rk_next_event_ns(n[d].ctx);
		t = x < t ? x : t;
	}
	if (t == UINT64_MAX)
		return false;
	if (t > clk.now_ns)
		clk.now_ns = t;
	return true;
}

/* Poll cq, advancing virtual time, until one completion or a deadline. */
static int
wait_wc(struct rk_cq *cq, struct rk_wc *wc)
{
	for (int i = 0; i < 100000; i++) {
		uint64_t t = UINT64_MAX;
		int r = rk_poll_cq(cq, 1, wc);

		if (r != 0)
			return r;
		rk_progress(n[0].ctx);
		rk_progress(n[1].ctx);
		for (int d = 0; d < 2; d++) {
			uint64_t x = rk_sim_link_next_ns(link_, (unsigned int)d);

			t = x < t ? x : t;
			x = rk_next_event_ns(n[d].ctx);
			t = x < t ? x : t;
		}
		if (t == UINT64_MAX)
			return 0;
		if (t > clk.now_ns)
			clk.now_ns = t;
	}
	return 0;
}

static void
test_send_recv_write_read(void **state)
{
	struct rk_sge s = { (uint64_t)(uintptr_t)n[1].mem, 100, 0 };
	struct rk_recv_wr rwr = { .wr_id = 7, .sg_list = &s, .num_sge = 1 };
	struct rk_recv_wr *rbad;
	struct rk_send_wr wr = { .wr_id = 1, .num_sge = 1, .opcode = RK_WR_SEND,
				 .send_flags = RK_SEND_SIGNALED };
	struct rk_send_wr *bad;
	struct rk_sge ss = { (uint64_t)(uintptr_t)n[0].mem, 100, 0 };
	struct rk_wc wc;

	(void)state;
	open_nodes();
	s.lkey = n[1].mr->lkey;
	ss.lkey = n[0].mr->lkey;
	wr.sg_list = &ss;
	memset(n[0].mem, 0x42, 100);
	assert_int_equal(rk_post_recv(n[1].qp, &rwr, &rbad), 0);
	assert_int_equal(rk_post_send(n[0].qp, &wr, &bad), 0);
	assert_int_equal(wait_wc(n[1].cq, &wc), 1);
	assert_int_equal(wc.wr_id, 7);
	assert_int_equal(wc.opcode, RK_WC_RECV);
	assert_int_equal(wc.byte_len, 100);
	assert_int_equal(n[1].mem[99], 0x42);
	assert_int_equal(wait_wc(n[0].cq, &wc), 1);
	assert_int_equal(wc.wr_id, 1);
	assert_int_equal(wc.status, RK_WC_SUCCESS);
	assert_string_equal(rk_wc_status_str(wc.status), "success");
	/* READ back 3000 bytes. */
	memset(n[1].mem + 1000, 0x5a, 3000);
	wr = (struct rk_send_wr){ .wr_id = 2, .sg_list = &ss, .num_sge = 1,
				  .opcode = RK_WR_RDMA_READ };
	ss.addr = (uint64_t)(uintptr_t)(n[0].mem + 8192);
	ss.length = 3000;
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(n[1].mem + 1000);
	wr.wr.rdma.rkey = n[1].mr->rkey;
	assert_int_equal(rk_post_send(n[0].qp, &wr, &bad), 0);
	assert_int_equal(wait_wc(n[0].cq, &wc), 1);
	assert_int_equal(wc.opcode, RK_WC_RDMA_READ);
	assert_int_equal(wc.byte_len, 3000);
	assert_memory_equal(n[0].mem + 8192, n[1].mem + 1000, 3000);
	close_nodes();
}

static void
test_bad_wr_and_errors(void **state)
{
	struct rk_sge ss = { 0, 8, 0 };
	struct rk_send_wr wr[2] = { { .wr_id = 1, .sg_list = &ss, .num_sge = 1,
				      .opcode = RK_WR_RDMA_WRITE },
				    { .wr_id = 2, .sg_list = &ss, .num_sge = 5,
				      .opcode = RK_WR_RDMA_WRITE } };
	struct rk_send_wr *bad = NULL;
	struct rk_wc wc;

	(void)state;
	open_nodes();
	ss.addr = (uint64_t)(uintptr_t)n[0].mem;
	ss.lkey = n[0].mr->lkey;
	wr[0].next = &wr[1];
	wr[0].wr.rdma.remote_addr = (uint64_t)(uintptr_t)n[1].mem;
	wr[0].wr.rdma.rkey = n[1].mr->rkey ^ 1;          /* bad R_Key */
	/* The second WR has too many SGEs: it is bad_wr, the first is queued. */
	assert_int_equal(rk_post_send(n[0].qp, &wr[0], &bad), -EINVAL);
	assert_ptr_equal(bad, &wr[1]);
	assert_int_equal(wait_wc(n[0].cq, &wc), 1);
	assert_int_equal(wc.wr_id, 1);
	assert_int_equal(wc.status, RK_WC_REM_ACCESS_ERR);
	assert_string_equal(rk_wc_status_str(wc.status), "remote access error");
	{
		struct rk_qp_attr a;
		struct rk_qp_init_attr ia;

		assert_int_equal(rk_query_qp(n[0].qp, &a, 0, &ia), 0);
		assert_int_equal(a.qp_state, RK_QPS_ERR);
		assert_ptr_equal(ia.send_cq, n[0].cq);
	}
	close_nodes();
}

/*
 * A zero-length region at a NULL address (issue 21): a zero-byte SEND and
 * a zero-byte READ naming it succeed and leave both QPs in RTS; pieces of
 * no bytes need no address.
 */
static void
test_zero_length_mr(void **state)
{
	struct rk_mr *z[2];
	struct rk_sge s0 = { 0, 0, 0 }, s1 = { 0, 0, 0 };
	struct rk_recv_wr rwr = { .wr_id = 7, .sg_list = &s1, .num_sge = 1 };
	struct rk_recv_wr *rbad;
	struct rk_send_wr wr = { .wr_id = 1, .sg_list = &s0, .num_sge = 1, .opcode = RK_WR_SEND,
				 .send_flags = RK_SEND_SIGNALED };
	struct rk_send_wr *bad;
	struct rk_wc wc;
	struct rk_qp_attr a;

	(void)state;
	open_nodes();
	for (int i = 0; i < 2; i++) {
		z[i] = rk_reg_mr(n[i].pd, NULL, 0, RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE |
				 RK_ACCESS_REMOTE_READ);
		assert_non_null(z[i]);
	}
	s0.lkey = z[0]->lkey;
	s1.lkey = z[1]->lkey;
	assert_int_equal(rk_post_recv(n[1].qp, &rwr, &rbad), 0);
	assert_int_equal(rk_post_send(n[0].qp, &wr, &bad), 0);
	assert_int_equal(wait_wc(n[1].cq, &wc), 1);
	assert_int_equal(wc.status, RK_WC_SUCCESS);
	assert_int_equal(wc.opcode, RK_WC_RECV);
	assert_int_equal(wc.byte_len, 0);
	assert_int_equal(wait_wc(n[0].cq, &wc), 1);
	assert_int_equal(wc.wr_id, 1);
	assert_int_equal(wc.status, RK_WC_SUCCESS);
	wr = (struct rk_send_wr){ .wr_id = 2, .sg_list = &s0, .num_sge = 1,
				  .opcode = RK_WR_RDMA_READ };
	wr.wr.rdma.remote_addr = 0;
	wr.wr.rdma.rkey = z[1]->rkey;
	assert_int_equal(rk_post_send(n[0].qp, &wr, &bad), 0);
	assert_int_equal(wait_wc(n[0].cq, &wc), 1);
	assert_int_equal(wc.wr_id, 2);
	assert_int_equal(wc.status, RK_WC_SUCCESS);
	assert_int_equal(wc.opcode, RK_WC_RDMA_READ);
	assert_int_equal(wc.byte_len, 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(rk_query_qp(n[i].qp, &a, RK_QP_STATE, NULL), 0);
		assert_int_equal(a.qp_state, RK_QPS_RTS);
		assert_int_equal(rk_dereg_mr(z[i]), 0);
	}
	close_nodes();
}

/* A 1500-byte Ethernet link: RoCEv2 carries a path MTU of 1024 at most. */
static uint32_t
mtu_1500(void *io)
{
	(void)io;
	return 1500;
}

static struct rk_io_ops mtu_ops;

/*
 * The path MTU is held against the link (issue 21): modify-QP refuses a
 * path MTU larger than the backend's MTU carries, with -EINVAL as rxe,
 * and takes one that fits.
 */
static void
test_path_mtu_link(void **state)
{
	struct rk_qp_init_attr qa = { .qp_type = RK_QPT_RC, .cap = { 4, 4, 1, 1, 0 } };
	struct rk_qp_attr a = { .qp_state = RK_QPS_INIT };
	struct rk_qp *qp;

	(void)state;
	mtu_ops = rk_sim_io_ops;
	mtu_ops.mtu = mtu_1500;
	node_ops = &mtu_ops;
	open_nodes();
	node_ops = &rk_sim_io_ops;
	qa.send_cq = qa.recv_cq = n[0].cq;
	qp = rk_create_qp(n[0].pd, &qa);
	assert_non_null(qp);
	assert_int_equal(rk_modify_qp(qp, &a, RK_QP_STATE | RK_QP_PKEY_INDEX | RK_QP_PORT |
				      RK_QP_ACCESS_FLAGS), 0);
	a = (struct rk_qp_attr){ .qp_state = RK_QPS_RTR, .path_mtu = RK_MTU_2048,
				 .dest_qp_num = n[1].qp->qp_num, .rq_psn = 1 };
	a.ah_attr.dmac[5] = 2;
	a.ah_attr.dip[10] = a.ah_attr.dip[11] = 0xff;
	a.ah_attr.dip[15] = 2;
	assert_int_equal(rk_modify_qp(qp, &a, RK_QP_STATE | RK_QP_AV | RK_QP_PATH_MTU |
				      RK_QP_DEST_QPN | RK_QP_RQ_PSN | RK_QP_MAX_DEST_RD_ATOMIC |
				      RK_QP_MIN_RNR_TIMER), -EINVAL);
	assert_int_equal(qp->state, RK_QPS_INIT);
	a.path_mtu = RK_MTU_1024;
	assert_int_equal(rk_modify_qp(qp, &a, RK_QP_STATE | RK_QP_AV | RK_QP_PATH_MTU |
				      RK_QP_DEST_QPN | RK_QP_RQ_PSN | RK_QP_MAX_DEST_RD_ATOMIC |
				      RK_QP_MIN_RNR_TIMER), 0);
	assert_int_equal(qp->state, RK_QPS_RTR);
	assert_int_equal(rk_destroy_qp(qp), 0);
	close_nodes();
}

static uint64_t
counter(const struct rk_counter *c, int count, const char *name)
{
	for (int i = 0; i < count; i++)
		if (strcmp(c[i].name, name) == 0)
			return c[i].value;
	fail_msg("no counter %s", name);
	return 0;
}

/* Per-QP counters under NIC names count what that QP did, and only that. */
static void
test_qp_counters(void **state)
{
	struct rk_sge rs = { 0, 100, 0 }, ss = { 0, 100, 0 };
	struct rk_recv_wr rwr = { .sg_list = &rs, .num_sge = 1 };
	struct rk_send_wr wr = { .sg_list = &ss, .num_sge = 1, .opcode = RK_WR_SEND,
				 .send_flags = RK_SEND_SIGNALED };
	struct rk_qp_init_attr qa = { .qp_type = RK_QPT_RC, .cap = { 4, 4, 1, 1, 0 } };
	struct rk_recv_wr *rbad;
	struct rk_send_wr *bad;
	struct rk_counter c0[64], c1[64], cx[64];
	struct rk_wc wc;
	struct rk_qp *idle;
	int k0, k1, kx;

	(void)state;
	open_nodes();
	qa.send_cq = qa.recv_cq = n[1].cq;
	idle = rk_create_qp(n[1].pd, &qa);
	assert_non_null(idle);
	rs.addr = (uint64_t)(uintptr_t)n[1].mem;
	rs.lkey = n[1].mr->lkey;
	ss.addr = (uint64_t)(uintptr_t)n[0].mem;
	ss.lkey = n[0].mr->lkey;
	/* Three SENDs, a 4 KiB WRITE (4 packets at MTU 1024), a 3000-byte READ. */
	for (int i = 0; i < 3; i++) {
		assert_int_equal(rk_post_recv(n[1].qp, &rwr, &rbad), 0);
		assert_int_equal(rk_post_send(n[0].qp, &wr, &bad), 0);
		assert_int_equal(wait_wc(n[1].cq, &wc), 1);
		assert_int_equal(wait_wc(n[0].cq, &wc), 1);
		assert_int_equal(wc.status, RK_WC_SUCCESS);
	}
	ss.length = 4096;
	wr.opcode = RK_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(n[1].mem + 8192);
	wr.wr.rdma.rkey = n[1].mr->rkey;
	assert_int_equal(rk_post_send(n[0].qp, &wr, &bad), 0);
	assert_int_equal(wait_wc(n[0].cq, &wc), 1);
	assert_int_equal(wc.status, RK_WC_SUCCESS);
	ss.length = 3000;
	wr.opcode = RK_WR_RDMA_READ;
	assert_int_equal(rk_post_send(n[0].qp, &wr, &bad), 0);
	assert_int_equal(wait_wc(n[0].cq, &wc), 1);
	assert_int_equal(wc.status, RK_WC_SUCCESS);

	k0 = rk_query_qp_counters(n[0].qp, c0, 64);
	k1 = rk_query_qp_counters(n[1].qp, c1, 64);
	kx = rk_query_qp_counters(idle, cx, 64);
	assert_true(k0 > 10);
	assert_int_equal(k0, k1);
	assert_int_equal(k0, kx);
	assert_int_equal(rk_query_qp_counters(NULL, c0, 64), -EINVAL);
	/* The responder's view. */
	assert_int_equal(counter(c1, k1, "rx_send_requests"), 3);
	assert_int_equal(counter(c1, k1, "rx_write_requests"), 4);
	assert_int_equal(counter(c1, k1, "rx_read_requests"), 1);
	assert_int_equal(counter(c1, k1, "rx_atomic_requests"), 0);
	assert_int_equal(counter(c1, k1, "rcvd_pkts"), 3 + 4 + 1);
	assert_int_equal(counter(c1, k1, "duplicate_request"), 0);
	assert_int_equal(counter(c1, k1, "out_of_sequence"), 0);
	/* The requester's: what it sent, nothing retried on a clean link. */
	assert_int_equal(counter(c0, k0, "sent_pkts"), 3 + 4 + 1);
	assert_int_equal(counter(c0, k0, "retransmitted_pkts"), 0);
	assert_int_equal(counter(c0, k0, "local_ack_timeout_err"), 0);
	assert_int_equal(counter(c0, k0, "packet_seq_err"), 0);
	assert_int_equal(counter(c0, k0, "rx_send_requests"), 0);
	/* ACKs and the three READ responses came back to the requester. */
	assert_true(counter(c0, k0, "rcvd_pkts") >= 3 + 3);
	assert_int_equal(counter(c0, k0, "rcvd_pkts"), counter(c1, k1, "sent_pkts"));
	/* The other QP of the same device saw none of it. */
	for (int i = 0; i < kx; i++)
		assert_int_equal(cx[i].value, 0);
	/* The device counters add up its QPs (only one moved). */
	{
		struct rk_counter d[64];
		unsigned int kd = rk_counters_from_stats(rk_context_stats(n[1].ctx), d, 64);

		assert_int_equal(kd, (unsigned int)k1);
		assert_int_equal(counter(d, (int)kd, "rx_write_requests"), 4);
		assert_int_equal(counter(d, (int)kd, "rcvd_pkts"), 3 + 4 + 1);
		assert_int_equal(rk_counters_from_stats(rk_context_stats(n[1].ctx), d, 2), 2);
	}
	assert_int_equal(rk_destroy_qp(idle), 0);
	close_nodes();
}

/*
 * rk_qp_progress() moves inside one long WRITE before it completes (the
 * requester's acknowledged packets, the responder's executed requests),
 * and stays put while the peer is silent and the requester only retries.
 */
static void
test_qp_progress(void **state)
{
	struct rk_sge ss = { 0, 40960, 0 };
	struct rk_send_wr wr = { .wr_id = 1, .sg_list = &ss, .num_sge = 1,
				 .opcode = RK_WR_RDMA_WRITE, .send_flags = RK_SEND_SIGNALED };
	struct rk_send_wr *bad;
	struct rk_counter c[64];
	struct rk_wc wc;
	uint64_t mid = 0, before;
	int k, i;

	(void)state;
	inflight = 8;           /* 40 packets at MTU 1024 need five windows */
	open_nodes();
	inflight = 0;
	ss.addr = (uint64_t)(uintptr_t)n[0].mem;
	ss.lkey = n[0].mr->lkey;
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(n[1].mem + 4096);
	wr.wr.rdma.rkey = n[1].mr->rkey;
	assert_int_equal(rk_qp_progress(n[0].qp), 0);
	assert_int_equal(rk_qp_progress(n[1].qp), 0);
	assert_int_equal(rk_qp_progress(NULL), 0);
	assert_int_equal(rk_post_send(n[0].qp, &wr, &bad), 0);
	for (i = 0; i < 1000 && mid == 0; i++) {
		assert_true(step(true));
		mid = rk_qp_progress(n[0].qp);
	}
	/* Part of the message is acknowledged, the message is not complete. */
	assert_true(mid > 0 && mid < 40);
	assert_true(rk_qp_progress(n[1].qp) >= mid);
	assert_int_equal(rk_poll_cq(n[0].cq, 1, &wc), 0);
	assert_int_equal(wait_wc(n[0].cq, &wc), 1);
	assert_int_equal(wc.status, RK_WC_SUCCESS);
	assert_int_equal(rk_qp_progress(n[0].qp), 40);
	assert_int_equal(rk_qp_progress(n[1].qp), 40);

	/* The peer stops: retransmissions, but no progress, until retries run out. */
	ss.length = 4096;
	before = rk_qp_progress(n[0].qp);
	assert_int_equal(rk_post_send(n[0].qp, &wr, &bad), 0);
	for (i = 0; i < 100000 && rk_poll_cq(n[0].cq, 1, &wc) == 0; i++) {
		assert_int_equal(rk_qp_progress(n[0].qp), before);
		assert_true(step(false));
	}
	assert_int_equal(wc.status, RK_WC_RETRY_EXC_ERR);
	k = rk_query_qp_counters(n[0].qp, c, 64);
	assert_true(k > 0);
	for (i = 0; i < k && strcmp(c[i].name, "retransmitted_pkts") != 0; i++)
		;
	assert_true(i < k && c[i].value > 0);
	assert_int_equal(rk_qp_progress(n[0].qp), before);
	close_nodes();
}

/*
 * With nothing to do, rk_progress reads the clock and runs timers and the
 * transmit pass on one call in four; a timer that expires is still served
 * within four calls, never before it is due, and a post goes out at once.
 */
static void
test_quiet_polls(void **state)
{
	static struct rk_io_ops counted;
	struct rk_sge ss = { 0, 512, 0 };
	struct rk_send_wr wr = { .wr_id = 1, .sg_list = &ss, .num_sge = 1,
				 .opcode = RK_WR_RDMA_WRITE, .send_flags = RK_SEND_SIGNALED };
	struct rk_send_wr *bad;
	const struct rk_sim_link_stats *ls;
	uint64_t sent;
	int i;

	(void)state;
	counted = rk_sim_io_ops;
	counted.now_ns = counted_now;
	node_ops = &counted;
	open_nodes();
	node_ops = &rk_sim_io_ops;
	ls = rk_sim_link_stats(link_, 0);
	ss.addr = (uint64_t)(uintptr_t)n[0].mem;
	ss.lkey = n[0].mr->lkey;
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(n[1].mem + 4096);
	wr.wr.rdma.rkey = n[1].mr->rkey;

	/* Posted while quiet: out in the post itself. */
	for (i = 0; i < 8; i++)
		rk_progress(n[0].ctx);
	sent = ls->sent;
	assert_int_equal(rk_post_send(n[0].qp, &wr, &bad), 0);
	assert_int_equal(ls->sent, sent + 1);

	/* The peer is silent: 400 empty polls before the ACK timeout. */
	rk_progress(n[0].ctx);          /* the full pass after the post */
	clock_reads = 0;
	for (i = 0; i < 400; i++)
		rk_progress(n[0].ctx);
	assert_int_equal(ls->sent, sent + 1);
	assert_true(clock_reads >= 100 && clock_reads <= 101);

	/* Past the timeout (4.096 us * 2^10): resent within four polls. */
	clk.now_ns += 4300000;
	for (i = 0; i < 4 && ls->sent == sent + 1; i++)
		rk_progress(n[0].ctx);
	assert_int_equal(ls->sent, sent + 2);
	assert_true(i <= 4);
	/* Asked for the next event, the next poll is a full one. */
	clk.now_ns += 4300000 * 2;      /* the second timeout, doubled or not */
	(void)rk_next_event_ns(n[0].ctx);
	clk.now_ns += 100000000;
	rk_progress(n[0].ctx);
	assert_true(ls->sent >= sent + 3);
	close_nodes();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_send_recv_write_read),
		cmocka_unit_test(test_bad_wr_and_errors),
		cmocka_unit_test(test_zero_length_mr),
		cmocka_unit_test(test_path_mtu_link),
		cmocka_unit_test(test_qp_counters),
		cmocka_unit_test(test_qp_progress),
		cmocka_unit_test(test_quiet_polls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
