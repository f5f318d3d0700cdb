/*
 * test_openapi.c: the OpenAPI document contactd serves, checked against the real
 * handlers of a running daemon (live.h):
 *   - it is the source file's bytes, OpenAPI 3.0, and documents every endpoint;
 *   - every documented operation exists and every undocumented method is a 405;
 *   - every example request is valid by its schema and answered 200 with a body valid
 *     by the documented answer schema (every field documented, no field missing);
 *   - every documented default is the real default: adding it to a request changes
 *     neither the answer's bytes nor its cache key (the second request is a hit);
 *   - the documented error codes are exactly the service's, and every rejection a
 *     question gets has a documented status and the documented body.
 *
 * The validator covers the JSON Schema subset the document uses: $ref, type,
 * nullable, enum, properties, required, additionalProperties, items, minItems,
 * maxItems, minimum, maximum, exclusiveMinimum (3.0 boolean form) and oneOf.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live.h"
#include "service/error.h"

static struct live_daemon dmn;
static json_t *doc; /* the served document */

static void setup(void)
{
	struct live_reply r;

	live_init(&dmn);
	live_start(&dmn, (char *)NULL);
	live_get(&dmn, "/v1/openapi.json", &r);
	ck_assert_int_eq(r.status, 200);
	doc = live_json(&r);
	live_reply_free(&r);
}

static void teardown(void)
{
	json_decref(doc);
	doc = NULL;
	live_cleanup(&dmn);
}

/* ---- schema validation ---- */

/* The schema s, with a {"$ref": "#/components/schemas/X"} followed. */
static const json_t *deref(const json_t *s)
{
	const char *ref = json_string_value(json_object_get(s, "$ref"));
	static const char prefix[] = "#/components/schemas/";
	const json_t *target;

	if (!ref)
		return s;
	ck_assert_msg(strncmp(ref, prefix, sizeof prefix - 1) == 0, "unsupported $ref %s", ref);
	target = json_object_get(json_object_get(json_object_get(doc, "components"), "schemas"),
	    ref + sizeof prefix - 1);
	ck_assert_msg(target != NULL, "dangling $ref %s", ref);
	return deref(target);
}

static int type_matches(const char *type, const json_t *v)
{
	if (strcmp(type, "object") == 0)
		return json_is_object(v);
	if (strcmp(type, "array") == 0)
		return json_is_array(v);
	if (strcmp(type, "string") == 0)
		return json_is_string(v);
	if (strcmp(type, "boolean") == 0)
		return json_is_boolean(v);
	if (strcmp(type, "integer") == 0)
		return json_is_integer(v);
	if (strcmp(type, "number") == 0)
		return json_is_number(v);
	ck_abort_msg("unsupported type %s", type);
	return 0;
}

/* 0 if v is valid by schema s; else -1 with why (at JSON Pointer at) in why. */
static int validate(const json_t *s, const json_t *v, const char *at, char *why, size_t size);

static int validate_object(const json_t *s, const json_t *v, const char *at, char *why,
    size_t size)
{
	const json_t *props = json_object_get(s, "properties");
	const json_t *extra = json_object_get(s, "additionalProperties");
	const json_t *req = json_object_get(s, "required");
	const char *key;
	json_t *value;
	size_t i;

	for (i = 0; i < json_array_size(req); i++) {
		key = json_string_value(json_array_get(req, i));
		if (!json_object_get(v, key)) {
			snprintf(why, size, "%s: required member \"%s\" is missing", at, key);
			return -1;
		}
	}
	json_object_foreach((json_t *)v, key, value) {
		const json_t *sub = json_object_get(props, key);
		char inner[512];

		snprintf(inner, sizeof inner, "%s/%s", at, key);
		if (!sub && json_is_object(extra))
			sub = extra;
		if (!sub && json_is_false(extra)) {
			snprintf(why, size, "%s: member not in the schema", inner);
			return -1;
		}
		if (sub && validate(sub, value, inner, why, size) < 0)
			return -1;
	}
	return 0;
}

static int validate_number(const json_t *s, const json_t *v, const char *at, char *why,
    size_t size)
{
	const json_t *min = json_object_get(s, "minimum"), *max = json_object_get(s, "maximum");
	int exclusive = json_is_true(json_object_get(s, "exclusiveMinimum"));
	double x = json_number_value(v);

	if (min && (exclusive ? !(x > json_number_value(min)) : !(x >= json_number_value(min)))) {
		snprintf(why, size, "%s: %.17g is below the minimum", at, x);
		return -1;
	}
	if (max && !(x <= json_number_value(max))) {
		snprintf(why, size, "%s: %.17g is over the maximum", at, x);
		return -1;
	}
	return 0;
}

static int validate(const json_t *s, const json_t *v, const char *at, char *why, size_t size)
{
	const json_t *one_of, *enumeration, *items;
	const char *type;
	size_t i, matches = 0;

	s = deref(s);
	if (json_is_null(v) && json_is_true(json_object_get(s, "nullable")))
		return 0;
	one_of = json_object_get(s, "oneOf");
	if (one_of) {
		for (i = 0; i < json_array_size(one_of); i++)
			matches += validate(json_array_get(one_of, i), v, at, why, size) == 0;
		if (matches != 1) {
			snprintf(why, size, "%s: matches %zu of oneOf's schemas, not 1", at,
			    matches);
			return -1;
		}
		return 0;
	}
	type = json_string_value(json_object_get(s, "type"));
	if (type && !type_matches(type, v)) {
		snprintf(why, size, "%s: not of type %s", at, type);
		return -1;
	}
	enumeration = json_object_get(s, "enum");
	if (enumeration) {
		for (i = 0; i < json_array_size(enumeration); i++)
			matches += json_equal(json_array_get(enumeration, i), (json_t *)v);
		if (!matches) {
			snprintf(why, size, "%s: not one of the enum's values", at);
			return -1;
		}
	}
	if (json_is_object(v))
		return validate_object(s, v, at, why, size);
	if (json_is_number(v))
		return validate_number(s, v, at, why, size);
	if (json_is_array(v)) {
		const json_t *lo = json_object_get(s, "minItems");
		const json_t *hi = json_object_get(s, "maxItems");

		if ((lo && json_array_size(v) < (size_t)json_integer_value(lo)) ||
		    (hi && json_array_size(v) > (size_t)json_integer_value(hi))) {
			snprintf(why, size, "%s: %zu items, out of bounds", at, json_array_size(v));
			return -1;
		}
		items = json_object_get(s, "items");
		for (i = 0; items && i < json_array_size(v); i++) {
			char inner[512];

			snprintf(inner, sizeof inner, "%s/%zu", at, i);
			if (validate(items, json_array_get(v, i), inner, why, size) < 0)
				return -1;
		}
	}
	return 0;
}

static void assert_valid(const json_t *schema, const json_t *v, const char *what)
{
	char why[600] = "";

	ck_assert_msg(validate(schema, v, "", why, sizeof why) == 0, "%s: %s", what, why);
}

/* The validator rejects what it should: otherwise the checks below prove nothing. */
START_TEST(validator_rejects)
{
	json_t *error = json_object_get(json_object_get(json_object_get(doc, "components"),
					    "schemas"), "Error");
	json_t *ok = json_pack("{s:s, s:s, s:s}", "error", "bad_json", "message", "m", "path", "");
	json_t *extra = json_pack("{s:s, s:s, s:s, s:i}", "error", "bad_json", "message", "m",
	    "path", "", "x", 1);
	json_t *missing = json_pack("{s:s, s:s}", "error", "bad_json", "message", "m");
	json_t *not_enum =
	    json_pack("{s:s, s:s, s:s}", "error", "nope", "message", "m", "path", "");
	json_t *wrong_type = json_pack("{s:s, s:i, s:s}", "error", "bad_json", "message", 1, "path",
	    "");
	char why[600];

	ck_assert_ptr_nonnull(error);
	assert_valid(error, ok, "a valid error");
	ck_assert_int_eq(validate(error, extra, "", why, sizeof why), -1);
	ck_assert_int_eq(validate(error, missing, "", why, sizeof why), -1);
	ck_assert_int_eq(validate(error, not_enum, "", why, sizeof why), -1);
	ck_assert_int_eq(validate(error, wrong_type, "", why, sizeof why), -1);
	json_decref(ok);
	json_decref(extra);
	json_decref(missing);
	json_decref(not_enum);
	json_decref(wrong_type);
}
END_TEST

/* ---- the document ---- */

START_TEST(served_bytes_are_the_source)
{
	char path[512];
	struct live_reply r;
	size_t len;
	char *text;

	snprintf(path, sizeof path, "%s/src/http/openapi.json", SRCDIR);
	text = live_read_file(path, &len);
	ck_assert_ptr_nonnull(text);
	live_get(&dmn, "/v1/openapi.json", &r);
	ck_assert_str_eq(r.content_type, "application/json");
	ck_assert_uint_eq(r.len, len);
	ck_assert_mem_eq(r.body, text, len);
	ck_assert_int_eq(strncmp(json_string_value(json_object_get(doc, "openapi")), "3.0.", 4), 0);
	live_reply_free(&r);
	free(text);
}
END_TEST

START_TEST(every_endpoint_documented)
{
	static const char *const endpoints[][2] = {
		{"/v1/rest", "post"}, {"/v1/drop", "post"}, {"/v1/stability", "post"},
		{"/v1/sweep", "post"}, {"/v1/eval", "post"}, {"/v1/health", "get"},
		{"/v1/openapi.json", "get"}, {"/metrics", "get"},
	};
	json_t *paths = json_object_get(doc, "paths");
	size_t i;

	for (i = 0; i < sizeof endpoints / sizeof endpoints[0]; i++)
		ck_assert_msg(json_object_get(json_object_get(paths, endpoints[i][0]),
				  endpoints[i][1]) != NULL,
		    "%s %s is not documented", endpoints[i][1], endpoints[i][0]);
}
END_TEST

/* path with its {parameters} replaced by sample values. */
static void concrete_path(const char *templ, char *out, size_t size)
{
	size_t n = 0;

	while (*templ && n + 2 < size) {
		if (*templ == '{') {
			const char *end = strchr(templ, '}');

			out[n++] = '1';
			templ = end ? end + 1 : templ + strlen(templ);
		} else {
			out[n++] = *templ++;
		}
	}
	out[n] = '\0';
}

static int is_calibration(const char *path)
{
	return strncmp(path, "/v1/robots/", 11) == 0 || strncmp(path, "/v1/calibrations/", 17) == 0;
}

static const char *const methods[] = {"get", "post", "put", "delete", "patch"};

static void upper(const char *s, char *out)
{
	while ((*out++ = (char)(*s >= 'a' && *s <= 'z' ? *s - 32 : *s)))
		s++;
}

/* The schema of the 200 answer of operation op (application/json). */
static const json_t *answer_schema(const json_t *op)
{
	return json_object_get(json_object_get(json_object_get(json_object_get(
	    json_object_get(op, "responses"), "200"), "content"), "application/json"), "schema");
}

static const json_t *request_media(const json_t *op)
{
	return json_object_get(json_object_get(json_object_get(op, "requestBody"), "content"),
	    "application/json");
}

/* POST value (as JSON text) to path; the reply. */
static void post_json(const char *path, const json_t *value, const char *const headers[],
    struct live_reply *r)
{
	char *text = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY);

	ck_assert_ptr_nonnull(text);
	live_request(&dmn, "POST", path, headers ? headers : live_json_headers, text, strlen(text),
	    0, r);
	free(text);
}

/* The example named "minimal" of a POST operation (an empty object if none). */
static const json_t *minimal_example(const json_t *op)
{
	static json_t *empty;
	const json_t *v = json_object_get(json_object_get(json_object_get(request_media(op),
	    "examples"), "minimal"), "value");

	if (!v && !empty)
		empty = json_object();
	return v ? v : empty;
}

/*
 * Every documented operation answers (a calibration one, asked without a token, with
 * the 401 every calibration route gives); every other method on a documented path
 * of the daemon's own is a 405.
 */
START_TEST(documented_operations_exist)
{
	json_t *paths = json_object_get(doc, "paths"), *item;
	const char *templ;

	json_object_foreach(paths, templ, item) {
		char path[256];
		size_t m;

		concrete_path(templ, path, sizeof path);
		for (m = 0; m < sizeof methods / sizeof methods[0]; m++) {
			const json_t *op = json_object_get(item, methods[m]);
			int documented = op != NULL;
			char method[16];
			struct live_reply r;

			upper(methods[m], method);
			if (!documented && is_calibration(templ))
				continue; /* the calibration layer's own routing */
			if (documented && strcmp(method, "POST") == 0)
				post_json(path, minimal_example(op), NULL, &r);
			else
				live_request(&dmn, method, path, live_json_headers, "{}", 2, 0, &r);
			if (!documented)
				live_assert_error(&r, 405, "method_not_allowed", "");
			else if (is_calibration(templ))
				live_assert_error(&r, 401, "unauthorized", NULL);
			else
				ck_assert_msg(r.status == 200, "%s %s: %ld %s", method, path,
				    r.status, r.body);
			live_reply_free(&r);
		}
	}
}
END_TEST

/* Every example of the daemon's own POST operations: valid, answered, answer valid. */
START_TEST(examples_answered_as_documented)
{
	static const char *const csv[] = {"Content-Type: application/json", "Accept: text/csv",
	    NULL};
	json_t *paths = json_object_get(doc, "paths"), *item, *example;
	const char *path, *name;
	int examples = 0;

	json_object_foreach(paths, path, item) {
		json_t *op = json_object_get(item, "post");
		const json_t *media = request_media(op);

		if (!op || is_calibration(path))
			continue;
		ck_assert_msg(json_object_size(json_object_get(media, "examples")) >= 2,
		    "%s: document at least a minimal and a fuller example", path);
		json_object_foreach(json_object_get(media, "examples"), name, example) {
			json_t *value = json_object_get(example, "value"), *answer;
			struct live_reply r;
			char what[256];

			snprintf(what, sizeof what, "%s example %s", path, name);
			assert_valid(json_object_get(media, "schema"), value, what);
			post_json(path, value, NULL, &r);
			ck_assert_msg(r.status == 200, "%s: %ld %s", what, r.status, r.body);
			answer = live_json(&r);
			assert_valid(answer_schema(op), answer, what);
			json_decref(answer);
			live_reply_free(&r);
			if (json_object_get(json_object_get(json_object_get(json_object_get(op,
				"responses"), "200"), "content"), "text/csv")) {
				post_json(path, value, csv, &r);
				ck_assert_int_eq(r.status, 200);
				ck_assert_str_eq(r.content_type, "text/csv; charset=utf-8");
				live_reply_free(&r);
			}
			examples++;
		}
	}
	ck_assert_int_ge(examples, 10);
}
END_TEST

/*
 * Set every documented default not given in request (at JSON Pointer at) to its value,
 * one at a time, and check the answer is the same bytes and a cache hit.
 */
static int check_defaults(const char *path, const json_t *schema, json_t *request,
    json_t *root, const char *at, const struct live_reply *expect)
{
	const json_t *props = json_object_get(deref(schema), "properties"), *sub;
	const char *key;
	int checked = 0;

	json_object_foreach((json_t *)props, key, sub) {
		const json_t *def = json_object_get(deref(sub), "default");
		json_t *given = json_object_get(request, key);
		char inner[256];

		snprintf(inner, sizeof inner, "%s/%s", at, key);
		if (def && !given) {
			struct live_reply r;

			json_object_set(request, key, (json_t *)def);
			post_json(path, root, NULL, &r);
			ck_assert_msg(r.status == 200, "%s with %s: %ld %s", path, inner, r.status,
			    r.body);
			ck_assert_msg(r.len == expect->len &&
				memcmp(r.body, expect->body, r.len) == 0,
			    "%s: the documented default of %s is not the real one", path, inner);
			ck_assert_msg(strcmp(r.cache, "hit") == 0,
			    "%s: %s set to its default is not the same question", path, inner);
			live_reply_free(&r);
			json_object_del(request, key);
			checked++;
		}
		/* Into nested objects (given or not): their members' defaults too. */
		if (json_object_get(deref(sub), "properties") &&
		    (!given || json_is_object(given))) {
			json_t *child = given ? given : json_object();

			if (!given)
				json_object_set_new(request, key, child);
			checked += check_defaults(path, sub, child, root, inner, expect);
			if (!given)
				json_object_del(request, key);
		}
	}
	return checked;
}

START_TEST(documented_defaults_are_real)
{
	json_t *paths = json_object_get(doc, "paths"), *item;
	const char *path;
	int checked = 0;

	json_object_foreach(paths, path, item) {
		json_t *op = json_object_get(item, "post");
		const json_t *media = request_media(op);
		json_t *minimal;
		struct live_reply first;

		if (!op || is_calibration(path))
			continue;
		ck_assert_msg(
		    json_object_get(json_object_get(media, "examples"), "minimal") != NULL,
		    "%s: no example named minimal", path);
		minimal = json_deep_copy(minimal_example(op));
		post_json(path, minimal, NULL, &first);
		ck_assert_int_eq(first.status, 200);
		checked += check_defaults(path, json_object_get(media, "schema"), minimal, minimal,
		    "", &first);
		live_reply_free(&first);
		json_decref(minimal);
	}
	/* rest and drop: body 3, geom 8, option 6, height, duration; stability: solref, solimp
	 * and option 3 (impedance's default depends on solimp); sweep: base. */
	ck_assert_int_eq(checked, 2 * 19 + 5 + 1);
}
END_TEST

START_TEST(error_codes_are_the_services)
{
	json_t *codes = json_object_get(json_object_get(json_object_get(json_object_get(
	    json_object_get(doc, "components"), "schemas"), "Error"), "properties"), "error");
	json_t *values = json_object_get(codes, "enum");
	int code;
	size_t i;

	ck_assert_uint_eq(json_array_size(values), ERR_INTERNAL);
	for (code = ERR_NONE + 1; code <= ERR_INTERNAL; code++) {
		int found = 0;

		for (i = 0; i < json_array_size(values); i++)
			found |= strcmp(json_string_value(json_array_get(values, i)),
			    err_name((enum err_code)code)) == 0;
		ck_assert_msg(found, "error code %s is not documented",
		    err_name((enum err_code)code));
	}
}
END_TEST

/* Every kind of rejection a question gets: a documented status, the Error body. */
START_TEST(rejections_documented)
{
	static const char *const no_json[] = {"Content-Type: text/plain", NULL};
	static const char *const want_xml[] = {"Content-Type: application/json",
	    "Accept: application/xml", NULL};
	static const struct {
		const char *const *headers;
		const char *body;
		long status;
	} cases[] = {
		{NULL, "{", 400},
		{NULL, "{\"no_such_field\": 1}", 400},
		{NULL, "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", 400},
		{no_json, "{}", 415},
		{want_xml, "{}", 406},
	};
	static const char *const questions[] = {"/v1/rest", "/v1/drop", "/v1/stability",
	    "/v1/sweep", "/v1/eval"};
	const json_t *error = json_object_get(json_object_get(json_object_get(doc, "components"),
	    "schemas"), "Error");
	size_t q, c;

	for (q = 0; q < sizeof questions / sizeof questions[0]; q++) {
		const json_t *responses = json_object_get(json_object_get(json_object_get(
		    json_object_get(doc, "paths"), questions[q]), "post"), "responses");
		struct live_reply r;
		json_t *body;
		char status[8];

		for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
			live_request(&dmn, "POST", questions[q],
			    cases[c].headers ? cases[c].headers : live_json_headers, cases[c].body,
			    strlen(cases[c].body), 0, &r);
			ck_assert_msg(r.status == cases[c].status, "%s %s: %ld", questions[q],
			    cases[c].body, r.status);
			snprintf(status, sizeof status, "%ld", r.status);
			ck_assert_msg(json_object_get(responses, status) != NULL,
			    "%s: status %s is not documented", questions[q], status);
			body = live_json(&r);
			assert_valid(error, body, questions[q]);
			json_decref(body);
			live_reply_free(&r);
		}
		live_get(&dmn, questions[q], &r);
		ck_assert_ptr_nonnull(json_object_get(responses, "405"));
		live_assert_error(&r, 405, "method_not_allowed", "");
		live_reply_free(&r);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("openapi");
	TCase *tc = tcase_create("openapi");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, validator_rejects);
	tcase_add_test(tc, served_bytes_are_the_source);
	tcase_add_test(tc, every_endpoint_documented);
	tcase_add_test(tc, documented_operations_exist);
	tcase_add_test(tc, examples_answered_as_documented);
	tcase_add_test(tc, documented_defaults_are_real);
	tcase_add_test(tc, error_codes_are_the_services);
	tcase_add_test(tc, rejections_documented);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
