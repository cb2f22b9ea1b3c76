/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/probe: frames by intent and answers classified with lib/wire alone,
 * then a conformance probe of rdmakit's own RC responder through an
 * rk_io_ops backend (the lib/ib harness behind it): ACK, NAK-RACC for a
 * bad R_Key, NAK-SEQ for a PSN ahead, NAK-INV for a lying PadCnt, the
 * duplicate re-ACKed, and the completions the target made.
 */
#include "rk_test.h"

#include <errno.h>

#include "rk_ib_harness.h"
#include "rk_probe.h"

#define EPSN 1000

static const struct rk_probe_target target0 = {
	.src_mac = { 2, 0, 0, 0, 0, 1 },
	.dst_mac = { 2, 0, 0, 0, 0, 2 },
	.src_ip = { [12] = 198, 18, 0, 1 },
	.dst_ip = { [12] = 198, 18, 0, 2 },
	.dest_qp = 0x11,
	.epsn = 0xfffffe,
};

static void
test_craft_and_classify(void **state)
{
	struct rk_xeth_fields x = { .aeth_syndrome = RK_AETH_TYPE_NAK | 2, .aeth_msn = 7 };
	struct rk_probe_intent in = {
		.opcode = RK_OP_ACKNOWLEDGE, .psn_off = 3, .x = &x, .pad_cnt = -1,
	};
	struct rk_probe_answer a;
	uint8_t buf[256];
	struct rk_pkt p;
	int n;

	(void)state;
	/* An answer crafted by intent reads back as that answer; the PSN
	 * offset wraps at 2^24. */
	n = rk_probe_craft(&target0, &in, buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal(rk_probe_answer(buf, (uint32_t)n, &a), 0);
	assert_int_equal(a.kind, RK_PROBE_NAK);
	assert_int_equal(a.code, 2);
	assert_int_equal(a.msn, 7);
	assert_int_equal(a.psn, 1);
	/* A SEND ONLY of 5 bytes: 3 pad bytes; forcing PadCnt 0 keeps a good
	 * ICRC and makes the payload 8 bytes. */
	in = (struct rk_probe_intent){ .opcode = RK_OP_SEND_ONLY, .payload = "hello", .len = 5,
				       .pad_cnt = 0 };
	n = rk_probe_craft(&target0, &in, buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal(rk_pkt_parse(&p, buf, (uint32_t)n, (uint32_t)n, RK_LINK_ETHERNET, NULL), 0);
	assert_int_equal(p.payload_len, 8);
	assert_int_equal(p.icrc_status, RK_ICRC_GOOD);
	assert_int_equal(rk_probe_answer(buf, (uint32_t)n, &a), 0);
	assert_int_equal(a.kind, RK_PROBE_REQUEST);
	/* Bad intents and frames that are not RoCE. */
	in.pad_cnt = 4;
	assert_int_equal(rk_probe_craft(&target0, &in, buf, sizeof(buf)), -EINVAL);
	memset(buf, 0, 64);
	assert_int_equal(rk_probe_answer(buf, 64, &a), -EINVAL);
	assert_int_equal(a.kind, RK_PROBE_NONE);
	assert_int_equal(rk_probe_set_pad_cnt(buf, 64, 1), -EINVAL);
}

static void
test_iw_terminate(void **state)
{
	uint8_t u[64];
	struct rk_rdmap_msg m;
	struct rk_probe_answer a;
	struct rk_rdmap_term_fields t = { .layer = 1, .etype = 2, .err_code = 3 };
	uint16_t n = rk_probe_iw_untagged(u, RK_RDMAP_TERMINATE, RK_RDMAP_QN_TERMINATE, 1, 0, true);

	(void)state;
	rk_rdmap_term_pack(u + n, &t);
	assert_int_equal(rk_rdmap_parse(u, (uint32_t)(n + RK_RDMAP_TERM_CTRL_LEN), &m, NULL), 0);
	assert_int_equal(rk_probe_iw_answer(&m, &a), 0);
	assert_int_equal(a.kind, RK_PROBE_TERMINATE);
	assert_int_equal(a.term_layer, 1);
	assert_int_equal(a.term_etype, 2);
	assert_int_equal(a.term_code, 3);
	n = rk_probe_iw_write(u, 0x1234, 0x10, true, "ab", 2);
	assert_int_equal(rk_rdmap_parse(u, n, &m, NULL), 0);
	assert_int_equal(rk_probe_iw_answer(&m, &a), 0);
	assert_int_equal(a.kind, RK_PROBE_IW_OTHER);
	assert_int_equal(a.opcode, RK_RDMAP_WRITE);
}

/* ---- a backend whose far end is the lib/ib harness's side b ---- */

static struct harness H;
static unsigned int qpos, qlen;

static int
io_tx(void *io, const uint8_t *frame, uint32_t len)
{
	struct h_frame f;

	(void)io;
	memcpy(f.data, frame, len);
	f.len = len;
	h_rx(&H, &H.b, &f);
	return 0;
}

static int
io_rx(void *io, uint8_t *buf, uint32_t cap)
{
	(void)io;
	if (qpos == qlen) {
		qlen = h_tx(&H, &H.b);
		qpos = 0;
		if (qlen == 0)
			return 0;
	}
	if (H.q[qpos].len > cap)
		return -EMSGSIZE;
	memcpy(buf, H.q[qpos].data, H.q[qpos].len);
	return (int)H.q[qpos++].len;
}

static uint64_t
io_now(void *io)
{
	(void)io;
	return H.now;
}

static const struct rk_io_ops harness_ops = {
	.name = "harness",
	.tx = io_tx,
	.rx = io_rx,
	.now_ns = io_now,
};

static void
probe_up(struct rk_probe *p)
{
	h_init(&H, &(struct h_opts){ .a_psn = EPSN });
	qpos = qlen = 0;
	memset(p, 0, sizeof(*p));
	p->ops = &harness_ops;
	memcpy(p->target.src_mac, H.a.mac, 6);
	memcpy(p->target.dst_mac, H.b.mac, 6);
	memcpy(p->target.src_ip, H.a.ip, 16);
	memcpy(p->target.dst_ip, H.b.ip, 16);
	p->target.dest_qp = rk_ib_qp_num(H.b.qp);
	p->target.epsn = EPSN;
}

static void
test_live_responder(void **state)
{
	struct rk_probe p;
	struct rk_probe_answer a[8];
	struct rk_xeth_fields x;
	struct rk_probe_intent in;
	struct rk_wc wc;

	(void)state;
	probe_up(&p);
	/* A good WRITE ONLY: ACKed at its PSN, the bytes placed. */
	x = (struct rk_xeth_fields){ .reth_va = h_va(&H.b, 0),
				     .reth_r_key = rk_ib_mr_rkey(H.b.mr), .reth_dma_len = 4 };
	in = (struct rk_probe_intent){ .opcode = RK_OP_RDMA_WRITE_ONLY, .ack_req = true, .x = &x,
				       .payload = "abcd", .len = 4, .pad_cnt = -1 };
	assert_int_equal(rk_probe_send(&p, &in), 0);
	assert_int_equal(rk_probe_collect(&p, a, 8), 1);
	assert_int_equal(a[0].kind, RK_PROBE_ACK);
	assert_int_equal(a[0].psn, EPSN);
	assert_memory_equal(H.b.mem, "abcd", 4);
	/* The same again is a duplicate: ACKed again, nothing NAKed. */
	assert_int_equal(rk_probe_send(&p, &in), 0);
	assert_int_equal(rk_probe_collect(&p, a, 8), 1);
	assert_int_equal(a[0].kind, RK_PROBE_ACK);
	/* A PSN ahead of the expected one: NAK sequence error at the PSN
	 * expected (IBTA Vol1 9.7.5.1.1). */
	p.target.epsn = EPSN + 1;
	in.psn_off = 5;
	assert_int_equal(rk_probe_send(&p, &in), 0);
	assert_int_equal(rk_probe_collect(&p, a, 8), 1);
	assert_int_equal(a[0].kind, RK_PROBE_NAK);
	assert_int_equal(a[0].code, RK_AETH_NAK_PSN_SEQ_ERR);
	assert_int_equal(a[0].psn, EPSN + 1);
	h_fini(&H);

	/* A bad R_Key: NAK remote access error, and the QP goes to error. */
	probe_up(&p);
	x.reth_r_key ^= 0x100;
	in.psn_off = 0;
	assert_int_equal(rk_probe_send(&p, &in), 0);
	assert_int_equal(rk_probe_collect(&p, a, 8), 1);
	assert_int_equal(a[0].kind, RK_PROBE_NAK);
	assert_int_equal(a[0].code, RK_AETH_NAK_REMOTE_ACCESS_ERR);
	h_fini(&H);

	/* A SEND FIRST whose PadCnt is not 0 (BTH-PAD-02): NAK invalid
	 * request; a SEND ONLY whose PadCnt claims 1 byte of 4 completes
	 * with 1 byte. */
	probe_up(&p);
	h_post_recv(&H.b, 5, 0, 4096);
	{
		static uint8_t pay[1024];

		in = (struct rk_probe_intent){ .opcode = RK_OP_SEND_FIRST, .ack_req = true,
					       .payload = pay, .len = sizeof(pay), .pad_cnt = 2 };
	}
	assert_int_equal(rk_probe_send(&p, &in), 0);
	assert_int_equal(rk_probe_collect(&p, a, 8), 1);
	assert_int_equal(a[0].kind, RK_PROBE_NAK);
	assert_int_equal(a[0].code, RK_AETH_NAK_INVALID_REQUEST);
	h_fini(&H);
	probe_up(&p);
	h_post_recv(&H.b, 5, 0, 4096);
	in = (struct rk_probe_intent){ .opcode = RK_OP_SEND_ONLY, .ack_req = true,
				       .payload = "wxyz", .len = 4, .pad_cnt = 3 };
	assert_int_equal(rk_probe_send(&p, &in), 0);
	assert_int_equal(rk_probe_collect(&p, a, 8), 1);
	assert_int_equal(a[0].kind, RK_PROBE_ACK);
	assert_int_equal(h_poll(H.b.rcq, &wc), 1);
	assert_int_equal(wc.status, RK_WC_SUCCESS);
	assert_int_equal(wc.byte_len, 1);
	h_fini(&H);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_craft_and_classify),
		cmocka_unit_test(test_iw_terminate),
		cmocka_unit_test(test_live_responder),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
