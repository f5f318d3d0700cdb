/*
 * sweep.c: expand a sweep into validated points, compute them on worker
 * threads, and lay the answers out as columns and rows (JSON or CSV).
 */
#include "service/sweep.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jtext.h"
#include "service/answer.h"
#include "service/field.h"
#include "service/jsonptr.h"
#include "service/request.h"
#include "service/vary.h"
#include "tunables.h"

#define MAX_VARY LIMIT_MAX_SWEEP_VARY

/* A validated sweep: its canonical parts and every point as a request. */
struct sweep_plan {
	enum svc_endpoint query; /* a sweepable row of the endpoint table */
	json_t *base;            /* canonical base request */
	size_t nvary;
	const char *paths[MAX_VARY]; /* resolved JSON Pointers: owned_paths */
	char *owned_paths[MAX_VARY];
	json_t *values[MAX_VARY]; /* canonical values (arrays) */
	size_t counts[MAX_VARY];
	size_t npoints;
	struct ans_request *points; /* npoints, row-major: the first vary entry slowest */
};

static void plan_clear(struct sweep_plan *p)
{
	size_t k;

	json_decref(p->base);
	for (k = 0; k < MAX_VARY; k++)
		json_decref(p->values[k]);
	for (k = 0; k < MAX_VARY; k++)
		free(p->owned_paths[k]);
	free(p->points);
	memset(p, 0, sizeof *p);
}

/* Parse v (at path) as a request of the plan's query. */
static int parse_request(
    enum svc_endpoint query, json_t *v, const char *path, struct ans_request *out, struct err *err)
{
	return svc_endpoints[query].point(v, path, out, err);
}

/* A deep copy of v with every number a real, as in every canonical request. */
static json_t *canonical_value(json_t *v)
{
	json_t *copy = NULL, *member;
	const char *key;
	size_t i;

	if (json_is_integer(v))
		return json_real((double)json_integer_value(v));
	if (json_is_array(v)) {
		copy = json_array();
		json_array_foreach (v, i, member) {
			if (!copy || json_array_append_new(copy, canonical_value(member)) != 0)
				goto fail;
		}
		return copy;
	}
	if (json_is_object(v)) {
		copy = json_object();
		json_object_foreach (v, key, member) {
			if (!copy || json_object_set_new(copy, key, canonical_value(member)) != 0)
				goto fail;
		}
		return copy;
	}
	return json_deep_copy(v);
fail:
	json_decref(copy);
	return NULL;
}

/*
 * The request of one point: the base with vary entry k set to its value
 * index[k] (SIZE_MAX: left at the base's value). Errors are the inner
 * request's, with the path inside base.
 */
static int make_point(const struct sweep_plan *p, const size_t index[MAX_VARY],
    struct ans_request *out, struct err *err)
{
	json_t *request = json_deep_copy(p->base), *value;
	size_t k, pass;
	int rc = -1;

	if (!request) {
		err_set(err, ERR_INTERNAL, "", "out of memory");
		goto out;
	}
	/* floor fields last, so the geom values a floor field does not set are the point's */
	for (pass = 0; pass < 2 * MAX_VARY; pass++) {
		k = pass % MAX_VARY;
		if (k >= p->nvary || index[k] == SIZE_MAX ||
		    vary_is_floor(p->paths[k]) != (pass >= MAX_VARY))
			continue;
		value = json_array_get(p->values[k], index[k]);
		/* a copy: a later path may point inside this value and must not change the plan */
		value = json_deep_copy(value);
		if (!value) {
			err_set(err, ERR_INTERNAL, "", "out of memory");
			goto out;
		}
		rc = vary_set(p->query, request, p->paths[k], value, "", err);
		json_decref(value);
		if (rc != 0)
			goto out;
	}
	rc = parse_request(p->query, request, "", out, err);
out:
	json_decref(request);
	return rc;
}

/* Report inner (a point's error) at the value that caused it. */
static int point_error(
    struct err *err, const struct err *inner, size_t k, size_t j, const char *context)
{
	char path[ERR_PATH_MAX];

	if (inner->code == ERR_INTERNAL) {
		*err = *inner;
		return -1;
	}
	snprintf(path, sizeof path, "/vary/%zu/values/%zu", k, j);
	return err_set(err, inner->code, path, "%s%s: %s", context,
	    inner->path[0] ? inner->path : "the request", inner->message);
}

/* Validate vary entry k of the request and store its path and canonical values. */
static int plan_vary(
    struct sweep_plan *p, json_t *entry, size_t k, long max_points, struct err *err)
{
	static const char *const known[] = {"path", "values", NULL};
	struct field_ctx c;
	char where[ERR_PATH_MAX], resolved[ERR_PATH_MAX];
	json_t *values;

	snprintf(where, sizeof where, "/vary/%zu", k);
	if (field_root(&c, entry, where, err) != 0 || field_known(&c, known) != 0 ||
	    field_require(&c, "path") != 0 || field_require(&c, "values") != 0)
		return -1;
	values = json_object_get(entry, "values");
	if (!json_is_array(values))
		return field_fail(&c, "values", -1, ERR_BAD_TYPE, "must be an array");
	if (json_array_size(values) == 0)
		return field_fail(&c, "values", -1, ERR_BAD_VALUE, "must not be empty");
	if (json_array_size(values) > (size_t)max_points)
		return field_fail(&c, "values", -1, ERR_TOO_LARGE,
		    "%zu values are over the limit of %ld points", json_array_size(values),
		    max_points);
	if (vary_pointer(p->query, p->base, &c, "path", resolved, NULL) != 0)
		return -1;
	if (k > 0 && strcmp(resolved, p->paths[0]) == 0) {
		field_path(&c, "path", where);
		return err_set(err, ERR_BAD_VALUE, where, "varies the same field as /vary/0");
	}
	/* the resolved pointer (an alias replaced) is the plan's own */
	p->owned_paths[k] = strdup(resolved);
	if (!p->owned_paths[k])
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	p->paths[k] = p->owned_paths[k];
	p->counts[k] = json_array_size(values);
	p->values[k] = canonical_value(values);
	if (!p->values[k])
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	return 0;
}

/* Validate each value alone (the other entries at the base's value), then the grid. */
static int plan_points(struct sweep_plan *p, struct err *err)
{
	struct err inner;
	struct ans_request scratch;
	size_t index[MAX_VARY], k, j, i;
	char context[64];

	p->points = calloc(p->npoints, sizeof *p->points);
	if (!p->points)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	for (k = 0; k < p->nvary; k++) {
		for (j = 0; j < p->counts[k]; j++) {
			index[0] = index[1] = SIZE_MAX;
			index[k] = j;
			err_clear(&inner);
			/* a line's points are exactly these requests */
			struct ans_request *out = p->nvary == 1 ? &p->points[j] : &scratch;
			if (make_point(p, index, out, &inner) != 0)
				return point_error(err, &inner, k, j, "");
		}
	}
	if (p->nvary == 1)
		return 0;
	for (i = 0; i < p->npoints; i++) {
		index[0] = i / p->counts[1];
		index[1] = i % p->counts[1];
		err_clear(&inner);
		if (make_point(p, index, &p->points[i], &inner) != 0) {
			snprintf(context, sizeof context, "with /vary/0/values/%zu, ", index[0]);
			return point_error(err, &inner, 1, index[1], context);
		}
	}
	return 0;
}

/* Validate a sweep request into *p (zeroed first; plan_clear it in every case). */
static int plan_build(json_t *body, long max_points, struct sweep_plan *p, struct err *err)
{
	static const char *const known[] = {"query", "base", "vary", NULL};
	struct field_ctx c, base_ctx;
	struct ans_request base;
	json_t *vary, *empty = NULL;
	size_t k, steps = 0, i;
	int rc = -1;

	memset(p, 0, sizeof *p);
	if (field_root(&c, body, "", err) != 0 || field_known(&c, known) != 0 ||
	    vary_query(&c, "query", &p->query) != 0)
		goto out;
	if (field_object(&c, "base", &base_ctx) != 0)
		goto out;
	if (!base_ctx.obj)
		base_ctx.obj = empty = json_object();
	if (parse_request(p->query, base_ctx.obj, "/base", &base, err) != 0)
		goto out;
	p->base = ans_request_json(&base);
	if (!p->base) {
		err_set(err, ERR_INTERNAL, "", "out of memory");
		goto out;
	}
	if (field_require(&c, "vary") != 0)
		goto out;
	vary = json_object_get(body, "vary");
	if (!json_is_array(vary)) {
		field_fail(&c, "vary", -1, ERR_BAD_TYPE, "must be an array of {path, values}");
		goto out;
	}
	p->nvary = json_array_size(vary);
	if (p->nvary < 1 || p->nvary > MAX_VARY) {
		field_fail(&c, "vary", -1, ERR_BAD_VALUE,
		    "must have 1 entry (a line) or 2 (a grid), not %zu", p->nvary);
		goto out;
	}
	p->npoints = 1;
	for (k = 0; k < p->nvary; k++) {
		if (plan_vary(p, json_array_get(vary, k), k, max_points, err) != 0)
			goto out;
		p->npoints *= p->counts[k]; /* each count <= max_points: no overflow */
	}
	if (p->npoints > (size_t)max_points) {
		field_fail(&c, "vary", -1, ERR_TOO_LARGE, "%zu points are over the limit of %ld",
		    p->npoints, max_points);
		goto out;
	}
	if (plan_points(p, err) != 0)
		goto out;
	for (i = 0; i < p->npoints; i++)
		steps += (size_t)ans_request_steps(&p->points[i]);
	if (steps > (size_t)LIMIT_MAX_SWEEP_STEPS) {
		field_fail(&c, "vary", -1, ERR_TOO_LARGE,
		    "the points simulate %zu steps in all, over the limit of %ld", steps,
		    LIMIT_MAX_SWEEP_STEPS);
		goto out;
	}
	rc = 0;
out:
	json_decref(empty);
	return rc;
}

int sweep_parse(json_t *body, long max_points, struct sweep_plan **plan, struct err *err)
{
	struct sweep_plan *p = malloc(sizeof *p);

	if (!p)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	if (plan_build(body, max_points, p, err) != 0) {
		sweep_plan_free(p);
		return -1;
	}
	*plan = p;
	return 0;
}

void sweep_plan_free(struct sweep_plan *p)
{
	if (!p)
		return;
	plan_clear(p);
	free(p);
}

json_t *sweep_plan_json(const struct sweep_plan *p)
{
	json_t *vary = json_array();
	size_t k;

	for (k = 0; vary && k < p->nvary; k++) {
		if (json_array_append_new(vary,
		        json_pack("{s:s, s:O}", "path", p->paths[k], "values", p->values[k])) !=
		    0) {
			json_decref(vary);
			vary = NULL;
		}
	}
	return vary ? json_pack("{s:s, s:O, s:o}", "query", svc_endpoint_name(p->query), "base",
	                  p->base, "vary", vary)
	            : NULL;
}

/* One worker's share of the points: no state shared with the other workers. */
struct worker {
	const struct ans_request *points;
	struct ans_result *results;
	size_t begin, end;
	pthread_t thread;
	int started;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	size_t i;

	for (i = w->begin; i < w->end; i++)
		ans_compute(&w->points[i], &w->results[i]);
	return NULL;
}

/* Compute every point of the plan into results on up to `threads` threads. */
static int compute(
    const struct sweep_plan *p, int threads, struct ans_result *results, struct err *err)
{
	struct worker *workers;
	size_t n = threads < 1 ? 1 : (size_t)threads, t;

	if (n > p->npoints)
		n = p->npoints;
	workers = calloc(n, sizeof *workers);
	if (!workers)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	for (t = 0; t < n; t++) {
		workers[t].points = p->points;
		workers[t].results = results;
		workers[t].begin = p->npoints * t / n;
		workers[t].end = p->npoints * (t + 1) / n;
		/* the calling thread takes the first range; a thread that cannot start
		 * leaves its range to the calling thread too */
		if (t > 0)
			workers[t].started =
			    pthread_create(&workers[t].thread, NULL, work, &workers[t]) == 0;
	}
	work(&workers[0]);
	for (t = 1; t < n; t++) {
		if (workers[t].started)
			pthread_join(workers[t].thread, NULL);
		else
			work(&workers[t]);
	}
	free(workers);
	return 0;
}

/* The row of point i: its varied values, then its answer's fields. */
static json_t *make_row(const struct sweep_plan *p, size_t i, const struct ans_result *result)
{
	struct ans_field fields[ANS_MAX_FIELDS];
	size_t n = ans_fields(result, fields), f;
	size_t index[MAX_VARY] = {i, 0};
	json_t *row = json_array();

	if (p->nvary == 2) {
		index[0] = i / p->counts[1];
		index[1] = i % p->counts[1];
	}
	for (f = 0; row && f < p->nvary; f++)
		if (json_array_append(row, json_array_get(p->values[f], index[f])) != 0)
			goto fail;
	for (f = 0; row && f < n; f++)
		if (json_array_append_new(row, ans_field_json(&fields[f])) != 0)
			goto fail;
	return row;
fail:
	json_decref(row);
	return NULL;
}

static json_t *make_columns(const struct sweep_plan *p, const struct ans_result *first)
{
	struct ans_field fields[ANS_MAX_FIELDS];
	size_t n = ans_fields(first, fields), f;
	json_t *columns = json_array();

	for (f = 0; columns && f < p->nvary; f++)
		if (json_array_append_new(columns, json_string(p->paths[f])) != 0)
			goto fail;
	for (f = 0; columns && f < n; f++)
		if (json_array_append_new(columns, json_string(fields[f].name)) != 0)
			goto fail;
	return columns;
fail:
	json_decref(columns);
	return NULL;
}

int sweep_run(const struct sweep_plan *p, int threads, json_t **answer, struct err *err)
{
	struct ans_result *results = NULL;
	json_t *rows = NULL, *columns = NULL, *out = NULL;
	size_t i;
	int rc = -1;

	results = calloc(p->npoints, sizeof *results);
	if (!results) {
		err_set(err, ERR_INTERNAL, "", "out of memory");
		goto out;
	}
	if (compute(p, threads, results, err) != 0)
		goto out;
	rows = json_array();
	for (i = 0; rows && i < p->npoints; i++) {
		if (json_array_append_new(rows, make_row(p, i, &results[i])) != 0) {
			json_decref(rows);
			rows = NULL;
		}
	}
	columns = make_columns(p, &results[0]);
	if (!rows || !columns) {
		err_set(err, ERR_INTERNAL, "", "out of memory");
		goto out;
	}
	out = json_pack("{s:s, s:O, s:O}", "query", svc_endpoint_name(p->query), "columns", columns,
	    "rows", rows);
	if (!out) {
		err_set(err, ERR_INTERNAL, "", "out of memory");
		goto out;
	}
	*answer = out;
	rc = 0;
out:
	json_decref(rows);
	json_decref(columns);
	free(results);
	return rc;
}

/* Write s as one CSV cell, quoted when it holds a comma, quote or line break. */
static void csv_text(FILE *f, const char *s)
{
	if (!s[strcspn(s, ",\"\r\n")]) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static int csv_cell(FILE *f, const json_t *v)
{
	char real[JTEXT_REAL_MAX], *text;

	switch (json_typeof(v)) {
	case JSON_REAL:
		fputs(jtext_real(json_real_value(v), real), f); /* the JSON answer's spelling */
		return 0;
	case JSON_INTEGER:
		fprintf(f, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return 0;
	case JSON_TRUE:
		fputs("true", f);
		return 0;
	case JSON_FALSE:
		fputs("false", f);
		return 0;
	case JSON_NULL:
		return 0;
	case JSON_STRING:
		csv_text(f, json_string_value(v));
		return 0;
	default:
		text = jtext_dump(v, 0);
		if (!text)
			return -1;
		csv_text(f, text);
		free(text);
		return 0;
	}
}

static int csv_line(FILE *f, const json_t *cells)
{
	const json_t *cell;
	size_t i;

	json_array_foreach (cells, i, cell) {
		if (i > 0)
			fputc(',', f);
		if (csv_cell(f, cell) != 0)
			return -1;
	}
	fputc('\n', f);
	return 0;
}

int sweep_csv(const json_t *answer, char **csv, struct err *err)
{
	const json_t *columns = json_object_get(answer, "columns");
	const json_t *rows = json_object_get(answer, "rows"), *row;
	char *text = NULL;
	size_t size = 0, i;
	FILE *f;
	int failed;

	if (!json_is_array(columns) || !json_is_array(rows))
		return err_set(err, ERR_INTERNAL, "", "not a sweep answer: no columns and rows");
	f = open_memstream(&text, &size);
	if (!f)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	failed = csv_line(f, columns) != 0;
	json_array_foreach (rows, i, row)
		if (!failed)
			failed = !json_is_array(row) || csv_line(f, row) != 0;
	/* fclose flushes: only now is text complete, or the stream's error known */
	if (fclose(f) != 0 || failed) {
		free(text);
		return err_set(err, ERR_INTERNAL, "", "cannot write the CSV");
	}
	*csv = text;
	return 0;
}
