/*
 * service.h: the question endpoints shared by the `contact` CLI and the daemon,
 * described by one table, and the one pipeline that answers them.
 *
 * The endpoint table (svc_endpoints[], service/endpoint.h) is the only place an
 * endpoint's identity lives; each row is in its endpoint's own file. This file is
 * the pipeline every row goes through. docs/endpoints.md says how to add a row.
 *
 * A question goes body -> parsed request -> canonical request (keys sorted,
 * defaults filled, numbers normalised) -> cache lookup -> answer -> cache store,
 * parsed once (svc_ask()). jtext_line() prints JSON in the one canonical text form
 * every front end uses, so the CLI's and the daemon's answers are byte-for-byte equal.
 */
#ifndef CONTACTD_SERVICE_SERVICE_H
#define CONTACTD_SERVICE_SERVICE_H

#include <stddef.h>
#include <jansson.h>

#include "base/cache.h"
#include "base/error.h"
#include "service/endpoint.h"

/* Fill l with the defaults of service/knobs.h and one thread per online core. */
void svc_limits_default(struct svc_limits *l);

/* The largest request body ep takes, in bytes: lim->max_body, or for a batch endpoint
 * (eval, grade: a row's batch) room for lim->max_eval_calls calls of
 * LIMIT_EVAL_CALL_BYTES each when that is more. ep SVC_ENDPOINT_COUNT: a body that is no
 * question's (lim->max_body). */
size_t svc_body_limit(enum svc_endpoint ep, const struct svc_limits *lim);

/* Fill err with the refusal (too_large, the contract's 413) of a body over ep's limit,
 * in the words every front end uses; a batch endpoint's says how to split. Returns -1. */
int svc_body_refuse(enum svc_endpoint ep, const struct svc_limits *lim, struct err *err);

/* What svc_ask() did besides answering, for the daemon's log line and metrics. */
struct svc_outcome {
	int cached;                 /* 1: the answer came from the cache */
	struct err cache_read_err;  /* code != ERR_NONE: the lookup failed (answered anyway) */
	struct err cache_write_err; /* code != ERR_NONE: storing the answer failed */
};

/*
 * Answer a request body of len bytes (need not be NUL-terminated): parse it, make
 * its canonical text, look that up in cache (NULL: no cache), and on a miss compute
 * the answer and store its text. A failing cache costs speed, never an answer: it
 * is reported in *outcome (may be NULL). On success *text is the answer's canonical
 * text (jtext_line()), which the caller frees with free(). lim NULL: the defaults.
 */
int svc_ask(enum svc_endpoint ep, const char *body, size_t len, const struct svc_limits *lim,
    const struct cache *cache, char **text, struct svc_outcome *outcome, struct err *err);

/*
 * Parse and validate a request body of len bytes (need not be NUL-terminated).
 * On success *canonical is a new reference the caller owns. lim NULL: the
 * defaults of svc_limits_default().
 */
int svc_canonical(enum svc_endpoint ep, const char *body, size_t len, const struct svc_limits *lim,
    json_t **canonical, struct err *err);

/* Answer a canonical request (or any valid one). On success *answer is a new
 * reference the caller owns. lim NULL: the defaults. Safe to call from several
 * threads at once (a sweep starts lim->threads - 1 threads of its own). */
int svc_answer(enum svc_endpoint ep, const json_t *canonical, const struct svc_limits *lim,
    json_t **answer, struct err *err);

/* The MuJoCo release a request that names none is answered for (a static string). */
const char *svc_mujoco_default(void);

/* Every release option.mujoco accepts, oldest first, as a new JSON array the caller
 * owns; NULL if out of memory. */
json_t *svc_mujoco_releases(void);

/* The name an application/xml body of POST /v1/model goes by (its "main"). */
#define SVC_MODEL_XML_NAME "model.xml"

/*
 * The model endpoint's JSON request for a raw MJCF document of len bytes (an
 * application/xml body): {"main": SVC_MODEL_XML_NAME, "files": {SVC_MODEL_XML_NAME: xml}},
 * with "mujoco" when mujoco is not NULL (a query's ?mujoco=, checked by the row). Cheap:
 * the MJCF is read once, by the row's answer, where an <include> (the document is one
 * file) is a 422 (bad_value) naming its line; text that is not UTF-8 is a 422 here,
 * too_large past MJCF_MAX_BYTES. On success *json (NUL-terminated, *json_len bytes) is the
 * caller's to free().
 */
int svc_model_xml(const char *xml, size_t len, const char *mujoco, char **json, size_t *json_len,
    struct err *err);

/* A sweep answer as CSV (header line, then one line per row). Caller frees. */
int svc_sweep_csv(const json_t *answer, char **csv, struct err *err);

struct sweep_plan; /* service/sweep.h */
struct sweep_sink; /* service/sweep.h */

/*
 * Validate a sweep body exactly as svc_ask(SVC_SWEEP) does (the same errors) into *plan,
 * which the caller frees with sweep_plan_free(); then sweep_stream() answers it row by
 * row. lim NULL: the defaults.
 */
int svc_sweep_open(const char *body, size_t len, const struct svc_limits *lim,
    struct sweep_plan **plan, struct err *err);

/* svc_sweep_open() and sweep_stream() with lim->threads: `contact sweep`'s way. A
 * rejected body fails before sink->head(); later failures come after some rows. */
int svc_sweep_stream(const char *body, size_t len, const struct svc_limits *lim,
    const struct sweep_sink *sink, struct err *err);

/* The same from an answer's text (svc_ask()'s). Caller frees *csv. */
int svc_text_csv(const char *text, char **csv, struct err *err);

#endif
