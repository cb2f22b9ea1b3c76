/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CM connection state machine (IBTA Vol 1 12.9), the subset rdma_cm uses:
 * RC, primary path only. Requests (REQ, REP, DREQ) are kept and resent on
 * the CM response timeout; replies (RTU, DREP) are kept and resent when
 * the peer repeats the request they answer.
 */
#include <errno.h>
#include <string.h>

#include "rk_cm.h"
#include "rk_cm_mutant.h"

#define CM_RESPONSE_TIMEOUT 20          /* 4.096 us * 2^20: about 4.3 s, as rdma_cm */
#define CM_MAX_RETRIES 15
#define REP_WAIT_MIN 8                  /* 4.096 us * 2^8: about 1 ms */
#define CM_TIMEWAIT_NS 1000000000ull

static const char *const state_names[] = {
	"IDLE", "REQ_SENT", "REQ_RCVD", "REP_SENT", "ESTABLISHED", "DREQ_SENT", "TIMEWAIT",
	"CLOSED",
};

const char *
rk_cm_state_name(enum rk_cm_state s)
{
	return (unsigned int)s < sizeof(state_names) / sizeof(state_names[0]) ? state_names[s] :
	       "?";
}

static void
hdr(struct rk_cm_msg *m, uint16_t attr, uint64_t tid)
{
	memset(m, 0, sizeof(*m));
	m->hdr.base_version = 1;
	m->hdr.mgmt_class = RK_MAD_CLASS_CM;
	m->hdr.class_version = RK_CM_CLASS_VERSION;
	m->hdr.method = RK_MAD_METHOD_SEND;
	m->hdr.tid = tid;
	m->hdr.attr_id = attr;
}

static uint8_t
min8(uint8_t a, uint8_t b)
{
	return a < b ? a : b;
}

static void
arm(struct rk_cm_conn *c, uint64_t now_ns, uint8_t timeout)
{
	c->timeout_ns = rk_cm_timeout_ns(timeout);
	c->timer_ns = now_ns + c->timeout_ns;
	c->retries_left = CM_MAX_RETRIES;
}

static int
send_kept(struct rk_cm_conn *c, const struct rk_cm_msg *m, uint8_t *out, bool request,
	  uint64_t now_ns)
{
	if (rk_cm_encode(m, out, RK_MAD_LEN) < 0)
		return -EINVAL;
	if (request) {
		memcpy(c->last, out, RK_MAD_LEN);
		arm(c, now_ns, CM_RESPONSE_TIMEOUT);
	} else {
		memcpy(c->last_reply, out, RK_MAD_LEN);
		c->have_reply = true;
	}
	return RK_CM_SEND;
}

int
rk_cm_connect(struct rk_cm_conn *c, const struct rk_cm_params *p, uint64_t svc,
	      const struct rk_cm_ip_pd *ip, uint32_t comm_id, uint64_t tid, uint64_t now_ns,
	      uint8_t out[RK_MAD_LEN])
{
	struct rk_cm_msg m;
	struct rk_cm_req *r = &m.req;

	if (c == NULL || p == NULL || ip == NULL || out == NULL || c->state != RK_CM_IDLE ||
	    p->qpn > 0xffffff || p->psn > 0xffffff ||
	    p->private_data_len > RK_CM_REQ_PD - RK_CM_IP_PD_LEN)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	c->active = true;
	c->local = *p;
	c->local_comm_id = comm_id;
	c->tid = tid;
	c->ip = *ip;
	c->service_id = svc;
	hdr(&m, RK_CM_REQ, tid);
	r->local_comm_id = comm_id;
	r->service_id = svc;
	r->local_ca_guid = p->ca_guid;
	r->local_qkey = p->qkey;
	r->local_qpn = p->qpn;
	r->responder_resources = p->responder_resources;
	r->initiator_depth = p->initiator_depth;
	r->remote_cm_response_timeout = CM_RESPONSE_TIMEOUT;
	r->starting_psn = p->psn;
	r->local_cm_response_timeout = CM_RESPONSE_TIMEOUT;
	r->retry_count = p->retry_count;
	r->pkey = 0xffff;
	r->path_mtu = p->path_mtu;
	r->rnr_retry_count = p->rnr_retry_count;
	r->max_cm_retries = CM_MAX_RETRIES;
	r->primary.local_lid = r->primary.remote_lid = 0xffff;
	memcpy(r->primary.local_gid, p->gid, 16);
	memcpy(r->primary.remote_gid, ip->dst_ip, 16);
	if (ip->ip_version == 4) {
		memset(r->primary.remote_gid, 0, 10);
		r->primary.remote_gid[10] = r->primary.remote_gid[11] = 0xff;
	}
	r->primary.hop_limit = 64;
	r->primary.traffic_class = p->traffic_class;
	r->primary.local_ack_timeout = p->local_ack_timeout;
	if (rk_cm_ip_pd_encode(ip, r->private_data) != 0)
		return -EINVAL;
	memcpy(r->private_data + RK_CM_IP_PD_LEN, p->private_data, p->private_data_len);
	c->state = RK_CM_REQ_SENT;
	return send_kept(c, &m, out, true, now_ns);
}

bool
rk_cm_conn_match(const struct rk_cm_conn *c, const struct rk_cm_msg *m)
{
	if (c == NULL || m == NULL || c->state == RK_CM_IDLE)
		return false;
	switch (m->hdr.attr_id) {
	case RK_CM_REQ:
		return !c->active && m->req.local_comm_id == c->remote_comm_id;
	case RK_CM_REP:
		return m->rep.remote_comm_id == c->local_comm_id;
	case RK_CM_MRA:
		return m->mra.remote_comm_id == c->local_comm_id;
	case RK_CM_REJ:
		return m->rej.remote_comm_id == c->local_comm_id;
	case RK_CM_RTU:
	case RK_CM_DREP:
		return m->rtu.remote_comm_id == c->local_comm_id;
	case RK_CM_DREQ:
		return m->dreq.remote_comm_id == c->local_comm_id;
	default:
		return false;
	}
}

int
rk_cm_listen_req(struct rk_cm_conn *c, const struct rk_cm_msg *m, uint32_t comm_id,
		 uint64_t now_ns)
{
	const struct rk_cm_req *r;

	(void)now_ns;
	if (c == NULL || m == NULL || m->hdr.attr_id != RK_CM_REQ || c->state != RK_CM_IDLE)
		return -EINVAL;
	r = &m->req;
	memset(c, 0, sizeof(*c));
	c->local_comm_id = comm_id;
	c->remote_comm_id = r->local_comm_id;
	c->tid = m->hdr.tid;
	c->service_id = r->service_id;
	c->peer.qpn = r->local_qpn;
	c->peer.psn = r->starting_psn;
	c->peer.responder_resources = r->responder_resources;
	c->peer.initiator_depth = r->initiator_depth;
	c->peer.path_mtu = r->path_mtu;
	c->peer.retry_count = r->retry_count;
	c->peer.rnr_retry_count = r->rnr_retry_count;
	c->peer.local_ack_timeout = r->primary.local_ack_timeout;
	c->peer.traffic_class = r->primary.traffic_class;
	c->peer.ca_guid = r->local_ca_guid;
	c->req_cm_response_timeout = r->local_cm_response_timeout;
	c->req_max_cm_retries = r->max_cm_retries;
	memcpy(c->peer.gid, r->primary.local_gid, 16);
	memcpy(c->peer.private_data, r->private_data + RK_CM_IP_PD_LEN,
	       RK_CM_REQ_PD - RK_CM_IP_PD_LEN);
	c->peer.private_data_len = RK_CM_REQ_PD - RK_CM_IP_PD_LEN;
	c->state = RK_CM_REQ_RCVD;
	if (r->transport_service_type != 0 || rk_cm_ip_pd_decode(r->private_data, &c->ip) != 0)
		return -EBADMSG;
	return RK_CM_EV_REQ;
}

int
rk_cm_accept(struct rk_cm_conn *c, const struct rk_cm_params *p, uint64_t now_ns,
	     uint8_t out[RK_MAD_LEN])
{
	struct rk_cm_msg m;
	struct rk_cm_rep *r = &m.rep;
	int rc;

	if (c == NULL || p == NULL || out == NULL || c->state != RK_CM_REQ_RCVD ||
	    p->qpn > 0xffffff || p->psn > 0xffffff)
		return -EINVAL;
	/*
	 * The REP carries no MTU, so the REQ's path MTU is the connection's
	 * when we carry it, and the REQ is rejected with Invalid Path MTU
	 * when we do not (IBTA Vol1 12.6.7, REJ reason 26): a smaller MTU on
	 * our side alone would leave the peer sending frames we cannot take.
	 */
	if (p->path_mtu != 0 && c->peer.path_mtu > p->path_mtu) {
		rc = rk_cm_reject(c, RK_CM_REJ_INVALID_MTU, out);
		return rc < 0 ? rc : -EMSGSIZE;
	}
	c->local = *p;
	/* Never issue more than the other side accepts (IBTA Vol1 ch. 12). */
	c->local.responder_resources = min8(p->responder_resources, c->peer.initiator_depth);
	c->local.initiator_depth = min8(p->initiator_depth, c->peer.responder_resources);
	c->local.path_mtu = c->peer.path_mtu;
	hdr(&m, RK_CM_REP, c->tid);
	r->local_comm_id = c->local_comm_id;
	r->remote_comm_id = c->remote_comm_id ^ (RK_CM_MUTANT(RK_CM_MUT_REP_REMOTE_ID) ? 1u : 0u);
	r->local_qkey = p->qkey;
	r->local_qpn = p->qpn;
	r->starting_psn = p->psn;
	r->responder_resources = c->local.responder_resources;
	r->initiator_depth = c->local.initiator_depth;
	r->target_ack_delay = 0;
	r->rnr_retry_count = p->rnr_retry_count;
	r->local_ca_guid = p->ca_guid;
	memcpy(r->private_data, p->private_data, p->private_data_len);
	c->state = RK_CM_REP_SENT;
	rc = send_kept(c, &m, out, true, now_ns);
	/*
	 * The REP waits for the RTU as long and as often as the REQ said the
	 * active side takes (12.6.5), at least about 1 ms (2^8 * 4.096 us,
	 * Linux's floor) so a hostile REQ cannot make us resend at once.
	 */
	if (rc > 0 && !RK_CM_MUTANT(RK_CM_MUT_REP_OWN_TIMEOUT)) {
		c->timeout_ns = rk_cm_timeout_ns(c->req_cm_response_timeout > REP_WAIT_MIN ?
						 c->req_cm_response_timeout : REP_WAIT_MIN);
		c->timer_ns = now_ns + c->timeout_ns;
		c->retries_left = c->req_max_cm_retries;
	}
	return rc;
}

int
rk_cm_reject(struct rk_cm_conn *c, uint16_t reason, uint8_t out[RK_MAD_LEN])
{
	struct rk_cm_msg m;

	if (c == NULL || out == NULL ||
	    (c->state != RK_CM_REQ_RCVD && c->state != RK_CM_REQ_SENT &&
	     c->state != RK_CM_ESTABLISHED))
		return -EINVAL;
	hdr(&m, RK_CM_REJ, c->tid);
	m.rej.local_comm_id = c->local_comm_id;
	m.rej.remote_comm_id = c->remote_comm_id;
	m.rej.message_rejected = c->active ? 1 : 0;
	m.rej.reason = (uint16_t)(reason + (RK_CM_MUTANT(RK_CM_MUT_REJ_REASON) ? 1 : 0));
	c->state = RK_CM_CLOSED;
	c->timer_ns = 0;
	if (rk_cm_encode(&m, out, RK_MAD_LEN) < 0)
		return -EINVAL;
	return RK_CM_SEND;
}

int
rk_cm_reject_req(const struct rk_cm_msg *req, uint16_t reason, uint32_t comm_id,
		 uint64_t now_ns, uint8_t out[RK_MAD_LEN])
{
	struct rk_cm_conn tmp = { .state = RK_CM_IDLE };

	if (req == NULL || out == NULL)
		return -EINVAL;
	/* a REQ listen_req refuses (not RC, bad header) still leaves REQ_RCVD to answer */
	if (rk_cm_listen_req(&tmp, req, comm_id, now_ns) < 0 && tmp.state == RK_CM_IDLE)
		return 0;
	return rk_cm_reject(&tmp, reason, out) > 0 ? RK_CM_SEND : 0;
}

int
rk_cm_drep_unknown(const struct rk_cm_msg *dreq, uint8_t out[RK_MAD_LEN])
{
	struct rk_cm_msg m;

	if (dreq == NULL || out == NULL)
		return -EINVAL;
	if (dreq->hdr.attr_id != RK_CM_DREQ)
		return 0;
	hdr(&m, RK_CM_DREP, dreq->hdr.tid);
	m.rtu.local_comm_id = dreq->dreq.remote_comm_id;
	m.rtu.remote_comm_id = dreq->dreq.local_comm_id;
	return rk_cm_encode(&m, out, RK_MAD_LEN) < 0 ? -EINVAL : RK_CM_SEND;
}

static int
resend_reply(struct rk_cm_conn *c, uint8_t *out)
{
	if (!c->have_reply)
		return 0;
	memcpy(out, c->last_reply, RK_MAD_LEN);
	return RK_CM_SEND;
}

static int
send_drep(struct rk_cm_conn *c, uint64_t tid, uint64_t now_ns, uint8_t *out)
{
	struct rk_cm_msg m;

	hdr(&m, RK_CM_DREP, tid);
	m.rtu.local_comm_id = c->local_comm_id;
	m.rtu.remote_comm_id = c->remote_comm_id;
	c->state = RK_CM_TIMEWAIT;
	c->timer_ns = now_ns + CM_TIMEWAIT_NS;
	c->retries_left = 0;
	return send_kept(c, &m, out, false, now_ns);
}

int
rk_cm_rx(struct rk_cm_conn *c, const struct rk_cm_msg *m, uint64_t now_ns,
	 uint8_t out[RK_MAD_LEN])
{
	struct rk_cm_msg rtu;
	int rc;

	if (c == NULL || m == NULL || out == NULL)
		return -EINVAL;
	switch (m->hdr.attr_id) {
	case RK_CM_REQ:
		/* A repeated REQ: our REP was lost. */
		if (c->state == RK_CM_REP_SENT) {
			memcpy(out, c->last, RK_MAD_LEN);
			if (RK_CM_MUTANT(RK_CM_MUT_DUP_NEW_ID))
				out[RK_MAD_HDR_LEN + 3] ^= 0x01; /* Local Comm ID, last byte */
			return RK_CM_SEND;
		}
		break;
	case RK_CM_REP:
		if (c->state == RK_CM_ESTABLISHED && c->active)
			return resend_reply(c, out);    /* our RTU was lost */
		if (c->state != RK_CM_REQ_SENT)
			break;
		c->remote_comm_id = m->rep.local_comm_id;
		c->peer.qpn = m->rep.local_qpn;
		c->peer.psn = m->rep.starting_psn;
		c->peer.responder_resources = m->rep.responder_resources;
		c->peer.initiator_depth = m->rep.initiator_depth;
		c->peer.rnr_retry_count = m->rep.rnr_retry_count;
		c->peer.ca_guid = m->rep.local_ca_guid;
		c->peer.path_mtu = c->local.path_mtu;
		memcpy(c->peer.private_data, m->rep.private_data, RK_CM_REP_PD);
		c->peer.private_data_len = RK_CM_REP_PD;
		c->local.initiator_depth = min8(c->local.initiator_depth,
						m->rep.responder_resources);
		c->local.responder_resources = min8(c->local.responder_resources,
						    m->rep.initiator_depth);
		c->timer_ns = 0;
		c->state = RK_CM_ESTABLISHED;
		hdr(&rtu, RK_CM_RTU, c->tid);
		rtu.rtu.local_comm_id = c->local_comm_id;
		rtu.rtu.remote_comm_id = c->remote_comm_id;
		rc = send_kept(c, &rtu, out, false, now_ns);
		return rc < 0 ? rc : rc | RK_CM_EV_REP | RK_CM_EV_ESTABLISHED;
	case RK_CM_RTU:
		if (c->state != RK_CM_REP_SENT || RK_CM_MUTANT(RK_CM_MUT_NO_RTU))
			break;
		c->timer_ns = 0;
		c->state = RK_CM_ESTABLISHED;
		return RK_CM_EV_ESTABLISHED;
	case RK_CM_MRA:
		/* The peer needs longer: wait its service timeout on top of ours. */
		if (RK_CM_MUTANT(RK_CM_MUT_MRA_IGNORED))
			break;
		if ((c->state == RK_CM_REQ_SENT && m->mra.message_mraed == 0) ||
		    (c->state == RK_CM_REP_SENT && m->mra.message_mraed == 1)) {
			c->timer_ns = now_ns + c->timeout_ns +
				      rk_cm_timeout_ns(m->mra.service_timeout);
			return 0;
		}
		break;
	case RK_CM_REJ:
		if (c->state == RK_CM_REQ_SENT || c->state == RK_CM_REP_SENT ||
		    c->state == RK_CM_ESTABLISHED) {
			c->rej_reason = m->rej.reason;
			c->state = RK_CM_CLOSED;
			c->timer_ns = 0;
			return RK_CM_EV_REJECTED;
		}
		break;
	case RK_CM_DREQ:
		if (RK_CM_MUTANT(RK_CM_MUT_NO_DREP))
			break;
		if (c->state == RK_CM_ESTABLISHED || c->state == RK_CM_DREQ_SENT ||
		    c->state == RK_CM_REP_SENT) {
			rc = send_drep(c, m->hdr.tid, now_ns, out);
			return rc < 0 ? rc : rc | RK_CM_EV_DISCONNECTED;
		}
		if (c->state == RK_CM_TIMEWAIT && !RK_CM_MUTANT(RK_CM_MUT_TIMEWAIT_DROP))
			return send_drep(c, m->hdr.tid, now_ns, out);
		break;
	case RK_CM_DREP:
		if (c->state == RK_CM_DREQ_SENT) {
			c->state = RK_CM_TIMEWAIT;
			c->timer_ns = now_ns + CM_TIMEWAIT_NS;
			c->retries_left = 0;
			return RK_CM_EV_DISCONNECTED;
		}
		if (c->state == RK_CM_TIMEWAIT)
			return 0;       /* crossing DREQs: the DREP of ours after theirs */
		break;
	default:
		break;
	}
	c->ignored++;
	return RK_CM_EV_IGNORED;
}

int
rk_cm_disconnect(struct rk_cm_conn *c, uint64_t tid, uint64_t now_ns,
		 uint8_t out[RK_MAD_LEN])
{
	struct rk_cm_msg m;

	if (c == NULL || out == NULL ||
	    (c->state != RK_CM_ESTABLISHED && c->state != RK_CM_REP_SENT))
		return -EINVAL;
	hdr(&m, RK_CM_DREQ, tid);
	m.dreq.local_comm_id = c->local_comm_id;
	m.dreq.remote_comm_id = c->remote_comm_id;
	m.dreq.remote_qpn = c->peer.qpn;
	c->state = RK_CM_DREQ_SENT;
	return send_kept(c, &m, out, true, now_ns);
}

int
rk_cm_timer(struct rk_cm_conn *c, uint64_t now_ns, uint8_t out[RK_MAD_LEN])
{
	if (c == NULL || out == NULL || c->timer_ns == 0 || now_ns < c->timer_ns)
		return 0;
	if (c->state == RK_CM_TIMEWAIT) {
		c->state = RK_CM_CLOSED;
		c->timer_ns = 0;
		return 0;
	}
	if (c->retries_left == 0) {
		enum rk_cm_state was = c->state;

		c->timer_ns = 0;
		c->state = RK_CM_CLOSED;
		/* A DREQ nobody answers still ends the connection. */
		return was == RK_CM_DREQ_SENT ? RK_CM_EV_DISCONNECTED : RK_CM_EV_TIMEOUT;
	}
	c->retries_left--;
	c->timer_ns = now_ns + c->timeout_ns;
	memcpy(out, c->last, RK_MAD_LEN);
	return RK_CM_SEND;
}
