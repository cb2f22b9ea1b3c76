/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What bounds the frames of net_af_packet ports, for tests/dpdk/dpdk_test.sh
 * mode afpacket (run in a namespace whose interface IFACE has MTU 1500):
 *
 *   afp_limits EAL -- IFACE
 *
 * Port 0 is net_af_packet with the default framesz (2048: frames of 2016
 * bytes out, 1982 in) on an interface of a large MTU, port 1 one with
 * framesz=8192 on IFACE, whose MTU (1500) bounds its frames (1514 bytes).
 * rk_io_dpdk_check_frame() says so with what to change; a frame over port
 * 0's slot, which DPDK 22.11 frees without sending, shows in
 * port_xmit_errors. Exit 1 on failure.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rk_io_dpdk.h"

static int failures;

#define CHECK(c, ...) do { \
	if (c) { printf("ok   "); printf(__VA_ARGS__); putchar('\n'); } \
	else { printf("FAIL "); printf(__VA_ARGS__); printf(" (line %d)\n", __LINE__); \
	       failures++; } } while (0)

static uint64_t
counter(const struct rk_io_dpdk *io, const char *name)
{
	struct rk_io_counter c[64];
	unsigned int n = rk_io_hw_counters(io, NULL, c, 64);

	for (unsigned int i = 0; i < n; i++)
		if (strcmp(c[i].name, name) == 0)
			return c[i].value;
	return UINT64_MAX;
}

/* A broadcast frame of @p len bytes, local experimental EtherType 0x88b5. */
static int
send_frame(struct rk_io_dpdk *io, uint32_t len)
{
	static uint8_t f[RK_IB_MAX_FRAME];

	memset(f, 0xab, sizeof(f));
	memset(f, 0xff, 6);
	rk_io_dpdk_mac(io, f + 6);
	f[12] = 0x88;
	f[13] = 0xb5;
	return rk_io_dpdk_tx_raw(io, f, len);
}

int
main(int argc, char **argv)
{
	struct rk_io_dpdk_args args;
	struct rk_io_dpdk_cfg cfg = { .ip = { 198, 18, 0, 1 }, .link_timeout_ms = 5000 };
	struct rk_io_dpdk *io0, *io1;
	char why[192], want[128];
	uint64_t e0;
	int rc;

	rk_io_dpdk_split_args(argc, argv, "afp_limits", &args);
	if (args.app_argc < 2) {
		fprintf(stderr, "usage: afp_limits EAL -- IFACE\n");
		return 2;
	}
	if (rk_io_dpdk_eal_init(args.eal_argc, args.eal_argv) < 0) {
		fprintf(stderr, "afp_limits: EAL init failed\n");
		return 1;
	}
	cfg.port_id = 0;
	io0 = rk_io_dpdk_open(&cfg);
	cfg.port_id = 1;
	io1 = rk_io_dpdk_open(&cfg);
	if (io0 == NULL || io1 == NULL) {
		fprintf(stderr, "afp_limits: cannot open the ports: %s\n",
			rk_io_dpdk_open_strerror(errno));
		return 1;
	}

	/* framesz 2048: 1982 bytes both ways; the advice fits the frame. */
	CHECK(rk_io_dpdk_check_frame(io0, 1982, why, sizeof(why)) == 0 && why[0] == '\0',
	      "framesz 2048: a frame of 1982 bytes fits");
	rc = rk_io_dpdk_check_frame(io0, 1983, why, sizeof(why));
	CHECK(rc == -EMSGSIZE && strstr(why, "at most 1982 bytes") != NULL &&
	      strstr(why, "framesz=4096,blocksz=4096") != NULL,
	      "framesz 2048: 1983 bytes do not: %s", why);
	rc = rk_io_dpdk_check_frame(io0, 4170, why, sizeof(why));
	CHECK(rc == -EMSGSIZE && strstr(why, "framesz=8192,blocksz=8192") != NULL,
	      "framesz 2048: 4170 bytes: %s", why);
	CHECK(rk_io_dpdk_check_frame(io0, 1983, NULL, 0) == -EMSGSIZE, "no text asked for");

	/* framesz 8192 on an interface of MTU 1500: the MTU bounds. */
	CHECK(rk_io_dpdk_check_frame(io1, 1514, why, sizeof(why)) == 0,
	      "MTU 1500: a frame of 1514 bytes fits");
	rc = rk_io_dpdk_check_frame(io1, 1515, why, sizeof(why));
	snprintf(want, sizeof(want), "interface %s of net_af_packet1 has MTU 1500: give it 1501",
		 args.app_argv[1]);
	CHECK(rc == -EMSGSIZE && strstr(why, want) != NULL, "MTU 1500: 1515 bytes do not: %s",
	      why);

	/* The IP MTU the verbs layer holds a path MTU against (rk_io_dpdk_ops' mtu). */
	CHECK(rk_io_dpdk_ip_mtu(io0) == 1968 && rk_io_dpdk_ops.mtu(io0) == 1968,
	      "framesz 2048: IP MTU %u (want 1968 = 1982 - 14)", rk_io_dpdk_ip_mtu(io0));
	CHECK(rk_io_dpdk_ip_mtu(io1) == 1500, "MTU 1500: IP MTU %u", rk_io_dpdk_ip_mtu(io1));

	/* A frame over the slot: the driver frees it; port_xmit_errors says so. */
	e0 = counter(io0, "port_xmit_errors");
	CHECK(e0 == 0, "port_xmit_errors starts at 0 (%" PRIu64 ")", e0);
	/* 2016 bytes still leave (the peer's slot would cut them), 2100 do not. */
	CHECK(send_frame(io0, 1000) == 0 && send_frame(io0, 2100) == 0 &&
	      send_frame(io0, 2016) == 0, "three frames queued (1000, 2100, 2016 bytes)");
	for (int i = 0; i < 10; i++)
		rk_io_dpdk_service(io0);
	CHECK(counter(io0, "port_xmit_errors") == 1 && counter(io0, "port_xmit_packets") == 3,
	      "port_xmit_errors %" PRIu64 " (want 1), port_xmit_packets %" PRIu64 " (want 3)",
	      counter(io0, "port_xmit_errors"), counter(io0, "port_xmit_packets"));

	rk_io_dpdk_close(io1);
	rk_io_dpdk_close(io0);
	printf("afp_limits: %s\n", failures == 0 ? "all checks passed" : "FAILED");
	return failures == 0 ? 0 : 1;
}
