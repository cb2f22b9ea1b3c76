/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pcapng writer on its own (no DPDK): what it writes reads back with
 * libpcap, frame for frame, with nanosecond timestamps and the snap
 * length applied; write errors surface at close.
 */
#include "rk_test.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include "rk_pcapng.h"

static void
temp_path(char *path, size_t len)
{
	snprintf(path, len, "/tmp/rk_test_pcapng_%ld.pcapng", (long)getpid());
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
	assert_int_equal(rk_pcapng_open(&w, path, "port0", 200), 0);
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

static void
test_errors(void **state)
{
	struct rk_pcapng w;
	uint8_t f[64] = { 0 };

	(void)state;
	assert_int_equal(rk_pcapng_open(&w, "/nonexistent-dir/x.pcapng", NULL, 0), -ENOENT);
	/* Writing to or closing a writer that never opened does nothing. */
	rk_pcapng_write(&w, 1, RK_PCAPNG_IN, f, sizeof(f));
	assert_int_equal(w.frames, 0);
	assert_int_equal(rk_pcapng_close(&w), 0);
	/* A full device: the error comes back at close. */
	if (access("/dev/full", W_OK) == 0) {
		assert_int_equal(rk_pcapng_open(&w, "/dev/full", "x", 0), 0);
		for (int i = 0; i < 20000; i++)
			rk_pcapng_write(&w, 1, RK_PCAPNG_OUT, f, sizeof(f));
		assert_int_not_equal(rk_pcapng_close(&w), 0);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frames_read_back),
		cmocka_unit_test(test_errors),
	};

	rk_test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
