/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-inspect's words for the MADs on QP0 and QP1 (IBTA Vol1 13.4): class,
 * method and attribute by the names of lib/wire's tables (rk_mad.h), and
 * the key fields of the CM messages (12.6, 12.11), in the packet line, the
 * per-packet JSON and the summary's CM connections.
 */
#include "output.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

/* Appends to buf[len], cutting rather than overflowing. */
struct tbuf {
	char *p;
	size_t cap, len;
};

static void tb_printf(struct tbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
tb_printf(struct tbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->len + 1 >= b->cap)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	b->len += (size_t)n;
	if (b->len >= b->cap)
		b->len = b->cap - 1;
}

/* MsgRejected / MsgMRAed (12.6.6, 12.6.7): which message it answers. */
static const char *
cm_msg_name(uint16_t attr, uint8_t msg)
{
	static const char *const names[] = { "REQ", "REP", "other", "reserved" };

	if (attr == RK_MAD_CM_MRA && msg == 2)
		return "LAP";
	return names[msg & 3];
}

static const char *
cm_qpn_key(uint16_t attr)
{
	switch (attr) {
	case RK_MAD_CM_DREQ:
	case RK_MAD_CM_LAP:
		return "RemoteQPN";
	case RK_MAD_CM_SIDR_REP:
		return "QPN";
	default:
		return "LocalQPN";
	}
}

static bool
is_sidr(uint16_t attr)
{
	return attr == RK_MAD_CM_SIDR_REQ || attr == RK_MAD_CM_SIDR_REP;
}

void
rk_insp_mad_text(char *buf, size_t len, const struct rk_mad *m)
{
	struct tbuf b = { .p = buf, .cap = len, .len = 0 };
	const struct rk_mad_name *cls = rk_mad_class_info(m->mgmt_class);
	const struct rk_mad_name *meth = rk_mad_method_info(m->mgmt_class, m->method);
	const struct rk_mad_name *attr = rk_mad_attr_info(m->mgmt_class, m->attr_id);
	const struct rk_mad_cm *c = &m->cm;

	if (len == 0)
		return;
	buf[0] = '\0';
	if (m->base_version != RK_MAD_BASE_VERSION) {
		tb_printf(&b, " {MAD BaseVersion=%u}", m->base_version);
		return;
	}
	if (cls != NULL)
		tb_printf(&b, " {%s", cls->name);
	else
		tb_printf(&b, " {MgmtClass=0x%02x", m->mgmt_class);
	if (meth != NULL)
		tb_printf(&b, " %s", meth->name);
	else
		tb_printf(&b, " Method=0x%02x", m->method);
	if (attr != NULL)
		tb_printf(&b, " %s", attr->name);
	else
		tb_printf(&b, " AttributeID=0x%04x", m->attr_id);
	tb_printf(&b, " TID=0x%016" PRIx64, m->tid);
	if (m->status != 0)
		tb_printf(&b, " Status=0x%04x", m->status);
	if (m->attr_mod != 0)
		tb_printf(&b, " AttributeModifier=0x%08x", m->attr_mod);
	if (c->fields & RK_MAD_CM_F_LOCAL_ID)
		tb_printf(&b, " %s=0x%08x", is_sidr(m->attr_id) ? "RequestID" : "LocalCommID",
			  c->local_comm_id);
	if (c->fields & RK_MAD_CM_F_REMOTE_ID)
		tb_printf(&b, " RemoteCommID=0x%08x", c->remote_comm_id);
	if (c->fields & RK_MAD_CM_F_SERVICE_ID)
		tb_printf(&b, " ServiceID=0x%016" PRIx64, c->service_id);
	if (c->fields & RK_MAD_CM_F_QPN)
		tb_printf(&b, " %s=0x%06x", cm_qpn_key(m->attr_id), c->qpn);
	if (c->fields & RK_MAD_CM_F_PSN)
		tb_printf(&b, " StartingPSN=%u", c->starting_psn);
	if (c->fields & RK_MAD_CM_F_MSG)
		tb_printf(&b, " %s=%s", m->attr_id == RK_MAD_CM_MRA ? "MsgMRAed" : "MsgRejected",
			  cm_msg_name(m->attr_id, c->msg));
	if (c->fields & RK_MAD_CM_F_REASON) {
		const char *rn = rk_mad_cm_rej_reason_name(c->reason);

		tb_printf(&b, " Reason=%u(%s)", c->reason, rn != NULL ? rn : "unknown");
	}
	if (c->fields & RK_MAD_CM_F_STATUS)
		tb_printf(&b, " %s=%u", m->attr_id == RK_MAD_CM_APR ? "APStatus" : "Status",
			  c->status);
	tb_printf(&b, "}");
}

static json_t *
hex64(uint64_t v)
{
	char s[24];

	snprintf(s, sizeof(s), "0x%016" PRIx64, v);
	return json_string(s);
}

static json_t *
name_or_null(const struct rk_mad_name *n)
{
	return n != NULL ? json_string(n->name) : json_null();
}

json_t *
rk_insp_mad_json(const struct rk_mad *m)
{
	json_t *o = json_object();
	const struct rk_mad_cm *c = &m->cm;

	json_object_set_new(o, "base_version", json_integer(m->base_version));
	json_object_set_new(o, "mgmt_class", json_integer(m->mgmt_class));
	json_object_set_new(o, "class_name", name_or_null(rk_mad_class_info(m->mgmt_class)));
	json_object_set_new(o, "class_version", json_integer(m->class_version));
	json_object_set_new(o, "method", json_integer(m->method));
	json_object_set_new(o, "method_name",
			    name_or_null(rk_mad_method_info(m->mgmt_class, m->method)));
	json_object_set_new(o, "response", json_boolean(m->method & RK_MAD_METHOD_R));
	json_object_set_new(o, "status", json_integer(m->status));
	json_object_set_new(o, "class_specific", json_integer(m->class_specific));
	json_object_set_new(o, "tid", hex64(m->tid));
	json_object_set_new(o, "attr_id", json_integer(m->attr_id));
	json_object_set_new(o, "attr_name",
			    name_or_null(rk_mad_attr_info(m->mgmt_class, m->attr_id)));
	json_object_set_new(o, "attr_mod", json_integer(m->attr_mod));
	if (m->base_version == RK_MAD_BASE_VERSION && m->mgmt_class == RK_MAD_CLASS_COMM) {
		json_t *cm = json_object();

		if (c->fields & RK_MAD_CM_F_LOCAL_ID)
			json_object_set_new(cm, is_sidr(m->attr_id) ? "request_id" :
					    "local_comm_id", json_integer(c->local_comm_id));
		if (c->fields & RK_MAD_CM_F_REMOTE_ID)
			json_object_set_new(cm, "remote_comm_id", json_integer(c->remote_comm_id));
		if (c->fields & RK_MAD_CM_F_SERVICE_ID)
			json_object_set_new(cm, "service_id", hex64(c->service_id));
		if (c->fields & RK_MAD_CM_F_QPN)
			json_object_set_new(cm, m->attr_id == RK_MAD_CM_DREQ ||
					    m->attr_id == RK_MAD_CM_LAP ? "remote_qpn" :
					    m->attr_id == RK_MAD_CM_SIDR_REP ? "qpn" : "local_qpn",
					    json_integer(c->qpn));
		if (c->fields & RK_MAD_CM_F_PSN)
			json_object_set_new(cm, "starting_psn", json_integer(c->starting_psn));
		if (c->fields & RK_MAD_CM_F_QKEY)
			json_object_set_new(cm, "q_key", json_integer(c->qkey));
		if (c->fields & RK_MAD_CM_F_PKEY)
			json_object_set_new(cm, "p_key", json_integer(c->pkey));
		if (c->fields & RK_MAD_CM_F_MSG)
			json_object_set_new(cm, m->attr_id == RK_MAD_CM_MRA ? "msg_mraed" :
					    "msg_rejected",
					    json_string(cm_msg_name(m->attr_id, c->msg)));
		if (c->fields & RK_MAD_CM_F_REASON) {
			const char *rn = rk_mad_cm_rej_reason_name(c->reason);

			json_object_set_new(cm, "reason", json_integer(c->reason));
			json_object_set_new(cm, "reason_name",
					    rn != NULL ? json_string(rn) : json_null());
		}
		if (c->fields & RK_MAD_CM_F_STATUS)
			json_object_set_new(cm, m->attr_id == RK_MAD_CM_APR ? "ap_status" :
					    "status", json_integer(c->status));
		json_object_set_new(o, "cm", cm);
	}
	return o;
}
