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

#define RK_IPV4_TOS_OFF 1
#define RK_IPV4_FLAGS_OFF 6
#define RK_IPV4_SRC_OFF 12
#define RK_IPV4_DST_OFF 16

/** The IPv4 fields, in wire order (rk_field.h explains the rows). */
#define RK_IPV4_FIELDS(X, T)                                                       \
	X(ipv4, version, "Version", "version", 0, 1, RK_IPV4_VERSION_MASK, uint8_t, "RFC 791 3.1") \
	X(ipv4, ihl, "IHL", "ihl", 0, 1, RK_IPV4_IHL_MASK, uint8_t, "RFC 791 3.1")    \
	X(ipv4, dscp, "DSCP", "dscp", RK_IPV4_TOS_OFF, 1, RK_IPV4_DSCP_MASK, uint8_t, "RFC 2474 3") \
	X(ipv4, ecn, "ECN", "ecn", RK_IPV4_TOS_OFF, 1, RK_IPV4_ECN_MASK, uint8_t, "RFC 3168 5") \
	X(ipv4, total_len, "Total Length", "total_len", 2, 2, 0xffff, uint16_t, "RFC 791 3.1") \
	X(ipv4, id, "Identification", "id", 4, 2, 0xffff, uint16_t, "RFC 791 3.1")   \
	X(ipv4, reserved, "Reserved", "reserved", RK_IPV4_FLAGS_OFF, 2, RK_IPV4_RESERVED, \
	  uint8_t, "RFC 791 3.1")                                                        \
	X(ipv4, df, "DF", "df", RK_IPV4_FLAGS_OFF, 2, RK_IPV4_DF, uint8_t, "RFC 791 3.1") \
	X(ipv4, mf, "MF", "mf", RK_IPV4_FLAGS_OFF, 2, RK_IPV4_MF, uint8_t, "RFC 791 3.1") \
	X(ipv4, frag_off, "Fragment Offset", "frag_off", RK_IPV4_FLAGS_OFF, 2,       \
	  RK_IPV4_FRAG_OFF_MASK, uint16_t, "RFC 791 3.1")                                \
	X(ipv4, ttl, "Time to Live", "ttl", 8, 1, 0xff, uint8_t, "RFC 791 3.1")       \
	X(ipv4, protocol, "Protocol", "protocol", 9, 1, 0xff, uint8_t, "RFC 791 3.1") \
	X(ipv4, hdr_csum, "Header Checksum", "hdr_csum", 10, 2, 0xffff, uint16_t, "RFC 791 3.1") \
	T(ipv4, src, "Source Address", "src", RK_IPV4_SRC_OFF, 4, 0xffffffff, void, "RFC 791 3.1") \
	T(ipv4, dst, "Destination Address", "dst", RK_IPV4_DST_OFF, 4, 0xffffffff, void, "RFC 791 3.1")

/* rk_ipv4_version() ... rk_ipv4_hdr_csum() and their setters. */
RK_IPV4_FIELDS(RK_FIELD_ACCESSORS, RK_FIELD_NONE)

/** Header length in bytes (IHL * 4). */
static inline uint32_t rk_ipv4_hlen(const uint8_t *ip) { return (uint32_t)rk_ipv4_ihl(ip) * 4; }
/** The whole second byte (the former TOS): DSCP and ECN together. */
static inline uint8_t rk_ipv4_tos(const uint8_t *ip) { return ip[RK_IPV4_TOS_OFF]; }
static inline void rk_ipv4_set_tos(uint8_t *ip, uint8_t v) { ip[RK_IPV4_TOS_OFF] = v; }
/** Flags and fragment offset together (bytes 6-7). */
static inline uint16_t rk_ipv4_frag(const uint8_t *ip) { return rk_get_be16(ip + RK_IPV4_FLAGS_OFF); }
static inline void rk_ipv4_set_frag(uint8_t *ip, uint16_t v) { rk_put_be16(ip + RK_IPV4_FLAGS_OFF, v); }
static inline const uint8_t *rk_ipv4_src(const uint8_t *ip) { return ip + RK_IPV4_SRC_OFF; }
static inline const uint8_t *rk_ipv4_dst(const uint8_t *ip) { return ip + RK_IPV4_DST_OFF; }
static inline void rk_ipv4_set_src(uint8_t *ip, const uint8_t a[4]) { memcpy(ip + RK_IPV4_SRC_OFF, a, 4); }
static inline void rk_ipv4_set_dst(uint8_t *ip, const uint8_t a[4]) { memcpy(ip + RK_IPV4_DST_OFF, a, 4); }

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
