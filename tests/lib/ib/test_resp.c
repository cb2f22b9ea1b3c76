/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Responder scenarios (lib/ib/rk_resp*.c): forged requests go to QP B, the
 * test asserts every packet B answers with (opcode, PSN, syndrome, MSN)
 * and B's completions. Rule IDs are those of doc/spec-rules.md.
 */
#include "rk_test.h"

#include "rk_ib_harness.h"

static struct harness H;
static struct h_frame F;

#define EPSN 1000

static void
setup_opts(const struct h_opts *o)
{
	h_init(&H, o);
}

static void
setup(void)
{
	setup_opts(&(struct h_opts){ .a_psn = EPSN, .min_rnr_timer = 14 });
}

/* Forge a request from A to B and deliver it. */
static void
req(uint8_t opcode, uint32_t psn, bool ack_req, const struct rk_xeth_fields *x,
    const void *payload, uint32_t len)
{
	h_craft(&H, &F, &H.a, &H.b, opcode, psn, ack_req, x, payload, len);
	h_rx(&H, &H.b, &F);
}

static void
expect_one(uint8_t opcode, uint32_t psn, uint8_t syndrome)
{
	assert_int_equal(h_tx(&H, &H.b), 1);
	assert_int_equal(h_opcode(&H.q[0]), opcode);
	assert_int_equal(h_psn(&H.q[0]), psn);
	assert_int_equal(h_syndrome(&H.q[0]), syndrome);
}

static void
expect_silence(void)
{
	assert_int_equal(h_tx(&H, &H.b), 0);
}

static uint32_t
rkey(void)
{
	return rk_ib_mr_rkey(H.b.mr);
}

/* A QP in ERR answers nothing: the wire-visible proof of QPERR. */
static void
expect_qperr(uint32_t next_psn)
{
	assert_int_equal(rk_ib_qp_state(H.b.qp), RK_QPS_ERR);
	req(RK_OP_RDMA_WRITE_ONLY, next_psn, true, h_reth(h_va(&H.b, 0), rkey(), 4), "abcd", 4);
	expect_silence();
}

static uint8_t
nak(uint8_t code)
{
	return RK_AETH_TYPE_NAK | code;
}

/* ------------------------------------------------------------ sequence */

static void
test_psn_expected(void **state)
{
	struct rk_wc wc;

	(void)state;
	setup();
	for (int i = 0; i < 6; i++)
		h_post_recv(&H.b, 1 + (uint64_t)i, 0, 256);
	req(RK_OP_SEND_ONLY, EPSN, true, NULL, "hello", 5);
	/* PSN-EXP-01: ACK(ePSN), MSN 1; credits: 5 receive WQEs left -> code 4. */
	expect_one(RK_OP_ACKNOWLEDGE, EPSN, 0x04);
	assert_int_equal(h_msn(&H.q[0]), 1);
	assert_int_equal(h_poll(H.b.rcq, &wc), 1);
	assert_int_equal(wc.byte_len, 5);
	assert_memory_equal(H.b.mem, "hello", 5);
	h_fini(&H);
}

static void
test_psn_gap_once(void **state)
{
	struct rk_wc wc;

	(void)state;
	setup();
	for (int i = 0; i < 8; i++)
		h_post_recv(&H.b, 1 + (uint64_t)i, 0, 256);
	/* PSN-GAP-01/02: one NAK-SEQ(ePSN) for 3 out-of-order packets, nothing executed. */
	req(RK_OP_SEND_ONLY, EPSN + 1, true, NULL, "x", 1);
	req(RK_OP_SEND_ONLY, EPSN + 2, true, NULL, "x", 1);
	req(RK_OP_SEND_ONLY, EPSN + 3, true, NULL, "x", 1);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN, nak(RK_AETH_NAK_PSN_SEQ_ERR));
	assert_int_equal(h_msn(&H.q[0]), 0);
	assert_int_equal(h_poll(H.b.rcq, &wc), 0);
	req(RK_OP_SEND_ONLY, EPSN + 2, true, NULL, "x", 1);
	expect_silence();
	assert_int_equal(rk_ib_qp_state(H.b.qp), RK_QPS_RTS);
	/* ePSN arrives, then a new gap NAKs again with the new ePSN. */
	req(RK_OP_SEND_ONLY, EPSN, true, NULL, "x", 1);
	req(RK_OP_SEND_ONLY, EPSN + 2, true, NULL, "x", 1);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN + 1, nak(RK_AETH_NAK_PSN_SEQ_ERR));
	assert_int_equal(h_msn(&H.q[0]), 1);
	assert_int_equal(rk_ib_dev_stats(H.b.dev)->resp_nak_seq, 2);
	h_fini(&H);
}

static void
test_duplicate_send(void **state)
{
	struct rk_wc wc;

	(void)state;
	setup();
	h_post_recv(&H.b, 1, 0, 256);
	h_post_recv(&H.b, 2, 256, 256);
	req(RK_OP_SEND_ONLY, EPSN, true, NULL, "aaaa", 4);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN, 0x01);
	/* PSN-DUP-01/02: re-ACK with AckReq 0, not re-executed. */
	req(RK_OP_SEND_ONLY, EPSN, false, NULL, "bbbb", 4);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN, 0x01);
	assert_int_equal(h_msn(&H.q[0]), 1);
	assert_int_equal(h_poll(H.b.rcq, &wc), 1);
	assert_int_equal(h_poll(H.b.rcq, &wc), 0);
	assert_memory_equal(H.b.mem + 256, "\0\0\0\0", 4);
	/* A duplicate WRITE does not write again. */
	req(RK_OP_RDMA_WRITE_ONLY, EPSN + 1, true, h_reth(h_va(&H.b, 600), rkey(), 4), "1111", 4);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN + 1, 0x01);
	req(RK_OP_RDMA_WRITE_ONLY, EPSN + 1, false, h_reth(h_va(&H.b, 600), rkey(), 4), "2222", 4);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN + 1, 0x01);
	assert_memory_equal(H.b.mem + 600, "1111", 4);
	h_fini(&H);
}

static void
test_psn_half_window(void **state)
{
	(void)state;
	setup_opts(&(struct h_opts){ .a_psn = 0x100 });
	h_post_recv(&H.b, 1, 0, 256);
	/* PSN-HALF-01: 2^23-1 ahead is a gap; 2^23 behind is a duplicate. */
	req(RK_OP_SEND_ONLY, 0x100 + 0x7fffff, true, NULL, "x", 1);
	expect_one(RK_OP_ACKNOWLEDGE, 0x100, nak(RK_AETH_NAK_PSN_SEQ_ERR));
	req(RK_OP_SEND_ONLY, (0x100 - 0x800000) & RK_PSN_MASK, true, NULL, "x", 1);
	expect_one(RK_OP_ACKNOWLEDGE, 0xff, 0x01);
	h_fini(&H);
}

static void
test_psn_wrap(void **state)
{
	struct rk_wc wc;

	(void)state;
	setup_opts(&(struct h_opts){ .a_psn = 0xfffffe });
	for (int i = 0; i < 3; i++)
		h_post_recv(&H.b, 1 + (uint64_t)i, (uint32_t)i * 256, 256);
	/* PSN-WRAP-01 with ACK-REQ-01: one coalesced ACK(0), MSN 3. */
	req(RK_OP_SEND_ONLY, 0xfffffe, false, NULL, "a", 1);
	req(RK_OP_SEND_ONLY, 0xffffff, false, NULL, "b", 1);
	req(RK_OP_SEND_ONLY, 0x000000, true, NULL, "c", 1);
	expect_one(RK_OP_ACKNOWLEDGE, 0, 0x00);
	assert_int_equal(h_msn(&H.q[0]), 3);
	for (int i = 0; i < 3; i++)
		assert_int_equal(h_poll(H.b.rcq, &wc), 1);
	/* PSN-WRAP-02: ePSN 1, 0xFFFFFF again is a duplicate, not a gap. */
	req(RK_OP_SEND_ONLY, 0xffffff, true, NULL, "b", 1);
	expect_one(RK_OP_ACKNOWLEDGE, 0, 0x00);
	assert_int_equal(rk_ib_dev_stats(H.b.dev)->resp_nak_seq, 0);
	h_fini(&H);
}

static void
test_msn_counts_messages(void **state)
{
	uint8_t buf[1024] = { 0 };

	(void)state;
	setup();
	h_post_recv(&H.b, 1, 0, 4096);
	/* ACK-MSN-01: MSN changes only on LAST. */
	req(RK_OP_SEND_FIRST, EPSN, true, NULL, buf, 1024);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN, 0x00);
	assert_int_equal(h_msn(&H.q[0]), 0);
	req(RK_OP_SEND_MIDDLE, EPSN + 1, true, NULL, buf, 1024);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN + 1, 0x00);
	assert_int_equal(h_msn(&H.q[0]), 0);
	req(RK_OP_SEND_LAST, EPSN + 2, true, NULL, buf, 10);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN + 2, 0x00);
	assert_int_equal(h_msn(&H.q[0]), 1);
	h_fini(&H);
}

/* ----------------------------------------------------------------- RNR */

static void
test_rnr(void **state)
{
	struct rk_wc wc;

	(void)state;
	setup();
	/* RNR-GEN-01: no receive WQE -> RNR(min_rnr_timer 14), PSN of the request. */
	req(RK_OP_SEND_ONLY, EPSN, true, NULL, "x", 1);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN, RK_AETH_TYPE_RNR_NAK | 14);
	assert_int_equal(h_msn(&H.q[0]), 0);
	/* RNR-GEN-04: pipelined packets after it are neither executed nor NAKed. */
	req(RK_OP_SEND_ONLY, EPSN + 1, true, NULL, "y", 1);
	req(RK_OP_SEND_ONLY, EPSN + 2, true, NULL, "z", 1);
	expect_silence();
	assert_int_equal(rk_ib_qp_state(H.b.qp), RK_QPS_RTS);
	h_post_recv(&H.b, 1, 0, 16);
	req(RK_OP_SEND_ONLY, EPSN, true, NULL, "x", 1);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN, 0x00);
	assert_int_equal(h_poll(H.b.rcq, &wc), 1);
	assert_int_equal(wc.wr_id, 1);
	h_fini(&H);
}

static void
test_rnr_write(void **state)
{
	(void)state;
	setup();
	/* RNR-GEN-02: WRITE needs no WQE. RNR-GEN-03: WRITE with immediate does. */
	req(RK_OP_RDMA_WRITE_ONLY, EPSN, true, h_reth(h_va(&H.b, 0), rkey(), 4), "abcd", 4);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN, 0x00);
	req(RK_OP_RDMA_WRITE_ONLY_IMM, EPSN + 1, true, h_reth(h_va(&H.b, 0), rkey(), 4), "abcd", 4);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN + 1, RK_AETH_TYPE_RNR_NAK | 14);
	h_fini(&H);
}

/* ---------------------------------------------------------------- READ */

static void
test_read_zero(void **state)
{
	(void)state;
	setup();
	/* READ-ZERO-01 (C9-88): no R_Key check for length 0. */
	req(RK_OP_RDMA_READ_REQUEST, EPSN, false, h_reth(0, 0, 0), NULL, 0);
	expect_one(RK_OP_RDMA_READ_RESPONSE_ONLY, EPSN, 0x00);
	assert_int_equal(h_payload_len(&H.q[0]), 0);
	assert_int_equal(h_msn(&H.q[0]), 1);
	h_fini(&H);
}

static void
test_read_duplicate_partial(void **state)
{
	uint32_t len = 3 * 1024 + 100;

	(void)state;
	setup();
	rk_test_fill(H.b.mem + 10000, len);
	req(RK_OP_RDMA_READ_REQUEST, EPSN, false, h_reth(h_va(&H.b, 10000), rkey(), len), NULL, 0);
	assert_int_equal(h_tx(&H, &H.b), 4);
	/* READ-DUP-02: re-read from PSN+2 with VA + 2 PMTU: responses start there. */
	req(RK_OP_RDMA_READ_REQUEST, EPSN + 2, false,
	    h_reth(h_va(&H.b, 10000 + 2048), rkey(), len - 2048), NULL, 0);
	assert_int_equal(h_tx(&H, &H.b), 2);
	assert_int_equal(h_opcode(&H.q[0]), RK_OP_RDMA_READ_RESPONSE_MIDDLE);
	assert_int_equal(h_psn(&H.q[0]), EPSN + 2);
	assert_memory_equal(h_xeth(&H.q[0], RK_HDR_AETH) == NULL ?
			    H.q[0].data + 14 + 20 + 8 + 12 : NULL, H.b.mem + 10000 + 2048, 1024);
	assert_int_equal(h_opcode(&H.q[1]), RK_OP_RDMA_READ_RESPONSE_LAST);
	assert_int_equal(h_psn(&H.q[1]), EPSN + 3);
	assert_int_equal(h_payload_len(&H.q[1]), 100);
	/* READ-DUP-01: whole replay reflects the current memory. */
	H.b.mem[10000] ^= 0xff;
	req(RK_OP_RDMA_READ_REQUEST, EPSN, false, h_reth(h_va(&H.b, 10000), rkey(), len), NULL, 0);
	assert_int_equal(h_tx(&H, &H.b), 4);
	assert_int_equal(H.q[0].data[14 + 20 + 8 + 12 + 4], H.b.mem[10000]);
	/* READ-DUP-03: a duplicate whose range does not match is dropped. */
	req(RK_OP_RDMA_READ_REQUEST, EPSN + 1, false, h_reth(h_va(&H.b, 10000), rkey(), len), NULL, 0);
	expect_silence();
	assert_int_equal(rk_ib_qp_state(H.b.qp), RK_QPS_RTS);
	h_fini(&H);
}

static void
test_read_next_psn(void **state)
{
	(void)state;
	setup();
	h_post_recv(&H.b, 1, 0, 64);
	/* READ-NEXT-01: after a 3-packet READ at p, p+1 is out of sequence. */
	req(RK_OP_RDMA_READ_REQUEST, EPSN, false, h_reth(h_va(&H.b, 0), rkey(), 3000), NULL, 0);
	assert_int_equal(h_tx(&H, &H.b), 3);
	req(RK_OP_SEND_ONLY, EPSN + 1, true, NULL, "x", 1);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN + 3, nak(RK_AETH_NAK_PSN_SEQ_ERR));
	h_fini(&H);
}

static void
test_read_dmalen(void **state)
{
	(void)state;
	setup();
	/* MEM-DMALEN-01 (C9-94): DMALen 2^31 + 1 is an invalid request. */
	req(RK_OP_RDMA_READ_REQUEST, EPSN, false, h_reth(h_va(&H.b, 0), rkey(), 0x80000001u),
	    NULL, 0);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN, nak(RK_AETH_NAK_INVALID_REQUEST));
	expect_qperr(EPSN + 1);
	h_fini(&H);
}

/* -------------------------------------------------------------- ATOMIC */

static void
test_atomic_duplicate(void **state)
{
	uint64_t v = 100, got;

	(void)state;
	setup();
	memcpy(H.b.mem + 800, &v, 8);
	/* ATOM-DUP-01: the repeat returns the saved value; memory changes once. */
	req(RK_OP_FETCH_ADD, EPSN, false, h_atm(h_va(&H.b, 800), rkey(), 5, 0), NULL, 0);
	expect_one(RK_OP_ATOMIC_ACKNOWLEDGE, EPSN, 0x00);
	assert_int_equal(rk_atmack_orig_rem_dt(h_xeth(&H.q[0], RK_HDR_ATMACK)), 100);
	req(RK_OP_FETCH_ADD, EPSN, false, h_atm(h_va(&H.b, 800), rkey(), 5, 0), NULL, 0);
	expect_one(RK_OP_ATOMIC_ACKNOWLEDGE, EPSN, 0x00);
	assert_int_equal(rk_atmack_orig_rem_dt(h_xeth(&H.q[0], RK_HDR_ATMACK)), 100);
	memcpy(&got, H.b.mem + 800, 8);
	assert_int_equal(got, 105);
	h_fini(&H);
}

static void
test_atomic_misaligned(void **state)
{
	(void)state;
	setup();
	/* ATOM-ALIGN-01 */
	req(RK_OP_FETCH_ADD, EPSN, false, h_atm(h_va(&H.b, 804), rkey(), 1, 0), NULL, 0);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN, nak(RK_AETH_NAK_INVALID_REQUEST));
	expect_qperr(EPSN + 1);
	h_fini(&H);
}

static void
test_responder_resources(void **state)
{
	(void)state;
	setup_opts(&(struct h_opts){ .a_psn = EPSN, .rd_atomic = 2 });
	/*
	 * ATOM-RES-01: a third READ/ATOMIC in flight with 2 resources is
	 * invalid; the two before it are still answered first (READ-RESP-01).
	 */
	req(RK_OP_RDMA_READ_REQUEST, EPSN, false, h_reth(h_va(&H.b, 0), rkey(), 8), NULL, 0);
	req(RK_OP_COMPARE_SWAP, EPSN + 1, false, h_atm(h_va(&H.b, 64), rkey(), 1, 0), NULL, 0);
	req(RK_OP_RDMA_READ_REQUEST, EPSN + 2, false, h_reth(h_va(&H.b, 0), rkey(), 8), NULL, 0);
	assert_int_equal(h_tx(&H, &H.b), 3);
	assert_int_equal(h_opcode(&H.q[0]), RK_OP_RDMA_READ_RESPONSE_ONLY);
	assert_int_equal(h_psn(&H.q[0]), EPSN);
	assert_int_equal(h_opcode(&H.q[1]), RK_OP_ATOMIC_ACKNOWLEDGE);
	assert_int_equal(h_psn(&H.q[1]), EPSN + 1);
	assert_int_equal(h_opcode(&H.q[2]), RK_OP_ACKNOWLEDGE);
	assert_int_equal(h_psn(&H.q[2]), EPSN + 2);
	assert_int_equal(h_syndrome(&H.q[2]), nak(RK_AETH_NAK_INVALID_REQUEST));
	assert_int_equal(rk_ib_qp_state(H.b.qp), RK_QPS_ERR);
	expect_silence();
	h_fini(&H);
	/* Answered resources are reused: six sequential READs with 2 resources. */
	setup_opts(&(struct h_opts){ .a_psn = EPSN, .rd_atomic = 2 });
	for (uint32_t i = 0; i < 6; i++) {
		req(RK_OP_RDMA_READ_REQUEST, EPSN + i, false, h_reth(h_va(&H.b, 0), rkey(), 8),
		    NULL, 0);
		expect_one(RK_OP_RDMA_READ_RESPONSE_ONLY, EPSN + i, 0x00);
	}
	h_fini(&H);
}

static void
test_replay_slot_is_not_in_flight(void **state)
{
	(void)state;
	/*
	 * A duplicate READ re-arms an answered resource; a new READ that needs
	 * that slot (the requester completed the old one) is not an excess
	 * request: found by the reorder cell of the impairment matrix.
	 */
	setup_opts(&(struct h_opts){ .a_psn = EPSN, .rd_atomic = 2 });
	req(RK_OP_RDMA_READ_REQUEST, EPSN, false, h_reth(h_va(&H.b, 0), rkey(), 8), NULL, 0);
	expect_one(RK_OP_RDMA_READ_RESPONSE_ONLY, EPSN, 0x00);
	req(RK_OP_RDMA_READ_REQUEST, EPSN + 1, false, h_reth(h_va(&H.b, 0), rkey(), 8), NULL, 0);
	expect_one(RK_OP_RDMA_READ_RESPONSE_ONLY, EPSN + 1, 0x00);
	req(RK_OP_RDMA_READ_REQUEST, EPSN, false, h_reth(h_va(&H.b, 0), rkey(), 8), NULL, 0);
	req(RK_OP_FETCH_ADD, EPSN + 2, false, h_atm(h_va(&H.b, 64), rkey(), 1, 0), NULL, 0);
	expect_one(RK_OP_ATOMIC_ACKNOWLEDGE, EPSN + 2, 0x00);
	assert_int_equal(rk_ib_qp_state(H.b.qp), RK_QPS_RTS);
	h_fini(&H);
}

static void
test_qp_access_vs_mr_access(void **state)
{
	struct rk_ib_mr *ro;

	(void)state;
	/* ATOM-QPACC-01: QP without REMOTE_ATOMIC -> NAK-INV. */
	setup_opts(&(struct h_opts){ .a_psn = EPSN,
				     .access = RK_ACCESS_REMOTE_WRITE | RK_ACCESS_REMOTE_READ });
	req(RK_OP_COMPARE_SWAP, EPSN, false, h_atm(h_va(&H.b, 64), rkey(), 1, 0), NULL, 0);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN, nak(RK_AETH_NAK_INVALID_REQUEST));
	h_fini(&H);
	/* ... MR without it -> NAK-RACC; MEM-ACC-01 for WRITE and READ too. */
	setup();
	ro = rk_ib_mr_reg(H.b.pd, H.b.mem + 4096, 4096, RK_ACCESS_REMOTE_READ);
	req(RK_OP_COMPARE_SWAP, EPSN, false, h_atm(h_va(&H.b, 4096), rk_ib_mr_rkey(ro), 1, 0),
	    NULL, 0);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN, nak(RK_AETH_NAK_REMOTE_ACCESS_ERR));
	h_fini(&H);
	setup();
	ro = rk_ib_mr_reg(H.b.pd, H.b.mem + 4096, 4096, RK_ACCESS_REMOTE_READ);
	req(RK_OP_RDMA_WRITE_ONLY, EPSN, true, h_reth(h_va(&H.b, 4096), rk_ib_mr_rkey(ro), 4),
	    "abcd", 4);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN, nak(RK_AETH_NAK_REMOTE_ACCESS_ERR));
	assert_memory_equal(H.b.mem + 4096, "\0\0\0\0", 4);
	h_fini(&H);
	setup();
	ro = rk_ib_mr_reg(H.b.pd, H.b.mem + 4096, 4096,
			  RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE);
	req(RK_OP_RDMA_READ_REQUEST, EPSN, false, h_reth(h_va(&H.b, 4096), rk_ib_mr_rkey(ro), 4),
	    NULL, 0);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN, nak(RK_AETH_NAK_REMOTE_ACCESS_ERR));
	h_fini(&H);
}

/* ------------------------------------------------------------- memory */

static void
test_rkey_checks(void **state)
{
	struct rk_ib_pd *pd2;
	struct rk_ib_mr *other;

	(void)state;
	/* MEM-RKEY-01 */
	setup();
	req(RK_OP_RDMA_WRITE_ONLY, EPSN, true, h_reth(h_va(&H.b, 0), rkey() ^ 0x100, 4), "abcd", 4);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN, nak(RK_AETH_NAK_REMOTE_ACCESS_ERR));
	expect_qperr(EPSN + 1);
	h_fini(&H);
	/* MEM-BOUNDS-01: VA = end - 4, length 8. */
	setup();
	req(RK_OP_RDMA_WRITE_ONLY, EPSN, true, h_reth(h_va(&H.b, H_MEM - 4), rkey(), 8),
	    "abcdefgh", 8);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN, nak(RK_AETH_NAK_REMOTE_ACCESS_ERR));
	h_fini(&H);
	/* MEM-PD-01: a valid R_Key from another PD. */
	setup();
	pd2 = rk_ib_pd_alloc(H.b.dev);
	other = rk_ib_mr_reg(pd2, H.b.mem, 4096, RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE);
	req(RK_OP_RDMA_WRITE_ONLY, EPSN, true, h_reth(h_va(&H.b, 0), rk_ib_mr_rkey(other), 4),
	    "abcd", 4);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN, nak(RK_AETH_NAK_REMOTE_ACCESS_ERR));
	h_fini(&H);
	/* MEM-ZERO-01 (C9-88): length 0 with a bogus R_Key is fine. */
	setup();
	req(RK_OP_RDMA_WRITE_ONLY, EPSN, true, h_reth(0, 0xdead, 0), NULL, 0);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN, 0x00);
	h_fini(&H);
}

static void
test_va_wrap(void **state)
{
	struct rk_ib_mr *top;
	uint8_t payload[16] = { 0 };

	(void)state;
	/* VA + length wrapping past 2^64 must be a remote access error, not a hit. */
	setup();
	req(RK_OP_RDMA_WRITE_ONLY, EPSN, true, h_reth(UINT64_MAX - 7, rkey(), 16), payload, 16);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN, nak(RK_AETH_NAK_REMOTE_ACCESS_ERR));
	h_fini(&H);
	setup();
	top = rk_ib_mr_reg(H.b.pd, H.b.mem, H_MEM, RK_ACCESS_REMOTE_READ);
	req(RK_OP_RDMA_READ_REQUEST, EPSN, false,
	    h_reth(h_va(&H.b, 8) + (UINT64_MAX - h_va(&H.b, 0)), rk_ib_mr_rkey(top), 0x80000000u),
	    NULL, 0);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN, nak(RK_AETH_NAK_REMOTE_ACCESS_ERR));
	h_fini(&H);
	setup();
	req(RK_OP_FETCH_ADD, EPSN, false, h_atm(UINT64_MAX - 7, rkey(), 1, 0), NULL, 0);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN, nak(RK_AETH_NAK_REMOTE_ACCESS_ERR));
	h_fini(&H);
}

/* ------------------------------------------------------------- lengths */

static void
test_lengths(void **state)
{
	uint8_t buf[1028] = { 0 };

	(void)state;
	/* LEN-MTU-01: SEND FIRST with PMTU - 4. */
	setup();
	h_post_recv(&H.b, 1, 0, 4096);
	req(RK_OP_SEND_FIRST, EPSN, false, NULL, buf, 1020);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN, nak(RK_AETH_NAK_INVALID_REQUEST));
	h_fini(&H);
	/* LEN-MTU-02: SEND ONLY with PMTU + 4. */
	setup();
	h_post_recv(&H.b, 1, 0, 4096);
	req(RK_OP_SEND_ONLY, EPSN, false, NULL, buf, 1028);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN, nak(RK_AETH_NAK_INVALID_REQUEST));
	h_fini(&H);
	/* LEN-LAST-01: SEND LAST with 0 bytes. */
	setup();
	h_post_recv(&H.b, 1, 0, 4096);
	req(RK_OP_SEND_FIRST, EPSN, false, NULL, buf, 1024);
	req(RK_OP_SEND_LAST, EPSN + 1, true, NULL, NULL, 0);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN + 1, nak(RK_AETH_NAK_INVALID_REQUEST));
	h_fini(&H);
	/* LEN-WR-01: WRITE FIRST + LAST 100 bytes short of DMALen. */
	setup();
	req(RK_OP_RDMA_WRITE_FIRST, EPSN, false, h_reth(h_va(&H.b, 0), rkey(), 1224), buf, 1024);
	req(RK_OP_RDMA_WRITE_LAST, EPSN + 1, true, NULL, buf, 100);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN + 1, nak(RK_AETH_NAK_INVALID_REQUEST));
	h_fini(&H);
}

static void
test_receive_too_small(void **state)
{
	uint8_t buf[1024] = { 0 };
	struct rk_wc wc;

	(void)state;
	/* LEN-RQ-01: 4 KiB SEND into a 1 KiB buffer. */
	setup();
	h_post_recv(&H.b, 5, 0, 1024);
	req(RK_OP_SEND_FIRST, EPSN, false, NULL, buf, 1024);
	req(RK_OP_SEND_MIDDLE, EPSN + 1, false, NULL, buf, 1024);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN + 1, nak(RK_AETH_NAK_INVALID_REQUEST));
	assert_int_equal(h_poll(H.b.rcq, &wc), 1);
	assert_int_equal(wc.wr_id, 5);
	assert_int_equal(wc.status, RK_WC_LOC_LEN_ERR);
	expect_qperr(EPSN + 2);
	h_fini(&H);
}

static void
test_opcode_sequence(void **state)
{
	uint8_t buf[1024] = { 0 };

	(void)state;
	/* OPSEQ-01: MIDDLE with no FIRST. */
	setup();
	h_post_recv(&H.b, 1, 0, 4096);
	req(RK_OP_SEND_MIDDLE, EPSN, false, NULL, buf, 1024);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN, nak(RK_AETH_NAK_INVALID_REQUEST));
	h_fini(&H);
	/* OPSEQ-02: a new message before LAST. */
	setup();
	h_post_recv(&H.b, 1, 0, 4096);
	req(RK_OP_SEND_FIRST, EPSN, false, NULL, buf, 1024);
	req(RK_OP_RDMA_WRITE_ONLY, EPSN + 1, true, h_reth(h_va(&H.b, 0), rkey(), 4), buf, 4);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN + 1, nak(RK_AETH_NAK_INVALID_REQUEST));
	h_fini(&H);
}

/* --------------------------------------------------- malformed frames */

static void
test_reserved_opcode(void **state)
{
	(void)state;
	/* BTH-OPC-02: reserved RC opcode 0x19 at ePSN -> NAK-INV, QPERR. */
	setup();
	req(0x19, EPSN, true, NULL, NULL, 0);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN, nak(RK_AETH_NAK_INVALID_REQUEST));
	expect_qperr(EPSN + 1);
	h_fini(&H);
}

/* Re-type a SEND ONLY frame as opcode op without room for op's headers. */
static void
short_frame(uint8_t op, uint32_t psn)
{
	struct rk_pkt p;

	h_craft(&H, &F, &H.a, &H.b, RK_OP_SEND_ONLY, psn, true, NULL, "abcdefgh", 8);
	F.data[14 + 20 + 8] = op;
	rk_pkt_parse(&p, F.data, F.len, F.len, RK_LINK_ETHERNET,
		     &(struct rk_parse_opts){ .check_icrc = false });
	rk_pkt_fix_icrc(&p, F.data);
	h_rx(&H, &H.b, &F);
}

static void
test_too_short_never_reaches_lengths(void **state)
{
	static const uint8_t ops[] = {
		RK_OP_RDMA_WRITE_ONLY, RK_OP_RDMA_WRITE_FIRST, RK_OP_RDMA_READ_REQUEST,
		RK_OP_COMPARE_SWAP, RK_OP_FETCH_ADD, RK_OP_RDMA_WRITE_ONLY_IMM,
		RK_OP_ATOMIC_ACKNOWLEDGE,
	};
	struct rk_pkt p;

	(void)state;
	setup();
	h_post_recv(&H.b, 1, 0, 64);
	for (unsigned int i = 0; i < sizeof(ops); i++)
		short_frame(ops[i], EPSN);
	expect_silence();
	assert_int_equal(rk_ib_dev_stats(H.b.dev)->rx_drop_malformed, sizeof(ops));
	/* Truncated capture: caplen < wirelen. */
	h_craft(&H, &F, &H.a, &H.b, RK_OP_SEND_ONLY, EPSN, true, NULL, "abcdefgh", 8);
	rk_pkt_parse(&p, F.data, F.len - 6, F.len, RK_LINK_ETHERNET, NULL);
	rk_ib_rx(H.b.dev, &p, H.now);
	expect_silence();
	/* The QP is untouched: the real request is answered. */
	assert_int_equal(rk_ib_qp_state(H.b.qp), RK_QPS_RTS);
	req(RK_OP_SEND_ONLY, EPSN, true, NULL, "abcdefgh", 8);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN, 0x00);
	h_fini(&H);
}

static void
test_bad_icrc(void **state)
{
	(void)state;
	setup();
	h_post_recv(&H.b, 1, 0, 64);
	/* ICRC-01/05: dropped, no NAK even though it would open a gap. */
	h_craft(&H, &F, &H.a, &H.b, RK_OP_SEND_ONLY, EPSN + 1, true, NULL, "x", 1);
	F.data[F.len - 1] ^= 1;
	h_rx(&H, &H.b, &F);
	expect_silence();
	assert_int_equal(rk_ib_dev_stats(H.b.dev)->rx_drop_icrc, 1);
	req(RK_OP_SEND_ONLY, EPSN, true, NULL, "x", 1);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN, 0x00);
	h_fini(&H);
}

static void
test_wrong_qp_and_pkey(void **state)
{
	(void)state;
	setup();
	h_post_recv(&H.b, 1, 0, 64);
	/* BTH-QPN-02 */
	h_craft(&H, &F, &H.a, &H.b, RK_OP_SEND_ONLY, EPSN, true, NULL, "x", 1);
	rk_bth_set_dest_qp(F.data + 42, 0x777);
	{
		struct rk_pkt p;

		h_parse(&F, &p);
		rk_pkt_fix_icrc(&p, F.data);
	}
	h_rx(&H, &H.b, &F);
	/* BTH-PKEY-01 */
	h_craft(&H, &F, &H.a, &H.b, RK_OP_SEND_ONLY, EPSN, true, NULL, "x", 1);
	rk_bth_set_p_key(F.data + 42, 0x1234);
	{
		struct rk_pkt p;

		h_parse(&F, &p);
		rk_pkt_fix_icrc(&p, F.data);
	}
	h_rx(&H, &H.b, &F);
	/* BTH-OPC-01: UC opcode to an RC QP. */
	req(RK_OP_TR_UC | RK_OP_SEND_ONLY, EPSN, true, NULL, "x", 1);
	expect_silence();
	assert_int_equal(rk_ib_dev_stats(H.b.dev)->rx_drop_qp, 3);
	h_fini(&H);
}

/* ------------------------------------------------------------ UC, UD */

static void
test_uc_class_d(void **state)
{
	struct rk_wc wc;

	(void)state;
	setup_opts(&(struct h_opts){ .type = RK_QPT_UC, .a_psn = EPSN });
	/* MEM-UC-01: a bad R_Key drops the message, the QP lives on. */
	req(RK_OP_TR_UC | RK_OP_RDMA_WRITE_ONLY, EPSN, true, h_reth(h_va(&H.b, 0), 0x1, 4), "abcd",
	    4);
	req(RK_OP_TR_UC | RK_OP_RDMA_WRITE_ONLY, EPSN + 1, true, h_reth(h_va(&H.b, 0), rkey(), 4),
	    "wxyz", 4);
	/* ACK-UCUD-01: no ACK on UC. */
	expect_silence();
	assert_memory_equal(H.b.mem, "wxyz", 4);
	assert_int_equal(rk_ib_qp_state(H.b.qp), RK_QPS_RTS);
	/* A lost middle packet loses the message; the next message is accepted. */
	h_post_recv(&H.b, 1, 4096, 4096);
	h_post_recv(&H.b, 2, 8192, 4096);
	{
		uint8_t buf[1024];

		memset(buf, 0x5a, sizeof(buf));
		req(RK_OP_TR_UC | RK_OP_SEND_FIRST, EPSN + 2, false, NULL, buf, 1024);
		req(RK_OP_TR_UC | RK_OP_SEND_LAST, EPSN + 4, false, NULL, buf, 10);
		req(RK_OP_TR_UC | RK_OP_SEND_ONLY, EPSN + 9, false, NULL, "only", 4);
	}
	assert_int_equal(h_poll(H.b.rcq, &wc), 1);
	assert_int_equal(wc.wr_id, 1);
	assert_int_equal(wc.byte_len, 4);
	assert_memory_equal(H.b.mem + 4096, "only", 4);
	assert_int_equal(h_poll(H.b.rcq, &wc), 0);
	h_fini(&H);
}

static void
test_ud(void **state)
{
	struct rk_xeth_fields x = { .deth_q_key = 0x11111111, .deth_src_qp = 0x42 };
	struct rk_wc wc;

	(void)state;
	setup_opts(&(struct h_opts){ .type = RK_QPT_UD });
	/* UD-NOWQE-01: no WQE -> dropped, no RNR. */
	req(RK_OP_TR_UD | RK_OP_SEND_ONLY, 5, false, &x, "ping", 4);
	expect_silence();
	h_post_recv(&H.b, 3, 0, 256);
	/* UD-QKEY-01 */
	x.deth_q_key = 0x22222222;
	req(RK_OP_TR_UD | RK_OP_SEND_ONLY, 6, false, &x, "ping", 4);
	assert_int_equal(rk_ib_dev_stats(H.b.dev)->rx_drop_qkey, 1);
	assert_int_equal(h_poll(H.b.rcq, &wc), 0);
	x.deth_q_key = 0x11111111;
	req(RK_OP_TR_UD | RK_OP_SEND_ONLY_IMM, 9, false, &x, "ping", 4);
	assert_int_equal(h_poll(H.b.rcq, &wc), 1);
	assert_int_equal(wc.byte_len, 40 + 4);
	assert_int_equal(wc.src_qp, 0x42);
	assert_true(wc.wc_flags & RK_WC_GRH);
	assert_memory_equal(H.b.mem + 40, "ping", 4);
	assert_int_equal(H.b.mem[20], 0x45);  /* IPv4 header in the GRH area */
	expect_silence();
	h_fini(&H);
}

static void
test_srq_credits(void **state)
{
	struct rk_wc wc;

	(void)state;
	/* ACK-CRED-01: with an SRQ credits are not tracked (0x1F). */
	setup_opts(&(struct h_opts){ .a_psn = EPSN, .srq = true });
	h_post_recv(&H.b, 44, 0, 64);
	req(RK_OP_SEND_ONLY, EPSN, true, NULL, "srq", 3);
	expect_one(RK_OP_ACKNOWLEDGE, EPSN, RK_AETH_CREDIT_INVALID);
	assert_int_equal(h_poll(H.b.rcq, &wc), 1);
	assert_int_equal(wc.wr_id, 44);
	h_fini(&H);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_psn_expected),
		cmocka_unit_test(test_psn_gap_once),
		cmocka_unit_test(test_duplicate_send),
		cmocka_unit_test(test_psn_half_window),
		cmocka_unit_test(test_psn_wrap),
		cmocka_unit_test(test_msn_counts_messages),
		cmocka_unit_test(test_rnr),
		cmocka_unit_test(test_rnr_write),
		cmocka_unit_test(test_read_zero),
		cmocka_unit_test(test_read_duplicate_partial),
		cmocka_unit_test(test_read_next_psn),
		cmocka_unit_test(test_read_dmalen),
		cmocka_unit_test(test_atomic_duplicate),
		cmocka_unit_test(test_atomic_misaligned),
		cmocka_unit_test(test_responder_resources),
		cmocka_unit_test(test_replay_slot_is_not_in_flight),
		cmocka_unit_test(test_qp_access_vs_mr_access),
		cmocka_unit_test(test_rkey_checks),
		cmocka_unit_test(test_va_wrap),
		cmocka_unit_test(test_lengths),
		cmocka_unit_test(test_receive_too_small),
		cmocka_unit_test(test_opcode_sequence),
		cmocka_unit_test(test_reserved_opcode),
		cmocka_unit_test(test_too_short_never_reaches_lengths),
		cmocka_unit_test(test_bad_icrc),
		cmocka_unit_test(test_wrong_qp_and_pkey),
		cmocka_unit_test(test_uc_class_d),
		cmocka_unit_test(test_ud),
		cmocka_unit_test(test_srq_credits),
	};

	rk_test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
