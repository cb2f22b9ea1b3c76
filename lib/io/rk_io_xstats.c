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
	/* PAUSE and PFC as mlx5's ethtool counters name them. */
	S(st.rx_pause, "rx_pause_ctrl_phy"),
	S(st.tx_pause, "tx_pause_ctrl_phy"),
	S(st.rx_pfc, "rx_pfc_ctrl_phy"),
	S(st.tx_pfc, "tx_pfc_ctrl_phy"),
	S(st.rx_prio_pause[0], "rx_prio0_pause"), S(st.rx_prio_pause_ns[0], "rx_prio0_pause_duration_ns"),
	S(st.rx_prio_pause[1], "rx_prio1_pause"), S(st.rx_prio_pause_ns[1], "rx_prio1_pause_duration_ns"),
	S(st.rx_prio_pause[2], "rx_prio2_pause"), S(st.rx_prio_pause_ns[2], "rx_prio2_pause_duration_ns"),
	S(st.rx_prio_pause[3], "rx_prio3_pause"), S(st.rx_prio_pause_ns[3], "rx_prio3_pause_duration_ns"),
	S(st.rx_prio_pause[4], "rx_prio4_pause"), S(st.rx_prio_pause_ns[4], "rx_prio4_pause_duration_ns"),
	S(st.rx_prio_pause[5], "rx_prio5_pause"), S(st.rx_prio_pause_ns[5], "rx_prio5_pause_duration_ns"),
	S(st.rx_prio_pause[6], "rx_prio6_pause"), S(st.rx_prio_pause_ns[6], "rx_prio6_pause_duration_ns"),
	S(st.rx_prio_pause[7], "rx_prio7_pause"), S(st.rx_prio_pause_ns[7], "rx_prio7_pause_duration_ns"),
	S(st.tx_paused_holds, "tx_paused_holds"),
	S(pcap_frames, "pcap_frames"),
	S(pcap_waits, "pcap_waits"),
};

const struct rk_xstat_table rk_io_port_xstats =
	RK_XSTAT_TABLE("rk_io_port_xstats", struct rk_io_port_xstats, port_desc);
