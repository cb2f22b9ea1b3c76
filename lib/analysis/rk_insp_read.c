/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * READ requests per host pair: the PSNs a READ reserves, the READs each
 * side sent (copies counted, in the order seen), and which READ a READ
 * response answers.
 */
#include "rk_insp_flow_int.h"

#include "rk_psn.h"

/* PSNs a READ request reserves (IBTA Vol1 ch. 9): one per
 * response packet, ceil(DMALen / PMTU), at least one. */
uint32_t
rk_insp_read_span(const struct rk_insp_flows *t, const struct rk_insp_flow *flow,
	  const struct rk_insp_path *path, uint32_t dma_len, bool *unknown)
{
	uint32_t pmtu = t->opts.pmtu;
	uint64_t span;

	*unknown = false;
	if (dma_len <= MIN_PMTU)
		return 1;
	if (pmtu == 0)
		pmtu = flow->pmtu_seen;
	if (pmtu == 0 && path != NULL)
		pmtu = path->pmtu;
	if (pmtu == 0) {
		*unknown = true;
		return 1;
	}
	span = ((uint64_t)dma_len + pmtu - 1) / pmtu;
	if (span > MAX_READ_SPAN)
		span = MAX_READ_SPAN;
	return (uint32_t)span;
}

void
rk_insp_read_remember(struct rk_insp_path *p, int dir, uint32_t psn, uint32_t dma_len)
{
	struct pending_read *ring = p->reads[dir];
	uint32_t serial = ++p->read_serial[dir];

	/* A retransmitted READ replaces its first copy. */
	for (unsigned int i = 0; i < READ_RING; i++) {
		if (ring[i].used && ring[i].psn == psn) {
			ring[i].dma_len = dma_len;
			ring[i].serial = serial;
			if (ring[i].copies < UINT16_MAX)
				ring[i].copies++;
			return;
		}
	}
	ring[p->rpos[dir]].psn = psn;
	ring[p->rpos[dir]].dma_len = dma_len;
	ring[p->rpos[dir]].serial = serial;
	ring[p->rpos[dir]].first_serial = serial;
	ring[p->rpos[dir]].copies = 1;
	ring[p->rpos[dir]].used = 1;
	p->rpos[dir] = (p->rpos[dir] + 1) % READ_RING;
}

const struct pending_read *
rk_insp_read_find(const struct rk_insp_path *p, int dir, uint32_t psn)
{
	for (unsigned int i = 0; i < READ_RING; i++)
		if (p->reads[dir][i].used && p->reads[dir][i].psn == psn)
			return &p->reads[dir][i];
	return NULL;
}

/*
 * The first PSN of the READ (requested by side @p dir of @p path) whose
 * response PSNs hold @p psn: the latest one starting at or before it, as a
 * re-issued READ starts inside the first one's span. @return false when
 * no remembered READ holds @p psn.
 */
bool
rk_insp_read_start(const struct rk_insp_flows *t, const struct rk_insp_flow *flow,
	   const struct rk_insp_path *p, int dir, uint32_t psn, uint32_t *start)
{
	int32_t best = -1;

	if (p == NULL)
		return false;
	for (unsigned int i = 0; i < READ_RING; i++) {
		const struct pending_read *pr = &p->reads[dir][i];
		int32_t off = rk_psn_diff(psn, pr->psn);
		bool unknown;

		if (!pr->used || off < 0 || (best >= 0 && off >= best))
			continue;
		if ((uint32_t)off < rk_insp_read_span(t, flow, p, pr->dma_len, &unknown) && !unknown) {
			best = off;
			*start = pr->psn;
		}
	}
	return best >= 0;
}

/*
 * The READ request count when the READ a response (or replay) starting
 * at @p psn answers was sent: the latest READ holding it, taken at its
 * first copy, as the copy answered is not known when there are several
 * (one re-issued while the first is answered is answered after it). 0 when
 * no remembered READ holds @p psn (no gap of it is matched to READs then).
 */
uint32_t
rk_insp_read_answered(const struct rk_insp_flows *t, const struct rk_insp_flow *flow,
		const struct rk_insp_path *path, int rdir, uint32_t psn)
{
	uint32_t start;
	const struct pending_read *pr;

	if (path == NULL || !rk_insp_read_start(t, flow, path, rdir, psn, &start) ||
	    (pr = rk_insp_read_find(path, rdir, start)) == NULL)
		return 0;
	return pr->first_serial;
}
