/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The impairment stage (lib/impair): each impairment, rule matching, the
 * counters per rule, determinism, lib/io's TX drop sequence, the queue and
 * the rk_io_ops wrapper.
 */
#include "rk_test.h"

#include <errno.h>
#include <stdbool.h>

#include "rk_impair.h"

#define N 100000

/* A RoCEv2 frame (IPv4 or IPv6, UDP 4791, BTH) of @p len bytes in @p f. */
static uint32_t
roce_frame(uint8_t *f, uint32_t len, bool v6, uint8_t opcode, uint32_t qpn, uint32_t psn,
	   uint8_t ecn)
{
	uint32_t ip = 14, udp = v6 ? ip + 40 : ip + 20, bth = udp + 8;

	memset(f, 0, len);
	f[12] = v6 ? 0x86 : 0x08;
	f[13] = v6 ? 0xdd : 0x00;
	if (v6) {
		f[ip] = 0x60 | 0;
		f[ip + 1] = (uint8_t)(ecn << 4);
		f[ip + 6] = 17;
	} else {
		uint32_t sum = 0;

		f[ip] = 0x45;
		f[ip + 1] = ecn;
		f[ip + 2] = (uint8_t)((len - ip) >> 8);
		f[ip + 3] = (uint8_t)(len - ip);
		f[ip + 8] = 64;
		f[ip + 9] = 17;
		f[ip + 12] = 198, f[ip + 13] = 18, f[ip + 15] = 1;
		f[ip + 16] = 198, f[ip + 17] = 18, f[ip + 19] = 2;
		for (int i = 0; i < 20; i += 2)
			sum += (uint32_t)(f[ip + i] << 8 | f[ip + i + 1]);
		sum = (sum & 0xffff) + (sum >> 16);
		sum = (sum & 0xffff) + (sum >> 16);
		f[ip + 10] = (uint8_t)(~sum >> 8);
		f[ip + 11] = (uint8_t)~sum;
	}
	f[udp + 2] = 4791 >> 8;
	f[udp + 3] = 4791 & 0xff;
	f[bth] = opcode;
	f[bth + 5] = (uint8_t)(qpn >> 16), f[bth + 6] = (uint8_t)(qpn >> 8), f[bth + 7] = (uint8_t)qpn;
	f[bth + 9] = (uint8_t)(psn >> 16), f[bth + 10] = (uint8_t)(psn >> 8), f[bth + 11] = (uint8_t)psn;
	return len;
}

/* An IPv4 TCP segment's frame (no BTH). */
static uint32_t
tcp_frame(uint8_t *f, uint32_t len)
{
	memset(f, 0, len);
	f[12] = 0x08;
	f[14] = 0x45;
	f[14 + 9] = 6;
	return len;
}

static bool
ipv4_sum_ok(const uint8_t *f)
{
	uint32_t sum = 0;

	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)(f[14 + i] << 8 | f[14 + i + 1]);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

static uint8_t fr[256];

/* Offer @p n copies of fr; the number of frames that passed (copies counted). */
static uint64_t
offer(struct rk_impair *st, uint32_t n, uint32_t len)
{
	uint64_t out = 0;

	for (uint32_t i = 0; i < n; i++) {
		struct rk_impair_verdict v;

		rk_impair_decide(st, fr, len, &v);
		for (unsigned int k = 0; k < v.copies; k++) {
			struct rk_impair_copy c;

			rk_impair_next_copy(st, &v, &c);
		}
		out += v.copies;
	}
	return out;
}

static void
test_no_rule_passes(void **state)
{
	struct rk_impair *st = rk_impair_create(NULL, 0);
	struct rk_impair_verdict v;

	(void)state;
	assert_non_null(st);
	rk_impair_decide(st, fr, 100, &v);
	assert_int_equal(v.rule, -1);
	assert_int_equal(v.copies, 1);
	assert_null(rk_impair_stats(st, 0));
	rk_impair_destroy(st);
	/* A probability out of range is refused. */
	{
		struct rk_impair_rule r = { .loss = 1.5 };

		errno = 0;
		assert_null(rk_impair_create(&r, 1));
		assert_int_equal(errno, EINVAL);
	}
}

static void
test_loss_rate_and_seed(void **state)
{
	struct rk_impair_rule r = { .loss = 0.1, .seed = 42 };
	struct rk_impair *a = rk_impair_create(&r, 1), *b = rk_impair_create(&r, 1);
	uint64_t pa;

	(void)state;
	pa = offer(a, N, 100);
	assert_true(pa > N * 0.89 && pa < N * 0.91);
	assert_int_equal(rk_impair_stats(a, 0)->lost, N - pa);
	assert_int_equal(rk_impair_stats(a, 0)->matched, N);
	/* Same seed: the same decisions, frame by frame. */
	rk_impair_destroy(a);
	a = rk_impair_create(&r, 1);
	for (int i = 0; i < 10000; i++) {
		struct rk_impair_verdict va, vb;

		rk_impair_decide(a, fr, 100, &va);
		rk_impair_decide(b, fr, 100, &vb);
		assert_int_equal(va.copies, vb.copies);
	}
	rk_impair_destroy(a);
	rk_impair_destroy(b);
	/* Another seed: another sequence. */
	r.seed = 43;
	a = rk_impair_create(&r, 1);
	r.seed = 42;
	b = rk_impair_create(&r, 1);
	{
		int differ = 0;

		for (int i = 0; i < 1000; i++) {
			struct rk_impair_verdict va, vb;

			rk_impair_decide(a, fr, 100, &va);
			rk_impair_decide(b, fr, 100, &vb);
			differ += va.copies != vb.copies;
		}
		assert_true(differ > 0);
	}
	rk_impair_destroy(a);
	rk_impair_destroy(b);
}

static void
test_burst(void **state)
{
	struct rk_impair_rule r = { .loss = 0.01, .burst = 1.0, .burst_len = 5, .seed = 3 };
	struct rk_impair *st = rk_impair_create(&r, 1);
	const struct rk_impair_rule_stats *s;
	int run = 0, runs = 0;

	(void)state;
	/* Every loss opens a burst: losses come in runs of 5 (or longer, when joined). */
	for (int i = 0; i < N; i++) {
		struct rk_impair_verdict v;

		rk_impair_decide(st, fr, 100, &v);
		if (v.copies == 0) {
			if (run == 0)
				assert_int_equal(v.drop, RK_IMPAIR_DROP_LOSS);
			else if (run < 5)
				assert_int_equal(v.drop, RK_IMPAIR_DROP_BURST);
			run++;
		} else if (run > 0) {
			assert_true(run % 5 == 0);
			runs++;
			run = 0;
		}
	}
	s = rk_impair_stats(st, 0);
	assert_true(runs > 100);
	/* 4 more per loss that opened a burst; the last one may be cut short. */
	assert_true(s->burst_drops <= (s->lost - s->burst_drops) * 4 &&
		    s->burst_drops + 4 >= (s->lost - s->burst_drops) * 4);
	rk_impair_destroy(st);
}

static void
test_drop_every(void **state)
{
	struct rk_impair_rule r = { .drop_every = 7 };
	struct rk_impair *st = rk_impair_create(&r, 1);

	(void)state;
	for (int i = 1; i <= 70; i++) {
		struct rk_impair_verdict v;

		rk_impair_decide(st, fr, 100, &v);
		assert_int_equal(v.copies, i % 7 == 0 ? 0 : 1);
		if (i % 7 == 0)
			assert_int_equal(v.drop, RK_IMPAIR_DROP_PERIODIC);
	}
	assert_int_equal(rk_impair_stats(st, 0)->periodic_drops, 10);
	assert_int_equal(rk_impair_stats(st, 0)->lost, 10);
	rk_impair_destroy(st);
}

static void
test_mtu(void **state)
{
	struct rk_impair_rule r = { .mtu = 1000 };
	struct rk_impair *st = rk_impair_create(&r, 1);
	struct rk_impair_verdict v;

	(void)state;
	rk_impair_decide(st, fr, 14 + 1000, &v);
	assert_int_equal(v.copies, 1);
	rk_impair_decide(st, fr, 14 + 1001, &v);
	assert_int_equal(v.copies, 0);
	assert_int_equal(v.drop, RK_IMPAIR_DROP_MTU);
	assert_int_equal(rk_impair_stats(st, 0)->mtu_drops, 1);
	rk_impair_destroy(st);
}

static void
test_dup(void **state)
{
	struct rk_impair_rule r = { .dup = 0.2, .seed = 9 };
	struct rk_impair *st = rk_impair_create(&r, 1);
	uint64_t out;

	(void)state;
	out = offer(st, N, 100);
	assert_int_equal(out, N + rk_impair_stats(st, 0)->dup);
	assert_true(rk_impair_stats(st, 0)->dup > N * 0.19 && rk_impair_stats(st, 0)->dup < N * 0.21);
	rk_impair_destroy(st);
}

static void
test_delay_jitter_reorder(void **state)
{
	struct rk_impair_rule r = { .delay_ns = 1000, .jitter_ns = 50, .reorder = 0.1,
				    .reorder_ns = 100000, .seed = 5 };
	struct rk_impair *st = rk_impair_create(&r, 1);
	uint64_t held = 0, lo = UINT64_MAX, hi = 0;

	(void)state;
	for (int i = 0; i < N; i++) {
		struct rk_impair_verdict v;
		struct rk_impair_copy c;
		uint64_t d;

		rk_impair_decide(st, fr, 100, &v);
		rk_impair_next_copy(st, &v, &c);
		d = c.delay_ns - (c.reordered ? 100000 : 0);
		assert_true(d >= 1000 && d <= 1050);
		lo = d < lo ? d : lo;
		hi = d > hi ? d : hi;
		held += c.reordered;
	}
	assert_int_equal(lo, 1000);
	assert_int_equal(hi, 1050);
	assert_int_equal(held, rk_impair_stats(st, 0)->reordered);
	assert_true(held > N * 0.09 && held < N * 0.11);
	rk_impair_destroy(st);
}

static void
test_corrupt(void **state)
{
	struct rk_impair_rule r = { .corrupt = 1.0, .seed = 11 };
	struct rk_impair *st = rk_impair_create(&r, 1);
	uint8_t f[120];

	(void)state;
	for (int i = 0; i < 1000; i++) {
		struct rk_impair_verdict v;
		struct rk_impair_copy c;
		int bits = 0;

		roce_frame(f, sizeof(f), false, 4, 17, 1, 0);
		memcpy(fr, f, sizeof(f));
		rk_impair_decide(st, f, sizeof(f), &v);
		rk_impair_next_copy(st, &v, &c);
		assert_true(c.corrupt);
		rk_impair_apply(st, &v, &c, f, sizeof(f));
		/* One bit flipped, never in the Ethernet header. */
		assert_memory_equal(f, fr, 14);
		for (size_t k = 14; k < sizeof(f); k++)
			bits += __builtin_popcount(f[k] ^ fr[k]);
		assert_int_equal(bits, 1);
	}
	assert_int_equal(rk_impair_stats(st, 0)->corrupted, 1000);
	rk_impair_destroy(st);
}

static void
test_ecn_ce(void **state)
{
	struct rk_impair_rule r = { .ecn_ce = 1.0 };
	struct rk_impair *st = rk_impair_create(&r, 1);
	struct rk_impair_verdict v;
	struct rk_impair_copy c;
	uint8_t f[100];

	(void)state;
	/* IPv4 ECT(0) and ECT(1): CE, and the header checksum still holds. */
	for (uint8_t ect = 1; ect <= 2; ect++) {
		roce_frame(f, sizeof(f), false, 4, 17, 1, ect);
		assert_true(ipv4_sum_ok(f));
		rk_impair_decide(st, f, sizeof(f), &v);
		rk_impair_next_copy(st, &v, &c);
		rk_impair_apply(st, &v, &c, f, sizeof(f));
		assert_int_equal(f[15] & 3, 3);
		assert_true(ipv4_sum_ok(f));
	}
	/* Not-ECT: untouched (RFC 3168 5). */
	roce_frame(f, sizeof(f), false, 4, 17, 1, 0);
	memcpy(fr, f, sizeof(f));
	rk_impair_decide(st, f, sizeof(f), &v);
	rk_impair_next_copy(st, &v, &c);
	rk_impair_apply(st, &v, &c, f, sizeof(f));
	assert_memory_equal(f, fr, sizeof(f));
	/* IPv6 ECT(0). */
	roce_frame(f, sizeof(f), true, 4, 17, 1, 2);
	rk_impair_decide(st, f, sizeof(f), &v);
	rk_impair_next_copy(st, &v, &c);
	rk_impair_apply(st, &v, &c, f, sizeof(f));
	assert_int_equal((f[15] >> 4) & 3, 3);
	assert_int_equal(rk_impair_stats(st, 0)->ce_marked, 3);
	rk_impair_destroy(st);
	/* A share of frames. */
	r.ecn_ce = 0.25;
	r.seed = 8;
	st = rk_impair_create(&r, 1);
	for (int i = 0; i < 10000; i++) {
		roce_frame(f, sizeof(f), false, 4, 17, 1, 2);
		rk_impair_decide(st, f, sizeof(f), &v);
		rk_impair_next_copy(st, &v, &c);
		rk_impair_apply(st, &v, &c, f, sizeof(f));
	}
	assert_true(rk_impair_stats(st, 0)->ce_marked > 2300 &&
		    rk_impair_stats(st, 0)->ce_marked < 2700);
	rk_impair_destroy(st);
}

static void
test_match(void **state)
{
	uint8_t f[100];
	struct rk_impair_match all = { 0 };
	struct rk_impair_match qp = { .by_qp = true, .qp_min = 0x10, .qp_max = 0x1f };
	struct rk_impair_match op = { .by_opcode = true, .opcode_min = 0x0c, .opcode_max = 0x10 };
	struct rk_impair_match psn = { .by_psn = true, .psn_min = 0xfffff0, .psn_max = 0x10 };
	struct rk_impair_match tcp = { .ip_proto = 6 };

	(void)state;
	roce_frame(f, sizeof(f), false, 0x0c, 0x12, 5, 0);
	assert_true(rk_impair_match_frame(&all, f, sizeof(f)));
	assert_true(rk_impair_match_frame(&qp, f, sizeof(f)));
	assert_true(rk_impair_match_frame(&op, f, sizeof(f)));
	assert_true(rk_impair_match_frame(&psn, f, sizeof(f)));
	assert_false(rk_impair_match_frame(&tcp, f, sizeof(f)));
	roce_frame(f, sizeof(f), true, 0x11, 0x20, 0x11, 0);
	assert_false(rk_impair_match_frame(&qp, f, sizeof(f)));
	assert_false(rk_impair_match_frame(&op, f, sizeof(f)));
	assert_false(rk_impair_match_frame(&psn, f, sizeof(f)));
	roce_frame(f, sizeof(f), true, 0x10, 0x1f, 0xfffff0, 0);
	assert_true(rk_impair_match_frame(&qp, f, sizeof(f)));
	assert_true(rk_impair_match_frame(&op, f, sizeof(f)));
	assert_true(rk_impair_match_frame(&psn, f, sizeof(f)));
	/* Several conditions: all must hold. */
	{
		struct rk_impair_match both = qp;

		both.by_psn = true, both.psn_min = 0, both.psn_max = 100;
		assert_false(rk_impair_match_frame(&both, f, sizeof(f)));
	}
	/* A 802.1Q tag is looked through. */
	{
		uint8_t t[104];

		roce_frame(f, sizeof(f), false, 0x0c, 0x12, 5, 0);
		memcpy(t, f, 12);
		t[12] = 0x81, t[13] = 0, t[14] = 0, t[15] = 5;
		memcpy(t + 16, f + 12, sizeof(f) - 12);
		assert_true(rk_impair_match_frame(&qp, t, sizeof(t)));
	}
	/* Not RoCE: no range holds; the protocol condition does. */
	tcp_frame(f, sizeof(f));
	assert_false(rk_impair_match_frame(&qp, f, sizeof(f)));
	assert_true(rk_impair_match_frame(&tcp, f, sizeof(f)));
	assert_true(rk_impair_match_frame(&all, f, sizeof(f)));
	/* Too short for a BTH. */
	roce_frame(f, sizeof(f), false, 0x0c, 0x12, 5, 0);
	assert_false(rk_impair_match_frame(&qp, f, 14 + 20 + 8 + 11));
}

static void
test_first_rule_wins_counters_per_rule(void **state)
{
	struct rk_impair_rule rules[] = {
		{ .match = { .by_qp = true, .qp_min = 1, .qp_max = 1 }, .drop_every = 2 },
		{ .match = { .by_opcode = true, .opcode_min = 0x10, .opcode_max = 0x10 },
		  .dup = 1.0 },
		{ .loss = 0 },
	};
	struct rk_impair *st = rk_impair_create(rules, 3);
	struct rk_impair_verdict v;
	uint8_t f[80];

	(void)state;
	for (int i = 0; i < 10; i++) {
		roce_frame(f, sizeof(f), false, 0x10, 1, (uint32_t)i, 0);     /* rule 0 */
		rk_impair_decide(st, f, sizeof(f), &v);
		assert_int_equal(v.rule, 0);
		roce_frame(f, sizeof(f), false, 0x10, 2, (uint32_t)i, 0);     /* rule 1 */
		rk_impair_decide(st, f, sizeof(f), &v);
		assert_int_equal(v.rule, 1);
		assert_int_equal(v.copies, 2);
		tcp_frame(f, sizeof(f));                                        /* rule 2 */
		rk_impair_decide(st, f, sizeof(f), &v);
		assert_int_equal(v.rule, 2);
		assert_int_equal(v.copies, 1);
	}
	assert_int_equal(rk_impair_rules(st), 3);
	assert_int_equal(rk_impair_stats(st, 0)->matched, 10);
	assert_int_equal(rk_impair_stats(st, 0)->periodic_drops, 5);
	assert_int_equal(rk_impair_stats(st, 1)->matched, 10);
	assert_int_equal(rk_impair_stats(st, 1)->dup, 10);
	assert_int_equal(rk_impair_stats(st, 1)->periodic_drops, 0);
	assert_int_equal(rk_impair_stats(st, 2)->matched, 10);
	assert_int_equal(rk_impair_stats(st, 2)->lost, 0);
	rk_impair_destroy(st);
}

/*
 * lib/io's TX drops (lib/io/rk_io_dpdk.c, drop_injected()) as they are:
 * a frame is dropped when the count of frames offered reaches a multiple
 * of --tx-drop-every, else when a splitmix64 draw from the --seed state
 * (0 taken as 1) falls under --tx-drop-rate. The stage with one rule must
 * drop the same frames.
 */
struct io_ref {
	uint32_t every;
	double rate;
	uint64_t count, rng;
};

static uint64_t
io_ref_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static bool
io_ref_drop(struct io_ref *r)
{
	if (r->every != 0 && ++r->count % r->every == 0)
		return true;
	return r->rate > 0 && (double)(io_ref_next(&r->rng) >> 11) * 0x1p-53 < r->rate;
}

static void
test_lib_io_tx_drop_sequence(void **state)
{
	static const struct {
		uint32_t every;
		double rate;
		uint64_t seed;
	} cases[] = {
		{ 10, 0, 1 }, { 0, 0.05, 1 }, { 0, 0.05, 0 }, { 0, 0.01, 12345 },
		{ 7, 0.02, 99 }, { 2, 0.5, 7 }, { 0, 0.5, 0xdeadbeef },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct io_ref ref = { .every = cases[i].every, .rate = cases[i].rate,
				      .rng = cases[i].seed != 0 ? cases[i].seed : 1 };
		/* What lib/io would set up from its configuration. */
		struct rk_impair_rule r = {
			.drop_every = cases[i].every, .loss = cases[i].rate,
			.rng = RK_IMPAIR_RNG_SPLITMIX64,
			.seed = cases[i].seed != 0 ? cases[i].seed : 1,
		};
		struct rk_impair *st = rk_impair_create(&r, 1);
		uint64_t drops = 0;

		for (int k = 0; k < N; k++) {
			struct rk_impair_verdict v;
			bool want = io_ref_drop(&ref);

			rk_impair_decide(st, fr, 100, &v);
			assert_int_equal(v.copies == 0, want);
			drops += want;
		}
		assert_int_equal(rk_impair_stats(st, 0)->lost, drops);
		assert_true(drops > 0);
		rk_impair_destroy(st);
	}
}

static void
test_queue(void **state)
{
	struct rk_impair_queue q = { 0 };
	uint8_t a[3] = { 1, 2, 3 }, b[1] = { 9 }, buf[8];
	uint8_t *copy;

	(void)state;
	assert_int_equal(rk_impair_queue_next_ns(&q), UINT64_MAX);
	assert_int_equal(rk_impair_queue_push(&q, 50, a, 3, &copy), 0);
	copy[0] = 7;    /* the stored copy is writable */
	assert_int_equal(rk_impair_queue_push(&q, 10, b, 1, NULL), 0);
	for (uint8_t i = 0; i < 5; i++)
		assert_int_equal(rk_impair_queue_push(&q, 30, &i, 1, NULL), 0);
	assert_int_equal(rk_impair_queue_next_ns(&q), 10);
	assert_int_equal(rk_impair_queue_pop(&q, 9, buf, sizeof(buf)), 0);
	assert_int_equal(rk_impair_queue_pop(&q, 10, buf, sizeof(buf)), 1);
	assert_int_equal(buf[0], 9);
	/* Equal times: the order they came in. */
	for (uint8_t i = 0; i < 5; i++) {
		assert_int_equal(rk_impair_queue_pop(&q, 30, buf, sizeof(buf)), 1);
		assert_int_equal(buf[0], i);
	}
	assert_int_equal(rk_impair_queue_pop(&q, 100, buf, 2), -ENOSPC);
	assert_int_equal(q.n, 0);
	assert_int_equal(rk_impair_queue_push(&q, 1, a, 3, &copy), 0);
	rk_impair_queue_clear(&q);
	assert_int_equal(rk_impair_queue_next_ns(&q), UINT64_MAX);
}

/* A loopback backend: what tx() takes, rx() returns; a settable clock. */
struct loop {
	struct rk_impair_queue q;
	uint64_t now, sent, flushes;
};

static int
loop_tx(void *io, const uint8_t *frame, uint32_t len)
{
	struct loop *l = io;

	l->sent++;
	return rk_impair_queue_push(&l->q, 0, frame, len, NULL);
}

static int
loop_rx(void *io, uint8_t *buf, uint32_t cap)
{
	return rk_impair_queue_pop(&((struct loop *)io)->q, UINT64_MAX - 1, buf, cap);
}

static uint64_t
loop_now(void *io)
{
	return ((struct loop *)io)->now;
}

static void
loop_flush(void *io)
{
	((struct loop *)io)->flushes++;
}

static const struct rk_io_ops loop_ops = {
	.name = "loop", .tx = loop_tx, .rx = loop_rx, .now_ns = loop_now, .flush = loop_flush,
};

static void
test_io_wrapper(void **state)
{
	struct loop l = { 0 };
	struct rk_impair_rule tx = { .drop_every = 2, .delay_ns = 100 };
	struct rk_impair_rule rx = { .dup = 1.0 };
	struct rk_impair_io_cfg cfg = { .inner = &loop_ops, .inner_io = &l, .tx_rules = &tx,
					.n_tx_rules = 1, .rx_rules = &rx, .n_rx_rules = 1 };
	struct rk_impair_io *io = rk_impair_io_create(&cfg);
	uint8_t buf[256];

	(void)state;
	assert_non_null(io);
	assert_string_equal(rk_impair_io_ops.name, "impair");
	for (uint8_t i = 0; i < 10; i++) {
		fr[20] = i;
		assert_int_equal(rk_impair_io_ops.tx(io, fr, 60), 0);
	}
	/* Every second frame lost; the rest held for 100 ns. */
	assert_int_equal(l.sent, 0);
	assert_int_equal(rk_impair_io_stats(io)->tx_held, 5);
	l.now = 99;
	rk_impair_io_ops.flush(io);
	assert_int_equal(l.sent, 0);
	l.now = 100;
	rk_impair_io_ops.flush(io);
	assert_int_equal(l.sent, 5);
	assert_int_equal(l.flushes, 2);
	/* RX duplicates each: 0, 0, 2, 2, ... */
	for (uint8_t i = 0; i < 10; i++) {
		assert_int_equal(rk_impair_io_ops.rx(io, buf, sizeof(buf)), 60);
		assert_int_equal(buf[20], (i / 2) * 2);
	}
	assert_int_equal(rk_impair_io_ops.rx(io, buf, sizeof(buf)), 0);
	assert_int_equal(rk_impair_stats(rk_impair_io_stage(io, false), 0)->periodic_drops, 5);
	assert_int_equal(rk_impair_stats(rk_impair_io_stage(io, true), 0)->dup, 5);
	assert_int_equal(rk_impair_io_ops.now_ns(io), 100);
	rk_impair_io_destroy(io);
	rk_impair_queue_clear(&l.q);
	/* No inner backend, or a bad rule: refused. */
	cfg.inner = NULL;
	assert_null(rk_impair_io_create(&cfg));
	cfg.inner = &loop_ops;
	rx.loss = -1;
	errno = 0;
	assert_null(rk_impair_io_create(&cfg));
	assert_int_equal(errno, EINVAL);
}

/* A loopback whose clock moves 50 ns on each rx(): a slow read of the port. */
static int
slow_rx(void *io, uint8_t *buf, uint32_t cap)
{
	((struct loop *)io)->now += 50;
	return loop_rx(io, buf, cap);
}

static const struct rk_io_ops slow_ops = {
	.name = "slow", .tx = loop_tx, .rx = slow_rx, .now_ns = loop_now,
};

/* A frame taken on RX is held from when it was taken, however long the call runs. */
static void
test_io_wrapper_rx_held_from_taken(void **state)
{
	struct loop l = { 0 };
	struct rk_impair_rule rx = { .delay_ns = 100 };
	struct rk_impair_io_cfg cfg = { .inner = &slow_ops, .inner_io = &l, .rx_rules = &rx,
					.n_rx_rules = 1 };
	struct rk_impair_io *io = rk_impair_io_create(&cfg);
	uint8_t buf[256];

	(void)state;
	assert_non_null(io);
	for (uint8_t i = 0; i < 3; i++) {
		fr[20] = i;
		assert_int_equal(loop_tx(&l, fr, 60), 0);
	}
	/*
	 * Taken at 50, 100 and 150 ns: due at 150, 200 and 250. The first
	 * comes out of the call that took it, once its read reached 150.
	 */
	assert_int_equal(rk_impair_io_ops.rx(io, buf, sizeof(buf)), 60);
	assert_int_equal(buf[20], 0);
	assert_int_equal(l.now, 150);
	assert_int_equal(rk_impair_io_stats(io)->rx_held, 2);
	/* at 150 nothing more is due; the next read moves the clock to 200 */
	assert_int_equal(rk_impair_io_ops.rx(io, buf, sizeof(buf)), 0);
	assert_int_equal(rk_impair_io_ops.rx(io, buf, sizeof(buf)), 60);
	assert_int_equal(buf[20], 1);
	assert_int_equal(rk_impair_io_ops.rx(io, buf, sizeof(buf)), 0);
	assert_int_equal(l.now, 250);
	assert_int_equal(rk_impair_io_ops.rx(io, buf, sizeof(buf)), 60);
	assert_int_equal(buf[20], 2);
	rk_impair_io_destroy(io);
	rk_impair_queue_clear(&l.q);
}

/*
 * A lending backend: the loopback (its tx() counts copies) with one
 * buffer lent by tx_frame() until committed; tx_commit() and
 * tx_commit_sg() count what they take (the sg payload by its address:
 * never copied on the way).
 */
struct lend {
	struct loop base;       /* first: loop_ops' functions take a lend */
	uint8_t buf[4352];
	bool lent;
	uint64_t lends, commits, sg_commits;
	const uint8_t *last_payload;
};

static uint8_t *
lend_tx_frame(void *io)
{
	struct lend *l = io;

	l->lends += !l->lent;
	l->lent = true;
	return l->buf;
}

static int
lend_tx_commit(void *io, uint8_t *frame, uint32_t len)
{
	struct lend *l = io;

	assert_ptr_equal(frame, l->buf);
	assert_true(l->lent && len > 0);
	l->lent = false;
	l->commits++;
	return 0;
}

static int
lend_tx_commit_sg(void *io, uint8_t *frame, uint32_t hdr_len, const uint8_t *payload,
		  uint32_t plen, const uint8_t *trailer, uint32_t tlen)
{
	struct lend *l = io;

	(void)trailer;
	(void)tlen;
	assert_int_equal(lend_tx_commit(io, frame, hdr_len + plen), 0);
	l->sg_commits++;
	l->last_payload = payload;
	return 0;
}

static const struct rk_io_ops lend_ops = {
	.name = "lend", .tx = loop_tx, .rx = loop_rx, .now_ns = loop_now,
	.tx_frame = lend_tx_frame, .tx_commit = lend_tx_commit,
	.tx_commit_sg = lend_tx_commit_sg,
};

static void
test_io_wrapper_lent_frames(void **state)
{
	static uint8_t payload[2048];
	static const uint8_t icrc[4];
	struct lend l = { 0 };
	struct rk_impair_rule tx = { .drop_every = 3 };
	struct rk_impair_io_cfg cfg = { .inner = &lend_ops, .inner_io = &l, .tx_rules = &tx,
					.n_tx_rules = 1 };
	struct rk_impair_io *io = rk_impair_io_create(&cfg);

	(void)state;
	assert_non_null(io);
	/* Every third frame dropped: never committed, its buffer lent again. */
	for (int i = 0; i < 9; i++) {
		uint8_t *f = rk_impair_io_ops.tx_frame(io);

		assert_ptr_equal(f, l.buf);
		memcpy(f, fr, 60);
		assert_int_equal(rk_impair_io_ops.tx_commit(io, f, 60), 0);
		assert_int_equal(l.lent, (i + 1) % 3 == 0);
	}
	assert_int_equal(l.commits, 6);
	/* 9 frames on 7 lends: a dropped frame's buffer carries the next. */
	assert_int_equal(l.lends, 7);
	/* The payload by reference, the same drops. */
	for (int i = 0; i < 9; i++) {
		uint8_t *f = rk_impair_io_ops.tx_frame(io);

		memcpy(f, fr, 58);
		assert_int_equal(rk_impair_io_ops.tx_commit_sg(io, f, 58, payload,
							       sizeof(payload), icrc, 4), 0);
	}
	assert_int_equal(l.sg_commits, 6);
	assert_ptr_equal(l.last_payload, payload);
	assert_int_equal(l.base.sent, 0);
	assert_int_equal(rk_impair_stats(rk_impair_io_stage(io, false), 0)->periodic_drops, 6);
	assert_int_equal(rk_impair_stats(rk_impair_io_stage(io, false), 0)->matched, 18);
	rk_impair_io_destroy(io);
	/* A backend that lends nothing: tx_frame() says so, tx() copies. */
	cfg.inner = &loop_ops;
	{
		struct loop lp = { 0 };

		cfg.inner_io = &lp;
		io = rk_impair_io_create(&cfg);
		assert_non_null(io);
		assert_null(rk_impair_io_ops.tx_frame(io));
		rk_impair_io_destroy(io);
	}
}


/* Rule text: every key, ranges, refusals with a reason, and a round trip. */
static void
test_rule_parse(void **state)
{
	struct rk_impair_rule r, back;
	char err[128], text[512];

	(void)state;
	assert_int_equal(rk_impair_rule_parse("qp=0x11-0x12 opcode=4 psn=100-199 drop-every=10 "
					      "loss=0.25 dup=0.5 corrupt=0.125 ecn-ce=1 delay=1000 "
					      "jitter=20 reorder=0.5:3000 mtu=1024 seed=7",
					      &r, err, sizeof(err)), 0);
	assert_true(r.match.by_qp);
	assert_int_equal(r.match.qp_min, 0x11);
	assert_int_equal(r.match.qp_max, 0x12);
	assert_true(r.match.by_opcode);
	assert_int_equal(r.match.opcode_min, 4);
	assert_int_equal(r.match.opcode_max, 4);
	assert_int_equal(r.match.psn_min, 100);
	assert_int_equal(r.match.psn_max, 199);
	assert_int_equal(r.match.ip_proto, 17);     /* implied by the BTH keys */
	assert_int_equal(r.drop_every, 10);
	assert_true(r.loss == 0.25 && r.dup == 0.5 && r.corrupt == 0.125 && r.ecn_ce == 1.0);
	assert_int_equal(r.delay_ns, 1000);
	assert_int_equal(r.jitter_ns, 20);
	assert_true(r.reorder == 0.5);
	assert_int_equal(r.reorder_ns, 3000);
	assert_int_equal(r.mtu, 1024);
	assert_int_equal(r.seed, 7);
	rk_impair_rule_format(&r, text, sizeof(text));
	assert_int_equal(rk_impair_rule_parse(text, &back, err, sizeof(err)), 0);
	assert_memory_equal(&back, &r, sizeof(r));

	/* Only a loss: any frame. */
	assert_int_equal(rk_impair_rule_parse("  loss=1\t", &r, err, sizeof(err)), 0);
	assert_false(r.match.by_qp);
	assert_int_equal(r.match.ip_proto, 0);

	static const char *const bad[] = {
		"", "   ", "qp", "=1", "qp=", "qp=0x1000000", "psn=5-1", "opcode=256",
		"loss=1.5", "loss=-0.1", "drop-every=0", "mtu=0", "reorder=0.5",
		"reorder=x:1", "color=red", "qp=1 nope=2", "qp=-1", "delay=1e3",
		/* no match, no action: it could not be written back (found by fuzz_impair_rule) */
		"delay=0", "seed=0 loss=0",
	};
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(rk_impair_rule_parse(bad[i], &r, err, sizeof(err)), -EINVAL);
		assert_true(err[0] != '\0');
	}
	assert_int_equal(rk_impair_rule_parse("color=red", &r, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "unknown key: \"color\"");

	/* count and forge: values, the RNR timer's default, round trips, refusals. */
	static const struct { const char *text; enum rk_impair_forge forge; uint8_t arg; } ok[] = {
		{ "psn=5 count=1 forge=nak-seq", RK_IMPAIR_FORGE_NAK_SEQ, 0 },
		{ "qp=3 forge=nak-inv", RK_IMPAIR_FORGE_NAK_INV, 0 },
		{ "qp=3 forge=nak-rae", RK_IMPAIR_FORGE_NAK_RAE, 0 },
		{ "qp=3 forge=nak-rop", RK_IMPAIR_FORGE_NAK_ROP, 0 },
		{ "qp=3 forge=rnr", RK_IMPAIR_FORGE_RNR, 14 },
		{ "qp=3 forge=rnr:31", RK_IMPAIR_FORGE_RNR, 31 },
		{ "qp=3 forge=cnp count=7", RK_IMPAIR_FORGE_CNP, 0 },
	};
	for (unsigned int i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(rk_impair_rule_parse(ok[i].text, &r, err, sizeof(err)), 0);
		assert_int_equal(r.forge, ok[i].forge);
		assert_int_equal(r.forge_arg, ok[i].arg);
		rk_impair_rule_format(&r, text, sizeof(text));
		assert_int_equal(rk_impair_rule_parse(text, &back, err, sizeof(err)), 0);
		assert_memory_equal(&back, &r, sizeof(r));
	}
	assert_int_equal(rk_impair_rule_parse("psn=5 count=1 forge=nak-seq", &r, err, sizeof(err)), 0);
	assert_int_equal(r.count, 1);
	static const char *const bad_forge[] = {
		"forge=nak", "forge=rnr:32", "forge=rnr:", "forge=rnrx", "forge=CNP", "count=0",
		"count=-1", "forge=",
	};
	for (unsigned int i = 0; i < sizeof(bad_forge) / sizeof(bad_forge[0]); i++)
		assert_int_equal(rk_impair_rule_parse(bad_forge[i], &r, err, sizeof(err)), -EINVAL);
}

/*
 * count=N: the rule takes N frames, then the next rule (or none) decides.
 * forge: a NAK or RNR rule takes the request away (the forwarder answers),
 * a CNP rule lets it pass; both are counted; an answer the forwarder could
 * not make is given back (rk_impair_unforge). One endpoint's stage refuses
 * forging rules.
 */
static void
test_count_and_forge(void **state)
{
	uint8_t f[100];
	struct rk_impair_rule rules[2];
	struct rk_impair_verdict v;
	struct rk_impair *st;
	char err[128];
	unsigned int dropped = 0;

	(void)state;
	assert_int_equal(rk_impair_rule_parse("psn=7 count=1 drop-every=1", &rules[0], err,
					      sizeof(err)), 0);
	assert_int_equal(rk_impair_rule_parse("psn=7 forge=rnr:3", &rules[1], err, sizeof(err)), 0);
	assert_non_null(st = rk_impair_create(rules, 2));
	roce_frame(f, sizeof(f), false, 0x0a, 0x12, 7, 0);
	/* First copy of PSN 7: dropped by rule 0; the resend: answered by rule 1, twice. */
	rk_impair_decide(st, f, sizeof(f), &v);
	assert_int_equal(v.rule, 0);
	assert_int_equal(v.copies, 0);
	assert_int_equal(v.forge, RK_IMPAIR_FORGE_NONE);
	for (int i = 0; i < 2; i++) {
		rk_impair_decide(st, f, sizeof(f), &v);
		assert_int_equal(v.rule, 1);
		assert_int_equal(v.copies, 0);
		assert_int_equal(v.drop, RK_IMPAIR_DROP_FORGED);
		assert_int_equal(v.forge, RK_IMPAIR_FORGE_RNR);
	}
	assert_int_equal(rk_impair_stats(st, 0)->matched, 1);
	assert_int_equal(rk_impair_stats(st, 1)->forged, 2);
	rk_impair_destroy(st);

	/* A CNP rule for 3 frames: they pass, each counted forged. */
	assert_int_equal(rk_impair_rule_parse("qp=0x12 forge=cnp count=3", &rules[0], err,
					      sizeof(err)), 0);
	assert_non_null(st = rk_impair_create(rules, 1));
	for (int i = 0; i < 5; i++) {
		rk_impair_decide(st, f, sizeof(f), &v);
		dropped += v.copies == 0;
		assert_int_equal(v.forge, i < 3 ? RK_IMPAIR_FORGE_CNP : RK_IMPAIR_FORGE_NONE);
		assert_int_equal(v.rule, i < 3 ? 0 : -1);
	}
	assert_int_equal(dropped, 0);
	assert_int_equal(rk_impair_stats(st, 0)->forged, 3);
	rk_impair_destroy(st);

	/* Unforged: a NAK rule of count 1 whose answer could not be made
	 * stays armed for the next request; a CNP rule's frame stays taken. */
	assert_int_equal(rk_impair_rule_parse("qp=0x12 count=1 forge=nak-seq", &rules[0], err,
					      sizeof(err)), 0);
	assert_non_null(st = rk_impair_create(rules, 1));
	rk_impair_decide(st, f, sizeof(f), &v);
	assert_int_equal(v.drop, RK_IMPAIR_DROP_FORGED);
	rk_impair_unforge(st, &v);
	assert_int_equal(rk_impair_stats(st, 0)->matched, 0);
	assert_int_equal(rk_impair_stats(st, 0)->forged, 0);
	assert_int_equal(rk_impair_stats(st, 0)->unforged, 1);
	rk_impair_decide(st, f, sizeof(f), &v);
	assert_int_equal(v.rule, 0);
	assert_int_equal(v.forge, RK_IMPAIR_FORGE_NAK_SEQ);
	rk_impair_decide(st, f, sizeof(f), &v);
	assert_int_equal(v.rule, -1);
	rk_impair_unforge(st, &v);              /* nothing forged: no effect */
	assert_int_equal(rk_impair_stats(st, 0)->matched, 1);
	assert_int_equal(rk_impair_stats(st, 0)->forged, 1);
	assert_int_equal(rk_impair_stats(st, 0)->unforged, 1);
	rk_impair_destroy(st);
	assert_int_equal(rk_impair_rule_parse("qp=0x12 count=1 forge=cnp", &rules[0], err,
					      sizeof(err)), 0);
	assert_non_null(st = rk_impair_create(rules, 1));
	rk_impair_decide(st, f, sizeof(f), &v);
	rk_impair_unforge(st, &v);
	assert_int_equal(rk_impair_stats(st, 0)->matched, 1);
	assert_int_equal(rk_impair_stats(st, 0)->forged, 0);
	assert_int_equal(rk_impair_stats(st, 0)->unforged, 1);
	rk_impair_decide(st, f, sizeof(f), &v);
	assert_int_equal(v.rule, -1);
	rk_impair_destroy(st);

	{
		struct rk_impair_io_cfg cfg = {
			.inner = &rk_impair_io_ops, .inner_io = NULL, .tx_rules = rules, .n_tx_rules = 1,
		};

		errno = 0;
		assert_null(rk_impair_io_create(&cfg));
		assert_int_equal(errno, EINVAL);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_rule_passes),
		cmocka_unit_test(test_loss_rate_and_seed),
		cmocka_unit_test(test_burst),
		cmocka_unit_test(test_drop_every),
		cmocka_unit_test(test_mtu),
		cmocka_unit_test(test_dup),
		cmocka_unit_test(test_delay_jitter_reorder),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_ecn_ce),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_first_rule_wins_counters_per_rule),
		cmocka_unit_test(test_lib_io_tx_drop_sequence),
		cmocka_unit_test(test_queue),
		cmocka_unit_test(test_io_wrapper),
		cmocka_unit_test(test_io_wrapper_rx_held_from_taken),
		cmocka_unit_test(test_io_wrapper_lent_frames),
		cmocka_unit_test(test_rule_parse),
		cmocka_unit_test(test_count_and_forge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
