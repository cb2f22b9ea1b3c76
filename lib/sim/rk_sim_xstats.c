/* SPDX-License-Identifier: BSD-3-Clause */
/* Names of the simulated link's counters (struct rk_sim_link_stats). */
#include "rk_sim.h"
#include "rk_sim_switch.h"
#include "rk_sim_xstats.h"

#define S(field, name) RK_XSTAT(struct rk_sim_link_stats, field, name)

static const struct rk_xstat_desc link_desc[] = {
	S(sent, "sent"),
	S(delivered, "delivered"),
	S(lost, "lost"),
	S(dup, "dup"),
	S(reordered, "reordered"),
	S(corrupted, "corrupted"),
	S(mtu_drops, "mtu-drops"),
	S(periodic_drops, "periodic"),
	S(overflow, "overflow"),
	S(rx_dropped, "rx-dropped"),
	S(in_flight, "in-flight"),
	RK_XSTAT_D(struct rk_sim_link_stats, bytes_sent, "bytes-sent"),
};

const struct rk_xstat_table rk_sim_link_xstats =
	RK_XSTAT_TABLE("rk_sim_link_stats", struct rk_sim_link_stats, link_desc);

#define W(field, name) RK_XSTAT(struct rk_sw_prio_stats, field, name)

static const struct rk_xstat_desc switch_desc[] = {
	W(tx_frames, "tx-frames"),
	W(rx_frames, "rx-frames"),
	W(tx_pause, "tx-pause"),
	W(rx_pause, "rx-pause"),
	RK_XSTAT_D(struct rk_sw_prio_stats, pause_ns, "pause-ns"),
	W(ecn_marked, "ecn-marked"),
	W(drops, "drops"),
	RK_XSTAT_D(struct rk_sw_prio_stats, queue_peak, "queue-peak"),
	W(pfcwd_storms, "pfcwd-storms"),
	W(pfcwd_drops, "pfcwd-drops"),
};

const struct rk_xstat_table rk_sim_switch_xstats =
	RK_XSTAT_TABLE("rk_sw_prio_stats", struct rk_sw_prio_stats, switch_desc);
