/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receive side's accounting: a known drop list, known reorders,
 * duplicates, the window's edge, a wrapping sequence number, a constant
 * delay read exactly, quantiles against sorted values, and the slot read
 * back from frames rk_gen_stream wrote.
 */
#include "rk_test.h"

#include <errno.h>

#include "rk_gen_rx.h"
#include "rk_gen_stream.h"

#define DELAY_NS 12345u

/* Frame @p seq of stream @p id, sent at seq us, received DELAY_NS later. */
static int
feed(struct rk_gen_rx *rx, uint32_t id, uint32_t seq)
{
	struct rk_gen_slot s = { .stream_id = id, .seq = seq, .tx_ns = (uint64_t)seq * 1000 };

	return rk_gen_rx_add(rx, &s, s.tx_ns + DELAY_NS);
}

static void
feed_list(struct rk_gen_rx *rx, uint32_t id, const uint32_t *seqs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		feed(rx, id, seqs[i]);
}

static void
test_drop_list_and_delay(void **state)
{
	static const uint32_t drops[] = { 3, 100, 101, 500, 999 };
	struct rk_gen_rx rx;
	const struct rk_gen_rx_stream *st;
	size_t d = 0;

	(void)state;
	rk_gen_rx_init(&rx);
	for (uint32_t i = 0; i < 1000; i++) {
		if (d < sizeof(drops) / sizeof(drops[0]) && drops[d] == i) {
			d++;
			continue;
		}
		assert_int_equal(feed(&rx, 1, i), RK_GEN_RX_IN_ORDER);
	}
	st = rk_gen_rx_find(&rx, 1);
	assert_non_null(st);
	assert_null(rk_gen_rx_find(&rx, 2));
	assert_int_equal(st->frames, 995);
	assert_int_equal(st->unique, 995);
	assert_int_equal(st->duplicates, 0);
	assert_int_equal(st->reordered, 0);
	assert_int_equal(rk_gen_rx_lost(st, 1000), 5);
	/* the last frame lost: without the count sent it is not seen */
	assert_int_equal(rk_gen_rx_lost(st, 0), 4);
	assert_int_equal(st->lat.count, 995);
	assert_int_equal(st->lat.min_ns, DELAY_NS);
	assert_int_equal(rk_hist_quantile(&st->lat, 50000), DELAY_NS);
	assert_int_equal(rk_hist_quantile(&st->lat, 99000), DELAY_NS);
	assert_int_equal(rk_hist_quantile(&st->lat, 99900), DELAY_NS);
	assert_int_equal(rk_hist_quantile(&st->lat, 100000), DELAY_NS);
	assert_int_equal(st->first_rx_ns, DELAY_NS);
	assert_int_equal(st->last_rx_ns, 998 * 1000 + DELAY_NS);
	rk_gen_rx_fini(&rx);
}

static void
test_reorder(void **state)
{
	/* 2 after 3 (extent 1), 6 and 7 after 8 (extents 2 and 1) */
	static const uint32_t seqs[] = { 0, 1, 3, 2, 4, 5, 8, 6, 7, 9 };
	struct rk_gen_rx rx;
	const struct rk_gen_rx_stream *st;

	(void)state;
	rk_gen_rx_init(&rx);
	feed_list(&rx, 9, seqs, 3);
	assert_int_equal(feed(&rx, 9, 2), RK_GEN_RX_REORDERED);
	feed_list(&rx, 9, seqs + 4, 6);
	st = rk_gen_rx_find(&rx, 9);
	assert_int_equal(st->unique, 10);
	assert_int_equal(st->reordered, 3);
	assert_int_equal(st->reorder_extent_max, 2);
	assert_int_equal(st->duplicates, 0);
	assert_int_equal(rk_gen_rx_lost(st, 10), 0);
	assert_int_equal(st->next_exp, 10);
	/* latency comes from each frame's own TX time, in any order */
	assert_int_equal(rk_hist_quantile(&st->lat, 100000), DELAY_NS);
	rk_gen_rx_fini(&rx);
}

static void
test_duplicates(void **state)
{
	struct rk_gen_rx rx;
	const struct rk_gen_rx_stream *st;

	(void)state;
	rk_gen_rx_init(&rx);
	assert_int_equal(feed(&rx, 4, 0), RK_GEN_RX_IN_ORDER);
	assert_int_equal(feed(&rx, 4, 1), RK_GEN_RX_IN_ORDER);
	assert_int_equal(feed(&rx, 4, 1), RK_GEN_RX_DUPLICATE);
	assert_int_equal(feed(&rx, 4, 3), RK_GEN_RX_IN_ORDER);
	assert_int_equal(feed(&rx, 4, 0), RK_GEN_RX_DUPLICATE);
	assert_int_equal(feed(&rx, 4, 2), RK_GEN_RX_REORDERED);
	assert_int_equal(feed(&rx, 4, 2), RK_GEN_RX_DUPLICATE);
	st = rk_gen_rx_find(&rx, 4);
	assert_int_equal(st->frames, 7);
	assert_int_equal(st->unique, 4);
	assert_int_equal(st->duplicates, 3);
	assert_int_equal(st->reordered, 1);
	assert_int_equal(rk_gen_rx_lost(st, 0), 0);
	/* duplicates stay out of the latency */
	assert_int_equal(st->lat.count, 4);
	rk_gen_rx_fini(&rx);
}

/* A number exactly RK_GEN_RX_WINDOW below NextExp is still known; one more is stale. */
static void
test_window_edge(void **state)
{
	struct rk_gen_rx rx;
	const struct rk_gen_rx_stream *st;

	(void)state;
	rk_gen_rx_init(&rx);
	for (uint32_t i = 0; i < 5000; i++)
		feed(&rx, 2, i);
	assert_int_equal(feed(&rx, 2, 5000 - RK_GEN_RX_WINDOW), RK_GEN_RX_DUPLICATE);
	assert_int_equal(feed(&rx, 2, 5000 - RK_GEN_RX_WINDOW - 1), RK_GEN_RX_STALE);
	/* a jump past the window forgets every bit */
	assert_int_equal(feed(&rx, 2, 20000), RK_GEN_RX_IN_ORDER);
	assert_int_equal(feed(&rx, 2, 19999), RK_GEN_RX_REORDERED);
	assert_int_equal(feed(&rx, 2, 20001 - RK_GEN_RX_WINDOW), RK_GEN_RX_REORDERED);
	assert_int_equal(feed(&rx, 2, 20000 - RK_GEN_RX_WINDOW), RK_GEN_RX_STALE);
	st = rk_gen_rx_find(&rx, 2);
	assert_int_equal(st->stale, 2);
	assert_int_equal(st->duplicates, 1);
	assert_int_equal(st->unique, 5003);
	assert_int_equal(rk_gen_rx_lost(st, 0), 20001 - 5003);
	rk_gen_rx_fini(&rx);
}

/* The 32-bit number wraps: extended to 64 bits, nothing reads as lost or reordered. */
static void
test_wrap(void **state)
{
	struct rk_gen_rx rx;
	struct rk_gen_slot s = { .stream_id = 3 };
	const struct rk_gen_rx_stream *st;

	(void)state;
	rk_gen_rx_init(&rx);
	s.seq = 0;
	assert_int_equal(rk_gen_rx_add(&rx, &s, 0), RK_GEN_RX_IN_ORDER);
	for (uint64_t n = 1; n <= 2; n++) {
		s.seq = (uint32_t)(n * 0x60000000u);
		assert_int_equal(rk_gen_rx_add(&rx, &s, 0), RK_GEN_RX_IN_ORDER);
	}
	s.seq = 0xfffffffeu;
	assert_int_equal(rk_gen_rx_add(&rx, &s, 0), RK_GEN_RX_IN_ORDER);
	s.seq = 1;
	assert_int_equal(rk_gen_rx_add(&rx, &s, 0), RK_GEN_RX_IN_ORDER);
	s.seq = 0xffffffffu;
	assert_int_equal(rk_gen_rx_add(&rx, &s, 0), RK_GEN_RX_REORDERED);
	s.seq = 0;
	assert_int_equal(rk_gen_rx_add(&rx, &s, 0), RK_GEN_RX_REORDERED);
	st = rk_gen_rx_find(&rx, 3);
	assert_int_equal(st->next_exp, (1ull << 32) + 2);
	assert_int_equal(st->unique, 7);
	/* below 0: stale */
	rk_gen_rx_fini(&rx);
	rk_gen_rx_init(&rx);
	s.seq = 5;
	rk_gen_rx_add(&rx, &s, 0);
	s.seq = 0xfffffff0u;
	assert_int_equal(rk_gen_rx_add(&rx, &s, 0), RK_GEN_RX_STALE);
	/* a receiver that starts late: the first number as it is, however high */
	s.stream_id = 8;
	s.seq = 0x90000000u;
	assert_int_equal(rk_gen_rx_add(&rx, &s, 0), RK_GEN_RX_IN_ORDER);
	s.seq = 0x8fffffffu;
	assert_int_equal(rk_gen_rx_add(&rx, &s, 0), RK_GEN_RX_REORDERED);
	assert_int_equal(rk_gen_rx_find(&rx, 8)->next_exp, 0x90000001u);
	rk_gen_rx_fini(&rx);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Quantiles against the sorted values: never below, under 1/128 above. */
static void
test_quantiles(void **state)
{
	static const uint32_t qs[] = { 1, 50000, 90000, 99000, 99900, 99999, 100000 };
	static uint64_t v[20011];
	struct rk_hist *h = malloc(sizeof(*h));
	const size_t n = sizeof(v) / sizeof(v[0]);

	(void)state;
	assert_non_null(h);
	rk_test_seed();
	rk_hist_init(h);
	assert_int_equal(rk_hist_quantile(h, 50000), 0);
	for (size_t i = 0; i < n; i++) {
		/* spread over 1 ns .. ~2^36 ns */
		v[i] = rk_test_rand() >> (28 + rk_test_rand() % 36);
		rk_hist_add(h, v[i]);
	}
	qsort(v, n, sizeof(v[0]), cmp_u64);
	assert_int_equal(h->min_ns, v[0]);
	assert_int_equal(h->max_ns, v[n - 1]);
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		uint64_t rank = ((uint64_t)n * qs[i] + 99999) / 100000;
		uint64_t exact = v[rank - 1], got = rk_hist_quantile(h, qs[i]);

		assert_true(got >= exact);
		assert_true(got <= exact + exact / 128);
		if (exact < 256)
			assert_int_equal(got, exact);
	}
	assert_int_equal(rk_hist_quantile(h, 100001), 0);
	/* 1..1000: p99.9 is 999 (its bucket 996..999), the max 1000 */
	rk_hist_init(h);
	for (uint64_t i = 1; i <= 1000; i++)
		rk_hist_add(h, i);
	assert_int_equal(rk_hist_quantile(h, 99900), 999);
	assert_int_equal(rk_hist_quantile(h, 100000), 1000);
	assert_int_equal(rk_hist_quantile(h, 10000), 100);
	assert_int_equal(h->sum_ns, 500500);
	/* beyond 2^40 ns: the last bucket, the max still exact */
	rk_hist_add(h, 1ull << 50);
	assert_int_equal(rk_hist_quantile(h, 100000), 1ull << 50);
	free(h);
}

static void
test_negative_and_streams_max(void **state)
{
	struct rk_gen_rx rx;
	struct rk_gen_slot s = { .stream_id = 0, .seq = 0, .tx_ns = 1000 };

	(void)state;
	rk_gen_rx_init(&rx);
	assert_int_equal(rk_gen_rx_add(&rx, &s, 999), RK_GEN_RX_IN_ORDER);
	assert_int_equal(rx.st[0]->lat_negative, 1);
	assert_int_equal(rx.st[0]->lat.count, 0);
	for (uint32_t id = 1; id < RK_GEN_RX_STREAMS_MAX; id++) {
		s.stream_id = id;
		assert_int_equal(rk_gen_rx_add(&rx, &s, 2000), RK_GEN_RX_IN_ORDER);
	}
	s.stream_id = RK_GEN_RX_STREAMS_MAX;
	assert_int_equal(rk_gen_rx_add(&rx, &s, 2000), -ENOSPC);
	assert_int_equal(rx.other_frames, 1);
	s.stream_id = 17;
	s.seq = 1;
	assert_int_equal(rk_gen_rx_add(&rx, &s, 2000), RK_GEN_RX_IN_ORDER);
	assert_int_equal(rk_gen_rx_find(&rx, 17)->unique, 2);
	rk_gen_rx_fini(&rx);
	assert_int_equal(rx.n, 0);
}

/* The slot read back from frames the stream model wrote. */
static void
test_slot_read(void **state)
{
	struct rk_gen_cfg c;
	struct rk_gen_stream *s = NULL;
	struct rk_gen_slot slot;
	uint8_t buf[RK_GEN_FRAME_MAX];
	int len;

	(void)state;
	rk_gen_cfg_init(&c);
	c.seq = true;
	c.seq_off = 8;
	c.stream_id = 0xabcdef01u;
	c.vlan = true;
	c.opcode = 0x0a; /* RC RDMA WRITE Only: a RETH before the payload */
	c.count = 5;
	c.count_set = true;
	assert_int_equal(rk_gen_stream_compile(&c, &s, NULL), 0);
	assert_true(rk_gen_stream_next(s, buf, sizeof(buf)) > 0); /* frame 0 */
	len = rk_gen_stream_next_at(s, buf, sizeof(buf), 0x1122334455667788ull);
	assert_true(len > 0);
	assert_int_equal(rk_gen_slot_read(buf, (uint32_t)len, 8, &slot), 0);
	assert_int_equal(slot.stream_id, 0xabcdef01u);
	assert_int_equal(slot.seq, 1);
	assert_int_equal(slot.tx_ns, 0x1122334455667788ull);
	/* at another offset the slot reads as other bytes, still in the payload */
	assert_int_equal(rk_gen_slot_read(buf, (uint32_t)len, 0, &slot), 0);
	assert_int_not_equal(slot.stream_id, 0xabcdef01u);
	/* past the payload; shorter than its IP length; not RoCEv2 */
	assert_int_equal(rk_gen_slot_read(buf, (uint32_t)len, 64 - 15, &slot), -EMSGSIZE);
	assert_int_equal(rk_gen_slot_read(buf, (uint32_t)len - 40, 8, &slot), -EPROTO);
	buf[12 + 4] = 0x86; /* EtherType after the tag: no longer IPv4 */
	assert_int_equal(rk_gen_slot_read(buf, (uint32_t)len, 8, &slot), -EPROTO);
	assert_int_equal(rk_gen_slot_read(buf, 10, 0, &slot), -EPROTO);
	assert_int_equal(rk_gen_slot_read(NULL, 0, 0, &slot), -EPROTO);
	rk_gen_stream_free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drop_list_and_delay),
		cmocka_unit_test(test_reorder),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_window_edge),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_quantiles),
		cmocka_unit_test(test_negative_and_streams_max),
		cmocka_unit_test(test_slot_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
