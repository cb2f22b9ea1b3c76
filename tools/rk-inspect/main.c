/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-inspect: decode every RoCEv1/v2, native IB and iWARP packet of a pcap
 * or pcapng capture, one line per packet or a per-QP / per-connection
 * summary (text or JSON). See doc/inspect.md.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include "capture_in.h"
#include "filter.h"
#include "rk_cli.h"
#include "rk_insp_flow.h"
#include "app.h"
#include "inspect.h"
#include "live.h"
#include "rk_insp_iwarp.h"
#include "rk_insp_series.h"
#include "rk_insp_timing.h"
#include "rk_mad.h"
#include "output.h"
#include "rk_pkt.h"

/* -i: SIGINT and SIGTERM end the capture (then the summary as usual). */
static pcap_t *volatile live_pcap;
static volatile sig_atomic_t live_stop;

static void
on_stop(int sig)
{
	(void)sig;
	live_stop = 1;
	if (live_pcap != NULL)
		pcap_breakloop(live_pcap);
}

static int
map_linktype(int dlt, enum rk_linktype *out)
{
	switch (dlt) {
	case DLT_EN10MB:
		*out = RK_LINK_ETHERNET;
		return 0;
	case DLT_RAW:
#if defined(DLT_RAW) && DLT_RAW != 12
	case 12:
#endif
#if DLT_RAW != 14
	case 14: /* DLT_RAW on some BSDs */
#endif
	case 101: /* LINKTYPE_RAW */
		*out = RK_LINK_RAW;
		return 0;
	case DLT_LINUX_SLL:
		*out = RK_LINK_LINUX_SLL;
		return 0;
#ifdef DLT_LINUX_SLL2
	case DLT_LINUX_SLL2:
		*out = RK_LINK_LINUX_SLL2;
		return 0;
#endif
#ifdef DLT_ERF
	case DLT_ERF:
		*out = RK_LINK_ERF;
		return 0;
#endif
#ifdef DLT_IPV4
	case DLT_IPV4:
		*out = RK_LINK_IPV4;
		return 0;
#endif
#ifdef DLT_IPV6
	case DLT_IPV6:
		*out = RK_LINK_IPV6;
		return 0;
#endif
	default:
		return -1;
	}
}

static void
hold_write(struct app *a, const char *t, size_t len)
{
	fwrite(t, 1, len, a->out);
}

/* Write the waiting output up to the first line whose verdict is open. */
static void
hold_flush(struct app *a)
{
	struct hold *h = &a->hold;

	while (h->head < h->n && h->e[h->head].chain == NULL) {
		struct held *e = &h->e[h->head++];

		hold_write(a, e->text[0], e->len[0]);
		h->bytes -= e->len[0];
		free(e->text[0]);
	}
	if (h->head == h->n)
		h->head = h->n = 0;
}

/* The verdict on the waiting packets of @p chain: keep the text that says it. */
static void
hold_resolve(struct app *a, const void *chain, enum rk_insp_verdict v)
{
	struct hold *h = &a->hold;

	for (size_t i = h->head; i < h->n; i++) {
		struct held *e = &h->e[i];
		int keep = v == RK_INSP_VERDICT_LATE;

		if (e->chain != chain)
			continue;
		free(e->text[!keep]);
		h->bytes -= e->len[!keep];
		e->text[0] = e->text[keep];
		e->len[0] = e->len[keep];
		e->text[1] = NULL;
		e->chain = NULL;
	}
	hold_flush(a);
}

static void
settled(void *ctx, struct rk_insp_flow *flow, const void *chain, enum rk_insp_verdict v)
{
	(void)flow;
	hold_resolve(ctx, chain, v);
}

/* Queue one line (two for a verdict pending on @p chain of @p flow). */
static void
hold_push(struct app *a, char *t0, size_t l0, char *t1, size_t l1, const void *chain,
	  struct rk_insp_flow *flow)
{
	struct hold *h = &a->hold;

	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 256;
		struct held *n;

		if (h->head != 0) {
			/* Reuse the room already written out. */
			memmove(h->e, h->e + h->head, (h->n - h->head) * sizeof(*h->e));
			h->n -= h->head;
			h->head = 0;
		} else if ((n = realloc(h->e, cap * sizeof(*n))) != NULL) {
			h->e = n;
			h->cap = cap;
		}
	}
	if (h->n == h->cap) {
		/* Out of memory: decide now, lines in order still. */
		rk_insp_flows_settle(&a->flows, settled, a);
		if (t0 != NULL)
			hold_write(a, t0, l0);
		free(t0);
		free(t1);
		return;
	}
	h->e[h->n++] = (struct held){ .text = { t0, t1 }, .len = { l0, l1 }, .chain = chain,
				      .flow = flow };
	h->bytes += l0 + l1;
	hold_flush(a);
	/* A flow gone quiet must not hold the rest for ever. */
	while (h->head < h->n && (h->n - h->head > HOLD_MAX_LINES || h->bytes > HOLD_MAX_BYTES)) {
		const void *oldest = h->e[h->head].chain;

		rk_insp_flow_settle(&a->flows, h->e[h->head].flow, settled, a);
		if (h->head < h->n && h->e[h->head].chain == oldest)
			hold_resolve(a, oldest, RK_INSP_VERDICT_GO_BACK);
	}
}

/* Where a line goes: standard output, or a buffer while earlier ones wait. */
static FILE *
out_begin(struct app *a, char **buf, size_t *len, bool wait)
{
	FILE *f;

	if (!wait && a->hold.head == a->hold.n)
		return a->out;
	*buf = NULL;
	*len = 0;
	f = open_memstream(buf, len);
	if (f == NULL) {
		/* No memory to wait with: decide now. */
		rk_insp_flows_settle(&a->flows, settled, a);
		return a->out;
	}
	return f;
}

/* The line written to @p f by out_begin(): nothing to do, or a string. */
static bool
out_end(struct app *a, FILE *f, char **buf, size_t *len)
{
	if (f == a->out)
		return false;
	if (fclose(f) != 0) {
		free(*buf);
		*buf = NULL;
		*len = 0;
	}
	return true;
}

/* A line of a frame that does not wait for a verdict itself. */
#define OUT_LINE(a, stmt_with_f) do {					\
	char *buf_;							\
	size_t len_;							\
	FILE *f = out_begin((a), &buf_, &len_, false);			\
									\
	stmt_with_f;							\
	if (out_end((a), f, &buf_, &len_))				\
		hold_push((a), buf_, len_, NULL, 0, NULL, NULL);	\
} while (0)

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

static void
on_iw_event(void *ctx, const struct rk_insp_iw_event *ev)
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
		hold_resolve(a, seq.chain, seq.resolved);
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
			FILE *f = out_begin(a, &buf[i], &len[i], true);

			if (f == a->out) {
				/* Out of memory: every verdict was just taken as
				 * a retransmission, this one too. */
				if (i == 1)
					hold_write(a, buf[0], len[0]);
				else
					roce_line(a, f, fr, pkt, &seq, &found);
				free(buf[0]);
				return;
			}
			roce_line(a, f, fr, pkt, i ? &late : &seq, &found);
			out_end(a, f, &buf[i], &len[i]);
		}
		hold_push(a, buf[0], len[0], buf[1], len[1], seq.chain, flow);
		return;
	}
	OUT_LINE(a, roce_line(a, f, fr, pkt, &seq, &found));
}

static void
frame(struct app *a, const struct pcap_pkthdr *h, const uint8_t *data)
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

static const char *
dlt_name(int dlt)
{
	const char *n = pcap_datalink_val_to_name(dlt);
	enum rk_linktype l;

	/* libpcap names only its own platform's DLT_RAW value. */
	if (n == NULL && map_linktype(dlt, &l) == 0 && l == RK_LINK_RAW)
		return "RAW";
	return n != NULL ? n : "unknown";
}

/* iWARP frames are known per connection once the capture is read. */
static void
iwarp_totals(struct app *a)
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

/* The capture filter on @p p; said when it cannot be. @return 0 or -1. */
static int
set_capture_filter(struct app *a, pcap_t *p)
{
	struct bpf_program prog;
	int rc;

	if (p == NULL) {
		fprintf(stderr, "rk-inspect: %s: --filter: libpcap filters one link type; this "
			"pcapng has several\n", a->file);
		return -1;
	}
	if (pcap_compile(p, &prog, a->bpf, 1, PCAP_NETMASK_UNKNOWN) != 0) {
		fprintf(stderr, "rk-inspect: --filter '%s': %s\n", a->bpf, pcap_geterr(p));
		return -1;
	}
	rc = pcap_setfilter(p, &prog);
	if (rc != 0)
		fprintf(stderr, "rk-inspect: --filter '%s': %s\n", a->bpf, pcap_geterr(p));
	pcap_freecode(&prog);
	return rc == 0 ? 0 : -1;
}

static int
bare_read(pcap_t *p, struct app *a)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	uint64_t sum = 0;
	int rc;

	/* The baseline of the benchmark: libpcap's loop and nothing else
	 * but touching each frame's first byte. */
	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		a->tot.frames++;
		a->tot.bytes += h->len;
		if (h->caplen > 0)
			sum += data[0];
		if (a->count != 0 && a->tot.frames >= a->count)
			break;
	}
	/* The parity keeps the first-byte reads from being optimised away. */
	if (!a->quiet)
		fprintf(a->out, "frames %" PRIu64 " bytes %" PRIu64 " first-byte parity %" PRIu64
			"\n", a->tot.frames, a->tot.bytes, sum & 1);
	return rc == -1 ? -1 : 0;
}

/*
 * Open the capture on a stream with a 1 MiB buffer: libpcap reads record
 * by record through stdio, and the default 4 KiB buffer costs one read(2)
 * per few frames. @p seekable is set when ftello() works on the stream.
 * A gzip file (or seekable standard input) is read through zlib; a pcapng
 * file whose interfaces have several link types is left to capture_in.c:
 * then the stream comes back in @p *mixed and the return value is NULL.
 */
static pcap_t *
open_capture(const char *file, char *errbuf, bool *seekable, FILE **mixed, bool *live)
{
	static char iobuf[1 << 20];
	FILE *f;
	pcap_t *p;
	bool rewind_ok;

	*seekable = false;
	*mixed = NULL;
	*live = false;
	if (strcmp(file, "-") == 0)
		f = stdin;
	else
		f = fopen(file, "rb");
	if (f == NULL) {
		snprintf(errbuf, PCAP_ERRBUF_SIZE, "%s", strerror(errno));
		return NULL;
	}
	setvbuf(f, iobuf, _IOFBF, sizeof(iobuf));
	/* One seek makes stdio keep the file offset, so the ftello() per
	 * record that locates a bad record costs no system call. */
	*seekable = fseek(f, 0, SEEK_CUR) == 0;
	rewind_ok = *seekable;
	if (!*seekable && rk_insp_pipe_is_gzip(fileno(f)) == 0) {
		/* A plain capture on a pipe: read as it comes (a live feed). */
		*live = true;
	} else if (!*seekable) {
		/* Not a pipe that tee(2) can look into: zlib reads it, passing
		 * through what is not gzip. */
		int fd = dup(fileno(f));
		FILE *gz = fd >= 0 ? rk_insp_gzip_stream(fd) : NULL;

		if (gz != NULL)
			f = gz;
		else if (fd >= 0)
			close(fd);
	} else if (rk_insp_is_gzip(f)) {
		/* Offsets in the decompressed bytes would mislead: none. */
		int fd = dup(fileno(f));
		FILE *gz = NULL;

		if (fd >= 0 && lseek(fd, 0, SEEK_SET) == 0)
			gz = rk_insp_gzip_stream(fd);
		else if (fd >= 0)
			close(fd);
		if (f != stdin)
			fclose(f);
		if (gz == NULL) {
			snprintf(errbuf, PCAP_ERRBUF_SIZE, "gzip: %s", strerror(errno));
			return NULL;
		}
		f = gz;
		*seekable = false;
	}
	if (rewind_ok && rk_insp_pcapng_mixed(f)) {
		*mixed = f;
		return NULL;
	}
	p = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (p == NULL && rk_insp_gzip_error(f) != NULL) {
		size_t n = strlen(errbuf);

		snprintf(errbuf + n, PCAP_ERRBUF_SIZE - n, " (zlib: %s)", rk_insp_gzip_error(f));
	}
	if (p == NULL && f != stdin)
		fclose(f);
	return p;
}

/*
 * Why reading stopped before the end, with the record it stopped at:
 * libpcap's message, the record (pcap: its number; pcapng: the block after
 * the last frame, which need not hold a frame) and its byte offset when the
 * stream has one. A short read at the end of the file is a record cut by
 * the end of the file, be it the last one (a capture stopped mid-write) or
 * an earlier one whose length runs past the end: libpcap cannot tell them
 * apart, and neither are a complete capture.
 */
static void
describe_read_error(char *buf, size_t len, pcap_t *p, uint64_t frames,
		    bool at_eof, off_t off)
{
	char where[96], at[40] = "";

	if (off >= 0)
		snprintf(at, sizeof(at), " (byte %lld)", (long long)off);
	/* pcapng section headers carry major version 1, pcap files 2. */
	if (pcap_major_version(p) == 1)
		snprintf(where, sizeof(where), "the block after frame %" PRIu64 "%s", frames, at);
	else
		snprintf(where, sizeof(where), "record %" PRIu64 "%s", frames + 1, at);
	snprintf(buf, len, "%s capture: %s %s (libpcap: %s); the %" PRIu64 " %s "
		 "before it %s reported", at_eof ? "truncated" : "corrupt", where,
		 at_eof ? "runs past the end of the file" : "cannot be read",
		 pcap_geterr(p), frames, frames == 1 ? "frame" : "frames",
		 frames == 1 ? "is" : "are");
}

/*
 * A pcapng file whose interfaces have different link types (libpcap 1.10
 * refuses it): every frame read through capture_in.c, each decoded by its
 * interface's link type; frames of a type not decoded are counted.
 * @p names gets the link types, "+"-joined. @return 0, or -1 with @p err.
 */
static int
read_mixed(struct app *a, FILE *f, char *names, size_t nlen, char *err, size_t elen,
	   bool *at_eof)
{
	struct rk_insp_pcapng *ng = rk_insp_pcapng_open(f);
	struct rk_insp_pcapng_rec r;
	int rc;

	names[0] = '\0';
	if (ng == NULL) {
		snprintf(err, elen, "out of memory");
		fclose(f);
		return -1;
	}
	while ((rc = rk_insp_pcapng_next(ng, &r)) == 1) {
		struct pcap_pkthdr h = {
			.ts = { .tv_sec = (time_t)(r.ts_ns / 1000000000u),
				.tv_usec = (suseconds_t)(r.ts_ns % 1000000000u) },
			.caplen = r.caplen,
			.len = r.len,
		};

		if (names[0] == '\0') {
			/* The section's interfaces, once they are known. */
			int lt;

			for (uint32_t i = 0; (lt = rk_insp_pcapng_linktype(ng, i)) >= 0; i++) {
				size_t n = strlen(names);

				if (strcmp(dlt_name(lt), "unknown") == 0)
					snprintf(names + n, nlen - n, "%sLINKTYPE_%d",
						 i ? "+" : "", lt);
				else
					snprintf(names + n, nlen - n, "%s%s", i ? "+" : "",
						 dlt_name(lt));
			}
		}
		a->link_unknown = map_linktype(r.linktype, &a->link) != 0;
		frame(a, &h, r.data);
		if (a->count != 0 && a->tot.frames >= a->count)
			break;
	}
	if (rc == -1) {
		const char *why = rk_insp_pcapng_error(ng, at_eof);

		snprintf(err, elen, "%s capture: %s; the %" PRIu64 " %s before it %s reported",
			 *at_eof ? "truncated" : "corrupt", why,
			 a->tot.frames, a->tot.frames == 1 ? "frame" : "frames",
			 a->tot.frames == 1 ? "is" : "are");
		if (rk_insp_gzip_error(f) != NULL) {
			size_t n = strlen(err);

			snprintf(err + n, elen - n, " (zlib: %s)", rk_insp_gzip_error(f));
		}
	}
	rk_insp_pcapng_close(ng);
	fclose(f);
	return rc == -1 ? -1 : 0;
}

int
main(int argc, char **argv)
{
	struct app a;
	char errbuf[PCAP_ERRBUF_SIZE];
	char why[1024];
	pcap_t *p;
	struct pcap_pkthdr *h;
	const u_char *data;
	const char *read_error = NULL;
	char read_error_buf[PCAP_ERRBUF_SIZE + 256];
	bool at_eof = false, seekable = false;
	off_t rec_off = -1;
	FILE *pf = NULL, *mixed = NULL;
	char linktypes[160];
	int rc, status = 0;
	static char outbuf[1 << 16];

	memset(&a, 0, sizeof(a));
	a.summary_every = -1;
	rc = rk_insp_parse_args(&a, argc, argv);
	if (rc != 0) {
		if (rc == -1)
			rk_cli_hint("rk-inspect");
		return EXIT_BAD;
	}
	if (a.plot != NULL && rk_insp_gnuplot_check(why, sizeof(why)) != 0) {
		fprintf(stderr, "rk-inspect: %s\n", why);
		return EXIT_BAD;
	}
	a.out = stdout;
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	a.print_packets = !a.quiet && (a.mode == RK_INSP_LINES ||
				       a.mode == RK_INSP_PACKETS_JSON) &&
			  (a.csv == NULL || strcmp(a.csv, "-") != 0);

	/* An output that cannot be written is said before the analysis, not
	 * after; one that can is left as it is (opened to append, a file made
	 * for the check removed) until the run has a series to write into it. */
	for (int i = 0; i < 2; i++) {
		const char *path = i == 0 ? a.csv : a.plot;
		bool existed;
		FILE *t;

		if (path == NULL || strcmp(path, "-") == 0)
			continue;
		existed = access(path, F_OK) == 0;
		if ((t = fopen(path, "a")) == NULL) {
			fprintf(stderr, "rk-inspect: %s %s: %s\n", i == 0 ? "--csv" : "--plot",
				path, strerror(errno));
			return EXIT_BAD;
		}
		fclose(t);
		if (!existed)
			(void)unlink(path);
	}
	errbuf[0] = '\0';
	if (a.bare_read) {
		/* The benchmark baseline: libpcap as it comes. */
		p = pcap_open_offline_with_tstamp_precision(a.file,
							    PCAP_TSTAMP_PRECISION_NANO, errbuf);
	} else if (a.iface != NULL) {
		p = rk_insp_live_open(a.iface, errbuf, sizeof(errbuf));
		if (p == NULL) {
			fprintf(stderr, "rk-inspect: %s\n", errbuf);
			return EXIT_BAD;
		}
		a.live = true;
		live_pcap = p;
		if (pcap_setnonblock(p, 1, errbuf) != 0) {
			fprintf(stderr, "rk-inspect: %s: %s\n", a.iface, errbuf);
			pcap_close(p);
			return EXIT_BAD;
		}
		signal(SIGINT, on_stop);
		signal(SIGTERM, on_stop);
	} else {
		p = open_capture(a.file, errbuf, &seekable, &mixed, &a.live);
	}
	if (p == NULL && mixed == NULL) {
		/* libpcap's word for a file shorter than any capture header. */
		if (strstr(errbuf, "file header bytes") != NULL)
			fprintf(stderr, "rk-inspect: %s: not a capture: shorter than a pcap or "
				"pcapng file header (libpcap: %s)\n", a.file, errbuf);
		else
			fprintf(stderr, "rk-inspect: %s: %s\n", a.file, errbuf);
		return EXIT_BAD;
	}
	if (a.bare_read) {
		rc = bare_read(p, &a);
		pcap_close(p);
		fflush(stdout);
		return rc == 0 ? 0 : EXIT_BAD;
	}
	if (a.bpf != NULL && set_capture_filter(&a, p) != 0) {
		if (p != NULL)
			pcap_close(p);
		if (mixed != NULL)
			fclose(mixed);
		return EXIT_BAD;
	}
	if (p != NULL && map_linktype(pcap_datalink(p), &a.link) != 0) {
		fprintf(stderr, "rk-inspect: %s: link type %s (%d) not supported\n",
			a.file, dlt_name(pcap_datalink(p)), pcap_datalink(p));
		pcap_close(p);
		return EXIT_BAD;
	}
	if (rk_insp_flows_init(&a.flows, &a.fopts) != 0 ||
	    rk_insp_iw_init(&a.iw, &a.iwopts, on_iw_event, &a) != 0 ||
	    rk_insp_qos_init(&a.qos, &a.qopts) != 0 || rk_insp_timing_init(&a.timing) != 0 ||
	    rk_insp_cmconn_init(&a.cm) != 0) {
		fprintf(stderr, "rk-inspect: out of memory\n");
		return EXIT_BAD;
	}
	rk_insp_series_init(&a.series, a.interval_ns);
	if (mixed != NULL) {
		rc = read_mixed(&a, mixed, linktypes, sizeof(linktypes), read_error_buf,
				sizeof(read_error_buf), &at_eof);
		if (rc == -1) {
			read_error = read_error_buf;
			fprintf(stderr, "rk-inspect: %s: %s\n", a.file, read_error);
			status = EXIT_BAD;
		}
		goto analysed;
	}
	snprintf(linktypes, sizeof(linktypes), "%s", dlt_name(pcap_datalink(p)));

	/* Where the next record starts, to name it if it cannot be read. */
	if (seekable) {
		pf = pcap_file(p);
		rec_off = pf != NULL ? ftello(pf) : -1;
	}
	rk_insp_progress_start(&a.prog, !a.live ? 0 :
			       (uint64_t)((a.summary_every < 0 ? 1.0 : a.summary_every) * 1e9));
	/* 0: nothing from the interface (non-blocking): wait up to 100 ms
	 * for it, and look at the clock, so the running summary goes on
	 * while the link is quiet. */
	while ((rc = pcap_next_ex(p, &h, &data)) >= 0) {
		/* Non-blocking reads do not look at pcap_breakloop()'s flag. */
		if (live_stop) {
			rc = PCAP_ERROR_BREAK;
			break;
		}
		if (rc == 0) {
			struct pollfd pfd = { .fd = pcap_get_selectable_fd(p), .events = POLLIN };

			if (pfd.fd >= 0)
				(void)poll(&pfd, 1, 100);
			rk_insp_progress_tick(&a.prog, stderr, &a.tot, 0);
			continue;
		}
		frame(&a, h, data);
		if (a.live) {
			fflush(a.out);
			rk_insp_progress_tick(&a.prog, stderr, &a.tot, 0);
		}
		if (a.count != 0 && a.tot.frames >= a.count)
			break;
		if (rec_off >= 0)
			rec_off = ftello(pf);
	}
	if (rc == -1) {
		FILE *f = pcap_file(p);

		/* Whatever was read before a bad record is still reported,
		 * but the capture is not complete: exit 2 either way. */
		at_eof = f != NULL && feof(f);
		describe_read_error(read_error_buf, sizeof(read_error_buf), p,
				    a.tot.frames, at_eof, rec_off);
		if (rk_insp_gzip_error(f) != NULL) {
			size_t n = strlen(read_error_buf);

			snprintf(read_error_buf + n, sizeof(read_error_buf) - n, " (zlib: %s)",
				 rk_insp_gzip_error(f));
		}
		read_error = read_error_buf;
		fprintf(stderr, "rk-inspect: %s: %s\n", a.file, read_error);
		status = EXIT_BAD;
	} else if (rk_insp_gzip_error(pcap_file(p)) != NULL) {
		/* libpcap saw a clean end; zlib knows the stream was cut. */
		at_eof = true;
		snprintf(read_error_buf, sizeof(read_error_buf), "truncated capture: the gzip "
			 "stream ends early (zlib: %s); the %" PRIu64 " %s before it %s reported",
			 rk_insp_gzip_error(pcap_file(p)), a.tot.frames,
			 a.tot.frames == 1 ? "frame" : "frames", a.tot.frames == 1 ? "is" : "are");
		read_error = read_error_buf;
		fprintf(stderr, "rk-inspect: %s: %s\n", a.file, read_error);
		status = EXIT_BAD;
	}
	if (a.prog.lines != 0)
		rk_insp_progress_tick(&a.prog, stderr, &a.tot, 1);
	live_pcap = NULL;
	pcap_close(p);
analysed:
	/* Verdicts still open at the end: taken as retransmissions. */
	rk_insp_flows_end(&a.flows, a.print_packets ? settled : NULL, &a);
	hold_flush(&a);
	rk_insp_iw_finish(&a.iw);
	rk_insp_qos_finish(&a.qos);
	iwarp_totals(&a);

	if (!a.quiet && (a.mode == RK_INSP_SUMMARY || a.mode == RK_INSP_JSON)) {
		struct rk_insp_report rep = {
			.file = a.file,
			.linktype = linktypes,
			.totals = &a.tot,
			.flows = &a.flows,
			.iw = &a.iw,
			.qos = a.no_congestion ? NULL : &a.qos,
			.timing = a.no_congestion ? NULL : &a.timing,
			.series = a.interval_ns != 0 ? &a.series : NULL,
			.cm = &a.cm,
			.read_error = read_error,
			.read_error_at_eof = at_eof,
			.pmtu_option = a.fopts.pmtu,
			.icrc_checked = a.popts.check_icrc,
		};

		if (a.mode == RK_INSP_SUMMARY) {
			rk_insp_print_summary(a.out, &rep);
		} else {
			json_t *doc = rk_insp_summary_json(&rep);

			json_dumpf(doc, a.out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
			fputc('\n', a.out);
			json_decref(doc);
		}
	}
	if (a.interval_ns != 0 &&
	    rk_insp_series_write(&a.series, a.quiet ? NULL : a.out, a.csv, a.plot, a.file,
				 why, sizeof(why)) != 0) {
		fprintf(stderr, "rk-inspect: %s\n", why);
		status = EXIT_BAD;
	}
	if (fflush(stdout) != 0 && status == 0) {
		fprintf(stderr, "rk-inspect: write error: %s\n", strerror(errno));
		status = EXIT_BAD;
	}
	if (status == 0 && a.fail_on_findings && a.tot.error_findings != 0)
		status = EXIT_FINDINGS;

	rk_insp_iw_fini(&a.iw);
	rk_insp_flows_fini(&a.flows);
	rk_insp_qos_fini(&a.qos);
	rk_insp_timing_fini(&a.timing);
	rk_insp_series_fini(&a.series);
	rk_insp_cmconn_fini(&a.cm);
	free(a.hold.e);
	return status;
}
