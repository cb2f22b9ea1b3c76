/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-perf's session: the out-of-band exchange (hello, refusal, the phase
 * messages) and the phases of either role, each run by the test's engine.
 * The client drives every phase; the server takes its parameters.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>

#include "perf.h"

/* The out-of-band waits' callback: progress; non-zero ends the wait (-EINTR). */
int
perf_serve(void *arg)
{
	struct perf *p = arg;
	int n = p->ctx != NULL ? rk_progress(p->ctx) :
		p->io != NULL ? rk_io_dpdk_service(p->io) : 0;

	/* --run_infinitely: a signal ends the client's run, between messages too. */
	if (rk_app_stop && !perf_soft_stop(p))
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
	rc = rk_oob_send(p->fd, b, sizeof(b));
	if (rc != 0)
		return fail(p, "out-of-band send failed: %s", strerror(-rc));
	return 0;
}

/* The rest of an error cut in a MSG_END or MSG_ABORT, 127 bytes a message. */
static void
send_end_text(struct perf *p)
{
	const size_t chunk = sizeof(((struct perf_msg *)NULL)->text) - 1;

	for (size_t off = chunk; off <= strlen(p->err); off += chunk) {
		struct perf_msg m = { .type = MSG_END_TEXT, .status = 1 };
		uint8_t b[OOB_MSG_LEN];

		snprintf(m.text, sizeof(m.text), "%s", p->err + off);
		oob_encode_msg(&m, b);
		if (rk_oob_send(p->fd, b, sizeof(b)) != 0)
			return;
	}
}

/*
 * The peer's error of @p end (a MSG_END or MSG_ABORT), with the
 * MSG_END_TEXT that follow a text cut at 127 bytes (an older peer sends
 * none: the wait ends at its close), into @p why.
 */
static void
recv_end_text(struct perf *p, const struct perf_msg *end, char *why, size_t len)
{
	const size_t chunk = sizeof(end->text) - 1;
	size_t k = (size_t)snprintf(why, len, "%s", end->text);
	struct perf_msg m = *end;

	while (strlen(m.text) == chunk && k + 1 < len) {
		uint8_t b[OOB_MSG_LEN];

		if (rk_oob_recv(p->fd, b, sizeof(b), p->o.oob_timeout_s, perf_serve, p) != 0)
			return;
		oob_decode_msg(&m, b);
		if (m.type != MSG_END_TEXT)
			return;
		k += (size_t)snprintf(why + k, len - k, "%s", m.text);
	}
}

static int
recv_msg(struct perf *p, struct perf_msg *m, double timeout_s, uint32_t want)
{
	uint8_t b[OOB_MSG_LEN];
	int rc = rk_oob_recv(p->fd, b, sizeof(b), timeout_s, perf_serve, p);

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
	if (!p->o.server && m->type == MSG_ABORT) {
		char why[sizeof(p->err)];

		recv_end_text(p, m, why, sizeof(why));
		return fail(p, "the server stopped: %s", why[0] != '\0' ? why : "no reason given");
	}
	if (want != 0 && m->type != want)
		return fail(p, "unexpected out-of-band message %u (expected %u)", m->type, want);
	return 0;
}

/* Whether the client sent a message; a syscall, so asked at most every 200 us. */
bool
oob_due(struct perf *p)
{
	static uint64_t next;
	uint64_t now = now_ns();

	if (now < next)
		return false;
	next = now + 200000;
	return rk_oob_readable(p->fd);
}

/*
 * Client, in a phase: the server sent something (it sends nothing then
 * unless it stopped: MSG_ABORT says why) or closed the connection.
 */
int
server_stopped(struct perf *p)
{
	struct perf_msg m;

	if (recv_msg(p, &m, p->o.oob_timeout_s, 0) != 0)
		return -1;
	return fail(p, "unexpected out-of-band message %u from the server during the run",
		    m.type);
}

/* Wait until the peer closes @p fd (EOF), an error, or @p ms pass. */
void
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
 * perftest's -w and -y: the first size whose average falls below the
 * limit, into @p why (the run goes on, as perftest's does).
 */
static void
check_limits(const struct perf *p, const struct perf_result *r, char *why, size_t len)
{
	double k = p->o.report_gbits ? 8e-9 : 1.0 / 1048576.0;

	if (why[0] != '\0')
		return;
	if (p->o.limit_bw > 0 && r->bw_avg_Bps * k < p->o.limit_bw)
		snprintf(why, len, "BW average %.2f %s at %u bytes is below -w, --limit_bw %g",
			 r->bw_avg_Bps * k, p->o.report_gbits ? "Gb/sec" : "MB/sec", r->bytes,
			 p->o.limit_bw);
	else if (p->o.limit_msgrate > 0 && r->msg_rate / 1e6 < p->o.limit_msgrate)
		snprintf(why, len, "message rate %.6f Mpps at %u bytes is below -y, "
			 "--limit_msgrate %g", r->msg_rate / 1e6, r->bytes, p->o.limit_msgrate);
}

/*
 * -b: the server's direction (its MSG_RESULT: messages, nanoseconds, peak
 * in B/s) added to this end's, as perftest sums both ends' reports.
 */
static void
add_peer_direction(const struct perf *p, const struct perf_msg *res, struct perf_result *r)
{
	double s = (double)res->iters[1] * 1e-9;
	double bw = s > 0 ? (double)res->iters[0] * msg_bytes(p, r->bytes) / s : 0;

	r->peer_bw_avg_Bps = bw;
	r->bw_avg_Bps += bw;
	r->bw_peak_Bps += p->o.no_peak ? 0 : (double)res->iters[2];
	r->msg_rate += s > 0 ? (double)res->iters[0] / s : 0;
}

int
client_phases(struct perf *p)
{
	struct perf_msg m = { 0 }, res;
	char below[160] = "";
	int rc = 0;

	if (!p->o.json) {
		report_header(&p->o, &p->local, &p->remote, 0);
		report_columns(&p->o);
	}
	/* --run_infinitely: the one size again, an interval each, until a signal. */
	for (uint32_t i = 0; i < p->nsizes && rc == 0; i += p->o.run_infinitely ? 0 : 1) {
		uint32_t size = p->sizes[i];
		struct perf_result r = { 0 };

		p->e->prepare(p, size);
		m = (struct perf_msg){ .type = MSG_PHASE, .size = size };
		if (send_msg(p, &m) != 0 || recv_msg(p, &res, p->o.oob_timeout_s, MSG_READY) != 0)
			return -1;
		perf_event(p);
		p->moved = false;
		rc = p->e->run(p, size, &r);
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
		if (rc != 0) {
			send_end_text(p);
			return -1;
		}
		if (recv_msg(p, &res, p->o.oob_timeout_s, MSG_RESULT) != 0)
			return -1;
		if (res.status != 0)
			return fail(p, "server: %s", res.text);
		if (p->o.bidir)
			add_peer_direction(p, &res, &r);
		if (p->o.json)
			add_json_result(p, &r);
		else
			report_line(&p->o, &r);
		check_limits(p, &r, below, sizeof(below));
		if (p->o.run_infinitely && rk_app_stop)
			break;
	}
	m = (struct perf_msg){ .type = MSG_BYE };
	if (send_msg(p, &m) != 0)
		return -1;
	if (!p->o.json) {
		report_footer();
		if (p->o.verify)
			printf(" verify: all data checked, no errors\n");
		if (p->o.counters && below[0] == '\0')
			print_counters(p);
	}
	/* perftest: "BW result is below bw limit", after the whole run. */
	if (below[0] != '\0')
		return fail(p, "%s", below);
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
	if (g->bidir && !o->bidir)
		note_item(line, n, &k, "no -b: the client's direction only");
	if (k > 0)
		fprintf(stderr, "rk-perf: note: the client's parameters apply: %s\n", line);
}

int
server_phases(struct perf *p)
{
	note_adopted(p);
	if (!p->o.json) {
		report_header(&p->o, &p->local, &p->remote, 0);
		printf(" waiting for the client's phases\n");
		/* -b: a line of this end's direction per phase. */
		if (p->o.bidir)
			report_columns(&p->o);
	}
	for (;;) {
		struct perf_msg m, res = { .type = MSG_RESULT };
		struct perf_result own = { 0 };
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
		p->e->prepare(p, size);
		m.type = MSG_READY;
		if (send_msg(p, &m) != 0)
			return -1;
		perf_event(p);
		p->moved = false;
		/* -b: the test towards the client as well; its WRITEs/READs need no serving. */
		rc = p->o.bidir ? p->e->run(p, size, &own) : p->e->serve(p, size);
		if (rc != 0)
			return -1;
		if (recv_msg(p, &m, p->o.oob_timeout_s + (p->o.bidir ? p->o.timeout_s : 0),
			     MSG_END) != 0)
			return -1;
		if (m.status != 0) {
			char why[sizeof(p->err)];

			recv_end_text(p, &m, why, sizeof(why));
			return fail(p, "the client stopped with an error%s%s",
				    why[0] != '\0' ? ": " : "", why);
		}
		p->e->verify(p, size, &m, &res);
		if (p->o.bidir && res.status == 0) {
			/* This end's direction, for the client's sum (perftest's -b report). */
			res.iters[0] = own.iters;
			res.iters[1] = (uint64_t)(own.seconds * 1e9);
			res.iters[2] = (uint64_t)own.bw_peak_Bps;
		}
		if (send_msg(p, &res) != 0)
			return -1;
		if (res.status != 0)
			return fail(p, "%s", res.text);
		if (p->o.bidir && !p->o.json)
			report_line(&p->o, &own);
		else if (!p->o.json)
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

/* The options the client's hello carries and the server takes as they are. */
#define HELLO_OPTS(X) X(verify) X(atomic_cas) X(mtu) X(qps) X(tx_depth) X(rx_depth) X(iters)
#define TO_HELLO(f) h->f = p->o.f;
#define FROM_HELLO(f) p->o.f = h->f;

static void
fill_hello(struct perf *p)
{
	struct perf_hello *h = &p->local;

	h->verb = (uint8_t)p->o.verb;
	h->mode = (uint8_t)p->o.mode;
	HELLO_OPTS(TO_HELLO)
	h->nsizes = p->nsizes;
	memcpy(h->sizes, p->sizes, sizeof(h->sizes));
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
	h->bidir = p->o.bidir;
	h->ext = p->o.have_ip6 || p->o.bidir;
}

/*
 * Receive a hello and its extension, if one is announced. The client may
 * get a refusal instead (OOB_REFUSE_LEN): -ECONNREFUSED, with p->refusal
 * (version 0 and no text when cut short).
 */
static int
recv_hello(struct perf *p, uint8_t *b)
{
	int rc = rk_oob_recv(p->fd, b, 4, p->o.oob_timeout_s, perf_serve, p);

	if (rc != 0)
		return rc;
	if (!p->o.server && oob_is_refusal(b)) {
		memset(&p->refusal, 0, sizeof(p->refusal));
		if (rk_oob_recv(p->fd, b + 4, OOB_REFUSE_LEN - 4, p->o.oob_timeout_s, perf_serve, p) == 0)
			oob_decode_refusal(&p->refusal, b);
		return -ECONNREFUSED;
	}
	rc = rk_oob_recv(p->fd, b + 4, OOB_HELLO_LEN - 4, p->o.oob_timeout_s, perf_serve, p);
	if (rc != 0)
		return rc;
	oob_decode_hello(&p->remote, b);
	if (oob_hello_ext_len(b) == 0)
		return 0;
	rc = rk_oob_recv(p->fd, b + OOB_HELLO_LEN, OOB_HELLO_EXT_LEN, p->o.oob_timeout_s, perf_serve, p);
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
 * exhausted). RoCE: a full path-MTU packet with the 80 bytes of headers
 * rk_modify_qp() reserves (as rxe does), whatever the message sizes, so
 * that the advice given here is enough for the QP as well.
 */
static int
check_frame_size(struct perf *p)
{
	uint32_t frame;
	char why[256];

	if (p->io == NULL)
		return 0;
	if (!p->o.iwarp)
		return rk_app_roce_frame_check(p->io, p->o.mtu, "-m", why, sizeof(why)) != 0 ?
		       fail(p, "%s", why) : 0;
	/* lwIP's segments fill its interface MTU (at most 1500). */
	frame = 14 + (p->o.mtu > 1500 ? 1500 : p->o.mtu);
	if (rk_io_dpdk_check_frame(p->io, frame, why, sizeof(why)) != 0)
		return fail(p, "frames of %u bytes (-m %u): %s", frame, p->o.mtu, why);
	return 0;
}

/* The server takes the client's parameters. */
static int
adopt(struct perf *p, const struct perf_hello *h)
{
	if (h->verb > VERB_ATOMIC || h->mode > MODE_LAT || h->qps == 0 ||
	    h->qps > PERF_MAX_QPS || h->nsizes == 0 || h->nsizes > PERF_MAX_SIZES ||
	    (p->credits && (!p->o.iwarp || h->verb != VERB_SEND || h->mode != MODE_BW)) ||
	    (h->bidir && (p->o.iwarp || h->mode != MODE_BW || h->verify ||
			  (h->verb != VERB_WRITE && h->verb != VERB_READ))))
		return fail(p, "bad parameters from the client");
	p->o.bidir = h->bidir;
	p->o.verb = h->verb;
	p->o.mode = h->mode;
	p->e = perf_engine_of(p->o.verb, p->o.mode);
	HELLO_OPTS(FROM_HELLO)
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
	if (rk_oob_send(p->fd, b, sizeof(b)) == 0 && shutdown(p->fd, SHUT_WR) == 0)
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

int
exchange(struct perf *p)
{
	uint8_t b[OOB_HELLO_MAX_LEN];
	char ip[INET6_ADDRSTRLEN];
	size_t n;
	int rc;

	if (p->o.server) {
		rc = rk_oob_accept(p->lfd, p->o.oob_timeout_s, &p->fd, perf_serve, p);
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
		rc = rk_oob_connect(p->o.server_host, p->o.tcp_port, p->o.oob_timeout_s, &p->fd,
				 perf_serve, p);
		if (rc == -EINTR)
			return fail(p, "interrupted");
		if (rc == -ECONNREFUSED)
			return fail(p, "no server listened on %s:%u within %g s (connection "
				    "refused)", p->o.server_host, p->o.tcp_port, p->o.oob_timeout_s);
		if (rk_oob_resolve_failed(rc))
			return fail(p, "cannot resolve the server name %s: %s", p->o.server_host,
				    rk_oob_strerror(rc));
		if (rc != 0)
			return fail(p, "cannot reach the server %s:%u within %g s: %s",
				    p->o.server_host, p->o.tcp_port, p->o.oob_timeout_s,
				    strerror(-rc));
		n = oob_encode_hello_all(&p->local, b);
		if ((rc = rk_oob_send(p->fd, b, n)) != 0)
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
		if (p->o.bidir && !p->remote.bidir)
			return fail(p, "the server did not take -b (bidirectional)");
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
			if ((rc = rk_oob_send(p->fd, b, n)) != 0)
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
		if ((rc = rk_oob_send(p->fd, b, n)) != 0)
			return fail(p, "out-of-band send failed: %s", strerror(-rc));
		p->hello_sent = true;
	}
	return 0;
}

/*
 * Server, after its hello: tell the client why this end stops (it would
 * otherwise see only the close, or nothing until its --timeout).
 */
void
abort_client(struct perf *p)
{
	struct perf_msg m = { .type = MSG_ABORT, .status = 1 };

	if (!p->o.server || !p->hello_sent || p->fd < 0)
		return;
	snprintf(m.text, sizeof(m.text), "%.127s", p->err[0] != '\0' ? p->err : "failed");
	if (send_msg(p, &m) == 0)
		send_end_text(p);
}
