/* SPDX-License-Identifier: BSD-3-Clause */
#include "rk_ib_harness.h"

#include "rk_test.h"

#include <stdlib.h>
#include <string.h>

static void
side_init(struct h_side *s, uint8_t id, const struct h_opts *o, uint64_t seed)
{
	struct rk_ib_dev_attr da = {
		.mac = { 0x02, 0, 0, 0, 0, id },
		.ip_version = 4,
		.key_seed = seed,
		.max_inflight_pkts = o->window,
		.ack_delay_ns = o->ack_delay_ns,
	};
	struct rk_ib_qp_init_attr qa = {
		.qp_type = o->type ? o->type : RK_QPT_RC,
		.sq_sig_all = !o->no_sig_all,
		.cap = {
			.max_send_wr = o->sq_depth ? o->sq_depth : 64,
			.max_recv_wr = o->rq_depth ? o->rq_depth : 64,
			.max_send_sge = 4,
			.max_recv_sge = 4,
			.max_inline_data = 256,
		},
	};

	da.ip[10] = da.ip[11] = 0xff;
	da.ip[12] = 10;
	da.ip[15] = id;
	memcpy(s->mac, da.mac, 6);
	memcpy(s->ip, da.ip, 16);
	s->dev = rk_ib_dev_create(&da);
	assert_true(s->dev != NULL);
	s->pd = rk_ib_pd_alloc(s->dev);
	s->scq = rk_ib_cq_create(s->dev, 4096);
	s->rcq = rk_ib_cq_create(s->dev, 4096);
	if (o->srq)
		s->srq = rk_ib_srq_create(s->pd, 256, 4);
	qa.send_cq = s->scq;
	qa.recv_cq = s->rcq;
	qa.srq = s->srq;
	s->qp = rk_ib_qp_create(s->pd, &qa);
	assert_true(s->qp != NULL);
	s->mem = calloc(1, H_MEM);
	s->mr = rk_ib_mr_reg(s->pd, s->mem, H_MEM,
			     RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE |
			     RK_ACCESS_REMOTE_READ | RK_ACCESS_REMOTE_ATOMIC);
	assert_true(s->mr != NULL);
}

static void
side_connect(struct h_side *s, const struct h_side *peer, const struct h_opts *o,
	     uint32_t sq_psn, uint32_t rq_psn)
{
	struct rk_qp_attr a = { 0 };
	enum rk_qp_type t = o->type ? o->type : RK_QPT_RC;
	int rc;

	a.qp_state = RK_QPS_INIT;
	a.qp_access_flags = o->access ? o->access :
			    RK_ACCESS_REMOTE_WRITE | RK_ACCESS_REMOTE_READ | RK_ACCESS_REMOTE_ATOMIC;
	a.qkey = 0x11111111;
	rc = rk_ib_qp_modify(s->qp, &a, RK_QP_STATE | RK_QP_PKEY_INDEX | RK_QP_PORT |
			     (t == RK_QPT_UD ? RK_QP_QKEY : RK_QP_ACCESS_FLAGS));
	assert_true(rc == 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = RK_QPS_RTR;
	a.path_mtu = o->mtu ? o->mtu : RK_MTU_1024;
	a.dest_qp_num = rk_ib_qp_num(peer->qp);
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = o->rd_atomic ? o->rd_atomic : 4;
	a.min_rnr_timer = o->min_rnr_timer;
	memcpy(a.ah_attr.dmac, peer->mac, 6);
	memcpy(a.ah_attr.dip, peer->ip, 16);
	if (t == RK_QPT_RC)
		rc = rk_ib_qp_modify(s->qp, &a, RK_QP_STATE | RK_QP_AV | RK_QP_PATH_MTU |
				     RK_QP_DEST_QPN | RK_QP_RQ_PSN | RK_QP_MAX_DEST_RD_ATOMIC |
				     RK_QP_MIN_RNR_TIMER);
	else if (t == RK_QPT_UC)
		rc = rk_ib_qp_modify(s->qp, &a, RK_QP_STATE | RK_QP_AV | RK_QP_PATH_MTU |
				     RK_QP_DEST_QPN | RK_QP_RQ_PSN);
	else
		rc = rk_ib_qp_modify(s->qp, &a, RK_QP_STATE);
	assert_true(rc == 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = RK_QPS_RTS;
	a.sq_psn = sq_psn;
	a.timeout = o->timeout;
	a.retry_cnt = o->retry_cnt;
	a.rnr_retry = o->rnr_retry;
	a.max_rd_atomic = o->rd_atomic ? o->rd_atomic : 4;
	if (t == RK_QPT_RC)
		rc = rk_ib_qp_modify(s->qp, &a, RK_QP_STATE | RK_QP_SQ_PSN | RK_QP_TIMEOUT |
				     RK_QP_RETRY_CNT | RK_QP_RNR_RETRY | RK_QP_MAX_QP_RD_ATOMIC);
	else
		rc = rk_ib_qp_modify(s->qp, &a, RK_QP_STATE | RK_QP_SQ_PSN);
	assert_true(rc == 0);
}

void
h_init(struct harness *h, const struct h_opts *o)
{
	memset(h, 0, sizeof(*h));
	side_init(&h->a, 1, o, 0x1234);
	side_init(&h->b, 2, o, 0x5678);
	side_connect(&h->a, &h->b, o, o->a_psn, o->b_psn);
	side_connect(&h->b, &h->a, o, o->b_psn, o->a_psn);
	h->now = 1000;
	h->sg = getenv("RK_TEST_SG") != NULL && strcmp(getenv("RK_TEST_SG"), "1") == 0;
}

static void
side_fini(struct h_side *s)
{
	rk_ib_dev_destroy(s->dev);
	free(s->mem);
}

void
h_fini(struct harness *h)
{
	side_fini(&h->a);
	side_fini(&h->b);
}

static void
collect(void *ctx, const uint8_t *frame, uint32_t len)
{
	struct harness *h = ctx;

	assert_true(h->n < H_MAXQ && len <= RK_IB_MAX_FRAME);
	memcpy(h->q[h->n].data, frame, len);
	h->q[h->n].len = len;
	h->n++;
}

/* A frame in three pieces (rk_ib_poll_tx_sg), put together as a device would. */
static void
collect_sg(void *ctx, const uint8_t *frame, uint32_t hdr_len, const uint8_t *payload,
	   uint32_t plen, const uint8_t *trailer, uint32_t tlen)
{
	struct harness *h = ctx;
	struct h_frame *f = &h->q[h->n];

	assert_true(h->n < H_MAXQ && hdr_len + plen + tlen <= RK_IB_MAX_FRAME);
	assert_true(plen >= RK_IB_SG_MIN && tlen >= RK_ICRC_LEN && tlen <= RK_ICRC_LEN + 3);
	memcpy(f->data, frame, hdr_len);
	memcpy(f->data + hdr_len, payload, plen);
	memcpy(f->data + hdr_len + plen, trailer, tlen);
	f->len = hdr_len + plen + tlen;
	h->n++;
	h->sg_frames++;
}

unsigned int
h_tx_n(struct harness *h, struct h_side *s, unsigned int max)
{
	h->n = 0;
	if (h->sg)
		return rk_ib_poll_tx_sg(s->dev, h->now, NULL, collect, collect_sg, h, max);
	return rk_ib_poll_tx(s->dev, h->now, collect, h, max);
}

unsigned int
h_tx(struct harness *h, struct h_side *s)
{
	return h_tx_n(h, s, H_MAXQ);
}

void
h_parse(const struct h_frame *f, struct rk_pkt *p)
{
	int rc = rk_pkt_parse(p, f->data, f->len, f->len, RK_LINK_ETHERNET, NULL);

	assert_true(rc == 0);
}

void
h_rx(struct harness *h, struct h_side *s, const struct h_frame *f)
{
	struct rk_pkt p;

	h_parse(f, &p);
	rk_ib_rx(s->dev, &p, h->now);
}

void
h_rx_all(struct harness *h, struct h_side *s)
{
	for (unsigned int i = 0; i < h->n; i++)
		h_rx(h, s, &h->q[i]);
}

unsigned int
h_settle(struct harness *h)
{
	unsigned int total = 0, k;

	do {
		k = h_tx(h, &h->a);
		h_rx_all(h, &h->b);
		total += k;
		k += h_tx(h, &h->b);
		h_rx_all(h, &h->a);
		total += h->n;
	} while (k > 0);
	return total;
}

uint64_t
h_fire_timers(struct harness *h)
{
	uint64_t ta = rk_ib_next_timer(h->a.dev), tb = rk_ib_next_timer(h->b.dev);
	uint64_t t = ta < tb ? ta : tb;

	if (t == UINT64_MAX)
		return t;
	if (t > h->now)
		h->now = t;
	rk_ib_timers(h->a.dev, h->now);
	rk_ib_timers(h->b.dev, h->now);
	return t;
}

static struct rk_pkt *
parsed(const struct h_frame *f)
{
	static struct rk_pkt p;

	h_parse(f, &p);
	return &p;
}

uint8_t
h_opcode(const struct h_frame *f)
{
	return parsed(f)->opcode;
}

uint32_t
h_psn(const struct h_frame *f)
{
	struct rk_pkt *p = parsed(f);

	return rk_bth_psn(rk_pkt_bth(p));
}

bool
h_ack_req(const struct h_frame *f)
{
	struct rk_pkt *p = parsed(f);

	return rk_bth_ack_req(rk_pkt_bth(p));
}

const uint8_t *
h_xeth(const struct h_frame *f, enum rk_hdr hdr)
{
	return rk_pkt_xeth(parsed(f), hdr);
}

uint8_t
h_syndrome(const struct h_frame *f)
{
	const uint8_t *a = h_xeth(f, RK_HDR_AETH);

	assert_true(a != NULL);
	return rk_aeth_syndrome(a);
}

uint32_t
h_msn(const struct h_frame *f)
{
	const uint8_t *a = h_xeth(f, RK_HDR_AETH);

	assert_true(a != NULL);
	return rk_aeth_msn(a);
}

uint32_t
h_payload_len(const struct h_frame *f)
{
	return parsed(f)->payload_len;
}

void
h_craft(struct harness *h, struct h_frame *f, const struct h_side *from,
	const struct h_side *to, uint8_t opcode, uint32_t psn, bool ack_req,
	const struct rk_xeth_fields *x, const void *payload, uint32_t len)
{
	struct rk_probe_target t = { .ip_version = 4, .dest_qp = rk_ib_qp_num(to->qp) };
	struct rk_probe_intent in = {
		.opcode = opcode,
		.psn_off = (int32_t)psn,   /* from PSN 0: the PSN itself */
		.ack_req = ack_req,
		.x = x,
		.payload = payload,
		.len = len,
		.pad_cnt = -1,
	};
	int n;

	(void)h;
	memcpy(t.dst_mac, to->mac, 6);
	memcpy(t.src_mac, from->mac, 6);
	memcpy(t.src_ip, from->ip, 16);
	memcpy(t.dst_ip, to->ip, 16);
	n = rk_probe_craft(&t, &in, f->data, sizeof(f->data));
	assert_true(n > 0);
	f->len = (uint32_t)n;
}

uint64_t
h_va(const struct h_side *s, uint32_t off)
{
	return (uint64_t)(uintptr_t)s->mem + off;
}

int
h_post_send(struct h_side *s, uint64_t wr_id, enum rk_wr_opcode op, uint32_t loff,
	    uint32_t len, uint64_t raddr, uint32_t rkey, unsigned int flags)
{
	struct rk_sge sge = { h_va(s, loff), len, rk_ib_mr_lkey(s->mr) };
	struct rk_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = flags,
		.imm_data = 0xabcd0000u | (uint32_t)wr_id,
	};
	const struct rk_send_wr *bad;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return rk_ib_post_send(s->qp, &wr, &bad);
}

int
h_post_atomic(struct h_side *s, uint64_t wr_id, enum rk_wr_opcode op, uint32_t loff,
	      uint64_t raddr, uint32_t rkey, uint64_t cmp_add, uint64_t swap)
{
	struct rk_sge sge = { h_va(s, loff), 8, rk_ib_mr_lkey(s->mr) };
	struct rk_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
	};
	const struct rk_send_wr *bad;

	wr.wr.atomic.remote_addr = raddr;
	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.compare_add = cmp_add;
	wr.wr.atomic.swap = swap;
	return rk_ib_post_send(s->qp, &wr, &bad);
}

int
h_post_recv(struct h_side *s, uint64_t wr_id, uint32_t loff, uint32_t len)
{
	struct rk_sge sge = { h_va(s, loff), len, rk_ib_mr_lkey(s->mr) };
	struct rk_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };
	const struct rk_recv_wr *bad;

	if (s->srq != NULL)
		return rk_ib_srq_post_recv(s->srq, &wr, &bad);
	return rk_ib_post_recv(s->qp, &wr, &bad);
}

int
h_poll(struct rk_ib_cq *cq, struct rk_wc *wc)
{
	int n = rk_ib_cq_poll(cq, 1, wc);

	assert_true(n >= 0);
	return n;
}

const struct rk_xeth_fields *
h_reth(uint64_t va, uint32_t rkey, uint32_t len)
{
	static struct rk_xeth_fields x;

	memset(&x, 0, sizeof(x));
	x.reth_va = va;
	x.reth_r_key = rkey;
	x.reth_dma_len = len;
	return &x;
}

const struct rk_xeth_fields *
h_atm(uint64_t va, uint32_t rkey, uint64_t swap_add, uint64_t cmp)
{
	static struct rk_xeth_fields x;

	memset(&x, 0, sizeof(x));
	x.atmeth_va = va;
	x.atmeth_r_key = rkey;
	x.atmeth_swap_add = swap_add;
	x.atmeth_compare = cmp;
	return &x;
}
