/* SPDX-License-Identifier: BSD-3-Clause */
/* DCQCN fluid model fixed point: see dcqcn_fluid.h. */
#include <math.h>

#include "dcqcn_fluid.h"

/* RC a^3 - R_AI b^2 tau'^2: negative for small p, positive for large. */
static double residual(const struct dcqcn_fluid_params *pp, double p, double *a, double *b)
{
	double rc = pp->C / pp->N;
	double l = log1p(-p);

	*a = -expm1(pp->tau_p * rc * l);
	*b = rc * p / expm1(-pp->B * l) + rc * p / expm1(-pp->T * rc * l);
	return rc * *a * *a * *a - pp->R_AI * *b * *b * pp->tau_p * pp->tau_p;
}

int dcqcn_fluid_fixed_point(const struct dcqcn_fluid_params *pp, struct dcqcn_fluid_fp *out)
{
	double lo = 1e-12, hi = 0.5, a, b;

	if (!pp->N || pp->C <= 0 || residual(pp, lo, &a, &b) >= 0 || residual(pp, hi, &a, &b) <= 0)
		return -1;
	for (int i = 0; i < 200; i++) {
		double mid = sqrt(lo * hi);     /* p spans decades */

		if (residual(pp, mid, &a, &b) < 0)
			lo = mid;
		else
			hi = mid;
	}
	out->p = sqrt(lo * hi);
	residual(pp, out->p, &a, &b);
	out->rc = pp->C / pp->N;
	out->alpha = a;
	out->rt = out->rc + pp->R_AI * b * pp->tau_p / a;
	out->q = pp->kmin + out->p / pp->pmax * (pp->kmax - pp->kmin);
	return 0;
}
