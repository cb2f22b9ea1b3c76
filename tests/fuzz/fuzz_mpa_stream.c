/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the MPA deframer on arbitrary byte streams, fed in
 * pieces whose sizes come from the input, with gaps and sequence numbers
 * near the 2^32 wrap. Every event's pointers must lie in the stream's own
 * buffer and every FPDU must respect ULPDU_Length.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "rk_mpa.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_event(const struct rk_mpa_event *ev, void *ctx)
{
	size_t *n = ctx;
	volatile uint8_t sink = 0;

	(*n)++;
	if (ev->findings.count > RK_FINDINGS_MAX)
		__builtin_trap();
	if (ev->kind == RK_MPA_EV_FPDU) {
		/* Touch every byte handed out: ASan flags anything out of bounds. */
		for (uint32_t i = 0; i < ev->fpdu.ulpdu_len; i++)
			sink ^= ev->fpdu.ulpdu[i];
		for (uint32_t i = 0; i < ev->fpdu.pad_len; i++)
			sink ^= ev->fpdu.pad[i];
		for (uint16_t i = 0; i < ev->fpdu.nmarkers; i++)
			sink ^= (uint8_t)ev->fpdu.markers[i].fpduptr;
	}
	(void)sink;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rk_mpa_stream *s;
	struct rk_mpa_params p;
	size_t events = 0, off;
	uint32_t seq;

	if (size < 4)
		return 0;
	s = malloc(sizeof(*s));
	if (s == NULL)
		return 0;
	/* Byte 0: start mode; bytes 1-3: sequence number offset below 2^32. */
	seq = 0xffffffffu - ((uint32_t)data[1] << 8 | data[2]);
	if (data[0] & 1) {
		rk_mpa_stream_init(s);
	} else {
		p.rev = 2;
		p.markers = data[0] & 2;
		p.crc = data[0] & 4;
		rk_mpa_stream_init_fpdu(s, &p, seq, seq - (data[3] & 0x1fc));
	}
	off = 4;
	while (off < size) {
		size_t chunk = 1 + (data[off - 1] % 97u);

		if (chunk > size - off)
			chunk = size - off;
		if ((data[off - 1] & 0xf0) == 0xf0) {
			/* A hole in the capture of up to 255 bytes. */
			seq += data[off - 1] & 0x0f ? (uint32_t)(data[off] + 1) : 0;
			rk_mpa_stream_gap(s, seq, check_event, &events);
		}
		if (rk_mpa_stream_feed(s, seq, data + off, chunk, check_event, &events) < 0)
			__builtin_trap();
		seq += (uint32_t)chunk;
		off += chunk;
	}
	rk_mpa_stream_finish(s, check_event, &events);
	free(s);
	return 0;
}
