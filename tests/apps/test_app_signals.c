/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * apps/common's signal guard: the first SIGINT asks to stop and arms a
 * 3 s SIGALRM; a run that ends as planned on the signal (rk_app_stop_grace)
 * gets RK_APP_STOP_GRACE_S for its planned end. That end (0.5 s of
 * completions, up to 2 s serving the peer's last frames, the port's close
 * and its recording) took more than 3 s on a loaded machine, and SIGALRM
 * killed a run that had printed "result: ok" (exit 142).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <cmocka.h>

#include "rk_app.h"

static void
test_grace_covers_the_planned_end(void **state)
{
	(void)state;
	assert_int_equal(alarm(0), 0);
	rk_app_stop_grace();            /* no signal yet: nothing armed */
	assert_int_equal(alarm(0), 0);
	rk_app_signals();
	assert_int_equal(raise(SIGINT), 0);
	assert_int_equal(rk_app_stop, 1);
	assert_int_equal(alarm(0), 3);  /* the signal's guard */
	rk_app_stop_grace();
	assert_int_equal(alarm(0), RK_APP_STOP_GRACE_S);
	assert_true(RK_APP_STOP_GRACE_S >= 8);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grace_covers_the_planned_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
