/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The incremental ICRC against the full one: thousands of random RoCEv2
 * frames, random changes to the fields a generator varies (PSN, DestQP,
 * UDP source port, IP addresses, R_Key, VA, payload bytes) and to masked
 * ones (TTL, DSCP, ECN, FECN, flow label); after each, the patched ICRC must
 * equal rk_rocev2_icrc() recomputed over the frame, rk_pkt_parse() must call
 * it good, and the RFC 1624 checksum must equal rk_ipv4_csum().
 */
#include "rk_test.h"

#include <errno.h>

#include "rk_build.h"
#include "rk_byteorder.h"
#include "rk_eth.h"
#include "rk_gen_icrc.h"
#include "rk_ipv4.h"
#include "rk_ipv6.h"
#include "rk_opcode.h"
#include "rk_pkt.h"
#include "rk_udp.h"
#include "rk_xeth.h"

/* L(d || t zero bytes) is L(d) moved by x^(8t); x^(8(a+b)) = x^(8a) x^(8b). */
static void
test_shift_operator(void **state)
{
	uint8_t buf[600];

	(void)state;
	rk_test_seed();
	assert_int_equal(rk_gen_crc32_xpow8n(0), 0x80000000u);
	for (int r = 0; r < 300; r++) {
		uint32_t d = 1 + (uint32_t)(rk_test_rand() % 40);
		uint32_t t = (uint32_t)(rk_test_rand() % (sizeof(buf) - d));
		uint64_t a = rk_test_rand() >> 20, b = rk_test_rand() >> 20;

		rk_test_fill(buf, d);
		memset(buf + d, 0, t);
		assert_int_equal(rk_gen_crc32_raw(buf, d + t),
				 rk_gen_crc32_mulmod(rk_gen_crc32_raw(buf, d),
						     rk_gen_crc32_xpow8n(t)));
		assert_int_equal(rk_gen_crc32_xpow8n(a + b),
				 rk_gen_crc32_mulmod(rk_gen_crc32_xpow8n(a),
						     rk_gen_crc32_xpow8n(b)));
	}
}

/* A random RoCEv2 frame; returns its length, the IP header offset in *l3. */
static uint32_t
random_frame(uint8_t *f, uint32_t cap, uint32_t *l3)
{
	static const uint8_t ops[] = {
		RK_OP_SEND_ONLY, RK_OP_RDMA_WRITE_ONLY, RK_OP_RDMA_WRITE_FIRST,
		RK_OP_RDMA_READ_REQUEST, RK_OP_ACKNOWLEDGE, RK_OP_COMPARE_SWAP,
		RK_OP_TR_UD | RK_OP_SEND_ONLY, RK_OP_SEND_ONLY_INV, RK_OP_CNP,
		RK_OP_RDMA_WRITE_ONLY_IMM,
	};
	struct rk_roce_addr a = { 0 };
	struct rk_bth_fields b = { 0 };
	struct rk_xeth_fields x = { 0 };
	uint8_t payload[1500];
	uint32_t len = (uint32_t)(rk_test_rand() % (rk_test_rand() & 1 ? 64 : sizeof(payload)));
	int n;

	rk_test_fill(a.dst_mac, 6);
	rk_test_fill(a.src_mac, 6);
	a.vlan = rk_test_rand() & 1;
	a.vlan_tci = (uint16_t)rk_test_rand();
	a.ip_version = rk_test_rand() & 1 ? 4 : 6;
	rk_test_fill(a.src_ip, 16);
	rk_test_fill(a.dst_ip, 16);
	a.dscp = rk_test_rand() & 63;
	a.ecn = rk_test_rand() & 3;
	a.ttl = (uint8_t)rk_test_rand();
	a.flow_label = (uint32_t)rk_test_rand() & 0xfffff;
	a.src_port = (uint16_t)rk_test_rand();
	b.opcode = ops[rk_test_rand() % sizeof(ops)];
	b.p_key = (uint16_t)rk_test_rand();
	b.dest_qp = (uint32_t)rk_test_rand() & 0xffffff;
	b.psn = (uint32_t)rk_test_rand() & 0xffffff;
	b.ack_req = rk_test_rand() & 1;
	x.reth_va = rk_test_rand();
	x.reth_r_key = (uint32_t)rk_test_rand();
	x.reth_dma_len = len;
	x.atmeth_va = rk_test_rand();
	x.atmeth_r_key = (uint32_t)rk_test_rand();
	x.ieth_r_key = (uint32_t)rk_test_rand();
	x.deth_q_key = (uint32_t)rk_test_rand();
	rk_test_fill(payload, len);
	n = rk_build_rocev2(f, cap, &a, &b, &x, payload, len);
	assert_true(n > 0);
	*l3 = RK_ETH_HLEN + (a.vlan ? RK_VLAN_HLEN : 0);
	return (uint32_t)n;
}

/* A field to change: offset from the frame start and size; 0 size if absent. */
static void
pick_field(const uint8_t *f, uint32_t len, uint32_t l3, uint32_t *off, uint32_t *n)
{
	bool v4 = (f[l3] >> 4) == 4;
	uint32_t l4 = l3 + (v4 ? RK_IPV4_HLEN : RK_IPV6_HLEN), bth = l4 + RK_UDP_HLEN;
	const struct rk_opcode_info *oi = rk_opcode_info(f[bth]);
	uint32_t pay = bth + oi->hdr_len, icrc = len - RK_ICRC_LEN;
	uint32_t ext = oi->hdrs & (1u << RK_HDR_RETH)     ? oi->off[RK_HDR_RETH]
		       : oi->hdrs & (1u << RK_HDR_ATMETH) ? oi->off[RK_HDR_ATMETH]
							  : 0;

	*n = 0;
	switch (rk_test_rand() % 13) {
	case 0: *off = bth + 9; *n = 3; break;                     /* PSN */
	case 1: *off = bth + 5; *n = 3; break;                     /* DestQP */
	case 2: *off = l4; *n = 2; break;                          /* UDP source port */
	case 3: *off = l3 + (v4 ? 12 : 8); *n = v4 ? 4 : 8; break; /* source address */
	case 4: *off = l3 + (v4 ? 16 : 32); *n = v4 ? 4 : 8; break; /* destination address */
	case 5: if (ext) { *off = bth + ext + 8; *n = 4; } break;  /* R_Key */
	case 6: if (ext) { *off = bth + ext; *n = 8; } break;      /* VA */
	case 7: if (icrc > pay) {                                  /* payload bytes */
			*n = 1 + (uint32_t)(rk_test_rand() % 8);
			if (*n > icrc - pay)
				*n = icrc - pay;
			*off = pay + (uint32_t)(rk_test_rand() % (icrc - pay - *n + 1));
		}
		break;
	case 8: *off = l3 + (v4 ? 8 : 7); *n = 1; break;           /* TTL / Hop Limit: masked */
	case 9: *off = l3 + 1; *n = v4 ? 1 : 3; break;            /* TOS / TClass+flow: masked */
	case 10: *off = bth + 4; *n = 1; break;                    /* FECN, BECN: masked */
	case 11: if (v4) { *off = l3 + 4; *n = 2; } break;         /* IPv4 Identification */
	default: *off = bth + 2; *n = 2; break;                    /* P_Key */
	}
}

static void
check_frame(const uint8_t *f, uint32_t len, uint32_t l3)
{
	struct rk_pkt pkt;
	uint32_t carried = rk_get_le32(f + len - RK_ICRC_LEN);

	assert_int_equal(carried, rk_rocev2_icrc(f + l3, len - RK_ICRC_LEN - l3));
	assert_int_equal(rk_pkt_parse(&pkt, f, len, len, RK_LINK_ETHERNET, NULL), 0);
	assert_true(rk_pkt_has_bth(&pkt));
	assert_int_equal(pkt.icrc_status, RK_ICRC_GOOD);
	if ((f[l3] >> 4) == 4)
		assert_true(rk_ipv4_csum_ok(f + l3));
}

/* Each change patched with rk_gen_icrc_patch() and with prepared tables. */
static void
test_incremental_equals_full(void **state)
{
	static uint8_t f[2048];
	unsigned int masked_checked = 0;

	(void)state;
	rk_test_seed();
	for (int tpl = 0; tpl < 1500; tpl++) {
		uint32_t l3, len = random_frame(f, sizeof(f), &l3);
		struct rk_gen_icrc_layout lay;
		uint32_t icrc = rk_get_le32(f + len - RK_ICRC_LEN);

		assert_int_equal(rk_gen_icrc_layout_init(&lay, f + l3, len - RK_ICRC_LEN - l3), 0);
		check_frame(f, len, l3);
		for (int var = 0; var < 6; var++) {
			uint32_t off, n, was = icrc;
			uint8_t old[8], word_old[10];
			uint32_t wlo, whi;
			struct rk_gen_icrc_field fld;
			bool v4 = lay.ip_version == 4;

			pick_field(f, len, l3, &off, &n);
			if (n == 0)
				continue;
			wlo = off & ~1u;
			whi = (off + n + 1) & ~1u;
			memcpy(old, f + off, n);
			memcpy(word_old, f + wlo, whi - wlo);
			assert_int_equal(rk_gen_icrc_field_init(&fld, &lay, off - l3, n), 0);
			rk_test_fill(f + off, n);
			icrc = rk_gen_icrc_patch(&lay, icrc, off - l3, old, f + off, n);
			assert_int_equal(rk_gen_icrc_field_update(&fld, was, old, f + off), icrc);
			rk_gen_icrc_field_fini(&fld);
			if (v4 && off < l3 + RK_IPV4_HLEN && off + n > l3) {
				uint8_t *ip = f + l3;
				uint32_t lo = wlo < l3 ? l3 : wlo;

				rk_ipv4_set_hdr_csum(ip, rk_gen_csum_replace(rk_ipv4_hdr_csum(ip),
									     word_old + (lo - wlo),
									     f + lo, whi - lo));
			}
			if (rk_gen_icrc_keep(&lay, off - l3) == 0 && icrc == was)
				masked_checked++;
			rk_put_le32(f + len - RK_ICRC_LEN, icrc);
			check_frame(f, len, l3);
		}
	}
	/* Masked fields were changed and left the ICRC alone. */
	assert_true(masked_checked > 100);
}

/* RFC 1624 against a recomputed checksum, for any word of the header. */
static void
test_csum_replace(void **state)
{
	uint8_t ip[20], old[20];

	(void)state;
	for (int r = 0; r < 5000; r++) {
		uint32_t w = (uint32_t)(rk_test_rand() % 10) * 2, n;

		rk_test_fill(ip, sizeof(ip));
		ip[0] = 0x45;
		rk_ipv4_fill_csum(ip);
		memcpy(old, ip, sizeof(ip));
		if (w == 10)
			w = 12;
		n = 2 * (1 + (uint32_t)(rk_test_rand() % ((20 - w) / 2)));
		if (w < 10 && w + n > 10)
			n = 10 - w;
		rk_test_fill(ip + w, n);
		if (w == 0)
			ip[0] = 0x45;
		rk_ipv4_set_hdr_csum(ip, rk_gen_csum_replace(rk_ipv4_hdr_csum(old), old + w, ip + w, n));
		assert_int_equal(rk_ipv4_hdr_csum(ip), rk_ipv4_csum(ip));
	}
}

/* Changes outside the covered bytes (the ICRC itself) leave it alone; bad layouts refused. */
static void
test_edges(void **state)
{
	struct rk_gen_icrc_layout lay;
	struct rk_gen_icrc_field fld;
	uint8_t ip[64] = { 0x45 }, a[4] = { 0 }, b[4] = { 1, 2, 3, 4 };

	(void)state;
	assert_int_equal(rk_gen_icrc_layout_init(&lay, ip, 60), 0);
	assert_int_equal(rk_gen_icrc_patch(&lay, 0x12345678, 60, a, b, 4), 0x12345678);
	assert_int_equal(rk_gen_icrc_field_init(&fld, &lay, 60, 4), 0);
	assert_null(fld.tab);
	assert_int_equal(rk_gen_icrc_field_update(&fld, 7, a, b), 7);
	assert_int_equal(rk_gen_icrc_field_init(&fld, &lay, 0, 9), -EINVAL);
	assert_int_equal(rk_gen_icrc_layout_init(&lay, ip, 39), -EINVAL);
	ip[0] = 0x55;
	assert_int_equal(rk_gen_icrc_layout_init(&lay, ip, 60), -EINVAL);
	ip[0] = 0x44;
	assert_int_equal(rk_gen_icrc_layout_init(&lay, ip, 60), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shift_operator),
		cmocka_unit_test(test_incremental_equals_full),
		cmocka_unit_test(test_csum_replace),
		cmocka_unit_test(test_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
