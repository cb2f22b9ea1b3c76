/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DCQCN reaction point (RP) and notification point (NP) per QP, in integer
 * arithmetic so that a scripted sequence of events gives exact results.
 *
 * Algorithm: Zhu et al., "Congestion Control for Large-Scale RDMA
 * Deployments", SIGCOMM 2015 (sections 3.1-3.3); CNP format and ECN use:
 * IBTA Vol1 Annex A17 (RoCEv2) A17.9; parameter names, units and defaults:
 * NVIDIA's RoCE congestion control parameters (sysfs ecn/roce_rp, roce_np).
 *
 * Units used throughout:
 *   time       ns in the state, us in the parameters (as NVIDIA documents)
 *   rates      Mb/s in the parameters, kb/s in the state (less truncation)
 *   alpha      fixed point: the parameters in 1/1024 (NVIDIA's unit), the
 *              state in 1/2^20 (RK_DCQCN_ALPHA_ONE): a 10-bit alpha
 *              truncated at every update loses at least 1/1024 a period,
 *              so below about 0.25 it decays several times faster than
 *              dce_tcp_g says (at 0.03, 8 times) and DCQCN settles with
 *              a queue 2.6 times the fluid model's at 2 flows
 *   bytes      bytes (rpg_byte_reset is in bytes here; NVIDIA's unit is
 *              not documented with certainty)
 *
 * The form is NVIDIA's (ConnectX-4 and later), which contains the paper's
 * as a parameter set:
 *   alpha timer, every dce_tcp_rtt us once active:
 *     alpha <- dce_tcp_g * alpha / 1024 + (CNP seen in period ? 1 - dce_tcp_g / 1024 : 0)
 *   CNP, applied at most once per rate_reduce_monitor_period (else ignored):
 *     first CNP: alpha <- initial_alpha_value; R_C = R_T <- rate_to_set_on_first_cnp
 *       (0 = keep the current rate); timers start
 *     if clamp_tgt_rate or BC > 0 or (clamp_tgt_rate_after_time_inc and T > 0): R_T <- R_C
 *     R_C <- max(rpg_min_rate, R_C - min(R_C * alpha >> rpg_gd,
 *                                        R_C * (100 - rpg_min_dec_fac) / 100))
 *     T, BC, byte count <- 0; increase timer re-armed
 *   increase event (timer every rpg_time_reset us, or every rpg_byte_reset bytes):
 *     hyper if min(T, BC) > rpg_threshold:      R_T += rpg_hai_rate
 *     additive if max(T, BC) >= rpg_threshold:  R_T += rpg_ai_rate
 *     fast recovery otherwise
 *     R_T <- min(R_T, max rate); R_C <- (R_C + R_T) / 2; then T (or BC) += 1
 * With rpg_gd 11 and alpha/1024 this is the paper's R_C * (1 - alpha/2).
 * The paper's g = 1/256 is dce_tcp_g = 1020 (weight of the old alpha).
 */
#ifndef RK_CC_DCQCN_H
#define RK_CC_DCQCN_H

#include <stdbool.h>
#include <stdint.h>

/** DCQCN parameters, NVIDIA names (sysfs ecn/roce_rp and roce_np). */
struct rk_dcqcn_params {
	/* RP */
	uint32_t dce_tcp_g;                 /**< /1024: weight of the old alpha */
	uint32_t dce_tcp_rtt;               /**< us: alpha update period */
	uint32_t initial_alpha_value;       /**< /1024: alpha at the first CNP */
	uint32_t rate_reduce_monitor_period;/**< us: least time between decreases */
	uint32_t rate_to_set_on_first_cnp;  /**< Mb/s; 0 = keep the current rate */
	uint32_t rpg_time_reset;            /**< us: increase timer period */
	uint64_t rpg_byte_reset;            /**< bytes sent per increase event */
	uint32_t rpg_threshold;             /**< stage threshold F (count) */
	uint32_t rpg_ai_rate;               /**< Mb/s: additive increase step */
	uint32_t rpg_hai_rate;              /**< Mb/s: hyper increase step */
	uint32_t rpg_gd;                    /**< log2 shift: R_C * alpha >> rpg_gd */
	uint32_t rpg_min_dec_fac;           /**< %: a decrease keeps at least this much */
	uint32_t rpg_min_rate;              /**< Mb/s: floor of R_C */
	uint32_t rpg_max_rate;              /**< Mb/s; 0 = line rate */
	bool clamp_tgt_rate;                /**< R_T <- R_C on every decrease */
	bool clamp_tgt_rate_after_time_inc; /**< ... also when T > 0 */
	/* NP */
	uint32_t min_time_between_cnps;     /**< us: per QP */
	uint8_t cnp_dscp;                   /**< DSCP of CNPs */
	uint8_t cnp_802p_prio;              /**< PCP of CNPs (when tagged) */
};

/**
 * The parameters of a named profile: "paper" (SIGCOMM 2015, 40 Gb/s set)
 * or "nvidia-default" (NVIDIA's documented defaults).
 * @return 0, or -ENOENT for an unknown name (*p untouched).
 */
int rk_dcqcn_profile(const char *name, struct rk_dcqcn_params *p);

/**
 * Set one parameter by its NVIDIA name from a decimal string.
 * @return 0, -ENOENT for an unknown name, -EINVAL for a value that is not
 *         a decimal integer, -ERANGE for a number out of the parameter's range.
 */
int rk_dcqcn_param_set(struct rk_dcqcn_params *p, const char *name, const char *value);

/**
 * The values parameter @p name takes, @p lo to @p hi.
 * @return 0, or -ENOENT for an unknown name.
 */
int rk_dcqcn_param_range(const char *name, uint64_t *lo, uint64_t *hi);

/** Events reported to the trace hook. */
enum rk_dcqcn_event {
	RK_DCQCN_EV_CNP = 0,        /**< CNP applied: rate decreased */
	RK_DCQCN_EV_CNP_IGNORED,    /**< CNP inside rate_reduce_monitor_period */
	RK_DCQCN_EV_ALPHA,          /**< alpha timer */
	RK_DCQCN_EV_TIMER,          /**< increase by the timer */
	RK_DCQCN_EV_BYTES,          /**< increase by the byte counter */
};

struct rk_dcqcn_rp;
/** alpha 1.0 in the RP's state: 1/1024 steps with 10 more bits. */
#define RK_DCQCN_ALPHA_ONE (1u << 20)

/** @p alpha (the state's 1/2^20) in the parameters' 1/1024, rounded down: for display. */
#define RK_DCQCN_ALPHA_1024(alpha) ((uint32_t)(alpha) / (RK_DCQCN_ALPHA_ONE / 1024))

/** Trace hook: called after each event with the new state. */
typedef void (*rk_dcqcn_trace_fn)(void *ctx, const struct rk_dcqcn_rp *rp, uint64_t now_ns,
				  enum rk_dcqcn_event ev);

/** RP state of one QP. */
struct rk_dcqcn_rp {
	const struct rk_dcqcn_params *p;
	uint64_t line_kbps;         /**< kb/s: line rate, R_C and R_T before any CNP */
	uint64_t rc_kbps, rt_kbps;  /**< kb/s: current and target rate */
	uint32_t alpha;             /**< 1/2^20 (RK_DCQCN_ALPHA_ONE = 1.0) */
	uint32_t t, bc;             /**< increase events by timer / byte counter since a decrease */
	uint64_t bytes;             /**< bytes sent since the last byte-counter event */
	bool active;                /**< a CNP has been seen */
	bool cnp_in_period;         /**< a CNP since the last alpha update */
	uint64_t alpha_due_ns, inc_due_ns, dec_allowed_ns;
	uint64_t last_send_ns;      /**< pacer: when the last frame left */
	uint64_t next_send_ns;      /**< pacer: earliest next frame */
	uint64_t cnp_handled, cnp_ignored;
	rk_dcqcn_trace_fn trace;
	void *trace_ctx;
};

/** Start an RP at line rate @p line_mbps (Mb/s, > 0) with parameters @p p (kept by pointer). */
void rk_dcqcn_rp_init(struct rk_dcqcn_rp *rp, const struct rk_dcqcn_params *p,
		      uint32_t line_mbps);

/**
 * A CNP for this QP arrived at @p now_ns (Annex A17.9.3). Runs due timers
 * first. @return true if it decreased the rate, false if ignored (inside
 * rate_reduce_monitor_period of the last decrease; counted in cnp_ignored).
 */
bool rk_dcqcn_rp_cnp(struct rk_dcqcn_rp *rp, uint64_t now_ns);

/** Most periods one timer catches up in one call (see rk_dcqcn_rp_timer). */
#define RK_DCQCN_MAX_CATCHUP 4096u

/**
 * Run the alpha and increase timers due at or before @p now_ns, in time
 * order (alpha first on a tie). A timer more than RK_DCQCN_MAX_CATCHUP
 * periods late runs only the last RK_DCQCN_MAX_CATCHUP of them. Periods
 * of 0 count as 1 us, so time always moves on.
 */
void rk_dcqcn_rp_timer(struct rk_dcqcn_rp *rp, uint64_t now_ns);

/**
 * @p bytes left on the wire at @p now_ns: byte-counter increase events
 * (once active) and the pacer's next send time (bytes / R_C after now).
 */
void rk_dcqcn_rp_sent(struct rk_dcqcn_rp *rp, uint32_t bytes, uint64_t now_ns);

/** Earliest time of the RP's next timer, UINT64_MAX when idle. */
uint64_t rk_dcqcn_rp_next_timer(const struct rk_dcqcn_rp *rp);

/** NP state of one QP. */
struct rk_dcqcn_np {
	uint64_t last_cnp_ns;
	bool sent_any;
	uint64_t ecn_marked, cnp_sent;
};

/**
 * A packet with IP ECN @p ecn (RFC 3168: 3 = CE) reached the QP at @p now_ns.
 * @return true when a CNP must be sent now: CE, and none sent for this QP
 * within min_time_between_cnps (one CNP stands for every mark in the window,
 * Annex A17 CA17-44). Not-ECT and ECT packets never ask for one.
 */
bool rk_dcqcn_np_rx(struct rk_dcqcn_np *np, const struct rk_dcqcn_params *p, uint8_t ecn,
		    uint64_t now_ns);

#endif /* RK_CC_DCQCN_H */
