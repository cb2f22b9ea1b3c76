/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_gen_rewrite.h
 * Rewriting captured frames for replay: MAC addresses, IP addresses and
 * DestQPs mapped old to new, then the checksums that cover them made
 * whole again: the IPv4 header checksum (RFC 791 3.1), the TCP and UDP
 * checksums over the pseudo-header (RFC 793 3.1, RFC 768; a UDP checksum
 * of 0 means none and stays 0), and the RoCEv2 ICRC (IBTA Annex A17.3.3),
 * recomputed in full when the frame carried a valid one. A frame whose
 * ICRC was bad keeps a bad one, so a capture of deliberately broken
 * frames replays broken. Pure byte work: no I/O, no clock.
 */
#ifndef RK_GEN_REWRITE_H
#define RK_GEN_REWRITE_H

#include <stdint.h>

/** What a map entry matches. */
enum rk_gen_map_kind {
	RK_GEN_MAP_MAC = 0,  /**< Ethernet source and destination (6 bytes) */
	RK_GEN_MAP_IPV4,     /**< IPv4 source and destination (4 bytes) */
	RK_GEN_MAP_IPV6,     /**< IPv6 source and destination (16 bytes) */
	RK_GEN_MAP_QPN,      /**< BTH DestQP (24 bits, in old[0..2] and new[0..2], big-endian) */
};

/** One map entry: every field of its kind holding @c old is set to @c new. */
struct rk_gen_map {
	enum rk_gen_map_kind kind;
	uint8_t old[16], new[16];
};

/** Most map entries a rewrite holds. */
#define RK_GEN_MAPS_MAX 32

/** The maps of one replay. */
struct rk_gen_rewrite {
	struct rk_gen_map map[RK_GEN_MAPS_MAX];
	unsigned int n;
};

/** Counts over the frames rewritten. */
struct rk_gen_rewrite_stats {
	uint64_t frames;        /**< frames given */
	uint64_t changed;       /**< frames in which a map changed a field */
	uint64_t icrc_redone;   /**< RoCEv2 ICRCs recomputed */
	uint64_t icrc_kept_bad; /**< changed frames whose ICRC was bad before: left bad */
	uint64_t not_parsed;    /**< frames too short or malformed to rewrite: sent as they are */
	uint64_t hits[RK_GEN_MAPS_MAX]; /**< fields map entry i found holding its old value
					     (0: the entry did nothing) */
};

/**
 * Add a map entry.
 * @return 0, -ENOSPC when RK_GEN_MAPS_MAX entries are there, -EINVAL for
 *         a NULL argument or an unknown kind.
 */
int rk_gen_rewrite_add(struct rk_gen_rewrite *rw, const struct rk_gen_map *m);

/**
 * Apply the maps of @p rw to Ethernet frame @p frame of @p len bytes, in
 * place, and fix the checksums and ICRC the changed fields are under. A
 * frame that does not parse to the headers a map needs is left as it is.
 * Never writes outside [frame, frame + len).
 * @param st  counters to add to, or NULL
 * @return 1 when the frame changed, 0 when not, -EINVAL for NULL @p rw or
 *         @p frame.
 */
int rk_gen_rewrite_frame(const struct rk_gen_rewrite *rw, uint8_t *frame, uint32_t len,
			 struct rk_gen_rewrite_stats *st);

#endif /* RK_GEN_REWRITE_H */
