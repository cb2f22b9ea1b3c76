/* SPDX-License-Identifier: BSD-3-Clause */
#include "rk_crc.h"

#include <limits.h>
#include <isa-l/crc.h>

rk_crc32_state
rk_crc32_update(rk_crc32_state s, const void *buf, size_t len)
{
	/* crc32_gzip_refl inverts on entry and exit, so its result chains. */
	return crc32_gzip_refl(s, (const unsigned char *)buf, len);
}

uint32_t
rk_crc32(const void *buf, size_t len)
{
	return rk_crc32_final(rk_crc32_update(rk_crc32_init(), buf, len));
}

rk_crc32c_state
rk_crc32c_update(rk_crc32c_state s, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	/* crc32_iscsi takes an int length and a non-const pointer. */
	while (len > 0) {
		int n = len > (size_t)INT_MAX ? INT_MAX : (int)len;

		s = crc32_iscsi((unsigned char *)(uintptr_t)p, n, s);
		p += n;
		len -= (size_t)n;
	}
	return s;
}

uint32_t
rk_crc32c(const void *buf, size_t len)
{
	return rk_crc32c_final(rk_crc32c_update(rk_crc32c_init(), buf, len));
}
