/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_rdmap.h
 * RDMAP (RFC 5040, extended by RFC 7306): the control field, the opcode
 * table, the Read Request, Terminate, Atomic and Immediate Data headers,
 * and a stateless parser of one DDP segment (the ULPDU of one FPDU) into
 * DDP + RDMAP fields with findings. Big-endian on the wire.
 *
 * RDMAP control field: the RsvdULP byte of the DDP header (byte 1),
 * RFC 5040 4.2:
 *
 *     byte 1 of the DDP header   RV(7:6)=1 Rsvd(5:4) OpCode(3:0)
 *
 * In the untagged model, DDP RsvdULP bytes 2-5 carry the Invalidate STag
 * of Send with Invalidate (opcodes 4, 6) and are reserved (0) otherwise.
 *
 * RDMA Read Request header, 28 bytes after the untagged DDP header
 * (RFC 5040 4.4):
 *
 *     bytes 0-3    Data Sink STag
 *     bytes 4-11   Data Sink Tagged Offset
 *     bytes 12-15  RDMA Read Message Size (bytes)
 *     bytes 16-19  Data Source STag
 *     bytes 20-27  Data Source Tagged Offset
 *
 * Terminate header after the untagged DDP header (RFC 5040 4.8;
 * layout as Linux siw and Wireshark read it):
 *
 *     bytes 0-3    Layer(31:28) EType(27:24) Error Code(23:16)
 *                  HdrCt M(15) D(14) R(13) Reserved(12:0)
 *     if D:        DDP Segment Length (16 bits; valid when M), then the
 *                  terminated DDP header (14 bytes tagged / 18 untagged,
 *                  chosen by its own T bit)
 *     if R:        the terminated RDMAP header (28 bytes: a Read Request)
 *
 * RFC 7306:
 *  Atomic Request header, 52 bytes: Reserved(31:4) AOpCode(3:0) | Request
 *  Identifier | Remote STag | Remote TO (64) | Add or Swap Data (64) |
 *  Add or Swap Mask (64) | Compare Data (64) | Compare Mask (64).
 *  Atomic Response header, 12 bytes: Original Request Identifier |
 *  Original Remote Data Value (64).
 *  Immediate Data header, 8 bytes: Immediate Data (64).
 */
#ifndef RK_RDMAP_H
#define RK_RDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rk_byteorder.h"
#include "rk_ddp.h"
#include "rk_field.h"
#include "rk_finding.h"

/** The RDMAP version this library speaks, RV = 1 (RFC 5040 4.2). */
#define RK_RDMAP_VERSION 1

#define RK_RDMAP_CTRL_OFF 1       /* inside the DDP header */
#define RK_RDMAP_RV_MASK 0xc0
#define RK_RDMAP_RV_SHIFT 6
#define RK_RDMAP_RSVD_MASK 0x30
#define RK_RDMAP_RSVD_SHIFT 4
#define RK_RDMAP_OPCODE_MASK 0x0f

#define RK_RDMAP_READ_REQ_LEN 28
#define RK_RDMAP_TERM_CTRL_LEN 4
#define RK_RDMAP_TERM_SEGLEN_LEN 2
#define RK_RDMAP_ATOMIC_REQ_LEN 52
#define RK_RDMAP_ATOMIC_RESP_LEN 12
#define RK_RDMAP_IMMDT_LEN 8

/** RDMAP opcodes (RFC 5040 4.3, RFC 7306). */
enum rk_rdmap_opcode {
	RK_RDMAP_WRITE = 0,
	RK_RDMAP_READ_REQ = 1,
	RK_RDMAP_READ_RESP = 2,
	RK_RDMAP_SEND = 3,
	RK_RDMAP_SEND_INV = 4,
	RK_RDMAP_SEND_SE = 5,
	RK_RDMAP_SEND_SE_INV = 6,
	RK_RDMAP_TERMINATE = 7,
	RK_RDMAP_IMMDT = 8,           /**< RFC 7306 Immediate Data */
	RK_RDMAP_IMMDT_SE = 9,        /**< RFC 7306 Immediate Data with SE */
	RK_RDMAP_ATOMIC_REQ = 10,     /**< RFC 7306 Atomic Request */
	RK_RDMAP_ATOMIC_RESP = 11,    /**< RFC 7306 Atomic Response */
};

/** Untagged queue numbers (RFC 5040 4; QN 3, 4 from RFC 7306). */
enum rk_rdmap_qn {
	RK_RDMAP_QN_SEND = 0,         /**< Send family, Immediate Data */
	RK_RDMAP_QN_READ_REQ = 1,
	RK_RDMAP_QN_TERMINATE = 2,
	RK_RDMAP_QN_ATOMIC_REQ = 3,
	RK_RDMAP_QN_ATOMIC_RESP = 4,
};

/** One row of the RDMAP opcode table. */
struct rk_rdmap_opcode_info {
	const char *name;     /**< "Send with SE", NULL for reserved opcodes */
	bool tagged;          /**< carried in a tagged DDP segment */
	uint8_t qn;           /**< queue number when untagged */
	uint16_t hdr_len;     /**< RDMAP header bytes after the DDP header */
	bool single_segment;  /**< always one DDP segment: MO 0, L 1 */
	const char *spec_ref;
};

/**
 * The opcode table row of @p opcode (0..15).
 * @return the row; its name is NULL for the reserved opcodes 12..15.
 */
const struct rk_rdmap_opcode_info *rk_rdmap_opcode_info(uint8_t opcode);

/** Name of an opcode, "reserved" for 12..15. */
const char *rk_rdmap_opcode_name(uint8_t opcode);

/* Terminate control word bits. */
#define RK_RDMAP_TERM_M 0x80      /* byte 2 */
#define RK_RDMAP_TERM_D 0x40
#define RK_RDMAP_TERM_R 0x20
#define RK_RDMAP_TERM_RSVD_MASK 0x1fff  /* of bytes 2-3 */
#define RK_RDMAP_AOPCODE_MASK 0x0f

/*
 * Field lists, in wire order (rk_field.h explains the rows). The control
 * field and the Invalidate STag are read through the DDP header (control
 * at byte 1, Invalidate STag at bytes 2-5 of the untagged header); the
 * other accessors take the RDMAP header's first byte.
 */
#define RK_RDMAP_CTRL_FIELDS(X, T)                                                 \
	X(rdmap, rv, "RV", "rv", RK_RDMAP_CTRL_OFF, 1, RK_RDMAP_RV_MASK, uint8_t, "RFC 5040 4.2") \
	X(rdmap, rsvd, "Rsvd", "rsvd", RK_RDMAP_CTRL_OFF, 1, RK_RDMAP_RSVD_MASK, uint8_t, \
	  "RFC 5040 4.2")                                                                \
	X(rdmap, opcode, "OpCode", "opcode", RK_RDMAP_CTRL_OFF, 1, RK_RDMAP_OPCODE_MASK,  \
	  uint8_t, "RFC 5040 4.2")
#define RK_RDMAP_INVAL_FIELDS(X, T)                                                \
	X(rdmap, inval_stag, "Invalidate STag", "inval_stag", RK_DDP_RSVDULP32_OFF, 4,  \
	  0xffffffff, uint32_t, "RFC 5040 4")
#define RK_RDMAP_READ_REQ_FIELDS(X, T)                                             \
	X(rdmap, sink_stag, "Data Sink STag", "sink_stag", 0, 4, 0xffffffff, uint32_t,  \
	  "RFC 5040 4.4")                                                                \
	X(rdmap, sink_to, "Data Sink Tagged Offset", "sink_to", 4, 8, ~0ull, uint64_t,  \
	  "RFC 5040 4.4")                                                                \
	X(rdmap, rdma_rd_sz, "RDMA Read Message Size", "rdma_rd_sz", 12, 4, 0xffffffff, \
	  uint32_t, "RFC 5040 4.4")                                                      \
	X(rdmap, src_stag, "Data Source STag", "src_stag", 16, 4, 0xffffffff, uint32_t, \
	  "RFC 5040 4.4")                                                                \
	X(rdmap, src_to, "Data Source Tagged Offset", "src_to", 20, 8, ~0ull, uint64_t, \
	  "RFC 5040 4.4")
#define RK_RDMAP_TERM_FIELDS(X, T)                                                 \
	X(rdmap_term, layer, "Layer", "layer", 0, 1, 0xf0, uint8_t, "RFC 5040 4.8")     \
	X(rdmap_term, etype, "EType", "etype", 0, 1, 0x0f, uint8_t, "RFC 5040 4.8")     \
	X(rdmap_term, err_code, "Error Code", "err_code", 1, 1, 0xff, uint8_t, "RFC 5040 4.8") \
	X(rdmap_term, m, "HdrCt M", "hdrct_m", 2, 1, RK_RDMAP_TERM_M, uint8_t, "RFC 5040 4.8") \
	X(rdmap_term, d, "HdrCt D", "hdrct_d", 2, 1, RK_RDMAP_TERM_D, uint8_t, "RFC 5040 4.8") \
	X(rdmap_term, r, "HdrCt R", "hdrct_r", 2, 1, RK_RDMAP_TERM_R, uint8_t, "RFC 5040 4.8") \
	X(rdmap_term, rsvd, "Reserved", "rsvd", 2, 2, RK_RDMAP_TERM_RSVD_MASK, uint16_t, \
	  "RFC 5040 4.8")
#define RK_RDMAP_ATOMIC_REQ_FIELDS(X, T)                                           \
	X(rdmap_atomic, rsvd, "Reserved", "rsvd", 0, 4, 0xfffffff0, uint32_t, "RFC 7306") \
	X(rdmap_atomic, aopcode, "AOpCode", "aopcode", 0, 4, RK_RDMAP_AOPCODE_MASK, uint8_t, \
	  "RFC 7306")                                                                    \
	X(rdmap_atomic, req_id, "Request Identifier", "req_id", 4, 4, 0xffffffff, uint32_t, \
	  "RFC 7306")                                                                    \
	X(rdmap_atomic, remote_stag, "Remote STag", "remote_stag", 8, 4, 0xffffffff,    \
	  uint32_t, "RFC 7306")                                                          \
	X(rdmap_atomic, remote_to, "Remote Tagged Offset", "remote_to", 12, 8, ~0ull,   \
	  uint64_t, "RFC 7306")                                                          \
	X(rdmap_atomic, swap_add, "Add or Swap Data", "swap_add", 20, 8, ~0ull, uint64_t, \
	  "RFC 7306")                                                                    \
	X(rdmap_atomic, swap_add_mask, "Add or Swap Mask", "swap_add_mask", 28, 8, ~0ull, \
	  uint64_t, "RFC 7306")                                                          \
	X(rdmap_atomic, compare, "Compare Data", "compare", 36, 8, ~0ull, uint64_t, "RFC 7306") \
	X(rdmap_atomic, compare_mask, "Compare Mask", "compare_mask", 44, 8, ~0ull, uint64_t, \
	  "RFC 7306")
#define RK_RDMAP_ATOMIC_RESP_FIELDS(X, T)                                          \
	X(rdmap_atomic_resp, req_id, "Original Request Identifier", "req_id", 0, 4,     \
	  0xffffffff, uint32_t, "RFC 7306")                                              \
	X(rdmap_atomic_resp, orig_value, "Original Remote Data Value", "orig_value", 4, 8, \
	  ~0ull, uint64_t, "RFC 7306")
#define RK_RDMAP_IMMDT_FIELDS(X, T) \
	X(rdmap, immdt, "Immediate Data", "immdt", 0, 8, ~0ull, uint64_t, "RFC 7306")

/*
 * rk_rdmap_rv(), rk_rdmap_inval_stag(), rk_rdmap_sink_stag(),
 * rk_rdmap_term_layer(), rk_rdmap_atomic_req_id(),
 * rk_rdmap_atomic_resp_orig_value(), rk_rdmap_immdt(), ... and setters.
 */
RK_RDMAP_CTRL_FIELDS(RK_FIELD_ACCESSORS, RK_FIELD_NONE)
RK_RDMAP_INVAL_FIELDS(RK_FIELD_ACCESSORS, RK_FIELD_NONE)
RK_RDMAP_READ_REQ_FIELDS(RK_FIELD_ACCESSORS, RK_FIELD_NONE)
RK_RDMAP_TERM_FIELDS(RK_FIELD_ACCESSORS, RK_FIELD_NONE)
RK_RDMAP_ATOMIC_REQ_FIELDS(RK_FIELD_ACCESSORS, RK_FIELD_NONE)
RK_RDMAP_ATOMIC_RESP_FIELDS(RK_FIELD_ACCESSORS, RK_FIELD_NONE)
RK_RDMAP_IMMDT_FIELDS(RK_FIELD_ACCESSORS, RK_FIELD_NONE)

/** DDP Segment Length: the 16 bits after the Terminate control word (present when D). */
static inline uint16_t rk_rdmap_term_ddp_seg_len(const uint8_t *h) { return rk_get_be16(h + 4); }
static inline void rk_rdmap_term_set_ddp_seg_len(uint8_t *h, uint16_t v) { rk_put_be16(h + 4, v); }

/** RFC 7306 atomic operation codes (AOpCode). */
enum rk_rdmap_aopcode {
	RK_RDMAP_AOP_FETCH_ADD = 0,
	RK_RDMAP_AOP_SWAP = 1,
	RK_RDMAP_AOP_CMP_SWAP = 2,
};

/** Read Request header in host order. */
struct rk_rdmap_read_req_fields {
	uint32_t sink_stag;
	uint64_t sink_to;
	uint32_t rdma_rd_sz;   /**< bytes */
	uint32_t src_stag;
	uint64_t src_to;
};

/** Terminate control word in host order. */
struct rk_rdmap_term_fields {
	uint8_t layer, etype, err_code;
	uint8_t m, d, r;       /**< HdrCt bits */
	uint16_t rsvd;         /**< 13 bits */
};

/** Atomic Request header in host order (RFC 7306). */
struct rk_rdmap_atomic_req_fields {
	uint32_t rsvd;         /**< 28 bits */
	uint8_t aopcode;
	uint32_t req_id, remote_stag;
	uint64_t remote_to, swap_add, swap_add_mask, compare, compare_mask;
};

/** Atomic Response header in host order (RFC 7306). */
struct rk_rdmap_atomic_resp_fields {
	uint32_t req_id;
	uint64_t orig_value;
};

/** Decode the 28 Read Request bytes at @p h. */
void rk_rdmap_read_req_unpack(const uint8_t *h, struct rk_rdmap_read_req_fields *f);
/** Encode @p f into the 28 Read Request bytes at @p h. */
void rk_rdmap_read_req_pack(uint8_t *h, const struct rk_rdmap_read_req_fields *f);
/** Decode the 4-byte Terminate control word at @p h. */
void rk_rdmap_term_unpack(const uint8_t *h, struct rk_rdmap_term_fields *f);
/** Encode @p f into the 4-byte Terminate control word at @p h. */
void rk_rdmap_term_pack(uint8_t *h, const struct rk_rdmap_term_fields *f);
/** Decode the 52 Atomic Request bytes at @p h (RFC 7306). */
void rk_rdmap_atomic_req_unpack(const uint8_t *h, struct rk_rdmap_atomic_req_fields *f);
/** Encode @p f into the 52 Atomic Request bytes at @p h (RFC 7306). */
void rk_rdmap_atomic_req_pack(uint8_t *h, const struct rk_rdmap_atomic_req_fields *f);
/** Decode the 12 Atomic Response bytes at @p h (RFC 7306). */
void rk_rdmap_atomic_resp_unpack(const uint8_t *h, struct rk_rdmap_atomic_resp_fields *f);
/** Encode @p f into the 12 Atomic Response bytes at @p h (RFC 7306). */
void rk_rdmap_atomic_resp_pack(uint8_t *h, const struct rk_rdmap_atomic_resp_fields *f);

/** Terminate layers (T5). */
enum rk_term_layer {
	RK_TERM_LAYER_RDMAP = 0,
	RK_TERM_LAYER_DDP = 1,
	RK_TERM_LAYER_LLP = 2,
};

/**
 * Meaning of a Terminate Layer / EType / Error code triple, from the
 * table of RFC 5040 4.8, RFC 5041 7.2, RFC 5044 8 and RFC 6581 as
 * registered by IANA (RFC 6580): e.g. (1, 2, 0x01) ->
 * "invalid QN".
 * @return the text, or NULL when the triple is not in the table.
 */
const char *rk_rdmap_term_text(uint8_t layer, uint8_t etype, uint8_t err_code);

/** Name of a Terminate layer: "RDMAP", "DDP", "LLP (MPA)"; NULL if unknown. */
const char *rk_rdmap_term_layer_name(uint8_t layer);

/** Name of an EType within @p layer ("remote protection", ...); NULL if unknown. */
const char *rk_rdmap_term_etype_name(uint8_t layer, uint8_t etype);

/**
 * One DDP segment decoded: DDP header, RDMAP control and the RDMAP header
 * of its opcode. Filled by rk_rdmap_parse(); pointers point into the
 * caller's buffer.
 */
struct rk_rdmap_msg {
	bool ddp_ok;            /**< the segment held the whole DDP header */
	bool rdmap_hdr_ok;      /**< ... and the RDMAP header its opcode needs */
	/* DDP */
	uint8_t t, l, ddp_rsvd, dv;
	uint32_t stag;          /**< tagged */
	uint64_t to;            /**< tagged */
	uint32_t qn, msn, mo;   /**< untagged */
	uint32_t rsvdulp32;     /**< untagged RsvdULP[8:39] (Invalidate STag) */
	/* RDMAP */
	uint8_t rv, rdmap_rsvd, opcode;
	uint16_t ddp_hdr_len;   /**< 14 or 18 */
	uint16_t hdr_len;       /**< DDP + RDMAP header bytes */
	const uint8_t *payload; /**< ULP payload after all headers (or NULL) */
	uint32_t payload_len;
	/* per opcode, valid when rdmap_hdr_ok */
	union {
		struct rk_rdmap_read_req_fields read_req;
		struct {
			struct rk_rdmap_term_fields ctrl;
			uint16_t ddp_seg_len;       /**< when ctrl.d */
			const uint8_t *ddp_hdr;     /**< terminated DDP header, when ctrl.d */
			uint16_t ddp_hdr_len;
			const uint8_t *rdmap_hdr;   /**< terminated RDMAP header, when ctrl.r */
			const char *text;           /**< rk_rdmap_term_text(), may be NULL */
		} term;
		struct rk_rdmap_atomic_req_fields atomic_req;
		struct rk_rdmap_atomic_resp_fields atomic_resp;
		uint64_t immdt;
	} u;
};

/**
 * Decode one DDP segment (the ULPDU of one FPDU, markers removed) and run
 * the stateless DDP/RDMAP checks (RFC 5040, 5041, 7306):
 * mpa.ulpdu.too_short, ddp.dv.bad, ddp.reserved.nonzero,
 * ddp.tagged.mismatch, ddp.qn.invalid, ddp.mo.nonzero_terminate_or_readreq,
 * ddp.l.clear_terminate_or_readreq, rdmap.rv.bad, rdmap.reserved.nonzero,
 * rdmap.opcode.reserved, rdmap.read_request.length,
 * rdmap.header.truncated, rdmap.terminate.code_unknown.
 *
 * Never reads outside @p seg[0..len).
 * @param seg  first byte of the DDP header
 * @param len  ULPDU_Length: bytes at @p seg
 * @param m    out: decoded fields
 * @param f    findings are added here (may be NULL); offsets are byte
 *             offsets from @p seg
 * @return 0; -EINVAL when @p seg or @p m is NULL; -EBADMSG when the
 *         segment is shorter than its DDP header (m->ddp_ok false).
 */
int rk_rdmap_parse(const uint8_t *seg, size_t len, struct rk_rdmap_msg *m,
		   struct rk_findings *f);

/** Field tables (RFC 5040 4, RFC 7306): the control field (relative to
 * the DDP header), the Invalidate STag (relative to the untagged DDP
 * header), and the RDMAP headers (relative to their first byte). */
extern const struct rk_header_desc rk_rdmap_ctrl_desc, rk_rdmap_inval_desc,
	rk_rdmap_read_req_desc, rk_rdmap_term_desc, rk_rdmap_atomic_req_desc,
	rk_rdmap_atomic_resp_desc, rk_rdmap_immdt_desc;

#endif /* RK_RDMAP_H */
