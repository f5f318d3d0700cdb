/*
 * descent.h: the descents of a pad fit (internal to src/fit/): GSL's trust-region
 * Levenberg-Marquardt, and what the search builds of it: each trajectory's release fitted
 * alone, the descents from a grid's starts (the releases first, then the physics, then
 * all), the polish of a best fit by a fine grid around it.
 */
#ifndef CONTACTD_FIT_DESCENT_H
#define CONTACTD_FIT_DESCENT_H

#include <stddef.h>

#include <gsl/gsl_vector.h>

#include "base/error.h"
#include "fit/grid.h"
#include "fit/problem.h"

/* Levenberg-Marquardt (gsl_multifit_nlinear, at most CALIB_MAX_ITERATIONS iterations,
 * added to *iterations) from x, updated in place to where it ended, whether or not it
 * converged. -1 with ERR_INTERNAL when out of memory. */
int descent_least_squares(struct problem *P, gsl_vector *x, int *iterations, struct err *err);

/*
 * Fit each trajectory's release alone, the physical parameters of x held (x updated
 * in place), from its current release and from releases up to `shifts` half steps
 * earlier and later (heights moved to keep the fall), keeping the best. A descent that
 * moves everything at once from a start far from the data drags a release by whole
 * steps to make up for the wrong contact, and stays there: the release time has a
 * valley for each step the impact can begin in. -1 with ERR_INTERNAL when out of memory.
 */
int descent_releases(
    struct problem *P, gsl_vector *x, int shifts, int *iterations, struct err *err);

/*
 * The trust region from each of count starts in turn (init holds the nuisance starts),
 * keeping the lowest chi^2 in best and *best_chi2 (which the caller initialises); what
 * each descent reached goes to found[]. Stops early once a fit's chi^2 is at most
 * enough (as good as the noise scales allow); *nfound says how many ran. x is a scratch
 * vector of P's size. -1 with ERR_INTERNAL when out of memory.
 */
int descent_starts(struct problem *P, const gsl_vector *init, const struct grid_start *starts,
    size_t count, double enough, struct grid_start *found, size_t *nfound, gsl_vector *best,
    double *best_chi2, gsl_vector *x, int *iterations, struct err *err);

/* Polish best (chi^2 *best_chi2): a fine grid around it finds a deeper valley next to
 * it, and a descent from there, CALIB_REFINE_ROUNDS times at most. x and init are
 * scratch vectors of P's size. -1 with ERR_INTERNAL when out of memory. */
int descent_polish(struct problem *P, gsl_vector *best, double *best_chi2, gsl_vector *x,
    gsl_vector *init, int *iterations, struct err *err);

/*
 * Descents from each of count starts (the physics theirs, the releases best's), taken in
 * turn: the lowest chi^2 into best and *best_chi2 (a later one only where lower by more than
 * a part in 1e9), *improved set when best moved. Without trajectories a descent's start is
 * its physics alone, so the descents run at once over the fit's threads, each on a
 * problem_fork() of P (the same bits as one after another); with them each starts from the
 * releases of the best so far, so they run one after another on P's own scratch. -1 with
 * ERR_INTERNAL when out of memory.
 */
int descent_from(struct problem *P, const struct grid_start *starts, size_t count, gsl_vector *best,
    double *best_chi2, int *improved, int *iterations, struct err *err);

#endif
