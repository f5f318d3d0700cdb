/*
 * test_request.c: validation and canonical form of requests (service layer).
 *
 * Every rejected input of the contract gets the exact error code and the JSON
 * Pointer of the offending field; requests that mean the same get the same
 * canonical text.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/service.h"
#include "svc_test.h"
#include "base/knobs.h"
#include "service/knobs.h"

struct bad_case {
	enum svc_endpoint ep;
	const char *body;
	enum err_code code;
	const char *path;
};

/* The contract's bad inputs, one per row. */
static const struct bad_case bad_cases[] = {
    /* wrong JSON types */
    {SVC_DROP, "{\"body\": {\"mass\": \"1\"}}", ERR_BAD_TYPE, "/body/mass"},
    {SVC_DROP, "{\"body\": {\"shape\": 3}}", ERR_BAD_TYPE, "/body/shape"},
    {SVC_DROP, "{\"body\": {\"size\": \"0.05\"}}", ERR_BAD_TYPE, "/body/size"},
    {SVC_DROP, "{\"body\": []}", ERR_BAD_TYPE, "/body"},
    {SVC_DROP, "{\"geom\": {\"solref\": \"0.02 1\"}}", ERR_BAD_TYPE, "/geom/solref"},
    {SVC_DROP, "{\"geom\": {\"solref\": [0.02, \"1\"]}}", ERR_BAD_TYPE, "/geom/solref/1"},
    {SVC_DROP, "{\"option\": {\"refsafe\": 1}}", ERR_BAD_TYPE, "/option/refsafe"},
    {SVC_DROP, "{\"option\": {\"gravity\": null}}", ERR_BAD_TYPE, "/option/gravity"},
    {SVC_DROP, "{\"floor\": [1]}", ERR_BAD_TYPE, "/floor"},
    {SVC_DROP, "{\"height\": true}", ERR_BAD_TYPE, "/height"},
    {SVC_REST, "[]", ERR_BAD_TYPE, ""},
    /* NaN-like and huge numbers: not JSON, or beyond a double */
    {SVC_DROP, "{\"body\": {\"mass\": NaN}}", ERR_BAD_JSON, ""},
    {SVC_DROP, "{\"height\": Infinity}", ERR_BAD_JSON, ""},
    {SVC_DROP, "{\"height\": -Infinity}", ERR_BAD_JSON, ""},
    {SVC_DROP, "{\"body\": {\"mass\": \"NaN\"}}", ERR_BAD_TYPE, "/body/mass"},
    {SVC_DROP, "{\"body\": {\"mass\": 1e999}}", ERR_BAD_VALUE, "/body/mass"},
    {SVC_DROP, "{\"geom\": {\"solimp\": [0.9, 0.95, 0.001, 0.5, -1e400]}}", ERR_BAD_VALUE,
        "/geom/solimp/4"},
    {SVC_DROP, "{\"geom\": {\"priority\": 123456789012345678901234567890}}", ERR_BAD_VALUE,
        "/geom/priority"},
    {SVC_DROP, "{\"geom\": {\"priority\": 3000000000}}", ERR_BAD_VALUE, "/geom/priority"},
    {SVC_DROP, "{\"body\": {\"mass\": 2e9}}", ERR_BAD_VALUE, "/body/mass"},
    {SVC_DROP, "{\"body\": {\"size\": 101}}", ERR_BAD_VALUE, "/body/size"},
    {SVC_DROP, "{\"height\": 1e5}", ERR_BAD_VALUE, "/height"},
    /* negative or zero mass and size */
    {SVC_DROP, "{\"body\": {\"mass\": -1}}", ERR_BAD_VALUE, "/body/mass"},
    {SVC_REST, "{\"body\": {\"mass\": 0}}", ERR_BAD_VALUE, "/body/mass"},
    {SVC_DROP, "{\"body\": {\"size\": -0.05}}", ERR_BAD_VALUE, "/body/size"},
    {SVC_DROP, "{\"body\": {\"size\": [0.05, 0, 0.05]}}", ERR_BAD_VALUE, "/body/size/1"},
    {SVC_DROP, "{\"body\": {\"size\": [0.05, 0.05]}}", ERR_BAD_VALUE, "/body/size"},
    {SVC_DROP, "{\"body\": {\"shape\": \"sphere\", \"size\": [0, 1, 1]}}", ERR_BAD_VALUE,
        "/body/size/0"},
    /* bodies MuJoCo 2.2.2's compiler refuses ("mass and inertia of moving bodies must be
     * larger than mjMINVAL"), measured with libmujoco: a sphere r 0.05 of 0.99e-12 kg
     * (inertia 0.99e-15) and a cube of half edge 4.9e-6 (volume 0.94e-15) */
    {SVC_DROP, "{\"body\": {\"shape\": \"sphere\", \"mass\": 0.99e-12}}", ERR_BAD_VALUE,
        "/body/mass"},
    {SVC_DROP, "{\"body\": {\"size\": 4.9e-6}}", ERR_BAD_VALUE, "/body/size"},
    /* unknown shapes, fields, enum values */
    {SVC_DROP, "{\"body\": {\"shape\": \"cylinder\"}}", ERR_BAD_VALUE, "/body/shape"},
    {SVC_DROP, "{\"body\": {\"color\": \"red\"}}", ERR_UNKNOWN_FIELD, "/body/color"},
    {SVC_REST, "{\"bogus\": 1}", ERR_UNKNOWN_FIELD, "/bogus"},
    {SVC_REST, "{\"geom\": {\"a/b~c\": 1}}", ERR_UNKNOWN_FIELD, "/geom/a~1b~0c"},
    {SVC_REST, "{\"option\": {\"solver\": \"PGS\"}}", ERR_UNKNOWN_FIELD, "/option/solver"},
    /* discrete exists from MuJoCo 3.13.0 on (the hold's too); eval's step_growth does not
     * take it */
    {SVC_DROP, "{\"option\": {\"integrator\": \"discrete\", \"mujoco\": \"3.12.0\"}}",
        ERR_BAD_VALUE, "/option/integrator"},
    {SVC_REST, "{\"option\": {\"integrator\": \"discrete\", \"mujoco\": \"2.2.2\"}}", ERR_BAD_VALUE,
        "/option/integrator"},
    {SVC_STABILITY, "{\"option\": {\"integrator\": \"discrete\", \"mujoco\": \"3.12.0\"}}",
        ERR_BAD_VALUE, "/option/integrator"},
    {SVC_HOLD, "{\"option\": {\"integrator\": \"discrete\", \"mujoco\": \"3.12.0\"}}",
        ERR_BAD_VALUE, "/option/integrator"},
    {SVC_HOLD, "{\"option\": {\"integrator\": \"discrete\", \"mujoco\": \"2.2.2\"}}",
        ERR_BAD_VALUE, "/option/integrator"},
    {SVC_DROP, "{\"option\": {\"mujoco\": \"3.15.0\"}}", ERR_BAD_VALUE, "/option/mujoco"},
    {SVC_DROP, "{\"option\": {\"integrator\": \"euler\"}}", ERR_BAD_VALUE, "/option/integrator"},
    {SVC_DROP, "{\"option\": {\"cone\": \"circular\"}}", ERR_BAD_VALUE, "/option/cone"},
    {SVC_REST, "{\"option\": {\"cone\": \"Elliptic\"}}", ERR_BAD_VALUE, "/option/cone"},
    {SVC_DROP, "{\"geom\": {\"condim\": 2}}", ERR_BAD_VALUE, "/geom/condim"},
    {SVC_DROP, "{\"geom\": {\"condim\": 3.5}}", ERR_BAD_VALUE, "/geom/condim"},
    {SVC_DROP, "{\"geom\": {\"solref\": [0.02]}}", ERR_BAD_VALUE, "/geom/solref"},
    {SVC_DROP, "{\"geom\": {\"friction\": [1, -0.1, 0]}}", ERR_BAD_VALUE, "/geom/friction/1"},
    {SVC_DROP, "{\"geom\": {\"margin\": -0.001}}", ERR_BAD_VALUE, "/geom/margin"},
    {SVC_DROP, "{\"floor\": {\"gap\": -1}}", ERR_BAD_VALUE, "/floor/gap"},
    {SVC_DROP, "{\"floor\": {\"solmix\": -1}}", ERR_BAD_VALUE, "/floor/solmix"},
    {SVC_DROP, "{\"floor\": {\"priority\": 0.5}}", ERR_BAD_VALUE, "/floor/priority"},
    /* timesteps that are not positive, other ranges */
    {SVC_DROP, "{\"option\": {\"timestep\": 0}}", ERR_BAD_VALUE, "/option/timestep"},
    {SVC_DROP, "{\"option\": {\"timestep\": -0.002}}", ERR_BAD_VALUE, "/option/timestep"},
    {SVC_DROP, "{\"option\": {\"impratio\": 0}}", ERR_BAD_VALUE, "/option/impratio"},
    {SVC_DROP, "{\"height\": -0.1}", ERR_BAD_VALUE, "/height"},
    {SVC_DROP, "{\"duration\": -1}", ERR_BAD_VALUE, "/duration"},
    {SVC_DROP, "{\"duration\": 100000, \"option\": {\"timestep\": 0.001}}", ERR_TOO_LARGE,
        "/duration"},
    {SVC_DROP, "{\"duration\": 1e300, \"option\": {\"timestep\": 1e-300}}", ERR_TOO_LARGE,
        "/duration"},
    /* malformed JSON */
    {SVC_REST, "{\"body\":", ERR_BAD_JSON, ""},
    {SVC_REST, "", ERR_BAD_JSON, ""},
    {SVC_REST, "{} {}", ERR_BAD_JSON, ""},
    {SVC_REST, "\"rest\"", ERR_BAD_JSON, ""},
    {SVC_REST, "{\"height\": 0, \"height\": 1}", ERR_BAD_JSON, ""},
    {SVC_REST, "{\"geom\": {\"a\\u0000b\": 1}}", ERR_BAD_JSON, ""},
    {SVC_REST, "{\"x\": \"\xff\xfe\"}", ERR_BAD_JSON, ""},
    {SVC_REST, "{\"x\": \"\xc3\"}", ERR_BAD_JSON, ""},
    /* stability */
    {SVC_STABILITY, "{\"solref\": [0.02, \"a\"]}", ERR_BAD_TYPE, "/solref/1"},
    {SVC_STABILITY, "{\"impedance\": 1}", ERR_BAD_VALUE, "/impedance"},
    {SVC_STABILITY, "{\"impedance\": 0}", ERR_BAD_VALUE, "/impedance"},
    {SVC_STABILITY, "{\"option\": {\"gravity\": 9.81}}", ERR_UNKNOWN_FIELD, "/option/gravity"},
    {SVC_STABILITY, "{\"option\": {\"timestep\": 0}}", ERR_BAD_VALUE, "/option/timestep"},
    {SVC_STABILITY, "{\"option\": {\"integrator\": \"RK5\"}}", ERR_BAD_VALUE, "/option/integrator"},
    {SVC_STABILITY, "{\"option\": {\"cone\": 1}}", ERR_BAD_TYPE, "/option/cone"},
    {SVC_STABILITY, "{\"body\": {}}", ERR_UNKNOWN_FIELD, "/body"},
    /* sweep */
    {SVC_SWEEP, "{\"vary\": [{\"path\": \"/height\", \"values\": [0]}]}", ERR_MISSING_FIELD,
        "/query"},
    {SVC_SWEEP, "{\"query\": \"fly\", \"vary\": []}", ERR_BAD_VALUE, "/query"},
    {SVC_SWEEP, "{\"query\": \"rest\"}", ERR_MISSING_FIELD, "/vary"},
    {SVC_SWEEP, "{\"query\": \"rest\", \"vary\": {}}", ERR_BAD_TYPE, "/vary"},
    {SVC_SWEEP, "{\"query\": \"rest\", \"vary\": []}", ERR_BAD_VALUE, "/vary"},
    {SVC_SWEEP,
        "{\"query\": \"rest\", \"vary\": [{\"path\": \"/height\", \"values\": [0]}, {\"path\": "
        "\"/duration\", \"values\": [1]}, {\"path\": \"/body/mass\", \"values\": [1]}]}",
        ERR_BAD_VALUE, "/vary"},
    {SVC_SWEEP, "{\"query\": \"rest\", \"base\": {\"body\": {\"mass\": -1}}, \"vary\": []}",
        ERR_BAD_VALUE, "/base/body/mass"},
    {SVC_SWEEP, "{\"query\": \"rest\", \"base\": 3, \"vary\": []}", ERR_BAD_TYPE, "/base"},
    {SVC_SWEEP, "{\"query\": \"rest\", \"vary\": [{\"values\": [1]}]}", ERR_MISSING_FIELD,
        "/vary/0/path"},
    {SVC_SWEEP, "{\"query\": \"rest\", \"vary\": [{\"path\": \"/body/mass\"}]}", ERR_MISSING_FIELD,
        "/vary/0/values"},
    {SVC_SWEEP, "{\"query\": \"rest\", \"vary\": [{\"path\": \"/body/mas\", \"values\": [1]}]}",
        ERR_UNKNOWN_FIELD, "/vary/0/path"},
    {SVC_SWEEP, "{\"query\": \"rest\", \"vary\": [{\"path\": \"body/mass\", \"values\": [1]}]}",
        ERR_BAD_VALUE, "/vary/0/path"},
    {SVC_SWEEP, "{\"query\": \"rest\", \"vary\": [{\"path\": \"\", \"values\": [{}]}]}",
        ERR_BAD_VALUE, "/vary/0/path"},
    {SVC_SWEEP,
        "{\"query\": \"rest\", \"vary\": [{\"path\": \"/geom/solref/~2\", \"values\": [1]}]}",
        ERR_BAD_VALUE, "/vary/0/path"},
    {SVC_SWEEP,
        "{\"query\": \"rest\", \"vary\": [{\"path\": \"/geom/solref/2\", \"values\": [1]}]}",
        ERR_UNKNOWN_FIELD, "/vary/0/path"},
    {SVC_SWEEP, "{\"query\": \"rest\", \"vary\": [{\"path\": 5, \"values\": [1]}]}", ERR_BAD_TYPE,
        "/vary/0/path"},
    {SVC_SWEEP, "{\"query\": \"rest\", \"vary\": [{\"path\": \"/height\", \"values\": 1}]}",
        ERR_BAD_TYPE, "/vary/0/values"},
    {SVC_SWEEP, "{\"query\": \"rest\", \"vary\": [{\"path\": \"/height\", \"values\": []}]}",
        ERR_BAD_VALUE, "/vary/0/values"},
    {SVC_SWEEP,
        "{\"query\": \"rest\", \"vary\": [{\"path\": \"/height\", \"values\": [0], "
        "\"step\": 1}]}",
        ERR_UNKNOWN_FIELD, "/vary/0/step"},
    {SVC_SWEEP,
        "{\"query\": \"rest\", \"vary\": [{\"path\": \"/body/mass\", \"values\": [1, 2, -3]}]}",
        ERR_BAD_VALUE, "/vary/0/values/2"},
    {SVC_SWEEP,
        "{\"query\": \"drop\", \"vary\": [{\"path\": \"/geom/solref\", \"values\": [[0.02, 1], "
        "[0.02, \"x\"]]}]}",
        ERR_BAD_TYPE, "/vary/0/values/1"},
    {SVC_SWEEP,
        "{\"query\": \"stability\", \"vary\": [{\"path\": \"/option/integrator\", \"values\": "
        "[\"Euler\", \"RK4\", \"leapfrog\"]}]}",
        ERR_BAD_VALUE, "/vary/0/values/2"},
    {SVC_SWEEP,
        "{\"query\": \"rest\", \"vary\": [{\"path\": \"/height\", \"values\": [0]}, {\"path\": "
        "\"/height\", \"values\": [1]}]}",
        ERR_BAD_VALUE, "/vary/1/path"},
    /* each value alone is fine (5e6 and 1000 steps), the pair is not (2e7 steps) */
    {SVC_SWEEP,
        "{\"query\": \"drop\", \"base\": {\"duration\": 0.5}, \"vary\": [{\"path\": "
        "\"/option/timestep\", \"values\": [0.002, 1e-7]}, {\"path\": \"/duration\", "
        "\"values\": [0.5, 2]}]}",
        ERR_TOO_LARGE, "/vary/1/values/1"},
    /* eval */
    {SVC_EVAL, "{}", ERR_MISSING_FIELD, "/function"},
    {SVC_EVAL, "{\"function\": \"nope\"}", ERR_BAD_VALUE, "/function"},
    {SVC_EVAL, "{\"function\": \"impedance\", \"args\": {\"solimp\": [0.9, 0.95, 0.001, 0.5, 2]}}",
        ERR_MISSING_FIELD, "/args/r"},
    {SVC_EVAL, "{\"function\": \"impedance\"}", ERR_MISSING_FIELD, "/args/r"},
    {SVC_EVAL,
        "{\"function\": \"impedance\", \"args\": {\"r\": 0.001, \"solimp\": [0.9, 0.95, 0.001, "
        "0.5, 2], \"h\": 0.002}}",
        ERR_UNKNOWN_FIELD, "/args/h"},
    {SVC_EVAL, "{\"function\": \"impedance\", \"args\": {\"r\": \"0\", \"solimp\": []}}",
        ERR_BAD_TYPE, "/args/r"},
    {SVC_EVAL, "{\"function\": \"impedance\", \"args\": [], \"x\": 1}", ERR_UNKNOWN_FIELD, "/x"},
    {SVC_EVAL, "{\"function\": \"impedance\", \"args\": []}", ERR_BAD_TYPE, "/args"},
    {SVC_EVAL,
        "{\"function\": \"error_reduction\", \"args\": {\"timeconst\": 0.02, "
        "\"dampratio\": 1, \"dt\": 0}}",
        ERR_BAD_VALUE, "/args/dt"},
    {SVC_EVAL,
        "{\"function\": \"step_growth\", \"args\": {\"k\": 1, \"c\": 1, \"h\": 0.002, "
        "\"integrator\": \"discrete\"}}",
        ERR_BAD_VALUE, "/args/integrator"},
    {SVC_EVAL, "{\"calls\": {}}", ERR_BAD_TYPE, "/calls"},
    {SVC_EVAL, "{\"calls\": [], \"function\": \"impedance\"}", ERR_UNKNOWN_FIELD, "/function"},
    /* a batch's envelope; its calls fail one by one (test_eval) */
    {SVC_EVAL, "{\"calls\": [], \"id\": 1}", ERR_UNKNOWN_FIELD, "/id"},
    {SVC_EVAL, "[]", ERR_BAD_TYPE, ""},
    /* a single call fails whole */
    {SVC_EVAL, "{\"function\": \"impedance\", \"id\": [1], \"args\": {}}", ERR_BAD_TYPE, "/id"},
    {SVC_EVAL,
        "{\"function\": \"solref_to_spring\", \"args\": {\"timeconst\": 0.02, "
        "\"dampratio\": 1, \"d\": 1, \"d_w\": 0.95}}",
        ERR_BAD_VALUE, "/args/d"},
    {SVC_EVAL,
        "{\"function\": \"semi_implicit_euler\", \"args\": {\"x0\": 0, \"v0\": 0, "
        "\"h\": 0.002, \"steps\": 10, \"accel\": {\"function\": \"spring\", \"args\": "
        "{\"k\": 1}}}}",
        ERR_MISSING_FIELD, "/args/accel/args/c"},
    {SVC_EVAL,
        "{\"function\": \"semi_implicit_euler\", \"args\": {\"x0\": 0, \"v0\": 0, "
        "\"h\": 0.002, \"steps\": 20001, \"accel\": {\"function\": \"spring\", \"args\": "
        "{\"k\": 1, \"c\": 0}}}}",
        ERR_TOO_LARGE, "/args/steps"},
};

START_TEST(rejects_bad_input)
{
	const struct bad_case *c = &bad_cases[_i];

	tsvc_expect_error(c->ep, c->body, strlen(c->body), NULL, c->code, c->path);
}
END_TEST

/* A body of `depth` nested objects {"a": {"a": ... 1}}: depth counts the outermost. */
static char *nested(int depth)
{
	size_t len = (size_t)depth * 6 + 2;
	char *text = malloc(len + 1), *p = text;
	int i;

	ck_assert_ptr_nonnull(text);
	for (i = 0; i < depth; i++) {
		if (i < depth - 1)
			p += sprintf(p, "{\"a\":");
		else
			p += sprintf(p, "{");
	}
	for (i = 0; i < depth; i++)
		*p++ = '}';
	*p = '\0';
	return text;
}

/* An unknown field's message lists the fields expected at its level, every one. */
START_TEST(unknown_field_lists_the_expected_fields)
{
	static const struct {
		enum svc_endpoint ep;
		const char *body, *path, *expected[9];
	} cases[] = {
	    {SVC_DROP, "{\"geom\": {\"timeconst\": 0.02}}", "/geom/timeconst",
	        {"solref", "solimp", "condim", "friction", "margin", "gap", "solmix", "priority"}},
	    {SVC_REST, "{\"timeconst\": 0.02}", "/timeconst",
	        {"body", "geom", "floor", "option", "height", "duration"}},
	    {SVC_SWEEP,
	        "{\"query\": \"drop\", \"vary\": [{\"path\": \"/height\", \"value\": [1]}]}",
	        "/vary/0/value", {"path", "values"}},
	    {SVC_EVAL, "{\"function\": \"impedance\", \"args\": {\"x\": 1}}", "/args/x",
	        {"r", "solimp"}},
	};
	size_t i, j;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *message = tsvc_error_message(
		    cases[i].ep, cases[i].body, ERR_UNKNOWN_FIELD, cases[i].path);
		char quoted[64];

		ck_assert_msg(strncmp(message, "unknown field \"", 15) == 0, "%s", message);
		for (j = 0; cases[i].expected[j]; j++) {
			snprintf(quoted, sizeof quoted, "\"%s\"", cases[i].expected[j]);
			ck_assert_msg(strstr(message, quoted) != NULL,
			    "%s: \"%s\" does not list %s", cases[i].body, message, quoted);
		}
		free(message);
	}
}
END_TEST

/* A rejected number is quoted as it was written (its shortest exact text). */
START_TEST(rejected_numbers_are_quoted_short)
{
	char *m = tsvc_error_message(
	    SVC_DROP, "{\"option\": {\"timestep\": -0.1}}", ERR_BAD_VALUE, "/option/timestep");

	ck_assert_str_eq(m, "must be > 0, not -0.1");
	free(m);
	m = tsvc_error_message(SVC_DROP, "{\"height\": 1e5}", ERR_BAD_VALUE, "/height");
	ck_assert_str_eq(m, "must be >= 0 and <= 10000, not 100000");
	free(m);
}
END_TEST

START_TEST(too_deep_names_the_first_container_past_the_limit)
{
	char path[4 * LIMIT_MAX_JSON_DEPTH + 1] = "";
	char *at_limit = nested(LIMIT_MAX_JSON_DEPTH), *over = nested(LIMIT_MAX_JSON_DEPTH + 1);
	char *far_over = nested(5000); /* past jansson's own parser limit (2048) */
	int i;

	/* LIMIT_MAX_JSON_DEPTH levels are structurally fine (and then an unknown field) */
	tsvc_expect_error(SVC_REST, at_limit, strlen(at_limit), NULL, ERR_UNKNOWN_FIELD, "/a");
	for (i = 1; i < LIMIT_MAX_JSON_DEPTH + 1; i++)
		strcat(path, "/a");
	tsvc_expect_error(SVC_REST, over, strlen(over), NULL, ERR_TOO_DEEP, path);
	tsvc_expect_error(SVC_REST, far_over, strlen(far_over), NULL, ERR_TOO_DEEP, "");
	free(at_limit);
	free(over);
	free(far_over);
}
END_TEST

START_TEST(overflow_path_through_arrays_and_escaped_keys)
{
	const char *body = "{\"query\": \"rest\", \"vary\": [{\"path\": \"/height\", \"values\": "
	                   "[0, \"x,y\", {\"q\\\"~/\": [1, 2, 3e400]}]}]}";

	tsvc_expect_error(
	    SVC_SWEEP, body, strlen(body), NULL, ERR_BAD_VALUE, "/vary/0/values/2/q\"~0~1/2");
}
END_TEST

START_TEST(body_over_the_size_limit)
{
	size_t len = LIMIT_MAX_BODY_BYTES + 1;
	char *body = malloc(len);
	struct svc_limits lim = tsvc_limits(1);
	struct err err;
	json_t *canonical = NULL;

	ck_assert_ptr_nonnull(body);
	memset(body, ' ', len);
	body[0] = '{';
	body[len - 1] = '}';
	tsvc_expect_error(SVC_REST, body, len, NULL, ERR_TOO_LARGE, "");
	/* one byte shorter it is within the limit: "{   ...   }", the empty request */
	body[len - 2] = '}';
	err_clear(&err);
	ck_assert_int_eq(svc_canonical(SVC_REST, body, len - 1, &lim, &canonical, &err), 0);
	json_decref(canonical);
	free(body);
}
END_TEST

START_TEST(binary_garbage_is_rejected_not_crashed_on)
{
	unsigned char garbage[512];
	unsigned state = 12345;
	size_t i;
	int round;
	struct svc_limits lim = tsvc_limits(1);

	/* a fixed pseudo-random sequence: reproducible, covers NULs and invalid UTF-8 */
	for (round = 0; round < 200; round++) {
		struct err err;
		json_t *canonical = NULL;
		for (i = 0; i < sizeof garbage; i++) {
			state = state * 1103515245u + 12345u;
			garbage[i] = (unsigned char)(state >> 16);
		}
		garbage[0] = '{';
		err_clear(&err);
		/* whatever the bytes, an answer or a 4xx, never a crash or a 5xx */
		if (svc_canonical(SVC_DROP, (const char *)garbage, (size_t)round * 2, &lim,
		        &canonical, &err) == 0)
			json_decref(canonical);
		else
			ck_assert(err.code != ERR_UNAVAILABLE && err.code != ERR_INTERNAL);
	}
}
END_TEST

START_TEST(limits_on_sweep_points_and_eval_calls)
{
	struct svc_limits lim = tsvc_limits(1);
	const char *eleven = "{\"query\": \"stability\", \"vary\": [{\"path\": \"/impedance\", "
	                     "\"values\": [0.5, 0.6]}, {\"path\": \"/option/integrator\", "
	                     "\"values\": [\"Euler\", \"RK4\", \"implicit\", \"implicitfast\", "
	                     "\"Euler\", \"RK4\"]}]}";
	const char *call = "{\"function\": \"error_reduction\", \"args\": {\"timeconst\": 0.02, "
	                   "\"dampratio\": 1, \"dt\": 0.002}}";
	char four[1024];

	snprintf(four, sizeof four, "{\"calls\": [%s, %s, %s, %s]}", call, call, call, call);
	struct svc_limits defaults;

	svc_limits_default(&defaults);
	ck_assert_int_eq(defaults.max_sweep_points, LIMIT_MAX_SWEEP_POINTS);
	ck_assert_int_eq(defaults.max_eval_calls, LIMIT_MAX_EVAL_CALLS);
	ck_assert_int_ge(defaults.threads, 1);

	/* 2 x 6 = 12 points: over 11, within 12 */
	lim.max_sweep_points = 11;
	tsvc_expect_error(SVC_SWEEP, eleven, strlen(eleven), &lim, ERR_TOO_LARGE, "/vary");
	lim.max_sweep_points = 12;
	json_decref(tsvc_answer(SVC_SWEEP, eleven, &lim));
	/* one entry alone over the limit is named by its values */
	lim.max_sweep_points = 5;
	tsvc_expect_error(SVC_SWEEP, eleven, strlen(eleven), &lim, ERR_TOO_LARGE, "/vary/1/values");

	lim.max_eval_calls = 3;
	tsvc_expect_error(SVC_EVAL, four, strlen(four), &lim, ERR_TOO_LARGE, "/calls");
	lim.max_eval_calls = 4;
	json_decref(tsvc_answer(SVC_EVAL, four, &lim));
}
END_TEST

START_TEST(sweep_over_the_simulated_step_limit)
{
	/* 1001 drops of 200000 steps (2 s at 10 us) = 2.002e8 steps > LIMIT_MAX_SWEEP_STEPS */
	size_t cap = 32 * 1024, len;
	char *body = malloc(cap);
	int i;

	ck_assert_int_eq(LIMIT_MAX_SWEEP_STEPS, 200000000L);
	ck_assert_ptr_nonnull(body);
	len = (size_t)sprintf(body,
	    "{\"query\": \"drop\", \"base\": {\"option\": {\"timestep\": "
	    "1e-5}}, \"vary\": [{\"path\": \"/height\", \"values\": [");
	for (i = 0; i < 1001; i++)
		len += (size_t)sprintf(body + len, "%s%d", i ? "," : "", i % 10);
	strcpy(body + len, "]}]}");
	tsvc_expect_error(SVC_SWEEP, body, strlen(body), NULL, ERR_TOO_LARGE, "/vary");
	free(body);
}
END_TEST

/* The canonical text of a and b must be identical. */
static void assert_same_canonical(enum svc_endpoint ep, const char *a, const char *b)
{
	char *ta = tsvc_canonical_text(ep, a), *tb = tsvc_canonical_text(ep, b);

	ck_assert_msg(strcmp(ta, tb) == 0, "different canonical text:\n%s%s", ta, tb);
	free(ta);
	free(tb);
}

START_TEST(canonical_text_ignores_spelling)
{
	/* permuted keys, 1 vs 1.0, whitespace */
	assert_same_canonical(SVC_DROP,
	    "{\"body\": {\"mass\": 1, \"shape\": \"box\"}, \"geom\": {\"solref\": [0.02, 1]}}",
	    "{\"geom\":{\"solref\":[0.02,1.0]},\"body\":{\"shape\":\"box\",\"mass\":1.0}}");
	/* a cube's scalar size and [h, h, h] */
	assert_same_canonical(
	    SVC_REST, "{\"body\": {\"size\": 0.05}}", "{\"body\": {\"size\": [0.05, 0.05, 0.05]}}");
	/* a sphere's [r, x, y] (MJCF) and r */
	assert_same_canonical(SVC_REST,
	    "{\"body\": {\"shape\": \"sphere\", \"size\": [0.1, 7, 7]}}",
	    "{\"body\": {\"shape\": \"sphere\", \"size\": 0.1}}");
	/* omitted and explicit defaults; condim 3 and 3.0 */
	assert_same_canonical(SVC_DROP, "{}",
	    "{\"body\": {\"shape\": \"box\", \"size\": 0.05, \"mass\": 1},"
	    " \"geom\": {\"solref\": [0.02, 1], \"solimp\": [0.9, 0.95, 0.001, 0.5, 2],"
	    " \"condim\": 3.0, \"friction\": [1, 0.005, 0.0001], \"margin\": 0, \"gap\": 0,"
	    " \"solmix\": 1, \"priority\": 0}, \"floor\": {},"
	    " \"option\": {\"timestep\": 0.002, \"refsafe\": true, \"gravity\": 9.81,"
	    " \"impratio\": 1, \"integrator\": \"Euler\", \"cone\": \"pyramidal\"},"
	    " \"height\": 0.1, \"duration\": 2}");
	assert_same_canonical(SVC_REST, "{}", "{\"height\": 0, \"geom\": {}}");
	assert_same_canonical(SVC_STABILITY, "{}",
	    "{\"solref\": [0.02, 1], \"solimp\": [0.9, 0.95, 0.001, 0.5, 2], \"impedance\": 0.95,"
	    " \"option\": {\"timestep\": 0.002, \"refsafe\": true, \"integrator\": \"Euler\"}}");
	/* the linearized spring has no cone: either one is the same question */
	assert_same_canonical(SVC_STABILITY, "{\"option\": {\"cone\": \"elliptic\"}}",
	    "{\"option\": {\"cone\": \"pyramidal\"}}");
	/* the default impedance is solimp's dwidth after MuJoCo's clamp to [1e-4, 0.9999] */
	assert_same_canonical(SVC_STABILITY, "{\"solimp\": [0.9, 1.5, 0.001, 0.5, 2]}",
	    "{\"solimp\": [0.9, 1.5, 0.001, 0.5, 2], \"impedance\": 0.9999}");
	assert_same_canonical(SVC_EVAL,
	    "{\"function\": \"solref_kb\", \"args\": {\"solref\": [0.02, 1], \"dmax\": 0.95, "
	    "\"h\": 0.002}}",
	    "{\"args\": {\"refsafe\": true, \"h\": 0.002, \"dmax\": 0.95, \"solref\": [0.02, 1.0]},"
	    " \"function\": \"solref_kb\"}");
	assert_same_canonical(SVC_SWEEP,
	    "{\"query\": \"rest\", \"vary\": [{\"path\": \"/body/mass\", \"values\": [1, 2]}]}",
	    "{\"vary\": [{\"values\": [1.0, 2.0], \"path\": \"/body/mass\"}], \"base\": {},"
	    " \"query\": \"rest\"}");
}
END_TEST

START_TEST(canonical_text_form)
{
	char *text = tsvc_canonical_text(SVC_DROP, "{\"body\": {\"mass\": 2}}");
	char *again;

	/* compact, sorted keys, every real printed shortest, the integers (condim, priority)
	 * as integers, newline-terminated */
	ck_assert_str_eq(text,
	    "{\"body\":{\"mass\":2.0,\"shape\":\"box\",\"size\":[0.05,0.05,0.05]},\"duration\":2.0,"
	    "\"floor\":{},\"geom\":{\"condim\":3,\"friction\":[1.0,0.005,0.0001],\"gap\":0.0,"
	    "\"margin\":0.0,\"priority\":0,\"solimp\":[0.9,0.95,0.001,0.5,2.0],\"solmix\":1.0,"
	    "\"solref\":[0.02,1.0]},\"height\":0.1,\"option\":{\"cone\":\"pyramidal\","
	    "\"gravity\":9.81,\"impratio\":1.0,\"integrator\":\"Euler\",\"mujoco\":\"3.14.0\","
	    "\"refsafe\":true,"
	    "\"timestep\":0.002}}\n");
	/* canonical of canonical is itself */
	again = tsvc_canonical_text(SVC_DROP, text);
	ck_assert_str_eq(again, text);
	free(again);
	free(text);
	/* the elliptic cone is kept: it is another question */
	text = tsvc_canonical_text(SVC_REST, "{\"option\": {\"cone\": \"elliptic\"}}");
	ck_assert_ptr_nonnull(strstr(text, "\"cone\":\"elliptic\""));
	again = tsvc_canonical_text(SVC_REST, text);
	ck_assert_str_eq(again, text);
	free(again);
	free(text);
}
END_TEST

START_TEST(floor_takes_the_body_geoms_value_field_by_field)
{
	json_t *canonical, *floor, *answer;
	double K_geom_only, K_floor_solimp, K_mixed;

	/* the floor sets solimp only: its solref is the body geom's (0.01, 1) */
	canonical = tsvc_canonical(SVC_REST,
	    "{\"geom\": {\"solref\": [0.01, 1]}, \"floor\": {\"solimp\": [0.9, 0.95, 0.001, 0.5, "
	    "2]}}");
	floor = json_object_get(canonical, "floor");
	ck_assert_int_eq(json_object_size(floor), 1);
	ck_assert_ptr_nonnull(json_object_get(floor, "solimp"));
	json_decref(canonical);

	answer = tsvc_answer(SVC_REST, "{\"geom\": {\"solref\": [0.01, 1]}}", NULL);
	K_geom_only = tsvc_real(answer, "K");
	json_decref(answer);
	answer = tsvc_answer(SVC_REST,
	    "{\"geom\": {\"solref\": [0.01, 1]}, \"floor\": {\"solimp\": [0.9, 0.95, 0.001, 0.5, "
	    "2]}}",
	    NULL);
	K_floor_solimp = tsvc_real(answer, "K");
	json_decref(answer);
	/* a floor solref of its own is averaged with the geom's (solmix 1:1): (0.02, 1) */
	answer = tsvc_answer(SVC_REST,
	    "{\"geom\": {\"solref\": [0.01, 1]}, \"floor\": {\"solref\": [0.03, 1]}}", NULL);
	K_mixed = tsvc_real(answer, "K");
	json_decref(answer);

	/* K = 1/(dmax^2 tc^2 dr^2) (spec §5.3), dmax = 0.95; 1e-12 relative: a few roundings */
	ck_assert_double_eq_tol(K_geom_only, 1 / (0.95 * 0.95 * 0.01 * 0.01), 1e-12 * K_geom_only);
	ck_assert_double_eq(K_floor_solimp, K_geom_only);
	ck_assert_double_eq_tol(K_mixed, 1 / (0.95 * 0.95 * 0.02 * 0.02), 1e-12 * K_mixed);
}
END_TEST

START_TEST(error_names_and_statuses)
{
	struct err e;
	json_t *body;
	char long_key[400];

	ck_assert_str_eq(err_name(ERR_BAD_VALUE), "bad_value");
	/* the statuses of the codes: tests/test_http.c (the HTTP layer's status.h) */

	err_clear(&e);
	ck_assert_int_eq(err_set(&e, ERR_BAD_VALUE, "/body/mass", "must be > %d", 0), -1);
	body = err_to_json(&e);
	ck_assert_str_eq(json_string_value(json_object_get(body, "error")), "bad_value");
	ck_assert_str_eq(json_string_value(json_object_get(body, "message")), "must be > 0");
	ck_assert_str_eq(json_string_value(json_object_get(body, "path")), "/body/mass");
	json_decref(body);

	/* a message truncated inside a multi-byte character stays valid UTF-8 */
	memset(long_key, 'a', sizeof long_key);
	strcpy(long_key + ERR_MESSAGE_MAX - 4, "\xc3\xa9\xc3\xa9\xc3\xa9");
	err_set(&e, ERR_UNKNOWN_FIELD, long_key, "%s", long_key);
	body = err_to_json(&e);
	ck_assert_ptr_nonnull(body);
	json_decref(body);
}
END_TEST

static Suite *request_suite(void)
{
	Suite *s = suite_create("request");
	TCase *tc = tcase_create("validation");

	tcase_add_loop_test(
	    tc, rejects_bad_input, 0, (int)(sizeof bad_cases / sizeof bad_cases[0]));
	tcase_add_test(tc, unknown_field_lists_the_expected_fields);
	tcase_add_test(tc, rejected_numbers_are_quoted_short);
	tcase_add_test(tc, too_deep_names_the_first_container_past_the_limit);
	tcase_add_test(tc, overflow_path_through_arrays_and_escaped_keys);
	tcase_add_test(tc, body_over_the_size_limit);
	tcase_add_test(tc, binary_garbage_is_rejected_not_crashed_on);
	tcase_add_test(tc, limits_on_sweep_points_and_eval_calls);
	tcase_add_test(tc, sweep_over_the_simulated_step_limit);
	tcase_add_test(tc, error_names_and_statuses);
	suite_add_tcase(s, tc);
	tc = tcase_create("canonical");
	tcase_add_test(tc, canonical_text_ignores_spelling);
	tcase_add_test(tc, canonical_text_form);
	tcase_add_test(tc, floor_takes_the_body_geoms_value_field_by_field);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *runner = srunner_create(request_suite());
	int failed;

	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? 0 : 1;
}
