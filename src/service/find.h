/*
 * find.h: POST /v1/find, where one answer field of a rest, drop, stability or hold
 * question crosses a threshold as one request field varies.
 *
 * Request: {"query": "rest"|"drop"|"stability"|"hold", "base": {...},
 *           "path": POINTER or alias (vary.h), "field": ANSWER FIELD,
 *           "target": NUMBER (default 0; not for boolean fields),
 *           "bracket": [a, b], "tolerance": T, "max_iterations": N,
 *           "method": "auto"|"brent"|"bisection", "scan": CELLS}
 * The field at `path` of the canonical base takes values in [a, b]. The answer is
 * the first crossing from a towards b: the bracket is scanned at scan + 1 evenly
 * spaced points (default FIND_DEFAULT_SCAN cells) in order until the field changes
 * class (field - target above 0, 0, below 0; a boolean's value), then solved in that
 * cell: a strict sign change of a real field by GSL's Brent solver ("auto" or
 * "brent"; a root exactly on the target continues by bisection to the edge of a
 * plateau there), any other change, or any with "bisection", by bisection on the
 * predicate "class of a", which needs no continuity and answers a plateau's edge.
 * Iterations stop once the bracket is at most `tolerance` wide (default
 * FIND_DEFAULT_TOLERANCE of the bracket's width) or after max_iterations (default
 * FIND_DEFAULT_ITERATIONS, at most FIND_MAX_ITERATIONS).
 *
 * Answer: {"query", "path" (resolved), "field", "target", "method", "value" (the
 * x found: Brent's root; for bisection the end of the final bracket past the
 * crossing), "field_value" (the field at value), "answer" (the whole answer
 * there), "iterations", "bracket" (the final one, ascending), "converged",
 * "mujoco" (the release of the searched request), "core_version"}.
 *
 * 422 (at /bracket) when the field does not cross: one class at every point scanned
 * (both end values in the message, and that the varied field does not change it
 * when it takes one value), or the field is null (diverged, or no such value) at a
 * point visited; and when the bracket is wider than the largest finite number.
 */
#ifndef CONTACTD_SERVICE_FIND_H
#define CONTACTD_SERVICE_FIND_H

#include <jansson.h>

#include "base/error.h"

/* The scan's cells by default and at most ("scan"): the resolution at which the
 * first crossing is told from later ones. */
#define FIND_DEFAULT_SCAN 16
#define FIND_MAX_SCAN 1000

struct find_search;

/* Validate a find request into *search (both ends of the bracket parsed; the caller
 * frees it with find_search_free()). */
int find_parse(json_t *body, struct find_search **search, struct err *err);

/* The canonical form (every default filled, the pointer resolved, "auto" decided);
 * NULL if out of memory. Caller owns it. */
json_t *find_search_json(const struct find_search *search);

/* Run a validated search; on success *answer is a new reference the caller owns. */
int find_run(const struct find_search *search, json_t **answer, struct err *err);

/* Free a search of find_parse(); NULL is a no-op. */
void find_search_free(struct find_search *search);

#endif
