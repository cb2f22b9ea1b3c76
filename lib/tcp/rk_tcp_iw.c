/* SPDX-License-Identifier: BSD-3-Clause */
/* Glue: an iWARP QP over any rk_tcp connection. */
#include <errno.h>
#include <string.h>

#include "rk_tcp.h"

void
rk_iw_tcp_link_init(struct rk_iw_tcp_link *l, struct rk_iw_qp *qp, struct rk_tcp *tcp)
{
	memset(l, 0, offsetof(struct rk_iw_tcp_link, stage));
	l->qp = qp;
	l->tcp = tcp;
}

long
rk_iw_tcp_pump(struct rk_iw_tcp_link *l, uint64_t now_ns)
{
	long moved = 0, n;

	if (l->closed)
		return -EPIPE;
	/* Receive: everything waiting, in order. */
	for (;;) {
		n = l->tcp->ops->recv(l->tcp, l->rbuf, sizeof(l->rbuf));
		if (n <= 0)
			break;
		l->rx_bytes += (uint64_t)n;
		moved += n;
		if (rk_iw_rx(l->qp, l->rbuf, (size_t)n, now_ns) == -EPIPE)
			break;
	}
	if (n < 0) {
		/* FIN or reset: the LLP is gone (RFC 5040: the stream ends). */
		rk_iw_llp_closed(l->qp);
		l->tcp->ops->close(l->tcp);
		l->closed = true;
		return moved > 0 ? moved : -EPIPE;
	}
	/* Transmit: refill the stage from the QP, give it to the TCP. */
	for (;;) {
		if (l->off == l->len) {
			l->off = l->len = 0;
			l->len = (uint32_t)rk_iw_tx(l->qp, l->stage, sizeof(l->stage), now_ns);
			if (l->len == 0)
				break;
		}
		n = l->tcp->ops->send(l->tcp, l->stage + l->off, l->len - l->off);
		if (n < 0) {
			rk_iw_llp_closed(l->qp);
			l->tcp->ops->close(l->tcp);
			l->closed = true;
			return moved > 0 ? moved : -EPIPE;
		}
		if (n == 0)
			break;
		l->off += (uint32_t)n;
		l->tx_bytes += (uint64_t)n;
		moved += n;
	}
	if (l->off == l->len && rk_iw_want_close(l->qp)) {
		l->tcp->ops->close(l->tcp);
		l->closed = true;
	}
	return moved;
}
