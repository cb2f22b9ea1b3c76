/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writes a GSO-style iWARP capture for the plugin tests: captured on the
 * sending host before segmentation, so one TCP "segment" carries up to
 * 60000 bytes and many FPDUs; a few FPDUs still straddle two segments.
 * Two connections (markers off and on, CRC on). Traffic per connection:
 * a SEND message split into DDP segments (MO), an RDMA WRITE split into
 * tagged segments (TO), many small SENDs, and a READ Request/Response.
 *
 * Also writes OUT.expect, what the capture holds, counted while building:
 *   fpdus N          FPDUs in the capture (both connections, both ways)
 *   multi N          TCP segments that hold two or more whole FPDUs
 *   spans N          FPDUs whose bytes lie in two or more segments
 *   messages N       DDP messages (segments with L set)
 *   msglen Q/M N     an untagged message on QN Q, MSN M, is N bytes
 *   taglen S N       the tagged message to STag S is N bytes
 *
 * usage: gen_gso OUT.pcap
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "rk_build.h"
#include "rk_byteorder.h"
#include "rk_ddp.h"
#include "rk_mpa.h"
#include "rk_rdmap.h"

#define SEG_MAX 60000u

static pcap_dumper_t *dumper;
static FILE *expect;
static uint64_t now_us = 1750000000ull * 1000000u;
static unsigned long n_fpdus, n_multi, n_spans, n_messages;

struct ep {
	uint8_t mac[6];
	uint8_t ip[4];
	uint16_t port;
	uint32_t seq;
	struct rk_mpa_tx tx;
	/* FPDU boundaries not yet sent, for the segment statistics */
	uint8_t buf[SEG_MAX * 4];
	uint32_t len;
	uint32_t starts[4096];
	uint32_t nstarts;
};

static void
put(const uint8_t *frame, uint32_t len)
{
	struct pcap_pkthdr h;

	now_us += 7;
	h.ts.tv_sec = (time_t)(now_us / 1000000u);
	h.ts.tv_usec = (suseconds_t)(now_us % 1000000u);
	h.len = h.caplen = len;
	pcap_dump((u_char *)dumper, &h, frame);
}

static void
seg(const struct ep *s, const struct ep *d, uint32_t seq, uint8_t flags, const uint8_t *data,
    uint32_t len)
{
	static uint8_t f[SEG_MAX + 100];
	uint8_t *ip = f + 14, *tcp = ip + 20;
	uint32_t tot = 40 + len;

	memcpy(f, d->mac, 6);
	memcpy(f + 6, s->mac, 6);
	rk_put_be16(f + 12, 0x0800);
	memset(ip, 0, 40);
	ip[0] = 0x45;
	rk_put_be16(ip + 2, (uint16_t)tot);
	ip[6] = 0x40;
	ip[8] = 64;
	ip[9] = 6;
	memcpy(ip + 12, s->ip, 4);
	memcpy(ip + 16, d->ip, 4);
	rk_put_be16(ip + 10, (uint16_t)~rk_inet_csum_fold(ip, 20));
	rk_put_be16(tcp, s->port);
	rk_put_be16(tcp + 2, d->port);
	rk_put_be32(tcp + 4, seq);
	rk_put_be32(tcp + 8, (flags & 0x10) ? d->seq : 0);
	tcp[12] = 5 << 4;
	tcp[13] = flags;
	rk_put_be16(tcp + 14, 65535);
	if (len != 0)
		memcpy(tcp + 20, data, len);
	put(f, 14 + tot);
}

/* Send everything queued in @p s, in segments of at most @p mss bytes. */
static void
flush(struct ep *s, struct ep *d, uint32_t mss)
{
	for (uint32_t k = 0; k < s->nstarts; k++) {
		uint32_t start = s->starts[k];
		uint32_t end = k + 1 < s->nstarts ? s->starts[k + 1] : s->len;

		if (start / mss != (end - 1) / mss)
			n_spans++;
	}
	for (uint32_t lo = 0; lo < s->len; lo += mss) {
		uint32_t hi = s->len - lo < mss ? s->len : lo + mss;
		unsigned int whole = 0;

		for (uint32_t k = 0; k < s->nstarts; k++) {
			uint32_t start = s->starts[k];
			uint32_t end = k + 1 < s->nstarts ? s->starts[k + 1] : s->len;

			whole += start >= lo && end <= hi;
		}
		n_multi += whole >= 2;
		seg(s, d, s->seq, 0x18, s->buf + lo, hi - lo);
		s->seq += hi - lo;
	}
	s->len = 0;
	s->nstarts = 0;
}

static void
queue_fpdu(struct ep *s, const uint8_t *ulpdu, uint32_t ulen)
{
	int n;

	s->tx.seq = s->seq + s->len;
	n = rk_mpa_fpdu_build(s->buf + s->len, sizeof(s->buf) - s->len, ulpdu, (uint16_t)ulen,
			      &s->tx);
	if (n < 0) {
		fprintf(stderr, "gen_gso: FPDU build failed (%d)\n", n);
		exit(2);
	}
	s->starts[s->nstarts++] = s->len;
	s->len += (uint32_t)n;
	n_fpdus++;
}

static uint32_t
ddp(uint8_t *out, uint8_t op, bool tagged, bool last, uint32_t a, uint32_t b, uint64_t to_mo,
    const uint8_t *hdr, uint32_t hdr_len, uint32_t payload)
{
	uint32_t h = tagged ? RK_DDP_TAGGED_LEN : RK_DDP_UNTAGGED_LEN;

	memset(out, 0, h);
	rk_ddp_set_t(out, tagged);
	rk_ddp_set_l(out, last);
	rk_ddp_set_dv(out, 1);
	rk_rdmap_set_rv(out, 1);
	rk_rdmap_set_opcode(out, op);
	if (tagged) {
		rk_ddp_set_stag(out, a);
		rk_ddp_set_to(out, to_mo);
	} else {
		rk_ddp_set_qn(out, a);
		rk_ddp_set_msn(out, b);
		rk_ddp_set_mo(out, (uint32_t)to_mo);
	}
	if (hdr_len != 0)
		memcpy(out + h, hdr, hdr_len);
	for (uint32_t i = 0; i < payload; i++)
		out[h + hdr_len + i] = (uint8_t)(i * 7 + 1);
	if (last)
		n_messages++;
	return h + hdr_len + payload;
}

static void
mpa_rr(struct ep *s, struct ep *d, bool reply, bool markers)
{
	struct rk_mpa_rr rr;
	uint8_t b[64];
	int n;

	memset(&rr, 0, sizeof(rr));
	rr.reply = reply;
	rr.m = markers;
	rr.c = 1;
	rr.rev = 1;
	n = rk_mpa_rr_build(b, sizeof(b), &rr);
	seg(s, d, s->seq, 0x18, b, (uint32_t)n);
	s->seq += (uint32_t)n;
}

static void
connection(struct ep *c, struct ep *s, bool markers)
{
	static uint8_t ul[2048];
	uint32_t n, msn = 1, mo;
	uint64_t to;

	seg(c, s, c->seq, 0x02, NULL, 0);
	c->seq++;
	seg(s, c, s->seq, 0x12, NULL, 0);
	s->seq++;
	seg(c, s, c->seq, 0x10, NULL, 0);
	mpa_rr(c, s, false, markers);
	mpa_rr(s, c, true, markers);
	memset(&c->tx, 0, sizeof(c->tx));
	c->tx.markers = markers;
	c->tx.crc = true;
	c->tx.marker_seq0 = c->seq;
	s->tx = c->tx;
	s->tx.marker_seq0 = s->seq;

	/* A 40000-byte SEND in DDP segments of up to 1400 bytes (MO). */
	for (mo = 0; mo < 40000; mo += 1400) {
		uint32_t len = 40000 - mo < 1400 ? 40000 - mo : 1400;

		n = ddp(ul, RK_RDMAP_SEND, false, mo + len == 40000, 0, msn, mo, NULL, 0, len);
		queue_fpdu(c, ul, n);
	}
	fprintf(expect, "msglen 0/%u 40000\n", msn);
	msn++;
	/* A 100000-byte RDMA WRITE in tagged segments of up to 1300 bytes. */
	for (to = 0; to < 100000; to += 1300) {
		uint32_t len = 100000 - to < 1300 ? (uint32_t)(100000 - to) : 1300;

		n = ddp(ul, RK_RDMAP_WRITE, true, to + len == 100000, 0x5000 + markers, 0,
			0x700000 + to, NULL, 0, len);
		queue_fpdu(c, ul, n);
	}
	fprintf(expect, "taglen 0x%x 100000\n", 0x5000 + markers);
	/* 200 small SENDs of 1..200 bytes */
	for (uint32_t i = 1; i <= 200; i++) {
		n = ddp(ul, RK_RDMAP_SEND, false, true, 0, msn, 0, NULL, 0, i);
		queue_fpdu(c, ul, n);
		msn++;
	}
	flush(c, s, SEG_MAX);

	/* READ Request, answered by a 20000-byte READ Response in GSO segments. */
	{
		uint8_t rr[28];

		memset(rr, 0, sizeof(rr));
		rk_rdmap_set_sink_stag(rr, 0x6000);
		rk_rdmap_set_sink_to(rr, 0x100);
		rk_rdmap_set_rdma_rd_sz(rr, 20000);
		rk_rdmap_set_src_stag(rr, 0x7000);
		rk_rdmap_set_src_to(rr, 0x200);
		n = ddp(ul, RK_RDMAP_READ_REQ, false, true, 1, 1, 0, rr, 28, 0);
		queue_fpdu(c, ul, n);
		flush(c, s, SEG_MAX);
		for (to = 0; to < 20000; to += 1000) {
			n = ddp(ul, RK_RDMAP_READ_RESP, true, to + 1000 == 20000, 0x6000, 0,
				0x100 + to, NULL, 0, 1000);
			queue_fpdu(s, ul, n);
		}
		fprintf(expect, "taglen 0x6000 20000\n");
		/* smaller "segments" so some FPDUs straddle two of them */
		flush(s, c, 7777);
	}
}

int
main(int argc, char **argv)
{
	static struct ep c1 = { "\x02\x00\x00\x00\x02\x01", { 198, 18, 2, 1 }, 40100, 0x10000000u };
	static struct ep s1 = { "\x02\x00\x00\x00\x02\x02", { 198, 18, 2, 2 }, 5201, 0xfff00000u };
	static struct ep c2 = { "\x02\x00\x00\x00\x02\x01", { 198, 18, 2, 1 }, 40101, 12345 };
	static struct ep s2 = { "\x02\x00\x00\x00\x02\x02", { 198, 18, 2, 2 }, 5201, 777 };
	char path[4096];
	pcap_t *dead;

	if (argc != 2) {
		fprintf(stderr, "usage: gen_gso OUT.pcap\n");
		return 2;
	}
	dead = pcap_open_dead(DLT_EN10MB, 65535);
	dumper = pcap_dump_open(dead, argv[1]);
	snprintf(path, sizeof(path), "%s.expect", argv[1]);
	expect = fopen(path, "w");
	if (dumper == NULL || expect == NULL) {
		fprintf(stderr, "gen_gso: cannot write %s\n", argv[1]);
		return 2;
	}
	connection(&c1, &s1, false);
	connection(&c2, &s2, true);
	fprintf(expect, "fpdus %lu\nmulti %lu\nspans %lu\nmessages %lu\n", n_fpdus, n_multi,
		n_spans, n_messages);
	fclose(expect);
	pcap_dump_close(dumper);
	pcap_close(dead);
	return 0;
}
