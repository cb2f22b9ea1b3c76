/* SPDX-License-Identifier: BSD-3-Clause */
#include "rk_ddp.h"

#define TAGGED_HDR(X, T) RK_DDP_CTRL_FIELDS(X, T) RK_DDP_TAGGED_FIELDS(X, T)
#define UNTAGGED_HDR(X, T) RK_DDP_CTRL_FIELDS(X, T) RK_DDP_UNTAGGED_FIELDS(X, T)

RK_HEADER_DESC(rk_ddp_tagged_desc, "DDP tagged", RK_DDP_TAGGED_LEN, TAGGED_HDR, "RFC 5041 4.2");
RK_HEADER_DESC(rk_ddp_untagged_desc, "DDP untagged", RK_DDP_UNTAGGED_LEN, UNTAGGED_HDR,
	       "RFC 5041 4.3");

/* The RsvdULP member is named for both models; its accessors are not. */

void
rk_ddp_tagged_unpack(const uint8_t *h, struct rk_ddp_tagged_fields *f)
{
	RK_DDP_CTRL_FIELDS(RK_FIELD_UNPACK, RK_FIELD_NONE)
	f->rsvd_ulp = rk_ddp_rsvdulp8(h);
	f->stag = rk_ddp_stag(h);
	f->to = rk_ddp_to(h);
}

void
rk_ddp_tagged_pack(uint8_t *h, const struct rk_ddp_tagged_fields *f)
{
	RK_DDP_CTRL_FIELDS(RK_FIELD_PACK, RK_FIELD_NONE)
	rk_ddp_set_rsvdulp8(h, f->rsvd_ulp);
	rk_ddp_set_stag(h, f->stag);
	rk_ddp_set_to(h, f->to);
}

void
rk_ddp_untagged_unpack(const uint8_t *h, struct rk_ddp_untagged_fields *f)
{
	RK_DDP_CTRL_FIELDS(RK_FIELD_UNPACK, RK_FIELD_NONE)
	f->rsvd_ulp = rk_ddp_rsvdulp40(h);
	f->qn = rk_ddp_qn(h);
	f->msn = rk_ddp_msn(h);
	f->mo = rk_ddp_mo(h);
}

void
rk_ddp_untagged_pack(uint8_t *h, const struct rk_ddp_untagged_fields *f)
{
	RK_DDP_CTRL_FIELDS(RK_FIELD_PACK, RK_FIELD_NONE)
	rk_ddp_set_rsvdulp40(h, f->rsvd_ulp);
	rk_ddp_set_qn(h, f->qn);
	rk_ddp_set_msn(h, f->msn);
	rk_ddp_set_mo(h, f->mo);
}
