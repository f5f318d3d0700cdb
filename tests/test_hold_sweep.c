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

/* A field a grid varies: its alias (or pointer), its pointer, and a random value. */
static const struct axis {
	const char *name, *ptr;
	double lo, hi; /* lo > hi: the cone */
} axes[] = {
    {"grip_force", "/grip_force", 0.5, 40},
    {"impratio", "/option/impratio", 1, 20},
    {"cone", "/option/cone", 1, 0},
    {"timeconst", "/pad/solref/0", 0.004, 0.05},
    {"/pad/solref/1", "/pad/solref/1", 0.3, 1.5},
    {"d0", "/pad/solimp/0", 0.5, 0.95},
    {"friction", "/pad/friction/0", 0.3, 1.5},
    {"mass", "/object/mass", 0.02, 0.5},
    {"size", "/object/size", 0.01, 0.04},
    {"timestep", "/option/timestep", 0.001, 0.004},
};

#define NAXES (sizeof axes / sizeof axes[0])

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
	/* the one refusal a valid point may meet: crushed pads */
	ck_assert_msg(refusal->code == ERR_BAD_VALUE && strcmp(refusal->path, "/grip_force") == 0,
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

/* One grid: whole, streamed (JSON, CSV, CSV with JSON) and point by point. */
static int check_grid(const char *release, int grid)
{
	struct svc_limits lim = tsvc_limits(2);
	json_t *base = random_base(release), *values[2], *request, *answer, *rows;
	size_t pick[2], i, k;
	char *body, *whole = NULL, *csv = NULL, *json_stream, *csv_stream;
	struct err err;
	json_error_t jerr;

	pick[0] = (size_t)(uniform() * NAXES);
	do
		pick[1] = (size_t)(uniform() * NAXES);
	while (pick[1] == pick[0]);
	for (k = 0; k < 2; k++) {
		values[k] = json_array();
		for (i = 0; i < GRID; i++)
			json_array_append_new(values[k], axis_value(&axes[pick[k]]));
	}
	/* every few grids, a grip force that crushes the pads into the object */
	if (grid % 5 == 0 && pick[0] != 0 && pick[1] != 0)
		json_object_set_new(base, "grip_force", json_real(1e5));
	{
		/* every field present, so the single requests can set any pointer */
		char *text = jtext_line(base);
		json_decref(base);
		base = tsvc_canonical(SVC_HOLD, text);
		free(text);
	}
	request = json_pack("{s:s, s:O, s:[{s:s, s:O}, {s:s, s:O}]}", "query", "hold", "base", base,
	    "vary", "path", axes[pick[0]].name, "values", values[0], "path", axes[pick[1]].name,
	    "values", values[1]);
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
	    axes[pick[0]].ptr);
	rows = json_object_get(answer, "rows");
	ck_assert_int_eq(json_array_size(rows), GRID * GRID);
	{
		struct tsvc_grid g = {SVC_HOLD, base, {axes[pick[0]].ptr, axes[pick[1]].ptr}, body,
		    whole, answer, &lim};
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
	tcase_add_test(tc, hold_line_by_alias);
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
