/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rkw_plugin.h
 * What the rdmakit postdissector hands to its tap ("rdmakit"), one record
 * per RDMA frame, and the statistics registration.
 */
#ifndef RKW_PLUGIN_H
#define RKW_PLUGIN_H

#include <stdbool.h>
#include <stdint.h>

#include "rkw_analysis.h"

/** Tap record of one frame (RoCE packet or iWARP TCP segment). */
struct rkw_tapinfo {
	uint32_t flow;          /**< flow index (rkw_plugin_flow) */
	bool iwarp;
	uint32_t bytes;         /**< frame bytes on the wire */
	uint32_t msgs;          /**< messages completed here */
	uint64_t msg_len;       /**< its bytes (sum when several iWARP messages) */
	uint32_t lost;          /**< PSNs lost before this packet */
	uint32_t not_lost;      /**< PSNs reported lost before that came late with it */
	bool rtx;               /**< retransmission (PSN behind the expected one) */
	bool gbn;               /**< first packet of a go-back-N episode */
	bool nak, rnr;
	bool cnp;
	bool icrc_bad;
	uint32_t crc_bad;       /**< FPDUs with a bad MPA CRC completed here */
	uint32_t terms;         /**< Terminates completed here */
	uint32_t fpdus;         /**< FPDUs / MPA frames completed here */
	bool has_ack_rtt, has_read_rt;
	uint32_t lat_flow;      /**< flow the latencies belong to (the requester's) */
	uint64_t ack_rtt_ns, read_rt_ns;
};

/** The flow of index @p idx in the capture being read, or NULL. */
const struct rkw_flow_info *rkw_plugin_flow(uint32_t idx);

/** Register the "-z rdmakit,qp[,filter]" statistics. */
void rkw_register_stats(void);

#endif /* RKW_PLUGIN_H */
