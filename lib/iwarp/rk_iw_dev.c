/* SPDX-License-Identifier: BSD-3-Clause */
/* iWARP device objects: PDs, the STag table, CQs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rk_iw_internal.h"
#include "rk_rdma_obj.h"

struct rk_iw_dev *
rk_iw_dev_create(const struct rk_iw_dev_attr *attr)
{
	struct rk_iw_dev *dev;
	uint32_t max_mr = attr != NULL && attr->max_mr != 0 ? attr->max_mr : 1024;

	if (max_mr >= (1u << 24)) {
		errno = EINVAL;
		return NULL;
	}
	dev = calloc(1, sizeof(*dev));
	if (dev == NULL)
		return NULL;
	/* Slot 0 is never used: STag 0 is "no STag" on the wire. */
	dev->mrs = calloc((size_t)max_mr + 1, sizeof(dev->mrs[0]));
	dev->slot_key = calloc((size_t)max_mr + 1, 1);
	if (dev->mrs == NULL || dev->slot_key == NULL) {
		free(dev->mrs);
		free(dev->slot_key);
		free(dev);
		errno = ENOMEM;
		return NULL;
	}
	dev->max_mr = max_mr;
	dev->key_state = (attr != NULL ? attr->key_seed : 0) | 1;
	return dev;
}

void
rk_iw_dev_destroy(struct rk_iw_dev *dev)
{
	if (dev == NULL)
		return;
	while (dev->qps != NULL)
		rk_iw_qp_destroy(dev->qps);
	for (uint32_t i = 1; i <= dev->max_mr; i++)
		free(dev->mrs[i]);
	while (dev->cqs != NULL) {
		struct rk_iw_cq *cq = dev->cqs;

		dev->cqs = cq->next;
		rk_cq_free(cq, offsetof(struct rk_iw_cq, ring));
	}
	while (dev->pds != NULL) {
		struct rk_iw_pd *pd = dev->pds;

		dev->pds = pd->next;
		free(pd);
	}
	free(dev->mrs);
	free(dev->slot_key);
	free(dev);
}

const struct rk_iw_stats *
rk_iw_dev_stats(const struct rk_iw_dev *dev)
{
	return &dev->stats;
}

struct rk_iw_pd *
rk_iw_pd_alloc(struct rk_iw_dev *dev)
{
	struct rk_iw_pd *pd;

	if (dev == NULL) {
		errno = EINVAL;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (pd == NULL)
		return NULL;
	pd->dev = dev;
	pd->next = dev->pds;
	dev->pds = pd;
	return pd;
}

int
rk_iw_pd_free(struct rk_iw_pd *pd)
{
	if (pd == NULL)
		return -EINVAL;
	if (pd->users > 0)
		return -EBUSY;
	RK_LIST_UNLINK(struct rk_iw_pd, pd->dev->pds, pd);
	free(pd);
	return 0;
}

/* 8-bit STag keys: xorshift, never repeating the slot's previous key. */
static uint8_t
next_key(struct rk_iw_dev *dev, uint8_t avoid)
{
	uint8_t k;

	do {
		uint64_t x = dev->key_state;

		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		dev->key_state = x;
		k = (uint8_t)((x * 0x2545f4914f6cdd1dull) >> 56);
	} while (k == avoid);
	return k;
}

struct rk_iw_mr *
rk_iw_mr_reg(struct rk_iw_pd *pd, void *addr, size_t len, unsigned int access)
{
	struct rk_iw_dev *dev;
	struct rk_iw_mr *mr;
	uint32_t slot = 0;

	/* Rights bits beyond the known ones are ignored here (RFC 5040 has no more). */
	if (pd == NULL || !rk_mr_args_valid(addr, len, access, ~0u)) {
		errno = EINVAL;
		return NULL;
	}
	dev = pd->dev;
	for (uint32_t i = 0; i < dev->max_mr; i++) {
		uint32_t s = 1 + (dev->next_slot + i) % dev->max_mr;

		if (dev->mrs[s] == NULL) {
			slot = s;
			break;
		}
	}
	if (slot == 0) {
		errno = ENOMEM;
		return NULL;
	}
	mr = calloc(1, sizeof(*mr));
	if (mr == NULL)
		return NULL;
	mr->pd = pd;
	mr->addr = addr;
	mr->va = (uint64_t)(uintptr_t)addr;
	mr->len = len;
	mr->access = access;
	/* A fresh key per registration: a stale STag of this slot fails. */
	dev->slot_key[slot] = next_key(dev, dev->slot_key[slot]);
	mr->stag = slot << 8 | dev->slot_key[slot];
	dev->mrs[slot] = mr;
	dev->next_slot = slot % dev->max_mr;
	pd->users++;
	return mr;
}

int
rk_iw_mr_dereg(struct rk_iw_mr *mr)
{
	struct rk_iw_dev *dev;

	if (mr == NULL)
		return -EINVAL;
	dev = mr->pd->dev;
	dev->mrs[mr->stag >> 8] = NULL;
	mr->pd->users--;
	free(mr);
	return 0;
}

uint32_t
rk_iw_mr_stag(const struct rk_iw_mr *mr)
{
	return mr->stag;
}

bool
rk_iw_mr_invalidated(const struct rk_iw_mr *mr)
{
	return mr->invalidated;
}

struct rk_iw_mr *
rk_iw_stag_lookup(struct rk_iw_dev *dev, uint32_t stag)
{
	uint32_t slot = stag >> 8;
	struct rk_iw_mr *mr;

	if (slot == 0 || slot > dev->max_mr)
		return NULL;
	mr = dev->mrs[slot];
	if (mr == NULL || mr->stag != stag || mr->invalidated)
		return NULL;
	return mr;
}

struct rk_iw_cq *
rk_iw_cq_create(struct rk_iw_dev *dev, uint32_t cqe)
{
	struct rk_iw_cq *cq;

	if (dev == NULL) {
		errno = EINVAL;
		return NULL;
	}
	cq = rk_cq_alloc(sizeof(*cq), offsetof(struct rk_iw_cq, ring), cqe);
	if (cq == NULL)
		return NULL;
	cq->dev = dev;
	cq->next = dev->cqs;
	dev->cqs = cq;
	return cq;
}

int
rk_iw_cq_destroy(struct rk_iw_cq *cq)
{
	if (cq == NULL)
		return -EINVAL;
	if (cq->users > 0)
		return -EBUSY;
	RK_LIST_UNLINK(struct rk_iw_cq, cq->dev->cqs, cq);
	rk_cq_free(cq, offsetof(struct rk_iw_cq, ring));
	return 0;
}

void
rk_iw_cq_push(struct rk_iw_cq *cq, const struct rk_wc *wc)
{
	(void)rk_wc_ring_push(&cq->ring, wc);
}

int
rk_iw_cq_poll(struct rk_iw_cq *cq, int n, struct rk_wc *wc)
{
	return rk_cq_poll_ring(cq != NULL ? &cq->ring : NULL, n, wc);
}
