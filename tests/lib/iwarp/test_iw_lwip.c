/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/tcp lwIP backend: two lwIP stacks (one per process: lwIP is one stack
 * per process) joined by a SOCK_SEQPACKET pair that carries their Ethernet
 * frames, as a DPDK port pair would. The Initiator (parent, 198.18.0.1)
 * Writes, Sends and Reads against the Responder (child, 198.18.0.2), which
 * checks what it received; then a timed run of Writes gives the rate of
 * Debian's lwIP build (printed, not asserted). No frame leaves the pair.
 * The child is a fresh exec of this program: Debian's lwIP runs a tcpip
 * thread, and a child merely forked after the parent's stack started can
 * inherit its core lock held by that thread and block on it for good.
 */
#include "rk_test.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rk_iw.h"
#include "rk_tcp.h"
#include "rk_tcp_lwip.h"

#define PORT 4791
#define N (1u << 20)
#define TPUT_MSG 65536u
#define TPUT_COUNT 512u
#define CHILD_ARG "--responder-child"

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void
pattern(uint8_t *p, size_t n, unsigned int k)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 7 + k + (i >> 9));
}

struct node {
	int fd;                 /* frame pipe */
	struct rk_lwip_if *nif;
	struct rk_iw_dev *dev;
	struct rk_iw_pd *pd;
	struct rk_iw_cq *cq;
	struct rk_iw_qp *qp;
	struct rk_iw_tcp_link *link;
	uint64_t frames_in, frames_out, frames_dropped;
};

/*
 * Impairments of the dup-ACK test (given to the child on its command line):
 * the Initiator loses its 200th new data segment (not a re-send: the
 * copied ACKs make early spurious ones) and then every copy of it sent
 * again, up to drop_times in all; the Responder sends each of its pure
 * ACKs ack_copies times (a receiver that answers every duplicate segment,
 * as Linux does, makes such bursts).
 */
static unsigned int drop_times, ack_copies = 1;
static unsigned int new_frames, dropped_copies;
static uint32_t drop_seq, high_seq;

static uint32_t
frame_seq(const uint8_t *f)
{
	return (uint32_t)f[38] << 24 | (uint32_t)f[39] << 16 | (uint32_t)f[40] << 8 | f[41];
}

/* Whether the impairments eat this frame; pure ACKs are copied here. */
static bool
impaired(struct node *n, const uint8_t *frame, uint32_t len)
{
	uint32_t ip_len = len >= 54 ? (uint32_t)frame[16] << 8 | frame[17] : 0;

	if (len < 54 || frame[23] != 6)
		return false;
	if (ip_len == 40) {
		for (unsigned int i = 1; i < ack_copies; i++)
			(void)send(n->fd, frame, len, MSG_DONTWAIT);
		return false;
	}
	if (drop_times == 0 || ip_len < 1000)
		return false;
	if (new_frames == 0 || (int32_t)(frame_seq(frame) - high_seq) > 0) {
		high_seq = frame_seq(frame);
		if (++new_frames == 200)
			drop_seq = high_seq;
	}
	if (new_frames >= 200 && frame_seq(frame) == drop_seq && dropped_copies < drop_times) {
		dropped_copies++;
		return true;
	}
	return false;
}

static void
frame_tx(void *ctx, const uint8_t *frame, uint32_t len)
{
	struct node *n = ctx;

	if (impaired(n, frame, len)) {
		n->frames_dropped++;
		return;
	}
	/* A full pipe drops the frame, as a full NIC ring would: TCP recovers. */
	if (send(n->fd, frame, len, MSG_DONTWAIT) == (ssize_t)len)
		n->frames_out++;
	else
		n->frames_dropped++;
}

/* One round of the poll loop: frames in, frames out, the iWARP link. */
static long
node_poll(struct node *n)
{
	uint8_t f[2048];
	long moved = 0;
	ssize_t r;

	while ((r = recv(n->fd, f, sizeof(f), MSG_DONTWAIT)) > 0) {
		rk_lwip_if_input(n->nif, f, (uint32_t)r);
		n->frames_in++;
		moved++;
	}
	moved += rk_lwip_if_poll(n->nif, 256);
	if (n->link != NULL && !n->link->closed) {
		long k = rk_iw_tcp_pump(n->link, now_ns());

		if (k > 0)
			moved += k;
	}
	moved += rk_lwip_if_poll(n->nif, 256);
	if (moved == 0) {
		struct pollfd pf = { n->fd, POLLIN, 0 };

		poll(&pf, 1, 1);
	}
	return moved;
}

static int
node_up(struct node *n, int fd, int idx)
{
	struct rk_lwip_if_attr a;
	int big = 4 << 20;

	memset(n, 0, sizeof(*n));
	n->fd = fd;
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	memset(&a, 0, sizeof(a));
	a.mac[0] = 0x02;
	a.mac[5] = (uint8_t)(idx + 1);
	a.ip = idx == 0 ? "198.18.0.1" : "198.18.0.2";
	a.netmask = "255.255.255.0";
	a.tx = frame_tx;
	a.tx_ctx = n;
	n->nif = rk_lwip_if_add(&a);
	n->dev = rk_iw_dev_create(NULL);
	n->pd = rk_iw_pd_alloc(n->dev);
	n->cq = rk_iw_cq_create(n->dev, 4096);
	n->link = NULL;
	return n->nif != NULL && n->cq != NULL ? 0 : -1;
}

/* What the Responder advertises in its MPA Reply private data. */
struct adv {
	uint32_t wstag, rstag;
	uint64_t wva, rva;
};

static struct rk_iw_qp *
node_qp(struct node *n, enum rk_iw_role role, const struct adv *adv)
{
	struct rk_iw_qp_init_attr qa;

	memset(&qa, 0, sizeof(qa));
	qa.send_cq = qa.recv_cq = n->cq;
	qa.cap.max_send_wr = 1024;
	qa.cap.max_recv_wr = 16;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qa.conn.role = role;
	qa.conn.enhanced = true;
	qa.conn.crc = true;
	qa.conn.markers_rx = role == RK_IW_RESPONDER;   /* markers one way */
	qa.conn.ird = qa.conn.ord = 8;
	if (adv != NULL) {
		qa.conn.pd = (const uint8_t *)adv;
		qa.conn.pd_len = sizeof(*adv);
	}
	return rk_iw_qp_create(n->pd, &qa, now_ns());
}

/* The child: Responder. Exit 0 when everything it received was right. */
static int
child(int fd)
{
	struct node n;
	struct rk_lwip_listener *l;
	struct rk_tcp *t = NULL;
	uint8_t *wbuf = calloc(1, N), *rbuf = malloc(N), *sbuf = calloc(1, N / 2);
	uint8_t *want = malloc(N);
	struct rk_iw_mr *wm, *rm, *sm;
	struct rk_sge sg;
	struct rk_recv_wr rw;
	struct rk_wc wc;
	struct adv adv;
	uint64_t until = now_ns() + 60000000000ull;
	bool got_send = false;

	if (node_up(&n, fd, 1) != 0 || wbuf == NULL || rbuf == NULL || sbuf == NULL ||
	    want == NULL)
		return 10;
	l = rk_tcp_lwip_listen(PORT);
	if (l == NULL)
		return 11;
	pattern(rbuf, N, 5);
	wm = rk_iw_mr_reg(n.pd, wbuf, N, RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE);
	rm = rk_iw_mr_reg(n.pd, rbuf, N, RK_ACCESS_REMOTE_READ);
	sm = rk_iw_mr_reg(n.pd, sbuf, N / 2, RK_ACCESS_LOCAL_WRITE);
	if (wm == NULL || rm == NULL || sm == NULL)
		return 13;
	adv.wstag = rk_iw_mr_stag(wm);
	adv.wva = (uintptr_t)wbuf;
	adv.rstag = rk_iw_mr_stag(rm);
	adv.rva = (uintptr_t)rbuf;
	while (t == NULL) {
		if (now_ns() > until)
			return 12;
		node_poll(&n);
		t = rk_tcp_lwip_accept(l);
	}
	n.qp = node_qp(&n, RK_IW_RESPONDER, &adv);
	if (n.qp == NULL)
		return 13;
	sg = (struct rk_sge){ (uintptr_t)sbuf, N / 2, rk_iw_mr_stag(sm) };
	rw = (struct rk_recv_wr){ 1, NULL, &sg, 1 };
	rk_iw_post_recv(n.qp, &rw, NULL);
	n.link = malloc(sizeof(*n.link));
	rk_iw_tcp_link_init(n.link, n.qp, t);
	/* Serve until the Initiator closes the stream. */
	while (!n.link->closed) {
		if (now_ns() > until)
			return 14;
		node_poll(&n);
		if (rk_iw_cq_poll(n.cq, 1, &wc) == 1) {
			if (wc.status != RK_WC_SUCCESS || wc.byte_len != N / 2)
				return 15;
			got_send = true;
		}
	}
	if (!got_send)
		return 16;
	fprintf(stderr, "# Responder: frames in %llu out %llu dropped %llu\n",
		(unsigned long long)n.frames_in, (unsigned long long)n.frames_out,
		(unsigned long long)n.frames_dropped);
	if (rk_iw_qp_error(n.qp)->reason != RK_IW_CLOSE_LLP)
		return 18;
	pattern(want, N, 1);
	/* First half Written, second half Sent. */
	if (memcmp(wbuf, want, N / 2) != 0 || memcmp(sbuf, want + N / 2, N / 2) != 0)
		return 17;
	/* Let lwIP answer the FIN before the process ends. */
	for (int i = 0; i < 50; i++)
		node_poll(&n);
	rk_tcp_lwip_listener_close(l);
	rk_lwip_if_remove(n.nif);
	return 0;
}

static bool
wait_cq(struct node *n, int want, struct rk_wc *wc, uint64_t until)
{
	int got = 0;

	while (got < want) {
		int r;

		if (now_ns() > until)
			return false;
		node_poll(n);
		r = rk_iw_cq_poll(n->cq, want - got, wc + got);
		if (r < 0)
			return false;
		got += r;
	}
	return true;
}

static void
test_lwip_pair(void **state)
{
	int sv[2], status = -1;
	pid_t pid;
	struct node n;
	struct rk_tcp *t;
	uint8_t *src = malloc(N), *dst = calloc(1, N), *want = malloc(N);
	struct rk_iw_mr *sm, *dm;
	struct rk_sge sg[3];
	struct rk_send_wr wr[3];
	struct rk_wc wc[64];
	uint64_t until = now_ns() + 60000000000ull, t0, t1;
	const uint8_t *pd;
	struct adv adv;
	struct rk_tcp_lwip_info info;
	static uint16_t from = 50000;   /* our local port: one per attempt, per test */

	(void)state;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) != 0)
		skip();
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char fd[16], drops[16], copies[16];

		close(sv[0]);
		snprintf(fd, sizeof(fd), "%d", sv[1]);
		snprintf(drops, sizeof(drops), "%u", drop_times);
		snprintf(copies, sizeof(copies), "%u", ack_copies);
		execl("/proc/self/exe", "test_iw_lwip", CHILD_ARG, fd, drops, copies, (char *)NULL);
		_exit(127);
	}
	close(sv[1]);
	assert_int_equal(node_up(&n, sv[0], 0), 0);
	t = rk_tcp_lwip_connect_from("198.18.0.2", PORT, ++from);
	assert_non_null(t);
	n.qp = node_qp(&n, RK_IW_INITIATOR, NULL);
	assert_non_null(n.qp);
	n.link = malloc(sizeof(*n.link));
	rk_iw_tcp_link_init(n.link, n.qp, t);
	/* The child listens a moment after the fork: lwIP answers an early
	 * SYN with RST, so reconnect until the MPA exchange completes. */
	while (rk_iw_qp_state(n.qp) != RK_IW_RTS) {
		assert_true(now_ns() < until);
		node_poll(&n);
		if (n.link->closed) {
			rk_iw_qp_destroy(n.qp);
			t = rk_tcp_lwip_connect_from("198.18.0.2", PORT, ++from);
			assert_non_null(t);
			n.qp = node_qp(&n, RK_IW_INITIATOR, NULL);
			rk_iw_tcp_link_init(n.link, n.qp, t);
		}
	}
	/* the connection's ends: our port as asked, the MPA exchange past
	 * both first stream bytes */
	assert_int_equal(rk_tcp_lwip_info(t, &info), 0);
	assert_true(info.established);
	assert_int_equal(info.local_port, from);
	assert_int_equal(info.remote_port, PORT);
	assert_int_equal(rk_tcp_lwip_info(NULL, &info), -EINVAL);
	assert_int_equal(rk_iw_qp_peer_pd(n.qp, &pd), sizeof(adv));
	memcpy(&adv, pd, sizeof(adv));
	assert_true(rk_iw_qp_negotiated(n.qp)->markers_tx);

	pattern(src, N, 1);
	sm = rk_iw_mr_reg(n.pd, src, N, 0);
	dm = rk_iw_mr_reg(n.pd, dst, N, RK_ACCESS_LOCAL_WRITE);
	memset(wr, 0, sizeof(wr));
	sg[0] = (struct rk_sge){ (uintptr_t)src, N / 2, rk_iw_mr_stag(sm) };
	wr[0] = (struct rk_send_wr){ .wr_id = 1, .next = &wr[1], .sg_list = &sg[0], .num_sge = 1,
				     .opcode = RK_WR_RDMA_WRITE, .send_flags = RK_SEND_SIGNALED };
	wr[0].wr.rdma.remote_addr = adv.wva;
	wr[0].wr.rdma.rkey = adv.wstag;
	sg[1] = (struct rk_sge){ (uintptr_t)src + N / 2, N / 2, rk_iw_mr_stag(sm) };
	wr[1] = (struct rk_send_wr){ .wr_id = 2, .next = &wr[2], .sg_list = &sg[1], .num_sge = 1,
				     .opcode = RK_WR_SEND, .send_flags = RK_SEND_SIGNALED };
	sg[2] = (struct rk_sge){ (uintptr_t)dst, N, rk_iw_mr_stag(dm) };
	wr[2] = (struct rk_send_wr){ .wr_id = 3, .sg_list = &sg[2], .num_sge = 1,
				     .opcode = RK_WR_RDMA_READ, .send_flags = RK_SEND_SIGNALED };
	wr[2].wr.rdma.remote_addr = adv.rva;
	wr[2].wr.rdma.rkey = adv.rstag;
	assert_int_equal(rk_iw_post_send(n.qp, wr, NULL), 0);
	assert_true(wait_cq(&n, 3, wc, until));
	for (int i = 0; i < 3; i++) {
		assert_int_equal(wc[i].status, RK_WC_SUCCESS);
		assert_int_equal(wc[i].wr_id, (uint64_t)i + 1);
	}
	pattern(want, N, 5);
	assert_memory_equal(dst, want, N);

	/* Rate: 64 KiB Writes of the same first 64 KiB, CRC on, markers one way. */
	t0 = now_ns();
	for (unsigned int i = 0; i < TPUT_COUNT; i++) {
		struct rk_sge s1 = { (uintptr_t)src, TPUT_MSG, rk_iw_mr_stag(sm) };
		struct rk_send_wr w1;

		memset(&w1, 0, sizeof(w1));
		w1.sg_list = &s1;
		w1.num_sge = 1;
		w1.opcode = RK_WR_RDMA_WRITE;
		w1.send_flags = i + 1 == TPUT_COUNT ? RK_SEND_SIGNALED : 0;
		w1.wr.rdma.remote_addr = adv.wva;
		w1.wr.rdma.rkey = adv.wstag;
		assert_int_equal(rk_iw_post_send(n.qp, &w1, NULL), 0);
	}
	/* A Read after the Writes completes only when they all arrived. */
	wr[2].next = NULL;
	sg[2].length = 4096;
	assert_int_equal(rk_iw_post_send(n.qp, &wr[2], NULL), 0);
	assert_true(wait_cq(&n, 2, wc, until));
	t1 = now_ns();
	assert_int_equal(wc[1].status, RK_WC_SUCCESS);
	print_message("# lwIP pair (MSS 1460, 64 KiB window), 64 KiB Writes, CRC on: "
		      "%.3f Gbit/s (%u MiB in %.3f s; frames out %llu in %llu)\n",
		      (double)TPUT_MSG * TPUT_COUNT * 8 / (double)(t1 - t0),
		      (TPUT_MSG * TPUT_COUNT) >> 20, (double)(t1 - t0) / 1e9,
		      (unsigned long long)n.frames_out, (unsigned long long)n.frames_in);

	/* Close: the child checks its data when the stream ends. */
	n.link->ops->close(n.link->stream);
	n.link->closed = true;
	rk_iw_llp_closed(n.qp);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (now_ns() > until) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			break;
		}
		node_poll(&n);
	}
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	rk_lwip_if_remove(n.nif);
	free(n.link);
	free(src);
	free(dst);
	free(want);
	rk_iw_dev_destroy(n.dev);
}

/*
 * A segment lost four times in a row while the peer answers with bursts
 * of duplicate ACKs: the sender's own quick re-sends of the hole must not
 * count as lwIP's retransmission timeouts, whose 12th ends the connection
 * (it did, within a second: the siw interop runs lost connections so).
 */
static void
test_lwip_dupack_storm(void **state)
{
	drop_times = 4;
	ack_copies = 8;
	test_lwip_pair(state);
	print_message("# dup-ACK storm: the hole was lost %u times\n", dropped_copies);
	assert_int_equal(dropped_copies, drop_times);
	drop_times = 0;
	ack_copies = 1;
}

/* The Responder's process: CHILD_ARG fd drop_times ack_copies. */
static int
child_main(char **argv)
{
	char *end;
	long fd = strtol(argv[0], &end, 10);

	if (*end != '\0' || fd < 0 || fd > INT_MAX)
		return 2;
	drop_times = (unsigned int)strtoul(argv[1], NULL, 10);
	ack_copies = (unsigned int)strtoul(argv[2], NULL, 10);
	return child((int)fd);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lwip_pair),
		cmocka_unit_test(test_lwip_dupack_storm),
	};

	signal(SIGPIPE, SIG_IGN);
	if (argc == 5 && strcmp(argv[1], CHILD_ARG) == 0) {
		int rc = child_main(argv + 2);

		/* As the forked child did: its buffers die with it, unchecked. */
		fflush(NULL);
		_exit(rc);
	}
	rk_test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
