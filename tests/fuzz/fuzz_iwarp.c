/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: a Responder iWARP engine (lib/iwarp) fed arbitrary
 * stream bytes in pieces whose sizes come from the input, with its output
 * drained in small pieces. Byte 0 picks the mode:
 *   bit 0  prepend a valid MPA Request (else the input is the whole stream)
 *   bit 1  the Request asks the engine for markers; bit 2 CRC;
 *   bit 3  framed: the rest is [len:2][ULPDU] records that are wrapped in
 *          correct FPDUs (markers and CRC as negotiated), so DDP and RDMAP
 *          checks are reached with CRC on;
 *   bit 4  RFC 7306 operations; bit 5 RFC 6581 peer-to-peer RTR;
 *   bit 6  the engine asks the peer for markers.
 * The engine must never crash, read or write out of bounds, or leak; it
 * places data only inside the registered regions (ASan checks the rest).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk_iw.h"
#include "rk_mpa.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t out[4096];

static void
drain(struct rk_iw_qp *qp, size_t cap)
{
	size_t n;

	do {
		n = rk_iw_tx(qp, out, cap, 0);
	} while (n > 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t fpdu[RK_MPA_FPDU_MAX + 1024];
	struct rk_iw_dev_attr da = { 16, 1 };
	struct rk_iw_qp_init_attr qa;
	struct rk_iw_dev *dev;
	struct rk_iw_pd *pd;
	struct rk_iw_cq *cq;
	struct rk_iw_qp *qp;
	struct rk_iw_mr *mr[3];
	struct rk_wc wc[16];
	uint8_t *mem;
	uint8_t mode;
	uint32_t seq = 0, seq0 = 0;
	size_t off = 2;

	if (size < 2)
		return 0;
	mode = data[0];
	dev = rk_iw_dev_create(&da);
	if (dev == NULL)
		return 0;
	pd = rk_iw_pd_alloc(dev);
	cq = rk_iw_cq_create(dev, 64);
	mem = calloc(1, 3 * 4096);
	if (pd == NULL || cq == NULL || mem == NULL)
		goto out;
	mr[0] = rk_iw_mr_reg(pd, mem, 4096, RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE |
			     RK_ACCESS_REMOTE_INVALIDATE | RK_ACCESS_REMOTE_ATOMIC);
	mr[1] = rk_iw_mr_reg(pd, mem + 4096, 4096, RK_ACCESS_REMOTE_READ);
	mr[2] = rk_iw_mr_reg(pd, mem + 8192, 4096, RK_ACCESS_LOCAL_WRITE);
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = qa.recv_cq = cq;
	qa.cap.max_send_wr = 8;
	qa.cap.max_recv_wr = 8;
	qa.cap.max_send_sge = 2;
	qa.cap.max_recv_sge = 2;
	qa.ext_ops = mode & 0x10;
	qa.conn.role = RK_IW_RESPONDER;
	qa.conn.enhanced = true;
	qa.conn.p2p = true;
	qa.conn.markers_rx = mode & 0x40;
	qa.conn.ird = 2;
	qa.conn.emss = (uint16_t)(128 + (data[1] & 0x7f) * 64);
	qa.conn.rx_isn = 0xfffffe00u;
	qp = rk_iw_qp_create(pd, &qa, 0);
	if (qp == NULL || mr[0] == NULL || mr[1] == NULL || mr[2] == NULL)
		goto out;
	for (int i = 0; i < 4; i++) {
		struct rk_sge sg = { (uintptr_t)mem + 8192 + 1024u * (unsigned)i, 1024,
				     rk_iw_mr_stag(mr[2]) };
		struct rk_recv_wr rw = { (uint64_t)i, NULL, &sg, 1 };

		rk_iw_post_recv(qp, &rw, NULL);
	}
	{
		/* Work of our own, so responses and requests interleave. */
		struct rk_sge sg = { (uintptr_t)mem + 4096, 64, rk_iw_mr_stag(mr[1]) };
		struct rk_send_wr wr;

		memset(&wr, 0, sizeof(wr));
		wr.sg_list = &sg;
		wr.num_sge = 1;
		wr.opcode = RK_WR_SEND;
		rk_iw_post_send(qp, &wr, NULL);
	}

	seq = 0xfffffe00u;
	if (mode & 1) {
		struct rk_mpa_rr req;
		uint8_t fr[64];
		int w;

		memset(&req, 0, sizeof(req));
		req.m = !!(mode & 2);
		req.c = !!(mode & 4);
		req.rev = 2;
		req.enhanced = 1;
		req.has_ird_ord = true;
		req.ird_ord.ird = 4;
		req.ird_ord.ord = 4;
		req.ird_ord.p2p = !!(mode & 0x20);
		req.ird_ord.rtr_send = !!(data[1] & 0x80);
		req.ird_ord.rtr_write = 1;
		w = rk_mpa_rr_build(fr, sizeof(fr), &req);
		if (w > 0) {
			rk_iw_rx(qp, fr, (size_t)w, 0);
			seq += (uint32_t)w;
			seq0 = seq;
		}
		drain(qp, 7);
	}
	if ((mode & 9) == 9) {
		const struct rk_iw_negotiated *n = rk_iw_qp_negotiated(qp);
		struct rk_mpa_tx tx;

		while (n != NULL && off + 2 <= size) {
			uint16_t l = (uint16_t)(data[off] << 8 | data[off + 1]);
			int w;

			off += 2;
			if (l > size - off)
				l = (uint16_t)(size - off);
			tx.markers = qp != NULL && (mode & 0x40);
			tx.crc = n->crc;
			tx.seq = seq;
			tx.marker_seq0 = seq0;
			w = rk_mpa_fpdu_build(fpdu, sizeof(fpdu), data + off, l, &tx);
			off += l;
			if (w <= 0)
				break;
			/* Split each FPDU once, at a place the input chooses. */
			{
				size_t cut = l > 0 ? data[off - 1] % (size_t)w : 0;

				rk_iw_rx(qp, fpdu, cut, 0);
				rk_iw_rx(qp, fpdu + cut, (size_t)w - cut, 0);
			}
			seq += (uint32_t)w;
			drain(qp, 1 + (l & 0xff));
		}
	} else {
		while (off < size) {
			size_t chunk = 1 + data[off - 1] % 131u;

			if (chunk > size - off)
				chunk = size - off;
			rk_iw_rx(qp, data + off, chunk, 0);
			off += chunk;
			drain(qp, chunk);
		}
	}
	drain(qp, sizeof(out));
	while (rk_iw_cq_poll(cq, 16, wc) > 0)
		;
	if (rk_iw_qp_state(qp) == RK_IW_CLOSED && !rk_iw_want_close(qp))
		__builtin_trap();
	rk_iw_llp_closed(qp);
	while (rk_iw_cq_poll(cq, 16, wc) > 0)
		;
out:
	rk_iw_dev_destroy(dev);
	free(mem);
	return 0;
}
