/*
 * search.c: the starts and the search of a pad fit: the releases' free fall, the
 * starting grid, the descents and their polish (see search.h).
 */
#include "fit/search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_multifit_nlinear.h>

#include "core/sim.h"
#include "fit/model.h"
#include "fit/parallel.h"
#include "fit/knobs.h"

size_t search_first_impact(const struct calib_trajectory *tr)
{
	double level = CALIB_BOUNCE_SIGMAS * problem_traj_sigma(tr);
	size_t lowest = 0, i;

	for (i = 0; i < tr->n; i++)
		if (!(tr->z[i] > level))
			return i;
	for (i = 1; i < tr->n; i++)
		if (tr->z[i] < tr->z[lowest])
			lowest = i;
	return lowest;
}

/*
 * How many of a trajectory's first samples are fitted: those before its second impact.
 * A contact that begins within a step gets MuJoCo's full damping impulse at once, so
 * the model jumps when the parameters move the step a later impact begins in (the
 * first impact's step is set by the release alone); with those samples chi^2 is a
 * patchwork of pieces and the estimate lands in whichever piece the noise favours.
 * The second impact is read off the samples: after the first impact (search_first_impact())
 * the object bounced when a sample is CALIB_BOUNCE_SIGMAS sigma above the pad, and it
 * is back when one is at or below the pad again (noise near the apex of a small bounce
 * rarely reaches that far). The spline behind a sample reaches two steps ahead and the
 * noise may hide the first sample in contact, so the samples within three steps of
 * that one are left out too.
 */
size_t search_traj_fitted(const struct calib_trajectory *tr, double h)
{
	double level = CALIB_BOUNCE_SIGMAS * problem_traj_sigma(tr);
	size_t first = search_first_impact(tr), up, back, i;

	for (up = first + 1; up < tr->n && !(tr->z[up] > level); up++)
		;
	for (back = up + 1; back < tr->n && tr->z[back] > 0; back++)
		;
	if (back >= tr->n)
		return tr->n; /* no second impact among the samples */
	for (i = first + 1; i < back && tr->t[i] < tr->t[back] - 3 * h; i++)
		;
	return i;
}

void search_traj_start(const struct calib_trajectory *tr, double g, double h, double *t0, double *H)
{
	size_t first, i, count;
	double tref = tr->t[0], from = -INFINITY;
	int pass;

	*t0 = tr->t[0];
	*H = tr->z[0];
	if (!(g > 0))
		return;
	first = search_first_impact(tr);
	/* second pass: without samples taken before the estimated release (at rest) */
	for (pass = 0; pass < 2; pass++) {
		double st = 0, sy = 0, stt = 0, sty = 0, a, b, det;

		count = 0;
		for (i = 0; i < first; i++) {
			double tau = tr->t[i] - tref, y = tr->z[i] + 0.5 * g * tau * tau;

			if (!(tr->z[i] > 0) || tr->t[i] < from)
				continue;
			st += tau;
			sy += y;
			stt += tau * tau;
			sty += tau * y;
			count++;
		}
		det = (double)count * stt - st * st;
		if (count < 2 || !(fabs(det) > 0))
			return;
		b = ((double)count * sty - st * sy) / det;
		a = (sy - b * st) / (double)count;
		*t0 = tref + b / g + 0.5 * h;
		*H = a + b * b / (2 * g) - g * h * h / 8;
		from = *t0;
	}
}

/* Is a better than b: lower chi^2, ties (flat regions) to the point nearer the start. */
static int start_better(const struct search_start *a, const struct search_start *b)
{
	if (a->chi2 < b->chi2 * (1 - 1e-9))
		return 1;
	return a->chi2 <= b->chi2 * (1 + 1e-9) && a->dist < b->dist;
}

/*
 * problem_residuals() at a point of the starting grid, the drops' and presses' model values
 * dm (problem_static_models()'s, for the point) kept in P->grid_model when set, or from it
 * once it is ready (dm then unused). Each trajectory's release is moved along its
 * valley (time by a third of a step, up to P->grid_shifts of them either way, height
 * to keep the fall) and the best kept: the free fall before the impact fixes
 * a release only to about half a step, and a contact sampled at the wrong phase makes
 * chi^2 at every grid point so large that the grid would not see the physics.
 */
static void grid_residuals(
    struct problem *P, const gsl_vector *x, size_t point, const double *dm, gsl_vector *f)
{
	const struct calib_data *d = P->data;
	size_t nstatic = d->ndrops + d->npresses, i, k, row = 0;
	const double h = P->scene.option.timestep;
	struct core_scene_model m;
	double logp[NPHYS];
	const double *model = dm;
	int shift;

	if (problem_abandoned(P)) {
		gsl_vector_set_zero(f);
		return;
	}
	problem_phys_logs(P, x, logp);
	problem_model_at(P, logp, &m);
	if (P->grid_model && nstatic > 0) {
		double *kept = P->grid_model + point * nstatic;

		if (!P->grid_model_ready)
			memcpy(kept, dm, nstatic * sizeof *kept);
		model = kept;
	}
	for (i = 0; i < d->ndrops; i++, row++)
		gsl_vector_set(f, row,
		    problem_weigh(model[i], d->drops[i].rebound, problem_drop_sigma(&d->drops[i])));
	for (i = 0; i < d->npresses; i++, row++)
		gsl_vector_set(f, row,
		    problem_weigh(model[d->ndrops + i], d->presses[i].deflection,
		        problem_press_sigma(&d->presses[i])));
	for (i = 0; i < d->ntrajectories; i++) {
		const struct calib_trajectory *tr = &d->trajectories[i];
		double t0 = problem_release_time(P, x, i), H = problem_release_height(P, x, i),
		       best = INFINITY;
		double slope = -P->scene.option.gravity * (tr->t[search_first_impact(tr)] - t0);

		for (shift = -P->grid_shifts; shift <= P->grid_shifts; shift++) {
			double dt = shift * h / 3, chi2 = 0;

			problem_traj_residuals(P, &m, i, t0 + dt, H + slope * dt, P->f0, row);
			for (k = row; k < row + tr->n; k++)
				chi2 += gsl_vector_get(P->f0, k) * gsl_vector_get(P->f0, k);
			if (chi2 < best) {
				best = chi2;
				for (k = row; k < row + tr->n; k++)
					gsl_vector_set(f, k, gsl_vector_get(P->f0, k));
			}
		}
		row += tr->n;
	}
}

/* Move each trajectory's release in x along its valley to the best of the phases
 * grid_residuals() tries (x updated in place): where a descent should start. */
static void pick_releases(struct problem *P, gsl_vector *x)
{
	const struct calib_data *d = P->data;
	const double h = P->scene.option.timestep;
	struct core_scene_model m;
	double logp[NPHYS];
	size_t i, k, row = problem_traj_first_row(P);
	int shift;

	problem_phys_logs(P, x, logp);
	problem_model_at(P, logp, &m);
	for (i = 0; i < d->ntrajectories; i++) {
		const struct calib_trajectory *tr = &d->trajectories[i];
		double t0 = problem_release_time(P, x, i), H = problem_release_height(P, x, i),
		       best = INFINITY;
		double slope = -P->scene.option.gravity * (tr->t[search_first_impact(tr)] - t0),
		       pick = 0;

		for (shift = -P->grid_shifts; shift <= P->grid_shifts; shift++) {
			double dt = shift * h / 3, chi2 = 0;

			problem_traj_residuals(P, &m, i, t0 + dt, H + slope * dt, P->f0, row);
			for (k = row; k < row + tr->n; k++)
				chi2 += gsl_vector_get(P->f0, k) * gsl_vector_get(P->f0, k);
			if (chi2 < best) {
				best = chi2;
				pick = dt;
			}
		}
		gsl_vector_set(x, P->nphys + 2 * i, t0 + pick);
		gsl_vector_set(x, P->nphys + 2 * i + 1, H + slope * pick);
		row += tr->n;
	}
}

/*
 * The local minima of chi^2 over a log-spaced grid of the fitted physical parameters
 * (nuisance fixed at its start), best first, at most CALIB_STARTS of them into best[];
 * then, when P->thorough and both are free, the lowest point of each edge of the grid not
 * among them (room for CALIB_MAX_STARTS in all). The rebound is a rough function of the
 * parameters (the discrete apex, the contact's phase within a step), so one descent from
 * the single best point can stall in a neighbouring valley. Returns how many were found
 * (>= 1).
 */
static size_t grid_starts(struct problem *P, gsl_vector *x, struct search_start *best)
{
	enum { N = CALIB_GRID_POINTS };
	static const int nb[8][2] = {
	    {-1, -1}, {-1, 0}, {-1, 1}, {0, -1}, {0, 1}, {1, -1}, {1, 0}, {1, 1}};
	const double *lo = P->log_lo, *hi = P->log_hi; /* the searched range */
	struct search_start grid[N][N];
	int counts[NPHYS], a, b, i, q;
	size_t k, found = 0;

	size_t ns = P->data->ndrops + P->data->npresses, npts;
	double(*pads)[NPHYS] = malloc(N * N * sizeof *pads), *dm = NULL;
	/* none yet, or made for other held parameters: made (again) */
	int fresh = !problem_grid_model_fits(P);

	if (fresh)
		P->grid_model_ready = 0;

	for (i = 0; i < NPHYS; i++)
		counts[i] = P->free[i] ? N : 1;
	npts = (size_t)(counts[TC] * counts[DR]);
	if (ns > 0 && fresh)
		dm = malloc(npts * ns * sizeof *dm);
	if (!pads || (ns > 0 && fresh && !dm)) {
		/* out of memory: the grid is left out, the descent starts where it is */
		free(pads);
		free(dm);
		problem_phys_logs(P, x, best[0].logp);
		best[0].chi2 = INFINITY;
		best[0].dist = 0;
		return 1;
	}
	for (a = 0; a < counts[TC]; a++) {
		for (b = 0; b < counts[DR]; b++) {
			struct search_start *g = &grid[a][b];
			int idx[NPHYS] = {a, b};

			g->dist = 0;
			for (i = 0; i < NPHYS; i++) {
				g->logp[i] = P->free[i] ? lo[i] + (hi[i] - lo[i]) * idx[i] / (N - 1)
				                        : P->start_log[i];
				g->dist +=
				    (g->logp[i] - P->start_log[i]) * (g->logp[i] - P->start_log[i]);
				pads[a * counts[DR] + b][i] = g->logp[i];
			}
		}
	}
	/* every grid point's drops and presses at once, through the lanes */
	if (dm && !problem_abandoned(P))
		problem_static_models(P, (const double(*)[NPHYS])pads, npts, dm);
	for (a = 0; a < counts[TC]; a++) {
		for (b = 0; b < counts[DR]; b++) {
			struct search_start *g = &grid[a][b];

			for (i = 0, k = 0; i < NPHYS; i++)
				if (P->free[i])
					gsl_vector_set(x, k++, g->logp[i]);
			grid_residuals(P, x, (size_t)(a * N + b),
			    dm ? dm + (size_t)(a * counts[DR] + b) * ns : NULL, P->f1);
			g->chi2 = problem_sum_squares(P->f1);
		}
	}
	free(dm);
	free(pads);
	problem_grid_model_made(P);
	if (P->grid_kept && !P->grid_kept_ready) {
		for (a = 0; a < counts[TC]; a++)
			for (b = 0; b < counts[DR]; b++)
				P->grid_kept[a * N + b] = grid[a][b];
		P->grid_counts[TC] = counts[TC];
		P->grid_counts[DR] = counts[DR];
		P->grid_kept_ready = 1;
	}
	for (a = 0; a < counts[TC]; a++) {
		for (b = 0; b < counts[DR]; b++) {
			int minimum = 1;

			for (q = 0; q < 8 && minimum; q++) {
				int na = a + nb[q][0], nbb = b + nb[q][1];
				if (na >= 0 && na < counts[TC] && nbb >= 0 && nbb < counts[DR] &&
				    start_better(&grid[na][nbb], &grid[a][b]))
					minimum = 0;
			}
			if (!minimum)
				continue;
			/* insert into best[], sorted, keeping the CALIB_STARTS best */
			if (found < CALIB_STARTS)
				found++;
			else if (!start_better(&grid[a][b], &best[CALIB_STARTS - 1]))
				continue;
			for (k = found - 1; k > 0 && start_better(&grid[a][b], &best[k - 1]); k--)
				best[k] = best[k - 1];
			best[k] = grid[a][b];
		}
	}
	if (P->thorough && counts[TC] > 1 && counts[DR] > 1) {
		int edge;

		for (edge = 0; edge < 4; edge++) {
			/* edges: timeconst low, high, dampratio low, high */
			const struct search_start *low = NULL;

			for (i = 0; i < N; i++) {
				const struct search_start *g = edge < 2
				    ? &grid[edge == 0 ? 0 : N - 1][i]
				    : &grid[i][edge == 2 ? 0 : N - 1];

				if (isfinite(g->chi2) && (!low || start_better(g, low)))
					low = g;
			}
			for (k = 0; low && k < found; k++)
				if (memcmp(best[k].logp, low->logp, sizeof low->logp) == 0)
					low = NULL;
			if (low && found < CALIB_MAX_STARTS)
				best[found++] = *low;
		}
	}
	return found;
}

/* Put the physical part of a start into x. */
static void set_start(const struct problem *P, const struct search_start *st, gsl_vector *x)
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

int search_least_squares(struct problem *P, gsl_vector *x, int *iterations, struct err *err)
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

/*
 * Other descents that ended in a different valley with almost the same chi^2 make
 * the local standard errors too optimistic (the model is rough: the contact lasts a
 * few steps and which step ends it jumps with the parameters). Treat chi^2 as
 * quadratic between the two minima: a competitor at distance d in a log parameter
 * with dchi2 / s^2 = z^2 implies a standard error of at least d / max(z, 1). Only
 * competitors within CALIB_AMBIGUITY_SIGMAS count.
 */
static void widen_for_alternatives(struct problem *P, const gsl_vector *x, double best_chi2,
    const struct search_start *found, size_t count)
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

/*
 * Fit each trajectory's release alone, the physical parameters of x held (x updated
 * in place), from its current release and from releases up to `shifts` half steps
 * earlier and later (heights moved to keep the fall), keeping the best. A descent that
 * moves everything at once from a start far from the data drags a release by whole
 * steps to make up for the wrong contact, and stays there: the release time has a
 * valley for each step the impact can begin in.
 */
static int fit_releases(
    struct problem *P, gsl_vector *x, int shifts, int *iterations, struct err *err)
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
		double slope = -P->scene.option.gravity * (tr->t[search_first_impact(tr)] - t0);

		one.trajectories = tr;
		Q.n = tr->n;
		Q.f0 = &f0.vector;
		Q.f1 = &f1.vector;
		for (shift = -shifts; shift <= shifts; shift++) {
			double dt = 0.5 * shift * P->scene.option.timestep, chi2;

			gsl_vector_set(y, 0, t0 + dt);
			gsl_vector_set(y, 1, H + slope * dt);
			if (search_least_squares(&Q, y, iterations, err) != 0)
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
	rc = search_least_squares(&Q, y, iterations, err);
	for (k = 0; k < Q.p; k++)
		gsl_vector_set(x, k, gsl_vector_get(y, k));
	gsl_vector_free(Q.xp);
	gsl_vector_free(y);
	return rc;
}

/* A descent of descend() or descend_from(): its start, its own problem and vector, what it
 * reached. */
struct descent {
	struct problem Q;
	gsl_vector *x;
	const gsl_vector *best;
	struct search_start st;
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
	d->rc = search_least_squares(&d->Q, d->x, &d->iterations, &d->err);
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
static int descents_alloc(struct problem *P, const struct search_start *starts, size_t count,
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
 * descend() without trajectories: a start is its physics alone (there are no releases to
 * pick or fit first), so the descents run at once over the fit's threads, each on a fork of P,
 * and are taken in turn as descend() takes them, to the same bits; those after the one that
 * was good enough are not taken.
 */
static int descend_at_once(struct problem *P, const gsl_vector *init,
    const struct search_start *starts, size_t count, double enough, struct search_start *found,
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

/*
 * The trust region from each of count starts in turn (init holds the nuisance starts),
 * keeping the lowest chi^2 in best and *best_chi2 (which the caller initialises); what
 * each descent reached goes to found[]. Stops early once a fit's chi^2 is at most
 * enough (as good as the noise scales allow); *nfound says how many ran.
 */
static int descend(struct problem *P, const gsl_vector *init, const struct search_start *starts,
    size_t count, double enough, struct search_start *found, size_t *nfound, gsl_vector *best,
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
		pick_releases(P, x);
		if (fit_releases(P, x, 0, iterations, err) != 0 ||
		    fit_physics(P, x, iterations, err) != 0 ||
		    search_least_squares(P, x, iterations, err) != 0)
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

/* Polish best (chi^2 *best_chi2): a fine grid around it finds a deeper valley next to
 * it, and a descent from there, CALIB_REFINE_ROUNDS times at most. x and init are
 * scratch vectors of P's size. */
static int polish(struct problem *P, gsl_vector *best, double *best_chi2, gsl_vector *x,
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
			struct search_start st;

			memcpy(st.logp, pads[pick], sizeof st.logp);
			gsl_vector_memcpy(init, best);
			set_start(P, &st, init);
		}
		gsl_vector_memcpy(x, init);
		if (search_least_squares(P, x, iterations, err) != 0)
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

/* By chi^2, then in grid order (as a stable sort of the grid's minima leaves them). */
static int cell_cmp(const void *pa, const void *pb)
{
	const struct search_cell *a = pa, *b = pb;

	if (a->chi2 != b->chi2)
		return (a->chi2 > b->chi2) - (a->chi2 < b->chi2);
	if (a->a != b->a)
		return (a->a > b->a) - (a->a < b->a);
	return (a->b > b->b) - (a->b < b->b);
}

/* A pad of a grid and the lower bound of its chi^2, for search_grid_minima()'s order. */
struct bounded {
	double bound;
	size_t pad;
};

static int bounded_cmp(const void *pa, const void *pb)
{
	const struct bounded *a = pa, *b = pb;

	if (a->bound != b->bound)
		return (a->bound > b->bound) - (a->bound < b->bound);
	return (a->pad > b->pad) - (a->pad < b->pad);
}

/* Whether pad (a, b) of a counts[TC] x counts[DR] grid, stepped, is a local minimum of chi^2
 * among the stepped pads (stepped[]): finite, and no stepped neighbour of the eight lower. */
static int grid_minimum_at(
    const int counts[NPHYS], const double *chi2, const unsigned char *stepped, int a, int b)
{
	static const int nb[8][2] = {
	    {-1, -1}, {-1, 0}, {-1, 1}, {0, -1}, {0, 1}, {1, -1}, {1, 0}, {1, 1}};
	const double c = chi2[(size_t)a * (size_t)counts[DR] + (size_t)b];
	int q;

	if (!isfinite(c))
		return 0;
	for (q = 0; q < 8; q++) {
		int na = a + nb[q][0], nbb = b + nb[q][1];
		size_t j = (size_t)na * (size_t)counts[DR] + (size_t)nbb;

		if (na >= 0 && na < counts[TC] && nbb >= 0 && nbb < counts[DR] && stepped[j] &&
		    chi2[j] < c)
			return 0;
	}
	return 1;
}

/* Presses stepped per batch of search_grid_minima(): enough to share over the fit's threads
 * (fit/model.c shares a batch of 512 or more). */
enum { GRID_BATCH_PRESSES = 512 };

/*
 * Why the presses are stepped lazily, and why that is exact: a press costs seconds of steps, a
 * drop a fraction of one. The drops of every pad are stepped first (problem_lazy_start()),
 * their residuals a lower bound of the pad's chi^2, then the presses of the pads in order of
 * that bound, a batch at a time, until the first `want` minima among the stepped pads lie
 * below `floor`, the least bound of the pads not stepped. Then each of those is a minimum of
 * the whole grid (a neighbour not stepped lies at or above floor, so above it), and no other
 * minimum lies below the last of them: a pad not stepped lies at or above floor, and a stepped one
 * either is a minimum among the stepped pads (and ranks after them) or has a stepped
 * neighbour below it (and is no minimum).
 */
int search_grid_minima(struct problem *P, const gsl_vector *x, const double (*pads)[NPHYS],
    const int counts[NPHYS], const unsigned char *allowed, int want, struct search_cell *cells,
    int *nmin, struct err *err)
{
	const size_t n = (size_t)counts[TC] * (size_t)counts[DR];
	double *chi2 = malloc(n * sizeof *chi2), *bound = malloc(n * sizeof *bound);
	unsigned char *stepped = calloc(n, 1);
	struct bounded *order = malloc(n * sizeof *order);
	struct search_cell *found = malloc(n * sizeof *found);
	size_t *batch = malloc(n * sizeof *batch), next = n, i, count, per;
	struct problem_lazy *L = NULL;
	int rc = -1, a, b;

	*nmin = 0;
	if (!chi2 || !bound || !stepped || !order || !found || !batch) {
		err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
		goto out;
	}
	if (problem_lazy_start(P, x, pads, n, bound, &L, err) != 0)
		goto out;
	if (!L) {
		/* no presses (or a trajectory): chi^2 at every pad at once */
		if (problem_chi2_many(P, x, pads, n, chi2, err) != 0)
			goto out;
		memset(stepped, 1, n);
	} else {
		for (i = 0; i < n; i++) {
			order[i].bound = bound[i];
			order[i].pad = i;
		}
		qsort(order, n, sizeof *order, bounded_cmp);
		next = 0;
	}
	per = GRID_BATCH_PRESSES / (P->data->npresses > 0 ? P->data->npresses : 1);
	if (per < 1)
		per = 1;
	for (;;) {
		const double floor = next < n ? order[next].bound : INFINITY;

		count = 0;
		for (a = 0; a < counts[TC]; a++)
			for (b = 0; b < counts[DR]; b++) {
				size_t pad = (size_t)a * (size_t)counts[DR] + (size_t)b;

				if (!stepped[pad] || (allowed && !allowed[pad]) ||
				    !grid_minimum_at(counts, chi2, stepped, a, b))
					continue;
				found[count].chi2 = chi2[pad];
				found[count].a = a;
				found[count].b = b;
				count++;
			}
		qsort(found, count, sizeof *found, cell_cmp);
		/* everything stepped, or the first `want` below every pad not stepped */
		if (next == n || (count >= (size_t)want && found[want - 1].chi2 < floor) ||
		    problem_abandoned(P))
			break;
		for (i = 0; i < per && next < n; i++, next++) {
			batch[i] = order[next].pad;
			stepped[batch[i]] = 1;
		}
		if (problem_lazy_finish(L, batch, i, chi2, err) != 0)
			goto out;
	}
	*nmin = count < (size_t)want ? (int)count : want;
	memcpy(cells, found, (size_t)*nmin * sizeof *cells);
	rc = 0;
out:
	problem_lazy_free(L);
	free(batch);
	free(found);
	free(order);
	free(stepped);
	free(bound);
	free(chi2);
	return rc;
}

/*
 * Descents from each of count starts (the physics theirs, the releases best's), taken in
 * turn: the lowest chi^2 into best and *best_chi2 (a later one only where lower by more than
 * a part in 1e9), *improved set when best moved. Without trajectories a descent's start is
 * its physics alone, so the descents run at once over the fit's threads, each on a
 * problem_fork() of P (the same bits as one after another); with them each starts from the
 * releases of the best so far, so they run one after another on P's own scratch.
 */
static int descend_from(struct problem *P, const struct search_start *starts, size_t count,
    gsl_vector *best, double *best_chi2, int *improved, int *iterations, struct err *err)
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
	struct search_cell cells[CALIB_WIDE_STARTS];
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
	if (search_grid_minima(P, best, (const double(*)[NPHYS])pads, counts, NULL,
	        CALIB_WIDE_STARTS, cells, &nmin, err) != 0) {
		free(pads);
		return -1;
	}
	free(pads);
	{
		struct search_start st[CALIB_WIDE_STARTS];
		size_t nst = 0;

		for (i = 0; i < nmin && i < CALIB_WIDE_STARTS; i++, nst++) {
			int idx[NPHYS] = {cells[i].a, cells[i].b};

			for (q = 0; q < NPHYS; q++)
				st[nst].logp[q] = centre[q] +
				    (P->free[q] ? CALIB_WIDE_SPAN * (idx[q] - CALIB_WIDE_POINTS) /
				                CALIB_WIDE_POINTS
				                : 0);
		}
		return descend_from(P, st, nst, best, best_chi2, improved, iterations, err);
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
	struct search_cell cells[CALIB_GLOBAL_STARTS];
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
	if (search_grid_minima(P, best, (const double(*)[NPHYS])pads, counts, far,
	        CALIB_GLOBAL_STARTS, cells, &nmin, err) != 0)
		goto out;
	{
		struct search_start st[CALIB_GLOBAL_STARTS];
		size_t nst = 0;
		int improved = 0;

		for (i = 0; i < nmin && i < CALIB_GLOBAL_STARTS; i++, nst++)
			memcpy(st[nst].logp, pads[cells[i].a * counts[DR] + cells[i].b],
			    sizeof st[nst].logp);
		if (descend_from(P, st, nst, best, best_chi2, &improved, iterations, err) != 0)
			goto out;
	}
	rc = 0;
out:
	free(far);
	free(pads);
	return rc;
}

int search_all(struct problem *P, gsl_vector *x, struct search_start *found, size_t *nfound,
    double *chi2_out, int *iterations, struct err *err)
{
	struct search_start starts[CALIB_MAX_STARTS];
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
	if (descend(P, init, starts, count, enough, found, nfound, best, &best_chi2, x, iterations,
	        err) != 0 ||
	    polish(P, best, &best_chi2, x, init, iterations, err) != 0)
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
			if (fit_releases(P, x, 2, iterations, err) != 0 ||
			    search_least_squares(P, x, iterations, err) != 0)
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
		if (polish(P, best, &best_chi2, x, init, iterations, err) != 0)
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
	struct search_start found[CALIB_MAX_STARTS];
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
