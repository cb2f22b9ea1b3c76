/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The gen engine: rk-gen's stateless engine inside rk-testpmd. The streams
 * of a stream file ("load streams FILE", lib/genyaml) are sent on every TX
 * port in use, each port with a schedule of its own (lib/gen's
 * rk_gen_sched: the streams merged by the times their rates give, % of
 * the port's link speed), paced against the TSC from the first pass of
 * the forwarding loop. Frames the TX queue refuses wait for the next pass
 * (none is lost to a full queue); received frames are counted and freed,
 * as rxonly does. "stop" prints the frames each stream sent on each port.
 * A frame longer than an mbuf's data room goes out as a chain of mbufs
 * where the port takes chains (RTE_ETH_TX_OFFLOAD_MULTI_SEGS), else it is
 * skipped and counted.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>

#include "rk_gen_sched.h"
#include "rk_gen_yaml.h"
#include "testpmd.h"

/* Line rate for rates in % when the port does not know its speed, bit/s. */
#define GEN_DEFAULT_LINE_BPS 100e9

static struct rk_gen_file *loaded;      /* "load streams" */
static char loaded_path[256];

/* One TX port's run. */
struct gen_port {
	bool on;
	struct rk_gen_sched s;
	uint64_t t0;                    /* TSC at the first pass; 0: not yet */
	uint64_t *sent, *too_long;      /* per stream (s.lv[i]) */
	struct rte_mbuf *wait[RK_TP_BURST];     /* refused by the queue: next pass */
	uint32_t wait_src[RK_TP_BURST];
	uint16_t nwait;
	uint8_t *scratch;               /* a chained frame, stamped before it is split */
};

static struct gen_port gp[RK_TP_MAX_PORTS];

/* The TX time a sequence slot carries: wall clock, as rk-gen's receiver expects. */
static uint64_t
wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int
rk_tp_gen_load(const char *path, char *err, size_t errlen)
{
	struct rk_gen_file *f;
	int rc;

	if (rk_tp.forwarding) {
		snprintf(err, errlen, "stop forwarding first");
		return -EBUSY;
	}
	rc = rk_gen_yaml_load(path, &f, err, errlen);
	if (rc < 0)
		return rc;
	if (f->nstreams == 0) {
		rk_gen_file_free(f);
		snprintf(err, errlen, "%s: no streams", path);
		return -EINVAL;
	}
	rk_gen_file_free(loaded);
	loaded = f;
	snprintf(loaded_path, sizeof(loaded_path), "%s", path);
	return 0;
}

/* "1 Mpps", "40 Gbit/s", "25%", "1 Mpps (no rate)". */
static void
print_rate(FILE *out, const struct rk_gen_cfg *c)
{
	switch (c->rate_unit) {
	case RK_GEN_RATE_PPS:
		fprintf(out, "%g pps", c->rate);
		break;
	case RK_GEN_RATE_BPS:
		fprintf(out, "%g bit/s", c->rate);
		break;
	case RK_GEN_RATE_PERCENT:
		fprintf(out, "%g%% of line rate", c->rate);
		break;
	default:
		fprintf(out, "1e+06 pps (no rate given)");
	}
}

void
rk_tp_gen_show(FILE *out)
{
	if (loaded == NULL) {
		fprintf(out, "No streams loaded (\"load streams FILE\")\n");
		return;
	}
	fprintf(out, "%u stream(s) from %s\n", loaded->nstreams, loaded_path);
	for (uint32_t i = 0; i < loaded->nstreams; i++) {
		const struct rk_gen_cfg *c = &loaded->streams[i];

		fprintf(out, "  %u: %s (line %u): ", i, c->name, c->line);
		if (!c->count_set)
			fprintf(out, c->train ? "one message" : "1 frame");
		else if (c->count == 0)
			fprintf(out, "endless");
		else
			fprintf(out, "%" PRIu64 " %s", c->count, c->train ? "messages" : "frames");
		fprintf(out, " at ");
		print_rate(out, c);
		if (c->burst_frames)
			fprintf(out, ", bursts of %u then %u us", c->burst_frames, c->burst_gap_us);
		if (c->on_us && c->off_us)
			fprintf(out, ", on %u us / off %u us", c->on_us, c->off_us);
		for (uint32_t k = 0, first = 1; k < RK_GEN_PORT_BITS; k++)
			if ((c->ports >> k) & 1) {
				fprintf(out, "%s%u", first ? ", ports " : ",", k);
				first = 0;
			}
		fputc('\n', out);
	}
}

static int
gen_ready(FILE *out)
{
	if (loaded == NULL) {
		fprintf(out, "gen: no streams loaded: \"load streams FILE\" first\n");
		return -ENOENT;
	}
	/* A stream bound (ports:) to no port in use would never send: say so, as rk-gen does. */
	for (uint32_t i = 0; i < loaded->nstreams; i++) {
		const struct rk_gen_cfg *c = &loaded->streams[i];
		uint32_t k;

		if (c->ports == 0)
			continue;
		for (k = 0; k < RK_GEN_PORT_BITS && k < rk_tp.nb_ports; k++)
			if (((c->ports >> k) & 1) && rk_tp.ports[k].present && rk_tp.ports[k].started)
				break;
		if (k < RK_GEN_PORT_BITS && k < rk_tp.nb_ports)
			continue;
		fprintf(out, "gen: stream %u (%s, line %u) goes to no port in use (its ports: "
			"key; ports 0..%u here): not started\n", i, c->name, c->line,
			rk_tp.nb_ports - 1);
		return -ENODEV;
	}
	return 0;
}

static int
gen_begin(uint16_t port)
{
	struct gen_port *g = &gp[port];
	struct rte_eth_link link;
	double line = GEN_DEFAULT_LINE_BPS;
	char err[512];
	int rc;

	if (loaded == NULL)
		return -ENOENT;
	if (rte_eth_link_get_nowait(port, &link) == 0 && link.link_speed != RTE_ETH_SPEED_NUM_NONE &&
	    link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN)
		line = (double)link.link_speed * 1e6;
	memset(g, 0, sizeof(*g));
	/* a stream's ports: key names the ports it goes to, by port id */
	rc = rk_gen_sched_init_port(&g->s, loaded->streams, loaded->nstreams, port, line, err,
				    sizeof(err));
	if (rc == 0) {
		g->sent = calloc(g->s.n + 1, sizeof(*g->sent));
		g->too_long = calloc(g->s.n + 1, sizeof(*g->too_long));
		if (g->sent == NULL || g->too_long == NULL) {
			snprintf(err, sizeof(err), "out of memory");
			rc = -ENOMEM;
		}
	}
	if (rc < 0) {
		printf("gen: port %u: %s\n", port, err);
		free(g->sent);
		free(g->too_long);
		rk_gen_sched_fini(&g->s);
		memset(g, 0, sizeof(*g));
		return rc;
	}
	g->on = true;
	return 0;
}

/* Hand the waiting frames to port's queue; those it takes are counted. */
static void
gen_flush(struct gen_port *g, uint16_t port, struct rk_tp_stream *fs)
{
	uint16_t n = g->nwait ? rte_eth_tx_burst(port, 0, g->wait, g->nwait) : 0;

	for (uint16_t i = 0; i < n; i++)
		g->sent[g->wait_src[i]]++;
	memmove(g->wait, g->wait + n, (g->nwait - n) * sizeof(g->wait[0]));
	memmove(g->wait_src, g->wait_src + n, (g->nwait - n) * sizeof(g->wait_src[0]));
	g->nwait = (uint16_t)(g->nwait - n);
	rk_tp.ports[port].fwd += n;
	fs->fwd += n;
}

/*
 * The mbuf (a chain when @p len exceeds @p room) of frame @p m, stamped
 * with the wall-clock TX time when its stream carries a sequence slot.
 * @return NULL when the pool is drained.
 */
static struct rte_mbuf *
frame_mbuf(struct gen_port *g, const struct rk_gen_live *m, uint32_t len, uint32_t room)
{
	struct rte_mbuf *head = NULL;
	const uint8_t *data = m->f.data;

	if (len > room) {
		memcpy(g->scratch, data, len);
		if (m->ops->stamp != NULL)
			m->ops->stamp(m->src, g->scratch, len, wall_ns());
		data = g->scratch;
	}
	for (uint32_t off = 0; off < len;) {
		uint32_t n = len - off < room ? len - off : room;
		struct rte_mbuf *seg = rte_pktmbuf_alloc(rk_tp.pool);
		uint8_t *p = seg != NULL ? (uint8_t *)rte_pktmbuf_append(seg, (uint16_t)n) : NULL;

		if (p == NULL || (head != NULL && rte_pktmbuf_chain(head, seg) != 0)) {
			rte_pktmbuf_free(seg);
			rte_pktmbuf_free(head);
			return NULL;
		}
		memcpy(p, data + off, n);
		if (head == NULL)
			head = seg;
		off += n;
	}
	if (len <= room && m->ops->stamp != NULL)
		m->ops->stamp(m->src, rte_pktmbuf_mtod(head, uint8_t *), len, wall_ns());
	return head;
}

static void
gen_fwd(struct rk_tp_stream *fs)
{
	const uint32_t room = rte_pktmbuf_data_room_size(rk_tp.pool) - RTE_PKTMBUF_HEADROOM;
	struct rte_mbuf *rx[RK_TP_BURST];
	uint16_t port = fs->tx_port, n = rk_tp_rx(fs, rx);
	struct gen_port *g = &gp[port];
	struct rk_gen_live *m;
	uint64_t now = rte_get_timer_cycles();
	double t;

	if (n > 0)
		rte_pktmbuf_free_bulk(rx, n);
	if (!g->on)
		return;
	if (g->t0 == 0)
		g->t0 = now;
	t = (double)(now - g->t0) * 1e9 / (double)rte_get_timer_hz();
	/* Due frames, up to a burst, behind those the queue refused before. */
	while (g->nwait < RK_TP_BURST && (m = rk_gen_sched_peek(&g->s)) != NULL && m->t_ns <= t) {
		uint32_t src = (uint32_t)(m - g->s.lv), len = (uint32_t)m->f.len;
		struct rte_mbuf *mb;

		if (len > room && (!rk_tp.ports[port].multi_seg || len > RK_GEN_FRAME_MAX)) {
			g->too_long[src]++;
		} else {
			if (len > room && g->scratch == NULL &&
			    (g->scratch = malloc(RK_GEN_FRAME_MAX)) == NULL)
				break;
			mb = frame_mbuf(g, m, len, room);
			if (mb == NULL)
				break;  /* the pool is drained: the device still holds them */
			g->wait[g->nwait] = mb;
			g->wait_src[g->nwait++] = src;
		}
		rk_gen_sched_advance(&g->s, m);
	}
	gen_flush(g, port, fs);
}

static void
gen_end(uint16_t port)
{
	struct gen_port *g = &gp[port];
	bool done = rk_gen_sched_peek(&g->s) == NULL;

	if (!g->on)
		return;
	if (g->nwait) {
		rte_pktmbuf_free_bulk(g->wait, g->nwait);
		rk_tp.ports[port].tx_dropped += g->nwait;
	}
	printf("gen: port %u: %s\n", port, done ? "all streams done" : "streams stopped");
	for (uint32_t i = 0; i < g->s.n; i++) {
		printf("  stream %u %s: sent %" PRIu64 " frames", i, g->s.lv[i].name, g->sent[i]);
		if (g->too_long[i])
			printf(", %" PRIu64 " skipped (longer than an mbuf's %u bytes, and the port "
			       "takes no chained mbufs)",
			       g->too_long[i], rte_pktmbuf_data_room_size(rk_tp.pool) -
						       RTE_PKTMBUF_HEADROOM);
		putchar('\n');
	}
	if (g->s.failed)
		printf("gen: port %u: a stream failed\n", port);
	free(g->sent);
	free(g->too_long);
	free(g->scratch);
	rk_gen_sched_fini(&g->s);
	memset(g, 0, sizeof(*g));
}

const struct rk_tp_engine rk_tp_fwd_gen = {
	.name = "gen",
	.help = "send the loaded streams (load streams FILE) at their rates, count received frames",
	.fwd_ready = gen_ready,
	.port_fwd_begin = gen_begin,
	.packet_fwd = gen_fwd,
	.port_fwd_end = gen_end,
};
