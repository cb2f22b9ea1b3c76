/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_cm_mutant.h
 * Deliberate CM faults for the conformance tester's mutation check, as
 * lib/ib's rk_ib_mutant.h: built only with -DRK_IB_MUTANTS, where each set
 * bit of rk_cm_mutants breaks one rule of IBTA Vol1 ch. 12 so exactly the
 * matching cm.* cases must fail. Elsewhere RK_CM_MUTANT() is 0.
 */
#ifndef RK_CM_MUTANT_H
#define RK_CM_MUTANT_H

#include <stdint.h>

/** One broken rule each. */
enum rk_cm_mutant {
	RK_CM_MUT_REP_REMOTE_ID = 1u << 0, /**< REP's Remote Comm ID not the REQ's */
	RK_CM_MUT_REJ_REASON = 1u << 1,    /**< REJ reason off by one */
	RK_CM_MUT_DUP_NEW_ID = 1u << 2,    /**< a repeated REQ gets a REP of a new Local Comm ID */
	RK_CM_MUT_NO_RTU = 1u << 3,        /**< RTU ignored: never established */
	RK_CM_MUT_NO_DREP = 1u << 4,       /**< DREQ dropped without DREP */
	RK_CM_MUT_ANY_VERSION = 1u << 5,   /**< any CM class version decoded */
	RK_CM_MUT_TIMEWAIT_DROP = 1u << 6, /**< a DREQ in TimeWait dropped, no DREP again */
	RK_CM_MUT_REP_OWN_TIMEOUT = 1u << 7, /**< the REP waits 4.3 s x 15, not as the REQ says */
	RK_CM_MUT_MRA_IGNORED = 1u << 8,   /**< an MRA does not extend the wait */
};

#ifdef RK_IB_MUTANTS
/** The faults on; set by the mutation test before a run. */
extern uint32_t rk_cm_mutants;
#define RK_CM_MUTANT(m) ((rk_cm_mutants & (m)) != 0)
#else
#define RK_CM_MUTANT(m) 0
#endif

#endif /* RK_CM_MUTANT_H */
