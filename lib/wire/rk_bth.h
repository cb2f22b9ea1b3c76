/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_bth.h
 * Base Transport Header (IBTA Vol1 9.2), 12 bytes:
 *
 *     byte 0      OpCode
 *     byte 1      SE(7) M(6) PadCnt(5:4) TVer(3:0)
 *     bytes 2-3   P_Key
 *     byte 4      FECN(7) BECN(6) Resv6a(5:0)     (FECN/BECN: Annex A17)
 *     bytes 5-7   DestQP (24 bits)
 *     byte 8      AckReq(7) Resv7(6:0)
 *     bytes 9-11  PSN (24 bits)
 *
 * Accessors take a pointer to the first BTH byte, read or write exactly the
 * field's bits, and leave every other bit alone.
 */
#ifndef RK_BTH_H
#define RK_BTH_H

#include <stdint.h>

#include "rk_byteorder.h"
#include "rk_field.h"

#define RK_BTH_LEN 12

#define RK_BTH_SE 0x80
#define RK_BTH_MIG_REQ 0x40
#define RK_BTH_PAD_MASK 0x30
#define RK_BTH_PAD_SHIFT 4
#define RK_BTH_TVER_MASK 0x0f
#define RK_BTH_FECN 0x80
#define RK_BTH_BECN 0x40
#define RK_BTH_RESV6A_MASK 0x3f
#define RK_BTH_ACK_REQ 0x80
#define RK_BTH_RESV7_MASK 0x7f
#define RK_PSN_MASK 0xffffffu
#define RK_QPN_MASK 0xffffffu

/** BTH fields in host order (rk_bth_unpack / rk_bth_pack). */
struct rk_bth_fields {
	uint8_t opcode;
	uint8_t se, mig_req, pad_cnt, tver;
	uint16_t p_key;
	uint8_t fecn, becn, resv6a;
	uint32_t dest_qp;
	uint8_t ack_req, resv7;
	uint32_t psn;
};

static inline uint8_t rk_bth_opcode(const uint8_t *b) { return b[0]; }
static inline uint8_t rk_bth_se(const uint8_t *b) { return !!(b[1] & RK_BTH_SE); }
static inline uint8_t rk_bth_mig_req(const uint8_t *b) { return !!(b[1] & RK_BTH_MIG_REQ); }
static inline uint8_t rk_bth_pad_cnt(const uint8_t *b) { return (b[1] & RK_BTH_PAD_MASK) >> RK_BTH_PAD_SHIFT; }
static inline uint8_t rk_bth_tver(const uint8_t *b) { return b[1] & RK_BTH_TVER_MASK; }
static inline uint16_t rk_bth_p_key(const uint8_t *b) { return rk_get_be16(b + 2); }
static inline uint8_t rk_bth_fecn(const uint8_t *b) { return !!(b[4] & RK_BTH_FECN); }
static inline uint8_t rk_bth_becn(const uint8_t *b) { return !!(b[4] & RK_BTH_BECN); }
static inline uint8_t rk_bth_resv6a(const uint8_t *b) { return b[4] & RK_BTH_RESV6A_MASK; }
static inline uint32_t rk_bth_dest_qp(const uint8_t *b) { return rk_get_be24(b + 5); }
static inline uint8_t rk_bth_ack_req(const uint8_t *b) { return !!(b[8] & RK_BTH_ACK_REQ); }
static inline uint8_t rk_bth_resv7(const uint8_t *b) { return b[8] & RK_BTH_RESV7_MASK; }
static inline uint32_t rk_bth_psn(const uint8_t *b) { return rk_get_be24(b + 9); }

static inline void rk_bth_set_opcode(uint8_t *b, uint8_t v) { b[0] = v; }
static inline void
rk_bth_set_se(uint8_t *b, uint8_t v)
{
	b[1] = (uint8_t)((b[1] & ~RK_BTH_SE) | (v ? RK_BTH_SE : 0));
}
static inline void
rk_bth_set_mig_req(uint8_t *b, uint8_t v)
{
	b[1] = (uint8_t)((b[1] & ~RK_BTH_MIG_REQ) | (v ? RK_BTH_MIG_REQ : 0));
}
static inline void
rk_bth_set_pad_cnt(uint8_t *b, uint8_t v)
{
	b[1] = (uint8_t)((b[1] & ~RK_BTH_PAD_MASK) |
			 ((v << RK_BTH_PAD_SHIFT) & RK_BTH_PAD_MASK));
}
static inline void
rk_bth_set_tver(uint8_t *b, uint8_t v)
{
	b[1] = (uint8_t)((b[1] & ~RK_BTH_TVER_MASK) | (v & RK_BTH_TVER_MASK));
}
static inline void rk_bth_set_p_key(uint8_t *b, uint16_t v) { rk_put_be16(b + 2, v); }
static inline void
rk_bth_set_fecn(uint8_t *b, uint8_t v)
{
	b[4] = (uint8_t)((b[4] & ~RK_BTH_FECN) | (v ? RK_BTH_FECN : 0));
}
static inline void
rk_bth_set_becn(uint8_t *b, uint8_t v)
{
	b[4] = (uint8_t)((b[4] & ~RK_BTH_BECN) | (v ? RK_BTH_BECN : 0));
}
static inline void
rk_bth_set_resv6a(uint8_t *b, uint8_t v)
{
	b[4] = (uint8_t)((b[4] & ~RK_BTH_RESV6A_MASK) | (v & RK_BTH_RESV6A_MASK));
}
static inline void rk_bth_set_dest_qp(uint8_t *b, uint32_t v) { rk_put_be24(b + 5, v); }
static inline void
rk_bth_set_ack_req(uint8_t *b, uint8_t v)
{
	b[8] = (uint8_t)((b[8] & ~RK_BTH_ACK_REQ) | (v ? RK_BTH_ACK_REQ : 0));
}
static inline void
rk_bth_set_resv7(uint8_t *b, uint8_t v)
{
	b[8] = (uint8_t)((b[8] & ~RK_BTH_RESV7_MASK) | (v & RK_BTH_RESV7_MASK));
}
static inline void rk_bth_set_psn(uint8_t *b, uint32_t v) { rk_put_be24(b + 9, v); }

/** Decode the 12 BTH bytes at @p b into host-order fields. */
void rk_bth_unpack(const uint8_t *b, struct rk_bth_fields *f);

/** Encode @p f into the 12 BTH bytes at @p b (all bits written). */
void rk_bth_pack(uint8_t *b, const struct rk_bth_fields *f);

/** Field table of the BTH (IBTA Vol1 9.2). */
extern const struct rk_header_desc rk_bth_desc;

#endif /* RK_BTH_H */
