/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-sim incast: N fixed-rate (line-rate) senders into one switch port,
 * PFC on or off; queue depth as CSV (at most one row per microsecond) and
 * counters plus PFC events as JSON.
 */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_sim_switch.h"
#include "rk_sim_xstats.h"
#include "rk_cli.h"
#include "sim_cli.h"

#define PRIO 3
#define MAX_PFC_EVENTS 100000

struct incast_trace {
	FILE *csv;
	unsigned int out_port;
	uint64_t last_row_ns;
	json_t *pfc;
	unsigned long pfc_events;
};

static void q_row(void *ctx, struct rk_sw *sw, unsigned int port, unsigned int prio, uint64_t t,
		  uint64_t bytes, bool marked, bool paused)
{
	struct incast_trace *tr = ctx;

	(void)sw;
	if (!tr->csv || port != tr->out_port || (tr->last_row_ns && t < tr->last_row_ns + 1000))
		return;
	tr->last_row_ns = t;
	fprintf(tr->csv, "%llu,%u,%u,%llu,%d,%d\n", (unsigned long long)t, port, prio,
		(unsigned long long)bytes, marked, paused);
}

static void pfc_event(void *ctx, struct rk_sw *sw, unsigned int port, uint64_t t,
		      unsigned int prio, uint16_t quanta, unsigned int dir)
{
	struct incast_trace *tr = ctx;

	(void)sw;
	if (++tr->pfc_events > MAX_PFC_EVENTS)
		return;
	json_array_append_new(tr->pfc, json_pack("{s:I,s:i,s:i,s:i,s:s}", "t_ns", (json_int_t)t,
						 "port", (int)port, "prio", (int)prio,
						 "quanta", (int)quanta, "dir", dir ? "rx" : "tx"));
}

static void usage(FILE *f)
{
	fprintf(f, "usage: rk-sim incast [--senders N] [--pfc on|off] [--duration MS]\n"
		   "                     [--csv FILE] [--json FILE]\n"
		   "  N senders at 100 Gb/s (1078-byte ECT(0) UDP/IPv4 frames, priority 3)\n"
		   "  into one 100 Gb/s port for MS ms of virtual time (defaults 16, on, 10).\n"
		   "       rk-sim incast --dcqcn[=paper|nvidia-default] [--senders N]\n"
		   "                     [--duration MS] [--csv FILE] [--json FILE] [--png FILE]\n"
		   "  N rdmakit RC QPs with DCQCN through the switch instead (rk-sim incast\n"
		   "  --dcqcn --help).\n");
}

int rk_sim_run_incast(int argc, char **argv);

int rk_sim_run_incast(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "senders", 1, NULL, 'n' }, { "pfc", 1, NULL, 'p' }, { "duration", 1, NULL, 'd' },
		{ "csv", 1, NULL, 'c' }, { "json", 1, NULL, 'j' }, { "help", 0, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long senders = 16, ms = 10;
	bool pfc = true;
	const char *csv = NULL, *json = NULL;
	int o;
	char *end;

	optind = 1;
	opterr = 0;
	while ((o = rk_cli_getopt(argc, argv, ":n:p:d:c:j:h", lo, NULL)) != -1) {
		switch (o) {
		case 'n':
			senders = strtoul(optarg, &end, 10);
			if (*end || senders < 1 || senders > 63) {
				fprintf(stderr, "rk-sim: incast: --senders takes 1..63\n");
				return 2;
			}
			break;
		case 'p':
			if (strcmp(optarg, "on") && strcmp(optarg, "off")) {
				fprintf(stderr, "rk-sim: incast: --pfc takes on or off\n");
				return 2;
			}
			pfc = strcmp(optarg, "on") == 0;
			break;
		case 'd':
			ms = strtoul(optarg, &end, 10);
			if (*end || ms < 1 || ms > 10000) {
				fprintf(stderr, "rk-sim: incast: --duration takes 1..10000 (ms)\n");
				return 2;
			}
			break;
		case 'c': csv = optarg; break;
		case 'j': json = optarg; break;
		case 'h': usage(stdout); return 0;
		case ':': case '?': return rk_sim_cli_refused("incast", o, argc, argv, usage);
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rk-sim: incast: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	struct incast_trace tr = { .out_port = (unsigned int)senders };

	/* An output that cannot be written is said before the run. */
	if (rk_sim_cli_outputs("incast", csv, json, NULL, &tr.csv) != 0)
		return 2;
	tr.pfc = json_array();
	if (tr.csv)
		fprintf(tr.csv, "t_ns,port,prio,bytes,marked,paused\n");
	struct rk_sw_net *n = rk_sw_net_create();
	struct rk_sw_cfg c = { .nports = (unsigned int)senders + 1,
			       .lossless_mask = pfc ? 1u << PRIO : 0, .seed = 1 };

	c.port.rate_bps = 100000000000ull;
	c.port.prop_ns = 1000;
	c.port.xoff_bytes = 50000;
	c.port.xon_bytes = 40000;
	c.port.headroom_bytes = 30000;
	c.port.pause_quanta = 0xffff;
	c.port.kmin_bytes[PRIO] = 5000;
	c.port.kmax_bytes[PRIO] = 200000;
	c.port.pmax[PRIO] = 0.01;
	c.port.limit_bytes = 1000000;
	struct rk_sw *sw = rk_sw_add(n, &c);
	uint8_t f[1078] = { 0 };

	if (!n || !sw) {
		fprintf(stderr, "rk-sim: incast: out of memory\n");
		return 1;
	}
	f[0] = 0x02; f[5] = 9; f[6] = 0x02;
	f[12] = 0x08; f[14] = 0x45; f[15] = 26 << 2 | 2;
	f[16] = (1078 - 14) >> 8; f[17] = (1078 - 14) & 0xff; f[22] = 64; f[23] = 17;
	rk_sw_route(sw, 9, (unsigned int)senders);
	rk_sw_net_set_trace(n, pfc_event, q_row, &tr);
	for (unsigned int i = 0; i < senders; i++)
		rk_sw_add_source(sw, i, c.port.rate_bps, c.port.prop_ns, f, sizeof(f), 0,
				 ms * 1000000ull);
	rk_sw_net_run(n, ms * 1000000ull);

	json_t *root = json_object(), *ports = json_array();

	for (unsigned int p = 0; p <= senders; p++) {
		json_t *jp = json_object();

		for (unsigned int i = 0; i < rk_sim_switch_xstats.n; i++)
			json_object_set_new(jp, rk_sim_switch_xstats.desc[i].name,
					    json_integer((json_int_t)rk_xstat_value(&rk_sim_switch_xstats, i,
								rk_sw_stats(sw, p, PRIO))));
		json_array_append_new(ports, jp);
	}
	json_object_set_new(root, "senders", json_integer((json_int_t)senders));
	json_object_set_new(root, "pfc", json_boolean(pfc));
	json_object_set_new(root, "duration_ms", json_integer((json_int_t)ms));
	json_object_set_new(root, "ports_prio3", ports);
	json_object_set_new(root, "pfc_events", tr.pfc);
	json_object_set_new(root, "pfc_events_total", json_integer((json_int_t)tr.pfc_events));
	const struct rk_sw_prio_stats *out = rk_sw_stats(sw, (unsigned int)senders, PRIO);
	uint64_t drops = 0;

	for (unsigned int p = 0; p <= senders; p++)
		drops += rk_sw_stats(sw, p, PRIO)->drops;
	printf("incast %lu:1 %lu ms pfc %s: out %llu frames, marked %llu, queue peak %llu B, "
	       "dropped %llu\n", senders, ms, pfc ? "on" : "off",
	       (unsigned long long)out->tx_frames, (unsigned long long)out->ecn_marked,
	       (unsigned long long)out->queue_peak, (unsigned long long)drops);
	int rc = 0;

	if (json && json_dump_file(root, json, JSON_INDENT(1)) < 0) {
		fprintf(stderr, "rk-sim: incast: cannot write %s\n", json);
		rc = 1;
	}
	json_decref(root);
	if (tr.csv && fclose(tr.csv) != 0)
		rc = 1;
	rk_sw_net_destroy(n);
	return rc;
}
