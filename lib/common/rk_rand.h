/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_rand.h
 * The project's two seeded pseudo-random generators, for reproducible
 * fault injection and workloads (never for keys an attacker must not
 * guess). Header only; libc only.
 */
#ifndef RK_RAND_H
#define RK_RAND_H

#include <stdint.h>

/**
 * splitmix64 (Steele, Lea, Flood 2014): advance the state @p s by the
 * golden-ratio increment and return a mixed 64-bit value. Any state,
 * 0 included.
 */
static inline uint64_t
rk_splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/**
 * xorshift64* (Vigna 2016): advance the state @p s (shifts 12, 25, 27)
 * and return it times 0x2545f4914f6cdd1d. A zero state stays zero: seed
 * with a non-zero value.
 */
static inline uint64_t
rk_xorshift64s(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

#endif /* RK_RAND_H */
