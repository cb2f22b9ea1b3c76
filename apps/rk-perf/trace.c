/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --dcqcn-trace: QP 0's DCQCN reaction point, one CSV row per event the RP
 * reports (lib/ib's trace hook): a CNP applied or ignored, an alpha
 * update, a rate increase by the timer or the byte counter. With the QP's
 * frames sent at each row, the rate it achieved between two rows can be
 * held against the R_C it was allowed. Events that change nothing (the
 * alpha timer once alpha has decayed to 0) write no row.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "perf.h"
#include "rk_cc_dcqcn.h"

static const char *const ev_names[] = {
	[RK_DCQCN_EV_CNP] = "cnp", [RK_DCQCN_EV_CNP_IGNORED] = "cnp_ignored",
	[RK_DCQCN_EV_ALPHA] = "alpha", [RK_DCQCN_EV_TIMER] = "timer",
	[RK_DCQCN_EV_BYTES] = "bytes",
};

int
perf_dcqcn_trace_open(struct perf *p)
{
	if (p->o.dcqcn_trace == NULL)
		return 0;
	p->trace_f = fopen(p->o.dcqcn_trace, "w");
	if (p->trace_f == NULL) {
		fprintf(stderr, "rk-perf: --dcqcn-trace %s: %s\n", p->o.dcqcn_trace,
			strerror(errno));
		return -1;
	}
	fprintf(p->trace_f, "time_s,event,rc_mbps,rt_mbps,alpha,tx_frames\n");
	return 0;
}

static void
row(void *ctx, const struct rk_dcqcn_rp *rp, uint64_t now_ns, enum rk_dcqcn_event ev)
{
	struct perf *p = ctx;

	if (p->trace_f == NULL)
		return;
	/* The alpha timer runs every dce_tcp_rtt (1 us by NVIDIA's defaults):
	 * a row only when something changed (alpha by 1/1024), or for a CNP. */
	if (ev != RK_DCQCN_EV_CNP && ev != RK_DCQCN_EV_CNP_IGNORED && p->trace_rows != 0 &&
	    rp->rc_kbps == p->trace_last[0] && rp->rt_kbps == p->trace_last[1] &&
	    RK_DCQCN_ALPHA_1024(rp->alpha) == p->trace_last[2])
		return;
	p->trace_last[0] = rp->rc_kbps;
	p->trace_last[1] = rp->rt_kbps;
	p->trace_last[2] = RK_DCQCN_ALPHA_1024(rp->alpha);
	p->trace_rows++;
	if (p->trace_t0 == 0)
		p->trace_t0 = now_ns;
	fprintf(p->trace_f, "%.6f,%s,%.3f,%.3f,%.4f,%" PRIu64 "\n",
		(double)(now_ns - p->trace_t0) / 1e9,
		(unsigned int)ev < sizeof(ev_names) / sizeof(ev_names[0]) ? ev_names[ev] : "?",
		(double)rp->rc_kbps / 1000.0, (double)rp->rt_kbps / 1000.0,
		(double)rp->alpha / RK_DCQCN_ALPHA_ONE, rk_ib_qp_stats(p->trace_qp)->tx_frames);
}

void
perf_dcqcn_trace_start(struct perf *p, struct rk_ib_qp *qp)
{
	struct rk_dcqcn_rp *rp = rk_ib_qp_dcqcn_rp(qp);

	if (rp == NULL || p->trace_f == NULL)
		return;
	p->trace_qp = qp;
	rp->trace = row;
	rp->trace_ctx = p;
}

int
perf_dcqcn_trace_close(struct perf *p)
{
	int rc = 0;

	if (p->trace_f == NULL)
		return 0;
	/* The QPs (and their RP) are gone by now: the hook is not called again. */
	p->trace_qp = NULL;
	if (fclose(p->trace_f) != 0) {
		fprintf(stderr, "rk-perf: --dcqcn-trace %s: %s\n", p->o.dcqcn_trace,
			strerror(errno));
		rc = -1;
	}
	p->trace_f = NULL;
	return rc;
}
