/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-inspect's per-packet JSON (--packets-json, doc/inspect.md): one
 * object per RoCE/IB packet, frame with findings or iWARP event. JSON keys
 * are the rk_field keys of lib/wire, so the objects are driven by the same
 * tables as the library.
 */
#include "output.h"

#include <inttypes.h>

#include "rk_bth.h"
#include "rk_xeth.h"

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

/* The members every packet's object starts with: frame, time, kind, ends. */
static void
head_json(json_t *o, const struct rk_insp_frame *fr, const struct rk_pkt *pkt,
	  const char *src, const char *dst)
{
	json_object_set_new(o, "frame", json_integer((json_int_t)fr->no));
	json_object_set_new(o, "time", time_json(fr->ts_ns));
	json_object_set_new(o, "kind", json_string(rk_pkt_kind_name(pkt->kind)));
	json_object_set_new(o, "src", json_string(src));
	json_object_set_new(o, "dst", json_string(dst));
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

	rk_insp_pkt_addrs(pkt, src, dst, sizeof(src));
	head_json(o, fr, pkt, src, dst);
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
	json_object_set_new(o, "icrc", json_string(rk_insp_icrc_verdict(pkt, true)));
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

	rk_insp_frame_addrs(pkt, src, dst, sizeof(src));
	head_json(o, fr, pkt, src, dst);
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
