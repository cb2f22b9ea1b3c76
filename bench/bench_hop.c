/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the stack adds to one hop of a ping-pong, with the port taken out:
 * two lib/verbs contexts in one thread over an in-memory backend shaped
 * like lib/io (frames built in a lent buffer, committed by one copy into
 * the peer's receive ring, parsed where they lie), against the same
 * backend carrying the same frames raw (copy out of the receive ring, copy
 * into a fresh buffer, commit: what memif_raw's ping and pong do).
 *
 *   SEND/RECV 64 B: rk-perf send_lat's calls (signaled SEND, poll the
 *   receive CQ, repost, drain the send CQ every 16th hop), a 5 us ACK
 *   coalescing delay on a virtual clock that moves 250 ns per hop.
 *   WRITE 64 KiB at MTU 4096 (bw): per 4 KiB frame, against raw frames of
 *   the same size.
 *
 * Timed by the thread's CPU time, ROUNDS alternating slices; per round the
 * ns per hop (or per frame) of each and their ratio; the medians at the
 * end. The floor is the raw hop plus what RoCEv2 asks at the least: the
 * ICRC checked on the way in and computed on the way out. Every completion
 * must succeed and every message's data must arrive.
 *
 *   bench_hop [ROUNDS [SLICE_MS [send|write]]]   (default 7 rounds of 200 ms, both)
 *   "hop: send64 stack_ns S raw_ns R floor_ns F ratio X"
 *   "hop: write4k stack_ns S raw_ns R floor_ns F ratio X"
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "rk_byteorder.h"
#include "rk_pkt.h"
#include "rk_verbs.h"

#define RING 512u                       /* frames per receive ring */
#define SLOT 9216u                      /* bytes per ring slot, as memif bsize */
#define LAT_SIZE 64u
#define BW_SIZE 65536u
#define BW_DEPTH 64u

struct memport {
	uint8_t *ring;                  /* RING slots of SLOT bytes: frames to us */
	uint32_t len[RING];
	uint32_t head, tail;            /* consumed, produced */
	struct memport *peer;
	uint8_t lent[SLOT];             /* the buffer lent for the next frame */
	uint64_t dropped;
};

static uint64_t vclock = 1000000000ull;

static int
mp_push(struct memport *to, const uint8_t *frame, uint32_t len)
{
	if (to->tail - to->head == RING || len > SLOT) {
		to->dropped++;
		return -105;            /* -ENOBUFS */
	}
	memcpy(to->ring + (size_t)(to->tail % RING) * SLOT, frame, len);
	to->len[to->tail % RING] = len;
	to->tail++;
	return 0;
}

static int
mp_tx(void *io, const uint8_t *frame, uint32_t len)
{
	return mp_push(((struct memport *)io)->peer, frame, len);
}

static int
mp_rx(void *io, uint8_t *buf, uint32_t cap)
{
	struct memport *m = io;
	uint32_t len;

	if (m->head == m->tail)
		return 0;
	len = m->len[m->head % RING];
	if (len > cap)
		len = cap;
	memcpy(buf, m->ring + (size_t)(m->head % RING) * SLOT, len);
	m->head++;
	return (int)len;
}

static uint64_t
mp_now(void *io)
{
	(void)io;
	return vclock;
}

static unsigned int
mp_tx_room(void *io)
{
	struct memport *p = ((struct memport *)io)->peer;

	return RING - (p->tail - p->head);
}

static uint8_t *
mp_tx_frame(void *io)
{
	return ((struct memport *)io)->lent;
}

static int
mp_tx_commit(void *io, uint8_t *frame, uint32_t len)
{
	return mp_push(((struct memport *)io)->peer, frame, len);
}

static int
mp_rx_view(void *io, const uint8_t **frame)
{
	struct memport *m = io;

	if (m->head == m->tail)
		return 0;
	*frame = m->ring + (size_t)(m->head % RING) * SLOT;
	return (int)m->len[m->head % RING];
}

static void
mp_rx_done(void *io)
{
	((struct memport *)io)->head++;
}

static const struct rk_io_ops mp_ops = {
	.name = "bench_hop",
	.tx = mp_tx,
	.rx = mp_rx,
	.now_ns = mp_now,
	.tx_room = mp_tx_room,
	.tx_frame = mp_tx_frame,
	.tx_commit = mp_tx_commit,
	.rx_view = mp_rx_view,
	.rx_done = mp_rx_done,
};

struct side {
	struct memport port;
	struct rk_context *ctx;
	struct rk_pd *pd;
	struct rk_cq *scq, *rcq;
	struct rk_qp *qp;
	struct rk_mr *mr;
	uint8_t *buf;                   /* send source, then receive / WRITE target */
	size_t buf_len;
};

static struct side s[2];

static void
die(const char *what)
{
	fprintf(stderr, "bench_hop: %s\n", what);
	exit(1);
}

static void
setup(uint64_t ack_delay_ns)
{
	for (int i = 0; i < 2; i++) {
		struct rk_device_attr da = { .ip_version = 4, .key_seed = 5 + (uint64_t)i,
					     .max_inflight_pkts = 1024,
					     .ack_delay_ns = ack_delay_ns };
		struct rk_qp_init_attr ia = {
			.qp_type = RK_QPT_RC, .sq_sig_all = 1,
			.cap = { .max_send_wr = 128, .max_recv_wr = 128, .max_send_sge = 1,
				 .max_recv_sge = 1 },
		};

		memset(&s[i].port, 0, sizeof(s[i].port));
		s[i].port.ring = malloc((size_t)RING * SLOT);
		s[i].port.peer = &s[i ^ 1].port;
		da.mac[5] = (uint8_t)(i + 1);
		da.ip[10] = da.ip[11] = 0xff;
		da.ip[12] = 198;
		da.ip[13] = 18;
		da.ip[15] = (uint8_t)(i + 1);
		s[i].ctx = rk_open_device(&mp_ops, &s[i].port, &da);
		if (s[i].port.ring == NULL || s[i].ctx == NULL)
			die("cannot open a device");
		s[i].pd = rk_alloc_pd(s[i].ctx);
		s[i].scq = rk_create_cq(s[i].ctx, 256, NULL);
		s[i].rcq = rk_create_cq(s[i].ctx, 256, NULL);
		ia.send_cq = s[i].scq;
		ia.recv_cq = s[i].rcq;
		s[i].buf_len = 2 * (size_t)BW_SIZE;
		s[i].buf = aligned_alloc(4096, s[i].buf_len);
		if (s[i].pd == NULL || s[i].scq == NULL || s[i].rcq == NULL || s[i].buf == NULL)
			die("cannot create resources");
		memset(s[i].buf, 0, s[i].buf_len);
		s[i].mr = rk_reg_mr(s[i].pd, s[i].buf, s[i].buf_len,
				    RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE);
		s[i].qp = rk_create_qp(s[i].pd, &ia);
		if (s[i].mr == NULL || s[i].qp == NULL)
			die("cannot create the QP");
	}
	for (int i = 0; i < 2; i++) {
		struct rk_qp_attr a = { .qp_state = RK_QPS_INIT,
					.qp_access_flags = RK_ACCESS_REMOTE_WRITE };

		if (rk_modify_qp(s[i].qp, &a, RK_QP_STATE | RK_QP_PKEY_INDEX | RK_QP_PORT |
				 RK_QP_ACCESS_FLAGS) != 0)
			die("INIT");
		memset(&a, 0, sizeof(a));
		a.qp_state = RK_QPS_RTR;
		a.path_mtu = RK_MTU_4096;
		a.dest_qp_num = s[i ^ 1].qp->qp_num;
		a.rq_psn = 0xfffff0;    /* wraps within the first round */
		a.max_dest_rd_atomic = 16;
		a.min_rnr_timer = 1;
		a.ah_attr.dmac[5] = (uint8_t)(2 - i);
		a.ah_attr.dip[10] = a.ah_attr.dip[11] = 0xff;
		a.ah_attr.dip[12] = 198;
		a.ah_attr.dip[13] = 18;
		a.ah_attr.dip[15] = (uint8_t)(2 - i);
		if (rk_modify_qp(s[i].qp, &a, RK_QP_STATE | RK_QP_AV | RK_QP_PATH_MTU |
				 RK_QP_DEST_QPN | RK_QP_RQ_PSN | RK_QP_MAX_DEST_RD_ATOMIC |
				 RK_QP_MIN_RNR_TIMER) != 0)
			die("RTR");
		memset(&a, 0, sizeof(a));
		a.qp_state = RK_QPS_RTS;
		a.sq_psn = 0xfffff0;
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 16;
		if (rk_modify_qp(s[i].qp, &a, RK_QP_STATE | RK_QP_SQ_PSN | RK_QP_TIMEOUT |
				 RK_QP_RETRY_CNT | RK_QP_RNR_RETRY | RK_QP_MAX_QP_RD_ATOMIC) != 0)
			die("RTS");
	}
}

static void
teardown(void)
{
	for (int i = 0; i < 2; i++) {
		rk_destroy_qp(s[i].qp);
		rk_dereg_mr(s[i].mr);
		rk_destroy_cq(s[i].scq);
		rk_destroy_cq(s[i].rcq);
		rk_dealloc_pd(s[i].pd);
		rk_close_device(s[i].ctx);
		free(s[i].buf);
		free(s[i].port.ring);
	}
}

static void
post_recv(struct side *x, uint64_t id)
{
	struct rk_sge sge = { (uint64_t)(uintptr_t)(x->buf + BW_SIZE), LAT_SIZE, x->mr->lkey };
	struct rk_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct rk_recv_wr *bad;

	if (rk_post_recv(x->qp, &wr, &bad) != 0)
		die("post_recv");
}

static void
post_send(struct side *x, uint64_t id)
{
	struct rk_sge sge = { (uint64_t)(uintptr_t)x->buf, LAT_SIZE, x->mr->lkey };
	struct rk_send_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1,
				 .opcode = RK_WR_SEND, .send_flags = RK_SEND_SIGNALED };
	struct rk_send_wr *bad;

	x->buf[0] = (uint8_t)id;
	if (rk_post_send(x->qp, &wr, &bad) != 0)
		die("post_send");
}

static void
check_wc(const struct rk_wc *wc)
{
	if (wc->status != RK_WC_SUCCESS) {
		fprintf(stderr, "bench_hop: completion status %s\n", rk_wc_status_str(wc->status));
		exit(1);
	}
}

/* One hop: @p to polls its receive CQ until the SEND is in, then replies. */
static void
stack_hop(struct side *to, uint64_t it)
{
	struct rk_wc wc[16];
	uint32_t spins = 0;
	int n;

	vclock += 250;
	while ((n = rk_poll_cq(to->rcq, 1, wc)) == 0)
		if (++spins == 1000000)
			die("a SEND never arrived");
	if (n != 1)
		die("poll_cq");
	check_wc(&wc[0]);
	if (to->buf[BW_SIZE] != (uint8_t)it || wc[0].byte_len != LAT_SIZE)
		die("a SEND arrived with the wrong data");
	post_recv(to, it);
	/* Each side every 16th of its own hops. */
	if (it % 32 < 2)
		while ((n = rk_poll_cq(to->scq, 16, wc)) > 0)
			for (int k = 0; k < n; k++)
				check_wc(&wc[k]);
	post_send(to, it + 1);
}

static __attribute__((noinline)) uint64_t
stack_lat_slice(double slice, double *used)
{
	static uint64_t it;
	uint64_t start = it;
	double t0 = bench_cpu_s(), t;

	do {
		for (int k = 0; k < 256; k++, it++)
			stack_hop(&s[(it & 1) ^ 1], it);
		t = bench_cpu_s();
	} while (t - t0 < slice);
	*used = t - t0;
	printf("send64: %" PRIu64 " hops\n", it - start);
	return it - start;
}

/*
 * The raw hop: copy the frame out of the ring, into a fresh buffer, commit.
 * On a link of its own: the stack's last SEND (and its ACKs) stay on the
 * stack's rings between slices, where the raw frame must not meet them.
 */
static uint64_t
raw_lat_slice(uint32_t flen, bool icrc, double slice, double *used)
{
	static uint8_t frame[SLOT], out[SLOT];
	static volatile uint32_t vlen;          /* a length known at run time */
	static struct memport raw[2];
	uint64_t hops = 0;
	double t0, t;

	for (int i = 0; i < 2 && raw[i].ring == NULL; i++) {
		raw[i].ring = malloc((size_t)RING * SLOT);
		raw[i].peer = &raw[i ^ 1];
		if (raw[i].ring == NULL)
			die("raw ring");
	}
	vlen = flen;
	memset(frame, 0x5a, sizeof(frame));
	frame[14] = 0x45;                       /* IPv4, for the ICRC */
	if (mp_push(&raw[0], frame, vlen) != 0)
		die("raw push");
	t0 = bench_cpu_s();
	do {
		for (int k = 0; k < 256; k++, hops++) {
			struct memport *m = &raw[hops & 1];
			const uint8_t *f;
			int len = mp_rx_view(m, &f);

			if (len <= 0)
				die("raw: frame lost");
			memcpy(out, f, (uint32_t)len);
			mp_rx_done(m);
			/* The floor: what RoCEv2 adds at the least, check and make the ICRC. */
			if (icrc && rk_rocev2_icrc(out + 14, (uint32_t)len - 14 - 4) == 1)
				die("raw: an ICRC of 1");
			memcpy(m->lent, out, (uint32_t)len);
			if (icrc)
				rk_put_le32(m->lent + len - 4,
					    rk_rocev2_icrc(m->lent + 14, (uint32_t)len - 14 - 4));
			mp_tx_commit(m, m->lent, (uint32_t)len);
		}
		t = bench_cpu_s();
	} while (t - t0 < slice);
	/* Take the frame off the link again. */
	raw[hops & 1].head++;
	*used = t - t0;
	return hops;
}

static __attribute__((noinline)) uint64_t
stack_bw_slice(double slice, double *used, uint64_t *frames)
{
	static uint64_t posted, done;
	uint64_t start = done, f0 = rk_context_stats(s[0].ctx)->tx_frames;
	double t0 = bench_cpu_s(), t;
	struct rk_wc wc[64];

	do {
		for (int round = 0; round < 16; round++) {
			int n;

			while (posted - done < BW_DEPTH) {
				struct rk_sge sge = { (uint64_t)(uintptr_t)s[0].buf, BW_SIZE,
						      s[0].mr->lkey };
				struct rk_send_wr wr = { .wr_id = posted, .sg_list = &sge,
							 .num_sge = 1, .opcode = RK_WR_RDMA_WRITE };
				struct rk_send_wr *bad;

				wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(s[1].buf + BW_SIZE);
				wr.wr.rdma.rkey = s[1].mr->rkey;
				if (rk_post_send(s[0].qp, &wr, &bad) != 0)
					break;
				posted++;
			}
			vclock += 1000;
			rk_progress(s[1].ctx);
			while ((n = rk_poll_cq(s[0].scq, 64, wc)) > 0)
				for (int k = 0; k < n; k++) {
					check_wc(&wc[k]);
					done++;
				}
		}
		t = bench_cpu_s();
	} while (t - t0 < slice);
	*used = t - t0;
	*frames = rk_context_stats(s[0].ctx)->tx_frames - f0;
	return done - start;
}

int
main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 7;
	double slice = (argc > 2 ? atof(argv[2]) : 200) / 1e3;
	const char *only = argc > 3 ? argv[3] : "";
	double st[64], rw[64], rt[64], fl[64];
	/* Ethernet + IPv4 + UDP + BTH + payload + ICRC */
	const uint32_t lat_frame = 14 + 20 + 8 + 12 + LAT_SIZE + 4;
	const uint32_t bw_frame = 14 + 20 + 8 + 12 + 4096 + 4;

	if (rounds < 1 || rounds > 64 || slice <= 0 ||
	    (*only && strcmp(only, "send") != 0 && strcmp(only, "write") != 0)) {
		fprintf(stderr, "usage: bench_hop [ROUNDS (1-64) [SLICE_MS [send|write]]]\n");
		return 2;
	}
	if (strcmp(only, "write") == 0)
		goto write;

	setup(5000);
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 64; k++)
			post_recv(&s[i], 0);
	post_send(&s[0], 0);
	for (int r = 0; r < rounds; r++) {
		double us, ur;
		double uf;
		uint64_t hs = stack_lat_slice(slice, &us);
		uint64_t hr = raw_lat_slice(lat_frame, false, slice, &ur);
		uint64_t hf = raw_lat_slice(lat_frame, true, slice, &uf);

		st[r] = us * 1e9 / (double)hs;
		rw[r] = ur * 1e9 / (double)hr;
		fl[r] = uf * 1e9 / (double)hf;
		rt[r] = st[r] / rw[r];
		printf("send64 round %d: stack %.1f ns/hop, raw %.1f, floor %.1f, ratio %.2f\n",
		       r + 1, st[r], rw[r], fl[r], rt[r]);
	}
	printf("hop: send64 stack_ns %.1f raw_ns %.1f floor_ns %.1f ratio %.2f\n",
	       bench_median(st, rounds), bench_median(rw, rounds), bench_median(fl, rounds), bench_median(rt, rounds));
	/* A frame arriving mid-poll waits for the rest of it: the empty poll's cost. */
	for (int k = 0; k < 64; k++) {          /* the last SEND, its ACKs */
		struct rk_wc wc;

		vclock += 10000;
		for (int i = 0; i < 2; i++) {
			while (rk_poll_cq(s[i].rcq, 1, &wc) > 0)
				;
			while (rk_poll_cq(s[i].scq, 1, &wc) > 0)
				;
		}
	}
	for (int r = 0; r < rounds; r++) {
		struct rk_wc wc;
		uint64_t n = 0;
		double t0 = bench_cpu_s(), t;

		do {
			for (int k = 0; k < 1024; k++, n++)
				if (rk_poll_cq(s[1].rcq, 1, &wc) != 0)
					die("idle poll: a completion from nowhere");
			t = bench_cpu_s();
		} while (t - t0 < slice / 4);
		st[r] = (t - t0) * 1e9 / (double)n;
	}
	printf("hop: idle_poll_ns %.1f\n", bench_median(st, rounds));
	teardown();
	if (strcmp(only, "send") == 0)
		return 0;
write:
	setup(0);
	for (int r = 0; r < rounds; r++) {
		double us, ur;
		uint64_t frames;
		double uf;
		uint64_t msgs = stack_bw_slice(slice, &us, &frames);
		uint64_t hr = raw_lat_slice(bw_frame, false, slice, &ur);
		uint64_t hf = raw_lat_slice(bw_frame, true, slice, &uf);

		if (frames < msgs * (BW_SIZE / 4096))
			die("WRITE: fewer frames than the messages need");
		st[r] = us * 1e9 / (double)frames;
		rw[r] = ur * 1e9 / (double)hr;
		fl[r] = uf * 1e9 / (double)hf;
		rt[r] = st[r] / rw[r];
		printf("write4k round %d: stack %.1f ns/frame (both ends), raw %.1f, floor %.1f, "
		       "ratio %.2f\n", r + 1, st[r], rw[r], fl[r], rt[r]);
	}
	printf("hop: write4k stack_ns %.1f raw_ns %.1f floor_ns %.1f ratio %.2f\n",
	       bench_median(st, rounds), bench_median(rw, rounds), bench_median(fl, rounds), bench_median(rt, rounds));
	if (memcmp(s[1].buf + BW_SIZE, s[0].buf, BW_SIZE) != 0)
		die("WRITE: the target does not hold the source's bytes");
	teardown();
	return 0;
}
