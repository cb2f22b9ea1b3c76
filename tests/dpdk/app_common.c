/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * apps/common (rk_app.h): the data pattern is the one both apps used
 * before (xorshift64 from the key's seed) and checks what it fills; a
 * --sizes error names the entry at fault; the watchdog expires only after
 * its timeout without work; the progress line of a latency test gives a
 * latency, not a rate. No EAL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rk_app.h"

static int failures;

#define CHECK(c, what) do { \
	if (c) { printf("ok   %s\n", what); } \
	else { printf("FAIL %s (line %d)\n", what, __LINE__); failures++; } } while (0)

/* The progress line printed for these arguments, into @p out. */
static void
progress_text(uint64_t iters, uint64_t bytes, double lat_us, char *out, size_t len)
{
	struct rk_app_progress pr = { .prog = "t", .t0_ns = 1000000000ull };
	FILE *f = tmpfile();
	int fd = dup(2);
	size_t n;

	fflush(stderr);
	dup2(fileno(f), 2);
	rk_app_progress(&pr, 3000000000ull, iters, bytes, lat_us);
	fflush(stderr);
	dup2(fd, 2);
	close(fd);
	rewind(f);
	n = fread(out, 1, len - 1, f);
	out[n] = '\0';
	fclose(f);
}

int
main(void)
{
	uint8_t b[37];
	uint64_t s = (5 + 1) * 0x9e3779b97f4a7c15ull ^ 0xd1b54a32d192ed03ull, v;
	uint32_t sizes[4];
	char err[160], line[256];
	struct rk_app_watchdog wd = { .timeout_s = 1 };

	/* The pattern: key 5's first word, as rk-perf and rk-interop computed it. */
	s ^= s << 13;
	s ^= s >> 7;
	s ^= s << 17;
	rk_app_fill(b, sizeof(b), 5);
	memcpy(&v, b, 8);
	CHECK(v == s, "fill: the first word is xorshift64 of the key's seed");
	CHECK(rk_app_check(b, sizeof(b), 5), "check accepts what fill wrote (37 bytes)");
	b[36] ^= 1;
	CHECK(!rk_app_check(b, sizeof(b), 5), "check refuses a flipped last byte");
	CHECK(!rk_app_check(b, 8, 6), "check refuses another key's bytes");

	/* Size lists. */
	CHECK(rk_app_parse_sizes("1,4096,1048576", 1, 1u << 26, sizes, 4, err, sizeof(err)) == 3 &&
	      sizes[0] == 1 && sizes[1] == 4096 && sizes[2] == 1048576, "sizes: a list of 3");
	CHECK(rk_app_parse_sizes("1,x7,3", 1, 1u << 26, sizes, 4, err, sizeof(err)) == -1 &&
	      strstr(err, "entry 2, 'x7'") != NULL, "sizes: a bad entry is named");
	printf("     (%s)\n", err);
	CHECK(rk_app_parse_sizes("64,99999999999", 1, 1u << 26, sizes, 4, err, sizeof(err)) == -1 &&
	      strstr(err, "'99999999999'") != NULL, "sizes: a size out of range is named");
	CHECK(rk_app_parse_sizes("1,,2", 1, 1u << 26, sizes, 4, err, sizeof(err)) == -1 &&
	      strstr(err, "empty entry in '1,,2'") != NULL, "sizes: an empty entry");
	CHECK(rk_app_parse_sizes("1,2,3,4,5", 1, 1u << 26, sizes, 4, err, sizeof(err)) == -1 &&
	      strstr(err, "more than 4") != NULL, "sizes: too many");

	/* Option words. */
	CHECK(rk_app_parse_word("iwarp", rk_app_words_transport) == 1 &&
	      rk_app_parse_word("rocev2", rk_app_words_transport) == 0, "words: transport");
	CHECK(rk_app_parse_word("CMP_AND_SWAP", rk_app_words_atomic) == 1 &&
	      rk_app_parse_word("FETCH_AND_ADD", rk_app_words_atomic) == 0, "words: atomic");
	CHECK(rk_app_parse_word("IWARP", rk_app_words_transport) == -1 &&
	      rk_app_parse_word("", rk_app_words_atomic) == -1, "words: no other spelling");

	/* Watchdog. */
	CHECK(!rk_app_watchdog_expired(&wd, 5000000000ull, 0), "watchdog: the first poll starts it");
	CHECK(!rk_app_watchdog_expired(&wd, 5900000000ull, 0), "watchdog: 0.9 s idle is no timeout");
	CHECK(!rk_app_watchdog_expired(&wd, 5950000000ull, 1), "watchdog: work restarts it");
	CHECK(!rk_app_watchdog_expired(&wd, 6900000000ull, 0), "watchdog: 0.95 s after the work");
	CHECK(rk_app_watchdog_expired(&wd, 7000000000ull, 0), "watchdog: 1.05 s idle expires");

	/* Progress: a rate for bandwidth, the mean latency for latency tests. */
	progress_text(1000, 250000000, -1, line, sizeof(line));
	CHECK(strstr(line, "1.000 Gb/s") != NULL, "progress: 2 Gbit in 2 s is 1.000 Gb/s");
	progress_text(100000, 200000, 4.25, line, sizeof(line));
	CHECK(strstr(line, "4.250 us") != NULL && strstr(line, "Gb/s") == NULL,
	      "progress: a latency test prints its mean latency, not 0.000 Gb/s");
	printf("     (%s)", line);

	/* --run_infinitely's clock: each interval's own count and length. */
	{
		struct rk_app_interval iv;
		uint64_t d = 0;
		double secs = 0;

		rk_app_interval_init(&iv, 2, 1000000000ull, 500);
		CHECK(!rk_app_interval_due(&iv, 2999999999ull, 900, &d, &secs),
		      "interval: 1.99 s of 2 is not over");
		CHECK(rk_app_interval_due(&iv, 3000000000ull, 900, &d, &secs) && d == 400 &&
		      secs == 2.0 && iv.done == 1, "interval: at 2 s, the 400 done since the start");
		CHECK(!rk_app_interval_due(&iv, 4000000000ull, 1000, &d, &secs),
		      "interval: the next one starts where the last ended");
		CHECK(rk_app_interval_due(&iv, 5500000000ull, 1300, &d, &secs) && d == 400 &&
		      secs == 2.5 && iv.done == 2,
		      "interval: a late check counts up to it (400 in 2.5 s), not from the first start");
	}
	/* perftest's bw line: 1000 x 64 KiB in 1 s is 62.50 MB/s (2^20), 0.001 Mpps. */
	{
		FILE *f = tmpfile();
		size_t n;

		rk_app_bw_line(f, 65536, 1000, 0, 65536000.0, 1000, false);
		rewind(f);
		n = fread(line, 1, sizeof(line) - 1, f);
		line[n] = '\0';
		fclose(f);
		CHECK(strcmp(line, " 65536      1000           0.00               62.50                "
			      "0.001000\n") == 0, "bw line: perftest's columns, MB/s of 2^20 bytes");
	}

	printf("app_common: %s\n", failures == 0 ? "all checks passed" : "FAILED");
	return failures == 0 ? 0 : 1;
}
