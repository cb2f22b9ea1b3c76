/* SPDX-License-Identifier: BSD-3-Clause */
/* The mac engine: as io, with the Ethernet source and destination swapped. */
#include <rte_ether.h>

#include "testpmd.h"

static void
mac_fwd(struct rk_tp_stream *fs)
{
	struct rte_mbuf *m[RK_TP_BURST];
	uint16_t n = rk_tp_rx(fs, m);

	if (n == 0)
		return;
	for (uint16_t i = 0; i < n; i++) {
		struct rte_ether_hdr *eh;
		struct rte_ether_addr t;

		if (rte_pktmbuf_data_len(m[i]) < sizeof(*eh))
			continue;
		eh = rte_pktmbuf_mtod(m[i], struct rte_ether_hdr *);
		t = eh->dst_addr;
		eh->dst_addr = eh->src_addr;
		eh->src_addr = t;
	}
	rk_tp_send(fs->tx_port, m, n, fs);
}

const struct rk_tp_engine rk_tp_fwd_mac = {
	.name = "mac",
	.help = "forward between paired ports, Ethernet addresses swapped",
	.packet_fwd = mac_fwd,
};
