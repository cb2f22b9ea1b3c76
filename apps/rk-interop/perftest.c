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

static int
hand_shake(struct pt *t, struct rk_pt_dest *out)
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

static int
preamble(struct pt *t)
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

static int
create(struct pt *t)
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

static int
connect_qp(struct pt *t)
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

static int
wc_error(struct pt *t, const struct rk_wc *wc)
{
	return ia_fail(t->a, "QP %#x: %s completion %" PRIu64 " failed: %s%s", wc->qp_num,
		       (wc->wr_id & PT_RECV) ? "receive" : "send", t->done,
		       rk_wc_status_str(wc->status),
		       wc->status == RK_WC_RETRY_EXC_ERR ? " (the peer stopped answering)" :
		       wc->status == RK_WC_REM_ACCESS_ERR ? " (the peer refused the R_Key/VA)" : "");
}

/* RoCE's bw client window: tx_depth, for READ/ATOMIC at most a result slot each. */
static void
roce_window(struct pt *t)
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
	return hand_shake(t, NULL);
}

static int run_passive(struct pt *t);

static const struct pt_link_ops roce_link = {
	.exchange = xchg, .pump = roce_pump, .qp_ended = roce_qp_ended, .wc_fail = wc_error,
	.comm_wc_fail = comm_wc_fail, .comm_repost = comm_post_recv, .comm_idle = comm_idle,
	.send_idle_note = " (the client vanished mid-transfer?)", .usec_per_iter = true,
	.barrier = roce_barrier, .flow = roce_window, .passive = run_passive,
	.comm_closed = comm_closed,
};

/* Passive side of write/read/atomic: serve until the client's next message. */
static int
run_passive(struct pt *t)
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

/* Ping-pong: write_lat (counter in the last byte), send_lat, read_lat. */
static int
run_lat(struct pt *t)
{
	struct ia *a = t->a;
	volatile uint8_t *poll_byte = t->buf + t->region_off + t->size - 1;
	uint8_t *post_byte = t->buf + t->size - 1;
	uint64_t scnt = 0, rcnt = 0, sdone = 0, first = 0, t0 = rk_io_dpdk_now_ns();
	uint8_t *ref = NULL;
	bool active = t->client || t->verb != PT_READ;
	/* perftest's send_lat starts with the client, its write_lat with the server. */
	bool starter = t->verb == PT_WRITE ? !t->client : t->client;
	struct rk_wc wc[32];

	if (!active)
		return run_passive(t);
	if (t->verb == PT_READ && (ref = malloc(t->size)) == NULL)
		return ia_fail(a, "out of memory");
	rk_app_fill(t->buf, t->size, 1);
	while (scnt < t->iters || rcnt < t->iters || sdone < scnt) {
		int n = 0;
		bool may_send;

		/* Send when the previous message of the peer is in (the client starts). */
		if (t->verb == PT_READ)
			may_send = scnt == sdone && scnt < t->iters;
		else
			may_send = scnt < t->iters && (rcnt > scnt || (starter && scnt == rcnt)) &&
				   scnt - sdone < a->o.tx_depth;
		if (may_send) {
			int rc;

			if (t->verb == PT_WRITE)
				*post_byte = (uint8_t)(scnt + 1);
			rc = pt_post_op(t, scnt);
			if (rc < 0)
				goto fail;
			if (rc == 0)
				scnt++;
		}
		n = rk_poll_cq(t->cq, 32, wc);
		if (n < 0) {
			ia_fail(a, "poll_cq: %s", strerror(-n));
			goto fail;
		}
		for (int i = 0; i < n; i++) {
			if (wc[i].status != RK_WC_SUCCESS) {
				wc_error(t, &wc[i]);
				goto fail;
			}
			if (wc[i].wr_id & PT_RECV) {
				if (wc[i].byte_len != t->size) {
					ia_fail(a, "message %" PRIu64 ": %u bytes, expected %u", rcnt,
						wc[i].byte_len, t->size);
					goto fail;
				}
				rcnt++;
				if (pt_post_recv(t, (uint32_t)(wc[i].wr_id & 0xffffff)) != 0)
					goto fail;
			} else {
				if (pt_check_result(t, wc[i].wr_id, ref, &first) != 0)
					goto fail;
				sdone++;
				if (t->verb == PT_READ)
					rcnt++;
			}
		}
		/* write_lat: the peer's write of the next number has fully landed. */
		if (t->verb == PT_WRITE && rcnt < t->iters &&
		    *poll_byte == (uint8_t)(rcnt + 1)) {
			rcnt++;
			n++;
		}
		if (ia_watchdog(a, n) != 0) {
			ia_fail(a, "no progress for %.0f s at iteration %" PRIu64 " (the peer "
				"vanished?)", a->o.timeout_s, rcnt);
			goto fail;
		}
		rk_io_dpdk_idle(a->io, n);
	}
	t->done = sdone;
	t->seconds = (double)(rk_io_dpdk_now_ns() - t0) * 1e-9;
	free(ref);
	return 0;
fail:
	free(ref);
	return -1;
}

static void
pt_init(struct pt *t, struct ia *a)
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

static bool
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
		pt_init(&x, a);
		x.pd = t->pd;
		x.mtu_enum = t->mtu_enum;
		rc = create(&x) != 0 ? -1 :
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
static int
pt_setup(struct pt *t)
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
		if (preamble(t) != 0 || create(t) != 0 || hand_shake(t, &t->remote) != 0)
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
		if (preamble(t) != 0 || create(t) != 0)
			return -1;
		if (hand_shake(t, &t->remote) != 0 || connect_qp(t) != 0)
			return -1;
	}
	/* Receives go up before the last barrier, as perftest's server does. */
	for (int i = 0; i < barriers; i++) {
		if (i == barriers - 1 && t->verb == PT_SEND && pt_post_recvs(t) != 0)
			return -1;
		if (hand_shake(t, t->cm ? &t->remote : NULL) != 0)
			return -1;
	}
	if (t->cm && t->remote.rkey == 0 && t->remote.vaddr == 0 && t->verb != PT_SEND)
		return ia_fail(a, "the peer sent no R_Key/VA in its key messages");
	roce_window(t);
	printf(" local address: QPN %#06x PSN %#08x RKey %#010x VAddr %#016" PRIx64 "\n",
	       t->local.qpn, t->local.psn, t->local.rkey, t->local.vaddr);
	printf(" remote address: QPN %#06x PSN %#08x RKey %#010x VAddr %#016" PRIx64
	       " GID ::ffff:%u.%u.%u.%u OUT_READS %u\n", t->remote.qpn, t->remote.psn,
	       t->remote.rkey, t->remote.vaddr, t->remote.gid[12], t->remote.gid[13],
	       t->remote.gid[14], t->remote.gid[15], t->remote.out_reads);
	fflush(stdout);
	return 0;
}

/* After the data phase: reports, last barriers, close, server-side checks, result. */
static int
pt_finish(struct pt *t, uint64_t sum0)
{
	struct ia *a = t->a;
	uint64_t peer_iters = 0;

	if (pt_bw_report(t)) {
		if (hand_shake(t, NULL) != 0 || pt_reports(t, &peer_iters) != 0)
			return -1;
	}
	/* perftest's write_lat closes without the last barrier. */
	if (!(t->lat && t->verb == PT_WRITE) && hand_shake(t, NULL) != 0)
		return -1;
	if (t->cm) {
		struct rk_app_cm_conn *cs[2] = { &t->data, &t->comm };

		if (ia_cm_close(a, cs, 2, true, 3.0) != 0)
			return -1;
	} else {
		(void)rk_oob_send(a->fd, "done", 5);
	}
	return pt_result(t, sum0, peer_iters);
}

/*
 * After a -b data phase, as perftest's duplex tests: the bw reports both
 * ways at once (no barrier before them), a barrier, "done". Then checks:
 * the peer did the same count (-n), our READ-only region unchanged, and
 * the result line of each direction and their sum.
 */
static int
pt_finish_bidir(struct pt *t)
{
	struct ia *a = t->a;
	uint64_t peer_iters = 0;
	double mbs = t->seconds > 0 ? (double)t->size * (double)t->done / t->seconds / 1048576.0 : 0;

	if (pt_reports(t, &peer_iters) != 0 || hand_shake(t, NULL) != 0)
		return -1;
	(void)rk_oob_send(a->fd, "done", 5);
	if (a->o.duration_s <= 0 && peer_iters != t->iters)
		return ia_fail(a, "the peer reported %" PRIu64 " iterations of its direction, "
			       "expected %u", peer_iters, t->iters);
	if (peer_iters == 0)
		return ia_fail(a, "the peer reported no iterations of its direction");
	if (t->verb == PT_READ && !rk_app_check(t->buf + t->region_off, t->region_len, 0x5eed))
		return ia_fail(a, "READ-only buffer changed during the test");
	printf(" #bytes %u  #iterations %u  %.2f s  %.2f MB/sec  (peer: %" PRIu64
	       " iterations %.2f MB/sec; both ways %.2f MB/sec)\n", t->size, t->iters, t->seconds,
	       mbs, peer_iters, t->peer_mbs, mbs + t->peer_mbs);
	printf("result: ok (bidirectional: %s)\n", t->verb == PT_READ ? "READ data checked" :
	       t->verb == PT_SEND ? "SENDs and lengths both ways checked" :
	       "completions checked");
	fflush(stdout);
	return 0;
}

static int ia_perftest_pair(struct ia *a);
static int ia_perftest_qps(struct ia *a);

int
ia_perftest(struct ia *a)
{
	struct pt t;
	uint64_t sum0;
	int rc = -1;

	if (a->o.pair_port != 0)
		return ia_perftest_pair(a);
	if (a->o.qps > 1 && !a->o.rdma_cm)
		return ia_perftest_qps(a);
	pt_init(&t, a);
	if (pt_setup(&t) != 0)
		goto out;
	rk_app_watchdog_restart(&a->wd);
	sum0 = rk_pt_word_sum(t.buf + t.region_off, t.region_len);
	if (a->o.run_infinitely) {
		rc = pt_run_forever(&t);
	} else if (a->o.bidir) {
		rc = pt_run_bidir(&t);
		if (rc == 0)
			rc = pt_finish_bidir(&t);
	} else {
		rc = t.lat ? run_lat(&t) : pt_run(&t);
		if (rc == 0)
			rc = pt_finish(&t, sum0);
	}
out:
	pt_release(&t);
	return rc;
}

static void
err_prefix(struct ia *a, const char *prefix)
{
	char tmp[sizeof(a->err)];

	snprintf(tmp, sizeof(tmp), "%s%.200s", prefix, a->err);
	snprintf(a->err, sizeof(a->err), "%s", tmp);
}

/*
 * Two connections served by one process: the client of two servers of
 * the same bw tool (ports o.tcp_port and o.pair_port), both data phases in
 * one loop. The fault options apply to the first connection only; the
 * second must complete with its data checked whatever the first does.
 * The first one's failure is reported and its exchange closed (its tool
 * then fails), the loop keeps serving the second. Exit status 0 when the
 * second completed and the first either completed or failed under a fault
 * we injected.
 */
static int
ia_perftest_pair(struct ia *a)
{
	struct pt t[2];
	char err0[sizeof(a->err)] = "";
	uint64_t done1_at_fail = 0;
	bool dead0 = false;
	int rc = -1;

	pt_init(&t[0], a);
	pt_init(&t[1], a);
	t[1].bad_rkey = false;
	t[1].psn_skew = 0;
	if (pt_setup(&t[0]) != 0) {
		err_prefix(a, "connection 1: ");
		goto out;
	}
	a->fd = -1;
	a->o.tcp_port = a->o.pair_port;
	if (pt_setup(&t[1]) != 0) {
		err_prefix(a, "connection 2: ");
		goto out;
	}
	if (pt_bw_client_begin(&t[0]) != 0 || pt_bw_client_begin(&t[1]) != 0)
		goto out;
	rk_app_watchdog_restart(&a->wd);
	while (t[1].done < t[1].iters || (!dead0 && t[0].done < t[0].iters)) {
		int work = 0;

		for (int i = 0; i < 2; i++) {
			int n;

			if ((i == 0 && dead0) || t[i].done == t[i].iters)
				continue;
			n = pt_bw_client_step(&t[i]);
			if (n < 0 && i == 1) {
				err_prefix(a, "connection 2: ");
				goto out;
			}
			if (n < 0) {
				/* The first connection broke: note it, keep serving the second. */
				snprintf(err0, sizeof(err0), "%s", a->err);
				a->err[0] = '\0';
				dead0 = true;
				done1_at_fail = t[1].done;
				printf("pair: connection 1 (QP %#x) failed: %s; connection 2 (QP %#x) "
				       "had completed %" PRIu64 " of %u\n", t[0].qp->qp_num, err0,
				       t[1].qp->qp_num, t[1].done, t[1].iters);
				fflush(stdout);
				if (t[0].fd >= 0) {
					close(t[0].fd);
					t[0].fd = -1;
				}
				continue;
			}
			work += n;
		}
		if (ia_watchdog(a, work) != 0)
			goto out;
		rk_io_dpdk_idle(a->io, work);
	}
	if (!dead0) {
		a->fd = t[0].fd;
		if (pt_finish(&t[0], 0) != 0) {
			err_prefix(a, "connection 1: ");
			goto out;
		}
	}
	a->fd = t[1].fd;
	if (pt_finish(&t[1], 0) != 0) {
		err_prefix(a, "connection 2: ");
		goto out;
	}
	/* Without a fault injected, the first connection had to complete as well. */
	if (dead0 && !t[0].bad_rkey && t[0].psn_skew == 0) {
		ia_fail(a, "connection 1: %s", err0);
		goto out;
	}
	if (dead0)
		printf("pair: connection 2 completed %u of %u (%" PRIu64 " after connection 1 "
		       "failed), data checked\n", t[1].iters, t[1].iters,
		       (uint64_t)t[1].iters - done1_at_fail);
	else
		printf("pair: both connections completed, data checked\n");
	rc = 0;
out:
	/* main closes a->fd; close the other exchange here. */
	for (int i = 0; i < 2; i++)
		if (t[i].fd >= 0 && t[i].fd != a->fd)
			close(t[i].fd);
	pt_release(&t[0]);
	pt_release(&t[1]);
	return rc;
}

/*
 * perftest -q N over the TCP exchange: N QPs, each with its buffers, keys
 * and --iters operations. The exchange as perftest's: the preamble, each
 * QP's keys, the connections, each QP's keys again, then the barriers of
 * one QP; the data phases of all QPs in one loop.
 */
static int
ia_perftest_qps(struct ia *a)
{
	uint32_t q = a->o.qps;
	struct pt *t = calloc(q, sizeof(*t));
	int barriers, rc = -1;
	uint64_t left;

	if (t == NULL)
		return ia_fail(a, "out of memory");
	for (uint32_t i = 0; i < q; i++)
		pt_init(&t[i], a);
	barriers = pt_bw_report(&t[0]) ? 2 : 3;
	if (ia_oob_open(a) != 0)
		goto out;
	for (uint32_t i = 0; i < q; i++)
		t[i].fd = a->fd;
	if (preamble(&t[0]) != 0)
		goto out;
	for (uint32_t i = 0; i < q; i++) {
		t[i].mtu_enum = t[0].mtu_enum;
		if (create(&t[i]) != 0)
			goto out;
	}
	for (uint32_t i = 0; i < q; i++)
		if (hand_shake(&t[i], &t[i].remote) != 0)
			goto out;
	for (uint32_t i = 0; i < q; i++)
		if (connect_qp(&t[i]) != 0)
			goto out;
	for (int b = 0; b < barriers; b++) {
		if (b == barriers - 1 && t[0].verb == PT_SEND)
			for (uint32_t i = 0; i < q; i++)
				if (pt_post_recvs(&t[i]) != 0)
					goto out;
		/* Every QP's keys again: the first barrier, send_bw's second. */
		for (uint32_t i = 0; i < (b == (t[0].verb == PT_SEND) ? q : 1); i++)
			if (hand_shake(&t[i], NULL) != 0)
				goto out;
	}
	for (uint32_t i = 0; i < q; i++) {
		roce_window(&t[i]);
		printf(" QP %u: local QPN %#06x, remote QPN %#06x RKey %#010x VAddr %#016" PRIx64
		       "\n", i, t[i].local.qpn, t[i].remote.qpn, t[i].remote.rkey,
		       t[i].remote.vaddr);
	}
	fflush(stdout);
	if (!t[0].client && t[0].verb != PT_SEND) {
		if (run_passive(&t[0]) != 0)
			goto out;
	} else {
		for (uint32_t i = 0; i < q && t[i].client; i++)
			if (pt_bw_client_begin(&t[i]) != 0)
				goto out;
		for (uint32_t i = 0; i < q && !t[i].client; i++)
			pt_duration_begin(&t[i]);
		rk_app_watchdog_restart(&a->wd);
		do {
			int work = 0;

			left = 0;
			for (uint32_t i = 0; i < q; i++) {
				int n;

				if (t[i].client ? t[i].done == t[i].iters : t[i].recvd == t[i].iters)
					continue;
				n = t[i].client ? pt_bw_client_step(&t[i]) : pt_send_server_step(&t[i]);
				if (n < 0) {
					char m[sizeof(a->err)];

					snprintf(m, sizeof(m), "%s", a->err);
					ia_fail(a, "QP %u: %.200s", i, m);
					goto out;
				}
				work += n;
				left += t[i].iters - (t[i].client ? t[i].done : t[i].recvd);
			}
			if (ia_watchdog(a, work) != 0)
				goto out;
			rk_io_dpdk_idle(a->io, work);
		} while (left > 0);
	}
	for (uint32_t i = 1; i < q; i++) {
		if (t[i].client)
			printf(" QP %u: #bytes %u  #iterations %u  %.2f s\n", i, t[i].size, t[i].iters,
			       t[i].seconds);
		if (!t[i].client && t[i].verb == PT_READ &&
		    !rk_app_check(t[i].buf + t[i].region_off, t[i].region_len, 0x5eed)) {
			ia_fail(a, "QP %u: READ-only buffer changed during the test", i);
			goto out;
		}
	}
	rc = pt_finish(&t[0], 0);
out:
	for (uint32_t i = 0; i < q; i++)
		pt_release(&t[i]);
	free(t);
	return rc;
}
