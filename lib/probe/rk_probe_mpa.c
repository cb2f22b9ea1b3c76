/* SPDX-License-Identifier: BSD-3-Clause */
/* A hand-driven MPA peer on a byte stream: Request, FPDUs out, Reply and
 * FPDUs back, decoded and classified. */
#include "rk_probe_mpa.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void
rk_probe_mpa_default_req(struct rk_mpa_rr *req)
{
	memset(req, 0, sizeof(*req));
	req->c = 1;
	req->rev = 2;
	req->enhanced = 1;
	req->has_ird_ord = true;
	req->ird_ord.ird = 4;
	req->ird_ord.ord = 4;
}

int
rk_probe_mpa_init(struct rk_probe_mpa_peer *p, const struct rk_mpa_rr *req, uint32_t isn,
		  uint32_t dut_isn, uint8_t *out, size_t cap)
{
	int w;

	if (p == NULL || req == NULL || out == NULL)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	p->ds = malloc(sizeof(*p->ds));
	if (p->ds == NULL)
		return -ENOMEM;
	for (int q = 0; q < 5; q++)
		p->msn[q] = 1;
	p->crc = req->c;
	p->markers_from_dut = req->m;
	p->risn = dut_isn;
	w = rk_mpa_rr_build(out, cap, req);
	if (w <= 0) {
		rk_probe_mpa_fini(p);
		return w < 0 ? w : -ENOSPC;
	}
	p->seq = isn + (uint32_t)w;
	p->seq0 = p->seq;
	return w;
}

void
rk_probe_mpa_sent(struct rk_probe_mpa_peer *p, size_t n)
{
	p->seq += (uint32_t)n;
}

int
rk_probe_mpa_fpdu(struct rk_probe_mpa_peer *p, const uint8_t *ulpdu, uint16_t len, bool bad_crc,
		  uint8_t *out, size_t cap)
{
	struct rk_mpa_tx tx = { p->markers_to_dut, p->crc, p->seq, p->seq0 };
	int w;

	if (ulpdu == NULL || out == NULL)
		return -EINVAL;
	w = rk_mpa_fpdu_build(out, cap, ulpdu, len, &tx);
	if (w <= 0)
		return w < 0 ? w : -ENOSPC;
	if (bad_crc)
		out[w - 1] ^= 0x40;     /* last CRC octet (no marker there on aligned grids) */
	p->seq += (uint32_t)w;
	return w;
}

static void
on_event(const struct rk_mpa_event *ev, void *ctx)
{
	struct rk_probe_mpa_peer *p = ctx;
	const struct rk_rdmap_msg *m = &ev->fpdu.msg;
	struct rk_probe_iw_msg *r;

	if (ev->kind != RK_MPA_EV_FPDU || p->nmsgs >= RK_PROBE_MPA_MSGS_MAX)
		return;
	r = &p->msgs[p->nmsgs++];
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

int
rk_probe_mpa_feed(struct rk_probe_mpa_peer *p, const uint8_t *b, size_t n)
{
	size_t off = 0;

	if (p == NULL || (b == NULL && n > 0))
		return -EINVAL;
	if (!p->got_reply) {
		size_t take = sizeof(p->reply_buf) - p->reply_have;
		int rc;

		if (take > n)
			take = n;
		memcpy(p->reply_buf + p->reply_have, b, take);
		p->reply_have += take;
		rc = rk_mpa_rr_parse(p->reply_buf, p->reply_have, &p->reply, NULL);
		if (rc == -EAGAIN)
			return 0;
		if (rc <= 0)
			return -EPROTO;
		{
			size_t flen = RK_MPA_RR_HDR_LEN + p->reply.pd_len;
			struct rk_mpa_params prm = { 2, false, false };

			p->got_reply = true;
			off = flen - (p->reply_have - take);
			p->crc = p->reply.c || p->crc;
			prm.markers = p->markers_from_dut;
			prm.crc = p->crc;
			p->markers_to_dut = p->reply.m;
			p->rseq = p->risn + (uint32_t)flen;
			rk_mpa_stream_init_fpdu(p->ds, &prm, p->rseq, p->rseq);
		}
	}
	if (off < n) {
		rk_mpa_stream_feed(p->ds, p->rseq, b + off, n - off, on_event, p);
		p->rseq += (uint32_t)(n - off);
	}
	return 0;
}

void
rk_probe_mpa_fini(struct rk_probe_mpa_peer *p)
{
	if (p == NULL)
		return;
	free(p->ds);
	p->ds = NULL;
}
