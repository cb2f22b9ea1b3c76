/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counter registry, in the shape of DPDK's xstats: each stats struct of
 * monotonic uint64_t counters has one table of (name, offset) entries, and
 * every tool enumerates, reads and prints a struct through its table, so a
 * counter is named once. The name is what tools print and the JSON key.
 *
 * Tables: rk_ib_xstats (struct rk_ib_stats, lib/ib/rk_ib_xstats.h),
 * rk_ib_reason_xstats (struct rk_ib_reason_stats, lib/ib/rk_ib_reason.h),
 * rk_iw_xstats (struct rk_iw_stats, lib/iwarp/rk_iw_xstats.h),
 * rk_sim_link_xstats (lib/sim/rk_sim_xstats.h), rk_io_port_xstats
 * (lib/io/rk_io_xstats.h). JSON output: tools/common/rk_xstats_json.h.
 * libc only.
 */
#ifndef RK_XSTATS_H
#define RK_XSTATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <inttypes.h>

/** Not shown by one-line summaries (rk_xstats_print_inline); listed everywhere else. */
#define RK_XSTAT_DETAIL 0x1u

/** One counter of a stats struct: a uint64_t at byte offset @p off. */
struct rk_xstat_desc {
	const char *name;       /**< printed name and JSON key, unique in its table */
	size_t off;             /**< offsetof() the uint64_t in the stats struct */
	unsigned int flags;     /**< RK_XSTAT_DETAIL */
};

/** The counters of one stats struct, in the order tools list them. */
struct rk_xstat_table {
	const char *name;       /**< the struct, for messages */
	size_t size;            /**< sizeof the struct: every off + 8 is at most this */
	const struct rk_xstat_desc *desc;
	unsigned int n;
};

/** A counter read out of a struct: its name and value. */
struct rk_xstat {
	const char *name;
	uint64_t value;
};

/** An entry of a table over struct @p type, field @p field (a uint64_t). */
#define RK_XSTAT(type, field, name) { (name), offsetof(type, field), 0 }
#define RK_XSTAT_D(type, field, name) { (name), offsetof(type, field), RK_XSTAT_DETAIL }
/** Fill the size, desc and n of a table from a static array @p arr. */
#define RK_XSTAT_TABLE(sname, type, arr) \
	{ (sname), sizeof(type), (arr), (unsigned int)(sizeof(arr) / sizeof((arr)[0])) }

/** Value of entry @p i of @p t in the struct at @p stats. */
static inline uint64_t
rk_xstat_value(const struct rk_xstat_table *t, unsigned int i, const void *stats)
{
	uint64_t v;

	memcpy(&v, (const uint8_t *)stats + t->desc[i].off, sizeof(v));
	return v;
}

/** Index of the counter named @p name in @p t, or -1. */
static inline int
rk_xstats_find(const struct rk_xstat_table *t, const char *name)
{
	for (unsigned int i = 0; i < t->n; i++)
		if (strcmp(t->desc[i].name, name) == 0)
			return (int)i;
	return -1;
}

/**
 * Read every counter of @p stats through @p t, in table order.
 * @return entries written to @p out (at most @p max).
 */
static inline unsigned int
rk_xstats_read(const struct rk_xstat_table *t, const void *stats, struct rk_xstat *out,
	       unsigned int max)
{
	unsigned int n = 0;

	for (; n < t->n && n < max; n++)
		out[n] = (struct rk_xstat){ t->desc[n].name, rk_xstat_value(t, n, stats) };
	return n;
}

/**
 * One line per counter: @p indent, the name padded to @p width, the value.
 * @p nonzero: only the counters that moved.
 */
static inline void
rk_xstats_print(FILE *f, const struct rk_xstat_table *t, const void *stats, const char *indent,
		int width, int nonzero)
{
	for (unsigned int i = 0; i < t->n; i++) {
		uint64_t v = rk_xstat_value(t, i, stats);

		if (!nonzero || v != 0)
			fprintf(f, "%s%-*s %" PRIu64 "\n", indent, width, t->desc[i].name, v);
	}
}

/** " name value" for each counter not flagged RK_XSTAT_DETAIL, no newline. */
static inline void
rk_xstats_print_inline(FILE *f, const struct rk_xstat_table *t, const void *stats)
{
	for (unsigned int i = 0; i < t->n; i++)
		if (!(t->desc[i].flags & RK_XSTAT_DETAIL))
			fprintf(f, " %s %" PRIu64, t->desc[i].name, rk_xstat_value(t, i, stats));
}

#endif /* RK_XSTATS_H */
