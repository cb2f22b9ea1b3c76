/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Congestion control of a QP: one ops table per algorithm, chosen per QP
 * with rk_ib_qp_set_cc(). "none" (the default) leaves qp->cc NULL: the
 * engine's hooks are then one untaken branch each and frames, timers and
 * counters are exactly those of an engine without congestion control.
 * The engine never tests which algorithm runs; it calls the table.
 */
#ifndef RK_CC_H
#define RK_CC_H

#include <stdbool.h>
#include <stdint.h>

struct rk_ib_qp;

struct rk_cc_ops {
	const char *name;
	/** @p bytes (whole frame) of a request left at @p now_ns. */
	void (*on_send)(struct rk_ib_qp *qp, uint32_t bytes, uint64_t now_ns);
	/** A CNP addressed to this QP arrived (Annex A17.9.3). */
	void (*on_cnp)(struct rk_ib_qp *qp, uint64_t now_ns);
	/** A request packet with IP ECN @p ecn arrived: true when a CNP is owed. */
	bool (*on_rx_ecn)(struct rk_ib_qp *qp, uint8_t ecn, uint64_t now_ns);
	/** Run the algorithm's timers due at @p now_ns. */
	void (*on_timer)(struct rk_ib_qp *qp, uint64_t now_ns);
	/** Earliest time the requester may send its next frame (pacer). */
	uint64_t (*next_send_ns)(const struct rk_ib_qp *qp);
	/** Earliest timer, UINT64_MAX for none. */
	uint64_t (*next_timer_ns)(const struct rk_ib_qp *qp);
	/** Build the CNP owed into @p f; @return its length. */
	int (*build_cnp)(struct rk_ib_qp *qp, uint8_t *f);
	/** Free the QP's algorithm state. */
	void (*fini)(struct rk_ib_qp *qp);
};

extern const struct rk_cc_ops rk_cc_dcqcn_ops;

#endif /* RK_CC_H */
