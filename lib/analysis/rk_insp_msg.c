/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Message state of a flow: opcode sequence and length findings of the
 * requests, and the PSNs whose first transmission was lost (a message
 * first seen in a retransmission counts once).
 */
#include "rk_insp_flow_int.h"

#include <stdlib.h>
#include <string.h>

#include "rk_psn.h"

/* Room for one more lost range; false at the limit or out of memory. */
static bool
lost_room(struct rk_insp_flow *flow)
{
	struct rk_insp_psn_range *n;
	unsigned int cap;

	if (flow->nlost < flow->lost_cap)
		return true;
	if (flow->lost_cap >= RK_INSP_LOST_RANGES)
		return false;
	cap = flow->lost_cap ? flow->lost_cap * 2 : 8;
	n = realloc(flow->lost, cap * sizeof(*n));
	if (n == NULL)
		return false;
	flow->lost = n;
	flow->lost_cap = cap;
	return true;
}

/* Remember PSNs lost in first transmission; the oldest range goes first. */
void
rk_insp_lost_add(struct rk_insp_flow *flow, uint32_t psn, uint32_t len)
{
	if (!lost_room(flow)) {
		if (flow->nlost == 0)
			return;
		memmove(flow->lost, flow->lost + 1, (flow->nlost - 1) * sizeof(flow->lost[0]));
		flow->nlost--;
	}
	flow->lost[flow->nlost].psn = psn;
	flow->lost[flow->nlost].len = len;
	flow->nlost++;
}

/*
 * Whether @p psn lies in a lost range; it is taken out so a later copy of
 * the same packet does not count again.
 */
bool
rk_insp_lost_take(struct rk_insp_flow *flow, uint32_t psn)
{
	for (unsigned int i = 0; i < flow->nlost; i++) {
		struct rk_insp_psn_range *g = &flow->lost[i];
		int32_t off = rk_psn_diff(psn, g->psn);

		if (off < 0 || (uint32_t)off >= g->len)
			continue;
		if (off == 0) {
			g->psn = rk_psn_add(g->psn, 1);
			g->len--;
		} else if ((uint32_t)off == g->len - 1) {
			g->len--;
		} else if (lost_room(flow)) {
			/* Split: the tail becomes a range of its own. */
			g = &flow->lost[i];     /* the array may have moved */
			flow->lost[flow->nlost].psn = rk_psn_add(psn, 1);
			flow->lost[flow->nlost].len = g->len - (uint32_t)off - 1;
			flow->nlost++;
			g->len = (uint32_t)off;
		} else {
			/* No room to split: keep the part the run reaches next. */
			g->psn = rk_psn_add(psn, 1);
			g->len -= (uint32_t)off + 1;
		}
		if (g->len == 0) {
			memmove(g, g + 1, (flow->nlost - i - 1) * sizeof(*g));
			flow->nlost--;
		}
		return true;
	}
	return false;
}

/*
 * Opcode sequence and message length of the request side (IBTA Vol1
 * ch. 9, C9-92). @p checkable: the packet continues the
 * sequence with no gap, so a missing FIRST or LAST cannot be explained by
 * lost packets.
 */
void
rk_insp_request_message(struct rk_insp_msg_state *m, const struct rk_insp_roce *r,
		bool checkable, bool taint, struct rk_findings *found,
		uint32_t off_hint)
{
	uint32_t fl = r->opflags;
	uint32_t kind = fl & MSG_KINDS;
	bool middle = (fl & RK_OPF_MIDDLE) != 0;
	bool first = is_first_only(fl), last = is_last_only(fl), only = is_only(fl);
	bool cont = middle || last;

	/* READ requests, atomics, FLUSH: single packets, no message kind. */
	if (kind == 0) {
		cont = false;
		only = true;
	}
	if (checkable && m->state != MSG_UNKNOWN) {
		bool bad;

		if (m->state == MSG_INSIDE)
			bad = !(cont && kind == m->kind);
		else
			bad = cont;
		if (bad)
			rk_findings_add(found, RK_F_MSG_OPCODE_SEQUENCE, off_hint);
	}

	if (first) {
		m->state = MSG_INSIDE;
		m->kind = kind;
		m->len_known = (fl & RK_OPF_WRITE) && r->has_reth;
		m->expected_len = r->dma_len;
		m->got_len = r->payload_len;
		m->tainted = r->truncated;
		return;
	}
	if (cont) {
		if (m->state != MSG_INSIDE || m->kind != kind) {
			/* Joined a message in its middle: no length verdict. */
			m->kind = kind;
			m->len_known = false;
			m->got_len = 0;
		}
		m->got_len += r->payload_len;
		if (taint || r->truncated)
			m->tainted = true;
		if (last) {
			if (m->len_known && !m->tainted &&
			    m->got_len != m->expected_len)
				rk_findings_add(found, RK_F_MSG_LEN_MISMATCH, off_hint);
			m->state = MSG_IDLE;
		} else {
			m->state = MSG_INSIDE;
		}
		return;
	}
	if (only) {
		if ((fl & RK_OPF_WRITE) && r->has_reth && !r->truncated &&
		    r->payload_len != r->dma_len)
			rk_findings_add(found, RK_F_MSG_LEN_MISMATCH, off_hint);
		m->state = MSG_IDLE;
	}
}
