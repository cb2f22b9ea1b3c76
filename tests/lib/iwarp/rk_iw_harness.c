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

void
rp_pump(struct raw_peer *rp)
{
	uint8_t buf[8192];
	size_t n;

	while ((n = rk_iw_tx(rp->qp, buf, sizeof(buf), rp->now)) > 0)
		rk_probe_mpa_feed(&rp->mp, buf, n);
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
	w = rk_probe_mpa_init(&rp->mp, req, 1000, 5000, fr, sizeof(fr));
	assert_true(w > 0);
	assert_int_equal(rk_iw_rx(rp->qp, fr, (size_t)w, rp->now), 0);
	rp_pump(rp);
}

void
rp_send_raw(struct raw_peer *rp, const uint8_t *b, size_t n)
{
	int rc = rk_iw_rx(rp->qp, b, n, rp->now);

	assert_true(rc == 0 || rc == -EPIPE);
	rk_probe_mpa_sent(&rp->mp, n);
}

void
rp_send(struct raw_peer *rp, const uint8_t *ulpdu, uint16_t len, bool bad_crc, size_t split_at)
{
	static uint8_t f[RK_MPA_FPDU_MAX + 1024];
	int w = rk_probe_mpa_fpdu(&rp->mp, ulpdu, len, bad_crc, f, sizeof(f));
	int rc;

	assert_true(w > 0);
	if (split_at > 0 && split_at < (size_t)w) {
		rc = rk_iw_rx(rp->qp, f, split_at, rp->now);
		assert_true(rc == 0 || rc == -EPIPE);
		rc = rk_iw_rx(rp->qp, f + split_at, (size_t)w - split_at, rp->now);
	} else {
		rc = rk_iw_rx(rp->qp, f, (size_t)w, rp->now);
	}
	assert_true(rc == 0 || rc == -EPIPE);
}

void
rp_fini(struct raw_peer *rp)
{
	rk_iw_dev_destroy(rp->dev);
	rk_probe_mpa_fini(&rp->mp);
}

/* ------------------------------------------------------------ builders */
