/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stream files: a good file read into the configurations it says, streams
 * built from it, and bad files refused with the exact one-line error.
 */
#include "rk_test.h"

#include <errno.h>
#include <stdio.h>

#include "rk_bth.h"
#include "rk_gen_yaml.h"
#include "rk_opcode.h"
#include "rk_pkt.h"

static const char good[] =
	"streams:\n"
	"  - name: write-psn\n"
	"    count: 100\n"
	"    rate: 2Mpps\n"
	"    vlan: {pcp: 3, VID: 100}\n"
	"    ipv4: {src: 198.18.0.1, dst: 198.18.0.2, dscp: 26, ecn: 2}\n"
	"    udp: {src_port: 0xc001}\n"
	"    BTH: {opcode: RC_RDMA_WRITE_ONLY, DestQP: 0x12, psn: 5, ack_req: true}\n"
	"    reth: {va: 0x1000, R_Key: 0x1234}\n"
	"    payload: {len: 256, pattern: inc, seq: true, stream_id: 9}\n"
	"    vary:\n"
	"      - {field: psn, op: inc}\n"
	"      - {field: bth.dest_qp, op: list, values: [0x12, 0x13, 0x14]}\n"
	"      - {field: udp.src_port, op: random, min: 49152, max: 65535, seed: 3}\n"
	"      - {field: ipv4.dst, op: inc, min: 198.18.0.2, max: 198.18.0.9}\n"
	"      - {field: payload, offset: 32, size: 2, op: dec}\n"
	"  - name: v6-train\n"
	"    ports: 2\n"
	"    ipv6: {src: '2001:2::1', dst: '2001:2::2', flow_label: 7}\n"
	"    train: {op: SEND, message: 5000, pmtu: 2048}\n"
	"  - name: pfc\n"
	"    ports: [0, 7, 3]\n"
	"    pfc: {quanta: [0, 0, 0, 0xffff]}\n"
	"  - name: cnp\n"
	"    bth: {opcode: CNP, becn: 1}\n"
	"    icrc: bad\n"
	"    burst: {frames: 4, gap_us: 10}\n"
	"    on_off: {on_us: 100, off_us: 900}\n";

static void
test_good_file(void **state)
{
	struct rk_gen_file *f;
	struct rk_gen_stream *s;
	struct rk_pkt pkt;
	char err[256];
	uint8_t fr[RK_GEN_FRAME_MAX];
	int n, frames = 0;

	(void)state;
	assert_int_equal(rk_gen_yaml_parse(good, strlen(good), "good.yaml", &f, err, sizeof(err)), 0);
	assert_int_equal(f->nstreams, 4);
	assert_string_equal(f->streams[0].name, "write-psn");
	assert_int_equal(f->streams[0].count, 100);
	assert_int_equal(f->streams[0].rate_unit, RK_GEN_RATE_PPS);
	assert_true(f->streams[0].rate == 2e6);
	assert_true(f->streams[0].vlan);
	assert_int_equal(f->streams[0].opcode, RK_OP_RDMA_WRITE_ONLY);
	assert_int_equal(f->streams[0].nvary, 5);
	assert_int_equal(f->streams[0].vary[3].min, 0xc6120002);
	assert_int_equal(f->streams[0].ports, 0);      /* every port */
	assert_int_equal(f->streams[1].ports, 1u << 2);
	assert_int_equal(f->streams[2].ports, 0x89);
	assert_int_equal(f->streams[1].ip_version, 6);
	assert_int_equal(f->streams[1].train, RK_GEN_TRAIN_SEND);
	assert_int_equal(f->streams[2].kind, RK_GEN_PFC);
	assert_int_equal(f->streams[2].pfc_quanta[3], 0xffff);
	assert_int_equal(f->streams[3].icrc, RK_GEN_ICRC_BAD);
	assert_int_equal(f->streams[3].burst_frames, 4);
	assert_int_equal(f->streams[3].burst_gap_us, 10);
	assert_int_equal(f->streams[3].on_us, 100);
	assert_int_equal(f->streams[3].off_us, 900);

	assert_int_equal(rk_gen_stream_compile(&f->streams[0], &s, NULL), 0);
	while ((n = rk_gen_stream_next(s, fr, sizeof(fr))) > 0) {
		assert_int_equal(rk_pkt_parse(&pkt, fr, (uint32_t)n, (uint32_t)n, RK_LINK_ETHERNET,
					      NULL), 0);
		assert_int_equal(pkt.icrc_status, RK_ICRC_GOOD);
		assert_int_equal(pkt.findings.count, 0);
		assert_int_equal(pkt.vlan_tci[0] & 0xfff, 100);
		assert_int_equal(pkt.dscp, 26);
		assert_int_equal(rk_bth_psn(fr + pkt.bth_off), 5 + frames);
		assert_int_equal(rk_bth_dest_qp(fr + pkt.bth_off), 0x12 + frames % 3);
		assert_int_equal(pkt.dst_ip[15], 2 + frames % 8);
		frames++;
	}
	assert_int_equal(frames, 100);
	rk_gen_stream_free(s);

	assert_int_equal(rk_gen_stream_compile(&f->streams[1], &s, NULL), 0);
	frames = 0;
	while ((n = rk_gen_stream_next(s, fr, sizeof(fr))) > 0) {
		assert_int_equal(rk_pkt_parse(&pkt, fr, (uint32_t)n, (uint32_t)n, RK_LINK_ETHERNET,
					      NULL), 0);
		assert_int_equal(pkt.ip_version, 6);
		assert_int_equal(pkt.src_ip[15], 1);
		assert_int_equal(pkt.flow_label, 7);
		assert_int_equal(pkt.icrc_status, RK_ICRC_GOOD);
		frames++;
	}
	assert_int_equal(frames, 3);
	rk_gen_stream_free(s);
	rk_gen_file_free(f);
}

/* Each bad file and the one line it must get. */
static const struct {
	const char *text;
	const char *error;
} bad_files[] = {
	{ "streams:\n  - name: a\n    bth: {psn: 0x1000000}\n",
	  "t.yaml:3: field 'bth.psn': value 0x1000000 out of range for a 24-bit field" },
	{ "streams:\n  - name: a\n    bth: {pns: 1}\n",
	  "t.yaml:3: field 'bth.pns': unknown field" },
	{ "streams:\n  - name: a\n    bht: {psn: 1}\n",
	  "t.yaml:3: field 'bht': unknown field" },
	{ "streams:\n  - name: a\n    bth:\n      opcode: WRITE_SIDEWAYS\n",
	  "t.yaml:4: field 'bth.opcode': unknown opcode name" },
	{ "streams:\n  - name: a\n    vary:\n      - {field: psn, op: sideways}\n",
	  "t.yaml:4: field 'vary[0].op': inc, dec, random or list" },
	{ "streams:\n  - name: a\n    vary:\n      - {field: psn}\n",
	  "t.yaml:4: field 'vary[0].op': missing: inc, dec, random or list" },
	{ "streams:\n  - name: a\n    vary:\n      - {op: inc}\n",
	  "t.yaml:4: field 'vary[0]': needs field: the field to vary" },
	{ "streams:\n  - name: a\n    vary:\n      - {field: psn, op: list}\n",
	  "t.yaml:4: field 'vary[0].op': op: list needs values" },
	{ "streams:\n  - name: a\n    pause: {quanta: 1}\n    pfc: {class_enable: 1}\n",
	  "t.yaml:4: field 'pfc': pause: and pfc: exclude each other" },
	{ "streams:\n  - name: a\n---\nstreams:\n  - name: b\n",
	  "t.yaml:4: field '(document)': a second YAML document: one per file" },
	{ "streams:\n  - name: a\n    bth: {psn: 1}\n    bth: {psn: 2}\n",
	  "t.yaml:4: field 'streams': 'bth' given twice (first on line 3)" },
	{ "streams:\n  - name: a\n    bth: {opcode: 256}\n",
	  "t.yaml:3: field 'bth.opcode': an opcode number is 0..255" },
	{ "streams:\n  - name: a\n    vary:\n      - {field: psn, op: inc, step: 0}\n",
	  "t.yaml:4: field 'vary[0].step': at least 1" },
	{ "streams:\n  - name: a\n    vary:\n      - {field: psn, op: inc, every: 0}\n",
	  "t.yaml:4: field 'vary[0].every': at least 1" },
	{ "streams:\n  - name: a\n    vary:\n      - {field: psn, op: inc, min: 10, max: 5}\n",
	  "t.yaml:4: field 'vary[0].min': min above max" },
	{ "streams:\n  - name: a\n    vary:\n      - {field: psn, op: inc, max: 0x1000000}\n",
	  "t.yaml:4: field 'vary[0].max': value 0x1000000 out of range for a 24-bit field" },
	{ "streams:\n  - name: a\n    vary:\n      - {field: ipv4.src, op: inc, min: 1.2.3}\n",
	  "t.yaml:4: field 'vary[0].min': not an IPv4 address" },
	{ "streams:\n  - name: a\n    reth: {va: 1}\n",
	  "t.yaml:3: field 'reth.va': the frame has no such field (RC SEND Only)" },
	{ "streams:\n  - name: a\n    ipv4: {ttl: 1}\n    ipv6: {hop_limit: 1}\n",
	  "t.yaml:4: field 'ipv6': a stream is IPv4 or IPv6, not both" },
	{ "streams:\n  - name: a\n    ipv4: {src: 198.18.0.256}\n",
	  "t.yaml:3: field 'ipv4.src': not an IPv4 address" },
	{ "streams:\n  - name: a\n    train: {op: WRITE, message: 100, pmtu: 1000}\n",
	  "t.yaml:3: field 'train.pmtu': 256, 512, 1024, 2048 or 4096" },
	{ "streams:\n  - name: a\n    train: {op: WRITE}\n    bth: {opcode: SEND_ONLY}\n",
	  "t.yaml:4: field 'bth.opcode': a train sets the opcodes" },
	{ "streams:\n  - name: a\n    payload: {len: 8, seq: true}\n",
	  "t.yaml:2: field 'payload.seq': slot at 0 needs 16 payload bytes, the frame has 8" },
	{ "streams:\n  - name: a\n    rate: fast\n",
	  "t.yaml:3: field 'rate': 'fast' is not a rate (1Mpps, 10Gbps, 50%)" },
	{ "streams:\n  - name: a\n    icrc: maybe\n",
	  "t.yaml:3: field 'icrc': full, incremental or bad" },
	{ "streams:\n  - name: a\n    pfc: {quanta: [1, 2, 3, 4, 5, 6, 7, 8, 9]}\n",
	  "t.yaml:3: field 'pfc.quanta': more than 8 priorities" },
	{ "streams:\n  - name: a\n    vlan: {pcp: 8}\n",
	  "t.yaml:3: field 'vlan.pcp': value 8 out of range for a 3-bit field" },
	{ "streams:\n  - name: a\n    eth: {dst: 02:00:00:00:00}\n",
	  "t.yaml:3: field 'eth.dst': not a MAC address (six hex bytes, 02:00:00:00:00:01)" },
	{ "streams:\n  - name: a\n    on_off: {off_us: 5}\n",
	  "t.yaml:2: field 'on_off.on_us': 0 with off_us set: the stream would never send" },
	{ "streams:\n  - name: a\n    burst: {frames: 4, gap: 5}\n",
	  "t.yaml:3: field 'burst.gap': unknown field" },
	{ "streams:\n  - name: a\n    ports: 8\n",
	  "t.yaml:3: field 'ports': value 8 out of range (0..7)" },
	{ "streams:\n  - name: a\n    ports: []\n",
	  "t.yaml:3: field 'ports': a port index (0 to 7) or a list of them" },
	{ "streams:\n  - name: a\n    ports: [1, [2]]\n",
	  "t.yaml:3: field 'ports': a list of port indexes" },
	{ "streams:\n  - name: a\n    ports: [1, x]\n",
	  "t.yaml:3: field 'ports': 'x' is not a number from 0 to 7" },
	{ "streams:\n  - name: a\n    ports: -1\n",
	  "t.yaml:3: field 'ports': '-1' is not a number from 0 to 7" },
	{ "streams:\n  - name: a\n    ports:\n",
	  "t.yaml:3: field 'ports': '' is not a number from 0 to 7" },
	{ "streams:\n  - name: a\n    count: many\n",
	  "t.yaml:3: field 'count': 'many' is not a number (0 or more)" },
	{ "streams: []\n", "t.yaml:1: field 'streams': a list of one or more streams" },
	{ "stream:\n  - name: a\n", "t.yaml:1: field 'stream': unknown field" },
	{ "streams:\n  - name: a\n    bth: {psn: [1\n",
	  "t.yaml:4: field '(document)': YAML: did not find expected ',' or ']'" },
	{ "", "t.yaml:1: field 'streams': expected a mapping with a streams: list" },
};

static void
test_bad_files(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_files) / sizeof(bad_files[0]); i++) {
		struct rk_gen_file *f = (struct rk_gen_file *)1;
		char err[256];
		int rc = rk_gen_yaml_parse(bad_files[i].text, strlen(bad_files[i].text), "t.yaml", &f,
					   err, sizeof(err));

		if (rc != -EINVAL || strcmp(err, bad_files[i].error) != 0)
			fail_msg("file %zu: rc %d, got \"%s\", want \"%s\"", i, rc, err,
				 bad_files[i].error);
		assert_null(f);
	}
}

/* A file that cannot be read is named with the reason (a directory too). */
static void
test_load_errors(void **state)
{
	struct rk_gen_file *f = (struct rk_gen_file *)1;
	char err[256];

	(void)state;
	assert_int_equal(rk_gen_yaml_load(".", &f, err, sizeof(err)), -EIO);
	assert_null(f);
	assert_string_equal(err, ".: Is a directory");
	assert_int_equal(rk_gen_yaml_load("/no/such/file.yaml", &f, err, sizeof(err)), -EIO);
	assert_string_equal(err, "/no/such/file.yaml: No such file or directory");
}

/* The command line's short forms. */
static void
test_cfg_set_and_vary(void **state)
{
	struct rk_gen_cfg c;
	const char *why = NULL;

	(void)state;
	rk_gen_cfg_init(&c);
	assert_int_equal(rk_gen_cfg_set(&c, "eth.dst", "02:00:00:00:00:09", 0, &why), 0);
	assert_int_equal(c.overrides[0].value, 0x020000000009ull);
	assert_int_equal(rk_gen_cfg_set(&c, "ipv6.dst", "2001:2::9", 0, &why), 0);
	assert_int_equal(c.ip_version, 6);
	assert_int_equal(c.noverrides, 3);
	assert_int_equal(c.overrides[2].value, 9);
	assert_int_equal(rk_gen_cfg_set(&c, "bth.tver", "16", 0, &why), -EINVAL);
	assert_string_equal(why, "value 16 out of range for a 4-bit field");
	assert_int_equal(rk_gen_cfg_vary(&c, "psn:inc", &why), 0);
	assert_int_equal(rk_gen_cfg_vary(&c, "udp.src_port:random:49152:65535", &why), 0);
	assert_int_equal(c.vary[1].min, 49152);
	assert_int_equal(rk_gen_cfg_vary(&c, "psn:list", &why), -EINVAL);
	assert_int_equal(rk_gen_cfg_vary(&c, "psn", &why), -EINVAL);
	assert_int_equal(rk_gen_cfg_vary(&c, "nope:inc", &why), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_file),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_cfg_set_and_vary),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
