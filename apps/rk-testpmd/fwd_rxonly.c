/* SPDX-License-Identifier: BSD-3-Clause */
/* The rxonly engine: count (and with "set verbose 1" decode) every frame, send nothing. */
#include "testpmd.h"

static void
rxonly_fwd(struct rk_tp_stream *fs)
{
	struct rte_mbuf *m[RK_TP_BURST];
	uint16_t n = rk_tp_rx(fs, m);

	if (n == 0)
		return;
	rte_pktmbuf_free_bulk(m, n);
}

const struct rk_tp_engine rk_tp_fwd_rxonly = {
	.name = "rxonly",
	.help = "count and decode received frames, send nothing",
	.packet_fwd = rxonly_fwd,
};
