/* SPDX-License-Identifier: BSD-3-Clause */
/* The DCQCN fluid model's fixed point against a value worked out by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "dcqcn_fluid.h"

/*
 * The paper's defaults with 1000-byte packets on 40 Gb/s: C = 5e6 pkt/s,
 * tau' = 50 us, T = 55 us, B = 10 MB = 10000 pkt, R_AI = 40 Mb/s = 5000
 * pkt/s, Kmin 5 KB = 5 pkt, Kmax 200 KB = 200 pkt, Pmax 1 %.
 */
static struct dcqcn_fluid_params defaults(unsigned int n)
{
	struct dcqcn_fluid_params p = {
		.C = 5e6, .N = n, .tau_p = 50e-6, .T = 55e-6, .B = 10000, .R_AI = 5000,
		.kmin = 5, .kmax = 200, .pmax = 0.01,
	};

	return p;
}

/*
 * For small p, a ~ tau' RC p and b ~ RC / B + 1 / T, so
 * p^3 ~ R_AI N^2 / (tau' C^2) * (1/B + N / (C T))^2. By hand for N = 2:
 *   R_AI N^2 / (tau' C^2) = 5000 * 4 / (50e-6 * 2.5e13) = 1.6e-5
 *   1/B + N/(C T) = 1e-4 + 2 / 275 = 0.0073727; squared 5.4357e-5
 *   p^3 = 8.697e-10, p = 9.546e-4; q = 5 + 0.09546 * 195 = 23.61 pkt.
 * N = 8: 1.6e-5 * 16 = 2.56e-4; 1e-4 + 8 / 275 = 0.029191, squared
 *   8.5212e-4; p^3 = 2.1814e-7, p = 6.020e-3; q = 5 + 0.602 * 195 = 122.4.
 */
static void test_fixed_point_by_hand(void **state)
{
	struct dcqcn_fluid_params pp = defaults(2);
	struct dcqcn_fluid_fp fp;

	(void)state;
	assert_int_equal(dcqcn_fluid_fixed_point(&pp, &fp), 0);
	print_message("# N=2: p* %.4g q* %.2f pkt, RT/RC %.4f, alpha %.4g\n", fp.p, fp.q,
		      fp.rt / fp.rc, fp.alpha);
	assert_true(fabs(fp.p - 9.546e-4) / 9.546e-4 < 0.02);
	assert_true(fabs(fp.q - 23.61) < 0.5);
	assert_true(fp.rc == 2.5e6);
	pp = defaults(8);
	assert_int_equal(dcqcn_fluid_fixed_point(&pp, &fp), 0);
	print_message("# N=8: p* %.4g q* %.2f pkt\n", fp.p, fp.q);
	assert_true(fabs(fp.p - 6.020e-3) / 6.020e-3 < 0.03);
	assert_true(fabs(fp.q - 122.4) < 4);
}

/* More flows, more marking: p* rises with N. */
static void test_monotonic_in_n(void **state)
{
	double last = 0;

	(void)state;
	for (unsigned int n = 1; n <= 20; n++) {
		struct dcqcn_fluid_params pp = defaults(n);
		struct dcqcn_fluid_fp fp;

		assert_int_equal(dcqcn_fluid_fixed_point(&pp, &fp), 0);
		assert_true(fp.p > last);
		last = fp.p;
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixed_point_by_hand),
		cmocka_unit_test(test_monotonic_in_n),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
