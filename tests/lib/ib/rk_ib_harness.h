/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two devices, one QP each, wired back to back by hand: tests take the
 * frames one side emits, look at them, drop, reorder or forge frames, and
 * hand them to the other side. Time is a plain counter.
 */
#ifndef RK_IB_HARNESS_H
#define RK_IB_HARNESS_H

#include <stdbool.h>
#include <stdint.h>

#include "rk_build.h"
#include "rk_ib.h"
#include "rk_pkt.h"
#include "rk_probe.h"
#include "rk_xeth.h"

#define H_MEM (1u << 20)
#define H_MAXQ 4096

struct h_frame {
	uint8_t data[RK_IB_MAX_FRAME];
	uint32_t len;
};

struct h_side {
	struct rk_ib_dev *dev;
	struct rk_ib_pd *pd;
	struct rk_ib_cq *scq, *rcq;
	struct rk_ib_srq *srq;
	struct rk_ib_qp *qp;
	uint8_t *mem;                   /* H_MEM bytes, registered as mr */
	struct rk_ib_mr *mr;
	uint8_t mac[6], ip[16];
};

struct h_opts {
	enum rk_qp_type type;
	enum rk_mtu mtu;                /* 0: 1024 */
	uint32_t a_psn, b_psn;          /* a's SQ PSN (= b's RQ PSN) and the reverse */
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
	uint8_t rd_atomic;              /* both directions; 0 means 4 */
	unsigned int access;            /* QP access flags; 0 means all remote */
	uint32_t sq_depth, rq_depth;    /* 0: 64 */
	bool srq;
	uint32_t window;                /* dev max_inflight_pkts */
	uint64_t ack_delay_ns;
	bool no_sig_all;
};

struct harness {
	struct h_side a, b;
	uint64_t now;
	/*
	 * Take frames through rk_ib_poll_tx_sg (large payloads by reference,
	 * put together here) instead of rk_ib_poll_tx: set by h_init when the
	 * environment has RK_TEST_SG=1, so every test also runs that path.
	 */
	bool sg;
	unsigned int sg_frames;         /* frames that came by reference */
	struct h_frame q[H_MAXQ];
	unsigned int n;
};

void h_init(struct harness *h, const struct h_opts *o);
void h_fini(struct harness *h);

/** Take every frame side s emits now into h->q (replacing its contents). */
unsigned int h_tx(struct harness *h, struct h_side *s);
/** Take at most max frames. */
unsigned int h_tx_n(struct harness *h, struct h_side *s, unsigned int max);
/** Parse and deliver one frame to side s. */
void h_rx(struct harness *h, struct h_side *s, const struct h_frame *f);
/** Deliver h->q[i] for i in [0, n) to s. */
void h_rx_all(struct harness *h, struct h_side *s);
/** Run both sides with no loss until nothing moves (timers not advanced). */
unsigned int h_settle(struct harness *h);
/** Advance time to the earliest timer of either side and run the timers. */
uint64_t h_fire_timers(struct harness *h);

/** Parsed fields of a frame. */
uint8_t h_opcode(const struct h_frame *f);
uint32_t h_psn(const struct h_frame *f);
bool h_ack_req(const struct h_frame *f);
uint8_t h_syndrome(const struct h_frame *f);
uint32_t h_msn(const struct h_frame *f);
uint32_t h_payload_len(const struct h_frame *f);
const uint8_t *h_xeth(const struct h_frame *f, enum rk_hdr hdr);
void h_parse(const struct h_frame *f, struct rk_pkt *p);

/** Forge a frame from side from's QP to side to's QP. */
void h_craft(struct harness *h, struct h_frame *f, const struct h_side *from,
	     const struct h_side *to, uint8_t opcode, uint32_t psn, bool ack_req,
	     const struct rk_xeth_fields *x, const void *payload, uint32_t len);

/** Post helpers (one SGE in the side's MR); return the post result. */
int h_post_send(struct h_side *s, uint64_t wr_id, enum rk_wr_opcode op, uint32_t loff,
		uint32_t len, uint64_t raddr, uint32_t rkey, unsigned int flags);
int h_post_atomic(struct h_side *s, uint64_t wr_id, enum rk_wr_opcode op, uint32_t loff,
		  uint64_t raddr, uint32_t rkey, uint64_t cmp_add, uint64_t swap);
int h_post_recv(struct h_side *s, uint64_t wr_id, uint32_t loff, uint32_t len);
/** Remote address of byte off of side s's MR. */
uint64_t h_va(const struct h_side *s, uint32_t off);

/* Extended-header values for h_craft: a RETH, or an AtomicETH. The result
 * lives in a static buffer, valid until the next call. */
const struct rk_xeth_fields *h_reth(uint64_t va, uint32_t rkey, uint32_t len);
const struct rk_xeth_fields *h_atm(uint64_t va, uint32_t rkey, uint64_t swap_add,
				   uint64_t cmp);
/** Poll one completion; returns 1 and fills wc, or 0. */
int h_poll(struct rk_ib_cq *cq, struct rk_wc *wc);

#endif
