/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the per-QP analysis (lib/analysis/rk_insp_flow.c): PSN
 * gaps, duplicates and go-back-N episodes, READ PSN reservation (known,
 * inferred and unknown PMTU), 24-bit wrap, coalesced ACKs, READ responses,
 * the stateful findings msg.length.mismatch / msg.opcode.sequence, and
 * packets that show up late (reordered) told from retransmissions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rk_insp_flow.h"
#include "rk_insp_flow_int.h"
#include "rk_insp_hash.h"
#include "rk_insp_tcp.h"
#include "rk_psn.h"
#include "rk_opcode.h"
#include "rk_xeth.h"

#define QP_B 0x000011   /* DestQP of A -> B packets */
#define QP_A 0x000022   /* DestQP of B -> A packets */

static uint64_t frame_no;

static void
set_v4(uint8_t *a, uint8_t last)
{
	memset(a, 0, 16);
	a[10] = 0xff;
	a[11] = 0xff;
	a[12] = 10;
	a[15] = last;
}

/* A packet from host A (10.0.0.1) to B (10.0.0.2), or back when @p back. */
static struct rk_insp_roce
pkt(bool back, uint8_t op, uint32_t psn, uint32_t payload)
{
	struct rk_insp_roce r;
	const struct rk_opcode_info *oi = rk_opcode_info(op);

	memset(&r, 0, sizeof(r));
	set_v4(r.key.src, back ? 2 : 1);
	set_v4(r.key.dst, back ? 1 : 2);
	r.key.dest_qp = back ? QP_A : QP_B;
	r.key.kind = RK_PKT_ROCEV2;
	r.frame = ++frame_no;
	r.opcode = op;
	r.opflags = oi->flags;
	r.transport = oi->transport;
	r.psn = psn & RK_PSN_MASK;
	r.payload_len = payload;
	r.wirelen = 58 + payload;
	r.icrc = RK_ICRC_GOOD;
	r.has_reth = (oi->hdrs >> RK_HDR_RETH) & 1;
	r.has_aeth = (oi->hdrs >> RK_HDR_AETH) & 1;
	return r;
}

struct fx {
	struct rk_insp_flows t;
	struct rk_findings found;
	struct rk_insp_seq_result res;
};

static struct rk_insp_flow *
feed(struct fx *x, const struct rk_insp_roce *r)
{
	struct rk_insp_flow *f;

	memset(&x->found, 0, sizeof(x->found));
	f = rk_insp_flow_packet(&x->t, r, &x->found, &x->res);
	assert_non_null(f);
	rk_insp_flow_count_findings(f, &x->found);
	return f;
}

static struct rk_insp_flow *
send_op(struct fx *x, bool back, uint8_t op, uint32_t psn, uint32_t payload)
{
	struct rk_insp_roce r = pkt(back, op, psn, payload);

	return feed(x, &r);
}

static struct rk_insp_flow *
reth_op(struct fx *x, bool back, uint8_t op, uint32_t psn, uint32_t payload,
	uint32_t dma_len)
{
	struct rk_insp_roce r = pkt(back, op, psn, payload);

	r.dma_len = dma_len;
	return feed(x, &r);
}

static struct rk_insp_flow *
aeth_op(struct fx *x, bool back, uint8_t op, uint32_t psn, uint32_t payload,
	uint8_t syndrome, uint32_t msn)
{
	struct rk_insp_roce r = pkt(back, op, psn, payload);

	r.syndrome = syndrome;
	r.msn = msn;
	return feed(x, &r);
}

static int
setup(void **state)
{
	static struct fx x;

	memset(&x, 0, sizeof(x));
	assert_int_equal(rk_insp_flows_init(&x.t, NULL), 0);
	*state = &x;
	return 0;
}

static int
setup_pmtu1024(void **state)
{
	static struct fx x;
	struct rk_insp_flow_opts o = { .pmtu = 1024 };

	memset(&x, 0, sizeof(x));
	assert_int_equal(rk_insp_flows_init(&x.t, &o), 0);
	*state = &x;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *x = *state;

	rk_insp_flows_fini(&x->t);
	return 0;
}

/*
 * The hash of an address pair spreads over the low bits the tables index
 * by: the 4032 ordered pairs of 64 IPv4 hosts in one /24 (mapped form:
 * they differ in the last byte only) over 4096 buckets, no chain longer
 * than 8 (a uniform hash gives about 6).
 */
static void
test_hash_spreads_ipv4_pairs(void **state)
{
	static uint16_t chain[4096];
	uint8_t a[16] = { [10] = 0xff, [11] = 0xff, [12] = 198, [13] = 18 };
	uint8_t b[16];
	unsigned int longest = 0;

	(void)state;
	memcpy(b, a, sizeof(b));
	for (unsigned int i = 1; i <= 64; i++)
		for (unsigned int j = 1; j <= 64; j++) {
			uint64_t h;

			if (i == j)
				continue;
			a[15] = (uint8_t)i;
			b[15] = (uint8_t)j;
			h = rk_insp_hash_addr(rk_insp_hash_addr(0x452821e638d01377ull, a), b);
			if (++chain[h & 4095] > longest)
				longest = chain[h & 4095];
		}
	assert_in_range(longest, 1, 8);
}

static void
test_psn_helpers(void **state)
{
	(void)state;
	assert_int_equal(rk_psn_diff(5, 3), 2);
	assert_int_equal(rk_psn_diff(3, 5), -2);
	assert_int_equal(rk_psn_diff(0, 0xffffff), 1);
	assert_int_equal(rk_psn_diff(0xffffff, 0), -1);
	assert_int_equal(rk_psn_diff(0x7fffff, 0), 0x7fffff);
	assert_int_equal(rk_psn_diff(0x800000, 0), -0x800000);
	assert_int_equal(rk_psn_add(0xffffff, 2), 1);
	assert_int_equal(rk_insp_seq_diff(1, 0xffffffffu), 2);
}

static void
test_in_order(void **state)
{
	struct fx *x = *state;
	struct rk_insp_flow *f = NULL;

	for (uint32_t p = 100; p < 110; p++) {
		f = send_op(x, false, RK_OP_SEND_ONLY, p, 64);
		assert_int_equal(x->res.note, p == 100 ? RK_INSP_SEQ_FIRST : RK_INSP_SEQ_IN_ORDER);
	}
	assert_int_equal(f->packets, 10);
	assert_int_equal(f->messages, 10);
	assert_int_equal(f->req.first, 100);
	assert_int_equal(f->req.last, 109);
	assert_int_equal(f->req.gaps, 0);
	assert_int_equal(f->req.duplicates, 0);
	assert_int_equal(x->t.nflows, 1);
}

static void
test_gap(void **state)
{
	struct fx *x = *state;
	struct rk_insp_flow *f;

	send_op(x, false, RK_OP_SEND_ONLY, 10, 8);
	send_op(x, false, RK_OP_SEND_ONLY, 11, 8);
	f = send_op(x, false, RK_OP_SEND_ONLY, 15, 8);
	assert_int_equal(x->res.note, RK_INSP_SEQ_GAP);
	assert_int_equal(x->res.missing, 3);
	assert_int_equal(x->res.expected, 12);
	f = send_op(x, false, RK_OP_SEND_ONLY, 16, 8);
	assert_int_equal(x->res.note, RK_INSP_SEQ_IN_ORDER);
	assert_int_equal(f->req.gaps, 1);
	assert_int_equal(f->req.missing, 3);
	assert_int_equal(f->req.duplicates, 0);
}

static void
test_go_back_n(void **state)
{
	struct fx *x = *state;
	struct rk_insp_flow *f = NULL;

	for (uint32_t p = 0; p < 6; p++)
		send_op(x, false, RK_OP_RDMA_WRITE_ONLY, p, 0);
	/* NAK-SEQ for 3 on the reverse QP, then 3, 4, 5 again, then new. */
	aeth_op(x, true, RK_OP_ACKNOWLEDGE, 3, 0, RK_AETH_TYPE_NAK | RK_AETH_NAK_PSN_SEQ_ERR, 7);
	f = send_op(x, false, RK_OP_RDMA_WRITE_ONLY, 3, 0);
	assert_int_equal(x->res.note, RK_INSP_SEQ_DUP);
	assert_true(x->res.rtx_start);
	send_op(x, false, RK_OP_RDMA_WRITE_ONLY, 4, 0);
	assert_int_equal(x->res.note, RK_INSP_SEQ_DUP);
	assert_false(x->res.rtx_start);
	send_op(x, false, RK_OP_RDMA_WRITE_ONLY, 5, 0);
	send_op(x, false, RK_OP_RDMA_WRITE_ONLY, 6, 0);
	assert_int_equal(x->res.note, RK_INSP_SEQ_IN_ORDER);
	/* A second episode: back to 5. */
	send_op(x, false, RK_OP_RDMA_WRITE_ONLY, 5, 0);
	assert_true(x->res.rtx_start);
	assert_int_equal(f->req.duplicates, 4);
	assert_int_equal(f->req.rtx_episodes, 2);
	assert_int_equal(f->req.gaps, 0);
	assert_int_equal(f->messages, 7);   /* retransmissions are not new messages */
	{
		struct rk_insp_roce back = pkt(true, RK_OP_ACKNOWLEDGE, 0, 0);

		f = rk_insp_flow_find(&x->t, &back.key);
	}
	assert_non_null(f);
	assert_int_equal(f->naks_total, 1);
	assert_int_equal(f->naks[RK_AETH_NAK_PSN_SEQ_ERR], 1);
	assert_int_equal(f->acks, 0);
}

/* WRITE messages of 4 packets (FIRST, MIDDLE, MIDDLE, LAST) from @p base,
 * PSNs [from, to), skipping the PSNs in @p skip. */
static struct rk_insp_flow *
write_run(struct fx *x, uint32_t base, uint32_t from, uint32_t to,
	  const uint32_t *skip, size_t nskip)
{
	static const uint8_t ops[4] = { RK_OP_RDMA_WRITE_FIRST, RK_OP_RDMA_WRITE_MIDDLE,
					RK_OP_RDMA_WRITE_MIDDLE, RK_OP_RDMA_WRITE_LAST };
	struct rk_insp_flow *f = NULL;

	for (uint32_t p = from; p != to; p = rk_psn_add(p, 1)) {
		uint32_t i = (uint32_t)rk_psn_diff(p, base) & 3;
		bool drop = false;

		for (size_t k = 0; k < nskip; k++)
			drop |= skip[k] == p;
		if (drop)
			continue;
		if (i == 0)
			f = reth_op(x, false, ops[i], p, 1024, 4096);
		else
			f = send_op(x, false, ops[i], p, 1024);
	}
	return f;
}

/*
 * A go-back-N run that stops mid-message (the rest had arrived, an ACK
 * covered it) must not leave the opcode sequence "inside a message" for
 * the next first transmission, a new FIRST.
 */
static void
test_rtx_run_stops_mid_message(void **state)
{
	struct fx *x = *state;
	const uint32_t base = 100;
	struct rk_insp_flow *f;

	f = write_run(x, base, base, base + 8, NULL, 0);
	/* Retransmission of PSNs 105, 106: FIRST+1 and +2 of the second message. */
	send_op(x, false, RK_OP_RDMA_WRITE_MIDDLE, base + 5, 1024);
	assert_true(x->res.rtx_start);
	send_op(x, false, RK_OP_RDMA_WRITE_MIDDLE, base + 6, 1024);
	assert_int_equal(x->found.count, 0);
	/* The next new message starts. */
	f = reth_op(x, false, RK_OP_RDMA_WRITE_FIRST, base + 8, 1024, 4096);
	assert_int_equal(x->res.note, RK_INSP_SEQ_IN_ORDER);
	assert_false(rk_findings_has(&x->found, RK_F_MSG_OPCODE_SEQUENCE));
	f = write_run(x, base, base + 9, base + 12, NULL, 0);
	assert_int_equal(f->findings[RK_F_MSG_OPCODE_SEQUENCE], 0);
	assert_int_equal(f->messages, 3);
}

/*
 * A re-issued READ is answered from its PSN with the opcodes of the
 * original stream (MIDDLE, LAST), after responses with higher PSNs were
 * already seen: no opcode-sequence finding. A MIDDLE right after a LAST is.
 */
static void
test_read_replay_starts_with_middle(void **state)
{
	struct fx *x = *state;

	/* READ 1 (200..203) loses 202; READ 2 (204..208) loses 207 and 208. */
	aeth_op(x, true, RK_OP_RDMA_READ_RESPONSE_FIRST, 200, 1024, 0, 1);
	send_op(x, true, RK_OP_RDMA_READ_RESPONSE_MIDDLE, 201, 1024);
	aeth_op(x, true, RK_OP_RDMA_READ_RESPONSE_LAST, 203, 1024, 0, 1);
	aeth_op(x, true, RK_OP_RDMA_READ_RESPONSE_FIRST, 204, 1024, 0, 2);
	send_op(x, true, RK_OP_RDMA_READ_RESPONSE_MIDDLE, 205, 1024);
	send_op(x, true, RK_OP_RDMA_READ_RESPONSE_MIDDLE, 206, 1024);
	/* Replays of the re-issued READs, with the original opcodes. */
	send_op(x, true, RK_OP_RDMA_READ_RESPONSE_MIDDLE, 202, 1024);
	aeth_op(x, true, RK_OP_RDMA_READ_RESPONSE_LAST, 203, 1024, 0, 1);
	send_op(x, true, RK_OP_RDMA_READ_RESPONSE_MIDDLE, 207, 1024);
	assert_false(rk_findings_has(&x->found, RK_F_MSG_OPCODE_SEQUENCE));
	aeth_op(x, true, RK_OP_RDMA_READ_RESPONSE_LAST, 208, 1024, 0, 2);
	/* A MIDDLE right after that LAST has no FIRST. */
	send_op(x, true, RK_OP_RDMA_READ_RESPONSE_MIDDLE, 209, 1024);
	assert_true(rk_findings_has(&x->found, RK_F_MSG_OPCODE_SEQUENCE));
}

/*
 * Loss inside go-back-N runs (the pattern of rxe_write_bw_loss5.pcap, at a
 * 24-bit wrap): a forward skip inside a retransmission run is a loss, not
 * a new episode; only a jump back starts one.
 */
static void
test_loss_inside_go_back(void **state)
{
	struct fx *x = *state;
	const uint32_t base = 0xfffff0;       /* 10 messages: wraps at PSN 16 */
	const uint32_t end = rk_psn_add(base, 40);
	const uint32_t first_lost[] = { rk_psn_add(base, 11),   /* a LAST */
					rk_psn_add(base, 22) };
	const uint32_t rtx_lost[] = { rk_psn_add(base, 14),
				      rk_psn_add(base, 17) };
	struct rk_insp_flow *f;

	f = write_run(x, base, base, end, first_lost, 2);
	assert_int_equal(f->messages, 9);
	/* Episode 1 from the first hole; two packets lost during it. */
	f = write_run(x, base, first_lost[0], rk_psn_add(base, 14), NULL, 0);
	f = write_run(x, base, rk_psn_add(base, 14), end, rtx_lost, 2);
	assert_int_equal(f->req.rtx_episodes, 1);
	assert_int_equal(f->req.rtx_missing, 2);
	assert_int_equal(f->req.rtx_gaps, 2);
	/* Episode 2 from base+16 loses base+17 as well. */
	send_op(x, false, RK_OP_RDMA_WRITE_MIDDLE, rk_psn_add(base, 16), 1024);
	assert_int_equal(x->res.note, RK_INSP_SEQ_DUP);
	assert_true(x->res.rtx_start);
	assert_int_equal(f->req.rtx_episodes, 2);
	send_op(x, false, RK_OP_RDMA_WRITE_MIDDLE, rk_psn_add(base, 18), 1024);
	assert_int_equal(x->res.note, RK_INSP_SEQ_DUP);
	assert_false(x->res.rtx_start);
	assert_int_equal(x->res.missing, 1);
	assert_int_equal(x->res.expected, rk_psn_add(base, 17));
	f = write_run(x, base, rk_psn_add(base, 19), end, NULL, 0);
	assert_int_equal(f->req.gaps, 2);
	assert_int_equal(f->req.missing, 2);
	assert_int_equal(f->req.rtx_gaps, 3);
	assert_int_equal(f->req.rtx_missing, 3);
	assert_int_equal(f->req.rtx_episodes, 2);
	/* New PSNs after the runs: in order, no loss counted. */
	reth_op(x, false, RK_OP_RDMA_WRITE_ONLY, end, 8, 8);
	assert_int_equal(x->res.note, RK_INSP_SEQ_IN_ORDER);
	/* The LAST lost at first and seen only retransmitted still counts,
	 * once: 10 WRITE messages plus the ONLY. */
	assert_int_equal(f->messages, 11);
	assert_int_equal(x->t.nflows, 1);
}

/* A message whose only captured LAST is a retransmission counts once. */
static void
test_message_counted_once_from_retransmission(void **state)
{
	struct fx *x = *state;
	struct rk_insp_flow *f;

	send_op(x, false, RK_OP_SEND_ONLY, 100, 8);
	send_op(x, false, RK_OP_SEND_ONLY, 102, 8);       /* 101 lost */
	reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 104, 0, 8); /* 103 lost */
	f = send_op(x, false, RK_OP_SEND_ONLY, 101, 8);   /* go-back */
	assert_int_equal(f->messages, 4);
	send_op(x, false, RK_OP_SEND_ONLY, 102, 8);
	reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 103, 0, 8);
	reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 104, 0, 8);
	assert_int_equal(f->messages, 5);
	assert_int_equal(f->read_requests, 2);
	/* Another episode over the same PSNs counts nothing more. */
	send_op(x, false, RK_OP_SEND_ONLY, 101, 8);
	send_op(x, false, RK_OP_SEND_ONLY, 102, 8);
	reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 103, 0, 8);
	assert_int_equal(f->messages, 5);
	assert_int_equal(f->read_requests, 2);
	assert_int_equal(f->req.rtx_episodes, 2);
	assert_int_equal(f->req.missing, 2);
}

/*
 * Many isolated losses before the first retransmission arrives (a large
 * window): every lost message counts once when its copy comes, however
 * many gaps are open at the same time.
 */
static void
test_many_open_gaps(void **state)
{
	struct fx *x = *state;
	struct rk_insp_flow *f = NULL;
	const uint32_t base = 0xffff00, n = 200;

	for (uint32_t i = 0; i < n; i++)
		if (i % 7 != 3)
			f = send_op(x, false, RK_OP_SEND_ONLY, base + i, 8);
	assert_non_null(f);
	assert_int_equal(f->messages, n - (n + 3) / 7);
	/* Go-back-N from the first missing PSN resends everything after it. */
	for (uint32_t i = 3; i < n; i++)
		f = send_op(x, false, RK_OP_SEND_ONLY, base + i, 8);
	assert_int_equal(f->messages, n);
	/* A second pass over the same PSNs adds nothing. */
	for (uint32_t i = 3; i < n; i++)
		f = send_op(x, false, RK_OP_SEND_ONLY, base + i, 8);
	assert_int_equal(f->messages, n);
}

static void
test_read_reservation_known_pmtu(void **state)
{
	struct fx *x = *state;
	struct rk_insp_flow *f;

	send_op(x, false, RK_OP_SEND_ONLY, 10, 4);
	/* 3000 bytes at PMTU 1024: PSNs 11, 12, 13. */
	reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 11, 0, 3000);
	f = send_op(x, false, RK_OP_SEND_ONLY, 14, 4);
	assert_int_equal(x->res.note, RK_INSP_SEQ_IN_ORDER);
	assert_int_equal(f->req.gaps, 0);
	/* Exactly a multiple of the PMTU: 2048 takes 2 PSNs. */
	reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 15, 0, 2048);
	f = send_op(x, false, RK_OP_SEND_ONLY, 17, 4);
	assert_int_equal(x->res.note, RK_INSP_SEQ_IN_ORDER);
	/* Zero-length READ: one PSN. */
	reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 18, 0, 0);
	f = send_op(x, false, RK_OP_SEND_ONLY, 19, 4);
	assert_int_equal(x->res.note, RK_INSP_SEQ_IN_ORDER);
	/* A READ followed by a request one PSN too far on is a gap of one. */
	reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 20, 0, 1025);
	f = send_op(x, false, RK_OP_SEND_ONLY, 23, 4);
	assert_int_equal(x->res.note, RK_INSP_SEQ_GAP);
	assert_int_equal(x->res.missing, 1);
	assert_int_equal(f->read_requests, 4);
}

static void
test_read_reservation_inferred_pmtu(void **state)
{
	struct fx *x = *state;
	struct rk_insp_flow *f;

	/* B's multi-packet SEND to A shows the host pair's PMTU (2048). */
	send_op(x, true, RK_OP_SEND_FIRST, 500, 2048);
	send_op(x, true, RK_OP_SEND_LAST, 501, 10);
	send_op(x, false, RK_OP_SEND_ONLY, 40, 4);
	reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 41, 0, 5000); /* 3 PSNs */
	f = send_op(x, false, RK_OP_SEND_ONLY, 44, 4);
	assert_int_equal(x->res.note, RK_INSP_SEQ_IN_ORDER);
	assert_int_equal(f->req.gaps, 0);
	assert_int_equal(rk_insp_flow_pmtu(&x->t, f), 2048);
}

static void
test_read_unknown_pmtu_resyncs(void **state)
{
	struct fx *x = *state;
	struct rk_insp_flow *f;

	send_op(x, false, RK_OP_SEND_ONLY, 7, 4);
	reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 8, 0, 100000);
	f = send_op(x, false, RK_OP_SEND_ONLY, 40, 4);
	assert_int_equal(x->res.note, RK_INSP_SEQ_RESYNC);
	assert_int_equal(f->req.gaps, 0);
	assert_int_equal(f->req.resyncs, 1);
	/* Back to normal tracking afterwards. */
	send_op(x, false, RK_OP_SEND_ONLY, 42, 4);
	assert_int_equal(x->res.note, RK_INSP_SEQ_GAP);
	/* A READ of at most 256 bytes takes one PSN whatever the PMTU. */
	reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 43, 0, 256);
	send_op(x, false, RK_OP_SEND_ONLY, 44, 4);
	assert_int_equal(x->res.note, RK_INSP_SEQ_IN_ORDER);
	assert_int_equal(f->req.resyncs, 1);
}

static void
test_read_spacing_teaches_pmtu(void **state)
{
	struct fx *x = *state;
	struct rk_insp_flow *f;

	/* Pipelined READs before any response: the second one shows the
	 * first one's span (16 PSNs for 16 KiB), so the PMTU is 1024. */
	reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 1000, 0, 16384);
	reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 1016, 0, 16384);
	assert_int_equal(x->res.note, RK_INSP_SEQ_RESYNC);
	f = reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 1032, 0, 16384);
	assert_int_equal(x->res.note, RK_INSP_SEQ_IN_ORDER);
	assert_int_equal(f->req.resyncs, 1);
	assert_int_equal(rk_insp_flow_pmtu(&x->t, f), 1024);
	/* From now on a missing READ is a real gap. */
	f = reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 1064, 0, 16384);
	assert_int_equal(x->res.note, RK_INSP_SEQ_GAP);
	assert_int_equal(x->res.missing, 16);
	/* A one-PSN span is ambiguous (300 bytes fit one packet at 512 to
	 * 4096): the guess of one PSN holds, nothing is learned. */
	rk_insp_flows_fini(&x->t);
	assert_int_equal(rk_insp_flows_init(&x->t, NULL), 0);
	reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 5, 0, 300);
	f = send_op(x, false, RK_OP_SEND_ONLY, 6, 4);
	assert_int_equal(x->res.note, RK_INSP_SEQ_IN_ORDER);
	assert_int_equal(rk_insp_flow_pmtu(&x->t, f), 0);
}

static void
test_psn_wrap(void **state)
{
	struct fx *x = *state;
	struct rk_insp_flow *f = NULL;
	const uint32_t seq[] = { 0xfffffe, 0xffffff, 0x000000, 0x000001 };

	for (size_t i = 0; i < 4; i++) {
		f = send_op(x, false, RK_OP_SEND_ONLY, seq[i], 4);
		assert_int_equal(x->res.note, i == 0 ? RK_INSP_SEQ_FIRST : RK_INSP_SEQ_IN_ORDER);
	}
	assert_int_equal(f->req.last, 1);
	/* Behind across the wrap: a duplicate, not a gap of 2^24 - 2. */
	send_op(x, false, RK_OP_SEND_ONLY, 0xffffff, 4);
	assert_int_equal(x->res.note, RK_INSP_SEQ_DUP);
	/* A gap across the wrap. */
	send_op(x, false, RK_OP_SEND_ONLY, 0x000002, 4);
	send_op(x, false, RK_OP_SEND_ONLY, 0xfffffd, 4);  /* far behind */
	assert_int_equal(x->res.note, RK_INSP_SEQ_DUP);
	/* READ reservation crossing the wrap. */
	reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 3, 0, 256);
	assert_int_equal(f->req.gaps, 0);
}

static void
test_read_across_wrap(void **state)
{
	struct fx *x = *state;
	struct rk_insp_flow *f;

	reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 0xfffffe, 0, 4096); /* 4 PSNs */
	f = send_op(x, false, RK_OP_SEND_ONLY, 0x000002, 4);
	assert_int_equal(x->res.note, RK_INSP_SEQ_IN_ORDER);
	assert_int_equal(f->req.gaps, 0);
}

static void
test_coalesced_acks(void **state)
{
	struct fx *x = *state;
	struct rk_insp_flow *f;

	for (uint32_t p = 0; p < 10; p++)
		send_op(x, false, RK_OP_SEND_ONLY, p, 4);
	aeth_op(x, true, RK_OP_ACKNOWLEDGE, 2, 0, 0x1f, 3);
	aeth_op(x, true, RK_OP_ACKNOWLEDGE, 6, 0, 0x1f, 7);
	f = aeth_op(x, true, RK_OP_ACKNOWLEDGE, 9, 0, 0x1f, 10);
	assert_int_equal(f->acks, 3);
	assert_int_equal(f->resp.gaps, 0);
	assert_int_equal(f->resp.duplicates, 0);
	assert_int_equal(f->resp.first, 2);
	assert_int_equal(f->resp.last, 9);
	/* RNR NAK and a re-ACK. */
	f = aeth_op(x, true, RK_OP_ACKNOWLEDGE, 9, 0, RK_AETH_TYPE_RNR_NAK | 14, 10);
	assert_int_equal(f->rnr_naks, 1);
	assert_int_equal(f->rnr_timer[14], 1);
	assert_int_equal(f->acks, 3);
	f = aeth_op(x, true, RK_OP_ACKNOWLEDGE, 9, 0, 0x1f, 10);
	assert_int_equal(f->acks, 4);
	/* Requests of B on the same flow do not disturb the response PSNs. */
	f = send_op(x, true, RK_OP_SEND_ONLY, 7000, 4);
	assert_int_equal(f->req.first, 7000);
	assert_int_equal(f->resp.last, 9);
}

static void
test_read_response_sequence(void **state)
{
	struct fx *x = *state;
	struct rk_insp_flow *f;

	reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 20, 0, 2500); /* 3 PSNs */
	aeth_op(x, true, RK_OP_RDMA_READ_RESPONSE_FIRST, 20, 1024, 0x1f, 1);
	send_op(x, true, RK_OP_RDMA_READ_RESPONSE_MIDDLE, 21, 1024);
	f = aeth_op(x, true, RK_OP_RDMA_READ_RESPONSE_LAST, 22, 452, 0x1f, 1);
	assert_int_equal(x->found.count, 0);
	assert_int_equal(f->read_resp_messages, 1);
	assert_int_equal(f->resp.gaps, 0);
	assert_int_equal(f->acks, 0);   /* READ response AETHs are not ACKs */

	/* Second READ: the MIDDLE is missing from the capture. */
	reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 23, 0, 2500);
	aeth_op(x, true, RK_OP_RDMA_READ_RESPONSE_FIRST, 23, 1024, 0x1f, 2);
	f = aeth_op(x, true, RK_OP_RDMA_READ_RESPONSE_LAST, 25, 452, 0x1f, 2);
	assert_int_equal(x->res.note, RK_INSP_SEQ_GAP);
	assert_int_equal(f->resp.gaps, 1);
	assert_int_equal(f->resp.missing, 1);
	/* The gap explains the short total: no length finding. */
	assert_int_equal(x->found.count, 0);

	/* Third READ: complete, but 100 bytes short of DMALen. */
	reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 26, 0, 1124);
	aeth_op(x, true, RK_OP_RDMA_READ_RESPONSE_FIRST, 26, 1024, 0x1f, 3);
	f = aeth_op(x, true, RK_OP_RDMA_READ_RESPONSE_LAST, 27, 0, 0x1f, 3);
	assert_true(rk_findings_has(&x->found, RK_F_MSG_LEN_MISMATCH));
	assert_int_equal(f->findings[RK_F_MSG_LEN_MISMATCH], 1);

	/* READ response ONLY of the right size. */
	reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 28, 0, 64);
	aeth_op(x, true, RK_OP_RDMA_READ_RESPONSE_ONLY, 28, 64, 0x1f, 4);
	assert_int_equal(x->found.count, 0);
	/* Replayed (duplicate READ): counted as a duplicate response. */
	aeth_op(x, true, RK_OP_RDMA_READ_RESPONSE_ONLY, 28, 64, 0x1f, 4);
	assert_int_equal(x->res.note, RK_INSP_SEQ_DUP);
}

static void
test_read_response_without_first(void **state)
{
	struct fx *x = *state;

	reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 1, 0, 64);
	aeth_op(x, true, RK_OP_RDMA_READ_RESPONSE_ONLY, 1, 64, 0x1f, 1);
	/* LAST right after a complete response, no PSN missing. */
	aeth_op(x, true, RK_OP_RDMA_READ_RESPONSE_LAST, 2, 64, 0x1f, 2);
	assert_true(rk_findings_has(&x->found, RK_F_MSG_OPCODE_SEQUENCE));
}

static void
test_write_length(void **state)
{
	struct fx *x = *state;
	struct rk_insp_flow *f;

	reth_op(x, false, RK_OP_RDMA_WRITE_FIRST, 0, 1024, 3000);
	send_op(x, false, RK_OP_RDMA_WRITE_MIDDLE, 1, 1024);
	f = send_op(x, false, RK_OP_RDMA_WRITE_LAST, 2, 952);
	assert_int_equal(x->found.count, 0);
	reth_op(x, false, RK_OP_RDMA_WRITE_FIRST, 3, 1024, 3000);
	send_op(x, false, RK_OP_RDMA_WRITE_MIDDLE, 4, 1024);
	send_op(x, false, RK_OP_RDMA_WRITE_LAST, 5, 500);
	assert_true(rk_findings_has(&x->found, RK_F_MSG_LEN_MISMATCH));
	reth_op(x, false, RK_OP_RDMA_WRITE_ONLY, 6, 10, 12);
	assert_true(rk_findings_has(&x->found, RK_F_MSG_LEN_MISMATCH));
	reth_op(x, false, RK_OP_RDMA_WRITE_ONLY, 7, 12, 12);
	assert_int_equal(x->found.count, 0);
	assert_int_equal(f->findings[RK_F_MSG_LEN_MISMATCH], 2);
	assert_int_equal(f->messages, 4);
	/* A lost MIDDLE: gap explains the length, no finding. */
	reth_op(x, false, RK_OP_RDMA_WRITE_FIRST, 8, 1024, 3000);
	send_op(x, false, RK_OP_RDMA_WRITE_LAST, 10, 952);
	assert_int_equal(x->found.count, 0);
}

static void
test_opcode_sequence(void **state)
{
	struct fx *x = *state;
	struct rk_insp_flow *f;

	/* First packet of the capture is a MIDDLE: joined mid-message. */
	send_op(x, false, RK_OP_SEND_MIDDLE, 50, 1024);
	assert_int_equal(x->found.count, 0);
	send_op(x, false, RK_OP_SEND_LAST, 51, 10);
	assert_int_equal(x->found.count, 0);
	/* MIDDLE without FIRST, in sequence. */
	send_op(x, false, RK_OP_SEND_MIDDLE, 52, 1024);
	assert_true(rk_findings_has(&x->found, RK_F_MSG_OPCODE_SEQUENCE));
	send_op(x, false, RK_OP_SEND_LAST, 53, 10);
	assert_int_equal(x->found.count, 0);
	/* New message before the LAST. */
	send_op(x, false, RK_OP_SEND_FIRST, 54, 1024);
	send_op(x, false, RK_OP_SEND_ONLY, 55, 10);
	assert_true(rk_findings_has(&x->found, RK_F_MSG_OPCODE_SEQUENCE));
	/* WRITE MIDDLE inside a SEND. */
	send_op(x, false, RK_OP_SEND_FIRST, 56, 1024);
	send_op(x, false, RK_OP_RDMA_WRITE_MIDDLE, 57, 1024);
	assert_true(rk_findings_has(&x->found, RK_F_MSG_OPCODE_SEQUENCE));
	send_op(x, false, RK_OP_RDMA_WRITE_LAST, 58, 10);
	/* A gap explains a missing FIRST. */
	send_op(x, false, RK_OP_SEND_MIDDLE, 61, 1024);
	assert_int_equal(x->found.count, 0);
	send_op(x, false, RK_OP_SEND_LAST, 62, 4);
	/* Go-back-N restarting from a MIDDLE is not a sequence error. */
	send_op(x, false, RK_OP_SEND_FIRST, 63, 1024);
	send_op(x, false, RK_OP_SEND_MIDDLE, 64, 1024);
	send_op(x, false, RK_OP_SEND_MIDDLE, 65, 1024);
	send_op(x, false, RK_OP_SEND_MIDDLE, 64, 1024);
	assert_int_equal(x->found.count, 0);
	send_op(x, false, RK_OP_SEND_MIDDLE, 65, 1024);
	assert_int_equal(x->found.count, 0);
	f = send_op(x, false, RK_OP_SEND_LAST, 66, 4);
	assert_int_equal(x->found.count, 0);
	assert_int_equal(f->findings[RK_F_MSG_OPCODE_SEQUENCE], 3);
}

/*
 * A late copy of an older message's packet lands inside a go-back-N run:
 * the run goes on where it stood, and so does its message: the run's next
 * SEND MIDDLE is no opcode sequence error (it was judged against the late
 * WRITE MIDDLE before).
 */
static void
test_late_copy_inside_run_keeps_its_message(void **state)
{
	struct fx *x = *state;
	struct rk_insp_flow *f;

	send_op(x, false, RK_OP_RDMA_WRITE_FIRST, 0, 1024);
	send_op(x, false, RK_OP_RDMA_WRITE_MIDDLE, 1, 1024);
	send_op(x, false, RK_OP_RDMA_WRITE_LAST, 2, 8);
	send_op(x, false, RK_OP_SEND_FIRST, 3, 1024);
	for (uint32_t p = 4; p < 9; p++)
		send_op(x, false, RK_OP_SEND_MIDDLE, p, 1024);
	send_op(x, false, RK_OP_SEND_LAST, 9, 8);
	/* The run from 5, then the late copy of 1, then the run goes on. */
	send_op(x, false, RK_OP_SEND_MIDDLE, 5, 1024);
	assert_true(x->res.rtx_start);
	send_op(x, false, RK_OP_SEND_MIDDLE, 6, 1024);
	send_op(x, false, RK_OP_RDMA_WRITE_MIDDLE, 1, 1024);
	assert_true(x->res.rtx_start);
	send_op(x, false, RK_OP_SEND_MIDDLE, 7, 1024);
	assert_int_equal(x->found.count, 0);
	send_op(x, false, RK_OP_SEND_MIDDLE, 8, 1024);
	assert_int_equal(x->found.count, 0);
	f = send_op(x, false, RK_OP_SEND_LAST, 9, 8);
	assert_int_equal(x->found.count, 0);
	assert_int_equal(f->findings[RK_F_MSG_OPCODE_SEQUENCE], 0);
}

static void
test_cnp_and_ud(void **state)
{
	struct fx *x = *state;
	struct rk_insp_flow *f;

	send_op(x, false, RK_OP_SEND_ONLY, 5, 4);
	f = send_op(x, false, RK_OP_CNP, 0, 0);
	assert_int_equal(f->cnps, 1);
	assert_int_equal(x->res.note, RK_INSP_SEQ_NONE);
	f = send_op(x, false, RK_OP_SEND_ONLY, 6, 4);
	assert_int_equal(x->res.note, RK_INSP_SEQ_IN_ORDER);
	assert_int_equal(f->packets, 3);
	/* UD: counted, no sequence analysis (PSNs of several senders mix). */
	f = send_op(x, true, RK_OP_TR_UD | RK_OP_SEND_ONLY, 9, 4);
	f = send_op(x, true, RK_OP_TR_UD | RK_OP_SEND_ONLY, 3, 4);
	assert_int_equal(x->res.note, RK_INSP_SEQ_NONE);
	assert_int_equal(f->messages, 2);
	assert_false(f->req.valid);
}

static void
test_counters(void **state)
{
	struct fx *x = *state;
	struct rk_insp_roce r = pkt(false, RK_OP_SEND_ONLY, 1, 100);
	struct rk_insp_flow *f;

	r.icrc = RK_ICRC_BAD;
	r.fecn = true;
	f = feed(x, &r);
	r = pkt(false, RK_OP_SEND_ONLY, 2, 100);
	r.truncated = true;
	r.icrc = RK_ICRC_NOT_CHECKED;
	f = feed(x, &r);
	assert_int_equal(f->icrc_bad, 1);
	assert_int_equal(f->truncated, 1);
	assert_int_equal(f->fecn, 1);
	assert_int_equal(rk_insp_flow_opcount(f, RK_OP_SEND_ONLY), 2);
	assert_int_equal(f->bytes, 2 * (58 + 100));
}

static void
test_many_flows(void **state)
{
	struct fx *x = *state;

	/* Enough flows to grow the hash table several times. */
	for (uint32_t q = 1; q <= 5000; q++) {
		struct rk_insp_roce r = pkt(false, RK_OP_SEND_ONLY, q, 4);

		r.key.dest_qp = q;
		feed(x, &r);
	}
	for (uint32_t q = 1; q <= 5000; q++) {
		struct rk_insp_roce r = pkt(false, RK_OP_SEND_ONLY, q + 1, 4);
		struct rk_insp_flow *f;

		r.key.dest_qp = q;
		f = feed(x, &r);
		assert_int_equal(f->packets, 2);
		assert_int_equal(x->res.note, RK_INSP_SEQ_IN_ORDER);
	}
	assert_int_equal(x->t.nflows, 5000);
}

/* Past max_flows, new flows are counted, not tracked; known ones go on. */
static void
test_max_flows(void **state)
{
	struct fx *x = *state;
	struct rk_insp_flow_opts o = { .max_flows = 100 };
	struct rk_insp_flow *f;

	rk_insp_flows_fini(&x->t);
	assert_int_equal(rk_insp_flows_init(&x->t, &o), 0);
	for (uint32_t round = 0; round < 2; round++) {
		for (uint32_t q = 1; q <= 150; q++) {
			struct rk_insp_roce r = pkt(false, RK_OP_SEND_ONLY, round, 4);

			r.key.dest_qp = q;
			memset(&x->found, 0, sizeof(x->found));
			f = rk_insp_flow_packet(&x->t, &r, &x->found, &x->res);
			if (q <= 100) {
				assert_non_null(f);
				assert_int_equal(f->packets, round + 1);
			} else {
				assert_null(f);
				assert_int_equal(x->res.note, RK_INSP_SEQ_NONE);
			}
		}
	}
	assert_int_equal(x->t.nflows, 100);
	assert_int_equal(x->t.untracked_flows, 50);
	assert_int_equal(x->t.untracked_packets, 100);
}


/*
 * Reordering (doc/inspect.md: a gap is a packet the capture did not see).
 * A packet that shows up after later PSNs fills PSNs counted missing: it
 * was not lost, and the packets after it are no gaps.
 */

/* A first transmission shows up late: no gap, no retransmission. */
static void
test_reorder_first_transmission(void **state)
{
	struct fx *x = *state;
	struct rk_insp_flow *f;

	for (uint32_t p = 10; p < 12; p++)
		send_op(x, false, RK_OP_SEND_ONLY, p, 8);
	send_op(x, false, RK_OP_SEND_ONLY, 13, 8);
	assert_int_equal(x->res.note, RK_INSP_SEQ_GAP);
	send_op(x, false, RK_OP_SEND_ONLY, 14, 8);
	/* 12, late: its verdict waits for the next request. */
	f = send_op(x, false, RK_OP_SEND_ONLY, 12, 8);
	assert_true(x->res.pending);
	assert_false(x->res.pending_rtx);
	assert_int_equal(x->res.note, RK_INSP_SEQ_DUP);   /* the other verdict */
	assert_non_null(x->res.chain);
	f = send_op(x, false, RK_OP_SEND_ONLY, 15, 8);
	assert_int_equal(x->res.resolved, RK_INSP_VERDICT_LATE);
	assert_int_equal(x->res.note, RK_INSP_SEQ_IN_ORDER);
	f = send_op(x, false, RK_OP_SEND_ONLY, 16, 8);
	assert_int_equal(x->res.note, RK_INSP_SEQ_IN_ORDER);
	assert_int_equal(f->req.gaps, 0);
	assert_int_equal(f->req.missing, 0);
	assert_int_equal(f->req.duplicates, 0);
	assert_int_equal(f->req.rtx_episodes, 0);
	assert_int_equal(f->req.reordered, 1);
	assert_int_equal(f->messages, 7);
}

/*
 * A copy inside a go-back-N run shows up late: the packets after it are
 * no gaps inside the run (they were counted as such, and as a second
 * episode, when the late copy moved the run back).
 */
static void
test_reorder_inside_go_back(void **state)
{
	struct fx *x = *state;
	struct rk_insp_flow *f = NULL;

	for (uint32_t p = 0; p < 10; p++)
		send_op(x, false, RK_OP_RDMA_WRITE_ONLY, p, 0);
	/* The run from 3; the copy of 6 comes after 8. */
	send_op(x, false, RK_OP_RDMA_WRITE_ONLY, 3, 0);
	assert_true(x->res.rtx_start);
	send_op(x, false, RK_OP_RDMA_WRITE_ONLY, 4, 0);
	send_op(x, false, RK_OP_RDMA_WRITE_ONLY, 5, 0);
	send_op(x, false, RK_OP_RDMA_WRITE_ONLY, 7, 0);
	assert_int_equal(x->res.missing, 1);
	send_op(x, false, RK_OP_RDMA_WRITE_ONLY, 8, 0);
	send_op(x, false, RK_OP_RDMA_WRITE_ONLY, 6, 0);
	assert_true(x->res.pending);
	assert_true(x->res.pending_rtx);
	f = send_op(x, false, RK_OP_RDMA_WRITE_ONLY, 9, 0);
	assert_int_equal(x->res.resolved, RK_INSP_VERDICT_LATE);
	assert_int_equal(x->res.note, RK_INSP_SEQ_DUP);
	assert_int_equal(x->res.missing, 0);
	assert_false(x->res.rtx_start);
	f = send_op(x, false, RK_OP_RDMA_WRITE_ONLY, 10, 0);
	assert_int_equal(x->res.note, RK_INSP_SEQ_IN_ORDER);
	assert_int_equal(f->req.rtx_gaps, 0);
	assert_int_equal(f->req.rtx_missing, 0);
	assert_int_equal(f->req.gaps, 0);
	assert_int_equal(f->req.rtx_episodes, 1);
	assert_int_equal(f->req.duplicates, 7);   /* 3..9 resent, 6 late among them */
	assert_int_equal(f->req.reordered, 1);
	assert_int_equal(f->messages, 11);
}

/*
 * The original shows up after the go-back-N run that its absence caused
 * (the responder NAKed it, the requester resent it): the run stays a run,
 * the original is late, nothing was lost.
 */
static void
test_reorder_after_its_retransmission(void **state)
{
	struct fx *x = *state;
	struct rk_insp_flow *f = NULL;

	for (uint32_t p = 0; p < 10; p++)
		if (p != 5)
			send_op(x, false, RK_OP_SEND_ONLY, p, 8);
	aeth_op(x, true, RK_OP_ACKNOWLEDGE, 5, 0, RK_AETH_TYPE_NAK | RK_AETH_NAK_PSN_SEQ_ERR, 4);
	send_op(x, false, RK_OP_SEND_ONLY, 5, 8);
	assert_true(x->res.pending);
	assert_true(x->res.rtx_start);
	send_op(x, false, RK_OP_SEND_ONLY, 6, 8);
	assert_int_equal(x->res.resolved, RK_INSP_VERDICT_GO_BACK);
	for (uint32_t p = 7; p < 11; p++)
		f = send_op(x, false, RK_OP_SEND_ONLY, p, 8);
	assert_int_equal(f->req.missing, 1);      /* not yet seen */
	assert_int_equal(f->req.duplicates, 5);
	/* The original of 5, at last. */
	send_op(x, false, RK_OP_SEND_ONLY, 5, 8);
	assert_true(x->res.pending);
	f = send_op(x, false, RK_OP_SEND_ONLY, 11, 8);
	assert_int_equal(x->res.resolved, RK_INSP_VERDICT_LATE);
	assert_int_equal(x->res.note, RK_INSP_SEQ_IN_ORDER);
	assert_int_equal(f->req.gaps, 0);
	assert_int_equal(f->req.missing, 0);
	assert_int_equal(f->req.duplicates, 5);
	assert_int_equal(f->req.rtx_episodes, 1);
	assert_int_equal(f->req.reordered, 1);
	assert_int_equal(f->messages, 12);
}

/*
 * A late packet, then the requester's own go-back to its PSN (it was
 * NAKed before it came): one episode, no loss.
 */
static void
test_reorder_then_go_back_to_it(void **state)
{
	struct fx *x = *state;
	struct rk_insp_flow *f;

	send_op(x, false, RK_OP_SEND_ONLY, 10, 8);
	send_op(x, false, RK_OP_SEND_ONLY, 12, 8);
	send_op(x, false, RK_OP_SEND_ONLY, 13, 8);
	send_op(x, false, RK_OP_SEND_ONLY, 11, 8);
	assert_true(x->res.pending);
	send_op(x, false, RK_OP_SEND_ONLY, 11, 8);
	assert_int_equal(x->res.resolved, RK_INSP_VERDICT_LATE);
	assert_true(x->res.rtx_start);
	send_op(x, false, RK_OP_SEND_ONLY, 12, 8);
	f = send_op(x, false, RK_OP_SEND_ONLY, 13, 8);
	assert_int_equal(x->res.note, RK_INSP_SEQ_DUP);
	assert_int_equal(x->res.missing, 0);
	assert_int_equal(f->req.gaps, 0);
	assert_int_equal(f->req.missing, 0);
	assert_int_equal(f->req.rtx_episodes, 1);
	assert_int_equal(f->req.duplicates, 3);
	assert_int_equal(f->req.reordered, 1);
}

/* A late READ request (3 PSNs at PMTU 1024) fills every PSN it reserves. */
static void
test_reorder_read_request(void **state)
{
	struct fx *x = *state;
	struct rk_insp_flow *f;

	send_op(x, false, RK_OP_SEND_ONLY, 19, 8);
	send_op(x, false, RK_OP_SEND_ONLY, 23, 8);   /* READ 20..22 not seen yet */
	assert_int_equal(x->res.missing, 3);
	reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 20, 0, 3000);
	assert_true(x->res.pending);
	f = send_op(x, false, RK_OP_SEND_ONLY, 24, 8);
	assert_int_equal(x->res.resolved, RK_INSP_VERDICT_LATE);
	assert_int_equal(f->req.gaps, 0);
	assert_int_equal(f->req.missing, 0);
	assert_int_equal(f->req.reordered, 1);
	assert_int_equal(f->read_requests, 1);
	assert_int_equal(f->messages, 4);
}

/*
 * Real loss: the packets resent after a first transmission was lost are
 * a go-back-N run, counted as before (the lost PSN stays missing), and
 * so is the verdict still open at the end of the capture.
 */
static void
test_loss_then_go_back_unchanged(void **state)
{
	struct fx *x = *state;
	struct rk_insp_flow *f = NULL;

	for (uint32_t p = 0; p < 8; p++)
		if (p != 3)
			send_op(x, false, RK_OP_SEND_ONLY, p, 8);
	send_op(x, false, RK_OP_SEND_ONLY, 3, 8);
	assert_true(x->res.pending);
	assert_true(x->res.rtx_start);
	for (uint32_t p = 4; p < 8; p++) {
		f = send_op(x, false, RK_OP_SEND_ONLY, p, 8);
		if (p == 4)
			assert_int_equal(x->res.resolved, RK_INSP_VERDICT_GO_BACK);
		assert_false(x->res.pending);
		assert_int_equal(x->res.note, RK_INSP_SEQ_DUP);
	}
	assert_int_equal(f->req.gaps, 1);
	assert_int_equal(f->req.missing, 1);
	assert_int_equal(f->req.duplicates, 5);
	assert_int_equal(f->req.rtx_episodes, 1);
	assert_int_equal(f->req.reordered, 0);
	assert_int_equal(f->messages, 8);

	/* Lost again, resent as the capture ends: no request to tell. */
	send_op(x, false, RK_OP_SEND_ONLY, 9, 8);
	f = send_op(x, false, RK_OP_SEND_ONLY, 8, 8);
	assert_true(x->res.pending);
	rk_insp_flow_settle(&x->t, f, NULL, NULL);
	assert_int_equal(f->req.gaps, 2);
	assert_int_equal(f->req.missing, 2);
	assert_int_equal(f->req.duplicates, 6);
	assert_int_equal(f->req.rtx_episodes, 2);
	assert_int_equal(f->req.reordered, 0);
	assert_int_equal(f->messages, 10);
}

/* A READ response packet shows up late: no gap, nor after it. */
static void
test_reorder_read_response(void **state)
{
	struct fx *x = *state;
	struct rk_insp_flow *f;

	reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 30, 0, 5120); /* 30..34 */
	aeth_op(x, true, RK_OP_RDMA_READ_RESPONSE_FIRST, 30, 1024, 0x1f, 1);
	send_op(x, true, RK_OP_RDMA_READ_RESPONSE_MIDDLE, 31, 1024);
	send_op(x, true, RK_OP_RDMA_READ_RESPONSE_MIDDLE, 33, 1024);
	assert_int_equal(x->res.note, RK_INSP_SEQ_GAP);
	send_op(x, true, RK_OP_RDMA_READ_RESPONSE_MIDDLE, 32, 1024);
	assert_true(x->res.pending);
	f = aeth_op(x, true, RK_OP_RDMA_READ_RESPONSE_LAST, 34, 1024, 0x1f, 1);
	assert_int_equal(x->res.resolved, RK_INSP_VERDICT_LATE);
	assert_int_equal(x->res.note, RK_INSP_SEQ_IN_ORDER);
	assert_int_equal(f->resp.gaps, 0);
	assert_int_equal(f->resp.missing, 0);
	assert_int_equal(f->resp.duplicates, 0);
	assert_int_equal(f->resp.reordered, 1);
	assert_int_equal(f->read_resp_messages, 1);
	/* The next READ goes on in order. */
	reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 35, 0, 64);
	f = aeth_op(x, true, RK_OP_RDMA_READ_RESPONSE_ONLY, 35, 64, 0x1f, 2);
	assert_int_equal(x->res.note, RK_INSP_SEQ_IN_ORDER);
	assert_int_equal(f->resp.gaps, 0);
	assert_int_equal(f->read_resp_messages, 2);
}

/*
 * Late packets scattered over the window, then a retransmission right
 * after the last of them: taken as one go-back-N run, it would have lost
 * most of the packets between them. On a flow already seen reordering
 * they are late packets, and the retransmission starts an episode.
 */
static void
test_reorder_scattered_then_go_back(void **state)
{
	struct fx *x = *state;
	struct rk_insp_flow *f = NULL;

	/* Reordering seen once: 4 comes after 5. */
	for (uint32_t p = 0; p < 4; p++)
		send_op(x, false, RK_OP_SEND_ONLY, p, 8);
	send_op(x, false, RK_OP_SEND_ONLY, 5, 8);
	send_op(x, false, RK_OP_SEND_ONLY, 4, 8);
	f = send_op(x, false, RK_OP_SEND_ONLY, 6, 8);
	assert_int_equal(f->req.reordered, 1);
	/* 10, 15 and 20 come late, after 30. */
	for (uint32_t p = 7; p < 31; p++)
		if (p != 10 && p != 15 && p != 20)
			send_op(x, false, RK_OP_SEND_ONLY, p, 8);
	assert_int_equal(f->req.gaps, 3);
	send_op(x, false, RK_OP_SEND_ONLY, 10, 8);
	send_op(x, false, RK_OP_SEND_ONLY, 15, 8);
	assert_true(x->res.pending);
	send_op(x, false, RK_OP_SEND_ONLY, 20, 8);
	assert_true(x->res.pending);
	/* The requester goes back to 21 (a NAK not in the capture). */
	send_op(x, false, RK_OP_SEND_ONLY, 21, 8);
	assert_int_equal(x->res.resolved, RK_INSP_VERDICT_LATE);
	assert_true(x->res.rtx_start);
	for (uint32_t p = 22; p < 31; p++)
		f = send_op(x, false, RK_OP_SEND_ONLY, p, 8);
	assert_int_equal(f->req.gaps, 0);
	assert_int_equal(f->req.missing, 0);
	assert_int_equal(f->req.rtx_gaps, 0);
	assert_int_equal(f->req.rtx_episodes, 1);
	assert_int_equal(f->req.duplicates, 10);
	assert_int_equal(f->req.reordered, 4);
}

/*
 * The requester goes back to 5 (NAKed, so 4 and below acknowledged); a
 * held copy of 1 comes right after it, so the run seems to go on from 1
 * and to skip 2..5. The NAK acknowledged 2..4: only 5 is counted, and its
 * held original fills it. Counting the whole skip left 2..4 missing for
 * good (no copy of an acknowledged PSN comes again).
 */
static void
test_run_skip_counts_only_unacknowledged(void **state)
{
	struct fx *x = *state;
	struct rk_insp_flow *f;

	for (uint32_t p = 0; p < 10; p++)
		if (p != 5)
			send_op(x, false, RK_OP_SEND_ONLY, p, 8);
	aeth_op(x, true, RK_OP_ACKNOWLEDGE, 5, 0, RK_AETH_TYPE_NAK | RK_AETH_NAK_PSN_SEQ_ERR, 4);
	send_op(x, false, RK_OP_SEND_ONLY, 5, 8);
	assert_true(x->res.pending);
	send_op(x, false, RK_OP_SEND_ONLY, 1, 8);
	assert_int_equal(x->res.resolved, RK_INSP_VERDICT_LATE);
	f = send_op(x, false, RK_OP_SEND_ONLY, 6, 8);
	assert_int_equal(x->res.missing, 1);
	assert_true(x->res.skip);
	assert_int_equal(f->req.rtx_missing, 1);
	for (uint32_t p = 7; p < 10; p++)
		send_op(x, false, RK_OP_SEND_ONLY, p, 8);
	/* The original of 5, held. */
	send_op(x, false, RK_OP_SEND_ONLY, 5, 8);
	assert_true(x->res.pending);
	f = send_op(x, false, RK_OP_SEND_ONLY, 10, 8);
	assert_int_equal(x->res.resolved, RK_INSP_VERDICT_LATE);
	assert_int_equal(f->req.missing, 0);
	assert_int_equal(f->req.rtx_missing, 0);
	assert_int_equal(f->req.rtx_gaps, 0);
}

/* Requests 0..3 with 1 late, so that the flow has shown reordering. */
static void
reorder_seen(struct fx *x)
{
	send_op(x, false, RK_OP_SEND_ONLY, 0, 8);
	send_op(x, false, RK_OP_SEND_ONLY, 2, 8);
	send_op(x, false, RK_OP_SEND_ONLY, 1, 8);
	send_op(x, false, RK_OP_SEND_ONLY, 3, 8);
	assert_int_equal(x->res.resolved, RK_INSP_VERDICT_LATE);
}

/*
 * In a run from 3, a held copy of 8 comes after 5, then the run's 7 (its
 * 6 held too): 8 was out of the run, and the run skipped 6 only, which
 * comes late. Taken as a skip of 6 and 7, 7 stayed missing.
 */
static void
test_run_goes_back_into_skip(void **state)
{
	struct fx *x = *state;
	struct rk_insp_flow *f;

	reorder_seen(x);
	for (uint32_t p = 4; p < 10; p++)
		send_op(x, false, RK_OP_SEND_ONLY, p, 8);
	send_op(x, false, RK_OP_SEND_ONLY, 3, 8);
	assert_true(x->res.rtx_start);
	send_op(x, false, RK_OP_SEND_ONLY, 4, 8);
	send_op(x, false, RK_OP_SEND_ONLY, 5, 8);
	f = send_op(x, false, RK_OP_SEND_ONLY, 8, 8);
	assert_int_equal(f->req.rtx_missing, 2);
	f = send_op(x, false, RK_OP_SEND_ONLY, 7, 8);
	assert_false(x->res.pending);
	assert_int_equal(x->res.missing, 1);
	assert_int_equal(f->req.rtx_missing, 1);
	send_op(x, false, RK_OP_SEND_ONLY, 8, 8);
	send_op(x, false, RK_OP_SEND_ONLY, 9, 8);
	send_op(x, false, RK_OP_SEND_ONLY, 6, 8);
	assert_true(x->res.pending);
	f = send_op(x, false, RK_OP_SEND_ONLY, 10, 8);
	assert_int_equal(x->res.resolved, RK_INSP_VERDICT_LATE);
	assert_int_equal(f->req.rtx_missing, 0);
	assert_int_equal(f->req.rtx_gaps, 0);
	assert_int_equal(f->req.missing, 0);
}

/*
 * Run A from 4 loses 8 and 11 (held); run B from 4 gets to 9, then A's
 * held 8 comes, then B's 11 (its 10 held): 11 is where no go-back from 8
 * would be, it goes on past where B stood. 8 came late; B skipped 10,
 * which comes late too, as does A's 11. Taken as a go-back from 8, A's
 * 8 stayed missing and B's skip counted 9 as well.
 */
static void
test_late_copy_into_run_then_run_goes_on(void **state)
{
	struct fx *x = *state;
	struct rk_insp_flow *f;

	reorder_seen(x);
	for (uint32_t p = 4; p < 13; p++)
		send_op(x, false, RK_OP_SEND_ONLY, p, 8);
	/* Run A. */
	for (uint32_t p = 4; p < 13; p++)
		if (p != 8 && p != 11)
			send_op(x, false, RK_OP_SEND_ONLY, p, 8);
	/* Run B to 9: its 8 is a retransmission. */
	for (uint32_t p = 4; p < 10; p++)
		send_op(x, false, RK_OP_SEND_ONLY, p, 8);
	f = send_op(x, false, RK_OP_SEND_ONLY, 8, 8);
	assert_true(x->res.pending);
	f = send_op(x, false, RK_OP_SEND_ONLY, 11, 8);
	assert_int_equal(x->res.resolved, RK_INSP_VERDICT_LATE);
	assert_true(x->res.pending);
	send_op(x, false, RK_OP_SEND_ONLY, 12, 8);
	assert_int_equal(x->res.resolved, RK_INSP_VERDICT_GO_BACK);
	/* A's 11, then B's 10. */
	send_op(x, false, RK_OP_SEND_ONLY, 11, 8);
	assert_true(x->res.pending);
	send_op(x, false, RK_OP_SEND_ONLY, 13, 8);
	assert_int_equal(x->res.resolved, RK_INSP_VERDICT_LATE);
	send_op(x, false, RK_OP_SEND_ONLY, 10, 8);
	assert_true(x->res.pending);
	f = send_op(x, false, RK_OP_SEND_ONLY, 14, 8);
	assert_int_equal(x->res.resolved, RK_INSP_VERDICT_LATE);
	assert_int_equal(f->req.missing, 0);
	assert_int_equal(f->req.rtx_missing, 0);
	assert_int_equal(f->req.rtx_gaps, 0);
}

/*
 * First transmissions of 10 and 11 held; in a run from 4, a held copy of
 * 9 skips 8, then the held 10 and 11 come, going on from it, then the
 * run's 8: all three were out of the run, nothing was lost. Taken as the
 * run, the chain left 10 and 11 missing (and 8 skipped).
 */
static void
test_held_copies_in_a_row_after_skip(void **state)
{
	struct fx *x = *state;
	struct rk_insp_flow *f;

	reorder_seen(x);
	for (uint32_t p = 4; p < 14; p++)
		if (p != 10 && p != 11)
			send_op(x, false, RK_OP_SEND_ONLY, p, 8);
	for (uint32_t p = 4; p < 8; p++)
		send_op(x, false, RK_OP_SEND_ONLY, p, 8);
	f = send_op(x, false, RK_OP_SEND_ONLY, 9, 8);
	assert_int_equal(f->req.rtx_missing, 1);
	send_op(x, false, RK_OP_SEND_ONLY, 10, 8);
	assert_true(x->res.pending);
	send_op(x, false, RK_OP_SEND_ONLY, 11, 8);
	assert_true(x->res.pending);
	f = send_op(x, false, RK_OP_SEND_ONLY, 8, 8);
	assert_int_equal(x->res.resolved, RK_INSP_VERDICT_LATE);
	assert_false(x->res.rtx_start);
	for (uint32_t p = 9; p < 14; p++)
		f = send_op(x, false, RK_OP_SEND_ONLY, p, 8);
	assert_int_equal(f->req.missing, 0);
	assert_int_equal(f->req.gaps, 0);
	assert_int_equal(f->req.rtx_missing, 0);
	assert_int_equal(f->req.rtx_gaps, 0);
	assert_int_equal(f->req.rtx_episodes, 1);
}

/*
 * The READ response copy count (rk_insp_flows_end()): PSN 11 of a READ's
 * response comes late, after the next READ's, and is judged a replay (as
 * when byte-identical copies of a re-issued READ mislead the sequence),
 * so it stays counted missing (@p counted), though every PSN the READs
 * asked for came once. The count takes it back, whatever the verdict.
 * With @p lose, the READ was re-issued at 11 and its replay never came:
 * one stays missing.
 */
static struct rk_insp_flow *
late_read_tail(struct fx *x, bool lose, uint64_t *counted)
{
	struct rk_insp_flow *f;

	reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 10, 0, 4 * 1024);
	aeth_op(x, true, RK_OP_RDMA_READ_RESPONSE_FIRST, 10, 1024, 0x1f, 1);
	send_op(x, true, RK_OP_RDMA_READ_RESPONSE_MIDDLE, 12, 1024);
	aeth_op(x, true, RK_OP_RDMA_READ_RESPONSE_LAST, 13, 1024, 0x1f, 1);
	reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 14, 0, 2 * 1024);
	aeth_op(x, true, RK_OP_RDMA_READ_RESPONSE_FIRST, 14, 1024, 0x1f, 2);
	aeth_op(x, true, RK_OP_RDMA_READ_RESPONSE_LAST, 15, 1024, 0x1f, 2);
	if (lose)
		reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 11, 0, 3 * 1024);
	f = send_op(x, true, RK_OP_RDMA_READ_RESPONSE_MIDDLE, 11, 1024);
	assert_true(x->res.pending);
	rk_insp_resp_settle(&x->t, f, RK_INSP_VERDICT_GO_BACK);
	assert_int_equal(f->resp.missing, 1);
	*counted = f->resp.missing;
	return f;
}

static void
test_read_copy_count_takes_back(void **state)
{
	struct fx *x = *state;
	uint64_t counted;
	struct rk_insp_flow *f = late_read_tail(x, false, &counted);

	/* Past the responder's expected PSN (16): dropped, owes nothing. */
	reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 30000, 0, 100 * 1024);
	rk_insp_flows_end(&x->t, NULL, NULL);
	assert_int_equal(f->resp.missing, 0);
	assert_int_equal(f->resp.gaps, 0);
	assert_int_equal(f->copies.taken_back, counted);
}

static void
test_read_copy_count_keeps_loss(void **state)
{
	struct fx *x = *state;
	uint64_t counted;
	struct rk_insp_flow *f = late_read_tail(x, true, &counted);

	rk_insp_flows_end(&x->t, NULL, NULL);
	assert_int_equal(f->resp.missing, 1);
	assert_int_equal(f->resp.gaps, 1);
	assert_int_equal(f->copies.taken_back, 0);
}

/* A duplicate READ left unanswered (its resource gone, or the capture
 * ended) leaves the total count short of a bound; PSN 11 came as often
 * as it was asked for, and its own count takes it back. */
static void
test_read_copy_count_per_psn(void **state)
{
	struct fx *x = *state;
	uint64_t counted;
	struct rk_insp_flow *f = late_read_tail(x, false, &counted);

	reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 14, 0, 2 * 1024);
	reth_op(x, false, RK_OP_RDMA_READ_REQUEST, 14, 0, 2 * 1024);
	rk_insp_flows_end(&x->t, NULL, NULL);
	assert_int_equal(f->resp.missing, 0);
	assert_int_equal(f->resp.gaps, 0);
	assert_int_equal(f->copies.taken_back, counted);
}

static void
test_read_copy_count_needs_one_flow(void **state)
{
	struct fx *x = *state;
	uint64_t counted;
	struct rk_insp_flow *f = late_read_tail(x, false, &counted);
	struct rk_insp_roce r = pkt(false, RK_OP_RDMA_READ_REQUEST, 7, 0);

	/* Another QP's READ between the same hosts: no count. */
	r.key.dest_qp = 0x000033;
	r.dma_len = 64;
	feed(x, &r);
	rk_insp_flows_end(&x->t, NULL, NULL);
	assert_int_equal(f->resp.missing, counted);
	assert_int_equal(f->copies.taken_back, 0);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
#define T1024(fn) cmocka_unit_test_setup_teardown(fn, setup_pmtu1024, teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hash_spreads_ipv4_pairs),
		cmocka_unit_test(test_psn_helpers),
		T(test_in_order),
		T(test_gap),
		T(test_go_back_n),
		T(test_rtx_run_stops_mid_message),
		T(test_read_replay_starts_with_middle),
		T(test_loss_inside_go_back),
		T(test_message_counted_once_from_retransmission),
		T(test_many_open_gaps),
		T1024(test_read_reservation_known_pmtu),
		T(test_read_reservation_inferred_pmtu),
		T(test_read_unknown_pmtu_resyncs),
		T(test_read_spacing_teaches_pmtu),
		T(test_psn_wrap),
		T1024(test_read_across_wrap),
		T(test_coalesced_acks),
		T1024(test_read_response_sequence),
		T(test_read_response_without_first),
		T(test_write_length),
		T(test_opcode_sequence),
		T(test_late_copy_inside_run_keeps_its_message),
		T(test_cnp_and_ud),
		T(test_counters),
		T(test_many_flows),
		T(test_max_flows),
		T(test_reorder_first_transmission),
		T(test_reorder_inside_go_back),
		T(test_reorder_after_its_retransmission),
		T(test_reorder_then_go_back_to_it),
		T1024(test_reorder_read_request),
		T(test_loss_then_go_back_unchanged),
		T1024(test_reorder_read_response),
		T(test_reorder_scattered_then_go_back),
		T(test_run_skip_counts_only_unacknowledged),
		T(test_run_goes_back_into_skip),
		T(test_late_copy_into_run_then_run_goes_on),
		T(test_held_copies_in_a_row_after_skip),
		T1024(test_read_copy_count_takes_back),
		T1024(test_read_copy_count_keeps_loss),
		T1024(test_read_copy_count_per_psn),
		T1024(test_read_copy_count_needs_one_flow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
