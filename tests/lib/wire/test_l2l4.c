/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ethernet, 802.1Q, IPv4, IPv6, UDP and TCP headers: accessors agree with
 * the field tables and keep their neighbours, the IPv4 header checksum,
 * and the header-stack builders (every field as given, read back by the
 * parser).
 */
#include "rk_test.h"

#include <errno.h>

#include "rk_field.h"
#include "rk_field_table.h"

#include "rk_build.h"
#include "rk_eth.h"
#include "rk_ipv4.h"
#include "rk_ipv6.h"
#include "rk_pkt.h"
#include "rk_tcp_hdr.h"
#include "rk_udp.h"

/* get/set pairs over uint64_t for the table helper. */
#define ACC(h, k) \
	static uint64_t get_##h##_##k(const uint8_t *p) { return rk_##h##_##k(p); } \
	static void set_##h##_##k(uint8_t *p, uint64_t v) \
	{ rk_##h##_set_##k(p, (typeof(rk_##h##_##k(p)))v); }
ACC(eth, ethertype)
ACC(vlan, pcp) ACC(vlan, dei) ACC(vlan, vid) ACC(vlan, ethertype)
ACC(ipv4, version) ACC(ipv4, ihl) ACC(ipv4, dscp) ACC(ipv4, ecn) ACC(ipv4, total_len)
ACC(ipv4, id) ACC(ipv4, reserved) ACC(ipv4, df) ACC(ipv4, mf) ACC(ipv4, frag_off)
ACC(ipv4, ttl) ACC(ipv4, protocol) ACC(ipv4, hdr_csum)
ACC(ipv6, version) ACC(ipv6, dscp) ACC(ipv6, ecn) ACC(ipv6, flow_label)
ACC(ipv6, payload_len) ACC(ipv6, next_header) ACC(ipv6, hop_limit)
ACC(udp, src_port) ACC(udp, dst_port) ACC(udp, len) ACC(udp, csum)
ACC(tcp, src_port) ACC(tcp, dst_port) ACC(tcp, seq) ACC(tcp, ack_num) ACC(tcp, doff)
ACC(tcp, reserved) ACC(tcp, cwr) ACC(tcp, ece) ACC(tcp, urg) ACC(tcp, ack) ACC(tcp, psh)
ACC(tcp, rst) ACC(tcp, syn) ACC(tcp, fin) ACC(tcp, window) ACC(tcp, csum) ACC(tcp, urg_ptr)
#undef ACC

/* Addresses: copied as bytes, read through the table as integers. */
static uint64_t get_eth_dst(const uint8_t *p) { uint8_t m[6]; rk_eth_dst(p, m); return rk_get_be64((const uint8_t[8]){ 0, 0, m[0], m[1], m[2], m[3], m[4], m[5] }); }
static void set_eth_dst(uint8_t *p, uint64_t v) { uint8_t b[8]; rk_put_be64(b, v); rk_eth_set_dst(p, b + 2); }
static uint64_t get_eth_src(const uint8_t *p) { uint8_t m[6]; rk_eth_src(p, m); return rk_get_be64((const uint8_t[8]){ 0, 0, m[0], m[1], m[2], m[3], m[4], m[5] }); }
static void set_eth_src(uint8_t *p, uint64_t v) { uint8_t b[8]; rk_put_be64(b, v); rk_eth_set_src(p, b + 2); }
static uint64_t get_ipv4_src(const uint8_t *p) { return rk_get_be32(rk_ipv4_src(p)); }
static void set_ipv4_src(uint8_t *p, uint64_t v) { uint8_t b[4]; rk_put_be32(b, (uint32_t)v); rk_ipv4_set_src(p, b); }
static uint64_t get_ipv4_dst(const uint8_t *p) { return rk_get_be32(rk_ipv4_dst(p)); }
static void set_ipv4_dst(uint8_t *p, uint64_t v) { uint8_t b[4]; rk_put_be32(b, (uint32_t)v); rk_ipv4_set_dst(p, b); }

#define A(h, k, name) { name, get_##h##_##k, set_##h##_##k }
static const struct acc eth_acc[] = {
	A(eth, dst, "dst"), A(eth, src, "src"), A(eth, ethertype, "ethertype"),
};
static const struct acc vlan_acc[] = {
	A(vlan, pcp, "PCP"), A(vlan, dei, "DEI"), A(vlan, vid, "VID"),
	A(vlan, ethertype, "ethertype"),
};
static const struct acc ipv4_acc[] = {
	A(ipv4, version, "version"), A(ipv4, ihl, "ihl"), A(ipv4, dscp, "DSCP"),
	A(ipv4, ecn, "ECN"), A(ipv4, total_len, "total_len"), A(ipv4, id, "id"),
	A(ipv4, reserved, "reserved"), A(ipv4, df, "DF"), A(ipv4, mf, "MF"),
	A(ipv4, frag_off, "frag_off"), A(ipv4, ttl, "ttl"), A(ipv4, protocol, "protocol"),
	A(ipv4, hdr_csum, "hdr_csum"), A(ipv4, src, "src"), A(ipv4, dst, "dst"),
};
static const struct acc ipv6_acc[] = {
	A(ipv6, version, "version"), A(ipv6, dscp, "DSCP"), A(ipv6, ecn, "ECN"),
	A(ipv6, flow_label, "flow_label"), A(ipv6, payload_len, "payload_len"),
	A(ipv6, next_header, "next_header"), A(ipv6, hop_limit, "hop_limit"),
};
static const struct acc udp_acc[] = {
	A(udp, src_port, "src_port"), A(udp, dst_port, "dst_port"), A(udp, len, "len"),
	A(udp, csum, "csum"),
};
static const struct acc tcp_acc[] = {
	A(tcp, src_port, "src_port"), A(tcp, dst_port, "dst_port"), A(tcp, seq, "seq"),
	A(tcp, ack_num, "ack_num"), A(tcp, doff, "doff"), A(tcp, reserved, "reserved"),
	A(tcp, cwr, "CWR"), A(tcp, ece, "ECE"), A(tcp, urg, "URG"), A(tcp, ack, "ACK"),
	A(tcp, psh, "PSH"), A(tcp, rst, "RST"), A(tcp, syn, "SYN"), A(tcp, fin, "FIN"),
	A(tcp, window, "window"), A(tcp, csum, "csum"), A(tcp, urg_ptr, "urg_ptr"),
};
#undef A
#define N(a) (sizeof(a) / sizeof((a)[0]))

static void
test_accessors_match_tables(void **state)
{
	(void)state;
	accessor_test(&rk_eth_desc, eth_acc, N(eth_acc));
	accessor_test(&rk_vlan_desc, vlan_acc, N(vlan_acc));
	accessor_test(&rk_ipv4_desc, ipv4_acc, N(ipv4_acc));
	accessor_test(&rk_ipv6_desc, ipv6_acc, N(ipv6_acc));
	accessor_test(&rk_udp_desc, udp_acc, N(udp_acc));
	accessor_test(&rk_tcp_desc, tcp_acc, N(tcp_acc));
}

/* Every bit owned by exactly one field; set/get of each keeps the rest. */
static void
test_tables_cover_and_isolate(void **state)
{
	static const struct rk_header_desc *const d[] = {
		&rk_eth_desc, &rk_vlan_desc, &rk_ipv4_desc, &rk_ipv6_desc, &rk_udp_desc,
		&rk_tcp_desc,
	};

	(void)state;
	for (size_t i = 0; i < N(d); i++) {
		coverage_test(d[i], true);
		table_test(d[i]);
	}
}

/* Whole-byte and derived accessors agree with the fields they span. */
static void
test_combined_accessors(void **state)
{
	uint8_t ip[RK_IPV6_HLEN], t[RK_VLAN_HLEN], tcp[RK_TCP_HLEN];

	(void)state;
	for (int r = 0; r < 200; r++) {
		rk_test_fill(ip, sizeof(ip));
		assert_int_equal(rk_ipv4_tos(ip), rk_ipv4_dscp(ip) << 2 | rk_ipv4_ecn(ip));
		assert_int_equal(rk_ipv4_hlen(ip), rk_ipv4_ihl(ip) * 4u);
		assert_int_equal(rk_ipv4_frag(ip), rk_ipv4_reserved(ip) << 15 | rk_ipv4_df(ip) << 14 |
						   rk_ipv4_mf(ip) << 13 | rk_ipv4_frag_off(ip));
		assert_int_equal(rk_ipv6_tclass(ip), rk_ipv6_dscp(ip) << 2 | rk_ipv6_ecn(ip));
		rk_test_fill(t, sizeof(t));
		assert_int_equal(rk_vlan_tci(t),
				 rk_vlan_make_tci(rk_vlan_pcp(t), rk_vlan_dei(t), rk_vlan_vid(t)));
		rk_test_fill(tcp, sizeof(tcp));
		assert_int_equal(rk_tcp_hlen(tcp), rk_tcp_doff(tcp) * 4u);
		assert_int_equal(rk_tcp_flags(tcp),
				 rk_tcp_cwr(tcp) << 7 | rk_tcp_ece(tcp) << 6 | rk_tcp_urg(tcp) << 5 |
				 rk_tcp_ack(tcp) << 4 | rk_tcp_psh(tcp) << 3 | rk_tcp_rst(tcp) << 2 |
				 rk_tcp_syn(tcp) << 1 | rk_tcp_fin(tcp));
	}
	/* Marking CE keeps the DSCP; the IPv6 one keeps the flow label too. */
	memset(ip, 0, sizeof(ip));
	rk_ipv4_set_dscp(ip, 26);
	rk_ipv4_set_ecn(ip, RK_ECN_ECT0);
	rk_ipv4_set_ecn(ip, RK_ECN_CE);
	assert_int_equal(ip[1], 26 << 2 | 3);
	rk_ipv6_set_word0(ip, 46, RK_ECN_ECT1, 0xabcde);
	assert_int_equal(rk_get_be32(ip), 0x6b9abcde);
	rk_ipv6_set_ecn(ip, RK_ECN_CE);
	assert_int_equal(rk_get_be32(ip), 0x6bbabcde);
	assert_int_equal(rk_ipv6_dscp(ip), 46);
	assert_int_equal(rk_ipv6_flow_label(ip), 0xabcde);
}

/* RFC 1071 sum of a known header (the checksum 0xb861 is its well-known value). */
static void
test_ipv4_csum(void **state)
{
	uint8_t ip[24] = { 0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
			   0x12, 0x34, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7 };

	(void)state;
	assert_int_equal(rk_ipv4_csum(ip), 0xb861);     /* the carried value is ignored */
	assert_false(rk_ipv4_csum_ok(ip));
	rk_ipv4_fill_csum(ip);
	assert_int_equal(rk_ipv4_hdr_csum(ip), 0xb861);
	assert_true(rk_ipv4_csum_ok(ip));
	assert_int_equal(rk_inet_csum_fold(ip, 20), 0xffff);
	/* IHL counts options: 24 bytes summed, not 20. */
	rk_ipv4_set_ihl(ip, 6);
	ip[20] = 0x01;
	ip[21] = 0x02;
	rk_ipv4_fill_csum(ip);
	assert_int_equal(rk_inet_csum_fold(ip, 24), 0xffff);
	assert_int_not_equal(rk_inet_csum_fold(ip, 20), 0xffff);
	/* Random headers: the stored value always sums to all ones. */
	for (int r = 0; r < 500; r++) {
		rk_test_fill(ip, sizeof(ip));
		rk_ipv4_set_ihl(ip, 5);
		rk_ipv4_fill_csum(ip);
		assert_int_equal(rk_inet_csum_fold(ip, 20), 0xffff);
	}
}

static void
test_eth_write(void **state)
{
	static const uint8_t dst[6] = { 1, 2, 3, 4, 5, 6 }, src[6] = { 7, 8, 9, 10, 11, 12 };
	uint8_t f[32];

	(void)state;
	memset(f, 0xee, sizeof(f));
	assert_int_equal(rk_eth_write(f, dst, src, 0, 0x1234, RK_ETHERTYPE_IPV6), RK_ETH_HLEN);
	assert_memory_equal(f, dst, 6);
	assert_memory_equal(f + 6, src, 6);
	assert_int_equal(rk_eth_ethertype(f), 0x86dd);
	assert_int_equal(f[RK_ETH_HLEN], 0xee);
	assert_int_equal(rk_eth_write(f, dst, src, 1, rk_vlan_make_tci(5, 1, 0x123),
				      RK_ETHERTYPE_IPV4), RK_ETH_HLEN + RK_VLAN_HLEN);
	assert_int_equal(rk_eth_ethertype(f), RK_ETHERTYPE_VLAN);
	assert_int_equal(rk_vlan_tci(f + RK_ETH_HLEN), 0xb123);
	assert_int_equal(rk_vlan_pcp(f + RK_ETH_HLEN), 5);
	assert_int_equal(rk_vlan_dei(f + RK_ETH_HLEN), 1);
	assert_int_equal(rk_vlan_vid(f + RK_ETH_HLEN), 0x123);
	assert_int_equal(rk_vlan_ethertype(f + RK_ETH_HLEN), RK_ETHERTYPE_IPV4);
	assert_int_equal(f[RK_ETH_HLEN + RK_VLAN_HLEN], 0xee);
	assert_true(rk_ethertype_is_vlan(RK_ETHERTYPE_QINQ));
	assert_false(rk_ethertype_is_vlan(RK_ETHERTYPE_IPV4));
}

static struct rk_l2l4_hdr
every_field(uint8_t ip_version)
{
	struct rk_l2l4_hdr h = {
		.dst_mac = { 0x02, 0, 0, 0, 0, 0xbb }, .src_mac = { 0x02, 0, 0, 0, 0, 0xaa },
		.vlan = true, .pcp = 3, .dei = 1, .vid = 0x321, .ip_version = ip_version,
		.dscp = 26, .ecn = RK_ECN_CE, .ttl = 7, .flow_label = 0x12345, .df = true,
		.ip_id = 0x4242, .src_port = 0xc123, .dst_port = RK_ROCEV2_UDP_PORT,
	};

	for (int i = 0; i < 16; i++) {
		h.src_ip[i] = (uint8_t)(0x20 + i);
		h.dst_ip[i] = (uint8_t)(0x40 + i);
	}
	return h;
}

/* The builders write every field as given; the parser reads each back. */
static void
test_build_udp_headers(void **state)
{
	uint8_t f[256];
	struct rk_pkt pkt;

	(void)state;
	for (uint8_t v = 4; v <= 6; v += 2) {
		struct rk_l2l4_hdr h = every_field(v);
		uint32_t l3 = v == 4 ? RK_IPV4_HLEN : RK_IPV6_HLEN;
		int off;

		memset(f, 0xee, sizeof(f));
		off = rk_build_udp_headers(f, sizeof(f), &h, 100);
		assert_int_equal(off, RK_ETH_HLEN + RK_VLAN_HLEN + l3 + RK_UDP_HLEN);
		assert_int_equal(f[off], 0xee);         /* nothing past the headers */
		memset(f + off, 0, 100);
		assert_int_equal(rk_pkt_parse(&pkt, f, (uint32_t)off + 100, (uint32_t)off + 100,
					      RK_LINK_ETHERNET, NULL), 0);
		assert_memory_equal(pkt.dst_mac, h.dst_mac, 6);
		assert_memory_equal(pkt.src_mac, h.src_mac, 6);
		assert_int_equal(pkt.n_vlan, 1);
		assert_int_equal(pkt.vlan_tci[0], rk_vlan_make_tci(3, 1, 0x321));
		assert_int_equal(pkt.ip_version, v);
		assert_int_equal(pkt.dscp, 26);
		assert_int_equal(pkt.ecn, RK_ECN_CE);
		assert_int_equal(pkt.ttl, 7);
		assert_int_equal(pkt.ip_proto, RK_IPPROTO_UDP);
		assert_int_equal(pkt.src_port, 0xc123);
		assert_int_equal(pkt.dst_port, RK_ROCEV2_UDP_PORT);
		assert_int_equal(pkt.l4_payload_len, 100);
		assert_int_equal(rk_udp_len(f + off - RK_UDP_HLEN), 108);
		assert_int_equal(rk_udp_csum(f + off - RK_UDP_HLEN), 0);
		if (v == 4) {
			const uint8_t *ip = f + RK_ETH_HLEN + RK_VLAN_HLEN;

			assert_memory_equal(pkt.src_ip + 12, h.src_ip + 12, 4);
			assert_memory_equal(pkt.dst_ip + 12, h.dst_ip + 12, 4);
			assert_int_equal(rk_ipv4_total_len(ip), 20 + 8 + 100);
			assert_int_equal(rk_ipv4_id(ip), 0x4242);
			assert_int_equal(rk_ipv4_frag(ip), RK_IPV4_DF);
			assert_true(rk_ipv4_csum_ok(ip));
		} else {
			assert_memory_equal(pkt.src_ip, h.src_ip, 16);
			assert_memory_equal(pkt.dst_ip, h.dst_ip, 16);
			assert_int_equal(pkt.flow_label, 0x12345);
			assert_int_equal(rk_ipv6_payload_len(f + RK_ETH_HLEN + RK_VLAN_HLEN), 108);
		}
	}
}

static void
test_build_ip_headers_tcp_and_errors(void **state)
{
	struct rk_l2l4_hdr h = every_field(4);
	uint8_t f[128];
	struct rk_pkt pkt;
	int off;

	(void)state;
	h.vlan = false;
	off = rk_build_ip_headers(f, sizeof(f), &h, RK_IPPROTO_TCP, RK_TCP_HLEN);
	assert_int_equal(off, RK_ETH_HLEN + RK_IPV4_HLEN);
	memset(f + off, 0, RK_TCP_HLEN);
	rk_tcp_set_src_port(f + off, 1000);
	rk_tcp_set_dst_port(f + off, 2000);
	rk_tcp_set_seq(f + off, 0x01020304);
	rk_tcp_set_doff(f + off, 5);
	rk_tcp_set_syn(f + off, 1);
	assert_int_equal(rk_pkt_parse(&pkt, f, (uint32_t)off + RK_TCP_HLEN,
				      (uint32_t)off + RK_TCP_HLEN, RK_LINK_ETHERNET, NULL), 0);
	assert_int_equal(pkt.kind, RK_PKT_TCP);
	assert_int_equal(pkt.tcp_seq, 0x01020304);
	assert_int_equal(pkt.tcp_flags, RK_TCP_SYN);
	assert_int_equal(pkt.src_port, 1000);

	assert_int_equal(rk_build_ip_headers(f, RK_ETH_HLEN + RK_IPV4_HLEN - 1, &h, 6, 0), -ENOSPC);
	assert_int_equal(rk_build_udp_headers(f, RK_ETH_HLEN + RK_IPV4_HLEN + 7, &h, 0), -ENOSPC);
	assert_int_equal(rk_build_ip_headers(f, sizeof(f), &h, 6, 0xffff), -EMSGSIZE);
	assert_int_equal(rk_build_udp_headers(f, sizeof(f), &h, 0xffff - 7), -EMSGSIZE);
	h.ip_version = 6;
	assert_int_equal(rk_build_ip_headers(f, sizeof(f), &h, 6, 0xffff), RK_ETH_HLEN + RK_IPV6_HLEN);
	h.ip_version = 5;
	assert_int_equal(rk_build_udp_headers(f, sizeof(f), &h, 0), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables_cover_and_isolate),
		cmocka_unit_test(test_accessors_match_tables),
		cmocka_unit_test(test_combined_accessors),
		cmocka_unit_test(test_ipv4_csum),
		cmocka_unit_test(test_eth_write),
		cmocka_unit_test(test_build_udp_headers),
		cmocka_unit_test(test_build_ip_headers_tcp_and_errors),
	};

	rk_test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
