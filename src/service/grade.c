/*
 * grade.c: POST /v1/grade, a student's value of one of the lesson's functions (or a
 * batch of them) against eval's, with the tolerance docs/grading.md recommends.
 *
 * A call is eval's call with the student's "value" beside it: {"function", "args",
 * "id", "mujoco", "value"}; the batch {"calls": [...], "mujoco"}; {"tolerances":
 * true} answers the table itself. The student's value is a number (the function's
 * "value"), an array (semi_implicit_euler's "x"), or an object of some of the
 * function's outputs ({"K": ..., "B": ...}), each a number, an array or null. eval
 * computes the expected answer (grade strips "value" and asks eval, so the two cannot
 * differ); a call eval refuses is refused, or in a batch is eval's error entry.
 *
 * A number passes when |student - expected| <= max(relative * scale, absolute), scale
 * |expected| (or, for a series, the largest |expected| of the series); null passes
 * only where null is expected.
 */
#include "service/grade.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/field.h"
#include "base/jsonptr.h"
#include "core/mjver.h"
#include "service/answer.h"
#include "service/endpoint.h"
#include "service/eval.h"

/* What one function's outputs are and how close a student must come. */
struct grade_fn {
	const char *name;
	const char *outputs[4]; /* NULL-terminated, eval's result members */
	double relative, absolute;
	int series; /* the outputs are series, scaled by their largest magnitude */
	const char *why;
};

/* docs/grading.md's table, machine-readable: served by {"tolerances": true} */
static const struct grade_fn functions[] = {
    {"impedance", {"value", "derivative", NULL}, 1e-12, 0, 0,
        "a division against a multiplication by the reciprocal: 1-2 ulps"},
    {"solref_kb", {"K", "B", "timeconst_used", NULL}, 1e-12, 0, 0,
        "the same products in another order"},
    {"solref_to_spring", {"B", "K_imp", NULL}, 1e-12, 0, 0, "the same products in another order"},
    {"a_ref", {"value", NULL}, 1e-12, 0, 0, "the same products in another order"},
    {"contact_accel", {"value", NULL}, 1e-12, 1e-12, 0,
        "the closed form against MuJoCo's Newton step: a few ulps; values near 0 (m/s^2)"},
    {"resting_penetration", {"value", NULL}, 1e-9, 0, 0,
        "a bisection and a Brent solve reach the root to an ulp, but the root is "
        "ill-conditioned where the impedance changes fast"},
    {"semi_implicit_euler", {"x", "v", NULL}, 1e-9, 0, 1,
        "a few ulps per step over hundreds of steps; each series (x in m, v in m/s) is "
        "compared to 1e-9 of its own largest magnitude (for x of a drop from rest: the "
        "drop height)"},
    {"step_growth", {"value", NULL}, 1e-12, 0, 0,
        "the spectral radius of a 2x2 step matrix, however its eigenvalues are computed"},
    {"error_reduction", {"value", NULL}, 1e-15, 0, 0, "one formula, the same operations"},
};
#define NFUNCTIONS (sizeof functions / sizeof functions[0])

static const struct grade_fn *function_named(const char *name)
{
	size_t i;

	for (i = 0; name && i < NFUNCTIONS; i++)
		if (strcmp(functions[i].name, name) == 0)
			return &functions[i];
	return NULL;
}

static int has_output(const struct grade_fn *fn, const char *name)
{
	size_t i;

	for (i = 0; fn->outputs[i]; i++)
		if (strcmp(fn->outputs[i], name) == 0)
			return 1;
	return 0;
}

struct grade_request {
	struct eval_request *eval; /* NULL for the tolerances */
	int batch;
	size_t count;
	const struct grade_fn **fns; /* per call; NULL where eval refuses the call */
	json_t **values;             /* per call, the student's value (owned) */
};

void grade_request_free(struct grade_request *r)
{
	size_t i;

	if (!r)
		return;
	eval_request_free(r->eval);
	for (i = 0; r->values && i < r->count; i++)
		json_decref(r->values[i]);
	free(r->values);
	free(r->fns);
	free(r);
}

/* A number, or an array of numbers and nulls, or null. */
static int plain_value(const json_t *v)
{
	size_t i;
	json_t *e;

	if (json_is_number(v) || json_is_null(v))
		return 1;
	if (!json_is_array(v))
		return 0;
	json_array_foreach (v, i, e)
		if (!json_is_number(e) && !json_is_null(e))
			return 0;
	return 1;
}

/* Check the student's value at path against fn's outputs (fn NULL: eval will refuse
 * the call, any value goes). */
static int check_value(
    const struct grade_fn *fn, const json_t *v, const char *path, struct err *err)
{
	const char *key;
	json_t *member;
	char at[ERR_PATH_MAX];

	if (!fn)
		return 0;
	if (json_is_object(v)) {
		if (json_object_size(v) == 0)
			return err_set(err, ERR_BAD_VALUE, path,
			    "names none of %s's outputs (%s%s%s%s%s)", fn->name, fn->outputs[0],
			    fn->outputs[1] ? ", " : "", fn->outputs[1] ? fn->outputs[1] : "",
			    fn->outputs[2] ? ", " : "", fn->outputs[2] ? fn->outputs[2] : "");
		json_object_foreach ((json_t *)v, key, member) {
			jptr_append_key(at, sizeof at, path, key);
			if (!has_output(fn, key))
				return err_set(err, ERR_BAD_VALUE, at,
				    "is not an output of %s (%s%s%s%s%s)", fn->name, fn->outputs[0],
				    fn->outputs[1] ? ", " : "",
				    fn->outputs[1] ? fn->outputs[1] : "",
				    fn->outputs[2] ? ", " : "",
				    fn->outputs[2] ? fn->outputs[2] : "");
			if (!plain_value(member) || json_is_array(member) != fn->series)
				return err_set(err, ERR_BAD_TYPE, at, "must be %s",
				    fn->series ? "an array of numbers (null where not finite)"
				               : "a number, or null");
		}
		return 0;
	}
	if (json_is_array(v) && fn->series && plain_value(v))
		return 0;
	if ((json_is_number(v) || json_is_null(v)) && has_output(fn, "value"))
		return 0;
	return err_set(err, ERR_BAD_TYPE, path,
	    "must be %s, or an object of %s's outputs (%s%s%s%s%s)",
	    fn->series                    ? "an array (the series x)"
	        : has_output(fn, "value") ? "a number (value)"
	                                  : "",
	    fn->name, fn->outputs[0], fn->outputs[1] ? ", " : "",
	    fn->outputs[1] ? fn->outputs[1] : "", fn->outputs[2] ? ", " : "",
	    fn->outputs[2] ? fn->outputs[2] : "");
}

/* Take call's "value" out (into *value, a new reference) and find its function. */
static int take_call(
    json_t *call, const char *path, json_t **value, const struct grade_fn **fn, struct err *err)
{
	char at[ERR_PATH_MAX];

	*value = NULL;
	*fn = NULL;
	if (!json_is_object(call))
		return 0; /* eval refuses it */
	jptr_append_key(at, sizeof at, path, "value");
	*value = json_incref(json_object_get(call, "value"));
	if (!*value)
		return err_set(err, ERR_MISSING_FIELD, at,
		    "is required: the student's value (a number, an array, or an object of the "
		    "function's outputs)");
	json_object_del(call, "value");
	*fn = function_named(json_string_value(json_object_get(call, "function")));
	return check_value(*fn, *value, at, err);
}

int grade_parse(json_t *body, long max_calls, struct grade_request **out, struct err *err)
{
	struct grade_request *r = calloc(1, sizeof *r);
	json_t *copy = NULL, *calls;
	char path[ERR_PATH_MAX];
	struct field_ctx c;
	size_t i, n = 1;
	int rc = -1;

	if (!r)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	if (field_root(&c, body, "", err) != 0)
		goto out;
	if (json_object_get(body, "tolerances")) {
		static const char *const known[] = {"tolerances", NULL};
		int yes = 0;

		if (field_known(&c, known) != 0 || field_bool(&c, "tolerances", &yes) != 0)
			goto out;
		if (!yes) {
			field_fail(&c, "tolerances", -1, ERR_BAD_VALUE,
			    "must be true (the table), or leave it out to grade");
			goto out;
		}
		*out = r;
		return 0;
	}
	copy = json_deep_copy(body);
	calls = json_object_get(copy, "calls");
	r->batch = calls != NULL;
	if (json_is_array(calls))
		n = json_array_size(calls);
	if (r->batch && json_is_array(calls) && n > (size_t)max_calls) {
		field_fail(&c, "calls", -1, ERR_TOO_LARGE,
		    "%zu calls are over the limit of %ld: split them into batches of at most %ld "
		    "calls",
		    n, max_calls, max_calls);
		goto out;
	}
	r->fns = calloc(n ? n : 1, sizeof *r->fns);
	r->values = calloc(n ? n : 1, sizeof *r->values);
	if (!copy || !r->fns || !r->values) {
		err_set(err, ERR_INTERNAL, "", "out of memory");
		goto out;
	}
	if (!r->batch) {
		r->count = 1;
		if (take_call(copy, "", &r->values[0], &r->fns[0], err) != 0)
			goto out;
	} else if (json_is_array(calls)) {
		for (i = 0; i < n; i++, r->count++) {
			snprintf(path, sizeof path, "/calls/%zu", i);
			if (take_call(json_array_get(calls, i), path, &r->values[i], &r->fns[i],
			        err) != 0) {
				r->count++; /* values[i] may hold the refused value: freed with r */
				goto out;
			}
		}
	}
	if (eval_parse(copy, max_calls, &r->eval, err) != 0)
		goto out;
	*out = r;
	r = NULL;
	rc = 0;
out:
	json_decref(copy);
	grade_request_free(r);
	return rc;
}

static json_t *tolerance_json(const struct grade_fn *fn)
{
	return json_pack("{s:f, s:f, s:s, s:s}", "relative", fn->relative, "absolute", fn->absolute,
	    "scale", fn->series ? "series_max" : "expected", "why", fn->why);
}

/* The whole table: {"rule", "functions": {name: tolerance}} */
static json_t *table_json(void)
{
	json_t *all = json_object();
	size_t i;

	for (i = 0; all && i < NFUNCTIONS; i++)
		if (json_object_set_new(all, functions[i].name, tolerance_json(&functions[i])) !=
		    0) {
			json_decref(all);
			all = NULL;
		}
	if (!all)
		return NULL;
	return json_pack("{s:s, s:o}", "rule",
	    "pass when |student - expected| <= max(relative * scale, absolute) for every "
	    "number, scale = |expected| (\"expected\") or the largest |expected| of the series "
	    "(\"series_max\"); null passes only where null is expected",
	    "tolerances", all);
}

json_t *grade_request_json(const struct grade_request *r)
{
	json_t *canonical, *copy, *calls;
	size_t i;

	if (!r->eval)
		return json_pack("{s:b}", "tolerances", 1);
	canonical = eval_request_json(r->eval);
	copy = canonical ? json_deep_copy(canonical) : NULL;
	json_decref(canonical);
	if (!copy)
		return NULL;
	calls = r->batch ? json_object_get(copy, "calls") : NULL;
	for (i = 0; i < r->count; i++) {
		json_t *call = r->batch ? json_array_get(calls, i) : copy;

		if (r->values[i] && json_is_object(call) &&
		    json_object_set(call, "value", r->values[i]) != 0) {
			json_decref(copy);
			return NULL;
		}
	}
	return copy;
}

/* Distance in representable doubles between a and b (both finite), saturated. */
static json_int_t ulps(double a, double b)
{
	int64_t ia, ib;
	uint64_t d;

	memcpy(&ia, &a, sizeof ia);
	memcpy(&ib, &b, sizeof ib);
	/* order the bit patterns as the numbers: negative ones mirrored below zero */
	if (ia < 0)
		ia = INT64_MIN - ia;
	if (ib < 0)
		ib = INT64_MIN - ib;
	d = ia > ib ? (uint64_t)ia - (uint64_t)ib : (uint64_t)ib - (uint64_t)ia;
	return d > (uint64_t)INT64_MAX ? (json_int_t)INT64_MAX : (json_int_t)d;
}

/* The worst of the numbers compared so far. */
struct verdict {
	int pass, compared;
	double relative, absolute; /* -1: none yet; relative NAN: undefined (expected 0) */
	json_int_t ulps;
	char reason[160];
};

/* Fail, the first reason kept: fmt has one %s, the number's name ("x[3]", "K"). */
static void fail(struct verdict *v, const char *fmt, const char *name, size_t index)
{
	char label[64];

	if (index == (size_t)-1)
		snprintf(label, sizeof label, "%s", name);
	else
		snprintf(label, sizeof label, "%s[%zu]", name, index);
	if (v->pass)
		snprintf(v->reason, sizeof v->reason, fmt, label);
	v->pass = 0;
}

/* One number of the student's, s, against the expected e; scale > 0 or 0. */
static void compare_one(const struct grade_fn *fn, const json_t *s, const json_t *e, double scale,
    const char *name, size_t index, struct verdict *v)
{
	double a, b, abs_err, rel_err, allowed;

	if (json_is_null(e) || json_is_null(s)) {
		if (!(json_is_null(e) && json_is_null(s)))
			fail(v,
			    json_is_null(e) ? "%s is a number where null (no such value, or "
			                      "not finite) is expected"
			                    : "%s is null where a number is expected",
			    name, index);
		return;
	}
	a = json_number_value(s);
	b = json_number_value(e);
	abs_err = fabs(a - b);
	if (!isfinite(abs_err)) {
		fail(v, "%s is too far from the expected value to measure", name, index);
		return;
	}
	rel_err = b != 0 ? abs_err / fabs(b) : abs_err == 0 ? 0 : NAN;
	allowed = fmax(fn->relative * scale, fn->absolute);
	v->compared++;
	if (abs_err > v->absolute)
		v->absolute = abs_err;
	if (!isfinite(rel_err) || isnan(v->relative))
		v->relative = NAN;
	else if (rel_err > v->relative)
		v->relative = rel_err;
	if (ulps(a, b) > v->ulps)
		v->ulps = ulps(a, b);
	if (!(abs_err <= allowed))
		fail(v, "%s is outside the tolerance", name, index);
}

/* A student's output (number or array) against eval's result member e. */
static void compare_output(const struct grade_fn *fn, const char *name, const json_t *s,
    const json_t *e, struct verdict *v)
{
	size_t i, n;
	double scale = 0;
	json_t *x;

	if (!json_is_array(e)) {
		compare_one(fn, s, e, json_is_number(e) ? fabs(json_number_value(e)) : 0, name,
		    (size_t)-1, v);
		return;
	}
	n = json_array_size(e);
	if (json_array_size(s) != n) {
		char why[160];

		snprintf(why, sizeof why, "%%s has %zu values where %zu are expected",
		    json_array_size(s), n);
		fail(v, why, name, (size_t)-1);
		return;
	}
	json_array_foreach ((json_t *)e, i, x)
		if (json_is_number(x) && fabs(json_number_value(x)) > scale)
			scale = fabs(json_number_value(x));
	for (i = 0; i < n; i++)
		compare_one(fn, json_array_get(s, i), json_array_get(e, i), scale, name, i, v);
}

static json_t *verdict_number(double x)
{
	return x >= 0 && isfinite(x) ? json_real(x) : json_null();
}

/* The grade of one answered call: eval's entry (function, result, id, release) with the
 * student's value. */
static json_t *grade_entry(const struct grade_fn *fn, const json_t *value, const json_t *entry)
{
	const json_t *result = json_object_get(entry, "result");
	struct verdict v = {1, 0, -1, -1, 0, ""};
	json_t *expected, *out, *id = json_object_get(entry, "id");
	const char *key;
	json_t *member;

	if (json_is_object(value)) {
		expected = json_object();
		json_object_foreach ((json_t *)value, key, member) {
			json_object_set(expected, key, json_object_get(result, key));
			compare_output(fn, key, member, json_object_get(result, key), &v);
		}
	} else {
		key = fn->series ? "x" : "value";
		expected = json_incref(json_object_get(result, key));
		compare_output(fn, key, value, expected, &v);
	}
	out = json_pack("{s:s, s:b, s:o, s:o, s:o, s:o, s:o}", "function", fn->name, "pass", v.pass,
	    "expected", expected ? expected : json_null(), "relative_error",
	    v.compared ? verdict_number(v.relative) : json_null(), "absolute_error",
	    v.compared ? verdict_number(v.absolute) : json_null(), "ulps",
	    v.compared ? json_integer(v.ulps) : json_null(), "tolerance", tolerance_json(fn));
	if (out && !v.pass && v.reason[0] &&
	    json_object_set_new(out, "reason", json_string(v.reason)) != 0) {
		json_decref(out);
		return NULL;
	}
	if (out && id && json_object_set(out, "id", id) != 0) {
		json_decref(out);
		return NULL;
	}
	if (out &&
	    (json_object_set(out, "mujoco", json_object_get(entry, "mujoco")) != 0 ||
	        json_object_set(out, "core_version", json_object_get(entry, "core_version")) !=
	            0)) {
		json_decref(out);
		return NULL;
	}
	return out;
}

int grade_run(const struct grade_request *r, json_t **answer, struct err *err)
{
	json_t *eval = NULL, *results, *graded;
	size_t i, passed = 0;

	*answer = NULL;
	if (!r->eval) {
		*answer = ans_with_release(table_json(), core_mjver_default());
		return *answer ? 0 : err_set(err, ERR_INTERNAL, "", "out of memory");
	}
	if (eval_run(r->eval, &eval, err) != 0)
		return -1;
	if (!r->batch) {
		*answer = grade_entry(r->fns[0], r->values[0], eval);
		json_decref(eval);
		return *answer ? 0 : err_set(err, ERR_INTERNAL, "", "out of memory");
	}
	results = json_object_get(eval, "results");
	graded = json_array();
	for (i = 0; graded && i < json_array_size(results); i++) {
		json_t *entry = json_array_get(results, i), *g;

		if (json_object_get(entry, "error") || !r->fns[i])
			g = json_incref(entry);
		else
			g = grade_entry(r->fns[i], r->values[i], entry);
		if (g && json_is_true(json_object_get(g, "pass")))
			passed++;
		if (json_array_append_new(graded, g) != 0) {
			json_decref(graded);
			graded = NULL;
		}
	}
	if (graded)
		*answer = json_pack("{s:o, s:I, s:I, s:O, s:O, s:O}", "results", graded, "passed",
		    (json_int_t)passed, "graded",
		    (json_int_t)(json_array_size(results) -
		        (size_t)json_integer_value(json_object_get(eval, "failed"))),
		    "failed", json_object_get(eval, "failed"), "mujoco",
		    json_object_get(eval, "mujoco"), "core_version",
		    json_object_get(eval, "core_version"));
	json_decref(eval);
	return *answer ? 0 : err_set(err, ERR_INTERNAL, "", "out of memory");
}

/* ---- the row: POST /v1/grade ---- */

static int grade_row_parse(
    json_t *body, const struct svc_limits *lim, void **request, struct err *err)
{
	return grade_parse(body, lim->max_eval_calls, (struct grade_request **)request, err);
}

static json_t *grade_row_canonical(const void *request)
{
	return grade_request_json(request);
}

static int grade_row_answer(
    const void *request, const struct svc_limits *lim, json_t **answer, struct err *err)
{
	(void)lim;
	return grade_run(request, answer, err);
}

static void grade_row_release(void *request)
{
	grade_request_free(request);
}

const struct svc_endpoint_def svc_ep_grade = {
    .name = "grade",
    .summary = "a student's value of a lesson function against eval's, with its tolerance",
    .units = "errors in the output's unit (absolute) or none (relative, ulps)",
    .parse = grade_row_parse,
    .canonical = grade_row_canonical,
    .answer = grade_row_answer,
    .release = grade_row_release,
    .batch = 1,
};
