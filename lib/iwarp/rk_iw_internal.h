/* SPDX-License-Identifier: BSD-3-Clause */
/* iWARP engine internals: object layouts shared by rk_iw_dev.c and rk_iw_qp.c. */
#ifndef RK_IW_INTERNAL_H
#define RK_IW_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "rk_iw.h"
#include "rk_iw_reason.h"
#include "rk_mpa.h"
#include "rk_rdmap.h"
#include "rk_res.h"

/* Untagged queues: Send, Read Request, Terminate, Atomic Req/Resp. */
#define IW_NQ 5

struct rk_iw_dev {
	struct rk_res res;          /* PDs, MRs (slot = STag >> 8; slot 0 unused), CQs */
	uint64_t key_state;
	struct rk_iw_qp *qps;
	struct rk_iw_stats stats;
};

struct rk_iw_pd {
	struct rk_res_pd res;       /* refs: regions and QPs */
	struct rk_iw_dev *dev;
};

struct rk_iw_mr {
	struct rk_res_mr res;       /* addr, va, length, access, slot */
	struct rk_iw_pd *pd;
	uint32_t stag;
	bool invalidated;
};

struct rk_iw_cq {
	struct rk_res_cq res;       /* ring; refs: QPs */
	struct rk_iw_dev *dev;
};

/* A send WQE. */
struct iw_swqe {
	uint64_t wr_id;
	enum rk_wr_opcode opcode;
	unsigned int flags;
	uint32_t imm_inv;           /* imm_data or invalidate STag */
	uint64_t remote_addr;
	uint32_t rkey;
	uint64_t compare_add, swap;
	int num_sge;
	struct rk_sge sge[RK_IW_MAX_SGE];
	uint64_t len;               /* message bytes */
	uint64_t off;               /* bytes framed so far */
	uint8_t phase;              /* WRITE_WITH_IMM: 0 Write, 1 Immediate Data */
	bool framed;                /* every FPDU built */
	bool done;
	enum rk_wc_status status;
};

struct iw_rwqe {
	uint64_t wr_id;
	int num_sge;
	struct rk_sge sge[RK_IW_MAX_SGE];
	uint64_t len;
};

/* Outstanding Read / Atomic we sent (answered in order). */
enum { OUT_READ, OUT_RTR_READ, OUT_ATOMIC };
struct iw_out {
	uint8_t kind;
	uint32_t sq_idx;            /* SQ counter of the WQE */
	uint32_t sink_stag;
	uint64_t sink_to;
	uint32_t size, rcvd;
	uint32_t req_id;
};

/* Inbound Read / Atomic we owe a response to. */
enum { IRQ_READ, IRQ_ATOMIC };
struct iw_irq {
	uint8_t kind;
	uint32_t sink_stag;
	uint64_t sink_to;
	uint32_t size, sent;
	uint32_t src_stag;
	uint64_t src_to;
	uint32_t req_id;
	uint64_t orig;
};

/* What the FPDU in the transmit buffer finishes when handed out. */
enum { TXM_NONE, TXM_MPA, TXM_WQE_LAST, TXM_TERM, TXM_REJECT };

struct rk_iw_qp {
	struct rk_iw_dev *dev;
	struct rk_iw_qp *next;
	struct rk_iw_pd *pd;
	struct rk_iw_cq *scq, *rcq;
	void *context;
	uint32_t qp_num;            /* the caller's, for completions */
	bool sig_all, ext_ops;
	struct rk_iw_conn_attr conn;
	uint8_t my_pd[RK_MPA_PD_MAX];
	enum rk_iw_state state;
	struct rk_iw_error err;
	enum rk_iw_reason last_reason;  /* the Terminate's, RK_IW_R_NONE before */
	struct rk_iw_reason_stats reasons;
	struct rk_iw_negotiated neg;
	bool neg_valid;
	uint64_t deadline;

	/* MPA frames */
	uint8_t rr_buf[RK_MPA_RR_HDR_LEN + RK_MPA_PD_MAX];
	uint32_t rr_have, rr_need;
	struct rk_mpa_rr req_sent;  /* initiator: what it asked for */
	uint8_t peer_pd[RK_MPA_PD_MAX];
	uint16_t peer_pd_len;

	/* receive side */
	struct rk_mpa_stream *rxs;
	uint32_t rx_seq;
	bool rx_stop;               /* Terminate sent or received */
	uint32_t msn_rx[IW_NQ];
	uint32_t mo_rx[IW_NQ];

	/* transmit side */
	uint32_t tx_seq;            /* sequence number of the next byte framed */
	uint32_t tx_seq0;           /* SeqStart of our marker grid */
	uint32_t msn_tx[IW_NQ];
	uint8_t *txbuf;
	uint32_t txcap, txlen, txoff;
	uint8_t txm;
	uint32_t txm_idx;
	uint8_t *ulpdu;
	uint16_t mulpdu;
	bool rtr_pending;           /* initiator: RTR message still to send */
	bool term_pending;
	uint8_t term_ulpdu[RK_DDP_UNTAGGED_LEN + RK_RDMAP_TERM_CTRL_LEN +
			   RK_RDMAP_TERM_SEGLEN_LEN + RK_DDP_UNTAGGED_LEN +
			   RK_RDMAP_READ_REQ_LEN];
	uint16_t term_len;
	bool closed;                /* nothing more will be sent */

	/* queues */
	struct iw_swqe *sq;
	uint32_t sq_size, sq_head, sq_next, sq_tail;   /* counters */
	struct iw_rwqe *rq;
	uint32_t rq_size, rq_head, rq_tail;
	uint32_t max_send_sge, max_recv_sge;
	struct iw_out out[RK_IW_MAX_IRD_ORD + 1];
	uint32_t out_head, out_count;
	struct iw_irq irq[RK_IW_MAX_IRD_ORD + 1];
	uint32_t irq_head, irq_count;
	uint32_t next_req_id;
};

struct rk_iw_mr *rk_iw_stag_lookup(struct rk_iw_dev *dev, uint32_t stag);
void rk_iw_cq_push(struct rk_iw_cq *cq, const struct rk_wc *wc);

/* Terminate Layers and ETypes (RFC 5040 4.8, RFC 5041 7.2, RFC 5044 8). */
enum {
	L_RDMAP = RK_TERM_LAYER_RDMAP, L_DDP = RK_TERM_LAYER_DDP, L_LLP = RK_TERM_LAYER_LLP,
};
#define ET_RDMAP_PROT 1
#define ET_DDP_TAGGED 1
#define ET_DDP_UNTAGGED 2

#define DEFAULT_IRD_ORD 8

/* Remote access check results (rk_iw_remote_check). */
enum { ACC_OK, ACC_STAG, ACC_PD, ACC_RIGHTS, ACC_WRAP, ACC_BOUNDS };

static inline struct iw_swqe *
rk_iw_sq_at(struct rk_iw_qp *qp, uint32_t c)
{
	return &qp->sq[c % qp->sq_size];
}

static inline struct iw_rwqe *
rk_iw_rq_at(struct rk_iw_qp *qp, uint32_t c)
{
	return &qp->rq[c % qp->rq_size];
}

/* The IRD and ORD rings (qp->irq, qp->out): slot @p k after @p head. */
static inline uint32_t
rk_iw_ring_slot(uint32_t head, uint32_t k)
{
	return (head + k) % (RK_IW_MAX_IRD_ORD + 1);
}

/* Claim and clear the slot after the last of such a ring (@p size-byte entries). */
static inline void *
rk_iw_ring_push(void *ring, size_t size, uint32_t head, uint32_t *count)
{
	uint8_t *e = (uint8_t *)ring + (size_t)rk_iw_ring_slot(head, (*count)++) * size;

	memset(e, 0, size);
	return e;
}

/* Shared by rk_iw_qp.c, rk_iw_mpa.c, rk_iw_rx.c and rk_iw_tx.c. */
void rk_iw_close_now(struct rk_iw_qp *qp, enum rk_iw_close_reason why);
void rk_iw_flush_all(struct rk_iw_qp *qp, enum rk_wc_status first);
size_t rk_iw_mpa_rx(struct rk_iw_qp *qp, const uint8_t *p, size_t len);
struct iw_out *rk_iw_out_head(struct rk_iw_qp *qp);
void rk_iw_queue_term(struct rk_iw_qp *qp, enum rk_iw_reason why, const struct rk_rdmap_msg *m,
		      const uint8_t *seg, uint16_t seg_len);
void rk_iw_queue_term_asked(struct rk_iw_qp *qp, uint8_t layer, uint8_t etype, uint8_t code);
int rk_iw_remote_check(struct rk_iw_qp *qp, uint32_t stag, uint64_t to, uint64_t n,
		       unsigned int need, struct rk_iw_mr **out);
void rk_iw_rq_complete_head(struct rk_iw_qp *qp, enum rk_wc_status st, uint32_t byte_len,
			    enum rk_wc_opcode op, unsigned int flags, uint32_t imm_inv);
int rk_iw_sge_copy(struct rk_iw_qp *qp, const struct rk_sge *sge, int nsge, uint64_t off,
		   uint8_t *buf, uint32_t n, bool to_sge);
void rk_iw_sq_complete(struct rk_iw_qp *qp);
void rk_iw_term_acc(struct rk_iw_qp *qp, int acc, bool rdmap_layer, const struct rk_rdmap_msg *m,
		    const uint8_t *seg, uint16_t len);

#endif /* RK_IW_INTERNAL_H */
