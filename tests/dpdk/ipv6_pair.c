/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RoCEv2 over IPv6 through lib/io, in one process: two endpoints on the
 * two ports of an in-process net_ring pair (a wire), with addresses from
 * the 2001:2::/48 benchmarking range (RFC 5180) and no IPv4 address.
 *
 *   1. the GID table of each port comes from its address (index 0 is the
 *      IPv6 address, index 1 does not exist);
 *   2. each endpoint resolves the other's MAC with a Neighbor
 *      Solicitation; the other answers with a Neighbor Advertisement
 *      (RFC 4861), and an NS for an address nobody has stays unanswered;
 *   3. an RC QP pair (MTU 1024) runs a 64 KiB RDMA WRITE, a 3000 B SEND
 *      and a 3000 B RDMA READ; every byte is checked;
 *   4. both ports record to DIR/a.pcapng and DIR/b.pcapng, which the test
 *      script gives to rk-inspect (zero findings) and tshark.
 *
 * usage: ipv6_pair [EAL options] -- DIR
 * Exit 0 when every check passed, 1 otherwise, 77 when the ring pair
 * cannot be made.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eth_ring.h>
#include <rte_ring.h>

#include "rk_io_dpdk.h"
#include "rk_verbs.h"

#define WRITE_LEN 65536u
#define MSG_LEN 3000u
#define BUF_LEN (4 * WRITE_LEN)

struct end {
	struct rk_io_dpdk *io;
	struct rk_context *ctx;
	struct rk_pd *pd;
	struct rk_cq *cq;
	struct rk_qp *qp;
	struct rk_mr *mr;
	uint8_t *buf;
	uint8_t ip6[16];
	uint8_t mac[6];
	uint8_t peer_mac[6];
};

static int failures;
static struct end e[2];

static void
check(int ok, const char *what)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	if (!ok)
		failures++;
}

/* Serve both ports and both engines once. */
static int
poll_both(void)
{
	int n = 0;

	for (int i = 0; i < 2; i++)
		n += e[i].ctx != NULL ? rk_progress(e[i].ctx) : rk_io_dpdk_service(e[i].io);
	return n;
}

static int
wait_wc(int side, struct rk_wc *wc)
{
	uint64_t end = rk_io_dpdk_now_ns() + 5000000000ull;

	while (rk_io_dpdk_now_ns() < end) {
		int n = rk_poll_cq(e[side].cq, 1, wc);

		if (n != 0)
			return n;
		poll_both();
	}
	return 0;
}

static int
open_end(int i, uint16_t port, const char *dir)
{
	struct rk_io_dpdk_cfg cfg = { .port_id = port, .link_timeout_ms = 2000 };
	char path[512];

	/* 2001:2::1 and 2001:2::2; MACs 02:00:00:00:06:01 and :02. */
	e[i].ip6[0] = 0x20;
	e[i].ip6[1] = 0x01;
	e[i].ip6[3] = 0x02;
	e[i].ip6[15] = (uint8_t)(i + 1);
	memcpy(cfg.ip6, e[i].ip6, 16);
	memcpy(cfg.mac, "\x02\x00\x00\x00\x06", 5);
	cfg.mac[5] = (uint8_t)(i + 1);
	snprintf(path, sizeof(path), "%s/%c.pcapng", dir, 'a' + i);
	cfg.pcapng_path = path;
	e[i].io = rk_io_dpdk_open(&cfg);
	if (e[i].io == NULL) {
		fprintf(stderr, "ipv6_pair: port %u: %s\n", port, strerror(errno));
		return -1;
	}
	rk_io_dpdk_mac(e[i].io, e[i].mac);
	/* The verbs device is opened once the peer's MAC is known (make_qp). */
	e[i].ctx = NULL;
	e[i].buf = calloc(1, BUF_LEN);
	return e[i].buf != NULL ? 0 : -1;
}

static int
make_qp(int i)
{
	struct rk_device_attr da = { .ip_version = 6, .key_seed = 11 + (uint64_t)i };
	struct rk_qp_init_attr qa = { .qp_type = RK_QPT_RC, .sq_sig_all = 1,
				      .cap = { 16, 16, 1, 1, 0 } };

	memcpy(da.mac, e[i].mac, 6);
	memcpy(da.ip, e[i].ip6, 16);
	e[i].ctx = rk_open_device(&rk_io_dpdk_ops, e[i].io, &da);
	if (e[i].ctx == NULL)
		return -1;
	e[i].pd = rk_alloc_pd(e[i].ctx);
	e[i].cq = rk_create_cq(e[i].ctx, 64, NULL);
	if (e[i].pd == NULL || e[i].cq == NULL)
		return -1;
	qa.send_cq = qa.recv_cq = e[i].cq;
	e[i].qp = rk_create_qp(e[i].pd, &qa);
	e[i].mr = rk_reg_mr(e[i].pd, e[i].buf, BUF_LEN, RK_ACCESS_LOCAL_WRITE |
			    RK_ACCESS_REMOTE_WRITE | RK_ACCESS_REMOTE_READ);
	return e[i].qp != NULL && e[i].mr != NULL ? 0 : -1;
}

static int
connect_qp(int i)
{
	struct end *s = &e[i], *p = &e[i ^ 1];
	struct rk_qp_attr a = { .qp_state = RK_QPS_INIT,
				.qp_access_flags = RK_ACCESS_REMOTE_WRITE | RK_ACCESS_REMOTE_READ };
	int rc;

	rc = rk_modify_qp(s->qp, &a, RK_QP_STATE | RK_QP_PKEY_INDEX | RK_QP_PORT |
			  RK_QP_ACCESS_FLAGS);
	memset(&a, 0, sizeof(a));
	a.qp_state = RK_QPS_RTR;
	a.path_mtu = RK_MTU_1024;
	a.dest_qp_num = p->qp->qp_num;
	a.rq_psn = 100;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	memcpy(a.ah_attr.dmac, s->peer_mac, 6);
	memcpy(a.ah_attr.dip, p->ip6, 16);
	if (rc == 0)
		rc = rk_modify_qp(s->qp, &a, RK_QP_STATE | RK_QP_AV | RK_QP_PATH_MTU |
				  RK_QP_DEST_QPN | RK_QP_RQ_PSN | RK_QP_MAX_DEST_RD_ATOMIC |
				  RK_QP_MIN_RNR_TIMER);
	memset(&a, 0, sizeof(a));
	a.qp_state = RK_QPS_RTS;
	a.sq_psn = 100;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	if (rc == 0)
		rc = rk_modify_qp(s->qp, &a, RK_QP_STATE | RK_QP_SQ_PSN | RK_QP_TIMEOUT |
				  RK_QP_RETRY_CNT | RK_QP_RNR_RETRY | RK_QP_MAX_QP_RD_ATOMIC);
	return rc;
}

/* Solicit @p ip from side @p i, serving both ports, for up to @p ms. */
static int
resolve(int i, const uint8_t ip[16], uint8_t mac[6], uint32_t ms)
{
	uint64_t end = rk_io_dpdk_now_ns() + (uint64_t)ms * 1000000ull;

	if (rk_io_dpdk_solicit(e[i].io, ip) != 0)
		return -EIO;
	while (rk_io_dpdk_now_ns() < end) {
		poll_both();
		if (rk_io_dpdk_neigh_lookup(e[i].io, ip, mac) == 0)
			return 0;
	}
	return -ETIMEDOUT;
}

static int
post(int i, enum rk_wr_opcode op, uint32_t off, uint32_t len, uint32_t roff)
{
	struct rk_sge sge = { (uint64_t)(uintptr_t)(e[i].buf + off), len, e[i].mr->lkey };
	struct rk_send_wr wr = { .wr_id = op, .sg_list = &sge, .num_sge = 1, .opcode = op };
	struct rk_send_wr *bad;

	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(e[i ^ 1].buf + roff);
	wr.wr.rdma.rkey = e[i ^ 1].mr->rkey;
	return rk_post_send(e[i].qp, &wr, &bad);
}

int
main(int argc, char **argv)
{
	struct rte_ring *r[2];
	uint16_t port[2];
	uint8_t gid[16], mac[6];
	struct rk_wc wc;
	int n;

	n = rk_io_dpdk_eal_init(argc, argv);
	if (n < 0 || argc - n < 2) {
		fprintf(stderr, "usage: ipv6_pair [EAL options] -- DIR\n");
		return 2;
	}
	argv += n + 1;
	r[0] = rte_ring_create("rk6_ab", 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	r[1] = rte_ring_create("rk6_ba", 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (r[0] == NULL || r[1] == NULL) {
		printf("SKIP: cannot create rings\n");
		return 77;
	}
	/* A wire: what port A sends, port B receives, and back. */
	n = rte_eth_from_rings("rk6a", &r[1], 1, &r[0], 1, 0);
	if (n < 0) {
		printf("SKIP: net_ring pair: %d\n", n);
		return 77;
	}
	port[0] = (uint16_t)n;
	n = rte_eth_from_rings("rk6b", &r[0], 1, &r[1], 1, 0);
	if (n < 0) {
		printf("SKIP: net_ring pair: %d\n", n);
		return 77;
	}
	port[1] = (uint16_t)n;
	for (int i = 0; i < 2; i++)
		if (open_end(i, port[i], argv[0]) != 0)
			return 1;

	/* 1. GIDs from the port's addresses. */
	check(rk_io_dpdk_gid(e[0].io, 0, gid) == 0 && memcmp(gid, e[0].ip6, 16) == 0,
	      "GID 0 is the port's IPv6 address");
	check(rk_io_dpdk_gid(e[0].io, 1, gid) == -ENOENT, "no GID 1 without an IPv4 address");

	/* 2. Neighbour discovery both ways; nobody has 2001:2::99. */
	check(resolve(0, e[1].ip6, e[0].peer_mac, 2000) == 0 &&
	      memcmp(e[0].peer_mac, e[1].mac, 6) == 0, "A resolves B's MAC by NS/NA");
	check(rk_io_dpdk_neigh_lookup(e[1].io, e[0].ip6, mac) == 0 &&
	      memcmp(mac, e[0].mac, 6) == 0, "B learnt A's MAC from the NS");
	check(resolve(1, e[0].ip6, e[1].peer_mac, 2000) == 0 &&
	      memcmp(e[1].peer_mac, e[0].mac, 6) == 0, "B resolves A's MAC by NS/NA");
	{
		uint8_t ghost[16];

		memcpy(ghost, e[1].ip6, 16);
		ghost[15] = 0x99;
		check(resolve(0, ghost, mac, 300) == -ETIMEDOUT, "an unknown address stays unresolved");
	}
	check(rk_io_dpdk_stats(e[1].io)->tx_nd >= 2 && rk_io_dpdk_stats(e[1].io)->rx_nd >= 2,
	      "ND frames counted");

	/* 3. RC over IPv6. */
	for (int i = 0; i < 2; i++)
		if (make_qp(i) != 0) {
			check(0, "QP setup");
			return 1;
		}
	for (int i = 0; i < 2; i++)
		if (connect_qp(i) != 0) {
			check(0, "QP connect");
			return 1;
		}
	for (uint32_t k = 0; k < BUF_LEN; k++)
		e[0].buf[k] = (uint8_t)(k * 7 + (k >> 9) + 1);
	for (uint32_t k = 0; k < BUF_LEN; k++)
		e[1].buf[k] = (uint8_t)(k * 13 + 5);
	check(post(0, RK_WR_RDMA_WRITE, 0, WRITE_LEN, WRITE_LEN) == 0 && wait_wc(0, &wc) == 1 &&
	      wc.status == RK_WC_SUCCESS, "WRITE 64 KiB completes");
	check(memcmp(e[1].buf + WRITE_LEN, e[0].buf, WRITE_LEN) == 0, "WRITE data placed");
	{
		struct rk_sge sge = { (uint64_t)(uintptr_t)(e[1].buf + 3 * WRITE_LEN), MSG_LEN,
				      e[1].mr->lkey };
		struct rk_recv_wr rwr = { .wr_id = 9, .sg_list = &sge, .num_sge = 1 };
		struct rk_recv_wr *rbad;

		check(rk_post_recv(e[1].qp, &rwr, &rbad) == 0, "RECV posted");
	}
	check(post(0, RK_WR_SEND, 100, MSG_LEN, 0) == 0 && wait_wc(0, &wc) == 1 &&
	      wc.status == RK_WC_SUCCESS, "SEND completes");
	check(wait_wc(1, &wc) == 1 && wc.status == RK_WC_SUCCESS && wc.byte_len == MSG_LEN &&
	      wc.wr_id == 9, "RECV completes");
	check(memcmp(e[1].buf + 3 * WRITE_LEN, e[0].buf + 100, MSG_LEN) == 0, "SEND data placed");
	check(post(0, RK_WR_RDMA_READ, 2 * WRITE_LEN, MSG_LEN, 500) == 0 && wait_wc(0, &wc) == 1 &&
	      wc.status == RK_WC_SUCCESS && wc.byte_len == MSG_LEN, "READ completes");
	check(memcmp(e[0].buf + 2 * WRITE_LEN, e[1].buf + 500, MSG_LEN) == 0, "READ data returned");
	{
		const struct rk_ib_stats *sa = rk_context_stats(e[0].ctx);
		const struct rk_ib_stats *sb = rk_context_stats(e[1].ctx);

		check(sa->req_retx_pkts == 0 && sb->rx_drop_addr == 0 && sb->rx_drop_qp == 0 &&
		      sa->rx_drop_icrc == 0 && sb->rx_drop_icrc == 0, "no retransmission, no drop");
		check(rk_io_dpdk_stats(e[1].io)->rx_other == 0 &&
		      rk_io_dpdk_stats(e[0].io)->rx_other == 0, "nothing unrecognised on the wire");
	}
	/* Let the last ACKs go, then close (the recordings are complete after this). */
	for (int k = 0; k < 1000; k++)
		poll_both();
	for (int i = 0; i < 2; i++) {
		rk_destroy_qp(e[i].qp);
		rk_dereg_mr(e[i].mr);
		rk_destroy_cq(e[i].cq);
		rk_dealloc_pd(e[i].pd);
		rk_close_device(e[i].ctx);
		check(rk_io_dpdk_close(e[i].io) == 0, "recording written");
		free(e[i].buf);
	}
	printf("ipv6_pair: %s\n", failures == 0 ? "all checks passed" : "FAILED");
	return failures == 0 ? 0 : 1;
}
