/* input.h: what a pad calibration fit (fit/fit.h) is given (issue #4): one calibration's
 * measurements (modelled in fit/model.h), and what may stop the fit before it ends. */
#ifndef CONTACTD_FIT_INPUT_H
#define CONTACTD_FIT_INPUT_H

#include <stdatomic.h>
#include <stddef.h>

struct calib_drop {
	double height;  /* m, bottom above the pad at release, > 0 */
	double rebound; /* m, 0 <= rebound <= height */
	double sigma;   /* m, one standard deviation of rebound; 0: CALIB_SIGMA_REBOUND */
};

struct calib_press {
	double force;      /* N, total normal force at rest, >= 0 */
	double deflection; /* m, penetration at rest */
	double sigma;      /* m; 0: hypot(CALIB_SIGMA_DEFLECTION_ABS, _REL * |deflection|) */
};

struct calib_trajectory {
	const double *t; /* s, strictly increasing; n values, owned by the caller */
	const double *z; /* m, bottom height at t[i]; n values, owned by the caller */
	size_t n;        /* >= 3, with at least 2 samples before the lowest one */
	double sigma;    /* m, per sample; 0: CALIB_SIGMA_TRAJECTORY */
};

/* Every measurement of one calibration; the arrays are owned by the caller. */
struct calib_data {
	const struct calib_drop *drops;
	size_t ndrops;
	const struct calib_press *presses;
	size_t npresses;
	const struct calib_trajectory *trajectories;
	size_t ntrajectories;
};

/* What may stop a fit before it ends. */
struct calib_bound {
	const atomic_int *cancel; /* stop when it becomes non-zero (NULL: never) */
	double seconds;           /* stop after this long (0: never) */
};

#endif
