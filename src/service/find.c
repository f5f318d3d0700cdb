/*
 * find.c: the threshold of one answer field along one request field, by GSL's
 * Brent solver (real fields) or bisection on the predicate (any field).
 */
#include "service/find.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>

#include "base/jtext.h"
#include "service/answer.h"
#include "service/endpoint.h"
#include "base/field.h"
#include "service/vary.h"
#include "service/knobs.h"

enum method { METHOD_AUTO, METHOD_BRENT, METHOD_BISECTION };
static const char *const method_names[] = {
    [METHOD_AUTO] = "auto",
    [METHOD_BRENT] = "brent",
    [METHOD_BISECTION] = "bisection",
};

/* A validated find request. */
struct find_search {
	const struct svc_endpoint_def *query; /* a sweepable row of the endpoint table */
	json_t *base;                         /* canonical base request (owned) */
	char ptr[ERR_PATH_MAX];
	const char *field;  /* static: the answer field's name */
	enum ans_type type; /* ANS_BOOL, ANS_INTEGER, or ANS_REAL */
	double target;      /* not for booleans */
	double bracket[2];  /* as given: bracket[1] is "b's side" */
	double tolerance;   /* absolute, in the varied field's unit */
	int max_iterations;
	int scan;           /* cells the scan cuts the bracket into before solving */
	enum method method; /* resolved: brent or bisection */
};

/* The query's answer fields, in answer order, with their types (a real field that
 * may be null is ANS_REAL); returns the count. */
static size_t answer_fields(const struct svc_endpoint_def *query, const char *names[ANS_MAX_FIELDS],
    enum ans_type types[ANS_MAX_FIELDS])
{
	const struct svc_field *table = query->fields;
	void *dummy = calloc(1, query->kind->result_size);
	struct ans_field fields[ANS_MAX_FIELDS];
	size_t n = 0, i, j;

	/* the types: a result's booleans and integers are typed whatever their values */
	if (dummy)
		n = query->kind->fields(dummy, fields);
	free(dummy);
	for (i = 0; table[i].name && i < ANS_MAX_FIELDS; i++) {
		names[i] = table[i].name;
		types[i] = ANS_REAL;
		for (j = 0; j < n; j++)
			if (strcmp(fields[j].name, table[i].name) == 0 &&
			    fields[j].type != ANS_NULL)
				types[i] = fields[j].type;
	}
	return i;
}

/* The request at x: the base with the field set to x, validated. Errors are the
 * point's own, with their path inside the request. */
static int request_at(const struct find_search *s, double x, void *out, struct err *err)
{
	json_t *request = json_deep_copy(s->base), *value = json_real(x);
	int rc = -1;

	if (!request || !value)
		err_set(err, ERR_INTERNAL, "", "out of memory");
	else if (vary_set(s->query->kind, request, s->ptr, value, "", err) == 0)
		rc = s->query->kind->point(request, "", out, err);
	json_decref(value);
	json_decref(request);
	return rc;
}

/* Report a point's error at where ("/bracket/0", "/bracket"), naming the point. */
static int point_error(const struct find_search *s, double x, const struct err *inner,
    const char *where, struct err *err)
{
	if (inner->code == ERR_INTERNAL) {
		*err = *inner;
		return -1;
	}
	return err_set(err, inner->code, where, "with %s = %s, %s: %s", s->ptr, JTEXT_NUM(x),
	    inner->path[0] ? inner->path : "the request", inner->message);
}

/* The field at x, and (answer not NULL) the whole answer there, a new reference the
 * caller owns; a null field is bad_value at where. */
static int evaluate(const struct find_search *s, double x, const char *where, json_t **answer,
    struct ans_field *out, struct err *err)
{
	const struct ans_kind *kind = s->query->kind;
	struct ans_field fields[ANS_MAX_FIELDS];
	void *req = malloc(kind->request_size), *result = malloc(kind->result_size);
	struct err inner;
	size_t n = 0, i;
	int rc = 0;

	err_clear(&inner);
	if (!req || !result)
		rc = err_set(err, ERR_INTERNAL, "", "out of memory");
	else if (request_at(s, x, req, &inner) != 0)
		rc = point_error(s, x, &inner, where, err);
	if (rc == 0) {
		kind->compute(req, result);
		n = kind->fields(result, fields);
	}
	if (rc == 0 && answer && !(*answer = ans_to_json(kind, result)))
		rc = err_set(err, ERR_INTERNAL, "", "out of memory");
	free(req);
	free(result);
	if (rc != 0)
		return -1;
	for (i = 0; i < n && strcmp(fields[i].name, s->field) != 0; i++)
		;
	*out = fields[i]; /* the field exists: its name was validated against this query */
	if (out->type == ANS_NULL && answer) {
		json_decref(*answer);
		*answer = NULL;
	}
	if (out->type == ANS_NULL)
		return err_set(err, ERR_BAD_VALUE, where,
		    "%s is null with %s = %s (the run diverged, or there is no such value): "
		    "choose a bracket where it has a value",
		    s->field, s->ptr, JTEXT_NUM(x));
	return 0;
}

static double field_number_of(const struct ans_field *f)
{
	return f->type == ANS_REAL ? f->real : (double)f->integer;
}

/* The field's value as text for a message. */
static void field_text(
    const struct find_search *s, const struct ans_field *f, char *buf, size_t size)
{
	if (s->type == ANS_BOOL)
		snprintf(buf, size, "%s", f->integer ? "true" : "false");
	else
		snprintf(buf, size, "%.9g", field_number_of(f));
}

/* The parse shared by both stages: *s is filled (s->base owned) even on failure. */
static int search_build(json_t *body, struct find_search *s, struct err *err)
{
	static const char *const known[] = {"query", "base", "path", "field", "target", "bracket",
	    "tolerance", "max_iterations", "method", "scan", NULL};
	const char *names[ANS_MAX_FIELDS];
	enum ans_type types[ANS_MAX_FIELDS];
	struct field_ctx c, base_ctx;
	void *req = NULL;
	json_t *empty = NULL;
	char where[ERR_PATH_MAX];
	long steps[2] = {0, 0};
	size_t n;
	int index = 0, method = METHOD_AUTO, is_number = 0, i, rc = -1;

	memset(s, 0, sizeof *s);
	if (field_root(&c, body, "", err) != 0 || field_known(&c, known) != 0 ||
	    vary_query(&c, "query", &s->query) != 0 || field_object(&c, "base", &base_ctx) != 0)
		goto out;
	if (!base_ctx.obj)
		base_ctx.obj = empty = json_object();
	req = malloc(s->query->kind->request_size);
	if (!req) {
		err_set(err, ERR_INTERNAL, "", "out of memory");
		goto out;
	}
	if (s->query->kind->point(base_ctx.obj, "/base", req, err) != 0)
		goto out;
	s->base = s->query->kind->canonical(req);
	if (!s->base) {
		err_set(err, ERR_INTERNAL, "", "out of memory");
		goto out;
	}
	if (field_require(&c, "path") != 0 ||
	    vary_pointer(s->query, s->base, &c, "path", s->ptr, &is_number) != 0)
		goto out;
	if (!is_number) {
		field_fail(&c, "path", -1, ERR_BAD_VALUE,
		    "%s is not a number in the request: find varies one number", s->ptr);
		goto out;
	}
	n = answer_fields(s->query, names, types);
	if (field_require(&c, "field") != 0 ||
	    field_choice(&c, "field", names, (int)n, &index) != 0)
		goto out;
	s->field = names[index];
	s->type = types[index];
	/* a boolean's canonical target is null */
	if (s->type == ANS_BOOL && json_object_get(body, "target") &&
	    !json_is_null(json_object_get(body, "target"))) {
		field_fail(&c, "target", -1, ERR_BAD_VALUE,
		    "%s is a boolean: find says where it changes, without a target", s->field);
		goto out;
	}
	if ((s->type != ANS_BOOL && field_number(&c, "target", &s->target) != 0) ||
	    field_require(&c, "bracket") != 0 || field_numbers(&c, "bracket", 2, s->bracket) != 0)
		goto out;
	if (!(s->bracket[0] != s->bracket[1])) {
		field_fail(&c, "bracket", -1, ERR_BAD_VALUE,
		    "needs two different values, not %s twice", JTEXT_NUM(s->bracket[0]));
		goto out;
	}
	/* the width, the default tolerance and the scan's points are finite for any
	 * bracket whose width is (no non-finite number reaches an answer) */
	if (!isfinite(s->bracket[1] - s->bracket[0])) {
		field_fail(&c, "bracket", -1, ERR_BAD_VALUE,
		    "is too wide: %s - %s is not a finite number (at most %s wide)",
		    JTEXT_NUM(s->bracket[1]), JTEXT_NUM(s->bracket[0]), JTEXT_NUM(DBL_MAX));
		goto out;
	}
	s->tolerance = FIND_DEFAULT_TOLERANCE * fabs(s->bracket[1] - s->bracket[0]);
	if (field_number(&c, "tolerance", &s->tolerance) != 0)
		goto out;
	if (!(s->tolerance > 0)) {
		field_fail(&c, "tolerance", -1, ERR_BAD_VALUE, "must be > 0, not %s",
		    JTEXT_NUM(s->tolerance));
		goto out;
	}
	s->max_iterations = FIND_DEFAULT_ITERATIONS;
	if (field_int(&c, "max_iterations", &s->max_iterations) != 0)
		goto out;
	if (s->max_iterations < 1 || s->max_iterations > FIND_MAX_ITERATIONS) {
		field_fail(&c, "max_iterations", -1, ERR_BAD_VALUE, "must be 1 to %d, not %d",
		    FIND_MAX_ITERATIONS, s->max_iterations);
		goto out;
	}
	s->scan = FIND_DEFAULT_SCAN;
	if (field_int(&c, "scan", &s->scan) != 0)
		goto out;
	if (s->scan < 1 || s->scan > FIND_MAX_SCAN) {
		field_fail(&c, "scan", -1, ERR_BAD_VALUE, "must be 1 to %d, not %d", FIND_MAX_SCAN,
		    s->scan);
		goto out;
	}
	if (field_choice(&c, "method", method_names, 3, &method) != 0)
		goto out;
	if (method == METHOD_BRENT && s->type != ANS_REAL) {
		field_fail(&c, "method", -1, ERR_BAD_VALUE,
		    "Brent's method needs a real field; %s is %s: use \"bisection\"", s->field,
		    s->type == ANS_BOOL ? "a boolean" : "an integer");
		goto out;
	}
	s->method = method == METHOD_AUTO ? (s->type == ANS_REAL ? METHOD_BRENT : METHOD_BISECTION)
	                                  : (enum method)method;
	/* both ends must be valid requests; the simulated steps are largest at an end
	 * (steps = duration / timestep is monotonic in either) */
	for (i = 0; i < 2; i++) {
		struct err inner;
		err_clear(&inner);
		snprintf(where, sizeof where, "/bracket/%d", i);
		if (request_at(s, s->bracket[i], req, &inner) != 0) {
			point_error(s, s->bracket[i], &inner, where, err);
			goto out;
		}
		steps[i] = s->query->kind->steps(req);
	}
	/* the scan's points, the iterations (Brent's and a plateau's bisection after
	 * it share them), Brent's two ends again, its root's check, the answer there */
	if ((double)(steps[0] > steps[1] ? steps[0] : steps[1]) *
	        ((double)s->max_iterations + s->scan + 5) >
	    (double)LIMIT_MAX_SWEEP_STEPS) {
		field_fail(&c, "max_iterations", -1, ERR_TOO_LARGE,
		    "%d iterations and %d scan points of up to %ld steps each are over the limit "
		    "of %ld steps",
		    s->max_iterations, s->scan + 1, steps[0] > steps[1] ? steps[0] : steps[1],
		    LIMIT_MAX_SWEEP_STEPS);
		goto out;
	}
	rc = 0;
out:
	free(req);
	json_decref(empty);
	return rc;
}

static json_t *target_json(const struct find_search *s)
{
	return s->type == ANS_BOOL ? json_null() : json_real(s->target);
}

int find_parse(json_t *body, struct find_search **search, struct err *err)
{
	struct find_search *s = malloc(sizeof *s);

	if (!s)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	if (search_build(body, s, err) != 0) {
		find_search_free(s);
		return -1;
	}
	*search = s;
	return 0;
}

void find_search_free(struct find_search *s)
{
	if (!s)
		return;
	json_decref(s->base);
	free(s);
}

json_t *find_search_json(const struct find_search *s)
{
	return json_pack("{s:s, s:O, s:s, s:s, s:o, s:[f, f], s:f, s:i, s:s, s:i}", "query",
	    s->query->name, "base", s->base, "path", s->ptr, "field", s->field, "target",
	    target_json(s), "bracket", s->bracket[0], s->bracket[1], "tolerance", s->tolerance,
	    "max_iterations", s->max_iterations, "method", method_names[s->method], "scan",
	    s->scan);
}

/* ---- the search: a scan for the first change, then a solver inside it ---- */

struct outcome {
	double value, lo, hi;
	int iterations, converged;
};

/* The class of a field value: for a boolean its value; for a number the sign of
 * field - target (-1, 0 on the target, +1). A crossing is where the class changes. */
static int class_of(const struct find_search *s, const struct ans_field *f)
{
	double g;

	if (s->type == ANS_BOOL)
		return f->integer != 0;
	g = field_number_of(f) - s->target;
	return (g > 0) - (g < 0);
}

/* The scan's point i of n: the ends exactly as given, the rest evenly between. The
 * width b - a is finite (search_build() refuses a wider bracket). */
static double scan_point(const struct find_search *s, int i)
{
	double a = s->bracket[0], b = s->bracket[1];

	if (i == 0)
		return a;
	if (i == s->scan)
		return b;
	return a + (b - a) * ((double)i / s->scan);
}

/* Bisection on the predicate class(x) == c0 between x0 (class c0) and x1 (another
 * class): the first change of class from x0's side. o->value is the end of the
 * final bracket on x1's side: the first point found off c0's class. */
static int bisect_class(
    const struct find_search *s, double x0, double x1, int c0, struct outcome *o, struct err *err)
{
	double a = x0, b = x1, m;
	struct ans_field f;

	while (o->iterations < s->max_iterations && !(fabs(b - a) <= s->tolerance)) {
		m = a + (b - a) / 2;
		if (m == a || m == b)
			break; /* adjacent doubles: as narrow as the bracket gets */
		if (evaluate(s, m, "/bracket", NULL, &f, err) != 0)
			return -1;
		o->iterations++;
		if (class_of(s, &f) == c0)
			a = m;
		else
			b = m;
	}
	o->converged = fabs(b - a) <= s->tolerance || a + (b - a) / 2 == a || a + (b - a) / 2 == b;
	o->value = b;
	o->lo = fmin(a, b);
	o->hi = fmax(a, b);
	return 0;
}

/* Brent's f(x) = field(x) - target for GSL; a failed point is remembered and NaN
 * stops the solver. */
struct brent_probe {
	const struct find_search *s;
	struct err *err;
	int failed;
};

static double brent_fn(double x, void *p)
{
	struct brent_probe *probe = p;
	struct ans_field f;

	if (probe->failed)
		return NAN;
	if (evaluate(probe->s, x, "/bracket", NULL, &f, probe->err) != 0) {
		probe->failed = 1;
		return NAN;
	}
	return f.real - probe->s->target;
}

/* GSL's Brent solver on field - target between x0 and x1, whose values are of
 * strictly opposite signs. */
static int solve_brent(
    const struct find_search *s, double x0, double x1, struct outcome *o, struct err *err)
{
	struct brent_probe probe = {s, err, 0};
	gsl_function fn = {brent_fn, &probe};
	gsl_root_fsolver *solver;
	int status = GSL_SUCCESS;

	o->lo = fmin(x0, x1);
	o->hi = fmax(x0, x1);
	solver = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
	if (!solver)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	/* GSL evaluates both ends again: they were valid a moment ago */
	if (gsl_root_fsolver_set(solver, &fn, o->lo, o->hi) != GSL_SUCCESS) {
		gsl_root_fsolver_free(solver);
		return probe.failed ? -1
		                    : err_set(err, ERR_INTERNAL, "", "GSL refused the bracket");
	}
	while (o->iterations < s->max_iterations && !o->converged) {
		status = gsl_root_fsolver_iterate(solver);
		if (status != GSL_SUCCESS)
			break;
		o->iterations++;
		o->lo = gsl_root_fsolver_x_lower(solver);
		o->hi = gsl_root_fsolver_x_upper(solver);
		o->converged = gsl_root_test_interval(o->lo, o->hi, s->tolerance, 0) == GSL_SUCCESS;
	}
	o->value = gsl_root_fsolver_root(solver);
	gsl_root_fsolver_free(solver);
	if (probe.failed)
		return -1;
	if (status != GSL_SUCCESS)
		return err_set(
		    err, ERR_INTERNAL, "", "GSL's Brent solver failed: %s", gsl_strerror(status));
	return 0;
}

/* The 422 of a bracket in which the scan saw no change of class: both ends' values,
 * and whether the field took one value at every point (the varied field does not
 * move it, e.g. a body's solref that the floor's priority overrides). */
static int no_crossing(const struct find_search *s, const struct ans_field *fa,
    const struct ans_field *fb, int constant, int cls, struct err *err)
{
	char ta[40], tb[40], what[64];

	field_text(s, fa, ta, sizeof ta);
	field_text(s, fb, tb, sizeof tb);
	if (s->type == ANS_BOOL)
		snprintf(what, sizeof what, "a change of %s", s->field);
	else
		snprintf(what, sizeof what, "%s = %.9g", s->field, s->target);
	if (constant)
		return err_set(err, ERR_BAD_VALUE, "/bracket",
		    "does not bracket %s: %s is %s at %s = %s and %s at %s, and the same at all "
		    "%d points tried: %s does not change %s there, so it does not cross the "
		    "target",
		    what, s->field, ta, s->ptr, JTEXT_NUM(s->bracket[0]), tb,
		    JTEXT_NUM(s->bracket[1]), s->scan + 1, s->ptr, s->field);
	if (s->type == ANS_BOOL)
		return err_set(err, ERR_BAD_VALUE, "/bracket",
		    "does not bracket %s: it is %s at %s = %s and %s at %s, and at all %d points "
		    "tried between",
		    what, ta, s->ptr, JTEXT_NUM(s->bracket[0]), tb, JTEXT_NUM(s->bracket[1]),
		    s->scan + 1);
	return err_set(err, ERR_BAD_VALUE, "/bracket",
	    "does not bracket %s: %s is %s at %s = %s and %s at %s, and %s it at all %d points "
	    "tried: the field does not cross the target there (a wider bracket, or a finer "
	    "\"scan\")",
	    what, s->field, ta, s->ptr, JTEXT_NUM(s->bracket[0]), tb, JTEXT_NUM(s->bracket[1]),
	    cls > 0       ? "above"
	        : cls < 0 ? "below"
	                  : "on",
	    s->scan + 1);
}

/* The first crossing from bracket[0] towards bracket[1]: the scan's points in order
 * until the class changes, then the solver inside that cell. A strict sign change
 * of a real field is Brent's (method brent); any other change (a boolean, an
 * integer, a field reaching or leaving the target exactly: a plateau's edge) is
 * bisection's on "still of the first point's class", which every method answers
 * alike. */
static int first_crossing(const struct find_search *s, struct outcome *o, struct err *err)
{
	struct ans_field f0, fi, fv;
	int c0, ci = 0, i, constant = 1;
	double x0, x1;

	if (evaluate(s, s->bracket[0], "/bracket/0", NULL, &f0, err) != 0)
		return -1;
	c0 = class_of(s, &f0);
	for (i = 1; i <= s->scan; i++) {
		if (evaluate(s, scan_point(s, i), i == s->scan ? "/bracket/1" : "/bracket", NULL,
		        &fi, err) != 0)
			return -1;
		ci = class_of(s, &fi);
		if (fi.type != f0.type || fi.integer != f0.integer ||
		    (fi.type == ANS_REAL && fi.real != f0.real))
			constant = 0;
		if (ci != c0)
			break;
	}
	if (i > s->scan)
		return no_crossing(s, &f0, &fi, constant, c0, err);
	x0 = scan_point(s, i - 1);
	x1 = scan_point(s, i);
	if (s->method == METHOD_BRENT && c0 != 0 && ci != 0) {
		if (solve_brent(s, x0, x1, o, err) != 0)
			return -1;
		/* Brent's root on the target exactly may lie inside a plateau on it: its
		 * edge on x0's side is the first crossing */
		if (evaluate(s, o->value, "/bracket", NULL, &fv, err) != 0)
			return -1;
		if (class_of(s, &fv) != 0)
			return 0;
		x1 = o->value;
		o->converged = 0;
	}
	return bisect_class(s, x0, x1, c0, o, err);
}

/* obj with answer's "mujoco" and "core_version" (ans_with_release()'s); NULL (obj
 * released) if obj is NULL or out of memory. */
static json_t *with_release_of(json_t *obj, const json_t *answer)
{
	if (obj &&
	    (json_object_set(obj, "mujoco", json_object_get(answer, "mujoco")) != 0 ||
	        json_object_set(obj, "core_version", json_object_get(answer, "core_version")) !=
	            0)) {
		json_decref(obj);
		return NULL;
	}
	return obj;
}

int find_run(const struct find_search *search, json_t **answer, struct err *err)
{
	const struct find_search *s = search;
	struct ans_field fv;
	struct outcome o = {0, 0, 0, 0, 0};
	json_t *at = NULL;
	int rc = -1;

	if (first_crossing(s, &o, err) != 0)
		goto out;
	if (evaluate(s, o.value, "/bracket", &at, &fv, err) != 0)
		goto out;
	/* the release the answer there was computed for (its "mujoco", "core_version") */
	*answer = with_release_of(
	    json_pack("{s:s, s:s, s:s, s:o, s:s, s:f, s:o, s:O, s:i, s:[f, f], s:b}", "query",
	        s->query->name, "path", s->ptr, "field", s->field, "target", target_json(s),
	        "method", method_names[s->method], "value", o.value, "field_value",
	        ans_field_json(&fv), "answer", at, "iterations", o.iterations, "bracket", o.lo,
	        o.hi, "converged", o.converged),
	    at);
	rc = *answer ? 0 : err_set(err, ERR_INTERNAL, "", "out of memory");
out:
	json_decref(at);
	return rc;
}

/* ---- the row: POST /v1/find ---- */

static int find_row_parse(
    json_t *body, const struct svc_limits *lim, void **request, struct err *err)
{
	(void)lim;
	return find_parse(body, (struct find_search **)request, err);
}

static json_t *find_row_canonical(const void *request)
{
	return find_search_json(request);
}

static int find_row_answer(
    const void *request, const struct svc_limits *lim, json_t **answer, struct err *err)
{
	(void)lim;
	return find_run(request, answer, err);
}

static void find_row_release(void *request)
{
	find_search_free(request);
}

const struct svc_endpoint_def svc_ep_find = {
    .name = "find",
    .summary = "where one answer field crosses a value as one request field varies",
    .units = "value in the varied field's unit, field_value in the answer field's",
    .parse = find_row_parse,
    .canonical = find_row_canonical,
    .answer = find_row_answer,
    .release = find_row_release,
};
