/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_finding.h
 * The finding table: every protocol violation rdmakit can report, with a
 * stable ID, a severity and the spec clause it cites.
 *
 * One table serves rk-inspect, the conformance tester and the Wireshark
 * plugin's expert info. IDs are strings such as "bth.tver.nonzero"; they
 * never change meaning once released (doc/findings.md lists them all).
 * The table itself is built from the X-macro lists rk_finding_list_*.h.
 */
#ifndef RK_FINDING_H
#define RK_FINDING_H

#include <stdint.h>

/** How bad a finding is. */
enum rk_severity {
	RK_SEV_NOTE = 0,  /**< worth knowing, not a violation (e.g. truncated by snaplen) */
	RK_SEV_WARN = 1,  /**< a SHOULD broken, or a reserved field set */
	RK_SEV_ERROR = 2, /**< a MUST broken: a receiver drops or errors */
};

/** Finding identifiers; RK_F_COUNT is the number of findings. */
enum rk_finding_id {
#define RK_FINDING(sym, id, sev, ref, text) sym,
#include "rk_finding_list_roce.h"
#include "rk_finding_list_iwarp.h"
#undef RK_FINDING
	RK_F_COUNT
};

/** One row of the finding table. */
struct rk_finding_info {
	const char *id;         /**< stable dotted ID, e.g. "icrc.bad" */
	enum rk_severity severity;
	const char *spec_ref;   /**< e.g. "IBTA Vol1 A17 CA17-22" */
	const char *text;       /**< one-line meaning */
};

/**
 * Look up the table row of a finding.
 * @param id  a value below RK_F_COUNT
 * @return the row, or NULL when @p id is out of range.
 */
const struct rk_finding_info *rk_finding_info(enum rk_finding_id id);

/**
 * Find a finding by its dotted ID string.
 * @return its enum value, or -1 when no finding has that ID.
 */
int rk_finding_lookup(const char *id);

/** Name of a severity: "note", "warning" or "error". */
const char *rk_severity_name(enum rk_severity sev);

/** Most findings one packet (or one FPDU) keeps; more are counted in @c dropped. */
#define RK_FINDINGS_MAX 16

/** One finding raised on a packet: which, and where. */
struct rk_finding {
	uint16_t id;      /**< enum rk_finding_id */
	uint32_t offset;  /**< byte offset in the frame (or stream) it points at */
};

/** The findings of one packet or FPDU. Zero-initialise before use. */
struct rk_findings {
	uint16_t count;    /**< entries used in @c list */
	uint16_t dropped;  /**< findings raised past RK_FINDINGS_MAX */
	struct rk_finding list[RK_FINDINGS_MAX];
};

/** Record finding @p id at byte @p offset. Never fails: overflow counts in dropped. */
void rk_findings_add(struct rk_findings *f, enum rk_finding_id id, uint32_t offset);

/** Whether @p f holds finding @p id. */
int rk_findings_has(const struct rk_findings *f, enum rk_finding_id id);

#endif /* RK_FINDING_H */
