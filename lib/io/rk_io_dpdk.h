/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_io_dpdk.h
 * The DPDK I/O backend: struct rk_io_ops over one queue pair of an ethdev
 * port (any PMD: net_memif, net_af_packet, net_ring, net_pcap, a NIC).
 *
 * What it does between the port and the verbs layer:
 *   - RX: rte_eth_rx_burst into a local array, so the one-frame callbacks
 *     drain a burst. rx_view() shows the engine a frame where it lies in
 *     its mbuf (no copy; a multi-segment frame is gathered once), rx()
 *     copies it out. Only RoCEv2 frames (UDP 4791 over IPv4 or IPv6,
 *     optionally in one 802.1Q tag) for this endpoint's addresses reach
 *     the engine, which demultiplexes them by BTH DestQP; ARP (RFC 826)
 *     and IPv6 Neighbor Solicitations/Advertisements (RFC 4861) are
 *     answered and learnt here; everything else is counted and dropped,
 *     or, with a frame hook set, IPv4 for this endpoint and ARP replies
 *     go to the hook (a TCP/IP stack: rk_io_lwip.h), whose frames come
 *     back through rk_io_dpdk_tx_raw().
 *   - TX: tx_frame() lends the engine an mbuf to build its next frame in,
 *     tx_commit() queues it (the 802.1Q tag goes in by moving the MACs);
 *     tx() copies a frame built elsewhere. The flush() hook (called by
 *     lib/verbs after each batch) sends the burst.
 *     Frames the device does not take (its ring is full: a memif peer
 *     or a NIC behind) stay queued, in order, and go out on the next
 *     flush, rx() or idle poll. The queue is bounded (tx_queue); the
 *     tx_room() hook tells lib/verbs how much of it is free, so the engine
 *     holds back its frames instead of overflowing it. A frame is dropped
 *     (port_xmit_discards) only when the queue stays full for a short
 *     spin, when no mbuf is left, or when close() gives up on it.
 *   - GIDs from the port's addresses (rk_io_dpdk_gid);
 *   - an idle policy for poll loops (spin, or spin then sleep);
 *   - monotonic time from the TSC;
 *   - optional fault injection on TX (every Nth RoCE frame, or a seeded
 *     rate), counted;
 *   - optional recording of every frame sent and received to pcapng,
 *     with the direction in each block's epb_flags. Sent frames are
 *     recorded when the device takes them, so a recording holds exactly
 *     what went to the wire (a queued frame later dropped never shows).
 *
 * Not thread-safe: one thread drives one struct rk_io_dpdk (one lcore may
 * drive many QPs through one verbs context). Errors are negative errno.
 */
#ifndef RK_IO_DPDK_H
#define RK_IO_DPDK_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "rk_ib.h"
#include "rk_verbs.h"

/**
 * The net_memif buffer size (vdev argument bsize=) that holds any frame of
 * the engine in one descriptor, VLAN tag included (9216 also lets memif
 * copy whole mbufs). With smaller buffers (the default is 2048), frames
 * over bsize span descriptors, and DPDK 22.11's memif TX then miscounts
 * free ring slots when its ring fills, splitting or merging frames on the
 * wire. rk_io_dpdk_open() logs a warning for such a port.
 */
#define RK_IO_MEMIF_BSIZE 9216

/** What a poll loop does when a poll found no work. */
enum rk_io_idle {
	/** Spin-then-sleep (default): spin for spin_us, then sleep sleep_us per idle poll. */
	RK_IO_IDLE_ADAPTIVE = 0,
	/** Busy-poll forever (benchmarks; needs a core of its own). */
	RK_IO_IDLE_SPIN = 1,
};

/**
 * rk_io_dpdk_cfg.snaplen: record every header of a RoCEv2 frame and none of
 * its payload (rk_rocev2_hdrs_len()), other frames whole: what an analysis
 * of a bandwidth run needs at a fraction of the bytes.
 */
#define RK_IO_SNAP_HEADERS UINT32_MAX

/** Port configuration for rk_io_dpdk_open(). Zero means the default. */
struct rk_io_dpdk_cfg {
	const char *port_name;          /**< ethdev name ("net_memif0"); NULL: use port_id */
	uint16_t port_id;
	/**
	 * This endpoint's IPv4 address (network order bytes). 0.0.0.0
	 * accepts every RoCEv2 frame whatever its addresses (replay, tests).
	 */
	uint8_t ip[4];
	/**
	 * IPv4 addresses of this endpoint, from ip up (the last byte counted
	 * up, all in ip's /24): ARP is answered and RoCEv2 taken for each,
	 * so one port stands for several hosts. 0 or 1: ip alone; at most
	 * 256. rk_io_dpdk_open() fails with EINVAL when the last would pass
	 * x.y.z.255. ARP requests and the frame hook use ip itself.
	 */
	uint16_t ip4_count;
	/**
	 * This endpoint's IPv6 address (network order); all zero: none. With
	 * it the port answers Neighbor Solicitations for it (RFC 4861) and
	 * takes RoCEv2 over IPv6 sent to it. With neither address set, every
	 * RoCEv2 frame is taken.
	 */
	uint8_t ip6[16];
	uint8_t mac[6];                 /**< the endpoint's MAC when not all zero (set on the port if it can) */
	uint16_t vlan_id;               /**< 1..4094: tag every frame sent, take only this VLAN's; 0: untagged */
	uint8_t vlan_pcp;               /**< with vlan_id: the tag's priority (IEEE 802.1Q PCP), 0..7 */
	uint32_t nb_mbufs;              /**< mempool size; 0: 4095 */
	uint16_t nb_desc;               /**< RX and TX descriptors; 0: 1024 */
	uint32_t tx_queue;              /**< frames queued while the ring is full; 0: 512, max 32768 */
	enum rk_io_idle idle;
	uint32_t spin_us;               /**< adaptive: spin this long first; 0: 100 */
	uint32_t sleep_us;              /**< adaptive: sleep per idle poll; 0: 50 */
	uint32_t link_timeout_ms;       /**< the start's retries and the wait for link up, in all; 0: 10000 */
	const char *pcapng_path;        /**< record TX and RX here; NULL: no recording */
	/** Bytes of each frame recorded (the pcapng snap length: the rest is
	 * cut, its original length kept); 0: whole frames;
	 * RK_IO_SNAP_HEADERS: RoCEv2 frames up to their payload, others whole. */
	uint32_t snaplen;
	/** TX drops, of RoCE frames and of rk_io_dpdk_tx_raw()'s IPv4 TCP frames. */
	uint32_t tx_drop_every;         /**< drop every Nth frame sent; 0: none */
	double tx_drop_rate;            /**< drop frames sent with this probability */
	uint64_t tx_drop_seed;          /**< seed of the rate; 0: 1 */
	/**
	 * Copy every payload into its frame even on a port whose driver
	 * copies frames out in tx_burst (net_memif in copy mode,
	 * net_af_packet, net_pcap, net_tap, net_null), where large payloads
	 * otherwise go by reference: an external-buffer mbuf over the
	 * registered memory (rk_io_ops.tx_commit_sg). For comparisons.
	 */
	bool tx_copy;
	/**
	 * The priority (IEEE 802.1Qbb) of the frames this port sends,
	 * untagged: a PFC frame that pauses it holds them. With vlan_id the
	 * tag's vlan_pcp is the priority and this is not used.
	 */
	uint8_t tx_prio;
	/**
	 * Link rate in Mb/s for the time of a pause quantum (512 bit times);
	 * 0: the port's link speed, 100000 when it reports none.
	 */
	uint32_t link_mbps;
	/**
	 * A flag that cancels this backend's waits once it reads non-zero,
	 * e.g. set by a SIGINT/SIGTERM handler; NULL: waits run to their
	 * timeout. Read every 10 to 100 ms by rk_io_dpdk_open() (the start
	 * retry of a memif client, the link wait: it then fails with EINTR)
	 * and on every pass of rk_io_dpdk_resolve() and
	 * rk_io_dpdk_resolve_addr() (-EINTR). The pointer is kept: the flag
	 * must outlive the backend.
	 */
	const volatile sig_atomic_t *cancel;
};

/** Port counters (monotonic). */
struct rk_io_dpdk_stats {
	uint64_t rx_frames, rx_bytes;   /**< all frames taken from the port */
	uint64_t rx_roce;               /**< handed to the engine */
	uint64_t rx_arp, rx_other;      /**< ARP; neither ARP, ND nor RoCEv2 for us */
	uint64_t rx_vlan_mismatch;      /**< of rx_other: another VLAN than cfg.vlan_id (0: untagged) */
	uint64_t rx_nd, tx_nd;          /**< valid NS/NA received; NS/NA sent */
	uint64_t rx_multiseg;           /**< frames in more than one mbuf */
	uint64_t rx_too_long;           /**< larger than the engine's buffer: dropped */
	uint64_t tx_frames, tx_bytes;   /**< accepted by the device */
	uint64_t tx_arp;
	uint64_t tx_dropped_injected;   /**< dropped by the TX drop option */
	uint64_t tx_dropped_full;       /**< TX queue overflow, no mbuf, unsent at close: dropped */
	uint64_t tx_ring_full;          /**< tx_burst calls that left frames queued (backpressure) */
	uint64_t idle_sleeps;
	uint64_t rx_hooked;             /**< handed to the frame hook (rk_io_dpdk_set_frame_hook) */
	uint64_t tx_raw;                /**< queued by rk_io_dpdk_tx_raw */
	uint64_t tx_by_ref;             /**< frames whose payload the device read in place */
	uint64_t tx_by_ref_copied;      /**< ... copied after all: still queued when the call ended */
	uint64_t tx_refused;            /**< frames tx_burst handed back (ring full), each time; sent later */
	/* PAUSE (IEEE 802.3 Annex 31B) and PFC (IEEE 802.1Qbb) frames. */
	uint64_t rx_pause;              /**< 802.3x PAUSE frames received (every priority) */
	uint64_t rx_pfc;                /**< PFC frames received */
	uint64_t rx_prio_pause[8];      /**< PAUSE and PFC frames naming priority n */
	uint64_t rx_prio_pause_ns[8];   /**< time priority n was paused by them, ns */
	uint64_t tx_pause, tx_pfc;      /**< PAUSE and PFC frames sent (rk_io_dpdk_send_*) */
	uint64_t tx_paused_holds;       /**< TX passes that held the queue: our priority paused */
};

/** One counter with a NIC hardware counter name (mlx5/rxe style). */
struct rk_io_counter {
	const char *name;
	uint64_t value;
};

struct rk_io_dpdk;

/**
 * Send an IEEE 802.3 Annex 31B PAUSE frame (MAC Control opcode 0x0001, to
 * 01:80:C2:00:00:01): every priority of the peer stops for @p quanta x 512
 * bit times; 0 resumes it. It goes ahead of the frames queued (a paused
 * port still sends MAC Control frames).
 * @return 0, -ENOBUFS (no mbuf) or -EIO (the device did not take it).
 */
int rk_io_dpdk_send_pause(struct rk_io_dpdk *io, uint16_t quanta);

/**
 * Send an IEEE 802.1Qbb PFC frame (opcode 0x0101): priority n stops for
 * @p quanta[n] x 512 bit times when bit n of @p class_enable is set.
 * @return as rk_io_dpdk_send_pause().
 */
int rk_io_dpdk_send_pfc(struct rk_io_dpdk *io, uint8_t class_enable, const uint16_t quanta[8]);

/**
 * Until when (rk_io_dpdk_now_ns() clock, ns) priority @p prio (0..7) is
 * paused by the PAUSE and PFC frames received; 0 or a time past: not.
 * The port holds the frames it sends while its own priority is paused
 * (cfg.vlan_pcp with a VLAN, else cfg.tx_prio), at the next frame
 * boundary: frames already handed to the device go.
 */
uint64_t rk_io_dpdk_paused_until(const struct rk_io_dpdk *io, uint8_t prio);

/**
 * Initialise the EAL (rte_eal_init) with a program's argv, as DPDK
 * applications do: EAL options first, then "--", then the program's own.
 * @return the number of arguments consumed (argv[ret] is the program's
 *         first own argument after "--" is skipped by the caller), or a
 *         negative errno (rte_errno) when the EAL refused the options.
 */
int rk_io_dpdk_eal_init(int argc, char **argv);

/**
 * Whether an rk_io_dpdk_eal_init() error means the EAL options themselves
 * were wrong (EINVAL: an option or value the EAL does not take, after it
 * printed its usage; ENODEV: a --vdev or -a device it cannot parse or has
 * no driver for), a usage error for the caller, rather than the machine
 * refusing (memory, hugepages, permissions).
 */
bool rk_io_dpdk_eal_usage_error(int err);

/** Words for an rk_io_dpdk_eal_init() error (negative errno), for messages. */
const char *rk_io_dpdk_eal_strerror(int err);

/**
 * Words for why rk_io_dpdk_open() failed, from its errno: ETIMEDOUT (link
 * still down), ENOTCONN (port did not start), ENODEV (no such port), EINTR
 * (cfg.cancel was set while the port started or waited for its link), else
 * strerror(). For messages; the peer of a memif or af_packet link being
 * absent is the usual cause of the first two.
 */
const char *rk_io_dpdk_open_strerror(int err);

/** Release the EAL (rte_eal_cleanup). */
void rk_io_dpdk_eal_cleanup(void);

/** A program's argv split into the EAL's part and the program's own. */
struct rk_io_dpdk_args {
	int eal_argc;
	char **eal_argv;        /**< argv itself, or a static default list */
	int app_argc;
	char **app_argv;        /**< app_argv[0] is argv[0] */
};

/**
 * Split "EAL options -- program options". Without "--", the EAL gets
 * defaults that need no set-up: --in-memory --no-pci --log-level=*:warning,
 * plus --no-huge -m512 --no-shconf when fewer than 64 hugepages are free
 * (/proc/meminfo HugePages_Free). Not thread-safe (static defaults).
 * @param prog  the EAL's argv[0] in the default list.
 */
void rk_io_dpdk_split_args(int argc, char **argv, const char *prog,
			   struct rk_io_dpdk_args *out);

/**
 * Configure and start a port: one RX and one TX queue, a mempool of mbufs
 * large enough for RK_IB_MAX_FRAME, promiscuous mode, then wait for link
 * up (memif needs its peer; the start's retries and this wait end
 * link_timeout_ms after the first start, or when cfg.cancel is set).
 * @return the backend (the io pointer of rk_io_dpdk_ops), or NULL with
 *         errno: ENODEV (no such port), ETIMEDOUT (link stayed down),
 *         ENOTCONN (the port would not start within the link timeout,
 *         e.g. a memif client whose server is absent), EINTR (cfg.cancel
 *         set before the port started or its link came up),
 *         ENOMEM, EINVAL, or the ethdev error.
 */
struct rk_io_dpdk *rk_io_dpdk_open(const struct rk_io_dpdk_cfg *cfg);

/**
 * Flush TX, finish the recording, stop and close the port, free the pool.
 * @return 0, or a negative errno when the recording could not be written.
 */
int rk_io_dpdk_close(struct rk_io_dpdk *io);

/**
 * rk_io_ops over a struct rk_io_dpdk (tx, rx, now_ns, flush, tx_room, and
 * the copy-free tx_frame/tx_commit and rx_view/rx_done).
 */
extern const struct rk_io_ops rk_io_dpdk_ops;

/** The port's MAC address. */
void rk_io_dpdk_mac(const struct rk_io_dpdk *io, uint8_t mac[6]);

/** The port id. */
uint16_t rk_io_dpdk_port(const struct rk_io_dpdk *io);

/**
 * Resolve an IPv4 address to a MAC with ARP (RFC 826): send a request,
 * serve the port (answering ARP, queueing RoCE frames for rx()) and retry
 * every 200 ms until the answer, @p timeout_ms, or cfg.cancel.
 * @return 0 with @p mac filled, -ETIMEDOUT, -EINTR (cfg.cancel set),
 *         -EIO (cannot transmit).
 */
int rk_io_dpdk_resolve(struct rk_io_dpdk *io, const uint8_t ip[4], uint8_t mac[6],
		       uint32_t timeout_ms);

/**
 * The MAC learnt for @p ip (IPv6, or IPv4 as ::ffff:a.b.c.d) from ARP or
 * ND, without sending anything.
 * @return 0 with @p mac filled, -ENOENT when unknown.
 */
int rk_io_dpdk_neigh_lookup(struct rk_io_dpdk *io, const uint8_t ip[16], uint8_t mac[6]);

/**
 * Ask once for @p ip's MAC: an ARP request (RFC 826) for ::ffff:a.b.c.d,
 * else a Neighbor Solicitation (RFC 4861 7.2.2) to its solicited-node
 * multicast address with our MAC as source link-layer address option.
 * The answer is learnt by whatever serves the port next.
 * @return 0, -EADDRNOTAVAIL (no own address of that family), -EIO.
 */
int rk_io_dpdk_solicit(struct rk_io_dpdk *io, const uint8_t ip[16]);

/**
 * rk_io_dpdk_resolve() for either family: solicit every 200 ms and serve
 * the port until the answer, @p timeout_ms, or cfg.cancel.
 * @return 0 with @p mac filled, -ETIMEDOUT, -EINTR (cfg.cancel set),
 *         -EADDRNOTAVAIL, -EIO.
 */
int rk_io_dpdk_resolve_addr(struct rk_io_dpdk *io, const uint8_t ip[16], uint8_t mac[6],
			    uint32_t timeout_ms);

/**
 * The port's RoCEv2 GID table, from its addresses: index 0 is the IPv4
 * address as ::ffff:a.b.c.d when one is set, then the IPv6 address.
 * @return 0 with @p gid filled (16 bytes, network order), -ENOENT past the end.
 */
int rk_io_dpdk_gid(const struct rk_io_dpdk *io, unsigned int index, uint8_t gid[16]);

/**
 * Serve the port outside the verbs loop (answer ARP, flush TX) without
 * consuming RoCE frames, e.g. while waiting on an out-of-band socket.
 * @return frames received.
 */
int rk_io_dpdk_service(struct rk_io_dpdk *io);

/**
 * Apply the idle policy after one poll of a loop.
 * @param work what the poll did (frames, completions); > 0 resets the
 *        policy to spinning.
 */
void rk_io_dpdk_idle(struct rk_io_dpdk *io, int work);

/**
 * One step of the adaptive (spin-then-sleep) policy, for loops with no
 * port too (kernel sockets): @p work > 0 clears @p idle_since_ns (0:
 * busy); else the first idle poll is noted there, later ones spin (a CPU
 * pause) until @p spin_us have passed since, then sleep @p sleep_us each.
 * 0 for either: the port's defaults (100, 50). Needs rte_eal_init().
 * @return true when it slept.
 */
bool rk_io_idle_adaptive(uint64_t *idle_since_ns, int work, uint32_t spin_us,
			 uint32_t sleep_us);

/** Change the idle policy at run time. */
void rk_io_dpdk_set_idle(struct rk_io_dpdk *io, enum rk_io_idle idle);

/** Receives one Ethernet frame (no FCS, no 802.1Q tag); valid during the call. */
typedef void (*rk_io_frame_fn)(void *ctx, const uint8_t *frame, uint32_t len);

/**
 * Hand frames the engine does not take to @p fn instead of dropping them
 * (for a TCP/IP stack on the port, e.g. rk_io_lwip.h): IPv4 frames to this
 * endpoint's cfg.ip other than RoCEv2 (TCP, ICMP, UDP to other ports), and
 * ARP replies (RFC 826 op 2) to cfg.ip, after this backend learnt from
 * them. ARP requests for cfg.ip are answered here and never passed on, so
 * a stack behind the hook never answers them (no duplicate replies) and
 * learns peers only from the replies to its own requests. Frames are
 * handed over from whatever reads the port (rx(), rx_view(),
 * rk_io_dpdk_service()); an 802.1Q tag is removed first. Hooked IPv4
 * frames are recorded like others (counted as rx_hooked, not rx_other).
 * @p fn NULL: drop them again (rx_other).
 */
void rk_io_dpdk_set_frame_hook(struct rk_io_dpdk *io, rk_io_frame_fn fn, void *ctx);

/**
 * Send an Ethernet frame built elsewhere (@p len bytes from the
 * destination MAC, no FCS, untagged: the 802.1Q tag goes in when
 * configured). It is queued with the engine's frames, sent on the next
 * flush, rx() or service, and recorded when the device takes it. The TX
 * drop options (tx_drop_every, tx_drop_rate) apply to IPv4 TCP frames too:
 * a dropped one returns 0 and is counted in tx_dropped_injected.
 * @return 0, -EINVAL (NULL, shorter than 14 bytes or longer than
 *         RK_IB_MAX_FRAME), -ENOBUFS (queue full or no mbuf: counted in
 *         tx_dropped_full; TCP retransmits).
 */
int rk_io_dpdk_tx_raw(struct rk_io_dpdk *io, const uint8_t *frame, uint32_t len);

/**
 * Kept frames: mbufs the caller fills once and then refills in place,
 * changing only the bytes that differ (a generator's templates: no full
 * copy per frame). Each ring has a mempool of its own, so its mbufs only
 * ever hold its frames: a freed mbuf keeps its bytes and the length of its
 * frame, and the driver's free after sending puts it back for the next
 * frame. The pools are freed by rk_io_dpdk_close().
 */
struct rk_io_kept;

/**
 * A ring of @p n mbufs for frames of up to @p max_len bytes, in a mempool
 * of its own (not from the port's pool). Not with cfg.vlan_id (frames are
 * sent as they are).
 * @return the ring, or NULL (errno: EINVAL for n == 0, n > 2^20, a VLAN
 *         port, @p max_len under 14 or over RK_IB_MAX_FRAME; ENOMEM when
 *         the pool cannot be made)
 */
struct rk_io_kept *rk_io_dpdk_kept_new(struct rk_io_dpdk *io, uint32_t n, uint32_t max_len);

/**
 * The next mbuf of the ring to fill, at most its max_len bytes. Asked
 * again before rk_io_dpdk_kept_send(), it gives the same mbuf.
 * @param held  set to the length of the frame it still holds from an
 *              earlier send of the ring (0: none, fill it whole)
 * @return its data, or NULL while the device has all of the ring's mbufs
 *         (send the frame another way, or flush and ask again)
 */
uint8_t *rk_io_dpdk_kept_next(struct rk_io_kept *k, uint32_t *held);

/**
 * Queue the mbuf rk_io_dpdk_kept_next() returned, holding a frame of
 * @p len bytes, as rk_io_dpdk_tx_raw() queues a frame (sent at the next
 * flush, recorded when the device takes it; no drop options).
 * @return 0, -EINVAL (no mbuf taken, @p len under 14 or over the ring's
 *         max_len), -ENOBUFS (queue full: counted in tx_dropped_full; the
 *         mbuf stays the next one)
 */
int rk_io_dpdk_kept_send(struct rk_io_kept *k, uint32_t len);

/** Most mbufs rk_io_dpdk_kept_take() gives at once. */
#define RK_IO_KEPT_BURST 32u

/**
 * Up to @p n (at most RK_IO_KEPT_BURST) mbufs of the ring to fill at
 * once, as many as the ring has free and the TX queue has room for:
 * what a sender that makes frames a burst at a time (rk_gen_sched_burst())
 * fills, then queues with rk_io_dpdk_kept_send_burst(). An mbuf
 * rk_io_dpdk_kept_next() gave and not sent is among them.
 * @param bufs  receives each mbuf's data (at most the ring's max_len bytes)
 * @param held  receives the length of the frame each still holds from an
 *              earlier send of the ring (0: none, fill it whole)
 * @return mbufs given, 0 while the device has all of the ring's mbufs or
 *         the TX queue is full (counted in tx_dropped_full, as
 *         rk_io_dpdk_kept_send() counts it: flush and ask again)
 */
uint32_t rk_io_dpdk_kept_take(struct rk_io_kept *k, uint8_t **bufs, uint32_t *held, uint32_t n);

/**
 * Queue the first @p n mbufs the last rk_io_dpdk_kept_take() gave, in
 * their order, each holding a frame of @p len bytes, as
 * rk_io_dpdk_kept_send() queues one; the others stay the ring's next.
 * @return 0, or -EINVAL (@p n more than were taken, @p len under 14 or
 *         over the ring's max_len; nothing queued)
 */
int rk_io_dpdk_kept_send_burst(struct rk_io_kept *k, uint32_t n, uint32_t len);

/** Free the ring (its pool stays until rk_io_dpdk_close(): the device may
 * still hold its mbufs). Before rk_io_dpdk_close(). NULL is a no-op. */
void rk_io_dpdk_kept_free(struct rk_io_kept *k);

/** The port's IPv4 address (cfg.ip). @return 0, -ENOENT when none is set. */
int rk_io_dpdk_ip4(const struct rk_io_dpdk *io, uint8_t ip[4]);

/** The port counters. */
const struct rk_io_dpdk_stats *rk_io_dpdk_stats(const struct rk_io_dpdk *io);

/**
 * Whether the port can send (and so receive) a frame of @p frame_len
 * bytes: from the destination MAC, no FCS, without the 802.1Q tag (added
 * here when cfg.vlan_id is set). Frames over the limit do not fail: the
 * port drops them, so a program checks its largest frame first.
 * Known limits: net_af_packet's frame slots (its framesz= devarg, 2048 by
 * default): a sent frame gets framesz less 32 bytes (DPDK 22.11 frees
 * larger frames and counts them only in the driver's oerrors,
 * port_xmit_errors here), a received one framesz less 66 (the kernel cuts
 * larger ones), so frames of framesz - 66 bytes pass; the MTU of its
 * kernel interface (mtu + 14 bytes, plus the tag; the kernel drops larger
 * frames uncounted); any other driver's dev_info max_mtu.
 * @param why  when not NULL: for -EMSGSIZE, what bounds the port and what
 *             to change ("net_af_packet0 takes frames of at most 1982
 *             bytes: give framesz=4096,blocksz=4096 in --vdev"), at most
 *             @p len bytes with the NUL; else "".
 * @return 0 (fits, or no limit known), -EMSGSIZE.
 */
int rk_io_dpdk_check_frame(const struct rk_io_dpdk *io, uint32_t frame_len, char *why,
			   size_t len);

/**
 * The largest IP packet, in bytes, the port carries both ways: the
 * smallest of the limits rk_io_dpdk_check_frame() knows (a
 * net_af_packet slot less the Ethernet header and the tag, the kernel
 * interface's MTU, the driver's max_mtu). rk_io_dpdk_ops' mtu, so that
 * rk_modify_qp() refuses a path MTU whose packets would not fit, as
 * Linux rxe refuses one above the port's active MTU.
 * @return the IP MTU; 0 when the port states no limit.
 */
uint32_t rk_io_dpdk_ip_mtu(const struct rk_io_dpdk *io);

/** Monotonic time, ns (TSC based; the same clock as rk_io_dpdk_ops.now_ns). */
uint64_t rk_io_dpdk_now_ns(void);

/**
 * Counters named like NIC hardware counters (rdma statistic / mlx5
 * hw_counters): the engine's counters @p ib named by
 * rk_counters_from_stats() (out_of_sequence, packet_seq_err,
 * local_ack_timeout_err, rnr_nak_retry_err, duplicate_request,
 * implied_nak_seq_err, ...; per port when @p ib is the context's, per QP
 * with rk_ib_qp_stats()), then, when @p io is not NULL, the port's
 * (port_xmit_packets, port_rcv_data, port_xmit_discards: frames this
 * backend dropped, port_xmit_errors: frames the driver took and dropped,
 * from its rte_eth_stats oerrors, e.g. net_af_packet's over its frame
 * size; ...). Reads the driver's statistics (rte_eth_stats_get()).
 * @return the number of entries written (at most @p max).
 */
unsigned int rk_io_hw_counters(const struct rk_io_dpdk *io, const struct rk_ib_stats *ib,
			       struct rk_io_counter *out, unsigned int max);

#endif /* RK_IO_DPDK_H */
