/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen-capture: write a synthetic pcap of valid RoCEv2 RC traffic, for the
 * rk-inspect throughput benchmark.
 *
 * Many QPs (connections between hosts on one fabric) run WRITE, SEND and
 * READ messages in both directions with realistic sizes, segmented at the
 * PMTU of their host pair (1024 or 4096), with ACKs (coalesced now and
 * then), READ responses, and rare ECN CE marks answered by CNPs. PSNs,
 * MSNs, DMA lengths, pad counts and ICRCs are all correct, so rk-inspect
 * must report no finding on it.
 *
 * Packets of all QPs are interleaved in bursts, as on a switch port.
 * Output is deterministic for a given seed, QP count and host count; the
 * size only says where to stop, so a smaller capture is an exact packet
 * prefix of a larger one with the same parameters.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pcap/pcap.h>

#include "rk_build.h"
#include "rk_ipv4.h"
#include "rk_opcode.h"
#include "rk_pkt.h"

#define FRAME_CAP 4352
#define POOL_LEN (1u << 20)
#define START_SEC 1700000000u
#define LINK_BPS 100000000000ull        /* timestamps as on a 100 Gb/s link */
#define DSCP_DATA 26
#define DSCP_CNP 48
#define AETH_ACK_NO_CREDIT 0x1f         /* ACK, credits not tracked */

enum msg_type {
	MSG_NONE = 0,
	MSG_WRITE,
	MSG_SEND,
	MSG_READ,
};

enum phase {
	PH_REQ = 0,     /* request packets of the current message */
	PH_RESP,        /* ACK or READ response packets */
};

struct host {
	uint8_t mac[6];
	uint8_t ip4[16], ip6[16];
};

/* One RC connection: QP a on host ha, QP b on host hb. */
struct conn {
	uint16_t ha, hb;
	uint32_t qpn[2];
	uint16_t sport[2];      /* UDP source port (entropy) of each side */
	uint32_t pmtu;
	uint8_t ip_version;
	bool vlan;
};

/* One requester: side @c side of a connection sending to the other side. */
struct ep {
	uint32_t conn;
	uint8_t side;
	uint32_t sq_psn;        /* next request PSN */
	uint32_t msn;           /* the peer responder's MSN for our requests */
	bool cnp_pending;

	/* current message */
	uint8_t type;           /* enum msg_type */
	uint8_t phase;          /* enum phase */
	bool imm, ack_req;
	uint32_t len, npkts, idx, psn0;
	uint64_t va;
	uint32_t rkey;
};

struct stats {
	uint64_t frames, wire_bytes, file_bytes;
	uint64_t writes, sends, reads, acks, read_resps, cnps, ce;
	uint64_t findings;
};

struct gen {
	uint64_t rng;
	uint32_t nhosts, nconns, nep;
	struct host *hosts;
	struct conn *conns;
	struct ep *eps;
	uint8_t *pool;
	uint8_t frame[FRAME_CAP];
	uint64_t ts_ns;
	pcap_dumper_t *dump;
	bool check;
	struct stats st;
};

/* splitmix64: simple, seedable, and the same everywhere. */
static uint64_t
rnd(struct gen *g)
{
	uint64_t z = (g->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t
rnd_below(struct gen *g, uint32_t n)
{
	return (uint32_t)((rnd(g) >> 32) * n >> 32);
}

static bool
chance(struct gen *g, uint32_t num, uint32_t den)
{
	return rnd_below(g, den) < num;
}

static int
setup(struct gen *g, uint64_t seed, uint32_t nhosts, uint32_t nconns)
{
	g->rng = seed;
	g->nhosts = nhosts;
	g->nconns = nconns;
	g->nep = nconns * 2;
	g->hosts = calloc(nhosts, sizeof(*g->hosts));
	g->conns = calloc(nconns, sizeof(*g->conns));
	g->eps = calloc(g->nep, sizeof(*g->eps));
	g->pool = malloc(POOL_LEN + FRAME_CAP);
	if (g->hosts == NULL || g->conns == NULL || g->eps == NULL || g->pool == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < POOL_LEN + FRAME_CAP; i += 8) {
		uint64_t v = rnd(g);

		memcpy(g->pool + i, &v, 8);
	}
	for (uint32_t h = 0; h < nhosts; h++) {
		struct host *ho = &g->hosts[h];
		uint8_t v4[4] = { 10, 1, (uint8_t)(h >> 8), (uint8_t)(h + 1) };

		ho->mac[0] = 0x02;
		ho->mac[3] = 0x5e;
		ho->mac[4] = (uint8_t)(h >> 8);
		ho->mac[5] = (uint8_t)h;
		ho->ip4[10] = 0xff;
		ho->ip4[11] = 0xff;
		memcpy(ho->ip4 + 12, v4, 4);
		ho->ip6[0] = 0xfd;
		ho->ip6[1] = 0x00;
		ho->ip6[7] = 0x01;
		ho->ip6[14] = (uint8_t)(h >> 8);
		ho->ip6[15] = (uint8_t)(h + 1);
	}
	for (uint32_t c = 0; c < nconns; c++) {
		struct conn *co = &g->conns[c];
		uint32_t lo, hi;

		co->ha = (uint16_t)rnd_below(g, nhosts);
		co->hb = (uint16_t)rnd_below(g, nhosts - 1);
		if (co->hb >= co->ha)
			co->hb++;
		co->qpn[0] = 0x100 + 2 * c;
		co->qpn[1] = 0x101 + 2 * c;
		for (int s = 0; s < 2; s++)
			co->sport[s] = (uint16_t)(0xc000 | (rnd(g) & 0x3fff));
		co->ip_version = chance(g, 1, 4) ? 6 : 4;
		/* PMTU is a property of the path: the same for every QP
		 * between two hosts (rk-inspect infers it per host pair). */
		lo = co->ha < co->hb ? co->ha : co->hb;
		hi = co->ha < co->hb ? co->hb : co->ha;
		co->pmtu = ((lo * 2654435761u) ^ (hi * 40503u) ^ co->ip_version) & 4 ? 1024 : 4096;
		co->vlan = (lo + hi) % 2 == 0;
		for (int s = 0; s < 2; s++) {
			struct ep *e = &g->eps[2 * c + (uint32_t)s];

			e->conn = c;
			e->side = (uint8_t)s;
			/* Some QPs start just below the 24-bit wrap. */
			e->sq_psn = chance(g, 1, 16) ?
				    RK_PSN_MASK - rnd_below(g, 2000) :
				    (uint32_t)(rnd(g) & RK_PSN_MASK);
			e->msn = (uint32_t)(rnd(g) & 0xffffff);
		}
	}
	return 0;
}

/* Message sizes: storage and RPC-like mixes; large transfers dominate bytes. */
static uint32_t
size_write(struct gen *g)
{
	static const uint32_t sz[] = { 4096, 4096, 4096, 16384, 16384, 65536,
				       65536, 65536, 262144, 262144, 1048576 };
	uint32_t r = rnd_below(g, 100);

	if (r < 8)
		return 8 + rnd_below(g, 505);      /* small, unaligned */
	return sz[rnd_below(g, sizeof(sz) / sizeof(sz[0]))];
}

static uint32_t
size_send(struct gen *g)
{
	uint32_t r = rnd_below(g, 100);

	if (r < 65)
		return 16 + rnd_below(g, 241);     /* RPC headers, doorbells */
	if (r < 90)
		return 512 + rnd_below(g, 3585);
	return 8192 + rnd_below(g, 57345);
}

static uint32_t
size_read(struct gen *g)
{
	static const uint32_t sz[] = { 4096, 4096, 8192, 16384, 65536, 131072, 262144 };

	if (chance(g, 1, 10))
		return 64 + rnd_below(g, 193);
	return sz[rnd_below(g, sizeof(sz) / sizeof(sz[0]))];
}

static void
new_message(struct gen *g, struct ep *e)
{
	const struct conn *co = &g->conns[e->conn];
	uint32_t r = rnd_below(g, 100);

	if (r < 45) {
		e->type = MSG_WRITE;
		e->len = size_write(g);
		e->imm = chance(g, 1, 20);
		g->st.writes++;
	} else if (r < 75) {
		e->type = MSG_SEND;
		e->len = size_send(g);
		e->imm = chance(g, 1, 10);
		g->st.sends++;
	} else {
		e->type = MSG_READ;
		e->len = size_read(g);
		e->imm = false;
		g->st.reads++;
	}
	e->npkts = e->len == 0 ? 1 : (e->len + co->pmtu - 1) / co->pmtu;
	e->idx = 0;
	e->phase = PH_REQ;
	e->psn0 = e->sq_psn;
	/* A READ reserves one PSN per response packet (IBTA Vol1 9.7.4.1.2). */
	e->sq_psn = (e->sq_psn + e->npkts) & RK_PSN_MASK;
	e->va = (rnd(g) & 0x00007ffffffff000ull) | (rnd(g) & 0xff8);
	e->rkey = (uint32_t)rnd(g);
	/* Most messages ask for an ACK; the others get one coalesced into a
	 * later ACK, which rk-inspect must take as a jump, not a gap. */
	e->ack_req = e->type != MSG_READ && !chance(g, 1, 5);
}

static int
emit(struct gen *g, const uint8_t *f, uint32_t len)
{
	struct pcap_pkthdr h;

	h.ts.tv_sec = (time_t)(START_SEC + g->ts_ns / 1000000000u);
	h.ts.tv_usec = (suseconds_t)(g->ts_ns % 1000000000u); /* nanosecond file */
	h.caplen = len;
	h.len = len;
	pcap_dump((u_char *)g->dump, &h, f);
	/* Preamble, SFD, FCS and inter-frame gap: 24 bytes more on the wire. */
	g->ts_ns += ((uint64_t)len + 24) * 8 * 1000000000u / LINK_BPS + 1;
	g->st.frames++;
	g->st.wire_bytes += len;
	g->st.file_bytes += 16 + len;
	if (g->check) {
		struct rk_pkt p;

		rk_pkt_parse(&p, f, len, len, RK_LINK_ETHERNET, NULL);
		g->st.findings += p.findings.count + p.findings.dropped;
		if (p.icrc_status != RK_ICRC_GOOD)
			g->st.findings++;
	}
	return 0;
}

/* Build and write one RoCEv2 frame from side @p from of connection @p co. */
static int
send_frame(struct gen *g, const struct conn *co, int from, const struct rk_bth_fields *b,
	   const struct rk_xeth_fields *x, uint32_t payload_len, uint8_t dscp, uint8_t ecn)
{
	const struct host *src = &g->hosts[from ? co->hb : co->ha];
	const struct host *dst = &g->hosts[from ? co->ha : co->hb];
	struct rk_roce_addr a = { 0 };
	int n;

	memcpy(a.dst_mac, dst->mac, 6);
	memcpy(a.src_mac, src->mac, 6);
	a.vlan = co->vlan;
	a.vlan_tci = (uint16_t)(3u << 13 | 100);  /* PCP 3: the lossless class */
	a.ip_version = co->ip_version;
	memcpy(a.src_ip, co->ip_version == 4 ? src->ip4 : src->ip6, 16);
	memcpy(a.dst_ip, co->ip_version == 4 ? dst->ip4 : dst->ip6, 16);
	a.dscp = dscp;
	a.ecn = ecn;
	a.df = true;
	a.ip_id = (uint16_t)g->st.frames;
	a.flow_label = co->ip_version == 6 ? (co->sport[from] & 0xfffffu) : 0;
	a.src_port = co->sport[from];
	n = rk_build_rocev2(g->frame, FRAME_CAP, &a, b, x,
			    g->pool + (rnd(g) & (POOL_LEN - 1)), payload_len);
	if (n < 0)
		return n;
	return emit(g, g->frame, (uint32_t)n);
}

static uint8_t
seg_opcode(uint32_t idx, uint32_t n, uint8_t first, uint8_t middle, uint8_t last,
	   uint8_t only)
{
	if (n == 1)
		return only;
	if (idx == 0)
		return first;
	return idx + 1 == n ? last : middle;
}

/* The next packet of requester @p e: a request, a response of the peer, or a CNP. */
static int
step(struct gen *g, struct ep *e)
{
	const struct conn *co = &g->conns[e->conn];
	int req = e->side, resp = !e->side;
	struct rk_bth_fields b = { .p_key = 0xffff };
	struct rk_xeth_fields x = { 0 };
	uint32_t plen = 0;
	uint8_t ecn = RK_ECN_ECT0;      /* RoCEv2 with DCQCN */
	int rc;

	if (e->cnp_pending) {
		/* Notification point (the responder) to reaction point (A17.9.3). */
		e->cnp_pending = false;
		b.opcode = RK_OP_CNP;
		b.dest_qp = co->qpn[req];
		b.becn = 1;
		g->st.cnps++;
		return send_frame(g, co, resp, &b, &x, 0, DSCP_CNP, ecn);
	}
	if (e->type == MSG_NONE)
		new_message(g, e);

	if (e->phase == PH_REQ) {
		bool last = e->idx + 1 == e->npkts;

		b.dest_qp = co->qpn[resp];
		b.psn = (e->psn0 + e->idx) & RK_PSN_MASK;
		switch (e->type) {
		case MSG_WRITE:
			b.opcode = seg_opcode(e->idx, e->npkts, RK_OP_RDMA_WRITE_FIRST,
					      RK_OP_RDMA_WRITE_MIDDLE,
					      e->imm ? RK_OP_RDMA_WRITE_LAST_IMM : RK_OP_RDMA_WRITE_LAST,
					      e->imm ? RK_OP_RDMA_WRITE_ONLY_IMM : RK_OP_RDMA_WRITE_ONLY);
			x.reth_va = e->va;
			x.reth_r_key = e->rkey;
			x.reth_dma_len = e->len;
			break;
		case MSG_SEND:
			b.opcode = seg_opcode(e->idx, e->npkts, RK_OP_SEND_FIRST, RK_OP_SEND_MIDDLE,
					      e->imm ? RK_OP_SEND_LAST_IMM : RK_OP_SEND_LAST,
					      e->imm ? RK_OP_SEND_ONLY_IMM : RK_OP_SEND_ONLY);
			break;
		default:
			b.opcode = RK_OP_RDMA_READ_REQUEST;
			x.reth_va = e->va;
			x.reth_r_key = e->rkey;
			x.reth_dma_len = e->len;
			last = true;
			break;
		}
		x.imm = (uint32_t)e->psn0;
		if (e->type != MSG_READ)
			plen = last ? e->len - e->idx * co->pmtu : co->pmtu;
		b.ack_req = last && e->ack_req;
		b.se = last && e->type == MSG_SEND;
		if (plen > 0 && chance(g, 1, 4000)) {
			ecn = RK_ECN_CE;        /* congestion on the way */
			e->cnp_pending = true;
			g->st.ce++;
		}
		rc = send_frame(g, co, req, &b, &x, plen, DSCP_DATA, ecn);
		if (rc < 0)
			return rc;
		e->idx++;
		if (last) {
			/* The responder has executed the message. */
			e->msn = (e->msn + 1) & 0xffffff;
			e->idx = 0;
			if (e->type == MSG_READ || e->ack_req)
				e->phase = PH_RESP;
			else
				e->type = MSG_NONE;
		}
		return 0;
	}

	/* Responses travel from the responder back to the requester's QP. */
	b.dest_qp = co->qpn[req];
	x.aeth_syndrome = AETH_ACK_NO_CREDIT;
	x.aeth_msn = e->msn;
	if (e->type == MSG_READ) {
		b.opcode = seg_opcode(e->idx, e->npkts, RK_OP_RDMA_READ_RESPONSE_FIRST,
				      RK_OP_RDMA_READ_RESPONSE_MIDDLE,
				      RK_OP_RDMA_READ_RESPONSE_LAST,
				      RK_OP_RDMA_READ_RESPONSE_ONLY);
		b.psn = (e->psn0 + e->idx) & RK_PSN_MASK;
		plen = e->idx + 1 == e->npkts ? e->len - e->idx * co->pmtu : co->pmtu;
		g->st.read_resps++;
		rc = send_frame(g, co, resp, &b, &x, plen, DSCP_DATA, ecn);
		if (rc < 0)
			return rc;
		if (++e->idx == e->npkts)
			e->type = MSG_NONE;
		return 0;
	}
	/* ACK of the last PSN of the message, covering earlier unacked ones. */
	b.opcode = RK_OP_ACKNOWLEDGE;
	b.psn = (e->psn0 + e->npkts - 1) & RK_PSN_MASK;
	g->st.acks++;
	e->type = MSG_NONE;
	return send_frame(g, co, resp, &b, &x, 0, DSCP_DATA, ecn);
}

static int
parse_size(const char *s, uint64_t *out)
{
	char *end;
	double v = strtod(s, &end);
	uint64_t mul = 1;

	if (end == s || v < 0)
		return -EINVAL;
	switch (*end) {
	case 'k':
	case 'K':
		mul = 1ull << 10;
		end++;
		break;
	case 'm':
	case 'M':
		mul = 1ull << 20;
		end++;
		break;
	case 'g':
	case 'G':
		mul = 1ull << 30;
		end++;
		break;
	default:
		break;
	}
	if (*end == 'i' || *end == 'B')
		end += *end == 'i' && end[1] == 'B' ? 2 : 1;
	if (*end != '\0')
		return -EINVAL;
	*out = (uint64_t)(v * (double)mul);
	return 0;
}

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: gen-capture [-o FILE] [--size SIZE] [--qps N] [--hosts N] [--seed N]\n"
		"                   [--no-check]\n"
		"  Write a pcap (nanosecond timestamps, Ethernet) of valid RoCEv2 RC\n"
		"  traffic, stopping at the first frame that reaches SIZE bytes of file\n"
		"  (default 1G; K, M, G suffixes are powers of 2). Defaults: -o rocev2.pcap\n"
		"  (- for stdout), 1000 QPs (connections, both sides issue requests),\n"
		"  64 hosts, seed 1. --no-check skips parsing every frame back.\n");
}

int
main(int argc, char **argv)
{
	const char *out = "rocev2.pcap";
	uint64_t size = 1ull << 30, seed = 1;
	uint32_t qps = 1000, hosts = 64;
	struct gen g;
	pcap_t *dead;
	FILE *fp;
	struct timespec t0, t1;
	double secs;

	memset(&g, 0, sizeof(g));
	g.check = true;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			return 0;
		} else if (strcmp(a, "--no-check") == 0) {
			g.check = false;
			continue;
		} else if (v == NULL) {
			usage(stderr);
			return 2;
		}
		i++;
		if (strcmp(a, "-o") == 0) {
			out = v;
		} else if (strcmp(a, "--size") == 0) {
			if (parse_size(v, &size) < 0) {
				fprintf(stderr, "gen-capture: bad size '%s'\n", v);
				return 2;
			}
		} else if (strcmp(a, "--qps") == 0) {
			qps = (uint32_t)strtoul(v, NULL, 0);
		} else if (strcmp(a, "--hosts") == 0) {
			hosts = (uint32_t)strtoul(v, NULL, 0);
		} else if (strcmp(a, "--seed") == 0) {
			seed = strtoull(v, NULL, 0);
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (qps < 1 || qps > 0x7fff00 || hosts < 2 || hosts > 65000) {
		fprintf(stderr, "gen-capture: need 1..%u QPs and 2..65000 hosts\n", 0x7fff00);
		return 2;
	}
	if (setup(&g, seed, hosts, qps) < 0) {
		fprintf(stderr, "gen-capture: out of memory\n");
		return 1;
	}

	dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535,
						    PCAP_TSTAMP_PRECISION_NANO);
	fp = strcmp(out, "-") == 0 ? stdout : fopen(out, "wb");
	if (dead == NULL || fp == NULL) {
		fprintf(stderr, "gen-capture: cannot open %s: %s\n", out, strerror(errno));
		return 1;
	}
	/* Large stdio buffer: the file is written in big sequential chunks. */
	setvbuf(fp, NULL, _IOFBF, 1u << 20);
	g.dump = pcap_dump_fopen(dead, fp);
	if (g.dump == NULL) {
		fprintf(stderr, "gen-capture: %s\n", pcap_geterr(dead));
		return 1;
	}
	g.st.file_bytes = 24;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (g.st.file_bytes < size) {
		/* A NIC sends a few packets of one QP back to back. */
		struct ep *e = &g.eps[rnd_below(&g, g.nep)];
		uint32_t burst = 1 + rnd_below(&g, 8);

		for (uint32_t k = 0; k < burst && g.st.file_bytes < size; k++) {
			if (step(&g, e) < 0) {
				fprintf(stderr, "gen-capture: frame build failed\n");
				return 1;
			}
		}
	}
	pcap_dump_flush(g.dump);
	if (ferror(fp)) {
		fprintf(stderr, "gen-capture: write error on %s\n", out);
		return 1;
	}
	pcap_dump_close(g.dump);
	pcap_close(dead);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

	fprintf(stderr,
		"gen-capture: %s: %" PRIu64 " frames, %" PRIu64 " bytes of file, %u QPs "
		"(%u requesters) on %u hosts, seed %" PRIu64 "\n"
		"gen-capture: messages: %" PRIu64 " WRITE, %" PRIu64 " SEND, %" PRIu64
		" READ; %" PRIu64 " ACK, %" PRIu64 " READ response packets, %" PRIu64
		" CE marks, %" PRIu64 " CNP; %.1f s\n",
		out, g.st.frames, g.st.file_bytes, qps, g.nep, hosts, seed,
		g.st.writes, g.st.sends, g.st.reads, g.st.acks, g.st.read_resps,
		g.st.ce, g.st.cnps, secs);
	if (g.check)
		fprintf(stderr, "gen-capture: stateless findings on the frames written "
				"(rk_pkt_parse): %" PRIu64 "\n", g.st.findings);
	free(g.hosts);
	free(g.conns);
	free(g.eps);
	free(g.pool);
	return g.check && g.st.findings != 0 ? 1 : 0;
}
