/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cross-file internals of lib/ib (rxe_loc.h role): object layouts, the
 * requester, responder and completer entry points, frame building.
 */
#ifndef RK_IB_INTERNAL_H
#define RK_IB_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "rk_bth.h"
#include "rk_cc.h"
#include "rk_lr.h"
#include "rk_build.h"
#include "rk_crc.h"
#include "rk_ib.h"
#include "rk_ib_reason.h"
#include "rk_res.h"
#include "rk_xeth.h"

struct rk_ib_pd {
	struct rk_res_pd res;           /* refs: MRs, QPs, SRQs, AHs */
	struct rk_ib_dev *dev;
};

struct rk_ib_mr {
	struct rk_res_mr res;           /* addr, va, length, access, slot */
	struct rk_ib_pd *pd;
	uint32_t lkey, rkey;
	bool rkey_valid;
};

struct rk_ib_cq {
	struct rk_res_cq res;           /* ring; refs: QPs */
	struct rk_ib_dev *dev;
};

/* The responder's copy of the receive WQE it is filling: room for any SGE count. */
struct rq_wqe {
	uint64_t wr_id;
	uint32_t num_sge;
	struct rk_sge sge[RK_IB_MAX_SGE];
};

/* A receive queue slot: as many SGEs as the queue's max_sge (rq_slot_size). */
struct rq_slot {
	uint64_t wr_id;
	uint32_t num_sge;
	struct rk_sge sge[];
};

struct rk_ib_rq {
	uint8_t *ring;                  /* depth slots of stride bytes */
	uint32_t depth, max_sge, stride;
	uint32_t prod, cons;            /* monotonic */
};

struct rk_ib_srq {
	struct rk_ib_dev *dev;
	struct rk_ib_srq *next;
	struct rk_ib_pd *pd;
	struct rk_ib_rq rq;
	uint32_t refs;
};

enum sq_wqe_state {
	WQE_POSTED = 0,                 /* no PSN yet */
	WQE_STARTED,                    /* PSNs assigned, some packets sent */
	WQE_SENT,                       /* every packet sent at least once */
	WQE_DONE,
};

/*
 * A posted send WR as the engine keeps it: the fields of struct
 * rk_send_wr it reads after rk_ib_post_send() returns, under the same
 * names, in 48 bytes instead of 72 (the chain and SGE pointers are the
 * caller's, the UD address vector is copied into the slot).
 */
struct sq_wr {
	uint64_t wr_id;
	union {
		uint32_t imm_data;      /* host order */
		uint32_t invalidate_rkey;
	};
	uint8_t opcode;                 /* enum rk_wr_opcode */
	uint8_t num_sge;                /* at most RK_IB_MAX_SGE */
	uint16_t send_flags;            /* enum rk_send_flags */
	union {
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
		} rdma;
		struct {
			uint64_t remote_addr, compare_add, swap;
			uint32_t rkey;
		} atomic;
		struct {
			uint32_t remote_qpn, remote_qkey;
		} ud;
	} wr;
};

/*
 * A send queue slot. Slots are sq_stride bytes: the header, the QP's
 * max_send_sge SGEs, then (UD QPs only) the destination's rk_ah_attr, so
 * an RC QP pays for neither unused SGEs nor an address vector. With one
 * SGE an RC slot is 80 bytes: 4096 QPs with 128 WRs each hold 40 MiB.
 * An inline WR's data is at sge[0].addr, its copy in the QP.
 */
struct sq_wqe {
	struct sq_wr wr;
	uint32_t length;                /* bytes of the message */
	uint32_t first_psn, last_psn;   /* assigned when started */
	uint8_t state;
	uint8_t err_status;             /* local error found when starting it */
	bool inline_data;
	struct rk_sge sge[];
};

_Static_assert(sizeof(struct sq_wr) == 48, "a kept send WR is 48 bytes");
_Static_assert(sizeof(struct sq_wqe) == 64, "an RC slot is 64 bytes and its SGEs");

/* Packets of a started WQE: its PSNs. */
static inline uint32_t
sq_wqe_npkts(const struct sq_wqe *w)
{
	return ((w->last_psn - w->first_psn) & 0xffffffu) + 1;
}

/* Requester (rxe_req.c role). */
struct req_state {
	uint32_t psn;                   /* next PSN to send */
	uint32_t wqe_idx;               /* WQE being sent (monotonic SQ index) */
	uint32_t max_sent_psn;          /* highest PSN sent or owed a response */
	bool sent_any;
	uint32_t rd_atomic;             /* READ/ATOMIC started and not completed */
	bool rnr_wait;
	uint64_t rnr_until_ns;
	bool resend_valid;              /* selective repeat: resend_psn alone is owed again */
	uint32_t resend_psn;
};

/* Completer (rxe_comp.c role). */
struct comp_state {
	uint32_t psn;                   /* oldest PSN not acknowledged */
	uint32_t wqe_idx;               /* oldest WQE not completed */
	uint8_t retry_left;
	uint8_t rnr_left;
	uint64_t timer_ns;              /* retransmission deadline, 0 = off */
	uint64_t timer_start_ns;        /* when it was armed */
	bool timer_low;                 /* armed with the recovery's RTO_low */
	bool rto_low_spent;             /* an RTO_low expired since the last progress */
	bool retry_psn_valid;           /* go-back-N to retry_psn already issued */
	bool retry_resent;              /* ... and retry_psn sent again since */
	bool retry_hi_valid;            /* a READ response beyond retry_psn came since */
	bool retry_rewound;             /* a restarted READ stream was re-issued at once */
	uint32_t retry_psn;
	uint32_t retry_hi;              /* ... the highest such PSN */
};

/* Responder resource: one READ or ATOMIC (IBTA Vol1 ch. 9). */
enum { RES_NONE = 0, RES_READ, RES_ATOMIC };

struct resp_res {
	uint8_t type;
	bool pending;                   /* responses left to send */
	bool answered;                  /* the whole response went out once */
	uint32_t first_psn, last_psn, next_psn;
	uint32_t msn;
	uint64_t va;
	uint32_t r_key, length;         /* READ data is fetched through r_key per packet */
	uint64_t orig;                  /* ATOMIC: value before the operation */
};

enum { MSG_NONE = 0, MSG_SEND, MSG_WRITE };

/* Responder (rxe_resp.c role). */
struct resp_state {
	uint32_t epsn;                  /* expected PSN */
	uint32_t msn;
	bool nak_sent;                  /* one NAK-SEQ (or RNR) per gap */
	bool drop_msg;                  /* UC: drop until the next FIRST/ONLY */
	/* message in progress */
	uint8_t msg;
	uint32_t off;                   /* bytes received into the message */
	bool have_rwqe;
	struct rq_wqe rwqe;
	uint64_t wr_va;                 /* WRITE: next VA to write */
	uint32_t wr_rkey;               /* WRITE: R_Key, resolved again per packet */
	uint32_t wr_left;               /* WRITE: DMALen still expected */
	/* one coalesced ACK/NAK */
	bool ack_pending;
	uint8_t ack_syndrome;
	uint32_t ack_psn, ack_msn;
	uint64_t ack_due_ns;
	bool final_nak;                 /* a class C NAK: sent once, in ERR */
	/* responder resources, in arrival order (ring) */
	uint32_t res_head;              /* monotonic: next slot to use */
	uint32_t res_pending;           /* resources with pending set: skips the scan */
	bool cc_valid;                  /* credit code cc_code is that of cc_free RWQEs */
	uint8_t cc_code;
	uint32_t cc_free;
};

struct rk_ib_qp {
	struct rk_ib_dev *dev;
	struct rk_ib_pd *pd;
	struct rk_ib_cq *scq, *rcq;
	struct rk_ib_srq *srq;
	void *context;
	enum rk_qp_type type;
	enum rk_qp_state state;
	uint32_t qpn;
	uint32_t live_idx;              /* position in dev->live */
	bool sq_sig_all;
	struct rk_qp_attr attr;
	uint32_t pmtu;                  /* bytes */
	uint64_t timeout_ns;
	uint16_t sport;                 /* UDP source port, constant per QP */
	uint16_t p_key;
	/* work queues */
	uint8_t *sq;                    /* sq_depth slots of sq_stride bytes (struct sq_wqe) */
	uint32_t sq_depth, sq_prod, sq_stride;
	uint8_t *inline_buf;
	struct rk_ib_rq rq;
	struct req_state req;
	struct comp_state comp;
	struct resp_state resp;
	struct resp_res *res;
	uint32_t nres;
	struct rk_ib_stats stats;       /* this QP's share of dev->stats */
	struct rk_ib_reason_stats reasons;
	enum rk_ib_reason last_reason;
	/* congestion control: NULL = none (rk_cc.h) */
	const struct rk_cc_ops *cc;
	void *cc_state;
	bool cnp_owed;                  /* NP: a CNP waits for the wire */
	/* loss recovery: go-back-N unless set (rk_lr.h) */
	const struct rk_lr_ops *lr;
	void *lr_state;
};

/* Count an event of a QP on the device and on the QP. */
#define RK_QP_COUNT(qp, field) ((qp)->dev->stats.field++, (qp)->stats.field++)
/* Add @p n to a counter of a QP on the device and on the QP. */
#define RK_QP_ADD(qp, field, n) ((qp)->dev->stats.field += (n), (qp)->stats.field += (n))

struct rk_ib_dev {
	struct rk_ib_dev_attr attr;
	struct rk_ib_stats stats;
	uint64_t key_k[4];              /* Feistel round keys */
	uint64_t rng;
	struct rk_res res;              /* PDs, MRs (slot = key_decode(key) >> 16), CQs */
	struct rk_ib_qp **qp;
	uint32_t max_qp;
	/* The QPs that exist, densely: the poll loops walk these, not max_qp slots. */
	struct rk_ib_qp **live;
	uint32_t nlive;
	uint32_t tx_rr;                 /* round-robin cursor into live */
	uint64_t tx_next_ns;            /* paced: the wire is busy until then */
	uint32_t qp_next;               /* next QP slot to try: QPNs round-robin */
	uint32_t kc_key[2], kc_slot[2]; /* last L_Key [0] and R_Key [1] decoded (key_slot) */
	bool kc_valid[2];
	struct rk_ib_srq *srqs;         /* every SRQ, freed with the device */
	/*
	 * rk_ib_poll_tx_sg: sg_allowed while it polls; a builder that left the
	 * payload where it lies sets sg_used and describes it here.
	 */
	bool sg_allowed, sg_used;
	const uint8_t *sg_payload;
	uint32_t sg_len, sg_trailer_len;
	uint8_t sg_trailer[8];
	uint8_t txbuf[RK_IB_MAX_FRAME];
};

/* rk_ib_dev.c */
struct rk_ib_mr *rk_ib_mr_by_rkey(struct rk_ib_dev *dev, uint32_t rkey);
struct rk_ib_mr *rk_ib_mr_by_lkey(struct rk_ib_dev *dev, uint32_t lkey);
bool rk_ib_cq_push(struct rk_ib_cq *cq, const struct rk_wc *wc);
/*
 * Host address of bytes [off, off + len) of @p sge through its L_Key now:
 * NULL when the MR is gone, belongs to another PD, lacks the access bits
 * @p need, or the range leaves the SGE (IBTA Vol1 10.6.3.1 key checks).
 */
uint8_t *rk_ib_sge_ptr(struct rk_ib_qp *qp, const struct rk_sge *sge, uint32_t off,
		       uint32_t len, unsigned int need);
/*
 * Scatter @p len bytes from @p src at message offset @p off over the
 * @p nsge SGEs (room checked by the caller), each looked up again with
 * Local Write; false when one fails.
 */
bool rk_ib_sge_scatter(struct rk_ib_qp *qp, const struct rk_sge *sge, uint32_t nsge,
		       uint32_t off, const uint8_t *src, uint32_t len);
void rk_ib_trace(const struct rk_ib_qp *qp, const char *machine, const char *from,
		 const char *to);

/* rk_ib_reason.c: count reason @p r on the QP and trace it. */
void rk_ib_reason_count(struct rk_ib_qp *qp, enum rk_ib_reason r);

/* rk_resp_ack.c: queue the one coalesced ACK/NAK; the ACK syndrome with its credits. */
void rk_resp_set_ack(struct rk_ib_qp *qp, uint8_t syndrome, uint32_t psn, uint64_t now);
uint8_t rk_resp_ack_syndrome(struct rk_ib_qp *qp);

/* rk_comp.c: go back to comp.psn (go-back-N), remembering it as the retry PSN. */
void rk_comp_go_back(struct rk_ib_qp *qp);
/* rk_comp.c: arm the local ACK timer at @p now (RTO_low when the recovery says so). */
void rk_comp_arm_timer(struct rk_ib_qp *qp, uint64_t now);
/* rk_comp.c: a request packet went out at @p now: start the timer, or lengthen an RTO_low one. */
void rk_comp_sent(struct rk_ib_qp *qp, uint64_t now);

/* rk_resp_tx.c: set or clear res->pending, keeping resp.res_pending right. */
void rk_resp_res_pending(struct rk_ib_qp *qp, struct resp_res *res, bool on);
void rk_resp_res_clear_all(struct rk_ib_qp *qp);

/* rk_qp.c */
void rk_ib_qp_to_error(struct rk_ib_qp *qp);
void rk_ib_qp_flush(struct rk_ib_qp *qp);
void rk_ib_sq_flush(struct rk_ib_qp *qp);
void rk_ib_qp_to_sqe(struct rk_ib_qp *qp);
uint32_t rk_ib_mtu_bytes(enum rk_mtu mtu);

/* The source address of frames on @p ah: its sip, else the device's (all zero: not set). */
static inline const uint8_t *
rk_ib_src_ip(const struct rk_ib_dev *dev, const struct rk_ah_attr *ah)
{
	static const uint8_t zero[16];

	return memcmp(ah->sip, zero, 16) != 0 ? ah->sip : dev->attr.ip;
}

/* Frame building (rk_req.c). */
uint8_t *rk_ib_frame_begin(const struct rk_ib_qp *qp, const struct rk_ah_attr *ah,
			   uint8_t *f, uint32_t ib_len, uint8_t ecn);
uint32_t rk_ib_frame_end(const struct rk_ib_qp *qp, uint8_t *f, uint32_t bth_off,
			 uint32_t payload_end);
/*
 * Payloads from this size up have their share of the ICRC taken where they
 * lie (registered memory, in cache) before the copy into the frame, then
 * rk_ib_frame_finish: one pass over the fresh frame buffer fewer (a 4 KiB
 * copy then CRC of the copy cost 15-25% more than CRC of the source then
 * copy here). Smaller frames keep rk_ib_frame_end's one-call ICRC.
 */
#define RK_IB_CRC_AT_SOURCE_MIN 512u
uint32_t rk_ib_frame_finish(uint8_t *f, uint32_t bth_off, uint32_t payload_end,
			    rk_crc32_state crc);
/*
 * Finish a frame whose payload stays at @p payload (rk_ib_poll_tx_sg): the
 * ICRC over the headers in f (up to hdr_end), the payload and the pad; the
 * pad and ICRC go to the device's trailer. @return the frame's length.
 */
uint32_t rk_ib_frame_finish_sg(struct rk_ib_dev *dev, uint8_t *f, uint32_t bth_off,
			       uint32_t hdr_end, const uint8_t *payload, uint32_t plen);

/* Requester (rk_req.c). */
uint8_t *rk_req_sge_ptr(struct rk_ib_qp *qp, const struct sq_wqe *w, uint32_t i,
			uint32_t off, uint32_t len, unsigned int need);
int rk_req_emit(struct rk_ib_qp *qp, uint64_t now_ns, uint8_t *f);
bool rk_req_ready(const struct rk_ib_qp *qp, uint64_t now_ns);
/* The WQE rk_req_emit would send from, or NULL; then rk_req_emit_wqe sends it. */
struct sq_wqe *rk_req_next(const struct rk_ib_qp *qp, uint64_t now_ns);
int rk_req_emit_wqe(struct rk_ib_qp *qp, struct sq_wqe *w, uint64_t now_ns, uint8_t *f);
void rk_req_seek(struct rk_ib_qp *qp, uint32_t psn);
uint32_t rk_req_npkts(const struct rk_ib_qp *qp, const struct sq_wqe *w);

/* Responder (rk_resp.c; rk_resp_emit, _ready and _emit_owed in rk_resp_tx.c). */
void rk_resp_rx(struct rk_ib_qp *qp, const struct rk_pkt *pkt, uint64_t now_ns);
int rk_resp_emit(struct rk_ib_qp *qp, uint64_t now_ns, uint8_t *f);
bool rk_resp_ready(const struct rk_ib_qp *qp, uint64_t now_ns);
/* rk_resp_emit once rk_resp_ready said true (not asked again). */
int rk_resp_emit_owed(struct rk_ib_qp *qp, uint64_t now_ns, uint8_t *f);
void rk_resp_reset(struct rk_ib_qp *qp);

/* State names of the responder and completer machines. */
extern const char *const rk_resp_state_name[];
extern const char *const rk_comp_state_name[];

/* Completer (rk_comp.c). */
void rk_comp_rx(struct rk_ib_qp *qp, const struct rk_pkt *pkt, uint64_t now_ns);
void rk_comp_timer(struct rk_ib_qp *qp, uint64_t now_ns);
void rk_comp_wqe_done(struct rk_ib_qp *qp, struct sq_wqe *w, enum rk_wc_status st);
bool rk_comp_outstanding(const struct rk_ib_qp *qp);

/*
 * Most PSNs a requester may have outstanding: fewer than 2^23, or the
 * 24-bit PSN comparison (IBTA Vol1 ch. 9) no longer tells old from new.
 */
#define RK_IB_MAX_OUTSTANDING_PSNS ((1u << 23) - 1)

static inline struct sq_wqe *
sq_slot(const struct rk_ib_qp *qp, uint32_t idx)
{
	return (struct sq_wqe *)(void *)(qp->sq + (size_t)(idx % qp->sq_depth) * qp->sq_stride);
}

/* Bytes of one send slot: header, max_sge SGEs, and an address vector for UD. */
static inline uint32_t
sq_slot_size(uint32_t max_sge, bool ud)
{
	size_t n = sizeof(struct sq_wqe) + (size_t)max_sge * sizeof(struct rk_sge) +
		   (ud ? sizeof(struct rk_ah_attr) : 0);

	return (uint32_t)((n + 7) & ~(size_t)7);
}

/* The UD destination stored after the SGEs of a slot (UD QPs only). */
static inline struct rk_ah_attr *
sq_ah(const struct rk_ib_qp *qp, const struct sq_wqe *w)
{
	return (struct rk_ah_attr *)(void *)((uint8_t *)(uintptr_t)w + sizeof(*w) +
					      (size_t)qp->attr.cap.max_send_sge *
					      sizeof(struct rk_sge));
}

static inline uint32_t
rq_slot_size(uint32_t max_sge)
{
	return (uint32_t)(sizeof(struct rq_slot) + (size_t)max_sge * sizeof(struct rk_sge));
}

static inline struct rq_slot *
rq_slot(const struct rk_ib_rq *rq, uint32_t idx)
{
	return (struct rq_slot *)(void *)(rq->ring + (size_t)(idx % rq->depth) * rq->stride);
}

static inline bool
wr_is_rd_atomic(enum rk_wr_opcode op)
{
	return op == RK_WR_RDMA_READ || op == RK_WR_ATOMIC_CMP_AND_SWP ||
	       op == RK_WR_ATOMIC_FETCH_AND_ADD;
}

static inline bool
wr_is_atomic(enum rk_wr_opcode op)
{
	return op == RK_WR_ATOMIC_CMP_AND_SWP || op == RK_WR_ATOMIC_FETCH_AND_ADD;
}

/* Resolve [va, va+len) inside mr: NULL unless wholly inside (wrap-safe). */
static inline uint8_t *
mr_range(const struct rk_ib_mr *mr, uint64_t va, uint64_t len)
{
	if (va < mr->res.va)
		return NULL;
	if (va - mr->res.va > mr->res.length || len > mr->res.length - (va - mr->res.va))
		return NULL;
	return mr->res.addr + (va - mr->res.va);
}

#endif /* RK_IB_INTERNAL_H */
