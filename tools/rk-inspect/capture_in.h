/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file capture_in.h
 * rk-inspect's capture input beyond what libpcap 1.10 reads by itself:
 * gzip-compressed captures (RFC 1952) read through zlib behind a stdio
 * stream, and pcapng files whose interfaces have different link types
 * (a merged capture), which libpcap 1.10 refuses ("an interface has a
 * type N different from the type of the first interface"): those are read
 * block by block here (pcapng, draft-ietf-opsawg-pcapng sections 4.1-4.4).
 */
#ifndef RK_INSP_CAPTURE_IN_H
#define RK_INSP_CAPTURE_IN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/**
 * True when @p f starts with the gzip magic 1f 8b (RFC 1952 2.3.1). Reads
 * two bytes and seeks back: @p f must be seekable.
 */
bool rk_insp_is_gzip(FILE *f);

/**
 * A read-only stdio stream of the decompressed bytes of the gzip stream on
 * file descriptor @p fd (zlib's gzdopen(); data that is not gzip passes
 * through unchanged). The stream owns @p fd; fclose() closes both.
 * @return the stream, or NULL (errno set).
 */
FILE *rk_insp_gzip_stream(int fd);

/**
 * Whether pipe @p fd starts with gzip's magic (RFC 1952 2.3.1), looked at
 * with tee(2) so nothing is taken from it: a live capture on a pipe can
 * then be read without zlib's read-ahead, each frame as it comes.
 * @return 1 gzip, 0 not, -1 unknown (not a pipe, or closed before two bytes).
 */
int rk_insp_pipe_is_gzip(int fd);

/**
 * Why the gzip stream @p f stopped short: zlib's message for a truncated or
 * corrupt stream ("unexpected end of file", "invalid stored block
 * lengths"...), or NULL when it read to a clean end (or @p f is not one
 * of rk_insp_gzip_stream()'s).
 */
const char *rk_insp_gzip_error(FILE *f);

/**
 * True when the pcapng file on @p f (seekable, at its start) declares, in
 * its interface description blocks before the first packet block, more
 * than one link type. Seeks back to the start. False for anything else.
 */
bool rk_insp_pcapng_mixed(FILE *f);

/** One frame of a pcapng file read by rk_insp_pcapng_next(). */
struct rk_insp_pcapng_rec {
	int linktype;         /**< LINKTYPE_* of its interface */
	uint64_t ts_ns;       /**< timestamp, ns since the Unix epoch */
	uint32_t caplen;      /**< bytes in @c data */
	uint32_t len;         /**< original length on the wire */
	const uint8_t *data;  /**< valid until the next call */
	uint32_t interface;   /**< interface number in its section */
};

struct rk_insp_pcapng;

/** Start reading the pcapng file @p f (not closed by the reader). @return NULL: no memory. */
struct rk_insp_pcapng *rk_insp_pcapng_open(FILE *f);

/**
 * Next frame (Enhanced, Simple or obsolete Packet Block); other blocks are
 * skipped, a Section Header Block starts a new interface list.
 * @return 1 with @p r filled, 0 at the end of the file, -1 on a corrupt or
 *         truncated block (rk_insp_pcapng_error() says which and where).
 */
int rk_insp_pcapng_next(struct rk_insp_pcapng *p, struct rk_insp_pcapng_rec *r);

/**
 * Why rk_insp_pcapng_next() returned -1; @p at_eof is set when the block
 * was cut by the end of the file (a truncated, not a corrupt, capture).
 */
const char *rk_insp_pcapng_error(const struct rk_insp_pcapng *p, bool *at_eof);

/** Link type of interface @p i of the current section; -1 past the last one. */
int rk_insp_pcapng_linktype(const struct rk_insp_pcapng *p, uint32_t i);

/** Free @p p. */
void rk_insp_pcapng_close(struct rk_insp_pcapng *p);

#endif /* RK_INSP_CAPTURE_IN_H */
