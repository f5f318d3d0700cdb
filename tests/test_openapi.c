/*
 * test_openapi.c: the OpenAPI document contactd serves, checked against the real
 * handlers of a running daemon (live.h):
 *   - it is the assembled file's bytes (src/http/openapi.json in the build tree, made from
 *     the parts in src/http/openapi/), holds every part's paths and schemas, is
 *     OpenAPI 3.0, and documents every endpoint;
 *   - every documented operation exists and every undocumented method is a 405;
 *   - every example request is valid by its schema and answered 200 with a body valid
 *     by the documented answer schema (every field documented, no field missing);
 *   - every documented default is the real default: adding it to a request changes
 *     neither the answer's bytes nor its cache key (the second request is a hit);
 *   - the documented error codes are exactly the service's, and every rejection a
 *     question gets has a documented status and the documented body;
 *   - the calibration endpoints likewise, with a robot's bearer token made by
 *     `contactd token create` (robot.h): every example answered with its documented
 *     status and a valid answer, every documented member of every answer met in a real
 *     one, every default the real one (the same setup, the same fit), every documented
 *     field's wrong type, non-finite value, value just beyond a documented bound and
 *     unknown sibling rejected at its path while a value on the bound passes, and every
 *     kind of rejection (token, path, method, size, value) documented.
 *
 * The validator covers the JSON Schema subset the document uses: $ref, type,
 * nullable, enum, properties, required, additionalProperties, items, minItems,
 * maxItems, minLength, maxLength, minimum, maximum, exclusiveMinimum (3.0 boolean
 * form) and oneOf. It ignores annotations and the keywords it cannot check (pattern,
 * format).
 */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live.h"
#include "robot.h"
#include "base/error.h"
#include "service/service.h"
#include "core/knobs.h"
#include "service/knobs.h"

static struct live_daemon dmn;
static json_t *doc; /* the served document */

/* Start the daemon made ready by live_init() and fetch its document. */
static void start(void)
{
	struct live_reply r;

	live_start(&dmn, (char *)NULL);
	live_get(&dmn, "/v1/openapi.json", &r);
	ck_assert_int_eq(r.status, 200);
	doc = live_json(&r);
	live_reply_free(&r);
}

static void setup(void)
{
	live_init(&dmn);
	start();
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

/*
 * The property schemas some validated object had a member for: what the answers of a
 * test have shown of the document (assert_covered()).
 */
static const json_t *seen[1024];
static size_t seen_count;

static int was_seen(const json_t *property)
{
	size_t i;

	for (i = 0; i < seen_count; i++)
		if (seen[i] == property)
			return 1;
	return 0;
}

static void note_seen(const json_t *property)
{
	if (was_seen(property))
		return;
	ck_assert_uint_lt(seen_count, sizeof seen / sizeof seen[0]);
	seen[seen_count++] = property;
}

/* 0 if v is valid by schema s; else -1 with why (at JSON Pointer at) in why. */
static int validate(const json_t *s, const json_t *v, const char *at, char *why, size_t size);

static int validate_object(const json_t *s, const json_t *v, const char *at, char *why, size_t size)
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
	json_object_foreach ((json_t *)v, key, value) {
		const json_t *sub = json_object_get(props, key);
		char inner[512];

		snprintf(inner, sizeof inner, "%s/%s", at, key);
		if (sub)
			note_seen(sub);
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

static int validate_number(const json_t *s, const json_t *v, const char *at, char *why, size_t size)
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
			snprintf(
			    why, size, "%s: matches %zu of oneOf's schemas, not 1", at, matches);
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
	if (json_is_string(v)) {
		const json_t *lo = json_object_get(s, "minLength");
		const json_t *hi = json_object_get(s, "maxLength");
		size_t len = json_string_length(v); /* bytes: the bounded strings are ASCII */

		if ((lo && len < (size_t)json_integer_value(lo)) ||
		    (hi && len > (size_t)json_integer_value(hi))) {
			snprintf(why, size, "%s: %zu characters, out of bounds", at, len);
			return -1;
		}
	}
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
	json_t *error = json_object_get(
	    json_object_get(json_object_get(doc, "components"), "schemas"), "Error");
	json_t *ok = json_pack("{s:s, s:s, s:s}", "error", "bad_json", "message", "m", "path", "");
	json_t *extra = json_pack(
	    "{s:s, s:s, s:s, s:i}", "error", "bad_json", "message", "m", "path", "", "x", 1);
	json_t *missing = json_pack("{s:s, s:s}", "error", "bad_json", "message", "m");
	json_t *not_enum =
	    json_pack("{s:s, s:s, s:s}", "error", "nope", "message", "m", "path", "");
	json_t *wrong_type =
	    json_pack("{s:s, s:i, s:s}", "error", "bad_json", "message", 1, "path", "");
	json_t *short_string = json_pack("{s:s, s:i}", "type", "string", "maxLength", 2);
	json_t *too_long = json_string("abc");
	char why[600];

	ck_assert_ptr_nonnull(error);
	assert_valid(error, ok, "a valid error");
	ck_assert_int_eq(validate(error, extra, "", why, sizeof why), -1);
	ck_assert_int_eq(validate(error, missing, "", why, sizeof why), -1);
	ck_assert_int_eq(validate(error, not_enum, "", why, sizeof why), -1);
	ck_assert_int_eq(validate(error, wrong_type, "", why, sizeof why), -1);
	ck_assert_int_eq(validate(short_string, too_long, "", why, sizeof why), -1);
	json_decref(short_string);
	json_decref(too_long);
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

	snprintf(path, sizeof path, "%s", OPENAPI_JSON);
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

/* Whether every member of the part's section (a JSON object) is in the document's. */
static void part_members_served(const char *part, const json_t *section, const json_t *served)
{
	const char *key;
	json_t *value;

	json_object_foreach ((json_t *)section, key, value)
		ck_assert_msg(json_object_get(served, key) != NULL,
		    "%s: %s is not in the served document", part, key);
}

/* Every part in src/http/openapi/ is a JSON object whose paths and schemas are served,
 * whether src/http/local.mk's OPENAPI_PARTS lists it or not (an unlisted part follows). */
START_TEST(every_part_is_served)
{
	const json_t *components = json_object_get(doc, "components");
	char dir[512], path[1024];
	struct dirent *entry;
	size_t parts = 0, len;
	DIR *d;

	snprintf(dir, sizeof dir, "%s/src/http/openapi", SRCDIR);
	d = opendir(dir);
	ck_assert_msg(d != NULL, "cannot open %s", dir);
	while ((entry = readdir(d)) != NULL) {
		json_error_t error;
		json_t *part, *part_components;

		len = strlen(entry->d_name);
		if (len < 6 || strcmp(entry->d_name + len - 5, ".json") != 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, entry->d_name);
		part = json_load_file(path, 0, &error);
		ck_assert_msg(json_is_object(part), "%s: %s", entry->d_name, error.text);
		part_members_served(
		    entry->d_name, json_object_get(part, "paths"), json_object_get(doc, "paths"));
		part_components = json_object_get(part, "components");
		part_members_served(entry->d_name, json_object_get(part_components, "schemas"),
		    json_object_get(components, "schemas"));
		part_members_served(entry->d_name,
		    json_object_get(part_components, "securitySchemes"),
		    json_object_get(components, "securitySchemes"));
		json_decref(part);
		parts++;
	}
	closedir(d);
	ck_assert_uint_gt(parts, 1);
}
END_TEST

/* Every answer field is defined (issue #17): each property of the question endpoints'
 * answers has a description, and each real-valued one names its unit, or says it has
 * none (dimensionless, a release's text), or that it takes another field's. */
START_TEST(answer_fields_defined_with_units)
{
	static const char *const answers[] = {"RestAnswer", "DropAnswer", "StabilityAnswer",
	    "SweepAnswer", "FindAnswer", "EvalResult", "CalibrationHold"};
	static const char *const units[] = {"(m", "m)", "(N)", "(s", "s)", "1/s", "m/s",
	    "dimensionless", "unit", "the field's", "path's", NULL};
	json_t *schemas = json_object_get(json_object_get(doc, "components"), "schemas");
	const char *key, *text, *type;
	json_t *property;
	size_t i, u;

	for (i = 0; i < sizeof answers / sizeof answers[0]; i++) {
		json_t *props = json_object_get(json_object_get(schemas, answers[i]), "properties");

		ck_assert_msg(json_object_size(props) > 0, "%s has no properties", answers[i]);
		json_object_foreach (props, key, property) {
			text = json_string_value(json_object_get(property, "description"));
			ck_assert_msg(
			    text && strlen(text) >= 10, "%s.%s is not defined", answers[i], key);
			type = json_string_value(json_object_get(property, "type"));
			if (!type || strcmp(type, "number") != 0)
				continue;
			for (u = 0; units[u] && !strstr(text, units[u]); u++)
				;
			ck_assert_msg(units[u], "%s.%s names no unit: %s", answers[i], key, text);
		}
	}
}
END_TEST

/* The schema of POST path's 200 answer (application/json), dereferenced. */
static const json_t *post_answer(const char *path)
{
	const json_t *op =
	    json_object_get(json_object_get(json_object_get(doc, "paths"), path), "post");
	const json_t *ok = json_object_get(json_object_get(op, "responses"), "200");

	return deref(json_object_get(
	    json_object_get(json_object_get(ok, "content"), "application/json"), "schema"));
}

/* The rows' units are the document's: a field has a unit exactly when it is a number, and
 * its description names that unit, "(UNIT)" or "(UNIT, ...", or "(dimensionless" for a
 * pure number. */
START_TEST(answer_units_are_the_rows)
{
	char url[128], named[64], listed[64];
	size_t e, i;

	for (e = 0; e < SVC_ENDPOINT_COUNT; e++) {
		const struct svc_endpoint_def *row = svc_endpoints[e];
		const json_t *answer, *props;

		if (!row->fields)
			continue;
		snprintf(url, sizeof url, "/v1/%s", row->name);
		answer = post_answer(url);
		props = json_object_get(answer, "properties");
		for (i = 0; row->fields[i].name; i++) {
			const struct svc_field *f = &row->fields[i];
			const json_t *p = json_object_get(props, f->name);
			const char *type = json_string_value(json_object_get(p, "type"));
			const char *text = json_string_value(json_object_get(p, "description"));

			ck_assert_msg(p && type, "%s.%s is not documented", row->name, f->name);
			ck_assert_msg((f->unit != NULL) == (strcmp(type, "number") == 0),
			    "%s.%s: unit %s, but the document's type is %s", row->name, f->name,
			    f->unit ? f->unit : "none", type);
			if (!f->unit)
				continue;
			snprintf(
			    named, sizeof named, "(%s)", f->unit[0] ? f->unit : "dimensionless");
			snprintf(
			    listed, sizeof listed, "(%s,", f->unit[0] ? f->unit : "dimensionless");
			ck_assert_msg(text && (strstr(text, named) || strstr(text, listed)),
			    "%s.%s: the description does not name the row's unit %s: %s", row->name,
			    f->name, named, text);
		}
	}
}
END_TEST

START_TEST(every_endpoint_documented)
{
	static const char *const endpoints[][2] = {
	    {"/v1/rest", "post"},
	    {"/v1/drop", "post"},
	    {"/v1/stability", "post"},
	    {"/v1/sweep", "post"},
	    {"/v1/eval", "post"},
	    {"/v1/find", "post"},
	    {"/v1/health", "get"},
	    {"/v1/openapi.json", "get"},
	    {"/metrics", "get"},
	    {"/v1/robots/{robot}/calibrations", "post"},
	    {"/v1/robots/{robot}/calibrations", "get"},
	    {"/v1/calibrations/{id}", "get"},
	    {"/v1/calibrations/{id}/measurements", "post"},
	    {"/v1/calibrations/{id}/events", "get"},
	};
	json_t *paths = json_object_get(doc, "paths");
	size_t i;

	for (i = 0; i < sizeof endpoints / sizeof endpoints[0]; i++)
		ck_assert_msg(json_object_get(
		                  json_object_get(paths, endpoints[i][0]), endpoints[i][1]) != NULL,
		    "%s %s is not documented", endpoints[i][1], endpoints[i][0]);
}
END_TEST

/* The schema's property at name in components/schemas/schema. */
static const json_t *schema_property(const char *schema, const char *name)
{
	const json_t *schemas = json_object_get(json_object_get(doc, "components"), "schemas");

	return json_object_get(
	    json_object_get(deref(json_object_get(schemas, schema)), "properties"), name);
}

/* Whether text names alias: the word, then " (" or ",". */
static int names_alias(const char *text, const char *alias)
{
	size_t len = strlen(alias);
	const char *at;

	for (at = strstr(text, alias); at; at = strstr(at + 1, alias))
		if ((at == text || at[-1] == ' ') &&
		    (at[len] == ',' || strncmp(at + len, " (", 2) == 0))
			return 1;
	return 0;
}

/* Whether text gives pointer: itself, or its array as a range ("/geom/solimp/0..4"). */
static int names_pointer(const char *text, const char *pointer)
{
	const char *slash = strrchr(pointer, '/');
	char range[128];
	const char *at;
	size_t len = strlen(pointer);

	/* the whole pointer, not the tail of a longer one ("/friction" in "/geom/friction/0") */
	for (at = strstr(text, pointer); at; at = strstr(at + 1, pointer))
		if (at > text && (at[-1] == '(' || at[-1] == ' ') && strchr(");,. ", at[len]))
			return 1;
	snprintf(range, sizeof range, "%.*s/0..", (int)(slash - pointer), pointer);
	return strstr(text, range) != NULL;
}

/*
 * The parts of the document the endpoint table decides: the sweep's and the find's
 * query enums are the sweepable rows (those with a kind), in the table's order, and the
 * descriptions of their paths name every alias of every kind with its pointer.
 */
START_TEST(question_enums_and_aliases_are_the_tables)
{
	static const char *const paths[][2] = {{"SweepRequest", NULL}, {"FindRequest", "path"}};
	const json_t *vary_path = json_object_get(
	    json_object_get(
	        json_object_get(schema_property("SweepRequest", "vary"), "items"), "properties"),
	    "path");
	size_t e, q, count;

	for (q = 0; q < 2; q++) {
		const json_t *values =
		    json_object_get(schema_property(paths[q][0], "query"), "enum");
		const char *text = json_string_value(json_object_get(
		    q == 0 ? vary_path : schema_property(paths[q][0], paths[q][1]), "description"));

		ck_assert_msg(values && text, "%s: no query enum or path description", paths[q][0]);
		for (e = 0, count = 0; e < SVC_ENDPOINT_COUNT; e++) {
			const struct ans_kind *kind = svc_endpoints[e]->kind;
			const struct ans_alias *a;

			if (!kind)
				continue;
			ck_assert_msg(count < json_array_size(values) &&
			        strcmp(json_string_value(json_array_get(values, count)),
			            svc_endpoints[e]->name) == 0,
			    "%s: query %zu is not %s, the table's sweepable row", paths[q][0],
			    count, svc_endpoints[e]->name);
			count++;
			for (a = kind->aliases; a->name; a++) {
				ck_assert_msg(names_alias(text, a->name),
				    "%s: alias %s undocumented", paths[q][0], a->name);
				ck_assert_msg(names_pointer(text, a->pointer),
				    "%s: %s's pointer %s undocumented", paths[q][0], a->name,
				    a->pointer);
			}
		}
		ck_assert_uint_eq(count, json_array_size(values));
	}
}
END_TEST

/*
 * The service's endpoint table, the daemon's routes, its metrics labels and the
 * document agree: every row is a documented POST /v1/NAME with operationId NAME that
 * the daemon answers (and turns GET away from with 405), whose documented answer has
 * exactly the row's fields in the row's order, whose CSV offer and sweepability are
 * the row's, and whose name labels the cache metrics; and every documented question
 * (a POST /v1/NAME with no further path) is a row.
 */
START_TEST(endpoint_table_agrees)
{
	const json_t *paths = json_object_get(doc, "paths"), *sweep_query, *value;
	const json_t *sweep_props = json_object_get(
	    deref(json_object_get(
	        json_object_get(json_object_get(doc, "components"), "schemas"), "SweepRequest")),
	    "properties");
	struct live_reply r;
	char url[128], label[160];
	const char *key;
	char *metrics;
	size_t e, i;

	sweep_query = json_object_get(json_object_get(sweep_props, "query"), "enum");
	ck_assert_ptr_nonnull(sweep_query);
	for (e = 0; e < SVC_ENDPOINT_COUNT; e++) {
		const struct svc_endpoint_def *row = svc_endpoints[e];
		const json_t *op, *ok, *answer, *examples, *example, *props, *required;
		int in_sweep = 0;

		snprintf(url, sizeof url, "/v1/%s", row->name);
		ck_assert_str_eq(svc_endpoint_name((enum svc_endpoint)e), row->name);
		ck_assert_ptr_nonnull(row->summary);
		op = json_object_get(json_object_get(paths, url), "post");
		ck_assert_msg(op != NULL, "row %s: POST %s is not documented", row->name, url);
		ck_assert_str_eq(json_string_value(json_object_get(op, "operationId")), row->name);
		ok = json_object_get(
		    json_object_get(json_object_get(op, "responses"), "200"), "content");
		ck_assert_msg((json_object_get(ok, "text/csv") != NULL) == (row->csv != 0),
		    "row %s: CSV offered %d, documented otherwise", row->name, row->csv);
		answer = deref(json_object_get(json_object_get(ok, "application/json"), "schema"));
		if (row->fields) {
			props = json_object_get(answer, "properties");
			required = json_object_get(answer, "required");
			for (i = 0; row->fields[i].name; i++) {
				ck_assert_msg(i < json_array_size(required) &&
				        strcmp(json_string_value(json_array_get(required, i)),
				            row->fields[i].name) == 0,
				    "row %s: field %zu (%s) is not required %zu in the document",
				    row->name, i, row->fields[i].name, i);
				ck_assert_msg(json_object_get(props, row->fields[i].name) != NULL,
				    "row %s: field %s undocumented", row->name,
				    row->fields[i].name);
			}
			ck_assert_uint_eq(i, json_array_size(required));
			/* a sweep's plot draws the row's headline first */
			ck_assert_msg(row->kind ? row->headline &&
			            json_string_value(json_object_get(answer, "x-headline")) &&
			            strcmp(json_string_value(json_object_get(answer, "x-headline")),
			                row->headline) == 0
			                        : !json_object_get(answer, "x-headline"),
			    "row %s: x-headline is not the row's headline", row->name);
			/* beyond the fields, only what a request asks for: drop's trajectory */
			ck_assert_uint_eq(json_object_size(props) - i,
			    strcmp(row->name, "drop") == 0 && json_object_get(props, "trajectory"));
		}
		json_array_foreach (sweep_query, i, value)
			in_sweep |= strcmp(json_string_value(value), row->name) == 0;
		ck_assert_msg(in_sweep == (row->kind != NULL),
		    "row %s: sweepable %d, but the document's sweep query says %d", row->name,
		    row->kind != NULL, in_sweep);
		/* the route exists: the documented example is answered, GET is a 405 */
		examples = json_object_get(
		    json_object_get(json_object_get(json_object_get(op, "requestBody"), "content"),
		        "application/json"),
		    "examples");
		example = json_object_get(
		    json_object_iter_value(json_object_iter((json_t *)examples)), "value");
		ck_assert_ptr_nonnull(example);
		{
			char *body = json_dumps(example, JSON_COMPACT);

			live_post(&dmn, url, body, &r);
			free(body);
		}
		ck_assert_msg(
		    r.status == 200, "row %s: POST %s answered %ld", row->name, url, r.status);
		live_reply_free(&r);
		live_get(&dmn, url, &r);
		live_assert_error(&r, 405, "method_not_allowed", "");
		live_reply_free(&r);
	}
	/* every documented question is a row */
	json_object_foreach ((json_t *)paths, key, value) {
		enum svc_endpoint ep;
		struct err err;

		if (strncmp(key, "/v1/", 4) != 0 || strchr(key + 4, '/') || strchr(key, '{') ||
		    !json_object_get(value, "post"))
			continue;
		ck_assert_msg(svc_endpoint_parse(key + 4, &ep, &err) == 0,
		    "POST %s is documented but no row of the endpoint table", key);
	}
	/* the metrics label every row's cache counters, and label nothing else as cached.
	 * A request is counted when libmicrohttpd reports it completed, which may be just
	 * after its client has read the answer: wait (bounded) until every row's 200 is
	 * counted, then assert. */
	{
		double deadline = live_now() + 5.0;
		size_t counted;

		for (metrics = NULL;; free(metrics)) {
			live_get(&dmn, "/metrics", &r);
			ck_assert_int_eq(r.status, 200);
			metrics = strndup(r.body, r.len);
			live_reply_free(&r);
			ck_assert_ptr_nonnull(metrics);
			for (counted = 0; counted < SVC_ENDPOINT_COUNT; counted++) {
				snprintf(label, sizeof label,
				    "contactd_http_requests_total{route=\"%s\",code=\"200\"}",
				    svc_endpoints[counted]->name);
				if (!strstr(metrics, label))
					break;
			}
			if (counted == SVC_ENDPOINT_COUNT || live_now() > deadline)
				break;
			usleep(10000);
		}
	}
	for (e = 0; e < SVC_ENDPOINT_COUNT; e++) {
		snprintf(label, sizeof label, "contactd_cache_misses_total{route=\"%s\"} ",
		    svc_endpoints[e]->name);
		ck_assert_msg(strstr(metrics, label) != NULL, "no metrics label %s", label);
		snprintf(label, sizeof label,
		    "contactd_http_requests_total{route=\"%s\",code=\"200\"}",
		    svc_endpoints[e]->name);
		ck_assert_msg(strstr(metrics, label) != NULL, "no metrics label %s", label);
	}
	{
		const char *line = metrics;
		size_t rows = 0;

		while ((line = strstr(line, "contactd_cache_misses_total{")) != NULL) {
			line++;
			rows++;
		}
		ck_assert_uint_eq(rows, SVC_ENDPOINT_COUNT);
	}
	free(metrics);
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

/* The schema of operation op's answer of status (application/json). */
static const json_t *response_schema(const json_t *op, const char *status)
{
	const json_t *s = json_object_get(
	    json_object_get(
	        json_object_get(
	            json_object_get(json_object_get(op, "responses"), status), "content"),
	        "application/json"),
	    "schema");

	ck_assert_msg(s != NULL, "no schema of the %s answer", status);
	return s;
}

static const json_t *request_media(const json_t *op)
{
	return json_object_get(
	    json_object_get(json_object_get(op, "requestBody"), "content"), "application/json");
}

/* POST value (as JSON text) to path; the reply. */
static void post_json(
    const char *path, const json_t *value, const char *const headers[], struct live_reply *r)
{
	char *text = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY);

	ck_assert_ptr_nonnull(text);
	live_request(
	    &dmn, "POST", path, headers ? headers : live_json_headers, text, strlen(text), 0, r);
	free(text);
}

/* The example named "minimal" of a POST operation (an empty object if none). */
static const json_t *minimal_example(const json_t *op)
{
	static json_t *empty;
	const json_t *v = json_object_get(
	    json_object_get(json_object_get(request_media(op), "examples"), "minimal"), "value");

	if (!v && !empty)
		empty = json_object();
	return v ? v : empty;
}

/*
 * Every documented operation answers (a calibration one, asked without a token, with
 * the 401 every calibration route gives); every other method on a documented path is
 * a 405.
 */
START_TEST(documented_operations_exist)
{
	json_t *paths = json_object_get(doc, "paths"), *item;
	const char *templ;

	json_object_foreach (paths, templ, item) {
		char path[256];
		size_t m;

		concrete_path(templ, path, sizeof path);
		for (m = 0; m < sizeof methods / sizeof methods[0]; m++) {
			const json_t *op = json_object_get(item, methods[m]);
			int documented = op != NULL;
			char method[16];
			struct live_reply r;

			upper(methods[m], method);
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
	static const char *const csv[] = {
	    "Content-Type: application/json", "Accept: text/csv", NULL};
	json_t *paths = json_object_get(doc, "paths"), *item, *example;
	const char *path, *name;
	int examples = 0;

	json_object_foreach (paths, path, item) {
		json_t *op = json_object_get(item, "post");
		const json_t *media = request_media(op);

		if (!op || is_calibration(path))
			continue;
		ck_assert_msg(json_object_size(json_object_get(media, "examples")) >= 2,
		    "%s: document at least a minimal and a fuller example", path);
		json_object_foreach (json_object_get(media, "examples"), name, example) {
			json_t *value = json_object_get(example, "value"), *answer;
			struct live_reply r;
			char what[256];

			snprintf(what, sizeof what, "%s example %s", path, name);
			assert_valid(json_object_get(media, "schema"), value, what);
			post_json(path, value, NULL, &r);
			ck_assert_msg(r.status == 200, "%s: %ld %s", what, r.status, r.body);
			answer = live_json(&r);
			assert_valid(response_schema(op, "200"), answer, what);
			json_decref(answer);
			live_reply_free(&r);
			if (json_object_get(
			        json_object_get(
			            json_object_get(json_object_get(op, "responses"), "200"),
			            "content"),
			        "text/csv")) {
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

/* Called once request root has the member at JSON Pointer at set to its documented default. */
typedef void (*default_fn)(json_t *root, const char *at, void *ctx);

/*
 * Set every documented default of schema s that v (an object within root, at JSON Pointer
 * at) does not give to its value, one at a time, and call check each time; so also in
 * nested objects (given or not) and in the first element of a given array of objects.
 * Returns the number of checks.
 */
static int each_default(
    const json_t *s, json_t *v, json_t *root, const char *at, default_fn check, void *ctx)
{
	const json_t *props = json_object_get(deref(s), "properties"), *sub;
	const char *key;
	int checked = 0;

	json_object_foreach ((json_t *)props, key, sub) {
		const json_t *def = json_object_get(deref(sub), "default");
		const json_t *items = json_object_get(deref(sub), "items");
		json_t *given = json_object_get(v, key);
		char inner[256];

		snprintf(inner, sizeof inner, "%s/%s", at, key);
		if (def && !given) {
			json_object_set(v, key, (json_t *)def);
			check(root, inner, ctx);
			json_object_del(v, key);
			checked++;
		}
		if (json_object_get(deref(sub), "properties") &&
		    (!given || json_is_object(given))) {
			json_t *child = given ? given : json_object();

			if (!given)
				json_object_set_new(v, key, child);
			checked += each_default(sub, child, root, inner, check, ctx);
			if (!given)
				json_object_del(v, key);
		} else if (items && json_object_get(deref(items), "properties") &&
		    json_is_object(json_array_get(given, 0))) {
			strncat(inner, "/0", sizeof inner - strlen(inner) - 1);
			checked +=
			    each_default(items, json_array_get(given, 0), root, inner, check, ctx);
		}
	}
	return checked;
}

struct question_default {
	const char *path;
	const struct live_reply *expect; /* the answer without the default */
};

/* default_fn of the questions: the same answer's bytes, and a cache hit. */
static void question_default(json_t *root, const char *at, void *ctx)
{
	const struct question_default *q = ctx;
	struct live_reply r;

	post_json(q->path, root, NULL, &r);
	ck_assert_msg(r.status == 200, "%s with %s: %ld %s", q->path, at, r.status, r.body);
	ck_assert_msg(r.len == q->expect->len && memcmp(r.body, q->expect->body, r.len) == 0,
	    "%s: the documented default of %s is not the real one", q->path, at);
	ck_assert_msg(strcmp(r.cache, "hit") == 0,
	    "%s: %s set to its default is not the same question", q->path, at);
	live_reply_free(&r);
}

/* v is an unknown release's rejection at path: bad_value, naming the supported releases
 * (the newest and 2.2.2 among them) */
static void assert_unknown_release(const json_t *v, const char *path, const char *newest)
{
	const char *message = json_string_value(json_object_get(v, "message"));

	ck_assert_str_eq(json_string_value(json_object_get(v, "error")), "bad_value");
	ck_assert_str_eq(json_string_value(json_object_get(v, "path")), path);
	ck_assert_ptr_nonnull(message);
	ck_assert_ptr_nonnull(strstr(message, newest));
	ck_assert_ptr_nonnull(strstr(message, "2.2.2"));
}

/* Health and every answer name the MuJoCo release and the core version, as documented:
 * health's default is the newest release of Option.mujoco's enum and its list is the
 * enum; an answer carries the release asked for (or the default) and the core version;
 * an unknown release is a 422 at /option/mujoco naming the supported ones. */
START_TEST(mujoco_release_fields)
{
	const json_t *option = deref(json_object_get(
	    json_object_get(json_object_get(doc, "components"), "schemas"), "Option"));
	const json_t *releases = json_object_get(
	    json_object_get(json_object_get(option, "properties"), "mujoco"), "enum");
	const char *newest =
	    json_string_value(json_array_get(releases, json_array_size(releases) - 1));
	static const char *const questions[] = {"/v1/rest", "/v1/drop", "/v1/stability"};
	struct live_reply r;
	json_t *v;
	size_t i;

	ck_assert_int_ge(json_array_size(releases), 5);
	/* the model endpoint takes the same releases, as its member and its XML body's query */
	{
		const json_t *model = json_object_get(
		    json_object_get(json_object_get(doc, "components"), "schemas"), "ModelRequest");
		const json_t *op = json_object_get(
		    json_object_get(json_object_get(doc, "paths"), "/v1/model"), "post");
		const json_t *m = json_object_get(json_object_get(model, "properties"), "mujoco");
		ck_assert(json_equal(json_object_get(m, "enum"), (json_t *)releases));
		ck_assert_str_eq(json_string_value(json_object_get(m, "default")), newest);
		ck_assert(json_equal(
		    json_object_get(
		        json_object_get(
		            json_array_get(json_object_get(op, "parameters"), 0), "schema"),
		        "enum"),
		    (json_t *)releases));
		ck_assert_ptr_nonnull(
		    json_object_get(json_object_get(json_object_get(op, "requestBody"), "content"),
		        "application/xml"));
	}
	live_get(&dmn, "/v1/health", &r);
	v = json_loads(r.body, 0, NULL);
	ck_assert_ptr_nonnull(v);
	ck_assert_str_eq(json_string_value(json_object_get(v, "mujoco")), newest);
	ck_assert(json_equal(json_object_get(v, "mujoco_supported"), (json_t *)releases));
	json_decref(v);
	live_reply_free(&r);
	for (i = 0; i < sizeof questions / sizeof questions[0]; i++) {
		live_post(&dmn, questions[i], "{}", &r);
		ck_assert_int_eq(r.status, 200);
		v = json_loads(r.body, 0, NULL);
		ck_assert_str_eq(json_string_value(json_object_get(v, "mujoco")), newest);
		ck_assert_str_eq(
		    json_string_value(json_object_get(v, "core_version")), CORE_VERSION);
		json_decref(v);
		live_reply_free(&r);
		live_post(&dmn, questions[i], "{\"option\": {\"mujoco\": \"2.2.2\"}}", &r);
		ck_assert_int_eq(r.status, 200);
		ck_assert_ptr_nonnull(strstr(r.body, "\"mujoco\":\"2.2.2\""));
		live_reply_free(&r);
		live_post(&dmn, questions[i], "{\"option\": {\"mujoco\": \"9.9.9\"}}", &r);
		ck_assert_int_eq(r.status, 422);
		v = live_json(&r);
		assert_unknown_release(v, "/option/mujoco", newest);
		json_decref(v);
		live_reply_free(&r);
	}
}
END_TEST

/* The answer body of POST path with body, asserting status; caller decrefs. */
static json_t *answer_of(const char *path, const char *body, long status)
{
	struct live_reply r;
	json_t *v;

	live_post(&dmn, path, body, &r);
	ck_assert_msg(r.status == status, "%s %s: %ld %s", path, body, r.status, r.body);
	v = live_json(&r);
	live_reply_free(&r);
	return v;
}

/* obj's mujoco is mujoco and its core_version the core's */
static void assert_release(const json_t *obj, const char *mujoco)
{
	ck_assert_str_eq(json_string_value(json_object_get(obj, "mujoco")), mujoco);
	ck_assert_str_eq(json_string_value(json_object_get(obj, "core_version")), CORE_VERSION);
}

/* POST path the body fmt makes of "" (answered in the newest release) and of member,
 * which names 2.2.2 (answered in 2.2.2); the second answer, which the caller decrefs. */
static json_t *default_and_named(
    const char *path, const char *fmt, const char *member, const char *newest)
{
	char body[640];
	json_t *v;

	snprintf(body, sizeof body, fmt, "");
	v = answer_of(path, body, 200);
	assert_release(v, newest);
	json_decref(v);
	snprintf(body, sizeof body, fmt, member);
	v = answer_of(path, body, 200);
	assert_release(v, "2.2.2");
	return v;
}

/* schema documents "mujoco" with Option.mujoco's releases: a request's member defaulting to
 * the newest, or an answer's, required with "core_version" */
static void assert_release_member(const json_t *schema, const json_t *releases, int request)
{
	const json_t *props = json_object_get(deref(schema), "properties");
	const json_t *m = json_object_get(props, "mujoco");
	const json_t *required = json_object_get(deref(schema), "required");
	size_t i, found = 0;

	ck_assert_ptr_nonnull(m);
	ck_assert(json_equal(json_object_get(m, "enum"), (json_t *)releases));
	ck_assert(json_is_string(json_object_get(m, "description")));
	if (request) {
		ck_assert(json_equal(json_object_get(m, "default"),
		    json_array_get(releases, json_array_size(releases) - 1)));
		return;
	}
	ck_assert(json_is_string(json_object_get(json_object_get(props, "core_version"), "type")));
	for (i = 0; i < json_array_size(required); i++) {
		const char *name = json_string_value(json_array_get(required, i));
		found += strcmp(name, "mujoco") == 0 || strcmp(name, "core_version") == 0;
	}
	ck_assert_uint_eq(found, 2);
}

/*
 * eval and find name the release and the core version as documented: eval's request
 * member "mujoco" (a call's, a batch's) with Option.mujoco's releases and default, in
 * every answer and entry; an unknown release is a 422 at the member, or that call's
 * error in a batch; the documented default is the real one (the same bytes, a cache
 * hit). find's answer names the release of the request it searched.
 */
START_TEST(eval_and_find_release_fields)
{
	const json_t *schemas = json_object_get(json_object_get(doc, "components"), "schemas");
	const json_t *releases = json_object_get(
	    json_object_get(
	        json_object_get(deref(json_object_get(schemas, "Option")), "properties"), "mujoco"),
	    "enum");
	const char *newest =
	    json_string_value(json_array_get(releases, json_array_size(releases) - 1));
	static const char call[] = "{\"function\": \"impedance\", \"args\": {\"r\": 0.0005, "
	                           "\"solimp\": [0.9, 0.95, 0.001, 0.5, 2]}%s}";
	static const char find[] =
	    "{\"query\": \"stability\", \"base\": {%s}, \"path\": \"dampratio\", \"field\": "
	    "\"stable\", \"bracket\": [0.01, 1], \"tolerance\": 1e-3}";
	char body[640], one[256], two[256];
	struct live_reply first;
	struct question_default q = {"/v1/eval", &first};
	json_t *v, *root;

	assert_release_member(json_object_get(schemas, "EvalCall"), releases, 1);
	assert_release_member(
	    json_array_get(
	        json_object_get(deref(json_object_get(schemas, "EvalRequest")), "oneOf"), 1),
	    releases, 1);
	assert_release_member(json_object_get(schemas, "EvalResult"), releases, 0);
	assert_release_member(
	    json_array_get(
	        json_object_get(deref(json_object_get(schemas, "EvalAnswer")), "oneOf"), 1),
	    releases, 0);
	assert_release_member(json_object_get(schemas, "FindAnswer"), releases, 0);

	/* a call: the default, its own, an unknown one */
	json_decref(default_and_named("/v1/eval", call, ", \"mujoco\": \"2.2.2\"", newest));
	snprintf(body, sizeof body, call, ", \"mujoco\": \"9.9.9\"");
	v = answer_of("/v1/eval", body, 422);
	assert_unknown_release(v, "/mujoco", newest);
	json_decref(v);
	/* a batch: its release at the top and in the calls naming none; an unknown release
	 * of a call is that call's error, the batch's own rejects it */
	snprintf(one, sizeof one, call, "");
	snprintf(two, sizeof two, call, ", \"mujoco\": \"9.9.9\"");
	snprintf(body, sizeof body, "{\"mujoco\": \"3.5.0\", \"calls\": [%s, %s]}", one, two);
	v = answer_of("/v1/eval", body, 200);
	assert_release(v, "3.5.0");
	assert_release(json_array_get(json_object_get(v, "results"), 0), "3.5.0");
	assert_unknown_release(
	    json_array_get(json_object_get(v, "results"), 1), "/calls/1/mujoco", newest);
	json_decref(v);
	snprintf(body, sizeof body, "{\"mujoco\": \"9.9.9\", \"calls\": [%s]}", one);
	v = answer_of("/v1/eval", body, 422);
	assert_unknown_release(v, "/mujoco", newest);
	json_decref(v);
	/* the documented default is the real one, in a call and in a batch */
	snprintf(body, sizeof body, call, "");
	live_post(&dmn, "/v1/eval", body, &first);
	root = json_loads(body, 0, NULL);
	json_object_set_new(root, "mujoco", json_string(newest));
	question_default(root, "/mujoco", &q);
	json_decref(root);
	live_reply_free(&first);
	live_post(&dmn, "/v1/eval", "{\"calls\": []}", &first);
	root = json_pack("{s:[], s:s}", "calls", "mujoco", newest);
	question_default(root, "/mujoco", &q);
	json_decref(root);
	live_reply_free(&first);

	/* find: the release of the request searched, or the default */
	v = default_and_named("/v1/find", find, "\"option\": {\"mujoco\": \"2.2.2\"}", newest);
	assert_release(json_object_get(v, "answer"), "2.2.2");
	json_decref(v);
}
END_TEST

START_TEST(documented_defaults_are_real)
{
	/* the defaults each question's schema documents (its minimal example omits them):
	 * rest and drop: body 3, geom 8, option 7, height, duration, and drop's trajectory;
	 * stability: solref, solimp and option 5 (impedance's default depends on solimp);
	 * sweep: base; find: base, max_iterations, method and scan (its example sets target;
	 * tolerance's default depends on bracket); hold: object 3 + geom 8, pad 2 + geom 8 + joint
	 * 3 + actuator's type, grip_force, option 8, duration and slip_limit; model: mujoco; eval
	 * and grade: none. A question not named here (a new endpoint's) must document at least one.
	 */
	static const struct {
		const char *path;
		int defaults;
	} counts[] = {{"/v1/rest", 20}, {"/v1/drop", 21}, {"/v1/stability", 7}, {"/v1/sweep", 1},
	    {"/v1/eval", 0}, {"/v1/find", 4}, {"/v1/hold", 36}, {"/v1/model", 1}, {"/v1/grade", 0}};
	json_t *paths = json_object_get(doc, "paths"), *item;
	const char *path;
	int checked = 0, named = 0;
	size_t i;

	json_object_foreach (paths, path, item) {
		json_t *op = json_object_get(item, "post");
		const json_t *media = request_media(op);
		json_t *minimal;
		struct live_reply first;
		struct question_default q = {path, &first};

		if (!op || is_calibration(path))
			continue;
		ck_assert_msg(
		    json_object_get(json_object_get(media, "examples"), "minimal") != NULL,
		    "%s: no example named minimal", path);
		minimal = json_deep_copy(minimal_example(op));
		post_json(path, minimal, NULL, &first);
		ck_assert_int_eq(first.status, 200);
		checked = each_default(
		    json_object_get(media, "schema"), minimal, minimal, "", question_default, &q);
		for (i = 0; i < sizeof counts / sizeof counts[0] && strcmp(counts[i].path, path);
		     i++)
			;
		if (i < sizeof counts / sizeof counts[0]) {
			ck_assert_msg(checked == counts[i].defaults,
			    "%s: %d defaults checked, not %d", path, checked, counts[i].defaults);
			named++;
		} else {
			ck_assert_msg(checked > 0, "%s: no documented default checked", path);
		}
		live_reply_free(&first);
		json_decref(minimal);
	}
	ck_assert_int_eq(named, sizeof counts / sizeof counts[0]);
}
END_TEST

START_TEST(error_codes_are_the_services)
{
	json_t *codes = json_object_get(
	    json_object_get(
	        json_object_get(
	            json_object_get(json_object_get(doc, "components"), "schemas"), "Error"),
	        "properties"),
	    "error");
	json_t *values = json_object_get(codes, "enum");
	int code;
	size_t i;

	ck_assert_uint_eq(json_array_size(values), ERR_INTERNAL);
	for (code = ERR_NONE + 1; code <= ERR_INTERNAL; code++) {
		int found = 0;

		for (i = 0; i < json_array_size(values); i++)
			found |= strcmp(json_string_value(json_array_get(values, i)),
			             err_name((enum err_code)code)) == 0;
		ck_assert_msg(
		    found, "error code %s is not documented", err_name((enum err_code)code));
	}
}
END_TEST

/* Every kind of rejection a question gets: a documented status, the Error body. */
START_TEST(rejections_documented)
{
	static const char *const no_json[] = {"Content-Type: text/plain", NULL};
	static const char *const want_xml[] = {
	    "Content-Type: application/json", "Accept: application/xml", NULL};
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
	/* every question: the rows of the endpoint table, as the daemon routes them */
	char questions[SVC_ENDPOINT_COUNT][64];
	const json_t *error = json_object_get(
	    json_object_get(json_object_get(doc, "components"), "schemas"), "Error");
	size_t q, c;

	for (q = 0; q < SVC_ENDPOINT_COUNT; q++)
		snprintf(questions[q], sizeof questions[q], "/v1/%s", svc_endpoints[q]->name);
	for (q = 0; q < SVC_ENDPOINT_COUNT; q++) {
		const json_t *responses = json_object_get(
		    json_object_get(
		        json_object_get(json_object_get(doc, "paths"), questions[q]), "post"),
		    "responses");
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

/* ---- the calibration endpoints (issue #4) ---- */

#define ROBOT "so101-left"
#define OTHER_ROBOT "so101-right"
/* A number no double holds, as JSON can write it (JSON has no infinity). */
#define NON_FINITE "1e999"
/* A string that request_text() writes as NON_FINITE. */
#define NON_FINITE_MARK "@non-finite@"

static const char create_path[] = "/v1/robots/{robot}/calibrations"; /* and the list */
static const char show_path[] = "/v1/calibrations/{id}";
static const char upload_path[] = "/v1/calibrations/{id}/measurements";
static const char events_path[] = "/v1/calibrations/{id}/events";
static const char robot_url[] = "/v1/robots/" ROBOT "/calibrations";
static const char *const kinds[] = {"drops", "presses", "trajectories"};

static char token[ROBOT_TOKEN_MAX], other_token[ROBOT_TOKEN_MAX]; /* of ROBOT, OTHER_ROBOT */

/* The daemon with a token of each robot, made before it starts, as an operator would. */
static void calib_setup(void)
{
	live_init(&dmn);
	robot_token_create(&dmn, ROBOT, token);
	robot_token_create(&dmn, OTHER_ROBOT, other_token);
	start();
}

static const json_t *operation(const char *path, const char *method)
{
	const json_t *op =
	    json_object_get(json_object_get(json_object_get(doc, "paths"), path), method);

	ck_assert_msg(op != NULL, "%s %s is not documented", method, path);
	return op;
}

static const json_t *request_schema(const json_t *op)
{
	return json_object_get(request_media(op), "schema");
}

/* The examples of op's request body, asserting there are at least n. */
static json_t *request_examples(const json_t *op, size_t n)
{
	json_t *examples = json_object_get(request_media(op), "examples");

	ck_assert_msg(json_object_size(examples) >= n, "document at least %zu examples", n);
	return examples;
}

static const json_t *error_schema(void)
{
	return json_object_get(
	    json_object_get(json_object_get(doc, "components"), "schemas"), "Error");
}

static void calibration_url(long long id, const char *suffix, char *out, size_t size)
{
	snprintf(out, size, "/v1/calibrations/%lld%s", id, suffix);
}

static long long integer_member(const json_t *v, const char *key)
{
	const json_t *member = json_object_get(v, key);

	ck_assert_msg(json_is_integer(member), "no integer %s", key);
	return (long long)json_integer_value(member);
}

/* value's JSON text with every NON_FINITE_MARK string written as NON_FINITE. Caller frees. */
static char *request_text(const json_t *value)
{
	static const char mark[] = "\"" NON_FINITE_MARK "\"";
	char *text = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY), *in, *out;

	ck_assert_ptr_nonnull(text);
	for (in = out = text; *in;) {
		if (strncmp(in, mark, sizeof mark - 1) == 0) {
			memcpy(out, NON_FINITE, sizeof NON_FINITE - 1);
			out += sizeof NON_FINITE - 1;
			in += sizeof mark - 1;
		} else {
			*out++ = *in++;
		}
	}
	*out = '\0';
	return text;
}

/*
 * METHOD url with tok's bearer token (NULL: none) and text as its body (NULL: none);
 * asserts the status and a JSON answer, which it returns (the caller owns it).
 */
static json_t *call_text(
    const char *tok, const char *method, const char *url, const char *text, long status)
{
	struct live_reply r;
	json_t *answer;

	robot_request(&dmn, tok, method, url, text, text ? strlen(text) : 0, &r);
	ck_assert_msg(r.status == status, "%s %s: %ld, want %ld: %.300s", method, url, r.status,
	    status, r.body);
	ck_assert_str_eq(r.content_type, "application/json");
	answer = live_json(&r);
	live_reply_free(&r);
	return answer;
}

/* call_text() with value's request_text() as the body (NULL: none). */
static json_t *call(
    const char *tok, const char *method, const char *url, const json_t *value, long status)
{
	char *text = value ? request_text(value) : NULL;
	json_t *answer = call_text(tok, method, url, text, status);

	free(text);
	return answer;
}

/* A calibration of ROBOT with setup (201 asserted): the answer, which the caller owns. */
static json_t *create(const json_t *setup)
{
	return call(token, "POST", robot_url, setup, 201);
}

/*
 * The rejection r of a request to path (a documented path) with method (lower case): the
 * Error body with code and the JSON Pointer at (NULL: any), and a status documented for
 * that operation; a 405, which answers the methods without one, for every operation of
 * the path.
 */
static void assert_rejection(const struct live_reply *r, const char *path, const char *method,
    long status, const char *code, const char *at)
{
	const json_t *item = json_object_get(json_object_get(doc, "paths"), path);
	char text[8];
	json_t *body;
	size_t m;

	ck_assert_msg(r->status == status, "%s %s: status %ld, want %ld: %.300s", method, path,
	    r->status, status, r->body);
	live_assert_error(r, status, code, at);
	snprintf(text, sizeof text, "%ld", status);
	if (status != 405)
		operation(path, method); /* asserts it is documented */
	for (m = 0; m < sizeof methods / sizeof methods[0]; m++) {
		const json_t *op = json_object_get(item, methods[m]);
		const json_t *responses = json_object_get(op, "responses");

		if (op && (status == 405 || strcmp(methods[m], method) == 0))
			ck_assert_msg(json_object_get(responses, text) != NULL,
			    "%s %s: status %s is not documented", methods[m], path, text);
	}
	body = live_json(r);
	assert_valid(error_schema(), body, path);
	json_decref(body);
}

/* Send text (NULL: no body) to url and assert the documented rejection (assert_rejection()). */
static void expect_rejection(const char *path, const char *method, const char *url, const char *tok,
    const char *text, long status, const char *code, const char *at)
{
	struct live_reply r;
	char upper_method[16];

	upper(method, upper_method);
	robot_request(&dmn, tok, upper_method, url, text, text ? strlen(text) : 0, &r);
	assert_rejection(&r, path, method, status, code, at);
	live_reply_free(&r);
}

/*
 * Every member schema s documents (at JSON Pointer at of what's answers), nested ones
 * too, was in some answer validated so far.
 */
static void assert_covered(const json_t *s, const char *what, const char *at)
{
	const json_t *sub, *items;
	const char *key;
	char inner[256];
	size_t i;

	s = deref(s);
	if (json_object_get(s, "x-untested"))
		return; /* says why no test can make it */
	json_object_foreach ((json_t *)json_object_get(s, "properties"), key, sub) {
		snprintf(inner, sizeof inner, "%s/%s", at, key);
		if (json_object_get(deref(sub), "x-untested"))
			continue; /* a member's own schema may say why no answer has it */
		ck_assert_msg(was_seen(sub), "%s: %s is documented but in no answer", what, inner);
		assert_covered(sub, what, inner);
	}
	items = json_object_get(s, "items");
	if (items) {
		snprintf(inner, sizeof inner, "%s/*", at);
		assert_covered(items, what, inner);
	}
	for (i = 0; i < json_array_size(json_object_get(s, "oneOf")); i++)
		assert_covered(json_array_get(json_object_get(s, "oneOf"), i), what, at);
}

/*
 * Every example of the calibration operations: valid by its schema, answered with the
 * documented status and an answer valid by the documented schema, and so the answers of
 * the calibration, its robot's list and its event stream after it; then every member
 * these schemas document was in one of the answers.
 */
START_TEST(calibration_examples_answered)
{
	const json_t *create_op = operation(create_path, "post");
	const json_t *list_op = operation(create_path, "get");
	const json_t *show_op = operation(show_path, "get");
	const json_t *upload_op = operation(upload_path, "post");
	const json_t *event_data = json_object_get(
	    json_object_get(
	        json_object_get(
	            json_object_get(
	                json_object_get(operation(events_path, "get"), "responses"), "200"),
	            "content"),
	        "text/event-stream"),
	    "x-event-data");
	json_t *example, *list;
	const char *name;
	size_t creates = 0, uploads = 0, k;

	ck_assert_msg(event_data != NULL, "the events' data schema is not documented");
	json_object_foreach (request_examples(create_op, 2), name, example) {
		const json_t *value = json_object_get(example, "value");
		json_t *answer, *again;
		char what[128];

		snprintf(what, sizeof what, "%s example %s", create_path, name);
		assert_valid(request_schema(create_op), value, what);
		answer = create(value);
		assert_valid(response_schema(create_op, "201"), answer, what);
		ck_assert_str_eq(json_string_value(json_object_get(answer, "robot")), ROBOT);
		/* the setup as stored is a request for the same setup */
		again = create(json_object_get(answer, "setup"));
		ck_assert_msg(
		    json_equal(json_object_get(answer, "setup"), json_object_get(again, "setup")),
		    "%s: the stored setup does not make itself", what);
		json_decref(again);
		json_decref(answer);
		creates += 2;
	}
	json_object_foreach (request_examples(upload_op, 4), name, example) {
		const json_t *value = json_object_get(example, "value");
		json_t *created = create(minimal_example(create_op)), *answer, *shown, *data;
		long long id = integer_member(created, "id"), fit_id;
		struct robot_event ev;
		char what[128], url[128];

		snprintf(what, sizeof what, "%s example %s", upload_path, name);
		assert_valid(request_schema(upload_op), value, what);
		/* ?wait: the answer carries the fit done, as GET and the events show it */
		calibration_url(id, "/measurements?wait=60", url, sizeof url);
		answer = call(token, "POST", url, value, 200);
		assert_valid(response_schema(upload_op, "200"), answer, what);
		ck_assert_int_eq(integer_member(answer, "calibration"), id);
		fit_id = integer_member(answer, "fit_id");
		/* the calibration: its setup, what was uploaded, the same fit */
		calibration_url(id, "", url, sizeof url);
		shown = call(token, "GET", url, NULL, 200);
		assert_valid(response_schema(show_op, "200"), shown, what);
		ck_assert(
		    json_equal(json_object_get(shown, "setup"), json_object_get(created, "setup")));
		for (k = 0; k < 3; k++) {
			const json_t *stored = json_object_get(shown, "measurements");
			size_t n = json_array_size(json_object_get(value, kinds[k]));

			ck_assert_int_eq(
			    integer_member(json_object_get(answer, "accepted"), kinds[k]), n);
			ck_assert_uint_eq(json_array_size(json_object_get(stored, kinds[k])), n);
		}
		ck_assert(
		    json_equal(json_object_get(shown, "fit"), json_object_get(answer, "fit")));
		ck_assert_int_eq(integer_member(shown, "fit_id"), fit_id);
		/* its event stream starts with that fit */
		calibration_url(id, "/events", url, sizeof url);
		robot_first_event(&dmn, token, url, &ev);
		ck_assert_int_eq(ev.status, 200);
		ck_assert_str_eq(ev.content_type, "text/event-stream");
		ck_assert_str_eq(ev.name, "fit");
		ck_assert_int_eq(ev.id, fit_id);
		data = json_loads(ev.data ? ev.data : "", 0, NULL);
		ck_assert_msg(data != NULL, "%s: the event's data is not JSON", what);
		assert_valid(event_data, data, what);
		ck_assert(json_equal(data, json_object_get(answer, "fit")));
		json_decref(data);
		robot_event_free(&ev);
		json_decref(shown);
		json_decref(answer);
		json_decref(created);
		uploads++;
	}
	/* without ?wait: the fit pending, as documented */
	{
		json_t *created = create(minimal_example(create_op)), *answer;
		char url[128];

		calibration_url(integer_member(created, "id"), "/measurements", url, sizeof url);
		answer = call(token, "POST", url, minimal_example(upload_op), 200);
		assert_valid(response_schema(upload_op, "200"), answer, "an upload without ?wait");
		json_decref(answer);
		json_decref(created);
		uploads++;
	}
	list = call(token, "GET", robot_url, NULL, 200);
	assert_valid(response_schema(list_op, "200"), list, "the list of calibrations");
	ck_assert_uint_eq(
	    json_array_size(json_object_get(list, "calibrations")), creates + uploads);
	json_decref(list);
	assert_covered(
	    response_schema(create_op, "201"), "POST /v1/robots/{robot}/calibrations", "");
	assert_covered(response_schema(list_op, "200"), "GET /v1/robots/{robot}/calibrations", "");
	assert_covered(response_schema(show_op, "200"), "GET /v1/calibrations/{id}", "");
	assert_covered(
	    response_schema(upload_op, "200"), "POST /v1/calibrations/{id}/measurements", "");
	assert_covered(event_data, "the events of /v1/calibrations/{id}/events", "");
}
END_TEST

/*
 * A new calibration of setup and upload sent to it: the answers of the creation, the
 * upload and of the calibration afterwards. The caller owns them.
 */
static void upload_to_new(
    const json_t *setup, const json_t *upload, json_t **created, json_t **answer, json_t **shown)
{
	char url[128];

	*created = create(setup);
	calibration_url(integer_member(*created, "id"), "/measurements?wait=60", url, sizeof url);
	*answer = call(token, "POST", url, upload, 200);
	calibration_url(integer_member(*created, "id"), "", url, sizeof url);
	*shown = call(token, "GET", url, NULL, 200);
}

/* What a setup or an upload gives without the default being set. */
struct calib_baseline {
	const json_t *setup;        /* the setup sent (for uploads) or as stored (for setups) */
	const json_t *upload;       /* the measurements uploaded */
	const json_t *fit;          /* their fit */
	const json_t *measurements; /* as stored */
};

/* The member of object v at JSON Pointer ptr (tokens without escapes): its object, its key. */
static json_t *member_parent(json_t *v, const char *ptr, const char **key)
{
	const char *slash;
	char name[64];

	while ((slash = strchr(ptr + 1, '/'))) {
		snprintf(name, sizeof name, "%.*s", (int)(slash - ptr - 1), ptr + 1);
		v = json_object_get(v, name);
		ptr = slash;
	}
	*key = ptr + 1;
	return v;
}

/*
 * What two calibrations' answers share: v without the members that name the calibration
 * (a fit's "id", a measurement's "id" and "upload", the setup's default class
 * contactd_pad_<id> and the mjcf's class attribute). Caller owns the copy.
 */
static json_t *comparable(const json_t *v)
{
	json_t *c = json_deep_copy(v), *item, *list;
	const char *key, *mjcf, *q;
	size_t i;

	if (json_is_object(c)) {
		json_object_del(c, "id");
		json_object_del(c, "upload");
		json_object_del(c, "class");
		mjcf = json_string_value(json_object_get(c, "mjcf"));
		if (mjcf && (q = strstr(mjcf, "\">"))) {
			char *text = malloc(strlen(mjcf) + 32);

			ck_assert_ptr_nonnull(text);
			sprintf(text, "<default class=\"\"%s", q + 1);
			json_object_set_new(c, "mjcf", json_string(text));
			free(text);
		}
		json_object_foreach (c, key, item)
			json_object_set_new(c, key, comparable(item));
	} else if (json_is_array(c)) {
		list = json_array();
		json_array_foreach (c, i, item)
			json_array_append_new(list, comparable(item));
		json_decref(c);
		c = list;
	}
	return c;
}

/* Are a and b equal but for what names their calibration (comparable())? */
static int same_but_ids(const json_t *a, const json_t *b)
{
	json_t *ca = comparable(a), *cb = comparable(b);
	int same = json_equal(ca, cb);

	json_decref(ca);
	json_decref(cb);
	return same;
}

/*
 * default_fn of a setup: the same setup as stored, and the same fit of the same upload.
 * A pad member the stored setup leaves out unless given (it follows the object's geom)
 * is left out of the comparison: the fit shows what it is (solimp, and margin, gap and
 * solmix in its mjcf when they are not MuJoCo's defaults).
 */
static void setup_default(json_t *root, const char *at, void *ctx)
{
	const struct calib_baseline *base = ctx;
	json_t *created, *answer, *shown, *parent;
	const char *key;

	upload_to_new(root, base->upload, &created, &answer, &shown);
	parent = member_parent(json_object_get(created, "setup"), at, &key);
	if (!json_object_get(member_parent((json_t *)base->setup, at, &key), key))
		json_object_del(parent, key);
	ck_assert_msg(same_but_ids(json_object_get(created, "setup"), base->setup),
	    "%s: %s set to its documented default is another setup", create_path, at);
	ck_assert_msg(same_but_ids(json_object_get(answer, "fit"), base->fit),
	    "%s: %s set to its documented default gives another fit", create_path, at);
	json_decref(shown);
	json_decref(answer);
	json_decref(created);
}

/* default_fn of an upload: the same measurements stored, the same fit. */
static void upload_default(json_t *root, const char *at, void *ctx)
{
	const struct calib_baseline *base = ctx;
	json_t *created, *answer, *shown;

	upload_to_new(base->setup, root, &created, &answer, &shown);
	ck_assert_msg(same_but_ids(json_object_get(shown, "measurements"), base->measurements),
	    "%s: %s set to its documented default stores other measurements", upload_path, at);
	ck_assert_msg(same_but_ids(json_object_get(answer, "fit"), base->fit),
	    "%s: %s set to its documented default gives another fit", upload_path, at);
	json_decref(shown);
	json_decref(answer);
	json_decref(created);
}

START_TEST(calibration_defaults_are_real)
{
	const json_t *create_op = operation(create_path, "post");
	const json_t *upload_op = operation(upload_path, "post");
	json_t *setup = json_deep_copy(minimal_example(create_op)), *example;
	json_t *created, *answer, *shown;
	struct calib_baseline base;
	const char *name;
	int checked;

	/* the setup's defaults, with the minimal upload as the measurements */
	base.upload = minimal_example(upload_op);
	upload_to_new(setup, base.upload, &created, &answer, &shown);
	base.setup = json_object_get(created, "setup");
	base.fit = json_object_get(answer, "fit");
	base.measurements = json_object_get(shown, "measurements");
	checked = each_default(request_schema(create_op), setup, setup, "", setup_default, &base);
	/* object, geom, option (with mujoco); the class has none: it is named after the
	 * calibration */
	ck_assert_int_eq(checked, 3 + 8 + 7);
	json_decref(shown);
	json_decref(answer);
	json_decref(created);
	/* the measurements' defaults, in each example, uploaded to the minimal setup */
	checked = 0;
	base.setup = setup;
	json_object_foreach (request_examples(upload_op, 4), name, example) {
		json_t *upload = json_deep_copy(json_object_get(example, "value"));

		upload_to_new(setup, upload, &created, &answer, &shown);
		base.upload = upload;
		base.fit = json_object_get(answer, "fit");
		base.measurements = json_object_get(shown, "measurements");
		checked += each_default(
		    request_schema(upload_op), upload, upload, "", upload_default, &base);
		json_decref(shown);
		json_decref(answer);
		json_decref(created);
		json_decref(upload);
	}
	/* in each of the 5 examples: the two lists it omits, and its first measurement's sigma */
	ck_assert_int_eq(checked, 5 * 3);
	json_decref(setup);
}
END_TEST

/* Where probe_fields() sends its requests. */
struct field_probe {
	const char *path, *method; /* the documented operation */
	const char *url;
	json_t *list;        /* the array of objects whose first element is probed, or NULL */
	const char *list_at; /* its JSON Pointer */
	int sent, accepted;
};

/* Send root and assert the documented rejection with code at JSON Pointer at. */
static void probe(
    struct field_probe *p, const json_t *root, long status, const char *code, const char *at)
{
	char *text = request_text(root);

	expect_rejection(p->path, p->method, p->url, token, text, status, code, at);
	free(text);
	p->sent++;
}

/*
 * root, whose value at JSON Pointer at is on a documented bound, passes validation: a
 * setup is created; in an element of a list, an unknown member in an element appended
 * after it is what is refused (so no fit is needed).
 */
static void probe_accepted(struct field_probe *p, json_t *root, const char *at)
{
	char *text, sentinel[300];
	struct live_reply r;

	if (p->list) {
		snprintf(sentinel, sizeof sentinel, "%s/%zu/no_such_field", p->list_at,
		    json_array_size(p->list));
		json_array_append_new(p->list, json_pack("{s:b}", "no_such_field", 1));
		text = request_text(root);
		robot_request(&dmn, token, "POST", p->url, text, strlen(text), &r);
		ck_assert_msg(r.status == 400, "%s: %s on its documented bound: %ld %.300s",
		    p->path, at, r.status, r.body);
		assert_rejection(&r, p->path, p->method, 400, "unknown_field", sentinel);
		json_array_remove(p->list, json_array_size(p->list) - 1);
	} else {
		text = request_text(root);
		robot_request(&dmn, token, "POST", p->url, text, strlen(text), &r);
		ck_assert_msg(r.status == 201, "%s: %s on its documented bound: %ld %.300s",
		    p->path, at, r.status, r.body);
	}
	live_reply_free(&r);
	free(text);
	p->accepted++;
}

static int schema_type_is(const json_t *s, const char *type)
{
	const char *t = json_string_value(json_object_get(s, "type"));

	return t && strcmp(t, type) == 0;
}

/* The schema of the number s takes: s, or its first branch that takes one; else NULL. */
static const json_t *number_schema(const json_t *s)
{
	const json_t *one_of = json_object_get(s, "oneOf"), *branch;
	size_t i;

	if (schema_type_is(s, "number") || schema_type_is(s, "integer"))
		return s;
	for (i = 0; i < json_array_size(one_of); i++)
		if ((branch = number_schema(deref(json_array_get(one_of, i)))))
			return branch;
	return NULL;
}

/* Member key of holder, or its first element when key is NULL, is value (stolen). */
static void set_slot(json_t *holder, const char *key, json_t *value)
{
	if (key)
		json_object_set_new(holder, key, value);
	else
		json_array_set_new(holder, 0, value);
}

/*
 * The documented bounds of number schema num, for the slot key of holder (set_slot()) at
 * JSON Pointer at: the nearest double beyond a bound (or an exclusive bound itself) is
 * 422 bad_value at its path; a value on an inclusive bound is accepted (probe_accepted()).
 */
static void probe_bounds(struct field_probe *p, const json_t *num, json_t *holder, const char *key,
    json_t *root, const char *at)
{
	const json_t *min = json_object_get(num, "minimum"), *max = json_object_get(num, "maximum");
	int exclusive = json_is_true(json_object_get(num, "exclusiveMinimum"));

	if (min) {
		double lo = json_number_value(min);

		set_slot(holder, key, json_real(exclusive ? lo : nextafter(lo, -INFINITY)));
		probe(p, root, 422, "bad_value", at);
		if (!exclusive) {
			set_slot(holder, key, json_real(lo));
			probe_accepted(p, root, at);
		}
	}
	if (max) {
		double hi = json_number_value(max);

		set_slot(holder, key, json_real(nextafter(hi, INFINITY)));
		probe(p, root, 422, "bad_value", at);
		set_slot(holder, key, json_real(hi));
		probe_accepted(p, root, at);
	}
}

/* A string of n letters. */
static json_t *letters(size_t n)
{
	char text[256];

	ck_assert_uint_lt(n, sizeof text);
	memset(text, 'a', n);
	text[n] = '\0';
	return json_string(text);
}

/* The documented lengths of string schema s for member key of v, as probe_bounds(). */
static void probe_lengths(struct field_probe *p, const json_t *s, json_t *v, const char *key,
    json_t *root, const char *at)
{
	const json_t *min = json_object_get(s, "minLength"), *max = json_object_get(s, "maxLength");

	if (min && json_integer_value(min) > 0) {
		json_object_set_new(v, key, letters((size_t)json_integer_value(min) - 1));
		probe(p, root, 422, "bad_value", at);
		json_object_set_new(v, key, letters((size_t)json_integer_value(min)));
		probe_accepted(p, root, at);
	}
	if (max) {
		json_object_set_new(v, key, letters((size_t)json_integer_value(max) + 1));
		probe(p, root, 422, "bad_value", at);
		json_object_set_new(v, key, letters((size_t)json_integer_value(max)));
		probe_accepted(p, root, at);
	}
}

/*
 * For every field schema s documents in v (an object within root, at JSON Pointer at),
 * given or not: a value of the wrong JSON type is 400 bad_type at its path; a number no
 * double holds (in place of a number, or as the first of an array of numbers) 422
 * bad_value, and so is one beyond a documented bound (probe_bounds(), probe_lengths());
 * an unknown member beside it is 400 unknown_field. Into nested objects, and the first
 * element of a given array of objects.
 */
static void probe_fields(
    struct field_probe *p, const json_t *s, json_t *v, json_t *root, const char *at)
{
	const json_t *sub;
	const char *key;
	char inner[256];

	snprintf(inner, sizeof inner, "%s/no_such_field", at);
	json_object_set_new(v, "no_such_field", json_true());
	probe(p, root, 400, "unknown_field", inner);
	json_object_del(v, "no_such_field");
	json_object_foreach ((json_t *)json_object_get(deref(s), "properties"), key, sub) {
		const json_t *field = deref(sub), *items = deref(json_object_get(field, "items"));
		const json_t *num = number_schema(field), *item_num = NULL, *sample;
		json_t *given = json_object_get(v, key);
		char element[264];

		if (items)
			item_num = number_schema(items);
		json_incref(given);
		snprintf(inner, sizeof inner, "%s/%s", at, key);
		snprintf(element, sizeof element, "%s/0", inner);
		json_object_set_new(
		    v, key, schema_type_is(field, "string") ? json_integer(1) : json_string("x"));
		probe(p, root, 400, "bad_type", inner);
		if (num) {
			json_object_set_new(v, key, json_string(NON_FINITE_MARK));
			probe(p, root, 422, "bad_value", inner);
			probe_bounds(p, num, v, key, root, inner);
		} else if (schema_type_is(field, "array") && item_num) {
			json_object_set_new(v, key, json_pack("[s]", NON_FINITE_MARK));
			probe(p, root, 422, "bad_value", element);
			/* an element's bounds, in the given array or the default one */
			sample = given ? given : json_object_get(field, "default");
			if (json_array_size(sample) > 0) {
				json_t *copy = json_deep_copy(sample);

				json_object_set_new(v, key, copy);
				probe_bounds(p, item_num, copy, NULL, root, element);
			}
		} else if (schema_type_is(field, "string")) {
			probe_lengths(p, field, v, key, root, inner);
		}
		if (given)
			json_object_set_new(v, key, given);
		else
			json_object_del(v, key);
		if (json_object_get(field, "properties") && (!given || json_is_object(given))) {
			json_t *child = given ? given : json_object();

			if (!given)
				json_object_set_new(v, key, child);
			probe_fields(p, field, child, root, inner);
			if (!given)
				json_object_del(v, key);
		} else if (items && json_object_get(items, "properties") &&
		    json_is_object(json_array_get(given, 0))) {
			json_t *outer = p->list;
			const char *outer_at = p->list_at;

			p->list = given;
			p->list_at = inner;
			probe_fields(p, items, json_array_get(given, 0), root, element);
			p->list = outer;
			p->list_at = outer_at;
		}
	}
}

/* Every field of the calibration requests, wrong: rejected as documented, nothing stored. */
START_TEST(calibration_fields_rejected)
{
	const json_t *create_op = operation(create_path, "post");
	const json_t *upload_op = operation(upload_path, "post");
	json_t *setup = json_deep_copy(minimal_example(create_op)), *created, *shown, *example;
	struct field_probe p = {create_path, "post", robot_url, NULL, NULL, 0, 0};
	const char *name;
	char url[128];
	size_t k;

	probe_fields(&p, request_schema(create_op), setup, setup, "");
	/*
	 * Refused: an unknown member of the root and its 4 members' wrong types; in geom,
	 * object and option, an unknown member, each member's wrong type, each numeric one's
	 * non-finite value and each bound (geom: the minimum of friction, margin, gap and
	 * solmix; object: both of size and mass; option: the exclusive minimum of timestep and
	 * impratio); class's two lengths. Accepted on a bound: the geom's 4, size's and mass's
	 * maximum, class's two lengths.
	 */
	ck_assert_int_eq(p.sent, 1 + 4 + (1 + 8 + 8 + 4) + (1 + 3 + 2 + 4) + (1 + 7 + 3 + 2) + 2);
	ck_assert_int_eq(p.accepted, 4 + 2 + 2);
	created = create(setup);
	calibration_url(integer_member(created, "id"), "/measurements", url, sizeof url);
	p = (struct field_probe){upload_path, "post", url, NULL, NULL, 0, 0};
	json_object_foreach (request_examples(upload_op, 4), name, example) {
		json_t *upload = json_deep_copy(json_object_get(example, "value"));

		probe_fields(&p, request_schema(upload_op), upload, upload, "");
		json_decref(upload);
	}
	/*
	 * Each example: the root's unknown member and 3 lists' types; its list's first
	 * measurement: 1 unknown, 3 types, 3 numbers, and beyond the bounds: a press's 4
	 * (force: the maximum, its minimum being the object's weight, which no schema states;
	 * deflection: both; sigma), a drop's 4 (height: both; rebound and sigma: minimum), a
	 * trajectory's 1 (sigma). On them: a press's 4, a drop's 3 (height's exclusive minimum
	 * is not), a trajectory's 1. The examples: presses (minimal), drops, presses, a
	 * trajectory and a press (soft_pad).
	 */
	ck_assert_int_eq(p.sent, 5 * (1 + 3 + 7) + 4 + 4 + 4 + 1 + 4);
	ck_assert_int_eq(p.accepted, 4 + 3 + 4 + 1 + 4);
	calibration_url(integer_member(created, "id"), "", url, sizeof url);
	shown = call(token, "GET", url, NULL, 200);
	for (k = 0; k < 3; k++)
		ck_assert_uint_eq(json_array_size(json_object_get(
		                      json_object_get(shown, "measurements"), kinds[k])),
		    0);
	ck_assert(json_is_null(json_object_get(shown, "fit")));
	json_decref(shown);
	json_decref(created);
	json_decref(setup);
}
END_TEST

/* {"list": [item, item, ...]} with n copies of item (JSON text). Caller frees. */
static char *repeated(const char *list, const char *item, size_t n)
{
	size_t len = strlen(list) + 8 + n * (strlen(item) + 1), i;
	char *text = malloc(len), *at = text;

	ck_assert_ptr_nonnull(text);
	at += sprintf(at, "{\"%s\":[", list);
	for (i = 0; i < n; i++)
		at += sprintf(at, "%s%s", i ? "," : "", item);
	strcpy(at, "]}");
	return text;
}

/* The documented maxItems of the member key of object schema s. */
static size_t max_items(const json_t *s, const char *key)
{
	const json_t *m = json_object_get(
	    json_object_get(json_object_get(deref(s), "properties"), key), "maxItems");

	ck_assert_msg(json_is_integer(m), "%s: no documented maximum", key);
	return (size_t)json_integer_value(m);
}

/* One trajectory of n samples (JSON text), its last time not a number. Caller frees. */
static char *trajectory_of(size_t n)
{
	char *text = malloc(n * 32 + 64), *at = text;
	size_t i;

	ck_assert_ptr_nonnull(text);
	at += sprintf(at, "{\"trajectories\":[{\"t\":[");
	for (i = 0; i + 1 < n; i++)
		at += sprintf(at, "%.5e,", (double)i * 1e-5);
	at += sprintf(at, "\"x\"],\"z\":[");
	for (i = 0; i < n; i++)
		at += sprintf(at, "%s%.6e", i ? "," : "", 1e-3 - (double)i * 1e-6);
	strcpy(at, "]}]}");
	return text;
}

/*
 * A list's documented maximum: one more is 413 at the list; the maximum is accepted by a
 * new calibration, which then takes no more (413 at ""). item is one element's JSON.
 */
static void check_list_limit(const char *url, const char *list, const char *item, size_t max)
{
	json_t *created = create(minimal_example(operation(create_path, "post"))), *answer;
	char *text = repeated(list, item, max + 1), at[32], mine[128];

	snprintf(at, sizeof at, "/%s", list);
	expect_rejection(upload_path, "post", url, token, text, 413, "too_large", at);
	free(text);
	calibration_url(integer_member(created, "id"), "/measurements", mine, sizeof mine);
	text = repeated(list, item, max);
	answer = call_text(token, "POST", mine, text, 200);
	free(text);
	text = repeated(list, item, 1);
	expect_rejection(upload_path, "post", mine, token, text, 413, "too_large", "");
	free(text);
	json_decref(answer);
	json_decref(created);
}

/*
 * Every kind of rejection of the calibration operations: the token (401, 403), the path
 * (404), the method (405), malformed or too deep JSON and a missing field (400), sizes and
 * the documented limits (413), values (422): each with a documented status and the Error
 * body; and none of them stores anything.
 */
START_TEST(calibration_rejections_documented)
{
	static const char deep[] =
	    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]";
	static const char drop[] = "{\"height\":0.1,\"rebound\":0.01}";
	static const char bad_drop[] = "{\"height\":0.1,\"rebound\":0.20}"; /* as long */
	static const char press[] = "{\"force\":9.81,\"deflection\":6.15e-6}";
	static const char trajectory[] = "{\"t\":[0,0.01,0.02],\"z\":[0.01,0.005,0]}";
	static const struct {
		const char *body, *at;
	} bad_values[] = {
	    {"{\"drops\":[{\"height\":0.1,\"rebound\":0.2}]}", "/drops/0/rebound"},
	    {"{\"drops\":[{\"height\":11,\"rebound\":0}]}", "/drops/0/height"},
	    {"{\"presses\":[{\"force\":-1,\"deflection\":0}]}", "/presses/0/force"},
	    {"{\"trajectories\":[{\"t\":[0,0.01],\"z\":[1,0]}]}", "/trajectories/0/t"},
	    {"{\"trajectories\":[{\"t\":[0,0.01,0.01],\"z\":[1,0.5,0]}]}", "/trajectories/0/t/2"},
	    {"{\"trajectories\":[{\"t\":[0,0.01,0.02],\"z\":[1,0.5]}]}", "/trajectories/0/z"},
	    {"{\"trajectories\":[{\"t\":[0,0.01,0.02],\"z\":[0,0.5,1]}]}", "/trajectories/0/z"},
	};
	const json_t *upload_op = operation(upload_path, "post");
	const json_t *trajectory_schema = json_object_get(
	    json_object_get(
	        json_object_get(deref(request_schema(upload_op)), "properties"), "trajectories"),
	    "items");
	const char *const paths[] = {create_path, create_path, show_path, upload_path, events_path};
	const char *const ops[] = {"post", "get", "get", "post", "get"};
	const char *const suffixes[] = {NULL, NULL, "", "/measurements", "/events"};
	char urls[5][128], wrong[ROBOT_TOKEN_MAX], at[32], *text;
	json_t *created, *shown;
	long long id;
	size_t i, n;

	created = create(minimal_example(operation(create_path, "post")));
	id = integer_member(created, "id");
	for (i = 0; i < 5; i++) {
		if (suffixes[i])
			calibration_url(id, suffixes[i], urls[i], sizeof urls[i]);
		else
			snprintf(urls[i], sizeof urls[i], "%s", robot_url);
	}
	/* the token: none, malformed, a wrong secret (its last digit changed); another robot's */
	snprintf(wrong, sizeof wrong, "%s", token);
	wrong[ROBOT_TOKEN_MAX - 2] = wrong[ROBOT_TOKEN_MAX - 2] == '0' ? '1' : '0';
	for (i = 0; i < 5; i++) {
		const char *body = strcmp(ops[i], "post") == 0 ? "{}" : NULL;

		expect_rejection(paths[i], ops[i], urls[i], NULL, body, 401, "unauthorized", "");
		expect_rejection(
		    paths[i], ops[i], urls[i], "not-a-token", body, 401, "unauthorized", "");
		expect_rejection(paths[i], ops[i], urls[i], wrong, body, 401, "unauthorized", "");
		expect_rejection(
		    paths[i], ops[i], urls[i], other_token, body, 404, "not_found", "");
	}
	/* a body that is not JSON, on both POSTs, with a valid token: 415 */
	for (i = 0; i < 5; i++) {
		char header[ROBOT_TOKEN_MAX + 32];
		const char *const plain[] = {"Content-Type: text/plain", header, NULL};
		struct live_reply r;

		if (strcmp(ops[i], "post") != 0)
			continue;
		snprintf(header, sizeof header, "Authorization: Bearer %s", token);
		live_request(&dmn, "POST", urls[i], plain, "{}", 2, 0, &r);
		assert_rejection(&r, paths[i], ops[i], 415, "unsupported_media_type", "");
		live_reply_free(&r);
	}
	/* the path: not a robot name or not an id (before the token); no such calibration */
	expect_rejection(create_path, "post", "/v1/robots/not~a~name/calibrations", NULL, "{}", 404,
	    "not_found", "");
	expect_rejection(create_path, "get", "/v1/robots/not~a~name/calibrations", NULL, NULL, 404,
	    "not_found", "");
	expect_rejection(show_path, "get", "/v1/calibrations/01", NULL, NULL, 404, "not_found", "");
	expect_rejection(upload_path, "post", "/v1/calibrations/0/measurements", NULL, "{}", 404,
	    "not_found", "");
	for (i = 2; i < 5; i++) {
		char unknown[128];

		calibration_url(id + 1000, suffixes[i], unknown, sizeof unknown);
		expect_rejection(paths[i], ops[i], unknown, token,
		    strcmp(ops[i], "post") == 0 ? "{}" : NULL, 404, "not_found", "");
	}
	/* the method */
	expect_rejection(create_path, "put", urls[0], token, "{}", 405, "method_not_allowed", "");
	expect_rejection(show_path, "post", urls[2], token, "{}", 405, "method_not_allowed", "");
	expect_rejection(upload_path, "put", urls[3], token, "{}", 405, "method_not_allowed", "");
	expect_rejection(
	    events_path, "delete", urls[4], token, NULL, 405, "method_not_allowed", "");
	/* malformed JSON, JSON too deep, a missing field */
	expect_rejection(create_path, "post", urls[0], token, "{", 400, "bad_json", "");
	expect_rejection(upload_path, "post", urls[3], token, "{", 400, "bad_json", "");
	expect_rejection(create_path, "post", urls[0], token, deep, 400, "too_deep", NULL);
	expect_rejection(upload_path, "post", urls[3], token, deep, 400, "too_deep", NULL);
	expect_rejection(upload_path, "post", urls[3], token, "{\"drops\":[{\"height\":0.1}]}", 400,
	    "missing_field", "/drops/0/rebound");
	/* sizes: the body, the setup's steps, the trajectories' span and samples */
	text = malloc(LIMIT_MAX_BODY_BYTES + 2);
	ck_assert_ptr_nonnull(text);
	memset(text, ' ', LIMIT_MAX_BODY_BYTES + 1);
	text[0] = '{';
	text[LIMIT_MAX_BODY_BYTES] = '}';
	text[LIMIT_MAX_BODY_BYTES + 1] = '\0';
	expect_rejection(create_path, "post", urls[0], token, text, 413, "too_large", "");
	expect_rejection(upload_path, "post", urls[3], token, text, 413, "too_large", "");
	free(text);
	expect_rejection(create_path, "post", urls[0], token, "{\"option\":{\"timestep\":1e-7}}",
	    413, "too_large", "/option/timestep");
	/* 10002 timesteps of 0.005 s */
	expect_rejection(upload_path, "post", urls[3], token,
	    "{\"trajectories\":[{\"t\":[0,25,50.01],\"z\":[1,0.5,0]}]}", 413, "too_large",
	    "/trajectories/0/t");
	/*
	 * The documented limits. The samples of a trajectory, and drops, up to theirs would
	 * take seconds to fit: that many pass the count, shown by a bad last one being what
	 * is refused.
	 */
	n = max_items(trajectory_schema, "t");
	text = trajectory_of(n + 1);
	expect_rejection(
	    upload_path, "post", urls[3], token, text, 413, "too_large", "/trajectories/0/t");
	free(text);
	text = trajectory_of(n);
	snprintf(at, sizeof at, "/trajectories/0/t/%zu", n - 1);
	expect_rejection(upload_path, "post", urls[3], token, text, 400, "bad_type", at);
	free(text);
	n = max_items(request_schema(upload_op), "drops");
	text = repeated("drops", drop, n + 1);
	expect_rejection(upload_path, "post", urls[3], token, text, 413, "too_large", "/drops");
	free(text);
	text = repeated("drops", drop, n);
	memcpy(strstr(text, "]}") - strlen(drop), bad_drop, strlen(drop));
	snprintf(at, sizeof at, "/drops/%zu/rebound", n - 1);
	expect_rejection(upload_path, "post", urls[3], token, text, 422, "bad_value", at);
	free(text);
	check_list_limit(
	    urls[3], "presses", press, max_items(request_schema(upload_op), "presses"));
	check_list_limit(urls[3], "trajectories", trajectory,
	    max_items(request_schema(upload_op), "trajectories"));
	/* values */
	expect_rejection(create_path, "post", urls[0], token, "{\"geom\":{\"condim\":5}}", 422,
	    "bad_value", "/geom/condim");
	expect_rejection(
	    create_path, "post", urls[0], token, "{\"class\":\"a<b\"}", 422, "bad_value", "/class");
	for (i = 0; i < sizeof bad_values / sizeof bad_values[0]; i++)
		expect_rejection(upload_path, "post", urls[3], token, bad_values[i].body, 422,
		    "bad_value", bad_values[i].at);
	/* nothing stored */
	shown = call(token, "GET", urls[2], NULL, 200);
	for (i = 0; i < 3; i++)
		ck_assert_uint_eq(json_array_size(json_object_get(
		                      json_object_get(shown, "measurements"), kinds[i])),
		    0);
	ck_assert(json_is_null(json_object_get(shown, "fit")));
	json_decref(shown);
	json_decref(created);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("openapi");
	TCase *tc = tcase_create("openapi");
	TCase *calib = tcase_create("calibration");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, validator_rejects);
	tcase_add_test(tc, served_bytes_are_the_source);
	tcase_add_test(tc, every_endpoint_documented);
	tcase_add_test(tc, answer_fields_defined_with_units);
	tcase_add_test(tc, answer_units_are_the_rows);
	tcase_add_test(tc, endpoint_table_agrees);
	tcase_add_test(tc, question_enums_and_aliases_are_the_tables);
	tcase_add_test(tc, every_part_is_served);
	tcase_add_test(tc, documented_operations_exist);
	tcase_add_test(tc, examples_answered_as_documented);
	tcase_add_test(tc, mujoco_release_fields);
	tcase_add_test(tc, eval_and_find_release_fields);
	tcase_add_test(tc, documented_defaults_are_real);
	tcase_add_test(tc, error_codes_are_the_services);
	tcase_add_test(tc, rejections_documented);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(calib, calib_setup, teardown);
	tcase_set_timeout(calib, 300);
	tcase_add_test(calib, calibration_examples_answered);
	tcase_add_test(calib, calibration_defaults_are_real);
	tcase_add_test(calib, calibration_fields_rejected);
	tcase_add_test(calib, calibration_rejections_documented);
	suite_add_tcase(s, calib);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
