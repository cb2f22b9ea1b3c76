/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_sim_wl.h
 * A checked workload between two RC QPs over a simulated link: random
 * operations of every opcode, sizes from 0 to max_size, posted by QP A to
 * QP B. Every completion is checked (status, opcode, order, length), every
 * received message and READ result is compared with what was sent, and at
 * the end every byte of B's target region is compared with a model of what
 * the operations should have left there. Target and receive buffers sit
 * between PROT_NONE guard pages, so a stray write outside them faults.
 */
#ifndef RK_SIM_WL_H
#define RK_SIM_WL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rk_sim.h"

/** Operations of the workload (bits of rk_sim_wl_cfg.opmask). */
enum rk_sim_op {
	RK_SIM_SEND,
	RK_SIM_SEND_IMM,
	RK_SIM_WRITE,
	RK_SIM_WRITE_IMM,
	RK_SIM_READ,
	RK_SIM_CMP_SWP,
	RK_SIM_FETCH_ADD,
	RK_SIM_OP_COUNT
};

/** Name of an operation ("SEND", "WRITE_IMM", ...). */
const char *rk_sim_op_name(enum rk_sim_op op);

/** Called once per completion at A when verbose logging is wanted. */
typedef void (*rk_sim_log_fn)(void *ctx, const char *line);

struct rk_sim_wl_cfg {
	uint64_t seed;
	uint32_t ops;                   /**< operations to complete */
	uint32_t max_size;              /**< largest message, bytes (<= 1 GiB) */
	uint32_t opmask;                /**< 1 << enum rk_sim_op; 0 = all */
	enum rk_mtu mtu;                /**< 0: 1024 */
	uint32_t depth;                 /**< outstanding WRs; 0: 16 */
	struct rk_sim_impair impair;    /**< both directions, unless split_impair */
	bool split_impair;              /**< impair for A->B (requests) only ... */
	struct rk_sim_impair impair_b2a; /**< ... and this for B->A (responses, ACKs) */
	bool fixed_size;                /**< every operation max_size bytes (atomics 8) */
	uint32_t max_queue;             /**< link frames queued per direction; 0: 65536 */
	bool paced;                     /**< endpoints send at impair.rate_bps, as an HCA does */
	uint8_t timeout;                /**< 0: 12 (16.8 ms) */
	uint8_t retry_cnt;              /**< 0: 7 */
	uint8_t max_rd_atomic;          /**< 0: 8 */
	uint32_t window;                /**< requester window, PSNs; 0: 256 */
	/** Loss recovery of both QPs (rk_ib_qp_set_recovery): "gbn", "sr"; NULL: gbn. */
	const char *recovery;
	/** With "sr": rk_ib_qp_set_rto_low(rto_low_ns, rto_low_n) on both; else IRN's. */
	bool set_rto_low;
	uint64_t rto_low_ns;
	uint32_t rto_low_n;
	uint64_t max_virtual_ns;        /**< give up after; 0: 3600 s */
	uint8_t ip_version;             /**< 4 (10.0.0.1/2) or 6 (2001:2::1/2); 0: 4 */
	bool large_sizes;               /**< uniform 0..max_size instead of mostly small */
	/**
	 * After a RETRY_EXC_ERR completion, do what a connected application
	 * does: drain the link, move both QPs through ERR and RESET back to
	 * RTS with fresh PSNs, re-post the receives, and go on. The failed
	 * operation and those flushed behind it may or may not have taken
	 * effect at B (their responses were lost, not their requests): their target bytes are adopted into the
	 * model, every other byte is still checked, and they are counted in
	 * rk_sim_wl_result.ops_lost instead of failing the run. Any other
	 * error status still fails it.
	 */
	bool recover;
	uint32_t max_reconnects;        /**< fail after this many; 0: 64 */
	rk_sim_tap_fn tap;              /**< frames sent, e.g. to a pcap writer */
	void *tap_ctx;
	rk_sim_tap_fn rx_tap;           /**< frames delivered (after impairment) */
	void *rx_tap_ctx;
	rk_sim_drop_fn drop;            /**< frames a test loses (rk_sim_link_cfg.drop) */
	void *drop_ctx;
	rk_sim_log_fn log;
	void *log_ctx;
};

/** Buckets of rk_sim_wl_result.lat_hist: up to 2^63 ns. */
#define RK_SIM_LAT_BUCKETS (32 * 60)

struct rk_sim_wl_result {
	uint64_t completed;             /**< send completions checked */
	uint64_t recv_completed;
	uint64_t per_op[RK_SIM_OP_COUNT];  /**< completed operations of each kind */
	uint64_t payload_bytes;         /**< bytes the completed operations moved */
	/**
	 * Virtual time from post to completion of each completed operation:
	 * exact below 32 ns, else in buckets of 1/32 of a power of two (read
	 * with rk_sim_wl_latency()); the largest exactly.
	 */
	uint64_t lat_hist[RK_SIM_LAT_BUCKETS];
	uint64_t lat_max_ns;
	uint64_t bytes_verified;        /**< bytes compared (messages, READs, region) */
	uint64_t errors;
	uint64_t reconnects;            /**< recoveries from RETRY_EXC_ERR (cfg.recover) */
	uint64_t ops_lost;              /**< operations that ended in RETRY_EXC_ERR or a flush */
	char first_error[200];
	uint64_t virtual_ns;            /**< simulated time taken */
	struct rk_sim_link_stats link[2];
	struct rk_ib_stats stats[2];    /**< A's and B's transport counters */
	size_t qp_state_bytes;
};

/**
 * Bytes of buffers a run of @p cfg maps and may use: at A a buffer of
 * max_size per operation that can be outstanding (depth, or ops if fewer),
 * at B as many receive buffers when SENDs are in the mix, and the target
 * region of 2 x max_size + 64 KiB and its model. Frames on the link (at
 * most max_queue per direction) are not counted.
 */
size_t rk_sim_wl_mem_need(const struct rk_sim_wl_cfg *cfg);

/**
 * The @p q quantile (0..1; 0.5 the median, 1 the largest) of the
 * operations' latencies in @p r, in ns: the upper bound of the histogram
 * bucket that holds it (at most 1/32 above), never above the largest.
 * 0 when no operation completed.
 */
uint64_t rk_sim_wl_latency(const struct rk_sim_wl_result *r, double q);

/**
 * Run the workload to completion or first error.
 * @return 0 when every check passed, -EIO on a failed check (details in
 *         @p res), -ETIMEDOUT when max_virtual_ns passed, -EINVAL, -ENOMEM.
 */
int rk_sim_wl_run(const struct rk_sim_wl_cfg *cfg, struct rk_sim_wl_result *res);

#endif /* RK_SIM_WL_H */
