/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ICRC verify rate of lib/wire against ISA-L's raw CRC-32 over the same
 * bytes, measured in the same run.
 *
 * For each payload size a ring of RoCEv2 frames is built with
 * rk_build_rocev2 (distinct QPs, PSNs and payloads), then four loops run
 * over the same ring:
 *   parse   rk_pkt_parse with check_icrc on: what rk-inspect pays per frame
 *   bare    rk_rocev2_icrc alone (masking plus CRC, no parsing)
 *   noicrc  rk_pkt_parse with check_icrc off: the parser's own cost
 *   isal    crc32_gzip_refl over the bytes the ICRC covers (IP header up to
 *           the ICRC): the reference, what a CRC of these bytes can cost
 * Every rate counts the same bytes (IP header to ICRC, exclusive), so a
 * ratio of two rates is the inverse ratio of their times. Each loop runs
 * about --time seconds, three times, interleaved so that drift of a noisy
 * machine hits all of them alike; the best of the three counts.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <isa-l/crc.h>

#include "rk_build.h"
#include "rk_byteorder.h"
#include "rk_opcode.h"
#include "rk_pkt.h"
#include "rk_xeth.h"
#include "bench_util.h"

/* Enough distinct frames to defeat branch-history tricks, few enough to stay
 * in L2 at 4 KiB (the reference reads the same memory). */
#define NFRAMES 64
#define FRAME_CAP 4352
#define L2_LEN 14
#define REPS 3

enum kind {
	K_PARSE,
	K_BARE,
	K_NOICRC,
	K_ISAL,
	K_COUNT
};

static const char *const kind_name[K_COUNT] = {
	"icrc_verify", "icrc_bare", "parse_noicrc", "isal_crc32",
};

struct ring {
	uint8_t *buf;
	uint8_t *frame[NFRAMES];
	uint32_t len[NFRAMES];
	uint32_t icrc[NFRAMES];
	uint64_t covered;       /* bytes IP..ICRC summed over the ring */
};

static double opt_time = 1.0;
static volatile uint64_t sink;


static uint64_t
xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

static int
ring_build(struct ring *r, uint32_t payload_len, uint8_t opcode)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull ^ payload_len;
	uint8_t payload[4096];

	r->buf = aligned_alloc(64, (size_t)NFRAMES * FRAME_CAP);
	if (r->buf == NULL)
		return -ENOMEM;
	r->covered = 0;
	for (unsigned int i = 0; i < NFRAMES; i++) {
		struct rk_roce_addr a = {
			.dst_mac = { 0x02, 0, 0, 0, 0, 2 },
			.src_mac = { 0x02, 0, 0, 0, 0, 1 },
			.ip_version = 4,
			.src_ip = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 },
			.dst_ip = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 2 },
			.dscp = 26,
			.ecn = 2,
			.df = true,
			.src_port = (uint16_t)(0xc000 | i),
		};
		struct rk_bth_fields b = {
			.opcode = opcode,
			.p_key = 0xffff,
			.dest_qp = 0x100 + i,
			.psn = (uint32_t)(xorshift(&seed) & RK_PSN_MASK),
		};
		struct rk_xeth_fields x = { 0 };
		int n;

		for (unsigned int j = 0; j < sizeof(payload); j += 8) {
			uint64_t v = xorshift(&seed);

			memcpy(payload + j, &v, 8);
		}
		/* Frames start 64-byte aligned, as in a capture or mbuf
		 * buffer; the IP header then sits at offset 14. */
		r->frame[i] = r->buf + (size_t)i * FRAME_CAP;
		n = rk_build_rocev2(r->frame[i], FRAME_CAP, &a, &b, &x, payload, payload_len);
		if (n < 0)
			return n;
		r->len[i] = (uint32_t)n;
		r->icrc[i] = rk_get_le32(r->frame[i] + n - RK_ICRC_LEN);
		r->covered += (uint64_t)n - L2_LEN - RK_ICRC_LEN;
	}
	return 0;
}

/* Run @p passes passes over the ring; return how many frames checked out
 * (all of them, or the bench is measuring a broken path). */
static uint64_t
run(const struct ring *r, enum kind k, uint64_t passes)
{
	const struct rk_parse_opts on = { .check_icrc = true, .pmtu = 4096 };
	const struct rk_parse_opts off = { .check_icrc = false, .pmtu = 4096 };
	struct rk_pkt pkt;
	uint64_t good = 0;

	for (uint64_t p = 0; p < passes; p++) {
		for (unsigned int i = 0; i < NFRAMES; i++) {
			const uint8_t *f = r->frame[i];
			uint32_t len = r->len[i];
			uint32_t cov = len - L2_LEN - RK_ICRC_LEN;

			switch (k) {
			case K_PARSE:
				rk_pkt_parse(&pkt, f, len, len, RK_LINK_ETHERNET, &on);
				good += pkt.icrc_status == RK_ICRC_GOOD;
				break;
			case K_BARE:
				good += rk_rocev2_icrc(f + L2_LEN, cov) == r->icrc[i];
				break;
			case K_NOICRC:
				rk_pkt_parse(&pkt, f, len, len, RK_LINK_ETHERNET, &off);
				good += pkt.kind == RK_PKT_ROCEV2;
				break;
			case K_ISAL:
				/* The plain CRC of the covered bytes; its value
				 * differs from the ICRC (no masking, no 0xFF
				 * prefix), so consume it instead of comparing. */
				sink += crc32_gzip_refl(0, f + L2_LEN, cov);
				good++;
				break;
			default:
				break;
			}
		}
	}
	return good;
}

/* Passes that take about opt_time seconds. */
static uint64_t
calibrate(const struct ring *r, enum kind k)
{
	uint64_t passes = 1;

	for (;;) {
		uint64_t t0 = bench_now_ns();
		uint64_t dt;

		run(r, k, passes);
		dt = bench_now_ns() - t0;
		if (dt >= 50000000u || passes >= (1ull << 40)) {
			double want = opt_time * 1e9 / (double)(dt ? dt : 1) * (double)passes;

			return want < 1 ? 1 : (uint64_t)want;
		}
		passes *= 2;
	}
}

/* Best-of-REPS rates (GB/s) of every kind on one ring. */
static int
measure(const struct ring *r, double gbps[K_COUNT])
{
	uint64_t passes[K_COUNT];

	for (int k = 0; k < K_COUNT; k++) {
		gbps[k] = 0;
		passes[k] = calibrate(r, (enum kind)k);
	}
	for (int rep = 0; rep < REPS; rep++) {
		for (int k = 0; k < K_COUNT; k++) {
			uint64_t t0 = bench_now_ns();
			uint64_t good = run(r, (enum kind)k, passes[k]);
			uint64_t dt = bench_now_ns() - t0;
			double rate = (double)r->covered * (double)passes[k] / (double)dt;

			if (good != passes[k] * NFRAMES) {
				fprintf(stderr, "bench_icrc: %s: %" PRIu64 " of %" PRIu64
					" frames failed the check\n", kind_name[k],
					passes[k] * NFRAMES - good, passes[k] * NFRAMES);
				return -1;
			}
			if (rate > gbps[k])
				gbps[k] = rate;
		}
	}
	return 0;
}

struct size_case {
	const char *tag;
	uint32_t payload;
	uint8_t opcode;
	bool target;            /* the 0.7 target applies */
};

static void
usage(FILE *f)
{
	fprintf(f, "usage: bench_icrc [--time SECONDS]\n"
		   "  RoCEv2 ICRC verify rate (rk_pkt_parse, rk_rocev2_icrc) as a ratio\n"
		   "  to ISA-L crc32_gzip_refl over the same bytes, best of %d runs of\n"
		   "  about SECONDS each (default 1).\n", REPS);
}

int
main(int argc, char **argv)
{
	/* MIDDLE packets carry a full PMTU of payload and nothing else; a
	 * 64-byte payload is a small SEND ONLY. */
	static const struct size_case cases[] = {
		{ "4k", 4096, RK_OP_RDMA_WRITE_MIDDLE, true },
		{ "1k", 1024, RK_OP_RDMA_WRITE_MIDDLE, false },
		{ "64", 64, RK_OP_SEND_ONLY, false },
	};

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--time") == 0 && i + 1 < argc) {
			opt_time = strtod(argv[++i], NULL);
			if (opt_time <= 0) {
				usage(stderr);
				return 2;
			}
		} else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}

	printf("# RoCEv2/IPv4 frames, %d per ring, rates over the bytes the ICRC covers\n"
	       "# (IP header to ICRC), best of %d x ~%.1f s\n", NFRAMES, REPS, opt_time);
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct size_case *sc = &cases[c];
		struct ring r;
		double g[K_COUNT];

		if (ring_build(&r, sc->payload, sc->opcode) < 0 || measure(&r, g) < 0) {
			free(r.buf);
			return 1;
		}
		printf("icrc_verify_%s: %.2f GB/s, isal_crc32: %.2f GB/s, ratio %.2f%s\n",
		       sc->tag, g[K_PARSE], g[K_ISAL], g[K_PARSE] / g[K_ISAL],
		       sc->target ? " (target >= 0.7)" : " (information)");
		printf("icrc_bare_%s: %.2f GB/s, ratio %.2f; parse_noicrc_%s: %.2f GB/s "
		       "(%.1f ns/frame), frame %u B\n",
		       sc->tag, g[K_BARE], g[K_BARE] / g[K_ISAL], sc->tag, g[K_NOICRC],
		       (double)r.covered / NFRAMES / g[K_NOICRC], r.len[0]);
		/* Machine-readable lines for run-bench.sh. */
		printf("@result icrc_verify_%s %.3f %s ratio\n", sc->tag,
		       g[K_PARSE] / g[K_ISAL], sc->target ? ">= 0.7" : "- -");
		printf("@result icrc_bare_%s %.3f - - ratio\n", sc->tag, g[K_BARE] / g[K_ISAL]);
		printf("@result isal_crc32_%s %.2f - - GB/s\n", sc->tag, g[K_ISAL]);
		fflush(stdout);
		free(r.buf);
	}
	return 0;
}
