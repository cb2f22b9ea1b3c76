/* SPDX-License-Identifier: BSD-3-Clause */
/* The kernel TCP through nonblocking sockets. */
#define _GNU_SOURCE     /* accept4 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rk_tcp.h"

struct sock_conn {
	struct rk_tcp base;
	int fd;
};

static const struct rk_stream_ops sock_ops;

static int
set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

static int
addr_of(const char *ip, uint16_t port, struct sockaddr_in *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons(port);
	return inet_pton(AF_INET, ip, &sa->sin_addr) == 1 ? 0 : -EINVAL;
}

int
rk_tcp_sock_listen(const char *ip, uint16_t port)
{
	struct sockaddr_in sa;
	int fd, one = 1, rc;

	if (ip == NULL || addr_of(ip, port, &sa) != 0)
		return -EINVAL;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 16) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	rc = set_nonblock(fd);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	return fd;
}

int
rk_tcp_sock_port(int fd)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);

	if (getsockname(fd, (struct sockaddr *)&sa, &sl) < 0)
		return -errno;
	return ntohs(sa.sin_port);
}

static struct rk_tcp *
wrap(int fd)
{
	struct sock_conn *c;
	int one = 1;

	/* FPDUs are messages: do not hold small ones back (Nagle). */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (set_nonblock(fd) < 0) {
		close(fd);
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	c->base.ops = &sock_ops;
	c->fd = fd;
	return &c->base;
}

struct rk_tcp *
rk_tcp_sock_accept(int lfd)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return NULL;
	return wrap(fd);
}

struct rk_tcp *
rk_tcp_sock_connect(const char *ip, uint16_t port)
{
	struct sockaddr_in sa;
	struct rk_tcp *t;
	int fd;

	if (ip == NULL || addr_of(ip, port, &sa) != 0) {
		errno = EINVAL;
		return NULL;
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return NULL;
	t = wrap(fd);
	if (t == NULL)
		return NULL;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 && errno != EINPROGRESS) {
		int e = errno;

		t->ops->close(t);
		errno = e;
		return NULL;
	}
	return t;
}

int
rk_tcp_sock_fd(const struct rk_tcp *t)
{
	return t != NULL && t->ops == &sock_ops ? ((const struct sock_conn *)t)->fd : -1;
}

static long
sock_send(void *t, const uint8_t *buf, size_t len)
{
	struct sock_conn *c = (struct sock_conn *)t;
	ssize_t n;

	if (len == 0)
		return 0;
	n = send(c->fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n >= 0)
		return (long)n;
	/* Not yet connected, or the send buffer is full. */
	if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOTCONN || errno == EINTR)
		return 0;
	return -errno;
}

static long
sock_recv(void *t, uint8_t *buf, size_t cap)
{
	struct sock_conn *c = (struct sock_conn *)t;
	ssize_t n = recv(c->fd, buf, cap, MSG_DONTWAIT);

	if (n > 0)
		return (long)n;
	if (n == 0)
		return cap == 0 ? 0 : -EPIPE;
	if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOTCONN || errno == EINTR)
		return 0;
	return -errno;
}

static void
sock_close(void *t)
{
	struct sock_conn *c = (struct sock_conn *)t;

	close(c->fd);
	free(c);
}

static uint64_t
sock_now_ns(void *env)
{
	struct timespec ts;

	(void)env;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static const struct rk_stream_ops sock_ops = {
	.name = "kernel",
	.send = sock_send,
	.recv = sock_recv,
	.close = sock_close,
	.now_ns = sock_now_ns,
};
