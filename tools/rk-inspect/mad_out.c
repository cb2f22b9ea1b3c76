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

/* ------------------------------------------------- CM connections */

/* "REQ REP RTU" ...: the CM messages seen, in the order of 12.6. */
static void
seen_text(struct tbuf *b, uint32_t seen)
{
	bool any = false;

	for (uint16_t a = RK_MAD_CM_REQ; a <= RK_MAD_CM_APR; a++) {
		const struct rk_mad_name *n;

		if (!(seen & rk_insp_cmconn_bit(a)) || a == RK_MAD_CM_SIDR_REQ ||
		    a == RK_MAD_CM_SIDR_REP)
			continue;
		n = rk_mad_attr_info(RK_MAD_CLASS_COMM, a);
		tb_printf(b, "%s%s", any ? " " : "", n != NULL ? n->name : "?");
		any = true;
	}
}

static json_t *
seen_json(uint32_t seen)
{
	json_t *a = json_array();

	for (uint16_t x = RK_MAD_CM_REQ; x <= RK_MAD_CM_APR; x++) {
		const struct rk_mad_name *n;

		if (!(seen & rk_insp_cmconn_bit(x)) || x == RK_MAD_CM_SIDR_REQ ||
		    x == RK_MAD_CM_SIDR_REP)
			continue;
		n = rk_mad_attr_info(RK_MAD_CLASS_COMM, x);
		json_array_append_new(a, json_string(n != NULL ? n->name : "?"));
	}
	return a;
}

/* What the messages seen say of the connection's life (12.9). */
static const char *
cm_state(const struct rk_insp_cmconn *c)
{
	uint32_t s = c->seen;

	if (s & rk_insp_cmconn_bit(RK_MAD_CM_REJ))
		return "rejected";
	if (s & rk_insp_cmconn_bit(RK_MAD_CM_DREP))
		return "disconnected";
	if (s & rk_insp_cmconn_bit(RK_MAD_CM_DREQ))
		return "disconnecting";
	if (s & rk_insp_cmconn_bit(RK_MAD_CM_RTU))
		return "established";
	if (s & rk_insp_cmconn_bit(RK_MAD_CM_REP))
		return "replied";
	return "requested";
}

static void
cm_line(struct tbuf *b, const struct rk_insp_cmconn *c)
{
	tb_printf(b, "LocalCommID 0x%08x", c->comm_id[0]);
	if (c->rep_seen)
		tb_printf(b, " <-> 0x%08x", c->comm_id[1]);
	tb_printf(b, " ServiceID=0x%016" PRIx64 ", REQ LocalQPN=0x%06x StartingPSN=%u",
		  c->service_id, c->qpn[0], c->psn[0]);
	if (c->rep_seen)
		tb_printf(b, ", REP LocalQPN=0x%06x StartingPSN=%u", c->qpn[1], c->psn[1]);
	tb_printf(b, ", %s: ", cm_state(c));
	seen_text(b, c->seen);
	if (c->seen & rk_insp_cmconn_bit(RK_MAD_CM_REJ)) {
		const char *rn = rk_mad_cm_rej_reason_name(c->rej_reason);

		tb_printf(b, " (Reason=%u(%s))", c->rej_reason, rn != NULL ? rn : "unknown");
	}
}

void
rk_insp_print_flow_cm(FILE *out, const struct rk_insp_cmconns *t, const struct rk_insp_flow *f)
{
	char buf[384];
	struct tbuf b = { .p = buf, .cap = sizeof(buf), .len = 0 };
	int side = 0;
	const struct rk_insp_cmconn *c;

	if (t == NULL || t->n == 0)
		return;
	c = rk_insp_cmconn_of_flow(t, f->key.src, f->key.dst, f->key.dest_qp, &side);
	if (c == NULL)
		return;
	buf[0] = '\0';
	cm_line(&b, c);
	fprintf(out, "    CM (%s side): %s\n", side == 0 ? "active" : "passive", buf);
}

static json_t *
cmconn_json(const struct rk_insp_cmconn *c)
{
	json_t *o = json_object(), *sides = json_array();
	const struct rk_insp_cmconn *x = c;

	for (int s = 0; s < 2; s++) {
		json_t *e = json_object();
		char a[64];

		rk_insp_format_addr(a, sizeof(a), x->addr[s], x->lid);
		json_object_set_new(e, "addr", json_string(a));
		json_object_set_new(e, "local_comm_id", s == 0 || x->rep_seen ?
				    json_integer(x->comm_id[s]) : json_null());
		json_object_set_new(e, "local_qpn", s == 0 || x->rep_seen ?
				    json_integer(x->qpn[s]) : json_null());
		json_object_set_new(e, "starting_psn", s == 0 || x->rep_seen ?
				    json_integer(x->psn[s]) : json_null());
		json_array_append_new(sides, e);
	}
	json_object_set_new(o, "sides", sides);
	json_object_set_new(o, "service_id", hex64(c->service_id));
	json_object_set_new(o, "state", json_string(cm_state(c)));
	json_object_set_new(o, "messages", seen_json(c->seen));
	if (c->seen & rk_insp_cmconn_bit(RK_MAD_CM_REJ)) {
		const char *rn = rk_mad_cm_rej_reason_name(c->rej_reason);

		json_object_set_new(o, "rej_reason", json_integer(c->rej_reason));
		json_object_set_new(o, "rej_reason_name", rn != NULL ? json_string(rn) : json_null());
	}
	json_object_set_new(o, "mads", json_integer(c->mads));
	json_object_set_new(o, "first_frame", json_integer((json_int_t)c->first_frame));
	json_object_set_new(o, "last_frame", json_integer((json_int_t)c->last_frame));
	return o;
}

json_t *
rk_insp_flow_cm_json(const struct rk_insp_cmconns *t, const struct rk_insp_flow *f)
{
	int side = 0;
	const struct rk_insp_cmconn *c;
	json_t *o;

	if (t == NULL || t->n == 0)
		return json_null();
	c = rk_insp_cmconn_of_flow(t, f->key.src, f->key.dst, f->key.dest_qp, &side);
	if (c == NULL)
		return json_null();
	o = json_object();
	json_object_set_new(o, "side", json_string(side == 0 ? "active" : "passive"));
	json_object_set_new(o, "local_comm_id", json_integer(c->comm_id[side]));
	json_object_set_new(o, "remote_comm_id", json_integer(c->comm_id[!side]));
	json_object_set_new(o, "src_qpn", json_integer(c->qpn[side]));
	json_object_set_new(o, "state", json_string(cm_state(c)));
	json_object_set_new(o, "messages", seen_json(c->seen));
	return o;
}

void
rk_insp_print_cm(FILE *out, const struct rk_insp_cmconns *t)
{
	if (t == NULL || (t->n == 0 && t->unmatched == 0))
		return;
	fprintf(out, "\nCM connections (%" PRIu64 "):\n", t->n);
	for (const struct rk_insp_cmconn *c = t->head; c != NULL; c = c->next) {
		char a[64], b2[64], buf[384];
		struct tbuf b = { .p = buf, .cap = sizeof(buf), .len = 0 };

		buf[0] = '\0';
		rk_insp_format_addr(a, sizeof(a), c->addr[0], c->lid);
		rk_insp_format_addr(b2, sizeof(b2), c->addr[1], c->lid);
		cm_line(&b, c);
		fprintf(out, "%s > %s %s; frames %" PRIu64 "..%" PRIu64 "\n", a, b2, buf,
			c->first_frame, c->last_frame);
	}
	if (t->unmatched != 0)
		fprintf(out, "CM MADs of no REQ seen: %" PRIu64 "\n", t->unmatched);
	if (t->dropped != 0)
		fprintf(out, "CM connections not tracked: %" PRIu64 "\n", t->dropped);
}

json_t *
rk_insp_cm_json(const struct rk_insp_cmconns *t)
{
	json_t *a = json_array();

	for (const struct rk_insp_cmconn *c = t != NULL ? t->head : NULL; c != NULL; c = c->next)
		json_array_append_new(a, cmconn_json(c));
	return a;
}
