/*
 * request.c: validation of scene and stability requests and their canonical JSON.
 *
 * Defaults are MuJoCo's and the seed lesson's experiment (core/knobs.h, service/knobs.h). Limits
 * beyond the contract's: a body MuJoCo's compiler would reject (volume, mass
 * or principal inertia below mjMINVAL, measured against libmujoco 2.2.2) is
 * rejected here too, so every answer is one MuJoCo could have given.
 */
#include "service/request.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jtext.h"
#include "core/law.h"
#include "core/mjver.h"
#include "core/sim.h"
#include "core/knobs.h"
#include "service/knobs.h"

static const char *const integrator_names[] = {
    [CORE_SCENE_EULER] = "Euler",
    [CORE_SCENE_IMPLICIT] = "implicit",
    [CORE_SCENE_IMPLICITFAST] = "implicitfast",
    [CORE_SCENE_RK4] = "RK4",
    [CORE_SCENE_DISCRETE] = "discrete",
};

static const char *const shape_names[] = {[CORE_SCENE_SPHERE] = "sphere", [CORE_SCENE_BOX] = "box"};

static const char *const cone_names[] = {
    [CORE_CONE_PYRAMIDAL] = "pyramidal",
    [CORE_CONE_ELLIPTIC] = "elliptic",
};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

const char *req_integrator_name(enum core_scene_integrator integrator)
{
	return integrator_names[integrator];
}

/* 1 when c[key] is the string "discrete" */
static int names_discrete(const struct field_ctx *c, const char *key)
{
	json_t *v = c->obj ? json_object_get(c->obj, key) : NULL;

	return json_is_string(v) && strcmp(json_string_value(v), "discrete") == 0;
}

int req_integrator(const struct field_ctx *c, const char *key, enum core_scene_integrator *out)
{
	int index = (int)*out;

	if (names_discrete(c, key))
		return field_fail(c, key, -1, ERR_BAD_VALUE,
		    "\"discrete\" is not answered for this question yet (rest, drop, stability, "
		    "hold, "
		    "sweeps and find take it, from MuJoCo 3.13.0 on)");
	/* every name but "discrete", the last */
	if (field_choice(c, key, integrator_names, COUNT(integrator_names) - 1, &index) != 0)
		return -1;
	*out = (enum core_scene_integrator)index;
	return 0;
}

int req_integrator_release(
    const struct field_ctx *c, const char *key, int release, enum core_scene_integrator *out)
{
	struct core_mjver_rules rules;
	int index = (int)*out;

	if (field_choice(c, key, integrator_names, COUNT(integrator_names), &index) != 0)
		return -1;
	core_mjver_rules(release, &rules);
	if (index == CORE_SCENE_DISCRETE && !rules.discrete_integrator)
		return field_fail(c, key, -1, ERR_BAD_VALUE,
		    "\"discrete\" exists from MuJoCo 3.13.0 on, not in %s (option.mujoco)",
		    core_mjver_name(release));
	*out = (enum core_scene_integrator)index;
	return 0;
}

/* 1 when name reads "X.Y.Z" (digits) and is a later version than the newest release
 * of the table: such releases exist upstream, but no build of them was checked */
static int later_release(const char *name)
{
	int a[3], b[3], n = 0;
	char tail;

	if (sscanf(name, "%3d.%3d.%3d%c", &a[0], &a[1], &a[2], &tail) != 3 ||
	    sscanf(core_mjver_name(core_mjver_count() - 1), "%d.%d.%d", &b[0], &b[1], &b[2]) != 3)
		return 0;
	for (n = 0; n < 3; n++)
		if (a[n] != b[n])
			return a[n] > b[n];
	return 0;
}

int req_mujoco(const struct field_ctx *c, const char *key, int *out)
{
	json_t *v = c->obj ? json_object_get(c->obj, key) : NULL;
	int index;

	if (!v)
		return 0;
	if (!json_is_string(v))
		return field_fail(c, key, -1, ERR_BAD_TYPE,
		    "must be a MuJoCo release as a string, such as \"%s\"",
		    core_mjver_name(core_mjver_default()));
	index = core_mjver_find(json_string_value(v));
	if (index < 0 && later_release(json_string_value(v)))
		return field_fail(c, key, -1, ERR_BAD_VALUE,
		    "MuJoCo release \"%.32s\" is newer than %s, the newest release contactd has "
		    "verified against a MuJoCo build; supported: every tag from 2.2.0 "
		    "(2.2.0-2.2.2, "
		    "...) to %s, listed by GET /v1/health",
		    json_string_value(v), core_mjver_name(core_mjver_count() - 1),
		    core_mjver_name(core_mjver_count() - 1));
	if (index < 0)
		return field_fail(c, key, -1, ERR_BAD_VALUE,
		    "MuJoCo release \"%.32s\" is not supported; supported: %s",
		    json_string_value(v), core_mjver_supported());
	*out = index;
	return 0;
}

/* The fields of one <geom> over the values already in *g (the defaults, or the
 * body's geom for the floor). */
/* The fields of a <geom>, in the order of req_scene.floor_given's bits. */
static const char *const geom_fields[] = {
    "solref", "solimp", "condim", "friction", "margin", "gap", "solmix", "priority", NULL};

/* A "geom" or "floor" object: its contact fields (req_geom_fields()) and no other member. */
static int parse_geom(const struct field_ctx *c, struct core_pair_geom *g)
{
	if (field_known(c, geom_fields) != 0)
		return -1;
	return req_geom_fields(c, g);
}

int req_geom_fields(const struct field_ctx *c, struct core_pair_geom *g)
{
	int i;

	/* any finite solref is MuJoCo-valid: a mixed-sign one falls back to the default */
	if (field_numbers(c, "solref", 2, g->solref) != 0 ||
	    field_numbers(c, "solimp", 5, g->solimp) != 0)
		return -1;
	if (field_int(c, "condim", &g->condim) != 0)
		return -1;
	if (g->condim != 1 && g->condim != 3 && g->condim != 4 && g->condim != 6)
		return field_fail(
		    c, "condim", -1, ERR_BAD_VALUE, "must be 1, 3, 4 or 6, not %d", g->condim);
	if (field_numbers(c, "friction", 3, g->friction) != 0)
		return -1;
	for (i = 0; i < 3; i++)
		if (field_non_negative(c, "friction", i, g->friction[i]) != 0)
			return -1;
	if (field_number(c, "margin", &g->margin) != 0 ||
	    field_non_negative(c, "margin", -1, g->margin) != 0)
		return -1;
	if (field_number(c, "gap", &g->gap) != 0 || field_non_negative(c, "gap", -1, g->gap) != 0)
		return -1;
	if (field_number(c, "solmix", &g->solmix) != 0 ||
	    field_non_negative(c, "solmix", -1, g->solmix) != 0)
		return -1;
	return field_int(c, "priority", &g->priority);
}

/* MuJoCo's compiler refuses a moving body whose geom volume, mass or principal
 * inertia is below mjMINVAL ("mass and inertia of moving bodies must be larger
 * than mjMINVAL"); so do we. */
static int check_compilable(const struct field_ctx *c, const struct core_scene *s)
{
	double volume, inertia;
	const double *h = s->size;

	if (s->shape == CORE_SCENE_SPHERE) {
		volume = 4.0 / 3.0 * M_PI * h[0] * h[0] * h[0];
		inertia = 0.4 * s->mass * h[0] * h[0];
	} else {
		volume = 8 * h[0] * h[1] * h[2];
		/* smallest of m/3 (hy^2 + hz^2), m/3 (hx^2 + hz^2), m/3 (hx^2 + hy^2) */
		inertia = s->mass / 3 *
		    fmin(h[1] * h[1] + h[2] * h[2],
		        fmin(h[0] * h[0] + h[2] * h[2], h[0] * h[0] + h[1] * h[1]));
	}
	if (volume < MJ_MINVAL)
		return field_fail(c, "size", -1, ERR_BAD_VALUE,
		    "body volume %.3g m^3 is below mjMINVAL (%g): MuJoCo cannot compile it", volume,
		    MJ_MINVAL);
	if (s->mass < MJ_MINVAL || inertia < MJ_MINVAL)
		return field_fail(c, "mass", -1, ERR_BAD_VALUE,
		    "mass %.3g kg gives a principal inertia of %.3g kg m^2; MuJoCo needs both >= "
		    "mjMINVAL (%g)",
		    s->mass, inertia, MJ_MINVAL);
	return 0;
}

static int parse_body(const struct field_ctx *c, struct core_scene *s)
{
	static const char *const known[] = {"shape", "size", "mass", NULL};
	json_t *size;
	int shape = (int)s->shape, i;

	if (field_known(c, known) != 0 ||
	    field_choice(c, "shape", shape_names, COUNT(shape_names), &shape) != 0)
		return -1;
	s->shape = (enum core_scene_shape)shape;
	size = c->obj ? json_object_get(c->obj, "size") : NULL;
	if (size && json_is_array(size)) {
		/* MJCF's size="x y z"; a sphere uses only x, as in MuJoCo, so a sweep can
		 * turn a box into a sphere of radius hx */
		if (field_numbers(c, "size", 3, s->size) != 0)
			return -1;
		for (i = 0; i < (s->shape == CORE_SCENE_BOX ? 3 : 1); i++)
			if (field_positive_within(c, "size", i, s->size[i], LIMIT_MAX_SIZE) != 0)
				return -1;
	} else if (size) {
		if (!json_is_number(size))
			return field_fail(c, "size", -1, ERR_BAD_TYPE, "%s",
			    "must be a number (radius, or half edge of a cube) or [x, y, z]");
		if (field_number(c, "size", &s->size[0]) != 0 ||
		    field_positive_within(c, "size", -1, s->size[0], LIMIT_MAX_SIZE) != 0)
			return -1;
		s->size[1] = s->size[2] = s->size[0];
	}
	if (s->shape == CORE_SCENE_SPHERE)
		s->size[1] = s->size[2] = 0; /* a sphere has one size; keep the struct canonical */
	if (field_number(c, "mass", &s->mass) != 0 ||
	    field_positive_within(c, "mass", -1, s->mass, LIMIT_MAX_MASS) != 0)
		return -1;
	return check_compilable(c, s);
}

const char *const req_option_keys[] = {
    "timestep", "refsafe", "gravity", "impratio", "integrator", "cone", "mujoco", NULL};

int req_option(const struct field_ctx *c, const char *const known[], int gravity_down,
    struct core_scene_option *o)
{
	int cone = (int)o->cone;

	if (field_known(c, known) != 0)
		return -1;
	if (field_number(c, "timestep", &o->timestep) != 0)
		return -1;
	if (!(o->timestep > 0))
		return field_fail(c, "timestep", -1, ERR_BAD_VALUE, "must be > 0, not %s",
		    JTEXT_NUM(o->timestep));
	if (field_bool(c, "refsafe", &o->refsafe) != 0 ||
	    field_number(c, "gravity", &o->gravity) != 0 ||
	    (gravity_down && field_non_negative(c, "gravity", -1, o->gravity) != 0) ||
	    field_number(c, "impratio", &o->impratio) != 0)
		return -1;
	if (!(o->impratio > 0))
		return field_fail(c, "impratio", -1, ERR_BAD_VALUE, "must be > 0, not %s",
		    JTEXT_NUM(o->impratio));
	/* the release first: whether "discrete" exists depends on it */
	if (req_mujoco(c, "mujoco", &o->mujoco) != 0 ||
	    req_integrator_release(c, "integrator", o->mujoco, &o->integrator) != 0 ||
	    field_choice(c, "cone", cone_names, COUNT(cone_names), &cone) != 0)
		return -1;
	o->cone = (enum core_cone)cone;
	return 0;
}

const char *req_cone_name(enum core_cone cone)
{
	return cone_names[cone];
}

static void scene_default(struct core_scene *s, double default_height)
{
	s->shape = CORE_SCENE_BOX;
	s->size[0] = s->size[1] = s->size[2] = DEFAULT_SHAPE_SIZE;
	s->mass = DEFAULT_MASS;
	core_pair_geom_default(&s->geom);
	core_scene_option_default(&s->option);
	s->height = default_height;
	s->duration = DEFAULT_DURATION;
}

int req_scene_parse(
    json_t *v, const char *path, double default_height, struct req_scene *out, struct err *err)
{
	static const char *const known[] = {
	    "body", "geom", "floor", "option", "height", "duration", NULL};
	struct field_ctx c, body, geom, floor, option;
	struct core_scene s;
	double steps;
	unsigned given = 0;
	int i;

	scene_default(&s, default_height);
	if (field_root(&c, v, path, err) != 0 || field_known(&c, known) != 0)
		return -1;
	if (field_object(&c, "body", &body) != 0 || parse_body(&body, &s) != 0)
		return -1;
	if (field_object(&c, "geom", &geom) != 0 || parse_geom(&geom, &s.geom) != 0)
		return -1;
	/* the floor takes the body geom's value for every field it omits (the lesson's
	 * experiment sets the same solref on both geoms) */
	s.floor = s.geom;
	if (field_object(&c, "floor", &floor) != 0 || parse_geom(&floor, &s.floor) != 0)
		return -1;
	for (i = 0; floor.obj && geom_fields[i]; i++)
		if (json_object_get(floor.obj, geom_fields[i]))
			given |= 1u << i;
	if (field_object(&c, "option", &option) != 0 ||
	    req_option(&option, req_option_keys, 0, &s.option) != 0)
		return -1;
	if (field_number(&c, "height", &s.height) != 0)
		return -1;
	if (!(s.height >= 0 && s.height <= LIMIT_MAX_HEIGHT))
		return field_fail(&c, "height", -1, ERR_BAD_VALUE, "must be >= 0 and <= %g, not %s",
		    LIMIT_MAX_HEIGHT, JTEXT_NUM(s.height));
	if (field_number(&c, "duration", &s.duration) != 0 ||
	    field_non_negative(&c, "duration", -1, s.duration) != 0)
		return -1;
	/* round(duration / timestep) <= limit, decided before rounding so a huge
	 * quotient never reaches lround */
	steps = s.duration / s.option.timestep;
	if (!(steps < LIMIT_MAX_STEPS + 0.5))
		return field_fail(&c, "duration", -1, ERR_TOO_LARGE,
		    "duration / timestep = %.3g steps is over the limit of %ld", steps,
		    LIMIT_MAX_STEPS);
	out->scene = s;
	out->floor_given = given;
	return 0;
}

const struct ans_alias req_scene_aliases[] = {
    {"timeconst", "/geom/solref/0"},
    {"dampratio", "/geom/solref/1"},
    {"timestep", "/option/timestep"},
    {"d0", "/geom/solimp/0"},
    {"dwidth", "/geom/solimp/1"},
    {"width", "/geom/solimp/2"},
    {"midpoint", "/geom/solimp/3"},
    {"power", "/geom/solimp/4"},
    {"mass", "/body/mass"},
    {"height", "/height"},
    {"duration", "/duration"},
    {"gravity", "/option/gravity"},
    {"impratio", "/option/impratio"},
    {"friction", "/geom/friction/0"},
    {"margin", "/geom/margin"},
    {"gap", "/geom/gap"},
    {NULL, NULL},
};

long req_scene_steps(const struct req_scene *r)
{
	return core_sim_step_count(r->scene.duration, r->scene.option.timestep);
}

int req_scene_expose(json_t *v, const char *ptr, struct err *err)
{
	static const char prefix[] = "/floor/";
	json_t *floor = json_object_get(v, "floor"), *geom = json_object_get(v, "geom");
	const char *end;
	char *member;
	json_t *value;
	int rc;

	if (strncmp(ptr, prefix, sizeof prefix - 1) != 0 || !json_is_object(floor) ||
	    !json_is_object(geom))
		return 0;
	/* geom field names hold no '~' or '/', so the member token needs no unescaping */
	ptr += sizeof prefix - 1;
	end = strchr(ptr, '/');
	member = strndup(ptr, end ? (size_t)(end - ptr) : strlen(ptr));
	if (!member)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	rc = 0;
	value = json_object_get(geom, member);
	if (value && !json_object_get(floor, member) &&
	    json_object_set_new(floor, member, json_deep_copy(value)) != 0)
		rc = err_set(err, ERR_INTERNAL, "", "out of memory");
	free(member);
	return rc;
}

/* Set key of obj to value (stolen); remembers failure in *ok so callers check once. */
static void put(json_t *obj, const char *key, json_t *value, int *ok)
{
	if (json_object_set_new(obj, key, value) != 0)
		*ok = 0;
}

/* The geom's fields whose bit is set in mask (the order of geom_fields). */
static json_t *geom_json(const struct core_pair_geom *g, unsigned mask)
{
	json_t *obj = json_object(), *value;
	int ok = obj != NULL, i;

	for (i = 0; ok && geom_fields[i]; i++) {
		if (!(mask & (1u << i)))
			continue;
		switch (i) {
		case 0:
			value = field_reals(g->solref, 2);
			break;
		case 1:
			value = field_reals(g->solimp, 5);
			break;
		case 2: /* the integers print as integers: 6, not 6.0 */
			value = json_integer(g->condim);
			break;
		case 3:
			value = field_reals(g->friction, 3);
			break;
		case 4:
			value = json_real(g->margin);
			break;
		case 5:
			value = json_real(g->gap);
			break;
		case 6:
			value = json_real(g->solmix);
			break;
		default:
			value = json_integer(g->priority);
			break;
		}
		put(obj, geom_fields[i], value, &ok);
	}
	if (!ok) {
		json_decref(obj);
		return NULL;
	}
	return obj;
}

json_t *req_scene_json(const struct req_scene *r)
{
	const struct core_scene *s = &r->scene;
	json_t *root = json_object(), *body = json_object(), *option = json_object();
	int ok = root && body && option;

	if (!ok) {
		json_decref(root);
		json_decref(body);
		json_decref(option);
		return NULL;
	}
	put(body, "shape", json_string(shape_names[s->shape]), &ok);
	put(body, "size",
	    s->shape == CORE_SCENE_SPHERE ? json_real(s->size[0]) : field_reals(s->size, 3), &ok);
	put(body, "mass", json_real(s->mass), &ok);
	put(option, "timestep", json_real(s->option.timestep), &ok);
	put(option, "refsafe", json_boolean(s->option.refsafe), &ok);
	put(option, "gravity", json_real(s->option.gravity), &ok);
	put(option, "impratio", json_real(s->option.impratio), &ok);
	put(option, "integrator", json_string(integrator_names[s->option.integrator]), &ok);
	put(option, "cone", json_string(req_cone_name(s->option.cone)), &ok);
	put(option, "mujoco", json_string(core_mjver_name(s->option.mujoco)), &ok);
	put(root, "body", body, &ok);
	put(root, "option", option, &ok);
	put(root, "geom", geom_json(&s->geom, ~0u), &ok);
	put(root, "floor", geom_json(&s->floor, r->floor_given), &ok);
	put(root, "height", json_real(s->height), &ok);
	put(root, "duration", json_real(s->duration), &ok);
	if (!ok) {
		json_decref(root);
		return NULL;
	}
	return root;
}

int req_stability_parse(json_t *v, const char *path, struct req_stability *out, struct err *err)
{
	static const char *const known[] = {"solref", "solimp", "option", "impedance", NULL};
	static const char *const option_known[] = {
	    "timestep", "refsafe", "integrator", "cone", "mujoco", NULL};
	struct field_ctx c, option;
	int cone = CORE_CONE_PYRAMIDAL; /* validated only: the linearized spring has no cone */
	struct req_stability r;
	struct core_pair_geom defaults;
	struct core_law_solimp clamped;

	core_pair_geom_default(&defaults);
	r.solref[0] = defaults.solref[0];
	r.solref[1] = defaults.solref[1];
	for (int i = 0; i < 5; i++)
		r.solimp[i] = defaults.solimp[i];
	r.timestep = DEFAULT_TIMESTEP;
	r.refsafe = 1;
	r.integrator = CORE_SCENE_EULER;
	r.mujoco = core_mjver_default();

	if (field_root(&c, v, path, err) != 0 || field_known(&c, known) != 0)
		return -1;
	if (field_numbers(&c, "solref", 2, r.solref) != 0 ||
	    field_numbers(&c, "solimp", 5, r.solimp) != 0)
		return -1;
	if (field_object(&c, "option", &option) != 0 || field_known(&option, option_known) != 0)
		return -1;
	if (field_number(&option, "timestep", &r.timestep) != 0)
		return -1;
	if (!(r.timestep > 0))
		return field_fail(&option, "timestep", -1, ERR_BAD_VALUE, "must be > 0, not %s",
		    JTEXT_NUM(r.timestep));
	if (field_bool(&option, "refsafe", &r.refsafe) != 0 ||
	    req_mujoco(&option, "mujoco", &r.mujoco) != 0 ||
	    req_integrator_release(&option, "integrator", r.mujoco, &r.integrator) != 0 ||
	    field_choice(&option, "cone", cone_names, COUNT(cone_names), &cone) != 0)
		return -1;
	/* the default impedance is the plateau d(r >= width): solimp's clamped dwidth */
	core_law_solimp_clamp(r.solimp, &clamped);
	r.impedance = clamped.dwidth;
	if (field_number(&c, "impedance", &r.impedance) != 0)
		return -1;
	if (!(r.impedance >= MJ_MINIMP && r.impedance <= MJ_MAXIMP))
		return field_fail(&c, "impedance", -1, ERR_BAD_VALUE,
		    "must be within MuJoCo's impedance range [%g, %g], not %s", MJ_MINIMP,
		    MJ_MAXIMP, JTEXT_NUM(r.impedance));
	*out = r;
	return 0;
}

json_t *req_stability_json(const struct req_stability *r)
{
	json_t *root = json_object(), *option = json_object();
	int ok = root && option;

	if (!ok) {
		json_decref(root);
		json_decref(option);
		return NULL;
	}
	put(option, "timestep", json_real(r->timestep), &ok);
	put(option, "refsafe", json_boolean(r->refsafe), &ok);
	put(option, "integrator", json_string(integrator_names[r->integrator]), &ok);
	put(option, "mujoco", json_string(core_mjver_name(r->mujoco)), &ok);
	put(root, "option", option, &ok);
	put(root, "solref", field_reals(r->solref, 2), &ok);
	put(root, "solimp", field_reals(r->solimp, 5), &ok);
	put(root, "impedance", json_real(r->impedance), &ok);
	if (!ok) {
		json_decref(root);
		return NULL;
	}
	return root;
}
