/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-inspect's analysis of one frame: the totals, the per-QP, iWARP, QoS,
 * timing and CM analyses it feeds, and its line when packets are printed.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <pcap/pcap.h>

#include "app.h"
#include "filter.h"
#include "inspect.h"
#include "output.h"
#include "rk_insp_flow.h"
#include "rk_insp_iwarp.h"
#include "rk_insp_series.h"
#include "rk_insp_timing.h"
#include "rk_mad.h"
#include "rk_pkt.h"

static void
count_findings(struct app *a, const struct rk_findings *f)
{
	for (unsigned int i = 0; i < f->count; i++) {
		const struct rk_finding_info *fi = rk_finding_info(f->list[i].id);

		if (fi == NULL)
			continue;
		a->tot.findings[f->list[i].id]++;
		if (fi->severity == RK_SEV_ERROR)
			a->tot.error_findings++;
	}
}

void
rk_insp_on_iw_event(void *ctx, const struct rk_insp_iw_event *ev)
{
	struct app *a = ctx;

	count_findings(a, &ev->findings);
	switch (ev->kind) {
	case RK_INSP_IW_FPDU:
		a->tot.fpdus++;
		if (ev->crc == RK_INSP_CRC_BAD)
			a->tot.mpa_crc_bad++;
		break;
	case RK_INSP_IW_MPA_REQUEST:
		a->tot.mpa_requests++;
		break;
	case RK_INSP_IW_MPA_REPLY:
		a->tot.mpa_replies++;
		break;
	default:
		break;
	}
	if (!a->print_packets || !a->show || !rk_insp_filter_findings(&a->filt, &ev->findings))
		return;
	if (a->mode == RK_INSP_PACKETS_JSON)
		OUT_LINE(a, rk_insp_json_line(f, rk_insp_iw_json(ev)));
	else
		OUT_LINE(a, rk_insp_print_iw_line(f, ev));
}

/*
 * Findings of a frame outside the per-QP analysis: always counted, and
 * shown as a line of their own so none is silent.
 */
static void
other_frame(struct app *a, const struct rk_pkt *pkt, const struct rk_insp_frame *fr)
{
	count_findings(a, &pkt->findings);
	if (!a->print_packets || (pkt->findings.count == 0 && pkt->findings.dropped == 0) ||
	    !a->show || !rk_insp_filter_findings(&a->filt, &pkt->findings))
		return;
	if (a->mode == RK_INSP_PACKETS_JSON)
		OUT_LINE(a, rk_insp_json_line(f, rk_insp_frame_json(fr, pkt)));
	else
		OUT_LINE(a, rk_insp_print_frame_line(f, fr, pkt));
}

static void
roce_line(const struct app *a, FILE *f, const struct rk_insp_frame *fr, const struct rk_pkt *pkt,
	  const struct rk_insp_seq_result *seq, const struct rk_findings *found)
{
	if (a->mode == RK_INSP_PACKETS_JSON)
		rk_insp_json_line(f, rk_insp_roce_json(fr, pkt, seq, found));
	else
		rk_insp_print_roce_line(f, fr, pkt, seq, found);
}

static void
bth_frame(struct app *a, const struct rk_pkt *pkt, const struct rk_insp_frame *fr)
{
	struct rk_insp_roce r;
	struct rk_insp_seq_result seq;
	struct rk_findings found = pkt->findings;
	struct rk_insp_flow *flow;
	struct rk_mad mad;

	if (pkt->truncated)
		a->tot.icrc_unchecked++;
	else if (pkt->icrc_status == RK_ICRC_GOOD)
		a->tot.icrc_good++;
	else if (pkt->icrc_status == RK_ICRC_BAD)
		a->tot.icrc_bad++;
	else
		a->tot.icrc_unchecked++;

	rk_insp_roce_from_pkt(&r, pkt, fr->no);
	r.ts_ns = fr->ts_ns;
	if (r.key.dest_qp == 1 && r.transport == RK_TR_UD && !a->no_congestion)
		rk_insp_timing_cm(&a->timing, pkt);
	if (rk_pkt_mad(pkt, &mad, NULL) == 1)
		(void)rk_insp_cmconn_mad(&a->cm, r.key.src, r.key.dst, r.key.lid, &mad, fr->no);
	flow = rk_insp_flow_packet(&a->flows, &r, &found, &seq);
	if (!a->no_congestion)
		rk_insp_qos_packet(&a->qos, flow != NULL ? &flow->qos : NULL, r.key.src, r.key.dst,
				   &r.qos, rk_insp_qos_role_of(r.opflags), r.wirelen, fr->ts_ns);
	if (flow != NULL && !a->no_congestion) {
		rk_insp_qos_flow(&a->qos, &flow->qos, r.key.src, r.key.dst, &r.qos,
				 rk_insp_qos_role_of(r.opflags), r.psn, fr->ts_ns);
		rk_insp_timing_packet(&a->timing, flow, &r, &seq);
	}
	if (a->row != NULL) {
		bool dup = flow != NULL && seq.note == RK_INSP_SEQ_DUP && !seq.pending;

		a->row->payload_bytes += dup ? 0 : r.payload_len;
		a->row->rtx_frames += dup;
		a->row->ce += r.qos.has_ip && r.qos.ecn == RK_INSP_ECN_CE;
		a->row->cnps += (r.opflags & RK_OPF_CNP) != 0;
	}
	if (flow != NULL)
		rk_insp_flow_count_findings(flow, &found);
	else if (a->flows.untracked_packets != 0 && !a->warned_untracked) {
		a->warned_untracked = true;
		fprintf(stderr, "rk-inspect: %s: frame %" PRIu64 ": flow table full "
			"(--max-flows %" PRIu64 "): new QP flows from here on are "
			"counted, not analysed\n", a->file, fr->no,
			a->flows.opts.max_flows);
	}
	count_findings(a, &found);
	if (!a->print_packets)
		return;
	if (seq.resolved != RK_INSP_VERDICT_NONE)
		rk_insp_hold_resolve(a, seq.chain, seq.resolved);
	if (!a->show || !rk_insp_filter_findings(&a->filt, &found))
		return;
	if (seq.pending) {
		/* Both verdicts now; a later packet of its sequence picks one. */
		struct rk_insp_seq_result late = seq;
		char *buf[2] = { NULL, NULL };
		size_t len[2] = { 0, 0 };

		late.note = RK_INSP_SEQ_LATE;
		late.rtx = seq.pending_rtx;
		late.rtx_start = false;
		late.missing = 0;
		for (int i = 0; i < 2; i++) {
			FILE *f = rk_insp_line_begin(a, &buf[i], &len[i], true);

			if (f == a->out) {
				/* Out of memory: every verdict was just taken as
				 * a retransmission, this one too. */
				if (i == 1)
					rk_insp_hold_write(a, buf[0], len[0]);
				else
					roce_line(a, f, fr, pkt, &seq, &found);
				free(buf[0]);
				return;
			}
			roce_line(a, f, fr, pkt, i ? &late : &seq, &found);
			rk_insp_line_end(a, f, &buf[i], &len[i]);
		}
		rk_insp_hold_push(a, buf[0], len[0], buf[1], len[1], seq.chain, flow);
		return;
	}
	OUT_LINE(a, roce_line(a, f, fr, pkt, &seq, &found));
}

void
rk_insp_analyse_frame(struct app *a, const struct pcap_pkthdr *h, const uint8_t *data)
{
	struct rk_pkt pkt;
	struct rk_insp_frame fr;
	uint64_t ts = (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec;
	uint32_t wirelen = h->len < h->caplen ? h->caplen : h->len;

	a->tot.frames++;
	a->tot.bytes += wirelen;
	a->tot.captured_bytes += h->caplen;
	if (h->caplen < h->len)
		a->tot.truncated_frames++;
	if (!a->have_ts0) {
		a->have_ts0 = true;
		a->ts0 = ts;
		a->tot.first_ts_ns = ts;
	} else if (ts < a->ts_prev && a->tot.ts_backwards++ == 0) {
		fprintf(stderr, "rk-inspect: %s: frame %" PRIu64 " is stamped %.9f s before the "
			"frame before it (a merged or re-stamped capture?): times, rates and "
			"latencies that span such frames may be off, and a frame stamped before "
			"the first counts at the first's time\n",
			a->file, a->tot.frames, (double)(a->ts_prev - ts) / 1e9);
	}
	a->ts_prev = ts;
	a->tot.last_ts_ns = ts;
	fr.no = a->tot.frames;
	/* Out-of-order timestamps print as 0 rather than wrapping. */
	fr.ts_ns = ts >= a->ts0 ? ts - a->ts0 : 0;
	a->row = a->interval_ns != 0 ? rk_insp_series_at(&a->series, fr.ts_ns) : NULL;
	if (a->row != NULL) {
		a->row->frames++;
		a->row->bytes += wirelen;
	}
	if (a->link_unknown) {
		a->tot.unknown_linktype_frames++;
		a->tot.other_frames++;
		return;
	}

	if (rk_pkt_parse(&pkt, data, h->caplen, wirelen, a->link, &a->popts) != 0) {
		a->tot.parse_errors++;
		a->tot.other_frames++;
		return;
	}
	a->show = rk_insp_filter_frame(&a->filt, &pkt, fr.ts_ns);
	switch (pkt.kind) {
	case RK_PKT_ROCEV2:
	case RK_PKT_ROCEV1:
	case RK_PKT_IB:
		if (pkt.kind == RK_PKT_ROCEV2)
			a->tot.rocev2_frames++;
		else if (pkt.kind == RK_PKT_ROCEV1)
			a->tot.rocev1_frames++;
		else
			a->tot.ib_frames++;
		a->tot.rdma_frames++;
		a->tot.rdma_bytes += wirelen;
		if (rk_pkt_has_bth(&pkt)) {
			bth_frame(a, &pkt, &fr);
		} else {
			/* Too short for a BTH: only the findings say why. */
			other_frame(a, &pkt, &fr);
			a->tot.icrc_unchecked++;
		}
		break;
	case RK_PKT_TCP:
		a->tot.tcp_frames++;
		other_frame(a, &pkt, &fr);
		rk_insp_iw_frame(&a->iw, &pkt, fr.no, fr.ts_ns);
		break;
	case RK_PKT_PAUSE:
	case RK_PKT_PFC:
		if (a->row != NULL)
			a->row->pause_frames++;
		if (pkt.kind == RK_PKT_PAUSE)
			a->tot.pause_frames++;
		else
			a->tot.pfc_frames++;
		if (!a->no_congestion)
			rk_insp_qos_pause(&a->qos, pkt.kind == RK_PKT_PFC, pkt.pfc_class_enable,
					  pkt.pause_quanta, fr.ts_ns);
		if (a->print_packets && a->mode == RK_INSP_LINES) {
			count_findings(a, &pkt.findings);
			if (a->show && rk_insp_filter_findings(&a->filt, &pkt.findings))
				OUT_LINE(a, rk_insp_print_mac_control_line(f, &fr, &pkt));
		} else {
			other_frame(a, &pkt, &fr);
		}
		break;
	default:
		a->tot.other_frames++;
		other_frame(a, &pkt, &fr);
		break;
	}
}

/* iWARP frames are known per connection once the capture is read. */
void
rk_insp_iwarp_totals(struct app *a)
{
	for (const struct rk_insp_iw_conn *c = a->iw.head; c != NULL; c = c->next) {
		if (!rk_insp_iw_is_iwarp(c))
			continue;
		for (int d = 0; d < 2; d++) {
			a->tot.iwarp_frames += c->dir[d].packets;
			a->tot.rdma_frames += c->dir[d].packets;
			a->tot.rdma_bytes += c->dir[d].bytes;
		}
	}
}
