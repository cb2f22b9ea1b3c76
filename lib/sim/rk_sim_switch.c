/* SPDX-License-Identifier: BSD-3-Clause */
/* Output-queued switches on a virtual clock: see rk_sim_switch.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rk_build.h"
#include "rk_ipv4.h"
#include "rk_rand.h"
#include "rk_sim_switch.h"

struct pkt {
	struct pkt *next;
	unsigned int in_port, prio;     /* in_port UINT32_MAX: a PFC frame we send */
	uint32_t len;
	uint8_t data[];
};

struct queue { struct pkt *head, *tail; uint64_t bytes; };

enum ev_kind { EV_ARRIVE, EV_TX_DONE, EV_KICK, EV_SRC, EV_REFRESH, EV_WATCHDOG };

struct ev {
	uint64_t t, seq;
	enum ev_kind kind;
	struct rk_sw *sw;
	unsigned int port, idx;
	uint64_t gen;                           /* EV_SRC: the source's generation */
	struct pkt *p;
};

struct source {
	struct rk_sw *sw;
	unsigned int port, prio;
	uint64_t rate, prop, start, stop, sent, paused_ns;
	uint64_t paused_until;
	bool waiting;                           /* blocked by a pause until wake_t */
	uint64_t wake_t;
	uint64_t gen;                           /* only the newest EV_SRC is live */
	uint64_t last_done, ser_rem;
	uint8_t *frame;
	uint32_t len;
};

struct port {
	struct rk_sw_port_cfg cfg;
	struct rk_sw *peer; unsigned int peer_port;
	rk_sw_host_fn host; void *host_ctx;
	int src;                                /* source feeding this port, -1 */
	struct queue q[RK_SW_PRIOS], ctl;
	bool busy;
	uint64_t paused_until[RK_SW_PRIOS];
	uint64_t ing[RK_SW_PRIOS];
	bool xoff[RK_SW_PRIOS];
	bool refresh_pending[RK_SW_PRIOS];      /* one refresh chain per PG */
	uint64_t kick_t;                        /* pending wake-up at a pause's end */
	/* PFC watchdog: since when each priority is paused without a break
	 * (0: not paused), a storm being handled, the last PFC naming it */
	uint64_t paused_since[RK_SW_PRIOS], wd_last_pfc[RK_SW_PRIOS];
	bool wd_storm[RK_SW_PRIOS], wd_pending[RK_SW_PRIOS];
	uint64_t last_done, ser_rem;            /* exact back-to-back serialisation */
	double acc[RK_SW_PRIOS];
	uint64_t rng;
	struct rk_sw_prio_stats st[RK_SW_PRIOS];
};

struct rk_sw {
	struct rk_sw_net *net;
	struct rk_sw_cfg cfg;
	uint64_t used;
	uint8_t route[256];
	uint8_t mac[6];
	struct port *ports;
};

struct rk_sw_net {
	uint64_t now, seq;
	struct ev *heap; size_t nev, cap;
	struct rk_sw **sws; size_t nsw;
	struct source *srcs; size_t nsrc;
	rk_sw_pfc_trace_fn pfc_tr; rk_sw_queue_trace_fn q_tr; void *tr_ctx;
};

/* ---- event heap (time, then scheduling order: deterministic) ---- */
static bool ev_lt(const struct ev *a, const struct ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static int push(struct rk_sw_net *n, struct ev e)
{
	if (n->nev == n->cap) {
		size_t c = n->cap ? n->cap * 2 : 256;
		struct ev *h = realloc(n->heap, c * sizeof(*h));

		if (!h)
			return -ENOMEM;
		n->heap = h;
		n->cap = c;
	}
	e.seq = n->seq++;
	size_t i = n->nev++;

	while (i && ev_lt(&e, &n->heap[(i - 1) / 2])) {
		n->heap[i] = n->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	n->heap[i] = e;
	return 0;
}

static struct ev pop(struct rk_sw_net *n)
{
	struct ev top = n->heap[0], last = n->heap[--n->nev];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n->nev)
			break;
		if (c + 1 < n->nev && ev_lt(&n->heap[c + 1], &n->heap[c]))
			c++;
		if (!ev_lt(&n->heap[c], &last))
			break;
		n->heap[i] = n->heap[c];
		i = c;
	}
	if (n->nev)
		n->heap[i] = last;
	return top;
}

static void sched(struct rk_sw_net *n, uint64_t t, enum ev_kind k, struct rk_sw *sw,
		  unsigned int port, unsigned int idx, struct pkt *p)
{
	struct ev e = { .t = t, .kind = k, .sw = sw, .port = port, .idx = idx, .p = p };

	if (push(n, e) < 0)
		free(p);        /* out of memory: the frame is lost */
}

/* ---- frames ---- */
static uint32_t l3_off(const uint8_t *f, uint32_t len, uint16_t *et)
{
	if (len < 14)
		return 0;
	*et = (uint16_t)(f[12] << 8 | f[13]);
	if (*et == 0x8100 && len >= 18) {
		*et = (uint16_t)(f[16] << 8 | f[17]);
		return 18;
	}
	return 14;
}

unsigned int rk_sw_frame_prio(const uint8_t *f, uint32_t len)
{
	uint16_t et = 0;
	uint32_t o = l3_off(f, len, &et);

	if (!o)
		return 0;
	if (o == 18)
		return f[14] >> 5;
	if (et == 0x0800 && len >= o + 20)
		return (unsigned int)(f[o + 1] >> 2) >> 3;
	if (et == 0x86dd && len >= o + 40)
		return (unsigned int)(((f[o] & 0x0f) << 4 | f[o + 1] >> 4) >> 2) >> 3;
	return 0;
}

int rk_sw_set_ce(uint8_t *f, uint32_t len)
{
	uint16_t et = 0;
	uint32_t o = l3_off(f, len, &et);

	if (o && et == 0x0800 && len >= o + 20) {
		uint8_t *ip = f + o;

		/* the checksum covers IHL * 4 bytes: all of them in the frame */
		if (len < o + (rk_ipv4_hlen(ip) > 20 ? rk_ipv4_hlen(ip) : 20))
			return -EINVAL;
		if ((ip[1] & 3) == 0 || (ip[1] & 3) == 3)
			return 0;
		ip[1] |= 3;
		ip[10] = ip[11] = 0;
		uint16_t c = rk_ipv4_csum(ip);

		ip[10] = (uint8_t)(c >> 8);
		ip[11] = (uint8_t)c;
		return 1;
	}
	if (o && et == 0x86dd && len >= o + 40) {
		/* ECN is the low two bits of Traffic Class: bits 4..5 of byte 1 */
		unsigned int ecn = (f[o + 1] >> 4) & 3;

		if (ecn == 0 || ecn == 3)
			return 0;
		f[o + 1] |= 0x30;
		return 1;
	}
	return -EINVAL;
}

int rk_sw_pfc_parse(const uint8_t *f, uint32_t len, uint8_t *ce, uint16_t q[RK_SW_PRIOS])
{
	static const uint8_t dst[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };

	if (len < 34 || memcmp(f, dst, 6) || f[12] != 0x88 || f[13] != 0x08 ||
	    f[14] != 0x01 || f[15] != 0x01)
		return -EINVAL;
	*ce = f[17];
	for (int i = 0; i < RK_SW_PRIOS; i++)
		q[i] = (uint16_t)(f[18 + 2 * i] << 8 | f[19 + 2 * i]);
	return 0;
}

double rk_sw_red_p(uint64_t b, uint32_t kmin, uint32_t kmax, double pmax)
{
	if (b <= kmin)
		return 0;
	if (b > kmax)
		return 1;
	return pmax * (double)(b - kmin) / (double)(kmax - kmin);
}

/* ---- network ---- */
struct rk_sw_net *rk_sw_net_create(void) { return calloc(1, sizeof(struct rk_sw_net)); }
uint64_t rk_sw_net_now(const struct rk_sw_net *n) { return n->now; }

void rk_sw_net_set_trace(struct rk_sw_net *n, rk_sw_pfc_trace_fn pfc, rk_sw_queue_trace_fn q,
			 void *ctx)
{
	n->pfc_tr = pfc;
	n->q_tr = q;
	n->tr_ctx = ctx;
}

static void free_q(struct queue *q)
{
	for (struct pkt *p = q->head, *nx; p; p = nx) {
		nx = p->next;
		free(p);
	}
}

void rk_sw_net_destroy(struct rk_sw_net *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nev; i++)
		free(n->heap[i].p);
	for (size_t i = 0; i < n->nsw; i++) {
		struct rk_sw *sw = n->sws[i];

		for (unsigned int p = 0; p < sw->cfg.nports; p++) {
			for (int q = 0; q < RK_SW_PRIOS; q++)
				free_q(&sw->ports[p].q[q]);
			free_q(&sw->ports[p].ctl);
		}
		free(sw->ports);
		free(sw);
	}
	for (size_t i = 0; i < n->nsrc; i++)
		free(n->srcs[i].frame);
	free(n->srcs);
	free(n->sws);
	free(n->heap);
	free(n);
}

struct rk_sw *rk_sw_add(struct rk_sw_net *n, const struct rk_sw_cfg *cfg)
{
	if (!n || !cfg || !cfg->nports || cfg->nports > 64 || !cfg->port.rate_bps) {
		errno = EINVAL;
		return NULL;
	}
	struct rk_sw *sw = calloc(1, sizeof(*sw));
	struct rk_sw **v = realloc(n->sws, (n->nsw + 1) * sizeof(*v));

	if (v)
		n->sws = v;
	if (!sw || !v || !(sw->ports = calloc(cfg->nports, sizeof(struct port)))) {
		free(sw);
		errno = ENOMEM;
		return NULL;
	}
	sw->net = n;
	sw->cfg = *cfg;
	sw->mac[0] = 0x02;
	sw->mac[5] = (uint8_t)n->nsw;
	uint64_t s = cfg->seed ^ (n->nsw * 0x100000001b3ull);

	for (unsigned int p = 0; p < cfg->nports; p++) {
		sw->ports[p].cfg = cfg->port;
		sw->ports[p].src = -1;
		sw->ports[p].rng = rk_splitmix64(&s) | 1;
	}
	memset(sw->route, 0xff, sizeof(sw->route));
	n->sws[n->nsw++] = sw;
	return sw;
}

int rk_sw_set_port_cfg(struct rk_sw *sw, unsigned int port, const struct rk_sw_port_cfg *pc)
{
	if (!sw || port >= sw->cfg.nports || !pc || !pc->rate_bps)
		return -EINVAL;
	sw->ports[port].cfg = *pc;
	return 0;
}

int rk_sw_connect(struct rk_sw *a, unsigned int pa, struct rk_sw *b, unsigned int pb)
{
	if (!a || !b || pa >= a->cfg.nports || pb >= b->cfg.nports ||
	    a->ports[pa].peer || b->ports[pb].peer || (a == b && pa == pb))
		return -EINVAL;
	a->ports[pa].peer = b;
	a->ports[pa].peer_port = pb;
	b->ports[pb].peer = a;
	b->ports[pb].peer_port = pa;
	return 0;
}

int rk_sw_attach_host(struct rk_sw *sw, unsigned int port, rk_sw_host_fn fn, void *ctx)
{
	if (!sw || port >= sw->cfg.nports || sw->ports[port].peer)
		return -EINVAL;
	sw->ports[port].host = fn;
	sw->ports[port].host_ctx = ctx;
	return 0;
}

int rk_sw_route(struct rk_sw *sw, uint8_t mac_lsb, unsigned int port)
{
	if (!sw || port >= sw->cfg.nports)
		return -EINVAL;
	sw->route[mac_lsb] = (uint8_t)port;
	return 0;
}

const struct rk_sw_prio_stats *rk_sw_stats(const struct rk_sw *sw, unsigned int port,
					   unsigned int prio)
{
	if (!sw || port >= sw->cfg.nports || prio >= RK_SW_PRIOS)
		return NULL;
	return &sw->ports[port].st[prio];
}

uint64_t rk_sw_ingress_bytes(const struct rk_sw *sw, unsigned int port, unsigned int pg)
{
	return port < sw->cfg.nports && pg < RK_SW_PRIOS ? sw->ports[port].ing[pg] : 0;
}

uint64_t rk_sw_queue_bytes(const struct rk_sw *sw, unsigned int port, unsigned int prio)
{
	return port < sw->cfg.nports && prio < RK_SW_PRIOS ? sw->ports[port].q[prio].bytes : 0;
}

bool rk_sw_paused(const struct rk_sw *sw, unsigned int port, unsigned int prio)
{
	return port < sw->cfg.nports && prio < RK_SW_PRIOS &&
	       sw->ports[port].paused_until[prio] > sw->net->now;
}

static void q_put(struct queue *q, struct pkt *p)
{
	p->next = NULL;
	if (q->tail)
		q->tail->next = p;
	else
		q->head = p;
	q->tail = p;
	q->bytes += p->len;
}

static struct pkt *q_take(struct queue *q)
{
	struct pkt *p = q->head;

	if (p) {
		q->head = p->next;
		if (!q->head)
			q->tail = NULL;
		q->bytes -= p->len;
	}
	return p;
}

/*
 * Serialisation of back-to-back frames without rounding drift: the
 * remainder (in 1/rate ns units) carries to the next frame while the
 * transmitter stays busy, and restarts at 0 after an idle gap.
 */
static uint64_t ser_ns_exact(uint64_t bytes, uint64_t rate, uint64_t now, uint64_t *last_done,
			     uint64_t *rem)
{
	if (now != *last_done)
		*rem = 0;
	uint64_t num = bytes * 8 * 1000000000ull + *rem;

	*rem = num % rate;
	*last_done = now + num / rate;
	return num / rate;
}

static uint64_t quanta_ns(uint16_t quanta, uint64_t rate)
{
	return ((uint64_t)quanta * 512 * 1000000000ull + rate - 1) / rate;
}

static void start_tx(struct rk_sw *sw, unsigned int port);

/* Send a PFC frame for one priority out of (sw, port), ahead of data. */
static void send_pfc(struct rk_sw *sw, unsigned int port, unsigned int prio, uint16_t quanta)
{
	struct rk_sw_net *n = sw->net;
	struct pkt *p = malloc(sizeof(*p) + 60);
	uint16_t qv[RK_SW_PRIOS] = { 0 };

	if (!p)
		return;
	qv[prio] = quanta;
	p->len = (uint32_t)rk_build_pfc(p->data, 60, sw->mac, (uint8_t)(1u << prio), qv);
	p->in_port = UINT32_MAX;
	p->prio = prio;
	q_put(&sw->ports[port].ctl, p);
	sw->ports[port].st[prio].tx_pause++;
	if (n->pfc_tr)
		n->pfc_tr(n->tr_ctx, sw, port, n->now, prio, quanta, 0);
	start_tx(sw, port);
}

/* Ingress accounting of one priority group after a change: XOFF / XON. */
static void ingress_check(struct rk_sw *sw, unsigned int port, unsigned int pg)
{
	struct port *pt = &sw->ports[port];
	uint64_t th = (uint64_t)pt->cfg.reserve_bytes + pt->cfg.xoff_bytes;

	if (!(sw->cfg.lossless_mask >> pg & 1))
		return;
	if (!pt->xoff[pg] && pt->ing[pg] > th) {
		pt->xoff[pg] = true;
		send_pfc(sw, port, pg, pt->cfg.pause_quanta);
		if (pt->refresh_pending[pg])
			return;
		pt->refresh_pending[pg] = true;
		/* refresh at half the pause time while still over */
		sched(sw->net, sw->net->now + quanta_ns(pt->cfg.pause_quanta, pt->cfg.rate_bps) / 2,
		      EV_REFRESH, sw, port, pg, NULL);
	} else if (pt->xoff[pg] && pt->ing[pg] < (uint64_t)pt->cfg.reserve_bytes + pt->cfg.xon_bytes) {
		pt->xoff[pg] = false;
		send_pfc(sw, port, pg, 0);
	}
}

static bool mark_decision(struct rk_sw *sw, struct port *pt, unsigned int prio, uint64_t bytes)
{
	double p = rk_sw_red_p(bytes, pt->cfg.kmin_bytes[prio], pt->cfg.kmax_bytes[prio],
			       pt->cfg.pmax[prio]);

	if (p <= 0)
		return false;
	if (sw->cfg.deterministic) {
		pt->acc[prio] += p;
		if (pt->acc[prio] >= 1.0 - 1e-12) {
			pt->acc[prio] -= 1.0;
			return true;
		}
		return false;
	}
	return (double)(rk_xorshift64s(&pt->rng) >> 11) * 0x1.0p-53 < p;
}

static void trace_q(struct rk_sw *sw, unsigned int port, unsigned int prio, bool marked)
{
	struct rk_sw_net *n = sw->net;
	struct port *pt = &sw->ports[port];

	if (n->q_tr)
		n->q_tr(n->tr_ctx, sw, port, prio, n->now, pt->q[prio].bytes, marked,
			pt->paused_until[prio] > n->now);
}

static void deliver(struct rk_sw *sw, unsigned int port, struct pkt *p, uint64_t t);

static void start_tx(struct rk_sw *sw, unsigned int port)
{
	struct rk_sw_net *n = sw->net;
	struct port *pt = &sw->ports[port];
	struct pkt *p;
	uint64_t wake = UINT64_MAX;

	if (pt->busy)
		return;
	p = q_take(&pt->ctl);
	for (int prio = RK_SW_PRIOS - 1; !p && prio >= 0; prio--) {
		if (!pt->q[prio].head)
			continue;
		if (pt->paused_until[prio] > n->now) {
			if (pt->paused_until[prio] < wake)
				wake = pt->paused_until[prio];
			continue;
		}
		p = q_take(&pt->q[prio]);
		struct port *in = &sw->ports[p->in_port];

		in->ing[prio] -= p->len;
		sw->used -= p->len;
		bool marked = false;

		if (!sw->cfg.mark_at_enqueue && mark_decision(sw, pt, prio, pt->q[prio].bytes + p->len))
			marked = rk_sw_set_ce(p->data, p->len) == 1;
		if (marked)
			pt->st[prio].ecn_marked++;
		pt->st[prio].tx_frames++;
		trace_q(sw, port, prio, marked);
		ingress_check(sw, p->in_port, prio);
	}
	if (!p) {
		if (wake != UINT64_MAX && (pt->kick_t <= n->now || wake < pt->kick_t)) {
			pt->kick_t = wake;
			sched(n, wake, EV_KICK, sw, port, 0, NULL);
		}
		return;
	}
	pt->busy = true;
	uint64_t done = n->now + ser_ns_exact(p->len, pt->cfg.rate_bps, n->now, &pt->last_done,
					      &pt->ser_rem);

	sched(n, done, EV_TX_DONE, sw, port, 0, NULL);
	deliver(sw, port, p, done + pt->cfg.prop_ns);
}

/* The whole frame reaches the peer of (sw, port) at @p t. */
static void deliver(struct rk_sw *sw, unsigned int port, struct pkt *p, uint64_t t)
{
	struct port *pt = &sw->ports[port];

	if (pt->peer) {
		sched(sw->net, t, EV_ARRIVE, pt->peer, pt->peer_port, 0, p);
		return;
	}
	if (pt->src >= 0) {
		/* PFC to a source: applied on arrival */
		sched(sw->net, t, EV_ARRIVE, NULL, port, (unsigned int)pt->src, p);
		return;
	}
	if (pt->host)
		pt->host(pt->host_ctx, sw, port, t, p->data, p->len);
	free(p);
}

static void apply_pause(uint64_t *until, uint64_t *acc_ns, uint64_t now, uint16_t q, uint64_t rate)
{
	uint64_t end = now + quanta_ns(q, rate);

	/* time counted once: from now (or the old end) to the new end */
	if (*until > now) {
		if (q == 0) {
			*acc_ns -= *until - now;
		} else if (end > *until) {
			*acc_ns += end - *until;
		} else {
			*acc_ns -= *until - end;
		}
	} else {
		*acc_ns += end - now;
	}
	*until = end;
}

/* A watchdog check of (sw, port, prio) at @p t, unless one is pending or it is off. */
static void wd_arm(struct rk_sw *sw, unsigned int port, unsigned int prio, uint64_t t)
{
	struct port *pt = &sw->ports[port];

	if (!pt->cfg.pfcwd_detect_ns || pt->wd_pending[prio])
		return;
	pt->wd_pending[prio] = true;
	sched(sw->net, t, EV_WATCHDOG, sw, port, prio, NULL);
}

/* A storm found on egress (sw, port, prio): unpause it and drop what it holds. */
static void wd_storm_begin(struct rk_sw *sw, unsigned int port, unsigned int prio)
{
	struct rk_sw_net *n = sw->net;
	struct port *pt = &sw->ports[port];
	struct pkt *p;

	pt->wd_storm[prio] = true;
	pt->wd_last_pfc[prio] = n->now;
	pt->st[prio].pfcwd_storms++;
	apply_pause(&pt->paused_until[prio], &pt->st[prio].pause_ns, n->now, 0, pt->cfg.rate_bps);
	pt->paused_since[prio] = 0;
	while ((p = q_take(&pt->q[prio])) != NULL) {
		sw->ports[p->in_port].ing[prio] -= p->len;
		sw->used -= p->len;
		pt->st[prio].pfcwd_drops++;
		ingress_check(sw, p->in_port, prio);
		free(p);
	}
	trace_q(sw, port, prio, false);
	wd_arm(sw, port, prio, n->now + pt->cfg.pfcwd_restore_ns);
}

/* The watchdog's check of (sw, port, prio): a storm begins, ends, or not yet. */
static void wd_check(struct rk_sw *sw, unsigned int port, unsigned int prio)
{
	struct rk_sw_net *n = sw->net;
	struct port *pt = &sw->ports[port];

	pt->wd_pending[prio] = false;
	if (pt->wd_storm[prio]) {
		if (n->now - pt->wd_last_pfc[prio] >= pt->cfg.pfcwd_restore_ns)
			pt->wd_storm[prio] = false;     /* restored: PFC honoured again */
		else
			wd_arm(sw, port, prio, pt->wd_last_pfc[prio] + pt->cfg.pfcwd_restore_ns);
		return;
	}
	if (pt->paused_until[prio] <= n->now || !pt->paused_since[prio]) {
		pt->paused_since[prio] = 0;
		return;
	}
	if (n->now - pt->paused_since[prio] < pt->cfg.pfcwd_detect_ns) {
		wd_arm(sw, port, prio, pt->paused_since[prio] + pt->cfg.pfcwd_detect_ns);
		return;
	}
	if (pt->q[prio].head)
		wd_storm_begin(sw, port, prio);
	else    /* paused with nothing to send: no storm yet, look again */
		wd_arm(sw, port, prio, n->now + pt->cfg.pfcwd_detect_ns);
}

static void arrive(struct rk_sw *sw, unsigned int port, struct pkt *p)
{
	struct rk_sw_net *n = sw->net;
	struct port *pt = &sw->ports[port];
	uint8_t ce;
	uint16_t qv[RK_SW_PRIOS];

	if (rk_sw_pfc_parse(p->data, p->len, &ce, qv) == 0) {
		for (unsigned int i = 0; i < RK_SW_PRIOS; i++) {
			if (!(ce >> i & 1))
				continue;
			pt->st[i].rx_pause++;
			if (pt->wd_storm[i]) {  /* ignored while the watchdog holds it */
				if (qv[i])
					pt->wd_last_pfc[i] = n->now;
				continue;
			}
			if (pt->paused_until[i] <= n->now || !qv[i])
				pt->paused_since[i] = qv[i] ? n->now : 0;
			apply_pause(&pt->paused_until[i], &pt->st[i].pause_ns, n->now, qv[i],
				    pt->cfg.rate_bps);
			if (qv[i])
				wd_arm(sw, port, i, pt->paused_since[i] + pt->cfg.pfcwd_detect_ns);
			if (n->pfc_tr)
				n->pfc_tr(n->tr_ctx, sw, port, n->now, i, qv[i], 1);
		}
		free(p);
		start_tx(sw, port);
		return;
	}
	unsigned int prio = rk_sw_frame_prio(p->data, p->len);
	unsigned int out = p->len >= 6 ? sw->route[p->data[5]] : 0xff;

	pt->st[prio].rx_frames++;
	p->in_port = port;
	p->prio = prio;
	struct port *op = out < sw->cfg.nports ? &sw->ports[out] : NULL;
	bool lossless = sw->cfg.lossless_mask >> prio & 1;
	uint64_t cap = (uint64_t)pt->cfg.reserve_bytes + pt->cfg.xoff_bytes + pt->cfg.headroom_bytes;

	if (op && op->wd_storm[prio]) {
		op->st[prio].pfcwd_drops++;
		free(p);
		return;
	}
	if (!op || (sw->cfg.buffer_bytes && sw->used + p->len > sw->cfg.buffer_bytes) ||
	    (lossless && pt->ing[prio] + p->len > cap) ||
	    (!lossless && op->cfg.limit_bytes && op->q[prio].bytes + p->len > op->cfg.limit_bytes)) {
		pt->st[prio].drops++;
		free(p);
		return;
	}
	bool marked = false;

	if (sw->cfg.mark_at_enqueue && mark_decision(sw, op, prio, op->q[prio].bytes + p->len))
		marked = rk_sw_set_ce(p->data, p->len) == 1;
	if (marked)
		op->st[prio].ecn_marked++;
	q_put(&op->q[prio], p);
	pt->ing[prio] += p->len;
	sw->used += p->len;
	if (op->q[prio].bytes > op->st[prio].queue_peak)
		op->st[prio].queue_peak = op->q[prio].bytes;
	trace_q(sw, out, prio, marked);
	ingress_check(sw, port, prio);
	start_tx(sw, out);
}

int rk_sw_host_send(struct rk_sw *sw, unsigned int port, uint64_t arrive_ns,
		    const uint8_t *frame, uint32_t len)
{
	if (!sw || port >= sw->cfg.nports || !frame || !len || sw->ports[port].peer ||
	    sw->ports[port].src >= 0 || arrive_ns < sw->net->now)
		return -EINVAL;
	struct pkt *p = malloc(sizeof(*p) + len);

	if (!p)
		return -ENOMEM;
	memcpy(p->data, frame, len);
	p->len = len;
	struct ev e = { .t = arrive_ns, .kind = EV_ARRIVE, .sw = sw, .port = port, .p = p };

	if (push(sw->net, e) < 0) {
		free(p);
		return -ENOMEM;
	}
	return 0;
}

uint64_t rk_sw_net_next_ns(const struct rk_sw_net *n)
{
	return n->nev ? n->heap[0].t : UINT64_MAX;
}

/* ---- sources ---- */
static void src_sched(struct rk_sw_net *n, struct source *s, uint64_t t);

int rk_sw_add_source(struct rk_sw *sw, unsigned int port, uint64_t rate, uint64_t prop,
		     const uint8_t *frame, uint32_t len, uint64_t start, uint64_t stop)
{
	if (!sw || port >= sw->cfg.nports || !rate || !frame || !len || sw->ports[port].peer ||
	    sw->ports[port].src >= 0)
		return -EINVAL;
	struct rk_sw_net *n = sw->net;
	struct source *v = realloc(n->srcs, (n->nsrc + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	n->srcs = v;
	struct source *s = &v[n->nsrc];

	memset(s, 0, sizeof(*s));
	if (!(s->frame = malloc(len)))
		return -ENOMEM;
	memcpy(s->frame, frame, len);
	s->len = len;
	s->sw = sw;
	s->port = port;
	s->prio = rk_sw_frame_prio(frame, len);
	s->rate = rate;
	s->prop = prop;
	s->start = start;
	s->stop = stop;
	sw->ports[port].src = (int)n->nsrc;
	n->nsrc++;
	src_sched(n, s, start);
	return 0;
}

uint64_t rk_sw_source_sent(const struct rk_sw_net *n, unsigned int idx, uint64_t *paused_ns)
{
	if (idx >= n->nsrc)
		return 0;
	if (paused_ns)
		*paused_ns = n->srcs[idx].paused_ns;
	return n->srcs[idx].sent;
}

/* A source at a frame boundary: send the next frame or wait out a pause. */
static void src_sched(struct rk_sw_net *n, struct source *s, uint64_t t)
{
	struct ev e = { .t = t, .kind = EV_SRC, .port = s->port,
			.idx = (unsigned int)(s - n->srcs), .gen = ++s->gen };

	(void)push(n, e);
}

static void source_step(struct rk_sw_net *n, struct source *s, uint64_t gen)
{
	if (gen != s->gen)
		return;         /* superseded (an XON woke the source earlier) */
	s->waiting = false;
	if (n->now >= s->stop)
		return;
	if (s->paused_until > n->now) {
		s->waiting = true;
		s->wake_t = s->paused_until;
		src_sched(n, s, s->paused_until);
		return;
	}
	struct pkt *p = malloc(sizeof(*p) + s->len);

	if (!p)
		return;
	memcpy(p->data, s->frame, s->len);
	p->len = s->len;
	s->sent++;
	uint64_t done = n->now + ser_ns_exact(s->len, s->rate, n->now, &s->last_done, &s->ser_rem);

	sched(n, done + s->prop, EV_ARRIVE, s->sw, s->port, 0, p);
	src_sched(n, s, done);
}

static void source_pfc(struct rk_sw_net *n, struct source *s, struct pkt *p)
{
	uint8_t ce;
	uint16_t qv[RK_SW_PRIOS];

	if (rk_sw_pfc_parse(p->data, p->len, &ce, qv) == 0 && (ce >> s->prio & 1)) {
		apply_pause(&s->paused_until, &s->paused_ns, n->now, qv[s->prio], s->rate);
		if (s->waiting && s->paused_until < s->wake_t) {
			s->wake_t = s->paused_until;
			src_sched(n, s, s->wake_t);
		}
	}
	free(p);
}

uint64_t rk_sw_net_run(struct rk_sw_net *n, uint64_t until)
{
	uint64_t cnt = 0;

	while (n->nev && n->heap[0].t <= until) {
		struct ev e = pop(n);

		n->now = e.t;
		cnt++;
		switch (e.kind) {
		case EV_ARRIVE:
			if (e.sw)
				arrive(e.sw, e.port, e.p);
			else
				source_pfc(n, &n->srcs[e.idx], e.p);
			break;
		case EV_TX_DONE:
			e.sw->ports[e.port].busy = false;
			start_tx(e.sw, e.port);
			break;
		case EV_KICK:
			start_tx(e.sw, e.port);
			break;
		case EV_SRC:
			source_step(n, &n->srcs[e.idx], e.gen);
			break;
		case EV_WATCHDOG:
			wd_check(e.sw, e.port, e.idx);
			start_tx(e.sw, e.port);
			break;
		case EV_REFRESH: {
			struct port *pt = &e.sw->ports[e.port];

			pt->refresh_pending[e.idx] = false;
			if (pt->xoff[e.idx]) {
				pt->refresh_pending[e.idx] = true;
				send_pfc(e.sw, e.port, e.idx, pt->cfg.pause_quanta);
				sched(n, n->now + quanta_ns(pt->cfg.pause_quanta, pt->cfg.rate_bps) / 2,
				      EV_REFRESH, e.sw, e.port, e.idx, NULL);
			}
			break;
		}
		}
	}
	if (until > n->now)
		n->now = until;
	return cnt;
}
