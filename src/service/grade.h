/*
 * grade.h: POST /v1/grade, a student's value of one of the seed lesson's functions
 * (eval.h's) against eval's answer, with the recommended tolerance (docs/grading.md).
 *
 * Request: eval's call with the student's "value" beside it, {"function", "args",
 * "id", "mujoco", "value"}, or eval's batch of them {"calls": [...], "mujoco"}; or
 * {"tolerances": true} for the table. "value" is a number (the function's "value"),
 * an array (semi_implicit_euler's "x"), or an object of some of the function's
 * outputs, each a number, an array (semi_implicit_euler's x, v) or null (a result
 * that does not exist, or is not finite); a non-finite number is the string "NaN",
 * "Infinity" or "-Infinity". The value is graded, never refused: a non-finite number
 * or a value of another shape fails its call, the reason naming the shape expected.
 *
 * Answer of a call: {"function", "pass", "expected" (eval's, in the value's shape;
 * every output when the shape is wrong), "relative_error", "absolute_error", "ulps"
 * (of the worst number by the tolerance's measure |s - e| / max(relative * scale,
 * absolute): |s - e| / scale, |s - e|, the doubles between them (null beyond 2^52);
 * null when none was compared, relative_error null where scale 0 differs),
 * "tolerance": {"relative", "absolute", "scale": "expected" | "series_max", "why"},
 * "reason" and "failures" (when it fails: every failing output's
 * {"output", "error", "hint"}, the hint where a usual mistake of the lesson matches,
 * service/hint.h), "id" (echoed), "mujoco", "core_version"}. A number passes when
 * |student - expected| <= max(relative * scale, absolute), scale |expected| or, for a
 * series, its largest |expected|; null passes only where null is expected. A batch
 * answers {"results": [...], "passed", "graded", "failed" (calls refused: eval's
 * errors, and calls without "value"), "mujoco", "core_version"}. The tolerances:
 * {"rule", "tolerances": {function: tolerance}, "mujoco", "core_version"}.
 *
 * Refused (4xx): what eval refuses, a single call without "value" (at /value), a
 * batch over the call limit (the message says how to split it).
 */
#ifndef CONTACTD_SERVICE_GRADE_H
#define CONTACTD_SERVICE_GRADE_H

#include <jansson.h>

#include "base/error.h"

struct grade_request;

/* Validate a grade request (at most max_calls calls) into *request; the caller frees
 * it with grade_request_free(). */
int grade_parse(json_t *body, long max_calls, struct grade_request **request, struct err *err);

/* Its canonical form (eval's, with each call's value); NULL if out of memory. Caller
 * owns it. */
json_t *grade_request_json(const struct grade_request *request);

/* Grade a parsed request; *answer is a new reference the caller owns. */
int grade_run(const struct grade_request *request, json_t **answer, struct err *err);

/* Free a request of grade_parse(); NULL is a no-op. */
void grade_request_free(struct grade_request *request);

#endif
