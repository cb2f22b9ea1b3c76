/* SPDX-License-Identifier: BSD-3-Clause */
/* Names of the iWARP engine counters (struct rk_iw_stats), as rk-perf prints them. */
#include "rk_iw.h"
#include "rk_iw_xstats.h"

#define S(field, name) RK_XSTAT(struct rk_iw_stats, field, name)

static const struct rk_xstat_desc iw_desc[] = {
	S(rx_bytes, "stream_rx_bytes"),
	S(tx_bytes, "stream_tx_bytes"),
	S(rx_fpdus, "rx_fpdus"),
	S(tx_fpdus, "tx_fpdus"),
	S(placed_bytes, "placed_bytes"),
	S(term_sent, "terminate_sent"),
	S(term_rcvd, "terminate_rcvd"),
};

const struct rk_xstat_table rk_iw_xstats = RK_XSTAT_TABLE("rk_iw_stats", struct rk_iw_stats,
							  iw_desc);
