/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * JSON output of the counter registry (lib/common/rk_xstats.h) with
 * jansson, for the tools and apps: every counter of a table as a key of a
 * JSON object, named as the text output names it.
 */
#ifndef RK_XSTATS_JSON_H
#define RK_XSTATS_JSON_H

#include <jansson.h>

#include "rk_xstats.h"

/**
 * Set one integer member of @p obj per counter of @p t read from @p stats.
 * @return 0, or -1 when jansson could not add a member (out of memory).
 */
static inline int
rk_xstats_json(json_t *obj, const struct rk_xstat_table *t, const void *stats)
{
	for (unsigned int i = 0; i < t->n; i++)
		if (json_object_set_new(obj, t->desc[i].name,
					json_integer((json_int_t)rk_xstat_value(t, i, stats))) != 0)
			return -1;
	return 0;
}

#endif /* RK_XSTATS_JSON_H */
