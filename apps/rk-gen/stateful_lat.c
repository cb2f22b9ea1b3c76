/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stateful client's latency: each message from its post to its
 * completion, into a histogram per opcode and one per QP (rows allocated
 * as values come: a QP's latencies fall in a few powers of two). The post
 * time rides in the WR's id as the clock's low 32 bits, so a latency above
 * 4.29 s reads modulo 2^32 ns; no window stays open that long without the
 * ACK timeout retrying.
 */
#include <errno.h>
#include <stdlib.h>

#include "stateful.h"

int
rk_sf_latency_on(struct rk_sf *s, uint64_t (*now_ns)(void))
{
	struct rk_sf_lat *l = calloc(1, sizeof(*l));

	if (l == NULL)
		return -ENOMEM;
	l->now_ns = now_ns;
	l->qp = calloc(s->n, sizeof(*l->qp));
	if (l->qp == NULL) {
		free(l);
		return -ENOMEM;
	}
	s->lat = l;
	return 0;
}

uint32_t
rk_sf_lat_post(struct rk_sf *s)
{
	return (uint32_t)s->lat->now_ns();
}

void
rk_sf_lat_done(struct rk_sf *s, uint32_t i, uint32_t posted, unsigned int op)
{
	struct rk_sf_lat *l = s->lat;
	uint32_t ns = (uint32_t)l->now_ns() - posted;

	rk_hist_add(&l->op[op], ns);
	rk_hist_add(&l->interval, ns);
	/* a row that cannot be had leaves the value out of that QP's only */
	(void)rk_hist_sparse_add(&l->qp[i], ns);
}

void
rk_sf_latency_off(struct rk_sf *s)
{
	struct rk_sf_lat *l = s->lat;

	if (l == NULL)
		return;
	for (uint32_t i = 0; i < s->n; i++)
		rk_hist_sparse_fini(&l->qp[i]);
	free(l->qp);
	free(l);
	s->lat = NULL;
}
