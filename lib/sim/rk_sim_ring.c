/* SPDX-License-Identifier: BSD-3-Clause */
/* The PFC ring of rk_sim_ring.h on lib/sim's switch model. */
#include "rk_sim_ring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rk_ipv4.h"
#include "rk_sim_switch.h"

#define PRIO 3                  /* DSCP 26 */
#define MAC_BASE 10u            /* sink of switch i: MAC ending 10 + i */

struct rk_sring {
	struct rk_sring_cfg c;
	struct rk_sw_net *net;
	struct rk_sw *sw[RK_SRING_MAX];
	uint64_t delivered;
};

static void
sink(void *ctx, struct rk_sw *sw, unsigned int port, uint64_t t_ns, const uint8_t *frame,
     uint32_t len)
{
	struct rk_sring *r = ctx;

	(void)sw;
	(void)port;
	(void)t_ns;
	(void)frame;
	(void)len;
	r->delivered++;
}

/* An IPv4/UDP frame of @p len bytes to the sink MAC ..:@p dst, DSCP 26
 * (priority 3), addresses from 198.18.0.0/15. */
static void
make_frame(uint8_t *f, uint32_t len, uint8_t dst, uint8_t src)
{
	uint8_t *ip = f + 14;

	memset(f, 0, len);
	f[0] = 0x02;
	f[5] = dst;
	f[6] = 0x02;
	f[11] = src;
	f[12] = 0x08;
	ip[0] = 0x45;
	ip[1] = (uint8_t)(26 << 2 | 2);
	ip[2] = (uint8_t)((len - 14) >> 8);
	ip[3] = (uint8_t)(len - 14);
	ip[8] = 64;
	ip[9] = 17;
	ip[12] = 198;
	ip[13] = 18;
	ip[15] = src;
	ip[16] = 198;
	ip[17] = 18;
	ip[19] = dst;
	rk_ipv4_fill_csum(ip);
	ip[20] = 0xc0;          /* UDP source port 49152 */
	ip[22] = 0x12;          /* destination 4791 */
	ip[23] = 0xb7;
	ip[24] = (uint8_t)((len - 34) >> 8);
	ip[25] = (uint8_t)(len - 34);
}

static bool
cfg_ok(const struct rk_sring_cfg *c)
{
	return c->switches >= RK_SRING_MIN && c->switches <= RK_SRING_MAX && c->flows >= 1 &&
	       c->flows <= c->switches && c->link_bps > 0 && c->frame_bytes >= 64 &&
	       c->frame_bytes <= 9000 && c->stop_ns > 0 && c->xon_bytes < c->xoff_bytes;
}

struct rk_sring *
rk_sring_create(const struct rk_sring_cfg *c)
{
	struct rk_sring *r;
	struct rk_sw_cfg sc = { .nports = 4, .lossless_mask = 1u << PRIO, .deterministic = true,
				.seed = 1 };
	unsigned int n;
	uint8_t *f;

	if (c == NULL || !cfg_ok(c)) {
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	f = calloc(1, c->frame_bytes);
	if (r == NULL || f == NULL || (r->net = rk_sw_net_create()) == NULL)
		goto nomem;
	r->c = *c;
	n = c->switches;
	sc.port.rate_bps = c->link_bps;
	sc.port.prop_ns = c->prop_ns;
	sc.port.xoff_bytes = c->xoff_bytes;
	sc.port.xon_bytes = c->xon_bytes;
	sc.port.headroom_bytes = c->headroom_bytes;
	sc.port.pause_quanta = 0xffff;
	sc.port.pfcwd_detect_ns = c->pfcwd_ns;
	sc.port.pfcwd_restore_ns = c->pfcwd_ns;
	for (unsigned int i = 0; i < n; i++)
		if ((r->sw[i] = rk_sw_add(r->net, &sc)) == NULL)
			goto nomem;
	for (unsigned int i = 0; i < n; i++) {
		struct rk_sw *s = r->sw[i];

		if (rk_sw_connect(s, 1, r->sw[(i + 1) % n], 2) != 0 ||
		    rk_sw_attach_host(s, 3, sink, r) != 0 ||
		    rk_sw_route(s, (uint8_t)(MAC_BASE + i), 3) != 0 ||
		    rk_sw_route(s, (uint8_t)(MAC_BASE + (i + 1) % n), 1) != 0 ||
		    rk_sw_route(s, (uint8_t)(MAC_BASE + (i + 2) % n), 1) != 0)
			goto nomem;
	}
	for (unsigned int i = 0; i < c->flows; i++) {
		make_frame(f, c->frame_bytes, (uint8_t)(MAC_BASE + (i + 2) % n),
			   (uint8_t)(MAC_BASE + i));
		if (rk_sw_add_source(r->sw[i], 0, c->link_bps, c->prop_ns, f, c->frame_bytes, 0,
				     c->stop_ns) != 0)
			goto nomem;
	}
	free(f);
	return r;
nomem:
	free(f);
	rk_sring_destroy(r);
	errno = ENOMEM;
	return NULL;
}

void
rk_sring_destroy(struct rk_sring *r)
{
	if (r == NULL)
		return;
	if (r->net != NULL)
		rk_sw_net_destroy(r->net);
	free(r);
}

void
rk_sring_run(struct rk_sring *r, uint64_t until_ns)
{
	rk_sw_net_run(r->net, until_ns);
}

void
rk_sring_counts(const struct rk_sring *r, struct rk_sring_counts *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned int i = 0; i < r->c.flows; i++)
		out->sent += rk_sw_source_sent(r->net, i, NULL);
	out->delivered = r->delivered;
	for (unsigned int i = 0; i < r->c.switches; i++) {
		for (unsigned int p = 0; p < 4; p++) {
			const struct rk_sw_prio_stats *st = rk_sw_stats(r->sw[i], p, PRIO);

			out->buffered_bytes += rk_sw_queue_bytes(r->sw[i], p, PRIO);
			out->pfc_frames += st->tx_pause;
			out->drops += st->drops;
			out->pfcwd_storms += st->pfcwd_storms;
			out->pfcwd_drops += st->pfcwd_drops;
			if (p == 1) {
				out->ring_paused_ns += st->pause_ns;
				out->ring_paused += rk_sw_paused(r->sw[i], 1, PRIO);
			}
		}
	}
}
