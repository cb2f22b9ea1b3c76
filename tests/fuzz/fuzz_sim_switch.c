/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Arbitrary frames into the simulated switch's parsers (PFC, priority,
 * ECN marking) and through a switch as a source's frame (the PFC frames
 * the switch sends back, and any it receives, are parsed), with the PFC
 * watchdog on or off.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk_sim_switch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t ce, *copy;
	uint16_t q[RK_SW_PRIOS];

	if (size == 0 || size > 9000)
		return 0;
	(void)rk_sw_pfc_parse(data, (uint32_t)size, &ce, q);
	(void)rk_sw_frame_prio(data, (uint32_t)size);
	copy = malloc(size);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	(void)rk_sw_set_ce(copy, (uint32_t)size);
	free(copy);

	struct rk_sw_net *n = rk_sw_net_create();
	struct rk_sw_cfg c = { .nports = 2, .lossless_mask = 0xff, .deterministic = true };

	if (!n)
		return 0;
	c.port.rate_bps = 10000000000ull;
	c.port.xoff_bytes = 4000;
	c.port.xon_bytes = 2000;
	c.port.headroom_bytes = 20000;
	c.port.pause_quanta = 100;
	c.port.kmin_bytes[data[0] & 7] = 1000;
	c.port.kmax_bytes[data[0] & 7] = 5000;
	c.port.pmax[data[0] & 7] = 0.5;
	/* the PFC watchdog on or off, short enough to act within the run */
	c.port.pfcwd_detect_ns = (uint64_t)(data[0] >> 3 & 3) * 5000;
	c.port.pfcwd_restore_ns = (uint64_t)(data[0] >> 5) * 3000;
	struct rk_sw *sw = rk_sw_add(n, &c);

	if (sw) {
		for (unsigned int m = 0; m < 256; m++)
			rk_sw_route(sw, (uint8_t)m, 1);
		/* padded to Ethernet's minimum as a NIC would: a 2-byte frame at
		 * 100 Gb/s would be 10^5 events a run, the fuzzer's time gone */
		uint8_t frame[9000] = { 0 };
		uint32_t flen = size < 60 ? 60 : (uint32_t)size;

		memcpy(frame, data, size);
		rk_sw_add_source(sw, 0, 100000000000ull, 100, frame, flen, 0, 20000);
		rk_sw_add_source(sw, 1, 1000000000ull, 100, frame, flen, 0, 20000);
		rk_sw_net_run(n, 100000);
	}
	rk_sw_net_destroy(n);
	return 0;
}
