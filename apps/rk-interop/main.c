/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-interop: an rdmakit endpoint on a DPDK port that is the peer of
 * rdma-core's ibv_rc_pingpong / ibv_ud_pingpong and of perftest's
 * ib_*_bw / ib_*_lat (TCP exchange), in the server or the client role.
 *
 *   rk-interop [EAL options --] MODE [options]          server
 *   rk-interop [EAL options --] MODE [options] SERVER   client
 *
 * The TCP exchange uses the kernel's sockets. The DPDK port owns the RDMA
 * address; with --oob-netns the sockets live in another network namespace
 * (one with a kernel IP stack on the same link), since the port's own
 * namespace may have none. The tools take the RDMA address from the GID
 * in the exchange, not from the TCP connection, so the two may differ.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>

#include "interop.h"
#include "rk_cli.h"

int
ia_serve(void *arg)
{
	struct ia *a = arg;
	int n = a->ctx != NULL ? rk_progress(a->ctx) : rk_io_dpdk_service(a->io);

	if (rk_app_stop)
		return 1;
	rk_io_dpdk_idle(a->io, n);
	return 0;
}

int
ia_check_stop(struct ia *a)
{
	return rk_app_stop ? ia_fail(a, "interrupted") : 0;
}

int
ia_oob_open(struct ia *a)
{
	int rc;

	if (a->o.server_host == NULL) {
		rc = rk_oob_listen(a->o.tcp_port, a->o.oob_timeout_s, &a->fd, ia_serve, a);
		if (rc == -EINTR)
			return ia_fail(a, "interrupted");
		if (rc == -EADDRINUSE)
			return ia_fail(a, "TCP port %u is in use: give another with -p",
				       a->o.tcp_port);
		if (rc == -ETIMEDOUT)
			return ia_fail(a, "no client connected to TCP port %u within %g s",
				       a->o.tcp_port, a->o.oob_timeout_s);
		if (rc != 0)
			return ia_fail(a, "cannot take a client on TCP port %u: %s",
				       a->o.tcp_port, strerror(-rc));
	} else {
		rc = rk_oob_connect(a->o.server_host, a->o.tcp_port, a->o.oob_timeout_s, &a->fd,
				 ia_serve, a);
		if (rc == -EINTR)
			return ia_fail(a, "interrupted");
		if (rk_oob_resolve_failed(rc))
			return ia_fail(a, "cannot resolve the server name %s: %s",
				       a->o.server_host, rk_oob_strerror(rc));
		if (rc != 0)
			return ia_fail(a, "cannot reach %s:%u within %g s: %s",
				       a->o.server_host, a->o.tcp_port, a->o.oob_timeout_s,
				       strerror(-rc));
	}
	return 0;
}

int
ia_oob_write(struct ia *a, const void *buf, size_t len)
{
	int rc = rk_oob_send(a->fd, buf, len);

	if (rc != 0)
		return ia_fail(a, "out-of-band send failed: %s", strerror(-rc));
	return 0;
}

int
ia_oob_read(struct ia *a, void *buf, size_t len)
{
	int rc = rk_oob_recv(a->fd, buf, len, a->o.oob_timeout_s, ia_serve, a);

	if (rc == -ETIMEDOUT)
		return ia_fail(a, "peer sent nothing for %.0f s on the out-of-band connection",
			       a->o.oob_timeout_s);
	if (rc == -ECONNRESET)
		return ia_fail(a, "the peer closed the out-of-band connection (see its error)");
	if (rc == -EINTR)
		return ia_fail(a, "interrupted");
	if (rc != 0)
		return ia_fail(a, "out-of-band connection lost: %s", strerror(-rc));
	return 0;
}

int
ia_resolve(struct ia *a, const uint8_t ip[4], uint8_t mac[6])
{
	int rc = rk_io_dpdk_resolve(a->io, ip, mac, 3000);

	if (rc == -EINTR)
		return ia_fail(a, "interrupted");
	if (rc != 0)
		return ia_fail(a, "peer %u.%u.%u.%u did not answer ARP within 3 s (unreachable)",
			       ip[0], ip[1], ip[2], ip[3]);
	return 0;
}

int
ia_watchdog(struct ia *a, int work)
{
	uint64_t now = rk_io_dpdk_now_ns();

	if (rk_app_stop)
		return ia_fail(a, "interrupted");
	a->wd.timeout_s = a->o.timeout_s;
	if (rk_app_watchdog_expired(&a->wd, now, work))
		return ia_fail(a, "no progress for %.0f s: the peer stopped or is unreachable",
			       a->o.timeout_s);
	return 0;
}

int
ia_take_send(struct ia *a, const struct rk_wc *wc, uint64_t recv_bit, uint32_t size,
	     uint64_t *recvd)
{
	if (!(wc->wr_id & recv_bit))
		return 0;
	if (wc->byte_len != size)
		return ia_fail(a, "SEND %" PRIu64 ": %u bytes, expected %u", *recvd, wc->byte_len,
			       size);
	(*recvd)++;
	return 1;
}

enum rk_mtu
ia_mtu_enum(uint32_t b)
{
	enum rk_mtu m = rk_mtu_from_bytes(b);

	return m != 0 ? m : RK_MTU_4096;
}

void
ia_gid_v4(uint8_t gid[16], const uint8_t ip[4])
{
	memset(gid, 0, 16);
	gid[10] = gid[11] = 0xff;
	memcpy(gid + 12, ip, 4);
}

bool
ia_gid_to_v4(const uint8_t gid[16], uint8_t ip[4])
{
	static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	if (memcmp(gid, prefix, 12) != 0)
		return false;
	memcpy(ip, gid + 12, 4);
	return true;
}

#ifdef RK_INTEROP_NO_IWARP
int
ia_iwarp(struct ia *a)
{
	return ia_fail(a, "--transport iwarp: built without lwIP (liblwip-dev)");
}
#endif

/* --------------------------------------------------------------- options */

static const char *const mode_names[IA_MODE_COUNT] = {
	[IA_RC_PINGPONG] = "rc_pingpong", [IA_UD_PINGPONG] = "ud_pingpong",
	[IA_WRITE_BW] = "write_bw", [IA_READ_BW] = "read_bw", [IA_SEND_BW] = "send_bw",
	[IA_ATOMIC_BW] = "atomic_bw", [IA_WRITE_LAT] = "write_lat",
	[IA_READ_LAT] = "read_lat", [IA_SEND_LAT] = "send_lat", [IA_RPING] = "rping",
};

int
ia_parse_v4(const char *s, uint8_t ip[4])
{
	return s != NULL && inet_pton(AF_INET, s, ip) == 1 ? 0 : -1;
}

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: rk-interop [EAL options --] MODE [options]          server\n"
		"       rk-interop [EAL options --] MODE [options] SERVER   client\n"
		"MODE, the peer of:\n"
		"  rc_pingpong            ibv_rc_pingpong -g N (TCP exchange on port 18515)\n"
		"  ud_pingpong            ibv_ud_pingpong -g N\n"
		"  write_bw read_bw send_bw atomic_bw write_lat read_lat send_lat\n"
		"                         perftest's ib_<MODE> -x N (no -R)\n"
		"  rping                  rping (RDMA-CM over QP1, port -p, default 7174;\n"
		"                         the client takes the server's RDMA address)\n"
		"options (the tool's where they mean the same):\n"
		"  -s, --size N           message size (rc 4096, ud 2048, perftest 65536/2,\n"
		"                         rping 64; -S as rping spells it, 32..65535)\n"
		"  -a, --all              write_bw/read_bw/send_bw: every size 2..8388608,\n"
		"                         --iters each, a result line each (perftest -a)\n"
		"  -n, --iters N          exchanges or iterations (default 1000; -C as rping)\n"
		"  -c, --connection T     perftest modes: RC (default) or UC (write_bw,\n"
		"                         send_bw, write_lat, send_lat; perftest -c)\n"
		"  -D, --duration S       bw tests: run S seconds (1..3600) instead of --iters,\n"
		"                         as perftest -D; the server of send_bw receives until\n"
		"                         S are up and the SENDs have stopped\n"
		"  -b, --bidirectional    write_bw/read_bw/send_bw: both ends run the test\n"
		"                         towards the other (perftest -b); both give -b\n"
		"      --run_infinitely   write_bw/read_bw/send_bw: run without end, a result\n"
		"                         line every -D seconds (default 5), until SIGINT or\n"
		"                         SIGTERM (then exit 0) or the peer's end (perftest's)\n"
		"      --perform_warm_up  write_bw/read_bw/atomic_bw client: -t operations\n"
		"                         posted and completed before the measured ones (and\n"
		"                         before each size of -a), as perftest's; the server\n"
		"                         takes it without effect\n"
		"  -A, --atomic_type T    atomic_bw: FETCH_AND_ADD (default) or CMP_AND_SWAP\n"
		"  -q, --qp N             write_bw/read_bw/send_bw: N QPs, --iters each\n"
		"                         (perftest -q, TCP exchange; at most 64); with -R,\n"
		"                         the client: perftest's N data connections, then it\n"
		"                         fails (a check of a server's answer to them)\n"
		"  -o, --outs N           READs/atomics in flight, 1..16 (default 16)\n"
		"      --rate_limit R     bw client: post at most R (perftest's software\n"
		"                         limiter, --rate_limit_type SW; one QP)\n"
		"      --rate_units U     of --rate_limit: g Gb/s (default), M MiB/s, p msg/s\n"
		"  -T, --tos N            type of service of our RoCE frames (perftest -T with\n"
		"      --tclass N         -R, --tclass without): DSCP << 2, ECN bits clear\n"
		"  -P, --persistent       rping server: serve client after client (rping -P);\n"
		"                         SIGINT/SIGTERM between clients ends it (exit 0)\n"
		"  -m, --mtu N            path MTU 256..4096 (default 1024)\n"
		"  -r, --rx-depth N       receives posted (default 500)\n"
		"  -t, --tx-depth N       outstanding sends, perftest bw (default 128)\n"
		"  -u, --qp-timeout N     local ACK timeout 4.096 us * 2^N (default 14, as the tools)\n"
		"  -p, --port N           TCP port (default 18515)\n"
		"  -I, --ip A.B.C.D       this endpoint's RDMA IPv4 address (required)\n"
		"  -d, --ib-dev NAME      DPDK port name (default port 0)\n"
		"  -w, --pcap FILE        record every frame sent and received (pcapng)\n"
		"      --oob-netns NAME   open the TCP exchange in network namespace NAME\n"
		"      --oob-timeout S    TCP connect/accept and message timeout (default 30)\n"
		"      --timeout S        data phase: fail after S s without progress (10)\n"
		"  -R                     perftest modes: connect with RDMA-CM (perftest -R)\n"
		"      --transport roce|iwarp  iwarp (or --iwarp): the peer of Linux siw: rping,\n"
		"                         write_bw/read_bw/send_bw (-R implied); TCP by lwIP on\n"
		"                         the port, -p is the rdma_cm port (default 18515)\n"
		"      --mpa-rev 1|2      iWARP: MPA revision (2: RFC 6581 enhanced; default 2)\n"
		"      --crc              iWARP: ask for MPA CRC32c (on when either side asks)\n"
		"      --markers          iWARP: ask the peer for MPA markers (exit 3 if refused)\n"
		"      --p2p              iWARP Rev 2: ask for/accept RFC 6581 RTR negotiation\n"
		"      --netmask M        iWARP: netmask of --ip for lwIP (255.255.255.0)\n"
		"  -g, -x N, -F           accepted for the tools' command lines (ignored)\n"
		"fault injection (to test a peer's and rdmakit's error paths):\n"
		"      --bad-rkey         perftest modes: use a wrong R_Key for the peer's buffer\n"
		"      --psn-skew N       send from N past the PSN announced to the peer\n"
		"      --pair-port N      bw client: also run against a second server on TCP\n"
		"                         port N in the same process; the faults above hit the\n"
		"                         first connection only, the second must complete\n"
		"  -v, --verbose\n"
		"  -h, --help             this text\n"
		"  -V, --version          print the version\n"
		"Exit status: 0 ok (data verified where the tool allows), 1 run-time error,\n"
		"2 bad usage, 3 the peer refused the MPA markers asked for (--markers).\n");
}

/* Options parse_args() saw, for the checks of their combinations. */
enum {
	GIVEN_S = 1 << 0,       /* -S: rping's size (perftest's -S is its SL) */
	GIVEN_OUTS = 1 << 1,
	GIVEN_ATOMIC = 1 << 2,
	GIVEN_TOS = 1 << 3,
	GIVEN_R = 1 << 4,
	GIVEN_MPA = 1 << 5,     /* --mpa-rev, --crc, --markers, --p2p, --netmask */
	GIVEN_P = 1 << 6,       /* -P: rping's persistent server */
	GIVEN_RATE = 1 << 7,    /* --rate_units, --rate_limit_type */
};

/* Options given to a mode or transport they do not apply to: 0, or -1 said. */
static int
check_combinations(const struct ia_opts *o, unsigned int given)
{
	const char *why = NULL;
	bool perftest = o->mode != IA_RC_PINGPONG && o->mode != IA_UD_PINGPONG &&
			o->mode != IA_RPING;

	if ((given & GIVEN_S) && o->mode != IA_RPING)
		why = "-S is rping's size; perftest's -S (service level) has no field in "
		      "RoCEv2: give -s for the size";
	else if ((given & GIVEN_ATOMIC) && o->mode != IA_ATOMIC_BW)
		why = "-A (--atomic_type): atomic_bw only";
	else if ((given & GIVEN_OUTS) && o->mode != IA_READ_BW && o->mode != IA_READ_LAT &&
		 o->mode != IA_ATOMIC_BW)
		why = "-o (--outs): read_bw, read_lat and atomic_bw only";
	else if ((given & GIVEN_R) && !perftest)
		why = "-R: the perftest modes only (rping always uses RDMA-CM)";
	else if ((given & GIVEN_MPA) && !o->iwarp)
		why = "--mpa-rev, --crc, --markers, --p2p and --netmask: with --transport iwarp";
	else if (o->mpa_p2p && o->mpa_rev != 2)
		why = "--p2p: MPA revision 2 only (RFC 6581)";
	else if ((given & GIVEN_P) && (o->mode != IA_RPING || o->server_host != NULL))
		why = "-P (persistent server): the rping server only";
	else if ((given & GIVEN_P) && o->iwarp)
		why = "-P (persistent server): RoCE only (iWARP serves one client)";
	else if ((given & GIVEN_TOS) && o->iwarp)
		why = "-T/--tclass: RoCE frames only";
	else if (o->rate_limit > 0 && (o->qps > 1 || o->pair_port != 0 ||
				       (o->mode != IA_WRITE_BW && o->mode != IA_READ_BW &&
					o->mode != IA_SEND_BW && o->mode != IA_ATOMIC_BW)))
		why = "--rate_limit: write_bw, read_bw, send_bw and atomic_bw, one QP (no -q or "
		      "--pair-port)";
	else if ((given & GIVEN_RATE) && o->rate_limit <= 0)
		why = "--rate_units and --rate_limit_type go with --rate_limit";
	if (why == NULL)
		return 0;
	fprintf(stderr, "rk-interop: %s\n", why);
	return -1;
}


#define BAD(...) do { fprintf(stderr, "rk-interop: " __VA_ARGS__); fputc('\n', stderr); \
		      return 2; } while (0)

static int
parse_args(void *arg, int argc, char **argv)
{
	struct ia *a = arg;
	enum { O_NETNS = 256, O_OOB_TO, O_TO, O_BAD_RKEY, O_PSN_SKEW, O_TRANSPORT, O_IWARP,
	       O_MPA_REV, O_CRC, O_MARKERS, O_P2P, O_NETMASK, O_RATE_LIMIT, O_RATE_UNITS,
	       O_RATE_TYPE, O_RUN_INF, O_WARM_UP };
	enum { O_PAIR_PORT = 512 };
	static const struct option lo[] = {
		{ "size", 1, NULL, 's' }, { "iters", 1, NULL, 'n' }, { "duration", 1, NULL, 'D' },
		{ "connection", 1, NULL, 'c' }, { "mtu", 1, NULL, 'm' },
		{ "all", 0, NULL, 'a' }, { "tos", 1, NULL, 'T' }, { "tclass", 1, NULL, 'T' },
		{ "atomic_type", 1, NULL, 'A' }, { "outs", 1, NULL, 'o' },
		{ "qp", 1, NULL, 'q' }, { "persistent", 0, NULL, 'P' },
		{ "rx-depth", 1, NULL, 'r' }, { "tx-depth", 1, NULL, 't' },
		{ "port", 1, NULL, 'p' }, { "ip", 1, NULL, 'I' }, { "ib-dev", 1, NULL, 'd' },
		{ "pcap", 1, NULL, 'w' }, { "oob-netns", 1, NULL, O_NETNS },
		{ "oob-timeout", 1, NULL, O_OOB_TO }, { "timeout", 1, NULL, O_TO },
		{ "gid-idx", 1, NULL, 'g' }, { "verbose", 0, NULL, 'v' },
		{ "qp-timeout", 1, NULL, 'u' }, { "pair-port", 1, NULL, O_PAIR_PORT },
		{ "help", 0, NULL, 'h' }, { "version", 0, NULL, 'V' },
		{ "bad-rkey", 0, NULL, O_BAD_RKEY },
		{ "psn-skew", 1, NULL, O_PSN_SKEW }, { "transport", 1, NULL, O_TRANSPORT },
		{ "iwarp", 0, NULL, O_IWARP }, { "mpa-rev", 1, NULL, O_MPA_REV },
		{ "crc", 0, NULL, O_CRC }, { "markers", 0, NULL, O_MARKERS },
		{ "p2p", 0, NULL, O_P2P }, { "netmask", 1, NULL, O_NETMASK },
		{ "rate_limit", 1, NULL, O_RATE_LIMIT }, { "rate_units", 1, NULL, O_RATE_UNITS },
		{ "rate_limit_type", 1, NULL, O_RATE_TYPE },
		{ "bidirectional", 0, NULL, 'b' }, { "run_infinitely", 0, NULL, O_RUN_INF },
		{ "perform_warm_up", 0, NULL, O_WARM_UP },
		{ NULL, 0, NULL, 0 },
	};
	struct ia_opts *o = &a->o;
	bool size_set = false, port_set = false, iters_set = false;
	unsigned int given = 0;         /* GIVEN_*: for check_combinations() */
	uint32_t v;
	int c, mi, w;

	*o = (struct ia_opts){ .tcp_port = 18515, .iters = 1000, .mtu = 1024, .rx_depth = 500,
			       .tx_depth = 128, .qp_timeout = 14, .oob_timeout_s = 30, .timeout_s = 10,
			       .mpa_rev = 2, .outs = IA_MAX_OUTS, .qps = 1 };
	optind = 1;
	opterr = 0;
	while ((c = rk_cli_getopt(argc, argv, ":s:S:n:C:D:c:abA:o:q:m:r:t:u:p:I:d:w:g:x:T:FPRvhV", lo, NULL)) != -1) {
		switch (c) {
		case 's': case 'S':
			if (rk_app_parse_u32(optarg, 1, 8u << 20, &o->size) != 0)
				BAD("--size (-s, rping's -S): expected 1..8388608, got '%s'", optarg);
			size_set = true;
			given |= c == 'S' ? GIVEN_S : 0;
			break;
		case 'a': o->all_sizes = true; break;
		case 'b': o->bidir = true; break;
		case O_RUN_INF: o->run_infinitely = true; break;
		case O_WARM_UP: o->warm_up = true; break;
		case 'q':
			if (rk_app_parse_u32(optarg, 1, IA_MAX_QPS, &o->qps) != 0)
				BAD("--qp: expected 1..%u QPs, got '%s'", IA_MAX_QPS, optarg);
			break;
		case 'o':
			if (rk_app_parse_u32(optarg, 1, IA_MAX_OUTS, &v) != 0)
				BAD("--outs: expected 1..%u READs or atomics in flight, got '%s'",
				    IA_MAX_OUTS, optarg);
			o->outs = (uint8_t)v;
			given |= GIVEN_OUTS;
			break;
		case 'A':
			if ((w = rk_app_parse_word(optarg, rk_app_words_atomic)) < 0)
				BAD("--atomic_type: expected CMP_AND_SWAP or FETCH_AND_ADD, got '%s'",
				    optarg);
			o->atomic_cas = w;
			given |= GIVEN_ATOMIC;
			break;
		case 'T':
			/* The ECN bits are the engine's (ECT per its congestion set-up). */
			if (rk_app_parse_u32(optarg, 0, 255, &v) != 0 || (v & 3) != 0)
				BAD("--tos/--tclass: expected a type of service 0..252 with the ECN bits "
				    "clear (DSCP << 2), got '%s'", optarg);
			o->dscp = (uint8_t)(v >> 2);
			given |= GIVEN_TOS;
			break;
		case 'n': case 'C':
			if (rk_app_parse_u32(optarg, 1, 100000000, &o->iters) != 0)
				BAD("--iters (-n, rping's -C): expected a positive count, got '%s'",
				    optarg);
			iters_set = true;
			break;
		case 'c':
			/* perftest's connection types; rdmakit's RC and UC engines here. */
			if (strcmp(optarg, "RC") == 0)
				o->uc = false;
			else if (strcmp(optarg, "UC") == 0)
				o->uc = true;
			else if (strcmp(optarg, "UD") == 0 || strcmp(optarg, "XRC") == 0 ||
				 strcmp(optarg, "DC") == 0 || strcmp(optarg, "SRD") == 0)
				BAD("-c %s: rk-interop plays perftest's RC and UC (UD: the "
				    "ud_pingpong mode)", optarg);
			else
				BAD("-c (--connection): expected RC or UC, got '%s'", optarg);
			break;
		case 'D': {
			char *end;

			o->duration_s = strtod(optarg, &end);
			if (*optarg == '\0' || *end != '\0' ||
			    !(o->duration_s >= 1 && o->duration_s <= 3600))
				BAD("--duration (-D): expected seconds 1..3600, got '%s'", optarg);
			break;
		}
		case O_RATE_LIMIT:
			if (rk_app_parse_double(optarg, 1e-9, 1e12, &o->rate_limit) != 0)
				BAD("--rate_limit: expected a positive rate (--rate_units, default "
				    "Gb/s), got '%s'", optarg);
			break;
		case O_RATE_UNITS:
			given |= GIVEN_RATE;
			if (rk_app_parse_rate_units(optarg, &o->rate_units) != 0)
				BAD("--rate_units: expected g (Gb/s), M (MiB/s) or p (messages/s), "
				    "got '%s'", optarg);
			break;
		case O_RATE_TYPE:
			given |= GIVEN_RATE;
			if (strcmp(optarg, "SW") != 0)
				BAD("--rate_limit_type %s: rk-interop paces in software only (SW); "
				    "the port has no rate limiter of its own", optarg);
			break;
		case 'm':
			if (rk_app_parse_u32(optarg, 256, 4096, &v) != 0 || (v & (v - 1)) != 0)
				BAD("--mtu: expected 256, 512, 1024, 2048 or 4096, got '%s'", optarg);
			o->mtu = v;
			break;
		case 'r':
			if (rk_app_parse_u32(optarg, 2, 8192, &o->rx_depth) != 0)
				BAD("--rx-depth: expected 2..8192, got '%s'", optarg);
			break;
		case 't':
			if (rk_app_parse_u32(optarg, 1, 8192, &o->tx_depth) != 0)
				BAD("--tx-depth: expected 1..8192, got '%s'", optarg);
			break;
		case 'u':
			if (rk_app_parse_u32(optarg, 1, 31, &v) != 0)
				BAD("--qp-timeout: expected 1..31, got '%s'", optarg);
			o->qp_timeout = (uint8_t)v;
			break;
		case 'p':
			if (rk_app_parse_u32(optarg, 1, 65535, &v) != 0)
				BAD("--port: expected a TCP port, got '%s'", optarg);
			o->tcp_port = (uint16_t)v;
			port_set = true;
			break;
		case 'I':
			if (inet_pton(AF_INET, optarg, o->ip) != 1)
				BAD("--ip: expected an IPv4 address, got '%s'", optarg);
			o->have_ip = true;
			break;
		case 'd': o->dev = optarg; break;
		case 'w': o->pcap_path = optarg; break;
		case O_NETNS: o->oob_netns = optarg; break;
		case O_OOB_TO: case O_TO: {
			char *end;
			double d = strtod(optarg, &end);

			if (*end != '\0' || !(d >= 0.1 && d <= 3600))
				BAD("--%s: expected seconds (0.1..3600), got '%s'",
				    c == O_TO ? "timeout" : "oob-timeout", optarg);
			if (c == O_TO)
				o->timeout_s = d;
			else
				o->oob_timeout_s = d;
			break;
		}
		case O_BAD_RKEY: o->bad_rkey = true; break;
		case O_PSN_SKEW:
			if (rk_app_parse_u32(optarg, 1, 0x7fffff, &o->psn_skew) != 0)
				BAD("--psn-skew: expected 1..8388607, got '%s'", optarg);
			break;
		case O_PAIR_PORT:
			if (rk_app_parse_u32(optarg, 1, 65535, &v) != 0)
				BAD("--pair-port: expected a TCP port, got '%s'", optarg);
			o->pair_port = (uint16_t)v;
			break;
		case 'R': o->rdma_cm = true; given |= GIVEN_R; break;
		case 'P': o->persistent = true; given |= GIVEN_P; break;
		case O_TRANSPORT:
			if ((w = rk_app_parse_word(optarg, rk_app_words_transport)) < 0)
				BAD("--transport: expected roce or iwarp, got '%s'", optarg);
			o->iwarp = w;
			break;
		case O_IWARP: o->iwarp = true; break;
		case O_MPA_REV:
			if (rk_app_parse_u32(optarg, 1, 2, &v) != 0)
				BAD("--mpa-rev: expected 1 or 2, got '%s'", optarg);
			o->mpa_rev = (uint8_t)v;
			given |= GIVEN_MPA;
			break;
		case O_CRC: o->mpa_crc = true; given |= GIVEN_MPA; break;
		case O_MARKERS: o->mpa_markers = true; given |= GIVEN_MPA; break;
		case O_P2P: o->mpa_p2p = true; given |= GIVEN_MPA; break;
		case O_NETMASK: {
			uint8_t m[4];

			if (inet_pton(AF_INET, optarg, m) != 1)
				BAD("--netmask: expected a dotted IPv4 netmask, got '%s'", optarg);
			o->netmask = optarg;
			given |= GIVEN_MPA;
			break;
		}
		case 'g': case 'x': case 'F': break;
		case 'v': o->verbose = true; break;
		case 'h': usage(stdout); exit(0);
		case 'V': rk_cli_version("rk-interop"); exit(0);
		default:
			rk_cli_refused("rk-interop", c, argc, argv);
			return 2;
		}
	}
	if (optind >= argc)
		BAD("missing MODE (rc_pingpong, ud_pingpong, write_bw, ...); --help for usage");
	for (mi = 0; mi < IA_MODE_COUNT; mi++)
		if (strcmp(argv[optind], mode_names[mi]) == 0)
			break;
	if (mi == IA_MODE_COUNT)
		BAD("unknown mode '%s'; --help for the list", argv[optind]);
	o->mode = (enum ia_mode)mi;
	optind++;
	if (optind < argc)
		o->server_host = argv[optind++];
	for (mi = 0; o->server_host != NULL && mi < IA_MODE_COUNT; mi++)
		if (strcmp(o->server_host, mode_names[mi]) == 0)
			BAD("two modes, '%s' and '%s': one a run", argv[optind - 2], o->server_host);
	if (optind < argc)
		BAD("unexpected argument '%s'", argv[optind]);
	if (!o->have_ip)
		BAD("--ip A.B.C.D is required (this endpoint's RDMA address)");
	if (o->pair_port != 0 && (o->server_host == NULL || o->rdma_cm ||
				  o->pair_port == o->tcp_port ||
				  (o->mode != IA_WRITE_BW && o->mode != IA_READ_BW &&
				   o->mode != IA_SEND_BW && o->mode != IA_ATOMIC_BW)))
		BAD("--pair-port: the client of write_bw, read_bw, send_bw or atomic_bw, "
		    "without -R, on another port than -p");
	if (o->all_sizes && (size_set || (o->mode != IA_WRITE_BW && o->mode != IA_READ_BW &&
					  o->mode != IA_SEND_BW)))
		BAD("-a (every size 2..8388608, as perftest): write_bw, read_bw and send_bw, "
		    "without --size");
	if (o->all_sizes && o->pair_port != 0)
		BAD("-a and --pair-port: one or the other");
	if (o->qps > 1 && (o->all_sizes || o->pair_port != 0 || o->iwarp ||
			   (o->rdma_cm && (o->server_host == NULL || o->bidir ||
					   o->duration_s > 0 || o->rate_limit > 0 || o->warm_up)) ||
			   (o->mode != IA_WRITE_BW && o->mode != IA_READ_BW &&
			    o->mode != IA_SEND_BW)))
		BAD("-q (several QPs): write_bw, read_bw and send_bw over the TCP exchange, "
		    "without -a, --pair-port or iWARP (with -R: the client's connections only)");
	if (o->uc && (o->rdma_cm || o->iwarp || o->qps > 1 || o->pair_port != 0 ||
		      (o->mode != IA_WRITE_BW && o->mode != IA_SEND_BW &&
		       o->mode != IA_WRITE_LAT && o->mode != IA_SEND_LAT)))
		BAD("-c UC: write_bw, send_bw, write_lat and send_lat over the TCP exchange "
		    "(UC has no READ or atomics), without -R, -q, --pair-port or iWARP");
	if (o->duration_s > 0 && (iters_set || o->all_sizes || o->pair_port != 0 ||
				  (o->mode != IA_WRITE_BW && o->mode != IA_READ_BW &&
				   o->mode != IA_SEND_BW && o->mode != IA_ATOMIC_BW)))
		BAD("-D (run for a duration, as perftest's): write_bw, read_bw, send_bw and "
		    "atomic_bw, without -n, -a or --pair-port");
	if (o->bidir && (o->mode < IA_WRITE_BW || o->mode > IA_SEND_BW || o->all_sizes ||
			 o->qps > 1 || o->rdma_cm || o->iwarp || o->uc || o->pair_port != 0))
		BAD("-b (bidirectional, as perftest's): write_bw, read_bw and send_bw over the "
		    "TCP exchange, one RC QP (no -a, -q, -R, -c UC, --pair-port or iWARP)");
	if (o->bidir && o->mode == IA_SEND_BW && (o->duration_s > 0 || o->rate_limit > 0))
		BAD("-b with send_bw: a count of iterations, unpaced (no -D or --rate_limit)");
	if (o->run_infinitely && (o->mode < IA_WRITE_BW || o->mode > IA_SEND_BW || iters_set ||
				  o->all_sizes || o->qps > 1 || o->rdma_cm || o->iwarp ||
				  o->pair_port != 0 || o->rate_limit > 0))
		BAD("--run_infinitely (a result line every -D seconds until stopped, as perftest's): "
		    "write_bw, read_bw and send_bw over the TCP exchange, one QP (no -n, -a, -q, "
		    "-R, --rate_limit, --pair-port or iWARP)");
	/* perftest warms up WRITE, READ and atomics (perftest_resources.c perform_warm_up). */
	if (o->warm_up && (o->mode == IA_SEND_BW || o->mode < IA_WRITE_BW ||
			   o->mode > IA_ATOMIC_BW || o->bidir || o->run_infinitely || o->qps > 1 ||
			   o->iwarp))
		BAD("--perform_warm_up: write_bw, read_bw and atomic_bw, one QP (perftest warms up "
		    "no SENDs; not with -b, -q, --run_infinitely or iWARP)");
	if (o->run_infinitely && o->bidir && o->mode == IA_SEND_BW)
		BAD("--run_infinitely with -b: write_bw and read_bw (perftest refuses send_bw)");
	if (o->run_infinitely) {
		/* -D is the interval here, not an end. */
		o->interval_s = o->duration_s > 0 ? o->duration_s : 5;
		o->duration_s = 0;
	}
	if (!size_set)
		o->size = o->mode == IA_RC_PINGPONG ? 4096 : o->mode == IA_UD_PINGPONG ? 2048 :
			  o->mode == IA_RPING ? 64 : o->mode >= IA_WRITE_LAT ? 2 : 65536;
	if (o->mode == IA_RPING && (o->size < 32 || o->size > 65535))
		BAD("rping: --size (-S) %u: rping's sizes are 32..65535", o->size);
	if (o->mode == IA_RPING && !port_set)
		o->tcp_port = 7174;
	if (o->iwarp && o->mode != IA_RPING && o->mode != IA_WRITE_BW && o->mode != IA_READ_BW &&
	    o->mode != IA_SEND_BW)
		BAD("--transport iwarp: modes rping, write_bw, read_bw, send_bw only");
	if (o->mode == IA_UD_PINGPONG && o->size > o->mtu)
		BAD("ud_pingpong: --size %u exceeds the MTU %u", o->size, o->mtu);
	if (check_combinations(o, given) != 0)
		return 2;
	if (o->iwarp)
		o->rdma_cm = true;
	return 0;
}

int
main(int argc, char **argv)
{
	/* Static: no early return (a usage error) leaves it behind. */
	static struct ia a_state;
	struct ia *a = &a_state;
	struct rk_io_dpdk_cfg cfg = { 0 };
	struct rk_device_attr da = { 0 };
	struct rk_io_dpdk_args args;
	int rc;

	a->fd = -1;
	rc = rk_app_start("rk-interop", argc, argv, &args, parse_args, a);
	if (rc != 0)
		return rc;

	rc = rk_app_eal_init("rk-interop", &args);
	if (rc != 0)
		return rc;
	cfg.port_name = a->o.dev;
	memcpy(cfg.ip, a->o.ip, 4);
	cfg.pcapng_path = a->o.pcap_path;
	cfg.cancel = &rk_app_stop;
	if (!rk_app_recording_writable("rk-interop", a->o.pcap_path))
		return 1;
	a->io = rk_app_port_open("rk-interop", &cfg);
	if (a->io == NULL)
		return 1;
	/* The port's sockets are open: the exchange may now move elsewhere. */
	if (a->o.oob_netns != NULL && (rc = rk_oob_enter_netns(a->o.oob_netns)) != 0) {
		fprintf(stderr, "rk-interop: cannot enter network namespace %s: %s\n",
			a->o.oob_netns, strerror(-rc));
		rk_io_dpdk_close(a->io);
		return 1;
	}
	if (a->o.iwarp) {
		/* iwarp.c owns the device and the TCP; only the port is ours. */
		rc = ia_iwarp(a);
		if (rc != 0)
			fprintf(stderr, "rk-interop: error: %s\n", a->err[0] ? a->err : "failed");
		rc = rc == 3 ? 3 : rc != 0 ? 1 : 0;
		if (rk_app_port_close("rk-interop", a->io, a->o.pcap_path) != 0)
			rc = 1;
		return rc;
	}
	/* The QP is refused otherwise, whatever the message sizes. */
	if (rk_app_roce_frame_check(a->io, a->o.mtu, "-m", a->err, sizeof(a->err)) != 0) {
		fprintf(stderr, "rk-interop: error: %s\n", a->err);
		rk_io_dpdk_close(a->io);
		return 1;
	}
	rk_io_dpdk_mac(a->io, da.mac);
	ia_gid_v4(da.ip, a->o.ip);
	da.ip_version = 4;
	da.max_inflight_pkts = 1024;
	a->ctx = rk_open_device(&ia_shim_ops, a, &da);
	if (a->ctx == NULL) {
		fprintf(stderr, "rk-interop: cannot open the RDMA device: %s\n", strerror(errno));
		rk_io_dpdk_close(a->io);
		return 1;
	}
	if (a->o.mode == IA_RC_PINGPONG || a->o.mode == IA_UD_PINGPONG)
		rc = ia_pingpong(a);
	else if (a->o.mode == IA_RPING)
		rc = ia_rping(a);
	else
		rc = ia_perftest(a);
	if (rc != 0)
		fprintf(stderr, "rk-interop: error: %s\n", a->err[0] ? a->err : "failed");
	/*
	 * Let the last ACKs leave before the port goes away, and keep
	 * answering while the peer still sends: when our last ACK was lost,
	 * its retransmission (67 ms later with the tools' timeout) must find
	 * us, or its QP ends in error. Until 200 ms pass without a frame, at
	 * most 2 s.
	 */
	for (uint64_t now = rk_io_dpdk_now_ns(), quiet = now + 200000000ull,
	     end = now + 2000000000ull; now < quiet && now < end; now = rk_io_dpdk_now_ns()) {
		int n = rk_progress(a->ctx);

		if (n > 0)
			quiet = now + 200000000ull;
		rk_io_dpdk_idle(a->io, n);
	}
	if (a->fd >= 0)
		close(a->fd);
	/* -EBUSY (a mode's error path kept objects) only leaves them to exit. */
	(void)rk_close_device(a->ctx);
	rc = rc != 0 ? 1 : 0;
	if (rk_app_port_close("rk-interop", a->io, a->o.pcap_path) != 0)
		rc = 1;
	return rc;
}
