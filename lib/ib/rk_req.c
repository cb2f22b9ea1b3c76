/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Requester (IBTA Vol1 ch. 9; rxe_req.c role):
 * work requests to packets, segmentation at the path MTU, PSN assignment
 * modulo 2^24, the AckReq policy, the READ/ATOMIC initiator depth, the
 * in-flight window, and go-back-N seeking. A packet is a pure function of
 * (WQE, PSN), so a retransmission is byte-identical to the original.
 */
#include <string.h>

#include "rk_ib_internal.h"

#include "rk_eth.h"
#include "rk_ipv4.h"
#include "rk_ipv6.h"
#include "rk_udp.h"

/* ---------------------------------------------------------------- frames */

uint8_t *
rk_ib_frame_begin(const struct rk_ib_qp *qp, const struct rk_ah_attr *ah, uint8_t *f,
		  uint32_t ib_len, uint8_t ecn)
{
	const struct rk_ib_dev *dev = qp->dev;
	uint8_t *ip = f + RK_ETH_HLEN, *udp;
	uint8_t ttl = ah->hop_limit ? ah->hop_limit : 64;
	const uint8_t *sip = rk_ib_src_ip(dev, ah);

	rk_eth_write(f, ah->dmac, dev->attr.mac, 0, 0,
		     dev->attr.ip_version == 4 ? RK_ETHERTYPE_IPV4 : RK_ETHERTYPE_IPV6);
	if (dev->attr.ip_version == 4) {
		ip[0] = 4 << 4 | RK_IPV4_HLEN / 4;
		rk_ipv4_set_tos(ip, (uint8_t)(ah->dscp << RK_IPV4_DSCP_SHIFT | (ecn & 3)));
		rk_ipv4_set_total_len(ip, (uint16_t)(RK_IPV4_HLEN + RK_UDP_HLEN + ib_len));
		rk_ipv4_set_id(ip, 0);                  /* constant: retransmissions identical */
		rk_ipv4_set_frag(ip, RK_IPV4_DF);       /* DF, CA17-7 */
		rk_ipv4_set_ttl(ip, ttl);
		rk_ipv4_set_protocol(ip, RK_IPPROTO_UDP);
		rk_ipv4_set_src(ip, sip + 12);
		rk_ipv4_set_dst(ip, ah->dip + 12);
		rk_ipv4_fill_csum(ip);
		udp = ip + RK_IPV4_HLEN;
	} else {
		rk_ipv6_set_word0(ip, ah->dscp, ecn & 3, 0);
		rk_ipv6_set_payload_len(ip, (uint16_t)(RK_UDP_HLEN + ib_len));
		rk_ipv6_set_next_header(ip, RK_IPPROTO_UDP);
		rk_ipv6_set_hop_limit(ip, ttl);
		rk_ipv6_set_src(ip, sip);
		rk_ipv6_set_dst(ip, ah->dip);
		udp = ip + RK_IPV6_HLEN;
	}
	/* Checksum 0: A17.3.2.4 allows it. */
	rk_udp_write(udp, qp->sport, RK_ROCEV2_UDP_PORT, (uint16_t)(RK_UDP_HLEN + ib_len));
	return udp + RK_UDP_HLEN;
}

/* Zero the pad, append the ICRC (Annex A17.3.3); return the frame length. */
uint32_t
rk_ib_frame_end(const struct rk_ib_qp *qp, uint8_t *f, uint32_t bth_off, uint32_t payload_end)
{
	uint32_t pad = (4 - ((payload_end - bth_off) & 3)) & 3;
	uint32_t end = payload_end + pad;

	(void)qp;
	memset(f + payload_end, 0, pad);
	rk_put_le32(f + end, rk_rocev2_icrc(f + RK_ETH_HLEN, end - RK_ETH_HLEN));
	return end + RK_ICRC_LEN;
}

/*
 * Finish a frame whose payload was fed to @p crc (rk_rocev2_icrc_begin()
 * over the headers, then every payload byte): zero the pad, append the
 * ICRC; return the frame length.
 */
uint32_t
rk_ib_frame_finish(uint8_t *f, uint32_t bth_off, uint32_t payload_end, rk_crc32_state crc)
{
	uint32_t pad = (4 - ((payload_end - bth_off) & 3)) & 3;
	uint32_t end = payload_end + pad;

	if (pad > 0) {
		memset(f + payload_end, 0, pad);
		crc = rk_crc32_update(crc, f + payload_end, pad);
	}
	rk_put_le32(f + end, rk_crc32_final(crc));
	return end + RK_ICRC_LEN;
}

uint32_t
rk_ib_frame_finish_sg(struct rk_ib_dev *dev, uint8_t *f, uint32_t bth_off, uint32_t hdr_end,
		      const uint8_t *payload, uint32_t plen)
{
	uint32_t pad = (4 - ((hdr_end - bth_off + plen) & 3)) & 3;
	rk_crc32_state crc = rk_rocev2_icrc_begin(f + RK_ETH_HLEN, hdr_end - RK_ETH_HLEN);

	crc = rk_crc32_update(crc, payload, plen);
	memset(dev->sg_trailer, 0, pad);
	if (pad > 0)
		crc = rk_crc32_update(crc, dev->sg_trailer, pad);
	rk_put_le32(dev->sg_trailer + pad, rk_crc32_final(crc));
	dev->sg_used = true;
	dev->sg_payload = payload;
	dev->sg_len = plen;
	dev->sg_trailer_len = pad + RK_ICRC_LEN;
	return hdr_end + plen + pad + RK_ICRC_LEN;
}

/*
 * Host address of [off, off + len) of SGE i of w. The L_Key is looked up
 * on every use, never cached: once rk_ib_mr_dereg returns, no
 * (re)transmission or response can reach the region (NULL instead).
 */
uint8_t *
rk_req_sge_ptr(struct rk_ib_qp *qp, const struct sq_wqe *w, uint32_t i, uint32_t off,
	       uint32_t len, unsigned int need)
{
	if (w->inline_data)
		return (uint8_t *)(uintptr_t)w->sge[0].addr + off;
	return rk_ib_sge_ptr(qp, &w->sge[i], off, len, need);
}

/*
 * Copy len bytes at message offset off out of the WQE's SGEs, and feed
 * them to *crc first when crc is not NULL; false if an MR is gone.
 */
static bool
gather(struct rk_ib_qp *qp, const struct sq_wqe *w, uint32_t off, uint8_t *dst, uint32_t len,
       rk_crc32_state *crc)
{
	for (uint32_t i = 0; len > 0 && i < (uint32_t)w->wr.num_sge; i++) {
		uint32_t sl = w->sge[i].length, n;
		const uint8_t *src;

		if (off >= sl) {
			off -= sl;
			continue;
		}
		n = sl - off < len ? sl - off : len;
		src = rk_req_sge_ptr(qp, w, i, off, n, 0);
		if (src == NULL)
			return false;
		if (crc != NULL)
			*crc = rk_crc32_update(*crc, src, n);
		memcpy(dst, src, n);
		dst += n;
		len -= n;
		off = 0;
	}
	return true;
}

/*
 * [off, off + len) of the message when it lies inside one SGE, through its
 * L_Key now; NULL when it spans SGEs or the MR is gone (the copying path
 * then decides).
 */
static const uint8_t *
sge_piece(struct rk_ib_qp *qp, const struct sq_wqe *w, uint32_t off, uint32_t len)
{
	for (uint32_t i = 0; i < (uint32_t)w->wr.num_sge; i++) {
		uint32_t sl = w->sge[i].length;

		if (off < sl)
			return len <= sl - off ? rk_req_sge_ptr(qp, w, i, off, len, 0) : NULL;
		off -= sl;
	}
	return NULL;
}

/* ---------------------------------------------------------------- policy */

uint32_t
rk_req_npkts(const struct rk_ib_qp *qp, const struct sq_wqe *w)
{
	if (wr_is_atomic(w->wr.opcode) || qp->type == RK_QPT_UD || w->length == 0)
		return 1;
	return (w->length + qp->pmtu - 1) / qp->pmtu;
}

static uint32_t
rd_atomic_limit(const struct rk_ib_qp *qp)
{
	/* max_rd_atomic 0 would never let a READ out: treat it as 1 (documented). */
	return qp->attr.max_rd_atomic ? qp->attr.max_rd_atomic : 1;
}

/*
 * Check the SGEs against their L_Keys before the first packet (IBTA Vol1
 * ch. 10); every later use looks them up again (rk_req_sge_ptr).
 */
static enum rk_wc_status
check_sges(struct rk_ib_qp *qp, struct sq_wqe *w)
{
	unsigned int need = wr_is_rd_atomic(w->wr.opcode) ? RK_ACCESS_LOCAL_WRITE : 0;

	for (int i = 0; i < w->wr.num_sge; i++) {
		/* A piece of no bytes needs no address (a zero-length MR may sit at NULL). */
		if (w->sge[i].length != 0 &&
		    rk_req_sge_ptr(qp, w, (uint32_t)i, 0, w->sge[i].length, need) == NULL)
			return RK_WC_LOC_PROT_ERR;
	}
	if (qp->type == RK_QPT_UD && w->length > qp->pmtu)
		return RK_WC_LOC_LEN_ERR;
	return RK_WC_SUCCESS;
}

/*
 * The WQE owning the PSN selective repeat owes again (req.resend_psn), or
 * NULL when none is owed or it was acknowledged meanwhile.
 */
static struct sq_wqe *
resend_wqe(const struct rk_ib_qp *qp)
{
	uint32_t psn = qp->req.resend_psn;

	if (!qp->req.resend_valid || rk_psn_diff(psn, qp->comp.psn) < 0 ||
	    rk_psn_diff(psn, qp->req.psn) >= 0)
		return NULL;
	for (uint32_t idx = qp->comp.wqe_idx; idx != qp->sq_prod; idx++) {
		struct sq_wqe *w = sq_slot(qp, idx);

		if (w->state == WQE_POSTED)
			break;
		if (rk_psn_diff(psn, w->first_psn) >= 0 && rk_psn_diff(psn, w->last_psn) <= 0)
			return w;
	}
	return NULL;
}

/* The WQE the requester would send from now, or NULL when it must wait. */
struct sq_wqe *
rk_req_next(const struct rk_ib_qp *qp, uint64_t now_ns)
{
	struct sq_wqe *w;

	if (qp->state != RK_QPS_RTS && qp->state != RK_QPS_SQD)
		return NULL;
	if (qp->req.rnr_wait && now_ns < qp->req.rnr_until_ns)
		return NULL;
	if (qp->req.wqe_idx == qp->sq_prod && !qp->req.resend_valid)
		return NULL;
	/* Congestion control's pacer: next send no earlier than last + bytes / rate. */
	if (qp->cc != NULL && now_ns < qp->cc->next_send_ns(qp))
		return NULL;
	/* A PSN owed again goes first, inside the window it was sent in. */
	if (qp->req.resend_valid && (w = resend_wqe(qp)) != NULL)
		return w;
	if (qp->req.wqe_idx == qp->sq_prod)
		return NULL;
	w = sq_slot(qp, qp->req.wqe_idx);
	if (qp->type != RK_QPT_RC)
		return (w->state == WQE_POSTED && qp->state == RK_QPS_SQD) ? NULL : w;
	if (qp->req.sent_any &&
	    rk_psn_diff(qp->req.psn, qp->comp.psn) >= (int32_t)qp->dev->attr.max_inflight_pkts)
		return NULL;
	if (w->state == WQE_POSTED) {
		if (qp->state == RK_QPS_SQD)
			return NULL;            /* draining: nothing new starts */
		if ((w->wr.send_flags & RK_SEND_FENCE) && qp->req.rd_atomic > 0)
			return NULL;
		if (wr_is_rd_atomic(w->wr.opcode) && qp->req.rd_atomic >= rd_atomic_limit(qp))
			return NULL;
		/* A READ takes all its PSNs at once: keep under 2^23 outstanding. */
		if (w->wr.opcode == RK_WR_RDMA_READ && qp->req.sent_any &&
		    rk_psn_diff(qp->req.psn, qp->comp.psn) > 0 &&
		    (uint32_t)rk_psn_diff(qp->req.psn, qp->comp.psn) + rk_req_npkts(qp, w) >
		    RK_IB_MAX_OUTSTANDING_PSNS)
			return NULL;
	}
	return w;
}

bool
rk_req_ready(const struct rk_ib_qp *qp, uint64_t now_ns)
{
	return rk_req_next(qp, now_ns) != NULL;
}

/*
 * Go back (or forward) to PSN psn: the next packet sent is the one with that
 * PSN, from the WQE that owns it (go-back-N, IBTA Vol1 ch. 9).
 */
void
rk_req_seek(struct rk_ib_qp *qp, uint32_t psn)
{
	uint32_t idx = qp->comp.wqe_idx;

	for (; idx != qp->sq_prod; idx++) {
		const struct sq_wqe *w = sq_slot(qp, idx);

		if (w->state == WQE_POSTED)
			break;
		if (rk_psn_diff(psn, w->first_psn) >= 0 && rk_psn_diff(psn, w->last_psn) <= 0)
			break;
	}
	qp->req.wqe_idx = idx;
	qp->req.psn = psn;
}

/* ----------------------------------------------------------------- build */

static uint8_t
send_opcode(enum rk_wr_opcode op, bool first, bool last)
{
	bool imm = op == RK_WR_SEND_WITH_IMM, inv = op == RK_WR_SEND_WITH_INV;

	if (first && last)
		return imm ? RK_OP_SEND_ONLY_IMM : inv ? RK_OP_SEND_ONLY_INV : RK_OP_SEND_ONLY;
	if (first)
		return RK_OP_SEND_FIRST;
	if (last)
		return imm ? RK_OP_SEND_LAST_IMM : inv ? RK_OP_SEND_LAST_INV : RK_OP_SEND_LAST;
	return RK_OP_SEND_MIDDLE;
}

static uint8_t
write_opcode(bool imm, bool first, bool last)
{
	if (first && last)
		return imm ? RK_OP_RDMA_WRITE_ONLY_IMM : RK_OP_RDMA_WRITE_ONLY;
	if (first)
		return RK_OP_RDMA_WRITE_FIRST;
	if (last)
		return imm ? RK_OP_RDMA_WRITE_LAST_IMM : RK_OP_RDMA_WRITE_LAST;
	return RK_OP_RDMA_WRITE_MIDDLE;
}

/* Build packet number idx (PSN psn) of WQE w into f; -1 when its memory is gone. */
static int
build_req(struct rk_ib_qp *qp, const struct sq_wqe *w, uint32_t idx, uint32_t psn, uint8_t *f)
{
	struct rk_bth_fields bth = { 0 };
	struct rk_xeth_fields x = { 0 };
	const struct rk_ah_attr *ah = qp->type == RK_QPT_UD ? sq_ah(qp, w) : &qp->attr.ah_attr;
	bool first = idx == 0, last = idx + 1 == sq_wqe_npkts(w);
	uint32_t off = idx * qp->pmtu, plen = 0, hdr, ib_len, bth_off;
	const struct rk_opcode_info *op;
	uint8_t *b;

	switch (w->wr.opcode) {
	case RK_WR_SEND:
	case RK_WR_SEND_WITH_IMM:
	case RK_WR_SEND_WITH_INV:
		bth.opcode = send_opcode(w->wr.opcode, first, last);
		plen = w->length - off < qp->pmtu ? w->length - off : qp->pmtu;
		break;
	case RK_WR_RDMA_WRITE:
	case RK_WR_RDMA_WRITE_WITH_IMM:
		bth.opcode = write_opcode(w->wr.opcode == RK_WR_RDMA_WRITE_WITH_IMM, first, last);
		plen = w->length - off < qp->pmtu ? w->length - off : qp->pmtu;
		x.reth_va = w->wr.wr.rdma.remote_addr;
		x.reth_r_key = w->wr.wr.rdma.rkey;
		x.reth_dma_len = w->length;
		break;
	case RK_WR_RDMA_READ:
		/* A re-issued READ asks for the rest from the first missing PSN. */
		bth.opcode = RK_OP_RDMA_READ_REQUEST;
		x.reth_va = w->wr.wr.rdma.remote_addr + off;
		x.reth_r_key = w->wr.wr.rdma.rkey;
		x.reth_dma_len = w->length - off;
		last = true;
		break;
	case RK_WR_ATOMIC_CMP_AND_SWP:
	case RK_WR_ATOMIC_FETCH_AND_ADD:
		bth.opcode = w->wr.opcode == RK_WR_ATOMIC_CMP_AND_SWP ? RK_OP_COMPARE_SWAP :
								       RK_OP_FETCH_ADD;
		x.atmeth_va = w->wr.wr.atomic.remote_addr;
		x.atmeth_r_key = w->wr.wr.atomic.rkey;
		x.atmeth_swap_add = w->wr.opcode == RK_WR_ATOMIC_CMP_AND_SWP ?
				    w->wr.wr.atomic.swap : w->wr.wr.atomic.compare_add;
		x.atmeth_compare = w->wr.wr.atomic.compare_add;
		break;
	}
	if (qp->type == RK_QPT_UC)
		bth.opcode |= RK_OP_TR_UC;
	else if (qp->type == RK_QPT_UD)
		bth.opcode |= RK_OP_TR_UD;
	op = rk_opcode_info(bth.opcode);
	x.imm = w->wr.imm_data;
	x.ieth_r_key = w->wr.invalidate_rkey;
	if (qp->type == RK_QPT_UD) {
		x.deth_q_key = (w->wr.wr.ud.remote_qkey & 0x80000000u) ? qp->attr.qkey :
									 w->wr.wr.ud.remote_qkey;
		x.deth_src_qp = qp->qpn;
		bth.dest_qp = w->wr.wr.ud.remote_qpn & RK_QPN_MASK;
	} else {
		bth.dest_qp = qp->attr.dest_qp_num;
	}
	bth.p_key = qp->p_key;
	bth.psn = psn;
	bth.se = last && (w->wr.send_flags & RK_SEND_SOLICITED) ? 1 : 0;
	/* AckReq: last packet of a message, and every ackreq_every-th packet. */
	bth.ack_req = qp->type == RK_QPT_RC &&
		      (last || (idx + 1) % qp->dev->attr.ackreq_every == 0);
	hdr = op->hdr_len;
	bth.pad_cnt = (uint8_t)((4 - (plen & 3)) & 3);
	ib_len = hdr + plen + bth.pad_cnt + RK_ICRC_LEN;
	/* Under congestion control the data is ECN-capable (ECT(0), as RoCE
	 * NICs send it with DCQCN on): a switch marks it CE rather than drop
	 * it, and the responder's NP answers with CNPs. Else Not-ECT. */
	b = rk_ib_frame_begin(qp, ah, f, ib_len, qp->cc != NULL ? RK_ECN_ECT0 : RK_ECN_NOT_ECT);
	bth_off = (uint32_t)(b - f);
	rk_build_ib_headers(b, hdr, &bth, &x);
	if (qp->dev->sg_allowed && plen >= RK_IB_SG_MIN && !w->inline_data) {
		/* The payload in one SGE: the device reads it where it lies. */
		const uint8_t *src = sge_piece(qp, w, off, plen);

		if (src != NULL)
			return (int)rk_ib_frame_finish_sg(qp->dev, f, bth_off, bth_off + hdr, src,
							  plen);
	}
	if (plen >= RK_IB_CRC_AT_SOURCE_MIN) {
		rk_crc32_state crc = rk_rocev2_icrc_begin(f + RK_ETH_HLEN, bth_off - RK_ETH_HLEN + hdr);

		if (!gather(qp, w, off, b + hdr, plen, &crc))
			return -1;
		return (int)rk_ib_frame_finish(f, bth_off, bth_off + hdr + plen, crc);
	}
	if (plen > 0 && !gather(qp, w, off, b + hdr, plen, NULL))
		return -1;
	return (int)rk_ib_frame_end(qp, f, bth_off, bth_off + hdr + plen);
}

int
rk_req_emit(struct rk_ib_qp *qp, uint64_t now_ns, uint8_t *f)
{
	struct sq_wqe *w = rk_req_next(qp, now_ns);

	return w == NULL ? 0 : rk_req_emit_wqe(qp, w, now_ns, f);
}

/* @p w fails with @p st (reported in order by the flush, after older WQEs). */
static void
fail_wqe(struct rk_ib_qp *qp, struct sq_wqe *w, enum rk_wc_status st)
{
	w->err_status = (uint8_t)st;
	if (qp->type == RK_QPT_RC)
		rk_ib_qp_to_error(qp);
	else
		rk_ib_qp_to_sqe(qp);
}

/* A request packet with PSN @p psn was built: the retry's mark and the count. */
static void
count_sent(struct rk_ib_qp *qp, uint32_t psn)
{
	if (qp->comp.retry_psn_valid && psn == qp->comp.retry_psn)
		qp->comp.retry_resent = true;
	RK_QP_COUNT(qp, req_pkts);
}

/* After a request packet of @p len bytes: the ACK timer (RC) and the pacer. */
static int
after_send(struct rk_ib_qp *qp, int len, uint64_t now_ns)
{
	rk_comp_sent(qp, now_ns);
	if (qp->cc != NULL)
		qp->cc->on_send(qp, (uint32_t)len, now_ns);
	return len;
}

/* Send req.resend_psn of @p w alone; req.psn stays where it is. */
static int
emit_resend(struct rk_ib_qp *qp, struct sq_wqe *w, uint64_t now_ns, uint8_t *f)
{
	uint32_t psn = qp->req.resend_psn;
	int len = build_req(qp, w, (uint32_t)rk_psn_diff(psn, w->first_psn), psn, f);

	qp->req.resend_valid = false;
	if (len < 0) {
		fail_wqe(qp, w, RK_WC_LOC_PROT_ERR);   /* an SGE's MR was deregistered */
		return 0;
	}
	count_sent(qp, psn);
	RK_QP_COUNT(qp, req_retx_pkts);
	return after_send(qp, len, now_ns);
}

int
rk_req_emit_wqe(struct rk_ib_qp *qp, struct sq_wqe *w, uint64_t now_ns, uint8_t *f)
{
	uint32_t idx, psn, top;
	bool done;
	int len;
	qp->req.rnr_wait = false;
	if (qp->req.resend_valid) {
		if (resend_wqe(qp) == w)
			return emit_resend(qp, w, now_ns, f);
		qp->req.resend_valid = false;   /* acknowledged meanwhile */
	}
	if (w->state == WQE_POSTED) {
		/*
		 * A one-packet SEND or WRITE of an RC/UC QP: gather() checks
		 * every SGE whole as it builds it, and fails the same way.
		 */
		bool one = qp->type != RK_QPT_UD && !wr_is_rd_atomic(w->wr.opcode) &&
			   rk_req_npkts(qp, w) == 1;
		enum rk_wc_status st = one ? RK_WC_SUCCESS : check_sges(qp, w);

		if (st != RK_WC_SUCCESS) {
			fail_wqe(qp, w, st);
			return 0;
		}
		w->first_psn = qp->req.psn;
		w->last_psn = rk_psn_add(qp->req.psn, rk_req_npkts(qp, w) - 1);
		w->state = WQE_STARTED;
		if (wr_is_rd_atomic(w->wr.opcode))
			qp->req.rd_atomic++;
	}
	psn = qp->req.psn;
	idx = (uint32_t)rk_psn_diff(psn, w->first_psn);
	len = build_req(qp, w, idx, psn, f);
	if (len < 0) {
		fail_wqe(qp, w, RK_WC_LOC_PROT_ERR);   /* an SGE's MR was deregistered */
		return 0;
	}
	count_sent(qp, psn);
	if (qp->req.sent_any && rk_psn_diff(psn, qp->req.max_sent_psn) <= 0)
		RK_QP_COUNT(qp, req_retx_pkts);

	if (w->wr.opcode == RK_WR_RDMA_READ) {
		top = w->last_psn;
		done = true;
	} else {
		top = psn;
		done = idx + 1 == sq_wqe_npkts(w);
	}
	qp->req.psn = rk_psn_add(top, 1);
	if (!qp->req.sent_any || rk_psn_diff(top, qp->req.max_sent_psn) > 0)
		qp->req.max_sent_psn = top;
	qp->req.sent_any = true;
	if (done) {
		if (w->state < WQE_SENT)
			w->state = WQE_SENT;
		qp->req.wqe_idx++;
		if (qp->type != RK_QPT_RC) {
			/* UC and UD are unacknowledged: done once sent. */
			rk_comp_wqe_done(qp, w, RK_WC_SUCCESS);
			qp->comp.wqe_idx++;
		}
	}
	return after_send(qp, len, now_ns);
}
