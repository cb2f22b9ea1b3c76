/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Loss recovery of an RC QP: one ops table per algorithm, chosen per QP
 * with rk_ib_qp_set_recovery(). Go-back-N (IBTA Vol1 ch. 9) is the
 * default; selective repeat follows IRN (Mittal et al., SIGCOMM 2018).
 * The engine never tests which one runs; it calls the table. A NULL
 * responder hook means "what go-back-N does": a NAK-SEQ, nothing placed.
 */
#ifndef RK_LR_H
#define RK_LR_H

#include <stdbool.h>
#include <stdint.h>

struct rk_ib_qp;
struct rk_pkt;

struct rk_lr_ops {
	const char *name;
	/**
	 * Responder: a request @p pkt with PSN @p psn past the expected PSN
	 * arrived. @return true when it was taken (placed now, or placed
	 * before): no NAK is owed for it beyond the gap's one.
	 */
	bool (*resp_ahead)(struct rk_ib_qp *qp, const struct rk_pkt *pkt, uint32_t psn);
	/** Responder: a request was executed in order at @p now_ns (ePSN moved). */
	void (*resp_advanced)(struct rk_ib_qp *qp, uint64_t now_ns);
	/**
	 * Responder: write @p len bytes of an in-order WRITE at @p dst (VA
	 * @p va); bytes that packets placed ahead of it wrote stay theirs.
	 */
	void (*resp_write)(struct rk_ib_qp *qp, uint8_t *dst, uint64_t va, const uint8_t *src,
			   uint32_t len);
	/** Requester: a NAK-SEQ says comp.psn is missing: owe it again. */
	void (*req_nak_seq)(struct rk_ib_qp *qp);
	/**
	 * Requester: the local ACK timeout to arm now when shorter than the
	 * QP's (IRN's RTO_low: few PSNs outstanding), else 0. NULL: always 0.
	 */
	uint64_t (*req_rto_low)(const struct rk_ib_qp *qp);
	/** Requester: that short timeout expired: owe again what it found lost. */
	void (*req_rto_low_expired)(struct rk_ib_qp *qp);
	/** Forget what the responder holds past the gap (QP reset). */
	void (*reset)(struct rk_ib_qp *qp);
	/** Free the QP's algorithm state. */
	void (*fini)(struct rk_ib_qp *qp);
};

extern const struct rk_lr_ops rk_lr_gbn_ops;
extern const struct rk_lr_ops rk_lr_sr_ops;

#endif /* RK_LR_H */
