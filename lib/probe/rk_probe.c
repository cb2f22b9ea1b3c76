/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hostile-peer probes: frames by intent toward a QP under test, answers
 * classified, and the two over an rk_io_ops backend.
 */
#include "rk_probe.h"

#include <errno.h>
#include <string.h>

#include "rk_bth.h"
#include "rk_ddp.h"
#include "rk_opcode.h"
#include "rk_pkt.h"
#include "rk_psn.h"
#include "rk_xeth.h"

int
rk_probe_craft(const struct rk_probe_target *t, const struct rk_probe_intent *in,
	       uint8_t *buf, uint32_t cap)
{
	struct rk_roce_addr a = {
		.ip_version = t->ip_version ? t->ip_version : 4,
		.df = true,
		.src_port = t->src_port,
	};
	struct rk_bth_fields b = {
		.opcode = in->opcode,
		.p_key = t->p_key ? t->p_key : 0xffff,
		.dest_qp = t->dest_qp,
		.ack_req = in->ack_req,
		.psn = rk_psn_add(t->epsn, (uint32_t)in->psn_off),
	};
	int n;

	if (in->pad_cnt > 3)
		return -EINVAL;
	memcpy(a.dst_mac, t->dst_mac, 6);
	memcpy(a.src_mac, t->src_mac, 6);
	memcpy(a.src_ip, t->src_ip, 16);
	memcpy(a.dst_ip, t->dst_ip, 16);
	n = rk_build_rocev2(buf, cap, &a, &b, in->x, in->payload, in->len);
	if (n <= 0)
		return n < 0 ? n : -ENOSPC;
	if (in->pad_cnt >= 0 && rk_probe_set_pad_cnt(buf, (uint32_t)n, (uint8_t)in->pad_cnt) != 0)
		return -EINVAL;
	return n;
}

int
rk_probe_set_pad_cnt(uint8_t *frame, uint32_t len, uint8_t pad)
{
	struct rk_pkt p;

	if (pad > 3 || rk_pkt_parse(&p, frame, len, len, RK_LINK_ETHERNET, NULL) != 0 ||
	    !rk_pkt_has_bth(&p) || p.kind != RK_PKT_ROCEV2)
		return -EINVAL;
	frame[p.bth_off + 1] = (uint8_t)((frame[p.bth_off + 1] & ~0x30) | (pad << 4));
	/* Parse again: the payload and pad lengths follow PadCnt. */
	if (rk_pkt_parse(&p, frame, len, len, RK_LINK_ETHERNET, NULL) != 0)
		return -EINVAL;
	return rk_pkt_fix_icrc(&p, frame) == 0 ? 0 : -EINVAL;
}

int
rk_probe_answer(const uint8_t *frame, uint32_t len, struct rk_probe_answer *a)
{
	struct rk_pkt p;
	const uint8_t *bth, *aeth;
	uint32_t fl;

	memset(a, 0, sizeof(*a));
	if (rk_pkt_parse(&p, frame, len, len, RK_LINK_ETHERNET, NULL) != 0 || !rk_pkt_has_bth(&p))
		return -EINVAL;
	bth = rk_pkt_bth(&p);
	fl = p.op != NULL ? p.op->flags : 0;
	a->opcode = p.opcode;
	a->psn = rk_bth_psn(bth);
	a->payload_len = p.payload_len;
	a->dest_qp = rk_bth_dest_qp(bth);
	a->p_key = rk_bth_p_key(bth);
	a->bth_flags = bth[1];
	a->icrc_good = p.icrc_status == RK_ICRC_GOOD;
	aeth = rk_pkt_xeth(&p, RK_HDR_AETH);
	if (aeth != NULL) {
		a->syndrome = rk_aeth_syndrome(aeth);
		a->code = a->syndrome & RK_AETH_VALUE_MASK;
		a->msn = rk_aeth_msn(aeth);
	}
	if (p.opcode == RK_OP_CNP) {
		const uint8_t *resv = bth + RK_BTH_LEN;

		a->kind = RK_PROBE_CNP;
		a->resv_zero = p.icrc_off >= p.bth_off + RK_BTH_LEN + 16 &&
			       memcmp(resv, (const uint8_t[16]){ 0 }, 16) == 0;
	} else if (fl & RK_OPF_READ_RESP)
		a->kind = RK_PROBE_READ_RESP;
	else if (fl & RK_OPF_ATOMIC_ACK)
		a->kind = RK_PROBE_ATOMIC_ACK;
	else if ((fl & RK_OPF_ACK) && aeth != NULL)
		a->kind = rk_aeth_kind(a->syndrome) == RK_AETH_NAK ? RK_PROBE_NAK :
			  rk_aeth_kind(a->syndrome) == RK_AETH_RNR_NAK ? RK_PROBE_RNR_NAK :
			  RK_PROBE_ACK;
	else if (fl & RK_OPF_REQ)
		a->kind = RK_PROBE_REQUEST;
	else
		return -EINVAL;
	return 0;
}

int
rk_probe_iw_answer(const struct rk_rdmap_msg *m, struct rk_probe_answer *a)
{
	memset(a, 0, sizeof(*a));
	if (!m->ddp_ok)
		return -EINVAL;
	a->opcode = m->opcode;
	a->msn = m->msn;
	a->payload_len = m->payload_len;
	a->kind = RK_PROBE_IW_OTHER;
	if (m->opcode == RK_RDMAP_TERMINATE && m->rdmap_hdr_ok) {
		a->kind = RK_PROBE_TERMINATE;
		a->term_layer = m->u.term.ctrl.layer;
		a->term_etype = m->u.term.ctrl.etype;
		a->term_code = m->u.term.ctrl.err_code;
	}
	return 0;
}

uint16_t
rk_probe_iw_write(uint8_t *u, uint32_t stag, uint64_t to, bool last, const void *data, uint32_t n)
{
	struct rk_ddp_tagged_fields d = { 0 };

	d.t = 1;
	d.l = last;
	d.dv = 1;
	d.rsvd_ulp = 0x40 | RK_RDMAP_WRITE;
	d.stag = stag;
	d.to = to;
	rk_ddp_tagged_pack(u, &d);
	if (n > 0)
		memcpy(u + RK_DDP_TAGGED_LEN, data, n);
	return (uint16_t)(RK_DDP_TAGGED_LEN + n);
}

uint16_t
rk_probe_iw_untagged(uint8_t *u, uint8_t op, uint32_t qn, uint32_t msn, uint32_t mo, bool last)
{
	struct rk_ddp_untagged_fields d = { 0 };

	d.l = last;
	d.dv = 1;
	/* RsvdULP's first byte is the RDMAP control byte: RV 01, opcode. */
	d.rsvd_ulp = (uint64_t)(0x40 | op) << 32;
	d.qn = qn;
	d.msn = msn;
	d.mo = mo;
	rk_ddp_untagged_pack(u, &d);
	return RK_DDP_UNTAGGED_LEN;
}

uint16_t
rk_probe_iw_send(uint8_t *u, uint8_t op, uint32_t msn, uint32_t mo, bool last, uint32_t inv,
		 const void *data, uint32_t n)
{
	rk_probe_iw_untagged(u, op, RK_RDMAP_QN_SEND, msn, mo, last);
	rk_rdmap_set_inval_stag(u, inv);
	if (n > 0)
		memcpy(u + RK_DDP_UNTAGGED_LEN, data, n);
	return (uint16_t)(RK_DDP_UNTAGGED_LEN + n);
}

uint16_t
rk_probe_iw_read_req(uint8_t *u, uint32_t msn, const struct rk_rdmap_read_req_fields *rr)
{
	rk_probe_iw_untagged(u, RK_RDMAP_READ_REQ, RK_RDMAP_QN_READ_REQ, msn, 0, true);
	rk_rdmap_read_req_pack(u + RK_DDP_UNTAGGED_LEN, rr);
	return RK_DDP_UNTAGGED_LEN + RK_RDMAP_READ_REQ_LEN;
}

/* Largest frame a probe sends or reads: a 4096-byte PMTU with headers. */
#define PROBE_FRAME_MAX 4608u

int
rk_probe_send(struct rk_probe *p, const struct rk_probe_intent *in)
{
	uint8_t buf[PROBE_FRAME_MAX];
	int n = rk_probe_craft(&p->target, in, buf, sizeof(buf));

	if (n < 0)
		return n;
	n = p->ops->tx(p->io, buf, (uint32_t)n);
	if (p->ops->flush != NULL)
		p->ops->flush(p->io);
	return n < 0 ? n : 0;
}

int
rk_probe_collect(struct rk_probe *p, struct rk_probe_answer *out, unsigned int max)
{
	uint8_t buf[PROBE_FRAME_MAX];
	unsigned int got = 0;
	int n;

	while (got < max && (n = p->ops->rx(p->io, buf, sizeof(buf))) != 0) {
		if (n < 0)
			return n;
		if (rk_probe_answer(buf, (uint32_t)n, &out[got]) == 0)
			got++;
	}
	return (int)got;
}
