/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_gen_yaml.h
 * The stream file of rk-gen: YAML (libyaml) into struct rk_gen_cfg.
 * doc/gen.md is the reference of the schema; in short:
 *
 *     streams:
 *       - name: write-psn          # any text
 *         count: 1000              # frames (0: endless; a train: one message)
 *         rate: 1Mpps              # pps, kpps, Mpps, bps, kbps, Mbps, Gbps, or N%
 *         icrc: incremental        # full | incremental | bad
 *         truncate: 60             # cut each frame to 60 bytes
 *         eth: {dst: 02:00:00:00:00:02}
 *         vlan: {pcp: 3, vid: 100}  # present: one 802.1Q tag
 *         ipv4: {src: 198.18.0.1, dscp: 26, ecn: 3}   # or ipv6: {...}
 *         udp: {src_port: 49152}
 *         bth: {opcode: WRITE_ONLY, dest_qp: 0x12, psn: 0, tver: 1}
 *         reth: {va: 0x1000, r_key: 0x1234}
 *         payload: {len: 256, pattern: inc, seq: true, seq_offset: 0}
 *         train: {op: WRITE, message: 10000, pmtu: 1024}
 *         pfc: {quanta: [0, 0, 0, 65535, 0, 0, 0, 0]}   # or pause: {quanta: N}
 *         vary:
 *           - {field: psn, op: inc}
 *           - {field: udp.src_port, op: random, min: 49152, max: 65535}
 *           - {field: dest_qp, op: list, values: [0x12, 0x13]}
 *
 * A header's keys are the field names of its table (lib/wire rk_field.h),
 * the spec's ("PSN") or the key ("psn"); every field can be set, to any
 * value its width holds. ipv6 also takes src and dst as whole addresses.
 */
#ifndef RK_GEN_YAML_H
#define RK_GEN_YAML_H

#include <stddef.h>
#include <stdint.h>

#include "rk_gen_stream.h"

/** Most streams one file holds. */
#define RK_GEN_FILE_STREAMS_MAX 32

/** The streams of one file. */
struct rk_gen_file {
	uint32_t nstreams;
	struct rk_gen_cfg streams[RK_GEN_FILE_STREAMS_MAX];
};

/**
 * Parse a stream file held in memory, and compile each stream once to
 * check it (a field its frame lacks, a sequence slot past the payload).
 * @param buf    the file's bytes (need not end in NUL)
 * @param fname  the name errors carry
 * @param out    receives the streams (free with rk_gen_file_free())
 * @param err    receives one line, without newline:
 *               "FILE:LINE: field 'x': reason"
 * @return 0, -EINVAL for a bad file (err says why), -ENOMEM.
 */
int rk_gen_yaml_parse(const char *buf, size_t len, const char *fname, struct rk_gen_file **out,
		      char *err, size_t errlen);

/** Largest stream file rk_gen_yaml_load() reads, bytes. */
#define RK_GEN_FILE_BYTES_MAX (64u << 20)

/**
 * Read stream file @p path (at most RK_GEN_FILE_BYTES_MAX bytes) and parse
 * it as rk_gen_yaml_parse() does: what rk-gen's --stream and rk-testpmd's
 * "load streams" share.
 * @param out  receives the streams (free with rk_gen_file_free())
 * @param err  receives one line, without newline: "FILE:LINE: field 'x':
 *             reason" for a bad file, "FILE: reason" when it cannot be read
 * @return 0, -EINVAL for a bad file, -ENOMEM, or -EIO when the file
 *         cannot be read (opened, read, or it is too large)
 */
int rk_gen_yaml_load(const char *path, struct rk_gen_file **out, char *err, size_t errlen);

/** Free what rk_gen_yaml_parse() returned (NULL is fine). */
void rk_gen_file_free(struct rk_gen_file *f);

/**
 * Set a field of @p c from text, as a stream file and rk-gen's --set do:
 * "bth.psn" = "12", "eth.dst" = "02:00:00:00:00:02", "ipv4.src" =
 * "198.18.0.9", "ipv6.dst" = "2001:2::9", "bth.opcode" = "WRITE_ONLY".
 * @param why  receives the reason on failure
 * @return 0, or -EINVAL (unknown header or field, value not a number,
 *         wider than the field, unknown opcode name, too many overrides).
 */
int rk_gen_cfg_set(struct rk_gen_cfg *c, const char *field, const char *value, uint32_t line,
		   const char **why);

/**
 * Add a variation from a short text, as rk-gen's --vary does:
 * "FIELD:OP" or "FIELD:OP:MIN:MAX[:STEP[:EVERY]]" (OP inc, dec, random;
 * EVERY: frames each value is kept for).
 * @return 0, or -EINVAL with @p why set.
 */
int rk_gen_cfg_vary(struct rk_gen_cfg *c, const char *spec, const char **why);

#endif /* RK_GEN_YAML_H */
