/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/tcp: two iWARP engines over the kernel-socket backend on loopback
 * (127.0.0.1): Write, Read and Send with data checked, a Terminate that
 * closes both TCP ends, and a throughput figure (printed, not asserted).
 */
#include "rk_test.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "rk_iw.h"
#include "rk_tcp.h"

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct side {
	struct rk_iw_dev *dev;
	struct rk_iw_pd *pd;
	struct rk_iw_cq *cq;
	struct rk_iw_qp *qp;
	struct rk_tcp *tcp;
	struct rk_iw_tcp_link *link;
};

struct conn {
	struct side s[2];
	int lfd;
};

static int
make_side(struct side *s, enum rk_iw_role role, bool markers)
{
	struct rk_iw_qp_init_attr qa;

	s->dev = rk_iw_dev_create(NULL);
	s->pd = rk_iw_pd_alloc(s->dev);
	s->cq = rk_iw_cq_create(s->dev, 1024);
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = qa.recv_cq = s->cq;
	qa.cap.max_send_wr = 512;
	qa.cap.max_recv_wr = 512;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qa.conn.role = role;
	qa.conn.enhanced = true;
	qa.conn.crc = true;
	qa.conn.markers_rx = markers;
	qa.conn.ird = qa.conn.ord = 16;
	s->qp = rk_iw_qp_create(s->pd, &qa, now_ns());
	s->link = malloc(sizeof(*s->link));
	return s->qp != NULL && s->link != NULL ? 0 : -1;
}

/* Connect two sockets on loopback; false (skip) when sockets are unavailable. */
static bool
conn_up(struct conn *c, bool markers)
{
	uint64_t until = now_ns() + 5000000000ull;
	int port;

	memset(c, 0, sizeof(*c));
	c->lfd = rk_tcp_sock_listen("127.0.0.1", 0);
	if (c->lfd < 0)
		return false;
	port = rk_tcp_sock_port(c->lfd);
	assert_true(port > 0);
	c->s[0].tcp = rk_tcp_sock_connect("127.0.0.1", (uint16_t)port);
	assert_non_null(c->s[0].tcp);
	while (c->s[1].tcp == NULL && now_ns() < until) {
		struct pollfd pf = { c->lfd, POLLIN, 0 };

		poll(&pf, 1, 10);
		c->s[1].tcp = rk_tcp_sock_accept(c->lfd);
	}
	assert_non_null(c->s[1].tcp);
	assert_int_equal(make_side(&c->s[0], RK_IW_INITIATOR, markers), 0);
	assert_int_equal(make_side(&c->s[1], RK_IW_RESPONDER, markers), 0);
	for (int i = 0; i < 2; i++)
		rk_iw_tcp_link_init(c->s[i].link, c->s[i].qp, c->s[i].tcp);
	return true;
}

/* Pump both links until @p done says so or 20 s pass. */
static void
run_until(struct conn *c, bool (*done)(struct conn *, void *), void *arg)
{
	uint64_t until = now_ns() + 20000000000ull;

	while (!done(c, arg)) {
		long moved = 0;

		assert_true(now_ns() < until);
		for (int i = 0; i < 2; i++) {
			long n = rk_iw_tcp_pump(c->s[i].link, now_ns());

			if (n > 0)
				moved += n;
		}
		if (moved == 0) {
			struct pollfd pf[2];
			int k = 0;

			for (int i = 0; i < 2; i++) {
				int fd = c->s[i].link->closed ? -1 : rk_tcp_sock_fd(c->s[i].tcp);

				pf[k++] = (struct pollfd){ fd, POLLIN, 0 };
			}
			poll(pf, (nfds_t)k, 1);
		}
	}
}

static void
conn_down(struct conn *c)
{
	for (int i = 0; i < 2; i++) {
		if (!c->s[i].link->closed)
			c->s[i].tcp->ops->close(c->s[i].tcp);
		free(c->s[i].link);
		rk_iw_dev_destroy(c->s[i].dev);
	}
	close(c->lfd);
}

struct want {
	int wc[2];
	int got[2];
	struct rk_wc w[2][64];
};

static bool
got_all(struct conn *c, void *arg)
{
	struct want *w = arg;

	for (int i = 0; i < 2; i++) {
		int n = rk_iw_cq_poll(c->s[i].cq, 64 - w->got[i], w->w[i] + w->got[i]);

		assert_true(n >= 0);
		w->got[i] += n;
	}
	return w->got[0] >= w->wc[0] && w->got[1] >= w->wc[1];
}

static void
ops_over_sockets(bool markers)
{
	enum { N = 1 << 20 };
	struct conn c;
	uint8_t *a = malloc(N), *b = malloc(N), *ar = calloc(1, N), *br = calloc(1, N);
	struct rk_iw_mr *am, *bm, *arm, *brm;
	struct rk_sge sg[3], rsg;
	struct rk_send_wr wr[3];
	struct rk_recv_wr rw;
	struct want w;

	if (!conn_up(&c, markers)) {
		free(a);
		free(b);
		free(ar);
		free(br);
		skip();
	}
	rk_test_fill(a, N);
	rk_test_fill(b, N);
	am = rk_iw_mr_reg(c.s[0].pd, a, N, 0);
	arm = rk_iw_mr_reg(c.s[0].pd, ar, N, RK_ACCESS_LOCAL_WRITE);
	bm = rk_iw_mr_reg(c.s[1].pd, b, N, RK_ACCESS_REMOTE_READ);
	brm = rk_iw_mr_reg(c.s[1].pd, br, N, RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE);
	rsg = (struct rk_sge){ (uintptr_t)br + N / 2, N / 2, rk_iw_mr_stag(brm) };
	rw = (struct rk_recv_wr){ 7, NULL, &rsg, 1 };
	assert_int_equal(rk_iw_post_recv(c.s[1].qp, &rw, NULL), 0);
	memset(wr, 0, sizeof(wr));
	/* Write the first half, Send the second, Read all of b. */
	sg[0] = (struct rk_sge){ (uintptr_t)a, N / 2, rk_iw_mr_stag(am) };
	wr[0] = (struct rk_send_wr){ .wr_id = 1, .next = &wr[1], .sg_list = &sg[0], .num_sge = 1,
				     .opcode = RK_WR_RDMA_WRITE, .send_flags = RK_SEND_SIGNALED };
	wr[0].wr.rdma.remote_addr = (uintptr_t)br;
	wr[0].wr.rdma.rkey = rk_iw_mr_stag(brm);
	sg[1] = (struct rk_sge){ (uintptr_t)a + N / 2, N / 2, rk_iw_mr_stag(am) };
	wr[1] = (struct rk_send_wr){ .wr_id = 2, .next = &wr[2], .sg_list = &sg[1], .num_sge = 1,
				     .opcode = RK_WR_SEND, .send_flags = RK_SEND_SIGNALED };
	sg[2] = (struct rk_sge){ (uintptr_t)ar, N, rk_iw_mr_stag(arm) };
	wr[2] = (struct rk_send_wr){ .wr_id = 3, .sg_list = &sg[2], .num_sge = 1,
				     .opcode = RK_WR_RDMA_READ, .send_flags = RK_SEND_SIGNALED };
	wr[2].wr.rdma.remote_addr = (uintptr_t)b;
	wr[2].wr.rdma.rkey = rk_iw_mr_stag(bm);
	assert_int_equal(rk_iw_post_send(c.s[0].qp, wr, NULL), 0);
	memset(&w, 0, sizeof(w));
	w.wc[0] = 3;
	w.wc[1] = 1;
	run_until(&c, got_all, &w);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(w.w[0][i].status, RK_WC_SUCCESS);
		assert_int_equal(w.w[0][i].wr_id, (uint64_t)i + 1);
	}
	assert_int_equal(w.w[1][0].status, RK_WC_SUCCESS);
	assert_int_equal(w.w[1][0].byte_len, N / 2);
	assert_memory_equal(br, a, N);
	assert_memory_equal(ar, b, N);
	assert_int_equal(rk_iw_qp_negotiated(c.s[0].qp)->markers_tx, markers);
	conn_down(&c);
	free(a);
	free(b);
	free(ar);
	free(br);
}

static void
test_sock_ops(void **state)
{
	(void)state;
	ops_over_sockets(false);
}

static void
test_sock_ops_markers(void **state)
{
	(void)state;
	ops_over_sockets(true);
}

static bool
both_closed(struct conn *c, void *arg)
{
	(void)arg;
	return c->s[0].link->closed && c->s[1].link->closed;
}

/* A Write to a bad STag: Terminate, then both TCP ends close. */
static void
test_sock_terminate(void **state)
{
	struct conn c;
	uint8_t buf[64] = { 0 };
	struct rk_iw_mr *m;
	struct rk_sge sg;
	struct rk_send_wr wr;

	(void)state;
	if (!conn_up(&c, false))
		skip();
	m = rk_iw_mr_reg(c.s[0].pd, buf, sizeof(buf), 0);
	sg = (struct rk_sge){ (uintptr_t)buf, sizeof(buf), rk_iw_mr_stag(m) };
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.opcode = RK_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = 0x1000;
	wr.wr.rdma.rkey = 0xdead00;
	assert_int_equal(rk_iw_post_send(c.s[0].qp, &wr, NULL), 0);
	run_until(&c, both_closed, NULL);
	assert_int_equal(rk_iw_qp_error(c.s[1].qp)->reason, RK_IW_CLOSE_TERM_SENT);
	assert_int_equal(rk_iw_qp_error(c.s[0].qp)->reason, RK_IW_CLOSE_TERM_RCVD);
	assert_int_equal(rk_iw_qp_error(c.s[0].qp)->layer, RK_TERM_LAYER_DDP);
	assert_int_equal(rk_iw_qp_error(c.s[0].qp)->etype, 1);
	assert_int_equal(rk_iw_qp_error(c.s[0].qp)->code, 0x00);
	conn_down(&c);
}

struct tput {
	int left;
	int done;
};

static bool
writes_done(struct conn *c, void *arg)
{
	struct tput *t = arg;
	struct rk_wc wc[64];
	int n = rk_iw_cq_poll(c->s[0].cq, 64, wc);

	assert_true(n >= 0);
	for (int i = 0; i < n; i++)
		assert_int_equal(wc[i].status, RK_WC_SUCCESS);
	t->done += n;
	return t->done >= t->left;
}

/* 256 MiB of 64 KiB Writes: the rate is printed for the record. */
static void
test_sock_throughput(void **state)
{
	enum { MSG = 65536, COUNT = 4096 };
	struct conn c;
	uint8_t *a = malloc(MSG), *b = malloc(MSG);
	struct rk_iw_mr *am, *bm;
	struct tput t = { COUNT, 0 };
	uint64_t t0, t1;

	(void)state;
	if (!conn_up(&c, false)) {
		free(a);
		free(b);
		skip();
	}
	rk_test_fill(a, MSG);
	am = rk_iw_mr_reg(c.s[0].pd, a, MSG, 0);
	bm = rk_iw_mr_reg(c.s[1].pd, b, MSG, RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE);
	t0 = now_ns();
	for (int i = 0; i < COUNT; i++) {
		struct rk_sge sg = { (uintptr_t)a, MSG, rk_iw_mr_stag(am) };
		struct rk_send_wr wr;

		memset(&wr, 0, sizeof(wr));
		wr.sg_list = &sg;
		wr.num_sge = 1;
		wr.opcode = RK_WR_RDMA_WRITE;
		wr.send_flags = RK_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = (uintptr_t)b;
		wr.wr.rdma.rkey = rk_iw_mr_stag(bm);
		while (rk_iw_post_send(c.s[0].qp, &wr, NULL) == -ENOMEM) {
			rk_iw_tcp_pump(c.s[0].link, now_ns());
			rk_iw_tcp_pump(c.s[1].link, now_ns());
			writes_done(&c, &t);
		}
	}
	run_until(&c, writes_done, &t);
	/* The last bytes must have landed too. */
	while (c.s[1].link->rx_bytes < c.s[0].link->tx_bytes) {
		rk_iw_tcp_pump(c.s[1].link, now_ns());
	}
	t1 = now_ns();
	assert_memory_equal(b, a, MSG);
	/* Every byte crossed the sockets: payload plus DDP/MPA overhead. */
	assert_true(c.s[1].link->rx_bytes > (uint64_t)MSG * COUNT);
	assert_true(rk_iw_dev_stats(c.s[1].dev)->placed_bytes == (uint64_t)MSG * COUNT);
	print_message("# kernel TCP loopback, 64 KiB Writes, CRC on: %.2f Gbit/s (%u MiB in %.3f s)\n",
		      (double)MSG * COUNT * 8 / (double)(t1 - t0), (unsigned int)(MSG * (uint64_t)COUNT >> 20),
		      (double)(t1 - t0) / 1e9);
	free(a);
	free(b);
	conn_down(&c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sock_ops),
		cmocka_unit_test(test_sock_ops_markers),
		cmocka_unit_test(test_sock_terminate),
		cmocka_unit_test(test_sock_throughput),
	};

	rk_test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
