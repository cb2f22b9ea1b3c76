/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The responder's verdict on each client (the checks a server can make,
 * by the tool its QP's request counters tell) and "show responder".
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rdma.h"
#include "responder.h"
#include "rk_app.h"
#include "testpmd.h"

#define LOCK() rte_ticketlock_lock(&rk_tp_rdma_lock)
#define UNLOCK() rte_ticketlock_unlock(&rk_tp_rdma_lock)
#define PATTERN 0x5eed
#define client rk_tp_resp_client
#define fail rk_tp_resp_fail

enum tool { T_WRITE, T_READ, T_SEND, T_ATOMIC, T_NONE };
static const char *const tool_names[] = { "write_bw", "read_bw", "send_bw", "atomic_bw",
					  "none" };

/* A per-QP counter by its name (rk_counters_from_stats()'s). */
static uint64_t
counter(const struct rk_counter *cs, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(cs[i].name, name) == 0)
			return cs[i].value;
	return 0;
}

/* After "done": which tool it was, the checks a server can make, the line. */
void
rk_tp_resp_verdict(struct client *c, const struct rk_pt_report *peer, bool reported,
		   uint64_t sum0)
{
	static const char *const req[] = { "rx_write_requests", "rx_read_requests",
					   "rx_send_requests", "rx_atomic_requests" };
	struct rk_tp_resp_sess *s = &c->s, all = { 0 };
	struct rk_counter cs[64];
	uint64_t reqs[4] = { 0 }, iters, size;
	unsigned int qps = c->qps > 1 ? c->qps : 1;
	enum tool t = T_NONE;
	char what[120] = "", over[24] = "";
	bool region_kept = true;
	uint64_t sum = 0;

	/* perftest -q: the client's QPs as one, their counts summed */
	LOCK();
	rk_tp_resp_sess_del(s);
	for (const struct rk_tp_resp_sess *q = s; q != NULL; q = q->next) {
		int n = q->qp != NULL ? rk_query_qp_counters(q->qp, cs, 64) : 0;

		for (int i = 0; i < 4; i++)
			reqs[i] += counter(cs, n, req[i]);
		if (q->recvd > 0 && all.recvd == 0)
			all.recv_len = q->recv_len;
		else if (q->recvd > 0 && q->recv_len != all.recv_len)
			all.len_mismatch += q->recvd;
		all.recvd += q->recvd;
		all.wc_errors += q->wc_errors;
		all.len_mismatch += q->len_mismatch;
	}
	UNLOCK();
	for (int i = 0; i < 4; i++)
		if (reqs[i] > 0 && (t == T_NONE || reqs[i] > reqs[t]))
			t = (enum tool)i;
	for (const struct rk_tp_resp_sess *q = s; (t == T_READ || t == T_ATOMIC) && q != NULL &&
	     q->buf != NULL; q = q->next) {
		region_kept = region_kept && rk_app_check(q->buf, q->buf_len, PATTERN);
		sum += rk_pt_word_sum(q->buf, q->buf_len);
	}
	s = &all;
	if (qps > 1)
		snprintf(over, sizeof(over), " over %u QPs", qps);
	iters = t == T_SEND ? s->recvd : peer->iters;
	/* a UD receive holds the 40-byte GRH first (IBTA Vol1 11.4.1.1) */
	if (rk_tp_resp.qp_type == RK_QPT_UD && s->recv_len >= 40)
		s->recv_len -= 40;
	size = t == T_SEND ? s->recv_len : t == T_ATOMIC ? 8 : peer->size;
	if (s->wc_errors > 0) {
		fail(c, "%" PRIu64 " receive(s) completed in error", s->wc_errors);
	} else if (t == T_NONE) {
		fail(c, "no request reached the QP");
	} else if (t == T_SEND) {
		if (s->len_mismatch > 0)
			fail(c, "%" PRIu64 " SEND(s) of another length than the first's %u bytes",
			     s->len_mismatch, s->recv_len);
		else
			snprintf(what, sizeof(what), "%" PRIu64 " receives, each %u bytes", s->recvd,
				 s->recv_len);
	} else if (!reported) {
		fail(c, "%s without the report exchange", tool_names[t]);
	} else if (t == T_READ) {
		if (!region_kept)
			fail(c, "the READ-only region changed during the test");
		else
			snprintf(what, sizeof(what), "region unchanged, %" PRIu64 " READ requests",
				 reqs[T_READ]);
	} else if (t == T_ATOMIC) {
		/* every region starts as the first one did: the same pattern and length */
		uint64_t delta = sum - sum0 * qps;

		/* FETCH_AND_ADD of 1 (perftest's): the region's words grew by one each. */
		if (delta == reqs[T_ATOMIC] && iters <= reqs[T_ATOMIC])
			snprintf(what, sizeof(what), "region grew by %" PRIu64 ", one per "
				 "FETCH_AND_ADD executed", delta);
		else if (delta == 0)
			snprintf(what, sizeof(what), "region unchanged: CMP_AND_SWAP of 0 with 0");
		else
			fail(c, "the region grew by %" PRIu64 " over %" PRIu64 " atomics executed (%"
			     PRIu64 " reported)", delta, reqs[T_ATOMIC], iters);
	} else {
		snprintf(what, sizeof(what), "%" PRIu64 " WRITE packets placed", reqs[T_WRITE]);
	}
	LOCK();
	rk_tp_resp.clients++;
	if (c->err[0] == '\0') {
		rk_tp_resp.ok++;
		rk_tp_resp.tools[t]++;
	} else {
		rk_tp_resp.failed++;
	}
	UNLOCK();
	if (c->err[0] == '\0')
		printf("responder: client %u (%s): %s%s, %" PRIu64 " bytes, %" PRIu64 " iterations, "
		       "result: ok (%s)\n", c->n, c->peer, tool_names[t], over, size, iters, what);
	else
		printf("responder: client %u (%s): %s%s, result: failed: %s\n", c->n, c->peer,
		       tool_names[t], over, c->err);
	fflush(stdout);
}

void
rk_tp_resp_cm_counters(FILE *out)
{
	fprintf(out, "  CM MADs: received %" PRIu64 ", dropped (queue full) %" PRIu64
		", malformed or not CM %" PRIu64 ", REQs rejected: other service ID %" PRIu64
		", unsupported %" PRIu64 "; clients refused for -R -q N %" PRIu64 "\n",
		rk_tp_resp.cmq.mads, rk_tp_resp.cmq.dropped, rk_tp_resp.cm_malformed,
		rk_tp_resp.cm_rej_service, rk_tp_resp.cm_refused, rk_tp_resp.cm_qps_refused);
}


void
rk_tp_resp_show(FILE *out)
{
	LOCK();
	if (!rk_tp_resp.running)
		fprintf(out, "Responder: not running (at most %u client(s) at once when started)\n",
			rk_tp_resp_max_clients());
	else
		fprintf(out, "Responder: port %u, %s port %u, %s QPs, messages up to %u bytes, "
			"serving %u client(s) (at most %u at once)\n", rk_tp_resp.port,
			rk_tp_resp.rdma_cm ? "RDMA-CM" : "TCP", rk_tp_resp.tcp_port,
			rk_tp_qp_type_name(rk_tp_resp.qp_type),
			rk_tp_resp.max_size, rk_tp_resp.serving, rk_tp_resp_max_clients());
	fprintf(out, "  clients %" PRIu64 ": ok %" PRIu64 " (write_bw %" PRIu64 ", read_bw %"
		PRIu64 ", send_bw %" PRIu64 ", atomic_bw %" PRIu64 "), failed %" PRIu64 "\n",
		rk_tp_resp.clients, rk_tp_resp.ok, rk_tp_resp.tools[T_WRITE],
		rk_tp_resp.tools[T_READ], rk_tp_resp.tools[T_SEND], rk_tp_resp.tools[T_ATOMIC],
		rk_tp_resp.failed);
	for (unsigned int i = 0; rk_tp_resp.running && i < RK_TP_RESP_CLIENTS; i++)
		if (rk_tp_resp.sess[i] != NULL)
			fprintf(out, "  client %u: %u QP(s)\n", rk_tp_resp.sess[i]->n,
				rk_tp_resp.sess[i]->qps);
	if (rk_tp_resp.busy > 0)
		fprintf(out, "  refused: %" PRIu64 " (as many being served as allowed at once)\n",
			rk_tp_resp.busy);
	fprintf(out, "  ARP: requests answered %" PRIu64 ", requests sent %" PRIu64 "\n",
		rk_tp_resp.arp_answered, rk_tp_resp.arp_requests);
	if (rk_tp_resp.rdma_cm)
		rk_tp_resp_cm_counters(out);
	UNLOCK();
}
