/*
 * hold.c: the hold question's request, canonical form and answer (hold.h), and
 * the endpoint's row and kind.
 */
#include "service/hold.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/jtext.h"
#include "core/mjver.h"
#include "service/answer.h"
#include "service/endpoint.h"
#include "base/field.h"
#include "service/request.h"
#include "core/knobs.h"
#include "service/knobs.h"

/* The answer's fields and their units (the API's descriptions name the same). */
static const struct svc_field hold_fields[] = {{"creep_velocity", "m/s"},
    {"creep_closed_form", NULL}, {"slip", "m"}, {"normal_force", "N"}, {"penetration", "m"},
    {"load", "N"}, {"friction_capacity", "N"}, {"holds", NULL}, {"time_to_slip", "s"},
    {"time_to_slip_extrapolated", NULL}, {"falls", NULL}, {"fall_time", "s"},
    {"reproducible", NULL}, {"steps", NULL}, {"refsafe_clamped", NULL}, {"refsafe_replaced", NULL},
    {"solref_fallback", NULL}, {"friction_clamped", NULL}, {"coulomb_holds", NULL},
    {"friction_margin", "N"}, {"mujoco", NULL}, {"core_version", NULL}, {NULL, NULL}};

static const char *const geom_fields[] = {
    "solref", "solimp", "condim", "friction", "margin", "gap", "solmix", "priority", NULL};
static int parse_object(const struct field_ctx *c, struct core_hold *h)
{
	static const char *const known[] = {"shape", "size", "mass", "solref", "solimp", "condim",
	    "friction", "margin", "gap", "solmix", "priority", NULL};
	json_t *shape = c->obj ? json_object_get(c->obj, "shape") : NULL;

	if (field_known(c, known) != 0)
		return -1;
	if (shape && !json_is_string(shape))
		return field_fail(c, "shape", -1, ERR_BAD_TYPE, "must be a string");
	if (shape && strcmp(json_string_value(shape), "sphere") != 0) {
		if (strcmp(json_string_value(shape), "box") == 0 ||
		    strcmp(json_string_value(shape), "capsule") == 0)
			return field_fail(c, "shape", -1, ERR_BAD_VALUE,
			    "only \"sphere\" is answered: MuJoCo's pinch of a %s between two boxes "
			    "is not the symmetric two-contact scene the core reproduces (box-box "
			    "gives an asymmetric contact set)",
			    json_string_value(shape));
		return field_fail(c, "shape", -1, ERR_BAD_VALUE,
		    "must be \"sphere\", not \"%.32s\"", json_string_value(shape));
	}
	if (field_number(c, "size", &h->size[0]) != 0 ||
	    field_positive_within(c, "size", -1, h->size[0], LIMIT_MAX_SIZE) != 0 ||
	    field_number(c, "mass", &h->mass) != 0 ||
	    field_positive_within(c, "mass", -1, h->mass, LIMIT_MAX_MASS) != 0)
		return -1;
	return req_geom_fields(c, &h->object);
}

static int parse_pad(const struct field_ctx *c, struct core_hold *h)
{
	static const char *const known[] = {"size", "mass", "solref", "solimp", "condim",
	    "friction", "margin", "gap", "solmix", "priority", NULL};
	int i;

	if (field_known(c, known) != 0 || field_numbers(c, "size", 3, h->pad_size) != 0)
		return -1;
	for (i = 0; i < 3; i++)
		if (field_positive_within(c, "size", i, h->pad_size[i], LIMIT_MAX_SIZE) != 0)
			return -1;
	if (field_number(c, "mass", &h->pad_mass) != 0 ||
	    field_positive_within(c, "mass", -1, h->pad_mass, LIMIT_MAX_MASS) != 0)
		return -1;
	return req_geom_fields(c, &h->pad);
}

static int parse_option(const struct field_ctx *c, struct core_hold *h)
{
	static const char *const known[] = {"timestep", "refsafe", "gravity", "impratio",
	    "integrator", "cone", "noslip_iterations", "mujoco", NULL};

	if (req_option(c, known, 1, &h->option) != 0 ||
	    field_int(c, "noslip_iterations", &h->noslip_iterations) != 0)
		return -1;
	if (h->noslip_iterations < 0 || h->noslip_iterations > LIMIT_MAX_HOLD_NOSLIP)
		return field_fail(c, "noslip_iterations", -1, ERR_BAD_VALUE,
		    "must be 0..%d, not %d", LIMIT_MAX_HOLD_NOSLIP, h->noslip_iterations);
	if (h->option.integrator == CORE_SCENE_RK4)
		return field_fail(c, "integrator", -1, ERR_BAD_VALUE, "%s", core_hold_supported(h));
	return 0;
}

int hold_parse_at(json_t *body, const char *path, struct hold_request *r, struct err *err)
{
	static const char *const known[] = {
	    "object", "pad", "grip_force", "option", "duration", "slip_limit", NULL};
	struct field_ctx root, object, pad, option;
	struct core_hold *h = &r->scene;
	double steps;

	if (field_root(&root, body, path, err) != 0 || field_known(&root, known) != 0)
		return -1;
	core_hold_default(h);
	if (field_object(&root, "object", &object) != 0 || parse_object(&object, h) != 0 ||
	    field_object(&root, "pad", &pad) != 0 || parse_pad(&pad, h) != 0 ||
	    field_object(&root, "option", &option) != 0 || parse_option(&option, h) != 0 ||
	    field_number(&root, "grip_force", &h->grip_force) != 0 ||
	    field_positive_within(&root, "grip_force", -1, h->grip_force, LIMIT_MAX_HOLD_FORCE) !=
	        0 ||
	    field_number(&root, "duration", &h->duration) != 0 ||
	    field_positive_within(&root, "duration", -1, h->duration, INFINITY) != 0 ||
	    field_number(&root, "slip_limit", &h->slip_limit) != 0 ||
	    field_positive_within(&root, "slip_limit", -1, h->slip_limit, LIMIT_MAX_HEIGHT) != 0)
		return -1;
	steps = h->duration / h->option.timestep;
	if (!(steps <= LIMIT_MAX_STEPS))
		return field_fail(&root, "duration", -1, ERR_BAD_VALUE,
		    "duration / timestep is %.3g steps, over the limit of %ld", steps,
		    LIMIT_MAX_STEPS);
	return 0;
}

int hold_parse(json_t *body, struct hold_request **out, struct err *err)
{
	struct hold_request *r = malloc(sizeof *r);

	if (!r)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	if (hold_parse_at(body, "", r, err) != 0) {
		free(r);
		return -1;
	}
	*out = r;
	return 0;
}

static void put(json_t *obj, const char *key, json_t *value, int *ok)
{
	if (!value || json_object_set_new(obj, key, value) != 0)
		*ok = 0;
}

static json_t *geom_json(const struct core_pair_geom *g, json_t *obj, int *ok)
{
	if (!obj) {
		*ok = 0;
		return NULL;
	}
	put(obj, geom_fields[0], field_reals(g->solref, 2), ok);
	put(obj, geom_fields[1], field_reals(g->solimp, 5), ok);
	put(obj, geom_fields[2], json_integer(g->condim), ok);
	put(obj, geom_fields[3], field_reals(g->friction, 3), ok);
	put(obj, geom_fields[4], json_real(g->margin), ok);
	put(obj, geom_fields[5], json_real(g->gap), ok);
	put(obj, geom_fields[6], json_real(g->solmix), ok);
	put(obj, geom_fields[7], json_integer(g->priority), ok);
	return obj;
}

json_t *hold_request_json(const struct hold_request *r)
{
	const struct core_hold *h = &r->scene;
	json_t *root = json_object(), *object = json_object(), *pad = json_object(),
	       *option = json_object();
	int ok = root && object && option && pad;

	if (!ok) {
		json_decref(root);
		json_decref(object);
		json_decref(pad);
		json_decref(option);
		return NULL;
	}
	put(object, "shape", json_string("sphere"), &ok);
	put(object, "size", json_real(h->size[0]), &ok);
	put(object, "mass", json_real(h->mass), &ok);
	geom_json(&h->object, object, &ok);
	put(pad, "size", field_reals(h->pad_size, 3), &ok);
	put(pad, "mass", json_real(h->pad_mass), &ok);
	geom_json(&h->pad, pad, &ok);
	put(option, "timestep", json_real(h->option.timestep), &ok);
	put(option, "refsafe", json_boolean(h->option.refsafe), &ok);
	put(option, "gravity", json_real(h->option.gravity), &ok);
	put(option, "impratio", json_real(h->option.impratio), &ok);
	put(option, "integrator", json_string(req_integrator_name(h->option.integrator)), &ok);
	put(option, "cone", json_string(req_cone_name(h->option.cone)), &ok);
	put(option, "noslip_iterations", json_integer(h->noslip_iterations), &ok);
	put(option, "mujoco", json_string(core_mjver_name(h->option.mujoco)), &ok);
	put(root, "object", object, &ok);
	put(root, "pad", pad, &ok);
	put(root, "option", option, &ok);
	put(root, "grip_force", json_real(h->grip_force), &ok);
	put(root, "duration", json_real(h->duration), &ok);
	put(root, "slip_limit", json_real(h->slip_limit), &ok);
	if (!ok) {
		json_decref(root);
		return NULL;
	}
	return root;
}

/* A hold answer: the core's, and the release whose rules were used (an mjver index). */
struct hold_result {
	int mujoco;
	struct core_hold_answer answer; /* crushed: every answer field null (hold_run's 422) */
};

static int hold_point(json_t *v, const char *path, void *request, struct err *err)
{
	return hold_parse_at(v, path, request, err);
}

static json_t *hold_canonical(const void *request)
{
	return hold_request_json(request);
}

/* noslip's sweeps make a step some 30x dearer (the compute budget's estimate) */
static double hold_step_ns(const void *request)
{
	const struct hold_request *r = request;

	return r->scene.noslip_iterations > 0 ? BUDGET_NOSLIP_STEP_NS : BUDGET_HOLD_STEP_NS;
}

static long hold_steps(const void *request)
{
	const struct hold_request *r = request;

	/* a hold point may step on after duration until its creep settles: count the most */
	return (long)(r->scene.duration / r->scene.option.timestep) + CORE_HOLD_SETTLE_MAX_STEPS;
}

static void hold_compute(const void *request, void *result)
{
	const struct hold_request *r = request;
	struct hold_result *out = result;

	memset(out, 0, sizeof *out);
	out->mujoco = r->scene.option.mujoco;
	core_hold_solve(&r->scene, &out->answer);
}

/* hold_fields[] in order; a crushed scene (a 422 as one request) has none of them. */
static size_t hold_answer_fields(const void *result, struct ans_field out[ANS_MAX_FIELDS])
{
	const struct hold_result *r = result;
	const struct core_hold_answer *a = &r->answer;
	struct ans_list l = {out, 0, 0};
	int ok = !a->crushed;
	/* the run's outcome, when a nudge of the pads' start leaves it where it is */
	int run = ok && a->reproducible;

	ans_add_real_if(&l, "creep_velocity", a->creep_velocity, run && a->creep_settled);
	ans_add_integer(&l, "creep_closed_form", a->creep_closed_form, ANS_BOOL);
	ans_add_real_if(&l, "slip", a->slip, run && !a->falls);
	ans_add_real_if(&l, "normal_force", a->normal_force, ok);
	ans_add_real_if(&l, "penetration", a->penetration, run && a->creep_settled);
	ans_add_real_if(&l, "load", a->load, ok);
	ans_add_real_if(&l, "friction_capacity", a->friction_capacity, ok);
	/* the run's verdict (issue #29): null where the run's outcome is not reproduced */
	if (run)
		ans_add_integer(&l, "holds", a->holds, ANS_BOOL);
	else
		ans_add_null(&l, "holds");
	ans_add_real_if(&l, "time_to_slip", a->time_to_slip, run && a->time_to_slip >= 0);
	ans_add_integer(&l, "time_to_slip_extrapolated", a->time_to_slip_extrapolated, ANS_BOOL);
	if (run)
		ans_add_integer(&l, "falls", a->falls, ANS_BOOL);
	else
		ans_add_null(&l, "falls");
	ans_add_real_if(&l, "fall_time", a->fall_time, run && a->falls);
	ans_add_integer(&l, "reproducible", a->reproducible, ANS_BOOL);
	ans_add_integer(&l, "steps", a->steps, ANS_INTEGER);
	ans_add_integer(&l, "refsafe_clamped", a->refsafe_clamped, ANS_BOOL);
	ans_add_integer(&l, "refsafe_replaced", a->refsafe_replaced, ANS_BOOL);
	ans_add_integer(&l, "solref_fallback", a->solref_fell_back, ANS_BOOL);
	ans_add_integer(&l, "friction_clamped", a->friction_clamped, ANS_BOOL);
	/* the Coulomb comparison, which `holds` was before issue #29: the friction the grip
	 * can give against the load, not whether MuJoCo's soft friction keeps the object */
	ans_add_integer(&l, "coulomb_holds", a->load < a->friction_capacity, ANS_BOOL);
	ans_add_real_if(&l, "friction_margin", a->friction_capacity - a->load, ok);
	if (!ok)
		for (size_t i = 0; i < l.count; i++)
			l.fields[i].type = ANS_NULL;
	ans_add_release(&l, r->mujoco);
	return l.count;
}

/* The hold request's fields under the aliases (vary.h): the pads' geom, priority 1 in
 * MuJoCo, sets the contact's solref, solimp and friction. */
static const struct ans_alias hold_aliases[] = {
    {"timeconst", "/pad/solref/0"},
    {"dampratio", "/pad/solref/1"},
    {"timestep", "/option/timestep"},
    {"d0", "/pad/solimp/0"},
    {"dwidth", "/pad/solimp/1"},
    {"width", "/pad/solimp/2"},
    {"midpoint", "/pad/solimp/3"},
    {"power", "/pad/solimp/4"},
    {"mass", "/object/mass"},
    {"duration", "/duration"},
    {"gravity", "/option/gravity"},
    {"impratio", "/option/impratio"},
    {"friction", "/pad/friction/0"},
    {"grip_force", "/grip_force"},
    {"cone", "/option/cone"},
    {"size", "/object/size"},
    {"pad_mass", "/pad/mass"},
    {"slip_limit", "/slip_limit"},
    {NULL, NULL},
};

static const struct ans_kind hold_kind = {
    .request_size = sizeof(struct hold_request),
    .result_size = sizeof(struct hold_result),
    .point = hold_point,
    .canonical = hold_canonical,
    .steps = hold_steps,
    .step_ns = hold_step_ns,
    .compute = hold_compute,
    .fields = hold_answer_fields,
    .aliases = hold_aliases,
};

int hold_run(const struct hold_request *r, json_t **answer, struct err *err)
{
	struct hold_result result;

	hold_compute(r, &result);
	if (result.answer.crushed)
		return err_set(err, ERR_BAD_VALUE, "/grip_force",
		    "the pads' faces reach the object's centre, or come within their own margin "
		    "and gap of each other: MuJoCo's pinch is then no longer two face contacts "
		    "but 6 (the two sphere-pad contacts and 4 between the pads' faces, at the "
		    "corners of their overlap), or (3.8.0-3.13.0's one-pad start) the object's "
		    "centre is pushed into a pad, where its contact takes the nearest face; the "
		    "core reproduces two face contacts only; use stiffer pads (solref, solimp) or "
		    "a smaller grip_force");
	/* one field list (hold_answer_fields) for this answer and a hold sweep's rows */
	*answer = ans_to_json(&hold_kind, &result);
	return *answer ? 0 : err_set(err, ERR_INTERNAL, "", "out of memory");
}

void hold_request_free(struct hold_request *r)
{
	free(r);
}

static int hold_row_answer(
    const void *request, const struct svc_limits *lim, json_t **answer, struct err *err)
{
	(void)lim;
	return hold_run(request, answer, err);
}

const struct svc_endpoint_def svc_ep_hold = {
    .name = "hold",
    .summary = "a sphere pinched between two pads: its creep and slip under gravity",
    .units = "creep_velocity m/s; slip, penetration m; forces N; times s",
    .answer = hold_row_answer,
    .fields = hold_fields,
    .kind = &hold_kind,
    .headline = "creep_velocity",
};
