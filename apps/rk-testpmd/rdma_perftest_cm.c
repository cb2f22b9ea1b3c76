/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * "qp connect <qp> perftest <ip>[:<port>] <mr> <tool> rdma_cm": the
 * RDMA-CM side of a prompt QP as a perftest -R client (rdma_perftest.c
 * runs the exchange). As perftest's client: the exchange ("comm") QP's
 * connection to service ID TCP:<port> (REQ again while the server
 * answers REJ "invalid service ID": it is still starting), the exchange
 * over SENDs on that QP (ours first), then the data QP's connection on
 * the same service ID; at the end a DREQ for each. The CM's active side
 * is apps/common's (rk_app_cm.h), the exchange QP the responder's
 * (rk_tp_cm_comm_*); the rdma engine queues the port's QP1 MADs here
 * from the connect to the disconnect (rk_tp_rdma_cm_claim(): one such
 * client per port). Runs on the prompt.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_random.h>

#include "rdma.h"
#include "responder_cm.h"
#include "rk_app_cm.h"
#include "rk_app_qp.h"
#include "rk_io_dpdk.h"
#include "testpmd.h"

#define LOCK() rte_ticketlock_lock(&rk_tp_rdma_lock)
#define UNLOCK() rte_ticketlock_unlock(&rk_tp_rdma_lock)
#define RECVS RK_TP_RESP_CM_RECVS

struct rk_tp_pt_cm {
	struct rk_tp_resp_cm x;         /* exchange QP, both connections, the CM port */
	struct rk_tp_cmq q;             /* QP1's MADs, from the rdma engine */
	uint16_t port;
	bool claimed;
	FILE *out;
	uint8_t dgid[16];               /* the data path's, while it connects */
};

static int
cm_send(void *ctx, const uint8_t mac[6], const uint8_t ip[4], const uint8_t mad[RK_MAD_LEN])
{
	struct rk_tp_pt_cm *m = ctx;
	int rc = rk_tp_qp1_tx(m->port, mac, ip, mad);

	if (rc != 0)
		fprintf(m->out, "RDMA-CM: cannot send a MAD: %s\n", strerror(-rc));
	return rc == 0 ? 0 : -1;
}

/* The server's MAC is the port's peer ("set eth-peer"), as over TCP. */
static int
cm_resolve(void *ctx, const uint8_t ip[4], uint8_t mac[6])
{
	struct rk_tp_pt_cm *m = ctx;

	(void)ip;
	memcpy(mac, rk_tp.ports[m->port].eth_peer, 6);
	return 0;
}

/*
 * Serve QP1 once: queued MADs to our connections, their timers, the
 * exchange QP's completions. @return the CM's action bits, or -1 after a line
 */
static int
pump(struct rk_tp_pt_cm *m)
{
	struct rk_tp_resp_cm *x = &m->x;
	struct rk_app_cm_conn *cs[2] = { &x->comm, &x->data };
	uint8_t mad[RK_TP_CMQ][RK_MAD_LEN], ip[RK_TP_CMQ][4];
	uint64_t now = rk_io_dpdk_now_ns();
	enum rk_wc_status st = RK_WC_SUCCESS;
	unsigned int n;
	int seen = 0, act;

	LOCK();
	n = rk_tp_cmq_take(&m->q, mad, ip, RK_TP_CMQ);
	UNLOCK();
	for (unsigned int i = 0; i < n; i++) {
		struct rk_cm_msg msg;

		if (rk_cm_decode(mad[i], RK_MAD_LEN, &msg) != 0)
			continue;       /* another class or attribute: not ours */
		act = rk_app_cm_dispatch(&x->port, &msg, ip[i], cs, 2, NULL, now,
					 (uint32_t)rte_rand());
		if (act < 0)
			return -1;
		seen |= act;
	}
	act = rk_app_cm_timers(&x->port, cs, 2, now);
	if (act < 0)
		return -1;
	seen |= act;
	act = x->qp != NULL ? rk_tp_cm_comm_poll(x, &st) : 0;
	if (act == -EIO) {
		fprintf(m->out, "perftest exchange QP: completion error: %s\n",
			rk_wc_status_str(st));
		return -1;
	}
	if (act < 0) {
		fprintf(m->out, "perftest exchange QP: poll_cq: %s\n", strerror(-act));
		return -1;
	}
	if (n == 0)
		usleep(50);     /* the forwarding lcore moves the frames */
	return seen;
}

/*
 * Connect @p c for @p qpn at @p psn (@p res READ/atomic depth, @p mtu)
 * to the server's service; @p others the connections that stay served.
 * @return 0 ESTABLISHED, or -1 after a line
 */
static int
connect_conn(struct rk_tp_pt_cm *m, struct rk_app_cm_conn *c, uint32_t qpn, uint32_t psn,
	     uint8_t res, enum rk_mtu mtu, const char *what, double timeout_s)
{
	uint64_t deadline = rk_io_dpdk_now_ns() + (uint64_t)(timeout_s * 1e9);
	uint16_t src_port = (uint16_t)(0x8000 | rte_rand());
	struct rk_tp_rdma_dev *d;
	struct rk_cm_params lp;
	uint8_t ip[4];
	const char *why;

	LOCK();
	d = rk_tp_rdma_dev(m->port, false, NULL);
	if (d != NULL) {
		lp = rk_app_cm_params(qpn, psn, res, mtu, d->mac, d->ip, 14, 0);
		memcpy(ip, d->ip, 4);
	}
	UNLOCK();
	if (d == NULL) {
		fprintf(m->out, "Port %u has no verbs device\n", m->port);
		return -1;
	}
	memcpy(c->peer_mac, rk_tp.ports[m->port].eth_peer, 6);
	for (;;) {
		int rc = rk_app_cm_connect(&m->x.port, c, &lp, m->x.port.service_id, ip, src_port,
					   (uint32_t)rte_rand(), rte_rand(),
					   rk_io_dpdk_now_ns());

		if (rc == -EINVAL)
			fprintf(m->out, "RDMA-CM: cannot build the REQ\n");
		if (rc != 0)
			return -1;
		while (c->conn.state == RK_CM_REQ_SENT && rk_io_dpdk_now_ns() < deadline)
			if (pump(m) < 0)
				return -1;
		/* No listener yet: perftest's client tries again too. */
		if (!rk_app_cm_connect_retry(c, rk_io_dpdk_now_ns(), deadline))
			break;
		for (uint64_t t = rk_io_dpdk_now_ns() + RK_APP_CM_RETRY_NS;
		     rk_io_dpdk_now_ns() < t;)
			if (pump(m) < 0)
				return -1;
	}
	why = rk_app_cm_connect_error(c);
	if (why != NULL) {
		fprintf(m->out, "perftest -R server %u.%u.%u.%u:%u: the %s connection failed: %s\n",
			c->peer_ip[0], c->peer_ip[1], c->peer_ip[2], c->peer_ip[3],
			(unsigned int)(m->x.port.service_id & 0xffff), what, why);
		return -1;
	}
	return 0;
}

/* The path of an ESTABLISHED @p c, with the timers the prompt's QPs use. */
static void
conn_path(struct rk_tp_pt_cm *m, const struct rk_app_cm_conn *c, struct rk_app_qp_path *p)
{
	rk_app_cm_qp_path(c, m->dgid, p);
	p->min_rnr_timer = 12;
	p->timeout = 14;
	p->retry_cnt = 7;
	p->rnr_retry = 7;
}

int
rk_tp_pt_cm_open(FILE *out, uint16_t port, const uint8_t ip[4], uint16_t cm_port,
		 enum rk_mtu mtu, double timeout_s, struct rk_tp_pt_cm **mp)
{
	struct rk_tp_pt_cm *m = calloc(1, sizeof(*m));
	struct rk_tp_resp_cm *x;
	struct rk_app_qp_path p;
	const char *state = "RTR";
	int rc;

	if (m == NULL) {
		fprintf(out, "No memory for an RDMA-CM connection\n");
		return -ENOMEM;
	}
	*mp = m;
	x = &m->x;
	m->port = port;
	m->out = out;
	x->port = (struct rk_app_cm_port){ .ctx = m, .send = cm_send, .resolve = cm_resolve,
					   .service_id = rk_cm_service_id(RK_CM_PS_TCP, cm_port) };
	memcpy(x->comm.peer_ip, ip, 4);
	memcpy(x->data.peer_ip, ip, 4);
	LOCK();
	m->claimed = rk_tp_rdma_cm_claim(port, &m->q);
	UNLOCK();
	if (!m->claimed) {
		fprintf(out, "Port %u has a perftest -R connection already: \"qp disconnect\" it "
			"first (one per port)\n", port);
		return -EBUSY;
	}
	rc = rk_tp_cm_comm_create(x, port);
	if (rc != 0) {
		fprintf(out, "Cannot create the perftest exchange QP: %s\n", strerror(-rc));
		return rc;
	}
	if (connect_conn(m, &x->comm, x->qp->qp_num, (uint32_t)rte_rand() & 0xffffff, 0, mtu,
			 "exchange", timeout_s) != 0)
		return -ECONNREFUSED;
	conn_path(m, &x->comm, &p);
	LOCK();
	rc = rk_app_qp_connect(x->qp, &p, &state);
	UNLOCK();
	if (rc != 0) {
		fprintf(out, "Cannot move the perftest exchange QP to %s: %s\n", state,
			strerror(-rc));
		return rc;
	}
	return 0;
}

int
rk_tp_pt_cm_xchg(struct rk_tp_pt_cm *m, const void *mine, void *theirs, size_t len,
		 double timeout_s)
{
	struct rk_tp_resp_cm *x = &m->x;
	uint64_t deadline = rk_io_dpdk_now_ns() + (uint64_t)(timeout_s * 1e9);
	uint32_t slot;
	int rc = rk_tp_cm_comm_send(x, mine, len);

	if (rc != 0) {
		fprintf(m->out, "perftest exchange: post_send: %s\n", strerror(-rc));
		return -1;
	}
	/* Theirs, and ours ACKed: a DREQ right after must not overtake it. */
	while (x->head == x->tail || !x->send_done) {
		int act = pump(m);

		if (act < 0)
			return -1;
		if (x->comm.conn.state != RK_CM_ESTABLISHED) {
			fprintf(m->out, "perftest exchange: the server closed the connection\n");
			return -1;
		}
		if (rk_io_dpdk_now_ns() > deadline) {
			fprintf(m->out, "perftest exchange: no answer within %.0f s\n", timeout_s);
			return -1;
		}
	}
	slot = x->done[x->tail % RECVS];
	if (x->len[x->tail % RECVS] != len) {
		fprintf(m->out, "perftest exchange: a message of %u bytes, expected %zu\n",
			x->len[x->tail % RECVS], len);
		return -1;
	}
	x->tail++;
	memcpy(theirs, x->buf[slot], len);
	rc = rk_tp_cm_comm_post_recv(x, slot);
	if (rc != 0) {
		fprintf(m->out, "perftest exchange: post_recv: %s\n", strerror(-rc));
		return -1;
	}
	return 0;
}

int
rk_tp_pt_cm_data(struct rk_tp_pt_cm *m, uint32_t qpn, uint32_t psn, enum rk_mtu mtu,
		 double timeout_s, struct rk_app_qp_path *p)
{
	if (connect_conn(m, &m->x.data, qpn, psn, 16, mtu, "data", timeout_s) != 0)
		return -ECONNREFUSED;
	conn_path(m, &m->x.data, p);
	return 0;
}

const struct rk_app_cm_conn *
rk_tp_pt_cm_conn(const struct rk_tp_pt_cm *m, bool data)
{
	return data ? &m->x.data : &m->x.comm;
}

int
rk_tp_pt_cm_close(struct rk_tp_pt_cm *m, double wait_s)
{
	struct rk_tp_resp_cm *x = &m->x;
	struct rk_app_cm_conn *cs[2] = { &x->data, &x->comm };
	uint64_t deadline = rk_io_dpdk_now_ns() + (uint64_t)(wait_s * 1e9);
	uint8_t out[RK_MAD_LEN];
	int rc = 0;

	for (int i = 0; i < 2; i++)
		if (cs[i]->conn.state == RK_CM_ESTABLISHED &&
		    rk_cm_disconnect(&cs[i]->conn, rte_rand(), rk_io_dpdk_now_ns(), out) > 0 &&
		    cm_send(m, cs[i]->peer_mac, cs[i]->peer_ip, out) != 0)
			rc = -EIO;
	/* the DREPs, bounded: a vanished server leaves DREQ_SENT */
	while (rc == 0 && (x->data.conn.state == RK_CM_DREQ_SENT ||
			   x->comm.conn.state == RK_CM_DREQ_SENT)) {
		if (rk_io_dpdk_now_ns() > deadline) {
			rc = -ETIMEDOUT;
			break;
		}
		if (pump(m) < 0)
			rc = -EIO;
	}
	if (m->claimed) {
		LOCK();
		rk_tp_rdma_cm_claim(m->port, NULL);
		UNLOCK();
	}
	rk_tp_cm_comm_free(x);
	free(m);
	return rc;
}
