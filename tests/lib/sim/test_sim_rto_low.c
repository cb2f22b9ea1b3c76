/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Selective repeat's RTO_low (rk_ib_qp_set_rto_low; IRN, Mittal et al.,
 * SIGCOMM 2018, section 3.1) over the simulated link on the virtual
 * clock, with chosen request frames lost: a resend lost again with few
 * PSNs outstanding is sent again after RTO_low, not after the QP's local
 * ACK timeout; with more than N outstanding the timer waits the long
 * timeout, and with exactly N the short one; once per progress.
 */
#include "rk_test.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rk_bth.h"
#include "rk_sim_wl.h"
#include "rk_xeth.h"

#define TIMEOUT 12              /* 4.096 us x 2^12: 16.8 ms, the long timeout */
#define BTH_OFF 42              /* Ethernet, IPv4, UDP */
#define MAX_SENDS 8

/* Request PSNs relative to the first one sent: how often each is lost, when each went out. */
struct plan {
	bool have_first;
	uint32_t first_psn;
	unsigned int lose[16];          /* first copies of PSN first + i to lose */
	unsigned int sent[16];
	uint64_t at[16][MAX_SENDS];
};

static bool
drop(void *ctx, unsigned int dir, uint64_t ts, const uint8_t *f, uint32_t len)
{
	struct plan *p = ctx;
	uint32_t i, psn;

	if (dir != 0 || len < BTH_OFF + 12)
		return false;
	psn = rk_bth_psn(f + BTH_OFF);
	if (!p->have_first) {
		p->have_first = true;
		p->first_psn = psn;
	}
	i = (psn - p->first_psn) & RK_PSN_MASK;
	if (i >= 16)
		return false;
	if (p->sent[i] < MAX_SENDS)
		p->at[i][p->sent[i]] = ts;
	return p->sent[i]++ < p->lose[i];
}

/*
 * @p ops one-packet WRITEs (1 KiB, MTU 1024: each carries its RETH, so
 * one arriving past a gap is placed), all posted at once, 5 us each way
 * at 10 Gb/s.
 */
static void
run(struct plan *p, uint32_t ops, bool set, uint64_t rto_low_ns, uint32_t n,
    struct rk_sim_wl_result *r)
{
	struct rk_sim_wl_cfg cfg = {
		.seed = 1,
		.ops = ops,
		.max_size = 1024,
		.fixed_size = true,
		.opmask = 1u << RK_SIM_WRITE,
		.mtu = RK_MTU_1024,
		.depth = ops,
		.impair = { .delay_ns = 5000, .rate_bps = 10000000000ull },
		.paced = true,
		.timeout = TIMEOUT,
		.recovery = "sr",
		.set_rto_low = set,
		.rto_low_ns = rto_low_ns,
		.rto_low_n = n,
		.drop = drop,
		.drop_ctx = p,
	};
	int rc = rk_sim_wl_run(&cfg, r);

	printf("# %u WRITEs: %s, latency %" PRIu64 " ns, timeouts %" PRIu64 " (RTO_low %" PRIu64
	       "), resent %" PRIu64 "\n", ops, rc == 0 ? "ok" : r->first_error, r->lat_max_ns,
	       r->stats[0].req_retransmit_timeouts, r->stats[0].req_rto_low_timeouts,
	       r->stats[0].req_retx_pkts);
	assert_int_equal(rc, 0);
	assert_int_equal(r->completed, ops);
	assert_int_equal(r->errors, 0);
}

/*
 * Two WRITEs: the first is lost, the second placed and the first NAKed;
 * its resend is lost too. No NAK can find that: RTO_low, armed when the
 * first went out, sends it a third time, about RTO_low after the first.
 */
static void
test_lost_resend(void **state)
{
	static struct rk_sim_wl_result r;
	struct plan p = { .lose = { 2 } };
	uint64_t t;

	(void)state;
	run(&p, 2, false, 0, 0, &r);
	assert_int_equal(p.sent[0], 3);
	assert_int_equal(p.sent[1], 1);
	t = p.at[0][2] - p.at[0][0];
	printf("# third copy %" PRIu64 " ns after the first\n", t);
	assert_true(t >= RK_IB_RTO_LOW_NS && t < RK_IB_RTO_LOW_NS + 2000);
	assert_true(r.lat_max_ns < RK_IB_RTO_LOW_NS + 30000);
	assert_int_equal(r.stats[0].req_rto_low_timeouts, 1);
	/* Only the lost PSN went again: no going back N. */
	assert_int_equal(r.stats[0].req_retx_pkts, 2);
}

/* The same with RTO_low set to 40 us through the recovery API. */
static void
test_lost_resend_set(void **state)
{
	static struct rk_sim_wl_result r;
	struct plan p = { .lose = { 2 } };
	uint64_t t;

	(void)state;
	run(&p, 2, true, 40000, 3, &r);
	t = p.at[0][2] - p.at[0][0];
	printf("# third copy %" PRIu64 " ns after the first\n", t);
	assert_true(t >= 40000 && t < 42000);
	assert_true(r.lat_max_ns < 40000 + 30000);
	assert_int_equal(r.stats[0].req_rto_low_timeouts, 1);
}

/*
 * N + 1 = 4 WRITEs all lost: RTO_low was armed with the first, but more
 * than N went out, so the timer waits the QP's timeout from the first and
 * goes back N. With exactly N = 3 lost, RTO_low finds the first.
 */
static void
test_n_bound(void **state)
{
	static struct rk_sim_wl_result r;
	struct plan p4 = { .lose = { 1, 1, 1, 1 } }, p3 = { .lose = { 1, 1, 1 } };
	uint64_t high = rk_local_ack_timeout_ns(TIMEOUT), t;

	(void)state;
	run(&p4, 4, false, 0, 0, &r);
	t = p4.at[0][1] - p4.at[0][0];
	printf("# 4 lost: second copy %" PRIu64 " ns after the first\n", t);
	assert_true(t >= high);
	for (int i = 0; i < 4; i++)
		assert_true(p4.at[i][1] - p4.at[0][0] >= high);
	assert_int_equal(r.stats[0].req_rto_low_timeouts, 0);
	assert_int_equal(r.stats[0].req_retransmit_timeouts, 1);

	run(&p3, 3, false, 0, 0, &r);
	t = p3.at[0][1] - p3.at[0][0];
	printf("# 3 lost: second copy %" PRIu64 " ns after the first\n", t);
	assert_true(t >= RK_IB_RTO_LOW_NS && t < RK_IB_RTO_LOW_NS + 2000);
	assert_true(r.stats[0].req_rto_low_timeouts >= 1);
	assert_true(r.lat_max_ns < high);
}

/*
 * The resend RTO_low made is lost as well: no second RTO_low before
 * progress, the QP's own timeout sends the fourth copy, so a silent path
 * spends its retries at the long pace.
 */
static void
test_once_per_progress(void **state)
{
	static struct rk_sim_wl_result r;
	struct plan p = { .lose = { 3 } };
	uint64_t high = rk_local_ack_timeout_ns(TIMEOUT), t;

	(void)state;
	run(&p, 2, false, 0, 0, &r);
	assert_int_equal(p.sent[0], 4);
	t = p.at[0][3] - p.at[0][2];
	printf("# fourth copy %" PRIu64 " ns after the third\n", t);
	assert_true(t >= high && t < high + 2000);
	assert_int_equal(r.stats[0].req_rto_low_timeouts, 1);
	assert_int_equal(r.stats[0].req_retransmit_timeouts, 2);
}

/* Off (N 0): a lost resend waits the QP's timeout, as go-back-N's would. */
static void
test_off(void **state)
{
	static struct rk_sim_wl_result r;
	struct plan p = { .lose = { 2 } };

	(void)state;
	run(&p, 2, true, RK_IB_RTO_LOW_NS, 0, &r);
	assert_true(p.at[0][2] - p.at[0][0] >= rk_local_ack_timeout_ns(TIMEOUT));
	assert_int_equal(r.stats[0].req_rto_low_timeouts, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lost_resend),
		cmocka_unit_test(test_lost_resend_set),
		cmocka_unit_test(test_n_bound),
		cmocka_unit_test(test_once_per_progress),
		cmocka_unit_test(test_off),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
