/*
 * test_sweep_bits.c: a sweep's rows are the single answers of its points, byte for
 * byte, and a streamed sweep prints exactly the bytes of the whole answer.
 *
 * 752 small grids, one per shape x solref form (standard and direct) x integrator x
 * release (every tag, so every rule set of core/mjver.c), each on a random base
 * (size, mass, condim, solimp, friction, margin, gap, timestep, impratio, height,
 * duration): 3,008 random points. Every row's cells must print as the single drop
 * answer's members print; the streamed JSON (head, rows, tail) and CSV must equal the
 * whole answer's text and its CSV. Two worker threads, so rows finish out of order.
 * No tolerance: the claim is bit-for-bit identity.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/jtext.h"
#include "core/mjver.h"
#include "service/service.h"
#include "service/sweep.h"
#include "svc_test.h"
#include "testlib.h"

#define GRID 2 /* values per vary entry: GRID * GRID points a sweep */

static uint64_t rng_state = 0x2545f4914f6cdd1du;

static double uniform(void)
{
	return tl_uniform(&rng_state);
}

static double between(double lo, double hi)
{
	return tl_between(&rng_state, lo, hi);
}

static json_t *random_base(int box, int direct, const char *integrator, const char *release)
{
	static const int condims[] = {1, 3, 4, 6};
	static const double powers[] = {1, 2, 2, 3, 1.5};
	double tc = between(0.002, 0.08);
	json_t *base = json_pack(
	    "{s:{s:s, s:f, s:f}, s:{s:[f,f], s:[f,f,f,f,f], s:i, s:[f,f,f], s:f, s:f},"
	    " s:{s:f, s:b, s:f, s:s, s:s}, s:f, s:f}",
	    "body", "shape", box ? "box" : "sphere", "size", between(0.01, 0.1), "mass",
	    between(0.2, 3), "geom", "solref", direct ? -between(500, 20000) : tc,
	    direct ? -between(1, 100) : between(0.05, 1.5), "solimp", between(0.5, 0.9),
	    between(0.9, 0.99), between(0.0005, 0.005), between(0.2, 0.8),
	    powers[(int)(uniform() * 5)], "condim", condims[(int)(uniform() * 4)], "friction",
	    between(0.2, 1.2), 0.005, 0.0001, "margin", uniform() < 0.7 ? 0.0 : between(0, 0.002),
	    "gap", uniform() < 0.7 ? 0.0 : between(0, 0.001), "option", "timestep",
	    uniform() < 0.5 ? 0.002 : between(0.001, 0.005), "refsafe", uniform() < 0.8, "impratio",
	    uniform() < 0.7 ? 1.0 : between(1, 5), "integrator", integrator, "mujoco", release,
	    "height", between(0, 0.15), "duration", between(0.05, 2));

	ck_assert_ptr_nonnull(base);
	return base;
}

/* The sweep's varied values: GRID random values of solref[0] and of solref[1]. */
static json_t *random_values(int which, int direct)
{
	json_t *values = json_array();
	int i;

	for (i = 0; i < GRID; i++) {
		double v = which == 0 ? (direct ? -between(500, 20000) : between(0.002, 0.08))
		                      : (direct ? -between(1, 100) : between(0.05, 1.5));
		json_array_append_new(values, json_real(v));
	}
	return values;
}

/* The text a row must hold: its varied values, then the single answer's members; every
 * point is answered. */
static char *expected_row(void *ctx, const json_t *columns, const json_t *v0, const json_t *v1,
    const json_t *single, const struct err *refusal, const char *single_body)
{
	(void)ctx;
	ck_assert_msg(single != NULL, "%s: %s (%s)", refusal->path, refusal->message, single_body);
	return tsvc_single_row(columns, v0, v1, single);
}

/* One grid: whole, streamed (JSON and CSV) and point by point. */
static int check_grid(int box, int direct, const char *integrator, const char *release)
{
	struct svc_limits lim = tsvc_limits(2);
	json_t *base = random_base(box, direct, integrator, release);
	json_t *values0 = random_values(0, direct), *values1 = random_values(1, direct);
	json_t *request = json_pack("{s:s, s:O, s:[{s:s, s:O}, {s:s, s:O}]}", "query", "drop",
	    "base", base, "vary", "path", "/geom/solref/0", "values", values0, "path",
	    "/geom/solref/1", "values", values1);
	char *body = jtext_line(request), *whole = NULL, *csv = NULL, *json_stream, *csv_stream;
	json_t *answer, *rows;
	struct err err;
	json_error_t jerr;
	size_t i;
	static int calls;

	err_clear(&err);
	ck_assert_ptr_nonnull(body);
	ck_assert_msg(svc_ask(SVC_SWEEP, body, strlen(body), &lim, NULL, &whole, NULL, &err) == 0,
	    "%s: %s (%s)", err.path, err.message, body);
	ck_assert_int_eq(svc_text_csv(whole, &csv, &err), 0);
	/* CSV alone (the CLI's way) every other grid, CSV with JSON (the daemon's) otherwise */
	json_stream = tsvc_sweep_streamed(body, SWEEP_JSON, 0, &lim, whole);
	csv_stream = tsvc_sweep_streamed(body, SWEEP_CSV, calls++ % 2, &lim, whole);
	ck_assert_str_eq(json_stream, whole);
	ck_assert_str_eq(csv_stream, csv);

	answer = json_loads(whole, 0, &jerr);
	rows = json_object_get(answer, "rows");
	ck_assert_int_eq(json_array_size(rows), GRID * GRID);
	{
		struct tsvc_grid g = {SVC_DROP, base, {"/geom/solref/0", "/geom/solref/1"}, body,
		    whole, answer, &lim};
		struct tsvc_row_builder builder = {expected_row, NULL};

		for (i = 0; i < GRID * GRID; i++)
			tsvc_assert_row(&g, i, json_array_get(values0, i / GRID),
			    json_array_get(values1, i % GRID), &builder);
	}
	json_decref(answer);
	free(json_stream);
	free(csv_stream);
	free(csv);
	free(whole);
	free(body);
	json_decref(request);
	json_decref(values0);
	json_decref(values1);
	json_decref(base);
	return GRID * GRID;
}

START_TEST(sweep_rows_are_single_answers)
{
	static const char *const integrators[] = {"Euler", "implicit", "implicitfast", "RK4"};
	int shape, form, integrator, release, points = 0;

	for (shape = 0; shape < 2; shape++)
		for (form = 0; form < 2; form++)
			for (integrator = 0; integrator < 4; integrator++)
				for (release = 0; release < core_mjver_count(); release++)
					points += check_grid(shape, form, integrators[integrator],
					    core_mjver_name(release));
	ck_assert_int_ge(points, 3000);
}
END_TEST

/* Rows leave as they are computed: a line of two drops, the first 10 ms long and the
 * second 400 s (200,000 steps), on one thread: the first row reaches the sink while the
 * second drop still has nearly all its steps to go. Measured in the thread's CPU time,
 * which a busy machine does not stretch. */
static double thread_cpu(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

struct progress {
	size_t rows;
	double first_row;
};

static int progress_head(void *ctx, const json_t *head, const char *csv_header, struct err *err)
{
	(void)ctx;
	(void)head;
	(void)csv_header;
	(void)err;
	return 0;
}

static int progress_row(void *ctx, const char *text, size_t len, const char *json, struct err *err)
{
	struct progress *p = ctx;

	(void)text;
	(void)len;
	(void)json;
	(void)err;
	if (p->rows++ == 0)
		p->first_row = thread_cpu();
	return 0;
}

START_TEST(rows_stream_before_the_last_is_computed)
{
	/* the default release's rules: the cube never repeats a state, so no shortcut */
	static const char body[] = "{\"query\": \"drop\", \"base\": {}, \"vary\": [{\"path\": "
	                           "\"duration\", \"values\": [0.01, 400]}]}";
	struct svc_limits lim = tsvc_limits(1);
	struct progress p = {0, 0};
	struct sweep_sink sink = {SWEEP_JSON, 0, progress_head, progress_row, &p};
	struct err err;
	double start, end;

	static const char warm_up[] = "{\"query\": \"drop\", \"base\": {}, \"vary\": [{\"path\": "
	                              "\"duration\", \"values\": [0.01, 0.02]}]}";
	struct progress warm = {0, 0};
	struct sweep_sink warm_sink = {SWEEP_JSON, 0, progress_head, progress_row, &warm};

	err_clear(&err);
	/* the process's one-time costs (a sanitizer's first pages, the first row's tables)
	 * paid before timing: the claim is about this sweep's order of work */
	ck_assert_int_eq(svc_sweep_stream(warm_up, strlen(warm_up), &lim, &warm_sink, &err), 0);
	start = thread_cpu();
	ck_assert_int_eq(svc_sweep_stream(body, strlen(body), &lim, &sink, &err), 0);
	end = thread_cpu();
	ck_assert_int_eq(p.rows, 2);
	/* the second drop's 200,000 steps come after the first row, not before it */
	ck_assert_msg(end - p.first_row > 0.8 * (end - start), "first row after %.3f ms of %.3f ms",
	    1e3 * (p.first_row - start), 1e3 * (end - start));
}
END_TEST

static Suite *sweep_bits_suite(void)
{
	Suite *s = suite_create("sweep_bits");
	TCase *tc = tcase_create("rows");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, sweep_rows_are_single_answers);
	tcase_add_test(tc, rows_stream_before_the_last_is_computed);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(sweep_bits_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
