/*
 * test_sceneset.c: a point set in place (service/sceneset.h) is the point the full
 * parse gives, and a sweep reports the same first error either way.
 *
 * 1. 40,000 random cases: a random scene request (every floor field given or not),
 *    one or two covered pointers (geom and floor fields, timestep, gravity, impratio,
 *    height, duration) set to random values, valid and invalid (negative, zero, huge,
 *    non-integral, a string, null, an array, a boolean). The full path is the sweep's
 *    make_point: the canonical request, the values set by vary_set (the floor's
 *    last), req_scene_parse. sceneset_apply must accept exactly the values the full
 *    parse accepts, and then give the same request, every field's bytes equal.
 * 2. 3,000 random sweeps (lines and grids over the same pointers and values) answered
 *    with the points set in place and with every point parsed in full: the same
 *    answer text, or the same error (code, pointer and message), byte for byte.
 * No tolerance: the claim is identity.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/request.h"
#include "service/sceneset.h"
#include "service/service.h"
#include "service/sweep.h"
#include "service/vary.h"
#include "svc_test.h"
#include "testlib.h"
#include "service/knobs.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static double uniform(void)
{
	return tl_uniform(&rng_state);
}

static double between(double lo, double hi)
{
	return tl_between(&rng_state, lo, hi);
}

static int pick(int n)
{
	return (int)(uniform() * n);
}

/* Every covered pointer, and a few the module must leave to the full parse. */
static const char *const covered[] = {"/geom/solref/0", "/geom/solref/1", "/geom/solimp/0",
    "/geom/solimp/2", "/geom/solimp/4", "/geom/condim", "/geom/friction/0", "/geom/friction/2",
    "/geom/margin", "/geom/gap", "/geom/solmix", "/geom/priority", "/floor/solref/0",
    "/floor/solref/1", "/floor/solimp/1", "/floor/condim", "/floor/friction/1", "/floor/margin",
    "/floor/gap", "/floor/solmix", "/floor/priority", "/option/timestep", "/option/gravity",
    "/option/impratio", "/height", "/duration"};
#define NCOVERED ((int)(sizeof covered / sizeof covered[0]))

static const char *const not_covered[] = {"/body/mass", "/body/size", "/geom/solref",
    "/floor/friction", "/option/refsafe", "/option/integrator", "/body/shape"};

/* A random value for a numeric field: often valid, often not. */
static json_t *random_value(void)
{
	static const double specials[] = {0, -0.0, 1, 2, 3, 4, 5, 6, -1, 1e300, -1e300, 1e-300, 2.5,
	    1e4, 1e4 + 1, 1e7, 2147483648.0, -2147483649.0, 0.002, 0.0005};

	switch (pick(10)) {
	case 0:
		return json_string("0.01");
	case 1:
		return uniform() < 0.5 ? json_null() : json_true();
	case 2:
		return json_pack("[f]", 0.01);
	case 3:
	case 4:
		return json_real(specials[pick((int)(sizeof specials / sizeof specials[0]))]);
	case 5:
		return json_real(-between(0, 2));
	case 6:
		return json_real(between(0, 1e-4));
	default:
		return json_real(between(0.0001, 3));
	}
}

static json_t *random_geom(int all)
{
	static const char *const names[] = {
	    "solref", "solimp", "condim", "friction", "margin", "gap", "solmix", "priority"};
	static const int condims[] = {1, 3, 4, 6};
	json_t *g = json_object();
	int i;

	for (i = 0; i < 8; i++) {
		json_t *v;
		if (!all && uniform() < 0.6)
			continue;
		switch (i) {
		case 0:
			v = uniform() < 0.3
			    ? json_pack("[f,f]", -between(500, 2e4), -between(1, 100))
			    : json_pack("[f,f]", between(0.002, 0.08), between(0.05, 1.5));
			break;
		case 1:
			v = json_pack("[f,f,f,f,f]", between(0.5, 0.9), between(0.9, 0.99),
			    between(0.0005, 0.005), between(0.2, 0.8), 2.0);
			break;
		case 2:
			v = json_integer(condims[pick(4)]);
			break;
		case 3:
			v = json_pack("[f,f,f]", between(0.2, 1.2), 0.005, 0.0001);
			break;
		case 7:
			v = json_integer(pick(5) - 2);
			break;
		default:
			v = json_real(uniform() < 0.5 ? 0 : between(0, 0.002));
			break;
		}
		json_object_set_new(g, names[i], v);
	}
	return g;
}

/* A random valid scene request, parsed and canonical (the sweep's base). */
static json_t *random_canonical(void)
{
	/* both cones: a point set in place must keep the base's cone, whichever it is */
	json_t *body = json_pack(
	    "{s:{s:s, s:f, s:f}, s:o, s:o, s:{s:f, s:b, s:f, s:f, s:s}, s:f, s:f}", "body", "shape",
	    uniform() < 0.5 ? "box" : "sphere", "size", between(0.01, 0.1), "mass", between(0.2, 3),
	    "geom", random_geom(1), "floor", random_geom(0), "option", "timestep",
	    between(0.001, 0.005), "refsafe", uniform() < 0.8, "gravity", between(0, 12),
	    "impratio", between(1, 5), "cone", uniform() < 0.3 ? "elliptic" : "pyramidal", "height",
	    between(0, 0.15), "duration", between(0.004, 0.02));
	struct req_scene r;
	struct err err;
	json_t *canonical;

	err_clear(&err);
	ck_assert_msg(req_scene_parse(body, "", DEFAULT_HEIGHT, &r, &err) == 0, "%s: %s", err.path,
	    err.message);
	canonical = req_scene_json(&r);
	ck_assert_ptr_nonnull(canonical);
	json_decref(body);
	return canonical;
}

#define SAME(member) (memcmp(&a->member, &b->member, sizeof a->member) == 0)

static int same_geom(const struct core_pair_geom *a, const struct core_pair_geom *b)
{
	return SAME(solref) && SAME(solimp) && SAME(condim) && SAME(friction) && SAME(margin) &&
	    SAME(gap) && SAME(solmix) && SAME(priority);
}

static int same_request(const struct req_scene *ra, const struct req_scene *rb)
{
	const struct core_scene *a = &ra->scene, *b = &rb->scene;

	return ra->floor_given == rb->floor_given && SAME(shape) && SAME(size) && SAME(mass) &&
	    same_geom(&a->geom, &b->geom) && same_geom(&a->floor, &b->floor) &&
	    SAME(option.timestep) && SAME(option.refsafe) && SAME(option.gravity) &&
	    SAME(option.impratio) && SAME(option.integrator) && SAME(option.mujoco) &&
	    SAME(option.cone) && SAME(height) && SAME(duration);
}

/* Two distinct random covered pointers (or one). */
static int random_paths(const char *paths[2])
{
	int n = uniform() < 0.3 ? 1 : 2;

	paths[0] = covered[pick(NCOVERED)];
	do
		paths[1] = covered[pick(NCOVERED)];
	while (strcmp(paths[1], paths[0]) == 0);
	return n;
}

START_TEST(set_in_place_is_the_full_parse)
{
	int c, accepted = 0, cases = 40000;

	for (c = 0; c < cases; c++) {
		json_t *canonical = random_canonical(), *full = json_deep_copy(canonical);
		json_t *values[2] = {random_value(), random_value()};
		const char *paths[2];
		struct sceneset_path set[2];
		struct req_scene base, by_parse, by_set;
		struct err err;
		int n = random_paths(paths), k, pass, rc_parse, rc_set;

		err_clear(&err);
		/* the full path: make_point's order, the floor's fields last */
		for (pass = 0; pass < 2; pass++)
			for (k = 0; k < n; k++)
				if (vary_is_floor(paths[k]) == pass) {
					json_t *copy = json_deep_copy(values[k]);
					ck_assert_int_eq(
					    vary_set(svc_endpoints[SVC_DROP]->kind, full, paths[k], copy, "", &err), 0);
					json_decref(copy);
				}
		rc_parse = req_scene_parse(full, "", DEFAULT_HEIGHT, &by_parse, &err);
		ck_assert_int_eq(req_scene_parse(canonical, "", DEFAULT_HEIGHT, &base, &err), 0);
		for (k = 0; k < n; k++)
			ck_assert_int_eq(sceneset_path(paths[k], &set[k]), 1);
		by_set = base;
		rc_set = sceneset_apply(&by_set, set, values, (size_t)n);
		ck_assert_msg(rc_set == rc_parse,
		    "case %d: %s %s: in place %d, full parse %d (%s: %s)", c, paths[0],
		    n > 1 ? paths[1] : "", rc_set, rc_parse, err.path, err.message);
		if (rc_set == 0) {
			ck_assert_msg(same_request(&by_set, &by_parse), "case %d: %s %s differ", c,
			    paths[0], n > 1 ? paths[1] : "");
			accepted++;
		}
		json_decref(values[0]);
		json_decref(values[1]);
		json_decref(full);
		json_decref(canonical);
	}
	/* both outcomes are exercised */
	ck_assert_int_gt(accepted, cases / 5);
	ck_assert_int_lt(accepted, cases * 4 / 5);
}
END_TEST

START_TEST(paths_not_covered_are_left_to_the_parse)
{
	struct sceneset_path set;
	size_t i;

	for (i = 0; i < sizeof not_covered / sizeof not_covered[0]; i++)
		ck_assert_msg(!sceneset_path(not_covered[i], &set), "%s", not_covered[i]);
	ck_assert(!sceneset_path("/geom/solref/2", &set));
	ck_assert(!sceneset_path("/geom/solref/00", &set));
	ck_assert(!sceneset_path("/geom/margin/0", &set));
	ck_assert(!sceneset_path("/floor/solimp/5", &set));
	ck_assert(!sceneset_path("/geom/solrefx/0", &set));
}
END_TEST

/* One sweep body's answer text or error, as a comparable text. */
static char *sweep_outcome(const char *body, int in_place)
{
	struct svc_limits lim = tsvc_limits(2);
	struct err err;
	char *text = NULL, *out;

	err_clear(&err);
	sweep_set_in_place(in_place);
	if (svc_ask(SVC_SWEEP, body, strlen(body), &lim, NULL, &text, NULL, &err) == 0)
		return text;
	out = malloc(strlen(err.path) + strlen(err.message) + 32);
	ck_assert_ptr_nonnull(out);
	sprintf(out, "error %d at %s: %s", (int)err.code, err.path, err.message);
	return out;
}

START_TEST(sweeps_answer_and_fail_alike)
{
	int c, failed = 0, sweeps = 3000;

	for (c = 0; c < sweeps; c++) {
		json_t *canonical = random_canonical(), *vary = json_array(), *request;
		const char *paths[2], *query = uniform() < 0.5 ? "drop" : "rest";
		int n = random_paths(paths), k, j, count;
		char *body, *in_place, *parsed;

		if (uniform() < 0.05) /* now and then a pointer set in JSON only */
			paths[n - 1] = not_covered[pick(2)];
		for (k = 0; k < n; k++) {
			json_t *values = json_array();
			count = 1 + pick(3);
			for (j = 0; j < count; j++)
				json_array_append_new(values,
				    uniform() < 0.7 ? json_real(between(0.001, 0.9))
				                    : random_value());
			json_array_append_new(
			    vary, json_pack("{s:s, s:o}", "path", paths[k], "values", values));
		}
		request =
		    json_pack("{s:s, s:o, s:o}", "query", query, "base", canonical, "vary", vary);
		body = json_dumps(request, JSON_COMPACT);
		ck_assert_ptr_nonnull(body);
		in_place = sweep_outcome(body, 1);
		parsed = sweep_outcome(body, 0);
		ck_assert_msg(strcmp(in_place, parsed) == 0,
		    "%s\n in place: %.300s\n parsed:   %.300s", body, in_place, parsed);
		failed += strncmp(parsed, "error ", 6) == 0;
		free(in_place);
		free(parsed);
		free(body);
		json_decref(request);
	}
	sweep_set_in_place(1);
	ck_assert_int_gt(failed, sweeps / 10);
	ck_assert_int_lt(failed, sweeps * 9 / 10);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sceneset");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, paths_not_covered_are_left_to_the_parse);
	tcase_add_test(tc, set_in_place_is_the_full_parse);
	tcase_add_test(tc, sweeps_answer_and_fail_alike);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
