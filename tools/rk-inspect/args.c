/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-inspect's command line: usage, options and their checks.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "output.h"
#include "rk_cli.h"

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: rk-inspect [options] FILE     (FILE - : standard input)\n"
		"       rk-inspect [options] -i IFACE\n"
		"Decode the RoCEv1/v2, InfiniBand and iWARP packets of a pcap/pcapng file.\n"
		"\n"
		"  (default)              one line per RDMA packet / iWARP FPDU\n"
		"  -s, --summary          per-QP and per-connection summary (text)\n"
		"  -j, --json             summary as one JSON document (doc/inspect.md)\n"
		"  -p, --packets-json     one JSON object per RDMA packet / FPDU per line\n"
		"      --no-icrc          do not verify RoCE/IB ICRCs\n"
		"      --pmtu N           path MTU (256, 512, 1024, 2048, 4096) for READ\n"
		"                         PSN reservation and bth.payload.over_pmtu\n"
		"      --tcp-buffer BYTES out-of-order TCP bytes buffered per direction\n"
		"                         (default %u)\n"
		"      --max-flows N      QP flows tracked at most; later new flows are\n"
		"                         counted as untracked (default %u)\n"
		"      --link-rate GBPS   link rate for pause times in us (default %u);\n"
		"                         one pause quantum is 512 bit times\n"
		"      --storm-ms MS      a priority paused without a break for longer\n"
		"                         than this is a PFC/PAUSE storm (default %u ms)\n"
		"      --no-congestion    leave out the congestion view (ECN, CNP, PFC per\n"
		"                         priority) and the timing (RTT, latency): faster\n"
		"  -i, --interface IFACE  capture on IFACE (libpcap; needs CAP_NET_RAW) until\n"
		"                         interrupted (SIGINT, SIGTERM) or -c frames\n"
		"      --summary-every S  on live input (an interface, or a capture written\n"
		"                         into a pipe): a running summary line on stderr\n"
		"                         every S seconds (default 1; 0: none); on a pipe\n"
		"                         it comes with the frames, none while it is quiet\n"
		"      --interval S       a time series per S seconds (frames, wire and\n"
		"                         goodput Gb/s, retransmitted frames, CE, CNP,\n"
		"                         PAUSE/PFC): in --json, --csv and --plot\n"
		"      --csv FILE         write the series as CSV to FILE (- for stdout)\n"
		"      --plot FILE.png    plot the series into a PNG with gnuplot\n"
		"  -f, --filter EXPR      capture filter (BPF, pcap-filter(7)): other frames\n"
		"                         are dropped before any analysis\n"
		"Display filter (lines and --packets-json; the analysis sees every frame):\n"
		"      --qp N             BTH DestQP N\n"
		"      --host ADDR        IPv4 or IPv6 source or destination\n"
		"      --opcode OP        BTH opcode: number or name (RC_RDMA_WRITE_ONLY)\n"
		"      --finding ID       frames with a finding whose ID starts so (icrc.bad)\n"
		"      --from S, --to S   seconds since the first frame\n"
		"  -c, --count N          stop after N frames\n"
		"  -q, --quiet            print nothing on stdout (exit status only)\n"
		"      --fail-on-findings exit 1 when a finding of severity error was raised\n"
		"      --list-findings    print every finding ID rk-inspect can raise\n"
		"      --bare-read        benchmark baseline: read the frames, decode nothing\n"
		"  -h, --help             this text\n"
		"  -V, --version          print the version\n"
		"\n"
		"Exit status: 0 ok, 1 error findings (with --fail-on-findings),\n"
		"2 bad usage, or an unreadable, corrupt or truncated capture.\n",
		RK_INSP_TCP_MAX_OOO_DEFAULT, RK_INSP_MAX_FLOWS_DEFAULT,
		RK_INSP_QOS_LINK_GBPS_DEFAULT, RK_INSP_QOS_STORM_MS_DEFAULT);
}

/* @return 0, -ERANGE for a number too large, -EINVAL for anything else. */
static int
parse_u64(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long x;

	if (s == NULL || *s == '\0' || *s == '-')
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (*end != '\0' || end == s)
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	if (errno != 0)
		return -EINVAL;
	*v = x;
	return 0;
}

enum {
	OPT_NO_ICRC = 256,
	OPT_PMTU,
	OPT_TCP_BUFFER,
	OPT_FAIL,
	OPT_BARE,
	OPT_LIST_FINDINGS,
	OPT_MAX_FLOWS,
	OPT_LINK_RATE,
	OPT_STORM_MS,
	OPT_QP, OPT_HOST, OPT_OPCODE, OPT_FINDING, OPT_FROM, OPT_TO,
	OPT_SUMMARY_EVERY,
	OPT_INTERVAL, OPT_CSV, OPT_PLOT,
	OPT_NO_CONGESTION,
};

/* The finding table as a Markdown table (doc/findings.md is this output). */
static void
list_findings(FILE *f)
{
	fprintf(f, "| ID | severity | spec | meaning |\n|---|---|---|---|\n");
	for (int i = 0; i < RK_F_COUNT; i++) {
		const struct rk_finding_info *fi = rk_finding_info((enum rk_finding_id)i);

		fprintf(f, "| `%s` | %s | %s | %s |\n", fi->id,
			rk_severity_name(fi->severity), fi->spec_ref, fi->text);
	}
}

int
rk_insp_parse_args(struct app *a, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "summary", no_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "packets-json", no_argument, NULL, 'p' },
		{ "no-icrc", no_argument, NULL, OPT_NO_ICRC },
		{ "no-congestion", no_argument, NULL, OPT_NO_CONGESTION },
		{ "pmtu", required_argument, NULL, OPT_PMTU },
		{ "tcp-buffer", required_argument, NULL, OPT_TCP_BUFFER },
		{ "count", required_argument, NULL, 'c' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "fail-on-findings", no_argument, NULL, OPT_FAIL },
		{ "bare-read", no_argument, NULL, OPT_BARE },
		{ "list-findings", no_argument, NULL, OPT_LIST_FINDINGS },
		{ "max-flows", required_argument, NULL, OPT_MAX_FLOWS },
		{ "link-rate", required_argument, NULL, OPT_LINK_RATE },
		{ "storm-ms", required_argument, NULL, OPT_STORM_MS },
		{ "filter", required_argument, NULL, 'f' },
		{ "interface", required_argument, NULL, 'i' },
		{ "summary-every", required_argument, NULL, OPT_SUMMARY_EVERY },
		{ "qp", required_argument, NULL, OPT_QP },
		{ "host", required_argument, NULL, OPT_HOST },
		{ "opcode", required_argument, NULL, OPT_OPCODE },
		{ "finding", required_argument, NULL, OPT_FINDING },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "csv", required_argument, NULL, OPT_CSV },
		{ "plot", required_argument, NULL, OPT_PLOT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	bool mode_set = false, mode_clash = false, list = false;
	int c, rc;
	uint64_t v;

	a->popts.check_icrc = true;
	/* getopt's own messages lack the program prefix: print ours. */
	opterr = 0;
	while ((c = rk_cli_getopt(argc, argv, ":sjpc:f:i:qhV", longopts, NULL)) != -1) {
		enum rk_insp_mode m = RK_INSP_LINES;

		switch (c) {
		case 's':
			m = RK_INSP_SUMMARY;
			break;
		case 'j':
			m = RK_INSP_JSON;
			break;
		case 'p':
			m = RK_INSP_PACKETS_JSON;
			break;
		default:
			break;
		}
		if (m != RK_INSP_LINES) {
			/* The same mode twice is harmless; two modes are not. */
			if (mode_set && a->mode != m)
				mode_clash = true;
			a->mode = m;
			mode_set = true;
			continue;
		}
		switch (c) {
		case OPT_NO_ICRC:
			a->popts.check_icrc = false;
			break;
		case OPT_NO_CONGESTION:
			a->no_congestion = true;
			break;
		case OPT_PMTU:
			if (parse_u64(optarg, &v) != 0 ||
			    (v != 256 && v != 512 && v != 1024 && v != 2048 && v != 4096)) {
				fprintf(stderr, "rk-inspect: --pmtu must be 256, 512, 1024, "
					"2048 or 4096\n");
				return -1;
			}
			a->popts.pmtu = (uint32_t)v;
			a->fopts.pmtu = (uint32_t)v;
			break;
		case OPT_TCP_BUFFER:
			if (parse_u64(optarg, &v) != 0 || v < 4096 || v > (1u << 30)) {
				fprintf(stderr, "rk-inspect: --tcp-buffer must be 4096..2^30\n");
				return -1;
			}
			a->iwopts.tcp_buffer = (uint32_t)v;
			break;
		case 'c':
			rc = parse_u64(optarg, &v);
			if (rc == -ERANGE) {
				fprintf(stderr, "rk-inspect: -c, --count %s: out of range\n", optarg);
				return -1;
			}
			if (rc != 0 || v == 0) {
				fprintf(stderr, "rk-inspect: -c, --count '%s': a frame count above 0\n",
					optarg);
				return -1;
			}
			a->count = v;
			break;
		case OPT_MAX_FLOWS:
			rc = parse_u64(optarg, &v);
			if (rc == -ERANGE || (rc == 0 && v > UINT32_MAX)) {
				fprintf(stderr, "rk-inspect: --max-flows %s: out of range\n",
					optarg);
				return -1;
			}
			if (rc != 0 || v == 0) {
				fprintf(stderr, "rk-inspect: --max-flows needs a positive count\n");
				return -1;
			}
			a->fopts.max_flows = v;
			break;
		case OPT_LINK_RATE:
			if (parse_u64(optarg, &v) != 0 || v == 0 || v > 100000) {
				fprintf(stderr, "rk-inspect: --link-rate must be 1..100000 "
					"(Gb/s)\n");
				return -1;
			}
			a->qopts.link_bps = v * 1000000000u;
			break;
		case OPT_STORM_MS:
			if (parse_u64(optarg, &v) != 0 || v == 0 || v > 86400000) {
				fprintf(stderr, "rk-inspect: --storm-ms must be 1..86400000\n");
				return -1;
			}
			a->qopts.storm_ns = v * 1000000u;
			break;
		case OPT_INTERVAL:
			rc = rk_insp_parse_interval(optarg, &a->interval_ns);
			if (rc != 0) {
				fprintf(stderr, "rk-inspect: --interval %s: %s\n", optarg,
					rc == -ERANGE ? "out of range (1e-9 to 86400 seconds)" :
					"needs a number of seconds above 0 (0.5, 1, 1e-3)");
				return -1;
			}
			break;
		case OPT_CSV:
			a->csv = optarg;
			break;
		case OPT_PLOT:
			a->plot = optarg;
			break;
		case 'q':
			a->quiet = true;
			break;
		case 'f':
			a->bpf = optarg;
			break;
		case 'i':
			a->iface = optarg;
			break;
		case OPT_SUMMARY_EVERY: {
			char *end;

			errno = 0;
			a->summary_every = strtod(optarg, &end);
			if (*optarg == '\0' || *end != '\0' || errno != 0 ||
			    !isfinite(a->summary_every) || a->summary_every < 0 ||
			    a->summary_every > 86400) {
				fprintf(stderr, "rk-inspect: --summary-every: expected seconds "
					"0..86400 (0: none), got '%s'\n", optarg);
				return -1;
			}
			break;
		}
		case OPT_QP: case OPT_HOST: case OPT_OPCODE: case OPT_FINDING: case OPT_FROM:
		case OPT_TO: {
			static const char *const names[] = { "qp", "host", "opcode", "finding",
							     "from", "to" };
			char why[160];

			if (rk_insp_filter_parse(&a->filt, names[c - OPT_QP], optarg, why,
						 sizeof(why)) != 0) {
				fprintf(stderr, "rk-inspect: %s\n", why);
				return -1;
			}
			break;
		}
		case OPT_FAIL:
			a->fail_on_findings = true;
			break;
		case OPT_BARE:
			a->bare_read = true;
			break;
		case OPT_LIST_FINDINGS:
			list = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("rk-inspect %s (schema %s)\n", RK_INSP_VERSION, RK_INSP_SCHEMA);
			exit(0);
		case ':':
			/* said in full: no hint after it (main) */
			rk_cli_bad_option("rk-inspect", c, argc, argv);
			return -2;
		default:
			rk_cli_bad_option("rk-inspect", c, argc, argv);
			return -1;
		}
	}
	if (list) {
		if (optind != argc) {
			fprintf(stderr, "rk-inspect: --list-findings takes no capture file "
				"('%s')\n", argv[optind]);
			return -1;
		}
		list_findings(stdout);
		exit(0);
	}
	if (mode_clash) {
		fprintf(stderr, "rk-inspect: --summary, --json and --packets-json "
			"exclude each other\n");
		return -1;
	}
	if (a->bare_read && mode_set) {
		fprintf(stderr, "rk-inspect: --bare-read decodes nothing: it takes no "
			"--summary, --json or --packets-json\n");
		return -1;
	}
	if ((a->csv != NULL || a->plot != NULL) && a->interval_ns == 0) {
		fprintf(stderr, "rk-inspect: --csv and --plot need --interval S\n");
		return -1;
	}
	if (a->interval_ns != 0 && a->csv == NULL && a->plot == NULL &&
	    a->mode != RK_INSP_JSON) {
		fprintf(stderr, "rk-inspect: --interval writes its series with --json, "
			"--csv or --plot\n");
		return -1;
	}
	if (a->csv != NULL && strcmp(a->csv, "-") == 0 && mode_set) {
		fprintf(stderr, "rk-inspect: --csv - takes standard output: no --summary, "
			"--json or --packets-json with it\n");
		return -1;
	}
	if (a->interval_ns != 0 && a->bare_read) {
		fprintf(stderr, "rk-inspect: --bare-read decodes nothing: it takes no "
			"--interval\n");
		return -1;
	}
	if (a->iface != NULL) {
		if (optind != argc) {
			fprintf(stderr, "rk-inspect: -i %s and a capture file ('%s'): one "
				"input, not both\n", a->iface, argv[optind]);
			return -1;
		}
		if (a->bare_read) {
			fprintf(stderr, "rk-inspect: --bare-read reads files, not -i\n");
			return -1;
		}
		a->file = a->iface;
		return 0;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "rk-inspect: expected one capture file\n");
		return -1;
	}
	a->file = argv[optind];
	return 0;
}
