/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Streams: templates, overrides (valid and invalid values), variations,
 * the three ICRC modes, trains, MAC Control frames, the sequence slot,
 * and the errors of a stream that cannot be built. Frames are checked by
 * parsing them with rk_pkt_parse(), and incremental streams against the
 * same stream with the ICRC recomputed in full.
 */
#include "rk_test.h"

#include <errno.h>

#include "rk_bth.h"
#include "rk_byteorder.h"
#include "rk_gen_stream.h"
#include "rk_ipv4.h"
#include "rk_opcode.h"
#include "rk_pkt.h"
#include "rk_xeth.h"

static void
set(struct rk_gen_cfg *c, const char *name, uint64_t v)
{
	const char *why = NULL;
	struct rk_gen_override *o = &c->overrides[c->noverrides++];

	assert_int_equal(rk_gen_ref_parse(&o->ref, name, &why), 0);
	o->value = v;
}

static struct rk_gen_vary *
vary(struct rk_gen_cfg *c, const char *name, enum rk_gen_vary_op op)
{
	const char *why = NULL;
	struct rk_gen_vary *v = &c->vary[c->nvary++];

	memset(v, 0, sizeof(*v));
	assert_int_equal(rk_gen_ref_parse(&v->ref, name, &why), 0);
	v->op = (uint8_t)op;
	return v;
}

static struct rk_gen_stream *
compile_ok(const struct rk_gen_cfg *c)
{
	struct rk_gen_stream *s = NULL;
	struct rk_gen_err err = { 0 };
	int rc = rk_gen_stream_compile(c, &s, &err);

	if (rc != 0)
		fail_msg("compile: %s: %s", err.field, err.reason);
	return s;
}

static void
parse(struct rk_pkt *pkt, const uint8_t *f, int n)
{
	assert_true(n > 0);
	assert_int_equal(rk_pkt_parse(pkt, f, (uint32_t)n, (uint32_t)n, RK_LINK_ETHERNET, NULL), 0);
}

static bool
has_finding(const struct rk_pkt *pkt, enum rk_finding_id id)
{
	return rk_findings_has(&pkt->findings, id) != 0;
}

static void
test_default_frame(void **state)
{
	struct rk_gen_cfg c;
	struct rk_gen_stream *s;
	struct rk_pkt pkt;
	uint8_t f[RK_GEN_FRAME_MAX];
	int n;

	(void)state;
	rk_gen_cfg_init(&c);
	s = compile_ok(&c);
	n = rk_gen_stream_next(s, f, sizeof(f));
	parse(&pkt, f, n);
	assert_int_equal(pkt.kind, RK_PKT_ROCEV2);
	assert_int_equal(pkt.opcode, RK_OP_SEND_ONLY);
	assert_int_equal(pkt.payload_len, 64);
	assert_int_equal(pkt.icrc_status, RK_ICRC_GOOD);
	assert_int_equal(pkt.findings.count, 0);
	assert_int_equal(rk_bth_dest_qp(f + pkt.bth_off), 0x11);
	/* count 1 by default */
	assert_int_equal(rk_gen_stream_next(s, f, sizeof(f)), 0);
	rk_gen_stream_reset(s);
	assert_int_equal(rk_gen_stream_next(s, f, 10), -ENOSPC);
	assert_int_equal(rk_gen_stream_next(s, f, sizeof(f)), n);
	rk_gen_stream_free(s);
}

/* Every varied field takes its value; incremental frames equal full ones. */
static void
run_variations(uint8_t ip_version, bool vlan)
{
	struct rk_gen_cfg c;
	struct rk_gen_stream *si, *sf;
	struct rk_gen_vary *v;
	static uint8_t fi[RK_GEN_FRAME_MAX], ff[RK_GEN_FRAME_MAX];
	static const uint32_t qps[3] = { 0x12, 0x13, 0xabcdef };

	rk_gen_cfg_init(&c);
	c.ip_version = ip_version;
	c.vlan = vlan;
	c.opcode = RK_OP_RDMA_WRITE_ONLY;
	c.payload_len = 300;
	c.pattern = RK_GEN_PAT_RANDOM;
	c.seed = 5;
	c.seq = true;
	c.seq_off = 32;
	c.count = 3000;
	c.count_set = true;
	set(&c, "bth.psn", 0xfffff0);
	set(&c, "reth.r_key", 0x1234);
	vary(&c, "psn", RK_GEN_VARY_INC);
	v = vary(&c, "DestQP", RK_GEN_VARY_LIST);
	v->values[0] = 0x12;
	v->values[1] = 0x13;
	v->values[2] = 0xabcdef;
	v->nvalues = 3;
	v = vary(&c, "udp.src_port", RK_GEN_VARY_RANDOM);
	v->min = 49152;
	v->max = 65535;
	v->seed = 9;
	if (ip_version == 4) {
		v = vary(&c, "ipv4.src", RK_GEN_VARY_INC);
		v->min = 0xc6120001;
		v->max = 0xc61200ff;
		vary(&c, "ipv4.ttl", RK_GEN_VARY_DEC);
	} else {
		vary(&c, "ipv6.dst_lo", RK_GEN_VARY_RANDOM);
		vary(&c, "ipv6.flow_label", RK_GEN_VARY_INC);
		/* DSCP straddles bytes 0 and 1: half of byte 0 is masked, half not */
		vary(&c, "ipv6.dscp", RK_GEN_VARY_INC);
	}
	v = vary(&c, "r_key", RK_GEN_VARY_DEC);
	v = vary(&c, "va", RK_GEN_VARY_INC);
	v->step = 4096;
	v = vary(&c, "payload", RK_GEN_VARY_INC);
	v->ref.off = 100;
	v->ref.size = 8;
	v->every = 3;
	v->has_start = true;
	vary(&c, "bth.fecn", RK_GEN_VARY_INC);
	si = compile_ok(&c);
	c.icrc = RK_GEN_ICRC_FULL;
	sf = compile_ok(&c);
	for (uint64_t i = 0; i < 3000; i++) {
		int n = rk_gen_stream_next(si, fi, sizeof(fi));
		struct rk_pkt pkt;
		const uint8_t *b, *r;

		assert_int_equal(rk_gen_stream_next(sf, ff, sizeof(ff)), n);
		assert_memory_equal(fi, ff, (size_t)n);
		parse(&pkt, fi, n);
		assert_int_equal(pkt.icrc_status, RK_ICRC_GOOD);
		assert_int_equal(pkt.findings.count, 0);
		if (ip_version == 4)
			assert_true(rk_ipv4_csum_ok(fi + pkt.l3_off));
		b = fi + pkt.bth_off;
		r = fi + pkt.bth_off + RK_BTH_LEN;
		assert_int_equal(rk_bth_psn(b), (0xfffff0 + i) & 0xffffff);
		assert_int_equal(rk_bth_dest_qp(b), qps[i % 3]);
		assert_true(pkt.src_port >= 49152);
		assert_int_equal(rk_reth_r_key(r), (uint32_t)(0x1234 - i));
		assert_int_equal(rk_reth_va(r), i * 4096);
		assert_int_equal(rk_get_be64(fi + pkt.payload_off + 100), i / 3);
		assert_int_equal(rk_get_be32(fi + pkt.payload_off + 32 + 4), (uint32_t)i);
		if (ip_version == 4)
			assert_int_equal(rk_get_be32(fi + pkt.l3_off + 12), 0xc6120001 + i % 255);
		else
			assert_int_equal(pkt.flow_label, i & 0xfffff);
	}
	assert_int_equal(rk_gen_stream_next(si, fi, sizeof(fi)), 0);
	rk_gen_stream_free(si);
	rk_gen_stream_free(sf);
}

static void
test_variations_ipv4(void **state)
{
	(void)state;
	run_variations(4, false);
	run_variations(4, true);
}

static void
test_variations_ipv6(void **state)
{
	(void)state;
	run_variations(6, false);
	run_variations(6, true);
}

/* Invalid values where asked: the parser sees exactly those faults. */
static void
test_invalid_fields(void **state)
{
	static const struct {
		const char *field;
		uint64_t value;
		enum rk_finding_id want;
	} cases[] = {
		{ "bth.tver", 1, RK_F_BTH_TVER },
		{ "bth.opcode", 0x1e, RK_F_BTH_OPCODE_RESERVED },
		{ "bth.pad_cnt", 3, RK_F_BTH_PADCNT },
		{ "bth.dest_qp", 0, RK_F_BTH_DESTQP_ZERO },
		{ "bth.resv7", 5, RK_F_BTH_RESV },
		{ "udp.len", 9, RK_F_UDP_LEN },
	};
	uint8_t f[RK_GEN_FRAME_MAX];

	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct rk_gen_cfg c;
		struct rk_gen_stream *s;
		struct rk_pkt pkt;

		rk_gen_cfg_init(&c);
		/* a pad is wrong on a packet with no payload (C9-92) */
		if (cases[k].want == RK_F_BTH_PADCNT)
			c.payload_len = 0;
		set(&c, cases[k].field, cases[k].value);
		s = compile_ok(&c);
		parse(&pkt, f, rk_gen_stream_next(s, f, sizeof(f)));
		if (!has_finding(&pkt, cases[k].want))
			fail_msg("%s = %llu: finding %d not raised", cases[k].field,
				 (unsigned long long)cases[k].value, cases[k].want);
		if (cases[k].want != RK_F_UDP_LEN)
			assert_int_equal(pkt.icrc_status, RK_ICRC_GOOD);
		rk_gen_stream_free(s);
	}
}

static void
test_icrc_bad_and_truncate(void **state)
{
	struct rk_gen_cfg c;
	struct rk_gen_stream *s;
	struct rk_pkt pkt;
	uint8_t f[RK_GEN_FRAME_MAX];

	(void)state;
	rk_gen_cfg_init(&c);
	c.icrc = RK_GEN_ICRC_BAD;
	c.count = 50;
	c.count_set = true;
	vary(&c, "psn", RK_GEN_VARY_INC);
	s = compile_ok(&c);
	for (int i = 0; i < 50; i++) {
		int n = rk_gen_stream_next(s, f, sizeof(f));

		parse(&pkt, f, n);
		assert_int_equal(pkt.icrc_status, RK_ICRC_BAD);
		assert_int_equal(~pkt.icrc, rk_rocev2_icrc(f + pkt.l3_off, pkt.icrc_off - pkt.l3_off));
	}
	rk_gen_stream_free(s);
	rk_gen_cfg_init(&c);
	c.truncate = 50;
	s = compile_ok(&c);
	assert_int_equal(rk_gen_stream_next(s, f, sizeof(f)), 50);
	parse(&pkt, f, 50);
	assert_true(has_finding(&pkt, RK_F_BTH_TOO_SHORT) || has_finding(&pkt, RK_F_IP_HDR_BAD));
	rk_gen_stream_free(s);
}

/* WRITEs of 10000 bytes at PMTU 1024: First, 8 Middle, Last; PSNs in a row. */
static void
test_write_train(void **state)
{
	struct rk_gen_cfg c;
	struct rk_gen_stream *s;
	struct rk_pkt pkt;
	uint8_t f[RK_GEN_FRAME_MAX];
	uint32_t total = 0;
	int n, i = 0;

	(void)state;
	rk_gen_cfg_init(&c);
	c.train = RK_GEN_TRAIN_WRITE;
	c.payload_len = 10000;
	c.pmtu = 1024;
	set(&c, "bth.psn", 100);
	set(&c, "reth.va", 0x100000);
	c.count = 30;
	c.count_set = true;
	/* the VA is in First packets only; its value follows the frame index */
	vary(&c, "va", RK_GEN_VARY_INC)->step = 4096;
	s = compile_ok(&c);
	assert_int_equal(rk_gen_stream_train_len(s), 10);
	while ((n = rk_gen_stream_next(s, f, sizeof(f))) > 0) {
		parse(&pkt, f, n);
		assert_int_equal(pkt.icrc_status, RK_ICRC_GOOD);
		assert_int_equal(pkt.findings.count, 0);
		assert_int_equal(rk_bth_psn(f + pkt.bth_off), 100 + i);
		assert_int_equal(pkt.opcode, i % 10 == 0   ? RK_OP_RDMA_WRITE_FIRST
					     : i % 10 == 9 ? RK_OP_RDMA_WRITE_LAST
							   : RK_OP_RDMA_WRITE_MIDDLE);
		if (i % 10 == 0) {
			assert_int_equal(rk_reth_dma_len(f + pkt.bth_off + RK_BTH_LEN), 10000);
			assert_int_equal(rk_reth_va(f + pkt.bth_off + RK_BTH_LEN),
					 0x100000 + (uint64_t)i * 4096);
		}
		total += pkt.payload_len;
		i++;
	}
	assert_int_equal(i, 30);
	assert_int_equal(total, 30000);
	rk_gen_stream_free(s);
}

/* READ requests of 10000 bytes at PMTU 1024: each reserves 10 PSNs, the VA
 * runs on by the message; ACKs of that train: one per message, the PSN of
 * its last packet, the MSN counting the messages. */
static void
test_read_and_ack_trains(void **state)
{
	struct rk_gen_cfg c;
	struct rk_gen_stream *s;
	struct rk_pkt pkt;
	uint8_t f[RK_GEN_FRAME_MAX];
	int n, i = 0;

	(void)state;
	rk_gen_cfg_init(&c);
	c.train = RK_GEN_TRAIN_READ;
	c.payload_len = 10000;
	c.pmtu = 1024;
	set(&c, "bth.psn", 0xfffff0);
	set(&c, "reth.va", 0x200000);
	c.count = 5;
	c.count_set = true;
	s = compile_ok(&c);
	while ((n = rk_gen_stream_next(s, f, sizeof(f))) > 0) {
		const uint8_t *reth;

		parse(&pkt, f, n);
		reth = f + pkt.bth_off + RK_BTH_LEN;
		assert_int_equal(pkt.icrc_status, RK_ICRC_GOOD);
		assert_int_equal(pkt.findings.count, 0);
		assert_int_equal(pkt.opcode, RK_OP_RDMA_READ_REQUEST);
		assert_int_equal(rk_bth_psn(f + pkt.bth_off), (0xfffff0 + 10 * i) & 0xffffff);
		assert_int_equal(rk_reth_dma_len(reth), 10000);
		assert_int_equal(rk_reth_va(reth), 0x200000 + 10000 * (uint64_t)i);
		i++;
	}
	assert_int_equal(i, 5);
	rk_gen_stream_free(s);

	rk_gen_cfg_init(&c);
	c.train = RK_GEN_TRAIN_ACK;
	c.payload_len = 4096;
	c.pmtu = 1024;
	c.count = 4;
	c.count_set = true;
	s = compile_ok(&c);
	for (i = 0; (n = rk_gen_stream_next(s, f, sizeof(f))) > 0; i++) {
		parse(&pkt, f, n);
		assert_int_equal(pkt.icrc_status, RK_ICRC_GOOD);
		assert_int_equal(pkt.opcode, RK_OP_ACKNOWLEDGE);
		assert_int_equal(rk_bth_psn(f + pkt.bth_off), 4 * (uint32_t)i + 3);
		assert_int_equal(rk_aeth_msn(f + pkt.bth_off + RK_BTH_LEN), (uint32_t)i + 1);
	}
	assert_int_equal(i, 4);
	rk_gen_stream_free(s);
	assert_int_equal(rk_gen_train_parse("ack"), RK_GEN_TRAIN_ACK);
	assert_int_equal(rk_gen_train_parse("READ"), RK_GEN_TRAIN_READ);
	assert_int_equal(rk_gen_train_parse("READS"), -EINVAL);
}

/* A buffer holding an earlier frame of a template becomes the next frame
 * of that template by its changing ranges alone: a train with the slot,
 * PSN, DestQP, source address and R_Key varied, every ICRC mode, IPv4 and
 * IPv6, truncated or whole. */
static void
test_next_ref_dirty_ranges(void **state)
{
	static uint8_t held[3][RK_GEN_FRAME_MAX];
	uint8_t full[RK_GEN_FRAME_MAX];

	(void)state;
	for (int variant = 0; variant < 12; variant++) {
		struct rk_gen_cfg c, c2;
		struct rk_gen_stream *s, *s2;
		struct rk_gen_ref_frame f;
		const uint8_t *fr;
		bool have[3] = { false, false, false };
		int n = 0;

		rk_gen_cfg_init(&c);
		c.train = RK_GEN_TRAIN_WRITE;
		c.payload_len = 3000;
		c.pmtu = 1024;
		c.icrc = (uint8_t)(variant % 3 == 0   ? RK_GEN_ICRC_INCREMENTAL
				   : variant % 3 == 1 ? RK_GEN_ICRC_FULL
						      : RK_GEN_ICRC_BAD);
		c.ip_version = variant & 4 ? 6 : 4;
		c.seq = true;
		c.truncate = variant >= 8 ? 60 : 0;
		c.count = 40;
		c.count_set = true;
		vary(&c, "dest_qp", RK_GEN_VARY_RANDOM);
		vary(&c, variant & 4 ? "ipv6.src_lo" : "ipv4.src", RK_GEN_VARY_INC);
		vary(&c, "reth.r_key", RK_GEN_VARY_DEC);
		c2 = c;
		s = compile_ok(&c);
		s2 = compile_ok(&c2);
		while ((fr = rk_gen_stream_next_ref(s, 1000u * (uint64_t)n, &f)) != NULL) {
			int len = rk_gen_stream_next_at(s2, full, sizeof(full), 1000u * (uint64_t)n);

			assert_int_equal(f.len, len);
			assert_memory_equal(fr, full, f.len);
			assert_true(f.tmpl < 3);
			if (!have[f.tmpl]) {
				memcpy(held[f.tmpl], fr, f.len);
				have[f.tmpl] = true;
			} else {
				for (uint32_t i = 0; i < f.ndirty; i++)
					memcpy(held[f.tmpl] + f.dirty[i].off, fr + f.dirty[i].off,
					       f.dirty[i].len);
				assert_memory_equal(held[f.tmpl], full, f.len);
			}
			n++;
		}
		assert_int_equal(n, 40);
		rk_gen_stream_free(s);
		rk_gen_stream_free(s2);
	}
}

static void
test_mac_control_and_cnp(void **state)
{
	struct rk_gen_cfg c;
	struct rk_gen_stream *s;
	struct rk_pkt pkt;
	uint8_t f[RK_GEN_FRAME_MAX];

	(void)state;
	rk_gen_cfg_init(&c);
	c.kind = RK_GEN_PFC;
	c.pfc_quanta[3] = 0xffff;
	c.pfc_quanta[5] = 10;
	s = compile_ok(&c);
	parse(&pkt, f, rk_gen_stream_next(s, f, sizeof(f)));
	assert_int_equal(pkt.kind, RK_PKT_PFC);
	assert_int_equal(pkt.pfc_class_enable, 0x28);
	assert_int_equal(pkt.pause_quanta[3], 0xffff);
	assert_int_equal(pkt.pause_quanta[5], 10);
	rk_gen_stream_free(s);

	rk_gen_cfg_init(&c);
	c.kind = RK_GEN_PAUSE;
	c.pause_quanta = 0x1234;
	s = compile_ok(&c);
	parse(&pkt, f, rk_gen_stream_next(s, f, sizeof(f)));
	assert_int_equal(pkt.kind, RK_PKT_PAUSE);
	assert_int_equal(pkt.pause_quanta[0], 0x1234);
	rk_gen_stream_free(s);

	rk_gen_cfg_init(&c);
	c.opcode = RK_OP_CNP;
	set(&c, "bth.becn", 1);
	s = compile_ok(&c);
	parse(&pkt, f, rk_gen_stream_next(s, f, sizeof(f)));
	assert_int_equal(pkt.opcode, RK_OP_CNP);
	assert_int_equal(pkt.icrc_status, RK_ICRC_GOOD);
	assert_int_equal(pkt.findings.count, 0);
	rk_gen_stream_free(s);
}

/*
 * The fast stamp of the last frame written gives the same bytes as the
 * parsing one: plain, tagged with a bad ICRC, a WRITE train (First,
 * Middle, Last), the full ICRC, and a frame cut before its ICRC.
 */
static void
test_stamp_last(void **state)
{
	struct rk_gen_cfg c;
	struct rk_gen_stream *s;
	uint8_t f[RK_GEN_FRAME_MAX], g[RK_GEN_FRAME_MAX];
	struct rk_pkt pkt;

	(void)state;
	for (int variant = 0; variant < 5; variant++) {
		rk_gen_cfg_init(&c);
		c.seq = true;
		c.seq_off = 4;
		c.count = 7;
		c.count_set = true;
		if (variant == 1) {
			c.vlan = true;
			c.icrc = RK_GEN_ICRC_BAD;
		} else if (variant == 2) {
			c.train = RK_GEN_TRAIN_WRITE;
			c.payload_len = 1000;
			c.pmtu = 256;
		} else if (variant == 3) {
			c.icrc = RK_GEN_ICRC_FULL;
		} else if (variant == 4) {
			c.truncate = 80;
		}
		s = compile_ok(&c);
		assert_int_equal(rk_gen_stream_stamp_last(s, f, 100, 1), -EINVAL); /* none yet */
		for (int i = 0; i < 7; i++) {
			uint64_t t = 0x1122334455667788ull * (uint64_t)(i + 1);
			int n = rk_gen_stream_next_at(s, f, sizeof(f), 5);

			assert_true(n > 0);
			memcpy(g, f, (size_t)n);
			if (variant == 4) {
				assert_int_equal(rk_gen_stream_stamp_last(s, f, (uint32_t)n, t), -EINVAL);
				continue;
			}
			assert_int_equal(rk_gen_stream_stamp_last(s, f, (uint32_t)n, t), 0);
			assert_int_equal(rk_gen_stream_stamp(s, g, (uint32_t)n, t), 0);
			assert_memory_equal(f, g, (size_t)n);
			parse(&pkt, f, n);
			assert_int_equal(pkt.icrc_status, variant == 1 ? RK_ICRC_BAD : RK_ICRC_GOOD);
			assert_int_equal(rk_get_be64(f + pkt.payload_off + 12), t);
			assert_int_equal(rk_gen_stream_stamp_last(s, f, (uint32_t)n - 1, t), -EINVAL);
		}
		rk_gen_stream_free(s);
	}
}

static void
test_stamp(void **state)
{
	struct rk_gen_cfg c;
	struct rk_gen_stream *s;
	struct rk_pkt pkt;
	uint8_t f[RK_GEN_FRAME_MAX];
	int n;

	(void)state;
	rk_gen_cfg_init(&c);
	c.seq = true;
	c.stream_id = 7;
	c.count = 5;
	c.count_set = true;
	s = compile_ok(&c);
	for (int i = 0; i < 5; i++) {
		n = rk_gen_stream_next(s, f, sizeof(f));
		assert_int_equal(rk_gen_stream_stamp(s, f, (uint32_t)n, 1000000007ull * i), 0);
		parse(&pkt, f, n);
		assert_int_equal(pkt.icrc_status, RK_ICRC_GOOD);
		assert_int_equal(rk_get_be32(f + pkt.payload_off), 7);
		assert_int_equal(rk_get_be32(f + pkt.payload_off + 4), i);
		assert_int_equal(rk_get_be64(f + pkt.payload_off + 8), 1000000007ull * i);
	}
	assert_int_equal(rk_gen_stream_stamp(s, f, 40, 1), -EINVAL);
	/* the time given while the frame is built: same frames as stamped ones */
	rk_gen_stream_reset(s);
	for (int i = 0; i < 5; i++) {
		uint8_t g[RK_GEN_FRAME_MAX];
		int m = rk_gen_stream_next_at(s, g, sizeof(g), 0x0123456789abcdefull * i);

		parse(&pkt, g, m);
		assert_int_equal(pkt.icrc_status, RK_ICRC_GOOD);
		assert_int_equal(rk_get_be32(g + pkt.payload_off + 4), i);
		assert_int_equal(rk_get_be64(g + pkt.payload_off + 8), 0x0123456789abcdefull * i);
	}
	rk_gen_stream_reset(s);
	n = rk_gen_stream_next(s, f, sizeof(f));
	parse(&pkt, f, n);
	assert_int_equal(pkt.icrc_status, RK_ICRC_GOOD);
	assert_int_equal(rk_get_be64(f + pkt.payload_off + 8), 0);
	rk_gen_stream_free(s);
}

static void
test_errors(void **state)
{
	struct rk_gen_cfg c;
	struct rk_gen_stream *s;
	struct rk_gen_err err;
	struct rk_gen_ref ref;
	const char *why;
	uint8_t op;

	(void)state;
	rk_gen_cfg_init(&c);
	set(&c, "reth.va", 1);
	c.overrides[0].line = 12;
	memset(&err, 0, sizeof(err));
	assert_int_equal(rk_gen_stream_compile(&c, &s, &err), -EINVAL);
	assert_null(s);
	assert_int_equal(err.line, 12);
	assert_string_equal(err.field, "reth.va");

	rk_gen_cfg_init(&c);
	c.seq = true;
	c.seq_off = 60;
	memset(&err, 0, sizeof(err));
	assert_int_equal(rk_gen_stream_compile(&c, &s, &err), -EMSGSIZE);
	assert_string_equal(err.field, "payload.seq");

	rk_gen_cfg_init(&c);
	vary(&c, "psn", RK_GEN_VARY_INC)->max = 0x1000000;
	memset(&err, 0, sizeof(err));
	assert_int_equal(rk_gen_stream_compile(&c, &s, &err), -EINVAL);
	assert_string_equal(err.field, "bth.psn");

	rk_gen_cfg_init(&c);
	c.payload_len = 9000;
	c.vlan = true;
	c.ip_version = 6;
	c.opcode = RK_OP_RDMA_WRITE_ONLY;
	memset(&err, 0, sizeof(err));
	assert_int_equal(rk_gen_stream_compile(&c, &s, &err), 0);
	rk_gen_stream_free(s);
	c.payload_len = 9400;
	assert_int_equal(rk_gen_stream_compile(&c, &s, &err), -EMSGSIZE);

	assert_int_equal(rk_gen_ref_parse(&ref, "src", &why), -ENOENT);
	assert_int_equal(rk_gen_ref_parse(&ref, "bth.nope", &why), -ENOENT);
	assert_int_equal(rk_gen_ref_parse(&ref, "nope.psn", &why), -ENOENT);
	assert_int_equal(rk_gen_ref_parse(&ref, "R_Key", &why), 0);
	assert_int_equal(ref.hdr, RK_GEN_H_ANY);
	assert_int_equal(rk_gen_ref_parse(&ref, "BTH.PSN", &why), 0);
	assert_int_equal(ref.hdr, RK_GEN_H_BTH);

	assert_int_equal(rk_gen_opcode_parse("WRITE_ONLY", &op), 0);
	assert_int_equal(op, RK_OP_RDMA_WRITE_ONLY);
	assert_int_equal(rk_gen_opcode_parse("rc rdma write first", &op), 0);
	assert_int_equal(op, RK_OP_RDMA_WRITE_FIRST);
	assert_int_equal(rk_gen_opcode_parse("UD_SEND_ONLY", &op), 0);
	assert_int_equal(op, 0x64);
	assert_int_equal(rk_gen_opcode_parse("CNP", &op), 0);
	assert_int_equal(op, 0x81);
	assert_int_equal(rk_gen_opcode_parse("0x1e", &op), 0);
	assert_int_equal(op, 0x1e);
	assert_int_equal(rk_gen_opcode_parse("WRITE_SIDEWAYS", &op), -EINVAL);
	assert_int_equal(rk_gen_opcode_parse("256", &op), -EINVAL);
}

/* The field engine's values, wrapping included, against a plain model. */
static void
test_vary_values(void **state)
{
	struct rk_gen_vary v;
	uint64_t m;

	(void)state;
	memset(&v, 0, sizeof(v));
	v.op = RK_GEN_VARY_INC;
	v.min = 10;
	v.max = 13;
	v.step = 3;
	for (uint64_t i = 0, want = 12; i < 40; i++, want = 10 + (want - 10 + 3) % 4)
		assert_int_equal(rk_gen_vary_value(&v, 0xff, 12, i), want);
	v.op = RK_GEN_VARY_DEC;
	for (uint64_t i = 0, want = 12; i < 40; i++, want = 10 + (want - 10 + 4 - 3) % 4)
		assert_int_equal(rk_gen_vary_value(&v, 0xff, 12, i), want);
	/* a start outside the range: min going up, max going down */
	assert_int_equal(rk_gen_vary_value(&v, 0xff, 200, 0), 13);
	v.op = RK_GEN_VARY_INC;
	assert_int_equal(rk_gen_vary_value(&v, 0xff, 200, 0), 10);
	/* 64-bit fields near the top: no overflow in the wrap */
	v.min = 1;
	v.max = UINT64_MAX - 1;
	v.step = UINT64_MAX / 2;
	m = UINT64_MAX - 1; /* span */
	for (uint64_t i = 0, want = UINT64_MAX - 5; i < 20; i++) {
		assert_int_equal(rk_gen_vary_value(&v, UINT64_MAX, UINT64_MAX - 5, i), want);
		want = 1 + (uint64_t)(((unsigned __int128)(want - 1) + v.step) % m);
	}
	v.op = RK_GEN_VARY_DEC;
	for (uint64_t i = 0, want = 3; i < 20; i++) {
		assert_int_equal(rk_gen_vary_value(&v, UINT64_MAX, 3, i), want);
		want = 1 + (uint64_t)(((unsigned __int128)(want - 1) + m - v.step % m) % m);
	}
	/* every: each value kept for 5 frames; random stays in range */
	v.op = RK_GEN_VARY_INC;
	v.min = 0;
	v.max = 0;
	v.step = 1;
	v.every = 5;
	assert_int_equal(rk_gen_vary_value(&v, 0xffffff, 0, 14), 2);
	v.op = RK_GEN_VARY_RANDOM;
	v.min = 49152;
	v.max = 65535;
	v.every = 0;
	for (uint64_t i = 0; i < 1000; i++) {
		uint64_t r = rk_gen_vary_value(&v, 0xffff, 0, i);

		assert_true(r >= 49152 && r <= 65535);
		assert_int_equal(r, rk_gen_vary_value(&v, 0xffff, 0, i));
	}
}

/*
 * One stream sent in bursts of 1 to 7 frames by rk_gen_stream_copy_next()
 * into 8 buffers per template that hold earlier frames (a sender's kept
 * mbufs) against the same stream frame by frame: the same bytes, the same
 * count.
 */
static void
check_copy_next(const struct rk_gen_cfg *c)
{
	static uint8_t ring[3][8][RK_GEN_FRAME_MAX];
	static uint8_t want[RK_GEN_FRAME_MAX];
	uint32_t held[3][8] = { { 0 } }, turn[3] = { 0 }, n = 1;
	uint64_t done = 0;
	struct rk_gen_stream *a = compile_ok(c), *b = compile_ok(c);
	struct rk_gen_ref_frame f;
	const uint8_t *data = rk_gen_stream_next_ref(b, 0, &f);

	assert_non_null(data);
	while (f.len > 0) {
		uint8_t *bufs[7];
		uint32_t hl[7], idx[7], t = f.tmpl, len = f.len, k;

		for (uint32_t i = 0; i < n; i++) {
			idx[i] = (turn[t] + i) % 8;
			bufs[i] = ring[t][idx[i]];
			hl[i] = held[t][idx[i]];
		}
		k = rk_gen_stream_copy_next(b, bufs, hl, n, &f, &data);
		assert_true(k >= 1 && k <= n);
		for (uint32_t i = 0; i < k; i++, done++) {
			assert_int_equal(rk_gen_stream_next(a, want, sizeof(want)), (int)len);
			if (memcmp(bufs[i], want, len) != 0)
				fail_msg("frame %llu differs", (unsigned long long)done);
			held[t][idx[i]] = len;
		}
		turn[t] = (turn[t] + k) % 8;
		n = n % 7 + 1;
	}
	assert_int_equal(done, c->count);
	assert_int_equal(rk_gen_stream_next(a, want, sizeof(want)), 0);
	rk_gen_stream_free(a);
	rk_gen_stream_free(b);
}

static void
test_copy_next(void **state)
{
	struct rk_gen_cfg c;
	struct rk_gen_vary *v;

	(void)state;
	/* PSN across its wrap, a TTL kept 3 frames (a buffer may hold another
	 * value), an IP ID at random: incremental ICRC and checksum */
	rk_gen_cfg_init(&c);
	c.count = 1000;
	c.count_set = true;
	set(&c, "bth.psn", 0xfffe00);
	vary(&c, "psn", RK_GEN_VARY_INC);
	v = vary(&c, "ipv4.ttl", RK_GEN_VARY_INC);
	v->every = 3;
	vary(&c, "ipv4.id", RK_GEN_VARY_RANDOM);
	check_copy_next(&c);
	/* the same over IPv6 and a VLAN, ICRC bad */
	c.ip_version = 6;
	c.vlan = true;
	c.icrc = RK_GEN_ICRC_BAD;
	c.nvary = 1;
	check_copy_next(&c);
	/* a train: three templates, bursts cut at each change; ICRC in full */
	rk_gen_cfg_init(&c);
	c.train = RK_GEN_TRAIN_WRITE;
	c.payload_len = 3000;
	c.pmtu = 1024;
	c.count = 700;
	c.count_set = true;
	c.icrc = RK_GEN_ICRC_FULL;
	vary(&c, "DestQP", RK_GEN_VARY_RANDOM);
	check_copy_next(&c);
	/* truncated before the ICRC: whole copies of the changed words */
	rk_gen_cfg_init(&c);
	c.count = 300;
	c.count_set = true;
	c.truncate = 60;
	vary(&c, "psn", RK_GEN_VARY_INC);
	vary(&c, "ipv4.ttl", RK_GEN_VARY_RANDOM);
	check_copy_next(&c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_frame),
		cmocka_unit_test(test_variations_ipv4),
		cmocka_unit_test(test_variations_ipv6),
		cmocka_unit_test(test_invalid_fields),
		cmocka_unit_test(test_icrc_bad_and_truncate),
		cmocka_unit_test(test_write_train),
		cmocka_unit_test(test_read_and_ack_trains),
		cmocka_unit_test(test_next_ref_dirty_ranges),
		cmocka_unit_test(test_mac_control_and_cnp),
		cmocka_unit_test(test_stamp),
		cmocka_unit_test(test_stamp_last),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_vary_values),
		cmocka_unit_test(test_copy_next),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
