/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_ipv6.h
 * IPv6 header (RFC 8200 3), 40 bytes; the IBA GRH (IBTA Vol1 8.3) has the
 * same layout (IPVer, TClass, FlowLabel, PayLen, NxtHdr, HopLmt, SGID, DGID):
 *
 *     bytes 0-3    Version(31:28) DSCP(27:22) ECN(21:20) Flow Label(19:0)
 *     bytes 4-5    Payload Length                  bytes after this header
 *     byte 6       Next Header                     17 UDP, 6 TCP, 58 ICMPv6
 *     byte 7       Hop Limit
 *     bytes 8-23   Source Address
 *     bytes 24-39  Destination Address
 *
 * DSCP and ECN are the Traffic Class (RFC 8200 7) as RFC 2474 3 and
 * RFC 3168 5 split it; ECN codepoints are enum rk_ecn of rk_ipv4.h.
 * Accessors take a pointer to the first header byte, read or write exactly
 * the field's bits, and leave every other bit alone; addresses are read as
 * pointers into the header and written as 16 bytes. The field table splits
 * each 16-byte address in two 8-byte halves (hi: bytes 0-7, lo: 8-15).
 */
#ifndef RK_IPV6_H
#define RK_IPV6_H

#include <stdint.h>
#include <string.h>

#include "rk_byteorder.h"
#include "rk_field.h"

#define RK_IPV6_HLEN 40
#define RK_IPPROTO_ICMPV6 58

#define RK_IPV6_VERSION_MASK 0xf0000000u
#define RK_IPV6_TCLASS_MASK 0x0ff00000u
#define RK_IPV6_TCLASS_SHIFT 20
#define RK_IPV6_DSCP_MASK 0x0fc00000u
#define RK_IPV6_DSCP_SHIFT 22
#define RK_IPV6_ECN_MASK 0x00300000u
#define RK_IPV6_ECN_SHIFT 20
#define RK_IPV6_FLOW_MASK 0x000fffffu

#define RK_IPV6_SRC_OFF 8
#define RK_IPV6_DST_OFF 24

/** The IPv6 fields, in wire order (rk_field.h explains the rows). */
#define RK_IPV6_FIELDS(X, T)                                                       \
	X(ipv6, version, "Version", "version", 0, 4, RK_IPV6_VERSION_MASK, uint8_t, "RFC 8200 3") \
	X(ipv6, dscp, "DSCP", "dscp", 0, 4, RK_IPV6_DSCP_MASK, uint8_t, "RFC 2474 3")  \
	X(ipv6, ecn, "ECN", "ecn", 0, 4, RK_IPV6_ECN_MASK, uint8_t, "RFC 3168 5")      \
	X(ipv6, flow_label, "Flow Label", "flow_label", 0, 4, RK_IPV6_FLOW_MASK, uint32_t, \
	  "RFC 8200 3")                                                                  \
	X(ipv6, payload_len, "Payload Length", "payload_len", 4, 2, 0xffff, uint16_t, "RFC 8200 3") \
	X(ipv6, next_header, "Next Header", "next_header", 6, 1, 0xff, uint8_t, "RFC 8200 3") \
	X(ipv6, hop_limit, "Hop Limit", "hop_limit", 7, 1, 0xff, uint8_t, "RFC 8200 3") \
	T(ipv6, src_hi, "Source Address hi", "src_hi", RK_IPV6_SRC_OFF, 8, ~0ull, void, "RFC 8200 3") \
	T(ipv6, src_lo, "Source Address lo", "src_lo", RK_IPV6_SRC_OFF + 8, 8, ~0ull, void, \
	  "RFC 8200 3")                                                                  \
	T(ipv6, dst_hi, "Destination Address hi", "dst_hi", RK_IPV6_DST_OFF, 8, ~0ull, void, \
	  "RFC 8200 3")                                                                  \
	T(ipv6, dst_lo, "Destination Address lo", "dst_lo", RK_IPV6_DST_OFF + 8, 8, ~0ull, void, \
	  "RFC 8200 3")

/* rk_ipv6_version() ... rk_ipv6_hop_limit() and their setters. */
RK_IPV6_FIELDS(RK_FIELD_ACCESSORS, RK_FIELD_NONE)

/** The Traffic Class (RFC 8200 7): DSCP and ECN together. */
static inline uint8_t
rk_ipv6_tclass(const uint8_t *ip)
{
	return (uint8_t)rk_field_get_be(ip, 0, 4, RK_IPV6_TCLASS_MASK);
}
static inline void
rk_ipv6_set_tclass(uint8_t *ip, uint8_t v)
{
	rk_field_set_be(ip, 0, 4, RK_IPV6_TCLASS_MASK, v);
}
static inline const uint8_t *rk_ipv6_src(const uint8_t *ip) { return ip + RK_IPV6_SRC_OFF; }
static inline const uint8_t *rk_ipv6_dst(const uint8_t *ip) { return ip + RK_IPV6_DST_OFF; }
static inline void rk_ipv6_set_src(uint8_t *ip, const uint8_t a[16]) { memcpy(ip + RK_IPV6_SRC_OFF, a, 16); }
static inline void rk_ipv6_set_dst(uint8_t *ip, const uint8_t a[16]) { memcpy(ip + RK_IPV6_DST_OFF, a, 16); }

/**
 * Write the first word of an IPv6 header: Version 6, @p dscp (6 bits),
 * @p ecn (2 bits) and @p flow_label (20 bits); every bit of bytes 0-3.
 */
static inline void
rk_ipv6_set_word0(uint8_t *ip, uint8_t dscp, uint8_t ecn, uint32_t flow_label)
{
	rk_put_be32(ip, 6u << 28 | ((uint32_t)dscp << RK_IPV6_DSCP_SHIFT & RK_IPV6_DSCP_MASK) |
			((uint32_t)ecn << RK_IPV6_ECN_SHIFT & RK_IPV6_ECN_MASK) |
			(flow_label & RK_IPV6_FLOW_MASK));
}

/** Field table of the IPv6 header (RFC 8200 3). */
extern const struct rk_header_desc rk_ipv6_desc;

#endif /* RK_IPV6_H */
