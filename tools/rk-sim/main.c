/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-sim: run a checked workload between two RC QPs over the simulated
 * link, print what happened, optionally write the exchanged frames to a
 * pcap file; "rk-sim bench" measures the engine without I/O; "rk-sim
 * matrix" runs the impairment matrix at a chosen size and prints goodput.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#ifdef RK_HAVE_PCAP
#include <pcap/pcap.h>
#endif

#include "rk_cli.h"
#include "rk_crc.h"
#include "rk_ib.h"
#include "rk_pkt.h"
#include "rk_sim_wl.h"
#include "rk_sim_xstats.h"

/* ------------------------------------------------------------------ pcap */

/* Frames written with libpcap, nanosecond timestamps, Ethernet link type. */
struct pcap_out {
	const char *path;
	pcap_t *dead;
	pcap_dumper_t *d;
	uint64_t frames;
};

static int
pcap_out_open(struct pcap_out *o, const char *path)
{
#ifdef RK_HAVE_PCAP
	FILE *f;

	o->path = path;
	o->dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535,
						       PCAP_TSTAMP_PRECISION_NANO);
	if (o->dead == NULL) {
		fprintf(stderr, "rk-sim: %s: libpcap could not start a writer\n", path);
		return -1;
	}
	/* Opened here, not by pcap_dump_open, whose message repeats the path. */
	f = strcmp(path, "-") == 0 ? stdout : fopen(path, "wb");
	if (f == NULL) {
		fprintf(stderr, "rk-sim: %s: %s\n", path, strerror(errno));
		pcap_close(o->dead);
		o->dead = NULL;
		return -1;
	}
	o->d = pcap_dump_fopen(o->dead, f);
	if (o->d == NULL) {
		fprintf(stderr, "rk-sim: %s: %s\n", path, pcap_geterr(o->dead));
		if (f != stdout)
			fclose(f);
		pcap_close(o->dead);
		o->dead = NULL;
		return -1;
	}
	return 0;
#else
	(void)o;
	fprintf(stderr, "rk-sim: %s: this rk-sim was built without libpcap\n", path);
	return -1;
#endif
}

static void
pcap_tap(void *ctx, unsigned int dir, uint64_t ts_ns, const uint8_t *frame, uint32_t len)
{
#ifdef RK_HAVE_PCAP
	struct pcap_out *o = ctx;
	struct pcap_pkthdr h;

	(void)dir;
	/* Virtual time starts at 0: put it at 1 s past the epoch. */
	ts_ns += 1000000000ull;
	h.ts.tv_sec = (time_t)(ts_ns / 1000000000ull);
	h.ts.tv_usec = (suseconds_t)(ts_ns % 1000000000ull);    /* ns: nano precision */
	h.caplen = h.len = len;
	pcap_dump((u_char *)o->d, &h, frame);
	o->frames++;
#else
	(void)ctx, (void)dir, (void)ts_ns, (void)frame, (void)len;
#endif
}

/* Whether two paths name one file (the same path, or the same inode). */
static bool
same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (strcmp(a, b) == 0)
		return true;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* Close; false (with a message) when a write failed, e.g. disk full. */
static bool
pcap_out_close(struct pcap_out *o)
{
	bool ok = true;

#ifdef RK_HAVE_PCAP
	if (o->d == NULL)
		return true;
	if (pcap_dump_flush(o->d) != 0 || ferror(pcap_dump_file(o->d)))
		ok = false;
	pcap_dump_close(o->d);
	pcap_close(o->dead);
	o->d = NULL;
	o->dead = NULL;
	if (!ok)
		fprintf(stderr, "rk-sim: writing %s failed: not all %" PRIu64 " frames are in it\n",
			o->path, o->frames);
#else
	(void)o;
#endif
	return ok;
}

/* ------------------------------------------------------------- workload */

static void
log_line(void *ctx, const char *line)
{
	(void)ctx;
	printf("%s\n", line);
}

static uint32_t
parse_ops(const char *s)
{
	static const struct {
		const char *name;
		enum rk_sim_op op;
	} names[] = {
		{ "send", RK_SIM_SEND }, { "send_imm", RK_SIM_SEND_IMM },
		{ "write", RK_SIM_WRITE }, { "write_imm", RK_SIM_WRITE_IMM },
		{ "read", RK_SIM_READ }, { "cas", RK_SIM_CMP_SWP },
		{ "cmp_swp", RK_SIM_CMP_SWP }, { "faa", RK_SIM_FETCH_ADD },
		{ "fetch_add", RK_SIM_FETCH_ADD },
	};
	char buf[256], *tok, *save = NULL;
	uint32_t mask = 0;

	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		size_t i;

		if (strcmp(tok, "all") == 0) {
			mask = (1u << RK_SIM_OP_COUNT) - 1;
			continue;
		}
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strcmp(tok, names[i].name) == 0)
				break;
		if (i == sizeof(names) / sizeof(names[0])) {
			fprintf(stderr, "rk-sim: unknown operation '%s'\n", tok);
			exit(2);
		}
		mask |= 1u << names[i].op;
	}
	if (mask == 0) {
		fprintf(stderr, "rk-sim: --op-mix names no operation ('%s')\n", s);
		exit(2);
	}
	return mask;
}

static void
print_result(const struct rk_sim_wl_result *r, int rc)
{
	double s = (double)r->virtual_ns / 1e9;

	printf("result:      %s\n", rc == 0 ? "OK: every completion and byte checked" :
					     r->first_error);
	printf("operations:  %" PRIu64 " completed, %" PRIu64 " receives\n", r->completed,
	       r->recv_completed);
	if (r->reconnects != 0)
		printf("reconnects:  %" PRIu64 " after RETRY_EXC_ERR, %" PRIu64
		       " operations lost (not counted in payload)\n", r->reconnects, r->ops_lost);
	/* Completed ones, so the list adds up to the line above. */
	for (int i = 0; i < RK_SIM_OP_COUNT; i++)
		printf("  %-10s %" PRIu64 "\n", rk_sim_op_name((enum rk_sim_op)i), r->per_op[i]);
	/* WRITEs overlap in one target region, checked whole at the end. */
	printf("payload:     %" PRIu64 " bytes; compared %" PRIu64 " bytes (SEND and READ data, "
	       "atomic results, the WRITE target region)\n", r->payload_bytes, r->bytes_verified);
	printf("virtual:     %.6f s, goodput %.3f Gbit/s\n", s,
	       s > 0 ? (double)r->payload_bytes * 8 / s / 1e9 : 0.0);
	if (r->completed != 0)
		printf("latency:     p50 %.3f us, p99 %.3f us, max %.3f us (post to completion, "
		       "virtual time)\n", (double)rk_sim_wl_latency(r, 0.5) / 1e3,
		       (double)rk_sim_wl_latency(r, 0.99) / 1e3, (double)r->lat_max_ns / 1e3);
	/* sent + dup = delivered + lost + mtu-drops + overflow + rx-dropped + in-flight */
	for (int d = 0; d < 2; d++) {
		printf("link %s:  ", d == 0 ? "A>B" : "B>A");
		rk_xstats_print_inline(stdout, &rk_sim_link_xstats, &r->link[d]);
		printf("\n");
	}
	/*
	 * Each endpoint's own drops: A (requester) receives B>A, B (responder)
	 * A>B. Not every corrupted frame is dropped: a flip in a field the
	 * ICRC masks (TTL, checksums, traffic class) goes through.
	 */
	printf("requester:   packets %" PRIu64 " (retransmitted %" PRIu64 "), timeouts %" PRIu64
	       ", NAK-SEQ retries %" PRIu64 ", READ re-issues %" PRIu64 ", RNR retries %" PRIu64
	       ", bad ICRC dropped %" PRIu64 ", malformed dropped %" PRIu64 "\n",
	       r->stats[0].req_pkts, r->stats[0].req_retx_pkts,
	       r->stats[0].req_retransmit_timeouts, r->stats[0].req_nak_seq_retries,
	       r->stats[0].req_read_retries, r->stats[0].req_rnr_retries,
	       r->stats[0].rx_drop_icrc, r->stats[0].rx_drop_malformed);
	/* What loss cost: each request packet sent, over those a clean link needs. */
	{
		uint64_t first = r->stats[0].req_pkts - r->stats[0].req_retx_pkts;

		printf("amplification: %.3f (request frames sent %" PRIu64 " / needed %" PRIu64
		       ", first transmissions)\n", first ? (double)r->stats[0].req_pkts /
		       (double)first : 0.0, r->stats[0].req_pkts, first);
	}
	printf("responder:   duplicates %" PRIu64 ", NAK-SEQ %" PRIu64 ", RNR NAK %" PRIu64
	       ", bad ICRC dropped %" PRIu64 ", malformed dropped %" PRIu64 "\n",
	       r->stats[1].resp_dup, r->stats[1].resp_nak_seq, r->stats[1].resp_rnr_nak,
	       r->stats[1].rx_drop_icrc, r->stats[1].rx_drop_malformed);
	printf("QP state:    %zu bytes (without work queues and registered memory)\n",
	       r->qp_state_bytes);
}

static void
usage(FILE *out)
{
	fprintf(out, "usage: rk-sim [options]          run a checked workload between two RC QPs\n"
	       "       rk-sim bench [-n N]       engine speed without I/O\n"
	       "       rk-sim matrix [-o N]      the impairment matrix, goodput per cell\n"
	       "       rk-sim incast [--senders N] [--pfc on|off] [--duration MS] [--csv F] [--json F]\n"
	       "                                 N line-rate senders into one port of the simulated\n"
	       "                                 switch (doc/congestion.md; incast --help)\n"
	       "       rk-sim incast --dcqcn[=PROFILE] [--senders N] [--png F] ...\n"
	       "                                 N DCQCN RC QPs through the switch instead\n"
	       "       rk-sim victim [--senders N] [--kmax B] [--png F] ...\n"
	       "                                 a victim flow behind a paused uplink, with PFC\n"
	       "                                 alone and with DCQCN (victim --help)\n"
	       "       rk-sim unfair [--senders N] [--png F] ...\n"
	       "                                 PFC shares a port by ingress port, not by flow;\n"
	       "                                 DCQCN by flow (unfair --help)\n"
	       "       rk-sim deadlock [--switches N] [--pfcwd MS] [--png F] ...\n"
	       "                                 a PFC ring's cyclic buffer dependency, and the\n"
	       "                                 acyclic control (deadlock --help)\n"
	       "       rk-sim recovery [--senders N] [--pfc on|off] [--dcqcn] [--png F] ...\n"
	       "                                 go-back-N against selective repeat in an\n"
	       "                                 incast (recovery --help)\n"
	       "       rk-sim storm [--watchdog-ms W] [--png F] ...\n"
	       "                                 a receiver that stops draining pauses the fabric,\n"
	       "                                 and a PFC watchdog (storm --help)\n"
	       "       rk-sim stagger [--dcqcn=PROFILE] [--stagger MS] [--png F] ...\n"
	       "                                 a DCQCN flow starts beside a running one: the\n"
	       "                                 queue spike and convergence (stagger --help)\n"
	       "options:\n"
	       "  -s, --seed N          seed (default 1)\n"
	       "  -o, --ops N           operations (default 1000)\n"
	       "  -m, --max-size N      largest message in bytes (default 65536, at most 2^30);\n"
	       "                        memory: N per --depth at A and, with SENDs, at B,\n"
	       "                        and 4 N for the target region and its model\n"
	       "  -O, --op-mix LIST     send,send_imm,write,write_imm,read,cas,faa|all\n"
	       "  -M, --mtu N           path MTU 256..4096 (default 1024)\n"
	       "  -d, --depth N         outstanding work requests (default 16)\n"
	       "  -l, --loss P          loss probability per frame\n"
	       "  -b, --burst P[:LEN]   a loss starts a burst of LEN frames (default 4) with\n"
	       "                        probability P\n"
	       "  -r, --reorder P[:NS]  hold a frame back by NS (default 10000) with\n"
	       "                        probability P\n"
	       "  -u, --dup P           duplicate a frame with probability P\n"
	       "  -c, --corrupt P       flip one byte (bad ICRC) with probability P\n"
	       "  -D, --delay NS        one-way delay (default 2000)\n"
	       "  -j, --jitter NS       extra random delay\n"
	       "  -R, --rate BPS        link rate in bit/s, at least 1 (default 100000000000:\n"
	       "                        100 Gbit/s; frames are serialised at this rate)\n"
	       "  -L, --link-mtu N      drop frames with more IP bytes\n"
	       "  -e, --drop-every N[:DIR]  lose every Nth frame sent (N >= 2); DIR a2b (requests),\n"
	       "                        b2a (responses, ACKs) or both (default)\n"
	       "  -F, --fixed-size      every operation is --max-size bytes\n"
	       "  -C, --retry-cnt N     transport retry count 1..7 (default 7)\n"
	       "  -Q, --queue N         frames the link queues per direction (default 65536)\n"
	       "  -P, --paced           endpoints transmit at --rate, not ahead of the wire\n"
	       "  -t, --timeout N       local ACK timeout exponent (default 12)\n"
	       "  -6, --ipv6            RoCEv2 over IPv6 (2001:2::1 and ::2)\n"
	       "  -X, --reconnect       after RETRY_EXC_ERR reset both QPs and go on, as an\n"
	       "                        application would (lost operations are counted)\n"
	       "  -w, --pcap FILE       write every frame sent to FILE (before impairment)\n"
	       "  -W, --pcap-rx FILE    write every frame delivered to FILE (after loss,\n"
	       "                        duplication, reordering and corruption)\n"
	       "  -v, --verbose         one line per completion\n"
	       "  -V, --version         print the version\n"
	       "exit status: 0 every check passed; 1 a check failed, the run stopped (virtual\n"
	       "time limit, out of memory) or a recording could not be written; 2 bad usage\n");
}

/* --------------------------------------------------------------- options */

/*
 * Strict number parsing: the whole text (up to an optional ':' when
 * @p colon) must be a number in range, else a message naming the option.
 */
static bool
parse_u64(const char *opt, const char *s, bool colon, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	while (*s == ' ')
		s++;
	v = *s == '-' ? 0 : strtoull(s, &end, 0);
	if (*s == '-' || errno != 0 || end == s || (*end != '\0' && !(colon && *end == ':')) ||
	    v < lo || v > hi) {
		fprintf(stderr, "rk-sim: %s needs a whole number from %" PRIu64 " to %" PRIu64
			", not '%s'\n", opt, lo, hi, s);
		return false;
	}
	*out = v;
	return true;
}

static bool
parse_prob(const char *opt, const char *s, bool colon, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || (*end != '\0' && !(colon && *end == ':')) ||
	    !(v >= 0.0 && v <= 1.0)) {
		fprintf(stderr, "rk-sim: %s needs a probability from 0 to 1, not '%s'\n", opt, s);
		return false;
	}
	*out = v;
	return true;
}

/* The number after "P:" in a "P:N" option, or @p dflt without one. */
static bool
parse_after_colon(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t dflt,
		  uint64_t *out)
{
	const char *c = strchr(s, ':');

	if (c == NULL) {
		*out = dflt;
		return true;
	}
	return parse_u64(opt, c + 1, false, lo, hi, out);
}

#define NS_MAX 1000000000000ull         /* 1000 s */
/* A link with no rate would be infinitely fast: 100 Gbit/s unless -R says. */
#define DEFAULT_RATE_BPS 100000000000ull

static int
run_workload(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "seed", 1, NULL, 's' }, { "ops", 1, NULL, 'o' }, { "max-size", 1, NULL, 'm' },
		{ "op-mix", 1, NULL, 'O' }, { "mtu", 1, NULL, 'M' }, { "depth", 1, NULL, 'd' },
		{ "loss", 1, NULL, 'l' }, { "burst", 1, NULL, 'b' }, { "reorder", 1, NULL, 'r' },
		{ "dup", 1, NULL, 'u' }, { "corrupt", 1, NULL, 'c' }, { "delay", 1, NULL, 'D' },
		{ "jitter", 1, NULL, 'j' }, { "rate", 1, NULL, 'R' }, { "link-mtu", 1, NULL, 'L' },
		{ "timeout", 1, NULL, 't' }, { "pcap", 1, NULL, 'w' }, { "verbose", 0, NULL, 'v' },
		{ "pcap-rx", 1, NULL, 'W' },
		{ "drop-every", 1, NULL, 'e' }, { "fixed-size", 0, NULL, 'F' },
		{ "retry-cnt", 1, NULL, 'C' }, { "queue", 1, NULL, 'Q' },
		{ "paced", 0, NULL, 'P' }, { "reconnect", 0, NULL, 'X' },
		{ "ipv6", 0, NULL, '6' },
		{ "help", 0, NULL, 'h' }, { "version", 0, NULL, 'V' }, { NULL, 0, NULL, 0 },
	};
	struct rk_sim_wl_cfg cfg = {
		.seed = 1, .ops = 1000, .max_size = 65536,
		.impair = { .delay_ns = 2000, .rate_bps = DEFAULT_RATE_BPS },
	};
	struct rk_sim_wl_result r;
	struct pcap_out pcap = { 0 }, pcap_rx = { 0 };
	const char *pcap_path = NULL, *pcap_rx_path = NULL;
	uint32_t drop_every = 0;
	const char *drop_dir = "both";
	uint64_t v = 0;
	bool ok = true;
	int c, rc;

	/* getopt's own messages start with the path rk-sim ran as: print ours. */
	opterr = 0;
	while ((c = rk_cli_getopt(argc, argv, ":s:o:m:O:M:d:l:b:r:u:c:D:j:R:L:t:w:W:e:FC:Q:PX6vhV", lo, NULL)) != -1) {
		switch (c) {
		case 's': ok = parse_u64("--seed", optarg, false, 0, UINT64_MAX, &cfg.seed); break;
		case 'o': ok = parse_u64("--ops", optarg, false, 1, 1000000000, &v); cfg.ops = (uint32_t)v; break;
		case 'm': ok = parse_u64("--max-size", optarg, false, 0, 1u << 30, &v); cfg.max_size = (uint32_t)v; break;
		case 'O': cfg.opmask = parse_ops(optarg); break;
		case 'M': {
			char *end;
			unsigned long m = strtoul(optarg, &end, 10);

			if (end == optarg || *end != '\0')
				m = 0;
			cfg.mtu = m == 256 ? RK_MTU_256 : m == 512 ? RK_MTU_512 : m == 1024 ?
				  RK_MTU_1024 : m == 2048 ? RK_MTU_2048 : m == 4096 ? RK_MTU_4096 : 0;
			if (cfg.mtu == 0) {
				fprintf(stderr, "rk-sim: --mtu needs 256, 512, 1024, 2048 or 4096, "
					"not '%s'\n", optarg);
				return 2;
			}
			break;
		}
		case 'd': ok = parse_u64("--depth", optarg, false, 1, 1024, &v); cfg.depth = (uint32_t)v; break;
		case 'l': ok = parse_prob("--loss", optarg, false, &cfg.impair.loss); break;
		case 'b':
			ok = parse_prob("--burst", optarg, true, &cfg.impair.burst) &&
			     parse_after_colon("--burst LEN", optarg, 1, 1000000, 4, &v);
			cfg.impair.burst_len = (uint32_t)v;
			break;
		case 'r':
			ok = parse_prob("--reorder", optarg, true, &cfg.impair.reorder) &&
			     parse_after_colon("--reorder NS", optarg, 0, NS_MAX, 10000,
					       &cfg.impair.reorder_ns);
			break;
		case 'u': ok = parse_prob("--dup", optarg, false, &cfg.impair.dup); break;
		case 'c': ok = parse_prob("--corrupt", optarg, false, &cfg.impair.corrupt); break;
		case 'D': ok = parse_u64("--delay", optarg, false, 0, NS_MAX, &cfg.impair.delay_ns); break;
		case 'j': ok = parse_u64("--jitter", optarg, false, 0, NS_MAX, &cfg.impair.jitter_ns); break;
		case 'R': ok = parse_u64("--rate", optarg, false, 1, 10000000000000ull, &cfg.impair.rate_bps); break;
		case 'L': ok = parse_u64("--link-mtu", optarg, false, 0, 65535, &v); cfg.impair.mtu = (uint32_t)v; break;
		case 't': ok = parse_u64("--timeout", optarg, false, 1, 31, &v); cfg.timeout = (uint8_t)v; break;
		case 'e':
			ok = parse_u64("--drop-every", optarg, true, 2, 1000000000, &v);
			drop_every = (uint32_t)v;
			drop_dir = strchr(optarg, ':') ? strchr(optarg, ':') + 1 : "both";
			break;
		case 'F': cfg.fixed_size = true; break;
		case 'C': ok = parse_u64("--retry-cnt", optarg, false, 1, 7, &v); cfg.retry_cnt = (uint8_t)v; break;
		case 'Q': ok = parse_u64("--queue", optarg, false, 1, 10000000, &v); cfg.max_queue = (uint32_t)v; break;
		case 'P': cfg.paced = true; break;
		case 'w': pcap_path = optarg; break;
		case 'W': pcap_rx_path = optarg; break;
		case 'v': cfg.log = log_line; break;
		case '6': cfg.ip_version = 6; break;
		case 'X': cfg.recover = true; cfg.max_reconnects = 1000; break;
		case 'h': usage(stdout); return 0;
		case 'V': rk_cli_version("rk-sim"); return 0;
		case ':':
		default:
			rk_cli_refused("rk-sim", c, argc, argv);
			return 2;
		}
		if (!ok)
			return 2;
	}
	if (optind < argc) {
		fprintf(stderr, "rk-sim: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	/* Applied last: the other impairments stay the same in both directions. */
	cfg.impair_b2a = cfg.impair;
	if (strcmp(drop_dir, "both") == 0) {
		cfg.impair.drop_every = drop_every;
		cfg.impair_b2a.drop_every = drop_every;
	} else if (strcmp(drop_dir, "a2b") == 0) {
		cfg.impair.drop_every = drop_every;
		cfg.split_impair = true;
	} else if (strcmp(drop_dir, "b2a") == 0) {
		cfg.impair_b2a.drop_every = drop_every;
		cfg.split_impair = true;
	} else {
		fprintf(stderr, "rk-sim: --drop-every direction must be a2b, b2a or both\n");
		return 2;
	}
	/* Refused at once, not swapped or killed halfway through the run. */
	{
		long pages = sysconf(_SC_PHYS_PAGES), pg = sysconf(_SC_PAGESIZE);
		double need = (double)rk_sim_wl_mem_need(&cfg), have = (double)pages * (double)pg;

		if (pages > 0 && pg > 0 && need > have) {
			fprintf(stderr, "rk-sim: the workload needs up to %.0f MiB of buffers, more "
				"than the %.0f MiB of memory here: lower --max-size or --depth "
				"(see --max-size in --help)\n", need / (1 << 20), have / (1 << 20));
			return 1;
		}
	}
	if (pcap_path != NULL) {
		if (pcap_out_open(&pcap, pcap_path) != 0)
			return 1;
		cfg.tap = pcap_tap;
		cfg.tap_ctx = &pcap;
	}
	if (pcap_rx_path != NULL) {
		if (pcap_path != NULL && same_file(pcap_rx_path, pcap_path)) {
			fprintf(stderr, "rk-sim: --pcap and --pcap-rx name the same file\n");
			pcap_out_close(&pcap);
			return 2;
		}
		if (pcap_out_open(&pcap_rx, pcap_rx_path) != 0) {
			pcap_out_close(&pcap);
			return 1;
		}
		cfg.rx_tap = pcap_tap;
		cfg.rx_tap_ctx = &pcap_rx;
	}
	printf("workload:    seed %" PRIu64 ", %u operations, sizes %s%u%s, loss %g, burst %g:%u, "
	       "reorder %g, dup %g, corrupt %g, delay %" PRIu64 " ns, rate %g Gbit/s\n",
	       cfg.seed, cfg.ops, cfg.fixed_size ? "" : "0..", cfg.max_size,
	       cfg.fixed_size ? " (fixed)" : "", cfg.impair.loss, cfg.impair.burst,
	       cfg.impair.burst_len, cfg.impair.reorder, cfg.impair.dup, cfg.impair.corrupt,
	       cfg.impair.delay_ns, (double)cfg.impair.rate_bps / 1e9);
	if (drop_every != 0)
		printf("periodic:    1 frame in every %u lost, %s\n", drop_every, drop_dir);
	rc = rk_sim_wl_run(&cfg, &r);
	if (rc == -EINVAL || rc == -ENOMEM) {
		if (rc == -EINVAL)
			fprintf(stderr, "rk-sim: the workload's configuration was refused\n");
		else
			fprintf(stderr, "rk-sim: out of memory: the workload needs up to %.0f MiB "
				"of buffers (see --max-size in --help)\n",
				(double)rk_sim_wl_mem_need(&cfg) / (1 << 20));
		pcap_out_close(&pcap);
		pcap_out_close(&pcap_rx);
		/* A refused configuration is bad usage; memory is the machine's. */
		return rc == -EINVAL ? 2 : 1;
	}
	print_result(&r, rc);
	{
		bool w_ok = pcap_out_close(&pcap), wr_ok = pcap_out_close(&pcap_rx);

		if (!w_ok || !wr_ok)
			return 1;
	}
	if (pcap_path != NULL)
		printf("pcap:        %" PRIu64 " frames sent written to %s\n", pcap.frames, pcap_path);
	if (pcap_rx_path != NULL)
		printf("pcap-rx:     %" PRIu64 " frames delivered written to %s\n", pcap_rx.frames,
		       pcap_rx_path);
	return rc == 0 ? 0 : 1;
}

/* ---------------------------------------------------------------- bench */

static double
wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct bside {
	struct rk_ib_dev *dev;
	struct rk_ib_pd *pd;
	struct rk_ib_cq *cq;
	struct rk_ib_qp *qp;
	struct rk_ib_mr *mr;
	uint8_t *mem;
};

static struct bside bs[2];

static void
deliver(void *ctx, const uint8_t *frame, uint32_t len)
{
	struct rk_pkt pkt;

	if (rk_pkt_parse(&pkt, frame, len, len, RK_LINK_ETHERNET, NULL) == 0)
		rk_ib_rx(((struct bside *)ctx)->dev, &pkt, 0);
}

static void
bench_setup(size_t mem, enum rk_mtu mtu)
{
	for (int i = 0; i < 2; i++) {
		struct rk_ib_dev_attr da = { .ip_version = 4, .key_seed = 7 + (uint64_t)i };
		struct rk_ib_qp_init_attr qa = {
			.qp_type = RK_QPT_RC,
			.cap = { .max_send_wr = 64, .max_recv_wr = 256, .max_send_sge = 1,
				 .max_recv_sge = 1 },
		};

		da.mac[5] = (uint8_t)(i + 1);
		da.ip[10] = da.ip[11] = 0xff;
		da.ip[15] = (uint8_t)(i + 1);
		bs[i].dev = rk_ib_dev_create(&da);
		bs[i].pd = rk_ib_pd_alloc(bs[i].dev);
		bs[i].cq = rk_ib_cq_create(bs[i].dev, 1024);
		qa.send_cq = qa.recv_cq = bs[i].cq;
		bs[i].qp = rk_ib_qp_create(bs[i].pd, &qa);
		bs[i].mem = calloc(1, mem);
		bs[i].mr = rk_ib_mr_reg(bs[i].pd, bs[i].mem, mem,
					RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE);
	}
	for (int i = 0; i < 2; i++) {
		struct rk_qp_attr a = { .qp_state = RK_QPS_INIT,
					.qp_access_flags = RK_ACCESS_REMOTE_WRITE };

		rk_ib_qp_modify(bs[i].qp, &a, RK_QP_STATE | RK_QP_PKEY_INDEX | RK_QP_PORT |
				RK_QP_ACCESS_FLAGS);
		memset(&a, 0, sizeof(a));
		a.qp_state = RK_QPS_RTR;
		a.path_mtu = mtu;
		a.dest_qp_num = rk_ib_qp_num(bs[i ^ 1].qp);
		a.max_dest_rd_atomic = 1;
		a.ah_attr.dmac[5] = (uint8_t)(2 - i);
		/* The peer's address: RC packets from any other source are dropped. */
		a.ah_attr.dip[10] = a.ah_attr.dip[11] = 0xff;
		a.ah_attr.dip[15] = (uint8_t)(2 - i);
		rk_ib_qp_modify(bs[i].qp, &a, RK_QP_STATE | RK_QP_AV | RK_QP_PATH_MTU |
				RK_QP_DEST_QPN | RK_QP_RQ_PSN | RK_QP_MAX_DEST_RD_ATOMIC |
				RK_QP_MIN_RNR_TIMER);
		memset(&a, 0, sizeof(a));
		a.qp_state = RK_QPS_RTS;
		a.timeout = 14;
		a.retry_cnt = 7;
		a.max_rd_atomic = 1;
		rk_ib_qp_modify(bs[i].qp, &a, RK_QP_STATE | RK_QP_SQ_PSN | RK_QP_TIMEOUT |
				RK_QP_RETRY_CNT | RK_QP_RNR_RETRY | RK_QP_MAX_QP_RD_ATOMIC);
	}
}

static void
bench_teardown(void)
{
	for (int i = 0; i < 2; i++) {
		rk_ib_dev_destroy(bs[i].dev);
		free(bs[i].mem);
	}
}

/* Post n operations (keeping 32 outstanding); returns wall seconds. */
static double
bench_run(enum rk_wr_opcode op, uint32_t len, uint64_t n)
{
	uint64_t posted = 0, done = 0, stalls = 0;
	struct rk_wc wc[64];
	double t0 = wall();

	if (op == RK_WR_SEND)
		for (int i = 0; i < 256; i++) {
			struct rk_sge sge = { (uint64_t)(uintptr_t)bs[1].mem, len,
					      rk_ib_mr_lkey(bs[1].mr) };
			struct rk_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 };
			const struct rk_recv_wr *bad;

			rk_ib_post_recv(bs[1].qp, &wr, &bad);
		}
	while (done < n) {
		uint64_t before = done;
		int k;

		while (posted < n && posted - done < 32) {
			struct rk_sge sge = { (uint64_t)(uintptr_t)bs[0].mem, len,
					      rk_ib_mr_lkey(bs[0].mr) };
			struct rk_send_wr wr = {
				.wr_id = posted, .sg_list = &sge, .num_sge = 1, .opcode = op,
				.send_flags = RK_SEND_SIGNALED,
			};
			const struct rk_send_wr *bad;

			wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)bs[1].mem;
			wr.wr.rdma.rkey = rk_ib_mr_rkey(bs[1].mr);
			if (rk_ib_post_send(bs[0].qp, &wr, &bad) != 0)
				break;
			posted++;
		}
		rk_ib_poll_tx(bs[0].dev, 0, deliver, &bs[1], 1024);
		rk_ib_poll_tx(bs[1].dev, 0, deliver, &bs[0], 1024);
		while ((k = rk_ib_cq_poll(bs[0].cq, 64, wc)) > 0)
			for (int i = 0; i < k; i++) {
				if (wc[i].status != RK_WC_SUCCESS) {
					fprintf(stderr, "bench: completion error %d\n", wc[i].status);
					exit(1);
				}
				done++;
			}
		/* No I/O, no clock: a round without progress never ends. */
		if (done == before && posted - done >= 32 && ++stalls > 1000) {
			fprintf(stderr, "bench: no completion in 1000 rounds\n");
			exit(1);
		}
		if (done != before)
			stalls = 0;
		if (op == RK_WR_SEND)
			while ((k = rk_ib_cq_poll(bs[1].cq, 64, wc)) > 0)
				for (int i = 0; i < k; i++) {
					struct rk_sge sge = { (uint64_t)(uintptr_t)bs[1].mem, len,
							      rk_ib_mr_lkey(bs[1].mr) };
					struct rk_recv_wr wr = { .wr_id = 1, .sg_list = &sge,
								 .num_sge = 1 };
					const struct rk_recv_wr *bad;

					rk_ib_post_recv(bs[1].qp, &wr, &bad);
				}
	}
	return wall() - t0;
}

/* The floor of one packet: one memcpy of its payload and two CRC passes over it. */
static double
floor_run(uint32_t mtu, uint32_t hdr, uint64_t pkts)
{
	static uint8_t src[4096], pkt[4096 + 128];
	volatile uint32_t sink = 0;
	double t0 = wall();

	for (uint64_t i = 0; i < pkts; i++) {
		memcpy(pkt + hdr, src, mtu);
		sink ^= rk_crc32(pkt, hdr + mtu);
		sink ^= rk_crc32(pkt, hdr + mtu);
	}
	(void)sink;
	return wall() - t0;
}

static int
run_bench(int argc, char **argv)
{
	uint64_t n = 20000;
	double t, tf;
	uint32_t len = 65536, mtu = 4096;

	if (argc == 2 && strcmp(argv[1], "-n") == 0) {
		fprintf(stderr, "rk-sim: bench: option -n needs an argument\n");
		return 2;
	}
	if (argc > 1 && (argc != 3 || strcmp(argv[1], "-n") != 0)) {
		fprintf(stderr, "rk-sim: usage: rk-sim bench [-n N]\n");
		return 2;
	}
	if (argc == 3 && !parse_u64("bench -n", argv[2], false, 1, 100000000, &n))
		return 2;
	bench_setup(1u << 20, RK_MTU_4096);
	(void)bench_run(RK_WR_RDMA_WRITE, len, n / 10);         /* warm up */
	t = bench_run(RK_WR_RDMA_WRITE, len, n);
	tf = floor_run(mtu, 14 + 20 + 8 + 28, n * (len / mtu));
	printf("RC WRITE 64 KiB, requester + responder, no I/O: %.0f MB/s (%.2f us/op)\n",
	       (double)n * len / t / 1e6, t / (double)n * 1e6);
	printf("floor (1 memcpy + 2 ISA-L CRC passes per packet): %.0f MB/s\n",
	       (double)n * len / tf / 1e6);
	printf("ratio to floor: %.2f (target >= 0.5)\n", tf / t);
	bench_teardown();
	if (getenv("RK_BENCH_WRITE_ONLY") != NULL)
		return 0;

	bench_setup(1u << 16, RK_MTU_1024);
	(void)bench_run(RK_WR_SEND, 64, n * 5 / 10);
	t = bench_run(RK_WR_SEND, 64, n * 5);
	printf("64 B SEND: %.0f messages/s on one core (requester + responder)\n",
	       (double)n * 5 / t);
	printf("QP state: %zu bytes (target <= 4096)\n", rk_ib_qp_state_size(bs[0].qp));
	bench_teardown();
	return 0;
}

/* --------------------------------------------------------------- matrix */

#define MATRIX_MAX_SIZE (1u << 18)

static int
run_matrix(int argc, char **argv)
{
#define CELL_LINK .delay_ns = 2000, .rate_bps = DEFAULT_RATE_BPS
	/* Every cell runs the same operations (seed, sizes): only the link differs. */
	static const struct {
		const char *name;
		struct rk_sim_impair imp;
	} cells[] = {
		{ "loss 0", { CELL_LINK } },
		{ "loss 0.1%", { .loss = 0.001, CELL_LINK } },
		{ "loss 1%", { .loss = 0.01, CELL_LINK } },
		{ "loss 5%", { .loss = 0.05, CELL_LINK } },
		{ "loss 20%", { .loss = 0.20, CELL_LINK } },
		{ "reorder 5%", { .reorder = 0.05, .reorder_ns = 20000, CELL_LINK } },
		{ "dup 5%", { .dup = 0.05, CELL_LINK } },
		{ "corrupt 2%", { .corrupt = 0.02, CELL_LINK } },
	};
#undef CELL_LINK
	uint32_t ops = 100000;
	int fails = 0;

	uint64_t v = ops;

	if (argc == 2 && strcmp(argv[1], "-o") == 0) {
		fprintf(stderr, "rk-sim: matrix: option -o needs an argument\n");
		return 2;
	}
	if (argc > 1 && (argc != 3 || strcmp(argv[1], "-o") != 0)) {
		fprintf(stderr, "rk-sim: usage: rk-sim matrix [-o N]\n");
		return 2;
	}
	if (argc == 3 && !parse_u64("matrix -o", argv[2], false, 1, 1000000000, &v))
		return 2;
	ops = (uint32_t)v;
	/* A RETRY_EXC_ERR is a correct outcome at high loss: reconnect and go on. */
	printf("seed 1, %u operations of 0..%u bytes in every cell, link %g Gbit/s, delay 2 us\n",
	       ops, MATRIX_MAX_SIZE, (double)DEFAULT_RATE_BPS / 1e9);
	printf("%-12s %8s %14s %12s %10s %10s %8s %s\n", "cell", "ops", "bytes", "virtual s",
	       "Gbit/s", "reconnect", "lost-op", "result");
	for (size_t i = 0; i < sizeof(cells) / sizeof(cells[0]); i++) {
		struct rk_sim_wl_cfg cfg = {
			.seed = 1, .ops = ops, .max_size = MATRIX_MAX_SIZE,
			.impair = cells[i].imp, .timeout = 10, .window = 64,
			.recover = true, .max_reconnects = 1000,
		};
		struct rk_sim_wl_result r;
		int rc = rk_sim_wl_run(&cfg, &r);
		double s = (double)r.virtual_ns / 1e9;

		printf("%-12s %8" PRIu64 " %14" PRIu64 " %12.4f %10.3f %10" PRIu64 " %8" PRIu64
		       " %s\n", cells[i].name, r.completed, r.payload_bytes, s,
		       s > 0 ? (double)r.payload_bytes * 8 / s / 1e9 : 0.0, r.reconnects,
		       r.ops_lost, rc == 0 ? "ok" : r.first_error);
		fails += rc != 0;
	}
	return fails ? 1 : 0;
}

#ifdef RK_HAVE_JANSSON
int rk_sim_run_incast(int argc, char **argv);
int rk_sim_run_incast_dcqcn(int argc, char **argv);
int rk_sim_run_victim(int argc, char **argv);
int rk_sim_run_deadlock(int argc, char **argv);
int rk_sim_run_unfair(int argc, char **argv);
int rk_sim_run_recovery(int argc, char **argv);
int rk_sim_run_storm(int argc, char **argv);
int rk_sim_run_stagger(int argc, char **argv);
#endif

int
main(int argc, char **argv)
{
#ifdef RK_HAVE_JANSSON
	if (argc > 1 && strcmp(argv[1], "incast") == 0) {
		for (int i = 2; i < argc; i++)
			if (strncmp(argv[i], "--dcqcn", 7) == 0 &&
			    (argv[i][7] == 0 || argv[i][7] == '='))
				return rk_sim_run_incast_dcqcn(argc - 1, argv + 1);
		return rk_sim_run_incast(argc - 1, argv + 1);
	}
	if (argc > 1 && strcmp(argv[1], "victim") == 0)
		return rk_sim_run_victim(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "unfair") == 0)
		return rk_sim_run_unfair(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "deadlock") == 0)
		return rk_sim_run_deadlock(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "recovery") == 0)
		return rk_sim_run_recovery(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "storm") == 0)
		return rk_sim_run_storm(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "stagger") == 0)
		return rk_sim_run_stagger(argc - 1, argv + 1);
#endif
	if (argc > 1 && strcmp(argv[1], "bench") == 0)
		return run_bench(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "matrix") == 0)
		return run_matrix(argc - 1, argv + 1);
	return run_workload(argc, argv);
}
