/* SPDX-License-Identifier: BSD-3-Clause */
#include "rk_ddp.h"

#define DDP_REF "RFC 5041 4.1"
#define DDP_T_REF "RFC 5041 4.2"
#define DDP_U_REF "RFC 5041 4.3"

static const struct rk_field ddp_tagged_fields[] = {
	{ "T", "t", 0, 1, 0, RK_DDP_T, DDP_REF },
	{ "L", "l", 0, 1, 0, RK_DDP_L, DDP_REF },
	{ "Rsvd", "rsvd", 0, 1, 0, RK_DDP_RSVD_MASK, DDP_REF },
	{ "DV", "dv", 0, 1, 0, RK_DDP_DV_MASK, DDP_REF },
	{ "RsvdULP", "rsvd_ulp", 1, 1, 0, 0xff, DDP_T_REF },
	{ "STag", "stag", 2, 4, 0, 0xffffffffull, DDP_T_REF },
	{ "TO", "to", 6, 8, 0, ~0ull, DDP_T_REF },
};

const struct rk_header_desc rk_ddp_tagged_desc = {
	"DDP tagged", RK_DDP_TAGGED_LEN, ddp_tagged_fields,
	sizeof(ddp_tagged_fields) / sizeof(ddp_tagged_fields[0]), DDP_T_REF,
};

static const struct rk_field ddp_untagged_fields[] = {
	{ "T", "t", 0, 1, 0, RK_DDP_T, DDP_REF },
	{ "L", "l", 0, 1, 0, RK_DDP_L, DDP_REF },
	{ "Rsvd", "rsvd", 0, 1, 0, RK_DDP_RSVD_MASK, DDP_REF },
	{ "DV", "dv", 0, 1, 0, RK_DDP_DV_MASK, DDP_REF },
	{ "RsvdULP", "rsvd_ulp", 1, 5, 0, RK_DDP_RSVDULP40_MASK, DDP_U_REF },
	{ "QN", "qn", 6, 4, 0, 0xffffffffull, DDP_U_REF },
	{ "MSN", "msn", 10, 4, 0, 0xffffffffull, DDP_U_REF },
	{ "MO", "mo", 14, 4, 0, 0xffffffffull, DDP_U_REF },
};

const struct rk_header_desc rk_ddp_untagged_desc = {
	"DDP untagged", RK_DDP_UNTAGGED_LEN, ddp_untagged_fields,
	sizeof(ddp_untagged_fields) / sizeof(ddp_untagged_fields[0]), DDP_U_REF,
};

void
rk_ddp_tagged_unpack(const uint8_t *h, struct rk_ddp_tagged_fields *f)
{
	f->t = rk_ddp_t(h);
	f->l = rk_ddp_l(h);
	f->rsvd = rk_ddp_rsvd(h);
	f->dv = rk_ddp_dv(h);
	f->rsvd_ulp = rk_ddp_rsvdulp8(h);
	f->stag = rk_ddp_stag(h);
	f->to = rk_ddp_to(h);
}

static uint8_t
ctrl_byte(uint8_t t, uint8_t l, uint8_t rsvd, uint8_t dv)
{
	return (uint8_t)((t ? RK_DDP_T : 0) | (l ? RK_DDP_L : 0) |
			 ((rsvd << RK_DDP_RSVD_SHIFT) & RK_DDP_RSVD_MASK) |
			 (dv & RK_DDP_DV_MASK));
}

void
rk_ddp_tagged_pack(uint8_t *h, const struct rk_ddp_tagged_fields *f)
{
	h[0] = ctrl_byte(f->t, f->l, f->rsvd, f->dv);
	h[1] = f->rsvd_ulp;
	rk_ddp_set_stag(h, f->stag);
	rk_ddp_set_to(h, f->to);
}

void
rk_ddp_untagged_unpack(const uint8_t *h, struct rk_ddp_untagged_fields *f)
{
	f->t = rk_ddp_t(h);
	f->l = rk_ddp_l(h);
	f->rsvd = rk_ddp_rsvd(h);
	f->dv = rk_ddp_dv(h);
	f->rsvd_ulp = (uint64_t)rk_ddp_rsvdulp8(h) << 32 | rk_ddp_rsvdulp32(h);
	f->qn = rk_ddp_qn(h);
	f->msn = rk_ddp_msn(h);
	f->mo = rk_ddp_mo(h);
}

void
rk_ddp_untagged_pack(uint8_t *h, const struct rk_ddp_untagged_fields *f)
{
	h[0] = ctrl_byte(f->t, f->l, f->rsvd, f->dv);
	h[1] = (uint8_t)(f->rsvd_ulp >> 32);
	rk_ddp_set_rsvdulp32(h, (uint32_t)f->rsvd_ulp);
	rk_ddp_set_qn(h, f->qn);
	rk_ddp_set_msn(h, f->msn);
	rk_ddp_set_mo(h, f->mo);
}
