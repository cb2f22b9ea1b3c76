/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pre-filter of lib/impair: it never turns away a frame a rule
 * matches, whatever the kind of rule, and turns away the frames no rule
 * can take (the io-speed path of a forwarder with rules on a few QPs).
 */
#include "rk_test.h"

#include <stdbool.h>

#include "rk_impair.h"

enum kind { ROCE4, ROCE6, ROCE_VLAN, UDP_OTHER, TCP, ARP };

/* A frame of @p k in @p f (100 bytes): RoCEv2 ones carry the BTH fields. */
static void
frame(uint8_t *f, enum kind k, uint8_t opcode, uint32_t qpn, uint32_t psn)
{
	uint32_t ip = k == ROCE_VLAN ? 18 : 14, udp = k == ROCE6 ? ip + 40 : ip + 20, bth = udp + 8;

	memset(f, 0, 100);
	if (k == ROCE_VLAN)
		f[12] = 0x81, f[16] = 0x08;
	else if (k == ROCE6)
		f[12] = 0x86, f[13] = 0xdd;
	else
		f[12] = 0x08, f[13] = k == ARP ? 0x06 : 0x00;
	if (k == ARP)
		return;
	if (k == ROCE6) {
		f[ip] = 0x60, f[ip + 6] = 17;
	} else {
		f[ip] = 0x45, f[ip + 9] = k == TCP ? 6 : 17;
	}
	f[udp + 2] = k == UDP_OTHER ? 0x04 : 4791 >> 8;
	f[udp + 3] = k == UDP_OTHER ? 0x00 : 4791 & 0xff;
	f[bth] = opcode;
	f[bth + 5] = (uint8_t)(qpn >> 16), f[bth + 6] = (uint8_t)(qpn >> 8), f[bth + 7] = (uint8_t)qpn;
	f[bth + 9] = (uint8_t)(psn >> 16), f[bth + 10] = (uint8_t)(psn >> 8), f[bth + 11] = (uint8_t)psn;
}

static bool
may(const struct rk_impair_filter *flt, const uint8_t *f)
{
	uint8_t proto;
	const uint8_t *bth = rk_impair_bth(f, 100, &proto);

	return rk_impair_filter_may(flt, proto, bth);
}

/* Rules of every kind, each alone and all together. */
static const struct rk_impair_match kinds[] = {
	{ 0 },
	{ .ip_proto = 6 },
	{ .ip_proto = 17 },
	{ .ip_proto = 17, .by_qp = true, .qp_min = 0x101, .qp_max = 0x101 },
	{ .by_qp = true, .qp_min = 0x10, .qp_max = 0x1f },
	{ .by_qp = true, .qp_min = 0xfffff0, .qp_max = 0xffffffff },
	{ .by_opcode = true, .opcode_min = 0x0c, .opcode_max = 0x10 },
	{ .by_opcode = true, .opcode_min = 0x81, .opcode_max = 0x81 },
	{ .by_psn = true, .psn_min = 0xfffff0, .psn_max = 0x10 },
	{ .by_qp = true, .qp_min = 0x11, .qp_max = 0x11, .by_opcode = true, .opcode_min = 4,
	  .opcode_max = 4, .by_psn = true, .psn_min = 100, .psn_max = 200 },
};
#define NK (sizeof(kinds) / sizeof(kinds[0]))

/* Every frame some rule of @p rules matches passes the filter. */
static void
check_never_skips(const struct rk_impair_rule *rules, unsigned int n, unsigned int *matched)
{
	static const uint32_t qps[] = { 0, 0x10, 0x11, 0x1f, 0x20, 0x100, 0x101, 0xfffff0, 0xffffff };
	static const uint32_t psns[] = { 0, 5, 0x10, 0x11, 150, 0xffffef, 0xfffff0 };
	struct rk_impair_filter flt;
	uint8_t f[100];

	rk_impair_filter_init(&flt, rules, n);
	for (int k = ROCE4; k <= ARP; k++)
		for (unsigned int op = 0; op < 256; op++)
			for (unsigned int q = 0; q < sizeof(qps) / sizeof(qps[0]); q++)
				for (unsigned int p = 0; p < sizeof(psns) / sizeof(psns[0]); p++) {
					bool any = false;

					frame(f, (enum kind)k, (uint8_t)op, qps[q], psns[p]);
					for (unsigned int r = 0; r < n && !any; r++)
						any = rk_impair_match_frame(&rules[r].match, f, 100);
					if (any) {
						++*matched;
						assert_true(may(&flt, f));
					}
				}
}

static void
test_never_skips_a_match(void **state)
{
	struct rk_impair_rule rules[NK];

	(void)state;
	memset(rules, 0, sizeof(rules));
	for (unsigned int i = 0; i < NK; i++) {
		unsigned int matched = 0;

		rules[i].match = kinds[i];
		check_never_skips(&rules[i], 1, &matched);
		assert_true(matched > 0);       /* each kind took some frame */
	}
	for (unsigned int i = 1; i <= NK; i++) {
		unsigned int matched = 0;

		check_never_skips(rules + NK - i, i, &matched);
	}
}

/* The bench's rule set: 8 QPs, drop-every; UDP to another port, TCP, ARP and other QPs pass. */
static void
test_skips_frames_of_no_rule(void **state)
{
	struct rk_impair_rule rules[9];
	struct rk_impair_filter flt;
	struct rk_impair *st;
	struct rk_impair_verdict v;
	uint8_t f[100];

	(void)state;
	memset(rules, 0, sizeof(rules));
	for (unsigned int i = 0; i < 8; i++) {
		rules[i].match.ip_proto = 17;
		rules[i].match.by_qp = true;
		rules[i].match.qp_min = rules[i].match.qp_max = 0x101 + i;
		rules[i].drop_every = 2;
	}
	rk_impair_filter_init(&flt, rules, 8);
	assert_false(flt.every);
	assert_true(flt.roce);
	assert_int_equal(flt.qp_min, 0x101);
	assert_int_equal(flt.qp_max, 0x108);
	for (int k = UDP_OTHER; k <= ARP; k++) {
		frame(f, (enum kind)k, 4, 0x101, 0);
		assert_false(may(&flt, f));
	}
	frame(f, ROCE4, 4, 0x100, 0);
	assert_false(may(&flt, f));
	frame(f, ROCE6, 4, 0x109, 0);
	assert_false(may(&flt, f));
	frame(f, ROCE_VLAN, 4, 0x108, 0);
	assert_true(may(&flt, f));
	/* opcodes: only those of the rules */
	rules[8].match.by_qp = true, rules[8].match.qp_min = 0x200, rules[8].match.qp_max = 0x200;
	rules[8].match.by_opcode = true, rules[8].match.opcode_min = 0x0d;
	rules[8].match.opcode_max = 0x0d;
	for (unsigned int i = 0; i < 8; i++)
		rules[i].match.by_opcode = true, rules[i].match.opcode_min = 4,
		rules[i].match.opcode_max = 6;
	rk_impair_filter_init(&flt, rules, 9);
	frame(f, ROCE4, 0x0d, 0x105, 0);
	assert_true(may(&flt, f));      /* a summary: the QP of one rule, the opcode of another */
	frame(f, ROCE4, 0x0e, 0x105, 0);
	assert_false(may(&flt, f));
	frame(f, ROCE4, 0x03, 0x105, 0);
	assert_false(may(&flt, f));
	/* the stage decides as before: the filter only shortens the walk */
	st = rk_impair_create(rules, 9);
	assert_non_null(st);
	frame(f, ROCE4, 0x0d, 0x105, 0);
	rk_impair_decide(st, f, 100, &v);
	assert_int_equal(v.rule, -1);
	assert_int_equal(v.copies, 1);
	frame(f, ROCE4, 0x05, 0x105, 0);
	rk_impair_decide(st, f, 100, &v);
	assert_int_equal(v.rule, 4);
	frame(f, ROCE4, 0x0d, 0x200, 0);
	rk_impair_decide(st, f, 100, &v);
	assert_int_equal(v.rule, 8);
	rk_impair_destroy(st);
}

/* No stage, no rule, or rules that can match nothing: the filter takes nothing. */
static void
test_takes_nothing(void **state)
{
	struct rk_impair_rule r[2];
	struct rk_impair_filter flt;
	uint8_t f[100];

	(void)state;
	memset(r, 0, sizeof(r));
	r[0].match.by_qp = true, r[0].match.qp_min = 5, r[0].match.qp_max = 4;
	r[1].match.by_opcode = true, r[1].match.opcode_min = 9, r[1].match.opcode_max = 8;
	rk_impair_filter_init(&flt, r, 2);
	frame(f, ROCE4, 8, 4, 0);
	assert_false(may(&flt, f));
	assert_false(may(rk_impair_filter_of(NULL), f));
	rk_impair_filter_init(&flt, NULL, 0);
	assert_false(may(&flt, f));
	/* a rule on TCP alone takes TCP, not RoCE */
	r[0].match = (struct rk_impair_match){ .ip_proto = 6 };
	rk_impair_filter_init(&flt, r, 1);
	assert_false(may(&flt, f));
	frame(f, TCP, 0, 0, 0);
	assert_true(may(&flt, f));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_never_skips_a_match),
		cmocka_unit_test(test_skips_frames_of_no_rule),
		cmocka_unit_test(test_takes_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
