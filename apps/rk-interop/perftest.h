/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data phases of perftest's bw/lat tools, shared by the RoCE peer
 * (perftest*.c) and the iWARP one (iwarp.c): buffers, the binary key
 * message (its layout: rk_app_perftest.h), the bw client and send_bw server loops, the result exchange
 * and the result lines. Connection set-up, QP creation and the preamble
 * stay with each transport, which reaches them through struct pt_link_ops.
 * At the end: what the RoCE peer's files share among themselves.
 */
#ifndef RK_INTEROP_PERFTEST_H
#define RK_INTEROP_PERFTEST_H

#include "interop.h"
#include "rk_app_perftest.h"

#define PT_VERSION_LEN RK_PT_VERSION_LEN
#define PT_CYCLE RK_PT_CYCLE
#define PT_CACHE_LINE RK_PT_CACHE_LINE
#define PT_OUT_READS IA_MAX_OUTS
#define PT_SLOT_BUDGET (16u << 20)
#define PT_RECV ((uint64_t)1 << 62)
/* perftest -a: every size 2^1 .. 2^23 bytes (its MAX_SIZE). */
#define PT_ALL_MIN 2u
#define PT_ALL_MAX (8u << 20)

enum pt_verb { PT_WRITE, PT_READ, PT_SEND, PT_ATOMIC };

struct pt;

/* What a transport does for the shared data phases. */
struct pt_link_ops {
	/* One exchange message each way (the client first); 0 or -1 with a message. */
	int (*exchange)(struct pt *t, const void *mine, void *theirs, size_t len);
	/* Serve the port after a loop round that did @p work; extra work done. */
	int (*pump)(struct pt *t, int work);
	/* Nonzero (with a message) when the data QP ended under us. */
	int (*qp_ended)(struct pt *t);
	/* A failed work completion as a message; -1. */
	int (*wc_fail)(struct pt *t, const struct rk_wc *wc);
	/* -R exchange QP (pt_comm_xchg): a failed completion as a message (-1), */
	int (*comm_wc_fail)(struct pt *t, const struct rk_wc *wc);
	/* the receive reposted after a message (0 or -1), */
	int (*comm_repost)(struct pt *t);
	/*
	 * serving the connections while nothing completes: the work done (a
	 * passive server's data QP keeps the exchange's wait alive), or -1
	 * with a message.
	 */
	int (*comm_idle)(struct pt *t);
	/* Whether the peer has closed the exchange connection. */
	bool (*comm_closed)(struct pt *t);
	/* Appended to the send_bw server's "no SEND" timeout message. */
	const char *send_idle_note;
	/* Whether the client's result line ends with the time per iteration. */
	bool usec_per_iter;
	/* One exchange message each way that carries nothing: a barrier; 0 or -1. */
	int (*barrier)(struct pt *t);
	/* The bw client's window (and send_bw's credits) for the size at hand. */
	void (*flow)(struct pt *t);
	/* The passive write/read server's data phase; NULL: nothing to do. */
	int (*passive)(struct pt *t);
};

struct pt {
	struct ia *a;
	const struct pt_link_ops *link;
	void *link_ctx;                 /* the transport's own state */
	bool client, lat;
	bool all;                       /* -a: every size, buffers for PT_ALL_MAX */
	enum pt_verb verb;
	uint32_t size, iters, mtu_enum;
	struct rk_pd *pd;
	struct rk_cq *cq;
	struct rk_qp *qp;
	uint8_t *buf;                   /* local source/sink slots, then the exposed region */
	size_t buf_len, region_off, region_len;
	uint32_t slots;                 /* local slots of @size at buf */
	struct rk_mr *mr;
	uint8_t *rbuf;                  /* receive slots (SEND tests) */
	struct rk_mr *rmr;
	uint32_t rslots;                /* receive slots of @size in rbuf */
	uint32_t rq_depth;              /* receives the QP must hold, any size */
	uint64_t rposted;               /* receives posted for this size */
	struct rk_pt_dest local, remote;
	uint8_t peer_mac[6];
	uint64_t posted, done, recvd;
	double seconds;
	/* -R: the exchange runs over SENDs on a first RDMA-CM connection. */
	bool cm;
	struct rk_app_cm_conn comm, data;
	struct rk_cq *ccq;
	struct rk_qp *cqp;
	struct rk_mr *cmr;
	uint8_t cbuf[2][128];           /* [0] send, [1] receive */
	uint8_t early[128];             /* the peer's next message, come early */
	uint32_t early_len;             /* its length; 0: none */
	uint32_t comm_psn;
	/* Faults injected on this connection (--bad-rkey, --psn-skew). */
	bool bad_rkey;
	uint32_t psn_skew;
	/* bw client data loop, one step at a time (see pt_bw_client_step). */
	uint8_t *ref;                   /* READ 0's bytes */
	uint64_t first;                 /* FETCH_AND_ADD 0's result */
	uint32_t window;                /* operations in flight; set by the transport's setup */
	uint64_t t0;
	/* -D: the client posts until end_ns; the receiver of SENDs stops
	 * after it, once no SEND came for a while (the sender's last ones). */
	uint64_t end_ns;                /* 0: run --iters */
	struct rk_app_pacer pace;       /* --rate_limit: the client's posts */
	uint64_t last_rx_ns;
	int fd;                         /* the TCP exchange (ia.fd while in use) */
	/*
	 * send_bw without RNR (iWARP): the sender stays below rx_depth
	 * messages past the count the receiver RDMA-Writes (32-bit, little
	 * endian) into the first word of its region, every @credit_step receives.
	 */
	bool credits;
	uint32_t credit_step;
	double peer_mbs;                /* the peer's average in its bw report (MB/s) */
};

/*
 * The exchange's first steps: version (the peer's into @p rver, checked),
 * cycle buffer (the peer's into *@p peer_cycle), cache line, and the MTU
 * message (@p mtu, the peer's into @p rmtu). 0 or -1 with a message.
 */
int pt_preamble(struct pt *t, const char mtu[2], char rmtu[3], char rver[PT_VERSION_LEN + 1],
		uint32_t *peer_cycle);
/*
 * -R: one exchange message each way as SENDs on the exchange QP t->cqp
 * (the client first; wr_id 1 is its receive of t->cbuf[1], wr_id 2 our
 * SEND, waited for as well); 0 or -1 with a message, also after
 * o.oob_timeout_s without the peer's.
 */
int pt_comm_xchg(struct pt *t, const void *mine, void *theirs, size_t len);
/*
 * Local slots, the exposed region, receive slots, their MRs (@p access)
 * and the CQ, for @size (-a: for PT_ALL_MAX, then set to PT_ALL_MIN).
 */
int pt_alloc(struct pt *t, int access);
/* Make @p size the message size: the slots of it that fit the buffers. */
void pt_size(struct pt *t, uint32_t size);
int pt_post_recv(struct pt *t, uint32_t slot);
/* The receives of a send_bw server for this size: min(rslots, iters); 0 or -1. */
int pt_post_recvs(struct pt *t);
/* The binary key message (zeros while the QP is NULL); the peer's real one into *@p out. */
int pt_keys_bin(struct pt *t, struct rk_pt_dest *out);
/* Post operation @p it of the test; 0, 1 when the send queue is full, -1 with a message. */
int pt_post_op(struct pt *t, uint64_t it);
/* Check what the completed READ or FETCH_AND_ADD @p it brought back; 0 or -1. */
int pt_check_result(struct pt *t, uint64_t it, uint8_t *ref, uint64_t *first);
int pt_bw_client_begin(struct pt *t);
/*
 * -D: from now the test runs open-ended (iters UINT32_MAX) until -D
 * seconds are up; then the client drains what it posted and the receiver
 * of SENDs stops once none came for PT_DURATION_QUIET_NS. Nothing without -D.
 */
void pt_duration_begin(struct pt *t);
#define PT_DURATION_QUIET_NS 300000000ull
/* Post what the window allows, reap completions: their count, or -1 with a message. */
int pt_bw_client_step(struct pt *t);
int pt_run_bw_client(struct pt *t);
/* One round of the send_bw server: its completions, or -1 with a message. */
int pt_send_server_step(struct pt *t);
int pt_send_server(struct pt *t);
/*
 * The data phase of a bw test after the set-up's barriers, as perftest
 * runs it: once, or with -a for each size 2^1 .. 2^23 with a result line
 * each. send_bw's sizes after the first start with the server's receives
 * and a barrier, and every send_bw size under -a ends with a barrier;
 * write/read/atomic sizes follow each other directly (the passive server
 * sees only the end). 0 or -1 with a message.
 */
int pt_run(struct pt *t);
/*
 * perftest_bidir.c, the TCP exchange's -b data phase: both ends post
 * (write/read: the bw client's loop; send_bw: SENDs and receives, the
 * server's first SEND after the client's first arrived). 0 or -1.
 */
int pt_run_bidir(struct pt *t);
/*
 * --run_infinitely: post (or serve) without end, a result line per
 * o.interval_s over that interval, until SIGINT/SIGTERM (what was posted
 * then completes) or the peer's end of the exchange; then a summary and
 * "result: ok". 0 or -1 with a message.
 */
int pt_run_forever(struct pt *t);
/* The bw result exchange: size, iterations, peak, average (MB/s), Mpps (the peer's average into t->peer_mbs). */
int pt_reports(struct pt *t, uint64_t *peer_iters);
/* Server-side checks (@p sum0: the region's word sum before), result lines; 0 or -1. */
int pt_result(struct pt *t, uint64_t sum0, uint64_t peer_iters);
void pt_release(struct pt *t);

/*
 * The RoCE peer: the exchange and set-up (perftest.c), one connection's
 * test (perftest_run.c), several connections at once (perftest_multi.c).
 */
/* A struct pt for the command line's test over RoCE, not yet connected. */
void pt_roce_init(struct pt *t, struct ia *a);
/* Whether the test ends with the bw result exchange: the bw tools but send_bw. */
bool pt_bw_report(const struct pt *t);
/* The preamble; the path MTU becomes the smaller of both. 0 or -1 with a message. */
int pt_roce_preamble(struct pt *t);
/* PD (unless set), buffers, CQ and the data QP in INIT; its keys into t->local. */
int pt_roce_create(struct pt *t);
/*
 * One key message each way (-R: the binary one); the peer's into *@p out,
 * or with @p out NULL a barrier. 0 or -1 with a message.
 */
int pt_roce_keys(struct pt *t, struct rk_pt_dest *out);
/* TCP exchange: the data QP to RTS towards t->remote (its GID's IPv4 address). */
int pt_roce_connect(struct pt *t);
/* The bw client's window for the size at hand. */
void pt_roce_window(struct pt *t);
/* A failed data completion as a message; -1. */
int pt_roce_wc_fail(struct pt *t, const struct rk_wc *wc);
/* Passive side of write/read/atomic: serve until the client's next message. */
int pt_roce_passive(struct pt *t);
/* Connect (by role and exchange) up to the data phase; 0 or -1 with a message. */
int pt_roce_setup(struct pt *t);
/* After the data phase: reports, last barriers, close, checks (@p sum0: pt_result's), result. */
int pt_roce_finish(struct pt *t, uint64_t sum0);
/* The bw client of two servers, on o.tcp_port and o.pair_port; 0 or -1. */
int ia_perftest_pair(struct ia *a);
/* perftest -q N over the TCP exchange; 0 or -1. */
int ia_perftest_qps(struct ia *a);

#endif /* RK_INTEROP_PERFTEST_H */
