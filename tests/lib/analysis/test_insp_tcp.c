/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the TCP direction follower (lib/analysis/rk_insp_tcp.c):
 * every reorder, overlap, wrap, SYN/FIN/RST and gap case it handles.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "rk_insp_tcp.h"

/* What the follower delivered: the byte stream with '#' for gap bytes. */
struct sink {
	uint8_t out[8192];
	uint32_t len;
	uint32_t first_seq;
	bool have_seq;
	uint32_t next_seq;      /* where the next delivery must start */
	int gaps;
	uint32_t gap_bytes;
	int ends;
	bool rst;
	int conflicts;          /* conflict() calls */
	uint32_t conflict_seq;  /* the last one's first differing byte */
	uint32_t conflict_n;    /* and its count of differing bytes */
};

static void
sink_data(void *ctx, uint32_t seq, const uint8_t *p, uint32_t len)
{
	struct sink *s = ctx;

	if (s->have_seq)
		assert_int_equal(seq, s->next_seq);   /* strictly in order */
	else
		s->first_seq = seq;
	s->have_seq = true;
	assert_true(s->len + len <= sizeof(s->out));
	memcpy(s->out + s->len, p, len);
	s->len += len;
	s->next_seq = seq + len;
}

static void
sink_gap(void *ctx, uint32_t seq, uint32_t len)
{
	struct sink *s = ctx;

	if (s->have_seq)
		assert_int_equal(seq, s->next_seq);
	s->have_seq = true;
	s->gaps++;
	s->gap_bytes += len;
	for (uint32_t i = 0; i < len && s->len < sizeof(s->out); i++)
		s->out[s->len++] = '#';
	s->next_seq = seq + len;
}

static void
sink_end(void *ctx, bool rst)
{
	struct sink *s = ctx;

	s->ends++;
	s->rst = rst;
}

static void
sink_conflict(void *ctx, uint32_t seq, uint32_t ndiff)
{
	struct sink *s = ctx;

	s->conflicts++;
	s->conflict_seq = seq;
	s->conflict_n = ndiff;
}

static const struct rk_insp_tcp_ops ops = {
	.data = sink_data,
	.gap = sink_gap,
	.end = sink_end,
	.conflict = sink_conflict,
};

static const uint8_t text[] = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/* Feed text[off, off+len) as a segment whose first byte is ISN+1+off. */
static void
seg(struct rk_insp_tcp_dir *d, struct sink *s, uint32_t isn, uint32_t off,
    uint32_t len, uint8_t flags)
{
	rk_insp_tcp_segment(d, isn + 1 + off, flags, text + off, len, &ops, s);
}

static void
expect(const struct sink *s, const char *want)
{
	assert_int_equal(s->len, strlen(want));
	assert_memory_equal(s->out, want, s->len);
}

static void
test_in_order(void **state)
{
	struct rk_insp_tcp_dir d;
	struct sink s = { 0 };
	uint32_t isn = 1000;

	(void)state;
	rk_insp_tcp_init(&d, 0);
	rk_insp_tcp_segment(&d, isn, RK_INSP_TCP_SYN, NULL, 0, &ops, &s);
	seg(&d, &s, isn, 0, 5, RK_INSP_TCP_ACK);
	seg(&d, &s, isn, 5, 5, RK_INSP_TCP_ACK);
	seg(&d, &s, isn, 10, 0, RK_INSP_TCP_ACK);  /* pure ACK */
	expect(&s, "abcdefghij");
	assert_int_equal(s.first_seq, isn + 1);
	assert_int_equal(d.delivered, 10);
	assert_int_equal(d.rtx_bytes, 0);
	assert_int_equal(d.ooo_segments, 0);
	rk_insp_tcp_fini(&d);
}

static void
test_full_duplicate(void **state)
{
	struct rk_insp_tcp_dir d;
	struct sink s = { 0 };
	uint32_t isn = 5;

	(void)state;
	rk_insp_tcp_init(&d, 0);
	rk_insp_tcp_segment(&d, isn, RK_INSP_TCP_SYN, NULL, 0, &ops, &s);
	seg(&d, &s, isn, 0, 8, 0);
	seg(&d, &s, isn, 0, 8, 0);      /* retransmitted whole */
	seg(&d, &s, isn, 2, 4, 0);      /* retransmitted middle part */
	seg(&d, &s, isn, 8, 4, 0);
	expect(&s, "abcdefghijkl");
	assert_int_equal(d.rtx_bytes, 12);
	assert_int_equal(d.rtx_segments, 2);
	rk_insp_tcp_fini(&d);
}

static void
test_partial_overlap(void **state)
{
	struct rk_insp_tcp_dir d;
	struct sink s = { 0 };
	uint32_t isn = 77;

	(void)state;
	rk_insp_tcp_init(&d, 0);
	rk_insp_tcp_segment(&d, isn, RK_INSP_TCP_SYN, NULL, 0, &ops, &s);
	seg(&d, &s, isn, 0, 6, 0);
	seg(&d, &s, isn, 4, 6, 0);      /* 2 old bytes, 4 new */
	expect(&s, "abcdefghij");
	assert_int_equal(d.rtx_bytes, 2);
	assert_int_equal(d.rtx_segments, 0);
	rk_insp_tcp_fini(&d);
}

static void
test_out_of_order_fill(void **state)
{
	struct rk_insp_tcp_dir d;
	struct sink s = { 0 };
	uint32_t isn = 100;

	(void)state;
	rk_insp_tcp_init(&d, 0);
	rk_insp_tcp_segment(&d, isn, RK_INSP_TCP_SYN, NULL, 0, &ops, &s);
	seg(&d, &s, isn, 10, 5, 0);     /* ahead: queued */
	seg(&d, &s, isn, 5, 5, 0);      /* ahead: queued */
	assert_int_equal(s.len, 0);
	assert_int_equal(d.ooo_segments, 2);
	seg(&d, &s, isn, 0, 5, 0);      /* fills the hole: all three go out */
	expect(&s, "abcdefghijklmno");
	assert_int_equal(d.gaps, 0);
	assert_null(d.ooo);
	assert_int_equal(d.ooo_bytes, 0);
	rk_insp_tcp_fini(&d);
}

static void
test_queued_overlaps(void **state)
{
	struct rk_insp_tcp_dir d;
	struct sink s = { 0 };
	uint32_t isn = 0;

	(void)state;
	rk_insp_tcp_init(&d, 0);
	rk_insp_tcp_segment(&d, isn, RK_INSP_TCP_SYN, NULL, 0, &ops, &s);
	seg(&d, &s, isn, 10, 4, 0);     /* [10,14) */
	seg(&d, &s, isn, 20, 4, 0);     /* [20,24) */
	seg(&d, &s, isn, 8, 18, 0);     /* [8,26): covers both, fills around them */
	seg(&d, &s, isn, 12, 4, 0);     /* wholly queued already */
	assert_int_equal(s.len, 0);
	seg(&d, &s, isn, 0, 9, 0);      /* [0,9): overlaps the queue head by 1 */
	expect(&s, "abcdefghijklmnopqrstuvwxyz");
	/* 8 bytes of [8,26) were queued already, [12,16) twice, byte 8 once */
	assert_int_equal(d.rtx_bytes, 8 + 4 + 1);
	assert_null(d.ooo);
	rk_insp_tcp_fini(&d);
}

static void
test_sequence_wrap(void **state)
{
	struct rk_insp_tcp_dir d;
	struct sink s = { 0 };
	uint32_t isn = 0xfffffff8u;     /* data crosses 2^32 */

	(void)state;
	rk_insp_tcp_init(&d, 0);
	rk_insp_tcp_segment(&d, isn, RK_INSP_TCP_SYN, NULL, 0, &ops, &s);
	seg(&d, &s, isn, 10, 6, 0);     /* after the wrap, out of order */
	seg(&d, &s, isn, 0, 10, 0);     /* before and across the wrap */
	seg(&d, &s, isn, 4, 4, 0);      /* old bytes across no boundary */
	expect(&s, "abcdefghijklmnop");
	assert_int_equal(s.first_seq, 0xfffffff9u);
	assert_int_equal(d.next, 0xfffffff9u + 16);
	assert_int_equal(d.rtx_bytes, 4);
	rk_insp_tcp_fini(&d);
}

static void
test_syn_data_and_fin(void **state)
{
	struct rk_insp_tcp_dir d;
	struct sink s = { 0 };
	uint32_t isn = 4000;

	(void)state;
	rk_insp_tcp_init(&d, 0);
	/* Data on the SYN starts at ISN + 1. */
	rk_insp_tcp_segment(&d, isn, RK_INSP_TCP_SYN, text, 3, &ops, &s);
	/* A retransmitted SYN changes nothing. */
	rk_insp_tcp_segment(&d, isn, RK_INSP_TCP_SYN, text, 3, &ops, &s);
	seg(&d, &s, isn, 3, 3, RK_INSP_TCP_FIN);
	expect(&s, "abcdef");
	assert_int_equal(s.ends, 1);
	assert_false(s.rst);
	assert_int_equal(d.state, RK_INSP_TCP_CLOSED);
	/* Retransmitted data after the close is counted, not delivered. */
	seg(&d, &s, isn, 0, 6, RK_INSP_TCP_FIN);
	expect(&s, "abcdef");
	assert_int_equal(s.ends, 1);
	rk_insp_tcp_fini(&d);
}

static void
test_fin_out_of_order(void **state)
{
	struct rk_insp_tcp_dir d;
	struct sink s = { 0 };
	uint32_t isn = 9;

	(void)state;
	rk_insp_tcp_init(&d, 0);
	rk_insp_tcp_segment(&d, isn, RK_INSP_TCP_SYN, NULL, 0, &ops, &s);
	seg(&d, &s, isn, 4, 4, RK_INSP_TCP_FIN);  /* FIN arrives first */
	assert_int_equal(s.ends, 0);
	seg(&d, &s, isn, 0, 4, 0);
	expect(&s, "abcdefgh");
	assert_int_equal(s.ends, 1);
	rk_insp_tcp_fini(&d);
}

static void
test_rst_flushes(void **state)
{
	struct rk_insp_tcp_dir d;
	struct sink s = { 0 };
	uint32_t isn = 1;

	(void)state;
	rk_insp_tcp_init(&d, 0);
	rk_insp_tcp_segment(&d, isn, RK_INSP_TCP_SYN, NULL, 0, &ops, &s);
	seg(&d, &s, isn, 0, 3, 0);
	seg(&d, &s, isn, 6, 3, 0);      /* hole [3,6) never filled */
	seg(&d, &s, isn, 9, 0, RK_INSP_TCP_RST);
	expect(&s, "abc###ghi");
	assert_int_equal(s.gaps, 1);
	assert_int_equal(s.ends, 1);
	assert_true(s.rst);
	rk_insp_tcp_fini(&d);
}

static void
test_flush_at_end(void **state)
{
	struct rk_insp_tcp_dir d;
	struct sink s = { 0 };
	uint32_t isn = 50;

	(void)state;
	rk_insp_tcp_init(&d, 0);
	rk_insp_tcp_segment(&d, isn, RK_INSP_TCP_SYN, NULL, 0, &ops, &s);
	seg(&d, &s, isn, 0, 2, 0);
	seg(&d, &s, isn, 4, 2, 0);
	seg(&d, &s, isn, 8, 2, 0);
	rk_insp_tcp_flush(&d, &ops, &s);
	expect(&s, "ab##ef##ij");
	assert_int_equal(s.gaps, 2);
	assert_int_equal(d.gap_bytes, 4);
	assert_null(d.ooo);
	rk_insp_tcp_fini(&d);
}

static void
test_buffer_limit_gap(void **state)
{
	struct rk_insp_tcp_dir d;
	struct sink s = { 0 };
	uint32_t isn = 0;

	(void)state;
	/* The smallest buffer holds one queued byte range of about 16 bytes. */
	rk_insp_tcp_init(&d, 1);
	d.max_ooo = 64;
	rk_insp_tcp_segment(&d, isn, RK_INSP_TCP_SYN, NULL, 0, &ops, &s);
	seg(&d, &s, isn, 0, 2, 0);
	seg(&d, &s, isn, 4, 20, 0);     /* queued: under the limit */
	assert_int_equal(s.gaps, 0);
	seg(&d, &s, isn, 30, 20, 0);    /* over the limit: give up the hole [2,4) */
	assert_int_equal(s.gaps, 1);
	expect(&s, "ab##efghijklmnopqrstuvwx");
	assert_true(d.ooo_bytes <= d.max_ooo);
	seg(&d, &s, isn, 24, 6, 0);     /* the next hole fills normally */
	assert_int_equal(s.gaps, 1);
	assert_int_equal(s.len, 50);
	rk_insp_tcp_fini(&d);
}

static void
test_peer_ack_declares_gap(void **state)
{
	struct rk_insp_tcp_dir d;
	struct sink s = { 0 };
	uint32_t isn = 300;

	(void)state;
	rk_insp_tcp_init(&d, 0);
	rk_insp_tcp_segment(&d, isn, RK_INSP_TCP_SYN, NULL, 0, &ops, &s);
	seg(&d, &s, isn, 0, 4, 0);
	/* The receiver acknowledged [4,8): it had them, the capture did not. */
	rk_insp_tcp_peer_ack(&d, isn + 1 + 8);
	seg(&d, &s, isn, 8, 4, 0);      /* sender moved on: gap declared now */
	expect(&s, "abcd####ijkl");
	assert_int_equal(s.gaps, 1);
	/* An older ACK does not move the recorded one back. */
	rk_insp_tcp_peer_ack(&d, isn + 1);
	assert_int_equal(d.peer_ack, isn + 1 + 8);
	rk_insp_tcp_fini(&d);
}

static void
test_ack_without_moving_on_waits(void **state)
{
	struct rk_insp_tcp_dir d;
	struct sink s = { 0 };
	uint32_t isn = 300;

	(void)state;
	rk_insp_tcp_init(&d, 0);
	rk_insp_tcp_segment(&d, isn, RK_INSP_TCP_SYN, NULL, 0, &ops, &s);
	seg(&d, &s, isn, 0, 4, 0);
	/* The peer ACKs only what was seen: a later out-of-order segment
	 * waits for its hole to fill. */
	rk_insp_tcp_peer_ack(&d, isn + 1 + 4);
	seg(&d, &s, isn, 8, 4, 0);
	assert_int_equal(s.gaps, 0);
	seg(&d, &s, isn, 4, 4, 0);
	expect(&s, "abcdefghijkl");
	rk_insp_tcp_fini(&d);
}

static void
test_midstream_start(void **state)
{
	struct rk_insp_tcp_dir d;
	struct sink s = { 0 };

	(void)state;
	rk_insp_tcp_init(&d, 0);
	/* No SYN: the first segment seen starts the stream. */
	rk_insp_tcp_segment(&d, 123456, RK_INSP_TCP_ACK, text, 4, &ops, &s);
	rk_insp_tcp_segment(&d, 123460, RK_INSP_TCP_ACK, text + 4, 4, &ops, &s);
	expect(&s, "abcdefgh");
	assert_false(d.syn_seen);
	assert_int_equal(s.first_seq, 123456);
	/* A SYN for this direction now is a different connection. */
	rk_insp_tcp_segment(&d, 5, RK_INSP_TCP_SYN, text, 2, &ops, &s);
	assert_int_equal(d.ignored, 1);
	expect(&s, "abcdefgh");
	rk_insp_tcp_fini(&d);
}

static void
test_far_ahead_ignored(void **state)
{
	struct rk_insp_tcp_dir d;
	struct sink s = { 0 };
	uint32_t isn = 10;

	(void)state;
	rk_insp_tcp_init(&d, 0);
	rk_insp_tcp_segment(&d, isn, RK_INSP_TCP_SYN, NULL, 0, &ops, &s);
	rk_insp_tcp_segment(&d, isn + 1 + (1u << 31) + 8, 0, text, 4, &ops, &s);
	rk_insp_tcp_segment(&d, isn + 1 + (3u << 29), 0, text, 4, &ops, &s);
	assert_null(d.ooo);
	assert_int_equal(d.ignored, 1);  /* 3*2^29 is ahead by > 2^30 */
	/* The first is behind by the signed view: counted as old bytes. */
	assert_int_equal(d.rtx_segments, 1);
	rk_insp_tcp_fini(&d);
}

static void
test_snaplen_cut_is_gap(void **state)
{
	struct rk_insp_tcp_dir d;
	struct sink s = { 0 };
	uint32_t isn = 0;

	(void)state;
	rk_insp_tcp_init(&d, 0);
	rk_insp_tcp_segment(&d, isn, RK_INSP_TCP_SYN, NULL, 0, &ops, &s);
	seg(&d, &s, isn, 0, 3, 0);              /* 3 of 6 bytes captured */
	rk_insp_tcp_lost(&d, isn + 1 + 3, 3, &ops, &s);
	seg(&d, &s, isn, 6, 3, 0);
	expect(&s, "abc###ghi");
	/* Lost bytes that are not next change nothing. */
	rk_insp_tcp_lost(&d, isn + 1 + 20, 3, &ops, &s);
	assert_int_equal(s.gaps, 1);
	rk_insp_tcp_fini(&d);
}

static void
test_data_past_fin_dropped(void **state)
{
	struct rk_insp_tcp_dir d;
	struct sink s = { 0 };
	uint32_t isn = 0;

	(void)state;
	rk_insp_tcp_init(&d, 0);
	rk_insp_tcp_segment(&d, isn, RK_INSP_TCP_SYN, NULL, 0, &ops, &s);
	seg(&d, &s, isn, 4, 2, RK_INSP_TCP_FIN);   /* FIN at offset 6 */
	seg(&d, &s, isn, 0, 10, 0);                /* bytes beyond the FIN */
	expect(&s, "abcdef");
	assert_int_equal(s.ends, 1);
	rk_insp_tcp_fini(&d);
}

/* A sink that only counts, for streams too long to keep. */
struct counter {
	uint32_t next;
	bool have;
	uint64_t data, gap;
	int gaps;
};

static void
count_data(void *ctx, uint32_t seq, const uint8_t *p, uint32_t len)
{
	struct counter *c = ctx;

	(void)p;
	if (c->have)
		assert_int_equal(seq, c->next);
	c->have = true;
	c->next = seq + len;
	c->data += len;
}

static void
count_gap(void *ctx, uint32_t seq, uint32_t len)
{
	struct counter *c = ctx;

	if (c->have)
		assert_int_equal(seq, c->next);
	c->have = true;
	c->next = seq + len;
	c->gap += len;
	c->gaps++;
}

static const struct rk_insp_tcp_ops count_ops = {
	.data = count_data,
	.gap = count_gap,
};

static uint32_t rng = 12345;

static uint32_t
rnd(void)
{
	rng = rng * 1103515245u + 12345u;
	return rng >> 8;
}

static void
shuffle(uint32_t *v, uint32_t n)
{
	for (uint32_t i = n - 1; i > 0; i--) {
		uint32_t j = rnd() % (i + 1), t = v[i];

		v[i] = v[j];
		v[j] = t;
	}
}

/*
 * 200000 one-byte segments in random order: near-linear time, the queue
 * never holds more than its cap of ranges, and every byte is either
 * delivered in order or reported in a gap.
 */
static void
test_random_order_is_fast(void **state)
{
	const uint32_t n = 200000, isn = 0xffff0000u;   /* crosses 2^32 too */
	struct rk_insp_tcp_dir d;
	struct counter c = { 0 };
	uint32_t *order = malloc(n * sizeof(*order));
	uint8_t byte = 'x';
	uint32_t most = 0;
	clock_t t0;
	double secs;

	(void)state;
	assert_non_null(order);
	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	shuffle(order, n);
	rk_insp_tcp_init(&d, 1u << 30);
	rk_insp_tcp_segment(&d, isn, RK_INSP_TCP_SYN, NULL, 0, &count_ops, &c);
	t0 = clock();
	for (uint32_t i = 0; i < n; i++) {
		rk_insp_tcp_segment(&d, isn + 1 + order[i], 0, &byte, 1, &count_ops, &c);
		if (d.nooo > most)
			most = d.nooo;
	}
	rk_insp_tcp_flush(&d, &count_ops, &c);
	secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	assert_true(secs < 10.0);
	assert_true(most <= RK_INSP_TCP_MAX_SEGS_DEFAULT);
	/* Bytes arriving after their hole was given up count as old ones. */
	assert_int_equal(c.data + c.gap, n);
	assert_true(d.rtx_bytes <= c.gap);
	assert_int_equal(d.next, isn + 1 + n);
	assert_true(d.gaps > 0);          /* the cap gave holes up */
	assert_null(d.ooo);
	assert_int_equal(d.ooo_bytes, 0);
	rk_insp_tcp_fini(&d);
	free(order);
}

/* Bytes adjacent to a queued range join it, whatever the direction. */
static void
test_adjacent_segments_coalesce(void **state)
{
	struct rk_insp_tcp_dir d;
	struct sink s = { 0 };
	uint32_t isn = 7;

	(void)state;
	rk_insp_tcp_init(&d, 0);
	rk_insp_tcp_segment(&d, isn, RK_INSP_TCP_SYN, NULL, 0, &ops, &s);
	for (uint32_t off = 10; off < 30; off += 2)     /* ascending after a hole */
		seg(&d, &s, isn, off, 2, 0);
	assert_int_equal(d.nooo, 1);
	for (uint32_t off = 8; off >= 4; off -= 2)      /* descending before it */
		seg(&d, &s, isn, off, 2, 0);
	assert_int_equal(d.nooo, 1);
	seg(&d, &s, isn, 34, 2, 0);
	seg(&d, &s, isn, 40, 2, 0);
	assert_int_equal(d.nooo, 3);
	seg(&d, &s, isn, 36, 4, 0);                     /* bridges two ranges */
	assert_int_equal(d.nooo, 2);
	seg(&d, &s, isn, 29, 7, 0);                     /* overlaps both ends */
	assert_int_equal(d.nooo, 1);
	assert_int_equal(s.len, 0);
	seg(&d, &s, isn, 0, 4, 0);
	expect(&s, "abcdefghijklmnopqrstuvwxyz0123456789ABCDEF");
	assert_int_equal(d.rtx_bytes, 3);     /* byte 29, bytes 34 and 35 */
	assert_null(d.ooo);
	assert_int_equal(d.ooo_bytes, 0);
	rk_insp_tcp_fini(&d);
}

/* Past the cap on queued ranges, the oldest hole becomes a gap. */
static void
test_range_cap_gap(void **state)
{
	struct rk_insp_tcp_dir d;
	struct sink s = { 0 };
	uint32_t isn = 0;

	(void)state;
	rk_insp_tcp_init(&d, 0);
	d.max_segs = 3;
	rk_insp_tcp_segment(&d, isn, RK_INSP_TCP_SYN, NULL, 0, &ops, &s);
	seg(&d, &s, isn, 2, 2, 0);
	seg(&d, &s, isn, 6, 2, 0);
	seg(&d, &s, isn, 10, 2, 0);
	assert_int_equal(s.gaps, 0);
	seg(&d, &s, isn, 14, 2, 0);     /* a fourth range: hole [0,2) goes */
	assert_int_equal(s.gaps, 1);
	expect(&s, "##cd");
	assert_int_equal(d.nooo, 3);
	seg(&d, &s, isn, 4, 2, 0);
	expect(&s, "##cdefgh");
	rk_insp_tcp_fini(&d);
}

/* Overlapping segments of random sizes in random order rebuild the stream. */
static void
test_random_overlaps(void **state)
{
	static uint8_t stream[6000];
	struct sink s = { 0 };
	struct rk_insp_tcp_dir d;
	uint32_t starts[800], lens[800], order[800], n = 0, isn = 0xfffff000u;

	(void)state;
	for (uint32_t i = 0; i < sizeof(stream); i++)
		stream[i] = (uint8_t)rnd();
	/* Every byte is covered: chunks from each start, overlapping the next. */
	for (uint32_t off = 0; off < sizeof(stream) && n < 800; n++) {
		uint32_t step = 1 + rnd() % 16;

		starts[n] = off;
		lens[n] = step + rnd() % 12;
		if (off + lens[n] > sizeof(stream))
			lens[n] = (uint32_t)sizeof(stream) - off;
		off += step;
	}
	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	shuffle(order, n);
	rk_insp_tcp_init(&d, 0);
	rk_insp_tcp_segment(&d, isn, RK_INSP_TCP_SYN, NULL, 0, &ops, &s);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = order[i];

		rk_insp_tcp_segment(&d, isn + 1 + starts[k], 0, stream + starts[k],
				    lens[k], &ops, &s);
	}
	assert_int_equal(s.gaps, 0);
	assert_int_equal(s.len, starts[n - 1] + lens[n - 1]);
	assert_memory_equal(s.out, stream, s.len);
	assert_null(d.ooo);
	/* Every repeated byte was compared, and all were equal. */
	assert_true(d.rtx_bytes > 0);
	assert_int_equal(d.rtx_checked, d.rtx_bytes);
	assert_int_equal(s.conflicts, 0);
	assert_int_equal(d.rtx_conflicts, 0);
	rk_insp_tcp_fini(&d);
}

/* Feed @p len bytes of @p p as a segment at stream offset @p off. */
static void
seg_bytes(struct rk_insp_tcp_dir *d, struct sink *s, uint32_t isn, uint32_t off,
	  const char *p, uint32_t len)
{
	rk_insp_tcp_segment(d, isn + 1 + off, RK_INSP_TCP_ACK, (const uint8_t *)p, len,
			    &ops, s);
}

/* A retransmission of delivered bytes with other values: reported once per
 * segment, at its first differing byte; the first copy stays. */
static void
test_conflict_behind_next(void **state)
{
	struct rk_insp_tcp_dir d;
	struct sink s = { 0 };
	uint32_t isn = 4000;

	(void)state;
	rk_insp_tcp_init(&d, 0);
	rk_insp_tcp_segment(&d, isn, RK_INSP_TCP_SYN, NULL, 0, &ops, &s);
	seg(&d, &s, isn, 0, 8, RK_INSP_TCP_ACK);
	seg(&d, &s, isn, 2, 4, RK_INSP_TCP_ACK);        /* same bytes */
	assert_int_equal(s.conflicts, 0);
	assert_int_equal(d.rtx_checked, 4);
	seg_bytes(&d, &s, isn, 2, "cXeY", 4);           /* d and f differ */
	assert_int_equal(s.conflicts, 1);
	assert_int_equal(s.conflict_seq, isn + 1 + 3);
	assert_int_equal(s.conflict_n, 2);
	/* Partly old, partly new: the old part is compared, the new delivered. */
	seg_bytes(&d, &s, isn, 6, "gZij", 4);
	assert_int_equal(s.conflicts, 2);
	assert_int_equal(s.conflict_seq, isn + 1 + 7);
	assert_int_equal(s.conflict_n, 1);
	expect(&s, "abcdefghij");
	assert_int_equal(d.rtx_conflicts, 2);
	assert_int_equal(d.rtx_conflict_bytes, 3);
	assert_int_equal(d.rtx_checked, 10);
	rk_insp_tcp_fini(&d);
}

/* Overlaps with bytes still queued ahead of a hole, and queued bytes that
 * a later in-order segment covers, are compared too. */
static void
test_conflict_queued(void **state)
{
	struct rk_insp_tcp_dir d;
	struct sink s = { 0 };
	uint32_t isn = 0xfffffff0u;     /* across the 32-bit wrap */

	(void)state;
	rk_insp_tcp_init(&d, 0);
	rk_insp_tcp_segment(&d, isn, RK_INSP_TCP_SYN, NULL, 0, &ops, &s);
	seg(&d, &s, isn, 10, 6, RK_INSP_TCP_ACK);       /* "klmnop" queued */
	seg_bytes(&d, &s, isn, 12, "mNopqr", 6);        /* n differs */
	assert_int_equal(s.conflicts, 1);
	assert_int_equal(s.conflict_seq, isn + 1 + 13);
	assert_int_equal(s.conflict_n, 1);
	/* In order up to 14: its bytes 10..13 meet the queued copy; 12 differs. */
	seg_bytes(&d, &s, isn, 0, "abcdefghijkXmn", 14);
	assert_int_equal(s.conflicts, 2);
	assert_int_equal(s.conflict_seq, isn + 1 + 11);
	assert_int_equal(s.conflict_n, 1);
	assert_int_equal(s.len, 18);
	assert_memory_equal(s.out + 14, "opqr", 4);
	assert_int_equal(d.rtx_checked, d.rtx_bytes);
	rk_insp_tcp_fini(&d);
}

/* A segment exactly 2^31 behind next is behind it, far older than any
 * history: nothing compared (a signed 32-bit distance there wrapped and
 * read outside the ring). After the FIN the last data byte is still
 * compared, and the FIN's own sequence number holds no byte. */
static void
test_conflict_far_behind_and_fin(void **state)
{
	struct rk_insp_tcp_dir d;
	struct sink s = { 0 };
	uint32_t isn = 0x7ffffff0u;

	(void)state;
	rk_insp_tcp_init(&d, 0);
	rk_insp_tcp_segment(&d, isn, RK_INSP_TCP_SYN, NULL, 0, &ops, &s);
	seg(&d, &s, isn, 0, 10, RK_INSP_TCP_ACK);
	rk_insp_tcp_segment(&d, d.next - 0x80000000u, RK_INSP_TCP_ACK,
			    (const uint8_t *)"xxxxxxxx", 8, &ops, &s);
	assert_int_equal(s.conflicts, 0);
	assert_int_equal(d.rtx_checked, 0);
	assert_int_equal(d.rtx_segments, 1);
	seg(&d, &s, isn, 10, 2, RK_INSP_TCP_ACK | RK_INSP_TCP_FIN);     /* "kl" + FIN */
	assert_int_equal(s.ends, 1);
	seg_bytes(&d, &s, isn, 11, "Q?", 2);    /* 'l' changed, then the FIN's number */
	assert_int_equal(s.conflicts, 1);
	assert_int_equal(s.conflict_seq, isn + 1 + 11);
	assert_int_equal(s.conflict_n, 1);
	assert_int_equal(d.rtx_checked, 1);
	expect(&s, "abcdefghijkl");
	rk_insp_tcp_fini(&d);
	/* The same before any byte was delivered: no history at all. */
	memset(&s, 0, sizeof(s));
	rk_insp_tcp_init(&d, 0);
	rk_insp_tcp_segment(&d, isn, RK_INSP_TCP_SYN, NULL, 0, &ops, &s);
	rk_insp_tcp_segment(&d, d.next - 0x80000000u, RK_INSP_TCP_ACK,
			    (const uint8_t *)"xxxxxxxx", 8, &ops, &s);
	assert_int_equal(s.conflicts, 0);
	assert_int_equal(d.rtx_checked, 0);
	assert_null(d.hist);
	rk_insp_tcp_fini(&d);
}

/* Counting sink for long streams. */
static void
long_data(void *ctx, uint32_t seq, const uint8_t *p, uint32_t len)
{
	struct sink *s = ctx;

	(void)p;
	if (s->have_seq)
		assert_int_equal(seq, s->next_seq);
	s->have_seq = true;
	s->next_seq = seq + len;
	s->len += len;
}

static const struct rk_insp_tcp_ops long_ops = {
	.data = long_data,
	.gap = sink_gap,
	.conflict = sink_conflict,
};

/* Retransmit 1400 bytes around stream offset @p at with that byte changed:
 * exactly one conflict, at that byte. */
static void
conflict_at(struct rk_insp_tcp_dir *d, struct sink *s, uint32_t isn,
	    const uint8_t *stream, uint32_t at)
{
	uint8_t copy[1400];
	uint32_t off = at - 700;

	memcpy(copy, stream + off, sizeof(copy));
	copy[at - off] ^= 0x5a;
	s->conflicts = 0;
	rk_insp_tcp_segment(d, isn + 1 + off, 0, copy, sizeof(copy), &long_ops, s);
	assert_int_equal(s->conflicts, 1);
	assert_int_equal(s->conflict_seq, isn + 1 + at);
	assert_int_equal(s->conflict_n, 1);
}

/* The history grows with the stream, wraps as a ring once full, and
 * keeps the last RK_INSP_TCP_HISTORY_DEFAULT bytes: a change inside it is
 * found at its exact byte, an older one goes unchecked, a gap forgets it. */
static void
test_conflict_history_window(void **state)
{
	const uint32_t total = RK_INSP_TCP_HISTORY_DEFAULT + 40000, mss = 1460;
	uint8_t *stream = malloc(total), copy[2 * 1460];
	struct rk_insp_tcp_dir d;
	struct sink s = { 0 };
	uint32_t isn = 0xffff0000u, off;
	uint64_t checked;

	(void)state;
	assert_non_null(stream);
	for (uint32_t i = 0; i < total; i++)
		stream[i] = (uint8_t)rnd();
	rk_insp_tcp_init(&d, 0);
	rk_insp_tcp_segment(&d, isn, RK_INSP_TCP_SYN, NULL, 0, &long_ops, &s);
	for (off = 0; off < total; off += mss) {
		uint32_t n = total - off < mss ? total - off : mss;

		rk_insp_tcp_segment(&d, isn + 1 + off, 0, stream + off, n, &long_ops, &s);
		if (off == 14 * mss) {
			/* While it grows (4, 8, 16, 32 KiB so far): bytes moved
			 * by each growth step are still the stream's. */
			assert_int_equal(d.hist_cap, 32768);
			conflict_at(&d, &s, isn, stream, 4096);
			conflict_at(&d, &s, isn, stream, 8191);
			conflict_at(&d, &s, isn, stream, 16384 + 3);
		}
	}
	assert_int_equal(s.len, total);
	assert_int_equal(d.hist_cap, RK_INSP_TCP_HISTORY_DEFAULT);
	/* Full and wrapped: the ring's index 0 is at stream offset 65535 for
	 * this ISN; the oldest kept byte is at total - 256 KiB = 40000. */
	conflict_at(&d, &s, isn, stream, 65535);
	conflict_at(&d, &s, isn, stream, 65534);
	conflict_at(&d, &s, isn, stream, total - 700);
	conflict_at(&d, &s, isn, stream, 40000 + 17);
	/* Older than the history: not compared, not reported. */
	off = 1000;
	memcpy(copy, stream + off, 1400);
	copy[5] ^= 1;
	checked = d.rtx_checked;
	s.conflicts = 0;
	rk_insp_tcp_segment(&d, isn + 1 + off, 0, copy, 1400, &long_ops, &s);
	assert_int_equal(s.conflicts, 0);
	assert_int_equal(d.rtx_checked, checked);
	/* A hole the capture never fills: the bytes before it are forgotten. */
	rk_insp_tcp_lost(&d, isn + 1 + total, 500, &long_ops, &s);
	off = total - 1400;
	memcpy(copy, stream + off, 1400);
	copy[0] ^= 1;
	rk_insp_tcp_segment(&d, isn + 1 + off, 0, copy, 1400, &long_ops, &s);
	assert_int_equal(s.conflicts, 0);
	assert_int_equal(d.rtx_checked, checked);
	rk_insp_tcp_fini(&d);
	free(stream);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_order),
		cmocka_unit_test(test_full_duplicate),
		cmocka_unit_test(test_partial_overlap),
		cmocka_unit_test(test_out_of_order_fill),
		cmocka_unit_test(test_queued_overlaps),
		cmocka_unit_test(test_sequence_wrap),
		cmocka_unit_test(test_syn_data_and_fin),
		cmocka_unit_test(test_fin_out_of_order),
		cmocka_unit_test(test_rst_flushes),
		cmocka_unit_test(test_flush_at_end),
		cmocka_unit_test(test_buffer_limit_gap),
		cmocka_unit_test(test_peer_ack_declares_gap),
		cmocka_unit_test(test_ack_without_moving_on_waits),
		cmocka_unit_test(test_midstream_start),
		cmocka_unit_test(test_far_ahead_ignored),
		cmocka_unit_test(test_snaplen_cut_is_gap),
		cmocka_unit_test(test_data_past_fin_dropped),
		cmocka_unit_test(test_random_order_is_fast),
		cmocka_unit_test(test_adjacent_segments_coalesce),
		cmocka_unit_test(test_range_cap_gap),
		cmocka_unit_test(test_random_overlaps),
		cmocka_unit_test(test_conflict_behind_next),
		cmocka_unit_test(test_conflict_queued),
		cmocka_unit_test(test_conflict_history_window),
		cmocka_unit_test(test_conflict_far_behind_and_fin),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
