/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The impairment matrix (lib/sim/rk_sim_wl.c over lib/verbs and lib/ib):
 * for each impairment cell, random mixes of every opcode with sizes from
 * 0 to 1 MiB between two RC QPs; every completion, received message, READ
 * result and byte of the target region is checked by the workload, with
 * guard pages around the buffers. One fixed seed per cell (override with
 * RK_TEST_SEED). Sized for CI; bench runs 10^5 operations per cell.
 */
#include "rk_test.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "rk_sim_wl.h"

static uint64_t seed_base = 1;

struct cell {
	const char *name;
	struct rk_sim_impair imp;
	uint32_t ops;
	uint32_t max_size;
};

static void
run_cell(const struct cell *c, uint64_t seed)
{
	struct rk_sim_wl_cfg cfg = {
		.seed = seed,
		.ops = c->ops,
		.max_size = c->max_size,
		.mtu = RK_MTU_1024,
		.depth = 16,
		.impair = c->imp,
		.timeout = 10,
		.retry_cnt = 7,
		.window = 64,
		.recover = true,
	};
	struct rk_sim_wl_result r;
	int rc = rk_sim_wl_run(&cfg, &r);

	printf("# %-12s seed %-4" PRIu64 " ops %5" PRIu64 " bytes %10" PRIu64
	       " verified %10" PRIu64 " virt %9.3f ms lost %" PRIu64 "/%" PRIu64
	       " timeouts %" PRIu64 " nakseq %" PRIu64 " reconnects %" PRIu64 " %s\n",
	       c->name, seed, r.completed, r.payload_bytes, r.bytes_verified,
	       (double)r.virtual_ns / 1e6, r.link[0].lost + r.link[1].lost,
	       r.link[0].sent + r.link[1].sent, r.stats[0].req_retransmit_timeouts,
	       r.stats[1].resp_nak_seq, r.reconnects, rc == 0 ? "ok" : r.first_error);
	assert_int_equal(rc, 0);
	/* Eight failed attempts in a row are plausible only at 20% loss. */
	if (c->imp.loss < 0.2 && c->imp.burst == 0)
		assert_int_equal(r.reconnects, 0);
	assert_int_equal(r.errors, 0);
	assert_int_equal(r.completed, c->ops);
	for (int op = 0; op < RK_SIM_OP_COUNT; op++)
		assert_true(r.per_op[op] > 0);
	assert_true(r.bytes_verified > 0);
}

#define MIB (1u << 20)

static const struct cell cells[] = {
	{ "loss0", { .delay_ns = 2000 }, 400, MIB },
	{ "loss0.1%", { .loss = 0.001, .delay_ns = 2000 }, 400, MIB },
	{ "loss1%", { .loss = 0.01, .delay_ns = 2000 }, 300, MIB },
	{ "loss5%", { .loss = 0.05, .delay_ns = 2000 }, 200, 256 * 1024 },
	{ "loss20%", { .loss = 0.20, .delay_ns = 2000 }, 150, 64 * 1024 },
	{ "burst", { .loss = 0.01, .burst = 0.5, .burst_len = 4, .delay_ns = 2000 }, 300, MIB },
	{ "reorder", { .reorder = 0.05, .reorder_ns = 20000, .delay_ns = 2000,
		       .jitter_ns = 3000 }, 300, MIB },
	{ "dup", { .dup = 0.05, .delay_ns = 2000 }, 300, MIB },
	{ "corrupt", { .corrupt = 0.02, .delay_ns = 2000 }, 300, MIB },
	{ "mix", { .loss = 0.02, .reorder = 0.02, .reorder_ns = 10000, .dup = 0.02,
		   .corrupt = 0.02, .delay_ns = 2000, .jitter_ns = 1000,
		   .rate_bps = 25000000000ull }, 300, MIB },
};

static void
test_cell(void **state)
{
	const struct cell *c = *state;

	run_cell(c, seed_base + (uint64_t)(c - cells));
}

/* RoCEv2 over IPv6 (flow label, traffic class, ICRC masks differ from IPv4). */
static void
test_ipv6(void **state)
{
	struct rk_sim_wl_cfg cfg = {
		.seed = 17, .ops = 300, .max_size = 65536, .ip_version = 6,
		.impair = { .loss = 0.02, .reorder = 0.02, .reorder_ns = 5000, .dup = 0.01,
			    .delay_ns = 1000 },
	};
	struct rk_sim_wl_result r;
	int rc;

	(void)state;
	rc = rk_sim_wl_run(&cfg, &r);
	printf("# ipv6: %" PRIu64 " ops, %" PRIu64 " bytes verified, %s\n", r.completed,
	       r.bytes_verified, rc == 0 ? "ok" : r.first_error);
	assert_int_equal(rc, 0);
	assert_int_equal(r.completed, 300);
	assert_true(r.link[0].lost > 0);
	assert_true(r.stats[1].resp_nak_seq > 0 || r.stats[0].req_retransmit_timeouts > 0);
	cfg.ip_version = 5;
	assert_int_equal(rk_sim_wl_run(&cfg, &r), -EINVAL);
}

static void
test_deterministic(void **state)
{
	struct rk_sim_wl_cfg cfg = {
		.seed = 99, .ops = 200, .max_size = 65536,
		.impair = { .loss = 0.05, .reorder = 0.05, .reorder_ns = 5000, .delay_ns = 1000 },
	};
	struct rk_sim_wl_result a, b;

	(void)state;
	/* Same seed, same run: virtual time and every counter agree. */
	assert_int_equal(rk_sim_wl_run(&cfg, &a), 0);
	assert_int_equal(rk_sim_wl_run(&cfg, &b), 0);
	assert_int_equal(a.virtual_ns, b.virtual_ns);
	assert_int_equal(a.link[0].sent, b.link[0].sent);
	assert_int_equal(a.link[1].lost, b.link[1].lost);
	assert_int_equal(a.payload_bytes, b.payload_bytes);
	assert_memory_equal(&a.stats[0], &b.stats[0], sizeof(a.stats[0]));
}

static void
test_mtu_drop_is_reported(void **state)
{
	struct rk_sim_wl_cfg cfg = {
		.seed = 3, .ops = 20, .max_size = 4096, .mtu = RK_MTU_2048,
		.impair = { .mtu = 1500, .delay_ns = 1000 }, .timeout = 8, .retry_cnt = 2,
		.opmask = 1u << RK_SIM_WRITE, .large_sizes = true,
	};
	struct rk_sim_wl_result r;

	(void)state;
	/* A link MTU below the path MTU loses every full packet: retries run out. */
	assert_int_equal(rk_sim_wl_run(&cfg, &r), -EIO);
	assert_non_null(strstr(r.first_error, "transport retry counter exceeded"));
	assert_true(r.link[0].mtu_drops > 0);
}

/*
 * A failed run: the operations counted per kind are the completed ones
 * (not those posted), the payload is theirs, and the error names the
 * failed operation's first PSN and the timeouts that ended it.
 */
static void
test_failed_run_reports(void **state)
{
	struct rk_sim_wl_cfg cfg = {
		.seed = 1, .ops = 300, .max_size = 65536, .retry_cnt = 1,
		.impair = { .loss = 0.5, .delay_ns = 2000 },
	};
	struct rk_sim_wl_result r;
	uint64_t sum = 0;

	(void)state;
	assert_int_equal(rk_sim_wl_run(&cfg, &r), -EIO);
	for (int op = 0; op < RK_SIM_OP_COUNT; op++)
		sum += r.per_op[op];
	assert_int_equal(sum, r.completed);
	if (r.completed == 0)
		assert_int_equal(r.payload_bytes, 0);
	/* Op 0 starts at A's first PSN, 0xffff00 (connect_qp). */
	assert_non_null(strstr(r.first_error, "first PSN 0x"));
	assert_non_null(strstr(r.first_error, "retransmission timeouts"));
	assert_true(r.stats[0].req_retransmit_timeouts > 0);
}

/* Latency per operation: every completed one in the histogram, p50 <= p99 <= max. */
static void
test_latency(void **state)
{
	struct rk_sim_wl_cfg cfg = {
		.seed = 2, .ops = 500, .max_size = 65536,
		.impair = { .delay_ns = 2000, .rate_bps = 100000000000ull },
	};
	struct rk_sim_wl_result r;
	uint64_t n = 0, p50, p99;

	(void)state;
	assert_int_equal(rk_sim_wl_run(&cfg, &r), 0);
	for (unsigned int b = 0; b < RK_SIM_LAT_BUCKETS; b++)
		n += r.lat_hist[b];
	assert_int_equal(n, r.completed);
	p50 = rk_sim_wl_latency(&r, 0.5);
	p99 = rk_sim_wl_latency(&r, 0.99);
	/* At least a round trip of 2 x 2 us. */
	assert_true(p50 >= 4000);
	assert_true(p50 <= p99);
	assert_true(p99 <= r.lat_max_ns);
	assert_int_equal(rk_sim_wl_latency(&r, 1.0), r.lat_max_ns);
	assert_true(r.lat_max_ns <= r.virtual_ns);
}

/*
 * Retry exhaustion mid-run: with retry_cnt 1 and 30% loss each way the
 * requester gives up often. The run reconnects and still completes every
 * operation it counts, with every byte outside the lost operations checked.
 */
static void
test_recover_after_retry_exc(void **state)
{
	struct rk_sim_wl_cfg cfg = {
		.seed = 5, .ops = 300, .max_size = 65536, .timeout = 8, .retry_cnt = 1,
		.impair = { .loss = 0.30, .delay_ns = 1000 }, .recover = true,
		.max_reconnects = 1000,
	};
	struct rk_sim_wl_result r;
	int rc;

	(void)state;
	rc = rk_sim_wl_run(&cfg, &r);
	printf("# recover: completed %" PRIu64 " lost %" PRIu64 " reconnects %" PRIu64 " %s\n",
	       r.completed, r.ops_lost, r.reconnects, rc == 0 ? "ok" : r.first_error);
	assert_int_equal(rc, 0);
	assert_int_equal(r.completed, 300);
	assert_true(r.reconnects > 0);
	assert_true(r.ops_lost >= r.reconnects);
	assert_true(r.bytes_verified > 0);
	/* Without recovery the same run stops at the first RETRY_EXC_ERR. */
	cfg.recover = false;
	assert_int_equal(rk_sim_wl_run(&cfg, &r), -EIO);
	assert_non_null(strstr(r.first_error, "transport retry counter exceeded"));
}

/*
 * Strictly periodic loss: every n-th frame of one direction is dropped
 * (a policer, or DPDK --tx-drop-every). Endpoints are paced at the link
 * rate, as an HCA's port is: unpaced, the responder commits a whole READ
 * response to the link at once, so a restart from a duplicate READ
 * (READ-DUP-02) queues behind the old stream and lands at a position set
 * by the remaining length R. With R a multiple of n the restarted stream
 * loses its head every time, only the local ACK timeout recovers, and
 * the READ failed with RETRY_EXC_ERR (1 MiB READs, PMTU 1024, n = 37:
 * the fifth READ).
 */
static int
run_periodic(uint32_t opmask, uint32_t size, uint32_t ops, uint32_t depth, uint32_t every,
	     bool responses, struct rk_sim_wl_result *r)
{
	struct rk_sim_wl_cfg cfg = {
		.seed = 1, .ops = ops, .max_size = size, .opmask = opmask, .fixed_size = true,
		.mtu = RK_MTU_1024, .depth = depth, .paced = true, .split_impair = true,
		.impair = { .delay_ns = 2000, .rate_bps = 25000000000ull },
		.impair_b2a = { .delay_ns = 2000, .rate_bps = 25000000000ull },
	};

	if (responses)
		cfg.impair_b2a.drop_every = every;
	else
		cfg.impair.drop_every = every;
	return rk_sim_wl_run(&cfg, r);
}

static void
test_periodic_read_37(void **state)
{
	struct rk_sim_wl_result r;
	int rc;

	(void)state;
	/* Each READ is 1024 responses, ~28 of them lost: each re-issue must progress. */
	rc = run_periodic(1u << RK_SIM_READ, 1u << 20, 8, 1, 37, true, &r);
	printf("# periodic 37 B>A: %s, re-issues %" PRIu64 ", timeouts %" PRIu64 "\n",
	       rc == 0 ? "ok" : r.first_error, r.stats[0].req_read_retries,
	       r.stats[0].req_retransmit_timeouts);
	assert_int_equal(rc, 0);
	assert_int_equal(r.completed, 8);
	assert_true(r.link[1].periodic_drops >= 8 * 27);
	assert_true(r.stats[0].req_read_retries >= r.link[1].periodic_drops / 2);
	assert_int_equal(r.link[0].periodic_drops, 0);
}

static void
test_periodic_every_op(void **state)
{
	static const uint32_t periods[] = { 7, 13, 37, 101 };
	static const uint32_t masks[] = {
		1u << RK_SIM_READ, 1u << RK_SIM_WRITE, 1u << RK_SIM_SEND,
		1u << RK_SIM_CMP_SWP | 1u << RK_SIM_FETCH_ADD,
	};

	(void)state;
	for (int dir = 0; dir < 2; dir++)
		for (size_t m = 0; m < sizeof(masks) / sizeof(masks[0]); m++)
			for (size_t p = 0; p < sizeof(periods) / sizeof(periods[0]); p++) {
				struct rk_sim_wl_result r;
				int rc = run_periodic(masks[m], 1u << 20, 8, 4, periods[p],
						      dir == 1, &r);

				if (rc != 0)
					printf("# periodic %u %s mask %#x: %s\n", periods[p],
					       dir ? "B>A" : "A>B", masks[m], r.first_error);
				assert_int_equal(rc, 0);
				assert_int_equal(r.completed, 8);
				/* Exactly every n-th frame of that direction, none of the other. */
				assert_int_equal(r.link[dir].periodic_drops,
						 r.link[dir].sent / periods[p]);
				assert_int_equal(r.link[dir ^ 1].periodic_drops, 0);
			}
}

/*
 * The memory a run needs: a buffer per outstanding operation at A, receive
 * buffers of that size at B only with SENDs, no more slots than operations,
 * and the region (2 x max_size + 64 KiB) and its model.
 */
static void
test_mem_need(void **state)
{
	const size_t region = 2 * (size_t)MIB + 65536;
	struct rk_sim_wl_cfg cfg = { .ops = 1000, .max_size = MIB, .depth = 16 };

	(void)state;
	assert_int_equal(rk_sim_wl_mem_need(&cfg), 32 * (size_t)MIB + 2 * region);
	cfg.opmask = 1u << RK_SIM_WRITE | 1u << RK_SIM_WRITE_IMM | 1u << RK_SIM_READ;
	assert_int_equal(rk_sim_wl_mem_need(&cfg), 16 * (size_t)MIB + 16 * 8 + 2 * region);
	cfg.ops = 1;
	assert_int_equal(rk_sim_wl_mem_need(&cfg), (size_t)MIB + 8 + 2 * region);
	cfg.opmask = 1u << RK_SIM_SEND;
	cfg.max_size = 1u << 30;
	cfg.ops = 1000;
	cfg.depth = 0;          /* 16 */
	assert_int_equal(rk_sim_wl_mem_need(&cfg),
			 32 * ((size_t)1 << 30) + 2 * (2 * ((size_t)1 << 30) + 65536));
}

int
main(void)
{
	struct CMUnitTest tests[sizeof(cells) / sizeof(cells[0]) + 9];
	const char *s = getenv("RK_TEST_SEED");
	size_t n = 0;

	if (s != NULL)
		seed_base = strtoull(s, NULL, 0);
	for (size_t i = 0; i < sizeof(cells) / sizeof(cells[0]); i++)
		tests[n++] = (struct CMUnitTest){ cells[i].name, test_cell, NULL, NULL,
						  (void *)(uintptr_t)&cells[i] };
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_deterministic);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_ipv6);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_mtu_drop_is_reported);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_failed_run_reports);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_latency);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_recover_after_retry_exc);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_periodic_read_37);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_periodic_every_op);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_mem_need);
	return _cmocka_run_group_tests("sim_wl", tests, n, NULL, NULL);
}
