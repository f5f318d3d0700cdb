/*
 * eval.c: the seed lesson's functions (core/law.h, core/scene.h, core/growth.h)
 * by name, one call or a batch whose calls answer or fail one by one.
 */
#include "service/eval.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/jtext.h"
#include "core/growth.h"
#include "core/law.h"
#include "core/mjver.h"
#include "core/scene.h"
#include "service/answer.h"
#include "service/endpoint.h"
#include "base/field.h"
#include "base/jsonptr.h"
#include "service/request.h"
#include "core/knobs.h"
#include "service/knobs.h"

/* Every argument any function takes; each function reads its own. */
struct args {
	double r, dist, vel, a0, a_u, dmax, h, k, c, timeconst, dampratio, dt, d, d_w, x0, v0;
	double solref[2], solimp[5];
	int refsafe;
	enum core_scene_integrator integrator;
	int steps;
	int accel;  /* semi_implicit_euler: index in accel_functions */
	int mujoco; /* not an argument: the release whose rules apply (an mjver index) */
};

enum arg_kind {
	ARG_REAL,       /* any finite number */
	ARG_POSITIVE,   /* a number > 0 (a timestep, the lesson's solref numbers) */
	ARG_IMPEDANCE,  /* a number in MuJoCo's impedance range [MJ_MINIMP, MJ_MAXIMP] */
	ARG_SOLREF,     /* two finite numbers, either form */
	ARG_SOLIMP,     /* five finite numbers, clamped as MuJoCo does */
	ARG_REFSAFE,    /* boolean, default true */
	ARG_INTEGRATOR, /* MJCF integrator name, default "Euler" */
	ARG_STEPS,      /* an integer in [0, LIMIT_MAX_EVAL_STEPS] */
	ARG_ACCEL,      /* {"function": NAME, "args": {...}} from accel_functions */
};

struct arg_spec {
	const char *name;
	enum arg_kind kind;
	size_t offset; /* in struct args */
};

#define MAX_ARGS 7
#define ARG(name, kind)                                                                            \
	{                                                                                          \
#name, kind, offsetof(struct args, name)                                           \
	}

/* Writes a call's outputs into result; -1 only when out of memory. */
typedef int (*run_fn)(const struct args *a, json_t *result, int *diverged);

struct function_spec {
	const char *name;
	struct arg_spec args[MAX_ARGS];
	size_t nargs;
	run_fn run;
};

/* Put one named number into result: null when it does not exist (exists == 0), or
 * null and *diverged when it is not finite. */
static int put_real(json_t *result, const char *name, double value, int exists, int *diverged)
{
	if (exists && !isfinite(value))
		*diverged = 1;
	return json_object_set_new(
	    result, name, exists && isfinite(value) ? json_real(value) : json_null());
}

/* Put an array of n numbers, each non-finite one null (and *diverged). */
static int put_series(
    json_t *result, const char *name, const double *values, size_t n, int *diverged)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; list && i < n; i++) {
		if (!isfinite(values[i]))
			*diverged = 1;
		if (json_array_append_new(
		        list, isfinite(values[i]) ? json_real(values[i]) : json_null()) != 0) {
			json_decref(list);
			list = NULL;
		}
	}
	return list ? json_object_set_new(result, name, list) : -1;
}

/* The call's solimp as its release computes it. */
static void solimp_of(const struct args *a, struct core_law_solimp *s)
{
	struct core_mjver_rules rules;

	core_mjver_rules(a->mujoco, &rules);
	core_law_solimp_release(a->solimp, rules.power_shortcut, s);
}

static int run_impedance(const struct args *a, json_t *result, int *diverged)
{
	struct core_law_solimp s;
	double derivative, value;

	solimp_of(a, &s);
	value = core_law_impedance(a->r, &s, &derivative);
	return put_real(result, "value", value, 1, diverged) ||
	    put_real(result, "derivative", derivative, 1, diverged);
}

static int run_solref_kb(const struct args *a, json_t *result, int *diverged)
{
	struct core_law_gains g;

	/* MuJoCo's dmax is solimp[1] after its clamp: a dmax of 1 (or 0) is never seen */
	core_law_solref_kb(a->solref, core_law_impedance_clamp(a->dmax), a->h, a->refsafe, &g);
	return put_real(result, "K", g.K, 1, diverged) || put_real(result, "B", g.B, 1, diverged) ||
	    put_real(result, "timeconst_used", g.timeconst_used, !g.direct, diverged);
}

/* The lesson's core idea: b = 2/(d_w*timeconst), k = d/(d_w^2*timeconst^2*dampratio^2).
 * These are the core's solref_kb gains without refsafe (B = b, K = k/d): the spring at
 * the time constant given, scaled by the impedance d MuJoCo applies in aref. Answered
 * in the names every other answer uses: B (the lesson's b, the same quantity as rest's,
 * stability's and solref_kb's B) and K_imp (the lesson's k: K times the impedance d,
 * MuJoCo's K*imp in aref; not K, which it equals only at d = 1). */
static int run_solref_to_spring(const struct args *a, json_t *result, int *diverged)
{
	const double solref[2] = {a->timeconst, a->dampratio};
	struct core_law_gains g;

	core_law_solref_kb(solref, a->d_w, DEFAULT_TIMESTEP /* unused: refsafe off */, 0, &g);
	return put_real(result, "B", g.B, 1, diverged) ||
	    put_real(result, "K_imp", a->d * g.K, 1, diverged);
}

/* Step 2's a_ref = -B*vel - K*d*dist, d = impedance(dist): null while dist >= 0,
 * where MuJoCo has no constraint row (and so no efc_aref). */
static int run_a_ref(const struct args *a, json_t *result, int *diverged)
{
	struct core_law_solimp s;
	struct core_law_gains g;
	double imp;

	solimp_of(a, &s);
	core_law_solref_kb(a->solref, s.dwidth, a->h, a->refsafe, &g);
	imp = core_law_impedance(a->dist, &s, NULL);
	return put_real(
	    result, "value", core_law_aref(&g, imp, a->dist, a->vel), a->dist < 0, diverged);
}

static int run_contact_accel(const struct args *a, json_t *result, int *diverged)
{
	struct core_law_solimp s;

	solimp_of(a, &s);
	return put_real(result, "value",
	    core_law_contact_accel(a->dist, a->vel, a->a0, a->solref, &s, a->h, a->refsafe), 1,
	    diverged);
}

static int run_resting_penetration(const struct args *a, json_t *result, int *diverged)
{
	struct core_law_solimp s;
	double r = 0;
	int found;

	solimp_of(a, &s);
	found = core_law_resting_penetration(a->a_u, a->solref, &s, a->h, a->refsafe, &r) == 0;
	return put_real(result, "value", r, found, diverged);
}

static int run_step_growth(const struct args *a, json_t *result, int *diverged)
{
	return put_real(
	    result, "value", core_growth_step(a->k, a->c, a->h, a->integrator), 1, diverged);
}

static int run_error_reduction(const struct args *a, json_t *result, int *diverged)
{
	return put_real(result, "value", core_law_error_reduction(a->timeconst, a->dampratio, a->dt),
	    1, diverged);
}

/* The accelerations semi_implicit_euler can integrate: the state (x, v) is the
 * function's (dist, vel) and the step's h is its h. */
enum { ACCEL_CONTACT, ACCEL_SPRING };
static const struct function_spec accel_functions[] = {
    [ACCEL_CONTACT] = {"contact_accel",
        {ARG(a0, ARG_REAL), ARG(solref, ARG_SOLREF), ARG(solimp, ARG_SOLIMP),
            ARG(refsafe, ARG_REFSAFE)},
        4, NULL},
    /* the linear spring of step_growth: a = -c*v - k*x */
    [ACCEL_SPRING] = {"spring", {ARG(k, ARG_REAL), ARG(c, ARG_REAL)}, 2, NULL},
};

#define NACCEL ((int)(sizeof accel_functions / sizeof accel_functions[0]))

static double accel_at(const struct args *a, const struct core_law_solimp *s, double x, double v)
{
	if (a->accel == ACCEL_CONTACT)
		return core_law_contact_accel(x, v, a->a0, a->solref, s, a->h, a->refsafe);
	return -a->c * v - a->k * x;
}

/* Lesson 02's integrator, the core's core_scene_euler step: x and v at the start and
 * after each of the steps. */
static int run_semi_implicit_euler(const struct args *a, json_t *result, int *diverged)
{
	size_t n = (size_t)a->steps + 1, i;
	double *x = malloc(n * sizeof *x), *v = malloc(n * sizeof *v);
	struct core_law_solimp s;
	int rc = -1;

	if (!x || !v)
		goto out;
	solimp_of(a, &s);
	x[0] = a->x0;
	v[0] = a->v0;
	for (i = 1; i < n; i++) {
		x[i] = x[i - 1];
		v[i] = v[i - 1];
		core_scene_euler(&x[i], &v[i], accel_at(a, &s, x[i], v[i]), a->h);
	}
	rc = put_series(result, "x", x, n, diverged) || put_series(result, "v", v, n, diverged) ? -1
	                                                                                        : 0;
out:
	free(x);
	free(v);
	return rc;
}

static const struct function_spec functions[] = {
    {"impedance", {ARG(r, ARG_REAL), ARG(solimp, ARG_SOLIMP)}, 2, run_impedance},
    {"solref_kb",
        {ARG(solref, ARG_SOLREF), ARG(dmax, ARG_REAL), ARG(h, ARG_POSITIVE),
            ARG(refsafe, ARG_REFSAFE)},
        4, run_solref_kb},
    {"solref_to_spring",
        {ARG(timeconst, ARG_POSITIVE), ARG(dampratio, ARG_POSITIVE), ARG(d, ARG_IMPEDANCE),
            ARG(d_w, ARG_IMPEDANCE)},
        4, run_solref_to_spring},
    {"a_ref",
        {ARG(dist, ARG_REAL), ARG(vel, ARG_REAL), ARG(solref, ARG_SOLREF), ARG(solimp, ARG_SOLIMP),
            ARG(h, ARG_POSITIVE), ARG(refsafe, ARG_REFSAFE)},
        6, run_a_ref},
    {"contact_accel",
        {ARG(dist, ARG_REAL), ARG(vel, ARG_REAL), ARG(a0, ARG_REAL), ARG(solref, ARG_SOLREF),
            ARG(solimp, ARG_SOLIMP), ARG(h, ARG_POSITIVE), ARG(refsafe, ARG_REFSAFE)},
        7, run_contact_accel},
    {"resting_penetration",
        {ARG(a_u, ARG_REAL), ARG(solref, ARG_SOLREF), ARG(solimp, ARG_SOLIMP), ARG(h, ARG_POSITIVE),
            ARG(refsafe, ARG_REFSAFE)},
        5, run_resting_penetration},
    {"semi_implicit_euler",
        {ARG(x0, ARG_REAL), ARG(v0, ARG_REAL), ARG(h, ARG_POSITIVE), ARG(steps, ARG_STEPS),
            ARG(accel, ARG_ACCEL)},
        5, run_semi_implicit_euler},
    {"step_growth",
        {ARG(k, ARG_REAL), ARG(c, ARG_REAL), ARG(h, ARG_POSITIVE), ARG(integrator, ARG_INTEGRATOR)},
        4, run_step_growth},
    {"error_reduction", {ARG(timeconst, ARG_REAL), ARG(dampratio, ARG_REAL), ARG(dt, ARG_POSITIVE)},
        3, run_error_reduction},
};

#define NFUNCTIONS ((int)(sizeof functions / sizeof functions[0]))

/* One validated call. */
struct call {
	const struct function_spec *function;
	struct args args;
	json_t *id; /* borrowed from the request; NULL when the call has none */
};

static int parse_invocation(const struct field_ctx *c, const struct function_spec *table, int n,
    const struct function_spec **chosen, struct args *a);

static int parse_arg(const struct field_ctx *c, const struct arg_spec *spec, struct args *a)
{
	void *field = (char *)a + spec->offset;
	struct field_ctx nested;
	double x;

	/* only the lesson's keyword arguments have defaults */
	if (spec->kind != ARG_REFSAFE && spec->kind != ARG_INTEGRATOR &&
	    field_require(c, spec->name) != 0)
		return -1;
	switch (spec->kind) {
	case ARG_REAL:
		return field_number(c, spec->name, field);
	case ARG_POSITIVE:
		if (field_number(c, spec->name, field) != 0)
			return -1;
		x = *(double *)field;
		if (!(x > 0))
			return field_fail(
			    c, spec->name, -1, ERR_BAD_VALUE, "must be > 0, not %s", JTEXT_NUM(x));
		return 0;
	case ARG_IMPEDANCE:
		if (field_number(c, spec->name, field) != 0)
			return -1;
		x = *(double *)field;
		if (!(x >= MJ_MINIMP && x <= MJ_MAXIMP))
			return field_fail(c, spec->name, -1, ERR_BAD_VALUE,
			    "must be within MuJoCo's impedance range [%g, %g], not %s", MJ_MINIMP,
			    MJ_MAXIMP, JTEXT_NUM(x));
		return 0;
	case ARG_SOLREF:
		return field_numbers(c, spec->name, 2, field);
	case ARG_SOLIMP:
		return field_numbers(c, spec->name, 5, field);
	case ARG_REFSAFE:
		*(int *)field = 1;
		return field_bool(c, spec->name, field);
	case ARG_INTEGRATOR:
		*(enum core_scene_integrator *)field = CORE_SCENE_EULER;
		return req_integrator(c, spec->name, field);
	case ARG_STEPS:
		if (field_int(c, spec->name, field) != 0)
			return -1;
		if (*(int *)field < 0)
			return field_fail(c, spec->name, -1, ERR_BAD_VALUE, "must be >= 0, not %d",
			    *(int *)field);
		if (*(int *)field > LIMIT_MAX_EVAL_STEPS)
			return field_fail(c, spec->name, -1, ERR_TOO_LARGE,
			    "%d steps are over the limit of %d", *(int *)field,
			    LIMIT_MAX_EVAL_STEPS);
		return 0;
	default: {
		const struct function_spec *accel;
		if (field_object(c, spec->name, &nested) != 0 ||
		    parse_invocation(&nested, accel_functions, NACCEL, &accel, a) != 0)
			return -1;
		*(int *)field = (int)(accel - accel_functions);
		return 0;
	}
	}
}

/* The function named in c's "function" (one of table) and its "args" into *a. */
static int parse_invocation(const struct field_ctx *c, const struct function_spec *table, int n,
    const struct function_spec **chosen, struct args *a)
{
	const char *names[NFUNCTIONS], *arg_names[MAX_ARGS + 1];
	struct field_ctx args;
	int index = 0, i;
	size_t j;

	for (i = 0; i < n; i++)
		names[i] = table[i].name;
	if (field_require(c, "function") != 0 || field_choice(c, "function", names, n, &index) != 0)
		return -1;
	*chosen = &table[index];
	if (field_object(c, "args", &args) != 0)
		return -1;
	for (j = 0; j < (*chosen)->nargs; j++)
		arg_names[j] = (*chosen)->args[j].name;
	arg_names[j] = NULL;
	if (field_known(&args, arg_names) != 0)
		return -1;
	for (j = 0; j < (*chosen)->nargs; j++)
		if (parse_arg(&args, &(*chosen)->args[j], a) != 0)
			return -1;
	return 0;
}

/* The call v at path; its release is its "mujoco", or release when it names none. */
static int parse_call(json_t *v, const char *path, int release, struct call *out, struct err *err)
{
	static const char *const known[] = {"function", "args", "id", "mujoco", NULL};
	struct field_ctx c;
	json_t *id;

	memset(out, 0, sizeof *out); /* every function reads only its own arguments */
	out->args.mujoco = release;
	if (field_root(&c, v, path, err) != 0 || field_known(&c, known) != 0)
		return -1;
	id = json_object_get(v, "id");
	if (id && !json_is_string(id) && !json_is_number(id))
		return field_fail(&c, "id", -1, ERR_BAD_TYPE, "must be a string or a number");
	out->id = id;
	if (req_mujoco(&c, "mujoco", &out->args.mujoco) != 0)
		return -1;
	return parse_invocation(&c, functions, NFUNCTIONS, &out->function, &out->args);
}

static json_t *invocation_json(const struct function_spec *spec, const struct args *a);

static json_t *arg_json(const struct arg_spec *spec, const struct args *a)
{
	const void *field = (const char *)a + spec->offset;

	switch (spec->kind) {
	case ARG_REAL:
	case ARG_POSITIVE:
	case ARG_IMPEDANCE:
		return json_real(*(const double *)field);
	case ARG_SOLREF:
		return field_reals(field, 2);
	case ARG_SOLIMP:
		return field_reals(field, 5);
	case ARG_REFSAFE:
		return json_boolean(*(const int *)field);
	case ARG_INTEGRATOR:
		return json_string(req_integrator_name(*(const enum core_scene_integrator *)field));
	case ARG_STEPS:
		return json_integer(*(const int *)field);
	default:
		return invocation_json(&accel_functions[*(const int *)field], a);
	}
}

/* {"function": NAME, "args": {every argument}}: the canonical form of a call. */
static json_t *invocation_json(const struct function_spec *spec, const struct args *a)
{
	json_t *args = json_object();
	size_t j;

	for (j = 0; args && j < spec->nargs; j++) {
		if (json_object_set_new(args, spec->args[j].name, arg_json(&spec->args[j], a)) !=
		    0) {
			json_decref(args);
			return NULL;
		}
	}
	return args ? json_pack("{s:s, s:o}", "function", spec->name, "args", args) : NULL;
}

/* Add the call's id, if it has one, to obj (NULL stays NULL). */
static json_t *with_id(json_t *obj, json_t *id)
{
	if (obj && id && json_object_set(obj, "id", id) != 0) {
		json_decref(obj);
		return NULL;
	}
	return obj;
}

/* The canonical form of a call: its invocation, id and release. */
static json_t *call_json(const struct call *call)
{
	json_t *out = with_id(invocation_json(call->function, &call->args), call->id);

	if (out &&
	    json_object_set_new(out, "mujoco", json_string(core_mjver_name(call->args.mujoco))) !=
	        0) {
		json_decref(out);
		return NULL;
	}
	return out;
}

static json_t *result_json(const struct call *call)
{
	json_t *result = json_object();
	int diverged = 0;

	if (!result || call->function->run(&call->args, result, &diverged) != 0 ||
	    (diverged && json_object_set_new(result, "diverged", json_true()) != 0)) {
		json_decref(result);
		return NULL;
	}
	return ans_with_release(
	    with_id(json_pack("{s:s, s:o}", "function", call->function->name, "result", result),
	        call->id),
	    call->args.mujoco);
}

/* A batch's failed call: eval's, and grade's calls without a value. */
json_t *eval_failure_json(const json_t *raw, const struct err *e)
{
	json_t *out = err_to_json(e), *id = json_object_get(raw, "id");
	json_t *function = json_object_get(raw, "function");

	if (out && json_object_set_new(out, "status", json_integer(err_status(e->code))) != 0)
		goto fail;
	if (out && id && (json_is_string(id) || json_is_number(id)) &&
	    json_object_set(out, "id", id) != 0)
		goto fail;
	if (out && json_is_string(function) && json_object_set(out, "function", function) != 0)
		goto fail;
	return out;
fail:
	json_decref(out);
	return NULL;
}

/* One call of a request as parsed: valid, or the error it gave. */
struct eval_entry {
	struct call call; /* when err.code is ERR_NONE; call.id is a reference of our own */
	json_t *raw;      /* the call as written (our reference), for a failed call */
	struct err err;
};

struct eval_request {
	int batch;  /* {"calls": [...]}; else one call, entries[0] */
	int mujoco; /* the batch's "mujoco" or the default; a single call's release */
	size_t count;
	struct eval_entry *entries;
	long failed;
};

void eval_request_free(struct eval_request *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->count; i++) {
		json_decref(r->entries[i].call.id);
		json_decref(r->entries[i].raw);
	}
	free(r->entries);
	free(r);
}

/* A new request of count entries (at least one allocated), or NULL. */
static struct eval_request *request_new(int batch, size_t count)
{
	struct eval_request *r = calloc(1, sizeof *r);

	if (!r)
		return NULL;
	r->batch = batch;
	r->entries = calloc(count ? count : 1, sizeof *r->entries);
	if (!r->entries) {
		free(r);
		return NULL;
	}
	return r;
}

/*
 * The one parse of a request. A single call's error fails the request; in a batch
 * each call is parsed on its own, and a call that fails is kept as it was written
 * (its canonical form; parsing it again gives the same error) with its error (its
 * answer). Only the envelope ({"calls": [...]}, its limits) and internal errors
 * fail a batch.
 */
int eval_parse(json_t *body, long max_calls, struct eval_request **out, struct err *err)
{
	static const char *const known[] = {"calls", "mujoco", NULL};
	struct eval_request *r;
	struct eval_entry *e;
	struct field_ctx c;
	char path[ERR_PATH_MAX];
	json_t *list, *element;
	long steps = 0;
	size_t i;
	int release;

	if (!json_object_get(body, "calls")) {
		r = request_new(0, 1);
		if (!r)
			return err_set(err, ERR_INTERNAL, "", "out of memory");
		if (parse_call(body, "", core_mjver_default(), &r->entries[0].call, err) != 0) {
			eval_request_free(r);
			return -1;
		}
		r->count = 1;
		r->mujoco = r->entries[0].call.args.mujoco;
		json_incref(r->entries[0].call.id);
		*out = r;
		return 0;
	}
	release = core_mjver_default();
	if (field_root(&c, body, "", err) != 0 || field_known(&c, known) != 0 ||
	    req_mujoco(&c, "mujoco", &release) != 0)
		return -1;
	list = json_object_get(body, "calls");
	if (!json_is_array(list))
		return field_fail(&c, "calls", -1, ERR_BAD_TYPE, "must be an array of calls");
	if (json_array_size(list) > (size_t)max_calls)
		return field_fail(&c, "calls", -1, ERR_TOO_LARGE,
		    "%zu calls are over the limit of %ld: split them into batches of at most %ld "
		    "calls",
		    json_array_size(list), max_calls, max_calls);
	r = request_new(1, json_array_size(list));
	if (!r)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	r->mujoco = release;
	json_array_foreach (list, i, element) {
		e = &r->entries[r->count++];
		field_path(&c, "calls", path);
		jptr_append_index(path, sizeof path, path, i);
		err_clear(&e->err);
		if (parse_call(element, path, release, &e->call, &e->err) != 0) {
			e->call.id = NULL;
			if (e->err.code == ERR_INTERNAL) {
				*err = e->err;
				eval_request_free(r);
				return -1;
			}
			r->failed++;
			e->raw = json_incref(element);
			continue;
		}
		json_incref(e->call.id);
		if (e->call.function->run == run_semi_implicit_euler)
			steps += e->call.args.steps;
		if (steps > LIMIT_MAX_EVAL_BATCH_STEPS) {
			eval_request_free(r);
			return field_fail(&c, "calls", -1, ERR_TOO_LARGE,
			    "the calls integrate over %ld steps in all, the limit",
			    LIMIT_MAX_EVAL_BATCH_STEPS);
		}
	}
	*out = r;
	return 0;
}

/* What a pass over a parsed request builds: the canonical request or the answer. */
enum pass { PASS_CANONICAL, PASS_ANSWER };

static json_t *entry_output(enum pass pass, const struct eval_entry *e)
{
	if (e->err.code != ERR_NONE)
		return pass == PASS_CANONICAL ? json_incref(e->raw) : eval_failure_json(e->raw, &e->err);
	return pass == PASS_CANONICAL ? call_json(&e->call) : result_json(&e->call);
}

static json_t *build(const struct eval_request *r, enum pass pass)
{
	json_t *entries;
	size_t i;

	if (!r->batch)
		return entry_output(pass, &r->entries[0]);
	entries = json_array();
	for (i = 0; entries && i < r->count; i++) {
		if (json_array_append_new(entries, entry_output(pass, &r->entries[i])) != 0) {
			json_decref(entries);
			entries = NULL;
		}
	}
	if (!entries)
		return NULL;
	if (pass == PASS_CANONICAL)
		return json_pack(
		    "{s:o, s:s}", "calls", entries, "mujoco", core_mjver_name(r->mujoco));
	return ans_with_release(
	    json_pack("{s:o, s:I}", "results", entries, "failed", (json_int_t)r->failed),
	    r->mujoco);
}

json_t *eval_request_json(const struct eval_request *r)
{
	return build(r, PASS_CANONICAL);
}

int eval_run(const struct eval_request *r, json_t **answer, struct err *err)
{
	*answer = build(r, PASS_ANSWER);
	return *answer ? 0 : err_set(err, ERR_INTERNAL, "", "out of memory");
}

/* ---- the row: POST /v1/eval ---- */

static int eval_row_parse(
    json_t *body, const struct svc_limits *lim, void **request, struct err *err)
{
	return eval_parse(body, lim->max_eval_calls, (struct eval_request **)request, err);
}

static json_t *eval_row_canonical(const void *request)
{
	return eval_request_json(request);
}

static int eval_row_answer(
    const void *request, const struct svc_limits *lim, json_t **answer, struct err *err)
{
	(void)lim;
	return eval_run(request, answer, err);
}

static void eval_row_release(void *request)
{
	eval_request_free(request);
}

const struct svc_endpoint_def svc_ep_eval = {
    .name = "eval",
    .summary = "the lesson's functions by name, one call or a batch",
    .units = "SI, as the lesson's: K 1/s^2, B 1/s, accelerations m/s^2, r m",
    .parse = eval_row_parse,
    .canonical = eval_row_canonical,
    .answer = eval_row_answer,
    .release = eval_row_release,
    .batch = 1,
};
