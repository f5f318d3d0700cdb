/*
 * interval.c: the confidence intervals of a pad fit: their levels, the profile walks' ends,
 * the first search's grid and the fine scan (see interval.h).
 */
#include "fit/interval.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "fit/grid.h"
#include "fit/profile.h"
#include "fit/knobs.h"

/*
 * Confidence intervals. The k-sigma interval of a log parameter is the projection of
 * the region {chi^2 - chi^2_min <= level_k}: its lowest and highest points, found by
 * the profile walks (from the estimate and from every other minimum the search reached
 * within the 2-sigma level), widened to every point of the first search's grid inside
 * the level, and, with few degrees of freedom, to every point of a fine scan. An
 * interval that reaches the grid's edge, or whose walk ran out still inside the level,
 * is open on that side: the data bound the parameter on one side only.
 *
 * The level is the likelihood ratio's k^2 s^2, right where chi^2 is a smooth bowl near
 * its minimum. With fewer than CALIB_MIN_DOF degrees of freedom it is at least what the
 * chi^2 test of the whole parameter set allows, the n-dof quantile at the same coverage
 * less chi^2_min: chi^2 at the truth has n degrees of freedom however rough the model,
 * and the model of a few drops at a coarse timestep is rough indeed (the apex swings by
 * millimetres as timeconst moves a few per cent, moving the contact's phase within a
 * step), so the lowest of its many pieces fits the noise itself and the likelihood
 * ratio at the truth has n, not 1, degrees of freedom. With more data the residuals
 * show a misfit instead.
 *
 * The likelihood ratio's level has CALIB_ROUGH_LEVEL s^2 added: chi^2 being rough, its
 * lowest piece lies below the smooth bowl through the others, so chi^2 at the truth is
 * that much further above the minimum than a smooth model's, on average.
 */
static int few_dof(const struct problem *P)
{
	return P->n < P->p + CALIB_MIN_DOF;
}

/*
 * Drops none of which bounced (every rebound within CALIB_BOUNCE_SIGMAS sigma of 0) and no
 * trajectory (issue #29): the model's rebound is 0 over a whole plateau of pads (every
 * dampratio above some value), and a measured rebound never goes below 0, so the noise
 * alone makes a pad that bounces a little fit better than the plateau, by more than the
 * likelihood ratio's level in one set of eight: chi^2 - chi^2_min is not the likelihood
 * ratio's 1-dof variable there. Their intervals also hold what the chi^2 test of all
 * measurements allows, as few degrees of freedom's do: the plateau whenever the rebounds
 * are consistent with no bounce at all.
 */
static int no_bounce(const struct problem *P)
{
	const struct calib_data *d = P->data;
	size_t i;

	if (d->ndrops == 0 || d->ntrajectories > 0)
		return 0;
	for (i = 0; i < d->ndrops; i++)
		if (d->drops[i].rebound > CALIB_BOUNCE_SIGMAS * problem_drop_sigma(&d->drops[i]))
			return 0;
	return 1;
}

/* The intervals also hold what the chi^2 test of all measurements allows. */
static int chi2_tested(const struct problem *P)
{
	return few_dof(P) || no_bounce(P);
}

/* The 1-, 2- and 3-sigma levels of chi^2 - chi^2_min at x (chi^2 there into *chi2_min),
 * and whether the chi^2 test set them. */
static int interval_levels(
    struct problem *P, const gsl_vector *x, double levels[3], double *chi2_min)
{
	static const double coverage[3] = {0.682689492137086, 0.954499736103642, 0.997300203936740};
	double chi2, s2;
	int k, test = 0;

	problem_residuals(x, P, P->f1);
	chi2 = *chi2_min = problem_sum_squares(P->f1);
	s2 = problem_residual_variance(chi2, P->n, P->p);
	for (k = 0; k < 3; k++) {
		double allowed = gsl_cdf_chisq_Pinv(coverage[k], (double)P->n) * s2 - chi2;

		levels[k] = ((k + 1) * (k + 1) + CALIB_ROUGH_LEVEL) * s2;
		if (chi2_tested(P) && allowed > levels[k]) {
			levels[k] = allowed;
			test = 1;
		}
	}
	return test;
}

/* Widen out's intervals of parameter q at level k to the point logp, open where the
 * point is on the edge of its grid (index idx of count). */
static void interval_take(struct interval_result *out, int q, int k, double v, int idx, int count)
{
	out->log[q][k][0] = idx == 0 ? -INFINITY : fmin(out->log[q][k][0], v);
	out->log[q][k][1] = idx == count - 1 ? INFINITY : fmax(out->log[q][k][1], v);
}

/* A point inside the 2-sigma level on an edge of its grid: the region may go on beyond
 * it, so no combination of the parameters is bounded there. */
static void interval_edge(
    struct interval_result *out, double d, const int idx[NPHYS], const int count[NPHYS])
{
	int q;

	if (!(d <= out->levels[1]))
		return;
	for (q = 0; q < NPHYS; q++)
		if (idx[q] == 0 || idx[q] == count[q] - 1)
			out->product_open = 1;
}

/* Every point of the first search's grid inside the levels. */
static void interval_grid(const struct problem *P, double chi2_min, struct interval_result *out)
{
	int a, b, k, q;

	if (!P->grid_kept_ready || P->nphys != NPHYS)
		return;
	for (a = 0; a < P->grid_counts[TC]; a++)
		for (b = 0; b < P->grid_counts[DR]; b++) {
			const struct grid_start *g = &P->grid_kept[a * CALIB_GRID_POINTS + b];
			int idx[NPHYS] = {a, b};

			interval_edge(out, g->chi2 - chi2_min, idx, P->grid_counts);
			for (k = 0; k < 2; k++)
				for (q = 0; q < NPHYS; q++)
					if (g->chi2 - chi2_min <= out->levels[k])
						interval_take(out, q, k, g->logp[q], idx[q],
						    P->grid_counts[q]);
		}
}

/* Whether the scan's point (logs v, grid indices idx of count) can widen out: it is on an edge
 * of the grid, or outside the intervals found so far at some level. A point inside them at
 * both levels changes nothing whatever its chi^2 (the intervals only widen, to the extremes
 * of the points inside the level), so it need not be stepped. */
static int interval_could_widen(const struct interval_result *out, const double v[NPHYS],
    const int idx[NPHYS], const int count[NPHYS])
{
	int k, q;

	for (q = 0; q < NPHYS; q++)
		if (idx[q] == 0 || idx[q] == count[q] - 1)
			return 1;
	for (k = 0; k < 2; k++)
		for (q = 0; q < NPHYS; q++)
			if (!(v[q] >= out->log[q][k][0] && v[q] <= out->log[q][k][1]))
				return 1;
	return 0;
}

/* The fine scan of chi^2 over the starting grid's box (a fit with few degrees of
 * freedom, no trajectory: each point costs a few drops or presses), at the points that
 * could widen the intervals the profiles and the starting grid found. */
static int interval_scan(
    struct problem *P, double chi2_min, struct interval_result *out, struct err *err)
{
	const double *lo = P->log_lo, *hi = P->log_hi;
	const int count[NPHYS] = {CALIB_SCAN_POINTS_TC, CALIB_SCAN_POINTS_DR};
	size_t n = (size_t)count[TC] * (size_t)count[DR], i, m = 0;
	double(*pads)[NPHYS] = malloc(n * sizeof *pads), *chi2 = malloc(n * sizeof *chi2);
	int(*at)[NPHYS] = malloc(n * sizeof *at);
	gsl_vector *x = gsl_vector_alloc(P->p);
	int a, b, k, q, rc = -1;

	if (!pads || !chi2 || !at || !x) {
		err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
		goto out;
	}
	/* the points to step, chosen before any is: what they add only widens the intervals,
	 * so a point inside them now is inside them after */
	for (a = 0; a < count[TC]; a++)
		for (b = 0; b < count[DR]; b++) {
			int idx[NPHYS] = {a, b};
			double v[NPHYS];

			for (q = 0; q < NPHYS; q++)
				v[q] = lo[q] + (hi[q] - lo[q]) * idx[q] / (count[q] - 1);
			if (!interval_could_widen(out, v, idx, count))
				continue;
			memcpy(pads[m], v, sizeof pads[m]);
			memcpy(at[m], idx, sizeof at[m]);
			m++;
		}
	/* every point's drops stepped at once, through the lanes, drop by drop: a point whose
	 * first drops put it past both levels is not stepped further (it is outside either way) */
	gsl_vector_set_zero(x);
	if (m > 0 &&
	    problem_chi2_within(P, x, (const double(*)[NPHYS])pads, m,
	        chi2_min + fmax(out->levels[0], out->levels[1]), chi2, err) != 0)
		goto out;
	for (i = 0; i < m; i++) {
		double d = chi2[i] - chi2_min;

		interval_edge(out, d, at[i], count);
		for (k = 0; k < 2; k++)
			for (q = 0; q < NPHYS; q++)
				if (d <= out->levels[k])
					interval_take(out, q, k, pads[i][q], at[i][q], count[q]);
	}
	rc = 0;
out:
	gsl_vector_free(x);
	free(at);
	free(chi2);
	free(pads);
	return rc;
}

int interval_find(struct problem *P, const gsl_vector *x, const gsl_matrix *cov,
    struct interval_result *out, int *iterations, struct err *err)
{
	static const int prof_of[NPHYS] = {PROFILE_TC, PROFILE_DR};
	struct profile_result pr;
	double chi2_min;
	int q, k;

	memset(out, 0, sizeof *out);
	out->chi2_test = interval_levels(P, x, out->levels, &chi2_min);
	if (profile_all(P, x, cov, out->levels, 0, &pr, NULL, iterations, err) != 0)
		return -1;
	for (q = 0; q < NPHYS; q++) {
		int which = prof_of[q];

		out->done[q] = pr.done[which];
		for (k = 0; k < 2; k++) {
			out->log[q][k][0] = pr.open_lo[which][k] ? -INFINITY : pr.lo[which][k];
			out->log[q][k][1] = pr.open_hi[which][k] ? INFINITY : pr.hi[which][k];
		}
	}
	out->product_open = !pr.done[PROFILE_PRODUCT] || pr.open_lo[PROFILE_PRODUCT][1] ||
	    pr.open_hi[PROFILE_PRODUCT][1];
	interval_grid(P, chi2_min, out);
	if (chi2_tested(P) && P->nphys == NPHYS && P->data->ntrajectories == 0 &&
	    interval_scan(P, chi2_min, out, err) != 0)
		return -1;
	return 0;
}
