/*
 * test_cors.c: the real contactd over HTTP (libcurl, tests/live.h) for what a web page
 * sees: CORS (--cors-origin, preflights, Vary, credentials), the embedded dashboard
 * files, and the drop trajectory the drop page plots.
 *
 * CONTACTD comes from tests/http.mk. Each test runs its own daemon (Check's fork mode).
 * The expected headers are those of the Fetch standard's CORS protocol: a browser
 * reads an answer only if Access-Control-Allow-Origin is "*" or its own origin, sends
 * credentials only when Access-Control-Allow-Credentials is "true" and the origin is
 * named (never with "*"), and checks a preflight's Allow-Methods/Allow-Headers.
 */
#include <check.h>
#include <curl/curl.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "live.h"
#include "robot.h"
#include "service/knobs.h"
#include "http/knobs.h"

static struct live_daemon dmn;

static void setup(void)
{
	live_init(&dmn);
}

static void teardown(void)
{
	live_cleanup(&dmn);
}

static const char lab[] = "http://lab.example:8080";
static const char drop_req[] = "{\"height\": 0.1, \"duration\": 0.5}";

/* Assert the reply's header name is value (NULL: absent). */
static void assert_header(const struct live_reply *r, const char *name, const char *value)
{
	char got[512];
	int present = live_header(r, name, got, sizeof got);

	if (!value)
		ck_assert_msg(!present, "%s should be absent, is '%s'", name, got);
	else
		ck_assert_msg(present && strcmp(got, value) == 0, "%s is '%s', not '%s'", name,
		    present ? got : "(absent)", value);
}

/* A request with an Origin header (and more headers, NULL-terminated). */
static void from_origin(const char *origin, const char *method, const char *path, const char *extra,
    const char *body, struct live_reply *r)
{
	char origin_line[256];
	const char *headers[4] = {"Content-Type: application/json", origin_line, extra, NULL};

	snprintf(origin_line, sizeof origin_line, "Origin: %s", origin);
	live_request(&dmn, method, path, headers, body, body ? strlen(body) : 0, 0, r);
}

static void preflight(
    const char *origin, const char *path, const char *method, struct live_reply *r)
{
	char origin_line[256], method_line[64];
	const char *headers[] = {origin_line, method_line,
	    "Access-Control-Request-Headers: content-type, authorization", NULL};

	snprintf(origin_line, sizeof origin_line, "Origin: %s", origin);
	snprintf(method_line, sizeof method_line, "Access-Control-Request-Method: %s", method);
	live_request(&dmn, "OPTIONS", path, headers, NULL, 0, 0, r);
}

/* Without --cors-origin nothing is shared: no CORS header, and a preflight is refused. */
START_TEST(no_cors_by_default)
{
	struct live_reply r;

	live_start(&dmn, (char *)NULL);
	from_origin(lab, "POST", "/v1/drop", NULL, drop_req, &r);
	ck_assert_int_eq(r.status, 200);
	assert_header(&r, "Access-Control-Allow-Origin", NULL);
	assert_header(&r, "Vary", NULL);
	live_reply_free(&r);
	preflight(lab, "/v1/sweep", "POST", &r);
	live_assert_error(&r, 403, "forbidden", "");
	assert_header(&r, "Access-Control-Allow-Origin", NULL);
	live_reply_free(&r);
	/* a plain OPTIONS (no preflight) names the methods, as RFC 9110 says */
	live_request(&dmn, "OPTIONS", "/v1/sweep", NULL, NULL, 0, 0, &r);
	ck_assert_int_eq(r.status, 204);
	ck_assert_str_eq(r.allow, "POST, OPTIONS");
	live_reply_free(&r);
	live_request(&dmn, "OPTIONS", "/v1/nowhere", NULL, NULL, 0, 0, &r);
	live_assert_error(&r, 404, "not_found", NULL);
	live_reply_free(&r);
}
END_TEST

/* A named origin is echoed with credentials and Vary; another origin is not. */
START_TEST(named_origin)
{
	struct live_reply r;

	live_start(
	    &dmn, "--cors-origin", lab, "--cors-origin", "https://other.example", (char *)NULL);
	preflight(lab, "/v1/sweep", "POST", &r);
	ck_assert_int_eq(r.status, 204);
	ck_assert_uint_eq(r.len, 0);
	assert_header(&r, "Access-Control-Allow-Origin", lab);
	assert_header(&r, "Access-Control-Allow-Methods", "POST, OPTIONS");
	assert_header(&r, "Access-Control-Allow-Headers", CORS_ALLOW_HEADERS);
	assert_header(&r, "Access-Control-Allow-Credentials", "true");
	assert_header(&r, "Vary", "Origin");
	live_reply_free(&r);
	preflight(lab, "/v1/health", "GET", &r);
	ck_assert_int_eq(r.status, 204);
	assert_header(&r, "Access-Control-Allow-Methods", "GET, HEAD, OPTIONS");
	live_reply_free(&r);

	from_origin(lab, "POST", "/v1/drop", NULL, drop_req, &r);
	ck_assert_int_eq(r.status, 200);
	assert_header(&r, "Access-Control-Allow-Origin", lab);
	assert_header(&r, "Access-Control-Allow-Credentials", "true");
	assert_header(&r, "Access-Control-Expose-Headers", CORS_EXPOSE_HEADERS);
	assert_header(&r, "Vary", "Origin");
	live_reply_free(&r);
	/* an error answer is readable too, so a page can show the message */
	from_origin(lab, "POST", "/v1/drop", NULL, "{\"height\": -1}", &r);
	live_assert_error(&r, 422, "bad_value", "/height");
	assert_header(&r, "Access-Control-Allow-Origin", lab);
	live_reply_free(&r);

	/* not named: no Allow-Origin (the browser refuses), but still Vary */
	from_origin("http://evil.example", "POST", "/v1/drop", NULL, drop_req, &r);
	ck_assert_int_eq(r.status, 200);
	assert_header(&r, "Access-Control-Allow-Origin", NULL);
	assert_header(&r, "Vary", "Origin");
	live_reply_free(&r);
	preflight("http://evil.example", "/v1/sweep", "POST", &r);
	live_assert_error(&r, 403, "forbidden", "");
	live_reply_free(&r);
	/* the same host on another port or scheme is another origin */
	preflight("https://lab.example:8080", "/v1/sweep", "POST", &r);
	ck_assert_int_eq(r.status, 403);
	live_reply_free(&r);
	preflight("http://lab.example", "/v1/sweep", "POST", &r);
	ck_assert_int_eq(r.status, 403);
	live_reply_free(&r);

	/* the pages and the metrics are never shared */
	from_origin(lab, "GET", "/metrics", NULL, NULL, &r);
	ck_assert_int_eq(r.status, 200);
	assert_header(&r, "Access-Control-Allow-Origin", NULL);
	live_reply_free(&r);
	from_origin(lab, "GET", "/", NULL, NULL, &r);
	ck_assert_int_eq(r.status, 200);
	assert_header(&r, "Access-Control-Allow-Origin", NULL);
	live_reply_free(&r);
}
END_TEST

/* "*": the open routes to any origin without credentials; the calibration routes stay
 * closed to every origin that is not named. */
START_TEST(any_origin)
{
	struct live_reply r;

	live_start(&dmn, "--cors-origin", "*", (char *)NULL);
	from_origin("http://anywhere.example", "POST", "/v1/drop", NULL, drop_req, &r);
	ck_assert_int_eq(r.status, 200);
	assert_header(&r, "Access-Control-Allow-Origin", "*");
	assert_header(&r, "Access-Control-Allow-Credentials", NULL);
	/* "*" answers the same to every origin: nothing to vary on */
	assert_header(&r, "Vary", NULL);
	live_reply_free(&r);
	preflight("http://anywhere.example", "/v1/eval", "POST", &r);
	ck_assert_int_eq(r.status, 204);
	assert_header(&r, "Access-Control-Allow-Origin", "*");
	assert_header(&r, "Access-Control-Allow-Credentials", NULL);
	live_reply_free(&r);
	from_origin("http://anywhere.example", "GET", "/v1/openapi.json", NULL, NULL, &r);
	assert_header(&r, "Access-Control-Allow-Origin", "*");
	live_reply_free(&r);

	preflight("http://anywhere.example", "/v1/robots/so101/calibrations", "POST", &r);
	live_assert_error(&r, 403, "forbidden", "");
	live_reply_free(&r);
	from_origin("http://anywhere.example", "GET", "/v1/calibrations/1", NULL, NULL, &r);
	ck_assert_int_eq(r.status, 401);
	assert_header(&r, "Access-Control-Allow-Origin", NULL);
	live_reply_free(&r);
}
END_TEST

/* A named origin may call the calibration routes, which still demand their token. */
START_TEST(calibration_routes)
{
	static const char setup_req[] = "{\"object\": {\"shape\": \"sphere\", \"size\": 0.02, "
	                                "\"mass\": 0.1}, \"option\": {\"timestep\": 0.005}}";
	char token[ROBOT_TOKEN_MAX], auth[128];
	struct live_reply r;
	json_t *v;
	char path[64];

	robot_token_create(&dmn, "so101", token);
	live_start(&dmn, "--cors-origin", "*", "--cors-origin", lab, (char *)NULL);
	preflight(lab, "/v1/robots/so101/calibrations", "POST", &r);
	ck_assert_int_eq(r.status, 204);
	assert_header(&r, "Access-Control-Allow-Origin", lab);
	assert_header(&r, "Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS");
	assert_header(&r, "Access-Control-Allow-Headers", CORS_ALLOW_HEADERS);
	live_reply_free(&r);
	/* no token: 401, readable by the page */
	from_origin(lab, "POST", "/v1/robots/so101/calibrations", NULL, setup_req, &r);
	ck_assert_int_eq(r.status, 401);
	assert_header(&r, "Access-Control-Allow-Origin", lab);
	live_reply_free(&r);
	snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
	from_origin(lab, "POST", "/v1/robots/so101/calibrations", auth, setup_req, &r);
	ck_assert_int_eq(r.status, 201);
	assert_header(&r, "Access-Control-Allow-Origin", lab);
	assert_header(&r, "Access-Control-Allow-Credentials", "true");
	v = live_json(&r);
	snprintf(path, sizeof path, "/v1/calibrations/%lld",
	    (long long)json_integer_value(json_object_get(v, "id")));
	json_decref(v);
	live_reply_free(&r);
	from_origin(lab, "GET", path, auth, NULL, &r);
	ck_assert_int_eq(r.status, 200);
	assert_header(&r, "Access-Control-Allow-Origin", lab);
	live_reply_free(&r);
	/* with the token but from an origin only "*" covers: no Allow-Origin */
	from_origin("http://anywhere.example", "GET", path, auth, NULL, &r);
	ck_assert_int_eq(r.status, 200);
	assert_header(&r, "Access-Control-Allow-Origin", NULL);
	assert_header(&r, "Vary", "Origin");
	live_reply_free(&r);
}
END_TEST

START_TEST(bad_origin_flags)
{
	static const char *const bad[] = {
	    "lab.example", "http://lab.example/", "ftp://x", "http://", "http://a b", "http://x?y"};
	char log[512];
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char cmd[1024];
		int status;

		snprintf(cmd, sizeof cmd, "'%s' --port 0 --db '%s' --cors-origin '%s' 2>'%s/err'",
		    CONTACTD, dmn.db, bad[i], dmn.dir);
		status = system(cmd);
		ck_assert_msg(
		    WIFEXITED(status) && WEXITSTATUS(status) == 2, "%s: exit %d", bad[i], status);
		snprintf(log, sizeof log, "%s/err", dmn.dir);
		{
			char *text = live_read_file(log, NULL);

			ck_assert_ptr_nonnull(strstr(text, "--cors-origin"));
			free(text);
		}
	}
}
END_TEST

/* The dashboard: every page and script from the binary, with its type and policy. */
START_TEST(dashboard_files)
{
	static const struct {
		const char *path, *type, *needle;
	} files[] = {
	    {"/", "text/html; charset=utf-8", "sweep.html"},
	    {"/index.html", "text/html; charset=utf-8", "sweep.html"},
	    {"/sweep.html", "text/html; charset=utf-8", "sweep.js"},
	    {"/drop.html", "text/html; charset=utf-8", "drop.js"},
	    {"/live.html", "text/html; charset=utf-8", "live.js"},
	    {"/api.html", "text/html; charset=utf-8", "api.js"},
	    {"/style.css", "text/css; charset=utf-8", "@media"},
	    {"/chart.min.js", "text/javascript; charset=utf-8", "Chart.js v3"},
	};
	struct live_reply r;
	char csp[512];
	size_t i;

	live_start(&dmn, (char *)NULL);
	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		live_get(&dmn, files[i].path, &r);
		ck_assert_int_eq(r.status, 200);
		ck_assert_str_eq(r.content_type, files[i].type);
		ck_assert_msg(
		    strstr(r.body, files[i].needle), "%s lacks %s", files[i].path, files[i].needle);
		ck_assert(live_header(&r, "Content-Security-Policy", csp, sizeof csp));
		ck_assert_ptr_nonnull(strstr(csp, "default-src 'self'"));
		assert_header(&r, "X-Content-Type-Options", "nosniff");
		live_reply_free(&r);
	}
	/* no page links anywhere off the daemon (no CDN): every src/href is relative */
	live_get(&dmn, "/sweep.html", &r);
	ck_assert_ptr_null(strstr(r.body, "src=\"http"));
	ck_assert_ptr_null(strstr(r.body, "href=\"http"));
	ck_assert_ptr_null(strstr(r.body, "src=\"//"));
	live_reply_free(&r);
	live_request(&dmn, "HEAD", "/drop.html", NULL, NULL, 0, 0, &r);
	ck_assert_int_eq(r.status, 200);
	ck_assert_uint_eq(r.len, 0);
	live_reply_free(&r);
	live_request(&dmn, "POST", "/", live_json_headers, "{}", 2, 0, &r);
	live_assert_error(&r, 405, "method_not_allowed", NULL);
	ck_assert_str_eq(r.allow, "GET, HEAD");
	live_reply_free(&r);
	live_get(&dmn, "/nope.html", &r);
	live_assert_error(&r, 404, "not_found", NULL);
	live_reply_free(&r);
	live_get(&dmn, "/../README.md", &r);
	ck_assert_int_eq(r.status, 404);
	live_reply_free(&r);
}
END_TEST

/* "trajectory": true adds the path; without it the answer's bytes do not change, and
 * the two are cached under different keys. */
START_TEST(drop_trajectory)
{
	static const char with[] = "{\"height\": 0.1, \"duration\": 0.5, \"trajectory\": true}";
	static const char off[] = "{\"height\": 0.1, \"duration\": 0.5, \"trajectory\": false}";
	struct live_reply plain, traced, r;
	json_t *a, *b, *t, *z;
	double zmin = INFINITY;
	size_t i;

	live_start(&dmn, (char *)NULL);
	live_post(&dmn, "/v1/drop", drop_req, &plain);
	ck_assert_str_eq(plain.cache, "miss");
	live_post(&dmn, "/v1/drop", with, &traced);
	ck_assert_int_eq(traced.status, 200);
	ck_assert_str_eq(traced.cache, "miss"); /* not the plain answer's cache row */
	live_post(&dmn, "/v1/drop", off, &r);
	ck_assert_str_eq(r.cache, "hit"); /* false is the plain question */
	ck_assert_str_eq(r.body, plain.body);
	live_reply_free(&r);
	a = live_json(&plain);
	b = live_json(&traced);
	ck_assert_ptr_null(json_object_get(a, "trajectory"));
	t = json_object_get(json_object_get(b, "trajectory"), "t");
	z = json_object_get(json_object_get(b, "trajectory"), "z");
	/* 0.5 s at 2 ms is 250 steps, under the bound: every step and the start */
	ck_assert_uint_eq(json_array_size(t), 251);
	ck_assert_uint_eq(json_array_size(z), 251);
	for (i = 0; i < json_array_size(z); i++) {
		double zi = json_real_value(json_array_get(z, i));

		/* t is the step count times the timestep, computed the same way: exact */
		ck_assert_double_eq(json_real_value(json_array_get(t, i)), (double)i * 0.002);
		if (zi < zmin)
			zmin = zi;
	}
	ck_assert_double_eq(json_real_value(json_array_get(z, 0)), 0.1);
	/* the metrics and the path come from the same loop: equal, not close */
	ck_assert_double_eq(zmin, -json_real_value(json_object_get(a, "peak_penetration")));
	ck_assert_double_eq(json_real_value(json_array_get(z, 250)),
	    -json_real_value(json_object_get(a, "final_penetration")));
	/* every other field is the plain answer's */
	json_object_del(b, "trajectory");
	ck_assert(json_equal(a, b));
	json_decref(a);
	json_decref(b);
	live_reply_free(&plain);
	live_reply_free(&traced);

	live_post(&dmn, "/v1/drop", "{\"trajectory\": 1}", &r);
	live_assert_error(&r, 400, "bad_type", "/trajectory");
	live_reply_free(&r);
	/* a sweep's base is a scene, not a drop page: the flag is unknown there */
	live_post(&dmn, "/v1/sweep",
	    "{\"query\": \"drop\", \"base\": {\"trajectory\": true}, \"vary\": "
	    "[{\"path\": \"/height\", \"values\": [0.1]}]}",
	    &r);
	live_assert_error(&r, 400, "unknown_field", "/base/trajectory");
	live_reply_free(&r);
}
END_TEST

/* A long drop is decimated to the bound and keeps its extremes. */
START_TEST(drop_trajectory_decimated)
{
	static const char body[] = "{\"duration\": 30, \"trajectory\": true}";
	struct live_reply r;
	json_t *v, *t, *z;
	double zmin = INFINITY, zmax = -INFINITY, last_t = -1;
	size_t i, n;

	live_start(&dmn, (char *)NULL);
	live_post(&dmn, "/v1/drop", body, &r);
	ck_assert_int_eq(r.status, 200);
	v = live_json(&r);
	t = json_object_get(json_object_get(v, "trajectory"), "t");
	z = json_object_get(json_object_get(v, "trajectory"), "z");
	n = json_array_size(t);
	ck_assert_uint_le(n, LIMIT_TRAJECTORY_POINTS);
	ck_assert_uint_gt(n, LIMIT_TRAJECTORY_POINTS / 4);
	for (i = 0; i < n; i++) {
		double ti = json_real_value(json_array_get(t, i));
		double zi = json_real_value(json_array_get(z, i));

		ck_assert_double_gt(ti, last_t);
		last_t = ti;
		if (i > 0 && zi > zmax)
			zmax = zi;
		if (zi < zmin)
			zmin = zi;
	}
	ck_assert_double_eq(last_t, 30.0); /* 15000 steps of 2 ms: the last one kept */
	ck_assert_double_eq(zmin, -json_real_value(json_object_get(v, "peak_penetration")));
	ck_assert_double_eq(zmax, json_real_value(json_object_get(v, "max_height")));
	ck_assert_double_eq(json_real_value(json_array_get(z, n - 1)),
	    -json_real_value(json_object_get(v, "final_penetration")));
	json_decref(v);
	live_reply_free(&r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cors");
	TCase *tc = tcase_create("contactd");
	SRunner *sr;
	int failed;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, no_cors_by_default);
	tcase_add_test(tc, named_origin);
	tcase_add_test(tc, any_origin);
	tcase_add_test(tc, calibration_routes);
	tcase_add_test(tc, bad_origin_flags);
	tcase_add_test(tc, dashboard_files);
	tcase_add_test(tc, drop_trajectory);
	tcase_add_test(tc, drop_trajectory_decimated);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	curl_global_cleanup();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
