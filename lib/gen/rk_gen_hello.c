/* SPDX-License-Identifier: BSD-3-Clause */
/* rk-gen's stateful hello (rk_gen_hello.h): encoded and checked field by field. */
#include <errno.h>
#include <string.h>

#include "rk_byteorder.h"
#include "rk_gen_hello.h"

#define OPS_ALL (RK_GEN_OP_WRITE | RK_GEN_OP_READ | RK_GEN_OP_SEND | RK_GEN_OP_ATOMIC | \
		 RK_GEN_OP_CMP_SWAP)
#define ATOMICS (RK_GEN_OP_ATOMIC | RK_GEN_OP_CMP_SWAP)

size_t
rk_gen_hello_len(uint32_t count)
{
	return RK_GEN_HELLO_HDR_LEN + (size_t)count * RK_GEN_HELLO_QP_LEN;
}

/* The header's fields in range; a weight only for an op in the mix, and each op weighed. */
static int
header_ok(const struct rk_gen_hello *h)
{
	uint32_t m = h->mtu;

	if (h->role != RK_GEN_HELLO_CLIENT && h->role != RK_GEN_HELLO_RESPONDER)
		return 0;
	if (h->ops == 0 || (h->ops & ~OPS_ALL) != 0)
		return 0;
	for (int i = 0; i < RK_GEN_HELLO_NOPS; i++)
		if ((h->weight[i] != 0) != ((h->ops & (1u << i)) != 0))
			return 0;
	if (m != 256 && m != 512 && m != 1024 && m != 2048 && m != 4096)
		return 0;
	if (h->count == 0 || h->count > RK_GEN_HELLO_MAX_QPS || h->depth == 0)
		return 0;
	if (h->size_min == 0 || h->size_min > h->size_max)
		return 0;
	/* an atomic's 8 bytes land in a message slot of the client */
	if ((h->ops & ATOMICS) && h->size_max < 8)
		return 0;
	if (h->verify > 1 || (h->ip_version != 4 && h->ip_version != 6))
		return 0;
	/* several addresses: IPv4, within one /24 */
	if (h->ip_count > RK_GEN_HELLO_MAX_ADDRS ||
	    (h->ip_count > 1 && (h->ip_version != 4 || h->ip[15] + h->ip_count - 1 > 255)))
		return 0;
	return 1;
}

static int
qp_ok(const struct rk_gen_hello_qp *q, uint32_t size_max)
{
	return q->qpn <= 0xffffff && q->psn <= 0xffffff && q->len >= size_max &&
	       q->va + q->len >= q->va;
}

long
rk_gen_hello_encode(const struct rk_gen_hello *h, uint8_t *buf, size_t cap)
{
	size_t n;

	if (h == NULL || buf == NULL || !header_ok(h) || h->qp == NULL)
		return -EINVAL;
	for (uint32_t i = 0; i < h->count; i++)
		if (!qp_ok(&h->qp[i], h->size_max))
			return -EINVAL;
	n = rk_gen_hello_len(h->count);
	if (cap < n)
		return -ENOSPC;
	memset(buf, 0, RK_GEN_HELLO_HDR_LEN);
	rk_put_be32(buf, RK_GEN_HELLO_MAGIC);
	rk_put_be16(buf + 4, h->ip_count > 1 ? RK_GEN_HELLO_VERSION_ADDRS : RK_GEN_HELLO_VERSION);
	buf[6] = h->role;
	buf[7] = h->ops;
	rk_put_be32(buf + 8, h->count);
	rk_put_be32(buf + 12, h->mtu);
	rk_put_be32(buf + 16, h->depth);
	rk_put_be32(buf + 20, h->size_min);
	rk_put_be32(buf + 24, h->size_max);
	buf[28] = h->verify;
	buf[29] = h->ip_version;
	memcpy(buf + 30, h->mac, 6);
	memcpy(buf + 36, h->ip, 16);
	memcpy(buf + 52, h->weight, 4);
	buf[56] = h->weight[4];
	if (h->ip_count > 1)
		rk_put_be16(buf + 57, h->ip_count);
	for (uint32_t i = 0; i < h->count; i++) {
		uint8_t *e = buf + RK_GEN_HELLO_HDR_LEN + (size_t)i * RK_GEN_HELLO_QP_LEN;

		rk_put_be32(e, h->qp[i].qpn);
		rk_put_be32(e + 4, h->qp[i].psn);
		rk_put_be32(e + 8, h->qp[i].rkey);
		rk_put_be64(e + 12, h->qp[i].va);
		rk_put_be64(e + 20, h->qp[i].len);
	}
	return (long)n;
}

int
rk_gen_hello_peek(const uint8_t *buf, size_t len, uint32_t *count)
{
	uint32_t c;

	if (buf == NULL || len < RK_GEN_HELLO_HDR_LEN)
		return -EMSGSIZE;
	if (rk_get_be32(buf) != RK_GEN_HELLO_MAGIC)
		return -EPROTO;
	if (rk_get_be16(buf + 4) != RK_GEN_HELLO_VERSION &&
	    rk_get_be16(buf + 4) != RK_GEN_HELLO_VERSION_ADDRS)
		return -EPROTONOSUPPORT;
	c = rk_get_be32(buf + 8);
	if (c == 0 || c > RK_GEN_HELLO_MAX_QPS)
		return -ERANGE;
	if (count != NULL)
		*count = c;
	return 0;
}

int
rk_gen_hello_decode(const uint8_t *buf, size_t len, struct rk_gen_hello *h,
		    struct rk_gen_hello_qp *qp, uint32_t max_qp)
{
	uint32_t count;
	int rc = rk_gen_hello_peek(buf, len, &count);

	if (rc != 0)
		return rc;
	if (h == NULL || (qp == NULL && max_qp > 0))
		return -EINVAL;
	if (len != rk_gen_hello_len(count))
		return -EMSGSIZE;
	if (count > max_qp)
		return -ENOSPC;
	memset(h, 0, sizeof(*h));
	h->role = buf[6];
	h->ops = buf[7];
	h->count = count;
	h->mtu = rk_get_be32(buf + 12);
	h->depth = rk_get_be32(buf + 16);
	h->size_min = rk_get_be32(buf + 20);
	h->size_max = rk_get_be32(buf + 24);
	h->verify = buf[28];
	h->ip_version = buf[29];
	memcpy(h->mac, buf + 30, 6);
	memcpy(h->ip, buf + 36, 16);
	memcpy(h->weight, buf + 52, 4);
	h->weight[4] = buf[56];
	h->ip_count = 1;
	if (rk_get_be16(buf + 4) == RK_GEN_HELLO_VERSION_ADDRS) {
		h->ip_count = rk_get_be16(buf + 57);
		/* version 4 says so only with several */
		if (h->ip_count < 2)
			return -EINVAL;
	}
	h->qp = qp;
	if (!header_ok(h))
		return -EINVAL;
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *e = buf + RK_GEN_HELLO_HDR_LEN + (size_t)i * RK_GEN_HELLO_QP_LEN;

		qp[i].qpn = rk_get_be32(e);
		qp[i].psn = rk_get_be32(e + 4);
		qp[i].rkey = rk_get_be32(e + 8);
		qp[i].va = rk_get_be64(e + 12);
		qp[i].len = rk_get_be64(e + 20);
		if (!qp_ok(&qp[i], h->size_max))
			return -EINVAL;
	}
	return 0;
}

long
rk_gen_refusal_encode(const char *reason, uint8_t *buf, size_t cap)
{
	size_t l = reason != NULL ? strnlen(reason, RK_GEN_REFUSAL_MAX) : 0;

	if (buf == NULL || cap < RK_GEN_HELLO_HDR_LEN + l)
		return -ENOSPC;
	memset(buf, 0, RK_GEN_HELLO_HDR_LEN);
	rk_put_be32(buf, RK_GEN_REFUSAL_MAGIC);
	rk_put_be16(buf + 4, (uint16_t)l);
	if (l != 0)
		memcpy(buf + RK_GEN_HELLO_HDR_LEN, reason, l);
	return (long)(RK_GEN_HELLO_HDR_LEN + l);
}

int
rk_gen_refusal_peek(const uint8_t *buf, size_t len)
{
	uint16_t l;

	if (buf == NULL || len < RK_GEN_HELLO_HDR_LEN)
		return -EMSGSIZE;
	if (rk_get_be32(buf) != RK_GEN_REFUSAL_MAGIC)
		return -EPROTO;
	l = rk_get_be16(buf + 4);
	return l > RK_GEN_REFUSAL_MAX ? -ERANGE : l;
}
