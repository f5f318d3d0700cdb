/*
 * search.c: the whole search of a pad fit: the descents from the starting grid, the
 * releases' valleys at the best fit, the dense and the fine grids, and the competing
 * minima's floor under the standard errors (see search.h).
 */
#include "fit/search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fit/descent.h"
#include "fit/knobs.h"

/*
 * Other descents that ended in a different valley with almost the same chi^2 make
 * the local standard errors too optimistic (the model is rough: the contact lasts a
 * few steps and which step ends it jumps with the parameters). Treat chi^2 as
 * quadratic between the two minima: a competitor at distance d in a log parameter
 * with dchi2 / s^2 = z^2 implies a standard error of at least d / max(z, 1). Only
 * competitors within CALIB_AMBIGUITY_SIGMAS count.
 */
static void widen_for_alternatives(struct problem *P, const gsl_vector *x, double best_chi2,
    const struct grid_start *found, size_t count)
{
	double s2, logp[NPHYS], nearest = INFINITY;
	size_t i;
	int q;

	s2 = problem_residual_variance(best_chi2, P->n, P->p);
	problem_phys_logs(P, x, logp);
	for (i = 0; i < count; i++) {
		double dev[NPHYS], dist = 0, z2 = (found[i].chi2 - best_chi2) / s2;

		for (q = 0; q < NPHYS; q++) {
			dev[q] = fabs(found[i].logp[q] - logp[q]);
			dist = fmax(dist, dev[q]);
		}
		if (dist < CALIB_DISTINCT_LOG ||
		    !(z2 <= CALIB_AMBIGUITY_SIGMAS * CALIB_AMBIGUITY_SIGMAS))
			continue;
		for (q = 0; q < NPHYS; q++)
			P->se_floor[q] = fmax(P->se_floor[q], dev[q] / fmax(sqrt(fmax(z2, 0)), 1));
		if (z2 < nearest) {
			nearest = z2;
			P->has_alt = 1;
			P->alt_dchi2 = found[i].chi2 - best_chi2;
			for (q = 0; q < NPHYS; q++)
				P->alt_logp[q] = found[i].logp[q];
		}
	}
}

/* The fine grids a search has made, by their centres (search_all()). */
struct wide_seen {
	double centre[(CALIB_MAX_STARTS + 1) * CALIB_WIDE_ROUNDS][NPHYS];
	size_t n;
};

/*
 * Whether a fine grid around centre would repeat one made before (then it is not made again),
 * else it is recorded in seen. Descents often end at one minimum from several starts, so a
 * fifth of the fine grids of issue #29's press sets were centred within 1e-6 in the logs of
 * one made before: the same starts but for that shift (a ten-thousandth of the grid's 1e-2 cell),
 * so the same valleys, which the earlier grid's descents reached already. With trajectories a
 * grid's chi^2 depends on best's releases, so every grid is made.
 */
static int wide_seen_before(
    const struct problem *P, struct wide_seen *seen, const double centre[NPHYS])
{
	size_t k;
	int q, near;

	if (P->data->ntrajectories > 0)
		return 0;
	for (k = 0; k < seen->n; k++) {
		for (q = 0, near = 1; q < NPHYS; q++)
			near &= !P->free[q] || fabs(seen->centre[k][q] - centre[q]) <= FD_STEP_LOG;
		if (near)
			return 1;
	}
	if (seen->n < sizeof seen->centre / sizeof seen->centre[0])
		memcpy(seen->centre[seen->n++], centre, sizeof seen->centre[0]);
	return 0;
}

/*
 * Descents from the best local minima of a fine grid around centre ((2 *
 * CALIB_WIDE_POINTS + 1)^2 points spanning +-CALIB_WIDE_SPAN in each free log), the
 * releases of best held at the start of each; the lowest chi^2 into best and *best_chi2.
 * Sets *improved when it moved.
 *
 * Why: a drop whose rebound is tens of micrometres, measured to a fraction of one (a
 * stated sigma far below the default), has a sawtooth rebound in the parameters (the
 * contact's phase within a step): its chi^2 alone is a lattice of narrow valleys a
 * hundredth of a log unit apart, and the coarse grid and one descent land in whichever
 * is nearest, not in the one the other measurements favour. Each fine-grid cell holds a
 * piece of a tooth, where the model is smooth and a descent reaches that tooth's valley.
 */
static int wide_refine(struct problem *P, const double centre[NPHYS], struct wide_seen *seen,
    gsl_vector *best, double *best_chi2, int *improved, int *iterations, struct err *err)
{
	enum { W = 2 * CALIB_WIDE_POINTS + 1 };
	struct grid_cell cells[CALIB_WIDE_STARTS];
	int counts[NPHYS], a, b, q, i, nmin = 0;
	double(*pads)[NPHYS];
	size_t n = 0;

	*improved = 0;
	if (wide_seen_before(P, seen, centre))
		return 0;
	pads = malloc(W * W * sizeof *pads);
	if (!pads)
		return err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
	for (q = 0; q < NPHYS; q++)
		counts[q] = P->free[q] ? W : 1;
	for (a = 0; a < counts[TC]; a++) {
		for (b = 0; b < counts[DR]; b++) {
			int idx[NPHYS] = {a, b};

			for (q = 0; q < NPHYS; q++)
				pads[n][q] = centre[q] +
				    (P->free[q] ? CALIB_WIDE_SPAN * (idx[q] - CALIB_WIDE_POINTS) /
				                CALIB_WIDE_POINTS
				                : 0);
			n++;
		}
	}
	if (grid_minima(P, best, (const double(*)[NPHYS])pads, counts, NULL, CALIB_WIDE_STARTS,
	        cells, &nmin, err) != 0) {
		free(pads);
		return -1;
	}
	free(pads);
	{
		struct grid_start st[CALIB_WIDE_STARTS];
		size_t nst = 0;

		for (i = 0; i < nmin && i < CALIB_WIDE_STARTS; i++, nst++) {
			int idx[NPHYS] = {cells[i].a, cells[i].b};

			for (q = 0; q < NPHYS; q++)
				st[nst].logp[q] = centre[q] +
				    (P->free[q] ? CALIB_WIDE_SPAN * (idx[q] - CALIB_WIDE_POINTS) /
				                CALIB_WIDE_POINTS
				                : 0);
		}
		return descent_from(P, st, nst, best, best_chi2, improved, iterations, err);
	}
}

/*
 * The dense grid over the whole searched range (CALIB_GLOBAL_POINTS_TC x _DR, the releases of
 * best held) and descents from its CALIB_GLOBAL_STARTS lowest local minima away from the best
 * fit (beyond CALIB_WIDE_SPAN in a log: a narrow valley's grid points may all lie above the
 * best, its floor below): the lowest chi^2 into best and *best_chi2.
 */
static int global_scan(
    struct problem *P, gsl_vector *best, double *best_chi2, int *iterations, struct err *err)
{
	int counts[NPHYS], a, b, q, i, nmin = 0, rc = -1;
	size_t n;
	double(*pads)[NPHYS];
	unsigned char *far;
	struct grid_cell cells[CALIB_GLOBAL_STARTS];
	double here[NPHYS];

	problem_phys_logs(P, best, here);
	counts[TC] = P->free[TC] ? CALIB_GLOBAL_POINTS_TC : 1;
	counts[DR] = P->free[DR] ? CALIB_GLOBAL_POINTS_DR : 1;
	n = (size_t)(counts[TC] * counts[DR]);
	pads = malloc(n * sizeof *pads);
	far = malloc(n);
	if (!pads || !far) {
		err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
		goto out;
	}
	for (a = 0; a < counts[TC]; a++)
		for (b = 0; b < counts[DR]; b++) {
			int idx[NPHYS] = {a, b};
			size_t pad = (size_t)(a * counts[DR] + b);

			far[pad] = 0;
			for (q = 0; q < NPHYS; q++) {
				pads[pad][q] = counts[q] > 1 ? P->log_lo[q] +
				        (P->log_hi[q] - P->log_lo[q]) * idx[q] / (counts[q] - 1)
				                             : P->start_log[q];
				/* away from the best fit, whose valley the fine grids search */
				far[pad] |=
				    P->free[q] && fabs(pads[pad][q] - here[q]) > CALIB_WIDE_SPAN;
			}
		}
	if (grid_minima(P, best, (const double(*)[NPHYS])pads, counts, far, CALIB_GLOBAL_STARTS,
	        cells, &nmin, err) != 0)
		goto out;
	{
		struct grid_start st[CALIB_GLOBAL_STARTS];
		size_t nst = 0;
		int improved = 0;

		for (i = 0; i < nmin && i < CALIB_GLOBAL_STARTS; i++, nst++)
			memcpy(st[nst].logp, pads[cells[i].a * counts[DR] + cells[i].b],
			    sizeof st[nst].logp);
		if (descent_from(P, st, nst, best, best_chi2, &improved, iterations, err) != 0)
			goto out;
	}
	rc = 0;
out:
	free(far);
	free(pads);
	return rc;
}

int search_all(struct problem *P, gsl_vector *x, struct grid_start *found, size_t *nfound,
    double *chi2_out, int *iterations, struct err *err)
{
	struct grid_start starts[CALIB_MAX_STARTS];
	gsl_vector *init = gsl_vector_alloc(P->p), *best = gsl_vector_alloc(P->p);
	gsl_vector *fall = gsl_vector_alloc(P->p); /* the releases' starts, kept */
	double best_chi2 = INFINITY, enough;
	size_t count, i;
	int rc = -1, round;

	if (!init || !best || !fall) {
		err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
		goto out;
	}
	gsl_vector_memcpy(init, x);
	gsl_vector_memcpy(fall, x);
	count = grid_starts(P, x, starts);
	enough = CALIB_ACCEPT_CHI2 * (double)(P->n > P->p ? P->n - P->p : 1);
	if (descent_starts(P, init, starts, count, enough, found, nfound, best, &best_chi2, x,
	        iterations, err) != 0 ||
	    descent_polish(P, best, &best_chi2, x, init, iterations, err) != 0)
		goto out;
	/* the descents chose each release's valley on the way; at the best fit another
	 * may fit better, near where it is or near the free fall's own estimate */
	for (round = 0; round < CALIB_REFINE_ROUNDS && P->data->ntrajectories > 0; round++) {
		double chi2;
		int from, improved = 0;

		for (from = 0; from < 2; from++) {
			gsl_vector_memcpy(x, best);
			for (i = 0; from == 1 && i < 2 * P->data->ntrajectories; i++)
				gsl_vector_set(x, P->nphys + i, gsl_vector_get(fall, P->nphys + i));
			if (descent_releases(P, x, 2, iterations, err) != 0 ||
			    descent_least_squares(P, x, iterations, err) != 0)
				goto out;
			problem_residuals(x, P, P->f1);
			chi2 = problem_sum_squares(P->f1);
			if (chi2 < best_chi2 * (1 - 1e-9)) {
				best_chi2 = chi2;
				gsl_vector_memcpy(best, x);
				improved = 1;
			}
		}
		if (!improved)
			break;
		if (descent_polish(P, best, &best_chi2, x, init, iterations, err) != 0)
			goto out;
	}
	/* the whole range, densely: a distant valley below the best */
	if (P->thorough && P->nphys > 0 && global_scan(P, best, &best_chi2, iterations, err) != 0)
		goto out;
	/* the fine grids: around the best fit until it stops moving, and once around each
	 * other distinct minimum the descents reached */
	if (P->thorough) {
		struct wide_seen seen = {.n = 0};
		double centre[NPHYS];
		size_t m;
		int improved = 0;

		for (m = 0; m <= *nfound; m++) {
			if (m < *nfound) {
				double here[NPHYS];
				int q, distinct = 0;

				problem_phys_logs(P, best, here);
				for (q = 0; q < NPHYS; q++)
					distinct |= P->free[q] &&
					    fabs(found[m].logp[q] - here[q]) > CALIB_WIDE_SPAN;
				if (!distinct)
					continue;
				memcpy(centre, found[m].logp, sizeof centre);
			} else {
				problem_phys_logs(P, best, centre);
			}
			for (round = 0; round < CALIB_WIDE_ROUNDS; round++) {
				if (wide_refine(P, centre, &seen, best, &best_chi2, &improved,
				        iterations, err) != 0)
					goto out;
				if (!improved)
					break;
				problem_phys_logs(P, best, centre);
			}
		}
	}
	gsl_vector_memcpy(x, best);
	*chi2_out = best_chi2;
	rc = 0;
out:
	gsl_vector_free(fall);
	gsl_vector_free(init);
	gsl_vector_free(best);
	return rc;
}

int search_multi_start(struct problem *P, gsl_vector *x, int *iterations, struct err *err)
{
	struct grid_start found[CALIB_MAX_STARTS];
	size_t nfound, i;
	double chi2;

	if (search_all(P, x, found, &nfound, &chi2, iterations, err) != 0)
		return -1;
	widen_for_alternatives(P, x, chi2, found, nfound);
	P->nmodes = nfound;
	for (i = 0; i < nfound; i++) {
		P->mode_chi2[i] = found[i].chi2;
		memcpy(P->mode_logp[i], found[i].logp, sizeof P->mode_logp[i]);
	}
	return 0;
}
