/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcap_loop: the floor of any pcap reader. Opens a capture with libpcap,
 * reads every record with pcap_next_ex and counts frames and bytes, nothing
 * else. bench_inspect.sh divides rk-inspect's throughput by this one's.
 *
 * By default the file is opened with pcap_open_offline, so stdio reads it
 * in blocks of st_blksize (4 KiB here). --buffer BYTES opens it with fopen,
 * gives the stream a buffer of that size and hands it to
 * pcap_fopen_offline: the same loop with fewer read system calls, for
 * readers that enlarge their buffer.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pcap/pcap.h>

static void
usage(FILE *f)
{
	fprintf(f, "usage: pcap_loop [--buffer BYTES] FILE\n");
}

int
main(int argc, char **argv)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	uint64_t frames = 0, caplen = 0, wirelen = 0;
	unsigned int sum = 0;
	struct timespec t0, t1;
	size_t bufsize = 0;
	char *iobuf = NULL;
	const char *file;
	pcap_t *p;
	double secs;
	int rc;

	if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		usage(stdout);
		return 0;
	}
	if (argc == 4 && strcmp(argv[1], "--buffer") == 0) {
		char *end;

		errno = 0;
		bufsize = strtoul(argv[2], &end, 10);
		/* 1 B .. 1 GiB; strtoul takes "-5" as a huge number. */
		if (end == argv[2] || *end != '\0' || errno != 0 || argv[2][0] == '-' ||
		    bufsize == 0 || bufsize > (1ul << 30)) {
			fprintf(stderr, "pcap_loop: --buffer needs a byte count from 1 to 1073741824, "
				"not '%s'\n", argv[2]);
			return 2;
		}
		file = argv[3];
	} else if (argc == 2) {
		file = argv[1];
	} else {
		usage(stderr);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (bufsize > 0) {
		FILE *f = fopen(file, "rb");

		iobuf = malloc(bufsize);
		if (f == NULL || iobuf == NULL) {
			fprintf(stderr, "pcap_loop: %s: %s\n", file, strerror(errno));
			return 1;
		}
		setvbuf(f, iobuf, _IOFBF, bufsize);
		p = pcap_fopen_offline(f, err);
		if (p == NULL)
			fclose(f);
	} else {
		p = pcap_open_offline(file, err);
	}
	if (p == NULL) {
		fprintf(stderr, "pcap_loop: %s\n", err);
		return 1;
	}
	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		frames++;
		caplen += h->caplen;
		wirelen += h->len;
		/* Touch the first byte, as any reader must. */
		sum += h->caplen > 0 ? data[0] : 0;
	}
	if (rc == PCAP_ERROR) {
		fprintf(stderr, "pcap_loop: %s\n", pcap_geterr(p));
		pcap_close(p);
		return 1;
	}
	pcap_close(p);
	free(iobuf);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("frames %" PRIu64 " caplen_bytes %" PRIu64 " wire_bytes %" PRIu64
	       " seconds %.6f (check %u)\n", frames, caplen, wirelen, secs, sum & 1);
	return 0;
}
