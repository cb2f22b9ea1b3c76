/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rdma engine: every frame received on a port goes to the port's
 * verbs device (rdma_dev.c), which answers through the same port; the
 * device's timers (retransmission, ACK coalescing) run on every pass.
 * Frames of a port without a device are counted and freed, as are those
 * the device's QPs do not want (its counters: "show rdma <port>").
 */
#include "rdma.h"
#include "testpmd.h"

static void
rdma_fwd(struct rk_tp_stream *fs)
{
	struct rte_mbuf *m[RK_TP_BURST];
	uint16_t n = rk_tp_rx(fs, m);

	/* n == 0 too: the device's timers and the frames it has to send */
	rk_tp_rdma_feed(fs->rx_port, m, n);
}

const struct rk_tp_engine rk_tp_fwd_rdma = {
	.name = "rdma",
	.help = "hand received frames to the port's verbs device (QPs of qp create)",
	.packet_fwd = rdma_fwd,
};
