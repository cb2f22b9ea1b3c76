/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdmakit Wireshark plugin: a postdissector that runs rdmakit's wire
 * library and rk-inspect's analysis on every frame and shows the result
 * as protocol "rdmakit" with filterable fields and expert info.
 *
 * Wireshark's two passes: the analysis runs in the first pass, in capture
 * order, and stores one record per frame (rkw_analysis.c); later passes
 * and random access in the GUI only read the records, so the tree does
 * not depend on the order frames are looked at.
 */
#include <string.h>

#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/prefs.h>
#include <epan/tap.h>
#include <wiretap/wtap.h>
#include <ws_version.h>

#include "rk_bth.h"
#include "rk_opcode.h"
#include "rk_pkt.h"
#include "rk_rdmap.h"
#include "rk_xeth.h"
#include "rkw_analysis.h"
#include "rkw_plugin.h"

WS_DLL_PUBLIC_DEF const gchar plugin_version[] = "0.1.0";
WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;
WS_DLL_PUBLIC void plugin_register(void);

static int proto_rdmakit = -1;
static int rdmakit_tap = -1;
static dissector_handle_t rdmakit_handle;

static gboolean pref_check_icrc = TRUE;
/* Off by default: it keeps a copy of every payload (memory, and ~15-20% CPU). */
static gboolean pref_reassemble = FALSE;
static guint pref_pmtu = 0;

static struct rkw_state *state;
static uint32_t last_fed;

static int hf_kind = -1, hf_opcode = -1, hf_opname = -1, hf_destqp = -1, hf_psn = -1;
static int hf_fecn = -1, hf_becn = -1, hf_ackreq = -1, hf_pkey = -1, hf_cnp = -1;
static int hf_icrc = -1, hf_icrc_status = -1, hf_icrc_expected = -1;
static int hf_syndrome = -1, hf_nak = -1, hf_nak_code = -1, hf_rnr = -1, hf_rnr_timer = -1;
static int hf_msn = -1, hf_payload_len = -1;
static int hf_flow = -1, hf_peer_qp = -1, hf_peer_src = -1;
static int hf_psn_expected = -1, hf_lost = -1, hf_dup = -1, hf_rtx = -1, hf_gbn = -1;
static int hf_ooo = -1, hf_seq_resp = -1, hf_not_lost = -1;
static int hf_ack_first = -1, hf_ack_last = -1, hf_ack_count = -1, hf_ack_rtt = -1;
static int hf_ack_frame = -1, hf_read_rt = -1, hf_read_frame = -1;
static int hf_msg_data = -1, hf_ddp_msg_data = -1;
static int hf_msg_len = -1, hf_msg_first = -1, hf_msg_pkts = -1, hf_msg_incomplete = -1;
static int hf_finding = -1;
static int hf_fpdu = -1, hf_fpdu_kind = -1, hf_fpdu_seq = -1, hf_fpdu_stream_len = -1;
static int hf_fpdu_delivered = -1, hf_fpdu_start = -1, hf_fpdu_end = -1, hf_fpdu_spans = -1, hf_fpdu_count = -1;
static int hf_mpa_ulpdu_len = -1, hf_mpa_pad = -1, hf_mpa_markers = -1;
static int hf_mpa_crc = -1, hf_mpa_crc_status = -1, hf_mpa_rev = -1, hf_mpa_m = -1;
static int hf_mpa_c = -1, hf_mpa_r = -1, hf_mpa_pd_len = -1, hf_mpa_ird = -1, hf_mpa_ord = -1;
static int hf_mpa_lost = -1;
static int hf_ddp_t = -1, hf_ddp_l = -1, hf_ddp_stag = -1, hf_ddp_to = -1, hf_ddp_qn = -1;
static int hf_ddp_msn = -1, hf_ddp_mo = -1, hf_rdmap_opcode = -1, hf_ulp_len = -1;
static int hf_rd_sink_stag = -1, hf_rd_sink_to = -1, hf_rd_sz = -1, hf_rd_src_stag = -1;
static int hf_rd_src_to = -1;
static int hf_term_layer = -1, hf_term_etype = -1, hf_term_code = -1, hf_term_text = -1;
static int hf_ddp_msg_len = -1, hf_ddp_msg_segs = -1, hf_ddp_msg_first = -1;
static int hf_ddp_msg_gap = -1;

static gint ett_rdmakit = -1, ett_analysis = -1, ett_fpdu = -1, ett_msg = -1;

static expert_field ei_finding[RK_F_COUNT];
static expert_field ei_lost = EI_INIT, ei_rtx = EI_INIT, ei_gbn = EI_INIT, ei_ooo = EI_INIT;
static expert_field ei_nak = EI_INIT, ei_rnr = EI_INIT, ei_cnp = EI_INIT, ei_fecn = EI_INIT;
static expert_field ei_becn = EI_INIT, ei_term = EI_INIT, ei_msg_incomplete = EI_INIT;
static expert_field ei_fpdu_spans = EI_INIT, ei_sync_lost = EI_INIT;

static const value_string icrc_status_vals[] = {
	{ RK_ICRC_NOT_CHECKED, "Not checked" },
	{ RK_ICRC_GOOD, "Good" },
	{ RK_ICRC_BAD, "Bad" },
	{ 0, NULL },
};

/* enum rk_insp_crc */
static const value_string mpa_crc_status_vals[] = {
	{ 0, "Not in use" },
	{ 1, "Good" },
	{ 2, "Bad" },
	{ 0, NULL },
};

/* enum rk_insp_iw_ev_kind */
static const value_string fpdu_kind_vals[] = {
	{ 0, "MPA Request" },
	{ 1, "MPA Reply" },
	{ 2, "FPDU" },
	{ 3, "Framing lost" },
	{ 4, "Framing regained at a marker" },
	{ 5, "TCP retransmission differs from the first copy" },
	{ 0, NULL },
};

static const value_string peer_src_vals[] = {
	{ 0, "unknown" },
	{ 1, "traffic" },
	{ 2, "CM REQ/REP" },
	{ 3, "DETH SrcQP" },
	{ 0, NULL },
};

static enum rk_linktype
link_of(int encap, bool *ok)
{
	*ok = true;
	switch (encap) {
	case WTAP_ENCAP_ETHERNET:
		return RK_LINK_ETHERNET;
	case WTAP_ENCAP_RAW_IP:
		return RK_LINK_RAW;
	case WTAP_ENCAP_RAW_IP4:
		return RK_LINK_IPV4;
	case WTAP_ENCAP_RAW_IP6:
		return RK_LINK_IPV6;
	case WTAP_ENCAP_SLL:
		return RK_LINK_LINUX_SLL;
	case WTAP_ENCAP_SLL2:
		return RK_LINK_LINUX_SLL2;
	default:
		/* ERF keeps its record header out of the frame bytes here. */
		*ok = false;
		return RK_LINK_ETHERNET;
	}
}

static void
state_init(void)
{
	struct rkw_opts o = { .check_icrc = pref_check_icrc, .pmtu = pref_pmtu,
			      .keep_payload = pref_reassemble };

	rkw_free(state);
	state = rkw_new(&o);
	last_fed = 0;
}

static void
state_cleanup(void)
{
	rkw_free(state);
	state = NULL;
	last_fed = 0;
}

const struct rkw_flow_info *
rkw_plugin_flow(uint32_t idx)
{
	return state != NULL ? rkw_flow(state, idx) : NULL;
}

/* Expert item for one finding, on a field that names it (rdmakit.finding). */
static void
add_finding(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const struct rk_finding *f,
	    uint32_t off, uint32_t len)
{
	const struct rk_finding_info *fi = rk_finding_info(f->id);
	proto_item *it;

	if (fi == NULL)
		return;
	if (off >= tvb_captured_length(tvb)) {
		off = 0;
		len = 0;
	} else if (len > tvb_captured_length(tvb) - off) {
		len = tvb_captured_length(tvb) - off;
	}
	it = proto_tree_add_string(tree, hf_finding, tvb, off, len, fi->id);
	expert_add_info_format(pinfo, it, &ei_finding[f->id], "%s (%s) [%s]", fi->text, fi->id,
			       fi->spec_ref);
}

static void
add_findings(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, const struct rk_findings *fs)
{
	for (unsigned int i = 0; i < fs->count; i++)
		add_finding(tree, pinfo, tvb, &fs->list[i], fs->list[i].offset, 1);
}

/* A reassembled message as a data source of its own (a bytes tab). */
static void
add_msg_data(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, int hf, GBytes *data,
	     const char *name)
{
	gsize n;
	const guint8 *d = g_bytes_get_data(data, &n);
	tvbuff_t *mt;

	if (n == 0 || n > G_MAXINT)
		return;
	mt = tvb_new_child_real_data(tvb, d, (guint)n, (gint)n);
	add_new_data_source(pinfo, mt, name);
	proto_tree_add_item(tree, hf, mt, 0, (gint)n, ENC_NA);
}

static void
roce_tree(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, const struct rk_pkt *pkt,
	  const struct rkw_frame *rec, struct rkw_tapinfo *tap)
{
	const uint8_t *bth = rk_pkt_bth(pkt);
	const struct rkw_roce *o = &rec->roce;
	uint32_t end = tvb_captured_length(tvb);
	uint32_t len = end > pkt->bth_off ? end - pkt->bth_off : 0;
	proto_item *ti, *it;
	proto_tree *rt, *at;
	const uint8_t *x;

	ti = proto_tree_add_item(tree, proto_rdmakit, tvb, pkt->bth_off, len, ENC_NA);
	proto_item_append_text(ti, ", %s %s DestQP 0x%06x PSN %u", rk_pkt_kind_name(pkt->kind),
			       pkt->op != NULL && pkt->op->name != NULL ? pkt->op->name : "reserved",
			       rk_bth_dest_qp(bth), rk_bth_psn(bth));
	rt = proto_item_add_subtree(ti, ett_rdmakit);
	proto_tree_add_string(rt, hf_kind, tvb, 0, 0, rk_pkt_kind_name(pkt->kind));
	proto_tree_add_uint(rt, hf_opcode, tvb, pkt->bth_off, 1, pkt->opcode);
	proto_tree_add_string(rt, hf_opname, tvb, pkt->bth_off, 1,
			      pkt->op != NULL && pkt->op->name != NULL ? pkt->op->name : "reserved");
	proto_tree_add_uint(rt, hf_pkey, tvb, pkt->bth_off + 2, 2, rk_bth_p_key(bth));
	it = proto_tree_add_boolean(rt, hf_fecn, tvb, pkt->bth_off + 4, 1, rk_bth_fecn(bth));
	if (rk_bth_fecn(bth))
		expert_add_info(pinfo, it, &ei_fecn);
	it = proto_tree_add_boolean(rt, hf_becn, tvb, pkt->bth_off + 4, 1, rk_bth_becn(bth));
	if (rk_bth_becn(bth))
		expert_add_info(pinfo, it, &ei_becn);
	proto_tree_add_uint(rt, hf_destqp, tvb, pkt->bth_off + 5, 3, rk_bth_dest_qp(bth));
	proto_tree_add_boolean(rt, hf_ackreq, tvb, pkt->bth_off + 8, 1, rk_bth_ack_req(bth));
	proto_tree_add_uint(rt, hf_psn, tvb, pkt->bth_off + 9, 3, rk_bth_psn(bth));
	if (pkt->opcode == RK_OP_CNP) {
		it = proto_tree_add_boolean(rt, hf_cnp, tvb, pkt->bth_off, 1, TRUE);
		expert_add_info(pinfo, it, &ei_cnp);
		col_append_str(pinfo->cinfo, COL_INFO, " [CNP]");
		tap->cnp = true;
	}
	x = pkt->op != NULL && (pkt->op->hdrs & (1u << RK_HDR_AETH)) &&
	    pkt->bth_off + pkt->op->off[RK_HDR_AETH] + RK_AETH_LEN <= pkt->caplen ?
	    rk_pkt_xeth(pkt, RK_HDR_AETH) : NULL;
	if (x != NULL) {
		uint32_t aoff = (uint32_t)(x - pkt->frame);

		proto_tree_add_uint(rt, hf_syndrome, tvb, aoff, 1, rk_aeth_syndrome(x));
		proto_tree_add_uint(rt, hf_msn, tvb, aoff + 1, 3, rk_aeth_msn(x));
		if (o->nak) {
			it = proto_tree_add_boolean(rt, hf_nak, tvb, aoff, 1, TRUE);
			proto_tree_add_uint(rt, hf_nak_code, tvb, aoff, 1, o->nak_code);
			expert_add_info_format(pinfo, it, &ei_nak, "NAK: %s (code %u) [IBTA Vol1 9.3, ch. 9]",
					       rk_aeth_nak_name(o->nak_code), o->nak_code);
			col_append_fstr(pinfo->cinfo, COL_INFO, " [NAK %s]",
					rk_aeth_nak_name(o->nak_code));
			tap->nak = true;
		}
		if (o->rnr) {
			it = proto_tree_add_boolean(rt, hf_rnr, tvb, aoff, 1, TRUE);
			proto_tree_add_uint(rt, hf_rnr_timer, tvb, aoff, 1, o->rnr_timer);
			expert_add_info_format(pinfo, it, &ei_rnr,
					       "RNR NAK: receiver not ready, wait %.2f ms [IBTA Vol1 ch. 9]",
					       (double)rk_rnr_timer_ns(o->rnr_timer) / 1e6);
			col_append_str(pinfo->cinfo, COL_INFO, " [RNR NAK]");
			tap->rnr = true;
		}
	}
	proto_tree_add_uint(rt, hf_payload_len, tvb, pkt->payload_off <= end ? pkt->payload_off : 0,
			    0, pkt->payload_len);
	if (pkt->icrc_off != 0 && pkt->icrc_off + 4 <= end) {
		proto_tree_add_uint(rt, hf_icrc, tvb, pkt->icrc_off, 4, pkt->icrc);
		it = proto_tree_add_uint(rt, hf_icrc_status, tvb, pkt->icrc_off, 4, pkt->icrc_status);
		proto_item_set_generated(it);
		if (pkt->icrc_status == RK_ICRC_BAD) {
			uint32_t want = 0;

			if (pkt->kind == RK_PKT_ROCEV2)
				want = rk_rocev2_icrc(pkt->frame + pkt->l3_off, pkt->icrc_off - pkt->l3_off);
			else if (pkt->kind == RK_PKT_ROCEV1)
				want = rk_ib_icrc(pkt->frame + pkt->l3_off, pkt->icrc_off - pkt->l3_off, false);
			else
				want = rk_ib_icrc(pkt->frame + pkt->l2_off, pkt->icrc_off - pkt->l2_off, true);
			it = proto_tree_add_uint(rt, hf_icrc_expected, tvb, pkt->icrc_off, 4, want);
			proto_item_set_generated(it);
			col_append_str(pinfo->cinfo, COL_INFO, " [ICRC bad]");
			tap->icrc_bad = true;
		}
	}
	if (o->flow != 0) {
		it = proto_tree_add_uint(rt, hf_flow, tvb, 0, 0, o->flow);
		proto_item_set_generated(it);
	}
	if (o->peer_src != RK_INSP_PEER_NONE) {
		it = proto_tree_add_uint(rt, hf_peer_qp, tvb, 0, 0, o->peer_qp);
		proto_item_set_generated(it);
		it = proto_tree_add_uint(rt, hf_peer_src, tvb, 0, 0, o->peer_src);
		proto_item_set_generated(it);
	}

	/* Sequence analysis, in the manner of tcp.analysis. */
	at = proto_tree_add_subtree(rt, tvb, 0, 0, ett_analysis, &it, "Sequence analysis");
	proto_item_set_generated(it);
	if (o->seq == RKW_SEQ_GAP || o->seq == RKW_SEQ_DUP || o->seq == RKW_SEQ_LATE ||
	    (o->seq == RKW_SEQ_IN_ORDER && !o->seq_is_resp)) {
		it = proto_tree_add_uint(at, hf_psn_expected, tvb, pkt->bth_off + 9, 3, o->expected);
		proto_item_set_generated(it);
	}
	if (o->seq_is_resp) {
		it = proto_tree_add_boolean(at, hf_seq_resp, tvb, 0, 0, TRUE);
		proto_item_set_generated(it);
	}
	if (o->missing != 0) {
		it = proto_tree_add_uint(at, hf_lost, tvb, pkt->bth_off + 9, 3, o->missing);
		proto_item_set_generated(it);
		expert_add_info_format(pinfo, it, &ei_lost,
				       "Previous %u PSN%s not captured (lost) [IBTA Vol1 ch. 9]",
				       o->missing, o->missing == 1 ? "" : "s");
		col_append_fstr(pinfo->cinfo, COL_INFO, " [%u PSN%s lost]", o->missing,
				o->missing == 1 ? "" : "s");
		tap->lost = o->missing;
	}
	if (o->seq == RKW_SEQ_DUP) {
		it = proto_tree_add_boolean(at, hf_dup, tvb, pkt->bth_off + 9, 3, TRUE);
		proto_item_set_generated(it);
		it = proto_tree_add_boolean(at, hf_rtx, tvb, pkt->bth_off + 9, 3, TRUE);
		proto_item_set_generated(it);
		expert_add_info(pinfo, it, &ei_rtx);
		col_append_str(pinfo->cinfo, COL_INFO, " [retransmission]");
		tap->rtx = true;
	}
	/* A late packet (a late copy in a go-back-N run is a retransmission
	 * too): the PSNs it fills were not lost. */
	if (o->out_of_order) {
		it = proto_tree_add_boolean(at, hf_ooo, tvb, pkt->bth_off + 9, 3, TRUE);
		proto_item_set_generated(it);
		expert_add_info(pinfo, it, &ei_ooo);
		col_append_str(pinfo->cinfo, COL_INFO, " [out of order]");
	}
	if (o->not_lost != 0) {
		it = proto_tree_add_uint(at, hf_not_lost, tvb, pkt->bth_off + 9, 3, o->not_lost);
		proto_item_set_generated(it);
		tap->not_lost = o->not_lost;
	}
	if (o->rtx_start) {
		it = proto_tree_add_boolean(at, hf_gbn, tvb, pkt->bth_off + 9, 3, TRUE);
		proto_item_set_generated(it);
		expert_add_info(pinfo, it, &ei_gbn);
		tap->gbn = true;
	}
	if (o->ack_range) {
		it = proto_tree_add_uint(at, hf_ack_first, tvb, 0, 0, o->ack_first);
		proto_item_set_generated(it);
		it = proto_tree_add_uint(at, hf_ack_last, tvb, 0, 0, o->ack_last);
		proto_item_set_generated(it);
		it = proto_tree_add_uint(at, hf_ack_count, tvb, 0, 0, o->ack_count);
		proto_item_set_generated(it);
		if (o->ack_count > 1)
			col_append_fstr(pinfo->cinfo, COL_INFO, " [ACKs PSN %u-%u]", o->ack_first,
					o->ack_last);
	}
	if (o->ack_req_frame != 0) {
		nstime_t t;

		it = proto_tree_add_uint(at, hf_ack_frame, tvb, 0, 0, o->ack_req_frame);
		proto_item_set_generated(it);
		nstime_set_zero(&t);
		t.secs = (time_t)(o->ack_rtt_ns / 1000000000u);
		t.nsecs = (int)(o->ack_rtt_ns % 1000000000u);
		it = proto_tree_add_time(at, hf_ack_rtt, tvb, 0, 0, &t);
		proto_item_set_generated(it);
		tap->ack_rtt_ns = o->ack_rtt_ns;
		tap->has_ack_rtt = true;
	}
	if (o->read_req_frame != 0) {
		nstime_t t;

		it = proto_tree_add_uint(at, hf_read_frame, tvb, 0, 0, o->read_req_frame);
		proto_item_set_generated(it);
		t.secs = (time_t)(o->read_rt_ns / 1000000000u);
		t.nsecs = (int)(o->read_rt_ns % 1000000000u);
		it = proto_tree_add_time(at, hf_read_rt, tvb, 0, 0, &t);
		proto_item_set_generated(it);
		tap->read_rt_ns = o->read_rt_ns;
		tap->has_read_rt = true;
	}
	if (o->msg_end) {
		proto_tree *mt = proto_tree_add_subtree(rt, tvb, 0, 0, ett_msg, &it, "Message");

		proto_item_set_generated(it);
		it = proto_tree_add_uint64(mt, hf_msg_len, tvb, 0, 0, o->msg_len);
		proto_item_set_generated(it);
		it = proto_tree_add_uint(mt, hf_msg_first, tvb, 0, 0, o->msg_first_frame);
		proto_item_set_generated(it);
		it = proto_tree_add_uint(mt, hf_msg_pkts, tvb, 0, 0, o->msg_packets);
		proto_item_set_generated(it);
		if (o->msg_data != NULL)
			add_msg_data(mt, pinfo, tvb, hf_msg_data, o->msg_data, "Reassembled message");
		if (o->msg_incomplete) {
			it = proto_tree_add_boolean(mt, hf_msg_incomplete, tvb, 0, 0, TRUE);
			proto_item_set_generated(it);
			expert_add_info(pinfo, it, &ei_msg_incomplete);
		}
		tap->msgs = 1;
		tap->msg_len = o->msg_len;
	}
	add_findings(rt, pinfo, tvb, &pkt->findings);
	if (o->found != NULL)
		add_findings(rt, pinfo, tvb, o->found);
}

static void
fpdu_tree(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, const struct rkw_fpdu *u,
	  unsigned int i, unsigned int n)
{
	proto_item *ti, *it;
	proto_tree *ft;
	uint32_t off = u->frame_off, len = u->frame_len;
	const char *opname = u->ddp_ok ? rk_rdmap_opcode_name(u->opcode) : NULL;

	if (off > tvb_captured_length(tvb)) {
		off = 0;
		len = 0;
	} else if (len > tvb_captured_length(tvb) - off) {
		len = tvb_captured_length(tvb) - off;
	}
	ti = proto_tree_add_uint(tree, hf_fpdu, tvb, off, len, i + 1);
	proto_item_set_text(ti, "%s %u of %u%s%s%s", val_to_str_const(u->kind, fpdu_kind_vals, "?"),
			    i + 1, n, opname != NULL ? ": " : "", opname != NULL ? opname : "",
			    u->complete_here && !u->starts_here ? " (reassembled)" :
			    !u->complete_here ? " (continues)" : "");
	ft = proto_item_add_subtree(ti, ett_fpdu);
	proto_tree_add_uint(ft, hf_fpdu_kind, tvb, off, len, u->kind);
	proto_tree_add_uint(ft, hf_fpdu_seq, tvb, off, len, u->tcp_seq);
	proto_tree_add_uint(ft, hf_fpdu_stream_len, tvb, off, len, u->stream_len);
	if (!u->starts_here || !u->complete_here) {
		it = proto_tree_add_boolean(ft, hf_fpdu_spans, tvb, off, len, TRUE);
		proto_item_set_generated(it);
		expert_add_info_format(pinfo, it, &ei_fpdu_spans,
				       "MPA unit spans frames %u to %u", u->start_frame, u->end_frame);
		it = proto_tree_add_uint(ft, hf_fpdu_start, tvb, 0, 0, u->start_frame);
		proto_item_set_generated(it);
		it = proto_tree_add_uint(ft, hf_fpdu_end, tvb, 0, 0, u->end_frame);
		proto_item_set_generated(it);
	}
	switch (u->kind) {
	case 0: /* MPA Request */
	case 1: /* MPA Reply */
		proto_tree_add_uint(ft, hf_mpa_rev, tvb, off, len, u->rev);
		proto_tree_add_boolean(ft, hf_mpa_m, tvb, off, len, u->m);
		proto_tree_add_boolean(ft, hf_mpa_c, tvb, off, len, u->c);
		proto_tree_add_boolean(ft, hf_mpa_r, tvb, off, len, u->r);
		proto_tree_add_uint(ft, hf_mpa_pd_len, tvb, off, len, u->pd_len);
		if (u->enhanced) {
			proto_tree_add_uint(ft, hf_mpa_ird, tvb, off, len, u->ird);
			proto_tree_add_uint(ft, hf_mpa_ord, tvb, off, len, u->ord);
		}
		break;
	case 3: /* framing lost */
		it = proto_tree_add_string(ft, hf_mpa_lost, tvb, off, len,
					   u->lost_reason != NULL ? u->lost_reason : "?");
		expert_add_info_format(pinfo, it, &ei_sync_lost, "MPA framing lost (%s) [RFC 5044 6]",
				       u->lost_reason != NULL ? u->lost_reason : "?");
		break;
	case 2: /* FPDU */
		proto_tree_add_uint(ft, hf_mpa_ulpdu_len, tvb, off, len, u->ulpdu_len);
		proto_tree_add_uint(ft, hf_mpa_pad, tvb, off, len, u->pad);
		proto_tree_add_uint(ft, hf_mpa_markers, tvb, off, len, u->markers);
		if (u->crc != 0)
			proto_tree_add_uint(ft, hf_mpa_crc, tvb, off, len, u->crc_value);
		it = proto_tree_add_uint(ft, hf_mpa_crc_status, tvb, off, len, u->crc);
		proto_item_set_generated(it);
		if (u->crc == 2 && u->complete_here)
			col_append_str(pinfo->cinfo, COL_INFO, " [MPA CRC bad]");
		if (!u->ddp_ok)
			break;
		proto_tree_add_boolean(ft, hf_ddp_t, tvb, off, len, u->t);
		proto_tree_add_boolean(ft, hf_ddp_l, tvb, off, len, u->l);
		if (u->t) {
			proto_tree_add_uint(ft, hf_ddp_stag, tvb, off, len, u->stag);
			proto_tree_add_uint64(ft, hf_ddp_to, tvb, off, len, u->to);
		} else {
			proto_tree_add_uint(ft, hf_ddp_qn, tvb, off, len, u->qn);
			proto_tree_add_uint(ft, hf_ddp_msn, tvb, off, len, u->msn);
			proto_tree_add_uint(ft, hf_ddp_mo, tvb, off, len, u->mo);
		}
		proto_tree_add_uint(ft, hf_rdmap_opcode, tvb, off, len, u->opcode);
		proto_tree_add_uint(ft, hf_ulp_len, tvb, off, len, u->payload_len);
		if (u->rdmap_ok && u->opcode == RK_RDMAP_READ_REQ) {
			proto_tree_add_uint(ft, hf_rd_sink_stag, tvb, off, len, u->read_req.sink_stag);
			proto_tree_add_uint64(ft, hf_rd_sink_to, tvb, off, len, u->read_req.sink_to);
			proto_tree_add_uint(ft, hf_rd_sz, tvb, off, len, u->read_req.rdma_rd_sz);
			proto_tree_add_uint(ft, hf_rd_src_stag, tvb, off, len, u->read_req.src_stag);
			proto_tree_add_uint64(ft, hf_rd_src_to, tvb, off, len, u->read_req.src_to);
		}
		if (u->rdmap_ok && u->opcode == RK_RDMAP_TERMINATE) {
			const char *ln = rk_rdmap_term_layer_name(u->term.layer);
			const char *en = rk_rdmap_term_etype_name(u->term.layer, u->term.etype);
			const char *txt = u->term_text != NULL ? u->term_text : "unknown code";

			proto_tree_add_uint_format_value(ft, hf_term_layer, tvb, off, len, u->term.layer,
							 "%s (%u)", ln != NULL ? ln : "reserved",
							 u->term.layer);
			proto_tree_add_uint_format_value(ft, hf_term_etype, tvb, off, len, u->term.etype,
							 "%s (%u)", en != NULL ? en : "reserved",
							 u->term.etype);
			proto_tree_add_uint(ft, hf_term_code, tvb, off, len, u->term.err_code);
			it = proto_tree_add_string(ft, hf_term_text, tvb, off, len, txt);
			expert_add_info_format(pinfo, it, &ei_term,
					       "Terminate: %s (layer %u, etype %u, code 0x%02x) [RFC 5040 4.8]",
					       txt, u->term.layer, u->term.etype, u->term.err_code);
			col_append_fstr(pinfo->cinfo, COL_INFO, " [Terminate: %s]", txt);
		}
		if (u->msg_end || u->msg_mo_gap) {
			proto_tree *mt = proto_tree_add_subtree(ft, tvb, off, len, ett_msg, &it,
								"DDP message");

			proto_item_set_generated(it);
			if (u->msg_end) {
				it = proto_tree_add_uint64(mt, hf_ddp_msg_len, tvb, off, len, u->msg_len);
				proto_item_set_generated(it);
			}
			it = proto_tree_add_uint(mt, hf_ddp_msg_segs, tvb, off, len, u->msg_segments);
			proto_item_set_generated(it);
			it = proto_tree_add_uint(mt, hf_ddp_msg_first, tvb, 0, 0, u->msg_first_frame);
			proto_item_set_generated(it);
			if (u->msg_data != NULL)
				add_msg_data(mt, pinfo, tvb, hf_ddp_msg_data, u->msg_data,
					     "Reassembled DDP message");
			if (u->msg_mo_gap) {
				it = proto_tree_add_boolean(mt, hf_ddp_msg_gap, tvb, off, len, TRUE);
				proto_item_set_generated(it);
				expert_add_info(pinfo, it, &ei_msg_incomplete);
			}
		}
		break;
	default:
		break;
	}
	/* Unit offsets of findings map into this frame's part of the unit;
	 * one past every part shows in the frame completing the unit. */
	for (unsigned int k = 0; k < u->findings.count; k++) {
		uint32_t x = u->findings.list[k].offset;

		if (x >= u->unit_off && x - u->unit_off < u->frame_len)
			add_finding(ft, pinfo, tvb, &u->findings.list[k], off + (x - u->unit_off), 1);
		else if (u->complete_here && x >= u->unit_off + u->frame_len)
			add_finding(ft, pinfo, tvb, &u->findings.list[k], off, len);
	}
}

static void
iwarp_tree(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, const struct rk_pkt *pkt,
	   const struct rkw_frame *rec, struct rkw_tapinfo *tap)
{
	uint32_t end = tvb_captured_length(tvb);
	uint32_t off = pkt->l4_payload_off < end ? pkt->l4_payload_off : end;
	proto_item *ti, *it;
	proto_tree *rt;
	unsigned int complete = 0;

	ti = proto_tree_add_item(tree, proto_rdmakit, tvb, off, end - off, ENC_NA);
	if (rec->nfpdu != 0)
		proto_item_append_text(ti, ", iWARP, %u MPA unit%s", rec->nfpdu,
				       rec->nfpdu == 1 ? "" : "s");
	else
		proto_item_append_text(ti, ", iWARP connection, no MPA data");
	rt = proto_item_add_subtree(ti, ett_rdmakit);
	proto_tree_add_string(rt, hf_kind, tvb, 0, 0, "iWARP");
	if (rec->iw_flow != 0) {
		it = proto_tree_add_uint(rt, hf_flow, tvb, 0, 0, rec->iw_flow);
		proto_item_set_generated(it);
	}
	for (unsigned int i = 0; i < rec->nfpdu; i++)
		complete += rec->fpdu[i].complete_here && rec->fpdu[i].kind == 2;
	it = proto_tree_add_uint(rt, hf_fpdu_count, tvb, off, end - off, complete);
	proto_item_set_generated(it);
	if (rec->iw_fpdus != complete) {
		it = proto_tree_add_uint(rt, hf_fpdu_delivered, tvb, off, end - off, rec->iw_fpdus);
		proto_item_set_generated(it);
	}
	tap->fpdus = rec->iw_fpdus;
	tap->msgs = rec->iw_msgs;
	tap->msg_len = rec->iw_msg_bytes;
	tap->crc_bad = rec->iw_crc_bad;
	tap->terms = rec->iw_terms;
	for (unsigned int i = 0; i < rec->nfpdu; i++)
		fpdu_tree(tvb, pinfo, rt, &rec->fpdu[i], i, rec->nfpdu);
	if (complete > 1)
		col_append_fstr(pinfo->cinfo, COL_INFO, " [%u FPDUs]", complete);
	add_findings(rt, pinfo, tvb, &pkt->findings);
}

static int
dissect_rdmakit(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
	struct rk_pkt pkt;
	struct rkw_frame *rec;
	struct rkw_tapinfo *tap;
	uint32_t caplen = tvb_captured_length(tvb);
	const uint8_t *bytes;
	enum rk_linktype link;
	bool ok;

	if (state == NULL || pinfo->rec == NULL || pinfo->rec->rec_type != REC_TYPE_PACKET)
		return 0;
	link = link_of(pinfo->rec->rec_header.packet_header.pkt_encap, &ok);
	if (!ok || caplen == 0)
		return 0;
	bytes = tvb_get_ptr(tvb, 0, caplen);
	if (!PINFO_FD_VISITED(pinfo) && pinfo->num > last_fed) {
		uint64_t ts = (uint64_t)pinfo->abs_ts.secs * 1000000000u + (uint64_t)pinfo->abs_ts.nsecs;

		last_fed = pinfo->num;
		rec = rkw_feed(state, pinfo->num, bytes, caplen, tvb_reported_length(tvb), link, ts,
			       &pkt);
	} else {
		/* The first look back at a frame ends the first pass over a
		 * file (tshark -2, or Wireshark once the file is read): the
		 * verdicts still open are decided now, as rk-inspect does at
		 * the end. iWARP streams are not flushed: a live capture may
		 * still bring their holes' bytes. */
		rkw_end_roce(state);
		rec = rkw_lookup(state, pinfo->num);
		if (rec == NULL)
			return 0;
		if (rk_pkt_parse(&pkt, bytes, caplen, tvb_reported_length(tvb), link,
				 rkw_parse_opts(state)) != 0)
			return 0;
	}
	if (rec == NULL)
		return 0;
	tap = wmem_new0(pinfo->pool, struct rkw_tapinfo);
	tap->bytes = tvb_reported_length(tvb);
	if (rec->is_roce && rk_pkt_has_bth(&pkt)) {
		tap->flow = rec->roce.flow;
		tap->lat_flow = rec->roce.req_flow;
		roce_tree(tvb, pinfo, tree, &pkt, rec, tap);
	} else if (pkt.kind == RK_PKT_TCP && (rec->is_iwarp || rec->nfpdu != 0)) {
		tap->flow = rec->iw_flow != 0 ? rec->iw_flow :
			    rec->nfpdu != 0 ? rec->fpdu[0].conn : 0;
		tap->iwarp = true;
		iwarp_tree(tvb, pinfo, tree, &pkt, rec, tap);
	} else {
		return 0;
	}
	if (tap->flow != 0)
		tap_queue_packet(rdmakit_tap, pinfo, tap);
	return caplen;
}

static void
proto_register_rdmakit(void)
{
	static hf_register_info hf[] = {
		{ &hf_kind, { "Kind", "rdmakit.kind", FT_STRING, BASE_NONE, NULL, 0, "RoCEv2, RoCEv1, IB or iWARP", HFILL } },
		{ &hf_opcode, { "OpCode", "rdmakit.bth.opcode", FT_UINT8, BASE_HEX, NULL, 0, "BTH OpCode (IBTA Vol1 9.2)", HFILL } },
		{ &hf_opname, { "Operation", "rdmakit.bth.opname", FT_STRING, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_pkey, { "P_Key", "rdmakit.bth.p_key", FT_UINT16, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_fecn, { "FECN", "rdmakit.bth.fecn", FT_BOOLEAN, BASE_NONE, NULL, 0, "Forward explicit congestion notification (IBTA Annex A17 A17.9)", HFILL } },
		{ &hf_becn, { "BECN", "rdmakit.bth.becn", FT_BOOLEAN, BASE_NONE, NULL, 0, "Backward explicit congestion notification (IBTA Annex A17 A17.9)", HFILL } },
		{ &hf_destqp, { "DestQP", "rdmakit.bth.destqp", FT_UINT24, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_ackreq, { "AckReq", "rdmakit.bth.ackreq", FT_BOOLEAN, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_psn, { "PSN", "rdmakit.bth.psn", FT_UINT24, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_cnp, { "CNP", "rdmakit.cnp", FT_BOOLEAN, BASE_NONE, NULL, 0, "Congestion notification packet (Annex A17.9.3)", HFILL } },
		{ &hf_icrc, { "ICRC", "rdmakit.icrc", FT_UINT32, BASE_HEX, NULL, 0, "Invariant CRC as carried", HFILL } },
		{ &hf_icrc_status, { "ICRC status", "rdmakit.icrc.status", FT_UINT8, BASE_DEC, VALS(icrc_status_vals), 0, "ICRC verdict (Annex A17.3.3)", HFILL } },
		{ &hf_icrc_expected, { "Expected ICRC", "rdmakit.icrc.expected", FT_UINT32, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_syndrome, { "Syndrome", "rdmakit.aeth.syndrome", FT_UINT8, BASE_HEX, NULL, 0, "AETH syndrome (IBTA Vol1 9.3)", HFILL } },
		{ &hf_msn, { "MSN", "rdmakit.aeth.msn", FT_UINT24, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_nak, { "NAK", "rdmakit.analysis.nak", FT_BOOLEAN, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_nak_code, { "NAK code", "rdmakit.aeth.nak_code", FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_rnr, { "RNR NAK", "rdmakit.analysis.rnr", FT_BOOLEAN, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_rnr_timer, { "RNR timer code", "rdmakit.aeth.rnr_timer", FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_payload_len, { "Payload length", "rdmakit.payload_len", FT_UINT32, BASE_DEC, NULL, 0, "Payload bytes without pad", HFILL } },
		{ &hf_flow, { "Flow index", "rdmakit.flow", FT_UINT32, BASE_DEC, NULL, 0, "One direction of a QP or of an iWARP connection", HFILL } },
		{ &hf_peer_qp, { "Source QP", "rdmakit.qp.src", FT_UINT24, BASE_HEX, NULL, 0, "The sender's QP number (DestQP of the reverse flow)", HFILL } },
		{ &hf_peer_src, { "QP pairing from", "rdmakit.qp.pairing", FT_UINT8, BASE_DEC, VALS(peer_src_vals), 0, NULL, HFILL } },
		{ &hf_psn_expected, { "Expected PSN", "rdmakit.psn.expected", FT_UINT24, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_seq_resp, { "Responder sequence", "rdmakit.psn.response", FT_BOOLEAN, BASE_NONE, NULL, 0, "PSN of a response (ACK, READ response)", HFILL } },
		{ &hf_lost, { "Lost PSNs", "rdmakit.analysis.lost", FT_UINT32, BASE_DEC, NULL, 0, "PSNs skipped before this packet", HFILL } },
		{ &hf_dup, { "Duplicate PSN", "rdmakit.analysis.duplicate", FT_BOOLEAN, BASE_NONE, NULL, 0, "PSN behind the expected one", HFILL } },
		{ &hf_rtx, { "Retransmission", "rdmakit.analysis.retransmission", FT_BOOLEAN, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_ooo, { "Out of order", "rdmakit.analysis.out_of_order", FT_BOOLEAN, BASE_NONE, NULL, 0, "Came after later PSNs (reordered), as the packets after it show: not lost", HFILL } },
		{ &hf_not_lost, { "PSNs not lost", "rdmakit.analysis.not_lost", FT_UINT32, BASE_DEC, NULL, 0, "PSNs reported lost before that came late with this packet", HFILL } },
		{ &hf_gbn, { "Go-back-N", "rdmakit.analysis.go_back_n", FT_BOOLEAN, BASE_NONE, NULL, 0, "First packet of a go-back-N retransmission episode", HFILL } },
		{ &hf_ack_first, { "ACK covers from PSN", "rdmakit.ack.first_psn", FT_UINT24, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_ack_last, { "ACK covers to PSN", "rdmakit.ack.last_psn", FT_UINT24, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_ack_count, { "PSNs acknowledged", "rdmakit.ack.count", FT_UINT32, BASE_DEC, NULL, 0, "Requests a coalesced ACK covers (0: duplicate ACK)", HFILL } },
		{ &hf_ack_frame, { "Acknowledged request in frame", "rdmakit.ack.request_frame", FT_FRAMENUM, BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_ACK), 0, NULL, HFILL } },
		{ &hf_ack_rtt, { "Request to ACK time", "rdmakit.ack.rtt", FT_RELATIVE_TIME, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_read_frame, { "READ request in frame", "rdmakit.read.request_frame", FT_FRAMENUM, BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0, NULL, HFILL } },
		{ &hf_read_rt, { "READ request to response time", "rdmakit.read.response_time", FT_RELATIVE_TIME, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_msg_len, { "Message length", "rdmakit.msg.length", FT_UINT64, BASE_DEC, NULL, 0, "Payload bytes of FIRST..LAST (first transmissions)", HFILL } },
		{ &hf_msg_data, { "Message data", "rdmakit.msg.data", FT_BYTES, BASE_NONE, NULL, 0, "The message's payload, reassembled (preference reassemble)", HFILL } },
		{ &hf_msg_first, { "Message starts in frame", "rdmakit.msg.first_frame", FT_FRAMENUM, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_msg_pkts, { "Message packets", "rdmakit.msg.packets", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_msg_incomplete, { "Message incomplete", "rdmakit.msg.incomplete", FT_BOOLEAN, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_finding, { "Finding", "rdmakit.finding", FT_STRING, BASE_NONE, NULL, 0, "Finding ID (doc/findings.md)", HFILL } },
		{ &hf_fpdu, { "MPA unit", "rdmakit.fpdu", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_fpdu_count, { "FPDUs completed in this segment", "rdmakit.fpdu.count", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_fpdu_delivered, { "FPDUs delivered by this segment", "rdmakit.fpdu.delivered", FT_UINT32, BASE_DEC, NULL, 0, "FPDUs the in-order stream released when this segment arrived (it filled a hole)", HFILL } },
		{ &hf_fpdu_kind, { "Unit", "rdmakit.fpdu.kind", FT_UINT8, BASE_DEC, VALS(fpdu_kind_vals), 0, NULL, HFILL } },
		{ &hf_fpdu_seq, { "TCP sequence number", "rdmakit.fpdu.tcp_seq", FT_UINT32, BASE_DEC, NULL, 0, "Of the unit's first byte", HFILL } },
		{ &hf_fpdu_stream_len, { "Stream bytes", "rdmakit.fpdu.stream_len", FT_UINT32, BASE_DEC, NULL, 0, "Bytes the unit takes in the stream, markers included", HFILL } },
		{ &hf_fpdu_spans, { "Spans segments", "rdmakit.fpdu.spans", FT_BOOLEAN, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_fpdu_start, { "Starts in frame", "rdmakit.fpdu.first_frame", FT_FRAMENUM, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_fpdu_end, { "Completes in frame", "rdmakit.fpdu.last_frame", FT_FRAMENUM, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_mpa_ulpdu_len, { "ULPDU_Length", "rdmakit.mpa.ulpdu_length", FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_mpa_pad, { "Pad", "rdmakit.mpa.pad", FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_mpa_markers, { "Markers removed", "rdmakit.mpa.markers", FT_UINT16, BASE_DEC, NULL, 0, "Markers inside this FPDU (RFC 5044 4.3)", HFILL } },
		{ &hf_mpa_crc, { "CRC", "rdmakit.mpa.crc", FT_UINT32, BASE_HEX, NULL, 0, "MPA CRC32c as carried", HFILL } },
		{ &hf_mpa_crc_status, { "CRC status", "rdmakit.mpa.crc.status", FT_UINT8, BASE_DEC, VALS(mpa_crc_status_vals), 0, "MPA CRC32c verdict (RFC 5044 4.4)", HFILL } },
		{ &hf_mpa_rev, { "Rev", "rdmakit.mpa.rev", FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_mpa_m, { "M (markers)", "rdmakit.mpa.m", FT_BOOLEAN, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_mpa_c, { "C (CRC)", "rdmakit.mpa.c", FT_BOOLEAN, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_mpa_r, { "R (reject)", "rdmakit.mpa.r", FT_BOOLEAN, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_mpa_pd_len, { "PD_Length", "rdmakit.mpa.pd_length", FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_mpa_ird, { "IRD", "rdmakit.mpa.ird", FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_mpa_ord, { "ORD", "rdmakit.mpa.ord", FT_UINT16, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_mpa_lost, { "Framing lost", "rdmakit.mpa.sync_lost", FT_STRING, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_ddp_t, { "T (tagged)", "rdmakit.ddp.t", FT_BOOLEAN, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_ddp_l, { "L (last)", "rdmakit.ddp.l", FT_BOOLEAN, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_ddp_stag, { "STag", "rdmakit.ddp.stag", FT_UINT32, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_ddp_to, { "TO", "rdmakit.ddp.to", FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_ddp_qn, { "QN", "rdmakit.ddp.qn", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_ddp_msn, { "MSN", "rdmakit.ddp.msn", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_ddp_mo, { "MO", "rdmakit.ddp.mo", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_rdmap_opcode, { "RDMAP OpCode", "rdmakit.rdmap.opcode", FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_ulp_len, { "ULP payload length", "rdmakit.ddp.payload_len", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_rd_sink_stag, { "Data Sink STag", "rdmakit.rdmap.sink_stag", FT_UINT32, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_rd_sink_to, { "Data Sink Tagged Offset", "rdmakit.rdmap.sink_to", FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_rd_sz, { "RDMA Read Message Size", "rdmakit.rdmap.rdma_rd_sz", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_rd_src_stag, { "Data Source STag", "rdmakit.rdmap.src_stag", FT_UINT32, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_rd_src_to, { "Data Source Tagged Offset", "rdmakit.rdmap.src_to", FT_UINT64, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_term_layer, { "Terminate layer", "rdmakit.term.layer", FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_term_etype, { "Terminate EType", "rdmakit.term.etype", FT_UINT8, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_term_code, { "Terminate error code", "rdmakit.term.err_code", FT_UINT8, BASE_HEX, NULL, 0, NULL, HFILL } },
		{ &hf_term_text, { "Terminate meaning", "rdmakit.term.meaning", FT_STRING, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_ddp_msg_len, { "DDP message length", "rdmakit.ddp.msg.length", FT_UINT64, BASE_DEC, NULL, 0, "Untagged: MO + length of the last segment; tagged: bytes since the first segment", HFILL } },
		{ &hf_ddp_msg_data, { "DDP message data", "rdmakit.ddp.msg.data", FT_BYTES, BASE_NONE, NULL, 0, "The message's ULP payload, reassembled (preference reassemble)", HFILL } },
		{ &hf_ddp_msg_segs, { "DDP segments so far", "rdmakit.ddp.msg.segments", FT_UINT32, BASE_DEC, NULL, 0, NULL, HFILL } },
		{ &hf_ddp_msg_first, { "Message starts in frame", "rdmakit.ddp.msg.first_frame", FT_FRAMENUM, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_ddp_msg_gap, { "Segment missing", "rdmakit.ddp.msg.gap", FT_BOOLEAN, BASE_NONE, NULL, 0, "MO or TO does not continue the previous segment", HFILL } },
	};
	static gint *ett[] = { &ett_rdmakit, &ett_analysis, &ett_fpdu, &ett_msg };
	static ei_register_info ei_fixed[] = {
		{ &ei_lost, { "rdmakit.expert.lost", PI_SEQUENCE, PI_WARN, "PSNs lost", EXPFILL } },
		{ &ei_rtx, { "rdmakit.expert.retransmission", PI_SEQUENCE, PI_NOTE, "Retransmission (PSN behind the expected one) [IBTA Vol1 ch. 9]", EXPFILL } },
		{ &ei_gbn, { "rdmakit.expert.go_back_n", PI_SEQUENCE, PI_WARN, "Go-back-N episode starts [IBTA Vol1 ch. 9]", EXPFILL } },
		{ &ei_ooo, { "rdmakit.expert.out_of_order", PI_SEQUENCE, PI_WARN, "Out of order: a PSN reported lost arrived late [IBTA Vol1 ch. 9]", EXPFILL } },
		{ &ei_nak, { "rdmakit.expert.nak", PI_SEQUENCE, PI_WARN, "NAK", EXPFILL } },
		{ &ei_rnr, { "rdmakit.expert.rnr", PI_SEQUENCE, PI_NOTE, "RNR NAK", EXPFILL } },
		{ &ei_cnp, { "rdmakit.expert.cnp", PI_SEQUENCE, PI_NOTE, "Congestion notification packet [IBTA Vol1 A17.9.3]", EXPFILL } },
		{ &ei_fecn, { "rdmakit.expert.fecn", PI_SEQUENCE, PI_NOTE, "FECN set: congestion on the forward path [IBTA Annex A17 A17.9]", EXPFILL } },
		{ &ei_becn, { "rdmakit.expert.becn", PI_SEQUENCE, PI_NOTE, "BECN set [IBTA Annex A17 A17.9]", EXPFILL } },
		{ &ei_term, { "rdmakit.expert.terminate", PI_RESPONSE_CODE, PI_ERROR, "Terminate", EXPFILL } },
		{ &ei_msg_incomplete, { "rdmakit.expert.msg_incomplete", PI_SEQUENCE, PI_NOTE, "Message incomplete in the capture", EXPFILL } },
		{ &ei_fpdu_spans, { "rdmakit.expert.fpdu_spans", PI_REASSEMBLE, PI_CHAT, "MPA unit spans TCP segments", EXPFILL } },
		{ &ei_sync_lost, { "rdmakit.expert.sync_lost", PI_MALFORMED, PI_WARN, "MPA framing lost", EXPFILL } },
	};
	static ei_register_info ei_findings[RK_F_COUNT];
	expert_module_t *em;
	module_t *pm;

	proto_rdmakit = proto_register_protocol("rdmakit RDMA analysis", "rdmakit", "rdmakit");
	proto_register_field_array(proto_rdmakit, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	em = expert_register_protocol(proto_rdmakit);
	expert_register_field_array(em, ei_fixed, array_length(ei_fixed));
	for (unsigned int i = 0; i < RK_F_COUNT; i++) {
		const struct rk_finding_info *fi = rk_finding_info(i);
		int sev = fi->severity == RK_SEV_ERROR ? PI_ERROR :
			  fi->severity == RK_SEV_WARN ? PI_WARN : PI_NOTE;
		int group = strstr(fi->id, "crc") != NULL ? PI_CHECKSUM :
			    strncmp(fi->id, "frame.", 6) == 0 ? PI_MALFORMED : PI_PROTOCOL;

		ei_finding[i].ei = -1;
		ei_finding[i].hf = -1;
		memset(&ei_findings[i], 0, sizeof(ei_findings[i]));
		ei_findings[i].ids = &ei_finding[i];
		ei_findings[i].eiinfo.name = g_strdup_printf("rdmakit.expert.%s", fi->id);
		ei_findings[i].eiinfo.group = group;
		ei_findings[i].eiinfo.severity = sev;
		ei_findings[i].eiinfo.summary = g_strdup_printf("%s [%s]", fi->text, fi->spec_ref);
	}
	expert_register_field_array(em, ei_findings, RK_F_COUNT);

	pm = prefs_register_protocol(proto_rdmakit, NULL);
	prefs_register_bool_preference(pm, "check_icrc", "Validate the RoCE ICRC",
				       "Check the invariant CRC of RoCEv2/RoCEv1/IB packets "
				       "(captures from NICs often carry none)", &pref_check_icrc);
	prefs_register_bool_preference(pm, "reassemble", "Reassemble messages",
				       "Keep a copy of each message's payload (RoCE FIRST..LAST, DDP "
				       "segments by QN/MSN/MO and STag/TO) and show it as a bytes tab",
				       &pref_reassemble);
	prefs_register_uint_preference(pm, "pmtu", "Path MTU (0: infer)",
				       "Path MTU used for READ response PSN spans and payload checks",
				       10, &pref_pmtu);

	register_init_routine(state_init);
	register_cleanup_routine(state_cleanup);
	rdmakit_tap = register_tap("rdmakit");
	rkw_register_stats();
}

static void
proto_reg_handoff_rdmakit(void)
{
	rdmakit_handle = create_dissector_handle(dissect_rdmakit, proto_rdmakit);
	register_postdissector(rdmakit_handle);
}

void
plugin_register(void)
{
	static proto_plugin plug;

	plug.register_protoinfo = proto_register_rdmakit;
	plug.register_handoff = proto_reg_handoff_rdmakit;
	proto_register_plugin(&plug);
}
