/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Requester (lib/ib/rk_req.c): segmentation at every path MTU, PSN
 * assignment across the 24-bit wrap, the AckReq policy, the in-flight
 * window, byte-identical retransmission, local errors, UC and UD, and
 * borrowing a backend's transmit buffers only for frames that are due.
 */
#include "rk_test.h"

#include <errno.h>

#include "rk_ib_harness.h"

static struct harness H;

static void
test_segmentation_every_mtu(void **state)
{
	(void)state;
	for (enum rk_mtu m = RK_MTU_256; m <= RK_MTU_4096; m++) {
		uint32_t mtu = 128u << m;
		const uint32_t sizes[] = { 0, 1, mtu - 1, mtu, mtu + 1, 3 * mtu };
		const uint32_t pkts[] = { 1, 1, 1, 1, 2, 3 };

		h_init(&H, &(struct h_opts){ .mtu = m, .a_psn = 0xfffffe });
		for (unsigned int i = 0; i < 6; i++) {
			uint32_t psn0 = 0;

			assert_int_equal(h_post_send(&H.a, i, RK_WR_RDMA_WRITE, 0, sizes[i],
						     h_va(&H.b, 0), rk_ib_mr_rkey(H.b.mr), 0), 0);
			assert_int_equal(h_tx(&H, &H.a), pkts[i]);
			psn0 = h_psn(&H.q[0]);
			for (unsigned int k = 0; k < pkts[i]; k++) {
				uint32_t want = k + 1 < pkts[i] ? mtu : sizes[i] - k * mtu;

				assert_int_equal(h_payload_len(&H.q[k]), want);
				assert_int_equal(h_psn(&H.q[k]), rk_psn_add(psn0, k));
				assert_int_equal(h_ack_req(&H.q[k]), k + 1 == pkts[i]);
			}
			if (pkts[i] == 1)
				assert_int_equal(h_opcode(&H.q[0]), RK_OP_RDMA_WRITE_ONLY);
			else
				assert_int_equal(h_opcode(&H.q[pkts[i] - 1]), RK_OP_RDMA_WRITE_LAST);
			h_rx_all(&H, &H.b);
			h_settle(&H);
		}
		h_fini(&H);
	}
}

static void
test_psn_wrap_and_ackreq(void **state)
{
	uint32_t n = 40;

	(void)state;
	/* A 40-packet WRITE starting at 0xFFFFF0 crosses the wrap. */
	h_init(&H, &(struct h_opts){ .mtu = RK_MTU_256, .a_psn = 0xfffff0 });
	rk_test_fill(H.a.mem, n * 256);
	assert_int_equal(h_post_send(&H.a, 1, RK_WR_RDMA_WRITE, 0, n * 256, h_va(&H.b, 0),
				     rk_ib_mr_rkey(H.b.mr), 0), 0);
	assert_int_equal(h_tx(&H, &H.a), n);
	for (uint32_t k = 0; k < n; k++) {
		assert_int_equal(h_psn(&H.q[k]), (0xfffff0 + k) & RK_PSN_MASK);
		/* AckReq on every 16th packet and the last. */
		assert_int_equal(h_ack_req(&H.q[k]), (k + 1) % 16 == 0 || k + 1 == n);
	}
	h_rx_all(&H, &H.b);
	assert_memory_equal(H.b.mem, H.a.mem, n * 256);
	assert_int_equal(h_tx(&H, &H.b), 1);
	assert_int_equal(h_psn(&H.q[0]), (0xfffff0 + n - 1) & RK_PSN_MASK);
	h_fini(&H);
}

static void
test_window(void **state)
{
	(void)state;
	h_init(&H, &(struct h_opts){ .mtu = RK_MTU_256, .a_psn = 10, .window = 8, .timeout = 10,
				     .retry_cnt = 3 });
	assert_int_equal(h_post_send(&H.a, 1, RK_WR_RDMA_WRITE, 0, 20 * 256, h_va(&H.b, 0),
				     rk_ib_mr_rkey(H.b.mr), 0), 0);
	assert_int_equal(h_tx(&H, &H.a), 8);
	h_rx_all(&H, &H.b);
	assert_int_equal(h_tx(&H, &H.a), 0);
	h_settle(&H);
	{
		struct rk_wc wc;

		/* No AckReq in the first 8 packets: the timer resends them, duplicates are ACKed. */
		assert_int_equal(h_poll(H.a.scq, &wc), 0);
	}
	h_fire_timers(&H);
	h_settle(&H);
	{
		struct rk_wc wc;

		assert_int_equal(h_poll(H.a.scq, &wc), 1);
		assert_int_equal(wc.status, RK_WC_SUCCESS);
	}
	h_fini(&H);
}

static void
test_timeout_retransmits_identically(void **state)
{
	struct h_frame first[8];
	unsigned int n;

	(void)state;
	h_init(&H, &(struct h_opts){ .a_psn = 0xfffffe, .timeout = 12, .retry_cnt = 3 });
	rk_test_fill(H.a.mem, 3000);
	assert_int_equal(h_post_send(&H.a, 1, RK_WR_RDMA_WRITE, 0, 2500, h_va(&H.b, 0),
				     rk_ib_mr_rkey(H.b.mr), 0), 0);
	assert_int_equal(h_post_send(&H.a, 2, RK_WR_SEND_WITH_IMM, 0, 1500, 0, 0, 0), 0);
	assert_int_equal(h_post_atomic(&H.a, 3, RK_WR_ATOMIC_FETCH_AND_ADD, 4000,
				       h_va(&H.b, 8192), rk_ib_mr_rkey(H.b.mr), 1, 0), 0);
	n = h_tx(&H, &H.a);
	assert_int_equal(n, 3 + 2 + 1);
	memcpy(first, H.q, sizeof(first[0]) * n);
	assert_int_equal(rk_ib_next_timer(H.a.dev), H.now + (4096ull << 12));
	h_fire_timers(&H);
	assert_int_equal(h_tx(&H, &H.a), n);
	for (unsigned int i = 0; i < n; i++) {
		assert_int_equal(H.q[i].len, first[i].len);
		assert_memory_equal(H.q[i].data, first[i].data, first[i].len);
	}
	h_fini(&H);
}

static void
test_local_protection_error(void **state)
{
	struct rk_sge sge;
	struct rk_send_wr wr = { 0 };
	const struct rk_send_wr *bad;
	struct rk_wc wc;

	(void)state;
	h_init(&H, &(struct h_opts){ 0 });
	assert_int_equal(h_post_send(&H.a, 1, RK_WR_RDMA_WRITE, 0, 8, h_va(&H.b, 0),
				     rk_ib_mr_rkey(H.b.mr), 0), 0);
	sge = (struct rk_sge){ h_va(&H.a, 0), 8, rk_ib_mr_lkey(H.a.mr) ^ 0x10000 };
	wr.wr_id = 2;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = RK_WR_SEND;
	assert_int_equal(rk_ib_post_send(H.a.qp, &wr, &bad), 0);
	/* The good WQE goes out; the bad L_Key fails when its turn comes. */
	assert_int_equal(h_tx(&H, &H.a), 1);
	assert_int_equal(rk_ib_qp_state(H.a.qp), RK_QPS_ERR);
	assert_int_equal(h_poll(H.a.scq, &wc), 1);
	assert_int_equal(wc.wr_id, 1);
	assert_int_equal(wc.status, RK_WC_WR_FLUSH_ERR);
	assert_int_equal(h_poll(H.a.scq, &wc), 1);
	assert_int_equal(wc.wr_id, 2);
	assert_int_equal(wc.status, RK_WC_LOC_PROT_ERR);
	/* Out of bounds of a valid MR. */
	h_fini(&H);
	h_init(&H, &(struct h_opts){ 0 });
	sge = (struct rk_sge){ h_va(&H.a, H_MEM - 4), 8, rk_ib_mr_lkey(H.a.mr) };
	assert_int_equal(rk_ib_post_send(H.a.qp, &wr, &bad), 0);
	assert_int_equal(h_tx(&H, &H.a), 0);
	assert_int_equal(h_poll(H.a.scq, &wc), 1);
	assert_int_equal(wc.status, RK_WC_LOC_PROT_ERR);
	h_fini(&H);
}

static void
test_post_checks(void **state)
{
	struct rk_sge sge;
	struct rk_send_wr wr[3] = { 0 };
	const struct rk_send_wr *bad = NULL;

	(void)state;
	h_init(&H, &(struct h_opts){ .sq_depth = 2 });
	sge = (struct rk_sge){ h_va(&H.a, 0), 8, rk_ib_mr_lkey(H.a.mr) };
	for (int i = 0; i < 3; i++) {
		wr[i].wr_id = (uint64_t)i;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].opcode = RK_WR_SEND;
		wr[i].next = i < 2 ? &wr[i + 1] : NULL;
	}
	/* A full send queue: the third WR is the bad one, the first two are queued. */
	assert_int_equal(rk_ib_post_send(H.a.qp, &wr[0], &bad), -ENOMEM);
	assert_ptr_equal(bad, &wr[2]);
	/* Atomics need one 8-byte SGE. */
	wr[2].next = NULL;
	wr[2].opcode = RK_WR_ATOMIC_FETCH_AND_ADD;
	sge.length = 4;
	assert_int_equal(rk_ib_post_send(H.a.qp, &wr[2], &bad), -EINVAL);
	h_fini(&H);
	/* UD accepts only SEND. */
	h_init(&H, &(struct h_opts){ .type = RK_QPT_UD });
	wr[0].next = NULL;
	wr[0].opcode = RK_WR_RDMA_WRITE;
	assert_int_equal(rk_ib_post_send(H.a.qp, &wr[0], &bad), -EINVAL);
	h_fini(&H);
}

static void
test_inline(void **state)
{
	uint8_t data[100];
	struct rk_sge sge = { (uint64_t)(uintptr_t)data, sizeof(data), 0 };
	struct rk_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				 .opcode = RK_WR_RDMA_WRITE, .send_flags = RK_SEND_INLINE };
	const struct rk_send_wr *bad;

	(void)state;
	h_init(&H, &(struct h_opts){ 0 });
	memset(data, 0x77, sizeof(data));
	wr.wr.rdma.remote_addr = h_va(&H.b, 0);
	wr.wr.rdma.rkey = rk_ib_mr_rkey(H.b.mr);
	assert_int_equal(rk_ib_post_send(H.a.qp, &wr, &bad), 0);
	memset(data, 0, sizeof(data));  /* the caller may reuse it at once */
	h_settle(&H);
	assert_int_equal(H.b.mem[0], 0x77);
	assert_int_equal(H.b.mem[99], 0x77);
	h_fini(&H);
}

static void
test_uc_and_ud_requesters(void **state)
{
	struct rk_wc wc;
	struct rk_ah ah = { 0 };
	struct rk_sge sge;
	struct rk_send_wr wr = { 0 };
	const struct rk_send_wr *bad;

	(void)state;
	/* UC: completes once sent, no ACK expected. */
	h_init(&H, &(struct h_opts){ .type = RK_QPT_UC, .mtu = RK_MTU_256 });
	assert_int_equal(h_post_send(&H.a, 1, RK_WR_RDMA_WRITE, 0, 600, h_va(&H.b, 0),
				     rk_ib_mr_rkey(H.b.mr), 0), 0);
	assert_int_equal(h_tx(&H, &H.a), 3);
	assert_int_equal(h_opcode(&H.q[0]), RK_OP_TR_UC | RK_OP_RDMA_WRITE_FIRST);
	assert_false(h_ack_req(&H.q[2]));
	assert_int_equal(h_poll(H.a.scq, &wc), 1);
	assert_int_equal(wc.status, RK_WC_SUCCESS);
	assert_int_equal(rk_ib_next_timer(H.a.dev), UINT64_MAX);
	h_rx_all(&H, &H.b);
	assert_int_equal(h_tx(&H, &H.b), 0);
	h_fini(&H);
	/* UD: DETH with the Q_Key, DestQP from the WR. */
	h_init(&H, &(struct h_opts){ .type = RK_QPT_UD });
	memcpy(ah.attr.dmac, H.b.mac, 6);
	memcpy(ah.attr.dip, H.b.ip, 16);
	h_post_recv(&H.b, 9, 0, 256);
	sge = (struct rk_sge){ h_va(&H.a, 0), 16, rk_ib_mr_lkey(H.a.mr) };
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = RK_WR_SEND;
	wr.wr.ud.ah = &ah;
	wr.wr.ud.remote_qpn = rk_ib_qp_num(H.b.qp);
	wr.wr.ud.remote_qkey = 0x80000000u;     /* high bit: use the QP's Q_Key */
	assert_int_equal(rk_ib_post_send(H.a.qp, &wr, &bad), 0);
	assert_int_equal(h_tx(&H, &H.a), 1);
	assert_int_equal(h_opcode(&H.q[0]), RK_OP_TR_UD | RK_OP_SEND_ONLY);
	assert_int_equal(rk_deth_q_key(h_xeth(&H.q[0], RK_HDR_DETH)), 0x11111111);
	assert_int_equal(rk_deth_src_qp(h_xeth(&H.q[0], RK_HDR_DETH)), rk_ib_qp_num(H.a.qp));
	h_rx_all(&H, &H.b);
	assert_int_equal(h_poll(H.b.rcq, &wc), 1);
	assert_int_equal(wc.src_qp, rk_ib_qp_num(H.a.qp));
	assert_int_equal(wc.byte_len, 56);
	/* Larger than the MTU: a local length error, the QP goes to SQE. */
	sge.length = 5000;
	assert_int_equal(rk_ib_post_send(H.a.qp, &wr, &bad), 0);
	assert_int_equal(h_tx(&H, &H.a), 0);
	assert_int_equal(h_poll(H.a.scq, &wc), 1);
	assert_int_equal(h_poll(H.a.scq, &wc), 1);
	assert_int_equal(wc.status, RK_WC_LOC_LEN_ERR);
	assert_int_equal(rk_ib_qp_state(H.a.qp), RK_QPS_SQE);
	h_fini(&H);
}

/* A backend's transmit buffers as rk_ib_poll_tx_into borrows them. */
struct lender {
	uint8_t buf[4][RK_IB_MAX_FRAME];
	unsigned int lent, emitted, foreign;
	struct h_frame f[4];
};

static uint8_t *
lend(void *arg)
{
	struct lender *l = arg;

	return l->buf[l->lent++ % 4];
}

static void
take_lent(void *arg, const uint8_t *frame, uint32_t len)
{
	struct lender *l = arg;

	/* Built where it was lent: the buffer of the latest lend() call. */
	if (l->lent == 0 || frame != l->buf[(l->lent - 1) % 4])
		l->foreign++;
	if (l->emitted < 4) {
		memcpy(l->f[l->emitted].data, frame, len);
		l->f[l->emitted].len = len;
	}
	l->emitted++;
}

static void
test_poll_tx_borrows_only_to_send(void **state)
{
	static struct lender l;
	struct rk_wc wc;

	(void)state;
	memset(&l, 0, sizeof(l));
	h_init(&H, &(struct h_opts){ 0 });
	rk_test_fill(H.a.mem, 3000);
	/* Nothing due: no buffer borrowed, however often it polls. */
	for (int i = 0; i < 3; i++)
		assert_int_equal(rk_ib_poll_tx_into(H.a.dev, H.now, lend, take_lent, &l, 64), 0);
	assert_int_equal(l.lent, 0);
	/* A 3-packet WRITE: one buffer per frame, each frame built in it. */
	assert_int_equal(h_post_send(&H.a, 1, RK_WR_RDMA_WRITE, 0, 3000, h_va(&H.b, 0),
				     rk_ib_mr_rkey(H.b.mr), 0), 0);
	assert_int_equal(rk_ib_poll_tx_into(H.a.dev, H.now, lend, take_lent, &l, 64), 3);
	assert_int_equal(l.emitted, 3);
	assert_int_equal(l.lent, 3);
	assert_int_equal(l.foreign, 0);
	assert_int_equal(h_opcode(&l.f[0]), RK_OP_RDMA_WRITE_FIRST);
	assert_int_equal(h_opcode(&l.f[2]), RK_OP_RDMA_WRITE_LAST);
	/* All sent, ACK outstanding: idle again. */
	assert_int_equal(rk_ib_poll_tx_into(H.a.dev, H.now, lend, take_lent, &l, 64), 0);
	assert_int_equal(l.lent, 3);
	for (int i = 0; i < 3; i++)
		h_rx(&H, &H.b, &l.f[i]);
	assert_memory_equal(H.b.mem, H.a.mem, 3000);
	/* The responder borrows once for its ACK, then nothing. */
	memset(&l, 0, sizeof(l));
	assert_int_equal(rk_ib_poll_tx_into(H.b.dev, H.now, lend, take_lent, &l, 64), 1);
	assert_int_equal(rk_ib_poll_tx_into(H.b.dev, H.now, lend, take_lent, &l, 64), 0);
	assert_int_equal(l.lent, 1);
	assert_int_equal(l.foreign, 0);
	assert_int_equal(h_opcode(&l.f[0]), RK_OP_ACKNOWLEDGE);
	h_rx(&H, &H.a, &l.f[0]);
	assert_int_equal(h_poll(H.a.scq, &wc), 1);
	assert_int_equal(wc.status, RK_WC_SUCCESS);
	assert_int_equal(rk_ib_poll_tx_into(H.a.dev, H.now, lend, take_lent, &l, 64), 0);
	assert_int_equal(l.lent, 1);
	h_fini(&H);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_segmentation_every_mtu),
		cmocka_unit_test(test_psn_wrap_and_ackreq),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_timeout_retransmits_identically),
		cmocka_unit_test(test_local_protection_error),
		cmocka_unit_test(test_post_checks),
		cmocka_unit_test(test_inline),
		cmocka_unit_test(test_uc_and_ud_requesters),
		cmocka_unit_test(test_poll_tx_borrows_only_to_send),
	};

	rk_test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
