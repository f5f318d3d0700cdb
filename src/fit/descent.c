/*
 * descent.c: the trust region of a pad fit and the descents made of it: the releases alone,
 * the physics alone, the descents from a grid's starts and their polish (see descent.h).
 */
#include "fit/descent.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_multifit_nlinear.h>

#include "fit/traj.h"
#include "fit/knobs.h"

/* Put the physical part of a start into x. */
static void set_start(const struct problem *P, const struct grid_start *st, gsl_vector *x)
{
	size_t k = 0;
	int i;

	for (i = 0; i < NPHYS; i++)
		if (P->free[i])
			gsl_vector_set(x, k++, st->logp[i]);
}

/* A trust region's problem and, once it is initialised, its workspace (trial_residuals()). */
struct descent_fdf {
	struct problem *P;
	const gsl_multifit_nlinear_workspace *w;
};

/*
 * The residuals at a trial point x of the trust region, or GSL_ETOLX without them when its
 * step is within the driver's step tolerance: every |dx_i| below FIT_XTOL^2 + FIT_XTOL |x_i|,
 * the test gsl_multifit_nlinear_test() makes of the workspace's step dx at its x, the point
 * the trial steps from. Why: a descent that has arrived on the drops' rough chi^2 spends its
 * last trials shrinking rejected steps, up to 15 of them, each a full evaluation (presses cost
 * seconds of steps), though a step that small ends the descent whether it is taken or not. An
 * error from the residuals ends the iteration with x where it stood, and the driver's test of
 * that same step then stops it.
 */
static int trial_residuals(const gsl_vector *x, void *params, gsl_vector *f)
{
	const struct descent_fdf *d = params;

	if (d->w) {
		size_t i;
		int small = 1;

		for (i = 0; i < d->w->x->size && small; i++)
			small = fabs(gsl_vector_get(d->w->dx, i)) <
			    FIT_XTOL * FIT_XTOL + FIT_XTOL * fabs(gsl_vector_get(d->w->x, i));
		if (small)
			return GSL_ETOLX;
	}
	return problem_residuals(x, d->P, f);
}

static int trial_jacobian(const gsl_vector *x, void *params, gsl_matrix *J)
{
	return problem_jacobian(x, ((struct descent_fdf *)params)->P, J);
}

int descent_least_squares(struct problem *P, gsl_vector *x, int *iterations, struct err *err)
{
	gsl_multifit_nlinear_parameters params = gsl_multifit_nlinear_default_parameters();
	gsl_multifit_nlinear_fdf fdf;
	gsl_multifit_nlinear_workspace *w;
	struct descent_fdf d = {P, NULL};
	int info;

	params.trs = gsl_multifit_nlinear_trs_lm;
	w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &params, P->n, P->p);
	if (!w)
		return err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
	fdf.f = trial_residuals;
	fdf.df = trial_jacobian;
	fdf.fvv = NULL;
	fdf.n = P->n;
	fdf.p = P->p;
	fdf.params = &d;
	/* the driver's status (converged, no progress, iteration limit) does not matter:
	 * the identification analysis and the residuals judge the point it reached */
	if (gsl_multifit_nlinear_init(x, &fdf, w) == GSL_SUCCESS) {
		d.w = w;
		gsl_multifit_nlinear_driver(
		    CALIB_MAX_ITERATIONS, FIT_XTOL, FIT_GTOL, FIT_FTOL, NULL, NULL, &info, w);
	}
	gsl_vector_memcpy(x, gsl_multifit_nlinear_position(w));
	*iterations += (int)gsl_multifit_nlinear_niter(w);
	gsl_multifit_nlinear_free(w);
	return 0;
}

int descent_releases(struct problem *P, gsl_vector *x, int shifts, int *iterations, struct err *err)
{
	const struct calib_data *d = P->data;
	struct problem Q = *P;
	struct calib_data one;
	gsl_vector *y = gsl_vector_alloc(2), *best = gsl_vector_alloc(2);
	size_t j;
	int rc = -1, shift;

	Q.xp = gsl_vector_alloc(2);
	if (!y || !best || !Q.xp) {
		err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
		goto out;
	}
	memset(&one, 0, sizeof one);
	one.ntrajectories = 1;
	problem_phys_logs(P, x, Q.start_log);
	Q.free[TC] = Q.free[DR] = 0;
	Q.nphys = 0;
	Q.p = 2;
	Q.data = &one;
	for (j = 0; j < d->ntrajectories; j++) {
		gsl_vector_view f0 = gsl_vector_subvector(P->f0, 0, d->trajectories[j].n);
		gsl_vector_view f1 = gsl_vector_subvector(P->f1, 0, d->trajectories[j].n);
		const struct calib_trajectory *tr = &d->trajectories[j];
		double best_chi2 = INFINITY, t0 = gsl_vector_get(x, P->nphys + 2 * j);
		double H = gsl_vector_get(x, P->nphys + 2 * j + 1);
		/* moving the release by dt and its height by g (t - t0) dt keeps the fall
		 * through the first impact's sample t: the valleys lie along that line */
		double slope = -P->scene.option.gravity * (tr->t[traj_first_impact(tr)] - t0);

		one.trajectories = tr;
		Q.n = tr->n;
		Q.f0 = &f0.vector;
		Q.f1 = &f1.vector;
		for (shift = -shifts; shift <= shifts; shift++) {
			double dt = 0.5 * shift * P->scene.option.timestep, chi2;

			gsl_vector_set(y, 0, t0 + dt);
			gsl_vector_set(y, 1, H + slope * dt);
			if (descent_least_squares(&Q, y, iterations, err) != 0)
				goto out;
			problem_residuals(y, &Q, Q.f1);
			chi2 = problem_sum_squares(Q.f1);
			if (chi2 < best_chi2) {
				best_chi2 = chi2;
				gsl_vector_memcpy(best, y);
			}
		}
		gsl_vector_set(x, P->nphys + 2 * j, gsl_vector_get(best, 0));
		gsl_vector_set(x, P->nphys + 2 * j + 1, gsl_vector_get(best, 1));
	}
	rc = 0;
out:
	gsl_vector_free(Q.xp);
	gsl_vector_free(best);
	gsl_vector_free(y);
	return rc;
}

/* Fit the physical parameters alone, the releases of x held (x updated in place). */
static int fit_physics(struct problem *P, gsl_vector *x, int *iterations, struct err *err)
{
	struct problem Q = *P;
	gsl_vector *y;
	size_t k;
	int rc;

	if (P->nphys == 0 || P->data->ntrajectories == 0)
		return 0;
	Q.releases = x;
	Q.p = P->nphys;
	Q.xp = gsl_vector_alloc(Q.p);
	y = gsl_vector_alloc(Q.p);
	if (!Q.xp || !y) {
		gsl_vector_free(Q.xp);
		gsl_vector_free(y);
		return err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
	}
	for (k = 0; k < Q.p; k++)
		gsl_vector_set(y, k, gsl_vector_get(x, k));
	rc = descent_least_squares(&Q, y, iterations, err);
	for (k = 0; k < Q.p; k++)
		gsl_vector_set(x, k, gsl_vector_get(y, k));
	gsl_vector_free(Q.xp);
	gsl_vector_free(y);
	return rc;
}

/* A descent of descent_starts() or descent_from(): its start, its own problem and vector, what it
 * reached. */
struct descent {
	struct problem Q;
	gsl_vector *x;
	const gsl_vector *best;
	struct grid_start st;
	double chi2;
	int rc, iterations, skipped;
	struct err err;
};

/* Job j of descents_alloc()'s (fit/parallel.h). */
static void descent_run(void *ctx, size_t j)
{
	struct descent *d = (struct descent *)ctx + j;

	if (problem_abandoned(&d->Q)) {
		d->skipped = 1;
		return;
	}
	gsl_vector_memcpy(d->x, d->best);
	set_start(&d->Q, &d->st, d->x);
	d->rc = descent_least_squares(&d->Q, d->x, &d->iterations, &d->err);
	if (d->rc == 0) {
		problem_residuals(d->x, &d->Q, d->Q.f1);
		d->chi2 = problem_sum_squares(d->Q.f1);
	}
}

/*
 * Jobs for count descents from starts, each from `from` with its start's physics set
 * (descent_run()), on forks of P when fork is set (they may run over the fit's threads),
 * else on copies of P that share its scratch. *jobs: owned by the caller, freed by
 * descents_free() with *made, the jobs set up (also on error). -1 with ERR_INTERNAL when out
 * of memory.
 */
static int descents_alloc(struct problem *P, const struct grid_start *starts, size_t count,
    const gsl_vector *from, int fork, struct descent **jobs, size_t *made, struct err *err)
{
	size_t i;

	*made = 0;
	*jobs = calloc(count ? count : 1, sizeof **jobs);
	if (!*jobs)
		return err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
	for (i = 0; i < count; i++) {
		struct descent *d = &(*jobs)[i];

		d->Q = *P;
		d->best = from;
		d->st = starts[i];
		d->x = gsl_vector_alloc(P->p);
		if (!d->x)
			return err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
		/* counted before its fork: problem_fork_free() frees what a failed one made */
		(*made)++;
		if (fork && problem_fork(&d->Q, err) != 0)
			return err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
	}
	return 0;
}

static void descents_free(struct descent *jobs, size_t made, int forked)
{
	size_t i;

	for (i = 0; jobs && i < made; i++) {
		if (forked)
			problem_fork_free(&jobs[i].Q);
		gsl_vector_free(jobs[i].x);
	}
	free(jobs);
}

/*
 * descent_starts() without trajectories: a start is its physics alone (there are no releases to
 * pick or fit first), so the descents run at once over the fit's threads, each on a fork of P,
 * and are taken in turn as descent_starts() takes them, to the same bits; those after the one that
 * was good enough are not taken.
 */
static int descend_at_once(struct problem *P, const gsl_vector *init,
    const struct grid_start *starts, size_t count, double enough, struct grid_start *found,
    size_t *nfound, gsl_vector *best, double *best_chi2, int *iterations, struct err *err)
{
	struct descent *jobs;
	size_t i, made;
	int rc = -1;

	*nfound = 0;
	if (descents_alloc(P, starts, count, init, 1, &jobs, &made, err) != 0)
		goto out;
	problem_for_chains(P, count, 1, descent_run, jobs);
	for (i = 0; i < count; i++) {
		if (jobs[i].skipped)
			break;
		if (jobs[i].rc != 0) {
			*err = jobs[i].err;
			goto out;
		}
		*iterations += jobs[i].iterations;
		found[i].chi2 = jobs[i].chi2;
		found[i].dist = 0;
		problem_phys_logs(P, jobs[i].x, found[i].logp);
		*nfound = i + 1;
		if (jobs[i].chi2 < *best_chi2) {
			*best_chi2 = jobs[i].chi2;
			gsl_vector_memcpy(best, jobs[i].x);
		}
		if (*best_chi2 <= enough)
			break;
	}
	rc = 0;
out:
	descents_free(jobs, made, 1);
	return rc;
}

int descent_starts(struct problem *P, const gsl_vector *init, const struct grid_start *starts,
    size_t count, double enough, struct grid_start *found, size_t *nfound, gsl_vector *best,
    double *best_chi2, gsl_vector *x, int *iterations, struct err *err)
{
	size_t i;

	if (P->data->ntrajectories == 0 && count > 1)
		return descend_at_once(P, init, starts, count, enough, found, nfound, best,
		    best_chi2, iterations, err);
	for (i = 0; i < count; i++) {
		double chi2;

		gsl_vector_memcpy(x, init);
		set_start(P, &starts[i], x);
		/* the releases at the start's physics, then the physics with those releases,
		 * then all: together from a far start, a release slides into another step */
		grid_pick_releases(P, x);
		if (descent_releases(P, x, 0, iterations, err) != 0 ||
		    fit_physics(P, x, iterations, err) != 0 ||
		    descent_least_squares(P, x, iterations, err) != 0)
			return -1;
		problem_residuals(x, P, P->f1);
		chi2 = problem_sum_squares(P->f1);
		found[i].chi2 = chi2;
		found[i].dist = 0;
		problem_phys_logs(P, x, found[i].logp);
		if (chi2 < *best_chi2) {
			*best_chi2 = chi2;
			gsl_vector_memcpy(best, x);
		}
		if (*best_chi2 <= enough) {
			i++;
			break;
		}
	}
	*nfound = i;
	return 0;
}

int descent_polish(struct problem *P, gsl_vector *best, double *best_chi2, gsl_vector *x,
    gsl_vector *init, int *iterations, struct err *err)
{
	int round, q;

	for (round = 0; round < CALIB_REFINE_ROUNDS; round++) {
		double chi2 = *best_chi2, centre[NPHYS];
		int a, b, improved = 0;

		enum { R = 2 * CALIB_REFINE_POINTS + 1 };
		double pads[R * R][NPHYS], c[R * R];
		size_t n = 0, i, pick = 0;

		gsl_vector_memcpy(x, best);
		problem_phys_logs(P, best, centre);
		for (a = -CALIB_REFINE_POINTS; a <= CALIB_REFINE_POINTS; a++) {
			for (b = -CALIB_REFINE_POINTS; b <= CALIB_REFINE_POINTS; b++) {
				int idx[NPHYS] = {a, b};

				if ((!P->free[TC] && a != 0) || (!P->free[DR] && b != 0))
					continue;
				for (q = 0; q < NPHYS; q++)
					pads[n][q] = centre[q] +
					    (P->free[q] ? CALIB_REFINE_SPAN * idx[q] /
					                CALIB_REFINE_POINTS
					                : 0);
				n++;
			}
		}
		/* the fine grid's drops stepped at once; only a pad below the best can be picked,
		 * so one whose first residuals already pass it is not stepped further */
		if (problem_chi2_within(P, best, (const double(*)[NPHYS])pads, n, chi2, c, err) !=
		    0)
			return -1;
		for (i = 0; i < n; i++) {
			if (c[i] < chi2 * (1 - 1e-9)) {
				chi2 = c[i];
				pick = i;
				improved = 1;
			}
		}
		if (!improved)
			break;
		{
			struct grid_start st;

			memcpy(st.logp, pads[pick], sizeof st.logp);
			gsl_vector_memcpy(init, best);
			set_start(P, &st, init);
		}
		gsl_vector_memcpy(x, init);
		if (descent_least_squares(P, x, iterations, err) != 0)
			return -1;
		problem_residuals(x, P, P->f1);
		chi2 = problem_sum_squares(P->f1);
		if (!(chi2 < *best_chi2))
			break;
		*best_chi2 = chi2;
		gsl_vector_memcpy(best, x);
	}
	return 0;
}

int descent_from(struct problem *P, const struct grid_start *starts, size_t count, gsl_vector *best,
    double *best_chi2, int *improved, int *iterations, struct err *err)
{
	const int one_by_one = P->data->ntrajectories > 0;
	struct descent *jobs;
	size_t i, made;
	int rc = -1;

	if (descents_alloc(P, starts, count, best, !one_by_one, &jobs, &made, err) != 0)
		goto out;
	if (!one_by_one)
		problem_for_chains(P, count, 1, descent_run, jobs);
	for (i = 0; i < count; i++) {
		if (one_by_one)
			descent_run(jobs, i);
		if (jobs[i].skipped)
			break;
		if (jobs[i].rc != 0) {
			*err = jobs[i].err;
			goto out;
		}
		*iterations += jobs[i].iterations;
		if (jobs[i].chi2 < *best_chi2 * (1 - 1e-9)) {
			*best_chi2 = jobs[i].chi2;
			gsl_vector_memcpy(best, jobs[i].x);
			*improved = 1;
		}
	}
	rc = 0;
out:
	descents_free(jobs, made, !one_by_one);
	return rc;
}
