/*
 * test_hold_find.c: POST /v1/find over the hold question: the smallest impratio or
 * grip force for which the creep falls below a target.
 *
 * impratio: the elliptic creep of docs/hold.md, v = m g R1 / (2 B) with R1 = R0 /
 * impratio, is exactly v(1) / impratio while the pads' penetration is past solimp's
 * width (imp = dmax, the scene at 10 N). Under 3.12.0's rules v(1) is derived
 * here in closed form, v(1) = m g (1 - dmax) (1/m + 1/m_pad) tc / 4 (R0 = (1 - dmax) /
 * dmax * tran, tran = 1/m + 1/m_pad, B = 2 / (dmax tc)), so impratio* = v(1) / target;
 * under 2.2.2's the same 1/impratio scaling from the single answer at impratio 1; under
 * discrete (3.14.0) the closed form times (1 + h B) / s.
 * Tolerance: 1e-7 relative (find's tolerance is 1e-10 of impratio; the closed form's
 * arithmetic differs from the core's in the last few bits).
 *
 * grip force (pyramidal and elliptic, both releases): the creep is monotone in F
 * below saturation; a dense sweep of 201 forces must put the found force between the
 * two neighbouring forces whose creeps straddle the target.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonptr.h"
#include "base/jtext.h"
#include "service/service.h"
#include "svc_test.h"

static json_t *find(const char *body)
{
	json_t *answer = tsvc_answer(SVC_FIND, body, NULL);

	ck_assert_msg(
	    json_is_true(json_object_get(answer, "converged")), "not converged: %s", body);
	return answer;
}

START_TEST(impratio_for_a_creep_below_target_3_12)
{
	const double m = 0.1, g = 9.81, m_pad = 0.05, dmax = 0.95, tc = 0.01;
	const double v1 = m * g * (1 - dmax) * (1 / m + 1 / m_pad) * tc / 4;
	const double targets[] = {1e-3, 5e-4, 1e-4};
	char body[512];
	size_t i;

	for (i = 0; i < 3; i++) {
		json_t *answer;
		double found, want = v1 / targets[i];

		snprintf(body, sizeof body,
		    "{\"query\": \"hold\", \"base\": {\"option\": {\"cone\": \"elliptic\", "
		    "\"mujoco\": \"3.12.0\"}, \"duration\": 0.2}, \"path\": \"impratio\", "
		    "\"field\": \"creep_velocity\", \"target\": %.17g, \"bracket\": [1, 100], "
		    "\"tolerance\": 1e-10}",
		    targets[i]);
		answer = find(body);
		ck_assert_str_eq(
		    json_string_value(json_object_get(answer, "path")), "/option/impratio");
		found = tsvc_real(answer, "value");
		ck_assert_msg(fabs(found - want) <= 1e-7 * want,
		    "target %g: impratio %.12g, closed form %.12g", targets[i], found, want);
		json_decref(answer);
	}
}
END_TEST

/* The same under the discrete integrator (3.14.0): the friction row's aref is
 * -B v / (1 + h B) and R0 is the Euler one over s = 1 + h B + h^2 K dmax (no refsafe
 * replacement: h^2 K dmax = 0.042 here, nor the R floor), so v(1) is the Euler v(1)
 * times (1 + h B) / s and still falls as 1 / impratio. */
START_TEST(impratio_for_a_creep_below_target_discrete)
{
	const double m = 0.1, g = 9.81, m_pad = 0.05, dmax = 0.95, tc = 0.01, h = 0.002;
	const double K = 1 / (dmax * dmax * tc * tc), B = 2 / (dmax * tc);
	const double s = 1 + h * B + h * h * K * dmax;
	const double v1 = m * g * (1 - dmax) * (1 / m + 1 / m_pad) * tc / 4 * (1 + h * B) / s;
	const double targets[] = {1e-3, 5e-4, 1e-4};
	char body[512];
	size_t i;

	for (i = 0; i < 3; i++) {
		json_t *answer;
		double found, want = v1 / targets[i];

		snprintf(body, sizeof body,
		    "{\"query\": \"hold\", \"base\": {\"option\": {\"cone\": \"elliptic\", "
		    "\"integrator\": \"discrete\", \"mujoco\": \"3.14.0\"}, \"duration\": 0.2}, "
		    "\"path\": \"impratio\", \"field\": \"creep_velocity\", \"target\": %.17g, "
		    "\"bracket\": [1, 100], \"tolerance\": 1e-10}",
		    targets[i]);
		answer = find(body);
		found = tsvc_real(answer, "value");
		ck_assert_msg(fabs(found - want) <= 1e-7 * want,
		    "target %g: impratio %.12g, closed form %.12g", targets[i], found, want);
		json_decref(answer);
	}
}
END_TEST

START_TEST(impratio_for_a_creep_below_target_2_2_2)
{
	static const char base[] = "{\"option\": {\"cone\": \"elliptic\", \"mujoco\": \"2.2.2\"}, "
	                           "\"duration\": 0.2}";
	char body[512];
	json_t *single = tsvc_answer(SVC_HOLD, base, NULL), *answer;
	double v1 = tsvc_real(single, "creep_velocity"), target = 2e-4, found;

	snprintf(body, sizeof body,
	    "{\"query\": \"hold\", \"base\": %s, \"path\": \"/option/impratio\", \"field\": "
	    "\"creep_velocity\", \"target\": %.17g, \"bracket\": [1, 50], \"tolerance\": 1e-10}",
	    base, target);
	answer = find(body);
	found = tsvc_real(answer, "value");
	ck_assert_msg(fabs(found - v1 / target) <= 1e-7 * (v1 / target),
	    "impratio %.12g, want %.12g", found, v1 / target);
	json_decref(answer);
	json_decref(single);
}
END_TEST

/* The found grip force against a dense sweep of the same base. */
static void grip_force_against_sweep(const char *cone, const char *release, double target)
{
	enum { N = 201 };
	const double lo = 1, hi = 9;
	char base[256], body[8192], *p;
	json_t *sweep, *rows, *answer;
	double found, creep[N], force[N];
	size_t i, at, creep_col = 1;
	int n;

	snprintf(base, sizeof base,
	    "{\"option\": {\"cone\": \"%s\", \"mujoco\": \"%s\"}, \"duration\": 0.05}", cone,
	    release);
	n = snprintf(body, sizeof body,
	    "{\"query\": \"hold\", \"base\": %s, \"vary\": [{\"path\": \"grip_force\", "
	    "\"values\": [",
	    base);
	p = body + n;
	for (i = 0; i < N; i++)
		p += sprintf(p, "%s%.17g", i ? ", " : "", lo + (hi - lo) * (double)i / (N - 1));
	strcpy(p, "]}]}");
	sweep = tsvc_answer(SVC_SWEEP, body, NULL);
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(sweep, "columns"), 1)),
	    "creep_velocity");
	rows = json_object_get(sweep, "rows");
	for (i = 0; i < N; i++) {
		force[i] = json_real_value(json_array_get(json_array_get(rows, i), 0));
		creep[i] = json_real_value(json_array_get(json_array_get(rows, i), creep_col));
		ck_assert_msg(creep[i] > 0, "%s %s: no creep at %g N", cone, release, force[i]);
		if (i > 0)
			ck_assert_msg(creep[i] <= creep[i - 1], "%s %s: creep rises at %g N", cone,
			    release, force[i]);
	}
	ck_assert_msg(creep[0] > target && creep[N - 1] < target, "%s %s: %g..%g", cone, release,
	    creep[0], creep[N - 1]);
	for (at = 1; creep[at] > target; at++)
		;
	snprintf(body, sizeof body,
	    "{\"query\": \"hold\", \"base\": %s, \"path\": \"grip_force\", \"field\": "
	    "\"creep_velocity\", \"target\": %.17g, \"bracket\": [%g, %g], \"tolerance\": 1e-9}",
	    base, target, lo, hi);
	answer = find(body);
	found = tsvc_real(answer, "value");
	ck_assert_msg(found >= force[at - 1] && found <= force[at],
	    "%s %s: found %.12g N, the sweep crosses %g mm/s between %.12g and %.12g N", cone,
	    release, found, 1e3 * target, force[at - 1], force[at]);
	ck_assert(fabs(tsvc_real(answer, "field_value") - target) <= 1e-6 * target);
	json_decref(answer);
	json_decref(sweep);
}

START_TEST(grip_force_for_a_creep_below_target)
{
	/* targets inside each curve's 1..9 N range (docs/hold.md's table) */
	grip_force_against_sweep("pyramidal", "3.12.0", 1e-2);
	grip_force_against_sweep("pyramidal", "2.2.2", 7e-3);
	grip_force_against_sweep("elliptic", "3.12.0", 5e-3);
	grip_force_against_sweep("elliptic", "2.2.2", 3e-3);
}
END_TEST

/* A bracket that reaches crushing forces has a null creep there: 422 at /bracket (the
 * scan meets the null inside the bracket, before its end), naming the force. */
START_TEST(crushing_bracket_is_refused)
{
	struct svc_limits lim = tsvc_limits(1);
	static const char body[] =
	    "{\"query\": \"hold\", \"base\": {\"duration\": 0.05}, \"path\": \"grip_force\", "
	    "\"field\": \"creep_velocity\", \"target\": 0.001, \"bracket\": [1, 100000]}";
	json_t *canonical = NULL, *answer = NULL;
	struct err err;

	err_clear(&err);
	ck_assert_int_eq(svc_canonical(SVC_FIND, body, strlen(body), &lim, &canonical, &err), 0);
	ck_assert_int_eq(svc_answer(SVC_FIND, canonical, &lim, &answer, &err), -1);
	ck_assert_int_eq(err.code, ERR_BAD_VALUE);
	ck_assert_str_eq(err.path, "/bracket");
	ck_assert_msg(
	    strstr(err.message, "creep_velocity is null with /grip_force = "), "%s", err.message);
	json_decref(canonical);
}
END_TEST

/* base (a hold request's JSON text) with the number x at the JSON Pointer ptr, as a new
 * text the caller frees. */
static char *with_value(const char *base, const char *ptr, double x)
{
	json_t *v = json_loads(base, 0, NULL), *num = json_real(x);
	struct err err;
	char *text;

	err_clear(&err);
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(jptr_set(v, ptr, num, "", &err), 0);
	text = jtext_line(v);
	json_decref(num);
	json_decref(v);
	return text;
}

/*
 * find's smallest value that holds, checked against /v1/hold itself: the hold answer at
 * the bracket's low end does not hold, at its high end it does, the two within the
 * tolerance asked, and the answer find gives at its value is /v1/hold's there, byte for
 * byte. No number is the test's own: what holds is the core's (and MuJoCo's) answer.
 */
static void smallest_that_holds(
    const char *base, const char *path, const char *ptr, double lo, double hi, double tolerance)
{
	char body[2048], *at_lo, *at_hi, *at_value, *find_text, *single_text;
	json_t *answer, *a;
	const json_t *bracket;

	snprintf(body, sizeof body,
	    "{\"query\": \"hold\", \"base\": %s, \"path\": \"%s\", \"field\": \"holds\", "
	    "\"bracket\": [%.17g, %.17g], \"tolerance\": %.17g}",
	    base, path, lo, hi, tolerance);
	answer = find(body);
	ck_assert_str_eq(json_string_value(json_object_get(answer, "path")), ptr);
	bracket = json_object_get(answer, "bracket");
	ck_assert_msg(json_real_value(json_array_get(bracket, 1)) -
	            json_real_value(json_array_get(bracket, 0)) <=
	        tolerance,
	    "%s: bracket wider than %g", path, tolerance);
	at_lo = with_value(base, ptr, json_real_value(json_array_get(bracket, 0)));
	at_hi = with_value(base, ptr, json_real_value(json_array_get(bracket, 1)));
	a = tsvc_answer(SVC_HOLD, at_lo, NULL);
	ck_assert_msg(json_is_false(json_object_get(a, "holds")), "%s: holds at %s", path, at_lo);
	json_decref(a);
	a = tsvc_answer(SVC_HOLD, at_hi, NULL);
	ck_assert_msg(json_is_true(json_object_get(a, "holds")), "%s: slips at %s", path, at_hi);
	json_decref(a);
	/* find's answer at its value is the hold answer there */
	at_value = with_value(base, ptr, tsvc_real(answer, "value"));
	a = tsvc_answer(SVC_HOLD, at_value, NULL);
	find_text = jtext_line(json_object_get(answer, "answer"));
	single_text = jtext_line(a);
	ck_assert_str_eq(find_text, single_text);
	fprintf(stderr, "%s: holds from %.9g\n", path, tsvc_real(answer, "value"));
	free(find_text);
	free(single_text);
	json_decref(a);
	free(at_lo);
	free(at_hi);
	free(at_value);
	json_decref(answer);
}

/* The smallest squeeze whose servo holds MuJoCo #3328's capsule (issue 48: r 4 mm, half
 * length 20 mm, 45 g, pads 0.2 kg on joints of damping 100 driven by kp 20000; a 5 mm
 * slip limit over 0.5 s), and the smallest grip force that holds the default sphere. */
START_TEST(smallest_squeeze_that_holds)
{
	static const char capsule[] =
	    "{\"object\": {\"shape\": \"capsule\", \"size\": [0.004, 0.02], \"mass\": 0.045, "
	    "\"friction\": [0.7, 0.005, 0.0001]}, \"pad\": {\"size\": [0.008, 0.03, 0.02], "
	    "\"mass\": 0.2, \"friction\": [0.7, 0.005, 0.0001], \"condim\": 3, \"solref\": "
	    "[0.02, 1], \"priority\": 0, \"joint\": {\"damping\": 100}, \"actuator\": {\"type\": "
	    "\"position\", \"kp\": 20000, \"squeeze\": 0.002}}, \"duration\": 0.5, "
	    "\"slip_limit\": 0.005}";

	/* kp squeeze against the load: 2 mu kp s = m g at s = 16 um; 4 mm holds by far */
	smallest_that_holds(
	    capsule, "/pad/actuator/squeeze", "/pad/actuator/squeeze", 1e-6, 0.004, 1e-8);
	smallest_that_holds("{\"duration\": 0.5, \"slip_limit\": 0.005}", "grip_force",
	    "/grip_force", 0.05, 20, 1e-6);
}
END_TEST

static Suite *hold_find_suite(void)
{
	Suite *s = suite_create("hold_find");
	TCase *tc = tcase_create("find");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, impratio_for_a_creep_below_target_3_12);
	tcase_add_test(tc, impratio_for_a_creep_below_target_2_2_2);
	tcase_add_test(tc, impratio_for_a_creep_below_target_discrete);
	tcase_add_test(tc, grip_force_for_a_creep_below_target);
	tcase_add_test(tc, crushing_bracket_is_refused);
	tcase_add_test(tc, smallest_squeeze_that_holds);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(hold_find_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
