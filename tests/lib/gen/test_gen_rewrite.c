/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay rewrites (rk_gen_rewrite_frame): random RoCEv2 frames over IPv4
 * and IPv6, with and without a VLAN tag and a UDP checksum, get their MACs,
 * addresses and DestQP mapped; every other byte stays, the ICRC is good
 * again, the IPv4 header checksum and a UDP checksum in use equal a
 * recomputation. A TCP segment's checksum follows its addresses; a bad ICRC
 * stays bad; every prefix of a frame is taken without a write past it.
 */
#include "rk_test.h"

#include <errno.h>
#include <stdlib.h>

#include "rk_build.h"
#include "rk_byteorder.h"
#include "rk_eth.h"
#include "rk_gen_rewrite.h"
#include "rk_ipv4.h"
#include "rk_ipv6.h"
#include "rk_opcode.h"
#include "rk_pkt.h"
#include "rk_udp.h"

/* The TCP or UDP checksum of the segment at @p l4 (RFC 793 3.1, RFC 768):
 * computed from scratch over the pseudo-header and the segment. */
static uint16_t
l4_csum_ref(const uint8_t *f, uint32_t l3, uint32_t l4, uint32_t len, uint8_t proto,
	    uint32_t csum_at)
{
	bool v4 = (f[l3] >> 4) == 4;
	uint32_t alen = v4 ? 4 : 16, seg = len - l4, s = 0;
	const uint8_t *src = f + l3 + (v4 ? 12 : 8), *dst = src + alen;

	for (uint32_t i = 0; i < alen; i += 2)
		s += rk_get_be16(src + i) + rk_get_be16(dst + i);
	s += proto + (seg >> 16) + (seg & 0xffff);
	for (uint32_t i = 0; i < seg; i += 2) {
		uint32_t at = l4 + i;
		uint32_t w = (uint32_t)f[at] << 8 | (i + 1 < seg ? f[at + 1] : 0);

		if (at == csum_at)
			w = 0;
		s += w;
	}
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	s = ~s & 0xffff;
	return (uint16_t)(s == 0 ? 0xffff : s);
}

struct frame_info {
	uint32_t len, l3, l4, bth;
	bool v4;
};

static struct frame_info
random_frame(uint8_t *f, uint32_t cap)
{
	static const uint8_t ops[] = {
		RK_OP_SEND_ONLY, RK_OP_RDMA_WRITE_ONLY, RK_OP_RDMA_READ_REQUEST,
		RK_OP_ACKNOWLEDGE, RK_OP_COMPARE_SWAP, RK_OP_TR_UD | RK_OP_SEND_ONLY, RK_OP_CNP,
	};
	struct rk_roce_addr a = { 0 };
	struct rk_bth_fields b = { 0 };
	struct rk_xeth_fields x = { 0 };
	uint8_t payload[700];
	uint32_t plen = (uint32_t)(rk_test_rand() % sizeof(payload));
	struct frame_info fi;
	int n;

	rk_test_fill(a.dst_mac, 6);
	rk_test_fill(a.src_mac, 6);
	a.vlan = rk_test_rand() & 1;
	a.ip_version = rk_test_rand() & 1 ? 4 : 6;
	rk_test_fill(a.src_ip, 16);
	rk_test_fill(a.dst_ip, 16);
	a.src_port = (uint16_t)rk_test_rand();
	b.opcode = ops[rk_test_rand() % sizeof(ops)];
	b.dest_qp = (uint32_t)rk_test_rand() & 0xffffff;
	b.psn = (uint32_t)rk_test_rand() & 0xffffff;
	x.reth_dma_len = plen;
	rk_test_fill(payload, plen);
	n = rk_build_rocev2(f, cap, &a, &b, &x, payload, plen);
	assert_true(n > 0);
	fi.len = (uint32_t)n;
	fi.v4 = a.ip_version == 4;
	fi.l3 = RK_ETH_HLEN + (a.vlan ? RK_VLAN_HLEN : 0);
	fi.l4 = fi.l3 + (fi.v4 ? RK_IPV4_HLEN : RK_IPV6_HLEN);
	fi.bth = fi.l4 + RK_UDP_HLEN;
	return fi;
}

/* A map of @p kind for the @p n bytes at @p at: matching them, or (one in
 * four) some other value, which must change nothing. */
static void
add_map(struct rk_gen_rewrite *rw, enum rk_gen_map_kind kind, const uint8_t *at, uint32_t n,
	uint8_t *want)
{
	struct rk_gen_map m = { .kind = kind };

	memcpy(m.old, at, n);
	rk_test_fill(m.new, n);
	if (rk_test_rand() % 4 == 0)
		m.old[0] ^= 0x5a;
	else
		memcpy(want, m.new, n);
	assert_int_equal(rk_gen_rewrite_add(rw, &m), 0);
}

static void
test_roce_maps(void **state)
{
	(void)state;
	rk_test_seed();
	for (int r = 0; r < 3000; r++) {
		uint8_t f[1200], want[1200];
		struct frame_info fi = random_frame(f, sizeof(f));
		struct rk_gen_rewrite rw = { .n = 0 };
		struct rk_gen_rewrite_stats st = { 0 };
		uint32_t asrc = fi.l3 + (fi.v4 ? 12 : 8), alen = fi.v4 ? 4 : 16;
		bool udp_csum = rk_test_rand() & 1;
		struct rk_pkt pkt;
		int rc, expect;

		if (udp_csum)
			rk_put_be16(f + fi.l4 + 6, l4_csum_ref(f, fi.l3, fi.l4, fi.len, 17, fi.l4 + 6));
		memcpy(want, f, fi.len);
		if (rk_test_rand() & 1)
			add_map(&rw, RK_GEN_MAP_MAC, f, 6, want);
		if (rk_test_rand() & 1)
			add_map(&rw, RK_GEN_MAP_MAC, f + 6, 6, want + 6);
		if (rk_test_rand() & 1)
			add_map(&rw, fi.v4 ? RK_GEN_MAP_IPV4 : RK_GEN_MAP_IPV6, f + asrc, alen,
				want + asrc);
		if (rk_test_rand() & 1)
			add_map(&rw, fi.v4 ? RK_GEN_MAP_IPV4 : RK_GEN_MAP_IPV6, f + asrc + alen, alen,
				want + asrc + alen);
		if (rk_test_rand() & 1)
			add_map(&rw, RK_GEN_MAP_QPN, f + fi.bth + 5, 3, want + fi.bth + 5);
		expect = memcmp(f, want, fi.len) != 0;
		rc = rk_gen_rewrite_frame(&rw, f, fi.len, &st);
		assert_int_equal(rc, expect);
		/* Every byte as wanted but the checksums and the ICRC. */
		if (fi.v4)
			memcpy(want + fi.l3 + 10, f + fi.l3 + 10, 2);
		memcpy(want + fi.l4 + 6, f + fi.l4 + 6, 2);
		memcpy(want + fi.len - 4, f + fi.len - 4, 4);
		assert_memory_equal(f, want, fi.len);
		assert_int_equal(rk_pkt_parse(&pkt, f, fi.len, fi.len, RK_LINK_ETHERNET, NULL), 0);
		assert_int_equal(pkt.icrc_status, RK_ICRC_GOOD);
		if (fi.v4)
			assert_true(rk_ipv4_csum_ok(f + fi.l3));
		if (udp_csum)
			assert_int_equal(rk_get_be16(f + fi.l4 + 6),
					 l4_csum_ref(f, fi.l3, fi.l4, fi.len, 17, fi.l4 + 6));
		else
			assert_int_equal(rk_get_be16(f + fi.l4 + 6), 0);
		assert_int_equal(st.icrc_redone, (uint64_t)rc);
	}
}

/* An IPv4 TCP segment (iWARP's carrier): its checksum follows the addresses. */
static void
test_tcp_checksum(void **state)
{
	uint8_t f[14 + 20 + 20 + 37] = { 0 };
	uint32_t l3 = 14, l4 = 34, len = sizeof(f);
	struct rk_gen_rewrite rw = { .n = 0 };
	struct rk_gen_map m = { .kind = RK_GEN_MAP_IPV4, .old = { 198, 18, 0, 1 },
				.new = { 198, 19, 7, 200 } };

	(void)state;
	rk_put_be16(f + 12, 0x0800);
	f[l3] = 0x45;
	rk_put_be16(f + l3 + 2, (uint16_t)(len - l3));
	f[l3 + 8] = 64;
	f[l3 + 9] = 6;
	memcpy(f + l3 + 12, m.old, 4);
	memcpy(f + l3 + 16, (uint8_t[]){ 198, 18, 0, 2 }, 4);
	rk_ipv4_fill_csum(f + l3);
	rk_put_be16(f + l4, 40000);
	rk_put_be16(f + l4 + 2, 5000);
	f[l4 + 12] = 5 << 4;
	f[l4 + 13] = 0x18;
	for (uint32_t i = l4 + 20; i < len; i++)
		f[i] = (uint8_t)(i * 7);
	rk_put_be16(f + l4 + 16, l4_csum_ref(f, l3, l4, len, 6, l4 + 16));
	assert_int_equal(rk_gen_rewrite_add(&rw, &m), 0);
	assert_int_equal(rk_gen_rewrite_frame(&rw, f, len, NULL), 1);
	assert_memory_equal(f + l3 + 12, m.new, 4);
	assert_true(rk_ipv4_csum_ok(f + l3));
	assert_int_equal(rk_get_be16(f + l4 + 16), l4_csum_ref(f, l3, l4, len, 6, l4 + 16));
}

/* A frame sent with a bad ICRC on purpose replays with a bad one. */
static void
test_bad_icrc_stays_bad(void **state)
{
	uint8_t f[1200];
	struct frame_info fi;
	struct rk_gen_rewrite rw = { .n = 0 };
	struct rk_gen_rewrite_stats st = { 0 };
	struct rk_gen_map m = { .kind = RK_GEN_MAP_QPN };
	struct rk_pkt pkt;

	(void)state;
	rk_test_seed();
	fi = random_frame(f, sizeof(f));
	f[fi.len - 1] ^= 0xff;
	memcpy(m.old, f + fi.bth + 5, 3);
	m.new[0] = (uint8_t)~m.old[0];
	assert_int_equal(rk_gen_rewrite_add(&rw, &m), 0);
	/* a second entry whose OLD the frame does not hold: no hit */
	m.old[0] ^= 0x01;
	assert_int_equal(rk_gen_rewrite_add(&rw, &m), 0);
	m.old[0] ^= 0x01;
	assert_int_equal(rk_gen_rewrite_frame(&rw, f, fi.len, &st), 1);
	assert_int_equal(st.icrc_kept_bad, 1);
	assert_int_equal(st.hits[0], 1);
	assert_int_equal(st.hits[1], 0);
	assert_int_equal(rk_pkt_parse(&pkt, f, fi.len, fi.len, RK_LINK_ETHERNET, NULL), 0);
	assert_int_equal(pkt.icrc_status, RK_ICRC_BAD);
}

/* Every prefix of a frame, in a buffer of exactly its size (ASan sees a
 * write past it): rewritten or left, never an error. */
static void
test_prefixes(void **state)
{
	uint8_t f[1200];
	struct rk_gen_rewrite rw = { .n = 0 };
	struct frame_info fi;

	(void)state;
	rk_test_seed();
	fi = random_frame(f, sizeof(f));
	for (int k = 0; k < 5; k++) {
		struct rk_gen_map m = { .kind = (enum rk_gen_map_kind)(k % 4) };

		rk_test_fill(m.new, 16);
		memcpy(m.old, f + (k == 0 ? 6 : k == 3 ? fi.bth + 5 : fi.l3 + (fi.v4 ? 12 : 8)),
		       16);
		assert_int_equal(rk_gen_rewrite_add(&rw, &m), 0);
	}
	for (uint32_t n = 0; n <= fi.len; n++) {
		uint8_t *p = malloc(n ? n : 1);
		int rc;

		memcpy(p, f, n);
		rc = rk_gen_rewrite_frame(&rw, p, n, NULL);
		assert_true(rc == 0 || rc == 1);
		free(p);
	}
}

static void
test_add_errors(void **state)
{
	struct rk_gen_rewrite rw = { .n = 0 };
	struct rk_gen_map m = { .kind = RK_GEN_MAP_MAC };

	(void)state;
	for (int i = 0; i < RK_GEN_MAPS_MAX; i++)
		assert_int_equal(rk_gen_rewrite_add(&rw, &m), 0);
	assert_int_equal(rk_gen_rewrite_add(&rw, &m), -ENOSPC);
	assert_int_equal(rk_gen_rewrite_add(NULL, &m), -EINVAL);
	m.kind = (enum rk_gen_map_kind)9;
	assert_int_equal(rk_gen_rewrite_add(&rw, &m), -EINVAL);
	assert_int_equal(rk_gen_rewrite_frame(&rw, NULL, 0, NULL), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roce_maps),
		cmocka_unit_test(test_tcp_checksum),
		cmocka_unit_test(test_bad_icrc_stays_bad),
		cmocka_unit_test(test_prefixes),
		cmocka_unit_test(test_add_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
