/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-inspect's text summary (-s): totals, one block per QP flow and per
 * iWARP connection, the QoS view (qos_out.c), the findings.
 */
#include "output.h"

#include <inttypes.h>

#include "rk_bth.h"
#include "rk_opcode.h"
#include "rk_xeth.h"

static void
print_findings_counts(FILE *out, const char *indent, const uint32_t *counts)
{
	bool any = false;

	for (int i = 0; i < RK_F_COUNT; i++) {
		if (counts[i] == 0)
			continue;
		fprintf(out, "%s%s=%u", any ? ", " : indent,
			rk_finding_info((enum rk_finding_id)i)->id, counts[i]);
		any = true;
	}
	if (any)
		fputc('\n', out);
}

static void
print_flow(FILE *out, const struct rk_insp_flows *t, const struct rk_insp_cmconns *cm,
	   bool views, const struct rk_insp_flow *f)
{
	char src[64], dst[64];
	uint32_t pmtu = rk_insp_flow_pmtu(t, f);

	rk_insp_flow_addrs(f, src, dst, sizeof(src));
	fprintf(out, "%s > %s DestQP=0x%06x %s %s: %" PRIu64 " packets, %" PRIu64
		" bytes (%" PRIu64 " payload), %" PRIu64 " messages",
		src, dst, f->key.dest_qp,
		rk_pkt_kind_name((enum rk_pkt_kind)f->key.kind),
		rk_transport_name((enum rk_transport)f->transport), f->packets, f->bytes,
		f->payload_bytes, f->messages);
	if (pmtu != 0)
		fprintf(out, ", PMTU %u", pmtu);
	fputc('\n', out);
	fprintf(out, "    opcodes:");
	for (unsigned int i = 0; i < f->nops; i++) {
		const char *n = rk_insp_opcode_name(f->ops[i].opcode);

		if (n != NULL)
			fprintf(out, "%s %s=%" PRIu64, i ? "," : "", n, f->ops[i].count);
		else
			fprintf(out, "%s 0x%02x=%" PRIu64, i ? "," : "", f->ops[i].opcode,
				f->ops[i].count);
	}
	if (f->ops_other)
		fprintf(out, "%s other=%" PRIu64, f->nops ? "," : "", f->ops_other);
	if (f->nops == 0 && f->ops_other == 0)
		fputs(" none", out);
	fputc('\n', out);
	if (f->req.valid) {
		fprintf(out, "    request PSN %u..%u: gaps=%" PRIu64 " (missing %" PRIu64
			": %" PRIu64 " first transmission, %" PRIu64 " retransmission)"
			" duplicates=%" PRIu64 " go-back=%" PRIu64 " resyncs=%" PRIu64,
			f->req.first, f->req.last, f->req.gaps + f->req.rtx_gaps,
			f->req.missing + f->req.rtx_missing, f->req.missing,
			f->req.rtx_missing, f->req.duplicates, f->req.rtx_episodes,
			f->req.resyncs);
		/* Shown when seen, so captures in order read as before. */
		if (f->req.reordered != 0)
			fprintf(out, " reordered=%" PRIu64, f->req.reordered);
		fputc('\n', out);
	}
	if (f->resp.valid) {
		fprintf(out, "    response PSN %u..%u: ACK=%" PRIu64 " atomic ACK=%" PRIu64
			" READ responses=%" PRIu64 " gaps=%" PRIu64 " duplicates=%" PRIu64,
			f->resp.first, f->resp.last, f->acks, f->atomic_acks,
			f->read_resp_messages, f->resp.gaps, f->resp.duplicates);
		if (f->resp.reordered != 0)
			fprintf(out, " reordered=%" PRIu64, f->resp.reordered);
		if (f->copies.taken_back != 0)
			fprintf(out, " late-by-count=%" PRIu64, f->copies.taken_back);
		fputc('\n', out);
	}
	if (f->naks_total || f->rnr_naks) {
		fprintf(out, "    NAK=%" PRIu64, f->naks_total);
		for (int i = 0; i < 32; i++)
			if (f->naks[i])
				fprintf(out, " [%s]=%" PRIu64, rk_aeth_nak_name((uint8_t)i),
					f->naks[i]);
		fprintf(out, " RNR=%" PRIu64, f->rnr_naks);
		for (int i = 0; i < 32; i++)
			if (f->rnr_timer[i])
				fprintf(out, " [timer %d]=%" PRIu64, i, f->rnr_timer[i]);
		fputc('\n', out);
	}
	if (f->cnps || f->fecn || f->becn)
		fprintf(out, "    CNP=%" PRIu64 " FECN=%" PRIu64 " BECN=%" PRIu64 "\n",
			f->cnps, f->fecn, f->becn);
	if (f->icrc_bad || f->truncated)
		fprintf(out, "    ICRC bad=%" PRIu64 " snaplen-cut=%" PRIu64 "\n",
			f->icrc_bad, f->truncated);
	if (views) {
		rk_insp_print_flow_timing(out, f);
		rk_insp_print_flow_qos(out, f);
	}
	rk_insp_print_flow_cm(out, cm, f);
	print_findings_counts(out, "    findings: ", f->findings);
}

static void
print_conn(FILE *out, const struct rk_insp_iw_conn *c, bool views)
{
	char a[96], b[96];

	rk_insp_iw_endpoint(a, sizeof(a), c, 0);
	rk_insp_iw_endpoint(b, sizeof(b), c, 1);
	fprintf(out, "%s > %s iWARP: %" PRIu64 " packets, %" PRIu64 " bytes\n", a, b,
		c->dir[0].packets + c->dir[1].packets, c->dir[0].bytes + c->dir[1].bytes);
	if (c->joined_mid)
		fprintf(out, "    joined mid-connection: no SYN, no MPA Request/Reply seen "
			"(initiator: the higher port)\n");
	for (int d = 0; d < 2; d++) {
		const struct rk_insp_iw_dir *x = &c->dir[d];
		int n_ops = 0;

		fprintf(out, "    %s: %" PRIu64 " packets, stream %" PRIu64 " bytes, "
			"out of order %" PRIu64 " segments (%" PRIu64 " bytes), "
			"retransmitted %" PRIu64 " bytes, gaps %" PRIu64 " (%" PRIu64
			" bytes)\n",
			d == 0 ? "initiator" : "responder", x->packets, x->tcp.delivered,
			x->tcp.ooo_segments, x->tcp.ooo_data, x->tcp.rtx_bytes,
			x->tcp.gaps, x->tcp.gap_bytes);
		if (x->tcp.rtx_bytes != 0)
			fprintf(out, "      retransmitted bytes compared with the first copy: %"
				PRIu64 ", segments differing: %" PRIu64 "\n",
				x->tcp.rtx_checked, x->tcp.rtx_conflicts);
		if (c->joined_mid && x->mid_state == RK_INSP_IW_MID_SYNCED)
			fprintf(out, "      framing found at seq %u: markers=%s CRC=%s, %" PRIu64
				" bytes skipped before it\n", x->sync_seq,
				x->sync_params.markers ? "yes" : "no",
				x->sync_params.crc ? "yes" : "no", x->mid_skipped);
		else if (c->joined_mid)
			fprintf(out, "      framing not found: %" PRIu64 " bytes skipped\n",
				x->mid_skipped);
		if (x->mpa_seen)
			fprintf(out, "      MPA Rev=%u markers=%s CRC=%s%s PD_Length=%u\n",
				x->rev, x->markers ? "yes" : "no", x->crc ? "yes" : "no",
				x->reject ? " REJECT" : "", x->pd_len);
		fprintf(out, "      FPDUs=%" PRIu64 " messages=%" PRIu64 " CRC errors=%" PRIu64
			" sync lost=%" PRIu64 " terminates=%" PRIu64 "\n",
			x->fpdus, x->messages, x->crc_errors, x->sync_lost, x->terminates);
		fprintf(out, "      opcodes:");
		for (int i = 0; i < 16; i++)
			if (x->rdmap_ops[i])
				fprintf(out, "%s %s=%" PRIu64, n_ops++ ? "," : "",
					rk_rdmap_opcode_name((uint8_t)i), x->rdmap_ops[i]);
		if (n_ops == 0)
			fputs(" none", out);
		fputc('\n', out);
		if (views)
			rk_insp_print_iw_timing(out, x);
		for (uint64_t i = 0; i < x->terminates && i < 4; i++) {
			const char *txt = rk_rdmap_term_text(x->term[i].layer,
							     x->term[i].etype,
							     x->term[i].err_code);

			fprintf(out, "      Terminate frame %" PRIu64 ": %u/%u/0x%02x %s\n",
				x->term[i].frame, x->term[i].layer, x->term[i].etype,
				x->term[i].err_code, txt != NULL ? txt : "");
		}
	}
	print_findings_counts(out, "    findings: ", c->findings);
}

void
rk_insp_print_summary(FILE *out, const struct rk_insp_report *rep)
{
	const struct rk_insp_totals *t = rep->totals;
	bool any = false;

	fprintf(out, "%s %s (%s)\n", rep->interface ? "interface" : "file", rep->file,
		rep->linktype != NULL ? rep->linktype : "?");
	/* frames the snap length cut, not a capture file that ends mid-record
	 * (that is the "read error: truncated capture" line) */
	fprintf(out, "frames %" PRIu64 ", RDMA frames %" PRIu64 ", snaplen-cut %" PRIu64
		", bytes %" PRIu64 "\n", t->frames, t->rdma_frames, t->truncated_frames,
		t->bytes);
	/* iWARP frames are TCP frames of iWARP connections: the other TCP
	 * frames are listed apart so the kinds add up to the frames. */
	fprintf(out, "RoCEv2 %" PRIu64 ", RoCEv1 %" PRIu64 ", IB %" PRIu64 ", iWARP %" PRIu64
		", other TCP %" PRIu64 ", PAUSE %" PRIu64 ", PFC %" PRIu64 ", other %" PRIu64
		"\n", t->rocev2_frames, t->rocev1_frames, t->ib_frames, t->iwarp_frames,
		t->tcp_frames - t->iwarp_frames, t->pause_frames, t->pfc_frames,
		t->other_frames);
	if (rep->icrc_checked)
		fprintf(out, "ICRC good %" PRIu64 ", bad %" PRIu64 ", unchecked %" PRIu64 "\n",
			t->icrc_good, t->icrc_bad, t->icrc_unchecked);
	else
		fprintf(out, "ICRC not checked (--no-icrc)\n");
	if (t->fpdus || t->mpa_requests)
		fprintf(out, "MPA requests %" PRIu64 ", replies %" PRIu64 ", FPDUs %" PRIu64
			", CRC bad %" PRIu64 "\n", t->mpa_requests, t->mpa_replies, t->fpdus,
			t->mpa_crc_bad);
	if (rep->read_error != NULL)
		fprintf(out, "read error: %s\n", rep->read_error);
	if (t->ts_backwards != 0)
		fprintf(out, "timestamps: %" PRIu64 " frame%s stamped before the frame before\n",
			t->ts_backwards, t->ts_backwards == 1 ? "" : "s");

	if (rep->flows != NULL && rep->flows->untracked_packets != 0)
		fprintf(out, "untracked flows %" PRIu64 " (%" PRIu64 " packets): "
			"--max-flows reached\n", rep->flows->untracked_flows,
			rep->flows->untracked_packets);

	if (rep->flows != NULL && rep->flows->head != NULL) {
		fprintf(out, "\nQPs (%" PRIu64 " flow%s):\n", rep->flows->nflows,
			rep->flows->nflows == 1 ? "" : "s");
		for (const struct rk_insp_flow *f = rep->flows->head; f != NULL; f = f->next)
			print_flow(out, rep->flows, rep->cm, rep->timing != NULL, f);
	}
	if (rep->iw != NULL && rep->iw->niwarp != 0) {
		fprintf(out, "\niWARP connections (%" PRIu64 "):\n", rep->iw->niwarp);
		for (const struct rk_insp_iw_conn *c = rep->iw->head; c != NULL; c = c->next)
			if (rk_insp_iw_is_iwarp(c))
				print_conn(out, c, rep->timing != NULL);
	}
	rk_insp_print_cm(out, rep->cm);
	if (rep->qos != NULL)
		rk_insp_print_qos(out, rep->qos);
	for (int i = 0; i < RK_F_COUNT; i++) {
		const struct rk_finding_info *fi;

		if (t->findings[i] == 0)
			continue;
		if (!any)
			fprintf(out, "\nfindings:\n");
		any = true;
		fi = rk_finding_info((enum rk_finding_id)i);
		fprintf(out, "  %-36s %-7s %8" PRIu64 "  %s\n", fi->id,
			rk_severity_name(fi->severity), t->findings[i], fi->text);
	}
}
