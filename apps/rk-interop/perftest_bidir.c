/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * perftest's -b (bidirectional) and --run_infinitely data phases over the
 * TCP exchange (see perftest.h). Under -b both ends run the bw client's
 * loop towards each other: write_bw and read_bw need nothing more (the
 * engine serves the peer's operations meanwhile); send_bw also counts and
 * reposts its receives, and its server sends nothing before the client's
 * first SEND arrived, as perftest's run_iter_bi(). --run_infinitely posts
 * without end and prints a result line per -D interval until a signal or
 * the peer's end of the exchange.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perftest.h"

/* One round of send_bw -b: post SENDs (the server after the first arrived), reap both kinds. */
static int
send_bidir_step(struct pt *t)
{
	struct ia *a = t->a;
	struct rk_wc wc[32];
	uint64_t now = rk_io_dpdk_now_ns(), allowed = rk_app_pacer_allowed(&t->pace, t->posted, now);
	bool may_send = t->client || t->recvd > 0;
	int n, rc;

	while (may_send && t->posted < t->iters && t->posted - t->done < t->window &&
	       t->posted < allowed) {
		rc = pt_post_op(t, t->posted);
		if (rc < 0)
			return -1;
		if (rc > 0)
			break;
	}
	n = rk_poll_cq(t->cq, 32, wc);
	if (n < 0)
		return ia_fail(a, "poll_cq: %s", strerror(-n));
	for (int i = 0; i < n; i++) {
		int taken;

		if (wc[i].status != RK_WC_SUCCESS)
			return t->link->wc_fail(t, &wc[i]);
		taken = ia_take_send(a, &wc[i], PT_RECV, t->size, &t->recvd);
		if (taken < 0)
			return -1;
		if (taken == 0) {
			t->done++;
			continue;
		}
		/* perftest reposts until iters receives were posted in all. */
		if (t->rposted < t->iters && pt_post_recv(t, (uint32_t)(wc[i].wr_id & 0xffffff)) != 0)
			return -1;
	}
	if (t->done == t->iters && t->seconds == 0)
		t->seconds = (double)(rk_io_dpdk_now_ns() - t->t0) * 1e-9;
	return n;
}

int
pt_run_bidir(struct pt *t)
{
	struct ia *a = t->a;

	t->link->flow(t);
	if (t->verb != PT_SEND)
		return pt_run_bw_client(t);
	if (pt_bw_client_begin(t) != 0)
		return -1;
	while (t->done < t->iters || t->recvd < t->iters) {
		int n = send_bidir_step(t);

		if (n < 0)
			return -1;
		n += t->link->pump(t, n);
		if (ia_watchdog(a, n) != 0)
			return ia_fail(a, "no progress for %.0f s: sent %" PRIu64 ", received %" PRIu64
				       " of %u each way", a->o.timeout_s, t->done, t->recvd, t->iters);
	}
	return 0;
}

/* What the interval lines count: our completions, our receives, or the peer's operations. */
static uint64_t
forever_count(const struct pt *t, bool sender)
{
	const struct rk_ib_stats *s;
	uint32_t mtu = 128u << t->mtu_enum;

	if (sender)
		return t->done;
	if (t->verb == PT_SEND)
		return t->recvd;
	/* A passive server completes nothing: the engine counts what it served. */
	s = rk_context_stats(t->a->ctx);
	if (t->verb == PT_READ)
		return s->resp_read_reqs;
	return s->resp_write_reqs / ((t->size + mtu - 1) / mtu);
}

int
pt_run_forever(struct pt *t)
{
	struct ia *a = t->a;
	bool sender = t->client || a->o.bidir;
	uint64_t last_poll = 0, total0, delta;
	struct rk_app_interval iv;
	const char *why = "stopped by a signal";
	double secs;

	t->link->flow(t);
	if (sender && pt_bw_client_begin(t) != 0)
		return -1;
	/* Without end: posts (and, as send_bw's server, reposted receives). */
	t->iters = UINT32_MAX;
	t->end_ns = 0;
	total0 = forever_count(t, sender);
	rk_app_interval_init(&iv, a->o.interval_s, rk_io_dpdk_now_ns(), total0);
	printf(" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]"
	       "   (%s, every %.0f s)\n", sender ? "our operations" : t->verb == PT_SEND ?
	       "SENDs received" : t->verb == PT_READ ? "READs served" : "WRITEs placed",
	       a->o.interval_s);
	fflush(stdout);
	rk_app_watchdog_restart(&a->wd);
	for (;;) {
		uint64_t now;
		int n;

		if (rk_app_stop)
			break;
		n = sender ? pt_bw_client_step(t) : t->verb == PT_SEND ? pt_send_server_step(t) :
		    rk_progress(a->ctx);
		if (n < 0)
			return -1;
		now = rk_io_dpdk_now_ns();
		/* perftest's peer never writes here while it runs: readable is its end. */
		if (now - last_poll >= 100000000ull) {
			last_poll = now;
			if (rk_oob_readable(a->fd)) {
				why = "the peer closed the exchange";
				break;
			}
		}
		if (rk_app_interval_due(&iv, now, forever_count(t, sender), &delta, &secs)) {
			double bytes = (double)delta * (t->verb == PT_ATOMIC ? 8 : t->size);

			rk_app_bw_line(stdout, t->verb == PT_ATOMIC ? 8 : t->size, delta, 0,
				       bytes / secs, (double)delta / secs, false);
		}
		if (ia_watchdog(a, n) != 0) {
			if (rk_app_stop)
				break;
			return -1;
		}
		rk_io_dpdk_idle(a->io, n);
	}
	/*
	 * The signal is this run's planned end: a fresh RK_APP_STOP_GRACE_S for what is left.
	 * What we posted may complete for 0.5 s (the peer is still there); the
	 * rest is left in flight, as perftest's end leaves it, and counted.
	 */
	rk_app_stop_grace();
	if (sender && rk_app_stop && t->fd >= 0 && !rk_oob_readable(a->fd)) {
		uint64_t end = rk_io_dpdk_now_ns() + 500000000ull;

		t->iters = (uint32_t)t->posted;
		while (t->done < t->posted && rk_io_dpdk_now_ns() < end) {
			int n = pt_bw_client_step(t);

			if (n < 0)
				return -1;
			rk_io_dpdk_idle(a->io, n);
		}
		if (t->done < t->posted)
			printf(" run_infinitely: %" PRIu64 " operations still in flight at the end\n",
			       t->posted - t->done);
	}
	/* The end of our exchange tells an rk-interop peer the run is over. */
	if (a->fd >= 0) {
		close(a->fd);
		a->fd = t->fd = -1;
	}
	if (!sender && t->verb == PT_READ &&
	    !rk_app_check(t->buf + t->region_off, t->region_len, 0x5eed))
		return ia_fail(a, "READ-only buffer changed during the test");
	printf(" run_infinitely: %u intervals of %.0f s, %" PRIu64 " %s in all; %s\n", iv.done,
	       a->o.interval_s, forever_count(t, sender) - total0,
	       sender ? "operations completed" : "operations seen", why);
	printf("result: ok (%s)\n", t->verb == PT_READ ? "READ data checked" :
	       sender ? "completions checked" : t->verb == PT_SEND ? "lengths checked" :
	       "WRITEs counted");
	fflush(stdout);
	return 0;
}
