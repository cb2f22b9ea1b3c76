/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_insp_pool.h
 * Zeroed blocks of power-of-two sizes for the analysis's per-flow tables
 * (the request tables of rk_insp_qp.h), carved from 1 MiB chunks whose
 * pages are populated in one call (madvise MADV_POPULATE_WRITE, Linux
 * 5.14). Why not malloc: a capture of thousands of QPs grows thousands of
 * tables page by page, and where a page fault is costly (10 us a page in
 * a virtual machine, against 0.65 us a page populated in bulk) the faults
 * cost more than the analysis. Freed blocks are kept per size and reused;
 * chunks are unmapped at rk_insp_pool_fini(). On a kernel without
 * MADV_POPULATE_WRITE the pages fault in as they are touched.
 * libc only.
 */
#ifndef RK_INSP_POOL_H
#define RK_INSP_POOL_H

#include <stddef.h>

/** Smallest block, bytes. */
#define RK_INSP_POOL_MIN 16u
/** Size classes: RK_INSP_POOL_MIN << 0 .. << (RK_INSP_POOL_CLASSES - 1) (64 KiB). */
#define RK_INSP_POOL_CLASSES 13u
/** Bytes of a chunk. */
#define RK_INSP_POOL_CHUNK (1u << 20)

/** A pool. Zeroed is empty and ready. */
struct rk_insp_pool {
	void *free[RK_INSP_POOL_CLASSES]; /* freed blocks, linked through their first word */
	char *cur;                        /* the chunk being carved, and what is left of it */
	size_t left;
	void *chunks;                     /* every chunk, linked through its first word */
	size_t bytes;                     /**< bytes mapped */
};

/**
 * A zeroed block of @p size bytes: a power of two from RK_INSP_POOL_MIN
 * to RK_INSP_POOL_MIN << (RK_INSP_POOL_CLASSES - 1).
 * @return the block, or NULL when @p size is not such a size or no memory
 * could be mapped.
 */
void *rk_insp_pool_alloc(struct rk_insp_pool *p, size_t size);

/** Give back block @p b of @p size bytes (as allocated; NULL: nothing). */
void rk_insp_pool_free(struct rk_insp_pool *p, void *b, size_t size);

/** Unmap every chunk: every block of @p p is gone. The pool is empty again. */
void rk_insp_pool_fini(struct rk_insp_pool *p);

#endif /* RK_INSP_POOL_H */
