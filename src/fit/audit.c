/*
 * audit.c: a calibration's measurements evaluated at a given pad (see audit.h).
 */
#include "fit/audit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/quiet.h"
#include "core/sim.h"
#include "fit/descent.h"
#include "fit/model.h"
#include "fit/problem.h"
#include "fit/traj.h"
#include "fit/knobs.h"

/* A drop's or press's evaluation from its model value. */
static void point(struct audit_point *pt, double model, double measured, double sigma)
{
	double r = problem_weigh(model, measured, sigma);

	pt->model = isfinite(model) ? model : NAN;
	pt->residual = isfinite(model) ? measured - model : NAN;
	pt->sigma = sigma;
	pt->contribution = r * r;
}

/*
 * Trajectory tr (its fitted samples) at the pad of scene s: releases fitted from each finite
 * start of starts[nstarts][2], the lowest chi^2 kept, into *out. -1 when out of memory.
 */
static int trajectory(const struct core_scene *s, const struct calib_trajectory *tr,
    const double starts[][2], size_t nstarts, struct audit_traj *out, struct err *err)
{
	struct calib_data one;
	struct problem P;
	gsl_vector *x = gsl_vector_alloc(2), *f = NULL;
	int iterations = 0, rc = -1;
	size_t k, i;

	memset(&one, 0, sizeof one);
	one.trajectories = tr;
	one.ntrajectories = 1;
	memset(&P, 0, sizeof P);
	P.scene = *s;
	P.data = &one;
	P.n = tr->n;
	P.fd_step_log = FD_STEP_LOG;
	P.start_log[TC] = log(s->floor.solref[0]);
	P.start_log[DR] = log(s->floor.solref[1]);
	for (k = 0; k < NPHYS; k++) {
		P.log_lo[k] = -INFINITY;
		P.log_hi[k] = INFINITY;
	}
	out->contribution = INFINITY;
	out->release_time = out->release_height = out->rms = out->max_abs = NAN;
	if (!x || problem_size(&P, err) != 0 || !(f = gsl_vector_alloc(P.n))) {
		err_set(err, ERR_INTERNAL, NULL, "calibration audit: out of memory");
		goto out;
	}
	for (k = 0; k < nstarts; k++) {
		double chi2;

		if (!isfinite(starts[k][0]) || !isfinite(starts[k][1]))
			continue;
		gsl_vector_set(x, 0, starts[k][0]);
		gsl_vector_set(x, 1, starts[k][1]);
		if (descent_least_squares(&P, x, &iterations, err) != 0)
			goto out;
		problem_residuals(x, &P, f);
		chi2 = problem_sum_squares(f);
		if (chi2 < out->contribution || !isfinite(out->release_time)) {
			double ss = 0, mx = 0;

			out->contribution = chi2;
			out->release_time = gsl_vector_get(x, 0);
			out->release_height = gsl_vector_get(x, 1);
			/* the metres behind the weighted residuals: the model's own samples */
			for (i = 0; i < tr->n; i++) {
				double r = tr->z[i] - P.zmodel[i];

				ss += r * r;
				mx = fmax(mx, fabs(r));
			}
			out->rms = tr->n > 0 ? sqrt(ss / (double)tr->n) : 0;
			out->max_abs = mx;
		}
	}
	rc = 0;
out:
	gsl_vector_free(f);
	gsl_vector_free(x);
	problem_free(&P);
	return rc;
}

int audit_solref(const struct core_scene *setup, const struct calib_data *data, double timeconst,
    double dampratio, const double *releases, struct audit_result **out, struct err *err)
{
	struct audit_result *a = calloc(1, sizeof *a);
	struct core_scene s = *setup;
	struct core_scene_model m;
	size_t i;
	int rc = -1;

	quiet_gsl();
	if (!a)
		return err_set(err, ERR_INTERNAL, NULL, "calibration audit: out of memory");
	a->timeconst = timeconst;
	a->dampratio = dampratio;
	a->ndrops = data->ndrops;
	a->npresses = data->npresses;
	a->ntrajectories = data->ntrajectories;
	a->drops = calloc(data->ndrops + 1, sizeof *a->drops);
	a->presses = calloc(data->npresses + 1, sizeof *a->presses);
	a->traj = calloc(data->ntrajectories + 1, sizeof *a->traj);
	if (!a->drops || !a->presses || !a->traj) {
		err_set(err, ERR_INTERNAL, NULL, "calibration audit: out of memory");
		goto out;
	}
	/* the fit's model: the spring the solref names, refsafe off */
	s.option.refsafe = 0;
	s.floor.solref[0] = timeconst;
	s.floor.solref[1] = dampratio;
	core_scene_prepare(&s, &m);
	for (i = 0; i < data->ndrops; i++) {
		const struct calib_drop *d = &data->drops[i];

		point(
		    &a->drops[i], model_rebound(&m, d->height), d->rebound, problem_drop_sigma(d));
		a->chi2 += a->drops[i].contribution;
	}
	for (i = 0; i < data->npresses; i++) {
		const struct calib_press *p = &data->presses[i];

		/* the press model the fit uses (problem.c's residuals): MuJoCo's stepped press */
		point(&a->presses[i], model_press(&m, p->force), p->deflection,
		    problem_press_sigma(p));
		a->chi2 += a->presses[i].contribution;
	}
	a->n = data->ndrops + data->npresses;
	for (i = 0; i < data->ntrajectories; i++) {
		struct calib_trajectory tr = data->trajectories[i];
		double starts[2][2];

		tr.n = traj_fitted(&tr, s.option.timestep);
		traj_start(&tr, -m.a0, m.timestep, &starts[0][0], &starts[0][1]);
		starts[1][0] = releases ? releases[2 * i] : NAN;
		starts[1][1] = releases ? releases[2 * i + 1] : NAN;
		a->traj[i].fitted = tr.n;
		a->traj[i].sigma = problem_traj_sigma(&tr);
		if (trajectory(&s, &tr, starts, 2, &a->traj[i], err) != 0)
			goto out;
		a->chi2 += a->traj[i].contribution;
		a->n += tr.n;
	}
	*out = a;
	a = NULL;
	rc = 0;
out:
	audit_free(a);
	return rc;
}

void audit_free(struct audit_result *a)
{
	if (!a)
		return;
	free(a->drops);
	free(a->presses);
	free(a->traj);
	free(a);
}
