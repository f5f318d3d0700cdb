/*
 * descent.h: Levenberg-Marquardt descents of a pad fit (stage 3 of fit/fit.c), and the Jacobian
 * behind its identification (stage 4). Internal to the fit layer. A descent moves the free logs
 * and every trajectory's release (time, height) together by GSL's trust region, with forward
 * differences block by block (a release moves its own trajectory's rows only); a log outside the
 * box is held at its edge. With no free log it fits the releases alone: the map's profile.
 */
#ifndef CONTACTD_FIT_DESCENT_H
#define CONTACTD_FIT_DESCENT_H

#include <gsl/gsl_matrix.h>

#include "fit/problem.h"

struct descent_point {
	double logp[NPHYS]; /* the pad */
	double *rel;        /* (t0, H) of each trajectory in turn; caller-owned */
	double chi2;        /* at the point, set by descent_run() */
};

/* Descend from *pt in place, moving the logs moving[] names and every release; with no free log
 * pt->chi2 is the trajectories' rows' alone. S: the calling thread's scratch; the iterations are
 * added to *iterations. -1 with ERR_INTERNAL when out of memory; a stopped fit ends at once. */
int descent_run(const struct problem *P, struct problem_scratch *S, const int moving[NPHYS],
    struct descent_point *pt, int *iterations, struct err *err);

/* The weighted residuals' Jacobian at *pt into J (P->n rows; a column per free log, then two per
 * trajectory), steps of step_log in the logs. -1 with ERR_INTERNAL when out of memory. */
int descent_jacobian(const struct problem *P, struct problem_scratch *S, const int moving[NPHYS],
    const struct descent_point *pt, double step_log, gsl_matrix *J, struct err *err);

/* Every trajectory's release profiled at the pad logp into rel (2 a trajectory, caller-owned):
 * each started from the best of 2 scan + 1 releases along its free fall's valley, a step either
 * way (which step the impact falls in, and where in it, makes chi^2 jump along that line), or
 * from seed's (NULL: none; a non-finite pair skipped) where lower; then all fitted at once.
 * *chi2: the trajectories' chi^2. -1 when out of memory. */
int descent_releases(const struct problem *P, struct problem_scratch *S, const double logp[NPHYS],
    int scan, const double *seed, double *rel, double *chi2, struct err *err);

#endif
