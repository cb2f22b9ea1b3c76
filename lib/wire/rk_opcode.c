/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IBA opcode table, IBTA Vol1 9.2.1; CNP from Annex A17.9.3; FLUSH and
 * ATOMIC WRITE from IBTA Vol1 1.5 (RC only, as rxe implements them).
 * Header offsets are computed at compile time from the header set, in wire
 * order: RDETH, DETH, XRCETH, FETH, RETH, AtomicETH, AETH, AtomicAckETH,
 * ImmDt, IETH, CNP reserved bytes.
 */
#include "rk_opcode.h"

#include "rk_bth.h"
#include "rk_xeth.h"

#define H(h) (1u << RK_HDR_##h)
#define HAS(hs, h) (((hs) >> RK_HDR_##h) & 1u)
#define L(hs, h, n) (HAS(hs, h) ? (n) : 0)

#define O_RDETH(hs) RK_BTH_LEN
#define O_DETH(hs) (O_RDETH(hs) + L(hs, RDETH, RK_RDETH_LEN))
#define O_XRCETH(hs) (O_DETH(hs) + L(hs, DETH, RK_DETH_LEN))
#define O_FETH(hs) (O_XRCETH(hs) + L(hs, XRCETH, RK_XRCETH_LEN))
#define O_RETH(hs) (O_FETH(hs) + L(hs, FETH, RK_FETH_LEN))
#define O_ATMETH(hs) (O_RETH(hs) + L(hs, RETH, RK_RETH_LEN))
#define O_AETH(hs) (O_ATMETH(hs) + L(hs, ATMETH, RK_ATMETH_LEN))
#define O_ATMACK(hs) (O_AETH(hs) + L(hs, AETH, RK_AETH_LEN))
#define O_IMMDT(hs) (O_ATMACK(hs) + L(hs, ATMACK, RK_ATMACK_LEN))
#define O_IETH(hs) (O_IMMDT(hs) + L(hs, IMMDT, RK_IMMDT_LEN))
#define O_CNP(hs) (O_IETH(hs) + L(hs, IETH, RK_IETH_LEN))
#define O_END(hs) (O_CNP(hs) + L(hs, CNP, RK_CNP_RSVD_LEN))

#define OFF(hs, h) [RK_HDR_##h] = HAS(hs, h) ? O_##h(hs) : 0
#define OFFS(hs) { OFF(hs, RDETH), OFF(hs, DETH), OFF(hs, XRCETH), OFF(hs, FETH), \
		   OFF(hs, RETH), OFF(hs, ATMETH), OFF(hs, AETH), OFF(hs, ATMACK), \
		   OFF(hs, IMMDT), OFF(hs, IETH), OFF(hs, CNP) }

#define ROW(code, nm, fl, hs) \
	[code] = { .name = nm, .flags = RK_OPF_VALID | (fl), .hdrs = (hs), \
		   .hdr_len = O_END(hs), .transport = (code) >> 5, .off = OFFS(hs) }

/* Flags of the operation groups. */
#define F_SEND (RK_OPF_REQ | RK_OPF_SEND | RK_OPF_PAYLOAD | RK_OPF_RWQE)
#define F_WRITE (RK_OPF_REQ | RK_OPF_WRITE | RK_OPF_PAYLOAD)
#define F_RRESP (RK_OPF_RESP | RK_OPF_READ_RESP | RK_OPF_PAYLOAD)

/*
 * The operations common to RC, UC, RD and XRC (bits 4:0), with the
 * transport's own headers added by each group macro: RD puts RDETH in every
 * packet and DETH in requests, XRC puts XRCETH in requests.
 */
#define SEND_OPS(b, P, RQ) \
	ROW(b | 0x00, P " SEND First", F_SEND | RK_OPF_FIRST, RQ), \
	ROW(b | 0x01, P " SEND Middle", F_SEND | RK_OPF_MIDDLE, RQ), \
	ROW(b | 0x02, P " SEND Last", F_SEND | RK_OPF_LAST, RQ), \
	ROW(b | 0x03, P " SEND Last with Immediate", \
	    F_SEND | RK_OPF_LAST | RK_OPF_IMM, RQ | H(IMMDT)), \
	ROW(b | 0x04, P " SEND Only", F_SEND | RK_OPF_ONLY, RQ), \
	ROW(b | 0x05, P " SEND Only with Immediate", \
	    F_SEND | RK_OPF_ONLY | RK_OPF_IMM, RQ | H(IMMDT))

#define WRITE_OPS(b, P, RQ) \
	ROW(b | 0x06, P " RDMA WRITE First", F_WRITE | RK_OPF_FIRST, RQ | H(RETH)), \
	ROW(b | 0x07, P " RDMA WRITE Middle", F_WRITE | RK_OPF_MIDDLE, RQ), \
	ROW(b | 0x08, P " RDMA WRITE Last", F_WRITE | RK_OPF_LAST, RQ), \
	ROW(b | 0x09, P " RDMA WRITE Last with Immediate", \
	    F_WRITE | RK_OPF_LAST | RK_OPF_IMM | RK_OPF_RWQE, RQ | H(IMMDT)), \
	ROW(b | 0x0a, P " RDMA WRITE Only", F_WRITE | RK_OPF_ONLY, RQ | H(RETH)), \
	ROW(b | 0x0b, P " RDMA WRITE Only with Immediate", \
	    F_WRITE | RK_OPF_ONLY | RK_OPF_IMM | RK_OPF_RWQE, RQ | H(RETH) | H(IMMDT))

#define READ_ATOMIC_OPS(b, P, RQ, RS) \
	ROW(b | 0x0c, P " RDMA READ Request", RK_OPF_REQ | RK_OPF_READ_REQ, RQ | H(RETH)), \
	ROW(b | 0x0d, P " RDMA READ Response First", F_RRESP | RK_OPF_FIRST, RS | H(AETH)), \
	ROW(b | 0x0e, P " RDMA READ Response Middle", F_RRESP | RK_OPF_MIDDLE, RS), \
	ROW(b | 0x0f, P " RDMA READ Response Last", F_RRESP | RK_OPF_LAST, RS | H(AETH)), \
	ROW(b | 0x10, P " RDMA READ Response Only", F_RRESP | RK_OPF_ONLY, RS | H(AETH)), \
	ROW(b | 0x11, P " Acknowledge", RK_OPF_RESP | RK_OPF_ACK, RS | H(AETH)), \
	ROW(b | 0x12, P " ATOMIC Acknowledge", RK_OPF_RESP | RK_OPF_ATOMIC_ACK, \
	    RS | H(AETH) | H(ATMACK)), \
	ROW(b | 0x13, P " CmpSwap", RK_OPF_REQ | RK_OPF_ATOMIC | RK_OPF_ONLY, RQ | H(ATMETH)), \
	ROW(b | 0x14, P " FetchAdd", RK_OPF_REQ | RK_OPF_ATOMIC | RK_OPF_ONLY, RQ | H(ATMETH))

#define INV_OPS(b, P, RQ) \
	ROW(b | 0x16, P " SEND Last with Invalidate", \
	    F_SEND | RK_OPF_LAST | RK_OPF_INV, RQ | H(IETH)), \
	ROW(b | 0x17, P " SEND Only with Invalidate", \
	    F_SEND | RK_OPF_ONLY | RK_OPF_INV, RQ | H(IETH))

static const struct rk_opcode_info opcode_table[256] = {
	/* RC 0x00-0x1F */
	SEND_OPS(0x00, "RC", 0),
	WRITE_OPS(0x00, "RC", 0),
	READ_ATOMIC_OPS(0x00, "RC", 0, 0),
	INV_OPS(0x00, "RC", 0),
	ROW(0x1c, "RC FLUSH", RK_OPF_REQ | RK_OPF_FLUSH | RK_OPF_ONLY, H(FETH) | H(RETH)),
	ROW(0x1d, "RC ATOMIC WRITE", RK_OPF_REQ | RK_OPF_ATOMIC_WRITE | RK_OPF_ONLY |
	    RK_OPF_PAYLOAD, H(RETH)),
	/* UC 0x20-0x3F: SEND and RDMA WRITE only */
	SEND_OPS(0x20, "UC", 0),
	WRITE_OPS(0x20, "UC", 0),
	/* RD 0x40-0x5F (recognised; RoCE does not carry RD) */
	SEND_OPS(0x40, "RD", H(RDETH) | H(DETH)),
	WRITE_OPS(0x40, "RD", H(RDETH) | H(DETH)),
	READ_ATOMIC_OPS(0x40, "RD", H(RDETH) | H(DETH), H(RDETH)),
	ROW(0x55, "RD RESYNC", RK_OPF_REQ | RK_OPF_RESYNC | RK_OPF_ONLY, H(RDETH) | H(DETH)),
	/* UD 0x60-0x7F */
	ROW(0x64, "UD SEND Only", F_SEND | RK_OPF_ONLY, H(DETH)),
	ROW(0x65, "UD SEND Only with Immediate", F_SEND | RK_OPF_ONLY | RK_OPF_IMM,
	    H(DETH) | H(IMMDT)),
	/* CNP, Annex A17.9.3 */
	ROW(0x81, "CNP", RK_OPF_CNP, H(CNP)),
	/* XRC 0xA0-0xBF: XRCETH in requests */
	SEND_OPS(0xa0, "XRC", H(XRCETH)),
	WRITE_OPS(0xa0, "XRC", H(XRCETH)),
	READ_ATOMIC_OPS(0xa0, "XRC", H(XRCETH), 0),
	INV_OPS(0xa0, "XRC", H(XRCETH)),
};

const struct rk_opcode_info *
rk_opcode_info(uint8_t opcode)
{
	return &opcode_table[opcode];
}

enum rk_transport
rk_opcode_transport(uint8_t opcode)
{
	unsigned int t = opcode >> 5;

	return t >= RK_TR_MFR ? RK_TR_MFR : (enum rk_transport)t;
}

const char *
rk_transport_name(enum rk_transport tr)
{
	static const char *const names[] = {
		[RK_TR_RC] = "RC", [RK_TR_UC] = "UC", [RK_TR_RD] = "RD",
		[RK_TR_UD] = "UD", [RK_TR_CNP] = "CNP", [RK_TR_XRC] = "XRC",
		[RK_TR_MFR] = "MFR",
	};

	if ((unsigned int)tr >= sizeof(names) / sizeof(names[0]))
		return "?";
	return names[tr];
}

const char *
rk_hdr_name(enum rk_hdr h)
{
	static const char *const names[RK_HDR_COUNT] = {
		[RK_HDR_RDETH] = "RDETH", [RK_HDR_DETH] = "DETH",
		[RK_HDR_XRCETH] = "XRCETH", [RK_HDR_FETH] = "FETH",
		[RK_HDR_RETH] = "RETH", [RK_HDR_ATMETH] = "AtomicETH",
		[RK_HDR_AETH] = "AETH", [RK_HDR_ATMACK] = "AtomicAckETH",
		[RK_HDR_IMMDT] = "ImmDt", [RK_HDR_IETH] = "IETH",
		[RK_HDR_CNP] = "CNP",
	};

	if ((unsigned int)h >= RK_HDR_COUNT)
		return "?";
	return names[h];
}
