/*
 * eval.c: the seed lesson's functions (core/law.h, core/growth.h) by name.
 */
#include "service/eval.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "core/growth.h"
#include "core/law.h"
#include "service/field.h"
#include "service/jsonptr.h"
#include "service/request.h"

/* Every argument any function takes; each function reads its own. */
struct args {
	double r, dist, vel, a0, a_u, dmax, h, k, c, timeconst, dampratio, dt;
	double solref[2], solimp[5];
	int refsafe;
	enum scene_integrator integrator;
};

enum arg_kind {
	ARG_REAL,       /* any finite number */
	ARG_STEP,       /* a timestep: a number > 0 */
	ARG_SOLREF,     /* two finite numbers, either form */
	ARG_SOLIMP,     /* five finite numbers, clamped as MuJoCo does */
	ARG_REFSAFE,    /* boolean, default true */
	ARG_INTEGRATOR, /* MJCF integrator name, default "Euler" */
};

struct arg_spec {
	const char *name;
	enum arg_kind kind;
	size_t offset; /* in struct args */
};

/* Up to three named outputs of one call. */
struct outputs {
	const char *name[3];
	double value[3];
	int exists[3]; /* 0: null because there is no such value (not divergence) */
	size_t count;
};

#define MAX_ARGS 7
#define ARG(name, kind)                                                                            \
	{                                                                                          \
#name, kind, offsetof(struct args, name)                                           \
	}

struct function_spec {
	const char *name;
	struct arg_spec args[MAX_ARGS];
	size_t nargs;
	void (*run)(const struct args *a, struct outputs *out);
};

static void output(struct outputs *out, const char *name, double value, int exists)
{
	out->name[out->count] = name;
	out->value[out->count] = value;
	out->exists[out->count] = exists;
	out->count++;
}

static void run_impedance(const struct args *a, struct outputs *out)
{
	struct law_solimp s;
	double derivative, value;

	law_solimp_clamp(a->solimp, &s);
	value = law_impedance(a->r, &s, &derivative);
	output(out, "value", value, 1);
	output(out, "derivative", derivative, 1);
}

static void run_solref_kb(const struct args *a, struct outputs *out)
{
	struct law_gains g;

	/* MuJoCo's dmax is solimp[1] after its clamp: a dmax of 1 (or 0) is never seen */
	law_solref_kb(a->solref, law_impedance_clamp(a->dmax), a->h, a->refsafe, &g);
	output(out, "K", g.K, 1);
	output(out, "B", g.B, 1);
	output(out, "timeconst_used", g.timeconst_used, !g.direct);
}

static void run_contact_accel(const struct args *a, struct outputs *out)
{
	struct law_solimp s;

	law_solimp_clamp(a->solimp, &s);
	output(out, "value",
	    law_contact_accel(a->dist, a->vel, a->a0, a->solref, &s, a->h, a->refsafe), 1);
}

static void run_resting_penetration(const struct args *a, struct outputs *out)
{
	struct law_solimp s;
	double r = 0;
	int found;

	law_solimp_clamp(a->solimp, &s);
	found = law_resting_penetration(a->a_u, a->solref, &s, a->h, a->refsafe, &r) == 0;
	output(out, "value", r, found);
}

static void run_step_growth(const struct args *a, struct outputs *out)
{
	output(out, "value", growth_step(a->k, a->c, a->h, a->integrator), 1);
}

static void run_error_reduction(const struct args *a, struct outputs *out)
{
	output(out, "value", law_error_reduction(a->timeconst, a->dampratio, a->dt), 1);
}

static const struct function_spec functions[] = {
    {"impedance", {ARG(r, ARG_REAL), ARG(solimp, ARG_SOLIMP)}, 2, run_impedance},
    {"solref_kb",
        {ARG(solref, ARG_SOLREF), ARG(dmax, ARG_REAL), ARG(h, ARG_STEP), ARG(refsafe, ARG_REFSAFE)},
        4, run_solref_kb},
    {"contact_accel",
        {ARG(dist, ARG_REAL), ARG(vel, ARG_REAL), ARG(a0, ARG_REAL), ARG(solref, ARG_SOLREF),
            ARG(solimp, ARG_SOLIMP), ARG(h, ARG_STEP), ARG(refsafe, ARG_REFSAFE)},
        7, run_contact_accel},
    {"resting_penetration",
        {ARG(a_u, ARG_REAL), ARG(solref, ARG_SOLREF), ARG(solimp, ARG_SOLIMP), ARG(h, ARG_STEP),
            ARG(refsafe, ARG_REFSAFE)},
        5, run_resting_penetration},
    {"step_growth",
        {ARG(k, ARG_REAL), ARG(c, ARG_REAL), ARG(h, ARG_STEP), ARG(integrator, ARG_INTEGRATOR)}, 4,
        run_step_growth},
    {"error_reduction", {ARG(timeconst, ARG_REAL), ARG(dampratio, ARG_REAL), ARG(dt, ARG_STEP)}, 3,
        run_error_reduction},
};

#define NFUNCTIONS ((int)(sizeof functions / sizeof functions[0]))

/* One validated call. */
struct call {
	const struct function_spec *function;
	struct args args;
};

static int parse_arg(const struct field_ctx *c, const struct arg_spec *spec, struct args *a)
{
	void *field = (char *)a + spec->offset;

	/* only the lesson's keyword arguments have defaults */
	if (spec->kind != ARG_REFSAFE && spec->kind != ARG_INTEGRATOR &&
	    field_require(c, spec->name) != 0)
		return -1;
	switch (spec->kind) {
	case ARG_REAL:
		return field_number(c, spec->name, field);
	case ARG_STEP:
		if (field_number(c, spec->name, field) != 0)
			return -1;
		if (!(*(double *)field > 0))
			return field_fail(c, spec->name, -1, ERR_BAD_VALUE,
			    "must be > 0, not %.17g", *(double *)field);
		return 0;
	case ARG_SOLREF:
		return field_numbers(c, spec->name, 2, field);
	case ARG_SOLIMP:
		return field_numbers(c, spec->name, 5, field);
	case ARG_REFSAFE:
		*(int *)field = 1;
		return field_bool(c, spec->name, field);
	default:
		*(enum scene_integrator *)field = SCENE_EULER;
		return req_integrator(c, spec->name, field);
	}
}

static int parse_call(json_t *v, const char *path, struct call *out, struct err *err)
{
	static const char *const known[] = {"function", "args", NULL};
	const char *names[NFUNCTIONS], *arg_names[MAX_ARGS + 1];
	struct field_ctx c, args;
	int index = 0, i;
	size_t j;

	for (i = 0; i < NFUNCTIONS; i++)
		names[i] = functions[i].name;
	if (field_root(&c, v, path, err) != 0 || field_known(&c, known) != 0 ||
	    field_require(&c, "function") != 0 ||
	    field_choice(&c, "function", names, NFUNCTIONS, &index) != 0)
		return -1;
	out->function = &functions[index];
	if (field_object(&c, "args", &args) != 0)
		return -1;
	for (j = 0; j < out->function->nargs; j++)
		arg_names[j] = out->function->args[j].name;
	arg_names[j] = NULL;
	if (field_known(&args, arg_names) != 0)
		return -1;
	for (j = 0; j < out->function->nargs; j++)
		if (parse_arg(&args, &out->function->args[j], &out->args) != 0)
			return -1;
	return 0;
}

/* Parse a single call or a batch into *calls (caller frees), *count of them,
 * *batch = 1 for {"calls": [...]}. */
static int parse_request(
    json_t *body, long max_calls, struct call **calls, size_t *count, int *batch, struct err *err)
{
	static const char *const known[] = {"calls", NULL};
	struct field_ctx c;
	char path[ERR_PATH_MAX];
	json_t *list;
	size_t i;

	*calls = NULL;
	*count = 0;
	*batch = json_object_get(body, "calls") != NULL;
	if (!*batch) {
		*calls = calloc(1, sizeof **calls);
		if (!*calls)
			return err_set(err, ERR_INTERNAL, "", "out of memory");
		*count = 1;
		return parse_call(body, "", *calls, err);
	}
	if (field_root(&c, body, "", err) != 0 || field_known(&c, known) != 0)
		return -1;
	list = json_object_get(body, "calls");
	if (!json_is_array(list))
		return field_fail(&c, "calls", -1, ERR_BAD_TYPE, "must be an array of calls");
	if (json_array_size(list) > (size_t)max_calls)
		return field_fail(&c, "calls", -1, ERR_TOO_LARGE,
		    "%zu calls are over the limit of %ld", json_array_size(list), max_calls);
	*count = json_array_size(list);
	/* calloc(0) may return NULL: allocate at least one */
	*calls = calloc(*count ? *count : 1, sizeof **calls);
	if (!*calls)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	for (i = 0; i < *count; i++) {
		field_path(&c, "calls", path);
		jptr_append_index(path, sizeof path, path, i);
		if (parse_call(json_array_get(list, i), path, &(*calls)[i], err) != 0)
			return -1;
	}
	return 0;
}

static json_t *arg_json(const struct arg_spec *spec, const struct args *a)
{
	const void *field = (const char *)a + spec->offset;

	switch (spec->kind) {
	case ARG_REAL:
	case ARG_STEP:
		return json_real(*(const double *)field);
	case ARG_SOLREF:
		return field_reals(field, 2);
	case ARG_SOLIMP:
		return field_reals(field, 5);
	case ARG_REFSAFE:
		return json_boolean(*(const int *)field);
	default:
		return json_string(req_integrator_name(*(const enum scene_integrator *)field));
	}
}

static json_t *call_json(const struct call *call)
{
	json_t *args = json_object();
	size_t j;

	for (j = 0; args && j < call->function->nargs; j++) {
		const struct arg_spec *spec = &call->function->args[j];
		if (json_object_set_new(args, spec->name, arg_json(spec, &call->args)) != 0) {
			json_decref(args);
			return NULL;
		}
	}
	return args ? json_pack("{s:s, s:o}", "function", call->function->name, "args", args)
	            : NULL;
}

static json_t *result_json(const struct call *call)
{
	struct outputs out = {{NULL}, {0}, {0}, 0};
	json_t *result = json_object();
	int diverged = 0;
	size_t i;

	call->function->run(&call->args, &out);
	for (i = 0; result && i < out.count; i++) {
		int finite = isfinite(out.value[i]);
		json_t *value = out.exists[i] && finite ? json_real(out.value[i]) : json_null();
		if (out.exists[i] && !finite)
			diverged = 1;
		if (json_object_set_new(result, out.name[i], value) != 0)
			goto fail;
	}
	if (result && diverged && json_object_set_new(result, "diverged", json_true()) != 0)
		goto fail;
	return result ? json_pack("{s:s, s:o}", "function", call->function->name, "result", result)
	              : NULL;
fail:
	json_decref(result);
	return NULL;
}

/* Build the batch or single form from one JSON object per call. */
static int assemble(const struct call *calls, size_t count, int batch,
    json_t *(*one)(const struct call *), const char *list_key, json_t **out, struct err *err)
{
	json_t *list = NULL;
	size_t i;

	if (!batch) {
		*out = one(&calls[0]);
	} else {
		list = json_array();
		for (i = 0; list && i < count; i++) {
			if (json_array_append_new(list, one(&calls[i])) != 0) {
				json_decref(list);
				list = NULL;
			}
		}
		*out = list ? json_pack("{s:o}", list_key, list) : NULL;
	}
	if (!*out)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	return 0;
}

int eval_canonical(json_t *body, long max_calls, json_t **canonical, struct err *err)
{
	struct call *calls;
	size_t count;
	int batch, rc = -1;

	if (parse_request(body, max_calls, &calls, &count, &batch, err) == 0)
		rc = assemble(calls, count, batch, call_json, "calls", canonical, err);
	free(calls);
	return rc;
}

int eval_answer(json_t *canonical, long max_calls, json_t **answer, struct err *err)
{
	struct call *calls;
	size_t count;
	int batch, rc = -1;

	if (parse_request(canonical, max_calls, &calls, &count, &batch, err) == 0)
		rc = assemble(calls, count, batch, result_json, "results", answer, err);
	free(calls);
	return rc;
}
