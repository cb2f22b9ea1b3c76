/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-interop over iWARP: the peer of rping and of perftest's ib_*_bw -R on
 * Linux soft-iWARP (siw), in either role. TCP is Debian's lwIP on the DPDK
 * port (lib/io rk_io_lwip), MPA/DDP/RDMAP is lib/iwarp behind the verbs
 * API (rk_open_device_iwarp); every frame is recorded with the port's
 * pcapng writer.
 *
 * rdma_cm over iWARP has no CM messages of its own: rdma_connect() is a
 * TCP connect plus the MPA Request, rdma_accept() the MPA Reply, the
 * private data travels raw in them (rping and perftest send none; siw
 * adds the RFC 6581 IRD/ORD words), and rdma_disconnect() is a TCP close.
 * So a connection here is: TCP (lwIP; a client refused by a port nobody
 * listens on yet tries again), one FPDU per TCP segment, then
 * rk_qp_connect_stream() with the MPA options of the command line, wait
 * until the QP runs; a disconnect is the stream's end. The Linux tools
 * need some slack around both ends (see iw_connect() and iw_perftest()).
 *
 * perftest's ib_send_bw over iWARP flow-controls with credits (no RNR in
 * iWARP): the receiver RDMA-Writes its count of messages taken (32-bit,
 * little endian) into the sender's advertised buffer; both sides here.
 *
 * rping (per ping, as rdmacm.c describes it): client SENDs its source
 * buffer (address, STag, length: 16 bytes big endian), the server READs
 * it and SENDs a go-ahead, the client SENDs its sink, the server WRITEs
 * the text there and SENDs a go-ahead; both roles check the text.
 *
 * perftest -R: two connections to the same port, the first for the
 * exchange (perftest's messages as SENDs, the client first: version,
 * cycle buffer, cache line, MTU, keys), the second the data QP, opened
 * after the first key message; then barriers (key messages), the data
 * phase, the bw report and a last barrier, as perftest.c and
 * perftest_run.c do over RDMA-CM on RoCE.
 *
 * Markers (--markers, we ask the peer to put them in what it sends):
 * Linux siw implements none and refuses a Request with M = 1 by a Reply
 * with R = 1 (and, as initiator, a Reply with M = 1 by closing); either
 * answer ends the run with a message saying so and exit status 3.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perftest.h"
#include "rping.h"
#include "rk_byteorder.h"
#include "rk_io_lwip.h"
#include "rk_tcp_lwip.h"

#define IW_FIRST_SEND_DELAY_MS 100

/* How a QP is made (again, when a connection attempt is refused). */
struct iw_qp_spec {
	struct rk_pd *pd;
	struct rk_cq *cq;
	uint32_t sq, rq;
	uint8_t ird, ord;
};

struct iw {
	struct ia *a;
	struct rk_io_lwip *lw;
	struct rk_lwip_listener *lis;
	bool client;
	uint64_t connects;
};

/* ------------------------------------------------------------ plumbing */

/* One round of the poll loop: port, lwIP, engine. Work done (0: idle). */
static int
iw_pump(struct iw *w)
{
	struct ia *a = w->a;
	int n = rk_io_lwip_poll(w->lw);

	if (a->ctx != NULL) {
		n += rk_progress(a->ctx);
		n += rk_io_lwip_poll(w->lw);
	}
	rk_io_dpdk_idle(a->io, n);
	return n;
}

/* Pump for @p ms milliseconds (FINs, last segments and their ACKs). */
static void
iw_drain(struct iw *w, unsigned int ms)
{
	uint64_t until = rk_io_dpdk_now_ns() + (uint64_t)ms * 1000000ull;

	while (rk_io_dpdk_now_ns() < until)
		(void)iw_pump(w);
}

static const char *
iw_reason(enum rk_iw_close_reason r)
{
	switch (r) {
	case RK_IW_CLOSE_TERM_SENT: return "we sent a Terminate";
	case RK_IW_CLOSE_TERM_RCVD: return "the peer sent a Terminate";
	case RK_IW_CLOSE_MPA_REJECTED: return "the MPA set-up was rejected (Reply with R = 1)";
	case RK_IW_CLOSE_MPA_BAD: return "the peer's MPA frame was not valid";
	case RK_IW_CLOSE_MPA_TIMEOUT: return "no MPA Request/Reply in time";
	case RK_IW_CLOSE_LLP: return "the TCP connection ended";
	case RK_IW_CLOSE_LOCAL: return "closed locally";
	default: return "no error";
	}
}

/* The QP's error record as text into a->err; -1, or 3 when markers were refused. */
static int
iw_qp_fail(struct iw *w, struct rk_qp *qp, const char *what)
{
	struct ia *a = w->a;
	const struct rk_iw_qp *e = rk_qp_iw(qp);
	const struct rk_iw_error *er = e != NULL ? rk_iw_qp_error(e) : NULL;

	if (er == NULL)
		return ia_fail(a, "%s: the QP has no connection", what);
	/* Markers asked for and the first set-up failed: the peer's answer to them. */
	if (a->o.mpa_markers && w->connects == 0) {
		ia_fail(a, "%s: the peer refused MPA markers (%s%s; Linux siw implements no "
			"markers)", what, iw_reason(er->reason),
			er->reason == RK_IW_CLOSE_TERM_RCVD ? ", Terminate" : "");
		return 3;
	}
	if (!w->client && a->o.mpa_rev == 1 && w->connects == 0 && er->reason == RK_IW_CLOSE_LLP)
		return ia_fail(a, "%s: the peer closed the connection after our MPA Rev 1 Reply "
			       "(Linux siw, a Rev 2 enhanced Initiator, accepts only Rev 2 Replies)",
			       what);
	if (er->reason == RK_IW_CLOSE_TERM_SENT || er->reason == RK_IW_CLOSE_TERM_RCVD)
		return ia_fail(a, "%s: %s (Layer %u, EType %u, Code %#04x)", what,
			       iw_reason(er->reason), er->layer, er->etype, er->code);
	return ia_fail(a, "%s: %s", what, iw_reason(er->reason));
}

static void
iw_print_neg(struct iw *w, struct rk_qp *qp, const char *what)
{
	const struct rk_iw_negotiated *n = rk_iw_qp_negotiated(rk_qp_iw(qp));

	if (n == NULL)
		return;
	printf("%s: MPA Rev %u%s, CRC %s, markers rx %s tx %s, IRD %u ORD %u (peer %u/%u)\n",
	       what, n->rev, n->enhanced ? " enhanced" : "", n->crc ? "on" : "off",
	       n->markers_rx ? "on" : "off", n->markers_tx ? "on" : "off", n->ird, n->ord,
	       n->peer_ird, n->peer_ord);
	fflush(stdout);
	(void)w;
}

static int iw_post_recv(struct iw *w, struct rk_qp *qp, uint64_t id, void *buf, uint32_t len,
			uint32_t lkey);
static struct rk_qp *iw_create_qp(struct iw *w, const struct iw_qp_spec *sp);

/* One try: 0 connected, 1 refused before any MPA Reply (retry), -1 / 3 failed. */
static int
iw_connect_once(struct iw *w, struct rk_qp *qp, const char *what, const struct rk_recv_wr *first,
		double deadline)
{
	struct ia *a = w->a;
	struct rk_iw_conn_attr c = { .role = w->client ? RK_IW_INITIATOR : RK_IW_RESPONDER,
				     .rev = a->o.mpa_rev, .enhanced = a->o.mpa_rev == 2,
				     .p2p = a->o.mpa_p2p && a->o.mpa_rev == 2,
				     .rtr_types = RK_IW_RTR_WRITE | RK_IW_RTR_READ,
				     .markers_rx = a->o.mpa_markers, .crc = a->o.mpa_crc };
	struct rk_tcp *t = NULL;
	int rc;

	if (w->client) {
		t = rk_tcp_lwip_connect(a->o.server_host, a->o.tcp_port);
		if (t == NULL)
			return ia_fail(a, "%s: cannot start a TCP connection to %s:%u: %s", what,
				       a->o.server_host, a->o.tcp_port, strerror(errno));
	} else {
		while ((t = rk_tcp_lwip_accept(w->lis)) == NULL) {
			if (errno != EAGAIN)
				return ia_fail(a, "%s: accept: %s", what, strerror(errno));
			if ((double)rk_io_dpdk_now_ns() > deadline)
				return ia_fail(a, "%s: no TCP connection on port %u within %g s",
					       what, a->o.tcp_port, a->o.oob_timeout_s);
			if (ia_watchdog(a, 1) != 0)     /* SIGINT/SIGTERM */
				return -1;
			(void)iw_pump(w);
		}
	}
	/*
	 * One FPDU per TCP segment (RFC 5044 section 8): siw checks the CRC of
	 * FPDUs split across segments at odd places wrongly (seen: a Terminate
	 * for good CRCs in Read Responses that lwIP had cut at its window).
	 */
	if (!a->o.mpa_markers)
		rk_tcp_lwip_mpa_align(t);
	rc = rk_qp_connect_stream(qp, t, &c);
	if (rc != 0) {
		t->ops->close(t);
		return ia_fail(a, "%s: cannot start MPA: %s", what, strerror(-rc));
	}
	/* Receives go up once the stream is attached, before any byte is read. */
	if (first != NULL && iw_post_recv(w, qp, first->wr_id, (void *)(uintptr_t)
					  first->sg_list->addr, first->sg_list->length,
					  first->sg_list->lkey) != 0)
		return -1;
	for (;;) {
		const struct rk_iw_qp *e = rk_qp_iw(qp);
		enum rk_iw_state s = rk_iw_qp_state(e);

		/*
		 * With markers or Rev 1, a Responder's first connection waits for
		 * the first FPDU too (rping's and perftest's clients send first),
		 * so a peer refusing our Reply shows here, as a set-up failure.
		 * Not later ones: perftest's data connection carries nothing
		 * before the exchange connection's next messages.
		 */
		if (s == RK_IW_RTS ||
		    (s == RK_IW_RTR_WAIT && !w->client &&
		     ((!a->o.mpa_markers && a->o.mpa_rev != 1) || w->connects > 0)))
			return 0;
		if (s == RK_IW_TERMINATE || s == RK_IW_CLOSED) {
			/* Nobody listening yet (RST to our SYN): as rdma_connect() retries. */
			if (w->client && rk_iw_qp_negotiated(e) == NULL &&
			    rk_iw_qp_error(e)->reason == RK_IW_CLOSE_LLP &&
			    (double)rk_io_dpdk_now_ns() < deadline)
				return 1;
			/* Let a reject Reply or Terminate leave before we report. */
			iw_drain(w, 200);
			return iw_qp_fail(w, qp, what);
		}
		if ((double)rk_io_dpdk_now_ns() > deadline) {
			if (w->client && rk_iw_qp_negotiated(e) == NULL)
				return ia_fail(a, "%s: no MPA Reply from %s:%u within %g s", what,
					       a->o.server_host, a->o.tcp_port, a->o.oob_timeout_s);
			return ia_fail(a, "%s: the MPA set-up did not complete within %g s", what,
				       a->o.oob_timeout_s);
		}
		if (ia_watchdog(a, 1) != 0)
			return -1;
		(void)iw_pump(w);
	}
}

/*
 * One rdma_cm connection over iWARP for the QP at *@p qpp (in INIT, made
 * from @p sp): TCP connect or accept on o.tcp_port, the MPA exchange,
 * then wait until the QP runs (an Initiator: RTS; a Responder: RTS or
 * waiting for the first FPDU). A client refused by a port nobody listens
 * on yet retries with a new QP until o.oob_timeout_s. 0, or -1 / 3.
 */
static int
iw_connect(struct iw *w, struct rk_qp **qpp, const struct iw_qp_spec *sp, const char *what,
	   const struct rk_recv_wr *first)
{
	struct ia *a = w->a;
	double deadline = (double)rk_io_dpdk_now_ns() + a->o.oob_timeout_s * 1e9;
	int rc;

	while ((rc = iw_connect_once(w, *qpp, what, first, deadline)) == 1) {
		rk_destroy_qp(*qpp);
		*qpp = NULL;
		iw_drain(w, 250);
		if ((*qpp = iw_create_qp(w, sp)) == NULL)
			return -1;
	}
	if (rc != 0)
		return rc;
	/*
	 * A first Send that reaches the Linux tool before its process handled
	 * RDMA_CM_EVENT_ESTABLISHED is lost to it (rping's server then fails
	 * its READ with "post send error", perftest's server never answers);
	 * siw's own client sends some 10 ms after the Reply (its event round
	 * trip): as the Initiator, let the peer's application catch up.
	 */
	if (w->client)
		iw_drain(w, IW_FIRST_SEND_DELAY_MS);
	w->connects++;
	if (a->o.verbose)
		iw_print_neg(w, *qpp, what);
	return 0;
}

/* Whether @p qp's stream ended without an error (the peer's disconnect). */
static bool
iw_disconnected(struct rk_qp *qp)
{
	const struct rk_iw_qp *e = rk_qp_iw(qp);

	return e != NULL && rk_iw_qp_error(e)->reason == RK_IW_CLOSE_LLP;
}

static struct rk_qp *
iw_create_qp(struct iw *w, const struct iw_qp_spec *sp)
{
	struct rk_qp_init_attr ia = { .qp_type = RK_QPT_RC, .send_cq = sp->cq, .recv_cq = sp->cq,
				      .cap = { .max_send_wr = sp->sq, .max_recv_wr = sp->rq,
					       .max_send_sge = 1, .max_recv_sge = 1 } };
	struct rk_qp_attr at = { .qp_state = RK_QPS_INIT, .max_rd_atomic = sp->ord,
				 .max_dest_rd_atomic = sp->ird,
				 .qp_access_flags = RK_ACCESS_REMOTE_READ | RK_ACCESS_REMOTE_WRITE };
	struct rk_qp *qp = rk_create_qp(sp->pd, &ia);
	int rc;

	if (qp == NULL) {
		ia_fail(w->a, "create_qp: %s", strerror(errno));
		return NULL;
	}
	rc = rk_modify_qp(qp, &at, RK_QP_STATE | RK_QP_ACCESS_FLAGS | RK_QP_MAX_QP_RD_ATOMIC |
			  RK_QP_MAX_DEST_RD_ATOMIC);
	if (rc != 0) {
		ia_fail(w->a, "modify QP to INIT: %s", strerror(-rc));
		rk_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

static int
iw_post_recv(struct iw *w, struct rk_qp *qp, uint64_t id, void *buf, uint32_t len, uint32_t lkey)
{
	struct rk_sge sge = { (uint64_t)(uintptr_t)buf, len, lkey };
	struct rk_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct rk_recv_wr *bad;
	int rc = rk_post_recv(qp, &wr, &bad);

	return rc == 0 ? 0 : ia_fail(w->a, "post_recv: %s", strerror(-rc));
}

/*
 * Wait for one completion on @p cq (1, in @p wc) while pumping. 0 when
 * @p qp's stream ended without error first (a disconnect; flushed work
 * completions are then taken as that); -1 with a message otherwise.
 */
static int
iw_wait(struct iw *w, struct rk_cq *cq, struct rk_qp *qp, struct rk_wc *wc, const char *what)
{
	struct ia *a = w->a;

	rk_app_watchdog_restart(&a->wd);
	for (;;) {
		int n = rk_poll_cq(cq, 1, wc);

		if (n < 0)
			return ia_fail(a, "poll_cq: %s", strerror(-n));
		if (n == 1) {
			if (wc->status == RK_WC_SUCCESS)
				return 1;
			if (wc->status == RK_WC_WR_FLUSH_ERR && iw_disconnected(qp))
				return 0;
			if (rk_iw_qp_error(rk_qp_iw(qp))->reason != RK_IW_CLOSE_NONE) {
				char m[96];

				snprintf(m, sizeof(m), "%s (completion %s)", what,
					 rk_wc_status_str(wc->status));
				return iw_qp_fail(w, qp, m);
			}
			return ia_fail(a, "%s: completion error: %s", what,
				       rk_wc_status_str(wc->status));
		}
		if (iw_disconnected(qp))
			return 0;
		if (rk_iw_qp_state(rk_qp_iw(qp)) >= RK_IW_TERMINATE)
			return iw_qp_fail(w, qp, what);
		n = iw_pump(w);
		if (ia_watchdog(a, n) != 0)
			return ia_fail(a, "%s: nothing for %.0f s (the peer vanished?)", what,
				       a->o.timeout_s);
	}
}

/* ----------------------------------------------------------------- rping */

/* rping's wait over iWARP: the QP's stream ending cleanly is the disconnect. */
static int
rp_wait(struct ia_rping *r, struct rk_wc *wc, const char *what)
{
	return iw_wait(r->link, r->cq, r->qp, wc, what);
}

static int
iw_rping(struct iw *w)
{
	struct ia *a = w->a;
	struct ia_rping r = { .a = a, .size = a->o.size, .wait = rp_wait, .link = w };
	int rc = -1;

	/* parse_args() held the size to rping's 32..65535. */
	if (ia_rping_alloc(&r) != 0)
		goto out;
	/* rping asks for IRD = ORD = 1: one READ at a time. */
	{
		const struct iw_qp_spec sp = { r.pd, r.cq, 16, 2, 1, 1 };
		struct rk_sge sge = { (uint64_t)(uintptr_t)r.rx, IA_RPING_INFO, r.rx_mr->lkey };
		struct rk_recv_wr first = { .wr_id = IA_RPING_RECV, .sg_list = &sge,
					    .num_sge = 1 };

		r.qp = iw_create_qp(w, &sp);
		if (r.qp == NULL)
			goto out;
		rc = iw_connect(w, &r.qp, &sp, "rping", &first);
	}
	if (rc != 0)
		goto out;
	printf("rping: connected over iWARP, QPN %#x\n", r.qp->qp_num);
	iw_print_neg(w, r.qp, "rping");
	rc = w->client ? ia_rping_client(&r) : ia_rping_server(&r);
	/* rdma_disconnect(): the client closes the TCP connection. */
	if (r.qp != NULL) {
		rk_destroy_qp(r.qp);
		r.qp = NULL;
	}
	iw_drain(w, 200);
out:
	ia_rping_free(&r);
	return rc;
}

/* ------------------------------------------------------- perftest -R */

/*
 * The peer closed the exchange connection: a peer that fails mid-run
 * closes both, so say first what the data connection saw (a Terminate
 * either way), else the state it was in.
 */
static int
pt_exchange_closed(struct pt *t)
{
	struct rk_iw_qp *d = t->qp != NULL ? rk_qp_iw(t->qp) : NULL;
	const struct rk_iw_error *er = d != NULL ? rk_iw_qp_error(d) : NULL;

	if (er != NULL && (er->reason == RK_IW_CLOSE_TERM_SENT ||
			   er->reason == RK_IW_CLOSE_TERM_RCVD))
		return iw_qp_fail(t->link_ctx, t->qp,
				  "the peer closed the exchange connection; data QP");
	if (t->posted == 0)
		return ia_fail(t->a, "the peer closed the exchange connection (data QP %s)",
			       d != NULL ? rk_iw_state_name[rk_iw_qp_state(d)] : "not connected");
	return ia_fail(t->a, "the peer closed the exchange connection (data QP %s, %" PRIu64
		       " of %" PRIu64 " operations done)",
		       d != NULL ? rk_iw_state_name[rk_iw_qp_state(d)] : "not connected",
		       t->done, t->posted);
}

/* -R exchange QP: a failed completion, its reposted receive, the wait. */
static int
pt_comm_wc_fail(struct pt *t, const struct rk_wc *wc)
{
	char m[80];

	if (iw_disconnected(t->cqp))
		return pt_exchange_closed(t);
	snprintf(m, sizeof(m), "exchange QP (%s completion: %s)",
		 wc->wr_id == 1 ? "receive" : "send", rk_wc_status_str(wc->status));
	return iw_qp_fail(t->link_ctx, t->cqp, m);
}

static int
pt_comm_repost(struct pt *t)
{
	/* After the last message the peer may already have closed. */
	if (rk_iw_qp_state(rk_qp_iw(t->cqp)) >= RK_IW_TERMINATE)
		return 0;
	return iw_post_recv(t->link_ctx, t->cqp, 1, t->cbuf[1], sizeof(t->cbuf[1]),
			    t->cmr->lkey);
}

static int
pt_comm_idle(struct pt *t)
{
	struct iw *w = t->link_ctx;

	if (iw_disconnected(t->cqp))
		return pt_exchange_closed(t);
	if (rk_iw_qp_state(rk_qp_iw(t->cqp)) >= RK_IW_TERMINATE)
		return iw_qp_fail(w, t->cqp, "exchange QP");
	if (t->qp != NULL && rk_qp_iw(t->qp) != NULL &&
	    rk_iw_qp_state(rk_qp_iw(t->qp)) >= RK_IW_TERMINATE && !iw_disconnected(t->qp))
		return iw_qp_fail(w, t->qp, "data QP");
	if (ia_watchdog(t->a, 1) != 0)
		return -1;
	return iw_pump(w) > 0;
}

static int
pt_link_pump(struct pt *t, int work)
{
	(void)work;     /* iw_pump() idles by its own work */
	return iw_pump(t->link_ctx);
}

static int
pt_qp_ended(struct pt *t)
{
	if (rk_iw_qp_state(rk_qp_iw(t->qp)) >= RK_IW_TERMINATE)
		return iw_qp_fail(t->link_ctx, t->qp, "data QP");
	return 0;
}

static int
pt_wc_error(struct pt *t, const struct rk_wc *wc)
{
	char m[96];

	snprintf(m, sizeof(m), "%s completion %" PRIu64 " (%s)",
		 (wc->wr_id & PT_RECV) ? "receive" : "send", t->done,
		 rk_wc_status_str(wc->status));
	if (rk_iw_qp_error(rk_qp_iw(t->qp))->reason != RK_IW_CLOSE_NONE)
		return iw_qp_fail(t->link_ctx, t->qp, m);
	return ia_fail(t->a, "%s", m);
}


/* Buffers, CQ and the data QP (INIT) made from *@p sp. */
static int
pt_create(struct pt *t, struct iw_qp_spec *sp)
{
	struct ia *a = t->a;
	const int acc = RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE | RK_ACCESS_REMOTE_READ;
	uint8_t rd = t->verb == PT_READ ? a->o.outs : 1;

	if (pt_alloc(t, acc) != 0)
		return -1;
	*sp = (struct iw_qp_spec){ t->pd, t->cq, a->o.tx_depth, t->rq_depth + 1, rd, rd };
	t->qp = iw_create_qp(t->link_ctx, sp);
	if (t->qp == NULL)
		return -1;
	t->local = (struct rk_pt_dest){ .out_reads = rd, .qpn = t->qp->qp_num,
				     .psn = (uint32_t)lrand48() & 0xffffff, .rkey = t->mr->rkey,
				     .vaddr = (uint64_t)(uintptr_t)(t->buf + t->region_off) };
	return 0;
}

/* The bw client's window; send_bw's credits (iWARP has no RNR). */
static void
pt_flow(struct pt *t)
{
	struct ia *a = t->a;

	t->window = a->o.tx_depth < t->slots ? a->o.tx_depth : t->slots;
	if (t->verb == PT_READ) {
		/* Our IRD/ORD as negotiated bounds the READs in flight. */
		const struct rk_iw_negotiated *ng = rk_iw_qp_negotiated(rk_qp_iw(t->qp));

		if (ng != NULL && ng->ord > 0 && t->window > ng->ord)
			t->window = ng->ord;
	}
	if (t->verb == PT_SEND) {
		t->credits = true;
		t->credit_step = t->iters / 3 > 16 ? 16 : t->iters / 3 > 0 ? t->iters / 3 : 1;
	}
}

static bool
pt_comm_closed(struct pt *t)
{
	return iw_disconnected(t->cqp);
}

static int
pt_barrier(struct pt *t)
{
	return pt_keys_bin(t, NULL);
}

static const struct pt_link_ops iw_link = {
	.exchange = pt_comm_xchg, .pump = pt_link_pump, .qp_ended = pt_qp_ended,
	.wc_fail = pt_wc_error, .comm_wc_fail = pt_comm_wc_fail, .comm_repost = pt_comm_repost,
	.comm_idle = pt_comm_idle, .send_idle_note = "", .usec_per_iter = false,
	.barrier = pt_barrier, .flow = pt_flow, .passive = NULL, .comm_closed = pt_comm_closed,
};

static int
iw_perftest(struct iw *w)
{
	struct ia *a = w->a;
	struct pt t = { .a = a, .link = &iw_link, .link_ctx = w, .client = w->client,
			.size = a->o.all_sizes ? PT_ALL_MAX : a->o.size, .iters = a->o.iters,
			.fd = -1, .all = a->o.all_sizes };
	struct iw_qp_spec dspec;
	char rmtu[3], rver[PT_VERSION_LEN + 1];
	uint32_t cycle;
	bool bw_report;
	int barriers, rc = -1;
	uint64_t peer_iters = 0;

	switch (a->o.mode) {
	case IA_WRITE_BW: t.verb = PT_WRITE; break;
	case IA_READ_BW: t.verb = PT_READ; break;
	case IA_SEND_BW: t.verb = PT_SEND; break;
	default:
		return ia_fail(a, "over iWARP: rping, write_bw, read_bw and send_bw only");
	}
	bw_report = t.verb != PT_SEND;
	/* Over RDMA-CM two more barriers than over TCP; send_bw one more again. */
	barriers = (bw_report ? 2 : 3) + 2;

	t.pd = rk_alloc_pd(a->ctx);
	t.ccq = rk_create_cq(a->ctx, 16, NULL);
	if (t.pd == NULL || t.ccq == NULL) {
		ia_fail(a, "cannot create PD/CQ: %s", strerror(errno));
		goto out;
	}
	t.cmr = rk_reg_mr(t.pd, t.cbuf, sizeof(t.cbuf), RK_ACCESS_LOCAL_WRITE);
	if (t.cmr == NULL) {
		ia_fail(a, "reg_mr: %s", strerror(errno));
		goto out;
	}
	{
		const struct iw_qp_spec sp = { t.pd, t.ccq, 4, 4, 1, 1 };
		struct rk_sge sge = { (uint64_t)(uintptr_t)t.cbuf[1], sizeof(t.cbuf[1]),
				      t.cmr->lkey };
		struct rk_recv_wr first = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 };

		t.cqp = iw_create_qp(w, &sp);
		if (t.cqp == NULL)
			goto out;
		if ((rc = iw_connect(w, &t.cqp, &sp, "exchange connection", &first)) != 0)
			goto out;
	}
	rc = -1;
	/* The MTU message means nothing to iWARP (TCP segments); perftest sends it anyway. */
	if (pt_preamble(&t, "3", rmtu, rver, &cycle) != 0 || pt_keys_bin(&t, NULL) != 0 ||
	    pt_create(&t, &dspec) != 0)
		goto out;
	if ((rc = iw_connect(w, &t.qp, &dspec, "data connection", NULL)) != 0)
		goto out;
	t.local.qpn = t.qp->qp_num;
	rc = -1;
	iw_print_neg(w, t.qp, "data connection");
	/* Receives go up before the last barrier, as perftest's server does. */
	for (int i = 0; i < barriers; i++) {
		if (i == barriers - 1 && t.verb == PT_SEND && pt_post_recvs(&t) != 0)
			goto out;
		if (pt_keys_bin(&t, &t.remote) != 0)
			goto out;
	}
	if (t.verb != PT_SEND && t.remote.rkey == 0 && t.remote.vaddr == 0) {
		ia_fail(a, "the peer sent no STag/TO in its key messages");
		goto out;
	}
	if (a->o.bad_rkey)
		t.remote.rkey ^= 0x5a5a00;
	printf(" local address: QPN %#06x STag %#010x TO %#016" PRIx64 "\n", t.local.qpn,
	       t.local.rkey, t.local.vaddr);
	printf(" remote address: QPN %#06x STag %#010x TO %#016" PRIx64 " OUT_READS %u\n",
	       t.remote.qpn, t.remote.rkey, t.remote.vaddr, t.remote.out_reads);
	fflush(stdout);
	/* Passive: the next exchange message serves us. */
	rc = pt_run(&t);
	if (rc != 0)
		goto out;
	rc = -1;
	if (bw_report && (pt_keys_bin(&t, NULL) != 0 || pt_reports(&t, &peer_iters) != 0))
		goto out;
	if (pt_keys_bin(&t, NULL) != 0)
		goto out;
	/*
	 * Let perftest disconnect first: when our FIN follows our last message
	 * at once, its last exchange fails ("Bad wc status 2", "Unable to
	 * write to socket/rdma_cm") in either role.
	 */
	{
		uint64_t until = rk_io_dpdk_now_ns() + 2000000000ull;

		while (!iw_disconnected(t.cqp) && rk_io_dpdk_now_ns() < until)
			(void)iw_pump(w);
	}
	if (pt_result(&t, 0, peer_iters) != 0)
		goto out;
	rc = 0;
out:
	/* rdma_disconnect() of both: close the TCP connections. */
	if (t.qp != NULL) {
		rk_destroy_qp(t.qp);
		t.qp = NULL;
	}
	if (t.cqp != NULL) {
		rk_destroy_qp(t.cqp);
		t.cqp = NULL;
	}
	iw_drain(w, 300);
	pt_release(&t);
	return rc;
}

/* ---------------------------------------------------------------- entry */

int
ia_iwarp(struct ia *a)
{
	struct iw w = { .a = a, .client = a->o.server_host != NULL };
	struct rk_device_attr da = { 0 };
	char ip[16];
	int rc;

	if (a->o.mode != IA_RPING && a->o.mode != IA_WRITE_BW && a->o.mode != IA_READ_BW &&
	    a->o.mode != IA_SEND_BW)
		return ia_fail(a, "over iWARP: rping, write_bw, read_bw and send_bw only");
	if (w.client) {
		uint8_t pip[4];

		if (ia_parse_v4(a->o.server_host, pip) != 0)
			return ia_fail(a, "the server must be an IPv4 address, got '%s'",
				       a->o.server_host);
	}
	/*
	 * lwIP draws its first local port with rand() when it starts: seed it,
	 * or every run connects from the same port and meets the peer's
	 * TIME_WAIT of the previous run.
	 */
	srand((unsigned int)getpid() ^ (unsigned int)rk_io_dpdk_now_ns());
	snprintf(ip, sizeof(ip), "%u.%u.%u.%u", a->o.ip[0], a->o.ip[1], a->o.ip[2], a->o.ip[3]);
	w.lw = rk_io_lwip_attach(a->io, ip, a->o.netmask != NULL ? a->o.netmask : "255.255.255.0");
	if (w.lw == NULL)
		return ia_fail(a, "cannot attach lwIP to the port: %s", strerror(errno));
	a->ctx = rk_open_device_iwarp(&rk_app_tcp_stream_ops, &w, &da);
	if (a->ctx == NULL) {
		rk_io_lwip_detach(w.lw);
		return ia_fail(a, "cannot open the iWARP device: %s", strerror(errno));
	}
	if (!w.client) {
		w.lis = rk_tcp_lwip_listen(a->o.tcp_port);
		if (w.lis == NULL) {
			rc = ia_fail(a, "cannot listen on TCP port %u: %s", a->o.tcp_port,
				     strerror(errno));
			goto out;
		}
	}
	rc = a->o.mode == IA_RPING ? iw_rping(&w) : iw_perftest(&w);
	if (w.lis != NULL)
		rk_tcp_lwip_listener_close(w.lis);
out:
	iw_drain(&w, 100);
	rk_close_device(a->ctx);
	a->ctx = NULL;
	iw_drain(&w, 50);
	rk_io_lwip_detach(w.lw);
	return rc;
}
