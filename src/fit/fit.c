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
#include "fit/bootstrap.h"
#include "fit/descent.h"
#include "fit/grid.h"
#include "fit/interval.h"
#include "fit/model.h"
#include "fit/parallel.h"
#include "fit/problem.h"
#include "fit/profile.h"
#include "fit/search.h"
#include "fit/traj.h"
#include "fit/uncertainty.h"
#include "core/knobs.h"
#include "fit/knobs.h"

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

/* How many drops bounced: a rebound above CALIB_BOUNCE_SIGMAS sigma. */
static size_t bouncing_drops(const struct calib_data *d)
{
	size_t i, n = 0;

	for (i = 0; i < d->ndrops; i++)
		n += d->drops[i].rebound > CALIB_BOUNCE_SIGMAS * problem_drop_sigma(&d->drops[i]);
	return n;
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
	} else if (held == DR && P->data->ndrops > 0 && bouncing_drops(P->data) == 0) {
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
	struct core_scene s = fit->scene;
	struct core_scene_model m;
	struct core_growth_report gr;
	struct core_sim_drop rest;
	double h = s.option.timestep;

	fit->refsafe_min = 2 * h;
	fit->below_refsafe = fit->timeconst < fit->refsafe_min;
	if (s.option.integrator == CORE_SCENE_DISCRETE) {
		/* discrete never raises timeconst; its refsafe replaces a standard-form row with
		 * h^2 K imp > 1 (never a direct one), and imp is at most dmax = solimp[1], where
		 * h^2 K imp = h^2 / (dmax tc^2 dr^2): the fitted spring (the fit steps it with
		 * refsafe off) is stepped as fitted unless tc < h / (sqrt(dmax) dr). A spring
		 * at that edge is what every stiffer pad is replaced by, so the fit lands on it
		 * to rounding (the 1e-9) */
		double dmax = fmin(MJ_MAXIMP, fmax(MJ_MINIMP, s.floor.solimp[1]));

		fit->refsafe_min = h / (sqrt(dmax) * fit->dampratio);
		fit->below_refsafe = fit->timeconst < fit->refsafe_min * (1 - 1e-9);
		if (fit->below_refsafe)
			note(fit,
			    "timeconst %.6g is below %.6g (timestep %.6g, dampratio %.6g): the "
			    "discrete integrator's refsafe would replace its rows by a softer "
			    "spring; paste solref_direct (refsafe leaves the direct form alone)",
			    fit->timeconst, fit->refsafe_min, h, fit->dampratio);
		else if (s.option.refsafe && fit->timeconst <= fit->refsafe_min * (1 + 1e-6))
			/* the replacement row, K' = 1 / (h^2 imp) and B' = 2 dr / (h sqrt(imp)),
			 * does not depend on timeconst: a measured pad stiffer than the edge was
			 * stepped as the edge, and the fit lands there */
			note(fit,
			    "timeconst %.6g is where the discrete integrator's refsafe starts "
			    "replacing rows (timestep %.6g, dampratio %.6g): MuJoCo steps every "
			    "stiffer solref of this dampratio exactly as this one, so these "
			    "measurements cannot tell a stiffer pad from it",
			    fit->timeconst, h, fit->dampratio);
	} else if (fit->below_refsafe)
		note(fit,
		    "timeconst %.6g is below 2*timestep = %.6g: refsafe would replace it with "
		    "%.6g; "
		    "paste solref_direct (refsafe leaves the direct form alone) or use a timestep "
		    "<= %.6g",
		    fit->timeconst, fit->refsafe_min, fit->refsafe_min, fit->timeconst / 2);
	s.option.refsafe = 0;
	core_growth_stability(s.floor.solref, s.floor.solimp, -1, h, 0, s.option.integrator, &gr);
	fit->growth = gr.growth;
	if (!gr.stable)
		note(fit,
		    "the fitted contact spring grows by %.4g per step at timestep %.6g (h*omega = "
		    "%.4g): MuJoCo would inject energy; use a smaller timestep",
		    gr.growth, h, gr.h_omega);
	core_scene_prepare(&s, &m);
	core_sim_drop(&m, 0, CHATTER_DURATION, &rest);
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
	struct core_scene_model m;
	double logp[NPHYS];
	size_t i, j;

	problem_phys_logs(P, x, logp);
	problem_model_at(P, logp, &m);
	for (i = 0; i < d->ndrops; i++) {
		fit->drop_model[i] = model_rebound(&m, d->drops[i].height);
		fit->drop_residual[i] = d->drops[i].rebound - fit->drop_model[i];
	}
	for (i = 0; i < d->npresses; i++) {
		fit->press_model[i] = model_press(&m, d->presses[i].force);
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
    const struct uncertainty_analysis *an, const struct bootstrap_result *bt,
    const struct profile_result *pr, const struct interval_result *ci)
{
	static const int prof_of[NPHYS] = {PROFILE_TC, PROFILE_DR};
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
		if ((fit->identified[i] || fit->pinned[i]) && ci->done[i])
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
		if (pr->done[PROFILE_PRODUCT])
			product = fmax(product, pr->se[PROFILE_PRODUCT]);
		fit->se_log_product = product;
	}
	for (j = 0; j < P->data->ntrajectories; j++) {
		size_t c = P->nphys + 2 * j;
		fit->traj[j].se_release_time = sqrt(gsl_matrix_get(an->cov, c, c) * s2);
		fit->traj[j].se_release_height = sqrt(gsl_matrix_get(an->cov, c + 1, c + 1) * s2);
	}
}

/*
 * Is chi^2 beyond what the stated sigmas allow? With dof > 0, beyond its 1 - CALIB_MISFIT_P
 * quantile at dof degrees of freedom. With none (as many parameters as values) chi^2 has
 * no distribution of its own, but the truth's chi^2 has one with as many degrees of
 * freedom as measured values, and the best fit's is never above it: a chi^2 beyond that
 * quantile is one no pad in the searched range can bring down to the noise.
 */
static int misfit(const struct fit_result *fit, const struct problem *P)
{
	double dof = fit->dof > 0 ? (double)fit->dof : (double)P->n;

	return dof > 0 && gsl_cdf_chisq_Q(fit->chi2, dof) < CALIB_MISFIT_P;
}

/* The misfit's note: how far, and the measurement the model misses most, in its units. */
static void note_misfit(struct fit_result *fit, const struct problem *P)
{
	const struct calib_data *d = P->data;
	/* the claim holds over the searched range only: a pad beyond it may reach them */
	const double range[4] = {
	    exp(P->log_lo[TC]), exp(P->log_hi[TC]), exp(P->log_lo[DR]), exp(P->log_hi[DR])};
	double worst = 0, traj_worst = 0;
	size_t i, which = 0;
	int kind = -1; /* 0: drop, 1: press */

	for (i = 0; i < fit->ntrajectories; i++)
		traj_worst = fmax(traj_worst, fit->traj[i].max_abs);

	for (i = 0; i < d->ndrops; i++) {
		double z = fabs(fit->drop_residual[i]) / problem_drop_sigma(&d->drops[i]);

		if (z > worst) {
			worst = z;
			kind = 0;
			which = i;
		}
	}
	for (i = 0; i < d->npresses; i++) {
		double z = fabs(fit->press_residual[i]) / problem_press_sigma(&d->presses[i]);

		if (isnan(z))
			z = INFINITY; /* no depth at the best fit: the farthest off of all */

		if (z > worst) {
			worst = z;
			kind = 1;
			which = i;
		}
	}
	if (kind == 0)
		note(fit,
		    "the model cannot reach the measured values anywhere in the searched range "
		    "(timeconst %.4g to %.4g s, dampratio %.4g to %.4g): at the best fit over it "
		    "the "
		    "drop from %.4g m rebounds %.3g mm, measured %.3g mm (%.1f sigma); "
		    "chi2 %.4g for %ld degrees of freedom is beyond what the stated sigmas allow; "
		    "check the measurements, their sigmas and the setup (object, timestep)",
		    range[0], range[1], range[2], range[3], d->drops[which].height,
		    1e3 * fit->drop_model[which], 1e3 * d->drops[which].rebound,
		    fit->drop_residual[which] / problem_drop_sigma(&d->drops[which]), fit->chi2,
		    fit->dof);
	else if (kind == 1 && !isfinite(fit->press_model[which]))
		note(fit,
		    "the model cannot reach the measured values anywhere in the searched range "
		    "(timeconst %.4g to %.4g s, dampratio %.4g to %.4g): at the best fit over it "
		    "the press of %.4g N, measured %.3g mm, has no depth: the object does not "
		    "stay on the pad under it (or a box rocks), which MuJoCo's chaotic hops do "
		    "not let the model follow; chi2 %.4g for %ld degrees of freedom is beyond "
		    "what the stated sigmas allow; check the measurements, their sigmas and the "
		    "setup (object, timestep)",
		    range[0], range[1], range[2], range[3], d->presses[which].force,
		    1e3 * d->presses[which].deflection, fit->chi2, fit->dof);
	else if (kind == 1)
		note(fit,
		    "the model cannot reach the measured values anywhere in the searched range "
		    "(timeconst %.4g to %.4g s, dampratio %.4g to %.4g): at the best fit over it "
		    "the "
		    "press of %.4g N deflects %.3g mm, measured %.3g mm (%.1f sigma); "
		    "chi2 %.4g for %ld degrees of freedom is beyond what the stated sigmas allow; "
		    "check the measurements, their sigmas and the setup (object, timestep)",
		    range[0], range[1], range[2], range[3], d->presses[which].force,
		    1e3 * fit->press_model[which], 1e3 * d->presses[which].deflection,
		    fit->press_residual[which] / problem_press_sigma(&d->presses[which]), fit->chi2,
		    fit->dof);
	else
		note(fit,
		    "chi2 %.4g for %ld degrees of freedom is beyond what the stated sigmas allow: "
		    "the trajectories scatter far more than their sigmas say, or the model does "
		    "not "
		    "describe them (largest deviation %.3g mm)",
		    fit->chi2, fit->dof, 1e3 * traj_worst);
	if (fit->dof > 0 && fit->se_scaled)
		note(fit, "the standard errors are scaled up by sqrt(chi2/dof) = %.3g",
		    sqrt(fit->chi2 / (double)fit->dof));
}

/* Whether the null direction at x is one parameter's at an edge of P's range; if so it
 * is pinned there (fit->pinned). */
static int pin_at_edge(
    struct fit_result *fit, const struct problem *P, const gsl_vector *x, const double dir[NPHYS])
{
	double logp[NPHYS];
	int q;

	problem_phys_logs(P, x, logp);
	for (q = 0; q < NPHYS; q++) {
		if (!P->free[q] || !(fabs(dir[q]) > 0.9))
			continue;
		if (logp[q] <= P->log_lo[q] + CALIB_EDGE_LOG)
			fit->pinned[q] = -1;
		else if (logp[q] >= P->log_hi[q] - CALIB_EDGE_LOG)
			fit->pinned[q] = 1;
		if (fit->pinned[q])
			return 1;
	}
	return 0;
}

/* A free parameter whose best value lies on an edge of the searched range is pinned
 * there (fit->pinned), whether chi^2 is flat beyond it or would fall further: either way
 * chi^2 is lowest at the edge and the pad may lie beyond it, where the fit does not go. */
static void pin_edges(struct fit_result *fit, const struct problem *P, const gsl_vector *x)
{
	double logp[NPHYS];
	int q;

	problem_phys_logs(P, x, logp);
	for (q = 0; q < NPHYS; q++) {
		if (!P->free[q] || fit->pinned[q])
			continue;
		if (logp[q] <= P->log_lo[q] + CALIB_EDGE_LOG)
			fit->pinned[q] = -1;
		else if (logp[q] >= P->log_hi[q] - CALIB_EDGE_LOG)
			fit->pinned[q] = 1;
	}
}

/* The note of a parameter pinned at an edge: which edge, why, and what would free it.
 * Presses fix timeconst*dampratio, so with the drops they determine either parameter. */
static void explain_pinned(struct fit_result *fit, const struct problem *P, int q)
{
	static const char *const names[NPHYS] = {"timeconst", "dampratio"};
	static const char *const remedy[NPHYS][2] = {
	    {"presses (which fix timeconst*dampratio), or measurements at a smaller timestep, "
	     "where a stiffer contact is resolved, would bound it",
	        "presses (which fix timeconst*dampratio) or a trajectory through an impact would "
	        "bound it"},
	    {"presses (which fix timeconst*dampratio) or a trajectory through an impact would "
	     "bound it",
	        "presses (which fix timeconst*dampratio) or a trajectory through an impact would "
	        "bound it"}};
	/* why the searched range ends there */
	static const char *const why[NPHYS][2] = {
	    {"a contact stiffer than one timestep is not resolved at this timestep",
	        "a contact softer than 0.5 s is far softer than a gripper pad"},
	    {"a pad damped less than that rings for many periods",
	        "above it a drop's rebound hardly changes with dampratio"}};
	int upper = fit->pinned[q] > 0;
	double edge = exp(upper ? P->log_hi[q] : P->log_lo[q]);
	double other = fit->interval_log[q][1][upper ? 0 : 1];
	char bound[160];

	if (isfinite(other))
		snprintf(bound, sizeof bound,
		    "these measurements bound %s from %s only (2-sigma: %s %.4g)", names[q],
		    upper ? "below" : "above", upper ? "above" : "below", exp(other));
	else
		snprintf(bound, sizeof bound,
		    "these measurements do not bound %s within the searched range (its 2-sigma "
		    "interval spans it)",
		    names[q]);
	note(fit,
	    "%s is at the %s edge of the searched range (%.6g; %s): chi2 is lowest there, so "
	    "the pad may lie beyond it, where the fit does not search; %s; %s",
	    names[q], upper ? "upper" : "lower", edge, why[q][upper], bound, remedy[q][upper]);
}

/*
 * A parameter is identified only when its 2-sigma interval is bounded on both sides
 * (issue #29): a fit whose chi^2 stays within the level out to an edge of the searched
 * range (drops that do not bounce, whose rebound is 0 for every dampratio above some
 * value) has a best value the data do not back, however curved chi^2 is at it. Such a
 * parameter is open (fit->open), its standard error null, its intervals kept with the
 * open end null; timeconst*dampratio stays identified only when its own 2-sigma interval
 * is bounded.
 */
static void demand_bounded(
    struct fit_result *fit, const struct problem *P, const struct interval_result *ci)
{
	int q, opened = 0;

	for (q = 0; q < NPHYS; q++) {
		const double *two = fit->interval_log[q][1];

		if (!fit->identified[q] || (isfinite(two[0]) && isfinite(two[1])))
			continue;
		fit->identified[q] = 0;
		fit->open[q] = 1;
		fit->se_log[q] = NAN;
		opened = 1;
	}
	if (opened && fit->product_identified && (P->nphys < NPHYS || ci->product_open)) {
		fit->product_identified = 0;
		fit->se_log_product = NAN;
	}
}

/* The note of a parameter whose 2-sigma interval is open: which side, what the data do
 * say, and the measurements (of those not yet made) that would close it. */
static void explain_open(struct fit_result *fit, const struct problem *P, int q)
{
	static const char *const names[NPHYS] = {"timeconst", "dampratio"};
	const struct calib_data *d = P->data;
	const double *two = fit->interval_log[q][1];
	char bound[160], remedy[320];
	size_t len = 0;

	if (isfinite(two[0]))
		snprintf(bound, sizeof bound, "the data bound it from below only, 2-sigma >= %.4g",
		    exp(two[0]));
	else if (isfinite(two[1]))
		snprintf(bound, sizeof bound, "the data bound it from above only, 2-sigma <= %.4g",
		    exp(two[1]));
	else
		snprintf(bound, sizeof bound, "the data bound it on neither side");
	remedy[0] = 0;
	if (bouncing_drops(d) == 0)
		len += (size_t)snprintf(remedy + len, sizeof remedy - len,
		    "%sdrops that bounce measurably (from greater heights)", len ? ", " : "");
	if (d->npresses == 0 && len < sizeof remedy)
		len += (size_t)snprintf(remedy + len, sizeof remedy - len,
		    "%sa press (which fixes timeconst*dampratio)", len ? ", " : "");
	if (d->ntrajectories == 0 && len < sizeof remedy)
		len += (size_t)snprintf(remedy + len, sizeof remedy - len,
		    "%sa trajectory through an impact", len ? ", " : "");
	if (len == 0)
		snprintf(remedy, sizeof remedy, "more measurements of the same kinds");
	note(fit,
	    "%s is not identified: its 2-sigma interval is open (%s), so its fitted value %.4g "
	    "is one of many the data allow; any of: %s would close it",
	    names[q], bound, q == TC ? fit->timeconst : fit->dampratio, remedy);
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
	struct core_scene_model m;
	struct uncertainty_analysis an = {NULL, 0, 0, {0, 0}};
	struct bootstrap_result bt;
	struct profile_result prof;
	struct interval_result ci;
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

		traj_start(&d->trajectories[j], -m.a0, m.timestep, &t0, &H);
		gsl_vector_set(x, P->nphys + 2 * j, t0);
		gsl_vector_set(x, P->nphys + 2 * j + 1, H);
	}
	if (search_multi_start(P, x, &fit->iterations, err) != 0)
		goto out;
	for (phase = 0;; phase++) {
		if ((phase > 0 && descent_least_squares(P, x, &fit->iterations, err) != 0) ||
		    uncertainty_analyse(P, x, &an, err) != 0)
			goto out;
		if (!an.phys_null || phase > 0 || P->nphys < 2)
			break;
		/* at an edge of the searched range, chi^2 does not change beyond it (the
		 * parameters are kept inside): the data bound that parameter on one side only.
		 * It stays free, so the intervals are open at that edge. */
		if (pin_at_edge(fit, P, x, an.null_dir)) {
			an.phys_null = 0;
			break;
		}
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
	if (!an.phys_null)
		pin_edges(fit, P, x);
	if (an.phys_null) {
		insufficient(fit,
		    "the measurements determine neither timeconst nor dampratio (no drop bounces "
		    "and there is no press or trajectory): add presses, bouncing drops or a "
		    "trajectory");
		fit->identified[TC] = fit->identified[DR] = fit->product_identified = 0;
	} else if (P->nphys == NPHYS) {
		fit->identified[TC] = fit->identified[DR] = fit->product_identified = 1;
		for (i = 0; i < NPHYS; i++)
			if (fit->pinned[i])
				fit->identified[i] = fit->product_identified = 0;
	}
	memset(&bt, 0, sizeof bt);
	memset(&prof, 0, sizeof prof);
	memset(&ci, 0, sizeof ci);
	if (!an.phys_null &&
	    (profile_standard_errors(P, x, &an, &prof, &fit->iterations, err) != 0 ||
	        bootstrap_standard_errors(P, x, &bt, err) != 0))
		goto out;
	if (!an.phys_null && interval_find(P, x, an.cov, &ci, &fit->iterations, err) != 0)
		goto out;
	/* the walks' points are not needed again */
	profile_forget(P);
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
	/* the profiles may have moved the estimate onto an edge */
	if (!an.phys_null) {
		pin_edges(fit, P, x);
		for (i = 0; i < NPHYS; i++)
			if (fit->pinned[i])
				fit->identified[i] = fit->product_identified = 0;
	}
	problem_residuals(x, P, P->f0);
	record_errors(fit, P, &an, &bt, &prof, &ci);
	record_residuals(fit, P, x);
	if (!an.phys_null)
		demand_bounded(fit, P, &ci);
	if (fit->status != FIT_INSUFFICIENT)
		fit->status = P->nphys == NPHYS && fit->identified[TC] && fit->identified[DR]
		    ? FIT_OK
		    : FIT_PARTIAL;
	for (i = 0; i < NPHYS; i++)
		if (fit->pinned[i])
			explain_pinned(fit, P, i);
		else if (fit->open[i])
			explain_open(fit, P, i);
	/* say when the residuals contradict their sigmas, whatever the dof, or cannot vouch
	 * for the errors */
	if ((fit->status == FIT_OK || fit->status == FIT_PARTIAL) && misfit(fit, P)) {
		if (fit->pinned[TC] || fit->pinned[DR]) {
			/* the best fit is on an edge: a pad beyond it may reach the data, so
			 * this is no proof that the model cannot */
			note(fit,
			    "chi2 %.4g for %ld degrees of freedom is beyond what the stated sigmas "
			    "allow within the searched range: the data pull past its edge",
			    fit->chi2, fit->dof);
		} else {
			fit->status = FIT_MISFIT;
			note_misfit(fit, P);
		}
	} else if (fit->status == FIT_OK && fit->dof < CALIB_MIN_DOF) {
		fit->status = FIT_FEW_DOF;
		note(fit,
		    "%ld degrees of freedom left (fewer than %d): the residuals cannot check the "
		    "measurements' sigmas, so the standard errors rest on the stated sigmas alone; "
		    "add measurements",
		    fit->dof, CALIB_MIN_DOF);
	}
	rc = 0;
out:
	gsl_matrix_free(an.cov);
	gsl_vector_free(x);
	return rc;
}

/* log(timeconst), log(dampratio) equivalent to a geom's solref in either form. */
static void start_logs(const struct core_scene *s, double logp[NPHYS])
{
	struct core_law_solimp imp;
	struct core_law_gains g;

	core_law_solimp_clamp(s->floor.solimp, &imp);
	core_law_solref_kb(s->floor.solref, imp.dwidth, s->option.timestep, 0, &g);
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

int fit_solref(const struct core_scene *setup, const struct calib_data *data,
    struct fit_result **out, struct err *err)
{
	return fit_solref_within(setup, data, NULL, out, err);
}

int fit_solref_within(const struct core_scene *setup, const struct calib_data *data,
    const struct calib_bound *bound, struct fit_result **out, struct err *err)
{
	atomic_int stopped = 0;
	struct fit_result *fit = calloc(1, sizeof *fit);
	struct calib_trajectory *fitted = calloc(data->ntrajectories + 1, sizeof *fitted);
	struct calib_data used = *data;
	struct problem P;
	size_t j, bouncing, dropped = 0;
	int rc = -1, run_rc;

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
	P.thorough = 1;
	P.grid_kept = malloc(CALIB_GRID_POINTS * CALIB_GRID_POINTS * sizeof *P.grid_kept);
	/* the starting grid's model values, kept for the bootstrap's refits */
	P.grid_model =
	    malloc((CALIB_GRID_POINTS * CALIB_GRID_POINTS * (data->ndrops + data->npresses) + 1) *
	        sizeof *P.grid_model);
	if (!P.grid_kept || !P.grid_model) {
		err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
		goto out;
	}
	/* the fit ends where the starting grid searched, no farther: beyond the grid a
	 * descent reaches only the valleys next to its start, and a pad the grid missed would
	 * be called one the model cannot reach */
	P.log_lo[TC] = log(CALIB_GRID_TIMECONST_MIN_STEPS * setup->option.timestep);
	P.log_hi[TC] = log(CALIB_GRID_TIMECONST_MAX);
	P.log_lo[DR] = log(CALIB_GRID_DAMPRATIO_MIN);
	P.log_hi[DR] = log(CALIB_GRID_DAMPRATIO_MAX);
	start_logs(setup, P.start_log);
	P.n = data->ndrops + data->npresses + fit->nsamples - dropped;
	if (dropped > 0)
		note(fit,
		    "%zu of the %zu trajectory samples, from each trajectory's second impact on, "
		    "are not fitted: the step a later impact begins in jumps with the parameters, "
		    "and MuJoCo's damping impulse with it",
		    dropped, fit->nsamples);
	P.free[TC] = 1;
	/* dampratio is searched: a settled press depends on the stiffness 1/(tc*dr)^2
	 * alone, but under a press a pad of little damping keeps hopping and its mean depth
	 * depends on dampratio too (issue #29), so presses alone are fitted over both and the
	 * intervals say what they leave open; one press alone cannot, and holds it at its
	 * start (the note says what that assumes). Drops that do not bounce bound it from
	 * below only, but held at its start the fit would not be the best over the searched
	 * range either. */
	bouncing = 0;
	for (j = 0; j < data->ndrops; j++)
		bouncing += data->drops[j].rebound >
		    CALIB_BOUNCE_SIGMAS * problem_drop_sigma(&data->drops[j]);
	P.free[DR] = data->ndrops + data->ntrajectories > 0 || data->npresses >= 2;
	fit->timeconst = exp(P.start_log[TC]);
	fit->dampratio = exp(P.start_log[DR]);
	if (P.n == 0) {
		insufficient(fit, "no measurements yet: upload drops, presses or trajectories");
	} else {
		if (!P.free[DR]) {
			fit->held[DR] = 1;
			fit->product_identified = 1;
			note(fit,
			    "one press alone: dampratio held at its starting value %.6g, where the "
			    "pad settles under the press and its depth is the static one, which "
			    "fixes only timeconst*dampratio (the stiffness "
			    "1/(timeconst*dampratio)^2); a pad of little damping keeps hopping "
			    "under a press and sinks deeper on average, so this holds only for a "
			    "pad that settles: add drops that bounce, another press or a "
			    "trajectory",
			    exp(P.start_log[DR]));
		} else if (data->ndrops > 0 && bouncing == 0 && data->ntrajectories == 0) {
			note(fit,
			    "no drop bounced (every rebound within %g sigma of 0): drops that do "
			    "not "
			    "bounce bound dampratio from below only; drops from heights where the "
			    "pad bounces measurably, or a trajectory, would determine it",
			    CALIB_BOUNCE_SIGMAS);
		}
		parallel_fit_begin();
		run_rc = fit_run(fit, &P, err);
		parallel_fit_end();
		if (run_rc != 0)
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
	profile_forget(&P);
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
