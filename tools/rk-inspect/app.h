/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file app.h
 * rk-inspect's state: the options parsed from the command line
 * (args.c) and what main.c keeps while it reads a capture; the functions
 * the tool's files share (held_lines.c, frame_in.c, capture_read.c).
 */
#ifndef RK_INSP_APP_H
#define RK_INSP_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <pcap/pcap.h>

#include "filter.h"
#include "inspect.h"
#include "live.h"
#include "rk_insp_flow.h"
#include "rk_insp_cmconn.h"
#include "rk_insp_iwarp.h"
#include "rk_insp_series.h"
#include "rk_insp_timing.h"
#include "rk_pkt.h"

#define EXIT_FINDINGS 1
#define EXIT_BAD 2

/*
 * Output that waits: a packet filling PSNs counted missing gets its verdict
 * (retransmission or out of order) from a later packet of its sequence
 * (flow.h, rk_insp_seq_result), so its line is kept in both versions, and
 * every line after it waits, in order.
 */
struct held {
	char *text[2];                /* [0] the retransmission verdict or the only text, [1] LATE */
	size_t len[2];
	const void *chain;            /* waiting for the verdict on this sequence, or NULL */
	struct rk_insp_flow *flow;    /* its flow */
};

struct hold {
	struct held *e;
	size_t head, n, cap;          /* waiting: e[head..n) */
	size_t bytes;
};

/* Past these the oldest waiting verdict is taken as a retransmission. */
#define HOLD_MAX_LINES (1u << 16)
#define HOLD_MAX_BYTES (16u << 20)

struct app {
	/* options */
	enum rk_insp_mode mode;
	bool quiet;
	bool fail_on_findings;
	bool bare_read;
	bool no_congestion;           /* --no-congestion: no QoS view, no timing */
	uint64_t count;
	const char *file;
	struct rk_parse_opts popts;
	struct rk_insp_flow_opts fopts;
	struct rk_insp_iw_opts iwopts;
	struct rk_insp_qos_opts qopts;
	uint64_t interval_ns;         /* --interval, 0 when not given */
	const char *csv, *plot;       /* --csv FILE ("-": stdout), --plot FILE.png */

	/* state */
	enum rk_linktype link;
	bool link_unknown;            /* this frame's interface: a link type not decoded */
	FILE *out;
	struct rk_insp_totals tot;
	struct rk_insp_flows flows;
	struct rk_insp_iw iw;
	struct rk_insp_qos qos;
	struct rk_insp_cmconns cm;    /* CM connections from the MADs on QP1 */
	struct rk_insp_timing timing;
	struct rk_insp_series series;
	bool have_ts0;
	uint64_t ts0;
	uint64_t ts_prev;             /* the frame before's timestamp, ns */
	bool print_packets;
	bool warned_untracked;
	bool live;                    /* a pipe or an interface: each frame's lines out at once */
	const char *iface;            /* -i: capture on this interface */
	double summary_every;         /* --summary-every S; < 0: not given */
	struct rk_insp_progress prog;
	struct rk_insp_filter filt;   /* the display filter */
	const char *bpf;              /* the capture filter, or NULL */
	bool show;                    /* the display filter passes this frame */
	struct rk_insp_series_row *row; /* this frame's interval, or NULL */
	struct hold hold;
};

/**
 * Parse rk-inspect's command line into @p a (zeroed by the caller, with
 * summary_every set to -1). --help, --version and --list-findings print
 * and exit 0.
 * @return 0, or -1 after one line on stderr saying what is wrong (the
 *         caller adds where to read more), -2 after one that says it all
 *         (an option without its argument).
 */
int rk_insp_parse_args(struct app *a, int argc, char **argv);

/* ---- output that waits (held_lines.c) ---- */

/** Write @p len bytes of @p t to the output. */
void rk_insp_hold_write(struct app *a, const char *t, size_t len);

/** Write the waiting output up to the first line whose verdict is open. */
void rk_insp_hold_flush(struct app *a);

/** The verdict on the waiting packets of @p chain: keep the text that says it. */
void rk_insp_hold_resolve(struct app *a, const void *chain, enum rk_insp_verdict v);

/** The flow table's callback for a verdict taken (@p ctx: the app). */
void rk_insp_hold_settled(void *ctx, struct rk_insp_flow *flow, const void *chain,
			  enum rk_insp_verdict v);

/** Queue one line (two for a verdict pending on @p chain of @p flow). */
void rk_insp_hold_push(struct app *a, char *t0, size_t l0, char *t1, size_t l1,
		       const void *chain, struct rk_insp_flow *flow);

/** Where a line goes: standard output, or a buffer while earlier ones wait. */
FILE *rk_insp_line_begin(struct app *a, char **buf, size_t *len, bool wait);

/** The line written to @p f by rk_insp_line_begin(): nothing to do, or a string. */
bool rk_insp_line_end(struct app *a, FILE *f, char **buf, size_t *len);

/* A line of a frame that does not wait for a verdict itself. */
#define OUT_LINE(a, stmt_with_f) do {					\
	char *buf_;							\
	size_t len_;							\
	FILE *f = rk_insp_line_begin((a), &buf_, &len_, false);		\
									\
	stmt_with_f;							\
	if (rk_insp_line_end((a), f, &buf_, &len_))			\
		rk_insp_hold_push((a), buf_, len_, NULL, 0, NULL, NULL); \
} while (0)

/* ---- one frame's analysis (frame_in.c) ---- */

/** Analyse one frame of the capture (@p h, @p data) into @p a; print its line. */
void rk_insp_analyse_frame(struct app *a, const struct pcap_pkthdr *h, const uint8_t *data);

/** The iWARP analysis's event callback (@p ctx: the app): counts, and the line. */
void rk_insp_on_iw_event(void *ctx, const struct rk_insp_iw_event *ev);

/** Add the iWARP frames, known per connection once the capture is read, to the totals. */
void rk_insp_iwarp_totals(struct app *a);

/* ---- the capture file (capture_read.c) ---- */

/** The link type of libpcap's DLT @p dlt into @p out. @return 0, or -1: not decoded. */
int rk_insp_map_linktype(int dlt, enum rk_linktype *out);

/** libpcap's name of DLT @p dlt, "RAW" for every DLT_RAW value, else "unknown". */
const char *rk_insp_dlt_name(int dlt);

/** The capture filter on @p p; said when it cannot be. @return 0 or -1. */
int rk_insp_set_capture_filter(struct app *a, pcap_t *p);

/** The benchmark baseline: libpcap's loop alone. @return 0, or -1 on a read error. */
int rk_insp_bare_read(pcap_t *p, struct app *a);

/**
 * Open capture @p file ("-": standard input), gzip or not; a pcapng with
 * several link types comes back in @p *mixed with NULL returned. @p live
 * is set for a plain capture on a pipe. NULL with @p errbuf on failure.
 */
pcap_t *rk_insp_open_capture(const char *file, char *errbuf, bool *seekable, FILE **mixed,
			     bool *live);

/** Why reading stopped before the end, and where, into @p buf. */
void rk_insp_describe_read_error(char *buf, size_t len, pcap_t *p, uint64_t frames,
				 bool at_eof, off_t off);

/**
 * Read the pcapng on @p f whose interfaces have several link types; @p
 * names gets them "+"-joined. Closes @p f. @return 0, or -1 with @p err.
 */
int rk_insp_read_mixed(struct app *a, FILE *f, char *names, size_t nlen, char *err,
		       size_t elen, bool *at_eof);

#endif /* RK_INSP_APP_H */
