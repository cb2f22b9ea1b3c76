/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Why the iWARP engine ended a stream with a Terminate: one reason per
 * error it detects, each naming the rule it enforces (a rule ID of
 * doc/spec-rules.md and the spec reference) and the Terminate it sends
 * (Layer, EType, Error Code of the registry of RFC 6580: RDMAP codes of
 * RFC 5040 4.8, DDP codes of RFC 5041 7.2, MPA codes of RFC 5044 8 and
 * RFC 6581). Several reasons may send the same code: the code says what
 * the peer learns, the reason what this end saw.
 *
 * Each reason is counted per QP (rk_iw_qp_reason_stats(), printable
 * through rk_iw_reason_xstats); rk_iw_qp_last_reason() names the one that
 * ended the stream.
 */
#ifndef RK_IW_REASON_H
#define RK_IW_REASON_H

#include <stdint.h>

#include "rk_xstats.h"

/* X(symbol, name, rule ID, spec reference, Layer, EType, Error Code):
 * the fields of struct rk_iw_reason_info, in order. */
#define RK_IW_REASON_LIST(X) \
	X(NONE, "none", "-", "-", 0, 0, 0) \
	/* MPA (Layer 2, LLP) */ \
	X(MPA_CRC, "mpa.crc", "MPA-CRC-01", "RFC 5044 8", 2, 0, 0x02) \
	X(MPA_MARKER, "mpa.marker", "MPA-MARK-01", "RFC 5044 8", 2, 0, 0x03) \
	X(MPA_SYNC, "mpa.sync_lost", "MPA-MARK-01", "RFC 5044 8", 2, 0, 0x03) \
	X(MPA_IRD, "mpa.ird_ord.short", "MPA-IRD-01", "RFC 6581", 2, 0, 0x06) \
	X(MPA_RTR, "mpa.rtr.invalid", "MPA-RTR-01", "RFC 6581", 2, 0, 0x07) \
	/* DDP (Layer 1) */ \
	X(DDP_VERSION_T, "ddp.tagged.version", "DDP-VER-01", "RFC 5041 7.2", 1, 1, 0x04) \
	X(DDP_VERSION_U, "ddp.untagged.version", "DDP-VER-01", "RFC 5041 7.2", 1, 2, 0x06) \
	X(DDP_QN, "ddp.untagged.qn", "DDP-QN-01", "RFC 5041 7.2", 1, 2, 0x01) \
	X(DDP_NO_BUFFER, "ddp.untagged.no_buffer", "DDP-MSN-02", "RFC 5041 7.2", 1, 2, 0x02) \
	X(DDP_MSN, "ddp.untagged.msn_range", "DDP-MSN-01", "RFC 5041 7.2", 1, 2, 0x03) \
	X(DDP_MO, "ddp.untagged.mo", "DDP-MO-01", "RFC 5041 7.2", 1, 2, 0x04) \
	X(DDP_TOO_LONG, "ddp.untagged.too_long", "DDP-LEN-01", "RFC 5041 7.2", 1, 2, 0x05) \
	X(DDP_STAG, "ddp.tagged.stag", "DDP-STAG-01", "RFC 5041 7.2", 1, 1, 0x00) \
	X(DDP_BOUNDS, "ddp.tagged.bounds", "DDP-BOUNDS-01", "RFC 5041 7.2", 1, 1, 0x01) \
	X(DDP_STAG_STREAM, "ddp.tagged.stag_stream", "DDP-STAG-02", "RFC 5041 7.2", 1, 1, 0x02) \
	X(DDP_TO_WRAP, "ddp.tagged.to_wrap", "DDP-BOUNDS-02", "RFC 5041 7.2", 1, 1, 0x03) \
	X(READ_RESP_STAG, "rdmap.read_resp.stag", "RDMAP-RRESP-02", "RFC 5041 7.2", 1, 1, 0x00) \
	X(READ_RESP_BOUNDS, "rdmap.read_resp.bounds", "RDMAP-RRESP-02", "RFC 5041 7.2", 1, 1, 0x01) \
	/* RDMAP (Layer 0), remote operation errors */ \
	X(RDMAP_SHORT, "rdmap.header.short", "RDMAP-HDR-01", "RFC 5040 4.8", 0, 2, 0xff) \
	X(RDMAP_VERSION, "rdmap.version", "RDMAP-VER-01", "RFC 5040 4.8", 0, 2, 0x05) \
	X(RDMAP_OPCODE, "rdmap.opcode.unexpected", "RDMAP-OPC-01", "RFC 5040 4.8", 0, 2, 0x06) \
	X(RDMAP_SINGLE_SEG, "rdmap.single_segment", "RDMAP-HDR-02", "RFC 5040 4.8", 0, 2, 0xff) \
	X(RDMAP_IMMDT, "rdmap.immdt.malformed", "RDMAP-IMM-01", "RFC 7306", 0, 2, 0xff) \
	X(READ_REQ_PAYLOAD, "rdmap.read_req.payload", "RDMAP-RR-01", "RFC 5040 4.8", 0, 2, 0xff) \
	X(READ_REQ_IRD, "rdmap.read_req.ird_exceeded", "RDMAP-RR-02", "RFC 5040 6.1", 0, 2, 0x07) \
	X(READ_RESP_UNEXPECTED, "rdmap.read_resp.unexpected", "RDMAP-RRESP-01", "RFC 5040 4.8", \
	  0, 2, 0x06) \
	X(ATOMIC_REQ_FORM, "rdmap.atomic_req.malformed", "RDMAP-ATOM-01", "RFC 7306", 0, 2, 0xff) \
	X(ATOMIC_REQ_IRD, "rdmap.atomic_req.ird_exceeded", "RDMAP-RR-02", "RFC 7306", 0, 2, 0x07) \
	X(ATOMIC_RESP_UNEXPECTED, "rdmap.atomic_resp.unexpected", "RDMAP-ATOM-02", "RFC 7306", \
	  0, 2, 0x06) \
	/* RDMAP remote protection errors (Data Source, Atomic target, Invalidate) */ \
	X(RDMAP_STAG, "rdmap.stag.invalid", "RDMAP-STAG-01", "RFC 5040 4.8", 0, 1, 0x00) \
	X(RDMAP_BOUNDS, "rdmap.stag.bounds", "RDMAP-BOUNDS-01", "RFC 5040 4.8", 0, 1, 0x01) \
	X(RDMAP_RIGHTS, "rdmap.stag.access", "RDMAP-ACC-01", "RFC 5040 4.8", 0, 1, 0x02) \
	X(RDMAP_STAG_STREAM, "rdmap.stag.stream", "RDMAP-STAG-02", "RFC 5040 4.8", 0, 1, 0x03) \
	X(RDMAP_TO_WRAP, "rdmap.stag.to_wrap", "RDMAP-BOUNDS-02", "RFC 5040 4.8", 0, 1, 0x04) \
	X(RDMAP_INVALIDATE, "rdmap.invalidate.stag", "RDMAP-INV-01", "RFC 5040 4.8", 0, 1, 0x09) \
	/* Local catastrophic errors, and the consumer's own Terminate */ \
	X(LOCAL_SINK, "local.sink.protection", "RDMAP-LOCAL-01", "RFC 5040 4.8", 0, 0, 0x00) \
	X(LOCAL_ASKED, "local.terminate_asked", "-", "RFC 5040 4.8", 0, 0, 0x00)

#define RK_IW_REASON_ENUM_(sym, name, rule, cite, layer, etype, code) RK_IW_R_##sym,
/** Reasons; RK_IW_R_NONE is never counted. */
enum rk_iw_reason { RK_IW_REASON_LIST(RK_IW_REASON_ENUM_) RK_IW_REASON_COUNT };
#undef RK_IW_REASON_ENUM_

/** Per-QP count of each reason, indexed by enum rk_iw_reason (monotonic). */
struct rk_iw_reason_stats {
	uint64_t count[RK_IW_REASON_COUNT];
};

/** Counter table over struct rk_iw_reason_stats: one entry per reason but NONE. */
extern const struct rk_xstat_table rk_iw_reason_xstats;

struct rk_iw_qp;

/** One row of the table: what a reason enforces and the Terminate it sends. */
struct rk_iw_reason_info {
	const char *name;       /**< dotted name: "ddp.untagged.no_buffer" */
	const char *rule;       /**< rule ID of doc/spec-rules.md: "DDP-MSN-02" ("-": none) */
	const char *cite;       /**< spec reference: "RFC 5041 7.2" */
	uint8_t layer;          /**< Terminate Layer: 0 RDMAP, 1 DDP, 2 LLP (MPA) */
	uint8_t etype;          /**< Terminate EType of that layer */
	uint8_t code;           /**< Terminate Error Code */
};

/** The row of @p r; NULL when @p r is out of range. */
const struct rk_iw_reason_info *rk_iw_reason_info(enum rk_iw_reason r);

/** The QP's reason counters. */
const struct rk_iw_reason_stats *rk_iw_qp_reason_stats(const struct rk_iw_qp *qp);
/** The reason that ended the QP's stream with a Terminate, RK_IW_R_NONE before any. */
enum rk_iw_reason rk_iw_qp_last_reason(const struct rk_iw_qp *qp);

#endif /* RK_IW_REASON_H */
