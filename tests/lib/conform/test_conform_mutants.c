/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Mutation check of the conformance catalog: rdmakit's engine built with
 * deliberate faults (lib/ib/rk_ib_mutant.h). With each fault on, exactly
 * the cases of the rule it breaks must fail, and with none on, all pass:
 * the cases can fail, and fail for the right reason.
 */
#include "rk_test.h"

#include <stdio.h>

#include "rk_conform.h"
#include "rk_cm_mutant.h"
#include "rk_conform_self.h"
#include "rk_ib_mutant.h"
#include "rk_iw_mutant.h"

uint32_t rk_ib_mutants;
uint32_t rk_iw_mutants;
uint32_t rk_cm_mutants;

struct mutant {
	uint32_t bit;
	const char *name;
	const char *const *fail;        /* the case IDs that must fail, NULL-ended */
	uint32_t iw_bit;                /* iWARP engine faults (rk_iw_mutant.h) */
	uint32_t cm_bit;                /* CM faults (lib/cm/rk_cm_mutant.h) */
};

#define IDS(...) ((const char *const[]){ __VA_ARGS__, NULL })

#define IW_TERM_CASES \
	IDS("iw.mpa.crc_bad", "iw.mpa.marker_bad", "iw.mpa.rtr_wrong", "iw.ddp.stag_invalid", \
	    "iw.ddp.stag_other_pd", "iw.ddp.bounds_past_end", "iw.ddp.bounds_below", \
	    "iw.ddp.bounds_wrap", "iw.ddp.tagged_version", "iw.ddp.untagged_version", \
	    "iw.ddp.qn_wrong", "iw.ddp.msn_ahead", "iw.ddp.no_recv", "iw.ddp.mo_wrong", \
	    "iw.ddp.too_long", "iw.rdmap.version", "iw.rdmap.opcode_reserved", \
	    "iw.rdmap.read_resp_unsolicited", "iw.rdmap.write_read_only", \
	    "iw.rdmap.read_stag_invalid", "iw.rdmap.read_past_end", "iw.rdmap.read_with_payload")

static const struct mutant mutants[] = {
	{ RK_IB_MUT_ANY_ACCESS, "accept any access rights",
	  IDS("rc.access.write_read_only", "rc.access.atomic_read_only") },
	/* A packet after an RNR NAK is one ahead too; rc.read.next_psn is a
	 * PSN behind the expected one (inside the READ), another check. */
	{ RK_IB_MUT_NO_PSN_AHEAD, "skip the PSN-ahead check",
	  IDS("rc.psn.ahead", "rc.psn.ahead_write", "rc.psn.ahead_half", "rc.psn.nak_once",
	      "rc.rnr.later_dropped") },
	{ RK_IB_MUT_NO_RNR, "drop instead of RNR NAK",
	  IDS("rc.rnr.no_recv", "rc.rnr.write_imm_no_recv", "rc.rnr.recovers",
	      "rc.rnr.later_dropped") },
	{ RK_IB_MUT_KEEP_BAD_ICRC, "accept a bad ICRC",
	  IDS("rc.icrc.bad", "rc.icrc.bad_ahead", "ud.bad_icrc", "rc.ecn.cnp_bad_icrc") },
	{ RK_IB_MUT_ANY_TVER, "accept TVer != 0", IDS("rc.bth.tver") },
	{ RK_IB_MUT_ANY_PKEY, "accept any P_Key", IDS("rc.bth.pkey") },
	{ RK_IB_MUT_NAK_SEQ_PSN, "NAK-SEQ carries the packet's PSN",
	  IDS("rc.psn.ahead", "rc.psn.ahead_write", "rc.psn.ahead_half", "rc.psn.nak_once",
	      "rc.read.next_psn") },
	{ RK_IB_MUT_RNR_TIMER_0, "RNR NAK with timer 0",
	  IDS("rc.rnr.no_recv", "rc.rnr.write_imm_no_recv", "rc.rnr.recovers",
	      "rc.rnr.later_dropped") },
	{ RK_IB_MUT_NO_DUP_ACK, "no ACK for duplicates",
	  IDS("rc.psn.duplicate", "rc.psn.duplicate_write", "rc.psn.behind_half") },
	{ RK_IB_MUT_RACC_AS_INV, "remote access errors NAKed as invalid requests",
	  IDS("rc.rkey.bad_write", "rc.rkey.bad_read", "rc.rkey.bad_atomic", "rc.va.oob_write",
	      "rc.va.oob_read", "rc.va.wrap", "rc.access.write_read_only",
	      "rc.access.atomic_read_only") },
	{ RK_IB_MUT_ZERO_LEN_KEYED, "zero-length RETH keyed",
	  IDS("rc.reth.zero_len_write", "rc.reth.zero_len_read") },
	{ RK_IB_MUT_ANY_QKEY, "any Q_Key accepted", IDS("ud.qkey.mismatch") },
	{ RK_IB_MUT_CNP_OWN_QPN, "CNP to its own QPN", IDS("rc.ecn.cnp") },
	{ RK_IB_MUT_FECN_AS_CE, "a CNP for BTH FECN", IDS("rc.ecn.fecn_becn") },
	/* iWARP: a wrong or missing Terminate fails every case expecting one. */
	{ 0, "Terminate code off by one", IW_TERM_CASES, RK_IW_MUT_TERM_CODE },
	{ 0, "no Terminate", IW_TERM_CASES, RK_IW_MUT_NO_TERM },
	{ 0, "MPA Rev 3 accepted", IDS("iw.mpa.rev_unknown"), RK_IW_MUT_ANY_REV },
	{ 0, "MPA Request with R accepted", IDS("iw.mpa.request_r_set"), RK_IW_MUT_ACCEPT_R },
	/* CM: a REP naming another Comm ID answers no REQ of the case's: every
	 * case that waits for a REP fails. */
	{ 0, "REP's Remote Comm ID not the REQ's",
	  IDS("cm.req.rep", "cm.req.duplicate", "cm.rtu.established", "cm.dreq.drep",
	      "cm.dreq.repeated", "cm.rep.resent", "cm.mra.rep", "cm.mad.class_version"), 0,
	  RK_CM_MUT_REP_REMOTE_ID },
	{ 0, "REJ reason off by one", IDS("cm.req.service_invalid", "cm.req.mtu_invalid"), 0,
	  RK_CM_MUT_REJ_REASON },
	{ 0, "a repeated REQ gets a REP of a new Local Comm ID", IDS("cm.req.duplicate"), 0,
	  RK_CM_MUT_DUP_NEW_ID },
	/* cm.req.duplicate and cm.mra.rep end with the RTU and a WRITE too. */
	{ 0, "RTU ignored", IDS("cm.req.duplicate", "cm.rtu.established", "cm.mra.rep"), 0,
	  RK_CM_MUT_NO_RTU },
	{ 0, "DREQ dropped without DREP", IDS("cm.dreq.drep", "cm.dreq.repeated"), 0,
	  RK_CM_MUT_NO_DREP },
	{ 0, "a DREQ in TimeWait dropped", IDS("cm.dreq.repeated"), 0, RK_CM_MUT_TIMEWAIT_DROP },
	{ 0, "any CM class version decoded", IDS("cm.mad.class_version"), 0,
	  RK_CM_MUT_ANY_VERSION },
	{ 0, "the REP waits as its own CM says, not the REQ", IDS("cm.rep.resent"), 0,
	  RK_CM_MUT_REP_OWN_TIMEOUT },
	{ 0, "an MRA does not extend the wait", IDS("cm.mra.rep"), 0, RK_CM_MUT_MRA_IGNORED },
};

static bool
listed(const char *const *ids, const char *id)
{
	for (; *ids != NULL; ids++)
		if (strcmp(*ids, id) == 0)
			return true;
	return false;
}

/* Run the catalog with @p bits on; count cases whose verdict is wrong. */
static unsigned int
run(uint32_t bits, uint32_t iw_bits, uint32_t cm_bits, const char *const *fail,
    const char *name)
{
	struct rk_conform_env env;
	struct rk_conform_self *s = rk_conform_self_create(&env);
	unsigned int n, wrong = 0;
	const struct rk_conform_case *c = rk_conform_cases(&n);

	assert_non_null(s);
	rk_ib_mutants = bits;
	rk_iw_mutants = iw_bits;
	rk_cm_mutants = cm_bits;
	for (unsigned int i = 0; i < n; i++) {
		struct rk_conform_result res;
		bool must_fail = fail != NULL && listed(fail, c[i].id);

		assert_int_equal(rk_conform_run_case(&env, &c[i], &res), 0);
		if ((res.verdict == RK_CONFORM_FAIL) != must_fail) {
			printf("# [%s] %s: %s, expected %s (%s)\n", name, c[i].id,
			       rk_conform_verdict_name(res.verdict),
			       must_fail ? "FAIL" : "pass", res.reason);
			wrong++;
		}
	}
	rk_ib_mutants = 0;
	rk_iw_mutants = 0;
	rk_cm_mutants = 0;
	rk_conform_self_destroy(s);
	return wrong;
}

static void
test_no_mutant_all_pass(void **state)
{
	(void)state;
	assert_int_equal(run(0, 0, 0, NULL, "none"), 0);
}

static void
test_each_mutant_fails_its_cases(void **state)
{
	unsigned int wrong = 0, covered = 0;

	(void)state;
	for (size_t m = 0; m < sizeof(mutants) / sizeof(mutants[0]); m++) {
		wrong += run(mutants[m].bit, mutants[m].iw_bit, mutants[m].cm_bit, mutants[m].fail,
			     mutants[m].name);
		for (const char *const *id = mutants[m].fail; *id != NULL; id++)
			covered++;
	}
	assert_int_equal(wrong, 0);
	assert_true(covered >= 10);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_mutant_all_pass),
		cmocka_unit_test(test_each_mutant_fails_its_cases),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
