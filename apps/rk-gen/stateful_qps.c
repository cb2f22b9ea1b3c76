/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-gen's stateful QP set (stateful.h): resources, connection, the
 * client's round-robin over the windows, and the data checks. Verbs only:
 * the bench runs it on a backend that moves nothing.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_app_qp.h"
#include "stateful.h"

#define WC_BATCH 64
#define READ_SEED 0x80000000ull
#define LAND_OPS (RK_GEN_OP_READ | RK_GEN_OP_ATOMIC | RK_GEN_OP_CMP_SWAP)

/*
 * Completions waiting in a CQ: rk_sf_step() takes them WC_BATCH at a time
 * and rk_poll_cq() receives more only when fewer wait, so at most one
 * pass's worth arrives on top: 256 frames, each completing up to a
 * window (a coalesced ACK). The CQ need not hold every message in flight
 * (4096 QPs x 128: 28 MiB of entries).
 */
static int
cq_size(uint32_t n, uint32_t depth)
{
	uint64_t c = (uint64_t)n * depth;

	if (c > 512ull * depth)
		c = 512ull * depth;
	c += WC_BATCH;
	return (int)(c > (1u << 20) ? (1u << 20) : c);
}

static int
sf_fail(struct rk_sf *s, const char *what, int err)
{
	snprintf(s->err, sizeof(s->err), "%s: %s", what, strerror(err));
	return -1;
}

int
rk_sf_create(struct rk_sf *s, struct rk_context *ctx, const struct rk_gen_hello *cfg,
	     bool responder, struct rk_gen_hello_qp *local)
{
	const int access = RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE | RK_ACCESS_REMOTE_READ |
			   ((cfg->ops & (RK_GEN_OP_ATOMIC | RK_GEN_OP_CMP_SWAP)) ?
			    RK_ACCESS_REMOTE_ATOMIC : 0);
	struct rk_sf_layout l;
	uint32_t rq;

	memset(s, 0, sizeof(*s));
	/* a WR's id carries the QP in 16 bits */
	if (cfg->count > (1u << 16))
		return sf_fail(s, "more QPs than a WR's id numbers", EINVAL);
	s->ctx = ctx;
	s->rescan = true;
	s->cfg = *cfg;
	s->cfg.qp = NULL;
	s->responder = responder;
	s->n = cfg->count;
	rk_sf_layout(cfg, true, &s->rl);
	rk_sf_layout(cfg, false, &s->cl);
	l = responder ? s->rl : s->cl;
	rq = responder ? l.recv_slots : 0;
	s->q = calloc(s->n, sizeof(*s->q));
	s->pd = rk_alloc_pd(ctx);
	if (s->q == NULL || s->pd == NULL)
		return sf_fail(s, "cannot allocate the QP set", errno ? errno : ENOMEM);
	/* one source for all QPs' WRITEs and SENDs: each message a window of it */
	if (!responder && cfg->verify && (cfg->ops & (RK_GEN_OP_WRITE | RK_GEN_OP_SEND))) {
		s->src = malloc(rk_sf_src_len(cfg));
		if (s->src == NULL)
			return sf_fail(s, "cannot allocate the source", ENOMEM);
		rk_sf_src_fill(s->src, cfg);
		s->src_mr = rk_reg_mr(s->pd, s->src, rk_sf_src_len(cfg), RK_ACCESS_LOCAL_WRITE);
		if (s->src_mr == NULL)
			return sf_fail(s, "cannot register the source", errno);
	}
	/* one CQ for both queues: a poll of another CQ would receive behind this one's back */
	s->scq = rk_create_cq(ctx, cq_size(s->n, cfg->depth), NULL);
	s->rcq = s->scq;
	if (s->scq == NULL)
		return sf_fail(s, "cannot create the CQs", errno);
	for (uint32_t i = 0; i < s->n; i++) {
		struct rk_sf_qp *q = &s->q[i];
		struct rk_qp_init_attr ia = {
			.send_cq = s->scq, .recv_cq = s->rcq, .qp_type = RK_QPT_RC, .sq_sig_all = 1,
			.cap = { .max_send_wr = responder ? 1 : cfg->depth,
				 .max_recv_wr = rq ? rq : 1, .max_send_sge = 1, .max_recv_sge = 1 },
		};
		char what[64];

		/*
		 * Unchecked data: every QP's region is the same memory (its own
		 * MR and R_Key still), as perftest shares one buffer.
		 */
		if (!cfg->verify && s->shared == NULL)
			s->shared = malloc(l.len);
		q->buf = cfg->verify ? malloc(l.len) : s->shared;
		if (q->buf == NULL)
			return sf_fail(s, "cannot allocate the QPs' buffers", ENOMEM);
		for (uint32_t k = 0; cfg->verify && k < l.read_slots; k++)
			rk_sf_pattern(q->buf + l.read_off + (uint64_t)k * cfg->size_max,
				      cfg->size_max, i, READ_SEED + k);
		/* atomics add from 0: the k-th returns k */
		if (responder && (cfg->ops & RK_GEN_OP_ATOMIC))
			memset(q->buf + l.atomic_off, 0, 8);
		/* CMP_SWAPs start from the QP's value at k = 0 */
		if (responder && (cfg->ops & RK_GEN_OP_CMP_SWAP)) {
			uint64_t v = rk_sf_cas_value(i, 0);

			memcpy(q->buf + l.cas_off, &v, 8);
		}
		q->mr = rk_reg_mr(s->pd, q->buf, l.len, access);
		q->qp = q->mr != NULL ? rk_create_qp(s->pd, &ia) : NULL;
		if (q->qp == NULL) {
			snprintf(what, sizeof(what), "cannot create QP %u of %u", i + 1, s->n);
			return sf_fail(s, what, errno);
		}
		q->psn = (uint32_t)rk_sf_mix64(((uint64_t)i << 8) ^ (uint64_t)(uintptr_t)q) & 0xffffff;
		local[i] = (struct rk_gen_hello_qp){ .qpn = q->qp->qp_num, .psn = q->psn,
						     .rkey = q->mr->rkey,
						     .va = (uint64_t)(uintptr_t)q->buf, .len = l.len };
	}
	return 0;
}

int
rk_sf_foreign(struct rk_sf *s)
{
	s->foreign = true;
	/* one slot at offset 0 of each peer region: the peer's layout is its own */
	s->rl = (struct rk_sf_layout){ .write_slots = 1, .read_slots = 1, .len = s->cfg.size_max };
	if (!(s->cfg.ops & RK_GEN_OP_READ) || !s->cfg.verify)
		return 0;
	s->ref = malloc((uint64_t)s->n * s->cfg.size_max);
	if (s->ref == NULL)
		return sf_fail(s, "cannot allocate the READs' reference", ENOMEM);
	return 0;
}

/* Client of a foreign responder: a READ of QP i returned what its first did. */
static bool
foreign_read_ok(struct rk_sf *s, uint32_t i, const uint8_t *got, uint32_t len)
{
	uint8_t *ref = s->ref + (uint64_t)i * s->cfg.size_max;

	if (!s->q[i].ref_set) {
		memcpy(ref, got, len);
		s->q[i].ref_set = true;
		return true;
	}
	return memcmp(ref, got, len) == 0;
}

/* Responder: post QP i's k-th receive, a buffer with it if a SEND takes it. */
static int
post_recv(struct rk_sf *s, uint32_t i, uint64_t k)
{
	const struct rk_sf_layout *l = &s->rl;
	struct rk_sf_qp *q = &s->q[i];
	int64_t send = (s->cfg.ops & RK_GEN_OP_SEND) ? rk_sf_recv_send(&s->cfg, i, k) : -1;
	uint32_t slot = send < 0 ? UINT32_MAX : (uint32_t)((uint64_t)send % l->send_slots);
	struct rk_sge sge;
	struct rk_recv_wr wr = { .wr_id = ((uint64_t)i << 32) | slot }, *bad;
	int rc;

	if (send >= 0) {
		sge = (struct rk_sge){ (uint64_t)(uintptr_t)(q->buf + l->recv_off +
				       (uint64_t)slot * s->cfg.size_max), s->cfg.size_max,
				       q->mr->lkey };
		wr.sg_list = &sge;
		wr.num_sge = 1;
	}
	rc = rk_post_recv(q->qp, &wr, &bad);
	if (rc != 0) {
		snprintf(s->err, sizeof(s->err), "post_recv on QP %#x: %s", q->qp->qp_num,
			 strerror(-rc));
		return -1;
	}
	return 0;
}

int
rk_sf_connect(struct rk_sf *s, struct rk_gen_hello_qp *remote, const uint8_t dmac[6],
	      const uint8_t dip[16], uint8_t timeout, uint8_t retry_cnt)
{
	s->remote = remote;
	for (uint32_t i = 0; i < s->n; i++) {
		struct rk_sf_qp *q = &s->q[i];
		uint8_t qdip[16], qsip[16];
		struct rk_qp_attr a = { .qp_state = RK_QPS_INIT,
					.qp_access_flags = RK_ACCESS_REMOTE_WRITE |
							   RK_ACCESS_REMOTE_READ |
							   RK_ACCESS_REMOTE_ATOMIC };
		const char *state = "INIT";
		int rc = rk_modify_qp(q->qp, &a, RK_QP_STATE | RK_QP_PKEY_INDEX | RK_QP_PORT |
				      RK_QP_ACCESS_FLAGS);

		/* one port, several hosts: each QP its own pair of addresses */
		rk_sf_addr(dip, s->ndip, i, qdip);
		rk_sf_addr(s->sip, s->nsip, i, qsip);
		if (rc == 0)
			rc = rk_app_qp_connect(q->qp, &(struct rk_app_qp_path){
				.mtu = rk_mtu_from_bytes(s->cfg.mtu), .dest_qpn = remote[i].qpn,
				.rq_psn = remote[i].psn, .sq_psn = q->psn, .dmac = dmac, .dgid = qdip,
				.sgid = s->nsip ? qsip : NULL,
				.dscp = s->ndscp ? s->dscp[i % s->ndscp] : 0,
				/* only the responder is READ from: the client keeps no
				 * resources for it (768 bytes a QP) */
				.max_dest_rd_atomic = s->responder ? 16 : 0,
				.min_rnr_timer = 1, .timeout = timeout,
				.retry_cnt = retry_cnt, .rnr_retry = 7,
				.max_rd_atomic = s->max_rd_atomic ? s->max_rd_atomic : 16 }, &state);
		if (rc != 0) {
			snprintf(s->err, sizeof(s->err), "modify QP %#x to %s: %s", q->qp->qp_num,
				 state != NULL ? state : "?", strerror(-rc));
			return -1;
		}
	}
	if (!s->responder)
		return 0;
	for (uint32_t i = 0; i < s->n; i++)
		for (uint32_t k = 0; k < s->rl.recv_slots; k++)
			if (post_recv(s, i, k) != 0)
				return -1;
	return 0;
}

/* Client: where message m of QP i lands (a READ's data, an atomic's result). */
static uint8_t *
land(const struct rk_sf *s, uint32_t i, uint64_t m)
{
	return s->q[i].buf + rk_sf_ord(&s->cfg, i, m, LAND_OPS) % s->cl.land_slots *
	       s->cl.land_size;
}

/* Client: post message q->posted of QP i. */
static int
post_one(struct rk_sf *s, uint32_t i)
{
	struct rk_sf_qp *q = &s->q[i];
	uint64_t m = q->posted;
	uint8_t op = rk_sf_op(&s->cfg, i, m);
	uint32_t len = rk_sf_size(&s->cfg, i, m);
	const struct rk_sf_layout *l = &s->rl;
	bool out = op == RK_GEN_OP_WRITE || op == RK_GEN_OP_SEND;
	/* what goes out is a window of the source; unchecked, the shared buffer */
	uint8_t *data = !out ? land(s, i, m) :
			s->src != NULL ? s->src + 4ull * rk_sf_seed(i, m) : q->buf;
	struct rk_sge sge = { (uint64_t)(uintptr_t)data, len,
			      out && s->src != NULL ? s->src_mr->lkey : q->mr->lkey };
	/* the id: QP (16 bits), the message's low 16 bits, its post time (the latency's) */
	struct rk_send_wr wr = { .wr_id = ((uint64_t)i << 48) | ((m & 0xffff) << 32) |
					  (s->lat != NULL ? rk_sf_lat_post(s) : 0), .sg_list = &sge,
				 .num_sge = 1, .send_flags = RK_SEND_SIGNALED,
				 .imm_data = (uint32_t)m }, *bad;
	int rc;

	wr.wr.rdma.rkey = s->remote[i].rkey;
	if (op == RK_GEN_OP_WRITE) {
		/* a foreign responder posts no receive for an Immediate */
		wr.opcode = s->foreign ? RK_WR_RDMA_WRITE : RK_WR_RDMA_WRITE_WITH_IMM;
		wr.wr.rdma.remote_addr = s->remote[i].va + l->write_off +
					 rk_sf_ord(&s->cfg, i, m, RK_GEN_OP_WRITE) %
					 l->write_slots * s->cfg.size_max;
	} else if (op == RK_GEN_OP_READ) {
		wr.opcode = RK_WR_RDMA_READ;
		wr.wr.rdma.remote_addr = s->remote[i].va + l->read_off +
					 (m % l->read_slots) * s->cfg.size_max;
	} else if (op == RK_GEN_OP_ATOMIC) {
		wr.opcode = RK_WR_ATOMIC_FETCH_AND_ADD;
		wr.wr.atomic.remote_addr = s->remote[i].va + l->atomic_off;
		wr.wr.atomic.rkey = s->remote[i].rkey;
		wr.wr.atomic.compare_add = 1;
		sge.length = 8;
	} else if (op == RK_GEN_OP_CMP_SWAP) {
		/* RC executes in order: the k-th finds the value the k before it leave */
		wr.opcode = RK_WR_ATOMIC_CMP_AND_SWP;
		wr.wr.atomic.remote_addr = s->remote[i].va + l->cas_off;
		wr.wr.atomic.rkey = s->remote[i].rkey;
		wr.wr.atomic.compare_add = rk_sf_cas_value(i, q->cas_posted);
		wr.wr.atomic.swap = rk_sf_cas_value(i, q->cas_posted + 1);
		sge.length = 8;
	} else
		wr.opcode = RK_WR_SEND_WITH_IMM;
	rc = rk_post_send(q->qp, &wr, &bad);
	if (rc != 0) {
		snprintf(s->err, sizeof(s->err), "post_send on QP %#x: %s", q->qp->qp_num,
			 strerror(-rc));
		return -1;
	}
	if (op == RK_GEN_OP_CMP_SWAP)
		q->cas_posted++;
	q->posted++;
	q->outstanding++;
	s->outstanding++;
	return 0;
}

/* @p m: the message (the client's oldest outstanding; the responder's receive slot) */
static int
wc_failed(struct rk_sf *s, const struct rk_wc *wc, uint64_t m)
{
	/* a perftest server's QPs allow one operation within its -s bytes */
	const char *hint = !s->foreign ? "" :
			   wc->status == RK_WC_REM_ACCESS_ERR ? "; is --size above the server's -s?" :
			   wc->status == RK_WC_REM_INV_REQ_ERR ? "; is --op the server's operation?" : "";

	s->t.wc_err++;
	if (wc->wr_id >> 48 < s->n && !s->responder)
		s->q[wc->wr_id >> 48].bad++;
	snprintf(s->err, sizeof(s->err), "QP %#x: work completion error: %s (message %" PRIu64
		 ")%s", wc->qp_num, rk_wc_status_str(wc->status), m, hint);
	return -1;
}

/* Client: message m of QP i completed. */
static int
client_done(struct rk_sf *s, const struct rk_wc *wc)
{
	uint32_t i = (uint32_t)(wc->wr_id >> 48);
	struct rk_sf_qp *q;
	uint64_t m;
	uint8_t op;
	uint32_t len;

	if (wc->status != RK_WC_SUCCESS)
		return wc_failed(s, wc, i < s->n ? s->q[i].done : 0);
	if (i >= s->n)
		return 0;
	q = &s->q[i];
	m = q->done;    /* RC completes in order: the low bits say which */
	if ((m & 0xffff) != ((wc->wr_id >> 32) & 0xffff)) {
		q->bad++;
		s->t.seq_err++;
	}
	op = rk_sf_op(&s->cfg, i, m);
	len = rk_sf_size(&s->cfg, i, m);
	if (op == RK_GEN_OP_ATOMIC) {
		uint64_t orig;

		/* executed once each, in order: the k-th FETCH_ADD found k (a
		 * foreign responder's word: the first one's result + k) */
		memcpy(&orig, land(s, i, m), 8);
		if (s->foreign && q->atomics == 0)
			q->first = orig;
		if (s->cfg.verify && orig != q->first + q->atomics) {
			q->bad++;
			s->t.data_err++;
		}
		q->atomics++;
		len = 8;
	} else if (op == RK_GEN_OP_CMP_SWAP) {
		uint64_t orig;

		/* the k-th CMP_SWAP found value k: once each, in order, its compare matched */
		memcpy(&orig, land(s, i, m), 8);
		if (s->cfg.verify && orig != rk_sf_cas_value(i, q->cas_done)) {
			q->bad++;
			s->t.data_err++;
		}
		q->cas_done++;
		len = 8;
	}
	if (op == RK_GEN_OP_READ && s->cfg.verify) {
		if (s->foreign ? !foreign_read_ok(s, i, land(s, i, m), len) :
		    !rk_sf_pattern_ok(land(s, i, m), len, i, READ_SEED + m % s->rl.read_slots)) {
			q->bad++;
			s->t.data_err++;
		}
	}
	q->done++;
	q->outstanding--;
	s->outstanding--;
	s->rescan = true;
	if (s->iters != 0 && q->done == s->iters)
		s->qps_done++;
	q->bytes += len;
	s->t.msgs++;
	s->t.bytes += len;
	s->t.msgs_op[rk_sf_op_index(op)]++;
	if (s->lat != NULL)
		rk_sf_lat_done(s, i, (uint32_t)wc->wr_id, rk_sf_op_index(op));
	return 0;
}

/* Responder: a WRITE with Immediate or a SEND with Immediate arrived. */
static int
responder_recv(struct rk_sf *s, const struct rk_wc *wc)
{
	uint32_t i = (uint32_t)(wc->wr_id >> 32), slot = (uint32_t)wc->wr_id;
	const struct rk_sf_layout *l = &s->rl;
	struct rk_sf_qp *q;
	const uint8_t *data;
	uint64_t m;
	uint32_t len;
	bool write;

	if (wc->status != RK_WC_SUCCESS)
		return wc_failed(s, wc, wc->wr_id & 0xffffffffu);
	if (i >= s->n)
		return 0;
	q = &s->q[i];
	/* the client's next message that takes a receive (a WRITE or SEND) */
	while (!(rk_sf_op(&s->cfg, i, q->posted) & (RK_GEN_OP_WRITE | RK_GEN_OP_SEND)))
		q->posted++;
	m = q->posted++;
	len = rk_sf_size(&s->cfg, i, m);
	write = wc->opcode == RK_WC_RECV_RDMA_WITH_IMM;
	/* a SEND where the mix has a WRITE finds no buffer (and no Immediate expected) */
	if (!(wc->wc_flags & RK_WC_WITH_IMM) || wc->imm_data != (uint32_t)m ||
	    wc->byte_len != len || (!write && slot == UINT32_MAX)) {
		q->bad++;
		s->t.seq_err++;
	} else if (s->cfg.verify) {
		uint64_t w = write ? rk_sf_ord(&s->cfg, i, m, RK_GEN_OP_WRITE) : 0;

		data = write ? q->buf + l->write_off + w % l->write_slots * s->cfg.size_max :
		       q->buf + l->recv_off + (uint64_t)slot * s->cfg.size_max;
		if (!rk_sf_pattern_ok(data, len, i, m)) {
			/* a later WRITE to the same slot, landed before this check: not an error */
			uint64_t later = write ? rk_sf_nth_write(&s->cfg, i, w + l->write_slots) : 0;

			if (write && len >= 4 && rk_sf_size(&s->cfg, i, later) >= 4 &&
			    rk_sf_pattern_ok(data, 4, i, later))
				s->t.overwritten++;
			else {
				q->bad++;
				s->t.data_err++;
			}
		}
	}
	q->done++;
	q->bytes += len;
	s->t.msgs++;
	s->t.bytes += len;
	/* the receive after the recv_slots posted and the done - 1 reposted */
	return post_recv(s, i, q->done + l->recv_slots - 1);
}

int
rk_sf_step(struct rk_sf *s, int budget)
{
	struct rk_wc wc[WC_BATCH];
	int events = 0, n;

	if (!s->responder && !s->stopping && s->rescan) {
		uint32_t idle = 0;

		/* round-robin: one message per QP per turn, from where the last pass stopped */
		while (idle < s->n && events < budget) {
			struct rk_sf_qp *q = &s->q[s->rr];

			if (q->outstanding < s->cfg.depth && (s->iters == 0 || q->posted < s->iters)) {
				if (post_one(s, s->rr) != 0)
					return -1;
				events++;
				idle = 0;
			} else
				idle++;
			s->rr = s->rr + 1 == s->n ? 0 : s->rr + 1;
		}
		/* a whole turn without room: wait for a completion */
		s->rescan = idle < s->n;
	}
	n = rk_poll_cq(s->scq, WC_BATCH, wc);
	if (n < 0) {
		snprintf(s->err, sizeof(s->err), "poll_cq: %s", strerror(-n));
		return -1;
	}
	for (int k = 0; k < n; k++) {
		/* the responder sends nothing of its own: a send completion is an error */
		if (s->responder && !(wc[k].opcode & RK_WC_RECV))
			return wc_failed(s, &wc[k], wc[k].wr_id & 0xffffffffu);
		if ((s->responder ? responder_recv(s, &wc[k]) : client_done(s, &wc[k])) != 0)
			return -1;
	}
	return events + n;
}

uint64_t
rk_sf_outstanding(const struct rk_sf *s)
{
	return s->outstanding;
}

bool
rk_sf_all_done(const struct rk_sf *s)
{
	return s->iters != 0 && s->qps_done == s->n;
}

void
rk_sf_destroy(struct rk_sf *s)
{
	for (uint32_t i = 0; s->q != NULL && i < s->n; i++) {
		if (s->q[i].qp != NULL)
			rk_destroy_qp(s->q[i].qp);
		if (s->q[i].mr != NULL)
			rk_dereg_mr(s->q[i].mr);
		if (s->q[i].buf != s->shared)
			free(s->q[i].buf);
	}
	if (s->src_mr != NULL)
		rk_dereg_mr(s->src_mr);
	free(s->src);
	if (s->scq != NULL)
		rk_destroy_cq(s->scq);
	if (s->pd != NULL)
		rk_dealloc_pd(s->pd);
	rk_sf_latency_off(s);
	free(s->ref);
	free(s->q);
	free(s->shared);
	memset(s, 0, sizeof(*s));
}
