/*
 * endpoint.h: the question endpoints' table. Each endpoint's row (struct
 * svc_endpoint_def) lives in the endpoint's own file (rest.c, drop.c, stability.c,
 * sweep.c, eval.c, find.c, hold.c), like tmux's cmd_*_entry; this header lists them
 * once, in SVC_ENDPOINTS, and that one list gives the enum, the rows' declarations
 * and the table (endpoint.c). A listed endpoint without a row does not link; the
 * code has no other list of endpoints.
 *
 * A row's name is the URL /v1/NAME, the CLI's `contact NAME`, the cache key and the
 * metrics label; the HTTP routes, the metrics, the CLI's help and plots, sweep and find
 * (the sweepable rows: those with a kind), the OpenAPI document's lists, the library's
 * ctd_endpoints() and the OpenAPI test read the table.
 * docs/endpoints.md says how to add one.
 */
#ifndef CONTACTD_SERVICE_ENDPOINT_H
#define CONTACTD_SERVICE_ENDPOINT_H

#include <stddef.h>
#include <jansson.h>

#include "base/error.h"
#include "service/answer.h"

/* The endpoints, in the order routes, metrics and `contact --help` list them:
 * X(ENUM, name) with the row svc_ep_<name> (the enum value SVC_<ENUM>). */
#define SVC_ENDPOINTS(X)                                                                           \
	X(REST, rest)                                                                              \
	X(DROP, drop)                                                                              \
	X(STABILITY, stability)                                                                    \
	X(SWEEP, sweep)                                                                            \
	X(EVAL, eval)                                                                              \
	X(FIND, find)                                                                              \
	X(HOLD, hold)                                                                              \
	X(MODEL, model)                                                                            \
	X(GRADE, grade)

/* The rows of svc_endpoints[]. */
enum svc_endpoint {
#define SVC_ENDPOINT_ENUM(id, name) SVC_##id,
	SVC_ENDPOINTS(SVC_ENDPOINT_ENUM)
#undef SVC_ENDPOINT_ENUM
	    SVC_ENDPOINT_COUNT /* not an endpoint: the number of rows */
};

struct svc_limits {
	long max_sweep_points; /* points in one sweep */
	long max_eval_calls;   /* calls in one eval batch */
	int threads;           /* worker threads for a sweep (>= 1) */
	size_t max_body;       /* request body bytes; too_large beyond (--max-body) */
	/* CPU seconds one question may take (service/budget.h), its threads together;
	 * 0: no limit (the CLI's default; the daemon's --max-cpu-seconds) */
	double max_cpu_seconds;
};

/* One field of a row's flat answer (svc_endpoint_def.fields), in the answer's order. */
struct svc_field {
	const char *name; /* "rebound" */
	/* A number's unit, SI in ASCII as the API's descriptions write it ("m", "m/s", "N",
	 * "s", "1/s^2"), "" for a pure number (dimensionless); NULL for a field that is not
	 * a real number (a boolean, an integer count, a text). The one list of the answers'
	 * units: `contact --plot`, ctd_endpoints() and the OpenAPI test read it. */
	const char *unit;
};

/*
 * One question endpoint. A request goes through parse (once), then canonical (its
 * cache key) and, on a miss, answer, then release. Every function is reentrant. A
 * row with a kind may leave parse, canonical, answer and release NULL: it is then
 * answered as one request of its kind (ans_parse(), kind->canonical, ans_answer(),
 * free()).
 */
struct svc_endpoint_def {
	const char *name;    /* "drop": POST /v1/drop, `contact drop`, cache key, metrics label */
	const char *summary; /* one line for `contact --help` */
	/* the answer's units in one line for `contact --help` (each field's own: fields);
	 * NULL: none */
	const char *units;
	/* Validate body (never NULL) into *request, owned by the caller (release()). */
	int (*parse)(json_t *body, const struct svc_limits *lim, void **request, struct err *err);
	/* The canonical JSON of a parsed request; NULL when out of memory. Caller owns it. */
	json_t *(*canonical)(const void *request);
	/* The answer of a parsed request; *answer is a new reference the caller owns. */
	int (*answer)(
	    const void *request, const struct svc_limits *lim, json_t **answer, struct err *err);
	void (*release)(void *request);
	/* The answer's fields in their fixed order with their units ({NULL}-terminated),
	 * NULL when the answer is not one flat object (sweep, eval, find). */
	const struct svc_field *fields;
	/* Sweepable endpoints only (else NULL): the kind sweep and find ask (answer.h). */
	const struct ans_kind *kind;
	/* Sweepable endpoints only: the answer field a plot of a sweep draws when none is
	 * named (`contact plot`, the dashboard's sweep page, x-headline in the document):
	 * one of fields, a number ("rebound"). */
	const char *headline;
	int csv; /* the answer also prints as CSV (Accept: text/csv, `contact --csv`) */
	/* 1: the body may be a batch of up to max_eval_calls calls (eval, grade), so it may
	 * be larger than max_body (svc_body_limit()) */
	int batch;
};

#define SVC_ENDPOINT_ROW(id, name) extern const struct svc_endpoint_def svc_ep_##name;
SVC_ENDPOINTS(SVC_ENDPOINT_ROW)
#undef SVC_ENDPOINT_ROW

/* The endpoint table, indexed by enum svc_endpoint: a pointer to each row. */
extern const struct svc_endpoint_def *const svc_endpoints[SVC_ENDPOINT_COUNT];

/* Map "rest", "drop", ... to an endpoint; -1 with err (not_found) when unknown. */
int svc_endpoint_parse(const char *name, enum svc_endpoint *ep, struct err *err);

/* The name of an endpoint (a static string), "unknown" for no row. */
const char *svc_endpoint_name(enum svc_endpoint ep);

/* Row's field called name, or NULL when row has no such field (or no field list). */
const struct svc_field *svc_endpoint_field(const struct svc_endpoint_def *row, const char *name);

/*
 * Check the table as the code relies on it: every row named, with a parse or a kind,
 * every kind complete (point, canonical, steps, compute, fields, aliases, sizes), no
 * alias named twice in a kind, and every sweepable row with its fields and a headline
 * among them that has a unit. 0, or -1 with err (internal) naming the row. A row
 * that fails it is a bug (tests/test_service.c holds the table to it); a front end may
 * call it at start-up to refuse to run with one.
 */
int svc_endpoints_check(struct err *err);

#endif
