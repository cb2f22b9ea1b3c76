/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RC end to end with no loss: every opcode, exact packets (opcode, PSN,
 * AckReq, AETH) and completions.
 */
#include "rk_test.h"

#include "rk_ib_harness.h"

static struct harness H;

static void
fill(uint8_t *p, uint32_t n, uint8_t seed)
{
	for (uint32_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7 + (i >> 8));
}

static void
expect_wc(struct rk_ib_cq *cq, uint64_t wr_id, enum rk_wc_status st, enum rk_wc_opcode op,
	  uint32_t byte_len)
{
	struct rk_wc wc;

	assert_int_equal(h_poll(cq, &wc), 1);
	assert_int_equal(wc.wr_id, wr_id);
	assert_int_equal(wc.status, st);
	assert_int_equal(wc.opcode, op);
	if (st == RK_WC_SUCCESS)
		assert_int_equal(wc.byte_len, byte_len);
}

static void
expect_no_wc(struct rk_ib_cq *cq)
{
	struct rk_wc wc;

	assert_int_equal(h_poll(cq, &wc), 0);
}

static void
test_send_only(void **state)
{
	(void)state;
	h_init(&H, &(struct h_opts){ .a_psn = 100, .b_psn = 500 });
	fill(H.a.mem, 200, 1);
	assert_int_equal(h_post_recv(&H.b, 77, 4096, 1024), 0);
	for (int i = 0; i < 6; i++)
		assert_int_equal(h_post_recv(&H.b, 78 + (uint64_t)i, 8192, 1024), 0);
	assert_int_equal(h_post_send(&H.a, 1, RK_WR_SEND, 0, 200, 0, 0, 0), 0);
	assert_int_equal(h_tx(&H, &H.a), 1);
	assert_int_equal(h_opcode(&H.q[0]), RK_OP_SEND_ONLY);
	assert_int_equal(h_psn(&H.q[0]), 100);
	assert_true(h_ack_req(&H.q[0]));
	assert_int_equal(h_payload_len(&H.q[0]), 200);
	h_rx_all(&H, &H.b);
	expect_wc(H.b.rcq, 77, RK_WC_SUCCESS, RK_WC_RECV, 200);
	assert_memory_equal(H.b.mem + 4096, H.a.mem, 200);
	assert_int_equal(h_tx(&H, &H.b), 1);
	assert_int_equal(h_opcode(&H.q[0]), RK_OP_ACKNOWLEDGE);
	assert_int_equal(h_psn(&H.q[0]), 100);
	/* ACK with credits: 6 receive WQEs left -> code 5 (ACK-CRED-01). */
	assert_int_equal(h_syndrome(&H.q[0]), 0x05);
	assert_int_equal(h_msn(&H.q[0]), 1);
	expect_no_wc(H.a.scq);
	h_rx_all(&H, &H.a);
	expect_wc(H.a.scq, 1, RK_WC_SUCCESS, RK_WC_SEND, 200);
	assert_int_equal(rk_ib_next_timer(H.a.dev), UINT64_MAX);
	h_fini(&H);
}

static void
test_send_multi_imm(void **state)
{
	struct rk_wc wc;

	(void)state;
	h_init(&H, &(struct h_opts){ .mtu = RK_MTU_256, .a_psn = 0 });
	fill(H.a.mem, 1000, 3);
	assert_int_equal(h_post_recv(&H.b, 5, 8192, 4096), 0);
	assert_int_equal(h_post_send(&H.a, 2, RK_WR_SEND_WITH_IMM, 0, 1000, 0, 0,
				     RK_SEND_SOLICITED), 0);
	assert_int_equal(h_tx(&H, &H.a), 4);
	assert_int_equal(h_opcode(&H.q[0]), RK_OP_SEND_FIRST);
	assert_int_equal(h_opcode(&H.q[1]), RK_OP_SEND_MIDDLE);
	assert_int_equal(h_opcode(&H.q[2]), RK_OP_SEND_MIDDLE);
	assert_int_equal(h_opcode(&H.q[3]), RK_OP_SEND_LAST_IMM);
	for (int i = 0; i < 4; i++)
		assert_int_equal(h_psn(&H.q[i]), (uint32_t)i);
	assert_false(h_ack_req(&H.q[0]));
	assert_true(h_ack_req(&H.q[3]));
	assert_int_equal(h_payload_len(&H.q[3]), 1000 - 768);
	h_rx_all(&H, &H.b);
	assert_int_equal(h_poll(H.b.rcq, &wc), 1);
	assert_int_equal(wc.status, RK_WC_SUCCESS);
	assert_int_equal(wc.byte_len, 1000);
	assert_true(wc.wc_flags & RK_WC_WITH_IMM);
	assert_int_equal(wc.imm_data, 0xabcd0002u);
	assert_memory_equal(H.b.mem + 8192, H.a.mem, 1000);
	h_settle(&H);
	expect_wc(H.a.scq, 2, RK_WC_SUCCESS, RK_WC_SEND, 1000);
	h_fini(&H);
}

static void
test_write_and_imm(void **state)
{
	struct rk_wc wc;

	(void)state;
	h_init(&H, &(struct h_opts){ .mtu = RK_MTU_1024, .a_psn = 10 });
	fill(H.a.mem, 5000, 9);
	assert_int_equal(h_post_send(&H.a, 3, RK_WR_RDMA_WRITE, 0, 5000, h_va(&H.b, 100),
				     rk_ib_mr_rkey(H.b.mr), 0), 0);
	assert_int_equal(h_tx(&H, &H.a), 5);
	assert_int_equal(h_opcode(&H.q[0]), RK_OP_RDMA_WRITE_FIRST);
	assert_non_null(h_xeth(&H.q[0], RK_HDR_RETH));
	assert_int_equal(rk_reth_dma_len(h_xeth(&H.q[0], RK_HDR_RETH)), 5000);
	assert_int_equal(h_opcode(&H.q[4]), RK_OP_RDMA_WRITE_LAST);
	assert_int_equal(h_psn(&H.q[4]), 14);
	h_rx_all(&H, &H.b);
	assert_memory_equal(H.b.mem + 100, H.a.mem, 5000);
	expect_no_wc(H.b.rcq);          /* WRITE consumes no receive WQE */
	h_settle(&H);
	expect_wc(H.a.scq, 3, RK_WC_SUCCESS, RK_WC_RDMA_WRITE, 5000);

	/* WRITE with immediate consumes a receive WQE. */
	assert_int_equal(h_post_recv(&H.b, 9, 0, 0), 0);
	assert_int_equal(h_post_send(&H.a, 4, RK_WR_RDMA_WRITE_WITH_IMM, 0, 16, h_va(&H.b, 200000),
				     rk_ib_mr_rkey(H.b.mr), 0), 0);
	assert_int_equal(h_tx(&H, &H.a), 1);
	assert_int_equal(h_opcode(&H.q[0]), RK_OP_RDMA_WRITE_ONLY_IMM);
	assert_int_equal(h_psn(&H.q[0]), 15);
	h_rx_all(&H, &H.b);
	assert_int_equal(h_poll(H.b.rcq, &wc), 1);
	assert_int_equal(wc.opcode, RK_WC_RECV_RDMA_WITH_IMM);
	assert_int_equal(wc.byte_len, 16);
	assert_int_equal(wc.imm_data, 0xabcd0004u);
	h_settle(&H);
	expect_wc(H.a.scq, 4, RK_WC_SUCCESS, RK_WC_RDMA_WRITE, 16);
	h_fini(&H);
}

static void
test_read(void **state)
{
	(void)state;
	h_init(&H, &(struct h_opts){ .mtu = RK_MTU_1024, .a_psn = 0xfffffe });
	fill(H.b.mem + 3000, 3 * 1024 + 1, 5);
	assert_int_equal(h_post_send(&H.a, 6, RK_WR_RDMA_READ, 50000, 3 * 1024 + 1,
				     h_va(&H.b, 3000), rk_ib_mr_rkey(H.b.mr), 0), 0);
	assert_int_equal(h_tx(&H, &H.a), 1);
	assert_int_equal(h_opcode(&H.q[0]), RK_OP_RDMA_READ_REQUEST);
	assert_int_equal(h_psn(&H.q[0]), 0xfffffe);
	h_rx_all(&H, &H.b);
	/* READ-RESP-01: F + AETH, M, M, L + AETH, PSNs across the wrap. */
	assert_int_equal(h_tx(&H, &H.b), 4);
	assert_int_equal(h_opcode(&H.q[0]), RK_OP_RDMA_READ_RESPONSE_FIRST);
	assert_int_equal(h_psn(&H.q[0]), 0xfffffe);
	assert_non_null(h_xeth(&H.q[0], RK_HDR_AETH));
	assert_int_equal(h_opcode(&H.q[1]), RK_OP_RDMA_READ_RESPONSE_MIDDLE);
	assert_int_equal(h_psn(&H.q[1]), 0xffffff);
	assert_null(h_xeth(&H.q[1], RK_HDR_AETH));
	assert_int_equal(h_opcode(&H.q[2]), RK_OP_RDMA_READ_RESPONSE_MIDDLE);
	assert_int_equal(h_psn(&H.q[2]), 0);
	assert_int_equal(h_opcode(&H.q[3]), RK_OP_RDMA_READ_RESPONSE_LAST);
	assert_int_equal(h_psn(&H.q[3]), 1);
	assert_int_equal(h_payload_len(&H.q[3]), 1);
	assert_int_equal(h_msn(&H.q[3]), 1);
	h_rx_all(&H, &H.a);
	expect_wc(H.a.scq, 6, RK_WC_SUCCESS, RK_WC_RDMA_READ, 3 * 1024 + 1);
	assert_memory_equal(H.a.mem + 50000, H.b.mem + 3000, 3 * 1024 + 1);
	/* The next request takes the PSN after the READ's range (READ-NEXT-01). */
	assert_int_equal(h_post_send(&H.a, 7, RK_WR_SEND, 0, 4, 0, 0, 0), 0);
	assert_int_equal(h_post_recv(&H.b, 1, 0, 64), 0);
	assert_int_equal(h_tx(&H, &H.a), 1);
	assert_int_equal(h_psn(&H.q[0]), 2);
	h_rx_all(&H, &H.b);
	assert_int_equal(h_tx(&H, &H.b), 1);
	assert_int_equal(h_opcode(&H.q[0]), RK_OP_ACKNOWLEDGE);
	assert_int_equal(h_psn(&H.q[0]), 2);
	assert_int_equal(h_msn(&H.q[0]), 2);
	h_fini(&H);
}

static void
test_atomics(void **state)
{
	uint64_t v = 40, got;

	(void)state;
	h_init(&H, &(struct h_opts){ .a_psn = 7 });
	memcpy(H.b.mem + 64, &v, 8);
	assert_int_equal(h_post_atomic(&H.a, 8, RK_WR_ATOMIC_FETCH_AND_ADD, 0, h_va(&H.b, 64),
				       rk_ib_mr_rkey(H.b.mr), 2, 0), 0);
	assert_int_equal(h_post_atomic(&H.a, 9, RK_WR_ATOMIC_CMP_AND_SWP, 8, h_va(&H.b, 64),
				       rk_ib_mr_rkey(H.b.mr), 42, 1000), 0);
	assert_int_equal(h_post_atomic(&H.a, 10, RK_WR_ATOMIC_CMP_AND_SWP, 16, h_va(&H.b, 64),
				       rk_ib_mr_rkey(H.b.mr), 42, 5), 0);
	assert_int_equal(h_tx(&H, &H.a), 3);
	assert_int_equal(h_opcode(&H.q[0]), RK_OP_FETCH_ADD);
	assert_int_equal(h_opcode(&H.q[1]), RK_OP_COMPARE_SWAP);
	h_rx_all(&H, &H.b);
	assert_int_equal(h_tx(&H, &H.b), 3);
	assert_int_equal(h_opcode(&H.q[0]), RK_OP_ATOMIC_ACKNOWLEDGE);
	assert_int_equal(h_psn(&H.q[0]), 7);
	assert_int_equal(rk_atmack_orig_rem_dt(h_xeth(&H.q[0], RK_HDR_ATMACK)), 40);
	assert_int_equal(rk_atmack_orig_rem_dt(h_xeth(&H.q[1], RK_HDR_ATMACK)), 42);
	assert_int_equal(rk_atmack_orig_rem_dt(h_xeth(&H.q[2], RK_HDR_ATMACK)), 1000);
	h_rx_all(&H, &H.a);
	expect_wc(H.a.scq, 8, RK_WC_SUCCESS, RK_WC_FETCH_ADD, 8);
	expect_wc(H.a.scq, 9, RK_WC_SUCCESS, RK_WC_COMP_SWAP, 8);
	expect_wc(H.a.scq, 10, RK_WC_SUCCESS, RK_WC_COMP_SWAP, 8);
	memcpy(&got, H.a.mem, 8);
	assert_int_equal(got, 40);
	memcpy(&got, H.a.mem + 8, 8);
	assert_int_equal(got, 42);
	memcpy(&got, H.a.mem + 16, 8);
	assert_int_equal(got, 1000);
	memcpy(&got, H.b.mem + 64, 8);
	assert_int_equal(got, 1000);
	h_fini(&H);
}

static void
test_send_with_invalidate(void **state)
{
	struct rk_ib_mr *mr2;
	struct rk_sge sge;
	struct rk_send_wr wr = { 0 };
	const struct rk_send_wr *bad;
	struct rk_wc wc;

	(void)state;
	h_init(&H, &(struct h_opts){ 0 });
	/* Only an MR registered as invalidatable may be named (MEM-INV-01). */
	mr2 = rk_ib_mr_reg(H.b.pd, H.b.mem + 8192, 4096,
			   RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE |
			   RK_ACCESS_REMOTE_INVALIDATE);
	assert_non_null(mr2);
	assert_int_equal(h_post_recv(&H.b, 1, 0, 64), 0);
	sge = (struct rk_sge){ h_va(&H.a, 0), 8, rk_ib_mr_lkey(H.a.mr) };
	wr.wr_id = 11;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = RK_WR_SEND_WITH_INV;
	wr.invalidate_rkey = rk_ib_mr_rkey(mr2);
	assert_int_equal(rk_ib_post_send(H.a.qp, &wr, &bad), 0);
	assert_int_equal(h_tx(&H, &H.a), 1);
	assert_int_equal(h_opcode(&H.q[0]), RK_OP_SEND_ONLY_INV);
	h_rx_all(&H, &H.b);
	assert_int_equal(h_poll(H.b.rcq, &wc), 1);
	assert_true(wc.wc_flags & RK_WC_WITH_INV);
	assert_int_equal(wc.invalidated_rkey, rk_ib_mr_rkey(mr2));
	h_settle(&H);
	expect_wc(H.a.scq, 11, RK_WC_SUCCESS, RK_WC_SEND, 8);
	/* The invalidated R_Key no longer grants access. */
	assert_int_equal(h_post_send(&H.a, 12, RK_WR_RDMA_WRITE, 0, 8, h_va(&H.b, 8192),
				     rk_ib_mr_rkey(mr2), 0), 0);
	h_settle(&H);
	expect_wc(H.a.scq, 12, RK_WC_REM_ACCESS_ERR, RK_WC_RDMA_WRITE, 0);
	h_fini(&H);
}

static void
test_coalesced_ack(void **state)
{
	(void)state;
	/* ACK-REQ-01: AckReq 0,0,1 (unsignaled middle ones), one ACK completes three WQEs. */
	h_init(&H, &(struct h_opts){ .a_psn = 0xfffffe });
	for (int i = 0; i < 3; i++)
		assert_int_equal(h_post_send(&H.a, 20 + (uint64_t)i, RK_WR_RDMA_WRITE, 0, 8,
					     h_va(&H.b, 0), rk_ib_mr_rkey(H.b.mr), 0), 0);
	assert_int_equal(h_tx(&H, &H.a), 3);
	h_rx_all(&H, &H.b);
	assert_int_equal(h_tx(&H, &H.b), 1);
	assert_int_equal(h_psn(&H.q[0]), 0);
	assert_int_equal(h_msn(&H.q[0]), 3);
	h_rx_all(&H, &H.a);
	expect_wc(H.a.scq, 20, RK_WC_SUCCESS, RK_WC_RDMA_WRITE, 8);
	expect_wc(H.a.scq, 21, RK_WC_SUCCESS, RK_WC_RDMA_WRITE, 8);
	expect_wc(H.a.scq, 22, RK_WC_SUCCESS, RK_WC_RDMA_WRITE, 8);
	h_fini(&H);
}

/*
 * One run of WRITE 64 KiB (two SGEs, so one packet straddles them), READ
 * 40000 B and SEND 9000 B at MTU 4096, every frame either side emits
 * appended to out; the bytes of both sides' memory are checked.
 */
static size_t
sg_run(bool sg, uint8_t *out, size_t cap, unsigned int *by_ref)
{
	struct rk_ib_qp *qp;
	struct rk_sge sge[2];
	struct rk_send_wr wr = { .wr_id = 9, .sg_list = sge, .num_sge = 2,
				 .opcode = RK_WR_RDMA_WRITE, .send_flags = RK_SEND_SIGNALED };
	const struct rk_send_wr *bad;
	size_t used = 0;
	unsigned int moved;

	h_init(&H, &(struct h_opts){ .mtu = RK_MTU_4096, .a_psn = 0xfffffe, .b_psn = 7 });
	H.sg = sg;
	fill(H.a.mem, 0x20000, 3);
	fill(H.b.mem + 0x40000, 40000, 9);
	qp = H.a.qp;
	/* 6000 + 59536 bytes: the second packet has bytes of both SGEs. */
	sge[0] = (struct rk_sge){ h_va(&H.a, 0), 6000, rk_ib_mr_lkey(H.a.mr) };
	sge[1] = (struct rk_sge){ h_va(&H.a, 0x10000), 65536 - 6000, rk_ib_mr_lkey(H.a.mr) };
	wr.wr.rdma.remote_addr = h_va(&H.b, 0x80000);
	wr.wr.rdma.rkey = rk_ib_mr_rkey(H.b.mr);
	assert_int_equal(rk_ib_post_send(qp, &wr, &bad), 0);
	assert_int_equal(h_post_send(&H.a, 10, RK_WR_RDMA_READ, 0x30000, 40000,
				     h_va(&H.b, 0x40000), rk_ib_mr_rkey(H.b.mr), RK_SEND_SIGNALED), 0);
	assert_int_equal(h_post_recv(&H.b, 11, 0xc0000, 16384), 0);
	assert_int_equal(h_post_send(&H.a, 12, RK_WR_SEND, 0x20000, 9000, 0, 0, RK_SEND_SIGNALED), 0);
	do {
		moved = 0;
		for (int side = 0; side < 2; side++) {
			struct h_side *from = side ? &H.b : &H.a, *to = side ? &H.a : &H.b;

			moved += h_tx(&H, from);
			for (unsigned int i = 0; i < H.n; i++) {
				uint8_t *c = out + used + 4;
				struct rk_pkt p;
				uint8_t *reth;

				assert_true(used + H.q[i].len + 4 <= cap);
				memcpy(out + used, &H.q[i].len, 4);
				memcpy(c, H.q[i].data, H.q[i].len);
				used += 4 + H.q[i].len;
				/* Every frame well formed, its ICRC right ... */
				h_parse(&H.q[i], &p);
				assert_int_equal(p.icrc_status, RK_ICRC_GOOD);
				assert_int_equal(p.findings.count, 0);
				/* ... then the run's buffer addresses (and so the ICRC) left out. */
				if ((reth = (uint8_t *)(uintptr_t)rk_pkt_xeth(&p, RK_HDR_RETH)) != NULL)
					memset(c + (reth - H.q[i].data), 0, 8);
				memset(c + p.icrc_off, 0, RK_ICRC_LEN);
			}
			h_rx_all(&H, to);
		}
	} while (moved > 0);
	expect_wc(H.a.scq, 9, RK_WC_SUCCESS, RK_WC_RDMA_WRITE, 65536);
	expect_wc(H.a.scq, 10, RK_WC_SUCCESS, RK_WC_RDMA_READ, 40000);
	expect_wc(H.a.scq, 12, RK_WC_SUCCESS, RK_WC_SEND, 9000);
	expect_wc(H.b.rcq, 11, RK_WC_SUCCESS, RK_WC_RECV, 9000);
	assert_memory_equal(H.b.mem + 0x80000, H.a.mem, 6000);
	assert_memory_equal(H.b.mem + 0x80000 + 6000, H.a.mem + 0x10000, 65536 - 6000);
	assert_memory_equal(H.a.mem + 0x30000, H.b.mem + 0x40000, 40000);
	assert_memory_equal(H.b.mem + 0xc0000, H.a.mem + 0x20000, 9000);
	*by_ref = H.sg_frames;
	h_fini(&H);
	return used;
}

/*
 * Payloads passed by reference make the very frames copying makes (but
 * for the VA of this run's buffers), with right ICRCs.
 */
static void
test_sg_frames_identical(void **state)
{
	static uint8_t copied[1u << 20], by_ref[1u << 20];
	unsigned int n_copy, n_ref;
	size_t a, b;

	(void)state;
	a = sg_run(false, copied, sizeof(copied), &n_copy);
	b = sg_run(true, by_ref, sizeof(by_ref), &n_ref);
	assert_int_equal(n_copy, 0);
	/*
	 * By reference: 15 of the WRITE's 16 packets (the second straddles the
	 * SGEs and is copied), the 10 READ responses, the SEND's 3 (the last
	 * carries 808 B, over RK_IB_SG_MIN).
	 */
	assert_int_equal(n_ref, 15 + 10 + 3);
	assert_int_equal(a, b);
	assert_memory_equal(copied, by_ref, a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sg_frames_identical),
		cmocka_unit_test(test_send_only),
		cmocka_unit_test(test_send_multi_imm),
		cmocka_unit_test(test_write_and_imm),
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_atomics),
		cmocka_unit_test(test_send_with_invalidate),
		cmocka_unit_test(test_coalesced_ack),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
