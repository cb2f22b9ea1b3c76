/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-perf: perftest-style RDMA benchmarks (write, read, send, atomic; bandwidth
 * and latency) between two rdmakit endpoints on DPDK ports. QP information is
 * exchanged over TCP; the client's parameters win, as every phase is driven by
 * the client.
 *
 *   rk-perf [EAL options --] TEST [options]            server
 *   rk-perf [EAL options --] TEST [options] SERVER     client
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE     /* sched_getaffinity */
#endif
#include <errno.h>
#include <sched.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf.h"

/* Whether the EAL options chose the cores (-l, -c, --lcores, --main-lcore). */
static bool
lcores_given(const struct rk_io_dpdk_args *a)
{
	for (int i = 1; i < a->eal_argc; i++) {
		const char *s = a->eal_argv[i];

		if (strncmp(s, "-l", 2) == 0 || strncmp(s, "-c", 2) == 0 ||
		    strncmp(s, "--lcores", 8) == 0 || strncmp(s, "--main-lcore", 12) == 0)
			return true;
	}
	return false;
}

/*
 * An error before the run starts, already said on stderr: with --json the
 * run's document says it too (status "error"), as a failed run's does.
 */
static void
json_error_before_run(struct perf *p, const char *fmt, ...)
{
	va_list ap;

	if (!p->o.json)
		return;
	va_start(ap, fmt);
	vsnprintf(p->err, sizeof(p->err), fmt, ap);
	va_end(ap);
	print_json(p, 1);
	fflush(stdout);
}

int
main(int argc, char **argv)
{
	struct perf *p = calloc(1, sizeof(*p));
	struct rk_io_dpdk_cfg cfg = { 0 };
	struct rk_device_attr da = { 0 };
	struct rk_io_dpdk_args args;
	cpu_set_t cpus;
	int rc;

	if (p == NULL)
		return 1;
	p->fd = -1;
	p->lfd = -1;
	rc = rk_app_start("rk-perf", argc, argv, &args, perf_parse_args, p);
	if (rc != 0) {
		free(p);
		return rc;
	}
	p->wd.timeout_s = p->o.timeout_s;
	p->jresults = json_array();

	sched_getaffinity(0, sizeof(cpus), &cpus);
	rc = rk_app_eal_init("rk-perf", &args);
	if (rc != 0)
		return rc;
	/*
	 * The EAL pins this thread to its main lcore (core 0 by default):
	 * two kernel-socket ends on one machine would share that core and
	 * each round trip wait for the scheduler. No port polls here, so
	 * unless a core was asked for, run where the shell allowed.
	 */
	if (p->o.iwarp && p->o.tcp_kernel && !lcores_given(&args))
		sched_setaffinity(0, sizeof(cpus), &cpus);
	cfg.port_name = p->o.dev;
	memcpy(cfg.ip, p->o.ip, 4);
	memcpy(cfg.ip6, p->o.ip6, 16);
	cfg.vlan_id = p->o.vlan;
	cfg.vlan_pcp = p->o.pcp > 0 ? (uint8_t)p->o.pcp : 0;
	cfg.idle = p->o.idle;
	cfg.link_timeout_ms = p->o.link_timeout_ms;
	cfg.pcapng_path = p->o.pcap_path;
	cfg.snaplen = p->o.snaplen;
	cfg.tx_drop_every = p->o.tx_drop_every;
	cfg.tx_drop_rate = p->o.tx_drop_rate;
	cfg.tx_drop_seed = p->o.seed;
	cfg.tx_copy = p->o.tx_copy;
	cfg.cancel = &rk_app_stop;
	if (!rk_app_recording_writable("rk-perf", p->o.pcap_path)) {
		json_error_before_run(p, "cannot write the recording %s: %s", p->o.pcap_path,
				      strerror(errno));
		rk_io_dpdk_eal_cleanup();
		return 1;
	}
	if (perf_dcqcn_trace_open(p) != 0) {
		json_error_before_run(p, "--dcqcn-trace %s: %s", p->o.dcqcn_trace, strerror(errno));
		rk_io_dpdk_eal_cleanup();
		return 1;
	}
	/* Before the port waits for its link: a taken -p is said at once. */
	if (p->o.server && (rc = rk_oob_listen_open(p->o.tcp_port, &p->lfd)) != 0) {
		if (rc == -EADDRINUSE)
			fprintf(stderr, "rk-perf: error: TCP port %u is in use (another rk-perf "
				"server?): give another with -p\n", p->o.tcp_port);
		else
			fprintf(stderr, "rk-perf: error: cannot listen on TCP port %u: %s\n",
				p->o.tcp_port, strerror(-rc));
		json_error_before_run(p, "cannot listen on TCP port %u: %s", p->o.tcp_port,
				      strerror(-rc));
		rk_io_dpdk_eal_cleanup();
		json_decref(p->jresults);
		free(p);
		return 1;
	}
	if (p->o.iwarp && p->o.tcp_kernel)
		goto open_iwarp;        /* kernel sockets: no DPDK port */
	p->io = rk_app_port_open("rk-perf", &cfg);
	if (p->io == NULL) {
		json_error_before_run(p, "cannot open port %s: %s", cfg.port_name ? cfg.port_name : "0",
				      errno == EINTR ? "interrupted while waiting for its peer" :
				      rk_io_dpdk_open_strerror(errno));
		if (p->lfd >= 0)
			close(p->lfd);
		rk_io_dpdk_eal_cleanup();
		json_decref(p->jresults);
		free(p);
		return 1;
	}
	if (p->o.iwarp) {
open_iwarp:
		p->iw = perf_iw_open(p->io, &p->o, &p->ctx, p->err, sizeof(p->err));
		if (p->iw == NULL) {
			fprintf(stderr, "rk-perf: %s\n", p->err);
			json_error_before_run(p, "%s", p->err);
			rc = 1;
			goto out;
		}
		goto run;
	}
	rk_io_dpdk_mac(p->io, da.mac);
	if (p->o.have_ip6) {
		memcpy(da.ip, p->o.ip6, 16);
		da.ip_version = 6;
	} else {
		da.ip[10] = da.ip[11] = 0xff;
		memcpy(da.ip + 12, p->o.ip, 4);
		da.ip_version = 4;
	}
	da.max_qp = PERF_MAX_QPS + 2;
	da.max_inflight_pkts = 1024;
	/*
	 * Ping-pong: the reply leaves before the ACK of the request it answers
	 * (an ACK is never on the peer's critical path, the reply always is).
	 */
	if (p->o.mode == MODE_LAT)
		da.ack_delay_ns = 5000;
	if (p->o.rx_ecn_ce > 0) {
		/* Received frames pass the impairment stage, which marks CE. */
		const struct rk_impair_rule ce = { .ecn_ce = p->o.rx_ecn_ce,
						   .seed = p->o.seed ? p->o.seed : 1,
						   .count = p->o.rx_ecn_ce_count };
		const struct rk_impair_io_cfg icfg = { .inner = &rk_io_dpdk_ops, .inner_io = p->io,
							.rx_rules = &ce, .n_rx_rules = 1 };

		p->rx_imp = rk_impair_io_create(&icfg);
		if (p->rx_imp == NULL) {
			const char *why = strerror(errno);

			fprintf(stderr, "rk-perf: --rx-ecn-ce: %s\n", why);
			json_error_before_run(p, "--rx-ecn-ce: %s", why);
			rc = 1;
			goto out;
		}
		p->ctx = rk_open_device(&rk_impair_io_ops, p->rx_imp, &da);
	} else {
		p->ctx = rk_open_device(&rk_io_dpdk_ops, p->io, &da);
	}
	if (p->ctx == NULL) {
		const char *why = strerror(errno);

		fprintf(stderr, "rk-perf: cannot open the RDMA device: %s\n", why);
		json_error_before_run(p, "cannot open the RDMA device: %s", why);
		rc = 1;
		goto out;
	}
run:
	rc = exchange(p);
	if (rc == 0)
		rc = p->o.server ? server_phases(p) : client_phases(p);
	rc = rc != 0 ? 1 : 0;
	if (rc != 0)
		abort_client(p);
	if (p->o.json)
		print_json(p, rc);
	if (rc != 0) {
		/* What stdout had before the error stays before it. */
		fflush(stdout);
		fprintf(stderr, "rk-perf: error: %s\n", p->err[0] ? p->err : "failed");
		/* The counters tell most about a failed run: after the error, as usual on stdout. */
		if (p->o.counters && !p->o.json)
			print_counters(p);
	}
	/*
	 * Out before the clean-up: after a signal, the SIGALRM guard (or a
	 * second signal) ends the process without flushing stdout, and the
	 * results or counters of a file or pipe would be lost.
	 */
	fflush(stdout);
	/* Let the last ACKs leave before the port goes away. */
	for (uint64_t t = now_ns() + 20000000ull; p->ctx != NULL && now_ns() < t;)
		perf_idle(p, rk_progress(p->ctx));
out:
	/*
	 * The server's port goes first: the client waits (up to 2 s) until the
	 * server has closed its port and then the TCP connection. 22.11's memif
	 * PMD can fault in its interrupt thread when the peer leaves while the
	 * port is still polled (seen as a server crash at the end of a run).
	 */
	if (!p->o.server && p->fd >= 0) {
		wait_eof(p->fd, 2000);
		close(p->fd);
		p->fd = -1;
	}
	destroy_resources(p);
	if (p->rx_imp != NULL) {
		const struct rk_impair_rule_stats *st =
			rk_impair_stats(rk_impair_io_stage(p->rx_imp, true), 0);

		fprintf(stderr, "rk-perf: --rx-ecn-ce: %" PRIu64 " of %" PRIu64
			" frames received marked CE%s\n", st->ce_marked, st->matched,
			p->o.rx_ecn_ce_count != 0 ? " (the first ones)" : "");
		rk_impair_io_destroy(p->rx_imp);
		p->rx_imp = NULL;
	}
	if (p->iw != NULL) {
		/* The streams' FINs leave before lwIP goes. */
		for (uint64_t t = now_ns() + 50000000ull; now_ns() < t;)
			perf_idle(p, 0);
		perf_iw_close(p->iw);
		p->iw = NULL;
	}
	if (p->jresults != NULL)
		json_decref(p->jresults);
	if (p->io != NULL && rk_app_port_close("rk-perf", p->io, p->o.pcap_path) != 0)
		rc = 1;
	if (p->fd >= 0)
		close(p->fd);
	if (p->lfd >= 0)
		close(p->lfd);
	if (perf_dcqcn_trace_close(p) != 0 && rc == 0)
		rc = 1;
	/*
	 * No rte_eal_cleanup(): the ports are closed and the recording is
	 * written; with --no-huge, 22.11's cleanup sometimes reports
	 * "Invalid memory" after large runs, and exit releases everything.
	 */
	free(p);
	return rc;
}
