/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Requests and their responses per flow: ACK coverage, request-to-ACK and
 * READ request-to-response times, and QP pairing (CM REQ/REP, traffic).
 */
#include "rk_insp_qp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rk_psn.h"

struct rk_insp_cm_req {
	uint8_t src[16], dst[16];
	uint32_t comm_id;
	uint32_t qpn;
};

struct rk_insp_cm_peer {
	struct rk_insp_flow_key key;
	uint32_t qpn;
};

/* A request table entry (rk_insp_qp.h): PSN, held, ns after the base. */
#define REQ_PSN 0xffffffull
#define REQ_HELD (1ull << 24)
#define REQ_OFF_SHIFT 25
#define REQ_OFF_MAX (RK_INSP_QP_REQ_SPAN_NS - 1)

/* A zeroed block of @p n entries of @p size bytes for flow @p q. */
static void *
table_new(struct rk_insp_qp *q, unsigned int n, size_t size)
{
	return q->pool != NULL ? rk_insp_pool_alloc(q->pool, n * size) : calloc(n, size);
}

static void
table_free(struct rk_insp_qp *q, void *t, unsigned int n, size_t size)
{
	if (q->pool != NULL)
		rk_insp_pool_free(q->pool, t, n * size);
	else
		free(t);
}

void
rk_insp_qp_fini(struct rk_insp_qp *q)
{
	if (q->req != NULL)
		table_free(q, q->req, q->req_size, sizeof(*q->req));
	if (q->req_frames != NULL)
		table_free(q, q->req_frames, q->req_size, sizeof(*q->req_frames));
	if (q->rd != NULL)
		table_free(q, q->rd, RK_INSP_QP_READ_RING, sizeof(*q->rd));
	q->req = NULL;
	q->req_frames = NULL;
	q->rd = NULL;
	q->req_size = q->req_n = q->rd_head = q->rd_n = 0;
}

static void
ring_add(struct rk_insp_qp_req *ring, unsigned int size, unsigned int *head, unsigned int *n,
	 uint32_t psn, uint32_t frame, uint64_t ts_ns)
{
	ring[*head] = (struct rk_insp_qp_req){ .psn = psn, .frame = frame, .ts_ns = ts_ns };
	*head = (*head + 1) % size;
	if (*n < size)
		(*n)++;
}

/* A copy of table @p t of @p n entries of @p size bytes in both halves of a new one. */
static void *
table_twice(struct rk_insp_qp *q, void *t, unsigned int n, size_t size)
{
	char *d = table_new(q, n ? 2 * n : RK_INSP_QP_REQ_MIN, size);

	if (d != NULL && t != NULL) {
		memcpy(d, t, n * size);
		memcpy(d + n * size, t, n * size);
	}
	return d;
}

/*
 * Twice the entries. The entry of PSN p sits at p mod size; at twice the
 * size it belongs at the same index or that index plus the old size, so
 * the old table copied into both halves holds every entry at its place,
 * and the copy at the other place is no entry of the PSNs that map there
 * (req_home() tells them apart): no rehash, two block copies.
 */
static bool
req_grow(struct rk_insp_qp *q)
{
	uint64_t *t = table_twice(q, q->req, q->req_size, sizeof(*t));
	uint32_t *f = NULL;

	if (t == NULL)
		return false;
	if (!q->no_frames &&
	    (f = table_twice(q, q->req_frames, q->req_size, sizeof(*f))) == NULL) {
		table_free(q, t, q->req_size ? 2 * q->req_size : RK_INSP_QP_REQ_MIN, sizeof(*t));
		return false;
	}
	if (q->req != NULL)
		table_free(q, q->req, q->req_size, sizeof(*q->req));
	if (q->req_frames != NULL)
		table_free(q, q->req_frames, q->req_size, sizeof(*q->req_frames));
	q->req = t;
	q->req_frames = f;
	q->req_size = q->req_size ? 2 * q->req_size : RK_INSP_QP_REQ_MIN;
	return true;
}

/* Whether entry @p e, at index @p i, is a request's (not empty, not a copy left by req_grow()). */
static inline bool
req_home(const struct rk_insp_qp *q, uint64_t e, unsigned int i)
{
	return (e & REQ_HELD) && (e & (q->req_size - 1)) == i;
}

/* The time of the request in entry @p e. */
static inline uint64_t
req_ts(const struct rk_insp_qp *q, uint64_t e)
{
	return q->req_base_ns + (e >> REQ_OFF_SHIFT);
}

/*
 * Time @p ts_ns lies outside the table's span: centre the span on it,
 * forgetting the requests it leaves out. Half a span each way keeps
 * timestamps running backwards (a hostile capture) from moving the base
 * at every request.
 */
static void
req_rebase(struct rk_insp_qp *q, uint64_t ts_ns)
{
	uint64_t base = ts_ns > REQ_OFF_MAX / 2 ? ts_ns - REQ_OFF_MAX / 2 : 0;

	for (unsigned int i = 0; i < q->req_size; i++) {
		uint64_t e = q->req[i], t;

		if (!req_home(q, e, i)) {
			q->req[i] = 0;
			continue;
		}
		t = req_ts(q, e);
		if (t < base || t - base > REQ_OFF_MAX) {
			q->req[i] = 0;
			q->req_n--;
		} else {
			q->req[i] = (e & (REQ_PSN | REQ_HELD)) | (t - base) << REQ_OFF_SHIFT;
		}
	}
	q->req_base_ns = base;
}

/* Not yet covered by a response: pushing it out would lose its RTT. */
static bool
req_unacked(const struct rk_insp_qp *q, uint32_t psn)
{
	return !q->acked_valid || rk_psn_diff(psn, q->acked) > 0;
}

static void
req_add(struct rk_insp_qp *q, uint32_t psn, uint32_t frame, uint64_t ts_ns)
{
	unsigned int i;

	if (q->req == NULL) {
		if (!req_grow(q))
			return;
		q->req_first = psn;
		q->req_base_ns = ts_ns;
	}
	if (ts_ns < q->req_base_ns || ts_ns - q->req_base_ns > REQ_OFF_MAX)
		req_rebase(q, ts_ns);
	i = psn & (q->req_size - 1);
	while (req_home(q, q->req[i], i) && (q->req[i] & REQ_PSN) != psn &&
	       req_unacked(q, q->req[i] & REQ_PSN) && q->req_size < RK_INSP_QP_REQ_RING &&
	       req_grow(q))
		i = psn & (q->req_size - 1);
	q->req_n += !req_home(q, q->req[i], i);
	q->req[i] = psn | REQ_HELD | (ts_ns - q->req_base_ns) << REQ_OFF_SHIFT;
	if (q->req_frames != NULL)
		q->req_frames[i] = frame;
}

/* The index of the request with PSN @p psn, or -1. */
static int
req_find(const struct rk_insp_qp *q, uint32_t psn)
{
	unsigned int i;

	if (q->req == NULL)
		return -1;
	i = psn & (q->req_size - 1);
	return (q->req[i] & (REQ_PSN | REQ_HELD)) == (psn | REQ_HELD) ? (int)i : -1;
}

/* The newest entry of @p ring with PSN @p psn, or NULL. */
static const struct rk_insp_qp_req *
ring_find(const struct rk_insp_qp_req *ring, unsigned int size, unsigned int head,
	  unsigned int n, uint32_t psn)
{
	for (unsigned int j = 0; j < n; j++) {
		unsigned int k = (head + size - 1 - j) % size;

		if (ring[k].psn == psn)
			return &ring[k];
	}
	return NULL;
}

void
rk_insp_qp_request(struct rk_insp_qp *q, uint32_t psn, uint32_t frame, uint64_t ts_ns, bool read)
{
	req_add(q, psn & REQ_PSN, frame, ts_ns);
	if (read && (q->rd != NULL || (q->rd = table_new(q, RK_INSP_QP_READ_RING, sizeof(*q->rd)))))
		ring_add(q->rd, RK_INSP_QP_READ_RING, &q->rd_head, &q->rd_n, psn, frame, ts_ns);
}

bool
rk_insp_qp_sent(const struct rk_insp_qp *q, uint32_t psn)
{
	return req_find(q, psn) >= 0;
}

void
rk_insp_qp_ack(struct rk_insp_qp *req, uint32_t psn, bool nak, uint64_t ts_ns,
	       struct rk_insp_qp_ack *out)
{
	uint32_t last = nak ? rk_psn_sub(psn, 1) : psn;
	uint32_t first;
	int32_t span;

	memset(out, 0, sizeof(*out));
	if (req->acked_valid)
		first = rk_psn_add(req->acked, 1);
	else
		first = req->req_n != 0 ? req->req_first : last;
	span = rk_psn_diff(last, first);
	out->first = first;
	out->last = last;
	out->count = span >= 0 ? (uint32_t)span + 1 : 0;
	/* A stale ACK (behind the last one) moves nothing back. */
	if (span >= 0 || !req->acked_valid) {
		req->acked = last;
		req->acked_valid = true;
	}
	if (!nak) {
		int i = req_find(req, psn);

		if (i >= 0) {
			uint64_t sent = req_ts(req, req->req[i]);

			out->timed = true;
			out->req_frame = req->req_frames != NULL ? req->req_frames[i] : 0;
			out->rtt_ns = ts_ns >= sent ? ts_ns - sent : 0;
		}
	}
}

bool
rk_insp_qp_read_response(struct rk_insp_qp *req, uint32_t psn, uint64_t ts_ns,
			 uint32_t *req_frame, uint64_t *rt_ns)
{
	const struct rk_insp_qp_req *rq = req->rd == NULL ? NULL :
		ring_find(req->rd, RK_INSP_QP_READ_RING, req->rd_head, req->rd_n, psn);

	if (rq != NULL) {
		*req_frame = rq->frame;
		*rt_ns = ts_ns >= rq->ts_ns ? ts_ns - rq->ts_ns : 0;
	}
	if (!req->acked_valid || rk_psn_diff(psn, req->acked) > 0) {
		req->acked = psn;
		req->acked_valid = true;
	}
	return rq != NULL;
}

void
rk_insp_qp_pair(struct rk_insp_qp *a, struct rk_insp_qp *b, enum rk_insp_peer_src src)
{
	if (a->peer != NULL && a->peer_src >= src)
		return;
	a->peer = b;
	b->peer = a;
	a->peer_src = b->peer_src = (uint8_t)src;
}

int
rk_insp_qp_match(struct rk_insp_qp *resp, const struct rk_insp_qp_cand *cand, unsigned int n,
		 uint32_t psn, const uint32_t *cm_qpn)
{
	int best = -1;

	/* The CM's word first, over every candidate; then the PSN. */
	for (unsigned int i = 0; cm_qpn != NULL && i < n; i++) {
		struct rk_insp_qp *q = cand[i].qp;

		if ((q->peer == NULL || q->peer == resp) && cand[i].dest_qp == *cm_qpn) {
			rk_insp_qp_pair(q, resp, RK_INSP_PEER_CM);
			return (int)i;
		}
	}
	for (unsigned int i = 0; i < n && best < 0; i++) {
		struct rk_insp_qp *q = cand[i].qp;

		if ((q->peer == NULL || q->peer == resp) && rk_insp_qp_sent(q, psn))
			best = (int)i;
	}
	/* One flow the other way: it is the one, once it sent a request. */
	if (best < 0 && n == 1 && cand[0].qp->peer == NULL && cand[0].qp->req_n != 0)
		best = 0;
	if (best >= 0)
		rk_insp_qp_pair(cand[best].qp, resp, RK_INSP_PEER_TRAFFIC);
	return best;
}

void
rk_insp_cm_init(struct rk_insp_cm *cm)
{
	memset(cm, 0, sizeof(*cm));
}

void
rk_insp_cm_fini(struct rk_insp_cm *cm)
{
	free(cm->req);
	free(cm->peer);
	memset(cm, 0, sizeof(*cm));
}

/* Room for one more of @p n entries of @p size bytes in @p *arr; false out of memory. */
static bool
room(void **arr, unsigned int n, unsigned int *cap, size_t size)
{
	unsigned int c;
	void *p;

	if (n < *cap)
		return true;
	c = *cap ? *cap * 2 : 8;
	p = realloc(*arr, (size_t)c * size);
	if (p == NULL)
		return false;
	*arr = p;
	*cap = c;
	return true;
}

int
rk_insp_cm_req(struct rk_insp_cm *cm, const uint8_t src[16], const uint8_t dst[16],
	       uint32_t comm_id, uint32_t qpn)
{
	struct rk_insp_cm_req *rq = NULL;

	for (unsigned int i = 0; i < cm->nreq; i++)
		if (cm->req[i].comm_id == comm_id)
			rq = &cm->req[i];
	if (rq == NULL) {
		if (cm->nreq == RK_INSP_CM_MAX) {
			memmove(cm->req, cm->req + 1, (cm->nreq - 1) * sizeof(*cm->req));
			cm->nreq--;
		}
		if (!room((void **)&cm->req, cm->nreq, &cm->req_cap, sizeof(*cm->req)))
			return -ENOMEM;
		rq = &cm->req[cm->nreq++];
	}
	memcpy(rq->src, src, 16);
	memcpy(rq->dst, dst, 16);
	rq->comm_id = comm_id;
	rq->qpn = qpn;
	return 0;
}

static int
peer_set(struct rk_insp_cm *cm, const struct rk_insp_flow_key *k, uint32_t qpn)
{
	for (unsigned int i = 0; i < cm->npeer; i++) {
		if (memcmp(&cm->peer[i].key, k, sizeof(*k)) == 0) {
			cm->peer[i].qpn = qpn;
			return 0;
		}
	}
	if (!room((void **)&cm->peer, cm->npeer, &cm->peer_cap, sizeof(*cm->peer)))
		return -ENOMEM;
	cm->peer[cm->npeer].key = *k;
	cm->peer[cm->npeer].qpn = qpn;
	cm->npeer++;
	return 0;
}

int
rk_insp_cm_rep(struct rk_insp_cm *cm, uint32_t remote_comm_id, uint32_t qpn, uint8_t kind)
{
	const struct rk_insp_cm_req *rq = NULL;
	struct rk_insp_flow_key k;
	int rc;

	for (unsigned int i = 0; i < cm->nreq; i++)
		if (cm->req[i].comm_id == remote_comm_id)
			rq = &cm->req[i];
	if (rq == NULL)
		return -ENOENT;
	/* Requester -> responder traffic goes to the REP's QPN. */
	memset(&k, 0, sizeof(k));
	memcpy(k.src, rq->src, 16);
	memcpy(k.dst, rq->dst, 16);
	k.dest_qp = qpn;
	k.kind = kind;
	rc = peer_set(cm, &k, rq->qpn);
	if (rc != 0)
		return rc;
	memcpy(k.src, rq->dst, 16);
	memcpy(k.dst, rq->src, 16);
	k.dest_qp = rq->qpn;
	return peer_set(cm, &k, qpn);
}

bool
rk_insp_cm_peer(const struct rk_insp_cm *cm, const struct rk_insp_flow_key *key, uint32_t *qpn)
{
	struct rk_insp_flow_key k;

	/* CM pairs are learnt with IP addresses (RoCE): never for LIDs. */
	if (key->lid)
		return false;
	memset(&k, 0, sizeof(k));
	memcpy(k.src, key->src, 16);
	memcpy(k.dst, key->dst, 16);
	k.dest_qp = key->dest_qp;
	k.kind = key->kind;
	for (unsigned int i = 0; i < cm->npeer; i++) {
		if (memcmp(&cm->peer[i].key, &k, sizeof(k)) == 0) {
			*qpn = cm->peer[i].qpn;
			return true;
		}
	}
	return false;
}
