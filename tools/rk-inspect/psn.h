/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file psn.h
 * Modular sequence arithmetic for rk-inspect: 24-bit PSNs (IBTA Vol1 9.7.1)
 * and 32-bit TCP sequence numbers (RFC 9293 3.4). Never compare either
 * with < or >: use the signed differences here.
 */
#ifndef RK_INSP_PSN_H
#define RK_INSP_PSN_H

#include <stdint.h>

#define RK_INSP_PSN_MASK 0xffffffu

/**
 * Signed distance from PSN @p b to PSN @p a in the 24-bit space,
 * in [-2^23, 2^23): positive when @p a is ahead of @p b.
 */
static inline int32_t
rk_insp_psn_diff(uint32_t a, uint32_t b)
{
	/* Shift the 24-bit difference into the top of a 32-bit word so the
	 * sign bit is bit 23 of the PSN difference, then shift back. */
	return (int32_t)((a - b) << 8) >> 8;
}

/** PSN @p psn advanced by @p n, modulo 2^24. */
static inline uint32_t
rk_insp_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & RK_INSP_PSN_MASK;
}

/** Signed distance from TCP sequence number @p b to @p a (RFC 1982 style). */
static inline int32_t
rk_insp_seq_diff(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b);
}

#endif /* RK_INSP_PSN_H */
