/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_rdma_obj.h
 * The PD, MR and CQ bookkeeping both engines (lib/ib, lib/iwarp) share:
 * what a registration may ask for, a CQ's size limits and ring, and the
 * device's object lists. Keys (R_Key/L_Key, STag) stay each engine's own.
 */
#ifndef RK_RDMA_OBJ_H
#define RK_RDMA_OBJ_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "rk_rdma_types.h"
#include "rk_wc_ring.h"

/** Completions a CQ may hold at most. */
#define RK_CQ_MAX_CQE (1u << 20)

/** Remove @p obj from the singly linked list at @p head (linked through next). */
#define RK_LIST_UNLINK(type, head, obj) do { \
	type **pp_ = &(head); \
	while (*pp_ != NULL && *pp_ != (obj)) \
		pp_ = &(*pp_)->next; \
	if (*pp_ != NULL) \
		*pp_ = (obj)->next; \
} while (0)

/**
 * Arguments a memory registration may carry: a region of @p len bytes at
 * @p addr (NULL only when @p len is 0: a piece of no bytes needs no
 * address), not wrapping the address space, rights within @p allowed, and
 * remote write or atomic only with local write (IBTA Vol1 10.6.3).
 */
static inline bool
rk_mr_args_valid(const void *addr, size_t len, unsigned int access, unsigned int allowed)
{
	uint64_t va = (uint64_t)(uintptr_t)addr;

	return (addr != NULL || len == 0) && (access & ~allowed) == 0 &&
	       (!(access & (RK_ACCESS_REMOTE_WRITE | RK_ACCESS_REMOTE_ATOMIC)) ||
		(access & RK_ACCESS_LOCAL_WRITE)) && va + len >= va;
}

/**
 * Allocate a zeroed CQ object of @p size bytes whose completion ring sits
 * @p ring_off bytes in, with room for @p cqe completions.
 * @return the object, or NULL with errno EINVAL (cqe 0 or over
 *         RK_CQ_MAX_CQE) or ENOMEM.
 */
static inline void *
rk_cq_alloc(size_t size, size_t ring_off, uint32_t cqe)
{
	void *cq;

	if (cqe == 0 || cqe > RK_CQ_MAX_CQE) {
		errno = EINVAL;
		return NULL;
	}
	cq = calloc(1, size);
	if (cq == NULL)
		return NULL;
	if (rk_wc_ring_init((struct rk_wc_ring *)(void *)((char *)cq + ring_off), cqe) != 0) {
		free(cq);
		errno = ENOMEM;
		return NULL;
	}
	return cq;
}

/** Release a CQ object of rk_cq_alloc() and its ring. */
static inline void
rk_cq_free(void *cq, size_t ring_off)
{
	rk_wc_ring_fini((struct rk_wc_ring *)(void *)((char *)cq + ring_off));
	free(cq);
}

/**
 * Take up to @p n completions from a CQ's @p ring.
 * @return completions written, -EOVERFLOW after an overrun, -EINVAL (NULL
 *         ring, n < 0, NULL wc with n > 0).
 */
static inline int
rk_cq_poll_ring(struct rk_wc_ring *ring, int n, struct rk_wc *wc)
{
	if (ring == NULL || n < 0 || (wc == NULL && n > 0))
		return -EINVAL;
	return rk_wc_ring_poll(ring, n, wc);
}

#endif /* RK_RDMA_OBJ_H */
