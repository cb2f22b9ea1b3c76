/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The checked workload. A model of B's target region is updated when each
 * operation completes (RC executes and completes in order), so a READ's
 * result is the model when it completes: a WRITE or ATOMIC posted after
 * it that overlaps it is posted with RK_SEND_FENCE, so it executes later.
 * An ATOMIC's original value is the model with the outstanding operations
 * before it applied. Payloads are a pure function of the operation, so
 * received messages are checked against it without a copy.
 */
#include "rk_sim_wl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rk_rand.h"

struct guarded {
	uint8_t *base;                  /* mapping, guard pages included */
	size_t map_len;
	uint8_t *p;                     /* usable bytes */
	size_t len;
};

struct slot {
	bool busy;
	enum rk_sim_op op;
	uint64_t id;
	uint32_t len;
	uint64_t roff;                  /* offset in B's region */
	uint64_t expect_orig;           /* ATOMIC: the value it returns */
	uint64_t result;                /* ATOMIC: the value it leaves */
	uint32_t psn;                   /* its first PSN */
	uint64_t posted_ns;             /* virtual time it was posted */
};

struct recv_expect {
	uint64_t id;
	enum rk_sim_op op;
	uint32_t len;
};

struct wl {
	const struct rk_sim_wl_cfg *cfg;
	struct rk_sim_wl_result *res;
	struct rk_sim_clock clock;
	struct rk_sim_link *link;
	struct rk_sim_port port[2];
	struct rk_context *ctx[2];
	struct rk_pd *pd[2];
	struct rk_cq *scq[2], *rcq[2];
	struct rk_qp *qp[2];
	struct guarded lbuf, region, rbuf, model;
	struct rk_mr *lmr, *region_mr, *rbuf_mr;
	uint32_t depth, slot_size;
	uint32_t rslot_size;            /* receive buffer: slot_size with SENDs, else 8 */
	struct slot *slots;
	uint32_t next_slot;
	uint64_t posted, completed_id;
	struct recv_expect *rq;         /* FIFO of expected receives */
	uint64_t rq_head, rq_tail;
	uint32_t rq_cap;
	uint64_t rng;
	uint32_t opmask;
	bool need_recover;              /* a RETRY_EXC_ERR arrived (cfg.recover) */
	uint64_t first_lost_id;         /* the operation that failed */
	uint32_t psn_epoch;             /* connections made, to vary the PSNs */
	uint32_t next_psn;              /* A's PSN for the next operation */
	int rc;
};

static const char *const op_names[RK_SIM_OP_COUNT] = {
	"SEND", "SEND_IMM", "WRITE", "WRITE_IMM", "READ", "CMP_SWP", "FETCH_ADD",
};

const char *
rk_sim_op_name(enum rk_sim_op op)
{
	return (unsigned int)op < RK_SIM_OP_COUNT ? op_names[op] : "?";
}

/* Bytes 8j..8j+7 of operation id's payload, least significant first. */
static uint64_t
gen_word(uint64_t id, uint64_t j)
{
	uint64_t s = id * 0x2545f4914f6cdd1dull + 1 + j * 0x9e3779b97f4a7c15ull;

	return rk_splitmix64(&s);
}

/*
 * Bytes off..off+len of the payload of operation id: a pure function, so
 * it can be checked later, from any offset.
 */
static void
gen_bytes_at(uint64_t id, uint64_t off, uint8_t *p, size_t len)
{
	size_t i = 0;

	while (i < len) {
		uint64_t pos = off + i, v = gen_word(id, pos / 8);
		unsigned int b = (unsigned int)(pos % 8);

		if (b == 0 && len - i >= 8) {
			for (unsigned int k = 0; k < 8; k++)
				p[i + k] = (uint8_t)(v >> (k * 8));
			i += 8;
			continue;
		}
		for (; b < 8 && i < len; b++)
			p[i++] = (uint8_t)(v >> (b * 8));
	}
}

static void
gen_bytes(uint64_t id, uint8_t *p, size_t len)
{
	gen_bytes_at(id, 0, p, len);
}

/* Whether @p p holds the first @p len payload bytes of operation id. */
static bool
gen_equal(uint64_t id, const uint8_t *p, uint32_t len)
{
	uint8_t chunk[4096];

	for (uint32_t off = 0; off < len; off += sizeof(chunk)) {
		uint32_t n = len - off < sizeof(chunk) ? len - off : (uint32_t)sizeof(chunk);

		gen_bytes_at(id, off, chunk, n);
		if (memcmp(chunk, p + off, n) != 0)
			return false;
	}
	return true;
}

static void fail(struct wl *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
fail(struct wl *w, const char *fmt, ...)
{
	va_list ap;

	w->res->errors++;
	if (w->rc == 0) {
		va_start(ap, fmt);
		vsnprintf(w->res->first_error, sizeof(w->res->first_error), fmt, ap);
		va_end(ap);
		w->rc = -EIO;
	}
}

static int
guard_alloc(struct guarded *g, size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t body = (len + pg - 1) / pg * pg;

	if (body == 0)
		body = pg;
	g->map_len = body + 2 * pg;
	g->base = mmap(NULL, g->map_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g->base == MAP_FAILED) {
		g->base = NULL;
		return -ENOMEM;
	}
	if (mprotect(g->base + pg, body, PROT_READ | PROT_WRITE) != 0)
		return -ENOMEM;
	/* Usable bytes end exactly at the upper guard page. */
	g->p = g->base + pg + body - len;
	g->len = len;
	return 0;
}

static void
guard_free(struct guarded *g)
{
	if (g->base != NULL)
		munmap(g->base, g->map_len);
}

/* Endpoint n's address: ::ffff:10.0.0.n, or 2001:2::n (RFC 5180 range). */
static void
set_addr(const struct rk_sim_wl_cfg *c, uint8_t ip[16], int n)
{
	memset(ip, 0, 16);
	if (c->ip_version == 6) {
		ip[0] = 0x20;
		ip[1] = 0x01;
		ip[3] = 0x02;
	} else {
		ip[10] = ip[11] = 0xff;
		ip[12] = 10;
	}
	ip[15] = (uint8_t)n;
}

static int
connect_qp(struct wl *w, int i)
{
	const struct rk_sim_wl_cfg *c = w->cfg;
	struct rk_qp_attr a = { 0 };
	int rc;

	a.qp_state = RK_QPS_INIT;
	a.qp_access_flags = RK_ACCESS_REMOTE_WRITE | RK_ACCESS_REMOTE_READ |
			    RK_ACCESS_REMOTE_ATOMIC;
	rc = rk_modify_qp(w->qp[i], &a, RK_QP_STATE | RK_QP_PKEY_INDEX | RK_QP_PORT |
			  RK_QP_ACCESS_FLAGS);
	if (rc != 0)
		return rc;
	memset(&a, 0, sizeof(a));
	a.qp_state = RK_QPS_RTR;
	a.path_mtu = c->mtu ? c->mtu : RK_MTU_1024;
	a.dest_qp_num = w->qp[i ^ 1]->qp_num;
	/* Both directions wrap early; each reconnection moves the PSNs on. */
	a.rq_psn = ((i == 0 ? 0xfff000u : 0xffff00u) + w->psn_epoch * 0x3c5a71u) & 0xffffff;
	a.max_dest_rd_atomic = c->max_rd_atomic ? c->max_rd_atomic : 8;
	a.min_rnr_timer = 1;
	a.ah_attr.dmac[0] = 0x02;
	a.ah_attr.dmac[5] = (uint8_t)(2 - i);
	set_addr(c, a.ah_attr.dip, 2 - i);
	rc = rk_modify_qp(w->qp[i], &a, RK_QP_STATE | RK_QP_AV | RK_QP_PATH_MTU | RK_QP_DEST_QPN |
			  RK_QP_RQ_PSN | RK_QP_MAX_DEST_RD_ATOMIC | RK_QP_MIN_RNR_TIMER);
	if (rc != 0)
		return rc;
	memset(&a, 0, sizeof(a));
	a.qp_state = RK_QPS_RTS;
	a.sq_psn = ((i == 0 ? 0xffff00u : 0xfff000u) + w->psn_epoch * 0x3c5a71u) & 0xffffff;
	if (i == 0)
		w->next_psn = a.sq_psn;
	a.timeout = c->timeout ? c->timeout : 12;
	a.retry_cnt = c->retry_cnt ? c->retry_cnt : 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = c->max_rd_atomic ? c->max_rd_atomic : 8;
	return rk_modify_qp(w->qp[i], &a, RK_QP_STATE | RK_QP_SQ_PSN | RK_QP_TIMEOUT |
			    RK_QP_RETRY_CNT | RK_QP_RNR_RETRY | RK_QP_MAX_QP_RD_ATOMIC);
}

static int
post_recv(struct wl *w, uint32_t k)
{
	struct rk_sge sge = {
		(uint64_t)(uintptr_t)(w->rbuf.p + (size_t)k * w->rslot_size), w->rslot_size,
		w->rbuf_mr->lkey,
	};
	struct rk_recv_wr wr = { .wr_id = k, .sg_list = &sge, .num_sge = 1 };
	struct rk_recv_wr *bad;

	return rk_post_recv(w->qp[1], &wr, &bad);
}

/* The sizes of a run's buffers, for setup and rk_sim_wl_mem_need. */
struct plan {
	uint32_t depth, slot_size, rslot_size;
	size_t region_len;
};

static void
plan(const struct rk_sim_wl_cfg *c, struct plan *p)
{
	uint32_t opmask = c->opmask ? c->opmask : (1u << RK_SIM_OP_COUNT) - 1;

	p->depth = c->depth ? c->depth : 16;
	/* Never more operations outstanding than the run has: fewer slots. */
	if (c->ops != 0 && p->depth > c->ops)
		p->depth = c->ops;
	p->slot_size = c->max_size < 8 ? 8 : c->max_size;
	/* Only SENDs place data in receive buffers; WRITE_IMM just takes one. */
	p->rslot_size = opmask & (1u << RK_SIM_SEND | 1u << RK_SIM_SEND_IMM) ? p->slot_size : 8;
	/* A multiple of 64: the region ends on a page, so it starts 8-aligned. */
	p->region_len = ((size_t)p->slot_size * 2 + (1u << 16) + 63) & ~(size_t)63;
}

size_t
rk_sim_wl_mem_need(const struct rk_sim_wl_cfg *cfg)
{
	struct plan p;

	plan(cfg, &p);
	return (size_t)p.depth * p.slot_size + (size_t)p.depth * p.rslot_size +
	       2 * p.region_len;
}

static int
setup(struct wl *w)
{
	const struct rk_sim_wl_cfg *c = w->cfg;
	struct rk_sim_link_cfg lc = {
		.seed = c->seed,
		.dir = { c->impair, c->split_impair ? c->impair_b2a : c->impair },
		.max_queue = c->max_queue,
		.tap = c->tap,
		.tap_ctx = c->tap_ctx,
		.rx_tap = c->rx_tap,
		.rx_tap_ctx = c->rx_tap_ctx,
		.drop = c->drop,
		.drop_ctx = c->drop_ctx,
	};
	struct plan pl;
	int rc;

	plan(c, &pl);
	w->depth = pl.depth;
	w->slot_size = pl.slot_size;
	w->rslot_size = pl.rslot_size;
	w->rng = c->seed ^ 0xa0761d6478bd642full;
	w->opmask = c->opmask ? c->opmask : (1u << RK_SIM_OP_COUNT) - 1;
	w->link = rk_sim_link_create(&lc);
	if (w->link == NULL)
		return -ENOMEM;
	for (int i = 0; i < 2; i++) {
		struct rk_device_attr da = { .key_seed = c->seed * 2 + (uint64_t)i + 1,
					     .max_inflight_pkts = c->window };
		struct rk_qp_init_attr qa = { .qp_type = RK_QPT_RC, .sq_sig_all = 1 };

		da.mac[0] = 0x02;
		da.mac[5] = (uint8_t)(i + 1);
		da.ip_version = c->ip_version ? c->ip_version : 4;
		set_addr(c, da.ip, i + 1);
		w->port[i] = (struct rk_sim_port){ w->link, (unsigned int)i, &w->clock };
		w->ctx[i] = rk_open_device(&rk_sim_io_ops, &w->port[i], &da);
		if (w->ctx[i] == NULL)
			return -ENOMEM;
		if (c->paced)
			rk_ib_dev_set_tx_rate(rk_context_ib(w->ctx[i]), lc.dir[i].rate_bps);
		w->pd[i] = rk_alloc_pd(w->ctx[i]);
		w->scq[i] = rk_create_cq(w->ctx[i], (int)w->depth * 2, NULL);
		w->rcq[i] = rk_create_cq(w->ctx[i], (int)w->depth * 2, NULL);
		if (w->pd[i] == NULL || w->scq[i] == NULL || w->rcq[i] == NULL)
			return -ENOMEM;
		qa.send_cq = w->scq[i];
		qa.recv_cq = w->rcq[i];
		qa.cap = (struct rk_qp_cap){ .max_send_wr = w->depth, .max_recv_wr = w->depth,
					     .max_send_sge = 1, .max_recv_sge = 1 };
		w->qp[i] = rk_create_qp(w->pd[i], &qa);
		if (w->qp[i] == NULL)
			return -ENOMEM;
		/* Both ends, before they connect: nothing negotiates it. */
		if (w->cfg->recovery != NULL &&
		    (rc = rk_ib_qp_set_recovery(rk_qp_ib(w->qp[i]), w->cfg->recovery)) != 0)
			return rc;
		if (w->cfg->set_rto_low &&
		    (rc = rk_ib_qp_set_rto_low(rk_qp_ib(w->qp[i]), w->cfg->rto_low_ns,
					       w->cfg->rto_low_n)) != 0)
			return rc;
	}
	for (int i = 0; i < 2; i++)
		if ((rc = connect_qp(w, i)) != 0)
			return rc;
	/*
	 * Mapped, not malloc'd: a size too large for the machine is an error
	 * returned (ASan's malloc aborts), and pages never used take no memory.
	 */
	if (guard_alloc(&w->lbuf, (size_t)w->slot_size * w->depth) != 0 ||
	    guard_alloc(&w->region, pl.region_len) != 0 ||
	    guard_alloc(&w->rbuf, (size_t)w->rslot_size * w->depth) != 0 ||
	    guard_alloc(&w->model, pl.region_len) != 0)
		return -ENOMEM;
	w->slots = calloc(w->depth, sizeof(*w->slots));
	w->rq_cap = w->depth * 2 + 1;
	w->rq = calloc(w->rq_cap, sizeof(*w->rq));
	if (w->slots == NULL || w->rq == NULL)
		return -ENOMEM;
	gen_bytes(UINT64_MAX, w->region.p, pl.region_len);
	memcpy(w->model.p, w->region.p, pl.region_len);
	w->lmr = rk_reg_mr(w->pd[0], w->lbuf.p, w->lbuf.len, RK_ACCESS_LOCAL_WRITE);
	w->region_mr = rk_reg_mr(w->pd[1], w->region.p, w->region.len,
				 RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE |
				 RK_ACCESS_REMOTE_READ | RK_ACCESS_REMOTE_ATOMIC);
	w->rbuf_mr = rk_reg_mr(w->pd[1], w->rbuf.p, w->rbuf.len, RK_ACCESS_LOCAL_WRITE);
	if (w->lmr == NULL || w->region_mr == NULL || w->rbuf_mr == NULL)
		return -ENOMEM;
	for (uint32_t k = 0; k < w->depth; k++)
		if ((rc = post_recv(w, k)) != 0)
			return rc;
	w->res->qp_state_bytes = rk_ib_qp_state_size(rk_qp_ib(w->qp[0]));
	return 0;
}

static void
teardown(struct wl *w)
{
	for (int i = 0; i < 2; i++) {
		if (w->qp[i] != NULL)
			rk_destroy_qp(w->qp[i]);
		if (w->scq[i] != NULL)
			rk_destroy_cq(w->scq[i]);
		if (w->rcq[i] != NULL)
			rk_destroy_cq(w->rcq[i]);
	}
	if (w->lmr != NULL)
		rk_dereg_mr(w->lmr);
	if (w->region_mr != NULL)
		rk_dereg_mr(w->region_mr);
	if (w->rbuf_mr != NULL)
		rk_dereg_mr(w->rbuf_mr);
	for (int i = 0; i < 2; i++) {
		if (w->pd[i] != NULL)
			rk_dealloc_pd(w->pd[i]);
		if (w->ctx[i] != NULL)
			rk_close_device(w->ctx[i]);
	}
	rk_sim_link_destroy(w->link);
	guard_free(&w->lbuf);
	guard_free(&w->region);
	guard_free(&w->rbuf);
	guard_free(&w->model);
	free(w->slots);
	free(w->rq);
}

static uint32_t
pick_size(struct wl *w)
{
	uint32_t max = w->cfg->max_size;
	uint64_t r = rk_splitmix64(&w->rng);

	if (w->cfg->fixed_size)
		return max;
	if (w->cfg->large_sizes || max <= 256)
		return (uint32_t)(r % ((uint64_t)max + 1));
	/* Mostly small, some up to 64 KiB, a few up to max_size: every size class. */
	switch (r % 10) {
	case 0:
		return (uint32_t)((r >> 8) % ((uint64_t)max + 1));
	case 1:
	case 2:
		return (uint32_t)((r >> 8) % ((max < 65536 ? max : 65536) + 1u));
	default:
		return (uint32_t)((r >> 8) % 257);
	}
}

static bool
overlaps_read(struct wl *w, uint64_t off, uint64_t len)
{
	for (uint32_t k = 0; k < w->depth; k++) {
		const struct slot *s = &w->slots[k];

		if (s->busy && s->op == RK_SIM_READ && off < s->roff + s->len &&
		    s->roff < off + len)
			return true;
	}
	return false;
}

/*
 * The 8 bytes at @p off as the next operation posted finds them: the model
 * (completed operations) with the outstanding ones applied in order.
 */
static uint64_t
pending_value(struct wl *w, uint64_t off)
{
	uint8_t b[8];
	uint64_t v;

	memcpy(b, w->model.p + off, 8);
	for (uint64_t id = w->completed_id; id < w->posted; id++) {
		uint32_t k = (uint32_t)(id % w->depth);
		const struct slot *s = &w->slots[k];
		const uint8_t *src;

		if (s->op == RK_SIM_WRITE || s->op == RK_SIM_WRITE_IMM)
			src = w->lbuf.p + (size_t)k * w->slot_size;
		else if (s->op == RK_SIM_CMP_SWP || s->op == RK_SIM_FETCH_ADD)
			src = (const uint8_t *)&s->result;
		else
			continue;
		for (uint64_t i = 0; i < 8; i++)
			if (off + i >= s->roff && off + i < s->roff + s->len)
				b[i] = src[off + i - s->roff];
	}
	memcpy(&v, b, 8);
	return v;
}

static int
post_one(struct wl *w)
{
	uint32_t k = w->next_slot, enabled[RK_SIM_OP_COUNT], n = 0;
	struct slot *s = &w->slots[k];
	uint8_t *local = w->lbuf.p + (size_t)k * w->slot_size;
	struct rk_sge sge = { (uint64_t)(uintptr_t)local, 0, w->lmr->lkey };
	struct rk_send_wr wr = { .sg_list = &sge, .num_sge = 1, .send_flags = RK_SEND_SIGNALED };
	struct rk_send_wr *bad;
	uint64_t rbase = (uint64_t)(uintptr_t)w->region.p;

	if (s->busy)
		return 0;
	for (unsigned int i = 0; i < RK_SIM_OP_COUNT; i++)
		if (w->opmask & (1u << i))
			enabled[n++] = i;
	s->op = (enum rk_sim_op)enabled[rk_splitmix64(&w->rng) % n];
	s->id = w->posted;
	s->len = pick_size(w);
	wr.wr_id = s->id;
	wr.imm_data = (uint32_t)s->id;
	switch (s->op) {
	case RK_SIM_SEND:
	case RK_SIM_SEND_IMM:
		gen_bytes(s->id, local, s->len);
		wr.opcode = s->op == RK_SIM_SEND ? RK_WR_SEND : RK_WR_SEND_WITH_IMM;
		break;
	case RK_SIM_WRITE:
	case RK_SIM_WRITE_IMM:
	case RK_SIM_READ:
		s->roff = rk_splitmix64(&w->rng) % (w->region.len - s->len + 1);
		wr.wr.rdma.remote_addr = rbase + s->roff;
		wr.wr.rdma.rkey = w->region_mr->rkey;
		if (s->op == RK_SIM_READ) {
			wr.opcode = RK_WR_RDMA_READ;
			memset(local, 0xcc, s->len);
		} else {
			wr.opcode = s->op == RK_SIM_WRITE ? RK_WR_RDMA_WRITE :
							    RK_WR_RDMA_WRITE_WITH_IMM;
			gen_bytes(s->id, local, s->len);
			if (overlaps_read(w, s->roff, s->len))
				wr.send_flags |= RK_SEND_FENCE;
		}
		break;
	default: {
		uint64_t orig, cmp = 0, swap = 0, add = 0;

		s->len = 8;
		s->roff = (rk_splitmix64(&w->rng) % (w->region.len / 8)) * 8;
		orig = pending_value(w, s->roff);
		if (s->op == RK_SIM_CMP_SWP) {
			cmp = (rk_splitmix64(&w->rng) & 1) ? orig : orig ^ 1;
			swap = rk_splitmix64(&w->rng);
			wr.opcode = RK_WR_ATOMIC_CMP_AND_SWP;
			s->result = orig == cmp ? swap : orig;
		} else {
			add = rk_splitmix64(&w->rng);
			wr.opcode = RK_WR_ATOMIC_FETCH_AND_ADD;
			s->result = orig + add;
		}
		s->expect_orig = orig;
		wr.wr.atomic.remote_addr = rbase + s->roff;
		wr.wr.atomic.rkey = w->region_mr->rkey;
		wr.wr.atomic.compare_add = s->op == RK_SIM_CMP_SWP ? cmp : add;
		wr.wr.atomic.swap = swap;
		if (overlaps_read(w, s->roff, 8))
			wr.send_flags |= RK_SEND_FENCE;
		memset(local, 0xcc, 8);
		break;
	}
	}
	if ((rbase + s->roff) & 7 && (s->op == RK_SIM_CMP_SWP || s->op == RK_SIM_FETCH_ADD)) {
		fail(w, "internal: misaligned atomic");
		return -EIO;
	}
	sge.length = s->len;
	s->busy = true;
	if (rk_post_send(w->qp[0], &wr, &bad) != 0) {
		fail(w, "post_send of op %" PRIu64 " failed", s->id);
		return -EIO;
	}
	if (s->op == RK_SIM_SEND || s->op == RK_SIM_SEND_IMM || s->op == RK_SIM_WRITE_IMM) {
		w->rq[w->rq_tail % w->rq_cap] = (struct recv_expect){ s->id, s->op, s->len };
		w->rq_tail++;
	}
	/*
	 * PSNs it takes: one per packet of the message, or of the READ's
	 * response (IBTA Vol1 9.7.1); one for an atomic.
	 */
	s->psn = w->next_psn;
	s->posted_ns = w->clock.now_ns;
	{
		uint32_t mtu = 128u << (w->cfg->mtu ? w->cfg->mtu : RK_MTU_1024);
		uint32_t pkts = s->op == RK_SIM_CMP_SWP || s->op == RK_SIM_FETCH_ADD || s->len == 0 ?
				1 : (s->len + mtu - 1) / mtu;

		w->next_psn = (w->next_psn + pkts) & 0xffffff;
	}
	w->posted++;
	w->next_slot = (k + 1) % w->depth;
	return 1;
}

static const enum rk_wc_opcode expect_wc_op[RK_SIM_OP_COUNT] = {
	RK_WC_SEND, RK_WC_SEND, RK_WC_RDMA_WRITE, RK_WC_RDMA_WRITE, RK_WC_RDMA_READ,
	RK_WC_COMP_SWAP, RK_WC_FETCH_ADD,
};

/*
 * Latency histogram: exact below 32 ns, else 32 buckets per power of two
 * (within 1/32 of the value). Percentiles report a bucket's upper bound.
 */
static unsigned int
lat_bucket(uint64_t ns)
{
	unsigned int e;

	if (ns < 32)
		return (unsigned int)ns;
	e = 63u - (unsigned int)__builtin_clzll(ns);    /* 5..63 */
	return 32 * (e - 4) + (unsigned int)((ns >> (e - 5)) & 31);
}

static uint64_t
lat_bucket_top(unsigned int b)
{
	unsigned int e;

	if (b < 32)
		return b;
	e = b / 32 + 4;
	return ((32ull + (b & 31)) << (e - 5)) + ((1ull << (e - 5)) - 1);
}

static void
latency_add(struct rk_sim_wl_result *r, uint64_t ns)
{
	unsigned int b = lat_bucket(ns);

	if (b < RK_SIM_LAT_BUCKETS)
		r->lat_hist[b]++;
	if (ns > r->lat_max_ns)
		r->lat_max_ns = ns;
}

uint64_t
rk_sim_wl_latency(const struct rk_sim_wl_result *r, double q)
{
	uint64_t n = 0, want, seen = 0;

	for (unsigned int b = 0; b < RK_SIM_LAT_BUCKETS; b++)
		n += r->lat_hist[b];
	if (n == 0)
		return 0;
	if (q >= 1.0)
		return r->lat_max_ns;
	want = (uint64_t)(q * (double)n);
	if (want >= n)
		want = n - 1;
	for (unsigned int b = 0; b < RK_SIM_LAT_BUCKETS; b++) {
		seen += r->lat_hist[b];
		if (seen > want) {
			uint64_t top = lat_bucket_top(b);

			return top < r->lat_max_ns ? top : r->lat_max_ns;
		}
	}
	return r->lat_max_ns;
}

static void
check_send_wc(struct wl *w, const struct rk_wc *wc)
{
	uint32_t k = (uint32_t)(w->completed_id % w->depth);
	struct slot *s = &w->slots[k];
	const uint8_t *local = w->lbuf.p + (size_t)k * w->slot_size;
	char line[160];

	if (wc->status != RK_WC_SUCCESS) {
		bool lost = w->cfg->recover && wc->wr_id == w->completed_id && s->busy &&
			    (wc->status == RK_WC_RETRY_EXC_ERR ||
			     (w->need_recover && wc->status == RK_WC_WR_FLUSH_ERR));

		if (!lost) {
			const struct rk_ib_stats *st = rk_context_stats(w->ctx[0]);

			fail(w, "op %" PRIu64 " (%s, first PSN 0x%06x): completion status %s, after %" PRIu64
			     " retransmission timeouts and %" PRIu64 " NAK-SEQ retries",
			     wc->wr_id, rk_sim_op_name(s->op), s->psn,
			     rk_wc_status_str(wc->status), st->req_retransmit_timeouts,
			     st->req_nak_seq_retries);
			return;
		}
		if (w->cfg->log != NULL) {
			snprintf(line, sizeof(line), "%12.6f ms  op %6" PRIu64 " %-9s %8u B  %s",
				 (double)w->clock.now_ns / 1e6, s->id, rk_sim_op_name(s->op),
				 s->len, rk_wc_status_str(wc->status));
			w->cfg->log(w->cfg->log_ctx, line);
		}
		if (!w->need_recover)
			w->first_lost_id = s->id;
		w->need_recover = true;
		s->busy = false;
		w->completed_id++;
		w->res->ops_lost++;
		return;
	}
	if (wc->wr_id != w->completed_id || !s->busy || s->id != wc->wr_id) {
		fail(w, "completion out of order: got wr_id %" PRIu64 ", expected %" PRIu64,
		     wc->wr_id, w->completed_id);
		return;
	}
	if (wc->opcode != expect_wc_op[s->op])
		fail(w, "op %" PRIu64 ": wc opcode %d", wc->wr_id, wc->opcode);
	/* Every operation before this one has completed: the model is its view. */
	if (s->op == RK_SIM_READ) {
		if (wc->byte_len != s->len || memcmp(local, w->model.p + s->roff, s->len) != 0)
			fail(w, "op %" PRIu64 ": READ of %u bytes returned wrong data", s->id, s->len);
		w->res->bytes_verified += s->len;
	} else if (s->op == RK_SIM_CMP_SWP || s->op == RK_SIM_FETCH_ADD) {
		uint64_t got;

		memcpy(&got, local, 8);
		if (got != s->expect_orig)
			fail(w, "op %" PRIu64 ": %s returned %#" PRIx64 ", expected %#" PRIx64,
			     s->id, rk_sim_op_name(s->op), got, s->expect_orig);
		memcpy(w->model.p + s->roff, &s->result, 8);
		w->res->bytes_verified += 8;
	} else if (s->op == RK_SIM_WRITE || s->op == RK_SIM_WRITE_IMM) {
		memcpy(w->model.p + s->roff, local, s->len);
	}
	if (w->cfg->log != NULL) {
		snprintf(line, sizeof(line), "%12.6f ms  op %6" PRIu64 " %-9s %8u B  ok",
			 (double)w->clock.now_ns / 1e6, s->id, rk_sim_op_name(s->op), s->len);
		w->cfg->log(w->cfg->log_ctx, line);
	}
	s->busy = false;
	w->completed_id++;
	w->res->completed++;
	w->res->per_op[s->op]++;
	w->res->payload_bytes += s->len;
	latency_add(w->res, w->clock.now_ns - s->posted_ns);
}

static void
check_recv_wc(struct wl *w, const struct rk_wc *wc)
{
	struct recv_expect e;
	const uint8_t *buf;

	if (wc->status != RK_WC_SUCCESS) {
		fail(w, "receive completion status %s", rk_wc_status_str(wc->status));
		return;
	}
	if (w->rq_head == w->rq_tail) {
		fail(w, "unexpected receive completion");
		return;
	}
	e = w->rq[w->rq_head % w->rq_cap];
	w->rq_head++;
	buf = w->rbuf.p + (size_t)wc->wr_id * w->rslot_size;
	if (e.op == RK_SIM_WRITE_IMM) {
		if (wc->opcode != RK_WC_RECV_RDMA_WITH_IMM || wc->imm_data != (uint32_t)e.id ||
		    wc->byte_len != e.len)
			fail(w, "op %" PRIu64 ": WRITE_IMM receive completion wrong", e.id);
	} else {
		if (wc->opcode != RK_WC_RECV || wc->byte_len != e.len ||
		    ((e.op == RK_SIM_SEND_IMM) != ((wc->wc_flags & RK_WC_WITH_IMM) != 0)) ||
		    (e.op == RK_SIM_SEND_IMM && wc->imm_data != (uint32_t)e.id)) {
			fail(w, "op %" PRIu64 ": receive completion wrong (len %u, expected %u)",
			     e.id, wc->byte_len, e.len);
		} else {
			if (!gen_equal(e.id, buf, e.len))
				fail(w, "op %" PRIu64 ": SEND payload differs", e.id);
			w->res->bytes_verified += e.len;
		}
	}
	w->res->recv_completed++;
	if (post_recv(w, (uint32_t)wc->wr_id) != 0)
		fail(w, "re-posting a receive failed");
}

/* Check every completion on @p cq; whether there was one. */
static bool
drain_cq(struct wl *w, struct rk_cq *cq, void (*check)(struct wl *, const struct rk_wc *),
	 const char *overrun)
{
	struct rk_wc wc[32];
	bool any = false;
	int n;

	while ((n = rk_poll_cq(cq, 32, wc)) > 0) {
		any = true;
		for (int i = 0; i < n; i++)
			check(w, &wc[i]);
	}
	if (n < 0)
		fail(w, "%s", overrun);
	return any;
}

static bool
poll_all(struct wl *w)
{
	struct rk_wc wc;
	bool any = drain_cq(w, w->scq[0], check_send_wc, "send CQ overrun");

	any |= drain_cq(w, w->rcq[1], check_recv_wc, "receive CQ overrun");
	/* Nothing arrives at A's receive queue or B's send queue. */
	if (rk_poll_cq(w->rcq[0], 1, &wc) != 0 || rk_poll_cq(w->scq[1], 1, &wc) != 0)
		fail(w, "unexpected completion on the reverse path");
	return any;
}

/*
 * Reconnect after RETRY_EXC_ERR (cfg.recover). A is in ERR and has flushed
 * its queue; B does not know and still executes whatever reaches it.
 */
static void
recover(struct wl *w)
{
	struct rk_qp_attr a = { .qp_state = RK_QPS_ERR };
	struct rk_wc wc[32];
	int n;

	/* Every frame still on the link arrives before B is torn down. */
	for (uint32_t guard = 0; guard < 10000000 && w->rc == 0; guard++) {
		uint64_t t = UINT64_MAX, x;

		rk_progress(w->ctx[0]);
		rk_progress(w->ctx[1]);
		poll_all(w);
		for (unsigned int i = 0; i < 2; i++) {
			x = rk_sim_link_next_ns(w->link, i);
			t = x < t ? x : t;
		}
		if (t == UINT64_MAX)
			break;
		if (t > w->clock.now_ns)
			w->clock.now_ns = t;
	}
	if (w->completed_id != w->posted) {
		fail(w, "after RETRY_EXC_ERR, %" PRIu64 " operations were neither completed nor flushed",
		     w->posted - w->completed_id);
		return;
	}
	if (rk_modify_qp(w->qp[1], &a, RK_QP_STATE) != 0) {
		fail(w, "moving B to ERR failed");
		return;
	}
	while ((n = rk_poll_cq(w->rcq[1], 32, wc)) > 0)
		for (int i = 0; i < n; i++)
			if (wc[i].status != RK_WC_WR_FLUSH_ERR)
				fail(w, "B's receive completed with %s while in ERR",
				     rk_wc_status_str(wc[i].status));
	/* Receives still expected must belong to lost operations. */
	for (; w->rq_head != w->rq_tail; w->rq_head++)
		if (w->rq[w->rq_head % w->rq_cap].id < w->first_lost_id)
			fail(w, "op %" PRIu64 " completed at A but B never received it",
			     w->rq[w->rq_head % w->rq_cap].id);
	/* Lost WRITEs and ATOMICs may have taken effect, wholly or in part. */
	for (uint64_t id = w->first_lost_id; id < w->posted; id++) {
		const struct slot *s = &w->slots[id % w->depth];

		if (s->op != RK_SIM_READ && s->op != RK_SIM_SEND && s->op != RK_SIM_SEND_IMM)
			memcpy(w->model.p + s->roff, w->region.p + s->roff, s->len);
	}
	w->psn_epoch++;
	for (int i = 0; i < 2; i++) {
		a.qp_state = RK_QPS_RESET;
		if (rk_modify_qp(w->qp[i], &a, RK_QP_STATE) != 0 || connect_qp(w, i) != 0) {
			fail(w, "reconnecting QP %d failed", i);
			return;
		}
	}
	for (uint32_t k = 0; k < w->depth; k++)
		if (post_recv(w, k) != 0)
			fail(w, "re-posting receives after reconnection failed");
	w->need_recover = false;
	w->res->reconnects++;
	if (w->res->reconnects > (w->cfg->max_reconnects ? w->cfg->max_reconnects : 64))
		fail(w, "%" PRIu64 " reconnections after RETRY_EXC_ERR", w->res->reconnects);
}

int
rk_sim_wl_run(const struct rk_sim_wl_cfg *cfg, struct rk_sim_wl_result *res)
{
	struct wl w = { 0 };
	uint64_t limit;
	int rc;

	if (res != NULL)
		memset(res, 0, sizeof(*res));
	if (cfg == NULL || res == NULL || cfg->max_size > (1u << 30) ||
	    (cfg->ip_version != 0 && cfg->ip_version != 4 && cfg->ip_version != 6))
		return -EINVAL;
	w.cfg = cfg;
	w.res = res;
	limit = cfg->max_virtual_ns ? cfg->max_virtual_ns : 3600ull * 1000000000ull;
	rc = setup(&w);
	if (rc != 0) {
		teardown(&w);
		return rc;
	}
	while (w.rc == 0 && res->completed < cfg->ops) {
		bool busy = false;
		uint64_t t = UINT64_MAX, x;

		while (!w.need_recover && w.posted < cfg->ops + res->ops_lost &&
		       w.posted - w.completed_id < w.depth && post_one(&w) > 0)
			busy = true;
		if (rk_progress(w.ctx[0]) > 0)
			busy = true;
		if (rk_progress(w.ctx[1]) > 0)
			busy = true;
		if (poll_all(&w))
			busy = true;
		if (w.need_recover && w.rc == 0) {
			recover(&w);
			continue;
		}
		if (busy)
			continue;
		/* Idle: jump the clock to the next event. */
		for (int i = 0; i < 2; i++) {
			x = rk_sim_link_next_ns(w.link, (unsigned int)i);
			t = x < t ? x : t;
			x = rk_next_event_ns(w.ctx[i]);
			t = x < t ? x : t;
		}
		if (t == UINT64_MAX) {
			fail(&w, "stalled after %" PRIu64 " completions (no event pending)",
			     res->completed);
			break;
		}
		if (t > w.clock.now_ns)
			w.clock.now_ns = t;
		if (w.clock.now_ns > limit) {
			snprintf(res->first_error, sizeof(res->first_error),
				 "virtual time limit after %" PRIu64 " completions", res->completed);
			w.rc = -ETIMEDOUT;
		}
	}
	if (w.rc == 0) {
		if (memcmp(w.region.p, w.model.p, w.region.len) != 0) {
			size_t i = 0;

			while (w.region.p[i] == w.model.p[i])
				i++;
			fail(&w, "target region differs from the model at offset %zu", i);
		}
		res->bytes_verified += w.region.len;
		if (w.rq_head != w.rq_tail && w.rc == 0)
			fail(&w, "%" PRIu64 " receives never completed", w.rq_tail - w.rq_head);
	}
	res->virtual_ns = w.clock.now_ns;
	for (int i = 0; i < 2; i++) {
		res->link[i] = *rk_sim_link_stats(w.link, (unsigned int)i);
		res->stats[i] = *rk_context_stats(w.ctx[i]);
	}
	teardown(&w);
	return w.rc;
}
