/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The peer of perftest's ib_{write,read,send,atomic}_bw and
 * ib_{write,read,send}_lat with the TCP exchange ("Data ex. method:
 * Ethernet", no -R), as perftest 6.x does it. Every step is an exchange:
 * the client writes its part, then reads the server's; the server reads
 * first. In order:
 *
 *   version       16 bytes, NUL-padded text ("6.06")
 *   cycle buffer   4 bytes, big endian (4096)
 *   cache line     4 bytes, big endian (64)
 *   MTU            2 bytes: the ibv_mtu value as text ("3"); both use the smaller
 *   keys         108 bytes: "LID:OUT_READS:QPN:PSN:RKEY:VADDR:" in hex
 *                 (%04x:%04x:%06x:%06x:%08x:%016x:), the 16 GID bytes as
 *                 "%02x:", "SRQN:" (%08x:), NUL
 *   keys again as a barrier: twice more (write/read/atomic bw), three times
 *                 (send_bw, where the last one follows the server's
 *                 receive posting, and the latency tests)
 *   ... data phase ...
 *   bw tests but send_bw: keys, then the client's results as five 8-byte
 *                 big-endian values (size, iterations, peak and average
 *                 MB/s and Mpps as doubles), answered by the server's
 *   keys (not after write_lat), then "done" (5 bytes) from each side, and
 *                 close.
 *
 * The data phases follow perftest's: the bw client keeps up to --tx-depth
 * operations outstanding; write_lat writes @size bytes whose last byte is
 * the iteration number (mod 256) and waits for the peer's write of the
 * same number into its own buffer (the server writes first); send_lat
 * (the client sends first) and read_lat wait for each message in turn.
 *
 * Checks: the tools fill their buffers with random bytes and check
 * nothing, so rdmakit verifies what the protocol fixes: every completion
 * succeeds, message lengths, the write_lat counters, every READ of a
 * static buffer returns the same bytes (and, as the server, the bytes
 * we put there), each FETCH_AND_ADD returns the previous one plus one,
 * and as the atomic server our buffer's 64-bit word sum grows by exactly
 * the client's reported iteration count.
 *
 * Here: the exchange, the QPs and the connection up to the data phase.
 * perftest_run.c runs one connection's test to its result line,
 * perftest_multi.c several connections in one process.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perftest.h"
#include "rk_byteorder.h"

/* ------------------------------------------------------------- exchange */

static int
comm_post_recv(struct pt *t)
{
	struct rk_sge sge = { (uint64_t)(uintptr_t)t->cbuf[1], sizeof(t->cbuf[1]), t->cmr->lkey };
	struct rk_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 };
	struct rk_recv_wr *bad;
	int rc = rk_post_recv(t->cqp, &wr, &bad);

	return rc == 0 ? 0 : ia_fail(t->a, "post_recv (exchange QP): %s", strerror(-rc));
}

static int
comm_wc_fail(struct pt *t, const struct rk_wc *wc)
{
	return ia_fail(t->a, "exchange QP: completion error: %s", rk_wc_status_str(wc->status));
}

/* While the exchange waits: the CM of both connections, which must stay up. */
static int
comm_idle(struct pt *t)
{
	struct rk_app_cm_conn *cs[2] = { &t->comm, &t->data };
	int act = ia_cm_pump(t->a, cs, 2, NULL);

	if (act < 0)
		return -1;
	if (act & (RK_CM_EV_DISCONNECTED | RK_CM_EV_REJECTED))
		return ia_fail(t->a, "the peer closed the RDMA-CM connection");
	act = rk_progress(t->a->ctx);
	return act > 0 ? act : 0;
}

static int
xchg(struct pt *t, const void *mine, void *theirs, size_t len)
{
	struct ia *a = t->a;

	if (t->cm)
		return pt_comm_xchg(t, mine, theirs, len);
	if (t->client)
		return ia_oob_write(a, mine, len) != 0 || ia_oob_read(a, theirs, len) != 0 ? -1 : 0;
	return ia_oob_read(a, theirs, len) != 0 || ia_oob_write(a, mine, len) != 0 ? -1 : 0;
}

int
pt_roce_keys(struct pt *t, struct rk_pt_dest *out)
{
	char mine[RK_PT_KEY_LEN], theirs[RK_PT_KEY_LEN];
	struct rk_pt_dest d;

	if (t->cm)
		return pt_keys_bin(t, out);

	rk_pt_keys_encode(&t->local, mine);
	if (xchg(t, mine, theirs, sizeof(mine)) != 0)
		return -1;
	if (rk_pt_keys_decode(&d, theirs) != 0)
		return ia_fail(t->a, "the peer's key message is malformed: \"%.60s\"", theirs);
	if (out != NULL)
		*out = d;
	return 0;
}

int
pt_roce_preamble(struct pt *t)
{
	struct ia *a = t->a;
	char mtu[2] = { (char)('0' + t->mtu_enum), '\0' }, rmtu[3], rver[PT_VERSION_LEN + 1];
	uint32_t cycle;
	unsigned int rm;

	if (pt_preamble(t, mtu, rmtu, rver, &cycle) != 0)
		return -1;
	if (cycle != PT_CYCLE)
		fprintf(stderr, "rk-interop: note: the peer's cycle buffer is %u\n", cycle);
	if (sscanf(rmtu, "%u", &rm) != 1 || rm < RK_MTU_256 || rm > RK_MTU_4096)
		return ia_fail(a, "the peer's MTU \"%.2s\" is not an IB MTU", rmtu);
	if (rm < t->mtu_enum)
		t->mtu_enum = rm;
	if (a->o.verbose)
		fprintf(stderr, "rk-interop: peer perftest %s, path MTU %u\n", rver,
			128u << t->mtu_enum);
	return 0;
}

/* ------------------------------------------------------------ resources */

/* -R: PD, and the RC QP of the exchange with one receive posted. */
static int
create_comm(struct pt *t)
{
	struct ia *a = t->a;
	struct rk_qp_init_attr ia = { .qp_type = RK_QPT_RC, .sq_sig_all = 1,
				      .cap = { .max_send_wr = 4, .max_recv_wr = 4,
					       .max_send_sge = 1, .max_recv_sge = 1 } };
	struct rk_qp_attr at = { .qp_state = RK_QPS_INIT, .port_num = 1 };
	int rc;

	t->pd = rk_alloc_pd(a->ctx);
	t->ccq = rk_create_cq(a->ctx, 16, NULL);
	if (t->pd == NULL || t->ccq == NULL)
		return ia_fail(a, "cannot create PD/CQ: %s", strerror(errno));
	t->cmr = rk_reg_mr(t->pd, t->cbuf, sizeof(t->cbuf), RK_ACCESS_LOCAL_WRITE);
	ia.send_cq = ia.recv_cq = t->ccq;
	t->cqp = rk_create_qp(t->pd, &ia);
	if (t->cmr == NULL || t->cqp == NULL)
		return ia_fail(a, "cannot create the exchange QP: %s", strerror(errno));
	rc = rk_modify_qp(t->cqp, &at, RK_QP_STATE | RK_QP_PKEY_INDEX | RK_QP_PORT |
			  RK_QP_ACCESS_FLAGS);
	if (rc != 0)
		return ia_fail(a, "modify QP to INIT: %s", strerror(-rc));
	t->comm_psn = (uint32_t)lrand48() & 0xffffff;
	return comm_post_recv(t);
}

int
pt_roce_create(struct pt *t)
{
	struct ia *a = t->a;
	const int access = RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE |
			   RK_ACCESS_REMOTE_READ | RK_ACCESS_REMOTE_ATOMIC;
	struct rk_qp_init_attr ia = { .qp_type = a->o.uc ? RK_QPT_UC : RK_QPT_RC,
				      .sq_sig_all = 1 };
	/* UC has no READ or atomics (IBTA Vol1 9.7.4): WRITE access only. */
	struct rk_qp_attr at = { .qp_state = RK_QPS_INIT, .port_num = 1,
				 .qp_access_flags = a->o.uc ? RK_ACCESS_REMOTE_WRITE :
						    RK_ACCESS_REMOTE_WRITE |
						    RK_ACCESS_REMOTE_READ |
						    RK_ACCESS_REMOTE_ATOMIC };
	int rc;

	if (t->pd == NULL)
		t->pd = rk_alloc_pd(a->ctx);
	if (t->pd == NULL)
		return ia_fail(a, "alloc_pd: %s", strerror(errno));
	if (pt_alloc(t, access) != 0)
		return -1;
	ia.send_cq = ia.recv_cq = t->cq;
	ia.cap = (struct rk_qp_cap){ .max_send_wr = a->o.tx_depth,
				     .max_recv_wr = t->rq_depth + 1, .max_send_sge = 1,
				     .max_recv_sge = 1 };
	t->qp = rk_create_qp(t->pd, &ia);
	if (t->qp == NULL)
		return ia_fail(a, "create_qp: %s", strerror(errno));
	rc = rk_modify_qp(t->qp, &at, RK_QP_STATE | RK_QP_PKEY_INDEX | RK_QP_PORT |
			  RK_QP_ACCESS_FLAGS);
	if (rc != 0)
		return ia_fail(a, "modify QP to INIT: %s", strerror(-rc));
	t->local = (struct rk_pt_dest){
		.out_reads = a->o.outs, .qpn = t->qp->qp_num,
		.psn = (uint32_t)lrand48() & 0xffffff, .rkey = t->mr->rkey,
		.vaddr = (uint64_t)(uintptr_t)(t->buf + t->region_off),
	};
	ia_gid_v4(t->local.gid, a->o.ip);
	return 0;
}

int
pt_roce_connect(struct pt *t)
{
	struct ia *a = t->a;
	uint8_t ip[4];

	if (!ia_gid_to_v4(t->remote.gid, ip))
		return ia_fail(a, "the peer's GID is not an IPv4-mapped RoCEv2 GID (run perftest "
			       "with -x and the index of its IPv4 GID, e.g. -x 1)");
	if (ia_resolve(a, ip, t->peer_mac) != 0)
		return -1;
	if (t->bad_rkey)
		t->remote.rkey ^= 0x5a5a00;
	return ia_rc_connect(a, t->qp, &(struct ia_rc_path){
		.mtu = (enum rk_mtu)t->mtu_enum, .dest_qpn = t->remote.qpn,
		.rq_psn = t->remote.psn, .sq_psn = (t->local.psn + t->psn_skew) & 0xffffff,
		.max_dest_rd_atomic = a->o.outs,
		.max_rd_atomic = (uint8_t)(t->remote.out_reads < a->o.outs &&
					   t->remote.out_reads > 0 ? t->remote.out_reads :
					   a->o.outs),
		.dmac = t->peer_mac, .dgid = t->remote.gid, .uc = a->o.uc }, false);
}

/* ------------------------------------------------------------ data phase */

int
pt_roce_wc_fail(struct pt *t, const struct rk_wc *wc)
{
	return ia_fail(t->a, "QP %#x: %s completion %" PRIu64 " failed: %s%s", wc->qp_num,
		       (wc->wr_id & PT_RECV) ? "receive" : "send", t->done,
		       rk_wc_status_str(wc->status),
		       wc->status == RK_WC_RETRY_EXC_ERR ? " (the peer stopped answering)" :
		       wc->status == RK_WC_REM_ACCESS_ERR ? " (the peer refused the R_Key/VA)" : "");
}

/* RoCE's bw client window: tx_depth, for READ/ATOMIC at most a result slot each. */
void
pt_roce_window(struct pt *t)
{
	t->window = t->a->o.tx_depth;
	if (t->verb == PT_READ || t->verb == PT_ATOMIC)
		t->window = t->slots < t->window ? t->slots : t->window;
	/*
	 * READ responses arrive in bursts we cannot slow down: keep about 256
	 * response packets in flight (the af_packet ring holds 512 frames), or
	 * lost bursts turn into go-back-N replays of every READ outstanding.
	 */
	if (t->verb == PT_READ) {
		uint32_t npkts = (t->size + (128u << t->mtu_enum) - 1) / (128u << t->mtu_enum);
		uint32_t cap = npkts >= 256 ? 1 : 256 / npkts;

		if (t->window > cap)
			t->window = cap;
	}
}

static int
roce_pump(struct pt *t, int work)
{
	rk_io_dpdk_idle(t->a->io, work);
	return 0;
}

static int
roce_qp_ended(struct pt *t)
{
	(void)t;
	return 0;       /* a broken QP shows as failed completions */
}

static bool
comm_closed(struct pt *t)
{
	return t->comm.conn.state != RK_CM_ESTABLISHED;
}

static int
roce_barrier(struct pt *t)
{
	return pt_roce_keys(t, NULL);
}

static const struct pt_link_ops roce_link = {
	.exchange = xchg, .pump = roce_pump, .qp_ended = roce_qp_ended, .wc_fail = pt_roce_wc_fail,
	.comm_wc_fail = comm_wc_fail, .comm_repost = comm_post_recv, .comm_idle = comm_idle,
	.send_idle_note = " (the client vanished mid-transfer?)", .usec_per_iter = true,
	.barrier = roce_barrier, .flow = pt_roce_window, .passive = pt_roce_passive,
	.comm_closed = comm_closed,
};

/* Passive side of write/read/atomic: serve until the client's next message. */
int
pt_roce_passive(struct pt *t)
{
	struct ia *a = t->a;

	/* -R: the next message is a SEND on the exchange QP; its wait serves us. */
	if (t->cm)
		return 0;

	rk_app_watchdog_restart(&a->wd);
	while (!rk_oob_readable(a->fd)) {
		int n = rk_progress(a->ctx);

		if (ia_watchdog(a, n) != 0)
			return ia_fail(a, "the client neither sent frames nor finished for %.0f s "
				       "(vanished mid-transfer?)", a->o.timeout_s);
		rk_io_dpdk_idle(a->io, n);
	}
	return 0;
}

/* --------------------------------------------------------------- set-up */

void
pt_roce_init(struct pt *t, struct ia *a)
{
	*t = (struct pt){ .a = a, .link = &roce_link, .client = a->o.server_host != NULL,
			  .size = a->o.size, .iters = a->o.iters, .mtu_enum = ia_mtu_enum(a->o.mtu),
			  .bad_rkey = a->o.bad_rkey, .psn_skew = a->o.psn_skew, .fd = -1,
			  .all = a->o.all_sizes };
	switch (a->o.mode) {
	case IA_WRITE_BW: t->verb = PT_WRITE; break;
	case IA_READ_BW: t->verb = PT_READ; break;
	case IA_SEND_BW: t->verb = PT_SEND; break;
	case IA_ATOMIC_BW: t->verb = PT_ATOMIC; t->size = 8; break;
	case IA_WRITE_LAT: t->verb = PT_WRITE; t->lat = true; break;
	case IA_READ_LAT: t->verb = PT_READ; t->lat = true; break;
	default: t->verb = PT_SEND; t->lat = true; break;
	}
	if (t->all)
		t->size = PT_ALL_MAX;
}

bool
pt_bw_report(const struct pt *t)
{
	return !t->lat && t->verb != PT_SEND;
}

/*
 * -R -q N, the client: perftest's N-1 more data connections, each with a
 * QP of its own, before its next exchange message (one after another;
 * perftest's come at once). Only the connections: the data phase of
 * several QPs runs over the TCP exchange. @return -1
 */
static int
more_conns(struct pt *t, uint8_t res)
{
	struct ia *a = t->a;
	struct rk_app_cm_conn *cs[2] = { &t->comm, &t->data };
	struct pt x;
	struct rk_app_cm_conn *xs[1] = { &x.data };
	int rc = 0;

	for (uint32_t i = 1; i < a->o.qps && rc == 0; i++) {
		pt_roce_init(&x, a);
		x.pd = t->pd;
		x.mtu_enum = t->mtu_enum;
		rc = pt_roce_create(&x) != 0 ? -1 :
		     ia_cm_connect(a, &x.data, x.qp, x.local.psn, res, cs, 2);
		if (rc == 0)
			(void)ia_cm_close(a, xs, 1, true, 1.0);
		x.pd = NULL;    /* the first QP's */
		pt_release(&x);
	}
	if (rc == 0)
		(void)ia_fail(a, "-R with -q %u: %u data connections made; their data phase "
			      "runs over the TCP exchange only", a->o.qps, a->o.qps);
	(void)ia_cm_close(a, cs, 2, true, 1.0);
	return -1;
}

/* Connect (by role and exchange) up to the data phase; 0 or -1 with a message. */
int
pt_roce_setup(struct pt *t)
{
	struct ia *a = t->a;
	int barriers = pt_bw_report(t) ? 2 : 3;

	/* perftest -b: write/read_bw sync once more before the data (not --run_infinitely). */
	if (a->o.bidir && t->verb != PT_SEND && !a->o.run_infinitely)
		barriers++;
	t->cm = a->o.rdma_cm;
	if (t->cm) {
		/*
		 * perftest -R: the exchange connection, the same exchange over
		 * it, the data QP's connection after the first key message,
		 * then two more barriers than over TCP (its first key
		 * messages are zeros: the real ones come later).
		 */
		struct rk_app_cm_conn *comm[1] = { &t->comm };
		uint8_t res = t->verb == PT_READ || t->verb == PT_ATOMIC ? a->o.outs : 0;

		if (create_comm(t) != 0)
			return -1;
		if ((t->client ? ia_cm_connect(a, &t->comm, t->cqp, t->comm_psn, 0, NULL, 0) :
				 ia_cm_accept(a, &t->comm, t->cqp, t->comm_psn, 0, NULL, 0)) != 0)
			return -1;
		if (pt_roce_preamble(t) != 0 || pt_roce_create(t) != 0 ||
		    pt_roce_keys(t, &t->remote) != 0)
			return -1;
		if ((t->client ? ia_cm_connect(a, &t->data, t->qp, t->local.psn, res, comm, 1) :
				 ia_cm_accept(a, &t->data, t->qp, t->local.psn, res, comm, 1)) != 0)
			return -1;
		if (t->client && a->o.qps > 1)
			return more_conns(t, res);
		barriers += 2;
	} else {
		if (ia_oob_open(a) != 0)
			return -1;
		t->fd = a->fd;
		if (pt_roce_preamble(t) != 0 || pt_roce_create(t) != 0)
			return -1;
		if (pt_roce_keys(t, &t->remote) != 0 || pt_roce_connect(t) != 0)
			return -1;
	}
	/* Receives go up before the last barrier, as perftest's server does. */
	for (int i = 0; i < barriers; i++) {
		if (i == barriers - 1 && t->verb == PT_SEND && pt_post_recvs(t) != 0)
			return -1;
		if (pt_roce_keys(t, t->cm ? &t->remote : NULL) != 0)
			return -1;
	}
	if (t->cm && t->remote.rkey == 0 && t->remote.vaddr == 0 && t->verb != PT_SEND)
		return ia_fail(a, "the peer sent no R_Key/VA in its key messages");
	pt_roce_window(t);
	printf(" local address: QPN %#06x PSN %#08x RKey %#010x VAddr %#016" PRIx64 "\n",
	       t->local.qpn, t->local.psn, t->local.rkey, t->local.vaddr);
	printf(" remote address: QPN %#06x PSN %#08x RKey %#010x VAddr %#016" PRIx64
	       " GID ::ffff:%u.%u.%u.%u OUT_READS %u\n", t->remote.qpn, t->remote.psn,
	       t->remote.rkey, t->remote.vaddr, t->remote.gid[12], t->remote.gid[13],
	       t->remote.gid[14], t->remote.gid[15], t->remote.out_reads);
	fflush(stdout);
	return 0;
}
