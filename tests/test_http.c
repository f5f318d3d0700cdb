/*
 * test_http.c: the real contactd, started on a free port with a temporary database,
 * driven over HTTP with libcurl (and raw sockets for misbehaving clients).
 *
 * CONTACTD and CONTACT (the programs under test) and SRCDIR come from tests/http.mk.
 * Each test runs in its own process (Check's fork mode) with its own daemon and
 * temporary directory; a daemon dies with its test (PR_SET_PDEATHSIG) even when an
 * assertion ends the test early.
 *
 * Waits are generous upper bounds (seconds where the event takes milliseconds), so
 * a loaded 2-core machine cannot fail a test; nothing asserts a duration.
 */
#include <arpa/inet.h>
#include <check.h>
#include <curl/curl.h>
#include <errno.h>
#include <jansson.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "http/status.h"
#include "live.h"
#include "core/knobs.h"
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

static int file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* ---- requests used throughout (the contract's shapes) ---- */

static const char rest_req[] = "{\"body\": {\"shape\": \"box\", \"size\": 0.05, \"mass\": 1.0}}";
static const char drop_req[] =
    "{\"body\": {\"shape\": \"sphere\", \"size\": 0.05, \"mass\": 1}, \"height\": 0.1,"
    " \"duration\": 0.5}";
static const char stability_req[] = "{\"solref\": [0.02, 1], \"option\": {\"timestep\": 0.01}}";
static const char sweep_req[] =
    "{\"query\": \"stability\", \"base\": {}, \"vary\": [{\"path\": \"/solref/0\","
    " \"values\": [0.001, 0.002, 0.005, 0.01, 0.02]}]}";
static const char eval_req[] =
    "{\"calls\": [{\"function\": \"impedance\", \"args\": {\"r\": 0.0005,"
    " \"solimp\": [0.9, 0.95, 0.001, 0.5, 2]}}, {\"function\": \"error_reduction\","
    " \"args\": {\"timeconst\": 0.02, \"dampratio\": 1, \"dt\": 0.002}}]}";

static const struct question {
	const char *endpoint;
	const char *body;
} questions[] = {
    {"rest", rest_req},
    {"drop", drop_req},
    {"stability", stability_req},
    {"sweep", sweep_req},
    {"eval", eval_req},
};
#define QUESTIONS (sizeof questions / sizeof questions[0])

static void question_path(const struct question *q, char *path, size_t size)
{
	snprintf(path, size, "/v1/%s", q->endpoint);
}

/* ---- tests: endpoints ---- */

START_TEST(health)
{
	struct live_reply r;
	json_t *v, *cal;

	live_start(&dmn, (char *)NULL);
	live_get(&dmn, "/v1/health", &r);
	ck_assert_int_eq(r.status, 200);
	v = live_json(&r);
	ck_assert_str_eq(json_string_value(json_object_get(v, "status")), "ok");
	ck_assert_str_eq(json_string_value(json_object_get(v, "store")), "ok");
	ck_assert_str_eq(json_string_value(json_object_get(v, "core_version")), CORE_VERSION);
	ck_assert_int_ge(json_integer_value(json_object_get(v, "schema_version")), 1);
	ck_assert_ptr_nonnull(json_string_value(json_object_get(v, "version")));
	/* the calibration store: here the --db file itself */
	cal = json_object_get(v, "calibration_store");
	ck_assert_str_eq(json_string_value(json_object_get(cal, "engine")), "sqlite");
	ck_assert(json_is_true(json_object_get(cal, "reachable")));
	ck_assert_uint_eq(json_object_size(cal), 2);
	json_decref(v);
	live_reply_free(&r);
	live_request(&dmn, "HEAD", "/v1/health", NULL, NULL, 0, 0, &r);
	ck_assert_int_eq(r.status, 200);
	ck_assert_uint_eq(r.len, 0);
	live_reply_free(&r);
}
END_TEST

/* Every question endpoint answers 200 with a JSON object, first from the core. */
START_TEST(questions_answer)
{
	size_t i;

	live_start(&dmn, (char *)NULL);
	for (i = 0; i < QUESTIONS; i++) {
		char path[64];
		struct live_reply r;
		json_t *v;

		question_path(&questions[i], path, sizeof path);
		live_post(&dmn, path, questions[i].body, &r);
		ck_assert_msg(r.status == 200, "%s: %ld %s", path, r.status, r.body);
		ck_assert_str_eq(r.content_type, "application/json");
		ck_assert_str_eq(r.cache, "miss");
		ck_assert_msg(r.len > 0 && r.body[r.len - 1] == '\n', "%s: no final newline", path);
		v = live_json(&r);
		ck_assert(json_is_object(v));
		ck_assert_int_gt(json_object_size(v), 0);
		json_decref(v);
		live_reply_free(&r);
	}
}
END_TEST

/* The same question twice: a miss, then a hit with the very same bytes. */
START_TEST(cache_miss_then_hit)
{
	size_t i;

	live_start(&dmn, (char *)NULL);
	for (i = 0; i < QUESTIONS; i++) {
		struct live_reply first, second;
		char path[64];

		question_path(&questions[i], path, sizeof path);
		live_post(&dmn, path, questions[i].body, &first);
		live_post(&dmn, path, questions[i].body, &second);
		ck_assert_int_eq(first.status, 200);
		ck_assert_int_eq(second.status, 200);
		ck_assert_str_eq(first.cache, "miss");
		ck_assert_str_eq(second.cache, "hit");
		ck_assert_uint_eq(first.len, second.len);
		ck_assert_mem_eq(first.body, second.body, first.len);
		live_reply_free(&first);
		live_reply_free(&second);
	}
}
END_TEST

/* Equal questions hit: key order, spacing, number spelling and explicit defaults. */
START_TEST(equal_questions_hit)
{
	static const char *const same_as_rest[] = {
	    "{\"body\":{\"mass\":1,\"size\":0.05,\"shape\":\"box\"}}",
	    "{ \"body\" : { \"shape\" : \"box\" , \"size\" : 5e-2 , \"mass\" : 1.000 } }",
	    "{\"body\": {\"shape\": \"box\", \"size\": 0.05, \"mass\": 1.0},"
	    " \"option\": {\"timestep\": 0.002, \"gravity\": 9.81},"
	    " \"geom\": {\"solref\": [0.02, 1], \"condim\": 3}}",
	};
	struct live_reply first, r;
	size_t i;

	live_start(&dmn, (char *)NULL);
	live_post(&dmn, "/v1/rest", rest_req, &first);
	ck_assert_int_eq(first.status, 200);
	ck_assert_str_eq(first.cache, "miss");
	for (i = 0; i < sizeof same_as_rest / sizeof same_as_rest[0]; i++) {
		live_post(&dmn, "/v1/rest", same_as_rest[i], &r);
		ck_assert_msg(r.status == 200, "%s: %s", same_as_rest[i], r.body);
		ck_assert_msg(strcmp(r.cache, "hit") == 0, "not a hit: %s", same_as_rest[i]);
		ck_assert_uint_eq(r.len, first.len);
		ck_assert_mem_eq(r.body, first.body, r.len);
		live_reply_free(&r);
	}
	/* A different question, and the same body at another endpoint, miss. */
	live_post(
	    &dmn, "/v1/rest", "{\"body\": {\"shape\": \"box\", \"size\": 0.05, \"mass\": 2}}", &r);
	ck_assert_str_eq(r.cache, "miss");
	live_reply_free(&r);
	live_post(&dmn, "/v1/drop", rest_req, &r);
	ck_assert_str_eq(r.cache, "miss");
	live_reply_free(&r);
	live_reply_free(&first);
}
END_TEST

START_TEST(sweep_csv)
{
	static const char *const accept_csv[] = {
	    "Content-Type: application/json", "Accept: text/csv", NULL};
	static const char *const accept_csv_q[] = {
	    "Content-Type: application/json", "Accept: application/json;q=0.5, text/csv", NULL};
	static const char *const accept_any[] = {
	    "Content-Type: application/json", "Accept: */*", NULL};
	struct live_reply csv, json, r;
	const char *line;
	int lines = 0;

	live_start(&dmn, (char *)NULL);
	live_request(&dmn, "POST", "/v1/sweep", accept_csv, sweep_req, strlen(sweep_req), 0, &csv);
	ck_assert_msg(csv.status == 200, "%s", csv.body);
	ck_assert_str_eq(csv.content_type, "text/csv; charset=utf-8");
	/* One header line and one line per value of the sweep (5). */
	for (line = csv.body; (line = strchr(line, '\n')); line++)
		lines++;
	ck_assert_int_eq(lines, 6);
	ck_assert_ptr_null(strchr(csv.body, '{'));
	/* The JSON answer of the same sweep is the cached one. */
	live_request(&dmn, "POST", "/v1/sweep", accept_any, sweep_req, strlen(sweep_req), 0, &json);
	ck_assert_int_eq(json.status, 200);
	ck_assert_str_eq(json.content_type, "application/json");
	ck_assert_str_eq(json.cache, "hit");
	live_request(&dmn, "POST", "/v1/sweep", accept_csv_q, sweep_req, strlen(sweep_req), 0, &r);
	ck_assert_str_eq(r.content_type, "text/csv; charset=utf-8");
	ck_assert_str_eq(r.cache, "hit");
	ck_assert_str_eq(r.body, csv.body);
	live_reply_free(&r);
	live_reply_free(&json);
	live_reply_free(&csv);
}
END_TEST

/* Accept: application/x-ndjson streams the sweep: the head (the answer without its
 * rows), one line per row (the JSON answer's rows, in order), then the done line;
 * chunked while computed, whole (X-Cache: hit) when the answer is cached. */
START_TEST(sweep_ndjson)
{
	static const char *const accept_ndjson[] = {
	    "Content-Type: application/json", "Accept: application/x-ndjson", NULL};
	static const char drop_sweep[] =
	    "{\"query\": \"drop\", \"base\": {\"duration\": 0.5}, \"vary\": [{\"path\": "
	    "\"timeconst\", \"values\": [0.01, 0.02, 0.04]}, {\"path\": \"dampratio\", "
	    "\"values\": [0.2, 1]}]}";
	struct live_reply streamed, cached, whole;
	json_error_t jerr;
	json_t *answer, *line, *rows;
	char *text, *next, joined[8192] = "";
	size_t i;
	int pass;

	live_start(&dmn, (char *)NULL);
	for (pass = 0; pass < 2; pass++) {
		struct live_reply *r = pass == 0 ? &streamed : &cached;
		live_request(
		    &dmn, "POST", "/v1/sweep", accept_ndjson, drop_sweep, strlen(drop_sweep), 0, r);
		ck_assert_msg(r->status == 200, "%s", r->body);
		ck_assert_str_eq(r->content_type, "application/x-ndjson");
		ck_assert_str_eq(r->cache, pass == 0 ? "miss" : "hit");
	}
	/* the first was sent in chunks as computed; the cached one is the same bytes */
	ck_assert_ptr_nonnull(strcasestr(streamed.head, "Transfer-Encoding: chunked"));
	ck_assert_str_eq(streamed.body, cached.body);
	live_post(&dmn, "/v1/sweep", drop_sweep, &whole);
	ck_assert_str_eq(whole.cache, "hit"); /* the stream filled the cache */
	answer = json_loads(whole.body, 0, &jerr);
	ck_assert_ptr_nonnull(answer);
	rows = json_object_get(answer, "rows");
	ck_assert_int_eq(json_array_size(rows), 6);
	text = streamed.body;
	for (i = 0; i < 8; i++) {
		next = strchr(text, '\n');
		ck_assert_ptr_nonnull(next);
		*next = '\0';
		line = json_loads(text, 0, &jerr);
		ck_assert_msg(line != NULL, "line %zu is not JSON: %s", i, text);
		if (i == 0) {
			/* the answer's members but "rows", the same values */
			ck_assert_ptr_null(json_object_get(line, "rows"));
			ck_assert(json_equal(
			    json_object_get(line, "columns"), json_object_get(answer, "columns")));
			ck_assert_str_eq(json_string_value(json_object_get(line, "query")), "drop");
			ck_assert_int_eq(json_object_size(line), json_object_size(answer) - 1);
		} else if (i <= 6) {
			ck_assert(json_equal(line, json_array_get(rows, i - 1)));
			/* byte for byte: the row lines, joined, are the end of the JSON answer */
			strcat(joined, i == 1 ? "\"rows\":[" : ",");
			strcat(joined, text);
		} else {
			ck_assert_str_eq(text, "{\"done\":true,\"count\":6}");
		}
		json_decref(line);
		text = next + 1;
	}
	ck_assert_str_eq(text, "");
	strcat(joined, "]}\n");
	ck_assert_uint_ge(strlen(whole.body), strlen(joined));
	ck_assert_str_eq(whole.body + strlen(whole.body) - strlen(joined), joined);
	json_decref(answer);
	live_reply_free(&whole);
	live_reply_free(&cached);
	live_reply_free(&streamed);

	/* a rejected sweep is a plain JSON error before any line */
	live_request(
	    &dmn, "POST", "/v1/sweep", accept_ndjson, "{\"query\": \"drop\"}", 17, 0, &whole);
	live_assert_error(&whole, 400, "missing_field", "/vary");
	live_reply_free(&whole);
}
END_TEST

START_TEST(metrics_count)
{
	struct live_reply r;
	int i;

	live_start(&dmn, (char *)NULL);
	live_post(&dmn, "/v1/rest", rest_req, &r);
	live_reply_free(&r);
	live_post(&dmn, "/v1/rest", rest_req, &r);
	live_reply_free(&r);
	live_post(&dmn, "/v1/rest", "{\"body\": 1}", &r);
	live_reply_free(&r);
	/* A request is counted when it completes, just after its reply went out: so is the
	 * previous poll, which a busy machine may still show in flight beside this one. */
	for (i = 0; i < LIVE_WAIT_S * 100; i++) {
		live_get(&dmn, "/metrics", &r);
		if (strstr(r.body,
		        "contactd_http_request_duration_seconds_count{route=\"rest\"} 3\n") &&
		    strstr(r.body, "contactd_http_requests_in_flight 1\n"))
			break;
		live_reply_free(&r);
		live_sleep_ms(10);
	}
	ck_assert_int_eq(r.status, 200);
	ck_assert_str_eq(r.content_type, "text/plain; version=0.0.4; charset=utf-8");
	ck_assert_ptr_nonnull(strstr(r.body, "contactd_cache_hits_total{route=\"rest\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(r.body, "contactd_cache_misses_total{route=\"rest\"} 1\n"));
	ck_assert_ptr_nonnull(
	    strstr(r.body, "contactd_http_requests_total{route=\"rest\",code=\"200\"} 2\n"));
	ck_assert_ptr_nonnull(
	    strstr(r.body, "contactd_http_requests_total{route=\"rest\",code=\"400\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(r.body, "contactd_errors_total{code=\"bad_type\"} 1\n"));
	ck_assert_ptr_nonnull(
	    strstr(r.body, "contactd_http_request_duration_seconds_count{route=\"rest\"} 3\n"));
	ck_assert_ptr_nonnull(strstr(r.body, "contactd_http_requests_in_flight 1\n"));
	live_reply_free(&r);
}
END_TEST

/* One log line per request, naming method, path, status, bytes, time and cache. */
START_TEST(one_log_line_per_request)
{
	struct live_reply r;
	int i;

	live_start(&dmn, (char *)NULL);
	for (i = 0; i < 3; i++) {
		live_post(&dmn, "/v1/rest", rest_req, &r);
		live_reply_free(&r);
	}
	live_get(&dmn, "/nowhere", &r);
	live_reply_free(&r);
	/* A line is written when its request completes, just after the reply: stopping the
	 * daemon waits for every completion. */
	ck_assert_int_eq(live_stop(&dmn), 0);
	ck_assert_int_eq(live_log_count(&dmn, "ms cache="), 4);
	ck_assert_int_eq(live_log_count(&dmn, " POST /v1/rest 200 "), 3);
	ck_assert_int_eq(live_log_count(&dmn, "cache=miss"), 1);
	ck_assert_int_eq(live_log_count(&dmn, "cache=hit"), 2);
	ck_assert_int_eq(live_log_count(&dmn, " GET /nowhere 404 "), 1);
	ck_assert_int_eq(live_log_count(&dmn, "error=not_found"), 1);
}
END_TEST

/* ---- tests: the cache across restarts ---- */

START_TEST(restart_keeps_cache)
{
	struct live_reply first, again;

	live_start(&dmn, (char *)NULL);
	live_post(&dmn, "/v1/drop", drop_req, &first);
	ck_assert_str_eq(first.cache, "miss");
	ck_assert_int_eq(live_stop(&dmn), 0);
	live_start(&dmn, (char *)NULL);
	live_post(&dmn, "/v1/drop", drop_req, &again);
	ck_assert_str_eq(again.cache, "hit");
	ck_assert_uint_eq(again.len, first.len);
	ck_assert_mem_eq(again.body, first.body, first.len);
	live_reply_free(&again);
	live_reply_free(&first);
}
END_TEST

/* A new core version never sees the old core's answers. */
START_TEST(core_version_change_misses)
{
	struct live_reply first, other, r;

	live_start(&dmn, (char *)NULL);
	live_post(&dmn, "/v1/drop", drop_req, &first);
	ck_assert_str_eq(first.cache, "miss");
	ck_assert_int_eq(live_stop(&dmn), 0);
	live_start(&dmn, "--core-version", "test-next-core", (char *)NULL);
	live_get(&dmn, "/v1/health", &r);
	ck_assert_ptr_nonnull(strstr(r.body, "\"core_version\":\"test-next-core\""));
	live_reply_free(&r);
	live_post(&dmn, "/v1/drop", drop_req, &other);
	ck_assert_str_eq(other.cache, "miss");
	/* Same core code underneath, so the recomputed answer is the same. */
	ck_assert_str_eq(other.body, first.body);
	live_post(&dmn, "/v1/drop", drop_req, &r);
	ck_assert_str_eq(r.cache, "hit");
	live_reply_free(&r);
	live_reply_free(&other);
	live_reply_free(&first);
}
END_TEST

/* ---- tests: rejections ---- */

struct bad_case {
	const char *endpoint;
	const char *body;
	long status;
	const char *code;
	const char *path; /* NULL: any */
};

/* The contract's kinds of bad input, each with the error it must get. */
static const struct bad_case bad_cases[] = {
    {"rest", "{\"body\": {\"shape\": \"box\"", 400, "bad_json", NULL},
    {"rest", "", 400, "bad_json", NULL},
    {"rest", "[1, 2]", 400, "bad_type", ""},
    {"rest", "{\"body\": {\"mass\": 1e999}}", 422, "bad_value", "/body/mass"},
    {"rest", "{\"body\": {\"mass\": NaN}}", 400, "bad_json", NULL},
    {"rest", "{\"body\": {\"mass\": \"1\"}}", 400, "bad_type", "/body/mass"},
    {"rest", "{\"body\": {\"shape\": \"cone\"}}", 422, "bad_value", "/body/shape"},
    {"rest", "{\"body\": {\"mass\": -1}}", 422, "bad_value", "/body/mass"},
    {"drop", "{\"body\": {\"size\": -0.05}}", 422, "bad_value", "/body/size"},
    {"drop", "{\"body\": {\"size\": 0}}", 422, "bad_value", "/body/size"},
    {"drop", "{\"option\": {\"timestep\": 0}}", 422, "bad_value", "/option/timestep"},
    {"drop", "{\"option\": {\"timestep\": -0.002}}", 422, "bad_value", "/option/timestep"},
    {"stability", "{\"option\": {\"timestep\": 0}}", 422, "bad_value", "/option/timestep"},
    {"rest", "{\"bogus\": 1}", 400, "unknown_field", "/bogus"},
    {"drop", "{\"geom\": {\"solref\": [0.02, 1], \"colour\": 1}}", 400, "unknown_field",
        "/geom/colour"},
    {"sweep", "{\"base\": {}, \"vary\": []}", 400, "missing_field", "/query"},
    {"eval", "{\"function\": \"no_such_function\", \"args\": {}}", 422, "bad_value", "/function"},
};

START_TEST(bad_inputs_rejected)
{
	size_t i;

	live_start(&dmn, (char *)NULL);
	for (i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
		const struct bad_case *c = &bad_cases[i];
		char path[64];
		struct live_reply r;

		snprintf(path, sizeof path, "/v1/%s", c->endpoint);
		live_post(&dmn, path, c->body, &r);
		if (r.status != c->status)
			ck_abort_msg(
			    "%s %s: %ld, want %ld: %s", path, c->body, r.status, c->status, r.body);
		live_assert_error(&r, c->status, c->code, c->path);
		live_reply_free(&r);
	}
}
END_TEST

START_TEST(nesting_too_deep)
{
	char body[4096];
	struct live_reply r;
	size_t i, n = 0;

	live_start(&dmn, (char *)NULL);
	for (i = 0; i < 1000; i++)
		body[n++] = '[';
	for (i = 0; i < 1000; i++)
		body[n++] = ']';
	body[n] = '\0';
	live_post(&dmn, "/v1/drop", body, &r);
	live_assert_error(&r, 400, "too_deep", NULL);
	live_reply_free(&r);
}
END_TEST

START_TEST(sweep_over_limit)
{
	char body[4096];
	struct live_reply r;
	int n, i;

	live_start(&dmn, "--max-sweep-points", "10", (char *)NULL);
	n = snprintf(body, sizeof body,
	    "{\"query\": \"stability\", \"base\": {}, \"vary\": [{\"path\": \"/solref/0\","
	    " \"values\": [");
	for (i = 0; i < 11; i++)
		n += snprintf(
		    body + n, sizeof body - (size_t)n, "%s%g", i ? ", " : "", 0.01 + 0.001 * i);
	snprintf(body + n, sizeof body - (size_t)n, "]}]}");
	live_post(&dmn, "/v1/sweep", body, &r);
	live_assert_error(&r, 413, "too_large", NULL);
	live_reply_free(&r);
}
END_TEST

START_TEST(http_errors)
{
	static const char *const bad_type[] = {"Content-Type: text/plain", NULL};
	static const char *const form[] = {"Content-Type: application/x-www-form-urlencoded", NULL};
	static const char *const want_xml[] = {
	    "Content-Type: application/json", "Accept: application/xml", NULL};
	static const char *const want_csv[] = {
	    "Content-Type: application/json", "Accept: text/csv", NULL};
	static const char *const vendor_json[] = {"Content-Type: application/vnd.x+json", NULL};
	static const char *const no_type[] = {"Content-Type:", NULL}; /* curl: send none */
	struct live_reply r;

	live_start(&dmn, (char *)NULL);
	live_get(&dmn, "/v1/nowhere", &r);
	live_assert_error(&r, 404, "not_found", NULL);
	live_reply_free(&r);
	live_get(&dmn, "/v1/rest/", &r);
	live_assert_error(&r, 404, "not_found", NULL);
	live_reply_free(&r);
	live_get(&dmn, "/v1/drop", &r);
	live_assert_error(&r, 405, "method_not_allowed", NULL);
	ck_assert_str_eq(r.allow, "POST");
	live_reply_free(&r);
	live_request(&dmn, "DELETE", "/v1/health", NULL, NULL, 0, 0, &r);
	live_assert_error(&r, 405, "method_not_allowed", NULL);
	ck_assert_str_eq(r.allow, "GET, HEAD");
	live_reply_free(&r);
	live_request(&dmn, "POST", "/v1/rest", bad_type, rest_req, strlen(rest_req), 0, &r);
	live_assert_error(&r, 415, "unsupported_media_type", NULL);
	live_reply_free(&r);
	live_request(&dmn, "POST", "/v1/rest", form, rest_req, strlen(rest_req), 0, &r);
	live_assert_error(&r, 415, "unsupported_media_type", NULL);
	live_reply_free(&r);
	live_request(&dmn, "POST", "/v1/rest", want_xml, rest_req, strlen(rest_req), 0, &r);
	live_assert_error(&r, 406, "not_acceptable", NULL);
	live_reply_free(&r);
	/* Only a sweep has a CSV form. */
	live_request(&dmn, "POST", "/v1/rest", want_csv, rest_req, strlen(rest_req), 0, &r);
	live_assert_error(&r, 406, "not_acceptable", NULL);
	live_reply_free(&r);
	/* A +json type is JSON; no Content-Type at all is not (a cross-site page sends none
	 * without a preflight). */
	live_request(&dmn, "POST", "/v1/rest", vendor_json, rest_req, strlen(rest_req), 0, &r);
	ck_assert_int_eq(r.status, 200);
	live_reply_free(&r);
	live_request(&dmn, "POST", "/v1/rest", no_type, rest_req, strlen(rest_req), 0, &r);
	live_assert_error(&r, 415, "unsupported_media_type", NULL);
	live_reply_free(&r);
}
END_TEST

/* A body of exactly the limit is read; one byte more is a 413, declared or chunked. */
START_TEST(body_over_limit)
{
	char body[2048];
	struct live_reply r;
	size_t n = strlen(rest_req);

	live_start(&dmn, "--max-body", "1024", (char *)NULL);
	memcpy(body, rest_req, n);
	memset(body + n, ' ', 1024 - n);
	body[1024] = '\0';
	live_request(&dmn, "POST", "/v1/rest", live_json_headers, body, 1024, 0, &r);
	ck_assert_msg(r.status == 200, "%s", r.body);
	live_reply_free(&r);
	live_request(&dmn, "POST", "/v1/rest", live_json_headers, body, 1024, 1, &r);
	ck_assert_msg(r.status == 200, "%s", r.body);
	live_reply_free(&r);
	body[1024] = ' ';
	body[1025] = '\0';
	live_request(&dmn, "POST", "/v1/rest", live_json_headers, body, 1025, 0, &r);
	live_assert_error(&r, 413, "too_large", "");
	live_reply_free(&r);
	live_request(&dmn, "POST", "/v1/rest", live_json_headers, body, 1025, 1, &r);
	live_assert_error(&r, 413, "too_large", "");
	live_reply_free(&r);
	/* Still serving. */
	live_get(&dmn, "/v1/health", &r);
	ck_assert_int_eq(r.status, 200);
	live_reply_free(&r);
}
END_TEST

/* Clients that stop sending, mid-headers or mid-body, are disconnected. */
START_TEST(slow_client_timed_out)
{
	static const char partial_headers[] = "POST /v1/drop HTTP/1.1\r\nHost: x\r\n";
	static const char partial_body[] =
	    "POST /v1/drop HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
	    "Content-Length: 100\r\n\r\n{\"body\":";
	struct live_reply r;
	int a, b;

	live_start(&dmn, "--timeout", "1", (char *)NULL);
	a = live_connect(&dmn);
	b = live_connect(&dmn);
	ck_assert_int_eq(
	    send(a, partial_headers, strlen(partial_headers), 0), (ssize_t)strlen(partial_headers));
	ck_assert_int_eq(
	    send(b, partial_body, strlen(partial_body), 0), (ssize_t)strlen(partial_body));
	ck_assert_msg(live_closed_by_peer(a), "a client stuck in its headers was not disconnected");
	ck_assert_msg(live_closed_by_peer(b), "a client stuck in its body was not disconnected");
	close(a);
	close(b);
	live_get(&dmn, "/v1/health", &r);
	ck_assert_int_eq(r.status, 200);
	live_reply_free(&r);
	ck_assert_int_eq(live_log_count(&dmn, " POST /v1/drop - - "), 1);
	ck_assert_int_eq(live_log_count(&dmn, "end=timeout"), 1);
}
END_TEST

static const char health_get[] = "GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n";

/* Send a health request on fd; 1 if a reply arrives within ms milliseconds. */
static int health_reply_within(int fd, int send_it, int ms)
{
	char buf[4096];
	size_t n = 0;
	double deadline = live_now() + ms / 1000.0;

	if (send_it)
		ck_assert_int_eq(send(fd, health_get, strlen(health_get), MSG_NOSIGNAL),
		    (ssize_t)strlen(health_get));
	/* read the whole reply, so the next reply on this connection starts clean */
	while (n + 1 < sizeof buf) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		const char *end, *length;
		int left = (int)((deadline - live_now()) * 1000);
		ssize_t got;

		if (left <= 0 || poll(&p, 1, left) != 1)
			return 0;
		got = recv(fd, buf + n, sizeof buf - n - 1, 0);
		if (got <= 0)
			return 0;
		n += (size_t)got;
		buf[n] = '\0';
		end = strstr(buf, "\r\n\r\n");
		length = strcasestr(buf, "Content-Length: ");
		if (end && length && n >= (size_t)(end + 4 - buf) + (size_t)atol(length + 16))
			return 1;
	}
	return 1;
}

/*
 * At the connection limit a new connection is answered 503 with Retry-After at once (the
 * daemon keeps slots for its refusals), not left in the listen queue; once one of the
 * open ones closes, a new one is served. One HTTP thread, so the limit is not split
 * between threads.
 */
START_TEST(connection_limit)
{
	int held[2], extra, status = 503, tries;
	char buf[4096];

	live_start(&dmn, "--max-connections", "2", "--threads", "1", (char *)NULL);
	held[0] = live_connect(&dmn);
	held[1] = live_connect(&dmn);
	/* Both are open and served (keep-alive keeps them open). */
	ck_assert(health_reply_within(held[0], 1, LIVE_WAIT_S * 1000));
	ck_assert(health_reply_within(held[1], 1, LIVE_WAIT_S * 1000));
	extra = live_connect(&dmn);
	ck_assert_int_eq(
	    send(extra, health_get, strlen(health_get), MSG_NOSIGNAL), (ssize_t)strlen(health_get));
	ck_assert_int_eq(live_read_response(extra, buf, sizeof buf), 503);
	ck_assert_ptr_nonnull(strstr(buf, "\"error\":\"unavailable\""));
	ck_assert_ptr_nonnull(strstr(buf, "--max-connections"));
	close(extra);
	close(held[0]);
	/* the close is seen in its own time: a try before it is refused, and closed */
	for (tries = 0; status == 503 && tries < 200; tries++) {
		extra = live_connect(&dmn);
		if (send(extra, health_get, strlen(health_get), MSG_NOSIGNAL) > 0)
			status = live_read_response(extra, buf, sizeof buf);
		close(extra);
		if (status == 503)
			live_sleep_ms(50);
	}
	ck_assert_msg(status == 200, "no slot freed after the close: %d", status);
	close(held[1]);
}
END_TEST

/* ---- tests: shutdown ---- */

/* waitpid for the daemon after a signal: its exit status, asserting it exited. */
static int reap(struct live_daemon *d)
{
	double deadline = live_now() + LIVE_WAIT_S;
	int status = 0;
	pid_t got;

	while ((got = waitpid(d->pid, &status, WNOHANG)) == 0 && live_now() < deadline)
		live_sleep_ms(10);
	ck_assert_int_eq(got, d->pid);
	d->pid = 0;
	ck_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* Lines of the log after the shutdown line that contain needle. */
static int logged_after_signal(const struct live_daemon *d, const char *needle)
{
	char *log = live_read_file(d->log, NULL);
	const char *p = strstr(log, "finishing requests in flight");
	int n = 0;

	ck_assert_msg(p != NULL, "no shutdown line in the log");
	for (; (p = strstr(p, needle)); p++)
		n++;
	free(log);
	return n;
}

/* The daemon closed its database cleanly: the WAL was checkpointed and removed. */
static void assert_db_closed(const struct live_daemon *d)
{
	char wal[400];

	snprintf(wal, sizeof wal, "%s-wal", d->db);
	ck_assert_msg(!file_exists(wal), "the WAL file is still there");
}

/* A connection to the daemon that it has accepted (it answered a health request on it). */
static int accepted_connection(const struct live_daemon *d)
{
	int fd = live_connect(d);

	ck_assert(health_reply_within(fd, 1, LIVE_WAIT_S * 1000));
	return fd;
}

/* POST body to /v1/sweep on fd. */
static void send_sweep(int fd, const char *body)
{
	char request[4096];
	int n = snprintf(request, sizeof request,
	    "POST /v1/sweep HTTP/1.1\r\nHost: x\r\n"
	    "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s",
	    strlen(body), body);

	ck_assert_int_lt(n, (int)sizeof request);
	ck_assert_int_eq(send(fd, request, (size_t)n, 0), n);
}

/*
 * A new client of a daemon that is shutting down is turned away: its connection is
 * refused, or closed without an answer.
 */
static int turned_away(const struct live_daemon *d)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)d->port)};
	int fd = socket(AF_INET, SOCK_STREAM, 0), answered = 0;
	double deadline = live_now() + LIVE_WAIT_S;
	char buf[256];

	ck_assert_int_ge(fd, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
		close(fd);
		return errno == ECONNREFUSED;
	}
	send(fd, health_get, strlen(health_get), MSG_NOSIGNAL);
	while (live_now() < deadline) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = recv(fd, buf, sizeof buf, 0);
		if (n <= 0)
			break;
		answered = 1;
	}
	close(fd);
	return !answered;
}

/*
 * SIGTERM while two sweeps are computed on two threads (the daemon's /metrics says
 * so: no sleep decides it; each takes seconds, the signal follows in microseconds):
 * new clients are turned away, both sweeps finish with full answers after the signal,
 * then the daemon exits 0 with its database closed, and the answers are in the cache.
 */
START_TEST(sigterm_during_requests)
{
	char buf[2][8192], *body[2];
	struct live_reply again;
	int fd[2], i;

	/* four compute threads: one client (this address) runs two at once
	 * (DAEMON_CLIENT_RUNNING_PART) */
	live_start(&dmn, "--threads", "2", "--compute-threads", "4", "--sweep-threads", "1",
	    "--drain-timeout", "3600", (char *)NULL); /* the test: they finish, not when */
	for (i = 0; i < 2; i++) {
		body[i] = live_long_sweep(6, 0.1 + 0.1 * i);
		fd[i] = accepted_connection(&dmn);
		send_sweep(fd[i], body[i]);
	}
	live_wait_metric(&dmn, "contactd_compute_running", 2);
	kill(dmn.pid, SIGTERM);
	/* Once the daemon has logged that it is shutting down, it takes no one new. */
	for (i = 0; i < LIVE_WAIT_S * 100 && !live_log_count(&dmn, "finishing requests"); i++)
		live_sleep_ms(10);
	ck_assert_msg(turned_away(&dmn), "a new client was served during shutdown");
	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(live_read_response(fd[i], buf[i], sizeof buf[i]), 200);
		close(fd[i]);
	}
	ck_assert_int_eq(reap(&dmn), 0);
	ck_assert_int_eq(logged_after_signal(&dmn, " POST /v1/sweep 200 "), 2);
	ck_assert_int_eq(live_log_count(&dmn, "end="), 0);
	assert_db_closed(&dmn);
	live_start(&dmn, (char *)NULL);
	for (i = 0; i < 2; i++) {
		live_request(&dmn, "POST", "/v1/sweep", live_json_headers, body[i], strlen(body[i]),
		    0, &again);
		ck_assert_str_eq(again.cache, "hit");
		ck_assert_str_eq(strstr(buf[i], "\r\n\r\n") + 4, again.body);
		live_reply_free(&again);
		free(body[i]);
	}
}
END_TEST

/*
 * One compute thread: SIGTERM while it computes a's sweep and b's waits in the queue
 * behind it (both seen in /metrics), and a health request arrives on c. All three are
 * answered: a question admitted before the signal is in flight even before it starts.
 */
START_TEST(sigterm_waits_for_queued_requests)
{
	char buf[8192], *first = live_long_sweep(6, 0.1), *second = live_long_sweep(2, 0.2);
	int a, b, c;

	live_start(&dmn, "--threads", "1", "--compute-threads", "1", "--sweep-threads", "1",
	    "--drain-timeout", "3600", (char *)NULL); /* the test: they finish, not when */
	a = accepted_connection(&dmn);
	b = accepted_connection(&dmn);
	c = accepted_connection(&dmn);
	send_sweep(a, first);
	live_wait_metric(&dmn, "contactd_compute_running", 1);
	send_sweep(b, second);
	live_wait_metric(&dmn, "contactd_compute_queued", 1);
	ck_assert_int_eq(send(c, health_get, strlen(health_get), 0), (ssize_t)strlen(health_get));
	kill(dmn.pid, SIGTERM);
	ck_assert_int_eq(live_read_response(a, buf, sizeof buf), 200);
	ck_assert_ptr_nonnull(strstr(buf, "\"rows\""));
	ck_assert_int_eq(live_read_response(b, buf, sizeof buf), 200);
	ck_assert_ptr_nonnull(strstr(buf, "\"rows\""));
	ck_assert_int_eq(live_read_response(c, buf, sizeof buf), 200);
	ck_assert_ptr_nonnull(strstr(buf, "\"status\":\"ok\""));
	close(a);
	close(b);
	close(c);
	ck_assert_int_eq(reap(&dmn), 0);
	ck_assert_int_eq(logged_after_signal(&dmn, " POST /v1/sweep 200 "), 2);
	assert_db_closed(&dmn);
	free(first);
	free(second);
}
END_TEST

/* ---- tests: the same answers as the contact command ---- */

/* Run `contact endpoint file` (extra: an option or NULL) and return its stdout. */
static char *run_contact(const char *endpoint, const char *file, const char *extra, size_t *len)
{
	char out[400], cmd[1200];
	char *text;
	int status;

	snprintf(out, sizeof out, "%s/contact.out", dmn.dir);
	snprintf(cmd, sizeof cmd, "'%s' %s %s '%s' >'%s'", CONTACT, endpoint, extra ? extra : "",
	    file, out);
	status = system(cmd);
	ck_assert_msg(status == 0, "%s: exit %d", cmd, status);
	text = live_read_file(out, len);
	ck_assert_ptr_nonnull(text);
	return text;
}

START_TEST(same_bytes_as_cli)
{
	char file[400];
	size_t i;

	live_start(&dmn, (char *)NULL);
	snprintf(file, sizeof file, "%s/request.json", dmn.dir);
	for (i = 0; i < QUESTIONS; i++) {
		char path[64];
		struct live_reply miss, hit;
		size_t len;
		char *cli;

		question_path(&questions[i], path, sizeof path);
		live_write_file(file, questions[i].body);
		cli = run_contact(questions[i].endpoint, file, NULL, &len);
		live_post(&dmn, path, questions[i].body, &miss);
		live_post(&dmn, path, questions[i].body, &hit);
		ck_assert_str_eq(hit.cache, "hit");
		ck_assert_msg(miss.len == len && memcmp(miss.body, cli, len) == 0,
		    "%s differs:\nhttp: %s\ncli:  %s", path, miss.body, cli);
		ck_assert_msg(
		    hit.len == len && memcmp(hit.body, cli, len) == 0, "%s (hit) differs", path);
		free(cli);
		live_reply_free(&miss);
		live_reply_free(&hit);
	}
}
END_TEST

START_TEST(same_csv_as_cli)
{
	static const char *const accept_csv[] = {
	    "Content-Type: application/json", "Accept: text/csv", NULL};
	char file[400];
	struct live_reply r;
	size_t len;
	char *cli;

	live_start(&dmn, (char *)NULL);
	snprintf(file, sizeof file, "%s/request.json", dmn.dir);
	live_write_file(file, sweep_req);
	cli = run_contact("sweep", file, "--csv", &len);
	live_request(&dmn, "POST", "/v1/sweep", accept_csv, sweep_req, strlen(sweep_req), 0, &r);
	ck_assert_uint_eq(r.len, len);
	ck_assert_mem_eq(r.body, cli, len);
	free(cli);
	live_reply_free(&r);
}
END_TEST

/* ---- tests: no input crashes the daemon or gets a 5xx ---- */

/* Deterministic xorshift, so a failure can be replayed. */
static unsigned long long rng_state = 88172645463325252ULL;

static unsigned long long rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

START_TEST(mutated_inputs_never_5xx)
{
	static const char junk[] = "{}[]\",:0123456789.eE+-tfnul\\ \x00\xff";
	char body[1024];
	int round;

	live_start(&dmn, (char *)NULL);
	for (round = 0; round < 400; round++) {
		const struct question *q = &questions[rng() % QUESTIONS];
		size_t len = strlen(q->body), edits = 1 + rng() % 4, k;
		char path[64];
		struct live_reply r;

		memcpy(body, q->body, len);
		for (k = 0; k < edits && len > 0; k++) {
			size_t at = rng() % len;

			switch (rng() % 3) {
			case 0: /* replace a byte */
				body[at] = junk[rng() % (sizeof junk - 1)];
				break;
			case 1: /* delete a byte */
				memmove(body + at, body + at + 1, len - at - 1);
				len--;
				break;
			default: /* truncate */
				len = at;
				break;
			}
		}
		question_path(q, path, sizeof path);
		live_request(&dmn, "POST", path, live_json_headers, body, len, 0, &r);
		ck_assert_msg(r.status == 200 || (r.status >= 400 && r.status < 500),
		    "round %d: %ld for %.*s: %s", round, r.status, (int)len, body, r.body);
		if (r.status != 200) {
			json_t *v = live_json(&r);

			ck_assert_ptr_nonnull(json_string_value(json_object_get(v, "error")));
			json_decref(v);
		}
		live_reply_free(&r);
	}
}
END_TEST

/* The contract's status of each error code (base/error.h), and the calibration
 * routes' headers of a 401 and a 503. */
START_TEST(status_table)
{
	const char *value;

	ck_assert_int_eq(err_status(ERR_BAD_JSON), 400);
	ck_assert_int_eq(err_status(ERR_BAD_TYPE), 400);
	ck_assert_int_eq(err_status(ERR_UNKNOWN_FIELD), 400);
	ck_assert_int_eq(err_status(ERR_MISSING_FIELD), 400);
	ck_assert_int_eq(err_status(ERR_TOO_DEEP), 400);
	ck_assert_int_eq(err_status(ERR_BAD_VALUE), 422);
	ck_assert_int_eq(err_status(ERR_TOO_LARGE), 413);
	ck_assert_int_eq(err_status(ERR_UNAVAILABLE), 503);
	ck_assert_int_eq(err_status(ERR_INTERNAL), 500);
	ck_assert_int_eq(err_status((enum err_code)999), 500);
	ck_assert_str_eq(http_status_header(ERR_UNAUTHORIZED, 0, &value), "WWW-Authenticate");
	ck_assert_str_eq(value, "Bearer realm=\"contactd\"");
	http_status_header(ERR_UNAUTHORIZED, 1, &value);
	ck_assert_str_eq(value, "Bearer realm=\"contactd\", error=\"invalid_token\"");
	ck_assert_str_eq(http_status_header(ERR_UNAVAILABLE, 1, &value), "Retry-After");
	ck_assert_int_eq(atoi(value), CALIB_RETRY_AFTER_S);
	ck_assert_ptr_null(http_status_header(ERR_BAD_VALUE, 1, &value));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("http");
	TCase *tc = tcase_create("contactd");
	SRunner *sr;
	int failed;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, status_table);
	tcase_add_test(tc, health);
	tcase_add_test(tc, questions_answer);
	tcase_add_test(tc, cache_miss_then_hit);
	tcase_add_test(tc, equal_questions_hit);
	tcase_add_test(tc, sweep_csv);
	tcase_add_test(tc, sweep_ndjson);
	tcase_add_test(tc, metrics_count);
	tcase_add_test(tc, one_log_line_per_request);
	tcase_add_test(tc, restart_keeps_cache);
	tcase_add_test(tc, core_version_change_misses);
	tcase_add_test(tc, bad_inputs_rejected);
	tcase_add_test(tc, nesting_too_deep);
	tcase_add_test(tc, sweep_over_limit);
	tcase_add_test(tc, http_errors);
	tcase_add_test(tc, body_over_limit);
	tcase_add_test(tc, slow_client_timed_out);
	tcase_add_test(tc, connection_limit);
	tcase_add_test(tc, sigterm_during_requests);
	tcase_add_test(tc, sigterm_waits_for_queued_requests);
	tcase_add_test(tc, same_bytes_as_cli);
	tcase_add_test(tc, same_csv_as_cli);
	tcase_add_test(tc, mutated_inputs_never_5xx);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	curl_global_cleanup();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
