/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_pcapng.h
 * A small pcapng writer (draft-ietf-opsawg-pcapng): one section, one
 * Ethernet interface with nanosecond timestamps (if_tsresol 9), one
 * Enhanced Packet Block per frame with its direction in epb_flags.
 * libc and POSIX threads only. Buffered through stdio, or, opened with
 * rk_pcapng_open_background(), through two buffers a thread of its own
 * writes out, so that the caller never waits for the file system.
 * One writer per struct: not thread-safe.
 */
#ifndef RK_PCAPNG_H
#define RK_PCAPNG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** Direction of a recorded frame (epb_flags bits 0-1). */
enum rk_pcapng_dir {
	RK_PCAPNG_IN = 1,
	RK_PCAPNG_OUT = 2,
};

struct rk_pcapng_bg;

struct rk_pcapng {
	FILE *f;                /**< stdio mode */
	struct rk_pcapng_bg *bg; /**< background mode */
	uint32_t snaplen;
	uint64_t frames;
	uint64_t waits;         /**< background: buffer hand-overs that had to wait for the disk */
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
 * rk_pcapng_open(), with the file written by a thread of the writer's own
 * from two buffers of @p buf_bytes each (0: 1 MiB; at least 128 KiB):
 * rk_pcapng_write() copies the block into the current buffer and, when
 * it is full, hands it over and goes on in the other one. It waits only
 * when the thread has not finished the other one yet (counted in
 * w->waits): no frame is ever dropped. The thread may run on any CPU,
 * whatever the caller's affinity (a polling thread pinned to its core
 * keeps it).
 * @return 0, or a negative errno from open or pthread_create.
 */
int rk_pcapng_open_background(struct rk_pcapng *w, const char *path, const char *ifname,
			      uint32_t snaplen, size_t buf_bytes);

/**
 * Append one frame seen at @p ts_ns (ns since the Unix epoch); frames
 * longer than the snap length are cut and keep their original length.
 * Errors are remembered in w->err (see rk_pcapng_close()).
 */
void rk_pcapng_write(struct rk_pcapng *w, uint64_t ts_ns, enum rk_pcapng_dir dir,
		     const uint8_t *frame, uint32_t len);

/**
 * rk_pcapng_write() of a frame the caller already cut: only the first
 * @p cap bytes at @p frame are read and recorded (and no more than the
 * snap length), and @p len, its original length, is kept. A @p cap
 * above @p len is taken as @p len.
 */
void rk_pcapng_write_cut(struct rk_pcapng *w, uint64_t ts_ns, enum rk_pcapng_dir dir,
			 const uint8_t *frame, uint32_t cap, uint32_t len);

/**
 * Flush and close the file (in background mode: hand over what is left,
 * wait for the thread to write it and end).
 * @return 0, or the first negative errno of any write or of the close.
 */
int rk_pcapng_close(struct rk_pcapng *w);

#endif /* RK_PCAPNG_H */
