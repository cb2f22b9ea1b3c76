/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_tcp_hdr.h
 * TCP header (RFC 9293 3.1), 20 bytes without options:
 *
 *     bytes 0-1    Source Port
 *     bytes 2-3    Destination Port
 *     bytes 4-7    Sequence Number
 *     bytes 8-11   Acknowledgment Number
 *     byte 12      Data Offset(7:4, 32-bit words) Reserved(3:0)
 *     byte 13      CWR ECE URG ACK PSH RST SYN FIN  (CWR, ECE: RFC 3168 6.1)
 *     bytes 14-15  Window
 *     bytes 16-17  Checksum
 *     bytes 18-19  Urgent Pointer
 *
 * Accessors take a pointer to the first header byte, read or write exactly
 * the field's bits, and leave every other bit alone.
 */
#ifndef RK_TCP_HDR_H
#define RK_TCP_HDR_H

#include <stdint.h>

#include "rk_byteorder.h"
#include "rk_field.h"

#define RK_TCP_HLEN 20
#define RK_TCP_HLEN_MAX 60

#define RK_TCP_DOFF_MASK 0xf0
#define RK_TCP_RESERVED_MASK 0x0f
/** Control bits of byte 13 (rk_tcp_flags()). */
#define RK_TCP_FIN 0x01
#define RK_TCP_SYN 0x02
#define RK_TCP_RST 0x04
#define RK_TCP_PSH 0x08
#define RK_TCP_ACK 0x10
#define RK_TCP_URG 0x20
#define RK_TCP_ECE 0x40
#define RK_TCP_CWR 0x80

static inline uint16_t rk_tcp_src_port(const uint8_t *t) { return rk_get_be16(t); }
static inline uint16_t rk_tcp_dst_port(const uint8_t *t) { return rk_get_be16(t + 2); }
static inline uint32_t rk_tcp_seq(const uint8_t *t) { return rk_get_be32(t + 4); }
static inline uint32_t rk_tcp_ack_num(const uint8_t *t) { return rk_get_be32(t + 8); }
static inline uint8_t rk_tcp_doff(const uint8_t *t) { return t[12] >> 4; }
/** Header length in bytes (Data Offset * 4). */
static inline uint32_t rk_tcp_hlen(const uint8_t *t) { return (uint32_t)(t[12] >> 4) * 4; }
static inline uint8_t rk_tcp_reserved(const uint8_t *t) { return t[12] & RK_TCP_RESERVED_MASK; }
/** All eight control bits of byte 13 (RK_TCP_FIN ... RK_TCP_CWR). */
static inline uint8_t rk_tcp_flags(const uint8_t *t) { return t[13]; }
static inline uint8_t rk_tcp_cwr(const uint8_t *t) { return !!(t[13] & RK_TCP_CWR); }
static inline uint8_t rk_tcp_ece(const uint8_t *t) { return !!(t[13] & RK_TCP_ECE); }
static inline uint8_t rk_tcp_urg(const uint8_t *t) { return !!(t[13] & RK_TCP_URG); }
static inline uint8_t rk_tcp_ack(const uint8_t *t) { return !!(t[13] & RK_TCP_ACK); }
static inline uint8_t rk_tcp_psh(const uint8_t *t) { return !!(t[13] & RK_TCP_PSH); }
static inline uint8_t rk_tcp_rst(const uint8_t *t) { return !!(t[13] & RK_TCP_RST); }
static inline uint8_t rk_tcp_syn(const uint8_t *t) { return !!(t[13] & RK_TCP_SYN); }
static inline uint8_t rk_tcp_fin(const uint8_t *t) { return !!(t[13] & RK_TCP_FIN); }
static inline uint16_t rk_tcp_window(const uint8_t *t) { return rk_get_be16(t + 14); }
static inline uint16_t rk_tcp_csum(const uint8_t *t) { return rk_get_be16(t + 16); }
static inline uint16_t rk_tcp_urg_ptr(const uint8_t *t) { return rk_get_be16(t + 18); }

static inline void rk_tcp_set_src_port(uint8_t *t, uint16_t v) { rk_put_be16(t, v); }
static inline void rk_tcp_set_dst_port(uint8_t *t, uint16_t v) { rk_put_be16(t + 2, v); }
static inline void rk_tcp_set_seq(uint8_t *t, uint32_t v) { rk_put_be32(t + 4, v); }
static inline void rk_tcp_set_ack_num(uint8_t *t, uint32_t v) { rk_put_be32(t + 8, v); }
static inline void
rk_tcp_set_doff(uint8_t *t, uint8_t v)
{
	t[12] = (uint8_t)((t[12] & ~RK_TCP_DOFF_MASK) | ((v << 4) & RK_TCP_DOFF_MASK));
}
static inline void
rk_tcp_set_reserved(uint8_t *t, uint8_t v)
{
	t[12] = (uint8_t)((t[12] & ~RK_TCP_RESERVED_MASK) | (v & RK_TCP_RESERVED_MASK));
}
static inline void rk_tcp_set_flags(uint8_t *t, uint8_t v) { t[13] = v; }
static inline void
rk_tcp_set_flag(uint8_t *t, uint8_t bit, uint8_t v)
{
	t[13] = (uint8_t)((t[13] & ~bit) | (v ? bit : 0));
}
static inline void rk_tcp_set_cwr(uint8_t *t, uint8_t v) { rk_tcp_set_flag(t, RK_TCP_CWR, v); }
static inline void rk_tcp_set_ece(uint8_t *t, uint8_t v) { rk_tcp_set_flag(t, RK_TCP_ECE, v); }
static inline void rk_tcp_set_urg(uint8_t *t, uint8_t v) { rk_tcp_set_flag(t, RK_TCP_URG, v); }
static inline void rk_tcp_set_ack(uint8_t *t, uint8_t v) { rk_tcp_set_flag(t, RK_TCP_ACK, v); }
static inline void rk_tcp_set_psh(uint8_t *t, uint8_t v) { rk_tcp_set_flag(t, RK_TCP_PSH, v); }
static inline void rk_tcp_set_rst(uint8_t *t, uint8_t v) { rk_tcp_set_flag(t, RK_TCP_RST, v); }
static inline void rk_tcp_set_syn(uint8_t *t, uint8_t v) { rk_tcp_set_flag(t, RK_TCP_SYN, v); }
static inline void rk_tcp_set_fin(uint8_t *t, uint8_t v) { rk_tcp_set_flag(t, RK_TCP_FIN, v); }
static inline void rk_tcp_set_window(uint8_t *t, uint16_t v) { rk_put_be16(t + 14, v); }
static inline void rk_tcp_set_csum(uint8_t *t, uint16_t v) { rk_put_be16(t + 16, v); }
static inline void rk_tcp_set_urg_ptr(uint8_t *t, uint16_t v) { rk_put_be16(t + 18, v); }

/** Field table of the TCP header without options (RFC 9293 3.1). */
extern const struct rk_header_desc rk_tcp_desc;

#endif /* RK_TCP_HDR_H */
