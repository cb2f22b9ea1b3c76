/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_app_oob.h
 * The out-of-band exchange of the apps: one TCP connection beside the RDMA
 * path (perftest's "Data ex. method: Ethernet"), carrying fixed-size
 * messages the apps define. Every call is bounded by a timeout; while it
 * waits, it runs serve(arg) between polls (the RDMA side's progress), and
 * a serve that returns non-zero (a signal asked to stop) ends the wait
 * with -EINTR. Errors are negative errno values.
 */
#ifndef RK_APP_OOB_H
#define RK_APP_OOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * Bind and listen on TCP @p port (IPv6 and IPv4-mapped) into *ls_out: done
 * before a DPDK port waits for its link, so a port already taken
 * (-EADDRINUSE) is reported at once rather than after the link wait.
 * @return 0 or -errno
 */
int rk_oob_listen_open(uint16_t port, int *ls_out);
/** Accept one client on the listening socket @p ls, then close @p ls; 0, -ETIMEDOUT, -EINTR, -errno. */
int rk_oob_accept(int ls, double timeout_s, int *fd_out, int (*serve)(void *), void *arg);
/**
 * Accept one client on the listening socket @p ls and leave @p ls open
 * (a server that takes one client after another, or several at once;
 * connections that come meanwhile wait in the backlog), calling @p serve
 * while it waits. @return 0, -ETIMEDOUT, -EINTR (serve asked to stop), -errno.
 */
int rk_oob_accept_next(int ls, double timeout_s, int *fd_out, int (*serve)(void *), void *arg);
/** rk_oob_listen_open() then rk_oob_accept(). */
int rk_oob_listen(uint16_t port, double timeout_s, int *fd_out, int (*serve)(void *), void *arg);
/**
 * Connect to host:port, retrying until the server listens or timeout_s
 * passes. @return 0, -ECONNREFUSED (nothing listened until the end),
 * -ETIMEDOUT, -EINTR, -errno, or, when the resolver cannot resolve
 * @p host, an error for which rk_oob_resolve_failed() holds (its words:
 * rk_oob_strerror()).
 */
int rk_oob_connect(const char *host, uint16_t port, double timeout_s, int *fd_out,
		   int (*serve)(void *), void *arg);
/** Resolver errors of rk_oob_connect(): -(RK_OOB_EAI_BASE + |getaddrinfo's code|). */
#define RK_OOB_EAI_BASE 4096
/**
 * Resolve @p host as rk_oob_connect() will (a TCP address), so that a
 * name that cannot resolve is reported before any work starts.
 * @return 0, or an error for which rk_oob_resolve_failed() holds, or -errno.
 */
int rk_oob_resolve(const char *host);
/** Whether an rk_oob_connect() error says the host name did not resolve. */
bool rk_oob_resolve_failed(int rc);
/** The text of an rk_oob_* error: gai_strerror() for the resolver's, else strerror(). */
const char *rk_oob_strerror(int rc);
/** Send all @p len bytes; 0 or -errno. */
int rk_oob_send(int fd, const void *buf, size_t len);
/** Receive exactly @p len bytes; 0, -ECONNRESET (closed), -ETIMEDOUT, -EINTR, -errno. */
int rk_oob_recv(int fd, void *buf, size_t len, double timeout_s, int (*serve)(void *), void *arg);
/** Whether a message (or the close) waits (non-blocking). */
bool rk_oob_readable(int fd);

/**
 * Move the calling thread into network namespace @p name (a name under
 * /run/netns, as `ip netns` makes them, or a path): sockets opened after
 * it live there (the exchange beside a port in another namespace).
 * @return 0 or -errno (ENOENT: no such namespace; EPERM: not root)
 */
int rk_oob_enter_netns(const char *name);

#endif /* RK_APP_OOB_H */
