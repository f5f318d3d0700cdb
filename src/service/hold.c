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

/* The shapes' names (enum core_hold_shape's order), what their size reads (MJCF's
 * size="..." of the geom type) and how many numbers that is. */
static const char *const shape_names[] = {"sphere", "capsule", "box"};
static const char *const shape_sizes[] = {"r", "[radius, half_length]", "[hx, hy, hz]"};
static const size_t shape_arity[] = {1, 2, 3};

static const char *const drive_names[] = {"motor", "position"};

/* The object's size as its shape reads it: a sphere's r or [r], a capsule's [r, hl], a
 * box's [hx, hy, hz], each > 0 (MJCF's form; errors at /object/size or /object/size/i). */
static int parse_size(const struct field_ctx *c, struct core_hold *h)
{
	json_t *v = json_object_get(c->obj, "size");
	size_t n = shape_arity[h->shape], i;

	if (!v) {
		if (h->shape == CORE_HOLD_SPHERE)
			return 0; /* the default sphere's radius */
		return field_fail(c, "size", -1, ERR_MISSING_FIELD,
		    "a %s needs its size, %s (m): it has no default", shape_names[h->shape],
		    shape_sizes[h->shape]);
	}
	if (h->shape == CORE_HOLD_SPHERE && json_is_number(v))
		return field_number(c, "size", &h->size[0]) != 0 ||
		    field_positive_within(c, "size", -1, h->size[0], LIMIT_MAX_SIZE) != 0;
	if (json_is_array(v) && json_array_size(v) != n)
		return field_fail(c, "size", -1, ERR_BAD_VALUE,
		    "a %s's size is %s (m): %zu number%s, not %zu", shape_names[h->shape],
		    shape_sizes[h->shape], n, n == 1 ? "" : "s", json_array_size(v));
	if (field_numbers(c, "size", n, h->size) != 0)
		return -1;
	for (i = 0; i < n; i++)
		if (field_positive_within(c, "size", (long)i, h->size[i], LIMIT_MAX_SIZE) != 0)
			return -1;
	return 0;
}

static int parse_object(const struct field_ctx *c, struct core_hold *h)
{
	static const char *const known[] = {"shape", "size", "mass", "solref", "solimp", "condim",
	    "friction", "margin", "gap", "solmix", "priority", NULL};
	int shape = CORE_HOLD_SPHERE;

	if (field_known(c, known) != 0 || field_choice(c, "shape", shape_names, 3, &shape) != 0)
		return -1;
	h->shape = (enum core_hold_shape)shape;
	if (parse_size(c, h) != 0 || field_number(c, "mass", &h->mass) != 0 ||
	    field_positive_within(c, "mass", -1, h->mass, LIMIT_MAX_MASS) != 0)
		return -1;
	return req_geom_fields(c, &h->object);
}

/* c[key] read into *out (left as it is when absent): a finite number in [0, limit], in
 * unit. */
static int non_negative_within(
    const struct field_ctx *c, const char *key, double *out, double limit, const char *unit)
{
	if (field_number(c, key, out) != 0)
		return -1;
	if (!(*out >= 0 && *out <= limit))
		return field_fail(c, key, -1, ERR_BAD_VALUE, "must be >= 0 and <= %g %s, not %s",
		    limit, unit, JTEXT_NUM(*out));
	return 0;
}

/* Each pad's slide joint: MJCF's damping, armature and frictionloss, 0 when omitted. */
static int parse_joint(const struct field_ctx *c, struct core_hold_joint *j)
{
	static const char *const known[] = {"damping", "armature", "frictionloss", NULL};

	if (field_known(c, known) != 0 ||
	    non_negative_within(c, "damping", &j->damping, LIMIT_MAX_HOLD_DAMPING, "N s/m") != 0 ||
	    non_negative_within(c, "armature", &j->armature, LIMIT_MAX_MASS, "kg") != 0)
		return -1;
	return non_negative_within(c, "frictionloss", &j->frictionloss, LIMIT_MAX_HOLD_FORCE, "N");
}

/* Each pad's actuator: {"type": "motor"} (grip_force drives it) or a position servo
 * {"type": "position", "kp", "kv", "squeeze", "forcerange"}. */
static int parse_actuator(const struct field_ctx *c, struct core_hold_actuator *a)
{
	static const char *const known[] = {"type", "kp", "kv", "squeeze", "forcerange", NULL};
	static const char *const servo_only[] = {"kp", "kv", "squeeze", "forcerange", NULL};
	int type = CORE_HOLD_MOTOR, i;

	if (field_known(c, known) != 0 || field_choice(c, "type", drive_names, 2, &type) != 0)
		return -1;
	a->type = (enum core_hold_drive)type;
	if (a->type == CORE_HOLD_MOTOR) {
		for (i = 0; c->obj && servo_only[i]; i++)
			if (json_object_get(c->obj, servo_only[i]))
				return field_fail(c, servo_only[i], -1, ERR_BAD_VALUE,
				    "is a position servo's (\"type\": \"position\"); a motor "
				    "pushes "
				    "each pad with grip_force");
		return 0;
	}
	if (field_require(c, "kp") != 0 || field_number(c, "kp", &a->kp) != 0 ||
	    field_positive_within(c, "kp", -1, a->kp, LIMIT_MAX_HOLD_KP) != 0 ||
	    non_negative_within(c, "kv", &a->kv, LIMIT_MAX_HOLD_DAMPING, "N s/m") != 0 ||
	    field_require(c, "squeeze") != 0 ||
	    non_negative_within(c, "squeeze", &a->squeeze, LIMIT_MAX_SIZE, "m") != 0)
		return -1;
	if (!json_object_get(c->obj, "forcerange"))
		return 0;
	if (field_numbers(c, "forcerange", 2, a->forcerange) != 0)
		return -1;
	for (i = 0; i < 2; i++)
		if (!(fabs(a->forcerange[i]) <= LIMIT_MAX_HOLD_FORCE))
			return field_fail(c, "forcerange", i, ERR_BAD_VALUE,
			    "must be within +-%g N, not %s", LIMIT_MAX_HOLD_FORCE,
			    JTEXT_NUM(a->forcerange[i]));
	/* MuJoCo's compiler refuses an empty range: "invalid force range" */
	if (!(a->forcerange[0] < a->forcerange[1]))
		return field_fail(c, "forcerange", -1, ERR_BAD_VALUE,
		    "must be [lo, hi] with lo < hi (MuJoCo refuses an empty range), not [%s, %s]",
		    JTEXT_NUM(a->forcerange[0]), JTEXT_NUM(a->forcerange[1]));
	a->forcelimited = 1;
	return 0;
}

static int parse_pad(const struct field_ctx *c, struct core_hold *h)
{
	static const char *const known[] = {"size", "mass", "joint", "actuator", "solref", "solimp",
	    "condim", "friction", "margin", "gap", "solmix", "priority", NULL};
	struct field_ctx joint, actuator;
	int i;

	if (field_known(c, known) != 0 || field_numbers(c, "size", 3, h->pad_size) != 0)
		return -1;
	for (i = 0; i < 3; i++)
		if (field_positive_within(c, "size", i, h->pad_size[i], LIMIT_MAX_SIZE) != 0)
			return -1;
	if (field_number(c, "mass", &h->pad_mass) != 0 ||
	    field_positive_within(c, "mass", -1, h->pad_mass, LIMIT_MAX_MASS) != 0 ||
	    field_object(c, "joint", &joint) != 0 || parse_joint(&joint, &h->joint) != 0 ||
	    field_object(c, "actuator", &actuator) != 0 ||
	    parse_actuator(&actuator, &h->actuator) != 0)
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

/* The fields a refusal of core_hold_supported() may be about, in the order they are
 * named: each put back to what the core answers alone (an option or a pad's extra
 * before the object's shape), the first whose return lifts the refusal (no refusal, or
 * another one: the sentence was about it) is the one the error names. */
struct hold_revert {
	const char *path;
	void (*revert)(struct core_hold *h);
};

static void revert_integrator(struct core_hold *h)
{
	h->option.integrator = CORE_SCENE_EULER;
}

static void revert_noslip(struct core_hold *h)
{
	h->noslip_iterations = 0;
}

static void revert_frictionloss(struct core_hold *h)
{
	h->joint.frictionloss = 0;
}

static void revert_armature(struct core_hold *h)
{
	h->joint.armature = 0;
}

static void revert_damping(struct core_hold *h)
{
	h->joint.damping = 0;
}

static void revert_kv(struct core_hold *h)
{
	h->actuator.kv = 0;
}

static void revert_forcerange(struct core_hold *h)
{
	h->actuator.forcelimited = 0;
}

static void revert_actuator(struct core_hold *h)
{
	h->actuator.type = CORE_HOLD_MOTOR;
}

static void revert_shape(struct core_hold *h)
{
	h->shape = CORE_HOLD_SPHERE;
}

static void revert_margin(struct core_hold *h)
{
	h->object.margin = h->object.gap = h->pad.margin = h->pad.gap = 0;
}

static const struct hold_revert hold_reverts[] = {
    {"/option/integrator", revert_integrator},
    {"/option/noslip_iterations", revert_noslip},
    {"/pad/joint/frictionloss", revert_frictionloss},
    {"/pad/joint/armature", revert_armature},
    {"/pad/joint/damping", revert_damping},
    {"/pad/actuator/kv", revert_kv},
    {"/pad/actuator/forcerange", revert_forcerange},
    {"/pad/actuator/type", revert_actuator},
    {"/object/shape", revert_shape},
    {"/pad/margin", revert_margin},
    {NULL, NULL},
};

/* A 422 (bad_value) with core_hold_supported()'s sentence when the core does not answer
 * h, at the field hold_reverts[] finds (else at the request, path). */
static int hold_refuse_unsupported(const struct core_hold *h, const char *path, struct err *err)
{
	const char *why = core_hold_supported(h), *field = "", *after;
	char where[ERR_PATH_MAX];
	size_t i;

	if (!why)
		return 0;
	for (i = 0; hold_reverts[i].path; i++) {
		struct core_hold back = *h;

		hold_reverts[i].revert(&back);
		after = core_hold_supported(&back);
		if (!after || strcmp(after, why) != 0) {
			field = hold_reverts[i].path;
			break;
		}
	}
	/* a sweep's or find's point is under a short prefix ("/base") */
	if (strlen(path) + strlen(field) >= sizeof where)
		field = "";
	memcpy(where, path, strlen(path) + 1);
	strncat(where, field, sizeof where - strlen(where) - 1);
	return err_set(err, ERR_BAD_VALUE, where, "%s", why);
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
	    field_object(&root, "option", &option) != 0 || parse_option(&option, h) != 0)
		return -1;
	if (h->actuator.type == CORE_HOLD_POSITION) {
		/* the servo's force is kp (squeeze - q) - kv q': no grip_force to set */
		if (json_object_get(body, "grip_force"))
			return field_fail(&root, "grip_force", -1, ERR_BAD_VALUE,
			    "is the motor's force; the pads' position servo pushes with kp "
			    "(squeeze "
			    "- q) - kv q' (clamped to forcerange): set /pad/actuator/squeeze, or "
			    "\"type\": \"motor\" to push with grip_force");
		h->grip_force = 0;
	} else if (field_number(&root, "grip_force", &h->grip_force) != 0 ||
	    field_positive_within(&root, "grip_force", -1, h->grip_force, LIMIT_MAX_HOLD_FORCE) !=
	        0) {
		return -1;
	}
	if (field_number(&root, "duration", &h->duration) != 0 ||
	    field_positive_within(&root, "duration", -1, h->duration, INFINITY) != 0 ||
	    field_number(&root, "slip_limit", &h->slip_limit) != 0 ||
	    field_positive_within(&root, "slip_limit", -1, h->slip_limit, LIMIT_MAX_HEIGHT) != 0)
		return -1;
	steps = h->duration / h->option.timestep;
	if (!(steps <= LIMIT_MAX_STEPS))
		return field_fail(&root, "duration", -1, ERR_BAD_VALUE,
		    "duration / timestep is %.3g steps, over the limit of %ld", steps,
		    LIMIT_MAX_STEPS);
	return hold_refuse_unsupported(h, root.path, err);
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

static json_t *joint_json(const struct core_hold_joint *j)
{
	return json_pack("{s:f, s:f, s:f}", "damping", j->damping, "armature", j->armature,
	    "frictionloss", j->frictionloss);
}

/* A position servo (a motor has no canonical form: it is left out). */
static json_t *actuator_json(const struct core_hold_actuator *a)
{
	json_t *obj = json_pack("{s:s, s:f, s:f, s:f}", "type", drive_names[a->type], "kp", a->kp,
	    "kv", a->kv, "squeeze", a->squeeze);
	int ok = obj != NULL;

	if (ok && a->forcelimited)
		put(obj, "forcerange", field_reals(a->forcerange, 2), &ok);
	if (!ok) {
		json_decref(obj);
		return NULL;
	}
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
	put(object, "shape", json_string(shape_names[h->shape]), &ok);
	/* a sphere's radius a number, as before there were shapes */
	put(object, "size",
	    h->shape == CORE_HOLD_SPHERE ? json_real(h->size[0])
	                                 : field_reals(h->size, shape_arity[h->shape]),
	    &ok);
	put(object, "mass", json_real(h->mass), &ok);
	geom_json(&h->object, object, &ok);
	put(pad, "size", field_reals(h->pad_size, 3), &ok);
	put(pad, "mass", json_real(h->pad_mass), &ok);
	/* a plain joint and a motor, the scene before issue 48, are left out: its requests
	 * keep their canonical form and cache keys (hold_expose() makes them for a path) */
	if (h->joint.damping != 0 || h->joint.armature != 0 || h->joint.frictionloss != 0)
		put(pad, "joint", joint_json(&h->joint), &ok);
	if (h->actuator.type == CORE_HOLD_POSITION)
		put(pad, "actuator", actuator_json(&h->actuator), &ok);
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
	if (h->actuator.type == CORE_HOLD_MOTOR)
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

/* ptr is pointer or inside it ("/pad/joint", "/pad/joint/damping"). */
static int ptr_within(const char *ptr, const char *pointer)
{
	size_t n = strlen(pointer);

	return strncmp(ptr, pointer, n) == 0 && (ptr[n] == '\0' || ptr[n] == '/');
}

/* The fields a canonical request leaves out (hold_request_json()), made for a path that
 * points into them: the plain joint, the motor ({"type": "motor"}: a servo's fields are
 * not a motor's), and a sphere's radius as its one-number array [r]. */
static int hold_expose(json_t *v, const char *ptr, struct err *err)
{
	json_t *object = json_object_get(v, "object"), *pad = json_object_get(v, "pad"), *size,
	       *add = NULL;
	json_t *parent = NULL;
	const char *key = NULL;

	size = json_object_get(object, "size");
	if (ptr_within(ptr, "/object/size") && strlen(ptr) > strlen("/object/size") &&
	    json_is_number(size)) {
		parent = object;
		key = "size";
		add = json_pack("[O]", size);
	} else if (ptr_within(ptr, "/pad/joint") && json_is_object(pad) &&
	    !json_object_get(pad, "joint")) {
		struct core_hold_joint plain = {0, 0, 0};

		parent = pad;
		key = "joint";
		add = joint_json(&plain);
	} else if (ptr_within(ptr, "/pad/actuator") && json_is_object(pad) &&
	    !json_object_get(pad, "actuator")) {
		parent = pad;
		key = "actuator";
		add = json_pack("{s:s}", "type", drive_names[CORE_HOLD_MOTOR]);
	}
	if (!parent)
		return 0;
	if (!add || json_object_set_new(parent, key, add) != 0)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	return 0;
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
    {"damping", "/pad/joint/damping"},
    {"armature", "/pad/joint/armature"},
    {"frictionloss", "/pad/joint/frictionloss"},
    {NULL, NULL},
};

static const struct ans_kind hold_kind = {
    .request_size = sizeof(struct hold_request),
    .result_size = sizeof(struct hold_result),
    .point = hold_point,
    .canonical = hold_canonical,
    .expose = hold_expose,
    .steps = hold_steps,
    .step_ns = hold_step_ns,
    .compute = hold_compute,
    .fields = hold_answer_fields,
    .aliases = hold_aliases,
};

int hold_run(const struct hold_request *r, json_t **answer, struct err *err)
{
	struct hold_result result;
	int servo = r->scene.actuator.type == CORE_HOLD_POSITION;

	hold_compute(r, &result);
	/* the drive that pressed too far: a motor's grip_force, a servo's squeeze */
	if (result.answer.crushed)
		return err_set(err, ERR_BAD_VALUE, servo ? "/pad/actuator/squeeze" : "/grip_force",
		    "the pads' faces reach the object's centre, or come within their own margin "
		    "and gap of each other: MuJoCo's pinch then has contacts between the pads' "
		    "faces too (a sphere's: 6, its two and 4 at the corners of the pads' "
		    "overlap), or (3.8.0-3.13.0's one-pad start) the object's "
		    "centre is pushed into a pad, where its contact takes the nearest face; the "
		    "core reproduces the object's contacts with the pads only; use stiffer pads "
		    "(solref, solimp) or a smaller %s",
		    servo ? "squeeze" : "grip_force");
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
    .summary = "an object pinched between two pads: its creep and slip under gravity",
    .units = "creep_velocity m/s; slip, penetration m; forces N; times s",
    .answer = hold_row_answer,
    .fields = hold_fields,
    .kind = &hold_kind,
    .headline = "creep_velocity",
};
