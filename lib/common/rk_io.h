/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_io.h
 * The I/O backend interface: how a transport engine moves whole Ethernet
 * frames and reads the time. Implemented by the simulator's link
 * (lib/sim), the DPDK port (lib/io) and test shims; consumed by lib/verbs.
 * It lives in lib/common because the core depends on it and on nothing
 * that implements it.
 */
#ifndef RK_IO_H
#define RK_IO_H

#include <stdint.h>

/**
 * An I/O backend: moves whole Ethernet frames (no FCS) and tells the time.
 * Pluggable: the simulator's link, a pcap file, DPDK, a raw socket.
 */
struct rk_io_ops {
	const char *name;
	/** Transmit one frame; 0, or a negative errno (the frame counts as lost). */
	int (*tx)(void *io, const uint8_t *frame, uint32_t len);
	/** Receive one frame into buf; its length, 0 when none waits, or -errno. */
	int (*rx)(void *io, uint8_t *buf, uint32_t cap);
	/** Current time in ns (virtual or monotonic). */
	uint64_t (*now_ns)(void *io);
	/**
	 * Optional (NULL: none): hand frames queued by tx() to the device.
	 * Called after each batch of transmissions, so a backend may gather
	 * tx() frames into bursts.
	 */
	void (*flush)(void *io);
	/**
	 * Optional (NULL: unlimited): how many frames tx() can take now
	 * without dropping any. The engine keeps the rest of its frames
	 * (they are not lost, only later) until the backend has room again:
	 * backpressure from a full device TX ring.
	 */
	unsigned int (*tx_room)(void *io);
	/**
	 * Optional pair (NULL: tx() copies): tx_frame() lends a writable
	 * buffer of at least RK_IB_MAX_FRAME bytes for the next frame, or NULL
	 * (then tx() is used); the engine builds the frame in it and passes
	 * it to tx_commit() with its length, which queues it like tx() (0 or
	 * a negative errno). A lent buffer not committed is lent again next.
	 */
	uint8_t *(*tx_frame)(void *io);
	int (*tx_commit)(void *io, uint8_t *frame, uint32_t len);
	/**
	 * Optional pair (NULL: rx() copies): rx_view() points @p frame at the
	 * next received frame in the backend's own buffer and returns its
	 * length (0 when none waits, or -errno); the frame stays valid until
	 * rx_done(), called once the engine is done with it.
	 */
	int (*rx_view)(void *io, const uint8_t **frame);
	void (*rx_done)(void *io);
	/**
	 * Optional (NULL: payloads are copied into the frame), with
	 * tx_frame/tx_commit: queue a frame in three pieces, @p hdr_len bytes
	 * of headers built in the lent buffer @p frame, @p payload_len bytes
	 * of payload at @p payload (registered memory, not copied), and
	 * @p trailer_len bytes (pad and ICRC) at @p trailer; 0 or a negative
	 * errno, as tx_commit. Only @p frame outlives the call: the payload
	 * and the trailer are valid until the verbs call that sends them
	 * (rk_post_send, rk_poll_cq, rk_progress) returns, so by then the
	 * backend must have handed them to a device that copies them, or
	 * copied them itself. Used for payloads of RK_IB_SG_MIN bytes and
	 * more in one SGE (or one READ region).
	 */
	int (*tx_commit_sg)(void *io, uint8_t *frame, uint32_t hdr_len, const uint8_t *payload,
			    uint32_t payload_len, const uint8_t *trailer, uint32_t trailer_len);
	/**
	 * Optional: the link's MTU in bytes (the largest IP packet a frame
	 * carries, 1500 on plain Ethernet), or 0 when unknown. NULL: unknown,
	 * no limit. The verbs layer refuses a QP path MTU whose RoCEv2 packets
	 * would not fit (rk_modify_qp(), as rxe does).
	 */
	uint32_t (*mtu)(void *io);
};

#endif /* RK_IO_H */
