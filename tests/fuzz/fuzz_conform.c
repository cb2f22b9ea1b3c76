/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-conform's inputs: a recording replayed against rdmakit's engine
 * (rk_conform_replay over hostile frames) or a verdicts file (--expect).
 * The first byte picks: even, a recording whose frames follow as 2-byte
 * big-endian lengths (the top bit: cut by a snaplen) and bytes; odd, the
 * rest is the verdicts file.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "expect.h"
#include "rk_conform.h"
#include "rk_conform_self.h"

#define FRAMES_MAX 64u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
replay(const uint8_t *data, size_t size)
{
	static struct rk_conform_env env;
	static struct rk_conform_self *self;
	struct rk_conform_rec_frame f[FRAMES_MAX];
	struct rk_conform_replay_result res = { 0 };
	unsigned int n = 0;
	size_t off = 0;

	if (self == NULL) {
		self = rk_conform_self_create(&env);
		if (self == NULL)
			abort();
		env.timeout_ns = 1000000;       /* virtual: ten empty reads */
	}
	while (off + 2 <= size && n < FRAMES_MAX) {
		/* The length's top bit: the frame was cut by a snaplen, 64 bytes lost. */
		size_t len = (size_t)(data[off] & 0x7f) << 8 | data[off + 1];
		bool cut = data[off] & 0x80;

		off += 2;
		if (len > size - off)
			len = size - off;
		f[n].data = data + off;
		f[n].len = (uint32_t)len;
		f[n++].wire_len = cut ? (uint32_t)len + 64 : 0;
		off += len;
	}
	{
		struct rk_conform_conv cv[4];
		bool more;
		unsigned int nq = rk_conform_replay_convs(f, n, cv, 4, &more);

		/* distinct, and "more" only with the array full */
		for (unsigned int a = 0; a < nq; a++)
			for (unsigned int b = a + 1; b < nq; b++)
				if (cv[a].dest_qp == cv[b].dest_qp &&
				    memcmp(cv[a].requester, cv[b].requester, 16) == 0)
					abort();
		if (nq > 4 || (more && nq != 4))
			abort();
	}
	if (rk_conform_replay(&env, f, n, &res) != 0)
		return;
	if (res.verdict == RK_CONFORM_PASS && res.diffs != 0)
		abort();
}

static void
verdicts(const uint8_t *data, size_t size)
{
	static char path[] = "/tmp/fuzz_conform_XXXXXX";
	static int fd = -1;
	struct rk_cf_outcome none[1];
	FILE *null = fopen("/dev/null", "w");

	if (fd < 0 && (fd = mkstemp(path)) < 0)
		abort();
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	rk_cf_expect_check(path, none, 0, NULL, null != NULL ? null : stdout);
	if (null != NULL)
		fclose(null);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		verdicts(data + 1, size - 1);
	else
		replay(data + 1, size - 1);
	return 0;
}
