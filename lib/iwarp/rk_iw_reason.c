/* SPDX-License-Identifier: BSD-3-Clause */
/* Terminate reasons: names, rules, codes and counting (rk_iw_reason.h). */
#include <stddef.h>

#include "rk_iw_internal.h"
#include "rk_iw_reason.h"

#define ROW_(sym, name, rule, cite, layer, etype, code) \
	[RK_IW_R_##sym] = { name, rule, cite, layer, etype, code },
#define DESC_(sym, name, rule, cite, layer, etype, code) \
	{ name, offsetof(struct rk_iw_reason_stats, count[RK_IW_R_##sym]), 0 },

static const struct rk_iw_reason_info rows[RK_IW_REASON_COUNT] = { RK_IW_REASON_LIST(ROW_) };
static const struct rk_xstat_desc reason_desc_all[] = { RK_IW_REASON_LIST(DESC_) };

/* NONE (the first entry) is never counted: the table starts after it. */
const struct rk_xstat_table rk_iw_reason_xstats = {
	"rk_iw_reason_stats", sizeof(struct rk_iw_reason_stats), reason_desc_all + 1,
	RK_IW_REASON_COUNT - 1,
};

const struct rk_iw_reason_info *
rk_iw_reason_info(enum rk_iw_reason r)
{
	return (unsigned int)r < RK_IW_REASON_COUNT ? &rows[r] : NULL;
}

const struct rk_iw_reason_stats *
rk_iw_qp_reason_stats(const struct rk_iw_qp *qp)
{
	return &qp->reasons;
}

enum rk_iw_reason
rk_iw_qp_last_reason(const struct rk_iw_qp *qp)
{
	return qp->last_reason;
}
