/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Field tables and helpers of the BTH and the extended transport headers.
 */
#include "rk_bth.h"
#include "rk_xeth.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define FLD(nm, k, off, nb, m, ref) \
	{ .name = nm, .key = k, .byte_off = off, .nbytes = nb, .mask = m, .spec_ref = ref }

static const struct rk_field bth_fields[] = {
	FLD("OpCode", "opcode", 0, 1, 0xff, "IBTA Vol1 9.2"),
	FLD("SE", "se", 1, 1, 0x80, "IBTA Vol1 9.2"),
	FLD("M", "mig_req", 1, 1, 0x40, "IBTA Vol1 9.2"),
	FLD("PadCnt", "pad_cnt", 1, 1, 0x30, "IBTA Vol1 9.2"),
	FLD("TVer", "tver", 1, 1, 0x0f, "IBTA Vol1 9.2"),
	FLD("P_Key", "p_key", 2, 2, 0xffff, "IBTA Vol1 9.2"),
	FLD("FECN", "fecn", 4, 1, 0x80, "IBTA Vol1 A17.3.4"),
	FLD("BECN", "becn", 4, 1, 0x40, "IBTA Vol1 A17.3.4"),
	FLD("Resv6a", "resv6a", 4, 1, 0x3f, "IBTA Vol1 9.2"),
	FLD("DestQP", "dest_qp", 5, 3, 0xffffff, "IBTA Vol1 9.2"),
	FLD("AckReq", "ack_req", 8, 1, 0x80, "IBTA Vol1 9.2"),
	FLD("Resv7", "resv7", 8, 1, 0x7f, "IBTA Vol1 9.2"),
	FLD("PSN", "psn", 9, 3, 0xffffff, "IBTA Vol1 9.2"),
};
const struct rk_header_desc rk_bth_desc = {
	"BTH", RK_BTH_LEN, bth_fields, N(bth_fields), "IBTA Vol1 9.2"
};

static const struct rk_field rdeth_fields[] = {
	FLD("Resv8", "resv8", 0, 1, 0xff, "IBTA Vol1 9.3.1"),
	FLD("EECnxt", "ee_cnxt", 1, 3, 0xffffff, "IBTA Vol1 9.3.1"),
};
const struct rk_header_desc rk_rdeth_desc = {
	"RDETH", RK_RDETH_LEN, rdeth_fields, N(rdeth_fields), "IBTA Vol1 9.3.1"
};

static const struct rk_field deth_fields[] = {
	FLD("Q_Key", "q_key", 0, 4, 0xffffffff, "IBTA Vol1 9.3.2"),
	FLD("Resv8", "resv8", 4, 1, 0xff, "IBTA Vol1 9.3.2"),
	FLD("SrcQP", "src_qp", 5, 3, 0xffffff, "IBTA Vol1 9.3.2"),
};
const struct rk_header_desc rk_deth_desc = {
	"DETH", RK_DETH_LEN, deth_fields, N(deth_fields), "IBTA Vol1 9.3.2"
};

static const struct rk_field xrceth_fields[] = {
	FLD("Resv8", "resv8", 0, 1, 0xff, "IBTA Vol1 9.3 XRCETH"),
	FLD("XRCSRQ", "xrc_srq", 1, 3, 0xffffff, "IBTA Vol1 9.3 XRCETH"),
};
const struct rk_header_desc rk_xrceth_desc = {
	"XRCETH", RK_XRCETH_LEN, xrceth_fields, N(xrceth_fields), "IBTA Vol1 9.3 XRCETH"
};

static const struct rk_field feth_fields[] = {
	FLD("FETH", "feth", 0, 4, 0xffffffff, "IBTA Vol1 1.5 FLUSH"),
};
const struct rk_header_desc rk_feth_desc = {
	"FETH", RK_FETH_LEN, feth_fields, N(feth_fields), "IBTA Vol1 1.5 FLUSH"
};

static const struct rk_field reth_fields[] = {
	FLD("VA", "va", 0, 8, ~0ull, "IBTA Vol1 9.3.3"),
	FLD("R_Key", "r_key", 8, 4, 0xffffffff, "IBTA Vol1 9.3.3"),
	FLD("DMALen", "dma_len", 12, 4, 0xffffffff, "IBTA Vol1 9.3.3"),
};
const struct rk_header_desc rk_reth_desc = {
	"RETH", RK_RETH_LEN, reth_fields, N(reth_fields), "IBTA Vol1 9.3.3"
};

static const struct rk_field atmeth_fields[] = {
	FLD("VA", "va", 0, 8, ~0ull, "IBTA Vol1 9.3.4"),
	FLD("R_Key", "r_key", 8, 4, 0xffffffff, "IBTA Vol1 9.3.4"),
	FLD("SwapAddData", "swap_add", 12, 8, ~0ull, "IBTA Vol1 9.3.4"),
	FLD("CompareData", "compare", 20, 8, ~0ull, "IBTA Vol1 9.3.4"),
};
const struct rk_header_desc rk_atmeth_desc = {
	"AtomicETH", RK_ATMETH_LEN, atmeth_fields, N(atmeth_fields), "IBTA Vol1 9.3.4"
};

static const struct rk_field aeth_fields[] = {
	FLD("Syndrome", "syndrome", 0, 1, 0xff, "IBTA Vol1 9.3.5"),
	FLD("MSN", "msn", 1, 3, 0xffffff, "IBTA Vol1 9.3.5"),
};
const struct rk_header_desc rk_aeth_desc = {
	"AETH", RK_AETH_LEN, aeth_fields, N(aeth_fields), "IBTA Vol1 9.3.5"
};

static const struct rk_field atmack_fields[] = {
	FLD("OrigRemDt", "orig_rem_dt", 0, 8, ~0ull, "IBTA Vol1 9.3.6"),
};
const struct rk_header_desc rk_atmack_desc = {
	"AtomicAckETH", RK_ATMACK_LEN, atmack_fields, N(atmack_fields), "IBTA Vol1 9.3.6"
};

static const struct rk_field immdt_fields[] = {
	FLD("ImmDt", "imm", 0, 4, 0xffffffff, "IBTA Vol1 9.3.7"),
};
const struct rk_header_desc rk_immdt_desc = {
	"ImmDt", RK_IMMDT_LEN, immdt_fields, N(immdt_fields), "IBTA Vol1 9.3.7"
};

static const struct rk_field ieth_fields[] = {
	FLD("R_Key", "r_key", 0, 4, 0xffffffff, "IBTA Vol1 9.3.8"),
};
const struct rk_header_desc rk_ieth_desc = {
	"IETH", RK_IETH_LEN, ieth_fields, N(ieth_fields), "IBTA Vol1 9.3.8"
};

void
rk_bth_unpack(const uint8_t *b, struct rk_bth_fields *f)
{
	f->opcode = rk_bth_opcode(b);
	f->se = rk_bth_se(b);
	f->mig_req = rk_bth_mig_req(b);
	f->pad_cnt = rk_bth_pad_cnt(b);
	f->tver = rk_bth_tver(b);
	f->p_key = rk_bth_p_key(b);
	f->fecn = rk_bth_fecn(b);
	f->becn = rk_bth_becn(b);
	f->resv6a = rk_bth_resv6a(b);
	f->dest_qp = rk_bth_dest_qp(b);
	f->ack_req = rk_bth_ack_req(b);
	f->resv7 = rk_bth_resv7(b);
	f->psn = rk_bth_psn(b);
}

void
rk_bth_pack(uint8_t *b, const struct rk_bth_fields *f)
{
	b[0] = f->opcode;
	b[1] = (uint8_t)((f->se ? RK_BTH_SE : 0) | (f->mig_req ? RK_BTH_MIG_REQ : 0) |
			 ((f->pad_cnt << RK_BTH_PAD_SHIFT) & RK_BTH_PAD_MASK) |
			 (f->tver & RK_BTH_TVER_MASK));
	rk_put_be16(b + 2, f->p_key);
	b[4] = (uint8_t)((f->fecn ? RK_BTH_FECN : 0) | (f->becn ? RK_BTH_BECN : 0) |
			 (f->resv6a & RK_BTH_RESV6A_MASK));
	rk_put_be24(b + 5, f->dest_qp);
	b[8] = (uint8_t)((f->ack_req ? RK_BTH_ACK_REQ : 0) | (f->resv7 & RK_BTH_RESV7_MASK));
	rk_put_be24(b + 9, f->psn);
}

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
