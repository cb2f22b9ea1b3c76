/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk_pkt_parse on frames built by rk_build_rocev2: every RoCE opcode decodes
 * with no findings; each malformation raises exactly its finding.
 */
#include "rk_test.h"

#include <errno.h>

#include "rk_build.h"
#include "rk_bth.h"
#include "rk_byteorder.h"
#include "rk_crc.h"
#include "rk_pkt.h"
#include "rk_xeth.h"

static struct rk_roce_addr
addr(uint8_t ipv, bool vlan)
{
	struct rk_roce_addr a = {
		.dst_mac = { 0x52, 0x54, 0, 0x18, 0, 0x0b },
		.src_mac = { 0x52, 0x54, 0, 0x18, 0, 0x64 },
		.vlan = vlan, .vlan_tci = 0x6005, .ip_version = ipv, .df = true,
		.ecn = 2, .dscp = 26, .src_port = 0xd2a1,
	};
	uint8_t v4s[4] = { 198, 18, 0, 100 }, v4d[4] = { 198, 18, 0, 11 };

	if (ipv == 4) {
		memcpy(a.src_ip + 12, v4s, 4);
		memcpy(a.dst_ip + 12, v4d, 4);
	} else {
		a.src_ip[0] = 0x20;
		a.src_ip[1] = 0x01;
		a.src_ip[15] = 1;
		a.dst_ip[0] = 0x20;
		a.dst_ip[1] = 0x01;
		a.dst_ip[15] = 2;
		a.flow_label = 0xabcde;
	}
	return a;
}

static uint32_t
payload_for(const struct rk_opcode_info *op)
{
	if (!(op->flags & RK_OPF_PAYLOAD))
		return 0;
	if (op->flags & RK_OPF_ATOMIC_WRITE)
		return 8;
	if ((op->flags & (RK_OPF_FIRST | RK_OPF_MIDDLE)) && !(op->flags & RK_OPF_LAST))
		return 1024;
	return 37; /* needs 3 pad bytes */
}

static void
build(uint8_t *buf, int *len, uint8_t ipv, bool vlan, uint8_t opcode, uint32_t plen,
      struct rk_xeth_fields *x)
{
	struct rk_roce_addr a = addr(ipv, vlan);
	struct rk_bth_fields b = { .opcode = opcode, .p_key = 0xffff, .dest_qp = 0x123456,
				   .ack_req = 1, .psn = 0xfffffe };
	uint8_t pl[8192];

	for (uint32_t i = 0; i < plen && i < sizeof(pl); i++)
		pl[i] = (uint8_t)(i * 7 + 1);
	if (opcode == RK_OP_CNP) {
		b.psn = 0;
		b.ack_req = 0;
	}
	*len = rk_build_rocev2(buf, 9000, &a, &b, x, pl, plen);
	assert_true(*len > 0);
}

static void
assert_no_findings(const struct rk_pkt *p)
{
	for (unsigned int i = 0; i < p->findings.count; i++)
		fail_msg("unexpected finding %s", rk_finding_info(p->findings.list[i].id)->id);
}

static void
test_every_roce_opcode_clean(void **state)
{
	struct rk_xeth_fields x = {
		.deth_q_key = 0x11111111, .deth_src_qp = 0x42, .xrceth_xrc_srq = 7,
		.reth_va = 0x7f0000001000ull, .reth_r_key = 0xabcd, .reth_dma_len = 37,
		.atmeth_va = 0x1000, .atmeth_r_key = 5, .atmeth_swap_add = 9,
		.atmeth_compare = 10, .aeth_syndrome = 0x1f, .aeth_msn = 77,
		.atmack_orig_rem_dt = 0x55, .imm = 0xdeadbeef, .ieth_r_key = 0x99,
	};
	int checked = 0;

	(void)state;
	for (int op = 0; op < 256; op++) {
		const struct rk_opcode_info *oi = rk_opcode_info((uint8_t)op);

		if (!(oi->flags & RK_OPF_VALID) || oi->transport == RK_TR_RD)
			continue;
		for (int v = 0; v < 4; v++) {
			uint8_t buf[9000];
			struct rk_pkt p;
			uint32_t plen = payload_for(oi);
			uint8_t ipv = v & 1 ? 6 : 4;
			int len;

			build(buf, &len, ipv, v & 2, (uint8_t)op, plen, &x);
			assert_int_equal(rk_pkt_parse(&p, buf, (uint32_t)len, (uint32_t)len,
						      RK_LINK_ETHERNET, NULL), 0);
			assert_no_findings(&p);
			assert_int_equal(p.kind, RK_PKT_ROCEV2);
			assert_true(rk_pkt_has_bth(&p));
			assert_int_equal(p.opcode, op);
			assert_int_equal(p.ip_version, ipv);
			assert_int_equal(p.n_vlan, v & 2 ? 1 : 0);
			assert_int_equal(p.ecn, 2);
			assert_int_equal(p.dscp, 26);
			assert_int_equal(p.dst_port, 4791);
			assert_int_equal(p.src_port, 0xd2a1);
			assert_int_equal(p.payload_len, plen);
			assert_int_equal(p.pad_cnt, (4 - (plen & 3)) & 3);
			assert_int_equal(p.icrc_status, RK_ICRC_GOOD);
			assert_int_equal(rk_bth_dest_qp(rk_pkt_bth(&p)), 0x123456);
			if (op != RK_OP_CNP)
				assert_int_equal(rk_bth_psn(rk_pkt_bth(&p)), 0xfffffe);
			if (oi->hdrs & (1u << RK_HDR_RETH)) {
				const uint8_t *h = rk_pkt_xeth(&p, RK_HDR_RETH);

				assert_true(rk_reth_va(h) == 0x7f0000001000ull);
				assert_int_equal(rk_reth_r_key(h), 0xabcd);
				assert_int_equal(rk_reth_dma_len(h), 37);
			} else {
				assert_null(rk_pkt_xeth(&p, RK_HDR_RETH));
			}
			if (oi->hdrs & (1u << RK_HDR_AETH))
				assert_int_equal(rk_aeth_msn(rk_pkt_xeth(&p, RK_HDR_AETH)), 77);
			if (oi->hdrs & (1u << RK_HDR_IMMDT))
				assert_int_equal(rk_immdt_imm(rk_pkt_xeth(&p, RK_HDR_IMMDT)), 0xdeadbeef);
			if (oi->hdrs & (1u << RK_HDR_DETH))
				assert_int_equal(rk_deth_src_qp(rk_pkt_xeth(&p, RK_HDR_DETH)), 0x42);
			checked++;
		}
	}
	assert_int_equal(checked, (85 - 22) * 4);
}

/*
 * rk_rocev2_hdrs_len() ends where the full parser puts the payload, for
 * every opcode over IPv4 and IPv6, tagged or not; inside the headers it
 * gives what there is, before the BTH nothing; not RoCEv2, nothing.
 */
static void
test_hdrs_len_is_payload_offset(void **state)
{
	struct rk_xeth_fields x = { .reth_dma_len = 37 };
	int checked = 0;

	(void)state;
	for (int op = 0; op < 256; op++) {
		const struct rk_opcode_info *oi = rk_opcode_info((uint8_t)op);

		if (!(oi->flags & RK_OPF_VALID) || oi->transport == RK_TR_RD)
			continue;
		for (int v = 0; v < 4; v++) {
			uint8_t buf[9000];
			struct rk_pkt p;
			int len;

			build(buf, &len, v & 1 ? 6 : 4, v & 2, (uint8_t)op, payload_for(oi), &x);
			assert_int_equal(rk_pkt_parse(&p, buf, (uint32_t)len, (uint32_t)len,
						      RK_LINK_ETHERNET, NULL), 0);
			assert_int_equal(rk_rocev2_hdrs_len(buf, (uint32_t)len), p.payload_off);
			/* Cut inside the transport headers: all of it; before the BTH: 0. */
			for (uint32_t cut = 0; cut < p.payload_off; cut++)
				assert_int_equal(rk_rocev2_hdrs_len(buf, cut),
						 cut >= p.bth_off ? cut : 0);
			checked++;
		}
	}
	assert_int_equal(checked, (85 - 22) * 4);

	uint8_t buf[9000];
	int len;

	build(buf, &len, 4, false, RK_OP_RDMA_WRITE_FIRST, 64, &x);
	assert_int_equal(rk_rocev2_hdrs_len(buf, (uint32_t)len), 14 + 20 + 8 + 12 + 16);
	/* An undefined opcode: the BTH is all that is known. */
	buf[14 + 20 + 8] = 0x19;
	assert_int_equal(rk_rocev2_hdrs_len(buf, (uint32_t)len), 14 + 20 + 8 + 12);
	/* Another UDP port, then TCP, then an ARP EtherType: not RoCEv2. */
	buf[14 + 20 + 3] = 0xb8;
	assert_int_equal(rk_rocev2_hdrs_len(buf, (uint32_t)len), 0);
	build(buf, &len, 4, false, RK_OP_RDMA_WRITE_FIRST, 64, &x);
	buf[14 + 9] = 6;
	assert_int_equal(rk_rocev2_hdrs_len(buf, (uint32_t)len), 0);
	build(buf, &len, 4, false, RK_OP_RDMA_WRITE_FIRST, 64, &x);
	buf[12] = 0x08;
	buf[13] = 0x06;
	assert_int_equal(rk_rocev2_hdrs_len(buf, (uint32_t)len), 0);
	/* IPv4 with 4 bytes of options: the UDP header moves with them. */
	build(buf, &len, 4, false, RK_OP_RDMA_WRITE_FIRST, 64, &x);
	memmove(buf + 14 + 24, buf + 14 + 20, (size_t)len - 34);
	memset(buf + 14 + 20, 1, 4);    /* NOP options */
	buf[14] = 0x46;
	assert_int_equal(rk_rocev2_hdrs_len(buf, (uint32_t)len + 4), 14 + 24 + 8 + 12 + 16);
	/* A header length below 20 is no IPv4 header. */
	buf[14] = 0x44;
	assert_int_equal(rk_rocev2_hdrs_len(buf, (uint32_t)len + 4), 0);
	assert_int_equal(rk_rocev2_hdrs_len(NULL, 100), 0);
}

/* Parse buf and expect exactly the listed findings (in any order). */
static void
expect_findings(const uint8_t *buf, uint32_t caplen, uint32_t wirelen, int n, ...)
{
	struct rk_pkt p;
	va_list ap;

	assert_int_equal(rk_pkt_parse(&p, buf, caplen, wirelen, RK_LINK_ETHERNET, NULL), 0);
	va_start(ap, n);
	for (int i = 0; i < n; i++) {
		enum rk_finding_id id = va_arg(ap, enum rk_finding_id);

		if (!rk_findings_has(&p.findings, id))
			fail_msg("missing finding %s", rk_finding_info(id)->id);
	}
	va_end(ap);
	if (p.findings.count != n) {
		for (unsigned int i = 0; i < p.findings.count; i++)
			print_error("got %s\n", rk_finding_info(p.findings.list[i].id)->id);
		fail_msg("expected %d findings, got %u", n, p.findings.count);
	}
}

/* Mutate, fix the ICRC so only the mutation shows, and expect one finding. */
static void
mutate_expect(uint8_t opcode, uint32_t plen, void (*mut)(uint8_t *bth, struct rk_pkt *p),
	      enum rk_finding_id id)
{
	uint8_t buf[9000];
	struct rk_pkt p;
	int len;

	build(buf, &len, 4, false, opcode, plen, NULL);
	rk_pkt_parse(&p, buf, (uint32_t)len, (uint32_t)len, RK_LINK_ETHERNET, NULL);
	mut(buf + p.bth_off, &p);
	rk_pkt_parse(&p, buf, (uint32_t)len, (uint32_t)len, RK_LINK_ETHERNET, NULL);
	rk_pkt_fix_icrc(&p, buf);
	expect_findings(buf, (uint32_t)len, (uint32_t)len, 1, id);
}

static void m_tver(uint8_t *b, struct rk_pkt *p) { (void)p; rk_bth_set_tver(b, 1); }
static void m_resv7(uint8_t *b, struct rk_pkt *p) { (void)p; rk_bth_set_resv7(b, 0x11); }
static void m_qp0(uint8_t *b, struct rk_pkt *p) { (void)p; rk_bth_set_dest_qp(b, 0); }
static void m_pad_first(uint8_t *b, struct rk_pkt *p) { (void)p; rk_bth_set_pad_cnt(b, 2); }
static void m_op_reserved(uint8_t *b, struct rk_pkt *p) { (void)p; rk_bth_set_opcode(b, 0x19); }
static void m_op_mfr(uint8_t *b, struct rk_pkt *p) { (void)p; rk_bth_set_opcode(b, 0xff); }
static void m_op_rd(uint8_t *b, struct rk_pkt *p) { (void)p; rk_bth_set_opcode(b, 0x44); }
static void m_syn_resv(uint8_t *b, struct rk_pkt *p) { (void)p; b[12] = 0x45; }
static void m_nak5(uint8_t *b, struct rk_pkt *p) { (void)p; b[12] = 0x65; }
static void m_read_len(uint8_t *b, struct rk_pkt *p) { (void)p; rk_reth_set_dma_len(b + 12, 0x80000001u); }
static void m_atomic_va(uint8_t *b, struct rk_pkt *p) { (void)p; rk_atmeth_set_va(b + 12, 0x1004); }
/* A UD SEND to QP1 carries a MAD (BTH 12 + DETH 8, then the MAD). */
static void
gsi_mad(uint8_t *b, uint32_t q_key, uint8_t base_version)
{
	rk_bth_set_dest_qp(b, 1);
	rk_deth_set_q_key(b + 12, q_key);
	b[20] = base_version;
	b[21] = 0x03;   /* SA */
}
static void m_gsi_qkey(uint8_t *b, struct rk_pkt *p) { (void)p; gsi_mad(b, 0x1234, 1); }
static void m_mad_short(uint8_t *b, struct rk_pkt *p) { (void)p; gsi_mad(b, 0x80010000u, 1); }
static void m_mad_version(uint8_t *b, struct rk_pkt *p) { (void)p; gsi_mad(b, 0x80010000u, 2); }
static void m_mad_cut(uint8_t *b, struct rk_pkt *p) { (void)p; rk_bth_set_dest_qp(b, 1); rk_deth_set_q_key(b + 12, 0x80010000u); }
static void m_cnp_psn(uint8_t *b, struct rk_pkt *p) { (void)p; rk_bth_set_psn(b, 5); }

static void
test_bth_mutations(void **state)
{
	(void)state;
	mutate_expect(RK_OP_SEND_ONLY, 40, m_tver, RK_F_BTH_TVER);
	mutate_expect(RK_OP_SEND_ONLY, 40, m_resv7, RK_F_BTH_RESV);
	mutate_expect(RK_OP_SEND_ONLY, 40, m_qp0, RK_F_BTH_DESTQP_ZERO);
	mutate_expect(RK_OP_SEND_FIRST, 1024, m_pad_first, RK_F_BTH_PADCNT);
	mutate_expect(RK_OP_SEND_ONLY, 40, m_op_reserved, RK_F_BTH_OPCODE_RESERVED);
	mutate_expect(RK_OP_SEND_ONLY, 40, m_op_mfr, RK_F_BTH_OPCODE_UNSUPPORTED);
	mutate_expect(RK_OP_RDMA_WRITE_ONLY, 40, m_op_rd, RK_F_BTH_OPCODE_UNSUPPORTED);
	mutate_expect(RK_OP_ACKNOWLEDGE, 0, m_syn_resv, RK_F_AETH_SYNDROME_RESERVED);
	mutate_expect(RK_OP_ACKNOWLEDGE, 0, m_nak5, RK_F_AETH_NAK_RESERVED);
	mutate_expect(RK_OP_RDMA_READ_REQUEST, 0, m_read_len, RK_F_RETH_DMALEN_OVER);
	mutate_expect(RK_OP_FETCH_ADD, 0, m_atomic_va, RK_F_ATOMIC_VA_UNALIGNED);
	mutate_expect(0x64, 256, m_gsi_qkey, RK_F_DETH_GSI_QKEY);
	mutate_expect(0x64, 40, m_mad_short, RK_F_MAD_LENGTH);
	mutate_expect(0x64, 256, m_mad_version, RK_F_MAD_BASE_VERSION);
	mutate_expect(0x64, 20, m_mad_cut, RK_F_MAD_TRUNCATED);
	mutate_expect(RK_OP_CNP, 0, m_cnp_psn, RK_F_CNP_FIELDS);
}

static void
test_payload_byte_flip_is_bad_icrc(void **state)
{
	uint8_t buf[9000];
	int len;

	(void)state;
	build(buf, &len, 4, false, RK_OP_SEND_ONLY, 100, NULL);
	buf[len - 20] ^= 0x01;
	expect_findings(buf, (uint32_t)len, (uint32_t)len, 1, RK_F_ICRC_BAD);
	/* A variant field (TTL, ECN) changed on the path does not break the ICRC. */
	buf[len - 20] ^= 0x01;
	buf[14 + 8] = 3;
	buf[14 + 1] = (uint8_t)(buf[14 + 1] | 3);
	expect_findings(buf, (uint32_t)len, (uint32_t)len, 0);
}

static void
test_truncated_is_not_bad_icrc(void **state)
{
	uint8_t buf[9000];
	int len;

	(void)state;
	build(buf, &len, 4, false, RK_OP_RDMA_WRITE_FIRST, 1024, NULL);
	/* Cut at every length: only frame.truncated, never a CRC or length finding. */
	for (int cut = 0; cut < len; cut++) {
		struct rk_pkt p;

		assert_int_equal(rk_pkt_parse(&p, buf, (uint32_t)cut, (uint32_t)len,
					      RK_LINK_ETHERNET, NULL), 0);
		assert_int_equal(p.findings.count, 1);
		assert_int_equal(p.findings.list[0].id, RK_F_FRAME_TRUNCATED);
		assert_int_not_equal(p.icrc_status, RK_ICRC_BAD);
	}
}

static void
test_udp_payload_shorter_than_bth(void **state)
{
	uint8_t buf[9000];
	int len;

	(void)state;
	build(buf, &len, 4, false, RK_OP_SEND_ONLY, 0, NULL);
	/* Shrink IP and UDP lengths so the UDP payload is 8 bytes. */
	for (uint32_t keep = 0; keep < RK_BTH_LEN + 4; keep++) {
		uint8_t f[9000];
		uint32_t flen = 14 + 20 + 8 + keep;

		memcpy(f, buf, flen);
		rk_put_be16(f + 14 + 2, (uint16_t)(20 + 8 + keep));
		rk_put_be16(f + 14 + 20 + 4, (uint16_t)(8 + keep));
		expect_findings(f, flen, flen, 1, RK_F_BTH_TOO_SHORT);
	}
}

static void
test_headers_too_short_for_opcode(void **state)
{
	uint8_t buf[9000];
	struct rk_pkt p;
	int len;

	(void)state;
	/* An RDMA WRITE Only whose packet ends inside the RETH. */
	build(buf, &len, 4, false, RK_OP_RDMA_WRITE_ONLY, 0, NULL);
	uint32_t flen = 14 + 20 + 8 + 12 + 8 + 4;

	rk_put_be16(buf + 14 + 2, (uint16_t)(flen - 14));
	rk_put_be16(buf + 14 + 20 + 4, (uint16_t)(flen - 14 - 20));
	rk_pkt_parse(&p, buf, flen, flen, RK_LINK_ETHERNET, NULL);
	assert_int_equal(rk_pkt_fix_icrc(&p, buf), 0);
	expect_findings(buf, flen, flen, 1, RK_F_BTH_TOO_SHORT);
}

static void
test_payload_rules(void **state)
{
	uint8_t buf[9000];
	struct rk_pkt p;
	int len;

	(void)state;
	/* ACK carrying 4 payload bytes. */
	build(buf, &len, 4, false, RK_OP_ACKNOWLEDGE, 0, NULL);
	memmove(buf + len, buf + len - 4, 4);
	len += 4;
	rk_put_be16(buf + 14 + 2, (uint16_t)(len - 14));
	rk_put_be16(buf + 14 + 20 + 4, (uint16_t)(len - 34));
	rk_pkt_parse(&p, buf, (uint32_t)len, (uint32_t)len, RK_LINK_ETHERNET, NULL);
	rk_pkt_fix_icrc(&p, buf);
	expect_findings(buf, (uint32_t)len, (uint32_t)len, 1, RK_F_BTH_PAYLOAD_UNEXPECTED);
	/* SEND Only of 5000 bytes: over the 4096 PMTU. */
	build(buf, &len, 4, false, RK_OP_SEND_ONLY, 5000, NULL);
	expect_findings(buf, (uint32_t)len, (uint32_t)len, 1, RK_F_BTH_PAYLOAD_OVER_PMTU);
	/* The same with --pmtu 1024 semantics: 2000 bytes is over. */
	build(buf, &len, 4, false, RK_OP_SEND_ONLY, 2000, NULL);
	rk_pkt_parse(&p, buf, (uint32_t)len, (uint32_t)len, RK_LINK_ETHERNET,
		     &(struct rk_parse_opts){ .check_icrc = true, .pmtu = 1024 });
	assert_true(rk_findings_has(&p.findings, RK_F_BTH_PAYLOAD_OVER_PMTU));
	/* SEND Middle with no payload. */
	build(buf, &len, 4, false, RK_OP_SEND_MIDDLE, 0, NULL);
	expect_findings(buf, (uint32_t)len, (uint32_t)len, 1, RK_F_BTH_PAYLOAD_MISSING);
	/* UDP length disagreeing with IP (CA17-21). */
	build(buf, &len, 4, false, RK_OP_SEND_ONLY, 40, NULL);
	rk_put_be16(buf + 14 + 20 + 4, (uint16_t)(rk_get_be16(buf + 14 + 20 + 4) + 4));
	rk_pkt_parse(&p, buf, (uint32_t)len, (uint32_t)len, RK_LINK_ETHERNET, NULL);
	rk_pkt_fix_icrc(&p, buf);
	expect_findings(buf, (uint32_t)len, (uint32_t)len, 1, RK_F_UDP_LEN);
}

static void
test_ipv4_rules(void **state)
{
	uint8_t buf[9000];
	int len;

	(void)state;
	build(buf, &len, 4, false, RK_OP_SEND_ONLY, 40, NULL);
	buf[14 + 6] |= 0x20; /* MF: first fragment */
	expect_findings(buf, (uint32_t)len, (uint32_t)len, 1, RK_F_IPV4_FRAGMENT);
	build(buf, &len, 4, false, RK_OP_SEND_ONLY, 40, NULL);
	buf[14] = 0x55; /* IP version 5 under EtherType IPv4 (CA17-27) */
	expect_findings(buf, (uint32_t)len, (uint32_t)len, 1, RK_F_IP_VERSION);
	build(buf, &len, 4, false, RK_OP_SEND_ONLY, 40, NULL);
	rk_put_be16(buf + 14 + 2, 2000); /* IP total length past the frame */
	expect_findings(buf, (uint32_t)len, (uint32_t)len, 1, RK_F_IP_HDR_BAD);
	expect_findings(buf, 5, 5, 1, RK_F_FRAME_MALFORMED);
}

static void
test_tcp_data_offset(void **state)
{
	uint8_t f[80] = { 0 };
	struct rk_pkt p;

	(void)state;
	rk_put_be16(f + 12, 0x0800);
	f[14] = 0x45;
	rk_put_be16(f + 16, 20 + 20);
	f[14 + 9] = 6;
	f[34 + 12] = 0x50; /* data offset 5 words: fine */
	assert_int_equal(rk_pkt_parse(&p, f, 60, 60, RK_LINK_ETHERNET, NULL), 0);
	assert_int_equal(p.kind, RK_PKT_TCP);
	assert_int_equal(p.findings.count, 0);
	f[34 + 12] = 0x40; /* 4 words: below the minimum */
	expect_findings(f, 60, 60, 1, RK_F_TCP_HDR_BAD);
	f[34 + 12] = 0xf0; /* 15 words: past the IP payload */
	expect_findings(f, 60, 60, 1, RK_F_TCP_HDR_BAD);
}

static void
test_pause_and_pfc(void **state)
{
	uint8_t f[60] = { 0x01, 0x80, 0xc2, 0, 0, 0x01, 2, 0, 0, 0, 0, 1, 0x88, 0x08 };
	struct rk_pkt p;

	(void)state;
	rk_put_be16(f + 14, 0x0001);
	rk_put_be16(f + 16, 0xffff);
	assert_int_equal(rk_pkt_parse(&p, f, 60, 60, RK_LINK_ETHERNET, NULL), 0);
	assert_int_equal(p.kind, RK_PKT_PAUSE);
	assert_int_equal(p.pause_quanta[0], 0xffff);
	assert_int_equal(p.findings.count, 0);
	rk_put_be16(f + 14, 0x0101);
	rk_put_be16(f + 16, 0x0008); /* priority 3 */
	rk_put_be16(f + 18 + 6, 0x1234);
	assert_int_equal(rk_pkt_parse(&p, f, 60, 60, RK_LINK_ETHERNET, NULL), 0);
	assert_int_equal(p.kind, RK_PKT_PFC);
	assert_int_equal(p.pfc_class_enable, 0x08);
	assert_int_equal(p.pause_quanta[3], 0x1234);
	assert_int_equal(p.findings.count, 0);
	f[16] = 1;
	expect_findings(f, 60, 60, 1, RK_F_PFC_RESERVED);
	rk_put_be16(f + 14, 0x0002);
	expect_findings(f, 60, 60, 1, RK_F_MAC_CONTROL_OPCODE);
}

static void
test_header_round_trip_every_opcode(void **state)
{
	(void)state;
	for (int op = 0; op < 256; op++) {
		const struct rk_opcode_info *oi = rk_opcode_info((uint8_t)op);
		struct rk_bth_fields b = { 0 }, b2;
		struct rk_xeth_fields x, x2;
		uint8_t h[128], h2[128];
		int n;

		if (!(oi->flags & RK_OPF_VALID)) {
			b.opcode = (uint8_t)op;
			rk_build_ib_headers(h, sizeof(h), &b, NULL);
			assert_int_equal(rk_parse_ib_headers(h, sizeof(h), &b2, &x2), -EINVAL);
			continue;
		}
		rk_test_fill(h, sizeof(h));
		rk_bth_unpack(h, &b);
		b.opcode = (uint8_t)op;
		rk_test_fill((uint8_t *)&x, sizeof(x));
		x.deth_src_qp &= 0xffffff;
		x.rdeth_ee_cnxt &= 0xffffff;
		x.xrceth_xrc_srq &= 0xffffff;
		x.aeth_msn &= 0xffffff;
		n = rk_build_ib_headers(h, sizeof(h), &b, &x);
		assert_int_equal(n, oi->hdr_len);
		assert_int_equal(rk_parse_ib_headers(h, (uint32_t)n, &b2, &x2), n);
		assert_int_equal(rk_parse_ib_headers(h, (uint32_t)n - 1, &b2, &x2), -EMSGSIZE);
		rk_parse_ib_headers(h, (uint32_t)n, &b2, &x2);
		/* Rebuilding from the decoded fields gives the same bytes. */
		assert_int_equal(rk_build_ib_headers(h2, sizeof(h2), &b2, &x2), n);
		assert_memory_equal(h, h2, (size_t)n);
		if (oi->hdrs & (1u << RK_HDR_RETH))
			assert_true(x2.reth_va == x.reth_va && x2.reth_dma_len == x.reth_dma_len);
		if (oi->hdrs & (1u << RK_HDR_ATMETH))
			assert_true(x2.atmeth_compare == x.atmeth_compare);
		if (oi->hdrs & (1u << RK_HDR_DETH))
			assert_true(x2.deth_src_qp == x.deth_src_qp);
	}
}

static void
test_build_pause_pfc(void **state)
{
	const uint8_t mac[6] = { 2, 0, 0, 0, 0, 9 };
	const uint16_t q[8] = { 0, 0, 0, 0xffff, 0, 7, 0, 0 };
	uint8_t f[64];
	struct rk_pkt p;

	(void)state;
	assert_int_equal(rk_build_pfc(f, sizeof(f), mac, 0x28, q), 60);
	assert_int_equal(rk_pkt_parse(&p, f, 60, 60, RK_LINK_ETHERNET, NULL), 0);
	assert_int_equal(p.kind, RK_PKT_PFC);
	assert_int_equal(p.pfc_class_enable, 0x28);
	assert_int_equal(p.pause_quanta[3], 0xffff);
	assert_int_equal(p.pause_quanta[5], 7);
	assert_int_equal(p.findings.count, 0);
	assert_int_equal(rk_build_pause(f, sizeof(f), mac, 1234), 60);
	assert_int_equal(rk_pkt_parse(&p, f, 60, 60, RK_LINK_ETHERNET, NULL), 0);
	assert_int_equal(p.kind, RK_PKT_PAUSE);
	assert_int_equal(p.pause_quanta[0], 1234);
	assert_int_equal(rk_build_pause(f, 59, mac, 1), -ENOSPC);
}

static void
test_bad_arguments(void **state)
{
	struct rk_pkt p;
	uint8_t b[4] = { 0 };

	(void)state;
	assert_int_equal(rk_pkt_parse(NULL, b, 4, 4, RK_LINK_ETHERNET, NULL), -EINVAL);
	assert_int_equal(rk_pkt_parse(&p, NULL, 4, 4, RK_LINK_ETHERNET, NULL), -EINVAL);
	assert_int_equal(rk_pkt_parse(&p, b, 4, 4, (enum rk_linktype)9999, NULL), -EPROTONOSUPPORT);
	assert_int_equal(rk_pkt_parse(&p, b, 0, 0, RK_LINK_ETHERNET, NULL), 0);
	assert_int_equal(p.findings.count, 1);
}

static void
test_random_frames_never_crash(void **state)
{
	/* Garbage after a valid RoCEv2 prefix; run under ASan/UBSan. */
	uint8_t buf[9000];
	int len;

	(void)state;
	for (int r = 0; r < 20000; r++) {
		struct rk_pkt p;
		uint32_t cut;

		build(buf, &len, r & 1 ? 6 : 4, r & 2, RK_OP_SEND_ONLY, 64, NULL);
		cut = (uint32_t)(14 + rk_test_rand() % (uint32_t)(len - 14));
		rk_test_fill(buf + cut, (size_t)len - cut);
		for (int link = 0; link < 3; link++) {
			enum rk_linktype lt = link == 0 ? RK_LINK_ETHERNET :
					      link == 1 ? RK_LINK_ERF : RK_LINK_LINUX_SLL2;

			assert_int_equal(rk_pkt_parse(&p, buf, (uint32_t)len,
						      (uint32_t)len + (r & 4), lt, NULL), 0);
			assert_true(p.findings.count <= RK_FINDINGS_MAX);
		}
	}
}

/* Every field of two parses of the same frame agrees (findings up to count). */
static void
assert_same_parse(const struct rk_pkt *a, const struct rk_pkt *b, int round)
{
#define SAME(f) do { if (a->f != b->f) fail_msg("round %d: field " #f " differs", round); } while (0)
#define SAME_ARR(f) do { if (memcmp(a->f, b->f, sizeof(a->f)) != 0) \
		fail_msg("round %d: field " #f " differs", round); } while (0)
	SAME(frame); SAME(caplen); SAME(wirelen); SAME(truncated); SAME(kind); SAME(layers);
	SAME(l2_off); SAME(n_vlan); SAME_ARR(vlan_tci); SAME(ethertype); SAME_ARR(src_mac);
	SAME_ARR(dst_mac); SAME(l3_off); SAME(l3_len); SAME(ip_version); SAME(dscp);
	SAME(ecn); SAME(ttl); SAME(ip_proto); SAME(flow_label); SAME_ARR(src_ip);
	SAME_ARR(dst_ip); SAME(src_lid); SAME(dst_lid); SAME(l4_off); SAME(src_port);
	SAME(dst_port); SAME(tcp_seq); SAME(tcp_ack); SAME(tcp_flags); SAME(tcp_window);
	SAME(l4_payload_off); SAME(l4_payload_len); SAME(bth_off); SAME(opcode); SAME(op);
	SAME(payload_off); SAME(payload_len); SAME(pad_cnt); SAME(icrc_off); SAME(icrc);
	SAME(icrc_status); SAME(mac_control_opcode); SAME_ARR(pause_quanta);
	SAME(pfc_class_enable); SAME(findings.count); SAME(findings.dropped);
	for (unsigned int i = 0; i < a->findings.count && i < RK_FINDINGS_MAX; i++) {
		SAME(findings.list[i].id);
		SAME(findings.list[i].offset);
	}
#undef SAME
#undef SAME_ARR
}

/* A frame of some kind the parser knows, often damaged; returns its length. */
static uint32_t
random_frame(uint8_t *buf, enum rk_linktype *lt)
{
	static const uint16_t types[] = { 0x0800, 0x86dd, 0x8100, 0x88a8, 0x8915, 0x8808 };
	static const uint8_t erf[] = { 2, 10, 16, 20, 21, 25, 0x82, 7 };
	static const enum rk_linktype links[] = { RK_LINK_ETHERNET, RK_LINK_LINUX_SLL,
		RK_LINK_LINUX_SLL2, RK_LINK_RAW, RK_LINK_IPV4, RK_LINK_IPV6, RK_LINK_ERF };
	uint32_t r = rk_test_rand(), len;
	int n;

	*lt = RK_LINK_ETHERNET;
	switch (r % 4) {
	case 0: { /* a RoCEv2 frame of any opcode, then a few bytes changed */
		const struct rk_opcode_info *op;
		uint8_t opc;

		do {
			opc = (uint8_t)rk_test_rand();
			op = rk_opcode_info(opc);
		} while (!(op->flags & RK_OPF_VALID) || op->transport == RK_TR_RD);
		build(buf, &n, r & 4 ? 6 : 4, r & 8, opc, payload_for(op), NULL);
		len = (uint32_t)n;
		for (uint32_t k = rk_test_rand() % 4; k > 0; k--)
			buf[rk_test_rand() % len] ^= (uint8_t)(1u << (rk_test_rand() % 8));
		if (r & 16)
			*lt = links[rk_test_rand() % 7];
		break;
	}
	case 1: /* Ethernet, a known EtherType, random bytes */
		len = 14 + rk_test_rand() % 200;
		rk_test_fill(buf, len);
		rk_put_be16(buf + 12, types[rk_test_rand() % 6]);
		if (rk_test_rand() % 2)
			rk_put_be16(buf + 16, types[rk_test_rand() % 6]);
		if (rk_test_rand() % 2)
			buf[14] = rk_test_rand() % 2 ? 0x45 : 0x60;
		break;
	case 2: /* an ERF record of a known type (IB included) */
		len = 16 + rk_test_rand() % 200;
		rk_test_fill(buf, len);
		buf[8] = erf[rk_test_rand() % 8];
		buf[16] = (uint8_t)(buf[16] & 0x7f);
		*lt = RK_LINK_ERF;
		break;
	default:
		len = rk_test_rand() % 120;
		rk_test_fill(buf, len);
		*lt = links[rk_test_rand() % 7];
		break;
	}
	return len;
}

/*
 * rk_pkt_parse sets every field itself: a struct reused from the previous
 * frame, or full of garbage, parses exactly like a zeroed one.
 */
static void
test_reused_struct_matches_fresh(void **state)
{
	static uint8_t buf[9000];
	struct rk_pkt fresh, junk, reused;

	(void)state;
	memset(&reused, 0x5a, sizeof(reused));
	for (int r = 0; r < 30000; r++) {
		enum rk_linktype lt;
		uint32_t len = random_frame(buf, &lt), cap = len, wire = len;
		struct rk_parse_opts o = { .check_icrc = r % 5 != 0, .pmtu = r % 3 ? 0 : 1024 };
		const struct rk_parse_opts *po = r % 7 ? &o : NULL;
		int rf, rj, rr;

		if (r % 3 == 0 && len > 0)
			cap = rk_test_rand() % len;
		if (r % 4 == 0)
			wire = len + rk_test_rand() % 64;
		memset(&fresh, 0, sizeof(fresh));
		memset(&junk, r & 1 ? 0xff : 0xa5, sizeof(junk));
		rf = rk_pkt_parse(&fresh, buf, cap, wire, lt, po);
		rj = rk_pkt_parse(&junk, buf, cap, wire, lt, po);
		rr = rk_pkt_parse(&reused, buf, cap, wire, lt, po);
		assert_int_equal(rf, 0);
		assert_int_equal(rj, 0);
		assert_int_equal(rr, 0);
		assert_same_parse(&fresh, &junk, r);
		assert_same_parse(&fresh, &reused, r);
	}
	/* An unknown link type leaves a defined, empty parse too. */
	memset(&junk, 0xa5, sizeof(junk));
	memset(&fresh, 0, sizeof(fresh));
	assert_int_equal(rk_pkt_parse(&junk, buf, 60, 60, (enum rk_linktype)9999, NULL),
			 -EPROTONOSUPPORT);
	assert_int_equal(rk_pkt_parse(&fresh, buf, 60, 60, (enum rk_linktype)9999, NULL),
			 -EPROTONOSUPPORT);
	assert_same_parse(&fresh, &junk, -1);
}

/*
 * rk_rocev2_icrc against a plain CRC-32 of the masked packet written out in
 * full (8 bytes of 0xFF, IP header, UDP, BTH, rest), for every size from
 * an empty SEND to well past the one-call threshold, IPv4 and IPv6.
 */
static void
test_icrc_every_small_size(void **state)
{
	static uint8_t buf[9000], ref[9000];

	(void)state;
	for (int ipv = 4; ipv <= 6; ipv += 2) {
		for (uint32_t plen = 0; plen <= 600; plen++) {
			uint32_t l3 = 14, ihl = ipv == 4 ? 20 : 40, n;
			int len;

			build(buf, &len, (uint8_t)ipv, false, RK_OP_SEND_ONLY, plen, NULL);
			n = (uint32_t)len - l3 - RK_ICRC_LEN;
			memset(ref, 0xff, 8);
			memcpy(ref + 8, buf + l3, n);
			if (ipv == 4) {
				ref[8 + 1] = 0xff;
				ref[8 + 8] = 0xff;
				ref[8 + 10] = 0xff;
				ref[8 + 11] = 0xff;
			} else {
				ref[8] |= 0x0f;
				memset(ref + 8 + 1, 0xff, 3);
				ref[8 + 7] = 0xff;
			}
			ref[8 + ihl + 6] = 0xff;
			ref[8 + ihl + 7] = 0xff;
			ref[8 + ihl + 8 + 4] = 0xff;
			if (rk_rocev2_icrc(buf + l3, n) != rk_crc32(ref, n + 8))
				fail_msg("IPv%d payload %u: ICRC differs from the reference", ipv, plen);
			assert_int_equal(rk_get_le32(buf + l3 + n), rk_crc32(ref, n + 8));
		}
	}
}

static void
test_other_link_types_and_rocev1(void **state)
{
	uint8_t buf[9000], f[9000];
	struct rk_pkt p;
	int len;

	(void)state;
	build(buf, &len, 4, false, RK_OP_SEND_ONLY, 40, NULL);
	/* Linux cooked v1: 16-byte header ending in the EtherType. */
	memset(f, 0, 16);
	rk_put_be16(f + 14, 0x0800);
	memcpy(f + 16, buf + 14, (size_t)len - 14);
	assert_int_equal(rk_pkt_parse(&p, f, (uint32_t)len + 2, (uint32_t)len + 2,
				      RK_LINK_LINUX_SLL, NULL), 0);
	assert_int_equal(p.icrc_status, RK_ICRC_GOOD);
	assert_int_equal(p.findings.count, 0);
	/* Linux cooked v2: EtherType first, 20 bytes. */
	memset(f, 0, 20);
	rk_put_be16(f, 0x0800);
	memcpy(f + 20, buf + 14, (size_t)len - 14);
	assert_int_equal(rk_pkt_parse(&p, f, (uint32_t)len + 6, (uint32_t)len + 6,
				      RK_LINK_LINUX_SLL2, NULL), 0);
	assert_int_equal(p.icrc_status, RK_ICRC_GOOD);
	/* Raw IP. */
	assert_int_equal(rk_pkt_parse(&p, buf + 14, (uint32_t)len - 14, (uint32_t)len - 14,
				      RK_LINK_RAW, NULL), 0);
	assert_int_equal(p.kind, RK_PKT_ROCEV2);
	assert_int_equal(p.icrc_status, RK_ICRC_GOOD);
	/* ERF Ethernet record: 16-byte header, 2 bytes of pad. */
	memset(f, 0, 18);
	f[8] = 2;
	memcpy(f + 18, buf, (size_t)len);
	assert_int_equal(rk_pkt_parse(&p, f, (uint32_t)len + 18, (uint32_t)len + 18,
				      RK_LINK_ERF, NULL), 0);
	assert_int_equal(p.icrc_status, RK_ICRC_GOOD);

	/* RoCEv1: EtherType 0x8915, GRH (next header 0x1B), BTH, ICRC. */
	uint32_t tlen = 12 + 40 + 4;
	memcpy(f, buf, 12);
	rk_put_be16(f + 12, 0x8915);
	memset(f + 14, 0, 40);
	f[14] = 0x60;
	rk_put_be16(f + 14 + 4, (uint16_t)(12 + 40 + 4));
	f[14 + 6] = 0x1b;
	f[14 + 7] = 1;
	f[14 + 8] = 0xfe;
	f[14 + 9] = 0x80;
	f[14 + 24] = 0xfe;
	f[14 + 25] = 0x80;
	memset(f + 54, 0, 12 + 40);
	rk_bth_set_opcode(f + 54, RK_OP_SEND_ONLY);
	rk_bth_set_p_key(f + 54, 0xffff);
	rk_bth_set_dest_qp(f + 54, 0x22);
	rk_bth_set_psn(f + 54, 7);
	rk_put_le32(f + 54 + 12 + 40, rk_ib_icrc(f + 14, 40 + 12 + 40, false));
	assert_int_equal(rk_pkt_parse(&p, f, 14 + tlen + 40, 14 + tlen + 40,
				      RK_LINK_ETHERNET, NULL), 0);
	assert_int_equal(p.kind, RK_PKT_ROCEV1);
	assert_int_equal(p.payload_len, 40);
	assert_int_equal(rk_bth_dest_qp(rk_pkt_bth(&p)), 0x22);
	assert_int_equal(p.icrc_status, RK_ICRC_GOOD);
	assert_int_equal(p.findings.count, 0);
	f[60] ^= 1;
	assert_int_equal(rk_pkt_parse(&p, f, 14 + tlen + 40, 14 + tlen + 40,
				      RK_LINK_ETHERNET, NULL), 0);
	assert_int_equal(p.icrc_status, RK_ICRC_BAD);
	/* A GRH PayLen past the end of the frame: no payload beyond it. */
	rk_put_be16(f + 14 + 4, 4000);
	assert_int_equal(rk_pkt_parse(&p, f, 14 + tlen + 40, 14 + tlen + 40,
				      RK_LINK_ETHERNET, NULL), 0);
	assert_int_equal(p.findings.count, 1);
	assert_int_equal(p.findings.list[0].id, RK_F_IP_HDR_BAD);
	assert_false(rk_pkt_has_bth(&p));
}

/*
 * Raw IP frames of 1 to 40 bytes, each in a heap buffer of exactly its
 * size (ASan sees a read past it), every version nibble: found by
 * fuzz_pkt, a 2-byte IPv6 frame had its version read from a 4-byte load.
 */
static void
test_raw_ip_short_heap_frames(void **state)
{
	static const enum rk_linktype links[] = { RK_LINK_RAW, RK_LINK_IPV4, RK_LINK_IPV6 };

	(void)state;
	for (uint32_t len = 1; len <= 40; len++)
		for (unsigned int v = 0; v < 16; v++)
			for (unsigned int l = 0; l < 3; l++) {
				uint8_t *f = malloc(len);
				struct rk_pkt p;

				assert_non_null(f);
				memset(f, 0x18, len);
				f[0] = (uint8_t)(v << 4 | 5);
				(void)rk_pkt_parse(&p, f, len, len, links[l], NULL);
				assert_true(p.findings.count > 0 || len >= 20);
				free(f);
			}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_roce_opcode_clean),
		cmocka_unit_test(test_hdrs_len_is_payload_offset),
		cmocka_unit_test(test_bth_mutations),
		cmocka_unit_test(test_payload_byte_flip_is_bad_icrc),
		cmocka_unit_test(test_truncated_is_not_bad_icrc),
		cmocka_unit_test(test_udp_payload_shorter_than_bth),
		cmocka_unit_test(test_headers_too_short_for_opcode),
		cmocka_unit_test(test_payload_rules),
		cmocka_unit_test(test_ipv4_rules),
		cmocka_unit_test(test_tcp_data_offset),
		cmocka_unit_test(test_pause_and_pfc),
		cmocka_unit_test(test_header_round_trip_every_opcode),
		cmocka_unit_test(test_build_pause_pfc),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_other_link_types_and_rocev1),
		cmocka_unit_test(test_random_frames_never_crash),
		cmocka_unit_test(test_reused_struct_matches_fresh),
		cmocka_unit_test(test_icrc_every_small_size),
		cmocka_unit_test(test_raw_ip_short_heap_frames),
	};

	rk_test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
