/* SPDX-License-Identifier: BSD-3-Clause */
#include "rk_rdmap.h"

#include <errno.h>
#include <string.h>

#define R5040 "RFC 5040 4.2"
#define R7306 "RFC 7306"

/* RFC 5040 4.2 opcode table, with the RFC 7306 additions 8..11. */
static const struct rk_rdmap_opcode_info opcode_table[16] = {
	[RK_RDMAP_WRITE] = { "RDMA Write", true, 0, 0, false, R5040 },
	[RK_RDMAP_READ_REQ] = { "RDMA Read Request", false, RK_RDMAP_QN_READ_REQ,
				RK_RDMAP_READ_REQ_LEN, true, R5040 },
	[RK_RDMAP_READ_RESP] = { "RDMA Read Response", true, 0, 0, false, R5040 },
	[RK_RDMAP_SEND] = { "Send", false, RK_RDMAP_QN_SEND, 0, false, R5040 },
	[RK_RDMAP_SEND_INV] = { "Send with Invalidate", false, RK_RDMAP_QN_SEND, 0,
				false, R5040 },
	[RK_RDMAP_SEND_SE] = { "Send with SE", false, RK_RDMAP_QN_SEND, 0, false, R5040 },
	[RK_RDMAP_SEND_SE_INV] = { "Send with SE and Invalidate", false,
				   RK_RDMAP_QN_SEND, 0, false, R5040 },
	[RK_RDMAP_TERMINATE] = { "Terminate", false, RK_RDMAP_QN_TERMINATE,
				 RK_RDMAP_TERM_CTRL_LEN, true, R5040 },
	[RK_RDMAP_IMMDT] = { "Immediate Data", false, RK_RDMAP_QN_SEND,
			     RK_RDMAP_IMMDT_LEN, false, R7306 },
	[RK_RDMAP_IMMDT_SE] = { "Immediate Data with SE", false, RK_RDMAP_QN_SEND,
				RK_RDMAP_IMMDT_LEN, false, R7306 },
	[RK_RDMAP_ATOMIC_REQ] = { "Atomic Request", false, RK_RDMAP_QN_ATOMIC_REQ,
				  RK_RDMAP_ATOMIC_REQ_LEN, false, R7306 },
	[RK_RDMAP_ATOMIC_RESP] = { "Atomic Response", false, RK_RDMAP_QN_ATOMIC_RESP,
				   RK_RDMAP_ATOMIC_RESP_LEN, false, R7306 },
	[12] = { NULL, false, 0, 0, false, R7306 },
	[13] = { NULL, false, 0, 0, false, R7306 },
	[14] = { NULL, false, 0, 0, false, R7306 },
	[15] = { NULL, false, 0, 0, false, R7306 },
};

const struct rk_rdmap_opcode_info *
rk_rdmap_opcode_info(uint8_t opcode)
{
	return &opcode_table[opcode & RK_RDMAP_OPCODE_MASK];
}

const char *
rk_rdmap_opcode_name(uint8_t opcode)
{
	const char *n = rk_rdmap_opcode_info(opcode)->name;

	return n != NULL ? n : "reserved";
}

/* Field tables. */

RK_HEADER_DESC(rk_rdmap_ctrl_desc, "RDMAP control", 2, RK_RDMAP_CTRL_FIELDS, R5040);
RK_HEADER_DESC(rk_rdmap_inval_desc, "RDMAP Send with Invalidate", RK_DDP_UNTAGGED_LEN,
	       RK_RDMAP_INVAL_FIELDS, "RFC 5040 4");
RK_HEADER_DESC(rk_rdmap_read_req_desc, "RDMA Read Request", RK_RDMAP_READ_REQ_LEN,
	       RK_RDMAP_READ_REQ_FIELDS, "RFC 5040 4.4");
RK_HEADER_DESC(rk_rdmap_term_desc, "RDMAP Terminate", RK_RDMAP_TERM_CTRL_LEN,
	       RK_RDMAP_TERM_FIELDS, "RFC 5040 4.8");
RK_HEADER_DESC(rk_rdmap_atomic_req_desc, "RDMAP Atomic Request", RK_RDMAP_ATOMIC_REQ_LEN,
	       RK_RDMAP_ATOMIC_REQ_FIELDS, R7306);
RK_HEADER_DESC(rk_rdmap_atomic_resp_desc, "RDMAP Atomic Response", RK_RDMAP_ATOMIC_RESP_LEN,
	       RK_RDMAP_ATOMIC_RESP_FIELDS, R7306);
RK_HEADER_DESC(rk_rdmap_immdt_desc, "RDMAP Immediate Data", RK_RDMAP_IMMDT_LEN,
	       RK_RDMAP_IMMDT_FIELDS, R7306);

/*
 * rk_rdmap_read_req_unpack/_pack, rk_rdmap_term_unpack/_pack (the fields
 * cover the 32-bit control word), rk_rdmap_atomic_req_unpack/_pack and
 * rk_rdmap_atomic_resp_unpack/_pack.
 */
RK_FIELD_PACK_FUNCS(rdmap_read_req, struct rk_rdmap_read_req_fields, RK_RDMAP_READ_REQ_FIELDS,
		    RK_RDMAP_READ_REQ_LEN)
RK_FIELD_PACK_FUNCS(rdmap_term, struct rk_rdmap_term_fields, RK_RDMAP_TERM_FIELDS,
		    RK_RDMAP_TERM_CTRL_LEN)
RK_FIELD_PACK_FUNCS(rdmap_atomic_req, struct rk_rdmap_atomic_req_fields,
		    RK_RDMAP_ATOMIC_REQ_FIELDS, RK_RDMAP_ATOMIC_REQ_LEN)
RK_FIELD_PACK_FUNCS(rdmap_atomic_resp, struct rk_rdmap_atomic_resp_fields,
		    RK_RDMAP_ATOMIC_RESP_FIELDS, RK_RDMAP_ATOMIC_RESP_LEN)

/* Terminate codes: spec-rules table T5 (IANA RFC 6580 registry). */

const char *
rk_rdmap_term_layer_name(uint8_t layer)
{
	switch (layer) {
	case RK_TERM_LAYER_RDMAP:
		return "RDMAP";
	case RK_TERM_LAYER_DDP:
		return "DDP";
	case RK_TERM_LAYER_LLP:
		return "LLP (MPA)";
	}
	return NULL;
}

const char *
rk_rdmap_term_etype_name(uint8_t layer, uint8_t etype)
{
	switch (layer) {
	case RK_TERM_LAYER_RDMAP:
		switch (etype) {
		case 0: return "local catastrophic";
		case 1: return "remote protection";
		case 2: return "remote operation";
		}
		break;
	case RK_TERM_LAYER_DDP:
		switch (etype) {
		case 0: return "local catastrophic";
		case 1: return "tagged buffer";
		case 2: return "untagged buffer";
		case 3: return "reserved for the LLP";
		}
		break;
	case RK_TERM_LAYER_LLP:
		if (etype == 0)
			return "MPA";
		break;
	}
	return NULL;
}

static const char *
term_rdmap(uint8_t etype, uint8_t code)
{
	if (etype == 0)
		return "local catastrophic error";
	if (etype == 1) {
		switch (code) {
		case 0x00: return "invalid STag";
		case 0x01: return "base or bounds violation";
		case 0x02: return "access rights violation";
		case 0x03: return "STag not associated with RDMAP stream";
		case 0x04: return "TO wrap";
		case 0x09: return "STag cannot be invalidated";
		case 0xff: return "unspecified error";
		}
		return NULL;
	}
	if (etype == 2) {
		switch (code) {
		case 0x05: return "invalid RDMAP version";
		case 0x06: return "unexpected opcode";
		case 0x07: return "catastrophic error, localized to RDMAP stream";
		case 0x08: return "catastrophic error, global";
		case 0x09: return "STag cannot be invalidated";
		case 0xff: return "unspecified error";
		}
	}
	return NULL;
}

static const char *
term_ddp(uint8_t etype, uint8_t code)
{
	switch (etype) {
	case 0:
		return code == 0x00 ? "local catastrophic error" : NULL;
	case 1:
		switch (code) {
		case 0x00: return "invalid STag";
		case 0x01: return "base or bounds violation";
		case 0x02: return "STag not associated with DDP stream";
		case 0x03: return "TO wrap";
		case 0x04: return "invalid DDP version";
		}
		return NULL;
	case 2:
		switch (code) {
		case 0x01: return "invalid QN";
		case 0x02: return "invalid MSN - no buffer available";
		case 0x03: return "invalid MSN - MSN range is not valid";
		case 0x04: return "invalid MO";
		case 0x05: return "DDP message too long for available buffer";
		case 0x06: return "invalid DDP version";
		}
		return NULL;
	case 3:
		return "reserved for the LLP";
	}
	return NULL;
}

static const char *
term_llp(uint8_t etype, uint8_t code)
{
	if (etype != 0)
		return NULL;
	switch (code) {
	case 0x01: return "TCP connection closed, terminated or lost";
	case 0x02: return "MPA CRC error";
	case 0x03: return "MPA marker or FPDU start error";
	case 0x04: return "invalid or unexpected MPA Request or Reply";
	case 0x05: return "local catastrophic error (RFC 6581)";
	case 0x06: return "insufficient IRD resources (RFC 6581)";
	case 0x07: return "no matching RTR option (RFC 6581)";
	}
	return NULL;
}

const char *
rk_rdmap_term_text(uint8_t layer, uint8_t etype, uint8_t err_code)
{
	switch (layer) {
	case RK_TERM_LAYER_RDMAP:
		return term_rdmap(etype, err_code);
	case RK_TERM_LAYER_DDP:
		return term_ddp(etype, err_code);
	case RK_TERM_LAYER_LLP:
		return term_llp(etype, err_code);
	}
	return NULL;
}

/* Stateless parse of one DDP segment. */

static void
add(struct rk_findings *f, enum rk_finding_id id, uint32_t off)
{
	if (f != NULL)
		rk_findings_add(f, id, off);
}

static bool
uses_inval_stag(uint8_t opcode)
{
	return opcode == RK_RDMAP_SEND_INV || opcode == RK_RDMAP_SEND_SE_INV;
}

/* Terminate header: control word, then the optional copied headers. */
static void
parse_term(const uint8_t *h, size_t avail, struct rk_rdmap_msg *m,
	   struct rk_findings *f, uint32_t off)
{
	size_t need = RK_RDMAP_TERM_CTRL_LEN;

	if (avail < need) {
		add(f, RK_F_RDMAP_HDR_TRUNCATED, off);
		return;
	}
	rk_rdmap_term_unpack(h, &m->u.term.ctrl);
	m->u.term.text = rk_rdmap_term_text(m->u.term.ctrl.layer,
					    m->u.term.ctrl.etype,
					    m->u.term.ctrl.err_code);
	if (m->u.term.text == NULL)
		add(f, RK_F_RDMAP_TERM_CODE_UNKNOWN, off);
	if (m->u.term.ctrl.d) {
		/* DDP Segment Length, then the copied header; its T picks 14/18. */
		if (avail < need + RK_RDMAP_TERM_SEGLEN_LEN + 1) {
			add(f, RK_F_RDMAP_HDR_TRUNCATED, off);
			return;
		}
		m->u.term.ddp_seg_len = rk_rdmap_term_ddp_seg_len(h);
		m->u.term.ddp_hdr = h + need + RK_RDMAP_TERM_SEGLEN_LEN;
		m->u.term.ddp_hdr_len = (uint16_t)rk_ddp_hdr_len(m->u.term.ddp_hdr);
		need += RK_RDMAP_TERM_SEGLEN_LEN + m->u.term.ddp_hdr_len;
		if (avail < need) {
			m->u.term.ddp_hdr = NULL;
			add(f, RK_F_RDMAP_HDR_TRUNCATED, off);
			return;
		}
	}
	if (m->u.term.ctrl.r) {
		if (avail < need + RK_RDMAP_READ_REQ_LEN) {
			add(f, RK_F_RDMAP_HDR_TRUNCATED, off);
			return;
		}
		m->u.term.rdmap_hdr = h + need;
		need += RK_RDMAP_READ_REQ_LEN;
	}
	m->hdr_len = (uint16_t)(m->ddp_hdr_len + need);
	m->rdmap_hdr_ok = true;
}

int
rk_rdmap_parse(const uint8_t *seg, size_t len, struct rk_rdmap_msg *m,
	       struct rk_findings *f)
{
	const struct rk_rdmap_opcode_info *info;
	const uint8_t *h;
	size_t avail;

	if (seg == NULL || m == NULL)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	if (len < 1) {
		add(f, RK_F_MPA_ULPDU_TOO_SHORT, 0);
		return -EBADMSG;
	}
	m->t = rk_ddp_t(seg);
	m->ddp_hdr_len = (uint16_t)rk_ddp_hdr_len(seg);
	if (len < m->ddp_hdr_len) {
		add(f, RK_F_MPA_ULPDU_TOO_SHORT, 0);
		return -EBADMSG;
	}
	m->ddp_ok = true;
	m->l = rk_ddp_l(seg);
	m->ddp_rsvd = rk_ddp_rsvd(seg);
	m->dv = rk_ddp_dv(seg);
	m->rv = rk_rdmap_rv(seg);
	m->rdmap_rsvd = rk_rdmap_rsvd(seg);
	m->opcode = rk_rdmap_opcode(seg);
	if (m->t) {
		m->stag = rk_ddp_stag(seg);
		m->to = rk_ddp_to(seg);
	} else {
		m->rsvdulp32 = rk_ddp_rsvdulp32(seg);
		m->qn = rk_ddp_qn(seg);
		m->msn = rk_ddp_msn(seg);
		m->mo = rk_ddp_mo(seg);
	}
	m->hdr_len = m->ddp_hdr_len;

	/* RFC 5041 4.1: DV = 1; Rsvd sent as 0. */
	if (m->dv != RK_DDP_VERSION)
		add(f, RK_F_DDP_DV_BAD, 0);
	if (m->ddp_rsvd != 0)
		add(f, RK_F_DDP_RESERVED, 0);
	/* RFC 5040 4.2: RV = 1; Rsvd sent as 0. */
	if (m->rv != RK_RDMAP_VERSION)
		add(f, RK_F_RDMAP_RV_BAD, RK_RDMAP_CTRL_OFF);
	if (m->rdmap_rsvd != 0)
		add(f, RK_F_RDMAP_RESERVED, RK_RDMAP_CTRL_OFF);

	info = rk_rdmap_opcode_info(m->opcode);
	h = seg + m->ddp_hdr_len;
	avail = len - m->ddp_hdr_len;
	if (info->name == NULL) {
		add(f, RK_F_RDMAP_OPCODE_RESERVED, RK_RDMAP_CTRL_OFF);
		m->payload = h;
		m->payload_len = (uint32_t)avail;
		return 0;
	}
	if (info->tagged != (m->t != 0)) {
		add(f, RK_F_DDP_TAGGED_MISMATCH, 0);
	} else if (!m->t) {
		if (m->qn != info->qn)
			add(f, RK_F_DDP_QN_INVALID, RK_DDP_QN_OFF);
		if (!uses_inval_stag(m->opcode) && m->rsvdulp32 != 0)
			add(f, RK_F_RDMAP_RESERVED, RK_DDP_RSVDULP32_OFF);
		if (info->single_segment && m->mo != 0)
			add(f, RK_F_DDP_MO_SINGLE, RK_DDP_MO_OFF);
		if (info->single_segment && !m->l)
			add(f, RK_F_DDP_L_SINGLE, 0);
	}

	switch (m->opcode) {
	case RK_RDMAP_READ_REQ:
		/* RFC 5040 4.4: the segment is exactly DDP + 28. */
		if (avail != RK_RDMAP_READ_REQ_LEN)
			add(f, RK_F_RDMAP_READ_REQ_LENGTH, m->ddp_hdr_len);
		if (avail < RK_RDMAP_READ_REQ_LEN)
			return 0;
		rk_rdmap_read_req_unpack(h, &m->u.read_req);
		m->hdr_len = (uint16_t)(m->ddp_hdr_len + RK_RDMAP_READ_REQ_LEN);
		m->rdmap_hdr_ok = true;
		break;
	case RK_RDMAP_TERMINATE:
		parse_term(h, avail, m, f, m->ddp_hdr_len);
		if (!m->rdmap_hdr_ok)
			return 0;
		break;
	case RK_RDMAP_ATOMIC_REQ:
	case RK_RDMAP_ATOMIC_RESP:
	case RK_RDMAP_IMMDT:
	case RK_RDMAP_IMMDT_SE:
		if (avail < info->hdr_len) {
			add(f, RK_F_RDMAP_HDR_TRUNCATED, m->ddp_hdr_len);
			return 0;
		}
		if (m->opcode == RK_RDMAP_ATOMIC_REQ)
			rk_rdmap_atomic_req_unpack(h, &m->u.atomic_req);
		else if (m->opcode == RK_RDMAP_ATOMIC_RESP)
			rk_rdmap_atomic_resp_unpack(h, &m->u.atomic_resp);
		else
			m->u.immdt = rk_rdmap_immdt(h);
		m->hdr_len = (uint16_t)(m->ddp_hdr_len + info->hdr_len);
		m->rdmap_hdr_ok = true;
		break;
	default:
		m->rdmap_hdr_ok = true;
		break;
	}
	m->payload = seg + m->hdr_len;
	m->payload_len = (uint32_t)(len - m->hdr_len);
	return 0;
}
