/* SPDX-License-Identifier: BSD-3-Clause */
/* rk_sim_dcqcn's counters and state read between runs (rk_sim_dcqcn.h). */
#include <errno.h>
#include <string.h>

#include "rk_sim_dcqcn_int.h"

int rk_sdq_flow(const struct rk_sdq *s, unsigned int i, struct rk_sdq_flow *o)
{
	if (!s || i >= s->nsnd || !o)
		return -EINVAL;
	memset(o, 0, sizeof(*o));
	o->rx_bytes = s->rx_bytes[i];
	struct rk_dcqcn_rp *rp = rk_ib_qp_dcqcn_rp(s->snd[i].qp[0]);

	if (rp) {
		o->rc_kbps = rp->rc_kbps;
		o->rt_kbps = rp->rt_kbps;
		o->alpha = RK_DCQCN_ALPHA_1024(rp->alpha);
	}
	const struct rk_ib_stats *ss = rk_ib_qp_stats(s->snd[i].qp[0]);
	const struct rk_ib_stats *rs = rk_ib_qp_stats(i < s->cfg.senders ? s->recv.qp[i] :
						      s->vrecv.qp[0]);

	o->cnp_handled = ss->rp_cnp_handled;
	o->cnp_ignored = ss->rp_cnp_ignored;
	o->cnp_sent = rs->np_cnp_sent;
	o->ce_received = rs->np_ecn_marked_roce_packets;
	o->goodput_bytes = s->snd[i].goodput_bytes;
	o->wc_errors = s->snd[i].wc_errors;
	o->req_pkts = ss->req_pkts;
	o->retx_pkts = ss->req_retx_pkts;
	o->timeouts = ss->req_retransmit_timeouts;
	o->rto_low_timeouts = ss->req_rto_low_timeouts;
	o->nak_seq = rs->resp_nak_seq;
	o->placed_bytes = rs->resp_write_reqs * 1024;
	const struct host *h = &s->snd[i];
	uint64_t now = rk_sw_net_now(s->net);

	o->pfc_rx = h->pfc_rx;
	o->paused_ns = h->paused_ns;
	if (h->paused_until > h->paused_from)
		o->paused_ns += (h->paused_until < now ? h->paused_until : now) - h->paused_from;
	o->paused = h->paused_until > now;
	return 0;
}

void rk_sdq_pause_state(const struct rk_sdq *s, struct rk_sdq_pause *o)
{
	const struct rk_sw_prio_stats *st = rk_sw_stats(s->bott_sw, s->bott_port, 0);

	o->bott_paused = rk_sw_paused(s->bott_sw, s->bott_port, 0);
	o->uplink_paused = s->t1 && rk_sw_paused(s->sw, s->uplink_port, 0);
	o->bott_wd_storms = st->pfcwd_storms;
	o->bott_wd_drops = st->pfcwd_drops;
}

uint64_t rk_sdq_queue(const struct rk_sdq *s, double *area)
{
	uint64_t now = rk_sw_net_now(s->net);

	if (area)
		*area = s->q_area + (double)s->q_bytes * (double)(now - s->q_t);
	return s->q_bytes;
}

static void sw_counts(const struct rk_sw *sw, unsigned int nports, uint64_t *m, uint64_t *d,
		      uint64_t *pfc)
{
	for (unsigned int p = 0; p < nports; p++)
		for (unsigned int pr = 0; pr < 8; pr++) {
			const struct rk_sw_prio_stats *st = rk_sw_stats(sw, p, pr);

			*m += st->ecn_marked;
			*d += st->drops;
			*pfc += st->tx_pause;
		}
}

void rk_sdq_switch_counts(const struct rk_sdq *s, uint64_t *marked, uint64_t *dropped,
			  uint64_t *peak)
{
	uint64_t m = 0, d = 0, pfc = 0, pk = 0;

	sw_counts(s->sw, s->t0_ports, &m, &d, &pfc);
	if (s->t1)
		sw_counts(s->t1, 3, &m, &d, &pfc);
	for (unsigned int pr = 0; pr < 8; pr++) {
		const struct rk_sw_prio_stats *st = rk_sw_stats(s->bott_sw, s->bott_port, pr);

		if (st->queue_peak > pk)
			pk = st->queue_peak;
	}
	if (marked)
		*marked = m;
	if (dropped)
		*dropped = d;
	if (peak)
		*peak = pk;
}

void rk_sdq_pfc_counts(const struct rk_sdq *s, uint64_t *pfc_sent, uint64_t *uplink_paused_ns)
{
	uint64_t m = 0, d = 0, pfc = 0;

	sw_counts(s->sw, s->t0_ports, &m, &d, &pfc);
	if (s->t1)
		sw_counts(s->t1, 3, &m, &d, &pfc);
	if (pfc_sent)
		*pfc_sent = pfc;
	if (uplink_paused_ns)
		*uplink_paused_ns = s->t1 ? rk_sw_stats(s->sw, s->uplink_port, 0)->pause_ns : 0;
}

static void wd_counts(const struct rk_sw *sw, unsigned int nports, uint64_t *storms,
		      uint64_t *drops)
{
	for (unsigned int p = 0; p < nports; p++)
		for (unsigned int pr = 0; pr < 8; pr++) {
			*storms += rk_sw_stats(sw, p, pr)->pfcwd_storms;
			*drops += rk_sw_stats(sw, p, pr)->pfcwd_drops;
		}
}

void rk_sdq_pfcwd_counts(const struct rk_sdq *s, uint64_t *storms, uint64_t *drops)
{
	uint64_t st = 0, dr = 0;

	wd_counts(s->sw, s->t0_ports, &st, &dr);
	if (s->t1)
		wd_counts(s->t1, 3, &st, &dr);
	if (storms)
		*storms = st;
	if (drops)
		*drops = dr;
}
