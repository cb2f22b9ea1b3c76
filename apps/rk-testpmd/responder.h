/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The responder engine: an RC responder on one port's verbs device for
 * perftest clients (ib_write_bw, ib_read_bw, ib_send_bw, ib_atomic_bw)
 * over perftest's TCP exchange (not -R, RDMA-CM). responder.c runs the
 * exchange of one client after another on a control thread; the
 * forwarding loop (fwd_responder.c) hands the port's frames to the
 * device, answers ARP and keeps the receives of send_bw posted. Both
 * sides share the session under rk_tp_rdma_lock.
 */
#ifndef RK_TP_RESPONDER_H
#define RK_TP_RESPONDER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rk_verbs.h"

#define RK_TP_RESP_NEIGH 8
#define RK_TP_RESP_MAX_SIZE (8u << 20)

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
};

/** The responder's state: set by "responder start", one instance. */
struct rk_tp_resp {
	bool running;                   /* the control thread is up */
	volatile bool stop;             /* "responder stop": end the thread */
	uint16_t port, tcp_port;
	uint32_t max_size;              /* bytes: the largest message answered */
	double idle_s;                  /* no message and no frame this long: give up */
	/* under rk_tp_rdma_lock */
	struct rk_tp_resp_sess *cur;    /* the client being served, NULL between */
	struct {
		bool used;
		uint8_t ip[4], mac[6];
	} neigh[RK_TP_RESP_NEIGH];      /* learnt from ARP */
	uint64_t clients, ok, failed, tools[4];
	uint64_t arp_answered, arp_requests;
};

extern struct rk_tp_resp rk_tp_resp;

/* ---------------------------------------------------- responder.c */

/**
 * "responder start": open @p port's verbs device, listen on TCP
 * @p tcp_port (all addresses) and serve perftest clients one after
 * another on a control thread, with buffers for messages of up to
 * @p max_size bytes (1..RK_TP_RESP_MAX_SIZE). Frames reach the device
 * only while the responder engine forwards ("set fwd responder", "start").
 * @return 0, or negative errno after a line on @p out (-EALREADY,
 *         -EADDRINUSE, -EINVAL, -ENODEV)
 */
int rk_tp_resp_start(FILE *out, uint16_t port, uint16_t tcp_port, uint32_t max_size);

/** "responder stop": end the control thread (a client being served fails). */
void rk_tp_resp_stop(FILE *out);

/** "show responder": the settings and the counters. */
void rk_tp_resp_show(FILE *out);

/* ------------------------------------------------ fwd_responder.c */

/**
 * An ARP packet (RFC 826; @p frame an untagged Ethernet frame of @p len
 * bytes) received on the responder's port: learn the sender, answer a
 * request for the device's IPv4. Caller holds rk_tp_rdma_lock.
 */
void rk_tp_resp_arp(const uint8_t *frame, uint32_t len);

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
