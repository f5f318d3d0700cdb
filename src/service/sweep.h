/*
 * sweep.h: POST /v1/sweep, one query (rest, drop or stability) over a line or
 * a grid of values put into a base request at JSON Pointers.
 *
 * Request: {"query": "rest"|"drop"|"stability", "base": {...},
 *           "vary": [{"path": POINTER, "values": [...]}, ...]} with 1 or 2
 * entries in vary; two make the full grid, the first one varying slowest.
 * Each path is applied to the canonical base (every default filled), in the
 * order of vary, and every point is validated exactly like a single request.
 *
 * Answer: {"query", "columns": [path1, (path2), fields of the query's answer
 * in their fixed order], "rows": [[value1, (value2), fields...], ...]}.
 */
#ifndef CONTACTD_SERVICE_SWEEP_H
#define CONTACTD_SERVICE_SWEEP_H

#include <jansson.h>

#include "base/error.h"

struct sweep_plan;

/*
 * Validate a sweep request into *plan, every point parsed, ready to run (the
 * caller frees it with sweep_plan_free()). Errors inside a point name the value
 * that made it invalid ("/vary/I/values/J") and quote the inner field and
 * message; too_large when the points exceed max_points or their simulated steps
 * LIMIT_MAX_SWEEP_STEPS.
 */
int sweep_parse(json_t *body, long max_points, struct sweep_plan **plan, struct err *err);

/* The canonical form of a validated sweep; NULL if out of memory. Caller owns it. */
json_t *sweep_plan_json(const struct sweep_plan *plan);

/*
 * Answer a validated sweep with `threads` worker threads (>= 1), each computing
 * its own contiguous range of points. On success *answer is a new reference the
 * caller owns.
 */
int sweep_run(const struct sweep_plan *plan, int threads, json_t **answer, struct err *err);

/* Free a plan of sweep_parse(); NULL is a no-op. */
void sweep_plan_free(struct sweep_plan *plan);

/*
 * A sweep answer as CSV: the header line of columns, then one line per row,
 * "\n"-terminated. Reals print as their shortest exact text (jtext_shortest()), integers as
 * integers, booleans as true/false, null as an empty cell; strings, arrays and objects (compact
 * JSON) are quoted as RFC 4180 requires. On success *csv is NUL-terminated
 * and the caller frees it with free().
 */
int sweep_csv(const json_t *answer, char **csv, struct err *err);

#endif
