/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The forwarding run: the engine table, the streams (port pairs 0<->1,
 * 2<->3, ...; a lone last port forwards to itself), and the loop that calls
 * the engine's packet_fwd on every stream until "stop" or Ctrl-C. The loop
 * runs on the first worker lcore; with none, on the main lcore, and then
 * "start" returns when forwarding stops.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "testpmd.h"

/* Adding an engine: its file, and one line here. */
const struct rk_tp_engine *const rk_tp_engines[] = {
	&rk_tp_fwd_io,
	&rk_tp_fwd_mac,
	&rk_tp_fwd_rxonly,
	&rk_tp_fwd_impair,
	&rk_tp_fwd_gen,
	&rk_tp_fwd_rdma,
	&rk_tp_fwd_responder,
	NULL,
};

int
rk_tp_set_fwd(const char *name)
{
	for (unsigned int i = 0; rk_tp_engines[i] != NULL; i++)
		if (strcmp(rk_tp_engines[i]->name, name) == 0) {
			rk_tp.engine = rk_tp_engines[i];
			return 0;
		}
	return -ENOENT;
}

/* Send n frames on port; those the queue refuses are freed and counted. */
uint16_t
rk_tp_send(uint16_t port, struct rte_mbuf **m, uint16_t n, struct rk_tp_stream *fs)
{
	uint16_t sent = 0;
	unsigned int tries = 0;

	while (sent < n && tries++ < 64) {
		sent += rte_eth_tx_burst(port, 0, m + sent, (uint16_t)(n - sent));
	}
	if (sent < n) {
		rte_pktmbuf_free_bulk(m + sent, (unsigned int)(n - sent));
		rk_tp.ports[port].tx_dropped += (uint64_t)(n - sent);
		fs->dropped += (uint64_t)(n - sent);
	}
	rk_tp.ports[port].fwd += sent;
	fs->fwd += sent;
	return sent;
}

/* What every engine does first: read a burst, count, record, decode it. */
uint16_t
rk_tp_rx(struct rk_tp_stream *fs, struct rte_mbuf **m)
{
	uint16_t port = fs->rx_port, n = rte_eth_rx_burst(port, 0, m, RK_TP_BURST);

	if (n == 0)
		return 0;
	fs->rx += n;
	rk_tp.ports[port].rx += n;
	rk_tp_pcap_frames(port, m, n);
	if (rk_tp.verbose) {
		for (uint16_t i = 0; i < n; i++)
			rk_tp_decode(stdout, port, rte_pktmbuf_mtod(m[i], const uint8_t *),
				     rte_pktmbuf_data_len(m[i]));
		fflush(stdout);
	}
	return n;
}

static void
print_fwd_stats(FILE *out)
{
	for (unsigned int i = 0; i < rk_tp.nb_streams; i++) {
		const struct rk_tp_stream *fs = &rk_tp.streams[i];

		fprintf(out, "  stream port %u -> port %u: received %" PRIu64 " forwarded %" PRIu64
			" dropped %" PRIu64 "\n", fs->rx_port, fs->tx_port, fs->rx, fs->fwd,
			fs->dropped);
	}
}

static int
fwd_loop(void *arg)
{
	uint64_t hz = rte_get_timer_hz();
	uint64_t next_link = rte_get_timer_cycles() + hz;
	uint64_t period = (uint64_t)(rk_tp.stats_period * (double)hz);
	uint64_t next_stats = rte_get_timer_cycles() + period;
	const struct rk_tp_engine *e = rk_tp.engine;

	(void)arg;
	while (!rk_tp.stop_fwd) {
		uint64_t now;

		for (unsigned int i = 0; i < rk_tp.nb_streams; i++)
			e->packet_fwd(&rk_tp.streams[i]);
		now = rte_get_timer_cycles();
		if (now >= next_link) {
			rk_tp_check_links(stdout);
			fflush(stdout);
			next_link = now + hz;
		}
		if (period != 0 && now >= next_stats) {
			print_fwd_stats(stdout);
			fflush(stdout);
			next_stats = now + period;
		}
	}
	if (rte_lcore_id() != rte_get_main_lcore() && !rk_tp.stopping) {
		/* Ctrl-C: the prompt stays; "stop" prints the statistics. */
		printf("\nForwarding stopped by a signal; \"stop\" prints the statistics\n");
		fflush(stdout);
	}
	return 0;
}

static void
make_streams(void)
{
	uint16_t used[RK_TP_MAX_PORTS];
	unsigned int n = 0;

	for (uint16_t p = 0; p < rk_tp.nb_ports; p++)
		if (rk_tp.ports[p].present && rk_tp.ports[p].started)
			used[n++] = p;
	rk_tp.nb_streams = 0;
	for (unsigned int i = 0; i < n; i++) {
		struct rk_tp_stream *fs = &rk_tp.streams[rk_tp.nb_streams++];
		unsigned int peer = (i % 2 == 0) ? i + 1 : i - 1;

		memset(fs, 0, sizeof(*fs));
		fs->rx_port = used[i];
		fs->tx_port = peer < n ? used[peer] : used[i];
	}
}

int
rk_tp_fwd_start(FILE *out)
{
	unsigned int lcore;
	unsigned int i;
	int rc;

	if (rk_tp.forwarding) {
		fprintf(out, "Packet forwarding already started\n");
		return -EALREADY;
	}
	if (rk_tp.engine->fwd_ready != NULL && (rc = rk_tp.engine->fwd_ready(out)) < 0)
		return rc;
	make_streams();
	if (rk_tp.nb_streams == 0) {
		fprintf(out, "No started port: run \"port start all\" first\n");
		return -ENODEV;
	}
	for (i = 0; i < rk_tp.nb_streams; i++) {
		if (rk_tp.engine->port_fwd_begin == NULL)
			break;
		if ((rc = rk_tp.engine->port_fwd_begin(rk_tp.streams[i].rx_port)) < 0) {
			fprintf(out, "%s: cannot start on port %u: %s\n", rk_tp.engine->name,
				rk_tp.streams[i].rx_port, strerror(-rc));
			while (i-- > 0)
				if (rk_tp.engine->port_fwd_end != NULL)
					rk_tp.engine->port_fwd_end(rk_tp.streams[i].rx_port);
			return rc;
		}
	}
	fprintf(out, "%s packet forwarding - ports=%u - streams=%u\n", rk_tp.engine->name,
		rk_tp.nb_streams, rk_tp.nb_streams);
	rk_tp.stop_fwd = 0;
	rk_tp.stopping = false;
	rk_tp.forwarding = true;
	lcore = rte_get_next_lcore(-1, 1, 0);
	if (rk_tp.nb_cores > 0 && lcore < RTE_MAX_LCORE &&
	    rte_eal_remote_launch(fwd_loop, NULL, lcore) == 0) {
		rk_tp.fwd_lcore = lcore;
		return 0;
	}
	/* No worker: forward here until Ctrl-C. */
	rk_tp.fwd_lcore = RTE_MAX_LCORE;
	fprintf(out, "Forwarding on the main lcore: Ctrl-C stops it\n");
	fflush(out);
	fwd_loop(NULL);
	rk_tp_fwd_stop(out);
	return 0;
}

void
rk_tp_fwd_stop(FILE *out)
{
	if (!rk_tp.forwarding) {
		fprintf(out, "Packet forwarding not started\n");
		return;
	}
	rk_tp.stopping = true;
	rk_tp.stop_fwd = 1;
	if (rk_tp.fwd_lcore < RTE_MAX_LCORE)
		rte_eal_wait_lcore(rk_tp.fwd_lcore);
	rk_tp.fwd_lcore = RTE_MAX_LCORE;
	rk_tp.forwarding = false;
	for (unsigned int i = 0; i < rk_tp.nb_streams; i++)
		if (rk_tp.engine->port_fwd_end != NULL)
			rk_tp.engine->port_fwd_end(rk_tp.streams[i].rx_port);
	fprintf(out, "Telling cores to stop...\nWaiting for lcores to finish...\n");
	fprintf(out, "  ---------------------- Forward statistics ----------------------\n");
	print_fwd_stats(out);
	fprintf(out, "Done.\n");
}
