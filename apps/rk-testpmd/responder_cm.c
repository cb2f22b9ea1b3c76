/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The responder's perftest -R clients (RDMA-CM over QP1, RoCEv2), on the
 * control thread, as rk-interop's server does it (apps/common/cm.c does
 * the CM's part for both). Per client, in perftest's order: the REQ of
 * its exchange ("comm") connection for service ID TCP:<port> is accepted
 * (REP, our exchange QP to RTS); the preamble over SENDs on that QP, the
 * server reading first; the data QP (responder.c's), then the binary key
 * messages, the client's first ones zeros; the REQ of the data connection
 * on the same service ID accepted; then every message answered in kind by
 * its length (keys with ours, the five report values with ours) until the
 * client disconnects; one data connection only: perftest -q N's others
 * are rejected (more_qps()). The forwarding loop queues QP1's MADs
 * (rk_tp_resp_cm_mad()) and frames go out under rk_tp_rdma_lock.
 * Each client has a thread; one of them at a time waits for a new
 * client's REQ. Whichever thread pumps QP1 hands each MAD to the thread
 * it belongs to (responder_cm_route.c); every thread's connections and
 * what it waits for are under rk_tp_resp_cm_mu (taken before
 * rk_tp_rdma_lock).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_random.h>

#include "rdma.h"
#include "responder.h"
#include "responder_cm.h"
#include "rk_app_cm.h"
#include "rk_app_qp.h"
#include "rk_io_dpdk.h"
#include "testpmd.h"

#define LOCK() rte_ticketlock_lock(&rk_tp_rdma_lock)
#define UNLOCK() rte_ticketlock_unlock(&rk_tp_rdma_lock)
#define fail rk_tp_resp_fail
#define RECVS RK_TP_RESP_CM_RECVS
#define MSG RK_TP_RESP_CM_MSG
#define cm_mu rk_tp_resp_cm_mu
#define qp1_send rk_tp_resp_qp1_send
#define qp1_resolve rk_tp_resp_qp1_resolve
#define SEND_ID RECVS
#define OUTS 16u

/* The exchange QP's completions (rk_tp_cm_comm_poll()). */
static int
poll_comm(struct rk_tp_resp_client *c)
{
	enum rk_wc_status st;
	int rc = rk_tp_cm_comm_poll(c->cm, &st);

	if (rc == -EIO)
		return fail(c, "exchange QP: completion error: %s", rk_wc_status_str(st));
	return rc < 0 ? fail(c, "poll_cq: %s", strerror(-rc)) : 0;
}

static int
post_recv(struct rk_tp_resp_client *c, uint32_t slot)
{
	int rc = rk_tp_cm_comm_post_recv(c->cm, slot);

	return rc == 0 ? 0 : fail(c, "post_recv (exchange QP): %s", strerror(-rc));
}

int
rk_tp_cm_comm_poll(struct rk_tp_resp_cm *x, enum rk_wc_status *st)
{
	struct rk_wc wc[8];
	int n;

	LOCK();
	n = rk_poll_cq(x->cq, 8, wc);
	UNLOCK();
	for (int i = 0; i < n; i++) {
		if (wc[i].status != RK_WC_SUCCESS) {
			*st = wc[i].status;
			return -EIO;
		}
		if (wc[i].wr_id == SEND_ID) {
			x->send_done = true;
		} else {
			x->done[x->head % RECVS] = (uint32_t)wc[i].wr_id;
			x->len[x->head % RECVS] = wc[i].byte_len;
			x->head++;
		}
	}
	return n < 0 ? n : 0;
}

int
rk_tp_cm_comm_post_recv(struct rk_tp_resp_cm *x, uint32_t slot)
{
	struct rk_sge sge = { (uint64_t)(uintptr_t)x->buf[slot], MSG, x->mr->lkey };
	struct rk_recv_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = 1 }, *bad;
	int rc;

	LOCK();
	rc = rk_post_recv(x->qp, &wr, &bad);
	UNLOCK();
	return rc;
}

int
rk_tp_cm_comm_send(struct rk_tp_resp_cm *x, const void *msg, size_t len)
{
	struct rk_sge sge = { (uint64_t)(uintptr_t)x->buf[SEND_ID], (uint32_t)len, x->mr->lkey };
	struct rk_send_wr wr = { .wr_id = SEND_ID, .sg_list = &sge, .num_sge = 1,
				 .opcode = RK_WR_SEND, .send_flags = RK_SEND_SIGNALED }, *bad;
	int rc;

	if (len > MSG)
		return -EMSGSIZE;
	memcpy(x->buf[SEND_ID], msg, len);
	x->send_done = false;
	LOCK();
	rc = rk_post_send(x->qp, &wr, &bad);
	UNLOCK();
	return rc;
}

int
rk_tp_cm_comm_create(struct rk_tp_resp_cm *x, uint16_t port)
{
	struct rk_qp_init_attr ia = { .qp_type = RK_QPT_RC, .sq_sig_all = 1,
				      .cap = { .max_send_wr = 4, .max_recv_wr = RECVS,
					       .max_send_sge = 1, .max_recv_sge = 1 } };
	struct rk_qp_attr at = { .qp_state = RK_QPS_INIT, .port_num = 1 };
	struct rk_tp_rdma_dev *d;
	int rc = -ENODEV;

	LOCK();
	d = rk_tp_rdma_dev(port, false, NULL);
	if (d != NULL) {
		x->cq = rk_create_cq(d->ctx, 2 * RECVS, NULL);
		x->mr = rk_reg_mr(d->pd, x->buf, sizeof(x->buf), RK_ACCESS_LOCAL_WRITE);
		ia.send_cq = ia.recv_cq = x->cq;
		x->qp = x->cq != NULL && x->mr != NULL ? rk_create_qp(d->pd, &ia) : NULL;
		if (x->qp == NULL)
			rc = errno != 0 ? -errno : -ENOMEM;
		else
			rc = rk_modify_qp(x->qp, &at, RK_QP_STATE | RK_QP_PKEY_INDEX |
					  RK_QP_PORT | RK_QP_ACCESS_FLAGS);
	}
	UNLOCK();
	for (uint32_t i = 0; rc == 0 && i < RECVS; i++)
		rc = rk_tp_cm_comm_post_recv(x, i);
	return rc;
}

void
rk_tp_cm_comm_free(struct rk_tp_resp_cm *x)
{
	LOCK();
	if (x->qp != NULL)
		rk_destroy_qp(x->qp);
	if (x->mr != NULL)
		rk_dereg_mr(x->mr);
	if (x->cq != NULL)
		rk_destroy_cq(x->cq);
	UNLOCK();
	x->qp = NULL;
	x->mr = NULL;
	x->cq = NULL;
}

/*
 * Serve QP1 and @p c's exchange QP once: queued MADs to their threads'
 * connections, @p c's timers, its completions. @return 0, or -1.
 */
static int
pump(struct rk_tp_resp_client *c)
{
	struct rk_tp_resp_cm *x = c->cm;
	struct rk_app_cm_conn *cs[2] = { &x->comm, &x->data };
	uint64_t now = rk_io_dpdk_now_ns();
	int act;

	pthread_mutex_lock(&cm_mu);
	rk_tp_resp_cm_route(now);
	x->port.rej_service = x->port.refused = 0;
	act = rk_app_cm_timers(&x->port, cs, 2, now);
	/* DREQ/DREP, REJ or timeout of the exchange connection: the client is gone. */
	x->closed = x->comm.conn.state > RK_CM_ESTABLISHED;
	x->more = x->extra > 0;
	if (act < 0)
		x->broken = true;
	act = x->broken ? -1 : 0;
	pthread_mutex_unlock(&cm_mu);
	if (act < 0)
		return -1;
	return x->qp != NULL && poll_comm(c) != 0 ? -1 : 0;
}

/* @p conn's state, as another thread's pump may change it. */
static enum rk_cm_state
conn_state(const struct rk_app_cm_conn *conn)
{
	enum rk_cm_state st;

	pthread_mutex_lock(&cm_mu);
	st = conn->conn.state;
	pthread_mutex_unlock(&cm_mu);
	return st;
}

/* The exchange QP, its region and receives; INIT. */
static int
create_comm(struct rk_tp_resp_client *c)
{
	int rc = rk_tp_cm_comm_create(c->cm, rk_tp_resp.port);

	return rc == 0 ? 0 : fail(c, "cannot create the exchange QP: %s", strerror(-rc));
}

/*
 * Wait for a REQ on @p conn (forever when @p wait_s is 0, until "responder
 * stop"), accept it with @p qp at @p psn, @p resources READ/atomic depth.
 * @return 0, 1 when stopped before a REQ came, -1 (c->err says why)
 */
static int
accept_req(struct rk_tp_resp_client *c, struct rk_app_cm_conn *conn, struct rk_qp *qp,
	   uint32_t psn, uint8_t resources, enum rk_mtu mtu, double wait_s)
{
	struct rk_tp_resp_cm *x = c->cm;
	uint64_t deadline = rk_io_dpdk_now_ns() + (uint64_t)(wait_s * 1e9);
	struct rk_app_qp_path p;
	struct rk_cm_params lp;
	uint8_t rep[RK_MAD_LEN], dgid[16];
	struct rk_tp_rdma_dev *d;
	const char *state = "RTR";
	int rc;

	pthread_mutex_lock(&cm_mu);
	x->listen = conn;
	pthread_mutex_unlock(&cm_mu);
	while (conn_state(conn) == RK_CM_IDLE) {
		if (pump(c) < 0)
			return -1;
		if (conn_state(conn) != RK_CM_IDLE)
			break;
		if (rk_tp_resp_serve(NULL) != 0)
			return conn == &x->comm ? 1 : fail(c, "stopped");
		if (wait_s > 0 && rk_io_dpdk_now_ns() > deadline)
			return fail(c, "no REQ for the data connection within %.0f s", wait_s);
	}
	if (conn == &x->comm)
		rk_tp_resp_took(c);     /* the next client's REQ goes to another thread */
	LOCK();
	d = rk_tp_rdma_dev(rk_tp_resp.port, false, NULL);
	if (d != NULL)
		lp = rk_app_cm_params(qp->qp_num, psn, resources, mtu, d->mac, d->ip, 14, 0);
	UNLOCK();
	if (d == NULL)
		return fail(c, "no verbs device");
	pthread_mutex_lock(&cm_mu);
	x->listen = NULL;
	rc = rk_app_cm_accept(&x->port, conn, &lp, rk_io_dpdk_now_ns(), rep);
	if (rc == 0)
		rk_app_cm_qp_path(conn, dgid, &p);
	pthread_mutex_unlock(&cm_mu);
	if (rc == -EMSGSIZE)
		return fail(c, "the REQ asks for path MTU %u, above ours (%u): rejected (%s)",
			    128u << conn->conn.peer.path_mtu, 128u << mtu,
			    rk_cm_rej_reason_name(RK_CM_REJ_INVALID_MTU));
	if (rc != 0)
		return fail(c, "cannot accept the REQ");
	/* The QP answers before the REP leaves: the client sends once it has it. */
	p.min_rnr_timer = 12;
	p.timeout = 14;
	p.retry_cnt = 7;
	p.rnr_retry = 7;
	LOCK();
	rc = rk_app_qp_connect(qp, &p, &state);
	UNLOCK();
	if (rc != 0)
		return fail(c, "cannot move the QP to %s: %s", state, strerror(-rc));
	return qp1_send(c, conn->peer_mac, conn->peer_ip, rep);
}

/*
 * Wait for the client's next exchange message: its length in *@p len.
 * Frames reaching the device keep the wait going (the data phase).
 * @return 0; 1 when the client disconnected first or asked for more data
 *         connections (more_qps()); -1
 */
static int
next_msg(struct rk_tp_resp_client *c, uint32_t *len)
{
	struct rk_tp_resp_cm *x = c->cm;
	uint64_t fed = UINT64_MAX, last = rk_io_dpdk_now_ns();

	while (x->head == x->tail) {
		struct rk_tp_rdma_dev *d;
		uint64_t f;

		if (pump(c) < 0)
			return -1;
		if (x->head != x->tail)
			break;
		if (x->closed || x->more)
			return 1;
		if (rk_tp_resp_serve(NULL) != 0)
			return fail(c, "stopped");
		LOCK();
		d = rk_tp_rdma_dev(rk_tp_resp.port, false, NULL);
		f = d != NULL ? d->rx_fed : 0;
		UNLOCK();
		if (f != fed)
			last = rk_io_dpdk_now_ns();
		fed = f;
		if ((double)(rk_io_dpdk_now_ns() - last) > rk_tp_resp.idle_s * 1e9)
			return fail(c, "the client sent neither frames nor messages for %.0f s",
				    rk_tp_resp.idle_s);
	}
	*len = x->len[x->tail % RECVS];
	return 0;
}

/*
 * Whether the client asked for more data connections than one (perftest
 * -R -q N, rejected by responder_cm_route.c). Its first data REQ looks
 * like -q 1's: perftest sends its N REQs at once and its next exchange
 * message only once all N are established, so N > 1 shows as a second
 * REQ from the client's address before that message. Then its REQs are
 * rejected until it gives up (perftest retries 10 times, 100 ms apart):
 * it disconnects, 2 s pass without one, or 10 s in all.
 * @return true when it did (c->err says so, the count is up)
 */
static bool
more_qps(struct rk_tp_resp_client *c)
{
	struct rk_tp_resp_cm *x = c->cm;

	if (!x->more)
		return false;
	(void)fail(c, "perftest -R with -q N: several data connections (RDMA-CM) not "
		   "supported, use the TCP exchange");
	LOCK();
	rk_tp_resp.cm_qps_refused++;
	UNLOCK();
	for (uint64_t t0 = rk_io_dpdk_now_ns(), last = t0, n = 0, now = t0;
	     now - t0 < 10000000000ull && now - last < 2000000000ull; now = rk_io_dpdk_now_ns()) {
		if (pump(c) < 0 || x->closed || rk_tp_resp_serve(NULL) != 0)
			break;
		pthread_mutex_lock(&cm_mu);
		if (x->extra != n)
			last = now;
		n = x->extra;
		pthread_mutex_unlock(&cm_mu);
	}
	return true;
}

/* One step in the server's order (rk_pt_xchg_fn): the client's message, then ours, ACKed. */
static int
xchg(void *ctx, const void *mine, void *theirs, size_t len)
{
	struct rk_tp_resp_client *c = ctx;
	struct rk_tp_resp_cm *x = c->cm;
	uint32_t got, slot;
	int rc = next_msg(c, &got);

	if (rc != 0)
		return rc < 0 ? -1 : fail(c, "the client disconnected mid-exchange");
	if (got != len)
		return fail(c, "exchange message of %u bytes, expected %zu", got, len);
	slot = x->done[x->tail++ % RECVS];
	memcpy(theirs, x->buf[slot], len);
	if (post_recv(c, slot) != 0)
		return -1;
	rc = rk_tp_cm_comm_send(x, mine, len);
	if (rc != 0)
		return fail(c, "post_send (exchange QP): %s", strerror(-rc));
	/* ACKed before the next step: a disconnect must not overtake it. */
	for (uint64_t end = rk_io_dpdk_now_ns() + (uint64_t)(rk_tp_resp.idle_s * 1e9); !x->send_done;) {
		if (pump(c) < 0)
			return -1;
		if (x->send_done)
			break;
		if (x->closed || rk_io_dpdk_now_ns() > end)
			return fail(c, "the client did not take our exchange message");
		if (rk_tp_resp_serve(NULL) != 0)
			return fail(c, "stopped");
	}
	return 0;
}

/* Binary keys (perftest -R): the client's last real ones kept. */
static int
keys(struct rk_tp_resp_client *c)
{
	return rk_pt_keys_bin_xchg(xchg, c, c->s.qp != NULL ? &c->local : NULL, &c->remote);
}

/* Answer by length until the client disconnects: keys, or a report's first value. */
static int
answer(struct rk_tp_resp_client *c, struct rk_pt_report *peer, bool *reported)
{
	struct rk_pt_report ours = { .size = rk_tp_resp.max_size };

	for (;;) {
		uint32_t len;
		int rc = next_msg(c, &len);

		if (more_qps(c))
			return -1;
		if (rc != 0)
			return rc < 0 ? -1 : 0;
		pthread_mutex_lock(&cm_mu);
		c->cm->window = false;
		pthread_mutex_unlock(&cm_mu);
		if (len == RK_PT_KEY_BIN_LEN) {
			if (keys(c) != 0)
				return -1;
		} else if (len == 8) {
			if (rk_pt_reports(xchg, c, &ours, peer) != 0)
				return -1;
			*reported = true;
		} else {
			return fail(c, "unexpected exchange message of %u bytes", len);
		}
	}
}

/* DREQ what is still connected; DREPs (and the client's DREQs) for up to 2 s. */
static void
close_conns(struct rk_tp_resp_client *c)
{
	struct rk_tp_resp_cm *x = c->cm;
	struct rk_app_cm_conn *cs[2] = { &x->data, &x->comm };
	uint8_t out[RK_MAD_LEN];

	for (int i = 0; i < 2; i++) {
		int n = 0;

		pthread_mutex_lock(&cm_mu);
		if (cs[i]->conn.state == RK_CM_ESTABLISHED)
			n = rk_cm_disconnect(&cs[i]->conn, rte_rand(), rk_io_dpdk_now_ns(), out);
		pthread_mutex_unlock(&cm_mu);
		if (n > 0)
			(void)qp1_send(c, cs[i]->peer_mac, cs[i]->peer_ip, out);
	}
	for (uint64_t end = rk_io_dpdk_now_ns() + 2000000000ull; rk_io_dpdk_now_ns() < end;) {
		bool open = false;

		for (int i = 0; i < 2; i++) {
			enum rk_cm_state st = conn_state(cs[i]);

			open = open || st == RK_CM_ESTABLISHED || st == RK_CM_DREQ_SENT ||
			       st == RK_CM_REP_SENT;
		}
		if (!open || pump(c) < 0 || rk_tp_resp_serve(NULL) != 0)
			return;
	}
}

int
rk_tp_resp_cm_client(struct rk_tp_resp_client *c)
{
	struct rk_pt_report peer = { 0 };
	enum rk_mtu mtu = rk_tp_rdma_path_mtu(rk_tp_resp.port);
	bool reported = false;
	uint64_t sum0 = 0;
	int rc;

	c->cm = calloc(1, sizeof(*c->cm));
	if (c->cm != NULL) {
		c->cm->port = (struct rk_app_cm_port){
			.ctx = c, .send = qp1_send, .resolve = qp1_resolve,
			.service_id = rk_cm_service_id(RK_CM_PS_TCP, rk_tp_resp.tcp_port) };
	}
	if (c->cm != NULL) {
		pthread_mutex_lock(&cm_mu);
		rk_tp_resp_cm_register(c);
		pthread_mutex_unlock(&cm_mu);
	}
	if (c->cm == NULL || create_comm(c) != 0) {
		/* Out of memory or verbs objects (the user's own QPs?): say so, retry in 1 s. */
		printf("responder: cannot wait for a client: %s\n",
		       c->cm == NULL ? "no memory" : c->err);
		fflush(stdout);
		for (int i = 0; i < 1000 && rk_tp_resp_serve(NULL) == 0; i++)
			;
		return 1;
	}
	rc = accept_req(c, &c->cm->comm, c->cm->qp, (uint32_t)rte_rand() & 0xffffff, 0, mtu, 0);
	if (rc == 1 || (rc < 0 && conn_state(&c->cm->comm) == RK_CM_IDLE))
		return 1;       /* stopped, or no client came: nobody to report on */
	LOCK();
	c->n = ++rk_tp_resp.next_n;
	UNLOCK();
	snprintf(c->peer, sizeof(c->peer), "%u.%u.%u.%u", c->cm->comm.peer_ip[0],
		 c->cm->comm.peer_ip[1], c->cm->comm.peer_ip[2], c->cm->comm.peer_ip[3]);
	if (rc != 0 || rk_tp_resp_begin(c, xchg) != 0)
		goto out;
	sum0 = rk_pt_word_sum(c->s.buf, c->s.buf_len);
	/* The data REQ may come while our key message waits for its ACK. */
	pthread_mutex_lock(&cm_mu);
	c->cm->listen = &c->cm->data;
	c->cm->window = true;
	pthread_mutex_unlock(&cm_mu);
	if (keys(c) != 0 ||
	    accept_req(c, &c->cm->data, c->s.qp, c->local.psn, OUTS, (enum rk_mtu)c->mtu_enum,
		       rk_tp_resp.idle_s) != 0)
		goto out;
	LOCK();
	c->s.n = c->n;
	c->s.qps = 1;
	rk_tp_resp_sess_add(&c->s);
	UNLOCK();
	printf("responder: client %u (%s): perftest %s -R, QPN %#06x <- %#06x, path MTU %u\n",
	       c->n, c->peer, c->version, c->local.qpn, c->cm->data.conn.peer.qpn,
	       128u << c->cm->data.conn.peer.path_mtu);
	fflush(stdout);
	(void)answer(c, &peer, &reported);
out:
	rk_tp_resp_verdict(c, &peer, reported, sum0);
	close_conns(c);
	return 0;
}

void
rk_tp_resp_cm_release(struct rk_tp_resp_client *c)
{
	struct rk_tp_resp_cm *x = c->cm;

	if (x == NULL)
		return;
	pthread_mutex_lock(&cm_mu);
	rk_tp_resp_cm_unregister(c);
	pthread_mutex_unlock(&cm_mu);
	rk_tp_cm_comm_free(x);
	free(x);
	c->cm = NULL;
}
