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

#endif /* RK_FIELD_H */
