/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * apps/common's RDMA-CM over QP1 (rk_app_cm.h), what a hostile peer can
 * reach: a MAD's frame comes back whole from the frame built for it, and
 * no shorter frame, no other UDP port or DestQP is taken for one; a REQ
 * for another service ID is answered with REJ "invalid service ID"; a REQ
 * that is not RC is refused with a REJ; ours reaches the listener and its
 * accept leaves the REP to send; a REQ for a larger path MTU gets REJ
 * "invalid path MTU". The active side: our REQ carries our parameters, the
 * service ID and the IP private data; a REJ "invalid service ID" is
 * retried only within the deadline and when allowed, nothing else is;
 * the REP makes the connection ESTABLISHED (RTU sent) and its QP path.
 * No EAL.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rk_app_cm.h"

static int failures;

#define CHECK(c, what) do { \
	if (c) { printf("ok   %s\n", what); } \
	else { printf("FAIL %s (line %d)\n", what, __LINE__); failures++; } } while (0)

static const uint8_t mac_a[6] = { 2, 0, 0, 0, 0, 1 }, mac_b[6] = { 2, 0, 0, 0, 0, 2 };
static const uint8_t ip_a[4] = { 198, 18, 0, 1 }, ip_b[4] = { 198, 18, 0, 2 };

/* The last MAD "sent", decoded. */
static struct rk_cm_msg sent;
static int nsent;

static int
t_send(void *ctx, const uint8_t mac[6], const uint8_t ip[4], const uint8_t mad[RK_MAD_LEN])
{
	(void)ctx;
	(void)mac;
	(void)ip;
	nsent++;
	return rk_cm_decode(mad, RK_MAD_LEN, &sent) == 0 ? 0 : -1;
}

static int
t_resolve(void *ctx, const uint8_t ip[4], uint8_t mac[6])
{
	(void)ctx;
	(void)ip;
	memcpy(mac, mac_b, 6);
	return 0;
}

/* A REQ from B for @p port, path MTU @p mtu; the RC bit cleared when @p uc. */
static void
make_req(uint16_t port, enum rk_mtu mtu, bool uc, struct rk_cm_msg *m)
{
	struct rk_cm_params p = rk_app_cm_params(0x12, 0x1234, 1, mtu, mac_b, ip_b, 14, 0);
	struct rk_cm_ip_pd ip = { .ip_version = 4, .src_port = 0x8001 };
	struct rk_cm_conn c = { .state = RK_CM_IDLE };
	uint8_t out[RK_MAD_LEN];

	memcpy(ip.src_ip + 12, ip_b, 4);
	memcpy(ip.dst_ip + 12, ip_a, 4);
	(void)rk_cm_connect(&c, &p, rk_cm_service_id(RK_CM_PS_TCP, port), &ip, 7, 9, 0, out);
	(void)rk_cm_decode(out, RK_MAD_LEN, m);
	if (uc)
		m->req.transport_service_type = 1;   /* UC */
}

int
main(void)
{
	uint8_t mad[RK_MAD_LEN], got[RK_MAD_LEN], src[4], frame[512], rep[RK_MAD_LEN];
	struct rk_app_cm_port port = { .send = t_send, .resolve = t_resolve,
				       .service_id = rk_cm_service_id(RK_CM_PS_TCP, 18515) };
	struct rk_app_cm_conn listen = { .conn = { .state = RK_CM_IDLE } };
	struct rk_cm_params lp = rk_app_cm_params(0x20, 0x777, 1, RK_MTU_1024, mac_a, ip_a, 14, 0);
	struct rk_cm_msg req;
	bool shorter = false;
	int n, act;

	for (unsigned int i = 0; i < sizeof(mad); i++)
		mad[i] = (uint8_t)(i * 7);
	n = rk_app_cm_frame(frame, sizeof(frame), mac_a, mac_b, ip_a, ip_b, 5, mad);
	CHECK(n > 0 && rk_app_cm_frame_mad(frame, (uint32_t)n, got, src) &&
	      memcmp(got, mad, RK_MAD_LEN) == 0 && memcmp(src, ip_a, 4) == 0,
	      "frame: the MAD and the source address come back");
	for (int len = 0; len < n; len++)
		shorter = shorter || rk_app_cm_frame_mad(frame, (uint32_t)len, got, src);
	CHECK(!shorter, "frame: no shorter frame is taken for a MAD");
	frame[14 + 20 + 8 + 5 + 2] = 2;         /* DestQP 2 */
	CHECK(!rk_app_cm_frame_mad(frame, (uint32_t)n, got, src), "frame: DestQP 2 is no MAD");
	frame[14 + 20 + 8 + 5 + 2] = 1;
	frame[14 + 20 + 2] ^= 1;                /* UDP port 4790 */
	CHECK(!rk_app_cm_frame_mad(frame, (uint32_t)n, got, src), "frame: not UDP 4791");

	make_req(18516, RK_MTU_1024, false, &req);
	act = rk_app_cm_dispatch(&port, &req, ip_b, NULL, 0, &listen, 1000, 0x55);
	CHECK(act == 0 && nsent == 1 && sent.hdr.attr_id == RK_CM_REJ &&
	      sent.rej.reason == RK_CM_REJ_INVALID_SERVICE_ID && port.rej_service == 1 &&
	      listen.conn.state == RK_CM_IDLE,
	      "REQ for another port: REJ invalid service ID, the listener untouched");

	make_req(18515, RK_MTU_1024, true, &req);
	act = rk_app_cm_dispatch(&port, &req, ip_b, NULL, 0, &listen, 1000, 0x55);
	CHECK(act == -EBADMSG && nsent == 2 && sent.hdr.attr_id == RK_CM_REJ &&
	      sent.rej.reason == RK_CM_REJ_CONSUMER_REJECT && port.refused == 1,
	      "REQ that is not RC: REJ consumer reject, counted");

	memset(&listen, 0, sizeof(listen));
	make_req(18515, RK_MTU_1024, false, &req);
	act = rk_app_cm_dispatch(&port, &req, ip_b, NULL, 0, &listen, 1000, 0x55);
	CHECK(act > 0 && (act & RK_CM_EV_REQ) && memcmp(listen.peer_ip, ip_b, 4) == 0,
	      "REQ for our port: the listener has it");
	CHECK(rk_app_cm_accept(&port, &listen, &lp, 2000, rep) == 0 && nsent == 2 &&
	      memcmp(listen.peer_mac, mac_b, 6) == 0, "accept: the REP is left to the caller");
	{
		struct rk_app_qp_path p;
		uint8_t dgid[16];

		rk_app_cm_qp_path(&listen, dgid, &p);
		CHECK(p.dest_qpn == 0x12 && p.rq_psn == 0x777 && p.sq_psn == 0x1234 &&
		      p.mtu == RK_MTU_1024 && memcmp(dgid + 12, ip_b, 4) == 0,
		      "QP path: the peer's QPN, our PSN to receive, the peer's to send");
	}

	memset(&listen, 0, sizeof(listen));
	make_req(18515, RK_MTU_4096, false, &req);
	(void)rk_app_cm_dispatch(&port, &req, ip_b, NULL, 0, &listen, 1000, 0x56);
	CHECK(rk_app_cm_accept(&port, &listen, &lp, 2000, rep) == -EMSGSIZE && nsent == 3 &&
	      sent.hdr.attr_id == RK_CM_REJ && sent.rej.reason == RK_CM_REJ_INVALID_MTU,
	      "REQ for path MTU 4096 over 1024: REJ invalid path MTU");

	{
		struct rk_app_cm_conn c = { .peer_ip = { 198, 18, 0, 2 } }, srv = { .conn = { 0 } };
		struct rk_cm_params ap = rk_app_cm_params(0x31, 0x4242, 2, RK_MTU_1024, mac_a, ip_a,
							   14, 0);
		struct rk_cm_msg reqm, rej, repm;
		struct rk_cm_ip_pd pd;
		struct rk_app_qp_path p;
		uint8_t dgid[16], out[RK_MAD_LEN];
		struct rk_app_cm_conn *cs[1] = { &c };
		uint64_t svc = rk_cm_service_id(RK_CM_PS_TCP, 18515);

		memcpy(c.peer_mac, mac_b, 6);
		n = nsent;
		CHECK(rk_app_cm_connect(&port, &c, &ap, svc, ip_a, 0x8123, 0x77, 0x99, 5000) == 0 &&
		      nsent == n + 1 && sent.hdr.attr_id == RK_CM_REQ &&
		      sent.req.service_id == svc &&
		      sent.req.local_qpn == 0x31 && sent.req.local_comm_id == 0x77 &&
		      c.conn.state == RK_CM_REQ_SENT, "connect: REQ for the service with our QPN");
		reqm = sent;
		CHECK(rk_cm_ip_pd_decode(reqm.req.private_data, &pd) == 0 && pd.ip_version == 4 &&
		      pd.src_port == 0x8123 && memcmp(pd.src_ip + 12, ip_a, 4) == 0 &&
		      memcmp(pd.dst_ip + 12, ip_b, 4) == 0, "connect: the REQ's RDMA-CM IP header");
		CHECK(!rk_app_cm_connect_retry(&c, 5000, 1ull << 40) &&
		      strcmp(rk_app_cm_connect_error(&c), "no answer to the REQ") == 0,
		      "connect: no retry while the REQ waits");
		/* the peer's REJ invalid service ID */
		CHECK(rk_cm_reject_req(&reqm, RK_CM_REJ_INVALID_SERVICE_ID, 0x88, 6000, out) > 0 &&
		      rk_cm_decode(out, RK_MAD_LEN, &rej) == 0, "a REJ for our REQ");
		act = rk_app_cm_dispatch(&port, &rej, ip_b, cs, 1, NULL, 6000, 0x1);
		CHECK(act > 0 && (act & RK_CM_EV_REJECTED) && c.conn.state == RK_CM_CLOSED,
		      "REJ: the connection closed");
		CHECK(rk_app_cm_connect_retry(&c, 6000, 6000 + RK_APP_CM_RETRY_NS),
		      "REJ invalid service ID: retried within the deadline");
		CHECK(!rk_app_cm_connect_retry(&c, 6001, 6000 + RK_APP_CM_RETRY_NS),
		      "REJ invalid service ID: not past the deadline");
		c.no_retry = true;
		CHECK(!rk_app_cm_connect_retry(&c, 6000, 1ull << 40), "no_retry: not retried");
		c.no_retry = false;
		c.conn.rej_reason = RK_CM_REJ_CONSUMER_REJECT;
		CHECK(!rk_app_cm_connect_retry(&c, 6000, 1ull << 40) &&
		      strcmp(rk_app_cm_connect_error(&c),
			     rk_cm_rej_reason_name(RK_CM_REJ_CONSUMER_REJECT)) == 0,
		      "another REJ reason: not retried, named");
		/* again, and this time the peer accepts */
		CHECK(rk_app_cm_connect(&port, &c, &ap, svc, ip_a, 0x8123, 0x78, 0x9a, 7000) == 0 &&
		      c.conn.state == RK_CM_REQ_SENT && sent.req.local_comm_id == 0x78,
		      "connect again: a fresh REQ");
		reqm = sent;
		CHECK(rk_cm_listen_req(&srv.conn, &reqm, 0x99, 7000) > 0 &&
		      rk_cm_accept(&srv.conn, &lp, 7000, out) > 0 &&
		      rk_cm_decode(out, RK_MAD_LEN, &repm) == 0, "the peer's REP");
		act = rk_app_cm_dispatch(&port, &repm, ip_b, cs, 1, NULL, 7100, 0x1);
		CHECK(act > 0 && c.conn.state == RK_CM_ESTABLISHED &&
		      sent.hdr.attr_id == RK_CM_RTU &&
		      rk_app_cm_connect_error(&c) == NULL, "REP: ESTABLISHED, RTU sent");
		rk_app_cm_qp_path(&c, dgid, &p);
		CHECK(p.dest_qpn == 0x20 && p.rq_psn == 0x4242 && p.sq_psn == 0x777 &&
		      p.mtu == RK_MTU_1024 && memcmp(p.dmac, mac_b, 6) == 0 &&
		      memcmp(dgid + 12, ip_b, 4) == 0, "connected: the QP path to the peer's QP");
	}

	printf("app_cm: %s\n", failures == 0 ? "all checks passed" : "FAILED");
	return failures == 0 ? 0 : 1;
}
