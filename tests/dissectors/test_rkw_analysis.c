/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The plugin's analysis (dissectors/rkw_analysis.c) without Wireshark:
 * frames built with rk_build are fed in order and the per-frame records
 * checked: ACK coverage and request-to-ACK time, duplicate ACKs, loss, NAK
 * and go-back-N, READ request-to-response time and message lengths, QP
 * pairing from CM REQ/REP MADs, DETH-free traffic pairing, packets that
 * show up late (out of order) told from retransmissions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rk_build.h"
#include "rk_opcode.h"
#include "rk_xeth.h"
#include "rkw_analysis.h"

#define QA 0x000022  /* A's QP: DestQP of B -> A */
#define QB 0x000011  /* B's QP: DestQP of A -> B */

struct feeder {
	struct rkw_state *s;
	uint32_t num;
	uint64_t ts;
	struct rk_roce_addr ab, ba;
};

static void
v4(uint8_t *a, uint8_t d)
{
	memset(a, 0, 16);
	a[10] = 0xff;
	a[11] = 0xff;
	a[12] = 198;
	a[13] = 18;
	a[14] = 7;
	a[15] = d;
}

static int
setup(void **state)
{
	struct feeder *f = calloc(1, sizeof(*f));
	struct rkw_opts o = { .check_icrc = true, .pmtu = 1024, .keep_payload = true };

	f->s = rkw_new(&o);
	f->ts = 1000000000ull;
	f->ab.ip_version = 4;
	v4(f->ab.src_ip, 1);
	v4(f->ab.dst_ip, 2);
	memcpy(f->ab.src_mac, "\x02\0\0\0\0\x01", 6);
	memcpy(f->ab.dst_mac, "\x02\0\0\0\0\x02", 6);
	f->ba = f->ab;
	memcpy(f->ba.src_ip, f->ab.dst_ip, 16);
	memcpy(f->ba.dst_ip, f->ab.src_ip, 16);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct feeder *f = *state;

	rkw_free(f->s);
	free(f);
	return 0;
}

/* Feed one RoCEv2 packet @p dt_ns after the previous one; @return its record. */
static const struct rkw_frame *
pkt(struct feeder *f, bool a_to_b, uint8_t op, uint32_t psn, bool ackreq,
    const struct rk_xeth_fields *x, const void *payload, uint32_t len, uint64_t dt_ns)
{
	static uint8_t buf[5000];
	static uint8_t pattern[4096];
	struct rk_bth_fields b;
	struct rk_xeth_fields zx;
	struct rk_pkt p;
	int n;

	for (uint32_t i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)(i * 13 + 5);
	if (payload == NULL)
		payload = pattern;
	memset(&b, 0, sizeof(b));
	memset(&zx, 0, sizeof(zx));
	b.opcode = op;
	b.p_key = 0xffff;
	b.dest_qp = a_to_b ? QB : QA;
	b.ack_req = ackreq;
	b.psn = psn;
	n = rk_build_rocev2(buf, sizeof(buf), a_to_b ? &f->ab : &f->ba, &b, x ? x : &zx,
			    payload, len);
	assert_true(n > 0);
	f->ts += dt_ns;
	return rkw_feed(f->s, ++f->num, buf, (uint32_t)n, (uint32_t)n, RK_LINK_ETHERNET,
			f->ts, &p);
}

static const struct rkw_frame *
ack(struct feeder *f, uint32_t psn, uint8_t syndrome, uint64_t dt_ns)
{
	struct rk_xeth_fields x = { .aeth_syndrome = syndrome, .aeth_msn = 1 };

	return pkt(f, false, RK_OP_ACKNOWLEDGE, psn, false, &x, NULL, 0, dt_ns);
}

static void
test_ack_coverage(void **state)
{
	struct feeder *f = *state;
	struct rk_xeth_fields w = { .reth_va = 0x1000, .reth_r_key = 5, .reth_dma_len = 4096 };
	const struct rkw_frame *r;

	r = pkt(f, true, RK_OP_RDMA_WRITE_FIRST, 100, false, &w, NULL, 1024, 1000);
	assert_non_null(r);
	assert_true(r->is_roce);
	assert_int_equal(r->roce.seq, RKW_SEQ_FIRST);
	assert_false(r->roce.msg_end);
	pkt(f, true, RK_OP_RDMA_WRITE_MIDDLE, 101, false, NULL, NULL, 1024, 1000);
	pkt(f, true, RK_OP_RDMA_WRITE_MIDDLE, 102, false, NULL, NULL, 1024, 1000);
	r = pkt(f, true, RK_OP_RDMA_WRITE_LAST, 103, true, NULL, NULL, 1024, 1000);
	assert_int_equal(r->roce.seq, RKW_SEQ_IN_ORDER);
	assert_true(r->roce.msg_end);
	assert_int_equal(r->roce.msg_len, 4096);
	assert_int_equal(r->roce.msg_packets, 4);
	assert_int_equal(r->roce.msg_first_frame, 1);
	assert_false(r->roce.msg_incomplete);
	/* The reassembled payload: four copies of the pattern's first 1 KiB. */
	{
		gsize n;
		const uint8_t *d;

		assert_non_null(r->roce.msg_data);
		d = g_bytes_get_data(r->roce.msg_data, &n);
		assert_int_equal(n, 4096);
		for (gsize i = 0; i < n; i++)
			assert_int_equal(d[i], (uint8_t)((i % 1024) * 13 + 5));
	}

	r = ack(f, 103, 0x1f, 10000);
	assert_true(r->roce.ack_range);
	assert_int_equal(r->roce.ack_first, 100);
	assert_int_equal(r->roce.ack_last, 103);
	assert_int_equal(r->roce.ack_count, 4);
	assert_int_equal(r->roce.ack_req_frame, 4);
	assert_int_equal(r->roce.ack_rtt_ns, 10000);
	assert_false(r->roce.nak);
	/* The ACK names B's QP as its sender, from the traffic. */
	assert_int_equal(r->roce.peer_src, RK_INSP_PEER_TRAFFIC);
	assert_int_equal(r->roce.peer_qp, QB);
	assert_int_equal(r->roce.req_flow, 1);
	assert_int_not_equal(r->roce.flow, 1);

	/* The same ACK again covers nothing new. */
	r = ack(f, 103, 0x1f, 1000);
	assert_true(r->roce.ack_range);
	assert_int_equal(r->roce.ack_count, 0);

	/* A later request now knows its sender's QP number. */
	r = pkt(f, true, RK_OP_SEND_ONLY, 104, true, NULL, NULL, 10, 1000);
	assert_int_equal(r->roce.peer_qp, QA);
	assert_true(r->roce.msg_end);
	assert_int_equal(r->roce.msg_len, 10);
	assert_int_equal(rkw_nflows(f->s), 2);
	assert_string_equal(rkw_flow(f->s, 1)->label, "198.18.7.1 > 198.18.7.2 DestQP 0x000011");
	assert_null(rkw_flow(f->s, 3));
}

static void
test_loss_nak_go_back(void **state)
{
	struct feeder *f = *state;
	const struct rkw_frame *r;

	pkt(f, true, RK_OP_SEND_FIRST, 200, false, NULL, NULL, 1024, 1000);
	pkt(f, true, RK_OP_SEND_MIDDLE, 201, false, NULL, NULL, 1024, 1000);
	/* 202 is lost */
	r = pkt(f, true, RK_OP_SEND_LAST, 203, true, NULL, NULL, 100, 1000);
	assert_int_equal(r->roce.seq, RKW_SEQ_GAP);
	assert_int_equal(r->roce.missing, 1);
	assert_int_equal(r->roce.expected, 202);
	assert_true(r->roce.msg_end);
	assert_true(r->roce.msg_incomplete);
	assert_null(r->roce.msg_data);   /* a PSN is missing: no bytes */

	/* NAK PSN sequence error at 202: covers 200..201. */
	r = ack(f, 202, 0x60, 5000000);
	assert_true(r->roce.nak);
	assert_int_equal(r->roce.nak_code, 0);
	assert_true(r->roce.ack_range);
	assert_int_equal(r->roce.ack_first, 200);
	assert_int_equal(r->roce.ack_last, 201);
	assert_int_equal(r->roce.ack_count, 2);

	/* Go-back-N from 202. */
	r = pkt(f, true, RK_OP_SEND_MIDDLE, 202, false, NULL, NULL, 1024, 1000);
	assert_int_equal(r->roce.seq, RKW_SEQ_DUP);
	assert_true(r->roce.rtx_start);
	assert_false(r->roce.out_of_order);
	r = pkt(f, true, RK_OP_SEND_LAST, 203, true, NULL, NULL, 100, 1000);
	assert_int_equal(r->roce.seq, RKW_SEQ_DUP);
	assert_false(r->roce.rtx_start);

	/* RNR NAK */
	r = ack(f, 204, 0x20 | 14, 1000);
	assert_true(r->roce.rnr);
	assert_int_equal(r->roce.rnr_timer, 14);
	assert_false(r->roce.ack_range);
}

/*
 * A packet that shows up after later PSNs, then the flow goes on where it
 * stood: out of order, not a retransmission, however late it came and
 * even with a NAK between (the responder NAKed it before it came). The
 * frames after it lose nothing.
 */
static void
test_out_of_order(void **state)
{
	struct feeder *f = *state;
	const struct rkw_frame *r;

	pkt(f, true, RK_OP_SEND_ONLY, 400, false, NULL, NULL, 8, 1000);
	r = pkt(f, true, RK_OP_SEND_ONLY, 402, false, NULL, NULL, 8, 1000);
	assert_int_equal(r->roce.missing, 1);
	ack(f, 401, 0x60, 1000);                          /* frame 3: NAK 401 */
	/* 401 shows up 4 ms later: its verdict waits for the next request */
	pkt(f, true, RK_OP_SEND_ONLY, 401, false, NULL, NULL, 8, 4000000);
	r = pkt(f, true, RK_OP_SEND_ONLY, 403, false, NULL, NULL, 8, 1000);
	assert_int_equal(r->roce.seq, RKW_SEQ_IN_ORDER);
	assert_int_equal(r->roce.missing, 0);
	r = rkw_lookup(f->s, 4);
	assert_true(r->roce.out_of_order);
	assert_false(r->roce.rtx_start);
	assert_int_equal(r->roce.missing, 0);
	assert_int_equal(r->roce.seq, RKW_SEQ_LATE);
	assert_int_equal(r->roce.not_lost, 1);   /* the statistics take it back */
	/* The gap frame says what was missing then. */
	assert_int_equal(rkw_lookup(f->s, 2)->roce.missing, 1);
}

/*
 * A copy inside a go-back-N run shows up late: out of order (and still a
 * retransmission); the run goes on where it stood, so the frames after it
 * lose nothing and start no episode.
 */
static void
test_out_of_order_in_go_back(void **state)
{
	struct feeder *f = *state;
	const struct rkw_frame *r;
	static const uint32_t run[] = { 3, 4, 5, 7, 8, 6, 9, 10 };
	uint32_t late = 0, after = 0;

	for (uint32_t p = 0; p < 10; p++)
		pkt(f, true, RK_OP_RDMA_WRITE_ONLY, p, false, NULL, NULL, 0, 1000);
	ack(f, 3, 0x60, 1000);
	for (size_t i = 0; i < sizeof(run) / sizeof(run[0]); i++) {
		r = pkt(f, true, RK_OP_RDMA_WRITE_ONLY, run[i], false, NULL, NULL, 0, 1000);
		if (run[i] == 6)
			late = f->num;
		if (run[i] == 9)
			after = f->num;
	}
	assert_int_equal(r->roce.seq, RKW_SEQ_IN_ORDER);
	r = rkw_lookup(f->s, late);
	assert_true(r->roce.out_of_order);
	assert_false(r->roce.rtx_start);
	assert_int_equal(r->roce.seq, RKW_SEQ_DUP);
	assert_int_equal(r->roce.not_lost, 1);
	r = rkw_lookup(f->s, after);
	assert_int_equal(r->roce.seq, RKW_SEQ_DUP);
	assert_int_equal(r->roce.missing, 0);
	assert_false(r->roce.rtx_start);
	assert_false(r->roce.out_of_order);
	/* The first packet of the run is its start. */
	r = rkw_lookup(f->s, 12);
	assert_true(r->roce.rtx_start);
	assert_false(r->roce.out_of_order);
}

/*
 * A go-back-N run skips PSN 8, and the next packet resends 8: the skipping
 * copy was sent out of the run, and rk-inspect takes the loss back. The
 * frames' lost PSNs (missing less not_lost) sum to its count: the skip
 * shows 1, the frame that took it back says 1 not lost.
 */
static void
test_run_skip_taken_back(void **state)
{
	struct feeder *f = *state;
	const struct rkw_frame *r;
	static const uint32_t run[] = { 2, 3, 4, 5, 6, 7, 9, 8 };
	uint32_t skip = 0, back = 0;

	for (uint32_t p = 0; p < 10; p++)
		pkt(f, true, RK_OP_RDMA_WRITE_ONLY, p, false, NULL, NULL, 0, 1000);
	for (size_t i = 0; i < sizeof(run) / sizeof(run[0]); i++) {
		r = pkt(f, true, RK_OP_RDMA_WRITE_ONLY, run[i], false, NULL, NULL, 0, 1000);
		if (run[i] == 9)
			skip = f->num;
		if (run[i] == 8)
			back = f->num;
	}
	rkw_finish(f->s);
	r = rkw_lookup(f->s, skip);
	assert_int_equal(r->roce.missing, 1);
	assert_int_equal(r->roce.not_lost, 0);
	r = rkw_lookup(f->s, back);
	assert_int_equal(r->roce.seq, RKW_SEQ_DUP);
	assert_int_equal(r->roce.missing, 0);
	assert_int_equal(r->roce.not_lost, 1);
}

static void
test_read_latency(void **state)
{
	struct feeder *f = *state;
	struct rk_xeth_fields rd = { .reth_va = 0x2000, .reth_r_key = 9, .reth_dma_len = 2048 };
	struct rk_xeth_fields ae = { .aeth_syndrome = 0x1f, .aeth_msn = 1 };
	const struct rkw_frame *r;

	r = pkt(f, true, RK_OP_RDMA_READ_REQUEST, 300, true, &rd, NULL, 0, 1000);
	assert_true(r->roce.msg_end);
	assert_int_equal(r->roce.msg_len, 2048);
	r = pkt(f, false, RK_OP_RDMA_READ_RESPONSE_FIRST, 300, false, &ae, NULL, 1024, 20000);
	assert_int_equal(r->roce.read_req_frame, 1);
	assert_int_equal(r->roce.read_rt_ns, 20000);
	assert_false(r->roce.msg_end);
	r = pkt(f, false, RK_OP_RDMA_READ_RESPONSE_LAST, 301, false, &ae, NULL, 1024, 1000);
	assert_int_equal(r->roce.read_req_frame, 0);
	assert_true(r->roce.msg_end);
	assert_int_equal(r->roce.msg_len, 2048);
	assert_int_equal(r->roce.msg_packets, 2);
	assert_int_equal(r->roce.msg_first_frame, 2);
	assert_non_null(r->roce.msg_data);
	assert_int_equal(g_bytes_get_size(r->roce.msg_data), 2048);
}

/* A CM MAD (IBTA Vol1 12.6) in a UD SEND Only to QP1. */
static const struct rkw_frame *
mad(struct feeder *f, bool a_to_b, uint16_t attr, uint32_t id, uint32_t remote_id, uint32_t qpn)
{
	static uint8_t m[256];
	struct rk_xeth_fields x = { .deth_q_key = 0x80010000, .deth_src_qp = 1 };
	struct rk_bth_fields b;
	struct rk_pkt p;
	uint8_t buf[600];
	int n;

	memset(m, 0, sizeof(m));
	m[0] = 1;
	m[1] = 0x07;  /* CM class */
	m[2] = 2;
	m[3] = 0x03;  /* Send */
	m[16] = (uint8_t)(attr >> 8);
	m[17] = (uint8_t)attr;
	m[24] = (uint8_t)(id >> 24);
	m[25] = (uint8_t)(id >> 16);
	m[26] = (uint8_t)(id >> 8);
	m[27] = (uint8_t)id;
	if (attr == 0x0010) {
		m[56] = (uint8_t)(qpn >> 16);
		m[57] = (uint8_t)(qpn >> 8);
		m[58] = (uint8_t)qpn;
	} else {
		m[28] = (uint8_t)(remote_id >> 24);
		m[29] = (uint8_t)(remote_id >> 16);
		m[30] = (uint8_t)(remote_id >> 8);
		m[31] = (uint8_t)remote_id;
		m[36] = (uint8_t)(qpn >> 16);
		m[37] = (uint8_t)(qpn >> 8);
		m[38] = (uint8_t)qpn;
	}
	memset(&b, 0, sizeof(b));
	b.opcode = 0x64;  /* UD SEND Only */
	b.p_key = 0xffff;
	b.dest_qp = 1;
	n = rk_build_rocev2(buf, sizeof(buf), a_to_b ? &f->ab : &f->ba, &b, &x, m, 256);
	assert_true(n > 0);
	f->ts += 1000;
	return rkw_feed(f->s, ++f->num, buf, (uint32_t)n, (uint32_t)n, RK_LINK_ETHERNET, f->ts, &p);
}

static void
test_cm_pairing(void **state)
{
	struct feeder *f = *state;
	const struct rkw_frame *r;

	mad(f, true, 0x0010, 77, 0, 0x33);      /* REQ from A, its QP 0x33 */
	mad(f, false, 0x0013, 99, 66, 0x44);    /* a REP for another REQ: ignored */
	mad(f, false, 0x0013, 88, 77, QB);      /* REP from B, its QP QB */
	r = pkt(f, true, RK_OP_SEND_ONLY, 1, true, NULL, NULL, 4, 1000);
	assert_int_equal(r->roce.peer_src, RK_INSP_PEER_CM);
	assert_int_equal(r->roce.peer_qp, 0x33);
}

static void
test_not_rdma(void **state)
{
	struct feeder *f = *state;
	static const uint8_t arp[42] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1,
					 0x08, 0x06 };
	struct rk_pkt p;

	assert_null(rkw_feed(f->s, 1, arp, sizeof(arp), sizeof(arp), RK_LINK_ETHERNET, 1, &p));
	assert_null(rkw_lookup(f->s, 1));
	assert_int_equal(rkw_nflows(f->s), 0);
	/* A frame cut inside the BTH is not a crash, and not a BTH packet. */
	{
		uint8_t buf[200];
		struct rk_bth_fields b = { .opcode = RK_OP_SEND_ONLY, .dest_qp = 1, .psn = 1 };
		struct rk_xeth_fields x;
		int n;

		memset(&x, 0, sizeof(x));
		n = rk_build_rocev2(buf, sizeof(buf), &f->ab, &b, &x, NULL, 16);
		assert_true(n > 0);
		for (uint32_t cut = 0; cut < (uint32_t)n; cut++)
			rkw_feed(f->s, 2 + cut, buf, cut, (uint32_t)n, RK_LINK_ETHERNET, 2 + cut, &p);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ack_coverage, setup, teardown),
		cmocka_unit_test_setup_teardown(test_loss_nak_go_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_out_of_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_out_of_order_in_go_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_skip_taken_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_latency, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cm_pairing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_rdma, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
