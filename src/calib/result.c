/*
 * result.c: a pad calibration fit as the answer's JSON and the MJCF to paste (see
 * result.h; the fit itself is src/fit/).
 */
#include "calib/result.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jtext.h"
#include "base/questions.h"
#include "core/hold.h"
#include "core/scene.h"
#include "fit/knobs.h"

/* Set key of obj to value (stolen); remembers failure in *ok so callers check once. */
static void put(json_t *obj, const char *key, json_t *value, int *ok)
{
	if (json_object_set_new(obj, key, value) != 0)
		*ok = 0;
}

/* A real, or null for a value that does not exist (JSON has no NaN). */
static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* exp(v), null for an infinite v: an interval's open end */
static json_t *exp_or_null(double v)
{
	return isfinite(v) ? json_real(exp(v)) : json_null();
}

/* One parameter's confidence intervals, {"1sigma": [low, high], "2sigma": [...]} in
 * the parameter's units, an open end null; null when the parameter is not identified. */
static json_t *interval_json(const double interval_log[2][2])
{
	json_t *obj;
	int k;

	if (isnan(interval_log[0][0]) || isnan(interval_log[0][1]))
		return json_null();
	obj = json_object();
	for (k = 0; obj && k < 2; k++) {
		json_t *pair = json_pack(
		    "[o, o]", exp_or_null(interval_log[k][0]), exp_or_null(interval_log[k][1]));

		if (!pair || json_object_set_new(obj, k == 0 ? "1sigma" : "2sigma", pair) != 0) {
			json_decref(obj);
			return NULL;
		}
	}
	return obj;
}

/* The fit's "intervals": each parameter's, and how they were found. */
static json_t *intervals_json(const struct fit_result *fit)
{
	static const char *const basis[] = {[FIT_INTERVAL_LIKELIHOOD_RATIO] = "likelihood_ratio",
	    [FIT_INTERVAL_CHI2_TEST] = "chi2_test"};

	return json_pack("{s:o, s:o, s:s}", "timeconst", interval_json(fit->interval_log[FIT_TC]),
	    "dampratio", interval_json(fit->interval_log[FIT_DR]), "basis",
	    basis[fit->interval_basis]);
}

static json_t *reals(const double *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < n; i++) {
		if (json_array_append_new(a, real_or_null(v[i])) != 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static const char *status_name(enum fit_status s)
{
	return s == FIT_OK     ? "ok"
	    : s == FIT_PARTIAL ? "partial"
	    : s == FIT_FEW_DOF ? "few_dof"
	    : s == FIT_MISFIT  ? "misfit"
	                       : "insufficient_data";
}

/* Append printf output to a growing string; *ok cleared on failure. */
static void append(char **text, size_t *len, int *ok, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void append(char **text, size_t *len, int *ok, const char *fmt, ...)
{
	va_list ap;
	char *grown;
	int need;

	if (!*ok)
		return;
	va_start(ap, fmt);
	need = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	grown = need >= 0 ? realloc(*text, *len + (size_t)need + 1) : NULL;
	if (!grown) {
		*ok = 0;
		return;
	}
	*text = grown;
	va_start(ap, fmt);
	vsnprintf(*text + *len, (size_t)need + 1, fmt, ap);
	va_end(ap);
	*len += (size_t)need;
}

/* Append ' name="v0 v1 ..."' with each number's shortest text. */
static void append_numbers(
    char **text, size_t *len, int *ok, const char *name, const double *v, size_t n)
{
	char num[JTEXT_REAL_MAX];
	size_t i;

	append(text, len, ok, " %s=\"", name);
	for (i = 0; i < n; i++) {
		jtext_shortest(v[i], num);
		append(text, len, ok, "%s%s", i ? " " : "", num);
	}
	append(text, len, ok, "\"");
}

/* The <default> class to paste into the robot's MJCF: the setup's pad geom whole (its
 * other MJCF attributes, attrs, included) with the fitted solref, every number exact.
 * Caller frees. */
static char *mjcf_default(const struct fit_result *fit, const char *cls, const char *attrs)
{
	const struct core_pair_geom *g = &fit->scene.floor;
	double sol[2] = {fit->timeconst, fit->dampratio};
	double direct[2] = {-fit->stiffness, -fit->damping};
	char *text = NULL;
	size_t len = 0;
	int ok = 1;

	append(&text, &len, &ok, "<default class=\"%s\">\n", cls);
	if (fit->below_refsafe)
		append(&text, &len, &ok,
		    "  <!-- direct form: timeconst %.6g is below %.6g, where refsafe would "
		    "replace it -->\n",
		    fit->timeconst, fit->refsafe_min);
	append(&text, &len, &ok, "  <geom%s condim=\"%d\"", attrs ? attrs : "", g->condim);
	append_numbers(&text, &len, &ok, "friction", g->friction, 3);
	append(&text, &len, &ok, " priority=\"%d\"", g->priority);
	append_numbers(&text, &len, &ok, "solref", fit->below_refsafe ? direct : sol, 2);
	append_numbers(&text, &len, &ok, "solimp", g->solimp, 5);
	append_numbers(&text, &len, &ok, "margin", &g->margin, 1);
	append_numbers(&text, &len, &ok, "gap", &g->gap, 1);
	append_numbers(&text, &len, &ok, "solmix", &g->solmix, 1);
	append(&text, &len, &ok, "/>\n</default>\n");
	if (!ok) {
		free(text);
		return NULL;
	}
	return text;
}

static json_t *residuals_json(const struct fit_result *fit)
{
	json_t *root = json_object(), *drops = json_array(), *presses = json_array();
	json_t *trajs = json_array();
	int ok = root && drops && presses && trajs;
	size_t i;

	for (i = 0; ok && i < fit->ndrops; i++) {
		json_t *o = json_object();
		ok = o != NULL;
		put(o, "model", real_or_null(fit->drop_model[i]), &ok);
		put(o, "residual", real_or_null(fit->drop_residual[i]), &ok);
		if (json_array_append_new(drops, o) != 0)
			ok = 0;
	}
	for (i = 0; ok && i < fit->npresses; i++) {
		json_t *o = json_object();
		ok = o != NULL;
		put(o, "model", real_or_null(fit->press_model[i]), &ok);
		put(o, "residual", real_or_null(fit->press_residual[i]), &ok);
		if (json_array_append_new(presses, o) != 0)
			ok = 0;
	}
	for (i = 0; ok && i < fit->ntrajectories; i++) {
		const struct fit_traj *t = &fit->traj[i];
		json_t *o = json_object();
		ok = o != NULL;
		put(o, "release_time", real_or_null(t->release_time), &ok);
		put(o, "release_height", real_or_null(t->release_height), &ok);
		put(o, "stderr_release_time", real_or_null(t->se_release_time), &ok);
		put(o, "stderr_release_height", real_or_null(t->se_release_height), &ok);
		put(o, "rms", real_or_null(t->rms), &ok);
		put(o, "max", real_or_null(t->max_abs), &ok);
		if (json_array_append_new(trajs, o) != 0)
			ok = 0;
	}
	put(root, "drops", drops, &ok);
	put(root, "presses", presses, &ok);
	put(root, "trajectories", trajs, &ok);
	put(root, "chi2", real_or_null(fit->chi2), &ok);
	put(root, "dof", json_integer(fit->dof), &ok);
	if (!ok) {
		json_decref(root);
		return NULL;
	}
	return root;
}

/* Statuses whose solref the fit stands behind enough to say how the pad holds: both
 * parameters fitted (ok, few_dof) or one combination with the other held (partial: the
 * creep is then the held value's, as the pasted MJCF's is). Not misfit, whose data say
 * the model does not describe the pad, nor insufficient_data, which fitted nothing. */
static int offers_hold(enum fit_status s)
{
	return s == FIT_OK || s == FIT_PARTIAL || s == FIT_FEW_DOF;
}

/*
 * The creep over the fit's 1-sigma region (issue #29): [lowest, highest] creep_velocity of
 * the hold question r at the fitted pad and at the corners and edge midpoints of the box
 * of the 1-sigma intervals of timeconst and dampratio (a held parameter at its value, the
 * other's interval; the direct form where the MJCF carries it). null when an interval is
 * open or missing (the region is unbounded: so is the range), or when any of those pads'
 * creep is null (not settled, crushed, not reproducible): the range would not be one.
 */
static json_t *creep_range(
    const struct questions *ask, const struct fit_result *fit, const struct core_hold *base)
{
	double lo = INFINITY, hi = -INFINITY, ends[2][2];
	int q, a, b;

	for (q = 0; q < 2; q++) {
		const double *one = fit->interval_log[q][0];
		double v = q == FIT_TC ? fit->timeconst : fit->dampratio;

		if (fit->held[q]) {
			ends[q][0] = ends[q][1] = v;
		} else if (fit->identified[q] && isfinite(one[0]) && isfinite(one[1])) {
			ends[q][0] = exp(one[0]);
			ends[q][1] = exp(one[1]);
		} else {
			return json_null();
		}
	}
	for (a = 0; a < 3; a++)
		for (b = 0; b < 3; b++) {
			struct core_hold h = *base;
			struct err err;
			json_t *answer = NULL, *creep;
			double tc = a == 1 ? fit->timeconst : ends[FIT_TC][a / 2];
			double dr = b == 1 ? fit->dampratio : ends[FIT_DR][b / 2];
			double v;

			err_clear(&err);
			if (fit->below_refsafe) {
				double kd = tc * dr;

				h.pad.solref[0] = -1 / (kd * kd);
				h.pad.solref[1] = -2 / tc;
			} else {
				h.pad.solref[0] = tc;
				h.pad.solref[1] = dr;
			}
			if (ask->hold_answer(&h, &answer, &err) != 0)
				return json_null();
			creep = json_object_get(answer, "creep_velocity");
			v = json_is_number(creep) ? json_number_value(creep) : NAN;
			json_decref(answer);
			if (!isfinite(v))
				return json_null();
			lo = fmin(lo, v);
			hi = fmax(hi, v);
		}
	return json_pack("[f, f]", lo, hi);
}

/*
 * The block's "option": the request's options that set how much the pads creep, as POST
 * /v1/hold reads them: {"cone", "impratio", "integrator", "timestep" (s), "noslip_iterations",
 * "mujoco"}. NULL when out of memory or the request lacks one; caller owns the result.
 */
static json_t *hold_option_json(const json_t *request)
{
	static const char *const shown[] = {
	    "cone", "impratio", "integrator", "timestep", "noslip_iterations", "mujoco"};
	json_t *option = json_object_get(request, "option"), *out = json_object();
	size_t i;

	for (i = 0; out && i < sizeof shown / sizeof shown[0]; i++) {
		json_t *v = json_object_get(option, shown[i]);

		if (!v || json_object_set(out, shown[i], v) != 0) {
			json_decref(out);
			out = NULL;
		}
	}
	return out;
}

/*
 * The block's "note": which of the option's cone and impratio are MuJoCo's defaults, which
 * a setup that states none has (the stored setup has every default filled, so a default
 * stated is not told apart), and that a gripper modelled otherwise creeps otherwise; null
 * when neither is. NULL when out of memory; caller owns the result.
 */
static json_t *hold_note(const struct core_scene_option *o)
{
	struct core_scene_option d;
	int cone, impratio;

	core_scene_option_default(&d);
	cone = o->cone == d.cone;
	impratio = o->impratio == d.impratio;
	if (!cone && !impratio)
		return json_null();
	return json_sprintf(
	    "%s%s%s %s MuJoCo's default%s, which a setup that states no option has; "
	    "the hold is this option's: a model with elliptic cones and impratio 10 "
	    "(MuJoCo Menagerie's SO-101) creeps far less. State the model's option in "
	    "the setup's \"option\" to see its hold",
	    cone ? "option.cone pyramidal" : "", cone && impratio ? " and " : "",
	    impratio ? "option.impratio 1" : "", cone && impratio ? "are" : "is",
	    cone && impratio ? "s" : "");
}

/*
 * The fit's "hold": the hold question (base/questions.h) of the fitted pad pinching
 * the reference object, asked as POST /v1/hold would be: {"request", "creep_velocity",
 * "holds", "slip", "time_to_slip", "falls", "coulomb_holds", "friction_margin",
 * "creep_range", "option" (the request's cone, impratio, ...), "note"}, plus "error" (the 4xx body
 * a POST would answer, the answers null) when the hold question refuses the scene. "holds" is the
 * run's verdict (within slip_limit over the duration), "coulomb_holds" the Coulomb comparison. The
 * object is the calibrated one (issue 48): the setup's sphere or box, its size, mass and geom,
 * between the hold question's default pads (half-sizes 5 x 20 x 200 mm, 50 g each, pressed with
 * 10 N each); the pads are the setup's pad geom with the solref the MJCF carries, and the option
 * is the setup's (timestep, cone, impratio, release, ...). NULL when out of memory; caller owns
 * the result.
 */
static json_t *hold_json(const struct fit_result *fit)
{
	/* the hold answer's fields the block carries, as POST /v1/hold answers them */
	static const char *const carried[] = {"creep_velocity", "holds", "slip", "time_to_slip",
	    "falls", "coulomb_holds", "friction_margin"};
	const struct questions *q;
	struct core_hold h;
	struct err err;
	json_t *empty = json_object(), *request = NULL, *answer = NULL, *block = NULL;
	size_t i;
	int ok = 1;

	err_clear(&err);
	q = questions_bound(&err);
	if (!q || !empty || q->hold_parse(empty, &h, &err) != 0)
		goto out;
	/* the calibrated object (issue 48): the setup's sphere or box, its mass and geom */
	h.shape = fit->scene.shape == CORE_SCENE_BOX ? CORE_HOLD_BOX : CORE_HOLD_SPHERE;
	memcpy(h.size, fit->scene.size, sizeof h.size);
	if (h.shape == CORE_HOLD_SPHERE)
		h.size[1] = h.size[2] = 0;
	h.mass = fit->scene.mass;
	h.object = fit->scene.geom;
	h.pad = fit->scene.floor;
	h.pad.solref[0] = fit->below_refsafe ? -fit->stiffness : fit->timeconst;
	h.pad.solref[1] = fit->below_refsafe ? -fit->damping : fit->dampratio;
	h.option = fit->scene.option;
	request = q->hold_json(&h);
	block = json_object();
	if (!request || !block) {
		json_decref(block);
		block = NULL;
		goto out;
	}
	/* the request exactly as a POST of it is read: parsed back, then answered */
	if (q->hold_parse(request, &h, &err) == 0 && q->hold_answer(&h, &answer, &err) == 0) {
		for (i = 0; i < sizeof carried / sizeof carried[0]; i++)
			put(block, carried[i], json_incref(json_object_get(answer, carried[i])),
			    &ok);
		put(block, "creep_range", creep_range(q, fit, &h), &ok);
	} else if (err.code != ERR_INTERNAL) {
		for (i = 0; i < sizeof carried / sizeof carried[0]; i++)
			put(block, carried[i], json_null(), &ok);
		put(block, "creep_range", json_null(), &ok);
		put(block, "error", err_to_json(&err), &ok);
	} else {
		ok = 0;
	}
	put(block, "option", hold_option_json(request), &ok);
	put(block, "note", hold_note(&fit->scene.option), &ok);
	put(block, "request", json_incref(request), &ok);
	if (!ok) {
		json_decref(block);
		block = NULL;
	}
out:
	json_decref(answer);
	json_decref(request);
	json_decref(empty);
	return block;
}

json_t *calresult_json(
    const struct fit_result *fit, const char *mjcf_class, const char *mjcf_attributes)
{
	json_t *root = json_object(), *se = json_object(), *ident = json_object();
	json_t *product = json_object(), *refsafe = json_object(), *stab = json_object();
	json_t *counts = json_object(), *noise = json_object(), *notes = json_array();
	json_t *held = json_array();
	int ok =
	    root && se && ident && product && refsafe && stab && counts && noise && notes && held;
	int fitted = fit->status != FIT_INSUFFICIENT;
	/* no pad to paste where the data say the model does not describe it (issue #29) */
	int pasted = fitted && fit->status != FIT_MISFIT;
	double sol[2] = {fit->timeconst, fit->dampratio};
	double direct[2] = {-fit->stiffness, -fit->damping};
	char *mjcf = pasted ? mjcf_default(fit, mjcf_class, mjcf_attributes) : NULL;
	size_t i;

	if (pasted && !mjcf)
		ok = 0;
	put(root, "status", json_string(status_name(fit->status)), &ok);
	put(root, "solref", fitted ? reals(sol, 2) : json_null(), &ok);
	put(root, "solref_direct", fitted ? reals(direct, 2) : json_null(), &ok);
	put(root, "solimp", reals(fit->scene.floor.solimp, 5), &ok);
	put(root, "timestep", json_real(fit->scene.option.timestep), &ok);

	put(se, "timeconst", real_or_null(fit->timeconst * fit->se_log[FIT_TC]), &ok);
	put(se, "dampratio", real_or_null(fit->dampratio * fit->se_log[FIT_DR]), &ok);
	put(se, "log_timeconst", real_or_null(fit->se_log[FIT_TC]), &ok);
	put(se, "log_dampratio", real_or_null(fit->se_log[FIT_DR]), &ok);
	put(se, "correlation", real_or_null(fit->correlation), &ok);
	put(se, "basis", json_string(fit->se_scaled ? "residual_variance" : "noise_scale"), &ok);
	put(root, "stderr", se, &ok);
	put(root, "intervals", fitted ? intervals_json(fit) : json_null(), &ok);

	put(product, "value", fitted ? json_real(fit->timeconst * fit->dampratio) : json_null(),
	    &ok);
	put(product, "stderr", real_or_null(fit->timeconst * fit->dampratio * fit->se_log_product),
	    &ok);
	put(root, "timeconst_dampratio", product, &ok);

	put(ident, "timeconst", json_boolean(fitted && fit->identified[FIT_TC]), &ok);
	put(ident, "dampratio", json_boolean(fitted && fit->identified[FIT_DR]), &ok);
	put(ident, "timeconst_dampratio", json_boolean(fitted && fit->product_identified), &ok);
	put(root, "identified", ident, &ok);
	if (fit->held[FIT_TC] && json_array_append_new(held, json_string("timeconst")) != 0)
		ok = 0;
	if (fit->held[FIT_DR] && json_array_append_new(held, json_string("dampratio")) != 0)
		ok = 0;
	put(root, "held", held, &ok);

	put(refsafe, "timeconst_min", json_real(2 * fit->scene.option.timestep), &ok);
	put(refsafe, "would_replace", json_boolean(fitted && fit->below_refsafe), &ok);
	put(root, "refsafe", refsafe, &ok);
	put(stab, "growth", fitted ? real_or_null(fit->growth) : json_null(), &ok);
	put(stab, "rest_jitter", fitted ? real_or_null(fit->chatter) : json_null(), &ok);
	put(root, "stability", stab, &ok);

	put(root, "residuals", fitted ? residuals_json(fit) : json_null(), &ok);
	put(noise, "rebound", json_real(CALIB_SIGMA_REBOUND), &ok);
	put(noise, "deflection_abs", json_real(CALIB_SIGMA_DEFLECTION_ABS), &ok);
	put(noise, "deflection_rel", json_real(CALIB_SIGMA_DEFLECTION_REL), &ok);
	put(noise, "trajectory", json_real(CALIB_SIGMA_TRAJECTORY), &ok);
	put(root, "noise_scale", noise, &ok);
	put(counts, "drops", json_integer((json_int_t)fit->ndrops), &ok);
	put(counts, "presses", json_integer((json_int_t)fit->npresses), &ok);
	put(counts, "trajectories", json_integer((json_int_t)fit->ntrajectories), &ok);
	put(counts, "samples", json_integer((json_int_t)fit->nsamples), &ok);
	put(root, "measurements", counts, &ok);
	put(root, "iterations", json_integer(fit->iterations), &ok);
	for (i = 0; ok && i < fit->nnotes; i++)
		if (json_array_append_new(notes, json_string(fit->notes[i])) != 0)
			ok = 0;
	put(root, "notes", notes, &ok);
	put(root, "mjcf", mjcf ? json_string(mjcf) : json_null(), &ok);
	free(mjcf);
	/* a NULL block (out of memory) fails put() */
	if (ok && offers_hold(fit->status))
		put(root, "hold", hold_json(fit), &ok);
	if (!ok) {
		json_decref(root);
		return NULL;
	}
	return root;
}
