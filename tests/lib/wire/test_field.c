/* SPDX-License-Identifier: BSD-3-Clause */
/* Field descriptor tables of the IBA headers: coverage and neighbour safety. */
#include "rk_field_check.h"

#include "rk_bth.h"
#include "rk_eth.h"
#include "rk_ipv4.h"
#include "rk_ipv6.h"
#include "rk_tcp_hdr.h"
#include "rk_udp.h"
#include "rk_xeth.h"

static const struct rk_header_desc *const descs[] = {
	&rk_bth_desc, &rk_rdeth_desc, &rk_deth_desc, &rk_xrceth_desc, &rk_feth_desc,
	&rk_reth_desc, &rk_atmeth_desc, &rk_aeth_desc, &rk_atmack_desc,
	&rk_immdt_desc, &rk_ieth_desc,
};

static const struct rk_header_desc *const l2l4_descs[] = {
	&rk_eth_desc, &rk_vlan_desc, &rk_ipv4_desc, &rk_ipv6_desc, &rk_udp_desc, &rk_tcp_desc,
};

static void
test_every_ib_header_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(descs) / sizeof(descs[0]); i++)
		rk_test_header_desc(descs[i], 64);
}

static void
test_every_l2l4_header_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(l2l4_descs) / sizeof(l2l4_descs[0]); i++)
		rk_test_header_desc(l2l4_descs[i], 64);
}

static void
test_generic_get_set(void **state)
{
	/* A 12-bit field straddling two bytes, little- and big-endian. */
	const struct rk_field be = { "X", "x", 1, 2, 0, 0x0fff, "test" };
	const struct rk_field le = { "Y", "y", 0, 4, 0, 0xffffffff, "test" };
	struct rk_field le4 = le;
	uint8_t h[4] = { 0xaa, 0xbb, 0xcc, 0xdd };

	(void)state;
	assert_int_equal(rk_field_get(&be, h), 0xbcc);
	rk_field_set(&be, h, 0x123);
	assert_int_equal(h[0], 0xaa);
	assert_int_equal(h[1], 0xb1);
	assert_int_equal(h[2], 0x23);
	assert_int_equal(h[3], 0xdd);
	le4.le = 1;
	rk_field_set(&le4, h, 0x01020304);
	assert_int_equal(h[0], 0x04);
	assert_int_equal(h[3], 0x01);
	assert_int_equal(rk_field_get(&le4, h), 0x01020304);
	assert_int_equal(rk_field_width(&be), 12);
	assert_ptr_equal(rk_header_field(&rk_bth_desc, "PSN"), rk_header_field(&rk_bth_desc, "psn"));
	assert_null(rk_header_field(&rk_bth_desc, "nope"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_ib_header_table),
		cmocka_unit_test(test_every_l2l4_header_table),
		cmocka_unit_test(test_generic_get_set),
	};

	rk_test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
