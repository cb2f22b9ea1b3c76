/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Communication Management cases (IBTA Vol1 ch. 12): the tester is the
 * active side, its CM MADs go in UD SENDs to the DUT's QP1 (DETH Q_Key
 * 0x80010000, the GSI's) and the DUT's come back the same way.
 * The DUT's CM listens on env->cm_service_id and connects the QP that
 * setup() gave; a connection ends up usable through that QP.
 */
#include "rk_conform.h"

#include <string.h>

#include "rk_byteorder.h"
#include "rk_cm.h"
#include "rk_opcode.h"
#include "rk_pkt.h"
#include "rk_rdma_types.h"
#include "rk_xeth.h"

#define FRAME_MAX 4608u
#define GSI_QPN 1u
#define TESTER_QPN 0x51u        /* the REQ's Local QPN: the DUT's ACKs go there */
#define TESTER_PSN 0x100u       /* the REQ's Starting PSN */
#define TESTER_COMM_ID 0x3c0ffee1u
#define TESTER_TID 0x00c0ffee00000001ull
#define WRITE_LEN 16u
#define ANSWERS 8

/* Send @p m to the DUT's QP1, its MAD header's class version as it is. */
static bool
cm_send(struct rk_conform_run *r, const struct rk_cm_msg *m)
{
	struct rk_xeth_fields x = { .deth_q_key = RK_GSI_QKEY, .deth_src_qp = GSI_QPN };
	uint8_t mad[RK_MAD_LEN];
	struct rk_probe_intent in = { .opcode = RK_OP_TR_UD | RK_OP_SEND_ONLY, .x = &x,
				      .payload = mad, .len = RK_MAD_LEN, .pad_cnt = -1 };
	uint32_t qpn = r->probe.target.dest_qp;
	int rc;

	if (rk_cm_encode(m, mad, sizeof(mad)) < 0)
		return rk_conform_fail(r, "tester could not encode the %s",
				       rk_cm_attr_name(m->hdr.attr_id));
	/* The encoder writes version 2; a case may ask for another. */
	mad[2] = m->hdr.class_version;
	if (m->hdr.attr_id == RK_CM_RTU && r->cm_open)
		r->cm_established = true;
	if (m->hdr.attr_id == RK_CM_DREQ || m->hdr.attr_id == RK_CM_REJ)
		r->cm_open = false;
	r->probe.target.dest_qp = GSI_QPN;
	rc = rk_conform_send(r, &in, RK_CONFORM_M_NONE);
	r->probe.target.dest_qp = qpn;
	return rc == 0;
}

/* The CM MAD in a frame from the DUT: a UD SEND to QP1. */
static bool
frame_mad(const uint8_t *f, uint32_t len, struct rk_cm_msg *m)
{
	struct rk_pkt p;

	if (rk_pkt_parse(&p, f, len, len, RK_LINK_ETHERNET, NULL) != 0 || p.bth_off == 0 ||
	    p.opcode != (RK_OP_TR_UD | RK_OP_SEND_ONLY) ||
	    rk_get_be24(f + p.bth_off + 5) != GSI_QPN || p.payload_len < RK_MAD_LEN)
		return false;
	return rk_cm_decode(f + p.payload_off, p.payload_len, m) == 0;
}

static void hdr(struct rk_cm_msg *m, uint16_t attr, uint64_t tid);

/* The Remote Comm ID a MAD from the DUT names: the tester's Local Comm ID. */
static uint32_t
to_comm_id(const struct rk_cm_msg *m)
{
	switch (m->hdr.attr_id) {
	case RK_CM_REP: return m->rep.remote_comm_id;
	case RK_CM_REJ: return m->rej.remote_comm_id;
	case RK_CM_MRA: return m->mra.remote_comm_id;
	case RK_CM_DREQ: return m->dreq.remote_comm_id;
	default: return m->rtu.remote_comm_id;     /* RTU, DREP */
	}
}

/*
 * A MAD of an earlier case's connection (a live DUT resends its REP or
 * ends a connection the tester left): closed for it, so it stops, and
 * not this case's answer. A REP gets REJ (consumer reject), a DREQ its
 * DREP (IBTA Vol1 12.6.7, 12.6.11).
 */
static void
close_stray(struct rk_conform_run *r, const struct rk_cm_msg *m)
{
	struct rk_cm_msg a;

	memset(&a, 0, sizeof(a));
	if (m->hdr.attr_id == RK_CM_REP) {
		hdr(&a, RK_CM_REJ, m->hdr.tid);
		a.rej.local_comm_id = m->rep.remote_comm_id;
		a.rej.remote_comm_id = m->rep.local_comm_id;
		a.rej.message_rejected = 1;
		a.rej.reason = RK_CM_REJ_CONSUMER_REJECT;
	} else if (m->hdr.attr_id == RK_CM_DREQ) {
		hdr(&a, RK_CM_DREP, m->hdr.tid);
		a.rtu.local_comm_id = m->dreq.remote_comm_id;
		a.rtu.remote_comm_id = m->dreq.local_comm_id;
	} else {
		return;
	}
	(void)cm_send(r, &a);
}

/*
 * Wait for the DUT's next CM MAD of this case (any attribute) until the
 * timeout; those of earlier cases' connections are closed and skipped.
 * @return 1 with @p m filled, 0 on silence, -1 when the backend failed.
 */
static int
cm_wait(struct rk_conform_run *r, struct rk_cm_msg *m)
{
	const struct rk_conform_env *env = r->env;
	uint64_t timeout = env->timeout_ns ? env->timeout_ns : 50000000ull;
	uint64_t deadline;
	uint8_t buf[FRAME_MAX];

	if (++r->waits > 64u) {
		rk_conform_fail(r, "case waited more than 64 times");
		return -1;
	}
	deadline = env->ops->now_ns(env->io) + timeout;
	for (;;) {
		int n = env->ops->rx(env->io, buf, sizeof(buf));

		if (n < 0) {
			rk_conform_fail(r, "receive failed: %d", n);
			return -1;
		}
		if (n > 0) {
			if (env->on_frame != NULL)
				env->on_frame(env->frame_ctx, false, buf, (uint32_t)n,
					      env->ops->now_ns(env->io));
			r->res->frames_rx++;
			if (frame_mad(buf, (uint32_t)n, m)) {
				if (r->cm_comm_id == 0 || to_comm_id(m) == r->cm_comm_id) {
					if (m->hdr.attr_id == RK_CM_REP && !r->cm_open &&
					    !r->cm_established) {
						r->cm_dut_comm_id = m->rep.local_comm_id;
						r->cm_open = true;
					}
					if (m->hdr.attr_id == RK_CM_REJ ||
					    m->hdr.attr_id == RK_CM_DREQ)
						r->cm_open = false;
					return 1;
				}
				close_stray(r, m);
			}
		}
		if (env->ops->now_ns(env->io) >= deadline)
			return 0;
	}
}

static void
hdr(struct rk_cm_msg *m, uint16_t attr, uint64_t tid)
{
	m->hdr = (struct rk_mad_hdr){ .base_version = 1, .mgmt_class = RK_MAD_CLASS_CM,
				      .class_version = RK_CM_CLASS_VERSION,
				      .method = RK_MAD_METHOD_SEND, .tid = tid, .attr_id = attr };
}

/*
 * A valid RC REQ for @p svc from the tester's QP, with Annex A11
 * addressing; the tester answers a REP within 4.096 us * 2^20 (Local CM
 * Response Timeout) and allows 15 retries.
 */
static void
make_req(struct rk_conform_run *r, uint64_t svc, struct rk_cm_msg *m)
{
	const struct rk_conform_env *env = r->env;

	/* one per case, from the clock: a live DUT may hold an earlier case's */
	if (r->cm_comm_id == 0)
		r->cm_comm_id = TESTER_COMM_ID ^ ((uint32_t)(env->ops->now_ns(env->io) >> 10) &
						  0xfff000u);
	struct rk_cm_req *q = &m->req;
	struct rk_cm_ip_pd ip = { .ip_version = 4, .src_port = 0xc123 };

	memset(m, 0, sizeof(*m));
	hdr(m, RK_CM_REQ, TESTER_TID);
	q->local_comm_id = r->cm_comm_id;
	q->service_id = svc;
	q->local_ca_guid = 0x000000fffe000001ull;
	q->local_qpn = r->dut.peer_qpn != 0 ? r->dut.peer_qpn : TESTER_QPN;
	q->responder_resources = 4;
	q->initiator_depth = 4;
	q->remote_cm_response_timeout = 20;
	q->starting_psn = TESTER_PSN;
	q->local_cm_response_timeout = 20;
	q->retry_count = 7;
	q->pkey = 0xffff;
	q->path_mtu = RK_MTU_1024;
	q->rnr_retry_count = 7;
	q->max_cm_retries = 15;
	q->primary.local_lid = q->primary.remote_lid = 0xffff;
	memcpy(q->primary.local_gid, env->src_ip, 16);
	memcpy(q->primary.remote_gid, env->dst_ip, 16);
	q->primary.local_gid[10] = q->primary.local_gid[11] = 0xff;
	q->primary.remote_gid[10] = q->primary.remote_gid[11] = 0xff;
	q->primary.hop_limit = 64;
	q->primary.local_ack_timeout = 14;
	memcpy(ip.src_ip, env->src_ip, 16);
	memcpy(ip.dst_ip, env->dst_ip, 16);
	(void)rk_cm_ip_pd_encode(&ip, q->private_data);
}

/* @p n (cm_wait()'s) must have brought a MAD of @p attr; FAIL saying what came instead. */
static bool
got(struct rk_conform_run *r, int n, uint16_t attr, const char *after, struct rk_cm_msg *m)
{
	if (n < 0)
		return false;
	if (n == 0)
		return rk_conform_fail(r, "%s drew nothing, not a %s", after,
				       rk_cm_attr_name(attr));
	if (m->hdr.attr_id != attr)
		return rk_conform_fail(r, "%s drew a %s%s%s, not a %s", after,
				       rk_cm_attr_name(m->hdr.attr_id),
				       m->hdr.attr_id == RK_CM_REJ ? " with reason " : "",
				       m->hdr.attr_id == RK_CM_REJ ?
				       rk_cm_rej_reason_name(m->rej.reason) : "",
				       rk_cm_attr_name(attr));
	return true;
}

/* Wait for a MAD of @p attr; FAIL saying what came instead. */
static bool
expect(struct rk_conform_run *r, uint16_t attr, const char *after, struct rk_cm_msg *m)
{
	return got(r, cm_wait(r, m), attr, after, m);
}

/*
 * Send @p req and wait for the DUT's answer into @p m, as cm_wait(). A
 * REJ "invalid service ID" for the listener's own ServiceID within
 * env->cm_listen_wait_ns means the listener is away for a moment: the
 * REQ goes again 200 ms later.
 */
static int
send_req(struct rk_conform_run *r, const struct rk_cm_msg *req, struct rk_cm_msg *m)
{
	const struct rk_conform_env *env = r->env;
	uint64_t end = env->ops->now_ns(env->io) + env->cm_listen_wait_ns;
	uint8_t buf[FRAME_MAX];
	int n;

	for (;;) {
		if (!cm_send(r, req))
			return -1;
		n = cm_wait(r, m);
		if (n != 1 || m->hdr.attr_id != RK_CM_REJ ||
		    m->rej.reason != RK_CM_REJ_INVALID_SERVICE_ID ||
		    req->req.service_id != env->cm_service_id ||
		    env->ops->now_ns(env->io) + 200000000ull > end)
			return n;
		/* the case's bound on waits is for answers, not for the listener */
		r->waits = 0;
		for (uint64_t t = env->ops->now_ns(env->io) + 200000000ull;
		     env->ops->now_ns(env->io) < t;)
			if (env->ops->rx(env->io, buf, sizeof(buf)) < 0)
				return -1;
	}
}

/* REQ to the listener, REP back with the fields 12.6.8 ties to the REQ. */
static bool
req_rep(struct rk_conform_run *r, struct rk_cm_msg *rep)
{
	struct rk_cm_msg req;

	make_req(r, r->env->cm_service_id, &req);
	if (!got(r, send_req(r, &req, rep), RK_CM_REP, "a valid REQ", rep))
		return false;
	if (rep->rep.remote_comm_id != r->cm_comm_id)
		return rk_conform_fail(r, "REP's Remote Comm ID 0x%08x, not the REQ's Local "
				       "Comm ID 0x%08x", rep->rep.remote_comm_id, r->cm_comm_id);
	if (rep->rep.local_comm_id == 0)
		return rk_conform_fail(r, "REP's Local Comm ID is 0");
	if (rep->rep.local_qpn == 0 || rep->rep.local_qpn == GSI_QPN)
		return rk_conform_fail(r, "REP's Local QPN 0x%06x is no RC QP", rep->rep.local_qpn);
	if (rep->rep.responder_resources > req.req.initiator_depth)
		return rk_conform_fail(r, "REP's Responder Resources %u exceed the REQ's "
				       "Initiator Depth %u", rep->rep.responder_resources,
				       req.req.initiator_depth);
	return true;
}

/* RTU for @p rep: the connection is established (12.6.9). */
static bool
send_rtu(struct rk_conform_run *r, const struct rk_cm_msg *rep)
{
	struct rk_cm_msg rtu;

	memset(&rtu, 0, sizeof(rtu));
	hdr(&rtu, RK_CM_RTU, TESTER_TID);
	rtu.rtu.local_comm_id = r->cm_comm_id;
	rtu.rtu.remote_comm_id = rep->rep.local_comm_id;
	return cm_send(r, &rtu);
}

/*
 * A WRITE on the DUT's QP at the REP's QPN and Starting PSN must be
 * ACKed; a SEND where the DUT names no region its CM's QP offers (a live
 * DUT's CM connects a QP of its own choosing, with receives posted).
 */
static bool
write_acked(struct rk_conform_run *r, const struct rk_cm_msg *rep, const char *when)
{
	static const uint8_t data[WRITE_LEN];
	bool write = r->dut.len > 0 && (r->dut.access & RK_CONFORM_ACC_WRITE);
	struct rk_xeth_fields x = { .reth_va = r->dut.va, .reth_r_key = r->dut.r_key,
				    .reth_dma_len = WRITE_LEN };
	struct rk_probe_intent in = { .opcode = write ? RK_OP_RDMA_WRITE_ONLY : RK_OP_SEND_ONLY,
				      .ack_req = true, .x = &x,
				      .payload = data, .len = WRITE_LEN, .pad_cnt = -1 };
	struct rk_probe_answer a[ANSWERS];
	char s[160];
	int n;

	r->dut.qpn = rep->rep.local_qpn;
	r->dut.epsn = rep->rep.starting_psn;
	rk_conform_aim(r);
	if (rk_conform_send(r, &in, RK_CONFORM_M_NONE) != 0)
		return false;
	n = rk_conform_wait(r, a, ANSWERS, 1);
	if (n < 0)
		return false;
	for (int i = 0; i < n; i++)
		if (a[i].kind == RK_PROBE_ACK && a[i].psn == r->dut.epsn)
			return true;
	return rk_conform_fail(r, "a %s at the REP's QPN 0x%06x and PSN 0x%06x %s drew %s, "
			       "not an ACK", write ? "WRITE" : "SEND", rep->rep.local_qpn,
			       r->dut.epsn, when,
			       rk_conform_answer_str(a, (unsigned int)(n > 0 ? n : 0), s,
						     sizeof(s)));
}

/* IBTA Vol1 12.6.8: the REP answers the REQ's Local Comm ID with one of its own. */
static void
run_rep(struct rk_conform_run *r, const void *arg)
{
	struct rk_cm_msg rep;

	(void)arg;
	(void)req_rep(r, &rep);
}

/* IBTA Vol1 12.6.7: reason 8 when no one listens on the REQ's ServiceID. */
static void
run_bad_service(struct rk_conform_run *r, const void *arg)
{
	struct rk_cm_msg req, rej;

	(void)arg;
	/* Another RDMA-CM TCP port than the listener's. */
	make_req(r, r->env->cm_service_id ^ 0x5a5a, &req);
	if (!cm_send(r, &req) || !expect(r, RK_CM_REJ, "a REQ for an unknown ServiceID", &rej))
		return;
	if (rej.rej.reason != RK_CM_REJ_INVALID_SERVICE_ID)
		rk_conform_fail(r, "REJ with reason %u (%s), not 8 (Invalid Service ID)",
				rej.rej.reason, rk_cm_rej_reason_name(rej.rej.reason));
	else if (rej.rej.remote_comm_id != r->cm_comm_id || rej.rej.message_rejected != 0)
		rk_conform_fail(r, "REJ with Remote Comm ID 0x%08x and Message REJected %u, not "
				"the REQ's 0x%08x and 0 (REQ)", rej.rej.remote_comm_id,
				rej.rej.message_rejected, r->cm_comm_id);
}

/* IBTA Vol1 12.9: a REQ repeated while the REP is out is the same connection. */
static void
run_duplicate(struct rk_conform_run *r, const void *arg)
{
	struct rk_cm_msg req, rep, again;
	int n;

	(void)arg;
	if (!req_rep(r, &rep))
		return;
	make_req(r, r->env->cm_service_id, &req);
	if (!cm_send(r, &req))
		return;
	/* The REP again, an MRA, or nothing: never a second connection. */
	while ((n = cm_wait(r, &again)) == 1) {
		if ((again.hdr.attr_id == RK_CM_REP &&
		     again.rep.local_comm_id != rep.rep.local_comm_id) ||
		    again.hdr.attr_id == RK_CM_REJ) {
			rk_conform_fail(r, "the repeated REQ drew a %s with Local Comm ID 0x%08x, "
					"the first REP's was 0x%08x", rk_cm_attr_name(again.hdr.attr_id),
					again.rep.local_comm_id, rep.rep.local_comm_id);
			return;
		}
		if (again.hdr.attr_id == RK_CM_REP && again.rep.local_qpn != rep.rep.local_qpn) {
			rk_conform_fail(r, "the repeated REQ drew a REP for QPN 0x%06x, the first "
					"for 0x%06x", again.rep.local_qpn, rep.rep.local_qpn);
			return;
		}
	}
	if (n == 0 && send_rtu(r, &rep))
		(void)write_acked(r, &rep, "after the RTU");
}

/* IBTA Vol1 12.6.9: the RTU establishes; the QP then takes requests. */
static void
run_rtu(struct rk_conform_run *r, const void *arg)
{
	struct rk_cm_msg rep;

	(void)arg;
	if (req_rep(r, &rep) && send_rtu(r, &rep))
		(void)write_acked(r, &rep, "after the RTU");
}

/* IBTA Vol1 12.6.10, 12.6.11: a DREQ of a connection draws its DREP. */
static void
run_dreq(struct rk_conform_run *r, const void *arg)
{
	struct rk_cm_msg rep, dreq, drep;

	(void)arg;
	if (!req_rep(r, &rep) || !send_rtu(r, &rep))
		return;
	memset(&dreq, 0, sizeof(dreq));
	hdr(&dreq, RK_CM_DREQ, TESTER_TID + 1);
	dreq.dreq.local_comm_id = r->cm_comm_id;
	dreq.dreq.remote_comm_id = rep.rep.local_comm_id;
	dreq.dreq.remote_qpn = rep.rep.local_qpn;
	if (!cm_send(r, &dreq) || !expect(r, RK_CM_DREP, "a DREQ", &drep))
		return;
	if (drep.rtu.local_comm_id != rep.rep.local_comm_id ||
	    drep.rtu.remote_comm_id != r->cm_comm_id)
		rk_conform_fail(r, "DREP with Local/Remote Comm ID 0x%08x/0x%08x, not "
				"0x%08x/0x%08x", drep.rtu.local_comm_id, drep.rtu.remote_comm_id,
				rep.rep.local_comm_id, r->cm_comm_id);
}

/* IBTA Vol1 12.6.7: a REQ whose path MTU the DUT cannot carry draws reason 26. */
static void
run_mtu(struct rk_conform_run *r, const void *arg)
{
	struct rk_cm_msg req, rej;

	(void)arg;
	if (r->dut.pmtu >= 4096) {
		rk_conform_na(r, "the DUT's QP carries path MTU 4096, the largest");
		return;
	}
	make_req(r, r->env->cm_service_id, &req);
	req.req.path_mtu = RK_MTU_4096;
	if (!got(r, send_req(r, &req, &rej), RK_CM_REJ, "a REQ for path MTU 4096", &rej))
		return;
	if (rej.rej.reason != RK_CM_REJ_INVALID_MTU)
		rk_conform_fail(r, "REJ with reason %u (%s), not 26 (Invalid Path MTU)",
				rej.rej.reason, rk_cm_rej_reason_name(rej.rej.reason));
}

/* IBTA Vol1 12.9: a DREQ repeated in TimeWait (our DREP lost) draws the DREP again. */
static void
run_dreq_again(struct rk_conform_run *r, const void *arg)
{
	struct rk_cm_msg rep, dreq, drep;

	(void)arg;
	if (!req_rep(r, &rep) || !send_rtu(r, &rep))
		return;
	memset(&dreq, 0, sizeof(dreq));
	hdr(&dreq, RK_CM_DREQ, TESTER_TID + 1);
	dreq.dreq.local_comm_id = r->cm_comm_id;
	dreq.dreq.remote_comm_id = rep.rep.local_comm_id;
	dreq.dreq.remote_qpn = rep.rep.local_qpn;
	if (!cm_send(r, &dreq) || !expect(r, RK_CM_DREP, "a DREQ", &drep) ||
	    !cm_send(r, &dreq) || !expect(r, RK_CM_DREP, "the same DREQ again", &drep))
		return;
	if (drep.rtu.remote_comm_id != r->cm_comm_id)
		rk_conform_fail(r, "the second DREP's Remote Comm ID 0x%08x, not 0x%08x",
				drep.rtu.remote_comm_id, r->cm_comm_id);
}

/* IBTA Vol1 13.4.3: a class version the CM does not speak is not its REQ. */
static void
run_class_version(struct rk_conform_run *r, const void *arg)
{
	struct rk_cm_msg req, m;
	int n;

	(void)arg;
	make_req(r, r->env->cm_service_id, &req);
	req.hdr.class_version = 1;
	if (!cm_send(r, &req))
		return;
	/* Dropped, or answered with a MAD status; a REP accepts what it cannot read. */
	while ((n = cm_wait(r, &m)) == 1)
		if (m.hdr.attr_id == RK_CM_REP) {
			rk_conform_fail(r, "a REQ of CM class version 1 drew a REP");
			return;
		}
	/* Then the same REQ, version 2: the listener is still there. */
	if (n == 0) {
		req.hdr.class_version = RK_CM_CLASS_VERSION;
		(void)got(r, send_req(r, &req, &m), RK_CM_REP, "the REQ again with class version 2",
			  &m);
	}
}

/* The REQ of the timer cases: the tester answers within ~16.8 ms, @p retries times. */
#define SHORT_CM_TIMEOUT 12u    /* 4.096 us * 2^12 */
static void
make_short_req(struct rk_conform_run *r, unsigned int retries, struct rk_cm_msg *m)
{
	make_req(r, r->env->cm_service_id, m);
	m->req.local_cm_response_timeout = SHORT_CM_TIMEOUT;
	m->req.max_cm_retries = (uint8_t)retries;
}

/*
 * Wait at least @p ns for anything from the DUT's CM. @return 0 when
 * nothing came, 1 with @p m the MAD that did, -1 when the backend failed.
 */
static int
quiet_for(struct rk_conform_run *r, uint64_t ns, struct rk_cm_msg *m)
{
	const struct rk_conform_env *env = r->env;
	uint64_t end = env->ops->now_ns(env->io) + ns;
	int n;

	do {
		n = cm_wait(r, m);
		if (n != 0)
			return n;
	} while (env->ops->now_ns(env->io) < end);
	return 0;
}

/*
 * IBTA Vol1 12.6.5 (Local CM Response Timeout, Max CM Retries), 12.9
 * (REP Sent): without an RTU, the REP is sent again after the REQ's
 * Local CM Response Timeout, the same connection's, at most Max CM
 * Retries times.
 */
static void
run_rep_resent(struct rk_conform_run *r, const void *arg)
{
	struct rk_cm_msg req, rep, m;
	const uint64_t per = 4096ull << SHORT_CM_TIMEOUT;
	unsigned int again = 0;
	int n;

	(void)arg;
	make_short_req(r, 2, &req);
	if (!got(r, send_req(r, &req, &rep), RK_CM_REP, "a valid REQ", &rep))
		return;
	if (rep.rep.remote_comm_id != r->cm_comm_id) {
		rk_conform_fail(r, "REP's Remote Comm ID 0x%08x, not the REQ's Local Comm ID "
				"0x%08x", rep.rep.remote_comm_id, r->cm_comm_id);
		return;
	}
	/* Every REP until the DUT is quiet for 8 of its periods. */
	while ((n = quiet_for(r, 8 * per, &m)) == 1) {
		if (m.hdr.attr_id == RK_CM_REJ)
			continue;       /* a REJ (Timeout) at the end is allowed */
		if (m.hdr.attr_id != RK_CM_REP || m.rep.local_comm_id != rep.rep.local_comm_id) {
			rk_conform_fail(r, "waiting for the REP again drew a %s (Local Comm ID "
					"0x%08x)", rk_cm_attr_name(m.hdr.attr_id),
					m.rep.local_comm_id);
			return;
		}
		if (++again > 2) {
			rk_conform_fail(r, "the REP came %u times again, Max CM Retries is 2", again);
			return;
		}
	}
	if (n == 0 && again == 0)
		rk_conform_fail(r, "no RTU for the REP: it never came again (Local CM Response "
				"Timeout %u: %.1f ms)", SHORT_CM_TIMEOUT, (double)per / 1e6);
}

/*
 * IBTA Vol1 12.6.6 (MRA): an MRA for the REP (Message MRAed 1) makes the
 * passive side wait its Service Timeout more; the RTU sent later still
 * establishes the connection.
 */
static void
run_mra_rep(struct rk_conform_run *r, const void *arg)
{
	struct rk_cm_msg req, rep, mra, m;
	const uint64_t per = 4096ull << SHORT_CM_TIMEOUT;
	int n;

	(void)arg;
	make_short_req(r, 1, &req);
	if (!got(r, send_req(r, &req, &rep), RK_CM_REP, "a valid REQ", &rep))
		return;
	memset(&mra, 0, sizeof(mra));
	hdr(&mra, RK_CM_MRA, TESTER_TID);
	mra.mra.local_comm_id = r->cm_comm_id;
	mra.mra.remote_comm_id = rep.rep.local_comm_id;
	mra.mra.message_mraed = 1;
	mra.mra.service_timeout = 20;   /* about 4.3 s more */
	if (!cm_send(r, &mra))
		return;
	/* Without the MRA the REP and its one retry would be over after 2 periods. */
	n = quiet_for(r, 8 * per, &m);
	if (n < 0)
		return;
	if (n == 1) {
		rk_conform_fail(r, "after an MRA of 4.3 s the DUT sent a %s within %.0f ms",
				rk_cm_attr_name(m.hdr.attr_id), (double)(8 * per) / 1e6);
		return;
	}
	if (send_rtu(r, &rep))
		(void)write_acked(r, &rep, "after the MRA and a late RTU");
}

/*
 * After a case: a connection it left open is ended, so a live DUT's
 * listener (a perftest -R server serves one client) is free for the next
 * case: DREQ when established, else REJ of the REP (consumer reject).
 */
static void
cm_end(struct rk_conform_run *r)
{
	struct rk_cm_msg m;

	if (!r->cm_open)
		return;
	memset(&m, 0, sizeof(m));
	if (r->cm_established) {
		hdr(&m, RK_CM_DREQ, TESTER_TID + 2);
		m.dreq.local_comm_id = r->cm_comm_id;
		m.dreq.remote_comm_id = r->cm_dut_comm_id;
		m.dreq.remote_qpn = r->dut.qpn;
	} else {
		hdr(&m, RK_CM_REJ, TESTER_TID);
		m.rej.local_comm_id = r->cm_comm_id;
		m.rej.remote_comm_id = r->cm_dut_comm_id;
		m.rej.message_rejected = 1;
		m.rej.reason = RK_CM_REJ_CONSUMER_REJECT;
	}
	(void)cm_send(r, &m);
}

/* A case's script, then cm_end(). */
struct cm_script {
	void (*run)(struct rk_conform_run *r, const void *arg);
};

static void
run_cm(struct rk_conform_run *r, const void *arg)
{
	((const struct cm_script *)arg)->run(r, NULL);
	cm_end(r);
}

#define SCRIPT(fn) run_cm, &(const struct cm_script){ fn }

static const struct rk_conform_case cm_cases[] = {
	{ "cm.req.rep", "IBTA Vol1 12.6.5, 12.6.8",
	  "answer a valid REQ with a REP: Remote Comm ID the REQ's, a Local Comm ID, an RC QPN",
	  RK_CONFORM_CM, 0, 0, SCRIPT(run_rep), false },
	{ "cm.req.service_invalid", "IBTA Vol1 12.6.7 (REJ reason 8)",
	  "reject a REQ for a ServiceID nobody listens on with REJ reason 8",
	  RK_CONFORM_CM, 0, 0, SCRIPT(run_bad_service), false },
	{ "cm.req.duplicate", "IBTA Vol1 12.9 (REQ in REP sent)",
	  "answer a repeated REQ with the same REP or not at all, no second connection",
	  RK_CONFORM_CM, 0, 0, SCRIPT(run_duplicate), false },
	{ "cm.rtu.established", "IBTA Vol1 12.6.9, 12.9",
	  "after the RTU, ACK a WRITE at the REP's QPN and Starting PSN",
	  RK_CONFORM_CM, 0, 0, SCRIPT(run_rtu), false },
	{ "cm.dreq.drep", "IBTA Vol1 12.6.10, 12.6.11",
	  "answer a DREQ of an established connection with a DREP, Comm IDs swapped",
	  RK_CONFORM_CM, 0, 0, SCRIPT(run_dreq), false },
	{ "cm.req.mtu_invalid", "IBTA Vol1 12.6.7 (REJ reason 26)",
	  "reject a REQ for a path MTU larger than the QP's with REJ reason 26",
	  RK_CONFORM_CM, 0, 0, SCRIPT(run_mtu), false },
	{ "cm.dreq.repeated", "IBTA Vol1 12.9 (DREQ in TimeWait)",
	  "answer a DREQ repeated after its DREP with the DREP again",
	  RK_CONFORM_CM, 0, 0, SCRIPT(run_dreq_again), false },
	{ "cm.rep.resent", "IBTA Vol1 12.6.5, 12.9 (REP Sent timeout)",
	  "resend the REP after the REQ's Local CM Response Timeout when no RTU comes, at most "
	  "Max CM Retries times",
	  RK_CONFORM_CM, 0, 0, SCRIPT(run_rep_resent), false },
	{ "cm.mra.rep", "IBTA Vol1 12.6.6 (MRA)",
	  "wait the MRA's Service Timeout more for the RTU: a late RTU still establishes",
	  RK_CONFORM_CM, 0, 0, SCRIPT(run_mra_rep), false },
	{ "cm.mad.class_version", "IBTA Vol1 13.4.3 (ClassVersion)",
	  "not accept a REQ of CM class version 1; still accept version 2",
	  RK_CONFORM_CM, 0, 0, SCRIPT(run_class_version), false },
};

const struct rk_conform_case *
rk_conform_cm_cases(unsigned int *n)
{
	*n = sizeof(cm_cases) / sizeof(cm_cases[0]);
	return cm_cases;
}
