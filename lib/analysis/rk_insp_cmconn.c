/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CM connections of a capture (IBTA Vol1 12.6, 12.9). Every message after
 * the REQ carries the active side's LocalCommID: as its LocalCommID when
 * the active side sends it, as RemoteCommID when the passive side does
 * (REJ and MRA of a REQ too), so that ID and the sender's address find the
 * record.
 */
#include "rk_insp_cmconn.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t
id_hash(uint32_t comm_id)
{
	return rk_insp_hash_mix(0x243f6a8885a308d3ull, comm_id);
}

static uint64_t
qp_hash(const uint8_t src[16], uint32_t qpn)
{
	return rk_insp_hash_mix(rk_insp_hash_addr(0x13198a2e03707344ull, src), qpn);
}

int
rk_insp_cmconn_init(struct rk_insp_cmconns *t)
{
	memset(t, 0, sizeof(*t));
	if (rk_insp_htab_init(&t->hash, 64, 1u << 16) != 0)
		return -ENOMEM;
	if (rk_insp_htab_init(&t->qhash[0], 64, 1u << 16) != 0 ||
	    rk_insp_htab_init(&t->qhash[1], 64, 1u << 16) != 0) {
		rk_insp_cmconn_fini(t);
		return -ENOMEM;
	}
	return 0;
}

void
rk_insp_cmconn_fini(struct rk_insp_cmconns *t)
{
	struct rk_insp_cmconn *c = t->head;

	while (c != NULL) {
		struct rk_insp_cmconn *n = c->next;

		free(c);
		c = n;
	}
	rk_insp_htab_fini(&t->hash);
	rk_insp_htab_fini(&t->qhash[0]);
	rk_insp_htab_fini(&t->qhash[1]);
	memset(t, 0, sizeof(*t));
}

/* The newest connection whose active side at @p a0 (talking to @p a1) has
 * LocalCommID @p id. */
static struct rk_insp_cmconn *
find(const struct rk_insp_cmconns *t, const uint8_t a0[16], const uint8_t a1[16],
     uint32_t id)
{
	uint64_t h = id_hash(id);

	if (t->hash.b == NULL)
		return NULL;
	for (struct rk_insp_hlink *l = rk_insp_htab_chain(&t->hash, h); l != NULL; l = l->next) {
		struct rk_insp_cmconn *c = rk_insp_hlink_elem(l, struct rk_insp_cmconn, hl);

		if (l->hash == h && c->comm_id[0] == id && memcmp(c->addr[0], a0, 16) == 0 &&
		    memcmp(c->addr[1], a1, 16) == 0)
			return c;
	}
	return NULL;
}

static struct rk_insp_cmconn *
add(struct rk_insp_cmconns *t, const uint8_t src[16], const uint8_t dst[16], bool lid,
    uint32_t id, uint64_t frame)
{
	struct rk_insp_cmconn *c;

	if (t->n >= RK_INSP_CMCONN_MAX || t->hash.b == NULL ||
	    (c = calloc(1, sizeof(*c))) == NULL) {
		t->dropped++;
		return NULL;
	}
	memcpy(c->addr[0], src, 16);
	memcpy(c->addr[1], dst, 16);
	c->lid = lid;
	c->comm_id[0] = id;
	c->first_frame = frame;
	rk_insp_htab_add(&t->hash, &c->hl, id_hash(id));
	if (t->tail != NULL)
		t->tail->next = c;
	else
		t->head = c;
	t->tail = c;
	t->n++;
	return c;
}

const struct rk_insp_cmconn *
rk_insp_cmconn_mad(struct rk_insp_cmconns *t, const uint8_t src[16], const uint8_t dst[16],
		   bool lid, const struct rk_mad *m, uint64_t frame)
{
	const struct rk_mad_cm *cm = &m->cm;
	struct rk_insp_cmconn *c = NULL;
	uint32_t bit = rk_insp_cmconn_bit(m->attr_id);
	int side = 0;

	if (m->base_version != RK_MAD_BASE_VERSION || m->mgmt_class != RK_MAD_CLASS_COMM ||
	    bit == 0 || m->attr_id == RK_MAD_CM_SIDR_REQ || m->attr_id == RK_MAD_CM_SIDR_REP ||
	    !(cm->fields & RK_MAD_CM_F_LOCAL_ID))
		return NULL;
	if (m->attr_id == RK_MAD_CM_REQ) {
		/* A resent REQ keeps its LocalCommID: the same connection. */
		c = find(t, src, dst, cm->local_comm_id);
		if (c == NULL)
			c = add(t, src, dst, lid, cm->local_comm_id, frame);
		if (c == NULL)
			return NULL;
		if (cm->fields & RK_MAD_CM_F_QPN)
			c->qpn[0] = cm->qpn;
		if (cm->fields & RK_MAD_CM_F_PSN)
			c->psn[0] = cm->starting_psn;
		if (cm->fields & RK_MAD_CM_F_SERVICE_ID)
			c->service_id = cm->service_id;
	} else {
		c = find(t, src, dst, cm->local_comm_id);
		if (c == NULL && (cm->fields & RK_MAD_CM_F_REMOTE_ID)) {
			c = find(t, dst, src, cm->remote_comm_id);
			side = 1;
		}
		if (c == NULL) {
			t->unmatched++;
			return NULL;
		}
		if (m->attr_id == RK_MAD_CM_REP && side == 1) {
			if (c->rep_seen)
				for (int d = 0; d < 2; d++)
					rk_insp_htab_del(&t->qhash[d], &c->hq[d]);
			c->rep_seen = true;
			c->comm_id[1] = cm->local_comm_id;
			if (cm->fields & RK_MAD_CM_F_QPN)
				c->qpn[1] = cm->qpn;
			if (cm->fields & RK_MAD_CM_F_PSN)
				c->psn[1] = cm->starting_psn;
			/* Side d's flow goes to the other side's QP. */
			for (int d = 0; d < 2; d++)
				rk_insp_htab_add(&t->qhash[d], &c->hq[d],
						 qp_hash(c->addr[d], c->qpn[!d]));
		}
		if (m->attr_id == RK_MAD_CM_REJ && (cm->fields & RK_MAD_CM_F_REASON))
			c->rej_reason = cm->reason;
	}
	c->seen |= bit;
	c->mads++;
	c->last_frame = frame;
	return c;
}

const struct rk_insp_cmconn *
rk_insp_cmconn_of_flow(const struct rk_insp_cmconns *t, const uint8_t src[16],
		       const uint8_t dst[16], uint32_t dest_qp, int *side)
{
	const struct rk_insp_cmconn *found = NULL;
	uint64_t h = qp_hash(src, dest_qp);
	int s = 0;

	for (int d = 0; d < 2; d++) {
		if (t->qhash[d].b == NULL)
			return NULL;
		for (struct rk_insp_hlink *l = rk_insp_htab_chain(&t->qhash[d], h); l != NULL;
		     l = l->next) {
			const struct rk_insp_cmconn *c =
				d == 0 ? rk_insp_hlink_elem(l, struct rk_insp_cmconn, hq[0]) :
					 rk_insp_hlink_elem(l, struct rk_insp_cmconn, hq[1]);

			/* The latest connection on those QPs wins. */
			if (l->hash == h && c->qpn[!d] == dest_qp &&
			    memcmp(c->addr[d], src, 16) == 0 &&
			    memcmp(c->addr[!d], dst, 16) == 0 &&
			    (found == NULL || c->first_frame > found->first_frame)) {
				found = c;
				s = d;
			}
		}
	}
	if (found != NULL && side != NULL)
		*side = s;
	return found;
}
