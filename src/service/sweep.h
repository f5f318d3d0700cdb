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
 *
 * With "shard": {"index": K, "count": N} the answer holds only the rows of the
 * points i with i % N == K - 1 (every point is still validated; the step limit
 * counts the shard's points) and says which part it is in a "part" member
 * (service/shard.h), which `contact merge` reads to join the parts.
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

/* sweep_parse() with a grid's points parsed on up to `threads` threads: the same plan
 * and the same error. */

int sweep_parse_threads(
    json_t *body, long max_points, int threads, struct sweep_plan **plan, struct err *err);

/*
 * Whether later plans set each point's covered fields in place on the parsed base
 * (service/sceneset.h; on by default) or parse every point's full request. Both give
 * the same plan and the same first error; off is for tests and benchmarks that
 * compare them. Process-wide.
 */
void sweep_set_in_place(int on);

/* The canonical form of a validated sweep; NULL if out of memory. Caller owns it. */
json_t *sweep_plan_json(const struct sweep_plan *plan);

/*
 * Answer a validated sweep with `threads` worker threads (>= 1), each computing
 * its own contiguous range of points. On success *answer is a new reference the
 * caller owns.
 */
int sweep_run(const struct sweep_plan *plan, int threads, json_t **answer, struct err *err);

/* The format of a streamed sweep's rows. */
enum sweep_format { SWEEP_JSON, SWEEP_CSV };

/*
 * Where sweep_stream() writes. head() comes first, once: the answer object without
 * "rows" (borrowed) and the CSV header line (with its "\n"). Then row(), once per
 * row, in the rows' order, as soon as that row and every row before it are computed:
 * the row as it appears in the whole answer, a JSON array (SWEEP_JSON, no newline) or
 * a CSV line with its "\n" (SWEEP_CSV); json is the row's JSON text too (text itself
 * for SWEEP_JSON; for SWEEP_CSV only when with_json is set, else NULL), for a caller
 * that keeps the whole answer. row() runs on whichever worker thread finished the
 * row, never two at once. A nonzero return (err filled) stops the sweep.
 */
struct sweep_sink {
	enum sweep_format format;
	int with_json;
	int (*head)(void *ctx, const json_t *head, const char *csv_header, struct err *err);
	int (*row)(void *ctx, const char *text, size_t len, const char *json, struct err *err);
	void *ctx;
};

/*
 * Answer a validated sweep row by row into sink, with `threads` threads (>= 1). The
 * rows' bytes, with the head's, are exactly those of sweep_run()'s answer printed as
 * JSON (jtext_line) or CSV (sweep_csv). Returns 0, or -1 with err (the sink's error, or
 * out of memory) after any number of rows.
 */
int sweep_stream(
    const struct sweep_plan *plan, int threads, const struct sweep_sink *sink, struct err *err);

/* A sweep answer without its rows: {"query", "columns"}; NULL if out of memory. Caller owns it. */
json_t *sweep_head(const struct sweep_plan *plan);

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
