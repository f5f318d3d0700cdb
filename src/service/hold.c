/*
 * hold.c: the hold question's request, canonical form and answer (hold.h).
 */
#include "service/hold.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/jtext.h"
#include "core/mjver.h"
#include "service/answer.h"
#include "base/field.h"
#include "service/request.h"
#include "tunables.h"

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

const char *const hold_fields[] = {"creep_velocity", "creep_closed_form", "slip", "normal_force",
    "penetration", "load", "friction_capacity", "holds", "time_to_slip",
    "time_to_slip_extrapolated", "falls", "fall_time", "reproducible", "steps", "refsafe_clamped",
    "solref_fallback", "friction_clamped", "mujoco", "core_version", NULL};

static const char *const geom_fields[] = {
    "solref", "solimp", "condim", "friction", "margin", "gap", "solmix", "priority", NULL};
static const char *const cone_names[] = {
    [CTD_CONE_PYRAMIDAL] = "pyramidal", [CTD_CONE_ELLIPTIC] = "elliptic"};
static const char *const integrator_names[] = {[CTD_SCENE_EULER] = "Euler",
    [CTD_SCENE_IMPLICIT] = "implicit",
    [CTD_SCENE_IMPLICITFAST] = "implicitfast",
    [CTD_SCENE_RK4] = "RK4"};

static int positive_within(
    const struct field_ctx *c, const char *key, long index, double value, double limit)
{
	if (value > 0 && value <= limit)
		return 0;
	return field_fail(
	    c, key, index, ERR_BAD_VALUE, "must be > 0 and <= %g, not %s", limit, JTEXT_NUM(value));
}

static int non_negative(const struct field_ctx *c, const char *key, long index, double value)
{
	if (value >= 0)
		return 0;
	return field_fail(c, key, index, ERR_BAD_VALUE, "must be >= 0, not %s", JTEXT_NUM(value));
}

static int parse_object(const struct field_ctx *c, struct ctd_hold *h)
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
	if (field_number(c, "size", &h->radius) != 0 ||
	    positive_within(c, "size", -1, h->radius, LIMIT_MAX_SIZE) != 0 ||
	    field_number(c, "mass", &h->mass) != 0 ||
	    positive_within(c, "mass", -1, h->mass, LIMIT_MAX_MASS) != 0)
		return -1;
	return req_geom_fields(c, &h->object);
}

static int parse_pad(const struct field_ctx *c, struct ctd_hold *h)
{
	static const char *const known[] = {"size", "mass", "solref", "solimp", "condim",
	    "friction", "margin", "gap", "solmix", "priority", NULL};
	int i;

	if (field_known(c, known) != 0 || field_numbers(c, "size", 3, h->pad_size) != 0)
		return -1;
	for (i = 0; i < 3; i++)
		if (positive_within(c, "size", i, h->pad_size[i], LIMIT_MAX_SIZE) != 0)
			return -1;
	if (field_number(c, "mass", &h->pad_mass) != 0 ||
	    positive_within(c, "mass", -1, h->pad_mass, LIMIT_MAX_MASS) != 0)
		return -1;
	return req_geom_fields(c, &h->pad);
}

static int parse_option(const struct field_ctx *c, struct ctd_hold *h)
{
	static const char *const known[] = {"timestep", "refsafe", "gravity", "impratio",
	    "integrator", "cone", "noslip_iterations", "mujoco", NULL};
	struct ctd_scene_option *o = &h->option;
	int cone = (int)o->cone;

	if (field_known(c, known) != 0 || field_number(c, "timestep", &o->timestep) != 0)
		return -1;
	if (!(o->timestep > 0))
		return field_fail(c, "timestep", -1, ERR_BAD_VALUE, "must be > 0, not %s",
		    JTEXT_NUM(o->timestep));
	if (field_bool(c, "refsafe", &o->refsafe) != 0 ||
	    field_number(c, "gravity", &o->gravity) != 0 ||
	    non_negative(c, "gravity", -1, o->gravity) != 0 ||
	    field_number(c, "impratio", &o->impratio) != 0)
		return -1;
	if (!(o->impratio > 0))
		return field_fail(c, "impratio", -1, ERR_BAD_VALUE, "must be > 0, not %s",
		    JTEXT_NUM(o->impratio));
	if (req_integrator(c, "integrator", &o->integrator) != 0 ||
	    field_choice(c, "cone", cone_names, COUNT(cone_names), &cone) != 0 ||
	    field_int(c, "noslip_iterations", &h->noslip_iterations) != 0 ||
	    req_mujoco(c, "mujoco", &o->mujoco) != 0)
		return -1;
	o->cone = (enum ctd_cone)cone;
	if (h->noslip_iterations < 0 || h->noslip_iterations > LIMIT_MAX_HOLD_NOSLIP)
		return field_fail(c, "noslip_iterations", -1, ERR_BAD_VALUE,
		    "must be 0..%d, not %d", LIMIT_MAX_HOLD_NOSLIP, h->noslip_iterations);
	if (o->integrator == CTD_SCENE_RK4)
		return field_fail(c, "integrator", -1, ERR_BAD_VALUE, "%s", ctd_hold_supported(h));
	return 0;
}

int hold_parse_at(json_t *body, const char *path, struct hold_request *r, struct err *err)
{
	static const char *const known[] = {
	    "object", "pad", "grip_force", "option", "duration", "slip_limit", NULL};
	struct field_ctx root, object, pad, option;
	struct ctd_hold *h = &r->scene;
	double steps;

	if (field_root(&root, body, path, err) != 0 || field_known(&root, known) != 0)
		return -1;
	ctd_hold_default(h);
	if (field_object(&root, "object", &object) != 0 || parse_object(&object, h) != 0 ||
	    field_object(&root, "pad", &pad) != 0 || parse_pad(&pad, h) != 0 ||
	    field_object(&root, "option", &option) != 0 || parse_option(&option, h) != 0 ||
	    field_number(&root, "grip_force", &h->grip_force) != 0 ||
	    positive_within(&root, "grip_force", -1, h->grip_force, LIMIT_MAX_HOLD_FORCE) != 0 ||
	    field_number(&root, "duration", &h->duration) != 0 ||
	    positive_within(&root, "duration", -1, h->duration, INFINITY) != 0 ||
	    field_number(&root, "slip_limit", &h->slip_limit) != 0 ||
	    positive_within(&root, "slip_limit", -1, h->slip_limit, LIMIT_MAX_HEIGHT) != 0)
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

static json_t *geom_json(const struct ctd_pair_geom *g, json_t *obj, int *ok)
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
	const struct ctd_hold *h = &r->scene;
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
	put(object, "size", json_real(h->radius), &ok);
	put(object, "mass", json_real(h->mass), &ok);
	geom_json(&h->object, object, &ok);
	put(pad, "size", field_reals(h->pad_size, 3), &ok);
	put(pad, "mass", json_real(h->pad_mass), &ok);
	geom_json(&h->pad, pad, &ok);
	put(option, "timestep", json_real(h->option.timestep), &ok);
	put(option, "refsafe", json_boolean(h->option.refsafe), &ok);
	put(option, "gravity", json_real(h->option.gravity), &ok);
	put(option, "impratio", json_real(h->option.impratio), &ok);
	put(option, "integrator", json_string(integrator_names[h->option.integrator]), &ok);
	put(option, "cone", json_string(cone_names[h->option.cone]), &ok);
	put(option, "noslip_iterations", json_integer(h->noslip_iterations), &ok);
	put(option, "mujoco", json_string(ctd_mjver_name(h->option.mujoco)), &ok);
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

int hold_run(const struct hold_request *r, json_t **answer, struct err *err)
{
	struct ans_result result;
	struct ans_request req;

	req.query = SVC_HOLD;
	req.u.hold = *r;
	ans_compute(&req, &result);
	if (result.u.hold.crushed)
		return err_set(err, ERR_BAD_VALUE, "/grip_force",
		    "the pads' faces reach the object's centre, or come within their own margin "
		    "and gap of each other: MuJoCo's pinch is then no longer two face contacts, "
		    "which is all the core reproduces; use stiffer pads (solref, solimp) or a "
		    "smaller grip_force");
	/* one field list (answer.c) for this answer and a hold sweep's rows */
	*answer = ans_to_json(&result);
	return *answer ? 0 : err_set(err, ERR_INTERNAL, "", "out of memory");
}

void hold_request_free(struct hold_request *r)
{
	free(r);
}
