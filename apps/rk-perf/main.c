/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-perf: perftest-style RDMA benchmarks (write, read, send, atomic; bandwidth
 * and latency) between two rdmakit endpoints on DPDK ports. QP information is
 * exchanged over TCP; the client's parameters win, as every phase is driven by
 * the client.
 *
 *   rk-perf [EAL options --] TEST [options]            server
 *   rk-perf [EAL options --] TEST [options] SERVER     client
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE     /* sched_getaffinity */
#endif
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <arpa/inet.h>

#include "perf.h"
#include "rk_cli.h"

#define BAD(...) do { fprintf(stderr, "rk-perf: " __VA_ARGS__); fputc('\n', stderr); \
		      return 2; } while (0)

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: rk-perf [EAL options --] TEST [options]          server\n"
		"       rk-perf [EAL options --] TEST [options] SERVER   client\n"
		"TEST: write_bw write_lat read_bw read_lat send_bw send_lat atomic_bw atomic_lat\n"
		"Without \"--\", the EAL gets --in-memory --no-pci --log-level=*:warning\n"
		"(--no-huge -m512 --no-shconf instead of --in-memory without free hugepages).\n"
		"options (perftest's where they mean the same):\n"
		"  -s, --size N           message size in bytes (default 65536 bw, 2 lat; atomics:\n"
		"                         8 only)\n"
		"  -a, --all              sizes 2 to 8388608\n"
		"      --sizes LIST       sizes to run, e.g. 1,4096,1048576\n"
		"  -n, --iters N          iterations per QP (default 5000 bw, 1000 lat)\n"
		"  -D, --duration S       run each size for S seconds instead\n"
		"      --warmup N         latency tests: N iterations per size before the\n"
		"                         measured ones, not counted (default 2048, at most\n"
		"                         128 MiB of messages; 0: none); the client's applies\n"
		"  -q, --qp N             QPs (bw tests; default 1, at most 64)\n"
		"  -m, --mtu N            path MTU 256, 512, 1024, 2048, 4096 (default 1024)\n"
		"  -t, --tx-depth N       outstanding sends per QP (default 128)\n"
		"  -r, --rx-depth N       receives posted per QP (default 512); iWARP send_bw:\n"
		"                         the client sends only into these (credits, no RNR)\n"
		"  -A, --atomic_type T    FETCH_AND_ADD (default) or CMP_AND_SWAP\n"
		"  -F, --CPU-freq         accepted for perftest compatibility\n"
		"  -w, --limit_bw B       bandwidth tests: fail (exit 1) when a size's average\n"
		"                         bandwidth is below B (MB/s, Gb/s with --report_gbits)\n"
		"  -y, --limit_msgrate R  bandwidth tests: fail when a size's message rate is\n"
		"                         below R Mpps\n"
		"      --rate_limit R     bandwidth tests: the client posts at most R (software\n"
		"                         pacing; --rate_limit_type SW only)\n"
		"      --rate_units U     of --rate_limit: g Gb/s (default), M MiB/s, p msg/s\n"
		"      --run_infinitely   bandwidth tests: intervals of -D seconds (default 5),\n"
		"                         a result line each, until SIGINT or SIGTERM (exit 0)\n"
		"  -H, --report-histogram latency tests: every latency (us), sorted, before the\n"
		"                         result line\n"
		"  -U, --report-unsorted  latency tests: every latency as measured, then -H's\n"
		"  -T, --tos, --tclass N  IP ToS / traffic class of the RoCEv2 packets: DSCP << 2\n"
		"                         (ECN bits 0: rdmakit sends Not-ECT)\n"
		"  -S, --sl N             service level: the 802.1Q priority (PCP 0..7), with\n"
		"                         --vlan\n"
		"  -L, --hop_limit N      IPv4 TTL / IPv6 hop limit of the RoCEv2 packets (64)\n"
		"  -Q, --cq-mod N         bandwidth tests: one completion per N WRs (at most the\n"
		"                         window, -t or the buffer's slots with --verify)\n"
		"  -l, --post_list N      bandwidth tests: N WRs per post call, the last of each\n"
		"                         signalled unless -Q (which must divide N)\n"
		"  -o, --outs N           read and atomic tests: at most N in flight per QP\n"
		"                         (max_rd_atomic, 1..16, default 16)\n"
		"  -N, --noPeak           bandwidth tests: no peak, reported as 0 (perftest's)\n"
		"  -b, --bidirectional    write_bw, read_bw: the server runs the test towards the\n"
		"                         client at once; the client reports both (summed)\n"
		"  -u, --qp-timeout N     RoCE's local ACK timeout, 4.096 us * 2^N (default 14,\n"
		"                         67 ms; 0: none, --timeout still ends a stalled phase)\n"
		"  -i, --ib-port 1        a DPDK port has one port\n"
		"  -c, --connection RC    the only transport service rk-perf runs\n"
		"  -p, --port N           TCP port of the out-of-band exchange (default 18515)\n"
		"      --report_gbits     bandwidth in Gb/s\n"
		"      --json             results as JSON on stdout\n"
		"      --verify           check all data\n"
		"      --counters         print the NIC-style counters at the end, also after\n"
		"                         an error\n"
		"  -d, --ib-dev NAME      DPDK port name (default port 0)\n"
		"      --ip A.B.C.D       this endpoint's IPv4 address\n"
		"      --ip6 ADDR         this endpoint's IPv6 address: RoCEv2 over IPv6\n"
		"                         (one of --ip and --ip6 is required; the peer gives\n"
		"                         the same kind)\n"
		"      --vlan ID          802.1Q tag on every frame\n"
		"      --pcap FILE        record every frame sent and received (pcapng); a\n"
		"                         thread of its own writes the file, the datapath\n"
		"                         only copies each frame's recorded bytes\n"
		"      --snaplen N|headers  with --pcap: bytes of each frame recorded, the rest\n"
		"                         cut (its length kept); 0: whole frames; headers: each\n"
		"                         RoCEv2 frame up to its payload. Default: headers for\n"
		"                         RoCE bandwidth tests, else 0\n"
		"      --dcqcn[=PROFILE]  DCQCN congestion control on every QP (RoCEv2): profile\n"
		"                         nvidia-default (default) or paper; starts at\n"
		"                         rpg_max_rate, or 100 Gb/s when it is 0\n"
		"      --dcqcn-param N=V  set one DCQCN parameter by its NVIDIA name (after --dcqcn)\n"
		"      --dcqcn-trace FILE with --dcqcn: QP 0's reaction point as CSV, a row per\n"
		"                         event that changes it (CNP, alpha update, rate\n"
		"                         increase): time_s, event, rc_mbps, rt_mbps,\n"
		"                         alpha, tx_frames\n"
		"      --idle P           spin, or adaptive (spin-then-sleep, default)\n"
		"      --tx-drop-every N  drop every Nth frame sent (RoCE; over iWARP/lwIP, TCP\n"
		"                         segments). RoCE resends go-back-N, the same frames in\n"
		"                         order: with a small N the retries can lose the same\n"
		"                         packet every time until the retry counter is exceeded\n"
		"      --tx-drop-rate P   drop frames sent (as above) with probability P, 0..0.5\n"
		"                         (seeded; no such pattern). With --tx-drop-every too,\n"
		"                         a frame is dropped when either one says so\n"
		"      --seed N           seed of --tx-drop-rate and --rx-ecn-ce (default 1)\n"
		"      --rx-ecn-ce P[:N]  mark CE on ECN-capable RoCE frames received with\n"
		"                         probability P, 0..1 (lib/impair: as a congested\n"
		"                         switch would; the NP of --dcqcn answers with CNPs);\n"
		"                         with :N only among the first N frames received, so\n"
		"                         the sender's recovery follows\n"
		"      --tx-copy          copy every payload into its frame; by default a port\n"
		"                         whose driver copies frames out (memif, af_packet,\n"
		"                         pcap, tap, null) reads payloads of 512 B and more\n"
		"                         where they lie\n"
		"      --oob-timeout S    TCP connect/accept and message timeout (default 20)\n"
		"      --timeout S        data phase: fail after S seconds without progress, i.e.\n"
		"                         nothing acknowledged, received or completed (10)\n"
		"      --arp-timeout S    ARP resolution timeout (default 3)\n"
		"      --link-timeout S   wait for link up (default 10)\n"
		"      --transport T      roce (RoCEv2, default) or iwarp (MPA Rev 2, RFC 6581\n"
		"                         peer-to-peer RTR, CRC; one TCP connection per QP on\n"
		"                         port -p + 1; no atomics; -m: interface MTU, MSS at\n"
		"                         most 1460; default 1500)\n"
		"      --tcp B            iWARP's TCP: lwip (on the DPDK port, default) or\n"
		"                         kernel (sockets to SERVER, no DPDK port used, so\n"
		"                         no --pcap, -d, --vlan, --idle, --tx-drop-*, --tx-copy,\n"
		"                         --arp-timeout, --link-timeout, --netmask)\n"
		"      --netmask M        lwIP interface netmask (default 255.255.255.0)\n"
		"  -h, --help             this text\n"
		"  -V, --version          print the version\n"
		"\n"
		"The server runs the client's test, -s/-a/--sizes, -n/-D, -q, -m, -t, -r, -A,\n"
		"--verify and -b, and notes on stderr those it was given otherwise (-r as well,\n"
		"unlike perftest: both ends lay out buffers and iWARP credits from it). The\n"
		"rest is each end's own; --transport and the IP version must match.\n"
		"\n"
		"Every other perftest option (inline size, GID index, RDMA-CM, ODP, SRQ, ...)\n"
		"is refused with one line naming what rk-perf offers instead.\n"
		"\n"
		"Exit status: 0 ok (and data verified with --verify), 1 a run-time error\n"
		"(peer unreachable, timeout, completion error, data mismatch, SIGINT or\n"
		"SIGTERM: \"interrupted\"), 2 bad usage.\n");
}

static int
parse_args(void *arg, int argc, char **argv)
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
	bool size_set = false, iters_set = false, list_set = false, tcp_set = false;
	bool snaplen_set = false;
	bool mtu_set = false;
	/* The first option given that acts on the DPDK port only. */
	const char *port_opt = NULL;
	uint64_t v;
	double d;
	int c, ti, w, li;
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
			size_set = true;
			break;
		case 'a': o->all_sizes = true; break;
		case O_SIZES: {
			char why[160];
			int n = rk_app_parse_sizes(optarg, 1, 64u * MIB, p->sizes, PERF_MAX_SIZES,
						   why, sizeof(why));

			if (n < 0)
				BAD("--sizes: %s", why);
			p->nsizes = (uint32_t)n;
			list_set = true;
			break;
		}
		case 'n':
			if (rk_app_parse_u64(optarg, 1, 1ull << 38, &v) != 0)
				BAD("--iters: expected a positive count, got '%s'", optarg);
			o->iters = v;
			iters_set = true;
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
			mtu_set = true;
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
			port_opt = port_opt != NULL ? port_opt : "-d";
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
			snaplen_set = true;
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
			tcp_set = true;
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
		case 'h': usage(stdout); exit(0);
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
			port_opt = port_opt != NULL ? port_opt : "--idle";
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
			if ((c == O_ARP_TO || c == O_LINK_TO) && port_opt == NULL)
				port_opt = c == O_ARP_TO ? "--arp-timeout" : "--link-timeout";
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
	if (optind >= argc)
		BAD("missing TEST (write_bw, read_lat, ...); --help for usage");
	for (ti = 0; perf_engines[ti] != NULL; ti++)
		if (strcmp(argv[optind], perf_engines[ti]->name) == 0)
			break;
	if (perf_engines[ti] == NULL)
		BAD("unknown test '%s' (write_bw write_lat read_bw read_lat send_bw send_lat "
		    "atomic_bw atomic_lat)", argv[optind]);
	p->e = perf_engines[ti];
	o->verb = p->e->verb;
	o->mode = p->e->mode;
	optind++;
	/* GNU getopt moved the options first: what is left is the server. */
	if (optind < argc)
		o->server_host = argv[optind++];
	/* "--dcqcn paper": an optional value goes with '=' */
	if (o->server_host != NULL && (strcmp(o->server_host, "paper") == 0 ||
				       strcmp(o->server_host, "nvidia-default") == 0))
		BAD("'%s' is taken as the server: write the profile as --dcqcn=%s",
		    o->server_host, o->server_host);
	if (optind < argc)
		BAD("unexpected argument '%s'", argv[optind]);
	o->server = o->server_host == NULL;
	if (!o->have_ip && !o->have_ip6)
		BAD("--ip A.B.C.D or --ip6 ADDR is required (this endpoint's address, "
		    "e.g. 198.18.0.1)");
	if (o->have_ip && o->have_ip6)
		BAD("--ip and --ip6 exclude each other: RoCEv2 runs over one IP version");
	if (o->mode == MODE_LAT && o->qps != 1)
		BAD("latency tests use one QP (-q 1)");
	if ((o->all_sizes ? 1 : 0) + (size_set ? 1 : 0) + (list_set ? 1 : 0) > 1)
		BAD("-a, -s and --sizes exclude each other");
	if (o->duration_s > 0 && iters_set)
		BAD("-D and -n exclude each other");
	if (o->warmup_set && o->mode != MODE_LAT)
		BAD("--warmup goes with the latency tests (write_lat, read_lat, send_lat, "
		    "atomic_lat)");
	if ((o->limit_bw > 0 || o->limit_msgrate > 0) && o->mode != MODE_BW)
		BAD("%s goes with the bandwidth tests (perftest's meaning: the least average "
		    "that passes)", o->limit_bw > 0 ? "-w, --limit_bw" : "-y, --limit_msgrate");
	if (o->histogram && o->mode != MODE_LAT)
		BAD("-%c goes with the latency tests (write_lat, read_lat, send_lat, atomic_lat)",
		    o->unsorted ? 'U' : 'H');
	if (o->histogram && o->json)
		BAD("-%c prints a text list; --json has the statistics", o->unsorted ? 'U' : 'H');
	if (o->pcp >= 0 && o->vlan == 0)
		BAD("-S: the service level is sent as the 802.1Q priority (PCP), which needs a "
		    "tag: give --vlan ID too");
	if (o->iwarp && (o->tos >= 0 || o->hop_limit != 0))
		BAD("%s sets the RoCEv2 packets' IP header; over --transport iwarp TCP/IP is "
		    "lwIP's or the kernel's", o->tos >= 0 ? "-T" : "-L");
	if (o->iwarp && o->qp_timeout >= 0)
		BAD("-u sets RoCE's ACK timeout; over --transport iwarp TCP retransmits");
	if (o->dcqcn_trace != NULL && !o->dcqcn)
		BAD("--dcqcn-trace goes with --dcqcn (it traces the reaction point)");
	if (o->iwarp && o->dcqcn)
		BAD("--dcqcn is RoCEv2's congestion control (CNPs); over --transport iwarp "
		    "TCP's own applies");
	if (o->bidir && (o->mode != MODE_BW || (o->verb != VERB_WRITE && o->verb != VERB_READ)))
		BAD("-b runs write_bw and read_bw both ways; %s is not wired for it (send_bw "
		    "would need the client's receives, atomic_bw shares the counter's slot)",
		    p->e->name);
	if (o->bidir && (o->verify || o->iwarp || o->rate_limit > 0))
		BAD("-b goes without %s: the server's direction %s", o->verify ? "--verify" :
		    o->iwarp ? "--transport iwarp" : "--rate_limit",
		    o->verify ? "writes into the slots the client checks" :
		    o->iwarp ? "is not wired over iWARP" : "would run unpaced");
	if (o->outs > 0 && (o->iwarp || (o->verb != VERB_READ && o->verb != VERB_ATOMIC)))
		BAD("-o bounds RoCE's READs and atomics in flight (read_*, atomic_*); iWARP's "
		    "ORD is the MPA set-up's");
	if (o->no_peak && o->mode != MODE_BW)
		BAD("-N goes with the bandwidth tests (the peak is theirs)");
	if (o->post_list > 1 && o->mode != MODE_BW)
		BAD("-l goes with the bandwidth tests");
	if (o->post_list > 1 && o->post_list > o->tx_depth)
		BAD("-l %u: more than -t %u WRs in flight", o->post_list, o->tx_depth);
	if (o->post_list > 1 && o->cq_mod > 1 && o->post_list % o->cq_mod != 0)
		BAD("-l %u: a multiple of -Q %u, as perftest asks (or no -Q: one completion per "
		    "list)", o->post_list, o->cq_mod);
	if (o->post_list > 1 && o->iwarp && o->verb == VERB_SEND)
		BAD("-l with send_bw over iWARP: SENDs go out one by one against the server's "
		    "credits");
	/* perftest: a list's last WR is signalled unless -Q says otherwise. */
	if (o->post_list > 1 && o->cq_mod == 0)
		o->cq_mod = o->post_list;
	if (o->cq_mod > 1 && o->mode != MODE_BW)
		BAD("-Q goes with the bandwidth tests: a latency test waits for each completion");
	if (o->rate_limit > 0 && o->mode != MODE_BW)
		BAD("--rate_limit goes with the bandwidth tests");
	if (o->rate_units != 0 && o->rate_limit <= 0)
		BAD("--rate_units goes with --rate_limit");
	if (o->rate_units == 0)
		o->rate_units = 'g';
	if (o->run_infinitely) {
		if (o->mode != MODE_BW)
			BAD("--run_infinitely goes with the bandwidth tests, as in perftest");
		if (iters_set)
			BAD("--run_infinitely runs intervals of -D seconds (default 5), not -n");
		if (o->all_sizes || (list_set && p->nsizes > 1))
			BAD("--run_infinitely runs one size: give -s N");
		if (o->duration_s <= 0)
			o->duration_s = 5;
	}
	if (!iters_set)
		o->iters = o->mode == MODE_BW ? 5000 : 1000;
	/* A bandwidth test's payloads would make the recording the bottleneck:
	 * headers only, unless asked. iWARP's byte stream needs every byte. */
	if (!snaplen_set && o->mode == MODE_BW && !o->iwarp)
		o->snaplen = RK_IO_SNAP_HEADERS;
	/* An atomic's operand is 8 bytes: another size would be run as 8 unsaid. */
	for (uint32_t i = 0; o->verb == VERB_ATOMIC && list_set && i < p->nsizes; i++)
		if (p->sizes[i] != 8)
			BAD("%s moves 8 bytes (an atomic's operand), not %u: give -s 8 or no size",
			    p->e->name, p->sizes[i]);
	if (o->verb == VERB_ATOMIC && ((size_set && o->size != 8) || o->all_sizes))
		BAD("%s moves 8 bytes (an atomic's operand)%s: give -s 8 or no size", p->e->name,
		    o->all_sizes ? ", so -a has no sizes to run" : ", not the size of -s");
	if (o->verb == VERB_ATOMIC) {
		p->sizes[0] = 8;
		p->nsizes = 1;
	} else if (list_set) {
		/* p->sizes holds the list */
	} else if (o->all_sizes) {
		p->nsizes = 0;
		for (uint32_t s = 2; s <= 8 * MIB; s <<= 1)
			p->sizes[p->nsizes++] = s;
	} else {
		p->sizes[0] = size_set ? o->size : o->mode == MODE_BW ? 65536 : 2;
		p->nsizes = 1;
	}
	if (o->mode == MODE_LAT && o->verb == VERB_WRITE && p->sizes[0] < 1)
		BAD("write_lat needs a size of at least 1");
	if (!o->iwarp && o->mtu == 1500)
		BAD("--mtu: expected 256, 512, 1024, 2048 or 4096, got '1500' (an Ethernet MTU: "
		    "for --transport iwarp)");
	/* iWARP: the interface MTU, Ethernet's unless asked (MSS 1460). */
	if (o->iwarp && !mtu_set)
		o->mtu = 1500;
	if (!o->iwarp && (tcp_set || o->netmask != NULL))
		BAD("%s goes with --transport iwarp", tcp_set ? "--tcp" : "--netmask");
	if (o->iwarp) {
		/* RFC 7306 atomics are not negotiated by rk-perf's MPA set-up. */
		if (o->verb == VERB_ATOMIC)
			BAD("atomics over iWARP need RFC 7306, which rk-perf does not negotiate: "
			    "use write, read or send");
		if (o->have_ip6)
			BAD("--transport iwarp runs over IPv4 (lwIP): give --ip");
		if (o->tcp_port == 65535)
			BAD("--transport iwarp: the data connections use TCP port -p + 1, so -p "
			    "must be below 65535");
		if (o->mtu < 1024)
			BAD("--transport iwarp: -m is the interface MTU: 1024, 1500, 2048 or 4096 "
			    "(default 1500)");
		if (o->tcp_kernel && o->pcap_path != NULL)
			BAD("--tcp kernel has no DPDK port to record (--pcap): record with tcpdump");
		/* What these change happens on the DPDK port, which kernel sockets skip. */
		if (o->tcp_kernel && (o->tx_drop_every != 0 || o->tx_drop_rate > 0))
			BAD("--tcp kernel has no DPDK port to drop frames on (--tx-drop-every, "
			    "--tx-drop-rate): use --tcp lwip");
		if (o->tcp_kernel && o->vlan != 0)
			BAD("--tcp kernel has no DPDK port to tag frames on (--vlan): give the "
			    "kernel a VLAN interface");
		if (o->tcp_kernel && o->tx_copy)
			BAD("--tcp kernel has no DPDK port to copy payloads on (--tx-copy)");
		if (o->tcp_kernel && o->netmask != NULL)
			BAD("--tcp kernel uses the kernel's interfaces: --netmask sets lwIP's");
		if (o->tcp_kernel && port_opt != NULL)
			BAD("--tcp kernel has no DPDK port for %s to act on: use --tcp lwip",
			    port_opt);
		if (!o->tcp_kernel && !perf_iw_has_lwip())
			BAD("this rk-perf was built without lwIP (liblwip-dev): use --tcp kernel");
	}
	p->own = *o;
	memcpy(p->own_sizes, p->sizes, sizeof(p->sizes));
	p->own_nsizes = p->nsizes;
	return 0;
}

/* Whether the EAL options chose the cores (-l, -c, --lcores, --main-lcore). */
static bool
lcores_given(const struct rk_io_dpdk_args *a)
{
	for (int i = 1; i < a->eal_argc; i++) {
		const char *s = a->eal_argv[i];

		if (strncmp(s, "-l", 2) == 0 || strncmp(s, "-c", 2) == 0 ||
		    strncmp(s, "--lcores", 8) == 0 || strncmp(s, "--main-lcore", 12) == 0)
			return true;
	}
	return false;
}

int
main(int argc, char **argv)
{
	struct perf *p = calloc(1, sizeof(*p));
	struct rk_io_dpdk_cfg cfg = { 0 };
	struct rk_device_attr da = { 0 };
	struct rk_io_dpdk_args args;
	cpu_set_t cpus;
	int rc;

	if (p == NULL)
		return 1;
	p->fd = -1;
	p->lfd = -1;
	rc = rk_app_start("rk-perf", argc, argv, &args, parse_args, p);
	if (rc != 0) {
		free(p);
		return rc;
	}
	p->wd.timeout_s = p->o.timeout_s;
	p->jresults = json_array();

	sched_getaffinity(0, sizeof(cpus), &cpus);
	rc = rk_app_eal_init("rk-perf", &args);
	if (rc != 0)
		return rc;
	/*
	 * The EAL pins this thread to its main lcore (core 0 by default):
	 * two kernel-socket ends on one machine would share that core and
	 * each round trip wait for the scheduler. No port polls here, so
	 * unless a core was asked for, run where the shell allowed.
	 */
	if (p->o.iwarp && p->o.tcp_kernel && !lcores_given(&args))
		sched_setaffinity(0, sizeof(cpus), &cpus);
	cfg.port_name = p->o.dev;
	memcpy(cfg.ip, p->o.ip, 4);
	memcpy(cfg.ip6, p->o.ip6, 16);
	cfg.vlan_id = p->o.vlan;
	cfg.vlan_pcp = p->o.pcp > 0 ? (uint8_t)p->o.pcp : 0;
	cfg.idle = p->o.idle;
	cfg.link_timeout_ms = p->o.link_timeout_ms;
	cfg.pcapng_path = p->o.pcap_path;
	cfg.snaplen = p->o.snaplen;
	cfg.tx_drop_every = p->o.tx_drop_every;
	cfg.tx_drop_rate = p->o.tx_drop_rate;
	cfg.tx_drop_seed = p->o.seed;
	cfg.tx_copy = p->o.tx_copy;
	cfg.cancel = &rk_app_stop;
	if (!rk_app_recording_writable("rk-perf", p->o.pcap_path) ||
	    perf_dcqcn_trace_open(p) != 0) {
		rk_io_dpdk_eal_cleanup();
		return 1;
	}
	/* Before the port waits for its link: a taken -p is said at once. */
	if (p->o.server && (rc = rk_oob_listen_open(p->o.tcp_port, &p->lfd)) != 0) {
		if (rc == -EADDRINUSE)
			fprintf(stderr, "rk-perf: error: TCP port %u is in use (another rk-perf "
				"server?): give another with -p\n", p->o.tcp_port);
		else
			fprintf(stderr, "rk-perf: error: cannot listen on TCP port %u: %s\n",
				p->o.tcp_port, strerror(-rc));
		rk_io_dpdk_eal_cleanup();
		json_decref(p->jresults);
		free(p);
		return 1;
	}
	if (p->o.iwarp && p->o.tcp_kernel)
		goto open_iwarp;        /* kernel sockets: no DPDK port */
	p->io = rk_app_port_open("rk-perf", &cfg);
	if (p->io == NULL) {
		if (p->lfd >= 0)
			close(p->lfd);
		rk_io_dpdk_eal_cleanup();
		json_decref(p->jresults);
		free(p);
		return 1;
	}
	if (p->o.iwarp) {
open_iwarp:
		p->iw = perf_iw_open(p->io, &p->o, &p->ctx, p->err, sizeof(p->err));
		if (p->iw == NULL) {
			fprintf(stderr, "rk-perf: %s\n", p->err);
			rc = 1;
			goto out;
		}
		goto run;
	}
	rk_io_dpdk_mac(p->io, da.mac);
	if (p->o.have_ip6) {
		memcpy(da.ip, p->o.ip6, 16);
		da.ip_version = 6;
	} else {
		da.ip[10] = da.ip[11] = 0xff;
		memcpy(da.ip + 12, p->o.ip, 4);
		da.ip_version = 4;
	}
	da.max_qp = PERF_MAX_QPS + 2;
	da.max_inflight_pkts = 1024;
	/*
	 * Ping-pong: the reply leaves before the ACK of the request it answers
	 * (an ACK is never on the peer's critical path, the reply always is).
	 */
	if (p->o.mode == MODE_LAT)
		da.ack_delay_ns = 5000;
	if (p->o.rx_ecn_ce > 0) {
		/* Received frames pass the impairment stage, which marks CE. */
		const struct rk_impair_rule ce = { .ecn_ce = p->o.rx_ecn_ce,
						   .seed = p->o.seed ? p->o.seed : 1,
						   .count = p->o.rx_ecn_ce_count };
		const struct rk_impair_io_cfg icfg = { .inner = &rk_io_dpdk_ops, .inner_io = p->io,
							.rx_rules = &ce, .n_rx_rules = 1 };

		p->rx_imp = rk_impair_io_create(&icfg);
		if (p->rx_imp == NULL) {
			fprintf(stderr, "rk-perf: --rx-ecn-ce: %s\n", strerror(errno));
			rc = 1;
			goto out;
		}
		p->ctx = rk_open_device(&rk_impair_io_ops, p->rx_imp, &da);
	} else {
		p->ctx = rk_open_device(&rk_io_dpdk_ops, p->io, &da);
	}
	if (p->ctx == NULL) {
		fprintf(stderr, "rk-perf: cannot open the RDMA device: %s\n", strerror(errno));
		rc = 1;
		goto out;
	}
run:
	rc = exchange(p);
	if (rc == 0)
		rc = p->o.server ? server_phases(p) : client_phases(p);
	rc = rc != 0 ? 1 : 0;
	if (rc != 0)
		abort_client(p);
	if (p->o.json)
		print_json(p, rc);
	if (rc != 0) {
		/* What stdout had before the error stays before it. */
		fflush(stdout);
		fprintf(stderr, "rk-perf: error: %s\n", p->err[0] ? p->err : "failed");
		/* The counters tell most about a failed run: after the error, as usual on stdout. */
		if (p->o.counters && !p->o.json)
			print_counters(p);
	}
	/*
	 * Out before the clean-up: after a signal, the SIGALRM guard (or a
	 * second signal) ends the process without flushing stdout, and the
	 * results or counters of a file or pipe would be lost.
	 */
	fflush(stdout);
	/* Let the last ACKs leave before the port goes away. */
	for (uint64_t t = now_ns() + 20000000ull; p->ctx != NULL && now_ns() < t;)
		perf_idle(p, rk_progress(p->ctx));
out:
	/*
	 * The server's port goes first: the client waits (up to 2 s) until the
	 * server has closed its port and then the TCP connection. 22.11's memif
	 * PMD can fault in its interrupt thread when the peer leaves while the
	 * port is still polled (seen as a server crash at the end of a run).
	 */
	if (!p->o.server && p->fd >= 0) {
		wait_eof(p->fd, 2000);
		close(p->fd);
		p->fd = -1;
	}
	destroy_resources(p);
	if (p->rx_imp != NULL) {
		const struct rk_impair_rule_stats *st =
			rk_impair_stats(rk_impair_io_stage(p->rx_imp, true), 0);

		fprintf(stderr, "rk-perf: --rx-ecn-ce: %" PRIu64 " of %" PRIu64
			" frames received marked CE%s\n", st->ce_marked, st->matched,
			p->o.rx_ecn_ce_count != 0 ? " (the first ones)" : "");
		rk_impair_io_destroy(p->rx_imp);
		p->rx_imp = NULL;
	}
	if (p->iw != NULL) {
		/* The streams' FINs leave before lwIP goes. */
		for (uint64_t t = now_ns() + 50000000ull; now_ns() < t;)
			perf_idle(p, 0);
		perf_iw_close(p->iw);
		p->iw = NULL;
	}
	if (p->jresults != NULL)
		json_decref(p->jresults);
	if (p->io != NULL && rk_app_port_close("rk-perf", p->io, p->o.pcap_path) != 0)
		rc = 1;
	if (p->fd >= 0)
		close(p->fd);
	if (p->lfd >= 0)
		close(p->lfd);
	if (perf_dcqcn_trace_close(p) != 0 && rc == 0)
		rc = 1;
	/*
	 * No rte_eal_cleanup(): the ports are closed and the recording is
	 * written; with --no-huge, 22.11's cleanup sometimes reports
	 * "Invalid memory" after large runs, and exit releases everything.
	 */
	free(p);
	return rc;
}
