/* SPDX-License-Identifier: BSD-3-Clause */
/* N:1 incast of lib/ib RC QPs through the simulated switch: see rk_sim_dcqcn.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rk_build.h"
#include "rk_ib.h"
#include "rk_pkt.h"
#include "rk_sim_dcqcn.h"
#include "rk_sim_dcqcn_int.h"
#include "rk_sim_switch.h"

#define HOST_MEM (1u << 20)
#define SQ_DEPTH 16
#define RECV_MAC 0x80
#define VRECV_MAC 0x81
/* Lossless thresholds with pfc (bytes per ingress port and priority). */
#define PFC_XOFF 50000
#define PFC_XON 40000
#define PFC_HEADROOM 100000
/* A storming receiver's XOFF: the longest pause, refreshed well before its end. */
#define STORM_QUANTA 0xffff
#define STORM_EVERY_NS 400000ull

uint32_t rk_sdq_frame_bytes(void)
{
	return 14 + 20 + 8 + 12 + 1024 + 4;     /* Eth, IPv4, UDP, BTH, payload, ICRC */
}

static void on_queue(void *ctx, struct rk_sw *sw, unsigned int port, unsigned int prio,
		     uint64_t t, uint64_t bytes, bool marked, bool paused)
{
	struct rk_sdq *s = ctx;

	(void)prio; (void)marked; (void)paused;
	if (sw != s->bott_sw || port != s->bott_port)
		return;
	s->q_area += (double)s->q_bytes * (double)(t - s->q_t);
	s->q_t = t;
	s->q_bytes = bytes;
}

/* The switch hands a frame to a host: kept until its arrival time. */
static void on_host(void *ctx, struct rk_sw *sw, unsigned int port, uint64_t t,
		    const uint8_t *frame, uint32_t len)
{
	struct host *h = ctx;
	struct rxf *f = malloc(sizeof(*f) + len);

	(void)sw; (void)port;
	if (!f) {
		h->s->err = -ENOMEM;
		return;
	}
	f->next = NULL;
	f->t = t;
	f->len = len;
	memcpy(f->data, frame, len);
	if (h->rx_tail)
		h->rx_tail->next = f;
	else
		h->rx_head = f;
	h->rx_tail = f;
}

/* The engine emits a frame: serialised on the host link, then propagated. */
static void emit(void *ctx, const uint8_t *frame, uint32_t len)
{
	struct host *h = ctx;
	struct rk_sdq *s = h->s;
	uint64_t start = h->link_free > h->now ? h->link_free : h->now;

	h->link_free = start + ((uint64_t)len * 8 * 1000000000ull + s->cfg.link_bps - 1) /
			       s->cfg.link_bps;
	if (rk_sw_host_send(h->sw, h->port, h->link_free + s->cfg.prop_ns, frame, len) < 0)
		s->err = -ENOMEM;
}

static int host_init(struct rk_sdq *s, struct host *h, struct rk_sw *sw, unsigned int port,
		     uint8_t mac_lsb, unsigned int nqp)
{
	struct rk_ib_dev_attr da = {
		.mac = { 0x02, 0, 0, 0, 0, mac_lsb },
		.ip_version = 4,
		.key_seed = 0x5d0 + mac_lsb,
		.max_inflight_pkts = s->cfg.window,
	};
	struct rk_ib_qp_init_attr qa = {
		.qp_type = RK_QPT_RC,
		.sq_sig_all = 1,
		.cap = { .max_send_wr = SQ_DEPTH, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};

	da.ip[10] = da.ip[11] = 0xff;
	da.ip[12] = 198; da.ip[13] = 18; da.ip[14] = 1; da.ip[15] = mac_lsb;
	h->s = s;
	h->sw = sw;
	h->port = port;
	memcpy(h->mac, da.mac, 6);
	memcpy(h->ip, da.ip, 16);
	if (!(h->dev = rk_ib_dev_create(&da)))
		return -ENOMEM;
	rk_ib_dev_set_tx_rate(h->dev, s->cfg.link_bps);
	h->pd = rk_ib_pd_alloc(h->dev);
	h->cq = rk_ib_cq_create(h->dev, 4096);
	h->mem = calloc(1, HOST_MEM);
	if (!h->pd || !h->cq || !h->mem)
		return -ENOMEM;
	h->mr = rk_ib_mr_reg(h->pd, h->mem, HOST_MEM, RK_ACCESS_LOCAL_WRITE |
			     RK_ACCESS_REMOTE_WRITE | RK_ACCESS_REMOTE_READ);
	if (!h->mr)
		return -ENOMEM;
	qa.send_cq = qa.recv_cq = h->cq;
	for (unsigned int i = 0; i < nqp; i++) {
		if (!(h->qp[i] = rk_ib_qp_create(h->pd, &qa)))
			return -ENOMEM;
		/* both ends: nothing negotiates it */
		if (s->cfg.recovery && rk_ib_qp_set_recovery(h->qp[i], s->cfg.recovery))
			return -EINVAL;
		if (s->cfg.set_rto_low &&
		    rk_ib_qp_set_rto_low(h->qp[i], s->cfg.rto_low_ns, RK_IB_RTO_LOW_N))
			return -EINVAL;
	}
	return rk_sw_attach_host(sw, port, on_host, h);
}

static int qp_connect(struct rk_ib_qp *qp, const struct host *peer, struct rk_ib_qp *pqp,
		      uint8_t timeout)
{
	struct rk_qp_attr a = { 0 };

	a.qp_state = RK_QPS_INIT;
	a.qp_access_flags = RK_ACCESS_REMOTE_WRITE | RK_ACCESS_REMOTE_READ;
	if (rk_ib_qp_modify(qp, &a, RK_QP_STATE | RK_QP_PKEY_INDEX | RK_QP_PORT |
			    RK_QP_ACCESS_FLAGS))
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	a.qp_state = RK_QPS_RTR;
	a.path_mtu = RK_MTU_1024;
	a.dest_qp_num = rk_ib_qp_num(pqp);
	a.max_dest_rd_atomic = 4;
	memcpy(a.ah_attr.dmac, peer->mac, 6);
	memcpy(a.ah_attr.dip, peer->ip, 16);
	if (rk_ib_qp_modify(qp, &a, RK_QP_STATE | RK_QP_AV | RK_QP_PATH_MTU | RK_QP_DEST_QPN |
			    RK_QP_RQ_PSN | RK_QP_MAX_DEST_RD_ATOMIC | RK_QP_MIN_RNR_TIMER))
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	a.qp_state = RK_QPS_RTS;
	a.timeout = timeout ? timeout : 14;     /* 67 ms: none under queueing */
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	return rk_ib_qp_modify(qp, &a, RK_QP_STATE | RK_QP_SQ_PSN | RK_QP_TIMEOUT |
			       RK_QP_RETRY_CNT | RK_QP_RNR_RETRY | RK_QP_MAX_QP_RD_ATOMIC) ? -EINVAL : 0;
}

/* Keep the sender's send queue full of WRITEs to its region at the receiver. */
static void refill(struct rk_sdq *s, struct host *h)
{
	struct rk_wc wc[16];
	int n;

	while ((n = rk_ib_cq_poll(h->cq, 16, wc)) > 0) {
		h->posted -= (unsigned int)n;
		for (int i = 0; i < n; i++) {
			if (wc[i].status == RK_WC_SUCCESS)
				h->goodput_bytes += s->cfg.msg_bytes;
			else
				h->wc_errors++;
		}
	}
	/* a QP in error flushes what is posted: the flow has stopped */
	while (h->posted < SQ_DEPTH && !h->wc_errors) {
		struct rk_sge sge = { (uint64_t)(uintptr_t)h->mem, s->cfg.msg_bytes,
				      rk_ib_mr_lkey(h->mr) };
		struct rk_send_wr wr = { .wr_id = h->posted, .sg_list = &sge, .num_sge = 1,
					 .opcode = RK_WR_RDMA_WRITE };
		const struct rk_send_wr *bad;

		wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)h->peer->mem;
		wr.wr.rdma.rkey = rk_ib_mr_rkey(h->peer->mr);
		if (rk_ib_post_send(h->qp[0], &wr, &bad))
			break;
		h->posted++;
	}
}

/* Both directions of sender @p h and its QP @p rqp at receiver @p r. */
static int pair_up(const struct rk_sdq *s, struct host *h, struct host *r, struct rk_ib_qp *rqp)
{
	const struct rk_sdq_cfg *cfg = &s->cfg;
	int rc;

	h->peer = r;
	rc = qp_connect(h->qp[0], r, rqp, cfg->timeout);
	if (!rc)
		rc = qp_connect(rqp, h, h->qp[0], cfg->timeout);
	if (!rc && cfg->dcqcn) {
		uint32_t mbps = (uint32_t)(cfg->link_bps / 1000000);

		rc = rk_ib_qp_set_cc(h->qp[0], "dcqcn", &cfg->params, mbps);
		if (!rc)
			rc = rk_ib_qp_set_cc(rqp, "dcqcn", &cfg->params, mbps);
	}
	return rc;
}

/* The run's settings of every switch port. */
static void port_cfg(const struct rk_sdq_cfg *cfg, struct rk_sw_port_cfg *pc)
{
	memset(pc, 0, sizeof(*pc));
	pc->rate_bps = cfg->link_bps;
	pc->prop_ns = cfg->prop_ns;
	pc->limit_bytes = cfg->limit_bytes;
	if (cfg->pfc) {
		pc->xoff_bytes = PFC_XOFF;
		pc->xon_bytes = PFC_XON;
		pc->headroom_bytes = PFC_HEADROOM;
		pc->pause_quanta = 0xffff;
		pc->pfcwd_detect_ns = pc->pfcwd_restore_ns = cfg->pfcwd_ns;
	}
	for (unsigned int p = 0; p < 8; p++) {
		pc->kmin_bytes[p] = cfg->kmin_bytes;
		pc->kmax_bytes[p] = cfg->kmax_bytes;
		pc->pmax[p] = cfg->pmax;
	}
}

static struct rk_sw *add_switch(struct rk_sdq *s, unsigned int nports)
{
	struct rk_sw_cfg sc = {
		.nports = nports, .seed = s->cfg.seed, .mark_at_enqueue = s->cfg.mark_at_enqueue,
		.lossless_mask = s->cfg.pfc ? 0xff : 0,
	};

	port_cfg(&s->cfg, &sc.port);
	return rk_sw_add(s->net, &sc);
}

/*
 * Two tiers: T0 ports 0..n-1 the senders, n the victim, n + 1 the uplink
 * at (n + 1) x link_bps; T1 port 0 the uplink, 1 the receiver, 2 the
 * victim's receiver.
 */
static int victim_topology(struct rk_sdq *s)
{
	unsigned int n = s->cfg.senders;
	struct rk_sw_port_cfg up;
	int rc;

	if (!(s->t1 = add_switch(s, 3)))
		return -ENOMEM;
	port_cfg(&s->cfg, &up);
	up.rate_bps = s->cfg.link_bps * (n + 1);
	rc = rk_sw_set_port_cfg(s->sw, n + 1, &up);
	if (!rc)
		rc = rk_sw_set_port_cfg(s->t1, 0, &up);
	if (!rc)
		rc = rk_sw_connect(s->sw, n + 1, s->t1, 0);
	if (!rc)
		rc = host_init(s, &s->recv, s->t1, 1, RECV_MAC, n);
	if (!rc)
		rc = host_init(s, &s->vrecv, s->t1, 2, VRECV_MAC, 1);
	if (!rc)
		rc = rk_sw_route(s->sw, RECV_MAC, n + 1);
	if (!rc)
		rc = rk_sw_route(s->sw, VRECV_MAC, n + 1);
	if (!rc)
		rc = rk_sw_route(s->t1, RECV_MAC, 1);
	if (!rc)
		rc = rk_sw_route(s->t1, VRECV_MAC, 2);
	for (unsigned int i = 0; !rc && i <= n; i++)
		rc = rk_sw_route(s->t1, (uint8_t)(i + 1), 0);
	s->bott_sw = s->t1;
	s->bott_port = 1;
	return rc;
}

/*
 * Port-based PFC unfairness: T0 ports 0..n-2 the first n - 1 senders, n - 1
 * the uplink at link_bps; T1 port 0 the uplink, 1 the receiver, 2 the last
 * sender, alone on its ingress port.
 */
static int lone_topology(struct rk_sdq *s)
{
	unsigned int n = s->cfg.senders;
	int rc;

	if (!(s->t1 = add_switch(s, 3)))
		return -ENOMEM;
	rc = rk_sw_connect(s->sw, n - 1, s->t1, 0);
	if (!rc)
		rc = host_init(s, &s->recv, s->t1, 1, RECV_MAC, n);
	if (!rc)
		rc = rk_sw_route(s->sw, RECV_MAC, n - 1);
	if (!rc)
		rc = rk_sw_route(s->t1, RECV_MAC, 1);
	for (unsigned int i = 0; !rc && i + 1 < n; i++)
		rc = rk_sw_route(s->t1, (uint8_t)(i + 1), 0);
	s->bott_sw = s->t1;
	s->bott_port = 1;
	s->uplink_port = n - 1;
	return rc;
}

struct rk_sdq *rk_sdq_create(const struct rk_sdq_cfg *cfg)
{
	unsigned int n = cfg ? cfg->senders : 0;

	if (!n || n > RK_SDQ_MAX_SENDERS || !cfg->link_bps || !cfg->msg_bytes ||
	    cfg->msg_bytes > HOST_MEM || cfg->kmax_bytes < cfg->kmin_bytes ||
	    ((cfg->victim || cfg->storm_ns) && !cfg->pfc) || (cfg->lone && (n < 2 || cfg->victim))) {
		errno = EINVAL;
		return NULL;
	}
	struct rk_sdq *s = calloc(1, sizeof(*s));

	if (!s || !(s->net = rk_sw_net_create())) {
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	s->cfg = *cfg;
	s->nsnd = n + (cfg->victim ? 1 : 0);
	s->uplink_port = s->nsnd;
	/* one port per sender on T0 (and the victim; not the lone one), then
	 * the receiver's or the uplink */
	s->t0_ports = cfg->lone ? n : s->nsnd + 1;
	int rc = (s->sw = add_switch(s, s->t0_ports)) ? 0 : -ENOMEM;

	rk_sw_net_set_trace(s->net, NULL, on_queue, s);
	if (!rc && cfg->victim) {
		rc = victim_topology(s);
	} else if (!rc && cfg->lone) {
		rc = lone_topology(s);
	} else if (!rc) {
		rc = host_init(s, &s->recv, s->sw, n, RECV_MAC, n);
		if (!rc)
			rc = rk_sw_route(s->sw, RECV_MAC, n);
		s->bott_sw = s->sw;
		s->bott_port = n;
	}
	for (unsigned int i = 0; !rc && i < s->nsnd; i++) {
		bool alone = cfg->lone && i + 1 == n;
		struct rk_sw *at = alone ? s->t1 : s->sw;
		unsigned int port = alone ? 2 : i;

		s->snd[i].flow = i;
		rc = host_init(s, &s->snd[i], at, port, (uint8_t)(i + 1), 1);
		if (!rc)
			rc = rk_sw_route(at, (uint8_t)(i + 1), port);
		if (!rc)
			rc = i < n ? pair_up(s, &s->snd[i], &s->recv, s->recv.qp[i]) :
			     pair_up(s, &s->snd[i], &s->vrecv, s->vrecv.qp[0]);
		s->snd[i].start_ns = i < n ? i * cfg->stagger_ns : 0;
		if (!rc && s->snd[i].start_ns == 0)
			refill(s, &s->snd[i]);
	}
	if (rc) {
		rk_sdq_destroy(s);
		errno = rc == -ENOMEM ? ENOMEM : EINVAL;
		return NULL;
	}
	return s;
}

static void host_fini(struct host *h)
{
	struct rxf *f = h->rx_head;

	while (f) {
		struct rxf *nx = f->next;

		free(f);
		f = nx;
	}
	if (h->dev)
		rk_ib_dev_destroy(h->dev);
	free(h->mem);
}

void rk_sdq_destroy(struct rk_sdq *s)
{
	if (!s)
		return;
	host_fini(&s->recv);
	host_fini(&s->vrecv);
	for (unsigned int i = 0; i < s->nsnd; i++)
		host_fini(&s->snd[i]);
	rk_sw_net_destroy(s->net);
	free(s);
}

static uint64_t host_next(const struct host *h)
{
	uint64_t t;

	if (!h->dev)
		return UINT64_MAX;
	t = rk_ib_next_timer(h->dev);
	/* paused, or the link still busy with the last frame: frames to send
	 * wait for the pause's end or the link, not the timers */
	uint64_t hold = h->paused_until > h->link_free ? h->paused_until : h->link_free;

	if (hold > h->now && t <= h->now)
		t = hold;
	if (h->rx_head && h->rx_head->t < t)
		t = h->rx_head->t;
	if (h->paused_until > h->now && h->paused_until < t)
		t = h->paused_until;
	if (h->storm_next && h->storm_next < t)
		t = h->storm_next;
	if (h->start_ns > h->now && h->start_ns < t)
		t = h->start_ns;
	if (h == &h->s->recv && !h->storm_next && h->s->cfg.storm_ns &&
	    h->s->cfg.storm_ns < t)
		t = h->s->cfg.storm_ns;
	return t;
}

/* A PFC frame to a host: its data priority (0) stops for the quanta at
 * the link's rate, or goes on (quanta 0) (IEEE 802.1Qbb). */
static void host_pfc(struct rk_sdq *s, struct host *h, const struct rk_pkt *pkt, uint64_t t)
{
	if (!(pkt->pfc_class_enable & 1))
		return;
	/* a frame replaces the time left: count what the last one held */
	if (h->paused_until > h->paused_from)
		h->paused_ns += (h->paused_until < t ? h->paused_until : t) - h->paused_from;
	h->paused_from = t;
	h->pfc_rx++;
	h->paused_until = pkt->pause_quanta[0] == 0 ? t :
			  t + (uint64_t)pkt->pause_quanta[0] * 512 * 1000000000ull / s->cfg.link_bps;
}

/* The storming receiver's XOFFs, one every STORM_EVERY_NS from storm_ns. */
static void storm(struct rk_sdq *s, struct host *h, uint64_t t)
{
	uint16_t q[8] = { STORM_QUANTA };
	uint8_t f[60];

	if (!h->storm_next)
		h->storm_next = s->cfg.storm_ns;
	while (h->storm_next <= t) {
		h->now = t;
		if (rk_build_pfc(f, sizeof(f), h->mac, 1, q) > 0)
			emit(h, f, 60);
		h->storm_next += STORM_EVERY_NS;
	}
}

/* Everything host @p h has due at @p t: frames in, timers, frames out. */
static void host_step(struct rk_sdq *s, struct host *h, uint64_t t)
{
	bool is_recv = h == &s->recv || h == &s->vrecv;

	if (h == &s->recv && s->cfg.storm_ns && t >= s->cfg.storm_ns)
		storm(s, h, t);
	while (h->rx_head && h->rx_head->t <= t) {
		struct rxf *f = h->rx_head;
		struct rk_pkt pkt;

		h->rx_head = f->next;
		if (!h->rx_head)
			h->rx_tail = NULL;
		if (h->storm_next) {    /* a storming receiver takes nothing */
			free(f);
			continue;
		}
		if (is_recv && f->data[11] >= 1 && f->data[11] <= s->nsnd)
			s->rx_bytes[f->data[11] - 1] += f->len;
		if (rk_pkt_parse(&pkt, f->data, f->len, f->len, RK_LINK_ETHERNET, NULL) == 0) {
			if (pkt.kind == RK_PKT_PFC)
				host_pfc(s, h, &pkt, t);
			else
				rk_ib_rx(h->dev, &pkt, t);
		}
		free(f);
	}
	if (rk_ib_next_timer(h->dev) <= t)
		rk_ib_timers(h->dev, t);
	if (!is_recv && t >= h->start_ns)
		refill(s, h);
	h->now = t;
	/*
	 * Frames go on the wire one at a time, when the link is free: the
	 * engine's pacer (whole ns, rounded down) runs ahead of the link's
	 * serialisation (rounded up), and frames handed over early would
	 * be on the wire already when a pause came.
	 */
	if (h->paused_until > t || h->link_free > t)
		return;
	while (rk_ib_poll_tx(h->dev, t, emit, h, 64) == 64)
		;
}

int rk_sdq_run(struct rk_sdq *s, uint64_t until)
{
	uint64_t last = UINT64_MAX;
	unsigned int same = 0;

	while (!s->err) {
		uint64_t t = rk_sw_net_next_ns(s->net), h = host_next(&s->recv);

		if (h < t)
			t = h;
		if ((h = host_next(&s->vrecv)) < t)
			t = h;
		for (unsigned int i = 0; i < s->nsnd; i++)
			if ((h = host_next(&s->snd[i])) < t)
				t = h;
		if (t > until)
			break;
		/* an engine that keeps asking for the same instant is stuck */
		same = t == last ? same + 1 : 0;
		last = t;
		if (same > 100000)
			return -EIO;
		rk_sw_net_run(s->net, t);
		host_step(s, &s->recv, t);
		if (s->vrecv.dev)
			host_step(s, &s->vrecv, t);
		for (unsigned int i = 0; i < s->nsnd; i++)
			host_step(s, &s->snd[i], t);
	}
	if (s->err)
		return s->err;
	rk_sw_net_run(s->net, until);
	return 0;
}
