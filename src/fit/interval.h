/*
 * interval.h: what a pad fit's data determine (stage 4 of fit/fit.c): the directions of
 * parameter space they leave flat, from the Jacobian at the estimate, and the 1- and 2-sigma
 * confidence intervals read off the chi-square map (fit/map.h). Internal to the fit layer.
 *
 * An interval of a log parameter is the projection of the region {chi^2 - chi^2_min <= level}:
 * the lowest and highest points of the map inside the level, each moved out to where chi^2
 * crosses the level between it and its nearest neighbour outside (linearly), or open (-inf,
 * +inf) where a point inside lies on the searched box's edge: the data bound the parameter on
 * one side only. The levels are problem_levels()'. The same region projected on log(timeconst
 * * dampratio) gives that combination's interval.
 */
#ifndef CONTACTD_FIT_INTERVAL_H
#define CONTACTD_FIT_INTERVAL_H

#include <gsl/gsl_matrix.h>

#include "base/error.h"
#include "fit/descent.h"
#include "fit/map.h"

struct interval_result {
	double log[NPHYS][2][2]; /* [q][k - 1][low, high]; NAN for a held log */
	double product[2][2];    /* log(timeconst * dampratio): [k - 1][low, high] */
	int product_open;        /* its 2-sigma interval is open on a side */
	double levels[3];        /* the 1-, 2- and 3-sigma levels used */
	int chi2_test;           /* the chi^2 test raised a level */
};

/* The intervals of M's free logs about the estimate est (its chi2 the minimum, unless a point
 * of the map is lower) into *out. var[] (NAN: none) holds the covariance's variance of each
 * log and of their sum at est: each interval is at least the quadratic bowl's, +-sqrt(level *
 * var), which a region narrower than the lattice's step needs. */
void interval_read(const struct map *M, const struct descent_point *est,
    const double var[NPHYS + 1], struct interval_result *out);

/* What the Jacobian at an estimate says. */
struct interval_analysis {
	gsl_matrix *cov;          /* (J'J)^-1 over the parameters, unscaled; caller-allocated p x p */
	int phys_null;            /* a flat direction of the logs */
	double null_dir[NPHYS];   /* its unit direction in (log timeconst, log dampratio) */
	int nuisance_null;        /* a flat direction of the releases */
};

/*
 * The flat directions and covariance at pt, the logs moving[] names moving: the eigenvectors of
 * J'J of the column-scaled Jacobian (slopes over CALIB_SE_STEP), a direction flat when its
 * singular value is below CALIB_RANK_TOLERANCE of the largest. -1 with ERR_INTERNAL when out of
 * memory.
 */
int interval_analyse(const struct problem *P, struct problem_scratch *S, const int moving[NPHYS],
    const struct descent_point *pt, struct interval_analysis *an, struct err *err);

#endif
