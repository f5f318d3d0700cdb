/*
 * test_strict.c: the third hardening round's HTTP refusals, against the real contactd:
 * a body without Content-Type: application/json (what a cross-site page sends without a
 * preflight), heads that one reader would read differently from another (a NUL in the
 * target, a bare CR, a missing or repeated Host, repeated credentials or keys), the
 * global connection limit answered at once with a share per address under load, robot
 * names that are dot segments, an Idempotency-Key with a blank inside, watch URLs spelt otherwise
 * than signed.
 *
 * CONTACTD comes from tests/http.mk. Each test runs in its own process (Check's fork
 * mode) with its own daemon. Nothing asserts a duration; waits are LIVE_WAIT_S bounds.
 */
#include <arpa/inet.h>
#include <check.h>
#include <curl/curl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "live.h"
#include "robot.h"
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

/* The body of the raw response in buf parsed as JSON, asserting that it is. */
static json_t *raw_json(const char *buf)
{
	const char *body = strstr(buf, "\r\n\r\n");
	json_error_t jerr;
	json_t *v;

	ck_assert_ptr_nonnull(body);
	v = json_loads(body + 4, 0, &jerr);
	ck_assert_msg(v != NULL, "not JSON (%s): %s", jerr.text, body + 4);
	return v;
}

/* Send request as is on a new connection: its answer has status and, unless code is NULL,
 * is the JSON error code with a message containing needle (NULL: any). */
static void assert_raw(
    const char *request, size_t len, int status, const char *code, const char *needle)
{
	char buf[16384];
	int fd = live_connect(&dmn);
	json_t *v;
	const char *message;

	ck_assert_int_eq(send(fd, request, len, MSG_NOSIGNAL), (ssize_t)len);
	ck_assert_msg(live_read_response(fd, buf, sizeof buf) == status, "%s: %s", request, buf);
	close(fd);
	if (!code)
		return; /* a success: the status is enough */
	v = raw_json(buf);
	ck_assert_str_eq(json_string_value(json_object_get(v, "error")), code);
	message = json_string_value(json_object_get(v, "message"));
	ck_assert_ptr_nonnull(message);
	ck_assert_msg(!needle || strstr(message, needle), "'%s' not in '%s'", needle, message);
	json_decref(v);
}

#define RAW(s) s, sizeof s - 1

/*
 * A POST body must say it is JSON: without Content-Type (what a page's no-cors fetch of
 * a Blob sends, no preflight needed) it is 415, as text/plain is; with it, 200. The
 * calibration routes too.
 */
START_TEST(body_needs_json_type)
{
	char token[ROBOT_TOKEN_MAX], head[512];
	struct live_reply r;
	int n;

	live_start(&dmn, (char *)NULL);
	assert_raw(RAW("POST /v1/drop HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"), 415,
	    "unsupported_media_type", "Content-Type: application/json");
	assert_raw(RAW("POST /v1/drop HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
	               "Content-Length: 2\r\n\r\n{}"),
	    415, "unsupported_media_type", "text/plain");
	/* the same with the type: answered (a rest question: cheap under the sanitizers too) */
	assert_raw(RAW("POST /v1/rest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
	               "Content-Length: 53\r\nConnection: close\r\n\r\n"
	               "{\"body\": {\"shape\": \"box\", \"size\": 0.05, \"mass\": 1.0}}"),
	    200, NULL, NULL);
	robot_token_create(&dmn, "arm1", token);
	n = snprintf(head, sizeof head,
	    "POST /v1/robots/arm1/calibrations HTTP/1.1\r\nHost: x\r\n"
	    "Authorization: Bearer %s\r\nContent-Length: 2\r\n\r\n{}",
	    token);
	assert_raw(head, (size_t)n, 415, "unsupported_media_type", "Content-Type");
	robot_request(&dmn, token, "POST", "/v1/robots/arm1/calibrations", "{}", 2, &r);
	ck_assert_int_eq(r.status, 201);
	live_reply_free(&r);
}
END_TEST

/*
 * Heads that readers disagree about, sent straight to contactd: one JSON 400 each. A %00
 * in the target (decoded, it would cut /v1/calibrations/1%00 to calibration 1), a bare CR
 * in a value, a missing or doubled Host (HTTP/1.1), two Authorization or Idempotency-Key
 * lines (first wins here, last there). HTTP/1.0 needs no Host.
 */
START_TEST(ambiguous_heads_400)
{
	static const struct {
		const char *request, *needle;
	} cases[] = {
	    {"GET /v1/calibrations/1%00 HTTP/1.1\r\nHost: x\r\n\r\n", "%00"},
	    {"GET /v1/health%00 HTTP/1.1\r\nHost: x\r\n\r\n", "%00"},
	    {"GET /v1/health?x=%00 HTTP/1.1\r\nHost: x\r\n\r\n", "%00"},
	    {"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-A: b\rc\r\n\r\n", "bare CR"},
	    {"GET /v1/health HTTP/1.1\r\n\r\n", "Host"},
	    {"GET /v1/health HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", "Host given 2 times"},
	    {"GET /v1/calibrations/1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\r\n"
	     "Authorization: Bearer b\r\n\r\n",
	        "Authorization given 2 times"},
	    {"POST /v1/calibrations/1/measurements HTTP/1.1\r\nHost: x\r\n"
	     "Content-Type: application/json\r\nIdempotency-Key: \"a\"\r\n"
	     "Idempotency-Key: \"b\"\r\nContent-Length: 2\r\n\r\n{}",
	        "Idempotency-Key given 2 times"},
	};
	size_t i;

	live_start(&dmn, (char *)NULL);
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		assert_raw(cases[i].request, strlen(cases[i].request), 400, "bad_request",
		    cases[i].needle);
	assert_raw(RAW("GET /v1/nothing HTTP/1.0\r\n\r\n"), 404, "not_found", NULL);
}
END_TEST

/* A socket to d from loopback address 127.0.0.k, connected. */
static int connect_from(const struct live_daemon *d, unsigned k)
{
	struct sockaddr_in from = {.sin_family = AF_INET}, to = {.sin_family = AF_INET};
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	ck_assert_int_ge(fd, 0);
	from.sin_addr.s_addr = htonl(INADDR_LOOPBACK + k - 1);
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	to.sin_port = htons((uint16_t)d->port);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&from, sizeof from), 0);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&to, sizeof to), 0);
	return fd;
}

/*
 * The global limit (--max-connections 32, --max-connections-per-ip 16). Four addresses
 * open 16 unfinished heads each (64, twice the limit): past half the limit (16) an
 * address holds at most 32/8 = 4, so at most 16 + 3 * 4 = 28 are let in whatever order
 * the daemon accepts them in, and a fifth address is served (before: it waited
 * unanswered). Then new addresses connect one by one, each kept open: every one is
 * answered, 200 while there is room, and within 32 of them the limit is reached and the
 * answer is a JSON 503 with Retry-After (libmicrohttpd's own limit is higher by the
 * refusal slots, so the refusal is not left in the backlog).
 */
START_TEST(global_limit_answered)
{
	static const char partial[] = "GET /v1/health HTTP/1.1\r\nHost: x\r\n";
	static const char health[] = "GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n";
	enum { ADDRESSES = 4, EACH = 16, MAX = 32 };
	int slow[ADDRESSES * EACH], kept[MAX + 1], nkept = 0, i, status = 0;
	char buf[16384];
	json_t *v;

	live_start(&dmn, "--max-connections", "32", "--max-connections-per-ip", "16", "--timeout",
	    "120", "--head-timeout", "0", (char *)NULL);
	for (i = 0; i < ADDRESSES * EACH; i++) {
		slow[i] = connect_from(&dmn, 2 + (unsigned)(i / EACH));
		send(slow[i], partial, strlen(partial), MSG_NOSIGNAL);
	}
	kept[nkept] = connect_from(&dmn, 2 + ADDRESSES);
	ck_assert_int_eq(
	    send(kept[nkept], health, strlen(health), MSG_NOSIGNAL), (ssize_t)strlen(health));
	status = live_read_response(kept[nkept], buf, sizeof buf);
	ck_assert_msg(status == 200, "a fifth address: %d %s", status, buf);
	nkept++;
	for (i = 0; i <= MAX && status == 200; i++) {
		int fd = connect_from(&dmn, 10 + (unsigned)i);

		ck_assert_int_eq(
		    send(fd, health, strlen(health), MSG_NOSIGNAL), (ssize_t)strlen(health));
		status = live_read_response(fd, buf, sizeof buf);
		ck_assert_msg(
		    status == 200 || status == 503, "address %d: %d %s", 10 + i, status, buf);
		kept[nkept++] = fd;
	}
	ck_assert_msg(status == 503, "no 503 after %d more connections", i);
	ck_assert_msg(strcasestr(buf, "\r\nRetry-After: " DAEMON_RETRY_AFTER "\r\n"), "%s", buf);
	v = raw_json(buf);
	ck_assert_str_eq(json_string_value(json_object_get(v, "error")), "unavailable");
	ck_assert_ptr_nonnull(
	    strstr(json_string_value(json_object_get(v, "message")), "--max-connections"));
	json_decref(v);
	for (i = 0; i < nkept; i++)
		close(kept[i]);
	for (i = 0; i < ADDRESSES * EACH; i++)
		close(slow[i]);
}
END_TEST

/* A calibration of robot arm1 (token into token); its id. */
static long long new_calibration(char token[ROBOT_TOKEN_MAX])
{
	struct live_reply r;
	json_t *v;
	long long id;

	robot_token_create(&dmn, "arm1", token);
	robot_request(&dmn, token, "POST", "/v1/robots/arm1/calibrations", "{}", 2, &r);
	ck_assert_int_eq(r.status, 201);
	v = live_json(&r);
	id = json_integer_value(json_object_get(v, "id"));
	ck_assert_int_gt(id, 0);
	json_decref(v);
	live_reply_free(&r);
	return id;
}

/*
 * Robot names "." and "..": refused by `contactd token create` (exit 2) and, in a URL,
 * answered 422 naming the robot, not taken as a robot (a proxy may resolve them away).
 */
START_TEST(robot_dot_names_refused)
{
	char token[ROBOT_TOKEN_MAX], head[512], cmd[1024];
	const char *const names[] = {".", ".."};
	size_t i;
	int n;

	live_start(&dmn, (char *)NULL);
	robot_token_create(&dmn, "arm1", token);
	for (i = 0; i < 2; i++) {
		snprintf(cmd, sizeof cmd, "'%s' --db '%s' token create '%s' >/dev/null 2>&1",
		    CONTACTD, dmn.db, names[i]);
		n = system(cmd);
		ck_assert_msg(
		    WIFEXITED(n) && WEXITSTATUS(n) == 2, "token create %s: %d", names[i], n);
		n = snprintf(head, sizeof head,
		    "GET /v1/robots/%s/calibrations HTTP/1.1\r\nHost: x\r\n"
		    "Authorization: Bearer %s\r\n\r\n",
		    names[i], token);
		assert_raw(head, (size_t)n, 422, "bad_value", "robot");
		n = snprintf(head, sizeof head,
		    "POST /v1/robots/%s/calibrations HTTP/1.1\r\nHost: x\r\n"
		    "Authorization: Bearer %s\r\nContent-Type: application/json\r\n"
		    "Content-Length: 2\r\n\r\n{}",
		    names[i], token);
		assert_raw(head, (size_t)n, 422, "bad_value", "robot");
	}
}
END_TEST

/* An Idempotency-Key with a blank inside its bare text is 400 naming the header; the key
 * bare or quoted is taken (test_calib_async: the two spellings are one key). */
START_TEST(idempotency_key_malformed)
{
	static const char body[] = "{\"drops\":[{\"height\":0.1,\"rebound\":0.005}]}";
	char token[ROBOT_TOKEN_MAX], path[128];
	struct live_reply r;
	long long id;

	live_start(&dmn, (char *)NULL);
	id = new_calibration(token);
	snprintf(path, sizeof path, "/v1/calibrations/%lld/measurements", id);
	robot_request_with(
	    &dmn, token, "Idempotency-Key: bare key", "POST", path, body, strlen(body), &r);
	live_assert_error(&r, 400, "bad_type", "");
	ck_assert_ptr_nonnull(strstr(r.body, "Idempotency-Key"));
	live_reply_free(&r);
	robot_request_with(
	    &dmn, token, "Idempotency-Key: bare-key", "POST", path, body, strlen(body), &r);
	ck_assert_int_eq(r.status, 200);
	live_reply_free(&r);
	robot_request_with(
	    &dmn, token, "Idempotency-Key: \"quoted-key\"", "POST", path, body, strlen(body), &r);
	ck_assert_int_eq(r.status, 200);
	live_reply_free(&r);
}
END_TEST

/*
 * A watch URL is taken only as signed: its expiry zero-padded or with a '+', or its MAC
 * in upper case, is another spelling of the same numbers and is 401.
 */
START_TEST(watch_url_canonical_only)
{
	char token[ROBOT_TOKEN_MAX], path[128], url[512], bad[600];
	struct live_reply r;
	const char *signed_url, *param;
	char *dot;
	long long id;
	json_t *v;
	int variant, fd, n;

	live_start(&dmn, (char *)NULL);
	id = new_calibration(token);
	snprintf(path, sizeof path, "/v1/calibrations/%lld/watch", id);
	robot_request(&dmn, token, "POST", path, NULL, 0, &r);
	ck_assert_int_eq(r.status, 200);
	v = live_json(&r);
	signed_url = json_string_value(json_object_get(v, "url"));
	ck_assert_ptr_nonnull(signed_url);
	snprintf(url, sizeof url, "%s", signed_url);
	json_decref(v);
	live_reply_free(&r);
	param = strstr(url, "watch=") + 6; /* ISSUED.EXPIRES.TOKENID.MAC */
	dot = strchr(param, '.');
	ck_assert_ptr_nonnull(dot);
	for (variant = 0; variant < 3; variant++) {
		size_t head = (size_t)(dot + 1 - url);

		if (variant < 2) { /* the expiry as 0EXPIRES or +EXPIRES ('+' is %2B in a query) */
			snprintf(bad, sizeof bad, "%.*s%s%s", (int)head, url, variant ? "%2B" : "0",
			    dot + 1);
		} else { /* the MAC's hex in upper case */
			snprintf(bad, sizeof bad, "%s", url);
			for (char *c = strrchr(bad, '.') + 1; *c; c++)
				if (*c >= 'a' && *c <= 'f')
					*c = (char)(*c - 'a' + 'A');
		}
		live_get(&dmn, bad, &r);
		ck_assert_msg(r.status == 401, "%s: %ld %s", bad, r.status, r.body);
		live_reply_free(&r);
	}
	/* as signed, it opens the stream */
	fd = live_connect(&dmn);
	n = snprintf(bad, sizeof bad, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", url);
	ck_assert_int_eq(send(fd, bad, (size_t)n, MSG_NOSIGNAL), n);
	ck_assert_int_eq(live_read_headers(fd, bad, sizeof bad), 200);
	ck_assert_ptr_nonnull(strstr(bad, "text/event-stream"));
	close(fd);
}
END_TEST

/* Add test t to tc unless another one was asked for. */
#define ADD_TEST(tc, t)                                                                            \
	do {                                                                                       \
		if (!only || strcmp(only, #t) == 0)                                                \
			tcase_add_test(tc, t);                                                     \
	} while (0)

int main(void)
{
	/* STRICT_ONLY=name runs that one test (while working on it). */
	const char *only = getenv("STRICT_ONLY");
	Suite *s = suite_create("strict");
	TCase *tc = tcase_create("contactd");
	SRunner *sr;
	int failed;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 600);
	ADD_TEST(tc, body_needs_json_type);
	ADD_TEST(tc, ambiguous_heads_400);
	ADD_TEST(tc, global_limit_answered);
	ADD_TEST(tc, robot_dot_names_refused);
	ADD_TEST(tc, idempotency_key_malformed);
	ADD_TEST(tc, watch_url_canonical_only);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	curl_global_cleanup();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
