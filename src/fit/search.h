/*
 * search.h: where a pad fit starts and how it descends (internal to src/fit/): each
 * trajectory's release from its free fall, a log-spaced grid of the physical parameters
 * (each trajectory's release tried at a few phases of the step), then GSL's trust-region
 * Levenberg-Marquardt from the grid's best minima (the releases first, then the physics,
 * then all), polished, then again from the local minima of fine grids around the minima
 * found: the lowest chi^2 over the searched range.
 */
#ifndef CONTACTD_FIT_SEARCH_H
#define CONTACTD_FIT_SEARCH_H

#include <stddef.h>

#include <gsl/gsl_vector.h>

#include "base/error.h"
#include "fit/input.h"
#include "fit/problem.h"

/* A candidate start of the trust region: a grid point and its chi^2. */
struct search_start {
	double chi2, dist;
	double logp[NPHYS];
};

/* A point of a grid (indices a along timeconst, b along dampratio) and its chi^2. */
struct search_cell {
	double chi2;
	int a, b;
};

/*
 * search_grid_minima: the `want` lowest local minima of chi^2 over a grid of pads
 * (counts[TC] x counts[DR] logs, pad a * counts[DR] + b, as problem_chi2_many() takes them,
 * with x's releases): the pads whose chi^2 is finite, that are allowed (allowed[pad] non-zero;
 * allowed NULL: every pad) and that no neighbour of the eight is below, into cells[]
 * (caller-owned, room for want) by chi^2, ties in grid order, *nmin of them. The same cells
 * as chi^2 at every pad would give, bit for bit; with presses, most pads' presses are not
 * stepped (search.c says why that is exact). -1 with ERR_INTERNAL when out of memory.
 */
int search_grid_minima(struct problem *P, const gsl_vector *x, const double (*pads)[NPHYS],
    const int counts[NPHYS], const unsigned char *allowed, int want, struct search_cell *cells,
    int *nmin, struct err *err);

/*
 * Where a trajectory's first impact begins: its first sample at most CALIB_BOUNCE_SIGMAS
 * sigma above the pad, or its lowest sample when none is. Not simply the lowest of all:
 * the later impacts of a pad that hardly bounces are as deep as the first within the
 * noise.
 */
size_t search_first_impact(const struct calib_trajectory *tr);

/* How many of a trajectory's first samples a fit uses (those before its second impact, read
 * off the samples; see search.c), h the timestep. */
size_t search_traj_fitted(const struct calib_trajectory *tr, double h);

/* Starting (t0, H) of a trajectory: the free-fall parabola with the known gravity
 * through its samples above the pad before the first impact, least squares. Semi-
 * implicit Euler from rest follows z = H + g h^2/8 - g/2 (t - t0 + h/2)^2, so the
 * parabola's vertex is shifted back. g is gravity's magnitude (when it is not positive,
 * the first sample is the start), h the timestep. */
void search_traj_start(
    const struct calib_trajectory *tr, double g, double h, double *t0, double *H);

/* Levenberg-Marquardt (gsl_multifit_nlinear, at most CALIB_MAX_ITERATIONS iterations,
 * added to *iterations) from x, updated in place to where it ended, whether or not it
 * converged. -1 with ERR_INTERNAL when out of memory. */
int search_least_squares(struct problem *P, gsl_vector *x, int *iterations, struct err *err);

/*
 * The whole search: the trust region from each grid start (x holds the nuisance
 * starts), polished, then each release's valley checked again at the best fit, and (when
 * P->thorough) descents from the local minima of fine grids around the best fit and every
 * other distinct minimum reached, until the best stops moving. The
 * lowest chi^2 ends in x and *chi2_out; what the descents reached in found[] (room for
 * CALIB_MAX_STARTS; *nfound of them). -1 with ERR_INTERNAL when out of memory.
 */
int search_all(struct problem *P, gsl_vector *x, struct search_start *found, size_t *nfound,
    double *chi2_out, int *iterations, struct err *err);

/* The search from the grid (x holds the nuisance starts; the best fit ends there), and
 * the standard-error floor of any competing minimum (P->se_floor, and P->has_alt,
 * alt_logp, alt_dchi2 for the nearest). -1 with ERR_INTERNAL when out of memory. */
int search_multi_start(struct problem *P, gsl_vector *x, int *iterations, struct err *err);

#endif
