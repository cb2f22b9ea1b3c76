/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Field tables and helpers of the BTH and the extended transport headers.
 */
#include "rk_bth.h"
#include "rk_xeth.h"

enum rk_aeth_kind
rk_aeth_kind(uint8_t syndrome)
{
	if (syndrome & 0x80)
		return RK_AETH_RESERVED;
	switch (syndrome & RK_AETH_TYPE_MASK) {
	case RK_AETH_TYPE_ACK:
		return RK_AETH_ACK;
	case RK_AETH_TYPE_RNR_NAK:
		return RK_AETH_RNR_NAK;
	case RK_AETH_TYPE_NAK:
		return RK_AETH_NAK;
	default:
		return RK_AETH_RESERVED;
	}
}

int32_t
rk_aeth_credits(uint8_t code)
{
	code &= RK_AETH_VALUE_MASK;
	if (code == RK_AETH_CREDIT_INVALID)
		return -1;
	if (code <= 4)
		return code;
	/* From code 5 on, pairs (1x, 1.5x) of each power of two starting at 4. */
	uint32_t base = 1u << ((code - 5) / 2 + 2);

	return (int32_t)((code - 5) % 2 ? base * 2 : base + base / 2);
}

uint8_t
rk_aeth_credit_code(uint32_t credits)
{
	uint32_t k;

	if (credits <= 4)
		return (uint8_t)credits;
	if (credits >= 32768)
		return 30;
	/* 2^k is code 2k, 1.5 * 2^k is code 2k + 1 (k >= 2): no table walk. */
	k = 31u - (uint32_t)__builtin_clz(credits);
	return (uint8_t)(2 * k + (credits >= 3u << (k - 1) ? 1 : 0));
}

uint64_t
rk_rnr_timer_ns(uint8_t code)
{
	/* Minimum RNR NAK wait per 5-bit code, in units of 10 us. */
	static const uint32_t tens_of_us[32] = {
		65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
		256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192,
		12288, 16384, 24576, 32768, 49152,
	};

	return (uint64_t)tens_of_us[code & 0x1f] * 10000u;
}

uint64_t
rk_local_ack_timeout_ns(uint8_t timeout)
{
	timeout &= 0x1f;
	if (timeout == 0)
		return 0;
	return 4096ull << timeout;
}

const char *
rk_aeth_nak_name(uint8_t code)
{
	switch (code & RK_AETH_VALUE_MASK) {
	case RK_AETH_NAK_PSN_SEQ_ERR:
		return "PSN sequence error";
	case RK_AETH_NAK_INVALID_REQUEST:
		return "invalid request";
	case RK_AETH_NAK_REMOTE_ACCESS_ERR:
		return "remote access error";
	case RK_AETH_NAK_REMOTE_OP_ERR:
		return "remote operational error";
	case RK_AETH_NAK_INVALID_RD_REQUEST:
		return "invalid RD request";
	default:
		return "reserved";
	}
}

/* Field tables (rk_field.h), generated from the lists of rk_bth.h and rk_xeth.h. */
RK_HEADER_DESC(rk_bth_desc, "BTH", RK_BTH_LEN, RK_BTH_FIELDS, "IBTA Vol1 9.2");
RK_HEADER_DESC(rk_rdeth_desc, "RDETH", RK_RDETH_LEN, RK_RDETH_FIELDS, "IBTA Vol1 9.3.1");
RK_HEADER_DESC(rk_deth_desc, "DETH", RK_DETH_LEN, RK_DETH_FIELDS, "IBTA Vol1 9.3.2");
RK_HEADER_DESC(rk_xrceth_desc, "XRCETH", RK_XRCETH_LEN, RK_XRCETH_FIELDS, "IBTA Vol1 9.3 XRCETH");
RK_HEADER_DESC(rk_feth_desc, "FETH", RK_FETH_LEN, RK_FETH_FIELDS, "IBTA Vol1 1.5 FLUSH");
RK_HEADER_DESC(rk_reth_desc, "RETH", RK_RETH_LEN, RK_RETH_FIELDS, "IBTA Vol1 9.3.3");
RK_HEADER_DESC(rk_atmeth_desc, "AtomicETH", RK_ATMETH_LEN, RK_ATMETH_FIELDS, "IBTA Vol1 9.3.4");
RK_HEADER_DESC(rk_aeth_desc, "AETH", RK_AETH_LEN, RK_AETH_FIELDS, "IBTA Vol1 9.3.5");
RK_HEADER_DESC(rk_atmack_desc, "AtomicAckETH", RK_ATMACK_LEN, RK_ATMACK_FIELDS, "IBTA Vol1 9.3.6");
RK_HEADER_DESC(rk_immdt_desc, "ImmDt", RK_IMMDT_LEN, RK_IMMDT_FIELDS, "IBTA Vol1 9.3.7");
RK_HEADER_DESC(rk_ieth_desc, "IETH", RK_IETH_LEN, RK_IETH_FIELDS, "IBTA Vol1 9.3.8");

/* rk_bth_unpack(), rk_bth_pack(): the fields cover all 96 bits. */
RK_FIELD_PACK_FUNCS(bth, struct rk_bth_fields, RK_BTH_FIELDS, RK_BTH_LEN)
