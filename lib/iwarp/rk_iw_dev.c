/* SPDX-License-Identifier: BSD-3-Clause */
/* iWARP device objects: PDs, the STag table, CQs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rk_iw_internal.h"

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

/*
 * One STag names a region locally and remotely: its slot above an 8-bit
 * key, fresh per registration, so a stale STag of the slot fails.
 */
static void
iw_name_mr(struct rk_res *res, struct rk_res_mr *r)
{
	struct rk_iw_dev *dev = rk_res_container_of(res, struct rk_iw_dev, res);
	struct rk_iw_mr *mr = rk_res_container_of(r, struct rk_iw_mr, res);
	uint8_t *key = rk_res_slot_data(res, r->slot);     /* the slot's last key */

	*key = next_key(dev, *key);
	mr->stag = r->slot << 8 | *key;
}

/*
 * Slot 0 is never used (STag 0 is "no STag" on the wire); slots are
 * taken round robin. Rights bits beyond the known ones are ignored here
 * (RFC 5040 has no more).
 */
static const struct rk_res_class iw_res_class = {
	RK_RES_LAYOUT(struct rk_iw_pd, struct rk_iw_mr, struct rk_iw_cq),
	.mr_access = ~0u,
	.first_slot = 1,
	.slot_data = 1,
	.rotate = true,
	.name_mr = iw_name_mr,
};

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
	if (rk_res_init(&dev->res, &iw_res_class, max_mr) != 0) {
		free(dev);
		errno = ENOMEM;
		return NULL;
	}
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
	rk_res_fini(&dev->res);
	free(dev);
}

const struct rk_iw_stats *
rk_iw_dev_stats(const struct rk_iw_dev *dev)
{
	return &dev->stats;
}

/*
 * rk_iw_pd_alloc, rk_iw_pd_free, rk_iw_mr_reg, rk_iw_mr_dereg,
 * rk_iw_cq_create, rk_iw_cq_destroy and rk_iw_cq_poll: the table's calls.
 */
RK_RES_CALLS(rk_iw, struct rk_iw_dev, struct rk_iw_pd, struct rk_iw_mr, struct rk_iw_cq)

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
	struct rk_iw_mr *mr = rk_res_mr_at(&dev->res, stag >> 8);

	if (mr == NULL || mr->stag != stag || mr->invalidated)
		return NULL;
	return mr;
}

void
rk_iw_cq_push(struct rk_iw_cq *cq, const struct rk_wc *wc)
{
	(void)rk_wc_ring_push(&cq->res.ring, wc);
}

