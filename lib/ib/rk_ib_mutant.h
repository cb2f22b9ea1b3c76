/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_ib_mutant.h
 * Deliberate faults for the conformance tester's mutation check: built
 * only with -DRK_IB_MUTANTS (a test build of the core), where each set bit
 * of rk_ib_mutants breaks one responder rule so exactly the matching
 * conformance cases must fail. In every other build RK_IB_MUTANT() is 0
 * and the compiler removes the faults.
 */
#ifndef RK_IB_MUTANT_H
#define RK_IB_MUTANT_H

#include <stdint.h>

/** One broken rule each. */
enum rk_ib_mutant {
	RK_IB_MUT_ANY_ACCESS = 1u << 0,   /**< skip the MR access-rights check */
	RK_IB_MUT_NO_PSN_AHEAD = 1u << 1, /**< take a PSN ahead as the expected one */
	RK_IB_MUT_NO_RNR = 1u << 2,       /**< drop instead of RNR NAK */
	RK_IB_MUT_KEEP_BAD_ICRC = 1u << 3,/**< accept a bad ICRC */
	RK_IB_MUT_ANY_TVER = 1u << 4,     /**< accept TVer != 0 */
	RK_IB_MUT_ANY_PKEY = 1u << 5,     /**< accept any P_Key */
	RK_IB_MUT_NAK_SEQ_PSN = 1u << 6,  /**< NAK-SEQ carries the packet's PSN */
	RK_IB_MUT_RNR_TIMER_0 = 1u << 7,  /**< RNR NAK with timer 0 */
	RK_IB_MUT_NO_DUP_ACK = 1u << 8,   /**< drop duplicates without ACK */
	RK_IB_MUT_RACC_AS_INV = 1u << 9,  /**< remote access errors NAKed as NAK-INV */
	RK_IB_MUT_ZERO_LEN_KEYED = 1u << 10, /**< zero-length RETH: R_Key checked (C9-88) */
	RK_IB_MUT_ANY_QKEY = 1u << 11,    /**< UD: accept any Q_Key */
	RK_IB_MUT_CNP_OWN_QPN = 1u << 12, /**< CNP DestQP: its own QPN, not the peer's */
	RK_IB_MUT_FECN_AS_CE = 1u << 13,  /**< BTH FECN taken as a CE mark */
};

#ifdef RK_IB_MUTANTS
/** The faults on; set by the mutation test before a run. */
extern uint32_t rk_ib_mutants;
#define RK_IB_MUTANT(m) ((rk_ib_mutants & (m)) != 0)
#else
#define RK_IB_MUTANT(m) 0
#endif

#endif /* RK_IB_MUTANT_H */
