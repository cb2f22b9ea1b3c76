/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reasons (rk_ib_reason.h): each responder error and silent drop, and the
 * completer's errors, are counted on the QP under the reason naming the
 * rule broken, whatever the outcome (NAK on RC, silent drop on UC), and
 * traced. One test per class of reason: opcode and sequence, lengths,
 * memory protection, resources, PSN and duplicates, UC class D, completer.
 */
#include "rk_test.h"

#include <regex.h>

#include "rk_ib_harness.h"
#include "rk_ib_internal.h"
#include "rk_ib_reason.h"

static struct harness H;
static struct h_frame F;

#define EPSN 1000
#define P 0x100

static void
req(uint8_t opcode, uint32_t psn, bool ack_req, const struct rk_xeth_fields *x,
    const void *payload, uint32_t len)
{
	h_craft(&H, &F, &H.a, &H.b, opcode, psn, ack_req, x, payload, len);
	h_rx(&H, &H.b, &F);
}

static void
resp(uint8_t opcode, uint32_t psn, uint8_t syndrome, uint32_t msn)
{
	struct rk_xeth_fields x = { .aeth_syndrome = syndrome, .aeth_msn = msn };

	h_craft(&H, &F, &H.b, &H.a, opcode, psn, false, &x, NULL, 0);
	h_rx(&H, &H.a, &F);
}

static uint64_t
count(const struct rk_ib_qp *qp, enum rk_ib_reason r)
{
	return rk_ib_qp_reason_stats(qp)->count[r];
}

/* Sum of every reason counted on the QP. */
static uint64_t
total(const struct rk_ib_qp *qp)
{
	uint64_t t = 0;

	for (int r = 0; r < RK_IB_REASON_COUNT; r++)
		t += count(qp, (enum rk_ib_reason)r);
	return t;
}

/* Exactly one reason was counted on B's QP, and it is @p r. */
static void
only_b(enum rk_ib_reason r)
{
	assert_int_equal(count(H.b.qp, r), 1);
	assert_int_equal(total(H.b.qp), 1);
	assert_int_equal(rk_ib_qp_last_reason(H.b.qp), r);
}

static void
fresh(const struct h_opts *o)
{
	h_init(&H, o);
	h_post_recv(&H.b, 5, 0, 4096);
}

/* The name table: unique names, a rule ID and a reference of the citation form. */
static void
test_table(void **state)
{
	regex_t cite;

	(void)state;
	assert_int_equal(regcomp(&cite, "^(IBTA Vol1 (ch\\. )?[0-9]+(\\.[0-9]+)*( \\(C9-[0-9]+\\))?"
				 "|IBTA Annex A17 A17(\\.[0-9]+)+|RFC [0-9]+( [0-9.]+)?)$",
				 REG_EXTENDED | REG_NOSUB), 0);
	assert_int_equal(rk_ib_reason_xstats.n, RK_IB_REASON_COUNT - 1);
	for (int r = 1; r < RK_IB_REASON_COUNT; r++) {
		const char *name = rk_ib_reason_name((enum rk_ib_reason)r);

		assert_non_null(strchr(name, '.'));
		assert_true(strlen(rk_ib_reason_rule((enum rk_ib_reason)r)) > 3);
		assert_int_equal(regexec(&cite, rk_ib_reason_cite((enum rk_ib_reason)r), 0, NULL, 0),
				 0);
		for (int s = 1; s < r; s++)
			assert_string_not_equal(name, rk_ib_reason_name((enum rk_ib_reason)s));
		/* The counter table names and finds the same counter. */
		assert_string_equal(rk_ib_reason_xstats.desc[r - 1].name, name);
		assert_int_equal(rk_ib_reason_xstats.desc[r - 1].off,
				 offsetof(struct rk_ib_reason_stats, count) + (size_t)r * 8);
	}
	assert_string_equal(rk_ib_reason_name(RK_IB_REASON_COUNT), "?");
	regfree(&cite);
}

/* Opcode sequence and QP access: class C on RC, each with its own reason. */
static void
test_opcode_and_sequence(void **state)
{
	uint8_t pay[1024] = { 0 };

	(void)state;
	fresh(&(struct h_opts){ .a_psn = EPSN });
	req(RK_OP_SEND_MIDDLE, EPSN, true, NULL, pay, 1024);
	only_b(RK_IB_R_RESP_OPSEQ_FIRST);
	assert_int_equal(rk_ib_qp_state(H.b.qp), RK_QPS_ERR);
	h_fini(&H);

	fresh(&(struct h_opts){ .a_psn = EPSN });
	req(RK_OP_SEND_FIRST, EPSN, false, NULL, pay, 1024);
	req(RK_OP_RDMA_WRITE_ONLY, EPSN + 1, true, h_reth(h_va(&H.b, 0), rk_ib_mr_rkey(H.b.mr), 8),
	    pay, 8);
	only_b(RK_IB_R_RESP_OPSEQ_LAST);
	h_fini(&H);

	fresh(&(struct h_opts){ .a_psn = EPSN, .access = RK_ACCESS_REMOTE_READ });
	req(RK_OP_RDMA_WRITE_ONLY, EPSN, true, h_reth(h_va(&H.b, 0), rk_ib_mr_rkey(H.b.mr), 8),
	    pay, 8);
	only_b(RK_IB_R_RESP_QP_ACCESS);
	h_fini(&H);
}

/* Lengths (C9-92, C9-94) and atomic alignment. */
static void
test_lengths(void **state)
{
	uint8_t pay[1100] = { 0 };
	uint32_t rk;

	(void)state;
	fresh(&(struct h_opts){ .a_psn = EPSN });
	req(RK_OP_SEND_FIRST, EPSN, true, NULL, pay, 100);
	only_b(RK_IB_R_RESP_LEN_NOT_PMTU);
	h_fini(&H);

	fresh(&(struct h_opts){ .a_psn = EPSN });
	req(RK_OP_SEND_ONLY, EPSN, true, NULL, pay, 1100);
	only_b(RK_IB_R_RESP_LEN_OVER_PMTU);
	h_fini(&H);

	fresh(&(struct h_opts){ .a_psn = EPSN });
	rk = rk_ib_mr_rkey(H.b.mr);
	req(RK_OP_RDMA_READ_REQUEST, EPSN, true, h_reth(h_va(&H.b, 0), rk, 0x80000001u), NULL, 0);
	only_b(RK_IB_R_RESP_DMALEN);
	h_fini(&H);

	fresh(&(struct h_opts){ .a_psn = EPSN });
	rk = rk_ib_mr_rkey(H.b.mr);
	req(RK_OP_FETCH_ADD, EPSN, true, h_atm(h_va(&H.b, 4), rk, 1, 0), NULL, 0);
	only_b(RK_IB_R_RESP_ATOMIC_ALIGN);
	h_fini(&H);

	fresh(&(struct h_opts){ .a_psn = EPSN });
	rk = rk_ib_mr_rkey(H.b.mr);
	req(RK_OP_RDMA_WRITE_ONLY, EPSN, true, h_reth(h_va(&H.b, 0), rk, 16), pay, 8);
	only_b(RK_IB_R_RESP_WRITE_LEN);
	h_fini(&H);
}

/* R_Key checks, one reason each: unknown key, bounds, access rights. */
static void
test_memory_protection(void **state)
{
	uint8_t pay[8] = { 0 };
	uint8_t *buf = calloc(1, 4096);
	struct rk_ib_mr *ro;

	(void)state;
	fresh(&(struct h_opts){ .a_psn = EPSN });
	req(RK_OP_RDMA_WRITE_ONLY, EPSN, true,
	    h_reth(h_va(&H.b, 0), rk_ib_mr_rkey(H.b.mr) ^ 0x5a5a00u, 8), pay, 8);
	only_b(RK_IB_R_RESP_RKEY);
	assert_int_equal(h_tx(&H, &H.b), 1);
	assert_int_equal(h_syndrome(&H.q[0]), RK_AETH_TYPE_NAK | RK_AETH_NAK_REMOTE_ACCESS_ERR);
	h_fini(&H);

	fresh(&(struct h_opts){ .a_psn = EPSN });
	req(RK_OP_RDMA_WRITE_ONLY, EPSN, true,
	    h_reth(h_va(&H.b, H_MEM - 4), rk_ib_mr_rkey(H.b.mr), 8), pay, 8);
	only_b(RK_IB_R_RESP_RKEY_BOUNDS);
	h_fini(&H);

	fresh(&(struct h_opts){ .a_psn = EPSN });
	ro = rk_ib_mr_reg(H.b.pd, buf, 4096, RK_ACCESS_REMOTE_READ);
	assert_non_null(ro);
	req(RK_OP_RDMA_WRITE_ONLY, EPSN, true,
	    h_reth((uint64_t)(uintptr_t)buf, rk_ib_mr_rkey(ro), 8), pay, 8);
	only_b(RK_IB_R_RESP_RKEY_ACCESS);
	h_fini(&H);
	free(buf);
}

/* Receive WQEs and responder resources. */
static void
test_resources(void **state)
{
	uint8_t pay[64] = { 0 };

	(void)state;
	/* RC without a receive WQE: RNR NAK, counted as such. */
	h_init(&H, &(struct h_opts){ .a_psn = EPSN });
	req(RK_OP_SEND_ONLY, EPSN, true, NULL, pay, 8);
	only_b(RK_IB_R_RESP_RNR);
	h_fini(&H);

	/* A SEND longer than the receive buffer. */
	h_init(&H, &(struct h_opts){ .a_psn = EPSN });
	h_post_recv(&H.b, 5, 0, 16);
	req(RK_OP_SEND_ONLY, EPSN, true, NULL, pay, 64);
	only_b(RK_IB_R_RESP_RECV_LEN);
	h_fini(&H);

	/* One READ beyond max_dest_rd_atomic. */
	h_init(&H, &(struct h_opts){ .a_psn = EPSN, .rd_atomic = 1 });
	req(RK_OP_RDMA_READ_REQUEST, EPSN, true, h_reth(h_va(&H.b, 0), rk_ib_mr_rkey(H.b.mr), 8),
	    NULL, 0);
	req(RK_OP_RDMA_READ_REQUEST, EPSN + 1, true,
	    h_reth(h_va(&H.b, 0), rk_ib_mr_rkey(H.b.mr), 8), NULL, 0);
	only_b(RK_IB_R_RESP_RD_ATOMIC_EXCEEDED);
	h_fini(&H);
}

/* PSN gaps (one NAK per gap, the rest dropped) and stale duplicates. */
static void
test_psn_and_duplicates(void **state)
{
	uint8_t pay[8] = { 0 };

	(void)state;
	fresh(&(struct h_opts){ .a_psn = EPSN });
	req(RK_OP_SEND_ONLY, EPSN + 1, true, NULL, pay, 8);
	req(RK_OP_SEND_ONLY, EPSN + 2, true, NULL, pay, 8);
	assert_int_equal(count(H.b.qp, RK_IB_R_RESP_PSN_GAP), 1);
	assert_int_equal(count(H.b.qp, RK_IB_R_RESP_PSN_GAP_AGAIN), 1);
	assert_int_equal(total(H.b.qp), 2);
	assert_int_equal(rk_ib_qp_state(H.b.qp), RK_QPS_RTS);
	h_fini(&H);

	/* A duplicate READ for which no responder resource is held: dropped. */
	fresh(&(struct h_opts){ .a_psn = EPSN });
	req(RK_OP_RDMA_READ_REQUEST, EPSN - 1, true,
	    h_reth(h_va(&H.b, 0), rk_ib_mr_rkey(H.b.mr), 8), NULL, 0);
	only_b(RK_IB_R_RESP_DUP_READ_GONE);
	assert_int_equal(h_tx(&H, &H.b), 0);
	assert_int_equal(rk_ib_qp_stats(H.b.qp)->resp_drop, 1);
	h_fini(&H);
}

/* UC: the same broken rule is a silent drop (class D), counted by its reason. */
static void
test_uc_class_d(void **state)
{
	uint8_t pay[8] = { 0 };

	(void)state;
	fresh(&(struct h_opts){ .type = RK_QPT_UC, .a_psn = EPSN });
	req(RK_OP_TR_UC | RK_OP_RDMA_WRITE_ONLY, EPSN, false,
	    h_reth(h_va(&H.b, 0), rk_ib_mr_rkey(H.b.mr) ^ 0x5a5a00u, 8), pay, 8);
	only_b(RK_IB_R_RESP_RKEY);
	assert_int_equal(h_tx(&H, &H.b), 0);
	assert_int_equal(rk_ib_qp_state(H.b.qp), RK_QPS_RTS);
	/* A lost packet takes the rest of its message with it. */
	req(RK_OP_TR_UC | RK_OP_SEND_LAST, EPSN + 5, false, NULL, pay, 8);
	assert_int_equal(count(H.b.qp, RK_IB_R_RESP_UC_MSG_LOST), 1);
	h_fini(&H);
}

static unsigned int traced;
static char trace_from[64], trace_to[64];

static void
on_trace(void *ctx, const struct rk_ib_qp *qp, const char *machine, const char *from,
	 const char *to)
{
	(void)ctx;
	(void)qp;
	if (strcmp(machine, "reason") != 0)
		return;
	traced++;
	snprintf(trace_from, sizeof(trace_from), "%s", from);
	snprintf(trace_to, sizeof(trace_to), "%s", to);
}

/* The completer: ghost ACKs, reserved AETH, class C NAKs received; and the trace. */
static void
test_completer_and_trace(void **state)
{
	(void)state;
	h_init(&H, &(struct h_opts){ .a_psn = P, .timeout = 14, .retry_cnt = 3 });
	H.a.dev->attr.trace = on_trace;
	traced = 0;
	assert_int_equal(h_post_send(&H.a, 1, RK_WR_SEND, 0, 8, 0, 0, 0), 0);
	assert_int_equal(h_tx(&H, &H.a), 1);
	resp(RK_OP_ACKNOWLEDGE, P + 5, 0x1f, 1);
	assert_int_equal(count(H.a.qp, RK_IB_R_COMP_GHOST), 1);
	assert_int_equal(traced, 1);
	assert_string_equal(trace_from, "comp.ghost");
	assert_string_equal(trace_to, "RETRY-GHOST-01");
	resp(RK_OP_ACKNOWLEDGE, P, 0x40, 1);
	assert_int_equal(count(H.a.qp, RK_IB_R_COMP_AETH_RESERVED), 1);
	resp(RK_OP_ACKNOWLEDGE, P, RK_AETH_TYPE_NAK | RK_AETH_NAK_REMOTE_ACCESS_ERR, 0);
	assert_int_equal(count(H.a.qp, RK_IB_R_COMP_NAK_RACC), 1);
	assert_int_equal(total(H.a.qp), 3);
	assert_int_equal(traced, 3);
	assert_int_equal(rk_ib_qp_state(H.a.qp), RK_QPS_ERR);
	h_fini(&H);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_opcode_and_sequence),
		cmocka_unit_test(test_lengths),
		cmocka_unit_test(test_memory_protection),
		cmocka_unit_test(test_resources),
		cmocka_unit_test(test_psn_and_duplicates),
		cmocka_unit_test(test_uc_class_d),
		cmocka_unit_test(test_completer_and_trace),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
