/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file dut_perftest.h
 * A live DUT behind a DPDK port, reached through its perftest bw servers
 * (ib_write_bw, ib_read_bw, ib_send_bw, ib_atomic_bw, or rk-testpmd's
 * responder engine, which answers them all). Each case connects anew to
 * the server of the verb it needs, runs perftest's TCP exchange as the
 * client (rk_app_perftest.h: preamble, keys, barriers), so the DUT's RC QP
 * expects our PSN 0xFFFFFE, then the case sends its crafted frames and the
 * connection is closed. A Linux server exits then; run it in a loop.
 *
 * The region a perftest server offers (perftest 4.5 to 6.x, one QP, -s
 * SIZE): from the advertised VA, max(SIZE, 4096) rounded up to 64 bytes,
 * with the access of its verb only, in its region and in its QP's access
 * flags (write_bw: remote write, read_bw: remote read, atomic_bw: atomics;
 * send_bw: none, but receives of SIZE bytes posted); rk-testpmd's responder answers all four with one region
 * allowing all three (rk_cpt_cfg.one_server). Its QP's minimum RNR timer is perftest's 12 (0.64 ms,
 * IBTA Vol1 9.7.5.2.8) unless said otherwise.
 */
#ifndef RK_CONFORM_DUT_PERFTEST_H
#define RK_CONFORM_DUT_PERFTEST_H

#include <stdbool.h>
#include <stdint.h>

#include "rk_conform.h"
#include "rk_io_dpdk.h"

/** The verbs a perftest server serves, one TCP port each. */
enum rk_cpt_verb { RK_CPT_WRITE = 0, RK_CPT_READ, RK_CPT_SEND, RK_CPT_ATOMIC, RK_CPT_VERBS };

struct rk_cpt_cfg {
	const char *server;             /**< the servers' host (name or address) */
	uint16_t tcp_port[RK_CPT_VERBS]; /**< per verb; 0: no server for it */
	/**
	 * One server answers every verb (rk-testpmd's responder engine): its
	 * region allows remote write, read and atomics, and its QP has
	 * receives of @p size bytes posted.
	 */
	bool one_server;
	uint32_t size;                  /**< the servers' -s, bytes (>= 8) */
	uint32_t mtu;                   /**< our path MTU, 256..4096 */
	/**
	 * The largest path MTU the port's frames carry (0: mtu). A case
	 * that asks for its own path MTU (rk_conform_need.pmtu: a replay
	 * offers its recording's) gets it offered, up to this, unless
	 * @p mtu_fixed (the user's --mtu).
	 */
	uint32_t mtu_max;
	bool mtu_fixed;
	uint8_t min_rnr_timer;          /**< the DUT's, encoded; 0xff: unknown */
	uint8_t ip[4];                  /**< our IPv4 address (the port's) */
	/**
	 * The DUT's RDMA-CM listener (TCP port of its RDMA-CM ServiceID) and
	 * its RoCE address: a RK_CONFORM_CM case gets no QP from setup(), its
	 * REQs go there and the CM connects a QP of the DUT's choosing.
	 * 0: no listener.
	 */
	uint16_t cm_port;
	uint8_t dut_ip[4];
	double connect_timeout_s;       /**< per case: the server must listen by then */
};

struct rk_cpt;

/**
 * Fill @p env to reach the DUT through port @p io (opened with @p cfg->ip):
 * ops, setup, teardown, our MAC and IP; the DUT's IP and MAC are learnt
 * from each exchange (its GID) and ARP.
 * @return the adapter, or NULL (out of memory)
 */
struct rk_cpt *rk_cpt_create(const struct rk_cpt_cfg *cfg, struct rk_io_dpdk *io,
			     struct rk_conform_env *env);

/** Frames of other QPs (a previous case's DUT) dropped so far. */
uint64_t rk_cpt_foreign_frames(const struct rk_cpt *p);

struct rk_ciw;

/**
 * iWARP cases through @p w (dut_iwarp.h): their setup, teardown and the
 * stream of @p p's environment; @p p owns @p w from now on.
 */
void rk_cpt_attach_iwarp(struct rk_cpt *p, struct rk_ciw *w);

/** Close the running case's connection; free @p p (and its iWARP listener's adapter). */
void rk_cpt_destroy(struct rk_cpt *p);

#endif /* RK_CONFORM_DUT_PERFTEST_H */
