/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DPDK I/O backend, counters: the port's statistics and their names next
 * to the engine's (IB port counters as perfquery names them, then the
 * backend's own).
 */
#include "rk_io_internal.h"
#include "rk_io_xstats.h"

const struct rk_io_dpdk_stats *
rk_io_dpdk_stats(const struct rk_io_dpdk *io)
{
	return &io->st;
}

/*
 * Frames the driver took and then dropped: its oerrors since the port
 * started (net_af_packet: frames over its frame slot). 22.11's memif also
 * counts the frames it hands back when its ring is full, which wait in
 * our queue and go out later: those are not errors.
 */
static uint64_t
driver_tx_errors(const struct rk_io_dpdk *io)
{
	struct rte_eth_stats es;
	uint64_t e;

	if (rte_eth_stats_get(io->port, &es) != 0 || es.oerrors < io->oerrors_base)
		return 0;
	e = es.oerrors - io->oerrors_base;
	if (io->oerrors_refused)
		e = e > io->st.tx_refused ? e - io->st.tx_refused : 0;
	return e;
}

unsigned int
rk_io_hw_counters(const struct rk_io_dpdk *io, const struct rk_ib_stats *ib,
		  struct rk_io_counter *out, unsigned int max)
{
	struct rk_counter c[64];
	unsigned int n = 0, k = ib != NULL ? rk_counters_from_stats(ib, c, 64) : 0;

	for (unsigned int i = 0; i < k && n < max; i++)
		out[n++] = (struct rk_io_counter){ c[i].name, c[i].value };
	if (io != NULL) {
		struct rk_io_port_xstats x = { io->st, driver_tx_errors(io), io->pcap.frames,
						 io->pcap.waits };

		for (unsigned int i = 0; i < rk_io_port_xstats.n && n < max; i++)
			out[n++] = (struct rk_io_counter){ rk_io_port_xstats.desc[i].name,
							   rk_xstat_value(&rk_io_port_xstats, i, &x) };
	}
	return n;
}

