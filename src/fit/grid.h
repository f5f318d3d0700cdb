/*
 * grid.h: the grids of a pad fit's search (internal to src/fit/): the log-spaced starting
 * grid of the physical parameters, each trajectory's release tried at a few phases of the
 * step at every point, whose local minima are where the descents start (fit/descent.h), and
 * the local minima of any grid of pads, the presses stepped only where they can matter.
 */
#ifndef CONTACTD_FIT_GRID_H
#define CONTACTD_FIT_GRID_H

#include <stddef.h>

#include <gsl/gsl_vector.h>

#include "base/error.h"
#include "fit/problem.h"

/* A candidate start of the trust region: a grid point and its chi^2. */
struct grid_start {
	double chi2, dist;
	double logp[NPHYS];
};

/* A point of a grid (indices a along timeconst, b along dampratio) and its chi^2. */
struct grid_cell {
	double chi2;
	int a, b;
};

/*
 * The local minima of chi^2 over a log-spaced grid of the fitted physical parameters
 * (nuisance fixed at its start: x's releases; x's physical part is overwritten), best first,
 * at most CALIB_STARTS of them into best[]; then, when P->thorough and both are free, the
 * lowest point of each edge of the grid not among them (room for CALIB_MAX_STARTS in all).
 * The rebound is a rough function of the parameters (the discrete apex, the contact's phase
 * within a step), so one descent from the single best point can stall in a neighbouring
 * valley. Keeps the grid's drop and press model values in P->grid_model and its points in
 * P->grid_kept where those are set and not yet filled (problem.h). Returns how many were found
 * (>= 1); out of memory, the grid is left out: one start, x's physics, chi^2 infinite.
 */
size_t grid_starts(struct problem *P, gsl_vector *x, struct grid_start *best);

/* Move each trajectory's release in x along its valley to the best of the phases the
 * starting grid tries (x updated in place): where a descent should start. */
void grid_pick_releases(struct problem *P, gsl_vector *x);

/*
 * grid_minima: the `want` lowest local minima of chi^2 over a grid of pads
 * (counts[TC] x counts[DR] logs, pad a * counts[DR] + b, as problem_chi2_many() takes them,
 * with x's releases): the pads whose chi^2 is finite, that are allowed (allowed[pad] non-zero;
 * allowed NULL: every pad) and that no neighbour of the eight is below, into cells[]
 * (caller-owned, room for want) by chi^2, ties in grid order, *nmin of them. The same cells
 * as chi^2 at every pad would give, bit for bit; with presses, most pads' presses are not
 * stepped (grid.c says why that is exact). -1 with ERR_INTERNAL when out of memory.
 */
int grid_minima(struct problem *P, const gsl_vector *x, const double (*pads)[NPHYS],
    const int counts[NPHYS], const unsigned char *allowed, int want, struct grid_cell *cells,
    int *nmin, struct err *err);

#endif
