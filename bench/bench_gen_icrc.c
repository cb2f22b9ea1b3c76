/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-gen's ICRC: a PSN changed every frame, the ICRC kept valid by a full
 * recomputation or by the incremental update of lib/gen, measured in the
 * same run, for a minimum frame (58 bytes without FCS: no payload; 64 on
 * the wire once padded) and a 1 KiB payload.
 *
 *   icrc_full   PSN written, rk_rocev2_icrc() over the frame
 *   icrc_incr   PSN written, rk_gen_icrc_field_update() (3 table lookups)
 *   next_full   rk_gen_stream_next(), icrc: full (frame copied out too)
 *   next_incr   rk_gen_stream_next(), icrc: incremental
 *
 * Each loop runs about --time seconds, three times interleaved; the best
 * counts. Prints ns per frame and the ratios full / incremental.
 * usage: bench_gen_icrc [--time SECONDS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rk_byteorder.h"
#include "rk_gen_icrc.h"
#include "rk_gen_stream.h"
#include "rk_pkt.h"
#include "rk_xeth.h"
#include "bench_util.h"

#define REPS 3

static double opt_time = 0.5;
static volatile uint32_t sink;


enum kind { K_FULL, K_INCR, K_NEXT_FULL, K_NEXT_INCR, K_COUNT };

struct setup {
	uint8_t frame[RK_GEN_FRAME_MAX], out[RK_GEN_FRAME_MAX];
	uint32_t len, l3, bth, icrc;
	struct rk_gen_icrc_field psn;
	struct rk_gen_stream *full, *incr;
};

static int
setup(struct setup *s, uint32_t payload)
{
	struct rk_gen_cfg c;
	struct rk_gen_icrc_layout lay;
	int n;

	rk_gen_cfg_init(&c);
	c.opcode = 0x04; /* RC SEND Only */
	c.payload_len = payload;
	c.count = 0;
	c.count_set = true;
	c.pattern = RK_GEN_PAT_RANDOM;
	c.nvary = 1;
	memset(&c.vary[0], 0, sizeof(c.vary[0]));
	if (rk_gen_ref_parse(&c.vary[0].ref, "bth.psn", &(const char *){ NULL }) < 0)
		return -1;
	c.vary[0].op = RK_GEN_VARY_INC;
	if (rk_gen_stream_compile(&c, &s->incr, NULL) < 0)
		return -1;
	c.icrc = RK_GEN_ICRC_FULL;
	if (rk_gen_stream_compile(&c, &s->full, NULL) < 0)
		return -1;
	n = rk_gen_stream_next(s->incr, s->frame, sizeof(s->frame));
	if (n <= 0)
		return -1;
	s->len = (uint32_t)n;
	s->l3 = 14;
	s->bth = s->l3 + 20 + 8;
	s->icrc = rk_get_le32(s->frame + s->len - RK_ICRC_LEN);
	if (rk_gen_icrc_layout_init(&lay, s->frame + s->l3, s->len - RK_ICRC_LEN - s->l3) < 0 ||
	    rk_gen_icrc_field_init(&s->psn, &lay, s->bth + 9 - s->l3, 3) < 0)
		return -1;
	return 0;
}

/* Frames per second of loop k over about opt_time seconds. */
static double
run(struct setup *s, enum kind k)
{
	uint64_t t0 = bench_now_ns(), frames = 0, psn = 0;
	uint64_t until = t0 + (uint64_t)(opt_time * 1e9);

	do {
		for (int i = 0; i < 1024; i++, frames++) {
			uint8_t *p = s->frame + s->bth + 9, old[3];

			switch (k) {
			case K_FULL:
				rk_put_be24(p, (uint32_t)++psn & 0xffffff);
				s->icrc = rk_rocev2_icrc(s->frame + s->l3, s->len - RK_ICRC_LEN - s->l3);
				rk_put_le32(s->frame + s->len - RK_ICRC_LEN, s->icrc);
				break;
			case K_INCR:
				memcpy(old, p, 3);
				rk_put_be24(p, (uint32_t)++psn & 0xffffff);
				s->icrc = rk_gen_icrc_field_update(&s->psn, s->icrc, old, p);
				rk_put_le32(s->frame + s->len - RK_ICRC_LEN, s->icrc);
				break;
			case K_NEXT_FULL:
				sink += (uint32_t)rk_gen_stream_next(s->full, s->out, sizeof(s->out));
				break;
			default:
				sink += (uint32_t)rk_gen_stream_next(s->incr, s->out, sizeof(s->out));
			}
		}
	} while (bench_now_ns() < until);
	sink += s->icrc;
	/* the incremental ICRC must still be the right one */
	if (k == K_INCR &&
	    s->icrc != rk_rocev2_icrc(s->frame + s->l3, s->len - RK_ICRC_LEN - s->l3)) {
		fprintf(stderr, "bench_gen_icrc: incremental ICRC went wrong\n");
		exit(1);
	}
	return (double)frames * 1e9 / (double)(bench_now_ns() - t0);
}

int
main(int argc, char **argv)
{
	/* 58 bytes (padded to the 64-byte minimum on the wire), and 1 KiB of payload */
	static const uint32_t payloads[] = { 0, 1024 };
	static struct setup s;

	if (argc == 3 && strcmp(argv[1], "--time") == 0)
		opt_time = atof(argv[2]);
	else if (argc != 1) {
		fprintf(stderr, "usage: bench_gen_icrc [--time SECONDS]\n");
		return 2;
	}
	printf("%-8s %-6s %10s %10s %10s %10s %8s %8s\n", "frame_B", "paylen", "full_ns",
	       "incr_ns", "next_full", "next_incr", "ratio", "ratio_nx");
	for (size_t p = 0; p < sizeof(payloads) / sizeof(payloads[0]); p++) {
		double best[K_COUNT] = { 0 };

		memset(&s, 0, sizeof(s));
		if (setup(&s, payloads[p]) < 0) {
			fprintf(stderr, "bench_gen_icrc: setup failed\n");
			return 1;
		}
		for (int r = 0; r < REPS; r++)
			for (int k = 0; k < K_COUNT; k++) {
				double fps = run(&s, (enum kind)k);

				if (fps > best[k])
					best[k] = fps;
			}
		printf("%-8u %-6u %10.1f %10.1f %10.1f %10.1f %8.1f %8.2f\n", s.len, payloads[p],
		       1e9 / best[K_FULL], 1e9 / best[K_INCR], 1e9 / best[K_NEXT_FULL],
		       1e9 / best[K_NEXT_INCR], best[K_INCR] / best[K_FULL],
		       best[K_NEXT_INCR] / best[K_NEXT_FULL]);
		rk_gen_icrc_field_fini(&s.psn);
		rk_gen_stream_free(s.full);
		rk_gen_stream_free(s.incr);
	}
	printf("ns per frame; frame_B without FCS. ratio: full / incremental ICRC time (PSN "
	       "written, ICRC kept); ratio_nx: the same through rk_gen_stream_next (frame copied "
	       "out)\n");
	return 0;
}
