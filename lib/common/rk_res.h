/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_res.h
 * A device's resource table, shared by the RoCE (lib/ib) and iWARP
 * (lib/iwarp) engines: its protection domains, its memory regions (a
 * table of slots, each region named by keys) and its completion queues
 * with their rings.
 *
 * A transport embeds struct rk_res in its device and the shared part of
 * each object (struct rk_res_pd, rk_res_mr, rk_res_cq) in its own, and
 * describes both in one const struct rk_res_class: where the parts lie,
 * which rights a registration may ask for, how slots are handed out and
 * how a region is named. The key formats (R_Key and L_Key, STag) stay in
 * the transport, behind rk_res_class.name_mr.
 *
 * Creators and lookups return the transport's object (void *, NULL on
 * failure); the other calls take the shared part. Not thread-safe.
 */
#ifndef RK_RES_H
#define RK_RES_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rk_rdma_types.h"
#include "rk_wc_ring.h"

/** Completions a CQ may hold at most. */
#define RK_CQ_MAX_CQE (1u << 20)

/** The object of type @p type whose member @p member lies at @p ptr. */
#define rk_res_container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/** Remove @p obj from the singly linked list at @p head (linked through next). */
#define RK_LIST_UNLINK(type, head, obj) do { \
	type **pp_ = &(head); \
	while (*pp_ != NULL && *pp_ != (obj)) \
		pp_ = &(*pp_)->next; \
	if (*pp_ != NULL) \
		*pp_ = (obj)->next; \
} while (0)

/** What a PD and a CQ have: a place on a list of the table, a count of users. */
struct rk_res_obj {
	struct rk_res_obj *next;
	uint32_t refs;                  /* objects on it (regions, QPs, ...) */
};

/** The shared part of a protection domain. */
struct rk_res_pd {
	struct rk_res_obj obj;          /* refs: regions, QPs and other objects on it */
};

/** The shared part of a memory region: where it lies and what it allows. */
struct rk_res_mr {
	uint8_t *addr;                  /* host address of its first byte */
	uint64_t va;                    /* the same address as the wire names it (VA, TO) */
	uint64_t length;                /* bytes */
	unsigned int access;            /* RK_ACCESS_* rights */
	uint32_t slot;                  /* its slot in the table */
};

/** The shared part of a completion queue. */
struct rk_res_cq {
	struct rk_res_obj obj;          /* refs: QPs (and other objects) on it */
	struct rk_wc_ring ring;
};

struct rk_res;

/** A transport's objects and rules, one const instance per transport. */
struct rk_res_class {
	size_t pd_size, pd_off;         /* its PD, and where the rk_res_pd lies in it */
	size_t mr_size, mr_off;         /* its MR, and where the rk_res_mr lies in it */
	size_t cq_size, cq_off;         /* its CQ, and where the rk_res_cq lies in it */
	unsigned int mr_access;         /* the RK_ACCESS_* rights a registration may ask for */
	uint32_t first_slot;            /* the lowest slot a region takes */
	size_t slot_data;               /* bytes the transport keeps per slot (rk_res_slot_data) */
	/* true: a search starts after the slot taken last; false: at first_slot */
	bool rotate;
	/**
	 * Name the region just placed in mr->slot: set the transport's keys.
	 * Called once per registration, before the region can be looked up.
	 */
	void (*name_mr)(struct rk_res *res, struct rk_res_mr *mr);
};

/**
 * The layout fields of a struct rk_res_class initializer, for a transport
 * whose PD, MR and CQ types hold their shared part in a member named res.
 */
#define RK_RES_LAYOUT(pd_type, mr_type, cq_type) \
	.pd_size = sizeof(pd_type), .pd_off = offsetof(pd_type, res), \
	.mr_size = sizeof(mr_type), .mr_off = offsetof(mr_type, res), \
	.cq_size = sizeof(cq_type), .cq_off = offsetof(cq_type, res)

/** A device's table; embedded in the transport's device. */
struct rk_res {
	const struct rk_res_class *cls;
	struct rk_res_mr **mr;          /* slot -> region; first_slot + max_mr slots */
	uint8_t *slot_data;             /* cls->slot_data bytes a slot, zeroed at first */
	uint32_t max_mr;
	uint32_t next_slot;             /* rotate: where the next search starts (0-based) */
	struct rk_res_obj *pds;         /* every PD and CQ, freed with the table */
	struct rk_res_obj *cqs;
};

/**
 * Set up an empty table of @p max_mr region slots for @p cls.
 * @return 0, or -ENOMEM (nothing is then held).
 */
int rk_res_init(struct rk_res *res, const struct rk_res_class *cls, uint32_t max_mr);

/** Free every region, CQ (and its ring) and PD still in the table, and the table. */
void rk_res_fini(struct rk_res *res);

/**
 * A new zeroed PD of the transport, on the table's list.
 * @return the transport's PD, or NULL with errno ENOMEM.
 */
void *rk_res_pd_alloc(struct rk_res *res);

/**
 * Free a PD of rk_res_pd_alloc().
 * @return 0, or -EBUSY while objects are on it (refs not 0).
 */
int rk_res_pd_free(struct rk_res *res, struct rk_res_pd *pd);

/**
 * Register @p len bytes at @p addr with rights @p access on @p pd: the
 * arguments checked, a free slot taken (class rules), the region named by
 * the class's name_mr, one reference taken on @p pd. The transport then
 * sets its own fields (e.g. its PD pointer).
 * @return the transport's MR; NULL with errno EINVAL (NULL @p addr with a
 *         non-zero @p len, a range wrapping the address space, rights
 *         outside the class's mr_access, remote write or atomic without
 *         local write: IBTA Vol1 10.6.3) or ENOMEM (no free slot, no memory).
 */
void *rk_res_mr_reg(struct rk_res *res, struct rk_res_pd *pd, void *addr, size_t len,
		    unsigned int access);

/**
 * Deregister @p mr of @p pd: its slot is cleared at once (no key resolves
 * to it any more), the reference on @p pd dropped, the object freed.
 */
void rk_res_mr_dereg(struct rk_res *res, struct rk_res_pd *pd, struct rk_res_mr *mr);

/**
 * The region in @p slot: NULL when the slot is outside the table or free.
 * The caller compares the key it was given with the region's own.
 */
static inline void *
rk_res_mr_at(const struct rk_res *res, uint32_t slot)
{
	struct rk_res_mr *mr;

	if (slot < res->cls->first_slot || slot - res->cls->first_slot >= res->max_mr ||
	    (mr = res->mr[slot]) == NULL)
		return NULL;
	return (char *)mr - res->cls->mr_off;
}

/**
 * What the transport keeps of @p slot (cls->slot_data bytes, zeroed when
 * the table was set up): it outlives the slot's regions, e.g. to never
 * hand out the same key twice in a row.
 */
static inline void *
rk_res_slot_data(const struct rk_res *res, uint32_t slot)
{
	return res->slot_data + (size_t)slot * res->cls->slot_data;
}

/**
 * A new zeroed CQ of the transport with room for @p cqe completions, on
 * the table's list.
 * @return the transport's CQ, or NULL with errno EINVAL (@p cqe 0 or over
 *         RK_CQ_MAX_CQE) or ENOMEM.
 */
void *rk_res_cq_create(struct rk_res *res, uint32_t cqe);

/**
 * Free a CQ of rk_res_cq_create() and its ring.
 * @return 0, or -EBUSY while objects are on it (refs not 0).
 */
int rk_res_cq_destroy(struct rk_res *res, struct rk_res_cq *cq);

/**
 * Take up to @p n completions from @p cq, oldest first.
 * @return completions written, -EOVERFLOW once the CQ has overrun,
 *         -EINVAL (NULL @p cq, @p n < 0, NULL @p wc with @p n > 0).
 */
int rk_res_cq_poll(struct rk_res_cq *cq, int n, struct rk_wc *wc);

/**
 * Define a transport's calls that only pass through to its table, for the
 * prefix @p p (rk_ib, rk_iw): p_pd_alloc(dev), p_pd_free(pd),
 * p_mr_reg(pd, addr, len, access), p_mr_dereg(mr), p_cq_create(dev, cqe),
 * p_cq_destroy(cq) and p_cq_poll(cq, n, wc). Each answers as the rk_res
 * call it wraps; a NULL device, PD, MR or CQ is EINVAL (NULL with errno,
 * or -EINVAL). @p dev_t holds the table in res; @p pd_t, @p mr_t and
 * @p cq_t hold their shared part in res, PD and CQ their device in dev,
 * the MR its PD in pd.
 */
#define RK_RES_CALLS(p, dev_t, pd_t, mr_t, cq_t) \
	pd_t *p##_pd_alloc(dev_t *dev) \
	{ \
		RK_RES_MADE_(pd_t, dev, dev, rk_res_pd_alloc(&dev->res)); \
	} \
	int p##_pd_free(pd_t *pd) \
	{ \
		return pd != NULL ? rk_res_pd_free(&pd->dev->res, &pd->res) : -EINVAL; \
	} \
	mr_t *p##_mr_reg(pd_t *pd, void *addr, size_t len, unsigned int access) \
	{ \
		RK_RES_MADE_(mr_t, pd, pd, \
			     rk_res_mr_reg(&pd->dev->res, &pd->res, addr, len, access)); \
	} \
	int p##_mr_dereg(mr_t *mr) \
	{ \
		if (mr == NULL) \
			return -EINVAL; \
		rk_res_mr_dereg(&mr->pd->dev->res, &mr->pd->res, &mr->res); \
		return 0; \
	} \
	cq_t *p##_cq_create(dev_t *dev, uint32_t cqe) \
	{ \
		RK_RES_MADE_(cq_t, dev, dev, rk_res_cq_create(&dev->res, cqe)); \
	} \
	int p##_cq_destroy(cq_t *cq) \
	{ \
		return cq != NULL ? rk_res_cq_destroy(&cq->dev->res, &cq->res) : -EINVAL; \
	} \
	int p##_cq_poll(cq_t *cq, int n, struct rk_wc *wc) \
	{ \
		return rk_res_cq_poll(cq != NULL ? &cq->res : NULL, n, wc); \
	}

/*
 * RK_RES_CALLS's creators: return what @p made (a table call) gives,
 * with @p owner stored in its @p field; a NULL @p owner is EINVAL.
 */
#define RK_RES_MADE_(type, owner, field, made) do { \
		type *made_ = (owner) != NULL ? (made) : NULL; \
		\
		if ((owner) == NULL) \
			errno = EINVAL; \
		else if (made_ != NULL) \
			made_->field = (owner); \
		return made_; \
	} while (0)

#endif /* RK_RES_H */
