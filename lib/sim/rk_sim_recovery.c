/* SPDX-License-Identifier: BSD-3-Clause */
/* Go-back-N against selective repeat on a lossy link and in an incast (rk_sim_recovery.h). */
#include "rk_sim_recovery.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rk_sim_dcqcn.h"

/* The lossy link: @p size-byte WRITEs, @p depth outstanding. */
static int
link_run(const char *algo, bool rto_low, double loss, uint64_t seed, uint32_t ops,
	 uint32_t size, uint32_t depth, struct rk_sim_recovery_point *p)
{
	struct rk_sim_wl_cfg cfg = {
		.seed = seed,
		.ops = ops,
		.max_size = size,
		.fixed_size = true,
		.opmask = 1u << RK_SIM_WRITE,
		.mtu = RK_MTU_1024,
		.depth = depth,
		.impair = { .loss = loss, .delay_ns = 5000, .rate_bps = 10000000000ull },
		.paced = true,
		.timeout = 10,
		.retry_cnt = 7,
		.window = 256,
		.recovery = algo,
		/* off: RTO_low 0 (go-back-N has none to turn off) */
		.set_rto_low = !rto_low && strcmp(algo, "sr") == 0,
	};
	struct rk_sim_wl_result *r = calloc(1, sizeof(*r));
	int rc;

	if (r == NULL)
		return -ENOMEM;
	rc = rk_sim_wl_run(&cfg, r);
	p->loss = loss;
	p->virtual_ns = r->virtual_ns;
	p->goodput_gbps = r->virtual_ns ? (double)r->payload_bytes * 8 / (double)r->virtual_ns : 0;
	p->req_pkts = r->stats[0].req_pkts;
	p->retx_pkts = r->stats[0].req_retx_pkts;
	p->timeouts = r->stats[0].req_retransmit_timeouts;
	p->rto_low_timeouts = r->stats[0].req_rto_low_timeouts;
	p->nak_seq = r->stats[1].resp_nak_seq;
	free(r);
	return rc;
}

int
rk_sim_recovery_run(const char *algo, double loss, uint64_t seed, uint32_t ops,
		    struct rk_sim_recovery_point *p)
{
	return link_run(algo, true, loss, seed, ops, 64 * 1024, 16, p);
}

int
rk_sim_recovery_run_few(const char *algo, bool rto_low, double loss, uint64_t seed,
			uint32_t ops, struct rk_sim_recovery_point *p)
{
	return link_run(algo, rto_low, loss, seed, ops, 1024, 2, p);
}

/* The incast's network: that of rk-sim incast --dcqcn, victim and unfair. */
static void incast_cfg(const struct rk_sim_recovery_incast_cfg *c, struct rk_sdq_cfg *q)
{
	memset(q, 0, sizeof(*q));
	q->senders = c->senders;
	q->link_bps = 40000000000ull;
	q->prop_ns = 500;
	q->msg_bytes = 65536;
	q->window = c->window ? c->window : RK_SIM_RECOVERY_WINDOW;
	q->kmin_bytes = 5000;
	q->kmax_bytes = 40000;
	q->pmax = 0.2;
	q->limit_bytes = c->limit_bytes ? c->limit_bytes : RK_SIM_RECOVERY_LIMIT;
	q->seed = c->seed;
	q->pfc = c->pfc;
	q->dcqcn = c->dcqcn;
	q->timeout = c->timeout ? c->timeout : RK_SIM_RECOVERY_TIMEOUT;
	q->recovery = c->algo;
	q->set_rto_low = strcmp(c->algo, "sr") == 0 && (c->rto_low_off || c->rto_low_us != 0);
	q->rto_low_ns = c->rto_low_off ? 0 : (uint64_t)c->rto_low_us * 1000;
	rk_dcqcn_profile("paper", &q->params);
}

static void incast_sample(const struct rk_sim_recovery_incast_cfg *c, struct rk_sdq *s,
			  uint64_t t)
{
	uint64_t bytes[RK_SIM_RECOVERY_MAX_SENDERS], drops;
	struct rk_sdq_flow f;

	for (unsigned int i = 0; i < c->senders; i++) {
		rk_sdq_flow(s, i, &f);
		bytes[i] = f.placed_bytes;
	}
	rk_sdq_switch_counts(s, NULL, &drops, NULL);
	c->sample(c->sample_ctx, t, bytes, c->senders, rk_sdq_queue(s, NULL), drops);
}

int rk_sim_recovery_incast_run(const struct rk_sim_recovery_incast_cfg *c,
			       struct rk_sim_recovery_incast *o)
{
	struct rk_sdq_cfg q;
	struct rk_sdq *s;
	int rc = 0;

	if (!c || !o || c->senders < 2 || c->senders > RK_SIM_RECOVERY_MAX_SENDERS ||
	    !c->duration_ns || !c->algo || (strcmp(c->algo, "gbn") && strcmp(c->algo, "sr")))
		return -EINVAL;
	incast_cfg(c, &q);
	if (!(s = rk_sdq_create(&q)))
		return -errno;
	memset(o, 0, sizeof(*o));
	if (c->sample && c->sample_ns) {
		for (uint64_t t = c->sample_ns; !rc && t <= c->duration_ns; t += c->sample_ns)
			if (!(rc = rk_sdq_run(s, t)))
				incast_sample(c, s, t);
	}
	if (!rc)
		rc = rk_sdq_run(s, c->duration_ns);
	for (unsigned int i = 0; !rc && i < c->senders; i++) {
		struct rk_sdq_flow f;

		rk_sdq_flow(s, i, &f);
		o->flow_gbps[i] = (double)f.goodput_bytes * 8 / (double)c->duration_ns;
		o->flow_retx[i] = f.retx_pkts;
		o->goodput_gbps += o->flow_gbps[i];
		o->req_pkts += f.req_pkts;
		o->retx_pkts += f.retx_pkts;
		o->timeouts += f.timeouts;
		o->rto_low_timeouts += f.rto_low_timeouts;
		o->nak_seq += f.nak_seq;
		o->wc_errors += f.wc_errors;
	}
	if (!rc) {
		rk_sdq_switch_counts(s, &o->marked, &o->drops, &o->queue_peak);
		rk_sdq_pfc_counts(s, &o->pfc_frames, NULL);
	}
	rk_sdq_destroy(s);
	return rc;
}
