/*
 * descent.c: a pad fit's Levenberg-Marquardt descents (see descent.h).
 */
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
	double *f;               /* P->n scratch for the Jacobian */
	const gsl_multifit_nlinear_workspace *w;
	int small_tried;         /* a step within the tolerance was tried once */
};

/* x into d->at: the free logs (held within the box), then the releases. */
static void unpack(struct descent *d, const gsl_vector *x)
{
	const struct problem *P = d->P;
	size_t k = 0, j;
	int q;

	for (q = 0; q < NPHYS; q++)
		if (d->moving[q])
			d->at.logp[q] = fmin(fmax(gsl_vector_get(x, k++), P->log_lo[q]), P->log_hi[q]);
	for (j = 0; j < 2 * P->data.ntrajectories; j++)
		d->at.rel[j] = gsl_vector_get(x, k++);
}

/* The rows of *pt into f; the drops' and presses' only when statics is set (else 0). */
static void residuals(const struct problem *P, struct problem_scratch *S,
    const struct descent_point *pt, int statics, double *f)
{
	struct core_scene_model m;
	size_t j, row = P->nstatic;

	if (problem_stopped(P)) {
		memset(f, 0, P->n * sizeof *f);
		return;
	}
	if (statics && P->nstatic > 0)
		problem_statics(P, (const double(*)[NPHYS])pt->logp, 1, 1, f);
	else
		memset(f, 0, P->nstatic * sizeof *f);
	if (P->data.ntrajectories == 0)
		return;
	problem_model_at(P, pt->logp, &m);
	for (j = 0; j < P->data.ntrajectories; j++) {
		problem_traj_residuals(P, S, &m, j, pt->rel[2 * j], pt->rel[2 * j + 1], f + row);
		row += P->data.trajectories[j].n;
	}
}

double descent_residuals(const struct problem *P, struct problem_scratch *S,
    const struct descent_point *pt, double *f)
{
	double chi2 = 0;
	size_t i;

	residuals(P, S, pt, 1, f);
	for (i = 0; i < P->n; i++)
		chi2 += f[i] * f[i];
	return chi2;
}

/* The Jacobian of d's residuals at x into J, block by block: a log's column moves every row,
 * a release's its own trajectory's only. f0: the residuals at x. */
static void jacobian(struct descent *d, const gsl_vector *x, const double *f0, double step_log,
    gsl_matrix *J)
{
	const struct problem *P = d->P;
	const double h = P->scene.option.timestep;
	size_t col = 0, i, j, row;
	int q;

	unpack(d, x);
	gsl_matrix_set_zero(J);
	for (q = 0; q < NPHYS; q++) {
		struct descent_point moved = d->at;

		if (!d->moving[q])
			continue;
		moved.logp[q] += step_log;
		residuals(P, d->S, &moved, d->nfree > 0, d->f);
		for (i = 0; i < P->n; i++)
			gsl_matrix_set(J, i, col, (d->f[i] - f0[i]) / step_log);
		col++;
	}
	row = P->nstatic;
	for (j = 0; j < P->data.ntrajectories; j++) {
		const size_t n = P->data.trajectories[j].n;
		const double steps[2] = {FD_STEP_TIME * h, FD_STEP_HEIGHT};
		struct core_scene_model m;
		int c;

		problem_model_at(P, d->at.logp, &m);
		for (c = 0; c < 2; c++, col++) {
			double rel[2] = {d->at.rel[2 * j], d->at.rel[2 * j + 1]};

			rel[c] += steps[c];
			problem_traj_residuals(P, d->S, &m, j, rel[0], rel[1], d->f);
			for (i = 0; i < n; i++)
				gsl_matrix_set(J, row + i, col, (d->f[i] - f0[row + i]) / steps[c]);
		}
		row += n;
	}
}

/*
 * The residuals at a trial point, or GSL_ETOLX without them when its step is within the step
 * tolerance (the test gsl_multifit_nlinear_test() makes) and one such step was tried already: a
 * descent that has arrived on the drops' rough chi^2 would spend its last trials shrinking
 * rejected steps, each a full evaluation, though a step that small ends it whether taken or not.
 * The first is tried: on a smooth valley (exact data) it is the last Newton step, which lands
 * the estimate on the minimum to rounding.
 */
static int trial_f(const gsl_vector *x, void *params, gsl_vector *f)
{
	struct descent *d = params;
	size_t i;

	if (d->w) {
		int small = 1;

		for (i = 0; i < d->w->x->size && small; i++)
			small = fabs(gsl_vector_get(d->w->dx, i)) <
			    FIT_XTOL * FIT_XTOL + FIT_XTOL * fabs(gsl_vector_get(d->w->x, i));
		if (small && d->small_tried)
			return GSL_ETOLX;
		d->small_tried |= small;
	}
	unpack(d, x);
	residuals(d->P, d->S, &d->at, d->nfree > 0, f->data);
	return GSL_SUCCESS;
}

static int trial_df(const gsl_vector *x, void *params, gsl_matrix *J)
{
	struct descent *d = params;
	double *f0 = malloc(d->P->n * sizeof *f0);

	if (!f0)
		return GSL_ENOMEM;
	unpack(d, x);
	residuals(d->P, d->S, &d->at, d->nfree > 0, f0);
	jacobian(d, x, f0, FD_STEP_LOG, J);
	free(f0);
	return GSL_SUCCESS;
}

/* d set up for P at *pt, and x holding its parameters; -1 when out of memory. */
static int descent_init(struct descent *d, const struct problem *P, struct problem_scratch *S,
    const int moving[NPHYS], const struct descent_point *pt, gsl_vector **x)
{
	size_t k = 0, j, nrel = 2 * P->data.ntrajectories;
	int q;

	memset(d, 0, sizeof *d);
	d->P = P;
	d->S = S;
	d->at = *pt;
	for (q = 0; q < NPHYS; q++)
		d->nfree += d->moving[q] = moving[q];
	d->at.rel = malloc((nrel + 1) * sizeof *d->at.rel);
	d->f = malloc((P->n + 1) * sizeof *d->f);
	*x = gsl_vector_alloc(problem_params(P, (size_t)d->nfree) + (d->nfree + nrel == 0));
	if (!d->at.rel || !d->f || !*x)
		return -1;
	memcpy(d->at.rel, pt->rel, nrel * sizeof *d->at.rel);
	for (q = 0; q < NPHYS; q++)
		if (moving[q])
			gsl_vector_set(*x, k++, pt->logp[q]);
	for (j = 0; j < nrel; j++)
		gsl_vector_set(*x, k++, pt->rel[j]);
	return 0;
}

static void descent_done(struct descent *d, gsl_vector *x)
{
	free(d->at.rel);
	free(d->f);
	gsl_vector_free(x);
}

int descent_run(const struct problem *P, struct problem_scratch *S, const int moving[NPHYS],
    struct descent_point *pt, int *iterations, struct err *err)
{
	gsl_multifit_nlinear_parameters params = gsl_multifit_nlinear_default_parameters();
	gsl_multifit_nlinear_workspace *w = NULL;
	gsl_multifit_nlinear_fdf fdf;
	struct descent d;
	gsl_vector *x = NULL;
	double *rel = pt->rel;
	int info, rc = -1;

	if (descent_init(&d, P, S, moving, pt, &x) != 0)
		goto out;
	if (d.nfree + P->data.ntrajectories == 0 || P->n < x->size) {
		/* nothing moves, or too few residuals to move it: the point as it is */
		pt->chi2 = descent_residuals(P, S, pt, d.f);
		rc = 0;
		goto out;
	}
	params.trs = gsl_multifit_nlinear_trs_lm;
	w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &params, P->n, x->size);
	if (!w)
		goto out;
	fdf.f = trial_f;
	fdf.df = trial_df;
	fdf.fvv = NULL;
	fdf.n = P->n;
	fdf.p = x->size;
	fdf.params = &d;
	/* the driver's status (converged, no progress, iteration limit) does not matter: the
	 * residuals judge the point it reached */
	if (gsl_multifit_nlinear_init(x, &fdf, w) == GSL_SUCCESS) {
		d.w = w;
		gsl_multifit_nlinear_driver(
		    CALIB_MAX_ITERATIONS, FIT_XTOL, FIT_GTOL, FIT_FTOL, NULL, NULL, &info, w);
	}
	unpack(&d, gsl_multifit_nlinear_position(w));
	*iterations += (int)gsl_multifit_nlinear_niter(w);
	memcpy(pt->logp, d.at.logp, sizeof pt->logp);
	memcpy(rel, d.at.rel, 2 * P->data.ntrajectories * sizeof *rel);
	residuals(P, S, pt, d.nfree > 0, d.f);
	pt->chi2 = 0;
	for (size_t i = 0; i < P->n; i++)
		pt->chi2 += d.f[i] * d.f[i];
	rc = 0;
out:
	if (rc != 0)
		err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
	gsl_multifit_nlinear_free(w);
	descent_done(&d, x);
	return rc;
}

int descent_jacobian(const struct problem *P, struct problem_scratch *S, const int moving[NPHYS],
    const struct descent_point *pt, double step_log, gsl_matrix *J, struct err *err)
{
	struct descent d;
	gsl_vector *x = NULL;
	double *f0 = malloc((P->n + 1) * sizeof *f0);
	int rc = -1;

	if (f0 && descent_init(&d, P, S, moving, pt, &x) == 0) {
		residuals(P, S, pt, 1, f0);
		d.nfree = 1; /* every row: the logs' columns see the drops and presses */
		jacobian(&d, x, f0, step_log, J);
		rc = 0;
	} else {
		err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
	}
	if (f0)
		descent_done(&d, x);
	free(f0);
	return rc;
}
