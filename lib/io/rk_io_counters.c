/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DPDK I/O backend, counters: the port's statistics and their names next
 * to the engine's (IB port counters as perfquery names them, then the
 * backend's own).
 */
#include "rk_io_internal.h"

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
		struct rk_io_counter p[] = {
			/* IB port counters (perfquery), then the backend's own */
			{ "port_xmit_packets", io->st.tx_frames },
			{ "port_rcv_packets", io->st.rx_frames },
			{ "port_xmit_data", io->st.tx_bytes },
			{ "port_rcv_data", io->st.rx_bytes },
			{ "port_xmit_discards", io->st.tx_dropped_full },
			{ "port_xmit_errors", driver_tx_errors(io) },
			{ "port_xmit_wait", io->st.tx_ring_full },
			{ "port_rcv_errors", io->st.rx_too_long },
			{ "tx_injected_drops", io->st.tx_dropped_injected },
			{ "rx_non_roce", io->st.rx_other },
			{ "rx_vlan_mismatch", io->st.rx_vlan_mismatch },
			{ "rx_arp", io->st.rx_arp },
			{ "rx_nd", io->st.rx_nd },
			{ "tx_payload_by_ref", io->st.tx_by_ref },
			{ "tx_payload_by_ref_copied", io->st.tx_by_ref_copied },
		};

		for (unsigned int i = 0; i < sizeof(p) / sizeof(p[0]) && n < max; i++)
			out[n++] = p[i];
	}
	return n;
}

