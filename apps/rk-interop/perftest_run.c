/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One perftest connection over RoCE after its set-up (perftest.c): the
 * data phase (the latency tools' ping-pong is here), then the reports,
 * last barriers, close and result line. ia_perftest() starts every run.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perftest.h"

/* Ping-pong: write_lat (counter in the last byte), send_lat, read_lat. */
static int
run_lat(struct pt *t)
{
	struct ia *a = t->a;
	volatile uint8_t *poll_byte = t->buf + t->region_off + t->size - 1;
	uint8_t *post_byte = t->buf + t->size - 1;
	uint64_t scnt = 0, rcnt = 0, sdone = 0, first = 0, t0 = rk_io_dpdk_now_ns();
	uint8_t *ref = NULL;
	bool active = t->client || t->verb != PT_READ;
	/* perftest's send_lat starts with the client, its write_lat with the server. */
	bool starter = t->verb == PT_WRITE ? !t->client : t->client;
	struct rk_wc wc[32];

	if (!active)
		return pt_roce_passive(t);
	if (t->verb == PT_READ && (ref = malloc(t->size)) == NULL)
		return ia_fail(a, "out of memory");
	rk_app_fill(t->buf, t->size, 1);
	while (scnt < t->iters || rcnt < t->iters || sdone < scnt) {
		int n = 0;
		bool may_send;

		/* Send when the previous message of the peer is in (the client starts). */
		if (t->verb == PT_READ)
			may_send = scnt == sdone && scnt < t->iters;
		else
			may_send = scnt < t->iters && (rcnt > scnt || (starter && scnt == rcnt)) &&
				   scnt - sdone < a->o.tx_depth;
		if (may_send) {
			int rc;

			if (t->verb == PT_WRITE)
				*post_byte = (uint8_t)(scnt + 1);
			rc = pt_post_op(t, scnt);
			if (rc < 0)
				goto fail;
			if (rc == 0)
				scnt++;
		}
		n = rk_poll_cq(t->cq, 32, wc);
		if (n < 0) {
			ia_fail(a, "poll_cq: %s", strerror(-n));
			goto fail;
		}
		for (int i = 0; i < n; i++) {
			if (wc[i].status != RK_WC_SUCCESS) {
				pt_roce_wc_fail(t, &wc[i]);
				goto fail;
			}
			if (wc[i].wr_id & PT_RECV) {
				if (wc[i].byte_len != t->size) {
					ia_fail(a, "message %" PRIu64 ": %u bytes, expected %u", rcnt,
						wc[i].byte_len, t->size);
					goto fail;
				}
				rcnt++;
				if (pt_post_recv(t, (uint32_t)(wc[i].wr_id & 0xffffff)) != 0)
					goto fail;
			} else {
				if (pt_check_result(t, wc[i].wr_id, ref, &first) != 0)
					goto fail;
				sdone++;
				if (t->verb == PT_READ)
					rcnt++;
			}
		}
		/* write_lat: the peer's write of the next number has fully landed. */
		if (t->verb == PT_WRITE && rcnt < t->iters &&
		    *poll_byte == (uint8_t)(rcnt + 1)) {
			rcnt++;
			n++;
		}
		if (ia_watchdog(a, n) != 0) {
			ia_fail(a, "no progress for %.0f s at iteration %" PRIu64 " (the peer "
				"vanished?)", a->o.timeout_s, rcnt);
			goto fail;
		}
		rk_io_dpdk_idle(a->io, n);
	}
	t->done = sdone;
	t->seconds = (double)(rk_io_dpdk_now_ns() - t0) * 1e-9;
	free(ref);
	return 0;
fail:
	free(ref);
	return -1;
}

/* After the data phase: reports, last barriers, close, server-side checks, result. */
int
pt_roce_finish(struct pt *t, uint64_t sum0)
{
	struct ia *a = t->a;
	uint64_t peer_iters = 0;

	if (pt_bw_report(t)) {
		if (pt_roce_keys(t, NULL) != 0 || pt_reports(t, &peer_iters) != 0)
			return -1;
	}
	/* perftest's write_lat closes without the last barrier. */
	if (!(t->lat && t->verb == PT_WRITE) && pt_roce_keys(t, NULL) != 0)
		return -1;
	if (t->cm) {
		struct rk_app_cm_conn *cs[2] = { &t->data, &t->comm };

		if (ia_cm_close(a, cs, 2, true, 3.0) != 0)
			return -1;
	} else {
		(void)rk_oob_send(a->fd, "done", 5);
	}
	return pt_result(t, sum0, peer_iters);
}

/*
 * After a -b data phase, as perftest's duplex tests: the bw reports both
 * ways at once (no barrier before them), a barrier, "done". Then checks:
 * the peer did the same count (-n), our READ-only region unchanged, and
 * the result line of each direction and their sum.
 */
static int
pt_finish_bidir(struct pt *t)
{
	struct ia *a = t->a;
	uint64_t peer_iters = 0;
	double mbs = t->seconds > 0 ? (double)t->size * (double)t->done / t->seconds / 1048576.0 : 0;

	if (pt_reports(t, &peer_iters) != 0 || pt_roce_keys(t, NULL) != 0)
		return -1;
	(void)rk_oob_send(a->fd, "done", 5);
	if (a->o.duration_s <= 0 && peer_iters != t->iters)
		return ia_fail(a, "the peer reported %" PRIu64 " iterations of its direction, "
			       "expected %u", peer_iters, t->iters);
	if (peer_iters == 0)
		return ia_fail(a, "the peer reported no iterations of its direction");
	if (t->verb == PT_READ && !rk_app_check(t->buf + t->region_off, t->region_len, 0x5eed))
		return ia_fail(a, "READ-only buffer changed during the test");
	printf(" #bytes %u  #iterations %u  %.2f s  %.2f MB/sec  (peer: %" PRIu64
	       " iterations %.2f MB/sec; both ways %.2f MB/sec)\n", t->size, t->iters, t->seconds,
	       mbs, peer_iters, t->peer_mbs, mbs + t->peer_mbs);
	printf("result: ok (bidirectional: %s)\n", t->verb == PT_READ ? "READ data checked" :
	       t->verb == PT_SEND ? "SENDs and lengths both ways checked" :
	       "completions checked");
	fflush(stdout);
	return 0;
}

int
ia_perftest(struct ia *a)
{
	struct pt t;
	uint64_t sum0;
	int rc = -1;

	if (a->o.pair_port != 0)
		return ia_perftest_pair(a);
	if (a->o.qps > 1 && !a->o.rdma_cm)
		return ia_perftest_qps(a);
	pt_roce_init(&t, a);
	if (pt_roce_setup(&t) != 0)
		goto out;
	rk_app_watchdog_restart(&a->wd);
	sum0 = rk_pt_word_sum(t.buf + t.region_off, t.region_len);
	if (a->o.run_infinitely) {
		rc = pt_run_forever(&t);
	} else if (a->o.bidir) {
		rc = pt_run_bidir(&t);
		if (rc == 0)
			rc = pt_finish_bidir(&t);
	} else {
		rc = t.lat ? run_lat(&t) : pt_run(&t);
		if (rc == 0)
			rc = pt_roce_finish(&t, sum0);
	}
out:
	pt_release(&t);
	return rc;
}
