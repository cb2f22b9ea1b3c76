/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-inspect's per-packet text lines: RoCE/IB, PAUSE and PFC, frames not
 * decoded as RDMA that raised findings, iWARP events; and the addresses
 * and ICRC words the per-packet JSON (packet_json.c) shares. Field names
 * follow the specs (IBTA Vol1 9.2-9.3, RFC 5040/5041/5044).
 */
#include "output.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "rk_bth.h"
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

void
rk_insp_pkt_addrs(const struct rk_pkt *pkt, char *src, char *dst, size_t len)
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

const char *
rk_insp_icrc_verdict(const struct rk_pkt *pkt, bool json)
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

void
rk_insp_frame_addrs(const struct rk_pkt *pkt, char *src, char *dst, size_t len)
{
	if (pkt->layers & (RK_L_IPV4 | RK_L_IPV6 | RK_L_GRH | RK_L_LRH | RK_L_ETH)) {
		rk_insp_pkt_addrs(pkt, src, dst, len);
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

	rk_insp_frame_addrs(pkt, src, dst, sizeof(src));
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
	sb_printf(&b, " len=%u ICRC=%s", pkt->payload_len, rk_insp_icrc_verdict(pkt, false));
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

	rk_insp_iw_endpoint(src, sizeof(src), ev->conn, ev->dir);
	rk_insp_iw_endpoint(dst, sizeof(dst), ev->conn, !ev->dir);
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
