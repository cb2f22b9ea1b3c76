/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-perf's command line: its options and perftest's refused ones, each
 * value read and range-checked; option_checks.c then judges them together.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <arpa/inet.h>

#include "perf.h"
#include "rk_cli.h"

/* Bad usage: one line on stderr, exit status 2. */
#define BAD(...) do { fprintf(stderr, "rk-perf: " __VA_ARGS__); fputc('\n', stderr); \
		      return 2; } while (0)

int
perf_parse_args(void *arg, int argc, char **argv)
{
	struct perf *p = arg;
	enum { O_GBITS = 256, O_JSON, O_VERIFY, O_COUNTERS, O_VLAN, O_IDLE, O_DROP_EVERY,
	       O_DROP_RATE, O_RX_CE, O_SEED, O_OOB_TO, O_TO, O_ARP_TO, O_LINK_TO, O_SIZES, O_IP6,
	       O_TRANSPORT, O_TCP, O_NETMASK, O_TX_COPY, O_WARMUP, O_SNAPLEN, O_IP, O_PCAP,
	       O_RUN_INF, O_RATE_LIMIT, O_RATE_UNITS, O_RATE_TYPE, O_DCQCN, O_DCQCN_PARAM,
	       O_DCQCN_TRACE,
	       O_REFUSED = 1000 };
	static const struct option base[] = {
		{ "size", 1, NULL, 's' }, { "all", 0, NULL, 'a' }, { "iters", 1, NULL, 'n' },
		{ "duration", 1, NULL, 'D' }, { "qp", 1, NULL, 'q' }, { "mtu", 1, NULL, 'm' },
		{ "tx-depth", 1, NULL, 't' }, { "rx-depth", 1, NULL, 'r' },
		{ "atomic_type", 1, NULL, 'A' }, { "CPU-freq", 0, NULL, 'F' },
		{ "port", 1, NULL, 'p' }, { "ib-dev", 1, NULL, 'd' }, { "ip", 1, NULL, O_IP },
		{ "pcap", 1, NULL, O_PCAP }, { "help", 0, NULL, 'h' }, { "version", 0, NULL, 'V' },
		{ "limit_bw", 1, NULL, 'w' }, { "limit_msgrate", 1, NULL, 'y' },
		{ "tos", 1, NULL, 'T' }, { "tclass", 1, NULL, 'T' }, { "sl", 1, NULL, 'S' },
		{ "hop_limit", 1, NULL, 'L' }, { "report-histogrm", 0, NULL, 'H' },
		{ "report-histogram", 0, NULL, 'H' }, { "report-unsorted", 0, NULL, 'U' },
		{ "ib-port", 1, NULL, 'i' }, { "connection", 1, NULL, 'c' },
		{ "cq-mod", 1, NULL, 'Q' }, { "bidirectional", 0, NULL, 'b' },
		{ "post_list", 1, NULL, 'l' }, { "qp-timeout", 1, NULL, 'u' },
		{ "noPeak", 0, NULL, 'N' }, { "outs", 1, NULL, 'o' },
		{ "run_infinitely", 0, NULL, O_RUN_INF }, { "rate_limit", 1, NULL, O_RATE_LIMIT },
		{ "rate_units", 1, NULL, O_RATE_UNITS }, { "rate_limit_type", 1, NULL, O_RATE_TYPE },
		{ "report_gbits", 0, NULL, O_GBITS }, { "json", 0, NULL, O_JSON },
		{ "verify", 0, NULL, O_VERIFY }, { "counters", 0, NULL, O_COUNTERS },
		{ "vlan", 1, NULL, O_VLAN }, { "idle", 1, NULL, O_IDLE },
		{ "tx-drop-every", 1, NULL, O_DROP_EVERY }, { "tx-drop-rate", 1, NULL, O_DROP_RATE },
		{ "rx-ecn-ce", 1, NULL, O_RX_CE },
		{ "seed", 1, NULL, O_SEED }, { "oob-timeout", 1, NULL, O_OOB_TO },
		{ "timeout", 1, NULL, O_TO }, { "arp-timeout", 1, NULL, O_ARP_TO },
		{ "link-timeout", 1, NULL, O_LINK_TO }, { "sizes", 1, NULL, O_SIZES },
		{ "ip6", 1, NULL, O_IP6 }, { "transport", 1, NULL, O_TRANSPORT },
		{ "tcp", 1, NULL, O_TCP }, { "netmask", 1, NULL, O_NETMASK },
		{ "tx-copy", 0, NULL, O_TX_COPY }, { "warmup", 1, NULL, O_WARMUP },
		{ "snaplen", 1, NULL, O_SNAPLEN }, { "dcqcn", 2, NULL, O_DCQCN },
		{ "dcqcn-param", 1, NULL, O_DCQCN_PARAM }, { "dcqcn-trace", 1, NULL, O_DCQCN_TRACE },
	};
	/* rk-perf's options, then perftest's refused ones (any argument taken, then refused). */
	static struct option lo[sizeof(base) / sizeof(base[0]) + 128];
	static char shorts[160] = ":s:an:D:q:m:t:r:A:Fp:d:hVw:y:T:S:L:HUi:c:Q:bl:u:No:";
	const struct perf_refused *refused = perf_refused_options();
	static const struct rk_app_word tcp_words[] = {
		{ "lwip", 0 }, { "kernel", 1 }, { NULL, 0 }
	};
	static const struct rk_app_word idle_words[] = {
		{ "spin", RK_IO_IDLE_SPIN }, { "adaptive", RK_IO_IDLE_ADAPTIVE },
		{ "sleep", RK_IO_IDLE_ADAPTIVE }, { NULL, 0 }
	};
	struct perf_opts *o = &p->o;
	struct perf_opts_seen g = { 0 };
	uint64_t v;
	double d;
	int c, w, li;
	size_t nlo = 0;

	*o = (struct perf_opts){
		.tcp_port = 18515, .qps = 1, .mtu = 1024, .tx_depth = 128, .rx_depth = 512,
		.seed = 1, .oob_timeout_s = 20, .timeout_s = 10, .arp_timeout_s = 3,
		.link_timeout_ms = 10000,
	};
	if (lo[0].name == NULL) {
		size_t k = strlen(shorts);

		for (; nlo < sizeof(base) / sizeof(base[0]); nlo++)
			lo[nlo] = base[nlo];
		for (int i = 0; refused[i].name != NULL && nlo + 1 < sizeof(lo) / sizeof(lo[0]); i++) {
			lo[nlo++] = (struct option){ refused[i].name, 2, NULL, O_REFUSED + i };
			if (refused[i].letter != 0 && k + 3 < sizeof(shorts)) {
				shorts[k++] = refused[i].letter;
				shorts[k++] = ':';
				shorts[k++] = ':';
			}
		}
		shorts[k] = '\0';
	}
	o->tos = o->pcp = o->qp_timeout = -1;
	optind = 1;
	opterr = 0; /* messages of our own, prefixed "rk-perf:" */
	while ((li = -1, c = rk_cli_getopt(argc, argv, shorts, lo, &li)) != -1) {
		/* A refused letter comes back as itself: its entry's value. */
		for (int i = 0; c > 0 && c < 128 && refused[i].name != NULL; i++)
			if (refused[i].letter == c)
				c = O_REFUSED + i;
		if (c >= O_REFUSED) {
			char given[64];

			if (li >= 0)
				snprintf(given, sizeof(given), "--%s", lo[li].name);
			else
				snprintf(given, sizeof(given), "-%c", refused[c - O_REFUSED].letter);
			perf_refuse_option(&refused[c - O_REFUSED], given);
			return 2;
		}
		switch (c) {
		case 's': case 'a': case O_SIZES: p->given |= GIVEN_SIZE; break;
		case 'n': case 'D': p->given |= GIVEN_RUN; break;
		case 'q': p->given |= GIVEN_QPS; break;
		case 'm': p->given |= GIVEN_MTU; break;
		case 't': p->given |= GIVEN_TX_DEPTH; break;
		case 'r': p->given |= GIVEN_RX_DEPTH; break;
		case 'A': p->given |= GIVEN_ATOMIC; break;
		case O_VERIFY: p->given |= GIVEN_VERIFY; break;
		default: break;
		}
		switch (c) {
		case 's':
			if (rk_app_parse_u64(optarg, 1, 64u * MIB, &v) != 0)
				BAD("--size: expected 1..67108864, got '%s'", optarg);
			o->size = (uint32_t)v;
			g.size_set = true;
			break;
		case 'a': o->all_sizes = true; break;
		case O_SIZES: {
			char why[160];
			int n = rk_app_parse_sizes(optarg, 1, 64u * MIB, p->sizes, PERF_MAX_SIZES,
						   why, sizeof(why));

			if (n < 0)
				BAD("--sizes: %s", why);
			p->nsizes = (uint32_t)n;
			g.list_set = true;
			break;
		}
		case 'n':
			if (rk_app_parse_u64(optarg, 1, 1ull << 38, &v) != 0)
				BAD("--iters: expected a positive count, got '%s'", optarg);
			o->iters = v;
			g.iters_set = true;
			break;
		case 'D':
			if (rk_app_parse_double(optarg, 0.001, 86400, &o->duration_s) != 0)
				BAD("--duration: expected seconds, got '%s'", optarg);
			break;
		case 'q':
			if (rk_app_parse_u64(optarg, 1, PERF_MAX_QPS, &v) != 0)
				BAD("--qp: expected 1..%d, got '%s'", PERF_MAX_QPS, optarg);
			o->qps = (uint32_t)v;
			break;
		case 'm':
			/* 1500: an Ethernet MTU, for --transport iwarp (checked below). */
			if (rk_app_parse_u64(optarg, 256, 4096, &v) != 0 || ((v & (v - 1)) != 0 && v != 1500))
				BAD("--mtu: expected 256, 512, 1024, 2048 or 4096 (--transport iwarp: "
				    "1024, 1500, 2048 or 4096), got '%s'", optarg);
			o->mtu = (uint32_t)v;
			g.mtu_set = true;
			break;
		case 't':
			if (rk_app_parse_u64(optarg, 1, 8192, &v) != 0)
				BAD("--tx-depth: expected 1..8192, got '%s'", optarg);
			o->tx_depth = (uint32_t)v;
			break;
		case 'r':
			if (rk_app_parse_u64(optarg, 2, 8192, &v) != 0)
				BAD("--rx-depth: expected 2..8192, got '%s'", optarg);
			o->rx_depth = (uint32_t)v;
			break;
		case 'A':
			if ((w = rk_app_parse_word(optarg, rk_app_words_atomic)) < 0)
				BAD("--atomic_type: expected CMP_AND_SWAP or FETCH_AND_ADD, got '%s'",
				    optarg);
			o->atomic_cas = w;
			break;
		case 'F': break;
		case 'p':
			if (rk_app_parse_u64(optarg, 1, 65535, &v) != 0)
				BAD("--port: expected a TCP port, got '%s'", optarg);
			o->tcp_port = (uint16_t)v;
			break;
		case 'd':
			o->dev = optarg;
			g.port_opt = g.port_opt != NULL ? g.port_opt : "-d";
			break;
		case O_IP:
			if (inet_pton(AF_INET, optarg, o->ip) != 1)
				BAD("--ip: expected an IPv4 address, got '%s'", optarg);
			o->have_ip = true;
			break;
		case O_IP6:
			if (inet_pton(AF_INET6, optarg, o->ip6) != 1 ||
			    (o->ip6[0] == 0 && memcmp(o->ip6, o->ip6 + 1, 15) == 0))
				BAD("--ip6: expected an IPv6 address, got '%s'", optarg);
			o->have_ip6 = true;
			break;
		case O_PCAP:
			if (*optarg == '\0')
				BAD("--pcap: expected a file name, got ''");
			o->pcap_path = optarg;
			break;
		case O_SNAPLEN:
			if (strcmp(optarg, "headers") == 0)
				o->snaplen = RK_IO_SNAP_HEADERS;
			else if (rk_app_parse_u32(optarg, 0, 65535, &o->snaplen) != 0 ||
				 (o->snaplen != 0 && o->snaplen < 14))
				BAD("--snaplen: expected headers, 0 (whole frames) or 14..65535 bytes, "
				    "got '%s'", optarg);
			g.snaplen_set = true;
			break;
		case O_DCQCN:
			/* A later --dcqcn-param changes the profile given here. */
			if (rk_dcqcn_profile(optarg != NULL ? optarg : "nvidia-default",
					     &o->dcqcn_p) != 0)
				BAD("--dcqcn: expected the profile paper or nvidia-default, got '%s'",
				    optarg);
			o->dcqcn = true;
			o->dcqcn_profile = optarg != NULL ? optarg : "nvidia-default";
			break;
		case O_DCQCN_PARAM: {
			char why[192];

			if (!o->dcqcn)
				BAD("--dcqcn-param %s: give --dcqcn[=profile] first", optarg);
			if (rk_app_dcqcn_param(&o->dcqcn_p, optarg, why, sizeof(why)) != 0)
				BAD("%s", why);
			break;
		}
		case O_TRANSPORT:
			if ((w = rk_app_parse_word(optarg, rk_app_words_transport)) < 0)
				BAD("--transport: expected roce or iwarp, got '%s'", optarg);
			o->iwarp = w;
			break;
		case O_TCP:
			if ((w = rk_app_parse_word(optarg, tcp_words)) < 0)
				BAD("--tcp: expected lwip or kernel, got '%s'", optarg);
			o->tcp_kernel = w;
			g.tcp_set = true;
			break;
		case O_NETMASK: {
			struct in_addr m;

			if (inet_pton(AF_INET, optarg, &m) != 1)
				BAD("--netmask: expected a dotted-quad mask, got '%s'", optarg);
			o->netmask = optarg;
			break;
		}
		case 'w':
			if (rk_app_parse_double(optarg, 0, 1e9, &o->limit_bw) != 0)
				BAD("-w, --limit_bw: expected perftest's least average bandwidth (MB/s, "
				    "Gb/s with --report_gbits), got '%s'; the recording is --pcap FILE",
				    optarg);
			break;
		case 'y':
			if (rk_app_parse_double(optarg, 0, 1e6, &o->limit_msgrate) != 0)
				BAD("-y, --limit_msgrate: expected perftest's least message rate (Mpps), "
				    "got '%s'", optarg);
			break;
		case 'T':
			if (rk_app_parse_u64(optarg, 0, 255, &v) != 0)
				BAD("-T, --tos, --tclass: expected a ToS byte 0..255, got '%s'", optarg);
			if ((v & 3) != 0)
				BAD("-T %s: the ECN bits (ToS & 3) are set, and rdmakit's RoCE sends "
				    "Not-ECT (no ECN, no CNPs): give DSCP << 2, e.g. -T 104 for DSCP 26",
				    optarg);
			o->tos = (int)v;
			break;
		case 'S':
			if (rk_app_parse_u64(optarg, 0, 15, &v) != 0)
				BAD("-S, --sl: expected a service level 0..15, got '%s'", optarg);
			if (v > 7)
				BAD("-S %s: over Ethernet the service level is the 802.1Q priority (PCP), "
				    "0..7", optarg);
			o->pcp = (int)v;
			break;
		case 'L':
			if (rk_app_parse_u64(optarg, 1, 255, &v) != 0)
				BAD("-L, --hop_limit: expected 1..255, got '%s'", optarg);
			o->hop_limit = (uint8_t)v;
			break;
		case 'H': o->histogram = true; break;
		case 'U': o->histogram = o->unsorted = true; break;
		case 'i':
			if (strcmp(optarg, "1") != 0)
				BAD("-i %s: a DPDK port has one port, 1; choose the port with -d", optarg);
			break;
		case 'c':
			if (strcasecmp(optarg, "RC") != 0)
				BAD("-c %s: rk-perf runs RC only (UC, UD, XRC, DC are not wired into it); "
				    "frames of any transport: rk-gen", optarg);
			break;
		case O_RUN_INF: o->run_infinitely = true; break;
		case 'b': o->bidir = true; break;
		case 'N': o->no_peak = true; break;
		case 'o':
			if (rk_app_parse_u32(optarg, 1, 16, &o->outs) != 0)
				BAD("-o, --outs: expected 1..16 READs/atomics in flight, got '%s'", optarg);
			break;
		case 'u':
			if (rk_app_parse_u64(optarg, 0, 31, &v) != 0)
				BAD("-u, --qp-timeout: expected 0..31 (4.096 us * 2^N; 0: none), got "
				    "'%s'", optarg);
			o->qp_timeout = (int)v;
			break;
		case 'l':
			if (rk_app_parse_u32(optarg, 1, PERF_MAX_POST_LIST, &o->post_list) != 0)
				BAD("-l, --post_list: expected 1..%d WRs per post, got '%s'",
				    PERF_MAX_POST_LIST, optarg);
			break;
		case 'Q':
			if (rk_app_parse_u32(optarg, 1, 1024, &o->cq_mod) != 0)
				BAD("-Q, --cq-mod: expected 1..1024 WRs per completion, got '%s'", optarg);
			break;
		case O_RATE_LIMIT:
			if (rk_app_parse_double(optarg, 1e-9, 1e12, &o->rate_limit) != 0)
				BAD("--rate_limit: expected a positive rate (--rate_units, default Gb/s), "
				    "got '%s'", optarg);
			break;
		case O_RATE_UNITS:
			if (rk_app_parse_rate_units(optarg, &o->rate_units) != 0)
				BAD("--rate_units: expected g (Gb/s), M (MiB/s) or p (messages/s), got "
				    "'%s'", optarg);
			break;
		case O_RATE_TYPE:
			if (strcmp(optarg, "SW") != 0)
				BAD("--rate_limit_type %s: rk-perf paces in software only (SW); the "
				    "port has no rate limiter of its own", optarg);
			break;
		case 'h': perf_usage(stdout); exit(0);
		case 'V': rk_cli_version("rk-perf"); exit(0);
		case O_GBITS: o->report_gbits = true; break;
		case O_JSON: o->json = true; break;
		case O_VERIFY: o->verify = true; break;
		case O_COUNTERS: o->counters = true; break;
		case O_VLAN:
			if (rk_app_parse_u64(optarg, 1, 4094, &v) != 0)
				BAD("--vlan: expected 1..4094, got '%s'", optarg);
			o->vlan = (uint16_t)v;
			break;
		case O_IDLE:
			g.port_opt = g.port_opt != NULL ? g.port_opt : "--idle";
			if ((w = rk_app_parse_word(optarg, idle_words)) < 0)
				BAD("--idle: expected spin or adaptive, got '%s'", optarg);
			o->idle = (enum rk_io_idle)w;
			break;
		case O_DROP_EVERY:
			if (rk_app_parse_u64(optarg, 2, UINT32_MAX, &v) != 0)
				BAD("--tx-drop-every: expected N >= 2, got '%s'", optarg);
			o->tx_drop_every = (uint32_t)v;
			break;
		case O_TX_COPY:
			o->tx_copy = true;
			break;
		case O_WARMUP:
			if (rk_app_parse_u64(optarg, 0, 1ull << 38, &o->warmup) != 0)
				BAD("--warmup: expected a count of iterations (0: none), got '%s'",
				    optarg);
			o->warmup_set = true;
			break;
		case O_DROP_RATE:
			if (rk_app_parse_double(optarg, 0, 0.5, &o->tx_drop_rate) != 0)
				BAD("--tx-drop-rate: expected 0..0.5, got '%s'", optarg);
			break;
		case O_RX_CE: {
			char pr[64];
			const char *colon = strchr(optarg, ':');
			size_t n = colon != NULL ? (size_t)(colon - optarg) : strlen(optarg);

			o->rx_ecn_ce_count = 0;
			if (n >= sizeof(pr))
				BAD("--rx-ecn-ce: expected P or P:N, got '%s'", optarg);
			memcpy(pr, optarg, n);
			pr[n] = '\0';
			if (rk_app_parse_double(pr, 0, 1, &o->rx_ecn_ce) != 0 ||
			    (colon != NULL && (rk_app_parse_u64(colon + 1, 1, UINT64_MAX,
								&o->rx_ecn_ce_count) != 0)))
				BAD("--rx-ecn-ce: expected a probability 0..1, optionally :N frames "
				    "(N >= 1), got '%s'", optarg);
			break;
		}
		case O_DCQCN_TRACE:
			o->dcqcn_trace = optarg;
			break;
		case O_SEED:
			if (rk_app_parse_u64(optarg, 0, UINT64_MAX, &o->seed) != 0)
				BAD("--seed: expected a number, got '%s'", optarg);
			break;
		case O_OOB_TO: case O_TO: case O_ARP_TO: case O_LINK_TO:
			if (rk_app_parse_double(optarg, 0.1, 3600, &d) != 0)
				BAD("--%s: expected seconds (0.1..3600), got '%s'",
				    c == O_OOB_TO ? "oob-timeout" : c == O_TO ? "timeout" :
				    c == O_ARP_TO ? "arp-timeout" : "link-timeout", optarg);
			if (c == O_OOB_TO)
				o->oob_timeout_s = d;
			else if (c == O_TO)
				o->timeout_s = d;
			else if (c == O_ARP_TO)
				o->arp_timeout_s = d;
			else
				o->link_timeout_ms = (uint32_t)(d * 1e3);
			if ((c == O_ARP_TO || c == O_LINK_TO) && g.port_opt == NULL)
				g.port_opt = c == O_ARP_TO ? "--arp-timeout" : "--link-timeout";
			break;
		case ':':
		case '?':
			rk_cli_refused("rk-perf", c, argc, argv);
			return 2;
		default:
			rk_cli_hint("rk-perf");
			return 2;
		}
	}
	return perf_check_options(p, &g, argc, argv);
}
