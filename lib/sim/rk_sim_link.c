/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The simulated link: per direction a min-heap of frames keyed by
 * (delivery time, sequence number), so equal times keep send order.
 */
#include "rk_sim.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define ETH_HLEN 14
#define DEFAULT_MAX_QUEUE 65536

struct sim_frame {
	uint64_t t;
	uint64_t seq;
	uint32_t len;
	uint8_t *data;
};

struct sim_dir {
	struct rk_sim_impair imp;
	struct rk_sim_link_stats st;
	struct sim_frame *heap;
	uint32_t n, cap;
	uint64_t rng;
	uint64_t seq;
	uint64_t busy_until;
	uint32_t burst_left;
};

struct rk_sim_link {
	struct sim_dir d[2];
	uint32_t max_queue;
	rk_sim_tap_fn tap, rx_tap;
	void *tap_ctx, *rx_tap_ctx;
};

static uint64_t
rnd(struct sim_dir *d)
{
	/* xorshift64* */
	uint64_t x = d->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	d->rng = x;
	return x * 0x2545f4914f6cdd1dull;
}

static bool
chance(struct sim_dir *d, double p)
{
	if (p <= 0)
		return false;
	return (double)(rnd(d) >> 11) * (1.0 / 9007199254740992.0) < p;
}

static bool
before(const struct sim_frame *a, const struct sim_frame *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static int
push(struct rk_sim_link *l, struct sim_dir *d, const uint8_t *f, uint32_t len, uint64_t t,
     bool corrupt)
{
	struct sim_frame x;
	uint32_t i;

	if (d->n >= l->max_queue) {
		d->st.overflow++;
		return 0;
	}
	if (d->n == d->cap) {
		uint32_t cap = d->cap ? d->cap * 2 : 256;
		struct sim_frame *h = realloc(d->heap, cap * sizeof(*h));

		if (h == NULL) {
			d->st.overflow++;       /* counted, so the counters balance */
			return -ENOMEM;
		}
		d->heap = h;
		d->cap = cap;
	}
	x.t = t;
	x.seq = d->seq++;
	x.len = len;
	x.data = malloc(len ? len : 1);
	if (x.data == NULL) {
		d->st.overflow++;
		return -ENOMEM;
	}
	memcpy(x.data, f, len);
	if (corrupt && len > ETH_HLEN) {
		uint32_t at = ETH_HLEN + (uint32_t)(rnd(d) % (len - ETH_HLEN));

		x.data[at] ^= (uint8_t)(1u << (rnd(d) % 8));
		d->st.corrupted++;
	}
	for (i = d->n++; i > 0; i = (i - 1) / 2) {
		struct sim_frame *p = &d->heap[(i - 1) / 2];

		if (!before(&x, p))
			break;
		d->heap[i] = *p;
	}
	d->heap[i] = x;
	d->st.in_flight = d->n;
	return 0;
}

static struct sim_frame
pop(struct sim_dir *d)
{
	struct sim_frame top = d->heap[0], last = d->heap[--d->n];
	uint32_t i = 0;

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= d->n)
			break;
		if (c + 1 < d->n && before(&d->heap[c + 1], &d->heap[c]))
			c++;
		if (!before(&d->heap[c], &last))
			break;
		d->heap[i] = d->heap[c];
		i = c;
	}
	if (d->n > 0)
		d->heap[i] = last;
	d->st.in_flight = d->n;
	return top;
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
	for (int i = 0; i < 2; i++) {
		l->d[i].imp = cfg->dir[i];
		l->d[i].rng = (cfg->seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(i + 1))) | 1;
	}
	return l;
}

void
rk_sim_link_destroy(struct rk_sim_link *l)
{
	if (l == NULL)
		return;
	for (int i = 0; i < 2; i++) {
		for (uint32_t k = 0; k < l->d[i].n; k++)
			free(l->d[i].heap[k].data);
		free(l->d[i].heap);
	}
	free(l);
}

int
rk_sim_link_send(struct rk_sim_link *l, unsigned int dir, const uint8_t *frame, uint32_t len,
		 uint64_t now_ns)
{
	struct sim_dir *d;
	const struct rk_sim_impair *im;
	uint64_t t;
	int copies = 1, rc = 0;

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
	if (im->mtu != 0 && len > ETH_HLEN && len - ETH_HLEN > im->mtu) {
		d->st.mtu_drops++;
		return 0;
	}
	/* Periodic loss counts every frame sent, as a switch's policer would. */
	if (im->drop_every != 0 && d->st.sent % im->drop_every == 0) {
		d->st.lost++;
		d->st.periodic_drops++;
		return 0;
	}
	if (d->burst_left > 0) {
		d->burst_left--;
		d->st.lost++;
		return 0;
	}
	if (chance(d, im->loss)) {
		if (im->burst_len > 1 && chance(d, im->burst))
			d->burst_left = im->burst_len - 1;
		d->st.lost++;
		return 0;
	}
	if (chance(d, im->dup)) {
		copies = 2;
		d->st.dup++;
	}
	for (int c = 0; c < copies && rc == 0; c++) {
		uint64_t at = t + im->delay_ns;

		if (im->jitter_ns != 0)
			at += rnd(d) % (im->jitter_ns + 1);
		if (chance(d, im->reorder)) {
			at += im->reorder_ns;
			d->st.reordered++;
		}
		rc = push(l, d, frame, len, at, chance(d, im->corrupt));
	}
	return rc;
}

int
rk_sim_link_recv(struct rk_sim_link *l, unsigned int dir, uint64_t now_ns, uint8_t *buf,
		 uint32_t cap)
{
	struct sim_dir *d;
	struct sim_frame f;
	int rc;

	if (l == NULL || dir > 1)
		return -EINVAL;
	d = &l->d[dir];
	if (d->n == 0 || d->heap[0].t > now_ns)
		return 0;
	f = pop(d);
	if (f.len > cap) {
		rc = -ENOSPC;
		d->st.rx_dropped++;
	} else {
		memcpy(buf, f.data, f.len);
		rc = (int)f.len;
		d->st.delivered++;
		if (l->rx_tap != NULL)
			l->rx_tap(l->rx_tap_ctx, dir, now_ns, buf, f.len);
	}
	free(f.data);
	return rc;
}

uint64_t
rk_sim_link_next_ns(const struct rk_sim_link *l, unsigned int dir)
{
	const struct sim_dir *d = &l->d[dir & 1];

	return d->n == 0 ? UINT64_MAX : d->heap[0].t;
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
