/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_psn.h
 * 24-bit packet sequence number arithmetic (IBTA Vol1 ch. 9).
 *
 * PSNs are compared modulo 2^24 in a half window: a PSN less than 2^23
 * ahead of another is "after" it, anything else is "before". Every PSN
 * and MSN comparison in lib/ib goes through these helpers; `<` on raw
 * PSNs is wrong across the wrap from 0xFFFFFF to 0.
 */
#ifndef RK_PSN_H
#define RK_PSN_H

#include <stdint.h>

#define RK_PSN_BITS 24
#ifndef RK_PSN_MASK
#define RK_PSN_MASK 0xffffffu
#endif

/**
 * Signed distance @p a - @p b in the 24-bit PSN space, in packets:
 * in [-2^23, 2^23 - 1]. The shift moves bit 23 to the sign bit.
 */
static inline int32_t
rk_psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) / 256;
}

/** -1, 0 or 1 as @p a is before, equal to or after @p b (modulo 2^24). */
static inline int
rk_psn_cmp(uint32_t a, uint32_t b)
{
	int32_t d = rk_psn_diff(a, b);

	return (d > 0) - (d < 0);
}

/** @p psn advanced by @p n packets, wrapped to 24 bits. */
static inline uint32_t
rk_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & RK_PSN_MASK;
}

/** @p psn moved back by @p n packets, wrapped to 24 bits. */
static inline uint32_t
rk_psn_sub(uint32_t psn, uint32_t n)
{
	return (psn - n) & RK_PSN_MASK;
}

#endif /* RK_PSN_H */
