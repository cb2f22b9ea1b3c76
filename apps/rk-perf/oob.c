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
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "perf.h"
#include "rk_byteorder.h"

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
oob_listen_open(uint16_t port, int *ls_out)
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
oob_accept(int ls, double timeout_s, int *fd_out, int (*serve)(void *), void *arg)
{
	int fd, rc;

	rc = wait_fd(ls, POLLIN, mono_s() + timeout_s, serve, arg);
	if (rc != 0) {
		close(ls);
		return rc;
	}
	fd = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
	rc = fd < 0 ? -errno : 0;
	close(ls);
	if (rc != 0)
		return rc;
	tune(fd);
	*fd_out = fd;
	return 0;
}

int
oob_listen(uint16_t port, double timeout_s, int *fd_out, int (*serve)(void *), void *arg)
{
	int ls = -1, rc = oob_listen_open(port, &ls);

	return rc != 0 ? rc : oob_accept(ls, timeout_s, fd_out, serve, arg);
}

int
oob_connect(const char *host, uint16_t port, double timeout_s, int *fd_out,
	    int (*serve)(void *), void *arg)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL;
	double deadline = mono_s() + timeout_s;
	char ps[8];
	int rc;

	snprintf(ps, sizeof(ps), "%u", port);
	rc = getaddrinfo(host, ps, &hints, &res);
	if (rc == EAI_SYSTEM)
		return -errno;
	if (rc != 0)
		return -(OOB_EAI_BASE + (rc < 0 ? -rc : rc));
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
oob_resolve_failed(int rc)
{
	return rc <= -OOB_EAI_BASE;
}

const char *
oob_strerror(int rc)
{
	int g;

	if (!oob_resolve_failed(rc))
		return strerror(-rc);
	/* Back to the resolver's code, whichever sign this libc gives its codes. */
	g = -rc - OOB_EAI_BASE;
	return gai_strerror(EAI_NONAME < 0 ? -g : g);
}

int
oob_send(int fd, const void *buf, size_t len)
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
oob_recv(int fd, void *buf, size_t len, double timeout_s, int (*serve)(void *), void *arg)
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
oob_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

void
oob_encode_hello(const struct perf_hello *h, uint8_t *b)
{
	memset(b, 0, OOB_HELLO_LEN);
	b[0] = h->verb;
	b[1] = h->mode;
	b[2] = h->verify;
	b[3] = h->atomic_cas;
	rk_put_be32(b + 4, h->mtu);
	rk_put_be32(b + 8, h->qps);
	rk_put_be32(b + 12, h->tx_depth);
	rk_put_be32(b + 16, h->rx_depth);
	rk_put_be32(b + 20, h->nsizes);
	b += 24;
	for (int i = 0; i < PERF_MAX_SIZES; i++, b += 4)
		rk_put_be32(b, h->sizes[i]);
	rk_put_be64(b, h->iters);
	rk_put_be64(b + 8, h->duration_ms);
	memcpy(b + 16, h->ip, 4);
	memcpy(b + 20, h->mac, 6);
	b += 26;
	for (int i = 0; i < PERF_MAX_QPS; i++, b += 28) {
		rk_put_be32(b, h->qp[i].qpn);
		rk_put_be32(b + 4, h->qp[i].psn);
		rk_put_be32(b + 8, h->qp[i].rkey);
		rk_put_be64(b + 12, h->qp[i].va);
		rk_put_be64(b + 20, h->qp[i].len);
	}
}

void
oob_decode_hello(struct perf_hello *h, const uint8_t *b)
{
	memset(h, 0, sizeof(*h));
	h->verb = b[0];
	h->mode = b[1] & (uint8_t)~OOB_HELLO_F_EXT;
	h->ext = (b[1] & OOB_HELLO_F_EXT) != 0;
	h->verify = b[2];
	h->atomic_cas = b[3];
	h->mtu = rk_get_be32(b + 4);
	h->qps = rk_get_be32(b + 8);
	h->tx_depth = rk_get_be32(b + 12);
	h->rx_depth = rk_get_be32(b + 16);
	h->nsizes = rk_get_be32(b + 20);
	b += 24;
	for (int i = 0; i < PERF_MAX_SIZES; i++, b += 4)
		h->sizes[i] = rk_get_be32(b);
	h->iters = rk_get_be64(b);
	h->duration_ms = rk_get_be64(b + 8);
	memcpy(h->ip, b + 16, 4);
	memcpy(h->mac, b + 20, 6);
	b += 26;
	for (int i = 0; i < PERF_MAX_QPS; i++, b += 28) {
		h->qp[i].qpn = rk_get_be32(b);
		h->qp[i].psn = rk_get_be32(b + 4);
		h->qp[i].rkey = rk_get_be32(b + 8);
		h->qp[i].va = rk_get_be64(b + 12);
		h->qp[i].len = rk_get_be64(b + 20);
	}
}

static const uint8_t hello_ext_magic[4] = { 'R', 'K', 'X', 1 };

size_t
oob_encode_hello_all(const struct perf_hello *h, uint8_t *b)
{
	uint8_t *x = b + OOB_HELLO_LEN;

	oob_encode_hello(h, b);
	if (!h->ext && h->ip_version != 6)
		return OOB_HELLO_LEN;
	b[1] |= OOB_HELLO_F_EXT;
	memset(x, 0, OOB_HELLO_EXT_LEN);
	memcpy(x, hello_ext_magic, 4);
	x[4] = h->ip_version == 6 ? 6 : 4;
	memcpy(x + 8, h->ip6, 16);
	return OOB_HELLO_MAX_LEN;
}

size_t
oob_hello_ext_len(const uint8_t *hello)
{
	return (hello[1] & OOB_HELLO_F_EXT) ? OOB_HELLO_EXT_LEN : 0;
}

int
oob_decode_hello_ext(struct perf_hello *h, const uint8_t *x)
{
	if (memcmp(x, hello_ext_magic, 4) != 0 || (x[4] != 4 && x[4] != 6))
		return -EPROTO;
	h->ext = true;
	h->ip_version = x[4];
	memcpy(h->ip6, x + 8, 16);
	return 0;
}

void
oob_encode_msg(const struct perf_msg *m, uint8_t *b)
{
	memset(b, 0, OOB_MSG_LEN);
	rk_put_be32(b, m->type);
	rk_put_be32(b + 4, m->size);
	rk_put_be32(b + 8, (uint32_t)m->status);
	for (int i = 0; i < PERF_MAX_QPS; i++)
		rk_put_be64(b + 12 + 8 * i, m->iters[i]);
	memcpy(b + 12 + 8 * PERF_MAX_QPS, m->text, sizeof(m->text) - 1);
}

void
oob_decode_msg(struct perf_msg *m, const uint8_t *b)
{
	memset(m, 0, sizeof(*m));
	m->type = rk_get_be32(b);
	m->size = rk_get_be32(b + 4);
	m->status = (int32_t)rk_get_be32(b + 8);
	for (int i = 0; i < PERF_MAX_QPS; i++)
		m->iters[i] = rk_get_be64(b + 12 + 8 * i);
	memcpy(m->text, b + 12 + 8 * PERF_MAX_QPS, sizeof(m->text) - 1);
	/* The peer's text goes to a terminal. */
	for (size_t i = 0; m->text[i] != '\0'; i++)
		if ((unsigned char)m->text[i] < 0x20 || (unsigned char)m->text[i] > 0x7e)
			m->text[i] = '?';
}

static const uint8_t refuse_magic[3] = { 'R', 'K', 'R' };

void
oob_encode_refusal(const struct perf_refusal *r, uint8_t *b)
{
	memset(b, 0, OOB_REFUSE_LEN);
	memcpy(b, refuse_magic, 3);
	b[3] = OOB_REFUSE_VERSION;
	rk_put_be32(b + 4, (uint32_t)r->reason);
	memcpy(b + 8, r->text, strnlen(r->text, sizeof(r->text) - 1));
}

bool
oob_is_refusal(const uint8_t *b)
{
	return memcmp(b, refuse_magic, 3) == 0;
}

int
oob_decode_refusal(struct perf_refusal *r, const uint8_t *b)
{
	memset(r, 0, sizeof(*r));
	if (!oob_is_refusal(b))
		return -EPROTO;
	r->version = b[3];
	if (r->version != OOB_REFUSE_VERSION)
		return -EPROTO;
	r->reason = (int32_t)rk_get_be32(b + 4);
	memcpy(r->text, b + 8, sizeof(r->text) - 1);
	/* Only what prints: the peer's bytes go to a terminal. */
	for (size_t i = 0; r->text[i] != '\0'; i++)
		if ((unsigned char)r->text[i] < 0x20 || (unsigned char)r->text[i] > 0x7e)
			r->text[i] = '?';
	return 0;
}

bool
recording_writable(const char *prog, const char *path)
{
	FILE *f;

	if (path == NULL)
		return true;
	f = fopen(path, "wb");
	if (f == NULL) {
		fprintf(stderr, "%s: cannot write the recording %s: %s\n", prog, path,
			strerror(errno));
		return false;
	}
	fclose(f);
	return true;
}
