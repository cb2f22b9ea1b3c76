/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_pcapng.h
 * A small pcapng writer (draft-ietf-opsawg-pcapng): one section, one
 * Ethernet interface with nanosecond timestamps (if_tsresol 9), one
 * Enhanced Packet Block per frame with its direction in epb_flags.
 * libc only; buffered through stdio. Not thread-safe.
 */
#ifndef RK_PCAPNG_H
#define RK_PCAPNG_H

#include <stdint.h>
#include <stdio.h>

/** Direction of a recorded frame (epb_flags bits 0-1). */
enum rk_pcapng_dir {
	RK_PCAPNG_IN = 1,
	RK_PCAPNG_OUT = 2,
};

struct rk_pcapng {
	FILE *f;
	uint32_t snaplen;
	uint64_t frames;
	int err;                /**< first write error, negative errno */
};

/**
 * Create @p path and write the section header and the interface
 * description (LINKTYPE_ETHERNET, name @p ifname, snap length @p snaplen;
 * 0: 65535).
 * @return 0, or a negative errno from fopen/fwrite.
 */
int rk_pcapng_open(struct rk_pcapng *w, const char *path, const char *ifname,
		   uint32_t snaplen);

/**
 * Append one frame seen at @p ts_ns (ns since the Unix epoch); frames
 * longer than the snap length are cut and keep their original length.
 * Errors are remembered in w->err (see rk_pcapng_close()).
 */
void rk_pcapng_write(struct rk_pcapng *w, uint64_t ts_ns, enum rk_pcapng_dir dir,
		     const uint8_t *frame, uint32_t len);

/**
 * Flush and close the file.
 * @return 0, or the first negative errno of any write or of fclose.
 */
int rk_pcapng_close(struct rk_pcapng *w);

#endif /* RK_PCAPNG_H */
