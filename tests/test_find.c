/*
 * test_find.c: POST /v1/find (service/find.h) and the aliases and floor rule it
 * shares with sweeps (service/vary.h).
 *
 * Expected values are closed forms derived here (the stability boundary of
 * semi-implicit Euler, the lesson's resting-penetration formula) or the
 * service's own single answers on each side of the found threshold.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/find.h"
#include "service/service.h"
#include "service/vary.h"
#include "svc_test.h"
#include "core/knobs.h"
#include "service/knobs.h"

/* The error of a rejected find (canonical or answer stage); the caller checks it. */
static struct err find_error(const char *body)
{
	struct svc_limits lim = tsvc_limits(1);
	struct err err;
	json_t *canonical = NULL, *answer = NULL;

	err_clear(&err);
	if (svc_canonical(SVC_FIND, body, strlen(body), &lim, &canonical, &err) == 0) {
		ck_assert_int_eq(svc_answer(SVC_FIND, canonical, &lim, &answer, &err), -1);
		ck_assert_ptr_null(answer);
	}
	json_decref(canonical);
	ck_assert_msg(err.code != ERR_NONE, "%s was answered", body);
	return err;
}

/* Assert body is rejected at its canonical stage with code at path */
static void expect(enum svc_endpoint ep, const char *body, enum err_code code, const char *path)
{
	tsvc_expect_error(ep, body, strlen(body), NULL, code, path);
}

START_TEST(stability_boundary_of_dampratio)
{
	/* One step of x'' = -c x' - k x under semi-implicit Euler has det 1 - hc and trace
	 * 2 - hc - h^2 k; Jury's test puts the boundary at h^2 k = 4 - 2 h c. With d = dwidth
	 * (the default impedance), c = d B = 2/tc and k = d^2 K = 1/(tc dr)^2, so the smallest
	 * stable dampratio is (h/tc) / (2 sqrt(1 - h/tc)): 0.0527046 at h 2 ms, tc 20 ms. */
	double q = 0.002 / 0.02, boundary = q / (2 * sqrt(1 - q));
	json_t *a = tsvc_answer(SVC_FIND,
	    "{\"query\": \"stability\", \"path\": \"dampratio\", \"field\": \"stable\", "
	    "\"bracket\": [0.01, 1], \"tolerance\": 1e-9}",
	    NULL);

	ck_assert_str_eq(json_string_value(json_object_get(a, "method")), "bisection");
	ck_assert_str_eq(json_string_value(json_object_get(a, "path")), "/solref/1");
	ck_assert(json_is_true(json_object_get(a, "converged")));
	ck_assert(json_is_null(json_object_get(a, "target")));
	/* value is on bracket[1]'s side (stable), within the tolerance of the boundary (and
	 * growth's own rounding, far below it) */
	ck_assert(json_is_true(json_object_get(a, "field_value")));
	ck_assert_double_eq_tol(tsvc_real(a, "value"), boundary, 1e-9 + 1e-12);
	ck_assert(json_is_true(json_object_get(json_object_get(a, "answer"), "stable")));
	/* the scan cuts [0.01, 1] into FIND_DEFAULT_SCAN cells; the boundary is in the
	 * first, which bisection halves until it is 1e-9 wide */
	ck_assert_int_eq(json_integer_value(json_object_get(a, "iterations")),
	    (long)ceil(log2(0.99 / FIND_DEFAULT_SCAN / 1e-9)));
	json_decref(a);
}
END_TEST

START_TEST(timeconst_for_one_millimetre_at_rest)
{
	/* The lesson's "Easy" exercise: the timeconst that rests a 1 kg sphere 1 mm deep.
	 * At r >= width d = dwidth = 0.95, so 9.81 (1 - 0.95) tc^2 = 0.001 (dampratio 1; the
	 * sphere's 4 pyramid rows hold it as one frictionless row does, spec §5.4) */
	double expected = sqrt(0.001 / (DEFAULT_GRAVITY * (1 - DEFAULT_SOLIMP_DWIDTH)));
	json_t *a = tsvc_answer(SVC_FIND,
	    "{\"query\": \"rest\", \"base\": {\"body\": {\"shape\": \"sphere\", \"size\": 0.05}}, "
	    "\"path\": \"timeconst\", \"field\": \"penetration\", \"target\": 0.001, "
	    "\"bracket\": [0.02, 0.05]}",
	    NULL);
	const json_t *bracket = json_object_get(a, "bracket");
	/* the default tolerance: FIND_DEFAULT_TOLERANCE of the bracket's width */
	double tol = FIND_DEFAULT_TOLERANCE * 0.03;

	ck_assert_str_eq(json_string_value(json_object_get(a, "method")), "brent");
	ck_assert_str_eq(json_string_value(json_object_get(a, "path")), "/geom/solref/0");
	ck_assert(json_is_true(json_object_get(a, "converged")));
	ck_assert_double_eq_tol(tsvc_real(a, "value"), expected, tol);
	/* the final bracket holds the root and is at most the tolerance wide */
	ck_assert(json_real_value(json_array_get(bracket, 0)) <= expected + 1e-15);
	ck_assert(json_real_value(json_array_get(bracket, 1)) >= expected - 1e-15);
	ck_assert(json_real_value(json_array_get(bracket, 1)) -
	        json_real_value(json_array_get(bracket, 0)) <=
	    tol);
	/* penetration there: dr/dtc = 2 r / tc, so within 2 * 1e-3 / 0.045 * tol of 1 mm */
	ck_assert_double_eq_tol(tsvc_real(a, "field_value"), 0.001, 2 * 0.001 / 0.045 * tol);
	ck_assert_double_eq(
	    tsvc_real(a, "field_value"), tsvc_real(json_object_get(a, "answer"), "penetration"));
	ck_assert_int_gt(json_integer_value(json_object_get(a, "iterations")), 0);
	json_decref(a);
}
END_TEST

/* The drop answer's rebound with the geom's dampratio dr */
static double rebound_at(double dr)
{
	char body[128];
	json_t *a;
	double r;

	snprintf(body, sizeof body, "{\"geom\": {\"solref\": [0.02, %.17g]}}", dr);
	a = tsvc_answer(SVC_DROP, body, NULL);
	r = tsvc_real(a, "rebound");
	json_decref(a);
	return r;
}

START_TEST(dampratio_for_rebound_below_a_millimetre)
{
	/* "which dampratio first gives rebound below 1 mm?": between Sweep 3's 0.5 (3.339 mm)
	 * and 0.7 (0.055 mm); the single drop answers at the final bracket's ends straddle
	 * 1 mm, and the rebound at the value is the field_value */
	json_t *a = tsvc_answer(SVC_FIND,
	    "{\"query\": \"drop\", \"path\": \"dampratio\", \"field\": \"rebound\", \"target\": "
	    "0.001, \"bracket\": [0.1, 1], \"tolerance\": 1e-6}",
	    NULL);
	const json_t *bracket = json_object_get(a, "bracket");
	double lo = json_real_value(json_array_get(bracket, 0));
	double hi = json_real_value(json_array_get(bracket, 1));
	double value = tsvc_real(a, "value");

	ck_assert(value > 0.5 && value < 0.7);
	ck_assert(hi - lo <= 1e-6);
	ck_assert(lo <= value && value <= hi);
	ck_assert(rebound_at(lo) >= 0.001);
	ck_assert(rebound_at(hi) <= 0.001);
	ck_assert_double_eq(tsvc_real(a, "field_value"), rebound_at(value));
	json_decref(a);

	/* the same question by bisection lands in the same place, to the tolerance */
	a = tsvc_answer(SVC_FIND,
	    "{\"query\": \"drop\", \"path\": \"/geom/solref/1\", \"field\": \"rebound\", "
	    "\"target\": 0.001, \"bracket\": [0.1, 1], \"tolerance\": 1e-6, \"method\": "
	    "\"bisection\"}",
	    NULL);
	ck_assert_double_eq_tol(tsvc_real(a, "value"), value, 2e-6);
	/* the value is on bracket[1]'s side: rebound at or below 1 mm */
	ck_assert(tsvc_real(a, "field_value") <= 0.001);
	json_decref(a);
}
END_TEST

START_TEST(bracket_that_does_not_bracket)
{
	struct err e;
	char both[2][40];

	/* rebound is 0 at both 0.8 and 1: the message names the field and both values */
	e = find_error("{\"query\": \"drop\", \"path\": \"dampratio\", \"field\": \"rebound\", "
	               "\"target\": 0.001, \"bracket\": [0.8, 1]}");
	ck_assert_int_eq(e.code, ERR_BAD_VALUE);
	ck_assert_str_eq(e.path, "/bracket");
	snprintf(both[0], sizeof both[0], "is %.9g at", rebound_at(0.8));
	snprintf(both[1], sizeof both[1], "and %.9g at", rebound_at(1));
	ck_assert_msg(strstr(e.message, both[0]) && strstr(e.message, both[1]), "%s", e.message);
	ck_assert_msg(strstr(e.message, "/geom/solref/1"), "%s", e.message);

	/* a boolean that does not change: both ends' values */
	e = find_error("{\"query\": \"stability\", \"path\": \"dampratio\", \"field\": \"stable\", "
	               "\"bracket\": [0.5, 1]}");
	ck_assert_int_eq(e.code, ERR_BAD_VALUE);
	ck_assert_str_eq(e.path, "/bracket");
	ck_assert_msg(
	    strstr(e.message, "true at /solref/1 = 0.5") && strstr(e.message, "true at 1"), "%s",
	    e.message);

	/* a field that is null at the ends (no time constant in the direct form) */
	e = find_error("{\"query\": \"rest\", \"base\": {\"geom\": {\"solref\": [-1000, -10]}}, "
	               "\"path\": \"/geom/solref/0\", \"field\": \"timeconst_used\", \"bracket\": "
	               "[-1000, -500]}");
	ck_assert_int_eq(e.code, ERR_BAD_VALUE);
	ck_assert_str_eq(e.path, "/bracket/0");
}
END_TEST

START_TEST(iteration_cap_and_validation)
{
	json_t *a = tsvc_answer(SVC_FIND,
	    "{\"query\": \"stability\", \"path\": \"dampratio\", \"field\": \"stable\", "
	    "\"bracket\": [0.01, 1], \"max_iterations\": 3}",
	    NULL);

	ck_assert_int_eq(json_integer_value(json_object_get(a, "iterations")), 3);
	ck_assert(json_is_false(json_object_get(a, "converged")));
	/* three halvings of the scan's first cell of [0.01, 1]: 0.99 / 16 / 8 wide */
	ck_assert_double_eq_tol(json_real_value(json_array_get(json_object_get(a, "bracket"), 1)) -
	        json_real_value(json_array_get(json_object_get(a, "bracket"), 0)),
	    0.99 / FIND_DEFAULT_SCAN / 8, 1e-15);
	json_decref(a);

#define FIND(rest)                                                                                 \
	"{\"query\": \"drop\", \"path\": \"dampratio\", \"field\": \"rebound\", " rest "}"
	expect(SVC_FIND, FIND("\"bracket\": [0.5, 0.5]"), ERR_BAD_VALUE, "/bracket");
	/* a dampratio of -1 makes a mixed-sign solref, which MuJoCo replaces (no bounce):
	 * valid, and the same rebound at both ends, but between them the field jumps
	 * across the target where dampratio turns positive: the first crossing is at 0,
	 * to the tolerance (1e-6 of the width 2), the jump's far side in the answer */
	a = tsvc_answer(SVC_FIND, FIND("\"target\": 0.001, \"bracket\": [-1, 1]"), NULL);
	ck_assert(tsvc_real(a, "value") > 0 && tsvc_real(a, "value") <= 2e-6);
	ck_assert(tsvc_real(a, "field_value") > 0.001);
	ck_assert(json_real_value(json_array_get(json_object_get(a, "bracket"), 0)) <= 0);
	json_decref(a);
	expect(
	    SVC_FIND, FIND("\"bracket\": [0.5, 1], \"tolerance\": 0"), ERR_BAD_VALUE, "/tolerance");
	expect(SVC_FIND, FIND("\"bracket\": [0.5, 1], \"max_iterations\": 1001"), ERR_BAD_VALUE,
	    "/max_iterations");
	expect(SVC_FIND, FIND("\"bracket\": [0.5, 1], \"target\": true"), ERR_BAD_TYPE, "/target");
	expect(SVC_FIND, FIND("\"bracket\": [0.5, 1], \"method\": \"newton\""), ERR_BAD_VALUE,
	    "/method");
	expect(SVC_FIND, FIND("\"bracket\": [0.5]"), ERR_BAD_VALUE, "/bracket");
	expect(SVC_FIND, FIND("\"bracket\": [0.5, 1], \"scan\": 0"), ERR_BAD_VALUE, "/scan");
	expect(SVC_FIND, FIND("\"bracket\": [0.5, 1], \"scan\": 1001"), ERR_BAD_VALUE, "/scan");
#undef FIND
	/* Brent needs a real field; an unknown field; a string field cannot be varied */
	expect(SVC_FIND,
	    "{\"query\": \"drop\", \"path\": \"dampratio\", \"field\": \"energy_gain\", "
	    "\"bracket\": "
	    "[0.5, 1], \"method\": \"brent\"}",
	    ERR_BAD_VALUE, "/method");
	expect(SVC_FIND,
	    "{\"query\": \"drop\", \"path\": \"dampratio\", \"field\": \"nothing\", \"bracket\": "
	    "[0.5, 1]}",
	    ERR_BAD_VALUE, "/field");
	expect(SVC_FIND,
	    "{\"query\": \"drop\", \"path\": \"/body/shape\", \"field\": \"rebound\", \"bracket\": "
	    "[0.5, 1]}",
	    ERR_BAD_VALUE, "/path");
	/* an end that is not a valid request: named at its place in the bracket */
	expect(SVC_FIND,
	    "{\"query\": \"drop\", \"path\": \"timestep\", \"field\": \"rebound\", \"bracket\": "
	    "[0.001, -1]}",
	    ERR_BAD_VALUE, "/bracket/1");
}
END_TEST

START_TEST(aliases_resolve_per_query)
{
	struct err e;
	char *a, *b;
	json_t *sweep;

	/* an alias and its pointer are one question (one cache key) */
	a = tsvc_canonical_text(SVC_FIND,
	    "{\"query\": \"drop\", \"path\": \"timestep\", \"field\": \"rebound\", \"bracket\": "
	    "[0.001, 0.002]}");
	b = tsvc_canonical_text(SVC_FIND,
	    "{\"query\": \"drop\", \"path\": \"/option/timestep\", \"field\": \"rebound\", "
	    "\"bracket\": [0.001, 0.002], \"target\": 0, \"method\": \"auto\"}");
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	a = tsvc_canonical_text(SVC_SWEEP,
	    "{\"query\": \"stability\", \"vary\": [{\"path\": \"timeconst\", \"values\": "
	    "[0.01]}]}");
	b = tsvc_canonical_text(SVC_SWEEP,
	    "{\"query\": \"stability\", \"vary\": [{\"path\": \"/solref/0\", \"values\": "
	    "[0.01]}]}");
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	/* a sweep's columns name the resolved pointers */
	sweep = tsvc_answer(SVC_SWEEP,
	    "{\"query\": \"drop\", \"vary\": [{\"path\": \"dampratio\", \"values\": [0.5]}, "
	    "{\"path\": \"mass\", \"values\": [1, 2]}]}",
	    NULL);
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(sweep, "columns"), 0)),
	    "/geom/solref/1");
	ck_assert_str_eq(
	    json_string_value(json_array_get(json_object_get(sweep, "columns"), 1)), "/body/mass");
	json_decref(sweep);

	/* unknown aliases and aliases of another query: the known ones are listed */
	e = find_error("{\"query\": \"stability\", \"path\": \"mass\", \"field\": \"growth\", "
	               "\"bracket\": [1, 2]}");
	ck_assert_int_eq(e.code, ERR_BAD_VALUE);
	ck_assert_str_eq(e.path, "/path");
	ck_assert_msg(strstr(e.message, "timeconst, dampratio, timestep"), "%s", e.message);
	expect(SVC_SWEEP,
	    "{\"query\": \"drop\", \"vary\": [{\"path\": \"timeconstant\", \"values\": [1]}]}",
	    ERR_BAD_VALUE, "/vary/0/path");
}
END_TEST

/*
 * man/contact.1's ALIASES lists every alias of the sweepable kinds (each kind's
 * aliases, in its endpoint's file) and no other: one tagged paragraph each, its
 * pointers per query as the kinds have them (queries sharing one alias list, rest and
 * drop, named together), so the page and the code cannot drift apart. Each listed
 * pointer is also what a sweep of that query resolves the alias to (its answer's column).
 */
START_TEST(man_page_lists_every_alias)
{
	const char *srcdir = getenv("srcdir") ? getenv("srcdir") : ".";
	const char *names[64], *section, *end, *at, *ptr;
	char path[1024], want[512], alias[256], pointer[256], label[128];
	size_t i, n = 0, listed = 0, len, k;
	const struct ans_alias *a;
	long size;
	char *text;
	FILE *f;
	int e, g, parts;

	snprintf(path, sizeof path, "%s/man/contact.1", srcdir);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot read %s", path);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	size = ftell(f);
	ck_assert_int_gt(size, 0);
	rewind(f);
	text = malloc((size_t)size + 1);
	ck_assert_ptr_nonnull(text);
	ck_assert_uint_eq(fread(text, 1, (size_t)size, f), (size_t)size);
	text[size] = '\0';
	fclose(f);
	section = strstr(text, "\n.SH ALIASES\n");
	ck_assert_ptr_nonnull(section);
	end = strstr(section + 1, "\n.SH ");
	ck_assert_ptr_nonnull(end);
	for (at = section; (at = strstr(at, "\n.TP\n.B ")) && at < end; at++)
		listed++;
	/* every alias name of every kind, once */
	for (e = 0; e < SVC_ENDPOINT_COUNT; e++) {
		if (!svc_endpoints[e]->kind)
			continue;
		for (a = svc_endpoints[e]->kind->aliases; a->name; a++) {
			for (k = 0; k < n && strcmp(names[k], a->name) != 0; k++)
				;
			if (k == n) {
				ck_assert_uint_lt(n, sizeof names / sizeof names[0]);
				names[n++] = a->name;
			}
		}
	}
	for (i = 0; i < n; i++) {
		len = (size_t)snprintf(want, sizeof want, "\n.TP\n.B %s\n", names[i]);
		parts = 0;
		/* rows whose kinds share one alias list form one group ("rest, drop") */
		for (e = 0; e < SVC_ENDPOINT_COUNT; e = g) {
			const struct ans_kind *kind = svc_endpoints[e]->kind;
			size_t at_label = 0;

			for (g = e + 1; g < SVC_ENDPOINT_COUNT &&
			     (!svc_endpoints[g]->kind ||
			         svc_endpoints[g]->kind->aliases == (kind ? kind->aliases : NULL));
			     g++)
				;
			if (!kind || !(ptr = vary_alias(kind, names[i])))
				continue;
			label[0] = '\0';
			for (k = (size_t)e; k < (size_t)g; k++)
				if (svc_endpoints[k]->kind)
					at_label += (size_t)snprintf(label + at_label,
					    sizeof label - at_label, "%s%s", at_label ? ", " : "",
					    svc_endpoints[k]->name);
			len += (size_t)snprintf(want + len, sizeof want - len, "%s%s %s",
			    parts++ ? "; " : "", label, ptr);
			/* a sweep over the alias is the sweep over its pointer, in each query */
			for (k = (size_t)e; k < (size_t)g; k++) {
				const char *value =
				    strcmp(names[i], "cone") == 0 ? "\"elliptic\"" : "0.5";
				char *by_alias, *by_pointer;

				if (!svc_endpoints[k]->kind)
					continue;
				snprintf(alias, sizeof alias,
				    "{\"query\": \"%s\", \"vary\": [{\"path\": \"%s\", \"values\": "
				    "[%s]}]}",
				    svc_endpoints[k]->name, names[i], value);
				snprintf(pointer, sizeof pointer,
				    "{\"query\": \"%s\", \"vary\": [{\"path\": \"%s\", \"values\": "
				    "[%s]}]}",
				    svc_endpoints[k]->name, ptr, value);
				by_alias = tsvc_canonical_text(SVC_SWEEP, alias);
				by_pointer = tsvc_canonical_text(SVC_SWEEP, pointer);
				ck_assert_str_eq(by_alias, by_pointer);
				free(by_alias);
				free(by_pointer);
			}
		}
		ck_assert_int_gt(parts, 0);
		at = strstr(section, want);
		ck_assert_msg(at && at < end, "man/contact.1's ALIASES has no\n%s", want + 1);
		/* the paragraph ends there, or gives the unit */
		ck_assert_msg(
		    at[len] == '\n' || at[len] == ' ', "%s: more pointers in the page", names[i]);
	}
	ck_assert_uint_gt(n, 20);
	ck_assert_msg(listed == n, "the page lists %zu aliases, the code has %zu", listed, n);
	free(text);
}
END_TEST

/* The top level names the release of the request searched (its answer's) and the core */
START_TEST(answers_carry_release_and_core_version)
{
	static const char *const bodies[][2] = {
	    {"{\"query\": \"stability\", \"base\": {\"option\": {\"mujoco\": \"2.2.2\"}}, "
	     "\"path\": \"dampratio\", \"field\": \"stable\", \"bracket\": [0.01, 1], "
	     "\"tolerance\": 1e-3}",
	        "2.2.2"},
	    {"{\"query\": \"rest\", \"base\": {\"body\": {\"shape\": \"sphere\", \"size\": 0.05}, "
	     "\"option\": {\"mujoco\": \"3.5.0\"}}, "
	     "\"path\": \"timeconst\", \"field\": \"penetration\", \"target\": 0.001, "
	     "\"bracket\": [0.02, 0.05], \"tolerance\": 1e-4}",
	        "3.5.0"},
	    {"{\"query\": \"drop\", \"path\": \"dampratio\", \"field\": \"rebound\", "
	     "\"target\": 0.001, \"bracket\": [0.1, 1], \"tolerance\": 1e-3}",
	        DEFAULT_MUJOCO},
	};
	size_t i;

	for (i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
		json_t *a = tsvc_answer(SVC_FIND, bodies[i][0], NULL);

		ck_assert_str_eq(json_string_value(json_object_get(a, "mujoco")), bodies[i][1]);
		ck_assert_str_eq(
		    json_string_value(json_object_get(json_object_get(a, "answer"), "mujoco")),
		    bodies[i][1]);
		ck_assert_str_eq(
		    json_string_value(json_object_get(a, "core_version")), CORE_VERSION);
		json_decref(a);
	}
}
END_TEST

/* The drop answer of body */
static json_t *drop(const char *body)
{
	return tsvc_answer(SVC_DROP, body, NULL);
}

START_TEST(sweep_floor_follows_the_geom_in_any_order)
{
	/* the floor takes the geom's value wherever it sets none: varying the geom's
	 * timeconst and the floor's dampratio makes the floor (geom tc, floor dr) in
	 * either order of vary, the same scene as written out in full */
	static const char *const orders[] = {
	    "{\"query\": \"drop\", \"base\": {\"body\": {\"shape\": \"sphere\"}}, \"vary\": "
	    "[{\"path\": \"/floor/solref/1\", \"values\": [0.2]}, {\"path\": \"/geom/solref/0\", "
	    "\"values\": [0.05]}]}",
	    "{\"query\": \"drop\", \"base\": {\"body\": {\"shape\": \"sphere\"}}, \"vary\": "
	    "[{\"path\": \"/geom/solref/0\", \"values\": [0.05]}, {\"path\": \"/floor/solref/1\", "
	    "\"values\": [0.2]}]}",
	};
	json_t *single =
	    drop("{\"body\": {\"shape\": \"sphere\"}, \"geom\": {\"solref\": [0.05, 1]}, "
	         "\"floor\": {\"solref\": [0.05, 0.2]}}");
	double rebound = tsvc_real(single, "rebound");
	size_t i;

	for (i = 0; i < 2; i++) {
		json_t *a = tsvc_answer(SVC_SWEEP, orders[i], NULL);
		const json_t *row = json_array_get(json_object_get(a, "rows"), 0);
		/* columns: the two paths, then peak_penetration, rebound, ... */
		ck_assert_msg(json_real_value(json_array_get(row, 3)) == rebound,
		    "order %zu: rebound %.17g, the scene written out: %.17g", i,
		    json_real_value(json_array_get(row, 3)), rebound);
		json_decref(a);
	}
	json_decref(single);
}
END_TEST

/* ---- the first crossing: plateaus, unmoved fields, non-monotone fields ---- */

static const char *const methods[] = {"auto", "brent", "bisection"};

/* The SO-101 pad: a 2 cm radius, 100 g sphere on a floor whose priority
 * sets the contact's solref; rebound is > 0 below a dampratio and exactly 0 (no
 * bounce) from there on: a plateau on the target */
#define PAD_BASE                                                                                   \
	"\"base\": {\"body\": {\"shape\": \"sphere\", \"size\": 0.02, \"mass\": 0.1}, \"floor\": " \
	"{\"condim\": 6, \"friction\": [1, 0.005, 0.0005], \"priority\": 1, \"solref\": [0.02, "   \
	"1]}, \"option\": {\"timestep\": 0.005}, \"height\": 0.05}"

/* The pad's rebound with the floor's dampratio dr */
static double pad_rebound(double dr)
{
	char body[512];
	json_t *a;
	double r;

	snprintf(body, sizeof body,
	    "{\"body\": {\"shape\": \"sphere\", \"size\": 0.02, \"mass\": 0.1}, \"floor\": "
	    "{\"condim\": 6, \"friction\": [1, 0.005, 0.0005], \"priority\": 1, \"solref\": "
	    "[0.02, %.17g]}, \"option\": {\"timestep\": 0.005}, \"height\": 0.05}",
	    dr);
	a = tsvc_answer(SVC_DROP, body, NULL);
	r = tsvc_real(a, "rebound");
	json_decref(a);
	return r;
}

START_TEST(plateau_edge_where_bouncing_stops)
{
	/* "where does the pad stop bouncing?": every method, either order of the bracket,
	 * answers the plateau's edge (the bisection: 0.6712), never the bracket's
	 * end 1.5 (Brent's answer before, "converged"); the final bracket straddles the
	 * edge by the drops' own answers: rebound > 0 at one end, exactly 0 at the other */
	static const char *const brackets[] = {"[0.3, 1.5]", "[1.5, 0.3]"};
	double values[6];
	size_t i, j, k = 0;
	char body[1024];

	for (j = 0; j < 2; j++)
		for (i = 0; i < 3; i++, k++) {
			json_t *a;
			double lo, hi;

			snprintf(body, sizeof body,
			    "{\"query\": \"drop\", \"path\": \"/floor/solref/1\", \"field\": "
			    "\"rebound\", \"target\": 0, \"bracket\": %s, \"method\": \"%s\", %s}",
			    brackets[j], methods[i], PAD_BASE);
			a = tsvc_answer(SVC_FIND, body, NULL);
			lo = json_real_value(json_array_get(json_object_get(a, "bracket"), 0));
			hi = json_real_value(json_array_get(json_object_get(a, "bracket"), 1));
			values[k] = tsvc_real(a, "value");
			ck_assert(json_is_true(json_object_get(a, "converged")));
			/* the default tolerance: FIND_DEFAULT_TOLERANCE of the bracket's width */
			ck_assert(hi - lo <= FIND_DEFAULT_TOLERANCE * 1.2);
			ck_assert_msg(values[k] > 0.66 && values[k] < 0.68, "%s %s: %.17g",
			    brackets[j], methods[i], values[k]);
			ck_assert(pad_rebound(lo) > 0);
			ck_assert(pad_rebound(hi) == 0);
			json_decref(a);
		}
	/* one edge, whatever the method and the order: within the tolerance */
	for (k = 1; k < 6; k++)
		ck_assert_double_eq_tol(values[k], values[0], FIND_DEFAULT_TOLERANCE * 1.2);
}
END_TEST

START_TEST(plateau_edge_of_growth)
{
	/* growth is 0.75 for every timestep from tc / 2 on (MuJoCo raises the timeconst to
	 * 2 timestep, spec: the solref clamp, so h omega stays 0.5) and above it below:
	 * the first crossing of 0.75 from 1 ms is the edge, 0.01 s at tc 20 ms, by every
	 * method (before: Brent answered the end, 0.05) */
	size_t i;
	char body[512];

	for (i = 0; i < 3; i++) {
		json_t *a;

		snprintf(body, sizeof body,
		    "{\"query\": \"stability\", \"path\": \"timestep\", \"field\": \"growth\", "
		    "\"target\": 0.75, \"bracket\": [0.001, 0.05], \"tolerance\": 1e-12, "
		    "\"method\": \"%s\"}",
		    methods[i]);
		a = tsvc_answer(SVC_FIND, body, NULL);
		ck_assert(json_is_true(json_object_get(a, "converged")));
		/* to the tolerance (1e-12 s), and the bits a halving rounds */
		ck_assert_msg(fabs(tsvc_real(a, "value") - DEFAULT_TIMECONST / 2) <= 1e-12 + 1e-15,
		    "%s: %.17g", methods[i], tsvc_real(a, "value"));
		json_decref(a);
	}
}
END_TEST

START_TEST(unmoved_field_does_not_cross)
{
	/* the body's dampratio, which the floor's priority overrides, moves no answer:
	 * a 422 that says so (before: 0.3, "converged") */
	struct err e;
	size_t i;
	char body[1024];

	for (i = 0; i < 3; i++) {
		snprintf(body, sizeof body,
		    "{\"query\": \"drop\", \"path\": \"dampratio\", \"field\": \"rebound\", "
		    "\"target\": 0, \"bracket\": [0.3, 1.5], \"method\": \"%s\", %s}",
		    methods[i], PAD_BASE);
		e = find_error(body);
		ck_assert_int_eq(e.code, ERR_BAD_VALUE);
		ck_assert_str_eq(e.path, "/bracket");
		ck_assert_msg(strstr(e.message, "/geom/solref/1 does not change rebound") &&
		        strstr(e.message, "does not cross"),
		    "%s", e.message);
	}
	/* a field that moves but stays on one side: it does not cross */
	e = find_error("{\"query\": \"drop\", \"path\": \"dampratio\", \"field\": \"rebound\", "
	               "\"target\": 1, \"bracket\": [0.1, 1]}");
	ck_assert_int_eq(e.code, ERR_BAD_VALUE);
	ck_assert_msg(strstr(e.message, "below it at all 17 points") &&
	        strstr(e.message, "does not cross the target"),
	    "%s", e.message);
}
END_TEST

/* Semi-implicit Euler's growth (spectral radius of one step) of the default stability
 * question at dampratio dr, derived here: det 1 - hc, trace 2 - hc - h^2 k with
 * c = 2 / tc and k = 1 / (tc dr)^2 (see stability_boundary_of_dampratio) */
static double growth_closed(double dr)
{
	double h = DEFAULT_TIMESTEP, tc = DEFAULT_TIMECONST;
	double det = 1 - h * 2 / tc, tr = 2 - h * 2 / tc - h * h / (tc * dr * tc * dr);
	double disc = tr * tr - 4 * det;

	if (disc < 0)
		return sqrt(det);
	return (fabs(tr) + sqrt(disc)) / 2;
}

START_TEST(non_monotone_field_first_crossing)
{
	/* growth over dampratio falls from 1.74 at 0.05 to sqrt(det) = 0.894 (complex
	 * eigenvalues), then rises towards 1 (0.998 at 5): it crosses 0.9 twice in
	 * [0.05, 5] and both ends are above it (before: a 422). The first crossing is the
	 * closed form's root below the minimum, by our own bisection on it; every method
	 * answers it to the tolerance 1e-9 (the closed form's arithmetic differs from the
	 * core's in the last bits, a dr error far below 1e-12) */
	double lo = 0.05, hi = 0.1, want;
	size_t i;
	char body[512];

	ck_assert(growth_closed(lo) > 0.9 && growth_closed(hi) < 0.9 && growth_closed(5) > 0.9);
	while (hi - lo > 1e-14)
		*(growth_closed((lo + hi) / 2) > 0.9 ? &lo : &hi) = (lo + hi) / 2;
	want = hi;
	for (i = 0; i < 3; i++) {
		json_t *a;

		snprintf(body, sizeof body,
		    "{\"query\": \"stability\", \"path\": \"dampratio\", \"field\": \"growth\", "
		    "\"target\": 0.9, \"bracket\": [0.05, 5], \"tolerance\": 1e-9, \"method\": "
		    "\"%s\"}",
		    methods[i]);
		a = tsvc_answer(SVC_FIND, body, NULL);
		ck_assert(json_is_true(json_object_get(a, "converged")));
		ck_assert_msg(fabs(tsvc_real(a, "value") - want) <= 1e-9 + 1e-12,
		    "%s: %.17g, want %.17g", methods[i], tsvc_real(a, "value"), want);
		json_decref(a);
	}
}
END_TEST

START_TEST(bracket_too_wide_for_finite_arithmetic)
{
	/* issue 32: its width (and the default tolerance 1e-6 of it) would be infinite,
	 * which no JSON can carry: a 4xx at /bracket, not the 500 it was */
	static const char *const bodies[] = {
	    "{\"query\": \"drop\", \"path\": \"dampratio\", \"field\": \"rebound\", "
	    "\"bracket\": [-1e308, 1e308]}",
	    "{\"query\": \"rest\", \"path\": \"timeconst\", \"field\": \"penetration\", "
	    "\"bracket\": [-1e308, 1e308]}",
	    "{\"query\": \"stability\", \"path\": \"timeconst\", \"field\": \"growth\", "
	    "\"target\": 1, \"bracket\": [-1e308, 1e308]}",
	    "{\"query\": \"stability\", \"path\": \"dampratio\", \"field\": \"stable\", "
	    "\"bracket\": [1e308, -1.7e308]}",
	};
	size_t i;

	for (i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
		struct err e = find_error(bodies[i]);

		ck_assert_msg(e.code == ERR_BAD_VALUE, "%s: %d %s", bodies[i], e.code, e.message);
		ck_assert_str_eq(e.path, "/bracket");
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("find");
	TCase *tc = tcase_create("find");
	SRunner *runner;
	int failed;

	tcase_add_test(tc, stability_boundary_of_dampratio);
	tcase_add_test(tc, timeconst_for_one_millimetre_at_rest);
	tcase_add_test(tc, dampratio_for_rebound_below_a_millimetre);
	tcase_add_test(tc, bracket_that_does_not_bracket);
	tcase_add_test(tc, iteration_cap_and_validation);
	tcase_add_test(tc, aliases_resolve_per_query);
	tcase_add_test(tc, man_page_lists_every_alias);
	tcase_add_test(tc, sweep_floor_follows_the_geom_in_any_order);
	tcase_add_test(tc, answers_carry_release_and_core_version);
	tcase_add_test(tc, plateau_edge_where_bouncing_stops);
	tcase_add_test(tc, plateau_edge_of_growth);
	tcase_add_test(tc, unmoved_field_does_not_cross);
	tcase_add_test(tc, non_monotone_field_first_crossing);
	tcase_add_test(tc, bracket_too_wide_for_finite_arithmetic);
	suite_add_tcase(s, tc);
	runner = srunner_create(s);
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? 0 : 1;
}
