/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The peer of rdma-core's ibv_rc_pingpong and ibv_ud_pingpong.
 *
 * Exchange (TCP, default port 18515): each side sends one NUL-terminated
 * text "LID:QPN:PSN:GID" as "%04x:%06x:%06x:" plus the 16 GID bytes in
 * 32 hex digits, in wire order: 52 bytes. The client writes first, reads
 * the server's, then writes "done" (5 bytes with the NUL). The server
 * moves its QP to RTR/RTS before it answers. The client sends first; then
 * each side sends its next message once its previous send completed and
 * the peer's message arrived, for --iters messages each way.
 *
 * The tools send from the buffer they receive into (UD: after the 40-byte
 * GRH), so a tool echoes what we sent: that is what we verify. A tool in
 * the client role starts with its buffer filled with 0x7b.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interop.h"

#define PP_MSG_LEN 52           /* sizeof "0000:000000:000000:" + 32 hex + NUL */
#define PP_QKEY 0x11111111u     /* the tools' fixed Q_Key */
#define PP_GRH 40
#define PP_SLOTS 8
#define PP_RECV ((uint64_t)1 << 62)
#define PP_SEND ((uint64_t)1 << 61)
#define PP_TOOL_FILL 0x7b

struct pp_dest {
	uint32_t lid, qpn, psn;
	uint8_t gid[16];
};

struct pp {
	struct ia *a;
	bool ud;
	uint32_t size, slot_len;
	struct rk_pd *pd;
	struct rk_cq *cq;
	struct rk_qp *qp;
	struct rk_ah *ah;
	uint8_t *sbuf, *rbuf;
	struct rk_mr *smr, *rmr;
	struct pp_dest local, remote;
	uint8_t peer_mac[6];
};

static void
encode_dest(const struct pp_dest *d, char msg[PP_MSG_LEN])
{
	int n = snprintf(msg, PP_MSG_LEN, "%04x:%06x:%06x:", d->lid, d->qpn, d->psn);

	for (int i = 0; i < 16; i++)
		n += snprintf(msg + n, (size_t)(PP_MSG_LEN - n), "%02x", d->gid[i]);
}

static int
decode_dest(struct pp_dest *d, const char msg[PP_MSG_LEN])
{
	char gid[33];

	if (memchr(msg, '\0', PP_MSG_LEN) == NULL ||
	    sscanf(msg, "%x:%x:%x:%32s", &d->lid, &d->qpn, &d->psn, gid) != 4 ||
	    strlen(gid) != 32)
		return -1;
	for (int i = 0; i < 16; i++) {
		unsigned int b;

		if (sscanf(gid + 2 * i, "%2x", &b) != 1)
			return -1;
		d->gid[i] = (uint8_t)b;
	}
	return d->qpn <= 0xffffff && d->psn <= 0xffffff ? 0 : -1;
}

static int
post_recv(struct pp *pp, uint32_t slot)
{
	struct rk_sge sge = { (uint64_t)(uintptr_t)(pp->rbuf + (size_t)slot * pp->slot_len),
			      pp->slot_len, pp->rmr->lkey };
	struct rk_recv_wr wr = { .wr_id = PP_RECV | slot, .sg_list = &sge, .num_sge = 1 };
	struct rk_recv_wr *bad;
	int rc = rk_post_recv(pp->qp, &wr, &bad);

	return rc == 0 ? 0 : ia_fail(pp->a, "post_recv: %s", strerror(-rc));
}

static int
post_send(struct pp *pp, uint64_t k)
{
	struct rk_sge sge = { (uint64_t)(uintptr_t)pp->sbuf, pp->size, pp->smr->lkey };
	struct rk_send_wr wr = { .wr_id = PP_SEND | k, .sg_list = &sge, .num_sge = 1,
				 .opcode = RK_WR_SEND, .send_flags = RK_SEND_SIGNALED };
	struct rk_send_wr *bad;
	int rc;

	rk_app_fill(pp->sbuf, pp->size, k);
	if (pp->ud) {
		wr.wr.ud.ah = pp->ah;
		wr.wr.ud.remote_qpn = pp->remote.qpn;
		wr.wr.ud.remote_qkey = PP_QKEY;
	}
	rc = rk_post_send(pp->qp, &wr, &bad);
	return rc == 0 ? 0 : ia_fail(pp->a, "post_send: %s", strerror(-rc));
}

static int
create(struct pp *pp)
{
	struct ia *a = pp->a;
	struct rk_qp_init_attr ia = {
		.qp_type = pp->ud ? RK_QPT_UD : RK_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = PP_SLOTS, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct rk_qp_attr at = { .qp_state = RK_QPS_INIT, .pkey_index = 0, .port_num = 1 };
	int mask = RK_QP_STATE | RK_QP_PKEY_INDEX | RK_QP_PORT;
	int rc;

	pp->slot_len = pp->size + (pp->ud ? PP_GRH : 0);
	pp->pd = rk_alloc_pd(a->ctx);
	pp->cq = rk_create_cq(a->ctx, 2 * PP_SLOTS + 8, NULL);
	pp->sbuf = calloc(1, pp->size);
	pp->rbuf = calloc(PP_SLOTS, pp->slot_len);
	if (pp->pd == NULL || pp->cq == NULL || pp->sbuf == NULL || pp->rbuf == NULL)
		return ia_fail(a, "cannot allocate resources: %s", strerror(errno));
	pp->smr = rk_reg_mr(pp->pd, pp->sbuf, pp->size, RK_ACCESS_LOCAL_WRITE);
	pp->rmr = rk_reg_mr(pp->pd, pp->rbuf, (size_t)PP_SLOTS * pp->slot_len,
			    RK_ACCESS_LOCAL_WRITE);
	ia.send_cq = ia.recv_cq = pp->cq;
	pp->qp = rk_create_qp(pp->pd, &ia);
	if (pp->smr == NULL || pp->rmr == NULL || pp->qp == NULL)
		return ia_fail(a, "cannot create the MRs/QP: %s", strerror(errno));
	if (pp->ud) {
		at.qkey = PP_QKEY;
		mask |= RK_QP_QKEY;
	} else {
		mask |= RK_QP_ACCESS_FLAGS;
	}
	rc = rk_modify_qp(pp->qp, &at, mask);
	if (rc != 0)
		return ia_fail(a, "modify QP to INIT: %s", strerror(-rc));
	for (uint32_t s = 0; s < PP_SLOTS; s++)
		if (post_recv(pp, s) != 0)
			return -1;
	pp->local.qpn = pp->qp->qp_num;
	pp->local.psn = (uint32_t)lrand48() & 0xffffff;
	ia_gid_v4(pp->local.gid, a->o.ip);
	return 0;
}

/* RTR and RTS with the tool's own values (pp_connect_ctx). */
static int
connect_qp(struct pp *pp)
{
	struct ia *a = pp->a;
	struct rk_qp_attr at = { 0 };
	uint8_t ip[4];
	int rc;

	if (!ia_gid_to_v4(pp->remote.gid, ip))
		return ia_fail(a, "the peer's GID is not an IPv4-mapped RoCEv2 GID (run the "
			       "tool with -g and the index of its IPv4 GID, e.g. -g 1)");
	if (ia_resolve(a, ip, pp->peer_mac) != 0)
		return -1;
	if (!pp->ud)
		return ia_rc_connect(a, pp->qp, &(struct ia_rc_path){
			.mtu = ia_mtu_enum(a->o.mtu), .dest_qpn = pp->remote.qpn,
			.rq_psn = pp->remote.psn,
			.sq_psn = (pp->local.psn + a->o.psn_skew) & 0xffffff,
			.max_dest_rd_atomic = 1, .max_rd_atomic = 1, .hop_limit = 1,
			.dmac = pp->peer_mac, .dgid = pp->remote.gid }, false);
	/* UD: RTR and RTS carry no peer; the AH does. */
	at.qp_state = RK_QPS_RTR;
	rc = rk_modify_qp(pp->qp, &at, RK_QP_STATE);
	{
		struct rk_ah_attr ah = { .hop_limit = 1, .dscp = pp->a->o.dscp };

		memcpy(ah.dmac, pp->peer_mac, 6);
		memcpy(ah.dip, pp->remote.gid, 16);
		pp->ah = rk_create_ah(pp->pd, &ah);
		if (pp->ah == NULL)
			return ia_fail(a, "create_ah: %s", strerror(errno));
	}
	if (rc != 0)
		return ia_fail(a, "modify QP to RTR: %s", strerror(-rc));
	memset(&at, 0, sizeof(at));
	at.qp_state = RK_QPS_RTS;
	at.sq_psn = (pp->local.psn + a->o.psn_skew) & 0xffffff;
	rc = rk_modify_qp(pp->qp, &at, RK_QP_STATE | RK_QP_SQ_PSN);
	if (rc != 0)
		return ia_fail(a, "modify QP to RTS: %s", strerror(-rc));
	return 0;
}

static int
exchange(struct pp *pp)
{
	struct ia *a = pp->a;
	char msg[PP_MSG_LEN], done[5];

	encode_dest(&pp->local, msg);
	if (ia_oob_open(a) != 0)
		return -1;
	if (a->o.server_host != NULL) {
		if (ia_oob_write(a, msg, sizeof(msg)) != 0 || ia_oob_read(a, msg, sizeof(msg)) != 0)
			return -1;
		if (decode_dest(&pp->remote, msg) != 0)
			return ia_fail(a, "the server's address message is malformed");
		if (ia_oob_write(a, "done", 5) != 0)
			return -1;
		return connect_qp(pp);
	}
	if (ia_oob_read(a, msg, sizeof(msg)) != 0)
		return -1;
	if (decode_dest(&pp->remote, msg) != 0)
		return ia_fail(a, "the client's address message is malformed");
	if (connect_qp(pp) != 0)
		return -1;
	encode_dest(&pp->local, msg);
	if (ia_oob_write(a, msg, sizeof(msg)) != 0 || ia_oob_read(a, done, sizeof(done)) != 0)
		return -1;
	if (memcmp(done, "done", 5) != 0)
		return ia_fail(a, "the client did not end the exchange with \"done\"");
	return 0;
}

/* What the tool's message @r must hold: the echo of ours (see the top). */
static bool
verify(struct pp *pp, const uint8_t *data, uint64_t r)
{
	bool tool_is_client = pp->a->o.server_host == NULL;

	if (tool_is_client) {
		if (r == 0) {
			for (uint32_t i = 0; i < pp->size; i++)
				if (data[i] != PP_TOOL_FILL)
					return false;
			return true;
		}
		return rk_app_check(data, pp->size, r - 1);
	}
	return rk_app_check(data, pp->size, r);
}

static int
run(struct pp *pp)
{
	struct ia *a = pp->a;
	uint64_t iters = a->o.iters, scnt = 0, rcnt = 0, t0, t1;
	unsigned int pending = 1;       /* 1: a receive, 2: a send */
	struct rk_wc wc[8];

	if (a->o.server_host != NULL) {
		if (post_send(pp, 0) != 0)
			return -1;
		pending |= 2;
	}
	t0 = rk_io_dpdk_now_ns();
	while (rcnt < iters || scnt < iters) {
		int n = rk_poll_cq(pp->cq, 8, wc);

		if (n < 0)
			return ia_fail(a, "poll_cq: %s", strerror(-n));
		if (ia_watchdog(a, n) != 0)
			return ia_fail(a, "no progress for %.0f s after %" PRIu64 " sent and %"
				       PRIu64 " received: the peer stopped or is unreachable",
				       a->o.timeout_s, scnt, rcnt);
		rk_io_dpdk_idle(a->io, n);
		for (int i = 0; i < n; i++) {
			if (wc[i].status != RK_WC_SUCCESS)
				return ia_fail(a, "QP %#x: %s completion error: %s%s", wc[i].qp_num,
					       (wc[i].wr_id & PP_RECV) ? "receive" : "send",
					       rk_wc_status_str(wc[i].status),
					       wc[i].status == RK_WC_RETRY_EXC_ERR ?
					       " (the peer stopped answering)" : "");
			if (wc[i].wr_id & PP_SEND) {
				scnt++;
				pending &= ~2u;
			} else {
				uint32_t slot = (uint32_t)(wc[i].wr_id & 0xffff);
				const uint8_t *d = pp->rbuf + (size_t)slot * pp->slot_len;

				if (wc[i].byte_len != pp->slot_len)
					return ia_fail(a, "message %" PRIu64 ": %u bytes, expected %u",
						       rcnt, wc[i].byte_len, pp->slot_len);
				if (pp->ud && wc[i].src_qp != pp->remote.qpn)
					return ia_fail(a, "message %" PRIu64 " from QP %#x, expected %#x",
						       rcnt, wc[i].src_qp, pp->remote.qpn);
				if (!verify(pp, d + (pp->ud ? PP_GRH : 0), rcnt))
					return ia_fail(a, "message %" PRIu64 ": data differs from "
						       "what the tool must echo", rcnt);
				rcnt++;
				pending &= ~1u;
				if (post_recv(pp, slot) != 0)
					return -1;
			}
			if (scnt < iters && pending == 0) {
				if (post_send(pp, scnt) != 0)
					return -1;
				pending = 3;
			}
		}
	}
	t1 = rk_io_dpdk_now_ns();
	{
		double us = (double)(t1 - t0) / 1e3;
		double bytes = (double)pp->size * (double)iters * 2;

		printf("%.0f bytes in %.2f seconds = %.2f Mbit/sec\n", bytes, us / 1e6,
		       bytes * 8 / us);
		printf("%" PRIu64 " iters in %.2f seconds = %.2f usec/iter\n", iters, us / 1e6,
		       us / (double)iters);
		printf("data verified: %" PRIu64 " messages\n", rcnt);
	}
	return 0;
}

static void
destroy(struct pp *pp)
{
	rk_app_release(&(struct rk_app_verbs_objs){ .qp = { pp->qp }, .ah = pp->ah,
						    .mr = { pp->smr, pp->rmr }, .cq = { pp->cq },
						    .pd = pp->pd });
	free(pp->sbuf);
	free(pp->rbuf);
}

int
ia_pingpong(struct ia *a)
{
	struct pp pp = { .a = a, .ud = a->o.mode == IA_UD_PINGPONG, .size = a->o.size };
	char gid[64];
	int rc;

	rc = create(&pp);
	if (rc == 0)
		rc = exchange(&pp);
	if (rc == 0) {
		snprintf(gid, sizeof(gid), "::ffff:%u.%u.%u.%u", pp.remote.gid[12],
			 pp.remote.gid[13], pp.remote.gid[14], pp.remote.gid[15]);
		printf("  local address:  LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID ::ffff:%u.%u.%u.%u\n",
		       0, pp.local.qpn, pp.local.psn, a->o.ip[0], a->o.ip[1], a->o.ip[2],
		       a->o.ip[3]);
		printf("  remote address: LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s\n",
		       pp.remote.lid, pp.remote.qpn, pp.remote.psn, gid);
		fflush(stdout);
		rc = run(&pp);
	}
	destroy(&pp);
	return rc;
}
