/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Kept frames (rk_io_dpdk.h): mbufs a generator refills in place and sends
 * again. The ring holds one reference; sending adds the driver's, which
 * its free after transmission drops.
 */
#include <errno.h>
#include <stdlib.h>

#include "rk_eth.h"
#include "rk_io_internal.h"

struct rk_io_kept {
	struct rk_io_dpdk *io;
	uint32_t n, next;
	uint32_t max_len;               /* bytes an mbuf of the pool holds */
	bool taken;                     /* kept_next() gave out m[next] */
	uint32_t *held;                 /* frame length each holds; 0: none */
	struct rte_mbuf *m[];
};

struct rk_io_kept *
rk_io_dpdk_kept_new(struct rk_io_dpdk *io, uint32_t n)
{
	struct rk_io_kept *k;

	if (io == NULL || n == 0 || n > (1u << 20) || io->cfg.vlan_id != 0) {
		errno = EINVAL;
		return NULL;
	}
	/* One block: the ring, then the lengths. */
	k = calloc(1, sizeof(*k) + n * (sizeof(k->m[0]) + sizeof(k->held[0])));
	if (k == NULL || rte_pktmbuf_alloc_bulk(io->pool, k->m, n) != 0) {
		free(k);
		errno = ENOMEM;
		return NULL;
	}
	k->held = (uint32_t *)(void *)(k->m + n);
	k->io = io;
	k->n = n;
	k->max_len = rte_pktmbuf_data_room_size(io->pool) - RTE_PKTMBUF_HEADROOM;
	if (k->max_len > RK_IB_MAX_FRAME)
		k->max_len = RK_IB_MAX_FRAME;
	return k;
}

uint8_t *
rk_io_dpdk_kept_next(struct rk_io_kept *k, uint32_t *held)
{
	struct rte_mbuf *m = k->m[k->next];

	if (rte_mbuf_refcnt_read(m) != 1)
		return NULL;
	/* A driver that moved the data start (a tag it inserted) left the
	 * frame elsewhere: start over. */
	if (m->data_off != RTE_PKTMBUF_HEADROOM || m->nb_segs != 1) {
		rte_pktmbuf_reset(m);
		k->held[k->next] = 0;
	}
	k->taken = true;
	*held = k->held[k->next];
	return rte_pktmbuf_mtod(m, uint8_t *);
}

int
rk_io_dpdk_kept_send(struct rk_io_kept *k, uint32_t len)
{
	struct rk_io_dpdk *io = k->io;
	struct rte_mbuf *m = k->m[k->next];

	if (!k->taken || len < RK_ETH_HLEN || len > k->max_len)
		return -EINVAL;
	if (rk_io_txq_reserve(io) != 0)
		return -ENOBUFS;
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	rte_mbuf_refcnt_update(m, 1);   /* the driver's, freed when sent */
	k->held[k->next] = len;
	k->taken = false;
	k->next = k->next + 1 == k->n ? 0 : k->next + 1;
	io->txq[(io->txq_head + io->txq_n++) & (io->txq_size - 1)] = m;
	io->st.tx_raw++;
	return 0;
}

void
rk_io_dpdk_kept_free(struct rk_io_kept *k)
{
	if (k == NULL)
		return;
	for (uint32_t i = 0; i < k->n; i++)
		rte_pktmbuf_free(k->m[i]);
	free(k);
}
