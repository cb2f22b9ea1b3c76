/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/iwarp: two engines over an in-memory byte pipe. Every RDMAP operation
 * with its data checked, under every segmentation (each byte offset, fixed
 * strides, random), several FPDUs per segment, CRC and markers in each
 * combination, Rev 1 and Rev 2, RFC 6581 RTR, sequence numbers across 2^32.
 */
#include "rk_test.h"

#include <errno.h>
#include <stdio.h>

#include "rk_iw_harness.h"

struct ops_cfg {
	uint8_t rev;
	bool enhanced, p2p;
	uint8_t rtr;
	bool mk_i, mk_r;        /* markers_rx asked by initiator / responder */
	bool crc_i, crc_r;
	uint32_t isn_i, isn_r;
	uint32_t wsz, ssz, rsz, isz, bsz;   /* Write, Send, Read, Send+Inv, back Send */
	uint16_t emss;
	size_t seg_fixed, seg_max, cut;
	size_t tx_cap;
	bool many_per_rx;       /* expect several FPDUs in one rk_iw_rx */
};

/* Independent look at one direction: CRC, markers, FPDU sizes. */
struct chk {
	size_t isn_off;
	uint8_t *is_hdr;        /* stream offset -> FPDU header starts here */
	size_t len;
	uint32_t isn;
	unsigned int fpdus;
	uint32_t max_wire;
	bool bad;
	uint8_t first_op;
	bool first_seen;
};

static void
chk_ev(const struct rk_mpa_event *ev, void *ctx)
{
	struct chk *c = ctx;
	size_t off;

	if (ev->kind != RK_MPA_EV_FPDU) {
		c->bad = true;
		return;
	}
	if ((ev->fpdu.crc_checked && !ev->fpdu.crc_ok) || !ev->fpdu.markers_ok)
		c->bad = true;
	if (!c->first_seen) {
		c->first_seen = true;
		c->first_op = ev->fpdu.msg.opcode;
	}
	off = (uint32_t)(ev->fpdu.hdr_seq - c->isn);
	if (off < c->len)
		c->is_hdr[off] = 1;
	if (ev->wire_len > c->max_wire)
		c->max_wire = ev->wire_len;
	c->fpdus++;
}

static void
check_stream(const uint8_t *w, size_t len, uint32_t isn, bool markers, bool crc,
	     uint16_t emss, uint8_t *first_op)
{
	struct rk_mpa_stream *s = malloc(sizeof(*s));
	struct rk_mpa_params prm = { 2, markers, crc };
	struct chk c;
	size_t flen;

	assert_non_null(s);
	assert_true(len >= RK_MPA_RR_HDR_LEN);
	flen = RK_MPA_RR_HDR_LEN + rk_mpa_rr_pd_len(w);
	memset(&c, 0, sizeof(c));
	c.is_hdr = calloc(len + 1, 1);
	c.len = len;
	c.isn = isn;
	rk_mpa_stream_init_fpdu(s, &prm, isn + (uint32_t)flen, isn + (uint32_t)flen);
	rk_mpa_stream_feed(s, isn + (uint32_t)flen, w + flen, len - flen, chk_ev, &c);
	assert_false(c.bad);
	assert_true(rk_mpa_stream_in_sync(s));
	assert_true(len == flen || c.fpdus > 0);
	/* Each FPDU fits one segment of the effective MSS. */
	assert_true(c.max_wire <= emss);
	if (markers) {
		/* RFC 5044 4.3: every 512 octets from SeqStart, pointing back. */
		for (size_t g = flen; g + RK_MPA_MARKER_LEN <= len; g += RK_MPA_MARKER_SPACING) {
			uint16_t ptr = rk_get_be16(w + g + 2);

			assert_int_equal(rk_get_be16(w + g), 0);
			if (ptr == 0)
				assert_true(c.is_hdr[g + 4]);
			else
				assert_true(g >= ptr && c.is_hdr[g - ptr]);
		}
	}
	if (first_op != NULL)
		*first_op = c.first_seen ? c.first_op : 0xff;
	free(c.is_hdr);
	free(s);
}

static void
conn_of(const struct ops_cfg *c, struct rk_iw_conn_attr *ci, struct rk_iw_conn_attr *cr)
{
	iwp_conn_default(ci, RK_IW_INITIATOR);
	iwp_conn_default(cr, RK_IW_RESPONDER);
	ci->rev = cr->rev = c->rev ? c->rev : 2;
	ci->enhanced = cr->enhanced = ci->rev == 2 && c->enhanced;
	ci->p2p = cr->p2p = c->p2p;
	ci->rtr_types = c->rtr;
	ci->markers_rx = c->mk_i;
	cr->markers_rx = c->mk_r;
	ci->crc = c->crc_i;
	cr->crc = c->crc_r;
	ci->tx_isn = cr->rx_isn = c->isn_i;
	cr->tx_isn = ci->rx_isn = c->isn_r;
	ci->emss = cr->emss = c->emss ? c->emss : 1460;
}

static struct rk_iw_mr *
reg(struct iw_pair *p, int side, void *a, size_t n, unsigned int acc)
{
	struct rk_iw_mr *mr = rk_iw_mr_reg(p->pd[side], a, n, acc);

	assert_non_null(mr);
	return mr;
}

/* Runs the scenario; returns the longer stream's length in bytes. */
static size_t
run_ops(const struct ops_cfg *c)
{
	size_t longest;
	struct iw_pair *p = calloc(1, sizeof(*p));
	struct rk_iw_conn_attr ci, cr;
	const struct rk_iw_negotiated *n0, *n1;
	uint32_t tot = c->wsz + c->ssz + c->isz;
	uint8_t *a_src = malloc(tot + 1), *a_sink = calloc(c->rsz + 1, 1);
	uint8_t *a_recv = calloc(c->bsz + 1, 1);
	uint8_t *b_wr = calloc(c->wsz + 1, 1), *b_rd = malloc(c->rsz + c->bsz + 1);
	uint8_t *b_recv = calloc(c->ssz + c->isz + 16, 1), b_inv[64];
	struct rk_iw_mr *m_src, *m_sink, *m_arecv, *m_wr, *m_rd, *m_recv, *m_inv;
	struct rk_sge sg[6];
	struct rk_send_wr wr[4];
	struct rk_recv_wr rw[2];
	struct rk_wc wc[16];
	int got;

	assert_non_null(p);
	conn_of(c, &ci, &cr);
	iwp_init(p, &ci, &cr, false);
	p->seg_fixed = c->seg_fixed;
	p->seg_max = c->seg_max;
	p->tx_cap = c->tx_cap;
	if (c->cut > 0) {
		p->cuts[0][0] = p->cuts[1][0] = c->cut;
		p->ncuts[0] = p->ncuts[1] = 1;
	}
	rk_test_fill(a_src, tot + 1);
	rk_test_fill(b_rd, c->rsz + c->bsz + 1);
	m_src = reg(p, 0, a_src, tot + 1, 0);
	m_sink = reg(p, 0, a_sink, c->rsz + 1, RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE);
	m_arecv = reg(p, 0, a_recv, c->bsz + 1, RK_ACCESS_LOCAL_WRITE);
	m_wr = reg(p, 1, b_wr, c->wsz + 1, RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE);
	m_rd = reg(p, 1, b_rd, c->rsz + c->bsz + 1, RK_ACCESS_REMOTE_READ);
	m_recv = reg(p, 1, b_recv, c->ssz + c->isz + 16, RK_ACCESS_LOCAL_WRITE);
	m_inv = reg(p, 1, b_inv, sizeof(b_inv),
		    RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE | RK_ACCESS_REMOTE_INVALIDATE);

	/* Responder: two receives; the back Send needs one at the initiator. */
	memset(rw, 0, sizeof(rw));
	sg[0] = (struct rk_sge){ (uintptr_t)b_recv, c->ssz, rk_iw_mr_stag(m_recv) };
	sg[1] = (struct rk_sge){ (uintptr_t)b_recv + c->ssz, c->isz + 16, rk_iw_mr_stag(m_recv) };
	rw[0] = (struct rk_recv_wr){ 100, &rw[1], &sg[0], 1 };
	rw[1] = (struct rk_recv_wr){ 101, NULL, &sg[1], 1 };
	assert_int_equal(rk_iw_post_recv(p->qp[1], rw, NULL), 0);
	sg[2] = (struct rk_sge){ (uintptr_t)a_recv, c->bsz + 1, rk_iw_mr_stag(m_arecv) };
	rw[0] = (struct rk_recv_wr){ 200, NULL, &sg[2], 1 };
	assert_int_equal(rk_iw_post_recv(p->qp[0], rw, NULL), 0);

	/* Initiator: Write, Send, Read, Send with SE and Invalidate. */
	memset(wr, 0, sizeof(wr));
	sg[3] = (struct rk_sge){ (uintptr_t)a_src, c->wsz, rk_iw_mr_stag(m_src) };
	wr[0].wr_id = 1;
	wr[0].next = &wr[1];
	wr[0].sg_list = &sg[3];
	wr[0].num_sge = 1;
	wr[0].opcode = RK_WR_RDMA_WRITE;
	wr[0].send_flags = RK_SEND_SIGNALED;
	wr[0].wr.rdma.remote_addr = (uintptr_t)b_wr;
	wr[0].wr.rdma.rkey = rk_iw_mr_stag(m_wr);
	/* The Send gathers from two SGEs. */
	sg[4] = (struct rk_sge){ (uintptr_t)a_src + c->wsz, c->ssz / 2, rk_iw_mr_stag(m_src) };
	sg[5] = (struct rk_sge){ (uintptr_t)a_src + c->wsz + c->ssz / 2, c->ssz - c->ssz / 2,
				 rk_iw_mr_stag(m_src) };
	wr[1].wr_id = 2;
	wr[1].next = &wr[2];
	wr[1].sg_list = &sg[4];
	wr[1].num_sge = 2;
	wr[1].opcode = RK_WR_SEND;
	wr[1].send_flags = RK_SEND_SIGNALED;
	{
		static struct rk_sge rs, is;

		rs = (struct rk_sge){ (uintptr_t)a_sink, c->rsz, rk_iw_mr_stag(m_sink) };
		wr[2].wr_id = 3;
		wr[2].next = &wr[3];
		wr[2].sg_list = &rs;
		wr[2].num_sge = 1;
		wr[2].opcode = RK_WR_RDMA_READ;
		wr[2].send_flags = RK_SEND_SIGNALED;
		wr[2].wr.rdma.remote_addr = (uintptr_t)b_rd;
		wr[2].wr.rdma.rkey = rk_iw_mr_stag(m_rd);
		is = (struct rk_sge){ (uintptr_t)a_src + c->wsz + c->ssz, c->isz, rk_iw_mr_stag(m_src) };
		wr[3].wr_id = 4;
		wr[3].sg_list = &is;
		wr[3].num_sge = 1;
		wr[3].opcode = RK_WR_SEND_WITH_INV;
		wr[3].send_flags = RK_SEND_SIGNALED | RK_SEND_SOLICITED;
		wr[3].invalidate_rkey = rk_iw_mr_stag(m_inv);
	}
	assert_int_equal(rk_iw_post_send(p->qp[0], wr, NULL), 0);
	/* Responder: a Send back (goes out once it may send). */
	{
		static struct rk_sge bs;
		struct rk_send_wr b;

		memset(&b, 0, sizeof(b));
		bs = (struct rk_sge){ (uintptr_t)b_rd + c->rsz, c->bsz, rk_iw_mr_stag(m_rd) };
		b.wr_id = 9;
		b.sg_list = &bs;
		b.num_sge = 1;
		b.opcode = RK_WR_SEND;
		b.send_flags = RK_SEND_SIGNALED;
		assert_int_equal(rk_iw_post_send(p->qp[1], &b, NULL), 0);
	}

	iwp_run(p);

	assert_int_equal(rk_iw_qp_state(p->qp[0]), RK_IW_RTS);
	assert_int_equal(rk_iw_qp_state(p->qp[1]), RK_IW_RTS);
	n0 = rk_iw_qp_negotiated(p->qp[0]);
	n1 = rk_iw_qp_negotiated(p->qp[1]);
	assert_non_null(n0);
	assert_non_null(n1);
	assert_int_equal(n0->crc, c->crc_i || c->crc_r);
	assert_int_equal(n1->crc, c->crc_i || c->crc_r);
	assert_int_equal(n0->markers_tx, c->mk_r);
	assert_int_equal(n1->markers_tx, c->mk_i);
	assert_int_equal(n0->rev, ci.rev);
	assert_int_equal(n1->rev, ci.rev);

	assert_memory_equal(b_wr, a_src, c->wsz);
	assert_int_equal(b_wr[c->wsz], 0);
	assert_memory_equal(b_recv, a_src + c->wsz, c->ssz);
	assert_memory_equal(b_recv + c->ssz, a_src + c->wsz + c->ssz, c->isz);
	assert_memory_equal(a_sink, b_rd, c->rsz);
	assert_int_equal(a_sink[c->rsz], 0);
	assert_memory_equal(a_recv, b_rd + c->rsz, c->bsz);
	assert_true(rk_iw_mr_invalidated(m_inv));

	got = iw_poll_all(p->cq[0], wc, 16);
	assert_int_equal(got, 5);
	{
		/* SQ completions in order; the receive for the back Send among them. */
		uint64_t want[4] = { 1, 2, 3, 4 };
		enum rk_wc_opcode wop[4] = { RK_WC_RDMA_WRITE, RK_WC_SEND, RK_WC_RDMA_READ,
					     RK_WC_SEND };
		int k = 0;

		for (int i = 0; i < got; i++) {
			assert_int_equal(wc[i].status, RK_WC_SUCCESS);
			if (wc[i].opcode == RK_WC_RECV) {
				assert_int_equal(wc[i].wr_id, 200);
				assert_int_equal(wc[i].byte_len, c->bsz);
				continue;
			}
			assert_int_equal(wc[i].wr_id, want[k]);
			assert_int_equal(wc[i].opcode, wop[k]);
			if (wop[k] == RK_WC_RDMA_READ)
				assert_int_equal(wc[i].byte_len, c->rsz);
			k++;
		}
		assert_int_equal(k, 4);
	}
	got = iw_poll_all(p->cq[1], wc, 16);
	assert_int_equal(got, 3);
	for (int i = 0, k = 0; i < got; i++) {
		assert_int_equal(wc[i].status, RK_WC_SUCCESS);
		if (wc[i].wr_id == 9) {
			assert_int_equal(wc[i].opcode, RK_WC_SEND);
			continue;
		}
		assert_int_equal(wc[i].opcode, RK_WC_RECV);
		assert_int_equal(wc[i].wr_id, 100 + (uint64_t)k);
		assert_int_equal(wc[i].byte_len, k == 0 ? c->ssz : c->isz);
		if (k == 1) {
			assert_true(wc[i].wc_flags & RK_WC_WITH_INV);
			assert_int_equal(wc[i].invalidated_rkey, rk_iw_mr_stag(m_inv));
		}
		k++;
	}
	/* Each direction checked by an independent deframer. */
	check_stream(p->wire[0], p->wlen[0], ci.tx_isn, c->mk_r, c->crc_i || c->crc_r,
		     ci.emss, NULL);
	check_stream(p->wire[1], p->wlen[1], cr.tx_isn, c->mk_i, c->crc_i || c->crc_r,
		     cr.emss, NULL);
	if (c->many_per_rx)
		assert_true(p->max_fpdus_per_rx >= 3);
	assert_int_equal(rk_iw_dev_stats(p->dev[0])->term_sent, 0);
	assert_int_equal(rk_iw_dev_stats(p->dev[1])->term_sent, 0);

	longest = p->wlen[0] > p->wlen[1] ? p->wlen[0] : p->wlen[1];
	iwp_fini(p);
	free(p);
	free(a_src);
	free(a_sink);
	free(a_recv);
	free(b_wr);
	free(b_rd);
	free(b_recv);
	return longest;
}

static const struct ops_cfg base = {
	.rev = 2, .enhanced = true, .crc_i = true, .crc_r = true,
	.isn_i = 0x1000, .isn_r = 0x77770000,
	.wsz = 3000, .ssz = 2000, .rsz = 5000, .isz = 100, .bsz = 700,
	.seg_max = 300,
};

static void
test_ops_default(void **state)
{
	(void)state;
	run_ops(&base);
}

/* Rev 1 and 2, CRC requested by nobody / one side / the other, markers each way. */
static void
test_ops_matrix(void **state)
{
	(void)state;
	for (int rev = 1; rev <= 2; rev++)
		for (int crc = 0; crc < 3; crc++)
			for (int mk = 0; mk < 4; mk++) {
				struct ops_cfg c = base;

				c.rev = (uint8_t)rev;
				c.enhanced = rev == 2;
				c.crc_i = crc == 1;
				c.crc_r = crc == 2;
				c.mk_i = mk & 1;
				c.mk_r = (mk >> 1) & 1;
				run_ops(&c);
			}
}

/* Every header of every FPDU split at every byte offset: one cut per run. */
static void
cut_sweep(bool markers, bool crc)
{
	struct ops_cfg c = base;
	size_t total;

	/* With markers, long enough for several of them. */
	c.wsz = markers ? 700 : 40;
	c.ssz = markers ? 500 : 30;
	c.rsz = markers ? 900 : 50;
	c.isz = 10;
	c.bsz = 20;
	c.mk_i = c.mk_r = markers;
	c.crc_i = c.crc_r = crc;
	c.seg_max = 0;
	c.seg_fixed = 0;
	/* Stream lengths, from one uncut run (the Reply is the shorter side). */
	total = run_ops(&c);
	assert_true(total > 200);
	for (size_t cut = 1; cut < total; cut++) {
		c.cut = cut;
		run_ops(&c);
	}
}

static void
test_ops_every_cut(void **state)
{
	(void)state;
	cut_sweep(false, true);
}

static void
test_ops_every_cut_markers(void **state)
{
	(void)state;
	cut_sweep(true, true);
	cut_sweep(true, false);
}

/* Message sizes that move every marker across every header word. */
static void
test_ops_marker_positions(void **state)
{
	(void)state;
	for (uint32_t w = 400; w < 530; w++) {
		struct ops_cfg c = base;

		c.wsz = w;
		c.ssz = 1000 - w;
		c.rsz = 600 + w;
		c.mk_i = c.mk_r = true;
		c.seg_max = 64;
		run_ops(&c);
	}
}

/* Fixed segment sizes 1..64: every split pattern of a stride. */
static void
test_ops_strides(void **state)
{
	(void)state;
	for (size_t s = 1; s <= 64; s++) {
		struct ops_cfg c = base;

		c.seg_max = 0;
		c.seg_fixed = s;
		c.mk_i = s & 1;
		c.mk_r = (s >> 1) & 1;
		run_ops(&c);
	}
}

/* Everything queued goes out in one segment: several FPDUs per rk_iw_rx. */
static void
test_ops_many_per_segment(void **state)
{
	struct ops_cfg c = base;

	(void)state;
	c.seg_max = 0;
	c.many_per_rx = true;
	run_ops(&c);
	c.mk_i = c.mk_r = true;
	run_ops(&c);
}

/* TCP sequence numbers across 2^32 with markers both ways and big messages. */
static void
test_ops_seq_wrap(void **state)
{
	struct ops_cfg c = base;

	(void)state;
	c.mk_i = c.mk_r = true;
	c.isn_i = 0xfffffff0u;
	c.isn_r = 0xffffff00u;
	c.wsz = 20000;
	c.rsz = 30000;
	c.ssz = 9000;
	run_ops(&c);
	for (uint32_t back = 1; back < 2048; back += 97) {
		c.isn_i = 0u - back;
		c.isn_r = 0u - 3 * back;
		c.wsz = 3000;
		c.rsz = 2000;
		c.ssz = 1000;
		run_ops(&c);
	}
}

/* The TCP takes a few bytes at a time (backpressure), small and large EMSS. */
static void
test_ops_backpressure(void **state)
{
	struct ops_cfg c = base;

	(void)state;
	c.tx_cap = 7;
	c.mk_i = true;
	run_ops(&c);
	c.tx_cap = 1;
	c.emss = 128;
	c.wsz = 1000;
	c.rsz = 900;
	c.ssz = 500;
	run_ops(&c);
	c.tx_cap = 0;
	c.emss = 9000;
	c.wsz = 200000;
	c.rsz = 150000;
	c.ssz = 60000;
	c.seg_max = 20000;
	c.mk_r = true;
	run_ops(&c);
}

/* Random configurations, sizes and segmentation (seed: RK_TEST_SEED). */
static void
test_ops_random(void **state)
{
	(void)state;
	for (int i = 0; i < 150; i++) {
		struct ops_cfg c = base;
		uint64_t r = rk_test_rand();

		c.rev = (r & 1) ? 2 : 1;
		c.enhanced = c.rev == 2 && (r & 2);
		c.p2p = c.enhanced && (r & 4);
		c.rtr = (uint8_t)((r >> 3) & 7);
		c.mk_i = (r >> 6) & 1;
		c.mk_r = (r >> 7) & 1;
		c.crc_i = (r >> 8) & 1;
		c.crc_r = (r >> 9) & 1;
		c.isn_i = (uint32_t)rk_test_rand();
		c.isn_r = (uint32_t)rk_test_rand();
		c.wsz = (uint32_t)(rk_test_rand() % 6000);
		c.ssz = (uint32_t)(rk_test_rand() % 6000);
		c.rsz = (uint32_t)(rk_test_rand() % 6000);
		c.isz = (uint32_t)(rk_test_rand() % 200);
		c.bsz = (uint32_t)(rk_test_rand() % 3000);
		c.emss = (uint16_t)(128 + rk_test_rand() % 9000);
		c.seg_max = 1 + rk_test_rand() % 2000;
		c.tx_cap = (r >> 10) & 1 ? 1 + rk_test_rand() % 3000 : 0;
		run_ops(&c);
	}
}

/* Zero-length messages. */
static void
test_ops_zero_length(void **state)
{
	struct ops_cfg c = base;

	(void)state;
	c.wsz = 0;
	c.ssz = 0;
	c.rsz = 0;
	c.isz = 0;
	c.bsz = 0;
	run_ops(&c);
}

/* RFC 6581 peer-to-peer: each RTR type, negotiated and sent first. */
static void
test_p2p_rtr(void **state)
{
	static const uint8_t types[] = { RK_IW_RTR_SEND, RK_IW_RTR_WRITE, RK_IW_RTR_READ };
	static const uint8_t ops[] = { RK_RDMAP_SEND, RK_RDMAP_WRITE, RK_RDMAP_READ_REQ };

	(void)state;
	for (unsigned int i = 0; i < 3; i++) {
		struct ops_cfg c = base;
		struct iw_pair *p = calloc(1, sizeof(*p));
		struct rk_iw_conn_attr ci, cr;
		const struct rk_iw_negotiated *n0, *n1;
		uint8_t first = 0, buf[64], rbuf[64];
		struct rk_iw_mr *mr, *rmr;
		struct rk_sge sg, rsg;
		struct rk_send_wr wr;
		struct rk_recv_wr rw;
		struct rk_wc wc[4];

		c.p2p = true;
		c.rtr = types[i];
		conn_of(&c, &ci, &cr);
		iwp_init(p, &ci, &cr, false);
		/* The Responder sends first: allowed after the RTR. */
		rk_test_fill(buf, sizeof(buf));
		memset(rbuf, 0, sizeof(rbuf));
		mr = rk_iw_mr_reg(p->pd[1], buf, sizeof(buf), 0);
		rmr = rk_iw_mr_reg(p->pd[0], rbuf, sizeof(rbuf), RK_ACCESS_LOCAL_WRITE);
		rsg = (struct rk_sge){ (uintptr_t)rbuf, sizeof(rbuf), rk_iw_mr_stag(rmr) };
		rw = (struct rk_recv_wr){ 5, NULL, &rsg, 1 };
		assert_int_equal(rk_iw_post_recv(p->qp[0], &rw, NULL), 0);
		sg = (struct rk_sge){ (uintptr_t)buf, sizeof(buf), rk_iw_mr_stag(mr) };
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 6;
		wr.sg_list = &sg;
		wr.num_sge = 1;
		wr.opcode = RK_WR_SEND;
		wr.send_flags = RK_SEND_SIGNALED;
		assert_int_equal(rk_iw_post_send(p->qp[1], &wr, NULL), 0);
		p->seg_max = 5;
		iwp_run(p);
		n0 = rk_iw_qp_negotiated(p->qp[0]);
		n1 = rk_iw_qp_negotiated(p->qp[1]);
		assert_non_null(n0);
		assert_non_null(n1);
		assert_true(n0->p2p && n1->p2p);
		assert_int_equal(n0->rtr, types[i]);
		assert_int_equal(n1->rtr, types[i]);
		assert_int_equal(rk_iw_qp_state(p->qp[1]), RK_IW_RTS);
		check_stream(p->wire[0], p->wlen[0], ci.tx_isn, false, true, 1460, &first);
		assert_int_equal(first, ops[i]);
		assert_memory_equal(rbuf, buf, sizeof(buf));
		assert_int_equal(iw_poll_all(p->cq[0], wc, 4), 1);
		assert_int_equal(wc[0].wr_id, 5);
		assert_int_equal(wc[0].byte_len, sizeof(buf));
		assert_int_equal(iw_poll_all(p->cq[1], wc, 4), 1);
		assert_int_equal(wc[0].wr_id, 6);
		iwp_fini(p);
		free(p);
	}
}

/* Without p2p the Responder waits for the Initiator's first FPDU (RFC 5044). */
static void
test_responder_waits(void **state)
{
	struct iw_pair *p = calloc(1, sizeof(*p));
	struct rk_iw_conn_attr ci, cr;
	uint8_t buf[16] = { 1, 2, 3 }, dst[16];
	struct rk_iw_mr *mr, *dmr;
	struct rk_sge sg;
	struct rk_send_wr wr;

	(void)state;
	iwp_conn_default(&ci, RK_IW_INITIATOR);
	iwp_conn_default(&cr, RK_IW_RESPONDER);
	iwp_init(p, &ci, &cr, false);
	mr = rk_iw_mr_reg(p->pd[1], buf, sizeof(buf), 0);
	dmr = rk_iw_mr_reg(p->pd[0], dst, sizeof(dst),
			   RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE);
	sg = (struct rk_sge){ (uintptr_t)buf, sizeof(buf), rk_iw_mr_stag(mr) };
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.opcode = RK_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uintptr_t)dst;
	wr.wr.rdma.rkey = rk_iw_mr_stag(dmr);
	assert_int_equal(rk_iw_post_send(p->qp[1], &wr, NULL), 0);
	iwp_run(p);
	/* Only the Reply went out. */
	assert_int_equal(p->wlen[1], RK_MPA_RR_HDR_LEN + RK_MPA_IRD_ORD_LEN);
	assert_int_equal(rk_iw_qp_state(p->qp[1]), RK_IW_RTR_WAIT);
	assert_false(rk_iw_tx_pending(p->qp[1]));
	iwp_fini(p);
	free(p);
}

/* RFC 6581 IRD/ORD: an Initiator ORD above the Responder IRD is lowered. */
static void
test_ird_ord(void **state)
{
	struct iw_pair *p = calloc(1, sizeof(*p));
	struct rk_iw_conn_attr ci, cr;
	uint8_t src[600], dst[600];
	struct rk_iw_mr *sm, *dm;
	struct rk_sge sg[6];
	struct rk_send_wr wr[6];
	struct rk_wc wc[8];

	(void)state;
	iwp_conn_default(&ci, RK_IW_INITIATOR);
	iwp_conn_default(&cr, RK_IW_RESPONDER);
	ci.ord = 8;
	cr.ird = 2;
	iwp_init(p, &ci, &cr, false);
	rk_test_fill(src, sizeof(src));
	memset(dst, 0, sizeof(dst));
	sm = rk_iw_mr_reg(p->pd[1], src, sizeof(src), RK_ACCESS_REMOTE_READ);
	dm = rk_iw_mr_reg(p->pd[0], dst, sizeof(dst), RK_ACCESS_LOCAL_WRITE);
	memset(wr, 0, sizeof(wr));
	for (int i = 0; i < 6; i++) {
		sg[i] = (struct rk_sge){ (uintptr_t)dst + 100u * i, 100, rk_iw_mr_stag(dm) };
		wr[i].wr_id = (uint64_t)i;
		wr[i].next = i < 5 ? &wr[i + 1] : NULL;
		wr[i].sg_list = &sg[i];
		wr[i].num_sge = 1;
		wr[i].opcode = RK_WR_RDMA_READ;
		wr[i].wr.rdma.remote_addr = (uintptr_t)src + 100u * i;
		wr[i].wr.rdma.rkey = rk_iw_mr_stag(sm);
	}
	assert_int_equal(rk_iw_post_send(p->qp[0], wr, NULL), 0);
	p->seg_max = 0;
	iwp_run(p);
	assert_int_equal(rk_iw_qp_negotiated(p->qp[0])->ord, 2);
	assert_int_equal(rk_iw_qp_negotiated(p->qp[0])->peer_ird, 2);
	assert_int_equal(rk_iw_qp_negotiated(p->qp[1])->peer_ord, 8);
	assert_int_equal(rk_iw_qp_state(p->qp[1]), RK_IW_RTS);
	assert_memory_equal(dst, src, sizeof(dst));
	/* Unsignaled successes complete silently. */
	assert_int_equal(iw_poll_all(p->cq[0], wc, 8), 0);
	iwp_fini(p);
	free(p);
}

/* RFC 7306: Write with Immediate Data, Fetch and Add, Compare and Swap. */
static void
test_ext_ops(void **state)
{
	struct iw_pair *p = calloc(1, sizeof(*p));
	struct rk_iw_conn_attr ci, cr;
	uint8_t src[100], dst[100];
	uint64_t target[2] = { 1000, 0x5555 }, res[2] = { 0, 0 };
	struct rk_iw_mr *sm, *dm, *tm, *rm;
	struct rk_sge sg[3];
	struct rk_send_wr wr[3];
	struct rk_recv_wr rw;
	struct rk_wc wc[8];

	(void)state;
	iwp_conn_default(&ci, RK_IW_INITIATOR);
	iwp_conn_default(&cr, RK_IW_RESPONDER);
	iwp_init(p, &ci, &cr, true);
	rk_test_fill(src, sizeof(src));
	memset(dst, 0, sizeof(dst));
	sm = rk_iw_mr_reg(p->pd[0], src, sizeof(src), 0);
	rm = rk_iw_mr_reg(p->pd[0], res, sizeof(res), RK_ACCESS_LOCAL_WRITE);
	dm = rk_iw_mr_reg(p->pd[1], dst, sizeof(dst), RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE);
	tm = rk_iw_mr_reg(p->pd[1], target, sizeof(target),
			  RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_ATOMIC);
	rw = (struct rk_recv_wr){ 50, NULL, NULL, 0 };
	assert_int_equal(rk_iw_post_recv(p->qp[1], &rw, NULL), 0);
	memset(wr, 0, sizeof(wr));
	sg[0] = (struct rk_sge){ (uintptr_t)src, sizeof(src), rk_iw_mr_stag(sm) };
	wr[0] = (struct rk_send_wr){ .wr_id = 1, .next = &wr[1], .sg_list = &sg[0], .num_sge = 1,
				     .opcode = RK_WR_RDMA_WRITE_WITH_IMM,
				     .send_flags = RK_SEND_SIGNALED };
	wr[0].imm_data = 0xabcdef01;
	wr[0].wr.rdma.remote_addr = (uintptr_t)dst;
	wr[0].wr.rdma.rkey = rk_iw_mr_stag(dm);
	sg[1] = (struct rk_sge){ (uintptr_t)&res[0], 8, rk_iw_mr_stag(rm) };
	wr[1] = (struct rk_send_wr){ .wr_id = 2, .next = &wr[2], .sg_list = &sg[1], .num_sge = 1,
				     .opcode = RK_WR_ATOMIC_FETCH_AND_ADD,
				     .send_flags = RK_SEND_SIGNALED };
	wr[1].wr.atomic.remote_addr = (uintptr_t)&target[0];
	wr[1].wr.atomic.compare_add = 234;
	wr[1].wr.atomic.rkey = rk_iw_mr_stag(tm);
	sg[2] = (struct rk_sge){ (uintptr_t)&res[1], 8, rk_iw_mr_stag(rm) };
	wr[2] = (struct rk_send_wr){ .wr_id = 3, .sg_list = &sg[2], .num_sge = 1,
				     .opcode = RK_WR_ATOMIC_CMP_AND_SWP,
				     .send_flags = RK_SEND_SIGNALED };
	wr[2].wr.atomic.remote_addr = (uintptr_t)&target[1];
	wr[2].wr.atomic.compare_add = 0x5555;
	wr[2].wr.atomic.swap = 0x7777;
	wr[2].wr.atomic.rkey = rk_iw_mr_stag(tm);
	assert_int_equal(rk_iw_post_send(p->qp[0], wr, NULL), 0);
	iwp_run(p);
	assert_memory_equal(dst, src, sizeof(src));
	assert_int_equal(target[0], 1234);
	assert_int_equal(target[1], 0x7777);
	assert_int_equal(res[0], 1000);
	assert_int_equal(res[1], 0x5555);
	assert_int_equal(iw_poll_all(p->cq[1], wc, 8), 1);
	assert_int_equal(wc[0].opcode, RK_WC_RECV_RDMA_WITH_IMM);
	assert_int_equal(wc[0].imm_data, 0xabcdef01);
	assert_true(wc[0].wc_flags & RK_WC_WITH_IMM);
	assert_int_equal(iw_poll_all(p->cq[0], wc, 8), 3);
	assert_int_equal(wc[0].opcode, RK_WC_RDMA_WRITE);
	assert_int_equal(wc[1].opcode, RK_WC_FETCH_ADD);
	assert_int_equal(wc[2].opcode, RK_WC_COMP_SWAP);
	for (int i = 0; i < 3; i++)
		assert_int_equal(wc[i].status, RK_WC_SUCCESS);
	iwp_fini(p);
	free(p);
}

/*
 * An atomic WR whose sg_list is NULL is refused with -EINVAL before any
 * SGE is read (issue 21: the length of sg_list[0] was read first).
 */
static void
test_atomic_null_sg_list(void **state)
{
	struct iw_pair *p = calloc(1, sizeof(*p));
	struct rk_iw_conn_attr ci, cr;
	const struct rk_send_wr *bad = NULL;
	struct rk_send_wr wr;
	enum rk_wr_opcode ops[2] = { RK_WR_ATOMIC_FETCH_AND_ADD, RK_WR_ATOMIC_CMP_AND_SWP };

	(void)state;
	iwp_conn_default(&ci, RK_IW_INITIATOR);
	iwp_conn_default(&cr, RK_IW_RESPONDER);
	iwp_init(p, &ci, &cr, true);
	iwp_run(p);
	for (int i = 0; i < 2; i++) {
		wr = (struct rk_send_wr){ .wr_id = 9, .sg_list = NULL, .num_sge = 1,
					  .opcode = ops[i], .send_flags = RK_SEND_SIGNALED };
		assert_int_equal(rk_iw_post_send(p->qp[0], &wr, &bad), -EINVAL);
		assert_ptr_equal(bad, &wr);
	}
	assert_int_equal(rk_iw_qp_state(p->qp[0]), RK_IW_RTS);
	iwp_fini(p);
	free(p);
}

/* Private data both ways, with and without the RFC 6581 words. */
static void
test_private_data(void **state)
{
	(void)state;
	for (int enh = 0; enh < 2; enh++) {
		struct iw_pair *p = calloc(1, sizeof(*p));
		struct rk_iw_conn_attr ci, cr;
		uint8_t a[300], b[508];
		const uint8_t *got;

		rk_test_fill(a, sizeof(a));
		rk_test_fill(b, sizeof(b));
		iwp_conn_default(&ci, RK_IW_INITIATOR);
		iwp_conn_default(&cr, RK_IW_RESPONDER);
		ci.enhanced = cr.enhanced = enh;
		ci.pd = a;
		ci.pd_len = sizeof(a);
		cr.pd = b;
		cr.pd_len = enh ? 508 : 400;
		iwp_init(p, &ci, &cr, false);
		p->seg_max = 13;
		iwp_run(p);
		assert_int_equal(rk_iw_qp_peer_pd(p->qp[1], &got), sizeof(a));
		assert_memory_equal(got, a, sizeof(a));
		assert_int_equal(rk_iw_qp_peer_pd(p->qp[0], &got), cr.pd_len);
		assert_memory_equal(got, b, cr.pd_len);
		assert_int_equal(rk_iw_qp_negotiated(p->qp[0])->enhanced, enh);
		iwp_fini(p);
		free(p);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ops_default),
		cmocka_unit_test(test_ops_matrix),
		cmocka_unit_test(test_ops_every_cut),
		cmocka_unit_test(test_ops_every_cut_markers),
		cmocka_unit_test(test_ops_marker_positions),
		cmocka_unit_test(test_ops_strides),
		cmocka_unit_test(test_ops_many_per_segment),
		cmocka_unit_test(test_ops_seq_wrap),
		cmocka_unit_test(test_ops_backpressure),
		cmocka_unit_test(test_ops_random),
		cmocka_unit_test(test_ops_zero_length),
		cmocka_unit_test(test_p2p_rtr),
		cmocka_unit_test(test_responder_waits),
		cmocka_unit_test(test_ird_ord),
		cmocka_unit_test(test_ext_ops),
		cmocka_unit_test(test_atomic_null_sg_list),
		cmocka_unit_test(test_private_data),
	};

	rk_test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
