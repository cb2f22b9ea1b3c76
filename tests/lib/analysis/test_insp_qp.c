/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of lib/analysis/rk_insp_qp.c: ACK coverage (coalesced, stale, NAK),
 * request-to-ACK and READ request-to-response times across the 24-bit
 * wrap, the request table (growth, its time span, times without frames,
 * tables from a pool), pairing by traffic and by CM REQ/REP, and the CM
 * table's limits.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rk_insp_qp.h"
#include "rk_pkt.h"

static struct rk_insp_qp *
new_qp(void)
{
	struct rk_insp_qp *q = calloc(1, sizeof(*q));

	assert_non_null(q);
	return q;
}

static void
test_ack_coverage(void **state)
{
	struct rk_insp_qp *q = new_qp();
	struct rk_insp_qp_ack a;

	(void)state;
	for (uint32_t i = 0; i < 5; i++)
		rk_insp_qp_request(q, 100 + i, 10 + i, 1000 * i, false);
	/* The first ACK covers from the oldest request on. */
	rk_insp_qp_ack(q, 101, false, 5000, &a);
	assert_int_equal(a.first, 100);
	assert_int_equal(a.last, 101);
	assert_int_equal(a.count, 2);
	assert_int_equal(a.req_frame, 11);
	assert_int_equal(a.rtt_ns, 4000);
	/* Coalesced: one ACK for three requests. */
	rk_insp_qp_ack(q, 104, false, 6000, &a);
	assert_int_equal(a.first, 102);
	assert_int_equal(a.last, 104);
	assert_int_equal(a.count, 3);
	assert_int_equal(a.req_frame, 14);
	assert_int_equal(a.rtt_ns, 2000);
	/* A stale ACK covers nothing and moves nothing back. */
	rk_insp_qp_ack(q, 102, false, 7000, &a);
	assert_int_equal(a.count, 0);
	assert_int_equal(q->acked, 104);
	/* A NAK names the PSN expected next: it covers the ones before. */
	rk_insp_qp_request(q, 105, 15, 7000, false);
	rk_insp_qp_request(q, 106, 16, 7100, false);
	rk_insp_qp_ack(q, 106, true, 8000, &a);
	assert_int_equal(a.first, 105);
	assert_int_equal(a.last, 105);
	assert_int_equal(a.count, 1);
	assert_int_equal(a.req_frame, 0);
	rk_insp_qp_fini(q);
	free(q);
}

static void
test_ack_wrap(void **state)
{
	struct rk_insp_qp *q = new_qp();
	struct rk_insp_qp_ack a;

	(void)state;
	rk_insp_qp_request(q, 0xfffffe, 1, 0, false);
	rk_insp_qp_request(q, 0xffffff, 2, 10, false);
	rk_insp_qp_request(q, 0, 3, 20, false);
	rk_insp_qp_ack(q, 0, false, 50, &a);
	assert_int_equal(a.first, 0xfffffe);
	assert_int_equal(a.last, 0);
	assert_int_equal(a.count, 3);
	assert_int_equal(a.req_frame, 3);
	assert_int_equal(a.rtt_ns, 30);
	/* A NAK at PSN 0 after the wrap covers up to 0xffffff. */
	q->acked_valid = false;
	rk_insp_qp_ack(q, 0, true, 60, &a);
	assert_int_equal(a.last, 0xffffff);
	rk_insp_qp_fini(q);
	free(q);
}

static void
test_read_latency(void **state)
{
	struct rk_insp_qp *q = new_qp();
	uint32_t frame = 0;
	uint64_t rt = 0;

	(void)state;
	rk_insp_qp_request(q, 7, 70, 1000, false);
	rk_insp_qp_request(q, 8, 80, 2000, true);
	assert_false(rk_insp_qp_read_response(q, 7, 3000, &frame, &rt));
	assert_int_equal(frame, 0);
	assert_true(rk_insp_qp_read_response(q, 8, 4500, &frame, &rt));
	assert_int_equal(frame, 80);
	assert_int_equal(rt, 2500);
	/* The response acknowledges the requests up to the READ. */
	assert_true(q->acked_valid);
	assert_int_equal(q->acked, 8);
	/* A retransmitted READ: the newest copy gives the time. */
	rk_insp_qp_request(q, 8, 90, 9000, true);
	assert_true(rk_insp_qp_read_response(q, 8, 9400, &frame, &rt));
	assert_int_equal(frame, 90);
	assert_int_equal(rt, 400);
	rk_insp_qp_fini(q);
	free(q);
}

static void
test_ring_forgets(void **state)
{
	struct rk_insp_qp *q = new_qp();

	(void)state;
	for (uint32_t i = 0; i < RK_INSP_QP_REQ_RING + 10; i++)
		rk_insp_qp_request(q, i, i + 1, i, false);
	assert_false(rk_insp_qp_sent(q, 5));
	assert_true(rk_insp_qp_sent(q, 10));
	assert_true(rk_insp_qp_sent(q, RK_INSP_QP_REQ_RING + 9));
	assert_int_equal(q->req_n, RK_INSP_QP_REQ_RING);
	rk_insp_qp_fini(q);
	free(q);
}

/* The table grows with the requests in flight, not with the flow's length. */
static void
test_table_follows_window(void **state)
{
	struct rk_insp_qp *q = new_qp();
	struct rk_insp_qp_ack a;

	(void)state;
	/* 10000 requests, 4 in flight: the smallest table holds them. */
	for (uint32_t i = 0; i < 10000; i++) {
		rk_insp_qp_request(q, i, i + 1, 10 * i, false);
		if (i >= 3) {
			rk_insp_qp_ack(q, i - 3, false, 10 * i + 5, &a);
			assert_int_equal(a.req_frame, i - 2);
			assert_int_equal(a.rtt_ns, 35);
		}
	}
	assert_int_equal(q->req_size, RK_INSP_QP_REQ_MIN);
	/* 100 in flight: it doubles up to 128, and every one keeps its time. */
	for (uint32_t i = 10000; i < 10100; i++)
		rk_insp_qp_request(q, i, i + 1, 10 * i, false);
	assert_int_equal(q->req_size, 128);
	for (uint32_t i = 9997; i < 10100; i++) {
		rk_insp_qp_ack(q, i, false, 10 * i + 7, &a);
		assert_int_equal(a.req_frame, i + 1);
		assert_int_equal(a.rtt_ns, 7);
	}
	rk_insp_qp_fini(q);
	assert_null(q->req);
	free(q);
}

/* With a pool and no frame numbers: the same times, req_frame 0. */
static void
test_times_only_from_pool(void **state)
{
	struct rk_insp_pool pool = { 0 };
	struct rk_insp_qp *q = new_qp();
	struct rk_insp_qp_ack a;

	(void)state;
	q->pool = &pool;
	q->no_frames = true;
	for (uint32_t i = 0; i < 100; i++)
		rk_insp_qp_request(q, i, i + 1, 10 * i, false);
	assert_int_equal(q->req_size, 128);
	assert_null(q->req_frames);
	assert_true(pool.bytes >= RK_INSP_POOL_CHUNK);
	for (uint32_t i = 0; i < 100; i++) {
		rk_insp_qp_ack(q, i, false, 10 * i + 7, &a);
		assert_true(a.timed);
		assert_int_equal(a.req_frame, 0);
		assert_int_equal(a.rtt_ns, 7);
	}
	/* A PSN never sent is not timed. */
	rk_insp_qp_ack(q, 100, false, 2000, &a);
	assert_false(a.timed);
	rk_insp_qp_fini(q);
	rk_insp_pool_fini(&pool);
	assert_int_equal(pool.bytes, 0);
	free(q);
}

/*
 * Growing copies the table into both halves: the copy in the other half
 * is no request. PSN 17 was never sent though the copy of PSN 1 sits at
 * index 17 of the grown table.
 */
static void
test_grown_copies_are_not_requests(void **state)
{
	struct rk_insp_qp *q = new_qp();

	(void)state;
	for (uint32_t i = 0; i <= RK_INSP_QP_REQ_MIN; i++)
		rk_insp_qp_request(q, i, i + 1, i, false);
	assert_int_equal(q->req_size, 2 * RK_INSP_QP_REQ_MIN);
	assert_int_equal(q->req_n, RK_INSP_QP_REQ_MIN + 1);
	for (uint32_t i = 0; i <= RK_INSP_QP_REQ_MIN; i++)
		assert_true(rk_insp_qp_sent(q, i));
	for (uint32_t i = RK_INSP_QP_REQ_MIN + 1; i < 2 * RK_INSP_QP_REQ_MIN; i++)
		assert_false(rk_insp_qp_sent(q, i));
	/* Writing over a copy counts one request more. */
	rk_insp_qp_request(q, RK_INSP_QP_REQ_MIN + 1, 99, 99, false);
	assert_int_equal(q->req_n, RK_INSP_QP_REQ_MIN + 2);
	assert_int_equal(q->req_size, 2 * RK_INSP_QP_REQ_MIN);
	rk_insp_qp_fini(q);
	free(q);
}

/* A table spans RK_INSP_QP_REQ_SPAN_NS; time going back moves its base. */
static void
test_table_span(void **state)
{
	struct rk_insp_qp *q = new_qp();
	struct rk_insp_qp_ack a;
	const uint64_t t0 = 1000000000000ull;

	(void)state;
	rk_insp_qp_request(q, 1, 1, t0, false);
	rk_insp_qp_request(q, 2, 2, t0 + 3, false);
	/* Time goes back: the earlier request keeps its time, so do the others. */
	rk_insp_qp_request(q, 3, 3, t0 - 1000, false);
	rk_insp_qp_ack(q, 3, false, t0 + 10, &a);
	assert_true(a.timed);
	assert_int_equal(a.rtt_ns, 1010);
	rk_insp_qp_ack(q, 2, false, t0 + 10, &a);
	assert_true(a.timed);
	assert_int_equal(a.rtt_ns, 7);
	/* One span later, what is older than half a span is forgotten. */
	rk_insp_qp_request(q, 4, 4, t0 + RK_INSP_QP_REQ_SPAN_NS + 5, false);
	rk_insp_qp_request(q, 5, 5, t0 + RK_INSP_QP_REQ_SPAN_NS + 6, false);
	assert_false(rk_insp_qp_sent(q, 1));
	assert_false(rk_insp_qp_sent(q, 3));
	assert_int_equal(q->req_n, 2);
	rk_insp_qp_ack(q, 4, false, t0 + RK_INSP_QP_REQ_SPAN_NS + 50, &a);
	assert_true(a.timed);
	assert_int_equal(a.req_frame, 4);
	assert_int_equal(a.rtt_ns, 45);
	rk_insp_qp_ack(q, 5, false, t0 + RK_INSP_QP_REQ_SPAN_NS + 50, &a);
	assert_int_equal(a.rtt_ns, 44);
	rk_insp_qp_fini(q);
	/* Requests stamped ever earlier, from time 0 on: each keeps its time. */
	for (uint32_t i = 0; i < 3000; i++)
		rk_insp_qp_request(q, 100 + i, 1 + i, 3000000 - 1000 * i, false);
	for (uint32_t i = 2000; i < 3000; i++) {
		rk_insp_qp_ack(q, 100 + i, false, 3000000, &a);
		assert_true(a.timed);
		assert_int_equal(a.rtt_ns, 1000 * i);
	}
	rk_insp_qp_fini(q);
	free(q);
}

/*
 * An ACK or a READ response stamped before its request (merged captures)
 * gives 0, not a wrapped time.
 */
static void
test_ack_stamped_before_request(void **state)
{
	struct rk_insp_qp *q = new_qp();
	struct rk_insp_qp_ack a;
	uint32_t frame = 0;
	uint64_t rt = 1;

	(void)state;
	rk_insp_qp_request(q, 7, 1, 5000, false);
	rk_insp_qp_ack(q, 7, false, 4000, &a);
	assert_int_equal(a.req_frame, 1);
	assert_int_equal(a.rtt_ns, 0);
	/* A READ response too. */
	rk_insp_qp_request(q, 8, 2, 6000, true);
	assert_true(rk_insp_qp_read_response(q, 8, 5500, &frame, &rt));
	assert_int_equal(frame, 2);
	assert_int_equal(rt, 0);
	rk_insp_qp_fini(q);
	free(q);
}

static void
test_pairing(void **state)
{
	struct rk_insp_qp *a = new_qp(), *b = new_qp(), *c = new_qp();

	(void)state;
	rk_insp_qp_pair(a, b, RK_INSP_PEER_TRAFFIC);
	assert_ptr_equal(a->peer, b);
	assert_ptr_equal(b->peer, a);
	assert_int_equal(a->peer_src, RK_INSP_PEER_TRAFFIC);
	/* Traffic does not undo a pairing; CM overrides traffic. */
	rk_insp_qp_pair(a, c, RK_INSP_PEER_TRAFFIC);
	assert_ptr_equal(a->peer, b);
	rk_insp_qp_pair(a, c, RK_INSP_PEER_CM);
	assert_ptr_equal(a->peer, c);
	assert_ptr_equal(c->peer, a);
	assert_int_equal(c->peer_src, RK_INSP_PEER_CM);
	rk_insp_qp_fini(a);
	free(a);
	rk_insp_qp_fini(b);
	free(b);
	rk_insp_qp_fini(c);
	free(c);
}

/* Which request flow a response answers: CM first, then PSN, then the only one. */
static void
test_match(void **state)
{
	struct rk_insp_qp *r = new_qp(), *r2 = new_qp(), *x = new_qp(), *y = new_qp();
	struct rk_insp_qp_cand c[2] = { { x, 0x11 }, { y, 0x33 } };
	uint32_t cm = 0x33;

	(void)state;
	rk_insp_qp_request(x, 100, 1, 0, false);
	rk_insp_qp_request(y, 900, 2, 0, false);
	/* PSN 900 was sent by y. */
	assert_int_equal(rk_insp_qp_match(r, c, 2, 900, NULL), 1);
	assert_ptr_equal(r->peer, y);
	assert_int_equal(r->peer_src, RK_INSP_PEER_TRAFFIC);
	/* y is taken: a PSN nobody else sent fits none of two. */
	assert_int_equal(rk_insp_qp_match(r2, c, 2, 555, NULL), -1);
	assert_null(r2->peer);
	/* The only candidate that sent anything fits any PSN. */
	assert_int_equal(rk_insp_qp_match(r2, c, 1, 555, NULL), 0);
	assert_ptr_equal(r2->peer, x);
	rk_insp_qp_fini(r2);
	free(r2);
	/* The CM's word beats the PSN. */
	r2 = new_qp();
	rk_insp_qp_fini(x);
	rk_insp_qp_fini(y);
	memset(x, 0, sizeof(*x));
	memset(y, 0, sizeof(*y));
	rk_insp_qp_request(x, 7, 1, 0, false);
	assert_int_equal(rk_insp_qp_match(r2, c, 2, 7, &cm), 1);
	assert_ptr_equal(r2->peer, y);
	assert_int_equal(r2->peer_src, RK_INSP_PEER_CM);
	rk_insp_qp_fini(r);
	free(r);
	rk_insp_qp_fini(r2);
	free(r2);
	rk_insp_qp_fini(x);
	free(x);
	rk_insp_qp_fini(y);
	free(y);
}

static void
addr(uint8_t a[16], uint8_t last)
{
	memset(a, 0, 16);
	a[10] = 0xff;
	a[11] = 0xff;
	a[12] = 198;
	a[13] = 18;
	a[15] = last;
}

static void
test_cm(void **state)
{
	struct rk_insp_cm cm;
	struct rk_insp_flow_key k;
	uint8_t h1[16], h2[16];
	uint32_t qpn = 0;

	(void)state;
	rk_insp_cm_init(&cm);
	addr(h1, 1);
	addr(h2, 2);
	assert_int_equal(rk_insp_cm_rep(&cm, 0x1234, 0x22, RK_PKT_ROCEV2), -ENOENT);
	assert_int_equal(rk_insp_cm_req(&cm, h1, h2, 0x1234, 0x99), 0);
	/* A REQ resent with the same LocalCommID replaces the first. */
	assert_int_equal(rk_insp_cm_req(&cm, h1, h2, 0x1234, 0x11), 0);
	assert_int_equal(cm.nreq, 1);
	assert_int_equal(rk_insp_cm_rep(&cm, 0x1234, 0x22, RK_PKT_ROCEV2), 0);
	memset(&k, 0, sizeof(k));
	memcpy(k.src, h1, 16);
	memcpy(k.dst, h2, 16);
	k.dest_qp = 0x22;
	k.kind = RK_PKT_ROCEV2;
	assert_true(rk_insp_cm_peer(&cm, &k, &qpn));
	assert_int_equal(qpn, 0x11);
	memcpy(k.src, h2, 16);
	memcpy(k.dst, h1, 16);
	k.dest_qp = 0x11;
	assert_true(rk_insp_cm_peer(&cm, &k, &qpn));
	assert_int_equal(qpn, 0x22);
	/* Another DestQP, another kind, or LIDs: not named. */
	k.dest_qp = 0x12;
	assert_false(rk_insp_cm_peer(&cm, &k, &qpn));
	k.dest_qp = 0x11;
	k.kind = RK_PKT_ROCEV1;
	assert_false(rk_insp_cm_peer(&cm, &k, &qpn));
	k.kind = RK_PKT_ROCEV2;
	k.lid = 1;
	assert_false(rk_insp_cm_peer(&cm, &k, &qpn));
	/* Past the limit the oldest REQ is forgotten. */
	for (uint32_t i = 0; i < RK_INSP_CM_MAX; i++)
		assert_int_equal(rk_insp_cm_req(&cm, h1, h2, 0x10000 + i, i), 0);
	assert_int_equal(cm.nreq, RK_INSP_CM_MAX);
	assert_int_equal(rk_insp_cm_rep(&cm, 0x1234, 0x22, RK_PKT_ROCEV2), -ENOENT);
	assert_int_equal(rk_insp_cm_rep(&cm, 0x10001, 0x33, RK_PKT_ROCEV2), 0);
	rk_insp_cm_fini(&cm);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ack_coverage),
		cmocka_unit_test(test_ack_wrap),
		cmocka_unit_test(test_read_latency),
		cmocka_unit_test(test_ring_forgets),
		cmocka_unit_test(test_table_follows_window),
		cmocka_unit_test(test_times_only_from_pool),
		cmocka_unit_test(test_grown_copies_are_not_requests),
		cmocka_unit_test(test_table_span),
		cmocka_unit_test(test_ack_stamped_before_request),
		cmocka_unit_test(test_pairing),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_cm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
