/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-inspect's summary JSON document (--json, doc/inspect.md): totals,
 * one object per QP flow and per iWARP connection, the views of
 * qos_out.c, timing_out.c and mad_out.c. Also the flow addresses, iWARP
 * endpoints and opcode names the text summary (summary_text.c) shares.
 */
#include "output.h"

#include <inttypes.h>

#include "rk_opcode.h"
#include "rk_xeth.h"

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
