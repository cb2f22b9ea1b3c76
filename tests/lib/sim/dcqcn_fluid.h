/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fixed point of the DCQCN fluid model (Zhu et al., "Congestion Control for
 * Large-Scale RDMA Deployments", SIGCOMM 2015, section 5) for N identical
 * flows on one bottleneck, solved numerically: a test oracle for the
 * packet-level switch and the rate controller. Rates in packets/s, times in
 * seconds, B and queue lengths in packets.
 */
#ifndef DCQCN_FLUID_H
#define DCQCN_FLUID_H

struct dcqcn_fluid_params {
	double C;               /**< bottleneck capacity, packets/s */
	unsigned int N;         /**< flows */
	double tau_p;           /**< tau': alpha update / CNP interval, s */
	double T;               /**< rate-increase timer, s */
	double B;               /**< byte counter, packets */
	double R_AI;            /**< additive increase, packets/s */
	double kmin, kmax;      /**< RED thresholds, packets */
	double pmax;
};

struct dcqcn_fluid_fp {
	double p;               /**< marking probability p* */
	double q;               /**< queue q*, packets (RED inverted; > kmax: p* >= pmax) */
	double rc, rt, alpha;   /**< per-flow current and target rate, alpha */
};

/*
 * Solve dRC/dt = dRT/dt = dalpha/dt = 0 with RC = C / N:
 *   a = 1 - (1 - p)^(tau' RC)                     (a window sees a mark)
 *   b = RC p / ((1 - p)^-B - 1) + RC p / ((1 - p)^-(T RC) - 1)   (increase events/s)
 *   alpha = a,  RT - RC = R_AI b tau' / a,  RC a^3 = R_AI b^2 tau'^2
 * by bisection on p in (0, 1). @return 0, -1 when there is no root.
 */
int dcqcn_fluid_fixed_point(const struct dcqcn_fluid_params *pp, struct dcqcn_fluid_fp *out);

#endif
