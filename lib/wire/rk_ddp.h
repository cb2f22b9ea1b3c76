/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_ddp.h
 * Direct Data Placement headers (RFC 5041 4), carried
 * as the start of every MPA ULPDU. Big-endian on the wire.
 *
 * Tagged buffer model, 14 bytes (RFC 5041 4.2):
 *
 *     byte 0       T(7)=1 L(6) Rsvd(5:2) DV(1:0)
 *     byte 1       RsvdULP (8 bits; RDMAP puts its control field here)
 *     bytes 2-5    STag
 *     bytes 6-13   TO (tagged offset, 64 bits)
 *
 * Untagged buffer model, 18 bytes (RFC 5041 4.3):
 *
 *     byte 0       T(7)=0 L(6) Rsvd(5:2) DV(1:0)
 *     bytes 1-5    RsvdULP (40 bits; RDMAP: control byte, then a 32-bit
 *                  word that is the Invalidate STag of Send with Invalidate)
 *     bytes 6-9    QN  (queue number)
 *     bytes 10-13  MSN (message sequence number)
 *     bytes 14-17  MO  (message offset, bytes)
 *
 * DV, the DDP version, is 1. Rsvd is sent as 0 and not checked on receive.
 * Accessors take a pointer to the first DDP byte, read or write exactly
 * the field's bits and leave every other bit alone.
 */
#ifndef RK_DDP_H
#define RK_DDP_H

#include <stdint.h>

#include "rk_byteorder.h"
#include "rk_field.h"

#define RK_DDP_TAGGED_LEN 14
#define RK_DDP_UNTAGGED_LEN 18
/** The DDP version this library speaks (RFC 5041 4.1). */
#define RK_DDP_VERSION 1

#define RK_DDP_T 0x80
#define RK_DDP_L 0x40
#define RK_DDP_RSVD_MASK 0x3c
#define RK_DDP_RSVD_SHIFT 2
#define RK_DDP_DV_MASK 0x03

#define RK_DDP_RSVDULP_OFF 1
#define RK_DDP_STAG_OFF 2
#define RK_DDP_TO_OFF 6
#define RK_DDP_RSVDULP32_OFF 2
#define RK_DDP_QN_OFF 6
#define RK_DDP_MSN_OFF 10
#define RK_DDP_MO_OFF 14
/** Mask of the 40-bit untagged RsvdULP field. */
#define RK_DDP_RSVDULP40_MASK 0xffffffffffull

/** Tagged DDP header in host order (rk_ddp_tagged_unpack / _pack). */
struct rk_ddp_tagged_fields {
	uint8_t t, l, rsvd, dv;
	uint8_t rsvd_ulp;   /**< 8 bits */
	uint32_t stag;
	uint64_t to;
};

/** Untagged DDP header in host order (rk_ddp_untagged_unpack / _pack). */
struct rk_ddp_untagged_fields {
	uint8_t t, l, rsvd, dv;
	uint64_t rsvd_ulp;  /**< 40 bits: byte 1 then bytes 2-5 */
	uint32_t qn, msn, mo;
};

/* Field lists, in wire order (rk_field.h explains the rows). */
/** Control byte: both buffer models. */
#define RK_DDP_CTRL_FIELDS(X, T)                                                   \
	X(ddp, t, "T", "t", 0, 1, RK_DDP_T, uint8_t, "RFC 5041 4.1")                    \
	X(ddp, l, "L", "l", 0, 1, RK_DDP_L, uint8_t, "RFC 5041 4.1")                    \
	X(ddp, rsvd, "Rsvd", "rsvd", 0, 1, RK_DDP_RSVD_MASK, uint8_t, "RFC 5041 4.1")   \
	X(ddp, dv, "DV", "dv", 0, 1, RK_DDP_DV_MASK, uint8_t, "RFC 5041 4.1")
/** Tagged buffer model. */
#define RK_DDP_TAGGED_FIELDS(X, T)                                                 \
	X(ddp_tagged, rsvd_ulp, "RsvdULP", "rsvd_ulp", RK_DDP_RSVDULP_OFF, 1, 0xff,      \
	  uint8_t, "RFC 5041 4.2")                                                       \
	X(ddp, stag, "STag", "stag", RK_DDP_STAG_OFF, 4, 0xffffffff, uint32_t, "RFC 5041 4.2") \
	X(ddp, to, "TO", "to", RK_DDP_TO_OFF, 8, ~0ull, uint64_t, "RFC 5041 4.2")
/** Untagged buffer model. */
#define RK_DDP_UNTAGGED_FIELDS(X, T)                                               \
	X(ddp_untagged, rsvd_ulp, "RsvdULP", "rsvd_ulp", RK_DDP_RSVDULP_OFF, 5,          \
	  RK_DDP_RSVDULP40_MASK, uint64_t, "RFC 5041 4.3")                               \
	X(ddp, qn, "QN", "qn", RK_DDP_QN_OFF, 4, 0xffffffff, uint32_t, "RFC 5041 4.3")  \
	X(ddp, msn, "MSN", "msn", RK_DDP_MSN_OFF, 4, 0xffffffff, uint32_t, "RFC 5041 4.3") \
	X(ddp, mo, "MO", "mo", RK_DDP_MO_OFF, 4, 0xffffffff, uint32_t, "RFC 5041 4.3")

/*
 * rk_ddp_t() ... rk_ddp_mo(), rk_ddp_tagged_rsvd_ulp() (8 bits),
 * rk_ddp_untagged_rsvd_ulp() (40 bits) and their setters.
 */
RK_DDP_CTRL_FIELDS(RK_FIELD_ACCESSORS, RK_FIELD_NONE)
RK_DDP_TAGGED_FIELDS(RK_FIELD_ACCESSORS, RK_FIELD_NONE)
RK_DDP_UNTAGGED_FIELDS(RK_FIELD_ACCESSORS, RK_FIELD_NONE)

/** First 8 bits of RsvdULP (byte 1), in both buffer models. */
static inline uint8_t rk_ddp_rsvdulp8(const uint8_t *h) { return rk_ddp_tagged_rsvd_ulp(h); }
static inline void rk_ddp_set_rsvdulp8(uint8_t *h, uint8_t v) { rk_ddp_tagged_set_rsvd_ulp(h, v); }

/** RsvdULP bits 8..39 of the untagged header (bytes 2-5). */
static inline uint32_t
rk_ddp_rsvdulp32(const uint8_t *h)
{
	return (uint32_t)rk_field_get_be(h, RK_DDP_RSVDULP32_OFF, 4, 0xffffffff);
}
static inline void
rk_ddp_set_rsvdulp32(uint8_t *h, uint32_t v)
{
	rk_field_set_be(h, RK_DDP_RSVDULP32_OFF, 4, 0xffffffff, v);
}

/** Header length implied by the T bit of the control byte at @p h: 14 or 18. */
static inline unsigned int
rk_ddp_hdr_len(const uint8_t *h)
{
	return rk_ddp_t(h) ? RK_DDP_TAGGED_LEN : RK_DDP_UNTAGGED_LEN;
}

/** Decode the 14 tagged DDP bytes at @p h. */
void rk_ddp_tagged_unpack(const uint8_t *h, struct rk_ddp_tagged_fields *f);

/** Encode @p f into the 14 tagged DDP bytes at @p h (all bits written). */
void rk_ddp_tagged_pack(uint8_t *h, const struct rk_ddp_tagged_fields *f);

/** Decode the 18 untagged DDP bytes at @p h. */
void rk_ddp_untagged_unpack(const uint8_t *h, struct rk_ddp_untagged_fields *f);

/** Encode @p f into the 18 untagged DDP bytes at @p h (all bits written). */
void rk_ddp_untagged_pack(uint8_t *h, const struct rk_ddp_untagged_fields *f);

/** Field tables of the tagged and untagged DDP headers (RFC 5041 4). */
extern const struct rk_header_desc rk_ddp_tagged_desc, rk_ddp_untagged_desc;

#endif /* RK_DDP_H */
