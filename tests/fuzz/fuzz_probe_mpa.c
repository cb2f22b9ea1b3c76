/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A hostile DUT's stream into rk-conform's MPA peer (lib/probe's
 * rk_probe_mpa_feed): the first byte picks the Request (M, C) and how the
 * rest is cut, the rest is what the DUT sends (Reply, then FPDUs).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk_probe_mpa.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rk_probe_mpa_peer p;
	struct rk_mpa_rr req;
	uint8_t out[RK_MPA_RR_HDR_LEN + RK_MPA_PD_MAX];
	size_t off = 1, step;

	if (size < 1)
		return 0;
	memset(&req, 0, sizeof(req));
	req.rev = 2;
	req.enhanced = 1;
	req.has_ird_ord = true;
	req.m = data[0] & 1;
	req.c = (data[0] >> 1) & 1;
	if (rk_probe_mpa_init(&p, &req, 1000, 5000, out, sizeof(out)) < 0)
		return 0;
	step = (size_t)(data[0] >> 2) + 1;
	while (off < size) {
		size_t n = size - off < step ? size - off : step;

		if (rk_probe_mpa_feed(&p, data + off, n) != 0)
			break;
		off += n;
	}
	rk_probe_mpa_fini(&p);
	return 0;
}
