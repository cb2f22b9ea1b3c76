/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DPDK I/O backend, the datapath: the TX queue (copied, lent and
 * by-reference frames), fault injection on TX, RX classification and
 * delivery, the frame hook, and the rk_io_ops instance.
 */
#include <errno.h>
#include <string.h>

#include <rte_pause.h>

#include "rk_byteorder.h"
#include "rk_eth.h"
#include "rk_io_internal.h"
#include "rk_ipv4.h"
#include "rk_ipv6.h"
#include "rk_pkt.h"
#include "rk_udp.h"

/* K_IP4: IPv4 to our address, not RoCEv2 (TCP, ICMP ...). */
enum kind { K_ROCE, K_ARP, K_ND, K_OTHER, K_IP4, K_MAC_CONTROL };

/* -------------------------------------------------------------------- TX */

/*
 * The bytes of a @p len byte frame that RK_IO_SNAP_HEADERS records, from
 * its first @p avail bytes at @p p: up to its payload; whole when nothing
 * but the ICRC and Ethernet padding follow its headers (as cheap, and the
 * ICRC stays checkable) or when it is not RoCEv2.
 */
static uint32_t
snap_headers(const uint8_t *p, uint32_t avail, uint32_t len)
{
	uint32_t h = rk_rocev2_hdrs_len(p, avail);

	return h == 0 || len - h <= 8 ? len : h;
}

/*
 * The time to record a frame of a burst taken at @p wall_ns. Frames are
 * recorded as the engine takes them, so a received frame may follow a
 * transmitted burst stamped after its own burst: it takes that later time
 * (off by at most the burst's processing), and the file's times never go
 * back, as readers expect of one capture.
 */
uint64_t
rk_io_record_ns(struct rk_io_dpdk *io, uint64_t wall_ns)
{
	if (wall_ns < io->rec_last_ns)
		return io->rec_last_ns;
	io->rec_last_ns = wall_ns;
	return wall_ns;
}

/*
 * Recorded at @p wall_ns: one clock reading per burst, not per frame (in
 * a VM the TSC read showed as the largest cost of a record).
 */
static void
record_mbuf(struct rk_io_dpdk *io, struct rte_mbuf *m, enum rk_pcapng_dir dir, uint64_t wall_ns)
{
	uint32_t len = rte_pktmbuf_pkt_len(m);
	uint32_t cap = len < SCRATCH ? len : SCRATCH;
	const uint8_t *p;

	wall_ns = rk_io_record_ns(io, wall_ns);
	if (io->cfg.snaplen == RK_IO_SNAP_HEADERS) {
		/* Every header stack fits in the first 256 bytes. */
		uint32_t head = cap < 256 ? cap : 256;
		uint32_t h;

		p = rte_pktmbuf_read(m, 0, head, io->scratch);
		if (p == NULL)
			return;
		h = snap_headers(p, head, len);
		if (h <= head) {
			rk_pcapng_write_cut(&io->pcap, wall_ns, dir, p, h, len);
			return;
		}
	} else if (io->pcap.snaplen != 0 && cap > io->pcap.snaplen) {
		cap = io->pcap.snaplen;         /* only what the snap length keeps is read */
	}
	p = rte_pktmbuf_read(m, 0, cap, io->scratch);
	if (p != NULL)
		rk_pcapng_write(&io->pcap, wall_ns, dir, p, len);
}

/*
 * The device took @p n of the @p offered frames at @p q: count them and,
 * when recording, write them out. Recording holds an extra reference on
 * every offered mbuf, so the data is still readable here whatever the
 * driver did with the mbufs it took; the pcapng therefore holds exactly
 * the frames handed to the device, at the time they were handed over.
 */
static void
tx_handed(struct rk_io_dpdk *io, struct rte_mbuf **q, uint16_t offered, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++) {
		io->st.tx_frames++;
		io->st.tx_bytes += rte_pktmbuf_pkt_len(q[i]);
	}
	if (!io->recording)
		return;
	uint64_t wall_ns = rk_io_wall_ns(io);

	for (uint16_t i = 0; i < n; i++)
		record_mbuf(io, q[i], RK_PCAPNG_OUT, wall_ns);
	for (uint16_t i = 0; i < offered; i++)
		rte_pktmbuf_free(q[i]);         /* our reference only */
}

/*
 * One pass of tx_burst over the queue (in up to two runs, as the ring
 * wraps). Frames the device does not take stay queued, in order.
 * @return frames taken.
 */
uint32_t
rk_io_tx_once(struct rk_io_dpdk *io)
{
	uint32_t total = 0;

	if (io->txq_n > 0 && rk_io_tx_paused(io))
		return 0;
	while (io->txq_n > 0) {
		uint32_t head = io->txq_head & (io->txq_size - 1);
		uint32_t run = io->txq_size - head;
		struct rte_mbuf **q = io->txq + head;
		uint16_t want, n;

		if (run > io->txq_n)
			run = io->txq_n;
		want = run > UINT16_MAX ? UINT16_MAX : (uint16_t)run;
		/* Every segment: the driver frees a chain segment by segment. */
		if (io->recording)
			for (uint16_t i = 0; i < want; i++)
				for (struct rte_mbuf *g = q[i]; g != NULL; g = g->next)
					rte_mbuf_refcnt_update(g, 1);
		n = rte_eth_tx_burst(io->port, 0, q, want);
		io->st.tx_refused += want - n;
		tx_handed(io, q, want, n);
		io->txq_head += n;
		io->txq_n -= n;
		total += n;
		if (n < want) {
			io->st.tx_ring_full++;
			break;
		}
	}
	return total;
}

/*
 * Hand queued frames to the device; while more than @p keep stay queued,
 * retry for up to @p spin_ns (the peer or the NIC drains the ring).
 */
static void
flush_tx(struct rk_io_dpdk *io, uint32_t keep, uint64_t spin_ns)
{
	uint64_t until = 0;

	rk_io_tx_once(io);
	while (io->txq_n > keep && spin_ns > 0) {
		uint64_t now = rk_io_dpdk_now_ns();

		if (until == 0)
			until = now + spin_ns;
		else if (now >= until)
			break;
		rte_pause();
		rk_io_tx_once(io);
	}
}

/* Room for one more frame in the TX queue, or -ENOBUFS (counted). */
int
rk_io_txq_reserve(struct rk_io_dpdk *io)
{
	/* Full: wait briefly for the ring before this becomes a real drop. */
	if (io->txq_n == io->txq_size)
		flush_tx(io, io->txq_size - 1, TX_SPIN_NS);
	if (io->txq_n == io->txq_size) {
		io->st.tx_dropped_full++;
		return -ENOBUFS;
	}
	return 0;
}

/* Queue one frame (VLAN tag inserted when configured). */
int
rk_io_queue_frame(struct rk_io_dpdk *io, const uint8_t *frame, uint32_t len)
{
	uint32_t tag = io->cfg.vlan_id != 0 ? RK_VLAN_HLEN : 0;
	struct rte_mbuf *m;
	uint8_t *p;

	if (len < RK_ETH_HLEN)
		return -EINVAL;
	if (rk_io_txq_reserve(io) != 0)
		return -ENOBUFS;
	m = rte_pktmbuf_alloc(io->pool);
	if (m == NULL) {
		io->st.tx_dropped_full++;
		return -ENOBUFS;
	}
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(len + tag));
	if (p == NULL) {
		rte_pktmbuf_free(m);
		io->st.tx_dropped_full++;
		return -EMSGSIZE;
	}
	if (tag != 0) {
		/* 802.1Q: TPID 0x8100, PCP, VID, then the original EtherType. */
		memcpy(p, frame, 2 * RK_ETH_ALEN);
		rk_eth_set_ethertype(p, RK_ETHERTYPE_VLAN);
		rk_vlan_set_tci(p + RK_ETH_HLEN, rk_vlan_make_tci(io->cfg.vlan_pcp, 0, io->cfg.vlan_id));
		memcpy(p + RK_ETH_HLEN + 2, frame + 2 * RK_ETH_ALEN, len - 2 * RK_ETH_ALEN);
	} else {
		memcpy(p, frame, len);
	}
	io->txq[(io->txq_head + io->txq_n++) & (io->txq_size - 1)] = m;
	return 0;
}

/*
 * Fault injection on TX (cfg.tx_drop_every, cfg.tx_drop_rate): the one
 * place lib/io decides to lose a frame, asked once per frame sent. The
 * decision is the impairment stage's (rk_impair.h), made in
 * rk_io_dpdk_open().
 */
static bool
tx_drop_injected(struct rk_io_dpdk *io, const uint8_t *frame, uint32_t len)
{
	struct rk_impair_verdict v;

	if (io->tx_drop == NULL)
		return false;
	rk_impair_decide(io->tx_drop, frame, len, &v);
	if (v.copies != 0)
		return false;
	io->st.tx_dropped_injected++;
	return true;
}

static int
ops_tx(void *arg, const uint8_t *frame, uint32_t len)
{
	struct rk_io_dpdk *io = arg;

	/* The frame is lost on the wire, not refused. */
	if (tx_drop_injected(io, frame, len))
		return 0;
	return rk_io_queue_frame(io, frame, len);
}

/*
 * Lend the engine an mbuf to build its next frame in (no copy). The data
 * starts RK_VLAN_HLEN bytes in when tagging, so the tag goes in at commit by
 * moving only the two MAC addresses.
 */
static uint8_t *
ops_tx_frame(void *arg)
{
	struct rk_io_dpdk *io = arg;
	uint32_t tag = io->cfg.vlan_id != 0 ? RK_VLAN_HLEN : 0;

	if (io->tx_lent == NULL) {
		io->tx_lent = rte_pktmbuf_alloc(io->pool);
		if (io->tx_lent == NULL)
			return NULL;            /* the engine builds it itself, tx() copies */
	}
	if (rte_pktmbuf_tailroom(io->tx_lent) < RK_IB_MAX_FRAME + tag)
		return NULL;
	return rte_pktmbuf_mtod(io->tx_lent, uint8_t *) + tag;
}

/*
 * Queue the lent mbuf, its first segment holding @p seg_len bytes of the
 * frame built at @p frame (@p pkt_len in all, with any chained segments).
 */
static void
queue_lent(struct rk_io_dpdk *io, uint8_t *frame, uint32_t seg_len, uint32_t pkt_len)
{
	uint32_t tag = io->cfg.vlan_id != 0 ? RK_VLAN_HLEN : 0;
	struct rte_mbuf *m = io->tx_lent;
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);

	if (tag != 0) {
		/* 802.1Q: the MACs move up 4 bytes; TPID 0x8100, PCP, VID. */
		memmove(p, frame, 2 * RK_ETH_ALEN);
		rk_eth_set_ethertype(p, RK_ETHERTYPE_VLAN);
		rk_vlan_set_tci(p + RK_ETH_HLEN, rk_vlan_make_tci(io->cfg.vlan_pcp, 0, io->cfg.vlan_id));
	}
	m->data_len = (uint16_t)(seg_len + tag);
	m->pkt_len = pkt_len + tag;
	io->tx_lent = NULL;
	io->txq[(io->txq_head + io->txq_n++) & (io->txq_size - 1)] = m;
	/* A burst's worth: the peer starts on it while the engine builds the rest. */
	if (io->txq_n >= TX_BATCH)
		rk_io_tx_once(io);
}

static int
ops_tx_commit(void *arg, uint8_t *frame, uint32_t len)
{
	struct rk_io_dpdk *io = arg;
	uint32_t tag = io->cfg.vlan_id != 0 ? RK_VLAN_HLEN : 0;
	struct rte_mbuf *m = io->tx_lent;

	if (m == NULL || frame != rte_pktmbuf_mtod(m, uint8_t *) + tag || len < RK_ETH_HLEN ||
	    len > RK_IB_MAX_FRAME)
		return -EINVAL;
	/* Lost on the wire: the mbuf stays lent for the next frame. */
	if (tx_drop_injected(io, frame, len))
		return 0;
	if (rk_io_txq_reserve(io) != 0)
		return -ENOBUFS;
	queue_lent(io, frame, len, len);
	return 0;
}

/* The external buffer belongs to the engine's caller: nothing to free. */
void
rk_io_ext_free(void *addr, void *opaque)
{
	(void)addr;
	(void)opaque;
}

/*
 * Headers in the lent mbuf, the payload in an external-buffer mbuf over
 * the registered memory, pad and ICRC in a third: the driver copies the
 * three into its ring in tx_burst. Where the port would keep the mbufs
 * (not tx_sg), or an mbuf is short, the pieces are copied together.
 */
static int
ops_tx_commit_sg(void *arg, uint8_t *frame, uint32_t hdr_len, const uint8_t *payload,
		 uint32_t plen, const uint8_t *trailer, uint32_t tlen)
{
	struct rk_io_dpdk *io = arg;
	uint32_t tag = io->cfg.vlan_id != 0 ? RK_VLAN_HLEN : 0;
	struct rte_mbuf *m = io->tx_lent, *x[2];

	if (m == NULL || frame != rte_pktmbuf_mtod(m, uint8_t *) + tag || hdr_len < RK_ETH_HLEN ||
	    (uint64_t)hdr_len + plen + tlen > RK_IB_MAX_FRAME || tlen > 64)
		return -EINVAL;
	if (!io->tx_sg || rte_pktmbuf_alloc_bulk(io->ext_pool, x, 2) != 0) {
		/* One frame, copied together: exactly what tx_commit queues. */
		memcpy(frame + hdr_len, payload, plen);
		memcpy(frame + hdr_len + plen, trailer, tlen);
		return ops_tx_commit(arg, frame, hdr_len + plen + tlen);
	}
	/* Lost on the wire: the mbuf stays lent for the next frame. */
	if (tx_drop_injected(io, frame, hdr_len)) {
		rte_pktmbuf_free_bulk(x, 2);
		return 0;
	}
	if (rk_io_txq_reserve(io) != 0) {
		rte_pktmbuf_free_bulk(x, 2);
		return -ENOBUFS;
	}
	rte_mbuf_ext_refcnt_update(&io->ext_shinfo, 1);
	rte_pktmbuf_attach_extbuf(x[0], (void *)(uintptr_t)payload, RTE_BAD_IOVA, (uint16_t)plen,
				  &io->ext_shinfo);
	x[0]->data_len = (uint16_t)plen;
	memcpy(rte_pktmbuf_mtod(x[1], uint8_t *), trailer, tlen);
	x[1]->data_len = (uint16_t)tlen;
	m->next = x[0];
	x[0]->next = x[1];
	m->nb_segs = 3;
	io->st.tx_by_ref++;
	queue_lent(io, frame, hdr_len, hdr_len + plen + tlen);
	return 0;
}

/*
 * Frames still queued that point at the caller's memory get a copy of it:
 * the memory is the caller's again once the engine call returns.
 */
static void
own_queued(struct rk_io_dpdk *io)
{
	uint32_t kept = 0, n = io->txq_n;

	for (uint32_t k = 0; k < n; k++) {
		struct rte_mbuf *m = io->txq[(io->txq_head + k) & (io->txq_size - 1)], *c;
		uint32_t len = rte_pktmbuf_pkt_len(m);
		const uint8_t *r;

		if (m->nb_segs > 1 && RTE_MBUF_HAS_EXTBUF(m->next)) {
			c = rte_pktmbuf_alloc(io->pool);
			if (c != NULL && rte_pktmbuf_append(c, (uint16_t)len) != NULL &&
			    (r = rte_pktmbuf_read(m, 0, len, rte_pktmbuf_mtod(c, uint8_t *))) != NULL) {
				if (r != rte_pktmbuf_mtod(c, uint8_t *))
					memcpy(rte_pktmbuf_mtod(c, uint8_t *), r, len);
				io->st.tx_by_ref_copied++;
			} else {
				/* No mbuf to copy into: lost, as from a full queue. */
				rte_pktmbuf_free(c);
				c = NULL;
				io->st.tx_dropped_full++;
			}
			rte_pktmbuf_free(m);
			m = c;
		}
		if (m != NULL)
			io->txq[(io->txq_head + kept++) & (io->txq_size - 1)] = m;
	}
	io->txq_n = kept;
}

static void
ops_flush(void *arg)
{
	struct rk_io_dpdk *io = arg;

	/* Over half full: spin a little so the next batch finds room. */
	flush_tx(io, io->txq_size / 2, TX_SPIN_NS);
	if (io->tx_sg && io->txq_n > 0)
		own_queued(io);
}

static unsigned int
ops_tx_room(void *arg)
{
	struct rk_io_dpdk *io = arg;
	uint32_t used;

	if (io->txq_n > 0)
		rk_io_tx_once(io);
	used = io->txq_n + TXQ_RESERVE;
	return used >= io->txq_size ? 0 : io->txq_size - used;
}

/* -------------------------------------------------------------------- RX */

/*
 * Classify a received frame from its first bytes (copied to hdr when the
 * first segment is short). ARP is handled here.
 */
static enum kind
classify(struct rk_io_dpdk *io, struct rte_mbuf *m)
{
	uint8_t hdr[64];
	const uint8_t *h, *ip;
	uint32_t len = rte_pktmbuf_pkt_len(m), l3;
	uint16_t type;

	h = rte_pktmbuf_read(m, 0, len < sizeof(hdr) ? len : sizeof(hdr), hdr);
	if (h == NULL || len < RK_ETH_HLEN + ARP_LEN)
		return K_OTHER;
	type = rk_eth_ethertype(h);
	l3 = RK_ETH_HLEN;
	/* PAUSE and PFC: to a reserved group address, never tagged. */
	if (type == RK_ETHERTYPE_MAC_CONTROL)
		return K_MAC_CONTROL;
	if (type == RK_ETHERTYPE_VLAN) {
		type = rk_vlan_ethertype(h + RK_ETH_HLEN);
		l3 += RK_VLAN_HLEN;
	}
	if (!rk_eth_dst_is_group(h) && memcmp(h, io->mac, RK_ETH_ALEN) != 0 && !io->any_dst)
		return K_OTHER;         /* unicast to someone else (promiscuous port) */
	/*
	 * Only our VLAN, as a NIC's VLAN filter: untagged (or priority-tagged,
	 * VID 0) without --vlan, that VID with it.
	 */
	if ((l3 != RK_ETH_HLEN ? rk_vlan_vid(h + RK_ETH_HLEN) : 0) != io->cfg.vlan_id) {
		io->st.rx_vlan_mismatch++;
		return K_OTHER;
	}
	ip = h + l3;
	/* ARP and ND are recorded here, before the answer they may cause. */
	if (type == RK_ETHERTYPE_ARP && len >= l3 + ARP_LEN) {
		if (io->recording)
			record_mbuf(io, m, RK_PCAPNG_IN, io->rx_wall_ns);
		rk_io_handle_arp(io, ip);
		return K_ARP;
	}
	if (type == RK_ETHERTYPE_IPV6 && len >= l3 + RK_IPV6_HLEN + RK_UDP_HLEN &&
	    rk_ipv6_version(ip) == 6) {
		if (rk_ipv6_next_header(ip) == RK_IPPROTO_ICMPV6) {
			if (io->recording)
				record_mbuf(io, m, RK_PCAPNG_IN, io->rx_wall_ns);
			rk_io_handle_nd(io, m, l3);
			return K_ND;
		}
		/* UDP right after the header (no extension headers), port 4791, ours. */
		if (rk_ipv6_next_header(ip) != RK_IPPROTO_UDP ||
		    (memcmp(rk_ipv6_dst(ip), io->cfg.ip6, 16) != 0 && !io->any_dst))
			return K_OTHER;
		if (rk_udp_dst_port(ip + RK_IPV6_HLEN) == RK_ROCEV2_UDP_PORT)
			return K_ROCE;
		return K_OTHER;
	}
	/* IPv4, UDP, destination port 4791, destination address ours. */
	if (type == RK_ETHERTYPE_IPV4 && len >= l3 + RK_IPV4_HLEN + RK_UDP_HLEN &&
	    rk_ipv4_version(ip) == 4) {
		uint32_t ihl = rk_ipv4_hlen(ip);
		bool mine = RK_IO_IP4_MINE(io, rk_ipv4_dst(ip));
		uint8_t udp[RK_UDP_HLEN];
		const uint8_t *u;

		if (rk_ipv4_protocol(ip) != RK_IPPROTO_UDP || ihl < RK_IPV4_HLEN ||
		    len < l3 + ihl + RK_UDP_HLEN)
			return mine ? K_IP4 : K_OTHER;
		if (!mine && !io->any_dst)
			return K_OTHER;
		/* Options may push the UDP header past the bytes read above. */
		u = rte_pktmbuf_read(m, l3 + ihl, RK_UDP_HLEN, udp);
		if (u != NULL && rk_udp_dst_port(u) == RK_ROCEV2_UDP_PORT)
			return K_ROCE;
		return mine ? K_IP4 : K_OTHER;
	}
	return K_OTHER;
}

static bool
refill(struct rk_io_dpdk *io)
{
	if (io->rx_i < io->rx_n)
		return true;
	/*
	 * A short burst emptied the ring: say "nothing" once, ending the
	 * caller's receive loop, rather than poll the ring again at once (a
	 * ping-pong's reply would wait behind that empty poll).
	 */
	if (io->rx_short) {
		io->rx_short = false;
		return false;
	}
	io->rx_i = 0;
	io->rx_n = rte_eth_rx_burst(io->port, 0, io->rx, RX_BURST);
	if (io->rx_n == 0)
		return false;
	io->rx_short = io->rx_n < RX_BURST;
	if (io->recording)
		io->rx_wall_ns = rk_io_wall_ns(io);
	io->idle_since_ns = 0;          /* traffic: back to spinning */
	return true;
}

/*
 * Give a frame to the frame hook when it is one of its kinds: IPv4 for us,
 * or an ARP reply to our address (already learnt from by handle_arp). The
 * 802.1Q tag, if any, is removed. @return true when handed over.
 */
static bool
hook_frame(struct rk_io_dpdk *io, struct rte_mbuf *m, enum kind k)
{
	uint32_t len = rte_pktmbuf_pkt_len(m), tag;
	const uint8_t *p;
	uint8_t *b = io->hook_buf;

	if (io->hook == NULL || (k != K_IP4 && k != K_ARP) || len > sizeof(io->hook_buf))
		return false;
	p = rte_pktmbuf_read(m, 0, len, b);
	if (p == NULL)
		return false;
	tag = rk_eth_ethertype(p) == RK_ETHERTYPE_VLAN ? RK_VLAN_HLEN : 0;
	if (k == K_ARP && (len < RK_ETH_HLEN + tag + ARP_LEN ||
			   rk_get_be16(p + RK_ETH_HLEN + tag + 6) != 2 ||
			   memcmp(p + RK_ETH_HLEN + tag + 24, io->cfg.ip, 4) != 0))
		return false;           /* requests are answered here, never passed on */
	if (p != b)
		memcpy(b, p, len);
	if (tag != 0) {
		memmove(b + RK_VLAN_HLEN, b, 2 * RK_ETH_ALEN);
		b += RK_VLAN_HLEN;
		len -= RK_VLAN_HLEN;
	}
	if (k == K_IP4 && io->recording)
		record_mbuf(io, m, RK_PCAPNG_IN, io->rx_wall_ns);
	io->st.rx_hooked++;
	io->hook(io->hook_ctx, b, len);
	return true;
}

/* A frame the engine does not take: counted, recorded, hooked or dropped; freed. */
static void
consume_other(struct rk_io_dpdk *io, struct rte_mbuf *m, enum kind k)
{
	if (k == K_ARP)
		io->st.rx_arp++;
	if (k == K_MAC_CONTROL) {
		rk_io_mac_control(io, m);
		if (io->recording)
			record_mbuf(io, m, RK_PCAPNG_IN, io->rx_wall_ns);
		rte_pktmbuf_free(m);
		return;
	}
	if (hook_frame(io, m, k)) {
		rte_pktmbuf_free(m);
		return;
	}
	if (k == K_OTHER || k == K_IP4)
		io->st.rx_other++;
	if (io->recording && (k == K_OTHER || k == K_IP4))
		record_mbuf(io, m, RK_PCAPNG_IN, io->rx_wall_ns);
	rte_pktmbuf_free(m);
}

/* Count a frame and consume it unless it is RoCE (returns true for RoCE). */
static bool
take(struct rk_io_dpdk *io, struct rte_mbuf *m)
{
	enum kind k;

	io->st.rx_frames++;
	io->st.rx_bytes += rte_pktmbuf_pkt_len(m);
	if (m->nb_segs > 1)
		io->st.rx_multiseg++;
	k = classify(io, m);
	if (k == K_ROCE)
		return true;
	consume_other(io, m, k);
	return false;
}

/*
 * The next RoCE frame of at most @p max_len bytes, after the frames
 * gathered so far went out (before we look for answers): its bytes at
 * *data (in the mbuf when one segment, else gathered into @p buf),
 * recorded and counted. @return its mbuf, or NULL when none came.
 */
static struct rte_mbuf *
next_roce(struct rk_io_dpdk *io, uint32_t max_len, uint8_t *buf, const uint8_t **data,
	  uint32_t *len)
{
	if (io->txq_n > 0)
		rk_io_tx_once(io);
	/* Bounded: a port that floods non-RoCE frames must not hold us here. */
	for (int budget = 4 * RX_BURST; budget > 0; budget--) {
		struct rte_mbuf *m;
		const uint8_t *p;

		if (!refill(io))
			return NULL;
		m = io->rx[io->rx_i++];
		if (!take(io, m))
			continue;
		*len = rte_pktmbuf_pkt_len(m);
		if (*len > max_len) {
			io->st.rx_too_long++;
			rte_pktmbuf_free(m);
			continue;
		}
		p = rte_pktmbuf_read(m, 0, *len, buf);
		if (p == NULL) {
			rte_pktmbuf_free(m);
			continue;
		}
		if (io->recording) {
			uint32_t cap = io->cfg.snaplen == RK_IO_SNAP_HEADERS ?
				       snap_headers(p, *len, *len) : *len;

			rk_pcapng_write_cut(&io->pcap, rk_io_record_ns(io, io->rx_wall_ns), RK_PCAPNG_IN,
					    p, cap, *len);
		}
		io->st.rx_roce++;
		*data = p;
		return m;
	}
	return NULL;
}

static int
ops_rx(void *arg, uint8_t *buf, uint32_t cap)
{
	struct rk_io_dpdk *io = arg;
	const uint8_t *p;
	uint32_t len;
	struct rte_mbuf *m = next_roce(io, cap, buf, &p, &len);

	if (m == NULL)
		return 0;
	if (p != buf)
		memcpy(buf, p, len);
	rte_pktmbuf_free(m);
	return (int)len;
}

/*
 * The next RoCE frame where it lies: in its mbuf when it is one segment,
 * else gathered into the scratch buffer. Freed by ops_rx_done().
 */
static int
ops_rx_view(void *arg, const uint8_t **frame)
{
	struct rk_io_dpdk *io = arg;
	uint32_t len;

	if (io->rx_cur != NULL)
		return -EBUSY;          /* rx_done() first */
	io->rx_cur = next_roce(io, RK_IB_MAX_FRAME + 256, io->scratch, frame, &len);
	return io->rx_cur != NULL ? (int)len : 0;
}

static void
ops_rx_done(void *arg)
{
	struct rk_io_dpdk *io = arg;

	/* Freed later in bulk (idle, or a full batch): off the reply's path. */
	io->rx_free[io->rx_free_n++] = io->rx_cur;
	io->rx_cur = NULL;
	if (io->rx_free_n == RX_BURST) {
		rte_pktmbuf_free_bulk(io->rx_free, io->rx_free_n);
		io->rx_free_n = 0;
	}
}

int
rk_io_dpdk_service(struct rk_io_dpdk *io)
{
	int n = 0;

	rk_io_tx_once(io);
	/* Take new frames only when the local array is drained by rx(). */
	if (io->rx_i < io->rx_n || !refill(io))
		return 0;
	uint16_t keep = 0;

	for (uint16_t i = io->rx_i; i < io->rx_n; i++) {
		struct rte_mbuf *m = io->rx[i];
		enum kind k;

		n++;
		k = classify(io, m);
		if (k == K_ROCE) {
			io->rx[keep++] = m;     /* left for rx(), which counts it */
			continue;
		}
		io->st.rx_frames++;
		io->st.rx_bytes += rte_pktmbuf_pkt_len(m);
		consume_other(io, m, k);
	}
	io->rx_i = 0;
	io->rx_n = keep;
	rk_io_tx_once(io);
	return n;
}

static uint64_t
ops_now(void *arg)
{
	(void)arg;
	return rk_io_dpdk_now_ns();
}

void
rk_io_dpdk_set_frame_hook(struct rk_io_dpdk *io, rk_io_frame_fn fn, void *ctx)
{
	io->hook = fn;
	io->hook_ctx = ctx;
}

int
rk_io_dpdk_tx_raw(struct rk_io_dpdk *io, const uint8_t *frame, uint32_t len)
{
	uint32_t tag = io->cfg.vlan_id != 0 ? RK_VLAN_HLEN : 0;
	int rc;

	if (frame == NULL || len < RK_ETH_HLEN || len + tag > RK_IB_MAX_FRAME)
		return -EINVAL;
	/* The drop options apply to TCP segments (the TCP must recover). */
	if (len >= RK_ETH_HLEN + RK_IPV4_HLEN && rk_eth_ethertype(frame) == RK_ETHERTYPE_IPV4 &&
	    rk_ipv4_protocol(frame + RK_ETH_HLEN) == RK_IPPROTO_TCP &&
	    tx_drop_injected(io, frame, len))
		return 0;
	rc = rk_io_queue_frame(io, frame, len);
	if (rc == 0)
		io->st.tx_raw++;
	return rc;
}

static uint32_t
ops_mtu(void *arg)
{
	return rk_io_dpdk_ip_mtu(arg);
}

const struct rk_io_ops rk_io_dpdk_ops = {
	.name = "dpdk",
	.tx = ops_tx,
	.rx = ops_rx,
	.now_ns = ops_now,
	.flush = ops_flush,
	.tx_room = ops_tx_room,
	.tx_frame = ops_tx_frame,
	.tx_commit = ops_tx_commit,
	.rx_view = ops_rx_view,
	.rx_done = ops_rx_done,
	.tx_commit_sg = ops_tx_commit_sg,
	.mtu = ops_mtu,
};

