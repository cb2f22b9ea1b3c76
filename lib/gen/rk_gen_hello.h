/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_gen_hello.h
 * The parameters rk-gen's stateful mode exchanges out of band before its
 * RC QPs connect: who the end is (MAC, IP), what the client will send,
 * and one entry per QP with what the peer needs to connect it and to
 * address its memory (IBTA Vol1 9.4.3: DestQP, PSN, R_Key, VA, DMALen).
 *
 * Layout, network byte order; a header of RK_GEN_HELLO_HDR_LEN bytes:
 *   0  magic "RKGS" (4)        4  version (2)        6  role (1)
 *   7  ops (1, bitmask of enum rk_gen_hello_op)      8  count (4)
 *  12  path MTU, bytes (4)    16  depth (4)         20  size_min (4)
 *  24  size_max (4)           28  verify (1)        29  ip_version (1)
 *  30  MAC (6)                36  IP (16; IPv4 in the last 4)
 *  52  weights (4 x 1: write, read, send, atomic)  56  cmp_swap weight (1)
 *  57  version 4 only: address count M (2; 2..256)
 *  59  reserved (5, sent as 0, not read; version 3: 57..63)
 * then count entries of RK_GEN_HELLO_QP_LEN bytes:
 *   0  QPN (4)  4  PSN (4)  8  R_Key (4)  12  VA (8)  20  length (8)
 * Version 4 is a client of several source addresses (--ip-count): IPv4,
 * IP and the M - 1 after it in the same /24, QP i at IP + (i mod M); a
 * client of one address sends version 3. Versions 1 and 2 (the same bytes)
 * come from rk-gens whose message data and slots were laid out otherwise
 * (each message's own seed, depth slots per QP): their data would not
 * verify against this one's, so they are refused (-EPROTONOSUPPORT).
 * Encoding and decoding are pure: no I/O, no allocation.
 */
#ifndef RK_GEN_HELLO_H
#define RK_GEN_HELLO_H

#include <stddef.h>
#include <stdint.h>

#define RK_GEN_HELLO_MAGIC 0x524b4753u  /* "RKGS" */
/** The version of a hello of one address; 1 and 2 are refused (see above). */
#define RK_GEN_HELLO_VERSION 3
/** The version of a hello of several addresses (ip_count above 1). */
#define RK_GEN_HELLO_VERSION_ADDRS 4
/** Most addresses one end may use (ip_count). */
#define RK_GEN_HELLO_MAX_ADDRS 256u
#define RK_GEN_HELLO_HDR_LEN 64
#define RK_GEN_HELLO_QP_LEN 28
/** Most QPs a hello may carry (24-bit QPNs allow more; a port holds fewer). */
#define RK_GEN_HELLO_MAX_QPS 65536u

/** Which end wrote the hello. */
enum rk_gen_hello_role {
	RK_GEN_HELLO_CLIENT = 1,
	RK_GEN_HELLO_RESPONDER = 2,
};

/** Operations the client mixes (ops bitmask). */
enum rk_gen_hello_op {
	RK_GEN_OP_WRITE = 1,    /**< RDMA WRITE with Immediate */
	RK_GEN_OP_READ = 2,     /**< RDMA READ */
	RK_GEN_OP_SEND = 4,     /**< SEND with Immediate */
	RK_GEN_OP_ATOMIC = 8,   /**< FETCH_ADD of 1 on the QP's 8-byte word */
	/** CMP_SWAP on the QP's second 8-byte word: compare the value the client
	 * expects there, swap in that value + 1 (IBTA Vol1 9.4.5; AtomicETH: IBTA Vol1 9.3.4) */
	RK_GEN_OP_CMP_SWAP = 16,
};

/** Ops of the mix, in weight order (weight[b] is op 1 << b). */
#define RK_GEN_HELLO_NOPS 5

/** One QP's entry. */
struct rk_gen_hello_qp {
	uint32_t qpn;           /**< 24 bits */
	uint32_t psn;           /**< first PSN it sends, 24 bits */
	uint32_t rkey;          /**< R_Key of its region */
	uint64_t va;            /**< start of its region */
	uint64_t len;           /**< bytes of its region */
};

/** A decoded hello; @p qp points at count entries. */
struct rk_gen_hello {
	uint8_t role;           /**< enum rk_gen_hello_role */
	uint8_t ops;            /**< enum rk_gen_hello_op bits, at least one */
	uint8_t weight[RK_GEN_HELLO_NOPS]; /**< write, read, send, atomic (FETCH_ADD), cmp_swap:
					    * the mix's shares, 1..255 (0 for ops not in it) */
	uint8_t verify;         /**< 0 or 1 */
	uint8_t ip_version;     /**< 4 or 6 */
	uint8_t mac[6];
	uint8_t ip[16];
	/** Addresses: ip and the ip_count - 1 after it (last byte counted up, one /24);
	 * QP i uses the (i mod ip_count)-th. 0 or 1: ip alone (version 1). */
	uint16_t ip_count;
	uint32_t count;         /**< QPs, 1..RK_GEN_HELLO_MAX_QPS */
	uint32_t mtu;           /**< 256, 512, 1024, 2048 or 4096 */
	uint32_t depth;         /**< messages outstanding per QP, >= 1 */
	uint32_t size_min;      /**< message bytes, 1 <= size_min <= size_max */
	uint32_t size_max;
	struct rk_gen_hello_qp *qp;
};

/** Bytes of a hello of @p count QPs. */
size_t rk_gen_hello_len(uint32_t count);

/**
 * Encode @p h into @p buf (@p cap bytes).
 * @return bytes written; -EINVAL when a field is out of its range (as
 *         rk_gen_hello_decode() would refuse it), -ENOSPC when @p cap is short.
 */
long rk_gen_hello_encode(const struct rk_gen_hello *h, uint8_t *buf, size_t cap);

/**
 * Check a hello's header (the first @p len bytes received) and give its
 * QP count, so the caller knows how many more bytes to read.
 * @return 0; -EMSGSIZE (@p len shorter than the header), -EPROTO (not the
 *         magic), -EPROTONOSUPPORT (a version other than 1 and 2), -ERANGE (count 0 or
 *         above RK_GEN_HELLO_MAX_QPS).
 */
int rk_gen_hello_peek(const uint8_t *buf, size_t len, uint32_t *count);

/**
 * Decode a whole hello of exactly @p len bytes into @p h, its entries into
 * @p qp (room for @p max_qp). Never reads past @p len.
 * @return 0; the errors of rk_gen_hello_peek(), -EMSGSIZE (fewer or more
 *         bytes than the count says), -ENOSPC (count above @p max_qp),
 *         -EINVAL (a field out of range: role, ops and weights, MTU,
 *         depth, sizes, verify, IP version, a QPN or PSN over 24 bits, a
 *         region shorter than size_max; version 2: an address count not
 *         2..256, not IPv4, or passing x.y.z.255).
 */
int rk_gen_hello_decode(const uint8_t *buf, size_t len, struct rk_gen_hello *h,
			struct rk_gen_hello_qp *qp, uint32_t max_qp);

/*
 * A refusal, what a responder sends instead of its hello when it will not
 * serve the client (too many QPs, a bad hello, no memory), before it
 * closes: a header of RK_GEN_HELLO_HDR_LEN bytes, so a client reading a
 * hello header reads it whole:
 *   0  magic "RKGR" (4)    4  reason length L (2, at most RK_GEN_REFUSAL_MAX)
 *   6  zeros (58)
 * then L bytes of text, the reason (no NUL).
 */
#define RK_GEN_REFUSAL_MAGIC 0x524b4752u  /* "RKGR" */
#define RK_GEN_REFUSAL_MAX 240

/**
 * Encode a refusal of @p reason (cut at RK_GEN_REFUSAL_MAX bytes) into
 * @p buf. @return bytes written (RK_GEN_HELLO_HDR_LEN + L), -ENOSPC when
 *         @p cap is short.
 */
long rk_gen_refusal_encode(const char *reason, uint8_t *buf, size_t cap);

/**
 * Whether the header in @p buf (@p len bytes) is a refusal.
 * @return its reason length L (0..RK_GEN_REFUSAL_MAX), the bytes still to
 *         read; -EPROTO when it is no refusal, -EMSGSIZE when @p len is
 *         shorter than the header, -ERANGE when L is over RK_GEN_REFUSAL_MAX.
 */
int rk_gen_refusal_peek(const uint8_t *buf, size_t len);

#endif /* RK_GEN_HELLO_H */
