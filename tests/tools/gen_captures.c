/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writes the synthetic captures of the rk-inspect golden and tshark tests
 * (deterministic: same bytes on every run):
 *
 *   roce_scenarios.pcap   RoCEv2 RC/UD: SEND, multi-packet WRITE, READ with
 *                         responses, lost packet + NAK + go-back-N, RNR NAK,
 *                         length mismatch, bad ICRC, CNP, atomics, PSN wrap,
 *                         IPv6, VLAN, opcode-sequence error, a snaplen cut
 *   roce_snaplen.pcap     the same traffic captured with snaplen 80
 *   iwarp_scenarios.pcap  TCP + MPA (CRC on): Request/Reply, FPDUs several
 *                         per segment and split across segments, reordering,
 *                         retransmission, a bad CRC, READ, Terminate; and a
 *                         second connection with markers
 *   iwarp_long.pcap       two iWARP connections of many FPDUs (SENDs and
 *                         WRITEs of varied sizes, several per segment and
 *                         split across segments, both directions): the
 *                         first without markers nor CRC, the second with
 *                         both; cut at its start, it is the mid-connection
 *                         test's input (iwarp_midstream_check.py)
 *   iwarp_timing.pcap     an iWARP connection (no markers, no CRC) with
 *                         exact times for the timing view: two READs
 *                         answered 50 and 120 us after their request (the
 *                         first in two segments), a SEND each way
 *                         (timing_check.py)
 *   bench.pcap N          (with -b N) N MiB of RoCEv2 WRITE/ACK traffic
 *
 * usage: gen_captures OUTDIR [-b MIB]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "rk_build.h"
#include "rk_byteorder.h"
#include "rk_ddp.h"
#include "rk_ipv4.h"
#include "rk_mpa.h"
#include "rk_opcode.h"
#include "rk_rdmap.h"
#include "rk_tcp_hdr.h"
#include "rk_xeth.h"

static pcap_dumper_t *dumper;
static uint64_t now_us = 1700000000ull * 1000000u;

static void
put(const uint8_t *frame, uint32_t len, uint32_t caplen)
{
	struct pcap_pkthdr h;

	now_us += 10;
	h.ts.tv_sec = (time_t)(now_us / 1000000u);
	h.ts.tv_usec = (suseconds_t)(now_us % 1000000u);
	h.len = len;
	h.caplen = caplen < len ? caplen : len;
	pcap_dump((u_char *)dumper, &h, frame);
}

static pcap_t *dead;

static void
open_out(const char *dir, const char *name, int snaplen)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	dead = pcap_open_dead(DLT_EN10MB, snaplen);
	dumper = pcap_dump_open(dead, path);
	if (dumper == NULL) {
		fprintf(stderr, "gen_captures: %s: %s\n", path, pcap_geterr(dead));
		exit(2);
	}
}

static void
close_out(void)
{
	pcap_dump_close(dumper);
	pcap_close(dead);
}

/* ------------------------------------------------------------- RoCE */

static struct rk_roce_addr addr_ab, addr_ba;
static int roce_snap;

static void
v4(uint8_t *a, uint8_t c, uint8_t d)
{
	memset(a, 0, 16);
	a[10] = 0xff;
	a[11] = 0xff;
	a[12] = 10;
	a[13] = 0;
	a[14] = c;
	a[15] = d;
}

static void
roce(const struct rk_roce_addr *a, uint8_t op, uint32_t qp, uint32_t psn, bool ackreq,
     const struct rk_xeth_fields *x, uint32_t len, int corrupt, uint32_t caplen)
{
	static uint8_t buf[9100];
	static uint8_t payload[9000];
	struct rk_bth_fields b;
	struct rk_xeth_fields zx;
	int n;

	for (uint32_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 7 + 3);
	memset(&b, 0, sizeof(b));
	memset(&zx, 0, sizeof(zx));
	b.opcode = op;
	b.p_key = 0xffff;
	b.dest_qp = qp;
	b.ack_req = ackreq;
	b.psn = psn & 0xffffff;
	n = rk_build_rocev2(buf, sizeof(buf), a, &b, x != NULL ? x : &zx, payload, len);
	if (n < 0) {
		fprintf(stderr, "gen_captures: build failed (%d)\n", n);
		exit(2);
	}
	if (corrupt)
		buf[n - 1] ^= 0x5a;
	if (caplen == 0 || caplen > (uint32_t)n)
		caplen = (uint32_t)n;
	if (roce_snap != 0 && caplen > (uint32_t)roce_snap)
		caplen = (uint32_t)roce_snap;
	put(buf, (uint32_t)n, caplen);
}

#define QA 0x000022  /* A's QP: DestQP of B -> A */
#define QB 0x000011  /* B's QP: DestQP of A -> B */

static void
ack(uint32_t psn, uint8_t syndrome, uint32_t msn)
{
	struct rk_xeth_fields x = { .aeth_syndrome = syndrome, .aeth_msn = msn };

	roce(&addr_ba, RK_OP_ACKNOWLEDGE, QA, psn, false, &x, 0, 0, 0);
}

static void
init_addrs(void)
{
	memset(&addr_ab, 0, sizeof(addr_ab));
	addr_ab.ip_version = 4;
	memcpy(addr_ab.src_mac, "\x02\x00\x00\x00\x00\x01", 6);
	memcpy(addr_ab.dst_mac, "\x02\x00\x00\x00\x00\x02", 6);
	v4(addr_ab.src_ip, 0, 1);
	v4(addr_ab.dst_ip, 0, 2);
	addr_ab.df = true;
	addr_ba = addr_ab;
	memcpy(addr_ba.src_mac, addr_ab.dst_mac, 6);
	memcpy(addr_ba.dst_mac, addr_ab.src_mac, 6);
	memcpy(addr_ba.src_ip, addr_ab.dst_ip, 16);
	memcpy(addr_ba.dst_ip, addr_ab.src_ip, 16);

}

/*
 * Go-back-N runs that skip part of a message, which must not read as a
 * message of the wrong length (msg.length.mismatch): a run loses a WRITE
 * Last and skips to the next message's First, then the Last comes late;
 * a run leaves out a PSN an ACK had covered.
 */
static void
roce_rtx_skip(void)
{
	struct rk_xeth_fields x;

	memset(&x, 0, sizeof(x));
	x.reth_r_key = 0x1234;
	x.reth_dma_len = 4096;
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t m = 0; m < 2; m++) {
			uint32_t psn = 200 + 4 * m;

			x.reth_va = 0x7f0000010000ull + 4096 * m;
			if (pass == 1 && m == 1) {
				/* 203 lost in the run, then late behind 204. */
				roce(&addr_ab, RK_OP_RDMA_WRITE_FIRST, QB, psn, false, &x, 1024, 0, 0);
				roce(&addr_ab, RK_OP_RDMA_WRITE_LAST, QB, psn - 1, true, NULL, 1024, 0, 0);
				for (uint32_t i = 1; i < 4; i++)
					roce(&addr_ab, i < 3 ? RK_OP_RDMA_WRITE_MIDDLE : RK_OP_RDMA_WRITE_LAST,
					     QB, psn + i, i == 3, NULL, 1024, 0, 0);
				continue;
			}
			roce(&addr_ab, RK_OP_RDMA_WRITE_FIRST, QB, psn, false, &x, 1024, 0, 0);
			roce(&addr_ab, RK_OP_RDMA_WRITE_MIDDLE, QB, psn + 1, false, NULL, 1024, 0, 0);
			roce(&addr_ab, RK_OP_RDMA_WRITE_MIDDLE, QB, psn + 2, false, NULL, 1024, 0, 0);
			if (pass == 0 || m == 1)
				roce(&addr_ab, RK_OP_RDMA_WRITE_LAST, QB, psn + 3, true, NULL, 1024, 0, 0);
		}
	}
	ack(207, 0x1f, 2);
	/* A message whose ACK the requester missed: resent whole but for
	 * 210, lost in the run; the ACK had covered it, so not a loss, and
	 * the message is not short either. */
	x.reth_va = 0x7f0000012000ull;
	for (int pass = 0; pass < 2; pass++) {
		roce(&addr_ab, RK_OP_RDMA_WRITE_FIRST, QB, 208, false, &x, 1024, 0, 0);
		roce(&addr_ab, RK_OP_RDMA_WRITE_MIDDLE, QB, 209, false, NULL, 1024, 0, 0);
		if (pass == 0)
			roce(&addr_ab, RK_OP_RDMA_WRITE_MIDDLE, QB, 210, false, NULL, 1024, 0, 0);
		roce(&addr_ab, RK_OP_RDMA_WRITE_LAST, QB, 211, true, NULL, 1024, 0, 0);
		ack(211, 0x1f, 3);
	}
}

static void
roce_scenarios(void)
{
	struct rk_xeth_fields x;
	struct rk_roce_addr a6, vl;

	/* SEND ONLY, ACK */
	roce(&addr_ab, RK_OP_SEND_ONLY, QB, 100, true, NULL, 64, 0, 0);
	ack(100, 0x1f, 1);
	/* WRITE FIRST/MIDDLE/LAST of 2500 bytes at PMTU 1024, coalesced ACK */
	memset(&x, 0, sizeof(x));
	x.reth_va = 0x7f0000001000ull;
	x.reth_r_key = 0x1234;
	x.reth_dma_len = 2500;
	roce(&addr_ab, RK_OP_RDMA_WRITE_FIRST, QB, 101, false, &x, 1024, 0, 0);
	roce(&addr_ab, RK_OP_RDMA_WRITE_MIDDLE, QB, 102, false, NULL, 1024, 0, 0);
	roce(&addr_ab, RK_OP_RDMA_WRITE_LAST, QB, 103, true, NULL, 452, 0, 0);
	ack(103, 0x1f, 2);
	/* READ of 2100 bytes: PSNs 104..106 */
	x.reth_dma_len = 2100;
	x.reth_va = 0x7f0000002000ull;
	roce(&addr_ab, RK_OP_RDMA_READ_REQUEST, QB, 104, true, &x, 0, 0, 0);
	memset(&x, 0, sizeof(x));
	x.aeth_syndrome = 0x1f;
	x.aeth_msn = 3;
	roce(&addr_ba, RK_OP_RDMA_READ_RESPONSE_FIRST, QA, 104, false, &x, 1024, 0, 0);
	roce(&addr_ba, RK_OP_RDMA_READ_RESPONSE_MIDDLE, QA, 105, false, NULL, 1024, 0, 0);
	roce(&addr_ba, RK_OP_RDMA_READ_RESPONSE_LAST, QA, 106, false, &x, 52, 0, 0);
	/* 107 sent, 108 lost before the capture point, 109 -> NAK-SEQ(108),
	 * go-back-N: 108, 109 again */
	roce(&addr_ab, RK_OP_SEND_ONLY, QB, 107, false, NULL, 16, 0, 0);
	roce(&addr_ab, RK_OP_SEND_ONLY, QB, 109, true, NULL, 16, 0, 0);
	ack(108, RK_AETH_TYPE_NAK | RK_AETH_NAK_PSN_SEQ_ERR, 4);
	roce(&addr_ab, RK_OP_SEND_ONLY, QB, 108, false, NULL, 16, 0, 0);
	roce(&addr_ab, RK_OP_SEND_ONLY, QB, 109, true, NULL, 16, 0, 0);
	ack(109, 0x1f, 6);
	/* RNR NAK (timer 14 = 1.28 ms), retry, ACK */
	roce(&addr_ab, RK_OP_SEND_ONLY, QB, 110, true, NULL, 32, 0, 0);
	ack(110, RK_AETH_TYPE_RNR_NAK | 14, 6);
	roce(&addr_ab, RK_OP_SEND_ONLY, QB, 110, true, NULL, 32, 0, 0);
	ack(110, 0x1f, 7);
	/* WRITE ONLY whose payload is 4 bytes short of DMALen */
	memset(&x, 0, sizeof(x));
	x.reth_va = 0x7f0000003000ull;
	x.reth_r_key = 0x1234;
	x.reth_dma_len = 100;
	roce(&addr_ab, RK_OP_RDMA_WRITE_ONLY, QB, 111, true, &x, 96, 0, 0);
	ack(111, 0x1f, 8);
	/* bad ICRC */
	roce(&addr_ab, RK_OP_SEND_ONLY, QB, 112, true, NULL, 40, 1, 0);
	/* the requester times out and sends it again */
	roce(&addr_ab, RK_OP_SEND_ONLY, QB, 112, true, NULL, 40, 0, 0);
	ack(112, 0x1f, 9);
	/* CNP towards A's QP */
	roce(&addr_ba, RK_OP_CNP, QA, 0, false, NULL, 0, 0, 0);
	/* FETCH_ADD and its ATOMIC ACK */
	memset(&x, 0, sizeof(x));
	x.atmeth_va = 0x7f0000004000ull;
	x.atmeth_r_key = 0x1234;
	x.atmeth_swap_add = 5;
	roce(&addr_ab, RK_OP_FETCH_ADD, QB, 113, true, &x, 0, 0, 0);
	memset(&x, 0, sizeof(x));
	x.aeth_syndrome = 0x1f;
	x.aeth_msn = 10;
	x.atmack_orig_rem_dt = 41;
	roce(&addr_ba, RK_OP_ATOMIC_ACKNOWLEDGE, QA, 113, false, &x, 0, 0, 0);
	/* a frame cut to 100 of its bytes */
	roce(&addr_ab, RK_OP_SEND_ONLY, QB, 114, false, NULL, 1024, 0, 100);
	/* SEND MIDDLE with no FIRST, in sequence; then its LAST */
	roce(&addr_ab, RK_OP_SEND_MIDDLE, QB, 115, false, NULL, 1024, 0, 0);
	roce(&addr_ab, RK_OP_SEND_LAST, QB, 116, true, NULL, 8, 0, 0);
	ack(116, RK_AETH_TYPE_NAK | RK_AETH_NAK_INVALID_REQUEST, 11);
	/* PSN wrap on a second QP, with SEND with Invalidate and WRITE with
	 * immediate */
	memset(&x, 0, sizeof(x));
	x.ieth_r_key = 0xabcd;
	roce(&addr_ab, RK_OP_SEND_ONLY, 0x33, 0xfffffe, false, NULL, 8, 0, 0);
	roce(&addr_ab, RK_OP_SEND_ONLY_INV, 0x33, 0xffffff, false, &x, 8, 0, 0);
	memset(&x, 0, sizeof(x));
	x.reth_dma_len = 8;
	x.reth_r_key = 0x55;
	x.imm = 0xfeedbeef;
	roce(&addr_ab, RK_OP_RDMA_WRITE_ONLY_IMM, 0x33, 0x000000, false, &x, 8, 0, 0);
	roce(&addr_ab, RK_OP_SEND_ONLY, 0x33, 0x000001, true, NULL, 8, 0, 0);
	/* IPv6 RoCEv2 with ECN CE and a UD SEND (DETH) */
	a6 = addr_ab;
	a6.ip_version = 6;
	memset(a6.src_ip, 0, 16);
	memset(a6.dst_ip, 0, 16);
	a6.src_ip[0] = 0xfd;
	a6.src_ip[15] = 1;
	a6.dst_ip[0] = 0xfd;
	a6.dst_ip[15] = 2;
	a6.ecn = 3;
	memset(&x, 0, sizeof(x));
	x.deth_q_key = 0x11111111;
	x.deth_src_qp = 0x44;
	roce(&a6, RK_OP_TR_UD | RK_OP_SEND_ONLY, 0x45, 7, false, &x, 128, 0, 0);
	/* VLAN-tagged SEND ONLY with immediate */
	vl = addr_ab;
	vl.vlan = true;
	vl.vlan_tci = 0x6064;
	memset(&x, 0, sizeof(x));
	x.imm = 0x01020304;
	roce(&vl, RK_OP_SEND_ONLY_IMM, QB, 117, true, &x, 20, 0, 0);
	ack(117, 0x1f, 12);
}

/* -------------------------------------------------------------- TCP */

struct tcp_ep {
	uint8_t mac[6];
	uint8_t ip[4];
	uint16_t port;
	uint32_t seq;     /* next sequence number to send */
};

static uint32_t
tcp_frame(uint8_t *buf, const struct tcp_ep *s, const struct tcp_ep *d, uint32_t seq,
	  uint8_t flags, const uint8_t *data, uint32_t len)
{
	struct rk_l2l4_hdr h = { .ip_version = 4, .ttl = 64, .df = true };
	uint8_t *tcp;
	int off;

	memcpy(h.dst_mac, d->mac, 6);
	memcpy(h.src_mac, s->mac, 6);
	memcpy(h.src_ip + 12, s->ip, 4);
	memcpy(h.dst_ip + 12, d->ip, 4);
	off = rk_build_ip_headers(buf, 70000, &h, RK_IPPROTO_TCP, RK_TCP_HLEN + len);
	if (off < 0)
		abort();
	tcp = buf + off;
	memset(tcp, 0, RK_TCP_HLEN);
	rk_tcp_set_src_port(tcp, s->port);
	rk_tcp_set_dst_port(tcp, d->port);
	rk_tcp_set_seq(tcp, seq);
	rk_tcp_set_ack_num(tcp, (flags & RK_TCP_ACK) ? d->seq : 0);
	rk_tcp_set_doff(tcp, RK_TCP_HLEN / 4);
	rk_tcp_set_flags(tcp, flags);
	rk_tcp_set_window(tcp, 65535);
	if (len > 0)
		memcpy(tcp + RK_TCP_HLEN, data, len);
	return (uint32_t)off + RK_TCP_HLEN + len;
}

static void
seg(struct tcp_ep *s, struct tcp_ep *d, uint32_t seq, uint8_t flags,
    const uint8_t *data, uint32_t len)
{
	static uint8_t buf[70000];

	put(buf, tcp_frame(buf, s, d, seq, flags, data, len), 65535);
}

/* Send @p len stream bytes from @p s in segments of at most @p mss. */
static void
stream(struct tcp_ep *s, struct tcp_ep *d, const uint8_t *data, uint32_t len, uint32_t mss)
{
	while (len > 0) {
		uint32_t n = len < mss ? len : mss;

		seg(s, d, s->seq, 0x18, data, n);
		s->seq += n;
		data += n;
		len -= n;
	}
}

static void
handshake(struct tcp_ep *c, struct tcp_ep *s)
{
	seg(c, s, c->seq, 0x02, NULL, 0);
	c->seq++;
	seg(s, c, s->seq, 0x12, NULL, 0);
	s->seq++;
	seg(c, s, c->seq, 0x10, NULL, 0);
}

static void
fin(struct tcp_ep *a, struct tcp_ep *b)
{
	seg(a, b, a->seq, 0x11, NULL, 0);
	a->seq++;
	seg(b, a, b->seq, 0x11, NULL, 0);
	b->seq++;
	seg(a, b, a->seq, 0x10, NULL, 0);
}

/* One DDP segment: untagged (QN, MSN, MO) or tagged (STag, TO). */
static uint32_t
ddp_seg(uint8_t *out, uint8_t rdmap_op, bool tagged, bool last, uint32_t a, uint32_t b,
	uint64_t to_or_mo, const uint8_t *hdr, uint32_t hdr_len, uint32_t payload)
{
	uint32_t h = tagged ? RK_DDP_TAGGED_LEN : RK_DDP_UNTAGGED_LEN;

	memset(out, 0, h);
	rk_ddp_set_t(out, tagged);
	rk_ddp_set_l(out, last);
	rk_ddp_set_dv(out, 1);
	rk_rdmap_set_rv(out, 1);
	rk_rdmap_set_opcode(out, rdmap_op);
	if (tagged) {
		rk_ddp_set_stag(out, a);
		rk_ddp_set_to(out, to_or_mo);
	} else {
		rk_ddp_set_qn(out, a);
		rk_ddp_set_msn(out, b);
		rk_ddp_set_mo(out, (uint32_t)to_or_mo);
	}
	if (hdr_len > 0)
		memcpy(out + h, hdr, hdr_len);
	for (uint32_t i = 0; i < payload; i++)
		out[h + hdr_len + i] = (uint8_t)(i ^ 0x3c);
	return h + hdr_len + payload;
}

/* Append an FPDU for @p ulpdu to @p out at stream position @p tx. */
static uint32_t
fpdu(uint8_t *out, const uint8_t *ulpdu, uint32_t ulen, struct rk_mpa_tx *tx)
{
	int n = rk_mpa_fpdu_build(out, 70000, ulpdu, (uint16_t)ulen, tx);

	if (n < 0) {
		fprintf(stderr, "gen_captures: fpdu build failed (%d)\n", n);
		exit(2);
	}
	tx->seq += (uint32_t)n;
	return (uint32_t)n;
}

static uint32_t
mpa_frame(uint8_t *out, bool reply, bool m, bool c, const char *pd)
{
	struct rk_mpa_rr rr;

	memset(&rr, 0, sizeof(rr));
	rr.reply = reply;
	rr.m = m;
	rr.c = c;
	rr.rev = 1;
	rr.ulp_pd = (const uint8_t *)pd;
	rr.ulp_pd_len = (uint16_t)strlen(pd);
	return (uint32_t)rk_mpa_rr_build(out, 600, &rr);
}

static void
iwarp_connection(struct tcp_ep *c, struct tcp_ep *s, bool markers)
{
	static uint8_t ul[8192], wire[70000];
	struct rk_mpa_tx tc, ts;
	uint8_t rr[28];
	uint32_t n, w, w2, start;

	handshake(c, s);
	n = mpa_frame(wire, false, markers, true, "req-pd");
	stream(c, s, wire, n, 1448);
	n = mpa_frame(wire, true, markers, true, "rep");
	stream(s, c, wire, n, 1448);
	memset(&tc, 0, sizeof(tc));
	tc.markers = markers;
	tc.crc = true;
	tc.seq = c->seq;
	tc.marker_seq0 = c->seq;
	ts = tc;
	ts.seq = s->seq;
	ts.marker_seq0 = s->seq;

	/* SEND of 100 bytes in one segment */
	n = ddp_seg(ul, RK_RDMAP_SEND, false, true, 0, 1, 0, NULL, 0, 100);
	w = fpdu(wire, ul, n, &tc);
	stream(c, s, wire, w, 1448);
	/* WRITE (tagged) + SEND with SE in one segment */
	n = ddp_seg(ul, RK_RDMAP_WRITE, true, true, 0x1000, 0, 0x10000, NULL, 0, 200);
	w = fpdu(wire, ul, n, &tc);
	n = ddp_seg(ul, RK_RDMAP_SEND_SE, false, true, 0, 2, 0, NULL, 0, 24);
	w += fpdu(wire + w, ul, n, &tc);
	stream(c, s, wire, w, 1448);
	/* a 3000-byte SEND: one FPDU over three segments */
	n = ddp_seg(ul, RK_RDMAP_SEND, false, true, 0, 3, 0, NULL, 0, 3000);
	w = fpdu(wire, ul, n, &tc);
	stream(c, s, wire, w, 1448);
	/* reordered: the second half of a WRITE arrives first */
	n = ddp_seg(ul, RK_RDMAP_WRITE, true, true, 0x1000, 0, 0x20000, NULL, 0, 1200);
	w = fpdu(wire, ul, n, &tc);
	start = c->seq;
	seg(c, s, start + 700, 0x18, wire + 700, w - 700);
	seg(c, s, start, 0x18, wire, 700);
	/* ... and retransmitted whole */
	seg(c, s, start, 0x18, wire, w);
	c->seq += w;
	/* READ Request (QN 1) from the client, READ Response from the server */
	memset(rr, 0, sizeof(rr));
	rk_rdmap_set_sink_stag(rr, 0x2000);
	rk_rdmap_set_sink_to(rr, 0x30000);
	rk_rdmap_set_rdma_rd_sz(rr, 512);
	rk_rdmap_set_src_stag(rr, 0x3000);
	rk_rdmap_set_src_to(rr, 0x40000);
	n = ddp_seg(ul, RK_RDMAP_READ_REQ, false, true, 1, 1, 0, rr, 28, 0);
	w = fpdu(wire, ul, n, &tc);
	stream(c, s, wire, w, 1448);
	n = ddp_seg(ul, RK_RDMAP_READ_RESP, true, true, 0x2000, 0, 0x30000, NULL, 0, 512);
	w = fpdu(wire, ul, n, &ts);
	stream(s, c, wire, w, 1448);
	/* a SEND whose CRC is wrong */
	n = ddp_seg(ul, RK_RDMAP_SEND, false, true, 0, 4, 0, NULL, 0, 60);
	w = fpdu(wire, ul, n, &tc);
	wire[w - 1] ^= 0xff;
	stream(c, s, wire, w, 1448);
	/* the server terminates: LLP / MPA / CRC error (2/0/0x02) */
	{
		uint8_t term[4] = { 0x20, 0x02, 0x00, 0x00 };

		n = ddp_seg(ul, RK_RDMAP_TERMINATE, false, true, 2, 1, 0, term, 4, 0);
		w2 = fpdu(wire, ul, n, &ts);
		stream(s, c, wire, w2, 1448);
	}
	fin(c, s);
}

static void
iwarp_scenarios(void)
{
	struct tcp_ep c = { "\x02\x00\x00\x00\x01\x01", { 10, 0, 1, 1 }, 40000, 0xfffff000u };
	struct tcp_ep s = { "\x02\x00\x00\x00\x01\x02", { 10, 0, 1, 2 }, 5001, 1000 };
	struct tcp_ep c2 = { "\x02\x00\x00\x00\x01\x01", { 10, 0, 1, 1 }, 40002, 77777 };
	struct tcp_ep s2 = { "\x02\x00\x00\x00\x01\x02", { 10, 0, 1, 2 }, 5001, 99 };

	/* The client's sequence numbers wrap through 2^32 mid-connection. */
	iwarp_connection(&c, &s, false);
	iwarp_connection(&c2, &s2, true);
	/* A plain TCP connection that is not iWARP. */
	{
		struct tcp_ep h = { "\x02\x00\x00\x00\x01\x01", { 10, 0, 1, 1 }, 40004, 5 };
		struct tcp_ep w = { "\x02\x00\x00\x00\x01\x02", { 10, 0, 1, 2 }, 80, 9 };

		handshake(&h, &w);
		stream(&h, &w, (const uint8_t *)"GET / HTTP/1.0\r\n\r\n", 18, 1448);
		fin(&h, &w);
	}
}

/* Many FPDUs, packed so that segment and FPDU boundaries seldom meet. */
static void
iwarp_long_connection(struct tcp_ep *c, struct tcp_ep *s, bool markers, bool crc)
{
	static const uint32_t sizes[] = { 100, 700, 3000, 24, 1200, 512, 64, 2000, 333, 1448 };
	static uint8_t ul[8192], wire[70000];
	struct rk_mpa_tx tc, ts;
	uint32_t n, w;

	handshake(c, s);
	n = mpa_frame(wire, false, markers, crc, "long");
	stream(c, s, wire, n, 1448);
	n = mpa_frame(wire, true, markers, crc, "long");
	stream(s, c, wire, n, 1448);
	memset(&tc, 0, sizeof(tc));
	tc.markers = markers;
	tc.crc = crc;
	tc.seq = c->seq;
	tc.marker_seq0 = c->seq;
	ts = tc;
	ts.seq = s->seq;
	ts.marker_seq0 = s->seq;
	for (uint32_t i = 0; i < 48; i++) {
		uint32_t len = sizes[i % 10];

		w = 0;
		/* Three FPDUs per burst, sent in 1000-byte segments. */
		for (uint32_t k = 0; k < 3; k++) {
			uint32_t j = i * 3 + k;

			if (j % 2 == 0)
				n = ddp_seg(ul, RK_RDMAP_SEND, false, true, 0, j / 2 + 1, 0,
					    NULL, 0, (len + k * 37) % 3500);
			else
				n = ddp_seg(ul, RK_RDMAP_WRITE, true, true, 0x1000 + j, 0,
					    0x100000 + 0x1000 * (uint64_t)j, NULL, 0,
					    (len + k * 91) % 3500);
			w += fpdu(wire + w, ul, n, &tc);
		}
		stream(c, s, wire, w, 1000);
		if (i % 4 == 3) {
			n = ddp_seg(ul, RK_RDMAP_SEND, false, true, 0, i / 4 + 1, 0, NULL, 0,
				    16 + i);
			w = fpdu(wire, ul, n, &ts);
			stream(s, c, wire, w, 1448);
		}
	}
	fin(c, s);
}

static void
iwarp_long(void)
{
	struct tcp_ep c = { "\x02\x00\x00\x00\x01\x01", { 10, 0, 1, 1 }, 40010, 0xffff0000u };
	struct tcp_ep s = { "\x02\x00\x00\x00\x01\x02", { 10, 0, 1, 2 }, 5001, 7000 };
	struct tcp_ep c2 = { "\x02\x00\x00\x00\x01\x01", { 10, 0, 1, 1 }, 40012, 123456 };
	struct tcp_ep s2 = { "\x02\x00\x00\x00\x01\x02", { 10, 0, 1, 2 }, 5001, 654321 };

	iwarp_long_connection(&c, &s, false, false);
	iwarp_long_connection(&c2, &s2, true, true);
}

/*
 * Exact times (put() adds 10 us before each frame; now_us is moved on
 * between them): client FPDUs at T, T+1000, T+3000 us (a SEND of 1000
 * bytes, READ 1, READ 2); server FPDUs at T+1050, T+1060, T+3120, T+3200.
 * READ 1 (2048 bytes, STag 0x5000 TO 0x10000) is answered from T+1050 in
 * two segments (latency 50 us); READ 2 (512 bytes, STag 0x5001 TO
 * 0x20000) at T+3120 (120 us); then the server SENDs 100 bytes.
 */
static void
iwarp_timing(void)
{
	struct tcp_ep c = { "\x02\x00\x00\x00\x01\x01", { 10, 0, 1, 1 }, 40020, 1000 };
	struct tcp_ep s = { "\x02\x00\x00\x00\x01\x02", { 10, 0, 1, 2 }, 5001, 9000 };
	static uint8_t ul[8192], wire[70000];
	uint8_t rr[28];
	struct rk_mpa_tx tc, ts;
	uint64_t t0;
	uint32_t n, w;

	handshake(&c, &s);
	n = mpa_frame(wire, false, false, false, "timing");
	stream(&c, &s, wire, n, 1448);
	n = mpa_frame(wire, true, false, false, "timing");
	stream(&s, &c, wire, n, 1448);
	memset(&tc, 0, sizeof(tc));
	tc.seq = c.seq;
	tc.marker_seq0 = c.seq;
	ts = tc;
	ts.seq = s.seq;
	ts.marker_seq0 = s.seq;
	t0 = now_us + 10;
	/* T: a SEND of 1000 bytes */
	n = ddp_seg(ul, RK_RDMAP_SEND, false, true, 0, 1, 0, NULL, 0, 1000);
	w = fpdu(wire, ul, n, &tc);
	stream(&c, &s, wire, w, 1448);
	/* T+1000: READ 1 */
	now_us = t0 + 1000 - 10;
	memset(rr, 0, sizeof(rr));
	rk_rdmap_set_sink_stag(rr, 0x5000);
	rk_rdmap_set_sink_to(rr, 0x10000);
	rk_rdmap_set_rdma_rd_sz(rr, 2048);
	rk_rdmap_set_src_stag(rr, 0x6000);
	rk_rdmap_set_src_to(rr, 0);
	n = ddp_seg(ul, RK_RDMAP_READ_REQ, false, true, 1, 1, 0, rr, 28, 0);
	w = fpdu(wire, ul, n, &tc);
	stream(&c, &s, wire, w, 1448);
	/* T+1050, T+1060: its response, two segments */
	now_us = t0 + 1050 - 10;
	n = ddp_seg(ul, RK_RDMAP_READ_RESP, true, false, 0x5000, 0, 0x10000, NULL, 0, 1024);
	w = fpdu(wire, ul, n, &ts);
	stream(&s, &c, wire, w, 1448);
	n = ddp_seg(ul, RK_RDMAP_READ_RESP, true, true, 0x5000, 0, 0x10400, NULL, 0, 1024);
	w = fpdu(wire, ul, n, &ts);
	stream(&s, &c, wire, w, 1448);
	/* T+3000: READ 2 */
	now_us = t0 + 3000 - 10;
	rk_rdmap_set_sink_stag(rr, 0x5001);
	rk_rdmap_set_sink_to(rr, 0x20000);
	rk_rdmap_set_rdma_rd_sz(rr, 512);
	n = ddp_seg(ul, RK_RDMAP_READ_REQ, false, true, 1, 2, 0, rr, 28, 0);
	w = fpdu(wire, ul, n, &tc);
	stream(&c, &s, wire, w, 1448);
	/* T+3120: its response; T+3200: a SEND of 100 bytes */
	now_us = t0 + 3120 - 10;
	n = ddp_seg(ul, RK_RDMAP_READ_RESP, true, true, 0x5001, 0, 0x20000, NULL, 0, 512);
	w = fpdu(wire, ul, n, &ts);
	stream(&s, &c, wire, w, 1448);
	now_us = t0 + 3200 - 10;
	n = ddp_seg(ul, RK_RDMAP_SEND, false, true, 0, 1, 0, NULL, 0, 100);
	w = fpdu(wire, ul, n, &ts);
	stream(&s, &c, wire, w, 1448);
	fin(&c, &s);
}

static void
bench(uint64_t mib)
{
	uint64_t target = mib << 20, written = 0;
	uint32_t psn = 0;
	struct rk_xeth_fields x;

	roce_snap = 0;
	memset(&x, 0, sizeof(x));
	x.reth_dma_len = 4 * 1024;
	x.reth_r_key = 7;
	while (written < target) {
		/* 16 QPs, 4 KiB WRITEs at PMTU 1024, one ACK per message */
		for (uint32_t q = 0; q < 16 && written < target; q++) {
			uint32_t p = (psn + q * 0x10000) & 0xffffff;

			roce(&addr_ab, RK_OP_RDMA_WRITE_FIRST, 0x100 + q, p, false, &x, 1024, 0, 0);
			roce(&addr_ab, RK_OP_RDMA_WRITE_MIDDLE, 0x100 + q, p + 1, false, NULL, 1024, 0, 0);
			roce(&addr_ab, RK_OP_RDMA_WRITE_MIDDLE, 0x100 + q, p + 2, false, NULL, 1024, 0, 0);
			roce(&addr_ab, RK_OP_RDMA_WRITE_LAST, 0x100 + q, p + 3, true, NULL, 1024, 0, 0);
			x.aeth_syndrome = 0x1f;
			roce(&addr_ba, RK_OP_ACKNOWLEDGE, 0x200 + q, p + 3, false, &x, 0, 0, 0);
			written += 4 * (1024 + 74 + 16) + 62 + 16;
		}
		psn += 4;
	}
}

int
main(int argc, char **argv)
{
	const char *dir;
	long mib = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: gen_captures OUTDIR [-b MIB]\n");
		return 2;
	}
	dir = argv[1];
	if (argc == 4 && strcmp(argv[2], "-b") == 0)
		mib = strtol(argv[3], NULL, 10);

	init_addrs();
	if (mib > 0) {
		open_out(dir, "bench.pcap", 65535);
		bench((uint64_t)mib);
		close_out();
		return 0;
	}
	open_out(dir, "roce_scenarios.pcap", 65535);
	roce_scenarios();
	close_out();
	open_out(dir, "roce_snaplen.pcap", 80);
	roce_snap = 80;
	roce_scenarios();
	roce_snap = 0;
	close_out();
	open_out(dir, "roce_rtx_skip.pcap", 65535);
	roce_rtx_skip();
	close_out();
	open_out(dir, "iwarp_scenarios.pcap", 65535);
	iwarp_scenarios();
	close_out();
	open_out(dir, "iwarp_long.pcap", 65535);
	iwarp_long();
	close_out();
	open_out(dir, "iwarp_timing.pcap", 65535);
	iwarp_timing();
	close_out();
	return 0;
}
