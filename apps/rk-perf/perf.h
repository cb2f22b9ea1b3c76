/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-perf internals shared by its files: options, the out-of-band
 * exchange over TCP, results and their reports.
 */
#ifndef RK_PERF_H
#define RK_PERF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "rk_app.h"
#include "rk_app_oob.h"
#include "rk_app_rdma.h"
#include "rk_io_dpdk.h"
#include "rk_cc_dcqcn.h"
#include "rk_impair.h"
#include "rk_verbs.h"

#define PERF_MAX_QPS 64
#define PERF_MAX_SIZES 24
#define PERF_MAX_POST_LIST 256

enum perf_verb { VERB_WRITE, VERB_READ, VERB_SEND, VERB_ATOMIC };
enum perf_mode { MODE_BW, MODE_LAT };

struct perf_opts {
	enum perf_verb verb;
	enum perf_mode mode;
	bool server;
	const char *server_host;
	uint16_t tcp_port;
	uint32_t size;
	bool all_sizes;
	uint64_t iters;                 /* per QP */
	double duration_s;              /* 0: iteration count */
	uint32_t qps;
	uint32_t mtu;                   /* bytes */
	uint32_t tx_depth, rx_depth;
	bool report_gbits, json, verify, counters;
	bool atomic_cas;
	const char *dev;                /* ethdev name; NULL: port 0 */
	uint8_t ip[4];
	bool have_ip;
	const char *pcap_path;
	uint32_t snaplen;               /* --snaplen: bytes recorded per frame; 0: whole;
					 * RK_IO_SNAP_HEADERS: up to the payload */
	bool dcqcn;                     /* --dcqcn: DCQCN on every QP (RoCEv2) */
	struct rk_dcqcn_params dcqcn_p; /* its profile, then --dcqcn-param changes */
	const char *dcqcn_profile;      /* the profile's name */
	enum rk_io_idle idle;
	uint32_t tx_drop_every;
	double tx_drop_rate;
	double rx_ecn_ce;               /* --rx-ecn-ce: CE marked on RX with this probability */
	uint64_t rx_ecn_ce_count;       /* --rx-ecn-ce P:N: among the first N frames; 0: all */
	const char *dcqcn_trace;        /* --dcqcn-trace: QP 0's RP events as CSV */
	bool tx_copy;                   /* --tx-copy: no payloads by reference */
	uint64_t warmup;                /* latency tests: --warmup, when warmup_set */
	bool warmup_set;
	uint64_t seed;
	uint16_t vlan;
	double oob_timeout_s;           /* TCP connect/accept and every OOB message */
	double timeout_s;               /* data phase: no progress for this long */
	double arp_timeout_s;
	uint32_t link_timeout_ms;
	/* RoCEv2 over IPv6 from this address (network order) when have_ip6. */
	uint8_t ip6[16];
	bool have_ip6;
	/* iWARP (--transport iwarp): TCP from lwIP on the port, or kernel sockets. */
	bool iwarp;
	bool tcp_kernel;
	const char *netmask;            /* lwIP interface; NULL: 255.255.255.0 */
	/* perftest's options of the same meaning. */
	double limit_bw;                /* -w: least average bandwidth, report unit; 0: none */
	double limit_msgrate;           /* -y: least message rate, Mpps; 0: none */
	int tos;                        /* -T/--tclass: IP ToS (DSCP << 2); -1: 0 */
	int pcp;                        /* -S: 802.1Q PCP with --vlan; -1: 0 */
	uint8_t hop_limit;              /* -L: IPv4 TTL / IPv6 hop limit; 0: 64 */
	bool histogram;                 /* -H: every latency */
	bool unsorted;                  /* -U: every latency in order of measurement */
	bool run_infinitely;            /* BW client: intervals of -D until a signal */
	double rate_limit;              /* --rate_limit: client's software pacing; 0: none */
	char rate_units;                /* --rate_units: 'g' Gb/s, 'M' MiB/s, 'p' messages/s */
	uint32_t cq_mod;                /* -Q: BW client: one completion per cq_mod WRs; 0: each */
	bool bidir;                     /* -b: the server runs the test towards the client too */
	uint32_t post_list;             /* -l: BW client: WRs per rk_post_send(); 0: one */
	int qp_timeout;                 /* -u: local ACK timeout exponent (IBTA 9.7.6.1.3); -1: 14 */
	bool no_peak;                   /* -N: BW peak not measured, reported 0 as perftest's */
	uint32_t outs;                  /* -o: READs/atomics in flight per QP (max_rd_atomic); 0: 16 */
};

/*
 * refused.c: a perftest option rk-perf does not implement, by perftest's
 * letter (0: long only) and long name: what it means there and what
 * rk-perf offers instead.
 */
struct perf_refused {
	char letter;
	const char *name;
	const char *meaning;
	const char *hint;
};

/* The refused options, ended by an entry of NULL name. */
const struct perf_refused *perf_refused_options(void);
/* Say on stderr, one line, that @p given (as typed: "-I", "--odp") is refused and why. */
void perf_refuse_option(const struct perf_refused *r, const char *given);

/* What each side tells the other about one QP (perftest's pingpong_dest). */
struct perf_qp_info {
	uint32_t qpn, psn, rkey;
	uint64_t va, len;
};

/* Hello message: endpoint address, parameters (client's win), QPs. */
struct perf_hello {
	uint8_t verb, mode, verify, atomic_cas;
	uint32_t mtu, qps, tx_depth, rx_depth, nsizes;
	uint32_t sizes[PERF_MAX_SIZES];
	uint64_t iters;
	uint64_t duration_ms;
	uint8_t ip[4], mac[6];
	struct perf_qp_info qp[PERF_MAX_QPS];
	/*
	 * Hello extension (OOB_HELLO_EXT_LEN bytes after the hello, announced
	 * by OOB_HELLO_F_EXT in the mode byte): the RoCEv2 address family, 4
	 * (0 taken as 4) or 6, and the IPv6 address. ext says an extension
	 * follows (decode) or is to be sent (encode with oob_encode_hello_all).
	 * Version 2 adds flags: bidir, -b (client: run the test towards me
	 * too; server: I do).
	 */
	bool ext;
	uint8_t ip_version;
	uint8_t ip6[16];
	bool bidir;
};

/*
 * Per-phase control messages. The server sends nothing while the client
 * runs a phase, so the client takes anything readable then (a message, the
 * close) as the server stopping.
 */
enum perf_msg_type {
	MSG_PHASE = 1,  /* client: start size N */
	MSG_READY,      /* server: buffers prepared, receives posted */
	MSG_END,        /* client: done, iterations per QP; status != 0: text says why */
	MSG_RESULT,     /* server: verification result */
	MSG_BYE,
	/*
	 * server: it stopped after its hello (interrupted, an error of its
	 * own), text says why; then it closes. Sent at any time: a client
	 * reads it during its phases too. An older client reads none then and
	 * sees it, or the close, at its next message, as it saw the close.
	 */
	MSG_ABORT,
	/*
	 * after a MSG_END with status != 0 (client) or a MSG_ABORT (server)
	 * whose text (127 bytes) was cut: the next 127 bytes of why; more
	 * follow while a text fills all 127. An older peer has closed by
	 * then and reads none.
	 */
	MSG_END_TEXT,
};

struct perf_msg {
	uint32_t type;
	uint32_t size;
	int32_t status;                 /* 0 ok, else an error (verify failed ...) */
	/*
	 * MSG_END: iterations per QP. A latency test has one QP: iters[0]
	 * counts all iterations run, iters[1] the warm-up among them (0 from
	 * a client without warm-up).
	 */
	uint64_t iters[PERF_MAX_QPS];
	char text[128];
};

/* proto.c: the messages above, in network byte order. */
void oob_encode_hello(const struct perf_hello *h, uint8_t *buf);
void oob_decode_hello(struct perf_hello *h, const uint8_t *buf);
#define OOB_HELLO_LEN (4 + 4 * 5 + 4 * PERF_MAX_SIZES + 16 + 10 + PERF_MAX_QPS * 28)
/*
 * The hello extension, versioned: "RKX" + version 1, ip_version (1 byte),
 * 3 zero bytes, the IPv6 address (16 bytes). Version 2, sent only with a
 * flag set: byte 5 holds flags (OOB_HELLO_X_BIDIR); an older peer refuses
 * it as of an unknown version, and version 1 is still read (no flags). The base hello stays as it
 * was; bit 7 of its mode byte (byte 1) says the extension follows, so an
 * IPv4 hello is byte for byte the old one, and an older peer refuses an
 * extended hello as bad parameters (mode out of range) instead of
 * misreading it.
 */
#define OOB_HELLO_F_EXT 0x80
#define OOB_HELLO_EXT_LEN 24
#define OOB_HELLO_X_BIDIR 0x01          /* version 2 flags: -b */
#define OOB_HELLO_MAX_LEN (OOB_HELLO_LEN + OOB_HELLO_EXT_LEN)
/*
 * Encode the hello and, when h->ext or h->ip_version == 6, its extension
 * after it (the mode byte then carries OOB_HELLO_F_EXT).
 * @param buf  OOB_HELLO_MAX_LEN bytes
 * @return bytes to send: OOB_HELLO_LEN or OOB_HELLO_MAX_LEN.
 */
size_t oob_encode_hello_all(const struct perf_hello *h, uint8_t *buf);
/* Bytes of extension announced by an encoded hello (0 or OOB_HELLO_EXT_LEN). */
size_t oob_hello_ext_len(const uint8_t *hello);
/*
 * Decode the OOB_HELLO_EXT_LEN bytes of an extension into @p h (after
 * oob_decode_hello). @return 0, or -EPROTO for an unknown magic/version,
 * an ip_version other than 4 or 6, or flags unknown here.
 */
int oob_decode_hello_ext(struct perf_hello *h, const uint8_t *ext);
void oob_encode_msg(const struct perf_msg *m, uint8_t *buf);
/* Decode OOB_MSG_LEN bytes; the text ends in a NUL, unprintable bytes as '?'. */
void oob_decode_msg(struct perf_msg *m, const uint8_t *buf);
#define OOB_MSG_LEN (12 + 8 * PERF_MAX_QPS + 128)

/*
 * Refusal: what a server sends instead of its hello when it will not run
 * with the client (transport or address family not its own, parameters
 * it cannot take, a port in use, the client's address unreachable), then
 * closes. "RKR" + version 1, the reason as an errno value (network order:
 * EPROTO a hello it cannot read, EINVAL incompatible options, EADDRINUSE
 * a port in use, EHOSTUNREACH the client unreachable over RDMA, ENOMEM),
 * the server's message (128 bytes, NUL-padded). A hello starts with its
 * verb (0..3), never 'R', so 4 bytes tell the two apart; an older client
 * reads a refusal as a hello cut short by the close, as before.
 */
#define OOB_REFUSE_LEN (4 + 4 + 128)
#define OOB_REFUSE_VERSION 1

struct perf_refusal {
	uint8_t version;                /* as received (decode) */
	int32_t reason;                 /* an errno value */
	char text[128];                 /* NUL-terminated */
};

/* Encode a refusal of version OOB_REFUSE_VERSION into OOB_REFUSE_LEN bytes. */
void oob_encode_refusal(const struct perf_refusal *r, uint8_t *buf);
/* Whether the first 4 bytes of what a server sent announce a refusal (any version). */
bool oob_is_refusal(const uint8_t *buf);
/*
 * Decode OOB_REFUSE_LEN bytes; the text always ends in a NUL.
 * @return 0, -EPROTO for an unknown version (r->version says which) or
 *         bytes that are no refusal.
 */
int oob_decode_refusal(struct perf_refusal *r, const uint8_t *buf);

/*
 * Mode byte flag of an iWARP client's or server's hello: a RoCE peer
 * refuses it as bad parameters (mode out of range), an iWARP peer refuses
 * a hello without it.
 */
#define OOB_HELLO_F_IWARP 0x40
/*
 * Mode byte flag of an iWARP send_bw hello: the client keeps a credit word
 * after its slots and sends only into receives the server counted as
 * posted; the server, answering with the flag, RDMA-Writes that count.
 * An older server refuses it as bad parameters (mode out of range); to a
 * client without it, the server sends no credits.
 */
#define OOB_HELLO_F_CREDITS 0x20

/* iwarp.c: one TCP connection per QP (lwIP on the port, or kernel sockets). */
struct perf_iw;
/* Whether rk-perf was built with lwIP. */
bool perf_iw_has_lwip(void);
/* Attach lwIP (unless o->tcp_kernel) and open an iWARP context into *ctx; NULL + err. */
struct perf_iw *perf_iw_open(struct rk_io_dpdk *io, const struct perf_opts *o,
			     struct rk_context **ctx, char *err, size_t errlen);
/* Move lwIP's frames (a no-op for kernel sockets); frames moved. */
int perf_iw_poll(struct perf_iw *w);
/* Listen for the client's connections on TCP @p port; 0 or -errno. */
int perf_iw_listen(struct perf_iw *w, const struct perf_opts *o, uint16_t port);
/* Accept one connection into @p qp (MPA responder): 1, 0 (none yet), -errno. */
int perf_iw_accept(struct perf_iw *w, const struct perf_opts *o, struct rk_qp *qp);
/* Connect @p qp to host:port (MPA initiator); 0 or -errno. */
int perf_iw_connect(struct perf_iw *w, const struct perf_opts *o, struct rk_qp *qp,
		    const char *host, uint16_t port);
/* lwIP frame counters (0 for kernel sockets). */
void perf_iw_stats(const struct perf_iw *w, uint64_t *rx, uint64_t *tx, uint64_t *tx_err);
void perf_iw_close(struct perf_iw *w);

/* One result line. */
struct perf_result {
	uint32_t bytes;
	uint64_t iters;                 /* all QPs */
	double seconds;
	double bw_peak_Bps, bw_avg_Bps, msg_rate;
	uint64_t cqes;                  /* bandwidth client: completions polled (-Q: fewer) */
	uint64_t post_calls;            /* bandwidth client: rk_post_send() calls that posted */
	double peer_bw_avg_Bps;         /* -b: the server's direction, included in bw_avg_Bps */
	/* latency, us */
	double t_min, t_max, t_typical, t_avg, t_stdev, p99, p999;
	uint64_t warmup;                /* latency: iterations run first, not in the above */
};

/*
 * Latency warm-up, per size: the first pass over a port's rings is slow
 * (memif under --no-huge: page faults in both processes on each of its
 * 1024 slots per direction, about 10x the steady round trip). read_lat
 * and atomic_lat fill one slot each way per iteration, so 2048 cover the
 * rings twice; large messages fill them in fewer, so at most 128 MiB of
 * messages. --warmup N sets the count (0: none).
 */
#define PERF_WARMUP_ITERS 2048
#define PERF_WARMUP_BYTES (128u << 20)
/* Warm-up iterations of a latency phase of messages of @p bytes. */
uint64_t perf_warmup(const struct perf_opts *o, uint32_t bytes);

/* report.c */
const char *perf_test_title(const struct perf_opts *o);
void report_header(const struct perf_opts *o, const struct perf_hello *local,
		   const struct perf_hello *remote, uint32_t mac_link);
void report_columns(const struct perf_opts *o);
void report_line(const struct perf_opts *o, const struct perf_result *r);
void report_footer(void);
void lat_stats(double *us, uint64_t n, struct perf_result *r);
/* -H/-U: "#, usec", then "N, latency" for each of @p n latencies in microseconds. */
void print_latencies(const double *us, uint64_t n);

/* ------------------------------------------------------- one run's state */

#define MIB (1024u * 1024u)
#define KEY_SERVER ((uint64_t)1 << 39)
#define KEY_READ ((uint64_t)1 << 38)

struct qpres {
	struct rk_qp *qp;
	uint8_t *buf;                   /* send source / RDMA target / atomic target */
	struct rk_mr *mr;
	uint8_t *rbuf;                  /* receive buffers (SEND tests) */
	struct rk_mr *rmr;
	uint32_t psn;
	uint64_t posted, done, recvd;
	uint64_t verify_errors;
	/* iWARP SEND bw credits, counted over the whole run (see post_credit()). */
	uint64_t sent;                  /* client: SENDs posted */
	uint64_t taken, credited;       /* server: receives taken and reposted; last told */
};

struct perf_engine;

struct perf {
	struct perf_opts o;
	const struct perf_engine *e;    /* the test: o.verb and o.mode */
	struct rk_io_dpdk *io;
	struct rk_impair_io *rx_imp;    /* --rx-ecn-ce: the RX stage over io, or NULL */
	FILE *trace_f;                  /* --dcqcn-trace, open from option checking on */
	uint64_t trace_t0;              /* its time origin (ns), the first event */
	uint64_t trace_rows, trace_last[3]; /* rows written; R_C, R_T, alpha of the last */
	struct rk_ib_qp *trace_qp;
	struct rk_context *ctx;
	struct rk_pd *pd;
	struct rk_cq *scq, *rcq;
	struct qpres q[PERF_MAX_QPS];
	struct perf_hello local, remote;
	int fd;
	int lfd;                        /* server: the OOB listening socket until accept */
	uint32_t sizes[PERF_MAX_SIZES];
	uint32_t nsizes, max_size;
	size_t buf_len;                 /* per QP */
	size_t data_len;                /* of buf_len, the message slots */
	/*
	 * iWARP SEND bw: the server RDMA-Writes its count of receives taken
	 * (64-bit, network order) to credit_off in the client's buffer, the
	 * page after the slots; the client sends only into posted receives.
	 */
	bool credits;
	size_t credit_off;
	uint32_t rslots;                /* receive slots of max_size per QP */
	uint8_t peer_mac[6];
	json_t *jresults;
	char err[512];
	struct rk_app_watchdog wd;      /* data phase: last progress seen; 0: restart */
	uint64_t idle_since_ns;         /* kernel sockets: first idle poll of this wait; 0: busy */
	uint64_t mark;                  /* watchdog: the QPs' rk_qp_progress() sum */
	uint64_t next_mark_ns;          /* watchdog: when to read it again */
	bool moved;                     /* watchdog: progress seen in this phase */
	struct perf_iw *iw;             /* --transport iwarp */
	struct perf_refusal refusal;    /* client: the server's, after recv_hello() -ECONNREFUSED */
	/* This end's command line, for the server's note on what the client replaced. */
	uint32_t given;                 /* GIVEN_* bits */
	struct perf_opts own;
	uint32_t own_sizes[PERF_MAX_SIZES], own_nsizes;
	bool hello_sent;                /* server: the client runs; a failure is told (MSG_ABORT) */
	uint32_t cq_mod;                /* this phase's -Q, at most its window; 0 or 1: each WR */
	/* -l: the engine's post() stores its WR here instead of posting it. */
	bool batching;
	uint32_t nbatch;
	struct rk_send_wr batch[PERF_MAX_POST_LIST];
	struct rk_sge batch_sge[PERF_MAX_POST_LIST];
};

/* Options of the client's that a server takes (adopt()), when given on its command line. */
enum {
	GIVEN_SIZE = 1 << 0,            /* -s, -a, --sizes */
	GIVEN_RUN = 1 << 1,             /* -n, -D */
	GIVEN_QPS = 1 << 2,
	GIVEN_MTU = 1 << 3,
	GIVEN_TX_DEPTH = 1 << 4,
	GIVEN_RX_DEPTH = 1 << 5,
	GIVEN_ATOMIC = 1 << 6,          /* -A */
	GIVEN_VERIFY = 1 << 7,
};

/*
 * A test is an engine (engine_bw.c, engine_lat.c): the callbacks of one
 * family over the resources of verbs.c, driven by the phases of
 * session.c. Every callback that fails says why with fail() and
 * returns -1.
 */
struct perf_engine {
	const char *name;               /* the TEST argument: "write_bw" */
	enum perf_verb verb;
	enum perf_mode mode;
	/* Both ends, before a phase of messages of @size: the memory's contents. */
	void (*prepare)(struct perf *p, uint32_t size);
	/*
	 * Post message number q->posted of QP @qi into slot it % @slots:
	 * 0, 1 (send queue full: poll first) or -1.
	 */
	int (*post)(struct perf *p, uint32_t qi, uint32_t size, uint32_t slots);
	/* Check what the completed message @it of QP @qi brought back (NULL: nothing). */
	void (*complete)(struct perf *p, uint32_t qi, uint64_t it, uint32_t size, uint32_t slots);
	/* Latency client: one iteration, number @it (NULL for bandwidth); 0 or -1. */
	int (*round)(struct perf *p, uint32_t size, uint64_t it);
	/* Client: run a phase (post, poll, complete) into *r; 0 or -1. */
	int (*run)(struct perf *p, uint32_t size, struct perf_result *r);
	/* Server: serve a phase until the client's end message waits; 0 or -1. */
	int (*serve)(struct perf *p, uint32_t size);
	/* Server: judge the phase by the client's end message into @res. */
	void (*verify)(struct perf *p, uint32_t size, const struct perf_msg *end,
		       struct perf_msg *res);
};

/* The tests, in the order of the usage line; NULL-terminated. */
extern const struct perf_engine *const perf_engines[];
/* The engine of a test (verb and mode in range), else NULL. */
const struct perf_engine *perf_engine_of(enum perf_verb verb, enum perf_mode mode);

/* session.c: the exchange and the phases of either role. */
#define fail(p, ...) rk_app_fail((p)->err, sizeof((p)->err), __VA_ARGS__)
/* The out-of-band waits' callback: progress; non-zero ends the wait (-EINTR). */
int perf_serve(void *arg);
/*
 * Whether a stop signal ends this end's run as planned: a --run_infinitely
 * client finishes its interval and says goodbye; anything else is
 * interrupted.
 */
static inline bool
perf_soft_stop(const struct perf *p)
{
	return p->o.run_infinitely && !p->o.server;
}
/* Whether the peer sent a message; a syscall, so asked at most every 200 us. */
bool oob_due(struct perf *p);
/* Client, in a phase: the server sent something or closed; -1 with why. */
int server_stopped(struct perf *p);
/* Wait until the peer closes @p fd (EOF), an error, or @p ms pass. */
void wait_eof(int fd, int ms);
int exchange(struct perf *p);
int client_phases(struct perf *p);
int server_phases(struct perf *p);
/* Server, after its hello: tell the client why this end stops. */
void abort_client(struct perf *p);

/* verbs.c: resources, connection, progress and the watchdog. */
static inline uint64_t
now_ns(void)
{
	return rk_io_dpdk_now_ns();
}
uint32_t msg_bytes(const struct perf *p, uint32_t size);
uint32_t nslots(const struct perf *p, uint32_t size);
void perf_idle(struct perf *p, int work);
/* trace.c: --dcqcn-trace. open: 0, or -1 (said) when the file cannot be
 * written; start: QP 0 reports to it; close: 0, or -1 (said). */
int perf_dcqcn_trace_open(struct perf *p);
struct rk_ib_qp;
void perf_dcqcn_trace_start(struct perf *p, struct rk_ib_qp *qp);
int perf_dcqcn_trace_close(struct perf *p);
void perf_event(struct perf *p);
int check_wc(struct perf *p, const struct rk_wc *wc);
const char *peer_addr(const struct perf *p, char *buf, size_t len);
int watchdog(struct perf *p, int events);
const char *post_error(struct rk_qp *qp, int rc, char *buf, size_t len);
int post_recv_slot(struct perf *p, uint32_t qi, uint32_t slot);
int drain_scq(struct perf *p, int *work);
int create_resources(struct perf *p);
int iw_init_qps(struct perf *p);
int iw_establish(struct perf *p);
int connect_qps(struct perf *p);
void destroy_resources(struct perf *p);

/* engine_bw.c, shared with the latency engines of READ and ATOMIC. */
int run_bw_client(struct perf *p, uint32_t size, struct perf_result *r);
void prepare_phase(struct perf *p, uint32_t size);
int post_read(struct perf *p, uint32_t qi, uint32_t size, uint32_t slots);
int post_atomic(struct perf *p, uint32_t qi, uint32_t size, uint32_t slots);
void complete_read(struct perf *p, uint32_t qi, uint64_t it, uint32_t size, uint32_t slots);
void complete_atomic(struct perf *p, uint32_t qi, uint64_t it, uint32_t size, uint32_t slots);
void server_verify(struct perf *p, uint32_t size, const struct perf_msg *end,
		   struct perf_msg *res);
int server_bw(struct perf *p, uint32_t size);
extern const struct perf_engine perf_write_bw, perf_read_bw, perf_send_bw, perf_atomic_bw;
/* engine_lat.c */
extern const struct perf_engine perf_write_lat, perf_read_lat, perf_send_lat, perf_atomic_lat;

/* usage.c */
void perf_usage(FILE *f);

/* options.c: rk_app_start()'s parser of the command line; 2: bad usage. */
int perf_parse_args(void *arg, int argc, char **argv);
/* What the option loop saw that the checks after it need. */
struct perf_opts_seen {
	bool size_set, iters_set, list_set, tcp_set, snaplen_set, mtu_set;
	const char *port_opt;           /* the first option that acts on the DPDK port only */
};
/* option_checks.c: the test, the server, the combinations refused; 2: bad usage. */
int perf_check_options(struct perf *p, const struct perf_opts_seen *g, int argc, char **argv);

/* report.c: results as JSON, counters. */
void add_json_result(struct perf *p, const struct perf_result *r);
void print_json(struct perf *p, int status);
void print_counters(struct perf *p);

#endif /* RK_PERF_H */
