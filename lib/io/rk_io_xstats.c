/* SPDX-License-Identifier: BSD-3-Clause */
/* Names of the DPDK port counters (rk_io_xstats.h). */
#include "rk_io_xstats.h"

#define S(field, name) RK_XSTAT(struct rk_io_port_xstats, field, name)

static const struct rk_xstat_desc port_desc[] = {
	S(st.tx_frames, "port_xmit_packets"),
	S(st.rx_frames, "port_rcv_packets"),
	S(st.tx_bytes, "port_xmit_data"),
	S(st.rx_bytes, "port_rcv_data"),
	S(st.tx_dropped_full, "port_xmit_discards"),
	S(driver_tx_errors, "port_xmit_errors"),
	S(st.tx_ring_full, "port_xmit_wait"),
	S(st.rx_too_long, "port_rcv_errors"),
	S(st.tx_dropped_injected, "tx_injected_drops"),
	S(st.rx_other, "rx_non_roce"),
	S(st.rx_vlan_mismatch, "rx_vlan_mismatch"),
	S(st.rx_arp, "rx_arp"),
	S(st.rx_nd, "rx_nd"),
	S(st.tx_by_ref, "tx_payload_by_ref"),
	S(st.tx_by_ref_copied, "tx_payload_by_ref_copied"),
};

const struct rk_xstat_table rk_io_port_xstats =
	RK_XSTAT_TABLE("rk_io_port_xstats", struct rk_io_port_xstats, port_desc);
