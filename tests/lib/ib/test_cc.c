/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Congestion control in the engine (rk_ib_qp_set_cc, rk_cc_dcqcn.h):
 * E1, the NP answers CE-marked requests with byte-exact CNPs, at most one
 * per QP per min_time_between_cnps, none for Not-ECT or ECT packets; the
 * RP counts CNPs handled and ignored; the pacer spaces frames at R_C on a
 * simulated link. Time is the harness's virtual clock.
 */
#include <errno.h>
#include <string.h>

#include "rk_test.h"

#include "rk_cc_dcqcn.h"
#include "rk_eth.h"
#include "rk_ib_harness.h"
#include "rk_ipv4.h"

static struct harness H;

#define NPKT 20

/* The CNP b must send to a, every byte (Annex A17.9.3). */
static uint32_t
expected_cnp(uint8_t *e, uint16_t p_key)
{
	uint32_t qpn = rk_ib_qp_num(H.a.qp), bqpn = rk_ib_qp_num(H.b.qp);
	uint16_t sport = (uint16_t)(0xc000 | ((bqpn * 0x9e37u) & 0x3fff));
	uint8_t *ip = e + 14, *udp = ip + 20, *bth = udp + 8;

	memset(e, 0, 74);
	memcpy(e, H.a.mac, 6);
	memcpy(e + 6, H.b.mac, 6);
	e[12] = 0x08; e[13] = 0x00;
	ip[0] = 0x45;
	ip[1] = 48 << 2;                        /* DSCP cnp_dscp 48, ECN Not-ECT */
	ip[2] = 0; ip[3] = 60;                  /* 20 + 8 + 12 + 16 + 4 */
	ip[6] = 0x40;                           /* DF */
	ip[8] = 64; ip[9] = 17;
	memcpy(ip + 12, H.b.ip + 12, 4);
	memcpy(ip + 16, H.a.ip + 12, 4);
	rk_ipv4_fill_csum(ip);
	udp[0] = (uint8_t)(sport >> 8); udp[1] = (uint8_t)sport;
	udp[2] = 0x12; udp[3] = 0xb7;           /* 4791 */
	udp[4] = 0; udp[5] = 40;                /* 8 + 12 + 16 + 4; checksum 0 */
	bth[0] = 0x81;                          /* CNP; SE, M, PadCnt, TVer 0 */
	bth[2] = (uint8_t)(p_key >> 8); bth[3] = (uint8_t)p_key;
	bth[5] = (uint8_t)(qpn >> 16); bth[6] = (uint8_t)(qpn >> 8); bth[7] = (uint8_t)qpn;
	/* A 0, PSN 0, then 16 reserved zero bytes: already zero. */
	rk_put_le32(e + 70, rk_rocev2_icrc(ip, 56));
	return 74;
}

static void
set_ecn(struct h_frame *f, uint8_t ecn)
{
	uint8_t *ip = f->data + RK_ETH_HLEN;

	ip[1] = (uint8_t)((ip[1] & ~3u) | ecn);
	rk_ipv4_fill_csum(ip);          /* the ICRC masks the TOS byte: still valid */
}

/*
 * 20 one-packet WRITEs reach b 500 ns apart from t = 1 us; packets
 * 2..17 (2 .. 9.5 us) are CE, 0 Not-ECT, 1 and 18, 19 ECT(0).
 * @return CNPs b sent, each compared byte for byte.
 */
static unsigned int
np_run(uint32_t interval_us)
{
	struct rk_dcqcn_params p;
	struct h_frame data[NPKT], e;
	unsigned int cnps = 0;
	uint16_t p_key;

	h_init(&H, &(struct h_opts){ .mtu = RK_MTU_1024, .window = 64 });
	assert_int_equal(rk_dcqcn_profile("nvidia-default", &p), 0);
	p.min_time_between_cnps = interval_us;
	assert_int_equal(rk_ib_qp_set_cc(H.b.qp, "dcqcn", &p, 100000), 0);
	for (int i = 0; i < NPKT; i++)
		assert_int_equal(h_post_send(&H.a, (uint64_t)i, RK_WR_RDMA_WRITE, 0, 64,
					     h_va(&H.b, 0), rk_ib_mr_rkey(H.b.mr), 0), 0);
	assert_int_equal(h_tx(&H, &H.a), NPKT);
	memcpy(data, H.q, sizeof(data));
	p_key = (uint16_t)(data[0].data[RK_ETH_HLEN + 20 + 8 + 2] << 8 |
			   data[0].data[RK_ETH_HLEN + 20 + 8 + 3]);
	e.len = expected_cnp(e.data, p_key);
	for (int i = 0; i < NPKT; i++) {
		set_ecn(&data[i], i == 0 ? RK_ECN_NOT_ECT : i >= 2 && i <= 17 ? 3 : RK_ECN_ECT0);
		H.now = 1000 + (uint64_t)i * 500;
		h_rx(&H, &H.b, &data[i]);
		h_tx(&H, &H.b);
		for (unsigned int k = 0; k < H.n; k++) {
			if (h_opcode(&H.q[k]) != RK_OP_CNP)
				continue;
			assert_true(i >= 2 && i <= 17);
			assert_int_equal(H.q[k].len, e.len);
			assert_memory_equal(H.q[k].data, e.data, e.len);
			/* The project's own parser: a valid ICRC and no finding on it. */
			{
				struct rk_pkt pk;

				h_parse(&H.q[k], &pk);
				assert_int_equal(pk.icrc_status, RK_ICRC_GOOD);
				assert_int_equal(pk.findings.count, 0);
			}
			cnps++;
		}
	}
	assert_int_equal(rk_ib_qp_stats(H.b.qp)->np_cnp_sent, cnps);
	assert_int_equal(rk_ib_qp_stats(H.b.qp)->np_ecn_marked_roce_packets, 16);
	assert_int_equal(rk_ib_dev_stats(H.b.dev)->np_cnp_sent, cnps);
	return cnps;
}

static void
test_np_cnp_4us(void **state)
{
	(void)state;
	/* CE from 2 us: CNPs at 2 and 6 us (10 us would be next, after the last mark). */
	assert_int_equal(np_run(4), 2);
	h_fini(&H);
}

static void
test_np_cnp_50us(void **state)
{
	(void)state;
	assert_int_equal(np_run(50), 1);
	h_fini(&H);
}

/* Without congestion control ("none") the same marks give no CNP at all. */
static void
test_none_no_cnp(void **state)
{
	struct h_frame data[NPKT];

	(void)state;
	h_init(&H, &(struct h_opts){ .mtu = RK_MTU_1024, .window = 64 });
	assert_int_equal(rk_ib_qp_set_cc(H.b.qp, "none", NULL, 0), 0);
	assert_int_equal(rk_ib_qp_set_cc(H.b.qp, "bogus", NULL, 1), -ENOENT);
	assert_int_equal(rk_ib_qp_set_cc(H.b.qp, "dcqcn", NULL, 0), -EINVAL);
	assert_int_equal(rk_ib_qp_set_cc(NULL, "dcqcn", NULL, 1000), -EINVAL);
	for (int i = 0; i < 4; i++)
		assert_int_equal(h_post_send(&H.a, (uint64_t)i, RK_WR_RDMA_WRITE, 0, 64,
					     h_va(&H.b, 0), rk_ib_mr_rkey(H.b.mr), 0), 0);
	assert_int_equal(h_tx(&H, &H.a), 4);
	memcpy(data, H.q, 4 * sizeof(data[0]));
	for (int i = 0; i < 4; i++) {
		set_ecn(&data[i], 3);
		h_rx(&H, &H.b, &data[i]);
		h_tx(&H, &H.b);
		for (unsigned int k = 0; k < H.n; k++)
			assert_int_not_equal(h_opcode(&H.q[k]), RK_OP_CNP);
	}
	assert_int_equal(rk_ib_dev_stats(H.b.dev)->np_cnp_sent, 0);
	h_fini(&H);
}

/* b's CNPs reach a's RP: one handled, the next inside 4 us ignored. */
static void
test_rp_counts(void **state)
{
	struct h_frame cnp[2];
	struct rk_dcqcn_rp *rp;

	(void)state;
	np_run(0);              /* every CE packet gets a CNP */
	assert_int_equal(rk_ib_qp_set_cc(H.a.qp, "dcqcn", NULL, 100000), 0);
	rp = rk_ib_qp_dcqcn_rp(H.a.qp);
	assert_non_null(rp);
	memset(cnp, 0, sizeof(cnp));
	/* b's real CNP: one more CE packet from a. */
	assert_int_equal(h_post_send(&H.a, 99, RK_WR_RDMA_WRITE, 0, 64, h_va(&H.b, 0),
				     rk_ib_mr_rkey(H.b.mr), 0), 0);
	H.now = 100000;
	assert_int_equal(h_tx(&H, &H.a), 1);
	set_ecn(&H.q[0], 3);
	cnp[1] = H.q[0];
	h_rx(&H, &H.b, &cnp[1]);
	h_tx(&H, &H.b);
	for (unsigned int k = 0; k < H.n; k++)
		if (h_opcode(&H.q[k]) == RK_OP_CNP)
			cnp[0] = H.q[k];
	assert_int_equal(h_opcode(&cnp[0]), RK_OP_CNP);
	h_rx(&H, &H.a, &cnp[0]);
	assert_int_equal(rk_ib_qp_stats(H.a.qp)->rp_cnp_handled, 1);
	assert_true(rp->rc_kbps < 100000000);
	H.now += 2000;
	h_rx(&H, &H.a, &cnp[0]);
	assert_int_equal(rk_ib_qp_stats(H.a.qp)->rp_cnp_ignored, 1);
	assert_int_equal(rk_ib_dev_stats(H.a.dev)->rp_cnp_handled, 1);
	h_fini(&H);
}

/* The pacer: 1000-byte WRITEs at 1 Gb/s leave one frame length * 8 ns apart. */
static void
test_pacer_link(void **state)
{
	uint64_t prev = 0;
	unsigned int sent = 0;

	(void)state;
	h_init(&H, &(struct h_opts){ .mtu = RK_MTU_1024, .window = 64 });
	assert_int_equal(rk_ib_qp_set_cc(H.a.qp, "dcqcn", NULL, 1000), 0);
	for (int i = 0; i < 8; i++)
		assert_int_equal(h_post_send(&H.a, (uint64_t)i, RK_WR_RDMA_WRITE, 0, 1000,
					     h_va(&H.b, 0), rk_ib_mr_rkey(H.b.mr), 0), 0);
	H.now = 0;
	while (sent < 8) {
		unsigned int n = h_tx(&H, &H.a);

		if (n > 0) {
			/* 14 + 20 + 8 + 12 + 16 + 1000 + 4 = 1074 bytes: 8592 ns at 1 Gb/s. */
			assert_int_equal(n, 1);
			assert_int_equal(H.q[0].len, 1074);
			if (sent > 0)
				assert_int_equal(H.now - prev, 8592);
			prev = H.now;
			sent++;
			continue;
		}
		H.now = rk_ib_next_timer(H.a.dev);
		assert_true(H.now != UINT64_MAX);
		rk_ib_timers(H.a.dev, H.now);
	}
	h_fini(&H);
}

/*
 * For a READ the responses are the data: the requester is the NP. CE on
 * READ responses makes it send a CNP to the responder's QP (one per
 * min_time_between_cnps), and none when they are not marked. Found
 * missing: only CE-marked requests were answered.
 */
static void
test_np_read_responses(void **state)
{
	struct rk_dcqcn_params p;

	(void)state;
	for (int ce = 0; ce < 2; ce++) {
		struct h_frame resp[4];
		unsigned int n, cnps = 0;

		h_init(&H, &(struct h_opts){ .mtu = RK_MTU_1024, .window = 64 });
		assert_int_equal(rk_dcqcn_profile("nvidia-default", &p), 0);
		assert_int_equal(rk_ib_qp_set_cc(H.a.qp, "dcqcn", &p, 100000), 0);
		assert_int_equal(h_post_send(&H.a, 1, RK_WR_RDMA_READ, 0, 4096, h_va(&H.b, 0),
					     rk_ib_mr_rkey(H.b.mr), 0), 0);
		assert_int_equal(h_tx(&H, &H.a), 1);
		h_rx_all(&H, &H.b);
		n = h_tx(&H, &H.b);
		assert_int_equal(n, 4);
		memcpy(resp, H.q, sizeof(resp));
		for (unsigned int i = 0; i < 4; i++) {
			assert_int_equal(h_opcode(&resp[i]), i == 0 ? RK_OP_RDMA_READ_RESPONSE_FIRST :
					 i == 3 ? RK_OP_RDMA_READ_RESPONSE_LAST :
					 RK_OP_RDMA_READ_RESPONSE_MIDDLE);
			set_ecn(&resp[i], ce ? 3 : RK_ECN_ECT0);
			H.now = 1000 + i * 100;         /* within one CNP interval */
			h_rx(&H, &H.a, &resp[i]);
			h_tx(&H, &H.a);
			for (unsigned int k = 0; k < H.n; k++) {
				struct rk_pkt pk;

				if (h_opcode(&H.q[k]) != RK_OP_CNP)
					continue;
				h_parse(&H.q[k], &pk);
				assert_int_equal(pk.icrc_status, RK_ICRC_GOOD);
				assert_int_equal(pk.findings.count, 0);
				/* To the responder's QP (Annex A17.9.3). */
				assert_int_equal(rk_bth_dest_qp(pk.frame + pk.bth_off),
						 rk_ib_qp_num(H.b.qp));
				cnps++;
			}
		}
		assert_int_equal(cnps, ce ? 1 : 0);
		assert_int_equal(rk_ib_qp_stats(H.a.qp)->np_ecn_marked_roce_packets, ce ? 4 : 0);
		h_fini(&H);
	}
}

/*
 * The RP paces READ responses as it paces requests: a responder at R_C
 * 1 Gb/s sends a 4000-byte READ's four responses each one frame time
 * (bytes x 8 ns) after the previous. Found missing: they left at once.
 */
static void
test_pacer_read_responses(void **state)
{
	uint64_t prev = 0;
	uint32_t prev_len = 0;
	unsigned int sent = 0;

	(void)state;
	h_init(&H, &(struct h_opts){ .mtu = RK_MTU_1024, .window = 64 });
	assert_int_equal(rk_ib_qp_set_cc(H.b.qp, "dcqcn", NULL, 1000), 0);
	assert_int_equal(h_post_send(&H.a, 1, RK_WR_RDMA_READ, 0, 4000, h_va(&H.b, 0),
				     rk_ib_mr_rkey(H.b.mr), 0), 0);
	H.now = 0;
	assert_int_equal(h_tx(&H, &H.a), 1);
	h_rx_all(&H, &H.b);
	while (sent < 4) {
		unsigned int n = h_tx(&H, &H.b);

		if (n > 0) {
			assert_int_equal(n, 1);
			if (sent > 0)
				assert_int_equal(H.now - prev, (uint64_t)prev_len * 8);
			prev = H.now;
			prev_len = H.q[0].len;
			sent++;
			continue;
		}
		H.now = rk_ib_next_timer(H.b.dev);
		assert_true(H.now != UINT64_MAX);
		rk_ib_timers(H.b.dev, H.now);
	}
	h_fini(&H);
}

/* DCQCN is refused on UD QPs (a CNP would need each sender's address). */
static uint8_t
ecn_of(const struct h_frame *f)
{
	return f->data[RK_ETH_HLEN + 1] & 3;
}

/*
 * Every frame @p from sends, 1 us of virtual time apart (the pacer lets one
 * go at a time), delivered to @p to; each must carry ECN @p ecn.
 * @return the frames.
 */
static unsigned int
paced(struct h_side *from, struct h_side *to, uint8_t ecn)
{
	unsigned int n = 0;

	for (int round = 0; round < 16; round++) {
		unsigned int k = h_tx(&H, from);

		for (unsigned int i = 0; i < k; i++)
			assert_int_equal(ecn_of(&H.q[i]), ecn);
		h_rx_all(&H, to);
		n += k;
		H.now += 1000;
	}
	return n;
}

/*
 * Under DCQCN the data is ECN-capable, so a switch marks it CE instead
 * of dropping it: a's WRITE requests and b's READ responses go ECT(0);
 * b's ACKs stay Not-ECT, and without congestion control everything is
 * Not-ECT (found when the NP could never see a mark from a real switch).
 */
static void
test_data_ect(void **state)
{
	struct rk_dcqcn_params p;

	(void)state;
	for (int cc = 0; cc < 2; cc++) {
		uint8_t want = cc ? RK_ECN_ECT0 : RK_ECN_NOT_ECT;

		h_init(&H, &(struct h_opts){ .mtu = RK_MTU_1024, .window = 64 });
		assert_int_equal(rk_dcqcn_profile("paper", &p), 0);
		if (cc) {
			assert_int_equal(rk_ib_qp_set_cc(H.a.qp, "dcqcn", &p, 100000), 0);
			assert_int_equal(rk_ib_qp_set_cc(H.b.qp, "dcqcn", &p, 100000), 0);
		}
		assert_int_equal(h_post_send(&H.a, 1, RK_WR_RDMA_WRITE, 0, 3000, h_va(&H.b, 0),
					     rk_ib_mr_rkey(H.b.mr), 0), 0);
		assert_int_equal(paced(&H.a, &H.b, want), 3);   /* the WRITE's packets */
		assert_int_equal(paced(&H.b, &H.a, RK_ECN_NOT_ECT), 1);  /* its ACK */
		/* a READ of 2048 bytes: its request, and b's two responses */
		assert_int_equal(h_post_send(&H.a, 2, RK_WR_RDMA_READ, 4096, 2048, h_va(&H.b, 0),
					     rk_ib_mr_rkey(H.b.mr), 0), 0);
		assert_int_equal(paced(&H.a, &H.b, want), 1);
		assert_int_equal(paced(&H.b, &H.a, want), 2);
		h_fini(&H);
	}
}

static void
test_ud_refused(void **state)
{
	(void)state;
	h_init(&H, &(struct h_opts){ .type = RK_QPT_UD });
	assert_int_equal(rk_ib_qp_set_cc(H.a.qp, "dcqcn", NULL, 1000), -EOPNOTSUPP);
	assert_null(rk_ib_qp_dcqcn_rp(H.a.qp));
	assert_int_equal(rk_ib_qp_set_cc(H.a.qp, "none", NULL, 0), 0);
	h_fini(&H);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_np_cnp_4us),
		cmocka_unit_test(test_np_cnp_50us),
		cmocka_unit_test(test_none_no_cnp),
		cmocka_unit_test(test_rp_counts),
		cmocka_unit_test(test_pacer_link),
		cmocka_unit_test(test_np_read_responses),
		cmocka_unit_test(test_pacer_read_responses),
		cmocka_unit_test(test_data_ect),
		cmocka_unit_test(test_ud_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
