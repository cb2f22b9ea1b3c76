/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CM MAD codec (IBTA Vol 1 12.6, 13.4.3) and the RDMA-CM IP private data
 * header (Annex A11). Offsets are from the CM data (MAD byte 24).
 */
#include <errno.h>
#include <string.h>

#include "rk_byteorder.h"
#include "rk_cm.h"
#include "rk_cm_mutant.h"

static void
get_path(const uint8_t *p, struct rk_cm_path *o)
{
	uint32_t w = rk_get_be32(p + 36);

	o->local_lid = rk_get_be16(p);
	o->remote_lid = rk_get_be16(p + 2);
	memcpy(o->local_gid, p + 4, 16);
	memcpy(o->remote_gid, p + 20, 16);
	o->flow_label = w >> 12;
	o->packet_rate = w & 0x3f;
	o->traffic_class = p[40];
	o->hop_limit = p[41];
	o->sl = p[42] >> 4;
	o->subnet_local = (p[42] >> 3) & 1;
	o->local_ack_timeout = p[43] >> 3;
}

static void
put_path(uint8_t *p, const struct rk_cm_path *o)
{
	rk_put_be16(p, o->local_lid);
	rk_put_be16(p + 2, o->remote_lid);
	memcpy(p + 4, o->local_gid, 16);
	memcpy(p + 20, o->remote_gid, 16);
	rk_put_be32(p + 36, ((o->flow_label & 0xfffff) << 12) | (o->packet_rate & 0x3f));
	p[40] = o->traffic_class;
	p[41] = o->hop_limit;
	p[42] = (uint8_t)(((o->sl & 0xf) << 4) | ((o->subnet_local & 1) << 3));
	p[43] = (uint8_t)((o->local_ack_timeout & 0x1f) << 3);
}

static void
get_req(const uint8_t *d, struct rk_cm_req *r)
{
	r->local_comm_id = rk_get_be32(d);
	r->service_id = rk_get_be64(d + 8);
	r->local_ca_guid = rk_get_be64(d + 16);
	r->local_qkey = rk_get_be32(d + 28);
	r->local_qpn = rk_get_be24(d + 32);
	r->responder_resources = d[35];
	r->local_eecn = rk_get_be24(d + 36);
	r->initiator_depth = d[39];
	r->remote_eecn = rk_get_be24(d + 40);
	r->remote_cm_response_timeout = d[43] >> 3;
	r->transport_service_type = (d[43] >> 1) & 3;
	r->e2e_flow_control = d[43] & 1;
	r->starting_psn = rk_get_be24(d + 44);
	r->local_cm_response_timeout = d[47] >> 3;
	r->retry_count = d[47] & 7;
	r->pkey = rk_get_be16(d + 48);
	r->path_mtu = d[50] >> 4;
	r->rdc_exists = (d[50] >> 3) & 1;
	r->rnr_retry_count = d[50] & 7;
	r->max_cm_retries = d[51] >> 4;
	r->srq = (d[51] >> 3) & 1;
	r->ext_transport = d[51] & 7;
	get_path(d + 52, &r->primary);
	get_path(d + 96, &r->alternate);
	memcpy(r->private_data, d + 140, RK_CM_REQ_PD);
}

static void
put_req(uint8_t *d, const struct rk_cm_req *r)
{
	rk_put_be32(d, r->local_comm_id);
	rk_put_be64(d + 8, r->service_id);
	rk_put_be64(d + 16, r->local_ca_guid);
	rk_put_be32(d + 28, r->local_qkey);
	rk_put_be24(d + 32, r->local_qpn & 0xffffff);
	d[35] = r->responder_resources;
	rk_put_be24(d + 36, r->local_eecn & 0xffffff);
	d[39] = r->initiator_depth;
	rk_put_be24(d + 40, r->remote_eecn & 0xffffff);
	d[43] = (uint8_t)(((r->remote_cm_response_timeout & 0x1f) << 3) |
			  ((r->transport_service_type & 3) << 1) | (r->e2e_flow_control & 1));
	rk_put_be24(d + 44, r->starting_psn & 0xffffff);
	d[47] = (uint8_t)(((r->local_cm_response_timeout & 0x1f) << 3) | (r->retry_count & 7));
	rk_put_be16(d + 48, r->pkey);
	d[50] = (uint8_t)(((r->path_mtu & 0xf) << 4) | ((r->rdc_exists & 1) << 3) |
			  (r->rnr_retry_count & 7));
	d[51] = (uint8_t)(((r->max_cm_retries & 0xf) << 4) | ((r->srq & 1) << 3) |
			  (r->ext_transport & 7));
	put_path(d + 52, &r->primary);
	put_path(d + 96, &r->alternate);
	memcpy(d + 140, r->private_data, RK_CM_REQ_PD);
}

static void
get_rep(const uint8_t *d, struct rk_cm_rep *r)
{
	r->local_comm_id = rk_get_be32(d);
	r->remote_comm_id = rk_get_be32(d + 4);
	r->local_qkey = rk_get_be32(d + 8);
	r->local_qpn = rk_get_be24(d + 12);
	r->local_eecn = rk_get_be24(d + 16);
	r->starting_psn = rk_get_be24(d + 20);
	r->responder_resources = d[24];
	r->initiator_depth = d[25];
	r->target_ack_delay = d[26] >> 3;
	r->failover_accepted = (d[26] >> 1) & 3;
	r->e2e_flow_control = d[26] & 1;
	r->rnr_retry_count = d[27] >> 5;
	r->srq = (d[27] >> 4) & 1;
	r->local_ca_guid = rk_get_be64(d + 28);
	memcpy(r->private_data, d + 36, RK_CM_REP_PD);
}

static void
put_rep(uint8_t *d, const struct rk_cm_rep *r)
{
	rk_put_be32(d, r->local_comm_id);
	rk_put_be32(d + 4, r->remote_comm_id);
	rk_put_be32(d + 8, r->local_qkey);
	rk_put_be24(d + 12, r->local_qpn & 0xffffff);
	rk_put_be24(d + 16, r->local_eecn & 0xffffff);
	rk_put_be24(d + 20, r->starting_psn & 0xffffff);
	d[24] = r->responder_resources;
	d[25] = r->initiator_depth;
	d[26] = (uint8_t)(((r->target_ack_delay & 0x1f) << 3) | ((r->failover_accepted & 3) << 1) |
			  (r->e2e_flow_control & 1));
	d[27] = (uint8_t)(((r->rnr_retry_count & 7) << 5) | ((r->srq & 1) << 4));
	rk_put_be64(d + 28, r->local_ca_guid);
	memcpy(d + 36, r->private_data, RK_CM_REP_PD);
}

int
rk_cm_decode(const uint8_t *mad, size_t len, struct rk_cm_msg *m)
{
	const uint8_t *d = mad + RK_MAD_HDR_LEN;

	if (mad == NULL || m == NULL || len < RK_MAD_LEN)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	m->hdr.base_version = mad[0];
	m->hdr.mgmt_class = mad[1];
	m->hdr.class_version = mad[2];
	m->hdr.method = mad[3];
	m->hdr.status = rk_get_be16(mad + 4);
	m->hdr.class_specific = rk_get_be16(mad + 6);
	m->hdr.tid = rk_get_be64(mad + 8);
	m->hdr.attr_id = rk_get_be16(mad + 16);
	m->hdr.attr_mod = rk_get_be32(mad + 20);
	if (m->hdr.base_version != 1 || m->hdr.mgmt_class != RK_MAD_CLASS_CM ||
	    (m->hdr.class_version != RK_CM_CLASS_VERSION && !RK_CM_MUTANT(RK_CM_MUT_ANY_VERSION)))
		return -EPROTO;
	switch (m->hdr.attr_id) {
	case RK_CM_REQ:
		get_req(d, &m->req);
		break;
	case RK_CM_REP:
		get_rep(d, &m->rep);
		break;
	case RK_CM_MRA:
		m->mra.local_comm_id = rk_get_be32(d);
		m->mra.remote_comm_id = rk_get_be32(d + 4);
		m->mra.message_mraed = d[8] >> 6;
		m->mra.service_timeout = d[9] >> 3;
		memcpy(m->mra.private_data, d + 10, RK_CM_MRA_PD);
		break;
	case RK_CM_REJ:
		m->rej.local_comm_id = rk_get_be32(d);
		m->rej.remote_comm_id = rk_get_be32(d + 4);
		m->rej.message_rejected = d[8] >> 6;
		m->rej.reject_info_length = d[9] >> 1;
		m->rej.reason = rk_get_be16(d + 10);
		memcpy(m->rej.ari, d + 12, RK_CM_REJ_ARI);
		memcpy(m->rej.private_data, d + 84, RK_CM_REJ_PD);
		break;
	case RK_CM_RTU:
	case RK_CM_DREP:
		m->rtu.local_comm_id = rk_get_be32(d);
		m->rtu.remote_comm_id = rk_get_be32(d + 4);
		memcpy(m->rtu.private_data, d + 8, RK_CM_RTU_PD);
		break;
	case RK_CM_DREQ:
		m->dreq.local_comm_id = rk_get_be32(d);
		m->dreq.remote_comm_id = rk_get_be32(d + 4);
		m->dreq.remote_qpn = rk_get_be24(d + 8);
		memcpy(m->dreq.private_data, d + 12, RK_CM_DREQ_PD);
		break;
	default:
		return -EPROTO;
	}
	return 0;
}

int
rk_cm_encode(const struct rk_cm_msg *m, uint8_t *mad, size_t len)
{
	uint8_t *d = mad + RK_MAD_HDR_LEN;

	if (m == NULL || mad == NULL || len < RK_MAD_LEN)
		return -EINVAL;
	memset(mad, 0, RK_MAD_LEN);
	mad[0] = m->hdr.base_version;
	mad[1] = m->hdr.mgmt_class;
	mad[2] = m->hdr.class_version;
	mad[3] = m->hdr.method;
	rk_put_be16(mad + 4, m->hdr.status);
	rk_put_be16(mad + 6, m->hdr.class_specific);
	rk_put_be64(mad + 8, m->hdr.tid);
	rk_put_be16(mad + 16, m->hdr.attr_id);
	rk_put_be32(mad + 20, m->hdr.attr_mod);
	switch (m->hdr.attr_id) {
	case RK_CM_REQ:
		put_req(d, &m->req);
		break;
	case RK_CM_REP:
		put_rep(d, &m->rep);
		break;
	case RK_CM_MRA:
		rk_put_be32(d, m->mra.local_comm_id);
		rk_put_be32(d + 4, m->mra.remote_comm_id);
		d[8] = (uint8_t)((m->mra.message_mraed & 3) << 6);
		d[9] = (uint8_t)((m->mra.service_timeout & 0x1f) << 3);
		memcpy(d + 10, m->mra.private_data, RK_CM_MRA_PD);
		break;
	case RK_CM_REJ:
		rk_put_be32(d, m->rej.local_comm_id);
		rk_put_be32(d + 4, m->rej.remote_comm_id);
		d[8] = (uint8_t)((m->rej.message_rejected & 3) << 6);
		d[9] = (uint8_t)((m->rej.reject_info_length & 0x7f) << 1);
		rk_put_be16(d + 10, m->rej.reason);
		memcpy(d + 12, m->rej.ari, RK_CM_REJ_ARI);
		memcpy(d + 84, m->rej.private_data, RK_CM_REJ_PD);
		break;
	case RK_CM_RTU:
	case RK_CM_DREP:
		rk_put_be32(d, m->rtu.local_comm_id);
		rk_put_be32(d + 4, m->rtu.remote_comm_id);
		memcpy(d + 8, m->rtu.private_data, RK_CM_RTU_PD);
		break;
	case RK_CM_DREQ:
		rk_put_be32(d, m->dreq.local_comm_id);
		rk_put_be32(d + 4, m->dreq.remote_comm_id);
		rk_put_be24(d + 8, m->dreq.remote_qpn & 0xffffff);
		memcpy(d + 12, m->dreq.private_data, RK_CM_DREQ_PD);
		break;
	default:
		return -EPROTO;
	}
	return RK_MAD_LEN;
}

const char *
rk_cm_attr_name(uint16_t a)
{
	switch (a) {
	case RK_CM_REQ: return "REQ";
	case RK_CM_MRA: return "MRA";
	case RK_CM_REJ: return "REJ";
	case RK_CM_REP: return "REP";
	case RK_CM_RTU: return "RTU";
	case RK_CM_DREQ: return "DREQ";
	case RK_CM_DREP: return "DREP";
	default: return "?";
	}
}

const char *
rk_cm_rej_reason_name(uint16_t r)
{
	switch (r) {
	case RK_CM_REJ_NO_RESOURCES: return "no resources available";
	case RK_CM_REJ_TIMEOUT: return "timeout";
	case RK_CM_REJ_INVALID_COMM_ID: return "invalid communication ID";
	case RK_CM_REJ_INVALID_SERVICE_ID: return "invalid service ID (no listener)";
	case RK_CM_REJ_STALE_CONN: return "stale connection";
	case RK_CM_REJ_INVALID_MTU: return "invalid path MTU";
	case RK_CM_REJ_CONSUMER_REJECT: return "consumer reject";
	default: return "other reason";
	}
}

int
rk_cm_ip_pd_decode(const uint8_t pd[RK_CM_REQ_PD], struct rk_cm_ip_pd *o)
{
	if (pd == NULL || o == NULL)
		return -EINVAL;
	memset(o, 0, sizeof(*o));
	if (pd[0] != 0)
		return -EBADMSG;
	o->ip_version = pd[1] >> 4;
	if (o->ip_version != 4 && o->ip_version != 6)
		return -EBADMSG;
	o->src_port = rk_get_be16(pd + 2);
	memcpy(o->src_ip, pd + 4, 16);
	memcpy(o->dst_ip, pd + 20, 16);
	return 0;
}

int
rk_cm_ip_pd_encode(const struct rk_cm_ip_pd *ip, uint8_t pd[RK_CM_REQ_PD])
{
	if (pd == NULL || ip == NULL || (ip->ip_version != 4 && ip->ip_version != 6))
		return -EINVAL;
	pd[0] = 0;
	pd[1] = (uint8_t)(ip->ip_version << 4);
	rk_put_be16(pd + 2, ip->src_port);
	memcpy(pd + 4, ip->src_ip, 16);
	memcpy(pd + 20, ip->dst_ip, 16);
	if (ip->ip_version == 4) {
		memset(pd + 4, 0, 12);
		memset(pd + 20, 0, 12);
	}
	return 0;
}
