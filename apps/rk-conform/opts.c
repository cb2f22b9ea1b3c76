/* SPDX-License-Identifier: BSD-3-Clause */
/* rk-conform's command line (opts.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "expect.h"
#include "opts.h"
#include "rk_cli.h"
#include "rk_conform.h"

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: rk-conform [options]\n"
		"  --dut self|perftest   the device under test: rdmakit's own engine in process\n"
		"                        (default), or a live one behind a DPDK port through its\n"
		"                        perftest bw servers (EAL options first, then --)\n"
		"  --server HOST         perftest: the host of the DUT's servers (TCP exchange;\n"
		"                        required)\n"
		"  --serve VERB=PORT     perftest: the TCP port of the DUT's server of VERB (write,\n"
		"                        read, send, atomic: one perftest tool each); repeat; or\n"
		"                        all=PORT: one server of every verb (rk-testpmd's\n"
		"                        responder; the default, all=18515); cm=PORT: the\n"
		"                        DUT's RDMA-CM listener (a perftest -R server, the\n"
		"                        responder's rdma_cm) for the cm.* cases; rping=PORT:\n"
		"                        an iWARP DUT's persistent rping server (rping -s -P;\n"
		"                        Linux siw) for the iw.* cases, a TCP connection\n"
		"                        (lwIP) per case\n"
		"  --dut-ip A.B.C.D      perftest: the DUT's RoCE address, where cm.* cases send\n"
		"                        their REQs, or its iWARP one (rping=); default:\n"
		"                        --server, when an IPv4 address\n"
		"  --ip A.B.C.D          perftest: our IPv4 address on the port (required)\n"
		"  --size BYTES          perftest: the servers' -s (default 4096): their region's size\n"
		"  --mtu BYTES           perftest: our path MTU, 256..4096 (default 1024)\n"
		"  --min-rnr-timer N     perftest: the DUT's minimum RNR timer, 0..31 (default 12,\n"
		"                        perftest's)\n"
		"  --port NAME           perftest: the DPDK port (default: the first)\n"
		"  --oob-netns NAME      perftest: open the TCP exchange in network namespace NAME\n"
		"  --record FILE         perftest: record the port's frames (pcapng)\n"
		"  --cases GLOB[,GLOB]   run only the cases whose ID matches a shell glob\n"
		"  --list                list the cases (ID, transport, rule, what the DUT must do)\n"
		"  --markdown            with --list: as a Markdown table\n"
		"  --timeout-ms MS       longest wait for an answer (default 50)\n"
		"  --connect-timeout S   perftest: how long a case retries a server that refuses\n"
		"                        or does not answer its connection (default 30)\n"
		"  --max-setup-failures N  perftest: stop after N cases in a row found no QP\n"
		"                        on the DUT (its servers gone; default 3, 0: never)\n"
		"  --json FILE           the verdicts as JSON\n"
		"  --junit FILE          the verdicts as JUnit XML\n"
		"  --pcap-dir DIR        a pcap of each failing case's frames, DIR/ID.pcap\n"
		"  --replay FILE         instead of the catalog: replay the requester's side of the\n"
		"                        RC conversation recorded in FILE (pcap or pcapng) against\n"
		"                        the DUT and compare its answers with the recorded ones\n"
		"  --replay-qp QPN       with --replay: the conversation whose requests go to\n"
		"                        DestQP QPN (1..0xffffff; default: the first RC request's);\n"
		"                        the case's ID is then replay.FILE.qp0xQPN (six hex\n"
		"                        digits); QPN@ADDRESS: the requests from ADDRESS (IPv4\n"
		"                        or IPv6) to it, ID ...@ADDRESS; all: every conversation\n"
		"                        in turn (up to 32), a case each, @ADDRESS where two\n"
		"                        requesters share a QPN\n"
		"  --verdicts FILE       each case's verdict, a line \"ID VERDICT\" each\n"
		"  --expect FILE         compare the verdicts with FILE (a --verdicts file); exit 1\n"
		"                        when one differs, 0 when all match\n"
		"  -h, --help            this text\n"
		"  -V, --version         print the version\n"
		"Exit status: 0 when no case failed, 1 when one did (with --expect: when a\n"
		"verdict differs), 2 for bad options or an input that cannot be read (a\n"
		"recording cut inside a record: after the verdicts on the frames before the\n"
		"cut), 130 when Ctrl-C (or SIGTERM) ended the run: the outputs then hold the\n"
		"cases that ended before it.\n");
}

/* The requester of --replay-qp QPN@ADDRESS, in rk_conform_conv's form. */
static int
parse_from(struct opts *o, const char *a)
{
	memset(o->replay_from, 0, 16);
	if (inet_pton(AF_INET, a, o->replay_from + 12) == 1)
		o->replay_from[10] = o->replay_from[11] = 0xff;
	else if (inet_pton(AF_INET6, a, o->replay_from) != 1)
		return -1;
	o->replay_from_set = true;
	return 0;
}

static int
parse_serve(struct opts *o, const char *spec)
{
	static const char *const verbs[] = { "write", "read", "send", "atomic" };
	const char *eq = strchr(spec, '=');
	unsigned long port;
	char *end = NULL;
	int v;

	port = eq != NULL && eq[1] >= '0' && eq[1] <= '9' ? strtoul(eq + 1, &end, 10) : 0;
	if (port == 0 || *end != 0 || port > 65535)
		goto bad;
	if ((eq - spec == 2 && strncmp(spec, "cm", 2) == 0) ||
	    (eq - spec == 5 && strncmp(spec, "rping", 5) == 0)) {
		uint16_t *lis = spec[0] == 'c' ? &o->cm_port : &o->rping_port;

		if (*lis != 0) {
			fprintf(stderr, "rk-conform: --serve %s: %.*s has a listener already\n", spec,
				(int)(eq - spec), spec);
			return -1;
		}
		*lis = (uint16_t)port;
		o->serve_given = true;
		return 0;
	}
	for (v = 0; v < 4; v++)
		if (strlen(verbs[v]) == (size_t)(eq - spec) && strncmp(spec, verbs[v], strlen(verbs[v])) == 0)
			break;
	if (v == 4 && !((size_t)(eq - spec) == 3 && strncmp(spec, "all", 3) == 0))
		goto bad;
	/* One server per verb: a second --serve for it, or beside all=, is a typo. */
	for (int i = 0; i < 4; i++)
		if ((v == 4 || i == v) && (o->tcp_port[i] != 0 || o->one_server)) {
			fprintf(stderr, "rk-conform: --serve %s: %s has a server already\n", spec,
				v == 4 ? "a verb" : verbs[v]);
			return -1;
		}
	for (int i = 0; i < 4; i++)
		if (v == 4 || i == v)
			o->tcp_port[i] = (uint16_t)port;
	o->one_server = v == 4;
	o->serve_given = true;
	return 0;
bad:
	fprintf(stderr, "rk-conform: --serve %s: expected VERB=PORT, VERB one of write, read, "
		"send, atomic, all, cm, rping, PORT 1..65535\n", spec);
	return -1;
}

static int
parse_num(struct opts *o, int c, const char *s)
{
	const char *name = c == 'z' ? "--size" : c == 'M' ? "--mtu" :
			   c == 'F' ? "--max-setup-failures" : "--min-rnr-timer";
	unsigned long min = c == 'z' ? 8 : c == 'M' ? 256 : 0;
	unsigned long max = c == 'z' ? 1u << 30 : c == 'M' ? 4096 : c == 'F' ? 1000 : 31;
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (*s == 0 || *end != 0 || *s == '-' || v < min || v > max ||
	    (c == 'M' && (v & (v - 1)) != 0)) {
		fprintf(stderr, "rk-conform: %s %s: not %s in %lu..%lu\n", name, s,
			c == 'M' ? "a power of two" : "a number", min, max);
		return -1;
	}
	o->live_num_given = true;
	if (c == 'z')
		o->size = (uint32_t)v;
	else if (c == 'M') {
		o->mtu = (uint32_t)v;
		o->mtu_given = true;
	}
	else if (c == 'F')
		o->max_setup_failures = (uint32_t)v;
	else
		o->min_rnr = (uint32_t)v;
	return 0;
}

/* --cases: each glob of the list matches a case (a typo in one must not
 * pass as fewer cases run), and so does the list. */
static int
check_cases(const char *globs)
{
	unsigned int n, hit = 0;
	const struct rk_conform_case *all = rk_conform_cases(&n);
	const char *g = globs;
	char one[128];

	while (*g != 0) {
		size_t len = strcspn(g, ",");
		unsigned int k = 0;

		if (len >= sizeof(one)) {
			fprintf(stderr, "rk-conform: --cases: a glob longer than %zu bytes\n",
				sizeof(one) - 1);
			return -1;
		}
		memcpy(one, g, len);
		one[len] = 0;
		while (len > 0 && k < n && !rk_conform_id_match(one, all[k].id))
			k++;
		if (len > 0 && k == n && strchr(globs, ',') != NULL) {
			fprintf(stderr, "rk-conform: --cases '%s': '%s' matches no case ID (--list)\n",
				globs, one);
			return -1;
		}
		g += len + (g[len] == ',');
	}
	for (unsigned int i = 0; i < n; i++)
		hit += rk_conform_id_match(globs, all[i].id);
	if (hit == 0) {
		fprintf(stderr, "rk-conform: --cases '%s': no case ID matches (--list)\n", globs);
		return -1;
	}
	return 0;
}

/* The live DUT's options: all or nothing. */
static int
check_live(struct opts *o)
{
	bool live = strcmp(o->dut, "perftest") == 0;
	struct in_addr a;

	if (!live) {
		if (o->server || o->ip || o->port || o->oob_netns || o->record || o->serve_given ||
		    o->live_num_given || o->dut_ip) {
			fprintf(stderr, "rk-conform: --server, --serve, --ip, --dut-ip, --size, --mtu, "
				"--min-rnr-timer, --connect-timeout, --max-setup-failures, --port, "
				"--oob-netns and --record go with --dut perftest\n");
			return -1;
		}
		return 0;
	}
#ifndef RK_CONFORM_DPDK
	fprintf(stderr, "rk-conform: --dut perftest: this rk-conform was built without DPDK\n");
	return -1;
#endif
	if (o->server == NULL || o->ip == NULL) {
		fprintf(stderr, "rk-conform: --dut perftest needs --server HOST and --ip A.B.C.D\n");
		return -1;
	}
	if (inet_pton(AF_INET, o->ip, &a) != 1) {
		fprintf(stderr, "rk-conform: --ip %s: not an IPv4 address\n", o->ip);
		return -1;
	}
	if (!o->serve_given) {
		for (int i = 0; i < 4; i++)
			o->tcp_port[i] = 18515;
		o->one_server = true;
	}
#ifndef RK_CONFORM_LWIP
	if (o->rping_port != 0) {
		fprintf(stderr, "rk-conform: --serve rping=%u: this rk-conform was built without "
			"lwIP (no iWARP)\n", o->rping_port);
		return -1;
	}
#endif
	/* the CM's REQs and lwIP's connections go to the DUT's address:
	 * --dut-ip, or --server's */
	if (o->dut_ip == NULL && (o->cm_port != 0 || o->rping_port != 0) &&
	    inet_pton(AF_INET, o->server, &a) == 1)
		o->dut_ip = o->server;
	if ((o->cm_port != 0 || o->rping_port != 0) && o->dut_ip == NULL) {
		fprintf(stderr, "rk-conform: --serve %s=%u needs --dut-ip A.B.C.D (--server %s is "
			"no IPv4 address)\n", o->cm_port != 0 ? "cm" : "rping",
			o->cm_port != 0 ? o->cm_port : o->rping_port, o->server);
		return -1;
	}
	if (o->dut_ip != NULL && inet_pton(AF_INET, o->dut_ip, &a) != 1) {
		fprintf(stderr, "rk-conform: --dut-ip %s: not an IPv4 address\n", o->dut_ip);
		return -1;
	}
	return 0;
}

int
rk_cf_opts_parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "dut", required_argument, NULL, 'd' },
		{ "cases", required_argument, NULL, 'c' },
		{ "list", no_argument, NULL, 'l' },
		{ "markdown", no_argument, NULL, 'm' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ "connect-timeout", required_argument, NULL, 'C' },
		{ "json", required_argument, NULL, 'j' },
		{ "junit", required_argument, NULL, 'u' },
		{ "pcap-dir", required_argument, NULL, 'p' },
		{ "verdicts", required_argument, NULL, 'v' },
		{ "replay", required_argument, NULL, 'R' },
		{ "replay-qp", required_argument, NULL, 'Q' },
		{ "expect", required_argument, NULL, 'e' },
		{ "server", required_argument, NULL, 'S' },
		{ "serve", required_argument, NULL, 's' },
		{ "ip", required_argument, NULL, 'I' },
		{ "dut-ip", required_argument, NULL, 'D' },
		{ "size", required_argument, NULL, 'z' },
		{ "mtu", required_argument, NULL, 'M' },
		{ "min-rnr-timer", required_argument, NULL, 'r' },
		{ "max-setup-failures", required_argument, NULL, 'F' },
		{ "port", required_argument, NULL, 'P' },
		{ "oob-netns", required_argument, NULL, 'n' },
		{ "record", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' }, { "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct opts){ .dut = "self", .timeout_ms = 50, .size = 4096, .mtu = 1024,
			    .min_rnr = 12, .connect_timeout_s = 30,
			    .max_setup_failures = 3 };
	opterr = 0;
	while ((c = rk_cli_getopt(argc, argv, ":hV", lo, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'd': o->dut = optarg; break;
		case 'c': o->cases = optarg; break;
		case 'l': o->list = true; break;
		case 'm': o->markdown = true; break;
		case 't':
			o->timeout_ms = strtod(optarg, &end);
			if (end == optarg || *end != 0) {
				fprintf(stderr, "rk-conform: --timeout-ms %s: not a number\n", optarg);
				return 2;
			}
			if (!(o->timeout_ms >= 0.001 && o->timeout_ms <= 60000)) {
				fprintf(stderr, "rk-conform: --timeout-ms %s: not in 0.001..60000\n",
					optarg);
				return 2;
			}
			break;
		case 'C':
			o->connect_timeout_s = strtod(optarg, &end);
			if (end == optarg || *end != 0) {
				fprintf(stderr, "rk-conform: --connect-timeout %s: not a number\n",
					optarg);
				return 2;
			}
			if (!(o->connect_timeout_s >= 0.1 && o->connect_timeout_s <= 3600)) {
				fprintf(stderr, "rk-conform: --connect-timeout %s: not in 0.1..3600 "
					"seconds\n", optarg);
				return 2;
			}
			o->live_num_given = true;
			break;
		case 'j': o->json = optarg; break;
		case 'u': o->junit = optarg; break;
		case 'p': o->pcap_dir = optarg; break;
		case 'v': o->verdicts = optarg; break;
		case 'R':
			if (o->replay != NULL) {
				fprintf(stderr, "rk-conform: --replay %s: one recording per run (%s "
					"given before; --replay-qp all replays each of its "
					"conversations)\n", optarg, o->replay);
				return 2;
			}
			o->replay = optarg;
			break;
		case 'Q': {
			char *qend;
			unsigned long v;

			/* every conversation of the recording, one case each */
			if (strcmp(optarg, "all") == 0) {
				o->replay_all = true;
				break;
			}
			errno = 0;
			v = strtoul(optarg, &qend, 0);
			if (*qend == '@' && parse_from(o, qend + 1) == 0)
				qend += strlen(qend);
			if (*optarg == 0 || *optarg == '-' || *qend != 0 || errno != 0 || v == 0 ||
			    v > 0xffffff) {
				fprintf(stderr, "rk-conform: --replay-qp %s: not a QPN in 1..0xffffff "
					"(with @ADDRESS: an IPv4 or IPv6 address), nor all\n", optarg);
				return 2;
			}
			o->replay_qp = (uint32_t)v;
			break;
		}
		case 'e': o->expect = optarg; break;
		case 'S': o->server = optarg; break;
		case 'I': o->ip = optarg; break;
		case 'D': o->dut_ip = optarg; break;
		case 'P': o->port = optarg; break;
		case 'n': o->oob_netns = optarg; break;
		case 'w': o->record = optarg; break;
		case 's':
			if (parse_serve(o, optarg) != 0)
				return 2;
			break;
		case 'z': case 'M': case 'r': case 'F':
			if (parse_num(o, c, optarg) != 0)
				return 2;
			break;
		case 'h': usage(stdout); exit(0);
		case 'V': rk_cli_version("rk-conform"); exit(0);
		default:
			rk_cli_refused("rk-conform", c, argc, argv);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rk-conform: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (strcmp(o->dut, "self") != 0 && strcmp(o->dut, "perftest") != 0) {
		fprintf(stderr, "rk-conform: --dut %s: unknown DUT (known: self, perftest)\n",
			o->dut);
		return 2;
	}
	if (check_live(o) != 0)
		return 2;
	if ((o->replay_qp != 0 || o->replay_all) && o->replay == NULL) {
		fprintf(stderr, "rk-conform: --replay-qp goes with --replay\n");
		return 2;
	}
	if (o->replay != NULL && (o->cases != NULL || o->list)) {
		fprintf(stderr, "rk-conform: --replay runs no catalog: no --cases or --list\n");
		return 2;
	}
	if (o->markdown && !o->list) {
		fprintf(stderr, "rk-conform: --markdown goes with --list\n");
		return 2;
	}
	if (o->list && (o->json != NULL || o->junit != NULL || o->pcap_dir != NULL ||
			o->verdicts != NULL || o->expect != NULL)) {
		fprintf(stderr, "rk-conform: --list runs nothing: no --json, --junit, --pcap-dir, "
			"--verdicts or --expect\n");
		return 2;
	}
	if (o->expect != NULL && rk_cf_expect_load_check(o->expect) != 0)
		return 2;
	if (o->cases != NULL && check_cases(o->cases) != 0)
		return 2;
	/* An output that cannot be written is said before the run, not after it. */
	for (int i = 0; i < 3; i++) {
		static const char *const name[] = { "--json", "--junit", "--verdicts" };
		const char *path = i == 0 ? o->json : i == 1 ? o->junit : o->verdicts;
		FILE *t;

		if (path == NULL)
			continue;
		if ((t = fopen(path, "w")) == NULL) {
			fprintf(stderr, "rk-conform: %s %s: %s\n", name[i], path, strerror(errno));
			return 2;
		}
		fclose(t);
	}
	return 0;
}

