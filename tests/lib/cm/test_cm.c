/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/cm against real Linux rxe rdma_cm connections (rxe_cm_mads.h): every
 * captured CM MAD decodes to the values Wireshark's dissector shows and
 * encodes back to the same 256 bytes; our state machine, fed the captured
 * MADs, produces the captured answers (the RTU byte for byte) and reaches
 * the same states. Then two of our own endpoints against each other:
 * negotiation, lost MADs, duplicates, MRA, REJ, crossing DREQs, timeouts.
 */
#include "rk_test.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

#include "rk_cm.h"
#include "rk_mad.h"
#include "rxe_cm_mads.h"

static const uint8_t gid_12[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 198, 18, 0, 12 };
static const uint8_t gid_11[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 198, 18, 0, 11 };

static const struct {
	const uint8_t *mad;
	uint16_t attr;
} all_mads[] = {
	{ wbw_1_req, RK_CM_REQ }, { wbw_2_rep, RK_CM_REP }, { wbw_3_rtu, RK_CM_RTU },
	{ wbw_24_req, RK_CM_REQ }, { wbw_25_rep, RK_CM_REP }, { wbw_26_rtu, RK_CM_RTU },
	{ wbw_411_dreq, RK_CM_DREQ }, { wbw_412_dreq, RK_CM_DREQ },
	{ wbw_413_drep, RK_CM_DREP }, { wbw_414_dreq, RK_CM_DREQ },
	{ wbw_415_drep, RK_CM_DREP }, { rping_1_req, RK_CM_REQ }, { rping_2_rep, RK_CM_REP },
	{ rping_3_rtu, RK_CM_RTU }, { rping_64_dreq, RK_CM_DREQ },
	{ rping_65_drep, RK_CM_DREP },
};

static void
test_decode_req(void **state)
{
	struct rk_cm_msg m;
	const struct rk_cm_req *r = &m.req;
	struct rk_cm_ip_pd ip;

	(void)state;
	assert_int_equal(rk_cm_decode(wbw_1_req, 256, &m), 0);
	assert_int_equal(m.hdr.method, RK_MAD_METHOD_SEND);
	assert_int_equal(m.hdr.attr_id, RK_CM_REQ);
	assert_true(m.hdr.tid == 0x0000000435f53b96ull);
	assert_int_equal(r->local_comm_id, 0x963bf535);
	assert_true(r->service_id == rk_cm_service_id(RK_CM_PS_TCP, 0x4853));
	assert_true(r->local_ca_guid == 0x505400fffe18000cull);
	assert_int_equal(r->local_qpn, 0x1a);
	assert_int_equal(r->responder_resources, 0);
	assert_int_equal(r->initiator_depth, 0);
	assert_int_equal(r->remote_cm_response_timeout, 0x14);
	assert_int_equal(r->transport_service_type, 0);
	assert_int_equal(r->starting_psn, 0x30a719);
	assert_int_equal(r->local_cm_response_timeout, 0x14);
	assert_int_equal(r->retry_count, 7);
	assert_int_equal(r->pkey, 0xffff);
	assert_int_equal(r->path_mtu, 3);
	assert_int_equal(r->rnr_retry_count, 7);
	assert_int_equal(r->max_cm_retries, 15);
	assert_int_equal(r->primary.local_lid, 0xffff);
	assert_memory_equal(r->primary.local_gid, gid_12, 16);
	assert_memory_equal(r->primary.remote_gid, gid_11, 16);
	/*
	 * Bytes 88..91 are 3e 34 c0 00: FlowLabel 0x3e34c (rdma_cm's hash of
	 * the ports), PacketRate 0. Wireshark 4.0 reads this word as 24 bits
	 * and shows 0x003e3 / 0x3e; the hop limit and ACK timeout around it
	 * agree with it, so the layout is right.
	 */
	assert_int_equal(r->primary.flow_label, 0x3e34c);
	assert_int_equal(r->primary.packet_rate, 0);
	assert_int_equal(r->primary.hop_limit, 0x40);
	assert_int_equal(r->primary.local_ack_timeout, 0x13);
	assert_int_equal(r->alternate.local_lid, 0);
	assert_int_equal(rk_cm_ip_pd_decode(r->private_data, &ip), 0);
	assert_int_equal(ip.ip_version, 4);
	assert_int_equal(ip.src_port, 0xa1e7);
	assert_memory_equal(ip.src_ip + 12, gid_12 + 12, 4);
	assert_memory_equal(ip.dst_ip + 12, gid_11 + 12, 4);
}

static void
test_decode_rep_rtu_dreq(void **state)
{
	struct rk_cm_msg m;

	(void)state;
	assert_int_equal(rk_cm_decode(wbw_2_rep, 256, &m), 0);
	assert_int_equal(m.rep.local_comm_id, 0x62bdc14e);
	assert_int_equal(m.rep.remote_comm_id, 0x963bf535);
	assert_int_equal(m.rep.local_qpn, 0x1a);
	assert_int_equal(m.rep.starting_psn, 0x574d70);
	assert_int_equal(m.rep.target_ack_delay, 0x0f);
	assert_int_equal(m.rep.rnr_retry_count, 7);
	assert_int_equal(m.rep.srq, 0);
	assert_true(m.rep.local_ca_guid == 0x505400fffe18000bull);
	assert_int_equal(rk_cm_decode(wbw_3_rtu, 256, &m), 0);
	assert_int_equal(m.hdr.attr_id, RK_CM_RTU);
	assert_int_equal(m.rtu.local_comm_id, 0x963bf535);
	assert_int_equal(m.rtu.remote_comm_id, 0x62bdc14e);
	assert_int_equal(rk_cm_decode(wbw_411_dreq, 256, &m), 0);
	assert_int_equal(m.dreq.local_comm_id, 0x64bdc14e);
	assert_int_equal(m.dreq.remote_comm_id, 0x953bf535);
	assert_int_equal(m.dreq.remote_qpn, 0x1b);
	assert_int_equal(rk_cm_decode(wbw_413_drep, 256, &m), 0);
	assert_int_equal(m.hdr.attr_id, RK_CM_DREP);
	assert_true(m.hdr.tid == 0x0000000435f53b95ull);
}

/* Decode then encode gives the captured bytes back, for every MAD. */
static void
test_round_trip(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(all_mads) / sizeof(all_mads[0]); i++) {
		struct rk_cm_msg m;
		uint8_t out[RK_MAD_LEN];

		assert_int_equal(rk_cm_decode(all_mads[i].mad, 256, &m), 0);
		assert_int_equal(m.hdr.attr_id, all_mads[i].attr);
		assert_int_equal(rk_cm_encode(&m, out, sizeof(out)), RK_MAD_LEN);
		assert_memory_equal(out, all_mads[i].mad, RK_MAD_LEN);
	}
}

static void
test_bad_input(void **state)
{
	uint8_t mad[RK_MAD_LEN];
	struct rk_cm_msg m;

	(void)state;
	assert_int_equal(rk_cm_decode(wbw_1_req, 255, &m), -EINVAL);
	assert_int_equal(rk_cm_decode(NULL, 256, &m), -EINVAL);
	memcpy(mad, wbw_1_req, sizeof(mad));
	mad[1] = 0x01;                  /* SMP class */
	assert_int_equal(rk_cm_decode(mad, 256, &m), -EPROTO);
	memcpy(mad, wbw_1_req, sizeof(mad));
	mad[2] = 1;                     /* CM class version 1 */
	assert_int_equal(rk_cm_decode(mad, 256, &m), -EPROTO);
	memcpy(mad, wbw_1_req, sizeof(mad));
	mad[17] = 0x19;                 /* LAP: not handled */
	assert_int_equal(rk_cm_decode(mad, 256, &m), -EPROTO);
	memcpy(mad, wbw_1_req, sizeof(mad));
	mad[24 + 140] = 0x10;           /* A11 major version 1 */
	assert_int_equal(rk_cm_decode(mad, 256, &m), 0);
	{
		struct rk_cm_ip_pd ip;

		assert_int_equal(rk_cm_ip_pd_decode(m.req.private_data, &ip), -EBADMSG);
	}
	m.hdr.attr_id = 0x0099;
	assert_int_equal(rk_cm_encode(&m, mad, sizeof(mad)), -EPROTO);
	assert_int_equal(rk_cm_encode(&m, mad, 100), -EINVAL);
	assert_string_equal(rk_cm_attr_name(RK_CM_DREP), "DREP");
	assert_string_equal(rk_cm_attr_name(0x99), "?");
}

static struct rk_cm_params
params(uint32_t qpn, uint32_t psn, uint8_t rr, uint8_t id, const uint8_t gid[16])
{
	struct rk_cm_params p = { .qpn = qpn, .psn = psn, .responder_resources = rr,
				  .initiator_depth = id, .path_mtu = 3, .retry_count = 7,
				  .rnr_retry_count = 7, .local_ack_timeout = 14,
				  .ca_guid = 0x5254001800640001ull };

	memcpy(p.gid, gid, 16);
	return p;
}

/* Passive side against the captured client: their REQ, our REP, their RTU. */
static void
test_passive_vs_rxe(void **state)
{
	struct rk_cm_conn c = { 0 };
	struct rk_cm_params p = params(0x33, 0x123456, 16, 16, gid_11);
	struct rk_cm_msg m;
	uint8_t out[RK_MAD_LEN];

	(void)state;
	assert_int_equal(rk_cm_decode(wbw_1_req, 256, &m), 0);
	assert_false(rk_cm_conn_match(&c, &m));
	assert_int_equal(rk_cm_listen_req(&c, &m, 0x62bdc14e, 0), RK_CM_EV_REQ);
	assert_int_equal(c.state, RK_CM_REQ_RCVD);
	assert_int_equal(c.peer.qpn, 0x1a);
	assert_int_equal(c.peer.psn, 0x30a719);
	assert_int_equal(c.ip.src_port, 0xa1e7);
	assert_true(c.service_id == rk_cm_service_id(RK_CM_PS_TCP, 18515));
	assert_int_equal(rk_cm_accept(&c, &p, 1000, out), RK_CM_SEND);
	/* The client asked for no READ/ATOMIC resources: none either way. */
	assert_int_equal(c.local.responder_resources, 0);
	assert_int_equal(c.local.initiator_depth, 0);
	assert_int_equal(rk_cm_decode(out, sizeof(out), &m), 0);
	assert_int_equal(m.hdr.attr_id, RK_CM_REP);
	assert_true(m.hdr.tid == 0x0000000435f53b96ull);
	assert_int_equal(m.rep.remote_comm_id, 0x963bf535);
	assert_int_equal(m.rep.local_qpn, 0x33);
	assert_int_equal(m.rep.starting_psn, 0x123456);
	/* Their REQ again (our REP lost): the same REP. */
	{
		uint8_t again[RK_MAD_LEN];

		assert_int_equal(rk_cm_decode(wbw_1_req, 256, &m), 0);
		assert_true(rk_cm_conn_match(&c, &m));
		assert_int_equal(rk_cm_rx(&c, &m, 2000, again), RK_CM_SEND);
		assert_memory_equal(again, out, RK_MAD_LEN);
	}
	assert_int_equal(rk_cm_decode(wbw_3_rtu, 256, &m), 0);
	assert_true(rk_cm_conn_match(&c, &m));
	assert_int_equal(rk_cm_rx(&c, &m, 3000, out), RK_CM_EV_ESTABLISHED);
	assert_int_equal(c.state, RK_CM_ESTABLISHED);
	assert_int_equal(c.timer_ns, 0);
}

/* The REQ carries our traffic class in its primary path; the passive side takes it. */
static void
test_req_traffic_class(void **state)
{
	struct rk_cm_conn a = { 0 }, b = { 0 };
	struct rk_cm_params p = params(0x1a, 0x30a719, 0, 0, gid_12);
	struct rk_cm_ip_pd ip = { .ip_version = 4, .src_port = 0xa1e7 };
	struct rk_cm_msg m;
	uint8_t out[RK_MAD_LEN];

	(void)state;
	p.traffic_class = 104;          /* DSCP 26 (perftest -R -T 104) */
	memcpy(ip.src_ip + 12, gid_12 + 12, 4);
	memcpy(ip.dst_ip + 12, gid_11 + 12, 4);
	assert_int_equal(rk_cm_connect(&a, &p, rk_cm_service_id(RK_CM_PS_TCP, 18515), &ip,
				       1, 2, 0, out), RK_CM_SEND);
	/* Byte 40 of the primary path (MAD data 24 + REQ 52 + 40). */
	assert_int_equal(out[24 + 52 + 40], 104);
	assert_int_equal(rk_cm_decode(out, sizeof(out), &m), 0);
	assert_int_equal(m.req.primary.traffic_class, 104);
	assert_int_equal(rk_cm_listen_req(&b, &m, 3, 0), RK_CM_EV_REQ);
	assert_int_equal(b.peer.traffic_class, 104);
}

/* Active side against the captured server: our REQ, their REP, our RTU = theirs. */
static void
test_active_vs_rxe(void **state)
{
	struct rk_cm_conn c = { 0 };
	struct rk_cm_params p = params(0x1a, 0x30a719, 0, 0, gid_12);
	struct rk_cm_ip_pd ip = { .ip_version = 4, .src_port = 0xa1e7 };
	struct rk_cm_msg m;
	uint8_t out[RK_MAD_LEN];

	(void)state;
	memcpy(ip.src_ip + 12, gid_12 + 12, 4);
	memcpy(ip.dst_ip + 12, gid_11 + 12, 4);
	assert_int_equal(rk_cm_connect(&c, &p, rk_cm_service_id(RK_CM_PS_TCP, 0x4853), &ip,
				       0x963bf535, 0x0000000435f53b96ull, 0, out), RK_CM_SEND);
	assert_int_equal(rk_cm_decode(out, sizeof(out), &m), 0);
	assert_int_equal(m.req.local_qpn, 0x1a);
	assert_int_equal(m.req.starting_psn, 0x30a719);
	assert_memory_equal(m.req.primary.remote_gid, gid_11, 16);
	/* The A11 header rxe's server accepted, byte for byte. */
	assert_memory_equal(m.req.private_data, wbw_1_req + 24 + 140, RK_CM_IP_PD_LEN);
	assert_int_equal(rk_cm_decode(wbw_2_rep, 256, &m), 0);
	assert_true(rk_cm_conn_match(&c, &m));
	assert_int_equal(rk_cm_rx(&c, &m, 5000, out),
			 RK_CM_SEND | RK_CM_EV_REP | RK_CM_EV_ESTABLISHED);
	assert_memory_equal(out, wbw_3_rtu, RK_MAD_LEN);
	assert_int_equal(c.peer.qpn, 0x1a);
	assert_int_equal(c.peer.psn, 0x574d70);
	assert_int_equal(c.state, RK_CM_ESTABLISHED);
	/* Their REP again (our RTU lost): the RTU again. */
	assert_int_equal(rk_cm_rx(&c, &m, 6000, out), RK_CM_SEND);
	assert_memory_equal(out, wbw_3_rtu, RK_MAD_LEN);
}

/* The captured crossing DREQs of the second connection (frames 411-415). */
static void
test_crossing_dreq_vs_rxe(void **state)
{
	struct rk_cm_conn c = { 0 };
	struct rk_cm_params p = params(0x1b, 0x111111, 0, 0, gid_12);
	struct rk_cm_ip_pd ip = { .ip_version = 4 };
	struct rk_cm_msg m;
	uint8_t out[RK_MAD_LEN];
	int rc;

	(void)state;
	memcpy(ip.dst_ip + 12, gid_11 + 12, 4);
	assert_int_equal(rk_cm_connect(&c, &p, rk_cm_service_id(RK_CM_PS_TCP, 0x4853), &ip,
				       0x953bf535, 0x0000000435f53b95ull, 0, out), RK_CM_SEND);
	assert_int_equal(rk_cm_decode(wbw_25_rep, 256, &m), 0);
	assert_true(rk_cm_conn_match(&c, &m));
	rc = rk_cm_rx(&c, &m, 10, out);
	assert_true(rc & RK_CM_EV_ESTABLISHED);
	assert_memory_equal(out, wbw_26_rtu, RK_MAD_LEN);
	/* We disconnect (as frame 412), their DREQ crosses ours (411). */
	assert_int_equal(rk_cm_disconnect(&c, 0x0000000435f53b95ull, 20, out), RK_CM_SEND);
	assert_int_equal(rk_cm_decode(out, sizeof(out), &m), 0);
	assert_int_equal(m.dreq.remote_qpn, c.peer.qpn);
	assert_int_equal(rk_cm_decode(wbw_411_dreq, 256, &m), 0);
	assert_true(rk_cm_conn_match(&c, &m));
	assert_int_equal(rk_cm_rx(&c, &m, 30, out), RK_CM_SEND | RK_CM_EV_DISCONNECTED);
	assert_int_equal(c.state, RK_CM_TIMEWAIT);
	assert_int_equal(rk_cm_decode(out, sizeof(out), &m), 0);
	assert_int_equal(m.hdr.attr_id, RK_CM_DREP);
	assert_true(m.hdr.tid == 0x000000044ec1bd64ull);
	/* Their DREP to our DREQ (413) after that: nothing more to do. */
	assert_int_equal(rk_cm_decode(wbw_413_drep, 256, &m), 0);
	assert_true(rk_cm_conn_match(&c, &m));
	assert_int_equal(rk_cm_rx(&c, &m, 40, out), 0);
	/* Time wait ends. */
	assert_int_equal(rk_cm_timer(&c, 40 + 2000000000ull, out), 0);
	assert_int_equal(c.state, RK_CM_CLOSED);
}

/* Two of ours: negotiation of resources, lost REP, MRA, DREQ/DREP. */
static void
test_pair(void **state)
{
	struct rk_cm_conn a = { 0 }, b = { 0 };
	struct rk_cm_params pa = params(0x101, 0x10, 16, 8, gid_12);
	struct rk_cm_params pb = params(0x202, 0x20, 4, 2, gid_11);
	struct rk_cm_ip_pd ip = { .ip_version = 4, .src_port = 40000 };
	struct rk_cm_msg m;
	uint8_t out[RK_MAD_LEN], rep[RK_MAD_LEN];
	uint64_t t;

	(void)state;
	pa.path_mtu = 3;
	pb.path_mtu = 5;
	memcpy(pa.private_data, "hello", 5);
	pa.private_data_len = 5;
	memcpy(ip.dst_ip + 12, gid_11 + 12, 4);
	assert_int_equal(rk_cm_connect(&a, &pa, rk_cm_service_id(RK_CM_PS_TCP, 7174), &ip, 1, 77,
				       0, out), RK_CM_SEND);
	assert_int_equal(rk_cm_decode(out, sizeof(out), &m), 0);
	assert_int_equal(rk_cm_listen_req(&b, &m, 2, 0), RK_CM_EV_REQ);
	assert_memory_equal(b.peer.private_data, "hello", 5);
	assert_int_equal(rk_cm_accept(&b, &pb, 0, rep), RK_CM_SEND);
	/* b accepts at most what a issues and a accepts: min both ways. */
	assert_int_equal(b.local.responder_resources, 4);
	assert_int_equal(b.local.initiator_depth, 2);
	/* The smaller of the two path MTUs: the REQ's 1024 under b's 4096. */
	assert_int_equal(b.local.path_mtu, 3);
	/* REP lost: a's timer resends the REQ; b answers with the same REP. */
	t = rk_cm_timeout_ns(20);
	assert_int_equal(rk_cm_timer(&a, t - 1, out), 0);
	assert_int_equal(rk_cm_timer(&a, t, out), RK_CM_SEND);
	assert_int_equal(rk_cm_decode(out, sizeof(out), &m), 0);
	assert_int_equal(m.hdr.attr_id, RK_CM_REQ);
	assert_true(rk_cm_conn_match(&b, &m));
	assert_int_equal(rk_cm_rx(&b, &m, t, out), RK_CM_SEND);
	assert_memory_equal(out, rep, RK_MAD_LEN);
	assert_int_equal(rk_cm_decode(rep, sizeof(rep), &m), 0);
	assert_true(rk_cm_conn_match(&a, &m));
	assert_int_equal(rk_cm_rx(&a, &m, t + 1, out),
			 RK_CM_SEND | RK_CM_EV_REP | RK_CM_EV_ESTABLISHED);
	assert_int_equal(a.local.initiator_depth, 4);
	assert_int_equal(a.local.responder_resources, 2);
	assert_int_equal(a.peer.qpn, 0x202);
	assert_int_equal(a.peer.psn, 0x20);
	assert_int_equal(rk_cm_decode(out, sizeof(out), &m), 0);
	assert_int_equal(rk_cm_rx(&b, &m, t + 2, out), RK_CM_EV_ESTABLISHED);
	/* b disconnects; a answers; b's DREP wait ends. */
	assert_int_equal(rk_cm_disconnect(&b, 99, t + 3, out), RK_CM_SEND);
	assert_int_equal(rk_cm_decode(out, sizeof(out), &m), 0);
	assert_true(rk_cm_conn_match(&a, &m));
	assert_int_equal(rk_cm_rx(&a, &m, t + 4, out), RK_CM_SEND | RK_CM_EV_DISCONNECTED);
	assert_int_equal(rk_cm_decode(out, sizeof(out), &m), 0);
	assert_int_equal(m.hdr.tid, 99);
	assert_int_equal(rk_cm_rx(&b, &m, t + 5, out), RK_CM_EV_DISCONNECTED);
	assert_int_equal(b.state, RK_CM_TIMEWAIT);
	/* A late duplicate DREQ to a in time wait: the DREP again, no new event. */
	assert_int_equal(rk_cm_disconnect(&b, 99, t + 6, out), -EINVAL);
}

static void
test_reject_and_timeout(void **state)
{
	struct rk_cm_conn a = { 0 }, b = { 0 };
	struct rk_cm_params pa = params(0x101, 0x10, 1, 1, gid_12);
	struct rk_cm_ip_pd ip = { .ip_version = 4 };
	struct rk_cm_msg m;
	uint8_t out[RK_MAD_LEN];
	uint64_t now = 0;
	int sends = 0, rc;

	(void)state;
	assert_int_equal(rk_cm_connect(&a, &pa, 1, &ip, 5, 6, 0, out), RK_CM_SEND);
	assert_int_equal(rk_cm_decode(out, sizeof(out), &m), 0);
	assert_int_equal(rk_cm_listen_req(&b, &m, 9, 0), RK_CM_EV_REQ);
	assert_int_equal(rk_cm_reject(&b, RK_CM_REJ_CONSUMER_REJECT, out), RK_CM_SEND);
	assert_int_equal(b.state, RK_CM_CLOSED);
	assert_int_equal(rk_cm_decode(out, sizeof(out), &m), 0);
	assert_int_equal(m.rej.reason, RK_CM_REJ_CONSUMER_REJECT);
	assert_true(rk_cm_conn_match(&a, &m));
	assert_int_equal(rk_cm_rx(&a, &m, 1, out), RK_CM_EV_REJECTED);
	assert_int_equal(a.rej_reason, RK_CM_REJ_CONSUMER_REJECT);
	assert_int_equal(a.state, RK_CM_CLOSED);
	assert_string_equal(rk_cm_rej_reason_name(a.rej_reason), "consumer reject");

	/* A REQ no connection takes: its REJ from a connection of its own. */
	memset(&a, 0, sizeof(a));
	assert_int_equal(rk_cm_connect(&a, &pa, 1, &ip, 5, 6, 0, out), RK_CM_SEND);
	assert_int_equal(rk_cm_decode(out, sizeof(out), &m), 0);
	assert_int_equal(rk_cm_reject_req(&m, RK_CM_REJ_INVALID_SERVICE_ID, 77, 0, out),
			 RK_CM_SEND);
	assert_int_equal(rk_cm_decode(out, sizeof(out), &m), 0);
	assert_int_equal(m.hdr.attr_id, RK_CM_REJ);
	assert_int_equal(m.rej.reason, RK_CM_REJ_INVALID_SERVICE_ID);
	assert_int_equal(m.rej.local_comm_id, 77);
	assert_int_equal(m.rej.message_rejected, 0);     /* the REQ */
	assert_true(rk_cm_conn_match(&a, &m));
	assert_int_equal(rk_cm_rx(&a, &m, 1, out), RK_CM_EV_REJECTED);
	assert_int_equal(rk_cm_reject_req(NULL, 8, 1, 0, out), -EINVAL);

	/* Nobody answers: 15 resends, then a timeout; an MRA buys time first. */
	memset(&a, 0, sizeof(a));
	assert_int_equal(rk_cm_connect(&a, &pa, 1, &ip, 5, 6, 0, out), RK_CM_SEND);
	memset(&m, 0, sizeof(m));
	m.hdr.base_version = 1;
	m.hdr.mgmt_class = RK_MAD_CLASS_CM;
	m.hdr.class_version = 2;
	m.hdr.attr_id = RK_CM_MRA;
	m.mra.remote_comm_id = 5;
	m.mra.message_mraed = 0;
	m.mra.service_timeout = 22;
	assert_true(rk_cm_conn_match(&a, &m));
	assert_int_equal(rk_cm_rx(&a, &m, 0, out), 0);
	assert_true(a.timer_ns == rk_cm_timeout_ns(20) + rk_cm_timeout_ns(22));
	for (;;) {
		now = a.timer_ns;
		rc = rk_cm_timer(&a, now, out);
		if (rc != RK_CM_SEND)
			break;
		sends++;
	}
	assert_int_equal(sends, 15);
	assert_int_equal(rc, RK_CM_EV_TIMEOUT);
	assert_int_equal(a.state, RK_CM_CLOSED);
	/* A MAD for no state is counted and dropped. */
	m.hdr.attr_id = RK_CM_RTU;
	assert_int_equal(rk_cm_rx(&a, &m, now, out), RK_CM_EV_IGNORED);
	assert_int_equal(a.ignored, 1);
}

/*
 * The passive side's REP waits for the RTU as the REQ says (IBTA Vol1
 * 12.6.5): Local CM Response Timeout 12 (16.8 ms) and Max CM Retries 2
 * give two resends 16.8 ms apart, then a timeout; a timeout field of 0
 * still waits about 1 ms.
 */
static void
test_rep_wait_from_req(void **state)
{
	struct rk_cm_conn a = { 0 }, b = { 0 };
	struct rk_cm_params pa = params(0x101, 0x10, 1, 1, gid_12);
	struct rk_cm_params pb = params(0x202, 0x20, 1, 1, gid_11);
	struct rk_cm_ip_pd ip = { .ip_version = 4 };
	struct rk_cm_msg m;
	uint8_t out[RK_MAD_LEN], req[RK_MAD_LEN];
	uint64_t t = 1000;
	int sends = 0, rc;

	(void)state;
	assert_int_equal(rk_cm_connect(&a, &pa, 1, &ip, 5, 6, 0, req), RK_CM_SEND);
	assert_int_equal(rk_cm_decode(req, sizeof(req), &m), 0);
	m.req.local_cm_response_timeout = 12;
	m.req.max_cm_retries = 2;
	assert_int_equal(rk_cm_listen_req(&b, &m, 9, t), RK_CM_EV_REQ);
	assert_int_equal(rk_cm_accept(&b, &pb, t, out), RK_CM_SEND);
	assert_true(b.timer_ns == t + rk_cm_timeout_ns(12));
	for (;;) {
		t = b.timer_ns;
		rc = rk_cm_timer(&b, t, out);
		if (rc != RK_CM_SEND)
			break;
		assert_int_equal(rk_cm_decode(out, sizeof(out), &m), 0);
		assert_int_equal(m.hdr.attr_id, RK_CM_REP);
		sends++;
	}
	assert_int_equal(sends, 2);
	assert_int_equal(rc, RK_CM_EV_TIMEOUT);
	assert_true(t == 1000 + 3 * rk_cm_timeout_ns(12));
	/* 0 in the REQ: the floor, 2^8 * 4.096 us */
	memset(&b, 0, sizeof(b));
	assert_int_equal(rk_cm_decode(req, sizeof(req), &m), 0);
	m.req.local_cm_response_timeout = 0;
	assert_int_equal(rk_cm_listen_req(&b, &m, 9, 0), RK_CM_EV_REQ);
	assert_int_equal(rk_cm_accept(&b, &pb, 0, out), RK_CM_SEND);
	assert_true(b.timer_ns == rk_cm_timeout_ns(8));
}

/* A DREQ of no connection gets its DREP: Comm IDs swapped, the DREQ's TID. */
static void
test_drep_unknown(void **state)
{
	struct rk_cm_msg m, d;
	uint8_t out[RK_MAD_LEN];

	(void)state;
	memset(&m, 0, sizeof(m));
	m.hdr = (struct rk_mad_hdr){ .base_version = 1, .mgmt_class = RK_MAD_CLASS_CM,
				     .class_version = 2, .method = RK_MAD_METHOD_SEND,
				     .tid = 0x1234, .attr_id = RK_CM_DREQ };
	m.dreq.local_comm_id = 0xa1;
	m.dreq.remote_comm_id = 0xb2;
	assert_int_equal(rk_cm_drep_unknown(&m, out), RK_CM_SEND);
	assert_int_equal(rk_cm_decode(out, sizeof(out), &d), 0);
	assert_int_equal(d.hdr.attr_id, RK_CM_DREP);
	assert_true(d.hdr.tid == 0x1234);
	assert_int_equal(d.rtu.local_comm_id, 0xb2);
	assert_int_equal(d.rtu.remote_comm_id, 0xa1);
	m.hdr.attr_id = RK_CM_RTU;
	assert_int_equal(rk_cm_drep_unknown(&m, out), 0);
	assert_int_equal(rk_cm_drep_unknown(NULL, out), -EINVAL);
}

/*
 * A REQ whose path MTU is larger than the passive side carries: rejected
 * with Invalid Path MTU (IBTA Vol1 12.6.7, reason 26), never accepted at
 * the REQ's MTU; the active side sees the reason. Equal MTUs connect.
 */
static void
test_mtu_negotiation(void **state)
{
	struct rk_cm_conn a = { 0 }, b = { 0 };
	struct rk_cm_params pa = params(0x101, 0x10, 1, 1, gid_12);
	struct rk_cm_params pb = params(0x202, 0x20, 1, 1, gid_11);
	struct rk_cm_ip_pd ip = { .ip_version = 4 };
	struct rk_cm_msg m;
	uint8_t out[RK_MAD_LEN];

	(void)state;
	pa.path_mtu = 5;        /* 4096 */
	pb.path_mtu = 3;        /* 1024 */
	assert_int_equal(rk_cm_connect(&a, &pa, 1, &ip, 5, 6, 0, out), RK_CM_SEND);
	assert_int_equal(rk_cm_decode(out, sizeof(out), &m), 0);
	assert_int_equal(rk_cm_listen_req(&b, &m, 9, 0), RK_CM_EV_REQ);
	memset(out, 0, sizeof(out));
	assert_int_equal(rk_cm_accept(&b, &pb, 0, out), -EMSGSIZE);
	assert_int_equal(b.state, RK_CM_CLOSED);
	assert_int_equal(rk_cm_decode(out, sizeof(out), &m), 0);
	assert_int_equal(m.hdr.attr_id, RK_CM_REJ);
	assert_int_equal(m.rej.reason, RK_CM_REJ_INVALID_MTU);
	assert_true(rk_cm_conn_match(&a, &m));
	assert_int_equal(rk_cm_rx(&a, &m, 1, out), RK_CM_EV_REJECTED);
	assert_int_equal(a.rej_reason, RK_CM_REJ_INVALID_MTU);
	assert_string_equal(rk_cm_rej_reason_name(a.rej_reason), "invalid path MTU");

	/* The same MTU on both sides, and a passive side that names none. */
	for (int any = 0; any < 2; any++) {
		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		pb.path_mtu = any ? 0 : 5;
		assert_int_equal(rk_cm_connect(&a, &pa, 1, &ip, 5, 6, 0, out), RK_CM_SEND);
		assert_int_equal(rk_cm_decode(out, sizeof(out), &m), 0);
		assert_int_equal(rk_cm_listen_req(&b, &m, 9, 0), RK_CM_EV_REQ);
		assert_int_equal(rk_cm_accept(&b, &pb, 0, out), RK_CM_SEND);
		assert_int_equal(b.local.path_mtu, 5);
	}
}

/*
 * The REJ reasons lib/cm names are IBTA's numbers (Vol1 12.6.7.2), as the
 * full table in lib/wire has them: timeout is 4 and an invalid
 * Communication ID 6 (not 1 and 5, which are "no QP" and "unsupported").
 */
static void
test_rej_reason_numbers(void **state)
{
	static const uint16_t used[] = { RK_CM_REJ_NO_RESOURCES, RK_CM_REJ_TIMEOUT,
					 RK_CM_REJ_INVALID_COMM_ID,
					 RK_CM_REJ_INVALID_SERVICE_ID, RK_CM_REJ_STALE_CONN,
					 RK_CM_REJ_INVALID_MTU, RK_CM_REJ_CONSUMER_REJECT };

	(void)state;
	for (size_t i = 0; i < sizeof(used) / sizeof(used[0]); i++) {
		const char *ours = rk_cm_rej_reason_name(used[i]);
		const char *ibta = rk_mad_cm_rej_reason_name(used[i]);

		assert_non_null(ibta);
		/* Ours may add a hint after the name: compare the name. */
		assert_int_equal(strncasecmp(ours, ibta, strlen(ibta) < strlen(ours) ?
					     strlen(ibta) : strlen(ours)), 0);
	}
	assert_string_equal(rk_cm_rej_reason_name(3), "no resources available");
	assert_string_equal(rk_cm_rej_reason_name(4), "timeout");
	assert_string_equal(rk_cm_rej_reason_name(6), "invalid communication ID");
	assert_string_equal(rk_cm_rej_reason_name(1), "other reason");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_req),
		cmocka_unit_test(test_rej_reason_numbers),
		cmocka_unit_test(test_decode_rep_rtu_dreq),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_passive_vs_rxe),
		cmocka_unit_test(test_active_vs_rxe),
		cmocka_unit_test(test_req_traffic_class),
		cmocka_unit_test(test_crossing_dreq_vs_rxe),
		cmocka_unit_test(test_pair),
		cmocka_unit_test(test_reject_and_timeout),
		cmocka_unit_test(test_rep_wait_from_req),
		cmocka_unit_test(test_drep_unknown),
		cmocka_unit_test(test_mtu_negotiation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
