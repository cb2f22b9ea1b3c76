/* SPDX-License-Identifier: BSD-3-Clause */
/* perftest's table layout (perftest_parameters.c / perftest_resources.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf.h"

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
	printf(" CQ Moderation   : 1\n");
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
		double k = o->report_gbits ? 8e-9 : 1.0 / 1048576.0;

		printf(" %-10u %-10llu     %-18.2f %-18.2f   %.6f\n", r->bytes,
		       (unsigned long long)r->iters, r->bw_peak_Bps * k, r->bw_avg_Bps * k,
		       r->msg_rate / 1e6);
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
