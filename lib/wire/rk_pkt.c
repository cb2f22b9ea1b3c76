/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One-pass frame parser: link layer, IP, UDP/TCP, BTH and extended headers,
 * stateless checks and the ICRC verdict. Every read is bounds-checked
 * against caplen; lengths are judged against the wire length, so a frame cut
 * by the snap length is reported as truncated, never as malformed.
 */
#include "rk_pkt.h"

#include <errno.h>
#include <string.h>

#include "rk_bth.h"
#include "rk_byteorder.h"
#include "rk_crc.h"
#include "rk_eth.h"
#include "rk_ipv4.h"
#include "rk_ipv6.h"
#include "rk_mad.h"
#include "rk_tcp_hdr.h"
#include "rk_udp.h"
#include "rk_xeth.h"

#define LRH_LEN 8
#define GRH_LEN RK_IPV6_HLEN    /* the GRH has the IPv6 header's layout */
#define GRH_NXTHDR_IBA 0x1b     /* GRH NxtHdr of IBA transport (IBTA Vol1 8.3) */
#define ERF_HLEN 16
#define ERF_TYPE_ETH 2
#define ERF_TYPE_COLOR_ETH 10
#define ERF_TYPE_DSM_COLOR_ETH 16
#define ERF_TYPE_COLOR_HASH_ETH 20
#define ERF_TYPE_INFINIBAND 21
#define ERF_TYPE_INFINIBAND_LINK 25
#define MAC_CONTROL_PAUSE 0x0001
#define MAC_CONTROL_PFC 0x0101

struct parse_ctx {
	struct rk_pkt *pkt;
	const struct rk_parse_opts *opts;
};

static void
finding(struct rk_pkt *pkt, enum rk_finding_id id, uint32_t off)
{
	rk_findings_add(&pkt->findings, id, off);
}

/*
 * Whether n bytes at off were captured. When they were on the wire but cut
 * by the snap length, flag the frame truncated (once) and say no.
 */
static bool
captured(struct rk_pkt *pkt, uint32_t off, uint32_t n)
{
	if ((uint64_t)off + n <= pkt->caplen)
		return true;
	if ((uint64_t)off + n <= pkt->wirelen && !pkt->truncated) {
		pkt->truncated = true;
		finding(pkt, RK_F_FRAME_TRUNCATED, pkt->caplen);
	}
	return false;
}

/* Whether n bytes at off exist on the wire (captured or not). */
static bool
on_wire(const struct rk_pkt *pkt, uint32_t off, uint32_t n)
{
	return (uint64_t)off + n <= pkt->wirelen;
}

static void
ipv4_mapped(uint8_t out[16], const uint8_t *v4)
{
	memset(out, 0, 10);
	out[10] = 0xff;
	out[11] = 0xff;
	memcpy(out + 12, v4, 4);
}

/* ---------------------------------------------------------------- ICRC */

/*
 * CRC-32 state after the 8 bytes of 0xFF that stand in for the LRH
 * (zlib.crc32(b"\xff" * 8)); test_icrc checks it. Starting from it and
 * masking all headers in one small buffer keeps the ICRC to at most two
 * ISA-L calls, which matters: each call has a fixed cost near that of a
 * 1 KiB CRC.
 */
#define ICRC_SEED_AFTER_ONES 0x2144df1cu

static const uint8_t ones8[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/* IPv6 header / GRH: traffic class, flow label, hop limit to ones. */
static void
mask_grh(uint8_t *h)
{
	rk_ipv6_set_tclass(h, 0xff);
	rk_ipv6_set_flow_label(h, RK_IPV6_FLOW_MASK);
	rk_ipv6_set_hop_limit(h, 0xff);
}

/*
 * Packets up to this many bytes from the IP header to the ICRC (a SEND or
 * ACK of a ping-pong) are masked whole in a stack copy and take one ISA-L
 * call instead of two: below a few hundred bytes the fixed cost of the
 * second call outweighs the copy.
 */
#define ICRC_ONE_CALL_MAX 256

/*
 * CRC-32 state after the masked IP, UDP and BTH headers and whatever else
 * of the first @p len bytes fits one call (CA17-22); *done: bytes covered.
 */
static rk_crc32_state
icrc_v2_head(const uint8_t *ip, uint32_t ip_hlen, uint32_t len, uint32_t *done)
{
	uint8_t h[ICRC_ONE_CALL_MAX];
	uint32_t hl = ip_hlen + 8 + RK_BTH_LEN;

	/* The headers fit in h (60 + 8 + 12 < 256); small packets fit whole. */
	if (len <= ICRC_ONE_CALL_MAX)
		hl = len;
	memcpy(h, ip, hl);
	if (rk_ipv4_version(ip) == 4) {
		rk_ipv4_set_tos(h, 0xff);
		rk_ipv4_set_ttl(h, 0xff);
		rk_ipv4_set_hdr_csum(h, 0xffff);
	} else {
		mask_grh(h);
	}
	rk_udp_set_csum(h + ip_hlen, 0xffff);
	h[ip_hlen + RK_UDP_HLEN + 4] = 0xff; /* BTH FECN, BECN, Resv6a */
	*done = hl;
	return rk_crc32_update(ICRC_SEED_AFTER_ONES, h, hl);
}

/* ICRC of a RoCEv2 packet given its IP header length (CA17-22). */
static uint32_t
icrc_v2(const uint8_t *ip, uint32_t ip_hlen, uint32_t len)
{
	uint32_t hl;
	rk_crc32_state crc;

	if (ip_hlen > RK_IPV4_HLEN_MAX || len < ip_hlen + RK_UDP_HLEN + RK_BTH_LEN)
		return 0;
	crc = icrc_v2_head(ip, ip_hlen, len, &hl);
	if (len > hl)
		crc = rk_crc32_update(crc, ip + hl, len - hl);
	return rk_crc32_final(crc);
}

uint32_t
rk_rocev2_hdrs_len(const uint8_t *frame, uint32_t len)
{
	uint32_t off = RK_ETH_HLEN, end, hl;
	uint16_t type;

	if (frame == NULL || len < RK_ETH_HLEN)
		return 0;
	type = rk_eth_ethertype(frame);
	for (int tags = 0; tags < 2 && rk_ethertype_is_vlan(type); tags++) {
		if (len < off + RK_VLAN_HLEN)
			return 0;
		type = rk_get_be16(frame + off + 2);
		off += RK_VLAN_HLEN;
	}
	if (type == RK_ETHERTYPE_IPV4 && len >= off + RK_IPV4_HLEN &&
	    rk_ipv4_version(frame + off) == 4 && rk_ipv4_hlen(frame + off) >= RK_IPV4_HLEN) {
		if (rk_ipv4_protocol(frame + off) != RK_IPPROTO_UDP)
			return 0;
		off += rk_ipv4_hlen(frame + off);
	} else if (type == RK_ETHERTYPE_IPV6 && len >= off + RK_IPV6_HLEN &&
		   rk_ipv6_version(frame + off) == 6) {
		if (rk_ipv6_next_header(frame + off) != RK_IPPROTO_UDP)
			return 0;
		off += RK_IPV6_HLEN;
	} else {
		return 0;
	}
	if (len < off + RK_UDP_HLEN || rk_udp_dst_port(frame + off) != RK_ROCEV2_UDP_PORT)
		return 0;
	off += RK_UDP_HLEN;
	if (len < off + RK_BTH_LEN)
		return len;
	/* An undefined opcode's row is all zero: the BTH is all that is sure. */
	hl = rk_opcode_info(rk_bth_opcode(frame + off))->hdr_len;
	end = off + (hl > RK_BTH_LEN ? hl : RK_BTH_LEN);
	return end < len ? end : len;
}

uint32_t
rk_rocev2_icrc_begin(const uint8_t *ip, uint32_t len)
{
	uint32_t ip_hlen, hl;
	rk_crc32_state crc;

	if (ip == NULL || len < RK_IPV4_HLEN)
		return rk_crc32_init();
	if (rk_ipv4_version(ip) == 4)
		ip_hlen = rk_ipv4_hlen(ip);
	else if (rk_ipv4_version(ip) == 6)
		ip_hlen = RK_IPV6_HLEN;
	else
		return rk_crc32_init();
	if (ip_hlen < RK_IPV4_HLEN || ip_hlen > RK_IPV4_HLEN_MAX ||
	    len < ip_hlen + RK_UDP_HLEN + RK_BTH_LEN)
		return rk_crc32_init();
	crc = icrc_v2_head(ip, ip_hlen, len, &hl);
	if (len > hl)
		crc = rk_crc32_update(crc, ip + hl, len - hl);
	return crc;
}

uint32_t
rk_rocev2_icrc(const uint8_t *ip, uint32_t len)
{
	if (ip == NULL || len < RK_IPV4_HLEN)
		return 0;
	switch (rk_ipv4_version(ip)) {
	case 4:
		return icrc_v2(ip, rk_ipv4_hlen(ip), len);
	case 6:
		if (len < RK_IPV6_HLEN || rk_ipv6_next_header(ip) != RK_IPPROTO_UDP)
			return 0;
		return icrc_v2(ip, RK_IPV6_HLEN, len);
	default:
		return 0;
	}
}

uint32_t
rk_ib_icrc(const uint8_t *hdr, uint32_t len, bool lrh)
{
	uint8_t h[LRH_LEN + GRH_LEN + RK_BTH_LEN];
	uint32_t in = 0, hl = 0;
	bool grh = true;
	rk_crc32_state crc;

	if (hdr == NULL)
		return 0;
	if (lrh) {
		if (len < LRH_LEN + RK_BTH_LEN)
			return 0;
		grh = (hdr[1] & 0x03) == 0x03;
		/*
		 * IBTA Vol1 7.8.1: a local packet covers its LRH with VL set to
		 * ones; a global one (GRH present) replaces the whole LRH, which
		 * routers rewrite, with ones, as RoCE does.
		 */
		memcpy(h, grh ? ones8 : hdr, LRH_LEN);
		h[0] |= 0xf0;
		in = hl = LRH_LEN;
	} else {
		memcpy(h, ones8, LRH_LEN);
		hl = LRH_LEN;
	}
	if (grh) {
		if (len < in + GRH_LEN + RK_BTH_LEN)
			return 0;
		memcpy(h + hl, hdr + in, GRH_LEN);
		mask_grh(h + hl);
		in += GRH_LEN;
		hl += GRH_LEN;
	}
	if (len < in + RK_BTH_LEN)
		return 0;
	memcpy(h + hl, hdr + in, RK_BTH_LEN);
	h[hl + 4] = 0xff;
	hl += RK_BTH_LEN;
	in += RK_BTH_LEN;
	crc = rk_crc32_update(rk_crc32_init(), h, hl);
	crc = rk_crc32_update(crc, hdr + in, len - in);
	return rk_crc32_final(crc);
}

/* ---------------------------------------------------------------- BTH */

static void
check_payload(struct rk_pkt *pkt, const struct rk_opcode_info *op,
	      uint32_t with_pad, uint32_t pmtu)
{
	uint32_t pad_off = pkt->bth_off + 1;
	uint8_t pad = pkt->pad_cnt;

	if (!(op->flags & RK_OPF_PAYLOAD)) {
		if (with_pad > 0)
			finding(pkt, RK_F_BTH_PAYLOAD_UNEXPECTED, pkt->payload_off);
		if (pad != 0)
			finding(pkt, RK_F_BTH_PADCNT, pad_off);
		pkt->payload_len = 0;
		return;
	}
	if (with_pad % 4 != 0)
		finding(pkt, RK_F_BTH_PAYLOAD_UNALIGNED, pkt->payload_off);
	if (pad > with_pad || (pad != 0 && !(op->flags & RK_OPF_LAST))) {
		/* FIRST and MIDDLE carry whole PMTUs: nothing to pad. */
		finding(pkt, RK_F_BTH_PADCNT, pad_off);
		pad = pad > with_pad ? 0 : pad;
	}
	pkt->payload_len = with_pad - pad;
	if ((op->flags & (RK_OPF_FIRST | RK_OPF_MIDDLE)) && !(op->flags & RK_OPF_LAST) &&
	    with_pad == 0)
		finding(pkt, RK_F_BTH_PAYLOAD_MISSING, pkt->payload_off);
	if (pkt->payload_len > pmtu)
		finding(pkt, RK_F_BTH_PAYLOAD_OVER_PMTU, pkt->payload_off);
}

static void
check_xeth(struct rk_pkt *pkt, const struct rk_opcode_info *op)
{
	const uint8_t *h;

	if ((h = rk_pkt_xeth(pkt, RK_HDR_AETH)) != NULL) {
		uint8_t syn = rk_aeth_syndrome(h);
		enum rk_aeth_kind kind = rk_aeth_kind(syn);
		uint32_t off = (uint32_t)(h - pkt->frame);

		if (kind == RK_AETH_RESERVED) {
			finding(pkt, RK_F_AETH_SYNDROME_RESERVED, off);
		} else if (kind == RK_AETH_NAK) {
			uint8_t code = syn & RK_AETH_VALUE_MASK;

			if (code > RK_AETH_NAK_INVALID_RD_REQUEST ||
			    (code == RK_AETH_NAK_INVALID_RD_REQUEST &&
			     op->transport != RK_TR_RD))
				finding(pkt, RK_F_AETH_NAK_RESERVED, off);
		}
	}
	if ((op->flags & RK_OPF_READ_REQ) &&
	    (h = rk_pkt_xeth(pkt, RK_HDR_RETH)) != NULL &&
	    rk_reth_dma_len(h) > 0x80000000u)
		finding(pkt, RK_F_RETH_DMALEN_OVER, (uint32_t)(h - pkt->frame) + 12);
	if ((h = rk_pkt_xeth(pkt, RK_HDR_ATMETH)) != NULL && (rk_atmeth_va(h) & 7) != 0)
		finding(pkt, RK_F_ATOMIC_VA_UNALIGNED, (uint32_t)(h - pkt->frame));
	if ((h = rk_pkt_xeth(pkt, RK_HDR_DETH)) != NULL &&
	    rk_bth_dest_qp(rk_pkt_bth(pkt)) == 1 && rk_deth_q_key(h) != RK_GSI_Q_KEY)
		finding(pkt, RK_F_DETH_GSI_QKEY, (uint32_t)(h - pkt->frame));
	if (h != NULL) {
		struct rk_mad mad;

		(void)rk_pkt_mad(pkt, &mad, &pkt->findings);
	}
	if ((h = rk_pkt_xeth(pkt, RK_HDR_CNP)) != NULL) {
		const uint8_t *b = rk_pkt_bth(pkt);
		bool bad = rk_bth_psn(b) != 0 || rk_bth_se(b) || rk_bth_mig_req(b) ||
			   rk_bth_pad_cnt(b) != 0;

		for (unsigned int i = 0; i < RK_CNP_RSVD_LEN; i++)
			bad = bad || h[i] != 0;
		if (bad)
			finding(pkt, RK_F_CNP_FIELDS, pkt->bth_off);
	}
}

/*
 * Parse the BTH and what follows, up to end (the ICRC's end, exclusive).
 * icrc_kind: 2 RoCEv2, 1 RoCEv1 (GRH first), 0 native IB (LRH first).
 */
static void
parse_bth(struct parse_ctx *c, uint32_t end, int icrc_kind)
{
	struct rk_pkt *pkt = c->pkt;
	uint32_t off = pkt->bth_off;
	uint32_t pmtu = c->opts && c->opts->pmtu ? c->opts->pmtu : 4096;
	const struct rk_opcode_info *op;
	const uint8_t *b;
	uint32_t region = end > off ? end - off : 0;

	if (region < RK_BTH_LEN + RK_ICRC_LEN) {
		finding(pkt, RK_F_BTH_TOO_SHORT, off);
		return;
	}
	if (!captured(pkt, off, RK_BTH_LEN))
		return;
	pkt->layers |= RK_L_BTH;
	b = pkt->frame + off;
	pkt->opcode = rk_bth_opcode(b);
	pkt->pad_cnt = rk_bth_pad_cnt(b);
	op = rk_opcode_info(pkt->opcode);
	pkt->op = op;
	pkt->icrc_off = end - RK_ICRC_LEN;

	if (rk_bth_tver(b) != 0)
		finding(pkt, RK_F_BTH_TVER, off + 1);
	/*
	 * Only Resv7 is judged: byte 4 (FECN, BECN, Resv6a) is variant, masked
	 * from the ICRC and rewritable on the path, so a set bit there does
	 * not prove the sender wrong.
	 */
	if (rk_bth_resv7(b) != 0)
		finding(pkt, RK_F_BTH_RESV, off + 8);
	if (icrc_kind != 0 && rk_bth_dest_qp(b) == 0)
		finding(pkt, RK_F_BTH_DESTQP_ZERO, off + 5);

	if (!(op->flags & RK_OPF_VALID)) {
		finding(pkt, rk_opcode_transport(pkt->opcode) == RK_TR_MFR ?
			     RK_F_BTH_OPCODE_UNSUPPORTED : RK_F_BTH_OPCODE_RESERVED, off);
		pkt->payload_off = off + RK_BTH_LEN;
	} else {
		if (icrc_kind != 0 && op->transport == RK_TR_RD)
			finding(pkt, RK_F_BTH_OPCODE_UNSUPPORTED, off);
		if (region < (uint32_t)op->hdr_len + RK_ICRC_LEN) {
			finding(pkt, RK_F_BTH_TOO_SHORT, off);
			pkt->op = NULL;
		} else {
			pkt->payload_off = off + op->hdr_len;
			check_payload(pkt, op, region - op->hdr_len - RK_ICRC_LEN, pmtu);
			if (captured(pkt, off, op->hdr_len))
				check_xeth(pkt, op);
		}
	}

	if (!captured(pkt, pkt->icrc_off, RK_ICRC_LEN))
		return;
	pkt->icrc = rk_get_le32(pkt->frame + pkt->icrc_off);
	if (c->opts && !c->opts->check_icrc)
		return;
	uint32_t want;

	if (icrc_kind == 2)
		want = icrc_v2(pkt->frame + pkt->l3_off, pkt->l3_len, pkt->icrc_off - pkt->l3_off);
	else
		want = rk_ib_icrc(pkt->frame + (icrc_kind ? pkt->l3_off : pkt->l2_off),
				  pkt->icrc_off - (icrc_kind ? pkt->l3_off : pkt->l2_off),
				  icrc_kind == 0);
	pkt->icrc_status = want == pkt->icrc ? RK_ICRC_GOOD : RK_ICRC_BAD;
	if (pkt->icrc_status == RK_ICRC_BAD)
		finding(pkt, RK_F_ICRC_BAD, pkt->icrc_off);
}

/* ---------------------------------------------------------------- L3/L4 */

static void
parse_udp_tcp(struct parse_ctx *c, uint32_t off, uint32_t end)
{
	struct rk_pkt *pkt = c->pkt;

	pkt->l4_off = off;
	if (pkt->ip_proto == RK_IPPROTO_UDP) {
		const uint8_t *u = pkt->frame + off;
		uint16_t ulen;

		if (end < off + RK_UDP_HLEN || !captured(pkt, off, RK_UDP_HLEN))
			return;
		pkt->layers |= RK_L_UDP;
		pkt->src_port = rk_udp_src_port(u);
		pkt->dst_port = rk_udp_dst_port(u);
		ulen = rk_udp_len(u);
		if (pkt->dst_port != RK_ROCEV2_UDP_PORT)
			return;
		pkt->kind = RK_PKT_ROCEV2;
		if (ulen != end - off) {
			finding(pkt, RK_F_UDP_LEN, off + 4);
			if (ulen >= RK_UDP_HLEN && ulen < end - off)
				end = off + ulen;
		}
		pkt->l4_payload_off = off + RK_UDP_HLEN;
		pkt->l4_payload_len = end - off - RK_UDP_HLEN;
		pkt->bth_off = off + RK_UDP_HLEN;
		parse_bth(c, end, 2);
	} else if (pkt->ip_proto == RK_IPPROTO_TCP) {
		const uint8_t *t = pkt->frame + off;
		uint32_t doff;

		if (end < off + RK_TCP_HLEN || !captured(pkt, off, RK_TCP_HLEN))
			return;
		doff = rk_tcp_hlen(t);
		if (doff < RK_TCP_HLEN || off + doff > end) {
			finding(pkt, RK_F_TCP_HDR_BAD, off + 12);
			return;
		}
		pkt->layers |= RK_L_TCP;
		pkt->kind = RK_PKT_TCP;
		pkt->src_port = rk_tcp_src_port(t);
		pkt->dst_port = rk_tcp_dst_port(t);
		pkt->tcp_seq = rk_tcp_seq(t);
		pkt->tcp_ack = rk_tcp_ack_num(t);
		pkt->tcp_flags = rk_tcp_flags(t);
		pkt->tcp_window = rk_tcp_window(t);
		pkt->l4_payload_off = off + doff;
		pkt->l4_payload_len = end - off - doff;
		if (pkt->l4_payload_len > 0)
			(void)captured(pkt, pkt->l4_payload_off, pkt->l4_payload_len);
	}
}

static bool
is_rocev2_udp(const struct rk_pkt *pkt, uint32_t off)
{
	return pkt->ip_proto == RK_IPPROTO_UDP && (uint64_t)off + 4 <= pkt->caplen &&
	       rk_udp_dst_port(pkt->frame + off) == RK_ROCEV2_UDP_PORT;
}

/*
 * The L3 header at @p off (IPv4, IPv6 or GRH): its fixed @p hlen bytes on
 * the wire (else finding @p short_id) and captured, and, unless @p version
 * is 0, Version @p version (bits 7:4 of byte 0 in IPv4 and IPv6).
 * NULL otherwise.
 */
static const uint8_t *
l3_hdr(struct rk_pkt *pkt, uint32_t off, uint32_t hlen, uint8_t version,
       enum rk_finding_id short_id)
{
	const uint8_t *ip;

	pkt->l3_off = off;
	if (!on_wire(pkt, off, hlen)) {
		finding(pkt, short_id, off);
		return NULL;
	}
	if (!captured(pkt, off, hlen))
		return NULL;
	ip = pkt->frame + off;
	if (version != 0 && rk_ipv4_version(ip) != version) {
		finding(pkt, RK_F_IP_VERSION, off);
		return NULL;
	}
	return ip;
}

static void
parse_ipv4(struct parse_ctx *c, uint32_t off)
{
	struct rk_pkt *pkt = c->pkt;
	const uint8_t *ip;
	uint32_t ihl, tot;
	uint16_t frag;

	ip = l3_hdr(pkt, off, RK_IPV4_HLEN, 4, RK_F_IP_HDR_BAD);
	if (ip == NULL)
		return;
	ihl = rk_ipv4_hlen(ip);
	tot = rk_ipv4_total_len(ip);
	if (ihl < RK_IPV4_HLEN || tot < ihl || !on_wire(pkt, off, tot)) {
		finding(pkt, RK_F_IP_HDR_BAD, off);
		return;
	}
	if (!captured(pkt, off, ihl))
		return;
	pkt->layers |= RK_L_IPV4;
	pkt->ip_version = 4;
	pkt->l3_len = ihl;
	pkt->dscp = rk_ipv4_dscp(ip);
	pkt->ecn = rk_ipv4_ecn(ip);
	pkt->ttl = rk_ipv4_ttl(ip);
	pkt->ip_proto = rk_ipv4_protocol(ip);
	ipv4_mapped(pkt->src_ip, rk_ipv4_src(ip));
	ipv4_mapped(pkt->dst_ip, rk_ipv4_dst(ip));
	frag = rk_ipv4_frag(ip);
	if ((frag & RK_IPV4_FRAG_OFF_MASK) != 0) {
		/* Not the first fragment: no L4 header here. */
		if (pkt->ip_proto == RK_IPPROTO_UDP)
			pkt->kind = RK_PKT_OTHER;
		return;
	}
	if (is_rocev2_udp(pkt, off + ihl)) {
		if (ihl > RK_IPV4_HLEN)
			finding(pkt, RK_F_IPV4_OPTIONS, off);
		if (frag & RK_IPV4_MF) {
			finding(pkt, RK_F_IPV4_FRAGMENT, off + 6);
			pkt->kind = RK_PKT_ROCEV2;
			return;
		}
	}
	parse_udp_tcp(c, off + ihl, off + tot);
}

/* The fields an IPv6 header and a GRH share (same layout, IBTA Vol1 8.3). */
static void
ipv6_fields(struct rk_pkt *pkt, const uint8_t *ip)
{
	pkt->l3_len = RK_IPV6_HLEN;
	pkt->dscp = rk_ipv6_dscp(ip);
	pkt->ecn = rk_ipv6_ecn(ip);
	pkt->flow_label = rk_ipv6_flow_label(ip);
	pkt->ttl = rk_ipv6_hop_limit(ip);
	memcpy(pkt->src_ip, rk_ipv6_src(ip), 16);
	memcpy(pkt->dst_ip, rk_ipv6_dst(ip), 16);
}

static void
parse_ipv6(struct parse_ctx *c, uint32_t off)
{
	struct rk_pkt *pkt = c->pkt;
	const uint8_t *ip;
	uint32_t end;

	ip = l3_hdr(pkt, off, RK_IPV6_HLEN, 6, RK_F_IP_HDR_BAD);
	if (ip == NULL)
		return;
	end = off + RK_IPV6_HLEN + rk_ipv6_payload_len(ip);
	if (!on_wire(pkt, off, end - off)) {
		finding(pkt, RK_F_IP_HDR_BAD, off + 4);
		return;
	}
	pkt->layers |= RK_L_IPV6;
	pkt->ip_version = 6;
	ipv6_fields(pkt, ip);
	pkt->ip_proto = rk_ipv6_next_header(ip);
	/* Extension headers are outside RoCEv2 (CA17-11 area): L4 only when next. */
	parse_udp_tcp(c, off + RK_IPV6_HLEN, end);
}

/* GRH (RoCEv1, native IB with LNH = 3): same layout as an IPv6 header. */
static bool
parse_grh(struct parse_ctx *c, uint32_t off, uint32_t *end)
{
	struct rk_pkt *pkt = c->pkt;
	const uint8_t *g;

	/* The GRH's IPVer is not checked. */
	g = l3_hdr(pkt, off, GRH_LEN, 0, RK_F_BTH_TOO_SHORT);
	if (g == NULL)
		return false;
	pkt->layers |= RK_L_GRH;
	ipv6_fields(pkt, g);
	if (rk_ipv6_next_header(g) != GRH_NXTHDR_IBA)
		return false;
	*end = off + GRH_LEN + rk_ipv6_payload_len(g);
	/* PayLen must not claim bytes past the frame's end on the wire. */
	if (!on_wire(pkt, off, *end - off)) {
		finding(pkt, RK_F_IP_HDR_BAD, off + 4);
		return false;
	}
	return true;
}

static void
parse_mac_control(struct rk_pkt *pkt, uint32_t off)
{
	const uint8_t *p;

	if (!captured(pkt, off, 2))
		return;
	p = pkt->frame + off;
	pkt->mac_control_opcode = rk_get_be16(p);
	if (pkt->mac_control_opcode == MAC_CONTROL_PAUSE) {
		if (!captured(pkt, off, 4))
			return;
		pkt->kind = RK_PKT_PAUSE;
		pkt->pause_quanta[0] = rk_get_be16(p + 2);
	} else if (pkt->mac_control_opcode == MAC_CONTROL_PFC) {
		if (!captured(pkt, off, 4 + 16))
			return;
		pkt->kind = RK_PKT_PFC;
		pkt->pfc_class_enable = p[3];
		if (p[2] != 0)
			finding(pkt, RK_F_PFC_RESERVED, off + 2);
		for (int i = 0; i < 8; i++)
			pkt->pause_quanta[i] = rk_get_be16(p + 4 + 2 * i);
	} else {
		finding(pkt, RK_F_MAC_CONTROL_OPCODE, off);
	}
}

static void
parse_ethertype(struct parse_ctx *c, uint16_t type, uint32_t off)
{
	struct rk_pkt *pkt = c->pkt;

	while (rk_ethertype_is_vlan(type) && pkt->n_vlan < 2) {
		if (!captured(pkt, off, RK_VLAN_HLEN))
			return;
		pkt->layers |= RK_L_VLAN;
		pkt->vlan_tci[pkt->n_vlan++] = rk_vlan_tci(pkt->frame + off);
		type = rk_vlan_ethertype(pkt->frame + off);
		off += RK_VLAN_HLEN;
	}
	pkt->ethertype = type;
	switch (type) {
	case RK_ETHERTYPE_IPV4:
		parse_ipv4(c, off);
		break;
	case RK_ETHERTYPE_IPV6:
		parse_ipv6(c, off);
		break;
	case RK_ETHERTYPE_ROCEV1: {
		uint32_t end;

		pkt->kind = RK_PKT_ROCEV1;
		if (parse_grh(c, off, &end)) {
			pkt->bth_off = off + GRH_LEN;
			parse_bth(c, end, 1);
		}
		break;
	}
	case RK_ETHERTYPE_MAC_CONTROL:
		parse_mac_control(pkt, off);
		break;
	default:
		break;
	}
}

static void
parse_eth(struct parse_ctx *c, uint32_t off)
{
	struct rk_pkt *pkt = c->pkt;

	pkt->l2_off = off;
	if (!on_wire(pkt, off, RK_ETH_HLEN)) {
		finding(pkt, RK_F_FRAME_MALFORMED, off);
		return;
	}
	if (!captured(pkt, off, RK_ETH_HLEN))
		return;
	pkt->layers |= RK_L_ETH;
	rk_eth_dst(pkt->frame + off, pkt->dst_mac);
	rk_eth_src(pkt->frame + off, pkt->src_mac);
	parse_ethertype(c, rk_eth_ethertype(pkt->frame + off), off + RK_ETH_HLEN);
}

/* Native InfiniBand: LRH, optional GRH, BTH ... ICRC, VCRC. */
static void
parse_lrh(struct parse_ctx *c, uint32_t off)
{
	struct rk_pkt *pkt = c->pkt;
	const uint8_t *l;
	uint32_t end, lnh;

	pkt->l2_off = off;
	if (!on_wire(pkt, off, LRH_LEN)) {
		finding(pkt, RK_F_FRAME_MALFORMED, off);
		return;
	}
	if (!captured(pkt, off, LRH_LEN))
		return;
	l = pkt->frame + off;
	pkt->layers |= RK_L_LRH;
	pkt->dst_lid = rk_get_be16(l + 2);
	pkt->src_lid = rk_get_be16(l + 6);
	lnh = l[1] & 0x03;
	/* PktLen counts 4-byte words from the LRH up to the VCRC. */
	end = off + (uint32_t)(rk_get_be16(l + 4) & 0x7ff) * 4;
	if (lnh < 2)
		return; /* raw packet: no IBA transport */
	pkt->kind = RK_PKT_IB;
	if (!on_wire(pkt, off, end - off + 2)) {
		finding(pkt, RK_F_BTH_TOO_SHORT, off + 4);
		return;
	}
	if (lnh == 3) {
		uint32_t gend;

		if (!parse_grh(c, off + LRH_LEN, &gend))
			return;
		pkt->bth_off = off + LRH_LEN + GRH_LEN;
	} else {
		pkt->l3_off = off + LRH_LEN;
		pkt->bth_off = off + LRH_LEN;
	}
	parse_bth(c, end, 0);
}

static void
parse_erf(struct parse_ctx *c)
{
	struct rk_pkt *pkt = c->pkt;
	uint32_t off = ERF_HLEN;
	uint8_t type;

	if (!on_wire(pkt, 0, ERF_HLEN)) {
		finding(pkt, RK_F_FRAME_MALFORMED, 0);
		return;
	}
	if (!captured(pkt, 0, ERF_HLEN))
		return;
	type = pkt->frame[8];
	/* Extension headers: 8 bytes each while the top bit says more follow. */
	if (type & 0x80) {
		uint8_t ext;

		do {
			if (!captured(pkt, off, 8))
				return;
			ext = pkt->frame[off];
			off += 8;
		} while (ext & 0x80);
	}
	switch (type & 0x7f) {
	case ERF_TYPE_ETH:
	case ERF_TYPE_COLOR_ETH:
	case ERF_TYPE_DSM_COLOR_ETH:
	case ERF_TYPE_COLOR_HASH_ETH:
		parse_eth(c, off + 2); /* 2 bytes of offset and pad */
		break;
	case ERF_TYPE_INFINIBAND:
	case ERF_TYPE_INFINIBAND_LINK:
		parse_lrh(c, off);
		break;
	default:
		break;
	}
}

/*
 * Zero the arrays and layer fields the parse did not write. Each is
 * written in full right where its layer bit (or kind) is set, so the bit
 * says whether it holds this frame's values.
 */
static void
settle(struct rk_pkt *pkt)
{
	if (!(pkt->layers & RK_L_ETH)) {
		memset(pkt->src_mac, 0, sizeof(pkt->src_mac));
		memset(pkt->dst_mac, 0, sizeof(pkt->dst_mac));
	}
	for (unsigned int i = pkt->n_vlan; i < 2; i++)
		pkt->vlan_tci[i] = 0;
	if (!(pkt->layers & (RK_L_IPV4 | RK_L_IPV6 | RK_L_GRH))) {
		memset(pkt->src_ip, 0, sizeof(pkt->src_ip));
		memset(pkt->dst_ip, 0, sizeof(pkt->dst_ip));
	}
	if (!(pkt->layers & RK_L_LRH)) {
		pkt->src_lid = 0;
		pkt->dst_lid = 0;
	}
	if (!(pkt->layers & RK_L_TCP)) {
		pkt->tcp_seq = 0;
		pkt->tcp_ack = 0;
		pkt->tcp_flags = 0;
		pkt->tcp_window = 0;
	}
	if (pkt->kind != RK_PKT_PFC)
		memset(pkt->pause_quanta + 1, 0, sizeof(pkt->pause_quanta) - sizeof(uint16_t));
	if (pkt->kind != RK_PKT_PAUSE && pkt->kind != RK_PKT_PFC)
		pkt->pause_quanta[0] = 0;
}

int
rk_pkt_parse(struct rk_pkt *pkt, const uint8_t *frame, uint32_t caplen,
	     uint32_t wirelen, enum rk_linktype link, const struct rk_parse_opts *opts)
{
	struct parse_ctx c = { pkt, opts };

	if (pkt == NULL || (frame == NULL && caplen > 0))
		return -EINVAL;
	/*
	 * No memset of the whole struct (a rep stos per packet on the RX
	 * path): the scalars the parser reads or may leave unwritten are set
	 * here, the arrays only written with their layer are settled after
	 * the parse (settle()). test_pkt checks a reused struct against a
	 * fresh one.
	 */
	pkt->frame = frame;
	pkt->caplen = caplen;
	pkt->wirelen = wirelen < caplen ? caplen : wirelen;
	pkt->truncated = false;
	pkt->kind = RK_PKT_OTHER;
	pkt->layers = 0;
	pkt->l2_off = 0;
	pkt->n_vlan = 0;
	pkt->ethertype = 0;
	pkt->l3_off = 0;
	pkt->l3_len = 0;
	pkt->ip_version = 0;
	pkt->dscp = 0;
	pkt->ecn = 0;
	pkt->ttl = 0;
	pkt->ip_proto = 0;
	pkt->flow_label = 0;
	pkt->l4_off = 0;
	pkt->src_port = 0;
	pkt->dst_port = 0;
	pkt->l4_payload_off = 0;
	pkt->l4_payload_len = 0;
	pkt->bth_off = 0;
	pkt->opcode = 0;
	pkt->op = NULL;
	pkt->payload_off = 0;
	pkt->payload_len = 0;
	pkt->pad_cnt = 0;
	pkt->icrc_off = 0;
	pkt->icrc = 0;
	pkt->icrc_status = RK_ICRC_NOT_CHECKED;
	pkt->mac_control_opcode = 0;
	pkt->pfc_class_enable = 0;
	pkt->findings.count = 0;
	pkt->findings.dropped = 0;

	switch (link) {
	case RK_LINK_ETHERNET:
		parse_eth(&c, 0);
		break;
	case RK_LINK_LINUX_SLL:
		if (!on_wire(pkt, 0, 16)) {
			finding(pkt, RK_F_FRAME_MALFORMED, 0);
			break;
		}
		if (captured(pkt, 0, 16))
			parse_ethertype(&c, rk_get_be16(frame + 14), 16);
		break;
	case RK_LINK_LINUX_SLL2:
		if (!on_wire(pkt, 0, 20)) {
			finding(pkt, RK_F_FRAME_MALFORMED, 0);
			break;
		}
		if (captured(pkt, 0, 20))
			parse_ethertype(&c, rk_get_be16(frame), 20);
		break;
	case RK_LINK_RAW:
	case RK_LINK_IPV4:
	case RK_LINK_IPV6:
		if (!captured(pkt, 0, 1))
			break;
		/* The version nibble from the one byte known to be there (IPv6's
		 * own accessor reads its 4-byte container). */
		if (rk_ipv4_version(frame) == 4 && link != RK_LINK_IPV6)
			parse_ipv4(&c, 0);
		else if (rk_ipv4_version(frame) == 6 && link != RK_LINK_IPV4)
			parse_ipv6(&c, 0);
		else
			finding(pkt, RK_F_IP_VERSION, 0);
		break;
	case RK_LINK_ERF:
		parse_erf(&c);
		break;
	default:
		settle(pkt);
		return -EPROTONOSUPPORT;
	}
	settle(pkt);
	return 0;
}

int
rk_pkt_fix_icrc(struct rk_pkt *pkt, uint8_t *frame)
{
	uint32_t crc;

	if (pkt == NULL || frame == NULL || !rk_pkt_has_bth(pkt) || pkt->icrc_off == 0 ||
	    (uint64_t)pkt->icrc_off + RK_ICRC_LEN > pkt->caplen)
		return -EINVAL;
	switch (pkt->kind) {
	case RK_PKT_ROCEV2:
		crc = icrc_v2(frame + pkt->l3_off, pkt->l3_len, pkt->icrc_off - pkt->l3_off);
		break;
	case RK_PKT_ROCEV1:
		crc = rk_ib_icrc(frame + pkt->l3_off, pkt->icrc_off - pkt->l3_off, false);
		break;
	case RK_PKT_IB:
		crc = rk_ib_icrc(frame + pkt->l2_off, pkt->icrc_off - pkt->l2_off, true);
		break;
	default:
		return -EINVAL;
	}
	rk_put_le32(frame + pkt->icrc_off, crc);
	pkt->icrc = crc;
	return 0;
}

const char *
rk_pkt_kind_name(enum rk_pkt_kind kind)
{
	switch (kind) {
	case RK_PKT_ROCEV2:
		return "RoCEv2";
	case RK_PKT_ROCEV1:
		return "RoCEv1";
	case RK_PKT_IB:
		return "IB";
	case RK_PKT_TCP:
		return "TCP";
	case RK_PKT_PAUSE:
		return "PAUSE";
	case RK_PKT_PFC:
		return "PFC";
	default:
		return "other";
	}
}
