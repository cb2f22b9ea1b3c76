/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA-CM over QP1 for rk-interop, and the peer of librdmacm's rping.
 *
 * QP1 (the GSI) lives here, not in the transport engine: an rk_io_ops shim
 * between the DPDK backend and the engine takes every UD SEND Only to
 * DestQP 1 off the receive path and queues its MAD; CM MADs go out as UD
 * SEND Only frames from QP1 (DETH Q_Key 0x80010000, SrcQP 1). The frames,
 * the routing of MADs to connections and the accept are apps/common's
 * (rk_app_cm.h, shared with rk-testpmd's responder); lib/cm decodes,
 * encodes and keeps each connection's state.
 *
 * rping (librdmacm/examples/rping.c), per ping: the client SENDs the
 * address, R_Key and length of its source buffer (16 bytes, big endian);
 * the server READs it and SENDs a go-ahead; the client SENDs its sink
 * buffer; the server WRITEs what it read (up to its NUL) there and SENDs
 * a go-ahead. The ping text is "rdma-ping-N: " then letters A..z rotating
 * from a start that advances each ping, NUL-terminated. Both roles check
 * it here; rping -V checks it on the tool's side.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interop.h"
#include "rk_app_cm.h"
#include "rk_app_qp.h"
#include "rping.h"

#define CM_QUEUE 16

static struct {
	uint8_t mad[CM_QUEUE][RK_MAD_LEN];
	unsigned int head, tail;
	uint64_t dropped;
	uint32_t psn;
	uint8_t src_ip[4];              /* of the last MAD: where a REQ came from */
} cmq;

/* ---------------------------------------------------------------- the shim */

static int
shim_tx(void *io, const uint8_t *f, uint32_t len)
{
	return rk_io_dpdk_ops.tx(((struct ia *)io)->io, f, len);
}

/* Frames for QP1 stop here; every other frame goes on to the engine. */
static int
shim_rx(void *io, uint8_t *buf, uint32_t cap)
{
	struct ia *a = io;

	for (;;) {
		int n = rk_io_dpdk_ops.rx(a->io, buf, cap);
		uint8_t mad[RK_MAD_LEN], src_ip[4];

		if (n <= 0 || !rk_app_cm_frame_mad(buf, (uint32_t)n, mad, src_ip))
			return n;
		if (cmq.head - cmq.tail < CM_QUEUE) {
			memcpy(cmq.mad[cmq.head % CM_QUEUE], mad, RK_MAD_LEN);
			memcpy(cmq.src_ip, src_ip, 4);
			cmq.head++;
		} else {
			cmq.dropped++;
		}
	}
}

static uint64_t
shim_now(void *io)
{
	return rk_io_dpdk_ops.now_ns(((struct ia *)io)->io);
}

static void
shim_flush(void *io)
{
	rk_io_dpdk_ops.flush(((struct ia *)io)->io);
}

static unsigned int
shim_tx_room(void *io)
{
	return rk_io_dpdk_ops.tx_room(((struct ia *)io)->io);
}

const struct rk_io_ops ia_shim_ops = {
	.name = "rk-interop QP1 shim", .tx = shim_tx, .rx = shim_rx, .now_ns = shim_now,
	.flush = shim_flush, .tx_room = shim_tx_room,
};

/* One CM MAD from our QP1 to the peer's. */
static int
cm_send(struct ia *a, const uint8_t peer_mac[6], const uint8_t peer_ip[4],
	const uint8_t mad[RK_MAD_LEN])
{
	uint8_t frame[512], mac[6];
	int n;

	rk_io_dpdk_mac(a->io, mac);
	n = rk_app_cm_frame(frame, sizeof(frame), mac, peer_mac, a->o.ip, peer_ip, cmq.psn++,
			    mad);
	if (n < 0)
		return ia_fail(a, "cannot build a CM frame: %s", strerror(-n));
	if (rk_io_dpdk_ops.tx(a->io, frame, (uint32_t)n) != 0)
		return ia_fail(a, "cannot send a CM MAD");
	rk_io_dpdk_ops.flush(a->io);
	if (a->o.verbose) {
		struct rk_cm_msg m;

		if (rk_cm_decode(mad, RK_MAD_LEN, &m) == 0)
			fprintf(stderr, "rk-interop: CM -> %s\n", rk_cm_attr_name(m.hdr.attr_id));
	}
	return 0;
}

/* The next queued CM MAD, decoded; false when none waits. */
static bool
cm_next(struct ia *a, struct rk_cm_msg *m)
{
	while (cmq.tail != cmq.head) {
		const uint8_t *mad = cmq.mad[cmq.tail++ % CM_QUEUE];

		if (rk_cm_decode(mad, RK_MAD_LEN, m) == 0) {
			if (a->o.verbose)
				fprintf(stderr, "rk-interop: CM <- %s\n",
					rk_cm_attr_name(m->hdr.attr_id));
			return true;
		}
		/* Other management classes or attributes: not ours. */
	}
	return false;
}

static uint32_t
rand32(void)
{
	return (uint32_t)mrand48();
}

/* ----------------------------------------------------------------- rping */

/* rping over RoCE: the shared loops (rping.c) on an RDMA-CM connection. */
struct rp {
	struct ia_rping r;
	bool server;
	struct rk_app_cm_conn cm;
	uint32_t psn;
};

int
ia_post_send(struct ia *a, struct rk_qp *qp, uint64_t id, enum rk_wr_opcode op,
	     const void *local, uint32_t len, uint32_t lkey, uint64_t raddr, uint32_t rkey)
{
	struct rk_sge sge = { (uint64_t)(uintptr_t)local, len, lkey };
	struct rk_send_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = op,
				 .send_flags = RK_SEND_SIGNALED };
	struct rk_send_wr *bad;
	int rc;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	rc = rk_post_send(qp, &wr, &bad);
	if (rc == -ENOMEM)
		return 1;
	return rc == 0 ? 0 : ia_fail(a, "post_send: %s", strerror(-rc));
}

/* Serve the port and our connection's CM once: event bits, or -1 with a message. */
static int
cm_pump(struct rp *r)
{
	struct rk_app_cm_conn *c = &r->cm;

	return ia_cm_pump(r->r.a, &c, 1, NULL);
}

/*
 * rping's wait: one completion (1, in @p wc) while serving the CM; 0 when
 * the peer disconnected first; -1 on error, REJ or timeout.
 */
static int
rp_wait(struct ia_rping *ping, struct rk_wc *wc, const char *what)
{
	struct rp *r = ping->link;
	struct ia *a = ping->a;

	rk_app_watchdog_restart(&a->wd);
	for (;;) {
		int n = rk_poll_cq(ping->cq, 1, wc), act;

		if (n < 0)
			return ia_fail(a, "poll_cq: %s", strerror(-n));
		if (n == 1) {
			if (wc->status != RK_WC_SUCCESS)
				return ia_fail(a, "QP %#x: %s: %s completion error: %s%s",
					       wc->qp_num, what,
					       wc->wr_id == IA_RPING_RECV ? "receive" : "send",
					       rk_wc_status_str(wc->status),
					       wc->status == RK_WC_RETRY_EXC_ERR ?
					       " (the peer stopped answering)" : "");
			return 1;
		}
		act = cm_pump(r);
		if (act < 0)
			return -1;
		if (act & RK_CM_EV_DISCONNECTED)
			return 0;
		if (act & RK_CM_EV_REJECTED)
			return ia_fail(a, "the peer rejected the connection: %s",
				       rk_cm_rej_reason_name(r->cm.conn.rej_reason));
		if (ia_watchdog(a, 0) != 0)
			return ia_fail(a, "no completion for %.0f s (the peer vanished?)",
				       a->o.timeout_s);
	}
}

static int
rp_create(struct rp *r)
{
	struct ia *a = r->r.a;
	struct rk_qp_init_attr ia = { .qp_type = RK_QPT_RC,
				      .cap = { .max_send_wr = 16, .max_recv_wr = 2,
					       .max_send_sge = 1, .max_recv_sge = 1 } };
	struct rk_qp_attr at = { .qp_state = RK_QPS_INIT, .port_num = 1,
				 .qp_access_flags = RK_ACCESS_REMOTE_READ |
						    RK_ACCESS_REMOTE_WRITE };
	int rc;

	if (ia_rping_alloc(&r->r) != 0)
		return -1;
	ia.send_cq = ia.recv_cq = r->r.cq;
	r->r.qp = rk_create_qp(r->r.pd, &ia);
	if (r->r.qp == NULL)
		return ia_fail(a, "cannot create the QP: %s", strerror(errno));
	rc = rk_modify_qp(r->r.qp, &at, RK_QP_STATE | RK_QP_PKEY_INDEX | RK_QP_PORT |
			  RK_QP_ACCESS_FLAGS);
	if (rc != 0)
		return ia_fail(a, "modify QP to INIT: %s", strerror(-rc));
	r->psn = rand32() & 0xffffff;
	return ia_rping_post_recv(&r->r);
}

/* Server: the CM's accept, then its RTU (or a first packet: rping's client sends first). */
static int
rp_cm_accept(struct rp *r)
{
	struct ia *a = r->r.a;
	double deadline;

	if (ia_cm_accept(a, &r->cm, r->r.qp, r->psn, 1, NULL, 0) != 0)
		return -1;
	deadline = (double)rk_io_dpdk_now_ns() + a->o.oob_timeout_s * 1e9;
	while (r->cm.conn.state == RK_CM_REP_SENT) {
		if (cm_pump(r) < 0)
			return -1;
		if (rk_context_stats(a->ctx)->rx_frames > 0 ||
		    (double)rk_io_dpdk_now_ns() > deadline)
			break;
	}
	if (r->cm.conn.state != RK_CM_ESTABLISHED && r->cm.conn.state != RK_CM_REP_SENT)
		return ia_fail(a, "the connection ended before it was established (%s)",
			       rk_cm_state_name(r->cm.conn.state));
	return 0;
}

/* Disconnect (client) and wait for the DREP, bounded. */
static int
rp_disconnect(struct rp *r)
{
	struct rk_app_cm_conn *c = &r->cm;

	if (ia_cm_close(r->r.a, &c, 1, true, 5.0) != 0)
		return -1;
	if (c->conn.state == RK_CM_DREQ_SENT)
		return ia_fail(r->r.a, "no DREP to our DREQ within 5 s");
	return 0;
}

/* One rping connection, as client or server: 0, or -1 with a message. */
static int
rp_one(struct ia *a, bool server)
{
	struct rp r = { .r = { .a = a, .size = a->o.size, .wait = rp_wait },
			.server = server, .cm = { .no_retry = true } };
	int rc;

	/* parse_args() held the size to rping's 32..65535. */
	r.r.link = &r;
	rc = rp_create(&r);
	if (rc == 0)
		rc = r.server ? rp_cm_accept(&r) :
		     ia_cm_connect(a, &r.cm, r.r.qp, r.psn, 1, NULL, 0);
	if (rc == 0) {
		printf("rping: connected, QPN %#x <-> %#x, path MTU %u\n", r.r.qp->qp_num,
		       r.cm.conn.peer.qpn, 128u << r.cm.conn.peer.path_mtu);
		fflush(stdout);
		rc = r.server ? ia_rping_server(&r.r) : ia_rping_client(&r.r);
		if (!r.server && rp_disconnect(&r) != 0 && rc == 0)
			rc = -1;
		/* Let our DREP or the last ACKs leave. */
		for (uint64_t t = rk_io_dpdk_now_ns() + 100000000ull; rk_io_dpdk_now_ns() < t;)
			(void)cm_pump(&r);
	} else if (r.server && a->o.persistent && rk_app_stop &&
		   r.cm.conn.state == RK_CM_IDLE) {
		rc = 1;         /* stopped between clients: rping -P's end */
	}
	ia_rping_free(&r.r);
	return rc;
}

int
ia_rping(struct ia *a)
{
	bool server = a->o.server_host == NULL;
	uint32_t clients = 0;
	int rc;

	/* rping -P: a fresh QP and connection for each client, one at a time. */
	while ((rc = rp_one(a, server)) == 0 && server && a->o.persistent)
		clients++;
	if (rc > 0) {
		printf("rping: persistent server stopped after %u clients\n", clients);
		rc = 0;
	}
	if (cmq.dropped > 0)
		fprintf(stderr, "rk-interop: %" PRIu64 " CM MADs dropped (queue full)\n",
			cmq.dropped);
	return rc;
}

/* ------------------------------------------- RDMA-CM for other modes */

static int
port_send(void *ctx, const uint8_t mac[6], const uint8_t ip[4], const uint8_t mad[RK_MAD_LEN])
{
	return cm_send(ctx, mac, ip, mad);
}

static int
port_resolve(void *ctx, const uint8_t ip[4], uint8_t mac[6])
{
	return ia_resolve(ctx, ip, mac);
}

/* Our QP1 as the shared CM code sees it: REQs for o.tcp_port are ours. */
static struct rk_app_cm_port
cm_port(struct ia *a)
{
	return (struct rk_app_cm_port){ .ctx = a, .send = port_send, .resolve = port_resolve,
					.service_id = rk_cm_service_id(RK_CM_PS_TCP,
								       a->o.tcp_port) };
}

/*
 * Serve the port once for several connections: queued MADs go to the
 * connection they match; a REQ for our port goes to @p listen (IDLE).
 * Returns the event bits seen, -1 with a message.
 */
int
ia_cm_pump(struct ia *a, struct rk_app_cm_conn **cs, int n, struct rk_app_cm_conn *listen)
{
	uint64_t now = rk_io_dpdk_now_ns();
	struct rk_app_cm_port port = cm_port(a);
	struct rk_cm_msg m;
	int act, seen = 0, work = rk_progress(a->ctx);

	/* Every CM wait passes here: SIGINT/SIGTERM ends it. */
	if (ia_check_stop(a) != 0)
		return -1;
	if (work > 0)
		a->wd.last_ns = now;
	while (cm_next(a, &m)) {
		act = rk_app_cm_dispatch(&port, &m, cmq.src_ip, cs, n, listen, now, rand32());
		if (act == -EBADMSG)
			return ia_fail(a, "refused a REQ we cannot serve (not RC, or no RDMA-CM IP "
				       "header)");
		if (act < 0)
			return -1;
		seen |= act;
	}
	act = rk_app_cm_timers(&port, cs, n, now);
	if (act < 0)
		return -1;
	seen |= act;
	rk_io_dpdk_idle(a->io, work);
	return seen;
}

static struct rk_cm_params
cm_params(struct ia *a, struct rk_qp *qp, uint32_t rq_psn, uint8_t resources)
{
	uint8_t mac[6];

	rk_io_dpdk_mac(a->io, mac);
	return rk_app_cm_params(qp->qp_num, rq_psn, resources, (enum rk_mtu)ia_mtu_enum(a->o.mtu),
				mac, a->o.ip, a->o.qp_timeout, (uint8_t)(a->o.dscp << 2));
}

int
ia_rc_connect(struct ia *a, struct rk_qp *qp, const struct ia_rc_path *p, bool name_qp)
{
	const char *state = "RTR";
	char name[16] = "";
	int rc = rk_app_qp_connect(qp, &(struct rk_app_qp_path){
		.mtu = p->mtu, .dest_qpn = p->dest_qpn, .rq_psn = p->rq_psn, .sq_psn = p->sq_psn,
		.dmac = p->dmac, .dgid = p->dgid, .dscp = a->o.dscp, .hop_limit = p->hop_limit,
		.uc = p->uc, .max_dest_rd_atomic = p->max_dest_rd_atomic,
		.max_rd_atomic = p->max_rd_atomic, .min_rnr_timer = 12,
		.timeout = a->o.qp_timeout, .retry_cnt = 7, .rnr_retry = 7 }, &state);

	if (rc == 0)
		return 0;
	if (name_qp)
		snprintf(name, sizeof(name), " %#x", qp->qp_num);
	return ia_fail(a, "modify QP%s to %s: %s", name, state, strerror(-rc));
}

/* RTR/RTS of @p qp from what the CM negotiated (Linux's PSN convention). */
static int
cm_program_qp(struct ia *a, struct rk_app_cm_conn *c, struct rk_qp *qp, uint32_t rq_psn)
{
	struct rk_app_qp_path p;
	uint8_t dgid[16];

	rk_app_cm_qp_path(c, dgid, &p);
	return ia_rc_connect(a, qp, &(struct ia_rc_path){
		.mtu = p.mtu, .dest_qpn = p.dest_qpn, .rq_psn = rq_psn,
		.sq_psn = (p.sq_psn + a->o.psn_skew) & 0xffffff,
		.max_dest_rd_atomic = p.max_dest_rd_atomic, .max_rd_atomic = p.max_rd_atomic,
		.dmac = c->peer_mac, .dgid = dgid }, true);
}

int
ia_cm_connect(struct ia *a, struct rk_app_cm_conn *c, struct rk_qp *qp, uint32_t rq_psn,
	      uint8_t resources, struct rk_app_cm_conn **others, int nothers)
{
	struct rk_cm_params p = cm_params(a, qp, rq_psn, resources);
	struct rk_app_cm_port port = cm_port(a);
	uint16_t src_port = (uint16_t)(0x8000 | rand32());
	struct rk_app_cm_conn *all[8];
	uint64_t deadline;
	const char *why;
	int n = 0, rc;

	if (ia_parse_v4(a->o.server_host, c->peer_ip) != 0)
		return ia_fail(a, "RDMA-CM: the server must be an IPv4 address, got '%s'",
			       a->o.server_host);
	if (ia_resolve(a, c->peer_ip, c->peer_mac) != 0)
		return -1;
	for (int i = 0; i < nothers && n < 7; i++)
		all[n++] = others[i];
	all[n++] = c;
	deadline = rk_io_dpdk_now_ns() + (uint64_t)(a->o.oob_timeout_s * 1e9);
	for (;;) {
		rc = rk_app_cm_connect(&port, c, &p, port.service_id, a->o.ip, src_port, rand32(),
				       ((uint64_t)rand32() << 32) | rand32(), rk_io_dpdk_now_ns());
		if (rc == -EINVAL)
			return ia_fail(a, "cannot build the REQ");
		if (rc != 0)
			return -1;
		while (c->conn.state == RK_CM_REQ_SENT && rk_io_dpdk_now_ns() < deadline)
			if (ia_cm_pump(a, all, n, NULL) < 0)
				return -1;
		/* No listener yet (the server is starting): retry, as perftest's client does. */
		if (!rk_app_cm_connect_retry(c, rk_io_dpdk_now_ns(), deadline))
			break;
		for (uint64_t t = rk_io_dpdk_now_ns() + RK_APP_CM_RETRY_NS;
		     rk_io_dpdk_now_ns() < t;)
			if (ia_cm_pump(a, all, n, NULL) < 0)
				return -1;
	}
	why = rk_app_cm_connect_error(c);
	if (why != NULL)
		return ia_fail(a, "connection to %s:%u failed: %s", a->o.server_host,
			       a->o.tcp_port, why);
	return cm_program_qp(a, c, qp, rq_psn);
}

int
ia_cm_accept(struct ia *a, struct rk_app_cm_conn *c, struct rk_qp *qp, uint32_t rq_psn,
	     uint8_t resources, struct rk_app_cm_conn **others, int nothers)
{
	struct rk_cm_params p = cm_params(a, qp, rq_psn, resources);
	struct rk_app_cm_port port;
	uint8_t out[RK_MAD_LEN];
	double deadline = (double)rk_io_dpdk_now_ns() + a->o.oob_timeout_s * 1e9;
	int rc;

	while (c->conn.state == RK_CM_IDLE) {
		if (ia_cm_pump(a, others, nothers, c) < 0)
			return -1;
		/* rping -P waits for its next client without end. */
		if (!a->o.persistent && (double)rk_io_dpdk_now_ns() > deadline)
			return ia_fail(a, "no connection request on port %u within %.0f s",
				       a->o.tcp_port, a->o.oob_timeout_s);
	}
	port = cm_port(a);
	rc = rk_app_cm_accept(&port, c, &p, rk_io_dpdk_now_ns(), out);
	if (rc == -EMSGSIZE)
		return ia_fail(a, "the peer's REQ asks for path MTU %u, above --mtu %u: rejected "
			       "(%s)", 128u << c->conn.peer.path_mtu, a->o.mtu,
			       rk_cm_rej_reason_name(RK_CM_REJ_INVALID_MTU));
	if (rc == -1)
		return -1;
	if (rc < 0)
		return ia_fail(a, "cannot build the REP");
	if (cm_program_qp(a, c, qp, rq_psn) != 0 || cm_send(a, c->peer_mac, c->peer_ip, out) != 0)
		return -1;
	return 0;
}

/* Disconnect what is established (when @p initiate) and wait, bounded, for the ends. */
int
ia_cm_close(struct ia *a, struct rk_app_cm_conn **cs, int n, bool initiate, double wait_s)
{
	uint8_t out[RK_MAD_LEN];
	double deadline = (double)rk_io_dpdk_now_ns() + wait_s * 1e9;

	for (int i = 0; initiate && i < n; i++)
		if (cs[i] != NULL && cs[i]->conn.state == RK_CM_ESTABLISHED &&
		    rk_cm_disconnect(&cs[i]->conn, ((uint64_t)rand32() << 32) | rand32(),
				     rk_io_dpdk_now_ns(), out) > 0 &&
		    cm_send(a, cs[i]->peer_mac, cs[i]->peer_ip, out) != 0)
			return -1;
	for (;;) {
		bool open = false;

		for (int i = 0; i < n; i++)
			if (cs[i] != NULL && (cs[i]->conn.state == RK_CM_ESTABLISHED ||
					      cs[i]->conn.state == RK_CM_DREQ_SENT ||
					      cs[i]->conn.state == RK_CM_REP_SENT))
				open = true;
		if (!open || (double)rk_io_dpdk_now_ns() > deadline)
			return 0;
		if (ia_cm_pump(a, cs, n, NULL) < 0)
			return -1;
	}
}
