/* SPDX-License-Identifier: BSD-3-Clause */
/* The finding table: unique stable IDs, references, and the per-packet list. */
#include "rk_test.h"

#include "rk_finding.h"

static void
test_table_is_well_formed(void **state)
{
	(void)state;
	for (int i = 0; i < RK_F_COUNT; i++) {
		const struct rk_finding_info *f = rk_finding_info((enum rk_finding_id)i);

		assert_non_null(f);
		assert_non_null(f->id);
		assert_true(strlen(f->spec_ref) > 0);
		assert_true(strlen(f->text) > 0);
		assert_true(f->severity <= RK_SEV_ERROR);
		/* IDs are dotted lower case and unique. */
		for (const char *c = f->id; *c; c++)
			assert_true((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
				    *c == '.' || *c == '_');
		assert_non_null(strchr(f->id, '.'));
		assert_int_equal(rk_finding_lookup(f->id), i);
	}
	assert_null(rk_finding_info(RK_F_COUNT));
	assert_int_equal(rk_finding_lookup("no.such.finding"), -1);
	assert_string_equal(rk_finding_info(RK_F_ICRC_BAD)->id, "icrc.bad");
	assert_string_equal(rk_severity_name(RK_SEV_WARN), "warning");
}

static void
test_list_overflow_counts(void **state)
{
	struct rk_findings f = { 0 };

	(void)state;
	for (int i = 0; i < RK_FINDINGS_MAX + 3; i++)
		rk_findings_add(&f, RK_F_ICRC_BAD, (uint32_t)i);
	assert_int_equal(f.count, RK_FINDINGS_MAX);
	assert_int_equal(f.dropped, 3);
	assert_true(rk_findings_has(&f, RK_F_ICRC_BAD));
	assert_false(rk_findings_has(&f, RK_F_BTH_TVER));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_is_well_formed),
		cmocka_unit_test(test_list_overflow_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
