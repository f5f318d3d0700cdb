/*
 * interval.h: what a pad fit's data determine (stage 4 of fit/fit.c; internal): the directions
 * they leave flat, from the Jacobian at the estimate, and the 1- and 2-sigma intervals off the
 * chi-square map: an interval (of a log, or of log(timeconst * dampratio)) spans the map's points
 * inside problem_levels()' level, each end moved out to where chi^2 crosses it, or open (+-inf)
 * on the box's edge, where the data bound the parameter on one side only.
 */
#ifndef CONTACTD_FIT_INTERVAL_H
#define CONTACTD_FIT_INTERVAL_H

#include "fit/descent.h"
#include "fit/map.h"

struct interval_result {
	double log[NPHYS][2][2]; /* [q][k - 1][low, high]; NAN for a held log */
	double product[2][2];    /* log(timeconst * dampratio): [k - 1][low, high] */
	int product_open;        /* its 2-sigma interval is open on a side */
	int chi2_test;           /* the chi^2 test raised a level */
};

/* The intervals of M's free logs about est (its chi2 the minimum unless a point is lower) into
 * *out, each at least the bowl +-sqrt(level * var) of var[] (each log's and their sum's; NAN:
 * none), which a region narrower than the lattice's step needs. */
void interval_read(const struct map *M, const struct descent_point *est,
    const double var[NPHYS + 1], struct interval_result *out);

/* interval_analyse(): the flat directions (fit/knobs.h's CALIB_RANK_TOLERANCE) and covariance
 * at pt, the logs moving[] names moving. -1 with ERR_INTERNAL when out of memory. */
struct interval_analysis {
	gsl_matrix *cov;        /* (J'J)^-1 over the parameters, unscaled; caller-allocated p x p */
	int phys_null;          /* a flat direction of the logs */
	double null_dir[NPHYS]; /* its unit direction in (log timeconst, log dampratio) */
	int nuisance_null;      /* a flat direction of the releases */
	double var[NPHYS + 1];  /* each moving log's variance and their sum's, scaled by the
	                           residual variance (NAN: held) */
};
int interval_analyse(const struct problem *P, struct problem_scratch *S, const int moving[NPHYS],
    const struct descent_point *pt, struct interval_analysis *an, struct err *err);

#endif
