/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-gen on a DPDK port: the scheduler's frames handed to lib/io as raw
 * frames (rk_io_dpdk_tx_raw: copied into an mbuf, sent in bursts), paced
 * by the streams' rates against the port's TSC clock, or at top speed.
 * With a receiving port (--rx-port) the same loop polls it while it
 * waits and every 32 frames, then until the receiver's end.
 * A stream with a sequence slot gets the wall clock as TX time as each
 * frame is queued (rk_gen_stream_stamp_last: the ICRC patched from
 * the stream's tables). First cut: one
 * TX queue, one frame copied per send, frames up to RK_IB_MAX_FRAME bytes.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "rk_app.h"
#include "rk_io_dpdk.h"

struct rk_io_dpdk *
rk_gen_port_open(const char *port, const char *record, bool spin)
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

int
rk_gen_port_run(struct rk_gen_sched *s, const struct rk_gen_port_opts *o)
{
	const struct rk_io_dpdk_stats *st;
	struct rk_io_dpdk *io;
	struct rk_gen_live *m;
	uint64_t sent = 0, bytes = 0, t0, dt;
	int status = 0;

	io = rk_gen_port_open(o->port, o->record, true);
	if (io == NULL)
		return 1;
	t0 = rk_io_dpdk_now_ns();
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
		/* the slot's TX time: the wall clock as the frame is queued, for a receiver elsewhere */
		if (rk_gen_stream_cfg(m->s)->seq)
			rk_gen_stream_stamp_last(m->s, m->frame, (uint32_t)m->len, rk_gen_wall_ns());
		rc = rk_io_dpdk_tx_raw(io, m->frame, (uint32_t)m->len);
		if (rc == -ENOBUFS) { /* the queue is full: send, then the same frame again */
			rk_io_dpdk_ops.flush(io);
			continue;
		}
		if (rc < 0) {
			fprintf(stderr, "rk-gen: stream '%s': a frame of %d bytes: %s (at most %u)\n",
				rk_gen_stream_cfg(m->s)->name, m->len, strerror(-rc), RK_IB_MAX_FRAME);
			status = 1;
			break;
		}
		sent++;
		bytes += (uint64_t)m->len;
		if ((sent & 31) == 0) {
			rk_io_dpdk_ops.flush(io);
			if (o->rx != NULL)
				(void)rk_gen_recv_port_poll(o->rx);
		}
		rk_gen_sched_advance(s, m);
	}
	rk_io_dpdk_ops.flush(io);
	dt = rk_io_dpdk_now_ns() - t0;
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
