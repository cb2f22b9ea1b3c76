/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/iwarp against a hand-driven peer: every error the engine must answer
 * with a Terminate (layer, EType and code of RFC 5040 4.8's table), the teardown
 * after it, nothing placed from the offending FPDU, MPA set-up failures,
 * and hostile byte streams that must never crash it.
 */
#include "rk_test.h"

#include <errno.h>

#include "rk_iw_harness.h"
#include "rk_iw_reason.h"

/* The DUT side of a raw-peer test: one region of each kind. */
struct dut {
	struct raw_peer rp;
	uint8_t wbuf[256];          /* REMOTE_WRITE */
	uint8_t rbuf[256];          /* REMOTE_READ */
	uint8_t nbuf[64];           /* local only */
	uint8_t ibuf[64];           /* REMOTE_INVALIDATE */
	uint8_t recv[128];
	struct rk_iw_mr *wmr, *rmr, *nmr, *imr, *recvmr, *other;
	struct rk_iw_pd *pd2;
};

static void
dut_up(struct dut *d, const struct rk_iw_conn_attr *cr, const struct rk_mpa_rr *req, bool ext,
       int nrecv)
{
	struct rk_iw_conn_attr c;
	struct rk_mpa_rr r;
	struct rk_sge sg;
	struct rk_recv_wr rw;

	memset(d, 0, sizeof(*d));
	if (cr == NULL) {
		iwp_conn_default(&c, RK_IW_RESPONDER);
		c.ird = 2;
		cr = &c;
	}
	if (req == NULL) {
		rk_probe_mpa_default_req(&r);
		req = &r;
	}
	rp_init(&d->rp, cr, req, ext);
	assert_true(d->rp.mp.got_reply);
	memset(d->wbuf, 0xaa, sizeof(d->wbuf));
	rk_test_fill(d->rbuf, sizeof(d->rbuf));
	d->wmr = rk_iw_mr_reg(d->rp.pd, d->wbuf, sizeof(d->wbuf),
			      RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE);
	d->rmr = rk_iw_mr_reg(d->rp.pd, d->rbuf, sizeof(d->rbuf), RK_ACCESS_REMOTE_READ);
	d->nmr = rk_iw_mr_reg(d->rp.pd, d->nbuf, sizeof(d->nbuf), RK_ACCESS_LOCAL_WRITE);
	d->imr = rk_iw_mr_reg(d->rp.pd, d->ibuf, sizeof(d->ibuf),
			      RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_INVALIDATE);
	d->recvmr = rk_iw_mr_reg(d->rp.pd, d->recv, sizeof(d->recv), RK_ACCESS_LOCAL_WRITE);
	d->pd2 = rk_iw_pd_alloc(d->rp.dev);
	d->other = rk_iw_mr_reg(d->pd2, d->nbuf, sizeof(d->nbuf),
				RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE);
	assert_non_null(d->other);
	for (int i = 0; i < nrecv; i++) {
		sg = (struct rk_sge){ (uintptr_t)d->recv, sizeof(d->recv), rk_iw_mr_stag(d->recvmr) };
		rw = (struct rk_recv_wr){ 10 + (uint64_t)i, NULL, &sg, 1 };
		assert_int_equal(rk_iw_post_recv(d->rp.qp, &rw, NULL), 0);
	}
}

static void
dut_down(struct dut *d)
{
	rp_fini(&d->rp);
}

/* The engine's last message is a Terminate with these codes, then it closes. */
static const struct rk_probe_iw_msg *
expect_term(struct dut *d, uint8_t layer, uint8_t etype, uint8_t code)
{
	const struct rk_probe_iw_msg *t;
	const struct rk_iw_error *e;

	rp_pump(&d->rp);
	assert_true(d->rp.mp.nmsgs > 0);
	t = &d->rp.mp.msgs[d->rp.mp.nmsgs - 1];
	assert_true(t->crc_ok);
	assert_int_equal(t->opcode, RK_RDMAP_TERMINATE);
	assert_int_equal(t->t, 0);
	assert_int_equal(t->qn, RK_RDMAP_QN_TERMINATE);
	assert_int_equal(t->msn, 1);
	assert_int_equal(t->mo, 0);
	assert_int_equal(t->l, 1);
	assert_int_equal(t->ans.kind, RK_PROBE_TERMINATE);
	assert_int_equal(t->ans.term_layer, layer);
	assert_int_equal(t->ans.term_etype, etype);
	assert_int_equal(t->ans.term_code, code);
	for (unsigned int i = 0; i + 1 < d->rp.mp.nmsgs; i++)
		assert_int_not_equal(d->rp.mp.msgs[i].opcode, RK_RDMAP_TERMINATE);
	assert_int_equal(rk_iw_qp_state(d->rp.qp), RK_IW_CLOSED);
	assert_true(rk_iw_want_close(d->rp.qp));
	e = rk_iw_qp_error(d->rp.qp);
	assert_int_equal(e->reason, RK_IW_CLOSE_TERM_SENT);
	assert_int_equal(e->layer, layer);
	assert_int_equal(e->etype, etype);
	assert_int_equal(e->code, code);
	assert_int_equal(rk_iw_dev_stats(d->rp.dev)->term_sent, 1);
	/* One reason counted, naming a rule, whose Terminate is the one sent. */
	{
		enum rk_iw_reason why = rk_iw_qp_last_reason(d->rp.qp);
		const struct rk_iw_reason_info *r = rk_iw_reason_info(why);

		assert_int_not_equal(why, RK_IW_R_NONE);
		assert_non_null(r);
		assert_int_equal(r->layer, layer);
		assert_int_equal(r->etype, etype);
		assert_int_equal(r->code, code);
		assert_int_equal(rk_iw_qp_reason_stats(d->rp.qp)->count[why], 1);
		assert_string_not_equal(r->rule, "-");
		assert_true(rk_xstats_find(&rk_iw_reason_xstats, r->name) >= 0);
	}
	/* The stream is dead: more bytes are refused, nothing more is sent. */
	{
		uint8_t u[64], junk[32];
		uint16_t n = rk_probe_iw_write(u, rk_iw_mr_stag(d->wmr), (uintptr_t)d->wbuf, true, junk, 4);

		(void)n;
		assert_int_equal(rk_iw_rx(d->rp.qp, u, 8, d->rp.now), -EPIPE);
		assert_int_equal(rk_iw_tx(d->rp.qp, junk, sizeof(junk), d->rp.now), 0);
	}
	return t;
}

static void
assert_untouched(const struct dut *d)
{
	for (size_t i = 0; i < sizeof(d->wbuf); i++)
		assert_int_equal(d->wbuf[i], 0xaa);
}

/* A good Write first, so the DUT is in RTS and placement works at all. */
static void
good_write(struct dut *d)
{
	uint8_t u[64], data[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint16_t n = rk_probe_iw_write(u, rk_iw_mr_stag(d->wmr), (uintptr_t)d->wbuf + 200, true, data, 8);

	rp_send(&d->rp, u, n, false, 0);
	assert_memory_equal(d->wbuf + 200, data, 8);
	memset(d->wbuf + 200, 0xaa, 8);
	assert_int_equal(rk_iw_qp_state(d->rp.qp), RK_IW_RTS);
}

/* MPA-CRC-02: bad CRC -> TERM 2/0/0x02, nothing placed, at every split. */
static void
test_bad_crc(void **state)
{
	uint8_t u[128], data[64];

	(void)state;
	rk_test_fill(data, sizeof(data));
	for (size_t split = 0; split < 90; split++) {
		struct dut d;
		const struct rk_probe_iw_msg *t;
		struct rk_wc wc[4];
		uint16_t n;

		dut_up(&d, NULL, NULL, false, 1);
		good_write(&d);
		n = rk_probe_iw_write(u, rk_iw_mr_stag(d.wmr), (uintptr_t)d.wbuf, true, data, sizeof(data));
		rp_send(&d.rp, u, n, true, split);
		t = expect_term(&d, RK_TERM_LAYER_LLP, 0, 0x02);
		/* Headers of a corrupt FPDU are not echoed. */
		assert_int_equal(t->term.d, 0);
		assert_int_equal(t->term.m, 0);
		assert_int_equal(t->term.r, 0);
		assert_untouched(&d);
		/* The posted receive is flushed. */
		assert_int_equal(iw_poll_all(d.rp.cq, wc, 4), 1);
		assert_int_equal(wc[0].status, RK_WC_WR_FLUSH_ERR);
		dut_down(&d);
	}
}

/* MPA-MRK-02: a marker with a wrong FPDUPTR -> TERM 2/0/0x03. */
static void
test_bad_marker(void **state)
{
	struct rk_iw_conn_attr c;
	struct dut d;
	uint8_t u[700], data[600], f[1024];
	struct rk_mpa_tx tx;
	uint16_t n;
	int w;

	(void)state;
	iwp_conn_default(&c, RK_IW_RESPONDER);
	c.markers_rx = true;
	dut_up(&d, &c, NULL, false, 0);
	assert_true(d.rp.mp.markers_to_dut);
	good_write(&d);
	n = rk_probe_iw_write(u, rk_iw_mr_stag(d.wmr), (uintptr_t)d.wbuf, true, data, 500);
	tx = (struct rk_mpa_tx){ true, true, d.rp.mp.seq, d.rp.mp.seq0 };
	w = rk_mpa_fpdu_build(f, sizeof(f), u, n, &tx);
	assert_true(w > 0);
	/* The grid point inside this FPDU: 512 after SeqStart. */
	{
		uint32_t at = d.rp.mp.seq0 + 512 - d.rp.mp.seq;

		assert_true(at + 4 < (uint32_t)w);
		assert_int_equal(rk_get_be16(f + at), 0);
		f[at + 3] ^= 4;   /* FPDUPTR off by 4; CRC still matches nothing */
	}
	/* Recompute the CRC so only the marker is wrong. */
	{
		uint32_t crc = rk_crc32c(f, (size_t)w - 4);

		for (int i = 0; i < 4; i++)
			f[w - 4 + i] = (uint8_t)(crc >> (8 * i));
	}
	rp_send_raw(&d.rp, f, (size_t)w);
	expect_term(&d, RK_TERM_LAYER_LLP, 0, 0x03);
	assert_untouched(&d);
	dut_down(&d);
}

/* Tagged placement errors (DDP-STAG-01, DDP-BND-01, DDP-WRAP-01, access). */
static void
test_tagged_errors(void **state)
{
	uint8_t u[128], data[32];

	(void)state;
	rk_test_fill(data, sizeof(data));
	for (int k = 0; k < 6; k++) {
		struct dut d;
		const struct rk_probe_iw_msg *t;
		uint32_t stag;
		uint64_t to;
		uint8_t layer = RK_TERM_LAYER_DDP, etype = 1, code;
		uint16_t n;

		dut_up(&d, NULL, NULL, false, 0);
		good_write(&d);
		stag = rk_iw_mr_stag(d.wmr);
		to = (uintptr_t)d.wbuf;
		switch (k) {
		case 0:     /* one byte past the end */
			to += sizeof(d.wbuf) - sizeof(data) + 1;
			code = 0x01;
			break;
		case 1:     /* below the base */
			to -= 1;
			code = 0x01;
			break;
		case 2:     /* unknown STag (stale key) */
			stag ^= 0x01;
			code = 0x00;
			break;
		case 3:     /* another PD's region */
			stag = rk_iw_mr_stag(d.other);
			to = (uintptr_t)d.nbuf;
			code = 0x02;
			break;
		case 4:     /* TO + length wraps 2^64 */
			to = ~0ull - 8;
			code = 0x03;
			break;
		default:    /* no REMOTE_WRITE: RDMAP access rights */
			stag = rk_iw_mr_stag(d.rmr);
			to = (uintptr_t)d.rbuf;
			layer = RK_TERM_LAYER_RDMAP;
			code = 0x02;
			break;
		}
		n = rk_probe_iw_write(u, stag, to, true, data, sizeof(data));
		rp_send(&d.rp, u, n, false, 7);
		t = expect_term(&d, layer, etype, code);
		/* The offending DDP header comes back, with its segment length. */
		assert_int_equal(t->term.d, 1);
		assert_int_equal(t->term.m, 1);
		assert_int_equal(t->term.r, 0);
		assert_int_equal(t->term_seg_len, n);
		assert_memory_equal(t->term_ddp, u, RK_DDP_TAGGED_LEN);
		assert_untouched(&d);
		dut_down(&d);
	}
}

/* Untagged errors: DDP-MSN-01/02, DDP-MO-01, DDP-LONG-01, DDP-QN-01, versions, opcodes. */
static void
test_untagged_errors(void **state)
{
	struct {
		const char *what;
		uint8_t layer, etype, code;
		int nrecv;
		const char *reason;     /* what the engine counts (rk_iw_reason.h) */
	} cases[] = {
		{ "no receive posted", 1, 2, 0x02, 0, "ddp.untagged.no_buffer" },
		{ "MSN ahead", 1, 2, 0x03, 1, "ddp.untagged.msn_range" },
		{ "MO wrong", 1, 2, 0x04, 1, "ddp.untagged.mo" },
		{ "too long", 1, 2, 0x05, 1, "ddp.untagged.too_long" },
		{ "Send on QN 1", 1, 2, 0x01, 1, "ddp.untagged.qn" },
		{ "untagged DV 0", 1, 2, 0x06, 1, "ddp.untagged.version" },
		{ "tagged DV 2", 1, 1, 0x04, 1, "ddp.tagged.version" },
		{ "RV 2", 0, 2, 0x05, 1, "rdmap.version" },
		{ "opcode 12", 0, 2, 0x06, 1, "rdmap.opcode.unexpected" },
		{ "Immediate Data without RFC 7306", 0, 2, 0x06, 1, "rdmap.opcode.unexpected" },
		{ "tagged Send", 0, 2, 0x06, 1, "rdmap.opcode.unexpected" },
		{ "Invalidate a plain STag", 0, 1, 0x09, 1, "rdmap.invalidate.stag" },
		{ "unsolicited Read Response", 0, 2, 0x06, 1, "rdmap.read_resp.unexpected" },
		{ "Atomic without RFC 7306", 0, 2, 0x06, 1, "rdmap.opcode.unexpected" },
	};
	uint8_t u[512], data[200];

	(void)state;
	rk_test_fill(data, sizeof(data));
	for (unsigned int k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct dut d;
		struct rk_wc wc[4];
		uint16_t n;

		dut_up(&d, NULL, NULL, false, cases[k].nrecv);
		good_write(&d);
		switch (k) {
		case 0:
			n = rk_probe_iw_send(u, RK_RDMAP_SEND, 1, 0, true, 0, data, 10);
			break;
		case 1:
			n = rk_probe_iw_send(u, RK_RDMAP_SEND, 6, 0, true, 0, data, 10);
			break;
		case 2:
			/* First segment fine, the second claims MO 5 after 10 bytes. */
			n = rk_probe_iw_send(u, RK_RDMAP_SEND, 1, 0, false, 0, data, 10);
			rp_send(&d.rp, u, n, false, 0);
			n = rk_probe_iw_send(u, RK_RDMAP_SEND, 1, 5, true, 0, data, 10);
			break;
		case 3:
			n = rk_probe_iw_send(u, RK_RDMAP_SEND, 1, 0, false, 0, data, 100);
			rp_send(&d.rp, u, n, false, 0);
			n = rk_probe_iw_send(u, RK_RDMAP_SEND, 1, 100, true, 0, data, 100);
			break;
		case 4:
			n = rk_probe_iw_send(u, RK_RDMAP_SEND, 1, 0, true, 0, data, 10);
			rk_ddp_set_qn(u, 1);
			break;
		case 5:
			n = rk_probe_iw_send(u, RK_RDMAP_SEND, 1, 0, true, 0, data, 10);
			rk_ddp_set_dv(u, 0);
			break;
		case 6:
			n = rk_probe_iw_write(u, rk_iw_mr_stag(d.wmr), (uintptr_t)d.wbuf, true, data, 10);
			rk_ddp_set_dv(u, 2);
			break;
		case 7:
			n = rk_probe_iw_send(u, RK_RDMAP_SEND, 1, 0, true, 0, data, 10);
			rk_rdmap_set_rv(u, 2);
			break;
		case 8:
			n = rk_probe_iw_send(u, RK_RDMAP_SEND, 1, 0, true, 0, data, 10);
			rk_rdmap_set_opcode(u, 12);
			break;
		case 9:
			n = rk_probe_iw_send(u, RK_RDMAP_IMMDT, 1, 0, true, 0, data, 8);
			break;
		case 10:
			n = rk_probe_iw_write(u, rk_iw_mr_stag(d.wmr), (uintptr_t)d.wbuf, true, data, 10);
			rk_rdmap_set_opcode(u, RK_RDMAP_SEND);
			break;
		case 11:
			n = rk_probe_iw_send(u, RK_RDMAP_SEND_INV, 1, 0, true, rk_iw_mr_stag(d.wmr), data, 10);
			break;
		case 12:
			n = rk_probe_iw_write(u, rk_iw_mr_stag(d.wmr), (uintptr_t)d.wbuf, true, data, 10);
			rk_rdmap_set_opcode(u, RK_RDMAP_READ_RESP);
			break;
		default:
			n = rk_probe_iw_untagged(u, RK_RDMAP_ATOMIC_REQ, RK_RDMAP_QN_ATOMIC_REQ, 1, 0, true);
			memset(u + n, 0, RK_RDMAP_ATOMIC_REQ_LEN);
			n += RK_RDMAP_ATOMIC_REQ_LEN;
			break;
		}
		rp_send(&d.rp, u, n, false, 3);
		print_message("# %s\n", cases[k].what);
		expect_term(&d, cases[k].layer, cases[k].etype, cases[k].code);
		assert_string_equal(rk_iw_reason_info(rk_iw_qp_last_reason(d.rp.qp))->name,
				    cases[k].reason);
		assert_untouched(&d);
		if (k == 11)
			assert_false(rk_iw_mr_invalidated(d.wmr));
		if (cases[k].nrecv > 0) {
			assert_int_equal(iw_poll_all(d.rp.cq, wc, 4), 1);
			assert_int_not_equal(wc[0].status, RK_WC_SUCCESS);
		}
		dut_down(&d);
	}
}

/* RDMAP-RR-02/03: Reads past IRD, bad Data Source, malformed Read Request. */
static void
test_read_errors(void **state)
{
	uint8_t u[128];

	(void)state;
	for (int k = 0; k < 5; k++) {
		struct dut d;
		struct rk_rdmap_read_req_fields rr;
		const struct rk_probe_iw_msg *t;
		uint8_t code = 0, etype = 1;
		uint16_t n;

		dut_up(&d, NULL, NULL, false, 0);
		good_write(&d);
		memset(&rr, 0, sizeof(rr));
		rr.sink_stag = 0x1234;
		rr.sink_to = 0x5000;
		rr.rdma_rd_sz = 64;
		rr.src_stag = rk_iw_mr_stag(d.rmr);
		rr.src_to = (uintptr_t)d.rbuf;
		switch (k) {
		case 0:
			/* IRD is 2: three Reads before any response is taken. */
			for (uint32_t i = 1; i <= 2; i++) {
				n = rk_probe_iw_read_req(u, i, &rr);
				rp_send(&d.rp, u, n, false, 0);
			}
			n = rk_probe_iw_read_req(u, 3, &rr);
			etype = 2;
			code = 0x07;
			break;
		case 1:
			rr.src_stag ^= 0x80;
			n = rk_probe_iw_read_req(u, 1, &rr);
			code = 0x00;
			break;
		case 2:
			rr.rdma_rd_sz = sizeof(d.rbuf) + 1;
			n = rk_probe_iw_read_req(u, 1, &rr);
			code = 0x01;
			break;
		case 3:
			/* A source without REMOTE_READ. */
			rr.src_stag = rk_iw_mr_stag(d.wmr);
			rr.src_to = (uintptr_t)d.wbuf;
			n = rk_probe_iw_read_req(u, 1, &rr);
			code = 0x02;
			break;
		default:
			/* RDMAP-RR-01: four stray payload bytes. */
			n = rk_probe_iw_read_req(u, 1, &rr);
			memset(u + n, 0, 4);
			n += 4;
			etype = 2;
			code = 0xff;
			break;
		}
		rp_send(&d.rp, u, n, false, 20);
		t = expect_term(&d, RK_TERM_LAYER_RDMAP, etype, code);
		assert_int_equal(t->term.d, 1);
		assert_memory_equal(t->term_ddp, u, RK_DDP_UNTAGGED_LEN);
		if (k < 4) {
			/* The Read Request header is echoed too. */
			assert_int_equal(t->term.r, 1);
			assert_memory_equal(t->term_rdmap, u + RK_DDP_UNTAGGED_LEN,
					    RK_RDMAP_READ_REQ_LEN);
		}
		/* No Read Response went out for a refused Read. */
		for (unsigned int i = 0; i < d.rp.mp.nmsgs; i++)
			if (k != 0)
				assert_int_not_equal(d.rp.mp.msgs[i].opcode, RK_RDMAP_READ_RESP);
		dut_down(&d);
	}
}

/* A good Read answered by the engine, segment by segment. */
static void
test_read_response(void **state)
{
	struct rk_iw_conn_attr c;
	struct rk_rdmap_read_req_fields rr;
	struct dut d;
	uint8_t u[128];
	uint32_t got = 0;
	uint16_t n;

	(void)state;
	iwp_conn_default(&c, RK_IW_RESPONDER);
	c.emss = 128;
	dut_up(&d, &c, NULL, false, 0);
	memset(&rr, 0, sizeof(rr));
	rr.sink_stag = 0x4321;
	rr.sink_to = 0x10000;
	rr.rdma_rd_sz = sizeof(d.rbuf);
	rr.src_stag = rk_iw_mr_stag(d.rmr);
	rr.src_to = (uintptr_t)d.rbuf;
	n = rk_probe_iw_read_req(u, 1, &rr);
	rp_send(&d.rp, u, n, false, 0);
	rp_pump(&d.rp);
	assert_true(d.rp.mp.nmsgs >= 3);
	for (unsigned int i = 0; i < d.rp.mp.nmsgs; i++) {
		const struct rk_probe_iw_msg *m = &d.rp.mp.msgs[i];

		assert_int_equal(m->opcode, RK_RDMAP_READ_RESP);
		assert_int_equal(m->t, 1);
		assert_int_equal(m->stag, 0x4321);
		assert_int_equal(m->to, 0x10000 + got);
		assert_int_equal(m->l, i + 1 == d.rp.mp.nmsgs);
		assert_memory_equal(m->payload, d.rbuf + got, m->payload_len);
		got += m->payload_len;
	}
	assert_int_equal(got, sizeof(d.rbuf));
	assert_int_equal(rk_iw_qp_state(d.rp.qp), RK_IW_RTS);
	dut_down(&d);
}

/* The Data Source deregistered between the Read Request and its response. */
static void
test_read_source_gone(void **state)
{
	struct rk_rdmap_read_req_fields rr;
	struct dut d;
	uint8_t u[128];
	const struct rk_probe_iw_msg *t;
	uint16_t n;

	(void)state;
	dut_up(&d, NULL, NULL, false, 0);
	good_write(&d);
	memset(&rr, 0, sizeof(rr));
	rr.sink_stag = 0x4321;
	rr.rdma_rd_sz = 64;
	rr.src_stag = rk_iw_mr_stag(d.rmr);
	rr.src_to = (uintptr_t)d.rbuf;
	n = rk_probe_iw_read_req(u, 1, &rr);
	rp_send(&d.rp, u, n, false, 0);
	assert_int_equal(rk_iw_mr_dereg(d.rmr), 0);
	t = expect_term(&d, RK_TERM_LAYER_RDMAP, 1, 0x00);
	assert_int_equal(t->term.d, 0);
	for (unsigned int i = 0; i < d.rp.mp.nmsgs; i++)
		assert_int_not_equal(d.rp.mp.msgs[i].opcode, RK_RDMAP_READ_RESP);
	dut_down(&d);
}

/* Our own Send names an SGE whose STag is wrong: local protection error. */
static void
test_local_protection(void **state)
{
	struct dut d;
	struct rk_sge sg;
	struct rk_send_wr wr;
	struct rk_wc wc[4];

	(void)state;
	dut_up(&d, NULL, NULL, false, 0);
	good_write(&d);
	sg = (struct rk_sge){ (uintptr_t)d.nbuf, 16, rk_iw_mr_stag(d.nmr) ^ 1 };
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 77;
	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.opcode = RK_WR_SEND;
	assert_int_equal(rk_iw_post_send(d.rp.qp, &wr, NULL), 0);
	expect_term(&d, RK_TERM_LAYER_RDMAP, 0, 0x00);
	assert_int_equal(iw_poll_all(d.rp.cq, wc, 4), 1);
	assert_int_equal(wc[0].wr_id, 77);
	assert_int_equal(wc[0].status, RK_WC_LOC_PROT_ERR);
	dut_down(&d);
}

/* RDMAP-TERM-01: a Terminate received is not answered; the QP closes. */
static void
test_term_received(void **state)
{
	struct dut d;
	uint8_t u[64], data[4] = { 9, 9, 9, 9 };
	struct rk_rdmap_term_fields t = { 1, 1, 0x01, 0, 0, 0, 0 };
	struct rk_wc wc[4];
	uint16_t n;

	(void)state;
	dut_up(&d, NULL, NULL, false, 2);
	good_write(&d);
	n = rk_probe_iw_untagged(u, RK_RDMAP_TERMINATE, RK_RDMAP_QN_TERMINATE, 1, 0, true);
	rk_rdmap_term_pack(u + n, &t);
	n += RK_RDMAP_TERM_CTRL_LEN;
	rp_send(&d.rp, u, n, false, 0);
	/* A Write after it is not placed; the engine sends nothing at all. */
	n = rk_probe_iw_write(u, rk_iw_mr_stag(d.wmr), (uintptr_t)d.wbuf, true, data, 4);
	rp_send(&d.rp, u, n, false, 0);
	rp_pump(&d.rp);
	assert_int_equal(d.rp.mp.nmsgs, 0);
	assert_untouched(&d);
	assert_int_equal(rk_iw_qp_state(d.rp.qp), RK_IW_CLOSED);
	assert_true(rk_iw_want_close(d.rp.qp));
	assert_int_equal(rk_iw_qp_error(d.rp.qp)->reason, RK_IW_CLOSE_TERM_RCVD);
	assert_int_equal(rk_iw_qp_error(d.rp.qp)->layer, 1);
	assert_int_equal(rk_iw_qp_error(d.rp.qp)->code, 0x01);
	assert_int_equal(rk_iw_dev_stats(d.rp.dev)->term_sent, 0);
	assert_int_equal(iw_poll_all(d.rp.cq, wc, 4), 2);
	assert_int_equal(wc[0].status, RK_WC_WR_FLUSH_ERR);
	assert_int_equal(wc[1].status, RK_WC_WR_FLUSH_ERR);
	dut_down(&d);
}

/* MPA set-up failures of a Responder. */
static void
test_mpa_refusals(void **state)
{
	(void)state;
	for (int k = 0; k < 6; k++) {
		struct rk_iw_dev *dev = rk_iw_dev_create(NULL);
		struct rk_iw_pd *pd = rk_iw_pd_alloc(dev);
		struct rk_iw_cq *cq = rk_iw_cq_create(dev, 16);
		struct rk_iw_qp_init_attr qa;
		struct rk_iw_qp *qp;
		struct rk_mpa_rr req;
		uint8_t fr[600], out[600];
		size_t got;
		int w;

		memset(&qa, 0, sizeof(qa));
		qa.send_cq = qa.recv_cq = cq;
		qa.cap.max_send_wr = qa.cap.max_recv_wr = 4;
		iwp_conn_default(&qa.conn, RK_IW_RESPONDER);
		qp = rk_iw_qp_create(pd, &qa, 0);
		assert_non_null(qp);
		rk_probe_mpa_default_req(&req);
		switch (k) {
		case 3: req.rev = 3; break;
		case 4: req.r = 1; break;
		case 5: req.has_ird_ord = false; req.ulp_pd = fr; req.ulp_pd_len = 2; break;
		default: break;
		}
		w = rk_mpa_rr_build(fr + 100, sizeof(fr) - 100, &req);
		memcpy(fr, fr + 100, (size_t)w);
		if (k == 0)
			fr[3] = 'X';                    /* MPA-KEY-01 */
		if (k == 1)
			memcpy(fr, RK_MPA_KEY_REP, 16); /* a Reply to a Responder */
		if (k == 2)
			rk_mpa_rr_set_pd_len(fr, 513);  /* MPA-PD-01 */
		assert_int_equal(rk_iw_rx(qp, fr, (size_t)w, 0), 0);
		got = rk_iw_tx(qp, out, sizeof(out), 0);
		if (k <= 2) {
			/* A stranger gets no answer. */
			assert_int_equal(got, 0);
			assert_int_equal(rk_iw_qp_error(qp)->reason, RK_IW_CLOSE_MPA_BAD);
		} else {
			struct rk_mpa_rr rep;

			/* A reject Reply, then close. */
			assert_true(rk_mpa_rr_parse(out, got, &rep, NULL) > 0);
			assert_true(rep.reply);
			assert_int_equal(rep.r, 1);
			assert_int_equal(rk_iw_qp_error(qp)->reason, RK_IW_CLOSE_MPA_REJECTED);
		}
		assert_int_equal(rk_iw_qp_state(qp), RK_IW_CLOSED);
		assert_true(rk_iw_want_close(qp));
		rk_iw_dev_destroy(dev);
	}
}

/* MPA set-up timer, and an Initiator that sees a bad Reply. */
static void
test_initiator_failures(void **state)
{
	(void)state;
	for (int k = 0; k < 5; k++) {
		struct rk_iw_dev *dev = rk_iw_dev_create(NULL);
		struct rk_iw_pd *pd = rk_iw_pd_alloc(dev);
		struct rk_iw_cq *cq = rk_iw_cq_create(dev, 16);
		struct rk_iw_qp_init_attr qa;
		struct rk_iw_qp *qp;
		struct rk_mpa_rr rep;
		uint8_t fr[600], out[600];
		size_t got;
		int w;

		memset(&qa, 0, sizeof(qa));
		qa.send_cq = qa.recv_cq = cq;
		qa.cap.max_send_wr = qa.cap.max_recv_wr = 4;
		iwp_conn_default(&qa.conn, RK_IW_INITIATOR);
		qa.conn.p2p = true;
		qa.conn.rtr_types = RK_IW_RTR_WRITE;
		qa.conn.strict_ird = true;
		qa.conn.mpa_timeout_ns = 1000;
		qp = rk_iw_qp_create(pd, &qa, 0);
		assert_non_null(qp);
		got = rk_iw_tx(qp, out, sizeof(out), 0);
		assert_int_equal(got, RK_MPA_RR_HDR_LEN + RK_MPA_IRD_ORD_LEN);
		memset(&rep, 0, sizeof(rep));
		rep.reply = true;
		rep.c = 1;
		rep.rev = 2;
		rep.enhanced = 1;
		rep.has_ird_ord = true;
		rep.ird_ord.ird = 8;
		rep.ird_ord.ord = 8;
		if (k == 0) {
			/* No Reply within the timeout. */
			rk_iw_timers(qp, 999);
			assert_int_equal(rk_iw_qp_state(qp), RK_IW_MPA_WAIT);
			rk_iw_timers(qp, 1000);
			assert_int_equal(rk_iw_qp_state(qp), RK_IW_CLOSED);
			assert_int_equal(rk_iw_qp_error(qp)->reason, RK_IW_CLOSE_MPA_TIMEOUT);
			rk_iw_dev_destroy(dev);
			continue;
		}
		if (k == 1) {
			/* MPA-6581-02: a Read RTR that was not offered. */
			rep.ird_ord.p2p = 1;
			rep.ird_ord.rtr_read = 1;
		} else if (k == 2) {
			/* RFC 6581: IRD below our ORD, strict -> 2/0/0x06. */
			rep.ird_ord.ird = 1;
		} else if (k == 3) {
			rep.r = 1;
		} else {
			rep.rev = 1;
			rep.enhanced = 0;
			rep.has_ird_ord = false;
		}
		w = rk_mpa_rr_build(fr, sizeof(fr), &rep);
		assert_int_equal(rk_iw_rx(qp, fr, (size_t)w, 10), 0);
		got = rk_iw_tx(qp, out, sizeof(out), 10);
		if (k <= 2) {
			uint8_t expect = k == 1 ? 0x07 : 0x06;
			struct rk_rdmap_msg m;

			/* One FPDU: the Terminate. */
			assert_true(got > 2);
			assert_int_equal(rk_rdmap_parse(out + 2, rk_get_be16(out), &m, NULL), 0);
			assert_int_equal(m.opcode, RK_RDMAP_TERMINATE);
			assert_int_equal(m.u.term.ctrl.layer, RK_TERM_LAYER_LLP);
			assert_int_equal(m.u.term.ctrl.etype, 0);
			assert_int_equal(m.u.term.ctrl.err_code, expect);
			assert_int_equal(got, rk_mpa_fpdu_len(rk_get_be16(out)));
			assert_true(rk_iw_want_close(qp));
		} else if (k == 3) {
			assert_int_equal(got, 0);
			assert_int_equal(rk_iw_qp_error(qp)->reason, RK_IW_CLOSE_MPA_REJECTED);
		} else {
			/* A Rev 1 Reply to a Rev 2 Request: fall back, no RTR. */
			assert_int_equal(rk_iw_qp_state(qp), RK_IW_RTS);
			assert_int_equal(rk_iw_qp_negotiated(qp)->rev, 1);
			assert_false(rk_iw_qp_negotiated(qp)->p2p);
			assert_int_equal(got, 0);
		}
		rk_iw_dev_destroy(dev);
	}
}

/* RFC 6581: the Responder's first FPDU must be the negotiated RTR. */
static void
test_wrong_rtr(void **state)
{
	struct rk_iw_conn_attr c;
	struct rk_mpa_rr req;
	struct dut d;
	uint8_t u[64], data[4] = { 0 };
	uint16_t n;

	(void)state;
	iwp_conn_default(&c, RK_IW_RESPONDER);
	c.p2p = true;
	rk_probe_mpa_default_req(&req);
	req.ird_ord.p2p = 1;
	req.ird_ord.rtr_read = 1;
	dut_up(&d, &c, &req, false, 0);
	assert_int_equal(d.rp.mp.reply.ird_ord.p2p, 1);
	assert_int_equal(d.rp.mp.reply.ird_ord.rtr_read, 1);
	assert_int_equal(rk_iw_qp_state(d.rp.qp), RK_IW_RTR_WAIT);
	/* A Write instead of the zero-length Read Request. */
	n = rk_probe_iw_write(u, rk_iw_mr_stag(d.wmr), (uintptr_t)d.wbuf, true, data, 4);
	rp_send(&d.rp, u, n, false, 0);
	expect_term(&d, RK_TERM_LAYER_LLP, 0, 0x07);
	assert_untouched(&d);
	dut_down(&d);
}

/* Hostile framing: tiny and zero ULPDU_Length, truncated headers. */
static void
test_truncated(void **state)
{
	(void)state;
	for (uint16_t len = 0; len < RK_DDP_UNTAGGED_LEN + RK_RDMAP_READ_REQ_LEN; len++) {
		struct dut d;
		uint8_t u[64];
		struct rk_rdmap_read_req_fields rr;

		dut_up(&d, NULL, NULL, false, 1);
		good_write(&d);
		memset(&rr, 0, sizeof(rr));
		/* A Read Request cut to @len bytes. */
		rk_probe_iw_read_req(u, 1, &rr);
		rp_send(&d.rp, u, len, false, 1);
		rp_pump(&d.rp);
		assert_true(d.rp.mp.nmsgs >= 1);
		assert_int_equal(d.rp.mp.msgs[d.rp.mp.nmsgs - 1].opcode, RK_RDMAP_TERMINATE);
		assert_int_equal(rk_iw_qp_state(d.rp.qp), RK_IW_CLOSED);
		assert_untouched(&d);
		dut_down(&d);
	}
}

/* Random bytes after set-up, and random FPDUs with valid CRC: no crash. */
static void
test_random_streams(void **state)
{
	(void)state;
	for (int i = 0; i < 300; i++) {
		struct dut d;
		uint8_t b[2048];
		size_t n = 1 + rk_test_rand() % sizeof(b);

		dut_up(&d, NULL, NULL, (i & 1) != 0, (int)(rk_test_rand() % 3));
		rk_test_fill(b, n);
		if (i % 3 == 0) {
			rp_send_raw(&d.rp, b, n);
		} else {
			/* Plausible DDP headers: the control bytes mostly right. */
			uint16_t l = (uint16_t)(n > 600 ? 600 : n);

			b[0] = (uint8_t)((b[0] & 0xc0) | 1);
			b[1] = (uint8_t)(0x40 | (b[1] & 0x0f));
			rp_send(&d.rp, b, l, false, rk_test_rand() % 40);
		}
		rp_pump(&d.rp);
		if (rk_iw_qp_state(d.rp.qp) == RK_IW_CLOSED)
			assert_true(rk_iw_want_close(d.rp.qp));
		dut_down(&d);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_crc),
		cmocka_unit_test(test_bad_marker),
		cmocka_unit_test(test_tagged_errors),
		cmocka_unit_test(test_untagged_errors),
		cmocka_unit_test(test_read_errors),
		cmocka_unit_test(test_read_response),
		cmocka_unit_test(test_read_source_gone),
		cmocka_unit_test(test_local_protection),
		cmocka_unit_test(test_term_received),
		cmocka_unit_test(test_mpa_refusals),
		cmocka_unit_test(test_initiator_failures),
		cmocka_unit_test(test_wrong_rtr),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_random_streams),
	};

	rk_test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
