/*
 * uncertainty.h: what the Jacobian says of how well the data determine a pad fit's
 * parameters (internal to src/fit/): the covariance and the unidentified directions.
 * fit/fit.c takes the largest of the covariance's standard errors, the profiles'
 * (fit/profile.h) and the bootstrap's (fit/bootstrap.h).
 */
#ifndef CONTACTD_FIT_UNCERTAINTY_H
#define CONTACTD_FIT_UNCERTAINTY_H

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#include "base/error.h"
#include "fit/problem.h"

/* What the Jacobian at x says: the covariance of x (unscaled, pseudo-inverse over the
 * identified directions) and the physical part of the first unidentified direction. */
struct uncertainty_analysis {
	gsl_matrix *cov;        /* p x p */
	int phys_null;          /* an unidentified direction involves timeconst or dampratio */
	int nuisance_null;      /* one involves only release times and heights */
	double null_dir[NPHYS]; /* its (log tc, log dr) part, normalised, 0 for held ones */
};

/*
 * The analysis of the Jacobian at x (over steps of CALIB_SE_STEP, with columns scaled to
 * unit norm) into *an: directions whose singular value is below CALIB_RANK_TOLERANCE of
 * the largest are unidentified. an->cov is allocated by the caller (P->p x P->p) and
 * overwritten. -1 with ERR_INTERNAL when out of memory.
 */
int uncertainty_analyse(
    struct problem *P, const gsl_vector *x, struct uncertainty_analysis *an, struct err *err);

#endif
