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
#include <stdlib.h>
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

/* A receiving port: the port, the stage around it, the accounting. */
struct rk_gen_recv_port {
	const struct rk_gen_recv_opts *o;
	struct rk_io_dpdk *io;
	struct rk_impair_io *imp;
	const struct rk_io_ops *ops;
	void *ctx;
	struct rk_gen_recv r;
	uint64_t t0, last_rx;
	int status;
	uint8_t frame[RK_IB_MAX_FRAME + 256];
};

struct rk_gen_recv_port *
rk_gen_recv_port_open(const struct rk_gen_recv_opts *o)
{
	struct rk_gen_recv_port *p = calloc(1, sizeof(*p));

	if (p == NULL) {
		fprintf(stderr, "rk-gen: out of memory\n");
		return NULL;
	}
	p->o = o;
	p->io = rk_gen_port_open(o->port, o->record, false, 0, o->timeout_s);
	if (p->io == NULL) {
		free(p);
		return NULL;
	}
	p->ops = &rk_io_dpdk_ops;
	p->ctx = p->io;
	if (o->rx_drop_every || o->rx_delay_ns) {
		p->imp = impair_wrap(o, p->io);
		if (p->imp == NULL) {
			rk_io_dpdk_close(p->io);
			free(p);
			return NULL;
		}
		p->ops = &rk_impair_io_ops;
		p->ctx = p->imp;
	}
	rk_gen_recv_init(&p->r, o);
	p->t0 = rk_gen_wall_ns();
	rk_gen_recv_tick(&p->r, p->t0);
	return p;
}

int
rk_gen_recv_port_poll(struct rk_gen_recv_port *p)
{
	uint64_t now;
	int len, work = 0;

	while ((len = p->ops->rx(p->ctx, p->frame, sizeof(p->frame))) > 0) {
		now = rk_gen_wall_ns();
		rk_gen_recv_frame(&p->r, p->frame, (uint32_t)len, now);
		p->last_rx = now;
		work++;
	}
	if (len < 0) {
		fprintf(stderr, "rk-gen: port %s: receive error: %s\n", p->o->port, strerror(-len));
		p->status = 1;
		return -1;
	}
	rk_gen_recv_tick(&p->r, rk_gen_wall_ns());
	return work;
}

bool
rk_gen_recv_port_done(struct rk_gen_recv_port *p)
{
	uint64_t now = rk_gen_wall_ns();
	/* frames the stage holds are not idle time */
	uint64_t held = p->imp != NULL ? rk_impair_io_stats(p->imp)->rx_held : 0;

	if (rk_app_stop || p->status != 0 || (p->o->duration_ns && now - p->t0 >= p->o->duration_ns))
		return true;
	return p->o->idle_ns && p->last_rx && now - p->last_rx >= p->o->idle_ns && held == 0;
}

void
rk_gen_recv_port_idle(struct rk_gen_recv_port *p, int work)
{
	/* frames held: spin, their time is near */
	rk_io_dpdk_idle(p->io, work + (p->imp != NULL && rk_impair_io_stats(p->imp)->rx_held > 0));
}

int
rk_gen_recv_port_close(struct rk_gen_recv_port *p)
{
	int status = p->status;

	if (rk_gen_recv_report(&p->r) != 0)
		status = 1;
	fprintf(stderr, "rk-gen: port %s: %llu frames taken, %llu not RoCEv2%s\n", p->o->port,
		(unsigned long long)rk_io_dpdk_stats(p->io)->rx_frames,
		(unsigned long long)rk_io_dpdk_stats(p->io)->rx_other,
		rk_app_stop ? " (interrupted)" : "");
	if (p->imp != NULL) {
		impair_report(p->imp);
		rk_impair_io_destroy(p->imp);
	}
	rk_gen_recv_fini(&p->r);
	if (rk_io_dpdk_close(p->io) < 0) {
		fprintf(stderr, "rk-gen: error: the recording %s is incomplete\n",
			p->o->record ? p->o->record : "");
		status = 1;
	}
	free(p);
	return status;
}

int
rk_gen_recv_port(const struct rk_gen_recv_opts *o)
{
	struct rk_gen_recv_port *p = rk_gen_recv_port_open(o);

	if (p == NULL)
		return 1;
	while (!rk_gen_recv_port_done(p)) {
		int work = rk_gen_recv_port_poll(p);

		if (work < 0)
			break;
		rk_gen_recv_port_idle(p, work);
	}
	return rk_gen_recv_port_close(p);
}
