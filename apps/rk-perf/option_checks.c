/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * After the options: the test and the server named on the command line,
 * the combinations rk-perf refuses (exit 2, one line saying why) and the
 * defaults that depend on the test.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "perf.h"

/* Bad usage: one line on stderr, exit status 2. */
#define BAD(...) do { fprintf(stderr, "rk-perf: " __VA_ARGS__); fputc('\n', stderr); \
		      return 2; } while (0)

int
perf_check_options(struct perf *p, const struct perf_opts_seen *g, int argc, char **argv)
{
	struct perf_opts *o = &p->o;
	int ti;

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
	if ((o->all_sizes ? 1 : 0) + (g->size_set ? 1 : 0) + (g->list_set ? 1 : 0) > 1)
		BAD("-a, -s and --sizes exclude each other");
	if (o->duration_s > 0 && g->iters_set)
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
		if (g->iters_set)
			BAD("--run_infinitely runs intervals of -D seconds (default 5), not -n");
		if (o->all_sizes || (g->list_set && p->nsizes > 1))
			BAD("--run_infinitely runs one size: give -s N");
		if (o->duration_s <= 0)
			o->duration_s = 5;
	}
	if (!g->iters_set)
		o->iters = o->mode == MODE_BW ? 5000 : 1000;
	/* A bandwidth test's payloads would make the recording the bottleneck:
	 * headers only, unless asked. iWARP's byte stream needs every byte. */
	if (!g->snaplen_set && o->mode == MODE_BW && !o->iwarp)
		o->snaplen = RK_IO_SNAP_HEADERS;
	/* An atomic's operand is 8 bytes: another size would be run as 8 unsaid. */
	for (uint32_t i = 0; o->verb == VERB_ATOMIC && g->list_set && i < p->nsizes; i++)
		if (p->sizes[i] != 8)
			BAD("%s moves 8 bytes (an atomic's operand), not %u: give -s 8 or no size",
			    p->e->name, p->sizes[i]);
	if (o->verb == VERB_ATOMIC && ((g->size_set && o->size != 8) || o->all_sizes))
		BAD("%s moves 8 bytes (an atomic's operand)%s: give -s 8 or no size", p->e->name,
		    o->all_sizes ? ", so -a has no sizes to run" : ", not the size of -s");
	if (o->verb == VERB_ATOMIC) {
		p->sizes[0] = 8;
		p->nsizes = 1;
	} else if (g->list_set) {
		/* p->sizes holds the list */
	} else if (o->all_sizes) {
		p->nsizes = 0;
		for (uint32_t s = 2; s <= 8 * MIB; s <<= 1)
			p->sizes[p->nsizes++] = s;
	} else {
		p->sizes[0] = g->size_set ? o->size : o->mode == MODE_BW ? 65536 : 2;
		p->nsizes = 1;
	}
	if (o->mode == MODE_LAT && o->verb == VERB_WRITE && p->sizes[0] < 1)
		BAD("write_lat needs a size of at least 1");
	if (!o->iwarp && o->mtu == 1500)
		BAD("--mtu: expected 256, 512, 1024, 2048 or 4096, got '1500' (an Ethernet MTU: "
		    "for --transport iwarp)");
	/* iWARP: the interface MTU, Ethernet's unless asked (MSS 1460). */
	if (o->iwarp && !g->mtu_set)
		o->mtu = 1500;
	if (!o->iwarp && (g->tcp_set || o->netmask != NULL))
		BAD("%s goes with --transport iwarp", g->tcp_set ? "--tcp" : "--netmask");
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
		if (o->tcp_kernel && g->port_opt != NULL)
			BAD("--tcp kernel has no DPDK port for %s to act on: use --tcp lwip",
			    g->port_opt);
		if (!o->tcp_kernel && !perf_iw_has_lwip())
			BAD("this rk-perf was built without lwIP (liblwip-dev): use --tcp kernel");
	}
	p->own = *o;
	memcpy(p->own_sizes, p->sizes, sizeof(p->sizes));
	p->own_nsizes = p->nsizes;
	return 0;
}
