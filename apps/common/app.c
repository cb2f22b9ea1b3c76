/* SPDX-License-Identifier: BSD-3-Clause */
/* The apps' shared helpers (rk_app.h): signals, watchdog, patterns, progress. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rk_app.h"

volatile sig_atomic_t rk_app_stop;

static void
on_signal(int sig)
{
	/* First signal: stop cleanly; a second one: leave at once. */
	if (rk_app_stop)
		_exit(128 + sig);
	rk_app_stop = 1;
	alarm(3);
}

void
rk_app_stop_grace(void)
{
	if (rk_app_stop)
		alarm(RK_APP_STOP_GRACE_S);
}

void
rk_app_signals(void)
{
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
}

int
rk_app_fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err[0] != '\0')
		return -1;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

bool
rk_app_watchdog_expired(struct rk_app_watchdog *w, uint64_t now_ns, int work)
{
	if (work > 0 || w->last_ns == 0) {
		w->last_ns = now_ns;
		return false;
	}
	return (double)(now_ns - w->last_ns) > w->timeout_s * 1e9;
}

static uint64_t
seed_of(uint64_t key)
{
	uint64_t s = (key + 1) * 0x9e3779b97f4a7c15ull ^ 0xd1b54a32d192ed03ull;

	return s != 0 ? s : 1;
}

static uint64_t
xorshift64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

void
rk_app_fill(uint8_t *b, size_t len, uint64_t key)
{
	uint64_t s = seed_of(key);

	for (size_t i = 0; i < len; i += 8) {
		uint64_t v = xorshift64(&s);

		memcpy(b + i, &v, len - i < 8 ? len - i : 8);
	}
}

bool
rk_app_check(const uint8_t *b, size_t len, uint64_t key)
{
	uint64_t s = seed_of(key);

	for (size_t i = 0; i < len; i += 8) {
		uint64_t v = xorshift64(&s);

		if (memcmp(b + i, &v, len - i < 8 ? len - i : 8) != 0)
			return false;
	}
	return true;
}

bool
rk_app_progress(struct rk_app_progress *pr, uint64_t now_ns, uint64_t iters, uint64_t bytes,
		double lat_us)
{
	double s = (double)(now_ns - pr->t0_ns) * 1e-9;

	if (pr->next_ns == 0)
		pr->next_ns = pr->t0_ns + 1000000000ull;
	if (now_ns < pr->next_ns)
		return false;
	pr->next_ns = now_ns + 1000000000ull;
	if (s < 0.5)
		return false;
	if (lat_us >= 0)
		fprintf(stderr, "%s: %6.1f s  %10" PRIu64 " iterations  %8.3f us average\n",
			pr->prog, s, iters, lat_us);
	else
		fprintf(stderr, "%s: %6.1f s  %10" PRIu64 " iterations  %8.3f Gb/s\n", pr->prog, s,
			iters, (double)bytes * 8 / s / 1e9);
	return true;
}

bool
rk_app_recording_writable(const char *prog, const char *path)
{
	FILE *f;

	if (path == NULL)
		return true;
	f = fopen(path, "wb");
	if (f == NULL) {
		fprintf(stderr, "%s: cannot write the recording %s: %s\n", prog, path,
			strerror(errno));
		return false;
	}
	fclose(f);
	return true;
}

int
rk_app_parse_rate_units(const char *s, char *units)
{
	if (strcmp(s, "g") != 0 && strcmp(s, "M") != 0 && strcmp(s, "p") != 0)
		return -1;
	*units = s[0];
	return 0;
}

void
rk_app_pacer_init(struct rk_app_pacer *p, double rate, char units, uint32_t msg_bytes,
		  uint64_t now_ns)
{
	memset(p, 0, sizeof(*p));
	if (rate <= 0 || msg_bytes == 0)
		return;
	p->per_s = units == 'p' ? rate : units == 'M' ? rate * 1048576.0 / msg_bytes :
		   rate * 1e9 / 8 / msg_bytes;
	p->t0_ns = now_ns;
	p->burst = p->per_s * 0.05 > 1 ? (uint64_t)(p->per_s * 0.05) : 1;
}

uint64_t
rk_app_pacer_allowed(struct rk_app_pacer *p, uint64_t posted, uint64_t now_ns)
{
	uint64_t allowed;

	if (p->per_s <= 0)
		return UINT64_MAX;
	allowed = p->base + 1 + (uint64_t)(p->per_s * (double)(now_ns - p->t0_ns) * 1e-9);
	if (allowed > posted + p->burst) {
		p->base = posted + p->burst - 1;
		p->t0_ns = now_ns;
		allowed = posted + p->burst;
	}
	return allowed;
}

void
rk_app_interval_init(struct rk_app_interval *iv, double period_s, uint64_t now_ns,
		     uint64_t count)
{
	iv->period_ns = period_s > 0 ? (uint64_t)(period_s * 1e9) : 1000000000ull;
	iv->start_ns = now_ns;
	iv->count0 = count;
	iv->done = 0;
}

bool
rk_app_interval_due(struct rk_app_interval *iv, uint64_t now_ns, uint64_t count,
		    uint64_t *delta, double *secs)
{
	if (now_ns - iv->start_ns < iv->period_ns)
		return false;
	*delta = count - iv->count0;
	*secs = (double)(now_ns - iv->start_ns) * 1e-9;
	iv->start_ns = now_ns;
	iv->count0 = count;
	iv->done++;
	return true;
}

void
rk_app_bw_line(FILE *f, uint32_t bytes, uint64_t iters, double peak_Bps, double avg_Bps,
	       double msg_rate, bool gbits)
{
	double k = gbits ? 8e-9 : 1.0 / 1048576.0;

	fprintf(f, " %-10u %-10llu     %-18.2f %-18.2f   %.6f\n", bytes, (unsigned long long)iters,
		peak_Bps * k, avg_Bps * k, msg_rate / 1e6);
	fflush(f);
}
