/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pcapng writer on its own (no DPDK), through stdio and through its
 * background thread: what it writes reads back with libpcap, frame for
 * frame, with nanosecond timestamps and the snap length applied; write
 * errors surface at close.
 */
#include "rk_test.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include "rk_pcapng.h"

static void
temp_path(char *path, size_t len)
{
	snprintf(path, len, "/tmp/rk_test_pcapng_%ld.pcapng", (long)getpid());
}

/* The mode under test: stdio (0) or the background thread's buffers (bytes). */
static size_t bg_bytes;

static int
open_mode(struct rk_pcapng *w, const char *path, const char *ifname, uint32_t snaplen)
{
	return bg_bytes == 0 ? rk_pcapng_open(w, path, ifname, snaplen) :
	       rk_pcapng_open_background(w, path, ifname, snaplen, bg_bytes);
}

static void
test_frames_read_back(void **state)
{
	static const uint64_t ts[3] = { 1700000000123456789ull, 1700000001000000001ull,
					1700000002999999999ull };
	static const uint32_t lens[3] = { 60, 1, 300 };
	uint8_t frames[3][300];
	char path[64], err[PCAP_ERRBUF_SIZE];
	struct rk_pcapng w;
	struct pcap_pkthdr *ph;
	const u_char *data;
	pcap_t *p;

	(void)state;
	temp_path(path, sizeof(path));
	for (int i = 0; i < 3; i++)
		rk_test_fill(frames[i], sizeof(frames[i]));
	assert_int_equal(open_mode(&w, path, "port0", 200), 0);
	for (int i = 0; i < 3; i++)
		rk_pcapng_write(&w, ts[i], i == 1 ? RK_PCAPNG_IN : RK_PCAPNG_OUT, frames[i],
				lens[i]);
	assert_int_equal(w.frames, 3);
	assert_int_equal(rk_pcapng_close(&w), 0);

	p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
	assert_non_null(p);
	assert_int_equal(pcap_datalink(p), DLT_EN10MB);
	assert_int_equal(pcap_snapshot(p), 200);
	for (int i = 0; i < 3; i++) {
		uint32_t cap = lens[i] < 200 ? lens[i] : 200;

		assert_int_equal(pcap_next_ex(p, &ph, &data), 1);
		assert_int_equal(ph->len, lens[i]);
		assert_int_equal(ph->caplen, cap);
		assert_memory_equal(data, frames[i], cap);
		assert_int_equal((uint64_t)ph->ts.tv_sec, ts[i] / 1000000000ull);
		assert_int_equal((uint64_t)ph->ts.tv_usec, ts[i] % 1000000000ull);
	}
	assert_int_equal(pcap_next_ex(p, &ph, &data), PCAP_ERROR_BREAK);
	pcap_close(p);
	unlink(path);
}

/* Frames the caller cut: the cut, then the snap length, bound what is kept. */
static void
test_write_cut(void **state)
{
	static const uint32_t caps[4] = { 54, 300, 250, 0 }, want[4] = { 54, 100, 200, 0 };
	static const uint32_t lens[4] = { 300, 100, 300, 60 };
	uint8_t frame[300];
	char path[64], err[PCAP_ERRBUF_SIZE];
	struct rk_pcapng w;
	struct pcap_pkthdr *ph;
	const u_char *data;
	pcap_t *p;

	(void)state;
	temp_path(path, sizeof(path));
	rk_test_fill(frame, sizeof(frame));
	assert_int_equal(open_mode(&w, path, "port0", 200), 0);
	for (int i = 0; i < 4; i++)
		rk_pcapng_write_cut(&w, 1000 + (uint64_t)i, RK_PCAPNG_OUT, frame, caps[i], lens[i]);
	assert_int_equal(rk_pcapng_close(&w), 0);
	p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
	assert_non_null(p);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(pcap_next_ex(p, &ph, &data), 1);
		assert_int_equal(ph->len, lens[i]);
		assert_int_equal(ph->caplen, want[i]);
		assert_memory_equal(data, frame, want[i]);
	}
	assert_int_equal(pcap_next_ex(p, &ph, &data), PCAP_ERROR_BREAK);
	pcap_close(p);
	unlink(path);
}

static void
test_errors(void **state)
{
	struct rk_pcapng w;
	uint8_t f[64] = { 0 };

	(void)state;
	assert_int_equal(open_mode(&w, "/nonexistent-dir/x.pcapng", NULL, 0), -ENOENT);
	/* Writing to or closing a writer that never opened does nothing. */
	rk_pcapng_write(&w, 1, RK_PCAPNG_IN, f, sizeof(f));
	assert_int_equal(w.frames, 0);
	assert_int_equal(rk_pcapng_close(&w), 0);
	/* A full device: the error comes back at close. */
	if (access("/dev/full", W_OK) == 0) {
		assert_int_equal(open_mode(&w, "/dev/full", "x", 0), 0);
		for (int i = 0; i < 20000; i++)
			rk_pcapng_write(&w, 1, RK_PCAPNG_OUT, f, sizeof(f));
		assert_int_not_equal(rk_pcapng_close(&w), 0);
	}
}

/*
 * Many frames through the smallest buffers (128 KiB): about 180 hand-overs,
 * frames whole and cut, every one back in order with its own bytes.
 */
static void
test_many_frames_in_order(void **state)
{
	enum { N = 20000 };
	uint8_t frame[1500];
	char path[64], err[PCAP_ERRBUF_SIZE];
	struct rk_pcapng w;
	struct pcap_pkthdr *ph;
	const u_char *data;
	pcap_t *p;

	(void)state;
	temp_path(path, sizeof(path));
	assert_int_equal(open_mode(&w, path, "port0", 1024), 0);
	for (uint32_t i = 0; i < N; i++) {
		uint32_t len = 60 + (i * 7919u) % 1400;

		memset(frame, (int)(i & 0xff), len);
		memcpy(frame, &i, sizeof(i));
		rk_pcapng_write(&w, 1000000000ull + i, RK_PCAPNG_OUT, frame, len);
	}
	assert_int_equal(w.frames, N);
	print_message("# %s: %d frames, %" PRIu64 " hand-overs waited for the disk\n",
		      bg_bytes ? "background" : "stdio", N, w.waits);
	assert_int_equal(rk_pcapng_close(&w), 0);

	p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
	assert_non_null(p);
	for (uint32_t i = 0; i < N; i++) {
		uint32_t len = 60 + (i * 7919u) % 1400, got;

		assert_int_equal(pcap_next_ex(p, &ph, &data), 1);
		assert_int_equal(ph->len, len);
		assert_int_equal(ph->caplen, len < 1024 ? len : 1024);
		memcpy(&got, data, sizeof(got));
		assert_int_equal(got, i);
		assert_int_equal(data[ph->caplen - 1], i & 0xff);
		assert_int_equal((uint64_t)ph->ts.tv_usec, i);
	}
	assert_int_equal(pcap_next_ex(p, &ph, &data), PCAP_ERROR_BREAK);
	pcap_close(p);
	unlink(path);
}

static int
stdio_mode(void **state)
{
	(void)state;
	bg_bytes = 0;
	return 0;
}

static int
background_mode(void **state)
{
	(void)state;
	bg_bytes = 1;   /* raised to the smallest, 128 KiB */
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_frames_read_back, stdio_mode),
		cmocka_unit_test_setup(test_errors, stdio_mode),
		cmocka_unit_test_setup(test_write_cut, stdio_mode),
		cmocka_unit_test_setup(test_many_frames_in_order, stdio_mode),
		cmocka_unit_test_setup(test_frames_read_back, background_mode),
		cmocka_unit_test_setup(test_errors, background_mode),
		cmocka_unit_test_setup(test_write_cut, background_mode),
		cmocka_unit_test_setup(test_many_frames_in_order, background_mode),
	};

	rk_test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
