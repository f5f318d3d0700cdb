/*
 * profile.h: the profile likelihood of a pad fit (internal to src/fit/): walks along the
 * profile chi^2 of log timeconst, log dampratio and their sum, from the estimate and from
 * the search's other minima, for the profiles' standard errors and the ends of the
 * likelihood-ratio intervals (fit/interval.h). The walks run over the fit's threads, and
 * their points are kept for the intervals' second pass.
 */
#ifndef CONTACTD_FIT_PROFILE_H
#define CONTACTD_FIT_PROFILE_H

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#include "base/error.h"
#include "fit/problem.h"
#include "fit/uncertainty.h"

/*
 * Profile likelihood. The standard error of a combination v = c . (log tc, log dr)
 * is read off its profile chi^2_p(v): the lowest chi^2 with v held, every other
 * parameter (the other combination, each trajectory's release) refitted. Its k-sigma
 * likelihood-ratio interval is where chi^2_p(v) - chi^2_min <= k^2 s^2 (s^2 = chi^2/dof,
 * the residual variance, or 1 when dof is 0), and the standard error the largest
 * distance from the estimate to an end of the 1-, 2- or 3-sigma interval over k. For a
 * quadratic chi^2 every k gives the covariance's standard error. The trajectories of a
 * bouncy pad, two to six samples in contact at 5 ms, give a long curved valley instead,
 * whose floor rises steeply near the estimate and then levels off: the local slope of
 * the model says nothing about how far the data allow the parameters to move.
 */
enum { PROFILE_TC, PROFILE_DR, PROFILE_PRODUCT, PROFILE_N };

/* What the profiles found: the standard error of each combination, in log units. */
struct profile_result {
	int done[PROFILE_N];
	double se[PROFILE_N];
	/* The 1-, 2- and 3-sigma likelihood-ratio intervals' ends: the outermost over the
	 * walks from the estimate and, for interval_find(), from every other minimum
	 * the search reached within the 2-sigma level where those can still move an answer
	 * (profile.c's modes_matter()); open when a walk ran out still inside the level. */
	double lo[PROFILE_N][3], hi[PROFILE_N][3];
	int open_lo[PROFILE_N][3], open_hi[PROFILE_N][3];
	int better; /* a lower minimum was found */
};

/*
 * The profile standard errors of log timeconst, log dampratio and their sum at the
 * estimate x of P (whose fitted physical parameters are the free ones), with P's covariance
 * cov (unscaled) for the first step. With seek_better, a walk that finds a lower
 * minimum ends it all: pr->better is set and better (P's layout) is the point there.
 * With levels (interval_find()), the intervals at those levels also take the walks
 * from every other minimum within the 2-sigma level, on the sides the estimate's own walks
 * left bounded (modes_matter()); without, pr's intervals are the estimate's walks' alone
 * (profile_standard_errors() uses only the standard errors).
 * The walks run at once (parallel_for()), the estimate's first, and are taken in the order
 * one thread would have walked them, so that the first lower minimum, the error and the
 * iterations are that thread's. -1 with ERR_INTERNAL when out of memory.
 */
int profile_all(struct problem *P, const gsl_vector *x, const gsl_matrix *cov, const double *levels,
    int seek_better, struct profile_result *pr, gsl_vector *better, int *iterations,
    struct err *err);

/*
 * The profiles at x into *pr, an the analysis at x (an->cov sizes the first steps). A walk
 * that finds a lower minimum moves x there (refitted, and an re-analysed for the
 * nuisance's covariance, its identification kept) and the profiles start again, at most
 * CALIB_PROFILE_RESTARTS times: the long valleys that make the profiles necessary also
 * hide the best fit from the descents of search_multi_start(). -1 with ERR_INTERNAL when
 * out of memory.
 */
int profile_standard_errors(struct problem *P, gsl_vector *x, struct uncertainty_analysis *an,
    struct profile_result *pr, int *iterations, struct err *err);

/*
 * The profile walks' points that profile_standard_errors() keeps in P->walk_memo for
 * interval_find(), freed (P->walk_memo NULL again). NULL-safe; call once the
 * intervals are found or the fit ends.
 */
void profile_forget(struct problem *P);

#endif
