/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_crc.h
 * CRC-32 (IEEE 802.3, reflected; RoCEv2 ICRC) and CRC32c (Castagnoli; MPA
 * FPDU CRC) over byte buffers, computed by ISA-L.
 *
 * Both come in a chainable form: start from the value of rk_crc32_init()
 * (or rk_crc32c_init()), feed any number of pieces through update, and
 * finish with final. The one-shot forms equal init+update+final.
 *
 * The running states differ because the ISA-L functions do: crc32_gzip_refl
 * inverts on entry and exit, so its state is the finished CRC-32 of the bytes
 * so far (final is the identity); crc32_iscsi works on the raw register, so
 * the CRC32c state starts at all ones and final inverts it. Treat both as
 * opaque between init and final.
 */
#ifndef RK_CRC_H
#define RK_CRC_H

#include <stddef.h>
#include <stdint.h>

/** Running state of a CRC-32 (IEEE) computation. */
typedef uint32_t rk_crc32_state;

/** Start a CRC-32 (IEEE, reflected, as Ethernet FCS and zlib). */
static inline rk_crc32_state
rk_crc32_init(void)
{
	return 0;
}

/** Feed @p len bytes at @p buf into a CRC-32. */
rk_crc32_state rk_crc32_update(rk_crc32_state s, const void *buf, size_t len);

/** Finish a CRC-32: the value as Ethernet/zlib define it ("123456789" -> 0xcbf43926). */
static inline uint32_t
rk_crc32_final(rk_crc32_state s)
{
	return s;
}

/** One-shot CRC-32 (IEEE) of @p len bytes. */
uint32_t rk_crc32(const void *buf, size_t len);

/** Running state of a CRC32c computation (raw register, not inverted). */
typedef uint32_t rk_crc32c_state;

/** Start a CRC32c (Castagnoli, as iSCSI and MPA, RFC 5044 section 4.4). */
static inline rk_crc32c_state
rk_crc32c_init(void)
{
	return 0xffffffffu;
}

/** Feed @p len bytes at @p buf into a CRC32c. */
rk_crc32c_state rk_crc32c_update(rk_crc32c_state s, const void *buf, size_t len);

/** Finish a CRC32c ("123456789" -> 0xe3069283). */
static inline uint32_t
rk_crc32c_final(rk_crc32c_state s)
{
	return ~s;
}

/** One-shot CRC32c of @p len bytes. */
uint32_t rk_crc32c(const void *buf, size_t len);

#endif /* RK_CRC_H */
