/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internals of the DPDK I/O backend, shared by its files:
 *   rk_io_port.c      clock, EAL, port set-up and driver quirks, open/close
 *   rk_io_txrx.c      TX queue, RX classification, the rk_io_ops instance
 *   rk_io_neigh.c     ARP (RFC 826) and IPv6 ND (RFC 4861), GIDs
 *   rk_io_idle.c      the idle policy of poll loops
 *   rk_io_counters.c  the port's counters
 * Nothing here is part of rk_io_dpdk.h's API.
 */
#ifndef RK_IO_INTERNAL_H
#define RK_IO_INTERNAL_H

#include <net/if.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "rk_impair.h"
#include "rk_io_dpdk.h"
#include "rk_pcapng.h"

#define RX_BURST 32
#define TXQ_DEFAULT 512         /* frames held while the device ring is full */
#define TXQ_MAX 32768
#define TXQ_RESERVE 8           /* kept free of engine frames for ARP answers */
#define TX_SPIN_NS 20000        /* a full queue waits this long for the ring */
#define TX_BATCH 32             /* queued frames handed to the device without waiting for flush */
#define NEIGH_MAX 16
#define SCRATCH (RK_IB_MAX_FRAME + 256)
#define ARP_LEN 28              /* RFC 826 packet for Ethernet and IPv4 */

/* Whether @p a (4 bytes) is one of the port's IPv4 addresses (cfg.ip, cfg.ip4_count). */
#define RK_IO_IP4_MINE(io, a)                                                     \
	((io)->has_ip4 && memcmp((a), (io)->cfg.ip, 3) == 0 &&                    \
	 (uint8_t)((a)[3] - (io)->cfg.ip[3]) < ((io)->cfg.ip4_count ? (io)->cfg.ip4_count : 1u))

struct rk_io_neigh {
	uint8_t ip[16];
	uint8_t mac[6];
	bool valid;
};

struct rk_io_dpdk {
	struct rk_io_dpdk_cfg cfg;
	uint16_t port;
	struct rte_mempool *pool;
	uint8_t mac[6];
	struct rte_mbuf *rx[RX_BURST];
	uint16_t rx_n, rx_i;
	bool rx_short;                  /* the last burst did not fill rx[] */
	uint64_t rx_wall_ns;            /* when recording: the time rx[] was taken */
	uint64_t rec_last_ns;           /* the time of the last frame recorded */
	/* TX queue: a ring of mbufs not yet taken by the device. */
	struct rte_mbuf **txq;
	uint32_t txq_size;              /* power of two */
	uint32_t txq_head, txq_n;
	struct rk_io_neigh neigh[NEIGH_MAX];
	unsigned int neigh_next;
	bool any_dst;                   /* no address: take every RoCEv2 frame */
	bool has_ip4, has_ip6;
	bool recording;
	struct rk_pcapng pcap;
	int64_t wall_off_ns;            /* realtime - monotonic, for the recording */
	enum rk_io_idle idle;
	uint64_t idle_since_ns;         /* first empty poll of this idle period; 0: busy */
	struct rk_impair *tx_drop;       /* the TX drop options; NULL: none */
	struct rk_io_dpdk_stats st;
	struct rte_mbuf *tx_lent;       /* lent to the engine by tx_frame() */
	struct rte_mbuf *rx_cur;        /* frame shown by rx_view() until rx_done() */
	struct rte_mbuf *rx_free[RX_BURST];     /* done with, freed in bulk when idle or full */
	uint16_t rx_free_n;
	/*
	 * By-reference payloads (ops_tx_commit_sg): the driver copies frames
	 * out inside tx_burst, so an mbuf may point at registered memory for
	 * the length of one engine call; ext_pool holds the mbufs that do
	 * (and the trailers'), ext_shinfo is their shared buffer information.
	 */
	bool tx_sg;
	struct rte_mempool *ext_pool;
	struct rte_mbuf_ext_shared_info ext_shinfo;
	/* Pools of kept rings (rk_io_kept.c), freed once the port is closed. */
	struct rte_mempool **kept_pools;
	uint32_t kept_pools_n;
	rk_io_frame_fn hook;            /* IPv4 frames for us and ARP replies (lwIP) */
	void *hook_ctx;
	/* What bounds the frames the port sends (rk_io_dpdk_check_frame()). */
	char name[RTE_ETH_NAME_MAX_LEN];
	uint32_t afp_framesz, afp_blocksz;      /* net_af_packet's devargs; 0: not one */
	char ifname[IF_NAMESIZE];       /* its kernel interface ... */
	uint32_t if_mtu;                /* ... and that one's MTU; 0: unknown */
	uint16_t max_mtu;               /* dev_info; UINT16_MAX: none given */
	/* PAUSE and PFC received (rk_io_pause.c). */
	bool pause_seen;                /* any: TX then looks at pause_until */
	uint8_t tx_prio;                /* the priority of our frames */
	uint64_t link_bps;              /* for the quantum's time */
	uint64_t pause_until[8];        /* ns, rk_io_dpdk_now_ns() clock */
	bool oerrors_refused;           /* the driver counts frames it hands back as oerrors */
	uint64_t oerrors_base;          /* the driver's oerrors when the port started */
	uint8_t scratch[SCRATCH];
	uint8_t hook_buf[SCRATCH];
};

/* Realtime clock of the recording, in ns since the Unix epoch. */
static inline uint64_t
rk_io_wall_ns(const struct rk_io_dpdk *io)
{
	return (uint64_t)((int64_t)rk_io_dpdk_now_ns() + io->wall_off_ns);
}

/* The time to record a frame at, from its burst's @p wall_ns: never before
 * the last frame recorded (rk_io_txrx.c). */
uint64_t rk_io_record_ns(struct rk_io_dpdk *io, uint64_t wall_ns);

/* Whether the caller's cancel flag (cfg.cancel) is set. */
static inline bool
rk_io_cancelled(const volatile sig_atomic_t *flag)
{
	return flag != NULL && *flag != 0;
}

/* rk_io_txrx.c */

/* One pass of tx_burst over the TX queue; @return frames the device took. */
uint32_t rk_io_tx_once(struct rk_io_dpdk *io);
/* Room for one more frame in the TX queue (waiting briefly for the ring),
 * or -ENOBUFS, counted in tx_dropped_full. */
int rk_io_txq_reserve(struct rk_io_dpdk *io);

/* Queue a copy of one frame (802.1Q tag inserted when configured). */
int rk_io_queue_frame(struct rk_io_dpdk *io, const uint8_t *frame, uint32_t len);

/* Free callback of the by-reference payload mbufs (the memory is the caller's). */
void rk_io_ext_free(void *addr, void *opaque);

/* rk_io_pause.c */

/* Apply and count a MAC Control frame received (PAUSE, PFC; others counted as other). */
void rk_io_mac_control(struct rk_io_dpdk *io, struct rte_mbuf *m);

/* Set the priority of our frames and the link rate (rk_io_dpdk_open()). */
void rk_io_pause_init(struct rk_io_dpdk *io);

/* Whether our priority is paused now: TX holds the queue. */
static inline bool
rk_io_tx_paused(struct rk_io_dpdk *io)
{
	if (!io->pause_seen || rk_io_dpdk_now_ns() >= io->pause_until[io->tx_prio])
		return false;
	io->st.tx_paused_holds++;
	return true;
}

/* rk_io_neigh.c */

/* Answer or learn from the ARP packet at @p a (after the link header). */
void rk_io_handle_arp(struct rk_io_dpdk *io, const uint8_t *a);

/* Answer or learn from the ICMPv6 ND frame whose IPv6 header is at @p l3 of @p m. */
void rk_io_handle_nd(struct rk_io_dpdk *io, struct rte_mbuf *m, uint32_t l3);

#endif /* RK_IO_INTERNAL_H */
