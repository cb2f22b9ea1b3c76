/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counter table of struct rk_ib_stats (lib/common/rk_xstats.h), named as
 * `rdma statistic` names mlx5 and rxe hardware counters (mlx5 names first,
 * then rxe's, then rdmakit's own); rk_counters_from_stats() lists these.
 */
#ifndef RK_IB_XSTATS_H
#define RK_IB_XSTATS_H

#include "rk_xstats.h"

extern const struct rk_xstat_table rk_ib_xstats;

#endif /* RK_IB_XSTATS_H */
