/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file app.h
 * rk-inspect's state: the options parsed from the command line
 * (args.c) and what main.c keeps while it reads a capture.
 */
#ifndef RK_INSP_APP_H
#define RK_INSP_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

#endif /* RK_INSP_APP_H */
