/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_udp.h
 * UDP header (RFC 768), 8 bytes:
 *
 *     bytes 0-1  Source Port        RoCEv2: flow entropy (IBTA Annex A17.3.2.1)
 *     bytes 2-3  Destination Port   RoCEv2: 4791
 *     bytes 4-5  Length             bytes, header included
 *     bytes 6-7  Checksum           0: none (IPv4; RoCEv2 also over IPv6, A17.3.2.4)
 *
 * Accessors take a pointer to the first header byte.
 */
#ifndef RK_UDP_H
#define RK_UDP_H

#include <stdint.h>

#include "rk_byteorder.h"
#include "rk_field.h"

#define RK_UDP_HLEN 8

/** The UDP fields, in wire order (rk_field.h explains the rows). */
#define RK_UDP_FIELDS(X, T)                                                        \
	X(udp, src_port, "Source Port", "src_port", 0, 2, 0xffff, uint16_t, "RFC 768") \
	X(udp, dst_port, "Destination Port", "dst_port", 2, 2, 0xffff, uint16_t, "RFC 768") \
	X(udp, len, "Length", "len", 4, 2, 0xffff, uint16_t, "RFC 768")                \
	X(udp, csum, "Checksum", "csum", 6, 2, 0xffff, uint16_t, "RFC 768")

/* rk_udp_src_port() ... rk_udp_csum() and their setters. */
RK_UDP_FIELDS(RK_FIELD_ACCESSORS, RK_FIELD_NONE)

/** Write a whole UDP header: ports, Length @p len (header included), checksum 0. */
static inline void
rk_udp_write(uint8_t *u, uint16_t src_port, uint16_t dst_port, uint16_t len)
{
	rk_udp_set_src_port(u, src_port);
	rk_udp_set_dst_port(u, dst_port);
	rk_udp_set_len(u, len);
	rk_udp_set_csum(u, 0);
}

/** Field table of the UDP header (RFC 768). */
extern const struct rk_header_desc rk_udp_desc;

#endif /* RK_UDP_H */
