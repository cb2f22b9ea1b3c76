/* SPDX-License-Identifier: BSD-3-Clause */
/* An iWARP QP over any rk_tcp connection: lib/iwarp's link with the connection's ops. */
#include <stdint.h>

#include "rk_tcp.h"

void
rk_iw_tcp_link_init(struct rk_iw_link *l, struct rk_iw_qp *qp, struct rk_tcp *tcp)
{
	rk_iw_link_init(l, qp, tcp->ops, tcp);
}

long
rk_iw_tcp_pump(struct rk_iw_link *l, uint64_t now_ns)
{
	return rk_iw_link_pump(l, SIZE_MAX, now_ns);
}
