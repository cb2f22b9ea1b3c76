/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_ib_types.h
 * The verbs value types under their former name: they live in
 * lib/common/rk_rdma_types.h, below lib/ib and lib/iwarp alike.
 */
#ifndef RK_IB_TYPES_H
#define RK_IB_TYPES_H

#include "rk_rdma_types.h"

#endif /* RK_IB_TYPES_H */
