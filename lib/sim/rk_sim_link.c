/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The simulated link: per direction an impairment stage of one rule
 * (lib/impair) and its queue of frames keyed by (delivery time, sequence
 * number), so equal times keep send order; serialisation at the link's
 * rate is the link's own.
 */
#include "rk_sim.h"

#include "rk_impair.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define ETH_HLEN 14
#define DEFAULT_MAX_QUEUE 65536

struct sim_dir {
	struct rk_sim_impair imp;
	struct rk_sim_link_stats st;
	struct rk_impair *stage;        /* one rule: every frame */
	struct rk_impair_queue q;
	uint64_t busy_until;
};

struct rk_sim_link {
	struct sim_dir d[2];
	uint32_t max_queue;
	rk_sim_tap_fn tap, rx_tap;
	void *tap_ctx, *rx_tap_ctx;
	rk_sim_drop_fn drop;
	void *drop_ctx;
};

/* One copy onto the wire, due at @p t. */
static int
push(struct rk_sim_link *l, struct sim_dir *d, const struct rk_impair_verdict *v,
     const struct rk_impair_copy *c, const uint8_t *f, uint32_t len, uint64_t t)
{
	uint8_t *copy;

	if (d->q.n >= l->max_queue) {
		d->st.overflow++;
		return 0;
	}
	if (rk_impair_queue_push(&d->q, t, f, len, &copy) != 0) {
		d->st.overflow++;       /* counted, so the counters balance */
		return -ENOMEM;
	}
	rk_impair_apply(d->stage, v, c, copy, len);
	if (c->corrupt && len > ETH_HLEN)
		d->st.corrupted++;
	d->st.in_flight = d->q.n;
	return 0;
}

struct rk_sim_link *
rk_sim_link_create(const struct rk_sim_link_cfg *cfg)
{
	struct rk_sim_link *l;

	if (cfg == NULL) {
		errno = EINVAL;
		return NULL;
	}
	l = calloc(1, sizeof(*l));
	if (l == NULL)
		return NULL;
	l->max_queue = cfg->max_queue ? cfg->max_queue : DEFAULT_MAX_QUEUE;
	l->tap = cfg->tap;
	l->tap_ctx = cfg->tap_ctx;
	l->rx_tap = cfg->rx_tap;
	l->rx_tap_ctx = cfg->rx_tap_ctx;
	l->drop = cfg->drop;
	l->drop_ctx = cfg->drop_ctx;
	for (int i = 0; i < 2; i++) {
		const struct rk_sim_impair *im = &cfg->dir[i];
		struct rk_impair_rule r = {
			.mtu = im->mtu, .drop_every = im->drop_every, .loss = im->loss,
			.burst = im->burst, .burst_len = im->burst_len, .dup = im->dup,
			.delay_ns = im->delay_ns, .jitter_ns = im->jitter_ns,
			.reorder = im->reorder, .reorder_ns = im->reorder_ns,
			.corrupt = im->corrupt, .rng = RK_IMPAIR_RNG_XORSHIFT64S,
			.seed = (cfg->seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(i + 1))) | 1,
		};

		l->d[i].imp = *im;
		l->d[i].stage = rk_impair_create(&r, 1);
		if (l->d[i].stage == NULL) {
			rk_sim_link_destroy(l);
			errno = EINVAL;
			return NULL;
		}
	}
	return l;
}

void
rk_sim_link_destroy(struct rk_sim_link *l)
{
	if (l == NULL)
		return;
	for (int i = 0; i < 2; i++) {
		rk_impair_queue_clear(&l->d[i].q);
		rk_impair_destroy(l->d[i].stage);
	}
	free(l);
}

int
rk_sim_link_send(struct rk_sim_link *l, unsigned int dir, const uint8_t *frame, uint32_t len,
		 uint64_t now_ns)
{
	struct sim_dir *d;
	const struct rk_sim_impair *im;
	struct rk_impair_verdict v;
	uint64_t t;
	int rc = 0;

	if (l == NULL || dir > 1 || (frame == NULL && len > 0))
		return -EINVAL;
	d = &l->d[dir];
	im = &d->imp;
	d->st.sent++;
	d->st.bytes_sent += len;
	if (l->tap != NULL)
		l->tap(l->tap_ctx, dir, now_ns, frame, len);
	/* Serialisation: the link is busy while earlier frames go out. */
	t = now_ns > d->busy_until ? now_ns : d->busy_until;
	if (im->rate_bps != 0)
		t += (uint64_t)len * 8 * 1000000000ull / im->rate_bps;
	d->busy_until = t;
	if (l->drop != NULL && l->drop(l->drop_ctx, dir, now_ns, frame, len)) {
		d->st.lost++;
		return 0;
	}
	rk_impair_decide(d->stage, frame, len, &v);
	switch (v.drop) {
	case RK_IMPAIR_DROP_MTU:
		d->st.mtu_drops++;
		return 0;
	case RK_IMPAIR_DROP_PERIODIC:
		d->st.periodic_drops++;
		/* fall through */
	case RK_IMPAIR_DROP_BURST:
	case RK_IMPAIR_DROP_LOSS:
	case RK_IMPAIR_DROP_FORGED:     /* a link cannot answer: the frame is lost */
		d->st.lost++;
		return 0;
	case RK_IMPAIR_PASS:
		break;
	}
	if (v.copies == 2)
		d->st.dup++;
	for (unsigned int c = 0; c < v.copies && rc == 0; c++) {
		struct rk_impair_copy cp;

		rk_impair_next_copy(d->stage, &v, &cp);
		if (cp.reordered)
			d->st.reordered++;
		rc = push(l, d, &v, &cp, frame, len, t + cp.delay_ns);
	}
	return rc;
}

int
rk_sim_link_recv(struct rk_sim_link *l, unsigned int dir, uint64_t now_ns, uint8_t *buf,
		 uint32_t cap)
{
	struct sim_dir *d;
	int rc;

	if (l == NULL || dir > 1)
		return -EINVAL;
	d = &l->d[dir];
	rc = rk_impair_queue_pop(&d->q, now_ns, buf, cap);
	if (rc == 0)
		return 0;
	d->st.in_flight = d->q.n;
	if (rc < 0) {
		d->st.rx_dropped++;
	} else {
		d->st.delivered++;
		if (l->rx_tap != NULL)
			l->rx_tap(l->rx_tap_ctx, dir, now_ns, buf, (uint32_t)rc);
	}
	return rc;
}

uint64_t
rk_sim_link_next_ns(const struct rk_sim_link *l, unsigned int dir)
{
	return rk_impair_queue_next_ns(&l->d[dir & 1].q);
}

const struct rk_sim_link_stats *
rk_sim_link_stats(const struct rk_sim_link *l, unsigned int dir)
{
	return &l->d[dir & 1].st;
}

static int
port_tx(void *io, const uint8_t *frame, uint32_t len)
{
	struct rk_sim_port *p = io;

	return rk_sim_link_send(p->link, p->tx_dir, frame, len, p->clock->now_ns);
}

static int
port_rx(void *io, uint8_t *buf, uint32_t cap)
{
	struct rk_sim_port *p = io;

	return rk_sim_link_recv(p->link, p->tx_dir ^ 1, p->clock->now_ns, buf, cap);
}

static uint64_t
port_now(void *io)
{
	return ((struct rk_sim_port *)io)->clock->now_ns;
}

const struct rk_io_ops rk_sim_io_ops = {
	.name = "sim",
	.tx = port_tx,
	.rx = port_rx,
	.now_ns = port_now,
};
