/* SPDX-License-Identifier: BSD-3-Clause */
/* RDMA-CM over QP1 on RoCEv2 for the apps: see rk_app_cm.h. */
#include <errno.h>
#include <string.h>

#include "rk_app_cm.h"
#include "rk_build.h"
#include "rk_byteorder.h"

#define ROCEV2_UDP_PORT 4791
#define BTH_LEN 12
#define DETH_LEN 8

bool
rk_app_cm_frame_mad(const uint8_t *f, uint32_t len, uint8_t mad[RK_MAD_LEN], uint8_t src_ip[4])
{
	const uint8_t *ip, *bth;
	uint32_t ihl;

	if (len < 14 + 20 + 8 + BTH_LEN + DETH_LEN + RK_MAD_LEN + 4 ||
	    rk_get_be16(f + 12) != 0x0800)
		return false;
	ip = f + 14;
	ihl = (ip[0] & 0xfu) * 4;
	if (ihl < 20 || ip[9] != 17 ||
	    len < 14 + ihl + 8 + BTH_LEN + DETH_LEN + RK_MAD_LEN + 4 ||
	    rk_get_be16(ip + ihl + 2) != ROCEV2_UDP_PORT)
		return false;
	bth = ip + ihl + 8;
	if (bth[0] != RK_APP_CM_UD_SEND_ONLY || rk_get_be24(bth + 5) != 1)
		return false;
	memcpy(mad, bth + BTH_LEN + DETH_LEN, RK_MAD_LEN);
	memcpy(src_ip, ip + 12, 4);
	return true;
}

int
rk_app_cm_frame(uint8_t *out, uint32_t cap, const uint8_t smac[6], const uint8_t dmac[6],
		const uint8_t sip[4], const uint8_t dip[4], uint32_t psn,
		const uint8_t mad[RK_MAD_LEN])
{
	struct rk_roce_addr ad = { .ip_version = 4, .df = true, .src_port = 0xc001,
				   .src_ip = { [10] = 0xff, [11] = 0xff },
				   .dst_ip = { [10] = 0xff, [11] = 0xff } };
	struct rk_bth_fields bth = { .opcode = RK_APP_CM_UD_SEND_ONLY, .p_key = 0xffff,
				     .dest_qp = 1, .psn = psn & 0xffffff };
	struct rk_xeth_fields x = { .deth_q_key = RK_GSI_QKEY, .deth_src_qp = 1 };

	memcpy(ad.src_mac, smac, 6);
	memcpy(ad.dst_mac, dmac, 6);
	memcpy(ad.src_ip + 12, sip, 4);
	memcpy(ad.dst_ip + 12, dip, 4);
	return rk_build_rocev2(out, cap, &ad, &bth, &x, mad, RK_MAD_LEN);
}

struct rk_cm_params
rk_app_cm_params(uint32_t qpn, uint32_t psn, uint8_t resources, enum rk_mtu mtu,
		 const uint8_t mac[6], const uint8_t ip[4], uint8_t ack_timeout, uint8_t tclass)
{
	struct rk_cm_params p = { .qpn = qpn, .psn = psn, .responder_resources = resources,
				  .initiator_depth = resources, .path_mtu = (uint8_t)mtu,
				  .retry_count = 7, .rnr_retry_count = 7,
				  .local_ack_timeout = ack_timeout, .traffic_class = tclass,
				  .gid = { [10] = 0xff, [11] = 0xff } };

	memcpy(p.gid + 12, ip, 4);
	/* EUI-64 from the MAC, as Linux derives a RoCE port's GUID. */
	p.ca_guid = ((uint64_t)(mac[0] ^ 2) << 56) | ((uint64_t)mac[1] << 48) |
		    ((uint64_t)mac[2] << 40) | (0xfffeull << 24) | ((uint64_t)mac[3] << 16) |
		    ((uint64_t)mac[4] << 8) | mac[5];
	return p;
}

/* A REQ for a service nobody listens on: REJ, so the peer ends at once. */
static void
reject_unknown_service(struct rk_app_cm_port *p, const struct rk_cm_msg *req,
		       const uint8_t src_ip[4], uint64_t now_ns, uint32_t comm_id)
{
	uint8_t out[RK_MAD_LEN], mac[6];

	if (rk_cm_reject_req(req, RK_CM_REJ_INVALID_SERVICE_ID, comm_id, now_ns, out) <= 0)
		return;         /* not even a REQ we can answer */
	p->rej_service++;
	if (p->resolve(p->ctx, src_ip, mac) == 0)
		p->send(p->ctx, mac, src_ip, out);
}

int
rk_app_cm_drep_unknown(struct rk_app_cm_port *p, const struct rk_cm_msg *m,
		       const uint8_t src_ip[4])
{
	uint8_t mac[6], out[RK_MAD_LEN];

	if (rk_cm_drep_unknown(m, out) != RK_CM_SEND || p->resolve(p->ctx, src_ip, mac) != 0)
		return 0;
	p->drep_unknown++;
	return p->send(p->ctx, mac, src_ip, out) == 0 ? 0 : -EIO;
}

int
rk_app_cm_dispatch(struct rk_app_cm_port *p, const struct rk_cm_msg *m,
		   const uint8_t src_ip[4], struct rk_app_cm_conn **cs, int n,
		   struct rk_app_cm_conn *listen, uint64_t now_ns, uint32_t comm_id)
{
	struct rk_app_cm_conn *c = NULL;
	uint8_t out[RK_MAD_LEN];
	int act;

	for (int i = 0; i < n && c == NULL; i++)
		if (cs[i] != NULL && rk_cm_conn_match(&cs[i]->conn, m))
			c = cs[i];
	if (c == NULL) {
		if (m->hdr.attr_id == RK_CM_DREQ)
			return rk_app_cm_drep_unknown(p, m, src_ip);
		if (m->hdr.attr_id != RK_CM_REQ)
			return 0;
		if (m->req.service_id != p->service_id) {
			reject_unknown_service(p, m, src_ip, now_ns, comm_id);
			return 0;
		}
		if (listen == NULL || listen->conn.state != RK_CM_IDLE)
			return 0;
		memcpy(listen->peer_ip, src_ip, 4);
		act = rk_cm_listen_req(&listen->conn, m, comm_id, now_ns);
		if (act < 0) {
			p->refused++;
			if (p->resolve(p->ctx, listen->peer_ip, listen->peer_mac) == 0 &&
			    rk_cm_reject(&listen->conn, RK_CM_REJ_CONSUMER_REJECT, out) > 0)
				p->send(p->ctx, listen->peer_mac, listen->peer_ip, out);
			return -EBADMSG;
		}
		return act;
	}
	act = rk_cm_rx(&c->conn, m, now_ns, out);
	if (act > 0 && (act & RK_CM_SEND) && p->send(p->ctx, c->peer_mac, c->peer_ip, out) != 0)
		return -EIO;
	return act > 0 ? act : 0;
}

int
rk_app_cm_timers(struct rk_app_cm_port *p, struct rk_app_cm_conn **cs, int n, uint64_t now_ns)
{
	uint8_t out[RK_MAD_LEN];
	int seen = 0;

	for (int i = 0; i < n; i++) {
		int act;

		if (cs[i] == NULL)
			continue;
		act = rk_cm_timer(&cs[i]->conn, now_ns, out);
		if (act > 0 && (act & RK_CM_SEND) &&
		    p->send(p->ctx, cs[i]->peer_mac, cs[i]->peer_ip, out) != 0)
			return -EIO;
		if (act > 0)
			seen |= act;
	}
	return seen;
}

int
rk_app_cm_accept(struct rk_app_cm_port *p, struct rk_app_cm_conn *c,
		 const struct rk_cm_params *lp, uint64_t now_ns, uint8_t rep[RK_MAD_LEN])
{
	int rc;

	if (p->resolve(p->ctx, c->peer_ip, c->peer_mac) != 0)
		return -1;
	rc = rk_cm_accept(&c->conn, lp, now_ns, rep);
	if (rc == -EMSGSIZE) {
		(void)p->send(p->ctx, c->peer_mac, c->peer_ip, rep);
		return -EMSGSIZE;
	}
	return rc < 0 ? -EINVAL : 0;
}

int
rk_app_cm_connect(struct rk_app_cm_port *p, struct rk_app_cm_conn *c,
		  const struct rk_cm_params *lp, uint64_t service_id, const uint8_t ip[4],
		  uint16_t src_port, uint32_t comm_id, uint64_t tid, uint64_t now_ns)
{
	struct rk_cm_ip_pd pd = { .ip_version = 4, .src_port = src_port };
	uint8_t out[RK_MAD_LEN];

	memcpy(pd.src_ip + 12, ip, 4);
	memcpy(pd.dst_ip + 12, c->peer_ip, 4);
	memset(&c->conn, 0, sizeof(c->conn));
	if (rk_cm_connect(&c->conn, lp, service_id, &pd, comm_id, tid, now_ns, out) < 0)
		return -EINVAL;
	return p->send(p->ctx, c->peer_mac, c->peer_ip, out) == 0 ? 0 : -EIO;
}

bool
rk_app_cm_connect_retry(const struct rk_app_cm_conn *c, uint64_t now_ns, uint64_t deadline_ns)
{
	return !c->no_retry && c->conn.state == RK_CM_CLOSED &&
	       c->conn.rej_reason == RK_CM_REJ_INVALID_SERVICE_ID &&
	       now_ns + RK_APP_CM_RETRY_NS <= deadline_ns;
}

const char *
rk_app_cm_connect_error(const struct rk_app_cm_conn *c)
{
	if (c->conn.state == RK_CM_ESTABLISHED)
		return NULL;
	if (c->conn.state == RK_CM_REQ_SENT)
		return "no answer to the REQ";
	return c->conn.rej_reason != 0 ? rk_cm_rej_reason_name(c->conn.rej_reason) : "no answer";
}

void
rk_app_cm_qp_path(const struct rk_app_cm_conn *c, uint8_t dgid[16], struct rk_app_qp_path *path)
{
	uint8_t rr = c->conn.local.responder_resources, id = c->conn.local.initiator_depth;

	memset(dgid, 0, 16);
	dgid[10] = dgid[11] = 0xff;
	memcpy(dgid + 12, c->peer_ip, 4);
	*path = (struct rk_app_qp_path){
		.mtu = (enum rk_mtu)c->conn.peer.path_mtu, .dest_qpn = c->conn.peer.qpn,
		.rq_psn = c->conn.local.psn, .sq_psn = c->conn.peer.psn & 0xffffff,
		.max_dest_rd_atomic = rr != 0 ? rr : 1, .max_rd_atomic = id != 0 ? id : 1,
		.dmac = c->peer_mac, .dgid = dgid };
}
