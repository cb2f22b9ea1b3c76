/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_app_rdma.h
 * What the apps share on the RDMA side: the EAL and the port with their
 * error messages, the release of verbs objects, and an iWARP QP's byte
 * stream over an rk_tcp connection.
 */
#ifndef RK_APP_RDMA_H
#define RK_APP_RDMA_H

#include "rk_io_dpdk.h"
#include "rk_verbs.h"

/**
 * The start of an app's main: rk_io_dpdk_split_args() of @p argv into
 * @p args, @p parse(@p arg, ...) of the app's part, then catch SIGINT and
 * SIGTERM (rk_app_signals()), seed rand() and lrand48() from the PID and
 * the time, and set a 1 us timer slack (sleeps as short as asked, not
 * 50 us later).
 * @return 0, or parse's non-zero exit status (then nothing else is done)
 */
int rk_app_start(const char *prog, int argc, char **argv, struct rk_io_dpdk_args *args,
		 int (*parse)(void *arg, int argc, char **argv), void *arg);
/**
 * rk_io_dpdk_eal_init() on the EAL part of @p args; on failure says why on
 * stderr as "PROG: DPDK EAL initialisation failed: reason".
 * @return 0, or the exit status: 2 for EAL options in error, else 1
 */
int rk_app_eal_init(const char *prog, const struct rk_io_dpdk_args *args);
/**
 * rk_io_dpdk_open(@p cfg); on failure says why on stderr ("PROG: error:
 * interrupted: port P was still waiting for its peer" or "PROG: cannot
 * open port P: reason"), errno kept. @return the port or NULL
 */
struct rk_io_dpdk *rk_app_port_open(const char *prog, const struct rk_io_dpdk_cfg *cfg);
/**
 * rk_io_dpdk_close(@p io); when the recording @p pcap_path could not be
 * completed, says so ("PROG: error: the recording PATH is incomplete").
 * @return 0, or 1 (the exit status) for an incomplete recording
 */
int rk_app_port_close(const char *prog, struct rk_io_dpdk *io, const char *pcap_path);
/**
 * Whether @p io carries the largest RoCEv2 frame of a QP with path MTU
 * @p mtu bytes: Ethernet (14 bytes), the RK_ROCE_HDR_RESERVE (80) bytes
 * of headers rk_modify_qp() reserves, as rxe does, and @p mtu bytes of
 * payload (net_af_packet drops a larger frame without an error).
 * @p mtu_opt names the app's option that set @p mtu ("-m", "--mtu").
 * @return 0, or -1 with "frames of N bytes (MTU_OPT MTU): why" in @p msg
 */
int rk_app_roce_frame_check(struct rk_io_dpdk *io, uint32_t mtu, const char *mtu_opt, char *msg,
			    size_t len);

/** Verbs objects to release; NULL entries are skipped. */
struct rk_app_verbs_objs {
	struct rk_qp *qp[4];
	struct rk_ah *ah;
	struct rk_mr *mr[6];
	struct rk_cq *cq[4];
	struct rk_pd *pd;
};

/** Destroy the QPs, then the AH, deregister the MRs, destroy the CQs, then the PD. */
void rk_app_release(const struct rk_app_verbs_objs *o);

/** Stream ops (rk_open_device_iwarp()) whose stream argument is a struct rk_tcp *. */
extern const struct rk_stream_ops rk_app_tcp_stream_ops;

#endif /* RK_APP_RDMA_H */
