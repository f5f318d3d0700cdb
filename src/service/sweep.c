/*
 * sweep.c: a sweep's plan: validate the request, expand it into every point's
 * request (set in place on the parsed base where sceneset covers the paths), its
 * canonical JSON and its answer's head.
 * sweep_run.c computes a plan (and holds the endpoint row, which answers one), sweep_csv.c
 * prints it.
 */
#include "service/sweep.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/answer.h"
#include "service/budget.h"
#include "service/endpoint.h"
#include "base/field.h"
#include "service/sceneset.h"
#include "service/shard.h"
#include "service/sweep_int.h"
#include "service/vary.h"
#include "service/knobs.h"

/* Whether plans set covered fields in place (sweep_set_in_place). */
static atomic_int set_in_place_enabled = 1;

void sweep_set_in_place(int on)
{
	atomic_store(&set_in_place_enabled, on);
}

static void plan_clear(struct sweep_plan *p)
{
	size_t k;

	json_decref(p->base);
	for (k = 0; k < MAX_VARY; k++)
		json_decref(p->values[k]);
	for (k = 0; k < MAX_VARY; k++)
		free(p->owned_paths[k]);
	free(p->points);
	free(p->stored);
	free(p->base_request);
	memset(p, 0, sizeof *p);
}

/* Request i of the plan's points array. */
static void *point_at(const struct sweep_plan *p, size_t i)
{
	return (char *)p->points + i * p->kind->request_size;
}

/* A deep copy of v with every number a real, as in every canonical request. */
static json_t *canonical_value(json_t *v)
{
	json_t *copy = NULL, *member;
	const char *key;
	size_t i;

	if (json_is_integer(v))
		return json_real((double)json_integer_value(v));
	/* -0 is 0, as in a request's fields (base/field.h) */
	if (json_is_real(v) && json_real_value(v) == 0)
		return json_real(0.0);
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
static int make_point(
    const struct sweep_plan *p, const size_t index[MAX_VARY], void *out, struct err *err)
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
		rc = vary_set(p->kind, request, p->paths[k], value, "", err);
		json_decref(value);
		if (rc != 0)
			goto out;
	}
	rc = p->kind->point(request, "", out, err);
out:
	json_decref(request);
	return rc;
}

/*
 * The request of one point (index as make_point's) set in place on the parsed base;
 * -1 when the plan does not set in place or sceneset leaves this point to make_point,
 * which then gives the same request or the parser's own error.
 */
static int set_point(const struct sweep_plan *p, const size_t index[MAX_VARY], void *out)
{
	struct sceneset_path paths[MAX_VARY];
	json_t *values[MAX_VARY];
	size_t k, n = 0;

	if (!p->set_in_place)
		return -1;
	for (k = 0; k < p->nvary; k++) {
		if (index[k] == SIZE_MAX)
			continue;
		paths[n] = p->set_paths[k];
		values[n++] = json_array_get(p->values[k], index[k]);
	}
	memcpy(out, p->base_request, p->kind->request_size);
	return sceneset_apply(p->kind->scene(out), paths, values, n);
}

const void *sweep_point(const struct sweep_plan *p, size_t i, void *scratch)
{
	size_t index[MAX_VARY] = {i, SIZE_MAX};

	if (p->stored[i])
		return point_at(p, i);
	if (p->nvary == 2) {
		index[0] = i / p->counts[1];
		index[1] = i % p->counts[1];
	}
	/* it was set in place when the plan was built, and does the same now */
	set_point(p, index, scratch);
	return scratch;
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

static int grid_points(struct sweep_plan *p, int threads, struct err *err);

/* Validate each value alone (the other entries at the base's value), then the grid. */
static int plan_points(struct sweep_plan *p, int threads, struct err *err)
{
	struct err inner;
	void *scratch;
	size_t index[MAX_VARY], k, j;

	/* untouched pages of points cost nothing: only stored ones are written */
	p->points = calloc(p->npoints, p->kind->request_size);
	p->stored = calloc(p->npoints, 1);
	scratch = malloc(p->kind->request_size);
	if (!p->points || !p->stored || !scratch) {
		free(scratch);
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	}
	for (k = 0; k < p->nvary; k++) {
		for (j = 0; j < p->counts[k]; j++) {
			index[0] = index[1] = SIZE_MAX;
			index[k] = j;
			err_clear(&inner);
			if (set_point(p, index, scratch) == 0)
				continue;
			/* a line's points are exactly these requests */
			void *out = p->nvary == 1 ? point_at(p, j) : scratch;
			if (make_point(p, index, out, &inner) != 0) {
				free(scratch);
				return point_error(err, &inner, k, j, "");
			}
			if (p->nvary == 1)
				p->stored[j] = 1;
		}
	}
	free(scratch);
	if (p->nvary == 1)
		return 0;
	return grid_points(p, threads, err);
}

/* One thread's share of the grid: points [begin, end), stopping at the first bad one. */
struct grid_share {
	struct sweep_plan *p;
	size_t begin, end;
	size_t failed_at; /* SIZE_MAX: none */
	struct err err;
	pthread_t thread;
	int started;
};

/*
 * Point i of the grid from a request kept per row: `row` is the base with vary entry 0
 * at the row's value (made when the row changes), and entry 1 is set on it in place
 * for each point. That is the request make_point builds from a fresh copy of the
 * base, without copying the base per point, when neither path is a floor field (no
 * order to keep, no geom value copied into the floor) and the parsers only read their
 * request (they do). Returns -1 when anything fails: make_point then says why.
 */
static int grid_point_in_row(
    const struct sweep_plan *p, size_t i, json_t **row, size_t *row_of, void *out)
{
	size_t index0 = i / p->counts[1], index1 = i % p->counts[1];
	json_t *value;
	struct err ignored;
	int rc;

	err_clear(&ignored);
	if (!*row || *row_of != index0) {
		json_decref(*row);
		*row = json_deep_copy(p->base);
		value = json_deep_copy(json_array_get(p->values[0], index0));
		rc = *row && value ? vary_set(p->kind, *row, p->paths[0], value, "", &ignored) : -1;
		json_decref(value);
		if (rc != 0) {
			json_decref(*row);
			*row = NULL;
			return -1;
		}
		*row_of = index0;
	}
	value = json_deep_copy(json_array_get(p->values[1], index1));
	rc = value ? vary_set(p->kind, *row, p->paths[1], value, "", &ignored) : -1;
	json_decref(value);
	if (rc == 0)
		rc = p->kind->point(*row, "", out, &ignored);
	if (rc != 0) {
		/* a row whose state is in doubt is made again */
		json_decref(*row);
		*row = NULL;
	}
	return rc;
}

static void *grid_work(void *arg)
{
	struct grid_share *g = arg;
	const struct sweep_plan *p = g->p;
	size_t index[MAX_VARY], i, row_of = 0;
	int in_row = !vary_is_floor(p->paths[0]) && !vary_is_floor(p->paths[1]);
	json_t *row = NULL;
	void *scratch = malloc(p->kind->request_size);

	for (i = g->begin; i < g->end; i++) {
		index[0] = i / p->counts[1];
		index[1] = i % p->counts[1];
		if (!scratch) {
			err_set(&g->err, ERR_INTERNAL, "", "out of memory");
			g->failed_at = i;
			break;
		}
		if (set_point(p, index, scratch) == 0)
			continue;
		g->p->stored[i] = 1;
		if (in_row && grid_point_in_row(p, i, &row, &row_of, point_at(p, i)) == 0)
			continue;
		err_clear(&g->err);
		if (make_point(g->p, index, point_at(p, i), &g->err) != 0) {
			g->failed_at = i;
			break;
		}
	}
	free(scratch);
	json_decref(row);
	return NULL;
}

/*
 * Every point of a grid, on up to `threads` threads (each point is parsed alone from
 * the read-only plan). The error is the first bad point's in row-major order, as one
 * thread going through them in order would report: each share stops at its own first.
 */
static int grid_points(struct sweep_plan *p, int threads, struct err *err)
{
	struct grid_share shares[SWEEP_PARSE_THREADS_MAX];
	size_t n = threads < 1 ? 1 : (size_t)threads, t, first = SIZE_MAX, at = 0;
	char context[64];

	if (n > SWEEP_PARSE_THREADS_MAX)
		n = SWEEP_PARSE_THREADS_MAX;
	if (n > p->npoints)
		n = p->npoints;
	for (t = 0; t < n; t++) {
		shares[t].p = p;
		shares[t].begin = p->npoints * t / n;
		shares[t].end = p->npoints * (t + 1) / n;
		shares[t].failed_at = SIZE_MAX;
		shares[t].started =
		    t > 0 && pthread_create(&shares[t].thread, NULL, grid_work, &shares[t]) == 0;
	}
	grid_work(&shares[0]);
	for (t = 1; t < n; t++) {
		if (shares[t].started)
			pthread_join(shares[t].thread, NULL);
		else
			grid_work(&shares[t]);
	}
	for (t = 0; t < n; t++)
		if (shares[t].failed_at < first) {
			first = shares[t].failed_at;
			at = t;
		}
	if (first == SIZE_MAX)
		return 0;
	snprintf(context, sizeof context, "with /vary/0/values/%zu, ", first / p->counts[1]);
	return point_error(err, &shares[at].err, 1, first % p->counts[1], context);
}

/* Decide whether the plan's points are set in place: a scene kind whose every path
 * sceneset covers, and a canonical base that parses (it always does). */
static void plan_set_in_place(struct sweep_plan *p)
{
	struct err ignored;
	size_t k;

	err_clear(&ignored);
	p->set_in_place = 0;
	if (!atomic_load(&set_in_place_enabled) || !p->kind->scene)
		return;
	for (k = 0; k < p->nvary; k++)
		if (!sceneset_path(p->paths[k], &p->set_paths[k]))
			return;
	p->base_request = malloc(p->kind->request_size);
	if (!p->base_request || p->kind->point(p->base, "", p->base_request, &ignored) != 0)
		return;
	p->set_in_place = 1;
}

/* Validate a sweep request into *p (zeroed first; plan_clear it in every case). */
static int plan_build(
    json_t *body, long max_points, int threads, struct sweep_plan *p, struct err *err)
{
	static const char *const known[] = {"query", "base", "vary", "shard", NULL};
	struct field_ctx c, base_ctx;
	void *base = NULL, *scratch = NULL;
	json_t *vary, *empty = NULL;
	size_t k, steps = 0, i;
	int rc = -1;

	memset(p, 0, sizeof *p);
	if (field_root(&c, body, "", err) != 0 || field_known(&c, known) != 0 ||
	    vary_query(&c, "query", &p->query) != 0 || shard_parse(&c, "shard", &p->shard) != 0)
		goto out;
	p->kind = p->query->kind;
	base = malloc(p->kind->request_size);
	scratch = malloc(p->kind->request_size);
	if (!base || !scratch) {
		err_set(err, ERR_INTERNAL, "", "out of memory");
		goto out;
	}
	if (field_object(&c, "base", &base_ctx) != 0)
		goto out;
	if (!base_ctx.obj)
		base_ctx.obj = empty = json_object();
	if (p->kind->point(base_ctx.obj, "/base", base, err) != 0)
		goto out;
	p->base = p->kind->canonical(base);
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
	plan_set_in_place(p);
	if (plan_points(p, threads, err) != 0)
		goto out;
	/* every point is validated, but a shard's limit is the steps it computes itself */
	for (i = 0; i < shard_rows(&p->shard, p->npoints); i++) {
		const void *point = sweep_point(p, shard_point(&p->shard, i), scratch);
		long n = p->kind->steps(point);

		steps += (size_t)n;
		p->step_cost_ns += (double)n * budget_step_ns(p->kind, point);
	}
	p->steps = (double)steps;
	if (steps > (size_t)LIMIT_MAX_SWEEP_STEPS) {
		field_fail(&c, "vary", -1, ERR_TOO_LARGE,
		    "the %s simulate %zu steps in all, over the limit of %ld",
		    p->shard.sharded ? "shard's points" : "points", steps, LIMIT_MAX_SWEEP_STEPS);
		goto out;
	}
	rc = 0;
out:
	free(base);
	free(scratch);
	json_decref(empty);
	return rc;
}

int sweep_parse(json_t *body, long max_points, struct sweep_plan **plan, struct err *err)
{
	return sweep_parse_threads(body, max_points, 1, plan, err);
}

int sweep_parse_threads(
    json_t *body, long max_points, int threads, struct sweep_plan **plan, struct err *err)
{
	struct sweep_plan *p = malloc(sizeof *p);

	if (!p)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	if (plan_build(body, max_points, threads, p, err) != 0) {
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

json_t *sweep_request_json(const struct sweep_plan *p, int with_shard)
{
	json_t *vary = json_array(), *out;
	size_t k;

	for (k = 0; vary && k < p->nvary; k++) {
		if (json_array_append_new(vary,
		        json_pack("{s:s, s:O}", "path", p->paths[k], "values", p->values[k])) !=
		    0) {
			json_decref(vary);
			vary = NULL;
		}
	}
	out = vary
	    ? json_pack("{s:s, s:O, s:o}", "query", p->query->name, "base", p->base, "vary", vary)
	    : NULL;
	if (out && with_shard && p->shard.sharded &&
	    json_object_set_new(out, "shard", shard_json(&p->shard)) != 0) {
		json_decref(out);
		return NULL;
	}
	return out;
}

json_t *sweep_plan_json(const struct sweep_plan *p)
{
	return sweep_request_json(p, 1);
}

/* The columns: the paths, then the names of first's fields (any result: the names are
 * fixed). */
static json_t *make_columns(const struct sweep_plan *p, const void *first)
{
	struct ans_field fields[ANS_MAX_FIELDS];
	size_t n = p->kind->fields(first, fields), f;
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

json_t *sweep_head(const struct sweep_plan *p)
{
	void *blank = calloc(1, p->kind->result_size);
	json_t *columns, *head, *request;

	columns = blank ? make_columns(p, blank) : NULL;
	free(blank);
	head =
	    columns ? json_pack("{s:s, s:o}", "query", p->query->name, "columns", columns) : NULL;
	if (!head || !p->shard.sharded)
		return head;
	/* "part" sorts before "rows": the head's text is still the answer's start */
	request = sweep_request_json(p, 0);
	if (!request ||
	    json_object_set_new(head, "part", shard_part(&p->shard, p->npoints, request)) != 0) {
		json_decref(head);
		head = NULL;
	}
	json_decref(request);
	return head;
}
