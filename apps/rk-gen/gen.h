/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file gen.h
 * rk-gen's parts: a capture replayed as one of the scheduler's sources
 * (replay.c; the scheduler is lib/gen's rk_gen_sched.h), the DPDK sender
 * (port.c), and the receive side: accounting and reports (recv.c:
 * a capture read back), and the DPDK receiver (recv_port.c).
 */
#ifndef RK_GEN_APP_H
#define RK_GEN_APP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "rk_gen_rewrite.h"
#include "rk_gen_rx.h"
#include "rk_gen_sched.h"
#include "rk_gen_stream.h"

/** What a replay did (rk_gen_replay_add). */
struct rk_gen_replay_stats {
	uint64_t read;          /**< frames read from the capture, all loops */
	uint64_t cut;           /**< of them, captured shorter than they were on the wire */
	struct rk_gen_rewrite_stats rw;
};

/** A capture to replay (--replay). */
struct rk_gen_replay_opts {
	const char *file;       /**< pcap or pcapng, Ethernet */
	double speed;           /**< the capture's gaps divided by this (> 0) */
	uint8_t rate_unit;      /**< enum rk_gen_rate_unit: a fixed rate instead; NONE: the capture's timing */
	double rate;
	uint64_t loops;         /**< times through the capture; 0: endless */
	struct rk_gen_rewrite rw;
	struct rk_gen_replay_stats *stats; /**< filled when the replay is freed, or NULL */
};

/**
 * Add the replay of capture @p o->file to @p s (@p o must outlive it):
 * frames as captured (caplen bytes), rewritten by @p o->rw, at the
 * capture's times divided by @p o->speed (a loop starting one frame time
 * after the last one's) or at @p o->rate. Says why on stderr when the
 * capture cannot be opened, is not Ethernet or holds no frames.
 * @return 0, or -1
 */
int rk_gen_replay_add(struct rk_gen_sched *s, const struct rk_gen_replay_opts *o);

/** Whether @p name ("--rate") is an option of the stateless mode (main.c). */
bool rk_gen_stateless_option(const char *name);

/** Ports rk-gen sends on at once, at most. */
#define RK_GEN_PORTS_MAX 8

/** What the DPDK sender needs from the command line. */
struct rk_gen_port_opts {
	const char *port;        /**< ethdev name ("net_null0") or port number: the first */
	const char *record;      /**< pcapng of every frame the first port sends, or NULL */
	const char *ports[RK_GEN_PORTS_MAX];   /**< every port (--port repeated) */
	const char *records[RK_GEN_PORTS_MAX]; /**< each one's recording, or NULL */
	uint32_t nports, nrecords;
	bool top_speed;          /**< ignore the rates: send as fast as the port takes */
	uint64_t limit;          /**< frames per port */
	uint64_t duration_ns;    /**< stop after this long; 0: when the streams end */
	struct rk_gen_recv_port *rx; /**< receive here in the same loop, or NULL */
	bool json;               /**< the report (ports, streams) as JSON on stdout */
	double timeout_s;        /**< each port's start and link up within this, s; 0: 10 */
};

struct rk_io_dpdk;

/**
 * Open DPDK port @p port (ethdev name or number; the EAL is up), taking
 * every RoCEv2 frame whatever its addresses, recording to pcapng
 * @p record when not NULL, busy-polling when @p spin, with @p extra_mbufs
 * more in its pool than lib/io's default (the sender's kept frames), its
 * start and link up within @p timeout_s seconds (0: 10). Says why on
 * stderr when it cannot.
 * @return the port, or NULL
 */
struct rk_io_dpdk *rk_gen_port_open(const char *port, const char *record, bool spin,
				    uint32_t extra_mbufs, double timeout_s);

/**
 * Send the streams on o->nports DPDK ports (the EAL is up), port k the
 * frames of @p scheds[k]: each port's in time order, paced by the streams'
 * rates against the TSC unless top_speed; SIGINT or SIGTERM ends the run.
 * Prints a summary line per port on stderr, and a total with several.
 * @return the exit status: 0, or 1 (port, send or recording error)
 */
int rk_gen_port_run(struct rk_gen_sched *const *scheds, const struct rk_gen_port_opts *o);

/**
 * Wall-clock time (CLOCK_REALTIME), ns since the epoch: the TX time the
 * port sender writes and the RX time of the port receiver.
 */
uint64_t rk_gen_wall_ns(void);

/** What the receive side needs from the command line. */
struct rk_gen_recv_opts {
	const char *pcap_in;     /**< a capture to read back (pcap or pcapng), or NULL */
	const char *port;        /**< a DPDK port to receive on, or NULL */
	const char *record;      /**< with port: every frame received, to pcapng */
	uint32_t seq_off;        /**< the slot's offset in the payload, bytes */
	uint64_t expect;         /**< frames sent per stream; 0: unknown */
	bool json;               /**< the report as JSON on stdout */
	double timeout_s;        /**< port: its start and link up within this, s; 0: 10 */
	uint64_t duration_ns;    /**< port: stop after this long; 0: no limit */
	uint64_t idle_ns;        /**< port: stop this long after the last frame; 0: never */
	uint32_t rx_drop_every;  /**< port: the impairment stage drops every Nth frame; 0: none */
	uint64_t rx_delay_ns;    /**< port: and holds every frame this long, ns */
	uint64_t interval_ns;    /**< the series' interval, ns; 0: no series */
	const char *csv;         /**< the series as CSV to this file ("-": stdout), or NULL */
	const char *plot;        /**< the series as a PNG (gnuplot), or NULL */
};

/** One interval of the receive series (recv_series.c). */
struct rk_gen_series_row {
	uint64_t frames, bytes;  /**< received in the interval; bytes as captured */
	int64_t lost;            /**< growth of the streams' loss over it */
	uint64_t reordered, duplicates;
	uint64_t lat_count;      /**< frames with a one-way latency */
	uint64_t lat_p50_ns, lat_p99_ns, lat_max_ns;
	uint64_t len_ns;         /**< the interval's length: the last row's may differ */
};

/** Totals over the streams of a receive run. */
struct rk_gen_recv_totals {
	uint64_t unique, lost, reordered, duplicates, lat_max;
};

/** The receive series: intervals of RX time from the first frame's. */
struct rk_gen_series {
	uint64_t interval_ns, t0_ns;
	bool started, overflow;
	uint64_t frames, bytes;        /**< the open interval */
	uint64_t last_rx_ns;           /**< the last frame's RX time: the series' end */
	struct rk_hist *lat;           /**< the open interval's latencies (in lat_buf) */
	struct rk_hist *row_lat;       /**< the last row's: a short final interval joins it */
	struct rk_hist lat_buf[2];
	struct rk_gen_recv_totals last; /**< the totals when the last row closed */
	struct rk_gen_recv_totals row_last; /**< and when it opened */
	struct rk_gen_series_row *row;
	uint64_t n, cap;
};

/** A receive run: the accounting and what the report needs besides. */
struct rk_gen_recv {
	const struct rk_gen_recv_opts *o;
	struct rk_gen_rx acc;
	uint64_t frames;         /**< every frame read */
	uint64_t no_slot;        /**< not RoCEv2 with a BTH */
	uint64_t short_slot;     /**< RoCEv2 with a payload too short for the slot */
	uint64_t t0_ns, next_line_ns; /**< the per-second line: run start, next line */
	uint64_t last_frames;    /**< frames at the last line */
	struct rk_gen_series *series; /**< with o->interval_ns, else NULL */
};

/** Totals over @p r's streams into @p t. */
void rk_gen_recv_totals(const struct rk_gen_recv *r, struct rk_gen_recv_totals *t);

/** A series of @p interval_ns (> 0) intervals, or NULL (out of memory). */
struct rk_gen_series *rk_gen_series_new(uint64_t interval_ns);

/** Free @p s (NULL: nothing). */
void rk_gen_series_free(struct rk_gen_series *s);

/**
 * A frame arrives at @p rx_ns: the intervals that ended before it close,
 * empty ones included, before its stream counts it (its loss belongs to
 * its own interval); the first frame starts the series.
 */
void rk_gen_series_before(struct rk_gen_series *s, const struct rk_gen_recv *r, uint64_t rx_ns);

/**
 * Then account it: @p len bytes, and its one-way latency @p lat_ns (ns)
 * when it has one (NULL otherwise).
 */
void rk_gen_series_frame(struct rk_gen_series *s, uint32_t len, const uint64_t *lat_ns);

/** Close every interval that ended by @p now_ns (live runs, when frames stop). */
void rk_gen_series_advance(struct rk_gen_series *s, const struct rk_gen_recv *r,
			   uint64_t now_ns);

/** Close the last, open interval (at the end of the run). */
void rk_gen_series_finish(struct rk_gen_series *s, const struct rk_gen_recv *r);

/** The series as CSV (a header line, then a row per interval) onto @p f. */
void rk_gen_series_csv(const struct rk_gen_series *s, FILE *f);

/** The series as a JSON array of objects, one per interval (a new reference). */
json_t *rk_gen_series_json(const struct rk_gen_series *s);

/**
 * Write what @p o asks of the series: o->csv, o->plot (titled @p title).
 * Says why on stderr when it cannot.
 * @return 0, or -1 (a file not written, gnuplot failed)
 */
int rk_gen_series_write(const struct rk_gen_series *s, const struct rk_gen_recv_opts *o,
			const char *title);

/** Start a run with options @p o (kept). */
void rk_gen_recv_init(struct rk_gen_recv *r, const struct rk_gen_recv_opts *o);

/** Account one frame of @p len bytes received at @p rx_ns (ns, the TX times' clock). */
void rk_gen_recv_frame(struct rk_gen_recv *r, const uint8_t *frame, uint32_t len,
		       uint64_t rx_ns);

/** Live runs: once @p now_ns passes each second since the start, a line on stderr. */
void rk_gen_recv_tick(struct rk_gen_recv *r, uint64_t now_ns);

/**
 * The final report: a table per stream on stdout, or JSON with o->json
 * (the series in it with o->interval_ns); then the series' CSV and plot.
 * @return 0, or -1 (a series file not written, or no series for want of memory)
 */
int rk_gen_recv_report(struct rk_gen_recv *r);

/** Free the accounting. */
void rk_gen_recv_fini(struct rk_gen_recv *r);

/**
 * Read capture o->pcap_in back (Ethernet; the RX time of a frame is its
 * capture timestamp) and report.
 * @return the exit status: 0, or 1 (cannot open or read, not Ethernet)
 */
int rk_gen_recv_pcap(const struct rk_gen_recv_opts *o);

/**
 * Receive on DPDK port o->port (the EAL is up), every RoCEv2 frame
 * whatever its addresses, until SIGINT/SIGTERM, o->duration_ns or
 * o->idle_ns (frames held by the impairment stage waited for); a line a
 * second on stderr, then the report.
 * @return the exit status: 0, or 1 (port or recording error)
 */
int rk_gen_recv_port(const struct rk_gen_recv_opts *o);

/** A receiving port, for a loop of another's: what rk_gen_recv_port() is made of. */
struct rk_gen_recv_port;

/**
 * Open port o->port for receiving (the stage around it when asked for)
 * and start the accounting. Says why on stderr when it cannot.
 * @return the receiver, or NULL
 */
struct rk_gen_recv_port *rk_gen_recv_port_open(const struct rk_gen_recv_opts *o);

/**
 * Take every frame waiting (or due from the stage) and account it; the
 * per-second line when due.
 * @return frames taken, or -1 on a receive error (said on stderr)
 */
int rk_gen_recv_port_poll(struct rk_gen_recv_port *p);

/** Whether the run is over: SIGINT/SIGTERM, an error, o->duration_ns or o->idle_ns. */
bool rk_gen_recv_port_done(struct rk_gen_recv_port *p);

/** The port's idle policy after a poll that took @p work frames (spins while frames are held). */
void rk_gen_recv_port_idle(struct rk_gen_recv_port *p, int work);

/**
 * Report, close the port, free @p p.
 * @return the exit status: 0, or 1 (a receive error, the recording incomplete)
 */
int rk_gen_recv_port_close(struct rk_gen_recv_port *p);

#endif /* RK_GEN_APP_H */
