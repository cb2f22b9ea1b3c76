/* SPDX-License-Identifier: BSD-3-Clause */
/* Counter table of struct rk_iw_stats (lib/common/rk_xstats.h). */
#ifndef RK_IW_XSTATS_H
#define RK_IW_XSTATS_H

#include "rk_xstats.h"

extern const struct rk_xstat_table rk_iw_xstats;

#endif /* RK_IW_XSTATS_H */
