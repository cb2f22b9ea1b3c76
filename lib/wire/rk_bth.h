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

/** The BTH fields, in wire order (rk_field.h explains the rows). */
#define RK_BTH_FIELDS(X, T)                                                        \
	X(bth, opcode, "OpCode", "opcode", 0, 1, 0xff, uint8_t, "IBTA Vol1 9.2")       \
	X(bth, se, "SE", "se", 1, 1, RK_BTH_SE, uint8_t, "IBTA Vol1 9.2")               \
	X(bth, mig_req, "M", "mig_req", 1, 1, RK_BTH_MIG_REQ, uint8_t, "IBTA Vol1 9.2") \
	X(bth, pad_cnt, "PadCnt", "pad_cnt", 1, 1, RK_BTH_PAD_MASK, uint8_t, "IBTA Vol1 9.2") \
	X(bth, tver, "TVer", "tver", 1, 1, RK_BTH_TVER_MASK, uint8_t, "IBTA Vol1 9.2") \
	X(bth, p_key, "P_Key", "p_key", 2, 2, 0xffff, uint16_t, "IBTA Vol1 9.2")       \
	X(bth, fecn, "FECN", "fecn", 4, 1, RK_BTH_FECN, uint8_t, "IBTA Vol1 A17.3.4")   \
	X(bth, becn, "BECN", "becn", 4, 1, RK_BTH_BECN, uint8_t, "IBTA Vol1 A17.3.4")   \
	X(bth, resv6a, "Resv6a", "resv6a", 4, 1, RK_BTH_RESV6A_MASK, uint8_t, "IBTA Vol1 9.2") \
	X(bth, dest_qp, "DestQP", "dest_qp", 5, 3, RK_QPN_MASK, uint32_t, "IBTA Vol1 9.2") \
	X(bth, ack_req, "AckReq", "ack_req", 8, 1, RK_BTH_ACK_REQ, uint8_t, "IBTA Vol1 9.2") \
	X(bth, resv7, "Resv7", "resv7", 8, 1, RK_BTH_RESV7_MASK, uint8_t, "IBTA Vol1 9.2") \
	X(bth, psn, "PSN", "psn", 9, 3, RK_PSN_MASK, uint32_t, "IBTA Vol1 9.2")

/* rk_bth_opcode() ... rk_bth_psn(), rk_bth_set_opcode() ... rk_bth_set_psn(). */
RK_BTH_FIELDS(RK_FIELD_ACCESSORS, RK_FIELD_NONE)

/** Decode the 12 BTH bytes at @p b into host-order fields. */
void rk_bth_unpack(const uint8_t *b, struct rk_bth_fields *f);

/** Encode @p f into the 12 BTH bytes at @p b (all bits written). */
void rk_bth_pack(uint8_t *b, const struct rk_bth_fields *f);

/** Field table of the BTH (IBTA Vol1 9.2). */
extern const struct rk_header_desc rk_bth_desc;

#endif /* RK_BTH_H */
