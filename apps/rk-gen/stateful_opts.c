/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-gen's stateful mode, its command line: the options, which end each
 * belongs to, the usage (also part of rk-gen --help, so of its man page).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_app.h"
#include "rk_cli.h"
#include "rk_plot.h"
#include "gen.h"
#include "stateful.h"
#include "stateful_run.h"

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int
bad(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "rk-gen: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	/* one line: the hint ends it, as getopt's errors' (--help for usage) */
	fprintf(stderr, " (--help for usage)\n");
	return -1;
}

static int
parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (s[0] == '-' || s[0] == '\0')
		return -1;
	v = strtoull(s, &end, 0);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* write|read|send|atomic|cmp_swap, or a mix: write:3,read:1 */
static int
parse_ops(const char *spec, struct rk_gen_hello *h)
{
	static const char *const names[RK_GEN_HELLO_NOPS] = { "write", "read", "send", "atomic",
							      "cmp_swap" };
	char buf[128], *save = NULL, *tok;

	/* strtok_r would skip an empty element: write, is a typo, not write */
	if (strlen(spec) >= sizeof(buf) || spec[0] == ',' || strstr(spec, ",,") != NULL ||
	    (spec[0] != '\0' && spec[strlen(spec) - 1] == ','))
		return -1;
	strcpy(buf, spec);
	h->ops = 0;
	memset(h->weight, 0, sizeof(h->weight));
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		uint64_t w = 1;
		int b;

		if (colon != NULL) {
			*colon = '\0';
			if (parse_u64(colon + 1, 1, 100, &w) != 0)
				return -1;
		}
		for (b = 0; b < RK_GEN_HELLO_NOPS && strcmp(tok, names[b]) != 0; b++)
			;
		if (b == RK_GEN_HELLO_NOPS || (h->ops & (1u << b)))
			return -1;
		h->ops |= (uint8_t)(1u << b);
		h->weight[b] = (uint8_t)w;
	}
	return h->ops != 0 ? 0 : -1;
}

enum {
	O_RESPONDER = 256, O_STATEFUL, O_QPS, O_OP, O_SIZE, O_DURATION, O_ITERS, O_DEPTH,
	O_VERIFY, O_NO_VERIFY, O_JSON, O_PORT, O_IP, O_MTU, O_OOB_PORT, O_DROP_RATE, O_SEED,
	O_TIMEOUT, O_WORST, O_ACK_TIMEOUT, O_DSCP, O_DCQCN, O_DCQCN_PARAM, O_RECORD, O_INTERVAL,
	O_CSV, O_PLOT, O_CLIENTS, O_IP_COUNT, O_PERFTEST, O_END
};

static const struct option long_opts[] = {
	{ "responder", 0, NULL, O_RESPONDER }, { "stateful", 1, NULL, O_STATEFUL },
	{ "qps", 1, NULL, O_QPS }, { "clients", 1, NULL, O_CLIENTS },
	{ "ip-count", 1, NULL, O_IP_COUNT },
	{ "op", 1, NULL, O_OP }, { "size", 1, NULL, O_SIZE },
	{ "duration", 1, NULL, O_DURATION }, { "iters", 1, NULL, O_ITERS },
	{ "depth", 1, NULL, O_DEPTH }, { "verify", 0, NULL, O_VERIFY },
	{ "no-verify", 0, NULL, O_NO_VERIFY }, { "json", 0, NULL, O_JSON },
	{ "port", 1, NULL, O_PORT }, { "ip", 1, NULL, O_IP }, { "mtu", 1, NULL, O_MTU },
	{ "oob-port", 1, NULL, O_OOB_PORT }, { "tx-drop-rate", 1, NULL, O_DROP_RATE },
	{ "seed", 1, NULL, O_SEED }, { "timeout", 1, NULL, O_TIMEOUT },
	{ "worst", 1, NULL, O_WORST }, { "ack-timeout", 1, NULL, O_ACK_TIMEOUT },
	{ "dscp", 1, NULL, O_DSCP }, { "dcqcn", 2, NULL, O_DCQCN },
	{ "dcqcn-param", 1, NULL, O_DCQCN_PARAM }, { "record", 1, NULL, O_RECORD },
	{ "interval", 1, NULL, O_INTERVAL }, { "csv", 1, NULL, O_CSV },
	{ "plot", 1, NULL, O_PLOT }, { "perftest", 0, NULL, O_PERFTEST },
	{ "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 },
};

/*
 * Options of one end only, refused at the other where they would do
 * nothing: the client's hello carries the traffic's parameters (the
 * responder takes them from it), the responder's limits are its own.
 */
static const struct {
	int opt;
	bool responder;         /* the responder's; else the client's */
	const char *why;
} one_end[] = {
	{ O_CLIENTS, true, "each client is its own rk-gen" },
	{ O_QPS, true, "its limit for all clients; a client asks with --stateful N" },
	{ O_IP_COUNT, false, "the responder answers at each client's addresses" },
	{ O_OP, false, "the client's hello sets it for both ends" },
	{ O_SIZE, false, "the client's hello sets it for both ends" },
	{ O_ITERS, false, "the client decides when the run ends" },
	{ O_DURATION, false, "the client decides when the run ends" },
	{ O_DEPTH, false, "the client's hello sets it for both ends" },
	{ O_VERIFY, false, "the client's hello sets it for both ends" },
	{ O_NO_VERIFY, false, "the client's hello sets it for both ends" },
	{ O_MTU, false, "the client's hello sets it for both ends" },
	{ O_PERFTEST, false, "the client of a perftest server" },
};

static const char *
opt_name(int val)
{
	for (const struct option *l = long_opts; l->name != NULL; l++)
		if (l->val == val)
			return l->name;
	return "?";
}

/* An option of the other end given: said in a line, -1; else 0. */
static int
check_end(const struct rk_sf_opts *o, const bool *given)
{
	for (size_t i = 0; i < sizeof(one_end) / sizeof(one_end[0]); i++)
		if (given[one_end[i].opt - O_RESPONDER] && one_end[i].responder != o->responder)
			return bad("--%s is the %s's (%s)", opt_name(one_end[i].opt),
				   one_end[i].responder ? "responder" : "client", one_end[i].why);
	return 0;
}

bool
rk_sf_only_option(const char *name)
{
	/* --op, --port, --json, ... are both modes' */
	if (strncmp(name, "--", 2) != 0 || rk_gen_stateless_option(name))
		return false;
	for (const struct option *l = long_opts; l->name != NULL; l++)
		if (strcmp(l->name, name + 2) == 0)
			return true;
	return false;
}

/* --dscp 26 or 26,46,...: QP i takes the (i mod n)-th. */
static int
parse_dscp(const char *spec, struct rk_sf_opts *o)
{
	const char *p = spec;

	o->ndscp = 0;
	for (;;) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(p, &end, 0);
		if (end == p || errno != 0 || v > 63 || o->ndscp == RK_SF_DSCP_MAX ||
		    (*end != ',' && *end != '\0') || *p == '-')
			return -1;
		o->dscp[o->ndscp++] = (uint8_t)v;
		if (*end == '\0')
			return 0;
		p = end + 1;
	}
}

static void
usage(FILE *f)
{
	fputs("usage: rk-gen [EAL options --] --responder [--clients K] [--qps N] --port PORT\n"
	      "              --ip ADDR\n"
	      "       rk-gen [EAL options --] --stateful N [traffic options] --port PORT\n"
	      "              --ip ADDR SERVER\n"
	      "RC connections through lib/verbs on one DPDK port: N QPs to a responder,\n"
	      "their parameters exchanged over TCP with SERVER (doc/gen.md, \"Stateful mode\").\n"
	      "\n", f);
	rk_sf_usage_options(f);
	fputs("  -h, --help             this text\n", f);
}

void
rk_sf_usage_options(FILE *f)
{
	fputs("      --responder        accept clients' QPs and answer them\n"
	      "      --clients K        responder: serve K clients at once, each its own QPs,\n"
	      "                         checked and reported apart (1..64, default 1): an\n"
	      "                         N:1 incast of real connections\n"
	      "      --qps N            responder: the most QPs it accepts, all clients\n"
	      "                         together (default 4096)\n"
	      "      --stateful N       client: open N RC QPs (1..65533)\n"
	      "      --op OPS           write, read, send, atomic, cmp_swap or a mix:\n"
	      "                         write:3,read:1 (default write); WRITE and SEND carry\n"
	      "                         an Immediate, atomic is a FETCH_ADD of 1, cmp_swap a\n"
	      "                         CMP_SWAP of the value expected to it + 1 (atomics:\n"
	      "                         --size at least 8)\n"
	      "      --size N|MIN-MAX   message bytes (default 1024)\n"
	      "      --iters N          messages per QP (default 100)\n"
	      "      --duration S       instead: post for S seconds, then drain\n"
	      "      --depth D          messages outstanding per QP (default 4)\n"
	      "      --verify           check every message's data (default)\n"
	      "      --no-verify        do not fill or check the data\n"
	      "      --mtu BYTES        path MTU: 256..4096 (default 1024)\n"
	      "      --port PORT        DPDK port (ethdev name or number)\n"
	      "      --ip ADDR          this end's IPv4 address (198.18.0.0/15 in tests)\n"
	      "      --ip-count M       client: M addresses from ADDR up, in its /24 (1..256,\n"
	      "                         default 1): the port plays M hosts, QP i sends from\n"
	      "                         the (i mod M)-th, answers ARP for each\n"
	      "      --perftest         client: the responder is a perftest bw server\n"
	      "                         (ib_write_bw, ib_read_bw or ib_atomic_bw -q N, an\n"
	      "                         RNIC's or rxe's): --op write, read or atomic, its\n"
	      "                         -s as --size; READs checked against each QP's\n"
	      "                         first, FETCH_ADDs count up from the first's result\n"
	      "      --oob-port N       TCP port of the exchange (default 18515)\n"
	      "      --tx-drop-rate P   drop frames sent with probability P (loss injection)\n"
	      "      --seed N           seed of --tx-drop-rate\n"
	      "      --timeout S        no progress for S seconds is an error (default 10);\n"
	      "                         so is a port's link not up within S seconds\n"
	      "      --ack-timeout N    Local ACK Timeout 4.096 us * 2^N (default: 14, one\n"
	      "                         more per doubling of QPs x depth above 1024)\n"
	      "      --dscp D[,D...]    DSCP of each QP's frames: QP i the (i mod n)-th\n"
	      "                         (0..63, at most 16; default 0); each end its own\n"
	      "      --dcqcn[=PROFILE]  DCQCN on every QP (frames ECT(0), CNPs for CE marks,\n"
	      "                         the rate limiter): paper or nvidia-default (default)\n"
	      "      --dcqcn-param N=V  one DCQCN parameter by its NVIDIA name (after --dcqcn)\n"
	      "      --record FILE      the port's frames to pcapng, up to their payload\n"
	      "      --interval S       a series over time, a row each S seconds (default 1\n"
	      "                         with --csv or --plot): rates, errors, retransmitted,\n"
	      "                         outstanding, latency p50/p99; in --json too; a\n"
	      "                         responder of --clients K: a row per client, then\n"
	      "                         one of all (CSV: a client column)\n"
	      "      --csv FILE         the series as CSV (-: stdout, instead of the report)\n"
	      "      --plot FILE.png    the series drawn (gnuplot)\n"
	      "      --worst K          QPs in the final table (default 5)\n"
	      "      --json             the report as JSON on stdout\n", f);
}

/*
 * --perftest: a perftest bw server's QPs take only its own operation (rxe
 * NAKs another as an invalid request), of its one size, no Immediate.
 */
static int
check_perftest(const struct rk_sf_opts *o)
{
	uint8_t ops = o->cfg.ops;

	if (ops != RK_GEN_OP_WRITE && ops != RK_GEN_OP_READ && ops != RK_GEN_OP_ATOMIC)
		return bad("%s", "--perftest: --op write, read or atomic, one of them (the server's "
			   "QPs allow only its own operation: ib_write_bw, ib_read_bw, ib_atomic_bw)");
	if (o->cfg.size_min != o->cfg.size_max)
		return bad("--perftest: one --size (the server's -s), not %u-%u", o->cfg.size_min,
			   o->cfg.size_max);
	if (o->ip_count > 1)
		return bad("%s", "--perftest: not with --ip-count (the key messages carry one "
			   "address)");
	return 0;
}

int
rk_sf_parse(struct rk_sf_opts *o, int argc, char **argv)
{
	bool given[O_END - O_RESPONDER] = { false };
	uint64_t v, w;
	char *end;
	int c;

	o->peer = &rk_sf_peer_rkgen;
	o->cfg.ops = RK_GEN_OP_WRITE;
	o->cfg.weight[0] = 1;
	o->cfg.size_min = o->cfg.size_max = 1024;
	o->cfg.depth = 4;
	o->cfg.mtu = 1024;
	o->cfg.verify = 1;
	o->max_qps = 4096;
	o->clients = 1;
	o->ip_count = 1;
	o->iters = 100;
	o->oob_port = 18515;
	o->timeout_s = 10;
	o->worst = 5;
	optind = 1;
	opterr = 0;
	while ((c = rk_cli_getopt(argc, argv, ":h", long_opts, NULL)) != -1) {
		if (c >= O_RESPONDER && c < O_END)
			given[c - O_RESPONDER] = true;
		switch (c) {
		case O_RESPONDER:
			o->responder = true;
			break;
		case O_STATEFUL:
			/* "--stateful -h": help wanted, not a QP count */
			if (strcmp(optarg, "--help") == 0 || strcmp(optarg, "-h") == 0) {
				usage(stdout);
				return 1;
			}
			if (parse_u64(optarg, 1, RK_SF_MAX_QPS, &v) != 0)
				return bad("--stateful %s: QPs are 1..%u", optarg, RK_SF_MAX_QPS);
			o->cfg.count = (uint32_t)v;
			break;
		case O_CLIENTS:
			if (parse_u64(optarg, 1, RK_SF_MAX_CLIENTS, &v) != 0)
				return bad("--clients %s: 1..%u", optarg, RK_SF_MAX_CLIENTS);
			o->clients = (uint32_t)v;
			break;
		case O_QPS:
			if (parse_u64(optarg, 1, RK_SF_MAX_QPS, &v) != 0)
				return bad("--qps %s: QPs are 1..%u", optarg, RK_SF_MAX_QPS);
			o->max_qps = (uint32_t)v;
			break;
		case O_OP:
			if (parse_ops(optarg, &o->cfg) != 0)
				return bad("--op %s: write, read, send, atomic, cmp_swap, or a mix "
					   "like write:3,read:1 (weights 1..100, each op once, "
					   "no empty one)",
					   optarg);
			break;
		case O_SIZE:
			errno = 0;
			v = strtoull(optarg, &end, 0);
			w = v;
			if (*end == '-' && end != optarg)
				w = strtoull(end + 1, &end, 0);
			if (errno != 0 || *end != '\0' || optarg[0] == '-' || v == 0 || w < v ||
			    w > (1u << 24))
				return bad("--size %s: bytes 1..16777216, or MIN-MAX", optarg);
			o->cfg.size_min = (uint32_t)v;
			o->cfg.size_max = (uint32_t)w;
			break;
		case O_DURATION:
			o->duration_s = strtod(optarg, &end);
			if (*end != '\0' || !(o->duration_s > 0 && o->duration_s < 1e6))
				return bad("--duration %s: seconds above 0", optarg);
			break;
		case O_ITERS:
			if (parse_u64(optarg, 1, UINT64_MAX / 2, &v) != 0)
				return bad("--iters %s: messages per QP, at least 1", optarg);
			o->iters = v;
			break;
		case O_DEPTH:
			if (parse_u64(optarg, 1, 4096, &v) != 0)
				return bad("--depth %s: 1..4096", optarg);
			o->cfg.depth = (uint32_t)v;
			break;
		case O_PERFTEST:
			o->peer = &rk_sf_peer_perftest;
			break;
		case O_VERIFY:
		case O_NO_VERIFY:
			o->cfg.verify = c == O_VERIFY;
			break;
		case O_JSON:
			o->json = true;
			break;
		case O_PORT:
			o->port = optarg;
			break;
		case O_IP:
			if (inet_pton(AF_INET, optarg, o->ip) != 1)
				return bad("--ip %s: an IPv4 address", optarg);
			o->have_ip = true;
			break;
		case O_IP_COUNT:
			if (parse_u64(optarg, 1, RK_GEN_HELLO_MAX_ADDRS, &v) != 0)
				return bad("--ip-count %s: addresses 1..%u", optarg,
					   RK_GEN_HELLO_MAX_ADDRS);
			o->ip_count = (uint16_t)v;
			break;
		case O_MTU:
			if (parse_u64(optarg, 256, 4096, &v) != 0 || (v & (v - 1)) != 0)
				return bad("--mtu %s: 256, 512, 1024, 2048 or 4096", optarg);
			o->cfg.mtu = (uint32_t)v;
			break;
		case O_OOB_PORT:
			if (parse_u64(optarg, 1, 65535, &v) != 0)
				return bad("--oob-port %s: 1..65535", optarg);
			o->oob_port = (uint16_t)v;
			break;
		case O_DROP_RATE:
			o->tx_drop_rate = strtod(optarg, &end);
			if (*end != '\0' || !(o->tx_drop_rate >= 0 && o->tx_drop_rate < 1))
				return bad("--tx-drop-rate %s: a probability, 0 to below 1", optarg);
			break;
		case O_SEED:
			if (parse_u64(optarg, 0, UINT64_MAX, &v) != 0)
				return bad("--seed %s: a number", optarg);
			o->seed = v;
			break;
		case O_TIMEOUT:
			o->timeout_s = strtod(optarg, &end);
			if (*end != '\0' || !(o->timeout_s > 0 && o->timeout_s < 1e6))
				return bad("--timeout %s: seconds above 0", optarg);
			break;
		case O_WORST:
			if (parse_u64(optarg, 0, 1000, &v) != 0)
				return bad("--worst %s: 0..1000", optarg);
			o->worst = (uint32_t)v;
			break;
		case O_ACK_TIMEOUT:
			if (parse_u64(optarg, 1, 31, &v) != 0)
				return bad("--ack-timeout %s: an exponent 1..31 (4.096 us * 2^N)", optarg);
			o->ack_timeout = (uint8_t)v;
			break;
		case O_RECORD:
			o->record = optarg;
			break;
		case O_INTERVAL: {
			double d = strtod(optarg, &end);

			if (*end != '\0' || !(d >= 0.001 && d <= 3600))
				return bad("--interval %s: seconds, 0.001 to 3600", optarg);
			o->interval_ns = (uint64_t)(d * 1e9);
			break;
		}
		case O_CSV:
			o->csv = optarg;
			break;
		case O_PLOT:
			o->plot = optarg;
			break;
		case O_DSCP:
			if (parse_dscp(optarg, o) != 0)
				return bad("--dscp %s: values 0..63, at most %d, by commas", optarg,
					   RK_SF_DSCP_MAX);
			break;
		case O_DCQCN:
			/* a later --dcqcn-param changes the profile given here */
			if (rk_dcqcn_profile(optarg != NULL ? optarg : "nvidia-default",
					     &o->dcqcn_p) != 0)
				return bad("--dcqcn: the profile paper or nvidia-default, not '%s'",
					   optarg);
			o->dcqcn = true;
			break;
		case O_DCQCN_PARAM: {
			char why[192];

			if (!o->dcqcn)
				return bad("--dcqcn-param %s: give --dcqcn[=PROFILE] first", optarg);
			if (rk_app_dcqcn_param(&o->dcqcn_p, optarg, why, sizeof(why)) != 0)
				return bad("%s", why);
			break;
		}
		case 'h':
			usage(stdout);
			return 1;
		case ':':
			/* "--stateful --help": rk_cli_getopt() left the count
			   missing, the next word is the help */
			if (strcmp(argv[optind - 1], "--stateful") == 0 && optind < argc &&
			    strcmp(argv[optind], "--help") == 0) {
				usage(stdout);
				return 1;
			}
			/* fall through */
		default: {
			char name[64];

			/* one line, as the stateless mode's; not getopt's own */
			rk_cli_opt_name(argc, argv, name, sizeof(name));
			if (c == ':')
				fprintf(stderr, "rk-gen: option %s needs an argument", name);
			else if (strncmp(argv[optind - 1], "--", 2) == 0 &&
				 strchr(argv[optind - 1], '=') != NULL)
				fprintf(stderr, "rk-gen: option %s takes no argument", name);
			else if (rk_gen_stateless_option(name))
				fprintf(stderr, "rk-gen: %s belongs to the stateless mode (not with "
					"--stateful or --responder)", name);
			else
				fprintf(stderr, "rk-gen: unknown option %s in the stateful mode", name);
			fprintf(stderr, " (--help for usage)\n");
			return -1;
		}
		}
	}
	if (o->responder == (o->cfg.count != 0))
		return bad("%s", "give --responder or --stateful N (one of them)");
	if (!o->responder) {
		if (optind + 1 != argc)
			return bad("%s", "--stateful: give the responder's address (SERVER) last");
		o->server = argv[optind];
	} else if (optind != argc)
		return bad("--responder takes no SERVER (got %s)", argv[optind]);
	if (check_end(o, given) != 0)
		return -1;
	if (given[O_ITERS - O_RESPONDER] && given[O_DURATION - O_RESPONDER])
		return bad("%s", "--iters and --duration: give one (messages per QP, or seconds)");
	if (o->responder && o->max_qps < o->clients)
		return bad("--qps %u with --clients %u: each client needs a QP at least",
			   o->max_qps, o->clients);
	if (o->port == NULL || !o->have_ip)
		return bad("%s", "give the DPDK port (--port) and this end's address (--ip)");
	if (o->ip[3] + o->ip_count - 1 > 255)
		return bad("--ip-count %u: from %u.%u.%u.%u it passes %u.%u.%u.255 (one /24)",
			   o->ip_count, o->ip[0], o->ip[1], o->ip[2], o->ip[3], o->ip[0], o->ip[1],
			   o->ip[2]);
	if ((o->csv != NULL || o->plot != NULL) && o->interval_ns == 0)
		o->interval_ns = 1000000000ull;
	if (o->plot != NULL) {
		char err[256];

		if (rk_plot_check(err, sizeof(err)) != 0)
			return bad("--plot: %s", err);
	}
	/* both would be standard output, as in the stateless mode */
	if (o->csv != NULL && strcmp(o->csv, "-") == 0 && o->json)
		return bad("%s", "--csv - takes standard output: not with --json");
	/* now, not after the run: a path that cannot be written loses the series */
	for (int i = 0; i < 3; i++) {
		static const char *const name[] = { "csv", "plot", "record" };
		const char *path = i == 0 ? o->csv : i == 1 ? o->plot : o->record;
		FILE *t;

		if (path == NULL || (i == 0 && strcmp(path, "-") == 0))
			continue;
		if ((t = fopen(path, "w")) == NULL)
			return bad("--%s %s: %s", name[i], path, strerror(errno));
		fclose(t);
	}
	if ((o->cfg.ops & (RK_GEN_OP_ATOMIC | RK_GEN_OP_CMP_SWAP)) && o->cfg.size_max < 8)
		return bad("--op %s: --size must allow 8 bytes (the atomic's), got %u",
			   (o->cfg.ops & RK_GEN_OP_ATOMIC) ? "atomic" : "cmp_swap",
			   o->cfg.size_max);
	if (o->peer == &rk_sf_peer_perftest && check_perftest(o) != 0)
		return -1;
	if (o->duration_s > 0)
		o->iters = 0;
	return 0;
}

bool
rk_sf_csv_stdout(const struct rk_sf_opts *o)
{
	return o->csv != NULL && strcmp(o->csv, "-") == 0;
}

/* Whether argv asks for the stateful mode (before getopt sees rk-gen's other options). */
bool
rk_sf_wanted(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--responder") == 0 || strcmp(argv[i], "--stateful") == 0 ||
		    strncmp(argv[i], "--stateful=", 11) == 0)
			return true;
	}
	return false;
}
