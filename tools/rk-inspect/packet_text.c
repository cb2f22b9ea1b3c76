/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-inspect writers. Field names follow the specs (IBTA Vol1 9.2-9.3,
 * RFC 5040/5041/5044); JSON keys are the rk_field keys of lib/wire, so the
 * per-packet JSON is driven by the same tables as the library.
 */
#include "output.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "rk_bth.h"
#include "rk_opcode.h"
#include "rk_xeth.h"

/* A bounded line builder: appends never overflow, the line is cut instead. */
struct sbuf {
	char buf[1024];
	size_t len;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->len >= sizeof(b->buf) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->buf + b->len, sizeof(b->buf) - b->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	b->len += (size_t)n;
	if (b->len >= sizeof(b->buf))
		b->len = sizeof(b->buf) - 1;
}

static bool
is_v4_mapped(const uint8_t *a)
{
	static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return memcmp(a, prefix, sizeof(prefix)) == 0;
}

void
rk_insp_format_addr(char *buf, size_t len, const uint8_t *addr, bool lid)
{
	if (lid) {
		snprintf(buf, len, "lid:0x%04x", (unsigned int)addr[14] << 8 | addr[15]);
		return;
	}
	if (is_v4_mapped(addr)) {
		snprintf(buf, len, "%u.%u.%u.%u", addr[12], addr[13], addr[14], addr[15]);
		return;
	}
	if (inet_ntop(AF_INET6, addr, buf, (socklen_t)len) == NULL)
		snprintf(buf, len, "?");
}

static void
pkt_addrs(const struct rk_pkt *pkt, char *src, char *dst, size_t len)
{
	if (pkt->layers & (RK_L_IPV4 | RK_L_IPV6 | RK_L_GRH)) {
		rk_insp_format_addr(src, len, pkt->src_ip, false);
		rk_insp_format_addr(dst, len, pkt->dst_ip, false);
	} else if (pkt->layers & RK_L_LRH) {
		uint8_t a[16] = { 0 }, b[16] = { 0 };

		a[14] = (uint8_t)(pkt->src_lid >> 8);
		a[15] = (uint8_t)pkt->src_lid;
		b[14] = (uint8_t)(pkt->dst_lid >> 8);
		b[15] = (uint8_t)pkt->dst_lid;
		rk_insp_format_addr(src, len, a, true);
		rk_insp_format_addr(dst, len, b, true);
	} else {
		snprintf(src, len, "%02x:%02x:%02x:%02x:%02x:%02x", pkt->src_mac[0],
			 pkt->src_mac[1], pkt->src_mac[2], pkt->src_mac[3],
			 pkt->src_mac[4], pkt->src_mac[5]);
		snprintf(dst, len, "%02x:%02x:%02x:%02x:%02x:%02x", pkt->dst_mac[0],
			 pkt->dst_mac[1], pkt->dst_mac[2], pkt->dst_mac[3],
			 pkt->dst_mac[4], pkt->dst_mac[5]);
	}
}

static void
sb_time(struct sbuf *b, const struct rk_insp_frame *fr)
{
	sb_printf(b, "%6" PRIu64 " %" PRIu64 ".%09" PRIu64, fr->no,
		  fr->ts_ns / 1000000000u, fr->ts_ns % 1000000000u);
}

/* The ICRC's verdict in the text (json false) or the JSON output's words. */
static const char *
icrc_word(const struct rk_pkt *pkt, bool json)
{
	if (pkt->truncated)
		return "truncated";
	if (pkt->icrc_status == RK_ICRC_GOOD)
		return json ? "good" : "ok";
	if (pkt->icrc_status == RK_ICRC_BAD)
		return json ? "bad" : "BAD";
	return "unchecked";
}

static void
sb_aeth(struct sbuf *b, uint8_t syn, uint32_t msn)
{
	uint8_t v = syn & RK_AETH_VALUE_MASK;

	switch (rk_aeth_kind(syn)) {
	case RK_AETH_ACK: {
		int32_t c = rk_aeth_credits(v);

		if (c < 0)
			sb_printf(b, " AETH=ACK credits=untracked");
		else
			sb_printf(b, " AETH=ACK credits=%d", (int)c);
		break;
	}
	case RK_AETH_RNR_NAK: {
		uint64_t ns = rk_rnr_timer_ns(v);

		sb_printf(b, " AETH=RNR-NAK timer=%u(%" PRIu64 ".%02" PRIu64 "ms)", v,
			  ns / 1000000u, (ns % 1000000u) / 10000u);
		break;
	}
	case RK_AETH_NAK:
		sb_printf(b, " AETH=NAK(%s)", rk_aeth_nak_name(v));
		break;
	default:
		sb_printf(b, " AETH=reserved(0x%02x)", syn);
		break;
	}
	sb_printf(b, " MSN=%u", msn);
}

static void
sb_findings(struct sbuf *b, const struct rk_findings *f)
{
	if (f == NULL || f->count == 0)
		return;
	sb_printf(b, " findings=");
	for (unsigned int i = 0; i < f->count; i++) {
		const struct rk_finding_info *fi = rk_finding_info(f->list[i].id);

		sb_printf(b, "%s%s", i ? "," : "", fi != NULL ? fi->id : "?");
	}
	if (f->dropped)
		sb_printf(b, ",+%u", f->dropped);
}

static void
sb_seq(struct sbuf *b, const struct rk_insp_seq_result *seq)
{
	if (seq == NULL)
		return;
	switch (seq->note) {
	case RK_INSP_SEQ_GAP:
		sb_printf(b, " [gap: %u PSN%s missing]", seq->missing,
			  seq->missing == 1 ? "" : "s");
		break;
	case RK_INSP_SEQ_DUP:
		if (seq->missing != 0)
			sb_printf(b, " [retransmission, gap: %u PSN%s missing]", seq->missing,
				  seq->missing == 1 ? "" : "s");
		else
			sb_printf(b, seq->rtx_start ? " [retransmission: go-back]" :
				  " [retransmission]");
		break;
	case RK_INSP_SEQ_RESYNC:
		sb_printf(b, " [resync]");
		break;
	case RK_INSP_SEQ_LATE:
		sb_printf(b, seq->rtx ? " [retransmission, out of order]" : " [out of order]");
		break;
	default:
		break;
	}
}

/* Addresses of a frame that may have neither IP nor Ethernet layer. */
static void
frame_addrs(const struct rk_pkt *pkt, char *src, char *dst, size_t len)
{
	if (pkt->layers & (RK_L_IPV4 | RK_L_IPV6 | RK_L_GRH | RK_L_LRH | RK_L_ETH)) {
		pkt_addrs(pkt, src, dst, len);
		return;
	}
	snprintf(src, len, "?");
	snprintf(dst, len, "?");
}

/* The start of every frame's line: number, time, addresses, kind. */
static void
sb_frame(struct sbuf *b, const struct rk_insp_frame *fr, const struct rk_pkt *pkt)
{
	char src[64], dst[64];

	frame_addrs(pkt, src, dst, sizeof(src));
	sb_time(b, fr);
	sb_printf(b, " %s > %s %s", src, dst, rk_pkt_kind_name(pkt->kind));
}

void
rk_insp_print_roce_line(FILE *out, const struct rk_insp_frame *fr,
			const struct rk_pkt *pkt, const struct rk_insp_seq_result *seq,
			const struct rk_findings *found)
{
	struct sbuf b = { .len = 0 };
	const uint8_t *bth = rk_pkt_bth(pkt);
	const uint8_t *x;
	const char *name = pkt->op != NULL && pkt->op->name != NULL ? pkt->op->name : NULL;
	struct rk_insp_qos_marks marks;
	struct rk_mad mad;
	char qos[64];

	sb_frame(&b, fr, pkt);
	if (name != NULL)
		sb_printf(&b, " %s", name);
	else
		sb_printf(&b, " opcode=0x%02x", pkt->opcode);
	sb_printf(&b, " DestQP=0x%06x PSN=%u", rk_bth_dest_qp(bth), rk_bth_psn(bth));
	if (rk_bth_ack_req(bth))
		sb_printf(&b, " AckReq");
	if (rk_bth_se(bth))
		sb_printf(&b, " SE");
	if (rk_bth_mig_req(bth))
		sb_printf(&b, " M");
	if (rk_bth_fecn(bth))
		sb_printf(&b, " FECN");
	if (rk_bth_becn(bth))
		sb_printf(&b, " BECN");
	if (rk_bth_pad_cnt(bth))
		sb_printf(&b, " PadCnt=%u", rk_bth_pad_cnt(bth));
	if (rk_bth_tver(bth))
		sb_printf(&b, " TVer=%u", rk_bth_tver(bth));
	if (rk_bth_p_key(bth) != 0xffff)
		sb_printf(&b, " P_Key=0x%04x", rk_bth_p_key(bth));
	rk_insp_qos_marks_of(&marks, pkt);
	rk_insp_qos_marks_text(qos, sizeof(qos), &marks);
	sb_printf(&b, "%s", qos);

	if ((x = rk_insp_xeth(pkt, RK_HDR_DETH, RK_DETH_LEN)) != NULL)
		sb_printf(&b, " Q_Key=0x%08x SrcQP=0x%06x", rk_deth_q_key(x),
			  rk_deth_src_qp(x));
	if ((x = rk_insp_xeth(pkt, RK_HDR_RETH, RK_RETH_LEN)) != NULL)
		sb_printf(&b, " VA=0x%016" PRIx64 " R_Key=0x%08x DMALen=%u",
			  rk_reth_va(x), rk_reth_r_key(x), rk_reth_dma_len(x));
	if ((x = rk_insp_xeth(pkt, RK_HDR_ATMETH, RK_ATMETH_LEN)) != NULL)
		sb_printf(&b, " VA=0x%016" PRIx64 " R_Key=0x%08x SwapAddData=0x%016" PRIx64
			  " CompareData=0x%016" PRIx64, rk_atmeth_va(x), rk_atmeth_r_key(x),
			  rk_atmeth_swap_add(x), rk_atmeth_compare(x));
	if ((x = rk_insp_xeth(pkt, RK_HDR_AETH, RK_AETH_LEN)) != NULL)
		sb_aeth(&b, rk_aeth_syndrome(x), rk_aeth_msn(x));
	if ((x = rk_insp_xeth(pkt, RK_HDR_ATMACK, RK_ATMACK_LEN)) != NULL)
		sb_printf(&b, " OrigRemDt=0x%016" PRIx64, rk_atmack_orig_rem_dt(x));
	if ((x = rk_insp_xeth(pkt, RK_HDR_IMMDT, RK_IMMDT_LEN)) != NULL)
		sb_printf(&b, " ImmDt=0x%08x", rk_immdt_imm(x));
	if ((x = rk_insp_xeth(pkt, RK_HDR_IETH, RK_IETH_LEN)) != NULL)
		sb_printf(&b, " IETH.R_Key=0x%08x", rk_ieth_r_key(x));
	if (rk_pkt_mad(pkt, &mad, NULL) == 1) {
		char mt[512];

		rk_insp_mad_text(mt, sizeof(mt), &mad);
		sb_printf(&b, "%s", mt);
	}
	sb_printf(&b, " len=%u ICRC=%s", pkt->payload_len, icrc_word(pkt, false));
	sb_seq(&b, seq);
	sb_findings(&b, found);
	fprintf(out, "%s\n", b.buf);
}

void
rk_insp_print_mac_control_line(FILE *out, const struct rk_insp_frame *fr,
			       const struct rk_pkt *pkt)
{
	struct sbuf b = { .len = 0 };

	sb_frame(&b, fr, pkt);
	if (pkt->kind == RK_PKT_PAUSE) {
		sb_printf(&b, " quanta=%u", pkt->pause_quanta[0]);
	} else {
		sb_printf(&b, " class_enable=0x%02x quanta=", pkt->pfc_class_enable);
		for (int i = 0; i < 8; i++)
			sb_printf(&b, "%s%u", i ? "," : "", pkt->pause_quanta[i]);
	}
	sb_findings(&b, &pkt->findings);
	fprintf(out, "%s\n", b.buf);
}

void
rk_insp_print_frame_line(FILE *out, const struct rk_insp_frame *fr,
			 const struct rk_pkt *pkt)
{
	struct sbuf b = { .len = 0 };

	sb_frame(&b, fr, pkt);
	sb_printf(&b, " len=%u", pkt->wirelen);
	sb_findings(&b, &pkt->findings);
	fprintf(out, "%s\n", b.buf);
}

static void
iw_endpoints(const struct rk_insp_iw_event *ev, char *src, char *dst, size_t len)
{
	const struct rk_insp_iw_conn *c = ev->conn;
	char a[64], bb[64];
	int s = ev->dir, d = !ev->dir;

	rk_insp_format_addr(a, sizeof(a), c->addr[s], false);
	rk_insp_format_addr(bb, sizeof(bb), c->addr[d], false);
	if (c->ip_version == 6) {
		snprintf(src, len, "[%s]:%u", a, c->port[s]);
		snprintf(dst, len, "[%s]:%u", bb, c->port[d]);
	} else {
		snprintf(src, len, "%s:%u", a, c->port[s]);
		snprintf(dst, len, "%s:%u", bb, c->port[d]);
	}
}

static const char *
crc_name(enum rk_insp_crc c)
{
	switch (c) {
	case RK_INSP_CRC_GOOD:
		return "ok";
	case RK_INSP_CRC_BAD:
		return "BAD";
	default:
		return "none";
	}
}

void
rk_insp_print_iw_line(FILE *out, const struct rk_insp_iw_event *ev)
{
	struct sbuf b = { .len = 0 };
	struct rk_insp_frame fr = { ev->frame, ev->ts_ns };
	char src[96], dst[96];
	const struct rk_rdmap_msg *m = &ev->msg;

	iw_endpoints(ev, src, dst, sizeof(src));
	sb_time(&b, &fr);
	sb_printf(&b, " %s > %s iWARP", src, dst);
	switch (ev->kind) {
	case RK_INSP_IW_MPA_REQUEST:
	case RK_INSP_IW_MPA_REPLY:
		sb_printf(&b, " MPA %s Rev=%u M=%u C=%u R=%u PD_Length=%u",
			  ev->kind == RK_INSP_IW_MPA_REQUEST ? "Request" : "Reply",
			  ev->rev, ev->m, ev->c, ev->r, ev->pd_len);
		if (ev->enhanced)
			sb_printf(&b, " IRD=%u ORD=%u", ev->ird, ev->ord);
		break;
	case RK_INSP_IW_SYNC_LOST:
		sb_printf(&b, " MPA framing lost (%s) at seq %u",
			  ev->lost_reason != NULL ? ev->lost_reason : "?", ev->tcp_seq);
		break;
	case RK_INSP_IW_RESYNC:
		if (ev->lost_reason != NULL)
			/* Joined mid-connection: framing found, not regained. */
			sb_printf(&b, " MPA framing found at seq %u (joined mid-connection, "
				  "%u byte%s skipped)", ev->tcp_seq, ev->stream_len,
				  ev->stream_len == 1 ? "" : "s");
		else
			sb_printf(&b, " MPA framing regained at seq %u", ev->tcp_seq);
		break;
	case RK_INSP_IW_TCP_CONFLICT:
		sb_printf(&b, " TCP retransmission differs from the first copy: %u byte%s, "
			  "first at seq %u", ev->stream_len, ev->stream_len == 1 ? "" : "s",
			  ev->tcp_seq);
		break;
	case RK_INSP_IW_FPDU:
		sb_printf(&b, " FPDU ULPDU_Length=%u", ev->ulpdu_len);
		if (!m->ddp_ok) {
			sb_printf(&b, " (no DDP header)");
		} else {
			const char *on = rk_rdmap_opcode_name(m->opcode);

			sb_printf(&b, " %s", on != NULL ? on : "?");
			if (m->t)
				sb_printf(&b, " STag=0x%08x TO=0x%016" PRIx64, m->stag, m->to);
			else
				sb_printf(&b, " QN=%u MSN=%u MO=%u", m->qn, m->msn, m->mo);
			if (m->l)
				sb_printf(&b, " L");
			if (m->dv != 1)
				sb_printf(&b, " DV=%u", m->dv);
			if (m->rv != 1)
				sb_printf(&b, " RV=%u", m->rv);
			if (m->rdmap_hdr_ok && m->opcode == RK_RDMAP_READ_REQ)
				sb_printf(&b, " SinkSTag=0x%08x SinkTO=0x%016" PRIx64
					  " RDMARDSZ=%u SrcSTag=0x%08x SrcTO=0x%016" PRIx64,
					  m->u.read_req.sink_stag, m->u.read_req.sink_to,
					  m->u.read_req.rdma_rd_sz, m->u.read_req.src_stag,
					  m->u.read_req.src_to);
			if (m->rdmap_hdr_ok && m->opcode == RK_RDMAP_TERMINATE) {
				sb_printf(&b, " Layer=%u EType=%u ErrCode=0x%02x",
					  m->u.term.ctrl.layer, m->u.term.ctrl.etype,
					  m->u.term.ctrl.err_code);
				if (m->u.term.text != NULL)
					sb_printf(&b, " (%s)", m->u.term.text);
			}
			if ((m->opcode == RK_RDMAP_SEND_INV ||
			     m->opcode == RK_RDMAP_SEND_SE_INV) && !m->t)
				sb_printf(&b, " InvSTag=0x%08x", m->rsvdulp32);
			sb_printf(&b, " len=%u", m->payload_len);
		}
		if (ev->markers)
			sb_printf(&b, " markers=%u", ev->markers);
		sb_printf(&b, " CRC=%s", crc_name(ev->crc));
		break;
	}
	sb_findings(&b, &ev->findings);
	fprintf(out, "%s\n", b.buf);
}

/* ------------------------------------------------------------- JSON */

static json_t *
u64_json(uint64_t v, unsigned int nbytes)
{
	char hex[24];

	/* 64-bit fields may exceed what JSON readers hold exactly. */
	if (nbytes >= 8) {
		snprintf(hex, sizeof(hex), "0x%016" PRIx64, v);
		return json_string(hex);
	}
	return json_integer((json_int_t)v);
}

static json_t *
hdr_json(const struct rk_header_desc *d, const uint8_t *h)
{
	json_t *o = json_object();

	for (size_t i = 0; i < d->nfields; i++) {
		const struct rk_field *f = &d->fields[i];

		json_object_set_new(o, f->key, u64_json(rk_field_get(f, h), f->nbytes));
	}
	return o;
}

static const struct {
	enum rk_hdr h;
	const char *key;
	const struct rk_header_desc *desc;
	uint32_t len;
} xeth_json_table[] = {
	{ RK_HDR_RDETH, "rdeth", &rk_rdeth_desc, RK_RDETH_LEN },
	{ RK_HDR_DETH, "deth", &rk_deth_desc, RK_DETH_LEN },
	{ RK_HDR_XRCETH, "xrceth", &rk_xrceth_desc, RK_XRCETH_LEN },
	{ RK_HDR_FETH, "feth", &rk_feth_desc, RK_FETH_LEN },
	{ RK_HDR_RETH, "reth", &rk_reth_desc, RK_RETH_LEN },
	{ RK_HDR_ATMETH, "atomiceth", &rk_atmeth_desc, RK_ATMETH_LEN },
	{ RK_HDR_AETH, "aeth", &rk_aeth_desc, RK_AETH_LEN },
	{ RK_HDR_ATMACK, "atomicacketh", &rk_atmack_desc, RK_ATMACK_LEN },
	{ RK_HDR_IMMDT, "immdt", &rk_immdt_desc, RK_IMMDT_LEN },
	{ RK_HDR_IETH, "ieth", &rk_ieth_desc, RK_IETH_LEN },
};

static json_t *
findings_json(const struct rk_findings *f)
{
	json_t *a = json_array();

	for (unsigned int i = 0; f != NULL && i < f->count; i++) {
		const struct rk_finding_info *fi = rk_finding_info(f->list[i].id);

		json_array_append_new(a, json_string(fi != NULL ? fi->id : "?"));
	}
	return a;
}

static json_t *
time_json(uint64_t ts_ns)
{
	char t[40];

	snprintf(t, sizeof(t), "%" PRIu64 ".%09" PRIu64, ts_ns / 1000000000u,
		 ts_ns % 1000000000u);
	return json_string(t);
}

static const char *
seq_note_name(enum rk_insp_seq_note n)
{
	switch (n) {
	case RK_INSP_SEQ_IN_ORDER:
		return "in_order";
	case RK_INSP_SEQ_FIRST:
		return "first";
	case RK_INSP_SEQ_GAP:
		return "gap";
	case RK_INSP_SEQ_DUP:
		return "retransmission";
	case RK_INSP_SEQ_RESYNC:
		return "resync";
	case RK_INSP_SEQ_LATE:
		return "out_of_order";
	default:
		return "none";
	}
}

json_t *
rk_insp_roce_json(const struct rk_insp_frame *fr, const struct rk_pkt *pkt,
		  const struct rk_insp_seq_result *seq, const struct rk_findings *found)
{
	json_t *o = json_object();
	char src[64], dst[64];
	const uint8_t *bth = rk_pkt_bth(pkt);
	struct rk_insp_qos_marks marks;
	struct rk_mad mad;

	pkt_addrs(pkt, src, dst, sizeof(src));
	json_object_set_new(o, "frame", json_integer((json_int_t)fr->no));
	json_object_set_new(o, "time", time_json(fr->ts_ns));
	json_object_set_new(o, "kind", json_string(rk_pkt_kind_name(pkt->kind)));
	json_object_set_new(o, "src", json_string(src));
	json_object_set_new(o, "dst", json_string(dst));
	if (pkt->layers & RK_L_UDP) {
		json_object_set_new(o, "udp_src_port", json_integer(pkt->src_port));
		json_object_set_new(o, "udp_dst_port", json_integer(pkt->dst_port));
	}
	rk_insp_qos_marks_of(&marks, pkt);
	rk_insp_qos_marks_json(o, &marks);
	json_object_set_new(o, "opcode_name",
			    pkt->op != NULL && pkt->op->name != NULL ?
			    json_string(pkt->op->name) : json_null());
	json_object_set_new(o, "bth", hdr_json(&rk_bth_desc, bth));
	for (size_t i = 0; i < sizeof(xeth_json_table) / sizeof(xeth_json_table[0]); i++) {
		const uint8_t *x = rk_insp_xeth(pkt, xeth_json_table[i].h,
						xeth_json_table[i].len);

		if (x != NULL)
			json_object_set_new(o, xeth_json_table[i].key,
					    hdr_json(xeth_json_table[i].desc, x));
	}
	if (rk_pkt_mad(pkt, &mad, NULL) == 1)
		json_object_set_new(o, "mad", rk_insp_mad_json(&mad));
	json_object_set_new(o, "payload_len", json_integer(pkt->payload_len));
	json_object_set_new(o, "icrc", json_string(icrc_word(pkt, true)));
	if (pkt->icrc_off != 0 && (uint64_t)pkt->icrc_off + RK_ICRC_LEN <= pkt->caplen)
		json_object_set_new(o, "icrc_value", json_integer(pkt->icrc));
	json_object_set_new(o, "truncated", json_boolean(pkt->truncated));
	if (seq != NULL && seq->note != RK_INSP_SEQ_NONE) {
		json_t *s = json_object();

		json_object_set_new(s, "note", json_string(seq_note_name(seq->note)));
		if (seq->note == RK_INSP_SEQ_GAP || seq->missing != 0)
			json_object_set_new(s, "missing", json_integer(seq->missing));
		if (seq->rtx_start)
			json_object_set_new(s, "go_back", json_true());
		if (seq->note == RK_INSP_SEQ_LATE && seq->rtx)
			json_object_set_new(s, "retransmission", json_true());
		json_object_set_new(o, "sequence", s);
	}
	json_object_set_new(o, "findings", findings_json(found));
	return o;
}

json_t *
rk_insp_frame_json(const struct rk_insp_frame *fr, const struct rk_pkt *pkt)
{
	json_t *o = json_object();
	char src[64], dst[64];

	frame_addrs(pkt, src, dst, sizeof(src));
	json_object_set_new(o, "frame", json_integer((json_int_t)fr->no));
	json_object_set_new(o, "time", time_json(fr->ts_ns));
	json_object_set_new(o, "kind", json_string(rk_pkt_kind_name(pkt->kind)));
	json_object_set_new(o, "src", json_string(src));
	json_object_set_new(o, "dst", json_string(dst));
	json_object_set_new(o, "unit", json_string("frame"));
	json_object_set_new(o, "wire_len", json_integer(pkt->wirelen));
	json_object_set_new(o, "findings", findings_json(&pkt->findings));
	return o;
}

json_t *
rk_insp_iw_json(const struct rk_insp_iw_event *ev)
{
	json_t *o = json_object();
	const struct rk_insp_iw_conn *c = ev->conn;
	const struct rk_rdmap_msg *m = &ev->msg;
	char a[64], b[64];

	rk_insp_format_addr(a, sizeof(a), c->addr[ev->dir], false);
	rk_insp_format_addr(b, sizeof(b), c->addr[!ev->dir], false);
	json_object_set_new(o, "frame", json_integer((json_int_t)ev->frame));
	json_object_set_new(o, "time", time_json(ev->ts_ns));
	json_object_set_new(o, "kind", json_string("iWARP"));
	json_object_set_new(o, "src", json_string(a));
	json_object_set_new(o, "dst", json_string(b));
	json_object_set_new(o, "tcp_src_port", json_integer(c->port[ev->dir]));
	json_object_set_new(o, "tcp_dst_port", json_integer(c->port[!ev->dir]));
	json_object_set_new(o, "tcp_seq", json_integer(ev->tcp_seq));

	switch (ev->kind) {
	case RK_INSP_IW_MPA_REQUEST:
	case RK_INSP_IW_MPA_REPLY: {
		json_t *mpa = json_object();

		json_object_set_new(o, "unit", json_string(ev->kind == RK_INSP_IW_MPA_REQUEST ?
							   "mpa_request" : "mpa_reply"));
		json_object_set_new(mpa, "m", json_integer(ev->m));
		json_object_set_new(mpa, "c", json_integer(ev->c));
		json_object_set_new(mpa, "r", json_integer(ev->r));
		json_object_set_new(mpa, "rev", json_integer(ev->rev));
		json_object_set_new(mpa, "pd_len", json_integer(ev->pd_len));
		if (ev->enhanced) {
			json_object_set_new(mpa, "ird", json_integer(ev->ird));
			json_object_set_new(mpa, "ord", json_integer(ev->ord));
		}
		json_object_set_new(o, "mpa", mpa);
		break;
	}
	case RK_INSP_IW_SYNC_LOST:
		json_object_set_new(o, "unit", json_string("sync_lost"));
		json_object_set_new(o, "reason", json_string(ev->lost_reason != NULL ?
							     ev->lost_reason : "unknown"));
		break;
	case RK_INSP_IW_RESYNC:
		json_object_set_new(o, "unit", json_string("resync"));
		if (ev->lost_reason != NULL) {
			json_object_set_new(o, "reason", json_string(ev->lost_reason));
			json_object_set_new(o, "skipped_bytes", json_integer(ev->stream_len));
		}
		break;
	case RK_INSP_IW_TCP_CONFLICT:
		json_object_set_new(o, "unit", json_string("tcp_rtx_conflict"));
		json_object_set_new(o, "differing_bytes", json_integer(ev->stream_len));
		break;
	case RK_INSP_IW_FPDU: {
		json_t *mpa = json_object();

		json_object_set_new(o, "unit", json_string("fpdu"));
		json_object_set_new(mpa, "ulpdu_len", json_integer(ev->ulpdu_len));
		json_object_set_new(mpa, "pad", json_integer(ev->pad));
		json_object_set_new(mpa, "markers", json_integer(ev->markers));
		json_object_set_new(mpa, "crc", ev->crc == RK_INSP_CRC_NONE ? json_null() :
				    json_integer(ev->crc_value));
		json_object_set_new(mpa, "crc_status", json_string(
			ev->crc == RK_INSP_CRC_GOOD ? "good" :
			ev->crc == RK_INSP_CRC_BAD ? "bad" : "none"));
		json_object_set_new(o, "mpa", mpa);
		if (m->ddp_ok) {
			json_t *ddp = json_object(), *rd = json_object();
			const char *on = rk_rdmap_opcode_name(m->opcode);

			json_object_set_new(ddp, "t", json_integer(m->t));
			json_object_set_new(ddp, "l", json_integer(m->l));
			json_object_set_new(ddp, "rsvd", json_integer(m->ddp_rsvd));
			json_object_set_new(ddp, "dv", json_integer(m->dv));
			if (m->t) {
				json_object_set_new(ddp, "stag", json_integer(m->stag));
				json_object_set_new(ddp, "to", u64_json(m->to, 8));
			} else {
				json_object_set_new(ddp, "qn", json_integer(m->qn));
				json_object_set_new(ddp, "msn", json_integer(m->msn));
				json_object_set_new(ddp, "mo", json_integer(m->mo));
			}
			json_object_set_new(o, "ddp", ddp);
			json_object_set_new(rd, "rv", json_integer(m->rv));
			json_object_set_new(rd, "rsvd", json_integer(m->rdmap_rsvd));
			json_object_set_new(rd, "opcode", json_integer(m->opcode));
			json_object_set_new(rd, "opcode_name", on != NULL ? json_string(on) :
					    json_null());
			if (!m->t && (m->opcode == RK_RDMAP_SEND_INV ||
				      m->opcode == RK_RDMAP_SEND_SE_INV))
				json_object_set_new(rd, "inval_stag", json_integer(m->rsvdulp32));
			if (m->rdmap_hdr_ok && m->opcode == RK_RDMAP_READ_REQ) {
				json_object_set_new(rd, "sink_stag",
						    json_integer(m->u.read_req.sink_stag));
				json_object_set_new(rd, "sink_to", u64_json(m->u.read_req.sink_to, 8));
				json_object_set_new(rd, "rdma_rd_sz",
						    json_integer(m->u.read_req.rdma_rd_sz));
				json_object_set_new(rd, "src_stag",
						    json_integer(m->u.read_req.src_stag));
				json_object_set_new(rd, "src_to", u64_json(m->u.read_req.src_to, 8));
			}
			if (m->rdmap_hdr_ok && m->opcode == RK_RDMAP_TERMINATE) {
				json_object_set_new(rd, "layer", json_integer(m->u.term.ctrl.layer));
				json_object_set_new(rd, "etype", json_integer(m->u.term.ctrl.etype));
				json_object_set_new(rd, "err_code",
						    json_integer(m->u.term.ctrl.err_code));
				json_object_set_new(rd, "hdrct_m", json_integer(m->u.term.ctrl.m));
				json_object_set_new(rd, "hdrct_d", json_integer(m->u.term.ctrl.d));
				json_object_set_new(rd, "hdrct_r", json_integer(m->u.term.ctrl.r));
			}
			json_object_set_new(o, "rdmap", rd);
			json_object_set_new(o, "payload_len", json_integer(m->payload_len));
		}
		break;
	}
	}
	json_object_set_new(o, "findings", findings_json(&ev->findings));
	return o;
}

int
rk_insp_json_line(FILE *out, json_t *obj)
{
	int rc = json_dumpf(obj, out, JSON_COMPACT | JSON_PRESERVE_ORDER);

	fputc('\n', out);
	json_decref(obj);
	return rc;
}

/* ---------------------------------------------------------- summary */

void
rk_insp_flow_addrs(const struct rk_insp_flow *f, char *src, char *dst, size_t len)
{
	rk_insp_format_addr(src, len, f->key.src, f->key.lid);
	rk_insp_format_addr(dst, len, f->key.dst, f->key.lid);
}

const char *
rk_insp_opcode_name(uint8_t op)
{
	const struct rk_opcode_info *oi = rk_opcode_info(op);

	return oi != NULL && oi->name != NULL ? oi->name : NULL;
}

static json_t *
findings_counts_json(const uint32_t *counts)
{
	json_t *o = json_object();

	for (int i = 0; i < RK_F_COUNT; i++) {
		const struct rk_finding_info *fi;

		if (counts[i] == 0)
			continue;
		fi = rk_finding_info((enum rk_finding_id)i);
		json_object_set_new(o, fi->id, json_integer(counts[i]));
	}
	return o;
}

static json_t *
psn_track_json(const struct rk_insp_psn_track *t, bool requests)
{
	json_t *o;

	if (!t->valid)
		return json_null();
	o = json_object();
	json_object_set_new(o, "first", json_integer(t->first));
	json_object_set_new(o, "last", json_integer(t->last));
	json_object_set_new(o, "gaps", json_integer((json_int_t)(t->gaps + t->rtx_gaps)));
	json_object_set_new(o, "missing", json_integer((json_int_t)(t->missing +
								     t->rtx_missing)));
	json_object_set_new(o, "duplicates", json_integer((json_int_t)t->duplicates));
	if (requests) {
		json_object_set_new(o, "missing_first_transmission",
				    json_integer((json_int_t)t->missing));
		json_object_set_new(o, "missing_retransmission",
				    json_integer((json_int_t)t->rtx_missing));
		json_object_set_new(o, "retransmission_episodes",
				    json_integer((json_int_t)t->rtx_episodes));
		json_object_set_new(o, "resyncs", json_integer((json_int_t)t->resyncs));
	}
	json_object_set_new(o, "reordered", json_integer((json_int_t)t->reordered));
	return o;
}

static json_t *
flow_json(const struct rk_insp_flows *t, const struct rk_insp_cmconns *cm, bool views,
	  const struct rk_insp_flow *f)
{
	json_t *o = json_object(), *ops = json_array(), *naks = json_array();
	json_t *rnr = json_object();
	char src[64], dst[64];
	uint32_t pmtu = rk_insp_flow_pmtu(t, f);

	rk_insp_flow_addrs(f, src, dst, sizeof(src));
	json_object_set_new(o, "kind", json_string(rk_pkt_kind_name((enum rk_pkt_kind)f->key.kind)));
	json_object_set_new(o, "src", json_string(src));
	json_object_set_new(o, "dst", json_string(dst));
	json_object_set_new(o, "dest_qp", json_integer(f->key.dest_qp));
	json_object_set_new(o, "transport",
			    json_string(rk_transport_name((enum rk_transport)f->transport)));
	json_object_set_new(o, "first_frame", json_integer((json_int_t)f->first_frame));
	json_object_set_new(o, "last_frame", json_integer((json_int_t)f->last_frame));
	json_object_set_new(o, "packets", json_integer((json_int_t)f->packets));
	json_object_set_new(o, "bytes", json_integer((json_int_t)f->bytes));
	json_object_set_new(o, "payload_bytes", json_integer((json_int_t)f->payload_bytes));
	for (unsigned int i = 0; i < f->nops; i++) {
		json_t *e = json_object();
		const char *n = rk_insp_opcode_name(f->ops[i].opcode);

		json_object_set_new(e, "opcode", json_integer(f->ops[i].opcode));
		json_object_set_new(e, "name", n != NULL ? json_string(n) : json_null());
		json_object_set_new(e, "count", json_integer((json_int_t)f->ops[i].count));
		json_array_append_new(ops, e);
	}
	json_object_set_new(o, "opcodes", ops);
	if (f->ops_other)
		json_object_set_new(o, "opcodes_other", json_integer((json_int_t)f->ops_other));
	json_object_set_new(o, "messages", json_integer((json_int_t)f->messages));
	json_object_set_new(o, "read_requests", json_integer((json_int_t)f->read_requests));
	json_object_set_new(o, "read_response_messages",
			    json_integer((json_int_t)f->read_resp_messages));
	json_object_set_new(o, "psn", psn_track_json(&f->req, true));
	json_object_set_new(o, "response_psn", psn_track_json(&f->resp, false));
	if (f->resp.valid)
		json_object_set_new(json_object_get(o, "response_psn"), "late_by_count",
				    json_integer((json_int_t)f->copies.taken_back));
	json_object_set_new(o, "acks", json_integer((json_int_t)f->acks));
	json_object_set_new(o, "atomic_acks", json_integer((json_int_t)f->atomic_acks));
	for (int i = 0; i < 32; i++) {
		json_t *e;

		if (f->naks[i] == 0)
			continue;
		e = json_object();
		json_object_set_new(e, "syndrome", json_integer(RK_AETH_TYPE_NAK | i));
		json_object_set_new(e, "code", json_integer(i));
		json_object_set_new(e, "name", json_string(rk_aeth_nak_name((uint8_t)i)));
		json_object_set_new(e, "count", json_integer((json_int_t)f->naks[i]));
		json_array_append_new(naks, e);
	}
	json_object_set_new(o, "naks", naks);
	json_object_set_new(o, "rnr_naks", json_integer((json_int_t)f->rnr_naks));
	for (int i = 0; i < 32; i++) {
		char k[8];

		if (f->rnr_timer[i] == 0)
			continue;
		snprintf(k, sizeof(k), "%d", i);
		json_object_set_new(rnr, k, json_integer((json_int_t)f->rnr_timer[i]));
	}
	json_object_set_new(o, "rnr_timers", rnr);
	json_object_set_new(o, "cnps", json_integer((json_int_t)f->cnps));
	json_object_set_new(o, "fecn", json_integer((json_int_t)f->fecn));
	json_object_set_new(o, "becn", json_integer((json_int_t)f->becn));
	json_object_set_new(o, "icrc_bad", json_integer((json_int_t)f->icrc_bad));
	json_object_set_new(o, "icrc_good", json_integer((json_int_t)f->icrc_good));
	json_object_set_new(o, "truncated", json_integer((json_int_t)f->truncated));
	json_object_set_new(o, "pmtu", pmtu != 0 ? json_integer(pmtu) : json_null());
	if (views) {
		json_object_set_new(o, "qos", rk_insp_flow_qos_json(&f->qos));
		json_object_set_new(o, "timing", rk_insp_flow_timing_json(f));
	}
	json_object_set_new(o, "cm", rk_insp_flow_cm_json(cm, f));
	json_object_set_new(o, "findings", findings_counts_json(f->findings));
	return o;
}

void
rk_insp_iw_endpoint(char *buf, size_t len, const struct rk_insp_iw_conn *c, int side)
{
	char a[64];

	rk_insp_format_addr(a, sizeof(a), c->addr[side], false);
	if (c->ip_version == 6)
		snprintf(buf, len, "[%s]:%u", a, c->port[side]);
	else
		snprintf(buf, len, "%s:%u", a, c->port[side]);
}

static json_t *
iw_dir_json(const struct rk_insp_iw_conn *c, int d, bool views)
{
	const struct rk_insp_iw_dir *x = &c->dir[d];
	json_t *o = json_object(), *ops = json_array(), *terms = json_array();
	char from[96];

	rk_insp_iw_endpoint(from, sizeof(from), c, d);
	json_object_set_new(o, "from", json_string(from));
	json_object_set_new(o, "packets", json_integer((json_int_t)x->packets));
	json_object_set_new(o, "bytes", json_integer((json_int_t)x->bytes));
	json_object_set_new(o, "tcp_payload_bytes", json_integer((json_int_t)x->payload_bytes));
	json_object_set_new(o, "stream_bytes", json_integer((json_int_t)x->tcp.delivered));
	json_object_set_new(o, "retransmitted_bytes", json_integer((json_int_t)x->tcp.rtx_bytes));
	json_object_set_new(o, "retransmitted_bytes_compared",
			    json_integer((json_int_t)x->tcp.rtx_checked));
	json_object_set_new(o, "retransmission_conflicts",
			    json_integer((json_int_t)x->tcp.rtx_conflicts));
	json_object_set_new(o, "out_of_order_segments",
			    json_integer((json_int_t)x->tcp.ooo_segments));
	json_object_set_new(o, "out_of_order_bytes",
			    json_integer((json_int_t)x->tcp.ooo_data));
	json_object_set_new(o, "gaps", json_integer((json_int_t)x->tcp.gaps));
	json_object_set_new(o, "gap_bytes", json_integer((json_int_t)x->tcp.gap_bytes));
	if (c->joined_mid) {
		json_t *mid = json_object();
		bool found = x->mid_state == RK_INSP_IW_MID_SYNCED;

		json_object_set_new(mid, "framing_found", json_boolean(found));
		json_object_set_new(mid, "seq", found ? json_integer(x->sync_seq) : json_null());
		json_object_set_new(mid, "markers", found ? json_boolean(x->sync_params.markers) :
				    json_null());
		json_object_set_new(mid, "crc", found ? json_boolean(x->sync_params.crc) :
				    json_null());
		json_object_set_new(mid, "skipped_bytes", json_integer((json_int_t)x->mid_skipped));
		json_object_set_new(o, "mid_connection", mid);
	} else {
		json_object_set_new(o, "mid_connection", json_null());
	}
	if (x->mpa_seen) {
		json_t *mpa = json_object();

		json_object_set_new(mpa, "rev", json_integer(x->rev));
		json_object_set_new(mpa, "markers", json_boolean(x->markers));
		json_object_set_new(mpa, "crc", json_boolean(x->crc));
		json_object_set_new(mpa, "reject", json_boolean(x->reject));
		json_object_set_new(mpa, "pd_len", json_integer(x->pd_len));
		json_object_set_new(o, "mpa", mpa);
	} else {
		json_object_set_new(o, "mpa", json_null());
	}
	json_object_set_new(o, "fpdus", json_integer((json_int_t)x->fpdus));
	json_object_set_new(o, "ulp_bytes", json_integer((json_int_t)x->ulp_bytes));
	json_object_set_new(o, "crc_errors", json_integer((json_int_t)x->crc_errors));
	json_object_set_new(o, "markers_removed", json_integer((json_int_t)x->markers_removed));
	json_object_set_new(o, "sync_lost", json_integer((json_int_t)x->sync_lost));
	for (int i = 0; i < 16; i++) {
		const char *n;
		json_t *e;

		if (x->rdmap_ops[i] == 0)
			continue;
		n = rk_rdmap_opcode_name((uint8_t)i);
		e = json_object();
		json_object_set_new(e, "opcode", json_integer(i));
		json_object_set_new(e, "name", n != NULL ? json_string(n) : json_null());
		json_object_set_new(e, "count", json_integer((json_int_t)x->rdmap_ops[i]));
		json_array_append_new(ops, e);
	}
	json_object_set_new(o, "rdmap_opcodes", ops);
	json_object_set_new(o, "messages", json_integer((json_int_t)x->messages));
	json_object_set_new(o, "terminates", json_integer((json_int_t)x->terminates));
	for (uint64_t i = 0; i < x->terminates && i < 4; i++) {
		json_t *e = json_object();
		const char *txt = rk_rdmap_term_text(x->term[i].layer, x->term[i].etype,
						     x->term[i].err_code);

		json_object_set_new(e, "frame", json_integer((json_int_t)x->term[i].frame));
		json_object_set_new(e, "layer", json_integer(x->term[i].layer));
		json_object_set_new(e, "etype", json_integer(x->term[i].etype));
		json_object_set_new(e, "err_code", json_integer(x->term[i].err_code));
		json_object_set_new(e, "text", txt != NULL ? json_string(txt) : json_null());
		json_array_append_new(terms, e);
	}
	json_object_set_new(o, "terminate_list", terms);
	if (views)
		json_object_set_new(o, "timing", rk_insp_iw_timing_json(x));
	return o;
}

static json_t *
conn_json(const struct rk_insp_iw_conn *c, bool views)
{
	json_t *o = json_object(), *dirs = json_array();
	char a[64], b[64];

	rk_insp_format_addr(a, sizeof(a), c->addr[0], false);
	rk_insp_format_addr(b, sizeof(b), c->addr[1], false);
	json_object_set_new(o, "initiator", json_string(a));
	json_object_set_new(o, "initiator_port", json_integer(c->port[0]));
	json_object_set_new(o, "responder", json_string(b));
	json_object_set_new(o, "responder_port", json_integer(c->port[1]));
	json_object_set_new(o, "first_frame", json_integer((json_int_t)c->first_frame));
	json_object_set_new(o, "last_frame", json_integer((json_int_t)c->last_frame));
	json_object_set_new(o, "packets", json_integer((json_int_t)(c->dir[0].packets +
								     c->dir[1].packets)));
	json_object_set_new(o, "bytes", json_integer((json_int_t)(c->dir[0].bytes +
								   c->dir[1].bytes)));
	json_object_set_new(o, "joined_mid_connection", json_boolean(c->joined_mid));
	json_array_append_new(dirs, iw_dir_json(c, 0, views));
	json_array_append_new(dirs, iw_dir_json(c, 1, views));
	json_object_set_new(o, "directions", dirs);
	json_object_set_new(o, "findings", findings_counts_json(c->findings));
	return o;
}

json_t *
rk_insp_summary_json(const struct rk_insp_report *rep)
{
	const struct rk_insp_totals *t = rep->totals;
	json_t *doc = json_object(), *tot = json_object(), *qps = json_array();
	json_t *conns = json_array(), *fnd = json_object();
	char dur[40];

	json_object_set_new(doc, "schema", json_string(RK_INSP_SCHEMA));
	json_object_set_new(doc, "file", json_string(rep->file));
	json_object_set_new(doc, "linktype", rep->linktype != NULL ?
			    json_string(rep->linktype) : json_null());
#define TOT(k, v) json_object_set_new(tot, k, json_integer((json_int_t)(v)))
	TOT("frames", t->frames);
	TOT("rdma_frames", t->rdma_frames);
	TOT("truncated_frames", t->truncated_frames);
	TOT("bytes", t->bytes);
	TOT("captured_bytes", t->captured_bytes);
	TOT("rdma_bytes", t->rdma_bytes);
	TOT("rocev2_frames", t->rocev2_frames);
	TOT("rocev1_frames", t->rocev1_frames);
	TOT("ib_frames", t->ib_frames);
	TOT("iwarp_frames", t->iwarp_frames);
	TOT("tcp_frames", t->tcp_frames);
	TOT("pause_frames", t->pause_frames);
	TOT("pfc_frames", t->pfc_frames);
	TOT("other_frames", t->other_frames);
	TOT("icrc_good", t->icrc_good);
	TOT("icrc_bad", t->icrc_bad);
	TOT("icrc_unchecked", t->icrc_unchecked);
	TOT("mpa_requests", t->mpa_requests);
	TOT("mpa_replies", t->mpa_replies);
	TOT("fpdus", t->fpdus);
	TOT("mpa_crc_bad", t->mpa_crc_bad);
	TOT("parse_errors", t->parse_errors);
	TOT("unknown_linktype_frames", t->unknown_linktype_frames);
	TOT("ts_backwards", t->ts_backwards);
	TOT("qps", rep->flows != NULL ? rep->flows->nflows : 0);
	TOT("untracked_flows", rep->flows != NULL ? rep->flows->untracked_flows : 0);
	TOT("untracked_packets", rep->flows != NULL ? rep->flows->untracked_packets : 0);
	TOT("connections", rep->iw != NULL ? rep->iw->niwarp : 0);
	TOT("error_findings", t->error_findings);
#undef TOT
	snprintf(dur, sizeof(dur), "%" PRIu64 ".%09" PRIu64,
		 (t->last_ts_ns - t->first_ts_ns) / 1000000000u,
		 (t->last_ts_ns - t->first_ts_ns) % 1000000000u);
	json_object_set_new(tot, "duration", json_string(dur));
	json_object_set_new(tot, "icrc_checked", json_boolean(rep->icrc_checked));
	json_object_set_new(tot, "pmtu_option", rep->pmtu_option ?
			    json_integer(rep->pmtu_option) : json_null());
	json_object_set_new(tot, "read_error", rep->read_error != NULL ?
			    json_string(rep->read_error) : json_null());
	json_object_set_new(doc, "totals", tot);

	if (rep->flows != NULL)
		for (const struct rk_insp_flow *f = rep->flows->head; f != NULL; f = f->next)
			json_array_append_new(qps, flow_json(rep->flows, rep->cm,
							     rep->timing != NULL, f));
	json_object_set_new(doc, "qps", qps);
	if (rep->iw != NULL)
		for (const struct rk_insp_iw_conn *c = rep->iw->head; c != NULL; c = c->next)
			if (rk_insp_iw_is_iwarp(c))
				json_array_append_new(conns, conn_json(c, rep->timing != NULL));
	json_object_set_new(doc, "connections", conns);
	json_object_set_new(doc, "cm_connections", rk_insp_cm_json(rep->cm));
	if (rep->qos != NULL)
		json_object_set_new(doc, "qos", rk_insp_qos_json(rep->qos));
	if (rep->timing != NULL)
		json_object_set_new(doc, "timing", rk_insp_timing_json(rep->timing));
	if (rep->series != NULL) {
		json_object_set_new(doc, "interval_s",
				    json_real((double)rep->series->interval_ns / 1e9));
		json_object_set_new(doc, "intervals", rk_insp_series_json(rep->series));
	}
	for (int i = 0; i < RK_F_COUNT; i++) {
		if (t->findings[i] == 0)
			continue;
		json_object_set_new(fnd, rk_finding_info((enum rk_finding_id)i)->id,
				    json_integer((json_int_t)t->findings[i]));
	}
	json_object_set_new(doc, "findings", fnd);
	return doc;
}
