/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_tcp_lwip.h
 * The lwIP TCP (Debian liblwip-dev 2.1.3) as an rk_tcp backend, with an
 * Ethernet interface whose frames come from and go to the caller, so a
 * DPDK poll loop can carry them (rx: rk_lwip_if_input; tx: the frame
 * callback, run from rk_lwip_if_poll).
 *
 * Debian builds lwIP with NO_SYS = 0 and core locking (its own tcpip
 * thread runs the TCP timers): every call here takes the core lock, and
 * frames the timer thread emits (retransmissions, delayed ACKs) are queued
 * and handed to the callback only from rk_lwip_if_poll, in the caller's
 * thread. Limits of that build (lwipopts.h): TCP_MSS 1460, TCP_WND 65535
 * with window scaling shift 1, TCP_SND_BUF 65535, timers at 250 ms, which
 * rk_lwip_if_poll ticks every 25 ms as well (lib/tcp/README.md). Received
 * data is ACKed at once and the window reopened as it is taken in.
 * One lwIP stack per process. A process forked after the stack started
 * must not use it (its copy of the core lock may be held by a tcpip thread
 * that does not exist there): exec a fresh program instead.
 */
#ifndef RK_TCP_LWIP_H
#define RK_TCP_LWIP_H

#include <stdbool.h>
#include <stdint.h>

#include "rk_tcp.h"

struct rk_lwip_if;
struct rk_lwip_listener;

/** Hands one Ethernet frame to the port; @p frame is valid during the call. */
typedef void (*rk_lwip_frame_fn)(void *ctx, const uint8_t *frame, uint32_t len);

/** One Ethernet interface of the stack. */
struct rk_lwip_if_attr {
	uint8_t mac[6];
	const char *ip;         /**< IPv4 dotted quad */
	const char *netmask;
	uint16_t mtu;           /**< 0 means 1500 */
	rk_lwip_frame_fn tx;
	void *tx_ctx;
};

/**
 * Start the process's lwIP stack (its tcpip thread); idempotent.
 * @return 0.
 */
int rk_lwip_init(void);

/** Add an interface (up, link up, default route). NULL with errno on failure. */
struct rk_lwip_if *rk_lwip_if_add(const struct rk_lwip_if_attr *attr);

/** Remove an interface; connections through it fail. */
void rk_lwip_if_remove(struct rk_lwip_if *nif);

/** A frame received by the port, for the stack. */
void rk_lwip_if_input(struct rk_lwip_if *nif, const uint8_t *frame, uint32_t len);

/**
 * Hand the frames the stack queued to the tx callback (at most @p budget).
 * Also ticks lwIP's TCP timer (tcp_tmr) when 25 ms have passed since the
 * last tick, so every TCP timer runs about 11 times faster than with the
 * tcpip thread's 250 ms alone (retransmission timeout about 140 ms on a
 * short path), except while an rk_tcp_lwip_connect() waits for its
 * answer. Call it at least every few milliseconds while connections are
 * open; call rk_lwip_if_input for the frames received first.
 * @return frames handed over.
 */
unsigned int rk_lwip_if_poll(struct rk_lwip_if *nif, unsigned int budget);

/** Listen on TCP @p port of every interface. NULL with errno on failure. */
struct rk_lwip_listener *rk_tcp_lwip_listen(uint16_t port);

/** Stop listening; connections not yet accepted are closed. */
void rk_tcp_lwip_listener_close(struct rk_lwip_listener *l);

/** A connection accepted on @p l, or NULL (errno EAGAIN) when none waits. */
struct rk_tcp *rk_tcp_lwip_accept(struct rk_lwip_listener *l);

/**
 * Connect to @p ip : @p port; sends return 0 until it is established.
 * lwIP sends 7 SYNs 3 s apart, then fails the connection (-ECONNRESET)
 * after about 18 s (rk_lwip_if_poll does not tick lwIP's timers faster
 * while a connect is pending).
 */
struct rk_tcp *rk_tcp_lwip_connect(const char *ip, uint16_t port);

/**
 * rk_tcp_lwip_connect() from local port @p local_port (0: lwIP's next).
 * lwIP's ephemeral ports start at the same number in every process, so a
 * program that reconnects to one peer across runs picks its own to keep
 * clear of connections the peer still holds (TIME_WAIT, RFC 793 3.5).
 * NULL with errno ECONNREFUSED when the port is in use.
 */
struct rk_tcp *rk_tcp_lwip_connect_from(const char *ip, uint16_t port, uint16_t local_port);

/** Where an lwIP connection stands: its ports and next sequence numbers. */
struct rk_tcp_lwip_info {
	uint16_t local_port, remote_port;
	/** The sequence number of the next byte to send and of the next byte
	 *  expected (RFC 793 SND.NXT, RCV.NXT): once established and before
	 *  any data, each side's first stream byte (MPA markers count from
	 *  them, RFC 5044 4.3). */
	uint32_t snd_nxt, rcv_nxt;
	bool established;
};

/**
 * Fill @p info for @p t. @return 0, -EINVAL when @p t is no lwIP
 * connection, -ENOTCONN when it is gone.
 */
int rk_tcp_lwip_info(struct rk_tcp *t, struct rk_tcp_lwip_info *info);

/**
 * Segment the bytes sent on @p t (an lwIP connection) MPA-aware: the
 * first record is an MPA Request or Reply (20 bytes + PD_Length), every
 * later one an FPDU without markers (RFC 5044 4.1: ULPDU_Length + ULPDU +
 * pad + CRC), and each record starts a TCP segment of its own, so FPDUs no
 * larger than the MSS are aligned with segments (RFC 5044 section 8).
 * Call before the first byte is sent, only for streams without markers.
 * Other connections (kernel sockets) are ignored.
 */
void rk_tcp_lwip_mpa_align(struct rk_tcp *t);

#endif /* RK_TCP_LWIP_H */
