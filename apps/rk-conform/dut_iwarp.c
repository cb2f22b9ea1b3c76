/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A live iWARP DUT's rping listener for the iw.* cases (see dut_iwarp.h):
 * a TCP connection per case over lwIP on the DPDK port.
 */
#include "dut_iwarp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rk_app.h"
#include "rk_byteorder.h"
#include "rk_io_lwip.h"
#include "rk_tcp_lwip.h"

/* rping's server: one receive of struct rping_rdma_info (rdma-core rping.c). */
#define RPING_RECVS 1u
#define RPING_RECV_LEN 16u
#define RETRY_NS 200000000ull   /* a refused connect again after 200 ms */
#define WRITE_WAIT_NS 2000000000ull
/* after the MPA Reply: rping's process takes ESTABLISHED (rk_conform_env.iw_settle_ns) */
#define SETTLE_NS 100000000ull

struct rk_ciw {
	struct rk_ciw_cfg cfg;
	struct rk_io_dpdk *io;
	struct rk_io_lwip *lw;
	struct rk_conform_env *env;
	struct rk_tcp *t;               /* the running case's connection, or NULL */
	uint16_t local_port;            /* its port: the frames a case's pcap keeps */
	uint16_t next_port;             /* the next case's */
};

static uint64_t
now_ns(const struct rk_ciw *w)
{
	return w->env->ops->now_ns(w->env->io);
}

/* The case's frames only: a previous connection may still be closing. */
static void
tap(void *ctx, bool tx, const uint8_t *f, uint32_t len)
{
	struct rk_ciw *w = ctx;
	uint32_t ihl;
	uint16_t ours;

	if (w->local_port == 0 || w->env->on_frame == NULL || len < 14 + 20 ||
	    rk_get_be16(f + 12) != 0x0800 || f[14 + 9] != 6)
		return;
	ihl = (uint32_t)(f[14] & 0x0f) * 4;
	if (ihl < 20 || len < 14 + ihl + 4)
		return;
	ours = rk_get_be16(f + 14 + ihl + (tx ? 0 : 2));
	if (ours == w->local_port)
		w->env->on_frame(w->env->frame_ctx, tx, f, len, now_ns(w));
}

struct rk_ciw *
rk_ciw_create(const struct rk_ciw_cfg *cfg, struct rk_io_dpdk *io, struct rk_conform_env *env,
	      char *err, size_t err_len)
{
	struct rk_ciw *w = calloc(1, sizeof(*w));

	if (w == NULL) {
		snprintf(err, err_len, "out of memory");
		return NULL;
	}
	w->cfg = *cfg;
	w->io = io;
	w->next_port = (uint16_t)(49152 + (uint64_t)rk_io_dpdk_now_ns() % 16000);
	w->env = env;
	/* every address on the link: the DUT is a neighbour, never behind a gateway */
	w->lw = rk_io_lwip_attach(io, cfg->ip, "0.0.0.0");
	if (w->lw == NULL) {
		snprintf(err, err_len, "cannot put lwIP on the port (%s): %s", cfg->ip,
			 strerror(errno));
		free(w);
		return NULL;
	}
	rk_io_lwip_set_tap(w->lw, tap, w);
	env->iw_settle_ns = SETTLE_NS;
	return w;
}

void
rk_ciw_teardown(struct rk_ciw *w)
{
	if (w == NULL || w->t == NULL)
		return;
	w->t->ops->close(w->t);
	w->t = NULL;
	/* the FIN goes out now, in the case's pcap, not with the next case's frames */
	rk_io_lwip_poll(w->lw);
	w->local_port = 0;
}

/* One connection attempt until established (1), refused or failed (0), or @p end (-1). */
static int
connect_once(struct rk_ciw *w, uint64_t end, struct rk_tcp_lwip_info *info)
{
	uint8_t none;

	/* a port of our own per connection, never one of an earlier run's */
	w->next_port = w->next_port >= 65535 ? 49152 : w->next_port + 1;
	w->t = rk_tcp_lwip_connect_from(w->cfg.dut_ip, w->cfg.port, w->next_port);
	if (w->t == NULL)
		return 0;
	/* bound now: the case's pcap starts with its SYN */
	if (rk_tcp_lwip_info(w->t, info) == 0)
		w->local_port = info->local_port;
	for (;;) {
		int work = rk_io_lwip_poll(w->lw);

		if (rk_tcp_lwip_info(w->t, info) != 0 || w->t->ops->recv(w->t, &none, 0) < 0)
			break;
		if (info->established)
			return 1;
		if (rk_app_stop || now_ns(w) >= end) {
			rk_ciw_teardown(w);
			return -1;
		}
		rk_io_dpdk_idle(w->io, work);
	}
	rk_ciw_teardown(w);
	return 0;
}

int
rk_ciw_setup(struct rk_ciw *w, const struct rk_conform_need *need, struct rk_conform_dut *dut,
	     char *why, size_t why_len)
{
	uint64_t end = now_ns(w) + (uint64_t)(w->cfg.connect_timeout_s * 1e9);
	struct rk_tcp_lwip_info info;
	int rc;

	rk_ciw_teardown(w);
	if (need->access & RK_CONFORM_ACC_ALL) {
		snprintf(why, why_len, "rping's server offers the client no region");
		return -ENOTSUP;
	}
	if (need->access & RK_CONFORM_ACC_NO_RECV) {
		snprintf(why, why_len, "rping's server has a receive posted on its QP");
		return -ENOTSUP;
	}
	if (need->recvs > RPING_RECVS) {
		snprintf(why, why_len, "rping's server posts %u receive, %u asked", RPING_RECVS,
			 need->recvs);
		return -ENOTSUP;
	}
	while ((rc = connect_once(w, end, &info)) == 0) {
		uint64_t again = now_ns(w) + RETRY_NS;

		/* the server is between two runs of its loop: wait, keep the port served */
		while (now_ns(w) < again && now_ns(w) < end && !rk_app_stop)
			rk_io_dpdk_idle(w->io, rk_io_lwip_poll(w->lw));
		if (now_ns(w) >= end || rk_app_stop) {
			rc = -1;
			break;
		}
	}
	if (rc < 0) {
		snprintf(why, why_len, "no TCP connection to %s:%u within %.0f s", w->cfg.dut_ip,
			 w->cfg.port, w->cfg.connect_timeout_s);
		return -ETIMEDOUT;
	}
	*dut = (struct rk_conform_dut){
		.recv_len = RPING_RECV_LEN, .min_rnr_timer = 0xff,
		.isn = info.snd_nxt, .dut_isn = info.rcv_nxt,
		/* Linux siw takes peer-to-peer RTR; rtr_wrong checks the Reply */
		.p2p = true,
	};
	return 0;
}

int
rk_ciw_write(struct rk_ciw *w, const uint8_t *b, size_t n)
{
	uint64_t end = now_ns(w) + WRITE_WAIT_NS;
	size_t done = 0;

	if (w->t == NULL)
		return -ENOTCONN;
	while (done < n) {
		long k = w->t->ops->send(w->t, b + done, n - done);

		if (k < 0)
			return k == -EPIPE ? -ECONNRESET : (int)k;
		done += (size_t)k;
		rk_io_lwip_poll(w->lw);
		if (done < n && now_ns(w) >= end)
			return -ETIMEDOUT;
	}
	return 0;
}

int
rk_ciw_read(struct rk_ciw *w, uint8_t *b, size_t cap)
{
	long k;

	if (w->t == NULL)
		return -ENOTCONN;
	rk_io_lwip_poll(w->lw);
	k = w->t->ops->recv(w->t, b, cap);
	if (k < 0)
		return k == -EPIPE ? -ECONNRESET : (int)k;
	return (int)k;
}

void
rk_ciw_destroy(struct rk_ciw *w)
{
	if (w == NULL)
		return;
	rk_ciw_teardown(w);
	rk_io_lwip_set_tap(w->lw, NULL, NULL);
	rk_io_lwip_detach(w->lw);
	free(w);
}
