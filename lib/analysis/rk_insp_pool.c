/* SPDX-License-Identifier: BSD-3-Clause */
/* Power-of-two blocks from chunks populated in bulk (rk_insp_pool.h). */
#include "rk_insp_pool.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

/* Under AddressSanitizer the blocks not handed out are poisoned, so an
 * overrun of a block is caught as it would be with malloc. */
#if defined(__SANITIZE_ADDRESS__)
#define POOL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POOL_ASAN 1
#endif
#endif
#ifdef POOL_ASAN
#include <sanitizer/asan_interface.h>
#else
#define ASAN_POISON_MEMORY_REGION(a, n) ((void)(a), (void)(n))
#define ASAN_UNPOISON_MEMORY_REGION(a, n) ((void)(a), (void)(n))
#endif

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older headers lack it */
#endif

/* The class of @p size, or -1 when it is no block size. */
static int
class_of(size_t size)
{
	for (unsigned int c = 0; c < RK_INSP_POOL_CLASSES; c++)
		if (size == (size_t)RK_INSP_POOL_MIN << c)
			return (int)c;
	return -1;
}

/* A new chunk to carve; its first RK_INSP_POOL_MIN bytes link the chunks. */
static int
new_chunk(struct rk_insp_pool *p)
{
	char *c = mmap(NULL, RK_INSP_POOL_CHUNK, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (c == MAP_FAILED)
		return -1;
	/* Best effort: without it the pages fault in one by one. */
	(void)madvise(c, RK_INSP_POOL_CHUNK, MADV_POPULATE_WRITE);
	memcpy(c, &p->chunks, sizeof(p->chunks));
	p->chunks = c;
	p->bytes += RK_INSP_POOL_CHUNK;
	p->cur = c + RK_INSP_POOL_MIN;
	p->left = RK_INSP_POOL_CHUNK - RK_INSP_POOL_MIN;
	ASAN_POISON_MEMORY_REGION(p->cur, p->left);
	return 0;
}

void *
rk_insp_pool_alloc(struct rk_insp_pool *p, size_t size)
{
	int c = class_of(size);
	void *b;

	if (c < 0)
		return NULL;
	if ((b = p->free[c]) != NULL) {
		ASAN_UNPOISON_MEMORY_REGION(b, size);
		memcpy(&p->free[c], b, sizeof(void *));
		memset(b, 0, size);
		return b;
	}
	/* Blocks are carved in order of need: a block of size s sits at an
	 * offset that is a multiple of RK_INSP_POOL_MIN, enough for any
	 * member of the tables held. The rest of a chunk too small for
	 * @p size is left unused. */
	if (p->left < size && new_chunk(p) != 0)
		return NULL;
	b = p->cur;
	p->cur += size;
	p->left -= size;
	ASAN_UNPOISON_MEMORY_REGION(b, size);
	return b; /* fresh pages of an anonymous mapping are zero */
}

void
rk_insp_pool_free(struct rk_insp_pool *p, void *b, size_t size)
{
	int c = class_of(size);

	if (b == NULL || c < 0)
		return;
	memcpy(b, &p->free[c], sizeof(void *));
	p->free[c] = b;
	ASAN_POISON_MEMORY_REGION(b, size);
}

void
rk_insp_pool_fini(struct rk_insp_pool *p)
{
	void *c = p->chunks;

	while (c != NULL) {
		void *next;

		memcpy(&next, c, sizeof(next));
		ASAN_UNPOISON_MEMORY_REGION(c, RK_INSP_POOL_CHUNK);
		munmap(c, RK_INSP_POOL_CHUNK);
		c = next;
	}
	memset(p, 0, sizeof(*p));
}
