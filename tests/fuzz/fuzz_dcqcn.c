/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DCQCN parameters from text (rk_dcqcn_param_set, as rk-perf's
 * --dcqcn-param reads them), then a hostile event script for the RP and
 * NP: any parameter set and any times must neither crash nor hang.
 * Input: "name=value\n" lines, a NUL, then 9-byte events
 * (kind, 8-byte little-endian time step in ns).
 */
#include <stdint.h>
#include <string.h>

#include "rk_cc_dcqcn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rk_dcqcn_params p;
	struct rk_dcqcn_rp rp;
	struct rk_dcqcn_np np = { 0 };
	char line[128];
	size_t i = 0;
	uint64_t now = 0;

	rk_dcqcn_profile(size > 0 && (data[0] & 1) ? "paper" : "nvidia-default", &p);
	while (i < size && data[i] != 0) {
		size_t n = 0;
		char *eq;

		while (i < size && data[i] != 0 && data[i] != '\n' && n + 1 < sizeof(line))
			line[n++] = (char)data[i++];
		line[n] = '\0';
		if (i < size && data[i] == '\n')
			i++;
		eq = strchr(line, '=');
		if (eq != NULL) {
			*eq = '\0';
			rk_dcqcn_param_set(&p, line, eq + 1);
		}
	}
	rk_dcqcn_rp_init(&rp, &p, 100000);
	for (i++; i + 9 <= size; i += 9) {
		uint64_t step = 0;

		memcpy(&step, data + i + 1, 8);
		now = step > UINT64_MAX - now ? UINT64_MAX : now + step;
		switch (data[i] & 3) {
		case 0: rk_dcqcn_rp_cnp(&rp, now); break;
		case 1: rk_dcqcn_rp_timer(&rp, now); break;
		case 2: rk_dcqcn_rp_sent(&rp, (uint32_t)(step & 0xffffff), now); break;
		default: rk_dcqcn_np_rx(&np, &p, data[i] >> 2, now); break;
		}
	}
	return 0;
}
