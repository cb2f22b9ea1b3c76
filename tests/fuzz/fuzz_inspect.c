/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: rk-inspect's whole input path (libpcap reading, gzip
 * through zlib, the pcapng reader of mixed link types, frame parsing,
 * per-QP analysis, timing and the --interval series, the QoS view, TCP
 * following, MPA deframing, every writer) on arbitrary capture files.
 * rk-inspect's main() is compiled in under the name rk_inspect_main; the
 * first input byte picks the options, the rest is the file, handed over
 * through a memfd.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <getopt.h>
#include <sanitizer/common_interface_defs.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int rk_inspect_main(int argc, char **argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const modes[] = { "-j", "-p", "-s", "-q", "--no-icrc" };
	static int fd = -1, devnull = -1, saved_stderr = -1;
	char path[64];
	char *argv[7];
	int argc = 0, rc;

	if (size < 1)
		return 0;
	if (fd < 0) {
		fd = memfd_create("rk-inspect-fuzz", 0);
		devnull = open("/dev/null", O_WRONLY);
		saved_stderr = dup(2);
		if (fd < 0 || devnull < 0 || saved_stderr < 0 ||
		    freopen("/dev/null", "w", stdout) == NULL)
			__builtin_trap();
		/* Sanitizer reports go to the real stderr, not to the /dev/null
		 * that stands in for it while rk-inspect runs. */
		__sanitizer_set_report_fd((void *)(intptr_t)saved_stderr);
	}
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data + 1, size - 1, 0) != (ssize_t)(size - 1))
		__builtin_trap();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	argv[argc++] = (char *)"rk-inspect";
	argv[argc++] = (char *)modes[data[0] % 5];
	if (data[0] & 0x80)
		argv[argc++] = (char *)"--pmtu=1024";
	if (data[0] & 0x40) {
		/* The --interval series (rows up to the capture's last time). */
		argv[argc++] = (char *)"--interval=0.001";
		argv[argc++] = (char *)"--csv=/dev/null";
	}
	argv[argc++] = path;
	argv[argc] = NULL;
	optind = 0; /* full getopt re-initialisation between runs */
	/* rk-inspect's own messages about bad files are expected: silence them
	 * during the run only (a crash inside still leaves its input saved, and
	 * the sanitizer's report reaches the saved stderr). */
	fflush(stderr);
	dup2(devnull, 2);
	rc = rk_inspect_main(argc, argv);
	fflush(stderr);
	dup2(saved_stderr, 2);
	if (rc != 0 && rc != 1 && rc != 2)
		__builtin_trap();
	return 0;
}
