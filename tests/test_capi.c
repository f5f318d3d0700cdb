/*
 * test_capi.c: the public header's C interface (include/contactd.h), as a program of a
 * library user sees it, linked against libcontactd and reading only contactd.h.
 *
 * The public structs are not the core's: src/lib/capi.c copies each field into the core's
 * types and the answers back. A field it missed or crossed would still compile, so every
 * answer here is held, bit for bit, to what ctd_answer() says for the same question in
 * JSON, which reaches the core through the service layer and never through capi.c: random
 * scenes of every shape, integrator, cone, release and refsafe setting, every answer field
 * the JSON carries compared exactly (a real's text reads back as the same double). The
 * defaults the header documents and the compile-time version are checked against their
 * sources too.
 */
#include <contactd.h>

#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "testlib.h"

/* The answer of POST /v1/ENDPOINT for body (a JSON object, stolen), which must be 200. */
static json_t *ask(const char *endpoint, json_t *body)
{
	char *request = json_dumps(body, JSON_COMPACT), *answer;
	size_t len;
	json_error_t e;
	json_t *v;
	int status;

	ck_assert_ptr_nonnull(request);
	status = ctd_answer(endpoint, request, strlen(request), &answer, &len);
	ck_assert_msg(status == 200, "%s %s: %d %s", endpoint, request, status, answer);
	v = json_loads(answer, 0, &e);
	ck_assert_ptr_nonnull(v);
	ctd_answer_free(answer);
	free(request);
	json_decref(body);
	return v;
}

/* a real field, or NAN for null */
static double real(const json_t *a, const char *key)
{
	const json_t *v = json_object_get(a, key);

	ck_assert_msg(v != NULL, "no field %s", key);
	return json_is_null(v) ? NAN : json_number_value(v);
}

static long integer(const json_t *a, const char *key)
{
	const json_t *v = json_object_get(a, key);

	ck_assert_msg(json_is_integer(v) || json_is_boolean(v), "field %s", key);
	return json_is_boolean(v) ? (long)json_is_true(v) : (long)json_integer_value(v);
}

/* bit for bit, NAN (null) equal to NAN, and -0 to 0 (an answer never says -0); n: the
 * random case */
static void same(double x, double y, const char *what, int n)
{
	ck_assert_msg(memcmp(&x, &y, sizeof x) == 0 || (isnan(x) && isnan(y)) || (x == 0 && y == 0),
	    "%s: %.17g (C) != %.17g (JSON), case %d", what, x, y, n);
}
#define SAME(x, y, what) same((x), (y), (what), n)

static const char *const integrator_names[] = {
    [CTD_SCENE_EULER] = "Euler",
    [CTD_SCENE_IMPLICIT] = "implicit",
    [CTD_SCENE_IMPLICITFAST] = "implicitfast",
    [CTD_SCENE_RK4] = "RK4",
    [CTD_SCENE_DISCRETE] = "discrete",
};

/* a release, and an integrator it has (discrete from 3.13.0); rk4: may it be RK4 */
static void pick_option(uint64_t *seed, struct ctd_scene_option *o, int rk4)
{
	ctd_scene_option_default(o);
	o->mujoco = (int)(tl_uniform(seed) * ctd_mjver_count());
	o->timestep = tl_uniform(seed) < 0.5 ? 0.002 : 0.001 + 0.004 * tl_uniform(seed);
	o->refsafe = tl_uniform(seed) < 0.7;
	o->impratio = tl_uniform(seed) < 0.5 ? 1 : 1 + 9 * tl_uniform(seed);
	o->cone = tl_uniform(seed) < 0.5 ? CTD_CONE_PYRAMIDAL : CTD_CONE_ELLIPTIC;
	for (;;) {
		o->integrator = (enum ctd_scene_integrator)(tl_uniform(seed) * 5);
		if (o->integrator == CTD_SCENE_RK4 && !rk4)
			continue;
		if (o->integrator == CTD_SCENE_DISCRETE && o->mujoco < ctd_mjver_find("3.13.0"))
			continue;
		break;
	}
}

static void pick_geom(uint64_t *seed, struct ctd_pair_geom *g)
{
	static const int condims[] = {1, 3, 4, 6};

	ctd_pair_geom_default(g);
	g->solref[0] = tl_between(seed, 0.002, 0.05);
	g->solref[1] = tl_between(seed, 0.3, 2);
	g->solimp[0] = tl_between(seed, 0.5, 0.95);
	g->condim = condims[(int)(tl_uniform(seed) * 4)];
	g->friction[0] = tl_between(seed, 0.3, 1.5);
	g->solmix = tl_between(seed, 0.5, 2);
	g->priority = tl_uniform(seed) < 0.3;
}

static json_t *geom_json(const struct ctd_pair_geom *g, json_t *obj)
{
	json_object_set_new(obj, "solref", json_pack("[f, f]", g->solref[0], g->solref[1]));
	json_object_set_new(obj, "solimp",
	    json_pack("[f, f, f, f, f]", g->solimp[0], g->solimp[1], g->solimp[2], g->solimp[3],
	        g->solimp[4]));
	json_object_set_new(obj, "condim", json_integer(g->condim));
	json_object_set_new(obj, "friction",
	    json_pack("[f, f, f]", g->friction[0], g->friction[1], g->friction[2]));
	json_object_set_new(obj, "margin", json_real(g->margin));
	json_object_set_new(obj, "gap", json_real(g->gap));
	json_object_set_new(obj, "solmix", json_real(g->solmix));
	json_object_set_new(obj, "priority", json_integer(g->priority));
	return obj;
}

static json_t *option_json(const struct ctd_scene_option *o)
{
	return json_pack("{s:f, s:b, s:f, s:f, s:s, s:s, s:s}", "timestep", o->timestep, "refsafe",
	    o->refsafe, "gravity", o->gravity, "impratio", o->impratio, "integrator",
	    integrator_names[o->integrator], "cone",
	    o->cone == CTD_CONE_ELLIPTIC ? "elliptic" : "pyramidal", "mujoco",
	    ctd_mjver_name(o->mujoco));
}

static void pick_scene(uint64_t *seed, struct ctd_scene *s)
{
	memset(s, 0, sizeof *s);
	s->shape = tl_uniform(seed) < 0.5 ? CTD_SCENE_SPHERE : CTD_SCENE_BOX;
	s->size[0] = tl_between(seed, 0.01, 0.1);
	s->size[1] = s->shape == CTD_SCENE_BOX ? tl_between(seed, 0.01, 0.1) : s->size[0];
	s->size[2] = s->shape == CTD_SCENE_BOX ? tl_between(seed, 0.01, 0.1) : s->size[0];
	s->mass = tl_between(seed, 0.1, 3);
	pick_geom(seed, &s->geom);
	pick_geom(seed, &s->floor);
	pick_option(seed, &s->option, 1);
	s->height = tl_uniform(seed) < 0.3 ? 0 : tl_between(seed, 0, 0.1);
	s->duration = tl_between(seed, 0.05, 0.4);
}

static json_t *scene_json(const struct ctd_scene *s)
{
	json_t *body = json_object();

	json_object_set_new(
	    body, "shape", json_string(s->shape == CTD_SCENE_BOX ? "box" : "sphere"));
	json_object_set_new(body, "size",
	    s->shape == CTD_SCENE_BOX ? json_pack("[f, f, f]", s->size[0], s->size[1], s->size[2])
	                              : json_real(s->size[0]));
	json_object_set_new(body, "mass", json_real(s->mass));
	return json_pack("{s:o, s:o, s:o, s:o, s:f, s:f}", "body", body, "geom",
	    geom_json(&s->geom, json_object()), "floor", geom_json(&s->floor, json_object()),
	    "option", option_json(&s->option), "height", s->height, "duration", s->duration);
}

START_TEST(rest_as_json)
{
	uint64_t seed = 0xca91;
	struct ctd_scene s;
	struct ctd_sim_rest r;
	json_t *a;
	int n;

	for (n = 0; n < 60; n++) {
		pick_scene(&seed, &s);
		ctd_sim_rest_scene(&s, &r);
		a = ask("rest", scene_json(&s));
		SAME(
		    r.has_equilibrium ? r.penetration : NAN, real(a, "penetration"), "penetration");
		SAME(r.settled_penetration, real(a, "settled_penetration"), "settled_penetration");
		if (r.has_equilibrium)
			SAME(r.impedance, real(a, "impedance"), "impedance");
		SAME(r.K, real(a, "K"), "K");
		SAME(r.B, real(a, "B"), "B");
		SAME(r.timeconst_used > 0 ? r.timeconst_used : NAN, real(a, "timeconst_used"),
		    "timeconst_used");
		ck_assert_int_eq(r.contacts, integer(a, "contacts"));
		ck_assert_int_eq(r.rows, integer(a, "rows"));
		ck_assert_int_eq(r.refsafe_replaced, integer(a, "refsafe_replaced"));
		json_decref(a);
	}
}
END_TEST

START_TEST(drop_as_json)
{
	uint64_t seed = 0xd209;
	struct ctd_scene s;
	struct ctd_sim_drop d;
	double t[64], z[64];
	struct ctd_sim_trace trace = {t, z, 64, 0};
	json_t *a;
	int n;

	for (n = 0; n < 60; n++) {
		pick_scene(&seed, &s);
		ctd_sim_drop_scene(&s, &d, n % 2 ? &trace : NULL);
		a = ask("drop", scene_json(&s));
		SAME(d.peak_penetration, real(a, "peak_penetration"), "peak_penetration");
		SAME(d.rebound, real(a, "rebound"), "rebound");
		SAME(d.max_height, real(a, "max_height"), "max_height");
		SAME(d.jitter, real(a, "jitter"), "jitter");
		SAME(d.final_penetration, real(a, "final_penetration"), "final_penetration");
		ck_assert_int_eq(d.energy_gain, integer(a, "energy_gain"));
		ck_assert_int_eq(d.steps, integer(a, "steps"));
		if (n % 2) {
			/* the trace's last point is the last step, the deepest its peak */
			double lowest = z[0];

			ck_assert_uint_ge(trace.count, 2);
			ck_assert_uint_le(trace.count, 64);
			for (size_t i = 1; i < trace.count; i++)
				lowest = fmin(lowest, z[i]);
			SAME(-d.final_penetration, z[trace.count - 1], "last traced height");
			SAME(-d.peak_penetration, lowest, "lowest traced height");
		}
		json_decref(a);
	}
}
END_TEST

START_TEST(stability_as_json)
{
	uint64_t seed = 0x57ab;
	struct ctd_growth_report g;
	struct ctd_scene_option o;
	struct ctd_pair_geom geom;
	double impedance;
	json_t *a;
	int n;

	for (n = 0; n < 200; n++) {
		pick_geom(&seed, &geom);
		pick_option(&seed, &o, 1);
		if (tl_uniform(&seed) < 0.3)
			geom.solref[0] = tl_between(&seed, 0.0005, 0.004); /* under 2 timesteps */
		impedance = tl_between(&seed, 0.5, 0.95);
		ctd_growth_stability(
		    geom.solref, geom.solimp, impedance, o.timestep, o.refsafe, o.integrator, &g);
		a = ask("stability",
		    json_pack("{s:[f, f], s:[f, f, f, f, f], s:f, s:{s:f, s:b, s:s, s:s}}",
		        "solref", geom.solref[0], geom.solref[1], "solimp", geom.solimp[0],
		        geom.solimp[1], geom.solimp[2], geom.solimp[3], geom.solimp[4], "impedance",
		        impedance, "option", "timestep", o.timestep, "refsafe", o.refsafe,
		        "integrator", integrator_names[o.integrator], "mujoco",
		        ctd_mjver_name(o.mujoco)));
		SAME(g.growth, real(a, "growth"), "growth");
		SAME(g.h_omega, real(a, "h_omega"), "h_omega");
		ck_assert_int_eq(g.stable, integer(a, "stable"));
		SAME(g.timeconst_used > 0 ? g.timeconst_used : NAN, real(a, "timeconst_used"),
		    "timeconst_used");
		ck_assert_int_eq(g.guard_gap, integer(a, "guard_gap"));
		SAME(g.error_reduction, real(a, "error_reduction"), "error_reduction");
		SAME(g.impedance, real(a, "impedance"), "impedance");
		SAME(g.K, real(a, "K"), "K");
		SAME(g.B, real(a, "B"), "B");
		ck_assert_int_eq(g.refsafe_replaced, integer(a, "refsafe_replaced"));
		json_decref(a);
	}
}
END_TEST

static const char *const shape_names[] = {"sphere", "capsule", "box"};

static json_t *hold_json(const struct ctd_hold *h)
{
	json_t *object = geom_json(&h->object, json_object());
	json_t *pad = geom_json(&h->pad, json_object());
	json_t *option = option_json(&h->option);
	json_t *body;

	json_object_set_new(object, "shape", json_string(shape_names[h->shape]));
	json_object_set_new(object, "size",
	    h->shape == CTD_HOLD_SPHERE    ? json_real(h->size[0])
	        : h->shape == CTD_HOLD_BOX ? json_pack("[f, f, f]", h->size[0], h->size[1], h->size[2])
	                                   : json_pack("[f, f]", h->size[0], h->size[1]));
	json_object_set_new(object, "mass", json_real(h->mass));
	json_object_set_new(
	    pad, "size", json_pack("[f, f, f]", h->pad_size[0], h->pad_size[1], h->pad_size[2]));
	json_object_set_new(pad, "mass", json_real(h->pad_mass));
	json_object_set_new(pad, "joint",
	    json_pack("{s:f, s:f, s:f}", "damping", h->joint.damping, "armature", h->joint.armature,
	        "frictionloss", h->joint.frictionloss));
	if (h->actuator.type == CTD_HOLD_POSITION) {
		json_t *servo = json_pack("{s:s, s:f, s:f, s:f}", "type", "position", "kp",
		    h->actuator.kp, "kv", h->actuator.kv, "squeeze", h->actuator.squeeze);

		if (h->actuator.forcelimited)
			json_object_set_new(servo, "forcerange",
			    json_pack("[f, f]", h->actuator.forcerange[0], h->actuator.forcerange[1]));
		json_object_set_new(pad, "actuator", servo);
	} else {
		json_object_set_new(pad, "actuator", json_pack("{s:s}", "type", "motor"));
	}
	json_object_set_new(option, "noslip_iterations", json_integer(h->noslip_iterations));
	body = json_pack("{s:o, s:o, s:o, s:f, s:f}", "object", object, "pad", pad, "option",
	    option, "duration", h->duration, "slip_limit", h->slip_limit);
	if (h->actuator.type == CTD_HOLD_MOTOR)
		json_object_set_new(body, "grip_force", json_real(h->grip_force));
	return body;
}

/* A refused grasp: the JSON entry point's 422 carries ctd_hold_supported()'s sentence
 * (why), or (why NULL: pads pressed through the object) names the drive's field. */
static void assert_refused(const struct ctd_hold *h, const char *why)
{
	json_t *body = hold_json(h), *e;
	char *request = json_dumps(body, JSON_COMPACT), *answer;
	size_t len;
	int status = ctd_answer("hold", request, strlen(request), &answer, &len);

	ck_assert_msg(status == 422, "%s: %d, not 422 (%s)", request, status, why ? why : "crushed");
	e = json_loads(answer, 0, NULL);
	if (why)
		ck_assert_str_eq(json_string_value(json_object_get(e, "message")), why);
	else
		ck_assert_str_eq(json_string_value(json_object_get(e, "path")),
		    h->actuator.type == CTD_HOLD_POSITION ? "/pad/actuator/squeeze" : "/grip_force");
	json_decref(e);
	ctd_answer_free(answer);
	free(request);
	json_decref(body);
}

/* Random grasps of every shape (n % 3) and drive (a servo every other three), each
 * asked through the struct API and through the JSON entry point. */
START_TEST(hold_as_json)
{
	uint64_t seed = 0x401d;
	struct ctd_hold h;
	struct ctd_hold_answer r;
	const char *why;
	json_t *a;
	int n, run, refused = 0, crushed = 0;

	for (n = 0; n < 36; n++) {
		ctd_hold_default(&h);
		h.shape = (enum ctd_hold_shape)(n % 3);
		h.size[0] = tl_between(&seed, 0.01, 0.03);
		h.size[1] = tl_between(&seed, 0.005, 0.03);
		h.size[2] = tl_between(&seed, 0.005, 0.03);
		h.mass = tl_between(&seed, 0.05, 0.3);
		h.grip_force = tl_between(&seed, 2, 20);
		h.pad.solref[0] = tl_between(&seed, 0.005, 0.03);
		h.pad.friction[0] = tl_between(&seed, 0.5, 1.5);
		if (tl_uniform(&seed) < 0.5)
			h.joint.damping = tl_between(&seed, 1, 100);
		if (tl_uniform(&seed) < 0.3)
			h.joint.armature = tl_between(&seed, 0.001, 0.05);
		if (tl_uniform(&seed) < 0.3)
			h.joint.frictionloss = tl_between(&seed, 0.01, 0.2);
		if ((n / 3) % 2) {
			h.actuator.type = CTD_HOLD_POSITION;
			h.actuator.kp = tl_between(&seed, 1000, 30000);
			h.actuator.kv = tl_uniform(&seed) < 0.5 ? 0 : tl_between(&seed, 1, 20);
			h.actuator.squeeze = tl_between(&seed, 5e-4, 3e-3);
			h.actuator.forcelimited = tl_uniform(&seed) < 0.3;
			h.actuator.forcerange[0] = -tl_between(&seed, 5, 50);
			h.actuator.forcerange[1] = tl_between(&seed, 5, 50);
		}
		pick_option(&seed, &h.option, 0);
		h.noslip_iterations = tl_uniform(&seed) < 0.25 ? 2 : 0;
		h.duration = tl_between(&seed, 0.1, 0.4);
		h.slip_limit = tl_between(&seed, 5e-4, 2e-3);
		why = ctd_hold_supported(&h);
		if (why) {
			assert_refused(&h, why);
			refused++;
			continue;
		}
		ctd_hold_solve(&h, &r);
		if (r.crushed) {
			/* pads pressed through the object: a 422 at the drive's field */
			assert_refused(&h, NULL);
			crushed++;
			continue;
		}
		a = ask("hold", hold_json(&h));
		ck_assert_int_eq(r.reproducible, integer(a, "reproducible"));
		ck_assert_int_eq(r.steps, integer(a, "steps"));
		run = r.reproducible;
		SAME(r.normal_force, real(a, "normal_force"), "normal_force");
		SAME(r.load, real(a, "load"), "load");
		SAME(r.friction_capacity, real(a, "friction_capacity"), "friction_capacity");
		ck_assert_int_eq(r.creep_closed_form, integer(a, "creep_closed_form"));
		ck_assert_int_eq(r.refsafe_clamped, integer(a, "refsafe_clamped"));
		ck_assert_int_eq(r.refsafe_replaced, integer(a, "refsafe_replaced"));
		ck_assert_int_eq(r.friction_clamped, integer(a, "friction_clamped"));
		ck_assert_int_eq(r.solref_fell_back, integer(a, "solref_fallback"));
		ck_assert_int_eq(
		    r.time_to_slip_extrapolated, integer(a, "time_to_slip_extrapolated"));
		if (!run)
			goto next;
		ck_assert_int_eq(r.holds, integer(a, "holds"));
		ck_assert_int_eq(r.falls, integer(a, "falls"));
		SAME(r.creep_settled ? r.creep_velocity : NAN, real(a, "creep_velocity"),
		    "creep_velocity");
		SAME(r.creep_settled ? r.penetration : NAN, real(a, "penetration"), "penetration");
		SAME(r.falls ? NAN : r.slip, real(a, "slip"), "slip");
		SAME(r.time_to_slip >= 0 ? r.time_to_slip : NAN, real(a, "time_to_slip"),
		    "time_to_slip");
		SAME(r.falls ? r.fall_time : NAN, real(a, "fall_time"), "fall_time");
	next:
		json_decref(a);
	}
	/* a third at least are answered (a refusal is noslip's on a capsule, a box or a
	 * servo, or a one-pad start's) */
	fprintf(stderr, "hold_as_json: %d refused, %d crushed of %d\n", refused, crushed, n);
	ck_assert_int_le(refused + crushed, 24);
}
END_TEST

/* The defaults the header documents, and the library's version at compile and run time. */
START_TEST(defaults_and_version)
{
	struct ctd_pair_geom g;
	struct ctd_scene_option o;
	struct ctd_hold h;
	char version[64];
	int n = 0;

	ctd_pair_geom_default(&g);
	SAME(g.solref[0], 0.02, "solref[0]");
	SAME(g.solref[1], 1, "solref[1]");
	SAME(g.solimp[0], 0.9, "solimp[0]");
	SAME(g.solimp[1], 0.95, "solimp[1]");
	SAME(g.solimp[2], 0.001, "solimp[2]");
	SAME(g.solimp[3], 0.5, "solimp[3]");
	SAME(g.solimp[4], 2, "solimp[4]");
	ck_assert_int_eq(g.condim, 3);
	SAME(g.friction[0], 1, "friction[0]");
	SAME(g.friction[1], 0.005, "friction[1]");
	SAME(g.friction[2], 0.0001, "friction[2]");
	SAME(g.margin + g.gap, 0, "margin, gap");
	SAME(g.solmix, 1, "solmix");
	ck_assert_int_eq(g.priority, 0);

	ctd_scene_option_default(&o);
	SAME(o.timestep, 0.002, "timestep");
	ck_assert_int_eq(o.refsafe, 1);
	SAME(o.gravity, 9.81, "gravity");
	SAME(o.impratio, 1, "impratio");
	ck_assert_int_eq(o.integrator, CTD_SCENE_EULER);
	ck_assert_int_eq(o.cone, CTD_CONE_PYRAMIDAL);
	ck_assert_int_eq(o.mujoco, ctd_mjver_default());
	ck_assert_int_eq(ctd_mjver_default(), ctd_mjver_count() - 1);
	ck_assert_int_eq(ctd_mjver_find(ctd_mjver_name(0)), 0);
	ck_assert_int_eq(ctd_mjver_find("1.0.0"), -1);
	ck_assert_int_eq(ctd_mjver_find(NULL), -1);
	ck_assert_ptr_nonnull(strstr(ctd_mjver_supported(), ctd_mjver_name(ctd_mjver_default())));

	/* the header's default pinch */
	ctd_hold_default(&h);
	SAME(h.size[0], 0.02, "radius");
	SAME(h.mass, 0.1, "mass");
	SAME(h.pad_size[0], 0.005, "pad HX");
	SAME(h.pad_size[1], 0.02, "pad HY");
	SAME(h.pad_size[2], 0.2, "pad HZ");
	SAME(h.pad_mass, 0.05, "pad mass");
	SAME(h.pad.solref[0], 0.01, "pad timeconst");
	ck_assert_int_eq(h.pad.condim, 6);
	ck_assert_int_eq(h.pad.priority, 1);
	SAME(h.grip_force, 10, "grip force");
	ck_assert_int_eq(h.noslip_iterations, 0);
	SAME(h.duration, 1, "duration");
	SAME(h.slip_limit, 1e-3, "slip limit");

	snprintf(version, sizeof version, "%d.%d.%d", CONTACTD_VERSION_MAJOR,
	    CONTACTD_VERSION_MINOR, CONTACTD_VERSION_PATCH);
	ck_assert_str_eq(version, PACKAGE_VERSION);
	ck_assert_str_eq(ctd_version(), PACKAGE_VERSION);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("capi");
	TCase *tc = tcase_create("capi");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, defaults_and_version);
	tcase_add_test(tc, rest_as_json);
	tcase_add_test(tc, drop_as_json);
	tcase_add_test(tc, stability_as_json);
	tcase_add_test(tc, hold_as_json);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
