/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Table tests of rk_field descriptor tables for the iWARP headers: random
 * set/get on every field with all other bits unchanged, coverage (no two
 * fields share a bit; optionally every bit is owned), and accessor/table
 * agreement. Include after cmocka.h and rk_field.h.
 */
#ifndef RK_FIELD_TABLE_H
#define RK_FIELD_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rk_test.h"

/* Bits of header byte @p j that field @p f owns. */
static uint8_t
byte_mask(const struct rk_field *f, size_t j)
{
	unsigned int k;

	if (j < f->byte_off || j >= (size_t)f->byte_off + f->nbytes)
		return 0;
	k = f->le ? (unsigned int)(j - f->byte_off) :
		    (unsigned int)(f->nbytes - 1 - (j - f->byte_off));
	return (uint8_t)(f->mask >> (8 * k));
}

static uint64_t
field_max(const struct rk_field *f)
{
	return f->mask >> __builtin_ctzll(f->mask);
}

static void
assert_others_unchanged(const struct rk_field *f, const uint8_t *a,
			const uint8_t *b, size_t len)
{
	for (size_t j = 0; j < len; j++) {
		uint8_t m = byte_mask(f, j);

		assert_int_equal(a[j] & ~m & 0xff, b[j] & ~m & 0xff);
	}
}

/* Every field: set a random value, read it back, no other bit moves. */
static void
table_test(const struct rk_header_desc *d)
{
	uint8_t a[64], b[64];

	assert_true(d->len <= sizeof(a));
	for (size_t i = 0; i < d->nfields; i++) {
		const struct rk_field *f = &d->fields[i];

		assert_true((size_t)f->byte_off + f->nbytes <= d->len);
		for (int it = 0; it < 300; it++) {
			uint64_t v = rk_test_rand();

			rk_test_fill(a, d->len);
			memcpy(b, a, d->len);
			rk_field_set(f, b, v);
			assert_int_equal(rk_field_get(f, b), v & field_max(f));
			assert_others_unchanged(f, a, b, d->len);
		}
	}
}

/* No two fields of a table share a bit; with @p full they cover the header. */
static void
coverage_test(const struct rk_header_desc *d, bool full)
{
	uint8_t seen[64] = { 0 };

	for (size_t i = 0; i < d->nfields; i++)
		for (size_t j = 0; j < d->len; j++) {
			uint8_t m = byte_mask(&d->fields[i], j);

			assert_int_equal(seen[j] & m, 0);
			seen[j] |= m;
		}
	for (size_t j = 0; full && j < d->len; j++)
		assert_int_equal(seen[j], 0xff);
}

struct acc {
	const char *name;
	uint64_t (*get)(const uint8_t *);
	void (*set)(uint8_t *, uint64_t);
};

/* Accessors agree with the table and keep neighbours. */
static void
accessor_test(const struct rk_header_desc *d, const struct acc *acc, size_t n)
{
	uint8_t a[64], b[64];

	for (size_t i = 0; i < n; i++) {
		const struct rk_field *f = rk_header_field(d, acc[i].name);

		assert_non_null(f);
		for (int it = 0; it < 300; it++) {
			uint64_t v = rk_test_rand() & field_max(f);

			rk_test_fill(a, d->len);
			memcpy(b, a, d->len);
			acc[i].set(b, v);
			assert_int_equal(acc[i].get(b), v);
			assert_int_equal(rk_field_get(f, b), v);
			assert_others_unchanged(f, a, b, d->len);
			v = rk_test_rand() & field_max(f);
			rk_field_set(f, b, v);
			assert_int_equal(acc[i].get(b), v);
		}
	}
}

#endif /* RK_FIELD_TABLE_H */
