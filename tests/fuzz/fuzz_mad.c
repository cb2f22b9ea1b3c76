/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: MADs as a capture shows them. The input is a run of
 * MADs, each preceded by two bytes: its wire length (low 9 bits) with a
 * snap-length cut (high bits), and the direction it travels. Each is
 * decoded by rk_mad_parse() and handed to the CM connection table, whose
 * flow lookup runs at the end.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rk_insp_cmconn.h"
#include "rk_mad.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t a[16] = { [10] = 0xff, [11] = 0xff, 198, 18, 0, 1 };
	static const uint8_t b[16] = { [10] = 0xff, [11] = 0xff, 198, 18, 0, 2 };
	struct rk_insp_cmconns t;
	uint64_t frame = 0;

	if (size > 65536 || rk_insp_cmconn_init(&t) != 0)
		return 0;
	while (size >= 2) {
		uint32_t wire = ((uint32_t)(data[0] & 1) << 8 | data[1]) % (RK_MAD_BYTES + 8);
		uint32_t cut = (data[0] >> 1) & 0x3f;
		bool dir = data[0] & 0x80;
		uint32_t cap = wire > cut ? wire - cut : 0;
		struct rk_findings f;
		struct rk_mad m;

		data += 2;
		size -= 2;
		if (cap > size)
			cap = (uint32_t)size;
		if (wire < cap)
			wire = cap;
		memset(&f, 0, sizeof(f));
		if (rk_mad_parse(data, cap, wire, &m, &f, 0) == 0) {
			if (m.len != wire)
				__builtin_trap();
			(void)rk_insp_cmconn_mad(&t, dir ? b : a, dir ? a : b, false, &m, ++frame);
		}
		if (f.count > RK_FINDINGS_MAX)
			__builtin_trap();
		data += cap;
		size -= cap;
	}
	for (uint32_t qp = 0; qp < 4; qp++) {
		int side = -1;
		const struct rk_insp_cmconn *c = rk_insp_cmconn_of_flow(&t, a, b, qp, &side);

		if (c != NULL && side != 0 && side != 1)
			__builtin_trap();
	}
	rk_insp_cmconn_fini(&t);
	return 0;
}
