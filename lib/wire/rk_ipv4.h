/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_ipv4.h
 * IPv4 header (RFC 791 3.1), 20 bytes without options:
 *
 *     byte 0       Version(7:4) IHL(3:0)            IHL in 32-bit words
 *     byte 1       DSCP(7:2) ECN(1:0)               RFC 2474 3, RFC 3168 5
 *     bytes 2-3    Total Length                     bytes, header included
 *     bytes 4-5    Identification
 *     bytes 6-7    Reserved(15) DF(14) MF(13) Fragment Offset(12:0, 8-byte units)
 *     byte 8       Time to Live
 *     byte 9       Protocol                         17 UDP, 6 TCP
 *     bytes 10-11  Header Checksum                  RFC 791 3.1, RFC 1071
 *     bytes 12-15  Source Address
 *     bytes 16-19  Destination Address
 *
 * ECN codepoints (RFC 3168 5): 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE.
 * Accessors take a pointer to the first header byte, read or write exactly
 * the field's bits, and leave every other bit alone. Addresses are read as
 * pointers into the header and written as 4 bytes, in network order.
 */
#ifndef RK_IPV4_H
#define RK_IPV4_H

#include <stdint.h>
#include <string.h>

#include "rk_byteorder.h"
#include "rk_field.h"

#define RK_IPV4_HLEN 20
#define RK_IPV4_HLEN_MAX 60

#define RK_IPPROTO_TCP 6
#define RK_IPPROTO_UDP 17

#define RK_IPV4_VERSION_MASK 0xf0
#define RK_IPV4_IHL_MASK 0x0f
#define RK_IPV4_DSCP_MASK 0xfc
#define RK_IPV4_DSCP_SHIFT 2
#define RK_IPV4_ECN_MASK 0x03
#define RK_IPV4_RESERVED 0x8000
#define RK_IPV4_DF 0x4000
#define RK_IPV4_MF 0x2000
#define RK_IPV4_FRAG_OFF_MASK 0x1fff

/** ECN codepoints (RFC 3168 5), shared by IPv4 and IPv6. */
enum rk_ecn {
	RK_ECN_NOT_ECT = 0,
	RK_ECN_ECT1 = 1,
	RK_ECN_ECT0 = 2,
	RK_ECN_CE = 3,
};

static inline uint8_t rk_ipv4_version(const uint8_t *ip) { return ip[0] >> 4; }
static inline uint8_t rk_ipv4_ihl(const uint8_t *ip) { return ip[0] & RK_IPV4_IHL_MASK; }
/** Header length in bytes (IHL * 4). */
static inline uint32_t rk_ipv4_hlen(const uint8_t *ip) { return (uint32_t)(ip[0] & RK_IPV4_IHL_MASK) * 4; }
/** The whole second byte (the former TOS): DSCP and ECN together. */
static inline uint8_t rk_ipv4_tos(const uint8_t *ip) { return ip[1]; }
static inline uint8_t rk_ipv4_dscp(const uint8_t *ip) { return ip[1] >> RK_IPV4_DSCP_SHIFT; }
static inline uint8_t rk_ipv4_ecn(const uint8_t *ip) { return ip[1] & RK_IPV4_ECN_MASK; }
static inline uint16_t rk_ipv4_total_len(const uint8_t *ip) { return rk_get_be16(ip + 2); }
static inline uint16_t rk_ipv4_id(const uint8_t *ip) { return rk_get_be16(ip + 4); }
/** Flags and fragment offset together (bytes 6-7). */
static inline uint16_t rk_ipv4_frag(const uint8_t *ip) { return rk_get_be16(ip + 6); }
static inline uint8_t rk_ipv4_reserved(const uint8_t *ip) { return !!(rk_get_be16(ip + 6) & RK_IPV4_RESERVED); }
static inline uint8_t rk_ipv4_df(const uint8_t *ip) { return !!(rk_get_be16(ip + 6) & RK_IPV4_DF); }
static inline uint8_t rk_ipv4_mf(const uint8_t *ip) { return !!(rk_get_be16(ip + 6) & RK_IPV4_MF); }
/** Fragment offset in 8-byte units. */
static inline uint16_t rk_ipv4_frag_off(const uint8_t *ip) { return rk_get_be16(ip + 6) & RK_IPV4_FRAG_OFF_MASK; }
static inline uint8_t rk_ipv4_ttl(const uint8_t *ip) { return ip[8]; }
static inline uint8_t rk_ipv4_protocol(const uint8_t *ip) { return ip[9]; }
static inline uint16_t rk_ipv4_hdr_csum(const uint8_t *ip) { return rk_get_be16(ip + 10); }
static inline const uint8_t *rk_ipv4_src(const uint8_t *ip) { return ip + 12; }
static inline const uint8_t *rk_ipv4_dst(const uint8_t *ip) { return ip + 16; }

static inline void
rk_ipv4_set_version(uint8_t *ip, uint8_t v)
{
	ip[0] = (uint8_t)((ip[0] & ~RK_IPV4_VERSION_MASK) | ((v << 4) & RK_IPV4_VERSION_MASK));
}
static inline void
rk_ipv4_set_ihl(uint8_t *ip, uint8_t v)
{
	ip[0] = (uint8_t)((ip[0] & ~RK_IPV4_IHL_MASK) | (v & RK_IPV4_IHL_MASK));
}
static inline void rk_ipv4_set_tos(uint8_t *ip, uint8_t v) { ip[1] = v; }
static inline void
rk_ipv4_set_dscp(uint8_t *ip, uint8_t v)
{
	ip[1] = (uint8_t)((ip[1] & ~RK_IPV4_DSCP_MASK) | ((v << RK_IPV4_DSCP_SHIFT) & RK_IPV4_DSCP_MASK));
}
static inline void
rk_ipv4_set_ecn(uint8_t *ip, uint8_t v)
{
	ip[1] = (uint8_t)((ip[1] & ~RK_IPV4_ECN_MASK) | (v & RK_IPV4_ECN_MASK));
}
static inline void rk_ipv4_set_total_len(uint8_t *ip, uint16_t v) { rk_put_be16(ip + 2, v); }
static inline void rk_ipv4_set_id(uint8_t *ip, uint16_t v) { rk_put_be16(ip + 4, v); }
static inline void rk_ipv4_set_frag(uint8_t *ip, uint16_t v) { rk_put_be16(ip + 6, v); }
/** Replace the bits @p mask of bytes 6-7 (flags, fragment offset) by those of @p v. */
static inline void
rk_ipv4_set_frag_bits(uint8_t *ip, uint16_t mask, uint16_t v)
{
	rk_put_be16(ip + 6, (uint16_t)((rk_get_be16(ip + 6) & ~mask) | (v & mask)));
}
static inline void rk_ipv4_set_reserved(uint8_t *ip, uint8_t v) { rk_ipv4_set_frag_bits(ip, RK_IPV4_RESERVED, v ? 0xffff : 0); }
static inline void rk_ipv4_set_df(uint8_t *ip, uint8_t v) { rk_ipv4_set_frag_bits(ip, RK_IPV4_DF, v ? 0xffff : 0); }
static inline void rk_ipv4_set_mf(uint8_t *ip, uint8_t v) { rk_ipv4_set_frag_bits(ip, RK_IPV4_MF, v ? 0xffff : 0); }
static inline void rk_ipv4_set_frag_off(uint8_t *ip, uint16_t v) { rk_ipv4_set_frag_bits(ip, RK_IPV4_FRAG_OFF_MASK, v); }
static inline void rk_ipv4_set_ttl(uint8_t *ip, uint8_t v) { ip[8] = v; }
static inline void rk_ipv4_set_protocol(uint8_t *ip, uint8_t v) { ip[9] = v; }
static inline void rk_ipv4_set_hdr_csum(uint8_t *ip, uint16_t v) { rk_put_be16(ip + 10, v); }
static inline void rk_ipv4_set_src(uint8_t *ip, const uint8_t a[4]) { memcpy(ip + 12, a, 4); }
static inline void rk_ipv4_set_dst(uint8_t *ip, const uint8_t a[4]) { memcpy(ip + 16, a, 4); }

/**
 * The Header Checksum the IPv4 header at @p ip should carry (RFC 791 3.1,
 * computed as RFC 1071 describes): the one's complement of the one's
 * complement sum of its IHL * 4 bytes (20 when IHL is below 5), the
 * checksum field counted as zero. The tree's one IPv4 checksum.
 * @return the value, in host order, for rk_ipv4_set_hdr_csum().
 */
uint16_t rk_ipv4_csum(const uint8_t *ip);

/** Compute and store the header checksum of the IPv4 header at @p ip. */
static inline void rk_ipv4_fill_csum(uint8_t *ip) { rk_ipv4_set_hdr_csum(ip, rk_ipv4_csum(ip)); }

/** Whether the IPv4 header at @p ip carries the right checksum. */
static inline int rk_ipv4_csum_ok(const uint8_t *ip) { return rk_ipv4_csum(ip) == rk_ipv4_hdr_csum(ip); }

/** Field table of the IPv4 header without options (RFC 791 3.1). */
extern const struct rk_header_desc rk_ipv4_desc;

#endif /* RK_IPV4_H */
