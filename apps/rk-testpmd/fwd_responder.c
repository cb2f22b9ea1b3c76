/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The responder engine's forwarding side: frames of the responder's port
 * go to its verbs device (rdma_dev.c) as with the rdma engine, but ARP
 * (RFC 826) is answered here, for the device's IPv4, and its senders
 * learnt for the control thread (responder.c), and with "rdma_cm" QP1's
 * CM MADs queued for it (responder_cm.c); after each burst the
 * client's receive completions (send_bw) are counted and the receive
 * posted again on the same slot. Other ports' frames go to their devices.
 */
#include <errno.h>
#include <string.h>

#include <rte_ethdev.h>

#include "rdma.h"
#include "responder.h"
#include "rk_byteorder.h"
#include "testpmd.h"


int
rk_tp_resp_tx(uint16_t port, const uint8_t *f, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(rk_tp.pool);
	uint16_t flen = (uint16_t)(len < 60 ? 60 : len);
	char *p;

	if (m == NULL)
		return -ENOBUFS;
	/* Padded to the 60-byte minimum (without FCS). */
	p = len <= UINT16_MAX ? rte_pktmbuf_append(m, flen) : NULL;
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return -ENOBUFS;
	}
	memset(p, 0, flen);
	memcpy(p, f, len);
	if (rte_eth_tx_burst(port, 0, &m, 1) != 1) {
		rte_pktmbuf_free(m);
		return -EAGAIN;
	}
	rk_tp.ports[port].tx++;
	return 0;
}

bool
rk_tp_resp_neigh(const uint8_t ip[4], uint8_t mac[6])
{
	for (unsigned int i = 0; i < RK_TP_RESP_NEIGH; i++)
		if (rk_tp_resp.neigh[i].used && memcmp(rk_tp_resp.neigh[i].ip, ip, 4) == 0) {
			memcpy(mac, rk_tp_resp.neigh[i].mac, 6);
			return true;
		}
	return false;
}

void
rk_tp_resp_neigh_forget(const uint8_t ip[4])
{
	for (unsigned int i = 0; i < RK_TP_RESP_NEIGH; i++)
		if (rk_tp_resp.neigh[i].used && memcmp(rk_tp_resp.neigh[i].ip, ip, 4) == 0)
			rk_tp_resp.neigh[i].used = false;
}

static void
learn(const uint8_t ip[4], const uint8_t mac[6])
{
	unsigned int i, free_i = RK_TP_RESP_NEIGH;

	for (i = 0; i < RK_TP_RESP_NEIGH; i++) {
		if (rk_tp_resp.neigh[i].used && memcmp(rk_tp_resp.neigh[i].ip, ip, 4) == 0)
			break;
		if (!rk_tp_resp.neigh[i].used && free_i == RK_TP_RESP_NEIGH)
			free_i = i;
	}
	/* Full: slot 0 goes. */
	if (i == RK_TP_RESP_NEIGH)
		i = free_i != RK_TP_RESP_NEIGH ? free_i : 0;
	rk_tp_resp.neigh[i].used = true;
	memcpy(rk_tp_resp.neigh[i].ip, ip, 4);
	memcpy(rk_tp_resp.neigh[i].mac, mac, 6);
}

void
rk_tp_resp_arp(const uint8_t *f, uint32_t len)
{
	static const uint8_t zero[4];

	if (!rk_tp_arp_ok(f, len))
		return;
	if (memcmp(f + 28, zero, 4) != 0)
		learn(f + 28, f + 22);
	if (rk_tp_rdma_arp_answer(rk_tp_resp.port, f, len))
		rk_tp_resp.arp_answered++;
}

int
rk_tp_resp_arp_request(const uint8_t ip[4])
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, none[6];
	struct rk_tp_rdma_dev *d = rk_tp_rdma_dev(rk_tp_resp.port, false, NULL);
	int rc;

	if (d == NULL)
		return -ENODEV;
	rc = rk_tp_rdma_arp_send(d, 1, bcast, none, ip);
	if (rc == 0)
		rk_tp_resp.arp_requests++;
	return rc;
}

/* The client's receive completions: counted, the receive posted again. */
static void
serve_recvs(struct rk_tp_resp_sess *s)
{
	struct rk_wc wc[32];
	int n = rk_poll_cq(s->cq, 32, wc);

	for (int i = 0; i < n; i++) {
		uint32_t slot = (uint32_t)wc[i].wr_id;
		struct rk_sge sge;
		struct rk_recv_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = 1 }, *bad;

		if (wc[i].status != RK_WC_SUCCESS) {
			s->wc_errors++;
			continue;
		}
		if (s->recvd == 0)
			s->recv_len = wc[i].byte_len;
		else if (wc[i].byte_len != s->recv_len)
			s->len_mismatch++;
		s->recvd++;
		s->recv_bytes += wc[i].byte_len;
		sge = (struct rk_sge){ (uint64_t)(uintptr_t)(s->rbuf + (size_t)slot *
							   rk_tp_resp.max_size),
				       rk_tp_resp.max_size, s->rmr->lkey };
		if (rk_post_recv(s->qp, &wr, &bad) != 0)
			s->wc_errors++;
	}
}

static void
responder_fwd(struct rk_tp_stream *fs)
{
	struct rte_mbuf *m[RK_TP_BURST], *keep[RK_TP_BURST];
	uint16_t n = rk_tp_rx(fs, m), k = 0;
	bool ours = rk_tp_resp.running && fs->rx_port == rk_tp_resp.port;

	if (ours && n > 0) {
		rte_ticketlock_lock(&rk_tp_rdma_lock);
		for (uint16_t i = 0; i < n; i++) {
			const uint8_t *f = rte_pktmbuf_mtod(m[i], const uint8_t *);
			uint32_t len = rte_pktmbuf_data_len(m[i]);

			if (len >= 14 && rk_get_be16(f + 12) == RK_TP_ETH_ARP) {
				rk_tp_resp_arp(f, len);
				rte_pktmbuf_free(m[i]);
			} else if (rk_tp_resp.rdma_cm && rk_tp_resp_cm_mad(f, len)) {
				rte_pktmbuf_free(m[i]);
			} else {
				keep[k++] = m[i];
			}
		}
		rte_ticketlock_unlock(&rk_tp_rdma_lock);
	} else {
		memcpy(keep, m, n * sizeof(m[0]));
		k = n;
	}
	/* k == 0 too: the device's timers and the frames it has to send */
	rk_tp_rdma_feed(fs->rx_port, keep, k);
	if (ours) {
		rte_ticketlock_lock(&rk_tp_rdma_lock);
		for (unsigned int i = 0, seen = 0; seen < rk_tp_resp.serving &&
		     i < RK_TP_RESP_CLIENTS; i++) {
			struct rk_tp_resp_sess *s = rk_tp_resp.sess[i];

			if (s == NULL)
				continue;
			seen++;
			for (; s != NULL; s = s->next)  /* the client's QPs (perftest -q) */
				if (s->rbuf != NULL)
					serve_recvs(s);
		}
		rte_ticketlock_unlock(&rk_tp_rdma_lock);
	}
}

const struct rk_tp_engine rk_tp_fwd_responder = {
	.name = "responder",
	.help = "the rdma engine, and ARP, QP1's CM MADs and send_bw's receives for "
		"\"responder start\"",
	.packet_fwd = responder_fwd,
};
