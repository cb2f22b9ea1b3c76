/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counter table of struct rk_sim_link_stats (lib/common/rk_xstats.h), in
 * the order and with the names rk-sim prints on its "link" lines;
 * bytes_sent is a detail (not on those lines).
 */
#ifndef RK_SIM_XSTATS_H
#define RK_SIM_XSTATS_H

#include "rk_xstats.h"

extern const struct rk_xstat_table rk_sim_link_xstats;
/** Counters of one (switch port, priority): struct rk_sw_prio_stats; pause-ns and queue-peak are details. */
extern const struct rk_xstat_table rk_sim_switch_xstats;

#endif /* RK_SIM_XSTATS_H */
