/*
 * descent.h: Levenberg-Marquardt descents of a pad fit (stage 3 of fit/fit.c), and the
 * Jacobian behind its identification (stage 4). Internal to the fit layer.
 *
 * A point of the fit is a pad (log timeconst, log dampratio) and each trajectory's release
 * (time, height). A descent moves the free logs and every release together, by GSL's
 * trust-region Levenberg-Marquardt with forward differences block by block (a release moves
 * its own trajectory's rows only); a log outside the searched box is held at its edge, where
 * chi^2 is then flat. With no free log it fits the releases alone at the pad: the profile
 * of the releases the map takes at each of its points.
 */
#ifndef CONTACTD_FIT_DESCENT_H
#define CONTACTD_FIT_DESCENT_H

#include <gsl/gsl_matrix.h>

#include "base/error.h"
#include "fit/problem.h"

struct descent_point {
	double logp[NPHYS]; /* the pad */
	double *rel;        /* (t0, H) of each trajectory in turn; caller-owned */
	double chi2;        /* at the point, set by descent_run() */
};

/*
 * Descend from *pt, in place: the logs moving[] names and every release; the other log held at
 * pt's value. With no free log only the trajectories' rows are weighed (the drops' and
 * presses' do not move with the releases): pt->chi2 is then theirs alone. S is the calling
 * thread's scratch. Adds the trust region's iterations to *iterations. -1 with ERR_INTERNAL
 * when out of memory. Once the fit is stopped every residual is 0 and it ends at once.
 */
int descent_run(const struct problem *P, struct problem_scratch *S, const int moving[NPHYS],
    struct descent_point *pt, int *iterations, struct err *err);

/*
 * The weighted residuals' Jacobian at *pt into J (P->n rows; a column per free log, then two
 * per trajectory), forward differences of step_log in the logs. 0, or -1 with ERR_INTERNAL when
 * out of memory.
 */
int descent_jacobian(const struct problem *P, struct problem_scratch *S, const int moving[NPHYS],
    const struct descent_point *pt, double step_log, gsl_matrix *J, struct err *err);

/* The weighted residuals at *pt into f (P->n, caller-owned) and their chi^2. */
double descent_residuals(const struct problem *P, struct problem_scratch *S,
    const struct descent_point *pt, double *f);

#endif
