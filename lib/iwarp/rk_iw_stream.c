/* SPDX-License-Identifier: BSD-3-Clause */
/* The pump between an iWARP QP and its byte stream (rk_iw_stream.h). */
#include <errno.h>
#include <string.h>

#include "rk_iw.h"

void
rk_iw_link_init(struct rk_iw_link *l, struct rk_iw_qp *qp, const struct rk_stream_ops *ops,
		void *stream)
{
	memset(l, 0, offsetof(struct rk_iw_link, stage));
	l->qp = qp;
	l->ops = ops;
	l->stream = stream;
}

void
rk_iw_link_close(struct rk_iw_link *l)
{
	if (l->closed)
		return;
	l->ops->close(l->stream);
	l->closed = true;
	l->off = l->len = 0;
}

void
rk_iw_link_end(struct rk_iw_link *l)
{
	rk_iw_link_close(l);
	rk_iw_llp_closed(l->qp);
}

long
rk_iw_link_tx(struct rk_iw_link *l, uint64_t now_ns)
{
	long moved = 0, n;

	if (l->closed)
		return 0;
	for (;;) {
		if (l->off == l->len) {
			l->off = l->len = 0;
			l->len = (uint32_t)rk_iw_tx(l->qp, l->stage, sizeof(l->stage), now_ns);
			if (l->len == 0)
				break;
		}
		n = l->ops->send(l->stream, l->stage + l->off, l->len - l->off);
		if (n < 0) {
			rk_iw_link_end(l);
			return moved;
		}
		if (n == 0)
			break;
		l->off += (uint32_t)n;
		l->tx_bytes += (uint64_t)n;
		moved += n;
	}
	/* After a Terminate or MPA reject went out in full (RFC 5040 5.3). */
	if (l->off == l->len && rk_iw_want_close(l->qp))
		rk_iw_link_end(l);
	return moved;
}

long
rk_iw_link_pump(struct rk_iw_link *l, size_t rx_budget, uint64_t now_ns)
{
	long moved = 0, n = 0;

	if (l->closed)
		return -EPIPE;
	while ((size_t)moved < rx_budget) {
		n = l->ops->recv(l->stream, l->rbuf, sizeof(l->rbuf));
		if (n <= 0)
			break;
		moved += n;
		l->rx_bytes += (uint64_t)n;
		if (rk_iw_rx(l->qp, l->rbuf, (size_t)n, now_ns) == -EPIPE)
			break;
	}
	if (n < 0) {
		/* FIN or reset: the LLP is gone (RFC 5040: the stream ends). */
		rk_iw_link_end(l);
		return moved > 0 ? moved : -EPIPE;
	}
	rk_iw_timers(l->qp, now_ns);
	moved += rk_iw_link_tx(l, now_ns);
	return moved > 0 || !l->closed ? moved : -EPIPE;
}

bool
rk_iw_link_busy(const struct rk_iw_link *l)
{
	return !l->closed && (l->off < l->len || rk_iw_tx_pending(l->qp) ||
			      rk_iw_want_close(l->qp));
}
