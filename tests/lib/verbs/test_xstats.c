/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The counter registry (rk_xstats.h): every table covers its struct with
 * distinct names and in-bounds, distinct offsets; reading, printing and
 * JSON give each counter's value under its name; rk_counters_from_stats()
 * lists the engine table.
 */
#include "rk_test.h"

#include <stdio.h>

#include "rk_ib_reason.h"
#include "rk_ib_xstats.h"
#include "rk_iw_xstats.h"
#include "rk_sim.h"
#include "rk_sim_switch.h"
#include "rk_sim_xstats.h"
#include "rk_verbs.h"
#if __has_include(<jansson.h>)
#include "rk_xstats_json.h"
#define HAVE_JANSSON 1
#endif

static const struct rk_xstat_table *const tables[] = {
	&rk_ib_xstats, &rk_ib_reason_xstats, &rk_iw_xstats, &rk_sim_link_xstats,
	&rk_sim_switch_xstats,
};

static void
test_tables_well_formed(void **state)
{
	(void)state;
	for (unsigned int t = 0; t < sizeof(tables) / sizeof(tables[0]); t++) {
		const struct rk_xstat_table *x = tables[t];

		assert_true(x->n > 0);
		for (unsigned int i = 0; i < x->n; i++) {
			assert_true(x->desc[i].off + 8 <= x->size);
			assert_int_equal(x->desc[i].off % 8, 0);
			assert_int_equal(rk_xstats_find(x, x->desc[i].name), (int)i);
			for (unsigned int j = 0; j < i; j++)
				assert_true(x->desc[j].off != x->desc[i].off);
		}
		assert_int_equal(rk_xstats_find(x, "no such counter"), -1);
	}
	/* Every field of these structs is named. */
	assert_int_equal(rk_iw_xstats.n * 8, sizeof(struct rk_iw_stats));
	assert_int_equal(rk_sim_link_xstats.n * 8, sizeof(struct rk_sim_link_stats));
	assert_int_equal(rk_sim_switch_xstats.n * 8, sizeof(struct rk_sw_prio_stats));
}

/* Each counter reads back the value of its own field. */
static void
test_read_and_print(void **state)
{
	struct rk_sim_link_stats s = { 0 };
	struct rk_xstat out[32] = { { 0 } };
	char buf[1024] = { 0 };
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");
	unsigned int n;

	(void)state;
	for (unsigned int i = 0; i < rk_sim_link_xstats.n; i++)
		memcpy((uint8_t *)&s + rk_sim_link_xstats.desc[i].off, &(uint64_t){ 100 + i }, 8);
	n = rk_xstats_read(&rk_sim_link_xstats, &s, out, 32);
	assert_int_equal(n, rk_sim_link_xstats.n);
	assert_string_equal(out[0].name, "sent");
	assert_int_equal(out[0].value, s.sent);
	assert_string_equal(out[7].name, "periodic");
	assert_int_equal(out[7].value, s.periodic_drops);
	assert_int_equal(rk_xstats_read(&rk_sim_link_xstats, &s, out, 3), 3);
	assert_non_null(f);
	rk_xstats_print_inline(f, &rk_sim_link_xstats, &s);
	fclose(f);
	/* The detail counter (bytes-sent) is not on the one-line summary. */
	assert_string_equal(buf, " sent 100 delivered 101 lost 102 dup 103 reordered 104 "
				 "corrupted 105 mtu-drops 106 periodic 107 overflow 108 "
				 "rx-dropped 109 in-flight 110");
	f = fmemopen(buf, sizeof(buf) - 1, "w");
	memset(&s, 0, sizeof(s));
	s.lost = 7;
	rk_xstats_print(f, &rk_sim_link_xstats, &s, "  ", 8, 1);
	fclose(f);
	assert_string_equal(buf, "  lost     7\n");
}

/* rk_counters_from_stats: the engine table, in its order, with the fields' values. */
static void
test_counters_from_stats(void **state)
{
	struct rk_ib_stats s = { 0 };
	struct rk_counter c[64];
	unsigned int n;

	(void)state;
	s.resp_nak_seq = 3;
	s.rx_drop_addr = 9;
	s.rp_cnp_ignored = 4;
	n = rk_counters_from_stats(&s, c, 64);
	assert_int_equal(n, rk_ib_xstats.n);
	assert_string_equal(c[0].name, "out_of_sequence");
	assert_int_equal(c[0].value, 3);
	/* rdmakit's own, then the DCQCN counters (mlx5 names) last. */
	assert_string_equal(c[n - 5].name, "rx_dropped_addr");
	assert_int_equal(c[n - 5].value, 9);
	assert_string_equal(c[n - 1].name, "rp_cnp_ignored");
	assert_int_equal(c[n - 1].value, 4);
	assert_int_equal(rk_counters_from_stats(&s, c, 2), 2);
}

static void
test_json(void **state)
{
	(void)state;
#ifdef HAVE_JANSSON
	struct rk_iw_stats w = { .rx_bytes = 5, .term_rcvd = 1 };
	json_t *o = json_object();

	assert_int_equal(rk_xstats_json(o, &rk_iw_xstats, &w), 0);
	assert_int_equal(json_object_size(o), rk_iw_xstats.n);
	assert_int_equal(json_integer_value(json_object_get(o, "stream_rx_bytes")), 5);
	assert_int_equal(json_integer_value(json_object_get(o, "terminate_rcvd")), 1);
	assert_int_equal(json_integer_value(json_object_get(o, "tx_fpdus")), 0);
	json_decref(o);
#else
	skip();
#endif
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables_well_formed),
		cmocka_unit_test(test_read_and_print),
		cmocka_unit_test(test_counters_from_stats),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
