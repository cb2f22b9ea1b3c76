/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lwIP on a DPDK port: the port's frame hook feeds lwIP's netif, lwIP's
 * queued frames go out with rk_io_dpdk_tx_raw(). See rk_io_lwip.h.
 */
#include "rk_io_lwip.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include "rk_tcp_lwip.h"

#define TX_BUDGET 256           /* lwIP frames per poll */
#define RX_ROUNDS 4             /* port reads per poll while frames come */

struct rk_io_lwip {
	struct rk_io_dpdk *io;
	struct rk_lwip_if *nif;
	struct rk_io_lwip_stats st;
	rk_io_lwip_tap_fn tap;
	void *tap_ctx;
	uint8_t buf[RK_IB_MAX_FRAME + 256];     /* RoCEv2 frames read, dropped */
};

static bool attached;

static void
to_port(void *ctx, const uint8_t *frame, uint32_t len)
{
	struct rk_io_lwip *l = ctx;

	if (l->tap != NULL)
		l->tap(l->tap_ctx, true, frame, len);
	if (rk_io_dpdk_tx_raw(l->io, frame, len) == 0)
		l->st.tx_frames++;
	else
		l->st.tx_errors++;
}

static void
to_lwip(void *ctx, const uint8_t *frame, uint32_t len)
{
	struct rk_io_lwip *l = ctx;

	l->st.rx_frames++;
	if (l->tap != NULL)
		l->tap(l->tap_ctx, false, frame, len);
	rk_lwip_if_input(l->nif, frame, len);
}

struct rk_io_lwip *
rk_io_lwip_attach_mtu(struct rk_io_dpdk *io, const char *ip, const char *netmask, uint16_t mtu)
{
	struct rk_lwip_if_attr a = { 0 };
	struct rk_io_lwip *l;
	struct in_addr in, mask;
	uint8_t pip[4];

	if (io == NULL || ip == NULL || netmask == NULL || inet_pton(AF_INET, ip, &in) != 1 ||
	    inet_pton(AF_INET, netmask, &mask) != 1 || (mtu != 0 && mtu < 576)) {
		errno = EINVAL;
		return NULL;
	}
	if (rk_io_dpdk_ip4(io, pip) != 0 || memcmp(pip, &in, 4) != 0) {
		errno = EADDRNOTAVAIL;
		return NULL;
	}
	if (attached) {
		errno = EBUSY;
		return NULL;
	}
	l = calloc(1, sizeof(*l));
	if (l == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	l->io = io;
	rk_io_dpdk_mac(io, a.mac);
	a.ip = ip;
	a.netmask = netmask;
	a.mtu = mtu == 0 || mtu > 1500 ? 1500 : mtu;
	a.tx = to_port;
	a.tx_ctx = l;
	rk_lwip_init();
	l->nif = rk_lwip_if_add(&a);
	if (l->nif == NULL) {
		int e = errno;

		free(l);
		errno = e != 0 ? e : ENOMEM;
		return NULL;
	}
	rk_io_dpdk_set_frame_hook(io, to_lwip, l);
	attached = true;
	return l;
}

void
rk_io_lwip_set_tap(struct rk_io_lwip *l, rk_io_lwip_tap_fn fn, void *ctx)
{
	if (l == NULL)
		return;
	l->tap = fn;
	l->tap_ctx = ctx;
}

struct rk_io_lwip *
rk_io_lwip_attach(struct rk_io_dpdk *io, const char *ip, const char *netmask)
{
	return rk_io_lwip_attach_mtu(io, ip, netmask, 0);
}

int
rk_io_lwip_poll(struct rk_io_lwip *l)
{
	uint64_t before = l->st.rx_frames;
	unsigned int out;

	/*
	 * rx() hands every frame but RoCEv2 to the hook; it returns after a
	 * burst, so read again while frames keep coming.
	 */
	for (int i = 0; i < RX_ROUNDS; i++) {
		uint64_t seen = l->st.rx_frames;
		int n = rk_io_dpdk_ops.rx(l->io, l->buf, sizeof(l->buf));

		if (n > 0)
			l->st.rx_roce_dropped++;
		else if (l->st.rx_frames == seen)
			break;
	}
	out = rk_lwip_if_poll(l->nif, TX_BUDGET);
	rk_io_dpdk_ops.flush(l->io);
	return (int)(l->st.rx_frames - before + out);
}

const struct rk_io_lwip_stats *
rk_io_lwip_stats(const struct rk_io_lwip *l)
{
	return &l->st;
}

void
rk_io_lwip_detach(struct rk_io_lwip *l)
{
	if (l == NULL)
		return;
	rk_io_dpdk_set_frame_hook(l->io, NULL, NULL);
	rk_lwip_if_remove(l->nif);
	free(l);
	attached = false;
}
