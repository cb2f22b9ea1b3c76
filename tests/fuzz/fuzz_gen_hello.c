/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: rk-gen's stateful hello from a hostile peer. The
 * input is the bytes received; a hello that decodes must encode back to
 * the same bytes (the reserved ones zeroed), and the header check must
 * agree with the decoder on its errors; a refusal is never a hello.
 */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk_gen_hello.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_QP 4096u

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rk_gen_hello_qp qp[MAX_QP];
	struct rk_gen_hello h;
	uint32_t count = 0;
	int peek = rk_gen_hello_peek(data, size, &count);
	int rc = rk_gen_hello_decode(data, size, &h, qp, MAX_QP);
	int refusal = rk_gen_refusal_peek(data, size);
	uint8_t *b;

	/* A refusal is never a hello, and its length stays in bounds. */
	assert(refusal < 0 || (peek == -EPROTO && refusal <= RK_GEN_REFUSAL_MAX));

	if (peek != 0) {
		assert(rc == peek);
		return 0;
	}
	if (rc != 0)
		return 0;
	assert(h.count == count && size == rk_gen_hello_len(count));
	b = malloc(size);
	assert(b != NULL);
	assert(rk_gen_hello_encode(&h, b, size) == (long)size);
	/* reserved bytes (57..63; 59..63 in version 2) are written as zeros */
	assert(memcmp(b, data, 57) == 0);
	/* version 2: the address count, 2..256 */
	assert(h.ip_count >= 1 && h.ip_count <= RK_GEN_HELLO_MAX_ADDRS);
	if (h.ip_count > 1)
		assert(memcmp(b + 57, data + 57, 2) == 0);
	assert(memcmp(b + RK_GEN_HELLO_HDR_LEN, data + RK_GEN_HELLO_HDR_LEN,
		      size - RK_GEN_HELLO_HDR_LEN) == 0);
	free(b);
	return 0;
}
