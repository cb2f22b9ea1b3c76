/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-perf's bandwidth engines (write_bw, read_bw, send_bw, atomic_bw): a
 * window of messages in flight per QP, completions polled in batches;
 * the server serves receives (and iWARP credits) until the client's end.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf.h"
#include "rk_byteorder.h"

/* Slot it % @slots of QP @qi: message @it's local bytes, a WR naming them. */
static uint8_t *
msg_wr(struct perf *p, uint32_t qi, uint32_t size, uint32_t slots, struct rk_sge *sge,
       struct rk_send_wr *wr)
{
	struct qpres *q = &p->q[qi];
	uint64_t it = q->posted;
	uint32_t bytes = msg_bytes(p, size), slot = (uint32_t)(it % slots);
	uint8_t *local = q->buf + (size_t)slot * bytes;
	/* -Q: every cq_mod-th, and an iteration count's last (a timed run ends on one). */
	bool signal = p->cq_mod <= 1 || (it + 1) % p->cq_mod == 0 ||
		      (p->o.duration_s <= 0 && it + 1 == p->o.iters);

	*sge = (struct rk_sge){ (uint64_t)(uintptr_t)local, bytes, q->mr->lkey };
	*wr = (struct rk_send_wr){ .wr_id = ((uint64_t)qi << 40) | it, .sg_list = sge,
				   .num_sge = 1, .send_flags = signal ? RK_SEND_SIGNALED : 0 };
	return local;
}

/* Post @p wr on QP @p qi: 0, 1 (send queue full: poll first) or -1. */
static int
post_wr(struct perf *p, uint32_t qi, struct rk_send_wr *wr)
{
	struct qpres *q = &p->q[qi];
	struct rk_send_wr *bad;
	int rc;

	/* -l: kept for post_list() to post as a list (the SGE too: it is on our caller's stack). */
	if (p->batching) {
		p->batch_sge[p->nbatch] = *wr->sg_list;
		p->batch[p->nbatch] = *wr;
		p->batch[p->nbatch].sg_list = &p->batch_sge[p->nbatch];
		p->nbatch++;
		q->posted++;
		q->sent++;
		return 0;
	}
	rc = rk_post_send(q->qp, wr, &bad);
	if (rc == -ENOMEM)
		return 1;
	if (rc != 0) {
		char why[128];

		return fail(p, "post_send: %s", post_error(q->qp, rc, why, sizeof(why)));
	}
	q->posted++;
	q->sent++;
	return 0;
}

/* WRITE or READ of slot @p slot of the peer's buffer, as the local slot. */
static int
post_rdma(struct perf *p, uint32_t qi, uint32_t size, uint32_t slots, enum rk_wr_opcode op)
{
	struct rk_sge sge;
	struct rk_send_wr wr;
	uint8_t *local = msg_wr(p, qi, size, slots, &sge, &wr);

	if (p->o.verify && op == RK_WR_RDMA_WRITE)
		rk_app_fill(local, sge.length, wr.wr_id);
	wr.opcode = op;
	wr.wr.rdma.remote_addr = p->remote.qp[qi].va + (uint64_t)(local - p->q[qi].buf);
	wr.wr.rdma.rkey = p->remote.qp[qi].rkey;
	return post_wr(p, qi, &wr);
}

static int
post_write(struct perf *p, uint32_t qi, uint32_t size, uint32_t slots)
{
	return post_rdma(p, qi, size, slots, RK_WR_RDMA_WRITE);
}

int
post_read(struct perf *p, uint32_t qi, uint32_t size, uint32_t slots)
{
	return post_rdma(p, qi, size, slots, RK_WR_RDMA_READ);
}

static int
post_send(struct perf *p, uint32_t qi, uint32_t size, uint32_t slots)
{
	struct rk_sge sge;
	struct rk_send_wr wr;
	uint8_t *local = msg_wr(p, qi, size, slots, &sge, &wr);

	if (p->o.verify)
		rk_app_fill(local, sge.length, wr.wr_id);
	wr.opcode = RK_WR_SEND;
	return post_wr(p, qi, &wr);
}

int
post_atomic(struct perf *p, uint32_t qi, uint32_t size, uint32_t slots)
{
	struct rk_sge sge;
	struct rk_send_wr wr;
	uint64_t it = p->q[qi].posted;

	msg_wr(p, qi, size, slots, &sge, &wr);
	/* One counter per QP at offset 0; results go to the slot. */
	wr.wr.atomic.remote_addr = p->remote.qp[qi].va;
	wr.wr.atomic.rkey = p->remote.qp[qi].rkey;
	if (p->o.atomic_cas) {
		wr.opcode = RK_WR_ATOMIC_CMP_AND_SWP;
		wr.wr.atomic.compare_add = it;
		wr.wr.atomic.swap = it + 1;
	} else {
		wr.opcode = RK_WR_ATOMIC_FETCH_AND_ADD;
		wr.wr.atomic.compare_add = 1;
	}
	return post_wr(p, qi, &wr);
}

/*
 * iWARP SEND bw, client: whether QP @p qi may send now. iWARP has no RNR
 * NAK: a SEND that finds no posted receive ends the connection with a
 * Terminate, and a SEND completes once TCP took it, long before the
 * server took it. So, as perftest's credits over iWARP, at most rslots
 * SENDs beyond the server's count of receives taken.
 */
static bool
credit_ok(const struct perf *p, uint32_t qi)
{
	const struct qpres *q = &p->q[qi];

	return !p->credits || q->sent - rk_get_be64(q->buf + p->credit_off) < p->rslots;
}

/*
 * iWARP SEND bw, server: after reposting, tell the client its count of
 * receives taken, every quarter of the receive queue (and at least every
 * receive for a queue of 1 to 3), so the client, stopped at rslots
 * unanswered SENDs, always gets one. The word is read when the FPDU is
 * built, perhaps after a later count was stored: a later count is as true.
 */
static int
post_credit(struct perf *p, uint32_t qi)
{
	struct qpres *q = &p->q[qi];
	uint32_t step = p->rslots / 4 > 0 ? p->rslots / 4 : 1;
	uint8_t *src = q->buf + p->credit_off;
	struct rk_sge sge = { (uint64_t)(uintptr_t)src, 8, q->mr->lkey };
	struct rk_send_wr wr = { .wr_id = ((uint64_t)qi << 40) | ((1ull << 40) - 2),
				 .sg_list = &sge, .num_sge = 1, .opcode = RK_WR_RDMA_WRITE,
				 .send_flags = RK_SEND_SIGNALED };
	struct rk_send_wr *bad;
	char why[128];
	int rc;

	if (!p->credits || q->taken - q->credited < step)
		return 0;
	rk_put_be64(src, q->taken);
	wr.wr.rdma.remote_addr = p->remote.qp[qi].va + p->credit_off;
	wr.wr.rdma.rkey = p->remote.qp[qi].rkey;
	rc = rk_post_send(q->qp, &wr, &bad);
	if (rc == -ENOMEM)
		return 0;               /* the send queue is full of credits: next time */
	if (rc != 0)
		return fail(p, "post_send (credit): %s", post_error(q->qp, rc, why, sizeof(why)));
	q->credited = q->taken;
	return 0;
}

/* Check what a completed READ brought back. */
void
complete_read(struct perf *p, uint32_t qi, uint64_t it, uint32_t size, uint32_t slots)
{
	struct qpres *q = &p->q[qi];
	uint32_t bytes = msg_bytes(p, size), slot = (uint32_t)(it % slots);

	if (!rk_app_check(q->buf + (size_t)slot * bytes, bytes,
			  KEY_READ | ((uint64_t)qi << 40) | slot) && q->verify_errors++ == 0)
		fail(p, "verify: READ %" PRIu64 " on QP %u returned wrong data", it, qi);
}

/* Check what a completed ATOMIC returned: the counter before it. */
void
complete_atomic(struct perf *p, uint32_t qi, uint64_t it, uint32_t size, uint32_t slots)
{
	struct qpres *q = &p->q[qi];
	uint64_t orig;

	memcpy(&orig, q->buf + (size_t)(it % slots) * msg_bytes(p, size), 8);
	if (orig != it && q->verify_errors++ == 0)
		fail(p, "verify: ATOMIC %" PRIu64 " on QP %u returned %" PRIu64
		     " (expected %" PRIu64 ")", it, qi, orig, it);
}

/*
 * iWARP: a Write or Send completes once handed to TCP (RFC 5040), not when
 * placed. A 1-byte Read per QP after the last one returns only after the
 * peer processed everything before it (one ordered stream), so the peer's
 * memory and receive completions are final when the phase ends.
 */
static int
iw_fence(struct perf *p)
{
	uint32_t want = 0;
	uint64_t until = now_ns() + (uint64_t)(p->o.timeout_s * 1e9);

	rk_app_watchdog_restart(&p->wd);

	for (uint32_t i = 0; i < p->o.qps; i++) {
		struct qpres *q = &p->q[i];
		struct rk_sge sge = { (uint64_t)(uintptr_t)q->buf, 1, q->mr->lkey };
		struct rk_send_wr wr = { .wr_id = ((uint64_t)i << 40) | ((1ull << 40) - 1),
					 .sg_list = &sge, .num_sge = 1,
					 .opcode = RK_WR_RDMA_READ, .send_flags = RK_SEND_SIGNALED };
		struct rk_send_wr *bad;
		int rc;

		wr.wr.rdma.remote_addr = p->remote.qp[i].va;
		wr.wr.rdma.rkey = p->remote.qp[i].rkey;
		while ((rc = rk_post_send(q->qp, &wr, &bad)) == -ENOMEM && now_ns() < until)
			perf_idle(p, rk_progress(p->ctx));
		if (rc != 0)
			return fail(p, "post_send (fence READ): %s", strerror(-rc));
		want++;
	}
	while (want > 0) {
		int n = 0;

		if (drain_scq(p, &n) != 0)
			return -1;
		want -= (uint32_t)n;
		/* The READ waits behind all data still in the stream: bounded by progress. */
		if (watchdog(p, n) != 0)
			return -1;
		perf_idle(p, n);
	}
	return 0;
}

/*
 * -l: the next @p n messages of QP @p qi in one rk_post_send(), a list as
 * the engine's post() builds them one by one. @return messages posted
 * (fewer when the send queue filled: the rest are taken back), or -1.
 */
static int
post_list(struct perf *p, uint32_t qi, uint32_t size, uint32_t slots, uint32_t n)
{
	struct qpres *q = &p->q[qi];
	struct rk_send_wr *bad = NULL;
	uint32_t left;
	int rc = 0;

	p->batching = true;
	p->nbatch = 0;
	for (uint32_t k = 0; k < n && rc == 0; k++)
		rc = p->e->post(p, qi, size, slots);
	p->batching = false;
	if (rc != 0)
		return -1;
	for (uint32_t k = 0; k + 1 < n; k++)
		p->batch[k].next = &p->batch[k + 1];
	p->batch[n - 1].next = NULL;
	rc = rk_post_send(q->qp, &p->batch[0], &bad);
	if (rc != 0 && rc != -ENOMEM) {
		char why[128];

		return fail(p, "post_send (-l %u): %s", n, post_error(q->qp, rc, why, sizeof(why)));
	}
	left = rc == 0 || bad == NULL ? 0 : (uint32_t)(n - (uint32_t)(bad - p->batch));
	q->posted -= left;
	q->sent -= left;
	return (int)(n - left);
}

/*
 * Whether QP @p q has messages left to post: -n's count, or until the
 * time is up; with -Q up to a signalled WR, or the ones after the last
 * signalled would never complete.
 */
static bool
to_post(const struct perf *p, const struct qpres *q, bool timeup)
{
	if (p->o.duration_s <= 0)
		return q->posted < p->o.iters;
	return !timeup || (p->cq_mod > 1 && q->posted % p->cq_mod != 0);
}

/*
 * -l: the next list's length: up to the next multiple of -l (a list the
 * send queue cut short is made up by the next one), no further than -n,
 * and once the time is up only to the next signalled WR.
 */
static uint32_t
list_len(const struct perf *p, const struct qpres *q, bool timeup)
{
	uint64_t n = p->o.post_list - q->posted % p->o.post_list;

	if (p->o.duration_s <= 0 && p->o.iters - q->posted < n)
		n = p->o.iters - q->posted;
	if (p->o.duration_s > 0 && timeup && p->cq_mod > 1 &&
	    p->cq_mod - q->posted % p->cq_mod < n)
		n = p->cq_mod - q->posted % p->cq_mod;
	return (uint32_t)n;
}

int
run_bw_client(struct perf *p, uint32_t size, struct perf_result *r)
{
	struct perf_opts *o = &p->o;
	uint32_t slots = nslots(p, size), bytes = msg_bytes(p, size);
	uint32_t window = o->tx_depth < slots ? o->tx_depth : slots;
	uint64_t t0 = now_ns(), t_end = t0 + (uint64_t)(o->duration_s * 1e9), t_last = t0;
	uint64_t win_t = t0, win_done = 0, total_done = 0;
	struct rk_app_progress line = { .prog = "rk-perf", .t0_ns = t0 };
	/* --rate_limit: messages per second of all QPs; unpaced without it. */
	struct rk_app_pacer pace;
	uint64_t posted_all = 0, allowed = UINT64_MAX;
	double peak = 0;
	struct rk_wc wc[64];
	bool more = true;

	rk_app_pacer_init(&pace, o->rate_limit, o->rate_units, bytes, t0);
	if (o->verb == VERB_SEND || o->verb == VERB_WRITE)
		window = o->verify ? window : o->tx_depth;
	for (uint32_t i = 0; i < o->qps; i++)
		p->q[i].posted = p->q[i].done = 0;
	/* perftest's cap: a moderation beyond the window would wait forever. */
	p->cq_mod = o->cq_mod > window ? window : o->cq_mod;
	/* -l: a list at a time (its last WR signalled: parse_args() set -Q). */
	if (o->post_list > window)
		return fail(p, "-l %u: more than the %u messages in flight at %u bytes (-t, "
			    "or the buffer's slots with --verify)", o->post_list, window, size);
	for (;;) {
		int n, work = 0;
		uint64_t now = now_ns();
		bool timeup;

		/* --run_infinitely: a signal ends the interval; what is in flight completes. */
		timeup = (o->duration_s > 0 && now >= t_end) || (rk_app_stop && perf_soft_stop(p));
		if (more) {
			bool any = false;

			/* Paced: what the rate allows by now, one message ahead. */
			allowed = rk_app_pacer_allowed(&pace, posted_all, now);

			for (uint32_t i = 0; i < o->qps; i++) {
				struct qpres *q = &p->q[i];

				while (o->post_list > 1 &&
				       q->posted - q->done + o->post_list <= window &&
				       to_post(p, q, timeup) && posted_all < allowed) {
					uint32_t len = list_len(p, q, timeup);
					int rc = post_list(p, i, size, slots, len);

					if (rc < 0)
						return -1;
					r->post_calls += rc > 0;
					work += rc;
					posted_all += (uint64_t)rc;
					if ((uint32_t)rc < len)
						break;
				}
				while (o->post_list <= 1 && q->posted - q->done < window &&
				       to_post(p, q, timeup) && posted_all < allowed && credit_ok(p, i)) {
					int rc = p->e->post(p, i, size, slots);

					if (rc < 0)
						return -1;
					if (rc > 0)
						break;
					work++;
					posted_all++;
					r->post_calls++;
				}
				if (to_post(p, q, timeup))
					any = true;
			}
			more = any;
		}
		n = rk_poll_cq(p->scq, 64, wc);
		if (n < 0)
			return fail(p, "poll_cq: %s", strerror(-n));
		for (int k = 0; k < n; k++) {
			uint32_t qi = (uint32_t)(wc[k].wr_id >> 40);
			uint64_t it = wc[k].wr_id & ((1ull << 40) - 1);
			struct qpres *q = &p->q[qi];

			if (check_wc(p, &wc[k]) != 0)
				return -1;
			/* A completion ends the WRs up to it (RC's send queue completes in order). */
			for (uint64_t j = p->cq_mod > 1 ? q->done : it; j <= it; j++) {
				if (o->verify && p->e->complete != NULL)
					p->e->complete(p, qi, j, size, slots);
				q->done++;
				total_done++;
			}
			r->cqes++;
		}
		if (n > 0)
			t_last = now_ns();
		if (t_last - win_t >= 100000000ull) {
			double bw = (double)(total_done - win_done) * bytes /
				    ((double)(t_last - win_t) * 1e-9);

			peak = bw > peak ? bw : peak;
			win_t = t_last;
			win_done = total_done;
		}
		rk_app_progress(&line, now_ns(), total_done, total_done * bytes, -1);
		if (!more) {
			bool idle = true;

			for (uint32_t i = 0; i < o->qps; i++)
				if (p->q[i].posted != p->q[i].done)
					idle = false;
			if (idle)
				break;
		}
		if (watchdog(p, n + work) != 0)
			return -1;
		perf_idle(p, n + work);
	}
	/* Goodput counts until the data is placed at the peer. */
	if (p->o.iwarp && o->verb != VERB_READ) {
		if (iw_fence(p) != 0)
			return -1;
		t_last = now_ns();
	}
	r->bytes = size;
	r->iters = total_done;
	r->seconds = (double)(t_last - t0) * 1e-9;
	r->bw_avg_Bps = r->seconds > 0 ? (double)total_done * bytes / r->seconds : 0;
	r->bw_peak_Bps = o->no_peak ? 0 : peak > r->bw_avg_Bps ? peak : r->bw_avg_Bps;
	r->msg_rate = r->seconds > 0 ? (double)total_done / r->seconds : 0;
	return 0;
}

/* Server side of a BW phase: serve until the client reports the end. */
int
server_bw(struct perf *p, uint32_t size)
{
	struct rk_wc wc[64];
	bool ending = false;

	for (;;) {
		int n = rk_poll_cq(p->rcq, 64, wc);

		if (n < 0)
			return fail(p, "poll_cq: %s", strerror(-n));
		for (int k = 0; k < n; k++) {
			uint32_t qi = (uint32_t)(wc[k].wr_id >> 40);
			uint32_t slot = (uint32_t)(wc[k].wr_id & 0xffffffff);
			struct qpres *q = &p->q[qi];

			if (check_wc(p, &wc[k]) != 0)
				return -1;
			if (p->o.verify && (wc[k].byte_len != size ||
					    !rk_app_check(q->rbuf + (size_t)slot * p->max_size, size,
						   ((uint64_t)qi << 40) | q->recvd)) &&
			    q->verify_errors++ == 0)
				fail(p, "verify: SEND %" PRIu64 " on QP %u has wrong data",
				     q->recvd, qi);
			q->recvd++;
			if (post_recv_slot(p, qi, slot) != 0)
				return -1;
			q->taken++;
			if (post_credit(p, qi) != 0)
				return -1;
		}
		/* The credit Writes' completions. */
		if (p->credits && drain_scq(p, &n) != 0)
			return -1;
		/* The client's end message: take the completions still waiting first. */
		if (ending && n == 0)
			return 0;
		if (!ending && oob_due(p))
			ending = true;
		if (rk_app_stop)
			return fail(p, "interrupted");
		/* A client that stopped (SIGSTOP, a dead host) sends no end message. */
		if (!ending && watchdog(p, n) != 0)
			return -1;
		perf_idle(p, n);
	}
}

/* Server: check what the client's phase left in our memory. */
void
server_verify(struct perf *p, uint32_t size, const struct perf_msg *end, struct perf_msg *res)
{
	uint32_t slots = nslots(p, size);

	for (uint32_t qi = 0; qi < p->o.qps && res->status == 0; qi++) {
		struct qpres *q = &p->q[qi];
		uint64_t n = end->iters[qi];

		if (q->verify_errors != 0) {
			res->status = 1;
			snprintf(res->text, sizeof(res->text), "%.120s", p->err);
		} else if (p->o.mode == MODE_LAT) {
			continue;
		} else if (p->o.verb == VERB_WRITE && p->o.verify) {
			for (uint32_t s = 0; s < slots && s < n; s++) {
				uint64_t last = (n - 1 - s) / slots * slots + s;

				if (!rk_app_check(q->buf + (size_t)s * size, size, ((uint64_t)qi << 40) | last)) {
					res->status = 1;
					snprintf(res->text, sizeof(res->text),
						 "verify: WRITE %" PRIu64 " on QP %u: wrong data at the "
						 "server", last, qi);
					break;
				}
			}
		} else if (p->o.verb == VERB_SEND && q->recvd != n) {
			res->status = 1;
			snprintf(res->text, sizeof(res->text), "verify: QP %u: %" PRIu64
				 " SENDs received, %" PRIu64 " sent", qi, q->recvd, n);
		} else if (p->o.verb == VERB_ATOMIC) {
			uint64_t v;

			memcpy(&v, q->buf, 8);
			if (v != n) {
				res->status = 1;
				snprintf(res->text, sizeof(res->text), "verify: QP %u: counter %" PRIu64
					 " after %" PRIu64 " atomics", qi, v, n);
			}
		}
	}
}

/* Both sides: set up memory for a phase (same on both for WRITE lat). */
void
prepare_phase(struct perf *p, uint32_t size)
{
	uint32_t slots = nslots(p, size);

	for (uint32_t qi = 0; qi < p->o.qps; qi++) {
		struct qpres *q = &p->q[qi];

		q->recvd = 0;
		q->verify_errors = 0;
		if (p->o.mode == MODE_LAT && p->o.verb == VERB_WRITE)
			memset(q->buf, 0, (size_t)2 * size);
		if (!p->o.server)
			continue;
		if (p->o.verb == VERB_READ)
			for (uint32_t s = 0; s < slots; s++)
				rk_app_fill(q->buf + (size_t)s * size, size,
				     KEY_READ | ((uint64_t)qi << 40) | s);
		if (p->o.verb == VERB_ATOMIC)
			memset(q->buf, 0, 8);
	}
}

const struct perf_engine perf_write_bw = {
	.name = "write_bw", .verb = VERB_WRITE, .mode = MODE_BW, .prepare = prepare_phase,
	.post = post_write, .run = run_bw_client, .serve = server_bw, .verify = server_verify,
};

const struct perf_engine perf_read_bw = {
	.name = "read_bw", .verb = VERB_READ, .mode = MODE_BW, .prepare = prepare_phase,
	.post = post_read, .complete = complete_read, .run = run_bw_client, .serve = server_bw,
	.verify = server_verify,
};

const struct perf_engine perf_send_bw = {
	.name = "send_bw", .verb = VERB_SEND, .mode = MODE_BW, .prepare = prepare_phase,
	.post = post_send, .run = run_bw_client, .serve = server_bw, .verify = server_verify,
};

const struct perf_engine perf_atomic_bw = {
	.name = "atomic_bw", .verb = VERB_ATOMIC, .mode = MODE_BW, .prepare = prepare_phase,
	.post = post_atomic, .complete = complete_atomic, .run = run_bw_client,
	.serve = server_bw, .verify = server_verify,
};

const struct perf_engine *const perf_engines[] = {
	&perf_write_bw, &perf_write_lat, &perf_read_bw, &perf_read_lat,
	&perf_send_bw, &perf_send_lat, &perf_atomic_bw, &perf_atomic_lat, NULL,
};

const struct perf_engine *
perf_engine_of(enum perf_verb verb, enum perf_mode mode)
{
	for (const struct perf_engine *const *e = perf_engines; *e != NULL; e++)
		if ((*e)->verb == verb && (*e)->mode == mode)
			return *e;
	return NULL;
}
