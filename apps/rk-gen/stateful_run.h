/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file stateful_run.h
 * rk-gen's stateful mode on a port: options (stateful.c), the session
 * (stateful_run.c: exchange, traffic, end of run, report).
 */
#ifndef RK_GEN_STATEFUL_RUN_H
#define RK_GEN_STATEFUL_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "rk_io_dpdk.h"
#include "rk_cc_dcqcn.h"
#include "stateful.h"

struct rk_sf_run;

/**
 * How a client meets its responder (the one part that differs between
 * peers): rk-gen's hello (stateful_run.c) or a perftest bw server's
 * exchange (stateful_perftest.c, --perftest).
 */
struct rk_sf_peer_ops {
	const char *name;
	/**
	 * Open the exchange, take the peer's QP entries into r->remote and its
	 * address, connect every QP (rk_sf_resolve_connect()). @p local: this
	 * end's entries. @return 0, or 1 after rk_sf_fail()
	 */
	int (*open)(struct rk_sf_run *r, struct rk_gen_hello_qp *local);
	/** After the traffic: end the exchange. @return 0, or 1 after rk_sf_fail() */
	int (*end)(struct rk_sf_run *r);
};

extern const struct rk_sf_peer_ops rk_sf_peer_rkgen, rk_sf_peer_perftest;

struct rk_sf_opts {
	const struct rk_sf_peer_ops *peer; /**< client: its responder's kind */
	bool responder;
	struct rk_gen_hello cfg;        /**< client: what it sends (count = QPs) */
	uint32_t max_qps;               /**< responder: most QPs accepted, all clients together */
	uint32_t clients;               /**< responder: clients served at once (1: one session) */
	uint64_t iters;                 /**< per QP; 0 with a duration */
	double duration_s;
	bool json;
	const char *port;
	uint8_t ip[4];
	uint16_t ip_count;              /**< client: addresses ip .. ip + ip_count - 1 (--ip-count), >= 1 */
	bool have_ip;
	const char *server;
	uint16_t oob_port;
	double tx_drop_rate;
	uint64_t seed;
	double timeout_s;
	uint8_t ack_timeout;            /**< Local ACK Timeout exponent; 0: from the load */
	uint32_t worst;
	uint8_t dscp[RK_SF_DSCP_MAX];   /**< QP i sends with dscp[i % ndscp] */
	uint32_t ndscp;                 /**< 0: DSCP 0 */
	const char *record;             /**< pcapng of the port's frames (headers), or NULL */
	bool dcqcn;                     /**< DCQCN on every QP: ECT(0), CNPs, the RP */
	uint64_t interval_ns;           /**< the series' interval; 0: no series */
	const char *csv, *plot;         /**< the series as CSV ("-": stdout), as a PNG; NULL: not */
	struct rk_dcqcn_params dcqcn_p;
};

/** The series over time (stateful_series.c): COLS values a row. */
struct rk_sf_series {
	uint64_t n, cap;
	double *v;
	bool overflow;
	uint64_t t0_ns;                 /**< the time column's 0 (the run's start) */
	uint64_t last_ns, msgs, bytes, errors, retx; /* at the last row's end */
	/* at the last row's start: a short final interval is folded into that row */
	uint64_t row_ns, row_msgs, row_bytes, row_errors, row_retx;
	struct rk_hist *row_lat;        /**< the last row's latencies (client), or NULL */
};

struct rk_sf_run {
	const struct rk_sf_opts *o;
	struct rk_io_dpdk *io;
	struct rk_context *ctx;
	struct rk_sf s;
	struct rk_gen_hello_qp *remote;
	uint8_t peer_mac[6], peer_ip[4];
	uint16_t peer_ip_count;         /**< the peer's addresses from peer_ip (its hello), >= 1 */
	int lfd, fd;
	uint64_t t0_ns, t_end_ns;
	uint64_t peer_msgs, peer_data_err, peer_seq_err, peer_overwritten;
	bool peer_known;
	struct rk_sf_series series;
	struct rk_sf_run *peers;        /**< responder of --clients above 1: one run per client */
	int (*wait_fn)(void *);         /**< what runs while the exchange waits; NULL: the port only */
	void *wait_arg;
	uint32_t npeers;                /**< of them, connected */
	bool part;                      /**< one client's run of a responder of several:
					 * retransmissions of its own QPs, not the context's */
	char peer_desc[96];             /**< client: what the peer is, when not rk-gen's responder */
};

/** Most clients a responder serves at once (--clients). */
#define RK_SF_MAX_CLIENTS 64u
/* QPs of one process: the device numbers at most 0xffff, two kept for the app */
#define RK_SF_MAX_QPS (0xffffu - 2u)

/** Close the series' current interval at @p now_ns (a row: rates, errors,
 * retransmissions, outstanding messages, the interval's latency), from
 * r->s's totals (a responder of several clients: their sums, set by the caller). */
void rk_sf_series_row(struct rk_sf_run *r, uint64_t now_ns);

/** The series as JSON rows (time_s and the CSV's columns). */
json_t *rk_sf_series_json(const struct rk_sf_series *s);

/** Write --csv and --plot. @return 0, or -1 after saying why on stderr. */
int rk_sf_series_write(const struct rk_sf_run *r);

/**
 * Write --csv and --plot of a responder of several clients: r->series is
 * the sum of all, r->peers[k].series client k + 1's (rows from its
 * connection on, at the same times). CSV: the single series' columns with
 * "client" second, a row per client connected then one of "all" per
 * interval; the plot: the Gb/s of all and of each client (the first 12).
 * @return 0, or -1 after saying why on stderr.
 */
int rk_sf_series_write_many(const struct rk_sf_run *r);

/* The session's parts (stateful_run.c), shared with the report
 * (stateful_report.c) and the responder of several clients (stateful_many.c). */

/** While the exchange waits: the port and the engine served (r, a struct rk_sf_run *). @return 1 on SIGINT/SIGTERM */
int rk_sf_serve(void *r);

/** Say "rk-gen: error: ..." on stderr, kept for rk_sf_refuse(). @return 1 */
int rk_sf_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** rk_sf_fail(), but "interrupted" when @p err is -EINTR (SIGINT, SIGTERM). @return 1 */
int rk_sf_fail_rc(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** Responder: tell the client on @p fd why it is not served (the last rk_sf_fail()), best effort. */
void rk_sf_refuse(int fd);

/** Send this end's hello of @p cfg as @p role with the entries @p local. @return 0 or -errno */
int rk_sf_send_hello(struct rk_sf_run *r, const struct rk_gen_hello *cfg, uint8_t role,
		     struct rk_gen_hello_qp *local);

/** Receive the peer's hello of at most @p max QPs into @p h, its entries into r->remote
 * (@p who names the peer in errors). @return 0, or 1 after rk_sf_fail() */
int rk_sf_recv_hello(struct rk_sf_run *r, struct rk_gen_hello *h, uint32_t max, const char *who);

/** Resolve the peer's addresses (ARP) and connect every QP of r->s. @return 0, or 1 after rk_sf_fail() */
int rk_sf_resolve_connect(struct rk_sf_run *r);

/** Responder: take the client's end message, receive up to its count, answer. @return 0 or 1 */
int rk_sf_responder_end(struct rk_sf_run *r);

/** Both ends' figures agree, nothing wrong. @return 0, or 1 after rk_sf_fail() */
int rk_sf_verdict(const struct rk_sf_run *r);

/** The engine's retransmitted request packets, the whole context. */
uint64_t rk_sf_retransmitted(const struct rk_sf_run *r);

/** The report as text on stdout; @p secs of traffic, @p rc the run's status. */
void rk_sf_report_text(const struct rk_sf_run *r, double secs, int rc);

/** The report as a JSON object (the caller's reference). */
json_t *rk_sf_report_obj(const struct rk_sf_run *r, double secs, int rc);

/** Print @p j on stdout and release it. */
void rk_sf_print_json(json_t *j);

/** A responder of --clients above 1 (stateful_many.c). @return the exit status */
int rk_sf_responder_many(struct rk_sf_run *r);

/** Whether the command line asks for the stateful mode (--responder, --stateful). */
bool rk_sf_wanted(int argc, char **argv);

/**
 * The stateful options into @p o (stateful_opts.c), a bad one said in a line.
 * @return 0, 1 after --help (printed), -1 bad usage
 */
int rk_sf_parse(struct rk_sf_opts *o, int argc, char **argv);

/** Whether @p name ("--ip-count") is an option of the stateful mode only. */
bool rk_sf_only_option(const char *name);

/** Whether --csv is "-": the series takes stdout, the text report is left out. */
bool rk_sf_csv_stdout(const struct rk_sf_opts *o);

/** The stateful options' lines of the usage, for either mode's --help. */
void rk_sf_usage_options(FILE *f);

/** The stateful mode's main, after the EAL split. @return the exit status */
int rk_sf_main(int argc, char **argv, const struct rk_io_dpdk_args *da);

/** Exchange, connect, run, report. @return the exit status: 0, or 1 */
int rk_sf_session(struct rk_sf_run *r);

#endif /* RK_GEN_STATEFUL_RUN_H */
