/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QP1's CM MADs for the responder's perftest -R clients: the forwarding
 * loop queues them (rk_tp_resp_cm_mad()); whichever client thread pumps
 * hands each to the thread whose connection it is (by communication ID
 * and source address), a new REQ to the thread waiting for its client's
 * data connection (same source address) or else to the one waiting for
 * a new client. A client's REQ beyond its data connection's (perftest -R
 * -q N) is rejected, a consumer's reject, and its thread told. A REQ that
 * comes while no thread waits is held briefly
 * (the next waiting thread starts within a millisecond of the last one
 * taking its client), then rejected: no resources (IBTA Vol1 12.6.7.2).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_random.h>

#include "rdma.h"
#include "responder.h"
#include "responder_cm.h"
#include "rk_app_cm.h"
#include "testpmd.h"

#define LOCK() rte_ticketlock_lock(&rk_tp_rdma_lock)
#define UNLOCK() rte_ticketlock_unlock(&rk_tp_rdma_lock)
#define fail rk_tp_resp_fail
#define cm_mu rk_tp_resp_cm_mu
#define qp1_send rk_tp_resp_qp1_send
#define qp1_resolve rk_tp_resp_qp1_resolve

pthread_mutex_t rk_tp_resp_cm_mu = PTHREAD_MUTEX_INITIALIZER;
#define HELD 16u
#define HOLD_NS 200000000ull    /* a REQ waits this long for a thread to take it */

static uint32_t qp1_psn;
/* under cm_mu: the client threads by slot; REQs that came while no thread waited */
static struct rk_tp_resp_client *reg[RK_TP_RESP_CLIENTS];
static struct {
	struct rk_cm_msg m;
	uint8_t ip[4];
	uint64_t since;
} held[HELD];
static unsigned int nheld;
static struct rk_tp_resp_client nobody; /* sends REJs for no client's REQ */
static uint32_t next_comm_id;           /* under cm_mu */

/*
 * A local communication ID no other connection has (a MAD finds its
 * connection by it). rte_rand() is not for threads that are not lcores:
 * called from several at once it can repeat a value. Under cm_mu.
 */
static uint32_t
comm_id(void)
{
	if (next_comm_id == 0)
		next_comm_id = (uint32_t)time(NULL) * 2654435761u | 1;
	return next_comm_id++;
}


bool
rk_tp_resp_cm_mad(const uint8_t *f, uint32_t len)
{
	return rk_tp_cmq_put(&rk_tp_resp.cmq, f, len);
}

int
rk_tp_qp1_tx(uint16_t port, const uint8_t mac[6], const uint8_t ip[4],
	     const uint8_t mad[RK_MAD_LEN])
{
	struct rk_tp_rdma_dev *d;
	uint8_t frame[512];
	int n = -ENODEV;

	LOCK();
	d = rk_tp_rdma_dev(port, false, NULL);
	if (d != NULL)
		n = rk_app_cm_frame(frame, sizeof(frame), d->mac, mac, d->ip, ip, qp1_psn++, mad);
	if (n > 0)
		n = rk_tp_resp_tx(port, frame, (uint32_t)n);
	UNLOCK();
	return n;
}

/* rk_app_cm_port's send: one MAD from the device's QP1. */
int
qp1_send(void *ctx, const uint8_t mac[6], const uint8_t ip[4], const uint8_t mad[RK_MAD_LEN])
{
	int n = rk_tp_qp1_tx(rk_tp_resp.port, mac, ip, mad);

	return n == 0 ? 0 : fail(ctx, "cannot send a CM MAD: %s", strerror(-n));
}

int
qp1_resolve(void *ctx, const uint8_t ip[4], uint8_t mac[6])
{
	return rk_tp_resp_resolve(ctx, ip, mac);
}

static struct rk_app_cm_port *
nobody_port(void)
{
	static struct rk_app_cm_port p;

	if (p.send == NULL)
		p = (struct rk_app_cm_port){ .ctx = &nobody, .send = qp1_send,
					     .resolve = qp1_resolve };
	p.service_id = rk_cm_service_id(RK_CM_PS_TCP, rk_tp_resp.tcp_port);
	nobody.err[0] = '\0';
	return &p;
}

/*
 * Whose @p m (from @p ip) is: the thread with its connection, or for a
 * REQ, the oldest waiting for its data connection's from @p ip, else the
 * one waiting for a new client. Under cm_mu. @return NULL: nobody's yet
 */
static struct rk_tp_resp_client *
route(const struct rk_cm_msg *m, const uint8_t ip[4])
{
	struct rk_tp_resp_client *data = NULL, *idle = NULL;

	for (int i = 0; i < RK_TP_RESP_CLIENTS; i++) {
		struct rk_tp_resp_client *t = reg[i];
		struct rk_tp_resp_cm *x = t != NULL ? t->cm : NULL;

		if (x == NULL)
			continue;
		if ((rk_cm_conn_match(&x->comm.conn, m) && memcmp(x->comm.peer_ip, ip, 4) == 0) ||
		    (rk_cm_conn_match(&x->data.conn, m) && memcmp(x->data.peer_ip, ip, 4) == 0))
			return t;
		/* a client's REQ beyond its data connection's (perftest -q N) */
		if (m->hdr.attr_id == RK_CM_REQ && x->window && x->data.conn.state != RK_CM_IDLE &&
		    memcmp(x->comm.peer_ip, ip, 4) == 0)
			return t;
		if (x->listen == &x->data && x->data.conn.state == RK_CM_IDLE &&
		    memcmp(x->comm.peer_ip, ip, 4) == 0 && (data == NULL || t->n < data->n))
			data = t;
		else if (x->listen == &x->comm && x->comm.conn.state == RK_CM_IDLE)
			idle = t;
	}
	if (m->hdr.attr_id != RK_CM_REQ)
		return NULL;
	return data != NULL ? data : idle;
}

/*
 * REJ @p m, a REQ of no connection, for @p reason (another service ID's
 * as rk_app_cm_dispatch() does it, counted as it counts). Under cm_mu.
 * @return true when the REQ was for our service ID
 */
static bool
reject(const struct rk_cm_msg *m, const uint8_t ip[4], uint64_t now, uint16_t reason)
{
	struct rk_app_cm_port *p = nobody_port();
	struct rk_app_cm_conn tmp = { .conn = { 0 } };
	uint8_t out[RK_MAD_LEN];

	if (m->req.service_id != p->service_id) {
		(void)rk_app_cm_dispatch(p, m, ip, NULL, 0, NULL, now, comm_id());
		LOCK();
		rk_tp_resp.cm_rej_service += p->rej_service;
		UNLOCK();
		p->rej_service = 0;
		return false;
	}
	memcpy(tmp.peer_ip, ip, 4);
	if (rk_cm_listen_req(&tmp.conn, m, comm_id(), now) < 0 &&
	    tmp.conn.state == RK_CM_IDLE)
		return true;
	if (p->resolve(p->ctx, tmp.peer_ip, tmp.peer_mac) == 0 &&
	    rk_cm_reject(&tmp.conn, reason, out) > 0)
		(void)p->send(p->ctx, tmp.peer_mac, tmp.peer_ip, out);
	return true;
}

/* A REQ no thread can take: REJ, no resources (IBTA Vol1 12.6.7.2). Under cm_mu. */
static void
reject_busy(const struct rk_cm_msg *m, const uint8_t ip[4], uint64_t now)
{
	if (!reject(m, ip, now, RK_CM_REJ_NO_RESOURCES))
		return;
	LOCK();
	rk_tp_resp.busy++;
	UNLOCK();
	printf("responder: a client from %u.%u.%u.%u refused: %u client(s) being served, the "
	       "most at once\n", ip[0], ip[1], ip[2], ip[3], rk_tp_resp_max_clients());
	fflush(stdout);
}

/* @p m to @p t's connections (a REQ to what it waits for). Under cm_mu. */
static void
dispatch(struct rk_tp_resp_client *t, const struct rk_cm_msg *m, const uint8_t ip[4],
	 uint64_t now)
{
	struct rk_tp_resp_cm *x = t->cm;
	struct rk_app_cm_conn *cs[2] = { &x->comm, &x->data };
	int act;

	if (m->hdr.attr_id == RK_CM_REQ && x->window && x->data.conn.state != RK_CM_IDLE &&
	    !rk_cm_conn_match(&x->comm.conn, m) && !rk_cm_conn_match(&x->data.conn, m)) {
		if (reject(m, ip, now, RK_CM_REJ_CONSUMER_REJECT))
			x->extra++;
		return;
	}
	x->port.rej_service = x->port.refused = 0;
	act = rk_app_cm_dispatch(&x->port, m, ip, cs, 2, x->listen, now, comm_id());
	if (act == -EBADMSG)
		memset(&x->listen->conn, 0, sizeof(x->listen->conn));  /* REJ sent; wait on */
	else if (act < 0)
		x->broken = true;
	LOCK();
	rk_tp_resp.cm_rej_service += x->port.rej_service;
	rk_tp_resp.cm_refused += x->port.refused;
	UNLOCK();
}

/*
 * A MAD to its thread. A REQ nobody waits for is held while a thread may
 * still come for it (one starts within a millisecond of the last one
 * taking its client), else rejected. Under cm_mu.
 */
static void
deliver(const struct rk_cm_msg *m, const uint8_t ip[4], uint64_t now)
{
	struct rk_tp_resp_client *t = route(m, ip);
	unsigned int threads = 0;

	if (t != NULL) {
		dispatch(t, m, ip, now);
		return;
	}
	/* no connection's: a DREQ its DREP (the client's gone), the rest dropped */
	if (m->hdr.attr_id == RK_CM_DREQ)
		(void)rk_app_cm_drep_unknown(nobody_port(), m, ip);
	if (m->hdr.attr_id != RK_CM_REQ)
		return;
	for (int i = 0; i < RK_TP_RESP_CLIENTS; i++)
		threads += reg[i] != NULL;
	if (threads < rk_tp_resp_max_clients() && nheld < HELD) {
		held[nheld].m = *m;
		memcpy(held[nheld].ip, ip, 4);
		held[nheld++].since = now;
		return;
	}
	reject_busy(m, ip, now);
}

/* The REQs held: to the thread now waiting, or rejected once held too long. Under cm_mu. */
static void
deliver_held(uint64_t now)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < nheld; i++) {
		struct rk_tp_resp_client *t = route(&held[i].m, held[i].ip);

		if (t != NULL)
			dispatch(t, &held[i].m, held[i].ip, now);
		else if (now - held[i].since > HOLD_NS)
			reject_busy(&held[i].m, held[i].ip, now);
		else
			held[k++] = held[i];
	}
	nheld = k;
}

void
rk_tp_resp_cm_register(struct rk_tp_resp_client *c)
{
	reg[c->slot] = c;
}

void
rk_tp_resp_cm_unregister(const struct rk_tp_resp_client *c)
{
	if (reg[c->slot] == c)
		reg[c->slot] = NULL;
}

void
rk_tp_resp_cm_route(uint64_t now)
{
	uint8_t mad[RK_TP_CMQ][RK_MAD_LEN], ip[RK_TP_CMQ][4];
	unsigned int n;
	uint64_t malformed = 0;

	LOCK();
	n = rk_tp_cmq_take(&rk_tp_resp.cmq, mad, ip, RK_TP_CMQ);
	UNLOCK();
	deliver_held(now);
	for (unsigned int i = 0; i < n; i++) {
		struct rk_cm_msg m;

		/* Other management classes, attributes, or garbage: counted, dropped. */
		if (rk_cm_decode(mad[i], RK_MAD_LEN, &m) != 0)
			malformed++;
		else
			deliver(&m, ip[i], now);
	}
	if (malformed > 0) {
		LOCK();
		rk_tp_resp.cm_malformed += malformed;
		UNLOCK();
	}
}
