/* SPDX-License-Identifier: BSD-3-Clause */
/* perftest's table layout (perftest_parameters.c / perftest_resources.c). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf.h"
#include "rk_iw_xstats.h"

#define RULE "---------------------------------------------------------------------------------------"

const char *
perf_test_title(const struct perf_opts *o)
{
	static const char *const t[4][2] = {
		{ "RDMA_Write BW Test", "RDMA_Write Latency Test" },
		{ "RDMA_Read BW Test", "RDMA_Read Latency Test" },
		{ "Send BW Test", "Send Latency Test" },
		{ "Atomic FETCH_AND_ADD BW Test", "Atomic FETCH_AND_ADD Latency Test" },
	};

	if (o->verb == VERB_ATOMIC && o->atomic_cas)
		return o->mode == MODE_BW ? "Atomic CMP_AND_SWAP BW Test" :
					    "Atomic CMP_AND_SWAP Latency Test";
	return t[o->verb][o->mode];
}

uint64_t
perf_warmup(const struct perf_opts *o, uint32_t bytes)
{
	uint64_t n = PERF_WARMUP_BYTES / (bytes > 0 ? bytes : 1);

	if (o->warmup_set)
		return o->warmup;
	return n > PERF_WARMUP_ITERS ? PERF_WARMUP_ITERS : n > 0 ? n : 1;
}

static void
print_addr(const char *who, const struct perf_hello *h, uint32_t i)
{
	printf(" %s address: LID 0000 QPN %#06x PSN %#08x RKey %#08x VAddr 0x%016llx\n", who,
	       h->qp[i].qpn, h->qp[i].psn, h->qp[i].rkey, (unsigned long long)h->qp[i].va);
	if (h->ip_version == 6) {
		printf(" GID: ");
		for (int b = 0; b < 16; b++)
			printf("%02u%s", h->ip6[b], b < 15 ? ":" : "\n");
		return;
	}
	printf(" GID: 00:00:00:00:00:00:00:00:00:00:255:255:%u:%u:%u:%u\n", h->ip[0], h->ip[1],
	       h->ip[2], h->ip[3]);
}

void
report_header(const struct perf_opts *o, const struct perf_hello *local,
	      const struct perf_hello *remote, uint32_t unused)
{
	(void)unused;
	printf("%s\n", RULE);
	printf("                    %s\n", perf_test_title(o));
	printf(" Dual-port       : OFF\t\tDevice         : %s\n", o->dev != NULL ? o->dev : "port0");
	printf(" Number of qps   : %u\t\tTransport type : %s\n", o->qps,
	       !o->iwarp ? "RoCEv2 (rdmakit on DPDK)" :
	       o->tcp_kernel ? "iWARP (rdmakit, kernel TCP)" : "iWARP (rdmakit, lwIP TCP on DPDK)");
	printf(" Connection type : RC\t\tUsing SRQ      : OFF\n");
	if (o->mode == MODE_BW)
		printf(" TX depth        : %u\n", o->tx_depth);
	if (o->verb == VERB_SEND)
		printf(" RX depth        : %u\n", o->rx_depth);
	printf(" CQ Moderation   : %u\n", o->cq_mod > 1 ? o->cq_mod : 1);
	printf(" Mtu             : %u[B]\n", o->mtu);
	printf(" Link type       : Ethernet\n");
	printf(" GID index       : 0\n");
	printf(" Max inline data : 0[B]\n");
	printf(" rdma_cm QPs\t : OFF\n");
	printf(" Data ex. method : Ethernet\n");
	printf(" Idle policy     : %s\n", o->idle == RK_IO_IDLE_SPIN ? "spin" : "spin-then-sleep");
	/* The client runs the warm-up; a server serves whatever comes. */
	if (o->mode == MODE_LAT && !o->server) {
		if (!o->warmup_set)
			printf(" Warm-up         : %u iterations per size, not measured (at most "
			       "%u MiB of messages)\n", PERF_WARMUP_ITERS, PERF_WARMUP_BYTES >> 20);
		else if (o->warmup > 0)
			printf(" Warm-up         : %llu iterations per size, not measured\n",
			       (unsigned long long)o->warmup);
		else
			printf(" Warm-up         : none\n");
	}
	printf("%s\n", RULE);
	for (uint32_t i = 0; i < o->qps; i++)
		print_addr("local", local, i);
	for (uint32_t i = 0; i < o->qps; i++)
		print_addr("remote", remote, i);
	printf("%s\n", RULE);
}

void
report_columns(const struct perf_opts *o)
{
	if (o->mode == MODE_BW)
		printf(" #bytes     #iterations    BW peak[%s]    BW average[%s]   MsgRate[Mpps]\n",
		       o->report_gbits ? "Gb/sec" : "MB/sec", o->report_gbits ? "Gb/sec" : "MB/sec");
	else
		printf(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
		       "t_avg[usec]    t_stdev[usec]   99%% percentile[usec]   "
		       "99.9%% percentile[usec] \n");
}

void
report_line(const struct perf_opts *o, const struct perf_result *r)
{
	if (o->mode == MODE_BW) {
		rk_app_bw_line(stdout, r->bytes, r->iters, r->bw_peak_Bps, r->bw_avg_Bps,
			       r->msg_rate, o->report_gbits);
	} else {
		printf(" %-7u %-10llu  %-7.2f        %-7.2f      %-7.2f            %-7.2f"
		       "          %-7.2f          %-7.2f                 %-7.2f\n", r->bytes,
		       (unsigned long long)r->iters, r->t_min, r->t_max, r->t_typical, r->t_avg,
		       r->t_stdev, r->p99, r->p999);
	}
	fflush(stdout);
}

void
report_footer(void)
{
	printf("%s\n", RULE);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentiles over the sorted samples (perftest sorts too). */
void
lat_stats(double *us, uint64_t n, struct perf_result *r)
{
	double sum = 0, sq = 0;

	if (n == 0)
		return;
	qsort(us, n, sizeof(us[0]), cmp_double);
	for (uint64_t i = 0; i < n; i++)
		sum += us[i];
	r->t_avg = sum / (double)n;
	for (uint64_t i = 0; i < n; i++)
		sq += (us[i] - r->t_avg) * (us[i] - r->t_avg);
	r->t_stdev = sqrt(sq / (double)n);
	r->t_min = us[0];
	r->t_max = us[n - 1];
	r->t_typical = us[n / 2];
	r->p99 = us[(uint64_t)ceil(0.99 * (double)n) - 1];
	r->p999 = us[(uint64_t)ceil(0.999 * (double)n) - 1];
}

void
print_latencies(const double *us, uint64_t n)
{
	printf("#, usec\n");
	for (uint64_t i = 0; i < n; i++)
		printf("%" PRIu64 ", %g\n", i + 1, us[i]);
}

/* ---------------------------------------------- counters and JSON */

/*
 * The counters of the context and the port; over iWARP also the engine's
 * (the RoCE ones stay 0 there): stream bytes, FPDUs, Terminates.
 */
static unsigned int
all_counters(const struct perf *p, struct rk_io_counter *c, unsigned int max)
{
	const struct rk_iw_stats *w = p->ctx != NULL ? rk_context_iw_stats(p->ctx) : NULL;
	unsigned int n = rk_io_hw_counters(p->io, p->ctx != NULL ? rk_context_stats(p->ctx) : NULL,
					   c, max);

	for (unsigned int i = 0; w != NULL && i < rk_iw_xstats.n && n < max; i++)
		c[n++] = (struct rk_io_counter){ rk_iw_xstats.desc[i].name,
						 rk_xstat_value(&rk_iw_xstats, i, w) };
	return n;
}

static json_t *
counters_json(struct perf *p)
{
	struct rk_io_counter c[64];
	unsigned int n = all_counters(p, c, 64);
	json_t *o = json_object(), *qo = json_object();

	for (unsigned int i = 0; i < n; i++)
		json_object_set_new(o, c[i].name, json_integer((json_int_t)c[i].value));
	/* Per QP (rdma statistic's per-QP mode), keyed by QPN. */
	for (uint32_t i = 0; i < p->o.qps && p->q[i].qp != NULL; i++) {
		struct rk_counter qc[64];
		int k = rk_query_qp_counters(p->q[i].qp, qc, 64);
		json_t *e = json_object();
		char key[16];

		for (int j = 0; j < k; j++)
			json_object_set_new(e, qc[j].name, json_integer((json_int_t)qc[j].value));
		snprintf(key, sizeof(key), "%#x", p->q[i].qp->qp_num);
		json_object_set_new(qo, key, e);
	}
	json_object_set_new(o, "qp", qo);
	return o;
}

void
print_counters(struct perf *p)
{
	struct rk_io_counter c[64];
	unsigned int n = all_counters(p, c, 64);

	printf(" counters:\n");
	for (unsigned int i = 0; i < n; i++)
		printf("   %-26s %" PRIu64 "\n", c[i].name, c[i].value);
	/* Per QP: the counters that moved. */
	for (uint32_t i = 0; i < p->o.qps && p->q[i].qp != NULL; i++) {
		struct rk_counter qc[64];
		int k = rk_query_qp_counters(p->q[i].qp, qc, 64);

		printf(" QP %#x:", p->q[i].qp->qp_num);
		for (int j = 0; j < k; j++)
			if (qc[j].value != 0)
				printf(" %s %" PRIu64, qc[j].name, qc[j].value);
		printf("\n");
	}
}

void
add_json_result(struct perf *p, const struct perf_result *r)
{
	json_t *j = json_object();

	json_object_set_new(j, "bytes", json_integer(r->bytes));
	json_object_set_new(j, "iterations", json_integer((json_int_t)r->iters));
	/* A server measures nothing: the client times every phase. */
	if (p->o.server) {
		if (p->o.mode == MODE_LAT)
			json_object_set_new(j, "warmup_iterations",
					    json_integer((json_int_t)r->warmup));
	} else if (p->o.mode == MODE_BW) {
		json_object_set_new(j, "seconds", json_real(r->seconds));
		json_object_set_new(j, "bw_peak_gbps", json_real(r->bw_peak_Bps * 8e-9));
		json_object_set_new(j, "bw_avg_gbps", json_real(r->bw_avg_Bps * 8e-9));
		json_object_set_new(j, "bw_avg_MBps", json_real(r->bw_avg_Bps / 1048576.0));
		json_object_set_new(j, "msg_rate_mpps", json_real(r->msg_rate / 1e6));
		json_object_set_new(j, "completions", json_integer((json_int_t)r->cqes));
		json_object_set_new(j, "post_calls", json_integer((json_int_t)r->post_calls));
		if (p->o.bidir)
			json_object_set_new(j, "server_bw_avg_gbps",
					    json_real(r->peer_bw_avg_Bps * 8e-9));
	} else {
		json_object_set_new(j, "t_min_us", json_real(r->t_min));
		json_object_set_new(j, "t_max_us", json_real(r->t_max));
		json_object_set_new(j, "t_typical_us", json_real(r->t_typical));
		json_object_set_new(j, "t_avg_us", json_real(r->t_avg));
		json_object_set_new(j, "t_stdev_us", json_real(r->t_stdev));
		json_object_set_new(j, "p50_us", json_real(r->t_typical));
		json_object_set_new(j, "p99_us", json_real(r->p99));
		json_object_set_new(j, "p99_9_us", json_real(r->p999));
		json_object_set_new(j, "max_us", json_real(r->t_max));
		json_object_set_new(j, "warmup_iterations", json_integer((json_int_t)r->warmup));
	}
	json_array_append_new(p->jresults, j);
}

/* The DCQCN set-up of the run: its profile and every parameter as used. */
static json_t *
dcqcn_json(const struct perf *p)
{
	const struct rk_dcqcn_params *d = &p->o.dcqcn_p;
	json_t *v = json_object();

#define U(f) json_object_set_new(v, #f, json_integer((json_int_t)d->f))
	U(dce_tcp_g); U(dce_tcp_rtt); U(initial_alpha_value); U(rate_reduce_monitor_period);
	U(rate_to_set_on_first_cnp); U(rpg_time_reset); U(rpg_byte_reset); U(rpg_threshold);
	U(rpg_ai_rate); U(rpg_hai_rate); U(rpg_gd); U(rpg_min_dec_fac); U(rpg_min_rate);
	U(rpg_max_rate); U(min_time_between_cnps); U(cnp_dscp); U(cnp_802p_prio);
#undef U
	json_object_set_new(v, "clamp_tgt_rate", json_boolean(d->clamp_tgt_rate));
	json_object_set_new(v, "clamp_tgt_rate_after_time_inc",
			    json_boolean(d->clamp_tgt_rate_after_time_inc));
	return json_pack("{s:s, s:o}", "profile", p->o.dcqcn_profile, "params", v);
}

void
print_json(struct perf *p, int status)
{
	json_t *j = json_object();
	json_object_set_new(j, "test", json_string(p->e->name));
	json_object_set_new(j, "role", json_string(p->o.server ? "server" : "client"));
	json_object_set_new(j, "qps", json_integer(p->o.qps));
	json_object_set_new(j, "mtu", json_integer(p->o.mtu));
	json_object_set_new(j, "transport", json_string(!p->o.iwarp ? "rocev2" :
							p->o.tcp_kernel ? "iwarp-kernel-tcp" :
							"iwarp-lwip"));
	json_object_set_new(j, "tx_depth", json_integer(p->o.tx_depth));
	json_object_set_new(j, "dcqcn", p->o.dcqcn ? dcqcn_json(p) : json_null());
	json_object_set_new(j, "rx_depth", json_integer(p->o.rx_depth));
	{
		json_t *sz = json_array();

		for (uint32_t i = 0; i < p->nsizes; i++)
			json_array_append_new(sz, json_integer(p->sizes[i]));
		json_object_set_new(j, "sizes", sz);
	}
	/* -n or -D, whichever ran (the client's, on both ends). */
	json_object_set_new(j, "iterations_per_qp", p->o.duration_s > 0 ? json_null() :
			    json_integer((json_int_t)p->o.iters));
	json_object_set_new(j, "duration_s", p->o.duration_s > 0 ?
			    json_real(p->o.duration_s) : json_null());
	if (p->o.verb == VERB_ATOMIC)
		json_object_set_new(j, "atomic", json_string(p->o.atomic_cas ? "cmp_and_swp" :
							     "fetch_and_add"));
	json_object_set_new(j, "ip_version", json_integer(p->o.have_ip6 ? 6 : 4));
	json_object_set_new(j, "vlan", p->o.vlan != 0 ? json_integer(p->o.vlan) : json_null());
	json_object_set_new(j, "verify", json_boolean(p->o.verify));
	/* perftest's options of the same meaning, as this end ran them. */
	json_object_set_new(j, "tos", json_integer(p->o.tos > 0 ? p->o.tos : 0));
	json_object_set_new(j, "pcp", p->o.pcp >= 0 ? json_integer(p->o.pcp) : json_null());
	json_object_set_new(j, "hop_limit", json_integer(p->o.hop_limit ? p->o.hop_limit : 64));
	if (!p->o.iwarp)
		json_object_set_new(j, "qp_timeout", json_integer(p->o.qp_timeout >= 0 ?
								 p->o.qp_timeout : 14));
	if (p->o.mode == MODE_BW) {
		json_object_set_new(j, "cq_mod", json_integer(p->o.cq_mod > 1 ? p->o.cq_mod : 1));
		json_object_set_new(j, "post_list", json_integer(p->o.post_list > 1 ?
								p->o.post_list : 1));
		json_object_set_new(j, "bidirectional", json_boolean(p->o.bidir));
		json_object_set_new(j, "rate_limit", p->o.rate_limit > 0 ?
				    json_real(p->o.rate_limit) : json_null());
		if (p->o.rate_limit > 0)
			json_object_set_new(j, "rate_units", json_string(
				p->o.rate_units == 'p' ? "msg/s" : p->o.rate_units == 'M' ? "MiB/s" :
				"Gb/s"));
	}
	/* The client's: a server learns the count per size only (warmup_iterations). */
	if (p->o.mode == MODE_LAT && !p->o.server)
		json_object_set_new(j, "warmup", json_integer((json_int_t)(p->o.warmup_set ?
								 p->o.warmup : PERF_WARMUP_ITERS)));
	json_object_set_new(j, "idle", json_string(p->o.idle == RK_IO_IDLE_SPIN ? "spin" :
						   "spin-then-sleep"));
	/* This end's own (never the client's): what it did to the frames it sent. */
	json_object_set_new(j, "tx_copy", json_boolean(p->o.tx_copy));
	json_object_set_new(j, "tx_drop_every", json_integer(p->o.tx_drop_every));
	json_object_set_new(j, "tx_drop_rate", json_real(p->o.tx_drop_rate));
	/* JSON integers are signed 64-bit here: a larger seed as its decimal string. */
	if (p->o.seed <= INT64_MAX) {
		json_object_set_new(j, "seed", json_integer((json_int_t)p->o.seed));
	} else {
		char seed[24];

		snprintf(seed, sizeof(seed), "%" PRIu64, p->o.seed);
		json_object_set_new(j, "seed", json_string(seed));
	}
	json_object_set_new(j, "results", p->jresults);
	p->jresults = NULL;
	if (p->ctx != NULL)
		json_object_set_new(j, "counters", counters_json(p));
	json_object_set_new(j, "status", json_string(status == 0 ? "ok" : "error"));
	if (status != 0)
		json_object_set_new(j, "error", json_string(p->err));
	json_dumpf(j, stdout, JSON_INDENT(2));
	putchar('\n');
	json_decref(j);
}
