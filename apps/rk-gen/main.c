/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-gen: RoCEv2 stateless traffic generator: streams from a stream file
 * (doc/gen.md) or the command line, or a capture replayed (replay.c),
 * written to a pcap file with timestamps at each stream's rate, or sent on
 * a DPDK port (port.c). Frames come from lib/gen. With --receive, the
 * receive side instead: per-stream loss, reordering, duplicates and
 * latency of the frames of a capture (recv.c) or a port (recv_port.c).
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <arpa/inet.h>
#include <netinet/ether.h>
#include <stdarg.h>
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rk_cli.h"
#include "rk_gen_stream.h"
#include "rk_gen_yaml.h"

#include "gen.h"
#include "rk_plot.h"
#include "rk_app.h"
#ifdef RK_GEN_DPDK
#include "rk_io_dpdk.h"
#include "stateful_run.h"
#endif

#define EXIT_BAD 2

static void
usage(FILE *f)
{
	fputs("usage: rk-gen (--stream FILE | --op OPCODE [stream options] | --replay CAPTURE\n"
	      "               [replay options]) --pcap OUT.pcap\n"
	      "       rk-gen [EAL options --] (--stream FILE | --op ... | --replay ...) --port PORT\n"
	      "       rk-gen --receive (--pcap-in CAPTURE | [EAL options --] --port PORT)\n"
	      "Write RoCEv2, CNP, PAUSE and PFC frames crafted field by field to a pcap file,\n"
	      "or send them on a DPDK port (doc/gen.md describes stream files).\n"
	      "\n"
	      "  -s, --stream FILE      streams from a YAML stream file\n"
	      "  -w, --pcap FILE        write the frames here (Ethernet, pcap)\n"
	      "      --limit N          at most N frames in all, per port (default: 1000000 to\n"
	      "                         a pcap, none on a port; streams with count 0 are endless)\n"
	      "      --line-rate GBPS   line rate for rates given in % (default 100)\n"
	      "      --port PORT        send on this DPDK port instead (ethdev name, e.g.\n"
	      "                         net_null0, or number); EAL options go first, then --;\n"
	      "                         repeated (up to 8): every stream on every port\n"
	      "      --record FILE      with --port: every frame sent, to pcapng (repeated:\n"
	      "                         the Nth --port's)\n"
	      "      --top-speed        with --port: ignore the rates, send as fast as it takes\n"
	      "      --duration SECONDS with --port: stop after this long\n"
	      "      --json             with --port: the sender's report as JSON on stdout\n"
	      "      --timeout SECONDS  with --port: each port started and its link up within\n"
	      "                         this, else an error (default 10)\n"
	      "                         (with --rx-port: the receiver's)\n"
	      "\n"
	      "One stream from the command line (instead of --stream):\n"
	      "      --op OPCODE        BTH opcode: name (WRITE_ONLY, RC_SEND_FIRST, CNP) or number\n"
	      "  -n, --count N          frames (default 1; 0 endless)\n"
	      "      --payload BYTES    payload length (default 64 where the opcode has one)\n"
	      "      --set FIELD=VALUE  set a field: bth.psn=5, ipv4.dst=198.18.0.9,\n"
	      "                         eth.dst=02:00:00:00:00:09, bth.tver=1 (repeatable)\n"
	      "      --vary SPEC        FIELD:OP or FIELD:OP:MIN:MAX[:STEP[:EVERY]], OP inc,\n"
	      "                         dec, random; EVERY: frames a value is kept for:\n"
	      "                         psn:inc, udp.src_port:random:49152:65535 (repeatable)\n"
	      "      --train OP:BYTES:PMTU  a message train: WRITE, SEND or READ_RESPONSE;\n"
	      "                         READ (requests) or ACK (one per message)\n"
	      "      --icrc MODE        full, incremental (default) or bad\n"
	      "      --rate RATE        1Mpps (default), 10Gbps, 50%\n"
	      "      --seq              sequence number and TX time in the payload\n"
	      "      --burst N:GAP_US   N frames at the rate, then GAP_US idle, and again\n"
	      "      --on-off ON:OFF    send for ON us, be silent for OFF us, and again\n"
	      "      --seq-offset BYTES the slot's offset in the payload (default 0; also\n"
	      "                         where --receive reads it)\n"
	      "\n"
	      "A capture replayed (instead of --stream or --op):\n"
	      "      --replay FILE      the frames of a pcap or pcapng file (Ethernet)\n"
	      "      --speed X          the capture's timing, X times as fast (default 1)\n"
	      "      --rate RATE        a fixed rate instead of the capture's timing\n"
	      "      --loop N           times through the capture (default 1; 0 endless)\n"
	      "      --map-mac OLD=NEW  Ethernet source and destination (repeatable)\n"
	      "      --map-ip OLD=NEW   IPv4 or IPv6 source and destination (repeatable)\n"
	      "      --map-qpn OLD=NEW  BTH DestQP (repeatable); the ICRC, IPv4, TCP and UDP\n"
	      "                         checksums are made whole again (a bad ICRC stays bad)\n"
	      "\n"
	      "Receive side (doc/gen.md, \"Receive side\"): per stream loss, reordering,\n"
	      "duplicates and one-way latency of frames with the sequence slot:\n"
	      "      --receive          receive instead of sending\n"
	      "      --pcap-in FILE     read a capture (pcap or pcapng); RX time: its timestamps\n"
	      "      --port PORT        or receive on a DPDK port (--duration, --record apply)\n"
	      "      --idle SECONDS     with --port: stop this long after the last frame\n"
	      "      --rx-drop-every N  with --port: the impairment stage drops every Nth frame\n"
	      "      --rx-delay NS      with --port: and holds every frame NS ns\n"
	      "      --rx-port PORT     send on --port and receive on PORT in the same loop\n"
	      "                         (the receive options apply; --idle defaults to 1)\n"
	      "      --expect N         frames sent per stream (counts a lost tail as lost)\n"
	      "      --json             the report as JSON on stdout\n"
	      "      --interval S       a series of S-second intervals of RX time: rate, loss,\n"
	      "                         reordering, latency (in the JSON, or:)\n"
	      "      --csv FILE         the series as CSV (- for stdout, in place of the table)\n"
	      "      --plot FILE.png    the series drawn by gnuplot\n"
	      "\n",
	      f);
#ifdef RK_GEN_DPDK
	/* the stateful options in full: --help is also the man page's source */
	fputs("Stateful mode (doc/gen.md, \"Stateful mode\"): RC QPs through lib/verbs on\n"
	      "one DPDK port, parameters exchanged over TCP; options of their own:\n"
	      "       rk-gen [EAL options --] --responder [--clients K] [--qps N] --port PORT\n"
	      "              --ip ADDR\n"
	      "       rk-gen [EAL options --] --stateful N [options] --port PORT --ip ADDR SERVER\n",
	      f);
	rk_sf_usage_options(f);
	fputs("      (rk-gen --responder --help gives the stateful usage alone)\n\n", f);
#endif
	fputs("  -h, --help             this text\n"
	      "  -V, --version          print the version\n"
	      "\n"
	      "Exit status: 0 ok, 1 a bad stream file, an I/O or port error, 2 bad usage\n"
	      "or EAL options the EAL refused.\n",
	      f);
}

enum {
	OPT_LIMIT = 256, OPT_LINE_RATE, OPT_OP, OPT_PAYLOAD, OPT_SET, OPT_VARY, OPT_TRAIN,
	OPT_ICRC, OPT_RATE, OPT_SEQ, OPT_PORT, OPT_RECORD, OPT_TOP_SPEED, OPT_DURATION,
	OPT_REPLAY, OPT_SPEED, OPT_LOOP, OPT_MAP_MAC, OPT_MAP_IP, OPT_MAP_QPN, OPT_BURST,
	OPT_ON_OFF,
	OPT_SEQ_OFFSET, OPT_RECEIVE, OPT_PCAP_IN, OPT_IDLE, OPT_EXPECT, OPT_JSON,
	OPT_RX_DROP_EVERY, OPT_RX_DELAY, OPT_RX_PORT, OPT_INTERVAL, OPT_CSV, OPT_PLOT, OPT_TIMEOUT,
};

struct args {
	const char *stream_file, *pcap_file;
	struct rk_gen_port_opts port;
	bool receive;
	struct rk_gen_recv_opts recv;
	uint64_t limit;
	double line_rate_bps;
	bool cli_stream;
	bool op_given;          /* --op: a train sets the opcodes itself */
	bool rate_given, speed_given;
	struct rk_gen_cfg cli;
	struct rk_gen_replay_opts replay;
	struct rk_gen_replay_stats replay_st;
	const char *map_opt[RK_GEN_MAPS_MAX], *map_arg[RK_GEN_MAPS_MAX]; /* as given */
};

static int bad_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One line: what is wrong, and where to read more. */
static int
bad_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "rk-gen: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (--help for usage)\n");
	return -1;
}

static int
parse_u64_arg(const char *s, uint64_t *v)
{
	char *end;

	if (s[0] < '0' || s[0] > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return *end || errno ? -1 : 0;
}

/* "1Mpps", "10Gbps", "50%" into the configuration, as the stream file does. */
static int
parse_rate(struct rk_gen_cfg *c, const char *s)
{
	char *end;
	double r = strtod(s, &end);

	/* Finite and not absurdly slow: a frame a day at the least. */
	if (end == s || !(r > 0) || !isfinite(r))
		return -1;
	if (strcmp(end, "%") == 0 && r <= 100) {
		c->rate_unit = RK_GEN_RATE_PERCENT;
	} else if (strcmp(end, "pps") == 0 || *end == '\0' || strcmp(end, "kpps") == 0 ||
		   strcmp(end, "Mpps") == 0) {
		c->rate_unit = RK_GEN_RATE_PPS;
		r *= *end == 'k' ? 1e3 : *end == 'M' ? 1e6 : 1;
	} else if (strcmp(end, "bps") == 0 || strcmp(end, "kbps") == 0 ||
		   strcmp(end, "Mbps") == 0 || strcmp(end, "Gbps") == 0) {
		c->rate_unit = RK_GEN_RATE_BPS;
		r *= *end == 'k' ? 1e3 : *end == 'M' ? 1e6 : *end == 'G' ? 1e9 : 1;
	} else {
		return -1;
	}
	if (c->rate_unit == RK_GEN_RATE_PPS ? r < 1e-5 : !isfinite(r) || r < 1e-3)
		return -1;
	c->rate = r;
	return 0;
}

/* --map-mac, --map-ip, --map-qpn OLD=NEW into the replay's maps. */
static int
parse_map(struct args *a, int opt, const char *arg)
{
	static const char *const names[] = { "--map-mac", "--map-ip", "--map-qpn" };
	const char *name = names[opt - OPT_MAP_MAC];
	struct rk_gen_map m = { 0 };
	char old[64], new[64];
	const char *eq = strchr(arg, '=');

	if (eq == NULL || (size_t)(eq - arg) >= sizeof(old) || strlen(eq + 1) >= sizeof(new))
		return bad_usage("%s '%s': write OLD=NEW", name, arg);
	snprintf(old, sizeof(old), "%.*s", (int)(eq - arg), arg);
	snprintf(new, sizeof(new), "%s", eq + 1);
	if (opt == OPT_MAP_MAC) {
		struct ether_addr eo, en;

		if (ether_aton_r(old, &eo) == NULL || ether_aton_r(new, &en) == NULL)
			return bad_usage("%s '%s': MAC addresses as 02:00:00:00:00:01", name, arg);
		m.kind = RK_GEN_MAP_MAC;
		memcpy(m.old, &eo, 6);
		memcpy(m.new, &en, 6);
	} else if (opt == OPT_MAP_IP) {
		if (inet_pton(AF_INET, old, m.old) == 1 && inet_pton(AF_INET, new, m.new) == 1)
			m.kind = RK_GEN_MAP_IPV4;
		else if (inet_pton(AF_INET6, old, m.old) == 1 && inet_pton(AF_INET6, new, m.new) == 1)
			m.kind = RK_GEN_MAP_IPV6;
		else
			return bad_usage("%s '%s': two IPv4 or two IPv6 addresses", name, arg);
	} else {
		uint64_t o, n;

		if (parse_u64_arg(old, &o) < 0 || parse_u64_arg(new, &n) < 0 || o > 0xffffff ||
		    n > 0xffffff)
			return bad_usage("%s '%s': QPNs 0..0xffffff", name, arg);
		m.kind = RK_GEN_MAP_QPN;
		m.old[0] = (uint8_t)(o >> 16), m.old[1] = (uint8_t)(o >> 8), m.old[2] = (uint8_t)o;
		m.new[0] = (uint8_t)(n >> 16), m.new[1] = (uint8_t)(n >> 8), m.new[2] = (uint8_t)n;
	}
	/* two NEW values for one OLD: only the first would ever apply */
	for (unsigned int i = 0; i < a->replay.rw.n; i++)
		if (a->replay.rw.map[i].kind == m.kind && memcmp(a->replay.rw.map[i].old, m.old,
								 sizeof(m.old)) == 0)
			return bad_usage("%s '%s': %s %s maps the same OLD value already", name,
					 arg, a->map_opt[i], a->map_arg[i]);
	if (rk_gen_rewrite_add(&a->replay.rw, &m) < 0)
		return bad_usage("%s: at most %d maps in all", name, RK_GEN_MAPS_MAX);
	a->map_opt[a->replay.rw.n - 1] = name;
	a->map_arg[a->replay.rw.n - 1] = arg;
	return 0;
}

/* What goes with --replay, after the common checks. */
static int
check_common(struct args *a)
{
	if ((a->pcap_file == NULL) == (a->port.port == NULL))
		return bad_usage("%s", a->pcap_file ? "--pcap and --port exclude each other"
						    : "--pcap OUT.pcap or --port PORT is needed");
	if (a->port.port == NULL &&
	    (a->port.record != NULL || a->port.top_speed || a->port.duration_ns ||
	     a->port.timeout_s > 0))
		return bad_usage("%s", "--record, --top-speed, --duration and --timeout go with "
				 "--port");
	if (a->limit == 0)
		a->limit = a->port.port != NULL ? UINT64_MAX : 1000000;
	return 0;
}

static int
check_replay_args(struct args *a)
{
	if (a->stream_file != NULL || a->cli_stream)
		return bad_usage("%s", "--replay excludes --stream and the command-line stream "
				 "options");
	if (a->rate_given && a->speed_given)
		return bad_usage("%s", "--rate and --speed exclude each other");
	if (a->rate_given) {
		a->replay.rate_unit = a->cli.rate_unit;
		a->replay.rate = a->cli.rate;
	}
	return check_common(a);
}

/*
 * The receive series: --csv and --plot need --interval, which needs an
 * output; a plot needs gnuplot and its files must be writable, said now
 * rather than after the run.
 */
static int
check_series(const struct rk_gen_recv_opts *r)
{
	char why[256];

	if ((r->csv != NULL || r->plot != NULL) && r->interval_ns == 0)
		return bad_usage("%s", "--csv and --plot need --interval S");
	if (r->interval_ns != 0 && r->csv == NULL && r->plot == NULL && !r->json)
		return bad_usage("%s", "--interval writes its series with --json, --csv or --plot");
	if (r->csv != NULL && strcmp(r->csv, "-") == 0 && r->json)
		return bad_usage("%s", "--csv - takes standard output: not with --json");
	if (r->plot != NULL && rk_plot_check(why, sizeof(why)) != 0) {
		fprintf(stderr, "rk-gen: %s\n", why);
		return -1;
	}
	for (int i = 0; i < 2; i++) {
		const char *path = i == 0 ? r->csv : r->plot;
		FILE *t;

		if (path == NULL || strcmp(path, "-") == 0)
			continue;
		if ((t = fopen(path, "w")) == NULL) {
			fprintf(stderr, "rk-gen: %s %s: %s\n", i == 0 ? "--csv" : "--plot", path,
				strerror(errno));
			return -1;
		}
		fclose(t);
	}
	return 0;
}

/* --receive: a capture or a port, and nothing of the sending side. */
static int
check_receive(struct args *a)
{
	struct rk_gen_recv_opts *r = &a->recv;

	if (r->port != NULL)
		return bad_usage("%s", "--rx-port (receiving beside sending) and --receive "
				 "exclude each other");
	if ((r->pcap_in == NULL) == (a->port.port == NULL))
		return bad_usage("%s", r->pcap_in ? "--pcap-in and --port exclude each other"
						  : "--receive needs --pcap-in CAPTURE or --port PORT");
	if (a->stream_file != NULL || a->cli_stream || a->rate_given || a->replay.file != NULL ||
	    a->pcap_file != NULL || a->limit != 0 || a->port.top_speed)
		return bad_usage("%s", "--receive takes no stream, --replay, --pcap, --limit or "
				 "--top-speed");
	if (r->pcap_in != NULL && (a->port.record != NULL || a->port.duration_ns || r->idle_ns ||
				   r->rx_drop_every || r->rx_delay_ns || r->timeout_s > 0))
		return bad_usage("%s", "--record, --duration, --idle, --timeout and --rx-* go with "
				 "--port");
	if (a->port.nports > 1 || a->port.nrecords > 1)
		return bad_usage("%s", "--receive takes one --port and one --record");
	r->port = a->port.port;
	r->record = a->port.record;
	r->duration_ns = a->port.duration_ns;
	return 0;
}

static const struct option opts[] = {
	{ "stream", 1, NULL, 's' }, { "pcap", 1, NULL, 'w' }, { "limit", 1, NULL, OPT_LIMIT },
	{ "line-rate", 1, NULL, OPT_LINE_RATE }, { "op", 1, NULL, OPT_OP },
	{ "count", 1, NULL, 'n' }, { "payload", 1, NULL, OPT_PAYLOAD },
	{ "set", 1, NULL, OPT_SET }, { "vary", 1, NULL, OPT_VARY },
	{ "train", 1, NULL, OPT_TRAIN }, { "icrc", 1, NULL, OPT_ICRC },
	{ "rate", 1, NULL, OPT_RATE }, { "seq", 0, NULL, OPT_SEQ },
	{ "port", 1, NULL, OPT_PORT }, { "record", 1, NULL, OPT_RECORD },
	{ "top-speed", 0, NULL, OPT_TOP_SPEED }, { "duration", 1, NULL, OPT_DURATION },
	{ "replay", 1, NULL, OPT_REPLAY }, { "speed", 1, NULL, OPT_SPEED },
	{ "loop", 1, NULL, OPT_LOOP }, { "map-mac", 1, NULL, OPT_MAP_MAC },
	{ "map-ip", 1, NULL, OPT_MAP_IP }, { "map-qpn", 1, NULL, OPT_MAP_QPN },
	{ "burst", 1, NULL, OPT_BURST }, { "on-off", 1, NULL, OPT_ON_OFF },
	{ "seq-offset", 1, NULL, OPT_SEQ_OFFSET }, { "receive", 0, NULL, OPT_RECEIVE },
	{ "pcap-in", 1, NULL, OPT_PCAP_IN }, { "idle", 1, NULL, OPT_IDLE },
	{ "expect", 1, NULL, OPT_EXPECT }, { "json", 0, NULL, OPT_JSON },
	{ "rx-drop-every", 1, NULL, OPT_RX_DROP_EVERY }, { "rx-delay", 1, NULL, OPT_RX_DELAY },
	{ "rx-port", 1, NULL, OPT_RX_PORT }, { "interval", 1, NULL, OPT_INTERVAL },
	{ "csv", 1, NULL, OPT_CSV }, { "plot", 1, NULL, OPT_PLOT },
	{ "timeout", 1, NULL, OPT_TIMEOUT },
	{ "help", 0, NULL, 'h' }, { "version", 0, NULL, 'V' }, { NULL, 0, NULL, 0 },
};

bool
rk_gen_stateless_option(const char *name)
{
	if (strncmp(name, "--", 2) != 0)
		return false;
	for (const struct option *o = opts; o->name != NULL; o++)
		if (strcmp(o->name, name + 2) == 0)
			return true;
	return false;
}

static int
parse_args(struct args *a, int argc, char **argv)
{
	struct rk_gen_cfg *c = &a->cli;
	const char *why = NULL;
	uint64_t u;
	int ch;

	a->limit = 0; /* then: 1000000 to a pcap, none on a port */
	a->line_rate_bps = 100e9;
	a->replay.speed = 1;
	a->replay.loops = 1;
	a->replay.stats = &a->replay_st;
	rk_gen_cfg_init(c);
	snprintf(c->name, sizeof(c->name), "cli");
	opterr = 0;
	while ((ch = rk_cli_getopt(argc, argv, ":s:w:n:hV", opts, NULL)) != -1) {
		switch (ch) {
		case 's':
			a->stream_file = optarg;
			break;
		case 'w':
			a->pcap_file = optarg;
			break;
		case OPT_LIMIT:
			if (parse_u64_arg(optarg, &a->limit) < 0 || a->limit == 0)
				return bad_usage("--limit '%s': a frame count above 0", optarg);
			break;
		case OPT_LINE_RATE: {
			char *end;

			a->line_rate_bps = strtod(optarg, &end) * 1e9;
			if (end == optarg || *end || !isfinite(a->line_rate_bps) ||
			    a->line_rate_bps < 1e6)
				return bad_usage("--line-rate '%s': Gbit/s, 0.001 or more", optarg);
			break;
		}
		case OPT_OP:
			a->cli_stream = true;
			a->op_given = true;
			if (rk_gen_opcode_parse(optarg, &c->opcode) < 0)
				return bad_usage("--op '%s': %s", optarg,
						 isdigit((unsigned char)optarg[0]) ?
						 "an opcode number is 0..255" : "unknown opcode name");
			break;
		case 'n':
			a->cli_stream = true;
			if (parse_u64_arg(optarg, &c->count) < 0)
				return bad_usage("--count '%s': not a number", optarg);
			c->count_set = true;
			break;
		case OPT_PAYLOAD:
			a->cli_stream = true;
			if (parse_u64_arg(optarg, &u) < 0 || u > RK_GEN_FRAME_MAX)
				return bad_usage("--payload '%s': 0 to 9400 bytes", optarg);
			c->payload_len = (uint32_t)u;
			break;
		case OPT_SET: {
			char field[64];
			const char *eq = strchr(optarg, '=');

			a->cli_stream = true;
			if (eq == NULL || (size_t)(eq - optarg) >= sizeof(field))
				return bad_usage("--set '%s': write FIELD=VALUE", optarg);
			snprintf(field, sizeof(field), "%.*s", (int)(eq - optarg), optarg);
			if (rk_gen_cfg_set(c, field, eq + 1, 0, &why) < 0) {
				fprintf(stderr, "rk-gen: --set '%s': %s (--help for usage)\n", optarg,
					why);
				return -1;
			}
			break;
		}
		case OPT_VARY:
			a->cli_stream = true;
			if (rk_gen_cfg_vary(c, optarg, &why) < 0) {
				fprintf(stderr, "rk-gen: --vary '%s': %s (--help for usage)\n", optarg,
					why);
				return -1;
			}
			break;
		case OPT_TRAIN: {
			char op[32], end;
			unsigned int msg, pmtu;
			int w;

			a->cli_stream = true;

			/* No sign, nothing after: %u would wrap "-1" to 4294967295. */
			if (strchr(optarg, '-') != NULL ||
			    sscanf(optarg, "%31[A-Za-z_]:%u:%u%c", op, &msg, &pmtu, &end) != 3 ||
			    msg > 0x80000000u)
				return bad_usage("--train '%s': write OP:BYTES:PMTU, BYTES 0..2^31", optarg);
			if ((w = rk_gen_train_parse(op)) < 0)
				return bad_usage("--train '%s': " RK_GEN_TRAIN_NAMES, optarg);
			c->train = (uint8_t)w;
			c->payload_len = msg;
			c->pmtu = pmtu;
			break;
		}
		case OPT_ICRC:
			a->cli_stream = true;
			if (strcmp(optarg, "full") == 0)
				c->icrc = RK_GEN_ICRC_FULL;
			else if (strcmp(optarg, "incremental") == 0)
				c->icrc = RK_GEN_ICRC_INCREMENTAL;
			else if (strcmp(optarg, "bad") == 0)
				c->icrc = RK_GEN_ICRC_BAD;
			else
				return bad_usage("--icrc '%s': full, incremental or bad", optarg);
			break;
		case OPT_RATE:
			a->rate_given = true;
			if (parse_rate(c, optarg) < 0)
				return bad_usage("--rate '%s': 1Mpps, 10Gbps or 50%%", optarg);
			break;
		case OPT_REPLAY:
			a->replay.file = optarg;
			break;
		case OPT_SPEED: {
			char *end;

			a->replay.speed = strtod(optarg, &end);
			if (end == optarg || *end || !(a->replay.speed > 0 && a->replay.speed < 1e9))
				return bad_usage("--speed '%s': a factor above 0", optarg);
			a->speed_given = true;
			break;
		}
		case OPT_LOOP:
			if (parse_u64_arg(optarg, &a->replay.loops) < 0)
				return bad_usage("--loop '%s': a count (0: endless)", optarg);
			break;
		case OPT_MAP_MAC: case OPT_MAP_IP: case OPT_MAP_QPN:
			if (parse_map(a, ch, optarg) < 0)
				return -1;
			break;
		case OPT_SEQ:
			a->cli_stream = true;
			c->seq = true;
			break;
		case OPT_BURST: case OPT_ON_OFF: {
			unsigned long long x, y;
			char end;

			a->cli_stream = true;
			/* %llu and a 32-bit bound: %u took 3e15 as its low 32 bits */
			if (strchr(optarg, '-') != NULL ||
			    sscanf(optarg, "%llu:%llu%c", &x, &y, &end) != 2 || x > UINT32_MAX ||
			    y > UINT32_MAX || (ch == OPT_BURST ? x == 0 : x == 0 && y != 0))
				return bad_usage("%s '%s': %s", ch == OPT_BURST ? "--burst" : "--on-off",
						 optarg, ch == OPT_BURST ?
						 "FRAMES:GAP_US, FRAMES above 0, each at most 4294967295"
						 : "ON_US:OFF_US, ON_US above 0, each at most 4294967295");
			if (ch == OPT_BURST)
				c->burst_frames = (uint32_t)x, c->burst_gap_us = (uint32_t)y;
			else
				c->on_us = (uint32_t)x, c->off_us = (uint32_t)y;
			break;
		}
		case OPT_PORT:
#ifdef RK_GEN_DPDK
			if (a->port.nports == RK_GEN_PORTS_MAX)
				return bad_usage("--port %s: at most %d ports", optarg,
						 RK_GEN_PORTS_MAX);
			a->port.ports[a->port.nports++] = optarg;
			a->port.port = a->port.ports[0];
			break;
#else
			return bad_usage("--port %s: rk-gen was built without DPDK", optarg);
#endif
		case OPT_RECORD:
			if (a->port.nrecords == RK_GEN_PORTS_MAX)
				return bad_usage("--record %s: at most %d recordings", optarg,
						 RK_GEN_PORTS_MAX);
			a->port.records[a->port.nrecords++] = optarg;
			a->port.record = a->port.records[0];
			break;
		case OPT_TOP_SPEED:
			a->port.top_speed = true;
			break;
		case OPT_TIMEOUT: {
			char *end;
			double d = strtod(optarg, &end);

			if (end == optarg || *end || !(d > 0 && d <= 3600))
				return bad_usage("--timeout '%s': seconds above 0, at most 3600", optarg);
			a->port.timeout_s = d;
			a->recv.timeout_s = d;
			break;
		}
		case OPT_DURATION:
		case OPT_IDLE: {
			char *end;
			double d = strtod(optarg, &end);

			if (end == optarg || *end || !(d > 0 && d < 1e9))
				return bad_usage("--%s '%s': seconds above 0",
						 ch == OPT_IDLE ? "idle" : "duration", optarg);
			if (ch == OPT_IDLE)
				a->recv.idle_ns = (uint64_t)(d * 1e9);
			else
				a->port.duration_ns = (uint64_t)(d * 1e9);
			break;
		}
		case OPT_SEQ_OFFSET:
			if (parse_u64_arg(optarg, &u) < 0 || u > RK_GEN_FRAME_MAX)
				return bad_usage("--seq-offset '%s': 0 to 9400 bytes", optarg);
			c->seq_off = a->recv.seq_off = (uint32_t)u;
			break;
		case OPT_RECEIVE:
			a->receive = true;
			break;
		case OPT_PCAP_IN:
			a->recv.pcap_in = optarg;
			break;
		case OPT_EXPECT:
			if (parse_u64_arg(optarg, &a->recv.expect) < 0 || a->recv.expect == 0)
				return bad_usage("--expect '%s': a frame count above 0", optarg);
			break;
		case OPT_JSON:
			a->recv.json = true;
			break;
		case OPT_RX_DROP_EVERY:
			if (parse_u64_arg(optarg, &u) < 0 || u == 0 || u > UINT32_MAX)
				return bad_usage("--rx-drop-every '%s': 1 to 4294967295", optarg);
			a->recv.rx_drop_every = (uint32_t)u;
			break;
		case OPT_RX_PORT:
#ifdef RK_GEN_DPDK
			a->recv.port = optarg;
			break;
#else
			return bad_usage("--rx-port %s: rk-gen was built without DPDK", optarg);
#endif
		case OPT_INTERVAL: {
			char *end;
			double d = strtod(optarg, &end);

			/* 1 us up to a day: anything else is a typo, or a series of nothing */
			if (end == optarg || *end || !(d >= 1e-6 && d <= 86400))
				return bad_usage("--interval '%s': seconds, 0.000001 to 86400", optarg);
			a->recv.interval_ns = (uint64_t)(d * 1e9 + 0.5);
			break;
		}
		case OPT_CSV:
			a->recv.csv = optarg;
			break;
		case OPT_PLOT:
			a->recv.plot = optarg;
			break;
		case OPT_RX_DELAY:
			if (parse_u64_arg(optarg, &a->recv.rx_delay_ns) < 0 ||
			    a->recv.rx_delay_ns > 60000000000ull)
				return bad_usage("--rx-delay '%s': ns, at most 60 s", optarg);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			rk_cli_version("rk-gen");
			exit(0);
		case ':':
		default: {
			char name[64];
			const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";

			rk_cli_opt_name(argc, argv, name, sizeof(name));
			if (ch == ':')
				return bad_usage("option %s needs an argument", name);
#ifdef RK_GEN_DPDK
			if (rk_sf_only_option(name))
				return bad_usage("%s belongs to the stateful mode (--stateful N or "
						 "--responder)", name);
#endif
			if (strncmp(arg, "--", 2) == 0 && strchr(arg, '=') != NULL)
				return bad_usage("option %s takes no argument", name);
			return bad_usage("unknown option %s", name);
		}
		}
	}
	if (optind < argc)
		return bad_usage("unexpected argument '%s'", argv[optind]);
	if (check_series(&a->recv) != 0)
		return -1;
	if (a->receive)
		return check_receive(a);
	if (a->recv.port != NULL && a->port.port == NULL)
		return bad_usage("%s", "--rx-port goes with --port (send there, receive here)");
	if (a->port.nrecords > a->port.nports && a->port.nports > 0)
		return bad_usage("%s", "--record: one per --port at most, in the same order");
	for (uint32_t i = 0; i < a->port.nports; i++)
		for (uint32_t k = i + 1; k < a->port.nports; k++) {
			if (strcmp(a->port.ports[i], a->port.ports[k]) == 0)
				return bad_usage("--port %s: given twice", a->port.ports[i]);
			if (k < a->port.nrecords && strcmp(a->port.records[i], a->port.records[k]) == 0)
				return bad_usage("--record %s: given for two ports", a->port.records[i]);
		}
	/* sending on ports without --rx-port: --json is the sender's report */
	a->port.json = a->recv.json && a->recv.port == NULL && a->port.port != NULL;
	if (a->recv.port == NULL && (a->recv.pcap_in || a->recv.expect ||
				     (a->recv.json && !a->port.json) ||
				     a->recv.idle_ns || a->recv.rx_drop_every || a->recv.rx_delay_ns ||
				     a->recv.interval_ns))
		return bad_usage("%s", "--pcap-in, --expect, --idle, --interval and --rx-* go with "
				 "--receive or --rx-port; --json with those or --port");
	if (a->recv.pcap_in != NULL)
		return bad_usage("%s", "--pcap-in goes with --receive");
	if (a->recv.port != NULL && a->recv.idle_ns == 0)
		a->recv.idle_ns = 1000000000ull; /* after the last frame sent, 1 s for the rest */
	if (a->replay.file != NULL)
		return check_replay_args(a);
	a->cli_stream |= a->rate_given;
	if (a->speed_given || a->replay.rw.n || a->replay.loops != 1)
		return bad_usage("%s", "--speed, --loop and --map-* go with --replay");
	if (check_common(a) < 0)
		return -1;
	if (a->op_given && a->cli.train)
		return bad_usage("%s", "--op and --train exclude each other (a train sets the "
				 "opcodes)");
	if ((a->stream_file != NULL) == a->cli_stream)
		return bad_usage("%s", a->cli_stream ? "--stream and command-line stream options "
						       "exclude each other"
						     : "--stream FILE, --op OPCODE or --replay CAPTURE is needed");
	return 0;
}

/* Write the streams' frames to the pcap file, stamped with their times. */
static int
run_pcap(struct args *a, struct rk_gen_sched *sc)
{
	/* Nanosecond timestamps: at line rate frames are tens of ns apart. */
	pcap_t *p = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535,
							 PCAP_TSTAMP_PRECISION_NANO);
	pcap_dumper_t *d = NULL;
	struct rk_gen_live *m;
	uint64_t written = 0;
	int rc = 1;

	if (p == NULL)
		return 1;
	d = pcap_dump_open(p, a->pcap_file);
	if (d == NULL) {
		fprintf(stderr, "rk-gen: %s\n", pcap_geterr(p));
		goto out;
	}
	while (!rk_app_stop && written < a->limit && (m = rk_gen_sched_peek(sc)) != NULL) {
		struct pcap_pkthdr h;
		uint64_t ns = (uint64_t)m->t_ns;

		/* A pcap record holds the seconds in 32 bits: past that they would wrap. */
		if (ns / 1000000000u > UINT32_MAX) {
			fprintf(stderr, "rk-gen: frame %llu is due at %llu s, past the 4294967295 s a "
				"pcap file's timestamps hold; stopped after %llu frames (a higher "
				"rate or --limit keeps within it)\n", (unsigned long long)written + 1,
				(unsigned long long)(ns / 1000000000u), (unsigned long long)written);
			goto out;
		}
		h.ts.tv_sec = (time_t)(ns / 1000000000u);
		h.ts.tv_usec = (suseconds_t)(ns % 1000000000u); /* ns: see pcap_open_dead_with_tstamp_precision */
		h.caplen = h.len = (bpf_u_int32)m->f.len;
		pcap_dump((u_char *)d, &h, m->f.data);
		written++;
		rk_gen_sched_advance(sc, m);
	}
	/* A failed write inside pcap_dump() leaves only the stream's error flag. */
	if (pcap_dump_flush(d) != 0 || ferror(pcap_dump_file(d))) {
		fprintf(stderr, "rk-gen: %s: write failed after %llu frames%s%s\n", a->pcap_file,
			(unsigned long long)written, errno != 0 ? ": " : "",
			errno != 0 ? strerror(errno) : "");
		goto out;
	}
	/* a source that failed (a capture cut short) said why: no counts after it */
	if (sc->failed)
		goto out;
	fprintf(stderr, "rk-gen: %llu frame%s from %u stream%s to %s%s\n",
		(unsigned long long)written, written == 1 ? "" : "s", sc->n, sc->n == 1 ? "" : "s",
		a->pcap_file,
		rk_app_stop ? " (interrupted)" : "");
	if (!rk_app_stop && rk_gen_sched_peek(sc) != NULL)
		fprintf(stderr, "rk-gen: stopped at the limit of %llu frames (--limit); the "
			"streams had more\n", (unsigned long long)a->limit);
	rc = 0;
out:
	if (d != NULL)
		pcap_dump_close(d);
	pcap_close(p);
	return rc;
}

/* What the replay read and changed, once it is over. */
static void
replay_summary(const struct args *a)
{
	const struct rk_gen_replay_stats *st = &a->replay_st;

	fprintf(stderr, "rk-gen: replay of %s: %llu frames read, %llu rewritten, %llu ICRCs "
		"recomputed, %llu left bad as captured",
		a->replay.file, (unsigned long long)st->read, (unsigned long long)st->rw.changed,
		(unsigned long long)st->rw.icrc_redone, (unsigned long long)st->rw.icrc_kept_bad);
	if (st->cut)
		fprintf(stderr, ", %llu cut short by the capture", (unsigned long long)st->cut);
	if (st->rw.not_parsed)
		fprintf(stderr, ", %llu not parsed (sent unchanged)",
			(unsigned long long)st->rw.not_parsed);
	fputc('\n', stderr);
	/* a map whose OLD is nowhere in the capture: a typo, most likely */
	for (unsigned int i = 0; st->read != 0 && i < a->replay.rw.n; i++)
		if (st->rw.hits[i] == 0)
			fprintf(stderr, "rk-gen: %s %s: no frame of %s holds its OLD value (it "
				"changed nothing)\n", a->map_opt[i], a->map_arg[i], a->replay.file);
}

/* The streams (and the replay) compiled into @p sc; @return 0 or -1 (said). */
static int
sched_make(struct args *a, struct rk_gen_sched *sc, struct rk_gen_cfg *cfgs, uint32_t n,
	   uint32_t port)
{
	char err[512];
	/* to a pcap file every stream; on ports those the port is named for */
	int init = a->port.nports == 0 ?
		   rk_gen_sched_init(sc, cfgs, n, a->line_rate_bps, err, sizeof(err)) :
		   rk_gen_sched_init_port(sc, cfgs, n, port, a->line_rate_bps, err, sizeof(err));

	/* -EIO: the source said why */
	if (init < 0 && init != -EIO)
		fprintf(stderr, "rk-gen: %s\n", err);
	if (init == 0 && (a->replay.file == NULL || rk_gen_replay_add(sc, &a->replay) == 0))
		return 0;
	return -1;
}

static int
run(struct args *a, struct rk_gen_cfg *cfgs, uint32_t n)
{
	/* each port its own schedule of every stream; a pcap file one */
	struct rk_gen_sched sc[RK_GEN_PORTS_MAX] = { 0 }, *scp[RK_GEN_PORTS_MAX];
	uint32_t ns = a->port.nports > 1 ? a->port.nports : 1, made = 0;
	bool failed = false;
	int rc = 1;

	for (uint32_t i = 0; i < n && a->port.nports > 0; i++)
		if (cfgs[i].ports >> a->port.nports) {
			fprintf(stderr, "rk-gen: stream '%s' (line %u): its ports go past the %u "
				"--port given\n", cfgs[i].name, cfgs[i].line, a->port.nports);
			return EXIT_BAD;
		}
	for (; made < ns && sched_make(a, &sc[made], cfgs, n, made) == 0; made++) {
		scp[made] = &sc[made];
		if (sc[made].n == 0)
			fprintf(stderr, "rk-gen: port %s: no stream goes to it\n",
				a->port.ports[made]);
	}
	if (made == ns) {
#ifdef RK_GEN_DPDK
		if (a->port.port != NULL) {
			a->port.limit = a->limit;
			/* --rx-port: the receiver first, ready for the first frame */
			if (a->recv.port != NULL)
				a->port.rx = rk_gen_recv_port_open(&a->recv);
			if (a->recv.port == NULL || a->port.rx != NULL)
				rc = rk_gen_port_run(scp, &a->port);
			if (a->port.rx != NULL && rk_gen_recv_port_close(a->port.rx) != 0)
				rc = 1;
		} else
#endif
			rc = run_pcap(a, &sc[0]);
	}
	for (uint32_t i = 0; i < ns; i++) {
		failed |= sc[i].failed;
		rk_gen_sched_fini(&sc[i]);
	}
	if (failed)
		return 1; /* its error is the last line */
	if (a->replay.file != NULL && a->replay_st.read > 0)
		replay_summary(a);
	return rc;
}

/* The streams of the file, or the one of the command line, run. */
/* The option a field of the command line's stream came from. */
static const char *
cli_option_of(const char *field)
{
	static const struct { const char *prefix, *option; } by[] = {
		{ "train", "--train" }, { "payload.seq", "--seq-offset" },
		{ "payload", "--payload" }, { "on_off", "--on-off" }, { "vary", "--vary" },
		{ "stream", "the options" },
	};

	for (size_t i = 0; i < sizeof(by) / sizeof(by[0]); i++)
		if (strncmp(field, by[i].prefix, strlen(by[i].prefix)) == 0)
			return by[i].option;
	return "--set";         /* a header field */
}

/*
 * The stream the options describe, built once before the run: a value it
 * refuses is a bad option (exit 2, named as the option), not a stream
 * file's error. @return 0, or -1 (said)
 */
static int
cli_stream_check(const struct rk_gen_cfg *c)
{
	struct rk_gen_stream *s = NULL;
	struct rk_gen_err e = { 0 };
	int rc = rk_gen_stream_compile(c, &s, &e);

	if (rc == 0) {
		rk_gen_stream_free(s);
		return 0;
	}
	if (rc == -ENOMEM) {
		fprintf(stderr, "rk-gen: out of memory\n");
		return -1;
	}
	if (strcmp(cli_option_of(e.field), "--set") == 0)
		return bad_usage("--set %s: %s", e.field, e.reason);
	return bad_usage("%s: %s", cli_option_of(e.field), e.reason);
}

static int
run_all(struct args *a)
{
	struct rk_gen_file *f = NULL;
	char err[512];
	int rc;

	if (a->receive) {
#ifdef RK_GEN_DPDK
		if (a->recv.port != NULL)
			return rk_gen_recv_port(&a->recv);
#endif
		return rk_gen_recv_pcap(&a->recv);
	}
	if (a->replay.file != NULL)
		return run(a, NULL, 0);
	if (a->stream_file == NULL)
		return cli_stream_check(&a->cli) == 0 ? run(a, &a->cli, 1) : EXIT_BAD;
	rc = rk_gen_yaml_load(a->stream_file, &f, err, sizeof(err));
	if (rc < 0) {
		/* a bad file's line names itself; one not read gets the app's name */
		fprintf(stderr, "%s%s\n", rc == -EIO ? "rk-gen: " : "", err);
		return 1;
	}
	rc = run(a, f->streams, f->nstreams);
	rk_gen_file_free(f);
	return rc;
}

int
main(int argc, char **argv)
{
	static struct args a;
	int rc;
#ifdef RK_GEN_DPDK
	struct rk_io_dpdk_args da;

	/* "EAL options -- rk-gen options"; without "--", all are rk-gen's */
	rk_io_dpdk_split_args(argc, argv, "rk-gen", &da);
	argc = da.app_argc;
	argv = da.app_argv;
	/* --responder, --stateful N: RC connections, options of their own (stateful.c) */
	if (rk_sf_wanted(argc, argv))
		return rk_sf_main(argc, argv, &da);
#endif
	if (parse_args(&a, argc, argv) < 0)
		return EXIT_BAD;
	/* SIGINT, SIGTERM: the frames so far are kept whole and counted. */
	rk_app_signals();
#ifdef RK_GEN_DPDK
	if (a.port.port != NULL) {
		int err = rk_io_dpdk_eal_init(da.eal_argc, da.eal_argv);

		if (err < 0) {
			fprintf(stderr, "rk-gen: DPDK EAL initialisation failed: %s\n",
				rk_io_dpdk_eal_strerror(err));
			return rk_io_dpdk_eal_usage_error(err) ? EXIT_BAD : 1;
		}
	}
#endif
	rc = run_all(&a);
#ifdef RK_GEN_DPDK
	if (a.port.port != NULL)
		rk_io_dpdk_eal_cleanup();
#endif
	return rc;
}
