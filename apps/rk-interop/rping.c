/* SPDX-License-Identifier: BSD-3-Clause */
/* rping's buffers and loops over any transport (rping.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_byteorder.h"
#include "rping.h"

void
ia_rping_text(uint8_t *b, uint32_t size, uint32_t n)
{
	unsigned char c = (unsigned char)(65 + n % 58);
	int cc = snprintf((char *)b, size, "rdma-ping-%u: ", n);

	for (uint32_t i = (uint32_t)cc; i < size; i++) {
		b[i] = c;
		if (++c > 122)
			c = 65;
	}
	b[size - 1] = 0;
}

void
ia_rping_info(uint8_t info[16], const uint8_t *buf, uint32_t rkey, uint32_t size)
{
	rk_put_be64(info, (uint64_t)(uintptr_t)buf);
	rk_put_be32(info + 8, rkey);
	rk_put_be32(info + 12, size);
}

int
ia_rping_alloc(struct ia_rping *r)
{
	const int acc = RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_READ | RK_ACCESS_REMOTE_WRITE;
	struct ia *a = r->a;

	r->start = calloc(1, r->size);
	r->sink = calloc(1, r->size);
	r->pd = rk_alloc_pd(a->ctx);
	r->cq = rk_create_cq(a->ctx, 64, NULL);
	if (r->start == NULL || r->sink == NULL || r->pd == NULL || r->cq == NULL)
		return ia_fail(a, "cannot allocate resources");
	r->start_mr = rk_reg_mr(r->pd, r->start, r->size, acc);
	r->sink_mr = rk_reg_mr(r->pd, r->sink, r->size, acc);
	r->tx_mr = rk_reg_mr(r->pd, r->tx, IA_RPING_INFO, RK_ACCESS_LOCAL_WRITE);
	r->rx_mr = rk_reg_mr(r->pd, r->rx, IA_RPING_INFO, RK_ACCESS_LOCAL_WRITE);
	if (r->start_mr == NULL || r->sink_mr == NULL || r->tx_mr == NULL || r->rx_mr == NULL)
		return ia_fail(a, "cannot register memory: %s", strerror(errno));
	return 0;
}

int
ia_rping_post_recv(struct ia_rping *r)
{
	struct rk_sge sge = { (uint64_t)(uintptr_t)r->rx, IA_RPING_INFO, r->rx_mr->lkey };
	struct rk_recv_wr wr = { .wr_id = IA_RPING_RECV, .sg_list = &sge, .num_sge = 1 };
	struct rk_recv_wr *bad;
	int rc = rk_post_recv(r->qp, &wr, &bad);

	return rc == 0 ? 0 : ia_fail(r->a, "post_recv: %s", strerror(-rc));
}

void
ia_rping_free(struct ia_rping *r)
{
	rk_app_release(&(struct rk_app_verbs_objs){
		.qp = { r->qp }, .mr = { r->start_mr, r->sink_mr, r->tx_mr, r->rx_mr },
		.cq = { r->cq }, .pd = r->pd });
	r->qp = NULL;
	free(r->start);
	free(r->sink);
}

/* rping's post: a full send queue is an error too. */
static int
post(struct ia_rping *r, enum rk_wr_opcode op, uint8_t *local, uint32_t len, uint32_t lkey,
     uint64_t raddr, uint32_t rkey)
{
	int rc = ia_post_send(r->a, r->qp, op, op, local, len, lkey, raddr, rkey);

	return rc > 0 ? ia_fail(r->a, "post_send: %s", strerror(ENOMEM)) : rc;
}

/* Wait for the completion of @p id (our SEND completions pass by); 1, 0 (disconnected), -1. */
static int
expect(struct ia_rping *r, uint64_t id, const char *what)
{
	struct rk_wc wc;

	for (;;) {
		int rc = r->wait(r, &wc, what);

		if (rc <= 0)
			return rc;
		if (wc.wr_id == id)
			break;
		if (wc.wr_id == IA_RPING_RECV)
			return ia_fail(r->a, "unexpected rping message while waiting for %s", what);
	}
	if (id == IA_RPING_RECV) {
		if (wc.byte_len != IA_RPING_INFO)
			return ia_fail(r->a, "rping message of %u bytes, expected 16", wc.byte_len);
		r->recvs++;
		if (ia_rping_post_recv(r) != 0)
			return -1;
	}
	return 1;
}

static int
send_info(struct ia_rping *r)
{
	return post(r, RK_WR_SEND, r->tx, IA_RPING_INFO, r->tx_mr->lkey, 0, 0);
}

/* Advertise @p buf and wait for the go-ahead: > 0, 0 when the server left, -1 on error. */
static int
advertise(struct ia_rping *r, uint8_t *buf, uint32_t rkey, const char *go_ahead)
{
	ia_rping_info(r->tx, buf, rkey, r->size);
	if (send_info(r) != 0)
		return -1;
	return expect(r, IA_RPING_RECV, go_ahead);
}

int
ia_rping_client(struct ia_rping *r)
{
	struct ia *a = r->a;

	for (uint32_t ping = 0; ping < a->o.iters; ping++) {
		int rc;

		ia_rping_text(r->start, r->size, ping);
		memset(r->sink, 0, r->size);
		rc = advertise(r, r->start, r->start_mr->rkey, "the go-ahead after the READ");
		if (rc > 0)
			rc = advertise(r, r->sink, r->sink_mr->rkey, "the go-ahead after the WRITE");
		if (rc <= 0)
			return rc < 0 ? -1 : ia_fail(a, "the server disconnected after %" PRIu64
						     " messages", r->recvs);
		if (memcmp(r->start, r->sink, r->size) != 0)
			return ia_fail(a, "ping %u: the data written back differs from ours", ping);
	}
	printf("rping: %u pings of %u bytes, data verified\n", a->o.iters, r->size);
	return 0;
}

/* One ping served: 1, 0 when the client left before it began, -1 with a message. */
static int
serve_ping(struct ia_rping *r, uint8_t *want, uint32_t ping)
{
	struct ia *a = r->a;
	uint64_t raddr;
	uint32_t rkey, len;
	int e = expect(r, IA_RPING_RECV, "the source advertisement");

	if (e <= 0)
		return e;
	raddr = rk_get_be64(r->rx);
	rkey = rk_get_be32(r->rx + 8);
	len = rk_get_be32(r->rx + 12);
	if (len != r->size)
		return ia_fail(a, "the client's buffer is %u bytes; run us with -s %u", len, len);
	if (post(r, RK_WR_RDMA_READ, r->sink, len, r->sink_mr->lkey, raddr, rkey) != 0 ||
	    (e = expect(r, RK_WR_RDMA_READ, "the READ")) <= 0)
		goto cut;
	ia_rping_text(want, r->size, ping);
	if (memcmp(want, r->sink, r->size) != 0)
		return ia_fail(a, "ping %u: the READ brought other bytes than rping's text", ping);
	if (send_info(r) != 0 || (e = expect(r, IA_RPING_RECV, "the sink advertisement")) <= 0)
		goto cut;
	raddr = rk_get_be64(r->rx);
	rkey = rk_get_be32(r->rx + 8);
	len = (uint32_t)strnlen((const char *)r->sink, r->size - 1) + 1;
	if (post(r, RK_WR_RDMA_WRITE, r->sink, len, r->sink_mr->lkey, raddr, rkey) != 0 ||
	    (e = expect(r, RK_WR_RDMA_WRITE, "the WRITE")) <= 0)
		goto cut;
	return send_info(r) != 0 ? -1 : 1;
cut:
	return e == 0 ? ia_fail(a, "disconnected during ping %u", ping) : -1;
}

int
ia_rping_server(struct ia_rping *r)
{
	struct ia *a = r->a;
	uint8_t *want = malloc(r->size);
	uint32_t pings = 0;
	int rc;

	if (want == NULL)
		return ia_fail(a, "out of memory");
	while ((rc = serve_ping(r, want, pings)) > 0)
		pings++;
	free(want);
	if (rc < 0)
		return -1;
	printf("rping: served %u pings of %u bytes, data verified\n", pings, r->size);
	if (a->o.iters != 0 && pings != a->o.iters)
		return ia_fail(a, "the client stopped after %u of %u pings", pings, a->o.iters);
	return 0;
}
