/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * perftest's data phases for both transports (see perftest.h): the bw
 * client keeps up to t->window operations outstanding and checks what
 * READs and FETCH_AND_ADDs return, the send_bw server counts and reposts
 * receives (and, without RNR, Writes its credits), then the result
 * exchange and the result lines.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perftest.h"
#include "rk_byteorder.h"

int
pt_comm_xchg(struct pt *t, const void *mine, void *theirs, size_t len)
{
	struct ia *a = t->a;
	bool sent = false, got = false, acked = false;
	double deadline = (double)rk_io_dpdk_now_ns() + a->o.oob_timeout_s * 1e9;

	if (len > sizeof(t->cbuf[0]))
		return ia_fail(a, "exchange message too long");
	/* The peer's next message came while the last exchange waited for its ACK. */
	if (t->early_len != 0) {
		if (t->early_len != len)
			return ia_fail(a, "exchange message of %u bytes, expected %zu", t->early_len,
				       len);
		memcpy(theirs, t->early, len);
		t->early_len = 0;
		got = true;
	}
	/*
	 * Done once our message is acknowledged as well: a disconnect right
	 * after the last exchange must not overtake it (the peer, still
	 * waiting for it, would see the connection close first).
	 */
	while (!sent || !got || !acked) {
		struct rk_wc wc;
		int n;

		if (!sent && (t->client || got)) {
			struct rk_sge sge = { (uint64_t)(uintptr_t)t->cbuf[0], (uint32_t)len,
					      t->cmr->lkey };
			struct rk_send_wr wr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1,
						 .opcode = RK_WR_SEND,
						 .send_flags = RK_SEND_SIGNALED };
			struct rk_send_wr *bad;
			int rc;

			memcpy(t->cbuf[0], mine, len);
			rc = rk_post_send(t->cqp, &wr, &bad);
			if (rc != 0)
				return ia_fail(a, "post_send (exchange QP): %s", strerror(-rc));
			sent = true;
		}
		n = rk_poll_cq(t->ccq, 1, &wc);
		if (n < 0)
			return ia_fail(a, "poll_cq: %s", strerror(-n));
		if (n == 1) {
			/*
			 * The peer closes once it has our message (its exchange is
			 * done): a SEND flushed by that close had arrived.
			 */
			if (wc.status != RK_WC_SUCCESS && wc.wr_id == 2 && got &&
			    t->link->comm_closed(t)) {
				acked = true;
				continue;
			}
			if (wc.status != RK_WC_SUCCESS)
				return t->link->comm_wc_fail(t, &wc);
			if (wc.wr_id == 2)
				acked = true;
			if (wc.wr_id == 1 && got) {
				/* The next exchange's: kept for it. */
				t->early_len = wc.byte_len <= sizeof(t->early) ? wc.byte_len : 0;
				if (t->early_len == 0)
					return ia_fail(a, "exchange message of %u bytes", wc.byte_len);
				memcpy(t->early, t->cbuf[1], t->early_len);
				if (t->link->comm_repost(t) != 0)
					return -1;
			} else if (wc.wr_id == 1) {
				if (wc.byte_len != len)
					return ia_fail(a, "exchange message of %u bytes, expected %zu",
						       wc.byte_len, len);
				memcpy(theirs, t->cbuf[1], len);
				got = true;
				if (t->link->comm_repost(t) != 0)
					return -1;
			}
			continue;
		}
		n = t->link->comm_idle(t);
		if (n < 0 && sent && got && t->link->comm_closed(t)) {
			a->err[0] = '\0';      /* as above: it had our message */
			return 0;
		}
		if (n < 0)
			return -1;
		/* A passive server waits here through the whole data phase. */
		if (n > 0)
			deadline = (double)rk_io_dpdk_now_ns() + a->o.oob_timeout_s * 1e9;
		if ((double)rk_io_dpdk_now_ns() > deadline)
			return ia_fail(a, "the peer sent nothing for %.0f s, on the exchange QP "
				       "or the data QP", a->o.oob_timeout_s);
	}
	return 0;
}

void
pt_size(struct pt *t, uint32_t size)
{
	uint32_t bytes = t->verb == PT_ATOMIC ? 8 : size;

	t->size = size;
	t->slots = t->lat ? 1 : t->a->o.tx_depth;
	if ((uint64_t)t->slots * bytes > PT_SLOT_BUDGET)
		t->slots = PT_SLOT_BUDGET / bytes;
	if (t->slots == 0)
		t->slots = 1;
	if (t->verb != PT_SEND)
		return;
	t->rslots = t->a->o.rx_depth;
	if ((uint64_t)t->rslots * size > 4 * PT_SLOT_BUDGET)
		t->rslots = 4 * PT_SLOT_BUDGET / size;
	if (t->rslots < 2)
		t->rslots = 2;
}

int
pt_alloc(struct pt *t, int access)
{
	struct ia *a = t->a;
	uint32_t bytes = t->verb == PT_ATOMIC ? 8 : t->size;
	size_t blk = bytes > PT_CYCLE ? bytes : PT_CYCLE;

	/* Local slots (READ/ATOMIC results need one each), then the region the peer uses. */
	pt_size(t, t->size);
	t->region_off = ((size_t)t->slots * bytes + 4095) & ~(size_t)4095;
	t->region_len = 2 * blk + PT_CACHE_LINE;
	t->buf_len = (t->region_off + t->region_len + 4095) & ~(size_t)4095;
	t->buf = aligned_alloc(4096, t->buf_len);
	if (t->buf == NULL)
		return ia_fail(a, "cannot allocate %zu bytes", t->buf_len);
	memset(t->buf, 0, t->buf_len);
	/*
	 * What a reader of our region must get back; zeros where the peer
	 * writes what we poll (write_lat's counters, send_bw's credit word).
	 */
	if (t->verb != PT_SEND && !(t->verb == PT_WRITE && t->lat))
		rk_app_fill(t->buf + t->region_off, t->region_len, 0x5eed);
	t->mr = rk_reg_mr(t->pd, t->buf, t->buf_len, access);
	t->rq_depth = t->rslots;
	if (t->verb == PT_SEND) {
		t->rbuf = calloc(t->rslots, t->size);
		if (t->rbuf == NULL)
			return ia_fail(a, "cannot allocate receive buffers");
		t->rmr = rk_reg_mr(t->pd, t->rbuf, (size_t)t->rslots * t->size,
				   RK_ACCESS_LOCAL_WRITE);
	}
	/* -a: the buffers hold the largest size; the smallest has the most slots. */
	if (t->all) {
		pt_size(t, PT_ALL_MIN);
		t->rq_depth = t->rslots;
	}
	t->cq = rk_create_cq(a->ctx, (int)(a->o.tx_depth + t->rq_depth + 16), NULL);
	if (t->mr == NULL || t->cq == NULL || (t->verb == PT_SEND && t->rmr == NULL))
		return ia_fail(a, "cannot create MR/CQ: %s", strerror(errno));
	return 0;
}

int
pt_post_recv(struct pt *t, uint32_t slot)
{
	struct rk_sge sge = { (uint64_t)(uintptr_t)(t->rbuf + (size_t)slot * t->size), t->size,
			      t->rmr->lkey };
	struct rk_recv_wr wr = { .wr_id = PT_RECV | slot, .sg_list = &sge, .num_sge = 1 };
	struct rk_recv_wr *bad;
	int rc = rk_post_recv(t->qp, &wr, &bad);

	if (rc != 0)
		return ia_fail(t->a, "post_recv: %s", strerror(-rc));
	t->rposted++;
	return 0;
}

int
pt_post_recvs(struct pt *t)
{
	for (uint32_t s = 0; s < t->rslots && t->rposted < t->iters; s++)
		if (pt_post_recv(t, s) != 0)
			return -1;
	return 0;
}

/* One exchange step through the transport (rk_pt_xchg_fn). */
static int
link_xchg(void *ctx, const void *mine, void *theirs, size_t len)
{
	struct pt *t = ctx;

	return t->link->exchange(t, mine, theirs, len);
}

int
pt_keys_bin(struct pt *t, struct rk_pt_dest *out)
{
	/* perftest sends zeros until its data QP exists: the last real one is kept. */
	return rk_pt_keys_bin_xchg(link_xchg, t, t->qp != NULL ? &t->local : NULL, out);
}

/* 0 posted, 1 the send queue is full, -1 with a message. */
static int
post(struct pt *t, uint64_t id, enum rk_wr_opcode op, const uint8_t *local, uint32_t len)
{
	struct rk_sge sge = { (uint64_t)(uintptr_t)local, len, t->mr->lkey };
	struct rk_send_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = op,
				 .send_flags = RK_SEND_SIGNALED };
	struct rk_send_wr *bad;
	int rc;

	if (op == RK_WR_ATOMIC_FETCH_AND_ADD || op == RK_WR_ATOMIC_CMP_AND_SWP) {
		/* perftest's values: add 1; compare with 0, swap in 0. */
		wr.wr.atomic.remote_addr = t->remote.vaddr;
		wr.wr.atomic.rkey = t->remote.rkey;
		wr.wr.atomic.compare_add = op == RK_WR_ATOMIC_FETCH_AND_ADD;
		wr.wr.atomic.swap = 0;
	} else if (op != RK_WR_SEND) {
		wr.wr.rdma.remote_addr = t->remote.vaddr;
		wr.wr.rdma.rkey = t->remote.rkey;
	}
	rc = rk_post_send(t->qp, &wr, &bad);
	if (rc == -ENOMEM)
		return 1;
	return rc == 0 ? 0 : ia_fail(t->a, "post_send: %s", strerror(-rc));
}

int
pt_post_op(struct pt *t, uint64_t it)
{
	static const enum rk_wr_opcode op[] = {
		[PT_WRITE] = RK_WR_RDMA_WRITE, [PT_READ] = RK_WR_RDMA_READ,
		[PT_SEND] = RK_WR_SEND, [PT_ATOMIC] = RK_WR_ATOMIC_FETCH_AND_ADD,
	};
	uint32_t bytes = t->verb == PT_ATOMIC ? 8 : t->size;
	enum rk_wr_opcode o = t->verb == PT_ATOMIC && t->a->o.atomic_cas ?
			      RK_WR_ATOMIC_CMP_AND_SWP : op[t->verb];
	int rc = post(t, it, o, t->buf + (size_t)(it % t->slots) * bytes, bytes);

	if (rc == 0)
		t->posted++;
	return rc;
}

int
pt_check_result(struct pt *t, uint64_t it, uint8_t *ref, uint64_t *first)
{
	uint32_t bytes = t->verb == PT_ATOMIC ? 8 : t->size;
	const uint8_t *local = t->buf + (size_t)(it % t->slots) * bytes;

	if (t->verb == PT_READ) {
		if (it == 0)
			memcpy(ref, local, bytes);
		else if (memcmp(ref, local, bytes) != 0)
			return ia_fail(t->a, "READ %" PRIu64 " returned other bytes than READ 0 "
				       "of the same unchanged remote buffer", it);
	} else if (t->verb == PT_ATOMIC) {
		uint64_t orig;

		/* Each FETCH_AND_ADD adds 1; each CMP_AND_SWAP of 0 finds no 0 (or swaps 0 for 0). */
		uint64_t want = t->a->o.atomic_cas ? *first : *first + it;

		memcpy(&orig, local, 8);
		if (it == 0)
			*first = orig;
		else if (orig != want)
			return ia_fail(t->a, "%s %" PRIu64 " returned %#" PRIx64 ", expected %#"
				       PRIx64, t->a->o.atomic_cas ? "CMP_AND_SWAP" : "FETCH_AND_ADD",
				       it, orig, want);
	}
	return 0;
}

int
pt_bw_client_begin(struct pt *t)
{
	if (t->verb == PT_READ && t->ref == NULL &&
	    (t->ref = malloc(t->all ? PT_ALL_MAX : t->size)) == NULL)
		return ia_fail(t->a, "out of memory");
	t->posted = t->done = 0;
	t->seconds = 0;
	for (uint32_t s = 0; s < t->slots && t->verb != PT_READ && t->verb != PT_ATOMIC; s++)
		rk_app_fill(t->buf + (size_t)s * t->size, t->size, s);
	rk_app_watchdog_restart(&t->a->wd);
	t->t0 = rk_io_dpdk_now_ns();
	pt_duration_begin(t);
	rk_app_pacer_init(&t->pace, t->a->o.rate_limit, t->a->o.rate_units,
			  t->verb == PT_ATOMIC ? 8 : t->size, t->t0);
	return 0;
}

void
pt_duration_begin(struct pt *t)
{
	double d = t->a->o.duration_s;

	if (d <= 0)
		return;
	/* Open-ended until the time is up; then iters is what was done. */
	t->iters = UINT32_MAX;
	t->t0 = t->last_rx_ns = rk_io_dpdk_now_ns();
	t->end_ns = t->t0 + (uint64_t)(d * 1e9);
}

int
pt_bw_client_step(struct pt *t)
{
	struct rk_wc wc[32];
	uint64_t now = rk_io_dpdk_now_ns(), allowed;
	int n, rc;

	if (t->end_ns != 0 && t->iters == UINT32_MAX && now >= t->end_ns)
		t->iters = (uint32_t)t->posted;         /* -D is up: drain */
	allowed = rk_app_pacer_allowed(&t->pace, t->posted, now);
	while (t->posted < t->iters && t->posted - t->done < t->window && t->posted < allowed) {
		if (t->credits && (uint32_t)(t->posted + 1 - rk_get_le32(t->buf + t->region_off)) >=
				  t->a->o.rx_depth)
			break;
		rc = pt_post_op(t, t->posted);
		if (rc < 0)
			return -1;
		if (rc > 0)
			break;
	}
	n = rk_poll_cq(t->cq, 32, wc);
	if (n < 0)
		return ia_fail(t->a, "poll_cq: %s", strerror(-n));
	for (int i = 0; i < n; i++) {
		if (wc[i].status != RK_WC_SUCCESS)
			return t->link->wc_fail(t, &wc[i]);
		if (pt_check_result(t, wc[i].wr_id, t->ref, &t->first) != 0)
			return -1;
		t->done++;
	}
	if (n == 0 && t->link->qp_ended(t) != 0)
		return -1;
	if (t->done == t->iters)
		t->seconds = (double)(rk_io_dpdk_now_ns() - t->t0) * 1e-9;
	return n;
}

/* Warm-up operations' wr_id: above any measured iteration. */
#define PT_WARM_UP_ID (1ull << 62)

/*
 * perftest's --perform_warm_up: -t operations of the current size posted
 * to the peer's buffer and completed before the measured ones; their
 * results are not checked and not counted.
 */
static int
pt_warm_up(struct pt *t)
{
	static const enum rk_wr_opcode op[] = {
		[PT_WRITE] = RK_WR_RDMA_WRITE, [PT_READ] = RK_WR_RDMA_READ,
		[PT_ATOMIC] = RK_WR_ATOMIC_FETCH_AND_ADD,
	};
	uint32_t bytes = t->verb == PT_ATOMIC ? 8 : t->size;
	enum rk_wr_opcode o = t->verb == PT_ATOMIC && t->a->o.atomic_cas ?
			      RK_WR_ATOMIC_CMP_AND_SWP : op[t->verb];
	uint64_t n = t->a->o.tx_depth, posted = 0, done = 0;

	rk_app_watchdog_restart(&t->a->wd);
	while (done < n) {
		struct rk_wc wc[32];
		int k, rc;

		while (posted < n && posted - done < t->window) {
			rc = post(t, PT_WARM_UP_ID + posted, o,
				  t->buf + (size_t)(posted % t->slots) * bytes, bytes);
			if (rc < 0)
				return -1;
			if (rc > 0)
				break;
			posted++;
		}
		k = rk_poll_cq(t->cq, 32, wc);
		if (k < 0)
			return ia_fail(t->a, "poll_cq: %s", strerror(-k));
		for (int i = 0; i < k; i++) {
			if (wc[i].status != RK_WC_SUCCESS)
				return t->link->wc_fail(t, &wc[i]);
			done++;
		}
		if (k == 0 && t->link->qp_ended(t) != 0)
			return -1;
		k += t->link->pump(t, k);
		if (ia_watchdog(t->a, k) != 0)
			return -1;
	}
	t->a->warm_up_ops += n;
	return 0;
}

int
pt_run_bw_client(struct pt *t)
{
	if (t->a->o.warm_up && t->verb != PT_SEND && pt_warm_up(t) != 0)
		return -1;
	if (pt_bw_client_begin(t) != 0)
		return -1;
	while (t->done < t->iters) {
		int n = pt_bw_client_step(t);

		if (n < 0)
			return -1;
		n += t->link->pump(t, n);
		if (ia_watchdog(t->a, n) != 0)
			return -1;
	}
	return 0;
}

int
pt_send_server_step(struct pt *t)
{
	struct ia *a = t->a;
	struct rk_wc wc[32];
	int n = rk_poll_cq(t->cq, 32, wc);

	if (n < 0)
		return ia_fail(a, "poll_cq: %s", strerror(-n));
	for (int i = 0; i < n; i++) {
		if (wc[i].status != RK_WC_SUCCESS)
			return t->link->wc_fail(t, &wc[i]);
		int taken = ia_take_send(a, &wc[i], PT_RECV, t->size, &t->recvd);

		if (taken <= 0) {
			if (taken < 0)
				return -1;
			continue;
		}
		if (t->end_ns != 0)
			t->last_rx_ns = rk_io_dpdk_now_ns();
		/* Exactly iters receives a size: -a's next size needs other lengths. */
		if (t->rposted < t->iters &&
		    pt_post_recv(t, (uint32_t)(wc[i].wr_id & 0xffffff)) != 0)
			return -1;
		/* The sender waits for these (no RNR). */
		if (t->credit_step != 0 &&
		    (t->recvd % t->credit_step == 0 || t->recvd == t->iters)) {
			/* From our (unused) first local slot: registered memory. */
			rk_put_le32(t->buf, (uint32_t)t->recvd);
			if (post(t, 1u << 30, RK_WR_RDMA_WRITE, t->buf, 4) < 0)
				return -1;
		}
	}
	if (n == 0 && t->link->qp_ended(t) != 0)
		return -1;
	if (t->end_ns != 0 && t->iters == UINT32_MAX) {
		uint64_t now = rk_io_dpdk_now_ns();

		/* The sender started after us and stops at its own -D. */
		if (now >= t->end_ns && now - t->last_rx_ns >= PT_DURATION_QUIET_NS)
			t->iters = (uint32_t)t->recvd;
	}
	return n;
}

int
pt_send_server(struct pt *t)
{
	struct ia *a = t->a;

	rk_app_watchdog_restart(&a->wd);
	pt_duration_begin(t);
	while (t->recvd < t->iters) {
		int n = pt_send_server_step(t);

		if (n < 0)
			return -1;
		n += t->link->pump(t, n);
		if (ia_watchdog(a, n) != 0)
			return ia_fail(a, "no SEND for %.0f s after %" PRIu64 " of %u%s",
				       a->o.timeout_s, t->recvd, t->iters, t->link->send_idle_note);
	}
	return 0;
}

int
pt_reports(struct pt *t, uint64_t *peer_iters)
{
	struct rk_pt_report mine = { .size = t->verb == PT_ATOMIC ? 8 : t->size }, theirs;

	if ((t->client || t->a->o.bidir) && t->seconds > 0) {
		mine.iters = t->done;
		mine.avg_mbs = (double)t->size * (double)t->done / t->seconds / 1048576.0;
		mine.peak_mbs = mine.avg_mbs;
		mine.mpps = (double)t->done / t->seconds / 1e6;
	}
	if (rk_pt_reports(link_xchg, t, &mine, &theirs) != 0)
		return -1;
	*peer_iters = theirs.iters;
	t->peer_mbs = theirs.avg_mbs;
	return 0;
}

/* The result line of one size. */
static void
size_line(const struct pt *t)
{
	if (t->client || t->lat) {
		double mbs = t->seconds > 0 ? (double)t->size * (double)t->iters / t->seconds /
					      1048576.0 : 0;

		printf(" #bytes %u  #iterations %u  %.2f s  %.2f MB/sec", t->size, t->iters,
		       t->seconds, mbs);
		if (t->link->usec_per_iter)
			printf("  %.1f usec/iter", t->iters > 0 ? t->seconds * 1e6 / t->iters : 0.0);
		printf("\n");
	} else {
		printf(" #bytes %u  received %" PRIu64 " messages\n", t->size, t->recvd);
	}
	fflush(stdout);
}

int
pt_run(struct pt *t)
{
	if (!t->client && t->verb != PT_SEND)
		return t->link->passive != NULL ? t->link->passive(t) : 0;
	for (uint32_t size = t->all ? PT_ALL_MIN : t->size;; size *= 2) {
		/* The set-up posted the first size's receives before its last barrier. */
		if (t->all && size > PT_ALL_MIN) {
			pt_size(t, size);
			t->recvd = t->rposted = 0;
			if (t->verb == PT_SEND) {
				if (!t->client && pt_post_recvs(t) != 0)
					return -1;
				if (t->link->barrier(t) != 0)
					return -1;
				/* perftest's sender starts each size with no credits. */
				if (t->client && t->credits)
					rk_put_le32(t->buf + t->region_off, 0);
			}
		}
		t->link->flow(t);
		if ((t->client ? pt_run_bw_client(t) : pt_send_server(t)) != 0)
			return -1;
		if (!t->all)
			return 0;
		size_line(t);
		if (t->verb == PT_SEND && t->link->barrier(t) != 0)
			return -1;
		if (size == PT_ALL_MAX)
			return 0;
	}
}

int
pt_result(struct pt *t, uint64_t sum0, uint64_t peer_iters)
{
	struct ia *a = t->a;

	/* Checks only the server can make, now that the client said how much it did. */
	if (!t->client && t->verb == PT_ATOMIC) {
		uint64_t delta = rk_pt_word_sum(t->buf + t->region_off, t->region_len) - sum0;
		/* A client that warmed up added -t more (both ends are given the options). */
		uint64_t want = a->o.atomic_cas ? 0 :
				peer_iters + (a->o.warm_up ? a->o.tx_depth : 0);

		if (delta != want)
			return ia_fail(a, "our buffer grew by %" PRIu64 " over %" PRIu64 " %s",
				       delta, peer_iters, a->o.atomic_cas ?
				       "CMP_AND_SWAPs of 0 with 0 (nonzero words: no swap)" :
				       "FETCH_AND_ADDs of 1");
	}
	if (!t->client && t->verb == PT_READ &&
	    !rk_app_check(t->buf + t->region_off, t->region_len, 0x5eed))
		return ia_fail(a, "READ-only buffer changed during the test");
	if (t->all && (t->client || t->verb == PT_SEND)) {
		/* pt_run() printed a line per size. */
	} else if (t->client || t->lat || t->verb == PT_SEND) {
		size_line(t);
	} else if (t->all) {
		printf(" #bytes %u..%u  the client reported %" PRIu64 " iterations of the last "
		       "size\n", PT_ALL_MIN, PT_ALL_MAX, peer_iters);
	} else {
		printf(" #bytes %u  the client reported %" PRIu64 " iterations\n", t->size,
		       peer_iters);
	}
	if (a->warm_up_ops != 0)
		printf(" warm-up: %" PRIu64 " operations before the measured ones\n",
		       a->warm_up_ops);
	printf("result: ok (%s)\n",
	       t->verb == PT_ATOMIC ? (a->o.atomic_cas ? "CMP_AND_SWAP results checked" :
				       "FETCH_AND_ADD results checked") :
	       t->verb == PT_READ ? "READ data checked" :
	       t->verb == PT_WRITE && t->lat ? "ping-pong counters checked" :
	       "completions and lengths checked");
	return 0;
}

void
pt_release(struct pt *t)
{
	rk_app_release(&(struct rk_app_verbs_objs){
		.qp = { t->cqp, t->qp }, .mr = { t->cmr, t->mr, t->rmr }, .cq = { t->ccq, t->cq },
		.pd = t->pd });
	free(t->buf);
	free(t->rbuf);
	free(t->ref);
}

int
pt_preamble(struct pt *t, const char mtu[2], char rmtu[3], char rver[PT_VERSION_LEN + 1],
	    uint32_t *peer_cycle)
{
	int rc = rk_pt_preamble(link_xchg, t, mtu, rmtu, rver, peer_cycle);

	if (rc == -EPROTO)
		return ia_fail(t->a, "the peer is not perftest 5.70 or later (version \"%.16s\")",
			       rver);
	return rc == 0 ? 0 : -1;
}
