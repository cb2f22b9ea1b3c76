/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_byteorder.h
 * Big- and little-endian loads and stores on unaligned wire bytes.
 *
 * The only place in rdmakit that knows byte order: every wire field is read
 * and written through these helpers (memcpy-free byte assembly), so they are
 * safe at any alignment (AtomicETH's 64-bit fields sit at 4-byte offsets)
 * and never touch bytes outside the field.
 */
#ifndef RK_BYTEORDER_H
#define RK_BYTEORDER_H

#include <stdint.h>

/** Read a 16-bit big-endian value at @p p. */
static inline uint16_t
rk_get_be16(const uint8_t *p)
{
	return (uint16_t)((uint16_t)p[0] << 8 | p[1]);
}

/** Read a 24-bit big-endian value at @p p (3 bytes). */
static inline uint32_t
rk_get_be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

/** Read a 32-bit big-endian value at @p p. */
static inline uint32_t
rk_get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/** Read a 64-bit big-endian value at @p p. */
static inline uint64_t
rk_get_be64(const uint8_t *p)
{
	return (uint64_t)rk_get_be32(p) << 32 | rk_get_be32(p + 4);
}

/** Read a 32-bit little-endian value at @p p (the ICRC's byte order). */
static inline uint32_t
rk_get_le32(const uint8_t *p)
{
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[1] << 8 | p[0];
}

/** Write @p v as 16-bit big-endian at @p p. */
static inline void
rk_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/** Write the low 24 bits of @p v big-endian at @p p (3 bytes). */
static inline void
rk_put_be24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

/** Write @p v as 32-bit big-endian at @p p. */
static inline void
rk_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/** Write @p v as 64-bit big-endian at @p p. */
static inline void
rk_put_be64(uint8_t *p, uint64_t v)
{
	rk_put_be32(p, (uint32_t)(v >> 32));
	rk_put_be32(p + 4, (uint32_t)v);
}

/** Write @p v as 32-bit little-endian at @p p. */
static inline void
rk_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

#endif /* RK_BYTEORDER_H */
