/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The READ response copy count (struct rk_insp_read_copies): the
 * responder's expected PSN replayed over the captured requests, the
 * response packets the accepted READ copies ask for, per PSN for the last
 * COPY_WIN PSNs once the responses show a gap, and at the end of a capture
 * (rk_insp_flows_end()) the bounds they put on the missing READ response
 * PSNs.
 */
#include "rk_insp_flow_int.h"

#include <stdlib.h>

#include "rk_psn.h"

/* The one flow of a role on a path's side; mixed when another shows up. */
static void
copies_reader(struct rk_insp_flow **slot, bool *mixed, struct rk_insp_flow *flow)
{
	if (*slot == NULL)
		*slot = flow;
	else if (*slot != flow)
		*mixed = true;
}

/*
 * Copies per PSN of the last COPY_WIN PSNs the responder has taken, from
 * the PSN it expected when the window began (@c lo) on: a PSN in it was
 * asked for @c owed times and came @c seen times (255: too many to tell).
 */
#define COPY_WIN 16384u
#define COPY_MAX 255u

struct rk_insp_copy_win {
	uint32_t lo;
	uint8_t owed[COPY_WIN], seen[COPY_WIN];
};

static bool
win_holds(const struct rk_insp_copy_win *w, uint32_t psn)
{
	int32_t off = rk_psn_diff(psn, w->lo);

	return off >= 0 && (uint32_t)off < COPY_WIN;
}

static void
count_up(uint8_t *n)
{
	if (*n < COPY_MAX)
		(*n)++;
}

/* The responder took a READ of PSNs [psn, psn + span): the window slides
 * to hold its end. */
static void
win_owe(struct rk_insp_copy_win *w, uint32_t psn, uint32_t span)
{
	uint32_t end = rk_psn_add(psn, span);
	int32_t over = rk_psn_diff(end, w->lo) - (int32_t)COPY_WIN;

	if (over > 0) {
		for (uint32_t i = 0; i < (uint32_t)over && i < COPY_WIN; i++) {
			uint32_t slot = (w->lo + i) % COPY_WIN;

			w->owed[slot] = 0;
			w->seen[slot] = 0;
		}
		w->lo = rk_psn_add(w->lo, (uint32_t)over);
	}
	if (rk_psn_diff(end, w->lo) <= 0)
		return;                 /* all of it before the window */
	if (!win_holds(w, psn))
		psn = w->lo;
	for (; psn != end; psn = rk_psn_add(psn, 1))
		count_up(&w->owed[psn % COPY_WIN]);
}

void
rk_insp_copies_request(struct rk_insp_flow *flow, struct rk_insp_path *path, int dir,
		       const struct rk_insp_roce *r, uint32_t span, bool unknown)
{
	struct rk_insp_read_copies *c = &flow->copies;
	int32_t d;

	if ((r->opflags & RK_OPF_READ_REQ) && path != NULL)
		copies_reader(&path->rd_req[dir], &path->rd_mixed[dir], flow);
	if (!c->started) {
		c->started = true;
		c->first = r->psn;
		c->epsn = r->psn;
	}
	d = rk_psn_diff(r->psn, c->epsn);
	if (d > 0)
		return;
	if (r->opflags & RK_OPF_READ_REQ) {
		if (unknown) {
			c->unknown = true;
		} else if (rk_psn_diff(r->psn, c->first) >= 0) {
			c->owed += span;
			c->dup_read |= d < 0;
			if (c->win != NULL)
				win_owe(c->win, r->psn, span);
		}
	}
	if (d == 0)
		c->epsn = rk_psn_add(r->psn, span);
}

void
rk_insp_copies_response(struct rk_insp_path *path, int dir, struct rk_insp_flow *flow, uint32_t psn)
{
	struct rk_insp_flow *req = path->rd_req[!dir];

	copies_reader(&path->rd_resp[!dir], &path->rd_mixed[!dir], flow);
	if (req != NULL && rk_psn_diff(psn, req->copies.first) >= 0 &&
	    rk_psn_diff(psn, req->copies.epsn) < 0) {
		flow->copies.seen++;
		if (req->copies.win != NULL && win_holds(req->copies.win, psn))
			count_up(&req->copies.win->seen[psn % COPY_WIN]);
	}
}

/*
 * The first gap of the READ responses from side @p dir of @p path,
 * @p missing PSNs before READ response @p psn: count copies per PSN from
 * here on. Before it, with no
 * duplicate READ taken, every PSN a READ asked for was asked once, and
 * came once when it is behind the gap: the window starts up to COPY_WIN
 * PSNs back with nothing owed there, and one copy owed for the holes and
 * the PSNs after @p psn. Else it starts at the PSNs no READ asked for yet.
 * (A PSN behind the gap lost at the end of its response is no hole.)
 */
void
rk_insp_copies_gap(struct rk_insp_path *path, int dir, uint32_t psn, uint32_t missing)
{
	struct rk_insp_flow *req = path->rd_req[!dir];
	struct rk_insp_read_copies *c;
	int32_t back, ahead;

	if (req == NULL || req->copies.win != NULL || path->rd_mixed[!dir])
		return;
	c = &req->copies;
	c->win = calloc(1, sizeof(*c->win));
	if (c->win == NULL)
		return;
	back = c->dup_read ? 0 : rk_psn_diff(c->epsn, c->first);
	if (back > (int32_t)COPY_WIN)
		back = COPY_WIN;
	c->win->lo = rk_psn_add(c->epsn, RK_PSN_MASK + 1u - (uint32_t)back);
	ahead = rk_psn_diff(c->epsn, psn);
	if (back == 0 || ahead <= 0 || ahead > back)
		return;
	for (int32_t i = -(int32_t)missing; i < ahead; i++) {
		uint32_t p = rk_psn_add(psn, (uint32_t)i & RK_PSN_MASK);

		if (i != 0 && win_holds(c->win, p))
			c->win->owed[p % COPY_WIN] = 1;
	}
}

/* Whether every copy of READ response @p psn the READs asked for came. */
static bool
copies_all_seen(const void *ctx, uint32_t psn)
{
	const struct rk_insp_copy_win *w = ctx;
	uint32_t slot = psn % COPY_WIN;

	return win_holds(w, psn) && w->owed[slot] != 0 && w->owed[slot] < COPY_MAX &&
	       w->seen[slot] >= w->owed[slot];
}

/* The copy count's bounds on @p f's missing READ response PSNs. */
static void
copies_bound(const struct rk_insp_flows *t, struct rk_insp_flow *f)
{
	const struct rk_insp_flow *req;
	struct rk_insp_path *p;
	uint64_t lost;
	int dir;

	if (f->resp.missing == 0)
		return;
	p = rk_insp_path_lookup(t, &f->key, &dir);
	if (p == NULL || p->rd_mixed[!dir] || p->rd_resp[!dir] != f)
		return;
	req = p->rd_req[!dir];
	if (req == NULL || req->copies.unknown)
		return;
	if (req->copies.win != NULL)
		f->copies.taken_back += rk_insp_resp_take_back(f, copies_all_seen, req->copies.win);
	/* More seen than owed: the replay of the responder missed requests
	 * it took (reordered after the capture point); no bound. */
	if (f->copies.seen > req->copies.owed)
		return;
	lost = req->copies.owed - f->copies.seen;
	if (f->resp.missing > lost) {
		f->copies.taken_back += f->resp.missing - lost;
		f->resp.missing = lost;
	}
	if (f->resp.gaps > f->resp.missing)
		f->resp.gaps = f->resp.missing;
}

void
rk_insp_flows_end(struct rk_insp_flows *t, rk_insp_settled_fn *cb, void *ctx)
{
	rk_insp_flows_settle(t, cb, ctx);
	for (struct rk_insp_flow *f = t->head; f != NULL; f = f->next)
		copies_bound(t, f);
}
