/* SPDX-License-Identifier: BSD-3-Clause */
#include "rk_gen_icrc.h"

#include <errno.h>
#include <stdlib.h>

/*
 * x^(2^k) modulo the CRC-32 polynomial, reflected, k = 0..31 (x^(2^32) is
 * x again: the order of x divides 2^32 - 1). Squares of each other,
 * checked by test_gen_icrc against rk_gen_crc32_mulmod().
 */
static const uint32_t x2k[32] = {
	0x40000000, 0x20000000, 0x08000000, 0x00800000, 0x00008000, 0xedb88320,
	0xb1e6b092, 0xa06a2517, 0xed627dae, 0x88d14467, 0xd7bbfe6a, 0xec447f11,
	0x8e7ea170, 0x6427800e, 0x4d47bae0, 0x09fe548f, 0x83852d0f, 0x30362f1a,
	0x7b5a9cc3, 0x31fec169, 0x9fec022a, 0x6c8dedc4, 0x15d6874d, 0x5fde7a4e,
	0xbad90e37, 0x2e4e5eef, 0x4eaba214, 0xa8a472c0, 0x429a969e, 0x148d302a,
	0xc40ba6d0, 0xc4e22c3c,
};

uint32_t
rk_gen_crc32_mulmod(uint32_t a, uint32_t b)
{
	uint32_t prod = 0;

	/* Walk a's coefficients from x^0 (bit 31) up; b holds b * x^i. */
	for (uint32_t bit = 1u << 31; bit != 0 && a != 0; bit >>= 1) {
		if (a & bit) {
			prod ^= b;
			a &= ~bit;
		}
		b = (b & 1) ? (b >> 1) ^ RK_GEN_CRC32_POLY_REFL : b >> 1;
	}
	return prod;
}

uint32_t
rk_gen_crc32_xpow8n(uint64_t nbytes)
{
	uint32_t r = 1u << 31; /* the polynomial 1 */

	/* 8n = n << 3: bit k of n is bit k + 3 of the exponent. */
	for (unsigned int k = 3; nbytes != 0; nbytes >>= 1, k++)
		if (nbytes & 1)
			r = rk_gen_crc32_mulmod(x2k[k & 31], r);
	return r;
}

uint32_t
rk_gen_crc32_raw(const uint8_t *p, uint32_t n)
{
	uint32_t crc = 0;

	for (uint32_t i = 0; i < n; i++) {
		crc ^= p[i];
		for (int b = 0; b < 8; b++)
			crc = (crc & 1) ? (crc >> 1) ^ RK_GEN_CRC32_POLY_REFL : crc >> 1;
	}
	return crc;
}

int
rk_gen_icrc_layout_init(struct rk_gen_icrc_layout *lay, const uint8_t *ip, uint32_t covered)
{
	uint32_t hl;

	if (covered < 1)
		return -EINVAL;
	switch (ip[0] >> 4) {
	case 4:
		hl = (uint32_t)(ip[0] & 0x0f) * 4;
		if (hl < 20 || hl > 60)
			return -EINVAL;
		break;
	case 6:
		hl = 40;
		break;
	default:
		return -EINVAL;
	}
	if (covered < hl + 8 + 12)
		return -EINVAL;
	lay->covered = covered;
	lay->ip_version = (uint8_t)(ip[0] >> 4);
	lay->ip_hlen = (uint16_t)hl;
	return 0;
}

uint8_t
rk_gen_icrc_keep(const struct rk_gen_icrc_layout *lay, uint32_t pos)
{
	uint32_t hl = lay->ip_hlen;

	if (pos >= lay->covered)
		return 0;
	if (lay->ip_version == 4) {
		/* TOS, TTL, Header Checksum */
		if (pos == 1 || pos == 8 || pos == 10 || pos == 11)
			return 0;
	} else {
		/* Version | Traffic Class | Flow Label; Hop Limit */
		if (pos == 0)
			return 0xf0;
		if (pos <= 3 || pos == 7)
			return 0;
	}
	if (pos == hl + 6 || pos == hl + 7) /* UDP Checksum */
		return 0;
	if (pos == hl + 8 + 4)              /* BTH FECN, BECN, Resv6a */
		return 0;
	return 0xff;
}

uint32_t
rk_gen_icrc_patch(const struct rk_gen_icrc_layout *lay, uint32_t icrc, uint32_t pos,
		  const uint8_t *old_bytes, const uint8_t *new_bytes, uint32_t n)
{
	uint8_t delta[64];
	uint32_t reg = 0, done = 0;

	if (pos >= lay->covered)
		return icrc;
	if (n > lay->covered - pos)
		n = lay->covered - pos;
	/* The masked delta's register, a chunk of the delta at a time. */
	while (done < n) {
		uint32_t k = n - done < sizeof(delta) ? n - done : (uint32_t)sizeof(delta);

		for (uint32_t i = 0; i < k; i++)
			delta[i] = (uint8_t)((old_bytes[done + i] ^ new_bytes[done + i]) &
					     rk_gen_icrc_keep(lay, pos + done + i));
		/* The register simply runs on: L(a || b) = L(a) * x^(8|b|) ^ L(b). */
		for (uint32_t i = 0; i < k; i++) {
			reg ^= delta[i];
			for (int b = 0; b < 8; b++)
				reg = (reg & 1) ? (reg >> 1) ^ RK_GEN_CRC32_POLY_REFL : reg >> 1;
		}
		done += k;
	}
	return icrc ^ rk_gen_crc32_mulmod(reg, rk_gen_crc32_xpow8n(lay->covered - pos - n));
}

int
rk_gen_icrc_field_init(struct rk_gen_icrc_field *f, const struct rk_gen_icrc_layout *lay,
		       uint32_t pos, uint32_t n)
{
	int any = 0;

	f->tab = NULL;
	if (n < 1 || n > RK_GEN_ICRC_FIELD_MAX)
		return -EINVAL;
	f->pos = pos;
	f->n = (uint8_t)n;
	for (uint32_t i = 0; i < n; i++)
		any |= rk_gen_icrc_keep(lay, pos + i);
	if (!any)
		return 0;
	f->tab = calloc(n, sizeof(*f->tab));
	if (f->tab == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		uint8_t keep = rk_gen_icrc_keep(lay, pos + i);
		uint32_t op, bitv[8];

		if (!keep)
			continue;
		op = rk_gen_crc32_xpow8n(lay->covered - (pos + i) - 1);
		for (int b = 0; b < 8; b++) {
			uint8_t d = (uint8_t)((1u << b) & keep);

			bitv[b] = d ? rk_gen_crc32_mulmod(rk_gen_crc32_raw(&d, 1), op) : 0;
		}
		/* Linear in the delta byte: each entry is the XOR of its bits' entries. */
		for (uint32_t d = 1; d < 256; d++) {
			int low = __builtin_ctz(d);

			f->tab[i][d] = f->tab[i][d & (d - 1)] ^ bitv[low];
		}
	}
	return 0;
}

void
rk_gen_icrc_field_fini(struct rk_gen_icrc_field *f)
{
	free(f->tab);
	f->tab = NULL;
}

uint16_t
rk_gen_csum_replace(uint16_t hc, const uint8_t *old_words, const uint8_t *new_words, uint32_t n)
{
	uint32_t sum = (uint16_t)~hc;

	for (uint32_t i = 0; i + 1 < n; i += 2) {
		sum += (uint16_t)~(old_words[i] << 8 | old_words[i + 1]);
		sum += (uint32_t)(new_words[i] << 8 | new_words[i + 1]);
	}
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}
