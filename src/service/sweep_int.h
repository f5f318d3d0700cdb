/*
 * sweep_int.h: the sweep module's own parts, shared by its three files and by no
 * one else: sweep.c (the plan: validation, points, canonical JSON, the row),
 * sweep_run.c (the runner: threads, batches, rows in order) and sweep_csv.c (CSV
 * and the streamed rows' text). Outside the module, sweep.h is its face.
 */
#ifndef CONTACTD_SERVICE_SWEEP_INT_H
#define CONTACTD_SERVICE_SWEEP_INT_H

#include <stdio.h>

#include "service/answer.h"
#include "service/endpoint.h"
#include "service/sceneset.h"
#include "service/shard.h"
#include "service/sweep.h"
#include "service/knobs.h"

#define MAX_VARY LIMIT_MAX_SWEEP_VARY

/* A validated sweep: its canonical parts and every point as a request. */
struct sweep_plan {
	const struct svc_endpoint_def *query; /* a sweepable row of the endpoint table */
	const struct ans_kind *kind;          /* query->kind */
	json_t *base;                         /* canonical base request */
	size_t nvary;
	const char *paths[MAX_VARY]; /* resolved JSON Pointers: owned_paths */
	char *owned_paths[MAX_VARY];
	json_t *values[MAX_VARY]; /* canonical values (arrays) */
	size_t counts[MAX_VARY];
	size_t npoints;
	/* npoints requests of kind->request_size bytes, row-major: the first vary entry
	 * slowest */
	void *points;
	unsigned char *stored; /* 1: points[i] holds point i; 0: sweep_point sets it in place */
	/* set_in_place: every path is covered by sceneset, so a point is base_request with
	 * its values set in place (sceneset.h), the full parse only when that says so */
	int set_in_place;
	void *base_request; /* the canonical base, parsed (set_in_place only) */
	struct sceneset_path set_paths[MAX_VARY];
	struct shard_spec shard; /* the points this answer holds (shard.h) */
	/* the steps its points may simulate, and their CPU cost's lower bound in ns (the
	 * compute budget's estimate, service/budget.h) */
	double steps, step_cost_ns;
};

/* Point i of a plan built without error: the stored request, or the base with i's
 * values set in place into scratch (kind->request_size bytes; so set-in-place points
 * cost no memory). */
const void *sweep_point(const struct sweep_plan *p, size_t i, void *scratch);

/* The canonical request; with_shard 0: without its shard (a part's identity). NULL if
 * out of memory. Caller owns it. */
json_t *sweep_request_json(const struct sweep_plan *p, int with_shard);

/* The text of one answer field in format, at out (room for JTEXT_REAL_MAX bytes, or
 * 6 a byte of a string and 2); returns the end. */
char *sweep_csv_put_field(char *out, const struct ans_field *f, enum sweep_format format);

/* The cell text of a varied value in format (jtext's JSON, or sweep_csv()'s CSV);
 * NULL when out of memory. Caller frees. */
char *sweep_csv_value_cell(const json_t *v, enum sweep_format format);

/* A CSV answer's lines before its rows, into f: the shard's "part" line (none when
 * part is NULL), then the columns. 0, or -1 when a value cannot be written. */
int sweep_csv_head(FILE *f, const json_t *part, const json_t *columns);

#endif
