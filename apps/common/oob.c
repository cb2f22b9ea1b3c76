/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Out-of-band exchange over TCP (perftest's "Data ex. method: Ethernet"):
 * fixed-size messages in network byte order. Every wait is bounded and
 * keeps the RDMA side progressing through the serve callback, so a peer
 * waiting here still answers ARP, ACKs and READ requests; a serve that
 * returns non-zero (a signal asked to stop) ends the wait with -EINTR.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rk_app_oob.h"

static double
mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void
tune(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* Wait for fd events until @p deadline, serving the port between polls. */
static int
wait_fd(int fd, short ev, double deadline, int (*serve)(void *), void *arg)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = ev };
		int rc = poll(&p, 1, serve != NULL ? 0 : 10);

		if (rc > 0)
			return (p.revents & (POLLERR | POLLNVAL)) && !(p.revents & ev) ? -ECONNRESET : 0;
		if (rc < 0 && errno != EINTR)
			return -errno;
		if (mono_s() > deadline)
			return -ETIMEDOUT;
		if (serve != NULL && serve(arg) != 0)
			return -EINTR;
	}
}

int
rk_oob_listen_open(uint16_t port, int *ls_out)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_port = htons(port),
				  .sin6_addr = IN6ADDR_ANY_INIT };
	int one = 1, zero = 0, ls, rc;

	ls = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (ls < 0)
		return -errno;
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(ls, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (bind(ls, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(ls, 1) != 0) {
		rc = -errno;
		close(ls);
		return rc;
	}
	*ls_out = ls;
	return 0;
}

int
rk_oob_accept_next(int ls, double timeout_s, int *fd_out, int (*serve)(void *), void *arg)
{
	int fd, rc;

	rc = wait_fd(ls, POLLIN, mono_s() + timeout_s, serve, arg);
	if (rc != 0)
		return rc;
	fd = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return -errno;
	tune(fd);
	*fd_out = fd;
	return 0;
}

int
rk_oob_accept(int ls, double timeout_s, int *fd_out, int (*serve)(void *), void *arg)
{
	int rc = rk_oob_accept_next(ls, timeout_s, fd_out, serve, arg);

	close(ls);
	return rc;
}

int
rk_oob_listen(uint16_t port, double timeout_s, int *fd_out, int (*serve)(void *), void *arg)
{
	int ls = -1, rc = rk_oob_listen_open(port, &ls);

	return rc != 0 ? rc : rk_oob_accept(ls, timeout_s, fd_out, serve, arg);
}

static int
lookup(const char *host, const char *port, struct addrinfo **res)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	int rc = getaddrinfo(host, port, &hints, res);

	if (rc == EAI_SYSTEM)
		return -errno;
	if (rc != 0)
		return -(RK_OOB_EAI_BASE + (rc < 0 ? -rc : rc));
	return 0;
}

int
rk_oob_resolve(const char *host)
{
	struct addrinfo *res = NULL;
	int rc = lookup(host, NULL, &res);

	if (rc == 0)
		freeaddrinfo(res);
	return rc;
}

int
rk_oob_connect(const char *host, uint16_t port, double timeout_s, int *fd_out,
	    int (*serve)(void *), void *arg)
{
	struct addrinfo *res = NULL;
	double deadline = mono_s() + timeout_s;
	char ps[8];
	int rc;

	snprintf(ps, sizeof(ps), "%u", port);
	rc = lookup(host, ps, &res);
	if (rc != 0)
		return rc;
	/* The server may start after us: retry until the deadline. */
	for (;;) {
		int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		int err = 0;
		socklen_t el = sizeof(err);

		if (fd < 0) {
			rc = -errno;
			break;
		}
		if (connect(fd, res->ai_addr, res->ai_addrlen) != 0 && errno != EINPROGRESS) {
			err = errno;
		} else {
			rc = wait_fd(fd, POLLOUT, deadline, serve, arg);
			if (rc == -ETIMEDOUT || rc == -EINTR) {
				close(fd);
				break;
			}
			getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el);
		}
		if (err == 0) {
			fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
			tune(fd);
			*fd_out = fd;
			rc = 0;
			break;
		}
		close(fd);
		rc = -err;
		if (mono_s() > deadline) {
			rc = rc == -ECONNREFUSED ? -ECONNREFUSED : -ETIMEDOUT;
			break;
		}
		/* Serve the port while the peer comes up (about 100 ms). */
		for (double t = mono_s() + 0.1; mono_s() < t && rc != -EINTR;) {
			if (serve == NULL)
				usleep(10000);
			else if (serve(arg) != 0)
				rc = -EINTR;
		}
		if (rc == -EINTR)
			break;
	}
	freeaddrinfo(res);
	return rc;
}

bool
rk_oob_resolve_failed(int rc)
{
	return rc <= -RK_OOB_EAI_BASE;
}

const char *
rk_oob_strerror(int rc)
{
	int g;

	if (!rk_oob_resolve_failed(rc))
		return strerror(-rc);
	/* Back to the resolver's code, whichever sign this libc gives its codes. */
	g = -rc - RK_OOB_EAI_BASE;
	return gai_strerror(EAI_NONAME < 0 ? -g : g);
}

int
rk_oob_send(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len > 0) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int
rk_oob_recv(int fd, void *buf, size_t len, double timeout_s, int (*serve)(void *), void *arg)
{
	double deadline = mono_s() + timeout_s;
	uint8_t *p = buf;

	while (len > 0) {
		ssize_t n;
		int rc = wait_fd(fd, POLLIN, deadline, serve, arg);

		if (rc != 0)
			return rc;
		n = recv(fd, p, len, MSG_DONTWAIT);
		if (n == 0)
			return -ECONNRESET;
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

bool
rk_oob_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

int
rk_oob_enter_netns(const char *name)
{
	char path[256];
	int fd, rc;

	snprintf(path, sizeof(path), "%s%s", strchr(name, '/') != NULL ? "" : "/run/netns/",
		 name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = setns(fd, CLONE_NEWNET) != 0 ? -errno : 0;
	close(fd);
	return rc;
}
