/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Kept frames (rk_io_dpdk.h): a mempool of its own per ring, so every
 * mbuf in it only ever holds that ring's frames. A freed mbuf keeps its
 * bytes, and its private area keeps the length of the frame it holds: the
 * next allocation finds the frame in place and only the bytes that change
 * are written. The mbufs are no larger than the frames: small frames pack
 * into few pages. The mbuf's one reference goes to the driver, whose free
 * puts it back into the lcore's cache (LIFO): the same few mbufs, warm
 * in cache, go round, and no atomic reference count is touched per frame.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "rk_eth.h"
#include "rk_io_internal.h"

#define KEPT_STASH RK_IO_KEPT_BURST

struct rk_io_kept {
	struct rk_io_dpdk *io;
	struct rte_mempool *pool;
	uint32_t max_len;               /* bytes an mbuf of the pool holds */
	struct rte_mbuf *taken;         /* kept_next() gave it out, not sent yet */
	/* Taken from the pool a burst at a time: one visit to the lcore's
	 * cache per burst. */
	uint32_t stash_n;
	struct rte_mbuf *stash[KEPT_STASH];
	uint32_t took;                  /* kept_take() gave the stash's top took */
};

/* The frame length an mbuf of a kept pool holds; 0: none yet. */
static inline uint32_t *
held_len(struct rte_mbuf *m)
{
	return rte_mbuf_to_priv(m);
}

static void
held_zero(struct rte_mempool *mp, void *arg, void *obj, unsigned int i)
{
	(void)mp;
	(void)arg;
	(void)i;
	*held_len(obj) = 0;
}

/* The pool lives until the port is closed: the device may still hold
 * its mbufs when the ring is freed. */
static int
pool_keep(struct rk_io_dpdk *io, struct rte_mempool *mp)
{
	struct rte_mempool **p = realloc(io->kept_pools, (io->kept_pools_n + 1) * sizeof(*p));

	if (p == NULL)
		return -ENOMEM;
	io->kept_pools = p;
	p[io->kept_pools_n++] = mp;
	return 0;
}

struct rk_io_kept *
rk_io_dpdk_kept_new(struct rk_io_dpdk *io, uint32_t n, uint32_t max_len)
{
	static unsigned int serial;
	char name[RTE_MEMPOOL_NAMESIZE];
	struct rk_io_kept *k;
	uint32_t cache;

	if (io == NULL || n == 0 || n > (1u << 20) || io->cfg.vlan_id != 0 ||
	    max_len < RK_ETH_HLEN || max_len > RK_IB_MAX_FRAME) {
		errno = EINVAL;
		return NULL;
	}
	/* A mempool's cache may hold at most n / 1.5 of its objects. */
	cache = n * 2 / 3;
	if (cache > RTE_MEMPOOL_CACHE_MAX_SIZE)
		cache = RTE_MEMPOOL_CACHE_MAX_SIZE;
	k = calloc(1, sizeof(*k));
	snprintf(name, sizeof(name), "rk_kept_%u_%u", io->port, serial++);
	if (k != NULL)
		k->pool = rte_pktmbuf_pool_create(name, n, cache,
						  RTE_ALIGN(sizeof(uint32_t), RTE_MBUF_PRIV_ALIGN),
						  (uint16_t)(RTE_PKTMBUF_HEADROOM + max_len),
						  (int)SOCKET_ID_ANY);
	if (k == NULL || k->pool == NULL || pool_keep(io, k->pool) != 0) {
		if (k != NULL)
			rte_mempool_free(k->pool);
		free(k);
		errno = ENOMEM;
		return NULL;
	}
	rte_mempool_obj_iter(k->pool, held_zero, NULL);
	k->io = io;
	k->max_len = max_len;
	return k;
}

uint8_t *
rk_io_dpdk_kept_next(struct rk_io_kept *k, uint32_t *held)
{
	struct rte_mbuf *m = k->taken;

	k->took = 0;                    /* the stash's top may change */
	if (m == NULL) {
		if (k->stash_n == 0) {
			if (rte_pktmbuf_alloc_bulk(k->pool, k->stash, KEPT_STASH) == 0)
				k->stash_n = KEPT_STASH;
			else if ((k->stash[0] = rte_pktmbuf_alloc(k->pool)) != NULL)
				k->stash_n = 1;
			else
				return NULL;    /* all in flight */
		}
		m = k->taken = k->stash[--k->stash_n];
	}
	*held = *held_len(m);
	return rte_pktmbuf_mtod(m, uint8_t *);
}

int
rk_io_dpdk_kept_send(struct rk_io_kept *k, uint32_t len)
{
	struct rk_io_dpdk *io = k->io;
	struct rte_mbuf *m = k->taken;

	if (m == NULL || len < RK_ETH_HLEN || len > k->max_len)
		return -EINVAL;
	if (rk_io_txq_reserve(io) != 0)
		return -ENOBUFS;
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	*held_len(m) = len;
	k->taken = NULL;
	io->txq[(io->txq_head + io->txq_n++) & (io->txq_size - 1)] = m;
	io->st.tx_raw++;
	return 0;
}

/*
 * Fill the stash up to KEPT_STASH: in bulk, else one at a time while
 * the pool has any. In bulk without rte_pktmbuf_reset(): a mbuf of the
 * pool is only ever a one-segment frame whose metadata nothing changes
 * but data_len and pkt_len (set as it is sent), and a free leaves it as a
 * raw mbuf (one reference, no next segment); what the reset writes it
 * holds already.
 */
static void
stash_fill(struct rk_io_kept *k)
{
	uint32_t want = KEPT_STASH - k->stash_n;

	if (want == 0 ||
	    rte_mempool_get_bulk(k->pool, (void **)(k->stash + k->stash_n), want) == 0) {
		k->stash_n = KEPT_STASH;
		return;
	}
	while (k->stash_n < KEPT_STASH &&
	       (k->stash[k->stash_n] = rte_pktmbuf_alloc(k->pool)) != NULL)
		k->stash_n++;
}

uint32_t
rk_io_dpdk_kept_take(struct rk_io_kept *k, uint8_t **bufs, uint32_t *held, uint32_t n)
{
	struct rk_io_dpdk *io = k->io;
	uint32_t room;

	k->took = 0;
	if (k->taken != NULL) {         /* kept_next()'s mbuf goes back on top */
		k->stash[k->stash_n++] = k->taken;
		k->taken = NULL;
	}
	if (rk_io_txq_reserve(io) != 0)
		return 0;
	room = io->txq_size - io->txq_n;
	n = n < room ? n : room;
	n = n < KEPT_STASH ? n : KEPT_STASH;
	if (k->stash_n < n)
		stash_fill(k);
	n = n < k->stash_n ? n : k->stash_n;
	/* The stash's top n, the topmost first: the order kept_next() pops. */
	for (uint32_t i = 0; i < n; i++) {
		struct rte_mbuf *m = k->stash[k->stash_n - 1 - i];

		bufs[i] = rte_pktmbuf_mtod(m, uint8_t *);
		held[i] = *held_len(m);
	}
	k->took = n;
	return n;
}

int
rk_io_dpdk_kept_send_burst(struct rk_io_kept *k, uint32_t n, uint32_t len)
{
	struct rk_io_dpdk *io = k->io;
	uint32_t mask = io->txq_size - 1, tail = io->txq_head + io->txq_n;

	if (n > k->took || len < RK_ETH_HLEN || len > k->max_len)
		return -EINVAL;
	for (uint32_t i = 0; i < n; i++) {
		struct rte_mbuf *m = k->stash[--k->stash_n];

		m->data_len = (uint16_t)len;
		m->pkt_len = len;
		*held_len(m) = len;
		io->txq[(tail + i) & mask] = m;
	}
	io->txq_n += n;
	io->st.tx_raw += n;
	k->took = 0;
	return 0;
}

void
rk_io_dpdk_kept_free(struct rk_io_kept *k)
{
	if (k == NULL)
		return;
	rte_pktmbuf_free(k->taken);
	rte_pktmbuf_free_bulk(k->stash, k->stash_n);
	free(k);
}
