/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device, PD, MR, CQ and SRQ tables; frame dispatch; the transmit
 * scheduler and the timer wheel (a scan: QP counts are small).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rk_ib_internal.h"
#include "rk_ib_mutant.h"
#include "rk_ipv4.h"


#define DEFAULT_MAX_QP 64
#define DEFAULT_MAX_MR 1024
#define MAX_MR_LIMIT 65536
#define DEFAULT_WINDOW 256
#define DEFAULT_ACKREQ_EVERY 16

static uint64_t
splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint16_t
feistel_f(uint64_t k, uint16_t x)
{
	uint64_t z = k ^ ((uint64_t)x * 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 29)) * 0xbf58476d1ce4e5b9ull;
	return (uint16_t)(z >> 40);
}

/*
 * Keys are a 4-round Feistel permutation, keyed by the device secret, of
 * (table slot << 16 | random tag): lookup inverts it to find the slot, and
 * without the secret one key predicts nothing about another.
 */
static uint32_t
key_encode(const struct rk_ib_dev *dev, uint32_t plain)
{
	uint16_t l = (uint16_t)(plain >> 16), r = (uint16_t)plain;

	for (int i = 0; i < 4; i++) {
		uint16_t t = r;

		r = l ^ feistel_f(dev->key_k[i], r);
		l = t;
	}
	return (uint32_t)l << 16 | r;
}

static uint32_t
key_decode(const struct rk_ib_dev *dev, uint32_t key)
{
	uint16_t l = (uint16_t)(key >> 16), r = (uint16_t)key;

	for (int i = 3; i >= 0; i--) {
		uint16_t t = l;

		l = r ^ feistel_f(dev->key_k[i], l);
		r = t;
	}
	return (uint32_t)l << 16 | r;
}

/*
 * RoCE names a region twice: an L_Key and an R_Key, each the key_encode()
 * of its slot and a fresh random tag (the two tags differ).
 */
static void
ib_name_mr(struct rk_res *res, struct rk_res_mr *r)
{
	struct rk_ib_dev *dev = rk_res_container_of(res, struct rk_ib_dev, res);
	struct rk_ib_mr *mr = rk_res_container_of(r, struct rk_ib_mr, res);
	uint16_t ltag, rtag;

	do {
		uint64_t x = splitmix64(&dev->rng);

		ltag = (uint16_t)x;
		rtag = (uint16_t)(x >> 16);
	} while (ltag == rtag);
	mr->lkey = key_encode(dev, r->slot << 16 | ltag);
	mr->rkey = key_encode(dev, r->slot << 16 | rtag);
	mr->rkey_valid = true;
}

/* Slots from 0, lowest free first: a slot is 16 bits of each key. */
static const struct rk_res_class ib_res_class = {
	RK_RES_LAYOUT(struct rk_ib_pd, struct rk_ib_mr, struct rk_ib_cq),
	.mr_access = RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE | RK_ACCESS_REMOTE_READ |
		     RK_ACCESS_REMOTE_ATOMIC | RK_ACCESS_REMOTE_INVALIDATE,
	.first_slot = 0,
	.rotate = false,
	.name_mr = ib_name_mr,
};

struct rk_ib_dev *
rk_ib_dev_create(const struct rk_ib_dev_attr *attr)
{
	struct rk_ib_dev *dev;

	if (attr == NULL || (attr->ip_version != 0 && attr->ip_version != 4 &&
			     attr->ip_version != 6) || attr->max_mr > MAX_MR_LIMIT ||
	    attr->max_qp > 0xffff) {
		errno = EINVAL;
		return NULL;
	}
	dev = calloc(1, sizeof(*dev));
	if (dev == NULL)
		return NULL;
	dev->attr = *attr;
	if (dev->attr.ip_version == 0)
		dev->attr.ip_version = 4;
	dev->max_qp = attr->max_qp ? attr->max_qp : DEFAULT_MAX_QP;
	if (dev->attr.max_inflight_pkts == 0)
		dev->attr.max_inflight_pkts = DEFAULT_WINDOW;
	if (dev->attr.max_inflight_pkts > (1u << 22))
		dev->attr.max_inflight_pkts = 1u << 22;
	if (dev->attr.active_mtu == 0 || rk_ib_mtu_bytes(dev->attr.active_mtu) == 0)
		dev->attr.active_mtu = RK_MTU_4096;
	if (dev->attr.ackreq_every == 0)
		dev->attr.ackreq_every = DEFAULT_ACKREQ_EVERY;
	dev->rng = attr->key_seed ^ 0x5851f42d4c957f2dull;
	for (int i = 0; i < 4; i++)
		dev->key_k[i] = splitmix64(&dev->rng);
	dev->qp = calloc(dev->max_qp, sizeof(*dev->qp));
	dev->live = calloc(dev->max_qp, sizeof(*dev->live));
	if (rk_res_init(&dev->res, &ib_res_class,
			attr->max_mr ? attr->max_mr : DEFAULT_MAX_MR) != 0 ||
	    dev->qp == NULL || dev->live == NULL) {
		rk_res_fini(&dev->res);
		free(dev->qp);
		free(dev->live);
		free(dev);
		errno = ENOMEM;
		return NULL;
	}
	return dev;
}

void
rk_ib_dev_destroy(struct rk_ib_dev *dev)
{
	if (dev == NULL)
		return;
	for (uint32_t i = 0; i < dev->max_qp; i++) {
		struct rk_ib_qp *qp = dev->qp[i];

		if (qp == NULL)
			continue;
		/* Congestion control's state too (a QP still open at the end). */
		if (qp->cc != NULL)
			qp->cc->fini(qp);
		if (qp->lr->fini != NULL)
			qp->lr->fini(qp);
		free(qp->sq);
		free(qp->rq.ring);
		free(qp->inline_buf);
		free(qp->res);
		free(qp);
	}
	while (dev->srqs != NULL) {
		struct rk_ib_srq *srq = dev->srqs;

		dev->srqs = srq->next;
		free(srq->rq.ring);
		free(srq);
	}
	rk_res_fini(&dev->res);
	free(dev->qp);
	free(dev->live);
	free(dev);
}

const struct rk_ib_stats *
rk_ib_dev_stats(const struct rk_ib_dev *dev)
{
	return &dev->stats;
}

const struct rk_ib_stats *
rk_ib_qp_stats(const struct rk_ib_qp *qp)
{
	return &qp->stats;
}

void
rk_ib_trace(const struct rk_ib_qp *qp, const char *machine, const char *from, const char *to)
{
	if (qp->dev->attr.trace != NULL)
		qp->dev->attr.trace(qp->dev->attr.trace_ctx, qp, machine, from, to);
}

/* -------------------------------------------------------------- PD, MR, CQ */

/*
 * rk_ib_pd_alloc, rk_ib_pd_free, rk_ib_mr_reg, rk_ib_mr_dereg,
 * rk_ib_cq_create, rk_ib_cq_destroy and rk_ib_cq_poll: the table's calls.
 * rk_ib_mr_dereg clears the slot at once, so the L_Key and R_Key stop
 * resolving: every path resolves keys per use (no cached host address),
 * hence no packet after it touches the region.
 */
RK_RES_CALLS(rk_ib, struct rk_ib_dev, struct rk_ib_pd, struct rk_ib_mr, struct rk_ib_cq)

void
rk_ib_pd_hold(struct rk_ib_pd *pd)
{
	pd->res.obj.refs++;
}

void
rk_ib_pd_release(struct rk_ib_pd *pd)
{
	if (pd->res.obj.refs > 0)
		pd->res.obj.refs--;
}

uint32_t
rk_ib_mr_lkey(const struct rk_ib_mr *mr)
{
	return mr->lkey;
}

uint32_t
rk_ib_mr_rkey(const struct rk_ib_mr *mr)
{
	return mr->rkey;
}

/*
 * key_decode() is a pure function of the key (and the device secret):
 * remember the last inversion per kind. Only the arithmetic is saved; the
 * table is still read on every use, so deregistration takes effect at once.
 */
static uint32_t
key_slot(struct rk_ib_dev *dev, uint32_t key, int kind)
{
	if (!dev->kc_valid[kind] || dev->kc_key[kind] != key) {
		dev->kc_key[kind] = key;
		dev->kc_slot[kind] = key_decode(dev, key) >> 16;
		dev->kc_valid[kind] = true;
	}
	return dev->kc_slot[kind];
}

struct rk_ib_mr *
rk_ib_mr_by_rkey(struct rk_ib_dev *dev, uint32_t rkey)
{
	struct rk_ib_mr *mr = rk_res_mr_at(&dev->res, key_slot(dev, rkey, 1));

	return mr != NULL && mr->rkey == rkey ? mr : NULL;
}

struct rk_ib_mr *
rk_ib_mr_by_lkey(struct rk_ib_dev *dev, uint32_t lkey)
{
	struct rk_ib_mr *mr = rk_res_mr_at(&dev->res, key_slot(dev, lkey, 0));

	return mr != NULL && mr->lkey == lkey ? mr : NULL;
}

uint8_t *
rk_ib_sge_ptr(struct rk_ib_qp *qp, const struct rk_sge *sge, uint32_t off, uint32_t len,
	      unsigned int need)
{
	struct rk_ib_mr *mr = rk_ib_mr_by_lkey(qp->dev, sge->lkey);

	if (mr == NULL || mr->pd != qp->pd || (mr->res.access & need) != need ||
	    off > sge->length || len > sge->length - off)
		return NULL;
	return mr_range(mr, sge->addr + off, len);
}

bool
rk_ib_sge_scatter(struct rk_ib_qp *qp, const struct rk_sge *sge, uint32_t nsge, uint32_t off,
		  const uint8_t *src, uint32_t len)
{
	for (uint32_t i = 0; len > 0 && i < nsge; i++) {
		uint32_t n;
		uint8_t *dst;

		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		n = sge[i].length - off < len ? sge[i].length - off : len;
		dst = rk_ib_sge_ptr(qp, &sge[i], off, n, RK_ACCESS_LOCAL_WRITE);
		if (dst == NULL)
			return false;
		memcpy(dst, src, n);
		src += n;
		len -= n;
		off = 0;
	}
	return true;
}

bool
rk_ib_cq_push(struct rk_ib_cq *cq, const struct rk_wc *wc)
{
	return rk_wc_ring_push(&cq->res.ring, wc);
}

uint32_t
rk_ib_cq_count(const struct rk_ib_cq *cq)
{
	return cq != NULL ? rk_wc_ring_count(&cq->res.ring) : 0;
}

/* ------------------------------------------------------------------- SRQ */

struct rk_ib_srq *
rk_ib_srq_create(struct rk_ib_pd *pd, uint32_t max_wr, uint32_t max_sge)
{
	struct rk_ib_srq *srq;

	if (pd == NULL || max_wr == 0 || max_wr > (1u << 16) || max_sge > RK_IB_MAX_SGE) {
		errno = EINVAL;
		return NULL;
	}
	srq = calloc(1, sizeof(*srq));
	if (srq == NULL)
		return NULL;
	srq->rq.max_sge = max_sge ? max_sge : 1;
	srq->rq.stride = rq_slot_size(srq->rq.max_sge);
	srq->rq.ring = calloc(max_wr, srq->rq.stride);
	if (srq->rq.ring == NULL) {
		free(srq);
		errno = ENOMEM;
		return NULL;
	}
	srq->dev = pd->dev;
	srq->pd = pd;
	srq->rq.depth = max_wr;
	srq->next = pd->dev->srqs;
	pd->dev->srqs = srq;
	pd->res.obj.refs++;
	return srq;
}

int
rk_ib_srq_destroy(struct rk_ib_srq *srq)
{
	if (srq == NULL)
		return -EINVAL;
	if (srq->refs != 0)
		return -EBUSY;
	srq->pd->res.obj.refs--;
	RK_LIST_UNLINK(struct rk_ib_srq, srq->dev->srqs, srq);
	free(srq->rq.ring);
	free(srq);
	return 0;
}

/* -------------------------------------------------------------- datapath */

static bool
pkey_match(uint16_t a, uint16_t b)
{
	/* Same partition, and at least one full member (IBTA Vol1 ch. 10 partitioning). */
	return (a & 0x7fff) == (b & 0x7fff) && ((a | b) & 0x8000);
}

/*
 * Connected service: only the QP's peer may talk to it (IBTA Vol1 ch. 9 source
 * checks for RC/UC; rxe check_addr): the source IP must be the
 * AV's destination and the destination IP ours (the AV's source when it
 * names one). MACs are not compared: a
 * routed peer's frames carry a router's MAC.
 */
static bool
from_peer(const struct rk_ib_dev *dev, const struct rk_ib_qp *qp, const struct rk_pkt *pkt)
{
	const uint8_t *ip = pkt->frame + pkt->l3_off;
	const uint8_t *dip = qp->attr.ah_attr.dip;
	const uint8_t *mine = rk_ib_src_ip(dev, &qp->attr.ah_attr);

	if (pkt->ip_version != dev->attr.ip_version)
		return false;
	if (pkt->ip_version == 4)
		return memcmp(ip + 12, dip + 12, 4) == 0 && memcmp(ip + 16, mine + 12, 4) == 0;
	return memcmp(ip + 8, dip, 16) == 0 && memcmp(ip + 24, mine, 16) == 0;
}

static struct rk_ib_qp *
qp_lookup(struct rk_ib_dev *dev, uint32_t qpn)
{
	if (qpn < RK_IB_QPN_BASE || qpn - RK_IB_QPN_BASE >= dev->max_qp)
		return NULL;
	return dev->qp[qpn - RK_IB_QPN_BASE];
}

int
rk_ib_rx(struct rk_ib_dev *dev, const struct rk_pkt *pkt, uint64_t now_ns)
{
	const uint8_t *bth;
	struct rk_ib_qp *qp;
	uint8_t tr;

	if (dev == NULL || pkt == NULL)
		return -EINVAL;
	dev->stats.rx_frames++;
	/* Nothing below runs unless every header of the opcode was captured. */
	if (pkt->kind != RK_PKT_ROCEV2 || !rk_pkt_has_bth(pkt) || pkt->truncated ||
	    pkt->op == NULL || pkt->icrc_off == 0 ||
	    (uint64_t)pkt->icrc_off + RK_ICRC_LEN > pkt->caplen ||
	    ((pkt->op->flags & RK_OPF_VALID) &&
	     (uint64_t)pkt->bth_off + pkt->op->hdr_len > pkt->icrc_off) ||
	    (uint64_t)pkt->bth_off + RK_BTH_LEN > pkt->icrc_off) {
		dev->stats.rx_drop_malformed++;
		return 0;
	}
	if ((pkt->icrc_status == RK_ICRC_BAD && !RK_IB_MUTANT(RK_IB_MUT_KEEP_BAD_ICRC)) ||
	    (pkt->icrc_status == RK_ICRC_NOT_CHECKED && !dev->attr.accept_unchecked_icrc)) {
		dev->stats.rx_drop_icrc++;
		return 0;
	}
	bth = rk_pkt_bth(pkt);
	if (pkt->opcode == RK_OP_CNP) {
		/* For the RP of a QP running congestion control (Annex A17.9.3). */
		qp = qp_lookup(dev, rk_bth_dest_qp(bth));
		if (rk_bth_tver(bth) == 0 && qp != NULL && qp->cc != NULL &&
		    pkey_match(rk_bth_p_key(bth), qp->p_key) &&
		    (qp->type == RK_QPT_UD || from_peer(dev, qp, pkt))) {
			qp->stats.rx_frames++;
			qp->cc->on_cnp(qp, now_ns);
			return 0;
		}
		dev->stats.rx_drop_malformed++;
		return 0;
	}
	if (rk_bth_tver(bth) != 0 && !RK_IB_MUTANT(RK_IB_MUT_ANY_TVER)) {
		dev->stats.rx_drop_malformed++;
		return 0;
	}
	qp = qp_lookup(dev, rk_bth_dest_qp(bth));
	if (qp == NULL || (!pkey_match(rk_bth_p_key(bth), qp->p_key) &&
			   !RK_IB_MUTANT(RK_IB_MUT_ANY_PKEY))) {
		dev->stats.rx_drop_qp++;
		return 0;
	}
	tr = (uint8_t)rk_opcode_transport(pkt->opcode);
	if ((qp->type == RK_QPT_RC && tr != RK_TR_RC) ||
	    (qp->type == RK_QPT_UC && tr != RK_TR_UC) ||
	    (qp->type == RK_QPT_UD && tr != RK_TR_UD)) {
		dev->stats.rx_drop_qp++;
		return 0;
	}
	qp->stats.rx_frames++;
	if (qp->state == RK_QPS_RESET || qp->state == RK_QPS_INIT ||
	    qp->state == RK_QPS_ERR) {
		RK_QP_COUNT(qp, rx_drop_state);
		return 0;
	}
	if (qp->type != RK_QPT_UD && !from_peer(dev, qp, pkt)) {
		RK_QP_COUNT(qp, rx_drop_addr);
		return 0;
	}
	if ((pkt->op->flags & RK_OPF_VALID) && (pkt->op->flags & RK_OPF_RESP)) {
		if (qp->type != RK_QPT_RC || qp->state == RK_QPS_RTR) {
			RK_QP_COUNT(qp, rx_drop_state);
			return 0;
		}
		/* NP for READ: the responses are the data, the requester receives
		 * them, and its CNP paces the responder (Annex A17.9.2). */
		if (qp->cc != NULL && (pkt->op->flags & RK_OPF_READ_RESP) &&
		    qp->cc->on_rx_ecn(qp, pkt->ecn, now_ns))
			qp->cnp_owed = true;
		rk_comp_rx(qp, pkt, now_ns);
	} else {
		/* NP: a CE-marked request owes the sender a CNP (Annex A17.9.2). */
		uint8_t ecn = RK_IB_MUTANT(RK_IB_MUT_FECN_AS_CE) &&
			      rk_bth_fecn(pkt->frame + pkt->bth_off) ? RK_ECN_CE : pkt->ecn;

		if (qp->cc != NULL && qp->cc->on_rx_ecn(qp, ecn, now_ns))
			qp->cnp_owed = true;
		rk_resp_rx(qp, pkt, now_ns);
	}
	return 0;
}

/* Frames one QP may emit per round before the next QP's turn. */
#define TX_BURST 16

unsigned int
rk_ib_poll_tx(struct rk_ib_dev *dev, uint64_t now_ns, rk_ib_emit_fn emit, void *ctx,
	      unsigned int budget)
{
	return rk_ib_poll_tx_into(dev, now_ns, NULL, emit, ctx, budget);
}

unsigned int
rk_ib_poll_tx_into(struct rk_ib_dev *dev, uint64_t now_ns, rk_ib_frame_fn frame,
		   rk_ib_emit_fn emit, void *ctx, unsigned int budget)
{
	return rk_ib_poll_tx_sg(dev, now_ns, frame, emit, NULL, ctx, budget);
}

unsigned int
rk_ib_poll_tx_sg(struct rk_ib_dev *dev, uint64_t now_ns, rk_ib_frame_fn frame,
		 rk_ib_emit_fn emit, rk_ib_emit_sg_fn emit_sg, void *ctx, unsigned int budget)
{
	uint8_t *f = NULL;
	unsigned int n = 0;

	if (dev == NULL || emit == NULL)
		return 0;
	dev->sg_allowed = emit_sg != NULL;
	if (dev->attr.tx_rate_bps != 0) {
		if (now_ns < dev->tx_next_ns)
			return 0;
		budget = 1;             /* one frame per serialisation time */
	}
	/* Round robin, TX_BURST frames a turn; another pass only if a QP had more. */
	for (bool more = true; more && n < budget;) {
		uint32_t i = dev->tx_rr;

		more = false;
		if (i >= dev->nlive)
			i = 0;
		for (uint32_t k = 0; k < dev->nlive && n < budget; k++, i++) {
			struct rk_ib_qp *qp;
			unsigned int b = 0;

			if (i == dev->nlive)
				i = 0;
			qp = dev->live[i];
			for (; b < TX_BURST && n < budget; b++) {
				bool cnp = qp->cnp_owed;
				bool resp = !cnp && rk_resp_ready(qp, now_ns);
				struct sq_wqe *w = resp || cnp ? NULL : rk_req_next(qp, now_ns);
				int len = 0;

				/* Nothing owed: borrow no buffer from the backend. */
				if (!cnp && !resp && w == NULL)
					break;
				if (f == NULL && (frame == NULL || (f = frame(ctx)) == NULL))
					f = dev->txbuf;
				dev->sg_used = false;
				if (cnp) {
					qp->cnp_owed = false;
					len = qp->cc->build_cnp(qp, f);
					if (len > 0)
						RK_QP_COUNT(qp, np_cnp_sent);
				} else if (resp)
					len = rk_resp_emit_owed(qp, now_ns, f);
				if (len <= 0 && !cnp)
					len = w != NULL ? rk_req_emit_wqe(qp, w, now_ns, f) :
							  rk_req_emit(qp, now_ns, f);
				if (len <= 0)
					break;
				RK_QP_COUNT(qp, tx_frames);
				if (dev->attr.tx_rate_bps != 0)
					dev->tx_next_ns = now_ns + (uint64_t)len * 8 *
							  1000000000ull / dev->attr.tx_rate_bps;
				if (dev->sg_used)
					emit_sg(ctx, f, (uint32_t)len - dev->sg_len - dev->sg_trailer_len,
						dev->sg_payload, dev->sg_len, dev->sg_trailer,
						dev->sg_trailer_len);
				else
					emit(ctx, f, (uint32_t)len);
				f = NULL;       /* the buffer is the caller's again */
				n++;
			}
			if (b == TX_BURST)
				more = true;
		}
		dev->tx_rr = dev->tx_rr + 1 < dev->nlive ? dev->tx_rr + 1 : 0;
	}
	dev->sg_allowed = false;
	dev->sg_used = false;
	return n;
}

bool
rk_ib_tx_pending(const struct rk_ib_dev *dev, uint64_t now_ns)
{
	if (dev->attr.tx_rate_bps != 0 && now_ns < dev->tx_next_ns)
		return false;
	for (uint32_t i = 0; i < dev->nlive; i++) {
		const struct rk_ib_qp *qp = dev->live[i];

		if (qp->cnp_owed || rk_resp_ready(qp, now_ns) || rk_req_ready(qp, now_ns))
			return true;
	}
	return false;
}

uint64_t
rk_ib_next_timer(const struct rk_ib_dev *dev)
{
	uint64_t t = UINT64_MAX;

	for (uint32_t i = 0; i < dev->nlive; i++) {
		const struct rk_ib_qp *qp = dev->live[i];

		if (qp->state == RK_QPS_ERR || qp->state == RK_QPS_RESET)
			continue;
		if (qp->comp.timer_ns != 0 && qp->comp.timer_ns < t)
			t = qp->comp.timer_ns;
		if (qp->req.rnr_wait && qp->req.rnr_until_ns < t)
			t = qp->req.rnr_until_ns;
		if (qp->resp.ack_pending && dev->attr.ack_delay_ns != 0 &&
		    qp->resp.ack_due_ns < t)
			t = qp->resp.ack_due_ns;
		if (qp->cc != NULL) {
			uint64_t c = qp->cc->next_timer_ns(qp), s = qp->cc->next_send_ns(qp);

			if (c < t)
				t = c;
			/* Paced by congestion control: due when the pacer lets it go. */
			if (s < t && (rk_req_ready(qp, s) || rk_resp_ready(qp, s)))
				t = s;
		}
	}
	/* Paced: a frame held back only by the wire is due when it frees. */
	if (dev->attr.tx_rate_bps != 0 && dev->tx_next_ns < t &&
	    rk_ib_tx_pending(dev, dev->tx_next_ns))
		t = dev->tx_next_ns;
	return t;
}

void
rk_ib_dev_set_tx_rate(struct rk_ib_dev *dev, uint64_t bps)
{
	if (dev != NULL)
		dev->attr.tx_rate_bps = bps;
}

void
rk_ib_timers(struct rk_ib_dev *dev, uint64_t now_ns)
{
	for (uint32_t i = 0; i < dev->nlive; i++) {
		struct rk_ib_qp *qp = dev->live[i];

		if ((qp->state != RK_QPS_RTS && qp->state != RK_QPS_SQD))
			continue;
		if (qp->req.rnr_wait && now_ns >= qp->req.rnr_until_ns)
			qp->req.rnr_wait = false;
		if (qp->comp.timer_ns != 0 && now_ns >= qp->comp.timer_ns)
			rk_comp_timer(qp, now_ns);
		if (qp->cc != NULL)
			qp->cc->on_timer(qp, now_ns);
	}
}
