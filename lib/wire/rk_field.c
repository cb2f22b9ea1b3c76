/* SPDX-License-Identifier: BSD-3-Clause */
#include "rk_field.h"

#include <string.h>

static uint64_t
load(const struct rk_field *f, const uint8_t *hdr)
{
	const uint8_t *p = hdr + f->byte_off;
	uint64_t v = 0;

	for (unsigned int i = 0; i < f->nbytes; i++) {
		unsigned int b = f->le ? f->nbytes - 1 - i : i;

		v = v << 8 | p[b];
	}
	return v;
}

static void
store(const struct rk_field *f, uint8_t *hdr, uint64_t v)
{
	uint8_t *p = hdr + f->byte_off;

	for (unsigned int i = 0; i < f->nbytes; i++) {
		unsigned int b = f->le ? i : f->nbytes - 1 - i;

		p[b] = (uint8_t)v;
		v >>= 8;
	}
}

uint64_t
rk_field_get(const struct rk_field *f, const uint8_t *hdr)
{
	return (load(f, hdr) & f->mask) >> __builtin_ctzll(f->mask);
}

void
rk_field_set(const struct rk_field *f, uint8_t *hdr, uint64_t v)
{
	unsigned int shift = (unsigned int)__builtin_ctzll(f->mask);
	uint64_t c = load(f, hdr);

	c = (c & ~f->mask) | ((v << shift) & f->mask);
	store(f, hdr, c);
}

unsigned int
rk_field_width(const struct rk_field *f)
{
	return (unsigned int)__builtin_popcountll(f->mask);
}

const struct rk_field *
rk_header_field(const struct rk_header_desc *h, const char *name)
{
	for (size_t i = 0; i < h->nfields; i++)
		if (strcmp(h->fields[i].name, name) == 0 ||
		    strcmp(h->fields[i].key, name) == 0)
			return &h->fields[i];
	return NULL;
}
