/* SPDX-License-Identifier: BSD-3-Clause */
#include "rk_ddp.h"

#define TAGGED_HDR(X, T) RK_DDP_CTRL_FIELDS(X, T) RK_DDP_TAGGED_FIELDS(X, T)
#define UNTAGGED_HDR(X, T) RK_DDP_CTRL_FIELDS(X, T) RK_DDP_UNTAGGED_FIELDS(X, T)

RK_HEADER_DESC(rk_ddp_tagged_desc, "DDP tagged", RK_DDP_TAGGED_LEN, TAGGED_HDR, "RFC 5041 4.2");
RK_HEADER_DESC(rk_ddp_untagged_desc, "DDP untagged", RK_DDP_UNTAGGED_LEN, UNTAGGED_HDR,
	       "RFC 5041 4.3");

/* rk_ddp_tagged_unpack/_pack, rk_ddp_untagged_unpack/_pack. */
RK_FIELD_PACK_FUNCS(ddp_tagged, struct rk_ddp_tagged_fields, TAGGED_HDR,
		    RK_DDP_TAGGED_LEN)
RK_FIELD_PACK_FUNCS(ddp_untagged, struct rk_ddp_untagged_fields, UNTAGGED_HDR,
		    RK_DDP_UNTAGGED_LEN)
