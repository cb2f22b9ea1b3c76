/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-perf's RDMA resources: buffers, PD, CQs and QPs as both ends lay them
 * out, their connection (RoCEv2 modify-QP, iWARP's TCP/MPA streams), the
 * idle policy and the data-phase watchdog.
 */
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <arpa/inet.h>

#include "rk_app_qp.h"
#include "perf.h"
#include "rk_ib.h"
#include "rk_iw_reason.h"

#define BUF_BUDGET (64u * MIB)          /* per QP and side, split over QPs */

uint32_t
msg_bytes(const struct perf *p, uint32_t size)
{
	return p->o.verb == VERB_ATOMIC ? 8 : size;
}

/* perftest's default --cycle_buffer: one page. */
#define CYCLE_BUFFER 4096

/*
 * Slots of @size in a QP buffer: as many as the depth, within the budget,
 * so every message in flight has its own data. WRITE and SEND without
 * --verify do as perftest: messages over half a page all use slot 0,
 * smaller ones cycle through one page, so both ends' data stays in cache
 * whatever the depth (the raw memif reference copies from one buffer too).
 */
uint32_t
nslots(const struct perf *p, uint32_t size)
{
	uint64_t n = p->data_len / msg_bytes(p, size);

	if (p->o.mode == MODE_LAT)
		return 2;
	if (!p->o.verify && (p->o.verb == VERB_WRITE || p->o.verb == VERB_SEND) && n > 0)
		n = size > CYCLE_BUFFER / 2 ? 1 : CYCLE_BUFFER / size;
	if (n > p->o.tx_depth)
		n = p->o.tx_depth;
	return n == 0 ? 1 : (uint32_t)n;
}

/* An engine event this near (a paced send, a timer) is spun for, not slept for. */
#define PERF_SPIN_AHEAD_NS 200000ull

/*
 * The idle policy after one poll of a loop; over iWARP, lwIP's frames move
 * here too (every loop of the data phase passes by).
 */
void
perf_idle(struct perf *p, int work)
{
	if (p->iw != NULL)
		work += perf_iw_poll(p->iw);
	/*
	 * DCQCN paces sends microseconds apart: a sleep of the adaptive
	 * policy (50 us asked, often more) between them cut the rate to a
	 * quarter of R_C. Spin while the engine's next event is that near.
	 */
	if (work == 0 && p->o.dcqcn && p->ctx != NULL && p->io != NULL) {
		uint64_t next = rk_next_event_ns(p->ctx), now = rk_io_dpdk_now_ns();

		if (next != UINT64_MAX && (next <= now || next - now < PERF_SPIN_AHEAD_NS))
			work = 1;
	}
	if (p->io != NULL) {
		rk_io_dpdk_idle(p->io, work);
		return;
	}
	/*
	 * Kernel sockets, no port: the port's adaptive policy. A sleep per
	 * idle poll from the start would add a timer wake-up (tens of us to
	 * a tick) to every round trip; spinning forever would hold a core
	 * while a peer is absent.
	 */
	rk_io_idle_adaptive(&p->idle_since_ns, work, 0, 0);
}

/* A wait ended with an event: restart the watchdog and the idle spin. */
void
perf_event(struct perf *p)
{
	p->moved = true;
	rk_app_watchdog_restart(&p->wd);
	p->idle_since_ns = 0;
}

/*
 * Why the retries of a RETRY_EXC_ERR went unanswered: the frames this end
 * dropped on purpose, when it did; else the peer.
 */
static const char *
retry_cause(const struct perf *p, char *buf, size_t len)
{
	uint64_t n = p->io != NULL ? rk_io_dpdk_stats(p->io)->tx_dropped_injected : 0;

	if (n == 0)
		return "the peer stopped answering";
	/* Go-back-N resends the same frames in order, so a period can hit one PSN every time. */
	if (p->o.tx_drop_every != 0)
		snprintf(buf, len, "this end dropped %" PRIu64 " frames (--tx-drop-every %u): "
			 "the retries may have kept losing the same packet to the period "
			 "(--tx-drop-rate with --seed has none)", n, p->o.tx_drop_every);
	else
		snprintf(buf, len, "this end dropped %" PRIu64 " frames (--tx-drop-rate %g): "
			 "the retries may have been lost to them", n, p->o.tx_drop_rate);
	return buf;
}

int
check_wc(struct perf *p, const struct rk_wc *wc)
{
	char why[224];

	if (wc->status == RK_WC_SUCCESS)
		return 0;
	return fail(p, "QP %#x: work completion error: %s (wr_id %#" PRIx64 ")%s%s", wc->qp_num,
		    rk_wc_status_str(wc->status), wc->wr_id,
		    wc->status == RK_WC_RETRY_EXC_ERR ? ": " : "",
		    wc->status == RK_WC_RETRY_EXC_ERR ? retry_cause(p, why, sizeof(why)) : "");
}

/* The peer's RoCEv2 address as text (IPv4 or IPv6, per its hello). */
const char *
peer_addr(const struct perf *p, char *buf, size_t len)
{
	if (p->remote.ip_version == 6)
		inet_ntop(AF_INET6, p->remote.ip6, buf, (socklen_t)len);
	else
		inet_ntop(AF_INET, p->remote.ip, buf, (socklen_t)len);
	return buf;
}

/* Forward movement of all QPs (rk_qp_progress()): grows inside a long message too. */
static uint64_t
progress_mark(const struct perf *p)
{
	uint64_t m = 0;

	for (uint32_t i = 0; i < p->o.qps; i++)
		m += rk_qp_progress(p->q[i].qp);
	/*
	 * A server only answers: a READ responder whose responses were lost
	 * sees nothing move until the requester asks again, so any frame
	 * from the client shows it alive (a stopped one sends none).
	 */
	if (p->o.server && p->io != NULL) {
		uint64_t rx, tx, tx_err;

		perf_iw_stats(p->iw, &rx, &tx, &tx_err);
		m += rk_io_dpdk_stats(p->io)->rx_roce + rx;
	}
	return m;
}

/*
 * Data-phase watchdog: @p events (completions, receives) or any forward
 * movement of a QP (packets acknowledged, requests executed, stream bytes)
 * counts as progress; on a client frames alone do not, as its
 * retransmissions to a dead peer are frames too (a server counts those it
 * receives: progress_mark()). The QPs are read every 10 ms, not on every
 * spin.
 */
int
watchdog(struct perf *p, int events)
{
	uint64_t now = now_ns();

	/* A server that stopped says so, or closes: no need to wait for the timeout. */
	if (!p->o.server && oob_due(p))
		return server_stopped(p);
	if (events > 0 || p->wd.last_ns == 0)
		return rk_app_watchdog_expired(&p->wd, now, 1) ? -1 : 0;
	if (rk_app_stop && !perf_soft_stop(p))
		return fail(p, "interrupted");
	if (now >= p->next_mark_ns) {
		uint64_t m = progress_mark(p);

		p->next_mark_ns = now + 10000000ull;
		if (m != p->mark) {
			p->mark = m;
			p->moved = true;
			return rk_app_watchdog_expired(&p->wd, now, 1) ? -1 : 0;
		}
	}
	if (rk_app_watchdog_expired(&p->wd, now, 0)) {
		uint64_t dropped = p->io != NULL ? rk_io_dpdk_stats(p->io)->tx_dropped_injected : 0;
		char ip[INET6_ADDRSTRLEN], why[224];

		/* This end's drops, or a transfer that moved and then stalled, are no dead peer. */
		if (dropped > 0)
			return fail(p, "no progress for %g s (nothing acknowledged or received): %s; "
				    "a lost frame waits for a retransmission timeout, which may "
				    "exceed --timeout", p->o.timeout_s, retry_cause(p, why, sizeof(why)));
		if (p->moved)
			return fail(p, "no progress for %g s (nothing acknowledged or received) "
				    "after the transfer had moved: the peer %s stopped, or a lost "
				    "frame waits for a retransmission timeout longer than --timeout",
				    p->o.timeout_s, peer_addr(p, ip, sizeof(ip)));
		return fail(p, "no progress for %g s (nothing acknowledged or received): "
			    "peer %s unreachable or stopped", p->o.timeout_s,
			    peer_addr(p, ip, sizeof(ip)));
	}
	return 0;
}

/*
 * Why a post was refused: a QP in ERR says what put it there (iWARP: the
 * Terminate or the end of the stream), else the errno's text.
 */
const char *
post_error(struct rk_qp *qp, int rc, char *buf, size_t len)
{
	struct rk_qp_attr a;
	const struct rk_iw_error *e;

	if (rc != -EINVAL || rk_query_qp(qp, &a, RK_QP_STATE, NULL) != 0 ||
	    a.qp_state != RK_QPS_ERR)
		return strerror(-rc);
	e = rk_qp_iw(qp) != NULL ? rk_iw_qp_error(rk_qp_iw(qp)) : NULL;
	if (e != NULL && e->reason == RK_IW_CLOSE_TERM_SENT) {
		const struct rk_iw_reason_info *why =
			rk_iw_reason_info(rk_iw_qp_last_reason(rk_qp_iw(qp)));

		snprintf(buf, len, "QP %#x is in the error state: this end sent a Terminate "
			 "(layer %u, type %u, code %u: %s, rule %s)", qp->qp_num, e->layer,
			 e->etype, e->code, why->name, why->rule);
	} else if (e != NULL && e->reason == RK_IW_CLOSE_TERM_RCVD)
		snprintf(buf, len, "QP %#x is in the error state: the peer sent a Terminate "
			 "(layer %u, type %u, code %u)", qp->qp_num, e->layer, e->etype, e->code);
	else if (e != NULL && e->reason == RK_IW_CLOSE_LLP)
		snprintf(buf, len, "QP %#x is in the error state: its TCP connection ended",
			 qp->qp_num);
	else
		snprintf(buf, len, "QP %#x is in the error state", qp->qp_num);
	return buf;
}

int
post_recv_slot(struct perf *p, uint32_t qi, uint32_t slot)
{
	struct qpres *q = &p->q[qi];
	struct rk_sge sge = {
		(uint64_t)(uintptr_t)(q->rbuf + (size_t)slot * p->max_size), p->max_size,
		q->rmr->lkey,
	};
	struct rk_recv_wr wr = { .wr_id = ((uint64_t)qi << 40) | slot, .sg_list = &sge,
				 .num_sge = 1 };
	struct rk_recv_wr *bad;
	int rc = rk_post_recv(q->qp, &wr, &bad);
	char why[128];

	if (rc != 0)
		return fail(p, "post_recv: %s", post_error(q->qp, rc, why, sizeof(why)));
	return 0;
}

int
create_resources(struct perf *p)
{
	const int access = RK_ACCESS_LOCAL_WRITE | RK_ACCESS_REMOTE_WRITE |
			   RK_ACCESS_REMOTE_READ | RK_ACCESS_REMOTE_ATOMIC;
	struct perf_opts *o = &p->o;
	size_t budget = BUF_BUDGET / o->qps;

	p->max_size = 0;
	for (uint32_t i = 0; i < p->nsizes; i++)
		if (p->sizes[i] > p->max_size)
			p->max_size = p->sizes[i];
	if (o->verb == VERB_ATOMIC)
		p->max_size = 8;
	/* Both sides compute the same layout from the same parameters. */
	p->buf_len = (size_t)p->max_size * (o->mode == MODE_LAT ? 2 : o->tx_depth);
	if (p->buf_len > budget)
		p->buf_len = budget;
	if (p->buf_len < (size_t)p->max_size * (o->mode == MODE_LAT ? 2 : 1))
		p->buf_len = (size_t)p->max_size * (o->mode == MODE_LAT ? 2 : 1);
	p->buf_len = (p->buf_len + 4095) & ~(size_t)4095;
	p->data_len = p->buf_len;
	p->credit_off = p->buf_len;
	if (p->credits)
		p->buf_len += 4096;
	p->rslots = (uint32_t)(budget / p->max_size);
	if (p->rslots > o->rx_depth)
		p->rslots = o->rx_depth;
	if (p->rslots == 0)
		p->rslots = 1;

	p->pd = rk_alloc_pd(p->ctx);
	p->scq = rk_create_cq(p->ctx, (int)(o->qps * o->tx_depth + 64), NULL);
	p->rcq = rk_create_cq(p->ctx, (int)(o->qps * (p->rslots + 1) + 64), NULL);
	if (p->pd == NULL || p->scq == NULL || p->rcq == NULL)
		return fail(p, "cannot create PD/CQs: %s", strerror(errno));
	for (uint32_t i = 0; i < o->qps; i++) {
		struct qpres *q = &p->q[i];
		struct rk_qp_init_attr ia = {
			.send_cq = p->scq, .recv_cq = p->rcq, .qp_type = RK_QPT_RC,
			/* -Q: the WRs say which are signalled (msg_wr()). */
			.sq_sig_all = o->cq_mod > 1 ? 0 : 1,
			.cap = { .max_send_wr = o->tx_depth, .max_recv_wr = p->rslots + 1,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};

		q->buf = aligned_alloc(4096, p->buf_len);
		if (q->buf == NULL)
			return fail(p, "cannot allocate %zu bytes", p->buf_len);
		memset(q->buf, 0, p->buf_len);
		q->mr = rk_reg_mr(p->pd, q->buf, p->buf_len, access);
		if (o->verb == VERB_SEND) {
			size_t rl = (size_t)p->rslots * p->max_size;

			q->rbuf = aligned_alloc(4096, (rl + 4095) & ~(size_t)4095);
			if (q->rbuf == NULL)
				return fail(p, "cannot allocate %zu bytes", rl);
			memset(q->rbuf, 0, rl);
			q->rmr = rk_reg_mr(p->pd, q->rbuf, rl, access);
			if (q->rmr == NULL)
				return fail(p, "reg_mr: %s", strerror(errno));
		}
		q->qp = rk_create_qp(p->pd, &ia);
		if (q->mr == NULL || q->qp == NULL)
			return fail(p, "cannot create QP %u: %s", i, strerror(errno));
		if (o->dcqcn) {
			/* The RP starts at rpg_max_rate, else at 100 Gb/s. */
			uint32_t line = o->dcqcn_p.rpg_max_rate ? o->dcqcn_p.rpg_max_rate : 100000;
			int rc = rk_ib_qp_set_cc(rk_qp_ib(q->qp), "dcqcn", &o->dcqcn_p, line);

			if (rc != 0)
				return fail(p, "--dcqcn on QP %u: %s", i, strerror(-rc));
			if (i == 0 && p->trace_f != NULL)
				perf_dcqcn_trace_start(p, rk_qp_ib(q->qp));
		}
		q->psn = (uint32_t)(((uint64_t)rand() << 8) ^ (uint64_t)rand()) & 0xffffff;
		p->local.qp[i] = (struct perf_qp_info){
			.qpn = q->qp->qp_num, .psn = q->psn, .rkey = q->mr->rkey,
			.va = (uint64_t)(uintptr_t)q->buf, .len = p->buf_len,
		};
	}
	return 0;
}

/* Receives of the SEND tests, once the QPs can take them. */
static int
post_all_recvs(struct perf *p)
{
	if (p->o.verb == VERB_SEND)
		for (uint32_t i = 0; i < p->o.qps; i++)
			for (uint32_t s = 0; s < p->rslots; s++)
				if (post_recv_slot(p, i, s) != 0)
					return -1;
	return 0;
}

/* iWARP: INIT with the largest IRD/ORD; the streams come in iw_establish(). */
int
iw_init_qps(struct perf *p)
{
	for (uint32_t i = 0; i < p->o.qps; i++) {
		struct rk_qp_attr a = { .qp_state = RK_QPS_INIT, .max_rd_atomic = RK_IW_MAX_IRD_ORD,
					.max_dest_rd_atomic = RK_IW_MAX_IRD_ORD };
		int rc = rk_modify_qp(p->q[i].qp, &a, RK_QP_STATE | RK_QP_MAX_QP_RD_ATOMIC |
				      RK_QP_MAX_DEST_RD_ATOMIC);

		if (rc != 0)
			return fail(p, "modify QP %#x: %s", p->q[i].qp->qp_num, strerror(-rc));
	}
	return 0;
}

/* The IPv4 address of host @p name as a dotted quad; 0 or -1. */
static int
ipv4_of(const char *name, char *buf, size_t len)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res;

	if (getaddrinfo(name, NULL, &hints, &res) != 0)
		return -1;
	inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)res->ai_addr)->sin_addr,
		  buf, (socklen_t)len);
	freeaddrinfo(res);
	return 0;
}

/*
 * iWARP: one TCP connection per QP, on the exchange's port + 1. The client
 * connects QP i only once QP i-1 is in RTS, so the server, which attaches
 * connections to its QPs in the order it accepts them, pairs them alike.
 */
int
iw_establish(struct perf *p)
{
	uint16_t port = (uint16_t)(p->o.tcp_port + 1);
	uint64_t until = now_ns() + (uint64_t)(p->o.oob_timeout_s * 1e9);
	char host[INET_ADDRSTRLEN];
	int rc;

	if (!p->o.tcp_kernel)
		inet_ntop(AF_INET, p->remote.ip, host, sizeof(host));
	else if (p->o.server)
		host[0] = '\0';
	/* Kernel sockets (lib/tcp) take a dotted quad: SERVER may be a name. */
	else if (ipv4_of(p->o.server_host, host, sizeof(host)) != 0)
		return fail(p, "--tcp kernel: the server %s has no IPv4 address for the data "
			    "connections (they run over IPv4)", p->o.server_host);
	for (uint32_t i = 0; i < p->o.qps; i++) {
		struct rk_qp *qp = p->q[i].qp;

		if (p->o.server) {
			while ((rc = perf_iw_accept(p->iw, &p->o, qp)) == 0) {
				if (rk_app_stop)
					return fail(p, "interrupted");
				if (now_ns() > until)
					return fail(p, "the client's TCP connection %u of %u did not "
						    "come within %g s", i + 1, p->o.qps,
						    p->o.oob_timeout_s);
				perf_idle(p, rk_progress(p->ctx));
			}
			if (rc < 0)
				return fail(p, "accept of TCP connection %u: %s", i + 1, strerror(-rc));
			if (p->o.verb == VERB_SEND)
				for (uint32_t s = 0; s < p->rslots; s++)
					if (post_recv_slot(p, i, s) != 0)
						return -1;
			continue;
		}
		rc = perf_iw_connect(p->iw, &p->o, qp, host, port);
		if (rc != 0)
			return fail(p, "cannot connect TCP to %s:%u: %s", host, port, strerror(-rc));
		while (qp->state != RK_QPS_RTS) {
			struct rk_iw_qp *e = rk_qp_iw(qp);

			if (qp->state == RK_QPS_ERR || (e != NULL && rk_iw_qp_state(e) >= RK_IW_TERMINATE))
				return fail(p, "QP %u: the iWARP connection to %s:%u failed "
					    "(MPA %s)", i, host, port,
					    e != NULL ? rk_iw_state_name[rk_iw_qp_state(e)] : "?");
			if (rk_app_stop)
				return fail(p, "interrupted");
			if (oob_due(p))
				return server_stopped(p);
			if (now_ns() > until)
				return fail(p, "QP %u: no TCP/MPA connection to %s:%u within %g s",
					    i, host, port, p->o.oob_timeout_s);
			perf_idle(p, rk_progress(p->ctx));
		}
	}
	if (!p->o.server && p->o.verb == VERB_SEND)
		return post_all_recvs(p);
	return 0;
}

int
connect_qps(struct perf *p)
{
	for (uint32_t i = 0; i < p->o.qps; i++) {
		struct qpres *q = &p->q[i];
		struct rk_qp_attr a = { 0 };
		uint8_t dgid[16];
		int rc;

		a.qp_state = RK_QPS_INIT;
		a.qp_access_flags = RK_ACCESS_REMOTE_WRITE | RK_ACCESS_REMOTE_READ |
				    RK_ACCESS_REMOTE_ATOMIC;
		rc = rk_modify_qp(q->qp, &a, RK_QP_STATE | RK_QP_PKEY_INDEX | RK_QP_PORT |
				  RK_QP_ACCESS_FLAGS);
		if (p->o.have_ip6) {
			memcpy(dgid, p->remote.ip6, 16);
		} else {
			memset(dgid, 0, 10);
			dgid[10] = dgid[11] = 0xff;
			memcpy(dgid + 12, p->remote.ip, 4);
		}
		if (rc == 0)
			rc = rk_app_qp_connect(q->qp, &(struct rk_app_qp_path){
				.mtu = p->o.mtu == 256 ? RK_MTU_256 : p->o.mtu == 512 ? RK_MTU_512 :
				       p->o.mtu == 1024 ? RK_MTU_1024 :
				       p->o.mtu == 2048 ? RK_MTU_2048 : RK_MTU_4096,
				.dest_qpn = p->remote.qp[i].qpn, .rq_psn = p->remote.qp[i].psn,
				.sq_psn = q->psn, .dmac = p->peer_mac, .dgid = dgid,
				/* -T: the ToS byte's DSCP (its ECN bits are refused as options). */
				.dscp = p->o.tos > 0 ? (uint8_t)(p->o.tos >> 2) : 0,
				.hop_limit = p->o.hop_limit,
				.max_dest_rd_atomic = 16, .min_rnr_timer = 1,
				/* -u; by default 4.096 us * 2^14 = 67 ms, perftest's default. */
				.timeout = p->o.qp_timeout >= 0 ? (uint8_t)p->o.qp_timeout : 14,
				.retry_cnt = 7, .rnr_retry = 7,
				/* -o: READs and atomics in flight here (IBTA 9.5, max_rd_atomic). */
				.max_rd_atomic = p->o.outs > 0 ? (uint8_t)p->o.outs : 16 }, NULL);
		if (rc != 0)
			return fail(p, "modify QP %#x: %s", q->qp->qp_num, strerror(-rc));
	}
	return post_all_recvs(p);
}

void
destroy_resources(struct perf *p)
{
	for (uint32_t i = 0; i < PERF_MAX_QPS; i++) {
		struct qpres *q = &p->q[i];

		rk_app_release(&(struct rk_app_verbs_objs){ .qp = { q->qp }, .mr = { q->mr, q->rmr } });
		free(q->buf);
		free(q->rbuf);
	}
	rk_app_release(&(struct rk_app_verbs_objs){ .cq = { p->scq, p->rcq }, .pd = p->pd });
	if (p->ctx != NULL)
		rk_close_device(p->ctx);
}

/* Drain send completions; fail on errors. */
int
drain_scq(struct perf *p, int *work)
{
	struct rk_wc wc[16];
	int n = rk_poll_cq(p->scq, 16, wc);

	if (n < 0)
		return fail(p, "poll_cq: %s", strerror(-n));
	for (int k = 0; k < n; k++)
		if (check_wc(p, &wc[k]) != 0)
			return -1;
	*work += n;
	return 0;
}
