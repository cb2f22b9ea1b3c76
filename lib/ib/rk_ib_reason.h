/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Why the engine refused or dropped a packet: one reason per responder
 * error and silent drop, and per completer error, each naming the rule it
 * enforces (a rule ID of doc/spec-rules.md and the spec reference). The
 * outcome depends on the QP type as well: the same broken rule is a class C
 * NAK on RC and a silent drop (class D) on UC and UD.
 *
 * Each reason is counted per QP (rk_ib_qp_reason_stats(), printable through
 * rk_ib_reason_xstats) and, when the device has a trace hook, traced as
 * machine "reason", from = the reason's name, to = its rule ID.
 */
#ifndef RK_IB_REASON_H
#define RK_IB_REASON_H

#include <stdint.h>

#include "rk_xstats.h"

/* X(symbol, name, rule ID, spec reference) */
#define RK_IB_REASON_LIST(X) \
	X(NONE, "none", "-", "-") \
	/* responder: opcode and sequence */ \
	X(RESP_OPCODE, "resp.opcode.unsupported", "BTH-OPC-02", "IBTA Vol1 ch. 9") \
	X(RESP_OPSEQ_LAST, "resp.opseq.missing_last", "OPSEQ-02", "IBTA Vol1 ch. 9") \
	X(RESP_OPSEQ_FIRST, "resp.opseq.missing_first", "OPSEQ-01", "IBTA Vol1 ch. 9") \
	X(RESP_QP_ACCESS, "resp.qp_access.denied", "ATOM-QPACC-01", "IBTA Vol1 ch. 9") \
	/* responder: resources */ \
	X(RESP_RWQE_NONE, "resp.rwqe.none", "UD-NOWQE-01", "IBTA Vol1 ch. 9") \
	X(RESP_RWQE_BAD, "resp.rwqe.unusable", "RWQE-PROT-01", "IBTA Vol1 ch. 10") \
	X(RESP_RD_ATOMIC_NONE, "resp.rd_atomic.none", "ATOM-RES-01", "IBTA Vol1 ch. 9") \
	X(RESP_RD_ATOMIC_EXCEEDED, "resp.rd_atomic.exceeded", "ATOM-RES-01", "IBTA Vol1 ch. 9") \
	/* responder: lengths */ \
	X(RESP_LEN_PAD, "resp.length.pad", "BTH-PAD-01", "IBTA Vol1 ch. 9 (C9-92)") \
	X(RESP_LEN_RD_ATOMIC, "resp.length.rd_atomic_payload", "LEN-RDAT-01", "IBTA Vol1 ch. 9") \
	X(RESP_LEN_NOT_PMTU, "resp.length.not_pmtu", "LEN-MTU-01", "IBTA Vol1 ch. 9 (C9-92)") \
	X(RESP_LEN_LAST, "resp.length.last", "LEN-LAST-01", "IBTA Vol1 ch. 9 (C9-92)") \
	X(RESP_LEN_OVER_PMTU, "resp.length.over_pmtu", "LEN-MTU-02", "IBTA Vol1 ch. 9 (C9-92)") \
	X(RESP_DMALEN, "resp.read.dmalen", "MEM-DMALEN-01", "IBTA Vol1 ch. 9 (C9-94)") \
	X(RESP_ATOMIC_ALIGN, "resp.atomic.misaligned", "ATOM-ALIGN-01", "IBTA Vol1 ch. 9") \
	X(RESP_WRITE_LEN, "resp.write.length", "LEN-WR-01", "IBTA Vol1 ch. 9 (C9-92)") \
	/* responder: memory protection */ \
	X(RESP_RKEY, "resp.rkey.invalid", "MEM-RKEY-01", "IBTA Vol1 ch. 10") \
	X(RESP_RKEY_PD, "resp.rkey.pd", "MEM-PD-01", "IBTA Vol1 ch. 10") \
	X(RESP_RKEY_ACCESS, "resp.rkey.access", "MEM-ACC-01", "IBTA Vol1 ch. 10") \
	X(RESP_RKEY_BOUNDS, "resp.rkey.bounds", "MEM-BOUNDS-01", "IBTA Vol1 ch. 10") \
	X(RESP_RECV_LEN, "resp.recv.too_long", "LEN-RQ-01", "IBTA Vol1 ch. 9") \
	X(RESP_RECV_PROT, "resp.recv.protection", "RWQE-PROT-01", "IBTA Vol1 ch. 10") \
	X(RESP_INVALIDATE, "resp.invalidate.rkey", "MEM-INV-01", "IBTA Vol1 ch. 10") \
	X(RESP_READ_MR_GONE, "resp.read.mr_gone", "MEM-GONE-01", "IBTA Vol1 ch. 10") \
	/* responder: sequence errors and drops */ \
	X(RESP_PSN_GAP, "resp.psn.gap", "PSN-GAP-01", "IBTA Vol1 ch. 9") \
	X(RESP_PSN_GAP_AGAIN, "resp.psn.gap_again", "PSN-GAP-02", "IBTA Vol1 ch. 9") \
	X(RESP_RNR, "resp.rnr", "RNR-GEN-01", "IBTA Vol1 ch. 9") \
	X(RESP_UC_MSG_LOST, "resp.uc.message_lost", "UC-LOSS-01", "IBTA Vol1 ch. 9") \
	X(RESP_UD_QKEY, "resp.ud.qkey", "UD-QKEY-01", "IBTA Vol1 ch. 9") \
	X(RESP_DUP_READ_GONE, "resp.dup.read_not_held", "READ-DUP-03", "IBTA Vol1 ch. 9 (C9-105)") \
	X(RESP_DUP_READ_RANGE, "resp.dup.read_range", "READ-DUP-03", "IBTA Vol1 ch. 9 (C9-105)") \
	X(RESP_DUP_READ_MR, "resp.dup.read_mr_gone", "READ-DUP-03", "IBTA Vol1 ch. 9 (C9-105)") \
	X(RESP_DUP_ATOMIC_GONE, "resp.dup.atomic_not_held", "ATOM-DUP-02", "IBTA Vol1 ch. 9 (C9-105)") \
	X(RESP_DUP_OPCODE, "resp.dup.opcode_unsupported", "BTH-OPC-02", "IBTA Vol1 ch. 9") \
	/* completer */ \
	X(COMP_QP_STATE, "comp.qp_state", "COMP-STATE-01", "IBTA Vol1 ch. 10") \
	X(COMP_GHOST, "comp.ghost", "RETRY-GHOST-01", "IBTA Vol1 ch. 9") \
	X(COMP_DUP, "comp.duplicate", "COMP-DUP-01", "IBTA Vol1 ch. 9") \
	X(COMP_AETH_RESERVED, "comp.aeth.reserved", "AETH-RSVD-01", "IBTA Vol1 9.3") \
	X(COMP_NAK_INV, "comp.nak.invalid_request", "RETRY-FATAL-01", "IBTA Vol1 ch. 9") \
	X(COMP_NAK_RACC, "comp.nak.remote_access", "RETRY-FATAL-01", "IBTA Vol1 ch. 9") \
	X(COMP_NAK_ROP, "comp.nak.remote_op", "RETRY-FATAL-01", "IBTA Vol1 ch. 9") \
	X(COMP_RETRY_EXCEEDED, "comp.retry.exceeded", "RETRY-CNT-01", "IBTA Vol1 ch. 9") \
	X(COMP_RNR_RETRY_EXCEEDED, "comp.rnr_retry.exceeded", "RNR-RETRY-01", "IBTA Vol1 ch. 9")

#define RK_IB_REASON_ENUM_(sym, name, rule, cite) RK_IB_R_##sym,
/** Reasons; RK_IB_R_NONE is never counted. */
enum rk_ib_reason { RK_IB_REASON_LIST(RK_IB_REASON_ENUM_) RK_IB_REASON_COUNT };
#undef RK_IB_REASON_ENUM_

/** Per-QP count of each reason, indexed by enum rk_ib_reason (monotonic). */
struct rk_ib_reason_stats {
	uint64_t count[RK_IB_REASON_COUNT];
};

/** Counter table over struct rk_ib_reason_stats: one entry per reason but NONE. */
extern const struct rk_xstat_table rk_ib_reason_xstats;

struct rk_ib_qp;

/** Dotted name of @p r ("resp.rkey.bounds"), "?" when out of range. */
const char *rk_ib_reason_name(enum rk_ib_reason r);
/** Rule ID of doc/spec-rules.md that @p r enforces ("MEM-BOUNDS-01"), "?" when out of range. */
const char *rk_ib_reason_rule(enum rk_ib_reason r);
/** Spec reference of @p r ("IBTA Vol1 ch. 9 (C9-92)"), "?" when out of range. */
const char *rk_ib_reason_cite(enum rk_ib_reason r);

/** The QP's reason counters. */
const struct rk_ib_reason_stats *rk_ib_qp_reason_stats(const struct rk_ib_qp *qp);
/** The reason counted last on @p qp, RK_IB_R_NONE before any. */
enum rk_ib_reason rk_ib_qp_last_reason(const struct rk_ib_qp *qp);

#endif /* RK_IB_REASON_H */
