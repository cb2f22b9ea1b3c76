/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_wc_ring.h
 * The completion queue's ring of work completions, shared by the RoCE
 * (lib/ib) and iWARP (lib/iwarp) engines. A full ring loses the new
 * completion and stays overrun: every later poll returns -EOVERFLOW (a CQ
 * overrun is an error the CQ does not recover from).
 */
#ifndef RK_WC_RING_H
#define RK_WC_RING_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "rk_rdma_types.h"

struct rk_wc_ring {
	struct rk_wc *wc;
	uint32_t cap;
	uint32_t head;                  /* index of the oldest completion */
	uint32_t count;                 /* completions waiting */
	bool overrun;
};

/** Allocate room for @p cap completions; 0 or -ENOMEM. */
static inline int
rk_wc_ring_init(struct rk_wc_ring *r, uint32_t cap)
{
	r->wc = calloc(cap, sizeof(*r->wc));
	r->cap = cap;
	r->head = r->count = 0;
	r->overrun = false;
	return r->wc != NULL ? 0 : -ENOMEM;
}

static inline void
rk_wc_ring_fini(struct rk_wc_ring *r)
{
	free(r->wc);
	r->wc = NULL;
}

/** Append one completion; false (and overrun from now on) when full. */
static inline bool
rk_wc_ring_push(struct rk_wc_ring *r, const struct rk_wc *wc)
{
	if (r->count == r->cap) {
		r->overrun = true;
		return false;
	}
	r->wc[(r->head + r->count) % r->cap] = *wc;
	r->count++;
	return true;
}

/** Take up to @p n completions, oldest first: their count, or -EOVERFLOW. */
static inline int
rk_wc_ring_poll(struct rk_wc_ring *r, int n, struct rk_wc *wc)
{
	int k = 0;

	if (r->overrun)
		return -EOVERFLOW;
	while (k < n && r->count > 0) {
		wc[k++] = r->wc[r->head];
		r->head = (r->head + 1) % r->cap;
		r->count--;
	}
	return k;
}

/** Completions waiting. */
static inline uint32_t
rk_wc_ring_count(const struct rk_wc_ring *r)
{
	return r->count;
}

#endif /* RK_WC_RING_H */
