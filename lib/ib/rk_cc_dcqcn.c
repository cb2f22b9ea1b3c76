/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DCQCN RP and NP (Zhu et al., SIGCOMM 2015; IBTA Vol1 Annex A17; NVIDIA's
 * parameter set). Integer arithmetic only: see rk_cc_dcqcn.h for the
 * equations and units.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "rk_cc_dcqcn.h"

#define US 1000ull

/*
 * SIGCOMM 2015 (40 Gb/s): g = 1/256 (dce_tcp_g 1020), K = 55 us, timer
 * 55 us, byte counter 10 MB, F = 5, R_AI = 40 Mb/s, CNP interval N = 50 us.
 * The paper sets no R_HAI in its table: 200 Mb/s as in the authors'
 * simulator configuration. Decreases spaced by N, target always clamped.
 */
static const struct rk_dcqcn_params paper = {
	.dce_tcp_g = 1020, .dce_tcp_rtt = 55, .initial_alpha_value = 1024,
	.rate_reduce_monitor_period = 50, .rate_to_set_on_first_cnp = 0,
	.rpg_time_reset = 55, .rpg_byte_reset = 10000000, .rpg_threshold = 5,
	.rpg_ai_rate = 40, .rpg_hai_rate = 200, .rpg_gd = 11, .rpg_min_dec_fac = 50,
	.rpg_min_rate = 1, .rpg_max_rate = 0, .clamp_tgt_rate = true,
	.clamp_tgt_rate_after_time_inc = true,
	.min_time_between_cnps = 50, .cnp_dscp = 48, .cnp_802p_prio = 6,
};

/* NVIDIA's documented defaults (ConnectX-5/6 era firmware). */
static const struct rk_dcqcn_params nvidia_default = {
	.dce_tcp_g = 1019, .dce_tcp_rtt = 1, .initial_alpha_value = 1023,
	.rate_reduce_monitor_period = 4, .rate_to_set_on_first_cnp = 0,
	.rpg_time_reset = 300, .rpg_byte_reset = 32767ull * 64, .rpg_threshold = 1,
	.rpg_ai_rate = 5, .rpg_hai_rate = 50, .rpg_gd = 11, .rpg_min_dec_fac = 50,
	.rpg_min_rate = 1, .rpg_max_rate = 0, .clamp_tgt_rate = false,
	.clamp_tgt_rate_after_time_inc = true,
	.min_time_between_cnps = 4, .cnp_dscp = 48, .cnp_802p_prio = 6,
};

int
rk_dcqcn_profile(const char *name, struct rk_dcqcn_params *p)
{
	if (name == NULL || p == NULL)
		return -EINVAL;
	if (strcmp(name, "paper") == 0)
		*p = paper;
	else if (strcmp(name, "nvidia-default") == 0)
		*p = nvidia_default;
	else
		return -ENOENT;
	return 0;
}

#define F32(n, lo, hi) { #n, offsetof(struct rk_dcqcn_params, n), 4, lo, hi }
#define F64(n, lo, hi) { #n, offsetof(struct rk_dcqcn_params, n), 8, lo, hi }
#define FB(n) { #n, offsetof(struct rk_dcqcn_params, n), 1, 0, 1 }
#define F8(n, hi) { #n, offsetof(struct rk_dcqcn_params, n), 0, 0, hi }

static const struct {
	const char *name;
	size_t off;
	unsigned int size;          /* 4, 8; 1 = bool; 0 = uint8_t */
	uint64_t lo, hi;
} fields[] = {
	F32(dce_tcp_g, 0, 1024), F32(dce_tcp_rtt, 1, 1000000),
	F32(initial_alpha_value, 0, 1024), F32(rate_reduce_monitor_period, 0, 1000000),
	F32(rate_to_set_on_first_cnp, 0, 10000000), F32(rpg_time_reset, 1, 1000000),
	F64(rpg_byte_reset, 1, UINT64_MAX >> 1), F32(rpg_threshold, 0, 31),
	F32(rpg_ai_rate, 0, 10000000), F32(rpg_hai_rate, 0, 10000000), F32(rpg_gd, 0, 31),
	F32(rpg_min_dec_fac, 0, 100), F32(rpg_min_rate, 1, 10000000),
	F32(rpg_max_rate, 0, 10000000), FB(clamp_tgt_rate), FB(clamp_tgt_rate_after_time_inc),
	F32(min_time_between_cnps, 0, 1000000), F8(cnp_dscp, 63), F8(cnp_802p_prio, 7),
};

int
rk_dcqcn_param_range(const char *name, uint64_t *lo, uint64_t *hi)
{
	for (size_t i = 0; name != NULL && i < sizeof(fields) / sizeof(fields[0]); i++)
		if (strcmp(fields[i].name, name) == 0) {
			*lo = fields[i].lo;
			*hi = fields[i].hi;
			return 0;
		}
	return -ENOENT;
}

int
rk_dcqcn_param_set(struct rk_dcqcn_params *p, const char *name, const char *value)
{
	if (p == NULL || name == NULL || value == NULL)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		unsigned long long v;
		char *end;
		uint8_t *at = (uint8_t *)p + fields[i].off;

		if (strcmp(fields[i].name, name) != 0)
			continue;
		/* "-1" and a number too large are numbers: -ERANGE, not -EINVAL */
		if (value[0] == '-' && value[1] >= '0' && value[1] <= '9' &&
		    value[1 + strspn(value + 1, "0123456789")] == '\0')
			return -ERANGE;
		if (value[0] < '0' || value[0] > '9')
			return -EINVAL;
		errno = 0;
		v = strtoull(value, &end, 10);
		if (*end != '\0')
			return -EINVAL;
		if (errno != 0 || v < fields[i].lo || v > fields[i].hi)
			return -ERANGE;
		switch (fields[i].size) {
		case 8: { uint64_t x = v; memcpy(at, &x, 8); break; }
		case 4: { uint32_t x = (uint32_t)v; memcpy(at, &x, 4); break; }
		case 1: { bool x = v != 0; memcpy(at, &x, sizeof(x)); break; }
		default: *at = (uint8_t)v; break;
		}
		return 0;
	}
	return -ENOENT;
}

/* ------------------------------------------------------------------- RP */

/* @p t + @p d, saturating: a time near the end of the clock stays there. */
static uint64_t
later(uint64_t t, uint64_t d)
{
	return t > UINT64_MAX - d ? UINT64_MAX : t + d;
}

/* A period or step of 0 would stop time or divide by zero: take it as 1. */
static uint64_t
nz(uint64_t v)
{
	return v ? v : 1;
}

static void
trace(struct rk_dcqcn_rp *rp, uint64_t now_ns, enum rk_dcqcn_event ev)
{
	if (rp->trace != NULL)
		rp->trace(rp->trace_ctx, rp, now_ns, ev);
}

static uint64_t
max_kbps(const struct rk_dcqcn_rp *rp)
{
	return rp->p->rpg_max_rate ? (uint64_t)rp->p->rpg_max_rate * 1000 : rp->line_kbps;
}

void
rk_dcqcn_rp_init(struct rk_dcqcn_rp *rp, const struct rk_dcqcn_params *p, uint32_t line_mbps)
{
	memset(rp, 0, sizeof(*rp));
	rp->p = p;
	rp->line_kbps = (uint64_t)(line_mbps ? line_mbps : 1) * 1000;
	rp->rc_kbps = rp->rt_kbps = rp->line_kbps;
	rp->alpha = p->initial_alpha_value * (RK_DCQCN_ALPHA_ONE / 1024);
	rp->alpha_due_ns = rp->inc_due_ns = UINT64_MAX;
}

/* One increase event (SIGCOMM 2015 3.3; stage rule as NVIDIA's). */
static void
increase(struct rk_dcqcn_rp *rp, uint32_t *counter, uint64_t now_ns, enum rk_dcqcn_event ev)
{
	const struct rk_dcqcn_params *p = rp->p;
	uint32_t lo = rp->t < rp->bc ? rp->t : rp->bc, hi = rp->t < rp->bc ? rp->bc : rp->t;
	uint64_t top = max_kbps(rp);

	if (lo > p->rpg_threshold)
		rp->rt_kbps += (uint64_t)p->rpg_hai_rate * 1000;
	else if (hi >= p->rpg_threshold)
		rp->rt_kbps += (uint64_t)p->rpg_ai_rate * 1000;
	if (rp->rt_kbps > top)
		rp->rt_kbps = top;
	rp->rc_kbps = (rp->rc_kbps + rp->rt_kbps) / 2;
	if (*counter < UINT32_MAX)
		(*counter)++;
	trace(rp, now_ns, ev);
}

static void
alpha_update(struct rk_dcqcn_rp *rp, uint64_t now_ns)
{
	uint32_t g = rp->p->dce_tcp_g < 1024 ? rp->p->dce_tcp_g : 1024;

	rp->alpha = (uint32_t)((uint64_t)g * rp->alpha / 1024) +
		    (rp->cnp_in_period ? (1024 - g) * (RK_DCQCN_ALPHA_ONE / 1024) : 0);
	rp->cnp_in_period = false;
	trace(rp, now_ns, RK_DCQCN_EV_ALPHA);
}

/*
 * A timer more than RK_DCQCN_MAX_CATCHUP periods behind (the caller slept)
 * runs only its last RK_DCQCN_MAX_CATCHUP: bounded work per call, and by
 * then alpha has decayed to 0 and R_C reached R_T whatever came before.
 */
static void
catch_up(uint64_t *due, uint64_t period_ns, uint64_t now_ns)
{
	uint64_t lim = period_ns * RK_DCQCN_MAX_CATCHUP;

	if (*due != UINT64_MAX && *due < now_ns && now_ns - *due > lim)
		*due += (now_ns - *due - lim) / period_ns * period_ns;
}

void
rk_dcqcn_rp_timer(struct rk_dcqcn_rp *rp, uint64_t now_ns)
{
	catch_up(&rp->alpha_due_ns, nz(rp->p->dce_tcp_rtt) * US, now_ns);
	catch_up(&rp->inc_due_ns, nz(rp->p->rpg_time_reset) * US, now_ns);
	/*
	 * Alpha first on a tie: the increase then sees the state of that
	 * instant. UINT64_MAX is "never" (idle, or the clock's end reached).
	 */
	for (;;) {
		if (rp->alpha_due_ns <= now_ns && rp->alpha_due_ns != UINT64_MAX &&
		    rp->alpha_due_ns <= rp->inc_due_ns) {
			uint64_t t = rp->alpha_due_ns;

			rp->alpha_due_ns = later(t, nz(rp->p->dce_tcp_rtt) * US);
			alpha_update(rp, t);
		} else if (rp->inc_due_ns <= now_ns && rp->inc_due_ns != UINT64_MAX) {
			uint64_t t = rp->inc_due_ns;

			rp->inc_due_ns = later(t, nz(rp->p->rpg_time_reset) * US);
			increase(rp, &rp->t, t, RK_DCQCN_EV_TIMER);
		} else {
			return;
		}
	}
}

bool
rk_dcqcn_rp_cnp(struct rk_dcqcn_rp *rp, uint64_t now_ns)
{
	const struct rk_dcqcn_params *p = rp->p;
	uint64_t red, cap;

	rk_dcqcn_rp_timer(rp, now_ns);
	if (rp->active && now_ns < rp->dec_allowed_ns) {
		rp->cnp_ignored++;
		rp->cnp_in_period = true;
		trace(rp, now_ns, RK_DCQCN_EV_CNP_IGNORED);
		return false;
	}
	if (!rp->active) {
		rp->active = true;
		rp->alpha = p->initial_alpha_value * (RK_DCQCN_ALPHA_ONE / 1024);
		if (p->rate_to_set_on_first_cnp != 0)
			rp->rc_kbps = rp->rt_kbps = (uint64_t)p->rate_to_set_on_first_cnp * 1000;
		rp->alpha_due_ns = later(now_ns, nz(p->dce_tcp_rtt) * US);
	}
	rp->cnp_in_period = true;
	if (p->clamp_tgt_rate || rp->bc > 0 || (p->clamp_tgt_rate_after_time_inc && rp->t > 0))
		rp->rt_kbps = rp->rc_kbps;
	/* rpg_gd counts alpha in 1/1024; the state has 10 more bits */
	red = (rp->rc_kbps * rp->alpha) >> (p->rpg_gd + 10);
	cap = rp->rc_kbps * (100 - (p->rpg_min_dec_fac < 100 ? p->rpg_min_dec_fac : 100)) / 100;
	if (red > cap)
		red = cap;
	rp->rc_kbps -= red;
	if (rp->rc_kbps < nz(p->rpg_min_rate) * 1000)
		rp->rc_kbps = nz(p->rpg_min_rate) * 1000;
	rp->t = rp->bc = 0;
	rp->bytes = 0;
	rp->inc_due_ns = later(now_ns, nz(p->rpg_time_reset) * US);
	rp->dec_allowed_ns = later(now_ns, (uint64_t)p->rate_reduce_monitor_period * US);
	rp->cnp_handled++;
	trace(rp, now_ns, RK_DCQCN_EV_CNP);
	return true;
}

void
rk_dcqcn_rp_sent(struct rk_dcqcn_rp *rp, uint32_t bytes, uint64_t now_ns)
{
	rk_dcqcn_rp_timer(rp, now_ns);
	rp->last_send_ns = now_ns;
	/* bits / (kb/s) = ms / 1000: bytes * 8e6 / kbps ns */
	rp->next_send_ns = later(now_ns, ((uint64_t)bytes * 8000000ull + nz(rp->rc_kbps) - 1) /
						  nz(rp->rc_kbps));
	if (!rp->active)
		return;
	rp->bytes += bytes;
	while (rp->bytes >= nz(rp->p->rpg_byte_reset)) {
		rp->bytes -= nz(rp->p->rpg_byte_reset);
		increase(rp, &rp->bc, now_ns, RK_DCQCN_EV_BYTES);
	}
}

uint64_t
rk_dcqcn_rp_next_timer(const struct rk_dcqcn_rp *rp)
{
	return rp->alpha_due_ns < rp->inc_due_ns ? rp->alpha_due_ns : rp->inc_due_ns;
}

/* ------------------------------------------------------------------- NP */

bool
rk_dcqcn_np_rx(struct rk_dcqcn_np *np, const struct rk_dcqcn_params *p, uint8_t ecn,
	       uint64_t now_ns)
{
	if ((ecn & 3) != 3)
		return false;
	np->ecn_marked++;
	if (np->sent_any && now_ns - np->last_cnp_ns < (uint64_t)p->min_time_between_cnps * US)
		return false;
	np->sent_any = true;
	np->last_cnp_ns = now_ns;
	np->cnp_sent++;
	return true;
}
