/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MAD header decoding and the class / method / attribute tables
 * (IBTA Vol1 13.4; SM 14.2, SA 15.2, CM 12.6 and 12.11).
 */
#include "rk_mad.h"

#include <errno.h>
#include <string.h>

#include "rk_bth.h"
#include "rk_byteorder.h"

#define SM RK_MAD_CLASS_SUBN_LID
#define SA RK_MAD_CLASS_SUBN_ADM
#define PM RK_MAD_CLASS_PERF
#define BM RK_MAD_CLASS_BM
#define DM RK_MAD_CLASS_DEV
#define CM RK_MAD_CLASS_COMM

const struct rk_mad_name rk_mad_classes[] = {
	{ 0, SM, "SM", "IBTA Vol1 13.4.4" },
	{ 0, RK_MAD_CLASS_SUBN_DR, "SM-DR", "IBTA Vol1 13.4.4" },
	{ 0, SA, "SA", "IBTA Vol1 13.4.4" },
	{ 0, PM, "PM", "IBTA Vol1 13.4.4" },
	{ 0, BM, "BM", "IBTA Vol1 13.4.4" },
	{ 0, DM, "DevMgt", "IBTA Vol1 13.4.4" },
	{ 0, CM, "CM", "IBTA Vol1 13.4.4" },
	{ 0, RK_MAD_CLASS_SNMP, "SNMP", "IBTA Vol1 13.4.4" },
	{ 0, 0, NULL, NULL },
};

const struct rk_mad_name rk_mad_methods[] = {
	/* Common methods. */
	{ 0, 0x01, "Get", "IBTA Vol1 13.4.5" },
	{ 0, 0x02, "Set", "IBTA Vol1 13.4.5" },
	{ 0, 0x03, "Send", "IBTA Vol1 13.4.5" },
	{ 0, 0x05, "Trap", "IBTA Vol1 13.4.5" },
	{ 0, 0x06, "Report", "IBTA Vol1 13.4.5" },
	{ 0, 0x07, "TrapRepress", "IBTA Vol1 13.4.5" },
	{ 0, 0x81, "GetResp", "IBTA Vol1 13.4.5" },
	{ 0, 0x86, "ReportResp", "IBTA Vol1 13.4.5" },
	/* Subnet Management. */
	{ SM, 0x01, "SubnGet", "IBTA Vol1 14.2.2" },
	{ SM, 0x02, "SubnSet", "IBTA Vol1 14.2.2" },
	{ SM, 0x05, "SubnTrap", "IBTA Vol1 14.2.2" },
	{ SM, 0x07, "SubnTrapRepress", "IBTA Vol1 14.2.2" },
	{ SM, 0x81, "SubnGetResp", "IBTA Vol1 14.2.2" },
	/* Subnet Administration. */
	{ SA, 0x01, "SubnAdmGet", "IBTA Vol1 15.2.2" },
	{ SA, 0x02, "SubnAdmSet", "IBTA Vol1 15.2.2" },
	{ SA, 0x06, "SubnAdmReport", "IBTA Vol1 15.2.2" },
	{ SA, 0x12, "SubnAdmGetTable", "IBTA Vol1 15.2.2" },
	{ SA, 0x13, "SubnAdmGetTraceTable", "IBTA Vol1 15.2.2" },
	{ SA, 0x14, "SubnAdmGetMulti", "IBTA Vol1 15.2.2" },
	{ SA, 0x15, "SubnAdmDelete", "IBTA Vol1 15.2.2" },
	{ SA, 0x81, "SubnAdmGetResp", "IBTA Vol1 15.2.2" },
	{ SA, 0x86, "SubnAdmReportResp", "IBTA Vol1 15.2.2" },
	{ SA, 0x92, "SubnAdmGetTableResp", "IBTA Vol1 15.2.2" },
	{ SA, 0x94, "SubnAdmGetMultiResp", "IBTA Vol1 15.2.2" },
	{ SA, 0x95, "SubnAdmDeleteResp", "IBTA Vol1 15.2.2" },
	/* Performance Management. */
	{ PM, 0x01, "PerfGet", "IBTA Vol1 16.1" },
	{ PM, 0x02, "PerfSet", "IBTA Vol1 16.1" },
	{ PM, 0x81, "PerfGetResp", "IBTA Vol1 16.1" },
	/* Communication Management. */
	{ CM, 0x01, "ComMgtGet", "IBTA Vol1 12.6" },
	{ CM, 0x02, "ComMgtSet", "IBTA Vol1 12.6" },
	{ CM, 0x03, "ComMgtSend", "IBTA Vol1 12.6" },
	{ CM, 0x81, "ComMgtGetResp", "IBTA Vol1 12.6" },
	{ 0, 0, NULL, NULL },
};

const struct rk_mad_name rk_mad_attrs[] = {
	/* Common attributes. */
	{ 0, 0x0001, "ClassPortInfo", "IBTA Vol1 13.4.8.1" },
	{ 0, 0x0002, "Notice", "IBTA Vol1 13.4.8.2" },
	{ 0, 0x0003, "InformInfo", "IBTA Vol1 13.4.8.3" },
	/* Subnet Management. */
	{ SM, 0x0010, "NodeDescription", "IBTA Vol1 14.2.5" },
	{ SM, 0x0011, "NodeInfo", "IBTA Vol1 14.2.5" },
	{ SM, 0x0012, "SwitchInfo", "IBTA Vol1 14.2.5" },
	{ SM, 0x0014, "GUIDInfo", "IBTA Vol1 14.2.5" },
	{ SM, 0x0015, "PortInfo", "IBTA Vol1 14.2.5" },
	{ SM, 0x0016, "P_KeyTable", "IBTA Vol1 14.2.5" },
	{ SM, 0x0017, "SLtoVLMappingTable", "IBTA Vol1 14.2.5" },
	{ SM, 0x0018, "VLArbitrationTable", "IBTA Vol1 14.2.5" },
	{ SM, 0x0019, "LinearForwardingTable", "IBTA Vol1 14.2.5" },
	{ SM, 0x001a, "RandomForwardingTable", "IBTA Vol1 14.2.5" },
	{ SM, 0x001b, "MulticastForwardingTable", "IBTA Vol1 14.2.5" },
	{ SM, 0x0020, "SMInfo", "IBTA Vol1 14.2.5" },
	{ SM, 0x0030, "VendorDiag", "IBTA Vol1 14.2.5" },
	{ SM, 0x0031, "LedInfo", "IBTA Vol1 14.2.5" },
	/* Subnet Administration. */
	{ SA, 0x0011, "NodeRecord", "IBTA Vol1 15.2.5" },
	{ SA, 0x0012, "PortInfoRecord", "IBTA Vol1 15.2.5" },
	{ SA, 0x0013, "SLtoVLMappingTableRecord", "IBTA Vol1 15.2.5" },
	{ SA, 0x0014, "SwitchInfoRecord", "IBTA Vol1 15.2.5" },
	{ SA, 0x0015, "LinearForwardingTableRecord", "IBTA Vol1 15.2.5" },
	{ SA, 0x0016, "RandomForwardingTableRecord", "IBTA Vol1 15.2.5" },
	{ SA, 0x0017, "MulticastForwardingTableRecord", "IBTA Vol1 15.2.5" },
	{ SA, 0x0018, "SMInfoRecord", "IBTA Vol1 15.2.5" },
	{ SA, 0x0020, "LinkRecord", "IBTA Vol1 15.2.5" },
	{ SA, 0x0030, "GuidInfoRecord", "IBTA Vol1 15.2.5" },
	{ SA, 0x0031, "ServiceRecord", "IBTA Vol1 15.2.5" },
	{ SA, 0x0033, "P_KeyTableRecord", "IBTA Vol1 15.2.5" },
	{ SA, 0x0035, "PathRecord", "IBTA Vol1 15.2.5" },
	{ SA, 0x0036, "VLArbitrationTableRecord", "IBTA Vol1 15.2.5" },
	{ SA, 0x0038, "MCMemberRecord", "IBTA Vol1 15.2.5" },
	{ SA, 0x0039, "TraceRecord", "IBTA Vol1 15.2.5" },
	{ SA, 0x003a, "MultiPathRecord", "IBTA Vol1 15.2.5" },
	{ SA, 0x003b, "ServiceAssociationRecord", "IBTA Vol1 15.2.5" },
	{ SA, 0x00f3, "InformInfoRecord", "IBTA Vol1 15.2.5" },
	/* Communication Management. */
	{ CM, RK_MAD_CM_REQ, "REQ", "IBTA Vol1 12.6.5" },
	{ CM, RK_MAD_CM_MRA, "MRA", "IBTA Vol1 12.6.6" },
	{ CM, RK_MAD_CM_REJ, "REJ", "IBTA Vol1 12.6.7" },
	{ CM, RK_MAD_CM_REP, "REP", "IBTA Vol1 12.6.8" },
	{ CM, RK_MAD_CM_RTU, "RTU", "IBTA Vol1 12.6.9" },
	{ CM, RK_MAD_CM_DREQ, "DREQ", "IBTA Vol1 12.6.10" },
	{ CM, RK_MAD_CM_DREP, "DREP", "IBTA Vol1 12.6.11" },
	{ CM, RK_MAD_CM_SIDR_REQ, "SIDR_REQ", "IBTA Vol1 12.11" },
	{ CM, RK_MAD_CM_SIDR_REP, "SIDR_REP", "IBTA Vol1 12.11" },
	{ CM, RK_MAD_CM_LAP, "LAP", "IBTA Vol1 12.6" },
	{ CM, RK_MAD_CM_APR, "APR", "IBTA Vol1 12.6" },
	{ 0, 0, NULL, NULL },
};

const struct rk_mad_name rk_mad_cm_rej_reasons[] = {
	{ CM, 1, "no QP available", "IBTA Vol1 12.6.7.2" },
	{ CM, 2, "no EE context available", "IBTA Vol1 12.6.7.2" },
	{ CM, 3, "no resources available", "IBTA Vol1 12.6.7.2" },
	{ CM, 4, "timeout", "IBTA Vol1 12.6.7.2" },
	{ CM, 5, "unsupported request", "IBTA Vol1 12.6.7.2" },
	{ CM, 6, "invalid Communication ID", "IBTA Vol1 12.6.7.2" },
	{ CM, 7, "invalid Communication Instance", "IBTA Vol1 12.6.7.2" },
	{ CM, 8, "invalid Service ID", "IBTA Vol1 12.6.7.2" },
	{ CM, 9, "invalid Transport Service Type", "IBTA Vol1 12.6.7.2" },
	{ CM, 10, "stale connection", "IBTA Vol1 12.6.7.2" },
	{ CM, 11, "RDC does not exist", "IBTA Vol1 12.6.7.2" },
	{ CM, 12, "primary remote port GID rejected", "IBTA Vol1 12.6.7.2" },
	{ CM, 13, "primary remote port LID rejected", "IBTA Vol1 12.6.7.2" },
	{ CM, 14, "invalid primary SL", "IBTA Vol1 12.6.7.2" },
	{ CM, 15, "invalid primary traffic class", "IBTA Vol1 12.6.7.2" },
	{ CM, 16, "invalid primary hop limit", "IBTA Vol1 12.6.7.2" },
	{ CM, 17, "invalid primary packet rate", "IBTA Vol1 12.6.7.2" },
	{ CM, 18, "alternate remote port GID rejected", "IBTA Vol1 12.6.7.2" },
	{ CM, 19, "alternate remote port LID rejected", "IBTA Vol1 12.6.7.2" },
	{ CM, 20, "invalid alternate SL", "IBTA Vol1 12.6.7.2" },
	{ CM, 21, "invalid alternate traffic class", "IBTA Vol1 12.6.7.2" },
	{ CM, 22, "invalid alternate hop limit", "IBTA Vol1 12.6.7.2" },
	{ CM, 23, "invalid alternate packet rate", "IBTA Vol1 12.6.7.2" },
	{ CM, 24, "port and CM redirection", "IBTA Vol1 12.6.7.2" },
	{ CM, 25, "port redirection", "IBTA Vol1 12.6.7.2" },
	{ CM, 26, "invalid path MTU", "IBTA Vol1 12.6.7.2" },
	{ CM, 27, "insufficient responder resources", "IBTA Vol1 12.6.7.2" },
	{ CM, 28, "consumer reject", "IBTA Vol1 12.6.7.2" },
	{ CM, 29, "invalid RNR NAK retry count", "IBTA Vol1 12.6.7.2" },
	{ CM, 30, "duplicate local Communication ID", "IBTA Vol1 12.6.7.2" },
	{ CM, 31, "unsupported class version", "IBTA Vol1 12.6.7.2" },
	{ CM, 32, "invalid primary flow label", "IBTA Vol1 12.6.7.2" },
	{ CM, 33, "invalid alternate flow label", "IBTA Vol1 12.6.7.2" },
	{ 0, 0, NULL, NULL },
};

/* Directed-route SMPs carry the same methods and attributes. */
static uint8_t
table_class(uint8_t cls)
{
	return cls == RK_MAD_CLASS_SUBN_DR ? RK_MAD_CLASS_SUBN_LID : cls;
}

static const struct rk_mad_name *
lookup(const struct rk_mad_name *t, uint8_t cls, uint16_t v)
{
	const struct rk_mad_name *common = NULL;

	for (; t->name != NULL; t++) {
		if (t->value != v)
			continue;
		if (t->mgmt_class == cls)
			return t;
		if (t->mgmt_class == 0 && common == NULL)
			common = t;
	}
	return common;
}

const struct rk_mad_name *
rk_mad_class_info(uint8_t cls)
{
	return lookup(rk_mad_classes, 0, cls);
}

const struct rk_mad_name *
rk_mad_method_info(uint8_t cls, uint8_t method)
{
	return lookup(rk_mad_methods, table_class(cls), method);
}

const struct rk_mad_name *
rk_mad_attr_info(uint8_t cls, uint16_t attr)
{
	return lookup(rk_mad_attrs, table_class(cls), attr);
}

const char *
rk_mad_cm_rej_reason_name(uint16_t reason)
{
	const struct rk_mad_name *n = lookup(rk_mad_cm_rej_reasons, CM, reason);

	return n != NULL ? n->name : NULL;
}

/*
 * Where a CM message's key fields sit, from the CM data (MAD byte 24):
 * offset, or -1 when the message has no such field.
 */
struct cm_layout {
	uint16_t attr;
	int8_t local_id, remote_id, qpn, psn, service_id, reason, msg, status, qkey, pkey;
};

static const struct cm_layout cm_layouts[] = {
	/*                    local remote qpn psn  sid  reason msg status qkey pkey */
	{ RK_MAD_CM_REQ,      0,   -1,   32,  44,   8,   -1,   -1,  -1,   28,  48 },
	{ RK_MAD_CM_MRA,      0,    4,   -1,  -1,  -1,   -1,    8,  -1,   -1,  -1 },
	{ RK_MAD_CM_REJ,      0,    4,   -1,  -1,  -1,   10,    8,  -1,   -1,  -1 },
	{ RK_MAD_CM_REP,      0,    4,   12,  20,  -1,   -1,   -1,  -1,    8,  -1 },
	{ RK_MAD_CM_RTU,      0,    4,   -1,  -1,  -1,   -1,   -1,  -1,   -1,  -1 },
	{ RK_MAD_CM_DREQ,     0,    4,    8,  -1,  -1,   -1,   -1,  -1,   -1,  -1 },
	{ RK_MAD_CM_DREP,     0,    4,   -1,  -1,  -1,   -1,   -1,  -1,   -1,  -1 },
	{ RK_MAD_CM_SIDR_REQ, 0,   -1,   -1,  -1,   8,   -1,   -1,  -1,   -1,   4 },
	{ RK_MAD_CM_SIDR_REP, 0,   -1,    8,  -1,  12,   -1,   -1,   4,   20,  -1 },
	{ RK_MAD_CM_LAP,      0,    4,   12,  -1,  -1,   -1,   -1,  -1,   -1,  -1 },
	{ RK_MAD_CM_APR,      0,    4,   -1,  -1,  -1,   -1,   -1,   9,   -1,  -1 },
};

/* Whether @p n bytes at CM data offset @p off were captured. */
static bool
have(uint32_t caplen, int off, uint32_t n)
{
	return off >= 0 && RK_MAD_HEADER_BYTES + (uint32_t)off + n <= caplen;
}

static void
cm_fields(const uint8_t *p, uint32_t caplen, struct rk_mad *m, struct rk_findings *f,
	  uint32_t off)
{
	const struct cm_layout *l = NULL;
	const uint8_t *d = p + RK_MAD_HEADER_BYTES;
	struct rk_mad_cm *c = &m->cm;

	for (size_t i = 0; i < sizeof(cm_layouts) / sizeof(cm_layouts[0]); i++)
		if (cm_layouts[i].attr == m->attr_id)
			l = &cm_layouts[i];
	if (l == NULL) {
		if (m->attr_id != RK_MAD_ATTR_CLASS_PORT_INFO && f != NULL)
			rk_findings_add(f, RK_F_MAD_CM_ATTR, off + 16);
		return;
	}
	if (have(caplen, l->local_id, 4)) {
		c->local_comm_id = rk_get_be32(d + l->local_id);
		c->fields |= RK_MAD_CM_F_LOCAL_ID;
	}
	if (have(caplen, l->remote_id, 4)) {
		c->remote_comm_id = rk_get_be32(d + l->remote_id);
		c->fields |= RK_MAD_CM_F_REMOTE_ID;
	}
	if (have(caplen, l->qpn, 3)) {
		c->qpn = rk_get_be24(d + l->qpn);
		c->fields |= RK_MAD_CM_F_QPN;
	}
	if (have(caplen, l->psn, 3)) {
		c->starting_psn = rk_get_be24(d + l->psn);
		c->fields |= RK_MAD_CM_F_PSN;
	}
	if (have(caplen, l->service_id, 8)) {
		c->service_id = rk_get_be64(d + l->service_id);
		c->fields |= RK_MAD_CM_F_SERVICE_ID;
	}
	if (have(caplen, l->reason, 2)) {
		c->reason = rk_get_be16(d + l->reason);
		c->fields |= RK_MAD_CM_F_REASON;
	}
	if (have(caplen, l->msg, 1)) {
		c->msg = d[l->msg] >> 6;
		c->fields |= RK_MAD_CM_F_MSG;
	}
	if (have(caplen, l->status, 1)) {
		c->status = d[l->status];
		c->fields |= RK_MAD_CM_F_STATUS;
	}
	if (have(caplen, l->qkey, 4)) {
		c->qkey = rk_get_be32(d + l->qkey);
		c->fields |= RK_MAD_CM_F_QKEY;
	}
	if (have(caplen, l->pkey, 2)) {
		c->pkey = rk_get_be16(d + l->pkey);
		c->fields |= RK_MAD_CM_F_PKEY;
	}
}

int
rk_mad_parse(const uint8_t *p, uint32_t caplen, uint32_t wirelen, struct rk_mad *m,
	     struct rk_findings *f, uint32_t off)
{
	if (p == NULL || m == NULL)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	if (wirelen < caplen)
		wirelen = caplen;
	m->len = wirelen;
	if (wirelen < RK_MAD_HEADER_BYTES) {
		if (f != NULL)
			rk_findings_add(f, RK_F_MAD_TRUNCATED, off);
		return -EBADMSG;
	}
	if (caplen < RK_MAD_HEADER_BYTES)
		return -EAGAIN;
	m->base_version = p[0];
	m->mgmt_class = p[1];
	m->class_version = p[2];
	m->method = p[3];
	m->status = rk_get_be16(p + 4);
	m->class_specific = rk_get_be16(p + 6);
	m->tid = rk_get_be64(p + 8);
	m->attr_id = rk_get_be16(p + 16);
	m->attr_mod = rk_get_be32(p + 20);
	if (f != NULL && wirelen != RK_MAD_BYTES)
		rk_findings_add(f, RK_F_MAD_LENGTH, off);
	if (m->base_version != RK_MAD_BASE_VERSION) {
		/* Another MAD format: its fields are not the ones below. */
		if (f != NULL)
			rk_findings_add(f, RK_F_MAD_BASE_VERSION, off);
		return 0;
	}
	if (m->mgmt_class == RK_MAD_CLASS_COMM) {
		/* A short MAD: key fields only from bytes it holds. */
		if (caplen > wirelen)
			caplen = wirelen;
		cm_fields(p, caplen, m, f, off);
	}
	return 0;
}

int
rk_pkt_mad(const struct rk_pkt *pkt, struct rk_mad *m, struct rk_findings *f)
{
	uint32_t cap;
	int rc;

	if (pkt == NULL || m == NULL || !rk_pkt_has_bth(pkt) || pkt->op == NULL ||
	    pkt->opcode != RK_MAD_UD_SEND_ONLY || rk_bth_dest_qp(rk_pkt_bth(pkt)) > 1 ||
	    (uint64_t)pkt->bth_off + pkt->op->hdr_len > pkt->caplen)
		return 0;
	cap = pkt->payload_off < pkt->caplen ? pkt->caplen - pkt->payload_off : 0;
	if (cap > pkt->payload_len)
		cap = pkt->payload_len;
	rc = rk_mad_parse(pkt->frame + pkt->payload_off, cap, pkt->payload_len, m, f,
			  pkt->payload_off);
	return rc == 0 ? 1 : rc;
}
