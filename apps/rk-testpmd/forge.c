/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The impair engine's two-sided work: answers forged toward a requester
 * (rules with forge=), and a report of how the endpoints reacted to what
 * the rules did.
 *
 * A request names only the responder's QP (BTH DestQP). The requester's
 * QP, which a forged NAK, RNR NAK or CNP must name, is learned from the
 * responder's answers going the other way (their DestQP), with the
 * responder's UDP source port, its last MSN and the 802.1Q tag and DSCP
 * of its frames, per pair of addresses; among several QPs of one pair the
 * one whose last answer is nearest in PSN is taken.
 *
 * Reaction: each request a rule dropped or answered by a forged NAK or
 * RNR NAK opens an event. The requester's next copy of that PSN closes
 * its wait (the retransmission delay: for an RNR NAK the timer it obeyed)
 * and starts its resent range; the range ends at the first PSN past the
 * highest the requester had sent before that resend (IBTA Vol1 9.7.5.1
 * go-back-N: everything from the NAKed PSN on is sent again).
 *
 * A NAK or RNR NAK acknowledges every PSN before its own (IBTA Vol1
 * 9.7.5.1.2). Forged behind a request the bump took away and the requester
 * has not resent yet, it would acknowledge requests the responder threw
 * away as out of sequence, and the two ends would never agree again; so
 * while such a hole is open the request passes instead (counted held back).
 * The hole closes when the PSN passes again, or when the responder
 * acknowledges it: a copy the bump took may be a resend (after the
 * requester's retry timer) of a request the responder already had, and
 * then no resend follows.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "rk_build.h"
#include "rk_io_dpdk.h"
#include "rk_opcode.h"
#include "rk_pkt.h"
#include "rk_psn.h"
#include "rk_xeth.h"
#include "testpmd.h"

#define PEERS 256
#define FLOWS 256
#define EVENTS 64

/* A responder's answers to one requester QP. */
struct peer {
	bool used;
	uint8_t resp_ip[16], req_ip[16];
	uint32_t req_qp, psn, msn;
	uint16_t sport;
	bool vlan;
	uint16_t vlan_tci;
	uint8_t dscp;
	uint64_t stamp;
};

/* A requester's flow of requests: the highest PSN it sent, and the first
 * PSN the bump took away and the requester has not resent yet (a hole). */
struct flow {
	bool used, hole;
	uint8_t src_ip[16], dst_ip[16];
	uint32_t dest_qp, hi_psn, hole_psn;
	uint64_t stamp;
};

struct event {
	int rule;
	enum rk_impair_forge forge;     /* NONE: dropped */
	uint8_t forge_arg;
	uint8_t src_ip[16], dst_ip[16];
	uint32_t dest_qp, psn, hi_psn;
	uint64_t t_ns, resent_ns, acked_ns;
	uint32_t resent;                /* frames of the resent range seen */
	bool resend_seen, done;
};

static struct {
	struct peer peers[PEERS];
	struct flow flows[FLOWS];
	struct event ev[EVENTS];
	unsigned int n_ev;              /* events kept (the first EVENTS) */
	uint64_t stamp, unpaired, built, cnps_seen, events_total, held_back;
} fg;

void
rk_tp_forge_reset(void)
{
	memset(&fg, 0, sizeof(fg));
}

/* The slot of a key: the used one, else a free one, else the oldest. */
#define FIND_SLOT(tab, n, match, out)                                           \
	do {                                                                    \
		unsigned int old_ = 0;                                          \
		(out) = NULL;                                                   \
		for (unsigned int i_ = 0; i_ < (n) && (out) == NULL; i_++)      \
			if ((tab)[i_].used && (match))                          \
				(out) = &(tab)[i_];                             \
		for (unsigned int i_ = 0; i_ < (n) && (out) == NULL; i_++)      \
			if (!(tab)[i_].used)                                    \
				(out) = &(tab)[i_];                             \
		if ((out) == NULL) {                                            \
			for (unsigned int i_ = 1; i_ < (n); i_++)               \
				if ((tab)[i_].stamp < (tab)[old_].stamp)        \
					old_ = i_;                              \
			(out) = &(tab)[old_];                                   \
			(out)->used = false;                                    \
		}                                                               \
	} while (0)

/* Whether an answer's PSN @p ack covers @p psn of the same requester: at
 * most half the PSN space ahead (answers of other QPs between the same
 * hosts have PSNs of their own, far away as a rule). */
static bool
covers(uint32_t ack, uint32_t psn)
{
	int32_t d = rk_psn_diff(ack, psn);

	return d >= 0 && d < (1 << 16);
}

static struct flow *flow_of(const struct rk_pkt *p, uint32_t dest_qp);

/* An ACK or READ response from a responder (@p p, toward the requester)
 * acknowledging up to @p psn: a hole it covers was no loss, an event it
 * covers was answered without a resend. */
static void
see_ack(const struct rk_pkt *p, uint32_t psn, uint64_t now)
{
	for (unsigned int i = 0; i < FLOWS; i++) {
		struct flow *f = &fg.flows[i];

		if (f->used && f->hole && !memcmp(f->src_ip, p->dst_ip, 16) &&
		    !memcmp(f->dst_ip, p->src_ip, 16) && covers(psn, f->hole_psn))
			f->hole = false;
	}
	for (unsigned int i = 0; i < fg.n_ev; i++) {
		struct event *e = &fg.ev[i];

		if (!e->resend_seen && e->acked_ns == 0 && !memcmp(e->src_ip, p->dst_ip, 16) &&
		    !memcmp(e->dst_ip, p->src_ip, 16) && covers(psn, e->psn) && now > e->t_ns)
			e->acked_ns = now;
	}
}

static void
learn_answer(const struct rk_pkt *p, uint32_t dest_qp, uint32_t psn, uint64_t now)
{
	const uint8_t *aeth = NULL;
	struct peer *e;

	FIND_SLOT(fg.peers, PEERS,
		  fg.peers[i_].req_qp == dest_qp && !memcmp(fg.peers[i_].resp_ip, p->src_ip, 16) &&
		  !memcmp(fg.peers[i_].req_ip, p->dst_ip, 16), e);
	if (!e->used) {
		memset(e, 0, sizeof(*e));
		e->used = true;
		memcpy(e->resp_ip, p->src_ip, 16);
		memcpy(e->req_ip, p->dst_ip, 16);
		e->req_qp = dest_qp;
	}
	if ((aeth = rk_pkt_xeth(p, RK_HDR_AETH)) != NULL)
		e->msn = rk_aeth_msn(aeth);
	if (aeth == NULL || rk_aeth_kind(rk_aeth_syndrome(aeth)) == RK_AETH_ACK)
		see_ack(p, psn, now);
	e->psn = psn;
	e->sport = p->src_port;
	e->vlan = p->n_vlan > 0;
	e->vlan_tci = p->n_vlan > 0 ? p->vlan_tci[0] : 0;
	e->dscp = p->dscp;
	e->stamp = ++fg.stamp;
}

static const struct peer *
peer_of(const struct rk_pkt *req, uint32_t psn)
{
	const struct peer *best = NULL;
	uint32_t best_d = UINT32_MAX;

	for (unsigned int i = 0; i < PEERS; i++) {
		const struct peer *e = &fg.peers[i];
		int32_t d;

		if (!e->used || memcmp(e->resp_ip, req->dst_ip, 16) || memcmp(e->req_ip, req->src_ip, 16))
			continue;
		d = rk_psn_diff(psn, e->psn);
		if ((uint32_t)(d < 0 ? -d : d) < best_d ||
		    ((uint32_t)(d < 0 ? -d : d) == best_d && best != NULL && e->stamp > best->stamp)) {
			best = e;
			best_d = (uint32_t)(d < 0 ? -d : d);
		}
	}
	return best;
}

static struct flow *
flow_of(const struct rk_pkt *p, uint32_t dest_qp)
{
	struct flow *f;

	FIND_SLOT(fg.flows, FLOWS,
		  fg.flows[i_].dest_qp == dest_qp && !memcmp(fg.flows[i_].src_ip, p->src_ip, 16) &&
		  !memcmp(fg.flows[i_].dst_ip, p->dst_ip, 16), f);
	return f;
}

/* A request passing the bump: its flow's highest PSN and the open events. */
static void
see_request(const struct rk_pkt *p, uint32_t dest_qp, uint32_t psn, uint64_t now)
{
	struct flow *f = flow_of(p, dest_qp);

	if (!f->used) {
		memset(f, 0, sizeof(*f));
		f->used = true;
		memcpy(f->src_ip, p->src_ip, 16);
		memcpy(f->dst_ip, p->dst_ip, 16);
		f->dest_qp = dest_qp;
		f->hi_psn = psn;
	} else if (rk_psn_diff(psn, f->hi_psn) > 0) {
		f->hi_psn = psn;
	}
	/* Observed before the rules decide: a resend that the rules take again
	 * reopens the hole in rk_tp_forge_event(). */
	if (f->hole && psn == f->hole_psn)
		f->hole = false;
	f->stamp = ++fg.stamp;
	for (unsigned int i = 0; i < fg.n_ev; i++) {
		struct event *e = &fg.ev[i];

		if (e->done || e->dest_qp != dest_qp || memcmp(e->src_ip, p->src_ip, 16) ||
		    memcmp(e->dst_ip, p->dst_ip, 16) || now <= e->t_ns)
			continue;
		if (!e->resend_seen) {
			/* Go-back-N resends through what was sent before it. */
			if (psn == e->psn) {
				e->resend_seen = true;
				e->resent_ns = now;
				e->resent = 1;
				e->hi_psn = f->hi_psn;
			}
		} else if (rk_psn_diff(psn, e->hi_psn) > 0) {
			e->done = true;
		} else if (rk_psn_diff(psn, e->psn) > 0) {
			e->resent++;
		}
	}
}

static bool
parse(const uint8_t *frame, uint32_t len, struct rk_pkt *p)
{
	static const struct rk_parse_opts quick = { .check_icrc = false };

	return rk_pkt_parse(p, frame, len, len, RK_LINK_ETHERNET, &quick) == 0 &&
	       p->kind == RK_PKT_ROCEV2 && rk_pkt_has_bth(p) && p->op != NULL;
}

void
rk_tp_forge_observe(const uint8_t *frame, uint32_t len)
{
	struct rk_pkt p;
	const uint8_t *bth;
	uint8_t proto;

	/* the full parse only for RoCEv2 frames: the rest pass at line rate */
	if (rk_impair_bth(frame, len, &proto) == NULL || !parse(frame, len, &p))
		return;
	bth = p.frame + p.bth_off;
	if (p.op->flags & RK_OPF_CNP)
		fg.cnps_seen++;
	else if (p.op->flags & RK_OPF_RESP)
		learn_answer(&p, rk_bth_dest_qp(bth), rk_bth_psn(bth), rk_io_dpdk_now_ns());
	else if (p.op->flags & RK_OPF_REQ)
		see_request(&p, rk_bth_dest_qp(bth), rk_bth_psn(bth), rk_io_dpdk_now_ns());
}

void
rk_tp_forge_event(int rule, enum rk_impair_forge forge, uint8_t arg, const uint8_t *frame,
		  uint32_t len)
{
	struct rk_pkt p;
	const uint8_t *bth;
	struct event *e;
	struct flow *f;

	if (!parse(frame, len, &p) || !(p.op->flags & RK_OPF_REQ))
		return;
	bth = p.frame + p.bth_off;
	f = flow_of(&p, rk_bth_dest_qp(bth));
	if (f->used && (!f->hole || rk_psn_diff(rk_bth_psn(bth), f->hole_psn) < 0)) {
		f->hole = true;
		f->hole_psn = rk_bth_psn(bth);
	}
	fg.events_total++;
	if (fg.n_ev == EVENTS)
		return;
	e = &fg.ev[fg.n_ev++];
	memset(e, 0, sizeof(*e));
	e->rule = rule;
	e->forge = forge;
	e->forge_arg = arg;
	memcpy(e->src_ip, p.src_ip, 16);
	memcpy(e->dst_ip, p.dst_ip, 16);
	e->dest_qp = rk_bth_dest_qp(bth);
	e->psn = rk_bth_psn(bth);
	e->hi_psn = e->psn;
	e->t_ns = rk_io_dpdk_now_ns();
}

static uint8_t
syndrome_of(enum rk_impair_forge forge, uint8_t arg)
{
	switch (forge) {
	case RK_IMPAIR_FORGE_NAK_SEQ: return 0x60 | RK_AETH_NAK_PSN_SEQ_ERR;
	case RK_IMPAIR_FORGE_NAK_INV: return 0x60 | RK_AETH_NAK_INVALID_REQUEST;
	case RK_IMPAIR_FORGE_NAK_RAE: return 0x60 | RK_AETH_NAK_REMOTE_ACCESS_ERR;
	case RK_IMPAIR_FORGE_NAK_ROP: return 0x60 | RK_AETH_NAK_REMOTE_OP_ERR;
	case RK_IMPAIR_FORGE_RNR: return 0x20 | (arg & 0x1f);
	default: return 0;
	}
}

int
rk_tp_forge_build(enum rk_impair_forge forge, uint8_t arg, const uint8_t *req, uint32_t len,
		  uint8_t *out, uint32_t cap)
{
	struct rk_pkt p;
	struct rk_roce_addr a = { .df = true };
	struct rk_bth_fields b = { 0 };
	struct rk_xeth_fields x = { 0 };
	const struct peer *e;
	const uint8_t *bth;
	int n;

	if (!parse(req, len, &p) || !(p.op->flags & RK_OPF_REQ))
		return -EINVAL;
	bth = p.frame + p.bth_off;
	if (forge != RK_IMPAIR_FORGE_CNP) {
		const struct flow *f = flow_of(&p, rk_bth_dest_qp(bth));

		if (f->used && f->hole && rk_psn_diff(rk_bth_psn(bth), f->hole_psn) > 0) {
			fg.held_back++;
			return -EAGAIN;
		}
	}
	if ((e = peer_of(&p, rk_bth_psn(bth))) == NULL) {
		fg.unpaired++;
		return -ENOENT;
	}
	memcpy(a.src_mac, p.dst_mac, 6);
	memcpy(a.dst_mac, p.src_mac, 6);
	memcpy(a.src_ip, p.dst_ip, 16);
	memcpy(a.dst_ip, p.src_ip, 16);
	a.ip_version = p.ip_version;
	a.src_port = e->sport;
	a.vlan = e->vlan;
	a.vlan_tci = e->vlan_tci;
	a.dscp = e->dscp;
	b.p_key = rk_bth_p_key(bth);
	b.dest_qp = e->req_qp;
	if (forge == RK_IMPAIR_FORGE_CNP) {
		b.opcode = RK_OP_CNP;   /* BTH PSN reserved: 0 (Annex A17 A17.9.3) */
		n = rk_build_rocev2(out, cap, &a, &b, NULL, NULL, 0);
	} else {
		b.opcode = RK_OP_ACKNOWLEDGE;
		b.psn = rk_bth_psn(bth);
		x.aeth_syndrome = syndrome_of(forge, arg);
		x.aeth_msn = e->msn;
		n = rk_build_rocev2(out, cap, &a, &b, &x, NULL, 0);
	}
	if (n > 0)
		fg.built++;
	return n > 0 ? n : -ENOSPC;
}

static void
print_event(FILE *out, const struct event *e)
{
	char what[32];

	if (e->forge == RK_IMPAIR_FORGE_NONE)
		snprintf(what, sizeof(what), "dropped");
	else if (e->forge == RK_IMPAIR_FORGE_RNR)
		snprintf(what, sizeof(what), "RNR NAK (timer %u: %.2f ms)", e->forge_arg,
			 (double)rk_rnr_timer_ns(e->forge_arg) / 1e6);
	else
		snprintf(what, sizeof(what), "NAK 0x%02x", syndrome_of(e->forge, e->forge_arg));
	fprintf(out, "  rule %d: PSN %u of QP 0x%x %s: ", e->rule, e->psn, e->dest_qp, what);
	if (!e->resend_seen && e->acked_ns != 0) {
		/* The copy taken was a resend of a request the responder had. */
		fprintf(out, "not resent, acknowledged after %.1f us (the responder had an earlier copy)\n",
			(double)(e->acked_ns - e->t_ns) / 1e3);
		return;
	}
	if (!e->resend_seen) {
		fprintf(out, "not resent\n");
		return;
	}
	fprintf(out, "resent after %.1f us", (double)(e->resent_ns - e->t_ns) / 1e3);
	if (e->hi_psn != e->psn)
		fprintf(out, ", go-back-N %u..%u: %u of %u frames resent%s", e->psn, e->hi_psn,
			e->resent, (uint32_t)rk_psn_diff(e->hi_psn, e->psn) + 1,
			e->done ? "" : " so far");
	fputc('\n', out);
}

void
rk_tp_forge_report(FILE *out)
{
	fprintf(out, "reaction: %" PRIu64 " request(s) dropped or answered by a rule, "
		"%" PRIu64 " answer(s) forged (not forged: %" PRIu64 " with no requester QP "
		"learned yet, %" PRIu64 " behind a request taken away and not yet resent), "
		"%" PRIu64 " CNP(s) seen passing\n", fg.events_total, fg.built, fg.unpaired,
		fg.held_back, fg.cnps_seen);
	for (unsigned int i = 0; i < fg.n_ev; i++)
		print_event(out, &fg.ev[i]);
	if (fg.events_total > fg.n_ev)
		fprintf(out, "  (the first %u events are kept)\n", EVENTS);
}
