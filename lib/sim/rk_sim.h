/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_sim.h
 * Deterministic in-memory link between two endpoints, on a virtual clock:
 * seeded loss, burst loss, strictly periodic loss, reordering,
 * duplication, corruption (a flipped byte: bad ICRC), delay, jitter, rate
 * and an MTU. Same seed, same configuration, same sequence of sends: same
 * deliveries, bit for bit.
 *
 * Direction 0 carries frames from endpoint 0 to endpoint 1, direction 1
 * the reverse. rk_sim_io_ops makes an endpoint an rk_io_ops backend.
 * Not thread-safe; allocation happens per frame (test infrastructure).
 */
#ifndef RK_SIM_H
#define RK_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "rk_verbs.h"

/** Impairments of one direction. Probabilities are per frame, 0..1. */
struct rk_sim_impair {
	double loss;            /**< a frame is lost */
	double burst;           /**< a loss starts a burst ... */
	uint32_t burst_len;     /**< ... of this many frames (0, 1: single losses) */
	double reorder;         /**< a frame is held back by reorder_ns */
	uint64_t reorder_ns;
	double dup;             /**< a frame is delivered twice */
	double corrupt;         /**< one byte after the Ethernet header is flipped */
	uint64_t delay_ns;      /**< propagation delay */
	uint64_t jitter_ns;     /**< extra uniform delay 0..jitter_ns (reorders) */
	uint64_t rate_bps;      /**< serialisation rate; 0 = infinite */
	uint32_t mtu;           /**< frames with more IP bytes are dropped; 0 = none */
	uint32_t drop_every;    /**< the n-th, 2n-th, ... frame sent is lost (periodic); 0 = off */
};

/**
 * A frame seen on the link: @p dir is the direction, @p ts_ns the virtual
 * time (ns) it was sent (tap) or taken by the receiver (rx_tap).
 */
typedef void (*rk_sim_tap_fn)(void *ctx, unsigned int dir, uint64_t ts_ns,
			      const uint8_t *frame, uint32_t len);

/**
 * A frame about to enter direction @p dir at @p ts_ns: true loses it
 * (counted in lost), as a test chooses which frames a network drops.
 */
typedef bool (*rk_sim_drop_fn)(void *ctx, unsigned int dir, uint64_t ts_ns,
			       const uint8_t *frame, uint32_t len);

struct rk_sim_link_cfg {
	uint64_t seed;
	struct rk_sim_impair dir[2];
	uint32_t max_queue;     /**< frames queued per direction; more are lost; 0 = 65536 */
	rk_sim_tap_fn tap;              /**< each frame sent, before impairment, in time order */
	void *tap_ctx;
	/**
	 * Each frame delivered, as the receiver gets it: after loss,
	 * duplication, reordering and corruption.
	 */
	rk_sim_tap_fn rx_tap;
	void *rx_tap_ctx;
	rk_sim_drop_fn drop;            /**< asked after tap and the link's rate; NULL: none */
	void *drop_ctx;
};

/**
 * Per-direction counters. Every frame sent, and every extra copy made by
 * duplication, ends in exactly one of delivered, lost, mtu_drops,
 * overflow, rx_dropped or in_flight, so at any time
 *
 *     sent + dup == delivered + lost + mtu_drops + overflow + rx_dropped + in_flight
 *
 * reordered and corrupted describe frames counted elsewhere (delivered or
 * in flight); periodic_drops is part of lost.
 */
struct rk_sim_link_stats {
	uint64_t sent, delivered, lost, dup, reordered, corrupted, mtu_drops;
	uint64_t overflow;              /**< not queued: max_queue frames waiting, or no memory */
	uint64_t periodic_drops;        /**< of lost: by drop_every */
	uint64_t bytes_sent;
	uint64_t rx_dropped;            /**< taken by a receiver with too small a buffer (-ENOSPC) */
	uint64_t in_flight;             /**< queued now: sent, not yet taken by the receiver */
};

struct rk_sim_link;

/** Create a link; NULL with errno EINVAL or ENOMEM. */
struct rk_sim_link *rk_sim_link_create(const struct rk_sim_link_cfg *cfg);

/** Destroy a link and the frames still in flight. */
void rk_sim_link_destroy(struct rk_sim_link *l);

/**
 * Send a frame into direction @p dir at virtual time @p now_ns.
 * @return 0 (also when the impairment drops it), -EINVAL.
 */
int rk_sim_link_send(struct rk_sim_link *l, unsigned int dir, const uint8_t *frame,
		     uint32_t len, uint64_t now_ns);

/**
 * Take the next frame of direction @p dir due at or before @p now_ns.
 * @return its length, 0 when none is due, -ENOSPC when @p cap is too small
 *         (the frame is dropped).
 */
int rk_sim_link_recv(struct rk_sim_link *l, unsigned int dir, uint64_t now_ns,
		     uint8_t *buf, uint32_t cap);

/** Delivery time of the next frame of @p dir, UINT64_MAX when empty. */
uint64_t rk_sim_link_next_ns(const struct rk_sim_link *l, unsigned int dir);

/** Counters of direction @p dir. */
const struct rk_sim_link_stats *rk_sim_link_stats(const struct rk_sim_link *l, unsigned int dir);

/** A virtual clock shared by everything in one simulation. */
struct rk_sim_clock {
	uint64_t now_ns;
};

/** One endpoint of a link as an I/O backend (the io pointer of rk_sim_io_ops). */
struct rk_sim_port {
	struct rk_sim_link *link;
	unsigned int tx_dir;    /**< 0 for endpoint 0, 1 for endpoint 1 */
	struct rk_sim_clock *clock;
};

/** rk_io_ops over a struct rk_sim_port. */
extern const struct rk_io_ops rk_sim_io_ops;

#endif /* RK_SIM_H */
