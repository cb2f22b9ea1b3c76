/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Table test of a header's field descriptors: fields do not overlap, cover
 * every bit of the header, and setting any field to a random value reads
 * back masked while every other bit of the header stays as it was.
 */
#ifndef RK_FIELD_CHECK_H
#define RK_FIELD_CHECK_H

#include "rk_test.h"

#include "rk_field.h"

/* Mask of the header bits a field owns, as a byte array. */
static inline void
rk_test_field_bits(const struct rk_field *f, uint8_t *bits, size_t len)
{
	memset(bits, 0, len);
	for (unsigned int i = 0; i < f->nbytes; i++) {
		unsigned int shift = 8 * (f->nbytes - 1 - i);
		unsigned int b = f->le ? f->nbytes - 1 - i : i;

		bits[f->byte_off + b] = (uint8_t)(f->mask >> shift);
	}
}

static inline void
rk_test_header_desc(const struct rk_header_desc *d, int rounds)
{
	uint8_t cover[256] = { 0 }, bits[256], before[256], hdr[256];

	assert_true(d->len <= sizeof(hdr));
	for (size_t i = 0; i < d->nfields; i++) {
		const struct rk_field *f = &d->fields[i];

		assert_true(f->nbytes >= 1 && f->nbytes <= 8);
		assert_true(f->byte_off + f->nbytes <= d->len);
		assert_true(f->mask != 0);
		rk_test_field_bits(f, bits, d->len);
		for (unsigned int b = 0; b < d->len; b++) {
			/* No two fields own the same bit. */
			assert_int_equal(cover[b] & bits[b], 0);
			cover[b] |= bits[b];
		}
		for (int r = 0; r < rounds; r++) {
			uint64_t v = rk_test_rand();
			uint64_t max = rk_field_width(f) == 64 ? ~0ull :
				       (1ull << rk_field_width(f)) - 1;

			rk_test_fill(hdr, d->len);
			memcpy(before, hdr, d->len);
			rk_field_set(f, hdr, v);
			assert_true(rk_field_get(f, hdr) == (v & max));
			for (unsigned int b = 0; b < d->len; b++)
				assert_int_equal(hdr[b] & ~bits[b], before[b] & ~bits[b]);
		}
	}
	/* Every bit of the header belongs to a field (reserved ones included). */
	for (unsigned int b = 0; b < d->len; b++)
		assert_int_equal(cover[b], 0xff);
}

#endif /* RK_FIELD_CHECK_H */
