/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-perf internals shared by its files: options, the out-of-band
 * exchange over TCP, results and their reports.
 */
#ifndef RK_PERF_H
#define RK_PERF_H

#include <stdbool.h>
#include <stdint.h>

#include "rk_io_dpdk.h"
#include "rk_verbs.h"

#define PERF_MAX_QPS 64
#define PERF_MAX_SIZES 24

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
	enum rk_io_idle idle;
	uint32_t tx_drop_every;
	double tx_drop_rate;
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
};

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
	 */
	bool ext;
	uint8_t ip_version;
	uint8_t ip6[16];
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

/*
 * oob.c: TCP, every call bounded by a timeout; 0 or -errno. While they
 * wait, the calls run serve(arg) between polls (the RDMA side's progress);
 * serve returns 0 to go on, non-zero to stop the wait with -EINTR (a
 * signal asked to stop).
 */
/*
 * Bind and listen on TCP @p port (IPv6 and IPv4-mapped) into *ls_out: done
 * before the DPDK port waits for its link, so a port already taken
 * (-EADDRINUSE) is reported at once rather than after the link wait.
 */
int oob_listen_open(uint16_t port, int *ls_out);
/* Accept one client on the listening socket @p ls, then close @p ls. */
int oob_accept(int ls, double timeout_s, int *fd_out, int (*serve)(void *), void *arg);
/* oob_listen_open() then oob_accept(). */
int oob_listen(uint16_t port, double timeout_s, int *fd_out, int (*serve)(void *), void *arg);

/*
 * Whether the recording @p path (NULL: none) can be created; if not, says
 * so on stderr as "prog: cannot write the recording PATH: reason". Checked
 * before the port opens, so the error names the file, not the port.
 */
bool recording_writable(const char *prog, const char *path);
/*
 * Connect to host:port, retrying until the server listens or timeout_s
 * passes. @return 0, -errno, or, when the resolver cannot resolve @p host,
 * an error for which oob_resolve_failed() holds (its words: oob_strerror()).
 */
int oob_connect(const char *host, uint16_t port, double timeout_s, int *fd_out,
		int (*serve)(void *), void *arg);
/* Resolver errors of oob_connect(): -(OOB_EAI_BASE + |getaddrinfo's code|). */
#define OOB_EAI_BASE 4096
/* Whether an oob_connect() error says the host name did not resolve. */
bool oob_resolve_failed(int rc);
/* The text of an oob_* error: gai_strerror() for the resolver's, else strerror(). */
const char *oob_strerror(int rc);
int oob_send(int fd, const void *buf, size_t len);
/* Receive exactly len bytes; calls serve(arg) while waiting (progress). */
int oob_recv(int fd, void *buf, size_t len, double timeout_s, int (*serve)(void *), void *arg);
/* Whether a message waits (non-blocking). */
bool oob_readable(int fd);
void oob_encode_hello(const struct perf_hello *h, uint8_t *buf);
void oob_decode_hello(struct perf_hello *h, const uint8_t *buf);
#define OOB_HELLO_LEN (4 + 4 * 5 + 4 * PERF_MAX_SIZES + 16 + 10 + PERF_MAX_QPS * 28)
/*
 * The hello extension, versioned: "RKX" + version 1, ip_version (1 byte),
 * 3 zero bytes, the IPv6 address (16 bytes). The base hello stays as it
 * was; bit 7 of its mode byte (byte 1) says the extension follows, so an
 * IPv4 hello is byte for byte the old one, and an older peer refuses an
 * extended hello as bad parameters (mode out of range) instead of
 * misreading it.
 */
#define OOB_HELLO_F_EXT 0x80
#define OOB_HELLO_EXT_LEN 24
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
 * oob_decode_hello). @return 0, or -EPROTO for an unknown magic/version
 * or an ip_version other than 4 or 6.
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

#endif /* RK_PERF_H */
