/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * "set verbose 1": one line per frame received, in rk-inspect's packet
 * format (its writers, rk_inspect_core), prefixed with the port. Frames are
 * numbered per run; the time is since the first frame decoded.
 */
#include <string.h>

#include "output.h"
#include "rk_pkt.h"
#include "testpmd.h"

#include <rte_cycles.h>

static uint64_t frame_no, t0_cycles;

void
rk_tp_decode(FILE *out, uint16_t port, const uint8_t *frame, uint32_t len)
{
	struct rk_pkt pkt;
	struct rk_insp_frame fr;
	uint64_t now = rte_get_timer_cycles();

	if (frame_no == 0)
		t0_cycles = now;
	fr.no = ++frame_no;
	fr.ts_ns = (uint64_t)((double)(now - t0_cycles) * 1e9 / (double)rte_get_timer_hz());
	memset(&pkt, 0, sizeof(pkt));
	fprintf(out, "port %u: ", port);
	if (rk_pkt_parse(&pkt, frame, len, len, RK_LINK_ETHERNET, NULL) != 0) {
		fprintf(out, "%u bytes, not parsed\n", len);
		return;
	}
	if (rk_pkt_has_bth(&pkt))
		rk_insp_print_roce_line(out, &fr, &pkt, NULL, &pkt.findings);
	else if (pkt.kind == RK_PKT_PAUSE || pkt.kind == RK_PKT_PFC)
		rk_insp_print_mac_control_line(out, &fr, &pkt);
	else
		rk_insp_print_frame_line(out, &fr, &pkt);
}
