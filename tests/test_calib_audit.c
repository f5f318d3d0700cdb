/*
 * test_calib_audit.c: POST /v1/calibrations/{id}/evaluate (issue #29's audit) against the
 * real daemon (live.h, robot.h):
 *   - at the fit's own solref it answers the fit's chi2 and each measurement's model and
 *     residual, drops and a press alike;
 *   - at another solref, its chi2 is the one computed independently from /v1/drop's
 *     first_rebound (the calibration's quantity) at that pad, and each drop's model is that
 *     first_rebound;
 *   - a solref that is not two finite numbers in range is a 4xx naming the field; the
 *     token and the calibration are checked as for reading it (401, 404), and the route
 *     answers POST only (405).
 *
 * The scene is issue 29's item 3: a 25.5 mm, 27.2 g sphere at 5 ms, libmujoco 2.2.2's rules.
 *
 * And where an audit runs (issue 51): in the compute pool, under the question's CPU budget
 * (--max-cpu-seconds: 503 past it), stopped when its client hangs up, never on an HTTP
 * thread (/v1/health is answered while two run); and the pool's fairness: one token's
 * backlog of slow audits holds its share (one running, --max-queued / DAEMON_CLIENT_QUEUE_PART
 * waiting; one more is 503 with Retry-After) and another client's question is served in turn, not
 * after that backlog. The slow audit is the issue's: 200 presses at a 1e-6 s timestep, each
 * simulated up to 4 s (tens of seconds of CPU in all); nothing asserts a duration: counts, statuses
 * and the order the pool serves in.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "http/knobs.h"
#include "live.h"
#include "robot.h"

static struct live_daemon dmn;
static char alice[ROBOT_TOKEN_MAX], bob[ROBOT_TOKEN_MAX];

static const char setup_body[] =
    "{\"object\":{\"shape\":\"sphere\",\"size\":0.0255,\"mass\":0.0272},"
    "\"option\":{\"timestep\":0.005,\"mujoco\":\"2.2.2\"}}";
static const double heights[3] = {0.092, 0.259, 0.288};
static const double rebounds[3] = {0.029293, 0.120965, 0.130051};
static const double sigmas[3] = {0.002650, 0.009221, 0.010108};

static void setup(void)
{
	if (access("/dev/shm", W_OK) == 0)
		setenv("TMPDIR", "/dev/shm", 1);
	live_init(&dmn);
	robot_token_create(&dmn, "alice", alice);
	robot_token_create(&dmn, "bob", bob);
	live_start(&dmn, "--threads", "2", (char *)NULL);
}

static void teardown(void)
{
	live_cleanup(&dmn);
}

/* METHOD path with token, asserting the status; the JSON answer (caller owns). */
static json_t *call(
    const char *token, const char *method, const char *path, const char *body, long status)
{
	struct live_reply r;
	json_t *v;

	robot_request_with(&dmn, token, NULL, method, path, body, body ? strlen(body) : 0, &r);
	ck_assert_msg(r.status == status, "%s %s: %ld, want %ld: %.400s", method, path, r.status,
	    status, r.body);
	v = live_json(&r);
	live_reply_free(&r);
	return v;
}

/* A calibration of alice's with the three drops (and a press when press): its id, its fit
 * done (caller owns *fit). */
static long long calibrate(int press, json_t **fit)
{
	char path[128], body[1024];
	size_t len = 0;
	json_t *v;
	long long id;
	int i;

	v = call(alice, "POST", "/v1/robots/alice/calibrations", setup_body, 201);
	id = json_integer_value(json_object_get(v, "id"));
	json_decref(v);
	len += (size_t)snprintf(body + len, sizeof body - len, "{\"drops\":[");
	for (i = 0; i < 3; i++)
		len += (size_t)snprintf(body + len, sizeof body - len,
		    "%s{\"height\":%.17g,\"rebound\":%.17g,\"sigma\":%.17g}", i ? "," : "",
		    heights[i], rebounds[i], sigmas[i]);
	/* a press over the sphere's weight (0.267 N) */
	snprintf(body + len, sizeof body - len, "]%s}",
	    press ? ",\"presses\":[{\"force\":1.0,\"deflection\":2e-5,\"sigma\":2e-6}]" : "");
	snprintf(path, sizeof path, "/v1/calibrations/%lld/measurements?wait=120", id);
	v = call(alice, "POST", path, body, 200);
	*fit = json_incref(json_object_get(v, "fit"));
	json_decref(v);
	ck_assert_str_eq(json_string_value(json_object_get(*fit, "state")), "done");
	return id;
}

static json_t *evaluate(const char *token, long long id, double tc, double dr, long status)
{
	char path[128], body[128];

	snprintf(path, sizeof path, "/v1/calibrations/%lld/evaluate", id);
	snprintf(body, sizeof body, "{\"solref\":[%.17g,%.17g]}", tc, dr);
	return call(token, "POST", path, body, status);
}

static double number(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	ck_assert_msg(json_is_number(v), "%s is not a number", key);
	return json_number_value(v);
}

/* The fit's chi2 there, and each measurement's model and residual: the same computation on
 * the same numbers (a different order of summation: 1e-12 relative). */
static void own_solref(int press)
{
	json_t *fit, *a, *res;
	const json_t *sol;
	long long id = calibrate(press, &fit);
	const char *kinds[2] = {"drops", "presses"};
	double chi2;
	int k;
	size_t i;

	sol = json_object_get(fit, "solref");
	res = json_object_get(fit, "residuals");
	a = evaluate(alice, id, json_number_value(json_array_get(sol, 0)),
	    json_number_value(json_array_get(sol, 1)), 200);
	chi2 = number(res, "chi2");
	ck_assert_msg(fabs(number(a, "chi2") - chi2) <= 1e-12 * fmax(chi2, 1e-300),
	    "audit chi2 %.17g, the fit's %.17g", number(a, "chi2"), chi2);
	ck_assert_int_eq(json_integer_value(json_object_get(a, "measurements")), press ? 4 : 3);
	ck_assert(json_equal(json_object_get(a, "fit_id"), json_object_get(fit, "id")));
	for (k = 0; k < 2; k++) {
		const json_t *mine = json_object_get(a, kinds[k]),
		             *theirs = json_object_get(res, kinds[k]);

		ck_assert_int_eq(json_array_size(mine), json_array_size(theirs));
		for (i = 0; i < json_array_size(mine); i++) {
			const json_t *m = json_array_get(mine, i), *t = json_array_get(theirs, i);

			ck_assert_double_eq(number(m, "model"), number(t, "model"));
			ck_assert_double_eq(number(m, "residual"), number(t, "residual"));
		}
	}
	json_decref(a);
	json_decref(fit);
}

START_TEST(own_solref_is_the_fits_chi2)
{
	own_solref(0);
	own_solref(1);
}
END_TEST

/*
 * At pads other than the fit's (issue 29's better pad among them), chi2 from /v1/drop's
 * first_rebound with the setup's pad geom (MuJoCo's 2.2.2 rules, timeconst above 2 *
 * timestep so refsafe changes nothing), summed here. test_calib_status holds the drop
 * answer's first_rebound to the fit's model within 1e-9 m; each rebound may differ by that,
 * so chi2 by at most sum (2 |r_i| + 1e-9 / sigma_i) 1e-9 / sigma_i, r_i the weighted
 * residual.
 */
START_TEST(other_solref_is_drop_first_rebound)
{
	static const double pads[3][2] = {{0.018205, 0.194775}, {0.04, 1.0}, {0.012, 0.3}};
	json_t *fit, *a;
	long long id = calibrate(0, &fit);
	int p, i;

	for (p = 0; p < 3; p++) {
		double chi2 = 0, slack = 0;
		const json_t *drops;

		a = evaluate(alice, id, pads[p][0], pads[p][1], 200);
		drops = json_object_get(a, "drops");
		ck_assert_int_eq(json_array_size(drops), 3);
		for (i = 0; i < 3; i++) {
			char body[512];
			struct live_reply r;
			json_t *d;
			double first, w;

			snprintf(body, sizeof body,
			    "{\"body\":{\"shape\":\"sphere\",\"size\":0.0255,\"mass\":0.0272},"
			    "\"floor\":{\"solref\":[%.17g,%.17g],\"condim\":6,"
			    "\"friction\":[1,0.005,0.0005],\"priority\":1},"
			    "\"option\":{\"timestep\":0.005,\"mujoco\":\"2.2.2\"},\"height\":%.17g,"
			    "\"duration\":3}",
			    pads[p][0], pads[p][1], heights[i]);
			live_post(&dmn, "/v1/drop", body, &r);
			ck_assert_msg(r.status == 200, "%ld %.300s", r.status, r.body);
			d = live_json(&r);
			first = number(d, "first_rebound");
			w = (first - rebounds[i]) / sigmas[i];
			chi2 += w * w;
			slack += (2 * fabs(w) + 1e-9 / sigmas[i]) * 1e-9 / sigmas[i];
			ck_assert_msg(
			    fabs(number(json_array_get(drops, i), "model") - first) <= 1e-9,
			    "pad %d drop %d: audit %.12g, /v1/drop %.12g", p, i,
			    number(json_array_get(drops, i), "model"), first);
			ck_assert_double_eq(number(json_array_get(drops, i), "sigma"), sigmas[i]);
			json_decref(d);
			live_reply_free(&r);
		}
		ck_assert_msg(fabs(number(a, "chi2") - chi2) <= slack + 1e-12 * chi2,
		    "pad %d: audit chi2 %.17g, from /v1/drop %.17g", p, number(a, "chi2"), chi2);
		json_decref(a);
	}
	json_decref(fit);
}
END_TEST

/* What the route refuses, and to whom. */
START_TEST(bad_solref_and_policy)
{
	static const struct {
		const char *body, *code, *path;
	} bad[] = {
	    {"{\"solref\":[0,0.5]}", "bad_value", "/solref/0"},
	    {"{\"solref\":[-0.02,0.5]}", "bad_value", "/solref/0"},
	    {"{\"solref\":[11,0.5]}", "bad_value", "/solref/0"},
	    {"{\"solref\":[0.02,0]}", "bad_value", "/solref/1"},
	    {"{\"solref\":[0.02,1e300]}", "bad_value", "/solref/1"},
	    {"{\"solref\":[0.02]}", NULL, "/solref"},
	    {"{\"solref\":\"0.02 0.5\"}", NULL, "/solref"},
	    {"{\"solref\":[0.02,\"x\"]}", NULL, NULL},
	    {"{}", "missing_field", "/solref"},
	    {"{\"solref\":[0.02,0.5],\"dampratio\":1}", "unknown_field", "/dampratio"},
	};
	char path[128];
	struct live_reply r;
	json_t *fit;
	long long id = calibrate(0, &fit);
	size_t i;

	snprintf(path, sizeof path, "/v1/calibrations/%lld/evaluate", id);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		json_t *v;
		const char *code, *where;

		robot_request_with(
		    &dmn, alice, NULL, "POST", path, bad[i].body, strlen(bad[i].body), &r);
		v = live_json(&r);
		code = json_string_value(json_object_get(v, "error"));
		where = json_string_value(json_object_get(v, "path"));
		ck_assert_msg(code && where, "%s: %.300s", bad[i].body, r.body);
		/* the status table's: a value out of range is 422, a wrong type or shape 400 */
		ck_assert_msg(r.status == (strcmp(code, "bad_value") == 0 ? 422 : 400),
		    "%s: %ld %.300s", bad[i].body, r.status, r.body);
		if (bad[i].code)
			ck_assert_str_eq(code, bad[i].code);
		if (bad[i].path)
			ck_assert_str_eq(where, bad[i].path);
		else
			ck_assert_msg(
			    strncmp(where, "/solref", 7) == 0, "%s: path %s", bad[i].body, where);
		json_decref(v);
		live_reply_free(&r);
	}
	/* bob cannot see alice's calibration: 404, as for reading it; no token: 401 */
	json_decref(evaluate(bob, id, 0.02, 0.5, 404));
	live_post(&dmn, path, "{\"solref\":[0.02,0.5]}", &r);
	ck_assert_int_eq(r.status, 401);
	live_reply_free(&r);
	json_decref(call(alice, "GET", path, NULL, 405));
	json_decref(evaluate(alice, id + 1000, 0.02, 0.5, 404));
	json_decref(fit);
}
END_TEST

/* ---- where an audit runs ---- */

static const char stopped_gone[] = "contactd_questions_stopped_total{reason=\"client_gone\"}";
static const char stopped_spent[] = "contactd_questions_stopped_total{reason=\"over_budget\"}";

/* The fairness tests' --max-queued, and the jobs one client may have waiting then. */
#define MAX_QUEUED "64"
#define SHARE_QUEUED (64 / DAEMON_CLIENT_QUEUE_PART)

/* Tokens only: each test starts its daemon with its own flags. */
static void setup_pool(void)
{
	if (access("/dev/shm", W_OK) == 0)
		setenv("TMPDIR", "/dev/shm", 1);
	live_init(&dmn);
	robot_token_create(&dmn, "alice", alice);
	robot_token_create(&dmn, "bob", bob);
}

/* A calibration of alice's that takes long to evaluate (issue 51): 200 presses at a 1e-6 s
 * timestep. The daemon runs with --fit-workers 0, so no fit takes the CPU meanwhile. */
static long long slow_calibration(void)
{
	static const char slow_setup[] =
	    "{\"object\":{\"shape\":\"sphere\",\"size\":0.0255,\"mass\":0.0272},"
	    "\"option\":{\"timestep\":1e-6,\"mujoco\":\"2.2.2\"}}";
	char path[128], *body = malloc(200 * 80 + 32);
	size_t len = 0;
	json_t *v;
	long long id;
	int i;

	ck_assert_ptr_nonnull(body);
	v = call(alice, "POST", "/v1/robots/alice/calibrations", slow_setup, 201);
	id = json_integer_value(json_object_get(v, "id"));
	json_decref(v);
	len += (size_t)sprintf(body, "{\"presses\":[");
	for (i = 0; i < 200; i++) /* over the sphere's weight (0.267 N), each distinct */
		len += (size_t)sprintf(body + len,
		    "%s{\"force\":%.17g,\"deflection\":2e-5,\"sigma\":2e-6}", i ? "," : "",
		    1.0 + 0.01 * i);
	sprintf(body + len, "]}");
	snprintf(path, sizeof path, "/v1/calibrations/%lld/measurements", id);
	json_decref(call(alice, "POST", path, body, 200));
	free(body);
	return id;
}

/* POST body to path on a new raw connection, with token (NULL: none), not reading the
 * answer: the socket. */
static int post_raw(const char *token, const char *path, const char *body)
{
	char auth[128] = "";

	if (token)
		snprintf(auth, sizeof auth, "Authorization: Bearer %s\r\n", token);
	return live_post_raw(&dmn, path, auth, body);
}

/* POST an audit of calibration id with token on a new raw connection: the socket. */
static int evaluate_raw(const char *token, long long id)
{
	char path[128];

	snprintf(path, sizeof path, "/v1/calibrations/%lld/evaluate", id);
	return post_raw(token, path, "{\"solref\":[0.02,1]}");
}

/* fd's answer is the 503 of a client past its share: Retry-After, the share named. */
static void assert_share_refused(int fd)
{
	char buf[8192];

	ck_assert_int_eq(live_read_response(fd, buf, sizeof buf), 503);
	ck_assert_msg(strstr(buf, "Retry-After: "), "%s", buf);
	ck_assert_msg(strstr(buf, "its share of the compute pool"), "%s", buf);
	ck_assert_int_eq((int)live_metric(&dmn, "contactd_compute_share_refused_total"), 1);
}

/* While the client that holds its share of slow jobs (one running, SHARE_QUEUED waiting)
 * still has at least half of them waiting, another client's question is answered: body
 * POSTed to path with token (NULL: none). */
static void served_in_turn(const char *token, const char *path, const char *body)
{
	struct live_reply r;

	robot_request(&dmn, token, "POST", path, body, strlen(body), &r);
	ck_assert_msg(r.status == 200, "%ld %s", r.status, r.body);
	live_reply_free(&r);
	ck_assert_msg(live_metric(&dmn, "contactd_compute_queued") >= SHARE_QUEUED / 2,
	    "the question was answered after the other client's backlog: %g still queued",
	    live_metric(&dmn, "contactd_compute_queued"));
}

/* --max-cpu-seconds 1: the slow audit (tens of CPU seconds) is stopped, 503 saying so,
 * counted and logged as such. It ran on a compute thread, not the HTTP thread. */
START_TEST(audit_over_budget)
{
	char path[128];
	long long id;
	struct live_reply r;

	live_start(&dmn, "--fit-workers", "0", "--max-cpu-seconds", "1", (char *)NULL);
	id = slow_calibration();
	snprintf(path, sizeof path, "/v1/calibrations/%lld/evaluate", id);
	robot_request(&dmn, alice, "POST", path, "{\"solref\":[0.02,1]}", 19, &r);
	live_assert_error(&r, 503, "unavailable", "");
	ck_assert_msg(strstr(r.body, "compute budget"), "%s", r.body);
	live_reply_free(&r);
	ck_assert_int_eq((int)live_metric(&dmn, stopped_spent), 1);
	ck_assert_int_eq(live_stop(&dmn), 0);
	ck_assert_int_eq(live_log_count(&dmn, "stopped=over-budget"), 1);
}
END_TEST

/* No budget: an audit whose client hangs up stops (the compute thread free again), counted
 * and logged as stopped, never as a 200. */
START_TEST(audit_client_gone)
{
	long long id;
	int fd;

	live_start(&dmn, "--fit-workers", "0", "--max-cpu-seconds", "0", "--compute-threads", "1",
	    (char *)NULL);
	id = slow_calibration();
	fd = evaluate_raw(alice, id);
	live_wait_metric(&dmn, "contactd_compute_running", 1);
	close(fd);
	ck_assert_msg(live_metric_becomes(&dmn, "contactd_compute_running", 0),
	    "the audit still computes after its client left");
	ck_assert_int_eq((int)live_metric(&dmn, stopped_gone), 1);
	ck_assert_int_eq(live_stop(&dmn), 0);
	ck_assert_int_eq(live_log_count(&dmn, "stopped=client-gone"), 1);
	ck_assert_int_eq(live_log_count(&dmn, "/evaluate 200"), 0);
}
END_TEST

/* Two slow audits on a daemon of two HTTP threads: both compute in the pool, and
 * /v1/health is answered while they do (it waited for them on the HTTP threads before). */
START_TEST(health_while_audits_run)
{
	struct live_reply r;
	long long id;
	int fd[2], i;

	live_start(&dmn, "--fit-workers", "0", "--max-cpu-seconds", "0", "--threads", "2",
	    "--compute-threads", "4", (char *)NULL);
	id = slow_calibration();
	for (i = 0; i < 2; i++)
		fd[i] = evaluate_raw(alice, id);
	live_wait_metric(&dmn, "contactd_compute_running", 2);
	live_get(&dmn, "/v1/health", &r);
	ck_assert_int_eq(r.status, 200);
	live_reply_free(&r);
	/* still computing: health did not wait for them */
	ck_assert_int_eq((int)live_metric(&dmn, "contactd_compute_running"), 2);
	for (i = 0; i < 2; i++)
		close(fd[i]);
	ck_assert(live_metric_becomes(&dmn, "contactd_compute_running", 0));
	ck_assert_int_eq((int)live_metric(&dmn, stopped_gone), 2);
}
END_TEST

/*
 * One compute thread, alice's token holding a backlog of slow audits (each stopped by the
 * 3 CPU seconds budget): one runs and SHARE_QUEUED wait; her next is 503 with
 * Retry-After, saying the client's share is held, counted. A question of another client
 * (the address; no token) is served in its turn, after at most a couple of hers: while most
 * of her backlog still waits. (Before: one FIFO, the question after all of hers, then none
 * waiting.)
 */
START_TEST(fair_queue)
{
	long long id;
	int fd[SHARE_QUEUED + 2], i;

	live_start(&dmn, "--fit-workers", "0", "--max-cpu-seconds", "3", "--compute-threads", "1",
	    "--max-queued", MAX_QUEUED, (char *)NULL);
	id = slow_calibration();
	for (i = 0; i < SHARE_QUEUED + 1; i++)
		fd[i] = evaluate_raw(alice, id);
	live_wait_metric(&dmn, "contactd_compute_queued", SHARE_QUEUED);
	fd[i] = evaluate_raw(alice, id);
	assert_share_refused(fd[i]);
	served_in_turn(NULL, "/v1/drop", "{\"duration\": 0.5}");
	for (i = 0; i < SHARE_QUEUED + 2; i++)
		close(fd[i]);
	ck_assert(live_metric_becomes(&dmn, "contactd_compute_running", 0));
}
END_TEST

/*
 * The same with questions: the address (no token) holds its share of slow sweeps
 * (distinct, each stopped by the 1 CPU second budget), and one more is refused; bob's token is
 * another client, whose question is served in turn. The token is checked: a question is counted on
 * a token's share only when the token authenticates.
 */
START_TEST(fair_queue_questions)
{
	int fd[SHARE_QUEUED + 2], i;

	live_start(&dmn, "--fit-workers", "0", "--max-cpu-seconds", "1", "--compute-threads", "1",
	    "--max-queued", MAX_QUEUED, (char *)NULL);
	for (i = 0; i < SHARE_QUEUED + 2; i++) {
		char *sweep = live_long_sweep(20, 1.0 + 0.01 * i);

		if (i == SHARE_QUEUED + 1)
			live_wait_metric(&dmn, "contactd_compute_queued", SHARE_QUEUED);
		fd[i] = post_raw(NULL, "/v1/sweep", sweep);
		free(sweep);
	}
	assert_share_refused(fd[SHARE_QUEUED + 1]);
	served_in_turn(bob, "/v1/drop", "{\"duration\": 0.5}");
	for (i = 0; i < SHARE_QUEUED + 2; i++)
		close(fd[i]);
	ck_assert(live_metric_becomes(&dmn, "contactd_compute_running", 0));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("calib_audit");
	TCase *tc = tcase_create("audit");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, own_solref_is_the_fits_chi2);
	tcase_add_test(tc, other_solref_is_drop_first_rebound);
	tcase_add_test(tc, bad_solref_and_policy);
	suite_add_tcase(s, tc);
	tc = tcase_create("pool");
	tcase_add_checked_fixture(tc, setup_pool, teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, audit_over_budget);
	tcase_add_test(tc, audit_client_gone);
	tcase_add_test(tc, health_while_audits_run);
	tcase_add_test(tc, fair_queue);
	tcase_add_test(tc, fair_queue_questions);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
