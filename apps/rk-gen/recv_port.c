/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-gen's receiver on a DPDK port: every RoCEv2 frame lib/io takes (no
 * address set, so whatever its addresses) is read where it lies in its
 * mbuf and accounted with the wall clock as RX time, the clock the port
 * sender writes as TX time.
 */
#include <stdio.h>

#include "gen.h"
#include "rk_app.h"
#include "rk_io_dpdk.h"

int
rk_gen_recv_port(const struct rk_gen_recv_opts *o)
{
	struct rk_gen_recv r;
	struct rk_io_dpdk *io;
	uint64_t now, t0, last_rx = 0;
	int status = 0;

	io = rk_gen_port_open(o->port, o->record, false);
	if (io == NULL)
		return 1;
	rk_gen_recv_init(&r, o);
	t0 = rk_gen_wall_ns();
	rk_gen_recv_tick(&r, t0);
	for (now = t0; !rk_app_stop; ) {
		const uint8_t *frame;
		int len, work = 0;

		while ((len = rk_io_dpdk_ops.rx_view(io, &frame)) > 0) {
			now = rk_gen_wall_ns();
			rk_gen_recv_frame(&r, frame, (uint32_t)len, now);
			rk_io_dpdk_ops.rx_done(io);
			last_rx = now;
			work++;
		}
		if (len < 0) {
			fprintf(stderr, "rk-gen: port %s: receive error: %d\n", o->port, len);
			status = 1;
			break;
		}
		now = rk_gen_wall_ns();
		rk_gen_recv_tick(&r, now);
		if (o->duration_ns && now - t0 >= o->duration_ns)
			break;
		if (o->idle_ns && last_rx && now - last_rx >= o->idle_ns)
			break;
		rk_io_dpdk_idle(io, work);
	}
	rk_gen_recv_report(&r);
	fprintf(stderr, "rk-gen: port %s: %llu frames taken, %llu not RoCEv2%s\n", o->port,
		(unsigned long long)rk_io_dpdk_stats(io)->rx_frames,
		(unsigned long long)rk_io_dpdk_stats(io)->rx_other,
		rk_app_stop ? " (interrupted)" : "");
	rk_gen_recv_fini(&r);
	if (rk_io_dpdk_close(io) < 0) {
		fprintf(stderr, "rk-gen: error: the recording %s is incomplete\n",
			o->record ? o->record : "");
		status = 1;
	}
	return status;
}
