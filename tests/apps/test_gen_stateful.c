/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-gen's stateful QP set (apps/rk-gen/stateful_qps.c) between two
 * contexts on a simulated link (lib/sim, virtual time): 256 QPs with a
 * WRITE/READ/SEND mix agree at both ends with every message checked;
 * 32 QPs over a link that loses, reorders and duplicates frames still
 * deliver every message once and intact; data that is not the pattern is
 * found (a READ area changed at the responder, a client that does not
 * fill its messages); the client's latency per opcode and per QP in
 * virtual time; the pattern, sizes, mix and layout on their own; the
 * FETCH_ADD and CMP_SWAP chains of atomics, and the CMP_SWAP checks; a
 * client of four source addresses (rk_sf.nsip) and its responder.
 */
#include "rk_test.h"

#include <stdlib.h>
#include <string.h>

#include "rk_sim.h"
#include "stateful.h"

struct end {
	struct rk_sim_port port;
	struct rk_context *ctx;
	struct rk_sf s;
	struct rk_gen_hello_qp *local;
};

static struct rk_sim_clock clk;
static struct rk_sim_link *link_;
static struct end e[2];         /* 0: client, 1: responder */
static uint32_t n_addrs;        /* the client's addresses from 198.18.0.16 (rk_sf.nsip); 0: its device's */
static bool foreign;            /* the client treats its responder as a perftest server's */

static struct rk_gen_hello
cfg_of(uint32_t n, uint8_t ops, uint32_t smin, uint32_t smax, uint32_t depth)
{
	struct rk_gen_hello h = { .role = RK_GEN_HELLO_CLIENT, .ops = ops, .verify = 1,
				  .ip_version = 4, .count = n, .mtu = 1024, .depth = depth,
				  .size_min = smin, .size_max = smax };

	for (int b = 0; b < 3; b++)
		h.weight[b] = (ops & (1u << b)) ? (uint8_t)(b == 0 ? 2 : 1) : 0;
	return h;
}

/* Both ends built and connected; the responder checks with @p rv, the client fills with @p cv. */
static void
open_pair(const struct rk_gen_hello *cfg, const struct rk_sim_impair *imp, uint64_t iters,
	  uint8_t cv, uint8_t rv)
{
	struct rk_sim_link_cfg lc = { .seed = 3 };

	lc.dir[0] = imp[0];
	lc.dir[1] = imp[1];
	lc.dir[0].delay_ns += 2000;
	lc.dir[1].delay_ns += 2000;
	clk.now_ns = 1;
	link_ = rk_sim_link_create(&lc);
	assert_non_null(link_);
	for (int i = 0; i < 2; i++) {
		struct rk_device_attr da = { .ip_version = 4, .max_qp = cfg->count + 2,
					     .max_mr = cfg->count + 16, .max_inflight_pkts = 1024 };
		struct rk_gen_hello c = *cfg;

		c.verify = i == 0 ? cv : rv;
		da.mac[5] = (uint8_t)(i + 1);
		da.ip[10] = da.ip[11] = 0xff;
		da.ip[15] = (uint8_t)(i + 1);
		e[i].port = (struct rk_sim_port){ link_, (unsigned int)i, &clk };
		e[i].ctx = rk_open_device(&rk_sim_io_ops, &e[i].port, &da);
		assert_non_null(e[i].ctx);
		e[i].local = calloc(cfg->count, sizeof(*e[i].local));
		assert_non_null(e[i].local);
		assert_int_equal(rk_sf_create(&e[i].s, e[i].ctx, &c, i == 1, e[i].local), 0);
		if (i == 0 && foreign)
			assert_int_equal(rk_sf_foreign(&e[0].s), 0);
	}
	for (int i = 0; i < 2; i++) {
		uint8_t mac[6] = { 0, 0, 0, 0, 0, (uint8_t)(2 - i) };
		uint8_t ip[16] = { [10] = 0xff, [11] = 0xff, [15] = (uint8_t)(2 - i) };

		if (n_addrs > 1 && i == 0) {
			memcpy(e[0].s.sip, ip, 16);
			e[0].s.sip[15] = 16;
			e[0].s.nsip = n_addrs;
		} else if (n_addrs > 1) {
			ip[15] = 16;
			e[1].s.ndip = n_addrs;
		}
		assert_int_equal(rk_sf_connect(&e[i].s, e[i ^ 1].local, mac, ip, 10, 7), 0);
	}
	e[0].s.iters = iters;
}

/* Nothing moved: the virtual clock jumps to the link's or an engine's next event. */
static void
idle_to_next_event(void)
{
	uint64_t t = UINT64_MAX;

	for (int d = 0; d < 2; d++) {
		uint64_t x = rk_sim_link_next_ns(link_, (unsigned int)d);

		t = x < t ? x : t;
		x = rk_next_event_ns(e[d].ctx);
		t = x < t ? x : t;
	}
	if (t != UINT64_MAX && t > clk.now_ns)
		clk.now_ns = t;
}

/*
 * Both ends step in virtual time until the client is done and the
 * responder has all, or the client completed @p stop messages.
 */
static void
run_pair_until(uint64_t stop)
{
	for (long k = 0; k < 20000000; k++) {
		int a = rk_sf_step(&e[0].s, 4096), b = rk_sf_step(&e[1].s, 0);

		assert_true(a >= 0);
		assert_true(b >= 0);
		if (e[0].s.t.msgs >= stop)
			return;
		if (rk_sf_all_done(&e[0].s) &&
		    e[1].s.t.msgs == e[0].s.t.msgs_op[0] + e[0].s.t.msgs_op[2])
			return;
		if (a > 0 || b > 0)
			continue;
		idle_to_next_event();
	}
	fail_msg("the run did not end: client %lu messages, responder %lu",
		 (unsigned long)e[0].s.t.msgs, (unsigned long)e[1].s.t.msgs);
}

static void
run_pair(void)
{
	run_pair_until(UINT64_MAX);
}

static void
close_pair(void)
{
	for (int i = 0; i < 2; i++) {
		rk_sf_destroy(&e[i].s);
		assert_int_equal(rk_close_device(e[i].ctx), 0);
		free(e[i].local);
	}
	rk_sim_link_destroy(link_);
}

static void
assert_agree(uint32_t n, uint64_t iters)
{
	const struct rk_sf_totals *c = &e[0].s.t, *r = &e[1].s.t;

	assert_int_equal(c->msgs, (uint64_t)n * iters);
	assert_int_equal(r->msgs, c->msgs_op[0] + c->msgs_op[2]);
	assert_int_equal(c->data_err + c->seq_err + c->wc_err, 0);
	assert_int_equal(r->data_err + r->seq_err + r->wc_err, 0);
	assert_int_equal(rk_context_stats(e[1].ctx)->resp_read_reqs, c->msgs_op[1]);
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(e[0].s.q[i].done, iters);
}

static void
test_mix_256(void **state)
{
	struct rk_gen_hello cfg = cfg_of(256, 7, 1, 3000, 4);
	struct rk_sim_impair clean[2] = { { 0 }, { 0 } };

	(void)state;
	open_pair(&cfg, clean, 12, 1, 1);
	run_pair();
	assert_agree(256, 12);
	assert_true(e[0].s.t.msgs_op[0] > 0 && e[0].s.t.msgs_op[1] > 0 && e[0].s.t.msgs_op[2] > 0);
	assert_int_equal(rk_context_stats(e[0].ctx)->req_retx_pkts, 0);
	close_pair();
}

/*
 * One client device, four source addresses: QP i sends from .16 + i mod 4
 * and the responder's QP i answers there. Each end takes only frames of
 * its QP's pair of addresses, so the run completing means both used them.
 */
static void
test_addrs(void **state)
{
	struct rk_gen_hello cfg = cfg_of(8, 7, 1, 3000, 4);
	struct rk_sim_impair clean[2] = { { 0 }, { 0 } };

	(void)state;
	n_addrs = 4;
	open_pair(&cfg, clean, 20, 1, 1);
	n_addrs = 0;
	for (uint32_t i = 0; i < 8; i++) {
		struct rk_qp_attr a;
		struct rk_qp_init_attr ia;

		assert_int_equal(rk_query_qp(e[0].s.q[i].qp, &a, RK_QP_AV, &ia), 0);
		assert_int_equal(a.ah_attr.sip[15], 16 + i % 4);
		assert_int_equal(rk_query_qp(e[1].s.q[i].qp, &a, RK_QP_AV, &ia), 0);
		assert_int_equal(a.ah_attr.dip[15], 16 + i % 4);
	}
	run_pair();
	assert_agree(8, 20);
	close_pair();
}

static uint64_t
virtual_now(void)
{
	return clk.now_ns;
}

/* Latency in virtual time: every message takes at least the link's round
 * trip (2 us each way); each opcode's histogram holds its messages, the
 * QPs' hold them all, and the quantiles are in order. */
static void
test_latency(void **state)
{
	struct rk_gen_hello cfg = cfg_of(8, 7, 1, 3000, 4);
	struct rk_sim_impair clean[2] = { { 0 }, { 0 } };
	const struct rk_sf_lat *l;
	uint64_t per_qp = 0;

	(void)state;
	open_pair(&cfg, clean, 40, 1, 1);
	assert_int_equal(rk_sf_latency_on(&e[0].s, virtual_now), 0);
	run_pair();
	assert_agree(8, 40);
	l = e[0].s.lat;
	for (unsigned int o = 0; o < 3; o++) {
		assert_int_equal(l->op[o].count, e[0].s.t.msgs_op[o]);
		assert_true(l->op[o].min_ns >= 4000);
		assert_true(rk_hist_quantile(&l->op[o], 50000) <= rk_hist_quantile(&l->op[o], 99000));
		assert_true(rk_hist_quantile(&l->op[o], 99000) <= l->op[o].max_ns);
	}
	for (uint32_t i = 0; i < 8; i++) {
		assert_int_equal(l->qp[i].count, 40);
		assert_true(l->qp[i].min_ns >= 4000);
		per_qp += l->qp[i].count;
	}
	assert_int_equal(per_qp, e[0].s.t.msgs);
	close_pair();
}

static uint64_t fake_ns;

static uint64_t
fake_now(void)
{
	return fake_ns;
}

/* Each message's latency is its own post-to-completion time: QP 1 posts
 * messages 0..4 at 100 ns steps with three outstanding (depth 3), each
 * completing 1000 + 10 m ns after its post; one READ on QP 0 takes 5 us;
 * a post time past 2^32 ns still gives the right latency. */
static void
test_latency_exact(void **state)
{
	struct rk_sf s = { .n = 2, .cfg = { .depth = 3 } };
	uint32_t posted[5], p7;

	(void)state;
	assert_int_equal(rk_sf_latency_on(&s, fake_now), 0);
	for (uint64_t m = 0; m < 5; m++) {
		fake_ns = 100 * m;
		posted[m] = rk_sf_lat_post(&s);
		if (m >= 2) {   /* message m - 2 completes before m + 1 is posted */
			fake_ns = 100 * (m - 2) + 1000 + 10 * (m - 2);
			rk_sf_lat_done(&s, 1, posted[m - 2], 0);
		}
	}
	for (uint64_t m = 3; m < 5; m++) {
		fake_ns = 100 * m + 1000 + 10 * m;
		rk_sf_lat_done(&s, 1, posted[m], 0);
	}
	fake_ns = (1ull << 32) - 2000;
	p7 = rk_sf_lat_post(&s);
	fake_ns += 5000;
	rk_sf_lat_done(&s, 0, p7, 1);
	assert_int_equal(s.lat->op[0].count, 5);
	assert_int_equal(s.lat->op[0].min_ns, 1000);
	assert_int_equal(s.lat->op[0].max_ns, 1040);
	assert_int_equal(s.lat->op[0].sum_ns, 5 * 1000 + 10 * (0 + 1 + 2 + 3 + 4));
	assert_int_equal(s.lat->qp[1].count, 5);
	assert_int_equal(s.lat->op[1].count, 1);
	assert_int_equal(s.lat->op[1].min_ns, 5000);
	assert_int_equal(s.lat->qp[0].max_ns, 5000);
	assert_int_equal(s.lat->op[2].count, 0);
	rk_sf_latency_off(&s);
	assert_null(s.lat);
}

static void
test_lossy_link(void **state)
{
	struct rk_gen_hello cfg = cfg_of(32, 7, 16, 5000, 8);
	struct rk_sim_impair bad[2] = {
		{ .loss = 0.02, .reorder = 0.01, .reorder_ns = 5000, .dup = 0.01 },
		{ .loss = 0.02, .dup = 0.01 },
	};

	(void)state;
	open_pair(&cfg, bad, 60, 1, 1);
	run_pair();
	assert_agree(32, 60);
	assert_true(rk_context_stats(e[0].ctx)->req_retx_pkts > 0);
	assert_true(rk_sim_link_stats(link_, 0)->lost > 0);
	close_pair();
}

/* FETCH_ADDs in the mix, over a clean link and one that loses and
 * duplicates: each QP's k-th atomic found k (executed once, in order, a
 * duplicate answered from the responder's copy), and the responder's word
 * holds the count. */
static void
test_atomics(void **state)
{
	static const struct rk_sim_impair clean[2] = { { 0 }, { 0 } };
	static const struct rk_sim_impair bad[2] = {
		{ .loss = 0.03, .dup = 0.02 }, { .loss = 0.03, .dup = 0.02 },
	};

	(void)state;
	for (int run = 0; run < 2; run++) {
		struct rk_gen_hello cfg = cfg_of(16, 15, 8, 600, 4);
		struct rk_sf_layout l;

		cfg.weight[3] = 2;
		open_pair(&cfg, run ? bad : clean, 50, 1, 1);
		run_pair();
		assert_agree(16, 50);
		assert_true(e[0].s.t.msgs_op[3] > 0);
		rk_sf_layout(&cfg, true, &l);
		for (uint32_t i = 0; i < 16; i++) {
			uint64_t word;

			memcpy(&word, e[1].s.q[i].buf + l.atomic_off, 8);
			assert_int_equal(word, e[0].s.q[i].atomics);
		}
		if (run)
			assert_true(rk_context_stats(e[0].ctx)->req_retx_pkts > 0);
		close_pair();
	}
}

/* CMP_SWAPs (with FETCH_ADDs and the rest) over a clean link, one that
 * loses and duplicates, and one that also reorders: each QP's k-th
 * CMP_SWAP returned its value k (its compare matched, executed once, in
 * order; a duplicate answered from the responder's saved result), the
 * responder's word holds the value after all of them, and the FETCH_ADD
 * word its own count. */
static void
test_cmp_swap(void **state)
{
	static const struct rk_sim_impair links[3][2] = {
		{ { 0 }, { 0 } },
		{ { .loss = 0.03, .dup = 0.02 }, { .loss = 0.03, .dup = 0.02 } },
		{ { .loss = 0.02, .dup = 0.03, .reorder = 0.02, .reorder_ns = 5000 },
		  { .loss = 0.02, .dup = 0.03 } },
	};

	(void)state;
	for (int run = 0; run < 3; run++) {
		struct rk_gen_hello cfg = cfg_of(16, 31, 8, 600, 6);
		struct rk_sf_layout l;
		uint64_t cas = 0, want = 0;

		cfg.weight[3] = 1;
		cfg.weight[4] = 3;
		open_pair(&cfg, links[run], 60, 1, 1);
		run_pair();
		assert_agree(16, 60);
		rk_sf_layout(&cfg, true, &l);
		assert_true(l.cas_off % 8 == 0 && l.cas_off >= l.atomic_off + 8);
		assert_true(l.cas_off + 8 <= l.len);
		for (uint32_t i = 0; i < 16; i++) {
			uint64_t word;

			assert_int_equal(e[0].s.q[i].cas_done, e[0].s.q[i].cas_posted);
			memcpy(&word, e[1].s.q[i].buf + l.cas_off, 8);
			assert_int_equal(word, rk_sf_cas_value(i, e[0].s.q[i].cas_done));
			memcpy(&word, e[1].s.q[i].buf + l.atomic_off, 8);
			assert_int_equal(word, e[0].s.q[i].atomics);
			cas += e[0].s.q[i].cas_done;
		}
		/* weights 2:1:1:1:3: 3 in 8 messages are CMP_SWAPs */
		for (uint32_t i = 0; i < 16; i++)
			for (uint64_t m = 0; m < 60; m++)
				want += rk_sf_op(&cfg, i, m) == RK_GEN_OP_CMP_SWAP;
		assert_int_equal(cas, want);
		assert_int_equal(e[0].s.t.msgs_op[4], want);
		assert_true(want >= 16 * 21);
		if (run) {
			assert_true(rk_context_stats(e[0].ctx)->req_retx_pkts > 0);
			assert_true(rk_sim_link_stats(link_, 0)->dup > 0);
		}
		close_pair();
	}
}

/* The checks catch what they are for. QP 3's word one swap ahead before
 * the run (a CMP_SWAP applied twice): its first CMP_SWAP finds the value
 * one ahead, does not swap and is reported; the next ones go on from
 * there. QP 5's client one CMP_SWAP ahead of the word (each compare value
 * wrong, as after a lost execution): none of QP 5's swaps, all reported.
 * The other QPs are clean. */
static void
test_cmp_swap_checked(void **state)
{
	static const struct rk_sim_impair clean[2] = { { 0 }, { 0 } };
	struct rk_gen_hello cfg = cfg_of(8, RK_GEN_OP_WRITE | RK_GEN_OP_CMP_SWAP, 8, 64, 4);
	struct rk_sf_layout l;
	uint64_t word;

	(void)state;
	cfg.weight[4] = 1;                             /* WRITE 2, CMP_SWAP 1 */
	open_pair(&cfg, clean, 30, 1, 1);
	rk_sf_layout(&cfg, true, &l);
	word = rk_sf_cas_value(3, 1);
	memcpy(e[1].s.q[3].buf + l.cas_off, &word, 8);
	/* the client's QP 5 believes one CMP_SWAP was done: it compares the value after it */
	e[0].s.q[5].cas_posted = e[0].s.q[5].cas_done = 1;
	run_pair();
	assert_int_equal(e[0].s.q[3].bad, 1);
	assert_int_equal(e[0].s.q[5].bad, 10);         /* 30 messages, every third a CMP_SWAP */
	assert_int_equal(e[0].s.t.data_err, 11);
	for (uint32_t i = 0; i < 8; i++)
		if (i != 3 && i != 5)
			assert_int_equal(e[0].s.q[i].bad, 0);
	/* QP 3: nine swaps after the one that failed; QP 5: none */
	memcpy(&word, e[1].s.q[3].buf + l.cas_off, 8);
	assert_int_equal(word, rk_sf_cas_value(3, 10));
	memcpy(&word, e[1].s.q[5].buf + l.cas_off, 8);
	assert_int_equal(word, rk_sf_cas_value(5, 0));
	memcpy(&word, e[1].s.q[4].buf + l.cas_off, 8);
	assert_int_equal(word, rk_sf_cas_value(4, 10));
	assert_int_equal(e[1].s.t.data_err + e[1].s.t.seq_err, 0);
	close_pair();
}

/* Two sets on each context, as a responder serving two clients would
 * hold them (a set each, its own PD, CQ and QPs): set A of 4 QPs and set
 * B of 6 with another mix, both with CMP_SWAPs, connected pairwise over
 * one link, stepped in turn: every message of each checked, each
 * responder set saw exactly its own client's. */
static void
test_two_sets_one_context(void **state)
{
	static const struct rk_sim_impair clean[2] = { { 0 }, { 0 } };
	struct rk_gen_hello ca = cfg_of(4, RK_GEN_OP_WRITE | RK_GEN_OP_CMP_SWAP, 8, 256, 4);
	struct rk_gen_hello cb = cfg_of(6, RK_GEN_OP_SEND | RK_GEN_OP_READ | RK_GEN_OP_CMP_SWAP,
					16, 512, 3);
	struct rk_sf sb[2];
	struct rk_gen_hello_qp *lb[2];

	(void)state;
	ca.weight[4] = 1;
	cb.weight[4] = 2;
	/* open_pair sizes the devices for A's QPs: room for B's as well */
	ca.count = 10;
	open_pair(&ca, clean, 0, 1, 1);
	for (int i = 0; i < 2; i++) {
		rk_sf_destroy(&e[i].s);
		ca.count = 4;
		assert_int_equal(rk_sf_create(&e[i].s, e[i].ctx, &ca, i == 1, e[i].local), 0);
		lb[i] = calloc(cb.count, sizeof(*lb[i]));
		assert_non_null(lb[i]);
		assert_int_equal(rk_sf_create(&sb[i], e[i].ctx, &cb, i == 1, lb[i]), 0);
	}
	for (int i = 0; i < 2; i++) {
		uint8_t mac[6] = { 0, 0, 0, 0, 0, (uint8_t)(2 - i) };
		uint8_t ip[16] = { [10] = 0xff, [11] = 0xff, [15] = (uint8_t)(2 - i) };

		assert_int_equal(rk_sf_connect(&e[i].s, e[i ^ 1].local, mac, ip, 10, 7), 0);
		assert_int_equal(rk_sf_connect(&sb[i], lb[i ^ 1], mac, ip, 10, 7), 0);
	}
	e[0].s.iters = 40;
	sb[0].iters = 30;
	for (long k = 0; k < 2000000; k++) {
		int ev = 0;

		ev += rk_sf_step(&e[0].s, 4096) + rk_sf_step(&sb[0], 4096);
		ev += rk_sf_step(&e[1].s, 0) + rk_sf_step(&sb[1], 0);
		assert_true(e[0].s.err[0] == 0 && sb[0].err[0] == 0);
		assert_true(e[1].s.err[0] == 0 && sb[1].err[0] == 0);
		if (rk_sf_all_done(&e[0].s) && rk_sf_all_done(&sb[0]) &&
		    e[1].s.t.msgs == e[0].s.t.msgs_op[0] && sb[1].t.msgs == sb[0].t.msgs_op[2])
			break;
		if (ev > 0)
			continue;
		idle_to_next_event();
	}
	assert_true(rk_sf_all_done(&e[0].s) && rk_sf_all_done(&sb[0]));
	assert_int_equal(e[0].s.t.msgs, 4 * 40);
	assert_int_equal(sb[0].t.msgs, 6 * 30);
	assert_true(e[0].s.t.msgs_op[4] > 0 && sb[0].t.msgs_op[4] > 0);
	assert_int_equal(e[1].s.t.msgs, e[0].s.t.msgs_op[0]);
	assert_int_equal(sb[1].t.msgs, sb[0].t.msgs_op[2]);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(e[i].s.t.data_err + e[i].s.t.seq_err + e[i].s.t.wc_err, 0);
		assert_int_equal(sb[i].t.data_err + sb[i].t.seq_err + sb[i].t.wc_err, 0);
	}
	for (int i = 0; i < 2; i++) {
		rk_sf_destroy(&sb[i]);
		free(lb[i]);
	}
	close_pair();
}

/* A READ area changed at the responder: the client finds it. */
static void
test_read_data_checked(void **state)
{
	struct rk_gen_hello cfg = cfg_of(4, RK_GEN_OP_READ, 64, 64, 2);
	struct rk_sim_impair clean[2] = { { 0 }, { 0 } };
	struct rk_sf_layout l;

	(void)state;
	open_pair(&cfg, clean, 10, 1, 1);
	rk_sf_layout(&cfg, true, &l);
	e[1].s.q[2].buf[l.read_off + 10] ^= 0x40;      /* slot 0 of QP 2 */
	run_pair();
	assert_int_equal(e[0].s.t.data_err, 5);        /* messages 0, 2, 4, 6, 8 of QP 2 */
	assert_int_equal(e[0].s.q[2].bad, 5);
	assert_int_equal(e[0].s.q[1].bad, 0);
	close_pair();
}

/* A responder that lags: WRITE:1,READ:1 at depth 8 has 6 WRITE slots and 7
 * receives, so the 7th WRITE lands on the 1st before it is checked: counted
 * as overwritten, not as wrong; the other six check clean. */
static void
test_overwritten_counted(void **state)
{
	struct rk_gen_hello cfg = cfg_of(1, RK_GEN_OP_WRITE | RK_GEN_OP_READ, 64, 64, 8);
	struct rk_sim_impair clean[2] = { { 0 }, { 0 } };
	struct rk_sf_layout l;
	long k;

	(void)state;
	cfg.weight[0] = 1;                             /* W R W R ... */
	rk_sf_layout(&cfg, true, &l);
	assert_int_equal(l.write_slots, 6);
	assert_int_equal(l.recv_slots, 7);
	open_pair(&cfg, clean, 14, 1, 1);
	/* the responder's engine takes every frame, its checks wait */
	for (k = 0; k < 1000000 && !rk_sf_all_done(&e[0].s); k++) {
		int a = rk_sf_step(&e[0].s, 4096), b = rk_progress(e[1].ctx);

		assert_true(a >= 0 && b >= 0);
		if (a > 0 || b > 0)
			continue;
		idle_to_next_event();
	}
	assert_true(rk_sf_all_done(&e[0].s));
	run_pair();
	assert_int_equal(e[1].s.t.msgs, 7);
	assert_int_equal(e[1].s.t.overwritten, 1);
	assert_int_equal(e[1].s.t.data_err + e[1].s.t.seq_err, 0);
	assert_int_equal(e[0].s.t.data_err + e[0].s.t.seq_err, 0);
	close_pair();
}

/* A client that sends zeros: the responder finds every WRITE and SEND wrong. */
static void
test_write_send_data_checked(void **state)
{
	struct rk_gen_hello cfg = cfg_of(8, RK_GEN_OP_WRITE | RK_GEN_OP_SEND, 8, 300, 4);
	struct rk_sim_impair clean[2] = { { 0 }, { 0 } };

	(void)state;
	open_pair(&cfg, clean, 20, 0, 1);
	run_pair();
	assert_int_equal(e[1].s.t.msgs, 160);
	assert_int_equal(e[1].s.t.data_err, 160);
	assert_int_equal(e[1].s.t.seq_err, 0);
	close_pair();
}

static void
test_pattern_and_mix(void **state)
{
	struct rk_gen_hello cfg = cfg_of(16, 7, 100, 200, 4);
	uint8_t a[301], b[301];
	uint32_t count[3] = { 0 };
	struct rk_sf_layout l;

	(void)state;
	rk_sf_pattern(a, sizeof(a), 3, 77);
	assert_true(rk_sf_pattern_ok(a, sizeof(a), 3, 77));
	assert_false(rk_sf_pattern_ok(a, sizeof(a), 3, 78));
	assert_false(rk_sf_pattern_ok(a, sizeof(a), 4, 77));
	memcpy(b, a, sizeof(b));
	b[300] ^= 1;                                   /* the tail byte is checked too */
	assert_false(rk_sf_pattern_ok(b, sizeof(b), 3, 77));
	for (uint64_t m = 0; m < 400; m++) {
		uint32_t s = rk_sf_size(&cfg, 5, m);
		uint8_t op = rk_sf_op(&cfg, 5, m);

		assert_true(s >= 100 && s <= 200);
		assert_int_equal(s, rk_sf_size(&cfg, 5, m));
		count[op == RK_GEN_OP_WRITE ? 0 : op == RK_GEN_OP_READ ? 1 : 2]++;
	}
	/* weights 2:1:1 */
	assert_int_equal(count[0], 200);
	assert_int_equal(count[1], 100);
	assert_int_equal(count[2], 100);
	/* the responder's areas follow each other inside its region */
	rk_sf_layout(&cfg, true, &l);
	assert_true(l.write_off + (uint64_t)l.write_slots * 200 <= l.read_off);
	assert_true(l.read_off + (uint64_t)l.read_slots * 200 <= l.recv_off);
	assert_true(l.recv_off + (uint64_t)l.send_slots * 200 <= l.len);
	/* W W R S: 3 receives among 4 messages and a quarter window more; at most
	 * 2 WRITEs among 4 messages, 2 SENDs among 5 receives (W W S) */
	assert_int_equal(l.recv_slots, 3 + 1 + 1);
	assert_int_equal(l.write_slots, 2 + 2);
	assert_int_equal(l.send_slots, 2);
	rk_sf_layout(&cfg, false, &l);
	assert_int_equal(l.land_slots, 1);             /* one READ among 4 messages */
	assert_int_equal(l.len, 200);
}

/* The slots counted in closed form agree with counting message by message. */
static void
test_slot_counts(void **state)
{
	static const uint8_t mixes[][RK_GEN_HELLO_NOPS] = {
		{ 1, 1, 1, 0, 0 }, { 3, 1, 0, 0, 0 }, { 2, 0, 1, 1, 1 }, { 0, 1, 2, 0, 3 },
		{ 5, 2, 3, 1, 0 },
	};

	(void)state;
	for (size_t x = 0; x < sizeof(mixes) / sizeof(mixes[0]); x++) {
		struct rk_gen_hello cfg = cfg_of(8, 0, 64, 64, 7);
		struct rk_sf_layout rl, cl;

		memcpy(cfg.weight, mixes[x], sizeof(cfg.weight));
		for (int b = 0; b < RK_GEN_HELLO_NOPS; b++)
			cfg.ops |= cfg.weight[b] ? (uint8_t)(1u << b) : 0;
		rk_sf_layout(&cfg, true, &rl);
		rk_sf_layout(&cfg, false, &cl);
		for (uint32_t i = 0; i < 8; i++) {
			uint64_t wr = 0, land = 0, recv = 0, send = 0, win_w = 0, win_l = 0;

			for (uint64_t m = 0; m < 300; m++) {
				uint8_t op = rk_sf_op(&cfg, i, m);

				assert_int_equal(rk_sf_ord(&cfg, i, m, RK_GEN_OP_WRITE), wr);
				assert_int_equal(rk_sf_ord(&cfg, i, m, RK_GEN_OP_READ | RK_GEN_OP_ATOMIC |
							   RK_GEN_OP_CMP_SWAP), land);
				if (op == RK_GEN_OP_WRITE)
					assert_int_equal(rk_sf_nth_write(&cfg, i, wr++), m);
				if (op == RK_GEN_OP_READ || op == RK_GEN_OP_ATOMIC ||
				    op == RK_GEN_OP_CMP_SWAP)
					land++;
				if (op == RK_GEN_OP_WRITE || op == RK_GEN_OP_SEND)
					assert_int_equal(rk_sf_recv_send(&cfg, i, recv++),
							 op == RK_GEN_OP_SEND ? (int64_t)send++ : -1);
				/* the slots cover every window of depth messages */
				if (m >= cfg.depth) {
					win_w = wr - rk_sf_ord(&cfg, i, m + 1 - cfg.depth,
								  RK_GEN_OP_WRITE);
					win_l = land - rk_sf_ord(&cfg, i, m + 1 - cfg.depth,
								    RK_GEN_OP_READ |
								    RK_GEN_OP_ATOMIC |
								    RK_GEN_OP_CMP_SWAP);
					assert_true(win_w + 2 <= rl.write_slots || !cfg.weight[0]);
					assert_true(win_l <= cl.land_slots);
				}
			}
		}
	}
}

/*
 * A client of a foreign responder (rk_sf_foreign(), --perftest): READs at
 * offset 0 of bytes it never wrote, checked against each QP's first READ;
 * FETCH_ADDs on a word starting anywhere, each one the previous plus one.
 * A byte changed, or a word moved, half-way at the responder of one QP
 * is found on that QP alone.
 */
static void
foreign_run(uint8_t op, uint32_t size, uint32_t changed_qp)
{
	struct rk_gen_hello cfg = cfg_of(16, op, size, size, 4);
	struct rk_sim_impair clean[2] = { { 0 }, { 0 } };

	cfg.weight[op == RK_GEN_OP_READ ? 1 : 3] = 1;
	foreign = true;
	/* the responder's own region per QP (verify), bytes at offset 0 set below */
	open_pair(&cfg, clean, 40, 1, 1);
	foreign = false;
	assert_true(e[0].s.foreign);
	srand(7);
	for (uint32_t i = 0; i < 16; i++)
		for (uint32_t b = 0; b < size; b++)
			e[1].s.q[i].buf[b] = (uint8_t)rand();
	if (changed_qp < 16) {
		run_pair_until(16 * 20);
		e[1].s.q[changed_qp].buf[op == RK_GEN_OP_READ ? size - 1 : 0] ^= 1;
	}
	run_pair();
	assert_int_equal(e[0].s.t.msgs, 16 * 40);
	assert_int_equal(e[0].s.t.seq_err + e[0].s.t.wc_err, 0);
	for (uint32_t i = 0; i < 16; i++)
		if (i == changed_qp)
			assert_true(e[0].s.q[i].bad > 0 && e[0].s.q[i].bad < 40);
		else
			assert_int_equal(e[0].s.q[i].bad, 0);
	if (changed_qp >= 16)
		assert_int_equal(e[0].s.t.data_err, 0);
	if (op == RK_GEN_OP_ATOMIC && changed_qp >= 16)
		for (uint32_t i = 0; i < 16; i++) {
			uint64_t w;

			memcpy(&w, e[1].s.q[i].buf, 8);
			assert_int_equal(w, e[0].s.q[i].first + 40);
		}
	close_pair();
}

static void
test_foreign_read(void **state)
{
	(void)state;
	foreign_run(RK_GEN_OP_READ, 4096, UINT32_MAX);
	foreign_run(RK_GEN_OP_READ, 4096, 5);
}

static void
test_foreign_atomic(void **state)
{
	(void)state;
	foreign_run(RK_GEN_OP_ATOMIC, 8, UINT32_MAX);
	foreign_run(RK_GEN_OP_ATOMIC, 8, 11);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pattern_and_mix),
		cmocka_unit_test(test_slot_counts),
		cmocka_unit_test(test_overwritten_counted),
		cmocka_unit_test(test_mix_256),
		cmocka_unit_test(test_addrs),
		cmocka_unit_test(test_latency),
		cmocka_unit_test(test_latency_exact),
		cmocka_unit_test(test_atomics),
		cmocka_unit_test(test_cmp_swap),
		cmocka_unit_test(test_cmp_swap_checked),
		cmocka_unit_test(test_two_sets_one_context),
		cmocka_unit_test(test_lossy_link),
		cmocka_unit_test(test_read_data_checked),
		cmocka_unit_test(test_write_send_data_checked),
		cmocka_unit_test(test_foreign_read),
		cmocka_unit_test(test_foreign_atomic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
