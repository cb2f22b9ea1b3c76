/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-inspect's capture file: opening it (gzip, pipes, mixed link types),
 * its link type, the capture filter, what a read error says, the read of
 * a pcapng with several link types, and the benchmark's bare read.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include "app.h"
#include "capture_in.h"
#include "rk_pkt.h"

int
rk_insp_map_linktype(int dlt, enum rk_linktype *out)
{
	switch (dlt) {
	case DLT_EN10MB:
		*out = RK_LINK_ETHERNET;
		return 0;
	case DLT_RAW:
#if defined(DLT_RAW) && DLT_RAW != 12
	case 12:
#endif
#if DLT_RAW != 14
	case 14: /* DLT_RAW on some BSDs */
#endif
	case 101: /* LINKTYPE_RAW */
		*out = RK_LINK_RAW;
		return 0;
	case DLT_LINUX_SLL:
		*out = RK_LINK_LINUX_SLL;
		return 0;
#ifdef DLT_LINUX_SLL2
	case DLT_LINUX_SLL2:
		*out = RK_LINK_LINUX_SLL2;
		return 0;
#endif
#ifdef DLT_ERF
	case DLT_ERF:
		*out = RK_LINK_ERF;
		return 0;
#endif
#ifdef DLT_IPV4
	case DLT_IPV4:
		*out = RK_LINK_IPV4;
		return 0;
#endif
#ifdef DLT_IPV6
	case DLT_IPV6:
		*out = RK_LINK_IPV6;
		return 0;
#endif
	default:
		return -1;
	}
}

const char *
rk_insp_dlt_name(int dlt)
{
	const char *n = pcap_datalink_val_to_name(dlt);
	enum rk_linktype l;

	/* libpcap names only its own platform's DLT_RAW value. */
	if (n == NULL && rk_insp_map_linktype(dlt, &l) == 0 && l == RK_LINK_RAW)
		return "RAW";
	return n != NULL ? n : "unknown";
}

/* The capture filter on @p p; said when it cannot be. @return 0 or -1. */
int
rk_insp_set_capture_filter(struct app *a, pcap_t *p)
{
	struct bpf_program prog;
	int rc;

	if (p == NULL) {
		fprintf(stderr, "rk-inspect: %s: --filter: libpcap filters one link type; this "
			"pcapng has several\n", a->file);
		return -1;
	}
	if (pcap_compile(p, &prog, a->bpf, 1, PCAP_NETMASK_UNKNOWN) != 0) {
		fprintf(stderr, "rk-inspect: --filter '%s': %s\n", a->bpf, pcap_geterr(p));
		return -1;
	}
	rc = pcap_setfilter(p, &prog);
	if (rc != 0)
		fprintf(stderr, "rk-inspect: --filter '%s': %s\n", a->bpf, pcap_geterr(p));
	pcap_freecode(&prog);
	return rc == 0 ? 0 : -1;
}

int
rk_insp_bare_read(pcap_t *p, struct app *a)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	uint64_t sum = 0;
	int rc;

	/* The baseline of the benchmark: libpcap's loop and nothing else
	 * but touching each frame's first byte. */
	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		a->tot.frames++;
		a->tot.bytes += h->len;
		if (h->caplen > 0)
			sum += data[0];
		if (a->count != 0 && a->tot.frames >= a->count)
			break;
	}
	/* The parity keeps the first-byte reads from being optimised away. */
	if (!a->quiet)
		fprintf(a->out, "frames %" PRIu64 " bytes %" PRIu64 " first-byte parity %" PRIu64
			"\n", a->tot.frames, a->tot.bytes, sum & 1);
	return rc == -1 ? -1 : 0;
}

/*
 * Open the capture on a stream with a 1 MiB buffer: libpcap reads record
 * by record through stdio, and the default 4 KiB buffer costs one read(2)
 * per few frames. @p seekable is set when ftello() works on the stream.
 * A gzip file (or seekable standard input) is read through zlib; a pcapng
 * file whose interfaces have several link types is left to capture_in.c:
 * then the stream comes back in @p *mixed and the return value is NULL.
 */
pcap_t *
rk_insp_open_capture(const char *file, char *errbuf, bool *seekable, FILE **mixed,
		     bool *live)
{
	static char iobuf[1 << 20];
	FILE *f;
	pcap_t *p;
	bool rewind_ok;

	*seekable = false;
	*mixed = NULL;
	*live = false;
	if (strcmp(file, "-") == 0)
		f = stdin;
	else
		f = fopen(file, "rb");
	if (f == NULL) {
		snprintf(errbuf, PCAP_ERRBUF_SIZE, "%s", strerror(errno));
		return NULL;
	}
	setvbuf(f, iobuf, _IOFBF, sizeof(iobuf));
	/* One seek makes stdio keep the file offset, so the ftello() per
	 * record that locates a bad record costs no system call. */
	*seekable = fseek(f, 0, SEEK_CUR) == 0;
	rewind_ok = *seekable;
	if (!*seekable && rk_insp_pipe_is_gzip(fileno(f)) == 0) {
		/* A plain capture on a pipe: read as it comes (a live feed). */
		*live = true;
	} else if (!*seekable) {
		/* Not a pipe that tee(2) can look into: zlib reads it, passing
		 * through what is not gzip. */
		int fd = dup(fileno(f));
		FILE *gz = fd >= 0 ? rk_insp_gzip_stream(fd) : NULL;

		if (gz != NULL)
			f = gz;
		else if (fd >= 0)
			close(fd);
	} else if (rk_insp_is_gzip(f)) {
		/* Offsets in the decompressed bytes would mislead: none. */
		int fd = dup(fileno(f));
		FILE *gz = NULL;

		if (fd >= 0 && lseek(fd, 0, SEEK_SET) == 0)
			gz = rk_insp_gzip_stream(fd);
		else if (fd >= 0)
			close(fd);
		if (f != stdin)
			fclose(f);
		if (gz == NULL) {
			snprintf(errbuf, PCAP_ERRBUF_SIZE, "gzip: %s", strerror(errno));
			return NULL;
		}
		f = gz;
		*seekable = false;
	}
	if (rewind_ok && rk_insp_pcapng_mixed(f)) {
		*mixed = f;
		return NULL;
	}
	p = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (p == NULL && rk_insp_gzip_error(f) != NULL) {
		size_t n = strlen(errbuf);

		snprintf(errbuf + n, PCAP_ERRBUF_SIZE - n, " (zlib: %s)", rk_insp_gzip_error(f));
	}
	if (p == NULL && f != stdin)
		fclose(f);
	return p;
}

/*
 * Why reading stopped before the end, with the record it stopped at:
 * libpcap's message, the record (pcap: its number; pcapng: the block after
 * the last frame, which need not hold a frame) and its byte offset when the
 * stream has one. A short read at the end of the file is a record cut by
 * the end of the file, be it the last one (a capture stopped mid-write) or
 * an earlier one whose length runs past the end: libpcap cannot tell them
 * apart, and neither are a complete capture.
 */
void
rk_insp_describe_read_error(char *buf, size_t len, pcap_t *p, uint64_t frames,
			    bool at_eof, off_t off)
{
	char where[96], at[40] = "";

	if (off >= 0)
		snprintf(at, sizeof(at), " (byte %lld)", (long long)off);
	/* pcapng section headers carry major version 1, pcap files 2. */
	if (pcap_major_version(p) == 1)
		snprintf(where, sizeof(where), "the block after frame %" PRIu64 "%s", frames, at);
	else
		snprintf(where, sizeof(where), "record %" PRIu64 "%s", frames + 1, at);
	snprintf(buf, len, "%s capture: %s %s (libpcap: %s); the %" PRIu64 " %s "
		 "before it %s reported", at_eof ? "truncated" : "corrupt", where,
		 at_eof ? "runs past the end of the file" : "cannot be read",
		 pcap_geterr(p), frames, frames == 1 ? "frame" : "frames",
		 frames == 1 ? "is" : "are");
}

/*
 * A pcapng file whose interfaces have different link types (libpcap 1.10
 * refuses it): every frame read through capture_in.c, each decoded by its
 * interface's link type; frames of a type not decoded are counted.
 * @p names gets the link types, "+"-joined. @return 0, or -1 with @p err.
 */
int
rk_insp_read_mixed(struct app *a, FILE *f, char *names, size_t nlen, char *err,
		   size_t elen, bool *at_eof)
{
	struct rk_insp_pcapng *ng = rk_insp_pcapng_open(f);
	struct rk_insp_pcapng_rec r;
	int rc;

	names[0] = '\0';
	if (ng == NULL) {
		snprintf(err, elen, "out of memory");
		fclose(f);
		return -1;
	}
	while ((rc = rk_insp_pcapng_next(ng, &r)) == 1) {
		struct pcap_pkthdr h = {
			.ts = { .tv_sec = (time_t)(r.ts_ns / 1000000000u),
				.tv_usec = (suseconds_t)(r.ts_ns % 1000000000u) },
			.caplen = r.caplen,
			.len = r.len,
		};

		if (names[0] == '\0') {
			/* The section's interfaces, once they are known. */
			int lt;

			for (uint32_t i = 0; (lt = rk_insp_pcapng_linktype(ng, i)) >= 0; i++) {
				size_t n = strlen(names);

				if (strcmp(rk_insp_dlt_name(lt), "unknown") == 0)
					snprintf(names + n, nlen - n, "%sLINKTYPE_%d",
						 i ? "+" : "", lt);
				else
					snprintf(names + n, nlen - n, "%s%s", i ? "+" : "",
						 rk_insp_dlt_name(lt));
			}
		}
		a->link_unknown = rk_insp_map_linktype(r.linktype, &a->link) != 0;
		rk_insp_analyse_frame(a, &h, r.data);
		if (a->count != 0 && a->tot.frames >= a->count)
			break;
		if (a->interval_ns != 0 && a->series.overflow)
			break;
	}
	if (rc == -1) {
		const char *why = rk_insp_pcapng_error(ng, at_eof);

		snprintf(err, elen, "%s capture: %s; the %" PRIu64 " %s before it %s reported",
			 *at_eof ? "truncated" : "corrupt", why,
			 a->tot.frames, a->tot.frames == 1 ? "frame" : "frames",
			 a->tot.frames == 1 ? "is" : "are");
		if (rk_insp_gzip_error(f) != NULL) {
			size_t n = strlen(err);

			snprintf(err + n, elen - n, " (zlib: %s)", rk_insp_gzip_error(f));
		}
	}
	rk_insp_pcapng_close(ng);
	fclose(f);
	return rc == -1 ? -1 : 0;
}
