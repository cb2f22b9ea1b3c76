/* SPDX-License-Identifier: BSD-3-Clause */
/* rk-conform's command line: the options, their checks, the usage text. */
#ifndef RK_CONFORM_OPTS_H
#define RK_CONFORM_OPTS_H

#include <stdbool.h>
#include <stdint.h>

struct opts {
	const char *dut;
	const char *cases;
	const char *json, *junit, *pcap_dir, *verdicts, *expect, *replay;
	bool list, markdown;
	double timeout_ms;
	double connect_timeout_s;      /* perftest: a server that refuses, retried this long */
	/* --dut perftest */
	const char *server, *port, *oob_netns, *record;
	const char *ip;
	const char *dut_ip;            /* --dut-ip: the DUT's RoCE address (cm.* cases) */
	uint16_t cm_port;              /* --serve cm=PORT: the DUT's RDMA-CM listener; 0: none */
	uint16_t rping_port;           /* --serve rping=PORT: an iWARP DUT's rping server; 0: none */
	uint32_t size, mtu, min_rnr;
	bool mtu_given;                /* --mtu given: a replay keeps it, else offers its own */
	uint32_t replay_qp;            /* --replay-qp: a DestQP; 0: the first request's */
	bool replay_all;               /* --replay-qp all: every conversation */
	/* --replay-qp QPN@ADDRESS: that requester's (rk_conform_conv's form) */
	uint8_t replay_from[16];
	bool replay_from_set;
	uint32_t max_setup_failures;   /* cases in a row without a QP before stopping; 0: never */
	uint16_t tcp_port[4];
	bool serve_given, one_server, live_num_given;
};

/**
 * Parse rk-conform's options (after the EAL's, when built with DPDK) into
 * @p o with their defaults; --help and --version exit here.
 * @return 0, or 2 after a one-line error on stderr naming the option.
 */
int rk_cf_opts_parse(int argc, char **argv, struct opts *o);

#endif
