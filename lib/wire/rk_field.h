/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_field.h
 * Field descriptor tables: one row per wire field of a header, naming the
 * field as its spec does, where it sits and which spec section defines it.
 *
 * The tables drive the printer, the JSON writer, the table tests (set a
 * random value, read it back, check no other bit moved) and the plugin.
 * A field is the bits @c mask of the big-endian integer formed by the
 * @c nbytes bytes at @c byte_off of its header. Multi-byte fields are
 * always big-endian on the wire, except where @c le is set (ICRC).
 */
#ifndef RK_FIELD_H
#define RK_FIELD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rk_byteorder.h"

/** Descriptor of one wire field. */
struct rk_field {
	const char *name;     /**< spec name: "PSN", "DestQP", "AckReq" */
	const char *key;      /**< lower-case key for JSON/filters: "psn", "dest_qp" */
	uint16_t byte_off;    /**< first byte of the field's container in the header */
	uint8_t nbytes;       /**< container size, 1 to 8 bytes */
	uint8_t le;           /**< 1 when stored least significant byte first */
	uint64_t mask;        /**< bits of the container that form the field */
	const char *spec_ref; /**< section defining the field */
};

/** A header's field table: its name, length in bytes and rows. */
struct rk_header_desc {
	const char *name;         /**< "BTH", "RETH", "MPA FPDU", ... */
	uint16_t len;             /**< header length in bytes */
	const struct rk_field *fields;
	size_t nfields;
	const char *spec_ref;
};

/**
 * Read field @p f from the header at @p hdr (at least f->byte_off +
 * f->nbytes bytes must be readable).
 * @return the field's value, shifted down to bit 0.
 */
uint64_t rk_field_get(const struct rk_field *f, const uint8_t *hdr);

/**
 * Write @p v into field @p f of the header at @p hdr. Bits of @p v that
 * do not fit the field are ignored; every other bit of the header is kept.
 */
void rk_field_set(const struct rk_field *f, uint8_t *hdr, uint64_t v);

/** Width of field @p f in bits. */
unsigned int rk_field_width(const struct rk_field *f);

/** Find a field of @p h by spec name or key; NULL if absent. */
const struct rk_field *rk_header_field(const struct rk_header_desc *h,
				       const char *name);

/** All bits of an @p n-byte container (n = 1..8). */
#define RK_FIELD_ONES(n) ((n) >= 8 ? ~0ull : (1ull << (8 * (n))) - 1)

/**
 * The @p n-byte big-endian container at @p p (n = 1..8). With a constant
 * @p n the switch folds to one rk_get_be*() load.
 */
static inline uint64_t
rk_field_load_be(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	switch (n) {
	case 1:
		return p[0];
	case 2:
		return rk_get_be16(p);
	case 3:
		return rk_get_be24(p);
	case 4:
		return rk_get_be32(p);
	case 8:
		return rk_get_be64(p);
	default:
		for (unsigned int i = 0; i < n; i++)
			v = v << 8 | p[i];
		return v;
	}
}

/** Store the low @p n bytes of @p v big-endian at @p p (n = 1..8). */
static inline void
rk_field_store_be(uint8_t *p, unsigned int n, uint64_t v)
{
	switch (n) {
	case 1:
		p[0] = (uint8_t)v;
		return;
	case 2:
		rk_put_be16(p, (uint16_t)v);
		return;
	case 3:
		rk_put_be24(p, (uint32_t)v);
		return;
	case 4:
		rk_put_be32(p, (uint32_t)v);
		return;
	case 8:
		rk_put_be64(p, v);
		return;
	default:
		for (unsigned int i = n; i-- > 0; v >>= 8)
			p[i] = (uint8_t)v;
	}
}

/**
 * The bits @p mask of the @p n-byte big-endian container at @p h + @p off,
 * shifted down to bit 0. Meant for constant arguments: it then compiles to
 * the load, an AND and a shift.
 */
static inline uint64_t
rk_field_get_be(const uint8_t *h, unsigned int off, unsigned int n, uint64_t mask)
{
	return (rk_field_load_be(h + off, n) & mask) >> __builtin_ctzll(mask);
}

/**
 * Write @p v into the bits @p mask of the @p n-byte big-endian container at
 * @p h + @p off; every other bit is kept. A one-bit field is a flag: any
 * non-zero @p v sets it. A field that fills its container is stored
 * without reading it first.
 */
static inline void
rk_field_set_be(uint8_t *h, unsigned int off, unsigned int n, uint64_t mask, uint64_t v)
{
	uint64_t bits;

	if (mask == RK_FIELD_ONES(n)) {
		rk_field_store_be(h + off, n, v);
		return;
	}
	bits = __builtin_popcountll(mask) == 1 ? (v ? mask : 0) :
	       (v << __builtin_ctzll(mask)) & mask;
	rk_field_store_be(h + off, n, (rk_field_load_be(h + off, n) & ~mask) | bits);
}

/*
 * Field lists. Each header writes its fields once, as a list macro whose
 * rows are
 *
 *     X(pfx, acc, "Name", "key", byte_off, nbytes, mask, type, "spec ref")
 *
 * (pfx names the header without "rk_"; Name as the spec writes it, key for
 * JSON and filters, the container of nbytes big-endian bytes at byte_off,
 * the field's bits in it, the C type of its value). Passing
 * RK_FIELD_ACCESSORS as X declares the static inline getter rk_pfx_acc()
 * (the field shifted down to bit 0; flags read 0 or 1) and setter
 * rk_pfx_set_acc() (touches only the field's bits); passing RK_FIELD_ROW
 * makes the struct rk_field row. Rows written T(...) instead of X(...)
 * (addresses, read as pointers; reserved bytes) get a table row only.
 */
#define RK_FIELD_ACCESSORS(pfx, acc, name, key, off, nb, mask, type, ref)       \
	static inline type rk_##pfx##_##acc(const uint8_t *h)                    \
	{                                                                        \
		return (type)rk_field_get_be(h, off, nb, mask);                  \
	}                                                                        \
	static inline void rk_##pfx##_set_##acc(uint8_t *h, type v)              \
	{                                                                        \
		rk_field_set_be(h, off, nb, mask, v);                            \
	}
#define RK_FIELD_ROW(pfx, acc, nm, k, off, nb, m, type, ref) \
	{ .name = nm, .key = k, .byte_off = off, .nbytes = nb, .mask = m, .spec_ref = ref },
#define RK_FIELD_NONE(...)
/** Copy every field of a list into @p f (struct members named as accessors). */
#define RK_FIELD_UNPACK(pfx, acc, ...) f->acc = rk_##pfx##_##acc(h);
/** Store every field of @p f through the list's setters. */
#define RK_FIELD_PACK(pfx, acc, ...) rk_##pfx##_set_##acc(h, f->acc);

/**
 * Define rk_pfx_unpack(h, f) and rk_pfx_pack(h, f): copy every field of the list
 * @p LIST from the header at h into struct @p type, or back (its members
 * are named as the accessors). Packing clears the @p len header bytes
 * first (so the compiler folds each setter's read-modify-write into plain
 * stores) and writes every bit.
 */
#define RK_FIELD_PACK_FUNCS(pfx, type, LIST, len)                                \
	void rk_##pfx##_unpack(const uint8_t *h, type *f)                        \
	{                                                                        \
		LIST(RK_FIELD_UNPACK, RK_FIELD_NONE)                             \
	}                                                                        \
	void rk_##pfx##_pack(uint8_t *h, const type *f)                          \
	{                                                                        \
		memset(h, 0, len);                                               \
		LIST(RK_FIELD_PACK, RK_FIELD_NONE)                               \
	}

/**
 * Define the field table @p var (a struct rk_header_desc) of header @p nm,
 * @p len bytes long, from the list macro @p LIST.
 */
#define RK_HEADER_DESC(var, nm, len, LIST, ref)                                  \
	static const struct rk_field var##_fields[] = { LIST(RK_FIELD_ROW, RK_FIELD_ROW) }; \
	const struct rk_header_desc var = {                                      \
		nm, len, var##_fields, sizeof(var##_fields) / sizeof(var##_fields[0]), ref \
	}

#endif /* RK_FIELD_H */
