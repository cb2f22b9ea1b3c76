/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counter table of the DPDK port (lib/common/rk_xstats.h): the port's
 * struct rk_io_dpdk_stats with the driver's TX errors beside it, named as
 * IB port counters (perfquery) first, then the backend's own.
 */
#ifndef RK_IO_XSTATS_H
#define RK_IO_XSTATS_H

#include <stdint.h>

#include "rk_io_dpdk.h"
#include "rk_xstats.h"

/** What rk_io_port_xstats reads: the port counters and the driver's TX errors. */
struct rk_io_port_xstats {
	struct rk_io_dpdk_stats st;
	uint64_t driver_tx_errors;      /**< frames the driver took and dropped (oerrors) */
	uint64_t pcap_frames;           /**< frames recorded (--pcap) */
	uint64_t pcap_waits;            /**< recording buffers that waited for the disk */
};

extern const struct rk_xstat_table rk_io_port_xstats;

#endif /* RK_IO_XSTATS_H */
