/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-gen stateful's report (stateful_run.h): totals, the engine's
 * counters named as NIC counters, the latency, the worst QPs; as text or
 * as a JSON object.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "stateful_run.h"

#define MAX_COUNTERS 40

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

/* The client's addresses (its own, or the peer's at the responder): the first in @p base. */
static uint32_t
addrs(const struct rk_sf_run *r, uint8_t base[4])
{
	uint32_t n = r->s.responder ? r->peer_ip_count : r->o->ip_count;

	memcpy(base, r->s.responder ? r->peer_ip : r->o->ip, 4);
	return n > 1 ? n : 1;
}

/* The address of QP i (of several: addrs() above 1) as text. */
static void
qp_addr(const struct rk_sf_run *r, uint32_t i, char out[16])
{
	uint8_t b[4];
	uint32_t n = addrs(r, b);

	b[3] = (uint8_t)(b[3] + i % n);
	inet_ntop(AF_INET, b, out, 16);
}

/* What the client checked of a foreign responder's data (rk_sf_foreign()). */
static const char *
peer_check(const struct rk_sf_run *r)
{
	if (!r->s.cfg.verify)
		return "data not checked (--no-verify)";
	if (r->s.cfg.ops & RK_GEN_OP_READ)
		return "each READ checked against its QP's first";
	if (r->s.cfg.ops & RK_GEN_OP_ATOMIC)
		return "each FETCH_ADD checked: its QP's previous result plus one";
	return "WRITEs not checked (the peer's memory cannot be read back)";
}

void
rk_sf_report_text(const struct rk_sf_run *r, double secs, int rc)
{
	const struct rk_sf_totals *t = &r->s.t;
	struct rk_counter c[MAX_COUNTERS];
	unsigned int n = rk_counters_from_stats(rk_context_stats(r->ctx), c, MAX_COUNTERS);
	struct worst *w;
	uint32_t k;
	uint8_t base[4];
	uint32_t na = addrs(r, base);
	char a0[16], a1[16];

	printf("%s: %u QP%s, %" PRIu64 " messages, %" PRIu64 " bytes in %.3f s: %.0f msg/s, "
	       "%.3f Gbit/s goodput\n", r->s.responder ? "responder" : "client", r->s.n,
	       r->s.n == 1 ? "" : "s", t->msgs, t->bytes, secs,
	       secs > 0 ? (double)t->msgs / secs : 0,
	       secs > 0 ? (double)t->bytes * 8 / secs / 1e9 : 0);
	if (!r->s.responder)
		printf("  write %" PRIu64 "  read %" PRIu64 "  send %" PRIu64 "  atomic %" PRIu64
		       "  cmp_swap %" PRIu64 "\n", t->msgs_op[0], t->msgs_op[1], t->msgs_op[2],
		       t->msgs_op[3], t->msgs_op[4]);
	if (r->peer_desc[0] != '\0')
		printf("  peer: %s; %s\n", r->peer_desc, peer_check(r));
	if (na > 1) {
		qp_addr(r, 0, a0);
		qp_addr(r, na - 1, a1);
		printf("  %s %u addresses %s-%s: QP i at the (i mod %u)-th\n",
		       r->s.responder ? "the client's" : "from", na, a0, a1, na);
	}
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
		printf("worst %u QP%s:\n  %-8s %10s %6s", k, k == 1 ? "" : "s", "QPN", "messages",
		       "errors");
		for (size_t b = 0; b < NBAD; b++)
			printf(" %s", bad_names[b]);
		if (r->s.lat != NULL)
			printf(" %9s %9s", "p50_us", "p99_us");
		if (na > 1)
			printf(" %s", "address");
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
			if (na > 1) {
				qp_addr(r, w[j].i, a0);
				printf(" %s", a0);
			}
			putchar('\n');
		}
	}
	free(w);
}

json_t *
rk_sf_report_obj(const struct rk_sf_run *r, double secs, int rc)
{
	const struct rk_sf_totals *t = &r->s.t;
	struct rk_counter c[MAX_COUNTERS];
	unsigned int n = rk_counters_from_stats(rk_context_stats(r->ctx), c, MAX_COUNTERS);
	json_t *j = json_object(), *jc = json_object(), *jw = json_array();
	struct worst *w;
	uint32_t k;
	uint8_t base[4];
	uint32_t na = addrs(r, base);
	char a[16];

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
	if (r->peer_desc[0] != '\0') {
		json_object_set_new(j, "peer", json_string(r->peer_desc));
		json_object_set_new(j, "data_check", json_string(peer_check(r)));
	}
	if (r->s.lat != NULL)
		json_object_set_new(j, "latency", lat_ops_json(r->s.lat));
	if (na > 1) {
		json_t *ja = json_array();

		for (uint32_t i = 0; i < na; i++) {
			qp_addr(r, i, a);
			json_array_append_new(ja, json_string(a));
		}
		/* the client's: QP i at the (i mod n)-th */
		json_object_set_new(j, "addresses", ja);
	}
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
		if (na > 1) {
			qp_addr(r, w[x].i, a);
			json_object_set_new(q, "ip", json_string(a));
		}
		json_array_append_new(jw, q);
	}
	free(w);
	json_object_set_new(j, "worst_qps", jw);
	return j;
}

void
rk_sf_print_json(json_t *j)
{
	char *s = json_dumps(j, JSON_INDENT(1));

	if (s != NULL)
		puts(s);
	free(s);
	json_decref(j);
}
