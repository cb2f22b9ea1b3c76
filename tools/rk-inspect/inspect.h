/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file inspect.h
 * Shared state of rk-inspect: options, capture totals and the report
 * handed to the output writers.
 */
#ifndef RK_INSP_INSPECT_H
#define RK_INSP_INSPECT_H

#include <stdbool.h>
#include <stdint.h>

#include "rk_finding.h"
#include "rk_insp_cmconn.h"
#include "rk_insp_qos.h"
#include "rk_insp_series.h"
#include "rk_insp_timing.h"

/** Version of the --json and --packets-json schemas (doc/inspect.md). */
#define RK_INSP_SCHEMA "rk-inspect/1"

/** Output mode. */
enum rk_insp_mode {
	RK_INSP_LINES = 0,      /**< one line per packet / FPDU (default) */
	RK_INSP_SUMMARY,        /**< per-QP / per-connection text tables */
	RK_INSP_JSON,           /**< summary JSON document */
	RK_INSP_PACKETS_JSON,   /**< one JSON object per packet / FPDU per line */
};

/** Capture-wide counters. */
struct rk_insp_totals {
	uint64_t frames;           /**< records read */
	uint64_t rdma_frames;      /**< frames with a BTH, or of an iWARP connection */
	uint64_t truncated_frames; /**< caplen < wirelen */
	uint64_t bytes;            /**< wire bytes of all frames */
	uint64_t captured_bytes;   /**< captured bytes of all frames */
	uint64_t rdma_bytes;       /**< wire bytes of RDMA frames */
	uint64_t rocev2_frames, rocev1_frames, ib_frames, iwarp_frames;
	uint64_t tcp_frames, pause_frames, pfc_frames, other_frames;
	uint64_t icrc_good, icrc_bad, icrc_unchecked;
	uint64_t fpdus, mpa_requests, mpa_replies, mpa_crc_bad;
	uint64_t parse_errors;     /**< frames rk_pkt_parse refused */
	uint64_t unknown_linktype_frames; /**< pcapng frames of an interface whose link type is not decoded */
	uint64_t ts_backwards;     /**< frames stamped before the frame before them */
	uint64_t findings[RK_F_COUNT];
	uint64_t error_findings;   /**< findings of severity error */
	uint64_t first_ts_ns, last_ts_ns;
};

/** Everything the summary writers need. */
struct rk_insp_report {
	const char *file;
	bool interface;                /**< @p file names the interface captured on (-i) */
	const char *linktype;          /**< libpcap's DLT name */
	const struct rk_insp_totals *totals;
	const struct rk_insp_flows *flows;
	const struct rk_insp_iw *iw;
	const struct rk_insp_qos *qos; /**< QoS and congestion view, or NULL */
	const struct rk_insp_timing *timing; /**< ACK RTT / READ latency tables, or NULL */
	const struct rk_insp_series *series; /**< the --interval series, or NULL */
	const struct rk_insp_cmconns *cm; /**< CM connections, or NULL */
	const char *read_error;        /**< NULL, or why reading stopped early */
	bool read_error_at_eof;        /**< a short read at the end of the file (truncated) */
	uint32_t pmtu_option;
	bool icrc_checked;
};

#endif /* RK_INSP_INSPECT_H */
