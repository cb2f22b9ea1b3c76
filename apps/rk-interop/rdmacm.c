/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA-CM over QP1 for rk-interop, and the peer of librdmacm's rping.
 *
 * QP1 (the GSI) lives here, not in the transport engine: an rk_io_ops shim
 * between the DPDK backend and the engine takes every UD SEND Only to
 * DestQP 1 off the receive path and queues its MAD; CM MADs go out as UD
 * SEND Only frames from QP1 (DETH Q_Key 0x80010000, SrcQP 1) built with
 * lib/wire. lib/cm decodes, encodes and keeps each connection's state.
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
#include "rk_app_qp.h"
#include "rping.h"
#include "rk_build.h"
#include "rk_byteorder.h"
#include "rk_cm.h"

#define CM_QUEUE 16
#define UD_SEND_ONLY 0x64

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
		const uint8_t *ip, *bth;
		uint32_t ihl;

		if (n <= 0)
			return n;
		if ((uint32_t)n < 14 + 20 + 8 + 12 + 8 + RK_MAD_LEN + 4 ||
		    rk_get_be16(buf + 12) != 0x0800)
			return n;
		ip = buf + 14;
		ihl = (ip[0] & 0xfu) * 4;
		if (ip[9] != 17 || (uint32_t)n < 14 + ihl + 8 + 12 + 8 + RK_MAD_LEN + 4 ||
		    rk_get_be16(ip + ihl + 2) != 4791)
			return n;
		bth = ip + ihl + 8;
		if (bth[0] != UD_SEND_ONLY || rk_get_be24(bth + 5) != 1)
			return n;
		if (cmq.head - cmq.tail < CM_QUEUE) {
			memcpy(cmq.mad[cmq.head % CM_QUEUE], bth + 12 + 8, RK_MAD_LEN);
			memcpy(cmq.src_ip, ip + 12, 4);
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
	struct rk_roce_addr ad = { .ip_version = 4, .df = true, .src_port = 0xc001 };
	struct rk_bth_fields bth = { .opcode = UD_SEND_ONLY, .p_key = 0xffff, .dest_qp = 1,
				     .psn = cmq.psn++ & 0xffffff };
	struct rk_xeth_fields x = { .deth_q_key = RK_GSI_QKEY, .deth_src_qp = 1 };
	uint8_t frame[512];
	int n;

	rk_io_dpdk_mac(a->io, ad.src_mac);
	memcpy(ad.dst_mac, peer_mac, 6);
	ia_gid_v4(ad.src_ip, a->o.ip);
	ia_gid_v4(ad.dst_ip, peer_ip);
	n = rk_build_rocev2(frame, sizeof(frame), &ad, &bth, &x, mad, RK_MAD_LEN);
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

/* A REQ for a path MTU above our -m: send the CM's REJ (reason 26) and say so. */
static int
ia_cm_refuse_mtu(struct ia *a, const uint8_t peer_mac[6], const uint8_t peer_ip[4],
		 const uint8_t rej[RK_MAD_LEN], uint8_t req_mtu)
{
	(void)cm_send(a, peer_mac, peer_ip, rej);
	return ia_fail(a, "the peer's REQ asks for path MTU %u, above --mtu %u: rejected (%s)",
		       128u << req_mtu, a->o.mtu, rk_cm_rej_reason_name(RK_CM_REJ_INVALID_MTU));
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
	struct ia_cmc cm;
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
	struct ia_cmc *c = &r->cm;

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
	struct ia_cmc *c = &r->cm;

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

/*
 * A REQ for a port nobody listens on: REJ "invalid service ID", as the
 * Linux CM answers (REJ, IBTA Vol1 12.6.7), so the peer ends at once.
 */
static void
reject_unknown_service(struct ia *a, const struct rk_cm_msg *req, uint64_t now)
{
	struct ia_cmc tmp = { .conn = { 0 } };
	uint8_t out[RK_MAD_LEN];

	memcpy(tmp.peer_ip, cmq.src_ip, 4);
	if (rk_cm_listen_req(&tmp.conn, req, rand32(), now) < 0 &&
	    tmp.conn.state == RK_CM_IDLE)
		return;         /* not even a REQ we can answer */
	if (ia_resolve(a, tmp.peer_ip, tmp.peer_mac) == 0 &&
	    rk_cm_reject(&tmp.conn, RK_CM_REJ_INVALID_SERVICE_ID, out) > 0)
		cm_send(a, tmp.peer_mac, tmp.peer_ip, out);
}

/*
 * Serve the port once for several connections: queued MADs go to the
 * connection they match; a REQ for our port goes to @p listen (IDLE).
 * Returns the event bits seen, -1 with a message.
 */
int
ia_cm_pump(struct ia *a, struct ia_cmc **cs, int n, struct ia_cmc *listen)
{
	uint64_t now = rk_io_dpdk_now_ns();
	uint8_t out[RK_MAD_LEN];
	struct rk_cm_msg m;
	int act, seen = 0, work = rk_progress(a->ctx);

	/* Every CM wait passes here: SIGINT/SIGTERM ends it. */
	if (ia_check_stop(a) != 0)
		return -1;
	if (work > 0)
		a->wd.last_ns = now;
	while (cm_next(a, &m)) {
		struct ia_cmc *c = NULL;

		for (int i = 0; i < n && c == NULL; i++)
			if (cs[i] != NULL && rk_cm_conn_match(&cs[i]->conn, &m))
				c = cs[i];
		if (c == NULL) {
			if (m.hdr.attr_id == RK_CM_REQ &&
			    m.req.service_id != rk_cm_service_id(RK_CM_PS_TCP, a->o.tcp_port)) {
				reject_unknown_service(a, &m, now);
				continue;
			}
			if (listen != NULL && listen->conn.state == RK_CM_IDLE &&
			    m.hdr.attr_id == RK_CM_REQ) {
				memcpy(listen->peer_ip, cmq.src_ip, 4);
				act = rk_cm_listen_req(&listen->conn, &m, rand32(), now);
				if (act < 0) {
					if (ia_resolve(a, listen->peer_ip, listen->peer_mac) == 0 &&
					    rk_cm_reject(&listen->conn, RK_CM_REJ_CONSUMER_REJECT,
							 out) > 0)
						cm_send(a, listen->peer_mac, listen->peer_ip, out);
					return ia_fail(a, "refused a REQ we cannot serve (not RC, or "
						       "no RDMA-CM IP header)");
				}
				seen |= act;
			}
			continue;
		}
		act = rk_cm_rx(&c->conn, &m, now, out);
		if (act > 0 && (act & RK_CM_SEND) && cm_send(a, c->peer_mac, c->peer_ip, out) != 0)
			return -1;
		if (act > 0)
			seen |= act;
	}
	for (int i = 0; i < n; i++) {
		if (cs[i] == NULL)
			continue;
		act = rk_cm_timer(&cs[i]->conn, now, out);
		if (act > 0 && (act & RK_CM_SEND) &&
		    cm_send(a, cs[i]->peer_mac, cs[i]->peer_ip, out) != 0)
			return -1;
		if (act > 0)
			seen |= act;
	}
	rk_io_dpdk_idle(a->io, work);
	return seen;
}

static struct rk_cm_params
cm_params(struct ia *a, struct rk_qp *qp, uint32_t rq_psn, uint8_t resources)
{
	struct rk_cm_params p = { .qpn = qp->qp_num, .psn = rq_psn,
				  .responder_resources = resources, .initiator_depth = resources,
				  .path_mtu = (uint8_t)ia_mtu_enum(a->o.mtu), .retry_count = 7,
				  .rnr_retry_count = 7, .local_ack_timeout = a->o.qp_timeout,
				  .traffic_class = (uint8_t)(a->o.dscp << 2) };
	uint8_t mac[6];

	rk_io_dpdk_mac(a->io, mac);
	ia_gid_v4(p.gid, a->o.ip);
	p.ca_guid = ((uint64_t)(mac[0] ^ 2) << 56) | ((uint64_t)mac[1] << 48) |
		    ((uint64_t)mac[2] << 40) | (0xfffeull << 24) | ((uint64_t)mac[3] << 16) |
		    ((uint64_t)mac[4] << 8) | mac[5];
	return p;
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
cm_program_qp(struct ia *a, struct ia_cmc *c, struct rk_qp *qp, uint32_t rq_psn)
{
	uint8_t rr = c->conn.local.responder_resources, id = c->conn.local.initiator_depth;
	uint8_t dgid[16];

	ia_gid_v4(dgid, c->peer_ip);
	return ia_rc_connect(a, qp, &(struct ia_rc_path){
		.mtu = (enum rk_mtu)c->conn.peer.path_mtu, .dest_qpn = c->conn.peer.qpn,
		.rq_psn = rq_psn, .sq_psn = (c->conn.peer.psn + a->o.psn_skew) & 0xffffff,
		.max_dest_rd_atomic = rr != 0 ? rr : 1, .max_rd_atomic = id != 0 ? id : 1,
		.dmac = c->peer_mac, .dgid = dgid }, true);
}

int
ia_cm_connect(struct ia *a, struct ia_cmc *c, struct rk_qp *qp, uint32_t rq_psn,
	      uint8_t resources, struct ia_cmc **others, int nothers)
{
	struct rk_cm_params p = cm_params(a, qp, rq_psn, resources);
	struct rk_cm_ip_pd ip = { .ip_version = 4, .src_port = (uint16_t)(0x8000 | rand32()) };
	struct ia_cmc *all[8];
	uint8_t out[RK_MAD_LEN];
	double deadline;
	int n = 0;

	if (ia_parse_v4(a->o.server_host, c->peer_ip) != 0)
		return ia_fail(a, "RDMA-CM: the server must be an IPv4 address, got '%s'",
			       a->o.server_host);
	if (ia_resolve(a, c->peer_ip, c->peer_mac) != 0)
		return -1;
	memcpy(ip.src_ip + 12, a->o.ip, 4);
	memcpy(ip.dst_ip + 12, c->peer_ip, 4);
	for (int i = 0; i < nothers && n < 7; i++)
		all[n++] = others[i];
	all[n++] = c;
	deadline = (double)rk_io_dpdk_now_ns() + a->o.oob_timeout_s * 1e9;
	for (;;) {
		memset(&c->conn, 0, sizeof(c->conn));
		if (rk_cm_connect(&c->conn, &p, rk_cm_service_id(RK_CM_PS_TCP, a->o.tcp_port),
				  &ip, rand32(), ((uint64_t)rand32() << 32) | rand32(),
				  rk_io_dpdk_now_ns(), out) < 0)
			return ia_fail(a, "cannot build the REQ");
		if (cm_send(a, c->peer_mac, c->peer_ip, out) != 0)
			return -1;
		while (c->conn.state == RK_CM_REQ_SENT && (double)rk_io_dpdk_now_ns() < deadline)
			if (ia_cm_pump(a, all, n, NULL) < 0)
				return -1;
		/* No listener yet (the server is starting): retry, as perftest's client does. */
		if (c->no_retry || c->conn.state != RK_CM_CLOSED ||
		    c->conn.rej_reason != RK_CM_REJ_INVALID_SERVICE_ID ||
		    (double)rk_io_dpdk_now_ns() + 2e8 > deadline)
			break;
		for (double t = (double)rk_io_dpdk_now_ns() + 2e8; (double)rk_io_dpdk_now_ns() < t;)
			if (ia_cm_pump(a, all, n, NULL) < 0)
				return -1;
	}
	if (c->conn.state != RK_CM_ESTABLISHED)
		return ia_fail(a, "connection to %s:%u failed: %s", a->o.server_host,
			       a->o.tcp_port, c->conn.state == RK_CM_REQ_SENT ?
			       "no answer to the REQ" : c->conn.rej_reason != 0 ?
			       rk_cm_rej_reason_name(c->conn.rej_reason) : "no answer");
	return cm_program_qp(a, c, qp, rq_psn);
}

int
ia_cm_accept(struct ia *a, struct ia_cmc *c, struct rk_qp *qp, uint32_t rq_psn,
	     uint8_t resources, struct ia_cmc **others, int nothers)
{
	struct rk_cm_params p = cm_params(a, qp, rq_psn, resources);
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
	if (ia_resolve(a, c->peer_ip, c->peer_mac) != 0)
		return -1;
	rc = rk_cm_accept(&c->conn, &p, rk_io_dpdk_now_ns(), out);
	if (rc == -EMSGSIZE)
		return ia_cm_refuse_mtu(a, c->peer_mac, c->peer_ip, out, c->conn.peer.path_mtu);
	if (rc < 0)
		return ia_fail(a, "cannot build the REP");
	if (cm_program_qp(a, c, qp, rq_psn) != 0 || cm_send(a, c->peer_mac, c->peer_ip, out) != 0)
		return -1;
	return 0;
}

/* Disconnect what is established (when @p initiate) and wait, bounded, for the ends. */
int
ia_cm_close(struct ia *a, struct ia_cmc **cs, int n, bool initiate, double wait_s)
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
