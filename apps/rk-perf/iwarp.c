/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-perf over iWARP: one TCP connection per QP, from lwIP on the DPDK port
 * (lib/io/rk_io_lwip.h) or from kernel sockets; MPA Rev 2 with RFC 6581
 * enhanced mode and peer-to-peer RTR, CRC on, no markers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>

#include "perf.h"
#include "rk_tcp.h"
#ifdef RK_PERF_LWIP
#include "rk_io_lwip.h"
#include "rk_tcp_lwip.h"
#endif

struct perf_iw {
	bool kernel;
	struct rk_io_dpdk *io;
#ifdef RK_PERF_LWIP
	struct rk_io_lwip *l;
	struct rk_lwip_listener *ls;
#endif
	int lfd;                        /* kernel listener */
	uint32_t next;                  /* QPs attached so far */
};

bool
perf_iw_has_lwip(void)
{
#ifdef RK_PERF_LWIP
	return true;
#else
	return false;
#endif
}

struct perf_iw *
perf_iw_open(struct rk_io_dpdk *io, const struct perf_opts *o, struct rk_context **ctx,
	     char *err, size_t errlen)
{
	struct perf_iw *w = calloc(1, sizeof(*w));
	struct rk_device_attr da = { 0 };

	if (w == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	w->kernel = o->tcp_kernel;
	w->io = io;
	w->lfd = -1;
	if (!w->kernel) {
#ifdef RK_PERF_LWIP
		char ip[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, o->ip, ip, sizeof(ip));
		w->l = rk_io_lwip_attach_mtu(io, ip, o->netmask != NULL ? o->netmask :
					     "255.255.255.0", (uint16_t)(o->mtu > 1500 ? 1500 : o->mtu));
		if (w->l == NULL) {
			snprintf(err, errlen, "cannot attach lwIP to the port as %s: %s", ip,
				 strerror(errno));
			free(w);
			return NULL;
		}
#else
		snprintf(err, errlen, "built without lwIP (liblwip-dev): use --tcp kernel");
		free(w);
		return NULL;
#endif
	}
	*ctx = rk_open_device_iwarp(&rk_app_tcp_stream_ops, w, &da);
	if (*ctx == NULL) {
		snprintf(err, errlen, "cannot open the iWARP device: %s", strerror(errno));
		perf_iw_close(w);
		return NULL;
	}
	return w;
}

int
perf_iw_poll(struct perf_iw *w)
{
#ifdef RK_PERF_LWIP
	if (w != NULL && w->l != NULL)
		return rk_io_lwip_poll(w->l);
#else
	(void)w;
#endif
	return 0;
}

int
perf_iw_listen(struct perf_iw *w, const struct perf_opts *o, uint16_t port)
{
	if (w->kernel) {
		char ip[INET_ADDRSTRLEN];

		/* The exchange's address family and host: any local IPv4 address. */
		(void)o;
		snprintf(ip, sizeof(ip), "0.0.0.0");
		w->lfd = rk_tcp_sock_listen(ip, port);
		return w->lfd < 0 ? w->lfd : 0;
	}
#ifdef RK_PERF_LWIP
	w->ls = rk_tcp_lwip_listen(port);
	return w->ls == NULL ? -errno : 0;
#else
	return -ENOTSUP;
#endif
}

static void
conn_attr(const struct perf_opts *o, struct rk_iw_conn_attr *c, bool initiator)
{
	uint32_t mtu = o->mtu > 1500 ? 1500 : o->mtu;

	*c = (struct rk_iw_conn_attr){
		.role = initiator ? RK_IW_INITIATOR : RK_IW_RESPONDER,
		.rev = 2, .enhanced = true, .p2p = true, .crc = true,
		.ird = RK_IW_MAX_IRD_ORD, .ord = RK_IW_MAX_IRD_ORD,
		/* FPDUs fit the MSS: lwIP's is min(1460, MTU - 40); the kernel's 1460 or less. */
		.emss = (uint16_t)(o->tcp_kernel ? 1460 : mtu - 40),
	};
}

/* Attach @p t to @p qp and start MPA. */
static int
attach(struct perf_iw *w, const struct perf_opts *o, struct rk_qp *qp, struct rk_tcp *t,
       bool initiator)
{
	struct rk_iw_conn_attr c;
	int rc;

	conn_attr(o, &c, initiator);
#ifdef RK_PERF_LWIP
	/* No markers: FPDUs can be aligned with lwIP's segments. */
	if (!w->kernel)
		rk_tcp_lwip_mpa_align(t);
#else
	(void)w;
#endif
	rc = rk_qp_connect_stream(qp, t, &c);
	if (rc != 0)
		t->ops->close(t);
	return rc;
}

int
perf_iw_accept(struct perf_iw *w, const struct perf_opts *o, struct rk_qp *qp)
{
	struct rk_tcp *t;

	if (w->kernel)
		t = rk_tcp_sock_accept(w->lfd);
	else
#ifdef RK_PERF_LWIP
		t = rk_tcp_lwip_accept(w->ls);
#else
		t = NULL;
#endif
	if (t == NULL)
		return errno == EAGAIN ? 0 : -errno;
	return attach(w, o, qp, t, false) == 0 ? 1 : -EIO;
}

int
perf_iw_connect(struct perf_iw *w, const struct perf_opts *o, struct rk_qp *qp,
		const char *host, uint16_t port)
{
	struct rk_tcp *t;

	if (w->kernel)
		t = rk_tcp_sock_connect(host, port);
	else
#ifdef RK_PERF_LWIP
		t = rk_tcp_lwip_connect(host, port);
#else
		t = NULL;
#endif
	if (t == NULL)
		return -errno;
	return attach(w, o, qp, t, true);
}

void
perf_iw_close(struct perf_iw *w)
{
	if (w == NULL)
		return;
	if (w->lfd >= 0)
		close(w->lfd);
#ifdef RK_PERF_LWIP
	if (w->ls != NULL)
		rk_tcp_lwip_listener_close(w->ls);
	rk_io_lwip_detach(w->l);
#endif
	free(w);
}

void
perf_iw_stats(const struct perf_iw *w, uint64_t *rx, uint64_t *tx, uint64_t *tx_err)
{
	*rx = *tx = *tx_err = 0;
#ifdef RK_PERF_LWIP
	if (w != NULL && w->l != NULL) {
		const struct rk_io_lwip_stats *s = rk_io_lwip_stats(w->l);

		*rx = s->rx_frames;
		*tx = s->tx_frames;
		*tx_err = s->tx_errors;
	}
#else
	(void)w;
#endif
}
