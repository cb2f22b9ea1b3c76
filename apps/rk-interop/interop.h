/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-interop internals: an rdmakit endpoint on a DPDK port that speaks the
 * out-of-band exchanges of rdma-core's and perftest's tools, so those tools
 * (on Linux rxe) can run against it unchanged, in either role.
 */
#ifndef RK_INTEROP_H
#define RK_INTEROP_H

#include <stdbool.h>
#include <stdint.h>

#include "rk_app.h"
#include "rk_app_cm.h"
#include "rk_app_oob.h"
#include "rk_app_rdma.h"
#include "rk_cm.h"
#include "rk_io_dpdk.h"
#include "rk_verbs.h"

enum ia_mode {
	IA_RC_PINGPONG,
	IA_UD_PINGPONG,
	IA_WRITE_BW, IA_READ_BW, IA_SEND_BW, IA_ATOMIC_BW,
	IA_WRITE_LAT, IA_READ_LAT, IA_SEND_LAT,
	IA_RPING,
	IA_MODE_COUNT
};

/* READs and atomics in flight at most, ours and asked of the peer (perftest -o). */
#define IA_MAX_OUTS 16u
/* QPs of one perftest run at most (perftest -q). */
#define IA_MAX_QPS 64u

struct ia_opts {
	enum ia_mode mode;
	const char *server_host;        /* NULL: server role */
	uint16_t tcp_port;
	uint32_t size;
	bool all_sizes;                 /* perftest -a: every size 2 .. 8388608 */
	bool atomic_cas;                /* perftest -A CMP_AND_SWAP (else FETCH_AND_ADD) */
	uint32_t qps;                   /* perftest -q: QPs of a bw test (TCP exchange) */
	uint8_t outs;                   /* perftest -o: READs/atomics in flight, 1..IA_MAX_OUTS */
	uint32_t iters;
	double duration_s;              /* perftest -D: bw tests run this long, not --iters */
	bool bidir;                     /* perftest -b: both ends run the test towards the other */
	bool run_infinitely;            /* perftest --run_infinitely: a line per interval, no end */
	bool warm_up;                   /* perftest --perform_warm_up: -t operations first */
	double interval_s;              /* its interval (perftest -D, default 5 s) */
	double rate_limit;              /* perftest --rate_limit (client, SW); 0: none */
	char rate_units;                /* --rate_units: 'g' (default), 'M', 'p' */
	bool uc;                        /* perftest -c UC: unreliable connection QPs */
	uint32_t mtu;                   /* bytes */
	uint32_t rx_depth;
	uint32_t tx_depth;
	uint8_t qp_timeout;             /* local ACK timeout, 4.096 us * 2^N */
	uint8_t dscp;                   /* of our RoCE frames: perftest -T TOS >> 2 */
	const char *dev;
	uint8_t ip[4];
	bool have_ip;
	const char *pcap_path;
	const char *oob_netns;          /* network namespace of the TCP exchange */
	double oob_timeout_s;
	double timeout_s;
	bool verbose;
	bool rdma_cm;                   /* perftest -R: RDMA-CM instead of TCP */
	bool persistent;                /* rping -P: serve client after client */
	/* Fault injection, to see how the peer and rdmakit handle a bad peer. */
	bool bad_rkey;                  /* use a wrong R_Key for the peer's buffer */
	uint32_t psn_skew;              /* start sending this far past the PSN we announced */
	/* bw client: also serve a second server on this TCP port (faults hit the first only) */
	uint16_t pair_port;
	/* --transport iwarp (iwarp.c): MPA over lwIP TCP on the port. */
	bool iwarp;
	uint8_t mpa_rev;                /* 1 or 2 (RFC 6581 enhanced) */
	bool mpa_crc, mpa_markers, mpa_p2p;
	const char *netmask;            /* of --ip for lwIP (default 255.255.255.0) */
};

struct ia {
	struct ia_opts o;
	struct rk_io_dpdk *io;
	struct rk_context *ctx;
	int fd;
	char err[256];
	struct rk_app_watchdog wd;      /* data phases; timeout_s from o.timeout_s */
	uint64_t warm_up_ops;           /* --perform_warm_up: operations done before the measured */
};

/* main.c */
#define ia_fail(a, ...) rk_app_fail((a)->err, sizeof((a)->err), __VA_ARGS__)
/* The out-of-band waits' callback (oob.c): progress; 1 once a signal asked to stop. */
int ia_serve(void *arg);
/* -1 with "interrupted" once SIGINT/SIGTERM asked to stop, else 0. */
int ia_check_stop(struct ia *a);
/* Connect or accept the TCP exchange (by role); 0 or -1 with a message. */
int ia_oob_open(struct ia *a);
/* Bounded reads and writes on the exchange; 0 or -1 with a message. */
int ia_oob_write(struct ia *a, const void *buf, size_t len);
int ia_oob_read(struct ia *a, void *buf, size_t len);
/* The MAC of an IPv4 address by ARP; 0 or -1 with a message. */
int ia_resolve(struct ia *a, const uint8_t ip[4], uint8_t mac[6]);
/* Watchdog of a data loop: -1 with a message after timeout_s without work. */
int ia_watchdog(struct ia *a, int work);
enum rk_mtu ia_mtu_enum(uint32_t bytes);
/*
 * A perftest send_bw server's completion @p wc: 0 when it is no receive
 * (@p recv_bit clear in its wr_id), 1 a receive of @p size bytes (counted
 * in *recvd), -1 with a message for another size.
 */
int ia_take_send(struct ia *a, const struct rk_wc *wc, uint64_t recv_bit, uint32_t size,
		 uint64_t *recvd);
/*
 * Post one signaled work request @p id on @p qp: @p op of @p len bytes at
 * @p local (@p lkey), to @p raddr/@p rkey for RDMA operations. 0, 1 when
 * the send queue is full, -1 with "post_send: reason".
 */
int ia_post_send(struct ia *a, struct rk_qp *qp, uint64_t id, enum rk_wr_opcode op,
		 const void *local, uint32_t len, uint32_t lkey, uint64_t raddr, uint32_t rkey);
/* Where an RC QP sends and what it accepts (IBTA Vol1 11.2.4.2, Modify QP). */
struct ia_rc_path {
	enum rk_mtu mtu;
	uint32_t dest_qpn, rq_psn, sq_psn;
	uint8_t max_dest_rd_atomic, max_rd_atomic, hop_limit;
	const uint8_t *dmac, *dgid;     /* 6 and 16 bytes */
	bool uc;                        /* a UC QP: no ACK timeout, retries or RDMA READ
					   resources (IBTA Vol1 table 91's UC columns) */
};
/*
 * @p qp (INIT) to RTR and RTS on @p p, with o.qp_timeout, 7 retries and
 * RNR retries, min RNR timer 12 (RC; a UC QP takes only the path, PSNs
 * and MTU). 0, or -1 with "modify QP to RTR: reason"
 * (@p name_qp: "modify QP 0x.. to RTR: reason"; RTS the same).
 */
int ia_rc_connect(struct ia *a, struct rk_qp *qp, const struct ia_rc_path *p, bool name_qp);
/* 16-byte GID of an IPv4 address (::ffff:a.b.c.d). */
void ia_gid_v4(uint8_t gid[16], const uint8_t ip[4]);
/* Whether a GID is IPv4-mapped; copies the address. */
bool ia_gid_to_v4(const uint8_t gid[16], uint8_t ip[4]);

/* Dotted IPv4 text to 4 bytes; 0 or -1. */
int ia_parse_v4(const char *s, uint8_t ip[4]);

/* rdmacm.c: QP1 (CM MADs) between the DPDK backend and the engine; rping. */
extern const struct rk_io_ops ia_shim_ops;
int ia_rping(struct ia *a);
/* rping's text for ping @p n: "rdma-ping-N: " then letters A..z rotating, NUL last. */
void ia_rping_text(uint8_t *b, uint32_t size, uint32_t n);
/* rping's buffer advertisement: VA (8), R_Key/STag (4), length (4), big endian. */
void ia_rping_info(uint8_t info[16], const uint8_t *buf, uint32_t rkey, uint32_t size);

/*
 * Client: REQ to o.server_host:o.tcp_port, wait for the REP (serving
 * @p others meanwhile), program @p qp (INIT) to RTS. @p rq_psn is the PSN
 * we announce and expect; @p resources our READ/ATOMIC depth both ways.
 */
int ia_cm_connect(struct ia *a, struct rk_app_cm_conn *c, struct rk_qp *qp, uint32_t rq_psn,
		  uint8_t resources, struct rk_app_cm_conn **others, int nothers);
/* Server: wait for a REQ on o.tcp_port, program @p qp to RTS, REP. */
int ia_cm_accept(struct ia *a, struct rk_app_cm_conn *c, struct rk_qp *qp, uint32_t rq_psn,
		 uint8_t resources, struct rk_app_cm_conn **others, int nothers);
/* Serve the port and the CM once; event bits, or -1 with a message. */
int ia_cm_pump(struct ia *a, struct rk_app_cm_conn **cs, int n, struct rk_app_cm_conn *listen);
/* DREQ what is open (when @p initiate); wait up to @p wait_s for the ends. */
int ia_cm_close(struct ia *a, struct rk_app_cm_conn **cs, int n, bool initiate, double wait_s);

/* pingpong.c: ibv_rc_pingpong / ibv_ud_pingpong peer. */
int ia_pingpong(struct ia *a);

/* perftest_run.c: ib_{write,read,send,atomic}_{bw,lat} peer (TCP exchange). */
int ia_perftest(struct ia *a);

/*
 * iwarp.c: rping and ib_{write,read,send}_bw -R over iWARP (Linux siw);
 * sets and closes a->ctx. 0, -1 with a message, or 3 when the peer
 * refused the MPA markers we asked for.
 */
int ia_iwarp(struct ia *a);

#endif /* RK_INTEROP_H */
