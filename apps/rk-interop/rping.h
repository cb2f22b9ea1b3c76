/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rping (librdmacm's example) once, for both transports: its buffers and
 * keys, the client's and the server's loops. The transport (rdmacm.c over
 * RoCE, iwarp.c over iWARP) connects the QP and says how to wait.
 *
 * A ping, as rping does it: the client advertises its start buffer (VA,
 * R_Key, length in 16 bytes); the server READs it, checks rping's text and
 * answers; the client advertises its sink; the server WRITEs the text
 * there and answers; the client compares sink and start.
 */
#ifndef IA_RPING_H
#define IA_RPING_H

#include "interop.h"

#define IA_RPING_INFO 16                   /* one advertisement */
#define IA_RPING_RECV ((uint64_t)1 << 62)  /* wr_id of the receive */

struct ia_rping {
	struct ia *a;
	uint32_t size;                      /* start and sink bytes */
	struct rk_pd *pd;
	struct rk_cq *cq;
	struct rk_qp *qp;                   /* the transport's, connected */
	uint8_t *start, *sink, tx[IA_RPING_INFO], rx[IA_RPING_INFO];
	struct rk_mr *start_mr, *sink_mr, *tx_mr, *rx_mr;
	uint64_t recvs;
	/*
	 * One completion in @p wc: 1; 0 when the peer disconnected first;
	 * -1 with a message (@p what names the wait).
	 */
	int (*wait)(struct ia_rping *r, struct rk_wc *wc, const char *what);
	void *link;                         /* the transport's state */
};

/* Buffers, PD, CQ and MRs for r->size bytes; 0 or -1 with a message. */
int ia_rping_alloc(struct ia_rping *r);
/* Post the advertisement's receive; 0 or -1 with a message. */
int ia_rping_post_recv(struct ia_rping *r);
/* The loops: 0 when every ping was verified, else -1 with a message. */
int ia_rping_client(struct ia_rping *r);
int ia_rping_server(struct ia_rping *r);
/* Release what ia_rping_alloc() and the transport made (the QP too). */
void ia_rping_free(struct ia_rping *r);

#endif
