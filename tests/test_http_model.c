/*
 * test_http_model.c: POST /v1/model over real HTTP with an application/xml body (the raw
 * MJCF as the one file, the release from ?mujoco=): the same answer and cache entry as
 * the JSON form, an <include> refused with a 422 naming its line, the body limit, bad
 * XML, and the 415 that names both media types. A model's work (issue 51): an element of
 * too many attributes refused before libxml2 reads it, with /v1/health answering
 * meanwhile; many <pair>s paired in little CPU; a model stopped by its budget and by its
 * client leaving, spending little CPU after either.
 */
#include <check.h>
#include <curl/curl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "live.h"
#include "model/knobs.h"

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

/* The CPU seconds the daemon's threads have spent so far (/proc/PID/stat: utime + stime). */
static double daemon_cpu(const struct live_daemon *d)
{
	char path[64], *text, *at;
	unsigned long user = 0, sys = 0;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)d->pid);
	text = live_read_file(path, NULL);
	ck_assert_ptr_nonnull(text);
	at = strrchr(text, ')'); /* past the command name, which may hold blanks */
	ck_assert_ptr_nonnull(at);
	/* fields 3 to 13 (state ... cmajflt), then utime and stime */
	ck_assert_int_eq(
	    sscanf(at + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &user, &sys), 2);
	free(text);
	return (double)(user + sys) / (double)sysconf(_SC_CLK_TCK);
}

/* Appends to a growing text (asserting memory). */
struct text {
	char *s;
	size_t len, cap;
};

static void add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		ck_assert_int_ge(n, 0);
		if (t->len + (size_t)n < t->cap)
			break;
		t->cap = 2 * (t->cap + (size_t)n);
		t->s = realloc(t->s, t->cap);
		ck_assert_ptr_nonnull(t->s);
	}
	t->len += (size_t)n;
}

/*
 * The costly model: two free bodies of `spheres` spheres each that collide with
 * nothing (contype and conaffinity 0), and `pairs` <pair>s between their geoms, which the
 * pairing used to scan for each of the spheres^2 geom pairs; then `rests` free spheres
 * over a plane, whose rests settle 2 s at a timestep of 2e-7 s (1e7 steps each, the most
 * a rest takes). Caller frees.
 */
static char *pairs_model(int spheres, int pairs, int rests)
{
	struct text t = {NULL, 0, 0};
	int b, i;

	add(&t,
	    "<mujoco><option timestep=\"%s\"/><default><geom size=\"0.01\" "
	    "contype=\"0\" conaffinity=\"0\"/></default><worldbody>",
	    rests ? "2e-7" : "0.002");
	if (rests)
		add(&t, "<geom type=\"plane\" size=\"0 0 1\" contype=\"1\" conaffinity=\"1\"/>");
	for (b = 0; b < 2; b++) {
		add(&t, "<body name=\"%c\" pos=\"%d 0 1\"><freejoint/>", 'a' + b, 10 + b);
		for (i = 0; i < spheres; i++)
			add(&t, "<geom name=\"%c%d\"/>", 'a' + b, i);
		add(&t, "</body>");
	}
	for (i = 0; i < rests; i++)
		add(&t,
		    "<body pos=\"%d 0 0.1\"><freejoint/><geom contype=\"1\" "
		    "conaffinity=\"1\"/></body>",
		    i);
	add(&t, "</worldbody><contact>");
	for (i = 0; i < pairs; i++)
		add(&t, "<pair geom1=\"a%d\" geom2=\"b%d\"/>", i % spheres,
		    (i / spheres + i) % spheres);
	add(&t, "</contact></mujoco>");
	return t.s;
}

struct post {
	const char *body;
	struct live_reply reply;
	int rc;
};

static void *post_xml(void *arg)
{
	struct post *p = arg;

	p->rc = live_try_request(
	    &dmn, "POST", "/v1/model", xml_headers, p->body, strlen(p->body), 0, &p->reply);
	return NULL;
}

/*
 * One element of 90,000 attributes (979 KB) took libxml2 16 s, on an HTTP thread: it is
 * refused before libxml2 reads it, naming the limit, and /v1/health answers while four
 * are sent (it waited 9.6 s; 5 s here is a wide margin over the milliseconds it takes).
 */
START_TEST(many_attributes_refused_early)
{
	struct text t = {NULL, 0, 0};
	struct post posts[4];
	pthread_t threads[4];
	struct live_reply h;
	double start;
	int i;

	add(&t, "<mujoco><worldbody><geom size=\"0.1\"");
	for (i = 0; i < 90000; i++)
		add(&t, " a%d=\"1\"", i);
	add(&t, "/></worldbody></mujoco>");
	live_start(&dmn, "--max-body", "2000000", (char *)NULL);
	for (i = 0; i < 4; i++) {
		posts[i].body = t.s;
		ck_assert_int_eq(pthread_create(&threads[i], NULL, post_xml, &posts[i]), 0);
	}
	start = live_now();
	live_get(&dmn, "/v1/health", &h);
	ck_assert_int_eq(h.status, 200);
	ck_assert_msg(live_now() - start < 5, "/v1/health took %.1f s", live_now() - start);
	live_reply_free(&h);
	for (i = 0; i < 4; i++) {
		char limit[64];
		ck_assert_int_eq(pthread_join(threads[i], NULL), 0);
		ck_assert_int_eq(posts[i].rc, 0);
		live_assert_error(&posts[i].reply, 413, "too_large", "");
		snprintf(
		    limit, sizeof limit, "<geom>: more than %d attributes", MJCF_MAX_ATTRIBUTES);
		ck_assert_msg(
		    strstr(posts[i].reply.body, limit) != NULL, "%s", posts[i].reply.body);
		live_reply_free(&posts[i].reply);
	}
	free(t.s);
}
END_TEST

/*
 * Two bodies of 999 spheres and 19,999 <pair>s (the 774 KB) cost 15 s of CPU when
 * each geom pair scanned every <pair>: answered, every <pair> listed, in under 8 CPU
 * seconds of the whole daemon (well under a second at -O2; the margin is the sanitizers').
 */
START_TEST(many_pairs_cost_little)
{
	char *xml = pairs_model(999, 19999, 0);
	struct live_reply r;
	double cpu;
	json_t *a;

	live_start(&dmn, "--max-body", "2000000", (char *)NULL);
	cpu = daemon_cpu(&dmn);
	live_request(&dmn, "POST", "/v1/model", xml_headers, xml, strlen(xml), 0, &r);
	cpu = daemon_cpu(&dmn) - cpu;
	ck_assert_msg(r.status == 200, "%.300s", r.body);
	a = live_json(&r);
	ck_assert_int_eq(json_array_size(json_object_get(a, "pairs")), 19999);
	ck_assert_msg(cpu < 8, "the model took %.1f CPU seconds", cpu);
	json_decref(a);
	live_reply_free(&r);
	free(xml);
}
END_TEST

/*
 * A model over --max-cpu-seconds 1 (the pairing of many_pairs_cost_little's kind, then
 * ten rests of 1e7 steps): the budget's 503, counted over budget, after little more than
 * its second (it answered 200 after 16 s of unpolled pairing).
 */
START_TEST(model_stopped_by_budget)
{
	char *xml = pairs_model(990, 19000, 10);
	struct live_reply r;
	double cpu;

	live_start(&dmn, "--max-body", "2000000", "--max-cpu-seconds", "1", (char *)NULL);
	cpu = daemon_cpu(&dmn);
	live_request(&dmn, "POST", "/v1/model", xml_headers, xml, strlen(xml), 0, &r);
	cpu = daemon_cpu(&dmn) - cpu;
	live_assert_error(&r, 503, "unavailable", "");
	ck_assert_msg(strstr(r.body, "compute budget of 1 CPU seconds") != NULL, "%s", r.body);
	ck_assert_int_eq(
	    (int)live_metric(&dmn, "contactd_questions_stopped_total{reason=\"over_budget\"}"), 1);
	ck_assert_msg(cpu < 8, "the model took %.1f CPU seconds", cpu);
	live_reply_free(&r);
	free(xml);
}
END_TEST

/*
 * The same model's client hangs up while it computes: it stops (counted client gone, and
 * logged stopped=client-gone) within 5 CPU seconds of the daemon (it ran 12.7 s more).
 */
START_TEST(model_stopped_by_client_leaving)
{
	char *xml = pairs_model(990, 19000, 10), head[256];
	double cpu;
	int fd, n;

	live_start(&dmn, "--max-body", "2000000", (char *)NULL);
	n = snprintf(head, sizeof head,
	    "POST /v1/model HTTP/1.1\r\nHost: x\r\nContent-Type: application/xml\r\n"
	    "Content-Length: %zu\r\n\r\n",
	    strlen(xml));
	fd = live_connect(&dmn);
	ck_assert_int_eq(send(fd, head, (size_t)n, MSG_NOSIGNAL), n);
	ck_assert_int_eq(send(fd, xml, strlen(xml), MSG_NOSIGNAL), (ssize_t)strlen(xml));
	live_wait_metric(&dmn, "contactd_compute_running", 1);
	cpu = daemon_cpu(&dmn);
	close(fd);
	live_wait_metric(&dmn, "contactd_questions_stopped_total{reason=\"client_gone\"}", 1);
	cpu = daemon_cpu(&dmn) - cpu;
	ck_assert_msg(cpu < 5, "the model ran %.1f CPU seconds after its client left", cpu);
	/* the log line is written once the request ends */
	ck_assert_int_eq(live_stop(&dmn), 0);
	ck_assert_int_eq(live_log_count(&dmn, "stopped=client-gone"), 1);
	free(xml);
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
	tcase_add_test(tc, many_attributes_refused_early);
	tcase_add_test(tc, many_pairs_cost_little);
	tcase_add_test(tc, model_stopped_by_budget);
	tcase_add_test(tc, model_stopped_by_client_leaving);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	curl_global_cleanup();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
