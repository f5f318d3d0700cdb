/*
 * fuzz_http.c: a structure-aware fuzzer against the real contactd (run under ASan/UBSan by
 * the sanitizer build and CI).
 *
 * Every request is a valid one mutated: a body of each endpoint (the five questions and
 * the calibration uploads) with a JSON value's type swapped, a number made extreme, a
 * field deleted, duplicated or unknown added, deep nesting, a long string or bytes that
 * are not UTF-8; or the raw HTTP around it (request line and version, headers and blanks
 * after their values, chunked framing with bare-LF lines and trailers). Each goes out on
 * its own connection, whole, and must come back as one complete HTTP answer (no silent
 * drop), never a 5xx, and, when it is JSON, must parse (jansson refuses NaN and Infinity,
 * so no number in it is non-finite). At the end the daemon must still
 * serve, and exit 0 on SIGTERM (a sanitizer's report makes it exit non-zero).
 *
 * FUZZ_SECONDS (default 20) or FUZZ_REQUESTS (if set, the number of requests) bound the
 * run; FUZZ_SEED picks the sequence (default 1, so `make check` is reproducible). By hand:
 *   FUZZ_REQUESTS=1000000 FUZZ_SEED=$RANDOM tests/fuzz_http
 */
#include <check.h>
#include <errno.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "live.h"
#include "robot.h"

static struct live_daemon dmn;
static char token[ROBOT_TOKEN_MAX];

/* A small, fast, seedable generator (xorshift64*): the same seed, the same run. */
static unsigned long long rng_state = 1;

static unsigned long long rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static size_t pick(size_t n)
{
	return (size_t)(rnd() % n);
}

/* The valid requests that every mutation starts from. */
static const struct seed {
	const char *path;
	int auth; /* needs the robot's token */
	const char *body;
} seeds[] = {
    {"/v1/rest", 0,
        "{\"body\": {\"shape\": \"box\", \"size\": 0.05, \"mass\": 1.0}, \"geom\": {\"solref\": "
        "[0.02, 1], \"solimp\": [0.9, 0.95, 0.001, 0.5, 2], \"condim\": 3, \"priority\": 0}, "
        "\"option\": {\"timestep\": 0.002, \"gravity\": 9.81}, \"duration\": 0.5}"},
    {"/v1/drop", 0,
        "{\"body\": {\"shape\": \"sphere\", \"size\": 0.05, \"mass\": 1}, \"height\": 0.1, "
        "\"duration\": 0.5, \"floor\": {\"solref\": [0.05, 1]}}"},
    {"/v1/stability", 0, "{\"solref\": [0.02, 1], \"option\": {\"timestep\": 0.01}}"},
    {"/v1/sweep", 0,
        "{\"query\": \"stability\", \"base\": {}, \"vary\": [{\"path\": \"/solref/0\", "
        "\"values\": [0.001, 0.002, 0.005]}, {\"path\": \"/option/timestep\", \"values\": "
        "[0.001, 0.01]}]}"},
    {"/v1/sweep", 0,
        "{\"query\": \"drop\", \"base\": {\"duration\": 0.2}, \"vary\": [{\"path\": "
        "\"/height\", \"values\": [0.05, 0.1]}]}"},
    {"/v1/eval", 0,
        "{\"calls\": [{\"function\": \"impedance\", \"args\": {\"r\": 0.0005, \"solimp\": "
        "[0.9, 0.95, 0.001, 0.5, 2]}}, {\"function\": \"error_reduction\", \"args\": "
        "{\"timeconst\": 0.02, \"dampratio\": 1, \"dt\": 0.002}}, {\"function\": "
        "\"solref_kb\", \"args\": {\"solref\": [0.02, 1]}}]}"},
    {"/v1/eval", 0,
        "{\"function\": \"step_growth\", \"args\": {\"k\": 1000, \"b\": 10, "
        "\"dt\": 0.002}}"},
    {"/v1/robots/fuzzbot/calibrations", 1,
        "{\"object\": {\"shape\": \"sphere\", \"size\": 0.02, \"mass\": 0.1}, \"option\": "
        "{\"timestep\": 0.005}}"},
    {"/v1/calibrations/1/measurements", 1,
        "{\"drops\": [{\"height\": 0.1, \"rebound\": 0.004}], \"presses\": [{\"force\": 9.81, "
        "\"deflection\": 0.0001}]}"},
};
#define SEEDS (sizeof seeds / sizeof seeds[0])

/* ---- JSON mutations ---- */

static json_t *random_scalar(void)
{
	static const double extremes[] = {0.0, -0.0, 1e308, -1e308, 5e-324, 1e-300, 1e15, -1, -1e-9,
	    4294967296.0, 9007199254740993.0, 1e10, 0.5, 2, 3, 7};
	static const char *const strings[] = {
	    "", "box", "sphere", "drop", "/", "~1", "impedance", "\xc3\xa9", "0", "null"};

	switch (pick(6)) {
	case 0:
		return json_real(extremes[pick(sizeof extremes / sizeof extremes[0])]);
	case 1:
		return json_integer((json_int_t)(rnd() >> pick(64)) * (pick(2) ? 1 : -1));
	case 2:
		return json_string(strings[pick(sizeof strings / sizeof strings[0])]);
	case 3:
		return json_boolean(pick(2));
	case 4:
		return json_null();
	default:
		return pick(2) ? json_array() : json_object();
	}
}

/* Every container and scalar of root, depth first, for picking one at random. */
static void collect(json_t *v, json_t **nodes, size_t *n, size_t cap)
{
	const char *key;
	json_t *child;
	size_t i;

	if (*n < cap)
		nodes[(*n)++] = v;
	if (json_is_object(v)) {
		json_object_foreach (v, key, child)
			collect(child, nodes, n, cap);
	} else if (json_is_array(v)) {
		json_array_foreach (v, i, child)
			collect(child, nodes, n, cap);
	}
}

/* Replace a random child of container parent with value (stolen). */
static void replace_child(json_t *parent, json_t *value)
{
	if (json_is_object(parent) && json_object_size(parent)) {
		const char *key;
		json_t *child;
		size_t i = pick(json_object_size(parent)), at = 0;

		json_object_foreach (parent, key, child) {
			if (at++ == i) {
				json_object_set_new(parent, key, value);
				return;
			}
		}
	} else if (json_is_array(parent) && json_array_size(parent)) {
		json_array_set_new(parent, pick(json_array_size(parent)), value);
		return;
	}
	json_decref(value);
}

static void mutate_tree(json_t *root)
{
	json_t *nodes[256], *target, *deep;
	size_t n = 0, i, depth;
	char *big;

	collect(root, nodes, &n, 256);
	target = nodes[pick(n)];
	switch (pick(7)) {
	case 0: /* a value's type swapped, or a number made extreme */
		replace_child(target, random_scalar());
		break;
	case 1: /* a field deleted */
		if (json_is_object(target) && json_object_size(target)) {
			const char *key;
			json_t *child;
			size_t k = pick(json_object_size(target)), at = 0;

			json_object_foreach (target, key, child) {
				if (at++ == k) {
					json_object_del(target, key);
					break;
				}
			}
		} else if (json_is_array(target) && json_array_size(target)) {
			json_array_remove(target, pick(json_array_size(target)));
		}
		break;
	case 2: /* an unknown field */
		if (json_is_object(target))
			json_object_set_new(target, pick(2) ? "surprise" : "", random_scalar());
		else if (json_is_array(target))
			json_array_append_new(target, random_scalar());
		break;
	case 3: /* deep nesting */
		depth = 1 + pick(40);
		deep = random_scalar();
		for (i = 0; i < depth; i++) {
			json_t *wrap = pick(2) ? json_array() : json_object();

			if (json_is_array(wrap))
				json_array_append_new(wrap, deep);
			else
				json_object_set_new(wrap, "x", deep);
			deep = wrap;
		}
		replace_child(target, deep);
		break;
	case 4: /* a long string: now and then over the 1 MiB body limit */
		n = 1 + pick(pick(20) ? 5000 : 1500000);
		big = malloc(n + 1);
		ck_assert_ptr_nonnull(big);
		memset(big, 'a' + (int)pick(26), n);
		big[n] = '\0';
		replace_child(target, json_string(big));
		free(big);
		break;
	case 5: /* a long array */
		deep = json_array();
		for (i = 0, n = pick(3000); i < n; i++)
			json_array_append_new(deep, json_real((double)i * 1e-4));
		replace_child(target, deep);
		break;
	default: /* a number nudged (still valid, mostly: a cache miss) */
		if (json_is_number(target) && json_is_real(target))
			json_real_set(
			    target, json_real_value(target) * (1 + 1e-3 * (double)pick(100)));
		break;
	}
}

/* Text-level mutations jansson cannot make: duplicate keys, bad UTF-8, raw numbers. */
static char *mutate_text(char *text)
{
	static const char *const tokens[] = {"1e400", "-1e400", "NaN", "Infinity", "-0",
	    "123456789012345678901234567890", "0x10", "1.", ".5", "\"\\ud800\"", "\"\\u0000\"",
	    "\xff", "\xc3", "\xed\xa0\x80", "\"\xf0\x9f\x98\x80\"", "{", "]", ",", "\"a\":1,"};
	size_t len = strlen(text), at = pick(len + 1);
	const char *tok = tokens[pick(sizeof tokens / sizeof tokens[0])];
	char *out;

	if (pick(3) == 0) {
		/* Duplicate the first key: {"k": v, ...} -> {"k": v, "k": v, ...}. */
		const char *comma = strchr(text, ',');

		if (text[0] == '{' && comma &&
		    asprintf(&out, "{%.*s,%s", (int)(comma - text - 1), text + 1, text + 1) > 0) {
			free(text);
			return out;
		}
	}
	ck_assert_int_gt(asprintf(&out, "%.*s%s%s", (int)at, text, tok, text + at), 0);
	free(text);
	return out;
}

/* A mutated body of seed s. Caller frees. */
static char *mutated_body(const struct seed *s)
{
	json_t *root = json_loads(s->body, 0, NULL);
	char *text;
	size_t rounds = 1 + pick(3), i;

	ck_assert_ptr_nonnull(root);
	for (i = 0; i < rounds; i++)
		mutate_tree(root);
	text = json_dumps(root, JSON_COMPACT | JSON_ENCODE_ANY);
	json_decref(root);
	ck_assert_ptr_nonnull(text);
	if (pick(4) == 0)
		text = mutate_text(text);
	return text;
}

/* ---- raw HTTP ---- */

struct buf {
	char *data;
	size_t len, cap;
};

static void put(struct buf *b, const char *data, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->data = realloc(b->data, b->cap);
		ck_assert_ptr_nonnull(b->data);
	}
	memcpy(b->data + b->len, data, n);
	b->len += n;
	b->data[b->len] = '\0';
}

static void putf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void putf(struct buf *b, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* The whole request: request line, headers and body, each possibly mutated, but always
 * complete, so the daemon owes an answer. */
static void build_request(struct buf *req, const struct seed *s, const char *body)
{
	static const char *const methods[] = {"POST", "POST", "POST", "GET", "PUT", "HEAD",
	    "DELETE", "OPTIONS", "PATCH", "P\xffST", "post"};
	static const char *const types[] = {"application/json", "application/json",
	    "application/json; charset=utf-8", "text/plain", "application/x+json",
	    "application/\xff\xfe", "", "multipart/form-data; boundary=x"};
	static const char *const accepts[] = {NULL, "*/*", "application/json", "text/csv",
	    "text/csv;q=0.5, application/json", "image/png", "application/json;q=0", "\xc3(/\xc3("};
	static const char *const paths[] = {NULL, "/v1/%ff", "/v1/rest/", "/v1/robots/x/y",
	    "/v1/calibrations/99999999999999999999", "/v1/calibrations/-1/events", "/metrics",
	    "/v1/health?x=1", "/v1/calibrations/1/events", "/v1/openapi.json"};
	size_t len = strlen(body);
	int raw = pick(4) == 0, chunked = pick(5) == 0;
	const char *method = raw ? methods[pick(sizeof methods / sizeof methods[0])] : "POST";
	const char *path = raw ? paths[pick(sizeof paths / sizeof paths[0])] : NULL;
	const char *type = raw ? types[pick(sizeof types / sizeof types[0])] : types[0];
	const char *accept = accepts[pick(sizeof accepts / sizeof accepts[0])];
	/* blanks after header values (RFC 9110's optional whitespace), an HTTP/1.0 request
	 * (chunked, it is refused), a bare LF ending chunk lines, a trailer field */
	const char *ows = raw && pick(4) == 0 ? " \t" : "";
	const char *version = raw && pick(12) == 0 ? "HTTP/1.0" : "HTTP/1.1";
	const char *eol = raw && pick(10) == 0 ? "\n" : "\r\n";
	const char *trailer =
	    raw && pick(10) == 0 ? (pick(2) ? "Content-Length: 5\r\n" : "X-T: 1\r\n") : "";

	putf(req, "%s %s %s\r\nHost: fuzz\r\nConnection: close\r\n", method, path ? path : s->path,
	    version);
	if (*type)
		putf(req, "Content-Type: %s%s\r\n", type, ows);
	if (accept)
		putf(req, "Accept: %s%s\r\n", accept, ows);
	if (s->auth && (!raw || pick(2)))
		putf(req, "Authorization: Bearer %s%s\r\n", pick(10) ? token : "0.0", ows);
	if (raw && pick(3) == 0)
		putf(req, "X-Long: %0*d\r\n", (int)pick(900), 7);
	if (raw && pick(8) == 0)
		putf(req, "Transfer-Encoding: %s\r\n", pick(2) ? "gzip" : "chunked, identity");
	if (raw && pick(8) == 0)
		putf(req, "Content-Length: %zu\r\nTransfer-Encoding: chunked\r\n", len);
	else if (raw && pick(10) == 0)
		putf(req, "Expect: 100-continue\r\nContent-Length: %zu\r\n", len);
	else if (chunked)
		put(req, "Transfer-Encoding: chunked\r\n", 28);
	else
		putf(req, "Content-Length: %zu\r\n", len);
	put(req, "\r\n", 2);
	if (!chunked || strstr(req->data, "Content-Length")) {
		put(req, body, len);
		return;
	}
	/* Chunked framing: random chunk sizes, sometimes extensions and upper-case hex. */
	while (len) {
		size_t n = 1 + pick(len < 4096 ? len : 4096);

		putf(req, pick(2) ? "%zx%s%s" : "%zX%s%s", n, pick(6) ? "" : ";ext=1", eol);
		put(req, body, n);
		put(req, eol, strlen(eol));
		body += n;
		len -= n;
	}
	putf(req, "0%s%s\r\n", eol, trailer);
}

struct tally {
	unsigned long requests, by_class[6], drops, bad_json, five_xx, not_json;
};

/*
 * Send req on a new connection and read the answer to its end (Connection: close).
 * Returns the status; 0 for a silent drop (no complete answer).
 */
static int exchange(const struct buf *req, struct buf *resp)
{
	int fd = live_connect(&dmn), status = 0;
	size_t sent = 0;
	double deadline = live_now() + LIVE_WAIT_S;
	const char *end, *length;
	char chunk[65536];

	resp->len = 0;
	/* Send while reading: the daemon may answer (413, 400) before the body is all sent. */
	while (live_now() < deadline) {
		struct pollfd p = {.fd = fd, .events = POLLIN | (sent < req->len ? POLLOUT : 0)};
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		if ((p.revents & POLLOUT) && sent < req->len) {
			n = send(
			    fd, req->data + sent, req->len - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
			if (n > 0)
				sent += (size_t)n;
			else if (n < 0 && errno != EAGAIN)
				sent = req->len; /* the daemon closed its side: read what it said */
		}
		if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
			n = recv(fd, chunk, sizeof chunk, MSG_DONTWAIT);
			if (n > 0)
				put(resp, chunk, (size_t)n);
			else if (n == 0 || errno != EAGAIN)
				break;
		}
	}
	close(fd);
	/* Interim answers (1xx, e.g. 100 Continue) are not the answer: drop them, judge the
	 * final one (none: a silent drop). */
	while (resp->len >= 12 && strncmp(resp->data, "HTTP/1.", 7) == 0 && resp->data[9] == '1' &&
	    (end = strstr(resp->data, "\r\n\r\n")) != NULL) {
		size_t interim = (size_t)(end + 4 - resp->data);

		memmove(resp->data, resp->data + interim, resp->len - interim);
		resp->len -= interim;
		resp->data[resp->len] = '\0';
	}
	if (resp->len < 12 || strncmp(resp->data, "HTTP/1.", 7) != 0)
		return 0;
	end = strstr(resp->data, "\r\n\r\n");
	length = strcasestr(resp->data, "\r\nContent-Length: ");
	if (!end)
		return 0;
	/* Complete: as long as it said, or (no length, e.g. HEAD or an event stream) whole. */
	if (length && length < end &&
	    (size_t)(resp->data + resp->len - (end + 4)) < (size_t)atol(length + 18) &&
	    !strstr(req->data, "HEAD "))
		return 0;
	status = atoi(resp->data + 9);
	return status;
}

/* Check one answer against the rules; count it. */
static void judge(struct tally *t, const struct buf *req, const struct buf *resp, int status)
{
	const char *end, *type;

	t->requests++;
	if (status == 0) {
		t->drops++;
		fprintf(stderr, "silent drop of:\n%.*s\n", (int)(req->len < 600 ? req->len : 600),
		    req->data);
		return;
	}
	t->by_class[status / 100 < 6 ? status / 100 : 0]++;
	if (status >= 500) {
		t->five_xx++;
		fprintf(stderr, "%d for:\n%.*s\nanswer:\n%.*s\n", status,
		    (int)(req->len < 600 ? req->len : 600), req->data,
		    (int)(resp->len < 600 ? resp->len : 600), resp->data);
	}
	end = strstr(resp->data, "\r\n\r\n");
	type = strcasestr(resp->data, "\r\nContent-Type: application/json");
	if (type && type < end && end[4]) {
		json_error_t jerr;
		json_t *v = json_loads(end + 4, 0, &jerr);

		if (!v) {
			t->bad_json++;
			fprintf(stderr, "unparsable JSON (%s): %.300s\n", jerr.text, end + 4);
		}
		json_decref(v);
	} else {
		t->not_json++; /* libmicrohttpd's own answers to malformed HTTP (HTML) */
	}
}

START_TEST(fuzz)
{
	const char *seconds = getenv("FUZZ_SECONDS"), *count = getenv("FUZZ_REQUESTS");
	const char *seed = getenv("FUZZ_SEED");
	double stop = live_now() + (seconds ? atof(seconds) : 20);
	unsigned long limit = count ? strtoul(count, NULL, 10) : 0;
	struct buf req = {0}, resp = {0};
	struct tally t = {0};
	struct live_reply r;

	rng_state = seed && atoll(seed) ? (unsigned long long)atoll(seed) : 1;
	live_init(&dmn);
	robot_token_create(&dmn, "fuzzbot", token);
	/* Small work limits keep each answer quick; --max-body stays the default. */
	live_start(&dmn, "--max-sweep-points", "64", "--max-eval-calls", "64",
	    "--max-connections-per-ip", "0", (char *)NULL);
	while (limit ? t.requests < limit : live_now() < stop) {
		const struct seed *s = &seeds[pick(SEEDS)];
		/* A calibration write is fsynced (milliseconds) and an upload refits (up to
		 * half a second): they come less often than the questions. */
		if (s->auth && (pick(5) || (strstr(s->path, "/measurements") && pick(10))))
			s = &seeds[pick(SEEDS - 2)];
		char *body = pick(20) ? mutated_body(s) : strdup(s->body);
		int status;

		req.len = 0;
		build_request(&req, s, body);
		status = exchange(&req, &resp);
		judge(&t, &req, &resp, status);
		free(body);
		if (t.requests % 100000 == 0)
			fprintf(stderr, "fuzz: %lu requests\n", t.requests);
	}
	fprintf(stderr,
	    "fuzz: %lu requests (seed %llu): 1xx %lu, 2xx %lu, 3xx %lu, 4xx %lu, 5xx %lu, silent "
	    "drops %lu, unparsable JSON %lu, non-JSON answers %lu\n",
	    t.requests, seed ? (unsigned long long)atoll(seed) : 1ULL, t.by_class[1], t.by_class[2],
	    t.by_class[3], t.by_class[4], t.five_xx, t.drops, t.bad_json, t.not_json);
	/* Still serving, then a clean exit (live_cleanup() asserts status 0). */
	ck_assert_int_eq(waitpid(dmn.pid, NULL, WNOHANG), 0);
	live_get(&dmn, "/v1/health", &r);
	ck_assert_int_eq(r.status, 200);
	live_reply_free(&r);
	ck_assert_uint_eq(t.drops, 0);
	ck_assert_uint_eq(t.five_xx, 0);
	/* Every answer judged was a final one: "100 Continue" is read past, never counted. */
	ck_assert_uint_eq(t.by_class[1], 0);
	ck_assert_uint_eq(t.bad_json, 0);
	free(req.data);
	free(resp.data);
	live_cleanup(&dmn);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fuzz");
	TCase *tc = tcase_create("contactd");
	SRunner *sr;
	int failed;

	signal(SIGPIPE, SIG_IGN);
	tcase_add_test(tc, fuzz);
	tcase_set_timeout(tc, 0); /* bounded by FUZZ_SECONDS / FUZZ_REQUESTS */
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
