/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lwIP (Debian's threaded build) as the TCP under iWARP: raw TCP API under
 * the core lock, an Ethernet netif whose frames the caller moves.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lwip/etharp.h"
#include "lwip/ip4_addr.h"
#include "lwip/netif.h"
#include "lwip/pbuf.h"
#include "lwip/tcp.h"
#include "lwip/tcpip.h"
#include "lwip/priv/tcp_priv.h"     /* tcp_tmr */
#include "netif/ethernet.h"

#include "rk_tcp_lwip.h"

/*
 * lwIP's TCP timer from the poll loop: tcp_tmr() every RK_LWIP_TICK_MS on
 * top of the tcpip thread's TCP_TMR_INTERVAL (250 ms). Every TCP timer of
 * the library counts these ticks (they are compiled in as multiples of
 * 250 and 500 ms), so all run about 11 times faster: the retransmission
 * timeout, which settles at 3 slow ticks on a short path (1.5 s), becomes
 * about 140 ms; the delayed ACK waits at most 25 ms; TIME_WAIT lasts
 * 11 s. Not while a connect is in progress (rk_lwip_if_poll skips its
 * ticks then): with them lwIP would give up on a peer slow to answer after
 * 1.7 s of SYN retries instead of 18 s. A process that stops polling still
 * has lwIP's original timers.
 */
#define RK_LWIP_TICK_MS 25

#define QFRAMES 1024
#define QFRAME_MAX 1536
/*
 * Received bytes wait here for the reader. Larger than TCP_WND, so the
 * window can be reopened as bytes arrive (lw_reopen), not only as the
 * reader takes them.
 */
#define RING_CAP (128u * 1024u)

struct qframe {
	uint16_t len;
	uint8_t data[QFRAME_MAX];
};

struct rk_lwip_if {
	struct netif *netif;    /* allocated with slack: see rk_lwip_if_add */
	uint8_t mac[6];
	uint16_t mtu;
	rk_lwip_frame_fn tx;
	void *tx_ctx;
	struct qframe *q;       /* frames from the stack, under the core lock */
	uint32_t qhead, qcount;
	uint64_t qdrops;
};

struct lw_conn {
	struct rk_tcp base;
	struct tcp_pcb *pcb;
	uint8_t *ring;
	uint32_t head, count;
	uint32_t owed;          /* bytes taken in, window not yet reopened */
	bool connected, eof, failed;
	bool connecting;        /* counted in n_connecting */
	struct lw_conn *next;   /* accept queue */
	/* MPA-aware segmentation (rk_tcp_lwip_mpa_align): the record being written. */
	bool mpa, mpa_started;          /* on; past the MPA Request/Reply */
	bool in_hdr;                    /* its length is not known yet */
	uint8_t hdr[20];
	uint32_t hdr_have, rec_left;
	/* Loss recovery lwIP 2.1.3 lacks (lw_ack_seen, lw_probe): sender side. */
	uint32_t dupacks;               /* ACKs of pcb->lastack, whatever their window */
	uint32_t dupacks_at_rexmit;     /* dupacks when the hole was last re-sent */
	bool in_recovery;
	uint32_t recover;               /* snd_nxt when recovery began (RFC 6582) */
	uint32_t seen_lastack;          /* lastack at the last progress check */
	uint64_t progress_ns;           /* when lastack last moved (or data was first unacked) */
	uint64_t probe_ns;              /* wait before re-sending the oldest segment */
	uint64_t rexmits;               /* segments re-sent by this recovery */
};

struct rk_lwip_listener {
	struct tcp_pcb *pcb;
	struct lw_conn *first, *last;
};

static const struct rk_stream_ops lw_ops;
static struct lw_conn *conn_of_frame(const uint8_t *frame, uint32_t len, uint32_t *ackno,
				     uint8_t *flags, uint32_t *payload);
static void lw_ack_seen(struct lw_conn *c, uint32_t prev_lastack, uint32_t ack, uint8_t flags,
			uint32_t payload);
static void lw_probe(uint64_t now);
static volatile int init_done;
static bool started;
static uint64_t last_tick_ns;   /* of tcp_tmr from rk_lwip_if_poll */
static unsigned int n_connecting;       /* connects not yet answered */

/* The connect is answered (or abandoned): the poll loop's ticks resume. */
static void
connect_done(struct lw_conn *c)
{
	if (c->connecting) {
		c->connecting = false;
		n_connecting--;
	}
}

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void
init_cb(void *arg)
{
	(void)arg;
	init_done = 1;
}

int
rk_lwip_init(void)
{
	if (started)
		return 0;
	started = true;
	tcpip_init(init_cb, NULL);
	while (!init_done)
		usleep(100);
	return 0;
}

/* Runs under the core lock, in our thread or lwIP's timer thread. */
static err_t
link_out(struct netif *n, struct pbuf *p)
{
	struct rk_lwip_if *nif = n->state;
	struct qframe *f;

	if (nif->qcount == QFRAMES || p->tot_len > QFRAME_MAX) {
		nif->qdrops++;      /* TCP retransmits it */
		return ERR_OK;
	}
	f = &nif->q[(nif->qhead + nif->qcount) % QFRAMES];
	f->len = (uint16_t)pbuf_copy_partial(p, f->data, p->tot_len, 0);
	nif->qcount++;
	return ERR_OK;
}

static err_t
nif_init(struct netif *n)
{
	struct rk_lwip_if *nif = n->state;

	n->name[0] = 'r';
	n->name[1] = 'k';
	n->hwaddr_len = 6;
	memcpy(n->hwaddr, nif->mac, 6);
	n->mtu = nif->mtu;
	n->flags = NETIF_FLAG_BROADCAST | NETIF_FLAG_ETHARP | NETIF_FLAG_ETHERNET;
	n->output = etharp_output;
	n->linkoutput = link_out;
	return ERR_OK;
}

struct rk_lwip_if *
rk_lwip_if_add(const struct rk_lwip_if_attr *a)
{
	struct rk_lwip_if *nif;
	ip4_addr_t ip, mask, gw;

	if (a == NULL || a->tx == NULL || a->ip == NULL || a->netmask == NULL ||
	    !ip4addr_aton(a->ip, &ip) || !ip4addr_aton(a->netmask, &mask)) {
		errno = EINVAL;
		return NULL;
	}
	rk_lwip_init();
	nif = calloc(1, sizeof(*nif));
	if (nif == NULL)
		return NULL;
	nif->q = calloc(QFRAMES, sizeof(nif->q[0]));
	/* Slack after struct netif: the library may be built with options
	 * that make it larger than the installed lwipopts.h says. */
	nif->netif = calloc(1, sizeof(struct netif) + 1024);
	if (nif->q == NULL || nif->netif == NULL) {
		free(nif->q);
		free(nif->netif);
		free(nif);
		errno = ENOMEM;
		return NULL;
	}
	memcpy(nif->mac, a->mac, 6);
	nif->mtu = a->mtu ? a->mtu : 1500;
	nif->tx = a->tx;
	nif->tx_ctx = a->tx_ctx;
	ip4_addr_set_zero(&gw);
	LOCK_TCPIP_CORE();
	if (netif_add(nif->netif, &ip, &mask, &gw, nif, nif_init, ethernet_input) == NULL) {
		UNLOCK_TCPIP_CORE();
		free(nif->netif);
		free(nif->q);
		free(nif);
		errno = EINVAL;
		return NULL;
	}
	netif_set_default(nif->netif);
	netif_set_up(nif->netif);
	netif_set_link_up(nif->netif);
	UNLOCK_TCPIP_CORE();
	return nif;
}

void
rk_lwip_if_remove(struct rk_lwip_if *nif)
{
	if (nif == NULL)
		return;
	LOCK_TCPIP_CORE();
	netif_remove(nif->netif);
	UNLOCK_TCPIP_CORE();
	free(nif->netif);
	free(nif->q);
	free(nif);
}

void
rk_lwip_if_input(struct rk_lwip_if *nif, const uint8_t *frame, uint32_t len)
{
	struct pbuf *p;

	if (nif == NULL || frame == NULL || len == 0 || len > 0xffff)
		return;
	LOCK_TCPIP_CORE();
	/*
	 * PBUF_RAM, not PBUF_POOL: in Debian's liblwip0 2.1.3 the pool
	 * elements are 616 bytes (sized for the default MSS 536) while
	 * pbuf_alloc treats them as PBUF_POOL_BUFSIZE for MSS 1460, so a
	 * full-size frame in a PBUF_POOL chain overruns the heap (found with
	 * ASan in test_iw_lwip).
	 */
	p = pbuf_alloc(PBUF_RAW, (u16_t)len, PBUF_RAM);
	if (p != NULL) {
		uint32_t ack = 0, payload = 0, prev = 0;
		uint8_t flags = 0;
		struct lw_conn *c = conn_of_frame(frame, len, &ack, &flags, &payload);

		if (c != NULL && c->pcb != NULL)
			prev = c->pcb->lastack;
		pbuf_take(p, frame, (u16_t)len);
		if (nif->netif->input(p, nif->netif) != ERR_OK)
			pbuf_free(p);
		/* c is still ours: freed only by lw_close, under this lock. */
		if (c != NULL)
			lw_ack_seen(c, prev, ack, flags, payload);
	}
	UNLOCK_TCPIP_CORE();
}

unsigned int
rk_lwip_if_poll(struct rk_lwip_if *nif, unsigned int budget)
{
	unsigned int n = 0;
	uint64_t now;

	if (nif == NULL)
		return 0;
	now = mono_ns();
	LOCK_TCPIP_CORE();
	/*
	 * One tick at most per call, after the caller has handed us what it
	 * received: a loop that was not scheduled for a while has read the
	 * ACKs waiting for it before this tick can expire a timer on them.
	 */
	if (n_connecting == 0 && now - last_tick_ns >= RK_LWIP_TICK_MS * 1000000ull) {
		last_tick_ns = now;
		tcp_tmr();
	}
	lw_probe(now);
	while (n < budget && nif->qcount > 0) {
		struct qframe *f = &nif->q[nif->qhead];

		nif->tx(nif->tx_ctx, f->data, f->len);
		nif->qhead = (nif->qhead + 1) % QFRAMES;
		nif->qcount--;
		n++;
	}
	UNLOCK_TCPIP_CORE();
	return n;
}

/* ---------------------------------------------------------- recovery */

/*
 * Loss recovery on top of lwIP 2.1.3's Reno (lib/tcp/README.md): its
 * fast retransmit needs three duplicate ACKs carrying an unchanged window,
 * happens once per recovery, and ends at the first partial ACK; anything
 * else waits for the retransmission timer (140 ms and more with our ticks).
 * Here, under the core lock, with lwIP's own machinery (tcp_rexmit moves
 * the oldest unacknowledged segment back to the unsent queue, tcp_output
 * sends it):
 * - duplicate ACKs are counted whatever window they carry; the oldest
 *   segment is re-sent at 3, or at one less than the segments in flight
 *   when fewer than 4 are (RFC 5827 early retransmit); it is sent again
 *   when as many more duplicates arrived as segments were in flight (the
 *   retransmission was lost);
 * - a partial ACK (below the highest sequence sent when recovery began)
 *   re-sends the next hole at once (RFC 6582 3.2 step 5);
 * - when the oldest segment has not been acknowledged for LW_PROBE_MS
 *   (doubling up to LW_PROBE_MAX_MS while nothing moves), it is re-sent:
 *   a tail loss, or a window with too few segments for any duplicate.
 */
#define LW_PROBE_MS 10
#define LW_PROBE_MAX_MS 320

/* The connection a segment from the peer belongs to, NULL when none of ours. */
static struct lw_conn *
conn_of_frame(const uint8_t *frame, uint32_t len, uint32_t *ackno, uint8_t *flags,
	      uint32_t *payload)
{
	uint32_t ihl, doff, tot;
	uint16_t sport, dport;
	const uint8_t *th;

	if (len < 14 + 20 + 20 || frame[12] != 0x08 || frame[13] != 0x00 || frame[14 + 9] != 6)
		return NULL;
	ihl = 4u * (frame[14] & 0x0f);
	tot = (uint32_t)frame[16] << 8 | frame[17];
	if (ihl < 20 || len < 14 + ihl + 20 || tot < ihl + 20)
		return NULL;
	th = frame + 14 + ihl;
	doff = 4u * (th[12] >> 4);
	if (doff < 20 || tot < ihl + doff)
		return NULL;
	sport = (uint16_t)(th[0] << 8 | th[1]);
	dport = (uint16_t)(th[2] << 8 | th[3]);
	*ackno = (uint32_t)th[8] << 24 | (uint32_t)th[9] << 16 | (uint32_t)th[10] << 8 | th[11];
	*flags = th[13];
	*payload = tot - ihl - doff;
	for (struct tcp_pcb *pcb = tcp_active_pcbs; pcb != NULL; pcb = pcb->next)
		if (pcb->local_port == dport && pcb->remote_port == sport &&
		    pcb->callback_arg != NULL)
			return pcb->callback_arg;
	return NULL;
}

static uint32_t
segs_in_flight(const struct tcp_pcb *pcb)
{
	uint32_t n = 0;

	for (const struct tcp_seg *s = pcb->unacked; s != NULL; s = s->next)
		n++;
	return n;
}

/*
 * Send the oldest unacknowledged segment again (fast retransmit the first
 * time). lwIP's tcp_rexmit() counts each call in pcb->nrtx, its count of
 * retransmission timeouts, and its slow timer ends the connection at
 * TCP_MAXRTX (12): a burst of duplicate ACKs answered by these quick
 * re-sends reached it in milliseconds. They are not timeouts: nrtx keeps
 * the value it had.
 */
static void
lw_resend_oldest(struct lw_conn *c)
{
	struct tcp_pcb *pcb = c->pcb;
	u8_t nrtx = pcb->nrtx;

	if (!c->in_recovery) {
		c->in_recovery = true;
		c->recover = pcb->snd_nxt;
	}
	if (!(pcb->flags & TF_INFR)) {
		tcp_rexmit_fast(pcb);   /* ssthresh, cwnd, TF_INFR as lwIP sets them */
	} else if (tcp_rexmit(pcb) != ERR_OK) {
		pcb->nrtx = nrtx;
		return;
	}
	pcb->nrtx = nrtx;
	c->rexmits++;
	c->dupacks_at_rexmit = c->dupacks;
	tcp_output(pcb);
}

/*
 * After lwIP took a segment of @p c with ACK number @p ack; @p prev_lastack
 * is the connection's lastack before. Under the core lock.
 */
static void
lw_ack_seen(struct lw_conn *c, uint32_t prev_lastack, uint32_t ack, uint8_t flags,
	    uint32_t payload)
{
	struct tcp_pcb *pcb = c->pcb;
	uint32_t n, thresh;

	if (pcb == NULL || !(flags & TCP_ACK) || (flags & (TCP_SYN | TCP_FIN | TCP_RST)) ||
	    pcb->state != ESTABLISHED)
		return;
	if (pcb->unacked == NULL) {
		c->dupacks = 0;
		c->in_recovery = false;
		return;
	}
	if (TCP_SEQ_GT(pcb->lastack, prev_lastack)) {
		c->dupacks = 0;
		c->dupacks_at_rexmit = 0;
		if (c->in_recovery && TCP_SEQ_LT(pcb->lastack, c->recover))
			lw_resend_oldest(c);    /* partial ACK: the next hole */
		else
			c->in_recovery = false;
		return;
	}
	if (ack != pcb->lastack || payload != 0)
		return;
	c->dupacks++;
	n = segs_in_flight(pcb);
	thresh = n < 4 && pcb->unsent == NULL ? (n > 1 ? n - 1 : 1) : 3;
	if (!c->in_recovery ? c->dupacks >= thresh && c->dupacks_at_rexmit == 0 :
			      c->dupacks - c->dupacks_at_rexmit >= (n > thresh ? n : thresh))
		lw_resend_oldest(c);
}

/* The probe timer of every connection (see above). Under the core lock. */
static void
lw_probe(uint64_t now)
{
	for (struct tcp_pcb *pcb = tcp_active_pcbs; pcb != NULL; pcb = pcb->next) {
		struct lw_conn *c = pcb->callback_arg;

		if (c == NULL || c->pcb != pcb || pcb->state != ESTABLISHED)
			continue;
		if (pcb->unacked == NULL || pcb->lastack != c->seen_lastack) {
			c->seen_lastack = pcb->lastack;
			c->progress_ns = now;
			c->probe_ns = LW_PROBE_MS * 1000000ull;
			continue;
		}
		if (now - c->progress_ns < c->probe_ns)
			continue;
		c->progress_ns = now;
		if (c->probe_ns < LW_PROBE_MAX_MS * 1000000ull)
			c->probe_ns *= 2;
		lw_resend_oldest(c);
	}
}

/* ---------------------------------------------------------- connections */

/*
 * Reopen the receive window for bytes now in the ring, as far as the ring
 * still holds a full window more (what lwIP may deliver next). While the
 * reader keeps up, every ACK then carries the same window: a window update
 * between duplicate ACKs resets the sender's count (lwIP's tcp_receive
 * counts an ACK as a duplicate only with the window unchanged), and fast
 * retransmit would wait for three more. Runs under the core lock.
 */
static void
lw_reopen(struct lw_conn *c)
{
	uint32_t keep = 0, give;

	if (c->pcb == NULL)
		return;
	if (c->count + TCP_WND > RING_CAP)
		keep = c->count + TCP_WND - RING_CAP;
	if (c->owed <= keep)
		return;
	give = c->owed - keep;
	c->owed = keep;
	while (give > 0) {
		u16_t k = give > 0xffff ? 0xffff : (u16_t)give;

		tcp_recved(c->pcb, k);
		give -= k;
	}
}

static err_t
on_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
	struct lw_conn *c = arg;
	uint32_t tail;

	if (c == NULL) {
		if (p != NULL)
			pbuf_free(p);
		return ERR_OK;
	}
	if (p == NULL || err != ERR_OK) {
		c->eof = true;
		return ERR_OK;
	}
	if (p->tot_len > RING_CAP - c->count)
		return ERR_MEM;     /* lwIP keeps it and offers it again */
	tail = (c->head + c->count) % RING_CAP;
	if (tail + p->tot_len <= RING_CAP) {
		pbuf_copy_partial(p, c->ring + tail, p->tot_len, 0);
	} else {
		uint32_t first = RING_CAP - tail;

		pbuf_copy_partial(p, c->ring + tail, (u16_t)first, 0);
		pbuf_copy_partial(p, c->ring, (u16_t)(p->tot_len - first), (u16_t)first);
	}
	c->count += p->tot_len;
	c->owed += p->tot_len;
	pbuf_free(p);
	lw_reopen(c);
	/*
	 * ACK now, not every other segment: lwIP delays the ACK of a lone
	 * segment until its next fast tick, also of a retransmission that
	 * fills a hole (RFC 5681 4.2 asks for an immediate ACK) and of each
	 * single segment in the slow start after a timeout. tcp_input sends it
	 * when this returns.
	 */
	tcp_set_flags(pcb, TF_ACK_NOW);
	return ERR_OK;
}

static void
on_err(void *arg, err_t err)
{
	struct lw_conn *c = arg;

	(void)err;
	if (c != NULL) {
		c->pcb = NULL;      /* lwIP freed it */
		c->failed = true;
		connect_done(c);
	}
}

static err_t
on_connected(void *arg, struct tcp_pcb *pcb, err_t err)
{
	struct lw_conn *c = arg;

	(void)pcb;
	if (c != NULL && err == ERR_OK) {
		c->connected = true;
		connect_done(c);
	}
	return ERR_OK;
}

static struct lw_conn *
conn_new(struct tcp_pcb *pcb)
{
	struct lw_conn *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->ring = malloc(RING_CAP);
	if (c->ring == NULL) {
		free(c);
		return NULL;
	}
	c->base.ops = &lw_ops;
	c->pcb = pcb;
	tcp_arg(pcb, c);
	tcp_recv(pcb, on_recv);
	tcp_err(pcb, on_err);
	/* FPDUs are messages: no Nagle delay. */
	tcp_nagle_disable(pcb);
	return c;
}

static err_t
on_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
	struct rk_lwip_listener *l = arg;
	struct lw_conn *c;

	if (err != ERR_OK || pcb == NULL || l == NULL)
		return ERR_VAL;
	c = conn_new(pcb);
	if (c == NULL) {
		tcp_abort(pcb);
		return ERR_ABRT;
	}
	c->connected = true;
	if (l->last != NULL)
		l->last->next = c;
	else
		l->first = c;
	l->last = c;
	return ERR_OK;
}

struct rk_lwip_listener *
rk_tcp_lwip_listen(uint16_t port)
{
	struct rk_lwip_listener *l = calloc(1, sizeof(*l));
	struct tcp_pcb *pcb, *lp = NULL;

	if (l == NULL)
		return NULL;
	rk_lwip_init();
	LOCK_TCPIP_CORE();
	pcb = tcp_new();
	if (pcb != NULL && tcp_bind(pcb, IP_ADDR_ANY, port) == ERR_OK)
		lp = tcp_listen(pcb);
	if (lp == NULL) {
		if (pcb != NULL)
			tcp_abort(pcb);
		UNLOCK_TCPIP_CORE();
		free(l);
		errno = EADDRINUSE;
		return NULL;
	}
	l->pcb = lp;
	tcp_arg(lp, l);
	tcp_accept(lp, on_accept);
	UNLOCK_TCPIP_CORE();
	return l;
}

void
rk_tcp_lwip_listener_close(struct rk_lwip_listener *l)
{
	struct rk_tcp *t;

	if (l == NULL)
		return;
	while ((t = rk_tcp_lwip_accept(l)) != NULL)
		t->ops->close(t);
	LOCK_TCPIP_CORE();
	tcp_arg(l->pcb, NULL);
	tcp_accept(l->pcb, NULL);
	tcp_close(l->pcb);
	UNLOCK_TCPIP_CORE();
	free(l);
}

struct rk_tcp *
rk_tcp_lwip_accept(struct rk_lwip_listener *l)
{
	struct lw_conn *c;

	LOCK_TCPIP_CORE();
	c = l->first;
	if (c != NULL) {
		l->first = c->next;
		if (l->first == NULL)
			l->last = NULL;
		c->next = NULL;
	}
	UNLOCK_TCPIP_CORE();
	if (c == NULL) {
		errno = EAGAIN;
		return NULL;
	}
	return &c->base;
}

struct rk_tcp *
rk_tcp_lwip_connect(const char *ip, uint16_t port)
{
	return rk_tcp_lwip_connect_from(ip, port, 0);
}

struct rk_tcp *
rk_tcp_lwip_connect_from(const char *ip, uint16_t port, uint16_t local_port)
{
	struct tcp_pcb *pcb;
	struct lw_conn *c = NULL;
	ip_addr_t dst;

	if (ip == NULL || !ipaddr_aton(ip, &dst)) {
		errno = EINVAL;
		return NULL;
	}
	rk_lwip_init();
	LOCK_TCPIP_CORE();
	pcb = tcp_new();
	if (pcb != NULL)
		c = conn_new(pcb);
	if (c == NULL || (local_port != 0 && tcp_bind(pcb, IP_ADDR_ANY, local_port) != ERR_OK) ||
	    tcp_connect(pcb, &dst, port, on_connected) != ERR_OK) {
		if (pcb != NULL)
			tcp_abort(pcb);
		UNLOCK_TCPIP_CORE();
		if (c != NULL) {
			free(c->ring);
			free(c);
		}
		errno = ECONNREFUSED;
		return NULL;
	}
	c->connecting = true;
	n_connecting++;
	UNLOCK_TCPIP_CORE();
	return &c->base;
}

/*
 * One record at a time (the MPA Request or Reply, then FPDUs without
 * markers), each starting a segment of its own: records of at most the MSS
 * then fill one segment each (RFC 5044 5: FPDUs aligned
 * with TCP segments), which receivers and analysers that look for an FPDU
 * at each segment start rely on. Runs under the core lock.
 */
static long
lw_send_mpa(struct lw_conn *c, const uint8_t *buf, size_t len)
{
	size_t taken = 0;

	while (taken < len) {
		uint32_t k;

		if (!c->in_hdr && c->rec_left == 0) {
			/* A new record: nothing may wait to share its segment. */
			if (c->pcb->unsent != NULL)
				tcp_output(c->pcb);
			if (c->pcb->unsent != NULL)
				break;
			c->in_hdr = true;
			c->hdr_have = 0;
			/* Header in @p buf: the whole record in one write, or wait. */
			if ((c->mpa_started ? 2u : 20u) <= len - taken) {
				const uint8_t *h = buf + taken;
				uint32_t total = c->mpa_started ?
					((2 + ((uint32_t)h[0] << 8 | h[1]) + 3) & ~3u) + 4 :
					20 + ((uint32_t)h[18] << 8 | h[19]);

				k = total;
				if (k > len - taken)
					k = (uint32_t)(len - taken);
				if (k > 0xffff || k > tcp_sndbuf(c->pcb) ||
				    tcp_write(c->pcb, h, (u16_t)k, TCP_WRITE_FLAG_COPY) != ERR_OK) {
					c->in_hdr = false;
					break;
				}
				c->in_hdr = false;
				c->mpa_started = true;
				c->rec_left = total - k;
				taken += k;
				continue;
			}
		}
		if (c->in_hdr) {
			uint32_t need = c->mpa_started ? 2 : 20;

			k = need - c->hdr_have;
			if (k > len - taken)
				k = (uint32_t)(len - taken);
			if (k > tcp_sndbuf(c->pcb) ||
			    tcp_write(c->pcb, buf + taken, (u16_t)k, TCP_WRITE_FLAG_COPY) != ERR_OK)
				break;
			memcpy(c->hdr + c->hdr_have, buf + taken, k);
			c->hdr_have += k;
			taken += k;
			if (c->hdr_have < need)
				continue;
			c->in_hdr = false;
			if (!c->mpa_started) {
				/* Request/Reply: 20 bytes, then PD_Length bytes (RFC 5044 7.1). */
				c->rec_left = ((uint32_t)c->hdr[18] << 8 | c->hdr[19]);
				c->mpa_started = true;
			} else {
				/* FPDU: ULPDU_Length, ULPDU, pad to 4, CRC (RFC 5044 4.1). */
				uint32_t ulpdu = (uint32_t)c->hdr[0] << 8 | c->hdr[1];

				c->rec_left = ((2 + ulpdu + 3) & ~3u) + 4 - 2;
			}
			continue;
		}
		k = c->rec_left;
		if (k > len - taken)
			k = (uint32_t)(len - taken);
		/*
		 * All of it or nothing: part of a record left in the send buffer
		 * would go out alone when an ACK makes lwIP send (tcp_input).
		 */
		if (k > 0xffff || k > tcp_sndbuf(c->pcb) ||
		    tcp_write(c->pcb, buf + taken, (u16_t)k, TCP_WRITE_FLAG_COPY) != ERR_OK)
			break;
		taken += k;
		c->rec_left -= k;
	}
	/* A record cut by the end of @p buf waits for its rest, in its segment. */
	if (!c->in_hdr && c->rec_left == 0)
		tcp_output(c->pcb);
	return (long)taken;
}

void
rk_tcp_lwip_mpa_align(struct rk_tcp *t)
{
	struct lw_conn *c = (struct lw_conn *)t;

	if (t == NULL || t->ops != &lw_ops)
		return;
	LOCK_TCPIP_CORE();
	c->mpa = true;
	UNLOCK_TCPIP_CORE();
}

int
rk_tcp_lwip_info(struct rk_tcp *t, struct rk_tcp_lwip_info *info)
{
	struct lw_conn *c = (struct lw_conn *)t;
	int rc = 0;

	if (t == NULL || info == NULL || t->ops != &lw_ops)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	LOCK_TCPIP_CORE();
	if (c->pcb == NULL || c->failed) {
		rc = -ENOTCONN;
	} else {
		info->local_port = c->pcb->local_port;
		info->remote_port = c->pcb->remote_port;
		info->snd_nxt = c->pcb->snd_nxt;
		info->rcv_nxt = c->pcb->rcv_nxt;
		info->established = c->connected;
	}
	UNLOCK_TCPIP_CORE();
	return rc;
}

static long
lw_send(void *t, const uint8_t *buf, size_t len)
{
	struct lw_conn *c = (struct lw_conn *)t;
	long n = 0;

	LOCK_TCPIP_CORE();
	if (c->pcb == NULL || c->failed) {
		UNLOCK_TCPIP_CORE();
		return -ECONNRESET;
	}
	if (c->connected && len > 0 && c->mpa) {
		n = lw_send_mpa(c, buf, len);
	} else if (c->connected && len > 0) {
		size_t room = tcp_sndbuf(c->pcb);

		if (room > len)
			room = len;
		if (room > 0xffff)
			room = 0xffff;
		if (room > 0 && tcp_write(c->pcb, buf, (u16_t)room, TCP_WRITE_FLAG_COPY) == ERR_OK)
			n = (long)room;
		tcp_output(c->pcb);
	}
	UNLOCK_TCPIP_CORE();
	return n;
}

static long
lw_recv(void *t, uint8_t *buf, size_t cap)
{
	struct lw_conn *c = (struct lw_conn *)t;
	uint32_t n, first;
	long rc;

	LOCK_TCPIP_CORE();
	n = c->count < cap ? c->count : (uint32_t)cap;
	first = RING_CAP - c->head < n ? RING_CAP - c->head : n;
	memcpy(buf, c->ring + c->head, first);
	memcpy(buf + first, c->ring, n - first);
	c->head = (c->head + n) % RING_CAP;
	c->count -= n;
	/* Room in the ring: the window held back for it can reopen. */
	lw_reopen(c);
	if (n > 0)
		rc = (long)n;
	else if (c->failed)
		rc = -ECONNRESET;
	else if (c->eof)
		rc = -EPIPE;
	else
		rc = 0;
	UNLOCK_TCPIP_CORE();
	return rc;
}

static void
lw_close(void *t)
{
	struct lw_conn *c = (struct lw_conn *)t;

	LOCK_TCPIP_CORE();
	connect_done(c);
	if (c->pcb != NULL) {
		tcp_arg(c->pcb, NULL);
		tcp_recv(c->pcb, NULL);
		tcp_err(c->pcb, NULL);
		if (tcp_close(c->pcb) != ERR_OK)
			tcp_abort(c->pcb);
	}
	UNLOCK_TCPIP_CORE();
	free(c->ring);
	free(c);
}

static uint64_t
lw_now_ns(void *env)
{
	(void)env;
	return mono_ns();
}

static const struct rk_stream_ops lw_ops = {
	.name = "lwip",
	.send = lw_send,
	.recv = lw_recv,
	.close = lw_close,
	.now_ns = lw_now_ns,
};
