/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Loss recovery of an RC QP (rk_lr.h): go-back-N, and IRN-style selective
 * repeat (Mittal et al., "Revisiting Network Support for RDMA", SIGCOMM
 * 2018, section 3.1), the first version:
 *
 * Responder: RDMA WRITE packets without immediate that arrive past a gap
 * are checked (length, R_Key, bounds) and placed at once, and their PSNs
 * set in a bitmap of SR_WINDOW PSNs past the expected one. A MIDDLE or
 * LAST finds its message's RETH in the WRITE in progress or in the nearest
 * packet held before it. When the gap fills, the held packets are taken
 * in PSN order (ePSN, MSN, the WRITE's progress), then the next gap is
 * NAKed or everything is acknowledged. The gap's first PSN is NAKed once:
 * a NAK-SEQ whose PSN is both the missing PSN and the cumulative
 * acknowledgement, byte for byte the NAK go-back-N sends.
 *
 * A WRITE placed ahead keeps its bytes when an earlier WRITE over them
 * arrives later (clip_write): memory ends as in PSN order. Not handled:
 * an ATOMIC still in a gap reads bytes a later WRITE placed ahead may
 * have changed (the requester does not fence a WRITE after an ATOMIC).
 *
 * Not placed past a gap (dropped as go-back-N drops them, sent again):
 * SEND, which names neither its receive WQE nor its offset (IRN adds a
 * header for both); WRITE with immediate, whose receive WQE is consumed
 * in order; READ and ATOMIC requests, executed in order. READ responses
 * are taken in order by the requester, as with go-back-N.
 *
 * Requester: a NAK-SEQ whose PSN is a WRITE packet and lies below the
 * next PSN to send resends that PSN alone (IRN's recovery mode, one hole
 * per NAK); any other NAK-SEQ goes back N. With at most N PSNs outstanding
 * the local ACK timer runs IRN's RTO_low and its expiry resends the oldest
 * unacknowledged PSN as a NAK-SEQ would: so few packets bring no NAK, and
 * a resend lost again is found only by the timer. Otherwise the QP's own
 * timeout runs and goes back N (the simple version of IRN's RTO_high).
 *
 * Nothing negotiates it: both ends must set it, and no other RoCE
 * implementation does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rk_ib_internal.h"
#include "rk_pkt.h"

/* PSNs past the expected one the responder holds: at least the window. */
#define SR_WINDOW 1024u

enum { SR_FIRST = 1, SR_LAST = 2 };

/* A WRITE packet placed past the gap, and its message. */
struct sr_slot {
	uint64_t va;                    /* the message's first byte (RETH VA) */
	uint32_t psn;                   /* this packet's */
	uint32_t first_psn;             /* the message's first PSN */
	uint32_t rkey, dma_len;
	uint32_t len;                   /* payload bytes of this packet */
	uint8_t flags;                  /* SR_FIRST, SR_LAST */
};

struct sr_state {
	uint64_t got[SR_WINDOW / 64];   /* PSN mod SR_WINDOW placed past the gap */
	struct sr_slot slot[SR_WINDOW];
	uint32_t hi;                    /* highest PSN seen past the gap */
	bool hi_valid;
	uint64_t rto_low_ns;            /* requester: IRN's RTO_low, 0 = off */
	uint32_t rto_low_n;             /* ... while at most this many PSNs are outstanding */
};

static struct sr_state *
sr(const struct rk_ib_qp *qp)
{
	return qp->lr_state;
}

/* PSN @p psn is held (its slot says so too: no alias a window away). */
static bool
held(const struct sr_state *s, uint32_t psn)
{
	uint32_t i = psn % SR_WINDOW;

	return (s->got[i / 64] >> (i % 64) & 1) && s->slot[i].psn == psn;
}

static void
set_held(struct sr_state *s, uint32_t psn, bool on)
{
	uint32_t i = psn % SR_WINDOW;

	if (on)
		s->got[i / 64] |= 1ull << (i % 64);
	else
		s->got[i / 64] &= ~(1ull << (i % 64));
}

static uint32_t
npkts(const struct rk_ib_qp *qp, uint32_t dma_len)
{
	return dma_len == 0 ? 1 : (dma_len + qp->pmtu - 1) / qp->pmtu;
}

/*
 * The message PSN @p psn (a WRITE MIDDLE or LAST) belongs to: the WRITE
 * in progress, or the one of the nearest packet held before it. False
 * when its first packet is unknown.
 */
static bool
find_msg(const struct rk_ib_qp *qp, uint32_t psn, struct sr_slot *m)
{
	const struct resp_state *r = &qp->resp;
	const struct sr_state *s = sr(qp);

	if (r->msg == MSG_WRITE) {
		m->first_psn = rk_psn_sub(r->epsn, r->off / qp->pmtu);
		m->va = r->wr_va - r->off;
		m->rkey = r->wr_rkey;
		m->dma_len = r->off + r->wr_left;
		if ((uint32_t)rk_psn_diff(psn, m->first_psn) < npkts(qp, m->dma_len))
			return true;
	}
	for (uint32_t p = rk_psn_sub(psn, 1); p != r->epsn; p = rk_psn_sub(p, 1)) {
		if (!held(s, p))
			continue;
		*m = s->slot[p % SR_WINDOW];
		return (uint32_t)rk_psn_diff(psn, m->first_psn) < npkts(qp, m->dma_len);
	}
	return false;
}

static void clip_write(struct rk_ib_qp *qp, uint8_t *dst, uint64_t va, const uint8_t *src,
		       uint32_t len, uint32_t psn);

/* Checks of the in-order path that a placed packet must pass now. */
static bool
sr_resp_ahead(struct rk_ib_qp *qp, const struct rk_pkt *pkt, uint32_t psn)
{
	struct sr_state *s = sr(qp);
	uint32_t f = pkt->op->flags, with_pad = pkt->icrc_off - pkt->payload_off;
	uint32_t len, idx, off, left;
	const uint8_t *h;
	struct sr_slot m;
	struct rk_ib_mr *mr;
	uint8_t *dst = NULL;

	if (!s->hi_valid || rk_psn_diff(psn, s->hi) > 0) {
		s->hi = psn;
		s->hi_valid = true;
	}
	if ((uint32_t)rk_psn_diff(psn, qp->resp.epsn) >= SR_WINDOW)
		return false;
	if (held(s, psn)) {
		RK_QP_COUNT(qp, resp_dup);
		return true;
	}
	if ((f & (RK_OPF_WRITE | RK_OPF_IMM | RK_OPF_VALID)) != (RK_OPF_WRITE | RK_OPF_VALID) ||
	    !(qp->attr.qp_access_flags & RK_ACCESS_REMOTE_WRITE) ||
	    (with_pad & 3) != 0 || pkt->pad_cnt > with_pad)
		return false;
	len = with_pad - pkt->pad_cnt;
	if (f & RK_OPF_FIRST) {
		if ((h = rk_pkt_xeth(pkt, RK_HDR_RETH)) == NULL)
			return false;
		m.first_psn = psn;
		m.va = rk_reth_va(h);
		m.rkey = rk_reth_r_key(h);
		m.dma_len = rk_reth_dma_len(h);
	} else if (!find_msg(qp, psn, &m)) {
		return false;
	}
	idx = (uint32_t)rk_psn_diff(psn, m.first_psn);
	off = idx * qp->pmtu;
	if ((uint64_t)idx * qp->pmtu > m.dma_len || (idx > 0 && off == m.dma_len))
		return false;
	left = m.dma_len - off;
	/* C9-92 and LEN-WR-01: FIRST/MIDDLE exactly PMTU, LAST or ONLY the rest. */
	if ((f & RK_OPF_LAST) ? len != left || left > qp->pmtu : len != qp->pmtu || left <= len)
		return false;
	if (len > 0) {
		mr = rk_ib_mr_by_rkey(qp->dev, m.rkey);
		if (mr == NULL || !mr->rkey_valid || mr->pd != qp->pd ||
		    !(mr->res.access & RK_ACCESS_REMOTE_WRITE) || m.va + m.dma_len < m.va ||
		    (dst = mr_range(mr, m.va + off, len)) == NULL)
			return false;
		clip_write(qp, dst, m.va + off, pkt->frame + pkt->payload_off, len, psn);
	}
	m.psn = psn;
	m.len = len;
	m.flags = (uint8_t)(((f & RK_OPF_FIRST) ? SR_FIRST : 0) | ((f & RK_OPF_LAST) ? SR_LAST : 0));
	s->slot[psn % SR_WINDOW] = m;
	set_held(s, psn, true);
	/* a new WRITE packet placed: counted as it lands, as the in-order
	 * path counts (a NIC's rx_write_requests), not when ePSN reaches it */
	RK_QP_COUNT(qp, resp_write_reqs);
	return true;
}

/* Take the held packet at ePSN in order, as exec_write() and complete() would. */
static bool
take(struct rk_ib_qp *qp, const struct sr_slot *m)
{
	struct resp_state *r = &qp->resp;

	if (m->flags & SR_FIRST) {
		if (r->msg != MSG_NONE)
			return false;
		r->msg = MSG_WRITE;
		r->off = 0;
		r->wr_va = m->va;
		r->wr_rkey = m->rkey;
		r->wr_left = m->dma_len;
	} else if (r->msg != MSG_WRITE || r->wr_va != m->va + (r->off) ||
		   r->wr_rkey != m->rkey) {
		return false;
	}
	r->wr_va += m->len;
	r->wr_left -= m->len;
	r->off += m->len;
	if (m->flags & SR_LAST) {
		r->msg = MSG_NONE;
		r->msn = rk_psn_add(r->msn, 1);
	}
	/* counted in resp_write_reqs when it was placed, not again now */
	r->epsn = rk_psn_add(r->epsn, 1);
	return true;
}

/*
 * A later WRITE placed ahead may cover bytes of this earlier one: in PSN
 * order the later data wins, so those bytes are not written again.
 */
static void
clip_write(struct rk_ib_qp *qp, uint8_t *dst, uint64_t va, const uint8_t *src, uint32_t len,
	   uint32_t psn)
{
	const struct sr_state *s = sr(qp);
	uint8_t skip[RK_IB_MAX_FRAME];
	bool any = false;

	if (!s->hi_valid || len > sizeof(skip)) {
		memcpy(dst, src, len);
		return;
	}
	memset(skip, 0, len);
	for (uint32_t w = 0; w < SR_WINDOW / 64; w++) {
		for (uint64_t b = s->got[w]; b != 0; b &= b - 1) {
			const struct sr_slot *m = &s->slot[w * 64 + (uint32_t)__builtin_ctzll(b)];
			uint64_t lo;

			if (rk_psn_diff(m->psn, psn) <= 0)
				continue;
			lo = m->va + (uint64_t)(uint32_t)rk_psn_diff(m->psn, m->first_psn) *
					      qp->pmtu;
			uint64_t hi = lo + m->len;

			if (hi <= va || lo >= va + len)
				continue;
			lo = lo < va ? va : lo;
			hi = hi > va + len ? va + len : hi;
			memset(skip + (lo - va), 1, hi - lo);
			any = true;
		}
	}
	for (uint32_t i = 0; i < len; i++)
		if (!any || !skip[i])
			dst[i] = src[i];
}

static void
sr_resp_write(struct rk_ib_qp *qp, uint8_t *dst, uint64_t va, const uint8_t *src, uint32_t len)
{
	clip_write(qp, dst, va, src, len, qp->resp.epsn);
}

static void
sr_reset(struct rk_ib_qp *qp)
{
	struct sr_state *s = sr(qp);

	memset(s->got, 0, sizeof(s->got));
	s->hi_valid = false;
}

static void
sr_resp_advanced(struct rk_ib_qp *qp, uint64_t now_ns)
{
	struct sr_state *s = sr(qp);
	struct resp_state *r = &qp->resp;
	bool moved = false;

	while (held(s, r->epsn)) {
		const struct sr_slot *m = &s->slot[r->epsn % SR_WINDOW];

		set_held(s, r->epsn, false);
		if (!take(qp, m)) {
			/* Not the sequence the requester would send: forget
			 * the rest; sent again, the in-order checks judge it. */
			sr_reset(qp);
			break;
		}
		moved = true;
	}
	if (!moved)
		return;
	if (s->hi_valid && rk_psn_diff(s->hi, r->epsn) >= 0) {
		/* The next gap is known: NAK its first PSN, once. */
		r->nak_sent = true;
		RK_QP_COUNT(qp, resp_nak_seq);
		rk_resp_set_ack(qp, RK_AETH_TYPE_NAK | RK_AETH_NAK_PSN_SEQ_ERR, r->epsn, now_ns);
	} else {
		/* The gap filled: acknowledge what the held packets completed. */
		s->hi_valid = false;
		rk_resp_set_ack(qp, rk_resp_ack_syndrome(qp), rk_psn_sub(r->epsn, 1), now_ns);
	}
}

/* Resend comp.psn alone when it is a WRITE packet sent before; else go back N. */
static void
sr_req_nak_seq(struct rk_ib_qp *qp)
{
	uint32_t psn = qp->comp.psn;
	const struct sq_wqe *w;

	if (qp->comp.wqe_idx == qp->sq_prod || rk_psn_diff(psn, qp->req.psn) >= 0) {
		rk_comp_go_back(qp);
		return;
	}
	w = sq_slot(qp, qp->comp.wqe_idx);
	if (w->state == WQE_POSTED || w->wr.opcode != RK_WR_RDMA_WRITE ||
	    rk_psn_diff(psn, w->first_psn) < 0 || rk_psn_diff(psn, w->last_psn) > 0) {
		rk_comp_go_back(qp);
		return;
	}
	/* The retry bookkeeping of go-back-N, without moving req.psn back. */
	qp->comp.retry_psn = psn;
	qp->comp.retry_psn_valid = true;
	qp->comp.retry_resent = false;
	qp->comp.retry_hi_valid = false;
	qp->req.resend_psn = psn;
	qp->req.resend_valid = true;
}

static uint64_t
sr_req_rto_low(const struct rk_ib_qp *qp)
{
	const struct sr_state *s = sr(qp);

	if (s->rto_low_ns == 0 || s->rto_low_ns >= qp->timeout_ns || !rk_comp_outstanding(qp))
		return 0;
	/* PSNs sent and not acknowledged (a READ counts all its responses). */
	if ((uint32_t)rk_psn_diff(qp->req.max_sent_psn, qp->comp.psn) + 1 > s->rto_low_n)
		return 0;
	return s->rto_low_ns;
}

static void
sr_fini(struct rk_ib_qp *qp)
{
	free(qp->lr_state);
	qp->lr_state = NULL;
}

const struct rk_lr_ops rk_lr_gbn_ops = {
	.name = "gbn",
	.req_nak_seq = rk_comp_go_back,
};

const struct rk_lr_ops rk_lr_sr_ops = {
	.name = "sr",
	.resp_ahead = sr_resp_ahead,
	.resp_advanced = sr_resp_advanced,
	.resp_write = sr_resp_write,
	.req_nak_seq = sr_req_nak_seq,
	.req_rto_low = sr_req_rto_low,
	.req_rto_low_expired = sr_req_nak_seq,
	.reset = sr_reset,
	.fini = sr_fini,
};

int
rk_ib_qp_set_recovery(struct rk_ib_qp *qp, const char *algo)
{
	const struct rk_lr_ops *ops;

	if (qp == NULL || algo == NULL)
		return -EINVAL;
	if (strcmp(algo, rk_lr_gbn_ops.name) == 0)
		ops = &rk_lr_gbn_ops;
	else if (strcmp(algo, rk_lr_sr_ops.name) == 0)
		ops = &rk_lr_sr_ops;
	else
		return -ENOENT;
	if (qp->type != RK_QPT_RC && ops != &rk_lr_gbn_ops)
		return -EOPNOTSUPP;
	if (qp->state != RK_QPS_RESET && qp->state != RK_QPS_INIT)
		return -EBUSY;
	if (ops == qp->lr)
		return 0;
	if (ops == &rk_lr_sr_ops) {
		struct sr_state *s = calloc(1, sizeof(struct sr_state));

		if (s == NULL)
			return -ENOMEM;
		s->rto_low_ns = RK_IB_RTO_LOW_NS;
		s->rto_low_n = RK_IB_RTO_LOW_N;
		if (qp->lr->fini != NULL)
			qp->lr->fini(qp);
		qp->lr_state = s;
	} else if (qp->lr->fini != NULL) {
		qp->lr->fini(qp);
	}
	qp->lr = ops;
	qp->req.resend_valid = false;
	return 0;
}

const char *
rk_ib_qp_recovery(const struct rk_ib_qp *qp)
{
	return qp->lr->name;
}

int
rk_ib_qp_set_rto_low(struct rk_ib_qp *qp, uint64_t rto_low_ns, uint32_t n)
{
	struct sr_state *s;

	if (qp == NULL)
		return -EINVAL;
	if (qp->lr != &rk_lr_sr_ops)
		return -EOPNOTSUPP;
	s = sr(qp);
	s->rto_low_ns = n != 0 ? rto_low_ns : 0;
	s->rto_low_n = rto_low_ns != 0 ? n : 0;
	return 0;
}

void
rk_ib_qp_rto_low(const struct rk_ib_qp *qp, uint64_t *rto_low_ns, uint32_t *n)
{
	const struct sr_state *s = qp->lr == &rk_lr_sr_ops ? sr(qp) : NULL;

	*rto_low_ns = s != NULL ? s->rto_low_ns : 0;
	*n = s != NULL ? s->rto_low_n : 0;
}
