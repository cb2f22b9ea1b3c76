/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-gen on a DPDK port: the scheduler's frames handed to lib/io, paced by
 * the streams' rates against the port's TSC clock, or at top speed. A
 * stream's frames go out of kept mbufs, one ring per template, refilled
 * with the bytes that change (lib/gen's dirty ranges) once the device has
 * released them; a replayed frame, or one whose ring is all in flight, is
 * copied into a fresh mbuf (rk_io_dpdk_tx_raw). At top speed the only
 * stream left, without a slot, goes 32 frames at a time (port_burst). A
 * stream with a sequence slot gets the wall clock as TX time as each
 * frame is queued (rk_gen_stream_stamp_last: the ICRC patched from the
 * stream's tables).
 * Several ports (--port repeated) each send every stream on a schedule of
 * their own, in turn from one loop on one core. With a receiving port
 * (--rx-port) the same loop polls it on every turn, then until the
 * receiver's end. One TX queue per port, frames up to RK_IB_MAX_FRAME
 * bytes.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gen.h"
#include "rk_app.h"
#include "rk_io_dpdk.h"

/* Kept mbufs in all, and per template ring at most: enough to cover the
 * TX queue and a device's descriptor ring while they drain. */
#define KEPT_TOTAL 12288u
#define KEPT_RING_MAX 1024u
#define KEPT_RING_MIN 64u

struct rk_io_dpdk *
rk_gen_port_open(const char *port, const char *record, bool spin, uint32_t extra_mbufs,
		 double timeout_s)
{
	struct rk_io_dpdk_cfg cfg = { 0 };
	struct rk_io_dpdk *io;
	unsigned long id;
	char *end;

	id = strtoul(port, &end, 10);
	if (*end == '\0' && end != port && id <= UINT16_MAX)
		cfg.port_id = (uint16_t)id;
	else
		cfg.port_name = port;
	cfg.pcapng_path = record;
	cfg.idle = spin ? RK_IO_IDLE_SPIN : RK_IO_IDLE_ADAPTIVE;
	cfg.tx_queue = 4096;
	cfg.nb_mbufs = 4095 + extra_mbufs;
	cfg.cancel = &rk_app_stop;
	/* at least 1 ms: 0 is lib/io's default */
	if (timeout_s > 0)
		cfg.link_timeout_ms = timeout_s * 1e3 < 1 ? 1 : (uint32_t)(timeout_s * 1e3);
	/* Before the port: a bad path is the recording's fault, said so. */
	if (!rk_app_recording_writable("rk-gen", record))
		return NULL;
	io = rk_io_dpdk_open(&cfg);
	if (io == NULL && errno == EEXIST)
		fprintf(stderr, "rk-gen: cannot open port %s: it is open already (one port given "
			"twice, by name and by number?)\n", port);
	else if (io == NULL)
		fprintf(stderr, "rk-gen: cannot open port %s: %s\n", port,
			rk_io_dpdk_open_strerror(errno));
	return io;
}

/* One kept ring per template of each source, made at the template's first
 * frame with mbufs of its length (a template's frames all have one);
 * NULL: copy its frames. */
struct keep {
	struct rk_io_kept *k[3];
	bool tried[3];
};

struct keeps {
	struct rk_io_dpdk *io;
	uint32_t ring;                  /* mbufs per ring; 0: none kept */
	struct keep *kp;
};

static int
keep_open(struct keeps *ks, struct rk_io_dpdk *io, const struct rk_gen_sched *s)
{
	ks->io = io;
	ks->ring = s->n ? KEPT_TOTAL / (3 * s->n) : 0;
	if (ks->ring > KEPT_RING_MAX)
		ks->ring = KEPT_RING_MAX;
	if (ks->ring < KEPT_RING_MIN)
		ks->ring = 0;
	ks->kp = calloc(s->n ? s->n : 1, sizeof(*ks->kp));
	return ks->kp != NULL ? 0 : -ENOMEM;
}

static struct rk_io_kept *keep_ring(struct keeps *ks, uint32_t src, uint32_t tmpl, uint32_t len);

/* Every template's ring before the clock starts: making a pool takes
 * milliseconds, which a train's first Middle or Last frame would wait. */
static void
keep_first(struct keeps *ks, const struct rk_gen_sched *s)
{
	for (uint32_t i = 0; ks->kp != NULL && i < s->n; i++) {
		const struct rk_gen_live *l = &s->lv[i];

		for (uint32_t t = 0; l->ops->tmpl_len != NULL && t < 3; t++) {
			uint32_t len = l->ops->tmpl_len(l->src, t);

			if (len > 0)
				(void)keep_ring(ks, i, t, len);
		}
	}
}

static struct rk_io_kept *
keep_ring(struct keeps *ks, uint32_t src, uint32_t tmpl, uint32_t len)
{
	struct keep *kp = &ks->kp[src];

	if (tmpl >= 3 || ks->ring == 0 || len > RK_IB_MAX_FRAME)
		return NULL;
	if (!kp->tried[tmpl]) {
		kp->tried[tmpl] = true;
		kp->k[tmpl] = rk_io_dpdk_kept_new(ks->io, ks->ring, len);
	}
	return kp->k[tmpl];
}

static void
keep_close(struct keeps *ks, uint32_t n)
{
	for (uint32_t i = 0; ks->kp != NULL && i < n; i++)
		for (uint32_t t = 0; t < 3; t++)
			rk_io_dpdk_kept_free(ks->kp[i].k[t]);
	free(ks->kp);
}

/*
 * Queue @p m's frame: into a kept mbuf of its template when one is free
 * (only the changing bytes copied when it holds that template's frame),
 * else copied; its slot stamped with the wall clock when it has one.
 * @return 0 or the error of lib/io's send.
 */
static int
send_frame(struct rk_io_dpdk *io, struct keeps *ks, uint32_t src, const struct rk_gen_live *m)
{
	static uint8_t copy[RK_GEN_FRAME_MAX];
	const struct rk_gen_frame *f = &m->f;
	uint32_t held, len = (uint32_t)f->len;
	struct rk_io_kept *k = ks->kp != NULL ? keep_ring(ks, src, f->tmpl, len) : NULL;
	uint8_t *p = k != NULL ? rk_io_dpdk_kept_next(k, &held) : NULL;

	if (p == NULL && m->ops->stamp == NULL)
		return rk_io_dpdk_tx_raw(io, f->data, len);
	if (p == NULL) {
		memcpy(copy, f->data, len);
		m->ops->stamp(m->src, copy, len, rk_gen_wall_ns());
		return rk_io_dpdk_tx_raw(io, copy, len);
	}
	rk_gen_frame_copy(p, held, f);
	if (m->ops->stamp != NULL)
		m->ops->stamp(m->src, p, len, rk_gen_wall_ns());
	return rk_io_dpdk_kept_send(k, len);
}

/* At top speed, one stream left: its frames a burst at a time into kept
 * mbufs (rk_gen_sched_burst), the same bytes frame-by-frame sending gives
 * without a scheduler call per frame. RK_GEN_FRAME_BY_FRAME in the
 * environment turns it off (the tests compare the two). */
static bool
burst_allowed(void)
{
	static int on = -1;

	if (on < 0)
		on = getenv("RK_GEN_FRAME_BY_FRAME") == NULL;
	return on;
}

/* The sender's line a second on stderr: what went in that second. */
struct tx_line {
	uint64_t t0, next, frames, bytes;
};

static void
tx_line(struct tx_line *l, const char *port, uint64_t now, uint64_t sent, uint64_t bytes)
{
	double dt;

	if (now < l->next)
		return;
	dt = (double)(now - l->next + 1000000000ull) / 1e9;
	fprintf(stderr, "rk-gen: %.0f s: %s%ssent %" PRIu64 " frames, %.3f Mpps, %.3f Gbit/s\n",
		(double)(now - l->t0) / 1e9, port ? port : "", port ? ": " : "", sent,
		(double)(sent - l->frames) / dt / 1e6, (double)(bytes - l->bytes) * 8 / dt / 1e9);
	l->frames = sent;
	l->bytes = bytes;
	l->next = now + 1000000000ull;
}

/* One port being sent on: its own schedule of the streams. */
struct port_tx {
	const char *name;
	struct rk_io_dpdk *io;
	struct rk_gen_sched *s;
	struct keeps ks;
	uint64_t sent, bytes, next_clock;
	uint64_t *st_frames, *st_bytes; /* per stream of s; NULL: not counted */
	uint32_t unflushed;
	struct tx_line line;
	bool done;
	uint64_t end_ns;                /* when it sent its last frame (the run's end if not done) */
};

/*
 * Up to RK_IO_KEPT_BURST frames of @p m at once into its kept ring.
 * @return 1 some went, 0 none (send frame by frame: another stream
 *         sends, a ring all in flight, the queue full)
 */
static int
port_burst(struct port_tx *p, const struct rk_gen_port_opts *o, struct rk_gen_live *m)
{
	uint8_t *bufs[RK_IO_KEPT_BURST];
	uint32_t held[RK_IO_KEPT_BURST], src = (uint32_t)(m - p->s->lv);
	uint32_t len = (uint32_t)m->f.len, n = RK_IO_KEPT_BURST, got;
	struct rk_io_kept *k = keep_ring(&p->ks, src, m->f.tmpl, len);
	uint64_t before = p->sent;

	for (uint32_t i = 0; i < p->s->n; i++)
		if (i != src && p->s->lv[i].f.len > 0)
			return 0;       /* frames interleave by time: one at a time */
	if (k == NULL)
		return 0;
	if (o->limit - p->sent < n)
		n = (uint32_t)(o->limit - p->sent);
	n = rk_io_dpdk_kept_take(k, bufs, held, n);
	if (n == 0)
		return 0;
	got = rk_gen_sched_burst(p->s, m, bufs, held, n);
	if (got == 0 || rk_io_dpdk_kept_send_burst(k, got, len) != 0)
		return 0;
	p->sent += got;
	p->bytes += (uint64_t)got * len;
	if (p->st_frames != NULL) {
		p->st_frames[src] += got;
		p->st_bytes[src] += (uint64_t)got * len;
	}
	rk_io_dpdk_ops.flush(p->io);
	p->unflushed = 0;
	if ((before >> 10) != (p->sent >> 10))
		tx_line(&p->line, o->nports > 1 ? p->name : NULL, rk_io_dpdk_now_ns(), p->sent,
			p->bytes);
	return 1;
}

/*
 * One frame of @p p's schedule when it is due (or at top speed).
 * @return 1 a frame went, 0 not due yet (or the queue was full), -1 done
 *         (the streams' end, the limit or the duration), -2 on an error
 *         (said)
 */
static int
port_step(struct port_tx *p, const struct rk_gen_port_opts *o, uint64_t t0)
{
	struct rk_gen_live *m;
	int rc;

	if (p->sent >= o->limit || (m = rk_gen_sched_peek(p->s)) == NULL)
		return -1;
	if (!o->top_speed) {
		uint64_t now = rk_io_dpdk_now_ns();

		if (now - t0 < (uint64_t)m->t_ns) {
			rk_io_dpdk_ops.flush(p->io);
			/* a slow stream still gets its line a second */
			tx_line(&p->line, o->nports > 1 ? p->name : NULL, now, p->sent, p->bytes);
			return 0;
		}
	}
	/* at top speed the clock is read every 256 frames only */
	if (o->duration_ns && (!o->top_speed || p->sent >= p->next_clock)) {
		p->next_clock = p->sent + 256;
		if (rk_io_dpdk_now_ns() - t0 >= o->duration_ns)
			return -1;
	}
	/* not with a receiving port: it is polled every 32 turns */
	if (o->top_speed && o->rx == NULL && m->ops->burst != NULL && p->ks.kp != NULL &&
	    burst_allowed()) {
		rc = port_burst(p, o, m);
		if (rc != 0)
			return rc;
	}
	rc = send_frame(p->io, &p->ks, (uint32_t)(m - p->s->lv), m);
	if (rc == -ENOBUFS) { /* the queue is full: send, then the same frame again */
		rk_io_dpdk_ops.flush(p->io);
		return 0;
	}
	if (rc < 0) {
		fprintf(stderr, "rk-gen: stream '%s': a frame of %d bytes: %s (at most %u)\n",
			m->name, m->f.len, strerror(-rc), RK_IB_MAX_FRAME);
		return -2;
	}
	p->sent++;
	p->bytes += (uint64_t)m->f.len;
	if (p->st_frames != NULL) {
		p->st_frames[m - p->s->lv]++;
		p->st_bytes[m - p->s->lv] += (uint64_t)m->f.len;
	}
	if (++p->unflushed == 32) {
		p->unflushed = 0;
		rk_io_dpdk_ops.flush(p->io);
	}
	if ((p->sent & 1023) == 0)
		tx_line(&p->line, o->nports > 1 ? p->name : NULL, rk_io_dpdk_now_ns(), p->sent,
			p->bytes);
	rk_gen_sched_advance(p->s, m);
	return 1;
}

/* The port's report: what it sent, per stream too. */
static json_t *
port_json(const struct port_tx *p, uint64_t t0)
{
	uint64_t dt = p->end_ns - t0;
	const struct rk_io_dpdk_stats *st = rk_io_dpdk_stats(p->io);
	json_t *j = json_object(), *streams = json_array();

	json_object_set_new(j, "port", json_string(p->name));
	json_object_set_new(j, "frames", json_integer((json_int_t)p->sent));
	json_object_set_new(j, "bytes", json_integer((json_int_t)p->bytes));
	json_object_set_new(j, "seconds", json_real(dt / 1e9));
	json_object_set_new(j, "mpps", json_real(dt ? p->sent * 1e3 / (double)dt : 0.0));
	json_object_set_new(j, "gbps", json_real(dt ? p->bytes * 8.0 / (double)dt : 0.0));
	json_object_set_new(j, "port_tx_frames", json_integer((json_int_t)st->tx_frames));
	json_object_set_new(j, "port_tx_dropped", json_integer((json_int_t)st->tx_dropped_full));
	for (uint32_t i = 0; p->st_frames != NULL && i < p->s->n; i++) {
		json_t *x = json_object();

		json_object_set_new(x, "name", json_string(p->s->lv[i].name));
		json_object_set_new(x, "frames", json_integer((json_int_t)p->st_frames[i]));
		json_object_set_new(x, "bytes", json_integer((json_int_t)p->st_bytes[i]));
		json_object_set_new(x, "done", json_boolean(p->s->lv[i].f.len == 0));
		json_array_append_new(streams, x);
	}
	json_object_set_new(j, "streams", streams);
	return j;
}

/* The run's report on stdout: the ports and their total. */
static void
report_json(struct port_tx *p, uint32_t n, uint64_t t0, uint64_t dt)
{
	json_t *j = json_object(), *ports = json_array();
	uint64_t frames = 0, bytes = 0;

	for (uint32_t i = 0; i < n; i++) {
		frames += p[i].sent;
		bytes += p[i].bytes;
		json_array_append_new(ports, port_json(&p[i], t0));
	}
	json_object_set_new(j, "frames", json_integer((json_int_t)frames));
	json_object_set_new(j, "bytes", json_integer((json_int_t)bytes));
	json_object_set_new(j, "seconds", json_real(dt / 1e9));
	json_object_set_new(j, "interrupted", json_boolean(rk_app_stop != 0));
	json_object_set_new(j, "ports", ports);
	json_dumpf(j, stdout, JSON_INDENT(2));
	fputc('\n', stdout);
	json_decref(j);
}

/* The run's table on stdout: a row per stream of each port. */
static void
report_table(const struct port_tx *p, uint32_t n)
{
	int wp = 16, ws = 20;

	for (uint32_t k = 0; k < n; k++) {
		wp = (int)strlen(p[k].name) > wp ? (int)strlen(p[k].name) : wp;
		for (uint32_t i = 0; i < p[k].s->n; i++)
			if ((int)strlen(p[k].s->lv[i].name) > ws)
				ws = (int)strlen(p[k].s->lv[i].name);
	}
	printf("%-*s %-*s %14s %16s %s\n", wp, "port", ws, "stream", "frames", "bytes", "done");
	for (uint32_t k = 0; k < n; k++)
		for (uint32_t i = 0; i < p[k].s->n; i++)
			printf("%-*s %-*s %14" PRIu64 " %16" PRIu64 " %s\n", wp, p[k].name, ws,
			       p[k].s->lv[i].name, p[k].st_frames[i], p[k].st_bytes[i],
			       p[k].s->lv[i].f.len == 0 ? "yes" : "no");
}

/* The port's summary line; @return 0, or 1 when its recording is incomplete. */
static int
port_close(struct port_tx *p, uint64_t t0, const struct rk_gen_port_opts *o)
{
	const struct rk_io_dpdk_stats *st = rk_io_dpdk_stats(p->io);
	uint64_t dt = p->end_ns - t0;
	int status = 0;

	fprintf(stderr,
		"rk-gen: %llu frames (%llu bytes) to port %s in %.3f s: %.3f Mpps, %.3f Gbit/s; "
		"port tx %llu, dropped %llu%s\n",
		(unsigned long long)p->sent, (unsigned long long)p->bytes, p->name, dt / 1e9,
		dt ? p->sent * 1e3 / (double)dt : 0.0, dt ? p->bytes * 8.0 / (double)dt : 0.0,
		(unsigned long long)st->tx_frames, (unsigned long long)st->tx_dropped_full,
		rk_app_stop ? " (interrupted)" : "");
	if (p->sent >= o->limit && rk_gen_sched_peek(p->s) != NULL)
		fprintf(stderr, "rk-gen: port %s: stopped at the limit of %llu frames (--limit); the "
			"streams had more\n", p->name, (unsigned long long)o->limit);
	if (rk_io_dpdk_close(p->io) < 0) {
		fprintf(stderr, "rk-gen: error: the recording of port %s is incomplete\n", p->name);
		status = 1;
	}
	return status;
}

int
rk_gen_port_run(struct rk_gen_sched *const *scheds, const struct rk_gen_port_opts *o)
{
	struct port_tx p[RK_GEN_PORTS_MAX] = { 0 };
	uint64_t t0, dt, sent = 0, bytes = 0;
	uint32_t n = o->nports, open = 0;
	bool failed = false;
	int status = 0;

	for (; open < n; open++) {
		p[open].name = o->ports[open];
		p[open].s = scheds[open];
		p[open].st_frames = calloc(p[open].s->n + 1, sizeof(uint64_t));
		p[open].st_bytes = calloc(p[open].s->n + 1, sizeof(uint64_t));
		if (p[open].st_frames == NULL || p[open].st_bytes == NULL) {
			fprintf(stderr, "rk-gen: out of memory\n");
			break;
		}
		p[open].io = rk_gen_port_open(o->ports[open], o->records[open], true, 0,
					       o->timeout_s);
		if (p[open].io == NULL)
			break;
		if (keep_open(&p[open].ks, p[open].io, p[open].s) == 0) /* none: every frame copied */
			keep_first(&p[open].ks, p[open].s);
	}
	t0 = rk_io_dpdk_now_ns();
	for (uint32_t i = 0; i < open; i++)
		p[i].line = (struct tx_line){ .t0 = t0, .next = t0 + 1000000000ull };
	/* The ports in turn, a frame each: one core keeps them all going. */
	for (uint32_t turn = 1, left = open < n ? 0 : n; left > 0 && !rk_app_stop; turn++) {
		bool idle = true;

		for (uint32_t i = 0; i < n; i++) {
			int rc = p[i].done ? 0 : port_step(&p[i], o, t0);

			idle &= rc <= 0;
			if (rc < 0) {
				/* its last frames go now, not when the others end */
				rk_io_dpdk_ops.flush(p[i].io);
				p[i].end_ns = rk_io_dpdk_now_ns();
				p[i].done = true;
				left--;
				if (rc == -2)
					status = 1;
			}
		}
		if (o->rx != NULL && (idle || (turn & 31) == 0))
			(void)rk_gen_recv_port_poll(o->rx);
		if (status != 0)
			break;
	}
	dt = rk_io_dpdk_now_ns() - t0;
	for (uint32_t i = 0; i < open; i++) {
		rk_io_dpdk_ops.flush(p[i].io);
		if (!p[i].done)
			p[i].end_ns = t0 + dt;
	}
	for (uint32_t i = 0; i < open; i++)
		keep_close(&p[i].ks, p[i].s->n);
	/* receiving too: until the receiver's end (--idle, --duration, a signal) */
	while (open == n && o->rx != NULL && !rk_gen_recv_port_done(o->rx)) {
		rk_io_dpdk_ops.flush(p[0].io);
		rk_gen_recv_port_idle(o->rx, rk_gen_recv_port_poll(o->rx));
	}
	/* a source that failed (a capture cut short) said why: no counts after it */
	for (uint32_t i = 0; i < open; i++)
		failed |= p[i].s->failed;
	/* with a receiving port, stdout is the receiver's report */
	if (o->json && open == n && !failed)
		report_json(p, n, t0, dt);
	else if (o->rx == NULL && open == n && !failed)
		report_table(p, n);
	for (uint32_t i = 0; i < open; i++) {
		sent += p[i].sent;
		bytes += p[i].bytes;
		/* a port that failed to open: the others sent nothing, no summary */
		if (open == n && !failed)
			status |= port_close(&p[i], t0, o);
		else
			(void)rk_io_dpdk_close(p[i].io);
	}
	for (uint32_t i = 0; i < n; i++) {
		free(p[i].st_frames);
		free(p[i].st_bytes);
	}
	if (open < n || failed)
		return 1;
	if (n > 1)
		fprintf(stderr, "rk-gen: %llu frames (%llu bytes) to %u ports in %.3f s: %.3f Mpps, "
			"%.3f Gbit/s\n", (unsigned long long)sent, (unsigned long long)bytes, n,
			dt / 1e9, dt ? sent * 1e3 / (double)dt : 0.0,
			dt ? bytes * 8.0 / (double)dt : 0.0);
	return status;
}
