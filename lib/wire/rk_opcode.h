/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_opcode.h
 * The IBA opcode table (IBTA Vol1 9.2.1, table "OpCode field"; CNP from
 * Annex A17.9.3): for each of the 256 BTH opcodes, its name, transport,
 * the extended headers that follow the BTH in order, and its role.
 *
 * Opcode bits 7:5 select the transport: 000 RC, 001 UC, 010 RD, 011 UD,
 * 100 CNP (only 0x81 defined), 101 XRC, 110/111 manufacturer-specific.
 * Bits 4:0 select the operation. Parsing, building, message tracking and
 * printing all consult this table.
 */
#ifndef RK_OPCODE_H
#define RK_OPCODE_H

#include <stdint.h>

/** Transport of an opcode (bits 7:5). */
enum rk_transport {
	RK_TR_RC = 0,
	RK_TR_UC = 1,
	RK_TR_RD = 2,
	RK_TR_UD = 3,
	RK_TR_CNP = 4,
	RK_TR_XRC = 5,
	RK_TR_MFR = 6, /* manufacturer-specific, 0xC0..0xFF */
};

/** Extended headers, in wire order after the BTH. */
enum rk_hdr {
	RK_HDR_RDETH = 0,
	RK_HDR_DETH,
	RK_HDR_XRCETH,
	RK_HDR_FETH,
	RK_HDR_RETH,
	RK_HDR_ATMETH,
	RK_HDR_AETH,
	RK_HDR_ATMACK,
	RK_HDR_IMMDT,
	RK_HDR_IETH,
	RK_HDR_CNP,     /* the 16 reserved bytes of a CNP */
	RK_HDR_COUNT
};

/** Opcode flags. */
enum rk_opflag {
	RK_OPF_VALID = 1u << 0,    /**< defined by the spec */
	RK_OPF_REQ = 1u << 1,      /**< sent by a requester */
	RK_OPF_RESP = 1u << 2,     /**< sent by a responder (ACK, READ response, atomic ACK) */
	RK_OPF_FIRST = 1u << 3,
	RK_OPF_MIDDLE = 1u << 4,
	RK_OPF_LAST = 1u << 5,
	RK_OPF_ONLY = RK_OPF_FIRST | RK_OPF_LAST,
	RK_OPF_PAYLOAD = 1u << 6,  /**< may carry payload */
	RK_OPF_SEND = 1u << 7,
	RK_OPF_WRITE = 1u << 8,
	RK_OPF_READ_REQ = 1u << 9,
	RK_OPF_READ_RESP = 1u << 10,
	RK_OPF_ATOMIC = 1u << 11,  /**< CmpSwap, FetchAdd */
	RK_OPF_ACK = 1u << 12,     /**< Acknowledge */
	RK_OPF_ATOMIC_ACK = 1u << 13,
	RK_OPF_IMM = 1u << 14,
	RK_OPF_INV = 1u << 15,
	RK_OPF_CNP = 1u << 16,
	RK_OPF_FLUSH = 1u << 17,
	RK_OPF_ATOMIC_WRITE = 1u << 18,
	RK_OPF_RESYNC = 1u << 19,
	RK_OPF_RWQE = 1u << 20,   /**< consumes a receive WQE (SEND, WRITE with immediate) */
};

/** One row of the opcode table. */
struct rk_opcode_info {
	const char *name;       /**< e.g. "RC RDMA WRITE First"; NULL if undefined */
	uint32_t flags;         /**< enum rk_opflag */
	uint16_t hdrs;          /**< bit (1 << enum rk_hdr) per extended header */
	uint8_t hdr_len;        /**< BTH plus extended headers, bytes */
	uint8_t transport;      /**< enum rk_transport */
	uint8_t off[RK_HDR_COUNT]; /**< offset of each header from the BTH start */
};

/**
 * The table row of @p opcode: never NULL; rows of undefined opcodes are all
 * zero (no RK_OPF_VALID, no name), so their .transport is meaningless: use
 * rk_opcode_transport().
 */
const struct rk_opcode_info *rk_opcode_info(uint8_t opcode);

/** Transport selected by opcode bits 7:5 (0xC0-0xFF: RK_TR_MFR). */
enum rk_transport rk_opcode_transport(uint8_t opcode);

/** Short name of a transport: "RC", "UC", "RD", "UD", "CNP", "XRC", "MFR". */
const char *rk_transport_name(enum rk_transport tr);

/** Name of an extended header: "RETH", "AETH", ... */
const char *rk_hdr_name(enum rk_hdr h);

/** The opcode value for RoCEv2 CNP (Annex A17.9.3). */
#define RK_OP_CNP 0x81

/* Opcode constants named as the spec names them (RC group; add the
 * transport base 0x20 UC, 0x40 RD, 0x60 UD, 0xA0 XRC). */
enum rk_opcode {
	RK_OP_SEND_FIRST = 0x00,
	RK_OP_SEND_MIDDLE = 0x01,
	RK_OP_SEND_LAST = 0x02,
	RK_OP_SEND_LAST_IMM = 0x03,
	RK_OP_SEND_ONLY = 0x04,
	RK_OP_SEND_ONLY_IMM = 0x05,
	RK_OP_RDMA_WRITE_FIRST = 0x06,
	RK_OP_RDMA_WRITE_MIDDLE = 0x07,
	RK_OP_RDMA_WRITE_LAST = 0x08,
	RK_OP_RDMA_WRITE_LAST_IMM = 0x09,
	RK_OP_RDMA_WRITE_ONLY = 0x0a,
	RK_OP_RDMA_WRITE_ONLY_IMM = 0x0b,
	RK_OP_RDMA_READ_REQUEST = 0x0c,
	RK_OP_RDMA_READ_RESPONSE_FIRST = 0x0d,
	RK_OP_RDMA_READ_RESPONSE_MIDDLE = 0x0e,
	RK_OP_RDMA_READ_RESPONSE_LAST = 0x0f,
	RK_OP_RDMA_READ_RESPONSE_ONLY = 0x10,
	RK_OP_ACKNOWLEDGE = 0x11,
	RK_OP_ATOMIC_ACKNOWLEDGE = 0x12,
	RK_OP_COMPARE_SWAP = 0x13,
	RK_OP_FETCH_ADD = 0x14,
	RK_OP_RESYNC = 0x15,
	RK_OP_SEND_LAST_INV = 0x16,
	RK_OP_SEND_ONLY_INV = 0x17,
	RK_OP_FLUSH = 0x1c,
	RK_OP_ATOMIC_WRITE = 0x1d,
};

#define RK_OP_TR_RC 0x00
#define RK_OP_TR_UC 0x20
#define RK_OP_TR_RD 0x40
#define RK_OP_TR_UD 0x60
#define RK_OP_TR_XRC 0xa0

#endif /* RK_OPCODE_H */
