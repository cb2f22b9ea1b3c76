/* SPDX-License-Identifier: BSD-3-Clause */
/* The QP state machine and attribute masks (lib/ib/rk_qp.c). */
#include "rk_test.h"

#include <errno.h>

#include "rk_ib.h"

static struct rk_ib_dev *dev;
static struct rk_ib_pd *pd;
static struct rk_ib_cq *cq;

static struct rk_ib_qp *
make(enum rk_qp_type t)
{
	struct rk_ib_dev_attr da = { .ip_version = 4, .key_seed = 1 };
	struct rk_ib_qp_init_attr ia = {
		.qp_type = t,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1, .max_recv_sge = 1 },
	};

	dev = rk_ib_dev_create(&da);
	pd = rk_ib_pd_alloc(dev);
	cq = rk_ib_cq_create(dev, 64);
	ia.send_cq = ia.recv_cq = cq;
	return rk_ib_qp_create(pd, &ia);
}

#define INIT_MASK (RK_QP_STATE | RK_QP_PKEY_INDEX | RK_QP_PORT | RK_QP_ACCESS_FLAGS)
#define RTR_MASK (RK_QP_STATE | RK_QP_AV | RK_QP_PATH_MTU | RK_QP_DEST_QPN | RK_QP_RQ_PSN | \
		  RK_QP_MAX_DEST_RD_ATOMIC | RK_QP_MIN_RNR_TIMER)
#define RTS_MASK (RK_QP_STATE | RK_QP_SQ_PSN | RK_QP_TIMEOUT | RK_QP_RETRY_CNT | \
		  RK_QP_RNR_RETRY | RK_QP_MAX_QP_RD_ATOMIC)

static void
test_rc_transitions(void **state)
{
	struct rk_ib_qp *qp = make(RK_QPT_RC);
	struct rk_qp_attr a = { .path_mtu = RK_MTU_2048, .dest_qp_num = 0x123, .rq_psn = 77,
				.sq_psn = 0xfffffe, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
				.max_rd_atomic = 4, .max_dest_rd_atomic = 4, .min_rnr_timer = 12,
				.qp_access_flags = RK_ACCESS_REMOTE_WRITE };
	struct rk_qp_attr q;

	(void)state;
	assert_non_null(qp);
	assert_int_equal(rk_ib_qp_state(qp), RK_QPS_RESET);
	assert_true(rk_ib_qp_num(qp) >= RK_IB_QPN_BASE);
	/* RESET -> RTR skips INIT: refused. */
	a.qp_state = RK_QPS_RTR;
	assert_int_equal(rk_ib_qp_modify(qp, &a, RTR_MASK), -EINVAL);
	/* RESET -> INIT without ACCESS_FLAGS: refused; with an extra attribute: refused. */
	a.qp_state = RK_QPS_INIT;
	assert_int_equal(rk_ib_qp_modify(qp, &a, INIT_MASK & ~RK_QP_ACCESS_FLAGS), -EINVAL);
	assert_int_equal(rk_ib_qp_modify(qp, &a, INIT_MASK | RK_QP_SQ_PSN), -EINVAL);
	assert_int_equal(rk_ib_qp_modify(qp, &a, INIT_MASK), 0);
	assert_int_equal(rk_ib_qp_state(qp), RK_QPS_INIT);
	/* INIT -> RTR needs every RC attribute; values are range-checked. */
	a.qp_state = RK_QPS_RTR;
	assert_int_equal(rk_ib_qp_modify(qp, &a, RTR_MASK & ~RK_QP_MIN_RNR_TIMER), -EINVAL);
	a.path_mtu = 6;
	assert_int_equal(rk_ib_qp_modify(qp, &a, RTR_MASK), -EINVAL);
	a.path_mtu = RK_MTU_2048;
	a.max_dest_rd_atomic = RK_IB_MAX_RD_ATOMIC + 1;
	assert_int_equal(rk_ib_qp_modify(qp, &a, RTR_MASK), -EINVAL);
	a.max_dest_rd_atomic = 4;
	assert_int_equal(rk_ib_qp_modify(qp, &a, RTR_MASK), 0);
	/* Posting sends in RTR is refused. */
	{
		struct rk_send_wr wr = { .opcode = RK_WR_SEND };
		const struct rk_send_wr *bad = NULL;

		assert_int_equal(rk_ib_post_send(qp, &wr, &bad), -EINVAL);
		assert_ptr_equal(bad, &wr);
	}
	a.qp_state = RK_QPS_RTS;
	a.retry_cnt = 8;
	assert_int_equal(rk_ib_qp_modify(qp, &a, RTS_MASK), -EINVAL);
	a.retry_cnt = 7;
	assert_int_equal(rk_ib_qp_modify(qp, &a, RTS_MASK), 0);
	assert_int_equal(rk_ib_qp_query(qp, &q, 0), 0);
	assert_int_equal(q.qp_state, RK_QPS_RTS);
	assert_int_equal(q.path_mtu, RK_MTU_2048);
	assert_int_equal(q.sq_psn, 0xfffffe);
	assert_int_equal(q.rq_psn, 77);
	assert_int_equal(q.dest_qp_num, 0x123);
	assert_int_equal(q.min_rnr_timer, 12);
	/* RTS -> RTS may change MIN_RNR_TIMER, not the PSN. */
	a.qp_state = RK_QPS_RTS;
	a.min_rnr_timer = 3;
	assert_int_equal(rk_ib_qp_modify(qp, &a, RK_QP_STATE | RK_QP_MIN_RNR_TIMER), 0);
	assert_int_equal(rk_ib_qp_modify(qp, &a, RK_QP_STATE | RK_QP_SQ_PSN), -EINVAL);
	/* RTS -> SQD -> RTS. */
	a.qp_state = RK_QPS_SQD;
	assert_int_equal(rk_ib_qp_modify(qp, &a, RK_QP_STATE), 0);
	assert_int_equal(rk_ib_qp_state(qp), RK_QPS_SQD);
	a.qp_state = RK_QPS_RTS;
	assert_int_equal(rk_ib_qp_modify(qp, &a, RK_QP_STATE), 0);
	/* RC never enters SQE. */
	a.qp_state = RK_QPS_SQE;
	assert_int_equal(rk_ib_qp_modify(qp, &a, RK_QP_STATE), -EINVAL);
	/* CUR_STATE must match. */
	a.qp_state = RK_QPS_ERR;
	a.cur_qp_state = RK_QPS_INIT;
	assert_int_equal(rk_ib_qp_modify(qp, &a, RK_QP_STATE | RK_QP_CUR_STATE), -EINVAL);
	/* Any state -> ERR -> RESET -> INIT. */
	assert_int_equal(rk_ib_qp_modify(qp, &a, RK_QP_STATE), 0);
	assert_int_equal(rk_ib_qp_state(qp), RK_QPS_ERR);
	a.qp_state = RK_QPS_RTS;
	assert_int_equal(rk_ib_qp_modify(qp, &a, RK_QP_STATE), -EINVAL);
	a.qp_state = RK_QPS_RESET;
	assert_int_equal(rk_ib_qp_modify(qp, &a, RK_QP_STATE), 0);
	a.qp_state = RK_QPS_INIT;
	assert_int_equal(rk_ib_qp_modify(qp, &a, INIT_MASK), 0);
	rk_ib_dev_destroy(dev);
}

static void
test_ud_and_uc_masks(void **state)
{
	struct rk_ib_qp *qp = make(RK_QPT_UD);
	struct rk_qp_attr a = { .qp_state = RK_QPS_INIT, .qkey = 0x1234 };

	(void)state;
	/* UD: QKEY instead of ACCESS_FLAGS; RTR takes nothing else; RTS needs SQ_PSN. */
	assert_int_equal(rk_ib_qp_modify(qp, &a, INIT_MASK), -EINVAL);
	assert_int_equal(rk_ib_qp_modify(qp, &a, RK_QP_STATE | RK_QP_PKEY_INDEX | RK_QP_PORT |
					 RK_QP_QKEY), 0);
	a.qp_state = RK_QPS_RTR;
	assert_int_equal(rk_ib_qp_modify(qp, &a, RK_QP_STATE | RK_QP_PATH_MTU), -EINVAL);
	assert_int_equal(rk_ib_qp_modify(qp, &a, RK_QP_STATE), 0);
	a.qp_state = RK_QPS_RTS;
	assert_int_equal(rk_ib_qp_modify(qp, &a, RK_QP_STATE), -EINVAL);
	assert_int_equal(rk_ib_qp_modify(qp, &a, RK_QP_STATE | RK_QP_SQ_PSN), 0);
	/* UD: RTS -> SQD. */
	a.qp_state = RK_QPS_SQD;
	assert_int_equal(rk_ib_qp_modify(qp, &a, RK_QP_STATE), 0);
	rk_ib_dev_destroy(dev);
	qp = make(RK_QPT_UC);
	a.qp_state = RK_QPS_INIT;
	assert_int_equal(rk_ib_qp_modify(qp, &a, INIT_MASK), 0);
	a.qp_state = RK_QPS_RTR;
	a.path_mtu = RK_MTU_1024;
	/* UC takes neither MAX_DEST_RD_ATOMIC nor MIN_RNR_TIMER. */
	assert_int_equal(rk_ib_qp_modify(qp, &a, RTR_MASK), -EINVAL);
	assert_int_equal(rk_ib_qp_modify(qp, &a, RK_QP_STATE | RK_QP_AV | RK_QP_PATH_MTU |
					 RK_QP_DEST_QPN | RK_QP_RQ_PSN), 0);
	rk_ib_dev_destroy(dev);
}

static void
test_keys_unpredictable(void **state)
{
	struct rk_ib_dev_attr da = { .ip_version = 4, .key_seed = 42 };
	static uint8_t mem[4096];
	uint32_t keys[64];

	(void)state;
	dev = rk_ib_dev_create(&da);
	pd = rk_ib_pd_alloc(dev);
	for (int i = 0; i < 32; i++) {
		struct rk_ib_mr *mr = rk_ib_mr_reg(pd, mem, sizeof(mem), RK_ACCESS_LOCAL_WRITE |
						   RK_ACCESS_REMOTE_WRITE);

		assert_non_null(mr);
		keys[2 * i] = rk_ib_mr_lkey(mr);
		keys[2 * i + 1] = rk_ib_mr_rkey(mr);
		assert_int_not_equal(keys[2 * i], keys[2 * i + 1]);
	}
	/* All distinct, and consecutive R_Keys are not a fixed stride apart. */
	for (int i = 0; i < 64; i++)
		for (int j = i + 1; j < 64; j++)
			assert_int_not_equal(keys[i], keys[j]);
	assert_int_not_equal(keys[3] - keys[1], keys[5] - keys[3]);
	/* Remote write without local write is refused (IBTA 10.6.3 (verify §)). */
	assert_null(rk_ib_mr_reg(pd, mem, sizeof(mem), RK_ACCESS_REMOTE_WRITE));
	/* A PD with MRs cannot be freed. */
	assert_int_equal(rk_ib_pd_free(pd), -EBUSY);
	rk_ib_dev_destroy(dev);
}

static void
test_qp_state_size(void **state)
{
	struct rk_ib_qp *qp = make(RK_QPT_RC);
	struct rk_qp_attr a = { .qp_state = RK_QPS_INIT };

	(void)state;
	assert_int_equal(rk_ib_qp_modify(qp, &a, INIT_MASK), 0);
	a.qp_state = RK_QPS_RTR;
	a.path_mtu = RK_MTU_1024;
	a.max_dest_rd_atomic = RK_IB_MAX_RD_ATOMIC;
	assert_int_equal(rk_ib_qp_modify(qp, &a, RTR_MASK), 0);
	/* A QP's own state, without its queues, stays within 4 KiB. */
	assert_true(rk_ib_qp_state_size(qp) <= 4096);
	rk_ib_dev_destroy(dev);
}

static struct rk_ib_qp *
make_caps(enum rk_qp_type t, uint32_t depth, uint32_t send_sge, uint32_t recv_sge)
{
	struct rk_ib_qp_init_attr ia = {
		.qp_type = t, .send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = depth, .max_recv_wr = depth, .max_send_sge = send_sge,
			 .max_recv_sge = recv_sge },
	};

	return rk_ib_qp_create(pd, &ia);
}

/* Work queue slots are sized by the QP's caps, and only UD slots hold an address vector. */
static void
test_qp_mem_by_caps(void **state)
{
	struct rk_ib_qp *rc1 = make(RK_QPT_RC), *rc8, *rc8r, *ud1;
	size_t m1, m8, m8r, mud;

	(void)state;
	rk_ib_qp_destroy(rc1);
	rc1 = make_caps(RK_QPT_RC, 128, 1, 1);
	rc8 = make_caps(RK_QPT_RC, 128, 8, 1);
	rc8r = make_caps(RK_QPT_RC, 128, 1, 8);
	ud1 = make_caps(RK_QPT_UD, 128, 1, 1);
	assert_non_null(rc1);
	assert_non_null(rc8);
	assert_non_null(rc8r);
	assert_non_null(ud1);
	m1 = rk_ib_qp_mem_size(rc1);
	m8 = rk_ib_qp_mem_size(rc8);
	m8r = rk_ib_qp_mem_size(rc8r);
	mud = rk_ib_qp_mem_size(ud1);
	/* 10,000 such QPs at depth 128 must fit 256 MiB with room for the rest. */
	assert_true(m1 <= 24 * 1024);
	/* Each extra SGE costs one rk_sge per slot, on its own queue only. */
	assert_int_equal(m8 - m1, (size_t)128 * 7 * sizeof(struct rk_sge));
	assert_int_equal(m8r - m1, (size_t)128 * 7 * sizeof(struct rk_sge));
	/* A UD slot adds the destination (rounded to 8 bytes); RC slots do not carry it. */
	assert_int_equal(mud - m1, (size_t)128 * ((sizeof(struct rk_ah_attr) + 7) & ~(size_t)7));
	rk_ib_dev_destroy(dev);
}

static int
to_rts(struct rk_ib_qp *qp)
{
	struct rk_qp_attr a = { .qp_state = RK_QPS_INIT, .path_mtu = RK_MTU_1024,
				.dest_qp_num = 0x123, .rq_psn = 1, .sq_psn = 1, .timeout = 14,
				.retry_cnt = 7, .rnr_retry = 7, .max_rd_atomic = 1,
				.max_dest_rd_atomic = 1, .min_rnr_timer = 1 };

	if (rk_ib_qp_modify(qp, &a, INIT_MASK) != 0)
		return -1;
	a.qp_state = RK_QPS_RTR;
	if (rk_ib_qp_modify(qp, &a, RTR_MASK) != 0)
		return -1;
	a.qp_state = RK_QPS_RTS;
	return rk_ib_qp_modify(qp, &a, RTS_MASK);
}

static void
count_emit(void *ctx, const uint8_t *frame, uint32_t len)
{
	(void)frame;
	(void)len;
	(*(unsigned int *)ctx)++;
}

/*
 * The port's active MTU bounds the path MTU a QP takes and a UD QP's
 * messages (IBTA Vol1 ch. 14 ActiveMTU; rxe refuses a larger path MTU).
 */
static void
test_active_mtu(void **state)
{
	struct rk_ib_dev_attr da = { .ip_version = 4, .key_seed = 1, .active_mtu = RK_MTU_1024 };
	struct rk_ib_qp_init_attr ia = {
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct rk_qp_attr a = { .qp_state = RK_QPS_INIT, .qp_access_flags = RK_ACCESS_REMOTE_WRITE,
				.dest_qp_num = 0x123, .max_dest_rd_atomic = 1, .min_rnr_timer = 12 };
	struct rk_qp_attr q;
	struct rk_ib_dev *d;
	struct rk_ib_pd *p;
	struct rk_ib_cq *c;
	struct rk_ib_qp *rc, *ud;

	(void)state;
	d = rk_ib_dev_create(&da);
	p = rk_ib_pd_alloc(d);
	c = rk_ib_cq_create(d, 64);
	ia.send_cq = ia.recv_cq = c;
	ia.qp_type = RK_QPT_RC;
	rc = rk_ib_qp_create(p, &ia);
	ia.qp_type = RK_QPT_UD;
	ud = rk_ib_qp_create(p, &ia);
	assert_non_null(rc);
	assert_non_null(ud);
	assert_int_equal(rk_ib_qp_modify(rc, &a, INIT_MASK), 0);
	a.qp_state = RK_QPS_RTR;
	a.path_mtu = RK_MTU_2048;
	assert_int_equal(rk_ib_qp_modify(rc, &a, RTR_MASK), -EINVAL);
	a.path_mtu = RK_MTU_1024;
	assert_int_equal(rk_ib_qp_modify(rc, &a, RTR_MASK), 0);
	/* UD has no path: its limit is the port's. */
	assert_int_equal(rk_ib_qp_query(ud, &q, 0), 0);
	assert_int_equal(q.path_mtu, RK_MTU_1024);
	/* Without one the device takes 4096, as before. */
	assert_int_equal(rk_ib_qp_query(make(RK_QPT_UD), &q, 0), 0);
	assert_int_equal(q.path_mtu, RK_MTU_4096);
	/* What a RoCE port's IP MTU gives. */
	assert_int_equal(rk_roce_active_mtu(1500), RK_MTU_1024);
	assert_int_equal(rk_roce_active_mtu(1104), RK_MTU_1024);
	assert_int_equal(rk_roce_active_mtu(1103), RK_MTU_512);
	assert_int_equal(rk_roce_active_mtu(9000), RK_MTU_4096);
	assert_int_equal(rk_roce_active_mtu(335), 0);
	/* Path MTU codes and bytes, both ways. */
	for (int m = RK_MTU_256; m <= RK_MTU_4096; m++) {
		assert_int_equal(rk_mtu_bytes((enum rk_mtu)m), 128u << m);
		assert_int_equal(rk_mtu_from_bytes(128u << m), m);
	}
	assert_int_equal(rk_mtu_bytes((enum rk_mtu)0), 0);
	assert_int_equal(rk_mtu_bytes((enum rk_mtu)6), 0);
	assert_int_equal(rk_mtu_from_bytes(1500), 0);
	assert_int_equal(rk_mtu_from_bytes(8192), 0);
	rk_ib_dev_destroy(d);
	rk_ib_dev_destroy(dev);
}

/* The transmit and timer loops walk the live QPs: a destroyed one leaves no hole. */
static void
test_poll_after_destroy(void **state)
{
	struct rk_ib_qp *q[4];
	struct rk_send_wr wr = { .opcode = RK_WR_SEND, .send_flags = RK_SEND_SIGNALED };
	const struct rk_send_wr *bad;
	unsigned int sent = 0;

	(void)state;
	q[0] = make(RK_QPT_RC);
	for (int i = 1; i < 4; i++)
		q[i] = make_caps(RK_QPT_RC, 8, 1, 1);
	for (int i = 0; i < 4; i++) {
		assert_non_null(q[i]);
		assert_int_equal(to_rts(q[i]), 0);
	}
	/* Destroy a middle one and the first one: the others move into their places. */
	assert_int_equal(rk_ib_qp_destroy(q[1]), 0);
	assert_int_equal(rk_ib_qp_destroy(q[0]), 0);
	assert_int_equal(rk_ib_post_send(q[2], &wr, &bad), 0);
	assert_int_equal(rk_ib_post_send(q[3], &wr, &bad), 0);
	assert_true(rk_ib_tx_pending(dev, 1000));
	assert_int_equal(rk_ib_poll_tx(dev, 1000, count_emit, &sent, 64), 2);
	assert_int_equal(sent, 2);
	/* Both wait for an ACK now: the retransmission timer is armed. */
	assert_false(rk_ib_tx_pending(dev, 1000));
	assert_true(rk_ib_next_timer(dev) != UINT64_MAX);
	/* A new QP joins the walk. */
	q[0] = make_caps(RK_QPT_RC, 8, 1, 1);
	assert_non_null(q[0]);
	assert_int_equal(to_rts(q[0]), 0);
	assert_int_equal(rk_ib_post_send(q[0], &wr, &bad), 0);
	sent = 0;
	assert_int_equal(rk_ib_poll_tx(dev, 2000, count_emit, &sent, 64), 1);
	rk_ib_dev_destroy(dev);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rc_transitions),
		cmocka_unit_test(test_ud_and_uc_masks),
		cmocka_unit_test(test_keys_unpredictable),
		cmocka_unit_test(test_qp_state_size),
		cmocka_unit_test(test_qp_mem_by_caps),
		cmocka_unit_test(test_poll_after_destroy),
		cmocka_unit_test(test_active_mtu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
