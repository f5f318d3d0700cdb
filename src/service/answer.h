/*
 * answer.h: what every sweepable question (rest, drop, stability, hold, ...) answers
 * through: its kind (struct ans_kind, a table of functions its own file fills in), and
 * its answer as a list of fields in one fixed order, the same for a single answer's
 * JSON object and a sweep's columns and rows.
 *
 * This file knows no kind by name: a kind is a value of struct ans_kind, so there is
 * no per-kind branch to forget, and a row without its kind does not compile.
 *
 * No answer field is ever a non-finite number: such a value becomes JSON null
 * and the answer's "diverged" field is true.
 */
#ifndef CONTACTD_SERVICE_ANSWER_H
#define CONTACTD_SERVICE_ANSWER_H

#include <stddef.h>
#include <jansson.h>

#include "base/error.h"

enum ans_type { ANS_NULL, ANS_REAL, ANS_INTEGER, ANS_BOOL, ANS_STRING };

/* One field of an answer. */
struct ans_field {
	const char *name; /* static string */
	enum ans_type type;
	double real;
	long integer;     /* ANS_INTEGER, and ANS_BOOL as 0 or 1 */
	const char *text; /* ANS_STRING: a static string */
};

#define ANS_MAX_FIELDS 24 /* the most any kind fills: hold, 21 */

/* A field list being filled by a kind's fields(): ans_add_*() append in order and
 * remember whether any real was not finite (the answer's "diverged"). */
struct ans_list {
	struct ans_field *fields; /* room for ANS_MAX_FIELDS */
	size_t count;
	int diverged;
};

/* A real; a non-finite value is null and marks the list diverged. */
void ans_add_real(struct ans_list *l, const char *name, double value);

/* A value that does not exist (no equilibrium, no time constant): null, not divergence. */
void ans_add_null(struct ans_list *l, const char *name);

/* An integer (type ANS_INTEGER) or a boolean (ANS_BOOL, value 0 or 1). */
void ans_add_integer(struct ans_list *l, const char *name, long value, enum ans_type type);

/* A static string. */
void ans_add_string(struct ans_list *l, const char *name, const char *value);

/* ans_add_real() when present and finite, else null without divergence. */
void ans_add_real_if(struct ans_list *l, const char *name, double value, int present);

/* "mujoco" (the name of release mujoco, an mjver index) and "core_version". */
void ans_add_release(struct ans_list *l, int mujoco);

/* The tail of a rest, drop or stability answer: "solref_fallback", "diverged" (the
 * list's), then ans_add_release(). */
void ans_add_tail(struct ans_list *l, int solref_fallback, int mujoco);

/* A name a sweep's or find's path may use instead of a JSON Pointer (vary.h). */
struct ans_alias {
	const char *name;    /* "dampratio" */
	const char *pointer; /* "/geom/solref/1" */
};

/*
 * What a sweep's runner asks of a kind that computes many points at once (batch()
 * below). The runner owns the points and their results' memory; every function is
 * called on the thread that runs batch().
 */
struct ans_batch {
	/* The next point's index and request (*request valid until the next call), or -1
	 * when none is left. */
	long (*next)(void *ctx, const void **request);
	/* The memory (result_size bytes) for point index's result; NULL when out of memory
	 * (the run has then failed: batch() should stop asking). */
	void *(*take)(void *ctx, long index);
	/* The memory take() gave for index (it may move between calls: ask again). */
	void *(*result)(void *ctx, long index);
	/* Point index's result is final. */
	void (*done)(void *ctx, long index);
	void *ctx;
};

struct req_scene; /* service/request.h */

/*
 * A sweepable question kind: a request of request_size bytes and a result of
 * result_size bytes, both plain memory the caller allocates (no pointers to free).
 * Every function is reentrant and thread-safe on distinct requests and results.
 */
struct ans_kind {
	size_t request_size, result_size;
	/* Validate the request v found at JSON Pointer path ("" for a whole body) into
	 * *request; errors are under path. */
	int (*point)(json_t *v, const char *path, void *request, struct err *err);
	/* The canonical JSON of a validated request; NULL if out of memory. Caller owns it. */
	json_t *(*canonical)(const void *request);
	/* Make the field ptr names exist in v, a canonical request, so a JSON Pointer into
	 * it resolves. NULL: a canonical request has every field already. */
	int (*expose)(json_t *v, const char *ptr, struct err *err);
	/* Simulated steps of a validated request, for the sweep's step limit (0: none). */
	long (*steps)(const void *request);
	/* Answer a validated request into *result. Pure computation. */
	void (*compute)(const void *request, void *result);
	/* The fields of a result in their documented order; returns the count. A zeroed
	 * result gives the same names and the types of its booleans and integers. */
	size_t (*fields)(const void *result, struct ans_field out[ANS_MAX_FIELDS]);
	/* The aliases of the kind's request fields, {NULL, NULL}-terminated (vary.h). */
	const struct ans_alias *aliases;
	/* Optional: the scene inside a request, whose fields a sweep may set in place
	 * (service/sceneset.h) instead of parsing each point. NULL: not a scene. */
	struct req_scene *(*scene)(void *request);
	/* Optional: compute every point the runner hands out, several at once, each
	 * result what compute() gives. NULL: one compute() a point. */
	void (*batch)(const struct ans_batch *batch);
	/* Optional: a lower bound of the CPU nanoseconds one of the request's steps costs,
	 * for the compute budget's estimate (service/budget.h). NULL: BUDGET_STEP_NS. */
	double (*step_ns)(const void *request);
};

/* Validate body as one whole request of kind into a new *request the caller frees
 * with free(). */
int ans_parse(const struct ans_kind *kind, json_t *body, void **request, struct err *err);

/* Compute a validated request of kind and make its answer: *answer is a new
 * reference the caller owns. */
int ans_answer(const struct ans_kind *kind, const void *request, json_t **answer, struct err *err);

/* The JSON value of one field; NULL if out of memory. Caller owns it. */
json_t *ans_field_json(const struct ans_field *f);

/* A result of kind as a JSON object of its fields; NULL if out of memory. Caller owns it. */
json_t *ans_to_json(const struct ans_kind *kind, const void *result);

/* Set obj's "mujoco" (the name of release mujoco, an mjver index) and "core_version",
 * as every answer carries them; the answers that are not one result's field list (eval,
 * find) call it. Returns obj, or NULL (obj released) if obj is NULL or out of memory. */
json_t *ans_with_release(json_t *obj, int mujoco);

#endif
