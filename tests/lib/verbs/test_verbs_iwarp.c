/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verbs API over iWARP (lib/verbs on lib/iwarp): two contexts joined
 * by an in-memory byte pipe with a small window (so the stream pushes
 * back), data and completions checked through verbs calls only.
 */
#include "rk_test.h"

#include <errno.h>
#include <string.h>

#include "rk_verbs.h"

/* ------------------------------------------------------ in-memory pipe */

#define PIPE_CAP 3000   /* bytes one direction holds: smaller than one 64 KiB stage */

struct pipe_dir {
	uint8_t buf[PIPE_CAP];
	size_t head, len;
	bool fin;
};

struct pipe_end {
	struct pipe_dir *in, *out;
	bool closed;
	int close_calls;
};

static long
p_send(void *s, const uint8_t *b, size_t n)
{
	struct pipe_end *e = s;
	struct pipe_dir *d = e->out;
	size_t take = PIPE_CAP - d->len;

	if (e->closed)
		return -EPIPE;
	if (take > n)
		take = n;
	for (size_t i = 0; i < take; i++)
		d->buf[(d->head + d->len + i) % PIPE_CAP] = b[i];
	d->len += take;
	return (long)take;
}

static long
p_recv(void *s, uint8_t *b, size_t cap)
{
	struct pipe_end *e = s;
	struct pipe_dir *d = e->in;
	size_t n = d->len < cap ? d->len : cap;

	if (e->closed)
		return -EBADF;
	if (n == 0)
		return d->fin ? -EPIPE : 0;
	for (size_t i = 0; i < n; i++)
		b[i] = d->buf[(d->head + i) % PIPE_CAP];
	d->head = (d->head + n) % PIPE_CAP;
	d->len -= n;
	return (long)n;
}

static void
p_close(void *s)
{
	struct pipe_end *e = s;

	e->closed = true;
	e->out->fin = true;
	e->close_calls++;
}

static uint64_t clock_ns = 1000;

static uint64_t
p_now(void *env)
{
	(void)env;
	return clock_ns;
}

static const struct rk_stream_ops pipe_ops = {
	.name = "pipe", .send = p_send, .recv = p_recv, .close = p_close, .now_ns = p_now,
};

/* ------------------------------------------------------------ two nodes */

#define MEM 65536

struct node {
	struct rk_context *ctx;
	struct rk_pd *pd;
	struct rk_cq *scq, *rcq;
	struct rk_qp *qp;
	struct rk_mr *mr;
	uint8_t *mem;
};

static struct pipe_dir dirs[2];
static struct pipe_end ends[2];
static struct node n[2];

static void
open_node(struct node *x, uint64_t seed)
{
	struct rk_device_attr da = { .key_seed = seed, .max_mr = 16 };
	struct rk_qp_init_attr qa = { .qp_type = RK_QPT_RC, .sq_sig_all = 1,
				      .cap = { 32, 32, 4, 4, 0 } };

	x->ctx = rk_open_device_iwarp(&pipe_ops, NULL, &da);
	assert_non_null(x->ctx);
	assert_int_equal(x->ctx->transport, RK_TRANSPORT_TYPE_IWARP);
	x->pd = rk_alloc_pd(x->ctx);
	assert_non_null(x->pd);
	x->scq = rk_create_cq(x->ctx, 64, NULL);
	x->rcq = rk_create_cq(x->ctx, 64, NULL);
	assert_non_null(x->scq);
	assert_non_null(x->rcq);
	qa.send_cq = x->scq;
	qa.recv_cq = x->rcq;
	x->qp = rk_create_qp(x->pd, &qa);
	assert_non_null(x->qp);
	x->mem = calloc(1, MEM);
	assert_non_null(x->mem);
	x->mr = rk_reg_mr(x->pd, x->mem, MEM, RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE |
			  RK_ACCESS_REMOTE_READ);
	assert_non_null(x->mr);
	/* iWARP: one STag is both keys. */
	assert_int_equal(x->mr->lkey, x->mr->rkey);
}

/* Node 0 is the MPA Initiator, node 1 the Responder. */
static void
open_pair(bool crc, bool markers, bool p2p, uint8_t ird0, uint8_t ord0, uint8_t ird1,
	  uint8_t ord1)
{
	uint8_t ird[2] = { ird0, ird1 }, ord[2] = { ord0, ord1 };

	memset(dirs, 0, sizeof(dirs));
	memset(ends, 0, sizeof(ends));
	ends[0] = (struct pipe_end){ .in = &dirs[1], .out = &dirs[0] };
	ends[1] = (struct pipe_end){ .in = &dirs[0], .out = &dirs[1] };
	for (int i = 0; i < 2; i++) {
		struct rk_qp_attr a = { .qp_state = RK_QPS_INIT, .max_rd_atomic = ord[i],
					.max_dest_rd_atomic = ird[i] };
		struct rk_iw_conn_attr c = { .role = i == 0 ? RK_IW_INITIATOR : RK_IW_RESPONDER,
					     .rev = 2, .enhanced = true, .p2p = p2p,
					     .crc = crc, .markers_rx = markers,
					     .tx_isn = 1000u * (unsigned)i + 7,
					     .rx_isn = 1000u * (unsigned)(1 - i) + 7 };

		open_node(&n[i], 0x77 + (uint64_t)i);
		assert_int_equal(rk_modify_qp(n[i].qp, &a, RK_QP_STATE | RK_QP_ACCESS_FLAGS |
					      RK_QP_MAX_QP_RD_ATOMIC |
					      RK_QP_MAX_DEST_RD_ATOMIC), 0);
		assert_int_equal(n[i].qp->state, RK_QPS_INIT);
		assert_int_equal(rk_qp_connect_stream(n[i].qp, &ends[i], &c), 0);
		/* A second stream on a connected QP is refused. */
		assert_int_equal(rk_qp_connect_stream(n[i].qp, &ends[i], &c), -EINVAL);
	}
}

static void
close_node(struct node *x)
{
	assert_int_equal(rk_close_device(x->ctx), -EBUSY);
	assert_int_equal(rk_destroy_cq(x->scq), -EBUSY);  /* the QP uses it */
	assert_int_equal(rk_dereg_mr(x->mr), 0);
	assert_int_equal(rk_destroy_qp(x->qp), 0);
	assert_int_equal(rk_destroy_cq(x->scq), 0);
	assert_int_equal(rk_destroy_cq(x->rcq), 0);
	assert_int_equal(rk_dealloc_pd(x->pd), 0);
	assert_int_equal(rk_close_device(x->ctx), 0);
	free(x->mem);
}

static void
close_pair(void)
{
	for (int i = 0; i < 2; i++)
		close_node(&n[i]);
	/* Every attached stream was closed exactly once. */
	assert_int_equal(ends[0].close_calls, 1);
	assert_int_equal(ends[1].close_calls, 1);
}

/* Progress both sides until no bytes move. */
static void
run(void)
{
	int idle = 0;

	for (int round = 0; round < 100000 && idle < 2; round++) {
		int a = rk_progress(n[0].ctx), b = rk_progress(n[1].ctx);

		assert_true(a >= 0 && b >= 0);
		idle = a + b == 0 ? idle + 1 : 0;
		clock_ns += 1000;
	}
	assert_int_equal(idle, 2);
}

static int
poll_n(struct rk_cq *cq, struct rk_wc *wc, int want)
{
	int got = 0;

	for (int tries = 0; tries < 1000 && got < want; tries++) {
		int r = rk_poll_cq(cq, want - got, wc + got);

		assert_true(r >= 0);
		got += r;
	}
	return got;
}

static void
post_recv(struct node *x, uint64_t id, uint32_t off, uint32_t len)
{
	struct rk_sge sge = { (uint64_t)(uintptr_t)(x->mem + off), len, x->mr->lkey };
	struct rk_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct rk_recv_wr *bad = NULL;

	assert_int_equal(rk_post_recv(x->qp, &wr, &bad), 0);
}

static void
post_rdma(struct node *x, uint64_t id, enum rk_wr_opcode op, uint32_t off, uint32_t len,
	  uint64_t raddr, uint32_t rkey)
{
	struct rk_sge sge = { (uint64_t)(uintptr_t)(x->mem + off), len, x->mr->lkey };
	struct rk_send_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = op };
	struct rk_send_wr *bad = NULL;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	assert_int_equal(rk_post_send(x->qp, &wr, &bad), 0);
}

static enum rk_qp_state
qstate(struct rk_qp *qp)
{
	struct rk_qp_attr a;

	assert_int_equal(rk_query_qp(qp, &a, RK_QP_STATE, NULL), 0);
	return a.qp_state;
}

static void
connect_pair(bool crc, bool markers, bool p2p)
{
	open_pair(crc, markers, p2p, 2, 6, 4, 3);
	assert_int_equal(qstate(n[0].qp), RK_QPS_RTR);
	assert_int_equal(qstate(n[1].qp), RK_QPS_RTR);
	run();
	assert_int_equal(qstate(n[0].qp), RK_QPS_RTS);
	/* Without RFC 6581 RTR negotiation the Responder waits for the first FPDU (RFC 5044 7.1). */
	assert_int_equal(qstate(n[1].qp), p2p ? RK_QPS_RTS : RK_QPS_RTR);
}

/* ---------------------------------------------------------------- tests */

static void
data_ops(bool crc, bool markers, bool p2p)
{
	struct rk_qp_attr qa;
	struct rk_wc wc[8];
	const struct rk_iw_negotiated *neg;
	struct rk_mr *inv_mr;
	uint8_t *inv_mem;

	connect_pair(crc, markers, p2p);
	neg = rk_iw_qp_negotiated(rk_qp_iw(n[0].qp));
	assert_non_null(neg);
	assert_int_equal(neg->crc, crc);
	assert_int_equal(neg->markers_rx, markers);
	assert_int_equal(neg->markers_tx, markers);
	/* RFC 6581: each side's ORD is at most the peer's IRD. */
	assert_int_equal(rk_query_qp(n[0].qp, &qa, RK_QP_MAX_QP_RD_ATOMIC, NULL), 0);
	assert_int_equal(qa.max_rd_atomic, 4);       /* min(6, responder IRD 4) */
	assert_int_equal(qa.max_dest_rd_atomic, 2);
	assert_int_equal(rk_query_qp(n[1].qp, &qa, RK_QP_MAX_QP_RD_ATOMIC, NULL), 0);
	assert_int_equal(qa.max_rd_atomic, 2);       /* min(3, initiator IRD 2) */
	assert_int_equal(qa.max_dest_rd_atomic, 4);

	rk_test_fill(n[0].mem, MEM);
	rk_test_fill(n[1].mem, MEM);

	/*
	 * RDMA WRITE: 5000 bytes into node 1 at 8192 (several FPDUs). While
	 * node 1 does not read, the stream stops taking bytes and
	 * rk_qp_progress() stops; once it reads, both sides move.
	 */
	{
		uint64_t p0 = rk_qp_progress(n[0].qp), p1 = rk_qp_progress(n[1].qp), stuck;

		post_rdma(&n[0], 1, RK_WR_RDMA_WRITE, 0, 5000,
			  (uint64_t)(uintptr_t)(n[1].mem + 8192), n[1].mr->rkey);
		for (int i = 0; i < 10; i++)
			rk_progress(n[0].ctx);
		stuck = rk_qp_progress(n[0].qp);
		assert_true(stuck > p0 && stuck - p0 <= PIPE_CAP);
		rk_progress(n[0].ctx);
		assert_int_equal(rk_qp_progress(n[0].qp), stuck);
		run();
		assert_true(rk_qp_progress(n[0].qp) >= p0 + 5000);
		assert_true(rk_qp_progress(n[1].qp) >= p1 + 5000);
		assert_int_equal(rk_qp_progress(NULL), 0);
	}
	assert_int_equal(poll_n(n[0].scq, wc, 1), 1);
	assert_int_equal(wc[0].wr_id, 1);
	assert_int_equal(wc[0].status, RK_WC_SUCCESS);
	assert_int_equal(wc[0].opcode, RK_WC_RDMA_WRITE);
	assert_int_equal(wc[0].qp_num, n[0].qp->qp_num);
	assert_memory_equal(n[1].mem + 8192, n[0].mem, 5000);
	assert_int_equal(qstate(n[1].qp), RK_QPS_RTS);
	assert_int_equal(rk_poll_cq(n[1].rcq, 8, wc), 0);   /* a Write consumes no receive */

	/* RDMA READ: 7000 bytes of node 1 at 16384 into node 0 at 32768. */
	post_rdma(&n[0], 2, RK_WR_RDMA_READ, 32768, 7000,
		  (uint64_t)(uintptr_t)(n[1].mem + 16384), n[1].mr->rkey);
	assert_int_equal(poll_n(n[0].scq, wc, 1), 0);      /* not before the response */
	run();
	assert_int_equal(poll_n(n[0].scq, wc, 1), 1);
	assert_int_equal(wc[0].wr_id, 2);
	assert_int_equal(wc[0].status, RK_WC_SUCCESS);
	assert_int_equal(wc[0].opcode, RK_WC_RDMA_READ);
	assert_int_equal(wc[0].byte_len, 7000);
	assert_memory_equal(n[0].mem + 32768, n[1].mem + 16384, 7000);

	/* SEND, two SGEs, into a posted receive. */
	post_recv(&n[1], 10, 40000, 4096);
	{
		struct rk_sge sge[2] = {
			{ (uint64_t)(uintptr_t)(n[0].mem + 100), 1000, n[0].mr->lkey },
			{ (uint64_t)(uintptr_t)(n[0].mem + 9000), 2000, n[0].mr->lkey },
		};
		struct rk_send_wr wr = { .wr_id = 3, .sg_list = sge, .num_sge = 2,
					 .opcode = RK_WR_SEND };
		struct rk_send_wr *bad = NULL;

		assert_int_equal(rk_post_send(n[0].qp, &wr, &bad), 0);
	}
	run();
	assert_int_equal(poll_n(n[0].scq, wc, 1), 1);
	assert_int_equal(wc[0].status, RK_WC_SUCCESS);
	assert_int_equal(wc[0].opcode, RK_WC_SEND);
	assert_int_equal(poll_n(n[1].rcq, wc, 1), 1);
	assert_int_equal(wc[0].wr_id, 10);
	assert_int_equal(wc[0].status, RK_WC_SUCCESS);
	assert_int_equal(wc[0].opcode, RK_WC_RECV);
	assert_int_equal(wc[0].byte_len, 3000);
	assert_int_equal(wc[0].qp_num, n[1].qp->qp_num);
	assert_int_equal(wc[0].wc_flags & RK_WC_WITH_INV, 0);
	assert_memory_equal(n[1].mem + 40000, n[0].mem + 100, 1000);
	assert_memory_equal(n[1].mem + 41000, n[0].mem + 9000, 2000);

	/* SEND_WITH_INV: node 1's second region stops resolving. */
	inv_mem = calloc(1, 4096);
	assert_non_null(inv_mem);
	inv_mr = rk_reg_mr(n[1].pd, inv_mem, 4096, RK_ACCESS_LOCAL_WRITE |
			   RK_ACCESS_REMOTE_WRITE | RK_ACCESS_REMOTE_INVALIDATE);
	assert_non_null(inv_mr);
	post_recv(&n[1], 11, 50000, 512);
	{
		struct rk_sge sge = { (uint64_t)(uintptr_t)(n[0].mem + 200), 300, n[0].mr->lkey };
		struct rk_send_wr wr = { .wr_id = 4, .sg_list = &sge, .num_sge = 1,
					 .opcode = RK_WR_SEND_WITH_INV };
		struct rk_send_wr *bad = NULL;

		wr.invalidate_rkey = inv_mr->rkey;
		assert_int_equal(rk_post_send(n[0].qp, &wr, &bad), 0);
	}
	run();
	assert_int_equal(poll_n(n[0].scq, wc, 1), 1);
	assert_int_equal(wc[0].wr_id, 4);
	assert_int_equal(wc[0].status, RK_WC_SUCCESS);
	assert_int_equal(wc[0].opcode, RK_WC_SEND);
	assert_int_equal(poll_n(n[1].rcq, wc, 1), 1);
	assert_int_equal(wc[0].wr_id, 11);
	assert_int_equal(wc[0].status, RK_WC_SUCCESS);
	assert_int_equal(wc[0].opcode, RK_WC_RECV);
	assert_int_equal(wc[0].byte_len, 300);
	assert_true(wc[0].wc_flags & RK_WC_WITH_INV);
	assert_int_equal(wc[0].invalidated_rkey, inv_mr->rkey);
	assert_true(rk_iw_mr_invalidated(inv_mr->iw));
	assert_memory_equal(n[1].mem + 50000, n[0].mem + 200, 300);

	/* Both directions: node 1 writes back into node 0. */
	post_rdma(&n[1], 5, RK_WR_RDMA_WRITE, 1000, 2500,
		  (uint64_t)(uintptr_t)(n[0].mem + 60000), n[0].mr->rkey);
	run();
	assert_int_equal(poll_n(n[1].scq, wc, 1), 1);
	assert_int_equal(wc[0].status, RK_WC_SUCCESS);
	assert_int_equal(wc[0].opcode, RK_WC_RDMA_WRITE);
	assert_memory_equal(n[0].mem + 60000, n[1].mem + 1000, 2500);

	assert_true(rk_context_iw_stats(n[0].ctx)->tx_bytes > 5000 + 3000 + 300);
	assert_true(rk_context_iw_stats(n[1].ctx)->placed_bytes >= 5000 + 3000 + 300);
	assert_null(rk_context_iw_stats(NULL));
	assert_int_equal(rk_dereg_mr(inv_mr), 0);
	free(inv_mem);
	/* Destroying a connected QP closes its stream. */
	close_pair();
}

static void
test_data_crc_p2p(void **state)
{
	(void)state;
	data_ops(true, false, true);
}

static void
test_data_markers_nocrc(void **state)
{
	(void)state;
	data_ops(false, true, false);
}

/*
 * An out-of-bounds WRITE: the responder places nothing, sends Terminate
 * DDP/tagged/bounds (RFC 5041 7.2 (verify §)) and closes; the requester's
 * Read behind it completes with REM_ACCESS_ERR, the rest flush, both QPs
 * are in ERR.
 */
static void
test_remote_access_error(void **state)
{
	struct rk_wc wc[8];
	const struct rk_iw_error *e;
	uint8_t tail[16];

	(void)state;
	connect_pair(true, false, true);
	rk_test_fill(n[0].mem, MEM);
	memcpy(tail, n[1].mem + MEM - 16, 16);
	post_recv(&n[0], 20, 0, 64);
	post_recv(&n[1], 30, 0, 64);
	post_recv(&n[1], 31, 64, 64);
	post_rdma(&n[0], 1, RK_WR_RDMA_WRITE, 0, 100,
		  (uint64_t)(uintptr_t)(n[1].mem + MEM - 10), n[1].mr->rkey);
	post_rdma(&n[0], 2, RK_WR_RDMA_READ, 4096, 64,
		  (uint64_t)(uintptr_t)n[1].mem, n[1].mr->rkey);
	run();

	/* Requester: the Write went out (no acknowledgement in iWARP), the Read fails. */
	assert_int_equal(poll_n(n[0].scq, wc, 2), 2);
	assert_int_equal(wc[0].wr_id, 1);
	assert_int_equal(wc[0].status, RK_WC_SUCCESS);
	assert_int_equal(wc[1].wr_id, 2);
	assert_int_equal(wc[1].status, RK_WC_REM_ACCESS_ERR);
	assert_int_equal(wc[1].opcode, RK_WC_RDMA_READ);
	assert_int_equal(wc[1].qp_num, n[0].qp->qp_num);
	assert_string_equal(rk_wc_status_str(wc[1].status), "remote access error");
	assert_int_equal(poll_n(n[0].rcq, wc, 1), 1);
	assert_int_equal(wc[0].wr_id, 20);
	assert_int_equal(wc[0].status, RK_WC_WR_FLUSH_ERR);
	assert_int_equal(qstate(n[0].qp), RK_QPS_ERR);
	e = rk_iw_qp_error(rk_qp_iw(n[0].qp));
	assert_int_equal(e->reason, RK_IW_CLOSE_TERM_RCVD);
	assert_int_equal(e->layer, 1);
	assert_int_equal(e->etype, 1);
	assert_int_equal(e->code, 0x01);

	/* Responder: sent the Terminate, placed nothing, flushed its receives. */
	assert_int_equal(qstate(n[1].qp), RK_QPS_ERR);
	e = rk_iw_qp_error(rk_qp_iw(n[1].qp));
	assert_int_equal(e->reason, RK_IW_CLOSE_TERM_SENT);
	assert_int_equal(e->layer, 1);
	assert_int_equal(e->etype, 1);
	assert_int_equal(e->code, 0x01);
	assert_memory_equal(n[1].mem + MEM - 16, tail, 16);
	assert_int_equal(poll_n(n[1].rcq, wc, 3), 2);
	assert_int_equal(wc[0].wr_id, 30);
	assert_int_equal(wc[0].status, RK_WC_WR_FLUSH_ERR);
	assert_int_equal(wc[1].wr_id, 31);
	assert_int_equal(wc[1].status, RK_WC_WR_FLUSH_ERR);
	assert_int_equal(rk_context_iw_stats(n[1].ctx)->term_sent, 1);
	assert_int_equal(rk_context_iw_stats(n[0].ctx)->term_rcvd, 1);
	/* The responder closed its stream after the Terminate; the requester after the FIN. */
	assert_int_equal(ends[1].close_calls, 1);
	assert_int_equal(ends[0].close_calls, 1);

	/* Nothing more is accepted on a QP in ERR. */
	{
		struct rk_sge sge = { (uint64_t)(uintptr_t)n[0].mem, 8, n[0].mr->lkey };
		struct rk_send_wr wr = { .wr_id = 9, .sg_list = &sge, .num_sge = 1,
					 .opcode = RK_WR_SEND };
		struct rk_send_wr *bad = NULL;

		assert_int_equal(rk_post_send(n[0].qp, &wr, &bad), -EINVAL);
		assert_ptr_equal(bad, &wr);
	}
	close_pair();
}

/* modify to ERR: the stream closes, outstanding work flushes on both sides. */
static void
test_modify_err_flushes(void **state)
{
	struct rk_wc wc[4];
	struct rk_qp_attr a = { .qp_state = RK_QPS_ERR };

	(void)state;
	connect_pair(true, false, false);
	post_recv(&n[1], 40, 0, 64);
	post_recv(&n[0], 41, 0, 64);
	assert_int_equal(rk_modify_qp(n[0].qp, &a, RK_QP_STATE), 0);
	assert_int_equal(n[0].qp->state, RK_QPS_ERR);
	assert_int_equal(ends[0].close_calls, 1);
	assert_int_equal(poll_n(n[0].rcq, wc, 1), 1);
	assert_int_equal(wc[0].wr_id, 41);
	assert_int_equal(wc[0].status, RK_WC_WR_FLUSH_ERR);
	run();
	/* The peer saw the FIN: its receive is flushed and its stream closed. */
	assert_int_equal(qstate(n[1].qp), RK_QPS_ERR);
	assert_int_equal(rk_iw_qp_error(rk_qp_iw(n[1].qp))->reason, RK_IW_CLOSE_LLP);
	assert_int_equal(poll_n(n[1].rcq, wc, 1), 1);
	assert_int_equal(wc[0].wr_id, 40);
	assert_int_equal(wc[0].status, RK_WC_WR_FLUSH_ERR);
	close_pair();
}

/* What an iWARP context refuses, and the checks before a stream is attached. */
/*
 * A zero-length region at a NULL address (issue 21): a zero-byte Send and
 * a zero-byte Read naming it succeed and leave both QPs in RTS.
 */
static void
test_zero_length_mr(void **state)
{
	struct rk_mr *z[2];
	struct rk_sge s0 = { 0, 0, 0 }, s1 = { 0, 0, 0 };
	struct rk_recv_wr rwr = { .wr_id = 7, .sg_list = &s1, .num_sge = 1 };
	struct rk_recv_wr *rbad = NULL;
	struct rk_send_wr wr = { .wr_id = 1, .sg_list = &s0, .num_sge = 1, .opcode = RK_WR_SEND };
	struct rk_send_wr *bad = NULL;
	struct rk_wc wc[2];

	(void)state;
	connect_pair(true, false, true);
	for (int i = 0; i < 2; i++) {
		z[i] = rk_reg_mr(n[i].pd, NULL, 0, RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE |
				 RK_ACCESS_REMOTE_READ);
		assert_non_null(z[i]);
	}
	s0.lkey = z[0]->lkey;
	s1.lkey = z[1]->lkey;
	assert_int_equal(rk_post_recv(n[1].qp, &rwr, &rbad), 0);
	assert_int_equal(rk_post_send(n[0].qp, &wr, &bad), 0);
	wr = (struct rk_send_wr){ .wr_id = 2, .sg_list = &s0, .num_sge = 1,
				  .opcode = RK_WR_RDMA_READ };
	wr.wr.rdma.remote_addr = 0;
	wr.wr.rdma.rkey = z[1]->rkey;
	assert_int_equal(rk_post_send(n[0].qp, &wr, &bad), 0);
	run();
	assert_int_equal(poll_n(n[1].rcq, wc, 1), 1);
	assert_int_equal(wc[0].status, RK_WC_SUCCESS);
	assert_int_equal(wc[0].byte_len, 0);
	assert_int_equal(poll_n(n[0].scq, wc, 2), 2);
	assert_int_equal(wc[0].wr_id, 1);
	assert_int_equal(wc[0].status, RK_WC_SUCCESS);
	assert_int_equal(wc[1].wr_id, 2);
	assert_int_equal(wc[1].status, RK_WC_SUCCESS);
	assert_int_equal(wc[1].byte_len, 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(qstate(n[i].qp), RK_QPS_RTS);
		assert_int_equal(rk_dereg_mr(z[i]), 0);
	}
	close_pair();
}

static void
test_api_limits(void **state)
{
	struct rk_srq_init_attr sa = { .attr = { 4, 1, 0 } };
	struct rk_ah_attr aa;
	struct rk_qp_init_attr qa = { .qp_type = RK_QPT_UD, .cap = { 4, 4, 1, 1, 0 } };
	struct rk_qp_attr a = { 0 };
	struct rk_counter ctr[4];
	struct rk_recv_wr rwr = { .wr_id = 1 };
	struct rk_recv_wr *rbad = NULL;
	struct rk_iw_conn_attr c = { .role = RK_IW_INITIATOR };
	struct node x;

	(void)state;
	memset(&aa, 0, sizeof(aa));
	assert_null(rk_open_device_iwarp(NULL, NULL, &(struct rk_device_attr){ 0 }));
	assert_int_equal(errno, EINVAL);
	assert_null(rk_open_device_iwarp(&pipe_ops, NULL, NULL));
	open_node(&x, 5);
	assert_null(rk_create_srq(x.pd, &sa));
	assert_int_equal(errno, EOPNOTSUPP);
	assert_null(rk_create_ah(x.pd, &aa));
	assert_int_equal(errno, EOPNOTSUPP);
	qa.send_cq = qa.recv_cq = x.scq;
	assert_null(rk_create_qp(x.pd, &qa));
	assert_int_equal(errno, EOPNOTSUPP);
	qa.qp_type = RK_QPT_RC;
	qa.cap.max_send_sge = RK_IW_MAX_SGE + 1;
	assert_null(rk_create_qp(x.pd, &qa));
	assert_int_equal(errno, EINVAL);
	/* Not connected: nothing can be posted. */
	assert_int_equal(rk_post_recv(x.qp, &rwr, &rbad), -EINVAL);
	assert_ptr_equal(rbad, &rwr);
	assert_null(rk_qp_iw(x.qp));
	/* The connection, not modify, brings RTR/RTS; IRD/ORD are bounded. */
	a.qp_state = RK_QPS_RTR;
	assert_int_equal(rk_modify_qp(x.qp, &a, RK_QP_STATE), -EINVAL);
	a.max_rd_atomic = RK_IW_MAX_IRD_ORD + 1;
	assert_int_equal(rk_modify_qp(x.qp, &a, RK_QP_MAX_QP_RD_ATOMIC), -EINVAL);
	assert_int_equal(rk_modify_qp(x.qp, &a, RK_QP_PATH_MTU), -EINVAL);
	assert_int_equal(rk_query_qp_counters(x.qp, ctr, 4), -EOPNOTSUPP);
	assert_int_equal(rk_context_stats(x.ctx)->tx_frames, 0);
	/* Bad MPA attributes are refused without taking the stream. */
	c.rev = 3;
	assert_int_equal(rk_qp_connect_stream(x.qp, &ends[0], &c), -EINVAL);
	assert_null(rk_qp_iw(x.qp));
	/* A QP moved to ERR before connecting cannot connect. */
	a.qp_state = RK_QPS_ERR;
	assert_int_equal(rk_modify_qp(x.qp, &a, RK_QP_STATE), 0);
	c.rev = 2;
	assert_int_equal(rk_qp_connect_stream(x.qp, &ends[0], &c), -EINVAL);
	assert_int_equal(qstate(x.qp), RK_QPS_ERR);
	/* PD and CQs stay busy while an unconnected QP uses them. */
	assert_int_equal(rk_destroy_cq(x.rcq), -EBUSY);
	assert_int_equal(rk_dealloc_pd(x.pd), -EBUSY);
	assert_int_equal(rk_dereg_mr(x.mr), 0);
	assert_int_equal(rk_destroy_qp(x.qp), 0);
	assert_int_equal(rk_destroy_cq(x.scq), 0);
	assert_int_equal(rk_destroy_cq(x.rcq), 0);
	assert_int_equal(rk_dealloc_pd(x.pd), 0);
	assert_int_equal(rk_close_device(x.ctx), 0);
	free(x.mem);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_data_crc_p2p),
		cmocka_unit_test(test_data_markers_nocrc),
		cmocka_unit_test(test_remote_access_error),
		cmocka_unit_test(test_modify_err_flushes),
		cmocka_unit_test(test_api_limits),
		cmocka_unit_test(test_zero_length_mr),
	};

	rk_test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
