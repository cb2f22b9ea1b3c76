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

/* Control field: accessors take the DDP header (control at byte 1). */
static inline uint8_t
rk_rdmap_rv(const uint8_t *ddp)
{
	return (ddp[RK_RDMAP_CTRL_OFF] & RK_RDMAP_RV_MASK) >> RK_RDMAP_RV_SHIFT;
}
static inline uint8_t
rk_rdmap_rsvd(const uint8_t *ddp)
{
	return (ddp[RK_RDMAP_CTRL_OFF] & RK_RDMAP_RSVD_MASK) >> RK_RDMAP_RSVD_SHIFT;
}
static inline uint8_t
rk_rdmap_opcode(const uint8_t *ddp)
{
	return ddp[RK_RDMAP_CTRL_OFF] & RK_RDMAP_OPCODE_MASK;
}
static inline void
rk_rdmap_set_rv(uint8_t *ddp, uint8_t v)
{
	ddp[RK_RDMAP_CTRL_OFF] = (uint8_t)((ddp[RK_RDMAP_CTRL_OFF] & ~RK_RDMAP_RV_MASK) |
					   ((v << RK_RDMAP_RV_SHIFT) & RK_RDMAP_RV_MASK));
}
static inline void
rk_rdmap_set_rsvd(uint8_t *ddp, uint8_t v)
{
	ddp[RK_RDMAP_CTRL_OFF] = (uint8_t)((ddp[RK_RDMAP_CTRL_OFF] & ~RK_RDMAP_RSVD_MASK) |
					   ((v << RK_RDMAP_RSVD_SHIFT) & RK_RDMAP_RSVD_MASK));
}
static inline void
rk_rdmap_set_opcode(uint8_t *ddp, uint8_t v)
{
	ddp[RK_RDMAP_CTRL_OFF] = (uint8_t)((ddp[RK_RDMAP_CTRL_OFF] & ~RK_RDMAP_OPCODE_MASK) |
					   (v & RK_RDMAP_OPCODE_MASK));
}
/** Invalidate STag of Send with Invalidate: untagged DDP bytes 2-5. */
static inline uint32_t rk_rdmap_inval_stag(const uint8_t *ddp) { return rk_ddp_rsvdulp32(ddp); }
static inline void rk_rdmap_set_inval_stag(uint8_t *ddp, uint32_t v) { rk_ddp_set_rsvdulp32(ddp, v); }

/* Read Request header: accessors take its first byte. */
static inline uint32_t rk_rdmap_sink_stag(const uint8_t *h) { return rk_get_be32(h); }
static inline uint64_t rk_rdmap_sink_to(const uint8_t *h) { return rk_get_be64(h + 4); }
static inline uint32_t rk_rdmap_rdma_rd_sz(const uint8_t *h) { return rk_get_be32(h + 12); }
static inline uint32_t rk_rdmap_src_stag(const uint8_t *h) { return rk_get_be32(h + 16); }
static inline uint64_t rk_rdmap_src_to(const uint8_t *h) { return rk_get_be64(h + 20); }
static inline void rk_rdmap_set_sink_stag(uint8_t *h, uint32_t v) { rk_put_be32(h, v); }
static inline void rk_rdmap_set_sink_to(uint8_t *h, uint64_t v) { rk_put_be64(h + 4, v); }
static inline void rk_rdmap_set_rdma_rd_sz(uint8_t *h, uint32_t v) { rk_put_be32(h + 12, v); }
static inline void rk_rdmap_set_src_stag(uint8_t *h, uint32_t v) { rk_put_be32(h + 16, v); }
static inline void rk_rdmap_set_src_to(uint8_t *h, uint64_t v) { rk_put_be64(h + 20, v); }

/* Terminate control word: accessors take its first byte. */
#define RK_RDMAP_TERM_M 0x80      /* byte 2 */
#define RK_RDMAP_TERM_D 0x40
#define RK_RDMAP_TERM_R 0x20
#define RK_RDMAP_TERM_RSVD_MASK 0x1fff  /* of bytes 2-3 */

static inline uint8_t rk_rdmap_term_layer(const uint8_t *h) { return h[0] >> 4; }
static inline uint8_t rk_rdmap_term_etype(const uint8_t *h) { return h[0] & 0x0f; }
static inline uint8_t rk_rdmap_term_err_code(const uint8_t *h) { return h[1]; }
static inline uint8_t rk_rdmap_term_m(const uint8_t *h) { return !!(h[2] & RK_RDMAP_TERM_M); }
static inline uint8_t rk_rdmap_term_d(const uint8_t *h) { return !!(h[2] & RK_RDMAP_TERM_D); }
static inline uint8_t rk_rdmap_term_r(const uint8_t *h) { return !!(h[2] & RK_RDMAP_TERM_R); }
static inline uint16_t
rk_rdmap_term_rsvd(const uint8_t *h)
{
	return rk_get_be16(h + 2) & RK_RDMAP_TERM_RSVD_MASK;
}
/** DDP Segment Length: the 16 bits after the control word (present when D). */
static inline uint16_t rk_rdmap_term_ddp_seg_len(const uint8_t *h) { return rk_get_be16(h + 4); }

static inline void
rk_rdmap_term_set_layer(uint8_t *h, uint8_t v)
{
	h[0] = (uint8_t)((h[0] & 0x0f) | ((v & 0x0f) << 4));
}
static inline void
rk_rdmap_term_set_etype(uint8_t *h, uint8_t v)
{
	h[0] = (uint8_t)((h[0] & 0xf0) | (v & 0x0f));
}
static inline void rk_rdmap_term_set_err_code(uint8_t *h, uint8_t v) { h[1] = v; }
static inline void
rk_rdmap_term_set_m(uint8_t *h, uint8_t v)
{
	h[2] = (uint8_t)((h[2] & ~RK_RDMAP_TERM_M) | (v ? RK_RDMAP_TERM_M : 0));
}
static inline void
rk_rdmap_term_set_d(uint8_t *h, uint8_t v)
{
	h[2] = (uint8_t)((h[2] & ~RK_RDMAP_TERM_D) | (v ? RK_RDMAP_TERM_D : 0));
}
static inline void
rk_rdmap_term_set_r(uint8_t *h, uint8_t v)
{
	h[2] = (uint8_t)((h[2] & ~RK_RDMAP_TERM_R) | (v ? RK_RDMAP_TERM_R : 0));
}
static inline void
rk_rdmap_term_set_rsvd(uint8_t *h, uint16_t v)
{
	uint16_t w = rk_get_be16(h + 2);

	rk_put_be16(h + 2, (uint16_t)((w & ~RK_RDMAP_TERM_RSVD_MASK) |
				      (v & RK_RDMAP_TERM_RSVD_MASK)));
}
static inline void rk_rdmap_term_set_ddp_seg_len(uint8_t *h, uint16_t v) { rk_put_be16(h + 4, v); }

/* RFC 7306 Atomic Request header: accessors take its first byte. */
#define RK_RDMAP_AOPCODE_MASK 0x0f
static inline uint32_t rk_rdmap_atomic_rsvd(const uint8_t *h) { return rk_get_be32(h) >> 4; }
static inline uint8_t rk_rdmap_atomic_aopcode(const uint8_t *h) { return h[3] & RK_RDMAP_AOPCODE_MASK; }
static inline uint32_t rk_rdmap_atomic_req_id(const uint8_t *h) { return rk_get_be32(h + 4); }
static inline uint32_t rk_rdmap_atomic_remote_stag(const uint8_t *h) { return rk_get_be32(h + 8); }
static inline uint64_t rk_rdmap_atomic_remote_to(const uint8_t *h) { return rk_get_be64(h + 12); }
static inline uint64_t rk_rdmap_atomic_swap_add(const uint8_t *h) { return rk_get_be64(h + 20); }
static inline uint64_t rk_rdmap_atomic_swap_add_mask(const uint8_t *h) { return rk_get_be64(h + 28); }
static inline uint64_t rk_rdmap_atomic_compare(const uint8_t *h) { return rk_get_be64(h + 36); }
static inline uint64_t rk_rdmap_atomic_compare_mask(const uint8_t *h) { return rk_get_be64(h + 44); }
static inline void
rk_rdmap_atomic_set_rsvd(uint8_t *h, uint32_t v)
{
	rk_put_be32(h, (v << 4) | (rk_get_be32(h) & RK_RDMAP_AOPCODE_MASK));
}
static inline void
rk_rdmap_atomic_set_aopcode(uint8_t *h, uint8_t v)
{
	h[3] = (uint8_t)((h[3] & ~RK_RDMAP_AOPCODE_MASK) | (v & RK_RDMAP_AOPCODE_MASK));
}
static inline void rk_rdmap_atomic_set_req_id(uint8_t *h, uint32_t v) { rk_put_be32(h + 4, v); }
static inline void rk_rdmap_atomic_set_remote_stag(uint8_t *h, uint32_t v) { rk_put_be32(h + 8, v); }
static inline void rk_rdmap_atomic_set_remote_to(uint8_t *h, uint64_t v) { rk_put_be64(h + 12, v); }
static inline void rk_rdmap_atomic_set_swap_add(uint8_t *h, uint64_t v) { rk_put_be64(h + 20, v); }
static inline void rk_rdmap_atomic_set_swap_add_mask(uint8_t *h, uint64_t v) { rk_put_be64(h + 28, v); }
static inline void rk_rdmap_atomic_set_compare(uint8_t *h, uint64_t v) { rk_put_be64(h + 36, v); }
static inline void rk_rdmap_atomic_set_compare_mask(uint8_t *h, uint64_t v) { rk_put_be64(h + 44, v); }

/** RFC 7306 atomic operation codes (AOpCode). */
enum rk_rdmap_aopcode {
	RK_RDMAP_AOP_FETCH_ADD = 0,
	RK_RDMAP_AOP_SWAP = 1,
	RK_RDMAP_AOP_CMP_SWAP = 2,
};

/* RFC 7306 Atomic Response header. */
static inline uint32_t rk_rdmap_atomic_resp_req_id(const uint8_t *h) { return rk_get_be32(h); }
static inline uint64_t rk_rdmap_atomic_resp_orig_value(const uint8_t *h) { return rk_get_be64(h + 4); }
static inline void rk_rdmap_atomic_resp_set_req_id(uint8_t *h, uint32_t v) { rk_put_be32(h, v); }
static inline void rk_rdmap_atomic_resp_set_orig_value(uint8_t *h, uint64_t v) { rk_put_be64(h + 4, v); }

/* RFC 7306 Immediate Data header. */
static inline uint64_t rk_rdmap_immdt(const uint8_t *h) { return rk_get_be64(h); }
static inline void rk_rdmap_set_immdt(uint8_t *h, uint64_t v) { rk_put_be64(h, v); }

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
