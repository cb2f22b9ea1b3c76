/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdmakit's engine as a DUT on a virtual clock (see rk_conform_self.h).
 */
#include "rk_conform_self.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_build.h"
#include "rk_byteorder.h"
#include "rk_conform_self_cm.h"
#include "rk_ib.h"
#include "rk_iw.h"
#include "rk_pkt.h"

#define RW_LEN (64u * 1024)
#define RO_LEN 4096u
#define RECV_LEN 4096u
#define RECV_MAX 16u
/* perftest's default outstanding READs: what a replayed recording may need */
#define MAX_RD_ATOMIC 16u
#define QUEUE 256u
#define STEP_NS 100000ull       /* virtual time per empty read: 100 us */
#define START_PSN 0xfffffeu
#define MIN_RNR 14u
#define Q_KEY 0x11111111u
#define TESTER_QPN 0x51u        /* the tester's QP, which the DUT's is connected to */
#define IW_ISN 1000u            /* the tester's first stream byte */
#define IW_DUT_ISN 5000u        /* the engine's */
#define IW_IRD 2u
#define CM_SERVICE_ID 0x0000000001064853ull /* RDMA-CM TCP port 18515 (Annex A11.2) */
#define GSI_QPN 1u
#define UD_SEND_ONLY 0x64u

struct rk_conform_self {
	struct rk_ib_dev *dev;
	struct rk_ib_pd *pd;
	struct rk_ib_cq *scq, *rcq;
	struct rk_ib_qp *qp;
	struct rk_ib_mr *mr_rw, *mr_ro, *mr_recv;
	uint8_t *rw, *ro, *recv;
	uint32_t recv_posted;
	int recv_ok;
	uint64_t now;
	/* iWARP: the engine as MPA Responder on an in-memory stream */
	struct rk_iw_dev *iwdev;
	struct rk_iw_cq *iwcq;
	struct rk_iw_qp *iwqp;
	struct rk_iw_mr *iw_recv;
	uint8_t other[256];             /* another protection domain's region */
	struct rk_conform_self_cm cm;   /* CM cases: the passive side on QP1 */
	uint32_t gsi_psn;
	uint8_t q[QUEUE][RK_IB_MAX_FRAME];
	uint32_t qlen[QUEUE];
	unsigned int qhead, qn;
};

static const uint8_t self_mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };
static const uint8_t tester_mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };

static void
emit(void *ctx, const uint8_t *frame, uint32_t len)
{
	struct rk_conform_self *s = ctx;
	unsigned int i = (s->qhead + s->qn) % QUEUE;

	if (s->qn == QUEUE || len > RK_IB_MAX_FRAME)
		return;
	memcpy(s->q[i], frame, len);
	s->qlen[i] = len;
	s->qn++;
}

static int qp_rtr_rts(struct rk_conform_self *s, enum rk_qp_type t, uint32_t dest_qpn,
		      uint32_t rq_psn, uint32_t sq_psn, uint8_t mtu);

/* Send @p act's MAD to the tester's QP1; move the QP to RTS once established. */
static void
cm_act(struct rk_conform_self *s, int act, const uint8_t mad[RK_MAD_LEN])
{
	struct rk_roce_addr a = { .ip_version = 4, .df = true, .src_port = 0xc001 };
	struct rk_bth_fields bth = { .opcode = UD_SEND_ONLY, .p_key = 0xffff,
				     .dest_qp = GSI_QPN, .psn = s->gsi_psn++ & 0xffffff };
	struct rk_xeth_fields x = { .deth_q_key = RK_GSI_QKEY, .deth_src_qp = GSI_QPN };
	uint8_t f[RK_IB_MAX_FRAME];
	int n;

	if (act & RK_CM_EV_ESTABLISHED) {
		const struct rk_cm_conn *c = &s->cm.conn;

		(void)qp_rtr_rts(s, RK_QPT_RC, c->peer.qpn, c->local.psn, c->peer.psn,
				 c->local.path_mtu);
	}
	if (!(act & RK_CM_SEND))
		return;
	memcpy(a.src_mac, self_mac, 6);
	memcpy(a.dst_mac, tester_mac, 6);
	a.src_ip[10] = a.src_ip[11] = a.dst_ip[10] = a.dst_ip[11] = 0xff;
	a.src_ip[12] = a.dst_ip[12] = 198;
	a.src_ip[13] = a.dst_ip[13] = 18;
	a.src_ip[15] = 2;
	a.dst_ip[15] = 1;
	n = rk_build_rocev2(f, sizeof(f), &a, &bth, &x, mad, RK_MAD_LEN);
	if (n > 0)
		emit(s, f, (uint32_t)n);
}

static int
io_tx(void *io, const uint8_t *frame, uint32_t len)
{
	struct rk_conform_self *s = io;
	struct rk_pkt p;

	if (s->dev == NULL)
		return -ENOTCONN;
	if (rk_pkt_parse(&p, frame, len, len, RK_LINK_ETHERNET, NULL) != 0)
		return 0;       /* the wire takes it; the engine never sees it */
	/* QP1 (the GSI) is the CM's, not the engine's. */
	if (p.bth_off != 0 && rk_get_be24(frame + p.bth_off + 5) == GSI_QPN) {
		uint8_t out[RK_MAD_LEN];

		if (p.opcode == UD_SEND_ONLY && p.icrc_status != RK_ICRC_BAD)
			cm_act(s, rk_conform_self_cm_rx(&s->cm, frame + p.payload_off,
							p.payload_len, s->now, out), out);
		return 0;
	}
	rk_ib_rx(s->dev, &p, s->now);
	/* Answer now, as a device does as packets arrive: a burst of requests
	 * must not pile up in the engine past its responder resources. */
	rk_ib_poll_tx(s->dev, s->now, emit, s, QUEUE - s->qn);
	return 0;
}

static int
io_rx(void *io, uint8_t *buf, uint32_t cap)
{
	struct rk_conform_self *s = io;
	uint32_t len;

	if (s->dev == NULL)
		return 0;
	if (s->qn == 0) {
		rk_ib_poll_tx(s->dev, s->now, emit, s, QUEUE);
		if (s->qn == 0) {
			/* Quiet: let time pass and the engine's timers run. */
			uint8_t out[RK_MAD_LEN];

			s->now += STEP_NS;
			if (rk_ib_next_timer(s->dev) <= s->now)
				rk_ib_timers(s->dev, s->now);
			cm_act(s, rk_conform_self_cm_timer(&s->cm, s->now, out), out);
			return 0;
		}
	}
	len = s->qlen[s->qhead];
	if (len > cap)
		return -EMSGSIZE;
	memcpy(buf, s->q[s->qhead], len);
	s->qhead = (s->qhead + 1) % QUEUE;
	s->qn--;
	return (int)len;
}

static uint64_t
io_now(void *io)
{
	return ((struct rk_conform_self *)io)->now;
}

static const struct rk_io_ops self_ops = {
	.name = "rdmakit-self",
	.tx = io_tx,
	.rx = io_rx,
	.now_ns = io_now,
};

static void
self_down(struct rk_conform_self *s)
{
	if (s->dev != NULL)
		rk_ib_dev_destroy(s->dev);
	s->dev = NULL;
	if (s->iwdev != NULL)
		rk_iw_dev_destroy(s->iwdev);
	s->iwdev = NULL;
	s->iwqp = NULL;
	s->qn = s->qhead = 0;
}

static int
iw_post_recv(struct rk_conform_self *s, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t slot = s->recv_posted % RECV_MAX;
		struct rk_sge sge = { (uint64_t)(uintptr_t)(s->recv + slot * RECV_LEN), RECV_LEN,
				      rk_iw_mr_stag(s->iw_recv) };
		struct rk_recv_wr wr = { .wr_id = s->recv_posted, .sg_list = &sge, .num_sge = 1 };
		int rc = rk_iw_post_recv(s->iwqp, &wr, NULL);

		if (rc != 0)
			return rc;
		s->recv_posted++;
	}
	return 0;
}

static int
self_post_recv(void *ctx, uint32_t n)
{
	struct rk_conform_self *s = ctx;

	if (s->iwqp != NULL)
		return iw_post_recv(s, n);

	for (uint32_t i = 0; i < n; i++) {
		uint32_t slot = s->recv_posted % RECV_MAX;
		struct rk_sge sge = { (uint64_t)(uintptr_t)(s->recv + slot * RECV_LEN), RECV_LEN,
				      rk_ib_mr_lkey(s->mr_recv) };
		struct rk_recv_wr wr = { .wr_id = s->recv_posted, .sg_list = &sge, .num_sge = 1 };
		const struct rk_recv_wr *bad;
		int rc = rk_ib_post_recv(s->qp, &wr, &bad);

		if (rc != 0)
			return rc;
		s->recv_posted++;
	}
	return 0;
}

static int
qp_init(struct rk_conform_self *s, enum rk_qp_type t)
{
	struct rk_qp_attr a = { 0 };

	a.qp_state = RK_QPS_INIT;
	a.qp_access_flags = RK_ACCESS_REMOTE_WRITE | RK_ACCESS_REMOTE_READ |
			    RK_ACCESS_REMOTE_ATOMIC;
	a.qkey = Q_KEY;
	return rk_ib_qp_modify(s->qp, &a, RK_QP_STATE | RK_QP_PKEY_INDEX | RK_QP_PORT |
			       (t == RK_QPT_UD ? RK_QP_QKEY : RK_QP_ACCESS_FLAGS));
}

static int
qp_rtr_rts(struct rk_conform_self *s, enum rk_qp_type t, uint32_t dest_qpn, uint32_t rq_psn,
	   uint32_t sq_psn, uint8_t mtu)
{
	struct rk_qp_attr a = { 0 };
	int rc;

	a.qp_state = RK_QPS_RTR;
	a.path_mtu = (enum rk_mtu)mtu;
	a.dest_qp_num = dest_qpn;
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = MAX_RD_ATOMIC;
	a.min_rnr_timer = MIN_RNR;
	memcpy(a.ah_attr.dmac, tester_mac, 6);
	a.ah_attr.dip[10] = a.ah_attr.dip[11] = 0xff;
	a.ah_attr.dip[12] = 198;
	a.ah_attr.dip[13] = 18;
	a.ah_attr.dip[15] = 1;
	if (t == RK_QPT_RC)
		rc = rk_ib_qp_modify(s->qp, &a, RK_QP_STATE | RK_QP_AV | RK_QP_PATH_MTU |
				     RK_QP_DEST_QPN | RK_QP_RQ_PSN | RK_QP_MAX_DEST_RD_ATOMIC |
				     RK_QP_MIN_RNR_TIMER);
	else if (t == RK_QPT_UC)
		rc = rk_ib_qp_modify(s->qp, &a, RK_QP_STATE | RK_QP_AV | RK_QP_PATH_MTU |
				     RK_QP_DEST_QPN | RK_QP_RQ_PSN);
	else
		rc = rk_ib_qp_modify(s->qp, &a, RK_QP_STATE);
	if (rc != 0)
		return rc;
	memset(&a, 0, sizeof(a));
	a.qp_state = RK_QPS_RTS;
	a.sq_psn = sq_psn;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = MAX_RD_ATOMIC;
	if (t == RK_QPT_RC)
		return rk_ib_qp_modify(s->qp, &a, RK_QP_STATE | RK_QP_SQ_PSN | RK_QP_TIMEOUT |
				       RK_QP_RETRY_CNT | RK_QP_RNR_RETRY |
				       RK_QP_MAX_QP_RD_ATOMIC);
	return rk_ib_qp_modify(s->qp, &a, RK_QP_STATE | RK_QP_SQ_PSN);
}

/* The path MTU code of @p bytes when it is one (256..4096), else 1024's. */
static enum rk_mtu
mtu_code(uint32_t bytes)
{
	for (int m = RK_MTU_256; m <= RK_MTU_4096; m++)
		if (bytes == 256u << (m - 1))
			return (enum rk_mtu)m;
	return RK_MTU_1024;
}

static int
connect_qp(struct rk_conform_self *s, enum rk_qp_type t, enum rk_mtu mtu)
{
	int rc = qp_init(s, t);

	return rc != 0 ? rc : qp_rtr_rts(s, t, TESTER_QPN, START_PSN, 0x100, mtu);
}

/* CM cases: the QP waits in INIT for the CM's REQ and RTU (12.9). */
static void
cm_listen(struct rk_conform_self *s)
{
	struct rk_cm_params *p = &s->cm.local;

	*p = (struct rk_cm_params){ .qpn = rk_ib_qp_num(s->qp), .psn = START_PSN,
				    .responder_resources = MAX_RD_ATOMIC,
				    .initiator_depth = MAX_RD_ATOMIC, .path_mtu = RK_MTU_1024,
				    .retry_count = 7, .rnr_retry_count = 7, .local_ack_timeout = 14,
				    .gid = { [10] = 0xff, [11] = 0xff, [12] = 198, [13] = 18,
					     [15] = 2 },
				    .ca_guid = 0x000000fffe000002ull };  /* EUI-64 of self_mac */
	memset(&s->cm.conn, 0, sizeof(s->cm.conn));
	s->cm.service_id = CM_SERVICE_ID;
	/* Comm IDs go on across cases, as a CM's do; 0 is none (the apps draw them at random). */
	if (s->cm.next_comm_id == 0)
		s->cm.next_comm_id = 0x5e1f0001u;
}

/* The stream: bytes in go to rk_iw_rx(), bytes out come from rk_iw_tx(). */
static int
iw_write(void *ctx, const uint8_t *b, size_t n)
{
	struct rk_conform_self *s = ctx;

	if (s->iwqp == NULL)
		return -ENOTCONN;
	/* After the engine closed, the bytes fall on the floor (-EPIPE). */
	(void)rk_iw_rx(s->iwqp, b, n, s->now);
	return 0;
}

static int
iw_read(void *ctx, uint8_t *b, size_t cap)
{
	struct rk_conform_self *s = ctx;
	size_t n;

	if (s->iwqp == NULL)
		return -ENOTCONN;
	n = rk_iw_tx(s->iwqp, b, cap, s->now);
	if (n > 0)
		return (int)n;
	if (rk_iw_want_close(s->iwqp))
		return -ECONNRESET;
	/* Quiet: let time pass and the engine's timers run. */
	s->now += STEP_NS;
	rk_iw_timers(s->iwqp, s->now);
	return 0;
}

static const struct rk_conform_stream_ops self_stream = {
	.write = iw_write,
	.read = iw_read,
};

/* A fresh engine as MPA Responder (Rev 2, CRC, markers asked, peer-to-peer
 * RTR accepted, IRD 2), before the tester's MPA Request. */
static int
iw_setup(struct rk_conform_self *s, const struct rk_conform_need *need,
	 struct rk_conform_dut *dut, char *why, size_t why_len)
{
	struct rk_iw_dev_attr da = { .max_mr = 64, .key_seed = 0x5eed };
	struct rk_iw_qp_init_attr qa;
	struct rk_iw_pd *pd, *pd2;
	struct rk_iw_mr *rw, *ro, *other;

	self_down(s);
	memset(s->rw, 0, RW_LEN);
	if (need->recvs > RECV_MAX) {
		snprintf(why, why_len, "the engine in process posts at most %u receives, %u asked",
			 RECV_MAX, need->recvs);
		return -ENOTSUP;
	}
	memset(s->ro, 0x5a, RO_LEN);
	s->recv_posted = 0;
	s->recv_ok = 0;
	s->iwdev = rk_iw_dev_create(&da);
	pd = s->iwdev != NULL ? rk_iw_pd_alloc(s->iwdev) : NULL;
	pd2 = s->iwdev != NULL ? rk_iw_pd_alloc(s->iwdev) : NULL;
	s->iwcq = s->iwdev != NULL ? rk_iw_cq_create(s->iwdev, 256) : NULL;
	if (pd == NULL || pd2 == NULL || s->iwcq == NULL) {
		snprintf(why, why_len, "creating the iWARP device failed");
		return -ENOMEM;
	}
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = qa.recv_cq = s->iwcq;
	qa.cap.max_send_wr = 64;
	qa.cap.max_recv_wr = RECV_MAX;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 4;
	qa.conn.role = RK_IW_RESPONDER;
	qa.conn.rev = 2;
	qa.conn.enhanced = true;
	qa.conn.p2p = true;
	qa.conn.markers_rx = true;
	qa.conn.crc = true;
	qa.conn.ird = IW_IRD;
	qa.conn.ord = IW_IRD;
	qa.conn.rx_isn = IW_ISN;
	qa.conn.tx_isn = IW_DUT_ISN;
	s->iwqp = rk_iw_qp_create(pd, &qa, s->now);
	rw = rk_iw_mr_reg(pd, s->rw, RW_LEN, RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE |
			  RK_ACCESS_REMOTE_READ);
	ro = rk_iw_mr_reg(pd, s->ro, RO_LEN, RK_ACCESS_REMOTE_READ);
	s->iw_recv = rk_iw_mr_reg(pd, s->recv, RECV_MAX * RECV_LEN, RK_ACCESS_LOCAL_WRITE);
	other = rk_iw_mr_reg(pd2, s->other, sizeof(s->other),
			     RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE);
	if (s->iwqp == NULL || rw == NULL || ro == NULL || s->iw_recv == NULL || other == NULL ||
	    iw_post_recv(s, need->recvs) != 0) {
		snprintf(why, why_len, "creating the iWARP QP or its regions failed");
		return -EIO;
	}
	*dut = (struct rk_conform_dut){
		.va = (uint64_t)(uintptr_t)s->rw, .r_key = rk_iw_mr_stag(rw), .len = RW_LEN,
		.ro_va = (uint64_t)(uintptr_t)s->ro, .ro_r_key = rk_iw_mr_stag(ro),
		.ro_len = RO_LEN, .recv_len = RECV_LEN, .min_rnr_timer = 0xff,
		.isn = IW_ISN, .dut_isn = IW_DUT_ISN, .ird = IW_IRD, .p2p = true,
		.access = RK_CONFORM_ACC_WRITE | RK_CONFORM_ACC_READ | RK_CONFORM_ACC_RO |
			  (need->recvs == 0 ? RK_CONFORM_ACC_NO_RECV : 0),
		.other_stag = rk_iw_mr_stag(other), .other_va = (uint64_t)(uintptr_t)s->other,
	};
	return 0;
}

static int
self_setup(void *ctx, const struct rk_conform_need *need, struct rk_conform_dut *dut,
	   char *why, size_t why_len)
{
	struct rk_conform_self *s = ctx;
	struct rk_ib_dev_attr da = { .mac = { 0x02, 0, 0, 0, 0, 0x02 }, .ip_version = 4,
				     .key_seed = 0x5eed };
	struct rk_ib_qp_init_attr qa = {
		.sq_sig_all = true,
		.cap = { .max_send_wr = 64, .max_recv_wr = RECV_MAX, .max_send_sge = 4,
			 .max_recv_sge = 4, .max_inline_data = 256 },
	};
	static const enum rk_qp_type types[] = { RK_QPT_RC, RK_QPT_UC, RK_QPT_UD,
						 RK_QPT_RC, RK_QPT_RC };
	bool cm = need->transport == RK_CONFORM_CM;
	enum rk_mtu mtu = mtu_code(need->pmtu);

	if (need->transport == RK_CONFORM_IWARP)
		return iw_setup(s, need, dut, why, why_len);
	self_down(s);
	memset(s->rw, 0, RW_LEN);
	if (need->recvs > RECV_MAX) {
		snprintf(why, why_len, "the engine in process posts at most %u receives, %u asked",
			 RECV_MAX, need->recvs);
		return -ENOTSUP;
	}
	memset(s->ro, 0x5a, RO_LEN);
	s->recv_posted = 0;
	s->recv_ok = 0;
	s->cm.service_id = 0;
	da.ip[10] = da.ip[11] = 0xff;
	da.ip[12] = 198;
	da.ip[13] = 18;
	da.ip[15] = 2;
	s->dev = rk_ib_dev_create(&da);
	if (s->dev == NULL)
		return -ENOMEM;
	s->pd = rk_ib_pd_alloc(s->dev);
	s->scq = rk_ib_cq_create(s->dev, 256);
	s->rcq = rk_ib_cq_create(s->dev, 256);
	qa.qp_type = types[need->transport];
	qa.send_cq = s->scq;
	qa.recv_cq = s->rcq;
	s->qp = s->pd != NULL && s->scq != NULL && s->rcq != NULL ?
		rk_ib_qp_create(s->pd, &qa) : NULL;
	if (s->qp == NULL) {
		snprintf(why, why_len, "rk_ib_qp_create failed");
		return -ENOMEM;
	}
	s->mr_rw = rk_ib_mr_reg(s->pd, s->rw, RW_LEN,
				RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE |
				RK_ACCESS_REMOTE_READ | RK_ACCESS_REMOTE_ATOMIC);
	s->mr_ro = rk_ib_mr_reg(s->pd, s->ro, RO_LEN, RK_ACCESS_REMOTE_READ);
	s->mr_recv = rk_ib_mr_reg(s->pd, s->recv, RECV_MAX * RECV_LEN, RK_ACCESS_LOCAL_WRITE);
	if (s->mr_rw == NULL || s->mr_ro == NULL || s->mr_recv == NULL ||
	    (cm ? qp_init(s, qa.qp_type) : connect_qp(s, qa.qp_type, mtu)) != 0 ||
	    self_post_recv(s, need->recvs) != 0 ||
	    (need->cc && qa.qp_type != RK_QPT_UD &&
	     rk_ib_qp_set_cc(s->qp, "dcqcn", NULL, 100000) != 0)) {
		snprintf(why, why_len, "registering or connecting the QP failed");
		return -EIO;
	}
	*dut = (struct rk_conform_dut){
		.qpn = rk_ib_qp_num(s->qp), .epsn = START_PSN,
		/* A UD QP has no path MTU: its limit is the largest, 4096. */
		.pmtu = qa.qp_type == RK_QPT_UD ? 4096 : cm ? 1024 : 256u << (mtu - 1),
		.va = (uint64_t)(uintptr_t)s->rw, .r_key = rk_ib_mr_rkey(s->mr_rw), .len = RW_LEN,
		.ro_va = (uint64_t)(uintptr_t)s->ro, .ro_r_key = rk_ib_mr_rkey(s->mr_ro),
		.ro_len = RO_LEN, .recv_len = RECV_LEN, .q_key = Q_KEY,
		.min_rnr_timer = MIN_RNR, .max_rd_atomic = MAX_RD_ATOMIC, .access = RK_CONFORM_ACC_ALL |
			  (need->recvs == 0 ? RK_CONFORM_ACC_NO_RECV : 0),
		.peer_qpn = qa.qp_type == RK_QPT_UD ? 0 : TESTER_QPN,
	};
	if (cm)
		cm_listen(s);
	return 0;
}

static int
self_read_mem(void *ctx, uint32_t off, void *out, uint32_t n)
{
	struct rk_conform_self *s = ctx;

	if ((uint64_t)off + n > RW_LEN)
		return -ERANGE;
	memcpy(out, s->rw + off, n);
	return 0;
}

static int
self_recv_done(void *ctx)
{
	struct rk_conform_self *s = ctx;
	struct rk_wc wc;

	while (s->dev != NULL && rk_ib_cq_poll(s->rcq, 1, &wc) == 1)
		if (wc.status == RK_WC_SUCCESS)
			s->recv_ok++;
	while (s->iwdev != NULL && rk_iw_cq_poll(s->iwcq, 1, &wc) == 1)
		if (wc.status == RK_WC_SUCCESS && wc.opcode == RK_WC_RECV)
			s->recv_ok++;
	return s->recv_ok;
}

static void
self_teardown(void *ctx)
{
	self_down(ctx);
}

struct rk_conform_self *
rk_conform_self_create(struct rk_conform_env *env)
{
	struct rk_conform_self *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	s->rw = calloc(1, RW_LEN);
	s->ro = calloc(1, RO_LEN);
	s->recv = calloc(RECV_MAX, RECV_LEN);
	if (s->rw == NULL || s->ro == NULL || s->recv == NULL) {
		rk_conform_self_destroy(s);
		return NULL;
	}
	s->now = 1000;
	memset(env, 0, sizeof(*env));
	env->ops = &self_ops;
	env->io = s;
	memcpy(env->src_mac, tester_mac, 6);
	memcpy(env->dst_mac, self_mac, 6);
	env->ip_version = 4;
	env->src_ip[12] = 198;
	env->src_ip[13] = 18;
	env->src_ip[15] = 1;
	env->dst_ip[12] = 198;
	env->dst_ip[13] = 18;
	env->dst_ip[15] = 2;
	env->timeout_ns = 50000000ull;
	env->setup = self_setup;
	env->post_recv = self_post_recv;
	env->read_mem = self_read_mem;
	env->recv_done = self_recv_done;
	env->teardown = self_teardown;
	env->stream = &self_stream;
	env->cm_service_id = CM_SERVICE_ID;
	env->ctx = s;
	return s;
}

void
rk_conform_self_destroy(struct rk_conform_self *s)
{
	if (s == NULL)
		return;
	self_down(s);
	free(s->rw);
	free(s->ro);
	free(s->recv);
	free(s);
}
