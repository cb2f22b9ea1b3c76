/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_gen_icrc.h
 * Incremental ICRC and IPv4 header checksum for a generator that changes a
 * few bytes of a frame whose ICRC is already valid.
 *
 * The RoCEv2 ICRC (IBTA Annex A17.3.3, CA17-22) is the CRC-32 of IEEE 802.3
 * (reflected, polynomial 0x04C11DB7, initial and final value all ones) over
 * 8 bytes of 0xFF, the masked IP, UDP and BTH headers, the extended
 * headers, payload and pad. Such a CRC is affine in its message: for two
 * messages A and B of the same length, CRC(A) ^ CRC(B) = L(A ^ B), where L
 * is the bare register CRC (initial value 0, no final inversion). When B
 * differs from A only in bytes [p, p + n) of an m-byte message, A ^ B is
 * zero outside them: leading zero bytes leave L's register at 0, and the
 * m - p - n trailing ones multiply it by x^(8 (m - p - n)) modulo the
 * polynomial. So
 *
 *     ICRC(B) = ICRC(A) ^ L(delta[0..n)) * x^(8 * bytes_after)   (mod P)
 *
 * computed from the changed bytes alone. Bytes the ICRC masks to ones
 * (IPv4 TOS, TTL, Header Checksum; IPv6 Traffic Class, Flow Label, Hop
 * Limit; UDP Checksum; BTH byte 4) contribute nothing: their delta is
 * cleared first.
 *
 * Values are in the reflected representation zlib uses: bit 31 is the
 * coefficient of x^0, bit 0 that of x^31.
 *
 * Two forms: rk_gen_icrc_patch() for any change (about 32 steps per power
 * of two of the distance), and struct rk_gen_icrc_field, per-byte tables
 * prepared once for a field at a fixed place of a fixed-length frame (one
 * table lookup per field byte per packet).
 *
 * libc only; nothing allocated except in rk_gen_icrc_field_init().
 */
#ifndef RK_GEN_ICRC_H
#define RK_GEN_ICRC_H

#include <stddef.h>
#include <stdint.h>

/** The CRC-32 polynomial, reflected (IEEE 802.3 / Annex A17.3.3). */
#define RK_GEN_CRC32_POLY_REFL 0xedb88320u

/**
 * Multiply two polynomials modulo the CRC-32 polynomial, both in the
 * reflected representation (bit 31 = x^0).
 */
uint32_t rk_gen_crc32_mulmod(uint32_t a, uint32_t b);

/**
 * x^(8 * @p nbytes) modulo the CRC-32 polynomial: the operator that moves a
 * register value past @p nbytes zero bytes. From a table of x^(2^k);
 * at most 64 multiplications, fewer for short distances.
 */
uint32_t rk_gen_crc32_xpow8n(uint64_t nbytes);

/**
 * The bare register CRC-32 (initial 0, no final inversion) of @p n bytes:
 * L() of the file comment. Bitwise; meant for a few bytes.
 */
uint32_t rk_gen_crc32_raw(const uint8_t *p, uint32_t n);

/**
 * Where a RoCEv2 packet's ICRC masks bits (Annex A17.3.3): the ICRC-covered
 * bytes start at the IP header. Fill with rk_gen_icrc_layout_init().
 */
struct rk_gen_icrc_layout {
	uint32_t covered;   /**< bytes from the IP header to the ICRC (exclusive) */
	uint8_t ip_version; /**< 4 or 6 */
	uint16_t ip_hlen;   /**< IPv4 IHL * 4, or 40 */
};

/**
 * Describe the RoCEv2 packet whose IP header is at @p ip and whose ICRC
 * starts @p covered bytes later.
 * @return 0, or -EINVAL when @p ip is neither IPv4 nor IPv6, its header
 *         length is out of 20..60, or @p covered is shorter than IP + UDP
 *         + BTH headers.
 */
int rk_gen_icrc_layout_init(struct rk_gen_icrc_layout *lay, const uint8_t *ip,
			    uint32_t covered);

/**
 * The bits of byte @p pos (offset from the IP header) that the ICRC
 * covers: 0xff for most bytes, 0 for masked ones, 0xf0 for the IPv6
 * byte holding Version and the top of the Traffic Class.
 */
uint8_t rk_gen_icrc_keep(const struct rk_gen_icrc_layout *lay, uint32_t pos);

/**
 * The ICRC after bytes [@p pos, @p pos + @p n) of the covered region
 * changed from @p old_bytes to @p new_bytes.
 * @param icrc  the valid ICRC before the change (the host value, as
 *              rk_rocev2_icrc() returns it)
 * @param pos   offset of the first changed byte from the IP header
 * @return the new ICRC; @p icrc unchanged when the range lies outside
 *         the covered bytes (the part inside, if any, is counted).
 */
uint32_t rk_gen_icrc_patch(const struct rk_gen_icrc_layout *lay, uint32_t icrc, uint32_t pos,
			   const uint8_t *old_bytes, const uint8_t *new_bytes, uint32_t n);

/** Most bytes a prepared field may span (a 64-bit container). */
#define RK_GEN_ICRC_FIELD_MAX 8

/**
 * A field prepared for fast updates: for each of its bytes, the ICRC change
 * of every possible XOR delta at that place (masked bits already cleared).
 * 1 KiB per byte. Valid while the frame's length and the field's place
 * stay as they were at init.
 */
struct rk_gen_icrc_field {
	uint32_t pos;  /**< offset of the field's first byte from the IP header */
	uint8_t n;     /**< bytes, 1..RK_GEN_ICRC_FIELD_MAX */
	uint32_t (*tab)[256]; /**< n tables; NULL when no byte is covered */
};

/**
 * Prepare @p f for bytes [@p pos, @p pos + @p n) of the packet @p lay.
 * @return 0, -EINVAL for @p n outside 1..8, or -ENOMEM.
 */
int rk_gen_icrc_field_init(struct rk_gen_icrc_field *f, const struct rk_gen_icrc_layout *lay,
			   uint32_t pos, uint32_t n);

/** Free the tables of @p f (safe on a zeroed struct). */
void rk_gen_icrc_field_fini(struct rk_gen_icrc_field *f);

/**
 * The ICRC after the prepared field changed from @p old_bytes to
 * @p new_bytes (f->n bytes each).
 */
static inline uint32_t
rk_gen_icrc_field_update(const struct rk_gen_icrc_field *f, uint32_t icrc,
			 const uint8_t *old_bytes, const uint8_t *new_bytes)
{
	if (f->tab == NULL)
		return icrc;
	for (unsigned int i = 0; i < f->n; i++)
		icrc ^= f->tab[i][(uint8_t)(old_bytes[i] ^ new_bytes[i])];
	return icrc;
}

/**
 * RFC 1624 eqn. 3: the IPv4 Header Checksum after 16-bit words of the
 * header changed: HC' = ~(~HC + ~m + m'), one's complement sums.
 * @param hc         the checksum before (host order, as rk_ipv4_hdr_csum())
 * @param old_words  the changed words before, @p n bytes (n even; the
 *                   words aligned on even offsets of the header)
 * @param new_words  the same words after
 * @return the new checksum (host order)
 */
uint16_t rk_gen_csum_replace(uint16_t hc, const uint8_t *old_words, const uint8_t *new_words,
			     uint32_t n);

#endif /* RK_GEN_ICRC_H */
