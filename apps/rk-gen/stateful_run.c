/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-gen's stateful session: the hello both ways (the responder answers
 * once its QPs are in RTS), ARP, the traffic with a line a second, the
 * end of the run over the exchange (client: "RKGD" and the WRITEs and
 * SENDs it completed; responder: "RKGR" and what it received and found
 * wrong), then the report: totals, the engine's counters named as NIC
 * counters, the worst QPs (stateful_report.c); or JSON. A responder of
 * --clients K serves K clients at once on its one port, a set, exchange
 * and report each (stateful_many.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <stdarg.h>

#include <jansson.h>

#include "rk_app.h"
#include "rk_app_oob.h"
#include "rk_byteorder.h"
#include "stateful_run.h"

#define END_LEN 36

int
rk_sf_serve(void *arg)
{
	struct rk_sf_run *r = arg;

	rk_io_dpdk_idle(r->io, rk_progress(r->ctx));
	return rk_app_stop ? 1 : 0;
}

/* The last error, for a refusal to tell the client why (rk_sf_refuse()). */
static char last_err[RK_GEN_REFUSAL_MAX + 1];

static int
vfail(const char *fmt, va_list ap)
{
	vsnprintf(last_err, sizeof(last_err), fmt, ap);
	fprintf(stderr, "rk-gen: error: %s\n", last_err);
	return 1;
}

int
rk_sf_fail(const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail(fmt, ap);
	va_end(ap);
	return rc;
}

int
rk_sf_fail_rc(int err, const char *fmt, ...)
{
	va_list ap;
	int rc;

	/* SIGINT or SIGTERM: said as rk-perf says it, not as strerror(EINTR) */
	if (err == -EINTR)
		return rk_sf_fail("interrupted");
	va_start(ap, fmt);
	rc = vfail(fmt, ap);
	va_end(ap);
	return rc;
}

/* Responder: tell the client on @p fd why it is not served (rk_gen_hello.h), best effort. */
void
rk_sf_refuse(int fd)
{
	uint8_t b[RK_GEN_HELLO_HDR_LEN + RK_GEN_REFUSAL_MAX];
	long n = rk_gen_refusal_encode(last_err, b, sizeof(b));

	if (fd >= 0 && n > 0)
		(void)rk_oob_send(fd, b, (size_t)n);
}

int
rk_sf_send_hello(struct rk_sf_run *r, const struct rk_gen_hello *cfg, uint8_t role,
	   struct rk_gen_hello_qp *local)
{
	struct rk_gen_hello h = *cfg;
	size_t n = rk_gen_hello_len(cfg->count);
	uint8_t *b = malloc(n);
	long len;
	int rc;

	if (b == NULL)
		return -ENOMEM;
	h.role = role;
	h.ip_version = 4;
	rk_io_dpdk_mac(r->io, h.mac);
	memset(h.ip, 0, sizeof(h.ip));
	h.ip[10] = h.ip[11] = 0xff;
	memcpy(h.ip + 12, r->o->ip, 4);
	h.ip_count = role == RK_GEN_HELLO_CLIENT ? r->o->ip_count : 1;
	h.qp = local;
	len = rk_gen_hello_encode(&h, b, n);
	rc = len < 0 ? (int)len : rk_oob_send(r->fd, b, (size_t)len);
	free(b);
	return rc;
}

/* Receive a hello of at most @p max QPs into @p h, its entries into r->remote. */
int
rk_sf_recv_hello(struct rk_sf_run *r, struct rk_gen_hello *h, uint32_t max, const char *who)
{
	uint8_t hdr[RK_GEN_HELLO_HDR_LEN], *b;
	uint32_t count;
	size_t n;
	int (*wait)(void *) = r->wait_fn != NULL ? r->wait_fn : rk_sf_serve;
	void *warg = r->wait_fn != NULL ? r->wait_arg : r;
	int rc = rk_oob_recv(r->fd, hdr, sizeof(hdr), r->o->timeout_s, wait, warg);

	if (rc != 0)
		return rk_sf_fail_rc(rc, "no hello from the %s: %s", who, strerror(-rc));
	if ((rc = rk_gen_refusal_peek(hdr, sizeof(hdr))) >= 0) {
		char why[RK_GEN_REFUSAL_MAX + 1] = "";

		if (rc > 0 && rk_oob_recv(r->fd, why, (size_t)rc, r->o->timeout_s, wait, warg) != 0)
			rc = 0;
		why[rc] = 0;
		return rk_sf_fail("the %s refused this client: %s", who, rc > 0 ? why : "no reason given");
	}
	rc = rk_gen_hello_peek(hdr, sizeof(hdr), &count);
	if (rc == -EPROTO)
		return rk_sf_fail("the %s's hello is not rk-gen's stateful one (magic)", who);
	if (rc == -EPROTONOSUPPORT)
		return rk_sf_fail("the %s's hello is of version %u; this rk-gen speaks %u and %u",
				  who, rk_get_be16(hdr + 4), RK_GEN_HELLO_VERSION,
				  RK_GEN_HELLO_VERSION_ADDRS);
	if (rc != 0)
		return rk_sf_fail("the %s's hello: bad QP count", who);
	if (count > max)
		return rk_sf_fail("the %s asks for %u QP%s; this end takes at most %u (--qps)",
				  who, count, count == 1 ? "" : "s", max);
	n = rk_gen_hello_len(count);
	b = malloc(n);
	r->remote = calloc(count, sizeof(*r->remote));
	if (b == NULL || r->remote == NULL) {
		free(b);
		return rk_sf_fail("out of memory for %u QP%s", count, count == 1 ? "" : "s");
	}
	memcpy(b, hdr, sizeof(hdr));
	rc = rk_oob_recv(r->fd, b + sizeof(hdr), n - sizeof(hdr), r->o->timeout_s, wait, warg);
	if (rc == 0)
		rc = rk_gen_hello_decode(b, n, h, r->remote, count);
	free(b);
	if (rc != 0)
		return rk_sf_fail("the %s's hello: %s", who, strerror(-rc));
	memcpy(r->peer_mac, h->mac, 6);
	memcpy(r->peer_ip, h->ip + 12, 4);
	r->peer_ip_count = h->ip_count > 1 ? h->ip_count : 1;
	return 0;
}

/*
 * The Local ACK Timeout exponent (4.096 us * 2^t, IBTA Vol1 9.7.6.1.3):
 * one port carries every QP's window, so an ACK waits behind up to
 * count * depth messages; 67 ms (perftest's 14) per 1024 of them,
 * doubling with the load, at most 4.3 s (20). --ack-timeout overrides.
 */
static uint8_t
ack_timeout(const struct rk_sf_run *r)
{
	uint64_t load = (uint64_t)r->s.n * r->s.cfg.depth;
	uint8_t t = 14;

	if (r->o->ack_timeout != 0)
		return r->o->ack_timeout;
	while (load > 1024 && t < 20) {
		load = (load + 1) / 2;
		t++;
	}
	return t;
}

int
rk_sf_resolve_connect(struct rk_sf_run *r)
{
	uint8_t dip[16] = { [10] = 0xff, [11] = 0xff };
	char ip[16];
	int rc = rk_io_dpdk_resolve(r->io, r->peer_ip, r->peer_mac,
				    (uint32_t)(r->o->timeout_s * 1000));

	inet_ntop(AF_INET, r->peer_ip, ip, sizeof(ip));
	if (rc != 0)
		return rk_sf_fail_rc(rc, "the peer %s did not answer ARP: %s", ip, strerror(-rc));
	memcpy(dip + 12, r->peer_ip, 4);
	/* a client of several addresses answers for each (a responder of several
	 * clients asked already, serving the others meanwhile) */
	for (uint32_t k = 1; r->wait_fn == NULL && k < r->peer_ip_count; k++) {
		uint8_t a[16], mac[6];

		rk_sf_addr(dip, r->peer_ip_count, k, a);
		rc = rk_io_dpdk_resolve(r->io, a + 12, mac, (uint32_t)(r->o->timeout_s * 1000));
		inet_ntop(AF_INET, a + 12, ip, sizeof(ip));
		if (rc != 0)
			return rk_sf_fail("the peer's address %s did not answer ARP: %s", ip,
					  strerror(-rc));
	}
	r->s.ndip = r->peer_ip_count;
	if (!r->s.responder && r->o->ip_count > 1) {
		memset(r->s.sip, 0, sizeof(r->s.sip));
		r->s.sip[10] = r->s.sip[11] = 0xff;
		memcpy(r->s.sip + 12, r->o->ip, 4);
		r->s.nsip = r->o->ip_count;
	}
	r->s.dscp = r->o->dscp;
	r->s.ndscp = r->o->ndscp;
	if (rk_sf_connect(&r->s, r->remote, r->peer_mac, dip, ack_timeout(r), 7) != 0)
		return rk_sf_fail("%s", r->s.err);
	for (uint32_t i = 0; r->o->dcqcn && i < r->s.n; i++) {
		/* The RP starts at rpg_max_rate, else at 100 Gb/s (as rk-perf's). */
		const struct rk_dcqcn_params *p = &r->o->dcqcn_p;
		int cc = rk_ib_qp_set_cc(rk_qp_ib(r->s.q[i].qp), "dcqcn", p,
					 p->rpg_max_rate ? p->rpg_max_rate : 100000);

		if (cc != 0)
			return rk_sf_fail("--dcqcn on QP %u: %s", i, strerror(-cc));
	}
	return 0;
}

uint64_t
rk_sf_retransmitted(const struct rk_sf_run *r)
{
	return rk_context_stats(r->ctx)->req_retx_pkts;
}

/* The line a second on stderr. */
static void
line(struct rk_sf_run *r, uint64_t now, uint64_t *last_ns, uint64_t *last_msgs,
     uint64_t *last_bytes)
{
	double dt = (double)(now - *last_ns) / 1e9;

	char out[48] = "";

	/* the responder has nothing outstanding of its own */
	if (!r->s.responder)
		snprintf(out, sizeof(out), "  outstanding %" PRIu64, rk_sf_outstanding(&r->s));
	fprintf(stderr, "rk-gen: %5.1f s: %10.0f msg/s %8.3f Gbit/s  messages %" PRIu64
		"%s  errors %" PRIu64 "  retransmitted %" PRIu64 "\n",
		(double)(now - r->t0_ns) / 1e9, (double)(r->s.t.msgs - *last_msgs) / dt,
		(double)(r->s.t.bytes - *last_bytes) * 8 / dt / 1e9, r->s.t.msgs, out,
		r->s.t.data_err + r->s.t.seq_err, rk_sf_retransmitted(r));
	*last_ns = now;
	*last_msgs = r->s.t.msgs;
	*last_bytes = r->s.t.bytes;
}

/* Traffic until done (client) or the client's end message (responder). */
static int
traffic_loop(struct rk_sf_run *r)
{
	const struct rk_sf_opts *o = r->o;
	uint64_t now = rk_io_dpdk_now_ns(), last_ns = now, last_msgs = 0, last_bytes = 0;
	uint64_t stop_ns = o->duration_s > 0 ? now + (uint64_t)(o->duration_s * 1e9) : 0;
	uint64_t moved_ns = now, mark = 0, drain_until = 0, oob_next_ns = 0;

	r->t0_ns = now;
	r->series.t0_ns = now;
	r->series.last_ns = now;
	for (;;) {
		int ev = rk_sf_step(&r->s, 4096);

		if (ev < 0)
			return rk_sf_fail("%s", r->s.err);
		now = rk_io_dpdk_now_ns();
		if (ev > 0 || rk_sf_outstanding(&r->s) == 0)
			moved_ns = now;
		else if (now - moved_ns > 10000000ull) {
			uint64_t m = 0;

			for (uint32_t i = 0; i < r->s.n; i++)
				m += rk_qp_progress(r->s.q[i].qp);
			if (m != mark)
				moved_ns = now;
			mark = m;
		}
		if (now - moved_ns > (uint64_t)(o->timeout_s * 1e9))
			return rk_sf_fail("no progress for %g s (%" PRIu64 " messages outstanding)",
				    o->timeout_s, r->s.responder ? 0 : rk_sf_outstanding(&r->s));
		if (now - last_ns >= 1000000000ull)
			line(r, now, &last_ns, &last_msgs, &last_bytes);
		if (o->interval_ns && now - r->series.last_ns >= o->interval_ns)
			rk_sf_series_row(r, r->series.last_ns + o->interval_ns);
		if (r->s.responder) {
			/* a system call: every 10 ms, not every pass */
			if (now >= oob_next_ns) {
				oob_next_ns = now + 10000000ull;
				if (rk_oob_readable(r->fd))
					break;
			}
		} else {
			if (!r->s.stopping && (rk_app_stop || (stop_ns != 0 && now >= stop_ns))) {
				r->s.stopping = true;
				drain_until = now + (uint64_t)(o->timeout_s * 1e9);
			}
			if (rk_sf_all_done(&r->s) || (r->s.stopping && rk_sf_outstanding(&r->s) == 0))
				break;
			if (drain_until != 0 && now > drain_until)
				return rk_sf_fail("%" PRIu64 " messages still outstanding %g s after the end",
					    rk_sf_outstanding(&r->s), o->timeout_s);
		}
		if (r->s.responder && rk_app_stop)
			return rk_sf_fail("interrupted");
		rk_io_dpdk_idle(r->io, ev);
	}
	return 0;
}

/* traffic_loop(), its end time set on every exit: a failed run's rates are real too */
static int
traffic(struct rk_sf_run *r)
{
	int rc = traffic_loop(r);

	r->t_end_ns = rk_io_dpdk_now_ns();
	/* the last interval, as far as it went */
	if (r->o->interval_ns && r->t_end_ns > r->series.last_ns)
		rk_sf_series_row(r, r->t_end_ns);
	return rc;
}

static void
put_end(uint8_t *b, const char *magic, const struct rk_sf_totals *t, uint64_t msgs)
{
	memcpy(b, magic, 4);
	rk_put_be64(b + 4, msgs);
	rk_put_be64(b + 12, t->data_err);
	rk_put_be64(b + 20, t->seq_err);
	rk_put_be64(b + 28, t->overwritten);
}

/* Client of rk-gen's responder: the hellos both ways, the QPs connected. */
static int
rkgen_open(struct rk_sf_run *r, struct rk_gen_hello_qp *local)
{
	const struct rk_sf_opts *o = r->o;
	struct rk_gen_hello peer = o->cfg;
	int rc = rk_oob_connect(o->server, o->oob_port, o->timeout_s, &r->fd, rk_sf_serve, r);

	if (rc != 0)
		return rk_sf_fail_rc(rc, "cannot reach the responder %s:%u: %s", o->server,
				     o->oob_port, rk_oob_strerror(rc));
	if ((rc = rk_sf_send_hello(r, &peer, RK_GEN_HELLO_CLIENT, local)) != 0)
		return rk_sf_fail("out-of-band send: %s", strerror(-rc));
	if (rk_sf_recv_hello(r, &peer, peer.count, "responder") != 0)
		return 1;
	if (peer.count != o->cfg.count || peer.role != RK_GEN_HELLO_RESPONDER)
		return rk_sf_fail("the responder answered for %u QP%s", peer.count,
				  peer.count == 1 ? "" : "s");
	return rk_sf_resolve_connect(r);
}

/* Client: tell what completed, hear what arrived. */
static int
client_end(struct rk_sf_run *r)
{
	uint8_t b[END_LEN];
	int rc;

	put_end(b, "RKGD", &r->s.t, r->s.t.msgs_op[0] + r->s.t.msgs_op[2]);
	rc = rk_oob_send(r->fd, b, sizeof(b));
	if (rc == 0)
		rc = rk_oob_recv(r->fd, b, sizeof(b), r->o->timeout_s, rk_sf_serve, r);
	if (rc != 0)
		return rk_sf_fail_rc(rc, "no result from the responder: %s", strerror(-rc));
	if (memcmp(b, "RKGR", 4) != 0)
		return rk_sf_fail("the responder's result is not rk-gen's");
	r->peer_msgs = rk_get_be64(b + 4);
	r->peer_data_err = rk_get_be64(b + 12);
	r->peer_seq_err = rk_get_be64(b + 20);
	r->peer_overwritten = rk_get_be64(b + 28);
	r->peer_known = true;
	return 0;
}

/* Responder: take the client's count, receive up to it, answer. */
int
rk_sf_responder_end(struct rk_sf_run *r)
{
	uint8_t b[END_LEN];
	uint64_t until;
	int rc = rk_oob_recv(r->fd, b, sizeof(b), r->o->timeout_s, rk_sf_serve, r);

	if (rc != 0 || memcmp(b, "RKGD", 4) != 0)
		return rk_sf_fail("the client ended without its count: %s", rc ? strerror(-rc) : "bad");
	r->peer_msgs = rk_get_be64(b + 4);
	r->peer_known = true;
	until = rk_io_dpdk_now_ns() + (uint64_t)(r->o->timeout_s * 1e9);
	/* its completions mean this end's transport took them: the CQ holds the rest */
	while (r->s.t.msgs < r->peer_msgs && rk_io_dpdk_now_ns() < until && !rk_app_stop)
		if (rk_sf_step(&r->s, 0) < 0)
			return rk_sf_fail("%s", r->s.err);
	put_end(b, "RKGR", &r->s.t, r->s.t.msgs);
	rc = rk_oob_send(r->fd, b, sizeof(b));
	if (rc != 0)
		return rk_sf_fail("cannot send the result: %s", strerror(-rc));
	return 0;
}


/* Both ends' figures agree, nothing wrong. */
int
rk_sf_verdict(const struct rk_sf_run *r)
{
	const struct rk_sf_totals *t = &r->s.t;
	uint64_t mine = r->s.responder ? t->msgs : t->msgs_op[0] + t->msgs_op[2];

	if (t->data_err || t->seq_err || t->wc_err)
		return rk_sf_fail("%" PRIu64 " messages with wrong data, %" PRIu64 " out of sequence",
			    t->data_err, t->seq_err);
	if (!r->s.responder && (r->peer_data_err || r->peer_seq_err))
		return rk_sf_fail("the responder found %" PRIu64 " messages with wrong data, %" PRIu64
			    " out of sequence", r->peer_data_err, r->peer_seq_err);
	if (r->peer_known && r->peer_msgs != mine)
		return rk_sf_fail("the client completed %" PRIu64 " WRITE+SEND messages, the responder "
			    "received %" PRIu64, r->s.responder ? r->peer_msgs : mine,
			    r->s.responder ? mine : r->peer_msgs);
	return 0;
}


int
rk_sf_session(struct rk_sf_run *r)
{
	const struct rk_sf_opts *o = r->o;
	struct rk_gen_hello peer;
	struct rk_gen_hello_qp *local;
	int rc;
	double secs;

	if (o->responder && o->clients > 1)
		return rk_sf_responder_many(r);
	if (o->responder) {
		rc = rk_oob_accept(r->lfd, 3600, &r->fd, rk_sf_serve, r);
		r->lfd = -1;
		if (rc != 0)
			return rk_sf_fail_rc(rc, "no client: %s", strerror(-rc));
		if (rk_sf_recv_hello(r, &peer, o->max_qps, "client") != 0) {
			rk_sf_refuse(r->fd);
			return 1;
		}
		if (peer.role != RK_GEN_HELLO_CLIENT) {
			rk_sf_fail("the peer's hello is not a client's");
			rk_sf_refuse(r->fd);
			return 1;
		}
	} else {
		peer = o->cfg;
	}
	local = calloc(peer.count, sizeof(*local));
	if (local == NULL || rk_sf_create(&r->s, r->ctx, &peer, o->responder, local) != 0) {
		if (local == NULL)
			rk_sf_fail("out of memory for %u QP%s", peer.count,
				   peer.count == 1 ? "" : "s");
		else
			rk_sf_fail("%s", r->s.err);
		free(local);
		if (o->responder)
			rk_sf_refuse(r->fd);
		return 1;
	}
	r->s.iters = o->iters;
	if (!o->responder && rk_sf_latency_on(&r->s, rk_io_dpdk_now_ns) != 0) {
		free(local);
		return rk_sf_fail("out of memory for the latency of %u QP%s", peer.count,
				  peer.count == 1 ? "" : "s");
	}
	if (o->responder) {
		rc = rk_sf_resolve_connect(r);
		if (rc != 0)
			rk_sf_refuse(r->fd);
		else if ((rc = rk_sf_send_hello(r, &peer, RK_GEN_HELLO_RESPONDER, local)) != 0)
			rc = rk_sf_fail("out-of-band send: %s", strerror(-rc));
	} else
		rc = o->peer->open(r, local);
	free(local);
	if (rc != 0)
		return 1;
	fprintf(stderr, "rk-gen: %u RC QP%s connected\n", r->s.n, r->s.n == 1 ? "" : "s");
	rc = traffic(r);
	if (rc == 0)
		rc = o->responder ? rk_sf_responder_end(r) : o->peer->end(r);
	if (rc == 0)
		rc = rk_sf_verdict(r);
	secs = r->t_end_ns > r->t0_ns ? (double)(r->t_end_ns - r->t0_ns) / 1e9 : 0;
	if (o->json)
		rk_sf_print_json(rk_sf_report_obj(r, secs, rc));
	else if (!rk_sf_csv_stdout(o))
		rk_sf_report_text(r, secs, rc);
	fflush(stdout);
	if (o->interval_ns && rk_sf_series_write(r) != 0 && rc == 0)
		rc = 1;
	free(r->series.v);
	free(r->series.row_lat);
	/* the last ACKs leave before the port goes */
	for (uint64_t t = rk_io_dpdk_now_ns() + 20000000ull; rk_io_dpdk_now_ns() < t;)
		rk_io_dpdk_idle(r->io, rk_progress(r->ctx));
	return rc;
}

const struct rk_sf_peer_ops rk_sf_peer_rkgen = {
	.name = "rk-gen", .open = rkgen_open, .end = client_end,
};
