/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-gen on a DPDK port: the scheduler's frames handed to lib/io, paced by
 * the streams' rates against the port's TSC clock, or at top speed. A
 * stream's frames go out of kept mbufs, one ring per template, refilled
 * with the bytes that change (lib/gen's dirty ranges) once the device has
 * released them; a replayed frame, or one whose ring is all in flight, is
 * copied into a fresh mbuf (rk_io_dpdk_tx_raw). A stream with a sequence
 * slot gets the wall clock as TX time as each frame is queued
 * (rk_gen_stream_stamp_last: the ICRC patched from the stream's tables).
 * With a receiving port (--rx-port) the same loop polls it while it waits
 * and every 32 frames, then until the receiver's end. One TX queue, frames
 * up to RK_IB_MAX_FRAME bytes.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "rk_app.h"
#include "rk_io_dpdk.h"

/* Kept mbufs in all, and per template ring at most: enough to cover the
 * TX queue and a device's descriptor ring while they drain. */
#define KEPT_TOTAL 12288u
#define KEPT_RING_MAX 1024u
#define KEPT_RING_MIN 64u

struct rk_io_dpdk *
rk_gen_port_open(const char *port, const char *record, bool spin, uint32_t extra_mbufs)
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
	/* Before the port: a bad path is the recording's fault, said so. */
	if (!rk_app_recording_writable("rk-gen", record))
		return NULL;
	io = rk_io_dpdk_open(&cfg);
	if (io == NULL)
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

/* The sender's line a second on stderr: what went in that second. */
struct tx_line {
	uint64_t t0, next, frames, bytes;
};

static void
tx_line(struct tx_line *l, uint64_t now, uint64_t sent, uint64_t bytes)
{
	double dt;

	if (now < l->next)
		return;
	dt = (double)(now - l->next + 1000000000ull) / 1e9;
	fprintf(stderr, "rk-gen: %.0f s: sent %" PRIu64 " frames, %.3f Mpps, %.3f Gbit/s\n",
		(double)(now - l->t0) / 1e9, sent, (double)(sent - l->frames) / dt / 1e6,
		(double)(bytes - l->bytes) * 8 / dt / 1e9);
	l->frames = sent;
	l->bytes = bytes;
	l->next = now + 1000000000ull;
}

int
rk_gen_port_run(struct rk_gen_sched *s, const struct rk_gen_port_opts *o)
{
	const struct rk_io_dpdk_stats *st;
	struct rk_io_dpdk *io;
	struct keeps ks = { 0 };
	struct rk_gen_live *m;
	uint64_t sent = 0, bytes = 0, t0, dt;
	struct tx_line line;
	int status = 0;

	io = rk_gen_port_open(o->port, o->record, true, 0);
	if (io == NULL)
		return 1;
	(void)keep_open(&ks, io, s);    /* none: every frame copied */
	t0 = rk_io_dpdk_now_ns();
	line = (struct tx_line){ .t0 = t0, .next = t0 + 1000000000ull };
	while (!rk_app_stop && sent < o->limit && (m = rk_gen_sched_peek(s)) != NULL) {
		int rc;

		while (!o->top_speed && !rk_app_stop && rk_io_dpdk_now_ns() - t0 < (uint64_t)m->t_ns) {
			rk_io_dpdk_ops.flush(io);
			if (o->rx != NULL)
				(void)rk_gen_recv_port_poll(o->rx);
		}
		/* at top speed the clock is read every 256 frames only */
		if (o->duration_ns && (!o->top_speed || (sent & 255) == 0) &&
		    rk_io_dpdk_now_ns() - t0 >= o->duration_ns)
			break;
		rc = send_frame(io, &ks, (uint32_t)(m - s->lv), m);
		if (rc == -ENOBUFS) { /* the queue is full: send, then the same frame again */
			rk_io_dpdk_ops.flush(io);
			continue;
		}
		if (rc < 0) {
			fprintf(stderr, "rk-gen: stream '%s': a frame of %d bytes: %s (at most %u)\n",
				m->name, m->f.len, strerror(-rc), RK_IB_MAX_FRAME);
			status = 1;
			break;
		}
		sent++;
		bytes += (uint64_t)m->f.len;
		if ((sent & 31) == 0) {
			rk_io_dpdk_ops.flush(io);
			if (o->rx != NULL)
				(void)rk_gen_recv_port_poll(o->rx);
		}
		if ((sent & 1023) == 0)
			tx_line(&line, rk_io_dpdk_now_ns(), sent, bytes);
		rk_gen_sched_advance(s, m);
	}
	rk_io_dpdk_ops.flush(io);
	dt = rk_io_dpdk_now_ns() - t0;
	keep_close(&ks, s->n);
	/* receiving too: until the receiver's end (--idle, --duration, a signal) */
	while (o->rx != NULL && !rk_gen_recv_port_done(o->rx)) {
		rk_io_dpdk_ops.flush(io);
		rk_gen_recv_port_idle(o->rx, rk_gen_recv_port_poll(o->rx));
	}
	st = rk_io_dpdk_stats(io);
	fprintf(stderr,
		"rk-gen: %llu frames (%llu bytes) to port %s in %.3f s: %.3f Mpps, %.3f Gbit/s; "
		"port tx %llu, dropped %llu%s\n",
		(unsigned long long)sent, (unsigned long long)bytes, o->port, dt / 1e9,
		dt ? sent * 1e3 / (double)dt : 0.0, dt ? bytes * 8.0 / (double)dt : 0.0,
		(unsigned long long)st->tx_frames, (unsigned long long)st->tx_dropped_full,
		rk_app_stop ? " (interrupted)" : "");
	if (rk_io_dpdk_close(io) < 0) {
		fprintf(stderr, "rk-gen: error: the recording %s is incomplete\n",
			o->record ? o->record : "");
		status = 1;
	}
	return status;
}
