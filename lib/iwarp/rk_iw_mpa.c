/* SPDX-License-Identifier: BSD-3-Clause */
/* The iWARP QP's MPA set-up: Request, Reply, negotiation (RFC 5044 7.1, RFC 6581). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rk_iw_internal.h"
#include "rk_iw_mutant.h"

/* --------------------------------------------------------------- MPA */

static void
negotiated_mulpdu(struct rk_iw_qp *qp)
{
	uint32_t emss = qp->conn.emss, ml = emss - RK_MPA_HDR_LEN - RK_MPA_CRC_LEN;

	/* Room for every marker the FPDU can meet, so it fits one segment. */
	if (qp->neg.markers_tx)
		ml -= RK_MPA_MARKER_LEN * (emss / (RK_MPA_MARKER_SPACING - RK_MPA_MARKER_LEN) + 2);
	ml -= (ml + RK_MPA_HDR_LEN) & 3;
	if (ml > 65535 - 3)
		ml = 65535 - 3;
	qp->neg.mulpdu = (uint16_t)ml;
}

static void
start_fpdus(struct rk_iw_qp *qp)
{
	struct rk_mpa_params p;

	p.rev = qp->neg.rev;
	p.markers = qp->neg.markers_rx;
	p.crc = qp->neg.crc;
	rk_mpa_stream_init_fpdu(qp->rxs, &p, qp->rx_seq, qp->rx_seq);
	negotiated_mulpdu(qp);
	qp->neg_valid = true;
}

static void
save_peer_pd(struct rk_iw_qp *qp, const struct rk_mpa_rr *rr)
{
	uint16_t n = rr->ulp_pd_len;

	if (rr->ulp_pd == NULL)
		n = 0;
	if (n > RK_MPA_PD_MAX)
		n = RK_MPA_PD_MAX;
	if (n > 0)
		memcpy(qp->peer_pd, rr->ulp_pd, n);
	qp->peer_pd_len = n;
}

static void
frame_out(struct rk_iw_qp *qp, const struct rk_mpa_rr *rr, uint8_t txm)
{
	int w = rk_mpa_rr_build(qp->txbuf, qp->txcap, rr);

	qp->txlen = w > 0 ? (uint32_t)w : 0;
	qp->txoff = 0;
	qp->txm = txm;
	qp->tx_seq += qp->txlen;
	qp->tx_seq0 = qp->tx_seq;
}

/*
 * What this end and the peer's Request or Reply @p f agree on, at MPA
 * revision @p rev: enhanced set-up (RFC 6581) when both use it, CRC in
 * both directions when either side asks (RFC 5044 7.1), markers towards
 * the peer when it asks for them. @return whether set-up is enhanced.
 */
static bool
negotiate(struct rk_iw_qp *qp, const struct rk_mpa_rr *f, uint8_t rev)
{
	memset(&qp->neg, 0, sizeof(qp->neg));
	qp->neg.rev = rev;
	qp->neg.enhanced = rev == 2 && f->has_ird_ord && qp->conn.enhanced;
	qp->neg.crc = f->c || qp->conn.crc;
	qp->neg.markers_tx = f->m;
	qp->neg.markers_rx = qp->conn.markers_rx;
	qp->neg.ird = qp->conn.ird;
	qp->neg.ord = qp->conn.ord;
	return qp->neg.enhanced;
}

/* Responder: answer the Request in rr_buf (RFC 5044 7.1.2, RFC 6581). */
static void
mpa_request(struct rk_iw_qp *qp)
{
	struct rk_mpa_rr req, rep;
	struct rk_findings f;
	bool reject, enh;
	uint8_t chosen = 0;

	memset(&f, 0, sizeof(f));
	rk_mpa_rr_parse(qp->rr_buf, qp->rr_have, &req, &f);
	if (req.reply) {
		rk_iw_close_now(qp, RK_IW_CLOSE_MPA_BAD);
		return;
	}
	save_peer_pd(qp, &req);
	reject = ((req.rev == 0 || req.rev > 2) && !RK_IW_MUTANT(RK_IW_MUT_ANY_REV)) ||
		 (req.r && !RK_IW_MUTANT(RK_IW_MUT_ACCEPT_R)) ||
		 rk_findings_has(&f, RK_F_MPA_ENHANCED_PD_SHORT);
	enh = negotiate(qp, &req, req.rev < qp->conn.rev && req.rev != 0 ? req.rev :
				  qp->conn.rev);
	if (enh) {
		qp->neg.peer_ird = req.ird_ord.ird;
		qp->neg.peer_ord = req.ird_ord.ord;
		/* RFC 6581: never more Reads outstanding than the peer's IRD. */
		if (qp->neg.peer_ird < qp->neg.ord) {
			if (qp->conn.strict_ird)
				reject = true;
			qp->neg.ord = qp->neg.peer_ird;
		}
		if (req.ird_ord.p2p && qp->conn.p2p) {
			uint8_t offered = (uint8_t)((req.ird_ord.rtr_send ? RK_IW_RTR_SEND : 0) |
						    (req.ird_ord.rtr_write ? RK_IW_RTR_WRITE : 0) |
						    (req.ird_ord.rtr_read ? RK_IW_RTR_READ : 0));
			uint8_t both = offered & qp->conn.rtr_types;

			/* Preference: Write (no buffer, no response), Send, Read. */
			if (both & RK_IW_RTR_WRITE)
				chosen = RK_IW_RTR_WRITE;
			else if (both & RK_IW_RTR_SEND)
				chosen = RK_IW_RTR_SEND;
			else if (both & RK_IW_RTR_READ)
				chosen = RK_IW_RTR_READ;
		}
	}
	qp->neg.p2p = chosen != 0;
	qp->neg.rtr = chosen;

	memset(&rep, 0, sizeof(rep));
	rep.reply = true;
	rep.m = qp->neg.markers_rx;
	rep.c = qp->neg.crc;
	rep.r = reject;
	rep.rev = qp->neg.rev;
	rep.enhanced = enh;
	rep.has_ird_ord = enh;
	rep.ird_ord.ird = qp->neg.ird;
	rep.ird_ord.ord = qp->neg.ord;
	rep.ird_ord.p2p = chosen != 0;
	rep.ird_ord.rtr_send = chosen == RK_IW_RTR_SEND;
	rep.ird_ord.rtr_write = chosen == RK_IW_RTR_WRITE;
	rep.ird_ord.rtr_read = chosen == RK_IW_RTR_READ;
	rep.ulp_pd = qp->my_pd;
	rep.ulp_pd_len = qp->conn.pd_len;
	if (reject) {
		frame_out(qp, &rep, TXM_REJECT);
		qp->state = RK_IW_TERMINATE;
		qp->rx_stop = true;
		qp->err.reason = RK_IW_CLOSE_MPA_REJECTED;
		rk_iw_flush_all(qp, RK_WC_WR_FLUSH_ERR);
		return;
	}
	frame_out(qp, &rep, TXM_MPA);
	start_fpdus(qp);
	/* RFC 5044 7.1.2 / RFC 6581: the Responder sends no FPDU before the
	 * Initiator's first one (its RTR when peer-to-peer). */
	qp->state = RK_IW_RTR_WAIT;
}

/* Initiator: the Reply in rr_buf. */
static void
mpa_reply(struct rk_iw_qp *qp)
{
	struct rk_mpa_rr rep;
	struct rk_findings f;
	bool enh;

	memset(&f, 0, sizeof(f));
	rk_mpa_rr_parse(qp->rr_buf, qp->rr_have, &rep, &f);
	if (!rep.reply || rep.rev == 0 || rep.rev > qp->conn.rev) {
		rk_iw_close_now(qp, RK_IW_CLOSE_MPA_BAD);
		return;
	}
	save_peer_pd(qp, &rep);
	if (rep.r) {
		rk_iw_close_now(qp, RK_IW_CLOSE_MPA_REJECTED);
		return;
	}
	enh = negotiate(qp, &rep, rep.rev);
	start_fpdus(qp);
	qp->state = RK_IW_RTS;
	if (!enh)
		return;
	qp->neg.peer_ird = rep.ird_ord.ird;
	qp->neg.peer_ord = rep.ird_ord.ord;
	if (qp->req_sent.ird_ord.p2p && rep.ird_ord.p2p) {
		if (rk_mpa_rtr_check(&qp->req_sent, &rep, &f) != 0) {
			rk_iw_queue_term(qp, RK_IW_R_MPA_RTR, NULL, NULL, 0);
			return;
		}
		qp->neg.p2p = true;
		qp->neg.rtr = rep.ird_ord.rtr_write ? RK_IW_RTR_WRITE :
			      rep.ird_ord.rtr_send ? RK_IW_RTR_SEND : RK_IW_RTR_READ;
		qp->rtr_pending = true;
	}
	if (qp->neg.peer_ird < qp->neg.ord) {
		if (qp->conn.strict_ird) {
			rk_iw_queue_term(qp, RK_IW_R_MPA_IRD, NULL, NULL, 0);
			return;
		}
		qp->neg.ord = qp->neg.peer_ird;
	}
}

/* Bytes of the peer's MPA frame; returns how many were used. */
size_t
rk_iw_mpa_rx(struct rk_iw_qp *qp, const uint8_t *p, size_t len)
{
	size_t n;

	if (qp->rr_have < RK_MPA_RR_HDR_LEN) {
		struct rk_mpa_rr rr;

		n = RK_MPA_RR_HDR_LEN - qp->rr_have;
		if (n > len)
			n = len;
		memcpy(qp->rr_buf + qp->rr_have, p, n);
		qp->rr_have += (uint32_t)n;
		qp->rx_seq += (uint32_t)n;
		if (qp->rr_have < RK_MPA_RR_HDR_LEN)
			return n;
		/* The key decides at once: a stranger gets no answer (MPA-KEY-01). */
		if (rk_mpa_rr_parse(qp->rr_buf, qp->rr_have, &rr, NULL) == -EPROTO ||
		    rr.reply != (qp->conn.role == RK_IW_INITIATOR) ||
		    rk_mpa_rr_pd_len(qp->rr_buf) > RK_MPA_PD_MAX) {
			rk_iw_close_now(qp, RK_IW_CLOSE_MPA_BAD);
			return len;
		}
		qp->rr_need = RK_MPA_RR_HDR_LEN + rk_mpa_rr_pd_len(qp->rr_buf);
	} else {
		n = qp->rr_need - qp->rr_have;
		if (n > len)
			n = len;
		memcpy(qp->rr_buf + qp->rr_have, p, n);
		qp->rr_have += (uint32_t)n;
		qp->rx_seq += (uint32_t)n;
	}
	if (qp->rr_have == qp->rr_need) {
		if (qp->conn.role == RK_IW_RESPONDER)
			mpa_request(qp);
		else
			mpa_reply(qp);
	}
	return n;
}

