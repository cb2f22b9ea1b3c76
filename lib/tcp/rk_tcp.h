/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_tcp.h
 * The TCPs iWARP runs on, behind the one byte-stream interface of
 * lib/iwarp (struct rk_stream_ops), whose pump (struct rk_iw_link) moves
 * bytes between a connection and an iWARP QP.
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

/**
 * A connection: backends embed this first. Its ops are the one byte-stream
 * interface (struct rk_stream_ops, rk_iw_stream.h), called with the
 * connection itself as the stream: a struct rk_tcp can be handed to
 * rk_qp_connect_stream() or rk_iw_link_init() as it is. Errors are
 * negative errno values: send() gives -EPIPE / -ECONNRESET once the
 * connection is gone, recv() -EPIPE after the peer's FIN; close() sends
 * FIN and frees the connection. now_ns is a monotonic clock.
 */
struct rk_tcp {
	const struct rk_stream_ops *ops;
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

/* The former name of the link between a QP and a connection. */
#define rk_iw_tcp_link rk_iw_link

/** Join @p qp and @p tcp (rk_iw_link_init() with the connection's own ops). */
void rk_iw_tcp_link_init(struct rk_iw_link *l, struct rk_iw_qp *qp, struct rk_tcp *tcp);

/** rk_iw_link_pump() with no receive budget: everything waiting is read. */
long rk_iw_tcp_pump(struct rk_iw_link *l, uint64_t now_ns);

#endif /* RK_TCP_H */
