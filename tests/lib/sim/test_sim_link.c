/* SPDX-License-Identifier: BSD-3-Clause */
/* The simulated link (lib/sim/rk_sim_link.c): each impairment, and determinism. */
#include "rk_test.h"

#include "rk_sim.h"

static uint8_t frame[100], buf[200];

static unsigned int
send_n(struct rk_sim_link *l, unsigned int count, uint64_t now)
{
	for (unsigned int i = 0; i < count; i++) {
		frame[20] = (uint8_t)i;
		frame[21] = (uint8_t)(i >> 8);
		assert_int_equal(rk_sim_link_send(l, 0, frame, sizeof(frame), now), 0);
	}
	return count;
}

static void
test_delay_and_order(void **state)
{
	struct rk_sim_link_cfg c = { .seed = 1, .dir = { { .delay_ns = 500 } } };
	struct rk_sim_link *l = rk_sim_link_create(&c);

	(void)state;
	send_n(l, 10, 1000);
	assert_int_equal(rk_sim_link_recv(l, 0, 1499, buf, sizeof(buf)), 0);
	assert_int_equal(rk_sim_link_next_ns(l, 0), 1500);
	for (unsigned int i = 0; i < 10; i++) {
		assert_int_equal(rk_sim_link_recv(l, 0, 1500, buf, sizeof(buf)), 100);
		assert_int_equal(buf[20], i);
	}
	assert_int_equal(rk_sim_link_next_ns(l, 0), UINT64_MAX);
	assert_int_equal(rk_sim_link_next_ns(l, 1), UINT64_MAX);
	rk_sim_link_destroy(l);
}

static void
test_rate(void **state)
{
	struct rk_sim_link_cfg c = { .seed = 1, .dir = { { .rate_bps = 800000000 } } };
	struct rk_sim_link *l = rk_sim_link_create(&c);

	(void)state;
	/* 100 bytes at 800 Mbit/s: 1 us each, back to back. */
	send_n(l, 3, 0);
	assert_int_equal(rk_sim_link_next_ns(l, 0), 1000);
	rk_sim_link_recv(l, 0, 1000, buf, sizeof(buf));
	assert_int_equal(rk_sim_link_next_ns(l, 0), 2000);
	rk_sim_link_destroy(l);
}

static unsigned int
drain(struct rk_sim_link *l, unsigned int *order, unsigned int max)
{
	unsigned int got = 0;
	int r;

	while ((r = rk_sim_link_recv(l, 0, UINT64_MAX - 1, buf, sizeof(buf))) > 0) {
		if (got < max)
			order[got] = buf[20] | (unsigned int)buf[21] << 8;
		got++;
	}
	return got;
}

static void
test_loss_dup_reorder_corrupt(void **state)
{
	static unsigned int order[20000];
	struct rk_sim_link_cfg c = { .seed = 7, .dir = { { .loss = 0.1 } } };
	struct rk_sim_link *l;
	const struct rk_sim_link_stats *st;
	unsigned int got, bad = 0, inversions = 0;

	(void)state;
	l = rk_sim_link_create(&c);
	send_n(l, 10000, 0);
	got = drain(l, order, 20000);
	st = rk_sim_link_stats(l, 0);
	assert_int_equal(got + st->lost, 10000);
	assert_true(st->lost > 900 && st->lost < 1100);
	rk_sim_link_destroy(l);

	c.dir[0] = (struct rk_sim_impair){ .dup = 0.05 };
	l = rk_sim_link_create(&c);
	send_n(l, 10000, 0);
	got = drain(l, order, 20000);
	st = rk_sim_link_stats(l, 0);
	assert_int_equal(got, 10000 + st->dup);
	assert_true(st->dup > 400 && st->dup < 600);
	rk_sim_link_destroy(l);

	c.dir[0] = (struct rk_sim_impair){ .reorder = 0.05, .reorder_ns = 100, .delay_ns = 10 };
	l = rk_sim_link_create(&c);
	for (unsigned int i = 0; i < 10000; i++) {
		frame[20] = (uint8_t)i;
		frame[21] = (uint8_t)(i >> 8);
		rk_sim_link_send(l, 0, frame, sizeof(frame), i * 10);
	}
	got = drain(l, order, 20000);
	assert_int_equal(got, 10000);
	for (unsigned int i = 1; i < got; i++)
		inversions += order[i] < order[i - 1];
	assert_true(inversions > 300);
	rk_sim_link_destroy(l);

	c.dir[0] = (struct rk_sim_impair){ .corrupt = 0.1 };
	l = rk_sim_link_create(&c);
	memset(frame, 0, sizeof(frame));
	for (unsigned int i = 0; i < 1000; i++)
		rk_sim_link_send(l, 0, frame, sizeof(frame), 0);
	while (rk_sim_link_recv(l, 0, 1, buf, sizeof(buf)) > 0)
		for (unsigned int k = 0; k < sizeof(frame); k++)
			if (buf[k] != 0) {
				assert_true(k >= 14);   /* the Ethernet header is left alone */
				bad++;
				break;
			}
	assert_int_equal(bad, rk_sim_link_stats(l, 0)->corrupted);
	assert_true(bad > 60 && bad < 140);
	rk_sim_link_destroy(l);
}

static void
test_burst_and_mtu(void **state)
{
	static unsigned int order[20000];
	struct rk_sim_link_cfg c = { .seed = 3, .dir = { { .loss = 0.01, .burst = 1.0,
							   .burst_len = 5, .mtu = 1500 } } };
	struct rk_sim_link *l = rk_sim_link_create(&c);
	uint8_t big[1600] = { 0 };
	unsigned int got, run = 0, longest = 0, prev = UINT32_MAX;

	(void)state;
	send_n(l, 10000, 0);
	got = drain(l, order, 20000);
	for (unsigned int i = 0; i < got; i++) {
		unsigned int gap = prev == UINT32_MAX ? 0 : order[i] - prev - 1;

		run = gap;
		longest = run > longest ? run : longest;
		prev = order[i];
	}
	/* Losses come in runs of 5 (two bursts may touch). */
	assert_true(longest >= 5);
	assert_int_equal(rk_sim_link_stats(l, 0)->lost % 5, 0);
	rk_sim_link_send(l, 0, big, 14 + 1501, 0);
	assert_int_equal(rk_sim_link_stats(l, 0)->mtu_drops, 1);
	rk_sim_link_destroy(l);
}

static void
test_deterministic(void **state)
{
	static unsigned int a[20000], b[20000];
	struct rk_sim_link_cfg c = { .seed = 11, .dir = { { .loss = 0.05, .dup = 0.05,
							    .reorder = 0.05, .reorder_ns = 50,
							    .jitter_ns = 20 } } };
	unsigned int na, nb;

	(void)state;
	for (int round = 0; round < 2; round++) {
		struct rk_sim_link *l = rk_sim_link_create(&c);

		for (unsigned int i = 0; i < 5000; i++) {
			frame[20] = (uint8_t)i;
			frame[21] = (uint8_t)(i >> 8);
			rk_sim_link_send(l, 0, frame, sizeof(frame), i * 5);
		}
		if (round == 0)
			na = drain(l, a, 20000);
		else
			nb = drain(l, b, 20000);
		rk_sim_link_destroy(l);
	}
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na * sizeof(a[0]));
}

/* Every frame is accounted for, including those still on the link. */
static void
assert_balanced(const struct rk_sim_link_stats *st)
{
	assert_int_equal(st->sent + st->dup, st->delivered + st->lost + st->mtu_drops +
			 st->overflow + st->rx_dropped + st->in_flight);
}

static void
test_counters_balance(void **state)
{
	struct rk_sim_link_cfg c = {
		.seed = 5, .max_queue = 40,
		.dir = { { .loss = 0.05, .burst = 0.2, .burst_len = 3, .reorder = 0.1,
			   .reorder_ns = 5000, .dup = 0.1, .corrupt = 0.05, .delay_ns = 2000,
			   .jitter_ns = 700, .rate_bps = 10000000000ull, .mtu = 1000,
			   .drop_every = 17 } },
	};
	struct rk_sim_link *l = rk_sim_link_create(&c);
	const struct rk_sim_link_stats *st = rk_sim_link_stats(l, 0);
	uint8_t big[1100] = { 0 };
	uint64_t now = 0, rng = 1;

	(void)state;
	for (unsigned int i = 0; i < 20000; i++) {
		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		now += (rng >> 33) % 300;
		/* Some frames above the link MTU; some taken with too small a buffer. */
		if (rng >> 60 == 0)
			rk_sim_link_send(l, 0, big, sizeof(big), now);
		else
			rk_sim_link_send(l, 0, frame, sizeof(frame), now);
		assert_balanced(st);
		if ((rng >> 40) % 3 == 0)
			rk_sim_link_recv(l, 0, now, buf, (rng >> 50) % 16 == 0 ? 50 : sizeof(buf));
		assert_balanced(st);
	}
	/* Every outcome happened, and frames are still in flight. */
	assert_true(st->lost > 0 && st->dup > 0 && st->mtu_drops > 0 && st->overflow > 0 &&
		    st->rx_dropped > 0 && st->in_flight > 0 && st->periodic_drops > 0);
	assert_true(st->in_flight <= 40);
	while (rk_sim_link_recv(l, 0, UINT64_MAX - 1, buf, sizeof(buf)) != 0)
		assert_balanced(st);
	assert_int_equal(st->in_flight, 0);
	assert_balanced(st);
	rk_sim_link_destroy(l);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delay_and_order),
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_loss_dup_reorder_corrupt),
		cmocka_unit_test(test_burst_and_mtu),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_counters_balance),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
