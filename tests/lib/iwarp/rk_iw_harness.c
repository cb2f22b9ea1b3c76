/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/iwarp test harness: engine pair over a byte pipe, and a raw peer. */
#include "rk_test.h"

#include <errno.h>
#include <stdio.h>

#include "rk_iw_harness.h"

void
iwp_conn_default(struct rk_iw_conn_attr *c, enum rk_iw_role role)
{
	memset(c, 0, sizeof(*c));
	c->role = role;
	c->rev = 2;
	c->enhanced = true;
	c->crc = true;
	c->ird = 4;
	c->ord = 4;
	c->emss = 1460;
}

static void
make_side(struct iw_pair *p, int i, const struct rk_iw_conn_attr *c, bool ext)
{
	struct rk_iw_dev_attr da = { .max_mr = 64, .key_seed = 0x1234 + (uint64_t)i };
	struct rk_iw_qp_init_attr qa;

	p->dev[i] = rk_iw_dev_create(&da);
	assert_non_null(p->dev[i]);
	p->pd[i] = rk_iw_pd_alloc(p->dev[i]);
	assert_non_null(p->pd[i]);
	p->cq[i] = rk_iw_cq_create(p->dev[i], 4096);
	assert_non_null(p->cq[i]);
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = p->cq[i];
	qa.recv_cq = p->cq[i];
	qa.cap.max_send_wr = 256;
	qa.cap.max_recv_wr = 256;
	qa.cap.max_send_sge = 4;
	qa.cap.max_recv_sge = 4;
	qa.ext_ops = ext;
	qa.conn = *c;
	p->qp[i] = rk_iw_qp_create(p->pd[i], &qa, p->now);
	assert_non_null(p->qp[i]);
	p->wire[i] = malloc(IWP_WIRE_MAX);
	assert_non_null(p->wire[i]);
}

void
iwp_init(struct iw_pair *p, const struct rk_iw_conn_attr *ci,
	 const struct rk_iw_conn_attr *cr, bool ext)
{
	memset(p, 0, sizeof(*p));
	p->now = 1000;
	make_side(p, 0, ci, ext);
	make_side(p, 1, cr, ext);
}

static size_t
next_seg(struct iw_pair *p, int from, size_t avail)
{
	size_t at = p->delivered[from], n = avail;

	for (unsigned int k = 0; k < p->ncuts[from]; k++) {
		size_t c = p->cuts[from][k];

		if (c > at && c - at < n)
			n = c - at;
	}
	if (n < avail)
		return n;
	if (p->seg_fixed > 0)
		return p->seg_fixed < avail ? p->seg_fixed : avail;
	if (p->seg_max > 0) {
		n = 1 + (size_t)(rk_test_rand() % p->seg_max);
		return n < avail ? n : avail;
	}
	return avail;
}

void
iwp_run(struct iw_pair *p)
{
	bool progress = true;
	size_t cap = p->tx_cap ? p->tx_cap : 65536;

	while (progress) {
		progress = false;
		for (int i = 0; i < 2; i++) {
			size_t n;

			if (p->wlen[i] + cap > IWP_WIRE_MAX)
				fail_msg("wire buffer full");
			n = rk_iw_tx(p->qp[i], p->wire[i] + p->wlen[i], cap, p->now);
			p->wlen[i] += n;
			if (n > 0)
				progress = true;
		}
		for (int i = 0; i < 2; i++) {
			while (p->delivered[i] < p->wlen[i]) {
				size_t avail = p->wlen[i] - p->delivered[i];
				size_t n = next_seg(p, i, avail);
				const struct rk_iw_stats *st = rk_iw_dev_stats(p->dev[1 - i]);
				uint64_t before = st->rx_fpdus;
				int rc;

				rc = rk_iw_rx(p->qp[1 - i], p->wire[i] + p->delivered[i], n, p->now);
				assert_true(rc == 0 || rc == -EPIPE);
				p->delivered[i] += n;
				p->rx_calls++;
				if (st->rx_fpdus - before > p->max_fpdus_per_rx)
					p->max_fpdus_per_rx = st->rx_fpdus - before;
				progress = true;
			}
		}
		p->now += 1000;
	}
}

void
iwp_fini(struct iw_pair *p)
{
	for (int i = 0; i < 2; i++) {
		rk_iw_dev_destroy(p->dev[i]);
		free(p->wire[i]);
	}
}

int
iw_poll_all(struct rk_iw_cq *cq, struct rk_wc *wc, int n)
{
	int got = 0, r;

	while (got < n && (r = rk_iw_cq_poll(cq, n - got, wc + got)) > 0)
		got += r;
	return got;
}

/* ------------------------------------------------------------- raw peer */

static void
rp_event(const struct rk_mpa_event *ev, void *ctx)
{
	struct raw_peer *rp = ctx;
	const struct rk_rdmap_msg *m = &ev->fpdu.msg;
	struct rp_msg *r;

	if (ev->kind != RK_MPA_EV_FPDU || rp->nmsgs >= RP_MSGS_MAX)
		return;
	r = &rp->msgs[rp->nmsgs++];
	memset(r, 0, sizeof(*r));
	r->crc_ok = !ev->fpdu.crc_checked || ev->fpdu.crc_ok;
	r->markers_ok = ev->fpdu.markers_ok;
	if (rk_probe_iw_answer(m, &r->ans) != 0)
		return;
	r->opcode = m->opcode;
	r->t = m->t;
	r->l = m->l;
	r->stag = m->stag;
	r->to = m->to;
	r->qn = m->qn;
	r->msn = m->msn;
	r->mo = m->mo;
	r->inval = m->rsvdulp32;
	r->payload_len = m->payload_len;
	if (m->payload != NULL && m->payload_len > 0)
		memcpy(r->payload, m->payload,
		       m->payload_len < sizeof(r->payload) ? m->payload_len : sizeof(r->payload));
	if (!m->rdmap_hdr_ok)
		return;
	switch (m->opcode) {
	case RK_RDMAP_READ_REQ:
		r->rr = m->u.read_req;
		break;
	case RK_RDMAP_TERMINATE:
		r->term = m->u.term.ctrl;
		if (m->u.term.ctrl.d) {
			r->term_seg_len = m->u.term.ddp_seg_len;
			memcpy(r->term_ddp, m->u.term.ddp_hdr, m->u.term.ddp_hdr_len);
		}
		if (m->u.term.ctrl.r)
			memcpy(r->term_rdmap, m->u.term.rdmap_hdr, RK_RDMAP_READ_REQ_LEN);
		break;
	case RK_RDMAP_IMMDT:
	case RK_RDMAP_IMMDT_SE:
		r->immdt = m->u.immdt;
		break;
	case RK_RDMAP_ATOMIC_RESP:
		r->aresp = m->u.atomic_resp;
		break;
	default:
		break;
	}
}

void
rp_pump(struct raw_peer *rp)
{
	uint8_t buf[8192];
	size_t n;

	while ((n = rk_iw_tx(rp->qp, buf, sizeof(buf), rp->now)) > 0) {
		size_t off = 0;

		if (!rp->got_reply) {
			size_t take = sizeof(rp->reply_buf) - rp->reply_have;

			if (take > n)
				take = n;
			memcpy(rp->reply_buf + rp->reply_have, buf, take);
			rp->reply_have += take;
			if (rk_mpa_rr_parse(rp->reply_buf, rp->reply_have, &rp->reply, NULL) > 0) {
				size_t flen = RK_MPA_RR_HDR_LEN + rp->reply.pd_len;
				struct rk_mpa_params prm = { 2, false, false };

				rp->got_reply = true;
				off = flen - (rp->reply_have - take);
				rp->crc = rp->reply.c || rp->crc;
				prm.markers = rp->markers_from_dut;
				prm.crc = rp->crc;
				rp->markers_to_dut = rp->reply.m;
				rp->rseq = 5000 + (uint32_t)flen;
				rk_mpa_stream_init_fpdu(rp->ds, &prm, rp->rseq, rp->rseq);
			} else {
				continue;
			}
		}
		if (off < n) {
			rk_mpa_stream_feed(rp->ds, rp->rseq, buf + off, n - off, rp_event, rp);
			rp->rseq += (uint32_t)(n - off);
		}
	}
}

void
rp_init(struct raw_peer *rp, const struct rk_iw_conn_attr *cr, const struct rk_mpa_rr *req,
	bool ext)
{
	struct rk_iw_dev_attr da = { .max_mr = 64, .key_seed = 77 };
	struct rk_iw_qp_init_attr qa;
	struct rk_iw_conn_attr c = *cr;
	uint8_t fr[RK_MPA_RR_HDR_LEN + RK_MPA_PD_MAX];
	int w;

	memset(rp, 0, sizeof(*rp));
	rp->now = 1000;
	rp->dev = rk_iw_dev_create(&da);
	rp->pd = rk_iw_pd_alloc(rp->dev);
	rp->cq = rk_iw_cq_create(rp->dev, 1024);
	assert_non_null(rp->cq);
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = rp->cq;
	qa.recv_cq = rp->cq;
	qa.cap.max_send_wr = 64;
	qa.cap.max_recv_wr = 64;
	qa.cap.max_send_sge = 4;
	qa.cap.max_recv_sge = 4;
	qa.ext_ops = ext;
	c.role = RK_IW_RESPONDER;
	c.rx_isn = 1000;
	c.tx_isn = 5000;
	qa.conn = c;
	rp->qp = rk_iw_qp_create(rp->pd, &qa, rp->now);
	assert_non_null(rp->qp);
	rp->ds = malloc(sizeof(*rp->ds));
	assert_non_null(rp->ds);
	for (int q = 0; q < 5; q++)
		rp->msn[q] = 1;
	rp->crc = req->c;
	rp->markers_from_dut = req->m;
	w = rk_mpa_rr_build(fr, sizeof(fr), req);
	assert_true(w > 0);
	rp->seq = 1000 + (uint32_t)w;
	rp->seq0 = rp->seq;
	assert_int_equal(rk_iw_rx(rp->qp, fr, (size_t)w, rp->now), 0);
	rp_pump(rp);
}

void
rp_send_raw(struct raw_peer *rp, const uint8_t *b, size_t n)
{
	int rc = rk_iw_rx(rp->qp, b, n, rp->now);

	assert_true(rc == 0 || rc == -EPIPE);
	rp->seq += (uint32_t)n;
}

void
rp_send(struct raw_peer *rp, const uint8_t *ulpdu, uint16_t len, bool bad_crc, size_t split_at)
{
	static uint8_t f[RK_MPA_FPDU_MAX + 1024];
	struct rk_mpa_tx tx = { rp->markers_to_dut, rp->crc, rp->seq, rp->seq0 };
	int w = rk_mpa_fpdu_build(f, sizeof(f), ulpdu, len, &tx);

	assert_true(w > 0);
	if (bad_crc)
		f[w - 1] ^= 0x40;   /* last CRC octet (no marker there on aligned grids) */
	if (split_at > 0 && split_at < (size_t)w) {
		rp_send_raw(rp, f, split_at);
		rp_send_raw(rp, f + split_at, (size_t)w - split_at);
	} else {
		rp_send_raw(rp, f, (size_t)w);
	}
}

void
rp_fini(struct raw_peer *rp)
{
	rk_iw_dev_destroy(rp->dev);
	free(rp->ds);
}

/* ------------------------------------------------------------ builders */
