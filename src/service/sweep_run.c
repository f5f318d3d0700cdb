/*
 * sweep_run.c: compute a sweep's plan on worker threads (points claimed in order,
 * a kind with a batch() computing several at once, drops through the core's lanes)
 * and lay the answers out as rows, whole (sweep_run) or streamed in order as they
 * are ready (sweep_stream).
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
#include "service/shard.h"
#include "service/budget.h"
#include "service/sweep_int.h"

#define ROW_ROOM 2048 /* a row's text this long or shorter is made on the stack */

/*
 * A sweep being computed: workers claim points in order from one counter (so the
 * first rows are done first, and a thread whose points came to rest early takes
 * more), drops go through the core's lanes, and each finished point is marked
 * ready; whichever thread finds the next rows in order ready hands them to the
 * sink. Without a sink only the results are kept.
 */
struct run {
	const struct sweep_plan *p;
	unsigned char *results; /* npoints results of kind->result_size bytes, or NULL */
	char **texts;           /* a sink's row text per point, until written */
	char **json_texts;      /* and its JSON text, when the sink wants both */
	atomic_uchar *ready;    /* per point: result (and text) final */
	size_t nrows;           /* the rows of the answer: the shard's points (shard.h) */
	atomic_size_t claimed;  /* rows whose points are handed to workers */
	atomic_int failed;      /* out of memory or the sink refused: stop claiming */
	const struct sweep_sink *sink;
	pthread_mutex_t emit_lock;      /* one writer at a time, rows in order */
	atomic_size_t emitted;          /* rows written (written under emit_lock) */
	struct err sink_err;            /* the first failure's error (emit_lock) */
	char **value_text[2][MAX_VARY]; /* each varied value's cell, per sweep_format */
	size_t value_max;               /* the longest of them */
	struct core_budget *budget;      /* the calling thread's, taken on by every worker */
};

static char *row_text(const struct run *r, size_t i, const void *result, enum sweep_format format);

/*
 * One thread's place for the results it is computing. Without results kept for every
 * point (a stream), a result lives only from its point's start to its row's text, in
 * one of the thread's slots: as many as the lanes step at once, not one per point,
 * whose fresh pages would cost more than the rows' text on this kind of machine.
 */
struct worker {
	struct run *r;
	size_t nslots;
	long *slot_point;     /* the point in each slot; -1: free */
	unsigned char *slots; /* nslots results of kind->result_size bytes */
	void *scratch;        /* a request set in place (sweep_point()) */
};

/* The size of one result of the run's kind. */
static size_t result_size(const struct run *r)
{
	return r->p->kind->result_size;
}

/* Where point i's result goes: r->results[i], or a free slot of w (NULL: out of memory,
 * and the run has failed). */
static void *result_take(struct worker *w, long i)
{
	size_t k, n, size = result_size(w->r);
	long *points;
	unsigned char *slots;

	if (w->r->results)
		return w->r->results + (size_t)i * size;
	for (k = 0; k < w->nslots; k++)
		if (w->slot_point[k] < 0)
			break;
	if (k == w->nslots) {
		/* more points in flight than slots: grow (no slot is pointed at across calls) */
		n = w->nslots ? 2 * w->nslots : (size_t)core_lanes_width() + 1;
		points = realloc(w->slot_point, n * sizeof *points);
		if (points)
			w->slot_point = points;
		slots = points ? realloc(w->slots, n * size) : NULL;
		if (!slots) {
			atomic_store(&w->r->failed, 1);
			return NULL;
		}
		w->slots = slots;
		for (; w->nslots < n; w->nslots++)
			w->slot_point[w->nslots] = -1;
	}
	w->slot_point[k] = i;
	return w->slots + k * size;
}

/* Point i's result, taken by result_take. */
static void *result_of(struct worker *w, long i)
{
	size_t k;

	if (w->r->results)
		return w->r->results + (size_t)i * result_size(w->r);
	for (k = 0; w->slot_point[k] != i; k++)
		;
	return w->slots + k * result_size(w->r);
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

	/* a budget that ran out, or a client gone, stops the run between points too */
	if (atomic_load(&r->failed) || core_budget_poll())
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
static void point_done(struct run *r, size_t i, const void *result)
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

/* ---- what a kind's batch() calls (answer.h's struct ans_batch) ---- */

static long batch_next(void *ctx, const void **request)
{
	struct worker *w = ctx;
	size_t i = claim(w->r);

	if (i == SIZE_MAX)
		return -1;
	*request = sweep_point(w->r->p, i, w->scratch);
	return (long)i;
}

static void *batch_take(void *ctx, long index)
{
	return result_take(ctx, index);
}

static void *batch_result(void *ctx, long index)
{
	return result_of(ctx, index);
}

static void batch_done(void *ctx, long index)
{
	struct worker *w = ctx;

	/* stopped, the result may be cut short: no row of it (and no more are claimed) */
	if (!core_budget_stopped())
		point_done(w->r, (size_t)index, result_of(w, index));
	result_drop(w, index);
}

static void *work(void *arg)
{
	struct run *r = arg;
	const struct ans_kind *kind = r->p->kind;
	struct worker w = {r, 0, NULL, NULL, malloc(kind->request_size)};
	/* a worker thread takes the caller's budget on; the caller has it already */
	struct core_budget *was = core_budget_current();
	int own = was != r->budget;
	void *out;
	size_t i;

	if (own)
		budget_enter(r->budget);
	if (!w.scratch) {
		atomic_store(&r->failed, 1);
	} else if (kind->batch) {
		struct ans_batch batch = {batch_next, batch_take, batch_result, batch_done, &w};
		kind->batch(&batch);
	} else {
		while ((i = claim(r)) != SIZE_MAX) {
			out = result_take(&w, (long)i);
			if (!out)
				break;
			kind->compute(sweep_point(r->p, i, w.scratch), out);
			if (core_budget_stopped())
				break; /* out may be cut short: no row of it */
			point_done(r, i, out);
			result_drop(&w, (long)i);
		}
	}
	free(w.scratch);
	free(w.slot_point);
	free(w.slots);
	if (own)
		budget_enter(was);
	return NULL;
}

/* Compute every point of the plan on up to `threads` threads (the calling thread is
 * one), into results (NULL with a sink: only the rows are kept), handing rows to sink
 * (NULL: none) as they are ready. */
static int compute(const struct sweep_plan *p, int threads, unsigned char *results,
    const struct sweep_sink *sink, char **const value_text[2][MAX_VARY], struct err *err)
{
	struct run r;
	pthread_t *ids = NULL;
	char *started = NULL;
	size_t n = threads < 1 ? 1 : (size_t)threads, t, i, k;
	int rc = -1;

	memset(&r, 0, sizeof r);
	r.p = p;
	r.budget = core_budget_current();
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
	if (budget_error(err) != 0) {
		/* stopped: err says why */
	} else if (atomic_load(&r.failed)) {
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
static json_t *make_row(const struct sweep_plan *p, size_t i, const void *result)
{
	struct ans_field fields[ANS_MAX_FIELDS];
	size_t n = p->kind->fields(result, fields), f;
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

int sweep_run(const struct sweep_plan *p, int threads, json_t **answer, struct err *err)
{
	unsigned char *results = NULL;
	json_t *rows = NULL, *out = NULL;
	size_t i;
	int rc = -1;

	results = calloc(p->npoints, p->kind->result_size);
	if (!results) {
		err_set(err, ERR_INTERNAL, "", "out of memory");
		goto out;
	}
	if (compute(p, threads, results, NULL, NULL, err) != 0)
		goto out;
	rows = json_array();
	for (i = 0; rows && i < shard_rows(&p->shard, p->npoints); i++) {
		size_t point = shard_point(&p->shard, i);
		if (json_array_append_new(
		        rows, make_row(p, point, results + point * p->kind->result_size)) != 0) {
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

/* The text of point i's row in format (a JSON array, or a CSV line with its
 * "\n"), exactly as the whole answer prints it; NULL when out of memory. Caller frees. */
static char *row_text(const struct run *r, size_t i, const void *result, enum sweep_format format)
{
	const struct sweep_plan *p = r->p;
	struct ans_field fields[ANS_MAX_FIELDS];
	size_t n = p->kind->fields(result, fields), f, cap;
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
		out = sweep_csv_put_field(out, &fields[f], format);
	}
	*out++ = format == SWEEP_JSON ? ']' : '\n';
	*out = '\0';
	if (heap)
		return heap;
	kept = malloc((size_t)(out - text) + 1);
	return kept ? memcpy(kept, text, (size_t)(out - text) + 1) : NULL;
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
				if (!(cells[j] = sweep_csv_value_cell(
				          json_array_get(p->values[k], j), (enum sweep_format)f)))
					break;
			if (!cells || j < p->counts[k]) {
				err_set(err, ERR_INTERNAL, "", "out of memory");
				goto out;
			}
		}
	}
	file = open_memstream(&header, &size);
	if (!file ||
	    (sweep_csv_head(
	         file, json_object_get(head, "part"), json_object_get(head, "columns")) != 0) |
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

/* ---- the row: POST /v1/sweep ---- */

static int sweep_row_parse(
    json_t *body, const struct svc_limits *lim, void **request, struct err *err)
{
	struct sweep_plan *p;

	if (sweep_parse_threads(body, lim->max_sweep_points, lim->threads, &p, err) != 0)
		return -1;
	if (budget_refuse(p->steps, p->step_cost_ns / (p->steps > 0 ? p->steps : 1),
	        lim->max_cpu_seconds, "/vary",
	        p->shard.sharded ? "the shard's points" : "the sweep's points", err) != 0) {
		sweep_plan_free(p);
		return -1;
	}
	*request = p;
	return 0;
}

static json_t *sweep_row_canonical(const void *request)
{
	return sweep_plan_json(request);
}

static int sweep_row_answer(
    const void *request, const struct svc_limits *lim, json_t **answer, struct err *err)
{
	return sweep_run(request, lim->threads, answer, err);
}

static void sweep_row_release(void *request)
{
	sweep_plan_free(request);
}

const struct svc_endpoint_def svc_ep_sweep = {
    .name = "sweep",
    .summary = "one question over a line or grid of values at JSON Pointers",
    .units = "the query's units",
    .parse = sweep_row_parse,
    .canonical = sweep_row_canonical,
    .answer = sweep_row_answer,
    .release = sweep_row_release,
    .csv = 1,
};
