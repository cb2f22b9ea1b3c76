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
#include <getopt.h>
#include <sched.h>
#include <inttypes.h>
#include <jansson.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>

#include "perf.h"
#include "rk_cli.h"
#include "rk_iw_xstats.h"

#define MIB (1024u * 1024u)
#define BUF_BUDGET (64u * MIB)          /* per QP and side, split over QPs */
#define KEY_SERVER ((uint64_t)1 << 39)
#define KEY_READ ((uint64_t)1 << 38)

struct qpres {
	struct rk_qp *qp;
	uint8_t *buf;                   /* send source / RDMA target / atomic target */
	struct rk_mr *mr;
	uint8_t *rbuf;                  /* receive buffers (SEND tests) */
	struct rk_mr *rmr;
	uint32_t psn;
	uint64_t posted, done, recvd;
	uint64_t verify_errors;
	/* iWARP SEND bw credits, counted over the whole run (see post_credit()). */
	uint64_t sent;                  /* client: SENDs posted */
	uint64_t taken, credited;       /* server: receives taken and reposted; last told */
};

struct perf {
	struct perf_opts o;
	struct rk_io_dpdk *io;
	struct rk_context *ctx;
	struct rk_pd *pd;
	struct rk_cq *scq, *rcq;
	struct qpres q[PERF_MAX_QPS];
	struct perf_hello local, remote;
	int fd;
	int lfd;                        /* server: the OOB listening socket until accept */
	uint32_t sizes[PERF_MAX_SIZES];
	uint32_t nsizes, max_size;
	size_t buf_len;                 /* per QP */
	size_t data_len;                /* of buf_len, the message slots */
	/*
	 * iWARP SEND bw: the server RDMA-Writes its count of receives taken
	 * (64-bit, network order) to credit_off in the client's buffer, the
	 * page after the slots; the client sends only into posted receives.
	 */
	bool credits;
	size_t credit_off;
	uint32_t rslots;                /* receive slots of max_size per QP */
	uint8_t peer_mac[6];
	json_t *jresults;
	char err[256];
	uint64_t last_event_ns;         /* watchdog: last progress seen; 0: restart */
	uint64_t idle_since_ns;         /* kernel sockets: first idle poll of this wait; 0: busy */
	uint64_t mark;                  /* watchdog: the QPs' rk_qp_progress() sum */
	uint64_t next_mark_ns;          /* watchdog: when to read it again */
	struct perf_iw *iw;             /* --transport iwarp */
	struct perf_refusal refusal;    /* client: the server's, after recv_hello() -ECONNREFUSED */
	/* This end's command line, for the server's note on what the client replaced. */
	uint32_t given;                 /* GIVEN_* bits */
	struct perf_opts own;
	uint32_t own_sizes[PERF_MAX_SIZES], own_nsizes;
	bool hello_sent;                /* server: the client runs; a failure is told (MSG_ABORT) */
};

/* Options of the client's that a server takes (adopt()), when given on its command line. */
enum {
	GIVEN_SIZE = 1 << 0,            /* -s, -a, --sizes */
	GIVEN_RUN = 1 << 1,             /* -n, -D */
	GIVEN_QPS = 1 << 2,
	GIVEN_MTU = 1 << 3,
	GIVEN_TX_DEPTH = 1 << 4,
	GIVEN_RX_DEPTH = 1 << 5,
	GIVEN_ATOMIC = 1 << 6,          /* -A */
	GIVEN_VERIFY = 1 << 7,
};

static volatile sig_atomic_t stop_requested;

static void
on_signal(int sig)
{
	/* First signal: stop cleanly; a second one: leave at once. */
	if (stop_requested)
		_exit(128 + sig);
	stop_requested = 1;
	/*
	 * A clean stop gets 3 s; then SIGALRM's default action ends the
	 * process, so a loop that misses the flag cannot outlive the signal.
	 */
	alarm(3);
}

static int
fail(struct perf *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
fail(struct perf *p, const char *fmt, ...)
{
	va_list ap;

	if (p->err[0] == '\0') {
		va_start(ap, fmt);
		vsnprintf(p->err, sizeof(p->err), fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* ------------------------------------------------------------ patterns */

static uint64_t
seed_of(uint64_t key)
{
	uint64_t s = (key + 1) * 0x9e3779b97f4a7c15ull ^ 0xd1b54a32d192ed03ull;

	return s != 0 ? s : 1;
}

static uint64_t
xs(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The bytes of message @key: a pure function, so the receiver can check. */
static void
fill(uint8_t *b, size_t len, uint64_t key)
{
	uint64_t s = seed_of(key), v;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		v = xs(&s);
		memcpy(b + i, &v, 8);
	}
	if (i < len) {
		v = xs(&s);
		memcpy(b + i, &v, len - i);
	}
}

static bool
check(const uint8_t *b, size_t len, uint64_t key)
{
	uint64_t s = seed_of(key), v;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		v = xs(&s);
		if (memcmp(b + i, &v, 8) != 0)
			return false;
	}
	if (i < len) {
		v = xs(&s);
		if (memcmp(b + i, &v, len - i) != 0)
			return false;
	}
	return true;
}

/* ------------------------------------------------------------- helpers */

static uint64_t
now_ns(void)
{
	return rk_io_dpdk_now_ns();
}

static uint32_t
msg_bytes(const struct perf *p, uint32_t size)
{
	return p->o.verb == VERB_ATOMIC ? 8 : size;
}

/* perftest's default --cycle_buffer: one page. */
#define CYCLE_BUFFER 4096

/*
 * Slots of @size in a QP buffer: as many as the depth, within the budget,
 * so every message in flight has its own data. WRITE and SEND without
 * --verify do as perftest: messages over half a page all use slot 0,
 * smaller ones cycle through one page, so both ends' data stays in cache
 * whatever the depth (the raw memif reference copies from one buffer too).
 */
static uint32_t
nslots(const struct perf *p, uint32_t size)
{
	uint64_t n = p->data_len / msg_bytes(p, size);

	if (p->o.mode == MODE_LAT)
		return 2;
	if (!p->o.verify && (p->o.verb == VERB_WRITE || p->o.verb == VERB_SEND) && n > 0)
		n = size > CYCLE_BUFFER / 2 ? 1 : CYCLE_BUFFER / size;
	if (n > p->o.tx_depth)
		n = p->o.tx_depth;
	return n == 0 ? 1 : (uint32_t)n;
}

/*
 * The idle policy after one poll of a loop; over iWARP, lwIP's frames move
 * here too (every loop of the data phase passes by).
 */
static void
perf_idle(struct perf *p, int work)
{
	if (p->iw != NULL)
		work += perf_iw_poll(p->iw);
	if (p->io != NULL) {
		rk_io_dpdk_idle(p->io, work);
		return;
	}
	/*
	 * Kernel sockets, no port: the port's adaptive policy. A sleep per
	 * idle poll from the start would add a timer wake-up (tens of us to
	 * a tick) to every round trip; spinning forever would hold a core
	 * while a peer is absent.
	 */
	rk_io_idle_adaptive(&p->idle_since_ns, work, 0, 0);
}

/* A wait ended with an event: restart the watchdog and the idle spin. */
static void
perf_event(struct perf *p)
{
	p->last_event_ns = 0;
	p->idle_since_ns = 0;
}

/* The out-of-band waits' callback: progress; non-zero ends the wait (-EINTR). */
static int
serve(void *arg)
{
	struct perf *p = arg;
	int n = p->ctx != NULL ? rk_progress(p->ctx) :
		p->io != NULL ? rk_io_dpdk_service(p->io) : 0;

	if (stop_requested)
		return 1;
	perf_idle(p, n);
	return 0;
}

static int
send_msg(struct perf *p, const struct perf_msg *m)
{
	uint8_t b[OOB_MSG_LEN];
	int rc;

	oob_encode_msg(m, b);
	rc = oob_send(p->fd, b, sizeof(b));
	if (rc != 0)
		return fail(p, "out-of-band send failed: %s", strerror(-rc));
	return 0;
}

static int
recv_msg(struct perf *p, struct perf_msg *m, double timeout_s, uint32_t want)
{
	uint8_t b[OOB_MSG_LEN];
	int rc = oob_recv(p->fd, b, sizeof(b), timeout_s, serve, p);

	if (rc == -ETIMEDOUT)
		return fail(p, "peer sent nothing for %.0f s on the out-of-band connection",
			    timeout_s);
	if (rc == -EINTR)
		return fail(p, "interrupted");
	if (rc == -ECONNRESET)
		return fail(p, "the %s closed the out-of-band connection: it stopped (see its "
			    "output)", p->o.server ? "client" : "server");
	if (rc != 0)
		return fail(p, "out-of-band connection lost: %s", strerror(-rc));
	oob_decode_msg(m, b);
	if (!p->o.server && m->type == MSG_ABORT)
		return fail(p, "the server stopped: %s", m->text[0] != '\0' ? m->text :
			    "no reason given");
	if (want != 0 && m->type != want)
		return fail(p, "unexpected out-of-band message %u (expected %u)", m->type, want);
	return 0;
}

/* Whether the client sent a message; a syscall, so asked at most every 200 us. */
static bool
oob_due(struct perf *p)
{
	static uint64_t next;
	uint64_t now = now_ns();

	if (now < next)
		return false;
	next = now + 200000;
	return oob_readable(p->fd);
}

/*
 * Client, in a phase: the server sent something (it sends nothing then
 * unless it stopped: MSG_ABORT says why) or closed the connection.
 */
static int
server_stopped(struct perf *p)
{
	struct perf_msg m;

	if (recv_msg(p, &m, p->o.oob_timeout_s, 0) != 0)
		return -1;
	return fail(p, "unexpected out-of-band message %u from the server during the run",
		    m.type);
}

/* Wait until the peer closes @p fd (EOF), an error, or @p ms pass. */
static void
wait_eof(int fd, int ms)
{
	uint64_t end = now_ns() + (uint64_t)ms * 1000000ull;
	char b[256];

	for (uint64_t t = now_ns(); t < end; t = now_ns()) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		int n = poll(&pf, 1, (int)((end - t) / 1000000ull) + 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || read(fd, b, sizeof(b)) <= 0)
			return;
	}
}

/*
 * Why the retries of a RETRY_EXC_ERR went unanswered: the frames this end
 * dropped on purpose, when it did; else the peer.
 */
static const char *
retry_cause(const struct perf *p, char *buf, size_t len)
{
	uint64_t n = p->io != NULL ? rk_io_dpdk_stats(p->io)->tx_dropped_injected : 0;

	if (n == 0)
		return "the peer stopped answering";
	/* Go-back-N resends the same frames in order, so a period can hit one PSN every time. */
	if (p->o.tx_drop_every != 0)
		snprintf(buf, len, "this end dropped %" PRIu64 " frames (--tx-drop-every %u): "
			 "the retries may have kept losing the same packet to the period "
			 "(--tx-drop-rate with --seed has none)", n, p->o.tx_drop_every);
	else
		snprintf(buf, len, "this end dropped %" PRIu64 " frames (--tx-drop-rate %g): "
			 "the retries may have been lost to them", n, p->o.tx_drop_rate);
	return buf;
}

static int
check_wc(struct perf *p, const struct rk_wc *wc)
{
	char why[224];

	if (wc->status == RK_WC_SUCCESS)
		return 0;
	return fail(p, "QP %#x: work completion error: %s (wr_id %#" PRIx64 ")%s%s", wc->qp_num,
		    rk_wc_status_str(wc->status), wc->wr_id,
		    wc->status == RK_WC_RETRY_EXC_ERR ? ": " : "",
		    wc->status == RK_WC_RETRY_EXC_ERR ? retry_cause(p, why, sizeof(why)) : "");
}

/* The peer's RoCEv2 address as text (IPv4 or IPv6, per its hello). */
static const char *
peer_addr(const struct perf *p, char *buf, size_t len)
{
	if (p->remote.ip_version == 6)
		inet_ntop(AF_INET6, p->remote.ip6, buf, (socklen_t)len);
	else
		inet_ntop(AF_INET, p->remote.ip, buf, (socklen_t)len);
	return buf;
}

/* Forward movement of all QPs (rk_qp_progress()): grows inside a long message too. */
static uint64_t
progress_mark(const struct perf *p)
{
	uint64_t m = 0;

	for (uint32_t i = 0; i < p->o.qps; i++)
		m += rk_qp_progress(p->q[i].qp);
	/*
	 * A server only answers: a READ responder whose responses were lost
	 * sees nothing move until the requester asks again, so any frame
	 * from the client shows it alive (a stopped one sends none).
	 */
	if (p->o.server && p->io != NULL) {
		uint64_t rx, tx, tx_err;

		perf_iw_stats(p->iw, &rx, &tx, &tx_err);
		m += rk_io_dpdk_stats(p->io)->rx_roce + rx;
	}
	return m;
}

/*
 * Data-phase watchdog: @p events (completions, receives) or any forward
 * movement of a QP (packets acknowledged, requests executed, stream bytes)
 * counts as progress; on a client frames alone do not, as its
 * retransmissions to a dead peer are frames too (a server counts those it
 * receives: progress_mark()). The QPs are read every 10 ms, not on every
 * spin.
 */
static int
watchdog(struct perf *p, int events)
{
	uint64_t now = now_ns();

	/* A server that stopped says so, or closes: no need to wait for the timeout. */
	if (!p->o.server && oob_due(p))
		return server_stopped(p);
	if (events > 0 || p->last_event_ns == 0) {
		p->last_event_ns = now;
		return 0;
	}
	if (stop_requested)
		return fail(p, "interrupted");
	if (now >= p->next_mark_ns) {
		uint64_t m = progress_mark(p);

		p->next_mark_ns = now + 10000000ull;
		if (m != p->mark) {
			p->mark = m;
			p->last_event_ns = now;
			return 0;
		}
	}
	if ((double)(now - p->last_event_ns) > p->o.timeout_s * 1e9) {
		char ip[INET6_ADDRSTRLEN];

		return fail(p, "no progress for %g s (nothing acknowledged or received): "
			    "peer %s unreachable or stopped", p->o.timeout_s,
			    peer_addr(p, ip, sizeof(ip)));
	}
	return 0;
}

/*
 * Why a post was refused: a QP in ERR says what put it there (iWARP: the
 * Terminate or the end of the stream), else the errno's text.
 */
static const char *
post_error(struct rk_qp *qp, int rc, char *buf, size_t len)
{
	struct rk_qp_attr a;
	const struct rk_iw_error *e;

	if (rc != -EINVAL || rk_query_qp(qp, &a, RK_QP_STATE, NULL) != 0 ||
	    a.qp_state != RK_QPS_ERR)
		return strerror(-rc);
	e = rk_qp_iw(qp) != NULL ? rk_iw_qp_error(rk_qp_iw(qp)) : NULL;
	if (e != NULL && (e->reason == RK_IW_CLOSE_TERM_SENT || e->reason == RK_IW_CLOSE_TERM_RCVD))
		snprintf(buf, len, "QP %#x is in the error state: %s a Terminate (layer %u, "
			 "type %u, code %u)", qp->qp_num, e->reason == RK_IW_CLOSE_TERM_SENT ?
			 "this end sent" : "the peer sent", e->layer, e->etype, e->code);
	else if (e != NULL && e->reason == RK_IW_CLOSE_LLP)
		snprintf(buf, len, "QP %#x is in the error state: its TCP connection ended",
			 qp->qp_num);
	else
		snprintf(buf, len, "QP %#x is in the error state", qp->qp_num);
	return buf;
}

/* ------------------------------------------------------------- resources */

static int
post_recv_slot(struct perf *p, uint32_t qi, uint32_t slot)
{
	struct qpres *q = &p->q[qi];
	struct rk_sge sge = {
		(uint64_t)(uintptr_t)(q->rbuf + (size_t)slot * p->max_size), p->max_size,
		q->rmr->lkey,
	};
	struct rk_recv_wr wr = { .wr_id = ((uint64_t)qi << 40) | slot, .sg_list = &sge,
				 .num_sge = 1 };
	struct rk_recv_wr *bad;
	int rc = rk_post_recv(q->qp, &wr, &bad);
	char why[128];

	if (rc != 0)
		return fail(p, "post_recv: %s", post_error(q->qp, rc, why, sizeof(why)));
	return 0;
}

static int
create_resources(struct perf *p)
{
	const int access = RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE |
			   RK_ACCESS_REMOTE_READ | RK_ACCESS_REMOTE_ATOMIC;
	struct perf_opts *o = &p->o;
	size_t budget = BUF_BUDGET / o->qps;

	p->max_size = 0;
	for (uint32_t i = 0; i < p->nsizes; i++)
		if (p->sizes[i] > p->max_size)
			p->max_size = p->sizes[i];
	if (o->verb == VERB_ATOMIC)
		p->max_size = 8;
	/* Both sides compute the same layout from the same parameters. */
	p->buf_len = (size_t)p->max_size * (o->mode == MODE_LAT ? 2 : o->tx_depth);
	if (p->buf_len > budget)
		p->buf_len = budget;
	if (p->buf_len < (size_t)p->max_size * (o->mode == MODE_LAT ? 2 : 1))
		p->buf_len = (size_t)p->max_size * (o->mode == MODE_LAT ? 2 : 1);
	p->buf_len = (p->buf_len + 4095) & ~(size_t)4095;
	p->data_len = p->buf_len;
	p->credit_off = p->buf_len;
	if (p->credits)
		p->buf_len += 4096;
	p->rslots = (uint32_t)(budget / p->max_size);
	if (p->rslots > o->rx_depth)
		p->rslots = o->rx_depth;
	if (p->rslots == 0)
		p->rslots = 1;

	p->pd = rk_alloc_pd(p->ctx);
	p->scq = rk_create_cq(p->ctx, (int)(o->qps * o->tx_depth + 64), NULL);
	p->rcq = rk_create_cq(p->ctx, (int)(o->qps * (p->rslots + 1) + 64), NULL);
	if (p->pd == NULL || p->scq == NULL || p->rcq == NULL)
		return fail(p, "cannot create PD/CQs: %s", strerror(errno));
	for (uint32_t i = 0; i < o->qps; i++) {
		struct qpres *q = &p->q[i];
		struct rk_qp_init_attr ia = {
			.send_cq = p->scq, .recv_cq = p->rcq, .qp_type = RK_QPT_RC,
			.sq_sig_all = 1,
			.cap = { .max_send_wr = o->tx_depth, .max_recv_wr = p->rslots + 1,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};

		q->buf = aligned_alloc(4096, p->buf_len);
		if (q->buf == NULL)
			return fail(p, "cannot allocate %zu bytes", p->buf_len);
		memset(q->buf, 0, p->buf_len);
		q->mr = rk_reg_mr(p->pd, q->buf, p->buf_len, access);
		if (o->verb == VERB_SEND) {
			size_t rl = (size_t)p->rslots * p->max_size;

			q->rbuf = aligned_alloc(4096, (rl + 4095) & ~(size_t)4095);
			if (q->rbuf == NULL)
				return fail(p, "cannot allocate %zu bytes", rl);
			memset(q->rbuf, 0, rl);
			q->rmr = rk_reg_mr(p->pd, q->rbuf, rl, access);
			if (q->rmr == NULL)
				return fail(p, "reg_mr: %s", strerror(errno));
		}
		q->qp = rk_create_qp(p->pd, &ia);
		if (q->mr == NULL || q->qp == NULL)
			return fail(p, "cannot create QP %u: %s", i, strerror(errno));
		q->psn = (uint32_t)(((uint64_t)rand() << 8) ^ (uint64_t)rand()) & 0xffffff;
		p->local.qp[i] = (struct perf_qp_info){
			.qpn = q->qp->qp_num, .psn = q->psn, .rkey = q->mr->rkey,
			.va = (uint64_t)(uintptr_t)q->buf, .len = p->buf_len,
		};
	}
	return 0;
}

/* Receives of the SEND tests, once the QPs can take them. */
static int
post_all_recvs(struct perf *p)
{
	if (p->o.verb == VERB_SEND)
		for (uint32_t i = 0; i < p->o.qps; i++)
			for (uint32_t s = 0; s < p->rslots; s++)
				if (post_recv_slot(p, i, s) != 0)
					return -1;
	return 0;
}

/* iWARP: INIT with the largest IRD/ORD; the streams come in iw_establish(). */
static int
iw_init_qps(struct perf *p)
{
	for (uint32_t i = 0; i < p->o.qps; i++) {
		struct rk_qp_attr a = { .qp_state = RK_QPS_INIT, .max_rd_atomic = RK_IW_MAX_IRD_ORD,
					.max_dest_rd_atomic = RK_IW_MAX_IRD_ORD };
		int rc = rk_modify_qp(p->q[i].qp, &a, RK_QP_STATE | RK_QP_MAX_QP_RD_ATOMIC |
				      RK_QP_MAX_DEST_RD_ATOMIC);

		if (rc != 0)
			return fail(p, "modify QP %#x: %s", p->q[i].qp->qp_num, strerror(-rc));
	}
	return 0;
}

/* The IPv4 address of host @p name as a dotted quad; 0 or -1. */
static int
ipv4_of(const char *name, char *buf, size_t len)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res;

	if (getaddrinfo(name, NULL, &hints, &res) != 0)
		return -1;
	inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)res->ai_addr)->sin_addr,
		  buf, (socklen_t)len);
	freeaddrinfo(res);
	return 0;
}

/*
 * iWARP: one TCP connection per QP, on the exchange's port + 1. The client
 * connects QP i only once QP i-1 is in RTS, so the server, which attaches
 * connections to its QPs in the order it accepts them, pairs them alike.
 */
static int
iw_establish(struct perf *p)
{
	uint16_t port = (uint16_t)(p->o.tcp_port + 1);
	uint64_t until = now_ns() + (uint64_t)(p->o.oob_timeout_s * 1e9);
	char host[INET_ADDRSTRLEN];
	int rc;

	if (!p->o.tcp_kernel)
		inet_ntop(AF_INET, p->remote.ip, host, sizeof(host));
	else if (p->o.server)
		host[0] = '\0';
	/* Kernel sockets (lib/tcp) take a dotted quad: SERVER may be a name. */
	else if (ipv4_of(p->o.server_host, host, sizeof(host)) != 0)
		return fail(p, "--tcp kernel: the server %s has no IPv4 address for the data "
			    "connections (they run over IPv4)", p->o.server_host);
	for (uint32_t i = 0; i < p->o.qps; i++) {
		struct rk_qp *qp = p->q[i].qp;

		if (p->o.server) {
			while ((rc = perf_iw_accept(p->iw, &p->o, qp)) == 0) {
				if (stop_requested)
					return fail(p, "interrupted");
				if (now_ns() > until)
					return fail(p, "the client's TCP connection %u of %u did not "
						    "come within %g s", i + 1, p->o.qps,
						    p->o.oob_timeout_s);
				perf_idle(p, rk_progress(p->ctx));
			}
			if (rc < 0)
				return fail(p, "accept of TCP connection %u: %s", i + 1, strerror(-rc));
			if (p->o.verb == VERB_SEND)
				for (uint32_t s = 0; s < p->rslots; s++)
					if (post_recv_slot(p, i, s) != 0)
						return -1;
			continue;
		}
		rc = perf_iw_connect(p->iw, &p->o, qp, host, port);
		if (rc != 0)
			return fail(p, "cannot connect TCP to %s:%u: %s", host, port, strerror(-rc));
		while (qp->state != RK_QPS_RTS) {
			struct rk_iw_qp *e = rk_qp_iw(qp);

			if (qp->state == RK_QPS_ERR || (e != NULL && rk_iw_qp_state(e) >= RK_IW_TERMINATE))
				return fail(p, "QP %u: the iWARP connection to %s:%u failed "
					    "(MPA %s)", i, host, port,
					    e != NULL ? rk_iw_state_name[rk_iw_qp_state(e)] : "?");
			if (stop_requested)
				return fail(p, "interrupted");
			if (oob_due(p))
				return server_stopped(p);
			if (now_ns() > until)
				return fail(p, "QP %u: no TCP/MPA connection to %s:%u within %g s",
					    i, host, port, p->o.oob_timeout_s);
			perf_idle(p, rk_progress(p->ctx));
		}
	}
	if (!p->o.server && p->o.verb == VERB_SEND)
		return post_all_recvs(p);
	return 0;
}

static int
connect_qps(struct perf *p)
{
	for (uint32_t i = 0; i < p->o.qps; i++) {
		struct qpres *q = &p->q[i];
		struct rk_qp_attr a = { 0 };
		int rc;

		a.qp_state = RK_QPS_INIT;
		a.qp_access_flags = RK_ACCESS_REMOTE_WRITE | RK_ACCESS_REMOTE_READ |
				    RK_ACCESS_REMOTE_ATOMIC;
		rc = rk_modify_qp(q->qp, &a, RK_QP_STATE | RK_QP_PKEY_INDEX | RK_QP_PORT |
				  RK_QP_ACCESS_FLAGS);
		memset(&a, 0, sizeof(a));
		a.qp_state = RK_QPS_RTR;
		a.path_mtu = p->o.mtu == 256 ? RK_MTU_256 : p->o.mtu == 512 ? RK_MTU_512 :
			     p->o.mtu == 1024 ? RK_MTU_1024 : p->o.mtu == 2048 ? RK_MTU_2048 :
			     RK_MTU_4096;
		a.dest_qp_num = p->remote.qp[i].qpn;
		a.rq_psn = p->remote.qp[i].psn;
		a.max_dest_rd_atomic = 16;
		a.min_rnr_timer = 1;
		memcpy(a.ah_attr.dmac, p->peer_mac, 6);
		if (p->o.have_ip6) {
			memcpy(a.ah_attr.dip, p->remote.ip6, 16);
		} else {
			a.ah_attr.dip[10] = a.ah_attr.dip[11] = 0xff;
			memcpy(a.ah_attr.dip + 12, p->remote.ip, 4);
		}
		if (rc == 0)
			rc = rk_modify_qp(q->qp, &a, RK_QP_STATE | RK_QP_AV | RK_QP_PATH_MTU |
					  RK_QP_DEST_QPN | RK_QP_RQ_PSN |
					  RK_QP_MAX_DEST_RD_ATOMIC | RK_QP_MIN_RNR_TIMER);
		memset(&a, 0, sizeof(a));
		a.qp_state = RK_QPS_RTS;
		a.sq_psn = q->psn;
		a.timeout = 14;         /* 4.096 us * 2^14 = 67 ms, perftest's default */
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 16;
		if (rc == 0)
			rc = rk_modify_qp(q->qp, &a, RK_QP_STATE | RK_QP_SQ_PSN | RK_QP_TIMEOUT |
					  RK_QP_RETRY_CNT | RK_QP_RNR_RETRY |
					  RK_QP_MAX_QP_RD_ATOMIC);
		if (rc != 0)
			return fail(p, "modify QP %#x: %s", q->qp->qp_num, strerror(-rc));
	}
	return post_all_recvs(p);
}

static void
destroy_resources(struct perf *p)
{
	for (uint32_t i = 0; i < PERF_MAX_QPS; i++) {
		struct qpres *q = &p->q[i];

		if (q->qp != NULL)
			rk_destroy_qp(q->qp);
		if (q->mr != NULL)
			rk_dereg_mr(q->mr);
		if (q->rmr != NULL)
			rk_dereg_mr(q->rmr);
		free(q->buf);
		free(q->rbuf);
	}
	if (p->scq != NULL)
		rk_destroy_cq(p->scq);
	if (p->rcq != NULL)
		rk_destroy_cq(p->rcq);
	if (p->pd != NULL)
		rk_dealloc_pd(p->pd);
	if (p->ctx != NULL)
		rk_close_device(p->ctx);
}

/* ----------------------------------------------------------- data phase */

static int
post_one(struct perf *p, uint32_t qi, uint32_t size, uint32_t slots)
{
	struct qpres *q = &p->q[qi];
	uint64_t it = q->posted;
	uint32_t bytes = msg_bytes(p, size), slot = (uint32_t)(it % slots);
	uint8_t *local = q->buf + (size_t)slot * bytes;
	struct rk_sge sge = { (uint64_t)(uintptr_t)local, bytes, q->mr->lkey };
	struct rk_send_wr wr = { .wr_id = ((uint64_t)qi << 40) | it, .sg_list = &sge,
				 .num_sge = 1, .send_flags = RK_SEND_SIGNALED };
	struct rk_send_wr *bad;
	int rc;

	switch (p->o.verb) {
	case VERB_WRITE:
		if (p->o.verify)
			fill(local, bytes, ((uint64_t)qi << 40) | it);
		wr.opcode = RK_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = p->remote.qp[qi].va + (uint64_t)slot * bytes;
		wr.wr.rdma.rkey = p->remote.qp[qi].rkey;
		break;
	case VERB_READ:
		wr.opcode = RK_WR_RDMA_READ;
		wr.wr.rdma.remote_addr = p->remote.qp[qi].va + (uint64_t)slot * bytes;
		wr.wr.rdma.rkey = p->remote.qp[qi].rkey;
		break;
	case VERB_SEND:
		if (p->o.verify)
			fill(local, bytes, ((uint64_t)qi << 40) | it);
		wr.opcode = RK_WR_SEND;
		break;
	case VERB_ATOMIC:
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
		break;
	}
	rc = rk_post_send(q->qp, &wr, &bad);
	if (rc == -ENOMEM)
		return 1;               /* send queue full: poll first */
	if (rc != 0) {
		char why[128];

		return fail(p, "post_send: %s", post_error(q->qp, rc, why, sizeof(why)));
	}
	q->posted++;
	q->sent++;
	return 0;
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

/* Check what a completed READ or ATOMIC brought back. */
static void
verify_completion(struct perf *p, uint32_t qi, uint64_t it, uint32_t size, uint32_t slots)
{
	struct qpres *q = &p->q[qi];
	uint32_t bytes = msg_bytes(p, size), slot = (uint32_t)(it % slots);
	const uint8_t *local = q->buf + (size_t)slot * bytes;

	if (p->o.verb == VERB_READ) {
		if (!check(local, bytes, KEY_READ | ((uint64_t)qi << 40) | slot)) {
			if (q->verify_errors++ == 0)
				fail(p, "verify: READ %" PRIu64 " on QP %u returned wrong data", it, qi);
		}
	} else if (p->o.verb == VERB_ATOMIC) {
		uint64_t orig;

		memcpy(&orig, local, 8);
		if (orig != it && q->verify_errors++ == 0)
			fail(p, "verify: ATOMIC %" PRIu64 " on QP %u returned %" PRIu64
			     " (expected %" PRIu64 ")", it, qi, orig, it);
	}
}

static void
progress_line(struct perf *p, uint64_t t0, uint64_t *next, uint64_t iters, uint64_t bytes)
{
	uint64_t now = now_ns();
	double s = (double)(now - t0) * 1e-9;

	(void)p;
	if (now < *next)
		return;
	*next = now + 1000000000ull;
	if (s < 0.5)
		return;
	fprintf(stderr, "rk-perf: %6.1f s  %10" PRIu64 " iterations  %8.3f Gb/s\n", s, iters,
		(double)bytes * 8 / s / 1e9);
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

	p->last_event_ns = 0;

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
		struct rk_wc wc[16];
		int n = rk_poll_cq(p->scq, 16, wc);

		if (n < 0)
			return fail(p, "poll_cq: %s", strerror(-n));
		for (int k = 0; k < n; k++)
			if (check_wc(p, &wc[k]) != 0)
				return -1;
		want -= (uint32_t)n;
		/* The READ waits behind all data still in the stream: bounded by progress. */
		if (watchdog(p, n) != 0)
			return -1;
		perf_idle(p, n);
	}
	return 0;
}

static int
run_bw_client(struct perf *p, uint32_t size, struct perf_result *r)
{
	struct perf_opts *o = &p->o;
	uint32_t slots = nslots(p, size), bytes = msg_bytes(p, size);
	uint32_t window = o->tx_depth < slots ? o->tx_depth : slots;
	uint64_t t0 = now_ns(), t_end = t0 + (uint64_t)(o->duration_s * 1e9), t_last = t0;
	uint64_t win_t = t0, win_done = 0, total_done = 0, next_line = t0 + 1000000000ull;
	double peak = 0;
	struct rk_wc wc[64];
	bool more = true;

	if (o->verb == VERB_SEND || o->verb == VERB_WRITE)
		window = o->verify ? window : o->tx_depth;
	for (uint32_t i = 0; i < o->qps; i++)
		p->q[i].posted = p->q[i].done = 0;
	for (;;) {
		int n, work = 0;
		uint64_t now = now_ns();

		if (o->duration_s > 0 && now >= t_end)
			more = false;
		if (more) {
			bool any = false;

			for (uint32_t i = 0; i < o->qps; i++) {
				struct qpres *q = &p->q[i];

				while (q->posted - q->done < window &&
				       (o->duration_s > 0 || q->posted < o->iters) &&
				       credit_ok(p, i)) {
					int rc = post_one(p, i, size, slots);

					if (rc < 0)
						return -1;
					if (rc > 0)
						break;
					work++;
				}
				if (o->duration_s > 0 || q->posted < o->iters)
					any = true;
			}
			more = any;
		}
		n = rk_poll_cq(p->scq, 64, wc);
		if (n < 0)
			return fail(p, "poll_cq: %s", strerror(-n));
		for (int k = 0; k < n; k++) {
			uint32_t qi = (uint32_t)(wc[k].wr_id >> 40);

			if (check_wc(p, &wc[k]) != 0)
				return -1;
			if (o->verify)
				verify_completion(p, qi, wc[k].wr_id & ((1ull << 40) - 1), size, slots);
			p->q[qi].done++;
			total_done++;
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
		progress_line(p, t0, &next_line, total_done, total_done * bytes);
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
	r->bw_peak_Bps = peak > r->bw_avg_Bps ? peak : r->bw_avg_Bps;
	r->msg_rate = r->seconds > 0 ? (double)total_done / r->seconds : 0;
	return 0;
}

/* Drain send completions; fail on errors. */
static int
drain_scq(struct perf *p, int *work)
{
	struct rk_wc wc[16];
	int n = rk_poll_cq(p->scq, 16, wc);

	if (n < 0)
		return fail(p, "poll_cq: %s", strerror(-n));
	for (int k = 0; k < n; k++)
		if (check_wc(p, &wc[k]) != 0)
			return -1;
	*work += n;
	return 0;
}

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
		fill(q->buf, size, key);
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
		fill(q->buf, size, key);
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
					    !check(q->rbuf + (size_t)slot * p->max_size, size, key)) &&
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
			if (p->o.verify && !check(q->buf + size, size - 1, key) &&
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
	uint64_t t_begin = 0, t_end = 0, next_line = 0;
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
			next_line = t_begin + 1000000000ull;
		}
		if (o->duration_s > 0 && it >= warm && now_ns() >= t_end)
			break;
		t0 = now_ns();
		if (o->verb == VERB_SEND) {
			rc = post_send_lat(p, size, it);
			if (rc == 0)
				rc = wait_recv(p, size, KEY_SERVER | it, false) < 0 ? -1 : 0;
		} else if (o->verb == VERB_WRITE) {
			rc = post_write_lat(p, size, it, mark_of(it));
			if (rc == 0)
				rc = wait_mark(p, size, mark_of(it), KEY_SERVER | it, false) < 0 ?
				     -1 : 0;
		} else {
			struct rk_wc wc;
			int n;

			rc = post_one(p, 0, size, nslots(p, size));
			while (rc == 0) {
				n = rk_poll_cq(p->scq, 1, &wc);
				if (n < 0) {
					rc = fail(p, "poll_cq: %s", strerror(-n));
				} else if (n == 1) {
					rc = check_wc(p, &wc);
					if (rc == 0 && o->verify)
						verify_completion(p, 0, it, size, nslots(p, size));
					q->done++;
					break;
				} else {
					rc = watchdog(p, 0);
					perf_idle(p, 0);
				}
			}
			perf_event(p);
		}
		t1 = now_ns();
		if (it < warm)
			continue;
		/* Ping-pong tests report half the round trip, as perftest. */
		lat[nlat++] = (double)(t1 - t0) / 1e3 /
			   (o->verb == VERB_SEND || o->verb == VERB_WRITE ? 2 : 1);
		progress_line(p, t_begin, &next_line, nlat, nlat * (uint64_t)size);
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
		lat_stats(lat, nlat, r);
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

/* Server side of a BW phase: serve until the client reports the end. */
static int
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
					    !check(q->rbuf + (size_t)slot * p->max_size, size,
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
		if (stop_requested)
			return fail(p, "interrupted");
		/* A client that stopped (SIGSTOP, a dead host) sends no end message. */
		if (!ending && watchdog(p, n) != 0)
			return -1;
		perf_idle(p, n);
	}
}

/* Server: check what the client's phase left in our memory. */
static void
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

				if (!check(q->buf + (size_t)s * size, size, ((uint64_t)qi << 40) | last)) {
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
static void
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
				fill(q->buf + (size_t)s * size, size,
				     KEY_READ | ((uint64_t)qi << 40) | s);
		if (p->o.verb == VERB_ATOMIC)
			memset(q->buf, 0, 8);
	}
}

/* ------------------------------------------------------------ reporting */

/*
 * The counters of the context and the port; over iWARP also the engine's
 * (the RoCE ones stay 0 there): stream bytes, FPDUs, Terminates.
 */
static unsigned int
all_counters(const struct perf *p, struct rk_io_counter *c, unsigned int max)
{
	const struct rk_iw_stats *w = p->ctx != NULL ? rk_context_iw_stats(p->ctx) : NULL;
	unsigned int n = rk_io_hw_counters(p->io, p->ctx != NULL ? rk_context_stats(p->ctx) : NULL,
					   c, max);

	for (unsigned int i = 0; w != NULL && i < rk_iw_xstats.n && n < max; i++)
		c[n++] = (struct rk_io_counter){ rk_iw_xstats.desc[i].name,
						 rk_xstat_value(&rk_iw_xstats, i, w) };
	return n;
}

static json_t *
counters_json(struct perf *p)
{
	struct rk_io_counter c[64];
	unsigned int n = all_counters(p, c, 64);
	json_t *o = json_object(), *qo = json_object();

	for (unsigned int i = 0; i < n; i++)
		json_object_set_new(o, c[i].name, json_integer((json_int_t)c[i].value));
	/* Per QP (rdma statistic's per-QP mode), keyed by QPN. */
	for (uint32_t i = 0; i < p->o.qps && p->q[i].qp != NULL; i++) {
		struct rk_counter qc[64];
		int k = rk_query_qp_counters(p->q[i].qp, qc, 64);
		json_t *e = json_object();
		char key[16];

		for (int j = 0; j < k; j++)
			json_object_set_new(e, qc[j].name, json_integer((json_int_t)qc[j].value));
		snprintf(key, sizeof(key), "%#x", p->q[i].qp->qp_num);
		json_object_set_new(qo, key, e);
	}
	json_object_set_new(o, "qp", qo);
	return o;
}

static void
print_counters(struct perf *p)
{
	struct rk_io_counter c[64];
	unsigned int n = all_counters(p, c, 64);

	printf(" counters:\n");
	for (unsigned int i = 0; i < n; i++)
		printf("   %-26s %" PRIu64 "\n", c[i].name, c[i].value);
	/* Per QP: the counters that moved. */
	for (uint32_t i = 0; i < p->o.qps && p->q[i].qp != NULL; i++) {
		struct rk_counter qc[64];
		int k = rk_query_qp_counters(p->q[i].qp, qc, 64);

		printf(" QP %#x:", p->q[i].qp->qp_num);
		for (int j = 0; j < k; j++)
			if (qc[j].value != 0)
				printf(" %s %" PRIu64, qc[j].name, qc[j].value);
		printf("\n");
	}
}

static void
add_json_result(struct perf *p, const struct perf_result *r)
{
	json_t *j = json_object();

	json_object_set_new(j, "bytes", json_integer(r->bytes));
	json_object_set_new(j, "iterations", json_integer((json_int_t)r->iters));
	/* A server measures nothing: the client times every phase. */
	if (p->o.server) {
		if (p->o.mode == MODE_LAT)
			json_object_set_new(j, "warmup_iterations",
					    json_integer((json_int_t)r->warmup));
	} else if (p->o.mode == MODE_BW) {
		json_object_set_new(j, "seconds", json_real(r->seconds));
		json_object_set_new(j, "bw_peak_gbps", json_real(r->bw_peak_Bps * 8e-9));
		json_object_set_new(j, "bw_avg_gbps", json_real(r->bw_avg_Bps * 8e-9));
		json_object_set_new(j, "bw_avg_MBps", json_real(r->bw_avg_Bps / 1048576.0));
		json_object_set_new(j, "msg_rate_mpps", json_real(r->msg_rate / 1e6));
	} else {
		json_object_set_new(j, "t_min_us", json_real(r->t_min));
		json_object_set_new(j, "t_max_us", json_real(r->t_max));
		json_object_set_new(j, "t_typical_us", json_real(r->t_typical));
		json_object_set_new(j, "t_avg_us", json_real(r->t_avg));
		json_object_set_new(j, "t_stdev_us", json_real(r->t_stdev));
		json_object_set_new(j, "p50_us", json_real(r->t_typical));
		json_object_set_new(j, "p99_us", json_real(r->p99));
		json_object_set_new(j, "p99_9_us", json_real(r->p999));
		json_object_set_new(j, "max_us", json_real(r->t_max));
		json_object_set_new(j, "warmup_iterations", json_integer((json_int_t)r->warmup));
	}
	json_array_append_new(p->jresults, j);
}

static const char *const verb_names[] = { "write", "read", "send", "atomic" };

static void
print_json(struct perf *p, int status)
{
	json_t *j = json_object();
	char test[32];

	snprintf(test, sizeof(test), "%s_%s", verb_names[p->o.verb],
		 p->o.mode == MODE_BW ? "bw" : "lat");
	json_object_set_new(j, "test", json_string(test));
	json_object_set_new(j, "role", json_string(p->o.server ? "server" : "client"));
	json_object_set_new(j, "qps", json_integer(p->o.qps));
	json_object_set_new(j, "mtu", json_integer(p->o.mtu));
	json_object_set_new(j, "transport", json_string(!p->o.iwarp ? "rocev2" :
							p->o.tcp_kernel ? "iwarp-kernel-tcp" :
							"iwarp-lwip"));
	json_object_set_new(j, "tx_depth", json_integer(p->o.tx_depth));
	json_object_set_new(j, "rx_depth", json_integer(p->o.rx_depth));
	{
		json_t *sz = json_array();

		for (uint32_t i = 0; i < p->nsizes; i++)
			json_array_append_new(sz, json_integer(p->sizes[i]));
		json_object_set_new(j, "sizes", sz);
	}
	/* -n or -D, whichever ran (the client's, on both ends). */
	json_object_set_new(j, "iterations_per_qp", p->o.duration_s > 0 ? json_null() :
			    json_integer((json_int_t)p->o.iters));
	json_object_set_new(j, "duration_s", p->o.duration_s > 0 ?
			    json_real(p->o.duration_s) : json_null());
	if (p->o.verb == VERB_ATOMIC)
		json_object_set_new(j, "atomic", json_string(p->o.atomic_cas ? "cmp_and_swp" :
							     "fetch_and_add"));
	json_object_set_new(j, "ip_version", json_integer(p->o.have_ip6 ? 6 : 4));
	json_object_set_new(j, "vlan", p->o.vlan != 0 ? json_integer(p->o.vlan) : json_null());
	json_object_set_new(j, "verify", json_boolean(p->o.verify));
	/* The client's: a server learns the count per size only (warmup_iterations). */
	if (p->o.mode == MODE_LAT && !p->o.server)
		json_object_set_new(j, "warmup", json_integer((json_int_t)(p->o.warmup_set ?
								 p->o.warmup : PERF_WARMUP_ITERS)));
	json_object_set_new(j, "idle", json_string(p->o.idle == RK_IO_IDLE_SPIN ? "spin" :
						   "spin-then-sleep"));
	/* This end's own (never the client's): what it did to the frames it sent. */
	json_object_set_new(j, "tx_copy", json_boolean(p->o.tx_copy));
	json_object_set_new(j, "tx_drop_every", json_integer(p->o.tx_drop_every));
	json_object_set_new(j, "tx_drop_rate", json_real(p->o.tx_drop_rate));
	/* JSON integers are signed 64-bit here: a larger seed as its decimal string. */
	if (p->o.seed <= INT64_MAX) {
		json_object_set_new(j, "seed", json_integer((json_int_t)p->o.seed));
	} else {
		char seed[24];

		snprintf(seed, sizeof(seed), "%" PRIu64, p->o.seed);
		json_object_set_new(j, "seed", json_string(seed));
	}
	json_object_set_new(j, "results", p->jresults);
	p->jresults = NULL;
	if (p->ctx != NULL)
		json_object_set_new(j, "counters", counters_json(p));
	json_object_set_new(j, "status", json_string(status == 0 ? "ok" : "error"));
	if (status != 0)
		json_object_set_new(j, "error", json_string(p->err));
	json_dumpf(j, stdout, JSON_INDENT(2));
	putchar('\n');
	json_decref(j);
}

/* ---------------------------------------------------------------- roles */

static int
client_phases(struct perf *p)
{
	struct perf_msg m = { 0 }, res;
	int rc = 0;

	if (!p->o.json) {
		report_header(&p->o, &p->local, &p->remote, 0);
		report_columns(&p->o);
	}
	for (uint32_t i = 0; i < p->nsizes && rc == 0; i++) {
		uint32_t size = p->sizes[i];
		struct perf_result r = { 0 };

		prepare_phase(p, size);
		m = (struct perf_msg){ .type = MSG_PHASE, .size = size };
		if (send_msg(p, &m) != 0 || recv_msg(p, &res, p->o.oob_timeout_s, MSG_READY) != 0)
			return -1;
		perf_event(p);
		rc = p->o.mode == MODE_BW ? run_bw_client(p, size, &r) :
					    run_lat_client(p, size, &r);
		if (rc == 0 && p->err[0] != '\0')
			rc = -1;        /* a verification failure */
		m = (struct perf_msg){ .type = MSG_END, .size = size, .status = rc != 0 };
		/* Why, for the server's message (an older server ignores it). */
		if (rc != 0)
			snprintf(m.text, sizeof(m.text), "%.127s", p->err);
		for (uint32_t q = 0; q < p->o.qps; q++)
			m.iters[q] = p->q[q].posted;
		if (p->o.mode == MODE_LAT)
			m.iters[1] = r.warmup;  /* one QP: the slot is free (struct perf_msg) */
		if (send_msg(p, &m) != 0)
			return -1;
		if (rc != 0)
			return -1;
		if (recv_msg(p, &res, p->o.oob_timeout_s, MSG_RESULT) != 0)
			return -1;
		if (res.status != 0)
			return fail(p, "server: %s", res.text);
		if (p->o.json)
			add_json_result(p, &r);
		else
			report_line(&p->o, &r);
	}
	m = (struct perf_msg){ .type = MSG_BYE };
	if (send_msg(p, &m) != 0)
		return -1;
	if (!p->o.json) {
		report_footer();
		if (p->o.verify)
			printf(" verify: all data checked, no errors\n");
		if (p->o.counters)
			print_counters(p);
	}
	return 0;
}

/* "-s N", "-a" or "--sizes A,B,..." for a size list. */
static const char *
sizes_str(const uint32_t *sizes, uint32_t n, char *buf, size_t len)
{
	size_t k;
	bool all = n == 23;

	for (uint32_t i = 0; i < n && all; i++)
		all = sizes[i] == 2u << i;
	if (all)
		return "-a";
	k = (size_t)snprintf(buf, len, "%s", n == 1 ? "-s " : "--sizes ");
	for (uint32_t i = 0; i < n && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%u", i > 0 ? "," : "", sizes[i]);
	return buf;
}

static const char *
run_str(const struct perf_opts *o, char *buf, size_t len)
{
	if (o->duration_s > 0)
		snprintf(buf, len, "-D %g", o->duration_s);
	else
		snprintf(buf, len, "-n %" PRIu64, o->iters);
	return buf;
}

/* Append "; " and a formatted item to the note in @p line (@p k bytes so far). */
static void note_item(char *line, size_t len, size_t *k, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void
note_item(char *line, size_t len, size_t *k, const char *fmt, ...)
{
	va_list ap;

	if (*k > 0 && *k < len)
		*k += (size_t)snprintf(line + *k, len - *k, "; ");
	if (*k >= len)
		return;
	va_start(ap, fmt);
	*k += (size_t)vsnprintf(line + *k, len - *k, fmt, ap);
	va_end(ap);
}

/*
 * Server: one line on what the client's parameters (adopt()) replaced of
 * this end's command line, so a server started as write_bw that ran the
 * client's read_bw, or one given --verify whose client checks nothing,
 * says so.
 */
static void
note_adopted(const struct perf *p)
{
	static const char *const verbs[] = { "write", "read", "send", "atomic" };
	const struct perf_opts *o = &p->o, *g = &p->own;
	char line[768], a[160], b[160];
	size_t k = 0, n = sizeof(line);

	if (o->verb != g->verb || o->mode != g->mode)
		note_item(line, n, &k, "%s_%s, not %s_%s", verbs[o->verb],
			  o->mode == MODE_BW ? "bw" : "lat", verbs[g->verb],
			  g->mode == MODE_BW ? "bw" : "lat");
	if ((p->given & GIVEN_SIZE) && o->verb != VERB_ATOMIC &&
	    (p->nsizes != p->own_nsizes ||
	     memcmp(p->sizes, p->own_sizes, p->nsizes * sizeof(p->sizes[0])) != 0))
		note_item(line, n, &k, "%s, not %s", sizes_str(p->sizes, p->nsizes, a, sizeof(a)),
			  sizes_str(p->own_sizes, p->own_nsizes, b, sizeof(b)));
	if ((p->given & GIVEN_RUN) && strcmp(run_str(o, a, sizeof(a)), run_str(g, b, sizeof(b))) != 0)
		note_item(line, n, &k, "%s, not %s", a, b);
	if ((p->given & GIVEN_QPS) && o->qps != g->qps)
		note_item(line, n, &k, "-q %u, not %u", o->qps, g->qps);
	if ((p->given & GIVEN_MTU) && o->mtu != g->mtu)
		note_item(line, n, &k, "-m %u, not %u", o->mtu, g->mtu);
	if ((p->given & GIVEN_TX_DEPTH) && o->tx_depth != g->tx_depth)
		note_item(line, n, &k, "-t %u, not %u", o->tx_depth, g->tx_depth);
	if ((p->given & GIVEN_RX_DEPTH) && o->rx_depth != g->rx_depth)
		note_item(line, n, &k, "-r %u, not %u", o->rx_depth, g->rx_depth);
	if ((p->given & GIVEN_ATOMIC) && o->atomic_cas != g->atomic_cas)
		note_item(line, n, &k, "-A %s", o->atomic_cas ? "CMP_AND_SWAP" : "FETCH_AND_ADD");
	if ((p->given & GIVEN_VERIFY) && !o->verify)
		note_item(line, n, &k, "no --verify: the data is not checked");
	if (k > 0)
		fprintf(stderr, "rk-perf: note: the client's parameters apply: %s\n", line);
}

static int
server_phases(struct perf *p)
{
	note_adopted(p);
	if (!p->o.json) {
		report_header(&p->o, &p->local, &p->remote, 0);
		printf(" waiting for the client's phases\n");
	}
	for (;;) {
		struct perf_msg m, res = { .type = MSG_RESULT };
		uint32_t size;
		int rc;

		/* Between phases the client may take as long as a whole phase. */
		if (recv_msg(p, &m, p->o.oob_timeout_s + p->o.timeout_s +
			     (double)p->remote.duration_ms / 1e3, 0) != 0)
			return -1;
		if (m.type == MSG_BYE)
			break;
		if (m.type != MSG_PHASE)
			return fail(p, "unexpected out-of-band message %u", m.type);
		size = m.size;
		prepare_phase(p, size);
		m.type = MSG_READY;
		if (send_msg(p, &m) != 0)
			return -1;
		perf_event(p);
		if (p->o.mode == MODE_LAT && (p->o.verb == VERB_SEND || p->o.verb == VERB_WRITE))
			rc = server_lat(p, size);
		else
			rc = server_bw(p, size);
		if (rc != 0)
			return -1;
		if (recv_msg(p, &m, p->o.oob_timeout_s, MSG_END) != 0)
			return -1;
		if (m.status != 0)
			return fail(p, "the client stopped with an error%s%s",
				    m.text[0] != '\0' ? ": " : "", m.text);
		server_verify(p, size, &m, &res);
		if (send_msg(p, &res) != 0)
			return -1;
		if (res.status != 0)
			return fail(p, "%s", res.text);
		if (!p->o.json)
			printf(" %-10u %s\n", size, p->o.verify ? "data verified" : "done");
		if (p->o.json) {
			struct perf_result r = { .bytes = size, .iters = m.iters[0] };

			/* All QPs', as the client's result counts them. */
			if (p->o.mode == MODE_BW)
				for (uint32_t q = 1; q < p->o.qps; q++)
					r.iters += m.iters[q];
			/* The client's warm-up, as its own result counts it. */
			if (p->o.mode == MODE_LAT && m.iters[1] <= m.iters[0]) {
				r.iters -= m.iters[1];
				r.warmup = m.iters[1];
			}
			add_json_result(p, &r);
		}
	}
	if (!p->o.json && p->o.counters)
		print_counters(p);
	return 0;
}

static void
fill_hello(struct perf *p)
{
	struct perf_hello *h = &p->local;

	h->verb = (uint8_t)p->o.verb;
	h->mode = (uint8_t)p->o.mode;
	h->verify = p->o.verify;
	h->atomic_cas = p->o.atomic_cas;
	h->mtu = p->o.mtu;
	h->qps = p->o.qps;
	h->tx_depth = p->o.tx_depth;
	h->rx_depth = p->o.rx_depth;
	h->nsizes = p->nsizes;
	memcpy(h->sizes, p->sizes, sizeof(h->sizes));
	h->iters = p->o.iters;
	h->duration_ms = (uint64_t)(p->o.duration_s * 1e3);
	memcpy(h->ip, p->o.ip, 4);
	if (p->io != NULL)
		rk_io_dpdk_mac(p->io, h->mac);
	if (p->o.iwarp)
		h->mode |= OOB_HELLO_F_IWARP;
	if (p->credits)
		h->mode |= OOB_HELLO_F_CREDITS;
	/* IPv6 needs the hello extension; IPv4 hellos stay the old format. */
	h->ip_version = p->o.have_ip6 ? 6 : 4;
	memcpy(h->ip6, p->o.ip6, 16);
	h->ext = p->o.have_ip6;
}

/*
 * Receive a hello and its extension, if one is announced. The client may
 * get a refusal instead (OOB_REFUSE_LEN): -ECONNREFUSED, with p->refusal
 * (version 0 and no text when cut short).
 */
static int
recv_hello(struct perf *p, uint8_t *b)
{
	int rc = oob_recv(p->fd, b, 4, p->o.oob_timeout_s, serve, p);

	if (rc != 0)
		return rc;
	if (!p->o.server && oob_is_refusal(b)) {
		memset(&p->refusal, 0, sizeof(p->refusal));
		if (oob_recv(p->fd, b + 4, OOB_REFUSE_LEN - 4, p->o.oob_timeout_s, serve, p) == 0)
			oob_decode_refusal(&p->refusal, b);
		return -ECONNREFUSED;
	}
	rc = oob_recv(p->fd, b + 4, OOB_HELLO_LEN - 4, p->o.oob_timeout_s, serve, p);
	if (rc != 0)
		return rc;
	oob_decode_hello(&p->remote, b);
	if (oob_hello_ext_len(b) == 0)
		return 0;
	rc = oob_recv(p->fd, b + OOB_HELLO_LEN, OOB_HELLO_EXT_LEN, p->o.oob_timeout_s, serve, p);
	if (rc != 0)
		return rc;
	return oob_decode_hello_ext(&p->remote, b + OOB_HELLO_LEN);
}

/*
 * Both ends must run RoCEv2 over the same IP version. The message names
 * client and server: the server sends it to the client as its refusal.
 */
static int
check_family(struct perf *p)
{
	int mine = p->o.have_ip6 ? 6 : 4, theirs = p->remote.ip_version == 6 ? 6 : 4;

	if (mine != theirs)
		return fail(p, "the client runs RoCEv2 over IPv%d, the server over IPv%d "
			    "(give both --ip or both --ip6)", p->o.server ? theirs : mine,
			    p->o.server ? mine : theirs);
	return 0;
}

/*
 * Both ends must run the same transport; the flags are taken off the mode.
 * The server sends credits when the client asks for them (adopt() checks
 * the test); a client that asked needs a server that answers likewise.
 */
static int
check_transport(struct perf *p)
{
	bool theirs = (p->remote.mode & OOB_HELLO_F_IWARP) != 0;
	bool credits = (p->remote.mode & OOB_HELLO_F_CREDITS) != 0;

	bool client = p->o.server ? theirs : p->o.iwarp;

	p->remote.mode &= (uint8_t)~(OOB_HELLO_F_IWARP | OOB_HELLO_F_CREDITS);
	if (theirs != p->o.iwarp)
		return fail(p, "the client runs %s, the server %s (give both or neither "
			    "--transport iwarp)", client ? "iWARP" : "RoCEv2",
			    client ? "RoCEv2" : "iWARP");
	if (p->o.server)
		p->credits = credits;
	else if (p->credits && !credits)
		return fail(p, "the server does not flow-control SENDs over iWARP (an older "
			    "rk-perf?)");
	return 0;
}

/*
 * The run's largest frame must fit the port: net_af_packet, say, drops
 * larger ones without an error (the run then fails with retries
 * exhausted). Full-MTU packets only for messages of an MTU or more.
 */
static int
check_frame_size(struct perf *p)
{
	uint32_t payload = 0, frame;
	char why[192];

	if (p->io == NULL)
		return 0;
	for (uint32_t i = 0; i < p->nsizes; i++)
		if (msg_bytes(p, p->sizes[i]) > payload)
			payload = msg_bytes(p, p->sizes[i]);
	if (p->o.iwarp) {
		/* lwIP's segments fill its interface MTU (at most 1500). */
		frame = 14 + (p->o.mtu > 1500 ? 1500 : p->o.mtu);
	} else {
		payload = payload > p->o.mtu ? p->o.mtu : (payload + 3) & ~3u;
		/* Ethernet, IP, UDP, BTH, RETH (AtomicETH: 28), payload, ICRC. */
		frame = 14 + (p->o.have_ip6 ? 40 : 20) + 8 + 12 +
			(p->o.verb == VERB_ATOMIC ? 28 : 16 + payload) + 4;
	}
	if (rk_io_dpdk_check_frame(p->io, frame, why, sizeof(why)) == 0)
		return 0;
	/* Short: a server's refusal carries 127 bytes of it. */
	return fail(p, "frames of %u bytes (-m %u): %s", frame, p->o.mtu, why);
}

/* The server takes the client's parameters. */
static int
adopt(struct perf *p, const struct perf_hello *h)
{
	if (h->verb > VERB_ATOMIC || h->mode > MODE_LAT || h->qps == 0 ||
	    h->qps > PERF_MAX_QPS || h->nsizes == 0 || h->nsizes > PERF_MAX_SIZES ||
	    (p->credits && (!p->o.iwarp || h->verb != VERB_SEND || h->mode != MODE_BW)))
		return fail(p, "bad parameters from the client");
	p->o.verb = h->verb;
	p->o.mode = h->mode;
	p->o.verify = h->verify;
	p->o.atomic_cas = h->atomic_cas;
	p->o.mtu = h->mtu;
	p->o.qps = h->qps;
	p->o.tx_depth = h->tx_depth;
	p->o.rx_depth = h->rx_depth;
	p->o.iters = h->iters;
	p->o.duration_s = (double)h->duration_ms / 1e3;
	p->nsizes = h->nsizes;
	memcpy(p->sizes, h->sizes, sizeof(p->sizes));
	return 0;
}

/*
 * Server: send the client a refusal with @p reason (an errno value) and
 * the message of the failure in p->err, instead of the hello; then let
 * the client read it (our FIN first, its close), so that closing with
 * unread bytes does not reset the connection under it. @return -1.
 */
static int
refuse(struct perf *p, int reason)
{
	struct perf_refusal r = { .reason = reason };
	const char *why = p->err[0] != '\0' ? p->err : "failed";
	uint8_t b[OOB_REFUSE_LEN];

	if (!p->o.server || p->fd < 0)
		return -1;
	/* Our messages fit the text field; a longer one is cut. */
	memcpy(r.text, why, strnlen(why, sizeof(r.text) - 1));
	oob_encode_refusal(&r, b);
	if (oob_send(p->fd, b, sizeof(b)) == 0 && shutdown(p->fd, SHUT_WR) == 0)
		wait_eof(p->fd, 1000);
	return -1;
}

/* Client: what the server's refusal (or its close without one) says. */
static int
refused(struct perf *p, int rc)
{
	const struct perf_refusal *r = &p->refusal;

	if (rc == -ECONNREFUSED && r->version == 0)
		return fail(p, "the server refused the connection and closed before saying why "
			    "(see its error)");
	if (rc == -ECONNREFUSED && r->version != OOB_REFUSE_VERSION)
		return fail(p, "the server refused the connection (a refusal of version %u, "
			    "unknown here; see its error)", r->version);
	if (rc == -ECONNREFUSED && r->reason == EHOSTUNREACH)
		return fail(p, "the server cannot reach this end over RDMA: %s", r->text);
	if (rc == -ECONNREFUSED && r->reason == EINTR)
		return fail(p, "the server stopped before the run: %s", r->text);
	if (rc == -ECONNREFUSED)
		return fail(p, "the server refused the connection: %s", r->text);
	/* A close without a refusal: an older server, or one that stopped. */
	return fail(p, "the server closed the connection without an answer (%ssee its "
		    "error)", p->o.have_ip6 ? "an older one, without IPv6? " : "");
}

static int
exchange(struct perf *p)
{
	uint8_t b[OOB_HELLO_MAX_LEN];
	char ip[INET6_ADDRSTRLEN];
	size_t n;
	int rc;

	if (p->o.server) {
		rc = oob_accept(p->lfd, p->o.oob_timeout_s, &p->fd, serve, p);
		p->lfd = -1;
		if (rc == -EINTR)
			return fail(p, "interrupted");
		if (rc == -ETIMEDOUT)
			return fail(p, "no client connected to TCP port %u within %g s",
				    p->o.tcp_port, p->o.oob_timeout_s);
		if (rc != 0)
			return fail(p, "cannot take a client on TCP port %u: %s", p->o.tcp_port,
				    strerror(-rc));
		rc = recv_hello(p, b);
		if (rc == -EINTR) {
			fail(p, "interrupted");
			return refuse(p, EINTR);
		}
		if (rc == -EPROTO) {
			fail(p, "the client's hello extension is of an unknown version");
			return refuse(p, EPROTO);
		}
		if (rc != 0) {
			fail(p, "no parameters from the client: %s", strerror(-rc));
			return refuse(p, EPROTO);
		}
		if (check_transport(p) != 0 || check_family(p) != 0 || adopt(p, &p->remote) != 0 ||
		    check_frame_size(p) != 0)
			return refuse(p, EINVAL);
		if (create_resources(p) != 0)
			return refuse(p, ENOMEM);
		/* Credits land in the client's buffer, laid out as ours. */
		for (uint32_t i = 0; i < p->o.qps && p->credits; i++)
			if (p->remote.qp[i].len < p->credit_off + 8) {
				fail(p, "bad parameters from the client");
				return refuse(p, EINVAL);
			}
		fill_hello(p);
	} else {
		p->credits = p->o.iwarp && p->o.verb == VERB_SEND && p->o.mode == MODE_BW;
		if (check_frame_size(p) != 0 || create_resources(p) != 0)
			return -1;
		fill_hello(p);
		rc = oob_connect(p->o.server_host, p->o.tcp_port, p->o.oob_timeout_s, &p->fd,
				 serve, p);
		if (rc == -EINTR)
			return fail(p, "interrupted");
		if (rc == -ECONNREFUSED)
			return fail(p, "no server listened on %s:%u within %g s (connection "
				    "refused)", p->o.server_host, p->o.tcp_port, p->o.oob_timeout_s);
		if (oob_resolve_failed(rc))
			return fail(p, "cannot resolve the server name %s: %s", p->o.server_host,
				    oob_strerror(rc));
		if (rc != 0)
			return fail(p, "cannot reach the server %s:%u within %g s: %s",
				    p->o.server_host, p->o.tcp_port, p->o.oob_timeout_s,
				    strerror(-rc));
		n = oob_encode_hello_all(&p->local, b);
		if ((rc = oob_send(p->fd, b, n)) != 0)
			return fail(p, "out-of-band send failed: %s", strerror(-rc));
		rc = recv_hello(p, b);
		if (rc == -EINTR)
			return fail(p, "interrupted");
		if (rc == -ECONNREFUSED || rc == -ECONNRESET)
			return refused(p, rc);
		if (rc == -EPROTO)
			return fail(p, "the server's hello extension is of an unknown version");
		if (rc != 0)
			return fail(p, "no answer from the server: %s", strerror(-rc));
		if (check_transport(p) != 0 || check_family(p) != 0)
			return -1;
		if (p->remote.qps != p->o.qps)
			return fail(p, "the server answered with %u QPs", p->remote.qps);
	}
	if (p->o.iwarp) {
		/* lwIP resolves its peers itself; the TCP handshake proves the path. */
		if (iw_init_qps(p) != 0)
			return refuse(p, EINVAL);
		if (p->o.server) {
			rc = perf_iw_listen(p->iw, &p->o, (uint16_t)(p->o.tcp_port + 1));
			if (rc == -EADDRINUSE) {
				fail(p, "TCP port %u of the server, for the data connections (-p + 1), "
				     "is in use: give another -p", p->o.tcp_port + 1);
				return refuse(p, EADDRINUSE);
			}
			if (rc != 0) {
				fail(p, "the server cannot listen on TCP port %u (-p + 1): %s",
				     p->o.tcp_port + 1, strerror(-rc));
				return refuse(p, -rc);
			}
			p->local.ext = p->remote.ext;
			n = oob_encode_hello_all(&p->local, b);
			if ((rc = oob_send(p->fd, b, n)) != 0)
				return fail(p, "out-of-band send failed: %s", strerror(-rc));
			p->hello_sent = true;
		}
		return iw_establish(p);
	}
	/*
	 * The peer's MAC from ARP (RFC 826) or Neighbor Discovery (RFC 4861):
	 * also proves the RDMA path works.
	 */
	peer_addr(p, ip, sizeof(ip));
	if (p->o.have_ip6)
		rc = rk_io_dpdk_resolve_addr(p->io, p->remote.ip6, p->peer_mac,
					     (uint32_t)(p->o.arp_timeout_s * 1e3));
	else
		rc = rk_io_dpdk_resolve(p->io, p->remote.ip, p->peer_mac,
					(uint32_t)(p->o.arp_timeout_s * 1e3));
	if (rc == -EINTR) {
		fail(p, "interrupted");
		return refuse(p, EINTR);
	}
	if (rc != 0) {
		fail(p, "peer %s did not answer %s on %s within %g s (unreachable)",
		     ip, p->o.have_ip6 ? "neighbour discovery" : "ARP",
		     p->o.dev != NULL ? p->o.dev : "port 0", p->o.arp_timeout_s);
		return refuse(p, EHOSTUNREACH);
	}
	if (memcmp(p->peer_mac, p->remote.mac, 6) != 0)
		fprintf(stderr, "rk-perf: note: %s and the out-of-band exchange disagree on "
			"the MAC of %s; using %s's\n", p->o.have_ip6 ? "ND" : "ARP", ip,
			p->o.have_ip6 ? "ND" : "ARP");
	if (connect_qps(p) != 0)
		return refuse(p, EINVAL);
	if (p->o.server) {
		/* An extension only to a client that sent one (it reads it). */
		p->local.ext = p->remote.ext;
		n = oob_encode_hello_all(&p->local, b);
		if ((rc = oob_send(p->fd, b, n)) != 0)
			return fail(p, "out-of-band send failed: %s", strerror(-rc));
		p->hello_sent = true;
	}
	return 0;
}

/*
 * Server, after its hello: tell the client why this end stops (it would
 * otherwise see only the close, or nothing until its --timeout).
 */
static void
abort_client(struct perf *p)
{
	struct perf_msg m = { .type = MSG_ABORT, .status = 1 };

	if (!p->o.server || !p->hello_sent || p->fd < 0)
		return;
	snprintf(m.text, sizeof(m.text), "%.127s", p->err[0] != '\0' ? p->err : "failed");
	(void)send_msg(p, &m);
}

/* --------------------------------------------------------------- options */

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: rk-perf [EAL options --] TEST [options]          server\n"
		"       rk-perf [EAL options --] TEST [options] SERVER   client\n"
		"TEST: write_bw write_lat read_bw read_lat send_bw send_lat atomic_bw atomic_lat\n"
		"Without \"--\", the EAL gets --in-memory --no-pci --log-level=*:warning\n"
		"(--no-huge -m512 --no-shconf instead of --in-memory without free hugepages).\n"
		"options (perftest's where they mean the same):\n"
		"  -s, --size N           message size in bytes (default 65536 bw, 2 lat)\n"
		"  -a, --all              sizes 2 to 8388608\n"
		"      --sizes LIST       sizes to run, e.g. 1,4096,1048576\n"
		"  -n, --iters N          iterations per QP (default 5000 bw, 1000 lat)\n"
		"  -D, --duration S       run each size for S seconds instead\n"
		"      --warmup N         latency tests: N iterations per size before the\n"
		"                         measured ones, not counted (default 2048, at most\n"
		"                         128 MiB of messages; 0: none); the client's applies\n"
		"  -q, --qp N             QPs (bw tests; default 1, at most 64)\n"
		"  -m, --mtu N            path MTU 256, 512, 1024, 2048, 4096 (default 1024)\n"
		"  -t, --tx-depth N       outstanding sends per QP (default 128)\n"
		"  -r, --rx-depth N       receives posted per QP (default 512); iWARP send_bw:\n"
		"                         the client sends only into these (credits, no RNR)\n"
		"  -A, --atomic_type T    FETCH_AND_ADD (default) or CMP_AND_SWAP\n"
		"  -F, --CPU-freq         accepted for perftest compatibility\n"
		"  -p, --port N           TCP port of the out-of-band exchange (default 18515)\n"
		"      --report_gbits     bandwidth in Gb/s\n"
		"      --json             results as JSON on stdout\n"
		"      --verify           check all data\n"
		"      --counters         print the NIC-style counters at the end, also after\n"
		"                         an error\n"
		"  -d, --ib-dev NAME      DPDK port name (default port 0)\n"
		"  -I, --ip A.B.C.D       this endpoint's IPv4 address\n"
		"      --ip6 ADDR         this endpoint's IPv6 address: RoCEv2 over IPv6\n"
		"                         (one of --ip and --ip6 is required; the peer gives\n"
		"                         the same kind)\n"
		"      --vlan ID          802.1Q tag on every frame\n"
		"  -w, --pcap FILE        record every frame sent and received (pcapng)\n"
		"      --idle P           spin, or adaptive (spin-then-sleep, default)\n"
		"      --tx-drop-every N  drop every Nth frame sent (RoCE; over iWARP/lwIP, TCP\n"
		"                         segments). RoCE resends go-back-N, the same frames in\n"
		"                         order: with a small N the retries can lose the same\n"
		"                         packet every time until the retry counter is exceeded\n"
		"      --tx-drop-rate P   drop frames sent (as above) with probability P, 0..0.5\n"
		"                         (seeded; no such pattern). With --tx-drop-every too,\n"
		"                         a frame is dropped when either one says so\n"
		"      --seed N           seed of --tx-drop-rate (default 1)\n"
		"      --tx-copy          copy every payload into its frame; by default a port\n"
		"                         whose driver copies frames out (memif, af_packet,\n"
		"                         pcap, tap, null) reads payloads of 512 B and more\n"
		"                         where they lie\n"
		"      --oob-timeout S    TCP connect/accept and message timeout (default 20)\n"
		"      --timeout S        data phase: fail after S seconds without progress, i.e.\n"
		"                         nothing acknowledged, received or completed (10)\n"
		"      --arp-timeout S    ARP resolution timeout (default 3)\n"
		"      --link-timeout S   wait for link up (default 10)\n"
		"      --transport T      roce (RoCEv2, default) or iwarp (MPA Rev 2, RFC 6581\n"
		"                         peer-to-peer RTR, CRC; one TCP connection per QP on\n"
		"                         port -p + 1; no atomics; -m: interface MTU, MSS at\n"
		"                         most 1460; default 1500)\n"
		"      --tcp B            iWARP's TCP: lwip (on the DPDK port, default) or\n"
		"                         kernel (sockets to SERVER, no DPDK port used, so\n"
		"                         no -w, -d, --vlan, --idle, --tx-drop-*, --tx-copy,\n"
		"                         --arp-timeout, --link-timeout, --netmask)\n"
		"      --netmask M        lwIP interface netmask (default 255.255.255.0)\n"
		"  -h, --help\n"
		"\n"
		"The server runs the client's test, -s/-a/--sizes, -n/-D, -q, -m, -t, -r, -A\n"
		"and --verify, and notes on stderr those it was given otherwise (-r as well,\n"
		"unlike perftest: both ends lay out buffers and iWARP credits from it). The\n"
		"rest is each end's own; --transport and the IP version must match.\n"
		"\n"
		"Exit status: 0 ok (and data verified with --verify), 1 a run-time error\n"
		"(peer unreachable, timeout, completion error, data mismatch, SIGINT or\n"
		"SIGTERM: \"interrupted\"), 2 bad usage.\n");
}

static int
parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno != 0 || end == s || *end != '\0' || s[0] == '-' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int
parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !(v >= min && v <= max))
		return -1;
	*out = v;
	return 0;
}

#define BAD(...) do { fprintf(stderr, "rk-perf: " __VA_ARGS__); fputc('\n', stderr); \
		      return 2; } while (0)

static int
parse_args(struct perf *p, int argc, char **argv)
{
	enum { O_GBITS = 256, O_JSON, O_VERIFY, O_COUNTERS, O_VLAN, O_IDLE, O_DROP_EVERY,
	       O_DROP_RATE, O_SEED, O_OOB_TO, O_TO, O_ARP_TO, O_LINK_TO, O_SIZES, O_IP6,
	       O_TRANSPORT, O_TCP, O_NETMASK, O_TX_COPY, O_WARMUP };
	static const struct option lo[] = {
		{ "size", 1, NULL, 's' }, { "all", 0, NULL, 'a' }, { "iters", 1, NULL, 'n' },
		{ "duration", 1, NULL, 'D' }, { "qp", 1, NULL, 'q' }, { "mtu", 1, NULL, 'm' },
		{ "tx-depth", 1, NULL, 't' }, { "rx-depth", 1, NULL, 'r' },
		{ "atomic_type", 1, NULL, 'A' }, { "CPU-freq", 0, NULL, 'F' },
		{ "port", 1, NULL, 'p' }, { "ib-dev", 1, NULL, 'd' }, { "ip", 1, NULL, 'I' },
		{ "pcap", 1, NULL, 'w' }, { "help", 0, NULL, 'h' },
		{ "report_gbits", 0, NULL, O_GBITS }, { "json", 0, NULL, O_JSON },
		{ "verify", 0, NULL, O_VERIFY }, { "counters", 0, NULL, O_COUNTERS },
		{ "vlan", 1, NULL, O_VLAN }, { "idle", 1, NULL, O_IDLE },
		{ "tx-drop-every", 1, NULL, O_DROP_EVERY }, { "tx-drop-rate", 1, NULL, O_DROP_RATE },
		{ "seed", 1, NULL, O_SEED }, { "oob-timeout", 1, NULL, O_OOB_TO },
		{ "timeout", 1, NULL, O_TO }, { "arp-timeout", 1, NULL, O_ARP_TO },
		{ "link-timeout", 1, NULL, O_LINK_TO }, { "sizes", 1, NULL, O_SIZES },
		{ "ip6", 1, NULL, O_IP6 }, { "transport", 1, NULL, O_TRANSPORT },
		{ "tcp", 1, NULL, O_TCP }, { "netmask", 1, NULL, O_NETMASK },
		{ "tx-copy", 0, NULL, O_TX_COPY }, { "warmup", 1, NULL, O_WARMUP },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const tests[] = { "write_bw", "write_lat", "read_bw", "read_lat",
					     "send_bw", "send_lat", "atomic_bw", "atomic_lat" };
	struct perf_opts *o = &p->o;
	bool size_set = false, iters_set = false, list_set = false, tcp_set = false;
	bool mtu_set = false;
	/* The first option given that acts on the DPDK port only. */
	const char *port_opt = NULL;
	uint64_t v;
	double d;
	int c, ti;

	*o = (struct perf_opts){
		.tcp_port = 18515, .qps = 1, .mtu = 1024, .tx_depth = 128, .rx_depth = 512,
		.seed = 1, .oob_timeout_s = 20, .timeout_s = 10, .arp_timeout_s = 3,
		.link_timeout_ms = 10000,
	};
	optind = 1;
	opterr = 0; /* messages of our own, prefixed "rk-perf:" */
	while ((c = getopt_long(argc, argv, ":s:an:D:q:m:t:r:A:Fp:d:I:w:h", lo, NULL)) != -1) {
		switch (c) {
		case 's': case 'a': case O_SIZES: p->given |= GIVEN_SIZE; break;
		case 'n': case 'D': p->given |= GIVEN_RUN; break;
		case 'q': p->given |= GIVEN_QPS; break;
		case 'm': p->given |= GIVEN_MTU; break;
		case 't': p->given |= GIVEN_TX_DEPTH; break;
		case 'r': p->given |= GIVEN_RX_DEPTH; break;
		case 'A': p->given |= GIVEN_ATOMIC; break;
		case O_VERIFY: p->given |= GIVEN_VERIFY; break;
		default: break;
		}
		switch (c) {
		case 's':
			if (parse_u64(optarg, 1, 64u * MIB, &v) != 0)
				BAD("--size: expected 1..67108864, got '%s'", optarg);
			o->size = (uint32_t)v;
			size_set = true;
			break;
		case 'a': o->all_sizes = true; break;
		case O_SIZES: {
			const char *tok = optarg;

			if (*optarg == '\0')
				BAD("--sizes: empty list");
			/* Every entry, empty ones too: "1,,2" is a typo, not two sizes. */
			for (p->nsizes = 0;; tok++) {
				size_t len = strcspn(tok, ",");
				char num[24];

				if (len == 0)
					BAD("--sizes: empty entry in '%s'", optarg);
				snprintf(num, sizeof(num), "%.*s", (int)len, tok);
				if (p->nsizes == PERF_MAX_SIZES || len >= sizeof(num) ||
				    parse_u64(num, 1, 64u * MIB, &v) != 0)
					BAD("--sizes: expected up to %d sizes of 1..67108864 bytes",
					    PERF_MAX_SIZES);
				p->sizes[p->nsizes++] = (uint32_t)v;
				tok += len;
				if (*tok == '\0')
					break;
			}
			list_set = true;
			break;
		}
		case 'n':
			if (parse_u64(optarg, 1, 1ull << 38, &v) != 0)
				BAD("--iters: expected a positive count, got '%s'", optarg);
			o->iters = v;
			iters_set = true;
			break;
		case 'D':
			if (parse_double(optarg, 0.001, 86400, &o->duration_s) != 0)
				BAD("--duration: expected seconds, got '%s'", optarg);
			break;
		case 'q':
			if (parse_u64(optarg, 1, PERF_MAX_QPS, &v) != 0)
				BAD("--qp: expected 1..%d, got '%s'", PERF_MAX_QPS, optarg);
			o->qps = (uint32_t)v;
			break;
		case 'm':
			/* 1500: an Ethernet MTU, for --transport iwarp (checked below). */
			if (parse_u64(optarg, 256, 4096, &v) != 0 || ((v & (v - 1)) != 0 && v != 1500))
				BAD("--mtu: expected 256, 512, 1024, 2048 or 4096 (--transport iwarp: "
				    "1024, 1500, 2048 or 4096), got '%s'", optarg);
			o->mtu = (uint32_t)v;
			mtu_set = true;
			break;
		case 't':
			if (parse_u64(optarg, 1, 8192, &v) != 0)
				BAD("--tx-depth: expected 1..8192, got '%s'", optarg);
			o->tx_depth = (uint32_t)v;
			break;
		case 'r':
			if (parse_u64(optarg, 2, 8192, &v) != 0)
				BAD("--rx-depth: expected 2..8192, got '%s'", optarg);
			o->rx_depth = (uint32_t)v;
			break;
		case 'A':
			if (strcmp(optarg, "CMP_AND_SWAP") == 0)
				o->atomic_cas = true;
			else if (strcmp(optarg, "FETCH_AND_ADD") == 0)
				o->atomic_cas = false;
			else
				BAD("--atomic_type: expected CMP_AND_SWAP or FETCH_AND_ADD");
			break;
		case 'F': break;
		case 'p':
			if (parse_u64(optarg, 1, 65535, &v) != 0)
				BAD("--port: expected a TCP port, got '%s'", optarg);
			o->tcp_port = (uint16_t)v;
			break;
		case 'd':
			o->dev = optarg;
			port_opt = port_opt != NULL ? port_opt : "-d";
			break;
		case 'I':
			if (inet_pton(AF_INET, optarg, o->ip) != 1)
				BAD("--ip: expected an IPv4 address, got '%s'", optarg);
			o->have_ip = true;
			break;
		case O_IP6:
			if (inet_pton(AF_INET6, optarg, o->ip6) != 1 ||
			    (o->ip6[0] == 0 && memcmp(o->ip6, o->ip6 + 1, 15) == 0))
				BAD("--ip6: expected an IPv6 address, got '%s'", optarg);
			o->have_ip6 = true;
			break;
		case 'w':
			if (*optarg == '\0')
				BAD("--pcap: expected a file name, got ''");
			o->pcap_path = optarg;
			break;
		case O_TRANSPORT:
			if (strcmp(optarg, "iwarp") == 0)
				o->iwarp = true;
			else if (strcmp(optarg, "roce") == 0 || strcmp(optarg, "rocev2") == 0)
				o->iwarp = false;
			else
				BAD("--transport: expected roce or iwarp, got '%s'", optarg);
			break;
		case O_TCP:
			if (strcmp(optarg, "kernel") == 0)
				o->tcp_kernel = true;
			else if (strcmp(optarg, "lwip") == 0)
				o->tcp_kernel = false;
			else
				BAD("--tcp: expected lwip or kernel, got '%s'", optarg);
			tcp_set = true;
			break;
		case O_NETMASK: {
			struct in_addr m;

			if (inet_pton(AF_INET, optarg, &m) != 1)
				BAD("--netmask: expected a dotted-quad mask, got '%s'", optarg);
			o->netmask = optarg;
			break;
		}
		case 'h': usage(stdout); exit(0);
		case O_GBITS: o->report_gbits = true; break;
		case O_JSON: o->json = true; break;
		case O_VERIFY: o->verify = true; break;
		case O_COUNTERS: o->counters = true; break;
		case O_VLAN:
			if (parse_u64(optarg, 1, 4094, &v) != 0)
				BAD("--vlan: expected 1..4094, got '%s'", optarg);
			o->vlan = (uint16_t)v;
			break;
		case O_IDLE:
			port_opt = port_opt != NULL ? port_opt : "--idle";
			if (strcmp(optarg, "spin") == 0)
				o->idle = RK_IO_IDLE_SPIN;
			else if (strcmp(optarg, "adaptive") == 0 || strcmp(optarg, "sleep") == 0)
				o->idle = RK_IO_IDLE_ADAPTIVE;
			else
				BAD("--idle: expected spin or adaptive, got '%s'", optarg);
			break;
		case O_DROP_EVERY:
			if (parse_u64(optarg, 2, UINT32_MAX, &v) != 0)
				BAD("--tx-drop-every: expected N >= 2, got '%s'", optarg);
			o->tx_drop_every = (uint32_t)v;
			break;
		case O_TX_COPY:
			o->tx_copy = true;
			break;
		case O_WARMUP:
			if (parse_u64(optarg, 0, 1ull << 38, &o->warmup) != 0)
				BAD("--warmup: expected a count of iterations (0: none), got '%s'",
				    optarg);
			o->warmup_set = true;
			break;
		case O_DROP_RATE:
			if (parse_double(optarg, 0, 0.5, &o->tx_drop_rate) != 0)
				BAD("--tx-drop-rate: expected 0..0.5, got '%s'", optarg);
			break;
		case O_SEED:
			if (parse_u64(optarg, 0, UINT64_MAX, &o->seed) != 0)
				BAD("--seed: expected a number, got '%s'", optarg);
			break;
		case O_OOB_TO: case O_TO: case O_ARP_TO: case O_LINK_TO:
			if (parse_double(optarg, 0.1, 3600, &d) != 0)
				BAD("--%s: expected seconds (0.1..3600), got '%s'",
				    c == O_OOB_TO ? "oob-timeout" : c == O_TO ? "timeout" :
				    c == O_ARP_TO ? "arp-timeout" : "link-timeout", optarg);
			if (c == O_OOB_TO)
				o->oob_timeout_s = d;
			else if (c == O_TO)
				o->timeout_s = d;
			else if (c == O_ARP_TO)
				o->arp_timeout_s = d;
			else
				o->link_timeout_ms = (uint32_t)(d * 1e3);
			if ((c == O_ARP_TO || c == O_LINK_TO) && port_opt == NULL)
				port_opt = c == O_ARP_TO ? "--arp-timeout" : "--link-timeout";
			break;
		case ':':
		case '?':
			rk_cli_bad_option("rk-perf", c, argc, argv);
			usage(stderr);
			return 2;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc)
		BAD("missing TEST (write_bw, read_lat, ...); --help for usage");
	for (ti = 0; ti < 8; ti++)
		if (strcmp(argv[optind], tests[ti]) == 0)
			break;
	if (ti == 8)
		BAD("unknown test '%s' (write_bw write_lat read_bw read_lat send_bw send_lat "
		    "atomic_bw atomic_lat)", argv[optind]);
	o->verb = (enum perf_verb)(ti / 2);
	o->mode = (enum perf_mode)(ti % 2);
	optind++;
	/* GNU getopt moved the options first: what is left is the server. */
	if (optind < argc)
		o->server_host = argv[optind++];
	if (optind < argc)
		BAD("unexpected argument '%s'", argv[optind]);
	o->server = o->server_host == NULL;
	if (!o->have_ip && !o->have_ip6)
		BAD("--ip A.B.C.D or --ip6 ADDR is required (this endpoint's address, "
		    "e.g. 198.18.0.1)");
	if (o->have_ip && o->have_ip6)
		BAD("--ip and --ip6 exclude each other: RoCEv2 runs over one IP version");
	if (o->mode == MODE_LAT && o->qps != 1)
		BAD("latency tests use one QP (-q 1)");
	if ((o->all_sizes ? 1 : 0) + (size_set ? 1 : 0) + (list_set ? 1 : 0) > 1)
		BAD("-a, -s and --sizes exclude each other");
	if (o->duration_s > 0 && iters_set)
		BAD("-D and -n exclude each other");
	if (o->warmup_set && o->mode != MODE_LAT)
		BAD("--warmup goes with the latency tests (write_lat, read_lat, send_lat, "
		    "atomic_lat)");
	if (!iters_set)
		o->iters = o->mode == MODE_BW ? 5000 : 1000;
	if (o->verb == VERB_ATOMIC) {
		p->sizes[0] = 8;
		p->nsizes = 1;
	} else if (list_set) {
		/* p->sizes holds the list */
	} else if (o->all_sizes) {
		p->nsizes = 0;
		for (uint32_t s = 2; s <= 8 * MIB; s <<= 1)
			p->sizes[p->nsizes++] = s;
	} else {
		p->sizes[0] = size_set ? o->size : o->mode == MODE_BW ? 65536 : 2;
		p->nsizes = 1;
	}
	if (o->mode == MODE_LAT && o->verb == VERB_WRITE && p->sizes[0] < 1)
		BAD("write_lat needs a size of at least 1");
	if (!o->iwarp && o->mtu == 1500)
		BAD("--mtu: expected 256, 512, 1024, 2048 or 4096, got '1500' (an Ethernet MTU: "
		    "for --transport iwarp)");
	/* iWARP: the interface MTU, Ethernet's unless asked (MSS 1460). */
	if (o->iwarp && !mtu_set)
		o->mtu = 1500;
	if (!o->iwarp && (tcp_set || o->netmask != NULL))
		BAD("%s goes with --transport iwarp", tcp_set ? "--tcp" : "--netmask");
	if (o->iwarp) {
		/* RFC 7306 atomics are not negotiated by rk-perf's MPA set-up. */
		if (o->verb == VERB_ATOMIC)
			BAD("atomics over iWARP need RFC 7306, which rk-perf does not negotiate: "
			    "use write, read or send");
		if (o->have_ip6)
			BAD("--transport iwarp runs over IPv4 (lwIP): give --ip");
		if (o->tcp_port == 65535)
			BAD("--transport iwarp: the data connections use TCP port -p + 1, so -p "
			    "must be below 65535");
		if (o->mtu < 1024)
			BAD("--transport iwarp: -m is the interface MTU: 1024, 1500, 2048 or 4096 "
			    "(default 1500)");
		if (o->tcp_kernel && o->pcap_path != NULL)
			BAD("--tcp kernel has no DPDK port to record (-w): record with tcpdump");
		/* What these change happens on the DPDK port, which kernel sockets skip. */
		if (o->tcp_kernel && (o->tx_drop_every != 0 || o->tx_drop_rate > 0))
			BAD("--tcp kernel has no DPDK port to drop frames on (--tx-drop-every, "
			    "--tx-drop-rate): use --tcp lwip");
		if (o->tcp_kernel && o->vlan != 0)
			BAD("--tcp kernel has no DPDK port to tag frames on (--vlan): give the "
			    "kernel a VLAN interface");
		if (o->tcp_kernel && o->tx_copy)
			BAD("--tcp kernel has no DPDK port to copy payloads on (--tx-copy)");
		if (o->tcp_kernel && o->netmask != NULL)
			BAD("--tcp kernel uses the kernel's interfaces: --netmask sets lwIP's");
		if (o->tcp_kernel && port_opt != NULL)
			BAD("--tcp kernel has no DPDK port for %s to act on: use --tcp lwip",
			    port_opt);
		if (!o->tcp_kernel && !perf_iw_has_lwip())
			BAD("this rk-perf was built without lwIP (liblwip-dev): use --tcp kernel");
	}
	p->own = *o;
	memcpy(p->own_sizes, p->sizes, sizeof(p->sizes));
	p->own_nsizes = p->nsizes;
	return 0;
}

/* ------------------------------------------------------------------ main */

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
	rk_io_dpdk_split_args(argc, argv, "rk-perf", &args);
	rc = parse_args(p, args.app_argc, args.app_argv);
	if (rc != 0) {
		free(p);
		return rc;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	srand((unsigned int)(getpid() ^ time(NULL)));
	/* Sleeps of the idle policy: as short as asked, not 50 us later. */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	p->jresults = json_array();

	sched_getaffinity(0, sizeof(cpus), &cpus);
	rc = rk_io_dpdk_eal_init(args.eal_argc, args.eal_argv);
	if (rc < 0) {
		fprintf(stderr, "rk-perf: DPDK EAL initialisation failed: %s\n",
			rk_io_dpdk_eal_strerror(rc));
		return rk_io_dpdk_eal_usage_error(rc) ? 2 : 1;
	}
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
	cfg.idle = p->o.idle;
	cfg.link_timeout_ms = p->o.link_timeout_ms;
	cfg.pcapng_path = p->o.pcap_path;
	cfg.tx_drop_every = p->o.tx_drop_every;
	cfg.tx_drop_rate = p->o.tx_drop_rate;
	cfg.tx_drop_seed = p->o.seed;
	cfg.tx_copy = p->o.tx_copy;
	cfg.cancel = &stop_requested;
	if (!recording_writable("rk-perf", p->o.pcap_path)) {
		rk_io_dpdk_eal_cleanup();
		return 1;
	}
	/* Before the port waits for its link: a taken -p is said at once. */
	if (p->o.server && (rc = oob_listen_open(p->o.tcp_port, &p->lfd)) != 0) {
		if (rc == -EADDRINUSE)
			fprintf(stderr, "rk-perf: error: TCP port %u is in use (another rk-perf "
				"server?): give another with -p\n", p->o.tcp_port);
		else
			fprintf(stderr, "rk-perf: error: cannot listen on TCP port %u: %s\n",
				p->o.tcp_port, strerror(-rc));
		rk_io_dpdk_eal_cleanup();
		json_decref(p->jresults);
		free(p);
		return 1;
	}
	if (p->o.iwarp && p->o.tcp_kernel)
		goto open_iwarp;        /* kernel sockets: no DPDK port */
	p->io = rk_io_dpdk_open(&cfg);
	if (p->io == NULL) {
		rc = errno;
		if (rc == EINTR)
			fprintf(stderr, "rk-perf: error: interrupted: port %s was still waiting "
				"for its peer\n", p->o.dev != NULL ? p->o.dev : "0");
		else
			fprintf(stderr, "rk-perf: cannot open port %s: %s\n",
				p->o.dev != NULL ? p->o.dev : "0", rk_io_dpdk_open_strerror(rc));
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
	p->ctx = rk_open_device(&rk_io_dpdk_ops, p->io, &da);
	if (p->ctx == NULL) {
		fprintf(stderr, "rk-perf: cannot open the RDMA device: %s\n", strerror(errno));
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
	if (p->iw != NULL) {
		/* The streams' FINs leave before lwIP goes. */
		for (uint64_t t = now_ns() + 50000000ull; now_ns() < t;)
			perf_idle(p, 0);
		perf_iw_close(p->iw);
		p->iw = NULL;
	}
	if (p->jresults != NULL)
		json_decref(p->jresults);
	if (p->io != NULL && rk_io_dpdk_close(p->io) != 0) {
		fprintf(stderr, "rk-perf: error: the recording %s is incomplete\n",
			p->o.pcap_path);
		rc = 1;
	}
	if (p->fd >= 0)
		close(p->fd);
	if (p->lfd >= 0)
		close(p->lfd);
	/*
	 * No rte_eal_cleanup(): the ports are closed and the recording is
	 * written; with --no-huge, 22.11's cleanup sometimes reports
	 * "Invalid memory" after large runs, and exit releases everything.
	 */
	free(p);
	return rc;
}
