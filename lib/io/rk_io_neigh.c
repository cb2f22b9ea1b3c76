/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DPDK I/O backend, neighbours: ARP (RFC 826) and IPv6 Neighbor Discovery
 * (RFC 4861) answered and learnt from, address resolution for the caller,
 * and the port's RoCEv2 GIDs.
 */
#include <errno.h>
#include <string.h>

#include <rte_ip.h>

#include "rk_byteorder.h"
#include "rk_eth.h"
#include "rk_io_internal.h"
#include "rk_ipv6.h"

#define ND_NS 135                /* RFC 4861 Neighbor Solicitation */
#define ND_NA 136                /* ... Advertisement */
#define ND_MSG_LEN 32            /* type..target (24) + one link-layer address option (8) */

/* ICMPv6 NS/NA (RFC 4861 4.3, 4.4): byte offsets in the message. */
enum {
	ND_TYPE = 0, ND_CODE = 1, ND_CKSUM = 2, ND_FLAGS = 4, ND_TARGET = 8,
	ND_OPTS = 24,            /* options: type, length in 8-byte units, value */
};

/* ARP over Ethernet/IPv4 (RFC 826): byte offsets in the ARP packet. */
enum {
	ARP_HTYPE = 0, ARP_PTYPE = 2, ARP_HLEN = 4, ARP_PLEN = 5, ARP_OPER = 6,
	ARP_SHA = 8, ARP_SPA = 14, ARP_THA = 18, ARP_TPA = 24,
};

/* ------------------------------------------------------------------- ARP */

static void
mapped4(const uint8_t ip4[4], uint8_t ip[16])
{
	memset(ip, 0, 10);
	ip[10] = ip[11] = 0xff;
	memcpy(ip + 12, ip4, 4);
}

static bool
is_mapped4(const uint8_t ip[16])
{
	static const uint8_t pre[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return memcmp(ip, pre, 12) == 0;
}

static struct rk_io_neigh *
neigh_find(struct rk_io_dpdk *io, const uint8_t ip[16])
{
	for (unsigned int i = 0; i < NEIGH_MAX; i++)
		if (io->neigh[i].valid && memcmp(io->neigh[i].ip, ip, 16) == 0)
			return &io->neigh[i];
	return NULL;
}

static void
neigh_learn(struct rk_io_dpdk *io, const uint8_t ip[16], const uint8_t mac[6])
{
	struct rk_io_neigh *n = neigh_find(io, ip);

	if (n == NULL) {
		n = &io->neigh[io->neigh_next++ % NEIGH_MAX];
		memcpy(n->ip, ip, 16);
		n->valid = true;
	}
	memcpy(n->mac, mac, 6);
}

/* RFC 826 frame: Ethernet/IPv4 hardware and protocol types. */
static int
send_arp(struct rk_io_dpdk *io, uint16_t oper, const uint8_t dmac[6], const uint8_t spa[4],
	 const uint8_t tha[6], const uint8_t tpa[4])
{
	uint8_t f[RK_ETH_FRAME_MIN] = { 0 };
	uint8_t *a = f + RK_ETH_HLEN;

	rk_eth_write(f, dmac, io->mac, 0, 0, RK_ETHERTYPE_ARP);
	rk_put_be16(a + ARP_HTYPE, 1);
	rk_put_be16(a + ARP_PTYPE, RK_ETHERTYPE_IPV4);
	a[ARP_HLEN] = RK_ETH_ALEN;
	a[ARP_PLEN] = 4;
	rk_put_be16(a + ARP_OPER, oper);
	memcpy(a + ARP_SHA, io->mac, 6);
	memcpy(a + ARP_SPA, spa, 4);
	memcpy(a + ARP_THA, tha, 6);
	memcpy(a + ARP_TPA, tpa, 4);
	io->st.tx_arp++;
	return rk_io_queue_frame(io, f, sizeof(f));
}

void
rk_io_handle_arp(struct rk_io_dpdk *io, const uint8_t *a)
{
	uint16_t oper = rk_get_be16(a + ARP_OPER);
	uint8_t spa[16];

	if (rk_get_be16(a + ARP_HTYPE) != 1 || rk_get_be16(a + ARP_PTYPE) != RK_ETHERTYPE_IPV4 ||
	    a[ARP_HLEN] != RK_ETH_ALEN || a[ARP_PLEN] != 4)
		return;
	if (!RK_IO_IP4_MINE(io, a + ARP_TPA))
		return;                 /* not for us: no gratuitous learning */
	mapped4(a + ARP_SPA, spa);
	neigh_learn(io, spa, a + ARP_SHA);
	if (oper == 1) {
		/* from the address asked for: each of the port's hosts answers for itself */
		send_arp(io, 2, a + ARP_SHA, a + ARP_TPA, a + ARP_SHA, a + ARP_SPA);
		rk_io_tx_once(io);
	}
}

/* ------------------------------------------------------------ IPv6 ND */

/* ff02::1:ffXX:XXXX, the solicited-node multicast address of @p ip (RFC 4291 2.7.1). */
static void
solicited_node(const uint8_t ip[16], uint8_t out[16])
{
	static const uint8_t pre[13] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff };

	memcpy(out, pre, 13);
	memcpy(out + 13, ip + 13, 3);
}

/*
 * An RFC 4861 NS or NA from our address: hop limit 255, one link-layer
 * address option (source for NS, target for NA) carrying our MAC.
 */
static int
send_nd(struct rk_io_dpdk *io, uint8_t type, const uint8_t dmac[6], const uint8_t dip[16],
	const uint8_t target[16], bool solicited)
{
	uint8_t f[RK_ETH_HLEN + RK_IPV6_HLEN + ND_MSG_LEN] = { 0 };
	uint8_t *ip = f + RK_ETH_HLEN, *icmp = ip + RK_IPV6_HLEN;

	rk_eth_write(f, dmac, io->mac, 0, 0, RK_ETHERTYPE_IPV6);
	rk_ipv6_set_word0(ip, 0, 0, 0);
	rk_ipv6_set_payload_len(ip, ND_MSG_LEN);
	rk_ipv6_set_next_header(ip, RK_IPPROTO_ICMPV6);
	rk_ipv6_set_hop_limit(ip, 255);
	rk_ipv6_set_src(ip, io->cfg.ip6);
	rk_ipv6_set_dst(ip, dip);
	icmp[ND_TYPE] = type;
	/* NA flags: Solicited when answering, Override always (RFC 4861 7.2.4). */
	if (type == ND_NA)
		icmp[ND_FLAGS] = (uint8_t)((solicited ? 0x40 : 0) | 0x20);
	memcpy(icmp + ND_TARGET, target, 16);
	icmp[ND_OPTS] = type == ND_NS ? 1 : 2;
	icmp[ND_OPTS + 1] = 1;          /* 8 bytes */
	memcpy(icmp + ND_OPTS + 2, io->mac, 6);
	{
		/* Already in network order, as the header field holds it. */
		uint16_t ck = rte_ipv6_udptcp_cksum((const struct rte_ipv6_hdr *)(void *)ip, icmp);

		memcpy(icmp + ND_CKSUM, &ck, 2);
	}
	io->st.tx_nd++;
	return rk_io_queue_frame(io, f, sizeof(f));
}

/*
 * An ICMPv6 frame at @p l3 of @p m: answer NS for our address, learn from
 * NS and NA (their link-layer address options). Anything malformed, with
 * a bad checksum or a hop limit other than 255 is ignored (RFC 4861 7.1).
 */
void
rk_io_handle_nd(struct rk_io_dpdk *io, struct rte_mbuf *m, uint32_t l3)
{
	uint8_t b[RK_IPV6_HLEN + 128];
	uint32_t len = rte_pktmbuf_pkt_len(m) - l3, plen, n;
	const uint8_t *ip, *icmp;
	const uint8_t *lladdr = NULL;
	static const uint8_t unspec[16];

	if (len < RK_IPV6_HLEN + ND_OPTS)
		return;
	n = len < sizeof(b) ? len : sizeof(b);
	ip = rte_pktmbuf_read(m, l3, n, b);
	if (ip == NULL)
		return;
	plen = rk_ipv6_payload_len(ip);
	if (plen < ND_OPTS || RK_IPV6_HLEN + plen > n || rk_ipv6_hop_limit(ip) != 255)
		return;
	icmp = ip + RK_IPV6_HLEN;
	if ((icmp[ND_TYPE] != ND_NS && icmp[ND_TYPE] != ND_NA) || icmp[ND_CODE] != 0 ||
	    __rte_ipv6_udptcp_cksum((const struct rte_ipv6_hdr *)(const void *)ip, icmp) != 0xffff)
		return;
	io->st.rx_nd++;
	for (uint32_t o = ND_OPTS; o + 8 <= plen;) {
		uint32_t ol = (uint32_t)icmp[o + 1] * 8;

		if (ol == 0 || o + ol > plen)
			return;
		if ((icmp[ND_TYPE] == ND_NS && icmp[o] == 1) || (icmp[ND_TYPE] == ND_NA && icmp[o] == 2))
			lladdr = icmp + o + 2;
		o += ol;
	}
	if (icmp[ND_TYPE] == ND_NA) {
		if (lladdr != NULL)
			neigh_learn(io, icmp + ND_TARGET, lladdr);
		return;
	}
	if (!io->has_ip6 || memcmp(icmp + ND_TARGET, io->cfg.ip6, 16) != 0)
		return;
	/* From :: (address resolution during DAD): answer all-nodes, learn nothing. */
	if (memcmp(rk_ipv6_src(ip), unspec, 16) == 0) {
		static const uint8_t all_nodes[16] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0,
						       0, 0, 0, 0, 0, 0, 0, 1 };
		static const uint8_t mac_all[6] = { 0x33, 0x33, 0, 0, 0, 1 };

		send_nd(io, ND_NA, mac_all, all_nodes, io->cfg.ip6, false);
	} else if (lladdr != NULL) {
		neigh_learn(io, rk_ipv6_src(ip), lladdr);
		send_nd(io, ND_NA, lladdr, rk_ipv6_src(ip), io->cfg.ip6, true);
	} else {
		return;                 /* unicast NS without SLLA: no MAC to answer to */
	}
	rk_io_tx_once(io);
}

int
rk_io_dpdk_neigh_lookup(struct rk_io_dpdk *io, const uint8_t ip[16], uint8_t mac[6])
{
	struct rk_io_neigh *n = neigh_find(io, ip);

	if (n == NULL)
		return -ENOENT;
	memcpy(mac, n->mac, 6);
	return 0;
}

int
rk_io_dpdk_solicit(struct rk_io_dpdk *io, const uint8_t ip[16])
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t zero[6];
	int rc;

	if (is_mapped4(ip)) {
		if (!io->has_ip4)
			return -EADDRNOTAVAIL;
		rc = send_arp(io, 1, bcast, io->cfg.ip, zero, ip + 12);
	} else {
		uint8_t sn[16], dmac[6] = { 0x33, 0x33 };

		if (!io->has_ip6)
			return -EADDRNOTAVAIL;
		solicited_node(ip, sn);
		memcpy(dmac + 2, sn + 12, 4);
		rc = send_nd(io, ND_NS, dmac, sn, ip, false);
	}
	if (rc != 0)
		return -EIO;
	rk_io_tx_once(io);
	return 0;
}

int
rk_io_dpdk_resolve_addr(struct rk_io_dpdk *io, const uint8_t ip[16], uint8_t mac[6],
			uint32_t timeout_ms)
{
	uint64_t start = rk_io_dpdk_now_ns(), last = 0, now;
	int rc;

	for (;;) {
		if (rk_io_dpdk_neigh_lookup(io, ip, mac) == 0)
			return 0;
		if (rk_io_cancelled(io->cfg.cancel))
			return -EINTR;
		now = rk_io_dpdk_now_ns();
		if (now - start >= (uint64_t)timeout_ms * 1000000ull)
			return -ETIMEDOUT;
		if (last == 0 || now - last >= 200000000ull) {
			rc = rk_io_dpdk_solicit(io, ip);
			if (rc != 0)
				return rc == -EADDRNOTAVAIL ? rc : -EIO;
			last = now;
		}
		rk_io_dpdk_idle(io, rk_io_dpdk_service(io));
	}
}

int
rk_io_dpdk_resolve(struct rk_io_dpdk *io, const uint8_t ip[4], uint8_t mac[6],
		   uint32_t timeout_ms)
{
	uint8_t a[16];

	mapped4(ip, a);
	return rk_io_dpdk_resolve_addr(io, a, mac, timeout_ms);
}

int
rk_io_dpdk_gid(const struct rk_io_dpdk *io, unsigned int index, uint8_t gid[16])
{
	/* RoCEv2 GIDs: the IPv4 address as ::ffff:a.b.c.d, then the IPv6 one. */
	if (io->has_ip4 && index == 0) {
		mapped4(io->cfg.ip, gid);
		return 0;
	}
	if (io->has_ip6 && index == (io->has_ip4 ? 1u : 0u)) {
		memcpy(gid, io->cfg.ip6, 16);
		return 0;
	}
	return -ENOENT;
}

