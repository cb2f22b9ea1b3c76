/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-gen's stateful data (stateful.h): the mix, the sizes, the patterns
 * and the regions both ends lay out alike. The mix repeats every sum of
 * the weights, so which slot a message takes is counted in closed form:
 * the buffers hold only what the ops of the mix can have in flight.
 */
#include <string.h>

#include "stateful.h"

#define GOLDEN 0x9e3779b1u
#define RECV_OPS (RK_GEN_OP_WRITE | RK_GEN_OP_SEND)
#define LAND_OPS (RK_GEN_OP_READ | RK_GEN_OP_ATOMIC | RK_GEN_OP_CMP_SWAP)

static uint32_t
period(const uint8_t *w)
{
	uint32_t p = 0;

	for (int b = 0; b < RK_GEN_HELLO_NOPS; b++)
		p += w[b];
	return p;
}

/* Positions x in [0, a) of the cyclic mix @p w whose op is in @p mask. */
static uint64_t
count_to(const uint8_t *w, uint8_t mask, uint64_t a)
{
	uint32_t p = period(w), lo = 0;
	uint64_t c = 0;

	if (p == 0)
		return 0;
	for (int b = 0; b < RK_GEN_HELLO_NOPS; lo += w[b], b++) {
		uint64_t r = a % p;

		if (!(mask & (1u << b)))
			continue;
		c += a / p * w[b] + (r <= lo ? 0 : r - lo < w[b] ? r - lo : w[b]);
	}
	return c;
}

/* The most positions of @p mask among @p len consecutive ones of the mix. */
static uint32_t
max_window(const uint8_t *w, uint8_t mask, uint64_t len)
{
	uint32_t p = period(w);
	uint64_t best = 0;

	for (uint32_t s = 0; s < p; s++) {
		uint64_t c = count_to(w, mask, s + len) - count_to(w, mask, s);

		best = c > best ? c : best;
	}
	return (uint32_t)best;
}

/* The weights with only the ops of @p mask: the sequence of those messages alone. */
static void
only(const struct rk_gen_hello *cfg, uint8_t mask, uint8_t *w)
{
	for (int b = 0; b < RK_GEN_HELLO_NOPS; b++)
		w[b] = (mask & (1u << b)) ? cfg->weight[b] : 0;
}

uint64_t
rk_sf_ord(const struct rk_gen_hello *cfg, uint32_t i, uint64_t m, uint8_t mask)
{
	return count_to(cfg->weight, mask, m + i) - count_to(cfg->weight, mask, i);
}

uint64_t
rk_sf_nth_write(const struct rk_gen_hello *cfg, uint32_t i, uint64_t k)
{
	uint64_t t = count_to(cfg->weight, RK_GEN_OP_WRITE, i) + k;
	uint32_t ww = cfg->weight[0];

	/* writes come first in each period of the mix */
	return t / ww * period(cfg->weight) + t % ww - i;
}

int64_t
rk_sf_recv_send(const struct rk_gen_hello *cfg, uint32_t i, uint64_t k)
{
	uint8_t w[RK_GEN_HELLO_NOPS];
	uint64_t t;

	/* receives are taken by WRITEs and SENDs in message order, WRITEs first in a period */
	only(cfg, RECV_OPS, w);
	t = count_to(cfg->weight, RECV_OPS, i) + k;
	if (t % period(w) < w[0])
		return -1;
	return (int64_t)(count_to(w, RK_GEN_OP_SEND, t) -
			 count_to(w, RK_GEN_OP_SEND, count_to(cfg->weight, RECV_OPS, i)));
}

/*
 * A WRITE slot is reused after write_slots WRITEs: a responder lagging
 * further finds a later message there (counted as overwritten, not wrong).
 */
void
rk_sf_layout(const struct rk_gen_hello *cfg, bool responder, struct rk_sf_layout *l)
{
	uint64_t sz = cfg->size_max;
	uint8_t w[RK_GEN_HELLO_NOPS];

	memset(l, 0, sizeof(*l));
	only(cfg, 0xff, w);
	if (!responder) {
		/* READ data and atomic results land here; WRITEs and SENDs come from the source */
		l->land_slots = max_window(w, LAND_OPS, cfg->depth);
		l->land_size = (cfg->ops & RK_GEN_OP_READ) ? cfg->size_max : 8;
		l->len = (uint64_t)l->land_slots * l->land_size;
		/* unchecked, the one shared buffer is also what WRITEs and SENDs carry */
		if (l->len < sz)
			l->len = sz;
		return;
	}
	if (cfg->ops & RK_GEN_OP_WRITE)
		l->write_slots = max_window(w, RK_GEN_OP_WRITE, cfg->depth) + 2;
	/* READs read a fixed pattern: a few slots are as good as many */
	if (cfg->ops & RK_GEN_OP_READ)
		l->read_slots = cfg->depth < 8 ? cfg->depth : 8;
	/*
	 * A window's WRITEs and SENDs and a quarter of a window more: the
	 * responder reposts after its check.
	 */
	if (cfg->ops & RECV_OPS)
		l->recv_slots = max_window(w, RECV_OPS, cfg->depth) + cfg->depth / 4 + 1;
	/* buffers for the SENDs among them only: a WRITE's receive takes none */
	if (cfg->ops & RK_GEN_OP_SEND) {
		only(cfg, RECV_OPS, w);
		l->send_slots = max_window(w, RK_GEN_OP_SEND, l->recv_slots);
	}
	l->write_off = 0;
	l->read_off = sz * l->write_slots;
	l->recv_off = l->read_off + sz * l->read_slots;
	l->len = l->recv_off + sz * l->send_slots;
	if (l->len < sz)
		l->len = sz;
	/* the word FETCH_ADDs add to, after the rest: 8-aligned (IBTA Vol1 ch. 9, ATOM-ALIGN-01) */
	l->atomic_off = (l->len + 7) & ~(uint64_t)7;
	if (cfg->ops & RK_GEN_OP_ATOMIC)
		l->len = l->atomic_off + 8;
	/* the word CMP_SWAPs swap, after that: 8-aligned as well */
	l->cas_off = (l->len + 7) & ~(uint64_t)7;
	if (cfg->ops & RK_GEN_OP_CMP_SWAP)
		l->len = l->cas_off + 8;
}

uint64_t
rk_sf_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

uint8_t
rk_sf_op(const struct rk_gen_hello *cfg, uint32_t i, uint64_t m)
{
	uint32_t total = period(cfg->weight), k;

	k = (uint32_t)((m + i) % total);
	/* weights 3,1: W W W R W W W R ..., shifted per QP */
	for (int b = 0; b < RK_GEN_HELLO_NOPS; b++) {
		if (k < cfg->weight[b])
			return (uint8_t)(1u << b);
		k -= cfg->weight[b];
	}
	return RK_GEN_OP_WRITE;
}

uint32_t
rk_sf_size(const struct rk_gen_hello *cfg, uint32_t i, uint64_t m)
{
	uint64_t span = (uint64_t)cfg->size_max - cfg->size_min + 1;

	if (span == 1)
		return cfg->size_min;
	return cfg->size_min + (uint32_t)(rk_sf_mix64(((uint64_t)i << 40) ^ m ^ 0x5a5a) % span);
}

uint32_t
rk_sf_seed(uint32_t i, uint64_t m)
{
	return (uint32_t)rk_sf_mix64(((uint64_t)i << 32) ^ m) & (RK_SF_SEEDS - 1);
}

/* Words (j + w) * GOLDEN from word w = 0, host order, the last one cut. */
static void
fill(uint8_t *buf, uint64_t len, uint32_t j)
{
	uint32_t v = j * GOLDEN;
	uint64_t w;

	for (w = 0; w + 4 <= len; w += 4, v += GOLDEN)
		memcpy(buf + w, &v, 4);         /* host order: both ends are this program */
	memcpy(buf + w, &v, len - w);
}

void
rk_sf_pattern(uint8_t *buf, uint32_t len, uint32_t i, uint64_t m)
{
	fill(buf, len, rk_sf_seed(i, m));
}

bool
rk_sf_pattern_ok(const uint8_t *buf, uint32_t len, uint32_t i, uint64_t m)
{
	uint32_t v = rk_sf_seed(i, m) * GOLDEN, w, x = 0;

	for (w = 0; w + 4 <= len; w += 4, v += GOLDEN) {
		memcpy(&x, buf + w, 4);
		if (x != v)
			return false;
	}
	memcpy(&x, buf + w, len - w);
	return memcmp(&x, &v, len - w) == 0;
}

uint64_t
rk_sf_src_len(const struct rk_gen_hello *cfg)
{
	return 4ull * RK_SF_SEEDS + cfg->size_max;
}

void
rk_sf_src_fill(uint8_t *src, const struct rk_gen_hello *cfg)
{
	fill(src, rk_sf_src_len(cfg), 0);
}
