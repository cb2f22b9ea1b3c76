/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rdma engine: every frame received on a port goes to the port's
 * verbs device (rdma_dev.c), which answers through the same port; the
 * device's timers (retransmission, ACK coalescing) run on every pass.
 * ARP requests for a device's address are answered. QP1's CM MADs go
 * to the "qp connect ... rdma_cm" waiting on the port, or are counted
 * and freed (the device has no QP1: rk_tp_rdma_cm_mad()). Frames of a port
 * without a device are counted and freed, as are those the device's QPs
 * do not want (its counters: "show rdma <port>").
 */
#include "rdma.h"
#include "rk_byteorder.h"
#include "testpmd.h"

static void
rdma_fwd(struct rk_tp_stream *fs)
{
	struct rte_mbuf *m[RK_TP_BURST];
	uint16_t n = rk_tp_rx(fs, m), k = 0;

	/* ARP is answered here (a remote peer must find the QPs' MAC), CM MADs taken */
	if (n > 0) {
		rte_ticketlock_lock(&rk_tp_rdma_lock);
		for (uint16_t i = 0; i < n; i++) {
			const uint8_t *f = rte_pktmbuf_mtod(m[i], const uint8_t *);
			uint32_t len = rte_pktmbuf_data_len(m[i]);

			if (len >= 14 && rk_get_be16(f + 12) == RK_TP_ETH_ARP) {
				(void)rk_tp_rdma_arp_answer(fs->rx_port, f, len);
				rte_pktmbuf_free(m[i]);
			} else if (rk_tp_rdma_cm_mad(fs->rx_port, f, len)) {
				rte_pktmbuf_free(m[i]);
			} else {
				m[k++] = m[i];
			}
		}
		rte_ticketlock_unlock(&rk_tp_rdma_lock);
	}
	/* k == 0 too: the device's timers and the frames it has to send */
	rk_tp_rdma_feed(fs->rx_port, m, k);
}

const struct rk_tp_engine rk_tp_fwd_rdma = {
	.name = "rdma",
	.help = "hand received frames to the port's verbs device (QPs of qp create)",
	.packet_fwd = rdma_fwd,
};
