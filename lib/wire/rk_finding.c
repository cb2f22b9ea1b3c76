/* SPDX-License-Identifier: BSD-3-Clause */
#include "rk_finding.h"

#include <string.h>

static const struct rk_finding_info finding_table[RK_F_COUNT] = {
#define RK_FINDING(sym, id, sev, ref, text) [sym] = { id, sev, ref, text },
#include "rk_finding_list_roce.h"
#include "rk_finding_list_iwarp.h"
#undef RK_FINDING
};

const struct rk_finding_info *
rk_finding_info(enum rk_finding_id id)
{
	if ((unsigned int)id >= RK_F_COUNT)
		return NULL;
	return &finding_table[id];
}

int
rk_finding_lookup(const char *id)
{
	for (int i = 0; i < RK_F_COUNT; i++)
		if (strcmp(finding_table[i].id, id) == 0)
			return i;
	return -1;
}

const char *
rk_severity_name(enum rk_severity sev)
{
	switch (sev) {
	case RK_SEV_NOTE:
		return "note";
	case RK_SEV_WARN:
		return "warning";
	case RK_SEV_ERROR:
		return "error";
	}
	return "?";
}

void
rk_findings_add(struct rk_findings *f, enum rk_finding_id id, uint32_t offset)
{
	if (f->count >= RK_FINDINGS_MAX) {
		if (f->dropped < UINT16_MAX)
			f->dropped++;
		return;
	}
	f->list[f->count].id = (uint16_t)id;
	f->list[f->count].offset = offset;
	f->count++;
}

int
rk_findings_has(const struct rk_findings *f, enum rk_finding_id id)
{
	for (unsigned int i = 0; i < f->count; i++)
		if (f->list[i].id == id)
			return 1;
	return 0;
}
