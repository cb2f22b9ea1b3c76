/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: rk_pkt_parse on arbitrary frames, under every link type,
 * with and without truncation and ICRC checking. The first input byte picks
 * the variant; the rest is the frame.
 */
#include <stddef.h>
#include <stdint.h>

#include "rk_pkt.h"
#include "rk_xeth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum rk_linktype links[] = {
		RK_LINK_ETHERNET, RK_LINK_RAW, RK_LINK_LINUX_SLL, RK_LINK_ERF,
		RK_LINK_LINUX_SLL2, RK_LINK_IPV4, RK_LINK_IPV6,
	};
	struct rk_parse_opts opts = { .check_icrc = true };
	struct rk_pkt pkt;
	uint32_t len, wire;
	uint8_t sel;

	if (size < 1 || size > 65536)
		return 0;
	sel = data[0];
	data++;
	len = (uint32_t)size - 1;
	/* Bit 3: claim more bytes on the wire than captured (snaplen cut). */
	wire = (sel & 8) ? len + 100 : len;
	opts.check_icrc = !(sel & 16);
	opts.pmtu = (sel & 32) ? 1024 : 0;
	if (rk_pkt_parse(&pkt, data, len, wire, links[(sel & 7) % 7], &opts) != 0)
		__builtin_trap();
	if (pkt.findings.count > RK_FINDINGS_MAX)
		__builtin_trap();
	/* Every header pointer the parser hands out lies inside the capture. */
	for (int h = 0; h < RK_HDR_COUNT; h++) {
		const uint8_t *x = rk_pkt_xeth(&pkt, (enum rk_hdr)h);

		if (x != NULL && (x < data || x + 4 > data + len))
			__builtin_trap();
	}
	if (rk_pkt_has_bth(&pkt) && pkt.bth_off + 12 > len)
		__builtin_trap();
	if (pkt.payload_len > 0 && !pkt.truncated &&
	    (uint64_t)pkt.payload_off + pkt.payload_len > len)
		__builtin_trap();
	/* The recorder's cut point: within the bytes, and where the parser
	 * puts the payload of a whole RoCEv2 frame over Ethernet. */
	uint32_t hl = rk_rocev2_hdrs_len(data, len);

	if (hl > len)
		__builtin_trap();
	if ((sel & 7) % 7 == 0 && pkt.kind == RK_PKT_ROCEV2 && !pkt.truncated && wire == len &&
	    pkt.op != NULL && (pkt.op->flags & RK_OPF_VALID) && pkt.findings.count == 0 &&
	    hl != pkt.payload_off)
		__builtin_trap();
	return 0;
}
