/*
 * service.h: the request handlers shared by the `contact` CLI and the daemon.
 *
 * A request goes through two stages, so the daemon can cache between them:
 *   svc_canonical(): parse and validate the body, fill every default, and return
 *                    the canonical request (keys sorted, numbers normalised);
 *   svc_answer():    compute the answer of a canonical request with the core.
 * svc_dump() prints JSON in the one canonical text form every front end uses, so
 * the CLI and HTTP answers are byte-for-byte equal.
 */
#ifndef CONTACTD_SERVICE_SERVICE_H
#define CONTACTD_SERVICE_SERVICE_H

#include <stddef.h>
#include <jansson.h>

#include "service/error.h"

enum svc_endpoint { SVC_REST, SVC_DROP, SVC_STABILITY, SVC_SWEEP, SVC_EVAL };

struct svc_limits {
	long max_sweep_points; /* points in one sweep */
	long max_eval_calls;   /* calls in one eval batch */
	int threads;           /* worker threads for a sweep (>= 1) */
};

/*
 * Turn GSL's process-wide error handler (abort by default) off, once, so that the
 * core's and the calibration's GSL failures come back as return codes. Thread-safe
 * and idempotent; every entry point of the service calls it before computing.
 */
void svc_quiet_gsl(void);

/* Fill l with the defaults of tunables.h and one thread per online core. */
void svc_limits_default(struct svc_limits *l);

/* Map "rest", "drop", ... to an endpoint; -1 with err when unknown. */
int svc_endpoint_parse(const char *name, enum svc_endpoint *ep, struct err *err);
const char *svc_endpoint_name(enum svc_endpoint ep);

/*
 * Parse and validate a request body of len bytes (need not be NUL-terminated).
 * On success *canonical is a new reference the caller owns. lim NULL: the
 * defaults of svc_limits_default().
 */
int svc_canonical(enum svc_endpoint ep, const char *body, size_t len, const struct svc_limits *lim,
    json_t **canonical, struct err *err);

/* Answer a canonical request. On success *answer is a new reference the caller
 * owns. lim NULL: the defaults. Safe to call from several threads at once (a
 * sweep starts lim->threads - 1 threads of its own). */
int svc_answer(enum svc_endpoint ep, const json_t *canonical, const struct svc_limits *lim,
    json_t **answer, struct err *err);

/* The canonical text of a JSON value (compact, sorted keys, 17 significant
 * digits), NUL-terminated, newline-terminated. Caller frees with free(). */
char *svc_dump(const json_t *value);

/* The MuJoCo release a request that names none is answered for (a static string). */
const char *svc_mujoco_default(void);

/* Every release option.mujoco accepts, oldest first, as a new JSON array the caller
 * owns; NULL if out of memory. */
json_t *svc_mujoco_releases(void);

/* A sweep answer as CSV (header line, then one line per row). Caller frees. */
int svc_sweep_csv(const json_t *answer, char **csv, struct err *err);

#endif
