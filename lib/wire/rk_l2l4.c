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

/* Field tables (rk_field.h), generated from the lists of the headers. */
RK_HEADER_DESC(rk_eth_desc, "Ethernet", RK_ETH_HLEN, RK_ETH_FIELDS, "IEEE 802.3 3.1.1");
RK_HEADER_DESC(rk_vlan_desc, "802.1Q", RK_VLAN_HLEN, RK_VLAN_FIELDS, "IEEE 802.1Q 9.6");
RK_HEADER_DESC(rk_ipv4_desc, "IPv4", RK_IPV4_HLEN, RK_IPV4_FIELDS, "RFC 791 3.1");
RK_HEADER_DESC(rk_ipv6_desc, "IPv6", RK_IPV6_HLEN, RK_IPV6_FIELDS, "RFC 8200 3");
RK_HEADER_DESC(rk_udp_desc, "UDP", RK_UDP_HLEN, RK_UDP_FIELDS, "RFC 768");
RK_HEADER_DESC(rk_tcp_desc, "TCP", RK_TCP_HLEN, RK_TCP_FIELDS, "RFC 9293 3.1");
