/*
 * grade.c: POST /v1/grade, a student's value of one of the lesson's functions (or a
 * batch of them) against eval's, with the tolerance docs/grading.md recommends.
 *
 * A call is eval's call with the student's "value" beside it: {"function", "args",
 * "id", "mujoco", "value"}; the batch {"calls": [...], "mujoco"}; {"tolerances":
 * true} answers the table itself. The student's value is a number (the function's
 * "value"), an array (semi_implicit_euler's "x"), or an object of some of the
 * function's outputs ({"K": ..., "B": ...}), each a number, an array or null; a
 * non-finite number is the string "NaN", "Infinity" or "-Infinity" (JSON has no
 * such number). eval computes the expected answer (grade strips "value" and asks eval,
 * so the two cannot differ); a call eval refuses is refused, or in a batch is eval's
 * error entry. The student's value is judged, never refused: a non-finite number or a
 * value of the wrong shape fails its call with a reason.
 *
 * A number passes when |student - expected| <= max(relative * scale, absolute), scale
 * |expected| (or, for a series, the largest |expected| of the series); null passes
 * only where null is expected. Every failing output is named (failures); a failing
 * number that matches one of the lesson's usual mistakes (hint.h) gets its hint.
 */
#include "service/grade.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/field.h"
#include "base/jsonptr.h"
#include "core/mjver.h"
#include "service/answer.h"
#include "service/endpoint.h"
#include "service/eval.h"
#include "service/hint.h"

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
	struct err *missing;         /* per call of a batch: a call without "value" */
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
	free(r->missing);
	free(r);
}

/* Take call's "value" out (into *value, a new reference) and find its function. A
 * call without one is refused at path (in a batch: that call alone). */
static int take_call(
    json_t *call, const char *path, json_t **value, const struct grade_fn **fn, struct err *err)
{
	char at[ERR_PATH_MAX];

	*value = NULL;
	*fn = NULL;
	if (!json_is_object(call))
		return 0; /* eval refuses it */
	*fn = function_named(json_string_value(json_object_get(call, "function")));
	jptr_append_key(at, sizeof at, path, "value");
	*value = json_incref(json_object_get(call, "value"));
	if (!*value)
		return err_set(err, ERR_MISSING_FIELD, at,
		    "is required: the student's value (a number, an array, or an object of the "
		    "function's outputs; null where the function has no value)");
	json_object_del(call, "value");
	return 0;
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
	r->missing = calloc(n ? n : 1, sizeof *r->missing);
	if (!copy || !r->fns || !r->values || !r->missing) {
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
			err_clear(&r->missing[i]);
			take_call(json_array_get(calls, i), path, &r->values[i], &r->fns[i],
			    &r->missing[i]);
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

/* ulps are reported up to this distance: beyond it the two differ by a factor of 2 or
 * more (or in sign), and relative_error says all that ulps could */
#define ULPS_REPORTED ((uint64_t)1 << 52)

/* The number of doubles from a to b (both finite); -1 beyond ULPS_REPORTED. */
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
	return d > ULPS_REPORTED ? -1 : (json_int_t)d;
}

/* How a non-finite number is spelt in a student's value (JSON has no such number). */
static const char *const nonfinite_spellings[] = {"NaN", "Infinity", "-Infinity"};
#define SPELLINGS "\"NaN\", \"Infinity\" or \"-Infinity\""

enum student { STUDENT_NUMBER, STUDENT_NULL, STUDENT_NONFINITE, STUDENT_OTHER };

/* What a student's v is: a number (*x), null, a non-finite number (*spelt), or no number. */
static enum student student_number(const json_t *v, double *x, const char **spelt)
{
	size_t i;

	if (json_is_number(v)) {
		*x = json_number_value(v);
		return STUDENT_NUMBER;
	}
	if (json_is_null(v))
		return STUDENT_NULL;
	for (i = 0; json_is_string(v) && i < 3; i++)
		if (strcmp(json_string_value(v), nonfinite_spellings[i]) == 0) {
			*spelt = nonfinite_spellings[i];
			return STUDENT_NONFINITE;
		}
	return STUDENT_OTHER;
}

/* At most max bytes of s into out (max + 1 bytes), never cutting a UTF-8 character. */
static const char *cut(const char *s, size_t max, char *out)
{
	size_t n = strlen(s);

	if (n > max) {
		n = max;
		while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
	}
	memcpy(out, s, n);
	out[n] = '\0';
	return out;
}

#define SHOWN_MAX 40 /* bytes of a student's string or key shown in a message */

/* What v is, for a message saying what was expected instead ("not an array of 2 values"). */
static const char *describe(const json_t *v, char *buf, size_t size)
{
	char shown[SHOWN_MAX + 1];

	if (json_is_array(v))
		snprintf(buf, size, "an array of %zu values", json_array_size(v));
	else if (json_is_object(v))
		snprintf(buf, size, "an object");
	else if (json_is_string(v))
		snprintf(buf, size,
		    "the string \"%s\"%s (a number is sent bare; a non-finite one as " SPELLINGS
		    ")",
		    cut(json_string_value(v), SHOWN_MAX, shown),
		    strlen(json_string_value(v)) > SHOWN_MAX ? "..." : "");
	else
		snprintf(buf, size, "%s",
		    json_is_true(v)        ? "true"
		        : json_is_false(v) ? "false"
		                           : "a number");
	return buf;
}

/* fn's outputs, "K, B, timeconst_used", or as an object's members when as_object. */
static const char *outputs_text(const struct grade_fn *fn, int as_object, char *buf, size_t size)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; fn->outputs[i] && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used,
		    as_object ? "%s\"%s\": ..." : "%s%s", i ? ", " : "", fn->outputs[i]);
	return buf;
}

#define SIGN_HINT "a sign error: this is minus the expected value"

/* One call being graded. */
struct grader {
	const struct grade_fn *fn;
	const json_t *args; /* the call's canonical args, for the hints; NULL: none */
	int release;
	struct hint_variant variants[HINT_MAX];
	int nvariants;    /* -1 until a failing number asks for them */
	json_t *failures; /* [{"output", "error", "hint"}] */
	int oom;
	/* the worst number by the tolerance's measure, |s - e| / max(relative * scale,
	 * absolute), and its errors */
	int compared;
	double measure, absolute, relative; /* relative NAN: undefined (scale 0) */
	json_int_t ulps;                    /* -1: not reported */
};

static void add_failure(struct grader *g, const char *output, const char *error, const char *hint)
{
	json_t *f = json_pack("{s:s?, s:s}", "output", output, "error", error);

	if (f && hint && json_object_set_new(f, "hint", json_string(hint)) != 0) {
		json_decref(f);
		f = NULL;
	}
	if (!f || json_array_append_new(g->failures, f) != 0)
		g->oom = 1;
}

/* The difference fn's tolerance allows at scale (|expected|, or a series' largest). */
static double allowed_at(const struct grade_fn *fn, double scale)
{
	return fmax(fn->relative * scale, fn->absolute);
}

static int within(const struct grade_fn *fn, double s, double e)
{
	return fabs(s - e) <= allowed_at(fn, fabs(e));
}

/* The hint for a failing number s of output (expected e): the first of the lesson's
 * usual mistakes it matches under the tolerance, where that mistake fails too. */
static const char *hint_for(struct grader *g, const char *output, double s, double e)
{
	int i;

	if (g->nvariants < 0)
		g->nvariants =
		    g->args ? (int)hint_variants(g->fn->name, g->args, g->release, g->variants) : 0;
	for (i = 0; i < g->nvariants; i++) {
		const struct hint_variant *v = &g->variants[i];

		if (strcmp(v->output, output) == 0 && !within(g->fn, v->value, e) &&
		    within(g->fn, s, v->value))
			return v->text;
	}
	return e != 0 && within(g->fn, s, -e) ? SIGN_HINT : NULL;
}

enum judged { JUDGED_PASS, JUDGED_FAIL, JUDGED_OUTSIDE /* two numbers, out of tolerance */ };

/* One number of the student's, s, against the expected e (a number or null) at scale;
 * label names it ("K", "x[3]"). A fail's error is written to why. */
static enum judged judge_number(struct grader *g, const json_t *s, const json_t *e, double scale,
    const char *label, char *why, size_t size)
{
	double a = 0, b, abs_err, allowed, m;
	const char *spelt = "";
	char what[160];

	switch (student_number(s, &a, &spelt)) {
	case STUDENT_OTHER:
		snprintf(why, size, "%s must be a number or null, not %s", label,
		    describe(s, what, sizeof what));
		return JUDGED_FAIL;
	case STUDENT_NONFINITE:
		snprintf(why, size, "%s is not finite: %s%s", label, spelt,
		    json_is_null(e) ? " (null is expected: no such value, or not finite)" : "");
		return JUDGED_FAIL;
	case STUDENT_NULL:
		if (json_is_null(e))
			return JUDGED_PASS;
		snprintf(why, size, "%s is null where a number is expected", label);
		return JUDGED_FAIL;
	default:
		break;
	}
	if (json_is_null(e)) {
		snprintf(why, size,
		    "%s is a number where null (no such value, or not finite) is expected", label);
		return JUDGED_FAIL;
	}
	b = json_number_value(e);
	abs_err = fabs(a - b);
	if (!isfinite(abs_err)) {
		snprintf(why, size, "%s is too far from the expected value to measure", label);
		return JUDGED_FAIL;
	}
	allowed = allowed_at(g->fn, scale);
	m = abs_err == 0 ? 0 : allowed > 0 ? abs_err / allowed : INFINITY;
	if (!g->compared++ || m > g->measure) {
		g->measure = m;
		g->absolute = abs_err;
		g->relative = scale > 0 ? abs_err / scale : abs_err == 0 ? 0 : NAN;
		g->ulps = ulps(a, b);
	}
	if (abs_err <= allowed)
		return JUDGED_PASS;
	snprintf(why, size, "%s is outside the tolerance", label);
	return JUDGED_OUTSIDE;
}

/* A student's series (semi_implicit_euler's x or v) against eval's e: one failure
 * naming its first failing element and how many more fail. */
static void judge_series(struct grader *g, const char *name, const json_t *s, const json_t *e)
{
	char why[ERR_MESSAGE_MAX], first[ERR_MESSAGE_MAX], all[2 * ERR_MESSAGE_MAX], label[96];
	char what[160];
	size_t i, n = json_array_size(e), failing = 0, nonzero = 0, negated = 0;
	double scale = 0, a, b;
	const char *spelt;
	json_t *x;

	if (!json_is_array(s)) {
		snprintf(why, sizeof why,
		    "%s must be an array of numbers (null where not finite), not %s", name,
		    describe(s, what, sizeof what));
		add_failure(g, name, why, NULL);
		return;
	}
	if (json_array_size(s) != n) {
		snprintf(why, sizeof why, "%s has %zu values where %zu are expected", name,
		    json_array_size(s), n);
		add_failure(g, name, why, NULL);
		return;
	}
	json_array_foreach ((json_t *)e, i, x)
		if (json_is_number(x) && fabs(json_number_value(x)) > scale)
			scale = fabs(json_number_value(x));
	for (i = 0; i < n; i++) {
		const json_t *si = json_array_get(s, i), *ei = json_array_get(e, i);

		snprintf(label, sizeof label, "%s[%zu]", name, i);
		if (judge_number(g, si, ei, scale, label, why, sizeof why) != JUDGED_PASS &&
		    failing++ == 0)
			snprintf(first, sizeof first, "%s", why);
		/* a sign error: every nonzero element is minus eval's */
		if (json_is_number(ei) && (b = json_number_value(ei)) != 0) {
			nonzero++;
			if (student_number(si, &a, &spelt) == STUDENT_NUMBER &&
			    fabs(a + b) <= allowed_at(g->fn, scale))
				negated++;
		}
	}
	if (!failing)
		return;
	if (failing > 1)
		snprintf(all, sizeof all, "%s, and %zu more of %s's %zu values", first, failing - 1,
		    name, n);
	add_failure(
	    g, name, failing > 1 ? all : first, nonzero && negated == nonzero ? SIGN_HINT : NULL);
}

/* A student's output against eval's result member e (a number, null or a series). */
static void judge_output(struct grader *g, const char *name, const json_t *s, const json_t *e)
{
	char why[ERR_MESSAGE_MAX];

	if (g->fn->series) {
		judge_series(g, name, s, e);
		return;
	}
	switch (judge_number(
	    g, s, e, json_is_number(e) ? fabs(json_number_value(e)) : 0, name, why, sizeof why)) {
	case JUDGED_PASS:
		return;
	case JUDGED_OUTSIDE:
		add_failure(
		    g, name, why, hint_for(g, name, json_number_value(s), json_number_value(e)));
		return;
	default:
		add_failure(g, name, why, NULL);
	}
}

/* Every output of fn in result: the expected answer when the student's shape is wrong. */
static json_t *all_outputs(const struct grade_fn *fn, const json_t *result)
{
	json_t *out = json_object(), *v;
	size_t i;

	for (i = 0; out && fn->outputs[i]; i++) {
		v = json_object_get(result, fn->outputs[i]);
		if (json_object_set(out, fn->outputs[i], v ? v : json_null()) != 0) {
			json_decref(out);
			out = NULL;
		}
	}
	return out;
}

/* An object's member key that is none of fn's outputs: named, with the right spelling
 * when only the case differs. */
static void unknown_output(struct grader *g, const char *key)
{
	char why[ERR_MESSAGE_MAX], list[96], shown[SHOWN_MAX + 1];
	const char *meant = NULL;
	size_t i;

	for (i = 0; g->fn->outputs[i] && !meant; i++)
		if (strcasecmp(g->fn->outputs[i], key) == 0)
			meant = g->fn->outputs[i];
	snprintf(why, sizeof why, "%s is not an output of %s (%s)%s%s%s",
	    cut(key, SHOWN_MAX, shown), g->fn->name, outputs_text(g->fn, 0, list, sizeof list),
	    meant ? ": did you mean " : "", meant ? meant : "", meant ? "?" : "");
	add_failure(g, key, why, NULL);
}

static int by_text(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The student's whole value against eval's result; returns the expected answer (in
 * the value's shape, or every output when the shape is wrong), a new reference. */
static json_t *judge_value(struct grader *g, const json_t *value, const json_t *result)
{
	const struct grade_fn *fn = g->fn;
	char why[ERR_MESSAGE_MAX], list[96], what[160];
	const char *key, *spelt;
	json_t *member, *expected;
	int wrong = 0;
	double x;

	if (json_is_object(value)) {
		/* outputs in the function's order, then unknown keys sorted: the failures'
		 * order is the request's, whatever order its keys were sent in (the cache
		 * answers a request by its canonical, sorted form) */
		const char **keys = calloc(json_object_size(value) + 1, sizeof *keys);
		size_t i, n = 0;

		expected = json_object();
		if (!keys)
			g->oom = 1;
		for (i = 0; fn->outputs[i]; i++) {
			member = json_object_get(value, fn->outputs[i]);
			if (!member)
				continue;
			key = fn->outputs[i];
			if (expected &&
			    json_object_set(expected, key, json_object_get(result, key)) != 0)
				g->oom = 1;
			judge_output(g, key, member, json_object_get(result, key));
		}
		json_object_foreach ((json_t *)value, key, member)
			if (keys && !has_output(fn, key))
				keys[n++] = key;
		if (n)
			qsort(keys, n, sizeof *keys, by_text);
		for (i = 0; i < n; i++)
			unknown_output(g, keys[i]);
		wrong = n > 0;
		free(keys);
		if (json_object_size(value) == 0) {
			snprintf(why, sizeof why, "the value names none of %s's outputs (%s)",
			    fn->name, outputs_text(fn, 0, list, sizeof list));
			add_failure(g, NULL, why, NULL);
			wrong = 1;
		}
		if (!wrong)
			return expected;
		json_decref(expected);
		return all_outputs(fn, result);
	}
	if (fn->series
	        ? json_is_array(value)
	        : has_output(fn, "value") && student_number(value, &x, &spelt) != STUDENT_OTHER) {
		key = fn->series ? "x" : "value";
		judge_output(g, key, value, json_object_get(result, key));
		return json_incref(json_object_get(result, key));
	}
	snprintf(why, sizeof why,
	    "the value must be %san object of %s's outputs ({%s}, any of them), not %s",
	    fn->series                    ? "an array (the series x), or "
	        : has_output(fn, "value") ? "a number (value), null, or "
	                                  : "",
	    fn->name, outputs_text(fn, 1, list, sizeof list), describe(value, what, sizeof what));
	add_failure(g, NULL, why, NULL);
	return all_outputs(fn, result);
}

/* "K", "K and B", "K, B and v": the outputs of the failures that share hint. */
static void append_outputs_with(const json_t *failures, const char *hint, char *buf, size_t size)
{
	size_t i, n = 0, k = 0, used;
	json_t *f;

	json_array_foreach ((json_t *)failures, i, f)
		n += json_string_value(json_object_get(f, "hint")) &&
		    strcmp(json_string_value(json_object_get(f, "hint")), hint) == 0;
	json_array_foreach ((json_t *)failures, i, f) {
		const char *h = json_string_value(json_object_get(f, "hint"));

		if (!h || strcmp(h, hint) != 0)
			continue;
		used = strlen(buf);
		snprintf(buf + used, size - used, "%s%s",
		    k == 0           ? ""
		        : k + 1 == n ? " and "
		                     : ", ",
		    json_string_value(json_object_get(f, "output")));
		k++;
	}
}

/* The failures as one sentence: every error, then each distinct hint once ("Hint for K
 * and B: ..."). A new reference, or NULL if out of memory. */
static json_t *reason_json(const json_t *failures)
{
	char text[4096] = "";
	size_t i, j, used;
	json_t *f, *earlier, *out;

	json_array_foreach ((json_t *)failures, i, f) {
		used = strlen(text);
		snprintf(text + used, sizeof text - used, "%s%s", i ? "; " : "",
		    json_string_value(json_object_get(f, "error")));
	}
	json_array_foreach ((json_t *)failures, i, f) {
		const char *hint = json_string_value(json_object_get(f, "hint"));
		int seen = 0;

		for (j = 0; hint && j < i && !seen; j++) {
			earlier = json_array_get(failures, j);
			seen = json_string_value(json_object_get(earlier, "hint")) &&
			    strcmp(json_string_value(json_object_get(earlier, "hint")), hint) == 0;
		}
		if (!hint || seen)
			continue;
		used = strlen(text);
		snprintf(text + used, sizeof text - used, ". Hint for ");
		append_outputs_with(failures, hint, text, sizeof text);
		used = strlen(text);
		snprintf(text + used, sizeof text - used, ": %s", hint);
	}
	/* a sentence cut at the buffer's end may end inside a character */
	out = json_string(text);
	for (used = strlen(text); !out && used > 0;) {
		text[--used] = '\0';
		out = json_string(text);
	}
	return out;
}

static json_t *verdict_number(double x)
{
	return x >= 0 && isfinite(x) ? json_real(x) : json_null();
}

/* The grade of one answered call: eval's entry (function, result, id, release) with the
 * student's value; call is its canonical form (its args, for the hints). */
static json_t *grade_entry(
    const struct grade_fn *fn, const json_t *value, const json_t *entry, const json_t *call)
{
	struct grader g;
	json_t *expected, *out = NULL, *id = json_object_get(entry, "id");
	int pass;

	memset(&g, 0, sizeof g);
	g.fn = fn;
	g.args = json_object_get(call, "args");
	g.release = core_mjver_find(json_string_value(json_object_get(entry, "mujoco")));
	g.nvariants = g.release < 0 ? 0 : -1;
	g.failures = json_array();
	if (!g.failures)
		return NULL;
	expected = judge_value(&g, value, json_object_get(entry, "result"));
	pass = json_array_size(g.failures) == 0;
	if (!g.oom)
		out = json_pack("{s:s, s:b, s:o, s:o, s:o, s:o, s:o}", "function", fn->name, "pass",
		    pass, "expected", expected ? expected : json_null(), "relative_error",
		    g.compared ? verdict_number(g.relative) : json_null(), "absolute_error",
		    g.compared ? verdict_number(g.absolute) : json_null(), "ulps",
		    g.compared && g.ulps >= 0 ? json_integer(g.ulps) : json_null(), "tolerance",
		    tolerance_json(fn));
	else
		json_decref(expected);
	if (out && !pass &&
	    (json_object_set_new(out, "reason", reason_json(g.failures)) != 0 ||
	        json_object_set(out, "failures", g.failures) != 0))
		goto fail;
	if (out && id && json_object_set(out, "id", id) != 0)
		goto fail;
	if (out &&
	    (json_object_set(out, "mujoco", json_object_get(entry, "mujoco")) != 0 ||
	        json_object_set(out, "core_version", json_object_get(entry, "core_version")) != 0))
		goto fail;
	json_decref(g.failures);
	return out;
fail:
	json_decref(g.failures);
	json_decref(out);
	return NULL;
}

int grade_run(const struct grade_request *r, json_t **answer, struct err *err)
{
	json_t *eval = NULL, *canonical = NULL, *results, *graded;
	size_t i, passed = 0, failed = 0;

	*answer = NULL;
	if (!r->eval) {
		*answer = ans_with_release(table_json(), core_mjver_default());
		return *answer ? 0 : err_set(err, ERR_INTERNAL, "", "out of memory");
	}
	if (eval_run(r->eval, &eval, err) != 0)
		return -1;
	canonical = eval_request_json(r->eval);
	if (!canonical) {
		json_decref(eval);
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	}
	if (!r->batch) {
		*answer = grade_entry(r->fns[0], r->values[0], eval, canonical);
		goto out;
	}
	results = json_object_get(eval, "results");
	graded = json_array();
	for (i = 0; graded && i < json_array_size(results); i++) {
		json_t *entry = json_array_get(results, i), *g;
		json_t *call = json_array_get(json_object_get(canonical, "calls"), i);

		if (json_object_get(entry, "error") || !r->fns[i])
			g = json_incref(entry);
		else if (r->missing[i].code != ERR_NONE && ++failed)
			g = eval_failure_json(call, &r->missing[i]);
		else
			g = grade_entry(r->fns[i], r->values[i], entry, call);
		if (g && json_is_true(json_object_get(g, "pass")))
			passed++;
		if (json_array_append_new(graded, g) != 0) {
			json_decref(graded);
			graded = NULL;
		}
	}
	failed += (size_t)json_integer_value(json_object_get(eval, "failed"));
	if (graded)
		*answer = json_pack("{s:o, s:I, s:I, s:I, s:O, s:O}", "results", graded, "passed",
		    (json_int_t)passed, "graded", (json_int_t)(json_array_size(results) - failed),
		    "failed", (json_int_t)failed, "mujoco", json_object_get(eval, "mujoco"),
		    "core_version", json_object_get(eval, "core_version"));
out:
	json_decref(canonical);
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
