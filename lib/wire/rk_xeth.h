/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_xeth.h
 * IBA extended transport headers (IBTA Vol1 9.3), big-endian on the wire:
 *
 *  RDETH  4 B  Resv8 | EECnxt(24)                            9.3.1 (RD; recognised)
 *  DETH   8 B  Q_Key(32) | Resv8 | SrcQP(24)                 9.3.2
 *  XRCETH 4 B  Resv8 | XRCSRQ(24)                            (XRC annex)
 *  RETH  16 B  VA(64) | R_Key(32) | DMALen(32)               9.3.3
 *  AtomicETH 28 B  VA(64) | R_Key(32) | SwapAddData(64) | CompareData(64)  9.3.4
 *  AETH   4 B  Syndrome(8) | MSN(24)                         9.3.5
 *  AtomicAckETH 8 B  OrigRemDt(64)                           9.3.6
 *  ImmDt  4 B  Immediate data (32)                           9.3.7
 *  IETH   4 B  R_Key to invalidate (32)                      9.3.8
 *  FETH   4 B  FLUSH extended header (IBTA 1.5), kept as one word
 *  CNP   16 B  reserved bytes after the BTH of opcode 0x81   A17.9.3
 *
 * Numbers inside 9.3 follow the headers' order in Vol1 1.2.1 (unconfirmed); the
 * field tables (rk_*_desc) cite the same numbers. Short prefixes: atmeth is
 * the AtomicETH, atmack the AtomicAckETH.
 */
#ifndef RK_XETH_H
#define RK_XETH_H

#include <stdint.h>

#include "rk_byteorder.h"
#include "rk_field.h"

#define RK_RDETH_LEN 4
#define RK_DETH_LEN 8
#define RK_XRCETH_LEN 4
#define RK_RETH_LEN 16
#define RK_ATMETH_LEN 28
#define RK_AETH_LEN 4
#define RK_ATMACK_LEN 8
#define RK_IMMDT_LEN 4
#define RK_IETH_LEN 4
#define RK_FETH_LEN 4
#define RK_CNP_RSVD_LEN 16
#define RK_ICRC_LEN 4

/** The Q_Key of the general services interface, QP1. */
#define RK_GSI_Q_KEY 0x80010000u

/* Field lists, in wire order (rk_field.h explains the rows); reserved bytes
 * are table rows only. */
#define RK_RDETH_FIELDS(X, T)                                                      \
	T(rdeth, resv8, "Resv8", "resv8", 0, 1, 0xff, uint8_t, "IBTA Vol1 9.3.1")      \
	X(rdeth, ee_cnxt, "EECnxt", "ee_cnxt", 1, 3, 0xffffff, uint32_t, "IBTA Vol1 9.3.1")
#define RK_DETH_FIELDS(X, T)                                                       \
	X(deth, q_key, "Q_Key", "q_key", 0, 4, 0xffffffff, uint32_t, "IBTA Vol1 9.3.2") \
	T(deth, resv8, "Resv8", "resv8", 4, 1, 0xff, uint8_t, "IBTA Vol1 9.3.2")        \
	X(deth, src_qp, "SrcQP", "src_qp", 5, 3, 0xffffff, uint32_t, "IBTA Vol1 9.3.2")
#define RK_XRCETH_FIELDS(X, T)                                                     \
	T(xrceth, resv8, "Resv8", "resv8", 0, 1, 0xff, uint8_t, "IBTA Vol1 9.3 XRCETH") \
	X(xrceth, xrc_srq, "XRCSRQ", "xrc_srq", 1, 3, 0xffffff, uint32_t, "IBTA Vol1 9.3 XRCETH")
/* FETH: one 32-bit word, read with rk_get_be32(). */
#define RK_FETH_FIELDS(X, T) \
	T(feth, feth, "FETH", "feth", 0, 4, 0xffffffff, uint32_t, "IBTA Vol1 1.5 FLUSH")
#define RK_RETH_FIELDS(X, T)                                                       \
	X(reth, va, "VA", "va", 0, 8, ~0ull, uint64_t, "IBTA Vol1 9.3.3")                \
	X(reth, r_key, "R_Key", "r_key", 8, 4, 0xffffffff, uint32_t, "IBTA Vol1 9.3.3")  \
	X(reth, dma_len, "DMALen", "dma_len", 12, 4, 0xffffffff, uint32_t, "IBTA Vol1 9.3.3")
#define RK_ATMETH_FIELDS(X, T)                                                     \
	X(atmeth, va, "VA", "va", 0, 8, ~0ull, uint64_t, "IBTA Vol1 9.3.4")              \
	X(atmeth, r_key, "R_Key", "r_key", 8, 4, 0xffffffff, uint32_t, "IBTA Vol1 9.3.4") \
	X(atmeth, swap_add, "SwapAddData", "swap_add", 12, 8, ~0ull, uint64_t, "IBTA Vol1 9.3.4") \
	X(atmeth, compare, "CompareData", "compare", 20, 8, ~0ull, uint64_t, "IBTA Vol1 9.3.4")
/* AETH: syndrome byte then 24-bit MSN. */
#define RK_AETH_FIELDS(X, T)                                                       \
	X(aeth, syndrome, "Syndrome", "syndrome", 0, 1, 0xff, uint8_t, "IBTA Vol1 9.3.5") \
	X(aeth, msn, "MSN", "msn", 1, 3, 0xffffff, uint32_t, "IBTA Vol1 9.3.5")
#define RK_ATMACK_FIELDS(X, T) \
	X(atmack, orig_rem_dt, "OrigRemDt", "orig_rem_dt", 0, 8, ~0ull, uint64_t, "IBTA Vol1 9.3.6")
#define RK_IMMDT_FIELDS(X, T) \
	X(immdt, imm, "ImmDt", "imm", 0, 4, 0xffffffff, uint32_t, "IBTA Vol1 9.3.7")
#define RK_IETH_FIELDS(X, T) \
	X(ieth, r_key, "R_Key", "r_key", 0, 4, 0xffffffff, uint32_t, "IBTA Vol1 9.3.8")

/* Accessors rk_<hdr>_<field>() and rk_<hdr>_set_<field>() of each list. */
RK_RDETH_FIELDS(RK_FIELD_ACCESSORS, RK_FIELD_NONE)
RK_DETH_FIELDS(RK_FIELD_ACCESSORS, RK_FIELD_NONE)
RK_XRCETH_FIELDS(RK_FIELD_ACCESSORS, RK_FIELD_NONE)
RK_RETH_FIELDS(RK_FIELD_ACCESSORS, RK_FIELD_NONE)
RK_ATMETH_FIELDS(RK_FIELD_ACCESSORS, RK_FIELD_NONE)
RK_AETH_FIELDS(RK_FIELD_ACCESSORS, RK_FIELD_NONE)
RK_ATMACK_FIELDS(RK_FIELD_ACCESSORS, RK_FIELD_NONE)
RK_IMMDT_FIELDS(RK_FIELD_ACCESSORS, RK_FIELD_NONE)
RK_IETH_FIELDS(RK_FIELD_ACCESSORS, RK_FIELD_NONE)

/* AETH syndrome (IBTA Vol1 9.3): bits 6:5 select the type. */
#define RK_AETH_TYPE_MASK 0x60
#define RK_AETH_TYPE_ACK 0x00
#define RK_AETH_TYPE_RNR_NAK 0x20
#define RK_AETH_TYPE_RESERVED 0x40
#define RK_AETH_TYPE_NAK 0x60
#define RK_AETH_VALUE_MASK 0x1f
#define RK_AETH_CREDIT_INVALID 0x1f

/** NAK codes, AETH syndrome 0x60 | code. */
enum rk_aeth_nak_code {
	RK_AETH_NAK_PSN_SEQ_ERR = 0,
	RK_AETH_NAK_INVALID_REQUEST = 1,
	RK_AETH_NAK_REMOTE_ACCESS_ERR = 2,
	RK_AETH_NAK_REMOTE_OP_ERR = 3,
	RK_AETH_NAK_INVALID_RD_REQUEST = 4,
};

/** Kinds of AETH syndrome. */
enum rk_aeth_kind {
	RK_AETH_ACK,
	RK_AETH_RNR_NAK,
	RK_AETH_NAK,
	RK_AETH_RESERVED,
};

/** Classify an AETH syndrome byte (bit 7 set counts as reserved). */
enum rk_aeth_kind rk_aeth_kind(uint8_t syndrome);

/**
 * Credits (receive WQEs) a 5-bit ACK credit code stands for, IBTA Vol1 9.7.7.2
 * (end-to-end credits); the table doubles every two codes: 0,1,2,3,4,6,8,12,...,32768.
 * Only the low 5 bits of @p code are used.
 * @return credits, or -1 for code 0x1F (credits not tracked).
 */
int32_t rk_aeth_credits(uint8_t code);

/**
 * The largest credit code whose credits do not exceed @p credits (0x1E at
 * most, for 32768 and up). Computed from the bit length of @p credits (the
 * table's 1x and 1.5x steps), no table walk: it runs once per ACK.
 */
uint8_t rk_aeth_credit_code(uint32_t credits);

/**
 * Minimum RNR wait of a 5-bit RNR NAK timer code, in ns (IBTA Vol1 ch. 9
 * RNR timer table): code 0 is 655.36 ms, 1 is 0.01 ms, up to 31 = 491.52 ms.
 * Only the low 5 bits of @p code are used (the AETH field is 5 bits wide).
 */
uint64_t rk_rnr_timer_ns(uint8_t code);

/**
 * Local ACK timeout 4.096 us * 2^timeout in ns; 0 (infinite) for timeout 0.
 * Only the low 5 bits of @p timeout are used (the QP attribute is 5 bits).
 */
uint64_t rk_local_ack_timeout_ns(uint8_t timeout);

/** Name of a NAK code ("PSN sequence error", ...); "reserved" for 5..31. */
const char *rk_aeth_nak_name(uint8_t code);

/** Field tables of the extended headers. */
extern const struct rk_header_desc rk_rdeth_desc, rk_deth_desc, rk_xrceth_desc,
	rk_reth_desc, rk_atmeth_desc, rk_aeth_desc, rk_atmack_desc, rk_immdt_desc,
	rk_ieth_desc, rk_feth_desc;

#endif /* RK_XETH_H */
