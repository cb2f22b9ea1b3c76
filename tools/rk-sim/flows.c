/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-flow traces of an rk_sdq run for rk-sim's scenario commands (flows.h). */
#include "flows.h"

#include "sim_cli.h"

void rk_sim_flows_header(FILE *cf)
{
	fprintf(cf, "t_ns,run,flow,rate_gbps,rc_gbps,alpha,queue_bytes,cnps,pfc_rx,paused_us\n");
}

void rk_sim_flows_sample(struct rk_sim_flows *tr, const struct rk_sdq *s, uint64_t t)
{
	tr->k++;
	tr->queue = rk_sdq_queue(s, NULL);
	for (unsigned int i = 0; i < tr->n; i++) {
		struct rk_sdq_flow *f = &tr->f[i];
		unsigned long w = (unsigned long)((t - 1) / 1000000ull);

		rk_sdq_flow(s, i, f);
		tr->gbps[i] = (double)(f->rx_bytes - tr->prev[i]) * 8 / (double)tr->sample_ns;
		if (tr->win && w < tr->n_win)
			tr->win[w * tr->n + i] += f->rx_bytes - tr->prev[i];
		tr->prev[i] = f->rx_bytes;
		if (tr->cf)
			fprintf(tr->cf, "%llu,%s,%u,%.3f,%.3f,%.4f,%llu,%llu,%llu,%.1f\n",
				(unsigned long long)t, tr->run, i, tr->gbps[i], f->rc_kbps / 1e6,
				f->alpha / 1024.0, (unsigned long long)tr->queue,
				(unsigned long long)f->cnp_handled, (unsigned long long)f->pfc_rx,
				f->paused_ns / 1e3);
		if (tr->jt && tr->k % 10 == 0)
			json_array_append_new(tr->jt, json_pack(
				"{s:I,s:s,s:i,s:f,s:f,s:f,s:I,s:I,s:I,s:f}", "t_ns", (json_int_t)t,
				"run", tr->run, "flow", (int)i, "rate_gbps", tr->gbps[i],
				"rc_gbps", f->rc_kbps / 1e6, "alpha", f->alpha / 1024.0,
				"queue_bytes", (json_int_t)tr->queue,
				"cnps", (json_int_t)f->cnp_handled, "pfc_rx", (json_int_t)f->pfc_rx,
				"paused_us", f->paused_ns / 1e3));
	}
}

long rk_sim_flows_within(const struct rk_sim_flows *tr, unsigned int i, unsigned long from,
			 double share)
{
	long first = -1;

	for (unsigned long w = tr->n_win; tr->win && w-- > from;) {
		double b = (double)tr->win[w * tr->n + i];

		if (b < 0.9 * share || b > 1.1 * share)
			break;
		first = (long)w;
	}
	return first;
}

double rk_sim_flows_jain_min(const struct rk_sim_flows *tr, unsigned long from, double *mean)
{
	double lo = 1, sum = 0, x[RK_SIM_FLOWS_MAX];
	unsigned long cnt = 0;

	for (unsigned long w = from; tr->win && w < tr->n_win; w++, cnt++) {
		for (unsigned int i = 0; i < tr->n; i++)
			x[i] = (double)tr->win[w * tr->n + i];
		double j = rk_sim_cli_jain(x, tr->n);

		sum += j;
		if (j < lo)
			lo = j;
	}
	if (mean)
		*mean = cnt ? sum / (double)cnt : 1;
	return lo;
}
