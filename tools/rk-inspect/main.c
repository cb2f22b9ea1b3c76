/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-inspect: decode every RoCEv1/v2, native IB and iWARP packet of a pcap
 * or pcapng capture, one line per packet or a per-QP / per-connection
 * summary (text or JSON). See doc/inspect.md. main() here: the options'
 * checks, the read loop and the summary; frame_in.c analyses each frame,
 * held_lines.c orders its lines, capture_read.c opens the capture.
 */
#include <errno.h>
#include <inttypes.h>
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
		p = rk_insp_open_capture(a.file, errbuf, &seekable, &mixed, &a.live);
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
		rc = rk_insp_bare_read(p, &a);
		pcap_close(p);
		fflush(stdout);
		return rc == 0 ? 0 : EXIT_BAD;
	}
	if (a.bpf != NULL && rk_insp_set_capture_filter(&a, p) != 0) {
		if (p != NULL)
			pcap_close(p);
		if (mixed != NULL)
			fclose(mixed);
		return EXIT_BAD;
	}
	if (p != NULL && rk_insp_map_linktype(pcap_datalink(p), &a.link) != 0) {
		fprintf(stderr, "rk-inspect: %s: link type %s (%d) not supported\n",
			a.file, rk_insp_dlt_name(pcap_datalink(p)), pcap_datalink(p));
		pcap_close(p);
		return EXIT_BAD;
	}
	if (rk_insp_flows_init(&a.flows, &a.fopts) != 0 ||
	    rk_insp_iw_init(&a.iw, &a.iwopts, rk_insp_on_iw_event, &a) != 0 ||
	    rk_insp_qos_init(&a.qos, &a.qopts) != 0 || rk_insp_timing_init(&a.timing) != 0 ||
	    rk_insp_cmconn_init(&a.cm) != 0) {
		fprintf(stderr, "rk-inspect: out of memory\n");
		return EXIT_BAD;
	}
	rk_insp_series_init(&a.series, a.interval_ns);
	if (mixed != NULL) {
		rc = rk_insp_read_mixed(&a, mixed, linktypes, sizeof(linktypes), read_error_buf,
					sizeof(read_error_buf), &at_eof);
		if (rc == -1) {
			read_error = read_error_buf;
			fprintf(stderr, "rk-inspect: %s: %s\n", a.file, read_error);
			status = EXIT_BAD;
		}
		goto analysed;
	}
	snprintf(linktypes, sizeof(linktypes), "%s", rk_insp_dlt_name(pcap_datalink(p)));

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
		rk_insp_analyse_frame(&a, h, data);
		if (a.live) {
			fflush(a.out);
			rk_insp_progress_tick(&a.prog, stderr, &a.tot, 0);
		}
		if (a.count != 0 && a.tot.frames >= a.count)
			break;
		/* an --interval too short for the capture: said at once, not
		 * after every frame's line (rk_insp_series_write() says it) */
		if (a.interval_ns != 0 && a.series.overflow)
			break;
		if (rec_off >= 0)
			rec_off = ftello(pf);
	}
	if (rc == -1) {
		FILE *f = pcap_file(p);

		/* Whatever was read before a bad record is still reported,
		 * but the capture is not complete: exit 2 either way. */
		at_eof = f != NULL && feof(f);
		rk_insp_describe_read_error(read_error_buf, sizeof(read_error_buf), p,
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
	rk_insp_flows_end(&a.flows, a.print_packets ? rk_insp_hold_settled : NULL, &a);
	rk_insp_hold_flush(&a);
	rk_insp_iw_finish(&a.iw);
	rk_insp_qos_finish(&a.qos);
	rk_insp_iwarp_totals(&a);

	/* the read stopped when the series was full: the report says so too
	 * (rk_insp_series_write() below says it on stderr) */
	if (read_error == NULL && a.interval_ns != 0 && a.series.overflow) {
		snprintf(read_error_buf, sizeof(read_error_buf), "--interval: more than %u "
			 "intervals: the read stopped after %" PRIu64 " %s", RK_INSP_SERIES_MAX,
			 a.tot.frames, a.tot.frames == 1 ? "frame" : "frames");
		read_error = read_error_buf;
	}
	if (!a.quiet && (a.mode == RK_INSP_SUMMARY || a.mode == RK_INSP_JSON)) {
		struct rk_insp_report rep = {
			.file = a.file,
			.interface = a.iface != NULL,
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
