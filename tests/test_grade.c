/*
 * test_grade.c: POST /v1/grade (service/grade.h): a student's value against eval's.
 *
 * The expected values are eval's own (tests/test_eval_mujoco.c holds them to
 * libmujoco); what is tested here is the grading: a value k doubles away from eval's
 * is k ulps off (nextafter), passes exactly when it is within the documented
 * tolerance, and the served table is docs/grading.md's.
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

#define IMPEDANCE_ARGS "\"args\": {\"r\": 0.0005, \"solimp\": [0.9, 0.95, 0.001, 0.5, 2]}"
#define EULER_ARGS                                                                                 \
	"\"args\": {\"x0\": 0.1, \"v0\": 0, \"h\": 0.01, \"steps\": 3, \"accel\": {\"function\": " \
	"\"spring\", \"args\": {\"k\": 100, \"c\": 1}}}"

/* eval's answer of one call: its result object */
static json_t *eval_result(const char *call)
{
	json_t *a = tsvc_answer(SVC_EVAL, call, NULL),
	       *r = json_incref(json_object_get(a, "result"));

	json_decref(a);
	return r;
}

/* x moved k doubles up */
static double ulps_up(double x, int k)
{
	while (k-- > 0)
		x = nextafter(x, INFINITY);
	return x;
}

START_TEST(value_k_ulps_away)
{
	json_t *r = eval_result("{\"function\": \"impedance\", " IMPEDANCE_ARGS "}");
	double e = tsvc_real(r, "value");
	char body[512];
	int k;

	/* 1e-12 relative of e ~ 0.925 is about 4500 ulps (ulp 1.1e-16): 3 pass, 1e6 fail */
	for (k = 0; k <= 3; k++) {
		json_t *g;

		snprintf(body, sizeof body,
		    "{\"function\": \"impedance\", " IMPEDANCE_ARGS
		    ", \"value\": %.17g, \"id\": %d}",
		    ulps_up(e, k), k);
		g = tsvc_answer(SVC_GRADE, body, NULL);
		ck_assert(json_is_true(json_object_get(g, "pass")));
		ck_assert_int_eq(json_integer_value(json_object_get(g, "ulps")), k);
		ck_assert_int_eq(json_integer_value(json_object_get(g, "id")), k);
		ck_assert(tsvc_real(g, "expected") == e);
		ck_assert(tsvc_real(g, "absolute_error") == ulps_up(e, k) - e);
		ck_assert(tsvc_real(g, "relative_error") == (ulps_up(e, k) - e) / e);
		ck_assert(tsvc_real(json_object_get(g, "tolerance"), "relative") == 1e-12);
		json_decref(g);
	}
	snprintf(body, sizeof body,
	    "{\"function\": \"impedance\", " IMPEDANCE_ARGS ", \"value\": %.17g}", e * (1 + 2e-12));
	{
		json_t *g = tsvc_answer(SVC_GRADE, body, NULL);

		ck_assert(json_is_false(json_object_get(g, "pass")));
		ck_assert_str_eq(json_string_value(json_object_get(g, "reason")),
		    "value is outside the tolerance");
		json_decref(g);
	}
	json_decref(r);
}
END_TEST

START_TEST(series_scaled_by_its_largest_value)
{
	/* semi_implicit_euler: each x passes within 1e-9 of the series' largest |x| (0.1 m,
	 * the start height here), however small the element itself */
	json_t *r = eval_result("{\"function\": \"semi_implicit_euler\", " EULER_ARGS "}");
	const json_t *x = json_object_get(r, "x");
	double x3 = json_real_value(json_array_get(x, 3)), top = 0.1;
	char body[1024];
	const double off[] = {0.9e-9 * top, 1.1e-9 * top};
	int i;

	ck_assert(json_real_value(json_array_get(x, 0)) == top);
	for (i = 0; i < 2; i++) {
		json_t *g;

		snprintf(body, sizeof body,
		    "{\"function\": \"semi_implicit_euler\", " EULER_ARGS
		    ", \"value\": {\"x\": [%.17g, %.17g, %.17g, %.17g]}}",
		    json_real_value(json_array_get(x, 0)), json_real_value(json_array_get(x, 1)),
		    json_real_value(json_array_get(x, 2)), x3 + off[i]);
		g = tsvc_answer(SVC_GRADE, body, NULL);
		ck_assert(json_is_true(json_object_get(g, "pass")) == (i == 0));
		ck_assert_str_eq(
		    json_string_value(json_object_get(json_object_get(g, "tolerance"), "scale")),
		    "series_max");
		if (i == 1)
			ck_assert_str_eq(json_string_value(json_object_get(g, "reason")),
			    "x[3] is outside the tolerance");
		json_decref(g);
	}
	/* a series of the wrong length fails, saying so */
	{
		json_t *g = tsvc_answer(SVC_GRADE,
		    "{\"function\": \"semi_implicit_euler\", " EULER_ARGS
		    ", \"value\": [0.1, 0.099]}",
		    NULL);
		ck_assert(json_is_false(json_object_get(g, "pass")));
		ck_assert_str_eq(json_string_value(json_object_get(g, "reason")),
		    "x has 2 values where 4 are expected");
		ck_assert(json_is_null(json_object_get(g, "ulps")));
		json_decref(g);
	}
	json_decref(r);
}
END_TEST

START_TEST(nulls_and_shapes)
{
	json_t *g;
	char *m;

	/* no equilibrium (a pull away from the plane): null passes, a number does not */
	g = tsvc_answer(SVC_GRADE,
	    "{\"function\": \"resting_penetration\", \"args\": {\"a_u\": -1, \"solref\": [0.02, "
	    "1], "
	    "\"solimp\": [0.9, 0.95, 0.001, 0.5, 2], \"h\": 0.002}, \"value\": null}",
	    NULL);
	ck_assert(json_is_true(json_object_get(g, "pass")));
	ck_assert(json_is_null(json_object_get(g, "relative_error")));
	json_decref(g);
	g = tsvc_answer(SVC_GRADE,
	    "{\"function\": \"resting_penetration\", \"args\": {\"a_u\": -1, \"solref\": [0.02, "
	    "1], "
	    "\"solimp\": [0.9, 0.95, 0.001, 0.5, 2], \"h\": 0.002}, \"value\": 1e-60}",
	    NULL);
	ck_assert(json_is_false(json_object_get(g, "pass")));
	json_decref(g);
	/* shapes: a number where the function has no value, an unknown output, no value */
	free(tsvc_error_message(SVC_GRADE,
	    "{\"function\": \"solref_kb\", \"args\": {\"solref\": [0.02, 1], \"dmax\": 0.95, "
	    "\"h\": 0.002}, \"value\": 1}",
	    ERR_BAD_TYPE, "/value"));
	m = tsvc_error_message(SVC_GRADE,
	    "{\"calls\": [{\"function\": \"solref_kb\", \"args\": {\"solref\": [0.02, 1], "
	    "\"dmax\": "
	    "0.95, \"h\": 0.002}, \"value\": {\"k\": 1}}]}",
	    ERR_BAD_VALUE, "/calls/0/value/k");
	ck_assert_msg(strstr(m, "K, B, timeconst_used"), "%s", m);
	free(m);
	free(tsvc_error_message(SVC_GRADE, "{\"function\": \"impedance\", " IMPEDANCE_ARGS "}",
	    ERR_MISSING_FIELD, "/value"));
	/* eval's own refusal of a single call, at its path */
	free(tsvc_error_message(SVC_GRADE,
	    "{\"function\": \"impedance\", \"args\": {\"r\": 0.0005}, \"value\": 1}",
	    ERR_MISSING_FIELD, "/args/solimp"));
}
END_TEST

START_TEST(batch_counts_and_split_advice)
{
	struct svc_limits lim = tsvc_limits(1);
	json_t *g = tsvc_answer(SVC_GRADE,
	    "{\"calls\": [{\"function\": \"impedance\", " IMPEDANCE_ARGS ", \"value\": 0.5}, "
	    "{\"function\": \"nope\", \"value\": 1}, {\"function\": \"error_reduction\", "
	    "\"args\": {\"timeconst\": 0.02, \"dampratio\": 1, \"dt\": 0.002}, \"value\": "
	    "0.047619047619047616}]}",
	    NULL);
	ck_assert_int_eq(json_integer_value(json_object_get(g, "passed")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(g, "graded")), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(g, "failed")), 1);
	ck_assert_str_eq(json_string_value(json_object_get(
	                     json_array_get(json_object_get(g, "results"), 1), "path")),
	    "/calls/1/function");
	json_decref(g);
	/* over the call limit: the 413 says how to split */
	lim.max_eval_calls = 2;
	{
		const char *body = "{\"calls\": [{}, {}, {}]}";
		json_t *canonical = NULL;
		struct err err;

		err_clear(&err);
		ck_assert_int_eq(
		    svc_canonical(SVC_GRADE, body, strlen(body), &lim, &canonical, &err), -1);
		ck_assert_int_eq(err.code, ERR_TOO_LARGE);
		ck_assert_str_eq(err.path, "/calls");
		ck_assert_msg(
		    strstr(err.message, "split them into batches of at most 2"), "%s", err.message);
	}
}
END_TEST

/* The served table is docs/grading.md's: each function's row gives its relative
 * tolerance as the code does ("| `impedance` | 1e-12 |") */
START_TEST(tolerances_are_the_documented_ones)
{
	const char *srcdir = getenv("srcdir") ? getenv("srcdir") : ".";
	json_t *t = tsvc_answer(SVC_GRADE, "{\"tolerances\": true}", NULL);
	const json_t *all = json_object_get(t, "tolerances");
	char path[1024], row[256], *text;
	const char *name;
	json_t *tol;
	long size;
	FILE *f;

	snprintf(path, sizeof path, "%s/docs/grading.md", srcdir);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)size + 1);
	ck_assert_uint_eq(fread(text, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	ck_assert_uint_eq(json_object_size(all), 9);
	json_object_foreach ((json_t *)all, name, tol) {
		char num[32], *zero;

		/* as the table writes it: 1e-9, not printf's 1e-09 */
		snprintf(num, sizeof num, "%g", tsvc_real(tol, "relative"));
		if ((zero = strstr(num, "e-0")))
			memmove(zero + 2, zero + 3, strlen(zero + 3) + 1);
		snprintf(row, sizeof row, "\n| `%s` | %s |", name, num);
		ck_assert_msg(strstr(text, row), "docs/grading.md has no row%s", row);
	}
	free(text);
	json_decref(t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("grade");
	TCase *tc = tcase_create("grade");
	SRunner *runner;
	int failed;

	tcase_add_test(tc, value_k_ulps_away);
	tcase_add_test(tc, series_scaled_by_its_largest_value);
	tcase_add_test(tc, nulls_and_shapes);
	tcase_add_test(tc, batch_counts_and_split_advice);
	tcase_add_test(tc, tolerances_are_the_documented_ones);
	suite_add_tcase(s, tc);
	runner = srunner_create(s);
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? 0 : 1;
}
