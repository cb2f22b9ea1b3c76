/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-gen's stateful hello: a round trip of 4096 QPs, the byte layout of
 * the header and of an entry, and each refusal: wrong magic, version,
 * count, a truncated or overlong buffer, fields out of range; a client of
 * several addresses (version 4) and its limits.
 */
#include "rk_test.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rk_byteorder.h"
#include "rk_gen_hello.h"

#define NQP 4096u

static struct rk_gen_hello_qp qps[NQP], out_qps[NQP];

static void
fill(struct rk_gen_hello *h, uint32_t n)
{
	memset(h, 0, sizeof(*h));
	h->role = RK_GEN_HELLO_CLIENT;
	h->ops = RK_GEN_OP_WRITE | RK_GEN_OP_READ;
	h->weight[0] = 3;
	h->weight[1] = 1;
	h->verify = 1;
	h->ip_version = 4;
	memcpy(h->mac, "\x02\x00\x00\x00\x00\x01", 6);
	h->ip[10] = h->ip[11] = 0xff;
	memcpy(h->ip + 12, "\xc6\x12\x00\x01", 4);
	h->count = n;
	h->mtu = 1024;
	h->depth = 8;
	h->size_min = 64;
	h->size_max = 4096;
	for (uint32_t i = 0; i < n; i++)
		qps[i] = (struct rk_gen_hello_qp){ .qpn = 0x11 + i, .psn = (i * 7919u) & 0xffffff,
						   .rkey = 0xabc00000u + i,
						   .va = 0x7f0000000000ull + (uint64_t)i * 65536,
						   .len = 65536 };
	h->qp = qps;
}

/* Several addresses: version 4 with the count at 57; one address stays version 3. */
static void
test_addrs(void **state)
{
	uint8_t b[64 + 28 * 4];
	struct rk_gen_hello h, d;

	(void)state;
	fill(&h, 4);
	h.ip_count = 1;
	assert_int_equal(rk_gen_hello_encode(&h, b, sizeof(b)), (long)sizeof(b));
	assert_int_equal(rk_get_be16(b + 4), RK_GEN_HELLO_VERSION);
	assert_int_equal(rk_get_be16(b + 57), 0);
	assert_int_equal(rk_gen_hello_decode(b, sizeof(b), &d, out_qps, 4), 0);
	assert_int_equal(d.ip_count, 1);
	h.ip_count = 4;
	assert_int_equal(rk_gen_hello_encode(&h, b, sizeof(b)), (long)sizeof(b));
	assert_int_equal(rk_get_be16(b + 4), RK_GEN_HELLO_VERSION_ADDRS);
	assert_int_equal(rk_get_be16(b + 57), 4);
	assert_int_equal(rk_gen_hello_decode(b, sizeof(b), &d, out_qps, 4), 0);
	assert_int_equal(d.ip_count, 4);
	assert_memory_equal(d.ip, h.ip, 16);
	/* 198.18.0.1 and 255 after it: past the /24 */
	h.ip_count = 255;
	assert_int_equal(rk_gen_hello_encode(&h, b, sizeof(b)), (long)sizeof(b));
	h.ip_count = 256;
	assert_int_equal(rk_gen_hello_encode(&h, b, sizeof(b)), -EINVAL);
	rk_put_be16(b + 57, 256);
	assert_int_equal(rk_gen_hello_decode(b, sizeof(b), &d, out_qps, 4), -EINVAL);
	h.ip[15] = 0;
	h.ip_count = 256;
	assert_int_equal(rk_gen_hello_encode(&h, b, sizeof(b)), (long)sizeof(b));
	h.ip_count = 257;
	assert_int_equal(rk_gen_hello_encode(&h, b, sizeof(b)), -EINVAL);
	/* IPv6: one address */
	h.ip_count = 2;
	h.ip_version = 6;
	assert_int_equal(rk_gen_hello_encode(&h, b, sizeof(b)), -EINVAL);
}

static void
test_round_trip(void **state)
{
	struct rk_gen_hello h, d;
	size_t n = rk_gen_hello_len(NQP);
	uint8_t *b = malloc(n);
	uint32_t count = 0;

	(void)state;
	assert_non_null(b);
	fill(&h, NQP);
	assert_int_equal(n, 64 + 28 * NQP);
	assert_int_equal(rk_gen_hello_encode(&h, b, n), (long)n);
	assert_int_equal(rk_gen_hello_peek(b, 64, &count), 0);
	assert_int_equal(count, NQP);
	assert_int_equal(rk_gen_hello_decode(b, n, &d, out_qps, NQP), 0);
	assert_int_equal(d.count, NQP);
	assert_int_equal(d.role, RK_GEN_HELLO_CLIENT);
	assert_int_equal(d.ops, RK_GEN_OP_WRITE | RK_GEN_OP_READ);
	assert_int_equal(d.weight[0], 3);
	assert_int_equal(d.weight[1], 1);
	assert_int_equal(d.mtu, 1024);
	assert_int_equal(d.depth, 8);
	assert_int_equal(d.size_min, 64);
	assert_int_equal(d.size_max, 4096);
	assert_memory_equal(d.mac, h.mac, 6);
	assert_memory_equal(d.ip, h.ip, 16);
	assert_memory_equal(out_qps, qps, sizeof(qps));
	free(b);
}

/* The documented offsets, read back with the byte-order helpers. */
static void
test_layout(void **state)
{
	struct rk_gen_hello h;
	uint8_t b[64 + 28 * 2];

	(void)state;
	fill(&h, 2);
	assert_int_equal(rk_gen_hello_encode(&h, b, sizeof(b)), (long)sizeof(b));
	assert_memory_equal(b, "RKGS", 4);
	assert_int_equal(rk_get_be16(b + 4), RK_GEN_HELLO_VERSION);
	assert_int_equal(b[6], RK_GEN_HELLO_CLIENT);
	assert_int_equal(rk_get_be32(b + 8), 2);
	assert_int_equal(rk_get_be32(b + 12), 1024);
	assert_int_equal(rk_get_be32(b + 24), 4096);
	assert_int_equal(b[29], 4);
	assert_memory_equal(b + 48, "\xc6\x12\x00\x01", 4);
	assert_int_equal(rk_get_be32(b + 64 + 28), 0x12);             /* QPN of entry 1 */
	assert_int_equal(rk_get_be32(b + 64 + 28 + 8), 0xabc00001u);  /* its R_Key */
	assert_int_equal(rk_get_be64(b + 64 + 28 + 12), 0x7f0000010000ull);
	assert_int_equal(rk_get_be64(b + 64 + 28 + 20), 65536);
	/* a short buffer is refused before anything is written */
	assert_int_equal(rk_gen_hello_encode(&h, b, sizeof(b) - 1), -ENOSPC);
}

static void
test_refusals(void **state)
{
	struct rk_gen_hello h, d;
	uint8_t b[64 + 28 * 4], c[sizeof(b) + 1], e[sizeof(b)];
	uint32_t count = 99;

	(void)state;
	fill(&h, 4);
	assert_int_equal(rk_gen_hello_encode(&h, b, sizeof(b)), (long)sizeof(b));
	/* truncated: the header, then every length short of the whole */
	assert_int_equal(rk_gen_hello_peek(b, 63, &count), -EMSGSIZE);
	assert_int_equal(count, 99);
	for (size_t n = 0; n < sizeof(b); n++)
		assert_int_equal(rk_gen_hello_decode(b, n, &d, out_qps, 4), -EMSGSIZE);
	/* a byte too many */
	memcpy(c, b, sizeof(b));
	c[sizeof(b)] = 0;
	assert_int_equal(rk_gen_hello_decode(c, sizeof(c), &d, out_qps, 4), -EMSGSIZE);
	/* fewer entries room than the count */
	assert_int_equal(rk_gen_hello_decode(b, sizeof(b), &d, out_qps, 3), -ENOSPC);
	/* magic, version, count */
	memcpy(c, b, sizeof(b));
	c[0] = 'X';
	assert_int_equal(rk_gen_hello_decode(c, sizeof(b), &d, out_qps, 4), -EPROTO);
	memcpy(c, b, sizeof(b));
	/* the versions of an older data layout, and one not yet defined */
	for (uint16_t v = 1; v <= 5; v += v == 2 ? 3 : 1) {
		rk_put_be16(c + 4, v);
		assert_int_equal(rk_gen_hello_decode(c, sizeof(b), &d, out_qps, 4),
				 -EPROTONOSUPPORT);
	}
	/* version 4 without a count of several addresses */
	rk_put_be16(c + 4, RK_GEN_HELLO_VERSION_ADDRS);
	assert_int_equal(rk_gen_hello_decode(c, sizeof(b), &d, out_qps, 4), -EINVAL);
	memcpy(c, b, sizeof(b));
	rk_put_be32(c + 8, 0);
	assert_int_equal(rk_gen_hello_decode(c, sizeof(b), &d, out_qps, 4), -ERANGE);
	rk_put_be32(c + 8, RK_GEN_HELLO_MAX_QPS + 1);
	assert_int_equal(rk_gen_hello_peek(c, sizeof(b), &count), -ERANGE);
	/* a count that says more than was sent: truncated */
	rk_put_be32(c + 8, 5);
	assert_int_equal(rk_gen_hello_decode(c, sizeof(b), &d, out_qps, 8), -EMSGSIZE);
	/* fields out of range */
	memcpy(c, b, sizeof(b));
	rk_put_be32(c + 12, 1000);                      /* MTU */
	assert_int_equal(rk_gen_hello_decode(c, sizeof(b), &d, out_qps, 4), -EINVAL);
	memcpy(c, b, sizeof(b));
	rk_put_be32(c + 20, 8192);                      /* size_min > size_max */
	assert_int_equal(rk_gen_hello_decode(c, sizeof(b), &d, out_qps, 4), -EINVAL);
	memcpy(c, b, sizeof(b));
	c[7] = 0x20;                                    /* unknown op */
	assert_int_equal(rk_gen_hello_decode(c, sizeof(b), &d, out_qps, 4), -EINVAL);
	memcpy(c, b, sizeof(b));
	c[7] |= RK_GEN_OP_ATOMIC;                       /* atomic in the mix, not weighed */
	assert_int_equal(rk_gen_hello_decode(c, sizeof(b), &d, out_qps, 4), -EINVAL);
	c[55] = 2;                                      /* weighed: taken, weight 2 */
	assert_int_equal(rk_gen_hello_decode(c, sizeof(b), &d, out_qps, 4), 0);
	assert_int_equal(d.ops, RK_GEN_OP_WRITE | RK_GEN_OP_READ | RK_GEN_OP_ATOMIC);
	assert_int_equal(d.weight[3], 2);
	rk_put_be32(c + 20, 4);                         /* atomics with messages under 8 bytes */
	rk_put_be32(c + 24, 7);
	assert_int_equal(rk_gen_hello_decode(c, sizeof(b), &d, out_qps, 4), -EINVAL);
	memcpy(c, b, sizeof(b));
	assert_int_equal(c[56], 0);                     /* no CMP_SWAP: the old byte 56, zero */
	c[7] |= RK_GEN_OP_CMP_SWAP;                     /* CMP_SWAP in the mix, not weighed */
	assert_int_equal(rk_gen_hello_decode(c, sizeof(b), &d, out_qps, 4), -EINVAL);
	c[56] = 3;                                      /* weighed in byte 56: taken */
	assert_int_equal(rk_gen_hello_decode(c, sizeof(b), &d, out_qps, 4), 0);
	assert_int_equal(d.ops, RK_GEN_OP_WRITE | RK_GEN_OP_READ | RK_GEN_OP_CMP_SWAP);
	assert_int_equal(d.weight[4], 3);
	assert_int_equal(d.weight[3], 0);
	h = d;                                          /* and encoded back the same */
	h.qp = out_qps;
	assert_int_equal(rk_gen_hello_encode(&h, e, sizeof(e)), (long)sizeof(b));
	assert_memory_equal(e, c, sizeof(b));
	rk_put_be32(c + 20, 4);                         /* CMP_SWAP with messages under 8 bytes */
	rk_put_be32(c + 24, 7);
	assert_int_equal(rk_gen_hello_decode(c, sizeof(b), &d, out_qps, 4), -EINVAL);
	memcpy(c, b, sizeof(b));
	c[56] = 1;                                      /* CMP_SWAP weighed but not in ops */
	assert_int_equal(rk_gen_hello_decode(c, sizeof(b), &d, out_qps, 4), -EINVAL);
	memcpy(c, b, sizeof(b));
	c[54] = 1;                                      /* SEND weighed but not in ops */
	assert_int_equal(rk_gen_hello_decode(c, sizeof(b), &d, out_qps, 4), -EINVAL);
	memcpy(c, b, sizeof(b));
	rk_put_be32(c + 64 + 28 * 3, 0x1000000);        /* QPN over 24 bits */
	assert_int_equal(rk_gen_hello_decode(c, sizeof(b), &d, out_qps, 4), -EINVAL);
	memcpy(c, b, sizeof(b));
	rk_put_be64(c + 64 + 20, 100);                  /* region shorter than a message */
	assert_int_equal(rk_gen_hello_decode(c, sizeof(b), &d, out_qps, 4), -EINVAL);
	/* the encoder refuses what the decoder would */
	h.depth = 0;
	assert_int_equal(rk_gen_hello_encode(&h, b, sizeof(b)), -EINVAL);
}

/* A responder's refusal: a hello-sized header, then the reason; never taken for a hello. */
static void
test_refusal_message(void **state)
{
	uint8_t b[RK_GEN_HELLO_HDR_LEN + RK_GEN_REFUSAL_MAX + 8];
	char longer[RK_GEN_REFUSAL_MAX + 20];
	const char *why = "the client asks for 40 QPs; this end takes at most 32 (--qps)";
	uint32_t count;

	(void)state;
	assert_int_equal(rk_gen_refusal_encode(why, b, sizeof(b)),
			 RK_GEN_HELLO_HDR_LEN + (long)strlen(why));
	assert_memory_equal(b, "RKGR", 4);
	assert_int_equal(rk_gen_refusal_peek(b, RK_GEN_HELLO_HDR_LEN), (int)strlen(why));
	assert_memory_equal(b + RK_GEN_HELLO_HDR_LEN, why, strlen(why));
	assert_int_equal(rk_gen_hello_peek(b, RK_GEN_HELLO_HDR_LEN, &count), -EPROTO);
	assert_int_equal(rk_gen_refusal_peek(b, RK_GEN_HELLO_HDR_LEN - 1), -EMSGSIZE);
	/* cut at RK_GEN_REFUSAL_MAX; a length past it is refused when read */
	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = 0;
	assert_int_equal(rk_gen_refusal_encode(longer, b, sizeof(b)),
			 RK_GEN_HELLO_HDR_LEN + RK_GEN_REFUSAL_MAX);
	b[4] = 0xff;
	assert_int_equal(rk_gen_refusal_peek(b, RK_GEN_HELLO_HDR_LEN), -ERANGE);
	assert_int_equal(rk_gen_refusal_encode(why, b, RK_GEN_HELLO_HDR_LEN), -ENOSPC);
	assert_int_equal(rk_gen_refusal_encode(NULL, b, sizeof(b)), RK_GEN_HELLO_HDR_LEN);
	assert_int_equal(rk_gen_refusal_peek(b, RK_GEN_HELLO_HDR_LEN), 0);
	/* a hello is no refusal */
	b[0] = 'R'; b[1] = 'K'; b[2] = 'G'; b[3] = 'S';
	assert_int_equal(rk_gen_refusal_peek(b, RK_GEN_HELLO_HDR_LEN), -EPROTO);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_refusal_message),
		cmocka_unit_test(test_addrs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
