/* SPDX-License-Identifier: BSD-3-Clause */
/* The resource table both engines keep: PDs, the region slots, CQs. */
#include "rk_res.h"

#include <errno.h>
#include <stdlib.h>

#define PART(obj, off) ((void *)((char *)(obj) + (off)))
#define WHOLE(part, off) ((void *)((char *)(part) - (off)))

int
rk_res_init(struct rk_res *res, const struct rk_res_class *cls, uint32_t max_mr)
{
	size_t slots = (size_t)cls->first_slot + max_mr;

	*res = (struct rk_res){ .cls = cls, .max_mr = max_mr };
	res->mr = calloc(slots, sizeof(res->mr[0]));
	res->slot_data = cls->slot_data != 0 ? calloc(slots, cls->slot_data) : NULL;
	if (res->mr == NULL || (cls->slot_data != 0 && res->slot_data == NULL)) {
		res->max_mr = 0;        /* no slot to walk: fini frees what was had */
		rk_res_fini(res);
		return -ENOMEM;
	}
	return 0;
}

/* A zeroed object of @p size whose part at @p off goes on the list at @p head. */
static void *
obj_new(struct rk_res_obj **head, size_t size, size_t off)
{
	void *whole = calloc(1, size);
	struct rk_res_obj *obj;

	if (whole == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	obj = PART(whole, off);
	obj->next = *head;
	*head = obj;
	return whole;
}

/* Take @p obj off the list at @p head and free its object (part at @p off). */
static void
obj_free(struct rk_res_obj **head, struct rk_res_obj *obj, size_t off)
{
	RK_LIST_UNLINK(struct rk_res_obj, *head, obj);
	free(WHOLE(obj, off));
}

void
rk_res_fini(struct rk_res *res)
{
	const struct rk_res_class *cls = res->cls;

	for (uint32_t i = 0; i < res->max_mr; i++) {
		struct rk_res_mr *mr = res->mr[cls->first_slot + i];

		if (mr != NULL)
			free(WHOLE(mr, cls->mr_off));
	}
	while (res->cqs != NULL) {
		struct rk_res_cq *cq = rk_res_container_of(res->cqs, struct rk_res_cq, obj);

		rk_wc_ring_fini(&cq->ring);
		obj_free(&res->cqs, &cq->obj, cls->cq_off);
	}
	while (res->pds != NULL)
		obj_free(&res->pds, res->pds, cls->pd_off);
	free(res->mr);
	free(res->slot_data);
	res->mr = NULL;
	res->slot_data = NULL;
}

void *
rk_res_pd_alloc(struct rk_res *res)
{
	return obj_new(&res->pds, res->cls->pd_size, res->cls->pd_off);
}

int
rk_res_pd_free(struct rk_res *res, struct rk_res_pd *pd)
{
	if (pd->obj.refs != 0)
		return -EBUSY;
	obj_free(&res->pds, &pd->obj, res->cls->pd_off);
	return 0;
}

/* IBTA Vol1 10.6.3: remote write or atomic access needs local write. */
static bool
mr_args_valid(const void *addr, size_t len, unsigned int access, unsigned int allowed)
{
	uint64_t va = (uint64_t)(uintptr_t)addr;

	return (addr != NULL || len == 0) && (access & ~allowed) == 0 &&
	       (!(access & (RK_ACCESS_REMOTE_WRITE | RK_ACCESS_REMOTE_ATOMIC)) ||
		(access & RK_ACCESS_LOCAL_WRITE)) && va + len >= va;
}

/* A free slot by the class's rule, or UINT32_MAX. */
static uint32_t
free_slot(struct rk_res *res)
{
	uint32_t start = res->cls->rotate ? res->next_slot : 0;

	for (uint32_t i = 0; i < res->max_mr; i++) {
		uint32_t s = res->cls->first_slot + (start + i) % res->max_mr;

		if (res->mr[s] == NULL)
			return s;
	}
	return UINT32_MAX;
}

void *
rk_res_mr_reg(struct rk_res *res, struct rk_res_pd *pd, void *addr, size_t len,
	      unsigned int access)
{
	const struct rk_res_class *cls = res->cls;
	struct rk_res_mr *mr;
	uint32_t slot;
	void *whole;

	if (!mr_args_valid(addr, len, access, cls->mr_access)) {
		errno = EINVAL;
		return NULL;
	}
	slot = free_slot(res);
	if (slot == UINT32_MAX) {
		errno = ENOMEM;
		return NULL;
	}
	whole = calloc(1, cls->mr_size);
	if (whole == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	mr = PART(whole, cls->mr_off);
	mr->addr = addr;
	mr->va = (uint64_t)(uintptr_t)addr;
	mr->length = len;
	mr->access = access;
	mr->slot = slot;
	cls->name_mr(res, mr);
	res->mr[slot] = mr;
	res->next_slot = (slot - cls->first_slot + 1) % res->max_mr;
	pd->obj.refs++;
	return whole;
}

void
rk_res_mr_dereg(struct rk_res *res, struct rk_res_pd *pd, struct rk_res_mr *mr)
{
	res->mr[mr->slot] = NULL;
	pd->obj.refs--;
	free(WHOLE(mr, res->cls->mr_off));
}

void *
rk_res_cq_create(struct rk_res *res, uint32_t cqe)
{
	struct rk_res_cq *cq;
	void *whole;

	if (cqe == 0 || cqe > RK_CQ_MAX_CQE) {
		errno = EINVAL;
		return NULL;
	}
	whole = obj_new(&res->cqs, res->cls->cq_size, res->cls->cq_off);
	if (whole == NULL)
		return NULL;
	cq = PART(whole, res->cls->cq_off);
	if (rk_wc_ring_init(&cq->ring, cqe) != 0) {
		obj_free(&res->cqs, &cq->obj, res->cls->cq_off);
		errno = ENOMEM;
		return NULL;
	}
	return whole;
}

int
rk_res_cq_destroy(struct rk_res *res, struct rk_res_cq *cq)
{
	if (cq->obj.refs != 0)
		return -EBUSY;
	rk_wc_ring_fini(&cq->ring);
	obj_free(&res->cqs, &cq->obj, res->cls->cq_off);
	return 0;
}

int
rk_res_cq_poll(struct rk_res_cq *cq, int n, struct rk_wc *wc)
{
	if (cq == NULL || n < 0 || (wc == NULL && n > 0))
		return -EINVAL;
	return rk_wc_ring_poll(&cq->ring, n, wc);
}
