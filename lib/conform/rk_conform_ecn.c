/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CE-marked requests and the CNPs they draw (IBTA Annex A17 A17.9; rules
 * CNP-GEN-01/02, CNP-FMT-01 and BTH-FECN-01 of doc/spec-rules.md).
 *
 * RoCEv2 congestion control is optional: a DUT without it sends no CNP,
 * and CA17-44 does not bind it, so a missing CNP is "not applicable",
 * never a FAIL. A CNP that comes must have Annex A17's format, and none
 * may come for a packet the DUT had to drop.
 */
#include "rk_conform.h"

#include <string.h>

#include "rk_opcode.h"
#include "rk_xeth.h"

#define ANSWERS 8
#define DATA_LEN 16

/* A valid WRITE of DATA_LEN bytes at the region's start, AckReq set, edited by @p m. */
static bool
put_write(struct rk_conform_run *r, enum rk_conform_mangle m)
{
	static const uint8_t data[DATA_LEN];
	struct rk_xeth_fields x = { .reth_va = r->dut.va, .reth_r_key = r->dut.r_key,
				    .reth_dma_len = DATA_LEN };
	struct rk_probe_intent in = { .opcode = RK_OP_RDMA_WRITE_ONLY, .ack_req = true, .x = &x,
				      .payload = data, .len = DATA_LEN, .pad_cnt = -1 };

	return rk_conform_send(r, &in, m) == 0;
}

/* Answers until @p want came or the wait ended; the first ACK and CNP found. */
static int
collect(struct rk_conform_run *r, unsigned int want, struct rk_probe_answer *a,
	const struct rk_probe_answer **ack, const struct rk_probe_answer **cnp)
{
	int n = rk_conform_wait(r, a, ANSWERS, want);

	*ack = *cnp = NULL;
	for (int i = 0; i < n; i++) {
		if (a[i].kind == RK_PROBE_ACK && *ack == NULL)
			*ack = &a[i];
		else if (a[i].kind == RK_PROBE_CNP && *cnp == NULL)
			*cnp = &a[i];
	}
	return n;
}

/* The first ACK must acknowledge the request just sent; else FAIL saying what @p what drew. */
static bool
acked(struct rk_conform_run *r, const struct rk_probe_answer *a, int n,
      const struct rk_probe_answer *ack, const char *what)
{
	char s[160];

	if (ack != NULL && ack->psn == r->probe.target.epsn)
		return true;
	return rk_conform_fail(r, "%s drew %s, not an ACK of PSN 0x%06x", what,
			       rk_conform_answer_str(a, (unsigned int)n, s, sizeof(s)),
			       r->probe.target.epsn);
}

/* Annex A17 Figure 6 (CNP-FMT-01): PSN 0, flags 0, the marked packet's P_Key, DestQP the sender's. */
static bool
cnp_format(struct rk_conform_run *r, const struct rk_probe_answer *c)
{
	uint16_t pkey = r->probe.target.p_key ? r->probe.target.p_key : 0xffff;

	if (r->dut.peer_qpn != 0 && c->dest_qp != r->dut.peer_qpn)
		return rk_conform_fail(r, "CNP to DestQP 0x%06x, not the marked packet's sender "
				       "QP 0x%06x", c->dest_qp, r->dut.peer_qpn);
	if (c->psn != 0)
		return rk_conform_fail(r, "CNP with PSN 0x%06x, not 0", c->psn);
	if (c->bth_flags != 0)
		return rk_conform_fail(r, "CNP with BTH SE/M/PadCnt/TVer byte 0x%02x, not 0",
				       c->bth_flags);
	if (c->p_key != pkey)
		return rk_conform_fail(r, "CNP with P_Key 0x%04x, not the marked packet's 0x%04x",
				       c->p_key, pkey);
	if (!c->resv_zero)
		return rk_conform_fail(r, "CNP whose 16 reserved bytes are not 0 (or missing)");
	if (!c->icrc_good)
		return rk_conform_fail(r, "CNP with a bad ICRC");
	return true;
}

/* CNP-GEN-01, CNP-FMT-01: a CE-marked valid WRITE is ACKed; a CNP, if any, is well formed. */
static void
run_cnp(struct rk_conform_run *r, const void *arg)
{
	struct rk_probe_answer a[ANSWERS];
	const struct rk_probe_answer *ack, *cnp;
	int n;

	(void)arg;
	if (!put_write(r, RK_CONFORM_M_ECN_CE) || (n = collect(r, 2, a, &ack, &cnp)) < 0 ||
	    !acked(r, a, n, ack, "the CE-marked WRITE"))
		return;
	if (cnp == NULL)
		return rk_conform_na(r, "no CNP: the DUT does no RoCEv2 congestion control "
				     "(CA17-44 binds only those that do)");
	cnp_format(r, cnp);
}

/* CNP-GEN-02: a CE mark on a packet with a bad ICRC draws nothing, no CNP either; the
 * QP then ACKs the same WRITE intact. */
static void
run_cnp_bad_icrc(struct rk_conform_run *r, const void *arg)
{
	struct rk_probe_answer a[ANSWERS];
	const struct rk_probe_answer *ack, *cnp;
	char s[160];
	int n;

	(void)arg;
	if (!put_write(r, RK_CONFORM_M_ECN_CE_BAD_ICRC) ||
	    (n = collect(r, ANSWERS, a, &ack, &cnp)) < 0)
		return;
	if (n > 0) {
		rk_conform_fail(r, "a CE-marked WRITE with a bad ICRC drew %s%s",
				rk_conform_answer_str(a, (unsigned int)n, s, sizeof(s)),
				cnp != NULL ? " (a CNP for a packet it had to drop)" : "");
		return;
	}
	/* Silence alone passes nothing: the same WRITE, intact, is ACKed. */
	if (put_write(r, RK_CONFORM_M_NONE) && (n = collect(r, 1, a, &ack, &cnp)) >= 0)
		acked(r, a, n, ack, "after the dropped packet, the same WRITE intact");
}

/* BTH-FECN-01: FECN and BECN set on a valid WRITE: ACKed as any, and no CNP from those bits. */
static void
run_fecn_becn(struct rk_conform_run *r, const void *arg)
{
	struct rk_probe_answer a[ANSWERS];
	const struct rk_probe_answer *ack, *cnp;
	int n;

	(void)arg;
	if (!put_write(r, RK_CONFORM_M_FECN_BECN) || (n = collect(r, 2, a, &ack, &cnp)) < 0 ||
	    !acked(r, a, n, ack, "a WRITE with FECN and BECN set"))
		return;
	if (cnp != NULL)
		rk_conform_fail(r, "a CNP for BTH FECN/BECN: only the IP header's ECN field "
				"signals congestion in RoCEv2");
}

static const struct rk_conform_case cases[] = {
	{ "rc.ecn.cnp", "IBTA Annex A17 A17.9 (CA17-44) [CNP-GEN-01, CNP-FMT-01]",
	  "ACK a CE-marked WRITE; a CNP, if sent, to the sender's QP, PSN 0, reserved bytes 0",
	  RK_CONFORM_RC, 0, RK_CONFORM_ACC_WRITE, run_cnp, NULL, true },
	{ "rc.ecn.cnp_bad_icrc", "IBTA Annex A17 (CA17-24, CA17-44) [CNP-GEN-02]",
	  "send nothing, no CNP either, for a CE-marked packet with a bad ICRC",
	  RK_CONFORM_RC, 0, RK_CONFORM_ACC_WRITE, run_cnp_bad_icrc, NULL, true },
	{ "rc.ecn.fecn_becn", "IBTA Annex A17 (CA17-29) [BTH-FECN-01]",
	  "process a WRITE with BTH FECN and BECN set as any, without a CNP",
	  RK_CONFORM_RC, 0, RK_CONFORM_ACC_WRITE, run_fecn_becn, NULL, true },
};

const struct rk_conform_case *
rk_conform_ecn_cases(unsigned int *n)
{
	*n = sizeof(cases) / sizeof(cases[0]);
	return cases;
}
