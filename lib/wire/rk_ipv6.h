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

/** Replace the bits @p mask of the first 32-bit word by those of @p v. */
static inline void
rk_ipv6_set_word0_bits(uint8_t *ip, uint32_t mask, uint32_t v)
{
	rk_put_be32(ip, (rk_get_be32(ip) & ~mask) | (v & mask));
}

static inline uint8_t rk_ipv6_version(const uint8_t *ip) { return ip[0] >> 4; }
/** The Traffic Class (RFC 8200 7): DSCP and ECN together. */
static inline uint8_t
rk_ipv6_tclass(const uint8_t *ip)
{
	return (uint8_t)((rk_get_be32(ip) & RK_IPV6_TCLASS_MASK) >> RK_IPV6_TCLASS_SHIFT);
}
static inline uint8_t
rk_ipv6_dscp(const uint8_t *ip)
{
	return (uint8_t)((rk_get_be32(ip) & RK_IPV6_DSCP_MASK) >> RK_IPV6_DSCP_SHIFT);
}
static inline uint8_t
rk_ipv6_ecn(const uint8_t *ip)
{
	return (uint8_t)((rk_get_be32(ip) & RK_IPV6_ECN_MASK) >> RK_IPV6_ECN_SHIFT);
}
static inline uint32_t rk_ipv6_flow_label(const uint8_t *ip) { return rk_get_be32(ip) & RK_IPV6_FLOW_MASK; }
static inline uint16_t rk_ipv6_payload_len(const uint8_t *ip) { return rk_get_be16(ip + 4); }
static inline uint8_t rk_ipv6_next_header(const uint8_t *ip) { return ip[6]; }
static inline uint8_t rk_ipv6_hop_limit(const uint8_t *ip) { return ip[7]; }
static inline const uint8_t *rk_ipv6_src(const uint8_t *ip) { return ip + 8; }
static inline const uint8_t *rk_ipv6_dst(const uint8_t *ip) { return ip + 24; }

static inline void
rk_ipv6_set_version(uint8_t *ip, uint8_t v)
{
	rk_ipv6_set_word0_bits(ip, RK_IPV6_VERSION_MASK, (uint32_t)v << 28);
}
static inline void
rk_ipv6_set_tclass(uint8_t *ip, uint8_t v)
{
	rk_ipv6_set_word0_bits(ip, RK_IPV6_TCLASS_MASK, (uint32_t)v << RK_IPV6_TCLASS_SHIFT);
}
static inline void
rk_ipv6_set_dscp(uint8_t *ip, uint8_t v)
{
	rk_ipv6_set_word0_bits(ip, RK_IPV6_DSCP_MASK, (uint32_t)v << RK_IPV6_DSCP_SHIFT);
}
static inline void
rk_ipv6_set_ecn(uint8_t *ip, uint8_t v)
{
	rk_ipv6_set_word0_bits(ip, RK_IPV6_ECN_MASK, (uint32_t)v << RK_IPV6_ECN_SHIFT);
}
static inline void
rk_ipv6_set_flow_label(uint8_t *ip, uint32_t v)
{
	rk_ipv6_set_word0_bits(ip, RK_IPV6_FLOW_MASK, v);
}
static inline void rk_ipv6_set_payload_len(uint8_t *ip, uint16_t v) { rk_put_be16(ip + 4, v); }
static inline void rk_ipv6_set_next_header(uint8_t *ip, uint8_t v) { ip[6] = v; }
static inline void rk_ipv6_set_hop_limit(uint8_t *ip, uint8_t v) { ip[7] = v; }
static inline void rk_ipv6_set_src(uint8_t *ip, const uint8_t a[16]) { memcpy(ip + 8, a, 16); }
static inline void rk_ipv6_set_dst(uint8_t *ip, const uint8_t a[16]) { memcpy(ip + 24, a, 16); }

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
