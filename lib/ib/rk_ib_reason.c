/* SPDX-License-Identifier: BSD-3-Clause */
/* Reason names, rules and counting (rk_ib_reason.h). */
#include "rk_ib_internal.h"
#include "rk_ib_reason.h"

#define NAME_(sym, name, rule, cite) [RK_IB_R_##sym] = name,
#define RULE_(sym, name, rule, cite) [RK_IB_R_##sym] = rule,
#define CITE_(sym, name, rule, cite) [RK_IB_R_##sym] = cite,
#define DESC_(sym, name, rule, cite) \
	{ name, offsetof(struct rk_ib_reason_stats, count[RK_IB_R_##sym]), 0 },

static const char *const reason_name[RK_IB_REASON_COUNT] = { RK_IB_REASON_LIST(NAME_) };
static const char *const reason_rule[RK_IB_REASON_COUNT] = { RK_IB_REASON_LIST(RULE_) };
static const char *const reason_cite[RK_IB_REASON_COUNT] = { RK_IB_REASON_LIST(CITE_) };
static const struct rk_xstat_desc reason_desc_all[] = { RK_IB_REASON_LIST(DESC_) };

/* NONE (the first entry) is never counted: the table starts after it. */
const struct rk_xstat_table rk_ib_reason_xstats = {
	"rk_ib_reason_stats", sizeof(struct rk_ib_reason_stats), reason_desc_all + 1,
	RK_IB_REASON_COUNT - 1,
};

static const char *
pick(const char *const *t, enum rk_ib_reason r)
{
	return (unsigned int)r < RK_IB_REASON_COUNT ? t[r] : "?";
}

const char *
rk_ib_reason_name(enum rk_ib_reason r)
{
	return pick(reason_name, r);
}

const char *
rk_ib_reason_rule(enum rk_ib_reason r)
{
	return pick(reason_rule, r);
}

const char *
rk_ib_reason_cite(enum rk_ib_reason r)
{
	return pick(reason_cite, r);
}

const struct rk_ib_reason_stats *
rk_ib_qp_reason_stats(const struct rk_ib_qp *qp)
{
	return &qp->reasons;
}

enum rk_ib_reason
rk_ib_qp_last_reason(const struct rk_ib_qp *qp)
{
	return qp->last_reason;
}

void
rk_ib_reason_count(struct rk_ib_qp *qp, enum rk_ib_reason r)
{
	if (r == RK_IB_R_NONE || (unsigned int)r >= RK_IB_REASON_COUNT)
		return;
	qp->reasons.count[r]++;
	qp->last_reason = r;
	if (qp->dev->attr.trace != NULL)
		rk_ib_trace(qp, "reason", reason_name[r], reason_rule[r]);
}
