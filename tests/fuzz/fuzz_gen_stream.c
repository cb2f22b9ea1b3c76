/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: rk-gen's stream files. The input is the file; every
 * stream it parses into is compiled and its first frames written and
 * parsed back. Differential check: a stream with the incremental ICRC
 * writes the same frames as the same stream with the ICRC recomputed in
 * full (the IPv4 Header Checksum aside when the header's version or IHL
 * was overridden, where no single right answer exists).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk_gen_yaml.h"
#include "rk_pkt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether an override or variation rewrites IP byte 0 (version, IHL). */
static int
ip_shape_changed(const struct rk_gen_cfg *c)
{
	for (uint32_t i = 0; i < c->noverrides; i++)
		if ((c->overrides[i].ref.hdr == RK_GEN_H_IPV4 ||
		     c->overrides[i].ref.hdr == RK_GEN_H_IPV6) &&
		    c->overrides[i].ref.f->byte_off == 0)
			return 1;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t a[RK_GEN_FRAME_MAX], b[RK_GEN_FRAME_MAX];
	struct rk_gen_file *f;
	char err[256];

	if (size > 16384)
		return 0;
	if (rk_gen_yaml_parse((const char *)data, size, "fuzz.yaml", &f, err, sizeof(err)) != 0) {
		if (strchr(err, '\n') != NULL || strncmp(err, "fuzz.yaml:", 10) != 0)
			abort(); /* errors are one line naming the file */
		return 0;
	}
	for (uint32_t i = 0; i < f->nstreams; i++) {
		struct rk_gen_cfg full = f->streams[i];
		struct rk_gen_stream *s, *t;
		int na, nb;

		full.icrc = RK_GEN_ICRC_FULL;
		if (rk_gen_stream_compile(&f->streams[i], &s, NULL) != 0 ||
		    rk_gen_stream_compile(&full, &t, NULL) != 0)
			abort(); /* the parser compiled it once already */
		for (int k = 0; k < 64; k++) {
			struct rk_pkt pkt;

			na = rk_gen_stream_next(s, a, sizeof(a));
			nb = rk_gen_stream_next(t, b, sizeof(b));
			if (na != nb || na < 0)
				abort();
			if (na == 0)
				break;
			rk_pkt_parse(&pkt, a, (uint32_t)na, (uint32_t)na, RK_LINK_ETHERNET, NULL);
			if (f->streams[i].icrc == RK_GEN_ICRC_INCREMENTAL && !ip_shape_changed(&full) &&
			    memcmp(a, b, (size_t)na) != 0)
				abort();
		}
		rk_gen_stream_free(s);
		rk_gen_stream_free(t);
	}
	rk_gen_file_free(f);
	return 0;
}
