/* SPDX-License-Identifier: BSD-3-Clause */
#include "rk_build.h"

#include <errno.h>
#include <string.h>

#include "rk_byteorder.h"
#include "rk_eth.h"
#include "rk_ipv4.h"
#include "rk_ipv6.h"
#include "rk_opcode.h"
#include "rk_pkt.h"
#include "rk_udp.h"
#include "rk_xeth.h"

/*
 * The extended headers whose every accessor field is a member <hdr>_<field>
 * of struct rk_xeth_fields (FETH and ImmDt are one word, done by hand).
 * BUILD_HDR and PARSE_HDR copy one such header between the struct and the
 * bytes at h, when the opcode carries it.
 */
#define XETH_LISTS(H)                                                          \
	H(RDETH, RK_RDETH_FIELDS) H(DETH, RK_DETH_FIELDS) H(XRCETH, RK_XRCETH_FIELDS) \
	H(RETH, RK_RETH_FIELDS) H(ATMETH, RK_ATMETH_FIELDS) H(AETH, RK_AETH_FIELDS)   \
	H(ATMACK, RK_ATMACK_FIELDS) H(IETH, RK_IETH_FIELDS)
#define XETH_PUT(pfx, acc, ...) rk_##pfx##_set_##acc(h, x->pfx##_##acc);
#define XETH_GET(pfx, acc, ...) x->pfx##_##acc = rk_##pfx##_##acc(h);
#define BUILD_HDR(id, LIST) if (AT(id)) { LIST(XETH_PUT, RK_FIELD_NONE) }
#define PARSE_HDR(id, LIST) if (AT(id)) { LIST(XETH_GET, RK_FIELD_NONE) }

int
rk_build_ib_headers(uint8_t *out, uint32_t cap, const struct rk_bth_fields *bth,
		    const struct rk_xeth_fields *x)
{
	static const struct rk_xeth_fields zero;
	const struct rk_opcode_info *op = rk_opcode_info(bth->opcode);
	uint32_t len = (op->flags & RK_OPF_VALID) ? op->hdr_len : RK_BTH_LEN;
	uint8_t *h;

	if (x == NULL)
		x = &zero;
	if (cap < len)
		return -ENOSPC;
	memset(out, 0, len);
	rk_bth_pack(out, bth);
	if (!(op->flags & RK_OPF_VALID))
		return (int)len;
#define AT(hdr) ((op->hdrs & (1u << RK_HDR_##hdr)) ? (h = out + op->off[RK_HDR_##hdr]) : NULL)
	XETH_LISTS(BUILD_HDR)
	if (AT(FETH))
		rk_put_be32(h, x->feth);
	if (AT(IMMDT))
		rk_immdt_set_imm(h, x->imm);
#undef AT
	return (int)len;
}

uint16_t
rk_inet_csum_fold(const uint8_t *p, uint32_t len)
{
	uint32_t sum = 0;

	for (uint32_t i = 0; i + 1 < len; i += 2)
		sum += rk_get_be16(p + i);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

int
rk_build_ip_headers(uint8_t *out, uint32_t cap, const struct rk_l2l4_hdr *h, uint8_t proto,
		    uint32_t l4_len)
{
	uint32_t l2 = RK_ETH_HLEN + (h->vlan ? RK_VLAN_HLEN : 0);
	uint32_t l3 = h->ip_version == 4 ? RK_IPV4_HLEN : RK_IPV6_HLEN;
	uint8_t *ip = out + l2;

	if (h->ip_version != 4 && h->ip_version != 6)
		return -EINVAL;
	if ((uint64_t)l4_len + (h->ip_version == 4 ? l3 : 0) > 0xffff)
		return -EMSGSIZE;
	if (cap < l2 + l3)
		return -ENOSPC;
	rk_eth_write(out, h->dst_mac, h->src_mac, h->vlan, rk_vlan_make_tci(h->pcp, h->dei, h->vid),
		     h->ip_version == 4 ? RK_ETHERTYPE_IPV4 : RK_ETHERTYPE_IPV6);
	if (h->ip_version == 4) {
		ip[0] = 0;
		rk_ipv4_set_version(ip, 4);
		rk_ipv4_set_ihl(ip, RK_IPV4_HLEN / 4);
		rk_ipv4_set_tos(ip, 0);
		rk_ipv4_set_dscp(ip, h->dscp);
		rk_ipv4_set_ecn(ip, h->ecn);
		rk_ipv4_set_total_len(ip, (uint16_t)(l3 + l4_len));
		rk_ipv4_set_id(ip, h->ip_id);
		rk_ipv4_set_frag(ip, h->df ? RK_IPV4_DF : 0);
		rk_ipv4_set_ttl(ip, h->ttl);
		rk_ipv4_set_protocol(ip, proto);
		rk_ipv4_set_src(ip, h->src_ip + 12);
		rk_ipv4_set_dst(ip, h->dst_ip + 12);
		rk_ipv4_fill_csum(ip);
	} else {
		rk_ipv6_set_word0(ip, h->dscp, h->ecn, h->flow_label);
		rk_ipv6_set_payload_len(ip, (uint16_t)l4_len);
		rk_ipv6_set_next_header(ip, proto);
		rk_ipv6_set_hop_limit(ip, h->ttl);
		rk_ipv6_set_src(ip, h->src_ip);
		rk_ipv6_set_dst(ip, h->dst_ip);
	}
	return (int)(l2 + l3);
}

int
rk_build_udp_headers(uint8_t *out, uint32_t cap, const struct rk_l2l4_hdr *h,
		     uint32_t payload_len)
{
	int off;

	if ((uint64_t)payload_len + RK_UDP_HLEN > 0xffff)
		return -EMSGSIZE;
	off = rk_build_ip_headers(out, cap, h, RK_IPPROTO_UDP, RK_UDP_HLEN + payload_len);
	if (off < 0)
		return off;
	if (cap < (uint32_t)off + RK_UDP_HLEN)
		return -ENOSPC;
	rk_udp_write(out + off, h->src_port, h->dst_port, (uint16_t)(RK_UDP_HLEN + payload_len));
	return off + RK_UDP_HLEN;
}

int
rk_build_rocev2(uint8_t *out, uint32_t cap, const struct rk_roce_addr *a,
		const struct rk_bth_fields *bth, const struct rk_xeth_fields *x,
		const void *payload, uint32_t len)
{
	struct rk_bth_fields b = *bth;
	uint32_t l2 = RK_ETH_HLEN + (a->vlan ? RK_VLAN_HLEN : 0);
	uint32_t l3 = a->ip_version == 4 ? RK_IPV4_HLEN : RK_IPV6_HLEN;
	uint32_t pad = (4 - (len & 3)) & 3;
	const struct rk_opcode_info *op = rk_opcode_info(b.opcode);
	uint32_t hdr = (op->flags & RK_OPF_VALID) ? op->hdr_len : RK_BTH_LEN;
	uint64_t total = (uint64_t)l2 + l3 + RK_UDP_HLEN + hdr + len + pad + RK_ICRC_LEN;
	uint32_t ip_len = (uint32_t)total - l2;
	struct rk_l2l4_hdr h = {
		.vlan = a->vlan,
		.pcp = (uint8_t)((a->vlan_tci & RK_VLAN_PCP_MASK) >> RK_VLAN_PCP_SHIFT),
		.dei = (a->vlan_tci & RK_VLAN_DEI) != 0,
		.vid = a->vlan_tci & RK_VLAN_VID_MASK,
		.ip_version = a->ip_version,
		.dscp = a->dscp,
		.ecn = a->ecn,
		.ttl = a->ttl ? a->ttl : 64,
		.flow_label = a->flow_label,
		.df = a->df,
		.ip_id = a->ip_id,
		.src_port = a->src_port ? a->src_port : 0xc000,
		.dst_port = RK_ROCEV2_UDP_PORT,
	};
	uint8_t *p = out;
	struct rk_pkt pkt;

	if (a->ip_version != 4 && a->ip_version != 6)
		return -EINVAL;
	if (total > cap || ip_len > 0xffff)
		return -ENOSPC;
	memcpy(h.dst_mac, a->dst_mac, 6);
	memcpy(h.src_mac, a->src_mac, 6);
	memcpy(h.src_ip, a->src_ip, 16);
	memcpy(h.dst_ip, a->dst_ip, 16);
	if (rk_build_udp_headers(p, cap, &h, ip_len - l3 - RK_UDP_HLEN) < 0)
		return -ENOSPC;
	p += l2 + l3 + RK_UDP_HLEN;
	b.pad_cnt = (uint8_t)pad;
	if (rk_build_ib_headers(p, (uint32_t)(cap - (p - out)), &b, x) < 0)
		return -ENOSPC;
	p += hdr;
	if (payload != NULL && len > 0)
		memcpy(p, payload, len);
	else
		memset(p, 0, len);
	memset(p + len, 0, pad + RK_ICRC_LEN);
	if (rk_pkt_parse(&pkt, out, (uint32_t)total, (uint32_t)total, RK_LINK_ETHERNET,
			 &(struct rk_parse_opts){ .check_icrc = false }) == 0 &&
	    rk_pkt_has_bth(&pkt))
		(void)rk_pkt_fix_icrc(&pkt, out);
	else
		rk_put_le32(out + total - RK_ICRC_LEN,
			    rk_rocev2_icrc(out + l2, (uint32_t)total - l2 - RK_ICRC_LEN));
	return (int)total;
}

int
rk_parse_ib_headers(const uint8_t *bth, uint32_t len, struct rk_bth_fields *b,
		    struct rk_xeth_fields *x)
{
	const struct rk_opcode_info *op;
	const uint8_t *h;

	if (len < RK_BTH_LEN)
		return -EMSGSIZE;
	memset(x, 0, sizeof(*x));
	rk_bth_unpack(bth, b);
	op = rk_opcode_info(b->opcode);
	if (!(op->flags & RK_OPF_VALID))
		return -EINVAL;
	if (len < op->hdr_len)
		return -EMSGSIZE;
#define AT(hdr) ((op->hdrs & (1u << RK_HDR_##hdr)) ? (h = bth + op->off[RK_HDR_##hdr]) : NULL)
	XETH_LISTS(PARSE_HDR)
	if (AT(FETH))
		x->feth = rk_get_be32(h);
	if (AT(IMMDT))
		x->imm = rk_immdt_imm(h);
#undef AT
	return op->hdr_len;
}

static int
mac_control(uint8_t *out, uint32_t cap, const uint8_t src_mac[6], uint16_t opcode)
{
	static const uint8_t dst[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };

	if (cap < RK_ETH_FRAME_MIN)
		return -ENOSPC;
	memset(out, 0, RK_ETH_FRAME_MIN);
	rk_eth_write(out, dst, src_mac, 0, 0, RK_ETHERTYPE_MAC_CONTROL);
	rk_put_be16(out + RK_ETH_HLEN, opcode);
	return RK_ETH_FRAME_MIN;
}

int
rk_build_pause(uint8_t *out, uint32_t cap, const uint8_t src_mac[6], uint16_t quanta)
{
	int n = mac_control(out, cap, src_mac, 0x0001);

	if (n > 0)
		rk_put_be16(out + RK_ETH_HLEN + 2, quanta);
	return n;
}

int
rk_build_pfc(uint8_t *out, uint32_t cap, const uint8_t src_mac[6],
	     uint8_t class_enable, const uint16_t quanta[8])
{
	int n = mac_control(out, cap, src_mac, 0x0101);

	if (n < 0)
		return n;
	rk_put_be16(out + RK_ETH_HLEN + 2, class_enable);
	for (int i = 0; i < 8; i++)
		rk_put_be16(out + RK_ETH_HLEN + 4 + 2 * i, quanta[i]);
	return n;
}
