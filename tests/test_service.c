/*
 * test_service.c: the rest, drop, stability and sweep handlers (service layer).
 *
 * Expected numbers are the seed lesson's tables (MuJoCo's output), with the
 * lesson's printed digits as the tolerance (tsvc_assert_printed). Where the
 * spec (shared/mujoco-contact-spec.md §14) found the lesson and real MuJoCo
 * 2.2.2 differ, MuJoCo's value is used and the comment says so.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jtext.h"
#include "http/status.h"
#include "service/eval.h"
#include "service/service.h"
#include "svc_test.h"
#include "lesson_step4.h"

START_TEST(drop_of_the_lessons_cube)
{
	/* Experiment, Sweep 3 and "At its deepest": the default 1 kg cube dropped 10 cm is
	 * 8.283 mm into the floor at the deepest and does not bounce (0.000 mm) */
	json_t *a = tsvc_answer(SVC_DROP, "{}", NULL);

	tsvc_assert_printed(tsvc_real(a, "peak_penetration") * 1e3, 8.283, 3, "peak (mm)");
	tsvc_assert_printed(tsvc_real(a, "rebound") * 1e3, 0.000, 3, "rebound (mm)");
	/* Break it 1: "0.100 m (start)", "jitter 0.000 mm" */
	tsvc_assert_printed(tsvc_real(a, "max_height"), 0.100, 3, "max height (m)");
	tsvc_assert_printed(tsvc_real(a, "jitter") * 1e3, 0.000, 3, "jitter (mm)");
	/* at rest after 2 s: the cube's 0.1078 mm of Sweep 1 */
	tsvc_assert_printed(tsvc_real(a, "final_penetration") * 1e3, 0.1078, 4, "final (mm)");
	ck_assert(json_is_false(json_object_get(a, "energy_gain")));
	ck_assert(json_is_false(json_object_get(a, "diverged")));
	ck_assert(json_is_false(json_object_get(a, "solref_fallback")));
	/* 2 s at 2 ms */
	ck_assert_int_eq(json_integer_value(json_object_get(a, "steps")), 1000);
	json_decref(a);
}
END_TEST

START_TEST(rest_of_the_lessons_cube)
{
	json_t *a = tsvc_answer(SVC_REST, "{\"geom\": {\"solref\": [0.02, 1]}}", NULL);

	/* Sweep 1, timeconst 0.02: the cube rests 0.1078 mm deep */
	tsvc_assert_printed(tsvc_real(a, "penetration") * 1e3, 0.1078, 4, "penetration (mm)");
	tsvc_assert_printed(tsvc_real(a, "settled_penetration") * 1e3, 0.1078, 4, "settled (mm)");
	/* spec §11: K 2770.0831024930749, B 105.26315789473685 (MuJoCo's efc_KBIP, bit for bit) */
	ck_assert_double_eq(tsvc_real(a, "K"), 2770.0831024930749);
	ck_assert_double_eq(tsvc_real(a, "B"), 105.26315789473685);
	ck_assert_double_eq(tsvc_real(a, "timeconst_used"), 0.02);
	/* 4 corner contacts, condim 3 pyramidal: 4 rows each (spec §9) */
	ck_assert_int_eq(json_integer_value(json_object_get(a, "contacts")), 4);
	ck_assert_int_eq(json_integer_value(json_object_get(a, "rows")), 16);
	/* the impedance at the equilibrium is on the solimp sigmoid: x = r / width < mid, so
	 * d = 0.9 + 0.05 * x^2 / 0.5 (spec §5.2), r from the answer itself; 1e-12 relative */
	{
		double x = tsvc_real(a, "penetration") / 0.001;
		ck_assert_double_eq_tol(tsvc_real(a, "impedance"), 0.9 + 0.05 * x * x / 0.5, 1e-12);
	}
	ck_assert(json_is_false(json_object_get(a, "diverged")));
	json_decref(a);
}
END_TEST

START_TEST(rest_without_equilibrium_and_in_direct_form)
{
	/* zero stiffness (direct form 0, 0): no force can hold the body, which sinks */
	json_t *a =
	    tsvc_answer(SVC_REST, "{\"geom\": {\"solref\": [0, 0]}, \"duration\": 0.1}", NULL);

	ck_assert(json_is_null(json_object_get(a, "penetration")));
	ck_assert(json_is_null(json_object_get(a, "impedance")));
	ck_assert(json_is_null(json_object_get(a, "timeconst_used")));
	ck_assert_double_eq(tsvc_real(a, "K"), 0);
	ck_assert_double_gt(tsvc_real(a, "settled_penetration"), 0);
	ck_assert(json_is_false(json_object_get(a, "diverged")));
	json_decref(a);

	/* gravity pointing up: no load to hold, the body leaves the plane at once and flies
	 * free; semi-implicit Euler gives v_n = g h n and a bottom of g h^2 n (n + 1) / 2
	 * after step n: 50 steps in 0.1 s. 1e-15 absolute: a few roundings of 0.05 m */
	a = tsvc_answer(SVC_REST, "{\"option\": {\"gravity\": -9.81}, \"duration\": 0.1}", NULL);
	ck_assert(json_is_null(json_object_get(a, "penetration")));
	ck_assert_double_eq_tol(
	    tsvc_real(a, "settled_penetration"), -(9.81 * 0.002 * 0.002 * 50 * 51 / 2), 1e-15);
	json_decref(a);

	/* spec §11, solref (-1000, -10): K 1108.03324099723, B 10.526315789473685 */
	a = tsvc_answer(SVC_REST, "{\"geom\": {\"solref\": [-1000, -10]}}", NULL);
	ck_assert_double_eq_tol(tsvc_real(a, "K"), 1108.03324099723, 1e-12 * 1108.03324099723);
	ck_assert_double_eq(tsvc_real(a, "B"), 10.526315789473685);
	ck_assert(json_is_null(json_object_get(a, "timeconst_used")));
	json_decref(a);

	/* a mixed-sign solref is accepted and replaced by the default, as MuJoCo does
	 * (spec §11: (0.05, -3) gives the default's K and B) */
	a = tsvc_answer(SVC_REST, "{\"geom\": {\"solref\": [0.05, -3]}}", NULL);
	ck_assert(json_is_true(json_object_get(a, "solref_fallback")));
	ck_assert_double_eq(tsvc_real(a, "K"), 2770.0831024930749);
	ck_assert_double_eq(tsvc_real(a, "B"), 105.26315789473685);
	json_decref(a);
}
END_TEST

START_TEST(stability_of_the_gap_in_the_guard)
{
	/* Build it Step 4, last row: timeconst 0.02, dampratio 0.05, refsafe on, d = 0.95:
	 * h*omega 2.00, growth 1.740 -- unstable with the guard on */
	json_t *a = tsvc_answer(SVC_STABILITY, "{\"solref\": [0.02, 0.05]}", NULL);

	tsvc_assert_printed(tsvc_real(a, "growth"), 1.740, 3, "growth");
	tsvc_assert_printed(tsvc_real(a, "h_omega"), 2.00, 2, "h_omega");
	ck_assert(json_is_false(json_object_get(a, "stable")));
	ck_assert(json_is_true(json_object_get(a, "guard_gap")));
	ck_assert_double_eq(tsvc_real(a, "impedance"), 0.95);
	/* error_reduction = h / (2 tc dr^2 + h) (phyz SolRef); 1e-15 relative: 3 roundings */
	ck_assert_double_eq_tol(
	    tsvc_real(a, "error_reduction"), 0.002 / (2 * 0.02 * 0.05 * 0.05 + 0.002), 1e-15);
	json_decref(a);
}
END_TEST

START_TEST(stability_table_of_step_4)
{
	/* Build it Step 4: timeconst, dampratio, refsafe -> h*omega, growth (d = 0.95) */
	char body[160];
	size_t i;

	for (i = 0; i < LESSON_STEP4_ROWS; i++) {
		json_t *a;
		snprintf(body, sizeof body, "{\"solref\": [%g, %g], \"option\": {\"refsafe\": %s}}",
		    lesson_step4[i].tc, lesson_step4[i].dr,
		    lesson_step4[i].refsafe ? "true" : "false");
		a = tsvc_answer(SVC_STABILITY, body, NULL);
		tsvc_assert_printed(tsvc_real(a, "h_omega"), lesson_step4[i].h_omega, 2, body);
		tsvc_assert_printed(tsvc_real(a, "growth"), lesson_step4[i].growth, 3, body);
		ck_assert_int_eq(
		    json_is_true(json_object_get(a, "stable")), lesson_step4[i].growth <= 1);
		json_decref(a);
	}
}
END_TEST

/* The row of a sweep answer whose first cell equals value. */
static const json_t *row_for(const json_t *answer, double value)
{
	const json_t *rows = json_object_get(answer, "rows"), *row;
	size_t i;

	json_array_foreach (rows, i, row)
		if (json_number_value(json_array_get(row, 0)) == value)
			return row;
	ck_abort_msg("no row for %g", value);
	return NULL;
}

/* Index of a column by name. */
static size_t column(const json_t *answer, const char *name)
{
	const json_t *columns = json_object_get(answer, "columns"), *c;
	size_t i;

	json_array_foreach (columns, i, c)
		if (strcmp(json_string_value(c), name) == 0)
			return i;
	ck_abort_msg("no column %s", name);
	return 0;
}

static double cell(const json_t *answer, const json_t *row, const char *name)
{
	const json_t *v = json_array_get(row, column(answer, name));

	ck_assert_msg(json_is_number(v), "cell %s is not a number", name);
	return json_number_value(v);
}

START_TEST(sweep_line_reproduces_sweep_3)
{
	/* Sweep 3: dampratio -> peak penetration and rebound (mm) of the 10 cm drop, tc 0.02 */
	static const double table[][3] = {
	    {0.1, 2.220, 56.504},
	    {0.2, 3.503, 24.202},
	    {0.3, 4.629, 13.766},
	    {0.5, 6.236, 3.339},
	    {0.7, 7.288, 0.055},
	    {1.0, 8.283, 0.000},
	    {2.0, 9.723, 0.000},
	};
	struct svc_limits lim = tsvc_limits(2);
	json_t *a = tsvc_answer(SVC_SWEEP,
	    "{\"query\": \"drop\", \"vary\": [{\"path\": \"/geom/solref/1\", \"values\": "
	    "[0.1, 0.2, 0.3, 0.5, 0.7, 1, 2]}]}",
	    &lim);
	size_t i;

	ck_assert_str_eq(json_string_value(json_object_get(a, "query")), "drop");
	ck_assert_int_eq(json_array_size(json_object_get(a, "rows")), 7);
	for (i = 0; i < 7; i++) {
		const json_t *row = row_for(a, table[i][0]);
		tsvc_assert_printed(cell(a, row, "peak_penetration") * 1e3, table[i][1], 3, "peak");
		tsvc_assert_printed(cell(a, row, "rebound") * 1e3, table[i][2], 3, "rebound");
	}
	json_decref(a);
}
END_TEST

START_TEST(sweep_grid_reproduces_sweep_1)
{
	/* Sweep 1: timeconst -> resting penetration after 2 s (mm) of the cube and the
	 * sphere, and the sphere's impedance d and the equation's exact value */
	static const struct {
		double tc, cube, sphere, d, equation;
	} table[] = {
	    {0.001, 0.0044, 0.0175, 0.9000, 0.0175},
	    {0.002, 0.0044, 0.0175, 0.9000, 0.0175},
	    {0.004, 0.0044, 0.0175, 0.9000, 0.0175},
	    {0.005, 0.0068, 0.0273, 0.9001, 0.0273},
	    {0.01, 0.0273, 0.1078, 0.9012, 0.1078},
	    {0.02, 0.1078, 0.3672, 0.9135, 0.3672},
	    /* the exact equilibrium 1.22625 mm is a rounding tie. Under the default (3.14.0)
	     * rules Newton's zero-iteration exit keeps a warmstart within tolerance, and the
	     * sphere settles at 1.22624999906 mm, the lesson's 1.2262; MuJoCo 2.2.2 settles
	     * at 1.2262500000000816 (1.2263, lesson_ties_follow_the_release below) */
	    {0.05, 0.4914, 1.2262, 0.9500, 1.2263},
	    {0.1, 1.2263, 4.9050, 0.9500, 4.9050},
	};
	struct svc_limits lim = tsvc_limits(2);
	json_t *a = tsvc_answer(SVC_SWEEP,
	    "{\"query\": \"rest\", \"vary\": [{\"path\": \"/body/shape\", \"values\": [\"box\", "
	    "\"sphere\"]}, {\"path\": \"/geom/solref/0\", \"values\": [0.001, 0.002, 0.004, 0.005, "
	    "0.01, 0.02, 0.05, 0.1]}]}",
	    &lim);
	const json_t *rows = json_object_get(a, "rows");
	size_t i;

	ck_assert_int_eq(json_array_size(rows), 16);
	ck_assert_str_eq(
	    json_string_value(json_array_get(json_object_get(a, "columns"), 0)), "/body/shape");
	ck_assert_str_eq(
	    json_string_value(json_array_get(json_object_get(a, "columns"), 1)), "/geom/solref/0");
	for (i = 0; i < 8; i++) {
		/* row-major: the first entry (shape) varies slowest */
		const json_t *cube = json_array_get(rows, i), *sphere = json_array_get(rows, 8 + i);
		ck_assert_str_eq(json_string_value(json_array_get(cube, 0)), "box");
		ck_assert_str_eq(json_string_value(json_array_get(sphere, 0)), "sphere");
		ck_assert_double_eq(json_number_value(json_array_get(cube, 1)), table[i].tc);
		tsvc_assert_printed(
		    cell(a, cube, "settled_penetration") * 1e3, table[i].cube, 4, "cube (mm)");
		tsvc_assert_printed(cell(a, sphere, "settled_penetration") * 1e3, table[i].sphere,
		    4, "sphere (mm)");
		tsvc_assert_printed(cell(a, sphere, "impedance"), table[i].d, 4, "sphere d");
		tsvc_assert_printed(
		    cell(a, sphere, "penetration") * 1e3, table[i].equation, 4, "equation (mm)");
	}
	json_decref(a);
}
END_TEST

START_TEST(sweep_of_solimp_reproduces_sweep_2)
{
	/* Sweep 2: solimp "d d 0.001", timeconst 0.02: the cube rests 0.4905 / 0.0981 /
	 * 0.0490 / 0.0098 mm deep for d = 0.5 / 0.9 / 0.95 / 0.99. At d = 0.95 the exact
	 * value (1 - 0.95) g 0.02^2 / 4 = 0.04905 mm is a rounding tie: the default (3.14.0)
	 * rules settle just below it, the lesson's 0.0490; MuJoCo 2.2.2 settles at
	 * 0.049050000000036564 mm, 0.0491 (lesson_ties_follow_the_release) */
	static const double table[][3] = {{0.5, 0.4905, 0.4905}, {0.9, 0.0981, 0.0981},
	    {0.95, 0.0491, 0.0490}, {0.99, 0.0098, 0.0098}};
	json_t *a = tsvc_answer(SVC_SWEEP,
	    "{\"query\": \"rest\", \"vary\": [{\"path\": \"/geom/solimp\", \"values\": [[0.5, 0.5, "
	    "0.001, 0.5, 2], [0.9, 0.9, 0.001, 0.5, 2], [0.95, 0.95, 0.001, 0.5, 2], [0.99, 0.99, "
	    "0.001, 0.5, 2]]}]}",
	    NULL);
	const json_t *rows = json_object_get(a, "rows");
	size_t i;

	for (i = 0; i < 4; i++) {
		const json_t *row = json_array_get(rows, i);
		ck_assert_double_eq(
		    json_number_value(json_array_get(json_array_get(row, 0), 0)), table[i][0]);
		tsvc_assert_printed(
		    cell(a, row, "penetration") * 1e3, table[i][1], 4, "penetration");
		tsvc_assert_printed(
		    cell(a, row, "settled_penetration") * 1e3, table[i][2], 4, "settled");
	}
	json_decref(a);
}
END_TEST

START_TEST(lesson_ties_follow_the_release)
{
	/* The two rounding ties of Sweeps 1 and 2 print as MuJoCo 2.2.2 prints them under
	 * option.mujoco "2.2.2", and as the lesson (made with MuJoCo 3.x) under "3.12.0" and
	 * "3.14.0" (the WebAssembly build of 3.14.0 settles bit for bit as 3.12.0) */
	static const struct {
		const char *release;
		double sphere, cube;
	} cases[] = {
	    {"2.2.2", 1.2263, 0.0491}, {"3.12.0", 1.2262, 0.0490}, {"3.14.0", 1.2262, 0.0490}};
	char body[512];
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		json_t *a;

		snprintf(body, sizeof body,
		    "{\"body\": {\"shape\": \"sphere\"}, \"geom\": {\"solref\": [0.05, 1]},"
		    " \"option\": {\"mujoco\": \"%s\"}}",
		    cases[i].release);
		a = tsvc_answer(SVC_REST, body, NULL);
		ck_assert_str_eq(json_string_value(json_object_get(a, "mujoco")), cases[i].release);
		tsvc_assert_printed(
		    json_number_value(json_object_get(a, "settled_penetration")) * 1e3,
		    cases[i].sphere, 4, cases[i].release);
		json_decref(a);
		snprintf(body, sizeof body,
		    "{\"geom\": {\"solimp\": [0.95, 0.95, 0.001, 0.5, 2]},"
		    " \"option\": {\"mujoco\": \"%s\"}}",
		    cases[i].release);
		a = tsvc_answer(SVC_REST, body, NULL);
		tsvc_assert_printed(
		    json_number_value(json_object_get(a, "settled_penetration")) * 1e3,
		    cases[i].cube, 4, cases[i].release);
		json_decref(a);
	}
}
END_TEST

START_TEST(sweep_reproduces_break_it)
{
	/* Break it 1: cube, dampratio 1, refsafe off: timeconst -> peak (mm), max height (m),
	 * jitter over the last 0.5 s (mm). At 0.003 the rebound is MuJoCo 2.2.2's 17.357 mm,
	 * not the lesson's 2.581 (spec §14). */
	static const double off[][5] = {
	    /* tc, peak, max height, jitter, rebound (< 0: not printed) */
	    {0.0005, 0.297, 7.834, 497.278, -1},
	    {0.001, 2.327, 13.809, 2084.273, -1},
	    {0.002, 6.308, 0.894, 267.969, -1},
	    {0.003, 0.578, 0.100, 0.000, 17.357},
	    {0.004, 0.297, 0.100, 0.000, -1},
	};
	/* Break it 2: refsafe on, timeconst 0.02: dampratio -> rebound (mm), max height (m) */
	static const double guard[][3] = {
	    {0.10, 56.504, 0.100}, {0.07, 105.891, 0.106}, {0.05, 3146.979, 3.147}};
	struct svc_limits lim = tsvc_limits(3);
	json_t *a;
	size_t i;

	a = tsvc_answer(SVC_SWEEP,
	    "{\"query\": \"drop\", \"base\": {\"option\": {\"refsafe\": false}}, \"vary\": "
	    "[{\"path\": \"/geom/solref/0\", \"values\": [0.0005, 0.001, 0.002, 0.003, 0.004]}]}",
	    &lim);
	for (i = 0; i < 5; i++) {
		const json_t *row = row_for(a, off[i][0]);
		tsvc_assert_printed(cell(a, row, "peak_penetration") * 1e3, off[i][1], 3, "peak");
		tsvc_assert_printed(cell(a, row, "max_height"), off[i][2], 3, "max height");
		tsvc_assert_printed(cell(a, row, "jitter") * 1e3, off[i][3], 3, "jitter");
		if (off[i][4] >= 0)
			tsvc_assert_printed(cell(a, row, "rebound") * 1e3, off[i][4], 3, "rebound");
	}
	json_decref(a);

	/* with the guard on, every timeconst below 2h = 0.004 s is 0.004 s: peak 0.297 mm */
	a = tsvc_answer(SVC_SWEEP,
	    "{\"query\": \"drop\", \"vary\": [{\"path\": \"/geom/solref/0\", \"values\": [0.0005, "
	    "0.001, 0.002, 0.003, 0.004]}]}",
	    &lim);
	for (i = 0; i < 5; i++) {
		const json_t *row = row_for(a, off[i][0]);
		tsvc_assert_printed(cell(a, row, "peak_penetration") * 1e3, 0.297, 3, "peak, on");
		tsvc_assert_printed(cell(a, row, "max_height"), 0.100, 3, "max height, on");
		ck_assert_double_eq(cell(a, row, "jitter"), cell(a, row_for(a, 0.004), "jitter"));
	}
	json_decref(a);

	a = tsvc_answer(SVC_SWEEP,
	    "{\"query\": \"drop\", \"vary\": [{\"path\": \"/geom/solref/1\", \"values\": "
	    "[0.1, 0.07, 0.05]}]}",
	    &lim);
	for (i = 0; i < 3; i++) {
		const json_t *row = row_for(a, guard[i][0]);
		tsvc_assert_printed(cell(a, row, "rebound") * 1e3, guard[i][1], 3, "rebound");
		tsvc_assert_printed(cell(a, row, "max_height"), guard[i][2], 3, "max height");
	}
	/* 0.07 and 0.05 rebound higher than the 10 cm drop: the contact injected energy */
	ck_assert(json_is_false(json_array_get(row_for(a, 0.1), column(a, "energy_gain"))));
	ck_assert(json_is_true(json_array_get(row_for(a, 0.07), column(a, "energy_gain"))));
	ck_assert(json_is_true(json_array_get(row_for(a, 0.05), column(a, "energy_gain"))));
	json_decref(a);
}
END_TEST

/* The single answer's fields must equal the sweep row's cells, bit for bit. */
static void assert_row_is_answer(
    const json_t *sweep, const json_t *row, size_t nvary, const json_t *single)
{
	const json_t *columns = json_object_get(sweep, "columns");
	size_t i;

	ck_assert_int_eq(json_array_size(columns) - nvary, json_object_size(single));
	for (i = nvary; i < json_array_size(columns); i++) {
		const char *name = json_string_value(json_array_get(columns, i));
		ck_assert_msg(json_equal(json_array_get(row, i), json_object_get(single, name)),
		    "column %s differs from the single answer", name);
	}
}

START_TEST(sweep_points_equal_single_requests)
{
	struct svc_limits lim = tsvc_limits(4);
	json_t *sweep = tsvc_answer(SVC_SWEEP,
	    "{\"query\": \"rest\", \"base\": {\"body\": {\"shape\": \"sphere\", \"size\": 0.03}, "
	    "\"duration\": 0.5}, \"vary\": [{\"path\": \"/geom/solref\", \"values\": [[0.01, 1], "
	    "[-5000, -20], [0.05, -3]]}, {\"path\": \"/floor/solimp/1\", \"values\": "
	    "[0.95, 0.99]}]}",
	    &lim);
	static const char *const singles[] = {
	    "{\"body\": {\"shape\": \"sphere\", \"size\": 0.03}, \"duration\": 0.5, \"geom\": "
	    "{\"solref\": [0.01, 1]}, \"floor\": {\"solimp\": [0.9, 0.95, 0.001, 0.5, 2]}}",
	    "{\"body\": {\"shape\": \"sphere\", \"size\": 0.03}, \"duration\": 0.5, \"geom\": "
	    "{\"solref\": [0.01, 1]}, \"floor\": {\"solimp\": [0.9, 0.99, 0.001, 0.5, 2]}}",
	    "{\"body\": {\"shape\": \"sphere\", \"size\": 0.03}, \"duration\": 0.5, \"geom\": "
	    "{\"solref\": [-5000, -20]}, \"floor\": {\"solimp\": [0.9, 0.95, 0.001, 0.5, 2]}}",
	    "{\"body\": {\"shape\": \"sphere\", \"size\": 0.03}, \"duration\": 0.5, \"geom\": "
	    "{\"solref\": [-5000, -20]}, \"floor\": {\"solimp\": [0.9, 0.99, 0.001, 0.5, 2]}}",
	    "{\"body\": {\"shape\": \"sphere\", \"size\": 0.03}, \"duration\": 0.5, \"geom\": "
	    "{\"solref\": [0.05, -3]}, \"floor\": {\"solimp\": [0.9, 0.95, 0.001, 0.5, 2]}}",
	    "{\"body\": {\"shape\": \"sphere\", \"size\": 0.03}, \"duration\": 0.5, \"geom\": "
	    "{\"solref\": [0.05, -3]}, \"floor\": {\"solimp\": [0.9, 0.99, 0.001, 0.5, 2]}}",
	};
	const json_t *rows = json_object_get(sweep, "rows");
	size_t i;

	ck_assert_int_eq(json_array_size(rows), 6);
	for (i = 0; i < 6; i++) {
		/* the floor's solref follows the geom's (it was never set in the base) */
		json_t *single = tsvc_answer(SVC_REST, singles[i], NULL);
		assert_row_is_answer(sweep, json_array_get(rows, i), 2, single);
		json_decref(single);
	}
	/* the points differ from each other: the vary entries were applied */
	ck_assert(!json_equal(json_array_get(rows, 0), json_array_get(rows, 1)));
	ck_assert(!json_equal(json_array_get(rows, 0), json_array_get(rows, 2)));
	json_decref(sweep);
}
END_TEST

START_TEST(sweep_answers_do_not_depend_on_threads)
{
	const char *body = "{\"query\": \"drop\", \"base\": {\"duration\": 0.3}, \"vary\": "
	                   "[{\"path\": \"/height\", \"values\": [0, 0.01, 0.02, 0.05, 0.1, 0.2, "
	                   "0.5]}, {\"path\": \"/option/integrator\", \"values\": [\"Euler\", "
	                   "\"RK4\"]}]}";
	struct svc_limits one = tsvc_limits(1), many = tsvc_limits(5), lots = tsvc_limits(64);
	json_t *a = tsvc_answer(SVC_SWEEP, body, &one), *b = tsvc_answer(SVC_SWEEP, body, &many);
	json_t *c = tsvc_answer(SVC_SWEEP, body, &lots);
	char *ta = jtext_line(a), *tb = jtext_line(b), *tc = jtext_line(c);

	ck_assert_str_eq(ta, tb);
	ck_assert_str_eq(ta, tc);
	free(ta);
	free(tb);
	free(tc);
	json_decref(a);
	json_decref(b);
	json_decref(c);
}
END_TEST

START_TEST(sweep_paths_with_escapes_and_whole_fields)
{
	/* "~1" and "~0" in a path resolve like RFC 6901 says, against the canonical base;
	 * no scene field has a '/' or '~', so an escaped path names nothing */
	const char *body = "{\"query\": \"rest\", \"vary\": [{\"path\": \"/geom~1solref\", "
	                   "\"values\": [1]}]}";
	json_t *a;

	tsvc_expect_error(SVC_SWEEP, body, strlen(body), NULL, ERR_UNKNOWN_FIELD, "/vary/0/path");
	/* a whole array as the value, and the floor's own field */
	a = tsvc_answer(SVC_SWEEP,
	    "{\"query\": \"stability\", \"vary\": [{\"path\": \"/solref\", \"values\": [[0.02, 1], "
	    "[0.02, 0.05]]}]}",
	    NULL);
	ck_assert(json_is_true(
	    json_array_get(json_array_get(json_object_get(a, "rows"), 0), column(a, "stable"))));
	ck_assert(json_is_false(
	    json_array_get(json_array_get(json_object_get(a, "rows"), 1), column(a, "stable"))));
	json_decref(a);
}
END_TEST

START_TEST(sweep_csv_shape)
{
	json_t *a = tsvc_answer(SVC_SWEEP,
	    "{\"query\": \"stability\", \"vary\": [{\"path\": \"/solref\", \"values\": [[0.02, 1], "
	    "[-1000, -10]]}, {\"path\": \"/option/refsafe\", \"values\": [true, false]}]}",
	    NULL);
	struct err err;
	char *csv = NULL, *line, *save = NULL;
	size_t lines = 0, commas;
	const char *p;

	err_clear(&err);
	ck_assert_int_eq(svc_sweep_csv(a, &csv, &err), 0);
	/* header: the two paths then the stability fields in their documented order */
	ck_assert(strncmp(csv,
	              "/solref,/option/refsafe,growth,h_omega,stable,timeconst_used,guard_gap,"
	              "error_reduction,impedance,K,B,refsafe_replaced,solref_fallback,diverged\n",
	              strlen("/solref,/option/refsafe,growth")) == 0);
	ck_assert(csv[strlen(csv) - 1] == '\n');
	for (line = strtok_r(csv, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/* a quoted array cell holds one comma that is not a separator */
		commas = 0;
		for (p = line; *p; p++)
			commas += *p == ',';
		if (lines > 0) {
			ck_assert(line[0] == '"');
			commas -= 1;
		}
		ck_assert_uint_eq(commas, 15); /* 13 + mujoco, core_version */
		lines++;
	}
	ck_assert_uint_eq(lines, 5);
	free(csv);
	json_decref(a);
}
END_TEST

START_TEST(sweep_csv_cells)
{
	json_t *answer = json_loads("{\"columns\": [\"a\", \"b,c\", \"d\"], \"rows\": [[0.1, 3, "
	                            "true], [null, \"x\\\"y\", [1.5, \"q\"]], [1e300, false, {}]]}",
	    0, NULL);
	struct err err;
	char *csv = NULL;

	err_clear(&err);
	ck_assert_int_eq(svc_sweep_csv(answer, &csv, &err), 0);
	/* reals shortest exact and spelled as in the JSON answer (1e300, not 1e+300),
	 * integers as integers, booleans, null empty, RFC 4180 quotes */
	ck_assert_str_eq(csv,
	    "a,\"b,c\",d\n"
	    "0.1,3,true\n"
	    ",\"x\"\"y\",\"[1.5,\"\"q\"\"]\"\n"
	    "1e300,false,{}\n");
	free(csv);
	json_decref(answer);

	answer = json_loads("{\"rows\": []}", 0, NULL);
	ck_assert_int_eq(svc_sweep_csv(answer, &csv, &err), -1);
	ck_assert_int_eq(err.code, ERR_INTERNAL);
	json_decref(answer);
}
END_TEST

START_TEST(never_a_non_finite_number)
{
	/* a direct-form stiffness of 1.7e308 / dmax^2 overflows to inf (spec §5.3): the
	 * first contact step throws the body to infinity */
	json_t *a = tsvc_answer(SVC_DROP, "{\"geom\": {\"solref\": [-1.7e308, -1]}}", NULL);
	char *text = jtext_line(a);
	const char *key;
	json_t *v;
	int nulls = 0;

	ck_assert(json_is_true(json_object_get(a, "diverged")));
	json_object_foreach (a, key, v) {
		ck_assert(!json_is_real(v) || isfinite(json_real_value(v)));
		nulls += json_is_null(v);
	}
	ck_assert_int_gt(nulls, 0);
	ck_assert_ptr_null(strstr(text, "nan"));
	ck_assert_ptr_null(strstr(text, "inf"));
	free(text);
	json_decref(a);

	/* the same contact at rest and in the stability answer */
	a = tsvc_answer(SVC_REST, "{\"geom\": {\"solref\": [-1.7e308, -1]}}", NULL);
	ck_assert(json_is_true(json_object_get(a, "diverged")));
	ck_assert(json_is_null(json_object_get(a, "K")));
	json_decref(a);
	a = tsvc_answer(SVC_STABILITY, "{\"solref\": [-1.7e308, -1]}", NULL);
	ck_assert(json_is_true(json_object_get(a, "diverged")));
	ck_assert(json_is_null(json_object_get(a, "growth")));
	json_decref(a);
}
END_TEST

START_TEST(dump_is_canonical_text)
{
	json_t *v = json_pack(
	    "{s:f, s:i, s:[f, b, n], s:s}", "z", 0.1, "a", 3, "m", 1.0, 1, "s", "\xc3\xa9");
	char *text = jtext_line(v);

	ck_assert_str_eq(text,
	    "{\"a\":3,\"m\":[1.0,true,null],\"s\":\"\xc3\xa9\","
	    "\"z\":0.1}\n");
	free(text);
	json_decref(v);
}
END_TEST

START_TEST(endpoint_names)
{
	static const char *const names[] = {"rest", "drop", "stability", "sweep", "eval", "find"};
	enum svc_endpoint ep;
	struct err err;
	size_t i;

	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		err_clear(&err);
		ck_assert_int_eq(svc_endpoint_parse(names[i], &ep, &err), 0);
		ck_assert_str_eq(svc_endpoint_name(ep), names[i]);
	}
	ck_assert_int_eq(svc_endpoint_parse("calibrate", &ep, &err), -1);
	ck_assert_int_eq(err.code, ERR_NOT_FOUND);
}
END_TEST

/* The table is whole: every row named, answerable, every kind complete. */
START_TEST(endpoint_table_is_whole)
{
	struct err err;

	err_clear(&err);
	ck_assert_msg(svc_endpoints_check(&err) == 0, "%s", err.message);
}
END_TEST

/* Every row with answer fields answers exactly them, and a sweep of a sweepable row
 * has them as its columns, in the row's order, after the varied path. */
START_TEST(endpoint_rows_describe_their_answers)
{
	size_t e, i;

	for (e = 0; e < SVC_ENDPOINT_COUNT; e++) {
		const struct svc_endpoint_def *row = svc_endpoints[e];
		json_t *answer, *canonical, *member, *columns;
		const char *key = NULL, *k;
		char body[512];

		if (!row->fields) {
			ck_assert_ptr_null(row->kind);
			continue;
		}
		answer = tsvc_answer((enum svc_endpoint)e, "{}", NULL);
		for (i = 0; row->fields[i].name; i++)
			ck_assert_msg(json_object_get(answer, row->fields[i].name) != NULL,
			    "%s answers no %s", row->name, row->fields[i].name);
		ck_assert_uint_eq(json_object_size(answer), i);
		json_decref(answer);
		if (!row->kind)
			continue;
		/* vary the canonical request's first top-level number at its own value */
		canonical = tsvc_canonical((enum svc_endpoint)e, "{}");
		json_object_foreach (canonical, k, member) {
			if (json_is_real(member)) {
				key = k;
				break;
			}
		}
		ck_assert_ptr_nonnull(key);
		snprintf(body, sizeof body,
		    "{\"query\": \"%s\", \"vary\": [{\"path\": \"/%s\", \"values\": [%.17g]}]}",
		    row->name, key, json_real_value(member));
		answer = tsvc_answer(SVC_SWEEP, body, NULL);
		columns = json_object_get(answer, "columns");
		ck_assert_uint_eq(json_array_size(columns), i + 1);
		for (i = 0; row->fields[i].name; i++)
			ck_assert_str_eq(
			    json_string_value(json_array_get(columns, i + 1)), row->fields[i].name);
		json_decref(answer);
		json_decref(canonical);
	}
}
END_TEST

/* Assert svc_ask() of body, parsed once, gives svc_answer()'s bytes. */
static void ask_once_and_twice(enum svc_endpoint ep, const char *body, const struct svc_limits *lim)
{
	json_t *answer = tsvc_answer(ep, body, lim);
	char *twice = jtext_line(answer), *once = NULL;
	struct err err;

	err_clear(&err);
	ck_assert_int_eq(svc_ask(ep, body, strlen(body), lim, NULL, &once, NULL, &err), 0);
	ck_assert_str_eq(once, twice);
	free(once);
	free(twice);
	json_decref(answer);
}

/* svc_ask() answers from the request parsed once; svc_answer() parses the canonical
 * request again. Both give the same bytes, for every row (a batch with a bad call,
 * whose error is the answer's entry, included). A sweepable row without a case of its
 * own here (a new endpoint's) is asked its all-defaults request, {}: every kind has one. */
START_TEST(ask_parsed_once_equals_answer_of_canonical)
{
	static const struct {
		enum svc_endpoint ep;
		const char *body;
	} cases[] = {
	    {SVC_REST, "{\"geom\": {\"solref\": [0.05, 1]}, \"duration\": 0.3}"},
	    {SVC_DROP, "{\"height\": 0.05}"},
	    {SVC_STABILITY, "{\"solref\": [0.02, 0.05]}"},
	    {SVC_SWEEP,
	        "{\"query\": \"drop\", \"vary\": [{\"path\": \"/geom/solref/1\", "
	        "\"values\": [0.3, 1]}]}"},
	    {SVC_EVAL,
	        "{\"calls\": [{\"function\": \"impedance\", \"id\": 7, \"args\": {\"r\": "
	        "0.0005, \"solimp\": [0.9, 0.95, 0.001, 0.5, 2]}}, {\"function\": \"nope\", "
	        "\"id\": \"b\"}, {\"function\": \"error_reduction\", \"args\": "
	        "{\"timeconst\": 0.02, \"dampratio\": 1, \"dt\": 0.002}}]}"},
	    {SVC_EVAL,
	        "{\"function\": \"solref_kb\", \"args\": {\"solref\": [0.02, 1], \"dmax\": "
	        "0.95, \"h\": 0.002}}"},
	    {SVC_FIND,
	        "{\"query\": \"stability\", \"path\": \"dampratio\", \"field\": "
	        "\"stable\", \"bracket\": [0.01, 1], \"tolerance\": 1e-6}"},
	    {SVC_HOLD, "{\"grip_force\": 5, \"option\": {\"cone\": \"elliptic\"}}"},
	    {SVC_MODEL,
	        "{\"main\": \"a.xml\", \"files\": {\"a.xml\": \"<mujoco><worldbody><geom "
	        "type='plane' size='0 0 1'/><body pos='0 0 0.05'><freejoint/><geom "
	        "size='0.05'/></body></worldbody></mujoco>\"}}"},
	    {SVC_GRADE,
	        "{\"calls\": [{\"function\": \"impedance\", \"id\": 7, \"args\": {\"r\": "
	        "0.0005, \"solimp\": [0.9, 0.95, 0.001, 0.5, 2]}, \"value\": 0.925}, "
	        "{\"function\": \"nope\", \"value\": 1}]}"},
	};
	struct svc_limits lim = tsvc_limits(1);
	int covered[SVC_ENDPOINT_COUNT] = {0};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ask_once_and_twice(cases[i].ep, cases[i].body, &lim);
		covered[cases[i].ep] = 1;
	}
	for (i = 0; i < SVC_ENDPOINT_COUNT; i++) {
		if (covered[i])
			continue;
		ck_assert_msg(svc_endpoints[i]->kind, "no case for row %s", svc_endpoints[i]->name);
		ask_once_and_twice((enum svc_endpoint)i, "{}", &lim);
	}
}
END_TEST

/* A cache that remembers one answer and counts its calls; fail makes it fail. */
struct fake_cache {
	char *endpoint, *canonical, *answer;
	int gets, puts, fail;
};

static int fake_get(void *ctx, const char *endpoint, const char *canonical, char **answer,
    size_t *len, struct err *err)
{
	struct fake_cache *c = ctx;

	c->gets++;
	if (c->fail)
		return err_set(err, ERR_UNAVAILABLE, "", "the fake cache is down");
	if (!c->answer || strcmp(endpoint, c->endpoint) != 0 || strcmp(canonical, c->canonical))
		return 0;
	*answer = strdup(c->answer);
	*len = strlen(c->answer);
	return 1;
}

static int fake_put(void *ctx, const char *endpoint, const char *canonical, const char *answer,
    size_t len, struct err *err)
{
	struct fake_cache *c = ctx;

	c->puts++;
	if (c->fail)
		return err_set(err, ERR_UNAVAILABLE, "", "the fake cache is down");
	ck_assert_uint_eq(len, strlen(answer));
	free(c->endpoint);
	free(c->canonical);
	free(c->answer);
	c->endpoint = strdup(endpoint);
	c->canonical = strdup(canonical);
	c->answer = strdup(answer);
	return 0;
}

/* svc_ask(): a miss is computed and stored under the canonical text, an equal question
 * spelled otherwise is then served from the cache, and a failing cache changes nothing
 * but the outcome. */
START_TEST(ask_runs_the_cache_aside_pipeline)
{
	static const char first[] = "{\"geom\": {\"solref\": [0.02, 1]}}";
	static const char same[] = "{ \"geom\" : {\"solref\": [0.020, 1.0]}, \"height\": 0.1 }";
	struct fake_cache fake = {0};
	struct cache cache = {&fake, fake_get, fake_put};
	struct svc_limits lim = tsvc_limits(1);
	struct svc_outcome outcome;
	char *text = NULL, *uncached = NULL, *canonical = tsvc_canonical_text(SVC_DROP, first);
	struct err err;

	err_clear(&err);
	ck_assert_int_eq(
	    svc_ask(SVC_DROP, first, strlen(first), &lim, NULL, &uncached, NULL, &err), 0);
	ck_assert_int_eq(
	    svc_ask(SVC_DROP, first, strlen(first), &lim, &cache, &text, &outcome, &err), 0);
	ck_assert_int_eq(outcome.cached, 0);
	ck_assert_int_eq(fake.gets, 1);
	ck_assert_int_eq(fake.puts, 1);
	ck_assert_str_eq(text, uncached);
	ck_assert_str_eq(fake.endpoint, "drop");
	/* the key is the canonical text, as svc_canonical() and jtext_line() make it */
	ck_assert_str_eq(fake.canonical, canonical);
	free(text);
	/* a stored answer is served as it is, not computed */
	free(fake.answer);
	fake.answer = strdup("{\"from\":\"the cache\"}\n");
	ck_assert_int_eq(
	    svc_ask(SVC_DROP, same, strlen(same), &lim, &cache, &text, &outcome, &err), 0);
	ck_assert_int_eq(outcome.cached, 1);
	ck_assert_int_eq(fake.puts, 1);
	ck_assert_str_eq(text, fake.answer);
	free(text);
	/* a failing cache: the same answer as without one, both failures reported */
	fake.fail = 1;
	ck_assert_int_eq(
	    svc_ask(SVC_DROP, first, strlen(first), &lim, &cache, &text, &outcome, &err), 0);
	ck_assert_int_eq(outcome.cached, 0);
	ck_assert_int_eq(outcome.cache_read_err.code, ERR_UNAVAILABLE);
	ck_assert_int_eq(outcome.cache_write_err.code, ERR_UNAVAILABLE);
	ck_assert_str_eq(text, uncached);
	free(text);
	/* a rejected request never reaches the cache */
	fake.gets = 0;
	ck_assert_int_eq(
	    svc_ask(SVC_DROP, "{\"hieght\": 1}", 13, &lim, &cache, &text, &outcome, &err), -1);
	ck_assert_int_eq(err.code, ERR_UNKNOWN_FIELD);
	ck_assert_int_eq(fake.gets, 0);
	free(uncached);
	free(canonical);
	free(fake.endpoint);
	free(fake.canonical);
	free(fake.answer);
}
END_TEST

/* A zero is 0, never -0: gravity -0.0 is the question of gravity 0 (one cache key), and
 * no answer of it, single or swept, prints a -0 (a slip of -0.0 m before). */
START_TEST(negative_zero_is_zero)
{
	static const char *const bodies[] = {
	    "{\"option\": {\"gravity\": -0.0}}", "{\"option\": {\"gravity\": 0}}"};
	static const char sweep[] =
	    "{\"query\": \"hold\", \"vary\": [{\"path\": \"/option/gravity\", "
	    "\"values\": [-0.0, 0.0]}]}";
	struct svc_limits lim = tsvc_limits(1);
	char *text = NULL;
	struct err err;
	size_t i;

	tsvc_assert_same_question(SVC_HOLD, bodies[0], bodies[1], 1);
	tsvc_assert_same_question(SVC_DROP, "{\"height\": -0.0}", "{\"height\": 0}", 1);
	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(
		    svc_ask(SVC_HOLD, bodies[i], strlen(bodies[i]), &lim, NULL, &text, NULL, &err),
		    0);
		ck_assert_msg(!strstr(text, "-0.0,") && !strstr(text, "-0.0]"), "%s", text);
		free(text);
	}
	ck_assert_int_eq(
	    svc_ask(SVC_SWEEP, sweep, strlen(sweep), &lim, NULL, &text, NULL, &err), 0);
	ck_assert_msg(!strstr(text, "-0.0"), "%s", text);
	free(text);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("service");
	TCase *handlers = tcase_create("handlers"), *sweeps = tcase_create("sweep");
	SRunner *runner;
	int failed;

	/* a failed eval call's status, as both front ends set it (Check forks after this) */

	tcase_add_test(handlers, drop_of_the_lessons_cube);
	tcase_add_test(handlers, rest_of_the_lessons_cube);
	tcase_add_test(handlers, rest_without_equilibrium_and_in_direct_form);
	tcase_add_test(handlers, stability_of_the_gap_in_the_guard);
	tcase_add_test(handlers, stability_table_of_step_4);
	tcase_add_test(handlers, never_a_non_finite_number);
	tcase_add_test(handlers, dump_is_canonical_text);
	tcase_add_test(handlers, endpoint_names);
	tcase_add_test(handlers, endpoint_table_is_whole);
	tcase_add_test(handlers, endpoint_rows_describe_their_answers);
	tcase_add_test(handlers, ask_runs_the_cache_aside_pipeline);
	tcase_add_test(handlers, ask_parsed_once_equals_answer_of_canonical);
	suite_add_tcase(s, handlers);
	/* the sweeps simulate a few hundred thousand steps; sanitizer builds are slow */
	tcase_set_timeout(sweeps, 300);
	tcase_add_test(sweeps, sweep_line_reproduces_sweep_3);
	tcase_add_test(sweeps, sweep_grid_reproduces_sweep_1);
	tcase_add_test(sweeps, sweep_of_solimp_reproduces_sweep_2);
	tcase_add_test(sweeps, lesson_ties_follow_the_release);
	tcase_add_test(sweeps, sweep_reproduces_break_it);
	tcase_add_test(sweeps, sweep_points_equal_single_requests);
	tcase_add_test(sweeps, sweep_answers_do_not_depend_on_threads);
	tcase_add_test(sweeps, sweep_paths_with_escapes_and_whole_fields);
	tcase_add_test(sweeps, sweep_csv_shape);
	tcase_add_test(sweeps, sweep_csv_cells);
	tcase_add_test(handlers, negative_zero_is_zero);
	suite_add_tcase(s, sweeps);
	runner = srunner_create(s);
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? 0 : 1;
}
