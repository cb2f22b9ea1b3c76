/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of lib/analysis/rk_insp_timing.c: ACK RTT and READ latency
 * percentiles on the request flow, responses tied to the right request
 * flow when two QPs run between the same hosts (by PSN, and by the CM's
 * REQ/REP when the PSN cannot tell), RNR NAKs and NAKs not
 * timed, a response with no request flow counted unpaired, goodput
 * without duplicates, first and last times per flow, and the cap on timed
 * flows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rk_insp_flow.h"
#include "rk_insp_timing.h"
#include "rk_opcode.h"
#include "rk_psn.h"
#include "rk_xeth.h"

#define US 1000ull

struct fx {
	struct rk_insp_flows t;
	struct rk_insp_timing tm;
	uint64_t frame;
};

static void
set_v4(uint8_t *a, uint8_t last)
{
	memset(a, 0, 16);
	a[10] = 0xff;
	a[11] = 0xff;
	a[12] = 198;
	a[13] = 18;
	a[15] = last;
}

/* Packet @p op from host @p src to @p dst, DestQP @p qp, at @p ts. */
static struct rk_insp_flow *
feed(struct fx *x, uint8_t src, uint8_t dst, uint32_t qp, uint8_t op, uint32_t psn,
     uint32_t payload, uint8_t syndrome, uint64_t ts)
{
	const struct rk_opcode_info *oi = rk_opcode_info(op);
	struct rk_insp_roce r;
	struct rk_findings found;
	struct rk_insp_seq_result res;
	struct rk_insp_flow *f;

	memset(&r, 0, sizeof(r));
	set_v4(r.key.src, src);
	set_v4(r.key.dst, dst);
	r.key.dest_qp = qp;
	r.key.kind = RK_PKT_ROCEV2;
	r.frame = ++x->frame;
	r.ts_ns = ts;
	r.opcode = op;
	r.opflags = oi->flags;
	r.transport = oi->transport;
	r.psn = psn & RK_PSN_MASK;
	r.payload_len = payload;
	r.wirelen = 58 + payload;
	r.icrc = RK_ICRC_GOOD;
	r.has_reth = (oi->hdrs >> RK_HDR_RETH) & 1;
	r.dma_len = payload;
	r.has_aeth = (oi->hdrs >> RK_HDR_AETH) & 1;
	r.syndrome = syndrome;
	memset(&found, 0, sizeof(found));
	f = rk_insp_flow_packet(&x->t, &r, &found, &res);
	assert_non_null(f);
	rk_insp_timing_packet(&x->tm, f, &r, &res);
	return f;
}

static struct fx *
fx_new(void)
{
	struct fx *x = calloc(1, sizeof(*x));
	struct rk_insp_flow_opts o = { .pmtu = 1024 };

	assert_non_null(x);
	assert_int_equal(rk_insp_flows_init(&x->t, &o), 0);
	assert_int_equal(rk_insp_timing_init(&x->tm), 0);
	return x;
}

static void
fx_free(struct fx *x)
{
	rk_insp_timing_fini(&x->tm);
	rk_insp_flows_fini(&x->t);
	free(x);
}

#define ACK_SYN 0x1f
#define RNR_SYN 0x2e   /* RNR NAK, timer 14 */
#define NAK_SEQ 0x60   /* NAK, PSN sequence error */

static void
test_rtt_and_read(void **state)
{
	struct fx *x = fx_new();
	struct rk_insp_flow *req = NULL, *resp = NULL;
	struct rk_insp_pctl p;

	(void)state;
	/* Four WRITEs ACKed 10, 20, 30, 40 us later. */
	for (uint32_t i = 0; i < 4; i++) {
		req = feed(x, 1, 2, 0x11, RK_OP_RDMA_WRITE_ONLY, i, 100, 0, i * 1000 * US);
		resp = feed(x, 2, 1, 0x22, RK_OP_ACKNOWLEDGE, i, 0, ACK_SYN,
			    i * 1000 * US + (i + 1) * 10 * US);
	}
	/* An RNR NAK and a NAK time nothing. */
	req = feed(x, 1, 2, 0x11, RK_OP_RDMA_WRITE_ONLY, 4, 100, 0, 5000 * US);
	feed(x, 2, 1, 0x22, RK_OP_ACKNOWLEDGE, 4, 0, RNR_SYN, 5001 * US);
	feed(x, 2, 1, 0x22, RK_OP_ACKNOWLEDGE, 5, 0, NAK_SEQ, 5002 * US);
	/* A READ answered 7 us later. */
	req = feed(x, 1, 2, 0x11, RK_OP_RDMA_READ_REQUEST, 5, 256, 0, 6000 * US);
	resp = feed(x, 2, 1, 0x22, RK_OP_RDMA_READ_RESPONSE_ONLY, 5, 256, ACK_SYN,
		    6007 * US);

	assert_non_null(req->timing);
	p = rk_insp_pctl_of(req->timing->rtt);
	assert_int_equal(p.count, 4);
	/* Few values are kept exactly: rank ceil(4 x 0.5) = 2. */
	assert_int_equal(p.p50, 20 * US);
	assert_int_equal(p.p99, 40 * US);
	assert_int_equal(p.max, 40 * US);
	p = rk_insp_pctl_of(req->timing->read);
	assert_int_equal(p.count, 1);
	assert_int_equal(p.p50, 7 * US);
	assert_int_equal(p.max, 7 * US);
	/* The responder's flow measured nothing of its own. */
	assert_null(resp->timing->rtt);
	assert_null(resp->timing->read);
	assert_int_equal(req->first_ts_ns, 0);
	assert_int_equal(req->last_ts_ns, 6000 * US);
	assert_int_equal(resp->first_ts_ns, 10 * US);
	assert_int_equal(resp->last_ts_ns, 6007 * US);
	assert_int_equal(x->tm.unpaired, 0);
	/* Past RK_INSP_LAT_EXACT values the histogram takes them all: 20 more
	 * RTTs of 20 us make the median 20000 ns, in the 128-ns bucket
	 * [19968, 20095]: its top. */
	for (uint32_t i = 0; i < 20; i++) {
		uint64_t t = (7000 + 100 * i) * US;

		req = feed(x, 1, 2, 0x11, RK_OP_RDMA_WRITE_ONLY, 6 + i, 100, 0, t);
		feed(x, 2, 1, 0x22, RK_OP_ACKNOWLEDGE, 6 + i, 0, ACK_SYN, t + 20 * US);
	}
	p = rk_insp_pctl_of(req->timing->rtt);
	assert_non_null(req->timing->rtt->h);
	assert_int_equal(p.count, 24);
	assert_int_equal(p.p50, 20 * US + 95);
	assert_int_equal(p.max, 40 * US);
	fx_free(x);
}

static void
test_two_qps_same_hosts(void **state)
{
	struct fx *x = fx_new();
	struct rk_insp_flow *q1, *q2;

	(void)state;
	/* Two QPs from host 1 to host 2, PSNs far apart; ACKs to each. */
	q1 = feed(x, 1, 2, 0x11, RK_OP_SEND_ONLY, 100, 8, 0, 0);
	q2 = feed(x, 1, 2, 0x33, RK_OP_SEND_ONLY, 9000, 8, 0, 1 * US);
	feed(x, 2, 1, 0x44, RK_OP_ACKNOWLEDGE, 9000, 0, ACK_SYN, 6 * US);
	feed(x, 2, 1, 0x22, RK_OP_ACKNOWLEDGE, 100, 0, ACK_SYN, 9 * US);
	assert_int_equal(rk_insp_pctl_of(q1->timing->rtt).max, 9 * US);
	assert_int_equal(rk_insp_pctl_of(q2->timing->rtt).max, 5 * US);
	assert_int_equal(rk_insp_pctl_of(q1->timing->rtt).count, 1);
	assert_int_equal(rk_insp_pctl_of(q2->timing->rtt).count, 1);
	/* An ACK from a host no request went to: unpaired. */
	feed(x, 3, 1, 0x55, RK_OP_ACKNOWLEDGE, 1, 0, ACK_SYN, 10 * US);
	assert_int_equal(x->tm.unpaired, 1);
	fx_free(x);
}

static void
test_cm_pairing(void **state)
{
	struct fx *x = fx_new();
	struct rk_insp_flow *q1, *q2;
	uint8_t h1[16], h2[16];

	(void)state;
	set_v4(h1, 1);
	set_v4(h2, 2);
	/* The CM named 0x11 as the responder QP of requester QP 0x44. */
	assert_int_equal(rk_insp_cm_req(&x->tm.cm, h1, h2, 7, 0x44), 0);
	assert_int_equal(rk_insp_cm_rep(&x->tm.cm, 7, 0x11, RK_PKT_ROCEV2), 0);
	/* Both QPs sent PSN 5: only the CM tells the ACK's request flow. */
	q1 = feed(x, 1, 2, 0x11, RK_OP_SEND_ONLY, 5, 8, 0, 0);
	q2 = feed(x, 1, 2, 0x33, RK_OP_SEND_ONLY, 5, 8, 0, 1 * US);
	feed(x, 2, 1, 0x44, RK_OP_ACKNOWLEDGE, 5, 0, ACK_SYN, 4 * US);
	assert_null(q2->timing->rtt);
	assert_int_equal(rk_insp_pctl_of(q1->timing->rtt).max, 4 * US);
	fx_free(x);
}

static void
test_goodput_without_duplicates(void **state)
{
	struct fx *x = fx_new();
	struct rk_insp_flow *f = NULL;

	(void)state;
	for (uint32_t i = 0; i < 4; i++)
		f = feed(x, 1, 2, 0x11, RK_OP_RDMA_WRITE_ONLY, i, 1000, 0, i * US);
	/* PSNs 2 and 3 again: go-back-N. */
	feed(x, 1, 2, 0x11, RK_OP_RDMA_WRITE_ONLY, 2, 1000, 0, 5 * US);
	f = feed(x, 1, 2, 0x11, RK_OP_RDMA_WRITE_ONLY, 3, 1000, 0, 6 * US);
	assert_int_equal(f->payload_bytes, 6000);
	assert_int_equal(f->dup_payload_bytes, 2000);
	fx_free(x);
}

static void
test_cap(void **state)
{
	struct fx *x = fx_new();
	struct rk_insp_flow *f;

	(void)state;
	for (uint32_t i = 0; i < RK_INSP_TIMING_FLOWS_MAX + 3; i++)
		feed(x, 1, 2, 0x100 + i, RK_OP_SEND_ONLY, 0, 8, 0, i);
	assert_int_equal(x->tm.nflows, RK_INSP_TIMING_FLOWS_MAX);
	assert_int_equal(x->tm.untimed_flows, 3);
	/* A flow past the cap is counted once, however many packets. */
	f = feed(x, 1, 2, 0x100 + RK_INSP_TIMING_FLOWS_MAX, RK_OP_SEND_ONLY, 1, 8, 0, 1);
	assert_null(f->timing);
	assert_int_equal(x->tm.untimed_flows, 3);
	/* UD flows are not timed at all. */
	feed(x, 1, 2, 0x9999, RK_OP_TR_UD | RK_OP_SEND_ONLY, 0, 8, 0, 2);
	assert_int_equal(x->tm.untimed_flows, 3);
	fx_free(x);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rtt_and_read),
		cmocka_unit_test(test_two_qps_same_hosts),
		cmocka_unit_test(test_cm_pairing),
		cmocka_unit_test(test_goodput_without_duplicates),
		cmocka_unit_test(test_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
