/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The responder engine: an RC responder on one port's verbs device for
 * perftest clients (ib_write_bw, ib_read_bw, ib_send_bw, ib_atomic_bw)
 * over perftest's TCP exchange or, with -R, RDMA-CM (responder_cm.c).
 * responder.c takes the clients on a control thread and serves each on a
 * thread of its own, up to RK_TP_RESP_CLIENTS at once
 * (responder_clients.c); the forwarding loop (fwd_responder.c) hands the
 * port's frames to the device, answers ARP, queues QP1's CM MADs for the
 * client threads and keeps the receives of send_bw posted. They share
 * the sessions under rk_tp_rdma_lock.
 */
#ifndef RK_TP_RESPONDER_H
#define RK_TP_RESPONDER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rdma.h"
#include "rk_app_perftest.h"
#include "rk_cm.h"
#include "rk_verbs.h"

struct rk_tp_rdma_dev;

#define RK_TP_RESP_NEIGH 8
#define RK_TP_RESP_MAX_SIZE (8u << 20)
#define RK_TP_RESP_CLIENTS 16 /* clients served at once; more are refused */
#define RK_TP_RESP_QPS 16     /* QPs per client (perftest -q), TCP exchange only */

/** What a client's QP saw, and the objects the forwarding loop serves. */
struct rk_tp_resp_sess {
	struct rk_cq *cq;
	struct rk_qp *qp;
	struct rk_mr *mr, *rmr;
	uint8_t *buf;           /* the region the client WRITEs, READs, adds to */
	size_t buf_len;
	uint8_t *rbuf;          /* receive slots of max_size bytes (send_bw) */
	uint32_t rslots;
	/* the forwarding loop's counts (under rk_tp_rdma_lock) */
	uint64_t recvd, recv_bytes, wc_errors;
	uint32_t recv_len;      /* the first receive's length */
	uint64_t len_mismatch;  /* receives of another length than the first */
	struct rk_tp_resp_sess *next;   /* the client's next QP (perftest -q), or NULL */
	unsigned int n, qps;            /* the first QP's: the client's number and QPs */
};

/** The responder's state: set by "responder start", one instance. */
struct rk_tp_resp {
	bool running;                   /* the control thread is up */
	volatile bool stop;             /* "responder stop": end the thread */
	bool rdma_cm;                   /* perftest -R: RDMA-CM, not the TCP exchange */
	enum rk_qp_type qp_type;        /* RC; UC or UD for perftest -c UC|UD */
	uint16_t port, tcp_port;        /* tcp_port: the RDMA-CM port with rdma_cm */
	uint32_t max_size;              /* bytes: the largest message answered */
	unsigned int max_clients;       /* served at once, 1..RK_TP_RESP_CLIENTS; 0: the most */
	double idle_s;                  /* no message and no frame this long: give up */
	/* under rk_tp_rdma_lock */
	struct rk_tp_resp_sess *sess[RK_TP_RESP_CLIENTS];   /* connected clients' first QPs */
	unsigned int serving;           /* non-NULL entries of sess */
	unsigned int next_n;            /* the last client's number (RDMA-CM) */
	struct {
		bool used;
		uint8_t ip[4], mac[6];
	} neigh[RK_TP_RESP_NEIGH];      /* learnt from ARP */
	uint64_t clients, ok, failed, tools[4];
	uint64_t busy;                  /* clients refused: RK_TP_RESP_CLIENTS being served */
	uint64_t arp_answered, arp_requests;
	/* CM MADs from the forwarding loop, and what became of them */
	struct rk_tp_cmq cmq;
	uint64_t cm_malformed, cm_rej_service, cm_refused;
	uint64_t cm_qps_refused;        /* perftest -R -q N clients (their REQs beyond one data) */
};

struct rk_tp_resp_cm;

/** One client being served (the control thread's). */
struct rk_tp_resp_client {
	int fd;                         /* the TCP exchange; -1 with -R */
	unsigned int n;                 /* its number, from 1 in the order they came */
	int slot;                       /* its thread's (responder_clients.c) */
	struct rk_tp_resp_sess s;       /* the first QP (-R: the only one) */
	struct rk_pt_dest local, remote;
	unsigned int qps;               /* perftest -q: 1..RK_TP_RESP_QPS */
	struct rk_tp_resp_qp {          /* QPs 2..qps: sessions chained from s.next */
		struct rk_tp_resp_sess s;
		struct rk_pt_dest local, remote;
	} *more[RK_TP_RESP_QPS - 1];
	uint32_t mtu_enum;
	int first;              /* the next message's first byte, read already; -1: none */
	char peer[48];          /* the client's address */
	char version[RK_PT_VERSION_LEN + 1];    /* the client's perftest */
	char err[200];
	struct rk_tp_resp_cm *cm;       /* -R: the exchange QP and both connections */
};

extern struct rk_tp_resp rk_tp_resp;

/* ---------------------------------------------------- responder.c */

/**
 * "responder start": open @p port's verbs device, listen on TCP
 * @p tcp_port (all addresses) or, with @p rdma_cm, for RDMA-CM REQs of
 * service ID TCP port space:@p tcp_port on the device (perftest -R), and
 * serve perftest clients, up to RK_TP_RESP_CLIENTS at once, each on a
 * thread of its own, with buffers for messages of up to @p max_size
 * bytes (1..RK_TP_RESP_MAX_SIZE); their QPs of @p type: RC (IBTA Vol1
 * 9.7), UC (perftest -c UC, remote write only) or UD (-c UD: send_bw,
 * Q_Key RK_TP_QKEY, each receive with its 40-byte GRH first, 9.8);
 * UC and UD not with @p rdma_cm. Frames reach the device only while the
 * responder engine forwards ("set fwd responder", "start").
 * @return 0, or negative errno after a line on @p out (-EALREADY,
 *         -EADDRINUSE, -EINVAL, -ENODEV)
 */
int rk_tp_resp_start(FILE *out, uint16_t port, uint16_t tcp_port, uint32_t max_size,
		     bool rdma_cm, enum rk_qp_type type);

/**
 * "set responder clients": serve at most @p n clients at once (1..
 * RK_TP_RESP_CLIENTS; those being served go on), a line on @p out.
 */
void rk_tp_resp_set_clients(FILE *out, unsigned int n);

/** The most clients served at once ("set responder clients", else RK_TP_RESP_CLIENTS). */
unsigned int rk_tp_resp_max_clients(void);

/** "responder stop": end the control thread and the clients' (those being served fail). */
void rk_tp_resp_stop(FILE *out);

/* What responder_cm.c shares with responder.c (control thread). */

/** Note why @p c fails (the first reason stays). @return -1 */
int rk_tp_resp_fail(struct rk_tp_resp_client *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/** Between polls: a short sleep. @return 1 after "responder stop", else 0 */
int rk_tp_resp_serve(void *arg);

/**
 * The preamble over @p x, the path MTU, then the QP, region and receive
 * slots (INIT, receives posted). @return 0, or -1 (c->err says why)
 */
int rk_tp_resp_begin(struct rk_tp_resp_client *c, rk_pt_xchg_fn x);

/** The MAC of @p ip by ARP (3 s). @return 0, or -1 (c->err says why) */
int rk_tp_resp_resolve(struct rk_tp_resp_client *c, const uint8_t ip[4], uint8_t mac[6]);

/* ---------------------------------------------------- responder_qp.c */

/**
 * A QP of @p c's into @p s (of rk_tp_resp.qp_type), its region and receive
 * slots, to INIT with the receives posted, and its keys into @p local.
 * Caller holds rk_tp_rdma_lock. @return 0, or -1 (c->err says why)
 */
int rk_tp_resp_qp_create(struct rk_tp_resp_client *c, struct rk_tp_rdma_dev *d,
			 struct rk_tp_resp_sess *s, struct rk_pt_dest *local);

/**
 * perftest -q: one more QP for @p c, for the client's QP of keys
 * @p remote (c->qps grows). @return 0, or -1 (c->err says why: at most
 * RK_TP_RESP_QPS)
 */
int rk_tp_resp_qp_more(struct rk_tp_resp_client *c, const struct rk_pt_dest *remote);

/** The keys of @p c's QP connected to the client's QPN @p qpn (the first QP's when none). */
const struct rk_pt_dest *rk_tp_resp_qp_keys(const struct rk_tp_resp_client *c, uint32_t qpn);

/**
 * Every QP of @p c to RTS, connected to the client's (the client's MAC by
 * ARP), then served by the forwarding loop. @return 0, or -1 (c->err)
 */
int rk_tp_resp_qp_connect(struct rk_tp_resp_client *c);

/** Out of the forwarding loop's sessions, and free @p c's QPs and their objects. */
void rk_tp_resp_qp_release(struct rk_tp_resp_client *c);

/* ----------------------------------------------- responder_clients.c */

/** What a client thread runs: serve @p c, then free it. */
typedef void (*rk_tp_resp_client_fn)(struct rk_tp_resp_client *c);

/**
 * Serve @p c by @p fn on a thread of its own (c->slot set). @p waiting:
 * the thread waits for its client to come (RDMA-CM's listener) until
 * rk_tp_resp_took(). Control thread only.
 * @return 0; -EBUSY when rk_tp_resp_max_clients() threads run (@p c untouched);
 *         negative errno from pthread_create
 */
int rk_tp_resp_spawn(struct rk_tp_resp_client *c, rk_tp_resp_client_fn fn, bool waiting);

/** @p c's thread got its client: another may wait now. */
void rk_tp_resp_took(const struct rk_tp_resp_client *c);

/** Whether a client thread waits for its client. Control thread only. */
bool rk_tp_resp_waiting(void);

/** Join the client threads that ended. Control thread only. @return threads running */
unsigned int rk_tp_resp_reap(void);

/** Join every client thread (after "responder stop"). Control thread only. */
void rk_tp_resp_join_all(void);

/**
 * Put @p s among the sessions the forwarding loop serves (once; there is
 * room for every client thread's). Caller holds rk_tp_rdma_lock.
 */
void rk_tp_resp_sess_add(struct rk_tp_resp_sess *s);

/** Take @p s out of the served sessions (no-op when absent); caller holds rk_tp_rdma_lock. */
void rk_tp_resp_sess_del(const struct rk_tp_resp_sess *s);

/* ----------------------------------------------- responder_verdict.c */

/**
 * After the client's end: the tool by the QP's counters, the checks, the
 * line and the counters. @p peer is its report (@p reported), @p sum0 the
 * region's word sum before the test.
 */
void rk_tp_resp_verdict(struct rk_tp_resp_client *c, const struct rk_pt_report *peer,
			bool reported, uint64_t sum0);

/** "show responder": the settings and the counters. */
void rk_tp_resp_show(FILE *out);

/** What became of QP1's CM MADs, one line on @p out; caller holds rk_tp_rdma_lock. */
void rk_tp_resp_cm_counters(FILE *out);

/* ---------------------------------------------------- responder_cm.c */

/**
 * Serve one perftest -R client: wait for its exchange connection's REQ
 * (until "responder stop"), the exchange over it, the data connection,
 * answers until it disconnects, the verdict; disconnects what is left.
 * @return 0 when a client was served, 1 when stopped before one came
 */
int rk_tp_resp_cm_client(struct rk_tp_resp_client *c);

/** Free what rk_tp_resp_cm_client() left of @p c (the exchange QP's objects). */
void rk_tp_resp_cm_release(struct rk_tp_resp_client *c);

/**
 * The forwarding loop's hook: when @p frame (@p len bytes) is a CM MAD
 * for QP1 (RoCEv2, rk_app_cm_frame_mad()) and "responder start ...
 * rdma_cm" runs, queue it for the control thread (dropped and counted
 * when RK_TP_CMQ wait). Caller holds rk_tp_rdma_lock.
 * @return true when the frame was a CM MAD (the caller frees it)
 */
bool rk_tp_resp_cm_mad(const uint8_t *frame, uint32_t len);

/* ------------------------------------------------ fwd_responder.c */

/**
 * An ARP packet (RFC 826; @p frame an untagged Ethernet frame of @p len
 * bytes) received on the responder's port: learn the sender, answer a
 * request for the device's IPv4. Caller holds rk_tp_rdma_lock.
 */
void rk_tp_resp_arp(const uint8_t *frame, uint32_t len);

/**
 * Send the Ethernet frame @p f (@p len bytes, padded to 60) on @p port's
 * queue 0. Caller holds rk_tp_rdma_lock. @return 0 or negative errno
 */
int rk_tp_resp_tx(uint16_t port, const uint8_t *f, uint32_t len);

/**
 * Send an ARP request for @p ip on the responder's port. Caller holds
 * rk_tp_rdma_lock. @return 0 or negative errno
 */
int rk_tp_resp_arp_request(const uint8_t ip[4]);

/** The MAC learnt for @p ip into @p mac; caller holds rk_tp_rdma_lock. @return found */
bool rk_tp_resp_neigh(const uint8_t ip[4], uint8_t mac[6]);

/**
 * Forget what ARP told about @p ip (a new client on the same address may
 * be another host, or a new process with another MAC). Caller holds
 * rk_tp_rdma_lock.
 */
void rk_tp_resp_neigh_forget(const uint8_t ip[4]);

#endif /* RK_TP_RESPONDER_H */
