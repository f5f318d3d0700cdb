/*
 * test_eval.c: POST /v1/eval, the lesson's functions by name (service/eval.h).
 *
 * Expected values: MuJoCo 2.2.2's probe values (spec §11) to 1e-12 relative
 * (the probes placed a sphere, so their dist is z - r in floating point, a few
 * ulps from the decimal argument given here), the lesson's Build-it tables
 * (their printed digits are the tolerance), and closed forms derived here.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/status.h"
#include "service/eval.h"
#include "service/service.h"
#include "svc_test.h"
#include "core/knobs.h"

/* The result object of a single call; caller decrefs *answer. */
static const json_t *call(const char *body, json_t **answer)
{
	const json_t *result;

	*answer = tsvc_answer(SVC_EVAL, body, NULL);
	result = json_object_get(*answer, "result");
	ck_assert_msg(json_is_object(result), "%s: no result", body);
	return result;
}

static void assert_rel(double value, double expected, double rel, const char *what)
{
	ck_assert_msg(fabs(value - expected) <= rel * fabs(expected), "%s: %.17g, expected %.17g",
	    what, value, expected);
}

START_TEST(impedance_matches_mujoco)
{
	json_t *a;
	const json_t *r;

	/* spec §11: dist -0.0004, default solimp: x = 0.4, imp 0.91599999999999981,
	 * imp' -79.9999999999994 (negative: r is a signed violation, as efc_KBIP[3]) */
	r = call("{\"function\": \"impedance\", \"args\": {\"r\": -0.0004, \"solimp\": [0.9, 0.95, "
	         "0.001, 0.5, 2]}}",
	    &a);
	assert_rel(tsvc_real(r, "value"), 0.91599999999999981, 1e-12, "imp");
	assert_rel(tsvc_real(r, "derivative"), -79.9999999999994, 1e-12, "imp'");
	ck_assert_str_eq(json_string_value(json_object_get(a, "function")), "impedance");
	json_decref(a);

	/* the lesson's convention (penetration r >= 0) gives the same value */
	r = call("{\"function\": \"impedance\", \"args\": {\"r\": 0.0004, \"solimp\": [0.9, 0.95, "
	         "0.001, 0.5, 2]}}",
	    &a);
	assert_rel(tsvc_real(r, "value"), 0.91599999999999981, 1e-12, "imp, r > 0");
	assert_rel(tsvc_real(r, "derivative"), 79.9999999999994, 1e-12, "imp', r > 0");
	json_decref(a);

	/* spec §11: solimp (.5 .99 .01 .3 3) at dist -0.002 and -0.005 */
	r = call("{\"function\": \"impedance\", \"args\": {\"r\": -0.002, \"solimp\": [0.5, 0.99, "
	         "0.01, 0.3, 3]}}",
	    &a);
	assert_rel(tsvc_real(r, "value"), 0.54355555555555568, 1e-12, "imp at -0.002");
	json_decref(a);
	r = call("{\"function\": \"impedance\", \"args\": {\"r\": -0.005, \"solimp\": [0.5, 0.99, "
	         "0.01, 0.3, 3]}}",
	    &a);
	assert_rel(tsvc_real(r, "value"), 0.86499999999999977, 1e-12, "imp at -0.005");
	json_decref(a);
}
END_TEST

START_TEST(solref_kb_matches_mujoco)
{
	json_t *a;
	const json_t *r;

	/* spec §11: tc 0.02 at h 0.002 */
	r = call("{\"function\": \"solref_kb\", \"args\": {\"solref\": [0.02, 1], \"dmax\": 0.95, "
	         "\"h\": 0.002}}",
	    &a);
	assert_rel(tsvc_real(r, "K"), 2770.0831024930749, 1e-12, "K");
	assert_rel(tsvc_real(r, "B"), 105.26315789473685, 1e-12, "B");
	ck_assert_double_eq(tsvc_real(r, "timeconst_used"), 0.02);
	json_decref(a);

	/* spec §11: tc 0.001, refsafe on (raised to 2h = 0.004) and off */
	r = call("{\"function\": \"solref_kb\", \"args\": {\"solref\": [0.001, 1], \"dmax\": 0.95, "
	         "\"h\": 0.002, \"refsafe\": true}}",
	    &a);
	assert_rel(tsvc_real(r, "K"), 69252.077562326871, 1e-12, "K, refsafe on");
	ck_assert_double_eq(tsvc_real(r, "timeconst_used"), 0.004);
	json_decref(a);
	r = call("{\"function\": \"solref_kb\", \"args\": {\"solref\": [0.001, 1], \"dmax\": 0.95, "
	         "\"h\": 0.002, \"refsafe\": false}}",
	    &a);
	assert_rel(tsvc_real(r, "K"), 1108033.2409972299, 1e-12, "K, refsafe off");
	ck_assert_double_eq(tsvc_real(r, "timeconst_used"), 0.001);
	json_decref(a);

	/* spec §11: direct form (-1000, -10): no time constant */
	r = call("{\"function\": \"solref_kb\", \"args\": {\"solref\": [-1000, -10], \"dmax\": "
	         "0.95, \"h\": 0.002}}",
	    &a);
	assert_rel(tsvc_real(r, "K"), 1108.03324099723, 1e-12, "K, direct");
	assert_rel(tsvc_real(r, "B"), 10.526315789473685, 1e-12, "B, direct");
	ck_assert(json_is_null(json_object_get(r, "timeconst_used")));
	json_decref(a);
}
END_TEST

START_TEST(step_1_table)
{
	/* Build it, Step 1: timeconst, r (mm) -> d, K, B as MuJoCo's efc_KBIP (h = 2 ms) */
	static const double rows[][5] = {
	    {0.001, 0.5, 0.9250, 69252.1, 526.32},
	    {0.004, 0.5, 0.9250, 69252.1, 526.32},
	    {0.020, 0.2, 0.9040, 2770.1, 105.26},
	    {0.020, 0.5, 0.9250, 2770.1, 105.26},
	    {0.020, 2.0, 0.9500, 2770.1, 105.26},
	    {0.100, 0.5, 0.9250, 110.8, 21.05},
	};
	char body[512];
	size_t i;

	for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		json_t *a = NULL;
		const json_t *results;
		snprintf(body, sizeof body,
		    "{\"calls\": [{\"function\": \"impedance\", \"args\": {\"r\": %.17g, "
		    "\"solimp\": [0.9, 0.95, 0.001, 0.5, 2]}}, {\"function\": \"solref_kb\", "
		    "\"args\": {\"solref\": [%.17g, 1], \"dmax\": 0.95, \"h\": 0.002}}]}",
		    rows[i][1] * 1e-3, rows[i][0]);
		a = tsvc_answer(SVC_EVAL, body, NULL);
		results = json_object_get(a, "results");
		tsvc_assert_printed(
		    tsvc_real(json_object_get(json_array_get(results, 0), "result"), "value"),
		    rows[i][2], 4, "d");
		tsvc_assert_printed(
		    tsvc_real(json_object_get(json_array_get(results, 1), "result"), "K"),
		    rows[i][3], 1, "K");
		tsvc_assert_printed(
		    tsvc_real(json_object_get(json_array_get(results, 1), "result"), "B"),
		    rows[i][4], 2, "B");
		json_decref(a);
	}
}
END_TEST

START_TEST(contact_accel_matches_mujoco)
{
	json_t *a;
	const json_t *r;

	/* spec §11: sphere at dist -0.0004, v -0.3: imp*aref + (1-imp)*a0 = 29.031977728531842
	 * (MuJoCo's Newton solver: 29.031977728531835, 2e-16 relative) */
	r = call("{\"function\": \"contact_accel\", \"args\": {\"dist\": -0.0004, \"vel\": -0.3, "
	         "\"a0\": -9.81, \"solref\": [0.02, 1], \"solimp\": [0.9, 0.95, 0.001, 0.5, 2], "
	         "\"h\": 0.002}}",
	    &a);
	assert_rel(tsvc_real(r, "value"), 29.031977728531842, 1e-12, "qacc");
	json_decref(a);

	/* Step 2: at r = 0.5 mm, v = -0.3 m/s, efc_aref is 32.860111 m/s^2 and d = 0.925
	 * (Step 1), so the contact's acceleration is 0.925 * aref + 0.075 * (-9.81); the
	 * printed aref's half unit of 1e-6 carries over scaled by d */
	r = call("{\"function\": \"contact_accel\", \"args\": {\"dist\": -0.0005, \"vel\": -0.3, "
	         "\"a0\": -9.81, \"solref\": [0.02, 1], \"solimp\": [0.9, 0.95, 0.001, 0.5, 2], "
	         "\"h\": 0.002}}",
	    &a);
	ck_assert_double_eq_tol(
	    tsvc_real(r, "value"), 0.925 * 32.860111 + 0.075 * -9.81, 0.5e-6 * 0.925 + 1e-12);
	json_decref(a);

	/* no contact (dist >= 0): a0; a contact never pulls: a0 when aref is below it */
	r = call("{\"function\": \"contact_accel\", \"args\": {\"dist\": 0.001, \"vel\": -0.3, "
	         "\"a0\": -9.81, \"solref\": [0.02, 1], \"solimp\": [0.9, 0.95, 0.001, 0.5, 2], "
	         "\"h\": 0.002}}",
	    &a);
	ck_assert_double_eq(tsvc_real(r, "value"), -9.81);
	json_decref(a);
	r = call("{\"function\": \"contact_accel\", \"args\": {\"dist\": -0.0001, \"vel\": 10, "
	         "\"a0\": -9.81, \"solref\": [0.02, 1], \"solimp\": [0.9, 0.95, 0.001, 0.5, 2], "
	         "\"h\": 0.002}}",
	    &a);
	ck_assert_double_eq(tsvc_real(r, "value"), -9.81);
	json_decref(a);
}
END_TEST

START_TEST(step_3_table)
{
	/* Build it, Step 3: resting penetration (mm) of the sphere, a_u = g, default solimp */
	static const double rows[][2] = {
	    {0.001, 0.0175},
	    {0.002, 0.0175},
	    {0.004, 0.0175},
	    {0.005, 0.0273},
	    {0.010, 0.1078},
	    {0.020, 0.3672},
	    {0.050, 1.2263},
	    {0.100, 4.9050},
	};
	char body[256];
	size_t i;

	for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		json_t *a;
		const json_t *r;
		snprintf(body, sizeof body,
		    "{\"function\": \"resting_penetration\", \"args\": {\"a_u\": 9.81, \"solref\": "
		    "[%.17g, 1], \"solimp\": [0.9, 0.95, 0.001, 0.5, 2], \"h\": 0.002}}",
		    rows[i][0]);
		r = call(body, &a);
		tsvc_assert_printed(tsvc_real(r, "value") * 1e3, rows[i][1], 4, body);
		json_decref(a);
	}
}
END_TEST

START_TEST(resting_penetration_closed_form_and_none)
{
	json_t *a;
	const json_t *r;

	/* flat impedance d (solimp d d): d^2 K r = (1 - d) a_u with K = 1/(d^2 tc^2), so
	 * r = (1 - d) a_u tc^2 (the lesson's formula at d = dw); 1e-12 relative */
	r = call("{\"function\": \"resting_penetration\", \"args\": {\"a_u\": 9.81, \"solref\": "
	         "[0.02, 1], \"solimp\": [0.9, 0.9, 0.001, 0.5, 2], \"h\": 0.002}}",
	    &a);
	assert_rel(tsvc_real(r, "value"), (1 - 0.9) * 9.81 * 0.02 * 0.02, 1e-12, "flat d");
	json_decref(a);

	/* a load pulling away (a_u < 0): no equilibrium, null but not divergence */
	r = call("{\"function\": \"resting_penetration\", \"args\": {\"a_u\": -1, \"solref\": "
	         "[0.02, 1], \"solimp\": [0.9, 0.95, 0.001, 0.5, 2], \"h\": 0.002}}",
	    &a);
	ck_assert(json_is_null(json_object_get(r, "value")));
	ck_assert_ptr_null(json_object_get(r, "diverged"));
	json_decref(a);
}
END_TEST

START_TEST(step_growth_closed_forms)
{
	json_t *a;
	const json_t *r;
	double z_re, z_im;

	/* Step 4, tc 0.002, refsafe off, d = 0.95: k = d^2 K = 1/h^2, c = d B = 1/h. One step
	 * of semi-implicit Euler is [[1 - h^2 k, h(1 - h c)], [-h k, 1 - h c]] = [[0, -h],
	 * [-1/h, -1]], whose eigenvalues solve l^2 + l - 1 = 0: growth (1 + sqrt 5)/2,
	 * the lesson's 1.618 */
	r = call("{\"function\": \"step_growth\", \"args\": {\"k\": 250000, \"c\": 1000, \"h\": "
	         "0.002}}",
	    &a);
	assert_rel(tsvc_real(r, "value"), (1 + sqrt(5)) / 2, 1e-12, "Euler, tc 2h");
	json_decref(a);

	/* tc 0.001: h^2 k = 4, h c = 4: l^2 + 6 l - 3 = 0, growth 3 + 2 sqrt 3 (lesson: 6.464);
	 * implicit integrates a contact like Euler (MuJoCo differentiates no constraint force) */
	r = call("{\"function\": \"step_growth\", \"args\": {\"k\": 1e6, \"c\": 2000, \"h\": "
	         "0.002, \"integrator\": \"implicit\"}}",
	    &a);
	assert_rel(tsvc_real(r, "value"), 3 + 2 * sqrt(3), 1e-12, "implicit, tc h/2");
	json_decref(a);

	/* RK4 on the undamped spring, h omega = 1: the stability polynomial
	 * 1 + z + z^2/2 + z^3/6 + z^4/24 at z = i: |(1 - 1/2 + 1/24) + i (1 - 1/6)| */
	r = call("{\"function\": \"step_growth\", \"args\": {\"k\": 10000, \"c\": 0, \"h\": 0.01, "
	         "\"integrator\": \"RK4\"}}",
	    &a);
	z_re = 1 - 0.5 + 1.0 / 24;
	z_im = 1 - 1.0 / 6;
	assert_rel(tsvc_real(r, "value"), sqrt(z_re * z_re + z_im * z_im), 1e-12, "RK4");
	json_decref(a);
}
END_TEST

START_TEST(error_reduction_formula)
{
	static const double rows[][3] = {
	    {0.02, 1, 0.002}, {0.02, 0.05, 0.002}, {0.01, 2, 0.005}, {0.5, 0.3, 1e-4}};
	char body[256];
	json_t *a;
	const json_t *r;
	size_t i;

	/* phyz SolRef::error_reduction: dt / (2 tc dr^2 + dt); 1e-15 relative: 4 roundings */
	for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		double tc = rows[i][0], dr = rows[i][1], dt = rows[i][2];
		snprintf(body, sizeof body,
		    "{\"function\": \"error_reduction\", \"args\": {\"timeconst\": %.17g, "
		    "\"dampratio\": %.17g, \"dt\": %.17g}}",
		    tc, dr, dt);
		r = call(body, &a);
		assert_rel(tsvc_real(r, "value"), dt / (2 * tc * dr * dr + dt), 1e-15, body);
		json_decref(a);
	}
	/* 2 tc dr^2 + dt = 0: an infinite gain is reported as null, diverged */
	r = call("{\"function\": \"error_reduction\", \"args\": {\"timeconst\": -0.001, "
	         "\"dampratio\": 1, \"dt\": 0.002}}",
	    &a);
	ck_assert(json_is_null(json_object_get(r, "value")));
	ck_assert(json_is_true(json_object_get(r, "diverged")));
	json_decref(a);
}
END_TEST

START_TEST(batch_answers_in_order)
{
	static const char *const calls[] = {
	    "{\"function\": \"error_reduction\", \"args\": {\"timeconst\": 0.02, "
	    "\"dampratio\": 1, \"dt\": 0.002}}",
	    "{\"function\": \"impedance\", \"args\": {\"r\": 0.0007, \"solimp\": [0.9, 0.95, "
	    "0.001, 0.5, 2]}}",
	    "{\"function\": \"step_growth\", \"args\": {\"k\": 2000, \"c\": 90, \"h\": 0.002, "
	    "\"integrator\": \"RK4\"}}",
	    "{\"function\": \"solref_kb\", \"args\": {\"solref\": [0.05, -3], \"dmax\": 0.9, "
	    "\"h\": 0.002}}",
	};
	char body[2048];
	json_t *batch, *single;
	const json_t *results;
	size_t i, n = sizeof calls / sizeof calls[0];

	snprintf(body, sizeof body, "{\"calls\": [%s, %s, %s, %s]}", calls[0], calls[1], calls[2],
	    calls[3]);
	batch = tsvc_answer(SVC_EVAL, body, NULL);
	results = json_object_get(batch, "results");
	ck_assert_int_eq(json_array_size(results), n);
	for (i = 0; i < n; i++) {
		single = tsvc_answer(SVC_EVAL, calls[i], NULL);
		ck_assert_msg(json_equal(json_array_get(results, i), single),
		    "result %zu differs from its single call", i);
		json_decref(single);
	}
	json_decref(batch);

	/* an empty batch is an empty answer */
	batch = tsvc_answer(SVC_EVAL, "{\"calls\": []}", NULL);
	ck_assert_int_eq(json_array_size(json_object_get(batch, "results")), 0);
	json_decref(batch);
}
END_TEST

/* The lesson's Step 2 drop with its own functions: semi_implicit_euler integrating
 * contact_accel, x the sphere's bottom height (dist), v its speed */
static void euler_drop(double dampratio, double *peak, double *rebound)
{
	char body[512];
	json_t *a;
	const json_t *r, *x;
	size_t i;
	int touched = 0;

	snprintf(body, sizeof body,
	    "{\"function\": \"semi_implicit_euler\", \"args\": {\"x0\": 0.1, \"v0\": 0, \"h\": "
	    "0.002, \"steps\": 1000, \"accel\": {\"function\": \"contact_accel\", \"args\": "
	    "{\"a0\": -9.81, \"solref\": [0.02, %.17g], \"solimp\": [0.9, 0.95, 0.001, 0.5, "
	    "2]}}}}",
	    dampratio);
	r = call(body, &a);
	x = json_object_get(r, "x");
	ck_assert_int_eq(json_array_size(x), 1001);
	ck_assert_int_eq(json_array_size(json_object_get(r, "v")), 1001);
	ck_assert_double_eq(json_real_value(json_array_get(x, 0)), 0.1);
	/* the contract's drop metrics: heights after each step; the rebound is the
	 * highest after the first penetrating step */
	*peak = -INFINITY;
	*rebound = 0;
	for (i = 1; i < 1001; i++) {
		double z = json_real_value(json_array_get(x, i));
		*peak = fmax(*peak, -z);
		if (touched)
			*rebound = fmax(*rebound, z);
		touched |= z < 0;
	}
	json_decref(a);
}

START_TEST(step_2_drop_with_semi_implicit_euler)
{
	/* Build it, Step 2: peak penetration and rebound (mm), printed to 3 decimals */
	static const double rows[][3] = {
	    {1.0, 8.726, 0.000}, {0.3, 4.859, 14.519}, {0.1, 2.282, 57.912}};
	size_t i;

	for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		double peak, rebound;
		euler_drop(rows[i][0], &peak, &rebound);
		tsvc_assert_printed(peak * 1e3, rows[i][1], 3, "step 2 peak penetration");
		tsvc_assert_printed(rebound * 1e3, rows[i][2], 3, "step 2 rebound");
	}
}
END_TEST

START_TEST(semi_implicit_euler_spring_by_hand)
{
	json_t *a;
	const json_t *r;
	double h = 0.01, k = 400, c = 3, x = 0.2, v = -1, xs[4], vs[4];
	char body[512];
	int i;

	/* v1 = v0 + h (-c v0 - k x0), x1 = x0 + h v1: the recurrence written out here; each
	 * step is 4 roundings on numbers of order 1, so 1e-14 relative after 3 steps */
	xs[0] = x;
	vs[0] = v;
	for (i = 1; i < 4; i++) {
		v = v + h * (-c * v - k * x);
		x = x + h * v;
		xs[i] = x;
		vs[i] = v;
	}
	snprintf(body, sizeof body,
	    "{\"function\": \"semi_implicit_euler\", \"args\": {\"x0\": 0.2, \"v0\": -1, \"h\": "
	    "0.01, \"steps\": 3, \"accel\": {\"function\": \"spring\", \"args\": {\"k\": 400, "
	    "\"c\": 3}}}}");
	r = call(body, &a);
	for (i = 0; i < 4; i++) {
		assert_rel(json_real_value(json_array_get(json_object_get(r, "x"), (size_t)i)),
		    xs[i], 1e-14, "x");
		assert_rel(json_real_value(json_array_get(json_object_get(r, "v"), (size_t)i)),
		    vs[i], 1e-14, "v");
	}
	json_decref(a);

	/* steps 0: the start alone; a spring that overflows: null and diverged */
	r = call(
	    "{\"function\": \"semi_implicit_euler\", \"args\": {\"x0\": 1, \"v0\": 0, \"h\": 1, "
	    "\"steps\": 0, \"accel\": {\"function\": \"spring\", \"args\": {\"k\": 1, \"c\": 0}}}}",
	    &a);
	ck_assert_int_eq(json_array_size(json_object_get(r, "x")), 1);
	json_decref(a);
	r = call(
	    "{\"function\": \"semi_implicit_euler\", \"args\": {\"x0\": 1, \"v0\": 0, \"h\": 1, "
	    "\"steps\": 2000, \"accel\": {\"function\": \"spring\", \"args\": {\"k\": 1e6, "
	    "\"c\": 0}}}}",
	    &a);
	ck_assert(json_is_true(json_object_get(r, "diverged")));
	ck_assert(json_is_null(json_array_get(json_object_get(r, "x"), 2000)));
	json_decref(a);
}
END_TEST

START_TEST(solref_to_spring_is_the_lesson_formula)
{
	static const double rows[][4] = {{0.02, 1, 0.925, 0.95}, {0.001, 1, 0.9, 0.95},
	    {0.1, 0.3, 0.5, 0.99}, {0.05, 2, 0.95, 0.95}};
	char body[256];
	json_t *a, *kb;
	const json_t *r;
	size_t i;

	for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		double tc = rows[i][0], dr = rows[i][1], d = rows[i][2], dw = rows[i][3];
		snprintf(body, sizeof body,
		    "{\"function\": \"solref_to_spring\", \"args\": {\"timeconst\": %.17g, "
		    "\"dampratio\": %.17g, \"d\": %.17g, \"d_w\": %.17g}}",
		    tc, dr, d, dw);
		r = call(body, &a);
		/* the lesson's lines b = 2/(d_w tc), k = d/(d_w^2 tc^2 dr^2), evaluated here:
		 * a few roundings apart, 1e-15 relative */
		assert_rel(tsvc_real(r, "B"), 2 / (dw * tc), 1e-15, "B");
		assert_rel(
		    tsvc_real(r, "K_imp"), d / (dw * dw * tc * tc * dr * dr), 1e-15, "K_imp");
		/* and solref_kb's K, B with refsafe off: k = d K, b = B exactly (the same core
		 * function computes both) */
		snprintf(body, sizeof body,
		    "{\"function\": \"solref_kb\", \"args\": {\"solref\": [%.17g, %.17g], "
		    "\"dmax\": "
		    "%.17g, \"h\": 1, \"refsafe\": false}}",
		    tc, dr, dw);
		kb = tsvc_answer(SVC_EVAL, body, NULL);
		ck_assert_double_eq(
		    tsvc_real(r, "B"), tsvc_real(json_object_get(kb, "result"), "B"));
		ck_assert_double_eq(
		    tsvc_real(r, "K_imp"), d * tsvc_real(json_object_get(kb, "result"), "K"));
		json_decref(kb);
		json_decref(a);
	}
	/* Step 1's printed B at timeconst 0.02 and 0.1 (d_w 0.95) */
	r = call(
	    "{\"function\": \"solref_to_spring\", \"args\": {\"timeconst\": 0.1, \"dampratio\": "
	    "1, \"d\": 0.925, \"d_w\": 0.95}}",
	    &a);
	tsvc_assert_printed(tsvc_real(r, "B"), 21.05, 2, "step 1 B at 0.1");
	tsvc_assert_printed(tsvc_real(r, "K_imp") / 0.925, 110.8, 1, "step 1 K at 0.1");
	json_decref(a);
}
END_TEST

START_TEST(a_ref_step_2_and_mujoco_probe)
{
	json_t *a;
	const json_t *r;

	/* Build it, Step 2: a_ref at r = 0.5 mm, v = -0.3 m/s prints 32.860111 */
	r = call("{\"function\": \"a_ref\", \"args\": {\"dist\": -0.0005, \"vel\": -0.3, "
	         "\"solref\": [0.02, 1], \"solimp\": [0.9, 0.95, 0.001, 0.5, 2], \"h\": 0.002}}",
	    &a);
	tsvc_assert_printed(tsvc_real(r, "value"), 32.860111, 6, "step 2 a_ref");
	json_decref(a);
	/* spec §11: efc_aref 32.593905817174509 at dist -0.0004 (1e-12: the probe's dist
	 * was z - r in floating point) */
	r = call("{\"function\": \"a_ref\", \"args\": {\"dist\": -0.0004, \"vel\": -0.3, "
	         "\"solref\": [0.02, 1], \"solimp\": [0.9, 0.95, 0.001, 0.5, 2], \"h\": 0.002}}",
	    &a);
	assert_rel(tsvc_real(r, "value"), 32.593905817174509, 1e-12, "aref");
	json_decref(a);
	/* no row while dist >= 0: null, not divergence */
	r = call("{\"function\": \"a_ref\", \"args\": {\"dist\": 0, \"vel\": -0.3, \"solref\": "
	         "[0.02, 1], \"solimp\": [0.9, 0.95, 0.001, 0.5, 2], \"h\": 0.002}}",
	    &a);
	ck_assert(json_is_null(json_object_get(r, "value")));
	ck_assert_ptr_null(json_object_get(r, "diverged"));
	json_decref(a);
}
END_TEST

/* The entry of call i in a batch answer */
static const json_t *entry(const json_t *answer, size_t i)
{
	return json_array_get(json_object_get(answer, "results"), i);
}

START_TEST(batch_errors_per_call)
{
	static const char body[] =
	    "{\"calls\": ["
	    "{\"id\": \"ok\", \"function\": \"error_reduction\", \"args\": {\"timeconst\": 0.02, "
	    "\"dampratio\": 1, \"dt\": 0.002}},"
	    "{\"id\": 17, \"function\": \"impedance\", \"args\": {\"r\": 0.001, \"solimp\": [0.9, "
	    "0.95, \"wide\", 0.5, 2]}},"
	    "{\"function\": \"step_growth\", \"args\": {\"k\": 1, \"c\": 1, \"h\": -1}},"
	    "3,"
	    "{\"id\": 2.5, \"function\": \"no_such\", \"args\": {}},"
	    "{\"id\": {\"bad\": 1}, \"function\": \"impedance\", \"args\": {}},"
	    "{\"function\": \"solref_to_spring\", \"args\": {\"timeconst\": 0.02, \"dampratio\": "
	    "1, "
	    "\"d\": 0.9, \"d_w\": 0.95}}]}";
	static const struct {
		const char *code, *path;
		int status;
	} failures[] = {
	    {NULL, NULL, 0},
	    {"bad_type", "/calls/1/args/solimp/2", 400},
	    {"bad_value", "/calls/2/args/h", 422},
	    {"bad_type", "/calls/3", 400},
	    {"bad_value", "/calls/4/function", 422},
	    {"bad_type", "/calls/5/id", 400},
	    {NULL, NULL, 0},
	};
	static const char bad_alone[] =
	    "{\"id\": 17, \"function\": \"impedance\", \"args\": {\"r\": 0.001, \"solimp\": "
	    "[0.9, 0.95, \"wide\", 0.5, 2]}}";
	json_t *answer = tsvc_answer(SVC_EVAL, body, NULL), *single;
	const json_t *e;
	size_t i;

	ck_assert_int_eq(json_array_size(json_object_get(answer, "results")), 7);
	ck_assert_int_eq(json_integer_value(json_object_get(answer, "failed")), 5);
	for (i = 0; i < 7; i++) {
		e = entry(answer, i);
		if (!failures[i].code) {
			ck_assert_msg(json_is_object(json_object_get(e, "result")), "call %zu", i);
			ck_assert_ptr_null(json_object_get(e, "error"));
			continue;
		}
		ck_assert_str_eq(json_string_value(json_object_get(e, "error")), failures[i].code);
		ck_assert_str_eq(json_string_value(json_object_get(e, "path")), failures[i].path);
		ck_assert_int_eq(
		    json_integer_value(json_object_get(e, "status")), failures[i].status);
		ck_assert(json_is_string(json_object_get(e, "message")));
		ck_assert_ptr_null(json_object_get(e, "result"));
	}
	/* ids echoed as given, where they are ids */
	ck_assert_str_eq(json_string_value(json_object_get(entry(answer, 0), "id")), "ok");
	ck_assert_int_eq(json_integer_value(json_object_get(entry(answer, 1), "id")), 17);
	ck_assert_str_eq(
	    json_string_value(json_object_get(entry(answer, 1), "function")), "impedance");
	ck_assert_double_eq(json_real_value(json_object_get(entry(answer, 4), "id")), 2.5);
	ck_assert_ptr_null(json_object_get(entry(answer, 5), "id"));
	ck_assert_ptr_null(json_object_get(entry(answer, 2), "id"));
	/* a good call's entry is its single answer plus its id */
	single = tsvc_answer(SVC_EVAL,
	    "{\"function\": \"error_reduction\", \"id\": \"ok\", \"args\": {\"timeconst\": 0.02, "
	    "\"dampratio\": 1, \"dt\": 0.002}}",
	    NULL);
	ck_assert(json_equal(entry(answer, 0), single));
	json_decref(single);
	json_decref(answer);

	/* the failing call alone is a 4xx with the same error, its path without /calls/1 */
	tsvc_expect_error(
	    SVC_EVAL, bad_alone, strlen(bad_alone), NULL, ERR_BAD_TYPE, "/args/solimp/2");
}
END_TEST

START_TEST(batch_canonical_form)
{
	/* equal batches spelled differently have one canonical text, failing calls included
	 * (kept as written, so the answer stage meets the same error) */
	char *one = tsvc_canonical_text(SVC_EVAL,
	    "{\"calls\": [{\"args\": {\"dt\": 0.002, \"dampratio\": 1, \"timeconst\": 0.02}, "
	    "\"function\": \"error_reduction\", \"id\": 1}, {\"function\": \"x\"}]}");
	char *two = tsvc_canonical_text(SVC_EVAL,
	    "{\"calls\": [{\"function\": \"error_reduction\", \"id\": 1, \"args\": {\"timeconst\": "
	    "2e-2, \"dampratio\": 1.0, \"dt\": 0.002}}, {\"function\": \"x\"}]}");

	ck_assert_str_eq(one, two);
	free(one);
	free(two);
}
END_TEST

/* A release's top-level members: mujoco and core_version. */
static void assert_release(const json_t *answer, const char *mujoco)
{
	ck_assert_str_eq(json_string_value(json_object_get(answer, "mujoco")), mujoco);
	ck_assert_str_eq(json_string_value(json_object_get(answer, "core_version")), CORE_VERSION);
}

START_TEST(answers_carry_release_and_core_version)
{
	static const char call_default[] =
	    "{\"function\": \"error_reduction\", \"args\": {\"timeconst\": 0.02, \"dampratio\": 1, "
	    "\"dt\": 0.002}}";
	static const char call_222[] =
	    "{\"function\": \"error_reduction\", \"mujoco\": \"2.2.2\", \"args\": {\"timeconst\": "
	    "0.02, \"dampratio\": 1, \"dt\": 0.002}}";
	static const char call_338[] =
	    "{\"function\": \"error_reduction\", \"mujoco\": \"3.3.8\", \"args\": {\"timeconst\": "
	    "0.02, \"dampratio\": 1, \"dt\": 0.002}}";
	char body[1024];
	json_t *a, *single;

	/* a single call: the default release, or its own */
	a = tsvc_answer(SVC_EVAL, call_default, NULL);
	assert_release(a, DEFAULT_MUJOCO);
	json_decref(a);
	a = tsvc_answer(SVC_EVAL, call_222, NULL);
	assert_release(a, "2.2.2");
	json_decref(a);

	/* a batch: its own release at the top, and in every call that names none; a call
	 * that names one keeps it; each entry is the call's answer alone */
	snprintf(body, sizeof body, "{\"mujoco\": \"2.2.2\", \"calls\": [%s, %s, 7]}", call_default,
	    call_338);
	a = tsvc_answer(SVC_EVAL, body, NULL);
	assert_release(a, "2.2.2");
	assert_release(entry(a, 0), "2.2.2");
	assert_release(entry(a, 1), "3.3.8");
	ck_assert_ptr_null(json_object_get(entry(a, 2), "mujoco"));
	single = tsvc_answer(SVC_EVAL, call_222, NULL);
	ck_assert(json_equal(entry(a, 0), single));
	json_decref(single);
	single = tsvc_answer(SVC_EVAL, call_338, NULL);
	ck_assert(json_equal(entry(a, 1), single));
	json_decref(single);
	json_decref(a);
	/* without one, the default */
	a = tsvc_answer(SVC_EVAL, "{\"calls\": []}", NULL);
	assert_release(a, DEFAULT_MUJOCO);
	json_decref(a);
}
END_TEST

/* The C library's pow, called at run time: a compiler may turn pow(u, 2.0) into u*u,
 * which is not what MuJoCo's mju_pow (a call of pow) computes. */
static double (*volatile c_pow)(double, double) = pow;

/* MuJoCo's getimpedance (engine_core_constraint.c) for a signed violation r inside
 * the width (0 < |r|/width <= midpoint) and power > 1, as each release writes it:
 * 2.2.2 calls mju_pow everywhere; from 3.2.0 power(u, p) returns u*u for p = 2. */
static double release_power(double u, double p, int from_3_2)
{
	return from_3_2 && p == 2 ? u * u : c_pow(u, p);
}

static void mujoco_impedance(
    const double solimp[5], double r, int from_3_2, double *imp, double *impP)
{
	double x = r / solimp[2], sgn = 1, a, y, yP;

	if (x < 0) {
		x = -x;
		sgn = -1;
	}
	a = 1 / release_power(solimp[3], solimp[4] - 1, from_3_2);
	y = a * release_power(x, solimp[4], from_3_2);
	yP = solimp[4] * a * release_power(x, solimp[4] - 1, from_3_2);
	*imp = solimp[0] + y * (solimp[1] - solimp[0]);
	*impP = yP * sgn * (solimp[1] - solimp[0]) / solimp[2];
}

/*
 * solimp power 3: 2.2.2's 1/pow(mid, 2) and pow(x, 2) against 3.2.0's 1/(mid*mid) and
 * x*x. A midpoint and a violation are searched for where the two releases' values
 * differ, and so do their slopes, in the scale and in x^2 (3.2.0's slope with
 * pow(x, 2) would differ too), so each release's answer is told apart.
 */
START_TEST(release_selects_the_power_rule)
{
	double solimp[5] = {0.0001, 0.9999, 0.01, 0.3, 3}; /* d0 ~ 0: y's last bit shows */
	double old_imp = 0, old_slope = 0, new_imp = 0, new_slope = 0, r = 0, x, scale;
	static const char *const releases[] = {"2.2.2", "3.1.6", "3.2.0", "3.12.0"};
	char body[512];
	json_t *a;
	const json_t *result;
	int found = 0, i, k;

	for (i = 0; i < 100000 && !found; i++) {
		solimp[3] = 0.3 + i * 1e-7;
		for (k = 1; k < 50 && !found; k++) {
			r = -solimp[2] * solimp[3] * k / 50.0;
			mujoco_impedance(solimp, r, 0, &old_imp, &old_slope);
			mujoco_impedance(solimp, r, 1, &new_imp, &new_slope);
			x = -r / solimp[2];
			scale = 1 / (solimp[3] * solimp[3]);
			found = old_imp != new_imp && old_slope != new_slope &&
			    3 * scale * c_pow(x, 2) * -1 * (solimp[1] - solimp[0]) / solimp[2] !=
			        new_slope;
		}
	}
	ck_assert_msg(found, "no midpoint where the releases differ");
	for (i = 0; i < 4; i++) {
		int from_3_2 = i >= 2;
		double dmax = solimp[1], tc = 0.02, dr = 1, vel = -0.3;
		double K = 1 / (dmax * dmax * tc * tc * dr * dr), B = 2 / (dmax * tc);

		snprintf(body, sizeof body,
		    "{\"function\": \"impedance\", \"mujoco\": \"%s\", \"args\": {\"r\": %.17g, "
		    "\"solimp\": [0.0001, 0.9999, 0.01, %.17g, 3]}}",
		    releases[i], r, solimp[3]);
		result = call(body, &a);
		assert_release(a, releases[i]);
		ck_assert_double_eq(tsvc_real(result, "value"), from_3_2 ? new_imp : old_imp);
		ck_assert_double_eq(
		    tsvc_real(result, "derivative"), from_3_2 ? new_slope : old_slope);
		json_decref(a);
		/* a_ref follows: MuJoCo's efc_aref, -B vel - K imp r (refsafe leaves tc 0.02) */
		snprintf(body, sizeof body,
		    "{\"function\": \"a_ref\", \"mujoco\": \"%s\", \"args\": {\"dist\": %.17g, "
		    "\"vel\": %.17g, \"solref\": [0.02, 1], \"solimp\": [0.0001, 0.9999, 0.01, "
		    "%.17g, "
		    "3], \"h\": 0.002}}",
		    releases[i], r, vel, solimp[3]);
		result = call(body, &a);
		ck_assert_double_eq(
		    tsvc_real(result, "value"), -B * vel - K * (from_3_2 ? new_imp : old_imp) * r);
		json_decref(a);
	}
}
END_TEST

START_TEST(unknown_release_is_422_at_its_member)
{
	static const char single[] =
	    "{\"function\": \"error_reduction\", \"mujoco\": \"3.15.0\", \"args\": {\"timeconst\": "
	    "0.02, \"dampratio\": 1, \"dt\": 0.002}}";
	static const char batch[] =
	    "{\"calls\": [{\"function\": \"error_reduction\", \"args\": {\"timeconst\": 0.02, "
	    "\"dampratio\": 1, \"dt\": 0.002}}, {\"id\": 1, \"function\": \"error_reduction\", "
	    "\"mujoco\": \"2.2\", \"args\": {\"timeconst\": 0.02, \"dampratio\": 1, \"dt\": "
	    "0.002}}]}";
	static const char not_a_string[] =
	    "{\"function\": \"impedance\", \"mujoco\": 3.5, \"args\": {}}";
	static const char bad_envelope[] = "{\"mujoco\": \"1.0.0\", \"calls\": []}";
	char *message = tsvc_error_message(SVC_EVAL, single, ERR_BAD_VALUE, "/mujoco");
	json_t *a;
	const json_t *e;

	/* the message names the release and the supported ones, as /option/mujoco's does; a
	 * release later than the newest verified one says so */
	ck_assert_ptr_nonnull(strstr(message, "\"3.15.0\""));
	ck_assert_ptr_nonnull(strstr(message, "newer than 3.14.0, the newest release"));
	ck_assert_ptr_nonnull(strstr(message, "2.2.2"));
	ck_assert_ptr_nonnull(strstr(message, DEFAULT_MUJOCO));
	free(message);
	tsvc_expect_error(
	    SVC_EVAL, not_a_string, strlen(not_a_string), NULL, ERR_BAD_TYPE, "/mujoco");
	/* in a batch: that call's error, at its member; the others answer */
	a = tsvc_answer(SVC_EVAL, batch, NULL);
	ck_assert_int_eq(json_integer_value(json_object_get(a, "failed")), 1);
	ck_assert(json_is_object(json_object_get(entry(a, 0), "result")));
	e = entry(a, 1);
	ck_assert_str_eq(json_string_value(json_object_get(e, "error")), "bad_value");
	ck_assert_str_eq(json_string_value(json_object_get(e, "path")), "/calls/1/mujoco");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "status")), 422);
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(e, "message")), "2.2.2"));
	json_decref(a);
	/* the batch's own release is its envelope's: unknown, the whole batch is a 422 */
	tsvc_expect_error(
	    SVC_EVAL, bad_envelope, strlen(bad_envelope), NULL, ERR_BAD_VALUE, "/mujoco");
}
END_TEST

START_TEST(release_is_in_the_canonical_request)
{
	static const char fmt[] =
	    "{\"function\": \"impedance\", %s\"args\": {\"r\": 0.0005, \"solimp\": [0.9, 0.95, "
	    "0.001, 0.5, 2]}}";
	char old[256], newest[256], omitted[256], batch_old[320], batch_default[320], *text;

	snprintf(old, sizeof old, fmt, "\"mujoco\": \"2.2.2\", ");
	snprintf(newest, sizeof newest, fmt, "\"mujoco\": \"3.14.0\", ");
	snprintf(omitted, sizeof omitted, fmt, "");
	/* 2.2.2 and 3.14.0 are cached apart; the default is the same question as 3.14.0 */
	tsvc_assert_same_question(SVC_EVAL, old, newest, 0);
	tsvc_assert_same_question(SVC_EVAL, newest, omitted, 1);
	text = tsvc_canonical_text(SVC_EVAL, old);
	ck_assert_ptr_nonnull(strstr(text, "\"mujoco\":\"2.2.2\""));
	free(text);
	/* a batch: its release and each call's */
	tsvc_assert_same_question(
	    SVC_EVAL, "{\"mujoco\": \"2.2.2\", \"calls\": []}", "{\"calls\": []}", 0);
	snprintf(batch_old, sizeof batch_old, "{\"calls\": [%s]}", old);
	snprintf(batch_default, sizeof batch_default, "{\"calls\": [%s]}", omitted);
	tsvc_assert_same_question(SVC_EVAL, batch_old, batch_default, 0);
}
END_TEST

START_TEST(batch_step_limit)
{
	/* the steps of all semi_implicit_euler calls are bounded (LIMIT_MAX_EVAL_BATCH_STEPS):
	 * 11 calls of 20000 steps are 220000, over the 200000 of service/knobs.h */
	char call[256], body[4096];
	size_t n = 0;
	int i;

	snprintf(call, sizeof call,
	    "{\"function\": \"semi_implicit_euler\", \"args\": {\"x0\": 0, \"v0\": 0, \"h\": "
	    "0.001, "
	    "\"steps\": 20000, \"accel\": {\"function\": \"spring\", \"args\": {\"k\": 1, \"c\": "
	    "0}}}}");
	n += (size_t)snprintf(body + n, sizeof body - n, "{\"calls\": [");
	for (i = 0; i < 11; i++)
		n += (size_t)snprintf(body + n, sizeof body - n, "%s%s", i ? ", " : "", call);
	snprintf(body + n, sizeof body - n, "]}");
	tsvc_expect_error(SVC_EVAL, body, strlen(body), NULL, ERR_TOO_LARGE, "/calls");
}
END_TEST

/* An unknown function's error names every function, whole (issue #17: the list was cut
 * mid-word at 128 bytes, and error_reduction, the last, was missing). */
START_TEST(unknown_function_lists_every_function)
{
	static const char *const all[] = {"impedance", "solref_kb", "solref_to_spring", "a_ref",
	    "contact_accel", "resting_penetration", "semi_implicit_euler", "step_growth",
	    "error_reduction"};
	char *message = tsvc_error_message(
	    SVC_EVAL, "{\"function\": \"bogus\", \"args\": {}}", ERR_BAD_VALUE, "/function");
	char quoted[64];
	size_t i;

	for (i = 0; i < sizeof all / sizeof all[0]; i++) {
		snprintf(quoted, sizeof quoted, "\"%s\"", all[i]);
		ck_assert_msg(strstr(message, quoted), "%s is not in: %s", quoted, message);
	}
	/* and ends on the last one's closing quote, nothing cut */
	ck_assert_msg(strlen(message) > 20 &&
	        strcmp(message + strlen(message) - 17, "\"error_reduction\"") == 0,
	    "the list does not end whole: %s", message);
	free(message);
}
END_TEST

/* One spelling per quantity: solref_to_spring's damping is B, as in rest, stability and
 * solref_kb, and its stiffness K_imp (K times the impedance); no lower-case k or b. */
START_TEST(solref_to_spring_names_as_every_answer)
{
	json_t *a = tsvc_answer(SVC_EVAL,
	    "{\"function\": \"solref_to_spring\", \"args\": {\"timeconst\": 0.02, \"dampratio\": "
	    "1, \"d\": 0.95, \"d_w\": 0.95}}",
	    NULL);
	const json_t *r = json_object_get(a, "result");

	ck_assert_ptr_null(json_object_get(r, "b"));
	ck_assert_ptr_null(json_object_get(r, "k"));
	/* at d = d_w = 0.95: B = 2/(0.95*0.02), K_imp = 0.95/(0.95^2 * 0.02^2) */
	assert_rel(tsvc_real(r, "B"), 2 / (0.95 * 0.02), 1e-15, "B");
	assert_rel(tsvc_real(r, "K_imp"), 0.95 / (0.95 * 0.95 * 0.02 * 0.02), 1e-15, "K_imp");
	json_decref(a);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("eval");
	TCase *tc = tcase_create("functions");
	SRunner *runner;
	int failed;

	/* a failed call's status, as both front ends set it (Check forks after this) */
	tcase_add_test(tc, impedance_matches_mujoco);
	tcase_add_test(tc, solref_kb_matches_mujoco);
	tcase_add_test(tc, step_1_table);
	tcase_add_test(tc, contact_accel_matches_mujoco);
	tcase_add_test(tc, step_3_table);
	tcase_add_test(tc, resting_penetration_closed_form_and_none);
	tcase_add_test(tc, step_growth_closed_forms);
	tcase_add_test(tc, error_reduction_formula);
	tcase_add_test(tc, batch_answers_in_order);
	tcase_add_test(tc, step_2_drop_with_semi_implicit_euler);
	tcase_add_test(tc, semi_implicit_euler_spring_by_hand);
	tcase_add_test(tc, solref_to_spring_is_the_lesson_formula);
	tcase_add_test(tc, a_ref_step_2_and_mujoco_probe);
	tcase_add_test(tc, batch_errors_per_call);
	tcase_add_test(tc, batch_canonical_form);
	tcase_add_test(tc, batch_step_limit);
	tcase_add_test(tc, answers_carry_release_and_core_version);
	tcase_add_test(tc, release_selects_the_power_rule);
	tcase_add_test(tc, unknown_release_is_422_at_its_member);
	tcase_add_test(tc, release_is_in_the_canonical_request);
	tcase_add_test(tc, unknown_function_lists_every_function);
	tcase_add_test(tc, solref_to_spring_names_as_every_answer);
	suite_add_tcase(s, tc);
	runner = srunner_create(s);
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? 0 : 1;
}
