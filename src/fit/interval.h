/*
 * interval.h: the confidence intervals of a pad fit's log parameters (internal to
 * src/fit/): the regions of chi^2 within the 1- and 2-sigma levels, found by the profile
 * walks (fit/profile.h), the first search's grid and, with few degrees of freedom, a fine
 * scan of the searched range.
 */
#ifndef CONTACTD_FIT_INTERVAL_H
#define CONTACTD_FIT_INTERVAL_H

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#include "base/error.h"
#include "fit/problem.h"

/* Confidence intervals of the free log parameters (see interval.c). */
struct interval_result {
	int done[NPHYS];         /* parameter q's intervals were found */
	double log[NPHYS][2][2]; /* [q][k - 1][low, high], -inf or +inf where open */
	double levels[3];        /* the k-sigma levels of chi^2 - chi^2_min used */
	int chi2_test;           /* a level was raised to the chi^2 test's (few dof) */
	/* log(timeconst*dampratio)'s 2-sigma interval is open (its walk ran out inside the
	 * level, or a grid or scan point inside it lies on the searched range's edge, beyond
	 * which the region may go on), or was not found */
	int product_open;
};

/*
 * interval_find: the 1- and 2-sigma confidence intervals of each free log
 * parameter at the estimate x of P (cov: uncertainty_analyse()'s, for the walks' first
 * steps) into *out. P's first search must have run (its grid and minima are read).
 * Fails only when out of memory.
 */
int interval_find(struct problem *P, const gsl_vector *x, const gsl_matrix *cov,
    struct interval_result *out, int *iterations, struct err *err);

#endif
