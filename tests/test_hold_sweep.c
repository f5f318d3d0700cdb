/*
 * test_hold_sweep.c: a hold sweep's rows are the single POST /v1/hold answers of its
 * points, byte for byte, and a streamed hold sweep (JSON rows, CSV, CSV with JSON)
 * prints exactly the bytes of the whole answer.
 *
 * Random 2 x 2 grids over two of the hold request's fields (grip force, impratio, cone,
 * pad solref and solimp, pad friction, object mass and size, timestep; by pointer or
 * alias), each on a random base (release, integrator, cone, pad condim, ...; from 3.13.0
 * on, as many grids again under discrete): every
 * row's cells must print as the single answer's members print. A point whose pads
 * crush the object (a 422 as one request) must be a row of nulls but for the release
 * and core version. Two worker threads, so rows finish out of order. No tolerance:
 * the claim is bit-for-bit identity.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jtext.h"
#include "core/mjver.h"
#include "service/service.h"
#include "service/sweep.h"
#include "base/jsonptr.h"
#include "svc_test.h"
#include "testlib.h"
#include "core/knobs.h"

#define GRID 2  /* values per vary entry */
#define GRIDS 6 /* grids per release */

static uint64_t rng_state = 0x6a09e667f3bcc909u;

static double uniform(void)
{
	return tl_uniform(&rng_state);
}

static double between(double lo, double hi)
{
	return tl_between(&rng_state, lo, hi);
}

/* What an axis needs of its base: nothing, a servo, a motor, a capsule's or box's
 * second size. */
enum needs { ANY, SERVO, MOTOR, LONG };

/* A field a grid varies: its alias (or pointer), its pointer, and a random value. */
struct axis {
	const char *name, *ptr;
	double lo, hi; /* lo > hi: the cone */
	enum needs needs;
};

static const struct axis axes[] = {
    {"grip_force", "/grip_force", 0.5, 40, MOTOR},
    {"impratio", "/option/impratio", 1, 20, ANY},
    {"cone", "/option/cone", 1, 0, ANY},
    {"timeconst", "/pad/solref/0", 0.004, 0.05, ANY},
    {"/pad/solref/1", "/pad/solref/1", 0.3, 1.5, ANY},
    {"d0", "/pad/solimp/0", 0.5, 0.95, ANY},
    {"friction", "/pad/friction/0", 0.3, 1.5, ANY},
    {"mass", "/object/mass", 0.02, 0.5, ANY},
    {"size", "/object/size", 0.01, 0.04, ANY},
    {"timestep", "/option/timestep", 0.001, 0.004, ANY},
};

#define NAXES (sizeof axes / sizeof axes[0])

/* Issue 48's fields (the pads' joint and servo, the object's shape's sizes), by alias
 * and by pointer, beside a few of the others. */
static const struct axis grasp_axes[] = {
    {"/pad/actuator/squeeze", "/pad/actuator/squeeze", 0.0002, 0.004, SERVO},
    {"/pad/actuator/kp", "/pad/actuator/kp", 500, 30000, SERVO},
    {"/pad/actuator/kv", "/pad/actuator/kv", 0, 20, SERVO},
    {"damping", "/pad/joint/damping", 0, 150, ANY},
    {"/pad/joint/armature", "/pad/joint/armature", 0, 0.05, ANY},
    {"frictionloss", "/pad/joint/frictionloss", 0, 0.2, ANY},
    /* a sphere's canonical size is a number, which /object/size/0 does not name */
    {"/object/size/0", "/object/size/0", 0.004, 0.02, LONG},
    {"/object/size/1", "/object/size/1", 0.005, 0.02, LONG},
    {"grip_force", "/grip_force", 0.5, 40, MOTOR},
    {"cone", "/option/cone", 1, 0, ANY},
    {"mass", "/object/mass", 0.02, 0.3, ANY},
};

#define NGRASP_AXES (sizeof grasp_axes / sizeof grasp_axes[0])

static json_t *axis_value(const struct axis *a)
{
	if (a->lo > a->hi)
		return json_string(uniform() < 0.5 ? "pyramidal" : "elliptic");
	return json_real(between(a->lo, a->hi));
}

static size_t discrete_grids;
static int force_discrete; /* random_base's integrator is "discrete" */

static json_t *random_base(const char *release)
{
	/* discrete from 3.13.0 on (mjver's discrete_integrator), a chance in two there */
	static const char *const integrators[] = {
	    "Euler", "implicit", "implicitfast", "discrete", "discrete", "discrete"};
	static const int condims[] = {3, 4, 6};
	struct core_mjver_rules rules;
	int kinds;
	json_t *base;

	core_mjver_rules(core_mjver_find(release), &rules);
	kinds = rules.discrete_integrator ? 6 : 3;
	base = json_pack("{s:{s:f, s:f}, s:{s:[f,f], s:i}, s:f,"
	                 " s:{s:f, s:f, s:s, s:s, s:s}, s:f}",
	    "object", "size", between(0.01, 0.04), "mass", between(0.02, 0.5), "pad", "solref",
	    between(0.004, 0.05), between(0.3, 1.5), "condim", condims[(int)(uniform() * 3)],
	    "grip_force", between(1, 40), "option", "timestep",
	    uniform() < 0.5 ? 0.002 : between(0.001, 0.004), "impratio",
	    uniform() < 0.5 ? 1.0 : between(1, 20), "integrator",
	    force_discrete ? "discrete" : integrators[(int)(uniform() * kinds)], "cone",
	    uniform() < 0.5 ? "pyramidal" : "elliptic", "mujoco", release, "duration",
	    between(0.05, 0.3));

	ck_assert_ptr_nonnull(base);
	discrete_grids +=
	    strcmp(
	        json_string_value(json_object_get(json_object_get(base, "option"), "integrator")),
	        "discrete") == 0;
	return base;
}

static size_t crushed_rows;

/* The text a row must hold: its varied values, then the single answer's members; a
 * point whose pads crush the object (a 422) is a row of nulls but for the release and
 * the core version. ctx: the release. */
static char *expected_row(void *ctx, const json_t *columns, const json_t *v0, const json_t *v1,
    const json_t *single, const struct err *refusal, const char *single_body)
{
	json_t *made[32] = {NULL};
	const json_t *cells[32];
	const json_t *column;
	size_t i, n = json_array_size(columns);
	char *text;

	if (single)
		return tsvc_single_row(columns, v0, v1, single);
	/* the one refusal a valid point may meet: crushed pads, pressed by a motor or a servo */
	ck_assert_msg(refusal->code == ERR_BAD_VALUE &&
	        (strcmp(refusal->path, "/grip_force") == 0 ||
	            strcmp(refusal->path, "/pad/actuator/squeeze") == 0),
	    "%s: %s (%s)", refusal->path, refusal->message, single_body);
	crushed_rows++;
	ck_assert_uint_le(n, sizeof cells / sizeof cells[0]);
	json_array_foreach (columns, i, column) {
		const char *name = json_string_value(column);

		if (i < 2)
			cells[i] = i == 0 ? v0 : v1;
		else if (strcmp(name, "mujoco") == 0)
			cells[i] = made[i] = json_string(ctx);
		else if (strcmp(name, "core_version") == 0)
			cells[i] = made[i] = json_string(CORE_VERSION);
		else
			cells[i] = made[i] = json_null();
	}
	text = tsvc_row_text(cells, n);
	for (i = 0; i < n; i++)
		json_decref(made[i]);
	return text;
}

/* A grid's fields and bases: the axes a grid picks two of (those its base has), and a
 * random base of a release, whose canonical request has every field the axes point at. */
struct grid_kind {
	const struct axis *axes;
	size_t naxes;
	json_t *(*base)(const char *release, int grid, enum needs *has);
};

static json_t *classic_base(const char *release, int grid, enum needs *has)
{
	json_t *base = random_base(release);

	(void)grid;
	has[0] = ANY;
	has[1] = MOTOR;
	has[2] = LONG;
	return base;
}

static const struct grid_kind classic = {axes, NAXES, classic_base};

/* Whether body is a request the service takes (asked only to skip refused grids). */
static int accepted(const char *body)
{
	struct svc_limits lim = tsvc_limits(1);
	json_t *canonical = NULL;
	struct err err;

	err_clear(&err);
	if (svc_canonical(SVC_HOLD, body, strlen(body), &lim, &canonical, &err) != 0)
		return 0;
	json_decref(canonical);
	return 1;
}

/* Whether the base has what axis a needs. */
static int axis_fits(const struct axis *a, const enum needs has[3])
{
	return a->needs == ANY || a->needs == has[0] || a->needs == has[1] || a->needs == has[2];
}

/* One grid: whole, streamed (JSON, CSV, CSV with JSON) and point by point; 0 (and no
 * assertion) when a point of the grid is a scene the core does not answer. */
static int check_grid_of(const struct grid_kind *kind, const char *release, int grid)
{
	struct svc_limits lim = tsvc_limits(2);
	enum needs has[3] = {ANY, ANY, ANY};
	json_t *base = kind->base(release, grid, has), *values[2], *request, *answer, *rows;
	size_t pick[2], i, k;
	char *body, *whole = NULL, *csv = NULL, *json_stream, *csv_stream;
	struct err err;
	json_error_t jerr;

	do
		pick[0] = (size_t)(uniform() * kind->naxes);
	while (!axis_fits(&kind->axes[pick[0]], has));
	do
		pick[1] = (size_t)(uniform() * kind->naxes);
	while (pick[1] == pick[0] || !axis_fits(&kind->axes[pick[1]], has));
	for (k = 0; k < 2; k++) {
		values[k] = json_array();
		for (i = 0; i < GRID; i++)
			json_array_append_new(values[k], axis_value(&kind->axes[pick[k]]));
	}
	/* every few grids, a grip force that crushes the pads into the object */
	if (kind == &classic && grid % 5 == 0 && pick[0] != 0 && pick[1] != 0)
		json_object_set_new(base, "grip_force", json_real(1e5));
	{
		/* every field present, so the single requests can set any pointer; a grasp's
		 * base the core does not answer is another grid's */
		char *text = jtext_line(base);
		int ok = kind == &classic || accepted(text);

		json_decref(base);
		base = ok ? tsvc_canonical(SVC_HOLD, text) : NULL;
		free(text);
		if (!base) {
			json_decref(values[0]);
			json_decref(values[1]);
			return 0;
		}
	}
	/* a grasp grid with a point the core does not answer (core_hold_supported) is
	 * another's; the classic scenes are all answered */
	for (i = 0; kind != &classic && i < GRID * GRID; i++) {
		json_t *point = json_deep_copy(base);
		char *text;
		int ok;

		jptr_set(
		    point, kind->axes[pick[0]].ptr, json_array_get(values[0], i / GRID), "", &err);
		jptr_set(
		    point, kind->axes[pick[1]].ptr, json_array_get(values[1], i % GRID), "", &err);
		text = jtext_line(point);
		ok = accepted(text);
		free(text);
		json_decref(point);
		if (!ok) {
			json_decref(base);
			json_decref(values[0]);
			json_decref(values[1]);
			return 0;
		}
	}
	request = json_pack("{s:s, s:O, s:[{s:s, s:O}, {s:s, s:O}]}", "query", "hold", "base", base,
	    "vary", "path", kind->axes[pick[0]].name, "values", values[0], "path",
	    kind->axes[pick[1]].name, "values", values[1]);
	body = jtext_line(request);
	err_clear(&err);
	ck_assert_ptr_nonnull(body);
	ck_assert_msg(svc_ask(SVC_SWEEP, body, strlen(body), &lim, NULL, &whole, NULL, &err) == 0,
	    "%s: %s (%s)", err.path, err.message, body);
	ck_assert_int_eq(svc_text_csv(whole, &csv, &err), 0);
	json_stream = tsvc_sweep_streamed(body, SWEEP_JSON, 0, &lim, whole);
	ck_assert_str_eq(json_stream, whole);
	csv_stream = tsvc_sweep_streamed(body, SWEEP_CSV, grid % 2, &lim, whole);
	ck_assert_str_eq(csv_stream, csv);

	answer = json_loads(whole, 0, &jerr);
	ck_assert_ptr_nonnull(answer);
	ck_assert_str_eq(json_string_value(json_object_get(answer, "query")), "hold");
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(answer, "columns"), 0)),
	    kind->axes[pick[0]].ptr);
	rows = json_object_get(answer, "rows");
	ck_assert_int_eq(json_array_size(rows), GRID * GRID);
	{
		struct tsvc_grid g = {SVC_HOLD, base,
		    {kind->axes[pick[0]].ptr, kind->axes[pick[1]].ptr}, body, whole, answer, &lim};
		struct tsvc_row_builder builder = {expected_row, (void *)release};

		for (i = 0; i < GRID * GRID; i++)
			tsvc_assert_row(&g, i, json_array_get(values[0], i / GRID),
			    json_array_get(values[1], i % GRID), &builder);
	}
	json_decref(answer);
	free(json_stream);
	free(csv_stream);
	free(csv);
	free(whole);
	free(body);
	json_decref(request);
	json_decref(values[0]);
	json_decref(values[1]);
	json_decref(base);
	return GRID * GRID;
}

static size_t grasp_shapes[3], grasp_servos;

/* A grasp of issue 48: a random shape, pads on damped joints (damping > 0, so the
 * canonical base has the joint), driven by a servo (7 in 10) or a motor. */
static json_t *grasp_base(const char *release, int grid, enum needs *has)
{
	static const char *const shapes[] = {"sphere", "capsule", "box"};
	static const char *const integrators[] = {"Euler", "implicit", "implicitfast", "discrete"};
	struct core_mjver_rules rules;
	int shape = (int)(uniform() * 3), servo = uniform() < 0.7;
	json_t *size, *actuator, *base;

	(void)grid;
	core_mjver_rules(core_mjver_find(release), &rules);
	size = shape == 0 ? json_real(between(0.005, 0.03))
	    : shape == 1  ? json_pack("[f, f]", between(0.004, 0.02), between(0.005, 0.03))
	                  : json_pack("[f, f, f]", between(0.005, 0.02), between(0.005, 0.02),
	                        between(0.005, 0.02));
	actuator = servo
	    ? json_pack("{s:s, s:f, s:f, s:f}", "type", "position", "kp", between(500, 30000), "kv",
	          uniform() < 0.5 ? 0 : between(0, 20), "squeeze", between(0.0005, 0.003))
	    : json_pack("{s:s}", "type", "motor");
	if (servo && uniform() < 0.3) {
		double f = between(1, 50);

		json_object_set_new(actuator, "forcerange", json_pack("[f, f]", -f, f));
	}
	base = json_pack("{s:{s:s, s:o, s:f}, s:{s:[f, f, f], s:f, s:{s:f, s:f, s:f}, s:o},"
	                 " s:{s:f, s:s, s:s, s:s}, s:f}",
	    "object", "shape", shapes[shape], "size", size, "mass", between(0.02, 0.3), "pad",
	    "size", between(0.004, 0.01), between(0.02, 0.04), between(0.02, 0.2), "mass",
	    between(0.05, 0.3), "joint", "damping", between(1, 150), "armature",
	    uniform() < 0.5 ? 0 : between(0, 0.05), "frictionloss",
	    uniform() < 0.5 ? 0 : between(0, 0.2), "actuator", actuator, "option", "timestep",
	    uniform() < 0.5 ? 0.002 : between(0.001, 0.004), "cone",
	    uniform() < 0.5 ? "pyramidal" : "elliptic", "integrator",
	    integrators[(int)(uniform() * (rules.discrete_integrator ? 4 : 3))], "mujoco", release,
	    "duration", between(0.05, 0.3));
	ck_assert_ptr_nonnull(base);
	if (!servo)
		json_object_set_new(base, "grip_force", json_real(between(1, 40)));
	grasp_shapes[shape]++;
	grasp_servos += servo;
	has[0] = ANY;
	has[1] = servo ? SERVO : MOTOR;
	has[2] = shape == 0 ? ANY : LONG;
	return base;
}

static const struct grid_kind grasp = {grasp_axes, NGRASP_AXES, grasp_base};

/* Issue 48's grasps in sweeps: grids over the servo's, the joint's and the shape's
 * fields (squeeze, kp, damping, /object/size/1, ...) on random capsules, boxes and
 * spheres, their rows the single answers byte for byte, as above. A grid with a scene the
 * core refuses is drawn again. */
START_TEST(grasp_sweep_rows_are_single_answers)
{
	int answered = 0, tries, points;

	for (tries = 0; answered < 16 && tries < 64; tries++) {
		int release = (int)(uniform() * core_mjver_count());

		points = check_grid_of(&grasp, core_mjver_name(release), tries);
		answered += points > 0;
	}
	fprintf(stderr,
	    "grasp grids: %d answered of %d; %zu spheres, %zu capsules, %zu boxes, "
	    "%zu servos drawn\n",
	    answered, tries, grasp_shapes[0], grasp_shapes[1], grasp_shapes[2], grasp_servos);
	ck_assert_int_ge(answered, 16);
}
END_TEST

static int check_grid(const char *release, int grid)
{
	return check_grid_of(&classic, release, grid);
}

START_TEST(hold_sweep_rows_are_single_answers)
{
	int release, grid, points = 0;

	for (release = 0; release < core_mjver_count(); release++) {
		struct core_mjver_rules rules;

		for (grid = 0; grid < GRIDS; grid++)
			points += check_grid(core_mjver_name(release), grid);
		/* and as many again under discrete where it exists */
		core_mjver_rules(release, &rules);
		force_discrete = rules.discrete_integrator;
		for (grid = 0; force_discrete && grid < GRIDS; grid++)
			points += check_grid(core_mjver_name(release), grid);
		force_discrete = 0;
	}
	ck_assert_int_ge(points, 4 * GRIDS * 3);
	fprintf(stderr, "%d points, %zu grids under discrete, %zu crushed rows\n", points,
	    discrete_grids, crushed_rows);
	/* the discrete grids were met (3.13.0 and 3.14.0: GRIDS each and more) */
	ck_assert_uint_ge(discrete_grids, 2 * GRIDS);
	/* the crushed rows were met, not only promised */
	ck_assert_uint_gt(crushed_rows, 0);
}
END_TEST

/* A hold line over grip_force: one column per answer field of /v1/hold, the alias
 * resolved, and the creep falling as the grip tightens (pyramidal: v ~ 1/F^2). */
START_TEST(hold_line_by_alias)
{
	static const char body[] = "{\"query\": \"hold\", \"base\": {\"duration\": 0.1}, \"vary\": "
	                           "[{\"path\": \"grip_force\", \"values\": [5, 10, 20]}]}";
	json_t *answer = tsvc_answer(SVC_SWEEP, body, NULL);
	json_t *columns = json_object_get(answer, "columns"),
	       *rows = json_object_get(answer, "rows");
	size_t i;
	int at = -1;

	ck_assert_str_eq(json_string_value(json_array_get(columns, 0)), "/grip_force");
	for (i = 1; i < json_array_size(columns); i++)
		if (strcmp(json_string_value(json_array_get(columns, i)), "creep_velocity") == 0)
			at = (int)i;
	ck_assert_int_eq(at, 1);
	/* 19 fields, issue #29's coulomb_holds and friction_margin, and the discrete
	 * integrator's refsafe_replaced */
	ck_assert_int_eq(json_array_size(columns), 1 + 22);
	/* the columns are the endpoint table's answer fields, in their order */
	for (i = 0; svc_endpoints[SVC_HOLD]->fields[i].name; i++)
		ck_assert_str_eq(json_string_value(json_array_get(columns, i + 1)),
		    svc_endpoints[SVC_HOLD]->fields[i].name);
	ck_assert_int_eq(i, 22);
	for (i = 1; i < 3; i++)
		ck_assert(json_real_value(json_array_get(json_array_get(rows, i), at)) <
		    json_real_value(json_array_get(json_array_get(rows, i - 1), at)));
	json_decref(answer);
}
END_TEST

/* The column of name in a sweep's answer, asserted present. */
static size_t column_of(const json_t *answer, const char *name)
{
	const json_t *columns = json_object_get(answer, "columns");
	size_t i;

	for (i = 0; i < json_array_size(columns); i++)
		if (strcmp(json_string_value(json_array_get(columns, i)), name) == 0)
			return i;
	ck_abort_msg("no column %s", name);
	return 0;
}

/* The single answer's field of a request, as the row must print it. */
static char *single_cell(const char *request, const char *field)
{
	json_t *a = tsvc_answer(SVC_HOLD, request, NULL);
	char *text = jtext_dump(json_object_get(a, field), JSON_ENCODE_ANY);

	json_decref(a);
	return text;
}

/*
 * The fields a canonical request leaves out, a plain joint, the motor and a sphere's
 * radius as an array, are sweepable by path from a base that leaves them out: each row
 * the single answer of the request with the field set; a servo's field on a motor's
 * base, or grip_force on a servo's, names nothing (unknown_field at the path). Whole
 * actuators are categories: a line over /pad/actuator from a servo's base.
 */
START_TEST(grasp_fields_exposed)
{
	static const struct {
		const char *base, *path, *values, *single; /* single: %s for the value */
	} lines[] = {
	    {"{}", "damping", "[0, 20]", "{\"pad\": {\"joint\": {\"damping\": %s}}}"},
	    {"{}", "/pad/joint/frictionloss", "[0.05]",
	        "{\"pad\": {\"joint\": {\"frictionloss\": %s}}}"},
	    {"{}", "/object/size/0", "[0.015, 0.025]", "{\"object\": {\"size\": %s}}"},
	    {"{\"pad\": {\"actuator\": {\"type\": \"position\", \"kp\": 5000, \"squeeze\": "
	     "0.001}}}",
	        "/pad/actuator/squeeze", "[0.0005, 0.002]",
	        "{\"pad\": {\"actuator\": {\"type\": \"position\", \"kp\": 5000, \"squeeze\": "
	        "%s}}}"},
	    {"{\"object\": {\"shape\": \"capsule\", \"size\": [0.004, 0.02]}}", "/object/size/1",
	        "[0.01, 0.015]", "{\"object\": {\"shape\": \"capsule\", \"size\": [0.004, %s]}}"},
	};
	size_t i, r;

	for (i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		char body[1024], single[1024];
		json_t *answer, *values = json_loads(lines[i].values, 0, NULL);
		size_t at;

		snprintf(body, sizeof body,
		    "{\"query\": \"hold\", \"base\": %s, \"vary\": [{\"path\": \"%s\", \"values\": "
		    "%s}]}",
		    lines[i].base, lines[i].path, lines[i].values);
		answer = tsvc_answer(SVC_SWEEP, body, NULL);
		at = column_of(answer, "slip");
		for (r = 0; r < json_array_size(values); r++) {
			char *value = jtext_dump(json_array_get(values, r), JSON_ENCODE_ANY);
			char *want, *got;

			snprintf(single, sizeof single, lines[i].single, value);
			want = single_cell(single, "slip");
			got = jtext_dump(
			    json_array_get(json_array_get(json_object_get(answer, "rows"), r), at),
			    JSON_ENCODE_ANY);
			ck_assert_msg(strcmp(want, got) == 0, "%s row %zu: %s, single %s",
			    lines[i].path, r, got, want);
			free(value);
			free(want);
			free(got);
		}
		json_decref(values);
		json_decref(answer);
	}
	/* what the base's drive does not have */
	tsvc_expect_error(SVC_SWEEP,
	    "{\"query\": \"hold\", \"vary\": [{\"path\": \"/pad/actuator/squeeze\", "
	    "\"values\": [0.001]}]}",
	    strlen("{\"query\": \"hold\", \"vary\": [{\"path\": \"/pad/actuator/squeeze\", "
	           "\"values\": [0.001]}]}"),
	    NULL, ERR_UNKNOWN_FIELD, "/vary/0/path");
	{
		static const char servo_grip[] =
		    "{\"query\": \"hold\", \"base\": {\"pad\": {\"actuator\": {\"type\": "
		    "\"position\", \"kp\": 5000, \"squeeze\": 0.001}}}, \"vary\": [{\"path\": "
		    "\"grip_force\", \"values\": [5]}]}";
		static const char categories[] =
		    "{\"query\": \"hold\", \"base\": {\"duration\": 0.1, \"pad\": {\"actuator\": "
		    "{\"type\": \"position\", \"kp\": 5000, \"squeeze\": 0.001}}}, \"vary\": "
		    "[{\"path\": \"/pad/actuator\", \"values\": [{\"type\": \"motor\"}, {\"type\": "
		    "\"position\", \"kp\": 8000, \"squeeze\": 0.001}]}]}";
		json_t *answer;
		char *want, *got;

		tsvc_expect_error(SVC_SWEEP, servo_grip, strlen(servo_grip), NULL,
		    ERR_UNKNOWN_FIELD, "/vary/0/path");
		answer = tsvc_answer(SVC_SWEEP, categories, NULL);
		/* the motor's row pushes with the default grip_force */
		want = single_cell("{\"duration\": 0.1}", "slip");
		got = jtext_dump(json_array_get(json_array_get(json_object_get(answer, "rows"), 0),
		                     column_of(answer, "slip")),
		    JSON_ENCODE_ANY);
		ck_assert_str_eq(got, want);
		free(want);
		free(got);
		json_decref(answer);
	}
}
END_TEST

static void expect_error(const char *body, const char *path)
{
	tsvc_expect_error(SVC_SWEEP, body, strlen(body), NULL, ERR_BAD_VALUE, path);
}

/* A bad value in a hold sweep names the value; an alias hold has not, the path. */
START_TEST(hold_sweep_bad_value_is_named)
{
	expect_error("{\"query\": \"hold\", \"vary\": [{\"path\": \"grip_force\", "
	             "\"values\": [1, -2]}]}",
	    "/vary/0/values/1");
	expect_error("{\"query\": \"hold\", \"vary\": [{\"path\": \"height\", \"values\": [1]}]}",
	    "/vary/0/path");
	expect_error("{\"query\": \"hold\", \"vary\": [{\"path\": \"cone\", "
	             "\"values\": [\"round\"]}]}",
	    "/vary/0/values/0");
}
END_TEST

/* A hold point counts duration / timestep plus the creep's settling budget against the
 * sweep's step limit: 1,000 points of 0.2 s at 2 ms are over 2e8, 990 are not; the same
 * under discrete, whose step settles in as many steps' budget (its rows differ, not its
 * loop). */
START_TEST(hold_sweep_counts_the_settling_steps)
{
	static const char *const bases[] = {"{\"duration\": 0.2}",
	    "{\"duration\": 0.2, \"option\": {\"integrator\": \"discrete\"}}"};
	char body[4096], *p;
	int i, n, b;

	for (b = 0; b < 2; b++)
		for (n = 990; n <= 1000; n += 10) {
			p = body +
			    sprintf(body,
			        "{\"query\": \"hold\", \"base\": %s, "
			        "\"vary\": [{\"path\": \"grip_force\", \"values\": [",
			        bases[b]);
			for (i = 0; i < n / 10; i++)
				p += sprintf(p, "%s%d", i ? ", " : "", i + 1);
			strcpy(p,
			    "]}, {\"path\": \"impratio\", \"values\": [1, 2, 3, 4, 5, 6, 7, 8, 9, "
			    "10]}]}");
			if (n == 1000) {
				tsvc_expect_error(
				    SVC_SWEEP, body, strlen(body), NULL, ERR_TOO_LARGE, "/vary");
			} else {
				json_t *canonical = tsvc_canonical(SVC_SWEEP, body);
				json_decref(canonical);
			}
		}
}
END_TEST

static Suite *hold_sweep_suite(void)
{
	Suite *s = suite_create("hold_sweep");
	TCase *tc = tcase_create("rows");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, hold_sweep_rows_are_single_answers);
	tcase_add_test(tc, grasp_sweep_rows_are_single_answers);
	tcase_add_test(tc, hold_line_by_alias);
	tcase_add_test(tc, grasp_fields_exposed);
	tcase_add_test(tc, hold_sweep_bad_value_is_named);
	tcase_add_test(tc, hold_sweep_counts_the_settling_steps);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(hold_sweep_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
