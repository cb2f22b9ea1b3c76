/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_tcp.h
 * One small byte-stream interface over the TCPs iWARP runs on, and the
 * glue that moves bytes between a stream and an iWARP QP (lib/iwarp).
 *
 * Backends:
 *   - kernel sockets (rk_tcp_sock_*): nonblocking, for hosts without a
 *     spare port;
 *   - lwIP (rk_tcp_lwip.h, when built with liblwip-dev): Debian's lwIP
 *     fed with Ethernet frames from a caller-provided port (DPDK).
 * No TCP is implemented here.
 */
#ifndef RK_TCP_H
#define RK_TCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rk_iw.h"

struct rk_tcp;

/** Operations of one connection. Errors are negative errno values. */
struct rk_tcp_ops {
	const char *name;
	/**
	 * Queue up to @p len bytes. @return bytes taken (0 when the send
	 * buffer is full or the connection is not yet established), or
	 * -EPIPE / -ECONNRESET once it is gone.
	 */
	long (*send)(struct rk_tcp *t, const uint8_t *buf, size_t len);
	/**
	 * Take up to @p cap received bytes. @return bytes (0 when none are
	 * waiting), -EPIPE after the peer's FIN, -ECONNRESET and others on
	 * failure.
	 */
	long (*recv)(struct rk_tcp *t, uint8_t *buf, size_t cap);
	/** Close (FIN) and free the connection. */
	void (*close)(struct rk_tcp *t);
};

/** A connection: backends embed this first. */
struct rk_tcp {
	const struct rk_tcp_ops *ops;
};

/* ------------------------------------------------------ kernel sockets */

/**
 * Listen on IPv4 @p ip (dotted quad) port @p port (0: any free port).
 * @return the listening socket (nonblocking), or -errno.
 */
int rk_tcp_sock_listen(const char *ip, uint16_t port);

/** The local port of socket @p fd, or -errno. */
int rk_tcp_sock_port(int fd);

/**
 * Accept one connection from listener @p lfd without blocking.
 * @return the connection, or NULL with errno EAGAIN (none waiting) or
 *         another errno.
 */
struct rk_tcp *rk_tcp_sock_accept(int lfd);

/**
 * Start connecting to IPv4 @p ip port @p port without blocking; sends
 * return 0 until the handshake completes.
 * @return the connection, or NULL with errno.
 */
struct rk_tcp *rk_tcp_sock_connect(const char *ip, uint16_t port);

/** The socket of a kernel-socket connection (for poll()), or -1. */
int rk_tcp_sock_fd(const struct rk_tcp *t);

/* ------------------------------------------------------- iWARP glue */

/** Moves bytes between one QP and one connection. */
struct rk_iw_tcp_link {
	struct rk_iw_qp *qp;
	struct rk_tcp *tcp;
	uint32_t off, len;          /* bytes of stage not yet taken by the TCP */
	bool closed;                /* the TCP is closed (by either side) */
	uint64_t rx_bytes, tx_bytes;
	uint8_t stage[65536];       /* taken from rk_iw_tx, not yet sent */
	uint8_t rbuf[65536];
};

/** Join @p qp and @p tcp (neither is owned by the link). */
void rk_iw_tcp_link_init(struct rk_iw_tcp_link *l, struct rk_iw_qp *qp, struct rk_tcp *tcp);

/**
 * One round: received bytes into the QP, the QP's bytes into the TCP (what
 * the TCP does not take waits in the link). When the QP wants the stream
 * closed (after a Terminate) the TCP is closed once everything was sent;
 * when the TCP ends, the QP is told (rk_iw_llp_closed).
 * @return bytes moved in both directions (0: idle), or -EPIPE once the
 *         link is closed.
 */
long rk_iw_tcp_pump(struct rk_iw_tcp_link *l, uint64_t now_ns);

#endif /* RK_TCP_H */
