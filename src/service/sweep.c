/*
 * sweep.c: expand a sweep into validated points, compute them on worker
 * threads, and lay the answers out as columns and rows (JSON or CSV).
 */
#include "service/sweep.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jtext.h"
#include "core/lanes.h"
#include "service/answer.h"
#include "base/field.h"
#include "base/jsonptr.h"
#include "service/request.h"
#include "service/sceneset.h"
#include "service/shard.h"
#include "service/vary.h"
#include "tunables.h"

#define MAX_VARY LIMIT_MAX_SWEEP_VARY
#define ROW_ROOM 2048 /* a row's text this long or shorter is made on the stack */

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
	struct ans_request *points; /* npoints, row-major: the first vary entry slowest; */
	unsigned char *stored;      /* 1: points[i] holds point i; 0: plan_point sets it in place */
	/* set_in_place: every path is covered by sceneset, so a point is base_request with
	 * its values set in place (sceneset.h), the full parse only when that says so */
	int set_in_place;
	struct ans_request base_request; /* the canonical base, parsed */
	struct sceneset_path set_paths[MAX_VARY];
	struct shard_spec shard; /* the points this answer holds (shard.h) */
};

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

/*
 * The request of one point (index as make_point's) set in place on the parsed base;
 * -1 when the plan does not set in place or sceneset leaves this point to make_point,
 * which then gives the same request or the parser's own error.
 */
static int set_point(
    const struct sweep_plan *p, const size_t index[MAX_VARY], struct ans_request *out)
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
	*out = p->base_request;
	return sceneset_apply(&out->u.scene, paths, values, n);
}

/* Point i of a plan built without error: the stored request, or the base with i's
 * values set in place into *scratch (so set-in-place points cost no memory). */
static const struct ans_request *plan_point(
    const struct sweep_plan *p, size_t i, struct ans_request *scratch)
{
	size_t index[MAX_VARY] = {i, SIZE_MAX};

	if (p->stored[i])
		return &p->points[i];
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
	struct ans_request scratch;
	size_t index[MAX_VARY], k, j;

	/* untouched pages of points cost nothing: only stored ones are written */
	p->points = calloc(p->npoints, sizeof *p->points);
	p->stored = calloc(p->npoints, 1);
	if (!p->points || !p->stored)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	for (k = 0; k < p->nvary; k++) {
		for (j = 0; j < p->counts[k]; j++) {
			index[0] = index[1] = SIZE_MAX;
			index[k] = j;
			err_clear(&inner);
			if (set_point(p, index, &scratch) == 0)
				continue;
			/* a line's points are exactly these requests */
			struct ans_request *out = p->nvary == 1 ? &p->points[j] : &scratch;
			if (make_point(p, index, out, &inner) != 0)
				return point_error(err, &inner, k, j, "");
			if (p->nvary == 1)
				p->stored[j] = 1;
		}
	}
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
    const struct sweep_plan *p, size_t i, json_t **row, size_t *row_of, struct ans_request *out)
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
		rc =
		    *row && value ? vary_set(p->query, *row, p->paths[0], value, "", &ignored) : -1;
		json_decref(value);
		if (rc != 0) {
			json_decref(*row);
			*row = NULL;
			return -1;
		}
		*row_of = index0;
	}
	value = json_deep_copy(json_array_get(p->values[1], index1));
	rc = value ? vary_set(p->query, *row, p->paths[1], value, "", &ignored) : -1;
	json_decref(value);
	if (rc == 0)
		rc = parse_request(p->query, *row, "", out, &ignored);
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
	struct ans_request scratch;

	for (i = g->begin; i < g->end; i++) {
		index[0] = i / p->counts[1];
		index[1] = i % p->counts[1];
		if (set_point(p, index, &scratch) == 0)
			continue;
		g->p->stored[i] = 1;
		if (in_row && grid_point_in_row(p, i, &row, &row_of, &g->p->points[i]) == 0)
			continue;
		err_clear(&g->err);
		if (make_point(g->p, index, &g->p->points[i], &g->err) != 0) {
			g->failed_at = i;
			break;
		}
	}
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

/* Decide whether the plan's points are set in place: a scene query whose every path
 * sceneset covers, and a canonical base that parses (it always does). */
static void plan_set_in_place(struct sweep_plan *p)
{
	struct err ignored;
	size_t k;

	err_clear(&ignored);
	p->set_in_place = 0;
	if (!atomic_load(&set_in_place_enabled) || (p->query != SVC_REST && p->query != SVC_DROP))
		return;
	for (k = 0; k < p->nvary; k++)
		if (!sceneset_path(p->paths[k], &p->set_paths[k]))
			return;
	if (parse_request(p->query, p->base, "", &p->base_request, &ignored) != 0)
		return;
	p->set_in_place = 1;
}

/* Validate a sweep request into *p (zeroed first; plan_clear it in every case). */
static int plan_build(
    json_t *body, long max_points, int threads, struct sweep_plan *p, struct err *err)
{
	static const char *const known[] = {"query", "base", "vary", "shard", NULL};
	struct field_ctx c, base_ctx;
	struct ans_request base, scratch;
	json_t *vary, *empty = NULL;
	size_t k, steps = 0, i;
	int rc = -1;

	memset(p, 0, sizeof *p);
	if (field_root(&c, body, "", err) != 0 || field_known(&c, known) != 0 ||
	    vary_query(&c, "query", &p->query) != 0 || shard_parse(&c, "shard", &p->shard) != 0)
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
	plan_set_in_place(p);
	if (plan_points(p, threads, err) != 0)
		goto out;
	/* every point is validated, but a shard's limit is the steps it computes itself */
	for (i = 0; i < shard_rows(&p->shard, p->npoints); i++)
		steps +=
		    (size_t)ans_request_steps(plan_point(p, shard_point(&p->shard, i), &scratch));
	if (steps > (size_t)LIMIT_MAX_SWEEP_STEPS) {
		field_fail(&c, "vary", -1, ERR_TOO_LARGE,
		    "the %s simulate %zu steps in all, over the limit of %ld",
		    p->shard.sharded ? "shard's points" : "points", steps, LIMIT_MAX_SWEEP_STEPS);
		goto out;
	}
	rc = 0;
out:
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

/* The canonical request; with_shard 0: without its shard (a part's identity). */
static json_t *plan_json(const struct sweep_plan *p, int with_shard)
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
	out = vary ? json_pack("{s:s, s:O, s:o}", "query", svc_endpoint_name(p->query), "base",
	                 p->base, "vary", vary)
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
	return plan_json(p, 1);
}

/*
 * A sweep being computed: workers claim points in order from one counter (so the
 * first rows are done first, and a thread whose points came to rest early takes
 * more), drops go through the core's lanes, and each finished point is marked
 * ready; whichever thread finds the next rows in order ready hands them to the
 * sink. Without a sink only the results are kept.
 */
struct run {
	const struct sweep_plan *p;
	struct ans_result *results;
	char **texts;          /* a sink's row text per point, until written */
	char **json_texts;     /* and its JSON text, when the sink wants both */
	atomic_uchar *ready;   /* per point: result (and text) final */
	size_t nrows;          /* the rows of the answer: the shard's points (shard.h) */
	atomic_size_t claimed; /* rows whose points are handed to workers */
	atomic_int failed;     /* out of memory or the sink refused: stop claiming */
	const struct sweep_sink *sink;
	pthread_mutex_t emit_lock;      /* one writer at a time, rows in order */
	atomic_size_t emitted;          /* rows written (written under emit_lock) */
	struct err sink_err;            /* the first failure's error (emit_lock) */
	char **value_text[2][MAX_VARY]; /* each varied value's cell, per sweep_format */
	size_t value_max;               /* the longest of them */
};

static char *row_text(
    const struct run *r, size_t i, const struct ans_result *result, enum sweep_format format);

/*
 * One thread's place for the results it is computing. Without results kept for every
 * point (a stream), a result lives only from its point's start to its row's text, in
 * one of the thread's slots: as many as the lanes step at once, not one per point,
 * whose fresh pages would cost more than the rows' text on this kind of machine.
 */
struct worker {
	struct run *r;
	size_t nslots;
	long *slot_point; /* the point in each slot; -1: free */
	struct ans_result *slots;
};

/* Where point i's result goes: r->results[i], or a free slot of w (NULL: out of memory). */
static struct ans_result *result_take(struct worker *w, long i)
{
	size_t k, n;
	long *points;
	struct ans_result *slots;

	if (w->r->results)
		return &w->r->results[i];
	for (k = 0; k < w->nslots; k++)
		if (w->slot_point[k] < 0)
			break;
	if (k == w->nslots) {
		/* more points in flight than slots: grow (no slot is pointed at across calls) */
		n = w->nslots ? 2 * w->nslots : (size_t)ctd_lanes_width() + 1;
		points = realloc(w->slot_point, n * sizeof *points);
		if (points)
			w->slot_point = points;
		slots = points ? realloc(w->slots, n * sizeof *slots) : NULL;
		if (!slots)
			return NULL;
		w->slots = slots;
		for (; w->nslots < n; w->nslots++)
			w->slot_point[w->nslots] = -1;
	}
	w->slot_point[k] = i;
	return &w->slots[k];
}

/* Point i's result, taken by result_take. */
static struct ans_result *result_of(struct worker *w, long i)
{
	size_t k;

	if (w->r->results)
		return &w->r->results[i];
	for (k = 0; w->slot_point[k] != i; k++)
		;
	return &w->slots[k];
}

/* Point i's row is made: its slot is free again. */
static void result_drop(struct worker *w, long i)
{
	size_t k;

	if (w->r->results)
		return;
	for (k = 0; w->slot_point[k] != i; k++)
		;
	w->slot_point[k] = -1;
}

/* Claim the next point, or SIZE_MAX when none is left (or the run failed). */
static size_t claim(struct run *r)
{
	size_t i;

	if (atomic_load(&r->failed))
		return SIZE_MAX;
	i = atomic_fetch_add(&r->claimed, 1);
	return i < r->nrows ? shard_point(&r->p->shard, i) : SIZE_MAX;
}

/* Write the rows that are ready, in order, if no other thread is writing. A row
 * marked ready while another thread writes is seen by that thread's check after
 * unlocking, or by its own marker's trylock once the lock is free. */
static void emit_ready(struct run *r)
{
	size_t i;

	while (pthread_mutex_trylock(&r->emit_lock) == 0) {
		while ((i = atomic_load(&r->emitted)) < r->nrows && atomic_load(&r->ready[i])) {
			char *text = r->texts[i];
			char *json = r->sink->format == SWEEP_JSON ? text
			    : r->json_texts                        ? r->json_texts[i]
			                                           : NULL;

			/* a row without text (out of memory) has failed the run already */
			if (!atomic_load(&r->failed) &&
			    r->sink->row(r->sink->ctx, text, strlen(text), json, &r->sink_err) != 0)
				atomic_store(&r->failed, 1);
			free(text);
			r->texts[i] = NULL;
			if (r->json_texts) {
				free(r->json_texts[i]);
				r->json_texts[i] = NULL;
			}
			atomic_store(&r->emitted, i + 1);
		}
		pthread_mutex_unlock(&r->emit_lock);
		i = atomic_load(&r->emitted);
		if (!(i < r->nrows && atomic_load(&r->ready[i])))
			break;
	}
}

/* Point i's result is final: format its row for the sink, mark it, write what is ready. */
static void point_done(struct run *r, size_t i, const struct ans_result *result)
{
	size_t row = shard_row(&r->p->shard, i);

	if (r->sink) {
		r->texts[row] = row_text(r, i, result, r->sink->format);
		if (r->json_texts)
			r->json_texts[row] = row_text(r, i, result, SWEEP_JSON);
		if (!r->texts[row] || (r->json_texts && !r->json_texts[row]))
			atomic_store(&r->failed, 1);
	}
	atomic_store(&r->ready[row], 1);
	if (r->sink)
		emit_ready(r);
}

/* The lanes' feed: the plan's drop points, each prepared as ans_compute would. */
static long drop_next(void *ctx, struct ctd_scene_model *model, double *height, double *duration)
{
	struct worker *w = ctx;
	struct run *r = w->r;
	size_t i;
	struct ans_request scratch;
	const struct ans_request *req;
	const struct ctd_scene *scene;
	struct ans_result *out;

	for (;;) {
		i = claim(r);
		if (i == SIZE_MAX)
			return -1;
		req = plan_point(r->p, i, &scratch);
		scene = &req->u.scene.scene;
		/* the lanes follow the pyramidal cone's arithmetic (scene.c's); any other cone
		 * is dropped one point at a time by the scalar core */
		if (scene->option.cone == CTD_CONE_PYRAMIDAL)
			break;
		out = result_take(w, (long)i);
		if (!out) {
			atomic_store(&r->failed, 1);
			return -1;
		}
		ans_compute(req, out);
		point_done(r, i, out);
		result_drop(w, (long)i);
	}
	out = result_take(w, (long)i);
	if (!out) {
		atomic_store(&r->failed, 1);
		return -1;
	}
	memset(out, 0, sizeof *out);
	out->query = SVC_DROP;
	out->mujoco = scene->option.mujoco;
	ctd_scene_prepare(scene, model);
	out->solref_fallback = model->gains.fell_back;
	out->direct = model->gains.direct;
	*height = scene->height;
	*duration = scene->duration;
	return (long)i;
}

static void drop_done(void *ctx, long index, const struct ctd_sim_drop *out)
{
	struct worker *w = ctx;
	struct ans_result *result = result_of(w, index);

	result->u.drop = *out;
	point_done(w->r, (size_t)index, result);
	result_drop(w, index);
}

static void *work(void *arg)
{
	struct run *r = arg;
	struct worker w = {r, 0, NULL, NULL};
	struct ans_request scratch;
	struct ans_result *out;
	size_t i;

	if (r->p->query == SVC_DROP) {
		struct ctd_lanes_feed feed = {drop_next, drop_done, &w};
		ctd_lanes_drop(&feed);
	} else {
		while ((i = claim(r)) != SIZE_MAX) {
			out = result_take(&w, (long)i);
			if (!out) {
				atomic_store(&r->failed, 1);
				break;
			}
			ans_compute(plan_point(r->p, i, &scratch), out);
			point_done(r, i, out);
			result_drop(&w, (long)i);
		}
	}
	free(w.slot_point);
	free(w.slots);
	return NULL;
}

/* Compute every point of the plan on up to `threads` threads (the calling thread is
 * one), into results (NULL with a sink: only the rows are kept), handing rows to sink
 * (NULL: none) as they are ready. */
static int compute(const struct sweep_plan *p, int threads, struct ans_result *results,
    const struct sweep_sink *sink, char **const value_text[2][MAX_VARY], struct err *err)
{
	struct run r;
	pthread_t *ids = NULL;
	char *started = NULL;
	size_t n = threads < 1 ? 1 : (size_t)threads, t, i, k;
	int rc = -1;

	memset(&r, 0, sizeof r);
	r.p = p;
	r.nrows = shard_rows(&p->shard, p->npoints);
	r.results = results;
	r.sink = sink;
	for (k = 0; sink && k < p->nvary; k++) {
		int f;
		for (f = 0; f < 2; f++) {
			r.value_text[f][k] = value_text[f][k];
			for (i = 0; value_text[f][k] && i < p->counts[k]; i++)
				if (strlen(value_text[f][k][i]) > r.value_max)
					r.value_max = strlen(value_text[f][k][i]);
		}
	}
	atomic_init(&r.claimed, 0);
	atomic_init(&r.emitted, 0);
	atomic_init(&r.failed, 0);
	err_clear(&r.sink_err);
	/* a shard may hold no rows: every array has room for one */
	r.ready = malloc((r.nrows + 1) * sizeof *r.ready);
	r.texts = sink ? calloc(r.nrows + 1, sizeof *r.texts) : NULL;
	r.json_texts = sink && sink->format != SWEEP_JSON && sink->with_json
	    ? calloc(r.nrows + 1, sizeof *r.json_texts)
	    : NULL;
	if (n > r.nrows)
		n = r.nrows ? r.nrows : 1;
	ids = calloc(n, sizeof *ids);
	started = calloc(n, 1);
	if (!r.ready || (sink && !r.texts) ||
	    (sink && sink->format != SWEEP_JSON && sink->with_json && !r.json_texts) || !ids ||
	    !started || pthread_mutex_init(&r.emit_lock, NULL) != 0) {
		err_set(err, ERR_INTERNAL, "", "out of memory");
		goto free_only;
	}
	for (i = 0; i < r.nrows; i++)
		atomic_init(&r.ready[i], 0);
	/* a thread that cannot start leaves its share to the others */
	for (t = 1; t < n; t++)
		started[t] = pthread_create(&ids[t], NULL, work, &r) == 0;
	work(&r);
	for (t = 1; t < n; t++)
		if (started[t])
			pthread_join(ids[t], NULL);
	if (sink)
		emit_ready(&r); /* rows a writer left behind as the last ones finished */
	if (atomic_load(&r.failed)) {
		if (r.sink_err.code != ERR_NONE)
			*err = r.sink_err;
		else
			err_set(err, ERR_INTERNAL, "", "out of memory");
	} else {
		rc = 0;
	}
	pthread_mutex_destroy(&r.emit_lock);
free_only:
	for (i = 0; i < r.nrows; i++) {
		if (r.texts)
			free(r.texts[i]);
		if (r.json_texts)
			free(r.json_texts[i]);
	}
	free(r.texts);
	free(r.json_texts);
	free(r.ready);
	free(ids);
	free(started);
	return rc;
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
	json_t *rows = NULL, *out = NULL;
	size_t i;
	int rc = -1;

	results = calloc(p->npoints, sizeof *results);
	if (!results) {
		err_set(err, ERR_INTERNAL, "", "out of memory");
		goto out;
	}
	if (compute(p, threads, results, NULL, NULL, err) != 0)
		goto out;
	rows = json_array();
	for (i = 0; rows && i < shard_rows(&p->shard, p->npoints); i++) {
		size_t point = shard_point(&p->shard, i);
		if (json_array_append_new(rows, make_row(p, point, &results[point])) != 0) {
			json_decref(rows);
			rows = NULL;
		}
	}
	/* the head's columns: a shard may hold no row to take them from */
	out = rows ? sweep_head(p) : NULL;
	if (!out || json_object_set(out, "rows", rows) != 0) {
		err_set(err, ERR_INTERNAL, "", "out of memory");
		goto out;
	}
	*answer = out;
	rc = 0;
out:
	if (rc != 0)
		json_decref(out);
	json_decref(rows);
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

/* A shard's CSV starts with its "part" (shard.h); nothing for a whole sweep (part NULL). */
static int csv_part_line(FILE *f, const json_t *part)
{
	char *line = part ? shard_csv_line(part) : NULL;
	int rc = part && (!line || fputs(line, f) == EOF) ? -1 : 0;

	free(line);
	return rc;
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
	failed =
	    csv_part_line(f, json_object_get(answer, "part")) != 0 || csv_line(f, columns) != 0;
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

/* ---- streaming: rows as text, in order, as they are computed ---- */

/* s as a JSON string, escaped as jtext writes it, at out; returns the end. */
static char *put_json_string(char *out, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	*out++ = '"';
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		const char *esc = c == '"' ? "\\\""
		    : c == '\\'            ? "\\\\"
		    : c == '\b'            ? "\\b"
		    : c == '\f'            ? "\\f"
		    : c == '\n'            ? "\\n"
		    : c == '\r'            ? "\\r"
		    : c == '\t'            ? "\\t"
		                           : NULL;
		if (esc) {
			out = stpcpy(out, esc);
		} else if (c < 0x20) {
			out = stpcpy(out, "\\u00");
			*out++ = hex[c >> 4];
			*out++ = hex[c & 15];
		} else {
			*out++ = (char)c;
		}
	}
	*out++ = '"';
	return out;
}

/* s as one CSV cell (csv_text's rule), at out; returns the end. */
static char *put_csv_string(char *out, const char *s)
{
	if (!s[strcspn(s, ",\"\r\n")])
		return stpcpy(out, s);
	*out++ = '"';
	for (; *s; s++) {
		if (*s == '"')
			*out++ = '"';
		*out++ = *s;
	}
	*out++ = '"';
	return out;
}

/* v in decimal, as printf's "%ld" writes it, at out; returns the end (a row's
 * steps: printf's parsing of its format cost more than the rest of the cell). */
static char *put_long(char *out, long v)
{
	char digits[24];
	unsigned long u = v < 0 ? 0 - (unsigned long)v : (unsigned long)v;
	int n = 0;

	do {
		digits[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*out++ = '-';
	while (n > 0)
		*out++ = digits[--n];
	*out = '\0';
	return out;
}

/* One answer field in format, at out; returns the end. */
static char *put_field(char *out, const struct ans_field *f, enum sweep_format format)
{
	char real[JTEXT_REAL_MAX];

	switch (f->type) {
	case ANS_REAL:
		/* one spelling in JSON and CSV: the JSON answer's (csv_cell's rule too) */
		return stpcpy(out, jtext_real(f->real, real));
	case ANS_INTEGER:
		return put_long(out, f->integer);
	case ANS_BOOL:
		return stpcpy(out, f->integer ? "true" : "false");
	case ANS_STRING:
		return format == SWEEP_CSV ? put_csv_string(out, f->text)
		                           : put_json_string(out, f->text);
	default:
		return format == SWEEP_CSV ? out : stpcpy(out, "null");
	}
}

/* The text of point i's row in format (a JSON array, or a CSV line with its
 * "\n"), exactly as the whole answer prints it; NULL when out of memory. Caller frees. */
static char *row_text(
    const struct run *r, size_t i, const struct ans_result *result, enum sweep_format format)
{
	const struct sweep_plan *p = r->p;
	struct ans_field fields[ANS_MAX_FIELDS];
	size_t n = ans_fields(result, fields), f, cap;
	size_t index[MAX_VARY] = {i, 0};
	char *heap = NULL, *text = NULL, *out, *kept, room[ROW_ROOM];

	if (p->nvary == 2) {
		index[0] = i / p->counts[1];
		index[1] = i % p->counts[1];
	}
	/* strings escape to at most 6 bytes a byte; everything else fits a real's room */
	cap = 4 + MAX_VARY * (r->value_max + 1);
	for (f = 0; f < n; f++)
		cap += 1 +
		    (fields[f].type == ANS_STRING ? 6 * strlen(fields[f].text) + 2
		                                  : JTEXT_REAL_MAX);
	/* written on the stack and kept at its length: rows wait for the ones before them
	 * (a thousand, when a thread is descheduled), and every fresh page of heap they
	 * hold costs more than the row's whole text on this kind of machine */
	if (cap > sizeof room && !(heap = malloc(cap)))
		return NULL;
	text = heap ? heap : room;
	out = text;
	if (format == SWEEP_JSON)
		*out++ = '[';
	for (f = 0; f < p->nvary; f++) {
		if (f > 0)
			*out++ = ',';
		out = stpcpy(out, r->value_text[format][f][index[f]]);
	}
	for (f = 0; f < n; f++) {
		*out++ = ',';
		out = put_field(out, &fields[f], format);
	}
	*out++ = format == SWEEP_JSON ? ']' : '\n';
	*out = '\0';
	if (heap)
		return heap;
	kept = malloc((size_t)(out - text) + 1);
	return kept ? memcpy(kept, text, (size_t)(out - text) + 1) : NULL;
}

/* The cell text of v in format (jtext's JSON, or csv_cell's CSV); NULL: out of memory. */
static char *value_cell(const json_t *v, int format)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f;
	int failed;

	if (format == SWEEP_JSON)
		return jtext_dump(v, 0);
	f = open_memstream(&text, &size);
	if (!f)
		return NULL;
	failed = csv_cell(f, v) != 0;
	if (fclose(f) != 0 || failed) {
		free(text);
		return NULL;
	}
	return text;
}

json_t *sweep_head(const struct sweep_plan *p)
{
	struct ans_result blank;
	json_t *columns, *head, *request;

	memset(&blank, 0, sizeof blank);
	blank.query = p->query;
	columns = make_columns(p, &blank);
	head = columns
	    ? json_pack("{s:s, s:o}", "query", svc_endpoint_name(p->query), "columns", columns)
	    : NULL;
	if (!head || !p->shard.sharded)
		return head;
	/* "part" sorts before "rows": the head's text is still the answer's start */
	request = plan_json(p, 0);
	if (!request ||
	    json_object_set_new(head, "part", shard_part(&p->shard, p->npoints, request)) != 0) {
		json_decref(head);
		head = NULL;
	}
	json_decref(request);
	return head;
}

int sweep_stream(
    const struct sweep_plan *p, int threads, const struct sweep_sink *sink, struct err *err)
{
	char **value_text[2][MAX_VARY] = {{NULL}};
	json_t *head = sweep_head(p);
	char *header = NULL;
	size_t size = 0, k, j;
	FILE *file;
	int rc = -1, f;

	if (!head) {
		err_set(err, ERR_INTERNAL, "", "out of memory");
		goto out;
	}
	for (f = 0; f < 2; f++) {
		if (f != (int)sink->format && !(f == SWEEP_JSON && sink->with_json))
			continue;
		for (k = 0; k < p->nvary; k++) {
			char **cells = calloc(p->counts[k], sizeof *cells);
			value_text[f][k] = cells;
			for (j = 0; cells && j < p->counts[k]; j++)
				if (!(cells[j] = value_cell(json_array_get(p->values[k], j), f)))
					break;
			if (!cells || j < p->counts[k]) {
				err_set(err, ERR_INTERNAL, "", "out of memory");
				goto out;
			}
		}
	}
	file = open_memstream(&header, &size);
	if (!file ||
	    (csv_part_line(file, json_object_get(head, "part")) != 0 ||
	        csv_line(file, json_object_get(head, "columns")) != 0) |
	        (fclose(file) != 0)) {
		err_set(err, ERR_INTERNAL, "", "out of memory");
		goto out;
	}
	if (sink->head(sink->ctx, head, header, err) != 0)
		goto out;
	/* no results kept: each lives in its thread until its row is made */
	rc = compute(p, threads, NULL, sink, value_text, err);
out:
	for (f = 0; f < 2; f++)
		for (k = 0; k < p->nvary; k++) {
			for (j = 0; value_text[f][k] && j < p->counts[k]; j++)
				free(value_text[f][k][j]);
			free(value_text[f][k]);
		}
	free(header);
	json_decref(head);
	return rc;
}
