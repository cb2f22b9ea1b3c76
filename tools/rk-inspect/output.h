/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file output.h
 * rk-inspect writers: the per-packet text line, the per-packet JSON
 * object (--packets-json), the text summary and the summary JSON document
 * (schema in doc/inspect.md).
 */
#ifndef RK_INSP_OUTPUT_H
#define RK_INSP_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "rk_insp_cmconn.h"
#include "rk_insp_flow.h"
#include "inspect.h"
#include "rk_insp_iwarp.h"
#include "rk_insp_qos.h"
#include "rk_insp_series.h"
#include "rk_insp_timing.h"
#include "rk_mad.h"
#include "rk_pkt.h"

/** Where a packet sits in the capture. */
struct rk_insp_frame {
	uint64_t no;            /**< 1-based frame number */
	uint64_t ts_ns;         /**< time since the first frame */
};

/* ---- per-packet text lines (packet_text.c) ---- */

/** Format @p addr (16 bytes, IPv4 mapped or IPv6/GID; LID when @p lid). */
void rk_insp_format_addr(char *buf, size_t len, const uint8_t *addr, bool lid);

/** Source and destination of @p pkt: IP/GID, else LIDs, else MACs. */
void rk_insp_pkt_addrs(const struct rk_pkt *pkt, char *src, char *dst, size_t len);

/** Those of a frame that may have neither IP nor Ethernet layer ("?" then). */
void rk_insp_frame_addrs(const struct rk_pkt *pkt, char *src, char *dst, size_t len);

/** The ICRC's verdict: the text line's word, or the JSON's when @p json. */
const char *rk_insp_icrc_verdict(const struct rk_pkt *pkt, bool json);

/** One text line for a RoCE/IB packet. */
void rk_insp_print_roce_line(FILE *out, const struct rk_insp_frame *fr,
			     const struct rk_pkt *pkt,
			     const struct rk_insp_seq_result *seq,
			     const struct rk_findings *found);

/** One text line for a PAUSE or PFC frame. */
void rk_insp_print_mac_control_line(FILE *out, const struct rk_insp_frame *fr,
				    const struct rk_pkt *pkt);

/**
 * One text line for a frame that is not decoded as RDMA (or too short for
 * a BTH) but raised findings: addresses, kind, wire length, findings.
 */
void rk_insp_print_frame_line(FILE *out, const struct rk_insp_frame *fr,
			      const struct rk_pkt *pkt);

/** One text line for an iWARP event. */
void rk_insp_print_iw_line(FILE *out, const struct rk_insp_iw_event *ev);

/* ---- per-packet JSON, --packets-json (packet_json.c) ---- */

/** JSON object of a RoCE/IB packet (--packets-json); caller owns it. */
json_t *rk_insp_roce_json(const struct rk_insp_frame *fr, const struct rk_pkt *pkt,
			  const struct rk_insp_seq_result *seq,
			  const struct rk_findings *found);

/** JSON object of such a frame (--packets-json, unit "frame"); caller owns it. */
json_t *rk_insp_frame_json(const struct rk_insp_frame *fr, const struct rk_pkt *pkt);

/** JSON object of an iWARP event (--packets-json); caller owns it. */
json_t *rk_insp_iw_json(const struct rk_insp_iw_event *ev);

/** Write @p obj as one compact line to @p out and release it. */
int rk_insp_json_line(FILE *out, json_t *obj);

/* ---- the summary: text (summary_text.c), JSON (summary_json.c) ---- */

/** Text summary: totals, one table row per QP flow and per connection. */
void rk_insp_print_summary(FILE *out, const struct rk_insp_report *rep);

/** The summary JSON document; caller owns it. */
json_t *rk_insp_summary_json(const struct rk_insp_report *rep);

/* Shared by both summaries; in summary_json.c. */

/** Format the addresses of flow @p f into @p src and @p dst (@p len bytes each). */
void rk_insp_flow_addrs(const struct rk_insp_flow *f, char *src, char *dst, size_t len);

/** Name of BTH opcode @p op (IBTA Vol1 9.2, Table 38), NULL when it has none. */
const char *rk_insp_opcode_name(uint8_t op);

/** "addr:port" (IPv6 "[addr]:port") of side @p side (0 initiator) of @p c. */
void rk_insp_iw_endpoint(char *buf, size_t len, const struct rk_insp_iw_conn *c, int side);

/* ---- QoS view (qos_out.c; computation in lib/analysis/rk_insp_qos.c) ---- */

/**
 * The QoS marks of a packet line into @p buf: " VLAN=vid PCP=p" when
 * tagged, " DSCP=n" when not 0, " ECN=ECT(0)|ECT(1)|CE" when not Not-ECT
 * (RFC 3168 5). Empty when there is nothing to say.
 */
void rk_insp_qos_marks_text(char *buf, size_t len, const struct rk_insp_qos_marks *m);

/**
 * Add the keys "vlan" (null, or {"vid", "pcp"}), "dscp" and "ecn" (null
 * without an IP header or GRH; ECN as its 2-bit codepoint) to @p o.
 */
void rk_insp_qos_marks_json(json_t *o, const struct rk_insp_qos_marks *m);

/** The "qos" object of a QP flow in the summary JSON; caller owns it. */
json_t *rk_insp_flow_qos_json(const struct rk_insp_flow_qos *q);

/** The flow's QoS line of the text summary, when it has anything to say. */
void rk_insp_print_flow_qos(FILE *out, const struct rk_insp_flow *f);

/** The "qos" object of the summary JSON (doc/inspect.md); caller owns it. */
json_t *rk_insp_qos_json(const struct rk_insp_qos *q);

/** The QoS section of the text summary; nothing when the capture shows nothing of it. */
void rk_insp_print_qos(FILE *out, const struct rk_insp_qos *q);

/* ---- timing (timing_out.c; computation in lib/analysis/rk_insp_timing.c) ---- */

/**
 * Parse --interval: seconds, a finite number above 0 (1 ns to a day),
 * into @p ns. @return 0, -EINVAL (not such a number), -ERANGE.
 */
int rk_insp_parse_interval(const char *s, uint64_t *ns);

/**
 * A MAD to QP1 (@p pkt, parsed): a CM REQ or REP (IBTA Vol1 12.6.5, 12.6.8)
 * names the QPs of a connection for the timing's pairing; others nothing.
 */
void rk_insp_timing_cm(struct rk_insp_timing *t, const struct rk_pkt *pkt);

/**
 * The flow's timing line of the text summary: duration (first to last
 * packet), goodput (payload of packets not duplicates) and wire rate in
 * Gb/s, ACK RTT and READ latency p50/p99/max in us with their counts.
 */
void rk_insp_print_flow_timing(FILE *out, const struct rk_insp_flow *f);

/** The "timing" object of a QP flow in the summary JSON; caller owns it. */
json_t *rk_insp_flow_timing_json(const struct rk_insp_flow *f);

/**
 * An iWARP direction's timing line of the text summary: first to last
 * FPDU, goodput (RDMAP payload of Sends, Writes and Read Responses) and
 * wire rate (its TCP frames) in Gb/s, and the READ latency of its Read
 * Requests (to the first segment of the response) p50/p99/max in us.
 * Nothing when it carried no FPDU.
 */
void rk_insp_print_iw_timing(FILE *out, const struct rk_insp_iw_dir *x);

/** The "timing" object of an iWARP direction in the summary JSON; caller owns it. */
json_t *rk_insp_iw_timing_json(const struct rk_insp_iw_dir *x);

/** The summary JSON's "timing" object (flows timed, untimed, unpaired); caller owns it. */
json_t *rk_insp_timing_json(const struct rk_insp_timing *t);

/**
 * The series as CSV, a header line then one row per interval:
 * start_s,frames,wire_gbps,goodput_gbps,rtx_frames,ce,cnps,pause_frames.
 */
void rk_insp_series_csv(FILE *out, const struct rk_insp_series *s);

/** The series as the summary JSON's "intervals" array; caller owns it. */
json_t *rk_insp_series_json(const struct rk_insp_series *s);

/**
 * Plot the series into PNG file @p png by running gnuplot (found on the
 * PATH) with the rows inline: rates above, counts below, titled @p title.
 * @return 0, or -1 with one line in @p err (no gnuplot, gnuplot failed).
 */
int rk_insp_series_plot(const char *png, const struct rk_insp_series *s, const char *title,
			char *err, size_t elen);

/**
 * Write the series where the options say: CSV to @p csv (a file, or "-":
 * @p out, nothing when @p out is NULL), a PNG to @p plot (NULL: none).
 * @return 0, or -1 with one line in @p err (too many intervals, a file
 * that cannot be written, no gnuplot, gnuplot failed).
 */
int rk_insp_series_write(const struct rk_insp_series *s, FILE *out, const char *csv,
			 const char *plot, const char *title, char *err, size_t elen);

/** Whether gnuplot is on the PATH. @return 0, or -1 with one line in @p err. */
int rk_insp_gnuplot_check(char *err, size_t elen);
/* ---- MADs on QP0/QP1 (mad_out.c; tables in lib/wire/rk_mad.c) ---- */

/**
 * The MAD of a packet line into @p buf: " {CLASS METHOD ATTRIBUTE TID=...
 * key fields}" with the names of rk_mad.h's tables (numbers where a table
 * has none); CM messages add their Communication IDs, QPN, starting PSN,
 * REJ reason by name.
 */
void rk_insp_mad_text(char *buf, size_t len, const struct rk_mad *m);

/** The "mad" object of a packet's JSON (doc/inspect.md); caller owns it. */
json_t *rk_insp_mad_json(const struct rk_mad *m);

/** The flow's CM line of the text summary, when a CM connection set its QP up. */
void rk_insp_print_flow_cm(FILE *out, const struct rk_insp_cmconns *t,
			   const struct rk_insp_flow *f);

/** The "cm" member of a QP flow in the summary JSON: null, or its connection. */
json_t *rk_insp_flow_cm_json(const struct rk_insp_cmconns *t, const struct rk_insp_flow *f);

/** The CM connections section of the text summary (nothing without CM MADs). */
void rk_insp_print_cm(FILE *out, const struct rk_insp_cmconns *t);

/** The "cm_connections" array of the summary JSON; caller owns it. */
json_t *rk_insp_cm_json(const struct rk_insp_cmconns *t);

#endif /* RK_INSP_OUTPUT_H */
