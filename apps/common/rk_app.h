/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rk_app.h
 * What the apps (rk-perf, rk-interop) share around their RDMA engines:
 * the stop signals, the data-phase watchdog, the data patterns, option
 * parsing, the progress line and the recording check.
 */
#ifndef RK_APP_H
#define RK_APP_H

#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ------------------------------------------------------------- signals */

/** Set by the first SIGINT or SIGTERM once rk_app_signals() ran. */
extern volatile sig_atomic_t rk_app_stop;
/**
 * SIGINT and SIGTERM ask to stop (rk_app_stop); a second one leaves at
 * once (exit status 128 + signal), and 3 s after the first SIGALRM's
 * default action ends the process, so a loop that misses the flag cannot
 * outlive the signal. SIGPIPE is ignored (the exchange's errors say it).
 */
void rk_app_signals(void);
/**
 * Seconds rk_app_stop_grace() gives a planned end: rk-interop's takes up
 * to 0.5 s of completions, 2 s serving the peer's last frames, then the
 * port's close and its recording, over 3 s on a loaded machine.
 */
#define RK_APP_STOP_GRACE_S 10
/**
 * A run the signal ends as planned (--run_infinitely) that has work left
 * (completions to reap, the port to close): the guard starts again from
 * now with RK_APP_STOP_GRACE_S seconds. Nothing when no signal came.
 */
void rk_app_stop_grace(void);

/* -------------------------------------------------------------- errors */

/**
 * Keep the first error of a run: format into @p err (@p len bytes) unless
 * it holds one already. @return -1, for "return fail(...)". Each app
 * wraps it as a macro over its own error buffer.
 */
int rk_app_fail(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ------------------------------------------------------------ watchdog */

/**
 * The data phases' "no progress" clock: restarted by any work, expired
 * after @c timeout_s seconds without any.
 */
struct rk_app_watchdog {
	uint64_t last_ns;               /* last progress; 0: not started */
	double timeout_s;
};

/**
 * Account one poll at @p now_ns that did @p work units of work (events,
 * forward movement). @return true once timeout_s passed without work.
 */
bool rk_app_watchdog_expired(struct rk_app_watchdog *w, uint64_t now_ns, int work);
/** Restart the clock at the next poll. */
static inline void
rk_app_watchdog_restart(struct rk_app_watchdog *w)
{
	w->last_ns = 0;
}

/* ------------------------------------------------------------ patterns */

/**
 * The bytes of message @p key: xorshift64 from a seed derived from the key,
 * 8 bytes at a time in host order. A pure function, so the receiver of a
 * message can check it without the sender's buffer.
 */
void rk_app_fill(uint8_t *b, size_t len, uint64_t key);
/** Whether @p b holds rk_app_fill()'s bytes of message @p key. */
bool rk_app_check(const uint8_t *b, size_t len, uint64_t key);

/* ------------------------------------------------------------- options */

/**
 * Parse a whole decimal (or 0x hexadecimal) number in [min, max]; no sign,
 * nothing after it. @return 0, or -1 without touching *out.
 */
int rk_app_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/** rk_app_parse_u64() into a 32-bit value. */
int rk_app_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out);
/** A word an option takes and the value it stands for. */
struct rk_app_word {
	const char *word;
	int value;
};
/** --transport: roce (rocev2) 0, iwarp 1. */
extern const struct rk_app_word rk_app_words_transport[];
/** perftest's -A / --atomic_type: CMP_AND_SWAP 1, FETCH_AND_ADD 0. */
extern const struct rk_app_word rk_app_words_atomic[];
/**
 * The value of word @p s in @p words (a list ended by a NULL word), exact
 * and case-sensitive. @return the value, or -1 when @p s is none of them.
 */
int rk_app_parse_word(const char *s, const struct rk_app_word *words);

struct rk_dcqcn_params;

/**
 * One --dcqcn-param NAME=VALUE into @p p (rk_dcqcn_param_set(): NVIDIA's
 * parameter names, doc/congestion.md), for rk-perf and rk-gen alike.
 * @return 0, or -1 with one line in @p why (@p wlen bytes): not
 *         NAME=VALUE, no such parameter, or the value out of its range
 */
int rk_app_dcqcn_param(struct rk_dcqcn_params *p, const char *spec, char *why, size_t wlen);
/** Parse a whole floating-point number in [min, max]; 0 or -1. */
int rk_app_parse_double(const char *s, double min, double max, double *out);
/**
 * Parse a comma-separated list of at most @p max sizes of min..max bytes
 * ("1,4096,1048576") into @p sizes. Empty entries are errors ("1,,2" is a
 * typo, not two sizes).
 * @param err  on error, why, naming the entry at fault (at most @p errlen bytes)
 * @return the number of sizes, or -1
 */
int rk_app_parse_sizes(const char *s, uint32_t min, uint32_t max, uint32_t *sizes,
		       uint32_t nmax, char *err, size_t errlen);

/* -------------------------------------------------------------- pacing */

/**
 * Software pacing of a bandwidth test's posts, as perftest's --rate_limit
 * with --rate_limit_type SW: messages may be posted up to the rate, one
 * ahead; after a stall (the peer, the scheduler) at most 50 ms' worth go
 * at once, so the mean holds without a burst that floods the path.
 */
struct rk_app_pacer {
	double per_s;                   /* messages per second; 0: unpaced */
	uint64_t base, t0_ns;           /* messages allowed at t0_ns */
	uint64_t burst;                 /* at most this many past what was posted */
};

/**
 * Parse perftest's --rate_units: g (Gb/s), M (MiB/s) or p (messages/s).
 * @return 0 with *@p units set, or -1
 */
int rk_app_parse_rate_units(const char *s, char *units);

/**
 * Start pacing at @p now_ns: @p rate in @p units ('g' Gb/s, 'M' MiB/s, 'p'
 * messages/s; 0 means 'g') for messages of @p msg_bytes bytes (> 0);
 * @p rate <= 0: unpaced.
 */
void rk_app_pacer_init(struct rk_app_pacer *p, double rate, char units, uint32_t msg_bytes,
		       uint64_t now_ns);

/**
 * How many messages may have been posted in all by @p now_ns, @p posted
 * being posted so far. @return the count; UINT64_MAX when unpaced.
 */
uint64_t rk_app_pacer_allowed(struct rk_app_pacer *p, uint64_t posted, uint64_t now_ns);

/* ------------------------------------------------------------ intervals */

/**
 * perftest's --run_infinitely clock: a result line every @c period_ns,
 * each over the operations completed in that interval alone.
 */
struct rk_app_interval {
	uint64_t period_ns;
	uint64_t start_ns;              /* of the interval under way */
	uint64_t count0;                /* the count at start_ns */
	uint32_t done;                  /* intervals ended so far */
};

/** Start the first interval of @p period_s seconds at @p now_ns, @p count done so far. */
void rk_app_interval_init(struct rk_app_interval *iv, double period_s, uint64_t now_ns,
			  uint64_t count);
/**
 * Whether the interval under way ended by @p now_ns (@p count done so far);
 * if so, its count and length in seconds go to *@p delta and *@p secs and
 * the next interval starts.
 */
bool rk_app_interval_due(struct rk_app_interval *iv, uint64_t now_ns, uint64_t count,
			 uint64_t *delta, double *secs);

/**
 * perftest's bandwidth result line: " #bytes #iterations peak average
 * rate" in its columns; bandwidths in MB/s (2^20 bytes) or, with
 * @p gbits, Gb/s; @p msg_rate in messages per second (printed as Mpps).
 */
void rk_app_bw_line(FILE *f, uint32_t bytes, uint64_t iters, double peak_Bps, double avg_Bps,
		    double msg_rate, bool gbits);

/* ------------------------------------------------------------ progress */

/** The once-a-second progress line of a data phase, on stderr. */
struct rk_app_progress {
	const char *prog;               /* prefix: "rk-perf" */
	uint64_t t0_ns;                 /* start of the phase */
	uint64_t next_ns;               /* next line due; 0: a second after t0_ns */
};

/**
 * Print "PROG: S s  N iterations  X Gb/s" when a line is due (every second,
 * from half a second on). With @p lat_us non-negative (latency tests, whose
 * bytes move too slowly for a useful rate) the mean latency so far, in
 * microseconds, replaces the rate. @return whether a line was printed.
 */
bool rk_app_progress(struct rk_app_progress *pr, uint64_t now_ns, uint64_t iters,
		     uint64_t bytes, double lat_us);

/* ----------------------------------------------------------- recording */

/**
 * Whether the recording @p path (NULL: none) can be created; if not, says
 * so on stderr as "prog: cannot write the recording PATH: reason". Checked
 * before a port opens, so the error names the file, not the port.
 */
bool rk_app_recording_writable(const char *prog, const char *path);

#endif /* RK_APP_H */
