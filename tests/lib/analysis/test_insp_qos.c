/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of lib/analysis/rk_insp_qos.c: pause quanta in ns at a link rate,
 * PFC runs refreshed before expiry, resumed by 0 quanta, expired between
 * frames, storms past the threshold; 802.3x PAUSE apart from PFC; CE marks
 * answered by CNPs of the opposite direction (delays, p50, unprompted
 * CNPs); per-class counters; the marks of a parsed packet; flow marks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rk_insp_qos.h"
#include "rk_opcode.h"

#define GBPS 1000000000ull
#define MS 1000000ull
#define US 1000ull

static const uint8_t host_a[16] = { [10] = 0xff, [11] = 0xff, 198, 18, 0, 1 };
static const uint8_t host_b[16] = { [10] = 0xff, [11] = 0xff, 198, 18, 0, 2 };

static void
init(struct rk_insp_qos *q, uint64_t link_bps, uint64_t storm_ns)
{
	struct rk_insp_qos_opts o = { .link_bps = link_bps, .storm_ns = storm_ns };

	assert_int_equal(rk_insp_qos_init(q, &o), 0);
}

static void
pfc(struct rk_insp_qos *q, uint8_t prio, uint16_t quanta, uint64_t ts)
{
	uint16_t v[8] = { 0 };

	v[prio] = quanta;
	rk_insp_qos_pause(q, true, (uint8_t)(1u << prio), v, ts);
}

static void
test_pause_ns(void **state)
{
	(void)state;
	/* 512 bit times per quantum (IEEE 802.3 Annex 31B). */
	assert_int_equal(rk_insp_pause_ns(65535, 100 * GBPS), 335539); /* 335539.2 */
	assert_int_equal(rk_insp_pause_ns(65535, 1 * GBPS), 33553920);
	assert_int_equal(rk_insp_pause_ns(1, 10 * GBPS), 51);
	assert_int_equal(rk_insp_pause_ns(0, 100 * GBPS), 0);
	assert_int_equal(rk_insp_pause_ns(100, 0), 0);
}

/* 20 PFC frames 10 ms apart on priority 3, each asking 33.55392 ms at 1 Gb/s. */
static void
pfc_train(struct rk_insp_qos *q, uint64_t storm_ns)
{
	init(q, 1 * GBPS, storm_ns);
	for (uint64_t i = 0; i < 20; i++)
		pfc(q, 3, 0xffff, i * 10 * MS);
	rk_insp_qos_finish(q);
}

static void
test_pfc_storm(void **state)
{
	struct rk_insp_qos q;

	(void)state;
	/* Each frame comes before the previous pause expires: one run. */
	pfc_train(&q, 100 * MS);
	assert_int_equal(q.pause[3].frames, 20);
	assert_int_equal(q.pause[3].quanta, 20 * 0xffffull);
	assert_int_equal(q.pause[3].paused_ns, 190 * MS + 33553920);
	assert_int_equal(q.pause[3].longest_ns, 190 * MS + 33553920);
	assert_int_equal(q.pause[3].storms, 1);
	assert_int_equal(q.pause[3].storm_start_ns, 0);
	for (int i = 0; i < 9; i++)
		if (i != 3)
			assert_int_equal(q.pause[i].frames, 0);
	rk_insp_qos_fini(&q);

	/* The same under a 300 ms threshold: no storm. */
	pfc_train(&q, 300 * MS);
	assert_int_equal(q.pause[3].storms, 0);
	rk_insp_qos_fini(&q);
}

static void
test_pfc_resume_and_expiry(void **state)
{
	struct rk_insp_qos q;
	uint16_t v[8] = { 500, 0, 0, 0, 0, 0, 0, 1000 };

	(void)state;
	init(&q, 1 * GBPS, 100 * MS);
	/* Priority 0 has time but its enable bit is clear: not acted on. */
	rk_insp_qos_pause(&q, true, 0x80, v, 0);
	/* 1000 quanta = 512 us at 1 Gb/s, resumed after 100 us. */
	pfc(&q, 7, 0, 100 * US);
	assert_int_equal(q.pause[0].frames, 0);
	assert_int_equal(q.pause[7].frames, 2);
	assert_int_equal(q.pause[7].xon, 1);
	assert_int_equal(q.pause[7].paused_ns, 100 * US);
	assert_false(q.pause[7].paused);
	/* Two pauses of 100 quanta (51.2 us) 1 ms apart: two runs. */
	pfc(&q, 2, 100, 1 * MS);
	pfc(&q, 2, 100, 2 * MS);
	rk_insp_qos_finish(&q);
	assert_int_equal(q.pause[2].paused_ns, 2 * 51200);
	assert_int_equal(q.pause[2].longest_ns, 51200);
	assert_int_equal(q.pause[2].storms, 0);
	rk_insp_qos_fini(&q);
}

static void
test_link_pause(void **state)
{
	struct rk_insp_qos q;
	const uint16_t v[8] = { [0] = 0xffff };   /* PAUSE: one time, for the link */

	(void)state;
	init(&q, 0, 0);   /* defaults: 100 Gb/s, 100 ms */
	assert_int_equal(q.opts.link_bps, 100 * GBPS);
	assert_int_equal(q.opts.storm_ns, 100 * MS);
	rk_insp_qos_pause(&q, false, 0, v, 5 * US);
	rk_insp_qos_finish(&q);
	assert_int_equal(q.pause[RK_INSP_QOS_LINK_PAUSE].frames, 1);
	assert_int_equal(q.pause[RK_INSP_QOS_LINK_PAUSE].paused_ns, 335539);
	assert_int_equal(q.pause[0].frames, 0);
	assert_true(rk_insp_qos_any(&q));
	rk_insp_qos_fini(&q);
}

static const struct rk_insp_qos_marks ect0 = { .has_ip = true, .dscp = 26, .ecn = 2,
						.tagged = true, .pcp = 3, .vid = 10 };
static const struct rk_insp_qos_marks ce = { .has_ip = true, .dscp = 26, .ecn = 3,
					      .tagged = true, .pcp = 3, .vid = 10 };
static const struct rk_insp_qos_marks cnp = { .has_ip = true, .dscp = 48,
					       .tagged = true, .pcp = 6, .vid = 10 };

static void
test_ce_to_cnp(void **state)
{
	struct rk_insp_qos q;
	const struct rk_insp_cong *c;
	uint64_t before, after;

	(void)state;
	init(&q, 0, 0);
	/* Data A -> B every 10 us, 1000 bytes; CE at 30, 620, 630 us. */
	for (uint64_t i = 0; i < 200; i++) {
		uint64_t t = i * 10 * US;
		bool mark = i == 3 || i == 62 || i == 63;

		/* CNPs B -> A at 0, 500 and 1000 us, before that time's data. */
		if (i % 50 == 0 && i <= 100)
			rk_insp_qos_packet(&q, NULL, host_b, host_a, &cnp, RK_INSP_QOS_CNP, 78, t);
		rk_insp_qos_packet(&q, NULL, host_a, host_b, mark ? &ce : &ect0, RK_INSP_QOS_DATA,
				   1000, t);
	}
	/* ACKs B -> A: their own pair, no CE, no CNP. */
	rk_insp_qos_packet(&q, NULL, host_b, host_a, &ect0, RK_INSP_QOS_ACK, 62, 2 * MS);
	assert_int_equal(q.npairs, 2);
	c = q.head;
	assert_memory_equal(c->src, host_a, 16);
	assert_memory_equal(c->dst, host_b, 16);
	{
		/* packets, ECT, CE, CNPs, of which unprompted, delays */
		const uint64_t got[6] = { c->packets, c->ect, c->ce, c->cnps,
					  c->cnps_unprompted, c->delay.n };
		const uint64_t want[6] = { 200, 197, 3, 3, 1, 2 };

		assert_memory_equal(got, want, sizeof(want));
	}
	assert_int_equal(c->delay.v[0], 470 * US);
	assert_int_equal(c->delay.v[1], 380 * US);
	assert_int_equal(rk_insp_delays_pct(&c->delay, 50), 380 * US);
	assert_int_equal(rk_insp_delays_max(&c->delay), 470 * US);
	assert_false(c->ce_pending);
	/* The first CNP came at 0, with the first packet: no window before. */
	assert_false(rk_insp_cong_rates(c, &before, &after));
	c = c->next;
	assert_int_equal(c->cnps + c->ce, 0);
	/* Totals and classes. */
	assert_int_equal(q.cnps, 3);
	assert_int_equal(q.ce, 3);
	assert_int_equal(q.ecn[2], 198);
	assert_int_equal(q.ecn[0], 3);
	assert_int_equal(q.pcp[3].data, 200);
	assert_int_equal(q.pcp[3].acks, 1);
	assert_int_equal(q.pcp[3].ce, 3);
	assert_int_equal(q.pcp[6].cnps, 3);
	assert_int_equal(q.dscp[26].data, 200);
	assert_int_equal(q.dscp[26].bytes, 200 * 1000 + 62);
	assert_int_equal(q.dscp[48].cnps, 3);
	assert_int_equal(q.pcp[RK_INSP_QOS_UNTAGGED].data, 0);
	rk_insp_qos_fini(&q);
}

/* One packet through both calls, as rk-inspect makes them. */
static void
pkt(struct rk_insp_qos *q, struct rk_insp_flow_qos *fq, const uint8_t *src,
    const uint8_t *dst, const struct rk_insp_qos_marks *m, enum rk_insp_qos_role role,
    uint32_t psn, uint64_t ts)
{
	rk_insp_qos_packet(q, fq, src, dst, m, role, 100, ts);
	rk_insp_qos_flow(q, fq, src, dst, m, role, psn, ts);
}

static void
test_flow_pairing(void **state)
{
	struct rk_insp_qos q;
	/* Data A -> B on two QPs; ACKs and CNPs B -> A on the QPs of A. */
	struct rk_insp_flow_qos d1 = { 0 }, d2 = { 0 }, back1 = { 0 }, back2 = { 0 };

	(void)state;
	init(&q, 0, 0);
	pkt(&q, &d1, host_a, host_b, &ce, RK_INSP_QOS_DATA, 100, 10 * US);
	/* A CNP before any ACK ties its QP: counted apart. */
	pkt(&q, &back1, host_b, host_a, &cnp, RK_INSP_QOS_CNP, 0, 20 * US);
	assert_int_equal(back1.cnps_unpaired, 1);
	assert_int_equal(d1.cnps, 0);
	pkt(&q, &d2, host_a, host_b, &ect0, RK_INSP_QOS_DATA, 5000, 30 * US);
	/* An ACK of d1's PSN while d2 was last: not tied (PSN far off). */
	pkt(&q, &back1, host_b, host_a, &ect0, RK_INSP_QOS_ACK, 100, 40 * US);
	assert_null(back1.peer);
	pkt(&q, &d1, host_a, host_b, &ect0, RK_INSP_QOS_DATA, 101, 50 * US);
	pkt(&q, &back1, host_b, host_a, &ect0, RK_INSP_QOS_ACK, 100, 60 * US);
	assert_ptr_equal(back1.peer, &d1);
	/* d2's ACK: PSN 5000 while d1 (PSN 101) was last: not tied yet. */
	pkt(&q, &back2, host_b, host_a, &ect0, RK_INSP_QOS_ACK, 5000, 70 * US);
	assert_null(back2.peer);
	/* The CNP answers d1's mark at 10 us. */
	pkt(&q, &back1, host_b, host_a, &cnp, RK_INSP_QOS_CNP, 0, 110 * US);
	assert_int_equal(d1.cnps, 1);
	assert_int_equal(d1.delay.n, 1);
	assert_int_equal(d1.delay.v[0], 100 * US);
	assert_false(d1.ce_pending);
	/* A second CNP: nothing pending on d1. */
	pkt(&q, &back1, host_b, host_a, &cnp, RK_INSP_QOS_CNP, 0, 120 * US);
	assert_int_equal(d1.cnps_unprompted, 1);
	assert_int_equal(d2.cnps + d2.delay.n, 0);
	/* Per host pair all three CNPs count, the first one unprompted. */
	assert_int_equal(q.head->cnps, 3);
	assert_int_equal(q.head->delay.n, 1);
	rk_insp_flow_qos_fini(&d1);
	assert_null(d1.delay.v);
	rk_insp_qos_fini(&q);
}

static void
test_sender_rates(void **state)
{
	struct rk_insp_qos q;
	uint64_t before, after;

	(void)state;
	init(&q, 0, 0);
	/* 1250 bytes every 1 us = 10 Gb/s; after the CNP every 2 us = 5 Gb/s. */
	for (uint64_t i = 0; i < 100; i++)
		rk_insp_qos_packet(&q, NULL, host_a, host_b, &ce, RK_INSP_QOS_DATA, 1250, i * US);
	rk_insp_qos_packet(&q, NULL, host_b, host_a, &cnp, RK_INSP_QOS_CNP, 78, 100 * US);
	for (uint64_t i = 1; i <= 100; i++)
		rk_insp_qos_packet(&q, NULL, host_a, host_b, &ect0, RK_INSP_QOS_DATA, 1250,
				   100 * US + i * 2 * US);
	assert_true(rk_insp_cong_rates(q.head, &before, &after));
	assert_int_equal(before, 10 * GBPS);
	assert_int_equal(after, 5 * GBPS);
	/* The CNP answered the first CE, 100 us before it. */
	assert_int_equal(q.head->delay.n, 1);
	assert_int_equal(q.head->delay.v[0], 100 * US);
	rk_insp_qos_fini(&q);
}

static void
test_delays_pct(void **state)
{
	uint64_t v[5] = { 5, 1, 3, 2, 4 };
	struct rk_insp_delays d = { .v = v, .n = 5, .cap = 5 };
	struct rk_insp_delays none = { 0 };

	(void)state;
	assert_int_equal(rk_insp_delays_pct(&d, 50), 3);
	assert_int_equal(rk_insp_delays_pct(&d, 100), 5);
	assert_int_equal(rk_insp_delays_pct(&d, 1), 1);
	assert_int_equal(rk_insp_delays_pct(&d, 0), 0);
	assert_int_equal(rk_insp_delays_max(&d), 5);
	assert_int_equal(v[0], 5);   /* sorted a copy */
	assert_int_equal(rk_insp_delays_pct(&none, 50), 0);
	assert_int_equal(rk_insp_delays_max(&none), 0);
}

static void
test_marks_and_roles(void **state)
{
	struct rk_pkt pkt;
	struct rk_insp_qos_marks m;
	struct rk_insp_flow_qos fq = { 0 };
	struct rk_insp_qos_marks other = ect0;

	(void)state;
	memset(&pkt, 0, sizeof(pkt));
	pkt.n_vlan = 2;
	pkt.vlan_tci[0] = 5u << 13 | 0x123;   /* outer tag: PCP 5, VID 0x123 */
	pkt.vlan_tci[1] = 1u << 13 | 7;
	pkt.layers = RK_L_ETH | RK_L_VLAN | RK_L_IPV4;
	pkt.dscp = 46;
	pkt.ecn = 3;
	rk_insp_qos_marks_of(&m, &pkt);
	assert_true(m.tagged);
	assert_int_equal(m.pcp, 5);
	assert_int_equal(m.vid, 0x123);
	assert_true(m.has_ip);
	assert_int_equal(m.dscp, 46);
	assert_int_equal(m.ecn, RK_INSP_ECN_CE);
	pkt.n_vlan = 0;
	pkt.layers = RK_L_LRH;    /* native IB, no GRH: no DSCP or ECN */
	rk_insp_qos_marks_of(&m, &pkt);
	assert_false(m.tagged);
	assert_false(m.has_ip);

	assert_int_equal(rk_insp_qos_role_of(RK_OPF_VALID | RK_OPF_CNP), RK_INSP_QOS_CNP);
	assert_int_equal(rk_insp_qos_role_of(RK_OPF_VALID | RK_OPF_RESP | RK_OPF_ACK),
			 RK_INSP_QOS_ACK);
	assert_int_equal(rk_insp_qos_role_of(RK_OPF_VALID | RK_OPF_RESP | RK_OPF_ATOMIC_ACK),
			 RK_INSP_QOS_ACK);
	assert_int_equal(rk_insp_qos_role_of(RK_OPF_VALID | RK_OPF_RESP | RK_OPF_READ_RESP),
			 RK_INSP_QOS_DATA);

	rk_insp_flow_qos_add(&fq, &ect0);
	rk_insp_flow_qos_add(&fq, &ce);      /* same class, other ECN */
	other.dscp = 10;
	rk_insp_flow_qos_add(&fq, &other);   /* another class */
	assert_int_equal(fq.first.dscp, 26);
	assert_int_equal(fq.changed, 1);
	assert_int_equal(fq.ecn[2], 2);
	assert_int_equal(fq.ecn[3], 1);
}

static void
test_nothing_to_report(void **state)
{
	struct rk_insp_qos q;
	const struct rk_insp_qos_marks plain = { .has_ip = true };

	(void)state;
	init(&q, 0, 0);
	rk_insp_qos_packet(&q, NULL, host_a, host_b, &plain, RK_INSP_QOS_DATA, 100, 0);
	assert_false(rk_insp_qos_any(&q));
	rk_insp_qos_fini(&q);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pause_ns),
		cmocka_unit_test(test_pfc_storm),
		cmocka_unit_test(test_pfc_resume_and_expiry),
		cmocka_unit_test(test_link_pause),
		cmocka_unit_test(test_ce_to_cnp),
		cmocka_unit_test(test_flow_pairing),
		cmocka_unit_test(test_sender_rates),
		cmocka_unit_test(test_delays_pct),
		cmocka_unit_test(test_marks_and_roles),
		cmocka_unit_test(test_nothing_to_report),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
