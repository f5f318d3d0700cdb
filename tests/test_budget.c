/*
 * test_budget.c: a question's compute budget and its cancellation (service/budget.h),
 * in the service (a budget installed on the calling thread) and against the real
 * contactd (--max-cpu-seconds, a client that hangs up).
 *
 * Nothing asserts a duration: the long questions below take seconds of CPU on any
 * machine (a hold with noslip that neither settles nor falls: ~1.5 us a step on the
 * development machine, 10 million steps), far over the budgets the tests give (1 s, or
 * 1 ms in the service), and a computation is known to be running when /metrics says so.
 * Waits are generous upper bounds (LIVE_WAIT_S).
 */
#include <check.h>
#include <curl/curl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/budget.h"
#include "live.h"
#include "service/budget.h"
#include "service/service.h"
#include "store/knobs.h"

/* A hold whose pads neither let the object settle nor drop it for ~300 s: every step
 * is simulated, with 100 noslip sweeps; DURATION seconds at 5e-5 s a step. */
#define LONG_HOLD(DURATION)                                                                        \
	"{\"option\": {\"cone\": \"pyramidal\", \"noslip_iterations\": 100, \"timestep\": 5e-5}, " \
	"\"duration\": " #DURATION ", \"grip_force\": 10, \"pad\": {\"solref\": [0.001, 0.1]}}"

static struct live_daemon dmn;

static void setup(void)
{
	live_init(&dmn);
}

static void teardown(void)
{
	live_cleanup(&dmn);
}

/* ---- the service ---- */

/* A cache that counts what it is asked to keep. */
static int puts_seen;

static int count_get(void *ctx, const char *endpoint, const char *canonical, char **answer,
    size_t *len, struct err *err)
{
	(void)ctx, (void)endpoint, (void)canonical, (void)answer, (void)len, (void)err;
	return 0;
}

static int count_put(void *ctx, const char *endpoint, const char *canonical, const char *answer,
    size_t len, struct err *err)
{
	(void)ctx, (void)endpoint, (void)canonical, (void)answer, (void)len, (void)err;
	puts_seen++;
	return 0;
}

/* A hold over its budget (1 ms of CPU; it takes seconds) is stopped: 503, not cached. */
START_TEST(service_budget_stops_hold)
{
	static const char body[] = LONG_HOLD(100);
	struct cache cache = {NULL, count_get, count_put};
	struct svc_limits lim;
	struct budget b;
	struct core_budget *was;
	char *text = NULL;
	struct err err;
	int rc;

	svc_limits_default(&lim);
	lim.threads = 1;
	puts_seen = 0;
	budget_init(&b, 1e-3, NULL, NULL);
	was = budget_enter(&b.core);
	rc = svc_ask(SVC_HOLD, body, strlen(body), &lim, &cache, &text, NULL, &err);
	ck_assert_int_eq(core_budget_stopped(), BUDGET_SPENT);
	budget_enter(was);
	ck_assert_int_eq(rc, -1);
	ck_assert_ptr_null(text);
	ck_assert_int_eq(err.code, ERR_UNAVAILABLE);
	ck_assert_msg(strstr(err.message, "compute budget"), "%s", err.message);
	ck_assert_int_eq(puts_seen, 0);
}
END_TEST

/* A budget another thread stopped (its client left) stops a sweep's every thread. */
START_TEST(service_cancel_stops_sweep)
{
	static const char body[] = "{\"query\": \"hold\", \"base\": " LONG_HOLD(
	    100) ", \"vary\": "
	         "[{\"path\": \"/grip_force\", \"values\": [9, 10, 11, 12]}]}";
	struct cache cache = {NULL, count_get, count_put};
	struct svc_limits lim;
	struct budget b;
	struct core_budget *was;
	char *text = NULL;
	struct err err;
	int rc;

	svc_limits_default(&lim);
	lim.threads = 2;
	puts_seen = 0;
	budget_init(&b, 0, NULL, NULL);
	atomic_store(&b.core.stop, BUDGET_GONE);
	was = budget_enter(&b.core);
	rc = svc_ask(SVC_SWEEP, body, strlen(body), &lim, &cache, &text, NULL, &err);
	budget_enter(was);
	ck_assert_int_eq(rc, -1);
	ck_assert_int_eq(err.code, ERR_UNAVAILABLE);
	ck_assert_msg(strstr(err.message, "cancelled"), "%s", err.message);
	ck_assert_int_eq(puts_seen, 0);
}
END_TEST

/* Before it starts: a question whose steps estimate is over the budget is a 422 naming
 * the field that makes it long; the CLI's limits (no budget) take it. */
START_TEST(service_estimate_refused)
{
	static const char hold[] = LONG_HOLD(500);
	static const char sweep[] =
	    "{\"query\": \"drop\", \"base\": {\"duration\": 500, \"option\": "
	    "{\"timestep\": 0.0001}}, \"vary\": [{\"path\": \"/body/size\", "
	    "\"values\": [0.05, 0.06, 0.07]}]}";
	struct svc_limits lim;
	json_t *canonical = NULL;
	struct err err;

	svc_limits_default(&lim);
	ck_assert(lim.max_cpu_seconds == 0);
	ck_assert_int_eq(svc_canonical(SVC_HOLD, hold, strlen(hold), &lim, &canonical, &err), 0);
	json_decref(canonical);
	/* 10.2 million steps at >= 300 ns (noslip) is >= 3 s */
	lim.max_cpu_seconds = 1;
	ck_assert_int_eq(svc_canonical(SVC_HOLD, hold, strlen(hold), &lim, &canonical, &err), -1);
	ck_assert_int_eq(err.code, ERR_BAD_VALUE);
	ck_assert_str_eq(err.path, "/duration");
	ck_assert_msg(strstr(err.message, "compute budget"), "%s", err.message);
	/* 15 million drop steps at >= 5 ns is >= 0.075 s */
	lim.max_cpu_seconds = 0.05;
	ck_assert_int_eq(
	    svc_canonical(SVC_SWEEP, sweep, strlen(sweep), &lim, &canonical, &err), -1);
	ck_assert_int_eq(err.code, ERR_BAD_VALUE);
	ck_assert_str_eq(err.path, "/vary");
	lim.max_cpu_seconds = 1;
	ck_assert_int_eq(svc_canonical(SVC_SWEEP, sweep, strlen(sweep), &lim, &canonical, &err), 0);
	json_decref(canonical);
}
END_TEST

/* ---- the daemon ---- */

static const char stopped_gone[] = "contactd_questions_stopped_total{reason=\"client_gone\"}";
static const char stopped_spent[] = "contactd_questions_stopped_total{reason=\"over_budget\"}";

/*
 * A sweep of four long holds (minutes of CPU: no budget here) whose client hangs up
 * while it computes frees the only compute thread: the question is stopped (counted,
 * logged as such, not as a 200), and the next question is computed, not 503 busy.
 */
START_TEST(daemon_client_gone_frees_thread)
{
	static const char sweep[] = "{\"query\": \"hold\", \"base\": " LONG_HOLD(
	    500) ", \"vary\": "
	         "[{\"path\": \"/grip_force\", \"values\": [9, 10, 11, 12]}]}";
	struct live_reply r;
	double left;
	int fd;

	live_start(&dmn, "--compute-threads", "1", "--max-queued", "0", "--sweep-threads", "1",
	    "--max-cpu-seconds", "0", (char *)NULL);
	fd = live_post_raw(&dmn, "/v1/sweep", "", sweep);
	live_wait_metric(&dmn, "contactd_compute_running", 1);
	close(fd);
	left = live_now();
	ck_assert_msg(live_metric_becomes(&dmn, "contactd_compute_running", 0),
	    "the sweep still computes after its client left");
	/* not an assertion: the report's cancellation latency (one metrics poll included) */
	fprintf(stderr, "test_budget: compute thread free %.3f s after the client left\n",
	    live_now() - left);
	ck_assert_int_eq((int)live_metric(&dmn, stopped_gone), 1);
	live_post(&dmn, "/v1/drop", "{\"duration\": 0.5}", &r);
	ck_assert_msg(r.status == 200, "%ld %s", r.status, r.body);
	live_reply_free(&r);
	ck_assert_int_eq(live_stop(&dmn), 0);
	ck_assert_int_eq(live_log_count(&dmn, "stopped=client-gone"), 1);
	ck_assert_int_eq(live_log_count(&dmn, "POST /v1/sweep 200"), 0);
}
END_TEST

/* The same for a single hold (the core's step loop, not a sweep's points). */
START_TEST(daemon_client_gone_stops_hold)
{
	struct live_reply r;
	int fd;

	live_start(&dmn, "--compute-threads", "1", "--max-queued", "0", "--max-cpu-seconds", "0",
	    (char *)NULL);
	fd = live_post_raw(&dmn, "/v1/hold", "", LONG_HOLD(500));
	live_wait_metric(&dmn, "contactd_compute_running", 1);
	close(fd);
	ck_assert_msg(live_metric_becomes(&dmn, "contactd_compute_running", 0),
	    "the hold still computes after its client left");
	ck_assert_int_eq((int)live_metric(&dmn, stopped_gone), 1);
	live_post(&dmn, "/v1/drop", "{\"duration\": 0.5}", &r);
	ck_assert_msg(r.status == 200, "%ld %s", r.status, r.body);
	live_reply_free(&r);
}
END_TEST

/*
 * SIGTERM past --drain-timeout 1 while two long computations run: a hold waiting for its
 * answer (answered 503, its job told at once) and a streamed sweep of holds whose rows are
 * being computed after its head went out (its job sees its client gone only once the
 * connection is closed, after the drain's second). Both are stopped and joined before the
 * store and the cache are closed, never left running under store_close() (which a sanitised
 * build would catch as a use after free of the store's per-thread connection): none is
 * "abandoned", and the daemon exits 0.
 */
START_TEST(daemon_shutdown_joins_computations)
{
	static const char sweep[] = "{\"query\": \"hold\", \"base\": " LONG_HOLD(
	    500) ", \"vary\": "
	         "[{\"path\": \"/grip_force\", \"values\": [9, 10, 11, 12]}]}";
	char buf[4096];
	ssize_t n;
	int hold_fd, sweep_fd;

	/* four threads: one client (this address) runs two at once (DAEMON_CLIENT_RUNNING_PART) */
	live_start(&dmn, "--compute-threads", "4", "--sweep-threads", "1", "--drain-timeout", "1",
	    "--max-cpu-seconds", "0", (char *)NULL);
	sweep_fd = live_post_raw(&dmn, "/v1/sweep", "Accept: application/x-ndjson\r\n", sweep);
	/* the head (status line, headers, the first line of the stream) out: the rows compute */
	n = recv(sweep_fd, buf, sizeof buf - 1, 0);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	ck_assert_msg(strncmp(buf, "HTTP/1.1 200", 12) == 0, "%s", buf);
	hold_fd = live_post_raw(&dmn, "/v1/hold", "", LONG_HOLD(500));
	live_wait_metric(&dmn, "contactd_compute_running", 2);
	ck_assert_int_eq(live_stop(&dmn), 0);
	ck_assert_int_eq(live_log_count(&dmn, "computations abandoned"), 0);
	ck_assert_int_eq(live_log_count(&dmn, "POST /v1/hold 200"), 0);
	ck_assert_int_eq(live_log_count(&dmn, "\nstopped\n"), 1);
	close(hold_fd);
	close(sweep_fd);
}
END_TEST

/*
 * --max-cpu-seconds 1: a hold estimated over it is a 422 naming /duration at once; a
 * find over holds (no estimate: each of its holds takes seconds) runs out of it, 503,
 * counted, and is not cached (asked again, it is computed again).
 */
START_TEST(daemon_budget_refuses_and_stops)
{
	static const char find[] = "{\"query\": \"hold\", \"base\": " LONG_HOLD(
	    100) ", \"path\": \"/grip_force\", \"field\": \"slip\", \"target\": "
	         "0.01, \"bracket\": [8, 12], \"max_iterations\": 8}";
	struct live_reply r;

	live_start(&dmn, "--max-cpu-seconds", "1", (char *)NULL);
	live_post(&dmn, "/v1/hold", LONG_HOLD(500), &r);
	live_assert_error(&r, 422, "bad_value", "/duration");
	live_reply_free(&r);
	live_post(&dmn, "/v1/find", find, &r);
	live_assert_error(&r, 503, "unavailable", "");
	ck_assert_msg(strstr(r.body, "compute budget"), "%s", r.body);
	live_reply_free(&r);
	ck_assert_int_eq((int)live_metric(&dmn, stopped_spent), 1);
	live_post(&dmn, "/v1/find", find, &r);
	live_assert_error(&r, 503, "unavailable", "");
	live_reply_free(&r);
	ck_assert_int_eq((int)live_metric(&dmn, stopped_spent), 2);
	ck_assert_int_eq(live_stop(&dmn), 0);
	ck_assert_int_eq(live_log_count(&dmn, "stopped=over-budget"), 2);
}
END_TEST

/*
 * An answer over the cache's per-answer cap (STORE_CACHE_MAX_ANSWER: a 5,000-point
 * stability sweep, ~375 kB) is served whole but not cached: asked again it is computed
 * again (X-Cache: miss), and /metrics counts both.
 */
START_TEST(daemon_large_answer_not_cached)
{
	const int points = 5000;
	size_t cap = 64 + (size_t)points * 16, n;
	char *body = malloc(cap);
	struct live_reply r;
	int i, k;

	ck_assert_ptr_nonnull(body);
	n = (size_t)snprintf(body, cap,
	    "{\"query\": \"stability\", \"base\": {}, \"vary\": [{\"path\": \"/solref/0\", "
	    "\"values\": [");
	for (k = 0; k < points; k++)
		n += (size_t)snprintf(body + n, cap - n, "%s%de-6", k ? "," : "", k + 1);
	snprintf(body + n, cap - n, "]}]}");
	live_start(&dmn, (char *)NULL);
	for (i = 0; i < 2; i++) {
		live_post(&dmn, "/v1/sweep", body, &r);
		ck_assert_msg(r.status == 200, "%ld %s", r.status, r.body);
		ck_assert_msg(r.len > (size_t)STORE_CACHE_MAX_ANSWER, "%zu bytes", r.len);
		ck_assert_str_eq(r.cache, "miss");
		live_reply_free(&r);
	}
	ck_assert_int_eq((int)live_metric(&dmn, "contactd_cache_uncached_total"), 2);
	free(body);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("budget");
	TCase *tc = tcase_create("budget");
	SRunner *sr;
	int failed;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, service_budget_stops_hold);
	tcase_add_test(tc, service_cancel_stops_sweep);
	tcase_add_test(tc, service_estimate_refused);
	tcase_add_test(tc, daemon_client_gone_frees_thread);
	tcase_add_test(tc, daemon_client_gone_stops_hold);
	tcase_add_test(tc, daemon_shutdown_joins_computations);
	tcase_add_test(tc, daemon_budget_refuses_and_stops);
	tcase_add_test(tc, daemon_large_answer_not_cached);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	curl_global_cleanup();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
