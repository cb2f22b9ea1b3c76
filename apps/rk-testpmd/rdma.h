/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-testpmd's verbs side: a verbs device (lib/verbs, rk_verbs.h) per
 * port, opened on the first "mr reg" or "qp create" on it, over an
 * rk_io_ops adapter on the port (rdma_dev.c: TX through rte_eth_tx_burst,
 * RX fed from the forwarding loop's bursts by the rdma engine); the MRs
 * and QPs the commands make, post work on and poll (rdma_objs.c).
 *
 * A verbs context is not thread-safe: every call on one, from the
 * forwarding lcore (the engine) or the prompt (the commands), holds
 * rk_tp_rdma_lock.
 */
#ifndef RK_TP_RDMA_H
#define RK_TP_RDMA_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_mbuf.h>
#include <rte_ticketlock.h>

#include "rk_cm.h"
#include "rk_verbs.h"

#define RK_TP_MAX_MRS 32
#define RK_TP_MAX_QPS 32
#define RK_TP_MR_MAX_BYTES (64u << 20)

/* Frames the engine handed over and the device has not read yet. */
#define RK_TP_RDMA_RXQ 512u

/** A port's verbs device and the adapter it moves frames through. */
struct rk_tp_rdma_dev {
	uint16_t port;
	struct rk_context *ctx;
	struct rk_pd *pd;
	uint8_t mac[6];
	uint8_t ip[4];
	/* frames received, waiting for the device's rx() */
	struct rte_mbuf *rxq[RK_TP_RDMA_RXQ];
	unsigned int rx_head, rx_count;
	/* frames the device sent, gathered into a burst until flush() */
	struct rte_mbuf *txb[32];
	unsigned int tx_count;
	/* counters (frames) */
	uint64_t rx_fed;        /* handed to the device by the engine */
	uint64_t rx_overflow;   /* freed: the device had RK_TP_RDMA_RXQ waiting */
	uint64_t rx_too_long;   /* freed: longer than the device's receive buffer */
	uint64_t tx_sent;       /* taken by rte_eth_tx_burst */
	uint64_t tx_dropped;    /* no mbuf, or the TX queue refused them */
	uint64_t arp_answered;  /* ARP requests for the device's address (rdma engine) */
	uint64_t cm_unclaimed;  /* QP1's CM MADs freed: no "qp connect ... rdma_cm" waited */
};

#define RK_TP_CMQ 64u

/**
 * QP1's CM MADs the forwarding loop took for a control thread (the
 * device has no QP1): a ring, under rk_tp_rdma_lock.
 */
struct rk_tp_cmq {
	uint8_t mad[RK_TP_CMQ][RK_MAD_LEN];
	uint8_t src_ip[RK_TP_CMQ][4];
	unsigned int head, tail;
	uint64_t mads;          /**< queued */
	uint64_t dropped;       /**< freed: RK_TP_CMQ were waiting */
};

/**
 * When @p f (@p len bytes) is a CM MAD for QP1 (rk_app_cm_frame_mad()),
 * queue it in @p q (or count it dropped when full). Caller holds
 * rk_tp_rdma_lock. @return whether it was one (the caller frees it)
 */
bool rk_tp_cmq_put(struct rk_tp_cmq *q, const uint8_t *f, uint32_t len);

/**
 * Take up to @p max queued MADs of @p q, oldest first, into @p mad and
 * their IPv4 sources into @p ip. Caller holds rk_tp_rdma_lock.
 * @return how many
 */
unsigned int rk_tp_cmq_take(struct rk_tp_cmq *q, uint8_t (*mad)[RK_MAD_LEN], uint8_t (*ip)[4],
			    unsigned int max);

/**
 * Where the rdma engine puts @p port's CM MADs: @p q, or NULL to free
 * them again (counted in the device's cm_unclaimed). Caller holds
 * rk_tp_rdma_lock. @return false, changing nothing, when another queue
 * has them (one RDMA-CM client per port)
 */
bool rk_tp_rdma_cm_claim(uint16_t port, struct rk_tp_cmq *q);

/**
 * The rdma engine's hook: @p f, received on @p port, is a CM MAD for QP1:
 * queued where rk_tp_rdma_cm_claim() said, else counted. Caller holds
 * rk_tp_rdma_lock. @return whether it was one (the caller frees it)
 */
bool rk_tp_rdma_cm_mad(uint16_t port, const uint8_t *f, uint32_t len);

/*
 * A command argument: a number (decimal or 0x hex) of at most @p max into
 * *@p v; else one line 'Bad WHAT "S": a number, at most MAX' and false.
 */
bool rk_tp_arg_num(const char *s, uint64_t max, const char *what, uint64_t *v);

extern rte_ticketlock_t rk_tp_rdma_lock;
/* Frames the rdma engine read on a port without a verbs device (freed). */
extern uint64_t rk_tp_rdma_no_dev[];

/* ------------------------------------------------------- rdma_dev.c */

/**
 * The verbs device of @p port, opened when @p open and not open yet: MAC
 * the port's, IPv4 the port's ("set ip"; 198.18.0.<port+1> when none
 * was set), one PD. Caller holds rk_tp_rdma_lock.
 * @return the device, or NULL (when @p open, a line on @p out says why)
 */
struct rk_tp_rdma_dev *rk_tp_rdma_dev(uint16_t port, bool open, FILE *out);

/**
 * Hand @p n received frames of @p port to its device (the mbufs become
 * the device's: read by its next rk_progress(), or freed and counted),
 * then run rk_progress() once: receive, timers, transmit. Frames of a
 * port without a device are freed and counted in rk_tp_rdma_no_dev[].
 * Takes rk_tp_rdma_lock.
 */
void rk_tp_rdma_feed(uint16_t port, struct rte_mbuf **m, uint16_t n);

/**
 * The largest path MTU (enum rk_mtu: 256..4096 bytes) whose RoCEv2
 * frames fit the port's MTU (RK_ROCE_HDR_RESERVE bytes of headers) and,
 * without TX chains, one mbuf.
 */
enum rk_mtu rk_tp_rdma_path_mtu(uint16_t port);

#define RK_TP_ETH_ARP 0x0806
#define RK_TP_ARP_FRAME 42u     /* Ethernet header and the 28-byte ARP packet */

/**
 * Send an ARP (RFC 826) packet of operation @p op (1 request, 2 reply)
 * from device @p d's MAC and IPv4 to @p dmac, target @p tmac / @p tip.
 * @return 0, or negative errno (no mbuf, the TX queue full)
 */
int rk_tp_rdma_arp_send(struct rk_tp_rdma_dev *d, uint16_t op, const uint8_t dmac[6],
			const uint8_t tmac[6], const uint8_t tip[4]);

/** Whether @p f is a whole Ethernet/IPv4 ARP packet (RFC 826). */
bool rk_tp_arp_ok(const uint8_t *f, uint32_t len);

/**
 * Answer @p f, an ARP request for @p port's device address, so a remote
 * peer finds the QPs' MAC (counted in "show rdma"). Caller holds
 * rk_tp_rdma_lock. @return whether a reply went out
 */
bool rk_tp_rdma_arp_answer(uint16_t port, const uint8_t *f, uint32_t len);

/** "show rdma <port>": the adapter's counters and the device's (NIC names). */
void rk_tp_rdma_show(FILE *out, uint16_t port);

/** Close every device, after rk_tp_rdma_objs_free(); frees the frames still held. */
void rk_tp_rdma_close_all(void);

/* ------------------------------------------------------ rdma_objs.c */

/**
 * "mr reg": @p bytes (1..RK_TP_MR_MAX_BYTES) of zeroed memory on @p port,
 * registered with local write and @p access (enum rk_access_flags remote
 * bits). Prints "MR id: ..." with VA, length, L_Key and R_Key.
 * @return the MR id, or negative errno after a line on @p out
 */
int rk_tp_mr_reg(FILE *out, uint16_t port, uint64_t bytes, int access);

/** "mr show": every MR: id, port, VA, length, L_Key, R_Key, access. */
void rk_tp_mr_show(FILE *out);

/**
 * "mr fill|check|dump <mr> <offset> <len> [pattern]": write the pattern
 * into, compare it with, or hex-dump (at most 256 bytes) @p len bytes at
 * @p off of MR @p id. @p pattern is a byte value (0..255) or "inc[:S]"
 * (byte i is S + i, modulo 256). @p op is 'f', 'c' or 'd'.
 * @return 0; -EINVAL (bad MR, range or pattern) or, for a check,
 *         -EBADMSG at the first byte that differs; each with one line
 */
int rk_tp_mr_data(FILE *out, char op, unsigned int id, uint64_t off, uint64_t len,
		  const char *pattern);

/**
 * "qp create": a QP of @p type (RC, UC, UD) on @p port's device with a
 * CQ of its own for both queues, every send WR signalled, moved to INIT
 * (RC: remote write, read and atomic allowed; UC: remote write; UD: Q_Key
 * RK_TP_QKEY). Its first send PSN is drawn at random (24 bits).
 * @return the QP id, or negative errno after a line on @p out
 */
int rk_tp_qp_create(FILE *out, uint16_t port, enum rk_qp_type type);

/** The Q_Key of every UD QP and of the sends to it (as ibv_ud_pingpong's and perftest's). */
#define RK_TP_QKEY 0x11111111u

/** "RC", "UC", "UD". */
const char *rk_tp_qp_type_name(enum rk_qp_type t);

/**
 * The INIT attributes of a QP of @p type beyond state, P_Key index and
 * port, into @p a: UD the Q_Key RK_TP_QKEY; RC remote write, read and
 * atomics; UC remote write only (IBTA Vol1 9.7.3, table 38).
 * @return the rk_modify_qp() mask bits of what was set
 */
int rk_tp_qp_init_attr(enum rk_qp_type type, struct rk_qp_attr *a);

/**
 * "qp connect": QP @p id to QP @p peer of this process (another port's or
 * the same one's), of the same type: RC/UC to RTR then RTS (IBTA Vol1
 * 11.2.5, through rk_app_qp.h;
 * the peer's MAC, IPv4-mapped GID, QPN and first PSN; path MTU the
 * smaller of the two ports' rk_tp_rdma_path_mtu()); UD to RTR and RTS
 * with an address handle to the peer kept for "post send". One direction:
 * connect the peer to @p id as well.
 * @return 0 or negative errno after a line on @p out
 */
int rk_tp_qp_connect(FILE *out, unsigned int id, unsigned int peer);

/**
 * A peer's region as an MR id of this process, known by its VA and R_Key
 * only (what perftest's key message gives): usable as the remote MR of
 * "post write|read|atomic", listed by "mr show"; nothing is registered.
 * @return the MR id, or -ENOSPC after a line on @p out
 */
int rk_tp_mr_add_remote(FILE *out, uint16_t port, uint64_t va, uint32_t rkey);

/** MR @p id's port, VA, R_Key and length. @return 0, or -EINVAL after a line on @p out */
int rk_tp_mr_keys(FILE *out, unsigned int id, uint16_t *port, uint64_t *va, uint32_t *rkey,
		  uint64_t *len);

/**
 * RC QP @p id's port, QPN, first send PSN and the send WRs posted on it
 * since it was connected; with @p unconnected it must not have been
 * connected yet (a QP connects once).
 * @return 0, or -EINVAL (no such QP, not RC, connected already) after a
 *         line on @p out
 */
int rk_tp_qp_ends(FILE *out, unsigned int id, bool unconnected, uint16_t *port, uint32_t *qpn,
		  uint32_t *psn, uint64_t *posted);

struct rk_app_qp_path;
/**
 * QP @p id, not connected yet, to RTR and RTS toward a QP of another host
 * on @p p (IBTA Vol1 11.2.5, through rk_app_qp.h). "qp show" names the
 * remote QPN. @return 0 or negative errno after a line on @p out
 */
int rk_tp_qp_connect_remote(FILE *out, unsigned int id, const struct rk_app_qp_path *p);

/** QP @p id, connected to another host, to the error state (its peer is gone). */
void rk_tp_qp_disconnect_remote(unsigned int id);

/* ---------------------------------------------------- rdma_perftest.c */

/** perftest's bw tools, as "qp connect ... perftest" names the server's. */
enum rk_tp_pt_tool { RK_TP_PT_WRITE, RK_TP_PT_READ, RK_TP_PT_ATOMIC, RK_TP_PT_SEND };

/**
 * "qp connect <qp> perftest <host>[:<port>] <mr> <tool> [rdma_cm]": play
 * the client of a perftest bw server (ib_write_bw and the others, on an
 * RNIC or rxe; TCP exchange, "Data ex. method: Ethernet", or with
 * @p rdma_cm its -R: RDMA-CM on @p tcp_port, @p host an IPv4 address,
 * rdma_perftest_cm.c) for RC QP @p id: the
 * preamble, the key messages (our QPN, first PSN, MR @p mr's VA and
 * R_Key, the port's IPv4 as a mapped GID), the QP to RTS toward the
 * server's QP (its MAC from "set eth-peer"; path MTU the smaller of
 * both), the barriers @p tool takes; the server's region becomes a
 * remote MR (printed). Blocks the prompt for at most @p timeout_s per
 * step. @return 0, or negative errno after one line on @p out
 */
int rk_tp_pt_connect(FILE *out, unsigned int id, const char *host, uint16_t tcp_port,
		     unsigned int mr, enum rk_tp_pt_tool tool, bool rdma_cm, double timeout_s);

/**
 * "qp disconnect <qp>": end QP @p id's perftest exchange as the client
 * does after its data: a barrier, the report (the send WRs posted as
 * iterations, MR size; not send_bw), a barrier, "done" (over TCP; with
 * RDMA-CM a DREQ of the data and the exchange connections instead); then
 * close the connection and move the QP to the error state.
 * @return 0, or negative errno after one line on @p out
 */
int rk_tp_pt_disconnect(FILE *out, unsigned int id, double timeout_s);

/* ------------------------------------------------ rdma_perftest_cm.c */

struct rk_tp_pt_cm;
struct rk_app_cm_conn;

/**
 * perftest -R's first step: claim @p port's QP1 MADs from the rdma
 * engine, create the exchange QP, connect it by RDMA-CM to service ID
 * TCP:@p cm_port at @p ip (REQ again after REJ "invalid service ID" until
 * @p timeout_s), RTR/RTS. *@p m is set even on failure: rk_tp_pt_cm_close().
 * @return 0, or negative errno after one line on @p out
 */
int rk_tp_pt_cm_open(FILE *out, uint16_t port, const uint8_t ip[4], uint16_t cm_port,
		     enum rk_mtu mtu, double timeout_s, struct rk_tp_pt_cm **m);

/**
 * One exchange step in the client's order (ours SENT first, theirs
 * received and ours ACKed), at most @p timeout_s. @return 0, or -1 after a line
 */
int rk_tp_pt_cm_xchg(struct rk_tp_pt_cm *m, const void *mine, void *theirs, size_t len,
		     double timeout_s);

/**
 * Connect the data QP (@p qpn, our PSN @p psn, @p mtu at most) on the
 * same service; its path (negotiated MTU, the server's QPN and PSN) into
 * *@p p (pointers into @p m). @return 0, or negative errno after a line
 */
int rk_tp_pt_cm_data(struct rk_tp_pt_cm *m, uint32_t qpn, uint32_t psn, enum rk_mtu mtu,
		     double timeout_s, struct rk_app_qp_path *p);

/** The data (@p data) or exchange connection of @p m. */
const struct rk_app_cm_conn *rk_tp_pt_cm_conn(const struct rk_tp_pt_cm *m, bool data);

/**
 * DREQ each established connection, wait up to @p wait_s for the DREPs,
 * give QP1's MADs back to the engine, free @p m.
 * @return 0; -ETIMEDOUT (no DREP); -EIO (a MAD could not be sent)
 */
int rk_tp_pt_cm_close(struct rk_tp_pt_cm *m, double wait_s);

/** "qp show": every QP: id, port, type, QPN, state, PSNs, peer. */
void rk_tp_qp_show(FILE *out);

/** A work request as the "post" commands give it. */
struct rk_tp_post {
	enum rk_wr_opcode op;   /* RK_WR_SEND, RDMA_WRITE, RDMA_READ, the two atomics */
	bool recv;              /* a receive WR (op unused) */
	unsigned int qp;
	unsigned int mr;        /* local MR id and byte offset */
	uint64_t off;
	uint32_t len;           /* bytes (atomics: 8) */
	unsigned int rmr;       /* remote MR id and offset: WRITE, READ, atomics */
	uint64_t roff;
	uint64_t add, swap;     /* atomics: fetch-add's add / compare-swap's compare, swap */
};

/**
 * Post @p p on its QP (rk_post_send() or rk_post_recv()), with the next
 * wr_id of the process (from 1). Refused while another engine than rdma
 * forwards (it owns the ports' TX queues). Prints "QP id: posted ...".
 * @return 0 or negative errno after a line on @p out
 */
int rk_tp_post(FILE *out, const struct rk_tp_post *p);

/**
 * "poll cq": print the completions of QP @p id's CQ as rk_poll_cq()
 * gives them ("wc wr_id=N status=success (0) opcode=RDMA_WRITE
 * byte_len=N ..."), until @p want have been printed or @p wait_ms have
 * passed (0: those waiting now), then "N completion(s)".
 * @return completions printed, or negative errno after a line on @p out
 */
int rk_tp_poll_cq(FILE *out, unsigned int id, unsigned int want, unsigned int wait_ms);

/** Destroy every QP, CQ, AH and MR (at exit). */
void rk_tp_rdma_objs_free(void);

#endif /* RK_TP_RDMA_H */
