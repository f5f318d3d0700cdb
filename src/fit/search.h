/*
 * search.h: the whole search of a pad fit (internal to src/fit/): the descents from the
 * starting grid's minima (fit/grid.h, fit/descent.h), polished, each release's valley
 * checked again at the best fit, and (for the fit's own search) the dense grid over the
 * whole range and the fine grids around the minima found: the lowest chi^2 over the
 * searched range, and the standard-error floor that competing minima set.
 */
#ifndef CONTACTD_FIT_SEARCH_H
#define CONTACTD_FIT_SEARCH_H

#include <stddef.h>

#include <gsl/gsl_vector.h>

#include "base/error.h"
#include "fit/grid.h"
#include "fit/problem.h"

/*
 * The whole search: the trust region from each grid start (x holds the nuisance
 * starts), polished, then each release's valley checked again at the best fit, and (when
 * P->thorough) descents from the local minima of fine grids around the best fit and every
 * other distinct minimum reached, until the best stops moving. The
 * lowest chi^2 ends in x and *chi2_out; what the descents reached in found[] (room for
 * CALIB_MAX_STARTS; *nfound of them). -1 with ERR_INTERNAL when out of memory.
 */
int search_all(struct problem *P, gsl_vector *x, struct grid_start *found, size_t *nfound,
    double *chi2_out, int *iterations, struct err *err);

/* The search from the grid (x holds the nuisance starts; the best fit ends there), and
 * the standard-error floor of any competing minimum (P->se_floor, and P->has_alt,
 * alt_logp, alt_dchi2 for the nearest). -1 with ERR_INTERNAL when out of memory. */
int search_multi_start(struct problem *P, gsl_vector *x, int *iterations, struct err *err);

#endif
