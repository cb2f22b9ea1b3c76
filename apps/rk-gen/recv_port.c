/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-gen's receiver on a DPDK port: every RoCEv2 frame lib/io takes (no
 * address set, so whatever its addresses) is accounted with the wall
 * clock as RX time, the clock the port sender writes as TX time. With
 * --rx-drop-every or --rx-delay the impairment stage (lib/impair,
 * rk_impair_io) sits between the port and the accounting: a known loss
 * and delay on a live path.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gen.h"
#include "rk_app.h"
#include "rk_impair.h"
#include "rk_io_dpdk.h"

static uint64_t
wall_now(void *io)
{
	(void)io;
	return rk_gen_wall_ns();
}

/*
 * The impairment stage around the port: one rule on RX. It holds frames
 * by the wall clock, the latency's clock (the port's TSC clock may run at
 * another rate where the TSC frequency is only estimated).
 */
static struct rk_impair_io *
impair_wrap(const struct rk_gen_recv_opts *o, struct rk_io_dpdk *io)
{
	static struct rk_io_ops port_ops;
	struct rk_impair_rule rule = { .drop_every = o->rx_drop_every, .delay_ns = o->rx_delay_ns };
	struct rk_impair_io_cfg cfg = {
		.inner = &port_ops, .inner_io = io, .rx_rules = &rule, .n_rx_rules = 1,
	};
	struct rk_impair_io *w;

	port_ops = rk_io_dpdk_ops;
	port_ops.now_ns = wall_now;
	w = rk_impair_io_create(&cfg);
	if (w == NULL)
		fprintf(stderr, "rk-gen: the impairment stage: %s\n", strerror(errno));
	return w;
}

static void
impair_report(struct rk_impair_io *imp)
{
	const struct rk_impair_rule_stats *is = rk_impair_stats(rk_impair_io_stage(imp, true), 0);

	fprintf(stderr, "rk-gen: impairment on RX: %llu frames, %llu dropped, %llu held at the end\n",
		(unsigned long long)is->matched, (unsigned long long)is->lost,
		(unsigned long long)rk_impair_io_stats(imp)->rx_held);
}

int
rk_gen_recv_port(const struct rk_gen_recv_opts *o)
{
	static uint8_t frame[RK_IB_MAX_FRAME + 256];
	const struct rk_io_ops *ops = &rk_io_dpdk_ops;
	struct rk_impair_io *imp = NULL;
	struct rk_gen_recv r;
	struct rk_io_dpdk *io;
	uint64_t now, t0, last_rx = 0;
	void *ctx;
	int status = 0;

	io = rk_gen_port_open(o->port, o->record, false);
	if (io == NULL)
		return 1;
	ctx = io;
	if (o->rx_drop_every || o->rx_delay_ns) {
		imp = impair_wrap(o, io);
		if (imp == NULL) {
			rk_io_dpdk_close(io);
			return 1;
		}
		ops = &rk_impair_io_ops;
		ctx = imp;
	}
	rk_gen_recv_init(&r, o);
	t0 = rk_gen_wall_ns();
	rk_gen_recv_tick(&r, t0);
	while (!rk_app_stop) {
		uint64_t held;
		int len, work = 0;

		while ((len = ops->rx(ctx, frame, sizeof(frame))) > 0) {
			now = rk_gen_wall_ns();
			rk_gen_recv_frame(&r, frame, (uint32_t)len, now);
			last_rx = now;
			work++;
		}
		if (len < 0) {
			fprintf(stderr, "rk-gen: port %s: receive error: %s\n", o->port,
				strerror(-len));
			status = 1;
			break;
		}
		now = rk_gen_wall_ns();
		rk_gen_recv_tick(&r, now);
		if (o->duration_ns && now - t0 >= o->duration_ns)
			break;
		/* frames the stage holds are not idle time: wait for them, spinning */
		held = imp != NULL ? rk_impair_io_stats(imp)->rx_held : 0;
		if (o->idle_ns && last_rx && now - last_rx >= o->idle_ns && held == 0)
			break;
		rk_io_dpdk_idle(io, work + (held > 0));
	}
	rk_gen_recv_report(&r);
	fprintf(stderr, "rk-gen: port %s: %llu frames taken, %llu not RoCEv2%s\n", o->port,
		(unsigned long long)rk_io_dpdk_stats(io)->rx_frames,
		(unsigned long long)rk_io_dpdk_stats(io)->rx_other,
		rk_app_stop ? " (interrupted)" : "");
	if (imp != NULL) {
		impair_report(imp);
		rk_impair_io_destroy(imp);
	}
	rk_gen_recv_fini(&r);
	if (rk_io_dpdk_close(io) < 0) {
		fprintf(stderr, "rk-gen: error: the recording %s is incomplete\n",
			o->record ? o->record : "");
		status = 1;
	}
	return status;
}
