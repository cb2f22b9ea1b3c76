/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/common/rk_res: the resource table both engines keep, through a
 * transport of its own whose shared parts do not start its objects (so
 * the class's offsets are used): slot rules (lowest free first, or round
 * robin from a first slot), per-slot data, the argument checks of a
 * registration, references on PDs and CQs, the CQ ring.
 */
#include "rk_test.h"

#include <errno.h>

#include "rk_res.h"

struct t_dev {
	uint32_t named;                 /* name_mr calls */
	struct rk_res res;
};

struct t_pd {
	uint64_t pad;
	struct rk_res_pd res;
	struct t_dev *dev;
};

struct t_mr {
	uint32_t key;
	struct rk_res_mr res;
	struct t_pd *pd;
};

struct t_cq {
	uint16_t pad;
	struct rk_res_cq res;
	struct t_dev *dev;
};

/* The key: the slot above how often the slot was named (its slot data). */
static void
t_name_mr(struct rk_res *res, struct rk_res_mr *r)
{
	struct t_dev *dev = rk_res_container_of(res, struct t_dev, res);
	struct t_mr *mr = rk_res_container_of(r, struct t_mr, res);
	uint8_t *times = rk_res_slot_data(res, r->slot);

	dev->named++;
	mr->key = r->slot << 8 | ++*times;
}

/* A class with the test's layout and key rule; the rest as given. */
static struct rk_res_class
t_class(unsigned int mr_access, uint32_t first_slot, bool rotate)
{
	return (struct rk_res_class){
		RK_RES_LAYOUT(struct t_pd, struct t_mr, struct t_cq),
		.mr_access = mr_access, .first_slot = first_slot, .slot_data = 1,
		.rotate = rotate, .name_mr = t_name_mr,
	};
}

#define T_ACCESS (RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE | RK_ACCESS_REMOTE_READ)

/* Each test gets a device whose table has three slots. */
static struct rk_res_class the_cls;
static struct t_dev the_dev;

static int
open_table(void **state, struct rk_res_class cls)
{
	the_cls = cls;
	the_dev = (struct t_dev){ 0 };
	*state = &the_dev;
	return rk_res_init(&the_dev.res, &the_cls, 3);
}

static int
setup_lowest(void **state)
{
	return open_table(state, t_class(T_ACCESS, 0, false));
}

static int
setup_rotating(void **state)
{
	return open_table(state, t_class(~0u, 1, true));
}

/* Frees what a test left: regions, CQs (and rings), PDs. */
static int
teardown(void **state)
{
	rk_res_fini(&((struct t_dev *)*state)->res);
	return 0;
}

/* The calls RK_RES_CALLS defines, declared as an engine's header would. */
struct t_pd *t_pd_alloc(struct t_dev *dev);
int t_pd_free(struct t_pd *pd);
struct t_mr *t_mr_reg(struct t_pd *pd, void *addr, size_t len, unsigned int access);
int t_mr_dereg(struct t_mr *mr);
struct t_cq *t_cq_create(struct t_dev *dev, uint32_t cqe);
int t_cq_destroy(struct t_cq *cq);
int t_cq_poll(struct t_cq *cq, int n, struct rk_wc *wc);

RK_RES_CALLS(t, struct t_dev, struct t_pd, struct t_mr, struct t_cq)

static uint8_t mem[4096];

static struct t_mr *
reg(struct t_pd *pd)
{
	return t_mr_reg(pd, mem, sizeof(mem), RK_ACCESS_LOCAL_WRITE);
}

static void
test_lowest_free_first(void **state)
{
	struct t_dev *dev = *state;
	struct t_mr *mr[3];
	struct t_pd *pd;

	pd = t_pd_alloc(dev);
	assert_non_null(pd);
	assert_ptr_equal(pd->dev, dev);
	for (int i = 0; i < 3; i++) {
		mr[i] = reg(pd);
		assert_non_null(mr[i]);
		assert_ptr_equal(mr[i]->pd, pd);
		assert_int_equal(mr[i]->res.slot, i);
		assert_int_equal(mr[i]->key, (uint32_t)i << 8 | 1);
		assert_ptr_equal(rk_res_mr_at(&dev->res, i), mr[i]);
	}
	assert_ptr_equal(mr[1]->res.addr, mem);
	assert_int_equal(mr[1]->res.va, (uint64_t)(uintptr_t)mem);
	assert_int_equal(mr[1]->res.length, sizeof(mem));
	assert_int_equal(mr[1]->res.access, RK_ACCESS_LOCAL_WRITE);
	errno = 0;
	assert_null(reg(pd));
	assert_int_equal(errno, ENOMEM);
	assert_null(rk_res_mr_at(&dev->res, 3));
	assert_int_equal(pd->res.obj.refs, 3);

	/* A freed slot stops resolving at once and is the next one taken. */
	assert_int_equal(t_mr_dereg(mr[1]), 0);
	assert_null(rk_res_mr_at(&dev->res, 1));
	assert_int_equal(pd->res.obj.refs, 2);
	mr[1] = reg(pd);
	assert_non_null(mr[1]);
	assert_int_equal(mr[1]->res.slot, 1);
	assert_int_equal(mr[1]->key, 1u << 8 | 2);      /* the slot's data outlived its region */
	assert_int_equal(dev->named, 4);

	assert_int_equal(t_pd_free(pd), -EBUSY);     /* teardown frees the MRs and the PD */
}

static void
test_round_robin_from_first_slot(void **state)
{
	struct t_dev *dev = *state;
	struct t_mr *a, *b, *c;
	struct t_pd *pd;

	pd = t_pd_alloc(dev);
	a = reg(pd);
	b = reg(pd);
	assert_int_equal(a->res.slot, 1);
	assert_int_equal(b->res.slot, 2);
	assert_null(rk_res_mr_at(&dev->res, 0));         /* slot 0 is never used */
	assert_int_equal(t_mr_dereg(a), 0);
	/* The search goes on after slot 2, then wraps to the freed slot 1. */
	c = reg(pd);
	assert_int_equal(c->res.slot, 3);
	a = reg(pd);
	assert_int_equal(a->res.slot, 1);
	assert_int_equal(a->key, 1u << 8 | 2);
	assert_null(rk_res_mr_at(&dev->res, 4));
	/* With its regions gone the PD goes too. */
	for (struct t_mr **m = (struct t_mr *[]){ a, b, c, NULL }; *m != NULL; m++)
		assert_int_equal(t_mr_dereg(*m), 0);
	assert_int_equal(pd->res.obj.refs, 0);
	assert_int_equal(t_pd_free(pd), 0);
	assert_null(dev->res.pds);
}

static void
test_registration_arguments(void **state)
{
	struct t_dev *dev = *state;
	struct t_mr *mr;
	struct t_pd *pd;

	pd = t_pd_alloc(dev);
	errno = 0;
	assert_null(t_mr_reg(NULL, mem, 8, 0));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	/* Remote write needs local write (IBTA Vol1 10.6.3). */
	assert_null(t_mr_reg(pd, mem, 8, RK_ACCESS_REMOTE_WRITE));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	/* A right outside the class's. */
	assert_null(t_mr_reg(pd, mem, 8, RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_ATOMIC));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(t_mr_reg(pd, NULL, 8, 0));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(t_mr_reg(pd, (void *)(uintptr_t)(UINT64_MAX - 3), 8, 0));
	assert_int_equal(errno, EINVAL);
	assert_int_equal(dev->named, 0);
	assert_int_equal(pd->res.obj.refs, 0);
	mr = t_mr_reg(pd, NULL, 0, 0);                  /* no bytes need no address */
	assert_non_null(mr);
	assert_int_equal(t_mr_dereg(NULL), -EINVAL);
	assert_int_equal(t_mr_dereg(mr), 0);
	assert_int_equal(t_pd_free(NULL), -EINVAL);
	errno = 0;
	assert_null(t_pd_alloc(NULL));
	assert_int_equal(errno, EINVAL);
}

static void
test_cq_size_and_users(void **state)
{
	struct t_dev *dev = *state;
	struct t_cq *cq;

	errno = 0;
	assert_null(t_cq_create(dev, 0));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(t_cq_create(dev, RK_CQ_MAX_CQE + 1));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(t_cq_create(NULL, 4));
	assert_int_equal(errno, EINVAL);
	cq = t_cq_create(dev, RK_CQ_MAX_CQE);
	assert_non_null(cq);
	assert_ptr_equal(cq->dev, dev);
	cq->res.obj.refs++;
	assert_int_equal(t_cq_destroy(cq), -EBUSY);
	cq->res.obj.refs--;
	assert_int_equal(t_cq_destroy(cq), 0);
	assert_int_equal(t_cq_destroy(NULL), -EINVAL);
	/* One left for the table to free, ring and all. */
	assert_non_null(t_cq_create(dev, 1));
}

static void
test_cq_poll(void **state)
{
	struct rk_wc wc[3] = { { .wr_id = 7 }, { .wr_id = 8 }, { .wr_id = 9 } };
	struct t_dev *dev = *state;
	struct t_cq *cq;

	cq = t_cq_create(dev, 2);
	assert_non_null(cq);
	assert_true(rk_wc_ring_push(&cq->res.ring, &wc[0]));
	assert_true(rk_wc_ring_push(&cq->res.ring, &wc[1]));
	memset(wc, 0, sizeof(wc));
	assert_int_equal(t_cq_poll(cq, 3, wc), 2);
	assert_int_equal(wc[0].wr_id, 7);
	assert_int_equal(wc[1].wr_id, 8);
	assert_int_equal(t_cq_poll(NULL, 1, wc), -EINVAL);
	assert_int_equal(t_cq_poll(cq, -1, wc), -EINVAL);
	assert_int_equal(t_cq_poll(cq, 1, NULL), -EINVAL);
	/* A full ring loses the completion, and the CQ stays overrun. */
	wc[0].wr_id = 1;
	assert_true(rk_wc_ring_push(&cq->res.ring, &wc[0]));
	assert_true(rk_wc_ring_push(&cq->res.ring, &wc[0]));
	assert_false(rk_wc_ring_push(&cq->res.ring, &wc[0]));
	assert_int_equal(t_cq_poll(cq, 3, wc), -EOVERFLOW);
	assert_int_equal(t_cq_poll(cq, 3, wc), -EOVERFLOW);
	assert_int_equal(t_cq_destroy(cq), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_lowest_free_first, setup_lowest, teardown),
		cmocka_unit_test_setup_teardown(test_round_robin_from_first_slot, setup_rotating,
						teardown),
		cmocka_unit_test_setup_teardown(test_registration_arguments, setup_lowest, teardown),
		cmocka_unit_test_setup_teardown(test_cq_size_and_users, setup_lowest, teardown),
		cmocka_unit_test_setup_teardown(test_cq_poll, setup_lowest, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
