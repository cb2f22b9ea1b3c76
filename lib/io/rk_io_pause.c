/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PAUSE (IEEE 802.3 Annex 31B) and PFC (IEEE 802.1Qbb) on the port: the
 * frames received pause the priorities they name for their quanta (512
 * bit times each at the link rate; a later frame replaces the time, 0
 * resumes), the TX queue is held while our own priority is paused, and
 * the port can send them. A NIC with flow control in hardware consumes
 * these frames itself; the soft ports (memif, af_packet, ring, tap) hand
 * them up, and this is what honours them there.
 */
#include <errno.h>
#include <string.h>

#include "rk_build.h"
#include "rk_eth.h"
#include "rk_io_internal.h"
#include "rk_pkt.h"

void
rk_io_pause_init(struct rk_io_dpdk *io)
{
	struct rte_eth_link link;
	uint64_t mbps = io->cfg.link_mbps;

	io->tx_prio = (io->cfg.vlan_id != 0 ? io->cfg.vlan_pcp : io->cfg.tx_prio) & 7;
	memset(&link, 0, sizeof(link));
	if (mbps == 0 && rte_eth_link_get_nowait(io->port, &link) == 0 &&
	    link.link_speed != RTE_ETH_SPEED_NUM_NONE && link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN)
		mbps = link.link_speed;
	io->link_bps = (mbps != 0 ? mbps : 100000) * 1000000ull;
}

/* Priority @p p paused for @p quanta from @p now: a new time, not added to the old. */
static void
pause_prio(struct rk_io_dpdk *io, unsigned int p, uint16_t quanta, uint64_t now)
{
	uint64_t until = now + (uint64_t)quanta * 512u * 1000000000ull / io->link_bps;
	uint64_t old = io->pause_until[p] > now ? io->pause_until[p] : now;

	/* The time counted: what this frame adds or, for a shorter one, takes back. */
	if (until >= old)
		io->st.rx_prio_pause_ns[p] += until - old;
	else
		io->st.rx_prio_pause_ns[p] -= old - until;
	io->pause_until[p] = until;
	io->st.rx_prio_pause[p]++;
}

void
rk_io_mac_control(struct rk_io_dpdk *io, struct rte_mbuf *m)
{
	uint8_t buf[64];
	uint32_t len = rte_pktmbuf_pkt_len(m), cap = len < sizeof(buf) ? len : sizeof(buf);
	const uint8_t *f = rte_pktmbuf_read(m, 0, cap, buf);
	struct rk_pkt pkt;
	uint64_t now = rk_io_dpdk_now_ns();

	if (f == NULL || rk_pkt_parse(&pkt, f, cap, len, RK_LINK_ETHERNET, NULL) != 0 ||
	    (pkt.kind != RK_PKT_PAUSE && pkt.kind != RK_PKT_PFC)) {
		io->st.rx_other++;
		return;
	}
	io->pause_seen = true;
	if (pkt.kind == RK_PKT_PAUSE) {
		io->st.rx_pause++;
		for (unsigned int p = 0; p < 8; p++)
			pause_prio(io, p, pkt.pause_quanta[0], now);
		return;
	}
	io->st.rx_pfc++;
	for (unsigned int p = 0; p < 8; p++)
		if (pkt.pfc_class_enable >> p & 1)
			pause_prio(io, p, pkt.pause_quanta[p], now);
}

uint64_t
rk_io_dpdk_paused_until(const struct rk_io_dpdk *io, uint8_t prio)
{
	return io != NULL && prio < 8 ? io->pause_until[prio] : 0;
}

/* One MAC Control frame of @p len bytes at @p f, straight to the device. */
static int
send_now(struct rk_io_dpdk *io, const uint8_t *f, int len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(io->pool);
	uint8_t *p;

	if (m == NULL)
		return -ENOBUFS;
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return -ENOBUFS;
	}
	memcpy(p, f, (size_t)len);
	if (io->recording)
		rk_pcapng_write(&io->pcap, rk_io_record_ns(io, rk_io_wall_ns(io)), RK_PCAPNG_OUT, f,
				(uint32_t)len);
	if (rte_eth_tx_burst(io->port, 0, &m, 1) != 1) {
		rte_pktmbuf_free(m);
		return -EIO;
	}
	io->st.tx_frames++;
	io->st.tx_bytes += (uint64_t)len;
	return 0;
}

int
rk_io_dpdk_send_pause(struct rk_io_dpdk *io, uint16_t quanta)
{
	uint8_t f[64];
	int len = rk_build_pause(f, sizeof(f), io->mac, quanta), rc;

	if (len < 0)
		return len;
	rc = send_now(io, f, len);
	io->st.tx_pause += rc == 0;
	return rc;
}

int
rk_io_dpdk_send_pfc(struct rk_io_dpdk *io, uint8_t class_enable, const uint16_t quanta[8])
{
	uint8_t f[64];
	int len = rk_build_pfc(f, sizeof(f), io->mac, class_enable, quanta), rc;

	if (len < 0)
		return len;
	rc = send_now(io, f, len);
	io->st.tx_pfc += rc == 0;
	return rc;
}
