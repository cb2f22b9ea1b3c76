/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completer scenarios (lib/ib/rk_comp.c): QP A is the requester; the test
 * forges B's responses (or relays B's real ones selectively) and asserts
 * A's retransmissions, timers and completions.
 */
#include "rk_test.h"

#include "rk_ib_harness.h"

static struct harness H;
static struct h_frame F;
static struct h_frame saved[64];
static unsigned int nsaved;

#define P 0x100

/* Forge a response from B to A. */
static void
resp(uint8_t opcode, uint32_t psn, uint8_t syndrome, uint32_t msn)
{
	struct rk_xeth_fields x = { .aeth_syndrome = syndrome, .aeth_msn = msn };

	h_craft(&H, &F, &H.b, &H.a, opcode, psn, false, &x, NULL, 0);
	h_rx(&H, &H.a, &F);
}

static void
ack(uint32_t psn)
{
	resp(RK_OP_ACKNOWLEDGE, psn, 0x1f, 0);
}

static void
save_q(void)
{
	nsaved = H.n;
	memcpy(saved, H.q, sizeof(saved[0]) * H.n);
}

static void
post_writes(int n, uint32_t len)
{
	for (int i = 0; i < n; i++)
		assert_int_equal(h_post_send(&H.a, 100 + (uint64_t)i, RK_WR_RDMA_WRITE,
					     (uint32_t)i * 64, len, h_va(&H.b, (uint32_t)i * 64),
					     rk_ib_mr_rkey(H.b.mr), 0), 0);
}

#define expect_wc(id_, st_) do { \
	struct rk_wc wc_; \
	assert_int_equal(h_poll(H.a.scq, &wc_), 1); \
	assert_int_equal(wc_.wr_id, (id_)); \
	assert_int_equal(wc_.status, (st_)); \
} while (0)

static void
expect_no_wc(void)
{
	struct rk_wc wc;

	assert_int_equal(h_poll(H.a.scq, &wc), 0);
}

static void
test_nak_seq_go_back_n(void **state)
{
	(void)state;
	h_init(&H, &(struct h_opts){ .a_psn = P, .timeout = 14, .retry_cnt = 3 });
	post_writes(6, 8);
	assert_int_equal(h_tx(&H, &H.a), 6);
	save_q();
	/* PSN-REQ-01: NAK-SEQ(P+2) acknowledges P, P+1 and rewinds to P+2. */
	resp(RK_OP_ACKNOWLEDGE, P + 2, 0x60, 2);
	expect_wc(100, RK_WC_SUCCESS);
	expect_wc(101, RK_WC_SUCCESS);
	expect_no_wc();
	/* The same NAK again (a network duplicate) costs nothing. */
	resp(RK_OP_ACKNOWLEDGE, P + 2, 0x60, 2);
	assert_int_equal(rk_ib_dev_stats(H.a.dev)->req_nak_seq_retries, 1);
	assert_int_equal(h_tx(&H, &H.a), 4);
	for (unsigned int i = 0; i < 4; i++) {
		/* Retransmissions are byte-identical to the originals. */
		assert_int_equal(H.q[i].len, saved[i + 2].len);
		assert_memory_equal(H.q[i].data, saved[i + 2].data, H.q[i].len);
	}
	ack(P + 5);
	for (int i = 2; i < 6; i++)
		expect_wc(100 + (uint64_t)i, RK_WC_SUCCESS);
	assert_int_equal(rk_ib_next_timer(H.a.dev), UINT64_MAX);
	h_fini(&H);
}

static unsigned int
count_transmissions_until_error(uint64_t *first_retx_ns)
{
	unsigned int tx = h_tx(&H, &H.a);
	uint64_t t0 = H.now;

	*first_retx_ns = 0;
	while (rk_ib_qp_state(H.a.qp) != RK_QPS_ERR) {
		uint64_t t = h_fire_timers(&H);

		assert_true(t != UINT64_MAX);
		if (*first_retx_ns == 0)
			*first_retx_ns = H.now - t0;
		tx += h_tx(&H, &H.a);
		assert_true(tx < 100);
	}
	return tx;
}

static void
test_retry_exhaustion_timeout(void **state)
{
	uint64_t first;

	(void)state;
	/* RETRY-TO-01, RETRY-CNT-01: 1 + 3 transmissions, then RETRY_EXC_ERR. */
	h_init(&H, &(struct h_opts){ .a_psn = P, .timeout = 14, .retry_cnt = 3 });
	post_writes(2, 8);
	assert_int_equal(count_transmissions_until_error(&first), 2 + 3 * 2);
	assert_true(first >= 4096ull << 14);
	expect_wc(100, RK_WC_RETRY_EXC_ERR);
	expect_wc(101, RK_WC_WR_FLUSH_ERR);
	assert_int_equal(rk_ib_dev_stats(H.a.dev)->req_retransmit_timeouts, 4);
	h_fini(&H);
}

static void
test_retry_cnt_7_is_not_infinite(void **state)
{
	uint64_t first;

	(void)state;
	/* RETRY-CNT-02: retry_cnt 7 means 7 retries (only rnr_retry 7 is infinite). */
	h_init(&H, &(struct h_opts){ .a_psn = P, .timeout = 8, .retry_cnt = 7 });
	post_writes(1, 8);
	assert_int_equal(count_transmissions_until_error(&first), 8);
	expect_wc(100, RK_WC_RETRY_EXC_ERR);
	h_fini(&H);
}

static void
test_nak_seq_costs_retries(void **state)
{
	(void)state;
	/* RETRY-NAKSEQ-01: every NAK-SEQ answering a retry costs one. */
	h_init(&H, &(struct h_opts){ .a_psn = P, .timeout = 14, .retry_cnt = 2 });
	post_writes(1, 8);
	assert_int_equal(h_tx(&H, &H.a), 1);
	for (int i = 0; i < 2; i++) {
		resp(RK_OP_ACKNOWLEDGE, P, 0x60, 0);
		assert_int_equal(h_tx(&H, &H.a), 1);
		assert_int_equal(h_psn(&H.q[0]), P);
	}
	resp(RK_OP_ACKNOWLEDGE, P, 0x60, 0);
	assert_int_equal(h_tx(&H, &H.a), 0);
	expect_wc(100, RK_WC_RETRY_EXC_ERR);
	h_fini(&H);
}

static void
test_rnr_retry(void **state)
{
	(void)state;
	/* RNR-TMR-01, RNR-RETRY-01: wait T3(code), 1 + 3 transmissions, then error. */
	h_init(&H, &(struct h_opts){ .a_psn = P, .timeout = 14, .retry_cnt = 1, .rnr_retry = 3 });
	post_writes(1, 8);
	assert_int_equal(h_tx(&H, &H.a), 1);
	save_q();
	for (int i = 0; i < 3; i++) {
		uint64_t t0 = H.now;

		resp(RK_OP_ACKNOWLEDGE, P, 0x20 | 14, 0);
		assert_int_equal(h_tx(&H, &H.a), 0);
		/* Only the RNR timer runs, not the transport timer. */
		assert_int_equal(rk_ib_next_timer(H.a.dev), t0 + 1280000);
		H.now = t0 + 1280000 - 1;
		rk_ib_timers(H.a.dev, H.now);
		assert_int_equal(h_tx(&H, &H.a), 0);
		h_fire_timers(&H);
		assert_int_equal(h_tx(&H, &H.a), 1);
		assert_memory_equal(H.q[0].data, saved[0].data, saved[0].len);
	}
	resp(RK_OP_ACKNOWLEDGE, P, 0x20 | 14, 0);
	expect_wc(100, RK_WC_RNR_RETRY_EXC_ERR);
	assert_int_equal(rk_ib_qp_state(H.a.qp), RK_QPS_ERR);
	/* RNR retries did not touch the transport retry budget. */
	assert_int_equal(rk_ib_dev_stats(H.a.dev)->req_retransmit_timeouts, 0);
	h_fini(&H);
}

static void
test_rnr_retry_7_infinite_and_separate(void **state)
{
	(void)state;
	/* RNR-RETRY-02, and RNR backoff is separate from transport retry. */
	h_init(&H, &(struct h_opts){ .a_psn = P, .timeout = 10, .retry_cnt = 1, .rnr_retry = 7 });
	post_writes(1, 8);
	assert_int_equal(h_tx(&H, &H.a), 1);
	for (int i = 0; i < 50; i++) {
		resp(RK_OP_ACKNOWLEDGE, P, 0x20 | 1, 0);
		h_fire_timers(&H);
		assert_int_equal(h_tx(&H, &H.a), 1);
	}
	/* One transport timeout is still allowed ... */
	h_fire_timers(&H);
	assert_int_equal(h_tx(&H, &H.a), 1);
	assert_int_equal(rk_ib_qp_state(H.a.qp), RK_QPS_RTS);
	ack(P);
	expect_wc(100, RK_WC_SUCCESS);
	h_fini(&H);
}

static void
test_fatal_nak_flushes(void **state)
{
	static const struct {
		uint8_t syn;
		enum rk_wc_status st;
	} cases[] = {
		{ 0x61, RK_WC_REM_INV_REQ_ERR },
		{ 0x62, RK_WC_REM_ACCESS_ERR },
		{ 0x63, RK_WC_REM_OP_ERR },
	};

	(void)state;
	for (unsigned int i = 0; i < 3; i++) {
		/* RETRY-FATAL-01: no retransmission, WC error, the rest flushed. */
		h_init(&H, &(struct h_opts){ .a_psn = P, .timeout = 14, .retry_cnt = 3 });
		post_writes(4, 8);
		assert_int_equal(h_tx(&H, &H.a), 4);
		resp(RK_OP_ACKNOWLEDGE, P + 1, cases[i].syn, 1);
		expect_wc(100, RK_WC_SUCCESS);
		expect_wc(101, cases[i].st);
		expect_wc(102, RK_WC_WR_FLUSH_ERR);
		expect_wc(103, RK_WC_WR_FLUSH_ERR);
		assert_int_equal(h_tx(&H, &H.a), 0);
		assert_int_equal(rk_ib_qp_state(H.a.qp), RK_QPS_ERR);
		assert_int_equal(rk_ib_next_timer(H.a.dev), UINT64_MAX);
		h_fini(&H);
	}
}

static void
test_ghost_ack(void **state)
{
	(void)state;
	/* RETRY-GHOST-01: an ACK beyond anything sent changes nothing. */
	h_init(&H, &(struct h_opts){ .a_psn = P, .timeout = 14, .retry_cnt = 3 });
	post_writes(2, 8);
	assert_int_equal(h_tx_n(&H, &H.a, 1), 1);
	ack(P + 1);
	expect_no_wc();
	assert_int_equal(rk_ib_dev_stats(H.a.dev)->comp_ghost_acks, 1);
	ack(P);
	expect_wc(100, RK_WC_SUCCESS);
	expect_no_wc();
	h_fini(&H);
}

static void
test_read_gap_reissues_once(void **state)
{
	uint32_t len = 4 * 1024;

	(void)state;
	h_init(&H, &(struct h_opts){ .a_psn = P, .timeout = 14, .retry_cnt = 3 });
	rk_test_fill(H.b.mem + 4096, len);
	assert_int_equal(h_post_send(&H.a, 7, RK_WR_RDMA_READ, 65536, len, h_va(&H.b, 4096),
				     rk_ib_mr_rkey(H.b.mr), 0), 0);
	assert_int_equal(h_tx(&H, &H.a), 1);
	h_rx_all(&H, &H.b);
	assert_int_equal(h_tx(&H, &H.b), 4);
	save_q();
	/* Lose P+1: P, P+2, P+3 arrive; one READ from P+1 goes out, once. */
	h_rx(&H, &H.a, &saved[0]);
	h_rx(&H, &H.a, &saved[2]);
	assert_int_equal(h_tx(&H, &H.a), 1);
	assert_int_equal(h_opcode(&H.q[0]), RK_OP_RDMA_READ_REQUEST);
	assert_int_equal(h_psn(&H.q[0]), P + 1);
	assert_int_equal(rk_reth_va(h_xeth(&H.q[0], RK_HDR_RETH)), h_va(&H.b, 4096 + 1024));
	assert_int_equal(rk_reth_dma_len(h_xeth(&H.q[0], RK_HDR_RETH)), len - 1024);
	F = H.q[0];
	h_rx(&H, &H.a, &saved[3]);
	assert_int_equal(h_tx(&H, &H.a), 0);
	assert_int_equal(rk_ib_dev_stats(H.a.dev)->req_read_retries, 1);
	/* B replays from P+1 and the READ completes with the right bytes. */
	h_rx(&H, &H.b, &F);
	assert_int_equal(h_tx(&H, &H.b), 3);
	assert_int_equal(h_psn(&H.q[0]), P + 1);
	h_rx_all(&H, &H.a);
	expect_wc(7, RK_WC_SUCCESS);
	assert_memory_equal(H.a.mem + 65536, H.b.mem + 4096, len);
	h_fini(&H);
}

static void
test_read_restart_lost_head(void **state)
{
	uint32_t len = 6 * 1024;

	(void)state;
	h_init(&H, &(struct h_opts){ .a_psn = P, .timeout = 14, .retry_cnt = 3 });
	rk_test_fill(H.b.mem + 4096, len);
	assert_int_equal(h_post_send(&H.a, 8, RK_WR_RDMA_READ, 65536, len, h_va(&H.b, 4096),
				     rk_ib_mr_rkey(H.b.mr), 0), 0);
	assert_int_equal(h_tx(&H, &H.a), 1);
	h_rx_all(&H, &H.b);
	assert_int_equal(h_tx(&H, &H.b), 6);
	save_q();
	/* Lose P+1: the gap re-issues from P+1; the old stream's tail does not. */
	h_rx(&H, &H.a, &saved[0]);
	h_rx(&H, &H.a, &saved[2]);
	h_rx(&H, &H.a, &saved[3]);
	assert_int_equal(h_tx(&H, &H.a), 1);
	assert_int_equal(h_psn(&H.q[0]), P + 1);
	h_rx(&H, &H.a, &saved[4]);
	h_rx(&H, &H.a, &saved[4]);     /* a link duplicate is no restart */
	assert_int_equal(h_tx(&H, &H.a), 0);
	/*
	 * The restarted stream lost its head too: P+2 after P+4 shows the
	 * responder replays from P+1, so one more re-issue goes out at once.
	 */
	h_rx(&H, &H.a, &saved[2]);
	assert_int_equal(h_tx(&H, &H.a), 1);
	assert_int_equal(h_psn(&H.q[0]), P + 1);
	assert_int_equal(rk_ib_dev_stats(H.a.dev)->req_read_retries, 2);
	/* Only once until progress: the next restart waits for the timer. */
	h_rx(&H, &H.a, &saved[3]);
	h_rx(&H, &H.a, &saved[2]);
	assert_int_equal(h_tx(&H, &H.a), 0);
	assert_int_equal(rk_ib_dev_stats(H.a.dev)->req_read_retries, 2);
	/* The replay arrives whole: progress, and the READ completes. */
	for (int i = 1; i < 6; i++)
		h_rx(&H, &H.a, &saved[i]);
	expect_wc(8, RK_WC_SUCCESS);
	assert_memory_equal(H.a.mem + 65536, H.b.mem + 4096, len);
	h_fini(&H);
}

static void
test_read_response_implicit_ack(void **state)
{
	(void)state;
	h_init(&H, &(struct h_opts){ .a_psn = P, .timeout = 14, .retry_cnt = 3 });
	post_writes(1, 8);
	assert_int_equal(h_post_send(&H.a, 7, RK_WR_RDMA_READ, 4096, 8, h_va(&H.b, 0),
				     rk_ib_mr_rkey(H.b.mr), 0), 0);
	assert_int_equal(h_tx(&H, &H.a), 2);
	h_rx_all(&H, &H.b);
	assert_int_equal(h_tx(&H, &H.b), 2);
	/* Lose the ACK of the WRITE: the READ response acknowledges it too. */
	assert_int_equal(h_opcode(&H.q[0]), RK_OP_RDMA_READ_RESPONSE_ONLY);
	h_rx(&H, &H.a, &H.q[0]);
	expect_wc(100, RK_WC_SUCCESS);
	expect_wc(7, RK_WC_SUCCESS);
	h_fini(&H);
}

static void
test_ack_past_read_reissues(void **state)
{
	(void)state;
	h_init(&H, &(struct h_opts){ .a_psn = P, .timeout = 14, .retry_cnt = 3 });
	assert_int_equal(h_post_send(&H.a, 7, RK_WR_RDMA_READ, 4096, 8, h_va(&H.b, 0),
				     rk_ib_mr_rkey(H.b.mr), 0), 0);
	post_writes(1, 8);
	assert_int_equal(h_tx(&H, &H.a), 2);
	/* The READ response is lost; an ACK for the later WRITE arrives. */
	ack(P + 1);
	expect_no_wc();
	assert_int_equal(h_tx(&H, &H.a), 2);
	assert_int_equal(h_opcode(&H.q[0]), RK_OP_RDMA_READ_REQUEST);
	assert_int_equal(h_psn(&H.q[0]), P);
	ack(P + 1);
	assert_int_equal(h_tx(&H, &H.a), 0);
	h_fini(&H);
}

static void
test_max_rd_atomic(void **state)
{
	(void)state;
	h_init(&H, &(struct h_opts){ .a_psn = P, .timeout = 14, .retry_cnt = 3, .rd_atomic = 2 });
	for (int i = 0; i < 4; i++)
		assert_int_equal(h_post_send(&H.a, 10 + (uint64_t)i, RK_WR_RDMA_READ,
					     (uint32_t)i * 16, 8, h_va(&H.b, 0),
					     rk_ib_mr_rkey(H.b.mr), 0), 0);
	post_writes(1, 8);
	/* Two READs out, the third waits (and the WRITE behind it). */
	assert_int_equal(h_tx(&H, &H.a), 2);
	h_rx_all(&H, &H.b);
	assert_int_equal(h_tx(&H, &H.b), 2);
	save_q();
	h_rx(&H, &H.a, &saved[0]);
	expect_wc(10, RK_WC_SUCCESS);
	assert_int_equal(h_tx(&H, &H.a), 1);
	assert_int_equal(h_psn(&H.q[0]), P + 2);
	h_rx_all(&H, &H.b);
	h_rx(&H, &H.a, &saved[1]);
	h_settle(&H);
	for (int i = 1; i < 4; i++)
		expect_wc(10 + (uint64_t)i, RK_WC_SUCCESS);
	expect_wc(100, RK_WC_SUCCESS);
	h_fini(&H);
}

static void
test_fence(void **state)
{
	(void)state;
	h_init(&H, &(struct h_opts){ .a_psn = P, .timeout = 14, .retry_cnt = 3 });
	assert_int_equal(h_post_send(&H.a, 10, RK_WR_RDMA_READ, 0, 8, h_va(&H.b, 0),
				     rk_ib_mr_rkey(H.b.mr), 0), 0);
	assert_int_equal(h_post_send(&H.a, 11, RK_WR_RDMA_WRITE, 0, 8, h_va(&H.b, 0),
				     rk_ib_mr_rkey(H.b.mr), RK_SEND_FENCE), 0);
	assert_int_equal(h_tx(&H, &H.a), 1);
	/* The fenced WRITE waits for the READ to complete. */
	h_rx_all(&H, &H.b);
	assert_int_equal(h_tx(&H, &H.a), 0);
	h_settle(&H);
	expect_wc(10, RK_WC_SUCCESS);
	expect_wc(11, RK_WC_SUCCESS);
	h_fini(&H);
}

static void
test_error_flush(void **state)
{
	struct rk_qp_attr a = { .qp_state = RK_QPS_ERR };
	struct rk_wc wc;

	(void)state;
	h_init(&H, &(struct h_opts){ .a_psn = P, .timeout = 14, .retry_cnt = 3 });
	post_writes(5, 8);
	assert_int_equal(h_tx_n(&H, &H.a, 2), 2);
	h_post_recv(&H.a, 50, 0, 8);
	h_post_recv(&H.a, 51, 0, 8);
	assert_int_equal(rk_ib_qp_modify(H.a.qp, &a, RK_QP_STATE), 0);
	for (int i = 0; i < 5; i++)
		expect_wc(100 + (uint64_t)i, RK_WC_WR_FLUSH_ERR);
	assert_int_equal(h_poll(H.a.rcq, &wc), 1);
	assert_int_equal(wc.wr_id, 50);
	assert_int_equal(wc.status, RK_WC_WR_FLUSH_ERR);
	assert_int_equal(wc.opcode, RK_WC_RECV);
	assert_int_equal(h_poll(H.a.rcq, &wc), 1);
	assert_int_equal(wc.wr_id, 51);
	/* Posting in ERR completes at once with a flush error. */
	post_writes(1, 8);
	expect_wc(100, RK_WC_WR_FLUSH_ERR);
	assert_int_equal(h_tx(&H, &H.a), 0);
	assert_int_equal(rk_ib_next_timer(H.a.dev), UINT64_MAX);
	h_fini(&H);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nak_seq_go_back_n),
		cmocka_unit_test(test_retry_exhaustion_timeout),
		cmocka_unit_test(test_retry_cnt_7_is_not_infinite),
		cmocka_unit_test(test_nak_seq_costs_retries),
		cmocka_unit_test(test_rnr_retry),
		cmocka_unit_test(test_rnr_retry_7_infinite_and_separate),
		cmocka_unit_test(test_fatal_nak_flushes),
		cmocka_unit_test(test_ghost_ack),
		cmocka_unit_test(test_read_gap_reissues_once),
		cmocka_unit_test(test_read_restart_lost_head),
		cmocka_unit_test(test_read_response_implicit_ack),
		cmocka_unit_test(test_ack_past_read_reissues),
		cmocka_unit_test(test_max_rd_atomic),
		cmocka_unit_test(test_fence),
		cmocka_unit_test(test_error_flush),
	};

	rk_test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
