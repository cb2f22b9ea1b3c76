/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-perf's latency engines: SEND and WRITE ping-pong (the server answers
 * every message), READ and ATOMIC one at a time; perftest's timing.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf.h"

static int
post_send_lat(struct perf *p, uint32_t size, uint64_t key)
{
	struct qpres *q = &p->q[0];
	struct rk_sge sge = { (uint64_t)(uintptr_t)q->buf, size, q->mr->lkey };
	struct rk_send_wr wr = { .wr_id = key, .sg_list = &sge, .num_sge = 1,
				 .opcode = RK_WR_SEND, .send_flags = RK_SEND_SIGNALED };
	struct rk_send_wr *bad;
	int rc;

	if (p->o.verify)
		rk_app_fill(q->buf, size, key);
	rc = rk_post_send(q->qp, &wr, &bad);
	return rc == 0 ? 0 : fail(p, "post_send: %s", strerror(-rc));
}

static int
post_write_lat(struct perf *p, uint32_t size, uint64_t key, uint8_t mark)
{
	struct qpres *q = &p->q[0];
	struct rk_sge sge = { (uint64_t)(uintptr_t)q->buf, size, q->mr->lkey };
	struct rk_send_wr wr = { .wr_id = key, .sg_list = &sge, .num_sge = 1,
				 .opcode = RK_WR_RDMA_WRITE, .send_flags = RK_SEND_SIGNALED };
	struct rk_send_wr *bad;
	int rc;

	/* Slot 0 is the source, slot 1 of the peer the target. */
	wr.wr.rdma.remote_addr = p->remote.qp[0].va + size;
	wr.wr.rdma.rkey = p->remote.qp[0].rkey;
	if (p->o.verify)
		rk_app_fill(q->buf, size, key);
	q->buf[size - 1] = mark;
	rc = rk_post_send(q->qp, &wr, &bad);
	return rc == 0 ? 0 : fail(p, "post_send: %s", strerror(-rc));
}

static uint8_t
mark_of(uint64_t it)
{
	return (uint8_t)(it % 255 + 1);
}

/* Wait for one receive (SEND ping-pong); check it and repost. */
static int
wait_recv(struct perf *p, uint32_t size, uint64_t key, bool server)
{
	struct qpres *q = &p->q[0];
	static unsigned int spins;
	struct rk_wc wc;
	int work = 0, done = 0;

	for (;;) {
		int n;

		/*
		 * One pass over the port per spin (rk_poll_cq on the empty
		 * receive CQ); the send CQ, the socket and the watchdog every
		 * 16th spin, so a reply is seen sooner. 16 spins leave at most
		 * 16 send completions waiting, far below the CQ's room.
		 */
		/* Over lwIP the reply's frames come through its poll: every spin. */
		if (p->iw != NULL)
			work += perf_iw_poll(p->iw);
		n = rk_poll_cq(p->rcq, 1, &wc);
		if (n < 0)
			return fail(p, "poll_cq: %s", strerror(-n));
		/*
		 * Spins count receives too: a reply waiting at the first poll
		 * of every wait (a slow end, a fast peer) must not leave the
		 * send CQ undrained until it overruns.
		 */
		spins++;
		if (n == 1) {
			uint32_t slot = (uint32_t)(wc.wr_id & 0xffffffff);

			if (check_wc(p, &wc) != 0)
				return -1;
			if (spins % 16 == 0 && drain_scq(p, &done) != 0)
				return -1;
			if (p->o.verify && (wc.byte_len != size ||
					    !rk_app_check(q->rbuf + (size_t)slot * p->max_size, size, key)) &&
			    q->verify_errors++ == 0)
				fail(p, "verify: message %" PRIu64 " has wrong data",
				     key & (((uint64_t)1 << 38) - 1));
			q->recvd++;
			perf_event(p);
			return post_recv_slot(p, 0, slot) != 0 ? -1 : 1;
		}
		if (spins % 16 != 0)
			continue;
		if (drain_scq(p, &done) != 0)
			return -1;
		if (server && oob_due(p))
			return 0;
		/* lwIP's frames are no progress: they may be retransmissions. */
		if (watchdog(p, done) != 0)
			return -1;
		perf_idle(p, work + done);
		work = done = 0;
	}
}

/* Wait until the last byte of slot 1 shows @mark (WRITE ping-pong). */
static int
wait_mark(struct perf *p, uint32_t size, uint8_t mark, uint64_t key, bool server)
{
	struct qpres *q = &p->q[0];
	volatile uint8_t *last = q->buf + size + size - 1;

	for (;;) {
		int done = 0, frames;

		if (*last == mark) {
			if (p->o.verify && !rk_app_check(q->buf + size, size - 1, key) &&
			    q->verify_errors++ == 0)
				fail(p, "verify: WRITE %" PRIu64 " has wrong data",
				     key & (((uint64_t)1 << 38) - 1));
			perf_event(p);
			return 1;
		}
		if (drain_scq(p, &done) != 0)
			return -1;
		frames = rk_progress(p->ctx);
		if (server && oob_due(p))
			return 0;
		/* Frames are no progress: they may be retransmissions. */
		if (watchdog(p, done) != 0)
			return -1;
		perf_idle(p, done + (frames > 0 ? frames : 0));
	}
}

/* One SEND ping-pong: our SEND @p it, the server's answer. */
static int
round_send(struct perf *p, uint32_t size, uint64_t it)
{
	int rc = post_send_lat(p, size, it);

	return rc == 0 && wait_recv(p, size, KEY_SERVER | it, false) < 0 ? -1 : rc;
}

/* One WRITE ping-pong: our WRITE @p it, the server's WRITE marked alike. */
static int
round_write(struct perf *p, uint32_t size, uint64_t it)
{
	int rc = post_write_lat(p, size, it, mark_of(it));

	return rc == 0 && wait_mark(p, size, mark_of(it), KEY_SERVER | it, false) < 0 ? -1 : rc;
}

/* One READ or ATOMIC: post the engine's message, wait for its completion. */
static int
round_one(struct perf *p, uint32_t size, uint64_t it)
{
	struct qpres *q = &p->q[0];
	struct rk_wc wc;
	int n, rc = p->e->post(p, 0, size, nslots(p, size));

	while (rc == 0) {
		n = rk_poll_cq(p->scq, 1, &wc);
		if (n < 0) {
			rc = fail(p, "poll_cq: %s", strerror(-n));
		} else if (n == 1) {
			rc = check_wc(p, &wc);
			if (rc == 0 && p->o.verify)
				p->e->complete(p, 0, it, size, nslots(p, size));
			q->done++;
			break;
		} else {
			rc = watchdog(p, 0);
			perf_idle(p, 0);
		}
	}
	perf_event(p);
	return rc;
}

/*
 * The warm-up iterations come first and are numbered as the rest (keys,
 * marks, the server's count), so --verify checks them too; -D times only
 * what follows them.
 */
static int
run_lat_client(struct perf *p, uint32_t size, struct perf_result *r)
{
	struct perf_opts *o = &p->o;
	uint64_t cap = o->duration_s > 0 ? 10000000 : o->iters, it, nlat = 0;
	uint64_t warm = perf_warmup(o, msg_bytes(p, size));
	uint64_t t_begin = 0, t_end = 0;
	struct rk_app_progress line = { .prog = "rk-perf" };
	double sum = 0;
	double *lat = malloc(cap * sizeof(double));
	struct qpres *q = &p->q[0];
	int rc = 0;

	if (lat == NULL)
		return fail(p, "out of memory");
	q->posted = q->done = 0;
	for (it = 0; nlat < cap && rc == 0; it++) {
		uint64_t t0, t1;

		if (it == warm) {
			t_begin = now_ns();
			t_end = t_begin + (uint64_t)(o->duration_s * 1e9);
			line.t0_ns = t_begin;
		}
		if (o->duration_s > 0 && it >= warm && now_ns() >= t_end)
			break;
		t0 = now_ns();
		rc = p->e->round(p, size, it);
		t1 = now_ns();
		if (it < warm)
			continue;
		/* Ping-pong tests report half the round trip, as perftest. */
		lat[nlat++] = (double)(t1 - t0) / 1e3 /
			   (o->verb == VERB_SEND || o->verb == VERB_WRITE ? 2 : 1);
		sum += lat[nlat - 1];
		/* The mean latency: ping-pongs of a few bytes make a rate of 0.000 Gb/s. */
		rk_app_progress(&line, now_ns(), nlat, nlat * (uint64_t)size, sum / (double)nlat);
	}
	if (rc == 0) {
		/* The final ACKs of our sends: drain before the server stops. */
		int work = 0;

		for (uint64_t t = now_ns() + 2000000; now_ns() < t;)
			if (drain_scq(p, &work) != 0)
				break;
		q->posted = it;
		r->bytes = size;
		r->iters = nlat;
		r->warmup = it - nlat;
		/* perftest's -U, then -H (which -U implies): "#, usec" and a line each. */
		if (o->unsorted)
			print_latencies(lat, nlat);
		lat_stats(lat, nlat, r);
		if (o->histogram) {
			print_latencies(lat, nlat);
			report_columns(o);
		}
	}
	free(lat);
	return rc;
}

static int
server_lat(struct perf *p, uint32_t size)
{
	for (uint64_t it = 0;; it++) {
		int rc;

		rc = p->o.verb == VERB_SEND ? wait_recv(p, size, it, true) :
					      wait_mark(p, size, mark_of(it), it, true);
		if (rc <= 0)
			return rc;      /* error, or the client's message waits */
		rc = p->o.verb == VERB_SEND ? post_send_lat(p, size, KEY_SERVER | it) :
					      post_write_lat(p, size, KEY_SERVER | it, mark_of(it));
		if (rc != 0)
			return -1;
	}
}

const struct perf_engine perf_write_lat = {
	.name = "write_lat", .verb = VERB_WRITE, .mode = MODE_LAT, .prepare = prepare_phase,
	.round = round_write, .run = run_lat_client, .serve = server_lat,
	.verify = server_verify,
};

const struct perf_engine perf_read_lat = {
	.name = "read_lat", .verb = VERB_READ, .mode = MODE_LAT, .prepare = prepare_phase,
	.post = post_read, .complete = complete_read, .round = round_one,
	.run = run_lat_client, .serve = server_bw, .verify = server_verify,
};

const struct perf_engine perf_send_lat = {
	.name = "send_lat", .verb = VERB_SEND, .mode = MODE_LAT, .prepare = prepare_phase,
	.round = round_send, .run = run_lat_client, .serve = server_lat,
	.verify = server_verify,
};

const struct perf_engine perf_atomic_lat = {
	.name = "atomic_lat", .verb = VERB_ATOMIC, .mode = MODE_LAT, .prepare = prepare_phase,
	.post = post_atomic, .complete = complete_atomic, .round = round_one,
	.run = run_lat_client, .serve = server_bw, .verify = server_verify,
};
