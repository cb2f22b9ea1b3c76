/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-gen's stateful session: the hello both ways (the responder answers
 * once its QPs are in RTS), ARP, the traffic with a line a second, the
 * end of the run over the exchange (client: "RKGD" and the WRITEs and
 * SENDs it completed; responder: "RKGR" and what it received and found
 * wrong), then the report: totals, the engine's counters named as NIC
 * counters, the worst QPs; or JSON. A responder of --clients K serves K
 * clients at once on its one port, a set, exchange and report each.
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
#define MAX_COUNTERS 40

static int
serve(void *arg)
{
	struct rk_sf_run *r = arg;

	rk_io_dpdk_idle(r->io, rk_progress(r->ctx));
	return rk_app_stop ? 1 : 0;
}

static int
fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The last error, for a refusal to tell the client why (refuse()). */
static char last_err[RK_GEN_REFUSAL_MAX + 1];

static int
fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_err, sizeof(last_err), fmt, ap);
	va_end(ap);
	fprintf(stderr, "rk-gen: error: %s\n", last_err);
	return 1;
}

/* Responder: tell the client on @p fd why it is not served (rk_gen_hello.h), best effort. */
static void
refuse(int fd)
{
	uint8_t b[RK_GEN_HELLO_HDR_LEN + RK_GEN_REFUSAL_MAX];
	long n = rk_gen_refusal_encode(last_err, b, sizeof(b));

	if (fd >= 0 && n > 0)
		(void)rk_oob_send(fd, b, (size_t)n);
}

static int
send_hello(struct rk_sf_run *r, const struct rk_gen_hello *cfg, uint8_t role,
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
	h.qp = local;
	len = rk_gen_hello_encode(&h, b, n);
	rc = len < 0 ? (int)len : rk_oob_send(r->fd, b, (size_t)len);
	free(b);
	return rc;
}

/* Receive a hello of at most @p max QPs into @p h, its entries into r->remote. */
static int
recv_hello(struct rk_sf_run *r, struct rk_gen_hello *h, uint32_t max, const char *who)
{
	uint8_t hdr[RK_GEN_HELLO_HDR_LEN], *b;
	uint32_t count;
	size_t n;
	int (*wait)(void *) = r->wait_fn != NULL ? r->wait_fn : serve;
	void *warg = r->wait_fn != NULL ? r->wait_arg : r;
	int rc = rk_oob_recv(r->fd, hdr, sizeof(hdr), r->o->timeout_s, wait, warg);

	if (rc != 0)
		return fail("no hello from the %s: %s", who, strerror(-rc));
	if ((rc = rk_gen_refusal_peek(hdr, sizeof(hdr))) >= 0) {
		char why[RK_GEN_REFUSAL_MAX + 1] = "";

		if (rc > 0 && rk_oob_recv(r->fd, why, (size_t)rc, r->o->timeout_s, wait, warg) != 0)
			rc = 0;
		why[rc] = 0;
		return fail("the %s refused this client: %s", who, rc > 0 ? why : "no reason given");
	}
	rc = rk_gen_hello_peek(hdr, sizeof(hdr), &count);
	if (rc == -EPROTO)
		return fail("the %s's hello is not rk-gen's stateful one (magic)", who);
	if (rc == -EPROTONOSUPPORT)
		return fail("the %s's hello is of version %u; this rk-gen speaks %u", who,
			    rk_get_be16(hdr + 4), RK_GEN_HELLO_VERSION);
	if (rc != 0)
		return fail("the %s's hello: bad QP count", who);
	if (count > max)
		return fail("the %s asks for %u QPs; this end takes at most %u (--qps)", who,
			    count, max);
	n = rk_gen_hello_len(count);
	b = malloc(n);
	r->remote = calloc(count, sizeof(*r->remote));
	if (b == NULL || r->remote == NULL) {
		free(b);
		return fail("out of memory for %u QPs", count);
	}
	memcpy(b, hdr, sizeof(hdr));
	rc = rk_oob_recv(r->fd, b + sizeof(hdr), n - sizeof(hdr), r->o->timeout_s, wait, warg);
	if (rc == 0)
		rc = rk_gen_hello_decode(b, n, h, r->remote, count);
	free(b);
	if (rc != 0)
		return fail("the %s's hello: %s", who, strerror(-rc));
	memcpy(r->peer_mac, h->mac, 6);
	memcpy(r->peer_ip, h->ip + 12, 4);
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

static int
resolve_and_connect(struct rk_sf_run *r)
{
	uint8_t dip[16] = { [10] = 0xff, [11] = 0xff };
	char ip[16];
	int rc = rk_io_dpdk_resolve(r->io, r->peer_ip, r->peer_mac,
				    (uint32_t)(r->o->timeout_s * 1000));

	inet_ntop(AF_INET, r->peer_ip, ip, sizeof(ip));
	if (rc != 0)
		return fail("the peer %s did not answer ARP: %s", ip, strerror(-rc));
	memcpy(dip + 12, r->peer_ip, 4);
	r->s.dscp = r->o->dscp;
	r->s.ndscp = r->o->ndscp;
	if (rk_sf_connect(&r->s, r->remote, r->peer_mac, dip, ack_timeout(r), 7) != 0)
		return fail("%s", r->s.err);
	for (uint32_t i = 0; r->o->dcqcn && i < r->s.n; i++) {
		/* The RP starts at rpg_max_rate, else at 100 Gb/s (as rk-perf's). */
		const struct rk_dcqcn_params *p = &r->o->dcqcn_p;
		int cc = rk_ib_qp_set_cc(rk_qp_ib(r->s.q[i].qp), "dcqcn", p,
					 p->rpg_max_rate ? p->rpg_max_rate : 100000);

		if (cc != 0)
			return fail("--dcqcn on QP %u: %s", i, strerror(-cc));
	}
	return 0;
}

static uint64_t
retransmitted(const struct rk_sf_run *r)
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
		r->s.t.data_err + r->s.t.seq_err, retransmitted(r));
	*last_ns = now;
	*last_msgs = r->s.t.msgs;
	*last_bytes = r->s.t.bytes;
}

/* Traffic until done (client) or the client's end message (responder). */
static int
traffic(struct rk_sf_run *r)
{
	const struct rk_sf_opts *o = r->o;
	uint64_t now = rk_io_dpdk_now_ns(), last_ns = now, last_msgs = 0, last_bytes = 0;
	uint64_t stop_ns = o->duration_s > 0 ? now + (uint64_t)(o->duration_s * 1e9) : 0;
	uint64_t moved_ns = now, mark = 0, drain_until = 0, oob_next_ns = 0;

	r->t0_ns = now;
	r->series.last_ns = now;
	for (;;) {
		int ev = rk_sf_step(&r->s, 4096);

		if (ev < 0)
			return fail("%s", r->s.err);
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
			return fail("no progress for %g s (%" PRIu64 " messages outstanding)",
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
				return fail("%" PRIu64 " messages still outstanding %g s after the end",
					    rk_sf_outstanding(&r->s), o->timeout_s);
		}
		if (r->s.responder && rk_app_stop)
			return fail("interrupted");
		rk_io_dpdk_idle(r->io, ev);
	}
	r->t_end_ns = rk_io_dpdk_now_ns();
	/* the last interval, as far as it went */
	if (o->interval_ns && r->t_end_ns > r->series.last_ns)
		rk_sf_series_row(r, r->t_end_ns);
	return 0;
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

/* Client: tell what completed, hear what arrived. */
static int
client_end(struct rk_sf_run *r)
{
	uint8_t b[END_LEN];
	int rc;

	put_end(b, "RKGD", &r->s.t, r->s.t.msgs_op[0] + r->s.t.msgs_op[2]);
	rc = rk_oob_send(r->fd, b, sizeof(b));
	if (rc == 0)
		rc = rk_oob_recv(r->fd, b, sizeof(b), r->o->timeout_s, serve, r);
	if (rc != 0)
		return fail("no result from the responder: %s", strerror(-rc));
	if (memcmp(b, "RKGR", 4) != 0)
		return fail("the responder's result is not rk-gen's");
	r->peer_msgs = rk_get_be64(b + 4);
	r->peer_data_err = rk_get_be64(b + 12);
	r->peer_seq_err = rk_get_be64(b + 20);
	r->peer_overwritten = rk_get_be64(b + 28);
	r->peer_known = true;
	return 0;
}

/* Responder: take the client's count, receive up to it, answer. */
static int
responder_end(struct rk_sf_run *r)
{
	uint8_t b[END_LEN];
	uint64_t until;
	int rc = rk_oob_recv(r->fd, b, sizeof(b), r->o->timeout_s, serve, r);

	if (rc != 0 || memcmp(b, "RKGD", 4) != 0)
		return fail("the client ended without its count: %s", rc ? strerror(-rc) : "bad");
	r->peer_msgs = rk_get_be64(b + 4);
	r->peer_known = true;
	until = rk_io_dpdk_now_ns() + (uint64_t)(r->o->timeout_s * 1e9);
	/* its completions mean this end's transport took them: the CQ holds the rest */
	while (r->s.t.msgs < r->peer_msgs && rk_io_dpdk_now_ns() < until && !rk_app_stop)
		if (rk_sf_step(&r->s, 0) < 0)
			return fail("%s", r->s.err);
	put_end(b, "RKGR", &r->s.t, r->s.t.msgs);
	rc = rk_oob_send(r->fd, b, sizeof(b));
	if (rc != 0)
		return fail("cannot send the result: %s", strerror(-rc));
	return 0;
}

/* Error counters first: the ones that make a QP "worst". */
static const char *const bad_names[] = {
	"retransmitted_pkts", "out_of_sequence", "packet_seq_err", "implied_nak_seq_err",
	"local_ack_timeout_err", "duplicate_request", "rnr_nak_retry_err", "out_of_buffer",
};
#define NBAD (sizeof(bad_names) / sizeof(bad_names[0]))

struct worst {
	uint32_t i;
	uint64_t score;
	uint64_t v[NBAD];
};

static void
qp_bad(const struct rk_sf_run *r, uint32_t i, struct worst *w)
{
	struct rk_counter c[MAX_COUNTERS];
	int n = rk_query_qp_counters(r->s.q[i].qp, c, MAX_COUNTERS);

	memset(w, 0, sizeof(*w));
	w->i = i;
	for (int k = 0; k < n; k++)
		for (size_t b = 0; b < NBAD; b++)
			if (strcmp(c[k].name, bad_names[b]) == 0)
				w->v[b] = c[k].value;
	for (size_t b = 0; b < NBAD; b++)
		w->score += w->v[b];
	w->score += r->s.q[i].bad * 1000000;
}

static int
by_score(const void *a, const void *b)
{
	const struct worst *x = a, *y = b;

	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static struct worst *
worst_qps(const struct rk_sf_run *r, uint32_t *k)
{
	struct worst *all = calloc(r->s.n, sizeof(*all));

	*k = 0;
	if (all == NULL)
		return NULL;
	for (uint32_t i = 0; i < r->s.n; i++)
		qp_bad(r, i, &all[i]);
	qsort(all, r->s.n, sizeof(*all), by_score);
	*k = r->o->worst < r->s.n ? r->o->worst : r->s.n;
	return all;
}

static const char *const lat_op_name[RK_SF_NOPS] = { "write", "read", "send", "atomic",
						     "cmp_swap" };

/* The quantiles a latency line or object gives, per 100000. */
static const uint32_t lat_q[] = { 50000, 99000, 99900 };

/* Client: a line per opcode with messages, then each QP of the worst
 * table with its own. */
static void
lat_text(const struct rk_sf_run *r)
{
	const struct rk_sf_lat *l = r->s.lat;

	if (l == NULL)
		return;
	printf("latency, post to completion (us):\n  %-8s %10s %9s %9s %9s %9s %9s\n", "op",
	       "messages", "min", "p50", "p99", "p99.9", "max");
	for (unsigned int o = 0; o < RK_SF_NOPS; o++) {
		const struct rk_hist *h = &l->op[o];

		if (h->count == 0)
			continue;
		printf("  %-8s %10" PRIu64 " %9.1f", lat_op_name[o], h->count, h->min_ns / 1e3);
		for (size_t q = 0; q < sizeof(lat_q) / sizeof(lat_q[0]); q++)
			printf(" %9.1f", rk_hist_quantile(h, lat_q[q]) / 1e3);
		printf(" %9.1f\n", h->max_ns / 1e3);
	}
}

static json_t *
lat_json(uint64_t count, uint64_t min_ns, uint64_t max_ns, const uint64_t *q_ns)
{
	json_t *j = json_object();

	json_object_set_new(j, "count", json_integer((json_int_t)count));
	json_object_set_new(j, "min_ns", json_integer((json_int_t)min_ns));
	json_object_set_new(j, "p50_ns", json_integer((json_int_t)q_ns[0]));
	json_object_set_new(j, "p99_ns", json_integer((json_int_t)q_ns[1]));
	json_object_set_new(j, "p99_9_ns", json_integer((json_int_t)q_ns[2]));
	json_object_set_new(j, "max_ns", json_integer((json_int_t)max_ns));
	return j;
}

/* "latency": {"write": {...}, ...} per opcode, for those that ran. */
static json_t *
lat_ops_json(const struct rk_sf_lat *l)
{
	json_t *j = json_object();

	for (unsigned int o = 0; o < RK_SF_NOPS; o++) {
		uint64_t q[3];

		if (l->op[o].count == 0)
			continue;
		for (size_t k = 0; k < 3; k++)
			q[k] = rk_hist_quantile(&l->op[o], lat_q[k]);
		json_object_set_new(j, lat_op_name[o],
				    lat_json(l->op[o].count, l->op[o].min_ns, l->op[o].max_ns, q));
	}
	return j;
}

/* QP i's own latency object, or NULL (no latency measured, none yet). */
static json_t *
lat_qp_json(const struct rk_sf_lat *l, uint32_t i)
{
	uint64_t q[3];

	if (l == NULL || l->qp[i].count == 0)
		return NULL;
	for (size_t k = 0; k < 3; k++)
		q[k] = rk_hist_sparse_quantile(&l->qp[i], lat_q[k]);
	return lat_json(l->qp[i].count, l->qp[i].min_ns, l->qp[i].max_ns, q);
}

static void
report_text(const struct rk_sf_run *r, double secs, int rc)
{
	const struct rk_sf_totals *t = &r->s.t;
	struct rk_counter c[MAX_COUNTERS];
	unsigned int n = rk_counters_from_stats(rk_context_stats(r->ctx), c, MAX_COUNTERS);
	struct worst *w;
	uint32_t k;

	printf("%s: %u QPs, %" PRIu64 " messages, %" PRIu64 " bytes in %.3f s: %.0f msg/s, "
	       "%.3f Gbit/s goodput\n", r->s.responder ? "responder" : "client", r->s.n, t->msgs,
	       t->bytes, secs, secs > 0 ? (double)t->msgs / secs : 0,
	       secs > 0 ? (double)t->bytes * 8 / secs / 1e9 : 0);
	if (!r->s.responder)
		printf("  write %" PRIu64 "  read %" PRIu64 "  send %" PRIu64 "  atomic %" PRIu64
		       "  cmp_swap %" PRIu64 "\n", t->msgs_op[0], t->msgs_op[1], t->msgs_op[2],
		       t->msgs_op[3], t->msgs_op[4]);
	printf("  data errors %" PRIu64 "  sequence errors %" PRIu64 "  completion errors %"
	       PRIu64 "  overwritten before checked %" PRIu64 "\n", t->data_err, t->seq_err,
	       t->wc_err, t->overwritten);
	if (r->peer_known)
		printf("  %s %" PRIu64 " WRITE+SEND messages%s\n",
		       r->s.responder ? "the client completed" : "the responder received",
		       r->peer_msgs, rc == 0 ? "" : " (see the error)");
	lat_text(r);
	printf("counters (all QPs):\n");
	for (unsigned int i = 0; i < n; i++)
		if (c[i].value != 0)
			printf("  %-28s %" PRIu64 "\n", c[i].name, c[i].value);
	w = worst_qps(r, &k);
	if (w != NULL && k > 0) {
		printf("worst %u QPs:\n  %-8s %10s %6s", k, "QPN", "messages", "errors");
		for (size_t b = 0; b < NBAD; b++)
			printf(" %s", bad_names[b]);
		if (r->s.lat != NULL)
			printf(" %9s %9s", "p50_us", "p99_us");
		putchar('\n');
		for (uint32_t j = 0; j < k; j++) {
			const struct rk_sf_qp *q = &r->s.q[w[j].i];

			printf("  %#-8x %10" PRIu64 " %6" PRIu64, q->qp->qp_num, q->done, q->bad);
			for (size_t b = 0; b < NBAD; b++)
				printf(" %*" PRIu64, (int)strlen(bad_names[b]), w[j].v[b]);
			if (r->s.lat != NULL)
				printf(" %9.1f %9.1f",
				       rk_hist_sparse_quantile(&r->s.lat->qp[w[j].i], 50000) / 1e3,
				       rk_hist_sparse_quantile(&r->s.lat->qp[w[j].i], 99000) / 1e3);
			putchar('\n');
		}
	}
	free(w);
}

static json_t *
report_obj(const struct rk_sf_run *r, double secs, int rc)
{
	const struct rk_sf_totals *t = &r->s.t;
	struct rk_counter c[MAX_COUNTERS];
	unsigned int n = rk_counters_from_stats(rk_context_stats(r->ctx), c, MAX_COUNTERS);
	json_t *j = json_object(), *jc = json_object(), *jw = json_array();
	struct worst *w;
	uint32_t k;

	json_object_set_new(j, "role", json_string(r->s.responder ? "responder" : "client"));
	json_object_set_new(j, "ok", json_boolean(rc == 0));
	json_object_set_new(j, "qps", json_integer(r->s.n));
	json_object_set_new(j, "depth", json_integer(r->s.cfg.depth));
	json_object_set_new(j, "messages", json_integer((json_int_t)t->msgs));
	json_object_set_new(j, "bytes", json_integer((json_int_t)t->bytes));
	json_object_set_new(j, "seconds", json_real(secs));
	json_object_set_new(j, "goodput_gbps",
			    json_real(secs > 0 ? (double)t->bytes * 8 / secs / 1e9 : 0));
	json_object_set_new(j, "write", json_integer((json_int_t)t->msgs_op[0]));
	json_object_set_new(j, "read", json_integer((json_int_t)t->msgs_op[1]));
	json_object_set_new(j, "send", json_integer((json_int_t)t->msgs_op[2]));
	json_object_set_new(j, "atomic", json_integer((json_int_t)t->msgs_op[3]));
	json_object_set_new(j, "cmp_swap", json_integer((json_int_t)t->msgs_op[4]));
	json_object_set_new(j, "data_errors", json_integer((json_int_t)t->data_err));
	json_object_set_new(j, "sequence_errors", json_integer((json_int_t)t->seq_err));
	json_object_set_new(j, "completion_errors", json_integer((json_int_t)t->wc_err));
	json_object_set_new(j, "overwritten", json_integer((json_int_t)t->overwritten));
	if (r->peer_known)
		json_object_set_new(j, "peer_messages", json_integer((json_int_t)r->peer_msgs));
	if (r->s.lat != NULL)
		json_object_set_new(j, "latency", lat_ops_json(r->s.lat));
	if (r->o->interval_ns)
		json_object_set_new(j, "series", rk_sf_series_json(&r->series));
	for (unsigned int i = 0; i < n; i++)
		json_object_set_new(jc, c[i].name, json_integer((json_int_t)c[i].value));
	json_object_set_new(j, "counters", jc);
	w = worst_qps(r, &k);
	for (uint32_t x = 0; w != NULL && x < k; x++) {
		json_t *q = json_object();

		json_object_set_new(q, "qpn", json_integer(r->s.q[w[x].i].qp->qp_num));
		json_object_set_new(q, "messages", json_integer((json_int_t)r->s.q[w[x].i].done));
		json_object_set_new(q, "errors", json_integer((json_int_t)r->s.q[w[x].i].bad));
		for (size_t b = 0; b < NBAD; b++)
			json_object_set_new(q, bad_names[b], json_integer((json_int_t)w[x].v[b]));
		json_t *lq = lat_qp_json(r->s.lat, w[x].i);

		if (lq != NULL)
			json_object_set_new(q, "latency", lq);
		json_array_append_new(jw, q);
	}
	free(w);
	json_object_set_new(j, "worst_qps", jw);
	return j;
}

static void
print_json(json_t *j)
{
	char *s = json_dumps(j, JSON_INDENT(1));

	if (s != NULL)
		puts(s);
	free(s);
	json_decref(j);
}

static void
report_json(const struct rk_sf_run *r, double secs, int rc)
{
	print_json(report_obj(r, secs, rc));
}

/* Both ends' figures agree, nothing wrong. */
static int
verdict(const struct rk_sf_run *r)
{
	const struct rk_sf_totals *t = &r->s.t;
	uint64_t mine = r->s.responder ? t->msgs : t->msgs_op[0] + t->msgs_op[2];

	if (t->data_err || t->seq_err || t->wc_err)
		return fail("%" PRIu64 " messages with wrong data, %" PRIu64 " out of sequence",
			    t->data_err, t->seq_err);
	if (!r->s.responder && (r->peer_data_err || r->peer_seq_err))
		return fail("the responder found %" PRIu64 " messages with wrong data, %" PRIu64
			    " out of sequence", r->peer_data_err, r->peer_seq_err);
	if (r->peer_known && r->peer_msgs != mine)
		return fail("the client completed %" PRIu64 " WRITE+SEND messages, the responder "
			    "received %" PRIu64, r->s.responder ? r->peer_msgs : mine,
			    r->s.responder ? mine : r->peer_msgs);
	return 0;
}

/*
 * A responder of several clients (--clients K): each client its own QP
 * set on the one context and port, its own TCP connection, hello and end
 * of run. They are accepted one after the other while the sets already
 * connected keep running (serve_many steps them), and each ends on its
 * own "RKGD"; the report gives each client's figures and the totals.
 */
/* The responder of several clients: its runs, each one's status, how many ended. */
struct many {
	struct rk_sf_run *r;
	int *prc;
	uint32_t ended;
	uint64_t oob_next_ns;
	bool refused;           /**< a client was refused: no more accepted */
};

/* Each connected client whose end message came: answered (every 10 ms, a system call each). */
static void
many_ends(struct many *m)
{
	struct rk_sf_run *r = m->r;
	uint64_t now = rk_io_dpdk_now_ns();

	if (now < m->oob_next_ns)
		return;
	m->oob_next_ns = now + 10000000ull;
	for (uint32_t k = 0; k < r->npeers; k++) {
		struct rk_sf_run *p = &r->peers[k];

		if (p->t_end_ns != 0 || !rk_oob_readable(p->fd))
			continue;
		p->t_end_ns = rk_io_dpdk_now_ns();
		m->prc[k] = responder_end(p);
		m->ended++;
	}
}

/* Every connected set stepped once. @return events, or -1 (s.err of the set set) */
static int
many_step(struct rk_sf_run *r)
{
	int ev = 0;

	for (uint32_t k = 0; k < r->npeers; k++) {
		int e = rk_sf_step(&r->peers[k].s, 0);

		if (e < 0)
			return -1;
		ev += e;
	}
	return ev;
}

/* While the next client is awaited: the connected ones keep running and may end. */
static int
serve_many(void *arg)
{
	struct many *m = arg;
	int ev = many_step(m->r);

	if (ev < 0)
		return 1;
	many_ends(m);
	rk_io_dpdk_idle(m->r->io, ev + rk_progress(m->r->ctx));
	return rk_app_stop ? 1 : 0;
}

/* The MAC of client p's address, the connected sets stepped meanwhile. @return 0 or -errno */
static int
resolve_many(struct many *m, const struct rk_sf_run *p)
{
	uint8_t a[16] = { [10] = 0xff, [11] = 0xff }, mac[6];
	uint64_t start = rk_io_dpdk_now_ns(), last = 0;

	memcpy(a + 12, p->peer_ip, 4);
	while (rk_io_dpdk_neigh_lookup(p->io, a, mac) != 0) {
		uint64_t now = rk_io_dpdk_now_ns();

		if (now - start >= (uint64_t)(p->o->timeout_s * 1e9))
			return -ETIMEDOUT;
		if (last == 0 || now - last >= 200000000ull) {
			int rc = rk_io_dpdk_solicit(p->io, a);

			if (rc != 0)
				return rc;
			last = now;
		}
		if (serve_many(m) != 0)
			return -EINTR;
	}
	return 0;
}

/* The first connected set in error, said so; or the accept's error. */
static int
many_failed(const struct rk_sf_run *r, const char *what, int err)
{
	for (uint32_t k = 0; k < r->npeers; k++)
		if (r->peers[k].s.err[0] != 0)
			return fail("client %u: %s", k + 1, r->peers[k].s.err);
	return fail("%s: %s", what, strerror(-err));
}

/*
 * Accept client k, take its hello, build and connect its set, answer.
 * @return 0; 1 when the client is refused (its connection closed: the
 *         others go on); -1 when the responder cannot go on
 */
static int
accept_client(struct many *m, uint32_t k, uint32_t *used)
{
	struct rk_sf_run *r = m->r;
	const struct rk_sf_opts *o = r->o;
	struct rk_sf_run *p = &r->peers[k];
	struct rk_gen_hello peer;
	struct rk_gen_hello_qp *local;
	char who[32], ip[16];
	int rc = rk_oob_accept_next(r->lfd, 3600, &p->fd, serve_many, m);

	if (rc != 0) {
		many_failed(r, "no more clients", rc);
		return -1;
	}
	snprintf(who, sizeof(who), "client %u", k + 1);
	p->wait_fn = serve_many;
	p->wait_arg = m;
	rc = recv_hello(p, &peer, o->max_qps - *used, who);
	/* ARP while the others run: a blocking resolve would leave their frames unread */
	if (rc == 0 && (rc = resolve_many(m, p)) != 0)
		rc = fail("%s: the peer did not answer ARP: %s", who, strerror(-rc));
	if (rc == 0 && peer.role != RK_GEN_HELLO_CLIENT)
		rc = fail("the hello of %s is not a client's", who);
	local = rc == 0 ? calloc(peer.count, sizeof(*local)) : NULL;
	if (rc == 0 && local == NULL)
		rc = fail("out of memory for %u QPs", peer.count);
	if (rc == 0 && rk_sf_create(&p->s, r->ctx, &peer, true, local) != 0)
		rc = fail("%s: %s", who, p->s.err);
	if (rc == 0)
		rc = resolve_and_connect(p);
	if (rc == 0 && (rc = send_hello(p, &peer, RK_GEN_HELLO_RESPONDER, local)) != 0)
		rc = fail("out-of-band send to %s: %s", who, strerror(-rc));
	free(local);
	if (rc != 0) {
		rk_sf_destroy(&p->s);
		refuse(p->fd);
		close(p->fd);
		p->fd = -1;
		return 1;
	}
	*used += peer.count;
	p->t0_ns = rk_io_dpdk_now_ns();
	r->npeers = k + 1;
	inet_ntop(AF_INET, p->peer_ip, ip, sizeof(ip));
	fprintf(stderr, "rk-gen: %s (%s): %u RC QPs connected\n", who, ip, p->s.n);
	return 0;
}

/* Every set stepped until each connected client has ended (its RKGD answered). */
static int
traffic_many(struct many *m)
{
	struct rk_sf_run *r = m->r;
	uint64_t now = rk_io_dpdk_now_ns(), last_ns = now;

	r->t0_ns = now;
	while (m->ended < r->npeers) {
		int ev = many_step(r);

		if (ev < 0)
			return many_failed(r, "", 0);
		many_ends(m);
		now = rk_io_dpdk_now_ns();
		if (now - last_ns >= 1000000000ull) {
			uint64_t msgs = 0, errs = 0;

			for (uint32_t k = 0; k < r->npeers; k++) {
				msgs += r->peers[k].s.t.msgs;
				errs += r->peers[k].s.t.data_err + r->peers[k].s.t.seq_err;
			}
			fprintf(stderr, "rk-gen: %5.1f s: %u clients, %u ended  messages %" PRIu64
				"  errors %" PRIu64 "  retransmitted %" PRIu64 "\n",
				(double)(now - r->t0_ns) / 1e9, r->npeers, m->ended, msgs, errs,
				retransmitted(r));
			last_ns = now;
		}
		if (rk_app_stop)
			return fail("interrupted");
		rk_io_dpdk_idle(r->io, ev);
	}
	r->t_end_ns = rk_io_dpdk_now_ns();
	return 0;
}

static int
responder_many(struct rk_sf_run *r)
{
	const struct rk_sf_opts *o = r->o;
	uint32_t used = 0, n = o->clients;
	uint64_t msgs = 0, qps = 0, errs = 0;
	struct many m = { .r = r };
	json_t *all = NULL, *arr = NULL;
	int rc = 0;

	r->peers = calloc(n, sizeof(*r->peers));
	m.prc = calloc(n, sizeof(*m.prc));
	if (r->peers == NULL || m.prc == NULL) {
		free(m.prc);
		return fail("out of memory for %u clients", n);
	}
	for (uint32_t k = 0; k < n; k++)
		r->peers[k] = (struct rk_sf_run){ .o = o, .io = r->io, .ctx = r->ctx, .lfd = -1,
						  .fd = -1 };
	/* a client refused ends the accepting, not the clients already running */
	for (uint32_t k = 0; k < n && rc == 0; k++)
		rc = accept_client(&m, k, &used);
	close(r->lfd);
	r->lfd = -1;
	if (rc >= 0) {
		fprintf(stderr, "rk-gen: %u of %u clients, %u RC QPs connected\n", r->npeers, n,
			used);
		rc = traffic_many(&m) != 0 ? 1 : rc;
	} else
		rc = 1;
	if (o->json) {
		all = json_object();
		arr = json_array();
	}
	for (uint32_t k = 0; k < r->npeers; k++) {
		struct rk_sf_run *p = &r->peers[k];
		double secs = p->t_end_ns > p->t0_ns ? (double)(p->t_end_ns - p->t0_ns) / 1e9 : 0;
		int pr = m.prc[k];
		char ip[16];

		if (pr == 0 && p->peer_known)
			pr = verdict(p);
		else if (!p->peer_known)
			pr = 1;
		if (pr != 0)
			rc = 1;
		msgs += p->s.t.msgs;
		qps += p->s.n;
		errs += p->s.t.data_err + p->s.t.seq_err + p->s.t.wc_err;
		inet_ntop(AF_INET, p->peer_ip, ip, sizeof(ip));
		if (o->json) {
			json_t *j = report_obj(p, secs, pr);

			json_object_set_new(j, "client", json_string(ip));
			json_array_append_new(arr, j);
		} else {
			printf("client %u of %u (%s):\n", k + 1, n, ip);
			report_text(p, secs, pr);
		}
	}
	if (o->json) {
		json_object_set_new(all, "role", json_string("responder"));
		json_object_set_new(all, "ok", json_boolean(rc == 0));
		json_object_set_new(all, "clients", arr);
		json_object_set_new(all, "qps", json_integer((json_int_t)qps));
		json_object_set_new(all, "messages", json_integer((json_int_t)msgs));
		json_object_set_new(all, "errors", json_integer((json_int_t)errs));
		print_json(all);
	} else
		printf("responder: %u of %u clients, %" PRIu64 " QPs, %" PRIu64 " messages, %"
		       PRIu64 " errors: %s\n", r->npeers, n, qps, msgs, errs, rc ? "FAILED" : "ok");
	fflush(stdout);
	free(m.prc);
	for (uint64_t t = rk_io_dpdk_now_ns() + 20000000ull; rk_io_dpdk_now_ns() < t;)
		rk_io_dpdk_idle(r->io, rk_progress(r->ctx));
	return rc;
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
		return responder_many(r);
	if (o->responder) {
		rc = rk_oob_accept(r->lfd, 3600, &r->fd, serve, r);
		r->lfd = -1;
		if (rc != 0)
			return fail("no client: %s", strerror(-rc));
		if (recv_hello(r, &peer, o->max_qps, "client") != 0) {
			refuse(r->fd);
			return 1;
		}
		if (peer.role != RK_GEN_HELLO_CLIENT) {
			fail("the peer's hello is not a client's");
			refuse(r->fd);
			return 1;
		}
	} else {
		peer = o->cfg;
	}
	local = calloc(peer.count, sizeof(*local));
	if (local == NULL || rk_sf_create(&r->s, r->ctx, &peer, o->responder, local) != 0) {
		if (local == NULL)
			fail("out of memory for %u QPs", peer.count);
		else
			fail("%s", r->s.err);
		free(local);
		if (o->responder)
			refuse(r->fd);
		return 1;
	}
	r->s.iters = o->iters;
	if (!o->responder && rk_sf_latency_on(&r->s, rk_io_dpdk_now_ns) != 0) {
		free(local);
		return fail("out of memory for the latency of %u QPs", peer.count);
	}
	if (o->responder) {
		rc = resolve_and_connect(r);
		if (rc != 0)
			refuse(r->fd);
		else if ((rc = send_hello(r, &peer, RK_GEN_HELLO_RESPONDER, local)) != 0)
			rc = fail("out-of-band send: %s", strerror(-rc));
	} else {
		rc = rk_oob_connect(o->server, o->oob_port, o->timeout_s, &r->fd, serve, r);
		if (rc != 0)
			rc = fail("cannot reach the responder %s:%u: %s", o->server, o->oob_port,
				  rk_oob_strerror(rc));
		else if ((rc = send_hello(r, &peer, RK_GEN_HELLO_CLIENT, local)) != 0)
			rc = fail("out-of-band send: %s", strerror(-rc));
		else if ((rc = recv_hello(r, &peer, peer.count, "responder")) == 0) {
			if (peer.count != o->cfg.count || peer.role != RK_GEN_HELLO_RESPONDER)
				rc = fail("the responder answered for %u QPs", peer.count);
			else
				rc = resolve_and_connect(r);
		}
	}
	free(local);
	if (rc != 0)
		return 1;
	fprintf(stderr, "rk-gen: %u RC QPs connected\n", r->s.n);
	rc = traffic(r);
	if (rc == 0)
		rc = o->responder ? responder_end(r) : client_end(r);
	if (rc == 0)
		rc = verdict(r);
	secs = r->t_end_ns > r->t0_ns ? (double)(r->t_end_ns - r->t0_ns) / 1e9 : 0;
	if (o->json)
		report_json(r, secs, rc);
	else
		report_text(r, secs, rc);
	fflush(stdout);
	if (o->interval_ns && rk_sf_series_write(r) != 0 && rc == 0)
		rc = 1;
	free(r->series.v);
	/* the last ACKs leave before the port goes */
	for (uint64_t t = rk_io_dpdk_now_ns() + 20000000ull; rk_io_dpdk_now_ns() < t;)
		rk_io_dpdk_idle(r->io, rk_progress(r->ctx));
	return rc;
}
