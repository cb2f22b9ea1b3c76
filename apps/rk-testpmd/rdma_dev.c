/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A verbs device per port over an rk_io_ops adapter on the port:
 * frames the device sends are copied into mbufs of the app's pool and
 * sent with rte_eth_tx_burst (gathered until the device's flush());
 * frames it receives are those the rdma engine read on the port, handed
 * over by rk_tp_rdma_feed(). The clock is the TSC in ns.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "rdma.h"
#include "responder.h"
#include "rk_app_cm.h"
#include "rk_byteorder.h"
#include "testpmd.h"

rte_ticketlock_t rk_tp_rdma_lock = RTE_TICKETLOCK_INITIALIZER;
uint64_t rk_tp_rdma_no_dev[RK_TP_MAX_PORTS];

static struct rk_tp_rdma_dev *devs[RK_TP_MAX_PORTS];

/* ----------------------------------------------------- the rk_io_ops */

static void
dev_flush(void *io)
{
	struct rk_tp_rdma_dev *d = io;
	unsigned int sent = 0, tries = 0;

	while (sent < d->tx_count && tries++ < 64)
		sent += rte_eth_tx_burst(d->port, 0, d->txb + sent, (uint16_t)(d->tx_count - sent));
	if (sent < d->tx_count) {
		rte_pktmbuf_free_bulk(d->txb + sent, d->tx_count - sent);
		d->tx_dropped += d->tx_count - sent;
	}
	d->tx_sent += sent;
	rk_tp.ports[d->port].tx += sent;
	d->tx_count = 0;
}

static int
dev_tx(void *io, const uint8_t *frame, uint32_t len)
{
	struct rk_tp_rdma_dev *d = io;
	struct rte_mbuf *head = rte_pktmbuf_alloc(rk_tp.pool), *last = head;
	uint32_t done = 0;

	if (head == NULL) {
		d->tx_dropped++;
		return -ENOBUFS;
	}
	/* A frame past one mbuf's room: a chain (rk_tp_rdma_path_mtu() allows
	 * that only on ports that take chains). */
	while (done < len) {
		uint16_t room = rte_pktmbuf_tailroom(last);
		uint32_t k = len - done < room ? len - done : room;
		struct rte_mbuf *next;

		memcpy(rte_pktmbuf_append(last, (uint16_t)k), frame + done, k);
		if (last != head) {
			head->pkt_len += k;
		}
		done += k;
		if (done == len)
			break;
		next = rte_pktmbuf_alloc(rk_tp.pool);
		if (next == NULL) {
			rte_pktmbuf_free(head);
			d->tx_dropped++;
			return -ENOBUFS;
		}
		last->next = next;
		head->nb_segs++;
		last = next;
	}
	d->txb[d->tx_count++] = head;
	if (d->tx_count == RTE_DIM(d->txb))
		dev_flush(d);
	return 0;
}

static int
dev_rx(void *io, uint8_t *buf, uint32_t cap)
{
	struct rk_tp_rdma_dev *d = io;

	while (d->rx_count > 0) {
		struct rte_mbuf *m = d->rxq[d->rx_head];
		uint32_t len = rte_pktmbuf_pkt_len(m);
		const void *p;

		d->rx_head = (d->rx_head + 1) % RK_TP_RDMA_RXQ;
		d->rx_count--;
		if (len > cap) {
			d->rx_too_long++;
			rte_pktmbuf_free(m);
			continue;
		}
		p = rte_pktmbuf_read(m, 0, len, buf);
		if (p != buf)
			memcpy(buf, p, len);
		rte_pktmbuf_free(m);
		return (int)len;
	}
	return 0;
}

static uint64_t
dev_now_ns(void *io)
{
	uint64_t c = rte_get_timer_cycles(), hz = rte_get_timer_hz();

	(void)io;
	return c / hz * UINT64_C(1000000000) + c % hz * UINT64_C(1000000000) / hz;
}

static uint32_t
dev_mtu(void *io)
{
	return rk_tp.ports[((struct rk_tp_rdma_dev *)io)->port].mtu;
}

static const struct rk_io_ops dev_ops = {
	.name = "rk-testpmd port",
	.tx = dev_tx,
	.rx = dev_rx,
	.now_ns = dev_now_ns,
	.flush = dev_flush,
	.mtu = dev_mtu,
};

/* ----------------------------------------------------------- devices */

struct rk_tp_rdma_dev *
rk_tp_rdma_dev(uint16_t port, bool open, FILE *out)
{
	struct rk_device_attr attr = { 0 };
	struct rte_ether_addr mac;
	struct rk_tp_rdma_dev *d;
	static const uint8_t none[4];
	uint16_t mtu;

	if (port >= RK_TP_MAX_PORTS)
		return NULL;
	if (devs[port] != NULL || !open)
		return devs[port];
	d = calloc(1, sizeof(*d));
	if (d == NULL || rte_eth_macaddr_get(port, &mac) != 0) {
		fprintf(out, "Port %u: cannot open a verbs device: %s\n", port,
			d == NULL ? "no memory" : "no MAC address");
		free(d);
		return NULL;
	}
	d->port = port;
	memcpy(d->mac, mac.addr_bytes, 6);
	if (memcmp(rk_tp.ports[port].ip, none, 4) != 0)
		memcpy(d->ip, rk_tp.ports[port].ip, 4);
	else
		memcpy(d->ip, (uint8_t[4]){ 198, 18, 0, (uint8_t)(port + 1) }, 4);
	memcpy(attr.mac, d->mac, 6);
	attr.ip[10] = attr.ip[11] = 0xff;
	memcpy(attr.ip + 12, d->ip, 4);
	attr.ip_version = 4;
	attr.max_qp = RK_TP_MAX_QPS + 4;   /* and the responder's: data QP, -R exchange QP */
	attr.max_mr = RK_TP_MAX_MRS + 3;
	/* UD messages and path MTUs stay within what the port's frames carry. */
	if (rte_eth_dev_get_mtu(port, &mtu) != 0)
		mtu = RTE_ETHER_MTU;
	attr.active_mtu = rk_roce_active_mtu(mtu);
	if (attr.active_mtu == 0)
		attr.active_mtu = RK_MTU_256;
	d->ctx = rk_open_device(&dev_ops, d, &attr);
	d->pd = d->ctx != NULL ? rk_alloc_pd(d->ctx) : NULL;
	if (d->pd == NULL) {
		fprintf(out, "Port %u: cannot open a verbs device: %s\n", port, strerror(errno));
		if (d->ctx != NULL)
			rk_close_device(d->ctx);
		free(d);
		return NULL;
	}
	fprintf(out, "Port %u: verbs device opened, MAC %02x:%02x:%02x:%02x:%02x:%02x, "
		"IPv4 %u.%u.%u.%u, active MTU %u\n", port, d->mac[0], d->mac[1], d->mac[2], d->mac[3],
		d->mac[4], d->mac[5], d->ip[0], d->ip[1], d->ip[2], d->ip[3],
		256u << (attr.active_mtu - 1));
	devs[port] = d;
	return d;
}

void
rk_tp_rdma_feed(uint16_t port, struct rte_mbuf **m, uint16_t n)
{
	struct rk_tp_rdma_dev *d;

	rte_ticketlock_lock(&rk_tp_rdma_lock);
	d = devs[port];
	if (d == NULL) {
		rk_tp_rdma_no_dev[port] += n;
		rte_pktmbuf_free_bulk(m, n);
		rte_ticketlock_unlock(&rk_tp_rdma_lock);
		return;
	}
	for (uint16_t i = 0; i < n; i++) {
		if (d->rx_count == RK_TP_RDMA_RXQ) {
			d->rx_overflow++;
			rte_pktmbuf_free(m[i]);
			continue;
		}
		d->rxq[(d->rx_head + d->rx_count) % RK_TP_RDMA_RXQ] = m[i];
		d->rx_count++;
		d->rx_fed++;
	}
	rk_progress(d->ctx);
	rte_ticketlock_unlock(&rk_tp_rdma_lock);
}

enum rk_mtu
rk_tp_rdma_path_mtu(uint16_t port)
{
	uint32_t ip_mtu = rk_tp.ports[port].mtu;
	uint32_t room = rte_pktmbuf_data_room_size(rk_tp.pool) - RTE_PKTMBUF_HEADROOM;
	enum rk_mtu m = RK_MTU_4096;

	for (; m > RK_MTU_256; m--) {
		uint32_t bytes = 128u << m;

		if (bytes + RK_ROCE_HDR_RESERVE <= ip_mtu &&
		    (rk_tp.ports[port].multi_seg || bytes + RK_ROCE_HDR_RESERVE + 14 <= room))
			break;
	}
	return m;
}

void
rk_tp_rdma_show(FILE *out, uint16_t port)
{
	struct rk_counter c[64];
	struct rk_tp_rdma_dev *d;
	unsigned int n;

	rte_ticketlock_lock(&rk_tp_rdma_lock);
	d = devs[port];
	if (d == NULL) {
		fprintf(out, "Port %u: no verbs device (\"mr reg\" or \"qp create\" opens one); "
			"%" PRIu64 " frame(s) the rdma engine freed for want of one\n", port,
			rk_tp_rdma_no_dev[port]);
		rte_ticketlock_unlock(&rk_tp_rdma_lock);
		return;
	}
	fprintf(out, "Port %u: verbs device, MAC %02x:%02x:%02x:%02x:%02x:%02x, IPv4 %u.%u.%u.%u, "
		"path MTU %u\n", port, d->mac[0], d->mac[1], d->mac[2], d->mac[3], d->mac[4],
		d->mac[5], d->ip[0], d->ip[1], d->ip[2], d->ip[3], 128u << rk_tp_rdma_path_mtu(port));
	fprintf(out, "  frames handed to the device %" PRIu64 ", freed: queue full %" PRIu64
		", too long %" PRIu64 "; sent %" PRIu64 ", TX dropped %" PRIu64 "; ARP requests "
		"answered %" PRIu64 "; CM MADs no connect waited for %" PRIu64 "\n", d->rx_fed,
		d->rx_overflow, d->rx_too_long, d->tx_sent, d->tx_dropped, d->arp_answered,
		d->cm_unclaimed);
	n = rk_counters_from_stats(rk_context_stats(d->ctx), c, RTE_DIM(c));
	for (unsigned int i = 0; i < n; i++)
		fprintf(out, "  %-28s %" PRIu64 "\n", c[i].name, c[i].value);
	rte_ticketlock_unlock(&rk_tp_rdma_lock);
}

void
rk_tp_rdma_close_all(void)
{
	rte_ticketlock_lock(&rk_tp_rdma_lock);
	for (unsigned int p = 0; p < RK_TP_MAX_PORTS; p++) {
		struct rk_tp_rdma_dev *d = devs[p];

		if (d == NULL)
			continue;
		dev_flush(d);
		rk_dealloc_pd(d->pd);
		rk_close_device(d->ctx);
		while (d->rx_count > 0) {
			rte_pktmbuf_free(d->rxq[d->rx_head]);
			d->rx_head = (d->rx_head + 1) % RK_TP_RDMA_RXQ;
			d->rx_count--;
		}
		free(d);
		devs[p] = NULL;
	}
	rte_ticketlock_unlock(&rk_tp_rdma_lock);
}

int
rk_tp_rdma_arp_send(struct rk_tp_rdma_dev *d, uint16_t op, const uint8_t dmac[6],
		    const uint8_t tmac[6], const uint8_t tip[4])
{
	uint8_t f[RK_TP_ARP_FRAME];

	memcpy(f, dmac, 6);
	memcpy(f + 6, d->mac, 6);
	rk_put_be16(f + 12, RK_TP_ETH_ARP);
	rk_put_be16(f + 14, 1);         /* Ethernet */
	rk_put_be16(f + 16, 0x0800);    /* IPv4 */
	f[18] = 6;
	f[19] = 4;
	rk_put_be16(f + 20, op);
	memcpy(f + 22, d->mac, 6);
	memcpy(f + 28, d->ip, 4);
	memcpy(f + 32, tmac, 6);
	memcpy(f + 38, tip, 4);
	return rk_tp_resp_tx(d->port, f, sizeof(f));
}

bool
rk_tp_arp_ok(const uint8_t *f, uint32_t len)
{
	return len >= RK_TP_ARP_FRAME && rk_get_be16(f + 12) == RK_TP_ETH_ARP &&
	       rk_get_be16(f + 14) == 1 && rk_get_be16(f + 16) == 0x0800 && f[18] == 6 &&
	       f[19] == 4;
}

bool
rk_tp_rdma_arp_answer(uint16_t port, const uint8_t *f, uint32_t len)
{
	struct rk_tp_rdma_dev *d = rk_tp_rdma_dev(port, false, NULL);

	if (d == NULL || !rk_tp_arp_ok(f, len) || rk_get_be16(f + 20) != 1 ||
	    memcmp(f + 38, d->ip, 4) != 0 || rk_tp_rdma_arp_send(d, 2, f + 22, f + 22, f + 28) != 0)
		return false;
	d->arp_answered++;
	return true;
}

bool
rk_tp_cmq_put(struct rk_tp_cmq *q, const uint8_t *f, uint32_t len)
{
	uint8_t mad[RK_MAD_LEN], ip[4];

	if (!rk_app_cm_frame_mad(f, len, mad, ip))
		return false;
	if (q->head - q->tail >= RK_TP_CMQ) {
		q->dropped++;
		return true;
	}
	memcpy(q->mad[q->head % RK_TP_CMQ], mad, RK_MAD_LEN);
	memcpy(q->src_ip[q->head % RK_TP_CMQ], ip, 4);
	q->head++;
	q->mads++;
	return true;
}

unsigned int
rk_tp_cmq_take(struct rk_tp_cmq *q, uint8_t (*mad)[RK_MAD_LEN], uint8_t (*ip)[4],
	       unsigned int max)
{
	unsigned int n = 0;

	for (; q->tail != q->head && n < max; q->tail++, n++) {
		memcpy(mad[n], q->mad[q->tail % RK_TP_CMQ], RK_MAD_LEN);
		memcpy(ip[n], q->src_ip[q->tail % RK_TP_CMQ], 4);
	}
	return n;
}

static struct rk_tp_cmq *claims[RK_TP_MAX_PORTS];

bool
rk_tp_rdma_cm_claim(uint16_t port, struct rk_tp_cmq *q)
{
	if (q != NULL && claims[port] != NULL && claims[port] != q)
		return false;
	claims[port] = q;
	return true;
}

bool
rk_tp_rdma_cm_mad(uint16_t port, const uint8_t *f, uint32_t len)
{
	struct rk_tp_rdma_dev *d;
	uint8_t mad[RK_MAD_LEN], ip[4];

	if (claims[port] != NULL)
		return rk_tp_cmq_put(claims[port], f, len);
	if (!rk_app_cm_frame_mad(f, len, mad, ip))
		return false;
	d = devs[port];
	if (d != NULL)
		d->cm_unclaimed++;
	return true;
}
