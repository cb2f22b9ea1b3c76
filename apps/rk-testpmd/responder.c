/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The responder's control thread and its clients: perftest's TCP
 * exchange (server role, rk_app_perftest.h), off the forwarding lcore,
 * each client on a thread of its own (responder_clients.c). Per client:
 * the preamble, a QP for each of the client's (perftest -q N: one key
 * message per QP, up to RK_TP_RESP_QPS; responder_qp.c) with its region
 * and receive slots, the QPs connected to the client's, then every
 * message the client sends answered in kind until its "done": keys with
 * those of the QP they name (the barriers), the
 * report with ours (iterations 0, as a passive server's). The tool is not
 * named in the exchange: the QP's request counters tell it. Then the
 * checks the server can make (responder_verdict.c), one line per client,
 * and the objects freed. With "rdma_cm" (perftest -R) responder_cm.c
 * serves each client instead, with one QP, the same checks and line.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rdma.h"
#include "responder.h"
#include "rk_app.h"
#include "rk_app_oob.h"
#include "rk_app_perftest.h"
#include "testpmd.h"

#define LOCK() rte_ticketlock_lock(&rk_tp_rdma_lock)
#define UNLOCK() rte_ticketlock_unlock(&rk_tp_rdma_lock)

struct rk_tp_resp rk_tp_resp;

static pthread_t thread;
static int lsock = -1;

#define client rk_tp_resp_client
#define fail rk_tp_resp_fail
#define serve rk_tp_resp_serve

int
fail(struct client *c, const char *fmt, ...)
{
	va_list ap;

	if (c->err[0] != '\0')
		return -1;
	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
	return -1;
}

/* Between polls of the exchange socket: a short sleep; "responder stop" ends the wait. */
int
rk_tp_resp_serve(void *arg)
{
	(void)arg;
	usleep(1000);
	return rk_tp_resp.stop ? 1 : 0;
}

static int
recv_msg(struct client *c, void *buf, size_t len, double timeout_s)
{
	int rc = rk_oob_recv(c->fd, buf, len, timeout_s, serve, NULL);

	if (rc == -ETIMEDOUT)
		return fail(c, "the client sent nothing for %.0f s", timeout_s);
	if (rc == -ECONNRESET)
		return fail(c, "the client closed the exchange");
	if (rc == -EINTR)
		return fail(c, "stopped");
	return rc == 0 ? 0 : fail(c, "exchange: %s", strerror(-rc));
}

static int
send_msg(struct client *c, const void *buf, size_t len)
{
	int rc = rk_oob_send(c->fd, buf, len);

	return rc == 0 ? 0 : fail(c, "exchange: %s", strerror(-rc));
}

/* One step in the server's order: the client's message first (rk_pt_xchg_fn). */
static int
xchg(void *ctx, const void *mine, void *theirs, size_t len)
{
	struct client *c = ctx;
	uint8_t *t = theirs;

	if (c->first >= 0 && len > 0) {
		t[0] = (uint8_t)c->first;
		c->first = -1;
		t++;
		len--;
	}
	if (len > 0 && recv_msg(c, t, len, rk_tp_resp.idle_s) != 0)
		return -1;
	len += (size_t)(t - (uint8_t *)theirs);
	return send_msg(c, mine, len);
}

/*
 * The first byte of the client's next message, waiting as long as frames
 * reach the device (a passive server waits through the data phase).
 */
static int
next_byte(struct client *c, uint8_t *b)
{
	struct rk_tp_rdma_dev *d;
	uint64_t fed = UINT64_MAX, now;
	double idle = 0;

	for (;;) {
		int rc = rk_oob_recv(c->fd, b, 1, 1.0, serve, NULL);

		if (rc == -EINTR)
			return fail(c, "stopped");
		if (rc != -ETIMEDOUT)
			return rc == 0 ? 0 : recv_msg(c, b, 1, 0);
		LOCK();
		d = rk_tp_rdma_dev(rk_tp_resp.port, false, NULL);
		now = d != NULL ? d->rx_fed : 0;
		UNLOCK();
		idle = now != fed ? 0 : idle + 1.0;
		fed = now;
		if (idle >= rk_tp_resp.idle_s)
			return fail(c, "the client sent neither frames nor messages for %.0f s",
				    rk_tp_resp.idle_s);
	}
}

static bool
hexdigit(uint8_t b)
{
	return (b >= '0' && b <= '9') || (b >= 'a' && b <= 'f');
}

/* A key message from the client, its first byte in c->first. */
static int
recv_keys(struct client *c, char theirs[RK_PT_KEY_LEN], struct rk_pt_dest *d)
{
	theirs[0] = (char)c->first;
	c->first = -1;
	if (recv_msg(c, theirs + 1, RK_PT_KEY_LEN - 1, rk_tp_resp.idle_s) != 0)
		return -1;
	if (rk_pt_keys_decode(d, theirs) != 0)
		return fail(c, "the client's key message is malformed: \"%.60s\"", theirs);
	return 0;
}

/* Answer a key message (a barrier) with the keys of the QP it names: perftest -q's. */
static int
answer_keys(struct client *c, const struct rk_pt_dest *d)
{
	char mine[RK_PT_KEY_LEN];

	rk_pt_keys_encode(rk_tp_resp_qp_keys(c, d->qpn), mine);
	return send_msg(c, mine, sizeof(mine));
}

/* Answer the client's messages until its "done". */
static int
answer(struct client *c, struct rk_pt_report *peer, bool *reported)
{
	char theirs[RK_PT_KEY_LEN];
	struct rk_pt_report ours = { .size = rk_tp_resp.max_size };
	struct rk_pt_dest d;
	uint8_t b;

	for (;;) {
		/* a message the key phase ended at is read already */
		if (c->first >= 0)
			b = (uint8_t)c->first;
		else if (next_byte(c, &b) != 0)
			return -1;
		c->first = b;
		if (b == 'd') {
			char done[5];

			if (xchg(c, "done", done, 5) != 0)
				return -1;
			return memcmp(done, "done", 5) == 0 ? 0 :
			       fail(c, "the client's last message is not \"done\"");
		}
		if (b == 0) {
			/* A report's first value, the size: big endian, below 2^56. */
			if (rk_pt_reports(xchg, c, &ours, peer) != 0)
				return -1;
			*reported = true;
		} else if (hexdigit(b)) {
			if (recv_keys(c, theirs, &d) != 0 || answer_keys(c, &d) != 0)
				return -1;
		} else {
			return fail(c, "unexpected message from the client (first byte %#x)", b);
		}
	}
}

int
rk_tp_resp_begin(struct client *c, rk_pt_xchg_fn x)
{
	char mtu[2] = { (char)('0' + rk_tp_rdma_path_mtu(rk_tp_resp.port)), '\0' }, rmtu[3];
	char rver[RK_PT_VERSION_LEN + 1];
	struct rk_tp_rdma_dev *d;
	unsigned int rm;
	uint32_t cycle;
	int rc;

	c->mtu_enum = (uint32_t)(mtu[0] - '0');
	rc = rk_pt_preamble(x, c, mtu, rmtu, rver, &cycle);
	if (rc == -EPROTO)
		return fail(c, "not perftest 5.70 or later (version \"%.16s\")", rver);
	if (rc != 0)
		return -1;
	if (sscanf(rmtu, "%u", &rm) != 1 || rm < RK_MTU_256 || rm > RK_MTU_4096)
		return fail(c, "the client's MTU \"%.2s\" is not an IB MTU", rmtu);
	if (rm < c->mtu_enum)
		c->mtu_enum = rm;
	snprintf(c->version, sizeof(c->version), "%s", rver);
	LOCK();
	d = rk_tp_rdma_dev(rk_tp_resp.port, false, NULL);
	c->qps = 1;
	rc = d != NULL ? rk_tp_resp_qp_create(c, d, &c->s, &c->local) : fail(c, "no verbs device");
	UNLOCK();
	return rc;
}

/*
 * The keys of each QP the client has (perftest -q N: N messages, one per
 * QP; N is not in the exchange), a QP of ours for each, until a message
 * names the first QP again: its first barrier, answered once our QPs are
 * connected. @return 0, or -1 (c->err says why)
 */
static int
key_phase(struct client *c)
{
	char theirs[RK_PT_KEY_LEN];
	struct rk_pt_dest d;
	uint8_t b;

	if (next_byte(c, &b) != 0)
		return -1;
	c->first = b;
	if (recv_keys(c, theirs, &c->remote) != 0 || answer_keys(c, &c->remote) != 0)
		return -1;
	LOCK();
	rk_tp_resp_neigh_forget(c->remote.gid + 12);
	UNLOCK();
	for (;;) {
		if (next_byte(c, &b) != 0)
			return -1;
		c->first = b;
		if (!hexdigit(b))
			return rk_tp_resp_qp_connect(c);
		if (recv_keys(c, theirs, &d) != 0)
			return -1;
		if (d.qpn == c->remote.qpn)
			return rk_tp_resp_qp_connect(c) != 0 ? -1 : answer_keys(c, &d);
		if (rk_tp_resp_qp_more(c, &d) != 0 || answer_keys(c, &d) != 0)
			return -1;
	}
}

static void
serve_client(struct client *c)
{
	struct rk_pt_report peer = { 0 };
	bool reported = false;
	uint64_t sum0 = 0;

	if (rk_tp_resp_begin(c, xchg) != 0)
		goto out;
	sum0 = rk_pt_word_sum(c->s.buf, c->s.buf_len);
	if (key_phase(c) != 0)
		goto out;
	printf("responder: client %u (%s): perftest %s, QPN %#06x <- %#06x, path MTU %u, "
	       "%u QP(s)\n", c->n, c->peer, c->version, c->local.qpn, c->remote.qpn,
	       128u << c->mtu_enum, c->qps);
	fflush(stdout);
	(void)answer(c, &peer, &reported);
out:
	rk_tp_resp_verdict(c, &peer, reported, sum0);
}

static void
release(struct client *c)
{
	rk_tp_resp_qp_release(c);
	rk_tp_resp_cm_release(c);
}

/* The client's address; an IPv4-mapped one as a.b.c.d. */
static void
peer_str(const struct sockaddr_storage *sa, char *out, size_t len)
{
	const struct sockaddr_in6 *a6 = (const void *)sa;
	const struct sockaddr_in *a4 = (const void *)sa;

	if (sa->ss_family == AF_INET)
		inet_ntop(AF_INET, &a4->sin_addr, out, (socklen_t)len);
	else if (IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr))
		inet_ntop(AF_INET, a6->sin6_addr.s6_addr + 12, out, (socklen_t)len);
	else
		inet_ntop(AF_INET6, &a6->sin6_addr, out, (socklen_t)len);
}

/* A perftest -R client's thread: from its REQ on. */
static void
cm_client(struct client *c)
{
	(void)rk_tp_resp_cm_client(c);
	release(c);
	free(c);
}

/* perftest -R: a thread always waits for the next client's REQ, while fewer than the most run. */
static void
run_cm(void)
{
	while (!rk_tp_resp.stop) {
		struct client *c;
		int rc;

		if (rk_tp_resp_reap() >= rk_tp_resp_max_clients() || rk_tp_resp_waiting()) {
			serve(NULL);
			continue;
		}
		c = calloc(1, sizeof(*c));
		if (c == NULL) {
			serve(NULL);
			continue;
		}
		c->fd = -1;
		c->first = -1;
		snprintf(c->peer, sizeof(c->peer), "?");
		rc = rk_tp_resp_spawn(c, cm_client, true);
		if (rc != 0) {
			free(c);
			printf("responder: cannot start a client's thread: %s\n", strerror(-rc));
			fflush(stdout);
			for (int i = 0; i < 1000 && serve(NULL) == 0; i++)
				;
		}
	}
	rk_tp_resp_join_all();
}

/* A TCP exchange client's thread. */
static void
tcp_client(struct client *c)
{
	serve_client(c);
	release(c);
	close(c->fd);
	free(c);
}

static void *
run(void *arg)
{
	unsigned int n = 0;

	(void)arg;
	if (rk_tp_resp.rdma_cm) {
		run_cm();
		return NULL;
	}
	while (!rk_tp_resp.stop) {
		struct client *c;
		struct sockaddr_storage sa;
		socklen_t sl = sizeof(sa);
		int fd, rc = rk_oob_accept_next(lsock, 1.0, &fd, serve, NULL);

		if (rc == -ETIMEDOUT)
			continue;
		if (rc != 0) {
			if (rc != -EINTR)
				printf("responder: accept: %s\n", strerror(-rc));
			break;
		}
		c = calloc(1, sizeof(*c));
		if (c == NULL) {
			close(fd);
			continue;
		}
		c->fd = fd;
		c->first = -1;
		snprintf(c->peer, sizeof(c->peer), "?");
		if (getpeername(fd, (struct sockaddr *)&sa, &sl) == 0)
			peer_str(&sa, c->peer, sizeof(c->peer));
		c->n = n + 1;
		rc = rk_tp_resp_spawn(c, tcp_client, false);
		if (rc == 0) {
			n++;
			continue;
		}
		/* Beyond the most at once: the client's exchange ends at once, and says so. */
		if (rc == -EBUSY)
			printf("responder: a client from %s refused: %u client(s) being served, "
			       "the most at once\n", c->peer, rk_tp_resp_max_clients());
		else
			printf("responder: a client from %s refused: %s\n", c->peer, strerror(-rc));
		fflush(stdout);
		LOCK();
		rk_tp_resp.busy++;
		UNLOCK();
		close(fd);
		free(c);
	}
	rk_tp_resp_join_all();
	return NULL;
}

int
rk_tp_resp_start(FILE *out, uint16_t port, uint16_t tcp_port, uint32_t max_size, bool rdma_cm,
		 enum rk_qp_type type)
{
	struct rk_tp_rdma_dev *d;
	int rc;

	if (rk_tp_resp.running) {
		fprintf(out, "The responder runs already (port %u, %s port %u): \"responder stop\" "
			"first\n", rk_tp_resp.port, rk_tp_resp.rdma_cm ? "RDMA-CM" : "TCP",
			rk_tp_resp.tcp_port);
		return -EALREADY;
	}
	if (max_size == 0 || max_size > RK_TP_RESP_MAX_SIZE) {
		fprintf(out, "Bad size %u: 1..%u bytes\n", max_size, RK_TP_RESP_MAX_SIZE);
		return -EINVAL;
	}
	LOCK();
	d = rk_tp_rdma_dev(port, true, out);
	UNLOCK();
	if (d == NULL)
		return -ENODEV;
	rc = rdma_cm ? 0 : rk_oob_listen_open(tcp_port, &lsock);
	if (rc != 0) {
		fprintf(out, "Cannot listen on TCP port %u: %s\n", tcp_port, strerror(-rc));
		return rc;
	}
	rk_tp_resp.port = port;
	rk_tp_resp.tcp_port = tcp_port;
	rk_tp_resp.max_size = max_size;
	LOCK();
	rk_tp_resp.rdma_cm = rdma_cm;
	rk_tp_resp.qp_type = type;
	rk_tp_resp.cmq.head = rk_tp_resp.cmq.tail = 0;
	rk_tp_resp.next_n = 0;
	UNLOCK();
	if (rk_tp_resp.idle_s <= 0)
		rk_tp_resp.idle_s = 30;
	rk_tp_resp.stop = false;
	rk_tp_resp.running = true;
	rc = pthread_create(&thread, NULL, run, NULL);
	if (rc != 0) {
		rk_tp_resp.running = false;
		if (lsock >= 0)
			close(lsock);
		lsock = -1;
		fprintf(out, "Cannot start the responder's thread: %s\n", strerror(rc));
		return -rc;
	}
	fprintf(out, "Responder on port %u (%u.%u.%u.%u), perftest's %s on port %u, %s QPs, "
		"messages up to %u bytes%s\n", port, d->ip[0], d->ip[1], d->ip[2], d->ip[3],
		rdma_cm ? "RDMA-CM (-R)" : "TCP exchange", tcp_port, rk_tp_qp_type_name(type), max_size,
		rk_tp.engine == &rk_tp_fwd_responder && rk_tp.forwarding ? "" :
		": \"set fwd responder\" and \"start\" to answer");
	return 0;
}

void
rk_tp_resp_stop(FILE *out)
{
	if (!rk_tp_resp.running) {
		fprintf(out, "The responder is not running\n");
		return;
	}
	rk_tp_resp.stop = true;
	pthread_join(thread, NULL);
	if (lsock >= 0)
		close(lsock);
	lsock = -1;
	rk_tp_resp.running = false;
	fprintf(out, "Responder stopped after %" PRIu64 " client(s)\n", rk_tp_resp.clients);
	if (rk_tp_resp.rdma_cm) {
		LOCK();
		rk_tp_resp_cm_counters(out);
		UNLOCK();
	}
}
