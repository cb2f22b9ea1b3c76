/* SPDX-License-Identifier: BSD-3-Clause */
/* The io engine: frames go out of the paired port as they came in. */
#include "testpmd.h"

static void
io_fwd(struct rk_tp_stream *fs)
{
	struct rte_mbuf *m[RK_TP_BURST];
	uint16_t n = rk_tp_rx(fs, m);

	if (n == 0)
		return;
	rk_tp_send(fs->tx_port, m, n, fs);
}

const struct rk_tp_engine rk_tp_fwd_io = {
	.name = "io",
	.help = "forward between paired ports as received",
	.packet_fwd = io_fwd,
};
