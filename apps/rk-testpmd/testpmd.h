/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-testpmd: an interactive RDMA workbench on DPDK ports. Ports, the
 * forwarding engines (one const struct rk_tp_engine each, listed in
 * rk_tp_engines[]), and the commands read by librte_cmdline.
 */
#ifndef RK_TESTPMD_H
#define RK_TESTPMD_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "rk_impair.h"

/* Longest line of a command file (librte_cmdline reads 512 bytes a line). */
#define RK_TP_LINE_MAX 500u

#define RK_TP_MAX_PORTS 8
#define RK_TP_BURST 32
#define RK_TP_MAX_RULES 16

struct pcap_dumper;

/* One port as the app sees it. */
struct rk_tp_port {
	bool present;           /* in --portmask and probed */
	bool started;
	bool link_up;           /* last link state seen */
	uint8_t ip[4];          /* "set ip"; 0.0.0.0: none */
	uint16_t vlan;          /* "set vlan"; 0: untagged */
	uint8_t eth_peer[6];    /* "set eth-peer": the MAC of a remote RDMA peer */
	bool eth_peer_set;
	uint16_t mtu;
	bool multi_seg;         /* TX takes chained mbufs (frames past one's room) */
	struct pcap_dumper *pcap;       /* "pcap start": frames received */
	void *pcap_handle;
	/* Frames the app counted on this port. */
	uint64_t rx, tx, tx_dropped, fwd;
};

/* A stream: frames read on rx_port, sent (when the engine forwards) on tx_port. */
struct rk_tp_stream {
	uint16_t rx_port, tx_port;
	uint64_t rx, fwd, dropped;      /* frames read, sent on, lost (engine or TX) */
};

/*
 * A forwarding engine, as "set fwd <name>" selects it. The forwarding loop
 * calls fwd_ready once (when set) to refuse a start it cannot make, then
 * port_fwd_begin for every port in use before the first burst, packet_fwd
 * once per stream per pass, port_fwd_end when "stop" ends the run.
 * To add one: a fwd_<name>.c defining the struct, and a line in fwd.c's table.
 */
struct rk_tp_engine {
	const char *name;
	const char *help;                       /* one line for "set fwd" help */
	int (*fwd_ready)(FILE *out);            /* 0, or negative errno after saying why */
	int (*port_fwd_begin)(uint16_t port);   /* 0, or negative errno: start refused */
	void (*packet_fwd)(struct rk_tp_stream *fs);
	void (*port_fwd_end)(uint16_t port);
};

extern const struct rk_tp_engine *const rk_tp_engines[];
extern const struct rk_tp_engine rk_tp_fwd_io, rk_tp_fwd_mac, rk_tp_fwd_rxonly,
	rk_tp_fwd_impair, rk_tp_fwd_gen, rk_tp_fwd_rdma, rk_tp_fwd_responder;

/* The app's state (one instance). */
struct rk_tp {
	struct rk_tp_port ports[RK_TP_MAX_PORTS];
	uint16_t nb_ports;                      /* ports[] 0..nb_ports-1 */
	struct rte_mempool *pool;
	const struct rk_tp_engine *engine;
	unsigned int nb_cores;
	double stats_period;                    /* s; 0: off */
	volatile bool forwarding;
	volatile sig_atomic_t stop_fwd;         /* set by "stop" and SIGINT */
	volatile bool stopping;                 /* "stop" (not a signal) ends the loop */
	volatile int verbose;
	volatile bool quit;                     /* "quit" read */
	bool cmd_failed;                        /* the command running said it failed */
	unsigned int fwd_lcore;                 /* worker running the loop; main: RTE_MAX_LCORE */
	struct rk_tp_stream streams[RK_TP_MAX_PORTS];
	unsigned int nb_streams;
	/* impair: rules as loaded, the stage built from them on "start". */
	struct rk_impair_rule rules[RK_TP_MAX_RULES];
	unsigned int nb_rules;
	struct rk_impair *impair;
	uint64_t impair_passed;                 /* frames no rule matched */
};

extern struct rk_tp rk_tp;

/* ports.c */
int rk_tp_ports_init(uint64_t portmask);
int rk_tp_port_start(uint16_t port);
int rk_tp_port_stop(uint16_t port);
void rk_tp_port_info(FILE *out, uint16_t port);
void rk_tp_port_stats(FILE *out, uint16_t port);
void rk_tp_port_xstats(FILE *out, uint16_t port);
void rk_tp_show_counters(FILE *out);
void rk_tp_check_links(FILE *out);
int rk_tp_port_set_mtu(uint16_t port, uint16_t mtu);
int rk_tp_pcap_start(uint16_t port, const char *file);
void rk_tp_pcap_stop(uint16_t port);
void rk_tp_pcap_frames(uint16_t port, struct rte_mbuf **m, uint16_t n);
bool rk_tp_port_valid(uint16_t port, FILE *out);

/* fwd.c */
int rk_tp_fwd_start(FILE *out);
void rk_tp_fwd_stop(FILE *out);
int rk_tp_set_fwd(const char *name);
uint16_t rk_tp_send(uint16_t port, struct rte_mbuf **m, uint16_t n, struct rk_tp_stream *fs);
/* Read a burst of up to RK_TP_BURST frames from fs->rx_port into @p m,
 * counted, recorded (pcap start) and decoded (set verbose); @return n. */
uint16_t rk_tp_rx(struct rk_tp_stream *fs, struct rte_mbuf **m);

/* decode.c */
void rk_tp_decode(FILE *out, uint16_t port, const uint8_t *frame, uint32_t len);

/* impair rules (fwd_impair.c) */
int rk_tp_impair_add(const char *text, char *err, unsigned int errlen);
void rk_tp_impair_show(FILE *out);
void rk_tp_impair_clear(void);

/* forge.c: answers forged toward requesters, and the endpoints' reaction */
void rk_tp_forge_reset(void);
/* A frame passing the bump: learn requester QPs from answers, follow requests. */
void rk_tp_forge_observe(const uint8_t *frame, uint32_t len);
/* A request rule @p rule dropped (forge NONE) or answered: an event to follow. */
void rk_tp_forge_event(int rule, enum rk_impair_forge forge, uint8_t arg, const uint8_t *frame,
		      uint32_t len);
/* The answer @p forge to request @p req into @p out: its length, -ENOENT
 * when no answer of the requester's QP was seen yet, -EINVAL, -ENOSPC. */
int rk_tp_forge_build(enum rk_impair_forge forge, uint8_t arg, const uint8_t *req, uint32_t len,
		      uint8_t *out, uint32_t cap);
void rk_tp_forge_report(FILE *out);

/* gen engine (fwd_gen.c): the streams of a stream file (rk-gen's) */
/* Load stream file @p path, replacing the streams loaded; 0, or negative
 * errno with @p err one line: "FILE:LINE: field 'x': reason" for a bad file. */
int rk_tp_gen_load(const char *path, char *err, size_t errlen);
void rk_tp_gen_show(FILE *out);

/* cmds_*.c */
struct cmdline;
extern void *rk_tp_cmds_port[], *rk_tp_cmds_fwd[], *rk_tp_cmds_gen[], *rk_tp_cmds_rdma[],
	*rk_tp_cmds_resp[];
/* A command file's run: 0, its commands failing (> 0), or -1 when it cannot be read. */
int rk_tp_cmdline_run(const char *file, bool interactive, unsigned int *nb_cmds);
/* printf() of a command's error: the command counts as failed. */
void rk_tp_cmd_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A command's action returned @p rc: negative counts as failed. */
static inline int
rk_tp_cmd_rc(int rc)
{
	if (rc < 0)
		rk_tp.cmd_failed = true;
	return rc;
}

#endif /* RK_TESTPMD_H */
