/* SPDX-License-Identifier: BSD-3-Clause */
/* Replay rewrites: mapped addresses and DestQPs, with the checksums and the
 * ICRC over them made whole again (rk_gen_rewrite.h). */
#include "rk_gen_rewrite.h"

#include <errno.h>
#include <string.h>

#include "rk_byteorder.h"
#include "rk_pkt.h"

/* Bytes each map kind compares. */
static const uint8_t map_len[] = {
	[RK_GEN_MAP_MAC] = 6, [RK_GEN_MAP_IPV4] = 4, [RK_GEN_MAP_IPV6] = 16,
	[RK_GEN_MAP_QPN] = 3,
};

int
rk_gen_rewrite_add(struct rk_gen_rewrite *rw, const struct rk_gen_map *m)
{
	if (rw == NULL || m == NULL || (unsigned int)m->kind > RK_GEN_MAP_QPN)
		return -EINVAL;
	if (rw->n == RK_GEN_MAPS_MAX)
		return -ENOSPC;
	rw->map[rw->n++] = *m;
	return 0;
}

/* A checksum a changed field is under: where it is stored, where the data
 * it sums starts (for the 16-bit word grid), and whether 0 means none. */
struct csum_ref {
	uint8_t *at;
	uint32_t base;
	bool zero_is_none;
};

/* One's complement sum of the 16-bit words of frame[a, b), a and b even
 * from the grid's base; a missing last byte counts as 0 (RFC 1071). */
static uint32_t
sum16(const uint8_t *frame, uint32_t len, uint32_t a, uint32_t b)
{
	uint32_t s = 0;

	for (uint32_t i = a; i < b && i < len; i += 2)
		s += (uint32_t)frame[i] << 8 | (i + 1 < len && i + 1 < b ? frame[i + 1] : 0);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

/* RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m'), m the old words, m' the new. */
static void
csum_adjust(const struct csum_ref *c, uint32_t old_sum, uint32_t new_sum)
{
	uint32_t hc = rk_get_be16(c->at);
	uint32_t s;

	if (c->zero_is_none && hc == 0)
		return;
	s = (~hc & 0xffff) + (~old_sum & 0xffff) + new_sum;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	s = ~s & 0xffff;
	/* UDP sends a computed 0 as all ones (RFC 768). */
	if (c->zero_is_none && s == 0)
		s = 0xffff;
	rk_put_be16(c->at, (uint16_t)s);
}

/* Set frame[off, off + n) to @p val, adjusting the @p nc checksums over it. */
static void
change(uint8_t *frame, uint32_t len, uint32_t off, const uint8_t *val, uint32_t n,
       const struct csum_ref *cs, unsigned int nc)
{
	uint32_t old_sum[2], a[2], b[2];

	for (unsigned int i = 0; i < nc; i++) {
		a[i] = off - ((off - cs[i].base) & 1);
		b[i] = off + n + ((off + n - cs[i].base) & 1);
		old_sum[i] = sum16(frame, len, a[i], b[i]);
	}
	memcpy(frame + off, val, n);
	for (unsigned int i = 0; i < nc; i++)
		csum_adjust(&cs[i], old_sum[i], sum16(frame, len, a[i], b[i]));
}

/* Apply the maps of kind @p k to the @p n-byte field at @p off. */
static bool
map_field(const struct rk_gen_rewrite *rw, struct rk_gen_rewrite_stats *st,
	  enum rk_gen_map_kind k, uint8_t *frame, uint32_t len, uint32_t off,
	  const struct csum_ref *cs, unsigned int nc)
{
	uint32_t n = map_len[k];

	if ((uint64_t)off + n > len)
		return false;
	for (unsigned int i = 0; i < rw->n; i++) {
		const struct rk_gen_map *m = &rw->map[i];

		if (m->kind == k && memcmp(frame + off, m->old, n) == 0) {
			st->hits[i]++;
			if (memcmp(m->old, m->new, n) == 0)
				return false;
			change(frame, len, off, m->new, n, cs, nc);
			return true;
		}
	}
	return false;
}

int
rk_gen_rewrite_frame(const struct rk_gen_rewrite *rw, uint8_t *frame, uint32_t len,
		     struct rk_gen_rewrite_stats *st)
{
	struct rk_gen_rewrite_stats dummy;
	struct rk_parse_opts po = { .check_icrc = true };
	struct rk_pkt pkt;
	struct csum_ref cs[2];
	unsigned int nl4 = 0;
	bool changed = false;

	if (rw == NULL || frame == NULL)
		return -EINVAL;
	if (st == NULL)
		st = &dummy;
	st->frames++;
	if (rk_pkt_parse(&pkt, frame, len, len, RK_LINK_ETHERNET, &po) != 0 || pkt.truncated ||
	    !(pkt.layers & RK_L_ETH)) {
		st->not_parsed++;
		return 0;
	}
	changed |= map_field(rw, st, RK_GEN_MAP_MAC, frame, len, pkt.l2_off, NULL, 0);
	changed |= map_field(rw, st, RK_GEN_MAP_MAC, frame, len, pkt.l2_off + 6, NULL, 0);
	/* The TCP or UDP checksum covers the addresses (pseudo-header) and the
	 * payload; whether the UDP one is in use shows in the frame. */
	if (pkt.layers & (RK_L_TCP | RK_L_UDP)) {
		bool udp = (pkt.layers & RK_L_UDP) != 0;
		uint32_t at = pkt.l4_off + (udp ? 6 : 16);

		if ((uint64_t)at + 2 <= len) {
			cs[0] = (struct csum_ref){ .at = frame + at, .base = pkt.l4_off,
						   .zero_is_none = udp };
			nl4 = 1;
		}
	}
	if (pkt.layers & RK_L_IPV4) {
		struct csum_ref ip[2] = {
			{ .at = frame + pkt.l3_off + 10, .base = pkt.l3_off },
			nl4 ? cs[0] : (struct csum_ref){ 0 },
		};

		ip[1].base = pkt.l3_off;
		changed |= map_field(rw, st, RK_GEN_MAP_IPV4, frame, len, pkt.l3_off + 12, ip,
				     1 + nl4);
		changed |= map_field(rw, st, RK_GEN_MAP_IPV4, frame, len, pkt.l3_off + 16, ip,
				     1 + nl4);
	} else if (pkt.layers & RK_L_IPV6) {
		struct csum_ref ip = nl4 ? cs[0] : (struct csum_ref){ 0 };

		ip.base = pkt.l3_off;
		changed |= map_field(rw, st, RK_GEN_MAP_IPV6, frame, len, pkt.l3_off + 8, &ip, nl4);
		changed |= map_field(rw, st, RK_GEN_MAP_IPV6, frame, len, pkt.l3_off + 24, &ip, nl4);
	}
	if (rk_pkt_has_bth(&pkt))
		changed |= map_field(rw, st, RK_GEN_MAP_QPN, frame, len, pkt.bth_off + 5, cs, nl4);
	if (!changed)
		return 0;
	st->changed++;
	if (pkt.kind == RK_PKT_ROCEV2 && pkt.icrc_off != 0) {
		if (pkt.icrc_status == RK_ICRC_GOOD) {
			uint8_t c[4];

			/* Carried least significant byte first (A17.3.3); the
			 * UDP checksum, when used, covers it. */
			rk_put_le32(c, rk_rocev2_icrc(frame + pkt.l3_off, pkt.icrc_off - pkt.l3_off));
			change(frame, len, pkt.icrc_off, c, 4, cs, nl4);
			st->icrc_redone++;
		} else {
			st->icrc_kept_bad++;
		}
	}
	return 1;
}
