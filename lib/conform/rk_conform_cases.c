/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The case catalog (RoCEv2 RC, UC, UD). Most cases are one crafted packet
 * and one expected answer (struct one); the rest are short scripts. Rule
 * IDs in brackets are those of doc/spec-rules.md; references follow its
 * forms ("IBTA Vol1 ch. 9" where no section number could be checked).
 */
#include "rk_conform.h"

#include <string.h>

#include "rk_opcode.h"
#include "rk_xeth.h"

#define ANSWERS 16
#define NAK_SEQ RK_AETH_NAK_PSN_SEQ_ERR
#define NAK_INV RK_AETH_NAK_INVALID_REQUEST
#define NAK_RACC RK_AETH_NAK_REMOTE_ACCESS_ERR
#define OP_UC(op) (RK_OP_TR_UC | (op))
#define OP_UD(op) (RK_OP_TR_UD | (op))

/* Payload lengths relative to the DUT's values. */
#define LEN_PMTU_MINUS4 0xfffffff0u
#define LEN_PMTU_PLUS4 0xfffffff1u
#define LEN_PMTU 0xfffffff2u

static const uint8_t zeros[4608];

/* Extended headers a case asks for, filled from the DUT's values. */
enum xk {
	X_NONE = 0,
	X_RETH,                 /* the rw region, DMALen = len (or dmalen) */
	X_RETH_BADKEY,          /* an R_Key the DUT never gave */
	X_RETH_OOB,             /* 4 bytes before the region's end, 8 bytes */
	X_RETH_WRAP,            /* VA + DMALen wraps 2^64 */
	X_RETH_RO,              /* the read-only region */
	X_RETH_ZERO,            /* DMALen 0, VA 0, R_Key 0xDEAD */
	X_RETH_HUGE,            /* DMALen 2^31 + 1 */
	X_ATOM,                 /* aligned, in the rw region */
	X_ATOM_UNALIGNED,
	X_ATOM_BADKEY,
	X_ATOM_RO,
	X_DETH,                 /* the QP's Q_Key */
	X_DETH_BADQKEY,
};

enum expect {
	E_ACK = 0,              /* ACK with PSN epsn + exp_off */
	E_NAK,                  /* NAK code with PSN epsn + exp_off */
	E_RNR,                  /* RNR NAK with the QP's timer, PSN epsn + exp_off */
	E_SILENT,               /* nothing at all */
	E_READ,                 /* a READ response with PSN epsn + exp_off */
	E_ATOMIC,               /* an atomic ACK with PSN epsn + exp_off */
};

enum after {
	A_NONE = 0,
	A_ALIVE,                /* a valid request at epsn + next_off is answered (alive()) */
	A_DEAD,                 /* class C: the QP is in error, nothing answers */
};

struct one {
	uint8_t opcode;
	int32_t off;
	bool ack_req;
	enum xk xk;
	uint32_t len, dmalen;
	int pad;                /* 0: natural; PAD(n): PadCnt n */
	enum rk_conform_mangle m;
	enum expect e;
	uint8_t code;
	int32_t exp_off;
	enum after after;
	int32_t next_off;
	int recvs_done;         /* 0: not checked; DONE(n): n receives completed */
};

static uint32_t
plen(const struct rk_conform_run *r, uint32_t len)
{
	switch (len) {
	case LEN_PMTU_MINUS4: return r->dut.pmtu - 4;
	case LEN_PMTU_PLUS4: return r->dut.pmtu + 4;
	case LEN_PMTU: return r->dut.pmtu;
	default: return len;
	}
}

static void
fill_x(const struct rk_conform_run *r, enum xk k, uint32_t dmalen, struct rk_xeth_fields *x)
{
	const struct rk_conform_dut *d = &r->dut;

	memset(x, 0, sizeof(*x));
	switch (k) {
	case X_NONE: break;
	case X_RETH: x->reth_va = d->va; x->reth_r_key = d->r_key; x->reth_dma_len = dmalen; break;
	case X_RETH_BADKEY:
		x->reth_va = d->va; x->reth_r_key = d->r_key ^ 0x00a5a500u; x->reth_dma_len = dmalen;
		break;
	case X_RETH_OOB:
		x->reth_va = d->va + d->len - 4; x->reth_r_key = d->r_key; x->reth_dma_len = 8;
		break;
	case X_RETH_WRAP:
		x->reth_va = UINT64_MAX - 3; x->reth_r_key = d->r_key; x->reth_dma_len = 8;
		break;
	case X_RETH_RO:
		x->reth_va = d->ro_va; x->reth_r_key = d->ro_r_key; x->reth_dma_len = dmalen;
		break;
	case X_RETH_ZERO: x->reth_r_key = 0xdead; break;
	case X_RETH_HUGE:
		x->reth_va = d->va; x->reth_r_key = d->r_key; x->reth_dma_len = 0x80000001u;
		break;
	case X_ATOM: x->atmeth_va = d->va + 64; x->atmeth_r_key = d->r_key; x->atmeth_swap_add = 1; break;
	case X_ATOM_UNALIGNED:
		x->atmeth_va = d->va + 68; x->atmeth_r_key = d->r_key; x->atmeth_swap_add = 1;
		break;
	case X_ATOM_BADKEY:
		x->atmeth_va = d->va + 64; x->atmeth_r_key = d->r_key ^ 0x00a5a500u;
		break;
	case X_ATOM_RO: x->atmeth_va = d->ro_va; x->atmeth_r_key = d->ro_r_key; break;
	case X_DETH: x->deth_q_key = d->q_key; x->deth_src_qp = 0x42; break;
	case X_DETH_BADQKEY: x->deth_q_key = d->q_key ^ 0x5a5a5a5au; x->deth_src_qp = 0x42; break;
	}
}

static bool
needs_ro(enum xk k)
{
	return k == X_RETH_RO || k == X_ATOM_RO;
}

/* Send one packet by values; false when the case is already decided. */
static bool
put(struct rk_conform_run *r, uint8_t opcode, int32_t off, bool ack_req, enum xk k,
    uint32_t len, uint32_t dmalen, int pad, enum rk_conform_mangle m)
{
	struct rk_xeth_fields x;
	struct rk_probe_intent in = {
		.opcode = opcode, .psn_off = off, .ack_req = ack_req, .x = &x,
		.payload = zeros, .len = plen(r, len), .pad_cnt = pad,
	};

	fill_x(r, k, dmalen ? dmalen : in.len, &x);
	return rk_conform_send(r, &in, m) == 0;
}

static uint32_t
psn_at(const struct rk_conform_run *r, int32_t off)
{
	return (r->dut.epsn + (uint32_t)off) & 0xffffff;
}

/* Judge the answers @p a (@p n) against one expectation. */
static bool
judge(struct rk_conform_run *r, const struct rk_probe_answer *a, int n, enum expect e,
      uint8_t code, int32_t exp_off)
{
	static const char *const want[] = { "ACK", "NAK", "RNR NAK", "nothing", "READ response",
					    "atomic ACK" };
	static const enum rk_probe_kind kind[] = { RK_PROBE_ACK, RK_PROBE_NAK, RK_PROBE_RNR_NAK,
						   RK_PROBE_NONE, RK_PROBE_READ_RESP,
						   RK_PROBE_ATOMIC_ACK };
	static const char *const nak[] = { "NAK-SEQ", "NAK-INV", "NAK-RACC", "NAK-ROP" };
	char got[160];
	uint32_t psn = psn_at(r, exp_off);
	const char *w = e == E_NAK && code < 4 ? nak[code] : want[e];

	if (n < 0)
		return false;
	rk_conform_answer_str(a, (unsigned int)n, got, sizeof(got));
	if (e == E_SILENT) {
		if (n == 0)
			return true;
		return rk_conform_fail(r, "expected no answer, got %s", got);
	}
	if (n == 0)
		return rk_conform_fail(r, "expected %s psn 0x%06x, got nothing within the timeout",
				       w, psn);
	if (a[0].kind != kind[e] || (e == E_NAK && a[0].code != code))
		return rk_conform_fail(r, "expected %s psn 0x%06x, got %s", w, psn, got);
	if (e == E_RNR && r->dut.min_rnr_timer != 0xff && a[0].code != r->dut.min_rnr_timer)
		return rk_conform_fail(r, "RNR NAK timer %u, the QP's minimum is %u", a[0].code,
				       r->dut.min_rnr_timer);
	if (a[0].psn != psn)
		return rk_conform_fail(r, "expected %s psn 0x%06x, got %s", w, psn, got);
	return true;
}

static bool
expect(struct rk_conform_run *r, enum expect e, uint8_t code, int32_t exp_off)
{
	struct rk_probe_answer a[ANSWERS];
	int n = rk_conform_wait(r, a, ANSWERS, e == E_SILENT ? ANSWERS : 1);

	return judge(r, a, n, e, code, exp_off);
}

/*
 * A valid request at @p off that the region allows (a WRITE of 8 bytes, else
 * a READ of 8, else a FETCH_ADD, else a SEND of 8 into a posted receive),
 * and the answer it must get. False when the DUT offers none of them.
 */
static bool
probe_op(const struct rk_conform_run *r, uint8_t *op, enum xk *k, enum expect *e)
{
	uint8_t a = r->dut.access;

	if (a & RK_CONFORM_ACC_WRITE)
		*op = RK_OP_RDMA_WRITE_ONLY, *k = X_RETH, *e = E_ACK;
	else if (a & RK_CONFORM_ACC_READ)
		*op = RK_OP_RDMA_READ_REQUEST, *k = X_RETH, *e = E_READ;
	else if (a & RK_CONFORM_ACC_ATOMIC)
		*op = RK_OP_FETCH_ADD, *k = X_ATOM, *e = E_ATOMIC;
	else if (r->dut.recv_len >= 8)
		*op = RK_OP_SEND_ONLY, *k = X_NONE, *e = E_ACK;
	else
		return false;
	return true;
}

static bool
put_probe(struct rk_conform_run *r, int32_t off, enum expect *e)
{
	uint8_t op;
	enum xk k;

	if (!probe_op(r, &op, &k, e))
		return rk_conform_fail(r, "the DUT's QP allows no request to probe it with");
	/* A READ and an atomic carry no payload. */
	return put(r, op, off, true, k, *e == E_ACK ? 8 : 0, 8, -1, RK_CONFORM_M_NONE);
}

/* A valid request at @p off must be answered: the QP still works. */
static bool
alive(struct rk_conform_run *r, int32_t off, const char *what)
{
	static const enum rk_probe_kind kind[] = { [E_ACK] = RK_PROBE_ACK,
						   [E_READ] = RK_PROBE_READ_RESP,
						   [E_ATOMIC] = RK_PROBE_ATOMIC_ACK };
	struct rk_probe_answer a[ANSWERS];
	enum expect e = E_ACK;
	char got[160];
	int n;

	if (!put_probe(r, off, &e))
		return false;
	n = rk_conform_wait(r, a, ANSWERS, 1);
	if (n > 0 && a[0].kind == kind[e] && a[0].psn == psn_at(r, off))
		return true;
	if (n < 0)
		return false;
	return rk_conform_fail(r, "%s: a valid request at psn 0x%06x then got %s", what,
			       psn_at(r, off), rk_conform_answer_str(a, (unsigned int)n, got,
								      sizeof(got)));
}

static bool
recvs_done(struct rk_conform_run *r, int want)
{
	int got;

	if (want < 0 || r->env->recv_done == NULL)
		return true;
	got = r->env->recv_done(r->env->ctx);
	if (got == want)
		return true;
	return rk_conform_fail(r, "%d receives completed, expected %d", got, want);
}

static void
run_one(struct rk_conform_run *r, const void *arg)
{
	const struct one *o = arg;

	if (needs_ro(o->xk) && r->dut.ro_r_key == 0)
		return rk_conform_na(r, "the DUT offers no read-only region");
	if (!put(r, o->opcode, o->off, o->ack_req, o->xk, o->len, o->dmalen, o->pad - 1, o->m))
		return;
	if (!expect(r, o->e, o->code, o->exp_off))
		return;
	if (o->after == A_ALIVE && !alive(r, o->next_off, "the QP stopped working"))
		return;
	if (o->after == A_DEAD) {
		enum expect e;

		if (!put_probe(r, o->next_off, &e))
			return;
		if (!expect(r, E_SILENT, 0, 0))
			return;
	}
	recvs_done(r, o->recvs_done - 1);
}

/* ------------------------------------------------------------ scripts */

/* A SEND at epsn, then the same again with AckReq clear (C9-105). */
static void
run_dup(struct rk_conform_run *r, const void *arg)
{
	uint8_t op = arg != NULL ? RK_OP_RDMA_WRITE_ONLY : RK_OP_SEND_ONLY;
	enum xk k = arg != NULL ? X_RETH : X_NONE;

	if (!put(r, op, 0, true, k, 16, 0, -1, 0) || !expect(r, E_ACK, 0, 0))
		return;
	if (!put(r, op, 0, false, k, 16, 0, -1, 0) || !expect(r, E_ACK, 0, 0))
		return;
	if (!recvs_done(r, arg != NULL ? -1 : 1))
		return;
	alive(r, 1, "after the duplicate");
}

/* Two packets ahead: one NAK-SEQ, not two (PSN-GAP-02). */
static void
run_nak_once(struct rk_conform_run *r, const void *arg)
{
	(void)arg;
	if (!put(r, RK_OP_SEND_ONLY, 1, true, X_NONE, 8, 0, -1, 0) ||
	    !expect(r, E_NAK, RK_AETH_NAK_PSN_SEQ_ERR, 0))
		return;
	if (!put(r, RK_OP_SEND_ONLY, 2, true, X_NONE, 8, 0, -1, 0) || !expect(r, E_SILENT, 0, 0))
		return;
	alive(r, 0, "after the gap");
}

/* The PSN after 0xFFFFFF is 0 (IBTA Vol1 9.7.1). */
static void
run_wrap(struct rk_conform_run *r, const void *arg)
{
	(void)arg;
	if (r->dut.epsn != 0xfffffe)
		return rk_conform_na(r, "the DUT's QP could not start at PSN 0xFFFFFE");
	for (int i = 0; i < 3; i++)
		if (!put(r, RK_OP_RDMA_WRITE_ONLY, i, i == 2, X_RETH, 8, 0, -1, 0))
			return;
	if (!expect(r, E_ACK, 0, 2))
		return;
	alive(r, 3, "after the wrap");
}

/*
 * A WRITE executed, then one 2^23 behind the next expected PSN: a
 * duplicate, ACKed with the last executed PSN (PSN-HALF-01, PSN-DUP-01).
 * Executing one first gives that ACK a PSN to carry.
 */
static void
run_behind_half(struct rk_conform_run *r, const void *arg)
{
	(void)arg;
	if (!put(r, RK_OP_RDMA_WRITE_ONLY, 0, true, X_RETH, 8, 0, -1, 0) || !expect(r, E_ACK, 0, 0))
		return;
	if (!put(r, RK_OP_RDMA_WRITE_ONLY, 1 - 0x800000, true, X_RETH, 8, 0, -1, 0) ||
	    !expect(r, E_ACK, 0, 0))
		return;
	alive(r, 1, "after the duplicate");
}

/* A new message before the LAST of the previous one (OPSEQ-02). */
static void
run_new_before_last(struct rk_conform_run *r, const void *arg)
{
	(void)arg;
	if (!put(r, RK_OP_SEND_FIRST, 0, false, X_NONE, LEN_PMTU, 0, -1, 0) ||
	    !put(r, RK_OP_RDMA_WRITE_ONLY, 1, true, X_RETH, 8, 0, -1, 0))
		return;
	expect(r, E_NAK, RK_AETH_NAK_INVALID_REQUEST, 1);
}

/* A SEND of PMTU-sized packets 64 bytes longer than the receive (LEN-RQ-01). */
static void
run_recv_overflow(struct rk_conform_run *r, const void *arg)
{
	uint32_t full = r->dut.recv_len / r->dut.pmtu;
	struct rk_probe_answer a[ANSWERS];
	int n;

	(void)arg;
	if (full == 0 || full > 64)
		return rk_conform_na(r, "receive of %u bytes, PMTU %u", r->dut.recv_len,
				     r->dut.pmtu);
	for (uint32_t i = 0; i <= full; i++) {
		uint8_t op = i == 0 ? RK_OP_SEND_FIRST : i < full ? RK_OP_SEND_MIDDLE :
			     RK_OP_SEND_LAST;

		if (!put(r, op, (int32_t)i, i == full, X_NONE, i < full ? LEN_PMTU : 64, 0, -1, 0))
			return;
	}
	n = rk_conform_wait(r, a, ANSWERS, 1);
	judge(r, a, n, E_NAK, NAK_INV, (int32_t)full);
}

/* The MSN counts messages, not packets (C9-148). */
static void
run_msn(struct rk_conform_run *r, const void *arg)
{
	static const uint8_t ops[] = { RK_OP_SEND_FIRST, RK_OP_SEND_MIDDLE, RK_OP_SEND_LAST,
				       RK_OP_SEND_ONLY };
	struct rk_probe_answer a[ANSWERS];
	uint32_t msn0 = 0;

	(void)arg;
	for (int i = 0; i < 4; i++) {
		int n;

		if (!put(r, ops[i], i, true, X_NONE, i < 2 ? LEN_PMTU : 8, 0, -1, 0))
			return;
		n = rk_conform_wait(r, a, ANSWERS, 1);
		if (!judge(r, a, n, E_ACK, 0, i))
			return;
		if (i == 0)
			msn0 = a[0].msn;
		else if (i == 1 && a[0].msn != msn0)
			return (void)rk_conform_fail(r, "MSN moved within a message: %u -> %u",
						     msn0, a[0].msn);
		else if (i == 2 && a[0].msn != ((msn0 + 1) & 0xffffff))
			return (void)rk_conform_fail(r, "MSN %u after SEND LAST, expected %u",
						     a[0].msn, (msn0 + 1) & 0xffffff);
		else if (i == 3 && a[0].msn != ((msn0 + 2) & 0xffffff))
			return (void)rk_conform_fail(r, "MSN %u after SEND ONLY, expected %u",
						     a[0].msn, (msn0 + 2) & 0xffffff);
	}
}

/* AckReq on the last of three: one ACK covers all (coalescing). */
static void
run_coalesce(struct rk_conform_run *r, const void *arg)
{
	struct rk_probe_answer a[ANSWERS];
	int n;

	(void)arg;
	for (int i = 0; i < 3; i++)
		if (!put(r, RK_OP_SEND_ONLY, i, i == 2, X_NONE, 8, 0, -1, 0))
			return;
	n = rk_conform_wait(r, a, ANSWERS, ANSWERS);
	if (n <= 0)
		return (void)rk_conform_fail(r, "no ACK for a request with AckReq set");
	if (a[n - 1].kind != RK_PROBE_ACK || a[n - 1].psn != psn_at(r, 2))
		return (void)rk_conform_fail(r, "the last answer is not an ACK of psn 0x%06x",
					     psn_at(r, 2));
	if (a[n - 1].msn != 3)
		return (void)rk_conform_fail(r, "ACK MSN %u after three messages, expected 3",
					     a[n - 1].msn);
	recvs_done(r, 3);
}

/* After an RNR NAK, a retry with a receive posted succeeds. */
static void
run_rnr_recovers(struct rk_conform_run *r, const void *arg)
{
	(void)arg;
	if (r->env->post_recv == NULL)
		return rk_conform_na(r, "the tester cannot make the DUT post a receive");
	if (!put(r, RK_OP_SEND_ONLY, 0, true, X_NONE, 8, 0, -1, 0) || !expect(r, E_RNR, 0, 0))
		return;
	if (r->env->post_recv(r->env->ctx, 1) != 0)
		return rk_conform_na(r, "posting a receive failed");
	if (!put(r, RK_OP_SEND_ONLY, 0, true, X_NONE, 8, 0, -1, 0) || !expect(r, E_ACK, 0, 0))
		return;
	recvs_done(r, 1);
}

/* After an RNR NAK on p, p+1 is not executed (RNR-GEN-04). */
static void
run_rnr_later(struct rk_conform_run *r, const void *arg)
{
	struct rk_probe_answer a[ANSWERS];
	int n;

	(void)arg;
	if (!put(r, RK_OP_SEND_ONLY, 0, false, X_NONE, 8, 0, -1, 0) || !expect(r, E_RNR, 0, 0))
		return;
	if (!put(r, RK_OP_RDMA_WRITE_ONLY, 1, true, X_RETH, 8, 0, -1, 0))
		return;
	n = rk_conform_wait(r, a, ANSWERS, ANSWERS);
	for (int i = 0; i < n; i++)
		if (a[i].kind == RK_PROBE_ACK && a[i].psn == psn_at(r, 1))
			return (void)rk_conform_fail(r, "psn 0x%06x after an RNR NAK on 0x%06x was ACKed",
						     psn_at(r, 1), psn_at(r, 0));
}

/* A READ of 3 PMTU + 1 bytes: FIRST, MIDDLE, MIDDLE, LAST (READ-RESP-01). */
static void
run_read_multi(struct rk_conform_run *r, const void *arg)
{
	static const uint8_t ops[] = { RK_OP_RDMA_READ_RESPONSE_FIRST,
				       RK_OP_RDMA_READ_RESPONSE_MIDDLE,
				       RK_OP_RDMA_READ_RESPONSE_MIDDLE,
				       RK_OP_RDMA_READ_RESPONSE_LAST };
	struct rk_probe_answer a[ANSWERS];
	int n;

	(void)arg;
	if (!put(r, RK_OP_RDMA_READ_REQUEST, 0, true, X_RETH, 0, 3 * r->dut.pmtu + 1, -1, 0))
		return;
	n = rk_conform_wait(r, a, ANSWERS, 4);
	if (n != 4)
		return (void)rk_conform_fail(r, "%d READ responses, expected 4", n < 0 ? 0 : n);
	for (int i = 0; i < 4; i++)
		if (a[i].opcode != ops[i] || a[i].psn != psn_at(r, i))
			return (void)rk_conform_fail(r, "response %d: opcode 0x%02x psn 0x%06x, expected "
						     "0x%02x psn 0x%06x", i, a[i].opcode, a[i].psn,
						     ops[i], psn_at(r, i));
	if (a[3].payload_len != 1)
		rk_conform_fail(r, "READ RESPONSE LAST carries %u bytes, expected 1",
				a[3].payload_len);
}

/* The request after a READ of n packets has PSN p + n (READ-NEXT-01). */
static void
run_read_next(struct rk_conform_run *r, const void *arg)
{
	struct rk_probe_answer a[ANSWERS];
	int n;

	(void)arg;
	if (!put(r, RK_OP_RDMA_READ_REQUEST, 0, true, X_RETH, 0, 2 * r->dut.pmtu, -1, 0))
		return;
	n = rk_conform_wait(r, a, ANSWERS, 2);
	if (n != 2)
		return (void)rk_conform_fail(r, "%d READ responses, expected 2", n < 0 ? 0 : n);
	if (!put(r, RK_OP_RDMA_WRITE_ONLY, 1, true, X_RETH, 8, 0, -1, 0) ||
	    !expect(r, E_NAK, RK_AETH_NAK_PSN_SEQ_ERR, 2))
		return;
	alive(r, 2, "after the READ");
}

/* A duplicate READ is answered again from memory (READ-DUP-01). */
static void
run_read_dup(struct rk_conform_run *r, const void *arg)
{
	(void)arg;
	if (!put(r, RK_OP_RDMA_READ_REQUEST, 0, true, X_RETH, 0, 64, -1, 0) ||
	    !expect(r, E_READ, 0, 0))
		return;
	if (!put(r, RK_OP_RDMA_READ_REQUEST, 0, true, X_RETH, 0, 64, -1, 0) ||
	    !expect(r, E_READ, 0, 0))
		return;
	alive(r, 1, "after the duplicate READ");
}

/* A duplicate atomic replays its answer and is not executed again. */
static void
run_atomic_dup(struct rk_conform_run *r, const void *arg)
{
	uint64_t v = 0;

	(void)arg;
	if (!put(r, RK_OP_FETCH_ADD, 0, true, X_ATOM, 0, 0, -1, 0) || !expect(r, E_ATOMIC, 0, 0))
		return;
	if (!put(r, RK_OP_FETCH_ADD, 0, true, X_ATOM, 0, 0, -1, 0) || !expect(r, E_ATOMIC, 0, 0))
		return;
	if (r->env->read_mem != NULL && r->env->read_mem(r->env->ctx, 64, &v, 8) == 0 && v != 1)
		return (void)rk_conform_fail(r, "the duplicate FETCH_ADD was executed again "
					     "(value %llu, expected 1)", (unsigned long long)v);
	alive(r, 1, "after the duplicate atomic");
}

/* UC: a bad R_Key drops the message only; the next WRITE lands (MEM-UC-01). */
static void
run_uc_rkey(struct rk_conform_run *r, const void *arg)
{
	static const uint8_t pat[8] = "UCWRITE!";
	struct rk_xeth_fields x;
	struct rk_probe_intent in = { .opcode = OP_UC(RK_OP_RDMA_WRITE_ONLY), .x = &x,
				      .payload = pat, .len = 8, .pad_cnt = -1 };
	uint8_t got[8];

	(void)arg;
	fill_x(r, X_RETH_BADKEY, 8, &x);
	if (rk_conform_send(r, &in, 0) != 0 || !expect(r, E_SILENT, 0, 0))
		return;
	fill_x(r, X_RETH, 8, &x);
	in.psn_off = 1;
	if (rk_conform_send(r, &in, 0) != 0 || !expect(r, E_SILENT, 0, 0))
		return;
	if (r->env->read_mem == NULL)
		return rk_conform_na(r, "the tester cannot read the DUT's memory");
	if (r->env->read_mem(r->env->ctx, 0, got, 8) != 0 || memcmp(got, pat, 8) != 0)
		rk_conform_fail(r, "the UC WRITE after the bad R_Key did not land");
}

/* UD: a receive is consumed exactly by the valid datagram. */
static void
run_ud(struct rk_conform_run *r, const void *arg)
{
	const struct one *o = arg;

	if (r->env->recv_done == NULL)
		return rk_conform_na(r, "the tester cannot see the DUT's receive completions");
	if (!put(r, o->opcode, 0, false, o->xk, o->len, 0, -1, o->m) || !expect(r, E_SILENT, 0, 0))
		return;
	if (!recvs_done(r, o->recvs_done - 1))
		return;
	/* Then a valid datagram is still delivered. */
	if (!put(r, OP_UD(RK_OP_SEND_ONLY), 1, false, X_DETH, 8, 0, -1, 0) ||
	    !expect(r, E_SILENT, 0, 0))
		return;
	recvs_done(r, o->recvs_done);
}

/* ------------------------------------------------------------ catalog */

#define W RK_OP_RDMA_WRITE_ONLY
#define S RK_OP_SEND_ONLY
#define RD RK_OP_RDMA_READ_REQUEST
#define ONE(...) (&(const struct one){ __VA_ARGS__ })
/* Fields whose 0 means "as usual": a forced PadCnt, a receive count to check. */
#define PAD(n) ((n) + 1)
#define DONE(n) ((n) + 1)

#define C(id_, rule_, must_, tr_, recvs_, fn_, arg_) \
	{ .id = id_, .rule = rule_, .must = must_, .transport = RK_CONFORM_##tr_, \
	  .recvs = recvs_, .run = fn_, .arg = arg_ }
/* A case whose valid requests need remote access to the DUT's region. */
#define WR RK_CONFORM_ACC_WRITE
#define RD_ RK_CONFORM_ACC_READ
#define AT RK_CONFORM_ACC_ATOMIC
#define RO RK_CONFORM_ACC_RO
#define NR RK_CONFORM_ACC_NO_RECV
#define CA(acc_, id_, rule_, must_, tr_, recvs_, fn_, arg_) \
	{ .id = id_, .rule = rule_, .must = must_, .transport = RK_CONFORM_##tr_, \
	  .recvs = recvs_, .access = acc_, .run = fn_, .arg = arg_ }

static const struct rk_conform_case cases[] = {
	/* PSN */
	C("rc.psn.expected", "IBTA Vol1 ch. 9 [PSN-EXP-01]",
	  "ACK a SEND at the expected PSN with that PSN", RC, 1, run_one,
	  ONE(.opcode = S, .ack_req = true, .len = 8, .e = E_ACK, .after = A_ALIVE, .next_off = 1,
	      .recvs_done = DONE(1))),
	C("rc.psn.ahead", "IBTA Vol1 ch. 9 [PSN-GAP-01]",
	  "NAK-SEQ a request ahead of the expected PSN, carrying the expected PSN", RC, 1,
	  run_one, ONE(.opcode = S, .off = 1, .ack_req = true, .len = 8, .e = E_NAK,
		       .code = NAK_SEQ, .after = A_ALIVE, .recvs_done = DONE(0))),
	CA(WR, "rc.psn.ahead_write", "IBTA Vol1 ch. 9 [PSN-GAP-01]",
	  "NAK-SEQ a WRITE ahead of the expected PSN and not execute it", RC, 0, run_one,
	  ONE(.opcode = W, .off = 5, .ack_req = true, .xk = X_RETH, .len = 8, .e = E_NAK,
	      .code = NAK_SEQ, .after = A_ALIVE)),
	C("rc.psn.ahead_half", "IBTA Vol1 9.7.1 [PSN-HALF-01]",
	  "treat a PSN 2^23-1 ahead as out of sequence (NAK-SEQ)", RC, 1, run_one,
	  ONE(.opcode = S, .off = 0x7fffff, .ack_req = true, .len = 8, .e = E_NAK,
	      .code = NAK_SEQ, .after = A_ALIVE, .recvs_done = DONE(0))),
	CA(WR, "rc.psn.behind_half", "IBTA Vol1 9.7.1 [PSN-HALF-01]",
	  "treat a PSN 2^23 behind as a duplicate (ACK, not NAK-SEQ)", RC, 0, run_behind_half,
	  NULL),
	C("rc.psn.duplicate", "IBTA Vol1 ch. 9 (C9-105) [PSN-DUP-01]",
	  "ACK a duplicate SEND without executing it again", RC, 2, run_dup, NULL),
	CA(WR, "rc.psn.duplicate_write", "IBTA Vol1 ch. 9 (C9-105) [PSN-DUP-02]",
	  "ACK a duplicate WRITE even with AckReq clear", RC, 0, run_dup, "write"),
	C("rc.psn.nak_once", "IBTA Vol1 ch. 9 [PSN-GAP-02]",
	  "send one NAK-SEQ per gap, then drop later out-of-sequence packets", RC, 2,
	  run_nak_once, NULL),
	CA(WR, "rc.psn.wrap", "IBTA Vol1 9.7.1 [PSN-WRAP-01]",
	  "take PSNs 0xFFFFFE, 0xFFFFFF, 0 in order (24-bit PSN wrap)", RC, 0, run_wrap, NULL),
	/* Opcode sequence and reserved opcodes */
	C("rc.opcode.reserved", "IBTA Vol1 ch. 9 [BTH-OPC-02]",
	  "NAK-INV a reserved RC opcode (0x19) at the expected PSN", RC, 0, run_one,
	  ONE(.opcode = 0x19, .ack_req = true, .e = E_NAK, .code = NAK_INV)),
	C("rc.opcode.middle_first", "IBTA Vol1 ch. 9 [OPSEQ-01]",
	  "NAK-INV a SEND MIDDLE with no SEND FIRST", RC, 1, run_one,
	  ONE(.opcode = RK_OP_SEND_MIDDLE, .ack_req = true, .len = LEN_PMTU, .e = E_NAK,
	      .code = NAK_INV)),
	C("rc.opcode.last_first", "IBTA Vol1 ch. 9 [OPSEQ-01]",
	  "NAK-INV a SEND LAST with no SEND FIRST", RC, 1, run_one,
	  ONE(.opcode = RK_OP_SEND_LAST, .ack_req = true, .len = 8, .e = E_NAK, .code = NAK_INV)),
	C("rc.opcode.write_middle_first", "IBTA Vol1 ch. 9 [OPSEQ-01]",
	  "NAK-INV a WRITE MIDDLE with no WRITE FIRST", RC, 0, run_one,
	  ONE(.opcode = RK_OP_RDMA_WRITE_MIDDLE, .ack_req = true, .len = LEN_PMTU, .e = E_NAK,
	      .code = NAK_INV)),
	C("rc.opcode.new_before_last", "IBTA Vol1 ch. 9 [OPSEQ-02]",
	  "NAK-INV a new message before the LAST packet of the previous one", RC, 1,
	  run_new_before_last, NULL),
	C("rc.opcode.uc_to_rc", "IBTA Vol1 ch. 9 [BTH-OPC-01]",
	  "drop a UC opcode sent to an RC QP, without NAK", RC, 1, run_one,
	  ONE(.opcode = OP_UC(RK_OP_SEND_ONLY), .ack_req = true, .len = 8, .e = E_SILENT,
	      .after = A_ALIVE, .recvs_done = DONE(0))),
	C("rc.opcode.ud_to_rc", "IBTA Vol1 ch. 9 [BTH-OPC-01]",
	  "drop a UD opcode sent to an RC QP, without NAK", RC, 1, run_one,
	  ONE(.opcode = OP_UD(RK_OP_SEND_ONLY), .xk = X_DETH, .len = 8, .e = E_SILENT,
	      .after = A_ALIVE, .recvs_done = DONE(0))),
	C("rc.nak.fatal_error_state", "IBTA Vol1 ch. 9 [OPSEQ-01]",
	  "after a class C NAK (invalid request) answer nothing more", RC, 1, run_one,
	  ONE(.opcode = RK_OP_SEND_MIDDLE, .ack_req = true, .len = LEN_PMTU, .e = E_NAK,
	      .code = NAK_INV, .after = A_DEAD)),
	/* Lengths and PadCnt */
	C("rc.len.send_over_pmtu", "IBTA Vol1 ch. 9 (C9-92) [LEN-MTU-02]",
	  "NAK-INV a SEND ONLY with PMTU+4 bytes", RC, 1, run_one,
	  ONE(.opcode = S, .ack_req = true, .len = LEN_PMTU_PLUS4, .e = E_NAK, .code = NAK_INV)),
	C("rc.len.send_first_short", "IBTA Vol1 ch. 9 (C9-92) [LEN-MTU-01]",
	  "NAK-INV a SEND FIRST shorter than the PMTU", RC, 1, run_one,
	  ONE(.opcode = RK_OP_SEND_FIRST, .ack_req = true, .len = LEN_PMTU_MINUS4, .e = E_NAK,
	      .code = NAK_INV)),
	CA(WR, "rc.len.write_over_dmalen", "IBTA Vol1 ch. 9 (C9-92) [LEN-WR-01]",
	  "NAK-INV a WRITE ONLY carrying more bytes than its DMALen", RC, 0, run_one,
	  ONE(.opcode = W, .ack_req = true, .xk = X_RETH, .len = 64, .dmalen = 32, .e = E_NAK,
	      .code = NAK_INV)),
	CA(WR, "rc.len.write_under_dmalen", "IBTA Vol1 ch. 9 (C9-92) [LEN-WR-01]",
	  "NAK-INV a WRITE ONLY carrying fewer bytes than its DMALen", RC, 0, run_one,
	  ONE(.opcode = W, .ack_req = true, .xk = X_RETH, .len = 16, .dmalen = 32, .e = E_NAK,
	      .code = NAK_INV)),
	C("rc.len.recv_overflow", "IBTA Vol1 ch. 9 [LEN-RQ-01]",
	  "NAK-INV a SEND longer than the posted receive", RC, 1, run_recv_overflow, NULL),
	CA(RD_, "rc.len.read_dmalen_huge", "IBTA Vol1 ch. 9 (C9-94) [MEM-DMALEN-01]",
	  "NAK-INV a READ whose DMALen exceeds 2^31", RC, 0, run_one,
	  ONE(.opcode = RD, .ack_req = true, .xk = X_RETH_HUGE, .e = E_NAK, .code = NAK_INV)),
	CA(RD_, "rc.len.read_with_payload", "IBTA Vol1 ch. 9 (C9-92)",
	  "NAK-INV a READ request that carries payload", RC, 0, run_one,
	  ONE(.opcode = RD, .ack_req = true, .xk = X_RETH, .len = 8, .dmalen = 64, .e = E_NAK,
	      .code = NAK_INV)),
	CA(WR, "rc.pad.lying", "IBTA Vol1 9.2 [BTH-PAD-01]",
	  "NAK-INV a WRITE whose PadCnt makes its length disagree with DMALen", RC, 0, run_one,
	  ONE(.opcode = W, .ack_req = true, .xk = X_RETH, .len = 5, .dmalen = 5, .pad = PAD(0),
	      .e = E_NAK, .code = NAK_INV)),
	C("rc.pad.exceeds_payload", "IBTA Vol1 9.2 [BTH-PAD-01]",
	  "NAK-INV a SEND whose PadCnt is larger than its payload", RC, 1, run_one,
	  ONE(.opcode = S, .ack_req = true, .len = 0, .pad = PAD(3), .e = E_NAK, .code = NAK_INV)),
	/* Remote access */
	CA(WR, "rc.rkey.bad_write", "IBTA Vol1 ch. 9 [MEM-RKEY-01]",
	  "NAK-RACC a WRITE with an R_Key it never gave", RC, 0, run_one,
	  ONE(.opcode = W, .ack_req = true, .xk = X_RETH_BADKEY, .len = 8, .e = E_NAK,
	      .code = NAK_RACC)),
	CA(RD_, "rc.rkey.bad_read", "IBTA Vol1 ch. 9 [MEM-RKEY-01]",
	  "NAK-RACC a READ with an R_Key it never gave", RC, 0, run_one,
	  ONE(.opcode = RD, .ack_req = true, .xk = X_RETH_BADKEY, .dmalen = 64, .e = E_NAK,
	      .code = NAK_RACC)),
	CA(AT, "rc.rkey.bad_atomic", "IBTA Vol1 ch. 9 [MEM-RKEY-01]",
	  "NAK-RACC a FETCH_ADD with an R_Key it never gave", RC, 0, run_one,
	  ONE(.opcode = RK_OP_FETCH_ADD, .ack_req = true, .xk = X_ATOM_BADKEY, .e = E_NAK,
	      .code = NAK_RACC)),
	CA(WR, "rc.va.oob_write", "IBTA Vol1 ch. 9 [MEM-BOUNDS-01]",
	  "NAK-RACC a WRITE that runs past the end of the region", RC, 0, run_one,
	  ONE(.opcode = W, .ack_req = true, .xk = X_RETH_OOB, .len = 8, .e = E_NAK,
	      .code = NAK_RACC)),
	CA(RD_, "rc.va.oob_read", "IBTA Vol1 ch. 9 [MEM-BOUNDS-01]",
	  "NAK-RACC a READ that runs past the end of the region", RC, 0, run_one,
	  ONE(.opcode = RD, .ack_req = true, .xk = X_RETH_OOB, .e = E_NAK, .code = NAK_RACC)),
	CA(WR, "rc.va.wrap", "IBTA Vol1 ch. 9 [MEM-BOUNDS-01]",
	  "NAK-RACC a WRITE whose VA + DMALen wraps 2^64", RC, 0, run_one,
	  ONE(.opcode = W, .ack_req = true, .xk = X_RETH_WRAP, .len = 8, .e = E_NAK,
	      .code = NAK_RACC)),
	CA(RO, "rc.access.write_read_only", "IBTA Vol1 ch. 9 [MEM-ACC-01]",
	  "NAK-RACC a WRITE to a region registered for remote read only", RC, 0, run_one,
	  ONE(.opcode = W, .ack_req = true, .xk = X_RETH_RO, .len = 8, .e = E_NAK,
	      .code = NAK_RACC)),
	CA(RO, "rc.access.atomic_read_only", "IBTA Vol1 ch. 9 [MEM-ACC-01]",
	  "NAK-RACC an atomic on a region registered for remote read only", RC, 0, run_one,
	  ONE(.opcode = RK_OP_FETCH_ADD, .ack_req = true, .xk = X_ATOM_RO, .e = E_NAK,
	      .code = NAK_RACC)),
	CA(RO, "rc.access.read_read_only", "IBTA Vol1 ch. 9 [MEM-ACC-01]",
	  "answer a READ of a region registered for remote read", RC, 0, run_one,
	  ONE(.opcode = RD, .ack_req = true, .xk = X_RETH_RO, .dmalen = 16, .e = E_READ)),
	CA(WR, "rc.reth.zero_len_write", "IBTA Vol1 ch. 9 (C9-88) [MEM-ZERO-01]",
	  "ACK a zero-length WRITE without checking its R_Key or VA", RC, 0, run_one,
	  ONE(.opcode = W, .ack_req = true, .xk = X_RETH_ZERO, .e = E_ACK, .after = A_ALIVE,
	      .next_off = 1)),
	CA(RD_, "rc.reth.zero_len_read", "IBTA Vol1 ch. 9 (C9-88) [READ-ZERO-01]",
	  "answer a zero-length READ with one empty response, no R_Key check", RC, 0, run_one,
	  ONE(.opcode = RD, .ack_req = true, .xk = X_RETH_ZERO, .e = E_READ, .after = A_ALIVE,
	      .next_off = 1)),
	/* READ and atomics */
	CA(RD_, "rc.read.single", "IBTA Vol1 9.4.3 [READ-RESP-02]",
	  "answer a 64-byte READ with one READ RESPONSE ONLY at its PSN", RC, 0, run_one,
	  ONE(.opcode = RD, .ack_req = true, .xk = X_RETH, .dmalen = 64, .e = E_READ,
	      .after = A_ALIVE, .next_off = 1)),
	CA(RD_, "rc.read.multi", "IBTA Vol1 9.4.3 [READ-RESP-01]",
	  "answer a READ of 3 PMTU + 1 bytes with FIRST, MIDDLE, MIDDLE, LAST", RC, 0,
	  run_read_multi, NULL),
	CA(RD_, "rc.read.next_psn", "IBTA Vol1 ch. 9 [READ-NEXT-01]",
	  "expect the request after an n-packet READ at PSN + n", RC, 0, run_read_next, NULL),
	CA(RD_, "rc.read.duplicate", "IBTA Vol1 ch. 9 (C9-105) [READ-DUP-01]",
	  "answer a duplicate READ again from memory", RC, 0, run_read_dup, NULL),
	CA(AT, "rc.atomic.fetch_add", "IBTA Vol1 ch. 9 [ATOM-RESP-01]",
	  "answer an aligned FETCH_ADD with an atomic ACK at its PSN", RC, 0, run_one,
	  ONE(.opcode = RK_OP_FETCH_ADD, .ack_req = true, .xk = X_ATOM, .e = E_ATOMIC,
	      .after = A_ALIVE, .next_off = 1)),
	CA(AT, "rc.atomic.cmp_swap", "IBTA Vol1 ch. 9 [ATOM-RESP-01]",
	  "answer an aligned CMP_SWAP with an atomic ACK at its PSN", RC, 0, run_one,
	  ONE(.opcode = RK_OP_COMPARE_SWAP, .ack_req = true, .xk = X_ATOM, .e = E_ATOMIC,
	      .after = A_ALIVE, .next_off = 1)),
	CA(AT, "rc.atomic.unaligned", "IBTA Vol1 ch. 9 [ATOM-ALIGN-01]",
	  "NAK-INV an atomic whose VA is not 8-byte aligned", RC, 0, run_one,
	  ONE(.opcode = RK_OP_FETCH_ADD, .ack_req = true, .xk = X_ATOM_UNALIGNED, .e = E_NAK,
	      .code = NAK_INV)),
	CA(AT, "rc.atomic.duplicate", "IBTA Vol1 ch. 9 (C9-105) [ATOM-DUP-01]",
	  "replay a duplicate atomic's answer without executing it again", RC, 0,
	  run_atomic_dup, NULL),
	/* ACK and MSN */
	C("rc.ack.msn_messages", "IBTA Vol1 9.7.5.1.2 (C9-148) [ACK-MSN-01]",
	  "advance the AETH MSN once per message, not per packet", RC, 2, run_msn, NULL),
	C("rc.ack.coalesced", "IBTA Vol1 9.7.5.1.1 [ACK-REQ-01]",
	  "ACK the last of three SENDs (AckReq on the last) with MSN 3", RC, 3, run_coalesce,
	  NULL),
	/* RNR */
	CA(NR, "rc.rnr.no_recv", "IBTA Vol1 ch. 9 [RNR-GEN-01]",
	  "RNR NAK a SEND with no receive posted, with the QP's minimum RNR timer", RC, 0,
	  run_one, ONE(.opcode = S, .ack_req = true, .len = 8, .e = E_RNR)),
	CA(WR | NR, "rc.rnr.write_no_recv", "IBTA Vol1 ch. 9 [RNR-GEN-02]",
	  "ACK a WRITE with no receive posted (a WRITE consumes none)", RC, 0, run_one,
	  ONE(.opcode = W, .ack_req = true, .xk = X_RETH, .len = 8, .e = E_ACK)),
	CA(WR | NR, "rc.rnr.write_imm_no_recv", "IBTA Vol1 ch. 9 [RNR-GEN-03]",
	  "RNR NAK a WRITE with immediate when no receive is posted", RC, 0, run_one,
	  ONE(.opcode = RK_OP_RDMA_WRITE_ONLY_IMM, .ack_req = true, .xk = X_RETH, .len = 8,
	      .e = E_RNR)),
	CA(NR, "rc.rnr.recovers", "IBTA Vol1 ch. 9 [RNR-GEN-01]",
	  "keep the QP usable after an RNR NAK: the retry is ACKed once a receive is posted", RC,
	  0, run_rnr_recovers, NULL),
	CA(WR | NR, "rc.rnr.later_dropped", "IBTA Vol1 ch. 9 [RNR-GEN-04]",
	  "not execute the packet after one that got an RNR NAK", RC, 0, run_rnr_later, NULL),
	/* Headers */
	C("rc.icrc.bad", "IBTA Annex A17 (CA17-24) [ICRC-01]",
	  "drop a request with a bad ICRC silently", RC, 1, run_one,
	  ONE(.opcode = S, .ack_req = true, .len = 8, .m = RK_CONFORM_M_BAD_ICRC, .e = E_SILENT,
	      .after = A_ALIVE, .recvs_done = DONE(0))),
	C("rc.icrc.bad_ahead", "IBTA Annex A17 (CA17-24) [ICRC-05]",
	  "drop a bad-ICRC packet ahead of the expected PSN without NAK-SEQ", RC, 1, run_one,
	  ONE(.opcode = S, .off = 1, .ack_req = true, .len = 8, .m = RK_CONFORM_M_BAD_ICRC,
	      .e = E_SILENT, .after = A_ALIVE)),
	C("rc.bth.tver", "IBTA Annex A17 (CA17-23) [BTH-TVER-01]",
	  "drop a request whose BTH.TVer is not 0", RC, 1, run_one,
	  ONE(.opcode = S, .ack_req = true, .len = 8, .m = RK_CONFORM_M_TVER, .e = E_SILENT,
	      .after = A_ALIVE, .recvs_done = DONE(0))),
	C("rc.bth.pkey", "IBTA Vol1 ch. 9 [BTH-PKEY-01]",
	  "drop a request whose P_Key is not in its partition table", RC, 1, run_one,
	  ONE(.opcode = S, .ack_req = true, .len = 8, .m = RK_CONFORM_M_PKEY, .e = E_SILENT,
	      .after = A_ALIVE, .recvs_done = DONE(0))),
	C("rc.bth.dest_qp_unknown", "IBTA Vol1 ch. 9 [BTH-QPN-02]",
	  "drop a request to a QP that does not exist", RC, 1, run_one,
	  ONE(.opcode = S, .ack_req = true, .len = 8, .m = RK_CONFORM_M_BAD_QPN, .e = E_SILENT,
	      .after = A_ALIVE, .recvs_done = DONE(0))),
	CA(WR, "rc.bth.migreq", "IBTA Vol1 9.2 [BTH-MIG-01]",
	  "accept a request with MigReq set when no path migration is armed", RC, 0, run_one,
	  ONE(.opcode = W, .ack_req = true, .xk = X_RETH, .len = 8, .m = RK_CONFORM_M_MIGREQ,
	      .e = E_ACK)),
	CA(WR, "rc.bth.reserved", "IBTA Vol1 9.2",
	  "ignore the BTH's reserved bits on receipt", RC, 0, run_one,
	  ONE(.opcode = W, .ack_req = true, .xk = X_RETH, .len = 8, .m = RK_CONFORM_M_RESV_BTH,
	      .e = E_ACK)),
	C("rc.bth.cnp_to_qp", "IBTA Annex A17 A17.9",
	  "not answer a CNP with an ACK or NAK", RC, 0, run_one,
	  ONE(.opcode = RK_OP_CNP, .e = E_SILENT, .after = A_ALIVE)),
	/* UC */
	C("uc.psn.gap_no_nak", "IBTA Vol1 ch. 9 [MEM-UC-01]",
	  "never NAK on UC: a PSN gap is silent", UC, 1, run_one,
	  ONE(.opcode = OP_UC(RK_OP_SEND_ONLY), .off = 3, .ack_req = true, .len = 8,
	      .e = E_SILENT)),
	CA(WR, "uc.rkey.bad_then_good", "IBTA Vol1 ch. 9 [MEM-UC-01]",
	  "drop a UC WRITE with a bad R_Key silently and take the next WRITE", UC, 0,
	  run_uc_rkey, NULL),
	CA(NR, "uc.no_recv", "IBTA Vol1 ch. 9 [UD-NOWQE-01]",
	  "drop a UC SEND with no receive posted, no RNR NAK", UC, 0, run_one,
	  ONE(.opcode = OP_UC(RK_OP_SEND_ONLY), .ack_req = true, .len = 8, .e = E_SILENT)),
	C("uc.opcode.rc_to_uc", "IBTA Vol1 ch. 9 [BTH-OPC-01]",
	  "drop an RC opcode sent to a UC QP", UC, 1, run_one,
	  ONE(.opcode = S, .ack_req = true, .len = 8, .e = E_SILENT, .recvs_done = DONE(0))),
	/* UD */
	C("ud.qkey.mismatch", "IBTA Vol1 ch. 9 [UD-QKEY-01]",
	  "drop a datagram whose Q_Key differs from the QP's", UD, 2, run_ud,
	  ONE(.opcode = OP_UD(RK_OP_SEND_ONLY), .xk = X_DETH_BADQKEY, .len = 8, .recvs_done = DONE(0))),
	C("ud.qkey.match", "IBTA Vol1 ch. 9 [UD-QKEY-01]",
	  "deliver a datagram with the QP's Q_Key", UD, 2, run_ud,
	  ONE(.opcode = OP_UD(RK_OP_SEND_ONLY), .xk = X_DETH, .len = 8, .recvs_done = DONE(1))),
	C("ud.len.over_pmtu", "IBTA Vol1 ch. 9 [UD-LEN-01]",
	  "drop a datagram longer than the PMTU", UD, 2, run_ud,
	  ONE(.opcode = OP_UD(RK_OP_SEND_ONLY), .xk = X_DETH, .len = LEN_PMTU_PLUS4,
	      .recvs_done = DONE(0))),
	C("ud.opcode.reserved", "IBTA Vol1 ch. 9 [UD-OPC-01]",
	  "drop a datagram with a reserved UD opcode (0x66)", UD, 2, run_ud,
	  ONE(.opcode = OP_UD(0x06), .xk = X_DETH, .len = 8, .recvs_done = DONE(0))),
	C("ud.bad_icrc", "IBTA Annex A17 (CA17-24) [ICRC-01]",
	  "drop a datagram with a bad ICRC", UD, 2, run_ud,
	  ONE(.opcode = OP_UD(RK_OP_SEND_ONLY), .xk = X_DETH, .len = 8,
	      .m = RK_CONFORM_M_BAD_ICRC, .recvs_done = DONE(0))),
	CA(NR, "ud.no_recv", "IBTA Vol1 ch. 9 [UD-NOWQE-01]",
	  "drop a datagram with no receive posted, no RNR NAK", UD, 0, run_one,
	  ONE(.opcode = OP_UD(RK_OP_SEND_ONLY), .xk = X_DETH, .len = 8, .e = E_SILENT)),
};

#define N_ROCE (sizeof(cases) / sizeof(cases[0]))
#define N_MORE_MAX 64u

/* RoCEv2 cases, the CE/CNP ones (rk_conform_ecn.c), iWARP's
 * (rk_conform_iw.c), then CM's (rk_conform_cm.c), joined once. */
const struct rk_conform_case *
rk_conform_cases(unsigned int *n)
{
	static struct rk_conform_case all[N_ROCE + 3 * N_MORE_MAX];
	static unsigned int nall;

	if (nall == 0) {
		unsigned int necn, niw, ncm;
		const struct rk_conform_case *ecn = rk_conform_ecn_cases(&necn);
		const struct rk_conform_case *iw = rk_conform_iw_cases(&niw);
		const struct rk_conform_case *cm = rk_conform_cm_cases(&ncm);

		necn = necn < N_MORE_MAX ? necn : N_MORE_MAX;
		niw = niw < N_MORE_MAX ? niw : N_MORE_MAX;
		ncm = ncm < N_MORE_MAX ? ncm : N_MORE_MAX;
		memcpy(all, cases, sizeof(cases));
		memcpy(all + N_ROCE, ecn, necn * sizeof(*ecn));
		memcpy(all + N_ROCE + necn, iw, niw * sizeof(*iw));
		memcpy(all + N_ROCE + necn + niw, cm, ncm * sizeof(*cm));
		nall = (unsigned int)N_ROCE + necn + niw + ncm;
	}
	*n = nall;
	return all;
}
