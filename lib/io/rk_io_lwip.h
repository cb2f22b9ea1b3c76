/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_io_lwip.h
 * The process's lwIP TCP/IP stack (lib/tcp/rk_tcp_lwip.h) on a DPDK port
 * (rk_io_dpdk.h): TCP for iWARP in the port's poll loop. Built when
 * liblwip-dev is found (meson: rdmakit_io_lwip_dep).
 *
 * Use: open the port with cfg.ip set to the address given here, attach,
 * then make connections with rk_tcp_lwip_connect() / rk_tcp_lwip_listen()
 * + rk_tcp_lwip_accept() and call rk_io_lwip_poll() in the loop that
 * drives them (e.g. with rk_progress() of an rk_open_device_iwarp()
 * context whose streams are those connections).
 *
 * Frames: IPv4 frames to the port's address (TCP, ICMP: lwIP answers
 * pings) go to lwIP through the port's frame hook; lwIP's frames are sent
 * with rk_io_dpdk_tx_raw(), so they are recorded (pcapng) with the rest
 * and the port's TX drop options apply to TCP segments.
 *
 * ARP (RFC 826) is split so no request goes unanswered or is answered
 * twice: lib/io alone answers requests for the port's address (lwIP never
 * sees them); lwIP sends its own requests for the peers it talks to, and
 * the replies to our address are learnt by lib/io and then handed to lwIP,
 * which learns from them. Gratuitous ARP from lwIP is ignored by peers
 * running lib/io (not for their address).
 *
 * RoCEv2 frames that reach rk_io_lwip_poll() are dropped (counted): a
 * port carrying both RoCE and lwIP must be read by the RoCE engine
 * (rk_progress of an rk_open_device() context) too, which hands the other
 * frames to the hook as it reads.
 *
 * Limits of Debian's lwIP 2.1.3 build (lwipopts.h; see lib/tcp/README.md):
 * TCP_MSS 1460 (the MSS is min(1460, MTU - 40)); TCP_WND = TCP_SND_BUF =
 * 65535 bytes with window scaling negotiated (shift 1) but the window
 * itself at 64 KiB, so at most 64 KiB in flight per connection and round
 * trip; Reno without SACK, NewReno or Limited Transmit, so at high loss
 * (5%) many losses wait for the retransmission timer, which
 * rk_io_lwip_poll() ticks every 25 ms (lib/tcp), so one costs 100-150 ms
 * (1.5 s with lwIP's own 250 ms timer); its frames are at most 1536 bytes
 * (MTU above 1500 is clamped). One stack per process: one attachment at a
 * time.
 */
#ifndef RK_IO_LWIP_H
#define RK_IO_LWIP_H

#include <stdbool.h>
#include <stdint.h>

#include "rk_io_dpdk.h"

struct rk_io_lwip;

/**
 * Attach the process's lwIP stack (rk_lwip_init) to port @p io with IPv4
 * @p ip / @p netmask (dotted quad), MTU 1500. The port must have been
 * opened with cfg.ip equal to @p ip (lib/io answers ARP for it).
 * @return the attachment, or NULL with errno: EINVAL (bad address or
 *         mask, NULL io), EADDRNOTAVAIL (the port has no or another IPv4
 *         address), EBUSY (already attached), ENOMEM.
 */
struct rk_io_lwip *rk_io_lwip_attach(struct rk_io_dpdk *io, const char *ip, const char *netmask);

/**
 * rk_io_lwip_attach() with the interface MTU @p mtu (bytes of IP packet;
 * 0: 1500; 576..1500, larger values are clamped to 1500): the TCP MSS
 * lwIP announces and uses is min(1460, mtu - 40).
 */
struct rk_io_lwip *rk_io_lwip_attach_mtu(struct rk_io_dpdk *io, const char *ip,
					 const char *netmask, uint16_t mtu);

/**
 * Move frames both ways (port RX → lwIP, lwIP's queued frames → port TX)
 * and tick lwIP's TCP timer every 25 ms (rk_lwip_if_poll); call from the
 * poll loop. Reads at most a few bursts, then flushes TX.
 * @return frames moved (0: idle).
 */
int rk_io_lwip_poll(struct rk_io_lwip *l);

/** Sees one frame: @p tx true for lwIP's (as queued on the port), false for one handed to it. */
typedef void (*rk_io_lwip_tap_fn)(void *ctx, bool tx, const uint8_t *frame, uint32_t len);

/**
 * Show every frame lwIP sends or is handed to @p fn (e.g. a capture of one
 * connection's frames: a conformance case's pcap). @p fn NULL: none.
 */
void rk_io_lwip_set_tap(struct rk_io_lwip *l, rk_io_lwip_tap_fn fn, void *ctx);

/** Counters of an attachment. */
struct rk_io_lwip_stats {
	uint64_t rx_frames;             /**< handed to lwIP */
	uint64_t tx_frames;             /**< taken from lwIP and queued on the port */
	uint64_t tx_errors;             /**< refused by the port (queue full): TCP retransmits */
	uint64_t rx_roce_dropped;       /**< RoCEv2 frames read and dropped by rk_io_lwip_poll */
};

/** The attachment's counters. */
const struct rk_io_lwip_stats *rk_io_lwip_stats(const struct rk_io_lwip *l);

/**
 * Detach: the port's frame hook is removed and the lwIP interface too
 * (its connections fail; close them first). NULL is ignored.
 */
void rk_io_lwip_detach(struct rk_io_lwip *l);

#endif /* RK_IO_LWIP_H */
