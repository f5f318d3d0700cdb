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
#include "testlib.h"

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
	const char *m;

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
	/* shapes: a number where the function has no value, an unknown output (wrong shapes
	 * fail the grade: wrong_shapes_fail_their_call_alone); no value is refused */
	g = tsvc_answer(SVC_GRADE,
	    "{\"calls\": [{\"function\": \"solref_kb\", \"args\": {\"solref\": [0.02, 1], "
	    "\"dmax\": "
	    "0.95, \"h\": 0.002}, \"value\": {\"k\": 1}}]}",
	    NULL);
	m = json_string_value(
	    json_object_get(json_array_get(json_object_get(g, "results"), 0), "reason"));
	ck_assert_msg(m && strstr(m, "K, B, timeconst_used"), "%s", m ? m : "no reason");
	json_decref(g);
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

/* ---- issue 50: a student's value is judged call by call, every failure named ---- */

#define KB_ARGS(tc) "\"args\": {\"solref\": [" tc ", 1], \"dmax\": 0.95, \"h\": 0.002}"
#define ER_CALL                                                                                    \
	"{\"function\": \"error_reduction\", \"args\": {\"timeconst\": 0.02, \"dampratio\": 1, "   \
	"\"dt\": 0.002}, \"value\": 0.047619047619047616}"

/* entry i of a batch's results */
static const json_t *result_at(const json_t *g, size_t i)
{
	return json_array_get(json_object_get(g, "results"), i);
}

static const char *reason_of(const json_t *entry)
{
	const char *r = json_string_value(json_object_get(entry, "reason"));

	return r ? r : "";
}

/* The failure of entry naming output (NULL: the whole value's), or NULL. */
static const json_t *failure_for(const json_t *entry, const char *output)
{
	size_t i;
	json_t *f;

	json_array_foreach (json_object_get(entry, "failures"), i, f) {
		const char *o = json_string_value(json_object_get(f, "output"));

		if (output ? o && strcmp(o, output) == 0
		           : json_is_null(json_object_get(f, "output")))
			return f;
	}
	return NULL;
}

static const char *hint_for(const json_t *entry, const char *output)
{
	const json_t *f = failure_for(entry, output);
	const char *h = f ? json_string_value(json_object_get(f, "hint")) : NULL;

	return h ? h : "";
}

START_TEST(nonfinite_fails_its_call_alone)
{
	/* each spelling of a non-finite number, where a number goes, in a scalar, an
	 * object's output and a series element; the good calls around them still pass */
	json_t *g = tsvc_answer(SVC_GRADE,
	    "{\"calls\": [" ER_CALL ", {\"function\": \"impedance\", " IMPEDANCE_ARGS
	    ", \"value\": \"NaN\"}, {\"function\": \"solref_kb\", " KB_ARGS(
	        "0.02") ", \"value\": {\"K\": \"Infinity\", \"B\": 105.26315789473685}}, "
	                "{\"function\": \"semi_implicit_euler\", " EULER_ARGS
	                ", \"value\": [0.1, \"-Infinity\", 0.09702, 0.0940896]}, " ER_CALL "]}",
	    NULL);

	ck_assert_int_eq(json_integer_value(json_object_get(g, "graded")), 5);
	ck_assert_int_eq(json_integer_value(json_object_get(g, "passed")), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(g, "failed")), 0);
	ck_assert(json_is_true(json_object_get(result_at(g, 0), "pass")));
	ck_assert(json_is_true(json_object_get(result_at(g, 4), "pass")));
	ck_assert_str_eq(reason_of(result_at(g, 1)), "value is not finite: NaN");
	ck_assert_str_eq(reason_of(result_at(g, 2)), "K is not finite: Infinity");
	ck_assert_str_eq(reason_of(result_at(g, 3)), "x[1] is not finite: -Infinity");
	/* the answer carries no non-finite number: the errors are of what was compared */
	ck_assert(json_is_null(json_object_get(result_at(g, 1), "relative_error")));
	ck_assert(tsvc_real(result_at(g, 2), "absolute_error") == 0);
	json_decref(g);
	/* JSON's own text has no NaN: a bare token is still malformed JSON */
	{
		const char *body =
		    "{\"function\": \"impedance\", " IMPEDANCE_ARGS ", \"value\": NaN}";

		tsvc_expect_error(SVC_GRADE, body, strlen(body), NULL, ERR_BAD_JSON, "");
	}
}
END_TEST

START_TEST(wrong_shapes_fail_their_call_alone)
{
	json_t *g = tsvc_answer(SVC_GRADE,
	    "{\"calls\": [{\"function\": \"solref_kb\", " KB_ARGS(
	        "0.02") ", \"value\": [2770.083102493075, 105.26315789473685]}, {\"function\": "
	                "\"impedance\", " IMPEDANCE_ARGS ", \"value\": \"0.925\"}, {\"function\": "
	                "\"solref_kb\", " KB_ARGS(
	                    "0.02") ", \"value\": {\"k\": 2770.083102493075, \"B\": "
	                            "105.26315789473685}}, {\"function\": "
	                            "\"solref_kb\", " KB_ARGS(
	                                "0.02") ", \"value\": {\"K\": {\"v\": 1}}}, {\"function\": "
	                                        "\"solref_kb\", " KB_ARGS("0.02") ", \"value\": "
	                                                                          "{}}, "
	                                                                          "{\"function\": "
	                                                                          "\"semi_implicit_"
	                                                                          "euler\","
	                                                                          " " EULER_ARGS
	                                                                          ", \"value\": "
	                                                                          "0.1}, " ER_CALL
	                                                                          ", "
	                                                                          "{\"function\": "
	                                                                          "\"impedance\","
	                                                                          " " IMPEDANCE_ARGS
	                                                                          "}]}",
	    NULL);
	const json_t *e;

	/* one graded call passes; the one without a value is refused alone */
	ck_assert_int_eq(json_integer_value(json_object_get(g, "graded")), 7);
	ck_assert_int_eq(json_integer_value(json_object_get(g, "passed")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(g, "failed")), 1);
	ck_assert_str_eq(
	    json_string_value(json_object_get(result_at(g, 7), "path")), "/calls/7/value");
	/* [K, B]: the expected shape named, not garbled */
	e = result_at(g, 0);
	ck_assert(json_is_false(json_object_get(e, "pass")));
	ck_assert_str_eq(reason_of(e),
	    "the value must be an object of solref_kb's outputs ({\"K\": ..., \"B\": ..., "
	    "\"timeconst_used\": ...}, any of them), not an array of 2 values");
	ck_assert_ptr_nonnull(json_object_get(json_object_get(e, "expected"), "timeconst_used"));
	ck_assert_msg(strstr(reason_of(result_at(g, 1)),
	                  "the value must be a number (value), null, or an object of impedance's "
	                  "outputs ({\"value\": ..., \"derivative\": ...}, any of them), not the "
	                  "string \"0.925\""),
	    "%s", reason_of(result_at(g, 1)));
	/* a misspelt key: named, the right spelling offered; the other output still graded */
	e = result_at(g, 2);
	ck_assert_str_eq(reason_of(e),
	    "k is not an output of solref_kb (K, B, timeconst_used): did you mean K?");
	ck_assert_int_eq(json_array_size(json_object_get(e, "failures")), 1);
	ck_assert(tsvc_real(e, "absolute_error") == 0);
	ck_assert_msg(
	    strstr(reason_of(result_at(g, 3)), "K must be a number or null, not an object"), "%s",
	    reason_of(result_at(g, 3)));
	ck_assert_str_eq(reason_of(result_at(g, 4)),
	    "the value names none of solref_kb's outputs (K, B, timeconst_used)");
	ck_assert_msg(strstr(reason_of(result_at(g, 5)),
	                  "the value must be an array (the series x), or an object of "
	                  "semi_implicit_euler's outputs ({\"x\": ..., \"v\": ...}, any of them), "
	                  "not a number"),
	    "%s", reason_of(result_at(g, 5)));
	ck_assert(json_is_true(json_object_get(result_at(g, 6), "pass")));
	json_decref(g);
	/* a single call's wrong shape is the same grade, not a refusal */
	g = tsvc_answer(
	    SVC_GRADE, "{\"function\": \"solref_kb\", " KB_ARGS("0.02") ", \"value\": 1}", NULL);
	ck_assert(json_is_false(json_object_get(g, "pass")));
	ck_assert_msg(strstr(reason_of(g), "not a number"), "%s", reason_of(g));
	json_decref(g);
}
END_TEST

/* a body of one solref_kb call at timeconst tc with the student's K and B */
static json_t *grade_kb(const char *tc, double K, double B)
{
	char body[512];

	snprintf(body, sizeof body,
	    "{\"function\": \"solref_kb\", \"args\": {\"solref\": [%s, 1], \"dmax\": 0.95, \"h\": "
	    "0.002}, \"value\": {\"K\": %.17g, \"B\": %.17g}}",
	    tc, K, B);
	return tsvc_answer(SVC_GRADE, body, NULL);
}

START_TEST(every_failing_output_named)
{
	uint64_t seed = 50;
	json_t *r = eval_result("{\"function\": \"solref_kb\", " KB_ARGS("0.02") "}");
	double K = tsvc_real(r, "K"), B = tsvc_real(r, "B");
	int trial;

	for (trial = 0; trial < 20; trial++) {
		/* random wrong values: both named, in order, and no hint claimed */
		json_t *g = grade_kb(
		    "0.02", K * tl_between(&seed, 1.01, 3), B * tl_between(&seed, 0.2, 0.99));

		ck_assert_int_eq(json_array_size(json_object_get(g, "failures")), 2);
		ck_assert_str_eq(
		    reason_of(g), "K is outside the tolerance; B is outside the tolerance");
		ck_assert_str_eq(hint_for(g, "K"), "");
		ck_assert_str_eq(hint_for(g, "B"), "");
		json_decref(g);
	}
	json_decref(r);
}
END_TEST

/* The lesson's impedance as a student types it, one mistake chosen: 0 none, 1 midpoint^p
 * for midpoint^(p-1), 2 the power left out, 3 the branches swapped. */
static double student_impedance(double r, const double s[5], int mistake)
{
	double d0 = s[0], dw = s[1], width = s[2], mid = s[3], p = s[4], x = fabs(r) / width, y;
	int below = (x <= mid) != (mistake == 3);

	if (mistake == 2)
		y = x;
	else if (below)
		y = pow(x, p) / pow(mid, mistake == 1 ? p : p - 1);
	else
		y = 1 - pow(1 - x, p) / pow(1 - mid, mistake == 1 ? p : p - 1);
	return d0 + y * (dw - d0);
}

START_TEST(hints_recognise_the_usual_mistakes)
{
	static const double solimp[5] = {0.9, 0.95, 0.001, 0.5, 2};
	static const char *const impedance_hints[] = {"", "the impedance power: this divides by",
	    "the impedance power: this is the linear curve", "the midpoint branch:"};
	uint64_t seed = 5050;
	json_t *r, *g;
	char body[1024];
	double K, B, d, rr, tc = 0.002, dmax = 0.95, h = 0.002;
	int mistake, i;

	/* refsafe forgotten: the lesson's K and B at a timeconst below 2h */
	g = grade_kb("0.002", 1 / (dmax * dmax * tc * tc), 2 / (dmax * tc));
	ck_assert_msg(
	    strstr(hint_for(g, "K"), "refsafe forgotten") == hint_for(g, "K"), "%s", reason_of(g));
	ck_assert_str_eq(hint_for(g, "B"), hint_for(g, "K"));
	ck_assert_msg(strstr(reason_of(g),
	                  "K is outside the tolerance; B is outside the tolerance. "
	                  "Hint for K and B: refsafe forgotten"),
	    "%s", reason_of(g));
	json_decref(g);
	/* d versus d squared: K with dmax, B with dmax^2, at a timeconst refsafe keeps */
	tc = 0.02;
	(void)h;
	g = grade_kb("0.02", 1 / (dmax * tc * tc), 2 / (dmax * dmax * tc));
	ck_assert_msg(strstr(hint_for(g, "K"), "d versus d squared: this is K with dmax"), "%s",
	    reason_of(g));
	ck_assert_msg(strstr(hint_for(g, "B"), "d versus d squared: this is B with dmax^2"), "%s",
	    reason_of(g));
	json_decref(g);
	/* a sign error */
	r = eval_result("{\"function\": \"solref_kb\", " KB_ARGS("0.02") "}");
	K = tsvc_real(r, "K");
	B = tsvc_real(r, "B");
	json_decref(r);
	g = grade_kb("0.02", -K, B);
	ck_assert_str_eq(hint_for(g, "K"), "a sign error: this is minus the expected value");
	ck_assert_ptr_null(failure_for(g, "B"));
	json_decref(g);
	/* the impedance: each mistake of the curve, below and above the midpoint */
	for (i = 0; i < 2; i++) {
		rr = i == 0 ? 0.0003 : 0.0008; /* x = 0.3 and 0.8 of the width, midpoint 0.5 */
		for (mistake = 1; mistake <= 3; mistake++) {
			snprintf(body, sizeof body,
			    "{\"function\": \"impedance\", \"args\": {\"r\": %.17g, \"solimp\": "
			    "[0.9, 0.95, 0.001, 0.5, 2]}, \"value\": %.17g}",
			    rr, student_impedance(rr, solimp, mistake));
			g = tsvc_answer(SVC_GRADE, body, NULL);
			ck_assert_msg(strstr(hint_for(g, "value"), impedance_hints[mistake]) ==
			        hint_for(g, "value"),
			    "r %g mistake %d: %s", rr, mistake, reason_of(g));
			json_decref(g);
		}
	}
	/* a_ref with d^2 where MuJoCo has d: the student's K, B and d are eval's own */
	r = eval_result(
	    "{\"function\": \"impedance\", \"args\": {\"r\": -0.0004, \"solimp\": [0.9, "
	    "0.95, 0.001, 0.5, 2]}}");
	d = tsvc_real(r, "value");
	json_decref(r);
	snprintf(body, sizeof body,
	    "{\"function\": \"a_ref\", \"args\": {\"dist\": -0.0004, \"vel\": -0.1, \"solref\": "
	    "[0.02, 1], \"solimp\": [0.9, 0.95, 0.001, 0.5, 2], \"h\": 0.002}, \"value\": %.17g}",
	    -B * -0.1 - K * d * d * -0.0004);
	g = tsvc_answer(SVC_GRADE, body, NULL);
	ck_assert_msg(
	    strstr(hint_for(g, "value"), "d versus d squared: this is -B vel - K d^2 dist"), "%s",
	    reason_of(g));
	json_decref(g);
	/* random wrong values get no hint */
	for (i = 0; i < 20; i++) {
		rr = tl_between(&seed, 0.0001, 0.0009);
		snprintf(body, sizeof body,
		    "{\"function\": \"impedance\", \"args\": {\"r\": %.17g, \"solimp\": [0.9, "
		    "0.95, "
		    "0.001, 0.5, 2]}, \"value\": %.17g}",
		    rr, student_impedance(rr, solimp, 0) + tl_between(&seed, 0.001, 0.02));
		g = tsvc_answer(SVC_GRADE, body, NULL);
		ck_assert(json_is_false(json_object_get(g, "pass")));
		ck_assert_msg(strcmp(hint_for(g, "value"), "") == 0, "%s", reason_of(g));
		json_decref(g);
	}
}
END_TEST

START_TEST(errors_measured_as_the_tolerance)
{
	/* a spring oscillating through 0 for 40 steps, the student's integrator explicit
	 * Euler (x from the old v): every element off, some near x = 0 */
	const char *args =
	    "\"args\": {\"x0\": 0.1, \"v0\": 0, \"h\": 0.01, \"steps\": 40, "
	    "\"accel\": {\"function\": \"spring\", \"args\": {\"k\": 100, \"c\": 1}}}";
	char *body = malloc(16384), num[40];
	json_t *r, *g;
	const json_t *x;
	double s[41], v = 0, scale = 0, worst = -1, abs_worst = 0, e_worst = 0, s_worst = 0, a;
	size_t i;
	int64_t bs, be;

	snprintf(body, 16384, "{\"function\": \"semi_implicit_euler\", %s}", args);
	r = eval_result(body);
	x = json_object_get(r, "x");
	s[0] = 0.1;
	for (i = 1; i <= 40; i++) {
		a = -1 * v - 100 * s[i - 1];
		s[i] = s[i - 1] + 0.01 * v;
		v += 0.01 * a;
	}
	snprintf(body, 16384, "{\"function\": \"semi_implicit_euler\", %s, \"value\": [", args);
	for (i = 0; i <= 40; i++) {
		snprintf(num, sizeof num, "%s%.17g", i ? ", " : "", s[i]);
		strcat(body, num);
		if (fabs(json_real_value(json_array_get(x, i))) > scale)
			scale = fabs(json_real_value(json_array_get(x, i)));
	}
	strcat(body, "]}");
	/* the tolerance's measure: |s - e| / (1e-9 * the series' largest |e|) */
	for (i = 0; i <= 40; i++) {
		double e = json_real_value(json_array_get(x, i)),
		       m = fabs(s[i] - e) / (1e-9 * scale);

		if (m > worst) {
			worst = m;
			abs_worst = fabs(s[i] - e);
			e_worst = e;
			s_worst = s[i];
		}
	}
	g = tsvc_answer(SVC_GRADE, body, NULL);
	ck_assert(json_is_false(json_object_get(g, "pass")));
	ck_assert(tsvc_real(g, "absolute_error") == abs_worst);
	ck_assert(tsvc_real(g, "relative_error") == abs_worst / scale);
	ck_assert(tsvc_real(g, "relative_error") <= 2); /* of the series' scale: sane */
	/* ulps: the doubles between the two (of one sign: the bit patterns' distance), when
	 * at most 2^52 */
	memcpy(&bs, &s_worst, sizeof bs);
	memcpy(&be, &e_worst, sizeof be);
	if ((s_worst > 0) == (e_worst > 0) && llabs(bs - be) <= (1LL << 52))
		ck_assert_int_eq(json_integer_value(json_object_get(g, "ulps")), llabs(bs - be));
	else
		ck_assert(json_is_null(json_object_get(g, "ulps")));
	ck_assert_msg(strstr(reason_of(g), "more of x's 41 values"), "%s", reason_of(g));
	json_decref(g);
	json_decref(r);
	free(body);
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
	tcase_add_test(tc, nonfinite_fails_its_call_alone);
	tcase_add_test(tc, wrong_shapes_fail_their_call_alone);
	tcase_add_test(tc, every_failing_output_named);
	tcase_add_test(tc, hints_recognise_the_usual_mistakes);
	tcase_add_test(tc, errors_measured_as_the_tolerance);
	suite_add_tcase(s, tc);
	runner = srunner_create(s);
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? 0 : 1;
}
