/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * apps/common's RDMA-CM over QP1 (rk_app_cm.h), what a hostile peer can
 * reach: a MAD's frame comes back whole from the frame built for it, and
 * no shorter frame, no other UDP port or DestQP is taken for one; a REQ
 * for another service ID is answered with REJ "invalid service ID"; a REQ
 * that is not RC is refused with a REJ; ours reaches the listener and its
 * accept leaves the REP to send; a REQ for a larger path MTU gets REJ
 * "invalid path MTU". No EAL.
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

	printf("app_cm: %s\n", failures == 0 ? "all checks passed" : "FAILED");
	return failures == 0 ? 0 : 1;
}
