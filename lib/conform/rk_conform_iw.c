/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * iWARP conformance: the tester as MPA Initiator on the DUT's stream
 * (lib/probe's rk_probe_mpa), and the iw.* cases of the catalog. Each
 * error case expects the Terminate of doc/spec-rules.md (RFC 5040 7.4.1:
 * Layer, EType, Error Code).
 */
#include "rk_conform.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk_crc.h"
#include "rk_ddp.h"
#include "rk_rdmap.h"

#define STREAM_BUF 8192u
#define DEFAULT_TIMEOUT_NS 50000000ull
#define MAX_WAITS 64u

static uint64_t
now(const struct rk_conform_run *r)
{
	return r->env->ops->now_ns(r->env->io);
}

static int
write_bytes(struct rk_conform_run *r, const uint8_t *b, size_t n)
{
	int rc = r->env->stream->write(r->env->ctx, b, n);

	r->res->frames_tx++;
	if (rc < 0)
		rk_conform_fail(r, "stream write failed: %s", strerror(-rc));
	return rc < 0 ? rc : 0;
}

int
rk_conform_iw_wait(struct rk_conform_run *r, unsigned int want)
{
	uint64_t timeout = r->env->timeout_ns ? r->env->timeout_ns : DEFAULT_TIMEOUT_NS;
	uint64_t deadline;
	uint8_t buf[STREAM_BUF];

	if (r->mpa == NULL)
		return -EINVAL;
	if (++r->waits > MAX_WAITS) {
		rk_conform_fail(r, "case waited more than %u times", MAX_WAITS);
		return -ETIMEDOUT;
	}
	deadline = now(r) + timeout;
	while (!r->closed && !(r->mpa->got_reply && r->mpa->nmsgs >= want)) {
		int n = r->env->stream->read(r->env->ctx, buf, sizeof(buf));

		if (n == -ECONNRESET) {
			r->closed = true;
			break;
		}
		if (n < 0) {
			rk_conform_fail(r, "receive failed: %s", strerror(-n));
			return n;
		}
		if (n > 0) {
			r->res->frames_rx++;
			if (rk_probe_mpa_feed(r->mpa, buf, (size_t)n) != 0) {
				rk_conform_fail(r, "the DUT's first bytes are no MPA Reply");
				return -EPROTO;
			}
		}
		/* Checked after every read: a DUT that never stops sending ends too. */
		if (now(r) >= deadline)
			break;
	}
	return (int)r->mpa->nmsgs;
}

/* Read what the DUT sends until @p until (or it closes): iw_settle_ns. */
static void
settle(struct rk_conform_run *r, uint64_t until)
{
	uint8_t buf[STREAM_BUF];

	while (!r->closed && now(r) < until) {
		int n = r->env->stream->read(r->env->ctx, buf, sizeof(buf));

		if (n == -ECONNRESET)
			r->closed = true;
		else if (n > 0 && rk_probe_mpa_feed(r->mpa, buf, (size_t)n) == 0)
			r->res->frames_rx++;
		else if (n < 0)
			break;
	}
}

/* Start the MPA side with @p req; @p edit may spoil the Request's bytes. */
static int
request(struct rk_conform_run *r, const struct rk_mpa_rr *req, void (*edit)(uint8_t *b, int n))
{
	uint8_t buf[RK_MPA_RR_HDR_LEN + RK_MPA_PD_MAX];
	int w, rc;

	if (r->mpa == NULL)
		r->mpa = calloc(1, sizeof(*r->mpa));
	else
		rk_probe_mpa_fini(r->mpa);
	if (r->mpa == NULL) {
		rk_conform_fail(r, "tester out of memory");
		return -ENOMEM;
	}
	w = rk_probe_mpa_init(r->mpa, req, r->dut.isn, r->dut.dut_isn, buf, sizeof(buf));
	if (w < 0) {
		rk_conform_fail(r, "tester could not build the MPA Request: %s", strerror(-w));
		return w;
	}
	if (edit != NULL)
		edit(buf, w);
	if ((rc = write_bytes(r, buf, (size_t)w)) != 0)
		return rc;
	rc = rk_conform_iw_wait(r, 0);
	if (rc < 0)
		return rc;
	if (r->mpa->got_reply && !r->mpa->reply.r && r->env->iw_settle_ns != 0)
		settle(r, now(r) + r->env->iw_settle_ns);
	return r->mpa->got_reply ? 1 : 0;
}

int
rk_conform_iw_request(struct rk_conform_run *r, const struct rk_mpa_rr *req)
{
	return request(r, req, NULL);
}

bool
rk_conform_iw_connect(struct rk_conform_run *r)
{
	struct rk_mpa_rr req;
	int rc;

	rk_probe_mpa_default_req(&req);
	rc = rk_conform_iw_request(r, &req);
	if (rc < 0)
		return false;
	if (rc == 0)
		return rk_conform_fail(r, "no MPA Reply to a valid Request");
	if (r->mpa->reply.r)
		return rk_conform_fail(r, "the DUT rejected a valid MPA Request (R = 1)");
	if (!r->mpa->reply.c && !r->mpa->crc)
		return rk_conform_fail(r, "no CRC after a Request with C = 1");
	return true;
}

int
rk_conform_iw_send(struct rk_conform_run *r, const uint8_t *ulpdu, uint16_t len, bool bad_crc)
{
	static uint8_t f[RK_MPA_FPDU_MAX + 1024];
	int w = rk_probe_mpa_fpdu(r->mpa, ulpdu, len, bad_crc, f, sizeof(f));

	if (w < 0) {
		rk_conform_fail(r, "tester could not frame an FPDU: %s", strerror(-w));
		return w;
	}
	return write_bytes(r, f, (size_t)w);
}

int
rk_conform_iw_send_raw(struct rk_conform_run *r, const uint8_t *b, size_t n)
{
	rk_probe_mpa_sent(r->mpa, n);
	return write_bytes(r, b, n);
}

static const char *
msg_str(const struct rk_probe_iw_msg *m, char *buf, size_t len)
{
	if (m->opcode == RK_RDMAP_TERMINATE)
		snprintf(buf, len, "Terminate %u/%u/0x%02x", m->term.layer, m->term.etype,
			 m->term.err_code);
	else
		snprintf(buf, len, "RDMAP opcode 0x%x", m->opcode);
	return buf;
}

bool
rk_conform_iw_expect_term(struct rk_conform_run *r, uint8_t layer, uint8_t etype, uint8_t code)
{
	unsigned int from = r->mpa->nmsgs;
	char got[64] = "nothing";

	/* Answers to earlier requests may come first; the Terminate ends it. */
	for (int tries = 0; tries < 4; tries++) {
		unsigned int have = r->mpa->nmsgs;

		if (rk_conform_iw_wait(r, have + 1) < 0)
			return false;
		for (unsigned int i = from; i < r->mpa->nmsgs && i < RK_PROBE_MPA_MSGS_MAX; i++) {
			const struct rk_probe_iw_msg *m = &r->mpa->msgs[i];

			msg_str(m, got, sizeof(got));
			if (m->opcode != RK_RDMAP_TERMINATE || m->ans.kind != RK_PROBE_TERMINATE)
				continue;
			if (!m->crc_ok)
				return rk_conform_fail(r, "Terminate with a bad CRC");
			if (m->ans.term_layer != layer || m->ans.term_etype != etype ||
			    m->ans.term_code != code)
				return rk_conform_fail(r, "%s instead of Terminate %u/%u/0x%02x", got,
						       layer, etype, code);
			return true;
		}
		if (r->mpa->nmsgs == have)
			break;          /* nothing new: silence or closed */
	}
	return rk_conform_fail(r, "%s%s instead of Terminate %u/%u/0x%02x", got,
			       r->closed ? " then close" : "", layer, etype, code);
}

/* ---------------------------------------------------------------- cases */

/* What one error case sends. */
enum iw_send {
	IW_WRITE_BAD_CRC,       /* a good Write, its CRC spoilt */
	IW_WRITE_BAD_MARKER,    /* a Write across a marker pointing 4 bytes off */
	IW_WRITE_STAG_UNKNOWN,
	IW_WRITE_PAST_END,
	IW_WRITE_BELOW_BASE,
	IW_WRITE_WRAP,
	IW_WRITE_OTHER_PD,
	IW_WRITE_READ_ONLY,
	IW_WRITE_DV2,
	IW_SEND_NO_RECV,
	IW_SEND_MSN_AHEAD,
	IW_SEND_MO_WRONG,
	IW_SEND_TOO_LONG,
	IW_SEND_QN1,
	IW_SEND_DV0,
	IW_SEND_RV2,
	IW_SEND_OPCODE12,
	IW_READ_RESP_UNSOLICITED,
	IW_READ_STAG_UNKNOWN,
	IW_READ_PAST_END,
	IW_READ_WITH_PAYLOAD,
};

struct iw_err {
	enum iw_send what;
	uint8_t layer, etype, code;     /* the Terminate expected */
};

static void
read_req_fields(const struct rk_conform_run *r, struct rk_rdmap_read_req_fields *rr)
{
	memset(rr, 0, sizeof(*rr));
	rr->sink_stag = 0x1234;
	rr->sink_to = 0x5000;
	rr->rdma_rd_sz = 64;
	rr->src_stag = r->dut.r_key;
	rr->src_to = r->dut.va;
}

/* Build what @p e sends into @p u; the return is its length, 0 when the
 * DUT lacks what the case needs (the verdict is then NA). */
static uint16_t
build_err(struct rk_conform_run *r, enum iw_send what, uint8_t *u, bool *sent_before)
{
	static const uint8_t data[32] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct rk_rdmap_read_req_fields rr;
	uint16_t n;

	*sent_before = false;
	read_req_fields(r, &rr);
	switch (what) {
	case IW_WRITE_BAD_CRC:
	case IW_WRITE_BAD_MARKER:
		return rk_probe_iw_write(u, r->dut.r_key, r->dut.va, true, data, sizeof(data));
	case IW_WRITE_STAG_UNKNOWN:
		return rk_probe_iw_write(u, r->dut.r_key ^ 0x01, r->dut.va, true, data, sizeof(data));
	case IW_WRITE_PAST_END:
		return rk_probe_iw_write(u, r->dut.r_key, r->dut.va + r->dut.len - sizeof(data) + 1,
					 true, data, sizeof(data));
	case IW_WRITE_BELOW_BASE:
		return rk_probe_iw_write(u, r->dut.r_key, r->dut.va - 1, true, data, sizeof(data));
	case IW_WRITE_WRAP:
		return rk_probe_iw_write(u, r->dut.r_key, ~0ull - 8, true, data, sizeof(data));
	case IW_WRITE_OTHER_PD:
		if (r->dut.other_stag == 0) {
			rk_conform_na(r, "no STag of another protection domain known");
			return 0;
		}
		return rk_probe_iw_write(u, r->dut.other_stag, r->dut.other_va, true, data,
					 sizeof(data));
	case IW_WRITE_READ_ONLY:
		if (r->dut.ro_r_key == 0) {
			rk_conform_na(r, "no read-only region known");
			return 0;
		}
		return rk_probe_iw_write(u, r->dut.ro_r_key, r->dut.ro_va, true, data, sizeof(data));
	case IW_WRITE_DV2:
		n = rk_probe_iw_write(u, r->dut.r_key, r->dut.va, true, data, 10);
		rk_ddp_set_dv(u, 2);
		return n;
	case IW_SEND_NO_RECV:
		return rk_probe_iw_send(u, RK_RDMAP_SEND, 1, 0, true, 0, data, 10);
	case IW_SEND_MSN_AHEAD:
		return rk_probe_iw_send(u, RK_RDMAP_SEND, 6, 0, true, 0, data, 10);
	case IW_SEND_MO_WRONG:
		/* The first segment is fine; the second claims MO 5 after 10 bytes. */
		n = rk_probe_iw_send(u, RK_RDMAP_SEND, 1, 0, false, 0, data, 10);
		if (rk_conform_iw_send(r, u, n, false) != 0)
			return 0;
		*sent_before = true;
		return rk_probe_iw_send(u, RK_RDMAP_SEND, 1, 5, true, 0, data, 10);
	case IW_SEND_TOO_LONG: {
		/* Segments of 1 KiB until one more than the receive holds. */
		static uint8_t big[1024];
		uint32_t mo = 0;

		if (r->dut.recv_len == 0) {
			rk_conform_na(r, "the DUT's receive length is unknown");
			return 0;
		}
		while (mo <= r->dut.recv_len) {
			n = rk_probe_iw_send(u, RK_RDMAP_SEND, 1, mo, false, 0, big, sizeof(big));
			if (rk_conform_iw_send(r, u, n, false) != 0)
				return 0;
			mo += sizeof(big);
		}
		*sent_before = true;
		return rk_probe_iw_send(u, RK_RDMAP_SEND, 1, mo, true, 0, big, sizeof(big));
	}
	case IW_SEND_QN1:
		n = rk_probe_iw_send(u, RK_RDMAP_SEND, 1, 0, true, 0, data, 10);
		rk_ddp_set_qn(u, 1);
		return n;
	case IW_SEND_DV0:
		n = rk_probe_iw_send(u, RK_RDMAP_SEND, 1, 0, true, 0, data, 10);
		rk_ddp_set_dv(u, 0);
		return n;
	case IW_SEND_RV2:
		n = rk_probe_iw_send(u, RK_RDMAP_SEND, 1, 0, true, 0, data, 10);
		rk_rdmap_set_rv(u, 2);
		return n;
	case IW_SEND_OPCODE12:
		n = rk_probe_iw_send(u, RK_RDMAP_SEND, 1, 0, true, 0, data, 10);
		rk_rdmap_set_opcode(u, 12);
		return n;
	case IW_READ_RESP_UNSOLICITED:
		n = rk_probe_iw_write(u, r->dut.r_key, r->dut.va, true, data, 10);
		rk_rdmap_set_opcode(u, RK_RDMAP_READ_RESP);
		return n;
	case IW_READ_STAG_UNKNOWN:
		rr.src_stag ^= 0x80;
		return rk_probe_iw_read_req(u, 1, &rr);
	case IW_READ_PAST_END:
		rr.rdma_rd_sz = r->dut.len + 1;
		return rk_probe_iw_read_req(u, 1, &rr);
	case IW_READ_WITH_PAYLOAD:
		n = rk_probe_iw_read_req(u, 1, &rr);
		memset(u + n, 0, 4);
		return (uint16_t)(n + 4);
	}
	return 0;
}

/* Spoil the marker inside the FPDU of @p u and send it (CRC recomputed,
 * so only the marker is wrong). Needs markers toward the DUT. */
static int
send_bad_marker(struct rk_conform_run *r)
{
	static uint8_t big[600];
	uint8_t u[700], f[1024];
	struct rk_mpa_tx tx;
	uint16_t n = rk_probe_iw_write(u, r->dut.r_key, r->dut.va, true, big, 500);
	uint32_t at, crc;
	int w;

	tx = (struct rk_mpa_tx){ true, r->mpa->crc, r->mpa->seq, r->mpa->seq0 };
	w = rk_mpa_fpdu_build(f, sizeof(f), u, n, &tx);
	/* The first grid point inside this FPDU: 512-byte steps from the first FPDU byte. */
	at = 512 - (r->mpa->seq - r->mpa->seq0) % 512;
	if (w <= 0 || at + 4 >= (uint32_t)w || !r->mpa->crc) {
		rk_conform_fail(r, "tester could not place a marker");
		return -EINVAL;
	}
	f[at + 3] ^= 4;         /* FPDUPTR off by 4 */
	crc = rk_crc32c(f, (size_t)w - 4);
	for (int i = 0; i < 4; i++)
		f[w - 4 + i] = (uint8_t)(crc >> (8 * i));
	return rk_conform_iw_send_raw(r, f, (size_t)w);
}

static void
run_err(struct rk_conform_run *r, const void *arg)
{
	const struct iw_err *e = arg;
	uint8_t u[2048];
	bool before;
	uint16_t n;

	if (!rk_conform_iw_connect(r))
		return;
	if (e->what == IW_WRITE_BAD_MARKER) {
		if (!r->mpa->markers_to_dut) {
			rk_conform_na(r, "the DUT did not ask for markers (Reply M = 0)");
			return;
		}
		if (send_bad_marker(r) != 0)
			return;
	} else {
		n = build_err(r, e->what, u, &before);
		if (n == 0) {
			if (r->res->verdict == RK_CONFORM_PASS)
				rk_conform_fail(r, "tester could not build the ULPDU");
			return;
		}
		if (rk_conform_iw_send(r, u, n, e->what == IW_WRITE_BAD_CRC) != 0)
			return;
	}
	rk_conform_iw_expect_term(r, e->layer, e->etype, e->code);
}

/* MPA-KEY-01: a Request with a spoilt key gets no Reply, the stream closes. */
static void
spoil_key(uint8_t *b, int n)
{
	if (n > 3)
		b[3] = 'X';
}

static void
run_mpa_key(struct rk_conform_run *r, const void *arg)
{
	struct rk_mpa_rr req;
	int rc;

	(void)arg;
	rk_probe_mpa_default_req(&req);
	rc = request(r, &req, spoil_key);
	if (rc < 0)
		return;
	if (rc > 0 || r->mpa->reply_have > 0)
		rk_conform_fail(r, "an answer to a Request with a wrong key");
	else if (!r->closed)
		rk_conform_fail(r, "the stream stayed open after a Request with a wrong key");
}

/* RFC 5044 7.1.1 / RFC 6581: an unknown revision or a Request with R set
 * is refused with a Reply whose R bit is set. */
static void
run_mpa_reject(struct rk_conform_run *r, const void *arg)
{
	const int *k = arg;
	struct rk_mpa_rr req;
	int rc;

	rk_probe_mpa_default_req(&req);
	if (*k == 0)
		req.rev = 3;
	else
		req.r = 1;
	rc = rk_conform_iw_request(r, &req);
	if (rc < 0)
		return;
	if (rc == 0)
		rk_conform_fail(r, "no MPA Reply (a reject with R = 1 is due)%s",
				r->closed ? ", the stream closed" : "");
	else if (!r->mpa->reply.r)
		rk_conform_fail(r, "the DUT accepted (R = 0)");
}

/*
 * A Request @p req (accepted by the DUT: R = 0 in its Reply), then a Read
 * of @p size bytes whose Response must come framed as negotiated: its CRC
 * right, and its markers too when @p markers.
 */
static void
negotiated_read(struct rk_conform_run *r, const struct rk_mpa_rr *req, const char *what,
		uint32_t size, bool markers)
{
	struct rk_rdmap_read_req_fields rr;
	uint8_t u[64];
	uint16_t n;
	int rc = rk_conform_iw_request(r, req);

	if (rc <= 0) {
		if (rc == 0)
			rk_conform_fail(r, "no MPA Reply to a Request with %s", what);
		return;
	}
	if (r->mpa->reply.r) {
		rk_conform_fail(r, "the DUT rejected a Request with %s", what);
		return;
	}
	read_req_fields(r, &rr);
	rr.rdma_rd_sz = size;
	n = rk_probe_iw_read_req(u, 1, &rr);
	if (rk_conform_iw_send(r, u, n, false) != 0 || rk_conform_iw_wait(r, 1) < 0)
		return;
	if (r->mpa->nmsgs == 0)
		rk_conform_fail(r, "no Read Response after the negotiation");
	else if (r->mpa->msgs[0].opcode != RK_RDMAP_READ_RESP)
		rk_conform_fail(r, "RDMAP opcode 0x%x instead of a Read Response",
				r->mpa->msgs[0].opcode);
	else if (!r->mpa->msgs[0].crc_ok)
		rk_conform_fail(r, "the Read Response's CRC is wrong (C = %u)", r->mpa->reply.c);
	else if (markers && !r->mpa->msgs[0].markers_ok)
		rk_conform_fail(r, "the Read Response's markers are wrong");
}

/* RFC 5044 7.1.2: CRC is used when either side sets C; a Reply to C = 0
 * says what the DUT decided, and FPDUs follow it. */
static void
run_mpa_crc_nego(struct rk_conform_run *r, const void *arg)
{
	struct rk_mpa_rr req;

	(void)arg;
	rk_probe_mpa_default_req(&req);
	req.c = 0;
	negotiated_read(r, &req, "C = 0", 16, false);
}

/* RFC 5044 7.1.2: Request M = 1: the DUT's FPDUs carry markers (a Read of
 * 1 KiB crosses at least one 512-byte grid point). */
static void
run_mpa_markers(struct rk_conform_run *r, const void *arg)
{
	struct rk_mpa_rr req;

	(void)arg;
	rk_probe_mpa_default_req(&req);
	req.m = 1;
	negotiated_read(r, &req, "M = 1", 1024, true);
}

/* MPA-RTR-01: peer-to-peer with a Read RTR, then a Write first. */
static void
run_mpa_rtr_wrong(struct rk_conform_run *r, const void *arg)
{
	static const uint8_t data[4];
	struct rk_mpa_rr req;
	uint8_t u[64];
	uint16_t n;
	int rc;

	(void)arg;
	if (!r->dut.p2p) {
		rk_conform_na(r, "the DUT does not take peer-to-peer RTR negotiation");
		return;
	}
	rk_probe_mpa_default_req(&req);
	req.ird_ord.p2p = 1;
	req.ird_ord.rtr_read = 1;
	rc = rk_conform_iw_request(r, &req);
	if (rc <= 0) {
		if (rc == 0)
			rk_conform_fail(r, "no MPA Reply to a peer-to-peer Request");
		return;
	}
	if (r->mpa->reply.r || !r->mpa->reply.ird_ord.p2p || !r->mpa->reply.ird_ord.rtr_read) {
		rk_conform_fail(r, "the Reply does not agree on a Read RTR");
		return;
	}
	n = rk_probe_iw_write(u, r->dut.r_key, r->dut.va, true, data, sizeof(data));
	if (rk_conform_iw_send(r, u, n, false) == 0)
		rk_conform_iw_expect_term(r, RK_TERM_LAYER_LLP, 0, 0x07);
}

/* RFC 5040 4.4, 5.2: a valid Read gets one Read Response with the data. */
static void
run_read_ok(struct rk_conform_run *r, const void *arg)
{
	struct rk_rdmap_read_req_fields rr;
	uint8_t u[64], want[64];
	uint16_t n;

	(void)arg;
	if (!rk_conform_iw_connect(r))
		return;
	read_req_fields(r, &rr);
	n = rk_probe_iw_read_req(u, 1, &rr);
	if (rk_conform_iw_send(r, u, n, false) != 0 || rk_conform_iw_wait(r, 1) < 0)
		return;
	if (r->mpa->nmsgs == 0) {
		rk_conform_fail(r, "no Read Response");
		return;
	}
	{
		const struct rk_probe_iw_msg *m = &r->mpa->msgs[0];
		char got[64];

		if (m->opcode != RK_RDMAP_READ_RESP || !m->t || !m->l)
			rk_conform_fail(r, "%s instead of a last, tagged Read Response",
					msg_str(m, got, sizeof(got)));
		else if (m->stag != rr.sink_stag || m->to != rr.sink_to ||
			 m->payload_len != rr.rdma_rd_sz)
			rk_conform_fail(r, "Read Response to STag 0x%x TO 0x%llx, %u bytes", m->stag,
					(unsigned long long)m->to, m->payload_len);
		else if (r->env->read_mem != NULL &&
			 r->env->read_mem(r->env->ctx, 0, want, sizeof(want)) == 0 &&
			 memcmp(want, m->payload, sizeof(want)) != 0)
			rk_conform_fail(r, "the Read Response's data is not the region's");
	}
}

/* RFC 5041 5.1 (tagged placement): a valid Write lands and is answered by
 * nothing; a Read of the same bytes then returns them, so silence alone
 * does not pass. */
static void
run_write_ok(struct rk_conform_run *r, const void *arg)
{
	static const uint8_t data[16] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8 };
	struct rk_rdmap_read_req_fields rr;
	const struct rk_probe_iw_msg *m;
	uint8_t u[64];
	uint16_t n;

	(void)arg;
	if (!rk_conform_iw_connect(r))
		return;
	n = rk_probe_iw_write(u, r->dut.r_key, r->dut.va + 64, true, data, sizeof(data));
	if (rk_conform_iw_send(r, u, n, false) != 0 || rk_conform_iw_wait(r, 1) < 0)
		return;
	if (r->mpa->nmsgs > 0 || r->closed) {
		rk_conform_fail(r, "%s after a valid Write",
				r->closed ? "the stream closed" : "an answer");
		return;
	}
	read_req_fields(r, &rr);
	rr.src_to = r->dut.va + 64;
	rr.rdma_rd_sz = sizeof(data);
	n = rk_probe_iw_read_req(u, 1, &rr);
	if (rk_conform_iw_send(r, u, n, false) != 0 || rk_conform_iw_wait(r, 1) < 0)
		return;
	if (r->mpa->nmsgs == 0) {
		rk_conform_fail(r, "no Read Response to read the Write back");
		return;
	}
	m = &r->mpa->msgs[0];
	if (m->opcode != RK_RDMAP_READ_RESP || m->payload_len != sizeof(data) ||
	    memcmp(m->payload, data, sizeof(data)) != 0)
		rk_conform_fail(r, "the Write's data did not land (read back differs)");
}

#define IW RK_CONFORM_IWARP
/* A case whose valid requests need a region (ACC) on the DUT's QP. */
#define CA(id_, rule_, must_, recvs_, acc_, run_, arg_) \
	{ .id = id_, .rule = rule_, .must = must_, .transport = IW, .recvs = recvs_, \
	  .access = acc_, .run = run_, .arg = arg_ }
#define C(id_, rule_, must_, recvs_, run_, arg_) CA(id_, rule_, must_, recvs_, 0, run_, arg_)
#define WR RK_CONFORM_ACC_WRITE
#define RD RK_CONFORM_ACC_READ
#define ERR(w, l, e, c) (&(const struct iw_err){ w, l, e, c })
#define TERM_C(id_, rule_, must_, recvs_, w, l, e, c) C(id_, rule_, must_, recvs_, run_err, ERR(w, l, e, c))
#define TERM_CA(id_, rule_, must_, recvs_, acc_, w, l, e, c) \
	CA(id_, rule_, must_, recvs_, acc_, run_err, ERR(w, l, e, c))

static const int k_rev = 0, k_r = 1;

static const struct rk_conform_case iw_cases[] = {
	/* MPA (RFC 5044, RFC 6581) */
	C("iw.mpa.key_bad", "RFC 5044 7.1.1 [MPA-KEY-01]",
	  "give no Reply to a Request with a wrong key and close the stream", 0, run_mpa_key, NULL),
	C("iw.mpa.rev_unknown", "RFC 5044 7.1.1, RFC 6581",
	  "refuse a Request of Rev 3 with a Reply whose R bit is set", 0, run_mpa_reject, &k_rev),
	C("iw.mpa.request_r_set", "RFC 5044 7.1.1",
	  "refuse a Request whose R bit is set with a rejecting Reply", 0, run_mpa_reject, &k_r),
	CA("iw.mpa.crc_negotiation", "RFC 5044 7.1.2",
	  "answer a Request with C = 0 and frame its FPDUs as the Reply's C says", 0, RD,
	  run_mpa_crc_nego, NULL),
	CA("iw.mpa.markers", "RFC 5044 4, 7.1.2",
	  "put a correct marker every 512 bytes of its stream when the Request has M = 1", 0, RD,
	  run_mpa_markers, NULL),
	TERM_C("iw.mpa.crc_bad", "RFC 5044 8 [MPA-CRC-01]",
	       "answer an FPDU with a bad CRC with Terminate 2/0/0x02", 0, IW_WRITE_BAD_CRC,
	       RK_TERM_LAYER_LLP, 0, 0x02),
	TERM_C("iw.mpa.marker_bad", "RFC 5044 8 [MPA-MARK-01]",
	       "answer a marker pointing off the FPDU's start with Terminate 2/0/0x03", 0,
	       IW_WRITE_BAD_MARKER, RK_TERM_LAYER_LLP, 0, 0x03),
	C("iw.mpa.rtr_wrong", "RFC 6581 [MPA-RTR-01]",
	  "answer a Write where the agreed Read RTR is due with Terminate 2/0/0x07", 0,
	  run_mpa_rtr_wrong, NULL),
	/* DDP (RFC 5041) */
	CA("iw.ddp.write_ok", "RFC 5041 5.1",
	  "place a valid tagged Write in its buffer (read back) and answer nothing", 0, WR | RD,
	  run_write_ok, NULL),
	TERM_C("iw.ddp.stag_invalid", "RFC 5041 7.2 [DDP-STAG-01]",
	       "answer a Write to an STag it does not hold with Terminate 1/1/0x00", 0,
	       IW_WRITE_STAG_UNKNOWN, RK_TERM_LAYER_DDP, 1, 0x00),
	TERM_C("iw.ddp.stag_other_pd", "RFC 5041 7.2 [DDP-STAG-02]",
	       "answer a Write to another protection domain's STag with Terminate 1/1/0x02", 0,
	       IW_WRITE_OTHER_PD, RK_TERM_LAYER_DDP, 1, 0x02),
	TERM_CA("iw.ddp.bounds_past_end", "RFC 5041 7.2 [DDP-BOUNDS-01]",
	       "answer a Write one byte past its buffer with Terminate 1/1/0x01", 0, WR,
	       IW_WRITE_PAST_END, RK_TERM_LAYER_DDP, 1, 0x01),
	TERM_CA("iw.ddp.bounds_below", "RFC 5041 7.2 [DDP-BOUNDS-01]",
	       "answer a Write below its buffer's base with Terminate 1/1/0x01", 0, WR,
	       IW_WRITE_BELOW_BASE, RK_TERM_LAYER_DDP, 1, 0x01),
	TERM_CA("iw.ddp.bounds_wrap", "RFC 5041 7.2 [DDP-BOUNDS-02]",
	       "answer a Write whose TO plus length wraps with Terminate 1/1/0x03", 0, WR,
	       IW_WRITE_WRAP, RK_TERM_LAYER_DDP, 1, 0x03),
	TERM_C("iw.ddp.tagged_version", "RFC 5041 7.2 [DDP-VER-01]",
	       "answer a tagged segment with DV 2 with Terminate 1/1/0x04", 0, IW_WRITE_DV2,
	       RK_TERM_LAYER_DDP, 1, 0x04),
	TERM_C("iw.ddp.untagged_version", "RFC 5041 7.2 [DDP-VER-01]",
	       "answer an untagged segment with DV 0 with Terminate 1/2/0x06", 1, IW_SEND_DV0,
	       RK_TERM_LAYER_DDP, 2, 0x06),
	TERM_C("iw.ddp.qn_wrong", "RFC 5041 7.2 [DDP-QN-01]",
	       "answer a Send on queue 1 with Terminate 1/2/0x01", 1, IW_SEND_QN1,
	       RK_TERM_LAYER_DDP, 2, 0x01),
	TERM_C("iw.ddp.msn_ahead", "RFC 5041 7.2 [DDP-MSN-01]",
	       "answer a Send whose MSN is not the queue's next with Terminate 1/2/0x03", 1,
	       IW_SEND_MSN_AHEAD, RK_TERM_LAYER_DDP, 2, 0x03),
	TERM_CA("iw.ddp.no_recv", "RFC 5041 7.2 [DDP-MSN-02]",
	       "answer a Send with no receive posted with Terminate 1/2/0x02", 0,
	       RK_CONFORM_ACC_NO_RECV, IW_SEND_NO_RECV, RK_TERM_LAYER_DDP, 2, 0x02),
	TERM_C("iw.ddp.mo_wrong", "RFC 5041 7.2 [DDP-MO-01]",
	       "answer a Send segment whose MO is not where the message stands with Terminate 1/2/0x04",
	       1, IW_SEND_MO_WRONG, RK_TERM_LAYER_DDP, 2, 0x04),
	TERM_C("iw.ddp.too_long", "RFC 5041 7.2 [DDP-LEN-01]",
	       "answer a Send longer than its receive buffer with Terminate 1/2/0x05", 1,
	       IW_SEND_TOO_LONG, RK_TERM_LAYER_DDP, 2, 0x05),
	/* RDMAP (RFC 5040) */
	CA("iw.rdmap.read_ok", "RFC 5040 4.4, 5.2",
	  "answer a valid Read Request with one Read Response carrying the region's data", 0, RD,
	  run_read_ok, NULL),
	TERM_C("iw.rdmap.version", "RFC 5040 4.8 [RDMAP-VER-01]",
	       "answer an RDMAP header with RV 2 with Terminate 0/2/0x05", 1, IW_SEND_RV2,
	       RK_TERM_LAYER_RDMAP, 2, 0x05),
	TERM_C("iw.rdmap.opcode_reserved", "RFC 5040 4.8 [RDMAP-OPC-01]",
	       "answer the reserved opcode 12 with Terminate 0/2/0x06", 1, IW_SEND_OPCODE12,
	       RK_TERM_LAYER_RDMAP, 2, 0x06),
	TERM_C("iw.rdmap.read_resp_unsolicited", "RFC 5040 4.8 [RDMAP-RRESP-01]",
	       "answer a Read Response with no Read outstanding with Terminate 0/2/0x06", 0,
	       IW_READ_RESP_UNSOLICITED, RK_TERM_LAYER_RDMAP, 2, 0x06),
	TERM_C("iw.rdmap.write_read_only", "RFC 5040 4.8 [RDMAP-ACC-01]",
	       "answer a Write to a region without remote write with Terminate 0/1/0x02", 0,
	       IW_WRITE_READ_ONLY, RK_TERM_LAYER_RDMAP, 1, 0x02),
	TERM_C("iw.rdmap.read_stag_invalid", "RFC 5040 4.8 [RDMAP-STAG-01]",
	       "answer a Read Request naming an unknown Data Source STag with Terminate 0/1/0x00", 0,
	       IW_READ_STAG_UNKNOWN, RK_TERM_LAYER_RDMAP, 1, 0x00),
	TERM_CA("iw.rdmap.read_past_end", "RFC 5040 4.8 [RDMAP-BOUNDS-01]",
	       "answer a Read past its Data Source buffer with Terminate 0/1/0x01", 0, RD,
	       IW_READ_PAST_END, RK_TERM_LAYER_RDMAP, 1, 0x01),
	TERM_CA("iw.rdmap.read_with_payload", "RFC 5040 4.8 [RDMAP-RR-01]",
	       "answer a Read Request carrying payload with Terminate 0/2/0xff", 0, RD,
	       IW_READ_WITH_PAYLOAD, RK_TERM_LAYER_RDMAP, 2, 0xff),
};

const struct rk_conform_case *
rk_conform_iw_cases(unsigned int *n)
{
	*n = sizeof(iw_cases) / sizeof(iw_cases[0]);
	return iw_cases;
}
