/*
 * test_http_model.c: POST /v1/model over real HTTP with an application/xml body (the raw
 * MJCF as the one file, the release from ?mujoco=): the same answer and cache entry as
 * the JSON form, an <include> refused with a 422 naming its line, the body limit, bad
 * XML, and the 415 that names both media types.
 */
#include <check.h>
#include <curl/curl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live.h"

static struct live_daemon dmn;

static void setup(void)
{
	live_init(&dmn);
}

static void teardown(void)
{
	live_cleanup(&dmn);
}

static const char *const xml_headers[] = {"Content-Type: application/xml", NULL};
static const char *const text_xml_headers[] = {"Content-Type: text/xml; charset=utf-8", NULL};
static const char *const plain_headers[] = {"Content-Type: text/plain", NULL};

/* a plane of margin 3 mm and a sphere of margin 2 mm: the pair's margin is the max
 * (0.003) before 3.5.0 and the sum (0.005) from it (docs/releases.md) */
static const char scene[] =
    "<mujoco>\n<worldbody>\n<geom type=\"plane\" size=\"0 0 1\" margin=\"0.003\"/>\n"
    "<body pos=\"0 0 0.1\"><freejoint/><geom size=\"0.05\" margin=\"0.002\"/></body>\n"
    "</worldbody>\n</mujoco>\n";

static double pair_margin(const struct live_reply *r)
{
	json_t *a = live_json(r);
	double v = json_real_value(
	    json_object_get(json_array_get(json_object_get(a, "pairs"), 0), "margin"));
	json_decref(a);
	return v;
}

START_TEST(xml_body_is_the_main_file)
{
	struct live_reply r, j;
	json_t *req, *a, *b;
	char *body;

	live_start(&dmn, (char *)NULL);
	live_request(&dmn, "POST", "/v1/model", xml_headers, scene, strlen(scene), 0, &r);
	ck_assert_msg(r.status == 200, "%s", r.body);
	ck_assert_str_eq(r.cache, "miss");
	a = live_json(&r);
	ck_assert_str_eq(json_string_value(json_object_get(a, "main")), "model.xml");
	ck_assert_str_eq(json_string_value(json_object_get(a, "mujoco")), "3.14.0");
	ck_assert_double_eq_tol(pair_margin(&r), 0.005, 1e-17);
	/* the JSON form of the same file is the same question: the cache's entry */
	req = json_pack("{s:s, s:{s:s}}", "main", "model.xml", "files", "model.xml", scene);
	body = json_dumps(req, JSON_COMPACT);
	live_post(&dmn, "/v1/model", body, &j);
	ck_assert_msg(j.status == 200, "%s", j.body);
	ck_assert_str_eq(j.cache, "hit");
	b = live_json(&j);
	ck_assert(json_equal(a, b));
	json_decref(a);
	json_decref(b);
	live_reply_free(&r);
	live_reply_free(&j);
	free(body);
	json_decref(req);
	/* the release from the query; text/xml as application/xml */
	live_request(
	    &dmn, "POST", "/v1/model?mujoco=2.2.2", text_xml_headers, scene, strlen(scene), 0, &r);
	ck_assert_msg(r.status == 200, "%s", r.body);
	a = live_json(&r);
	ck_assert_str_eq(json_string_value(json_object_get(a, "mujoco")), "2.2.2");
	ck_assert_double_eq_tol(pair_margin(&r), 0.003, 1e-17);
	json_decref(a);
	live_reply_free(&r);
	live_request(
	    &dmn, "POST", "/v1/model?mujoco=3.15.0", xml_headers, scene, strlen(scene), 0, &r);
	live_assert_error(&r, 422, "bad_value", "/mujoco");
	live_reply_free(&r);
}
END_TEST

START_TEST(xml_body_refusals)
{
	static const char include[] =
	    "<mujoco>\n<include file=\"so101.xml\"/>\n<worldbody/>\n</mujoco>\n";
	static const char broken[] = "<mujoco>\n<worldbody>\n<geom size=\"0.1\">\n</mujoco>\n";
	char big[1500];
	struct live_reply r;
	json_t *a;

	live_start(&dmn, "--max-body", "1024", (char *)NULL);
	/* an include: the body is one file, so a 422 naming the element and its line */
	live_request(&dmn, "POST", "/v1/model", xml_headers, include, strlen(include), 0, &r);
	live_assert_error(&r, 422, "bad_value", "");
	a = live_json(&r);
	ck_assert_msg(strstr(json_string_value(json_object_get(a, "message")),
	                  "model.xml:2: <include>: an application/xml body is one file, and it "
	                  "includes \"so101.xml\"") != NULL,
	    "%s", r.body);
	json_decref(a);
	live_reply_free(&r);
	/* not well-formed: the file and the line */
	live_request(&dmn, "POST", "/v1/model", xml_headers, broken, strlen(broken), 0, &r);
	live_assert_error(&r, 422, "bad_value", "");
	ck_assert_msg(strstr(r.body, "model.xml:") != NULL, "%s", r.body);
	live_reply_free(&r);
	/* the body limit applies to the XML as sent */
	memset(big, ' ', sizeof big);
	memcpy(big, scene, strlen(scene));
	live_request(&dmn, "POST", "/v1/model", xml_headers, big, 1025, 0, &r);
	live_assert_error(&r, 413, "too_large", "");
	live_reply_free(&r);
	/* 1024 bytes pass, though its JSON form (quotes and newlines escaped) is longer */
	live_request(&dmn, "POST", "/v1/model", xml_headers, big, 1024, 0, &r);
	ck_assert_msg(r.status == 200, "%s", r.body);
	live_reply_free(&r);
	/* another type: the 415 names both */
	live_request(&dmn, "POST", "/v1/model", plain_headers, scene, strlen(scene), 0, &r);
	live_assert_error(&r, 415, "unsupported_media_type", "");
	ck_assert_msg(strstr(r.body, "application/json or application/xml") != NULL, "%s", r.body);
	live_reply_free(&r);
	/* other endpoints take JSON only */
	live_request(&dmn, "POST", "/v1/rest", xml_headers, scene, strlen(scene), 0, &r);
	live_assert_error(&r, 415, "unsupported_media_type", "");
	live_reply_free(&r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("http_model");
	TCase *tc = tcase_create("xml");
	SRunner *sr;
	int failed;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, xml_body_is_the_main_file);
	tcase_add_test(tc, xml_body_refusals);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	curl_global_cleanup();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
