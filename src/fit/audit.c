/* audit.c: a calibration's measurements evaluated at a given pad (see audit.h). */
#include "fit/audit.h"

#include <math.h>
#include <stdlib.h>

#include "base/quiet.h"
#include "core/budget.h"
#include "fit/descent.h"
#include "fit/model.h"
#include "fit/problem.h"
#include "fit/knobs.h"

/* A drop's or press's evaluation from its model value; returns its contribution. */
static double point(struct audit_point *pt, double model, double measured, double sigma)
{
	double r = problem_weigh(model, measured, sigma);

	pt->model = isfinite(model) ? model : NAN;
	pt->residual = isfinite(model) ? measured - model : NAN;
	pt->sigma = sigma;
	pt->contribution = r * r;
	return pt->contribution;
}

/* The trajectories' evaluations at logp: their releases profiled together as the fit's map
 * profiles them at a point (fit/descent.h), from a scan of each free fall and from given (NULL:
 * none; a non-finite pair skipped). */
static int trajectories(const struct core_scene *setup, const struct calib_data *data,
    const double logp[NPHYS], const double *given, struct audit_result *a, struct err *err)
{
	struct problem P;
	struct problem_scratch S = {0};
	struct core_scene_model m;
	double *rel = NULL, chi2;
	size_t j;
	int rc = -1;

	if (problem_build(&P, setup, data, NULL, err) != 0 || problem_scratch_alloc(&P, &S) != 0 ||
	    !(rel = malloc(2 * data->ntrajectories * sizeof *rel))) {
		err_set(err, ERR_INTERNAL, NULL, "calibration audit: out of memory");
		goto out;
	}
	if (descent_releases(&P, &S, logp, MAP_RELEASE_SCAN, given, rel, &chi2, err) != 0)
		goto out;
	problem_model_at(&P, logp, &m);
	for (j = 0; j < data->ntrajectories; j++) {
		struct audit_traj *t = &a->traj[j];

		t->fitted = P.data.trajectories[j].n;
		t->sigma = problem_traj_sigma(&data->trajectories[j]);
		t->release_time = rel[2 * j];
		t->release_height = rel[2 * j + 1];
		t->contribution =
		    problem_traj_residuals(&P, &S, &m, j, &rel[2 * j], NULL, &t->rms, &t->max_abs);
		a->chi2 += t->contribution;
		a->n += t->fitted;
	}
	rc = 0;
out:
	free(rel);
	problem_scratch_free(&S);
	problem_free(&P);
	return rc;
}

int audit_solref(const struct core_scene *setup, const struct calib_data *data, double timeconst,
    double dampratio, const double *releases, struct audit_result **out, struct err *err)
{
	struct audit_result *a = calloc(1, sizeof *a);
	struct core_scene s = *setup;
	struct core_scene_model m;
	const double logp[NPHYS] = {log(timeconst), log(dampratio)};
	size_t i;
	int rc = -1;

	quiet_gsl();
	if (!a || !(a->drops = calloc(data->ndrops + 1, sizeof *a->drops)) ||
	    !(a->presses = calloc(data->npresses + 1, sizeof *a->presses)) ||
	    !(a->traj = calloc(data->ntrajectories + 1, sizeof *a->traj))) {
		err_set(err, ERR_INTERNAL, NULL, "calibration audit: out of memory");
		goto out;
	}
	a->timeconst = timeconst;
	a->dampratio = dampratio;
	a->ndrops = data->ndrops;
	a->npresses = data->npresses;
	a->ntrajectories = data->ntrajectories;
	/* the fit's model: the spring the solref names, refsafe off */
	s.option.refsafe = 0;
	s.floor.solref[0] = timeconst;
	s.floor.solref[1] = dampratio;
	core_scene_prepare(&s, &m);
	/* a budget that stopped (core/budget.h) stops the rest: the caller discards it all */
	for (i = 0; i < data->ndrops && !core_budget_stopped(); i++) {
		const struct calib_drop *d = &data->drops[i];

		a->chi2 += point(
		    &a->drops[i], model_rebound(&m, d->height), d->rebound, problem_drop_sigma(d));
	}
	for (i = 0; i < data->npresses && !core_budget_stopped(); i++) {
		const struct calib_press *p = &data->presses[i];

		/* the press model the fit uses (problem.c's residuals): MuJoCo's stepped press */
		a->chi2 += point(&a->presses[i], model_press(&m, p->force), p->deflection,
		    problem_press_sigma(p));
	}
	a->n = data->ndrops + data->npresses;
	if (data->ntrajectories > 0 && !core_budget_stopped() &&
	    trajectories(&s, data, logp, releases, a, err) != 0)
		goto out;
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
