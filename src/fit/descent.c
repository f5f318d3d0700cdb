/* descent.c: a pad fit's Levenberg-Marquardt descents (see descent.h). */
#include "fit/descent.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_multifit_nlinear.h>

#include "fit/knobs.h"

/* One descent: its problem, which logs move, and the point the parameter vector unpacks to. */
struct descent {
	const struct problem *P;
	struct problem_scratch *S;
	int moving[NPHYS], nfree;
	struct descent_point at; /* at.rel: the descent's own copy */
	gsl_vector *x;           /* the free logs, then the releases */
	double *f, *f0;          /* P->n each: the Jacobian's moved residuals and its base */
	const gsl_multifit_nlinear_workspace *w;
	int small_tried; /* a step within the tolerance was tried once */
};

/* x into d->at: the free logs (held within the box), then the releases. */
static void unpack(struct descent *d, const gsl_vector *x)
{
	const struct problem *P = d->P;
	size_t k = 0, j;
	int q;

	for (q = 0; q < NPHYS; q++)
		if (d->moving[q])
			d->at.logp[q] =
			    fmin(fmax(gsl_vector_get(x, k++), P->log_lo[q]), P->log_hi[q]);
	for (j = 0; j < 2 * P->data.ntrajectories; j++)
		d->at.rel[j] = gsl_vector_get(x, k++);
}

/* The rows of *pt into f (the drops' and presses' 0 unless statics is set); their chi^2. */
static double residuals(const struct problem *P, struct problem_scratch *S,
    const struct descent_point *pt, int statics, double *f)
{
	struct core_scene_model m;
	size_t i, j, row = P->nstatic;
	double chi2 = 0;

	memset(f, 0, P->n * sizeof *f); /* a stopped fit's rows, and unweighed statics' */
	if (problem_stopped(P))
		return 0;
	if (statics && P->nstatic > 0)
		problem_statics(P, (const double(*)[NPHYS])pt->logp, 1, 1, f);
	if (P->data.ntrajectories > 0)
		problem_model_at(P, pt->logp, &m);
	for (j = 0; j < P->data.ntrajectories; j++) {
		problem_traj_residuals(P, S, &m, j, &pt->rel[2 * j], f + row, NULL, NULL);
		row += P->data.trajectories[j].n;
	}
	for (i = 0; i < P->n; i++)
		chi2 += f[i] * f[i];
	return chi2;
}

/* The Jacobian of d's residuals at d->at into J, differences from those at base: a log's column
 * moves every row, a release's its own trajectory's only. */
static void jacobian(
    struct descent *d, const struct descent_point *base, double step_log, gsl_matrix *J)
{
	const struct problem *P = d->P;
	const double steps[2] = {FD_STEP_TIME * P->scene.option.timestep, FD_STEP_HEIGHT};
	struct core_scene_model m;
	size_t col = 0, i, j, row = P->nstatic;
	int q, c;

	residuals(P, d->S, base, d->nfree > 0, d->f0);
	gsl_matrix_set_zero(J);
	for (q = 0; q < NPHYS; q++) {
		struct descent_point moved = d->at;

		if (!d->moving[q])
			continue;
		moved.logp[q] += step_log;
		residuals(P, d->S, &moved, d->nfree > 0, d->f);
		for (i = 0; i < P->n; i++)
			gsl_matrix_set(J, i, col, (d->f[i] - d->f0[i]) / step_log);
		col++;
	}
	if (P->data.ntrajectories > 0)
		problem_model_at(P, d->at.logp, &m);
	for (j = 0; j < P->data.ntrajectories; j++) {
		for (c = 0; c < 2; c++, col++) {
			double rel[2] = {d->at.rel[2 * j], d->at.rel[2 * j + 1]};

			rel[c] += steps[c];
			problem_traj_residuals(P, d->S, &m, j, rel, d->f, NULL, NULL);
			for (i = 0; i < P->data.trajectories[j].n; i++)
				gsl_matrix_set(
				    J, row + i, col, (d->f[i] - d->f0[row + i]) / steps[c]);
		}
		row += P->data.trajectories[j].n;
	}
}

/* The residuals at a trial point, or GSL_ETOLX at a second step within the step tolerance: on
 * rough chi^2 a descent would spend its last trials on rejected steps that end it anyway (the
 * first is tried: on a smooth valley it is the last Newton step, landing on the minimum). */
static int trial_f(const gsl_vector *x, void *params, gsl_vector *f)
{
	struct descent *d = params;
	int small = d->w != NULL; /* no step before the driver starts */
	size_t i;

	for (i = 0; small && i < d->w->x->size; i++)
		small = fabs(gsl_vector_get(d->w->dx, i)) <
		    FIT_XTOL * FIT_XTOL + FIT_XTOL * fabs(gsl_vector_get(d->w->x, i));
	if (small && d->small_tried)
		return GSL_ETOLX;
	d->small_tried |= small;
	unpack(d, x);
	residuals(d->P, d->S, &d->at, d->nfree > 0, f->data);
	return GSL_SUCCESS;
}

static int trial_df(const gsl_vector *x, void *params, gsl_matrix *J)
{
	struct descent *d = params;

	unpack(d, x);
	jacobian(d, &d->at, FD_STEP_LOG, J);
	return GSL_SUCCESS;
}

/* d set up for P at *pt, d->x holding its parameters; -1 with ERR_INTERNAL when out of memory.
 * The caller frees d->f and d->x either way. */
static int descent_init(struct descent *d, const struct problem *P, struct problem_scratch *S,
    const int moving[NPHYS], const struct descent_point *pt, struct err *err)
{
	size_t k = 0, j, nrel = 2 * P->data.ntrajectories;
	int q;

	*d = (struct descent){.P = P, .S = S, .at = *pt};
	for (q = 0; q < NPHYS; q++)
		d->nfree += d->moving[q] = moving[q];
	d->f = malloc((2 * P->n + nrel + 1) * sizeof *d->f); /* f, then f0, then at.rel */
	d->x = gsl_vector_alloc(problem_params(P, (size_t)d->nfree) + (d->nfree + nrel == 0));
	if (!d->f || !d->x)
		return err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
	d->f0 = d->f + P->n;
	d->at.rel = d->f0 + P->n;
	memcpy(d->at.rel, pt->rel, nrel * sizeof *d->at.rel);
	for (q = 0; q < NPHYS; q++)
		if (moving[q])
			gsl_vector_set(d->x, k++, pt->logp[q]);
	for (j = 0; j < nrel; j++)
		gsl_vector_set(d->x, k++, pt->rel[j]);
	return 0;
}

int descent_run(const struct problem *P, struct problem_scratch *S, const int moving[NPHYS],
    struct descent_point *pt, int *iterations, struct err *err)
{
	gsl_multifit_nlinear_parameters params = gsl_multifit_nlinear_default_parameters();
	gsl_multifit_nlinear_workspace *w = NULL;
	struct descent d;
	gsl_multifit_nlinear_fdf fdf = {.f = trial_f, .df = trial_df, .n = P->n, .params = &d};
	int info, rc = descent_init(&d, P, S, moving, pt, err);

	if (rc != 0)
		goto out;
	if (d.nfree + P->data.ntrajectories == 0 || P->n < d.x->size) {
		/* nothing moves, or too few residuals to move it: the point as it is */
		pt->chi2 = residuals(P, S, pt, 1, d.f);
		goto out;
	}
	params.trs = gsl_multifit_nlinear_trs_lm;
	w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &params, P->n, d.x->size);
	if (!w) {
		rc = err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
		goto out;
	}
	fdf.p = d.x->size;
	/* the driver's status does not matter: the residuals judge the point it reached */
	if (gsl_multifit_nlinear_init(d.x, &fdf, w) == GSL_SUCCESS) {
		d.w = w;
		gsl_multifit_nlinear_driver(
		    CALIB_MAX_ITERATIONS, FIT_XTOL, FIT_GTOL, FIT_FTOL, NULL, NULL, &info, w);
	}
	unpack(&d, gsl_multifit_nlinear_position(w));
	*iterations += (int)gsl_multifit_nlinear_niter(w);
	memcpy(pt->logp, d.at.logp, sizeof pt->logp);
	memcpy(pt->rel, d.at.rel, 2 * P->data.ntrajectories * sizeof *pt->rel);
	pt->chi2 = residuals(P, S, pt, d.nfree > 0, d.f);
out:
	gsl_multifit_nlinear_free(w);
	free(d.f);
	gsl_vector_free(d.x);
	return rc;
}

int descent_jacobian(const struct problem *P, struct problem_scratch *S, const int moving[NPHYS],
    const struct descent_point *pt, double step_log, gsl_matrix *J, struct err *err)
{
	struct descent d;
	int rc = descent_init(&d, P, S, moving, pt, err);

	if (rc == 0) {
		unpack(&d, d.x);
		d.nfree = 1; /* every row: the logs' columns see the drops and presses */
		jacobian(&d, pt, step_log, J);
	}
	free(d.f);
	gsl_vector_free(d.x);
	return rc;
}

int descent_releases(const struct problem *P, struct problem_scratch *S, const double logp[NPHYS],
    int scan, const double *seed, double *rel, double *chi2, struct err *err)
{
	const int none[NPHYS] = {0, 0};
	struct descent_point dp = {{logp[TC], logp[DR]}, rel, 0};
	struct core_scene_model m;
	size_t j;
	int k, iterations = 0;

	problem_model_at(P, logp, &m);
	for (j = 0; j < P->data.ntrajectories; j++) {
		const double *ff = &P->release0[2 * j], slope = P->release_slope[j];
		double best = INFINITY;

		for (k = -scan; k <= scan; k++) {
			double dt = scan ? P->scene.option.timestep * k / scan : 0;
			double at[2] = {ff[0] + dt, ff[1] + slope * dt},
			       c = problem_traj_residuals(P, S, &m, j, at, NULL, NULL, NULL);

			if (c < best) {
				best = c;
				memcpy(&rel[2 * j], at, sizeof at);
			}
		}
		if (seed && isfinite(seed[2 * j]) && isfinite(seed[2 * j + 1]) &&
		    problem_traj_residuals(P, S, &m, j, &seed[2 * j], NULL, NULL, NULL) < best)
			memcpy(&rel[2 * j], &seed[2 * j], 2 * sizeof *rel);
	}
	if (descent_run(P, S, none, &dp, &iterations, err) != 0)
		return -1;
	*chi2 = dp.chi2;
	return 0;
}
