/* status.c: a pad fit's status and notes (stage 5 of fit/fit.c; see status.h). */
#include "fit/status.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "core/growth.h"
#include "core/sim.h"
#include "core/knobs.h"
#include "fit/knobs.h"

static const char *const names[NPHYS] = {"timeconst", "dampratio"};

void status_note(struct fit_result *fit, const char *fmt, ...)
{
	va_list ap;

	if (fit->nnotes >= FIT_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(fit->notes[fit->nnotes++], FIT_NOTE_MAX, fmt, ap);
	va_end(ap);
}

void status_explain_hold(struct fit_result *fit, const struct problem *P, int held,
    const double dir[NPHYS], double value)
{
	if (fabs(dir[TC]) > 0.3 && fabs(dir[DR]) > 0.3) {
		/* the data see tc^a dr^b with (a, b) orthogonal to the null direction */
		double a = fabs(dir[DR]), b = (dir[TC] * dir[DR] < 0 ? 1 : -1) * fabs(dir[TC]);
		if (fabs(a - b) < 0.05 * a)
			status_note(fit,
			    "the measurements determine only timeconst*dampratio (the static "
			    "stiffness 1/(timeconst*dampratio)^2): %s held at %.6g; add drops that "
			    "bounce or a trajectory to separate them",
			    names[held], value);
		else
			status_note(fit,
			    "the measurements determine only timeconst * dampratio^%.3g: %s held "
			    "at %.6g",
			    b / a, names[held], value);
	} else {
		int low = held == DR && P->data.ndrops > 0 && problem_bouncing(P) == 0;

		status_note(fit, "%s is not determined by these measurements%s: held at %.6g",
		    names[held], low ? " (drops that do not bounce only bound it from below)" : "",
		    value);
	}
}

void status_insufficient(struct fit_result *fit, const char *fmt, ...)
{
	va_list ap;

	fit->status = FIT_INSUFFICIENT;
	fit->nnotes = fit->nnotes < FIT_MAX_NOTES ? fit->nnotes : FIT_MAX_NOTES - 1; /* kept */
	va_start(ap, fmt);
	vsnprintf(fit->notes[fit->nnotes++], FIT_NOTE_MAX, fmt, ap);
	va_end(ap);
}

void status_check_contact(struct fit_result *fit)
{
	struct core_scene s = fit->scene;
	struct core_scene_model m;
	struct core_growth_report gr;
	struct core_sim_drop rest;
	double h = s.option.timestep;

	fit->refsafe_min = 2 * h;
	fit->below_refsafe = fit->timeconst < fit->refsafe_min;
	if (s.option.integrator == CORE_SCENE_DISCRETE) {
		/* discrete's refsafe never raises timeconst but replaces a standard-form row with
		 * h^2 K imp = h^2 / (imp tc^2 dr^2) > 1, imp <= dmax = solimp[1]: the fitted spring
		 * is stepped as fitted unless tc < h / (sqrt(dmax) dr), and every stiffer pad is
		 * replaced by the spring at that edge, where a fit lands to rounding (the 1e-9) */
		double dmax = fmin(MJ_MAXIMP, fmax(MJ_MINIMP, s.floor.solimp[1]));

		fit->refsafe_min = h / (sqrt(dmax) * fit->dampratio);
		fit->below_refsafe = fit->timeconst < fit->refsafe_min * (1 - 1e-9);
		/* no advice to paste a misfit's solref: it gives none (calib/result.c) */
		if (fit->below_refsafe && fit->status != FIT_MISFIT)
			status_note(fit,
			    "timeconst %.6g is below %.6g (timestep %.6g, dampratio %.6g): the "
			    "discrete integrator's refsafe would replace its rows by a softer "
			    "spring; paste solref_direct (refsafe leaves the direct form alone)",
			    fit->timeconst, fit->refsafe_min, h, fit->dampratio);
		else if (!fit->below_refsafe && s.option.refsafe &&
		    fit->timeconst <= fit->refsafe_min * (1 + 1e-6))
			/* the replacement row, K' = 1 / (h^2 imp), B' = 2 dr / (h sqrt(imp)), does
			 * not depend on timeconst */
			status_note(fit,
			    "timeconst %.6g is where the discrete integrator's refsafe starts "
			    "replacing rows (timestep %.6g, dampratio %.6g): MuJoCo steps every "
			    "stiffer solref of this dampratio exactly as this one, so these "
			    "measurements cannot tell a stiffer pad from it",
			    fit->timeconst, h, fit->dampratio);
	} else if (fit->below_refsafe && fit->status != FIT_MISFIT)
		status_note(fit,
		    "timeconst %.6g is below 2*timestep = %.6g: refsafe would replace it with "
		    "%.6g; paste solref_direct (refsafe leaves the direct form alone) or use a "
		    "timestep <= %.6g",
		    fit->timeconst, fit->refsafe_min, fit->refsafe_min, fit->timeconst / 2);
	s.option.refsafe = 0;
	core_growth_stability(s.floor.solref, s.floor.solimp, -1, h, 0, s.option.integrator, &gr);
	fit->growth = gr.growth;
	if (!gr.stable)
		status_note(fit,
		    "the fitted contact spring grows by %.4g per step at timestep %.6g (h*omega = "
		    "%.4g): MuJoCo would inject energy; use a smaller timestep",
		    gr.growth, h, gr.h_omega);
	core_scene_prepare(&s, &m);
	core_sim_drop(&m, 0, CHATTER_DURATION, &rest);
	fit->chatter = rest.jitter;
	if (!(rest.jitter <= CALIB_CHATTER_JITTER))
		status_note(fit,
		    "an object placed on this pad at timestep %.6g does not come to rest (height "
		    "varies by %.3g m over the last %.3g s): MuJoCo's contact chatters; a smaller "
		    "timestep or a larger timeconst*dampratio settles it",
		    h, rest.jitter, JITTER_WINDOW);
	if (s.floor.priority <= s.geom.priority)
		status_note(fit,
		    "the pad's priority (%d) does not exceed the object's (%d): MuJoCo mixes their "
		    "solref, and the fitted value is the pad's share of that mix",
		    s.floor.priority, s.geom.priority);
}

/* Is chi^2 beyond its 1 - CALIB_MISFIT_P quantile? At dof 0, of the truth's chi^2 (as many dof
 * as values), which the best fit's never exceeds: beyond it no pad in the box fits the noise. */
static int misfit(const struct fit_result *fit, const struct problem *P)
{
	double dof = fit->dof > 0 ? (double)fit->dof : (double)P->n;

	return dof > 0 && gsl_cdf_chisq_Q(fit->chi2, dof) < CALIB_MISFIT_P;
}

/* The misfit's note: how far, and the measurement the model misses most, in its units. */
static void note_misfit(struct fit_result *fit, const struct problem *P)
{
	const struct calib_data *d = &P->data;
	double worst = 0, traj_worst = 0;
	char what[256] = ""; /* the worst drop or press */
	size_t i;

	for (i = 0; i < fit->ntrajectories; i++)
		traj_worst = fmax(traj_worst, fit->traj[i].max_abs);
	for (i = 0; i < d->ndrops; i++) {
		const struct calib_drop *dr = &d->drops[i];
		double z = fabs(fit->drop_residual[i]) / problem_drop_sigma(dr);

		if (!(z > worst))
			continue;
		worst = z;
		snprintf(what, sizeof what,
		    "drop from %.4g m rebounds %.3g mm, measured %.3g mm (%.1f sigma)", dr->height,
		    1e3 * fit->drop_model[i], 1e3 * dr->rebound,
		    fit->drop_residual[i] / problem_drop_sigma(dr));
	}
	for (i = 0; i < d->npresses; i++) {
		const struct calib_press *pr = &d->presses[i];
		double z = fabs(fit->press_residual[i]) / problem_press_sigma(pr);

		if (isnan(z))
			z = INFINITY; /* no depth at the best fit: the farthest off of all */
		if (!(z > worst))
			continue;
		worst = z;
		if (!isfinite(fit->press_model[i]))
			snprintf(what, sizeof what,
			    "press of %.4g N, measured %.3g mm, has no depth: the object does not "
			    "stay on the pad under it (or a box rocks), which MuJoCo's chaotic "
			    "hops do not let the model follow",
			    pr->force, 1e3 * pr->deflection);
		else
			snprintf(what, sizeof what,
			    "press of %.4g N deflects %.3g mm, measured %.3g mm (%.1f sigma)",
			    pr->force, 1e3 * fit->press_model[i], 1e3 * pr->deflection,
			    fit->press_residual[i] / problem_press_sigma(pr));
	}
	if (what[0])
		status_note(fit,
		    "the model cannot reach the measured values anywhere in the searched range "
		    "(timeconst %.4g to %.4g s, dampratio %.4g to %.4g): at the best fit over it "
		    "the %s; chi2 %.4g for %ld degrees of freedom is beyond what the stated sigmas "
		    "allow; check the measurements, their sigmas and the setup (object, timestep)",
		    exp(P->log_lo[TC]), exp(P->log_hi[TC]), exp(P->log_lo[DR]), exp(P->log_hi[DR]),
		    what, fit->chi2, fit->dof);
	else
		status_note(fit,
		    "chi2 %.4g for %ld degrees of freedom is beyond what the stated sigmas allow: "
		    "the trajectories scatter far more than their sigmas say, or the model does "
		    "not describe them (largest deviation %.3g mm)",
		    fit->chi2, fit->dof, 1e3 * traj_worst);
	if (fit->dof > 0 && fit->se_scaled)
		status_note(fit, "the standard errors are scaled up by sqrt(chi2/dof) = %.3g",
		    sqrt(fit->chi2 / (double)fit->dof));
}

int status_pin(struct fit_result *fit, const struct problem *P, const int moving[NPHYS],
    const double logp[NPHYS], const double *dir)
{
	int q;

	for (q = 0; q < NPHYS; q++) {
		if (!moving[q] || fit->pinned[q] || (dir && !(fabs(dir[q]) > 0.9)))
			continue;
		if (logp[q] <= P->log_lo[q] + CALIB_EDGE_LOG)
			fit->pinned[q] = -1;
		else if (logp[q] >= P->log_hi[q] - CALIB_EDGE_LOG)
			fit->pinned[q] = 1;
		if (dir && fit->pinned[q])
			return 1;
	}
	return 0;
}

/* The note of a parameter pinned at an edge: which edge, why, and what would free it. */
static void explain_pinned(struct fit_result *fit, const struct problem *P, int q)
{
	static const char *const why[NPHYS][2] = {
	    {"a contact stiffer than one timestep is not resolved at this timestep",
	        "a contact softer than 0.5 s is far softer than a gripper pad"},
	    {"a pad damped less than that rings for many periods",
	        "above it a drop's rebound hardly changes with dampratio"}};
	int upper = fit->pinned[q] > 0;
	double edge = exp(upper ? P->log_hi[q] : P->log_lo[q]);
	double other = fit->interval_log[q][1][upper ? 0 : 1];
	const char *remedy = q == TC && !upper
	    ? "presses (which fix timeconst*dampratio), or measurements at a smaller timestep, "
	      "where a stiffer contact is resolved, would bound it"
	    : "presses (which fix timeconst*dampratio) or a trajectory through an impact would "
	      "bound it";
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
	status_note(fit,
	    "%s is at the %s edge of the searched range (%.6g; %s): chi2 is lowest there, so the "
	    "pad may lie beyond it, where the fit does not search; %s; %s",
	    names[q], upper ? "upper" : "lower", edge, why[q][upper], bound, remedy);
}

/* Identified only with a 2-sigma interval bounded on both sides (issue #29): chi^2 within the
 * level out to an edge (drops that do not bounce: rebound 0 above some dampratio) leaves a best
 * value the data do not back, however curved chi^2 is there; so the product, when it is open
 * or a log is held. */
static void demand_bounded(struct fit_result *fit, int nfree, int product_open)
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
	if (opened && fit->product_identified && (nfree < NPHYS || product_open)) {
		fit->product_identified = 0;
		fit->se_log_product = NAN;
	}
}

/* The note of an open parameter: which side, and the measurements not yet made that would help. */
static void explain_open(struct fit_result *fit, const struct problem *P, int q)
{
	const struct calib_data *d = &P->data;
	const double *two = fit->interval_log[q][1];
	char bound[160], remedy[320] = "";

	if (isfinite(two[0]) || isfinite(two[1]))
		snprintf(bound, sizeof bound, "the data bound it from %s only, 2-sigma %s %.4g",
		    isfinite(two[0]) ? "below" : "above",
		    isfinite(two[0]) ? ">=" : "<=", exp(isfinite(two[0]) ? two[0] : two[1]));
	else
		snprintf(bound, sizeof bound, "the data bound it on neither side");
	/* each remedy starts ", " (dropped below); all three fit in remedy */
	if (problem_bouncing(P) == 0)
		strcat(remedy, ", drops that bounce measurably (from greater heights)");
	if (d->npresses == 0)
		strcat(remedy, ", a press (which fixes timeconst*dampratio)");
	if (d->ntrajectories == 0)
		strcat(remedy, ", a trajectory through an impact");
	status_note(fit,
	    "%s is not identified: its 2-sigma interval is open (%s), so its fitted value %.4g is "
	    "one of many the data allow; any of: %s would close it",
	    names[q], bound, q == TC ? fit->timeconst : fit->dampratio,
	    remedy[0] ? remedy + 2 : "more measurements of the same kinds");
}

void status_settle(struct fit_result *fit, const struct problem *P, int nfree, int product_open)
{
	int i;

	if (fit->status == FIT_INSUFFICIENT)
		return;
	demand_bounded(fit, nfree, product_open);
	fit->status =
	    nfree == NPHYS && fit->identified[TC] && fit->identified[DR] ? FIT_OK : FIT_PARTIAL;
	for (i = 0; i < NPHYS; i++)
		if (fit->pinned[i])
			explain_pinned(fit, P, i);
		else if (fit->open[i])
			explain_open(fit, P, i);
	if (misfit(fit, P)) {
		/* on an edge, a pad beyond it may reach the data: no proof that the model cannot */
		if (fit->pinned[TC] || fit->pinned[DR]) {
			status_note(fit,
			    "chi2 %.4g for %ld degrees of freedom is beyond what the stated sigmas "
			    "allow within the searched range: the data pull past its edge",
			    fit->chi2, fit->dof);
		} else {
			fit->status = FIT_MISFIT;
			note_misfit(fit, P);
		}
	} else if (fit->status == FIT_OK && fit->dof < CALIB_MIN_DOF) {
		fit->status = FIT_FEW_DOF;
		status_note(fit,
		    "%ld degrees of freedom left (fewer than %d): the residuals cannot check the "
		    "measurements' sigmas, so the intervals rest on the stated sigmas alone; add "
		    "measurements",
		    fit->dof, CALIB_MIN_DOF);
	}
}
