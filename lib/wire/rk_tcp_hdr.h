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

#define RK_TCP_FLAGS_OFF 13

/** The TCP fields, in wire order (rk_field.h explains the rows). */
#define RK_TCP_FIELDS(X, T)                                                        \
	X(tcp, src_port, "Source Port", "src_port", 0, 2, 0xffff, uint16_t, "RFC 9293 3.1") \
	X(tcp, dst_port, "Destination Port", "dst_port", 2, 2, 0xffff, uint16_t, "RFC 9293 3.1") \
	X(tcp, seq, "Sequence Number", "seq", 4, 4, 0xffffffff, uint32_t, "RFC 9293 3.1") \
	X(tcp, ack_num, "Acknowledgment Number", "ack_num", 8, 4, 0xffffffff, uint32_t, \
	  "RFC 9293 3.1")                                                                \
	X(tcp, doff, "Data Offset", "doff", 12, 1, RK_TCP_DOFF_MASK, uint8_t, "RFC 9293 3.1") \
	X(tcp, reserved, "Reserved", "reserved", 12, 1, RK_TCP_RESERVED_MASK, uint8_t, \
	  "RFC 9293 3.1")                                                                \
	X(tcp, cwr, "CWR", "cwr", RK_TCP_FLAGS_OFF, 1, RK_TCP_CWR, uint8_t, "RFC 3168 6.1") \
	X(tcp, ece, "ECE", "ece", RK_TCP_FLAGS_OFF, 1, RK_TCP_ECE, uint8_t, "RFC 3168 6.1") \
	X(tcp, urg, "URG", "urg", RK_TCP_FLAGS_OFF, 1, RK_TCP_URG, uint8_t, "RFC 9293 3.1") \
	X(tcp, ack, "ACK", "ack", RK_TCP_FLAGS_OFF, 1, RK_TCP_ACK, uint8_t, "RFC 9293 3.1") \
	X(tcp, psh, "PSH", "psh", RK_TCP_FLAGS_OFF, 1, RK_TCP_PSH, uint8_t, "RFC 9293 3.1") \
	X(tcp, rst, "RST", "rst", RK_TCP_FLAGS_OFF, 1, RK_TCP_RST, uint8_t, "RFC 9293 3.1") \
	X(tcp, syn, "SYN", "syn", RK_TCP_FLAGS_OFF, 1, RK_TCP_SYN, uint8_t, "RFC 9293 3.1") \
	X(tcp, fin, "FIN", "fin", RK_TCP_FLAGS_OFF, 1, RK_TCP_FIN, uint8_t, "RFC 9293 3.1") \
	X(tcp, window, "Window", "window", 14, 2, 0xffff, uint16_t, "RFC 9293 3.1")    \
	X(tcp, csum, "Checksum", "csum", 16, 2, 0xffff, uint16_t, "RFC 9293 3.1")      \
	X(tcp, urg_ptr, "Urgent Pointer", "urg_ptr", 18, 2, 0xffff, uint16_t, "RFC 9293 3.1")

/* rk_tcp_src_port() ... rk_tcp_urg_ptr() and their setters. */
RK_TCP_FIELDS(RK_FIELD_ACCESSORS, RK_FIELD_NONE)

/** Header length in bytes (Data Offset * 4). */
static inline uint32_t rk_tcp_hlen(const uint8_t *t) { return (uint32_t)rk_tcp_doff(t) * 4; }
/** All eight control bits of byte 13 (RK_TCP_FIN ... RK_TCP_CWR). */
static inline uint8_t rk_tcp_flags(const uint8_t *t) { return t[RK_TCP_FLAGS_OFF]; }
static inline void rk_tcp_set_flags(uint8_t *t, uint8_t v) { t[RK_TCP_FLAGS_OFF] = v; }

/** Field table of the TCP header without options (RFC 9293 3.1). */
extern const struct rk_header_desc rk_tcp_desc;

#endif /* RK_TCP_HDR_H */
