/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_app_cm.h
 * RDMA-CM over QP1 on RoCEv2, as the apps do it (rk-interop both roles,
 * rk-testpmd's responder as the passive side): the CM MAD carried in a UD
 * SEND Only to DestQP 1 (Q_Key 0x80010000, SrcQP 1), our side's REQ/REP
 * parameters, the routing of a received MAD to its connection or to the
 * listener (a REQ for another service is answered with REJ "invalid
 * service ID", as the Linux CM does: IBTA Vol1 12.6.7), the passive
 * side's accept and the active side's REQ and retries. lib/cm keeps each
 * connection's state and the MAD codec;
 * how a frame leaves and how a peer's MAC is found are the caller's
 * (struct rk_app_cm_port). No DPDK.
 */
#ifndef RK_APP_CM_H
#define RK_APP_CM_H

#include <stdbool.h>
#include <stdint.h>

#include "rk_app_qp.h"
#include "rk_cm.h"

/** BTH opcode of a UD SEND Only (IBTA Vol1 9.2), what carries a MAD. */
#define RK_APP_CM_UD_SEND_ONLY 0x64

/** One RDMA-CM connection over QP1 and the peer's addresses. */
struct rk_app_cm_conn {
	struct rk_cm_conn conn;
	uint8_t peer_mac[6], peer_ip[4];
	/* A REJ for "no listener" ends a connect at once, as rping's does;
	 * else it retries until its timeout, as perftest's does. */
	bool no_retry;
};

/** This end's QP1: how a MAD leaves, how a MAC is found, what is listened on. */
struct rk_app_cm_port {
	void *ctx;
	/** Send @p mad from our QP1 to the peer's at @p mac / @p ip. @return 0, or -1. */
	int (*send)(void *ctx, const uint8_t mac[6], const uint8_t ip[4],
		    const uint8_t mad[RK_MAD_LEN]);
	/** The MAC of @p ip into @p mac. @return 0, or -1 (the callee said why). */
	int (*resolve)(void *ctx, const uint8_t ip[4], uint8_t mac[6]);
	uint64_t service_id;            /**< REQs for another are rejected */
	/* counted, never fatal */
	uint64_t rej_service;           /**< REQs for another service ID: REJ sent */
	uint64_t refused;               /**< REQs we cannot serve: REJ consumer reject */
	uint64_t drep_unknown;          /**< DREQs of no connection: DREP sent */
};

/**
 * Whether the Ethernet frame @p f (@p len bytes with the 4-byte ICRC, no
 * VLAN tag) is a RoCEv2 (IPv4, UDP 4791) UD SEND Only to QP 1 carrying a
 * whole MAD: then the MAD is copied to @p mad and the IPv4 source address
 * to @p src_ip. Reads no byte past @p len.
 */
bool rk_app_cm_frame_mad(const uint8_t *f, uint32_t len, uint8_t mad[RK_MAD_LEN],
			 uint8_t src_ip[4]);

/**
 * Build the frame carrying @p mad from our QP1 (@p smac, @p sip) to the
 * peer's (@p dmac, @p dip) with BTH PSN @p psn (24 bits used), DF set.
 * @return frame bytes, or negative errno (-ENOSPC: @p cap too small).
 */
int rk_app_cm_frame(uint8_t *out, uint32_t cap, const uint8_t smac[6], const uint8_t dmac[6],
		    const uint8_t sip[4], const uint8_t dip[4], uint32_t psn,
		    const uint8_t mad[RK_MAD_LEN]);

/**
 * Our REQ/REP parameters for @p qpn: @p psn the PSN our receive queue
 * expects (lib/cm's convention), @p resources READ/atomic depth both ways,
 * @p mtu the largest path MTU we carry, GID ::ffff:@p ip, the CA GUID an
 * EUI-64 of @p mac, retry counts 7, @p ack_timeout (4.096 us * 2^t) and
 * @p tclass the Traffic Class of the REQ we send.
 */
struct rk_cm_params rk_app_cm_params(uint32_t qpn, uint32_t psn, uint8_t resources,
				     enum rk_mtu mtu, const uint8_t mac[6], const uint8_t ip[4],
				     uint8_t ack_timeout, uint8_t tclass);

/**
 * Route one decoded MAD from @p src_ip: to the connection of @p cs (@p n,
 * NULL entries skipped) it matches, fed to lib/cm, its answer sent; else a
 * REQ for another service ID gets a REJ (p->rej_service counted); a DREQ
 * of no connection its DREP (rk_app_cm_drep_unknown()); else a
 * REQ while @p listen (may be NULL) is IDLE goes to it (peer_ip set);
 * anything else is dropped. @p comm_id is the local communication ID a
 * listened REQ gets.
 * @return the rk_cm_action bits seen; -EBADMSG: a REQ for our service we
 *         cannot serve (not RC, no RDMA-CM IP header), REJ sent and
 *         p->refused counted; -EIO: a send failed.
 */
int rk_app_cm_dispatch(struct rk_app_cm_port *p, const struct rk_cm_msg *m,
		       const uint8_t src_ip[4], struct rk_app_cm_conn **cs, int n,
		       struct rk_app_cm_conn *listen, uint64_t now_ns, uint32_t comm_id);

/**
 * A DREQ (decoded, from @p src_ip) that no connection takes: a DREP
 * (rk_cm_drep_unknown()) to the sender, counted in p->drep_unknown, so a
 * peer's repeated DREQ ends after our connection is gone (IBTA Vol1
 * 12.9, as Linux's CM). @return 0; -EIO when the send failed.
 */
int rk_app_cm_drep_unknown(struct rk_app_cm_port *p, const struct rk_cm_msg *m,
			   const uint8_t src_ip[4]);

/** Run lib/cm's timers of @p cs (@p n); @return action bits, or -EIO (a send failed). */
int rk_app_cm_timers(struct rk_app_cm_port *p, struct rk_app_cm_conn **cs, int n,
		     uint64_t now_ns);

/**
 * Passive side, after a REQ reached @p c: the peer's MAC, then lib/cm's
 * accept with @p lp; the REP is left in @p rep for the caller to send once
 * its QP is connected (rk_app_cm_qp_path()).
 * @return 0; -1 when the MAC is unknown (p->resolve said why); -EMSGSIZE
 *         when the REQ's path MTU is above lp->path_mtu (REJ "invalid path
 *         MTU" sent, @p c CLOSED); -EINVAL.
 */
int rk_app_cm_accept(struct rk_app_cm_port *p, struct rk_app_cm_conn *c,
		     const struct rk_cm_params *lp, uint64_t now_ns, uint8_t rep[RK_MAD_LEN]);

/** Pause before a REQ is sent again after REJ "invalid service ID" (ns). */
#define RK_APP_CM_RETRY_NS 200000000ull

/**
 * Active side: @p c reset (a retry starts afresh), then lib/cm's REQ for
 * @p service_id with @p lp and the RDMA-CM IP header (Annex A11: source
 * ::ffff:@p ip port @p src_port, destination ::ffff:c->peer_ip), sent to
 * c->peer_mac. Retransmission and the REP/RTU are rk_app_cm_dispatch()'s
 * and rk_app_cm_timers()'s.
 * @return 0; -EINVAL: the REQ cannot be built; -EIO: the send failed
 */
int rk_app_cm_connect(struct rk_app_cm_port *p, struct rk_app_cm_conn *c,
		      const struct rk_cm_params *lp, uint64_t service_id, const uint8_t ip[4],
		      uint16_t src_port, uint32_t comm_id, uint64_t tid, uint64_t now_ns);

/**
 * After a connect's wait for its REP ended: whether to send the REQ
 * again once RK_APP_CM_RETRY_NS passed. Yes only when the peer answered
 * REJ "invalid service ID" (no listener yet: perftest's client retries
 * so, IBTA Vol1 12.6.7), @p c allows retries, and the pause ends before
 * @p deadline_ns (same clock as @p now_ns).
 */
bool rk_app_cm_connect_retry(const struct rk_app_cm_conn *c, uint64_t now_ns,
			     uint64_t deadline_ns);

/**
 * Why the connect of @p c did not end ESTABLISHED, for a message: "no
 * answer to the REQ", the REJ reason's name, or "no answer".
 * @return the text; NULL when @p c is ESTABLISHED
 */
const char *rk_app_cm_connect_error(const struct rk_app_cm_conn *c);

/**
 * The QP path of an accepted or connected @p c: MTU, the peer's QPN, RTR's
 * rq_psn our announced PSN and RTS's sq_psn the peer's, the negotiated
 * READ/atomic depths (at least 1), the peer's MAC and @p dgid (filled from
 * peer_ip). Timers, retries and DSCP are left 0 for the caller.
 */
void rk_app_cm_qp_path(const struct rk_app_cm_conn *c, uint8_t dgid[16],
		       struct rk_app_qp_path *path);

#endif /* RK_APP_CM_H */
