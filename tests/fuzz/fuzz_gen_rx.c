/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: rk-gen's receive side. The input is a run of records
 * (2 bytes: frame length, big-endian; 8 bytes: RX time; the frame), each
 * frame's slot read at an offset from the first byte and accounted.
 * Checks per stream: frames = unique + duplicates + stale, unique =
 * latency values + negative ones, the quantiles in order within
 * [min, max], loss never above the count expected.
 */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "rk_byteorder.h"
#include "rk_gen_rx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rk_gen_rx rx;
	uint32_t seq_off;
	size_t off = 1;

	if (size < 1)
		return 0;
	seq_off = data[0];
	rk_gen_rx_init(&rx);
	while (off + 10 <= size) {
		uint32_t len = rk_get_be16(data + off);
		uint64_t rx_ns = rk_get_be64(data + off + 2);
		struct rk_gen_slot s;

		off += 10;
		if (len > size - off)
			len = (uint32_t)(size - off);
		if (rk_gen_slot_read(data + off, len, seq_off, &s) == 0)
			(void)rk_gen_rx_add(&rx, &s, rx_ns);
		/* and the slot as raw bytes: the accounting on any numbers */
		if (len >= 16) {
			s.stream_id = rk_get_be32(data + off) & 7;
			s.seq = rk_get_be32(data + off + 4);
			s.tx_ns = rk_get_be64(data + off + 8);
			(void)rk_gen_rx_add(&rx, &s, rx_ns);
		}
		off += len;
	}
	for (uint32_t i = 0; i < rx.n; i++) {
		const struct rk_gen_rx_stream *st = rx.st[i];
		const struct rk_hist *l = &st->lat;
		uint64_t prev = l->min_ns;
		static const uint32_t q[] = { 1, 50000, 99000, 99900, 100000 };

		assert(st->frames == st->unique + st->duplicates + st->stale);
		assert(st->unique == l->count + st->lat_negative);
		assert(st->reordered <= st->unique);
		assert(rk_gen_rx_lost(st, 0) <= st->next_exp);
		for (size_t k = 0; k < sizeof(q) / sizeof(q[0]) && l->count; k++) {
			uint64_t v = rk_hist_quantile(l, q[k]);

			assert(v >= prev && v <= l->max_ns);
			prev = v;
		}
	}
	rk_gen_rx_fini(&rx);
	return 0;
}
