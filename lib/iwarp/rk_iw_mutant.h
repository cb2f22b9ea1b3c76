/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_iw_mutant.h
 * Deliberate faults in the iWARP engine for the conformance tester's
 * mutation check, like rk_ib_mutant.h: built only with -DRK_IB_MUTANTS (a
 * test build of the core), where each set bit of rk_iw_mutants breaks one
 * rule so the matching iw.* cases must fail. In every other build
 * RK_IW_MUTANT() is 0 and the compiler removes the faults.
 */
#ifndef RK_IW_MUTANT_H
#define RK_IW_MUTANT_H

#include <stdint.h>

/** One broken rule each. */
enum rk_iw_mutant {
	RK_IW_MUT_TERM_CODE = 1u << 0,  /**< Terminate Error Code off by one (RFC 5040 7.4.1) */
	RK_IW_MUT_NO_TERM = 1u << 1,    /**< stop receiving without sending the Terminate */
	RK_IW_MUT_ANY_REV = 1u << 2,    /**< accept an MPA Request of an unknown revision */
	RK_IW_MUT_ACCEPT_R = 1u << 3,   /**< accept an MPA Request with R set */
};

#ifdef RK_IB_MUTANTS
/** The faults on; set by the mutation test before a run. */
extern uint32_t rk_iw_mutants;
#define RK_IW_MUTANT(m) ((rk_iw_mutants & (m)) != 0)
#else
#define RK_IW_MUTANT(m) 0
#endif

#endif /* RK_IW_MUTANT_H */
