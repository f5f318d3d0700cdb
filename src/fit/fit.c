/*
 * fit.c: the pad calibration fit's entry: the problem set up from the measurements, the
 * search, the identification (a parameter held when the data cannot determine it), the
 * standard errors, the status and the notes (see fit.h for the model and the method).
 */
#include "fit/fit.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "base/quiet.h"
#include "core/growth.h"
#include "core/law.h"
#include "core/sim.h"
#include "fit/model.h"
#include "fit/problem.h"
#include "fit/search.h"
#include "fit/uncertainty.h"
#include "tunables.h"

_Static_assert((int)TC == (int)FIT_TC && (int)DR == (int)FIT_DR && NPHYS == 2,
    "fit.h's parameter order is problem.h's");

static void note(struct fit_result *fit, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void note(struct fit_result *fit, const char *fmt, ...)
{
	va_list ap;

	if (fit->nnotes >= FIT_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(fit->notes[fit->nnotes++], FIT_NOTE_MAX, fmt, ap);
	va_end(ap);
}

/* Why a parameter is held, for the fit's notes. */
static void explain_hold(struct fit_result *fit, const struct problem *P, int held,
    const double dir[NPHYS], double value)
{
	static const char *const names[NPHYS] = {"timeconst", "dampratio"};

	if (fabs(dir[TC]) > 0.3 && fabs(dir[DR]) > 0.3) {
		/* the data see tc^a dr^b with (a, b) orthogonal to the null direction */
		double a = fabs(dir[DR]), b = (dir[TC] * dir[DR] < 0 ? 1 : -1) * fabs(dir[TC]);
		if (fabs(a - b) < 0.05 * a)
			note(fit,
			    "the measurements determine only timeconst*dampratio (the static "
			    "stiffness "
			    "1/(timeconst*dampratio)^2): %s held at %.6g; add drops that bounce or "
			    "a trajectory to separate them",
			    names[held], value);
		else
			note(fit,
			    "the measurements determine only timeconst * dampratio^%.3g: %s held "
			    "at "
			    "%.6g",
			    b / a, names[held], value);
	} else if (held == DR && P->data->ndrops > 0) {
		note(fit,
		    "dampratio is not determined by these measurements (drops that do not bounce "
		    "only bound it from below): held at %.6g",
		    value);
	} else {
		note(fit, "%s is not determined by these measurements: held at %.6g", names[held],
		    value);
	}
}

static void insufficient(struct fit_result *fit, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void insufficient(struct fit_result *fit, const char *fmt, ...)
{
	va_list ap;

	fit->status = FIT_INSUFFICIENT;
	if (fit->nnotes >= FIT_MAX_NOTES)
		fit->nnotes = FIT_MAX_NOTES - 1;
	va_start(ap, fmt);
	vsnprintf(fit->notes[fit->nnotes++], FIT_NOTE_MAX, fmt, ap);
	va_end(ap);
}

/* Notes on the fitted contact in MuJoCo at the setup's timestep. */
static void check_contact(struct fit_result *fit)
{
	struct ctd_scene s = fit->scene;
	struct ctd_scene_model m;
	struct ctd_growth_report gr;
	struct ctd_sim_drop rest;
	double h = s.option.timestep;

	fit->refsafe_min = 2 * h;
	fit->below_refsafe = fit->timeconst < fit->refsafe_min;
	if (fit->below_refsafe)
		note(fit,
		    "timeconst %.6g is below 2*timestep = %.6g: refsafe would replace it with "
		    "%.6g; "
		    "paste solref_direct (refsafe leaves the direct form alone) or use a timestep "
		    "<= %.6g",
		    fit->timeconst, fit->refsafe_min, fit->refsafe_min, fit->timeconst / 2);
	s.option.refsafe = 0;
	ctd_growth_stability(s.floor.solref, s.floor.solimp, -1, h, 0, s.option.integrator, &gr);
	fit->growth = gr.growth;
	if (!gr.stable)
		note(fit,
		    "the fitted contact spring grows by %.4g per step at timestep %.6g (h*omega = "
		    "%.4g): MuJoCo would inject energy; use a smaller timestep",
		    gr.growth, h, gr.h_omega);
	ctd_scene_prepare(&s, &m);
	ctd_sim_drop(&m, 0, CHATTER_DURATION, &rest);
	fit->chatter = rest.jitter;
	if (!(rest.jitter <= CALIB_CHATTER_JITTER))
		note(fit,
		    "an object placed on this pad at timestep %.6g does not come to rest (height "
		    "varies by %.3g m over the last %.3g s): MuJoCo's contact chatters; a smaller "
		    "timestep or a larger timeconst*dampratio settles it",
		    h, rest.jitter, JITTER_WINDOW);
	if (s.floor.priority <= s.geom.priority)
		note(fit,
		    "the pad's priority (%d) does not exceed the object's (%d): MuJoCo mixes their "
		    "solref, and the fitted value is the pad's share of that mix",
		    s.floor.priority, s.geom.priority);
}

/* Model predictions and residual summaries at the solution. */
static void record_residuals(struct fit_result *fit, struct problem *P, const gsl_vector *x)
{
	const struct calib_data *d = P->data;
	struct ctd_scene_model m;
	double logp[NPHYS], pen;
	size_t i, j;

	problem_phys_logs(P, x, logp);
	problem_model_at(P, logp, &m);
	for (i = 0; i < d->ndrops; i++) {
		fit->drop_model[i] = model_rebound(&m, d->drops[i].height);
		fit->drop_residual[i] = d->drops[i].rebound - fit->drop_model[i];
	}
	for (i = 0; i < d->npresses; i++) {
		fit->press_model[i] =
		    ctd_sim_equilibrium(&m, d->presses[i].force, &pen) == 0 ? pen : NAN;
		fit->press_residual[i] = d->presses[i].deflection - fit->press_model[i];
	}
	for (j = 0; j < d->ntrajectories; j++) {
		const struct calib_trajectory *tr = &d->trajectories[j];
		struct fit_traj *tf = &fit->traj[j];
		double ss = 0;

		tf->release_time = gsl_vector_get(x, P->nphys + 2 * j);
		tf->release_height = gsl_vector_get(x, P->nphys + 2 * j + 1);
		model_trajectory(
		    &m, tf->release_time, tf->release_height, tr->t, tr->n, P->buf, P->zmodel);
		tf->max_abs = 0;
		for (i = 0; i < tr->n; i++) {
			double r = tr->z[i] - P->zmodel[i];
			ss += r * r;
			tf->max_abs = fmax(tf->max_abs, fabs(r));
		}
		tf->rms = sqrt(ss / (double)tr->n);
	}
}

/*
 * Standard errors at the solution. Of the physical parameters: the largest of three,
 * each of which alone falls short somewhere. The covariance's is exact where chi^2 is
 * a smooth bowl; the profile likelihood's follows a curved valley to where the data
 * rule it out; the bootstrap's sees how far the whole search strays in the pieces of a
 * rough chi^2 (and 16 replicas estimate a spread only to about 18 %). Never below the
 * floor a competing minimum sets. Of the releases: the covariance's.
 */
static void record_errors(struct fit_result *fit, const struct problem *P,
    const struct uncertainty_analysis *an, const struct uncertainty_boot *bt,
    const struct uncertainty_profiles *pr, const struct uncertainty_intervals *ci)
{
	static const int prof_of[NPHYS] = {UNCERTAINTY_PROF_TC, UNCERTAINTY_PROF_DR};
	double s2, var[NPHYS] = {0, 0}, covar = 0, product;
	size_t k = 0, j;
	int i, idx[NPHYS] = {-1, -1};

	fit->chi2 = problem_sum_squares(P->f0);
	fit->dof = (long)P->n - (long)P->p;
	fit->replicas = bt->replicas;
	s2 = problem_residual_variance(fit->chi2, P->n, P->p);
	fit->se_scaled = s2 > 1;
	for (i = 0; i < NPHYS; i++) {
		double se_prof = pr->done[prof_of[i]] ? pr->se[prof_of[i]] : 0;

		if (!P->free[i])
			continue;
		idx[i] = (int)k;
		var[i] = gsl_matrix_get(an->cov, k, k) * s2;
		var[i] = fmax(var[i], bt->se_log[i] * bt->se_log[i]);
		var[i] = fmax(var[i], se_prof * se_prof);
		var[i] = fmax(var[i], P->se_floor[i] * P->se_floor[i]);
		fit->se_log[i] = fit->identified[i] ? sqrt(var[i]) : NAN;
		if (fit->identified[i] && ci->done[i])
			memcpy(fit->interval_log[i], ci->log[i], sizeof fit->interval_log[i]);
		k++;
	}
	fit->correlation = NAN;
	if (idx[TC] >= 0 && idx[DR] >= 0) {
		if (bt->replicas > 0) {
			fit->correlation = bt->correlation;
		} else {
			covar = gsl_matrix_get(an->cov, (size_t)idx[TC], (size_t)idx[DR]) * s2;
			if (var[TC] > 0 && var[DR] > 0)
				fit->correlation = covar / sqrt(var[TC] * var[DR]);
		}
		covar = isfinite(fit->correlation) ? fit->correlation * sqrt(var[TC] * var[DR]) : 0;
	}
	fit->se_log_product = NAN;
	if (fit->product_identified) {
		product = sqrt(fmax(var[TC] + var[DR] + 2 * covar, 0));
		if (bt->replicas > 0)
			product = fmax(product, bt->se_log_product);
		if (pr->done[UNCERTAINTY_PROF_PRODUCT])
			product = fmax(product, pr->se[UNCERTAINTY_PROF_PRODUCT]);
		fit->se_log_product = product;
	}
	for (j = 0; j < P->data->ntrajectories; j++) {
		size_t c = P->nphys + 2 * j;
		fit->traj[j].se_release_time = sqrt(gsl_matrix_get(an->cov, c, c) * s2);
		fit->traj[j].se_release_height = sqrt(gsl_matrix_get(an->cov, c + 1, c + 1) * s2);
	}
}

/* Which parameter to hold for an unidentified direction: the one it moves most,
 * dampratio on a tie (presses, the common case, then fit timeconst). */
static int choose_hold(const double dir[NPHYS])
{
	return fabs(dir[TC]) > 1.5 * fabs(dir[DR]) ? TC : DR;
}

static int fit_run(struct fit_result *fit, struct problem *P, struct err *err)
{
	const struct calib_data *d = P->data;
	struct ctd_scene_model m;
	struct uncertainty_analysis an = {NULL, 0, 0, {0, 0}};
	struct uncertainty_boot bt;
	struct uncertainty_profiles prof;
	struct uncertainty_intervals ci;
	gsl_vector *x = NULL;
	size_t j, k;
	int i, rc = -1, phase;

	if (problem_size(P, err) != 0)
		return -1;
	if (P->n < P->p) {
		insufficient(fit,
		    "%zu measured values for %zu parameters: add drops at other heights, presses "
		    "or a trajectory",
		    P->n, P->p);
		return 0;
	}
	x = gsl_vector_alloc(P->p);
	an.cov = gsl_matrix_alloc(P->p, P->p);
	if (!x || !an.cov) {
		err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
		goto out;
	}
	problem_model_at(P, P->start_log, &m);
	for (j = 0; j < d->ntrajectories; j++) {
		double t0, H;

		search_traj_start(&d->trajectories[j], -m.a0, m.timestep, &t0, &H);
		gsl_vector_set(x, P->nphys + 2 * j, t0);
		gsl_vector_set(x, P->nphys + 2 * j + 1, H);
	}
	if (search_multi_start(P, x, &fit->iterations, err) != 0)
		goto out;
	for (phase = 0;; phase++) {
		if ((phase > 0 && search_least_squares(P, x, &fit->iterations, err) != 0) ||
		    uncertainty_analyse(P, x, &an, err) != 0)
			goto out;
		if (!an.phys_null || phase > 0 || P->nphys < 2)
			break;
		/* hold the parameter the null direction moves most at its fitted value, and
		 * refit the rest: the data determine the orthogonal combination */
		{
			int hold = choose_hold(an.null_dir);
			gsl_vector *reduced = gsl_vector_alloc(P->p - 1);
			double logp[NPHYS];

			if (!reduced) {
				err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
				goto out;
			}
			problem_phys_logs(P, x, logp);
			P->start_log[hold] = logp[hold];
			P->free[hold] = 0;
			fit->held[hold] = 1;
			for (i = 0, k = 0; i < NPHYS; i++)
				if (P->free[i])
					gsl_vector_set(reduced, k++, logp[i]);
			for (j = 2; j < P->p; j++)
				gsl_vector_set(reduced, k++, gsl_vector_get(x, j));
			explain_hold(fit, P, hold, an.null_dir, exp(logp[hold]));
			fit->product_identified = fabs(an.null_dir[TC]) > 0.3 &&
			    fabs(an.null_dir[DR]) > 0.3 && an.null_dir[TC] * an.null_dir[DR] < 0;
			fit->identified[hold == TC ? DR : TC] = !fit->product_identified;
			gsl_vector_free(x);
			gsl_matrix_free(an.cov);
			an.cov = NULL;
			x = reduced;
			if (problem_size(P, err) != 0)
				goto out;
			an.cov = gsl_matrix_alloc(P->p, P->p);
			if (!an.cov) {
				err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
				goto out;
			}
		}
	}
	if (an.phys_null) {
		insufficient(fit,
		    "the measurements determine neither timeconst nor dampratio (no drop bounces "
		    "and there is no press or trajectory): add presses, bouncing drops or a "
		    "trajectory");
		fit->identified[TC] = fit->identified[DR] = fit->product_identified = 0;
	} else if (P->nphys == NPHYS) {
		fit->identified[TC] = fit->identified[DR] = fit->product_identified = 1;
	}
	memset(&bt, 0, sizeof bt);
	memset(&prof, 0, sizeof prof);
	memset(&ci, 0, sizeof ci);
	if (!an.phys_null &&
	    (uncertainty_profile(P, x, &an, &prof, &fit->iterations, err) != 0 ||
	        uncertainty_bootstrap(P, x, &bt, err) != 0))
		goto out;
	if (!an.phys_null && uncertainty_intervals(P, x, an.cov, &ci, &fit->iterations, err) != 0)
		goto out;
	fit->interval_basis = ci.chi2_test ? FIT_INTERVAL_CHI2_TEST : FIT_INTERVAL_LIKELIHOOD_RATIO;
	if (an.nuisance_null)
		note(fit, "a trajectory's release time or height is not determined by its samples");
	if (P->has_alt)
		note(fit,
		    "another minimum, timeconst %.6g and dampratio %.6g, fits almost as well (chi2 "
		    "higher by %.3g): the standard errors are widened to cover it; more "
		    "measurements will decide between them",
		    exp(P->alt_logp[TC]), exp(P->alt_logp[DR]), P->alt_dchi2);
	{
		double logp[NPHYS];

		problem_phys_logs(P, x, logp);
		fit->timeconst = exp(logp[TC]);
		fit->dampratio = exp(logp[DR]);
	}
	problem_residuals(x, P, P->f0);
	record_errors(fit, P, &an, &bt, &prof, &ci);
	record_residuals(fit, P, x);
	if (fit->status != FIT_INSUFFICIENT)
		fit->status = P->nphys == NPHYS ? FIT_OK : FIT_PARTIAL;
	/* say when the data cannot vouch for the errors, or contradict their sigmas */
	if (fit->status == FIT_OK && fit->dof < CALIB_MIN_DOF) {
		fit->status = FIT_FEW_DOF;
		note(fit,
		    "%ld degrees of freedom left (fewer than %d): the residuals cannot check the "
		    "measurements' sigmas, so the standard errors rest on the stated sigmas alone; "
		    "add measurements",
		    fit->dof, CALIB_MIN_DOF);
	} else if (fit->status == FIT_OK && fit->dof > 0 &&
	    gsl_cdf_chisq_Q(fit->chi2, (double)fit->dof) < CALIB_MISFIT_P) {
		fit->status = FIT_MISFIT;
		note(fit,
		    "chi2/dof = %.3g: the measurements scatter far more than their sigmas say, or "
		    "the "
		    "model does not describe them; the standard errors are scaled up by "
		    "sqrt(chi2/dof)",
		    fit->chi2 / (double)fit->dof);
	}
	rc = 0;
out:
	gsl_matrix_free(an.cov);
	gsl_vector_free(x);
	return rc;
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
static size_t traj_fitted(const struct calib_trajectory *tr, double h)
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

/* log(timeconst), log(dampratio) equivalent to a geom's solref in either form. */
static void start_logs(const struct ctd_scene *s, double logp[NPHYS])
{
	struct ctd_law_solimp imp;
	struct ctd_law_gains g;

	ctd_law_solimp_clamp(s->floor.solimp, &imp);
	ctd_law_solref_kb(s->floor.solref, imp.dwidth, s->option.timestep, 0, &g);
	if (g.K > 0 && g.B > 0) {
		/* K = 1/(dmax tc dr)^2 and B = 2/(dmax tc), the direct form alike */
		double tc = 2 / (imp.dwidth * g.B);
		logp[TC] = log(tc);
		logp[DR] = log(1 / (imp.dwidth * sqrt(g.K) * tc));
	} else {
		logp[TC] = log(CALIB_PAD_TIMECONST);
		logp[DR] = log(CALIB_PAD_DAMPRATIO);
	}
}

int fit_solref(const struct ctd_scene *setup, const struct calib_data *data,
    struct fit_result **out, struct err *err)
{
	return fit_solref_within(setup, data, NULL, out, err);
}

int fit_solref_within(const struct ctd_scene *setup, const struct calib_data *data,
    const struct calib_bound *bound, struct fit_result **out, struct err *err)
{
	int stopped = 0;
	struct fit_result *fit = calloc(1, sizeof *fit);
	struct calib_trajectory *fitted = calloc(data->ntrajectories + 1, sizeof *fitted);
	struct calib_data used = *data;
	struct problem P;
	size_t j, bouncing, dropped = 0;
	int rc = -1;

	memset(&P, 0, sizeof P);
	P.bound = bound;
	P.started = problem_monotonic_seconds();
	P.stopped = &stopped;
	/* a library must not abort the daemon: GSL's failures are return codes here */
	quiet_gsl();
	if (!fit || !fitted) {
		free(fitted);
		free(fit);
		return err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
	}
	fit->scene = *setup;
	fit->ndrops = data->ndrops;
	fit->npresses = data->npresses;
	fit->ntrajectories = data->ntrajectories;
	fit->drop_model = calloc(data->ndrops + 1, sizeof *fit->drop_model);
	fit->drop_residual = calloc(data->ndrops + 1, sizeof *fit->drop_residual);
	fit->press_model = calloc(data->npresses + 1, sizeof *fit->press_model);
	fit->press_residual = calloc(data->npresses + 1, sizeof *fit->press_residual);
	fit->traj = calloc(data->ntrajectories + 1, sizeof *fit->traj);
	if (!fit->drop_model || !fit->drop_residual || !fit->press_model || !fit->press_residual ||
	    !fit->traj) {
		err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
		goto out;
	}
	fit->se_log[TC] = fit->se_log[DR] = fit->correlation = fit->se_log_product = NAN;
	for (j = 0; j < 2 * 2 * 2; j++)
		(&fit->interval_log[0][0][0])[j] = NAN;

	P.scene = *setup;
	P.scene.option.refsafe = 0; /* fit the spring the parameters name; check_contact()
	                               reports what refsafe would do to it */
	for (j = 0; j < data->ntrajectories; j++) {
		fitted[j] = data->trajectories[j];
		fitted[j].n = traj_fitted(&fitted[j], setup->option.timestep);
		dropped += data->trajectories[j].n - fitted[j].n;
		fit->nsamples += data->trajectories[j].n;
	}
	used.trajectories = fitted;
	P.data = &used;
	P.fd_step_log = FD_STEP_LOG;
	P.grid_shifts = GRID_RELEASE_SHIFTS;
	P.grid_kept = malloc(CALIB_GRID_POINTS * CALIB_GRID_POINTS * sizeof *P.grid_kept);
	if (!P.grid_kept) {
		err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
		goto out;
	}
	P.log_lo[TC] =
	    log(CALIB_GRID_TIMECONST_MIN_STEPS * setup->option.timestep) - CALIB_LOG_MARGIN;
	P.log_hi[TC] = log(CALIB_GRID_TIMECONST_MAX) + CALIB_LOG_MARGIN;
	P.log_lo[DR] = log(CALIB_GRID_DAMPRATIO_MIN) - CALIB_LOG_MARGIN;
	P.log_hi[DR] = log(CALIB_GRID_DAMPRATIO_MAX) + CALIB_LOG_MARGIN;
	start_logs(setup, P.start_log);
	P.n = data->ndrops + data->npresses + fit->nsamples - dropped;
	if (dropped > 0)
		note(fit,
		    "%zu of the %zu trajectory samples, from each trajectory's second impact on, "
		    "are not fitted: the step a later impact begins in jumps with the parameters, "
		    "and MuJoCo's damping impulse with it",
		    dropped, fit->nsamples);
	P.free[TC] = 1;
	/* a static deflection depends on the stiffness 1/(tc*dr)^2 alone, and a drop that
	 * does not bounce only bounds dampratio from below */
	bouncing = 0;
	for (j = 0; j < data->ndrops; j++)
		bouncing += data->drops[j].rebound >
		    CALIB_BOUNCE_SIGMAS * problem_drop_sigma(&data->drops[j]);
	P.free[DR] = bouncing + data->ntrajectories > 0;
	fit->timeconst = exp(P.start_log[TC]);
	fit->dampratio = exp(P.start_log[DR]);
	if (P.n == 0) {
		insufficient(fit, "no measurements yet: upload drops, presses or trajectories");
	} else {
		if (!P.free[DR]) {
			fit->held[DR] = 1;
			fit->product_identified = data->npresses > 0;
			if (data->ndrops > 0)
				note(fit,
				    "no drop bounced (every rebound within %g sigma of 0): drops "
				    "bound "
				    "dampratio from below only; dampratio held at its starting "
				    "value "
				    "%.6g",
				    CALIB_BOUNCE_SIGMAS, exp(P.start_log[DR]));
			if (data->npresses > 0)
				note(fit,
				    "presses determine only timeconst*dampratio (the static "
				    "stiffness "
				    "1/(timeconst*dampratio)^2): add drops that bounce or a "
				    "trajectory "
				    "to separate them");
		}
		if (fit_run(fit, &P, err) != 0)
			goto out;
	}
	fit->scene.floor.solref[0] = fit->timeconst;
	fit->scene.floor.solref[1] = fit->dampratio;
	fit->stiffness =
	    1 / ((fit->timeconst * fit->dampratio) * (fit->timeconst * fit->dampratio));
	fit->damping = 2 / fit->timeconst;
	if (stopped) {
		if (bound->cancel && atomic_load(bound->cancel))
			err_set(err, ERR_UNAVAILABLE, NULL,
			    "the fit was cancelled: contactd is stopping");
		else
			err_set(err, ERR_UNAVAILABLE, NULL,
			    "the fit was stopped after %g s: upload fewer or shorter trajectories",
			    bound->seconds);
		goto out;
	}
	if (fit->status != FIT_INSUFFICIENT)
		check_contact(fit);
	*out = fit;
	fit = NULL;
	rc = 0;
out:
	problem_free(&P);
	free(fitted);
	fit_free(fit);
	return rc;
}

void fit_free(struct fit_result *fit)
{
	if (!fit)
		return;
	free(fit->drop_model);
	free(fit->drop_residual);
	free(fit->press_model);
	free(fit->press_residual);
	free(fit->traj);
	free(fit);
}
