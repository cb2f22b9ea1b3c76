/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A responder of several clients (--clients K): each client its own QP
 * set on the one context and port, its own TCP connection, hello and end
 * of run. They are accepted one after the other while the sets already
 * connected keep running (serve_many steps them), and each ends on its
 * own "RKGD"; the report gives each client's figures and the totals,
 * and with --interval a series per client and one of all.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "rk_app.h"
#include "rk_app_oob.h"
#include "stateful_run.h"

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
		m->prc[k] = rk_sf_responder_end(p);
		m->ended++;
	}
}

/*
 * The series' rows at @p at: one per connected client, then the sum's
 * (r->s.t set to the clients' totals: r->s holds no QPs of its own).
 */
static void
many_rows_at(struct rk_sf_run *r, uint64_t at)
{
	struct rk_sf_totals *t = &r->s.t;

	memset(t, 0, sizeof(*t));
	for (uint32_t k = 0; k < r->npeers; k++) {
		const struct rk_sf_totals *x = &r->peers[k].s.t;

		rk_sf_series_row(&r->peers[k], at);
		t->msgs += x->msgs;
		t->bytes += x->bytes;
		t->data_err += x->data_err;
		t->seq_err += x->seq_err;
		t->wc_err += x->wc_err;
	}
	rk_sf_series_row(r, at);
}

/* An interval ended: its rows (from the first client's connection on). */
static void
many_rows(struct rk_sf_run *r)
{
	uint64_t iv = r->o->interval_ns;

	if (iv != 0 && r->npeers > 0 && rk_io_dpdk_now_ns() - r->series.last_ns >= iv)
		many_rows_at(r, r->series.last_ns + iv);
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
	many_rows(m->r);
	rk_io_dpdk_idle(m->r->io, ev + rk_progress(m->r->ctx));
	return rk_app_stop ? 1 : 0;
}

/* The MAC of client p's address @p a, the connected sets stepped meanwhile. @return 0 or -errno */
static int
resolve_one(struct many *m, const struct rk_sf_run *p, const uint8_t a[16])
{
	uint64_t start = rk_io_dpdk_now_ns(), last = 0;
	uint8_t mac[6];

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

/* Each of client p's addresses, the first last (the cache keeps it for the connect). */
static int
resolve_many(struct many *m, const struct rk_sf_run *p)
{
	uint8_t base[16] = { [10] = 0xff, [11] = 0xff }, a[16];
	int rc = 0;

	memcpy(base + 12, p->peer_ip, 4);
	for (uint32_t k = p->peer_ip_count; rc == 0 && k-- > 0;) {
		rk_sf_addr(base, p->peer_ip_count, k, a);
		rc = resolve_one(m, p, a);
	}
	return rc;
}

/* The first connected set in error, said so; or the accept's error. */
static int
many_failed(const struct rk_sf_run *r, const char *what, int err)
{
	for (uint32_t k = 0; k < r->npeers; k++)
		if (r->peers[k].s.err[0] != 0)
			return rk_sf_fail("client %u: %s", k + 1, r->peers[k].s.err);
	return rk_sf_fail_rc(err, "%s: %s", what, strerror(-err));
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
	rc = rk_sf_recv_hello(p, &peer, o->max_qps - *used, who);
	/* ARP while the others run: a blocking resolve would leave their frames unread */
	if (rc == 0 && (rc = resolve_many(m, p)) != 0)
		rc = rk_sf_fail_rc(rc, "%s: the peer did not answer ARP: %s", who, strerror(-rc));
	if (rc == 0 && peer.role != RK_GEN_HELLO_CLIENT)
		rc = rk_sf_fail("the hello of %s is not a client's", who);
	local = rc == 0 ? calloc(peer.count, sizeof(*local)) : NULL;
	if (rc == 0 && local == NULL)
		rc = rk_sf_fail("out of memory for %u QP%s", peer.count,
				peer.count == 1 ? "" : "s");
	if (rc == 0 && rk_sf_create(&p->s, r->ctx, &peer, true, local) != 0)
		rc = rk_sf_fail("%s: %s", who, p->s.err);
	if (rc == 0)
		rc = rk_sf_resolve_connect(p);
	if (rc == 0 && (rc = rk_sf_send_hello(p, &peer, RK_GEN_HELLO_RESPONDER, local)) != 0)
		rc = rk_sf_fail("out-of-band send to %s: %s", who, strerror(-rc));
	free(local);
	if (rc != 0) {
		rk_sf_destroy(&p->s);
		rk_sf_refuse(p->fd);
		close(p->fd);
		p->fd = -1;
		return 1;
	}
	*used += peer.count;
	p->t0_ns = rk_io_dpdk_now_ns();
	/* the series starts with the first client; each joins at the current interval */
	if (k == 0)
		r->t0_ns = r->series.t0_ns = r->series.last_ns = p->t0_ns;
	p->series.t0_ns = r->series.t0_ns;
	p->series.last_ns = r->series.last_ns;
	r->npeers = k + 1;
	inet_ntop(AF_INET, p->peer_ip, ip, sizeof(ip));
	if (p->peer_ip_count > 1)
		fprintf(stderr, "rk-gen: %s (%s and %u after it): %u RC QP%s connected\n", who,
			ip, p->peer_ip_count - 1u, p->s.n, p->s.n == 1 ? "" : "s");
	else
		fprintf(stderr, "rk-gen: %s (%s): %u RC QP%s connected\n", who, ip, p->s.n,
			p->s.n == 1 ? "" : "s");
	return 0;
}

/* Every set stepped until each connected client has ended (its RKGD answered). */
static int
traffic_many_loop(struct many *m)
{
	struct rk_sf_run *r = m->r;
	uint64_t now = rk_io_dpdk_now_ns(), last_ns = now;

	while (m->ended < r->npeers) {
		int ev = many_step(r);

		if (ev < 0)
			return many_failed(r, "", 0);
		many_ends(m);
		many_rows(r);
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
				rk_sf_retransmitted(r));
			last_ns = now;
		}
		if (rk_app_stop)
			return rk_sf_fail("interrupted");
		rk_io_dpdk_idle(r->io, ev);
	}
	return 0;
}

/* traffic_many_loop(), its end time set on every exit, as traffic()'s */
static int
traffic_many(struct many *m)
{
	struct rk_sf_run *r = m->r;
	int rc = traffic_many_loop(m);

	r->t_end_ns = rk_io_dpdk_now_ns();
	/* a client cut short ran until now */
	for (uint32_t k = 0; k < r->npeers; k++)
		if (r->peers[k].t_end_ns == 0)
			r->peers[k].t_end_ns = r->t_end_ns;
	/* the last interval, as far as it went */
	if (r->o->interval_ns && r->t_end_ns > r->series.last_ns)
		many_rows_at(r, r->t_end_ns);
	return rc;
}

/* The clients side by side, then all of them: the final table's last part. */
static void
clients_table(const struct rk_sf_run *r, const int *prc)
{
	struct rk_sf_totals all = { 0 };
	uint64_t qps = 0;
	double secs = r->t_end_ns > r->t0_ns ? (double)(r->t_end_ns - r->t0_ns) / 1e9 : 0;

	printf("clients:\n  %-6s %-15s %6s %10s %14s %7s %9s %s\n", "client", "address", "QPs",
	       "messages", "bytes", "errors", "Gbit/s", "status");
	for (uint32_t k = 0; k < r->npeers; k++) {
		const struct rk_sf_run *p = &r->peers[k];
		const struct rk_sf_totals *t = &p->s.t;
		double s = p->t_end_ns > p->t0_ns ? (double)(p->t_end_ns - p->t0_ns) / 1e9 : 0;
		char ip[16];

		inet_ntop(AF_INET, p->peer_ip, ip, sizeof(ip));
		printf("  %-6u %-15s %6u %10" PRIu64 " %14" PRIu64 " %7" PRIu64 " %9.3f %s\n", k + 1,
		       ip, p->s.n, t->msgs, t->bytes, t->data_err + t->seq_err + t->wc_err,
		       s > 0 ? (double)t->bytes * 8 / s / 1e9 : 0, prc[k] ? "FAILED" : "ok");
		all.msgs += t->msgs;
		all.bytes += t->bytes;
		all.data_err += t->data_err + t->seq_err + t->wc_err;
		qps += p->s.n;
	}
	printf("  %-6s %-15s %6" PRIu64 " %10" PRIu64 " %14" PRIu64 " %7" PRIu64 " %9.3f\n", "all",
	       "", qps, all.msgs, all.bytes, all.data_err,
	       secs > 0 ? (double)all.bytes * 8 / secs / 1e9 : 0);
}

int
rk_sf_responder_many(struct rk_sf_run *r)
{
	const struct rk_sf_opts *o = r->o;
	uint32_t used = 0, n = o->clients;
	uint64_t msgs = 0, qps = 0, errs = 0, bytes = 0;
	struct many m = { .r = r };
	json_t *all = NULL, *arr = NULL;
	int rc = 0;

	r->peers = calloc(n, sizeof(*r->peers));
	m.prc = calloc(n, sizeof(*m.prc));
	if (r->peers == NULL || m.prc == NULL) {
		free(m.prc);
		return rk_sf_fail("out of memory for %u clients", n);
	}
	for (uint32_t k = 0; k < n; k++)
		r->peers[k] = (struct rk_sf_run){ .o = o, .io = r->io, .ctx = r->ctx, .lfd = -1,
						  .fd = -1, .part = true };
	/* a client refused ends the accepting, not the clients already running */
	for (uint32_t k = 0; k < n && rc == 0; k++)
		rc = accept_client(&m, k, &used);
	close(r->lfd);
	r->lfd = -1;
	if (rc >= 0) {
		fprintf(stderr, "rk-gen: %u of %u clients, %u RC QP%s connected\n", r->npeers, n,
			used, used == 1 ? "" : "s");
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
			pr = rk_sf_verdict(p);
		else if (!p->peer_known)
			pr = 1;
		if (pr != 0)
			rc = 1;
		m.prc[k] = pr;
		msgs += p->s.t.msgs;
		bytes += p->s.t.bytes;
		qps += p->s.n;
		errs += p->s.t.data_err + p->s.t.seq_err + p->s.t.wc_err;
		inet_ntop(AF_INET, p->peer_ip, ip, sizeof(ip));
		if (o->json) {
			json_t *j = rk_sf_report_obj(p, secs, pr);

			json_object_set_new(j, "client", json_string(ip));
			json_array_append_new(arr, j);
		} else if (!rk_sf_csv_stdout(o)) {
			printf("client %u of %u (%s):\n", k + 1, n, ip);
			rk_sf_report_text(p, secs, pr);
		}
	}
	if (o->json) {
		json_object_set_new(all, "role", json_string("responder"));
		json_object_set_new(all, "ok", json_boolean(rc == 0));
		json_object_set_new(all, "clients", arr);
		json_object_set_new(all, "qps", json_integer((json_int_t)qps));
		json_object_set_new(all, "messages", json_integer((json_int_t)msgs));
		json_object_set_new(all, "bytes", json_integer((json_int_t)bytes));
		json_object_set_new(all, "errors", json_integer((json_int_t)errs));
		/* from the first client's connection to the last one's end: the series' span */
		json_object_set_new(all, "seconds", json_real(r->t_end_ns > r->t0_ns ?
							      (double)(r->t_end_ns - r->t0_ns) / 1e9 : 0));
		if (o->interval_ns)
			json_object_set_new(all, "series", rk_sf_series_json(&r->series));
		rk_sf_print_json(all);
	} else if (!rk_sf_csv_stdout(o)) {
		clients_table(r, m.prc);
		printf("responder: %u of %u clients, %" PRIu64 " QP%s, %" PRIu64 " messages, %"
		       PRIu64 " errors: %s\n", r->npeers, n, qps, qps == 1 ? "" : "s", msgs, errs,
		       rc ? "FAILED" : "ok");
	}
	fflush(stdout);
	if (o->interval_ns && r->npeers > 0 && rk_sf_series_write_many(r) != 0)
		rc = 1;
	free(r->series.v);
	free(r->series.row_lat);
	for (uint32_t k = 0; k < r->npeers; k++) {
		free(r->peers[k].series.v);
		free(r->peers[k].series.row_lat);
	}
	free(m.prc);
	for (uint64_t t = rk_io_dpdk_now_ns() + 20000000ull; rk_io_dpdk_now_ns() < t;)
		rk_io_dpdk_idle(r->io, rk_progress(r->ctx));
	return rc;
}
