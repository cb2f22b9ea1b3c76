/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The responder's private parts (IBTA Vol1 ch. 9): its states, the
 * context of one request packet, and the functions its files share
 * (rk_resp.c checks, rk_resp_exec.c executes, rk_resp_ack.c answers,
 * rk_resp_tx.c sends what is owed).
 */
#ifndef RK_RESP_PRIV_H
#define RK_RESP_PRIV_H

#include "rk_enum.h"
#include "rk_ib_internal.h"

#define RESP_STATES(X, P) \
	X(P, CHK_PSN) X(P, CHK_OP_SEQ) X(P, CHK_OP_VALID) X(P, CHK_RESOURCE) \
	X(P, CHK_LENGTH) X(P, CHK_RKEY) X(P, EXECUTE) X(P, COMPLETE) X(P, ACKNOWLEDGE) \
	X(P, DUPLICATE) X(P, NAK_SEQ) X(P, RNR) X(P, NAK_FATAL) X(P, DROP) X(P, DONE)

enum rk_resp_state { RESP_STATES(RK_ENUM_MEMBER, RK_RESP_ST_) RK_RESP_ST_COUNT };

struct resp_ctx {
	const struct rk_pkt *pkt;
	const uint8_t *bth;
	uint32_t psn;
	uint8_t opcode;
	uint32_t flags;                 /* opcode row flags; 0 when undefined */
	const uint8_t *payload;
	uint32_t len;                   /* payload bytes, without pad */
	uint64_t now;
	uint8_t nak_code;               /* for NAK_FATAL */
	enum rk_ib_reason reason;       /* why NAK_FATAL or DROP (rk_ib_reason.h) */
	enum rk_wc_status rwc_status;   /* receive WQE status on NAK_FATAL */
	uint8_t *target;                /* resolved RETH/AtomicETH address */
	uint32_t dma_len;
	uint32_t nres;                  /* READ: response packets */
};

static inline bool
is_rc(const struct rk_ib_qp *qp)
{
	return qp->type == RK_QPT_RC;
}

/* A silent drop, and why. */
static inline enum rk_resp_state
drop(struct resp_ctx *c, enum rk_ib_reason why)
{
	c->reason = why;
	return RK_RESP_ST_DROP;
}

/* rk_resp.c: is the opcode a request this QP type takes? */
bool rk_resp_op_supported(const struct rk_ib_qp *qp, uint32_t flags, uint8_t opcode);
/* rk_resp.c: a request that failed a check: class C NAK (RC), dropped (UC, UD). */
enum rk_resp_state rk_resp_reject(struct rk_ib_qp *qp, struct resp_ctx *c, uint8_t code,
				  enum rk_ib_reason why);

/* rk_resp_exec.c: execute a checked SEND, WRITE, READ or ATOMIC request. */
enum rk_resp_state rk_resp_execute(struct rk_ib_qp *qp, struct resp_ctx *c);

/* rk_resp_ack.c: the states that answer: ACK, duplicate, NAK-SEQ, RNR NAK, class C NAK. */
enum rk_resp_state rk_resp_acknowledge(struct rk_ib_qp *qp, struct resp_ctx *c);
enum rk_resp_state rk_resp_duplicate(struct rk_ib_qp *qp, struct resp_ctx *c);
enum rk_resp_state rk_resp_nak_seq(struct rk_ib_qp *qp, struct resp_ctx *c);
enum rk_resp_state rk_resp_rnr_nak(struct rk_ib_qp *qp, struct resp_ctx *c);
enum rk_resp_state rk_resp_nak_fatal(struct rk_ib_qp *qp, struct resp_ctx *c);

#endif /* RK_RESP_PRIV_H */
