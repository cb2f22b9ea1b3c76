/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-perf's out-of-band messages (hello, phase messages, refusal): fixed
 * sizes, network byte order, carried by the exchange of apps/common.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "perf.h"
#include "rk_byteorder.h"

void
oob_encode_hello(const struct perf_hello *h, uint8_t *b)
{
	memset(b, 0, OOB_HELLO_LEN);
	b[0] = h->verb;
	b[1] = h->mode;
	b[2] = h->verify;
	b[3] = h->atomic_cas;
	rk_put_be32(b + 4, h->mtu);
	rk_put_be32(b + 8, h->qps);
	rk_put_be32(b + 12, h->tx_depth);
	rk_put_be32(b + 16, h->rx_depth);
	rk_put_be32(b + 20, h->nsizes);
	b += 24;
	for (int i = 0; i < PERF_MAX_SIZES; i++, b += 4)
		rk_put_be32(b, h->sizes[i]);
	rk_put_be64(b, h->iters);
	rk_put_be64(b + 8, h->duration_ms);
	memcpy(b + 16, h->ip, 4);
	memcpy(b + 20, h->mac, 6);
	b += 26;
	for (int i = 0; i < PERF_MAX_QPS; i++, b += 28) {
		rk_put_be32(b, h->qp[i].qpn);
		rk_put_be32(b + 4, h->qp[i].psn);
		rk_put_be32(b + 8, h->qp[i].rkey);
		rk_put_be64(b + 12, h->qp[i].va);
		rk_put_be64(b + 20, h->qp[i].len);
	}
}

void
oob_decode_hello(struct perf_hello *h, const uint8_t *b)
{
	memset(h, 0, sizeof(*h));
	h->verb = b[0];
	h->mode = b[1] & (uint8_t)~OOB_HELLO_F_EXT;
	h->ext = (b[1] & OOB_HELLO_F_EXT) != 0;
	h->verify = b[2];
	h->atomic_cas = b[3];
	h->mtu = rk_get_be32(b + 4);
	h->qps = rk_get_be32(b + 8);
	h->tx_depth = rk_get_be32(b + 12);
	h->rx_depth = rk_get_be32(b + 16);
	h->nsizes = rk_get_be32(b + 20);
	b += 24;
	for (int i = 0; i < PERF_MAX_SIZES; i++, b += 4)
		h->sizes[i] = rk_get_be32(b);
	h->iters = rk_get_be64(b);
	h->duration_ms = rk_get_be64(b + 8);
	memcpy(h->ip, b + 16, 4);
	memcpy(h->mac, b + 20, 6);
	b += 26;
	for (int i = 0; i < PERF_MAX_QPS; i++, b += 28) {
		h->qp[i].qpn = rk_get_be32(b);
		h->qp[i].psn = rk_get_be32(b + 4);
		h->qp[i].rkey = rk_get_be32(b + 8);
		h->qp[i].va = rk_get_be64(b + 12);
		h->qp[i].len = rk_get_be64(b + 20);
	}
}

static const uint8_t hello_ext_magic[3] = { 'R', 'K', 'X' };

size_t
oob_encode_hello_all(const struct perf_hello *h, uint8_t *b)
{
	uint8_t *x = b + OOB_HELLO_LEN;

	oob_encode_hello(h, b);
	if (!h->ext && h->ip_version != 6 && !h->bidir)
		return OOB_HELLO_LEN;
	b[1] |= OOB_HELLO_F_EXT;
	memset(x, 0, OOB_HELLO_EXT_LEN);
	memcpy(x, hello_ext_magic, 3);
	/* Version 1 unless a flag needs 2: a peer without flags still reads it. */
	x[3] = h->bidir ? 2 : 1;
	x[4] = h->ip_version == 6 ? 6 : 4;
	x[5] = h->bidir ? OOB_HELLO_X_BIDIR : 0;
	memcpy(x + 8, h->ip6, 16);
	return OOB_HELLO_MAX_LEN;
}

size_t
oob_hello_ext_len(const uint8_t *hello)
{
	return (hello[1] & OOB_HELLO_F_EXT) ? OOB_HELLO_EXT_LEN : 0;
}

int
oob_decode_hello_ext(struct perf_hello *h, const uint8_t *x)
{
	if (memcmp(x, hello_ext_magic, 3) != 0 || (x[3] != 1 && x[3] != 2) ||
	    (x[4] != 4 && x[4] != 6) || (x[3] == 2 && (x[5] & ~OOB_HELLO_X_BIDIR) != 0))
		return -EPROTO;
	h->ext = true;
	h->bidir = x[3] == 2 && (x[5] & OOB_HELLO_X_BIDIR) != 0;
	h->ip_version = x[4];
	memcpy(h->ip6, x + 8, 16);
	return 0;
}

void
oob_encode_msg(const struct perf_msg *m, uint8_t *b)
{
	memset(b, 0, OOB_MSG_LEN);
	rk_put_be32(b, m->type);
	rk_put_be32(b + 4, m->size);
	rk_put_be32(b + 8, (uint32_t)m->status);
	for (int i = 0; i < PERF_MAX_QPS; i++)
		rk_put_be64(b + 12 + 8 * i, m->iters[i]);
	memcpy(b + 12 + 8 * PERF_MAX_QPS, m->text, sizeof(m->text) - 1);
}

void
oob_decode_msg(struct perf_msg *m, const uint8_t *b)
{
	memset(m, 0, sizeof(*m));
	m->type = rk_get_be32(b);
	m->size = rk_get_be32(b + 4);
	m->status = (int32_t)rk_get_be32(b + 8);
	for (int i = 0; i < PERF_MAX_QPS; i++)
		m->iters[i] = rk_get_be64(b + 12 + 8 * i);
	memcpy(m->text, b + 12 + 8 * PERF_MAX_QPS, sizeof(m->text) - 1);
	/* The peer's text goes to a terminal. */
	for (size_t i = 0; m->text[i] != '\0'; i++)
		if ((unsigned char)m->text[i] < 0x20 || (unsigned char)m->text[i] > 0x7e)
			m->text[i] = '?';
}

static const uint8_t refuse_magic[3] = { 'R', 'K', 'R' };

void
oob_encode_refusal(const struct perf_refusal *r, uint8_t *b)
{
	memset(b, 0, OOB_REFUSE_LEN);
	memcpy(b, refuse_magic, 3);
	b[3] = OOB_REFUSE_VERSION;
	rk_put_be32(b + 4, (uint32_t)r->reason);
	memcpy(b + 8, r->text, strnlen(r->text, sizeof(r->text) - 1));
}

bool
oob_is_refusal(const uint8_t *b)
{
	return memcmp(b, refuse_magic, 3) == 0;
}

int
oob_decode_refusal(struct perf_refusal *r, const uint8_t *b)
{
	memset(r, 0, sizeof(*r));
	if (!oob_is_refusal(b))
		return -EPROTO;
	r->version = b[3];
	if (r->version != OOB_REFUSE_VERSION)
		return -EPROTO;
	r->reason = (int32_t)rk_get_be32(b + 4);
	memcpy(r->text, b + 8, sizeof(r->text) - 1);
	/* Only what prints: the peer's bytes go to a terminal. */
	for (size_t i = 0; r->text[i] != '\0'; i++)
		if ((unsigned char)r->text[i] < 0x20 || (unsigned char)r->text[i] > 0x7e)
			r->text[i] = '?';
	return 0;
}
