/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine side of congestion control: rk_ib_qp_set_cc(), the DCQCN ops
 * table (rk_cc.h) over the RP/NP of rk_cc_dcqcn.c, and the CNP builder
 * (IBTA Vol1 Annex A17.9.3).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rk_cc_dcqcn.h"
#include "rk_ib_internal.h"
#include "rk_ib_mutant.h"
#include "rk_ipv4.h"

struct dcqcn_qp {
	struct rk_dcqcn_params p;
	struct rk_dcqcn_rp rp;
	struct rk_dcqcn_np np;
};

static struct dcqcn_qp *
st(const struct rk_ib_qp *qp)
{
	return qp->cc_state;
}

/* RP counters live in struct rk_dcqcn_rp; mirror their growth into the stats. */
static void
dcqcn_on_cnp(struct rk_ib_qp *qp, uint64_t now_ns)
{
	if (rk_dcqcn_rp_cnp(&st(qp)->rp, now_ns))
		RK_QP_COUNT(qp, rp_cnp_handled);
	else
		RK_QP_COUNT(qp, rp_cnp_ignored);
}

static void
dcqcn_on_send(struct rk_ib_qp *qp, uint32_t bytes, uint64_t now_ns)
{
	rk_dcqcn_rp_sent(&st(qp)->rp, bytes, now_ns);
}

static bool
dcqcn_on_rx_ecn(struct rk_ib_qp *qp, uint8_t ecn, uint64_t now_ns)
{
	struct dcqcn_qp *d = st(qp);
	uint64_t marked = d->np.ecn_marked;
	bool cnp = rk_dcqcn_np_rx(&d->np, &d->p, ecn, now_ns);

	if (d->np.ecn_marked != marked)
		RK_QP_COUNT(qp, np_ecn_marked_roce_packets);
	return cnp;
}

static void
dcqcn_on_timer(struct rk_ib_qp *qp, uint64_t now_ns)
{
	rk_dcqcn_rp_timer(&st(qp)->rp, now_ns);
}

static uint64_t
dcqcn_next_send_ns(const struct rk_ib_qp *qp)
{
	return st(qp)->rp.next_send_ns;
}

static uint64_t
dcqcn_next_timer_ns(const struct rk_ib_qp *qp)
{
	return rk_dcqcn_rp_next_timer(&st(qp)->rp);
}

/*
 * CNP (Annex A17.9.3): BTH opcode 0x81, P_Key of the QP, DestQP = the
 * peer's QPN (the flow that was marked), PSN 0, SE/M/PadCnt/A 0, then 16
 * reserved zero bytes and the ICRC; IP DSCP cnp_dscp, ECN Not-ECT.
 */
static int
dcqcn_build_cnp(struct rk_ib_qp *qp, uint8_t *f)
{
	struct rk_ah_attr ah = qp->attr.ah_attr;
	struct rk_bth_fields bth = { 0 };
	struct rk_xeth_fields x = { 0 };
	uint32_t hdr = RK_BTH_LEN + RK_CNP_RSVD_LEN, bth_off;
	uint8_t *b;

	ah.dscp = st(qp)->p.cnp_dscp;
	bth.opcode = RK_OP_CNP;
	bth.p_key = qp->p_key;
	bth.dest_qp = RK_IB_MUTANT(RK_IB_MUT_CNP_OWN_QPN) ? qp->qpn : qp->attr.dest_qp_num;
	b = rk_ib_frame_begin(qp, &ah, f, hdr + RK_ICRC_LEN, RK_ECN_NOT_ECT);
	bth_off = (uint32_t)(b - f);
	if (rk_build_ib_headers(b, hdr, &bth, &x) != (int)hdr)
		return -1;
	memset(b + RK_BTH_LEN, 0, RK_CNP_RSVD_LEN);
	return (int)rk_ib_frame_end(qp, f, bth_off, bth_off + hdr);
}

static void
dcqcn_fini(struct rk_ib_qp *qp)
{
	free(qp->cc_state);
	qp->cc_state = NULL;
}

const struct rk_cc_ops rk_cc_dcqcn_ops = {
	.name = "dcqcn",
	.on_send = dcqcn_on_send,
	.on_cnp = dcqcn_on_cnp,
	.on_rx_ecn = dcqcn_on_rx_ecn,
	.on_timer = dcqcn_on_timer,
	.next_send_ns = dcqcn_next_send_ns,
	.next_timer_ns = dcqcn_next_timer_ns,
	.build_cnp = dcqcn_build_cnp,
	.fini = dcqcn_fini,
};

int
rk_ib_qp_set_cc(struct rk_ib_qp *qp, const char *algo, const struct rk_dcqcn_params *params,
		uint32_t line_mbps)
{
	struct dcqcn_qp *d;

	if (qp == NULL || algo == NULL)
		return -EINVAL;
	if (strcmp(algo, "none") != 0 && strcmp(algo, rk_cc_dcqcn_ops.name) != 0)
		return -ENOENT;
	if (strcmp(algo, "none") != 0 && line_mbps == 0)
		return -EINVAL;
	/* A UD CNP would need each sender's address and QPN: not modelled. */
	if (strcmp(algo, "none") != 0 && qp->type == RK_QPT_UD)
		return -EOPNOTSUPP;
	if (qp->cc != NULL)
		qp->cc->fini(qp);
	qp->cc = NULL;
	qp->cnp_owed = false;
	if (strcmp(algo, "none") == 0)
		return 0;
	d = calloc(1, sizeof(*d));
	if (d == NULL)
		return -ENOMEM;
	if (params != NULL)
		d->p = *params;
	else
		(void)rk_dcqcn_profile("nvidia-default", &d->p);
	rk_dcqcn_rp_init(&d->rp, &d->p, line_mbps);
	qp->cc_state = d;
	qp->cc = &rk_cc_dcqcn_ops;
	return 0;
}

/* The QP's DCQCN RP, for traces and tests; NULL unless it runs DCQCN. */
struct rk_dcqcn_rp *
rk_ib_qp_dcqcn_rp(struct rk_ib_qp *qp)
{
	return qp != NULL && qp->cc == &rk_cc_dcqcn_ops ? &st(qp)->rp : NULL;
}
