/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file filter.h
 * rk-inspect's filters. The display filter chooses which packets' lines
 * (text or --packets-json) are printed; every frame is still analysed, so
 * the summaries and findings are those of the whole capture (as Wireshark's
 * display filter leaves its statistics alone). The capture filter (BPF,
 * libpcap's syntax, pcap-filter(7)) drops frames before anything sees
 * them, as a capture filter on the wire would: PSNs it removes show as
 * gaps.
 */
#ifndef RK_INSP_FILTER_H
#define RK_INSP_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rk_finding.h"
#include "rk_pkt.h"

/** The display filter: every condition given must hold. */
struct rk_insp_filter {
	bool any;                /**< some condition is set */
	bool qp_set;
	uint32_t qp;             /**< BTH DestQP */
	bool host_set;
	uint8_t host[16];        /**< source or destination (IPv4 as ::ffff:a.b.c.d) */
	bool opcode_set;
	uint8_t opcode;          /**< BTH OpCode */
	char finding[48];        /**< a finding whose ID starts with this ("" none) */
	uint64_t from_ns, to_ns; /**< time since the first frame: [from, to] */
	bool to_set;
};

/**
 * Parse display filter option @p name ("qp", "host", "opcode", "finding",
 * "from", "to") with value @p arg into @p f.
 * @return 0, or -1 with a one-line reason in @p why.
 */
int rk_insp_filter_parse(struct rk_insp_filter *f, const char *name, const char *arg,
			 char *why, size_t why_len);

/** Whether a frame at @p ts_ns since the first passes the conditions on
 * QP, host, opcode and time (findings are asked apart). */
bool rk_insp_filter_frame(const struct rk_insp_filter *f, const struct rk_pkt *pkt,
			  uint64_t ts_ns);

/** Whether @p found passes the finding condition (true when none is set). */
bool rk_insp_filter_findings(const struct rk_insp_filter *f, const struct rk_findings *found);

#endif /* RK_INSP_FILTER_H */
