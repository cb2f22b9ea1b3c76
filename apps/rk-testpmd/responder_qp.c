/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A responder client's QPs: each with a region of 2 * max(size, 4096)
 * bytes whose second half it offers, as perftest's servers do (the
 * pattern 0x5eed of rk_app_fill(), what READs must return; a WRITE past
 * the offered half's end is out of bounds), and receive slots for
 * send_bw; connected to the client's (IBTA Vol1 9.8.3, 9.7). perftest -q
 * N: one such QP per client QP, the sessions chained from the first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_random.h>

#include "rdma.h"
#include "responder.h"
#include "rk_app.h"
#include "rk_app_qp.h"
#include "testpmd.h"

#define LOCK() rte_ticketlock_lock(&rk_tp_rdma_lock)
#define UNLOCK() rte_ticketlock_unlock(&rk_tp_rdma_lock)
#define PATTERN 0x5eed
#define OUTS 16u

#define client rk_tp_resp_client
#define fail rk_tp_resp_fail

int
rk_tp_resp_qp_create(struct client *c, struct rk_tp_rdma_dev *d, struct rk_tp_resp_sess *s,
		     struct rk_pt_dest *local)
{
	uint32_t max = rk_tp_resp.max_size;
	size_t blk = max > 4096 ? max : 4096;
	struct rk_qp_init_attr ia = { .qp_type = rk_tp_resp.qp_type, .sq_sig_all = 1 };
	struct rk_qp_attr at = { .qp_state = RK_QPS_INIT, .port_num = 1 };
	int rc, mask = RK_QP_STATE | RK_QP_PKEY_INDEX | RK_QP_PORT |
		       rk_tp_qp_init_attr(rk_tp_resp.qp_type, &at);

	s->buf_len = 2 * blk;
	s->rslots = (uint32_t)(16u << 20) / max;
	s->rslots = s->rslots > 512 ? 512 : s->rslots < 2 ? 2 : s->rslots;
	s->buf = aligned_alloc(4096, (s->buf_len + 4095) & ~(size_t)4095);
	s->rbuf = calloc(s->rslots, max);
	if (s->buf == NULL || s->rbuf == NULL)
		return fail(c, "cannot allocate %zu bytes", s->buf_len + (size_t)s->rslots * max);
	rk_app_fill(s->buf, s->buf_len, PATTERN);
	s->mr = rk_reg_mr(d->pd, s->buf, s->buf_len, RK_ACCESS_LOCAL_WRITE |
			  RK_ACCESS_REMOTE_WRITE | RK_ACCESS_REMOTE_READ | RK_ACCESS_REMOTE_ATOMIC);
	s->rmr = rk_reg_mr(d->pd, s->rbuf, (size_t)s->rslots * max, RK_ACCESS_LOCAL_WRITE);
	s->cq = rk_create_cq(d->ctx, (int)(s->rslots + 64), NULL);
	if (s->mr == NULL || s->rmr == NULL || s->cq == NULL)
		return fail(c, "cannot create MR/CQ: %s", strerror(errno));
	ia.send_cq = ia.recv_cq = s->cq;
	ia.cap = (struct rk_qp_cap){ .max_send_wr = 16, .max_recv_wr = s->rslots + 1,
				     .max_send_sge = 1, .max_recv_sge = 1 };
	s->qp = rk_create_qp(d->pd, &ia);
	if (s->qp == NULL)
		return fail(c, "create_qp: %s", strerror(errno));
	rc = rk_modify_qp(s->qp, &at, mask);
	if (rc != 0)
		return fail(c, "modify QP to INIT: %s", strerror(-rc));
	for (uint32_t i = 0; i < s->rslots; i++) {
		struct rk_sge sge = { (uint64_t)(uintptr_t)(s->rbuf + (size_t)i * max), max,
				      s->rmr->lkey };
		struct rk_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 }, *bad;

		if ((rc = rk_post_recv(s->qp, &wr, &bad)) != 0)
			return fail(c, "post_recv: %s", strerror(-rc));
	}
	*local = (struct rk_pt_dest){ .out_reads = OUTS, .qpn = s->qp->qp_num,
				      .psn = (uint32_t)rte_rand() & 0xffffff,
				      .rkey = s->mr->rkey, .vaddr = (uint64_t)(uintptr_t)(s->buf + blk),
				      .gid = { [10] = 0xff, [11] = 0xff } };
	memcpy(local->gid + 12, d->ip, 4);
	return 0;
}

int
rk_tp_resp_qp_more(struct client *c, const struct rk_pt_dest *remote)
{
	struct rk_tp_resp_qp *q;
	struct rk_tp_rdma_dev *d;
	int rc;

	if (c->qps >= RK_TP_RESP_QPS)
		return fail(c, "more than %u QPs (perftest -q N: N up to %u)", RK_TP_RESP_QPS,
			    RK_TP_RESP_QPS);
	q = calloc(1, sizeof(*q));
	if (q == NULL)
		return fail(c, "out of memory");
	c->more[c->qps - 1] = q;
	(c->qps > 1 ? &c->more[c->qps - 2]->s : &c->s)->next = &q->s;
	c->qps++;
	q->remote = *remote;
	LOCK();
	d = rk_tp_rdma_dev(rk_tp_resp.port, false, NULL);
	rc = d != NULL ? rk_tp_resp_qp_create(c, d, &q->s, &q->local) : fail(c, "no verbs device");
	UNLOCK();
	return rc;
}

const struct rk_pt_dest *
rk_tp_resp_qp_keys(const struct client *c, uint32_t qpn)
{
	for (unsigned int i = 1; i < c->qps; i++)
		if (c->more[i - 1]->remote.qpn == qpn)
			return &c->more[i - 1]->local;
	return &c->local;
}

/* Free one session's objects; caller holds rk_tp_rdma_lock. */
static void
sess_free(struct rk_tp_resp_sess *s)
{
	if (s->qp != NULL)
		rk_destroy_qp(s->qp);
	if (s->mr != NULL)
		rk_dereg_mr(s->mr);
	if (s->rmr != NULL)
		rk_dereg_mr(s->rmr);
	if (s->cq != NULL)
		rk_destroy_cq(s->cq);
	s->qp = NULL;
	s->mr = s->rmr = NULL;
	s->cq = NULL;
}

void
rk_tp_resp_qp_release(struct client *c)
{
	LOCK();
	rk_tp_resp_sess_del(&c->s);
	sess_free(&c->s);
	for (unsigned int i = 1; i < c->qps; i++)
		sess_free(&c->more[i - 1]->s);
	UNLOCK();
	free(c->s.buf);
	free(c->s.rbuf);
	for (unsigned int i = 1; i < c->qps; i++) {
		free(c->more[i - 1]->s.buf);
		free(c->more[i - 1]->s.rbuf);
		free(c->more[i - 1]);
		c->more[i - 1] = NULL;
	}
	c->qps = 1;
}

/*
 * The client's MAC: asked for (every 200 ms, 3 s), or learnt from its own
 * ARP request. What an earlier client on the same address said is
 * forgotten when its keys arrive: a new process has another MAC.
 */
int
rk_tp_resp_resolve(struct client *c, const uint8_t ip[4], uint8_t mac[6])
{
	for (int i = 0; i < 3000; i++) {
		bool found;

		LOCK();
		found = rk_tp_resp_neigh(ip, mac);
		if (!found && i % 200 == 0)
			(void)rk_tp_resp_arp_request(ip);
		UNLOCK();
		if (found)
			return 0;
		if (rk_tp_resp_serve(NULL) != 0)
			return fail(c, "stopped");
	}
	return fail(c, "%u.%u.%u.%u did not answer ARP within 3 s (is \"responder\" forwarding?)",
		    ip[0], ip[1], ip[2], ip[3]);
}

/* One QP to RTS, connected to the client's @p remote. */
static int
connect_one(struct client *c, struct rk_tp_resp_sess *s, const struct rk_pt_dest *local,
	    const struct rk_pt_dest *remote, uint8_t mac[6])
{
	const char *state = "RTR";
	struct rk_app_qp_path p = {
		.mtu = (enum rk_mtu)c->mtu_enum, .dest_qpn = remote->qpn,
		.rq_psn = remote->psn, .sq_psn = local->psn, .dmac = mac,
		.dgid = remote->gid, .max_dest_rd_atomic = OUTS,
		.max_rd_atomic = (uint8_t)(remote->out_reads > 0 && remote->out_reads < OUTS ?
					   remote->out_reads : OUTS),
		.min_rnr_timer = 12, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
		.uc = rk_tp_resp.qp_type == RK_QPT_UC,
	};
	int rc;

	LOCK();
	if (rk_tp_resp.qp_type != RK_QPT_UD) {
		rc = rk_app_qp_connect(s->qp, &p, &state);
	} else {
		/* UD: RTR and RTS carry no peer; the server only receives */
		struct rk_qp_attr a = { .qp_state = RK_QPS_RTR };

		rc = rk_modify_qp(s->qp, &a, RK_QP_STATE);
		if (rc == 0) {
			state = "RTS";
			a = (struct rk_qp_attr){ .qp_state = RK_QPS_RTS, .sq_psn = local->psn };
			rc = rk_modify_qp(s->qp, &a, RK_QP_STATE | RK_QP_SQ_PSN);
		}
	}
	UNLOCK();
	return rc == 0 ? 0 : fail(c, "cannot move QPN %#06x to %s: %s", local->qpn, state,
				  strerror(-rc));
}

int
rk_tp_resp_qp_connect(struct client *c)
{
	static const uint8_t v4[12] = { [10] = 0xff, [11] = 0xff };
	uint8_t mac[6];

	if (memcmp(c->remote.gid, v4, 12) != 0)
		return fail(c, "the client's GID is not IPv4-mapped (perftest -x: its IPv4 GID)");
	if (rk_tp_resp_resolve(c, c->remote.gid + 12, mac) != 0)
		return -1;
	if (connect_one(c, &c->s, &c->local, &c->remote, mac) != 0)
		return -1;
	for (unsigned int i = 1; i < c->qps; i++) {
		struct rk_tp_resp_qp *q = c->more[i - 1];

		if (memcmp(q->remote.gid, c->remote.gid, 16) != 0)
			return fail(c, "QP %u's GID is not the first QP's", i);
		if (connect_one(c, &q->s, &q->local, &q->remote, mac) != 0)
			return -1;
	}
	/* The forwarding loop serves the client's QPs from here on. */
	LOCK();
	c->s.n = c->n;
	c->s.qps = c->qps;
	rk_tp_resp_sess_add(&c->s);
	UNLOCK();
	return 0;
}
