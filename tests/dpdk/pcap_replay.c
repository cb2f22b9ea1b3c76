/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The net_pcap replay test of lib/io, in one process and deterministic:
 *
 *   1. a requester QP on a net_pcap port with only tx_pcap= posts an RDMA
 *      WRITE of 64 KiB, a SEND of 3000 B and a WRITE with immediate of
 *      512 B (MTU 1024); with no peer, lib/io writes exactly the frames the
 *      engine sends, the first transmission of every packet, to
 *      DIR/requests.pcap;
 *   2. a second net_pcap port replays that file (rx_pcap=) into the
 *      responder QP, which was created up front so the requests carry its
 *      QPN, R_Key and addresses; its ACKs go to DIR/acks.pcap and lib/io
 *      records both directions to DIR/responder.pcapng;
 *   3. checks: every byte placed, two receive completions (SEND; WRITE
 *      with immediate, its immediate value), no NAK, no dropped frame,
 *      every replayed frame handed to the engine, ACKs sent.
 *
 * The test script then runs rk-inspect on the recording (zero findings).
 *
 * usage: pcap_replay [EAL options] -- DIR
 * Exit 0 when every check passed, 1 otherwise.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_dev.h>

#include "rk_io_dpdk.h"
#include "rk_verbs.h"

#define WRITE_LEN 65536u
#define SEND_LEN 3000u
#define IMM_LEN 512u
#define IMM_VALUE 0x1234abcdu
#define REQ_PSN 0x000100u
#define RESP_PSN 0x000200u

/*
 * A backend that forwards to a DPDK port, or to nothing while none is
 * attached: both QPs exist before either port does, and the responder
 * keeps its QPN and keys when its port appears.
 */
struct relay {
	struct rk_io_dpdk *io;
};

static int
relay_tx(void *arg, const uint8_t *frame, uint32_t len)
{
	struct relay *r = arg;

	return r->io != NULL ? rk_io_dpdk_ops.tx(r->io, frame, len) : 0;
}

static int
relay_rx(void *arg, uint8_t *buf, uint32_t cap)
{
	struct relay *r = arg;

	return r->io != NULL ? rk_io_dpdk_ops.rx(r->io, buf, cap) : 0;
}

static uint64_t
relay_now(void *arg)
{
	(void)arg;
	return rk_io_dpdk_now_ns();
}

static void
relay_flush(void *arg)
{
	struct relay *r = arg;

	if (r->io != NULL)
		rk_io_dpdk_ops.flush(r->io);
}

static unsigned int
relay_room(void *arg)
{
	struct relay *r = arg;

	return r->io != NULL ? rk_io_dpdk_ops.tx_room(r->io) : 0;
}

static const struct rk_io_ops relay_ops = {
	.name = "relay",
	.tx = relay_tx,
	.rx = relay_rx,
	.now_ns = relay_now,
	.flush = relay_flush,
	.tx_room = relay_room,
};

struct side {
	struct relay relay;
	struct rk_context *ctx;
	struct rk_pd *pd;
	struct rk_cq *cq;
	struct rk_qp *qp;
	struct rk_mr *mr;
	uint8_t *buf;
	size_t len;
	uint8_t mac[6];
	uint8_t ip[4];
};

static int failures;

static void
check(int ok, const char *what)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	if (!ok)
		failures++;
}

static uint8_t
pattern(size_t i)
{
	return (uint8_t)(i * 7 + (i >> 8) * 13 + 1);
}

static int
side_create(struct side *s, const uint8_t mac[6], const uint8_t ip[4], uint64_t seed,
	    size_t len)
{
	struct rk_device_attr da = { 0 };
	struct rk_qp_init_attr ia = { 0 };

	memcpy(s->mac, mac, 6);
	memcpy(s->ip, ip, 4);
	memcpy(da.mac, mac, 6);
	da.ip[10] = da.ip[11] = 0xff;
	memcpy(da.ip + 12, ip, 4);
	da.ip_version = 4;
	da.key_seed = seed;
	s->ctx = rk_open_device(&relay_ops, &s->relay, &da);
	if (s->ctx == NULL)
		return -1;
	s->pd = rk_alloc_pd(s->ctx);
	s->cq = rk_create_cq(s->ctx, 64, NULL);
	s->buf = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);   /* C11: a multiple of the alignment */
	s->len = len;
	if (s->pd == NULL || s->cq == NULL || s->buf == NULL)
		return -1;
	memset(s->buf, 0, len);
	s->mr = rk_reg_mr(s->pd, s->buf, len, RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE);
	ia.send_cq = s->cq;
	ia.recv_cq = s->cq;
	ia.qp_type = RK_QPT_RC;
	ia.cap.max_send_wr = 16;
	ia.cap.max_recv_wr = 16;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	s->qp = rk_create_qp(s->pd, &ia);
	return s->mr != NULL && s->qp != NULL ? 0 : -1;
}

/* RESET -> INIT -> RTR -> RTS towards @p peer. */
static int
side_connect(struct side *s, const struct side *peer, uint32_t sq_psn, uint32_t rq_psn)
{
	struct rk_qp_attr a = { 0 };
	int rc;

	a.qp_state = RK_QPS_INIT;
	a.qp_access_flags = RK_ACCESS_REMOTE_WRITE;
	rc = rk_modify_qp(s->qp, &a, RK_QP_STATE | RK_QP_PKEY_INDEX | RK_QP_PORT |
			  RK_QP_ACCESS_FLAGS);
	memset(&a, 0, sizeof(a));
	a.qp_state = RK_QPS_RTR;
	a.path_mtu = RK_MTU_1024;
	a.dest_qp_num = peer->qp->qp_num;
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	memcpy(a.ah_attr.dmac, peer->mac, 6);
	a.ah_attr.dip[10] = a.ah_attr.dip[11] = 0xff;
	memcpy(a.ah_attr.dip + 12, peer->ip, 4);
	if (rc == 0)
		rc = rk_modify_qp(s->qp, &a, RK_QP_STATE | RK_QP_AV | RK_QP_PATH_MTU |
				  RK_QP_DEST_QPN | RK_QP_RQ_PSN | RK_QP_MAX_DEST_RD_ATOMIC |
				  RK_QP_MIN_RNR_TIMER);
	memset(&a, 0, sizeof(a));
	a.qp_state = RK_QPS_RTS;
	a.sq_psn = sq_psn;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (rc == 0)
		rc = rk_modify_qp(s->qp, &a, RK_QP_STATE | RK_QP_SQ_PSN | RK_QP_TIMEOUT |
				  RK_QP_RETRY_CNT | RK_QP_RNR_RETRY | RK_QP_MAX_QP_RD_ATOMIC);
	return rc;
}

static void
side_destroy(struct side *s)
{
	if (s->qp != NULL)
		rk_destroy_qp(s->qp);
	if (s->mr != NULL)
		rk_dereg_mr(s->mr);
	if (s->cq != NULL)
		rk_destroy_cq(s->cq);
	if (s->pd != NULL)
		rk_dealloc_pd(s->pd);
	if (s->ctx != NULL)
		rk_close_device(s->ctx);
	free(s->buf);
}

static struct rk_io_dpdk *
open_port(const char *vdev, const char *name, const struct side *s, const char *pcapng)
{
	struct rk_io_dpdk_cfg cfg = { 0 };
	struct rk_io_dpdk *io;
	int rc = rte_dev_probe(vdev);

	if (rc != 0) {
		fprintf(stderr, "pcap_replay: cannot create %s: %s\n", vdev, strerror(-rc));
		return NULL;
	}
	cfg.port_name = name;
	memcpy(cfg.ip, s->ip, 4);
	memcpy(cfg.mac, s->mac, 6);
	cfg.link_timeout_ms = 2000;
	cfg.pcapng_path = pcapng;
	io = rk_io_dpdk_open(&cfg);
	if (io == NULL)
		fprintf(stderr, "pcap_replay: cannot open %s: %s\n", name, strerror(errno));
	return io;
}

static int
post(struct side *s, enum rk_wr_opcode op, uint32_t off, uint32_t len, uint64_t raddr,
     uint32_t rkey)
{
	struct rk_sge sge = { (uint64_t)(uintptr_t)(s->buf + off), len, s->mr->lkey };
	struct rk_send_wr wr = { .wr_id = off, .sg_list = &sge, .num_sge = 1, .opcode = op,
				 .send_flags = RK_SEND_SIGNALED };
	struct rk_send_wr *bad;

	if (op == RK_WR_RDMA_WRITE_WITH_IMM)
		wr.imm_data = IMM_VALUE;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return rk_post_send(s->qp, &wr, &bad);
}

int
main(int argc, char **argv)
{
	static const uint8_t mac_req[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };
	static const uint8_t mac_resp[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
	static const uint8_t ip_req[4] = { 198, 18, 0, 2 };
	static const uint8_t ip_resp[4] = { 198, 18, 0, 1 };
	struct side req = { 0 }, resp = { 0 };
	char vdev[4200], rec[4096];
	struct rk_wc wc[8];
	const struct rk_io_dpdk_stats *st;
	const struct rk_ib_stats *ib;
	uint64_t req_frames, last, t0;
	int n, nrecv = 0, imm_ok = 0, send_ok = 0;
	const char *dir;

	n = rk_io_dpdk_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "pcap_replay: EAL: %s\n", strerror(-n));
		return 1;
	}
	if (argc - n != 2) {
		fprintf(stderr, "usage: pcap_replay [EAL options] -- DIR\n");
		return 2;
	}
	dir = argv[n + 1];

	/* Requester memory: the three messages side by side. */
	if (side_create(&req, mac_req, ip_req, 11, WRITE_LEN + SEND_LEN + IMM_LEN) != 0 ||
	    side_create(&resp, mac_resp, ip_resp, 22, WRITE_LEN + IMM_LEN + SEND_LEN) != 0) {
		fprintf(stderr, "pcap_replay: cannot create the QPs: %s\n", strerror(errno));
		return 1;
	}
	for (size_t i = 0; i < req.len; i++)
		req.buf[i] = pattern(i);
	if (side_connect(&req, &resp, REQ_PSN, RESP_PSN) != 0 ||
	    side_connect(&resp, &req, RESP_PSN, REQ_PSN) != 0) {
		fprintf(stderr, "pcap_replay: cannot connect the QPs\n");
		return 1;
	}

	/* 1. Record the requester's frames: a port with nothing to receive. */
	snprintf(vdev, sizeof(vdev), "net_pcap0,tx_pcap=%s/requests.pcap", dir);
	req.relay.io = open_port(vdev, "net_pcap0", &req, NULL);
	if (req.relay.io == NULL)
		return 1;
	{
		uint64_t raddr = (uint64_t)(uintptr_t)resp.buf;
		uint32_t rkey = resp.mr->rkey;

		if (post(&req, RK_WR_RDMA_WRITE, 0, WRITE_LEN, raddr, rkey) != 0 ||
		    post(&req, RK_WR_SEND, WRITE_LEN, SEND_LEN, 0, 0) != 0 ||
		    post(&req, RK_WR_RDMA_WRITE_WITH_IMM, WRITE_LEN + SEND_LEN, IMM_LEN,
			 raddr + WRITE_LEN, rkey) != 0) {
			fprintf(stderr, "pcap_replay: post_send failed\n");
			return 1;
		}
	}
	/* Until the engine has sent everything once (no ACK will come). */
	for (int i = 0; i < 10000; i++) {
		uint64_t now = rk_io_dpdk_now_ns();

		rk_progress(req.ctx);
		if (rk_next_event_ns(req.ctx) > now)
			break;
	}
	st = rk_io_dpdk_stats(req.relay.io);
	req_frames = st->tx_frames;
	printf("recorded %" PRIu64 " request frames to %s/requests.pcap\n", req_frames, dir);
	check(req_frames == WRITE_LEN / 1024 + 3 + 1 && st->tx_dropped_full == 0,
	      "the requester sent 64 + 3 + 1 frames, none dropped");
	if (rk_io_dpdk_close(req.relay.io) != 0)
		check(0, "requests.pcap written");
	req.relay.io = NULL;

	/* 2. Replay them into the responder, with its receives posted. */
	for (uint32_t k = 0; k < 2; k++) {
		struct rk_sge sge = { (uint64_t)(uintptr_t)(resp.buf + WRITE_LEN + IMM_LEN),
				      SEND_LEN, resp.mr->lkey };
		struct rk_recv_wr wr = { .wr_id = 100 + k, .sg_list = &sge, .num_sge = 1 };
		struct rk_recv_wr *bad;

		if (rk_post_recv(resp.qp, &wr, &bad) != 0)
			return 1;
	}
	snprintf(vdev, sizeof(vdev), "net_pcap1,rx_pcap=%s/requests.pcap,tx_pcap=%s/acks.pcap",
		 dir, dir);
	snprintf(rec, sizeof(rec), "%s/responder.pcapng", dir);
	resp.relay.io = open_port(vdev, "net_pcap1", &resp, rec);
	if (resp.relay.io == NULL)
		return 1;
	st = rk_io_dpdk_stats(resp.relay.io);
	/* Until the file is used up and the ACKs are out (coalescing delay). */
	t0 = last = rk_io_dpdk_now_ns();
	for (;;) {
		uint64_t now = rk_io_dpdk_now_ns(), before = st->rx_frames;

		n = rk_poll_cq(resp.cq, 8, wc);
		for (int k = 0; k < n; k++) {
			nrecv++;
			if (wc[k].status != RK_WC_SUCCESS)
				continue;
			if (wc[k].opcode == RK_WC_RECV && wc[k].byte_len == SEND_LEN)
				send_ok = memcmp(resp.buf + WRITE_LEN + IMM_LEN,
						 req.buf + WRITE_LEN, SEND_LEN) == 0;
			if (wc[k].opcode == RK_WC_RECV_RDMA_WITH_IMM &&
			    (wc[k].wc_flags & RK_WC_WITH_IMM) && wc[k].imm_data == IMM_VALUE)
				imm_ok = 1;
		}
		if (st->rx_frames != before || n > 0)
			last = now;
		if (now - last > 200000000ull || now - t0 > 10000000000ull)
			break;
	}
	ib = rk_context_stats(resp.ctx);
	printf("replayed %" PRIu64 " frames: %" PRIu64 " to the engine, %" PRIu64
	       " sent back, %d receive completions\n", st->rx_frames, st->rx_roce,
	       st->tx_frames, nrecv);
	check(st->rx_roce == req_frames && st->rx_frames == req_frames,
	      "every replayed frame reached the engine");
	check(memcmp(resp.buf, req.buf, WRITE_LEN) == 0, "RDMA WRITE 64 KiB placed");
	check(memcmp(resp.buf + WRITE_LEN, req.buf + WRITE_LEN + SEND_LEN, IMM_LEN) == 0,
	      "RDMA WRITE with immediate placed");
	check(send_ok, "SEND 3000 B received intact");
	check(imm_ok, "immediate value delivered");
	check(nrecv == 2, "exactly two receive completions");
	check(ib->resp_nak_seq == 0 && ib->resp_nak_fatal == 0 && ib->resp_rnr_nak == 0,
	      "no NAK from the responder");
	check(ib->rx_drop_malformed == 0 && ib->rx_drop_icrc == 0 && ib->rx_drop_qp == 0 &&
	      ib->rx_drop_state == 0 && ib->rx_drop_addr == 0 && ib->resp_dup == 0,
	      "no frame dropped or duplicate");
	check(st->tx_frames > 0 && st->tx_dropped_full == 0, "ACKs sent, none dropped");
	if (rk_io_dpdk_close(resp.relay.io) != 0)
		check(0, "responder.pcapng written");
	resp.relay.io = NULL;
	side_destroy(&req);
	side_destroy(&resp);
	printf("%d check(s) failed\n", failures);
	return failures == 0 ? 0 : 1;
}
