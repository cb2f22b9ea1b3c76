/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-flow traces of an rk_sdq run (rk_sim_dcqcn.h) for rk-sim's scenario
 * commands: a CSV row per flow and sample (rate, R_C, alpha, queue, CNPs,
 * PFC frames and time paused), the same in JSON every tenth sample, and
 * each flow's bytes per 1 ms window for convergence and fairness.
 */
#ifndef RK_SIM_FLOWS_H
#define RK_SIM_FLOWS_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "rk_sim_dcqcn.h"

#define RK_SIM_FLOWS_MAX (RK_SDQ_MAX_SENDERS + 1)

struct rk_sim_flows {
	FILE *cf;                       /**< CSV rows, or NULL */
	json_t *jt;                     /**< JSON trace array, or NULL */
	const char *run;                /**< the run's name, in every row */
	unsigned int n;                 /**< flows (senders and the victim) */
	uint64_t sample_ns;
	uint64_t *win;                  /**< bytes per flow per 1 ms window (window-major),
					     or NULL */
	unsigned long n_win;            /**< windows in win */
	/* filled by each sample */
	uint64_t k;                     /**< samples taken */
	uint64_t prev[RK_SIM_FLOWS_MAX];
	double gbps[RK_SIM_FLOWS_MAX];  /**< each flow's received rate over the last sample */
	struct rk_sdq_flow f[RK_SIM_FLOWS_MAX];
	uint64_t queue;                 /**< the bottleneck queue, bytes */
};

/** The CSV header line the rows of rk_sim_flows_sample() follow. */
void rk_sim_flows_header(FILE *cf);

/**
 * Sample flows 0..n-1 of @p s at virtual time @p t (a multiple of
 * sample_ns, called once per sample in order): rates over the last
 * sample into gbps[], counters into f[], a CSV row per flow, a JSON
 * object per flow every tenth sample, the bytes into their 1 ms window.
 */
void rk_sim_flows_sample(struct rk_sim_flows *tr, const struct rk_sdq *s, uint64_t t);

/**
 * The first 1 ms window, at or after @p from, from which flow @p i's
 * bytes stay within +-10 % of @p share in every window to the last;
 * -1 when none.
 */
long rk_sim_flows_within(const struct rk_sim_flows *tr, unsigned int i, unsigned long from,
			 double share);

/**
 * Jain's index over the flows' bytes of each 1 ms window from @p from to
 * the last: the lowest; @p mean (may be NULL) gets their mean.
 */
double rk_sim_flows_jain_min(const struct rk_sim_flows *tr, unsigned long from, double *mean);

#endif
