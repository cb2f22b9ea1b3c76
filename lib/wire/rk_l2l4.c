/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Field tables of the Ethernet, 802.1Q, IPv4, IPv6, UDP and TCP headers,
 * and the IPv4 header checksum.
 */
#include "rk_eth.h"
#include "rk_ipv4.h"
#include "rk_ipv6.h"
#include "rk_tcp_hdr.h"
#include "rk_udp.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define FLD(nm, k, off, nb, m, ref) \
	{ .name = nm, .key = k, .byte_off = off, .nbytes = nb, .mask = m, .spec_ref = ref }
#define MAC48 0xffffffffffffull
#define ALL64 ~0ull

static const struct rk_field eth_fields[] = {
	FLD("Destination Address", "dst", 0, 6, MAC48, "IEEE 802.3 3.2.3"),
	FLD("Source Address", "src", 6, 6, MAC48, "IEEE 802.3 3.2.4"),
	FLD("EtherType", "ethertype", 12, 2, 0xffff, "IEEE 802.3 3.2.6"),
};
const struct rk_header_desc rk_eth_desc = {
	"Ethernet", RK_ETH_HLEN, eth_fields, N(eth_fields), "IEEE 802.3 3.1.1"
};

static const struct rk_field vlan_fields[] = {
	FLD("PCP", "pcp", 0, 2, RK_VLAN_PCP_MASK, "IEEE 802.1Q 9.6"),
	FLD("DEI", "dei", 0, 2, RK_VLAN_DEI, "IEEE 802.1Q 9.6"),
	FLD("VID", "vid", 0, 2, RK_VLAN_VID_MASK, "IEEE 802.1Q 9.6"),
	FLD("EtherType", "ethertype", 2, 2, 0xffff, "IEEE 802.1Q 9.5"),
};
const struct rk_header_desc rk_vlan_desc = {
	"802.1Q", RK_VLAN_HLEN, vlan_fields, N(vlan_fields), "IEEE 802.1Q 9.6"
};

static const struct rk_field ipv4_fields[] = {
	FLD("Version", "version", 0, 1, RK_IPV4_VERSION_MASK, "RFC 791 3.1"),
	FLD("IHL", "ihl", 0, 1, RK_IPV4_IHL_MASK, "RFC 791 3.1"),
	FLD("DSCP", "dscp", 1, 1, RK_IPV4_DSCP_MASK, "RFC 2474 3"),
	FLD("ECN", "ecn", 1, 1, RK_IPV4_ECN_MASK, "RFC 3168 5"),
	FLD("Total Length", "total_len", 2, 2, 0xffff, "RFC 791 3.1"),
	FLD("Identification", "id", 4, 2, 0xffff, "RFC 791 3.1"),
	FLD("Reserved", "reserved", 6, 2, RK_IPV4_RESERVED, "RFC 791 3.1"),
	FLD("DF", "df", 6, 2, RK_IPV4_DF, "RFC 791 3.1"),
	FLD("MF", "mf", 6, 2, RK_IPV4_MF, "RFC 791 3.1"),
	FLD("Fragment Offset", "frag_off", 6, 2, RK_IPV4_FRAG_OFF_MASK, "RFC 791 3.1"),
	FLD("Time to Live", "ttl", 8, 1, 0xff, "RFC 791 3.1"),
	FLD("Protocol", "protocol", 9, 1, 0xff, "RFC 791 3.1"),
	FLD("Header Checksum", "hdr_csum", 10, 2, 0xffff, "RFC 791 3.1"),
	FLD("Source Address", "src", 12, 4, 0xffffffff, "RFC 791 3.1"),
	FLD("Destination Address", "dst", 16, 4, 0xffffffff, "RFC 791 3.1"),
};
const struct rk_header_desc rk_ipv4_desc = {
	"IPv4", RK_IPV4_HLEN, ipv4_fields, N(ipv4_fields), "RFC 791 3.1"
};

static const struct rk_field ipv6_fields[] = {
	FLD("Version", "version", 0, 4, RK_IPV6_VERSION_MASK, "RFC 8200 3"),
	FLD("DSCP", "dscp", 0, 4, RK_IPV6_DSCP_MASK, "RFC 2474 3"),
	FLD("ECN", "ecn", 0, 4, RK_IPV6_ECN_MASK, "RFC 3168 5"),
	FLD("Flow Label", "flow_label", 0, 4, RK_IPV6_FLOW_MASK, "RFC 8200 3"),
	FLD("Payload Length", "payload_len", 4, 2, 0xffff, "RFC 8200 3"),
	FLD("Next Header", "next_header", 6, 1, 0xff, "RFC 8200 3"),
	FLD("Hop Limit", "hop_limit", 7, 1, 0xff, "RFC 8200 3"),
	FLD("Source Address hi", "src_hi", 8, 8, ALL64, "RFC 8200 3"),
	FLD("Source Address lo", "src_lo", 16, 8, ALL64, "RFC 8200 3"),
	FLD("Destination Address hi", "dst_hi", 24, 8, ALL64, "RFC 8200 3"),
	FLD("Destination Address lo", "dst_lo", 32, 8, ALL64, "RFC 8200 3"),
};
const struct rk_header_desc rk_ipv6_desc = {
	"IPv6", RK_IPV6_HLEN, ipv6_fields, N(ipv6_fields), "RFC 8200 3"
};

static const struct rk_field udp_fields[] = {
	FLD("Source Port", "src_port", 0, 2, 0xffff, "RFC 768"),
	FLD("Destination Port", "dst_port", 2, 2, 0xffff, "RFC 768"),
	FLD("Length", "len", 4, 2, 0xffff, "RFC 768"),
	FLD("Checksum", "csum", 6, 2, 0xffff, "RFC 768"),
};
const struct rk_header_desc rk_udp_desc = {
	"UDP", RK_UDP_HLEN, udp_fields, N(udp_fields), "RFC 768"
};

static const struct rk_field tcp_fields[] = {
	FLD("Source Port", "src_port", 0, 2, 0xffff, "RFC 9293 3.1"),
	FLD("Destination Port", "dst_port", 2, 2, 0xffff, "RFC 9293 3.1"),
	FLD("Sequence Number", "seq", 4, 4, 0xffffffff, "RFC 9293 3.1"),
	FLD("Acknowledgment Number", "ack_num", 8, 4, 0xffffffff, "RFC 9293 3.1"),
	FLD("Data Offset", "doff", 12, 1, RK_TCP_DOFF_MASK, "RFC 9293 3.1"),
	FLD("Reserved", "reserved", 12, 1, RK_TCP_RESERVED_MASK, "RFC 9293 3.1"),
	FLD("CWR", "cwr", 13, 1, RK_TCP_CWR, "RFC 3168 6.1"),
	FLD("ECE", "ece", 13, 1, RK_TCP_ECE, "RFC 3168 6.1"),
	FLD("URG", "urg", 13, 1, RK_TCP_URG, "RFC 9293 3.1"),
	FLD("ACK", "ack", 13, 1, RK_TCP_ACK, "RFC 9293 3.1"),
	FLD("PSH", "psh", 13, 1, RK_TCP_PSH, "RFC 9293 3.1"),
	FLD("RST", "rst", 13, 1, RK_TCP_RST, "RFC 9293 3.1"),
	FLD("SYN", "syn", 13, 1, RK_TCP_SYN, "RFC 9293 3.1"),
	FLD("FIN", "fin", 13, 1, RK_TCP_FIN, "RFC 9293 3.1"),
	FLD("Window", "window", 14, 2, 0xffff, "RFC 9293 3.1"),
	FLD("Checksum", "csum", 16, 2, 0xffff, "RFC 9293 3.1"),
	FLD("Urgent Pointer", "urg_ptr", 18, 2, 0xffff, "RFC 9293 3.1"),
};
const struct rk_header_desc rk_tcp_desc = {
	"TCP", RK_TCP_HLEN, tcp_fields, N(tcp_fields), "RFC 9293 3.1"
};

uint16_t
rk_ipv4_csum(const uint8_t *ip)
{
	uint32_t n = rk_ipv4_hlen(ip), sum = 0;

	if (n < RK_IPV4_HLEN)
		n = RK_IPV4_HLEN;
	/* 16-bit words, the checksum word (bytes 10-11) counted as zero. */
	for (uint32_t i = 0; i < n; i += 2)
		if (i != 10)
			sum += rk_get_be16(ip + i);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}
