/* audit.c: a calibration's measurements evaluated at a given pad (see audit.h). */
#include "fit/audit.h"

#include <math.h>
#include <stdlib.h>

#include "base/quiet.h"
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

/* A trajectory's evaluation at the pad of s: its release profiled there as the fit profiles it
 * at a point of its map (fit/descent.h), from a scan of its free fall and from given (NULL:
 * none; a non-finite pair skipped). */
static int trajectory(const struct core_scene *s, const struct calib_trajectory *tr,
    const double *given, struct audit_traj *out, struct err *err)
{
	struct calib_data one = {.trajectories = tr, .ntrajectories = 1};
	const double logp[NPHYS] = {log(s->floor.solref[0]), log(s->floor.solref[1])};
	struct problem P;
	struct problem_scratch S = {NULL, NULL};
	struct core_scene_model m;
	double rel[2], ss = 0, *f = NULL;
	int rc = -1;
	size_t i;

	if (problem_build(&P, s, &one, NULL, err) != 0 || problem_scratch_alloc(&P, &S) != 0 ||
	    !(f = malloc((tr->n + 1) * sizeof *f))) {
		err_set(err, ERR_INTERNAL, NULL, "calibration audit: out of memory");
		goto out;
	}
	out->fitted = P.data.trajectories[0].n;
	if (descent_releases(
	        &P, &S, logp, MAP_RELEASE_SCAN, given, rel, f, &out->contribution, err) != 0)
		goto out;
	out->release_time = rel[0];
	out->release_height = rel[1];
	/* the metres behind the weighted residuals: the model's own samples */
	problem_model_at(&P, logp, &m);
	model_trajectory(&m, rel[0], rel[1], tr->t, out->fitted, S.buf, S.zmodel);
	for (i = 0, out->max_abs = 0; i < out->fitted; i++) {
		ss += (tr->z[i] - S.zmodel[i]) * (tr->z[i] - S.zmodel[i]);
		out->max_abs = fmax(out->max_abs, fabs(tr->z[i] - S.zmodel[i]));
	}
	out->rms = out->fitted > 0 ? sqrt(ss / (double)out->fitted) : 0;
	rc = 0;
out:
	free(f);
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
	for (i = 0; i < data->ndrops; i++) {
		const struct calib_drop *d = &data->drops[i];

		a->chi2 += point(
		    &a->drops[i], model_rebound(&m, d->height), d->rebound, problem_drop_sigma(d));
	}
	for (i = 0; i < data->npresses; i++) {
		const struct calib_press *p = &data->presses[i];

		/* the press model the fit uses (problem.c's residuals): MuJoCo's stepped press */
		a->chi2 += point(&a->presses[i], model_press(&m, p->force), p->deflection,
		    problem_press_sigma(p));
	}
	a->n = data->ndrops + data->npresses;
	for (i = 0; i < data->ntrajectories; i++) {
		const struct calib_trajectory *tr = &data->trajectories[i];

		a->traj[i].sigma = problem_traj_sigma(tr);
		if (trajectory(&s, tr, releases ? &releases[2 * i] : NULL, &a->traj[i], err) != 0)
			goto out;
		a->chi2 += a->traj[i].contribution;
		a->n += a->traj[i].fitted;
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
