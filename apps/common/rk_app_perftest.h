/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_app_perftest.h
 * The messages of perftest's out-of-band exchange (perftest 5.70 .. 6.x,
 * "Data ex. method: Ethernet" and, for the binary key form, -R), shared by
 * rk-interop (both roles) and rk-testpmd's responder engine. Every step is
 * one message each way of the same length; the client writes first, the
 * server reads first. The exchange itself (TCP, or SENDs on an RDMA-CM
 * QP) is the caller's: each step goes through an rk_pt_xchg_fn. No DPDK.
 *
 * In order, as perftest's TCP exchange runs a bw test:
 *   version       RK_PT_VERSION_LEN bytes, NUL-padded text ("6.06")
 *   cycle buffer  4 bytes, big endian (4096)
 *   cache line    4 bytes, big endian (64)
 *   MTU           2 bytes: the enum ibv_mtu value as text ("3"), NUL
 *   keys          RK_PT_KEY_LEN bytes of text (rk_pt_keys_encode()), then
 *                 the same message again as a barrier (2 more for
 *                 write/read/atomic_bw, 3 for send_bw)
 *   ... data ...
 *   keys, the five report messages (rk_pt_reports(); not send_bw), keys,
 *   "done" (5 bytes with the NUL) from each side, and close.
 */
#ifndef RK_APP_PERFTEST_H
#define RK_APP_PERFTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RK_PT_VERSION "6.06"
#define RK_PT_VERSION_LEN 16
#define RK_PT_CYCLE 4096u
#define RK_PT_CACHE_LINE 64u
/** The text key message: 6 fields, 16 GID bytes and the SRQN, each "hex:", and a NUL. */
#define RK_PT_KEY_LEN 108
/** The binary key message (-R): perftest's struct pingpong_dest, big endian. */
#define RK_PT_KEY_BIN_LEN 56
/** perftest's default TCP port of the exchange. */
#define RK_PT_TCP_PORT 18515

/** One end's part of a key message. */
struct rk_pt_dest {
	uint32_t lid;           /**< 0 on RoCE */
	uint32_t out_reads;     /**< READs/atomics this end keeps outstanding */
	uint32_t qpn;           /**< 24 bits */
	uint32_t psn;           /**< first PSN this end sends, 24 bits */
	uint32_t rkey;          /**< R_Key of the region the peer may access */
	uint32_t srqn;          /**< 0 without an SRQ */
	uint64_t vaddr;         /**< the region's address */
	uint8_t gid[16];        /**< GID; ::ffff:a.b.c.d for RoCEv2 over IPv4 */
};

/**
 * One exchange step: send @p len bytes of @p mine, receive @p len bytes
 * into @p theirs (in the role's order). @return 0, or -1 (the callback
 * reported why).
 */
typedef int (*rk_pt_xchg_fn)(void *ctx, const void *mine, void *theirs, size_t len);

/**
 * The text key message: "%04x:%04x:%06x:%06x:%08x:%016x:" of LID,
 * OUT_READS, QPN, PSN, RKEY, VADDR, the 16 GID bytes "%02x:" each, the
 * SRQN "%08x:", then a NUL (RK_PT_KEY_LEN bytes in all).
 */
void rk_pt_keys_encode(const struct rk_pt_dest *d, char msg[RK_PT_KEY_LEN]);

/**
 * Parse a text key message (a NUL within RK_PT_KEY_LEN bytes, at least the
 * 22 fields before the SRQN, each hex).
 * @return 0, or -EINVAL (malformed, or a QPN or PSN past 24 bits)
 */
int rk_pt_keys_decode(struct rk_pt_dest *d, const char msg[RK_PT_KEY_LEN]);

/**
 * One key step: *@p mine encoded (rk_pt_keys_encode()) and exchanged
 * through @p x, the peer's message decoded into *@p theirs (may be NULL).
 * @return 0; -1 when the step failed (@p x said why); -EINVAL when the
 *         peer's message is malformed (its first 40 characters into
 *         @p bad, NUL-terminated)
 */
int rk_pt_keys_xchg(rk_pt_xchg_fn x, void *ctx, const struct rk_pt_dest *mine,
		    struct rk_pt_dest *theirs, char bad[41]);

/**
 * The binary key message: LID, OUT_READS, QPN, PSN, RKEY as 32-bit words
 * at bytes 0, 4, 8, 12, 16; VADDR 64-bit at 24; the GID at 32..47; SRQN at
 * 48; 1 (gid_index valid) at 52; all big endian, the rest zeros.
 */
void rk_pt_keys_bin_encode(const struct rk_pt_dest *d, uint8_t msg[RK_PT_KEY_BIN_LEN]);

/**
 * Parse a binary key message into *@p d (QPN and PSN masked to 24 bits).
 * @return false, leaving *@p d alone, when RKEY and VADDR are both 0 (what
 *         perftest sends while its data QP does not exist yet)
 */
bool rk_pt_keys_bin_decode(struct rk_pt_dest *d, const uint8_t msg[RK_PT_KEY_BIN_LEN]);

/**
 * One binary key step (-R): *@p mine encoded (rk_pt_keys_bin_encode();
 * NULL: zeros, what perftest sends while its data QP does not exist) and
 * exchanged through @p x; the peer's decoded into *@p theirs (may be NULL)
 * unless it is such a zero message, so the last real one is kept.
 * @return 0, or -1 when the step failed (@p x said why)
 */
int rk_pt_keys_bin_xchg(rk_pt_xchg_fn x, void *ctx, const struct rk_pt_dest *mine,
			struct rk_pt_dest *theirs);

/**
 * The preamble's four steps: version (RK_PT_VERSION; the peer's, NUL
 * terminated, into @p rver), cycle buffer (RK_PT_CYCLE; the peer's into
 * *@p peer_cycle), cache line (RK_PT_CACHE_LINE) and MTU (@p mtu: the
 * enum value's digit and a NUL; the peer's into @p rmtu, NUL terminated).
 * @return 0; -1 when a step failed (@p x said why); -EPROTO when the
 *         peer's version does not start with a digit 5..9 (not perftest
 *         5.70 or later: no step past the version was made)
 */
int rk_pt_preamble(rk_pt_xchg_fn x, void *ctx, const char mtu[2], char rmtu[3],
		   char rver[RK_PT_VERSION_LEN + 1], uint32_t *peer_cycle);

/** A bw test's report, as each end sends it at the end. */
struct rk_pt_report {
	uint64_t size;          /**< message size, bytes (atomics: 8) */
	uint64_t iters;         /**< operations this end completed (a passive server: 0) */
	double peak_mbs;        /**< MB/s (2^20 bytes) */
	double avg_mbs;         /**< MB/s (2^20 bytes) */
	double mpps;            /**< million operations per second */
};

/**
 * The report exchange: five steps of 8 bytes, big endian: size, iters,
 * then the IEEE 754 bits of peak_mbs, avg_mbs and mpps. *@p theirs gets
 * the peer's. @return 0 or -1 (@p x said why)
 */
int rk_pt_reports(rk_pt_xchg_fn x, void *ctx, const struct rk_pt_report *mine,
		  struct rk_pt_report *theirs);

/**
 * Sum of the 64-bit words (host order) of @p b, @p len bytes (a tail
 * under 8 bytes left out): what an atomic_bw responder's region grew by,
 * one per FETCH_AND_ADD of 1 executed.
 */
uint64_t rk_pt_word_sum(const uint8_t *b, size_t len);

#endif /* RK_APP_PERFTEST_H */
