/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file dut_iwarp.h
 * A live iWARP DUT's listener, for the iw.* cases: each case opens a TCP
 * connection of its own (Debian's lwIP on the DPDK port, rk_io_lwip.h) to
 * the port where an rdma_cm application listens (Linux siw: `rping -s`
 * in a loop), and the case itself is the MPA Initiator on it (RFC 5044
 * 7.1; over iWARP, rdma_connect() is a TCP connect plus the MPA Request,
 * so the DUT's rdma_cm takes our connection as a client's).
 *
 * What an rping server's QP holds (rdma-core's rping.c): one receive of
 * 16 bytes posted before it accepts (the client's buffer address, STag
 * and length), and no region the client may read or write (rping
 * advertises its buffers only after the client's message). So the cases
 * that need a region (tagged Writes and Reads within bounds) or a QP
 * without receives are not applicable; the MPA cases and the error cases
 * that need no valid STag run.
 */
#ifndef RK_CONFORM_DUT_IWARP_H
#define RK_CONFORM_DUT_IWARP_H

#include <stddef.h>
#include <stdint.h>

#include "rk_conform.h"
#include "rk_io_dpdk.h"

struct rk_ciw_cfg {
	const char *dut_ip;             /**< the listener's IPv4 address, dotted quad */
	uint16_t port;                  /**< its TCP port */
	const char *ip;                 /**< ours: the port's cfg.ip */
	double connect_timeout_s;       /**< per case: a listener away (restarting) retried this long */
};

struct rk_ciw;

/**
 * Attach lwIP to port @p io (opened with cfg.ip = @p cfg->ip) and show
 * each case's TCP frames to @p env->on_frame (those of the case's
 * connection only). @return the adapter, or NULL with @p err filled.
 */
struct rk_ciw *rk_ciw_create(const struct rk_ciw_cfg *cfg, struct rk_io_dpdk *io,
			     struct rk_conform_env *env, char *err, size_t err_len);

/**
 * A fresh connection for an iWARP case: connected, MPA not started.
 * @return 0; -ENOTSUP with @p why when the listener's QP cannot give what
 *         @p need asks (a region, no receive, more than one receive);
 *         -ETIMEDOUT with @p why when no connection was made within the
 *         connect timeout.
 */
int rk_ciw_setup(struct rk_ciw *w, const struct rk_conform_need *need,
		 struct rk_conform_dut *dut, char *why, size_t why_len);

/** Close the case's connection (FIN), if any. */
void rk_ciw_teardown(struct rk_ciw *w);

/** rk_conform_stream_ops.write: all @p n bytes, or a negative errno. */
int rk_ciw_write(struct rk_ciw *w, const uint8_t *b, size_t n);

/** rk_conform_stream_ops.read: bytes, 0 when none now, -ECONNRESET once closed. */
int rk_ciw_read(struct rk_ciw *w, uint8_t *b, size_t cap);

void rk_ciw_destroy(struct rk_ciw *w);

#endif /* RK_CONFORM_DUT_IWARP_H */
