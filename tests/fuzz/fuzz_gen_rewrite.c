/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: replay rewrites over hostile frames. The input's first
 * byte picks which maps match the frame's own fields; the rest is the
 * frame, in a buffer of exactly its size (ASan sees any write past it).
 * Checked: a frame that parsed with a good ICRC before and changed still
 * parses with a good one, and a frame that did not change is untouched.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk_gen_rewrite.h"
#include "rk_pkt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rk_gen_rewrite rw = { .n = 0 };
	struct rk_pkt before, after;
	uint32_t len;
	uint8_t *f;
	int rc;

	if (size < 1 || size > 10000)
		return 0;
	len = (uint32_t)size - 1;
	f = malloc(len ? len : 1);
	if (f == NULL)
		return 0;
	memcpy(f, data + 1, len);
	rk_pkt_parse(&before, f, len, len, RK_LINK_ETHERNET, NULL);
	/* Maps for the fields where they would be in an untagged IPv4 or
	 * IPv6 RoCEv2 frame, as the selector's bits say. */
	for (unsigned int k = 0; k < 5; k++) {
		static const uint32_t at[] = { 0, 6, 26, 22, 42 };
		static const enum rk_gen_map_kind kind[] = {
			RK_GEN_MAP_MAC, RK_GEN_MAP_MAC, RK_GEN_MAP_IPV4, RK_GEN_MAP_IPV6,
			RK_GEN_MAP_QPN,
		};
		struct rk_gen_map m = { .kind = kind[k] };

		if (!(data[0] >> k & 1) || at[k] + 16 > len)
			continue;
		memcpy(m.old, f + at[k], 16);
		memcpy(m.new, f + len - 16, 16);
		m.new[0] ^= 1;
		rk_gen_rewrite_add(&rw, &m);
	}
	rc = rk_gen_rewrite_frame(&rw, f, len, NULL);
	if (rc == 0 && memcmp(f, data + 1, len) != 0)
		abort();
	if (rc == 1 && before.kind == RK_PKT_ROCEV2 && before.icrc_status == RK_ICRC_GOOD &&
	    !before.truncated) {
		rk_pkt_parse(&after, f, len, len, RK_LINK_ETHERNET, NULL);
		if (after.icrc_status != RK_ICRC_GOOD)
			abort();
	}
	free(f);
	return 0;
}
