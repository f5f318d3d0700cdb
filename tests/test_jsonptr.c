/*
 * test_jsonptr.c: RFC 6901 JSON Pointers (base/jsonptr.h).
 *
 * Expected values follow the RFC's own example document (§5) and escapes (§4).
 */
#include <check.h>
#include <string.h>

#include "base/jsonptr.h"

/* RFC 6901 §5's example document */
static const char rfc_document[] =
    "{\"foo\": [\"bar\", \"baz\"], \"\": 0, \"a/b\": 1, \"c%d\": 2, \"e^f\": 3, \"g|h\": 4,"
    " \"i\\\\j\": 5, \"k\\\"l\": 6, \" \": 7, \"m~n\": 8}";

static json_t *load(const char *text)
{
	json_t *v = json_loads(text, 0, NULL);

	ck_assert_ptr_nonnull(v);
	return v;
}

START_TEST(rfc_examples_resolve)
{
	static const struct {
		const char *ptr;
		const char *expected; /* JSON text of the value */
	} cases[] = {
	    {"/foo", "[\"bar\", \"baz\"]"},
	    {"/foo/0", "\"bar\""},
	    {"/", "0"},
	    {"/a~1b", "1"},
	    {"/c%d", "2"},
	    {"/e^f", "3"},
	    {"/g|h", "4"},
	    {"/i\\j", "5"},
	    {"/k\"l", "6"},
	    {"/ ", "7"},
	    {"/m~0n", "8"},
	};
	json_t *doc = load(rfc_document), *found, *expected;
	struct err err;
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		err_clear(&err);
		ck_assert_msg(jptr_get(doc, cases[i].ptr, "/where", &found, &err) == 0, "%s: %s",
		    cases[i].ptr, err.message);
		expected = json_loads(cases[i].expected, JSON_DECODE_ANY, NULL);
		ck_assert_msg(
		    json_equal(found, expected), "%s resolved to the wrong value", cases[i].ptr);
		json_decref(expected);
	}
	/* "" is the whole document */
	ck_assert_int_eq(jptr_get(doc, "", "/where", &found, &err), 0);
	ck_assert_ptr_eq(found, doc);
	json_decref(doc);
}
END_TEST

START_TEST(escapes_decode_left_to_right)
{
	/* "~01" is "~1" (not "/"): RFC 6901 §4 */
	json_t *doc = load("{\"~1\": 1, \"/\": 2}"), *found;
	struct err err;

	err_clear(&err);
	ck_assert_int_eq(jptr_get(doc, "/~01", "", &found, &err), 0);
	ck_assert_int_eq(json_integer_value(found), 1);
	ck_assert_int_eq(jptr_get(doc, "/~1", "", &found, &err), 0);
	ck_assert_int_eq(json_integer_value(found), 2);
	json_decref(doc);
}
END_TEST

START_TEST(bad_pointers_and_missing_fields)
{
	static const struct {
		const char *ptr;
		enum err_code code;
	} cases[] = {
	    {"foo", ERR_BAD_VALUE},   /* no leading '/' */
	    {"/m~2n", ERR_BAD_VALUE}, /* '~' must be followed by 0 or 1 */
	    {"/m~", ERR_BAD_VALUE}, {"/nope", ERR_UNKNOWN_FIELD},
	    {"/foo/2", ERR_UNKNOWN_FIELD},  /* past the end */
	    {"/foo/-", ERR_UNKNOWN_FIELD},  /* the append token has no value */
	    {"/foo/01", ERR_UNKNOWN_FIELD}, /* leading zero */
	    {"/foo/-1", ERR_UNKNOWN_FIELD}, {"/foo/1x", ERR_UNKNOWN_FIELD},
	    {"/foo/99999999999999999999999", ERR_UNKNOWN_FIELD},
	    {"/foo/0/x", ERR_UNKNOWN_FIELD}, /* into a string */
	    {"/a~1b/c", ERR_UNKNOWN_FIELD},  /* into a number */
	};
	json_t *doc = load(rfc_document), *found;
	struct err err;
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		err_clear(&err);
		ck_assert_msg(jptr_get(doc, cases[i].ptr, "/vary/0/path", &found, &err) == -1,
		    "%s resolved", cases[i].ptr);
		ck_assert_msg(
		    err.code == cases[i].code, "%s: %s", cases[i].ptr, err_name(err.code));
		ck_assert_str_eq(err.path, "/vary/0/path");
	}
	json_decref(doc);
}
END_TEST

/* A pointer without its leading '/' is told what is wrong with it and what it meant,
 * by jptr_get and jptr_set alike, and through a sweep's vary path. */
START_TEST(missing_slash_says_what_was_meant)
{
	json_t *doc = load("{\"geom\": {\"solref\": [0.02, 1]}}"), *found, *one = json_real(1);
	struct err err;

	err_clear(&err);
	ck_assert_int_eq(jptr_get(doc, "geom/solref/0", "/vary/0/path", &found, &err), -1);
	ck_assert_int_eq(err.code, ERR_BAD_VALUE);
	ck_assert_str_eq(err.message,
	    "\"geom/solref/0\": a JSON Pointer starts with \"/\"; did you mean "
	    "\"/geom/solref/0\"?");
	err_clear(&err);
	ck_assert_int_eq(jptr_set(doc, "geom/solref/1", one, "/vary/1/path", &err), -1);
	ck_assert_str_eq(err.path, "/vary/1/path");
	ck_assert_ptr_nonnull(strstr(err.message, "did you mean \"/geom/solref/1\"?"));
	/* the suggestion is a pointer that resolves */
	ck_assert_int_eq(jptr_get(doc, "/geom/solref/0", "", &found, &err), 0);
	json_decref(one);
	json_decref(doc);
}
END_TEST

START_TEST(set_replaces_and_adds)
{
	json_t *doc = load("{\"geom\": {\"solref\": [0.02, 1]}, \"m~n\": {}}");
	json_t *value = json_real(0.5), *expected;
	struct err err;

	err_clear(&err);
	ck_assert_int_eq(jptr_set(doc, "/geom/solref/1", value, "", &err), 0);
	ck_assert_int_eq(jptr_set(doc, "/geom/margin", value, "", &err), 0);
	ck_assert_int_eq(jptr_set(doc, "/m~0n/a~1b", value, "", &err), 0);
	/* the caller keeps its reference: the document holds three more */
	ck_assert_int_eq(value->refcount, 4);
	json_decref(value);
	expected = load("{\"geom\": {\"solref\": [0.02, 0.5], \"margin\": 0.5}, \"m~n\": {\"a/b\": "
	                "0.5}}");
	ck_assert(json_equal(doc, expected));
	json_decref(expected);

	value = json_null();
	ck_assert_int_eq(jptr_set(doc, "/geom/solref/2", value, "/p", &err), -1);
	ck_assert_int_eq(err.code, ERR_UNKNOWN_FIELD);
	ck_assert_str_eq(err.path, "/p");
	ck_assert_int_eq(jptr_set(doc, "/body/mass", value, "/p", &err), -1);
	ck_assert_int_eq(err.code, ERR_UNKNOWN_FIELD);
	ck_assert_int_eq(jptr_set(doc, "", value, "/p", &err), -1);
	ck_assert_int_eq(err.code, ERR_BAD_VALUE);
	ck_assert_int_eq(jptr_set(doc, "/geom/solref/0/x", value, "/p", &err), -1);
	json_decref(doc);
}
END_TEST

START_TEST(append_escapes_and_truncates)
{
	char buf[64];
	char tiny[8];

	jptr_append_key(buf, sizeof buf, "/vary", "a/b~c");
	ck_assert_str_eq(buf, "/vary/a~1b~0c");
	jptr_append_index(buf, sizeof buf, buf, 12);
	ck_assert_str_eq(buf, "/vary/a~1b~0c/12");
	jptr_append_key(buf, sizeof buf, "", "");
	ck_assert_str_eq(buf, "/");
	/* truncated, still NUL-terminated, never half an escape */
	jptr_append_key(tiny, sizeof tiny, "/abcd", "~~");
	ck_assert_str_eq(tiny, "/abcd/");
	jptr_append_key(tiny, sizeof tiny, "/abcdefghij", "x");
	ck_assert_uint_eq(strlen(tiny), sizeof tiny - 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("jsonptr");
	TCase *tc = tcase_create("pointer");
	SRunner *runner;
	int failed;

	tcase_add_test(tc, rfc_examples_resolve);
	tcase_add_test(tc, escapes_decode_left_to_right);
	tcase_add_test(tc, bad_pointers_and_missing_fields);
	tcase_add_test(tc, missing_slash_says_what_was_meant);
	tcase_add_test(tc, set_replaces_and_adds);
	tcase_add_test(tc, append_escapes_and_truncates);
	suite_add_tcase(s, tc);
	runner = srunner_create(s);
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? 0 : 1;
}
